"""mjgym.envs.rewards.tolerance against dm_control.utils.rewards.tolerance, the oracle, over random inputs."""

import numpy as np
import pytest

from mjgym.envs import rewards

dm_rewards = pytest.importorskip("dm_control.utils.rewards")

# A few ulps: the same arithmetic in the same order; numpy's and libm's exp, cosh, ... may differ in the last bit.
TOL = 1e-15


def _cases(rng, n):
  """(x array, bounds, margin, value_at_margin) covering inside, near, far, both sides and infinite bounds."""
  for _ in range(n):
    lower = rng.uniform(-3, 3)
    upper = lower + (0.0 if rng.random() < 0.3 else rng.uniform(0, 2))
    if rng.random() < 0.2:
      upper = np.inf
    elif rng.random() < 0.2:
      lower = -np.inf
    margin = 0.0 if rng.random() < 0.1 else rng.uniform(0.01, 5)
    x = np.concatenate([rng.uniform(-10, 10, 40), rng.normal(lower if np.isfinite(lower) else upper, 0.1, 20),
                        [lower, upper] if np.isfinite(lower) and np.isfinite(upper) else []])
    yield x, (lower, upper), margin, rng.uniform(0.01, 0.99)


@pytest.mark.parametrize("sigmoid", sorted(rewards.SIGMOIDS))
def test_tolerance_matches_dm_control(sigmoid):
  rng = np.random.default_rng(41)
  worst = 0.0
  for x, bounds, margin, value in _cases(rng, 300):
    ours = rewards.tolerance(x, bounds, margin, sigmoid, value)
    theirs = dm_rewards.tolerance(x, bounds, margin, sigmoid, value)
    worst = max(worst, float(np.max(np.abs(ours - theirs))))
    scalar = float(x[0])
    assert isinstance(rewards.tolerance(scalar, bounds, margin, sigmoid, value), float)
    assert abs(rewards.tolerance(scalar, bounds, margin, sigmoid, value)
               - dm_rewards.tolerance(scalar, bounds, margin, sigmoid, value)) <= TOL
  assert worst <= TOL, f"{sigmoid}: worst difference {worst:.3e}"


@pytest.mark.parametrize("sigmoid", ["linear", "quadratic", "cosine"])
def test_zero_value_at_margin_reaches_zero(sigmoid):
  x = np.linspace(-3, 3, 601)
  ours = rewards.tolerance(x, (-0.5, 0.5), 1.0, sigmoid, 0.0)
  np.testing.assert_allclose(ours, dm_rewards.tolerance(x, (-0.5, 0.5), 1.0, sigmoid, 0.0), rtol=0, atol=TOL)
  assert ours[np.abs(x) >= 1.5].max() == 0.0


@pytest.mark.parametrize("bounds, margin, sigmoid, value", [
    ((1.0, 0.0), 1.0, "gaussian", 0.1),      # lower above upper
    ((0.0, 0.0), -1.0, "gaussian", 0.1),     # negative margin
    ((0.0, 0.0), 1.0, "gaussian", 0.0),      # gaussian never reaches 0
    ((0.0, 0.0), 1.0, "linear", 1.0),        # value_at_margin must stay below 1
    ((0.0, 0.0), 1.0, "logistic", 0.1),      # unknown sigmoid
])
def test_bad_arguments_raise_as_in_dm_control(bounds, margin, sigmoid, value):
  with pytest.raises(ValueError):
    dm_rewards.tolerance(0.5, bounds, margin, sigmoid, value)
  with pytest.raises(ValueError):
    rewards.tolerance(0.5, bounds, margin, sigmoid, value)
