"""Passive forces: joint and tendon springs and dampers, gravity compensation and fluid forces (MuJoCo's
inertia-box model, and its ellipsoid model for the bodies with a geom that asks for it)."""

import math as pymath

from numba import njit

from mjgym.physics import _jit
from mjgym.physics import flex
from mjgym.physics import math
from mjgym.physics import support
from mjgym.physics.constants import DSBL_DAMPER
from mjgym.physics.constants import DSBL_GRAVITY
from mjgym.physics.constants import DSBL_SPRING
from mjgym.physics.constants import GEOM_CAPSULE
from mjgym.physics.constants import GEOM_CYLINDER
from mjgym.physics.constants import GEOM_SPHERE
from mjgym.physics.constants import INT_IMPLICITFAST
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
    fd = -support.tendon_damping(m, t) * d.ten_velocity[t] if damper else 0.0
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
def _uses_ellipsoid(m, i):
  """Whether body i takes the ellipsoid fluid model (any of its geoms has fluidshape="ellipsoid")."""
  for g in range(m.body_geomadr[i], m.body_geomadr[i] + m.body_geomnum[i]):
    if m.geom_fluid[g, 0] > 0:
      return True
  return False


@njit(cache=True, error_model="numpy")
def _semi_axes(m, g):
  """Semi-axes of the ellipsoid that stands in for geom g."""
  size = m.geom_size[g]
  gtype = m.geom_type[g]
  if gtype == GEOM_SPHERE:
    return size[0], size[0], size[0]
  if gtype == GEOM_CAPSULE:
    return size[0], size[0], size[1] + size[0]
  if gtype == GEOM_CYLINDER:
    return size[0], size[0], size[1]
  return size[0], size[1], size[2]


@njit(cache=True, error_model="numpy")
def _geom_local_velocity(m, d, g, root):
  """Angular velocity and velocity relative to the wind of geom g's origin, both in the geom frame."""
  cvel = d.cvel[m.geom_bodyid[g]]
  c = d.subtree_com[root]
  r = (d.geom_xpos[g, 0] - c[0], d.geom_xpos[g, 1] - c[1], d.geom_xpos[g, 2] - c[2])
  wr = math.cross(cvel[:3], r)
  rot = d.geom_xmat[g]
  lin = math.mat_t_vec(rot, (cvel[3] + wr[0], cvel[4] + wr[1], cvel[5] + wr[2]))
  wind = math.mat_t_vec(rot, (m.opt_wind[0], m.opt_wind[1], m.opt_wind[2]))
  return math.mat_t_vec(rot, cvel[:3]), (lin[0] - wind[0], lin[1] - wind[1], lin[2] - wind[2])


@njit(cache=True, error_model="numpy")
def _max_moment(a, b, c):
  """8/15 pi a max(b, c)^4: the moment of inertia of the ellipsoid about axis a that drag on it grows with."""
  e = max(b, c)
  return 8.0 / 15.0 * pymath.pi * a * (e * e) * (e * e)


@njit(cache=True, error_model="numpy")
def _ellipsoid_shape(s):
  """Of semi-axes s: the ellipsoid's volume, its largest cross-section A_max, its largest moment I_max, the
  per-axis moments II and the Stokes diameter 2/3 (a + b + c)."""
  dmax = max(max(s[0], s[1]), s[2])
  dmin = min(min(s[0], s[1]), s[2])
  dmid = s[0] + s[1] + s[2] - dmax - dmin
  volume = 4.0 / 3.0 * pymath.pi * s[0] * s[1] * s[2]
  amax = pymath.pi * dmax * dmid
  imax = 8.0 / 15.0 * pymath.pi * dmid * (dmax * dmax) * (dmax * dmax)
  ii = (_max_moment(s[0], s[1], s[2]), _max_moment(s[1], s[2], s[0]), _max_moment(s[2], s[0], s[1]))
  return volume, amax, imax, ii, 2.0 / 3.0 * (s[0] + s[1] + s[2])


@njit(cache=True, error_model="numpy")
def _ellipsoid_force(m, g, s, w, v):
  """Local torque and force on geom g's ellipsoid (semi-axes s) moving with angular velocity w and velocity v
  relative to the fluid, in the geom frame: added mass, Magnus and Kutta lift, quadratic and viscous drag."""
  density = m.opt_density[0]
  viscosity = m.opt_viscosity[0]
  fl = m.geom_fluid[g]
  blunt, slender, angular, kutta, magnus = fl[1], fl[2], fl[3], fl[4], fl[5]
  volume, amax, imax, ii, diam = _ellipsoid_shape(s)
  # added mass: the fluid's virtual momentum moving with the body
  plin = (density * fl[6] * v[0], density * fl[7] * v[1], density * fl[8] * v[2])
  pang = (density * fl[9] * w[0], density * fl[10] * w[1], density * fl[11] * w[2])
  t1 = math.cross(plin, v)
  t2 = math.cross(pang, w)
  fam = math.cross(plin, w)
  # Magnus lift of the spinning body
  fm = math.scl3(math.cross(w, v), magnus * density * volume)
  # the body's projection along v: normal n = (bc)^2 vx, ... (not unit); |projection| and cos(v, n)
  a2 = (s[1] * s[2]) * (s[1] * s[2])
  b2 = (s[2] * s[0]) * (s[2] * s[0])
  c2 = (s[0] * s[1]) * (s[0] * s[1])
  denom = a2 * a2 * v[0] * v[0] + b2 * b2 * v[1] * v[1] + c2 * c2 * v[2] * v[2]
  num = a2 * v[0] * v[0] + b2 * v[1] * v[1] + c2 * v[2] * v[2]
  aproj = pymath.pi * pymath.sqrt(denom / max(MINVAL, num))
  speed = math.norm3(v)
  cos_alpha = num / max(MINVAL, speed * denom)
  circ = math.scl3(math.cross((a2 * v[0], b2 * v[1], c2 * v[2]), v), kutta * density * cos_alpha * aproj)
  fk = math.cross(circ, v)
  # drag: Stokes terms plus quadratic terms on the projected area and on the moments
  mom = (w[0] * (angular * ii[0] + slender * (imax - ii[0])), w[1] * (angular * ii[1] + slender * (imax - ii[1])),
         w[2] * (angular * ii[2] + slender * (imax - ii[2])))
  drag_lin = viscosity * 3.0 * pymath.pi * diam + density * speed * (aproj * blunt + slender * (amax - aproj))
  drag_ang = viscosity * pymath.pi * diam * diam * diam + density * math.norm3(mom)
  torque = (t1[0] + t2[0] - drag_ang * w[0], t1[1] + t2[1] - drag_ang * w[1], t1[2] + t2[2] - drag_ang * w[2])
  force = (fam[0] + fm[0] + fk[0] - drag_lin * v[0], fam[1] + fm[1] + fk[1] - drag_lin * v[1],
           fam[2] + fm[2] + fk[2] - drag_lin * v[2])
  return torque, force


@njit(cache=True, error_model="numpy")
def _fluid_ellipsoid(m, d, i):
  """qfrc_fluid of body i from the ellipsoid model: each of its geoms with the model on as its ellipsoid,
  the force applied at the geom's origin."""
  for g in range(m.body_geomadr[i], m.body_geomadr[i] + m.body_geomnum[i]):
    scale = m.geom_fluid[g, 0]
    if scale == 0.0:
      continue
    w, v = _geom_local_velocity(m, d, g, m.body_rootid[i])
    torque, force = _ellipsoid_force(m, g, _semi_axes(m, g), w, v)
    rot = d.geom_xmat[g]
    support.apply_ft(m, d, math.mat_vec(rot, math.scl3(force, scale)), math.mat_vec(rot, math.scl3(torque, scale)),
                     d.geom_xpos[g], i, d.qfrc_fluid)


@njit(cache=True, error_model="numpy")
def _fluid(m, d):
  """qfrc_fluid: the ellipsoid model for bodies that ask for it, the inertia-box model (each body as the
  uniform box with its inertia) for the others; massless bodies take no fluid force."""
  for i in range(1, m.nbody):
    if m.body_mass[i] < MINVAL:
      continue
    if _uses_ellipsoid(m, i):
      _fluid_ellipsoid(m, d, i)
      continue
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
def _cross_matrix(b, r0, c0, a, s):
  """b[r0:r0+3, c0:c0+3] += s [a]x, the matrix of x -> s (a x x)."""
  b[r0, c0 + 1] -= s * a[2]
  b[r0, c0 + 2] += s * a[1]
  b[r0 + 1, c0] += s * a[2]
  b[r0 + 1, c0 + 2] -= s * a[0]
  b[r0 + 2, c0] -= s * a[1]
  b[r0 + 2, c0 + 1] += s * a[0]


@njit(cache=True, error_model="numpy")
def _cross_matrix_scaled(b, r0, c0, a, s, k):
  """b[r0:r0+3, c0:c0+3] += s [a]x diag(k), the matrix of x -> s (a x (k * x))."""
  b[r0, c0 + 1] -= s * a[2] * k[1]
  b[r0, c0 + 2] += s * a[1] * k[2]
  b[r0 + 1, c0] += s * a[2] * k[0]
  b[r0 + 1, c0 + 2] -= s * a[0] * k[2]
  b[r0 + 2, c0] -= s * a[1] * k[0]
  b[r0 + 2, c0 + 1] += s * a[0] * k[1]


@njit(cache=True, error_model="numpy")
def _ellipsoid_derivative(m, g, s, w, v, b):
  """b (6, 6) = d(torque, force) / d(w, v) of _ellipsoid_force, all in the geom frame."""
  density = m.opt_density[0]
  viscosity = m.opt_viscosity[0]
  fl = m.geom_fluid[g]
  blunt, slender, angular, kutta, magnus = fl[1], fl[2], fl[3], fl[4], fl[5]
  vmass = (density * fl[6], density * fl[7], density * fl[8])
  vinertia = (density * fl[9], density * fl[10], density * fl[11])
  volume, amax, imax, ii, diam = _ellipsoid_shape(s)
  b[:, :] = 0.0
  plin = (vmass[0] * v[0], vmass[1] * v[1], vmass[2] * v[2])
  pang = (vinertia[0] * w[0], vinertia[1] * w[1], vinertia[2] * w[2])
  # added mass: torque p_lin x v + p_ang x w, force p_lin x w (d(a x c) = a x dc - c x da)
  _cross_matrix(b, 0, 3, plin, 1.0)
  _cross_matrix_scaled(b, 0, 3, v, -1.0, vmass)
  _cross_matrix(b, 0, 0, pang, 1.0)
  _cross_matrix_scaled(b, 0, 0, w, -1.0, vinertia)
  _cross_matrix(b, 3, 0, plin, 1.0)
  _cross_matrix_scaled(b, 3, 3, w, -1.0, vmass)
  # Magnus: c w x v
  cm = magnus * density * volume
  _cross_matrix(b, 3, 3, w, cm)
  _cross_matrix(b, 3, 0, v, -cm)
  # angular drag -(mu k + rho |c w|) w
  coef = (angular * ii[0] + slender * (imax - ii[0]), angular * ii[1] + slender * (imax - ii[1]),
          angular * ii[2] + slender * (imax - ii[2]))
  mom = (w[0] * coef[0], w[1] * coef[1], w[2] * coef[2])
  nmom = math.norm3(mom)
  drag_ang = viscosity * pymath.pi * diam * diam * diam + density * nmom
  inv = density / max(MINVAL, nmom)
  for r in range(3):
    b[r, r] -= drag_ang
    for c in range(3):
      b[r, c] -= inv * w[r] * coef[c] * mom[c]
  # the projection of the body along v: A_proj = pi sqrt(den / num), with the weights k = ((bc)^2, ...)
  k = ((s[1] * s[2]) * (s[1] * s[2]), (s[2] * s[0]) * (s[2] * s[0]), (s[0] * s[1]) * (s[0] * s[1]))
  den = k[0] * k[0] * v[0] * v[0] + k[1] * k[1] * v[1] * v[1] + k[2] * k[2] * v[2] * v[2]
  num = k[0] * v[0] * v[0] + k[1] * v[1] * v[1] + k[2] * v[2] * v[2]
  q = v[0] * v[0] + v[1] * v[1] + v[2] * v[2]
  speed = pymath.sqrt(q)
  aproj = pymath.pi * pymath.sqrt(den / max(MINVAL, num))
  # dA_proj/dv_j = pi k_j v_j (k_j num - den) / (num^3 den)^(1/2)
  da = pymath.pi / max(MINVAL, pymath.sqrt(num * num * num * den))
  # linear drag -(mu k + rho |v| (A_proj blunt + slender (A_max - A_proj))) v
  drag_lin = viscosity * 3.0 * pymath.pi * diam + density * speed * (aproj * blunt + slender * (amax - aproj))
  quad = density * (aproj * blunt + slender * (amax - aproj)) / max(MINVAL, speed)
  darea = density * speed * (blunt - slender) * da
  for r in range(3):
    b[3 + r, 3 + r] -= drag_lin
    for c in range(3):
      b[3 + r, 3 + c] -= v[r] * (quad * v[c] + darea * k[c] * v[c] * (k[c] * num - den))
  # Kutta lift: K g (v num - n |v|^2) with n = k * v and g = (num / (den |v|^2))^(1/2)
  ck = kutta * density * pymath.pi
  g = pymath.sqrt(num) / max(MINVAL, pymath.sqrt(den * q))
  inum = 1.0 / max(MINVAL, num)
  iden = 1.0 / max(MINVAL, den)
  iq = 1.0 / max(MINVAL, q)
  for r in range(3):
    hr = v[r] * (num - k[r] * q)
    for c in range(3):
      dh = 2.0 * v[r] * v[c] * (k[c] - k[r])
      if r == c:
        dh += num - k[r] * q
      dg = g * v[c] * (k[c] * inum - k[c] * k[c] * iden - iq)
      b[3 + r, 3 + c] += ck * (g * dh + hr * dg)


@njit(cache=True, error_model="numpy")
def _is_free_body(m, i):
  """A lone free body: one free joint, no other dofs in its tree, no mass below it."""
  if m.body_jntnum[i] != 1 or m.jnt_type[m.body_jntadr[i]] != JNT_FREE:
    return False
  adr = m.jnt_dofadr[m.body_jntadr[i]]
  return m.tree_dofnum[m.dof_treeid[adr]] == 6 and m.body_subtreemass[i] == m.body_mass[i]


@njit(cache=True, error_model="numpy")
def _ellipsoid_vel_derivative(m, d, i, qDeriv):
  """qDeriv += Jᵀ B J for every ellipsoid-model geom of body i, J its Jacobian in the geom frame."""
  nv = m.nv
  b = d.passive_fluid_b
  jacp, jacr = d.passive_jacp, d.passive_jacr
  symmetric = m.opt_integrator[0] == INT_IMPLICITFAST and not _is_free_body(m, i)
  for g in range(m.body_geomadr[i], m.body_geomadr[i] + m.body_geomnum[i]):
    if m.geom_fluid[g, 0] == 0.0:
      continue
    w, v = _geom_local_velocity(m, d, g, m.body_rootid[i])
    _ellipsoid_derivative(m, g, _semi_axes(m, g), w, v, b)
    if symmetric:
      # implicitfast keeps M - h qDeriv symmetric: MuJoCo symmetrizes B unless the body is a lone free body
      for r in range(6):
        for c in range(r + 1, 6):
          x = 0.5 * (b[r, c] + b[c, r])
          b[r, c] = x
          b[c, r] = x
    support.jac(m, d, jacp, jacr, d.geom_xpos[g], i)
    rot = d.geom_xmat[g]
    # both Jacobians into the geom frame, column by column
    for j in range(nv):
      p = math.mat_t_vec(rot, (jacp[0, j], jacp[1, j], jacp[2, j]))
      r = math.mat_t_vec(rot, (jacr[0, j], jacr[1, j], jacr[2, j]))
      for k in range(3):
        jacp[k, j] = p[k]
        jacr[k, j] = r[k]
    for row in range(6):
      ja = jacr[row] if row < 3 else jacp[row - 3]
      for col in range(6):
        coef = b[row, col]
        if coef == 0.0:
          continue
        jb = jacr[col] if col < 3 else jacp[col - 3]
        for a in range(nv):
          if ja[a] != 0.0:
            s = coef * ja[a]
            for c in range(nv):
              qDeriv[a, c] += s * jb[c]


@njit(cache=True, error_model="numpy")
def fluid_vel_derivative(m, d, qDeriv):
  """qDeriv += d(qfrc_fluid)/d(qvel) (nv, nv), used by the implicit integrators.

  In each inertia-box body's inertia frame the drag is diagonal in the local velocity, so the derivative is
  Jᵀ R diag(dk) Rᵀ J with J the com Jacobian; d(|x| x)/dx = 2 |x|. Ellipsoid-model geoms couple their six
  local velocities (_ellipsoid_vel_derivative).
  """
  if m.opt_density[0] == 0.0 and m.opt_viscosity[0] == 0.0:
    return
  nv = m.nv
  for i in range(1, m.nbody):
    if m.body_mass[i] < MINVAL:
      continue
    if _uses_ellipsoid(m, i):
      _ellipsoid_vel_derivative(m, d, i, qDeriv)
      continue
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


@_jit.separate
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
      d.qfrc_damper[i] = -support.dof_damping(m, i) * d.qvel[i]
  if m.nflex > 0:
    flex.elastic(m, d, spring, damper)
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
