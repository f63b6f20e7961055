"""Ray casting against geoms (plane, height field, sphere, capsule, ellipsoid, cylinder, box, mesh).

Independent of the collision code: each geom is intersected in its own frame and the smallest
non-negative ray parameter wins. With a unit direction the parameter is the distance; a ray starting
inside a geom reports where it leaves it.
"""

import math as pymath

from numba import njit

from mjgym.physics import math
from mjgym.physics.constants import GEOM_BOX
from mjgym.physics.constants import GEOM_CAPSULE
from mjgym.physics.constants import GEOM_CYLINDER
from mjgym.physics.constants import GEOM_ELLIPSOID
from mjgym.physics.constants import GEOM_HFIELD
from mjgym.physics.constants import GEOM_MESH
from mjgym.physics.constants import GEOM_PLANE
from mjgym.physics.constants import GEOM_SPHERE
from mjgym.physics.types import MINVAL

_NONE = -1.0


@njit(cache=True, error_model="numpy")
def _nearest(best, t):
  """The smaller of two ray parameters, where negative means no hit."""
  if t < 0.0:
    return best
  if best < 0.0 or t < best:
    return t
  return best


@njit(cache=True, error_model="numpy")
def _quadratic(a, b, c):
  """Smallest non-negative root of a t² + 2 b t + c (-1 if none)."""
  if a < 1e-300:
    return _NONE
  det = b * b - a * c
  if det < 0.0:
    return _NONE
  s = pymath.sqrt(det)
  t1 = (-b - s) / a
  if t1 >= 0.0:
    return t1
  t2 = (-b + s) / a
  return t2 if t2 >= 0.0 else _NONE


@njit(cache=True, error_model="numpy")
def _sphere(p, v, r):
  return _quadratic(math.dot3(v, v), math.dot3(p, v), math.dot3(p, p) - r * r)


@njit(cache=True, error_model="numpy")
def _disc_or_side(p, v, r, h):
  """Hits of an open cylinder (radius r, half height h, axis z) and of its two end discs."""
  best = _NONE
  # side: x² + y² = r² within |z| <= h
  a = v[0] * v[0] + v[1] * v[1]
  b = p[0] * v[0] + p[1] * v[1]
  c = p[0] * p[0] + p[1] * p[1] - r * r
  if a > 1e-300:
    det = b * b - a * c
    if det >= 0.0:
      s = pymath.sqrt(det)
      for t in ((-b - s) / a, (-b + s) / a):
        if t >= 0.0 and abs(p[2] + t * v[2]) <= h:
          best = _nearest(best, t)
  return best


@njit(cache=True, error_model="numpy")
def _capsule_ends(p, v, r, h):
  """Hits of a capsule's two hemispherical ends (only the halves beyond the cylinder count)."""
  best = _NONE
  a = math.dot3(v, v)
  if a < 1e-300:
    return best
  for z in (-h, h):
    q = (p[0], p[1], p[2] - z)
    b = math.dot3(q, v)
    det = b * b - a * (math.dot3(q, q) - r * r)
    if det < 0.0:
      continue
    s = pymath.sqrt(det)
    for t in ((-b - s) / a, (-b + s) / a):
      if t >= 0.0 and (q[2] + t * v[2]) * z >= 0.0:
        best = _nearest(best, t)
  return best


@njit(cache=True, error_model="numpy")
def _caps(p, v, r, h):
  best = _NONE
  if abs(v[2]) > 1e-300:
    for z in (-h, h):
      t = (z - p[2]) / v[2]
      if t >= 0.0:
        x = p[0] + t * v[0]
        y = p[1] + t * v[1]
        if x * x + y * y <= r * r:
          best = _nearest(best, t)
  return best


@njit(cache=True, error_model="numpy")
def _box(p, v, size):
  best = _NONE
  for axis in range(3):
    if abs(v[axis]) < 1e-300:
      continue
    for sign in (-1.0, 1.0):
      t = (sign * size[axis] - p[axis]) / v[axis]
      if t < 0.0:
        continue
      inside = True
      for k in range(3):
        if k != axis and abs(p[k] + t * v[k]) > size[k]:
          inside = False
      if inside:
        best = _nearest(best, t)
  return best


@njit(cache=True, error_model="numpy")
def _triangle(p, v, a, b, c):
  """Ray parameter of the hit with triangle (a, b, c), either side (-1 if none)."""
  e1 = (b[0] - a[0], b[1] - a[1], b[2] - a[2])
  e2 = (c[0] - a[0], c[1] - a[1], c[2] - a[2])
  pv = math.cross(v, e2)
  det = math.dot3(e1, pv)
  if abs(det) < 1e-300:
    return _NONE
  inv = 1.0 / det
  s = (p[0] - a[0], p[1] - a[1], p[2] - a[2])
  u = math.dot3(s, pv) * inv
  if u < 0.0 or u > 1.0:
    return _NONE
  qv = math.cross(s, e1)
  w = math.dot3(v, qv) * inv
  if w < 0.0 or u + w > 1.0:
    return _NONE
  return math.dot3(e2, qv) * inv


@njit(cache=True, error_model="numpy")
def _mesh(m, p, v, meshid):
  best = _NONE
  vadr = m.mesh_vertadr[meshid]
  for f in range(m.mesh_faceadr[meshid], m.mesh_faceadr[meshid] + m.mesh_facenum[meshid]):
    face = m.mesh_face[f]
    t = _triangle(p, v, m.mesh_vert[vadr + face[0]], m.mesh_vert[vadr + face[1]], m.mesh_vert[vadr + face[2]])
    best = _nearest(best, t)
  return best


@njit(cache=True, error_model="numpy")
def _hfield_wall(m, hid, p, v, axis, side):
  """Hit of the outer wall of height field hid at local coordinate ``axis`` = side * radius, between z = 0 and
  the terrain's edge: the ray parameter and its outward normal axis sign (-1 if none)."""
  if abs(v[axis]) < 1e-300:
    return _NONE
  size = m.hfield_size[hid]
  t = (side * size[axis] - p[axis]) / v[axis]
  if t < 0.0:
    return _NONE
  z = p[2] + t * v[2]
  if z < 0.0 or z > size[2]:
    return _NONE
  other = 1 - axis
  u = p[other] + t * v[other]
  if abs(u) > size[other]:
    return _NONE
  nrow, ncol, adr = m.hfield_nrow[hid], m.hfield_ncol[hid], m.hfield_adr[hid]
  # The edge's vertices run along the other axis: columns along x (a wall at fixed y), rows along y.
  count = ncol if other == 0 else nrow
  step = 2.0 * size[other] / (count - 1)
  k = min(count - 2, max(0, int((u + size[other]) / step)))
  a = (u + size[other]) / step - k
  fixed = 0 if side < 0 else (nrow - 1 if axis == 1 else ncol - 1)
  if axis == 1:
    h0, h1 = m.hfield_data[adr + fixed * ncol + k], m.hfield_data[adr + fixed * ncol + k + 1]
  else:
    h0, h1 = m.hfield_data[adr + k * ncol + fixed], m.hfield_data[adr + (k + 1) * ncol + fixed]
  if z > ((1.0 - a) * h0 + a * h1) * size[2]:
    return _NONE
  return t


@njit(cache=True, error_model="numpy")
def _hfield_cell(m, hid, p, v, r, c, best, nrm):
  """The nearer of hit (best, nrm) and the hits of the two top triangles of cell (r, c), with its normal."""
  size = m.hfield_size[hid]
  ncol, adr = m.hfield_ncol[hid], m.hfield_adr[hid]
  dx, dy = 2.0 * size[0] / (ncol - 1), 2.0 * size[1] / (m.hfield_nrow[hid] - 1)
  xa, ya = c * dx - size[0], r * dy - size[1]
  xb, yb = xa + dx, ya + dy
  p00 = (xa, ya, m.hfield_data[adr + r * ncol + c] * size[2])
  p01 = (xb, ya, m.hfield_data[adr + r * ncol + c + 1] * size[2])
  p10 = (xa, yb, m.hfield_data[adr + (r + 1) * ncol + c] * size[2])
  p11 = (xb, yb, m.hfield_data[adr + (r + 1) * ncol + c + 1] * size[2])
  for tri in range(2):
    a, b, cc = (p00, p01, p11) if tri == 0 else (p00, p11, p10)
    t = _triangle(p, v, a, b, cc)
    if t >= 0.0 and (best < 0.0 or t < best):
      best = t
      n = math.cross((b[0] - a[0], b[1] - a[1], b[2] - a[2]), (cc[0] - a[0], cc[1] - a[1], cc[2] - a[2]))
      ln = pymath.sqrt(math.dot3(n, n))
      nrm = (n[0] / ln, n[1] / ln, n[2] / ln)
  return best, nrm


@njit(cache=True, error_model="numpy")
def _hfield(m, hid, p, v):
  """First hit of local ray p + t v with height field hid (the solid of its prisms down to -zbottom): the ray
  parameter (-1 if none) and the local unit normal there.

  Tested surfaces are the base box (z from -zbottom to 0), the outer walls up to the terrain's edge and the top
  triangles of the cells the ray passes over, walked strip by strip (columns, or rows for rays closer to y) in
  the ray's direction, so that the first strip with a hit holds the nearest one.
  """
  size = m.hfield_size[hid]
  rx, ry, top, bottom = size[0], size[1], size[2], size[3]
  nrm = (0.0, 0.0, 1.0)
  best = _box((p[0], p[1], p[2] + 0.5 * bottom), v, (rx, ry, 0.5 * bottom))
  if best >= 0.0:
    # The base face hit is the one along the axis of largest relative coordinate.
    rel = (abs(p[0] + best * v[0]) / rx, abs(p[1] + best * v[1]) / ry,
           abs(p[2] + 0.5 * bottom + best * v[2]) / (0.5 * bottom))
    if rel[2] >= rel[0] and rel[2] >= rel[1]:
      nrm = (0.0, 0.0, 1.0 if p[2] + best * v[2] > -0.5 * bottom else -1.0)
    elif rel[0] >= rel[1]:
      nrm = (1.0 if p[0] + best * v[0] > 0 else -1.0, 0.0, 0.0)
    else:
      nrm = (0.0, 1.0 if p[1] + best * v[1] > 0 else -1.0, 0.0)
  for axis in range(2):
    for side in (-1.0, 1.0):
      t = _hfield_wall(m, hid, p, v, axis, side)
      if t >= 0.0 and (best < 0.0 or t < best):
        best = t
        nrm = (side, 0.0, 0.0) if axis == 0 else (0.0, side, 0.0)
  # Ray parameters inside the box around the terrain (z from 0 to top).
  t0, t1 = 0.0, pymath.inf
  lo = (-rx, -ry, 0.0)
  hi = (rx, ry, top)
  for i in range(3):
    if abs(v[i]) < 1e-300:
      if p[i] < lo[i] or p[i] > hi[i]:
        return best, nrm
      continue
    ta, tb = (lo[i] - p[i]) / v[i], (hi[i] - p[i]) / v[i]
    t0, t1 = max(t0, min(ta, tb)), min(t1, max(ta, tb))
  if t0 > t1 or t1 == pymath.inf:
    return best, nrm
  nrow, ncol = m.hfield_nrow[hid], m.hfield_ncol[hid]
  step = (2.0 * rx / (ncol - 1), 2.0 * ry / (nrow - 1))
  ncell = (ncol - 1, nrow - 1)
  major = 0 if abs(v[0]) >= abs(v[1]) else 1
  minor = 1 - major
  # Strips of the major axis from the ray's entry to its exit.
  ka = min(ncell[major] - 1, max(0, int((p[major] + t0 * v[major] + size[major]) / step[major])))
  kb = min(ncell[major] - 1, max(0, int((p[major] + t1 * v[major] + size[major]) / step[major])))
  dk = 1 if kb >= ka else -1
  found, fnrm = _NONE, nrm
  for k in range(ka, kb + dk, dk):
    # The ray's stretch over strip k, then the minor-axis cells it crosses there.
    sa, sb = t0, t1
    if abs(v[major]) > 1e-300:
      ua = (k * step[major] - size[major] - p[major]) / v[major]
      ub = ((k + 1) * step[major] - size[major] - p[major]) / v[major]
      sa, sb = max(t0, min(ua, ub)), min(t1, max(ua, ub))
    wa, wb = p[minor] + sa * v[minor], p[minor] + sb * v[minor]
    ja = min(ncell[minor] - 1, max(0, int((min(wa, wb) + size[minor]) / step[minor])))
    jb = min(ncell[minor] - 1, max(0, int((max(wa, wb) + size[minor]) / step[minor])))
    for j in range(ja, jb + 1):
      r, c = (j, k) if major == 0 else (k, j)
      found, fnrm = _hfield_cell(m, hid, p, v, r, c, found, fnrm)
    if found >= 0.0:
      break
  if found >= 0.0 and (best < 0.0 or found < best):
    return found, fnrm
  return best, nrm


@njit(cache=True, error_model="numpy")
def ray_hfield(m, g, pos, mat, pnt, vec):
  """Ray parameter of the first hit of pnt + t vec with height field geom g at pose (pos(3), mat(9)) (-1 if
  none), and the world unit normal of the surface there."""
  p = math.mat_t_vec(mat, (pnt[0] - pos[0], pnt[1] - pos[1], pnt[2] - pos[2]))
  v = math.mat_t_vec(mat, vec)
  t, nrm = _hfield(m, m.geom_dataid[g], p, v)
  return t, math.mat_vec(mat, nrm)


@njit(cache=True, error_model="numpy")
def ray_geom(m, d, g, pnt, vec):
  """Ray parameter t of the first hit of pnt + t vec with geom g (-1 if none)."""
  return ray_shape(m, m.geom_type[g], m.geom_size[g], d.geom_xpos[g], d.geom_xmat[g], m.geom_dataid[g], pnt, vec)


@njit(cache=True, error_model="numpy")
def ray_shape(m, gtype, size, pos, mat, dataid, pnt, vec):
  """Ray parameter t of the first hit of pnt + t vec with a shape of type gtype at pose (pos, mat); dataid is the
  mesh or height field of those types."""
  p = math.mat_t_vec(mat, (pnt[0] - pos[0], pnt[1] - pos[1], pnt[2] - pos[2]))
  v = math.mat_t_vec(mat, vec)
  if gtype == GEOM_PLANE:
    # planes are seen from their front (+z) side only
    if v[2] > -MINVAL:
      return _NONE
    t = -p[2] / v[2]
    if t < 0.0:
      return _NONE
    # a plane of positive size is a finite rectangle
    if (size[0] > 0.0 and abs(p[0] + t * v[0]) > size[0]) or (size[1] > 0.0 and abs(p[1] + t * v[1]) > size[1]):
      return _NONE
    return t
  if gtype == GEOM_HFIELD:
    return _hfield(m, dataid, p, v)[0]
  if gtype == GEOM_SPHERE:
    return _sphere(p, v, size[0])
  if gtype == GEOM_CAPSULE:
    return _nearest(_disc_or_side(p, v, size[0], size[1]), _capsule_ends(p, v, size[0], size[1]))
  if gtype == GEOM_ELLIPSOID:
    ps = (p[0] / size[0], p[1] / size[1], p[2] / size[2])
    vs = (v[0] / size[0], v[1] / size[1], v[2] / size[2])
    return _sphere(ps, vs, 1.0)
  if gtype == GEOM_CYLINDER:
    return _nearest(_disc_or_side(p, v, size[0], size[1]), _caps(p, v, size[0], size[1]))
  if gtype == GEOM_BOX:
    return _box(p, v, size)
  if gtype == GEOM_MESH:
    return _mesh(m, p, v, dataid)
  return _NONE


@njit(cache=True, error_model="numpy")
def ray(m, d, pnt, vec, bodyexclude):
  """Distance along unit ``vec`` from ``pnt`` to the nearest visible geom not on ``bodyexclude`` (-1 if none).

  Fully transparent geoms (alpha 0) are invisible to rays, as in MuJoCo's mj_ray.
  """
  best = _NONE
  for g in range(m.ngeom):
    if m.geom_bodyid[g] == bodyexclude or m.geom_rgba[g, 3] == 0.0:
      continue
    best = _nearest(best, ray_geom(m, d, g, pnt, vec))
  return best
