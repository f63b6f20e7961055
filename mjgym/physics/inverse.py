"""Inverse dynamics (MuJoCo's mj_inverse): the generalized force that produces a given acceleration.

Given the state (qpos, qvel, act) and an acceleration ``qacc``, the position and velocity stages run as in forward
dynamics; then the constraint forces are those the soft-constraint model assigns to ``qacc`` (MuJoCo's inverse of
the constraint model: ``jar = J qacc - aref``, and each row's force is minus the derivative of its cost at ``jar``,
the very map the primal solvers use, so that it does not depend on the solver), and

  qfrc_inverse = M qacc + qfrc_bias - qfrc_passive - qfrc_constraint.

For a state whose ``qacc`` came out of forward dynamics this is ``qfrc_applied + Jᵀ xfrc_applied + qfrc_actuator``.

With ``mjENBL_INVDISCRETE`` the given ``qacc`` is the discrete-time acceleration of the model's integrator (the
finite difference of two consecutive velocities) and is first mapped to the continuous-time acceleration the
integrator would have started from: ``M⁻¹ (M + h B) qacc`` for Euler with implicit joint damping B, and
``M⁻¹ (M - h qDeriv) qacc`` for implicit / implicitfast (with the same velocity derivative ``qDeriv`` those
integrators use). RK4 has no such map (refused, as in MuJoCo). ``qacc`` is restored afterwards.

The position and velocity stages are the compiled parts of forward dynamics (``forward.run_part``); only the
acceleration part lives here, with ``qfrc_inverse`` passed as an array of its own (it is not in the compiled Data).
"""

import numpy as np
from numba import njit

from mjgym.physics import constraint
from mjgym.physics import forward
from mjgym.physics import sensor
from mjgym.physics import smooth
from mjgym.physics import solver
from mjgym.physics import support
from mjgym.physics.constants import DSBL_DAMPER
from mjgym.physics.constants import DSBL_EULERDAMP
from mjgym.physics.constants import ENBL_INVDISCRETE
from mjgym.physics.constants import INT_EULER
from mjgym.physics.constants import INT_IMPLICIT
from mjgym.physics.types import IntegratorType


@njit(cache=True, error_model="numpy")
def _discrete_to_continuous(m, d, qfrc):
  """qacc <- the continuous-time acceleration behind the discrete-time qacc of the model's integrator.

  qfrc (nv,) is work space. Mirrors the matrices ``forward.euler`` and ``forward.implicit`` solve with.
  """
  nv = m.nv
  h = m.opt_timestep[0]
  integrator = m.opt_integrator[0]
  if integrator == INT_EULER:
    flags = m.opt_disableflags[0]
    if flags & DSBL_EULERDAMP or flags & DSBL_DAMPER:
      return
    damped = False
    for i in range(nv):
      if support.dof_damping(m, i) > 0:
        damped = True
    if not damped:
      return
    solver.mul_m(m, d, qfrc, d.qacc)
    for i in range(nv):
      qfrc[i] += h * support.dof_damping(m, i) * d.qacc[i]
  else:
    forward._smooth_vel_derivative(m, d, integrator == INT_IMPLICIT)  # pylint: disable=protected-access
    solver.mul_m(m, d, qfrc, d.qacc)
    for i in range(nv):
      s = 0.0
      for j in range(nv):
        s += d.qDeriv[i, j] * d.qacc[j]
      qfrc[i] -= h * s
  smooth.solve_m(m, d, d.qacc, qfrc)


@njit(cache=True, error_model="numpy")
def inverse_acceleration(m, d, qfrc_inverse, sensors):
  """The acceleration part of mj_inverse, after the position and velocity stages: constraint forces of qacc
  (efc_jar, efc_force, efc_state, qfrc_constraint), the acceleration sensors if ``sensors``, and
  qfrc_inverse (nv,) N or N·m."""
  nv = m.nv
  discrete = (m.opt_enableflags[0] & ENBL_INVDISCRETE) != 0
  qacc_given = np.empty(nv)
  work = np.empty(nv)
  if discrete:
    qacc_given[:] = d.qacc
    _discrete_to_continuous(m, d, work)
  constraint.constraint_velocity(m, d)
  nefc = d.nefc[0]
  if nefc == 0:
    d.qfrc_constraint[:] = 0.0
  else:
    for i in range(nefc):
      s = 0.0
      for k in range(nv):
        s += d.efc_J[i, k] * d.qacc[k]
      d.efc_jar[i] = s - d.efc_aref[i]
    solver.update_constraint(m, d)
    d.qfrc_constraint[:] = 0.0
    for i in range(nefc):
      f = d.efc_force[i]
      if f != 0.0:
        for k in range(nv):
          d.qfrc_constraint[k] += d.efc_J[i, k] * f
  if sensors:
    sensor.sensor_acc(m, d)
  solver.mul_m(m, d, work, d.qacc)
  for i in range(nv):
    qfrc_inverse[i] = d.qfrc_bias[i] + work[i] - d.qfrc_passive[i] - d.qfrc_constraint[i]
  if discrete:
    d.qacc[:] = qacc_given


def check_integrator(m, what):
  """Refuses RK4 where MuJoCo does (discrete inverse dynamics, the finite-difference derivatives)."""
  if m.opt.integrator == IntegratorType.RK4:
    raise ValueError(f"{what} is not supported by the RK4 integrator")


def qfrc_inverse_of(d):
  """d's qfrc_inverse (nv,) array; Data made over arrays without it (older pickles) get one."""
  fields = d._fields  # pylint: disable=protected-access
  if "qfrc_inverse" not in fields:
    fields["qfrc_inverse"] = np.zeros(d.model.nv)
  return fields["qfrc_inverse"]
