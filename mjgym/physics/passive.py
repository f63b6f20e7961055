"""Passive forces: joint and tendon springs and dampers, gravity compensation and the inertia-box fluid model."""

import math as pymath

from numba import njit

from mjgym.physics import _link
from mjgym.physics import flex
from mjgym.physics import math
from mjgym.physics import support
from mjgym.physics.constants import DSBL_DAMPER
from mjgym.physics.constants import DSBL_GRAVITY
from mjgym.physics.constants import DSBL_SPRING
from mjgym.physics.constants import JNT_BALL
from mjgym.physics.constants import JNT_FREE
from mjgym.physics.types import MINVAL


@njit(cache=True, error_model="numpy")
def _joint_springs(m, d):
  """qfrc_spring from joint stiffness: -k (q - qpos_spring), quaternions through their tangent difference."""
  for j in range(m.njnt):
    k = m.jnt_stiffness[j]
    if k == 0.0:
      continue
    qadr = m.jnt_qposadr[j]
    dofadr = m.jnt_dofadr[j]
    jtype = m.jnt_type[j]
    if jtype == JNT_FREE or jtype == JNT_BALL:
      if jtype == JNT_FREE:
        for c in range(3):
          d.qfrc_spring[dofadr + c] = -k * (d.qpos[qadr + c] - m.qpos_spring[qadr + c])
        qadr += 3
        dofadr += 3
      dif = math.quat_sub(math.normalize4(d.qpos[qadr:qadr + 4]), m.qpos_spring[qadr:qadr + 4])
      for c in range(3):
        d.qfrc_spring[dofadr + c] = -k * dif[c]
    else:
      d.qfrc_spring[dofadr] = -k * (d.qpos[qadr] - m.qpos_spring[qadr])


@njit(cache=True, error_model="numpy")
def _tendon_forces(m, d, spring, damper):
  """Tendon springs (zero inside the [lower, upper] lengthspring deadband) and dampers, through ten_J."""
  for t in range(m.ntendon):
    fs = 0.0
    if spring:
      k = m.tendon_stiffness[t]
      length = d.ten_length[t]
      lower = m.tendon_lengthspring[t, 0]
      upper = m.tendon_lengthspring[t, 1]
      if length > upper:
        fs = k * (upper - length)
      elif length < lower:
        fs = k * (lower - length)
    fd = -m.tendon_damping[t] * d.ten_velocity[t] if damper else 0.0
    if fs == 0.0 and fd == 0.0:
      continue
    for i in range(m.nv):
      jt = d.ten_J[t, i]
      if jt != 0.0:
        d.qfrc_spring[i] += jt * fs
        d.qfrc_damper[i] += jt * fd


@njit(cache=True, error_model="numpy")
def _gravcomp(m, d, qfrc):
  """qfrc += forces cancelling body_gravcomp times each body's weight, applied at its com."""
  g = m.opt_gravity
  for i in range(1, m.nbody):
    s = m.body_gravcomp[i] * m.body_mass[i]
    if s != 0.0:
      force = (-g[0] * s, -g[1] * s, -g[2] * s)
      support.apply_ft(m, d, force, (0.0, 0.0, 0.0), d.xipos[i], i, qfrc)


@njit(cache=True, error_model="numpy")
def _fluid_box(m, i):
  """Side lengths (bx, by, bz) of the uniform box with body i's mass and principal inertia; bx < 0 when the
  body takes no fluid force (massless)."""
  mass = m.body_mass[i]
  inertia = m.body_inertia[i]
  if mass < MINVAL or inertia[0] + inertia[1] + inertia[2] < MINVAL:
    return -1.0, 0.0, 0.0
  bx = pymath.sqrt(max(MINVAL, inertia[1] + inertia[2] - inertia[0]) / mass * 6.0)
  by = pymath.sqrt(max(MINVAL, inertia[0] + inertia[2] - inertia[1]) / mass * 6.0)
  bz = pymath.sqrt(max(MINVAL, inertia[0] + inertia[1] - inertia[2]) / mass * 6.0)
  return bx, by, bz


@njit(cache=True, error_model="numpy")
def _fluid_local_velocity(m, d, i):
  """Angular velocity and com velocity relative to the wind of body i, both in its inertia frame."""
  rot = d.ximat[i]
  cvel = d.cvel[i]
  c = d.subtree_com[m.body_rootid[i]]
  r = (d.xipos[i, 0] - c[0], d.xipos[i, 1] - c[1], d.xipos[i, 2] - c[2])
  wr = math.cross(cvel[:3], r)
  lin = (cvel[3] + wr[0] - m.opt_wind[0], cvel[4] + wr[1] - m.opt_wind[1], cvel[5] + wr[2] - m.opt_wind[2])
  return math.mat_t_vec(rot, cvel[:3]), math.mat_t_vec(rot, lin)


@njit(cache=True, error_model="numpy")
def _fluid_coefficients(m, bx, by, bz):
  """Per-axis drag coefficients of the box: viscous (kt, kf) for torque and force, and the quadratic
  coefficients (ct, cf) such that torque_k = kt w_k - ct_k |w_k| w_k and force_k = kf v_k - cf_k |v_k| v_k."""
  density = m.opt_density[0]
  viscosity = m.opt_viscosity[0]
  # Stokes drag of the sphere with the box's mean side as diameter
  diam = (bx + by + bz) / 3.0
  kt = -pymath.pi * diam * diam * diam * viscosity
  kf = -3.0 * pymath.pi * diam * viscosity
  # quadratic drag of the box faces
  cf = (0.5 * density * by * bz, 0.5 * density * bx * bz, 0.5 * density * bx * by)
  ct = (density * bx * (by ** 4 + bz ** 4) / 64.0, density * by * (bx ** 4 + bz ** 4) / 64.0,
        density * bz * (bx ** 4 + by ** 4) / 64.0)
  return kt, kf, ct, cf


@njit(cache=True, error_model="numpy")
def _fluid(m, d):
  """qfrc_fluid from MuJoCo's inertia-box model: each body as the uniform box with its inertia."""
  for i in range(1, m.nbody):
    bx, by, bz = _fluid_box(m, i)
    if bx < 0:
      continue
    w, v = _fluid_local_velocity(m, d, i)
    kt, kf, ct, cf = _fluid_coefficients(m, bx, by, bz)
    torque = (kt * w[0] - ct[0] * abs(w[0]) * w[0], kt * w[1] - ct[1] * abs(w[1]) * w[1],
              kt * w[2] - ct[2] * abs(w[2]) * w[2])
    force = (kf * v[0] - cf[0] * abs(v[0]) * v[0], kf * v[1] - cf[1] * abs(v[1]) * v[1],
             kf * v[2] - cf[2] * abs(v[2]) * v[2])
    rot = d.ximat[i]
    support.apply_ft(m, d, math.mat_vec(rot, force), math.mat_vec(rot, torque), d.xipos[i], i, d.qfrc_fluid)


@njit(cache=True, error_model="numpy")
def fluid_vel_derivative(m, d, qDeriv):
  """qDeriv += d(qfrc_fluid)/d(qvel) (nv, nv), used by the implicit integrators.

  In each body's inertia frame the drag is diagonal in the local velocity, so the derivative is
  Jᵀ R diag(dk) Rᵀ J with J the com Jacobian; d(|x| x)/dx = 2 |x|.
  """
  if m.opt_density[0] == 0.0 and m.opt_viscosity[0] == 0.0:
    return
  nv = m.nv
  for i in range(1, m.nbody):
    bx, by, bz = _fluid_box(m, i)
    if bx < 0:
      continue
    w, v = _fluid_local_velocity(m, d, i)
    kt, kf, ct, cf = _fluid_coefficients(m, bx, by, bz)
    support.jac(m, d, d.passive_jacp, d.passive_jacr, d.xipos[i], i)
    rot = d.ximat[i]
    for part in range(2):
      jac = d.passive_jacr if part == 0 else d.passive_jacp
      for k in range(3):
        if part == 0:
          dk = kt - 2.0 * ct[k] * abs(w[k])
        else:
          dk = kf - 2.0 * cf[k] * abs(v[k])
        if dk == 0.0:
          continue
        # row k of Rᵀ J, kept in scratch to avoid recomputing it for every column
        row = d.passive_row
        for j in range(nv):
          row[j] = rot[k] * jac[0, j] + rot[3 + k] * jac[1, j] + rot[6 + k] * jac[2, j]
        for a in range(nv):
          if row[a] != 0.0:
            for b in range(nv):
              qDeriv[a, b] += dk * row[a] * row[b]


@_link.separate
@njit(cache=True, error_model="numpy")
def passive(m, d):
  """qfrc_spring, qfrc_damper, qfrc_fluid, qfrc_gravcomp and their sum qfrc_passive."""
  d.qfrc_spring[:] = 0.0
  d.qfrc_damper[:] = 0.0
  d.qfrc_fluid[:] = 0.0
  d.qfrc_gravcomp[:] = 0.0
  d.qfrc_passive[:] = 0.0
  flags = m.opt_disableflags[0]
  spring = (flags & DSBL_SPRING) == 0
  damper = (flags & DSBL_DAMPER) == 0
  # MuJoCo skips all passive forces, fluid and gravity compensation included, when both are disabled
  if not spring and not damper:
    return
  if spring:
    _joint_springs(m, d)
  if damper:
    for i in range(m.nv):
      d.qfrc_damper[i] = -m.dof_damping[i] * d.qvel[i]
  if m.nflex > 0:
    flex.edge_spring_damper(m, d, spring, damper)
  _tendon_forces(m, d, spring, damper)
  if m.opt_density[0] > 0 or m.opt_viscosity[0] > 0:
    _fluid(m, d)
  for i in range(m.nv):
    d.qfrc_passive[i] = d.qfrc_spring[i] + d.qfrc_damper[i] + d.qfrc_fluid[i]
  if (flags & DSBL_GRAVITY) == 0:
    _gravcomp(m, d, d.qfrc_gravcomp)
    # joints with actuatorgravcomp take their share through qfrc_actuator instead (fwd_actuation)
    for i in range(m.nv):
      if not m.jnt_actgravcomp[m.dof_jntid[i]]:
        d.qfrc_passive[i] += d.qfrc_gravcomp[i]
