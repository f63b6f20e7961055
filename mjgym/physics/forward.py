"""Forward dynamics and integration: the pipeline stages in MuJoCo's order, then the integrators.

Reads like MuJoCo's engine_forward.c: ``fwd_position`` -> ``fwd_velocity`` -> ``fwd_actuation`` ->
``fwd_acceleration`` -> ``fwd_constraint``; ``step`` is MuJoCo's ``step1`` (state checks, position and velocity
stages) then ``step2``'s work (acceleration stage, qacc check) and advances the state with the selected integrator
(semi-implicit Euler, RK4, implicit, implicitfast).

How this file is compiled matters as much as what it computes (physics/_jit/link.py). numba finishes every jitted
function as a program of its own, with the code of everything it calls linked in and optimized again; a pipeline
built that way generated the whole engine once per layer and per entry point. So the stages (kinematics, crb,
collision, constraint, solver, sensors, ...) are *separate* kernels: each compiles once, and its callers call it by
address. The orchestration here (``fwd_position``, ``_forward``, ``step1``, ...) holds nothing but those
calls: it is linked into its callers as usual (one cache file fewer to load per layer at every start). The entry
points, one per front door and collider tier (``run`` / ``run_ccd`` for one world, ``batch.run_batch`` /
``run_batch_ccd`` for many, each taking an operation code), are small. Kernels that only some models need
(implicit integration, RK4, the PGS / primal / noslip solvers, tendons, equality constraints, energy,
acceleration sensors, rangefinders) are *lazy*: compiled when ``prepare`` finds a model that uses them, which
``entry`` does before every call.

The ``narrow`` argument threaded through the orchestration is the narrow-phase dispatcher of a collider tier
(collision.driver): ``run`` links only the closed-form colliders, ``run_ccd`` adds GJK/EPA, multiccd and height
fields. A model picks its tier once (``entry(m)``), so a model of spheres, capsules, boxes and planes never waits
for the convex colliders to compile.
"""

import math as pymath

import numpy as np
from numba import njit

from mjgym.physics import _jit
from mjgym.physics import _parallel
from mjgym.physics import _structs
from mjgym.physics import actuation
from mjgym.physics.collision import driver
from mjgym.physics import constraint
from mjgym.physics import energy
from mjgym.physics import flex
from mjgym.physics import history
from mjgym.physics import linalg
from mjgym.physics import math
from mjgym.physics import passive
from mjgym.physics import sensor
from mjgym.physics import smooth
from mjgym.physics import solver
from mjgym.physics import support
from mjgym.physics.constants import DSBL_ACTUATION
from mjgym.physics.constants import DSBL_AUTORESET
from mjgym.physics.constants import DSBL_DAMPER
from mjgym.physics.constants import DSBL_EULERDAMP
from mjgym.physics.constants import ENBL_ENERGY
from mjgym.physics.constants import INT_IMPLICIT
from mjgym.physics.constants import INT_IMPLICITFAST
from mjgym.physics.constants import INT_RK4
from mjgym.physics.constants import JNT_BALL
from mjgym.physics.constants import JNT_FREE
from mjgym.physics.constants import WARN_BADQACC
from mjgym.physics.constants import WARN_BADQPOS
from mjgym.physics.constants import WARN_BADQVEL
from mjgym.physics.types import FatalError
from mjgym.physics.types import MAXVAL
from mjgym.physics.types import SensorType
from mjgym.physics.types import SolverType
from mjgym.physics.types import Stage

# Butcher tableau of the classic 4th-order Runge-Kutta method.
_RK4_A = np.array([[0.5, 0.0, 0.0], [0.0, 0.5, 0.0], [0.0, 0.0, 1.0]])
_RK4_B = np.array([1.0 / 6.0, 1.0 / 3.0, 1.0 / 3.0, 1.0 / 6.0])
_RK4_C = np.array([0.5, 0.5, 1.0])


@njit(cache=True, error_model="numpy", inline="always")
def _disabled(m, flag):
  return (m.opt_disableflags[0] & flag) != 0


# ---------------------------------------------------------------- reset ----


@_jit.separate
@njit(cache=True, error_model="numpy")
def reset_data(m, d):
  """Resets Data like mj_resetData: everything zero (warning statistics too), qpos = qpos0, mocap bodies at their
  model pose."""
  _structs.zero_data(d)
  d.warning_number[:] = 0
  d.warning_lastinfo[:] = 0
  d.qpos[:] = m.qpos0
  d.eq_active[:] = m.eq_active0
  _reset_mocap(m, d)
  if m.nhistory > 0:
    history.reset(m, d)


@njit(cache=True, error_model="numpy")
def _reset_mocap(m, d):
  for i in range(m.nbody):
    mid = m.body_mocapid[i]
    if mid >= 0:
      d.mocap_pos[mid] = m.body_pos[i]
      d.mocap_quat[mid] = m.body_quat[i]


@njit(cache=True, error_model="numpy")
def reset_data_keyframe(m, d, key):
  """Resets Data to keyframe ``key`` like mj_resetDataKeyframe."""
  reset_data(m, d)
  d.time[0] = m.key_time[key]
  d.qpos[:] = m.key_qpos[key]
  d.qvel[:] = m.key_qvel[key]
  d.act[:] = m.key_act[key]
  d.ctrl[:] = m.key_ctrl[key]
  d.mocap_pos[:] = m.key_mpos[key]
  d.mocap_quat[:] = m.key_mquat[key]


# ----------------------------------------------------------- divergence ----


@njit(cache=True, error_model="numpy")
def _is_bad(x):
  return not (abs(x) <= MAXVAL)  # also true for NaN


@njit(cache=True, error_model="numpy", inline="always")
def _warn_and_reset(m, d, warning, index):
  """Raises a warning; unless autoreset is disabled the world is reset first, by mj_resetData.

  As in MuJoCo 4, the reset clears the warning statistics too: after an autoreset the warning that caused it has
  count 1 and every other count is 0 (the env layer consumes divergence counts each step, so it sees every
  reset). Without autoreset the count goes up by one.
  """
  if not _disabled(m, DSBL_AUTORESET):
    reset_data(m, d)
  d.warning_number[warning] += 1
  d.warning_lastinfo[warning] = index


@njit(cache=True, error_model="numpy", inline="always")
def _check(m, d, values, warning):
  for i in range(values.shape[0]):
    if _is_bad(values[i]):
      _warn_and_reset(m, d, warning, i)
      return True
  return False


# --------------------------------------------------------------- stages ----


@njit(cache=True, error_model="numpy")
def fwd_position(m, d, narrow):
  """Position-dependent computations."""
  smooth.kinematics(m, d)
  smooth.com_pos(m, d)
  smooth.camlight(m, d)
  if m.nflex > 0:
    flex.flex_position(m, d)
  if m.ntendon > 0:
    smooth.tendon(m, d)
  smooth.crb(m, d)
  if m.ntendon > 0:
    smooth.tendon_armature(m, d)
  smooth.factor_m(m, d)
  driver.collision(m, d, narrow)
  constraint.make_constraint(m, d)
  smooth.transmission(m, d)


@njit(cache=True, error_model="numpy")
def fwd_velocity(m, d):
  """Velocity-dependent computations."""
  _velocity_to_passive(m, d)
  smooth.rne(m, d)
  if m.ntendon > 0:
    smooth.tendon_bias(m, d)


@njit(cache=True, error_model="numpy")
def _velocity_to_passive(m, d):
  """The velocity stage up to the passive forces (where MuJoCo calls mjcb_passive)."""
  actuation.fwd_velocity_quantities(m, d)
  smooth.com_vel(m, d)
  if m.nflex > 0:
    flex.flex_velocity(m, d)
  passive.passive(m, d)


@njit(cache=True, error_model="numpy")
def fwd_acceleration(m, d):
  """Sums the smooth forces and solves for the unconstrained acceleration qacc_smooth."""
  qfrc_smooth = d.qfrc_smooth
  qfrc_passive = d.qfrc_passive
  qfrc_bias = d.qfrc_bias
  qfrc_applied = d.qfrc_applied
  qfrc_actuator = d.qfrc_actuator
  for i in range(m.nv):
    qfrc_smooth[i] = qfrc_passive[i] - qfrc_bias[i] + qfrc_applied[i] + qfrc_actuator[i]
  support.xfrc_accumulate(m, d, d.qfrc_smooth)
  smooth.solve_m(m, d, d.qacc_smooth, d.qfrc_smooth)


@njit(cache=True, error_model="numpy")
def fwd_constraint(m, d):
  """Constraint forces: reference accelerations of the efc rows, then the solver -> qacc, qfrc_constraint."""
  constraint.constraint_velocity(m, d)
  solver.solve(m, d)


# mj_forwardSkip in three pieces, so that the Python callbacks (api.set_mjcb_passive / set_mjcb_control) can run
# between them; the compiled pipeline runs them back to back (_forward). Energy is computed even in RK4's inner
# evaluations (sensors=False), as MuJoCo does.


@njit(cache=True, error_model="numpy")
def _forward_position(m, d, sensors, narrow):
  """The position stage, its sensors and the potential energy."""
  fwd_position(m, d, narrow)
  if not m.opt_enableflags[0] & ENBL_ENERGY:
    # before the sensors: the energy sensors leave their values in it, as MuJoCo's do
    d.energy[0] = 0.0
    d.energy[1] = 0.0
  if sensors:
    sensor.sensor_pos(m, d)
  if m.opt_enableflags[0] & ENBL_ENERGY:
    energy.energy_pos(m, d)


@njit(cache=True, error_model="numpy")
def _forward_velocity_end(m, d, sensors):
  """The velocity stage after the passive forces, its sensors and the kinetic energy."""
  smooth.rne(m, d)
  if m.ntendon > 0:
    smooth.tendon_bias(m, d)
  if sensors:
    sensor.sensor_vel(m, d)
  if m.opt_enableflags[0] & ENBL_ENERGY:
    energy.energy_vel(m, d)


@njit(cache=True, error_model="numpy")
def _forward_acceleration(m, d, sensors):
  """Actuation, the smooth and constrained accelerations and the acceleration sensors (after mjcb_control)."""
  actuation.fwd_actuation(m, d)
  fwd_acceleration(m, d)
  fwd_constraint(m, d)
  if sensors:
    sensor.sensor_acc(m, d)


@njit(cache=True, error_model="numpy")
def _forward(m, d, sensors, narrow):
  _forward_position(m, d, sensors, narrow)
  _velocity_to_passive(m, d)
  _forward_velocity_end(m, d, sensors)
  _forward_acceleration(m, d, sensors)


@njit(cache=True, error_model="numpy")
def forward(m, d, narrow):
  """Forward dynamics: every quantity of the current state, ending with qacc and the sensors."""
  _forward(m, d, True, narrow)


# ---------------------------------------------------------- integrators ----


@njit(cache=True, error_model="numpy")
def integrate_pos(m, qpos, qvel, h):
  """qpos <- qpos integrated over time h at velocity qvel (quaternions rotate in the local frame)."""
  jnt_qposadr = m.jnt_qposadr
  jnt_dofadr = m.jnt_dofadr
  jnt_type = m.jnt_type
  for j in range(m.njnt):
    qadr = jnt_qposadr[j]
    dadr = jnt_dofadr[j]
    jtype = jnt_type[j]
    if jtype == JNT_FREE:
      for k in range(3):
        qpos[qadr + k] += h * qvel[dadr + k]
      math.quat_integrate(qpos[qadr + 3:qadr + 7], qvel[dadr + 3:dadr + 6], h)
    elif jtype == JNT_BALL:
      math.quat_integrate(qpos[qadr:qadr + 4], qvel[dadr:dadr + 3], h)
    else:
      qpos[qadr] += h * qvel[dadr]


@njit(cache=True, error_model="numpy")
def _advance(m, d, act_dot, qacc, qvel):
  """Inserts the step's controls and sensor values into the history buffers, then advances activations, velocity,
  position (semi-implicitly with ``qvel``) and time by one step."""
  if m.nhistory > 0:
    history.advance(m, d)
  h = m.opt_timestep[0]
  if m.na > 0:
    act = d.act
    disabled = m.opt_disableactuator[0]
    for i in range(m.nu):
      adr = m.actuator_actadr[i]
      # as MuJoCo, the activation of an actuator whose group is disabled holds still
      frozen = disabled != 0 and actuation.group_disabled(m, i, disabled)
      for k in range(adr, adr + m.actuator_actnum[i]):
        act[k] = actuation.next_activation(m, d, i, act[k], 0.0 if frozen else act_dot[k])
  dqvel = d.qvel
  for i in range(m.nv):
    dqvel[i] += h * qacc[i]
  integrate_pos(m, d.qpos, qvel, h)
  d.time[0] += h
  math.store(d.qacc_warmstart, d.qacc)


@_jit.separate
@njit(cache=True, error_model="numpy")
def euler(m, d):
  """Semi-implicit Euler; joint damping is integrated implicitly, as in MuJoCo, unless eulerdamp is off."""
  damped = False
  if not _disabled(m, DSBL_EULERDAMP) and not _disabled(m, DSBL_DAMPER):
    for i in range(m.nv):
      if support.dof_damping(m, i) > 0:
        damped = True
  if not damped:
    _advance(m, d, d.act_dot, d.qacc, d.qvel)
    return
  # (M + h B) qacc = qfrc_smooth + qfrc_constraint, B = diag(dof_damping)
  h = m.opt_timestep[0]
  qfrc = d.integ_qfrc
  qacc = d.integ_qacc
  d.qH[:] = d.qM
  for i in range(m.nv):
    d.qH[m.dof_Madr[i]] += h * support.dof_damping(m, i)
    qfrc[i] = d.qfrc_smooth[i] + d.qfrc_constraint[i]
  nsmall, last = smooth.factor_sparse(m, d.qH, d.qH, d.qHDiagInv)
  smooth.warn_inertia(d, nsmall, last)
  smooth.solve_sparse(m, d.qH, d.qHDiagInv, qacc, qfrc)
  _advance(m, d, d.act_dot, qacc, d.qvel)


@_jit.lazy
@njit(cache=True, error_model="numpy")
def rungekutta4(m, d, narrow):
  """Classic 4th-order Runge-Kutta over (qpos, qvel, act), as MuJoCo's mj_RungeKutta(N=4)."""
  nv, na = m.nv, m.na
  nx = 2 * nv + na
  h = m.opt_timestep[0]
  time0 = d.time[0]
  qpos, qvel, act = d.qpos, d.qvel, d.act
  rk_qpos, rk_qvel, rk_act = d.rk_qpos, d.rk_qvel, d.rk_act
  math.store(rk_qpos, qpos)
  math.store(rk_qvel, qvel)
  math.store(rk_act, act)
  F = d.rk_F
  dX = d.rk_dX
  _store_derivative(d, F[0], nv, na)
  for i in range(1, 4):
    for k in range(nx):
      dX[k] = 0.0
    for j in range(i):
      a = _RK4_A[i - 1, j]
      if a != 0.0:
        for k in range(nx):
          dX[k] += a * F[j, k]
    math.store(qpos, rk_qpos)
    integrate_pos(m, qpos, dX[:nv], h)
    for k in range(nv):
      qvel[k] = rk_qvel[k] + h * dX[nv + k]
    for k in range(na):
      act[k] = rk_act[k] + h * dX[2 * nv + k]
    d.time[0] = time0 + _RK4_C[i - 1] * h
    _forward(m, d, False, narrow)
    _store_derivative(d, F[i], nv, na)
    _rotation_stage_velocity(m, F[i], dX, h)
  for k in range(nx):
    dX[k] = 0.0
  for j in range(4):
    for k in range(nx):
      dX[k] += _RK4_B[j] * F[j, k]
  d.time[0] = time0
  math.store(qpos, rk_qpos)
  math.store(qvel, rk_qvel)
  math.store(act, rk_act)
  _advance(m, d, dX[2 * nv:], dX[nv:2 * nv], dX[:nv])
  # MuJoCo 4 leaves the acceleration the step integrated (the stages' weighted mean) in qacc; the warm start
  # (saved by _advance) stays the last stage's
  d.qacc[:] = dX[nv:2 * nv]


@njit(cache=True, error_model="numpy")
def _rotation_stage_velocity(m, f, dX, h):
  """Maps the body-frame angular velocity of each ball/free joint at a stage into the tangent space of the
  step's initial orientation, so that the quaternions are integrated to 4th order, as MuJoCo does.

  The stage orientation is q0 * exp(theta), theta = h * dX (rotation part), and its body angular velocity
  w relates to d(theta)/dt by the inverse differential of the exponential map on SO(3):
  d(theta)/dt = w + theta x w / 2 + (1/t² - (1 + cos t) / (2 t sin t)) theta x (theta x w), t = |theta|.
  Summing the stage velocities without this map is only 3rd order for rotations.
  """
  for j in range(m.njnt):
    jtype = m.jnt_type[j]
    if jtype == JNT_BALL:
      adr = m.jnt_dofadr[j]
    elif jtype == JNT_FREE:
      adr = m.jnt_dofadr[j] + 3
    else:
      continue
    theta = (h * dX[adr], h * dX[adr + 1], h * dX[adr + 2])
    t = pymath.sqrt(theta[0] * theta[0] + theta[1] * theta[1] + theta[2] * theta[2])
    if t < 1e-6:
      coef = 1.0 / 12.0  # the limit; the closed form below loses all digits here
    else:
      coef = 1.0 / (t * t) - (1.0 + pymath.cos(t)) / (2.0 * t * pymath.sin(t))
    w = (f[adr], f[adr + 1], f[adr + 2])
    c1 = math.cross(theta, w)
    c2 = math.cross(theta, c1)
    for k in range(3):
      f[adr + k] = w[k] + 0.5 * c1[k] + coef * c2[k]


@njit(cache=True, error_model="numpy")
def _store_derivative(d, f, nv, na):
  qvel, qacc, act_dot = d.qvel, d.qacc, d.act_dot
  for k in range(nv):
    f[k] = qvel[k]
    f[nv + k] = qacc[k]
  for k in range(na):
    f[2 * nv + k] = act_dot[k]


@njit(cache=True, error_model="numpy")
def _smooth_vel_derivative(m, d, full):
  """qDeriv = d(qfrc_smooth)/d(qvel), dense (nv, nv): dampers, actuator velocity terms and the velocity
  derivative of the bias force: all of it for the full implicit integrator; for implicitfast only the
  gyroscopic block of free-floating single bodies (free joint, no children), as MuJoCo 4 does."""
  nv = m.nv
  qDeriv = d.qDeriv
  qDeriv[:, :] = 0.0
  if not _disabled(m, DSBL_DAMPER):
    for i in range(nv):
      qDeriv[i, i] -= support.dof_damping(m, i)
    for t in range(m.ntendon):
      b = support.tendon_damping(m, t)
      if b > 0:
        for i in range(nv):
          ji = d.ten_J[t, i]
          if ji != 0.0:
            for j in range(nv):
              qDeriv[i, j] -= b * ji * d.ten_J[t, j]
    passive.fluid_vel_derivative(m, d, qDeriv)
  if not _disabled(m, DSBL_ACTUATION):
    actuation.force_vel_derivative(m, d, qDeriv)
  # MuJoCo keeps qDeriv on the pairs of dofs of one kinematic tree: couplings across trees (a damped
  # tendon spanning two trees) are left explicit.
  for i in range(nv):
    for j in range(nv):
      if m.dof_treeid[i] != m.dof_treeid[j]:
        qDeriv[i, j] = 0.0
  if full:
    _bias_vel_derivative(m, d, qDeriv, 0, nv, False)
    return
  for j in range(m.njnt):
    if m.jnt_type[j] == JNT_FREE and _is_leaf(m, m.jnt_bodyid[j]):
      adr = m.jnt_dofadr[j]
      _bias_vel_derivative(m, d, qDeriv, adr, adr + 6, True)


@njit(cache=True, error_model="numpy")
def _is_leaf(m, body):
  for i in range(body + 1, m.nbody):
    if m.body_parentid[i] == body:
      return False
  return True


@njit(cache=True, error_model="numpy")
def _bias_vel_derivative(m, d, qDeriv, lo, hi, block_only):
  """qDeriv[:, lo:hi] -= d(qfrc_bias)/d(qvel[lo:hi]) (only rows lo:hi if ``block_only``).

  The velocity part of the bias force is a quadratic form Q(v) at fixed positions, so its directional
  derivative along e is exactly (Q(v + s e) - Q(v - s e)) / (2 s) for any s: no truncation error, unlike
  a finite difference. Gravity cancels in the difference.
  """
  nv = m.nv
  vel = d.deriv_qvel
  plus = d.deriv_bias_plus
  minus = d.deriv_bias_minus
  scale = 1.0
  for i in range(nv):
    scale = max(scale, abs(d.qvel[i]))
  r0, r1 = (lo, hi) if block_only else (0, nv)
  for k in range(lo, hi):
    vel[:] = d.qvel
    vel[k] += scale
    smooth.bias_force(m, d, vel, d.deriv_cvel, d.deriv_cdof_dot, d.deriv_cacc, d.deriv_cfrc, plus)
    vel[k] = d.qvel[k] - scale
    smooth.bias_force(m, d, vel, d.deriv_cvel, d.deriv_cdof_dot, d.deriv_cacc, d.deriv_cfrc, minus)
    for i in range(r0, r1):
      qDeriv[i, k] -= (plus[i] - minus[i]) / (2.0 * scale)


@_jit.lazy
@njit(cache=True, error_model="numpy")
def implicit(m, d):
  """Implicit-in-velocity integrators: (M - h qDeriv) qacc = qfrc_smooth + qfrc_constraint.

  implicit uses the full velocity derivative (Coriolis terms included); implicitfast drops the bias
  term except the gyroscopic block of free-floating single bodies. Either matrix may be asymmetric,
  so it is factored by LU.
  """
  nv = m.nv
  h = m.opt_timestep[0]
  _smooth_vel_derivative(m, d, m.opt_integrator[0] == INT_IMPLICIT)
  qacc = d.integ_qacc
  for i in range(nv):
    qacc[i] = d.qfrc_smooth[i] + d.qfrc_constraint[i]
  smooth.full_m(m, d.qM, d.qLU)
  for i in range(nv):
    for j in range(nv):
      d.qLU[i, j] -= h * d.qDeriv[i, j]
  linalg.lu_solve(d.qLU, d.qLU_piv, qacc)
  _advance(m, d, d.act_dot, qacc, d.qvel)


@njit(cache=True, error_model="numpy")
def step(m, d, nstep, narrow):
  """mj_step, ``nstep`` times: ``step1`` then ``finish_step`` (mj_step2 with the model's own integrator)."""
  for _ in range(nstep):
    step1(m, d, narrow)
    finish_step(m, d, narrow)


@njit(cache=True, error_model="numpy")
def step1(m, d, narrow):
  """MuJoCo's mj_step1: the qpos / qvel checks, then the position and velocity stages with their sensors and
  energy. Controls set after it act in the step that ``step2`` / ``finish_step`` completes."""
  _check(m, d, d.qpos, WARN_BADQPOS)
  _check(m, d, d.qvel, WARN_BADQVEL)
  _forward_position(m, d, True, narrow)
  _velocity_to_passive(m, d)
  _forward_velocity_end(m, d, True)
  d.step1_valid[0] = 1


@njit(cache=True, error_model="numpy")
def step2(m, d, narrow):
  """MuJoCo's mj_step2 after ``step1``: the acceleration stage and the qacc check, then implicit or implicitfast
  as set, otherwise Euler (for RK4 too, as MuJoCo: RK4 re-evaluates the whole pipeline, which a split step
  cannot)."""
  _acceleration_checked(m, d, narrow)
  _integrate_split(m, d)


@njit(cache=True, error_model="numpy")
def _integrate_split(m, d):
  """mj_step2's integrator: implicit or implicitfast as set, otherwise Euler (RK4 too)."""
  integrator = m.opt_integrator[0]
  if integrator == INT_IMPLICIT or integrator == INT_IMPLICITFAST:
    implicit(m, d)
  else:
    euler(m, d)
  d.step1_valid[0] = 0


@njit(cache=True, error_model="numpy")
def finish_step(m, d, narrow):
  """The rest of a step after ``step1``: ``step2`` with the model's own integrator, RK4 included."""
  _acceleration_checked(m, d, narrow)
  integrate(m, d, narrow)


@njit(cache=True, error_model="numpy")
def _acceleration_checked(m, d, narrow):
  """The acceleration stage (actuation, accelerations, constraint forces, acceleration sensors), then the qacc
  check: a bad qacc resets the world, which is then forwarded once more and not checked again (mj_checkAcc);
  without autoreset the bad qacc stays."""
  _forward_acceleration(m, d, True)
  if _check(m, d, d.qacc, WARN_BADQACC) and not _disabled(m, DSBL_AUTORESET):
    forward(m, d, narrow)


@njit(cache=True, error_model="numpy")
def integrate(m, d, narrow):
  """The model's integrator over one time step, from the forward dynamics of the current state; the state moves,
  so no step1 describes it any more."""
  integrator = m.opt_integrator[0]
  if integrator == INT_RK4:
    rungekutta4(m, d, narrow)
  elif integrator == INT_IMPLICIT or integrator == INT_IMPLICITFAST:
    implicit(m, d)
  else:
    euler(m, d)
  d.step1_valid[0] = 0


@njit(cache=True, error_model="numpy")
def env_steps(m, d, nstep, narrow):
  """``nstep`` mj_steps of an environment step, the first starting from the ``step1`` that the previous
  environment operation left (``step1_valid``): each state of the previous step's end passes the position and
  velocity stages once. Where no step1 is valid (after mj_step, a reset, a state set from Python, ...) the first
  step runs its own."""
  for k in range(nstep):
    if k > 0 or d.step1_valid[0] == 0:
      step1(m, d, narrow)
    finish_step(m, d, narrow)


# ----------------------------------------------------------- entry points ----

# Operations of the entry points: what ``run`` (and batch.run_batch for each selected world) does.
OP_STEP = 0          # mj_step, nstep times
OP_STEP_OBSERVE = 1  # an environment step: env_steps, then step1, the acceleration stage and
                     # mj_rnePostConstraint at the new state, so that sensordata, qacc, cacc and cfrc_ext describe
                     # the state the agent observes; the next env_steps starts from this step1
OP_FORWARD = 2       # mj_forward
OP_RESET = 3         # mj_resetData
OP_OBSERVE = 4       # step1, the acceleration stage and mj_rnePostConstraint: what an environment reset or
                     # set_state ends with (mj_forward with the state checks); the next OP_STEP_OBSERVE starts
                     # from its step1
OP_STEP1 = 5         # mj_step1
OP_STEP2 = 6         # mj_step2
OP_POSITION = 7      # the position stage alone (the model's constants at qpos0)
OP_INERTIA = 8       # kinematics, tendons and the factored mass matrix (the model's invweight0 at qpos0)
OP_STEP_RNE = 9      # nstep steps, then mj_rnePostConstraint: Gymnasium MujocoEnv's do_simulation (derived
                     # fields stay those of the last step's pre-integration state, as MuJoCo leaves them)
OP_ACCELERATION = 10  # the acceleration stage and qacc check of a step after OP_STEP1 (user sensors after it)
OP_INTEGRATE = 11    # the model's integrator (after OP_ACCELERATION)
OP_ENV_STEP_RNE = 12  # OP_STEP_RNE as env_steps: the first step reuses the step1 of the OP_OBSERVE before it


@njit(cache=True, error_model="numpy", inline="always")
def apply(m, d, op, nstep, narrow):
  """Runs operation ``op`` on one world; ``narrow`` is the collider tier's narrow-phase dispatcher.

  Written so that each stage sequence appears once: inlining copies it per call site, and numba's inliner costs
  compile time per copy.
  """
  if op == OP_RESET:
    reset_data(m, d)
  elif op == OP_POSITION:
    fwd_position(m, d, narrow)
  elif op == OP_INERTIA:
    smooth.kinematics(m, d)
    smooth.com_pos(m, d)
    if m.ntendon > 0:
      smooth.tendon(m, d)
    smooth.crb(m, d)
    if m.ntendon > 0:
      smooth.tendon_armature(m, d)
    smooth.factor_m(m, d)
  elif op == OP_STEP1:
    step1(m, d, narrow)
  elif op == OP_STEP2:
    step2(m, d, narrow)
  elif op == OP_ACCELERATION:
    _acceleration_checked(m, d, narrow)
  elif op == OP_INTEGRATE:
    integrate(m, d, narrow)
  elif op == OP_STEP_OBSERVE or op == OP_OBSERVE:
    if op == OP_STEP_OBSERVE:
      env_steps(m, d, nstep, narrow)
    step1(m, d, narrow)  # after OP_OBSERVE's state was set from outside, always
    _forward_acceleration(m, d, True)
    smooth.rne_postconstraint(m, d)
  else:
    if op == OP_STEP or op == OP_STEP_RNE:
      step(m, d, nstep, narrow)
    elif op == OP_ENV_STEP_RNE:
      env_steps(m, d, nstep, narrow)
    else:
      forward(m, d, narrow)
    if op == OP_STEP_RNE or op == OP_ENV_STEP_RNE:
      smooth.rne_postconstraint(m, d)


@_jit.separate
@njit(cache=True, error_model="numpy")
def run(m, d, op, nstep):
  """Operation ``op`` on one world, with the closed-form colliders (spheres, capsules, boxes, planes, ...)."""
  apply(m, d, op, nstep, driver.narrow_closed_form)


@_jit.separate
@njit(cache=True, error_model="numpy")
def run_ccd(m, d, op, nstep):
  """Operation ``op`` on one world, with every collider (GJK/EPA, multiccd, meshes, height fields too)."""
  apply(m, d, op, nstep, driver.narrow_all)


# Parts of a step for the Python callbacks: api.mj_step runs them in this order with the callbacks between, then
# OP_STEP2. Separate entry points, compiled at their first use: the callback-free pipeline above is untouched.
PART_CHECK_STATE = 0   # the qpos/qvel checks that open a step
PART_POSITION = 1      # position stage, its sensors, potential energy, velocity stage up to the passive forces
PART_VELOCITY_END = 2  # the rest of the velocity stage, its sensors, kinetic energy
PART_ACCELERATION = 3  # actuation, accelerations, constraint solve, acceleration sensors
PART_CHECK_ACC = 4     # the qacc check; returns 1 if it failed (the world was reset: forward again)
PART_INTEGRATE = 5     # mj_step2's integrator: implicit / implicitfast, else Euler (RK4 too, as MuJoCo)


@njit(cache=True, error_model="numpy", inline="always")
def _apply_part(m, d, part, narrow):
  if part == PART_CHECK_STATE:
    _check(m, d, d.qpos, WARN_BADQPOS)
    _check(m, d, d.qvel, WARN_BADQVEL)
  elif part == PART_POSITION:
    _forward_position(m, d, True, narrow)
    _velocity_to_passive(m, d)
  elif part == PART_VELOCITY_END:
    _forward_velocity_end(m, d, True)
  elif part == PART_ACCELERATION:
    _forward_acceleration(m, d, True)
  elif part == PART_CHECK_ACC:
    if _check(m, d, d.qacc, WARN_BADQACC):
      return 1
  elif part == PART_INTEGRATE:
    _integrate_split(m, d)
  return 0


@njit(cache=True, error_model="numpy")
def run_part(m, d, part):
  """One PART_* of a step, with the closed-form colliders."""
  return _apply_part(m, d, part, driver.narrow_closed_form)


@njit(cache=True, error_model="numpy")
def run_part_ccd(m, d, part):
  """One PART_* of a step, with every collider."""
  return _apply_part(m, d, part, driver.narrow_all)


def part_entry(model):
  """``run_part_ccd`` or ``run_part``, as ``entry``."""
  prepare(model)
  return run_part_ccd if model.needs_ccd else run_part


def entry(model):
  """The entry point for ``model`` (an MjModel): ``run_ccd`` if a geom pair it can collide needs the convex
  colliders, else ``run``. The lazy kernels the model needs are prepared first."""
  prepare(model)
  return run_ccd if model.needs_ccd else run


# ---------------------------------------------------------- lazy kernels ----

# The lazy kernels of the pipeline (physics/_jit/link.py) and when a model needs one: exactly the conditions under
# which the pipeline calls it (a call through an unprepared kernel raises instead). Options are read each time,
# since a user may change them between steps; the rest of a model's structure is fixed once compiled.
_GEOM_DISTANCE_SENSORS = (SensorType.GEOMDIST, SensorType.GEOMNORMAL, SensorType.GEOMFROMTO)
_LAZY = (
    (implicit, (), lambda f, o: o[0] == INT_IMPLICIT or o[0] == INT_IMPLICITFAST),
    (rungekutta4, ("narrow",), lambda f, o: o[0] == INT_RK4),
    (solver._solve_pgs, (), lambda f, o: o[1] == SolverType.PGS),  # pylint: disable=protected-access
    (solver._solve_primal, (), lambda f, o: o[1] != SolverType.PGS),  # pylint: disable=protected-access
    (solver._solve_noslip, (), lambda f, o: o[2] > 0),  # pylint: disable=protected-access
    (energy.energy_pos, (), lambda f, o: o[3] & ENBL_ENERGY or (f["sensor_type"] == SensorType.E_POTENTIAL).any()),
    (energy.energy_vel, (), lambda f, o: o[3] & ENBL_ENERGY or (f["sensor_type"] == SensorType.E_KINETIC).any()),
    (smooth.tendon, (), lambda f, o: f["ntendon"] > 0),
    (constraint._equality, (), lambda f, o: f["neq"] > 0),  # pylint: disable=protected-access
    (constraint._equality_velocity, (), lambda f, o: f["neq"] > 0),  # pylint: disable=protected-access
    (sensor._sensor_acc, (),  # pylint: disable=protected-access
     lambda f, o: (f["sensor_needstage"] == Stage.ACC).any()),
    (sensor._rangefinder_sensor, ("int",),  # pylint: disable=protected-access
     lambda f, o: (f["sensor_type"] == SensorType.RANGEFINDER).any()),
    (sensor._geom_distance_sensor, ("int",),  # pylint: disable=protected-access
     lambda f, o: np.isin(f["sensor_type"], _GEOM_DISTANCE_SENSORS).any()),
    (sensor._contact_sensor, ("int",),  # pylint: disable=protected-access
     lambda f, o: (f["sensor_type"] == SensorType.CONTACT).any()),
    (history.delayed_ctrls, (), lambda f, o: f["nhistory"] > 0),
    (history.sensors, ("int",), lambda f, o: f["nhistory"] > 0),
    (history.advance, (), lambda f, o: f["nhistory"] > 0),
)


def _options(fields):
  return (int(fields["opt_integrator"][0]), int(fields["opt_solver"][0]), int(fields["opt_noslip_iterations"][0]),
          int(fields["opt_enableflags"][0]))


_SOLVERS = frozenset(int(t) for t in SolverType)


def prepare(model):
  """Compiles (or loads from the cache) the lazy kernels ``model`` needs with its current options and fills
  their cells, once per process and set of options: about a microsecond when nothing changed."""
  fields = model._fields  # pylint: disable=protected-access
  key = (_options(fields), model.needs_ccd)
  if getattr(model, "_lazy_ready", None) == key:
    return
  if key[0][1] not in _SOLVERS:
    # MuJoCo raises this at the first constraint solve; compiled code has no way to raise it, so it is raised
    # here, before any stage runs, whenever the option changes
    raise FatalError(f"mj_fwdConstraint: unknown solver type {key[0][1]}")
  pending = [(kernel, argtypes) for (kernel, _, needed), (_, argtypes) in zip(_LAZY, lazy_kernels(model.needs_ccd))
             if needed(fields, key[0]) and not _jit.prepared(kernel, argtypes)]
  # Several to compile: the first (the costliest, by _LAZY's order) here, the others in a helper process at once
  todo = set(_jit.uncached([_jit.dispatcher_of(kernel) for kernel, _ in pending]))
  later = [kernel for kernel, _ in pending if _jit.dispatcher_of(kernel) in todo][1:]
  names = [f"{k.__module__}.{k.__qualname__}" for k in later]
  helper = later and _parallel.run_in_helper(
      f"from mjgym.physics import forward; forward.compile_lazy({model.needs_ccd!r}, {names!r})")
  for kernel, argtypes in pending:
    if not (helper and kernel in later):
      _jit.prepare(kernel, argtypes)
  if helper:
    helper.wait()
    for kernel, argtypes in pending:
      _jit.prepare(kernel, argtypes)  # from the cache the helper filled (compiled here if it could not)
  object.__setattr__(model, "_lazy_ready", key)


def compile_lazy(ccd, names):
  """Compiles (into the cache) the lazy kernels named ``module.qualname`` in ``names``: a helper process's job."""
  for kernel, argtypes in lazy_kernels(ccd):
    if f"{kernel.__module__}.{kernel.__qualname__}" in names:
      _jit.dispatcher_of(kernel).compile(argtypes)


def lazy_kernels(ccd=False):
  """(lazy kernel, argument types) of every lazy kernel of the pipeline, for ``mjgym compile``."""
  import numba  # pylint: disable=import-outside-toplevel
  narrow = driver.narrow_all if ccd else driver.narrow_closed_form
  extra = {"narrow": numba.typeof(narrow), "int": numba.int64}
  base = (_structs.model_type, _structs.data_type)
  return [(kernel, base + tuple(extra[k] for k in more)) for kernel, more, _ in _LAZY]
