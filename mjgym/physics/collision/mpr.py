"""The general convex collider of models that disable ``nativeccd``: Minkowski Portal Refinement, as MuJoCo runs it.

With ``<flag nativeccd="disable"/>`` MuJoCo hands convex pairs to libccd's MPR instead of its own GJK/EPA. MPR does
not find the minimum penetration: it casts a ray from a point inside the Minkowski difference M = A - B (the
difference of the geoms' centers) through the origin and refines a triangular portal on M's boundary until the ray's
exit face is within ``opt.ccd_tolerance``; the depth and normal are those of the portal's point nearest the origin.
For deep overlaps of long shapes this differs from EPA's minimum by a lot, so these models need MPR itself. The
shapes enter whole (a sphere's radius, a capsule's), each grown by half the pair's margin; ``opt.ccd_iterations``
bounds the penetration phase, and the contact point is the midpoint of the two shapes' points at the portal
weights of the origin.

A contact's normal is then corrected on curved geoms (spheres, capsules, ellipsoids, the side of cylinders) to the
surface normal at the contact point (``fix_normal``). Unless ``multiccd`` is disabled, a pair of non-spherical
geoms looks for more contacts by rotating geom1 by +-1e-3 rad and geom2 the other way about the contact point, around
the two tangent axes of the first contact: each new point farther than 1e-3 of the smaller bounding radius from the
points already found is kept, with the first contact's distance.

MPR's steps follow libccd 2.1 (the version MuJoCo builds with), down to its tolerance tests against machine epsilon
(``_zero``, ``_eq``), because the depth of a deep overlap depends on which portal the refinement ends with. Unlike
libccd, the two portal searches stop after a bounded number of steps (libccd loops until its tests pass).
"""

import math

from numba import njit

from mjgym.physics.collision.primitive import emit
from mjgym.physics.constants import DSBL_MULTICCD
from mjgym.physics.constants import GEOM_BOX
from mjgym.physics.constants import GEOM_CAPSULE
from mjgym.physics.constants import GEOM_CYLINDER
from mjgym.physics.constants import GEOM_ELLIPSOID
from mjgym.physics.constants import GEOM_MESH
from mjgym.physics.constants import GEOM_SPHERE
from mjgym.physics.math import add3
from mjgym.physics.math import cross
from mjgym.physics.math import dot3
from mjgym.physics.math import mat_t_vec
from mjgym.physics.math import mat_vec
from mjgym.physics.math import norm3
from mjgym.physics.math import scl3
from mjgym.physics.math import sub3

_EPS = 2.220446049250313e-16  # libccd's CCD_EPS in double precision
_MINVAL = 1e-15
_ORIGIN = (0.0, 0.0, 0.0)
# Portal searches that have not settled after this many steps give up (no contact); libccd has no bound.
_MAX_SEARCH = 1000
_PERTURBATION = 1e-3  # rad, and the relative distance of a distinct multi-contact point


@njit(cache=True, error_model="numpy")
def _zero(x):
  return abs(x) < _EPS


@njit(cache=True, error_model="numpy")
def _eq(a, b):
  """libccd's equality: within machine epsilon, absolutely near zero and relatively elsewhere."""
  ab = abs(a - b)
  if ab < _EPS:
    return True
  return ab < _EPS * max(abs(a), abs(b))


@njit(cache=True, error_model="numpy")
def _vec_eq(a, b):
  return _eq(a[0], b[0]) and _eq(a[1], b[1]) and _eq(a[2], b[2])


@njit(cache=True, error_model="numpy")
def _unit(v):
  """v scaled by the reciprocal of its length (libccd's normalization, bit for bit)."""
  k = 1.0 / math.sqrt(dot3(v, v))
  return (v[0] * k, v[1] * k, v[2] * k)


@njit(cache=True, error_model="numpy")
def _sign(x):
  return 1.0 if x > 0 else (-1.0 if x < 0 else 0.0)


@njit(cache=True, error_model="numpy")
def _support(m, sh, u):
  """The point of a whole geom farthest along unit u, grown by half the margin: sh = (type, pos, mat, size, first
  hull vertex, hull vertex count, margin). Faces and edges perpendicular to u give their middle (sign 0)."""
  t, pos, mat, s, adr, num, margin = sh
  lu = mat_t_vec(mat, u)
  if t == GEOM_SPHERE:
    r = scl3(lu, s[0])
  elif t == GEOM_CAPSULE:
    r = (lu[0] * s[0], lu[1] * s[0], lu[2] * s[0] + _sign(lu[2]) * s[1])
  elif t == GEOM_ELLIPSOID:
    e = (lu[0] * s[0], lu[1] * s[1], lu[2] * s[2])
    n = norm3(e)
    if n < _MINVAL:
      e = (1.0, 0.0, 0.0)
    else:
      e = scl3(e, 1.0 / n)
    r = (e[0] * s[0], e[1] * s[1], e[2] * s[2])
  elif t == GEOM_CYLINDER:
    rho = math.sqrt(lu[0] * lu[0] + lu[1] * lu[1])
    if rho > _MINVAL:
      r = (lu[0] / rho * s[0], lu[1] / rho * s[0], _sign(lu[2]) * s[1])
    else:
      r = (0.0, 0.0, _sign(lu[2]) * s[1])
  elif t == GEOM_BOX:
    r = (_sign(lu[0]) * s[0], _sign(lu[1]) * s[1], _sign(lu[2]) * s[2])
  else:  # mesh: the first hull vertex of largest projection
    hull = m.mesh_hullvert
    best, bestv = adr, -math.inf
    for k in range(adr, adr + num):
      v = lu[0] * hull[k, 0] + lu[1] * hull[k, 1] + lu[2] * hull[k, 2]
      if v > bestv:
        best, bestv = k, v
    r = (hull[best, 0], hull[best, 1], hull[best, 2])
  h = 0.5 * margin
  r = (r[0] + lu[0] * h, r[1] + lu[1] * h, r[2] + lu[2] * h)
  return add3(mat_vec(mat, r), pos)


@njit(cache=True, error_model="numpy")
def _point(m, s1, s2, u):
  """Point of M = A - B along unit u: (the point of M, A's point along u, B's point along -u)."""
  a = _support(m, s1, u)
  b = _support(m, s2, (-u[0], -u[1], -u[2]))
  return (sub3(a, b), a, b)


@njit(cache=True, error_model="numpy")
def _portal_dir(v1, v2, v3):
  """Outward unit normal of the portal (v1, v2, v3)."""
  return _unit(cross(sub3(v2[0], v1[0]), sub3(v3[0], v1[0])))


@njit(cache=True, error_model="numpy")
def _reached(v1, v2, v3, v4, u, tol):
  """Whether the new support point v4 lies within tol of the portal along u."""
  d4 = dot3(v4[0], u)
  d = min(min(d4 - dot3(v1[0], u), d4 - dot3(v2[0], u)), d4 - dot3(v3[0], u))
  return _eq(d, tol) or d < tol


@njit(cache=True, error_model="numpy")
def _expand(v0, v1, v2, v3, v4):
  """The portal with v4 in place of the vertex whose side of the ray it falls on."""
  c = cross(v4[0], v0[0])
  if dot3(v1[0], c) > 0:
    if dot3(v2[0], c) > 0:
      return v4, v2, v3
    return v1, v2, v4
  if dot3(v3[0], c) > 0:
    return v1, v4, v3
  return v4, v2, v3


@njit(cache=True, error_model="numpy")
def _segment_dist2(a, b):
  """Squared distance from the origin to segment ab and the nearest point (libccd's rounding tests)."""
  d = sub3(b, a)
  t = -dot3(a, d) / dot3(d, d)
  if t < 0 or _zero(t):
    return dot3(a, a), a
  if t > 1 or _eq(t, 1.0):
    return dot3(b, b), b
  w = add3(scl3(d, t), a)
  return dot3(w, w), w


@njit(cache=True, error_model="numpy")
def _triangle_dist2(a, b, c):
  """Squared distance from the origin to triangle abc and the nearest point."""
  d1, d2 = sub3(b, a), sub3(c, a)
  v, w = dot3(d1, d1), dot3(d2, d2)
  p, q, r = dot3(a, d1), dot3(a, d2), dot3(d1, d2)
  det = w * v - r * r
  if _zero(det):
    s = t = -1.0
  else:
    s = (q * r - w * p) / det
    t = (-s * r - q) / w
  if ((_zero(s) or s > 0) and (_eq(s, 1.0) or s < 1) and (_zero(t) or t > 0) and (_eq(t, 1.0) or t < 1)
      and (_eq(t + s, 1.0) or t + s < 1)):
    x = add3(add3(a, scl3(d1, s)), scl3(d2, t))
    return dot3(x, x), x
  best, x = _segment_dist2(a, b)
  d, y = _segment_dist2(a, c)
  if d < best:
    best, x = d, y
  d, y = _segment_dist2(b, c)
  if d < best:
    best, x = d, y
  return best, x


@njit(cache=True, error_model="numpy")
def _position(v0, v1, v2, v3):
  """Midpoint of the two shapes' points at the barycentric weights of the origin in the portal's tetrahedron."""
  u = _portal_dir(v1, v2, v3)
  b0 = dot3(cross(v1[0], v2[0]), v3[0])
  b1 = dot3(cross(v3[0], v2[0]), v0[0])
  b2 = dot3(cross(v0[0], v1[0]), v3[0])
  b3 = dot3(cross(v2[0], v1[0]), v0[0])
  total = b0 + b1 + b2 + b3
  if _zero(total) or total < 0:
    b0 = 0.0
    b1 = dot3(cross(v2[0], v3[0]), u)
    b2 = dot3(cross(v3[0], v1[0]), u)
    b3 = dot3(cross(v1[0], v2[0]), u)
    total = b1 + b2 + b3
  inv = 1.0 / total
  p1, p2 = _ORIGIN, _ORIGIN
  for v, b in ((v0, b0), (v1, b1), (v2, b2), (v3, b3)):
    p1 = add3(p1, scl3(v[1], b))
    p2 = add3(p2, scl3(v[2], b))
  p1, p2 = scl3(p1, inv), scl3(p2, inv)
  return scl3(add3(p1, p2), 0.5)


@njit(cache=True, error_model="numpy")
def penetration(m, s1, s2, tol, iterations):
  """MPR on two shapes (see ``_support``): (found, depth, unit normal from A to B, contact point). A touching pair
  (zero depth) counts as not found, as MuJoCo drops it."""
  none = (False, 0.0, _ORIGIN, _ORIGIN)
  # Portal discovery. v0: a point inside M, moved off the origin when it falls on it.
  c1, c2 = s1[1], s2[1]
  v0 = (sub3(c1, c2), c1, c2)
  if _vec_eq(v0[0], _ORIGIN):
    v0 = (add3(v0[0], (_EPS * 10.0, 0.0, 0.0)), c1, c2)
  u = _unit(scl3(v0[0], -1.0))
  v1 = _point(m, s1, s2, u)
  dt = dot3(v1[0], u)
  if _zero(dt) or dt < 0:
    return none
  u = cross(v0[0], v1[0])
  if _zero(dot3(u, u)):
    if _vec_eq(v1[0], _ORIGIN):
      return none  # touching at v1
    # The origin lies on the segment v0-v1: the depth is v1's distance.
    depth = math.sqrt(dot3(v1[0], v1[0]))
    return True, depth, _unit(v1[0]), scl3(add3(v1[1], v1[2]), 0.5)
  u = _unit(u)
  v2 = _point(m, s1, s2, u)
  dt = dot3(v2[0], u)
  if _zero(dt) or dt < 0:
    return none
  u = _unit(cross(sub3(v1[0], v0[0]), sub3(v2[0], v0[0])))
  if dot3(u, v0[0]) > 0:
    v1, v2 = v2, v1
    u = scl3(u, -1.0)
  found = False
  v3 = v2
  for _ in range(_MAX_SEARCH):
    v3 = _point(m, s1, s2, u)
    dt = dot3(v3[0], u)
    if _zero(dt) or dt < 0:
      return none
    moved = False
    dt = dot3(cross(v1[0], v3[0]), v0[0])
    if dt < 0 and not _zero(dt):
      v2 = v3
      moved = True
    if not moved:
      dt = dot3(cross(v3[0], v2[0]), v0[0])
      if dt < 0 and not _zero(dt):
        v1 = v3
        moved = True
    if not moved:
      found = True
      break
    u = _unit(cross(sub3(v1[0], v0[0]), sub3(v2[0], v0[0])))
  if not found:
    return none
  # Portal refinement: until the origin is behind the portal.
  found = False
  for _ in range(_MAX_SEARCH):
    u = _portal_dir(v1, v2, v3)
    dt = dot3(u, v1[0])
    if _zero(dt) or dt > 0:
      found = True
      break
    v4 = _point(m, s1, s2, u)
    dt = dot3(v4[0], u)
    if not (_zero(dt) or dt > 0) or _reached(v1, v2, v3, v4, u, tol):
      return none
    v1, v2, v3 = _expand(v0, v1, v2, v3, v4)
  if not found:
    return none
  # Penetration: push the portal out to M's boundary along its normal.
  it = 0
  while True:
    u = _portal_dir(v1, v2, v3)
    v4 = _point(m, s1, s2, u)
    if _reached(v1, v2, v3, v4, u, tol) or it > iterations:
      depth2, x = _triangle_dist2(v1[0], v2[0], v3[0])
      depth = math.sqrt(depth2)
      if _zero(depth):
        return none
      return True, depth, _unit(x), _position(v0, v1, v2, v3)
    v1, v2, v3 = _expand(v0, v1, v2, v3, v4)
    it += 1


@njit(cache=True, error_model="numpy")
def _shape(m, d, g, margin, pos, mat):
  adr = num = 0
  if m.geom_type[g] == GEOM_MESH:
    mid = m.geom_dataid[g]
    adr, num = m.mesh_hulladr[mid], m.mesh_hullnum[mid]
  s = m.geom_size
  return (m.geom_type[g], pos, mat, (s[g, 0], s[g, 1], s[g, 2]), adr, num, margin)


@njit(cache=True, error_model="numpy")
def _pose(d, g):
  p, r = d.geom_xpos, d.geom_xmat
  return ((p[g, 0], p[g, 1], p[g, 2]),
          (r[g, 0], r[g, 1], r[g, 2], r[g, 3], r[g, 4], r[g, 5], r[g, 6], r[g, 7], r[g, 8]))


@njit(cache=True, error_model="numpy")
def _normal_of(m, d, g, p, n):
  """Surface normal (world) of curved geom g near world point p, starting from outward guess n; (ok, normal)."""
  t = m.geom_type[g]
  pos, mat = _pose(d, g)
  s = m.geom_size[g]
  lp = mat_t_vec(mat, sub3(p, pos))
  ln = mat_t_vec(mat, n)
  if t == GEOM_SPHERE:
    ln = lp
  elif t == GEOM_CAPSULE:
    z = 0.0
    if lp[2] < -s[1]:
      z = lp[2] + s[1]
    elif lp[2] > s[1]:
      z = lp[2] - s[1]
    ln = (lp[0], lp[1], z)
  elif t == GEOM_ELLIPSOID:
    if s[0] < _MINVAL or s[1] < _MINVAL or s[2] < _MINVAL:
      return False, n
    e = lp[0] * lp[0] / (s[0] * s[0]) + lp[1] * lp[1] / (s[1] * s[1]) + lp[2] * lp[2] / (s[2] * s[2])
    if e <= 1:
      ok, ln = _ellipsoid_inside(ln, lp, s)
    else:
      ok, ln = True, _ellipsoid_outside(lp, s)
    if not ok:
      return False, n
  elif t == GEOM_CYLINDER:
    if abs(lp[2]) > 0.95 * s[1]:
      return False, n
    flat = abs(s[1] - abs(lp[2]))
    rnd = abs(s[0] - math.sqrt(lp[0] * lp[0] + lp[1] * lp[1]))
    if flat < 0.25 * rnd:
      return False, n
    ln = (lp[0], lp[1], 0.0)
  else:
    return False, n
  ln = _normalize(ln)
  return True, mat_vec(mat, ln)


@njit(cache=True, error_model="numpy")
def _normalize(v):
  """v over its length, or (1, 0, 0) when shorter than 1e-15 (MuJoCo's normalization)."""
  n = norm3(v)
  if n < _MINVAL:
    return (1.0, 0.0, 0.0)
  k = 1.0 / n
  return (v[0] * k, v[1] * k, v[2] * k)


@njit(cache=True, error_model="numpy")
def _ellipsoid_inside(n, p, s):
  """Normal of the ellipsoid where the ray from inside point p along n leaves it, iterated to a fixed point."""
  inv = (1.0 / (s[0] * s[0]), 1.0 / (s[1] * s[1]), 1.0 / (s[2] * s[2]))
  c = p[0] * p[0] * inv[0] + p[1] * p[1] * inv[1] + p[2] * p[2] * inv[2] - 1
  if c > 0:
    return False, n
  n = _normalize(n)
  for it in range(30):
    a = n[0] * n[0] * inv[0] + n[1] * n[1] * inv[1] + n[2] * n[2] * inv[2]
    b = p[0] * n[0] * inv[0] + p[1] * n[1] * inv[1] + p[2] * n[2] * inv[2]
    det = b * b - a * c
    if det < _MINVAL or a < _MINVAL:
      return it > 0, n
    x = (-b + math.sqrt(det)) / a
    if x < 0:
      return it > 0, n
    q = (p[0] + n[0] * x, p[1] + n[1] * x, p[2] + n[2] * x)
    nn = _normalize((q[0] * inv[0], q[1] * inv[1], q[2] * inv[2]))
    change = norm3(sub3(n, nn))
    n = nn
    if change < 1e-6:
      break
  return True, n


@njit(cache=True, error_model="numpy")
def _ellipsoid_outside(p, s):
  """Normal of the ellipsoid at the point nearest outside point p (Newton on the Lagrange multiplier)."""
  s2 = (s[0] * s[0], s[1] * s[1], s[2] * s[2])
  ps2 = (p[0] * p[0] * s2[0], p[1] * p[1] * s2[1], p[2] * p[2] * s2[2])
  la = 0.0
  for _ in range(30):
    r = (1.0 / (s2[0] + la), 1.0 / (s2[1] + la), 1.0 / (s2[2] + la))
    val = ps2[0] * r[0] * r[0] + ps2[1] * r[1] * r[1] + ps2[2] * r[2] * r[2] - 1
    if val < 1e-6:
      break
    der = -2 * (ps2[0] * r[0] ** 3 + ps2[1] * r[1] ** 3 + ps2[2] * r[2] ** 3)
    if der > -_MINVAL:
      break
    delta = -val / der
    if delta < 1e-6:
      break
    la += delta
  return (p[0] / (s2[0] + la), p[1] / (s2[1] + la), p[2] / (s2[2] + la))


@njit(cache=True, error_model="numpy")
def fix_normal(m, d, g1, g2, p, n):
  """The contact normal n (from g1 to g2) at point p replaced by the surface normals of curved geoms."""
  ok1, n1 = _normal_of(m, d, g1, p, n)
  ok2, n2 = _normal_of(m, d, g2, p, scl3(n, -1.0))
  if ok1 and ok2:
    return _normalize(sub3(n1, n2))
  if ok1:
    return n1
  if ok2:
    return scl3(n2, -1.0)
  return n


@njit(cache=True, error_model="numpy")
def _rotation(axis, angle):
  """Rotation matrix (row-major 9-tuple) of angle about unit axis, through the quaternion as MuJoCo builds it."""
  s = math.sin(angle * 0.5)
  w, x, y, z = math.cos(angle * 0.5), axis[0] * s, axis[1] * s, axis[2] * s
  ww, xx, yy, zz = w * w, x * x, y * y, z * z
  # The diagonal summed in mujoco 4's pairs (as math.quat_to_mat): one rounding apart here, a perturbed contact of
  # two flat faces lands elsewhere on the face.
  return ((ww - yy) + (xx - zz), 2 * (x * y - w * z), 2 * (x * z + w * y),
          2 * (x * y + w * z), (ww + yy) - (xx + zz), 2 * (y * z - w * x),
          2 * (x * z - w * y), 2 * (y * z + w * x), (ww - yy) - (xx - zz))


@njit(cache=True, error_model="numpy")
def _rotated(pos, mat, origin, rot):
  """Pose (pos, mat) rotated by rot about the world point origin."""
  cols = (mat_vec(rot, (mat[0], mat[3], mat[6])), mat_vec(rot, (mat[1], mat[4], mat[7])),
          mat_vec(rot, (mat[2], mat[5], mat[8])))
  new = (cols[0][0], cols[1][0], cols[2][0], cols[0][1], cols[1][1], cols[2][1], cols[0][2], cols[1][2], cols[2][2])
  rel = sub3(origin, pos)
  shift = sub3(mat_vec(rot, rel), rel)
  return sub3(pos, shift), new


@njit(cache=True, error_model="numpy")
def _transpose(r):
  return (r[0], r[3], r[6], r[1], r[4], r[7], r[2], r[5], r[8])


@njit(cache=True, error_model="numpy")
def _tangents(n):
  """The two tangent axes MuJoCo completes a contact frame with (y from (0,1,0) or (0,0,1), z = n x y)."""
  y = (0.0, 1.0, 0.0) if -0.5 < n[1] < 0.5 else (0.0, 0.0, 1.0)
  y = _normalize(sub3(y, scl3(n, dot3(n, y))))
  return y, cross(n, y)


@njit(cache=True, error_model="numpy")
def convex(m, d, g1, g2, margin, i0):
  """Two convex geoms (no height field) by MPR, with the perturbed extra contacts: the number of contacts."""
  pos1, mat1 = _pose(d, g1)
  pos2, mat2 = _pose(d, g2)
  tol, iterations = m.opt_ccd_tolerance[0], m.opt_ccd_iterations[0]
  hit, depth, n, p = penetration(m, _shape(m, d, g1, margin, pos1, mat1), _shape(m, d, g2, margin, pos2, mat2), tol,
                                 iterations)
  if not hit:
    return 0
  n = fix_normal(m, d, g1, g2, p, n)
  dist = margin - depth
  emit(d, i0, dist, p, n)
  t1, t2 = m.geom_type[g1], m.geom_type[g2]
  if ((m.opt_disableflags[0] & DSBL_MULTICCD) != 0 or t1 == GEOM_SPHERE or t1 == GEOM_ELLIPSOID
      or t2 == GEOM_SPHERE or t2 == GEOM_ELLIPSOID):
    return 1
  distinct = _PERTURBATION * min(m.geom_rbound[g1], m.geom_rbound[g2])
  ax1, ax2 = _tangents(_normalize(n))
  found = (p, p, p, p, p)
  cnt = 1
  for k in range(4):
    axis = ax1 if k < 2 else ax2
    rot = _rotation(axis, -_PERTURBATION if k % 2 == 0 else _PERTURBATION)
    q1, r1 = _rotated(pos1, mat1, p, rot)
    q2, r2 = _rotated(pos2, mat2, p, _transpose(rot))
    hit, depth, nk, pk = penetration(m, _shape(m, d, g1, margin, q1, r1), _shape(m, d, g2, margin, q2, r2), tol,
                                     iterations)
    if not hit:
      continue
    nk = fix_normal(m, d, g1, g2, pk, nk)
    new = True
    for j in range(cnt):
      if norm3(sub3(found[j], pk)) <= distinct:
        new = False
    if new:
      emit(d, i0 + cnt, dist, pk, nk)
      found = (found[0], pk if cnt == 1 else found[1], pk if cnt == 2 else found[2], pk if cnt == 3 else found[3],
               pk if cnt == 4 else found[4])
      cnt += 1
  return cnt
