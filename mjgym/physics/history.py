"""History buffers of delayed actuators and sensors (MuJoCo 4's ``nsample``, ``interp``, ``delay``, ``interval``).

An actuator or sensor with ``nsample`` > 0 owns a buffer in ``d.history`` at its ``*_historyadr``, laid out as
``[last sample time, cursor, times (nsample), values (nsample * dim)]``: a ring of samples whose times increase from
the oldest (the slot after ``cursor``) to the newest (the slot at ``cursor``). Each step, before the state advances,
the actuator's ``ctrl`` and the sensor's value at the current time are inserted (an interval sensor's only when its
period has elapsed). A delayed actuator's force sees its control at ``time - delay``, and a delayed sensor reports
its value at ``time - delay``, read from the buffer with zero-order hold, linear or cubic (Catmull-Rom) interpolation
and held constant beyond the oldest and newest samples; an interval sensor between its samples reports the last
one. Everything here runs only for models with ``nhistory`` > 0.
"""

import math as pymath

from numba import njit

from mjgym.physics import _jit
from mjgym.physics.types import MINVAL

# Interpolation orders (the ``interp`` keywords).
_HOLD, _LINEAR = 0, 1


@njit(cache=True, error_model="numpy", inline="always")
def _slot(cursor, n, k):
  """Physical slot of the k-th oldest sample (k = n - 1: the newest, at the cursor)."""
  return (cursor + 1 + k) % n


@njit(cache=True, error_model="numpy")
def _first_at_or_after(buf, n, t):
  """Age rank k of the oldest sample whose time is at least t: 0 when t is at or before the oldest, n when after
  the newest."""
  cursor = int(buf[1])
  if t <= buf[2 + _slot(cursor, n, 0)]:
    return 0
  if t > buf[2 + cursor]:
    return n
  lo, hi = 0, n - 1  # buf time of rank lo < t <= time of rank hi
  while hi - lo > 1:
    mid = (lo + hi) // 2
    if buf[2 + _slot(cursor, n, mid)] < t:
      lo = mid
    else:
      hi = mid
  return hi


@njit(cache=True, error_model="numpy")
def insert(buf, n, dim, t):
  """Makes room for a sample at time t and returns where its ``dim`` values go in ``buf``: the slot of a sample
  already at t, else a new newest slot (the oldest is dropped), else t's place in time order."""
  cursor = int(buf[1])
  values = 2 + n
  k = _first_at_or_after(buf, n, t)
  if k < n:
    s = _slot(cursor, n, k)
    if abs(t - buf[2 + s]) < MINVAL:
      return values + s * dim
  if k == 0:
    s = _slot(cursor, n, 0)
    buf[2 + s] = t
    return values + s * dim
  if k == n:
    cursor = (cursor + 1) % n
    buf[1] = cursor
    buf[2 + cursor] = t
    return values + cursor * dim
  # between two samples: the older ones move one slot back in time, dropping the oldest
  for j in range(k - 1):
    src, dst = _slot(cursor, n, j + 1), _slot(cursor, n, j)
    buf[2 + dst] = buf[2 + src]
    for c in range(dim):
      buf[values + dst * dim + c] = buf[values + src * dim + c]
  s = _slot(cursor, n, k - 1)
  buf[2 + s] = t
  return values + s * dim


@njit(cache=True, error_model="numpy")
def read(buf, n, dim, t, interp, out):
  """Writes the buffer's value at time t into ``out`` (``dim`` values)."""
  cursor = int(buf[1])
  values = 2 + n
  oldest = _slot(cursor, n, 0)
  if t <= buf[2 + oldest] + MINVAL:
    _copy(buf, values + oldest * dim, dim, out)
    return
  if t >= buf[2 + cursor] - MINVAL:
    _copy(buf, values + cursor * dim, dim, out)
    return
  k = _first_at_or_after(buf, n, t)
  hi = _slot(cursor, n, k)
  if abs(t - buf[2 + hi]) < MINVAL:
    _copy(buf, values + hi * dim, dim, out)
    return
  lo = _slot(cursor, n, k - 1)
  if interp == _HOLD:
    _copy(buf, values + lo * dim, dim, out)
    return
  t_lo, t_hi = buf[2 + lo], buf[2 + hi]
  span = t_hi - t_lo
  a = (t - t_lo) / span
  if interp == _LINEAR:
    for c in range(dim):
      v_lo = buf[values + lo * dim + c]
      out[c] = v_lo + a * (buf[values + hi * dim + c] - v_lo)
    return
  # cubic Hermite with Catmull-Rom slopes from the neighbouring samples; zero slope at the ends of the buffer
  a2 = a * a
  a3 = a2 * a
  h00 = 2 * a3 - 3 * a2 + 1
  h10 = a3 - 2 * a2 + a
  h01 = -2 * a3 + 3 * a2
  h11 = a3 - a2
  before = _slot(cursor, n, k - 2) if k > 1 else -1
  after = _slot(cursor, n, k + 1) if k < n - 1 else -1
  for c in range(dim):
    v_lo = buf[values + lo * dim + c]
    v_hi = buf[values + hi * dim + c]
    slope_lo = 0.0
    if before >= 0:
      slope_lo = (v_hi - buf[values + before * dim + c]) / (t_hi - buf[2 + before])
    slope_hi = 0.0
    if after >= 0:
      slope_hi = (buf[values + after * dim + c] - v_lo) / (buf[2 + after] - t_lo)
    out[c] = h00 * v_lo + h10 * span * slope_lo + h01 * v_hi + h11 * span * slope_hi


@njit(cache=True, error_model="numpy", inline="always")
def _copy(buf, start, dim, out):
  for c in range(dim):
    out[c] = buf[start + c]


@njit(cache=True, error_model="numpy", inline="always")
def _actuator_buffer(m, d, i):
  n = m.actuator_history[i, 0]
  adr = m.actuator_historyadr[i]
  return d.history[adr:adr + 2 + 2 * n], n


@njit(cache=True, error_model="numpy", inline="always")
def _sensor_buffer(m, d, i):
  n = m.sensor_history[i, 0]
  adr = m.sensor_historyadr[i]
  return d.history[adr:adr + 2 + n * (1 + m.sensor_dim[i])], n


@_jit.lazy
@njit(cache=True, error_model="numpy")
def delayed_ctrls(m, d):
  """history_ctrl: the control each actuator's force sees, ctrl at ``time - actuator_delay`` for a delayed one and
  ctrl itself for the others (fwd_actuation then reads all its controls from history_ctrl)."""
  for i in range(m.nu):
    if m.actuator_delay[i] != 0.0:
      buf, n = _actuator_buffer(m, d, i)
      read(buf, n, 1, d.time[0] - m.actuator_delay[i], m.actuator_history[i, 1], d.history_ctrl[i:i + 1])
    else:
      d.history_ctrl[i] = d.ctrl[i]


@_jit.lazy
@njit(cache=True, error_model="numpy")
def sensors(m, d, stage):
  """The values the history gives the stage's sensors: a delayed sensor's value at ``time - sensor_delay`` (its
  value now is kept in history_fresh until the step inserts it), an interval sensor's last sample while its period
  has not elapsed. Runs after the stage computed every sensor."""
  t = d.time[0]
  for i in range(m.nsensor):
    if m.sensor_history[i, 0] == 0 or m.sensor_needstage[i] != stage:
      continue
    buf, n = _sensor_buffer(m, d, i)
    dim = m.sensor_dim[i]
    adr = m.sensor_adr[i]
    out = d.sensordata[adr:adr + dim]
    delay = m.sensor_delay[i]
    period = m.sensor_interval[i, 0]
    if delay > 0:
      d.history_fresh[adr:adr + dim] = out
      read(buf, n, dim, t - delay, m.sensor_history[i, 1], out)
    elif period > 0 and not buf[0] + period <= t:
      read(buf, n, dim, t, m.sensor_history[i, 1], out)


@_jit.lazy
@njit(cache=True, error_model="numpy")
def advance(m, d):
  """Inserts the controls and sensor values at the current time (before the step advances it)."""
  t = d.time[0]
  for i in range(m.nu):
    if m.actuator_history[i, 0] > 0:
      buf, n = _actuator_buffer(m, d, i)
      buf[insert(buf, n, 1, t)] = d.ctrl[i]
  for i in range(m.nsensor):
    if m.sensor_history[i, 0] == 0:
      continue
    buf, n = _sensor_buffer(m, d, i)
    dim = m.sensor_dim[i]
    adr = m.sensor_adr[i]
    period = m.sensor_interval[i, 0]
    if period > 0:
      if not buf[0] + period <= t:
        continue
      buf[0] += period  # the sampling clock keeps its own phase, whatever the timestep
    # a delayed sensor's sensordata holds its past value: its value now was kept in history_fresh
    src = d.history_fresh if m.sensor_delay[i] > 0 else d.sensordata
    start = insert(buf, n, dim, t)
    buf[start:start + dim] = src[adr:adr + dim]


@njit(cache=True, error_model="numpy")
def reset(m, d):
  """Buffers as mj_resetData leaves them: zero values at the nsample steps before time 0 (an interval sensor's at
  its period's ticks, rounded up to the step grid), an interval sensor's last sample one period before its phase."""
  dt = m.opt_timestep[0]
  for i in range(m.nu):
    n = m.actuator_history[i, 0]
    if n > 0:
      buf, n = _actuator_buffer(m, d, i)
      _reset_buffer(buf, n, 0.0, dt, 0.0, 0.0)
  for i in range(m.nsensor):
    n = m.sensor_history[i, 0]
    if n > 0:
      buf, n = _sensor_buffer(m, d, i)
      period, phase = m.sensor_interval[i, 0], m.sensor_interval[i, 1]
      last = -dt
      if period > 0:
        last = -period if phase == 0 else phase
      _reset_buffer(buf, n, last, dt, period, last)


@njit(cache=True, error_model="numpy")
def _reset_buffer(buf, n, last, dt, period, newest):
  buf[0] = last
  buf[1] = n - 1
  for j in range(n):
    if period > 0:
      buf[2 + j] = pymath.ceil((newest - (n - 1 - j) * period) / dt) * dt
    else:
      buf[2 + j] = -(n - j) * dt
  buf[2 + n:] = 0.0
