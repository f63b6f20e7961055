"""Compile-time constants that need the model's kinematics at its reference configurations.

The counterpart of MuJoCo's mj_setConst for what depends on tendons and transmissions: spring lengths of
spatial tendons (at qpos_spring), tendon_length0, actuator_length0, actuator_acc0, position gains given as
and position gains given as damping ratios.
"""

import numpy as np

from mjgym.physics import forward
from mjgym.physics import smooth
from mjgym.physics.types import BiasType
from mjgym.physics.types import GainType


def set_const(m):
  """Fills the constants of ``m`` (an MjModel fresh from the compiler) in place."""
  from mjgym.physics.containers import MjData  # pylint: disable=import-outside-toplevel
  if m.ntendon == 0 and m.nu == 0:
    return
  d = MjData(m)
  pending = [t for t in range(m.ntendon) if np.all(m.tendon_lengthspring[t] == -1.0)]
  if pending:
    d.qpos[:] = m.qpos_spring
    forward.fwd_position(m._struct, d._struct)
    for t in pending:
      m.tendon_lengthspring[t] = d.ten_length[t]
  d.qpos[:] = m.qpos0
  forward.fwd_position(m._struct, d._struct)
  m.tendon_length0[:] = d.ten_length
  m.actuator_length0[:] = d.actuator_length
  x = np.zeros(m.nv)
  for i in range(m.nu):
    moment = np.ascontiguousarray(d.actuator_moment[i])
    smooth.solve_m(m._struct, d._struct, x, moment)
    m.actuator_acc0[i] = np.linalg.norm(x)
    if _is_dampratio(m, i):
      m.actuator_biasprm[i, 2] = -_damping_from_ratio(m, d, i)


def _is_dampratio(m, i):
  """Position-like actuators store a damping ratio as a positive biasprm[2] until it is converted here."""
  return (m.actuator_gaintype[i] == GainType.FIXED and m.actuator_biastype[i] == BiasType.AFFINE
          and m.actuator_biasprm[i, 2] > 0 and m.actuator_gainprm[i, 0] == -m.actuator_biasprm[i, 1])


def _damping_from_ratio(m, d, i):
  """kv = dampratio * 2 sqrt(kp * reflected inertia), the inertia seen through the transmission at qpos0.

  Each dof the actuator moves contributes moment² / dof_invweight0 (its inverse-inertia weight at qpos0).
  """
  moment = d.actuator_moment[i]
  used = moment != 0
  mass = np.sum(moment[used] ** 2 / m.dof_invweight0[used])
  return m.actuator_biasprm[i, 2] * 2.0 * np.sqrt(m.actuator_gainprm[i, 0] * mass)
