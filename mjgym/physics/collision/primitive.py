"""Closed-form colliders for the common primitive pairs: planes, spheres, capsules, cylinders, ellipsoids, boxes.

Every collider has the signature ``f(m, d, g1, g2, margin, i0) -> n``: it writes its contacts at rows ``i0, i0 + 1,
...`` of the contact arrays (only those that fit below the capacity) and returns how many it found, so the driver can
report overflow. A contact is written as its distance (negative when penetrating), the midpoint between the two
surfaces and the normal, which points from geom1 to geom2 (the geom of the lower type is geom1).
"""

import math

from numba import njit

from mjgym.physics.math import add3
from mjgym.physics.math import add_scl3
from mjgym.physics.math import cross
from mjgym.physics.math import dot3
from mjgym.physics.math import frame_axis
from mjgym.physics.math import mat_t_vec
from mjgym.physics.math import mat_vec
from mjgym.physics.math import norm3
from mjgym.physics.math import scl3
from mjgym.physics.math import sub3
from mjgym.physics.math import vec3
from mjgym.physics.types import MINVAL


# --------------------------------------------------------------- contacts ----


@njit(cache=True, error_model="numpy")
def emit(d, i, dist, pos, normal):
  """Writes contact row i (when it fits): distance, position and normal with the tangents left to the driver."""
  if i >= d.contact_dist.shape[0]:
    return
  d.contact_dist[i] = dist
  for k in range(3):
    d.contact_pos[i, k] = pos[k]
    d.contact_frame[i, k] = normal[k]
    d.contact_frame[i, 3 + k] = 0.0
    d.contact_frame[i, 6 + k] = 0.0


@njit(cache=True, error_model="numpy")
def tangent(d, i, t):
  """Sets the first tangent hint of contact i (made orthogonal to the normal by the driver)."""
  if i < d.contact_dist.shape[0]:
    for k in range(3):
      d.contact_frame[i, 3 + k] = t[k]


@njit(cache=True, error_model="numpy")
def _spheres(d, c1, r1, c2, r2, margin, i0):
  """Two spheres; also the core of every pair that reduces to the closest points of segments."""
  delta = sub3(c2, c1)
  length = norm3(delta)
  dist = length - r1 - r2
  if dist > margin:
    return 0
  if length < MINVAL:
    # Concentric: any direction separates them equally well; x is MuJoCo's choice.
    n = (1.0, 0.0, 0.0)
  else:
    n = scl3(delta, 1.0 / length)
  emit(d, i0, dist, add_scl3(c1, n, r1 + 0.5 * dist), n)
  return 1


# ----------------------------------------------------------------- plane ----


@njit(cache=True, error_model="numpy")
def _plane(d, g):
  mat = d.geom_xmat[g]
  return vec3(d.geom_xpos[g]), frame_axis(mat, 2)


@njit(cache=True, error_model="numpy")
def _plane_point(d, i, p0, n, point, margin):
  """A point below (or within margin of) the plane: contact at the midpoint of the point and its projection."""
  dist = dot3(sub3(point, p0), n)
  if dist > margin:
    return 0
  emit(d, i, dist, add_scl3(point, n, -0.5 * dist), n)
  return 1


@njit(cache=True, error_model="numpy")
def plane_sphere(m, d, g1, g2, margin, i0):
  """Plane and sphere."""
  p0, n = _plane(d, g1)
  r = m.geom_size[g2, 0]
  return _plane_point(d, i0, p0, n, add_scl3(vec3(d.geom_xpos[g2]), n, -r), margin)


@njit(cache=True, error_model="numpy")
def plane_capsule(m, d, g1, g2, margin, i0):
  """Plane and capsule: one contact for each end cap."""
  p0, n = _plane(d, g1)
  c = vec3(d.geom_xpos[g2])
  a = frame_axis(d.geom_xmat[g2], 2)
  r, h = m.geom_size[g2, 0], m.geom_size[g2, 1]
  cnt = 0
  for s in (1.0, -1.0):
    end = add_scl3(add_scl3(c, a, s * h), n, -r)
    if _plane_point(d, i0 + cnt, p0, n, end, margin):
      # The capsule's axis is the first tangent: friction directions follow the capsule.
      tangent(d, i0 + cnt, a)
      cnt += 1
  return cnt


@njit(cache=True, error_model="numpy")
def plane_ellipsoid(m, d, g1, g2, margin, i0):
  """Plane and ellipsoid: the ellipsoid's support point against the plane normal."""
  p0, n = _plane(d, g1)
  mat = d.geom_xmat[g2]
  s = m.geom_size[g2]
  nl = mat_t_vec(mat, n)
  # Support of x'S^-2 x <= 1 in direction -n: -S^2 n / |S n|.
  sn = (s[0] * nl[0], s[1] * nl[1], s[2] * nl[2])
  k = -1.0 / norm3(sn)
  local = (s[0] * sn[0] * k, s[1] * sn[1] * k, s[2] * sn[2] * k)
  return _plane_point(d, i0, p0, n, add3(vec3(d.geom_xpos[g2]), mat_vec(mat, local)), margin)


@njit(cache=True, error_model="numpy")
def plane_cylinder(m, d, g1, g2, margin, i0):
  """Plane and cylinder: the deepest rim point, the rim point below it on the other cap, and two more on its cap."""
  p0, n = _plane(d, g1)
  c = vec3(d.geom_xpos[g2])
  mat = d.geom_xmat[g2]
  a = frame_axis(mat, 2)
  r, h = m.geom_size[g2, 0], m.geom_size[g2, 1]
  proj = dot3(n, a)
  if proj > 0:
    a = scl3(a, -1.0)
    proj = -proj
  # Direction within the caps that points most against the normal.
  v = sub3(scl3(a, proj), n)
  length = norm3(v)
  if length < MINVAL:
    v = scl3(frame_axis(mat, 0), r)
  else:
    v = scl3(v, r / length)
  dist0 = dot3(sub3(c, p0), n)
  pv = dot3(v, n)
  dist1 = dist0 + proj * h + pv
  if dist1 > margin:
    return 0
  cap = add_scl3(c, a, h)
  emit(d, i0, dist1, add_scl3(add3(cap, v), n, -0.5 * dist1), n)
  cnt = 1
  dist2 = dist0 - proj * h + pv
  if dist2 <= margin:
    emit(d, i0 + cnt, dist2, add_scl3(add3(add_scl3(c, a, -h), v), n, -0.5 * dist2), n)
    cnt += 1
  # The other two corners of an equilateral triangle inscribed in the near cap.
  dist3 = dist0 + proj * h - 0.5 * pv
  if dist3 <= margin:
    w = scl3(cross(v, a), 0.5 * math.sqrt(3.0))
    base = add_scl3(cap, v, -0.5)
    for s in (1.0, -1.0):
      emit(d, i0 + cnt, dist3, add_scl3(add_scl3(base, w, s), n, -0.5 * dist3), n)
      cnt += 1
  return cnt


@njit(cache=True, error_model="numpy")
def plane_box(m, d, g1, g2, margin, i0):
  """Plane and box: the first four corners, in corner order (x, then y, then z, each - before +), within margin of
  the plane and on the plane's side of the box center; MuJoCo's choice and order, also its arithmetic."""
  p0, n = _plane(d, g1)
  c = vec3(d.geom_xpos[g2])
  mat = d.geom_xmat[g2]
  s = m.geom_size[g2]
  center = dot3(sub3(c, p0), n)
  cnt = 0
  for k in range(8):
    offset = mat_vec(mat, (s[0] if k & 1 else -s[0], s[1] if k & 2 else -s[1], s[2] if k & 4 else -s[2]))
    below = dot3(n, offset)
    if center + below > margin or below > 0:
      continue
    dist = center + below
    emit(d, i0 + cnt, dist, add_scl3(add3(offset, c), n, -dist / 2), n)
    cnt += 1
    if cnt == 4:
      break
  return cnt


@njit(cache=True, error_model="numpy")
def plane_mesh(m, d, g1, g2, margin, i0):
  """Plane and mesh: the deepest hull vertex, then the other corners of one hull polygon at it (up to 4 contacts).

  The polygon (``mesh_polyvert``) is the one at the deepest vertex (``mesh_polymap``) whose outward normal
  (``mesh_polynormal``) points most against the plane normal, and its corners follow the deepest one in the polygon's
  counter-clockwise order, each kept when within margin and nearer to the plane than the geom's center (this drops
  corners when the hull is deep in the plane), until there are 4 contacts. This is MuJoCo's choice, measured with the
  ``mujoco`` package, for polygons of up to 4 corners (a box-shaped mesh gets 4 contacts); of a larger polygon MuJoCo
  keeps 4 corners by a rule not reproduced here. One difference remains on random hulls: MuJoCo's hull builder also
  merges some adjacent, nearly coplanar triangles into one polygon (30 of 400 random 24-point hulls, see
  tests/test_mesh.py), whose fourth corner is then a candidate; our polygons merge only triangles in one plane. Given
  MuJoCo's polygons, this collider matches all 20 hulls of benchmarks/collision_agreement.py exactly.
  """
  p0, n = _plane(d, g1)
  c = vec3(d.geom_xpos[g2])
  mat = d.geom_xmat[g2]
  nl = mat_t_vec(mat, n)
  off = dot3(sub3(c, p0), n)
  mid = m.geom_dataid[g2]
  vadr, vnum = m.mesh_vertadr[mid], m.mesh_vertnum[mid]
  # Hull vertices are the mesh vertices on a polygon.
  deep, deepd = -1, math.inf
  for k in range(vnum):
    if m.mesh_polymapnum[vadr + k] == 0:
      continue
    dk = off + dot3(vec3(m.mesh_vert[vadr + k]), nl)
    if dk < deepd:
      deep, deepd = k, dk
  if deep < 0 or deepd > margin:
    return 0
  p = add3(c, mat_vec(mat, vec3(m.mesh_vert[vadr + deep])))
  emit(d, i0, deepd, add_scl3(p, n, -0.5 * deepd), n)
  padr = m.mesh_polyadr[mid]
  madr = m.mesh_polymapadr[vadr + deep]
  best, bestc = -1, math.inf
  for j in range(madr, madr + m.mesh_polymapnum[vadr + deep]):
    q = padr + m.mesh_polymap[j]
    cosine = dot3(vec3(m.mesh_polynormal[q]), nl)
    if cosine < bestc:
      best, bestc = q, cosine
  if best < 0:
    return 1
  a, num = m.mesh_polyvertadr[best], m.mesh_polyvertnum[best]
  # deep is on every polygon its polymap lists; the bound keeps mesh data edited out of step from running away
  j = 0
  while j < num and m.mesh_polyvert[a + j] != deep:
    j += 1
  if j == num:
    return 1
  cnt = 1
  for step in range(1, num):
    if cnt == 4:
      break
    k = m.mesh_polyvert[a + (j + step) % num]
    height = dot3(vec3(m.mesh_vert[vadr + k]), nl)
    dk = off + height
    # MuJoCo skips corners that are no nearer to the plane than the geom's center.
    if dk <= margin and height < 0.0:
      p = add3(c, mat_vec(mat, vec3(m.mesh_vert[vadr + k])))
      emit(d, i0 + cnt, dk, add_scl3(p, n, -0.5 * dk), n)
      cnt += 1
  return cnt


# ---------------------------------------------------- spheres and capsules ----


@njit(cache=True, error_model="numpy")
def _segment(m, d, g):
  c = vec3(d.geom_xpos[g])
  a = scl3(frame_axis(d.geom_xmat[g], 2), m.geom_size[g, 1])
  return c, a


@njit(cache=True, error_model="numpy")
def _closest_on_segment(c, a, p):
  """Closest point to p on the segment c +- a."""
  aa = dot3(a, a)
  if aa < MINVAL:
    return c
  t = min(1.0, max(-1.0, dot3(sub3(p, c), a) / aa))
  return add_scl3(c, a, t)


@njit(cache=True, error_model="numpy")
def sphere_sphere(m, d, g1, g2, margin, i0):
  """Sphere and sphere."""
  return _spheres(d, vec3(d.geom_xpos[g1]), m.geom_size[g1, 0], vec3(d.geom_xpos[g2]), m.geom_size[g2, 0],
                  margin, i0)


@njit(cache=True, error_model="numpy")
def sphere_capsule(m, d, g1, g2, margin, i0):
  """Sphere and capsule: the sphere against the closest point of the capsule's segment."""
  p = vec3(d.geom_xpos[g1])
  c, a = _segment(m, d, g2)
  return _spheres(d, p, m.geom_size[g1, 0], _closest_on_segment(c, a, p), m.geom_size[g2, 0], margin, i0)


@njit(cache=True, error_model="numpy")
def capsule_capsule(m, d, g1, g2, margin, i0):
  """Capsule and capsule, as MuJoCo: spheres at the closest points of the two segments, the segment parameters
  x1, x2 in [-1, 1] (each clamped in turn); parallel segments give up to two contacts, at the ends of the stretch
  where they face each other."""
  c1, a1 = _segment(m, d, g1)
  c2, a2 = _segment(m, d, g2)
  return segments(d, c1, a1, m.geom_size[g1, 0], c2, a2, m.geom_size[g2, 0], margin, i0, 0.0)


@njit(cache=True, error_model="numpy")
def segments(d, c1, a1, r1, c2, a2, r2, margin, i0, parallel):
  """capsule_capsule on raw capsules (centre c, half axis a, radius r); also flex segments (collision/flex.py). The
  segments count as parallel when det < MINVAL or sin^2 of their angle < ``parallel``."""
  dif = sub3(c1, c2)
  ma, mb, mc = dot3(a1, a1), -dot3(a1, a2), dot3(a2, a2)
  u, v = -dot3(a1, dif), dot3(a2, dif)
  det = ma * mc - mb * mb
  if abs(det) >= MINVAL and abs(det) >= parallel * ma * mc:
    x1 = (mc * u - mb * v) / det
    x2 = (ma * v - mb * u) / det
    if x1 > 1:
      x1 = 1.0
      x2 = (v - mb) / mc
    elif x1 < -1:
      x1 = -1.0
      x2 = (v + mb) / mc
    if x2 > 1:
      x2 = 1.0
      x1 = min(1.0, max(-1.0, (u - mb) / ma))
    elif x2 < -1:
      x2 = -1.0
      x1 = min(1.0, max(-1.0, (u + mb) / ma))
    return _spheres(d, add_scl3(c1, a1, x1), r1, add_scl3(c2, a2, x2), r2, margin, i0)
  # Parallel: the stretch of segment 1 facing segment 2 (the ends of segment 2 projected on segment 1, clamped to
  # it; the nearer end twice where they do not overlap), each of its two ends against its closest point on
  # segment 2, the lower parameter first. MuJoCo 4's contacts (measured: the overlap's ends, as points of segment 1).
  p, q = (u - mb) / ma, (u + mb) / ma  # segment 1's parameters of segment 2's ends (x2 = +1, x2 = -1)
  n = 0
  for raw, end in ((p, 1.0), (q, -1.0)) if p <= q else ((q, -1.0), (p, 1.0)):
    x1 = min(1.0, max(-1.0, raw))
    if parallel > 0.0 and x1 == raw:
      # nearly parallel flex segments: an end of segment 2 facing segment 1 is itself the second point (MuJoCo 4,
      # measured: the normal stays square to segment 1)
      x2 = end
    else:
      x2 = min(1.0, max(-1.0, (v - mb * x1) / mc))
    n += _spheres(d, add_scl3(c1, a1, x1), r1, add_scl3(c2, a2, x2), r2, margin, i0 + n)
  return n


# ------------------------------------------------------- sphere vs solids ----


@njit(cache=True, error_model="numpy")
def sphere_box(m, d, g1, g2, margin, i0):
  """Sphere and box."""
  return ball_box(d, vec3(d.geom_xpos[g1]), m.geom_size[g1, 0], vec3(d.geom_xpos[g2]), d.geom_xmat[g2], m.geom_size[g2],
                  margin, i0)


@njit(cache=True, error_model="numpy")
def ball_box(d, p, r, c, mat, s, margin, i0):
  """Ball (center p, radius r) and box: nearest box point to the center, or the nearest face when it is inside."""
  local = mat_t_vec(mat, sub3(p, c))
  clamped = (min(s[0], max(-s[0], local[0])), min(s[1], max(-s[1], local[1])), min(s[2], max(-s[2], local[2])))
  delta = sub3(clamped, local)
  length = norm3(delta)
  if length > MINVAL:
    dist = length - r
    if dist > margin:
      return 0
    n = mat_vec(mat, scl3(delta, 1.0 / length))
  else:
    # Center inside: leave through the face with the least penetration.
    k, depth = 0, s[0] - abs(local[0])
    for j in (1, 2):
      dj = s[j] - abs(local[j])
      if dj < depth:
        k, depth = j, dj
    dist = -depth - r
    if dist > margin:
      return 0
    sign = -1.0 if local[k] >= 0 else 1.0
    n = scl3(frame_axis(mat, k), sign)
  emit(d, i0, dist, add_scl3(p, n, r + 0.5 * dist), n)
  return 1


@njit(cache=True, error_model="numpy")
def sphere_cylinder(m, d, g1, g2, margin, i0):
  """Sphere and cylinder: nearest point of the solid cylinder, or the nearest side or cap when inside."""
  p = vec3(d.geom_xpos[g1])
  r = m.geom_size[g1, 0]
  c = vec3(d.geom_xpos[g2])
  mat = d.geom_xmat[g2]
  rc, h = m.geom_size[g2, 0], m.geom_size[g2, 1]
  local = mat_t_vec(mat, sub3(p, c))
  rho = math.sqrt(local[0] * local[0] + local[1] * local[1])
  if rho > MINVAL:
    radial = (local[0] / rho, local[1] / rho, 0.0)
  else:
    radial = (1.0, 0.0, 0.0)
  inside_side = rho <= rc
  inside_cap = abs(local[2]) <= h
  if inside_side and inside_cap:
    side, cap = rc - rho, h - abs(local[2])
    if side < cap:
      ln, dist = scl3(radial, -1.0), -side - r
    else:
      ln, dist = (0.0, 0.0, -1.0 if local[2] >= 0 else 1.0), -cap - r
  else:
    q = (radial[0] * min(rho, rc), radial[1] * min(rho, rc), min(h, max(-h, local[2])))
    delta = sub3(q, local)
    length = norm3(delta)
    ln, dist = scl3(delta, 1.0 / length), length - r
  if dist > margin:
    return 0
  n = mat_vec(mat, ln)
  emit(d, i0, dist, add_scl3(p, n, r + 0.5 * dist), n)
  return 1
