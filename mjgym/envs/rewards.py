"""Soft indicators of "x is within bounds", the reward shaping of the DeepMind Control Suite.

``tolerance(x, bounds, margin, sigmoid, value_at_margin)`` is 1 where ``bounds[0] <= x <= bounds[1]``; outside,
with ``margin`` > 0, it falls with the distance to the nearest bound, measured in margins, along ``sigmoid``, to
``value_at_margin`` one margin away (with ``margin`` = 0 it is 0 outside). The semantics are those of
``dm_control.utils.rewards.tolerance``, with the same arithmetic in the same order, so that rewards agree to the
last bits with dm_control's wherever the elementary functions (exp, cosh, ...) of numpy and of numba's libm agree.

Tasks call ``tolerance_kernel`` from their numba kernels with a sigmoid code (``SIGMOIDS[name]``); ``tolerance``
is the checked front door for Python callers, over scalars or arrays.
"""

import math

import numpy as np
from numba import njit

GAUSSIAN, HYPERBOLIC, LONG_TAIL, RECIPROCAL, COSINE, LINEAR, QUADRATIC, TANH_SQUARED = range(8)
SIGMOIDS = {"gaussian": GAUSSIAN, "hyperbolic": HYPERBOLIC, "long_tail": LONG_TAIL, "reciprocal": RECIPROCAL,
            "cosine": COSINE, "linear": LINEAR, "quadratic": QUADRATIC, "tanh_squared": TANH_SQUARED}
# These reach 0 at a finite distance, so a value of 0 one margin away is meaningful for them alone.
_ZERO_ALLOWED = (COSINE, LINEAR, QUADRATIC)

DEFAULT_VALUE_AT_MARGIN = 0.1


@njit(cache=True, inline="always")
def sigmoid_kernel(d, value_at_1, sigmoid):
  """The sigmoid at ``d`` >= 0 margins from the bounds: 1 at 0, ``value_at_1`` at 1."""
  if sigmoid == GAUSSIAN:
    scale = math.sqrt(-2.0 * math.log(value_at_1))
    return math.exp(-0.5 * (d * scale) ** 2)
  if sigmoid == HYPERBOLIC:
    scale = math.acosh(1.0 / value_at_1)
    return 1.0 / math.cosh(d * scale)
  if sigmoid == LONG_TAIL:
    scale = math.sqrt(1.0 / value_at_1 - 1.0)
    return 1.0 / ((d * scale) ** 2 + 1.0)
  if sigmoid == RECIPROCAL:
    scale = 1.0 / value_at_1 - 1.0
    return 1.0 / (abs(d) * scale + 1.0)
  if sigmoid == COSINE:
    scaled = d * (math.acos(2.0 * value_at_1 - 1.0) / math.pi)
    return (1.0 + math.cos(math.pi * scaled)) / 2.0 if abs(scaled) < 1.0 else 0.0
  if sigmoid == LINEAR:
    scaled = d * (1.0 - value_at_1)
    return 1.0 - scaled if abs(scaled) < 1.0 else 0.0
  if sigmoid == QUADRATIC:
    scaled = d * math.sqrt(1.0 - value_at_1)
    return 1.0 - scaled ** 2 if abs(scaled) < 1.0 else 0.0
  scale = math.atanh(math.sqrt(1.0 - value_at_1))  # TANH_SQUARED
  return 1.0 - math.tanh(d * scale) ** 2


@njit(cache=True, inline="always")
def tolerance_kernel(x, lower, upper, margin, sigmoid, value_at_margin):
  """``tolerance`` of one number, for kernels (arguments as checked by ``tolerance``)."""
  if lower <= x <= upper:
    return 1.0
  if margin == 0.0:
    return 0.0
  d = (lower - x if x < lower else x - upper) / margin
  return sigmoid_kernel(d, value_at_margin, sigmoid)


@njit(cache=True)
def _tolerance_array(x, lower, upper, margin, sigmoid, value_at_margin):
  out = np.empty(x.shape[0])
  for i in range(x.shape[0]):
    out[i] = tolerance_kernel(x[i], lower, upper, margin, sigmoid, value_at_margin)
  return out


def check(bounds, margin, sigmoid, value_at_margin):
  """(lower, upper, margin, sigmoid code, value_at_margin) after dm_control's checks of the arguments."""
  lower, upper = (float(b) for b in bounds)
  if lower > upper:
    raise ValueError(f"lower bound {lower} exceeds upper bound {upper}")
  if margin < 0:
    raise ValueError(f"margin must be non-negative, got {margin}")
  if sigmoid not in SIGMOIDS:
    raise ValueError(f"unknown sigmoid {sigmoid!r}; one of {sorted(SIGMOIDS)}")
  code = SIGMOIDS[sigmoid]
  if margin > 0:  # value_at_margin means nothing without a margin, as in dm_control
    low_ok = 0.0 <= value_at_margin if code in _ZERO_ALLOWED else 0.0 < value_at_margin
    if not (low_ok and value_at_margin < 1.0):
      raise ValueError(f"value_at_margin of the {sigmoid} sigmoid must be in "
                       f"{'[0' if code in _ZERO_ALLOWED else '(0'}, 1), got {value_at_margin}")
  return lower, upper, float(margin), code, float(value_at_margin)


def tolerance(x, bounds=(0.0, 0.0), margin=0.0, sigmoid="gaussian", value_at_margin=DEFAULT_VALUE_AT_MARGIN):
  """1 where ``bounds[0] <= x <= bounds[1]``, else falling along ``sigmoid`` to ``value_at_margin`` at
  ``margin`` from the nearest bound (0 outside the bounds when ``margin`` is 0). ``x``: a number (returns a
  float) or an array (returns an array of its shape). Sigmoids: gaussian, hyperbolic, long_tail, reciprocal,
  cosine, linear, quadratic, tanh_squared."""
  args = check(bounds, margin, sigmoid, value_at_margin)
  values = np.asarray(x, np.float64)
  out = _tolerance_array(np.ascontiguousarray(values.reshape(-1)), *args).reshape(values.shape)
  return float(out) if np.ndim(x) == 0 else out
