"""Potential and kinetic energy (``d.energy``), computed by forward dynamics when mjENBL_ENERGY is set."""

from numba import njit

from mjgym.physics import _jit
from mjgym.physics import math
from mjgym.physics.constants import DSBL_GRAVITY
from mjgym.physics.constants import DSBL_SPRING
from mjgym.physics.constants import JNT_BALL
from mjgym.physics.constants import JNT_FREE


@_jit.lazy
@njit(cache=True, error_model="numpy")
def energy_pos(m, d):
  """energy[0]: gravity (-sum of m g·x over the bodies' coms) plus the energy 0.5 k x² of joint and tendon springs.

  Needs the position stage. A quaternion's spring stretch is its tangent difference from qpos_spring, taken
  of qpos as it is (MuJoCo does not normalize it here).
  """
  e = 0.0
  disabled = m.opt_disableflags[0]
  if not disabled & DSBL_GRAVITY:
    g = m.opt_gravity
    for i in range(1, m.nbody):
      x = d.xipos[i]
      e -= m.body_mass[i] * (g[0] * x[0] + g[1] * x[1] + g[2] * x[2])
  if not disabled & DSBL_SPRING:
    for j in range(m.njnt):
      k = m.jnt_stiffness[j]
      if k == 0.0:
        continue
      adr = m.jnt_qposadr[j]
      jtype = m.jnt_type[j]
      if jtype == JNT_FREE or jtype == JNT_BALL:
        if jtype == JNT_FREE:
          s = 0.0
          for c in range(3):
            dx = d.qpos[adr + c] - m.qpos_spring[adr + c]
            s += dx * dx
          e += 0.5 * k * s
          adr += 3
        dif = math.quat_sub(d.qpos[adr:adr + 4], m.qpos_spring[adr:adr + 4])
        e += 0.5 * k * (dif[0] * dif[0] + dif[1] * dif[1] + dif[2] * dif[2])
      else:
        dx = d.qpos[adr] - m.qpos_spring[adr]
        e += 0.5 * k * dx * dx
    for t in range(m.ntendon):
      length = d.ten_length[t]
      x = 0.0
      if length > m.tendon_lengthspring[t, 1]:
        x = m.tendon_lengthspring[t, 1] - length
      elif length < m.tendon_lengthspring[t, 0]:
        x = m.tendon_lengthspring[t, 0] - length
      e += 0.5 * m.tendon_stiffness[t] * x * x
  d.energy[0] = e


@_jit.lazy
@njit(cache=True, error_model="numpy")
def energy_vel(m, d):
  """energy[1] = 0.5 qvel·M qvel, from the sparse qM of the position stage (no scratch needed)."""
  e = 0.0
  for i in range(m.nv):
    adr = m.dof_Madr[i]
    vi = d.qvel[i]
    e += d.qM[adr] * vi * vi
    # row i of qM holds M[i, j] for each ancestor dof j, nearest first; each appears twice in the sum
    j = m.dof_parentid[i]
    a = adr + 1
    while j >= 0:
      e += 2.0 * d.qM[a] * vi * d.qvel[j]
      a += 1
      j = m.dof_parentid[j]
  d.energy[1] = 0.5 * e
