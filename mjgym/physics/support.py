"""Jacobians of points on bodies, the mapping of Cartesian forces to joint space, tendon wrapping and
muscle curves, and the contact outputs (mj_contactForce, the contact wrenches of cfrc_ext)."""

import math as pymath

from numba import njit

from mjgym.physics import _jit
from mjgym.physics import math
from mjgym.physics.constants import CNSTR_CONTACT_ELLIPTIC
from mjgym.physics.constants import CNSTR_CONTACT_PYRAMIDAL
from mjgym.physics.constants import GEOM_SPHERE
from mjgym.physics.constants import JNT_BALL
from mjgym.physics.constants import JNT_FREE
from mjgym.physics.types import MINVAL
from mjgym.physics.types import TrnType


@njit(cache=True, error_model="numpy")
def _last_dof(m, body):
  """The deepest dof that moves ``body`` (-1 if none); its dof_parentid chain is every such dof."""
  while body > 0 and m.body_dofnum[body] == 0:
    body = m.body_parentid[body]
  if body == 0:
    return -1
  return m.body_dofadr[body] + m.body_dofnum[body] - 1


@njit(cache=True, error_model="numpy")
def jac(m, d, jacp, jacr, point, body):
  """jacp, jacr (3, nv) = translational and rotational Jacobians of world ``point`` attached to ``body``."""
  jacp[:, :] = 0.0
  jacr[:, :] = 0.0
  c = d.subtree_com[m.body_rootid[body]]
  offset = (point[0] - c[0], point[1] - c[1], point[2] - c[2])
  j = _last_dof(m, body)
  while j >= 0:
    cdof = d.cdof[j]
    t = math.cross(cdof[:3], offset)
    for k in range(3):
      jacr[k, j] = cdof[k]
      jacp[k, j] = cdof[3 + k] + t[k]
    j = m.dof_parentid[j]


@njit(cache=True, error_model="numpy")
def apply_ft(m, d, force, torque, point, body, qfrc):
  """qfrc += Jᵀ (force, torque) for a force and torque applied at world ``point`` on ``body``."""
  # jacpᵀ f + jacrᵀ t = cdof · (t + r x f, f) with r the point relative to the tree's reference point
  c = d.subtree_com[m.body_rootid[body]]
  r = (point[0] - c[0], point[1] - c[1], point[2] - c[2])
  rf = math.cross(r, force)
  wrench = (torque[0] + rf[0], torque[1] + rf[1], torque[2] + rf[2], force[0], force[1], force[2])
  j = _last_dof(m, body)
  while j >= 0:
    qfrc[j] += math.dot6(d.cdof[j], wrench)
    j = m.dof_parentid[j]


@_jit.separate
@njit(cache=True, error_model="numpy")
def xfrc_accumulate(m, d, qfrc):
  """qfrc += joint-space forces of all xfrc_applied (force, torque at each body's com)."""
  xfrc = d.xfrc_applied
  for i in range(1, m.nbody):
    nonzero = False
    for k in range(6):
      if xfrc[i, k] != 0.0:
        nonzero = True
    if nonzero:
      xf = xfrc[i]
      apply_ft(m, d, xf[:3], xf[3:], d.xipos[i], i, qfrc)


# ------------------------------------------------------------------------------------------ wrapping ----


@njit(cache=True, error_model="numpy")
def _angle(x, y):
  return pymath.atan2(y, x)


@njit(cache=True, error_model="numpy")
def _touch_point(a, b, r):
  """The point t of the circle (radius r, centre 0) minimizing |a - t| + |t - b|, for a, b outside it with
  their segment missing it: on the shorter arc between their directions, where the derivative of the path
  length along the circle vanishes (bisection to round-off)."""
  pa = _angle(a[0], a[1])
  span = _angle(b[0], b[1]) - pa
  if span > pymath.pi:
    span -= 2.0 * pymath.pi
  elif span < -pymath.pi:
    span += 2.0 * pymath.pi
  lo, hi = 0.0, 1.0
  for _ in range(100):
    mid = 0.5 * (lo + hi)
    th = pa + mid * span
    c, sn = pymath.cos(th), pymath.sin(th)
    tx, ty = r * c, r * sn
    ux, uy = tx - a[0], ty - a[1]
    vx, vy = tx - b[0], ty - b[1]
    nu = max(MINVAL, pymath.sqrt(ux * ux + uy * uy))
    nv = max(MINVAL, pymath.sqrt(vx * vx + vy * vy))
    # d(length)/d(mid): the tangent (-sin, cos) r span against the two unit directions
    slope = span * (-sn * (ux / nu + vx / nv) + c * (uy / nu + vy / nv))
    if slope > 0.0:
      hi = mid
    else:
      lo = mid
    if hi - lo < 1e-17:
      break
  th = pa + 0.5 * (lo + hi) * span
  return (r * pymath.cos(th), r * pymath.sin(th))


@njit(cache=True, error_model="numpy")
def _wrap_circle(a, b, side, has_side, inside, r):
  """Shortest wrap of a string from 2D point a to b around the circle of radius r at the origin.

  Returns (arc angle, t0, t1) with the tangent points, or arc -1 when the string does not touch the circle.
  The string leaves a along one of a's two tangents and reaches b along one of b's; of the two wraps that
  go around the same way, the one on the side of ``side`` is taken if given, else the shorter one. An end
  point inside the circle, or a straight line that misses the circle on the side point's side, means no
  wrap. A side point ``inside`` the geom makes the string pass through the circle instead (as measured
  from MuJoCo): straight if its line already crosses the circle, else bent at the one point of the circle
  that makes it shortest (t0 = t1, arc 0).
  """
  da = pymath.sqrt(a[0] * a[0] + a[1] * a[1])
  db = pymath.sqrt(b[0] * b[0] + b[1] * b[1])
  none = (0.0, 0.0)
  if da <= r or db <= r:
    return -1.0, none, none
  # closest point of the segment a-b to the centre: a segment missing the circle goes straight, unless
  # the side point is on the far side of it
  ab = (b[0] - a[0], b[1] - a[1])
  l2 = ab[0] * ab[0] + ab[1] * ab[1]
  if l2 < MINVAL:
    return -1.0, none, none
  s = min(1.0, max(0.0, -(a[0] * ab[0] + a[1] * ab[1]) / l2))
  cx, cy = a[0] + s * ab[0], a[1] + s * ab[1]
  if inside:
    if cx * cx + cy * cy <= r * r:
      return -1.0, none, none
    t = _touch_point(a, b, r)
    return 0.0, t, t
  if cx * cx + cy * cy > r * r and (not has_side or side[0] * cx + side[1] * cy >= 0.0):
    return -1.0, none, none
  pa, pb = _angle(a[0], a[1]), _angle(b[0], b[1])
  ka, kb = pymath.acos(r / da), pymath.acos(r / db)
  two_pi = 2.0 * pymath.pi
  # counter-clockwise: leave a at pa + ka, arrive at b's tangent pb - kb
  ccw0, ccw1 = pa + ka, pb - kb
  arc_ccw = (ccw1 - ccw0) % two_pi
  cw0, cw1 = pa - ka, pb + kb
  arc_cw = (cw0 - cw1) % two_pi
  if has_side:
    # the wrap whose tangent points, on average, lie nearer the side point
    mccw = (0.5 * r * (pymath.cos(ccw0) + pymath.cos(ccw1)), 0.5 * r * (pymath.sin(ccw0) + pymath.sin(ccw1)))
    mcw = (0.5 * r * (pymath.cos(cw0) + pymath.cos(cw1)), 0.5 * r * (pymath.sin(cw0) + pymath.sin(cw1)))
    dccw = (mccw[0] - side[0]) ** 2 + (mccw[1] - side[1]) ** 2
    dcw = (mcw[0] - side[0]) ** 2 + (mcw[1] - side[1]) ** 2
    use_ccw = dccw <= dcw
  else:
    use_ccw = arc_ccw <= arc_cw
  if use_ccw:
    return arc_ccw, (r * pymath.cos(ccw0), r * pymath.sin(ccw0)), (r * pymath.cos(ccw1), r * pymath.sin(ccw1))
  return arc_cw, (r * pymath.cos(cw0), r * pymath.sin(cw0)), (r * pymath.cos(cw1), r * pymath.sin(cw1))


@njit(cache=True, error_model="numpy")
def wrap(m, d, g, side, p0, p1):
  """Wrap of a tendon from world point p0 to p1 over sphere or cylinder geom g (side site or -1).

  Returns (length of the wrapped part, tangent point 0, tangent point 1) in world coordinates, or a
  negative length when the tendon goes straight. A sphere is wrapped in the plane through its centre and
  the two points; a cylinder in its cross-section, the height rising in proportion to the path length.
  """
  pos = d.geom_xpos[g]
  mat = d.geom_xmat[g]
  r = m.geom_size[g, 0]
  a = math.mat_t_vec(mat, (p0[0] - pos[0], p0[1] - pos[1], p0[2] - pos[2]))
  b = math.mat_t_vec(mat, (p1[0] - pos[0], p1[1] - pos[1], p1[2] - pos[2]))
  has_side = side >= 0
  sd = (0.0, 0.0, 0.0)
  if has_side:
    sp = d.site_xpos[side]
    sd = math.mat_t_vec(mat, (sp[0] - pos[0], sp[1] - pos[1], sp[2] - pos[2]))
  is_sphere = m.geom_type[g] == GEOM_SPHERE
  # a side site inside the geom; for a cylinder, within its length too: MuJoCo does not wrap "inside" for a
  # side site beyond the cylinder's ends, although the wrap itself treats the cylinder as infinite
  if is_sphere:
    inside = has_side and sd[0] * sd[0] + sd[1] * sd[1] + sd[2] * sd[2] < r * r
  else:
    inside = has_side and sd[0] * sd[0] + sd[1] * sd[1] < r * r and abs(sd[2]) < m.geom_size[g, 1]
  zero = (0.0, 0.0, 0.0)
  if is_sphere:
    e1 = math.normalize3(a)
    n = math.cross(a, b)
    if math.dot3(n, n) < 1e-24:
      # the points are in line with the centre: any plane through them will do; prefer the side site's
      n = math.cross(a, sd) if has_side else math.cross(a, (1.0, 0.0, 0.0))
      if math.dot3(n, n) < 1e-24:
        n = math.cross(a, (0.0, 1.0, 0.0))
    e2 = math.normalize3(math.cross(n, e1))
    arc, t0, t1 = _wrap_circle((math.dot3(a, e1), math.dot3(a, e2)), (math.dot3(b, e1), math.dot3(b, e2)),
                               (math.dot3(sd, e1), math.dot3(sd, e2)), has_side, inside, r)
    if arc < 0.0:
      return -1.0, zero, zero
    l0 = (t0[0] * e1[0] + t0[1] * e2[0], t0[0] * e1[1] + t0[1] * e2[1], t0[0] * e1[2] + t0[1] * e2[2])
    l1 = (t1[0] * e1[0] + t1[1] * e2[0], t1[0] * e1[1] + t1[1] * e2[1], t1[0] * e1[2] + t1[1] * e2[2])
    length = r * arc
  else:
    arc, t0, t1 = _wrap_circle((a[0], a[1]), (b[0], b[1]), (sd[0], sd[1]), has_side, inside, r)
    if arc < 0.0:
      return -1.0, zero, zero
    s0 = pymath.sqrt((a[0] - t0[0]) ** 2 + (a[1] - t0[1]) ** 2)
    s1 = pymath.sqrt((b[0] - t1[0]) ** 2 + (b[1] - t1[1]) ** 2)
    total = s0 + r * arc + s1
    dz = b[2] - a[2]
    z0 = a[2] + dz * s0 / total
    z1 = a[2] + dz * (s0 + r * arc) / total
    l0 = (t0[0], t0[1], z0)
    l1 = (t1[0], t1[1], z1)
    length = pymath.sqrt((r * arc) ** 2 + (z1 - z0) ** 2)
  w0 = math.mat_vec(mat, l0)
  w1 = math.mat_vec(mat, l1)
  return (length, (w0[0] + pos[0], w0[1] + pos[1], w0[2] + pos[2]),
          (w1[0] + pos[0], w1[1] + pos[1], w1[2] + pos[2]))


# ------------------------------------------------------------------------------------------- muscles ----
# MuJoCo's muscle model (Modeling chapter, Muscles): prm = (range0, range1, force, scale, lmin, lmax, vmax,
# fpmax, fvmax); lengths are normalized so that range maps the lengthrange and the optimal length is 1.


@njit(cache=True, error_model="numpy")
def _muscle_scales(prm, lengthrange, acc0, length, velocity):
  """(peak force, normalized length, normalized velocity)."""
  l0 = (lengthrange[1] - lengthrange[0]) / max(MINVAL, prm[1] - prm[0])
  nlength = prm[0] + (length - lengthrange[0]) / max(MINVAL, l0)
  nvelocity = velocity / max(MINVAL, l0 * prm[6])
  force = prm[2] if prm[2] > 0 else prm[3] / max(MINVAL, acc0)
  return force, nlength, nvelocity


@njit(cache=True, error_model="numpy")
def _bump(x, lo, mid, hi):
  """A smooth bump of height 1 at mid, 0 outside (lo, hi): two quadratic halves each side."""
  if x <= lo or x >= hi:
    return 0.0
  if x < mid:
    a = 0.5 * (lo + mid)
    if x < a:
      y = (x - lo) / (a - lo)
      return 0.5 * y * y
    y = (mid - x) / (mid - a)
    return 1.0 - 0.5 * y * y
  b = 0.5 * (mid + hi)
  if x < b:
    y = (x - mid) / (b - mid)
    return 1.0 - 0.5 * y * y
  y = (hi - x) / (hi - b)
  return 0.5 * y * y


@njit(cache=True, error_model="numpy")
def _force_velocity(v, fvmax):
  c = fvmax - 1.0
  if v <= -1.0:
    return 0.0
  if v <= 0.0:
    return (v + 1.0) * (v + 1.0)
  if v <= c:
    return fvmax - (c - v) * (c - v) / max(MINVAL, c)
  return fvmax


@njit(cache=True, error_model="numpy")
def _passive(length, lmax, fpmax):
  b = 0.5 * (1.0 + lmax)
  if length <= 1.0:
    return 0.0
  if length <= b:
    x = (length - 1.0) / (b - 1.0)
    return 0.5 * fpmax * x * x
  # continued linearly with the slope it has at b
  x = (length - b) / (b - 1.0)
  return fpmax * (0.5 + x)


@njit(cache=True, error_model="numpy")
def muscle_gain(length, velocity, lengthrange, acc0, prm):
  """Active muscle gain: -F0 FL(length) FV(velocity)."""
  force, nl, nv = _muscle_scales(prm, lengthrange, acc0, length, velocity)
  return -force * _bump(nl, prm[4], 1.0, prm[5]) * _force_velocity(nv, prm[8])


@njit(cache=True, error_model="numpy")
def muscle_gain_vel(length, velocity, lengthrange, acc0, prm):
  """d(muscle_gain)/d(velocity), for the implicit integrators."""
  force, nl, nv = _muscle_scales(prm, lengthrange, acc0, length, velocity)
  c = prm[8] - 1.0
  if nv <= -1.0 or nv > c:
    dfv = 0.0
  elif nv <= 0.0:
    dfv = 2.0 * (nv + 1.0)
  else:
    dfv = 2.0 * (c - nv) / max(MINVAL, c)
  l0 = (lengthrange[1] - lengthrange[0]) / max(MINVAL, prm[1] - prm[0])
  return -force * _bump(nl, prm[4], 1.0, prm[5]) * dfv / max(MINVAL, l0 * prm[6])


@njit(cache=True, error_model="numpy")
def muscle_bias(length, lengthrange, acc0, prm):
  """Passive muscle force: -F0 FP(length)."""
  force, nl, _ = _muscle_scales(prm, lengthrange, acc0, length, 0.0)
  return -force * _passive(nl, prm[5], prm[7])


@njit(cache=True, error_model="numpy")
def _sigmoid(x):
  """Quintic smoothstep: 0 below 0, 1 above 1, C2 in between."""
  if x <= 0.0:
    return 0.0
  if x >= 1.0:
    return 1.0
  return x * x * x * (x * (6.0 * x - 15.0) + 10.0)


@njit(cache=True, error_model="numpy")
def muscle_dynamics(ctrl, act, prm):
  """act_dot of a muscle: faster activation than deactivation, both slowing with activation."""
  c = min(max(ctrl, 0.0), 1.0)
  a = min(max(act, 0.0), 1.0)
  tau_act = prm[0] * (0.5 + 1.5 * a)
  tau_deact = prm[1] / (0.5 + 1.5 * a)
  dctrl = c - act
  if prm[2] < MINVAL:
    tau = tau_act if dctrl > 0 else tau_deact
  else:
    # blend the two time constants smoothly across dctrl = 0
    tau = tau_deact + (tau_act - tau_deact) * _sigmoid(dctrl / prm[2] + 0.5)
  return dctrl / max(MINVAL, tau)


# ------------------------------------------------------- contact outputs ----


@njit(cache=True, error_model="numpy")
def contact_force(m, d, c, result):
  """result (6,) = force and torque of contact ``c`` in its frame (normal, tangents), like mj_contactForce."""
  result[:] = 0.0
  first = d.contact_efc_address[c]
  if first < 0:
    return
  dim = d.contact_dim[c]
  ctype = d.efc_type[first]
  if ctype == CNSTR_CONTACT_PYRAMIDAL:
    # edge pair k carries normal force f₊ + f₋ and friction μₖ (f₊ - f₋)
    for k in range(dim - 1):
      fp = d.efc_force[first + 2 * k]
      fm = d.efc_force[first + 2 * k + 1]
      result[0] += fp + fm
      result[k + 1] = d.contact_friction[c, k] * (fp - fm)
  else:
    for k in range(dim if ctype == CNSTR_CONTACT_ELLIPTIC else 1):
      result[k] = d.efc_force[first + k]


@njit(cache=True, error_model="numpy")
def add_contact_cfrc_ext(m, d):
  """cfrc_ext += the com-based wrenches of all geom-geom contact forces (on body2, and opposite on body1)."""
  for c in range(d.ncon[0]):
    # MuJoCo leaves flex contacts (a side with geom -1) out of cfrc_ext
    if d.contact_efc_address[c] < 0 or d.contact_geom2[c] < 0:
      continue
    f0 = f1 = f2 = t0 = t1 = t2 = 0.0
    frame = d.contact_frame[c]
    res = d.support_wrench
    contact_force(m, d, c, res)
    for k in range(3):
      f0 += frame[3 * k] * res[k]
      f1 += frame[3 * k + 1] * res[k]
      f2 += frame[3 * k + 2] * res[k]
      t0 += frame[3 * k] * res[3 + k]
      t1 += frame[3 * k + 1] * res[3 + k]
      t2 += frame[3 * k + 2] * res[3 + k]
    pos = d.contact_pos[c]
    for side in range(2):
      body = m.geom_bodyid[d.contact_geom2[c] if side == 0 else d.contact_geom1[c]]
      if body == 0:
        continue
      sign = 1.0 if side == 0 else -1.0
      com = d.subtree_com[m.body_rootid[body]]
      r = (pos[0] - com[0], pos[1] - com[1], pos[2] - com[2])
      rf = math.cross(r, (f0, f1, f2))
      d.cfrc_ext[body, 0] += sign * (t0 + rf[0])
      d.cfrc_ext[body, 1] += sign * (t1 + rf[1])
      d.cfrc_ext[body, 2] += sign * (t2 + rf[2])
      d.cfrc_ext[body, 3] += sign * f0
      d.cfrc_ext[body, 4] += sign * f1
      d.cfrc_ext[body, 5] += sign * f2


@njit(cache=True, error_model="numpy")
def moment_span(m, i):
  """(first, end): the columns of actuator i's moment row (``actuator_moment[i]``, (nv,)) that its transmission
  can make nonzero: its joint's dofs (1, 3 for a ball, 6 for a free joint) for a joint transmission, all nv
  for the others. MuJoCo stores the moment sparse; a loop over the span sees the same nonzeros in the same order
  as one over the whole row, without the structural zeros (17 x 23 entries for Gymnasium's humanoid, 17 used)."""
  trntype = m.actuator_trntype[i]
  if trntype == TrnType.JOINT or trntype == TrnType.JOINTINPARENT:
    j = m.actuator_trnid[i, 0]
    first = m.jnt_dofadr[j]
    jtype = m.jnt_type[j]
    return first, first + (6 if jtype == JNT_FREE else 3 if jtype == JNT_BALL else 1)
  return 0, m.nv


@njit(cache=True, error_model="numpy")
def _actuator_share(m, damping, actuatorid, tendon, target):
  """Sum of actuator_damping[k] gear_k² (``damping``) or actuator_armature[k] gear_k² over the actuators k that
  pass theirs to joint or tendon ``target`` (actuatorid: the one such actuator, -1 none, -2 several to look up).
  The array is taken from the Model here rather than passed in: with an array argument, even calls on a branch
  rarely taken kept dof_armature from staying a load and an add in crb's loop (humanoid crb 0.32 -> 0.42 µs)."""
  if actuatorid == -1:
    return 0.0
  values = m.actuator_damping if damping else m.actuator_armature
  if actuatorid >= 0:
    g = m.actuator_gear[actuatorid, 0]
    return values[actuatorid] * (g * g)
  total = 0.0
  for k in range(m.nu):
    trntype = m.actuator_trntype[k]
    if m.actuator_trnid[k, 0] != target:
      continue
    if tendon:
      if trntype != TrnType.TENDON:
        continue
    elif trntype != TrnType.JOINT and trntype != TrnType.JOINTINPARENT:
      continue
    g = m.actuator_gear[k, 0]
    total += values[k] * (g * g)
  return total


@njit(cache=True, error_model="numpy")
def joint_actuator_armature(m, j):
  """Armature joint j takes from its actuators (MuJoCo 4's actuator armature times gear²)."""
  return _actuator_share(m, False, m.jnt_actuatorid[j], False, j)


@njit(cache=True, error_model="numpy")
def joint_actuator_damping(m, j):
  """Damping joint j takes from its actuators (MuJoCo 4's actuator damping times gear²)."""
  return _actuator_share(m, True, m.jnt_actuatorid[j], False, j)


@njit(cache=True, error_model="numpy")
def dof_armature(m, i):
  """Armature of dof i: its joint's plus what the joint's actuators add (asked only of a joint with actuators
  that pass it on, so that the common case stays a load and an add wherever this is inlined, e.g. crb's loop)."""
  j = m.dof_jntid[i]
  share = 0.0 if m.jnt_actuatorid[j] == -1 else joint_actuator_armature(m, j)
  return m.dof_armature[i] + share


@njit(cache=True, error_model="numpy")
def dof_damping(m, i):
  """Damping of dof i: its joint's plus what the joint's actuators add (asked only of a joint with actuators that
  pass it on, as dof_armature)."""
  j = m.dof_jntid[i]
  share = 0.0 if m.jnt_actuatorid[j] == -1 else joint_actuator_damping(m, j)
  return m.dof_damping[i] + share


@njit(cache=True, error_model="numpy")
def tendon_damping(m, t):
  """Damping of tendon t: its own plus what its actuators add."""
  return m.tendon_damping[t] + tendon_actuator_damping(m, t)


@njit(cache=True, error_model="numpy")
def tendon_actuator_damping(m, t):
  """Damping tendon t takes from its actuators (MuJoCo 4's actuator damping times gear²)."""
  return _actuator_share(m, True, m.tendon_actuatorid[t], True, t)


@njit(cache=True, error_model="numpy")
def tendon_actuator_armature(m, t):
  """Armature tendon t takes from its actuators (MuJoCo 4's actuator armature times gear²)."""
  return _actuator_share(m, False, m.tendon_actuatorid[t], True, t)
