"""Actuation: control clamping, activation dynamics, gain and bias -> actuator_force -> qfrc_actuator."""

import math as pymath

from numba import njit

from mjgym.physics import _jit
from mjgym.physics import history
from mjgym.physics import support
from mjgym.physics.constants import DSBL_ACTUATION
from mjgym.physics.constants import DSBL_CLAMPCTRL
from mjgym.physics.constants import DSBL_GRAVITY
from mjgym.physics.constants import WARN_BADCTRL
from mjgym.physics.types import BiasType
from mjgym.physics.types import DynType
from mjgym.physics.types import GainType
from mjgym.physics.types import MAXVAL
from mjgym.physics.types import MINVAL
from mjgym.physics.types import TrnType


@_jit.separate
@njit(cache=True, error_model="numpy")
def fwd_velocity_quantities(m, d):
  """ten_velocity = ten_J qvel and actuator_velocity = actuator_moment qvel (zero if actuation is off)."""
  nv = m.nv
  qvel = d.qvel
  if m.ntendon > 0:
    ten_j = d.ten_J
    ten_velocity = d.ten_velocity
    for t in range(m.ntendon):
      s = 0.0
      for k in range(nv):
        s += ten_j[t, k] * qvel[k]
      ten_velocity[t] = s
  actuator_velocity = d.actuator_velocity
  if (m.opt_disableflags[0] & DSBL_ACTUATION) != 0:
    actuator_velocity[:] = 0.0
    return
  moment = d.actuator_moment
  for i in range(m.nu):
    first, end = support.moment_span(m, i)
    s = 0.0
    for k in range(first, end):
      s += moment[i, k] * qvel[k]
    actuator_velocity[i] = s


@njit(cache=True, error_model="numpy")
def _ctrl(m, d, i):
  """Control of actuator i, clamped to its ctrlrange (d.ctrl itself is left alone)."""
  return _clamp_ctrl(m, i, d.ctrl[i])


@njit(cache=True, error_model="numpy")
def _clamp_ctrl(m, i, c):
  if m.actuator_ctrllimited[i] and (m.opt_disableflags[0] & DSBL_CLAMPCTRL) == 0:
    c = min(max(c, m.actuator_ctrlrange[i, 0]), m.actuator_ctrlrange[i, 1])
  return c


@njit(cache=True, error_model="numpy")
def next_activation(m, d, i, act, act_dot):
  """Activation of actuator i one timestep after ``act`` at rate ``act_dot``, clamped to actrange."""
  h = m.opt_timestep[0]
  if m.actuator_dyntype[i] == DynType.FILTEREXACT:
    # exact integration of the first-order filter over the step
    tau = max(MINVAL, m.actuator_dynprm[i, 0])
    act = act + act_dot * tau * (1.0 - pymath.exp(-h / tau))
  else:
    act = act + act_dot * h
  if m.actuator_actlimited[i]:
    act = min(max(act, m.actuator_actrange[i, 0]), m.actuator_actrange[i, 1])
  return act


@njit(cache=True, error_model="numpy")
def _input(m, d, i, ctrl):
  """What the gain multiplies: ctrl, or the (last) activation, or the next one for actearly actuators."""
  if m.actuator_dyntype[i] == DynType.NONE:
    return ctrl
  k = m.actuator_actadr[i] + m.actuator_actnum[i] - 1
  if m.actuator_actearly[i]:
    return next_activation(m, d, i, d.act[k], d.act_dot[k])
  return d.act[k]


@_jit.separate
@njit(cache=True, error_model="numpy")
def fwd_actuation(m, d):
  """act_dot, actuator_force and qfrc_actuator from ctrl, act and the transmission."""
  d.qfrc_actuator[:] = 0.0
  d.act_dot[:] = 0.0
  if (m.opt_disableflags[0] & DSBL_ACTUATION) != 0:
    d.actuator_force[:] = 0.0
    return
  # the controls the forces see: ctrl, or with history buffers history_ctrl (past ctrl for delayed actuators, ctrl
  # for the others); one array for all, so that the loops below read one control per actuator either way
  ctrls = d.ctrl
  if m.nhistory > 0:
    history.delayed_ctrls(m, d)
    ctrls = d.history_ctrl

  # As MuJoCo: one bad control (after clamping) raises BADCTRL and every actuator runs on zero control this
  # evaluation (mju_isBad); d.ctrl itself is left as the user set it. The clamped controls are kept in
  # actuator_force until the force loop overwrites each with its force, so that each is clamped once.
  nu = m.nu
  actuator_force = d.actuator_force
  bad = -1
  for i in range(nu):
    c = _clamp_ctrl(m, i, ctrls[i])
    if not -MAXVAL <= c <= MAXVAL:
      bad = i
      break
    actuator_force[i] = c
  if bad >= 0:
    d.warning_number[WARN_BADCTRL] += 1
    d.warning_lastinfo[WARN_BADCTRL] = bad
    actuator_force[:nu] = 0.0
  dyntypes = m.actuator_dyntype
  if m.na > 0:
    act = d.act
    act_dot = d.act_dot
    for i in range(nu):
      dyntype = dyntypes[i]
      if dyntype != DynType.NONE:
        ctrl = actuator_force[i]
        k = m.actuator_actadr[i] + m.actuator_actnum[i] - 1
        if dyntype == DynType.INTEGRATOR:
          act_dot[k] = ctrl
        elif dyntype == DynType.FILTER or dyntype == DynType.FILTEREXACT:
          act_dot[k] = (ctrl - act[k]) / max(m.actuator_dynprm[i, 0], MINVAL)
        elif dyntype == DynType.MUSCLE:
          act_dot[k] = support.muscle_dynamics(ctrl, act[k], m.actuator_dynprm[i])

  actuator_length = d.actuator_length
  actuator_velocity = d.actuator_velocity
  qfrc_actuator = d.qfrc_actuator
  moment = d.actuator_moment
  disabled = m.opt_disableactuator[0]
  gainprm = m.actuator_gainprm
  biasprm = m.actuator_biasprm
  gaintypes = m.actuator_gaintype
  biastypes = m.actuator_biastype
  trntypes = m.actuator_trntype
  forcelimited = m.actuator_forcelimited
  forcerange = m.actuator_forcerange
  for i in range(nu):
    length = actuator_length[i]
    velocity = actuator_velocity[i]
    gaintype = gaintypes[i]
    biastype = biastypes[i]
    # the parameters are read in place: a row view per actuator costs more than the affine terms
    gain = gainprm[i, 0]
    if gaintype == GainType.AFFINE:
      gain += gainprm[i, 1] * length + gainprm[i, 2] * velocity
    elif gaintype == GainType.MUSCLE:
      gain = support.muscle_gain(length, velocity, m.actuator_lengthrange[i], m.actuator_acc0[i], gainprm[i])
    bias = 0.0
    if biastype == BiasType.AFFINE:
      bias = biasprm[i, 0] + biasprm[i, 1] * length + biasprm[i, 2] * velocity
    elif biastype == BiasType.MUSCLE:
      bias = support.muscle_bias(length, m.actuator_lengthrange[i], m.actuator_acc0[i], biasprm[i])
    ctrl = actuator_force[i]
    force = gain * _input(m, d, i, ctrl) + bias
    if disabled and group_disabled(m, i, disabled):
      # as MuJoCo: no force, but still through the tendon limits and the force range below
      force = 0.0
    if trntypes[i] == TrnType.TENDON and m.tendon_actfrclimited[m.actuator_trnid[i, 0]]:
      # scaled with the tendon's other actuators first (_tendon_actuator_limits)
      actuator_force[i] = force
      continue
    if forcelimited[i]:
      force = min(max(force, forcerange[i, 0]), forcerange[i, 1])
    actuator_force[i] = force
    if force == 0.0:
      continue  # as MuJoCo: a zero force adds nothing, even through a NaN or infinite moment
    first, end = support.moment_span(m, i)
    for k in range(first, end):
      # the moment's zeros add nothing (MuJoCo stores the moment sparse); skipping them saves the stores and
      # leaves qfrc_actuator bitwise the same for a finite force
      mk = moment[i, k]
      if mk != 0.0:
        qfrc_actuator[k] += mk * force
  for t in range(m.ntendon):
    if m.tendon_actfrclimited[t]:
      _tendon_actuator_limits(m, d, t)
  _joint_actuator_forces(m, d)


@njit(cache=True, error_model="numpy")
def group_disabled(m, i, disabled):
  """Whether actuator i's group is among the disabled ones (groups outside 0..30 never are)."""
  group = m.actuator_group[i]
  return 0 <= group <= 30 and (disabled >> group) & 1 != 0


@njit(cache=True, error_model="numpy")
def _tendon_actuator_limits(m, d, t):
  """Forces of the actuators on tendon t, whose total is limited (actuatorfrcrange): all scaled by one factor
  that brings their total into the range, as MuJoCo, then each clamped to its own forcerange and applied."""
  total = 0.0
  for i in range(m.nu):
    if m.actuator_trntype[i] == TrnType.TENDON and m.actuator_trnid[i, 0] == t:
      total += d.actuator_force[i]
  lo, hi = m.tendon_actfrcrange[t, 0], m.tendon_actfrcrange[t, 1]
  for i in range(m.nu):
    if m.actuator_trntype[i] != TrnType.TENDON or m.actuator_trnid[i, 0] != t:
      continue
    force = d.actuator_force[i]
    if total != 0.0:
      if total < lo:
        force *= lo / total
      elif total > hi:
        force *= hi / total
    if m.actuator_forcelimited[i]:
      force = min(max(force, m.actuator_forcerange[i, 0]), m.actuator_forcerange[i, 1])
    d.actuator_force[i] = force
    if force == 0.0:
      continue
    for k in range(m.nv):
      d.qfrc_actuator[k] += d.actuator_moment[i, k] * force


@njit(cache=True, error_model="numpy")
def _joint_actuator_forces(m, d):
  """Gravity compensation routed through the actuators (actuatorgravcomp), then each joint's actuatorfrcrange."""
  if (m.opt_disableflags[0] & DSBL_GRAVITY) == 0:
    for i in range(m.nv):
      if m.jnt_actgravcomp[m.dof_jntid[i]]:
        d.qfrc_actuator[i] += d.qfrc_gravcomp[i]
  for j in range(m.njnt):
    # as MuJoCo, the joint's first dof (only hinges and slides can be limited)
    if m.jnt_actfrclimited[j]:
      k = m.jnt_dofadr[j]
      d.qfrc_actuator[k] = min(max(d.qfrc_actuator[k], m.jnt_actfrcrange[j, 0]), m.jnt_actfrcrange[j, 1])


@njit(cache=True, error_model="numpy")
def force_vel_derivative(m, d, qDeriv):
  """qDeriv (nv, nv) += d(qfrc_actuator)/d(qvel) through affine gains and biases and muscle gains."""
  disabled = m.opt_disableactuator[0]
  for i in range(m.nu):
    if disabled and group_disabled(m, i, disabled):
      continue
    # a force held at its limit does not respond to velocity
    if m.actuator_forcelimited[i] and not (
        m.actuator_forcerange[i, 0] < d.actuator_force[i] < m.actuator_forcerange[i, 1]):
      continue
    dfdv = 0.0
    if m.actuator_gaintype[i] == GainType.AFFINE:
      dfdv += m.actuator_gainprm[i, 2] * _input(m, d, i, _ctrl(m, d, i))
    if m.actuator_biastype[i] == BiasType.AFFINE:
      dfdv += m.actuator_biasprm[i, 2]
    if m.actuator_gaintype[i] == GainType.MUSCLE:
      dfdv += support.muscle_gain_vel(d.actuator_length[i], d.actuator_velocity[i], m.actuator_lengthrange[i],
                                      m.actuator_acc0[i], m.actuator_gainprm[i]) * _input(m, d, i, _ctrl(m, d, i))
    if dfdv == 0.0:
      continue
    for r in range(m.nv):
      mr = d.actuator_moment[i, r]
      if mr != 0.0:
        for c in range(m.nv):
          qDeriv[r, c] += mr * dfdv * d.actuator_moment[i, c]
