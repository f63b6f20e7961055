"""Ray casting against geoms (plane, height field, sphere, capsule, ellipsoid, cylinder, box, mesh): mj_ray,
rangefinders and the renderer's rays.

Independent of the collision code: each geom is intersected in its own frame and the smallest ray parameter at
or beyond ``tmin`` (>= 0; 0 for mj_ray) wins, -1 meaning none. With a unit direction the parameter is the
distance; a ray starting inside a geom reports where it leaves it. Besides the parameter, a hit names the
element it met (``ray_local``): the mesh face, or the height-field surface whose normal ``hfield_normal`` gives.

The intersections read meshes and height fields from ``shape_tables(m)``, not from the model: the renderer's kernels
run without NRT, which reading a model's field needs. Every kernel here sets fastmath and NRT itself: numba
compiles a callee that leaves them unset with its caller's (the renderer's kernels run with fastmath), and keeps
one compiled version per signature, in the process and in the cache, so mj_ray would otherwise get the arithmetic
of whichever caller came first. The kernels that pass the tables on (ray_local, ray_shape, ...) are inlined into
their callers, each compiling its own copy, so that the tuple's arrays are not passed again on every call;
ray_local, the one the renderer inlines, only dispatches and indexes, so its copy there computes what mj_ray's
does.
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


@njit(cache=True, error_model="numpy", fastmath=False, _nrt=False)
def _nearest(best, t, tmin):
  """The smaller of two ray parameters at or beyond tmin, where a negative best means none yet."""
  if t < tmin:
    return best
  if best < 0.0 or t < best:
    return t
  return best


@njit(cache=True, error_model="numpy", fastmath=False, _nrt=False)
def _quadratic(a, b, c, tmin):
  """Smallest root at or beyond tmin of a t² + 2 b t + c (-1 if none)."""
  if a < 1e-300:
    return _NONE
  det = b * b - a * c
  if det < 0.0:
    return _NONE
  s = pymath.sqrt(det)
  t1 = (-b - s) / a
  if t1 >= tmin:
    return t1
  t2 = (-b + s) / a
  return t2 if t2 >= tmin else _NONE


@njit(cache=True, error_model="numpy", fastmath=False, _nrt=False)
def _sphere(p, v, r, tmin):
  return _quadratic(math.dot3(v, v), math.dot3(p, v), math.dot3(p, p) - r * r, tmin)


@njit(cache=True, error_model="numpy", fastmath=False, _nrt=False)
def _ellipsoid(p, v, size, tmin):
  # a unit sphere in coordinates scaled by the semi-axes; scaling keeps the ray parameter
  ps = (p[0] / size[0], p[1] / size[1], p[2] / size[2])
  vs = (v[0] / size[0], v[1] / size[1], v[2] / size[2])
  return _sphere(ps, vs, 1.0, tmin)


@njit(cache=True, error_model="numpy", fastmath=False, _nrt=False)
def _side(p, v, r, h, tmin):
  """Hit of the side of a cylinder (radius r, half height h, axis z), without its ends."""
  best = _NONE
  # x² + y² = r² within |z| <= h
  a = v[0] * v[0] + v[1] * v[1]
  b = p[0] * v[0] + p[1] * v[1]
  c = p[0] * p[0] + p[1] * p[1] - r * r
  if a > 1e-300:
    det = b * b - a * c
    if det >= 0.0:
      s = pymath.sqrt(det)
      for t in ((-b - s) / a, (-b + s) / a):
        if t >= tmin and abs(p[2] + t * v[2]) <= h:
          best = _nearest(best, t, tmin)
  return best


@njit(cache=True, error_model="numpy", fastmath=False, _nrt=False)
def _capsule_ends(p, v, r, h, tmin):
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
      if t >= tmin and (q[2] + t * v[2]) * z >= 0.0:
        best = _nearest(best, t, tmin)
  return best


@njit(cache=True, error_model="numpy", fastmath=False, _nrt=False)
def _caps(p, v, r, h, tmin):
  """Hits of a cylinder's two end discs."""
  best = _NONE
  if abs(v[2]) > 1e-300:
    for z in (-h, h):
      t = (z - p[2]) / v[2]
      if t >= tmin:
        x = p[0] + t * v[0]
        y = p[1] + t * v[1]
        if x * x + y * y <= r * r:
          best = _nearest(best, t, tmin)
  return best


@njit(cache=True, error_model="numpy", fastmath=False, _nrt=False)
def _box(p, v, size, tmin):
  best = _NONE
  for axis in range(3):
    if abs(v[axis]) < 1e-300:
      continue
    for sign in (-1.0, 1.0):
      t = (sign * size[axis] - p[axis]) / v[axis]
      if t < tmin:
        continue
      inside = True
      for k in range(3):
        if k != axis and abs(p[k] + t * v[k]) > size[k]:
          inside = False
      if inside:
        best = _nearest(best, t, tmin)
  return best


@njit(cache=True, error_model="numpy", fastmath=False, _nrt=False)
def _plane(p, v, size, tmin, two_sided):
  """Hit of the plane z = 0, seen from its front (+z) side only, as mj_ray sees it, or from both (the renderer
  draws the back face too); a plane of positive size is a finite rectangle."""
  if (abs(v[2]) < MINVAL) if two_sided else (v[2] > -MINVAL):
    return _NONE
  t = -p[2] / v[2]
  if t < tmin:
    return _NONE
  if (size[0] > 0.0 and abs(p[0] + t * v[0]) > size[0]) or (size[1] > 0.0 and abs(p[1] + t * v[1]) > size[1]):
    return _NONE
  return t


@njit(cache=True, error_model="numpy", fastmath=False, _nrt=False)
def triangle(p, v, a, b, c):
  """(t, u, w) of the hit of p + t v with triangle (a, b, c), either side: t of any sign (-1 if none), and the
  barycentric weights of b and c there (0 if none)."""
  e1 = (b[0] - a[0], b[1] - a[1], b[2] - a[2])
  e2 = (c[0] - a[0], c[1] - a[1], c[2] - a[2])
  pv = math.cross(v, e2)
  det = math.dot3(e1, pv)
  if abs(det) < 1e-300:
    return _NONE, 0.0, 0.0
  inv = 1.0 / det
  s = (p[0] - a[0], p[1] - a[1], p[2] - a[2])
  u = math.dot3(s, pv) * inv
  if u < 0.0 or u > 1.0:
    return _NONE, 0.0, 0.0
  qv = math.cross(s, e1)
  w = math.dot3(v, qv) * inv
  if w < 0.0 or u + w > 1.0:
    return _NONE, 0.0, 0.0
  return math.dot3(e2, qv) * inv, u, w


@njit(cache=True, error_model="numpy", fastmath=False, _nrt=True)
def shape_tables(m):
  """The model's mesh and height-field arrays that the intersections read, as one tuple (their first argument)."""
  return (m.mesh_vert, m.mesh_face, m.mesh_vertadr, m.mesh_faceadr, m.mesh_facenum, m.hfield_size, m.hfield_nrow,
          m.hfield_ncol, m.hfield_adr, m.hfield_data)


@njit(cache=True, error_model="numpy", fastmath=False, _nrt=False)
def mesh_triangle(tables, meshid, f, p, v):
  """triangle's (t, u, w) for face f (an index into mesh_face) of mesh meshid."""
  vert, face = tables[0], tables[1]
  vadr = tables[2][meshid]
  return triangle(p, v, vert[vadr + face[f, 0]], vert[vadr + face[f, 1]], vert[vadr + face[f, 2]])


@njit(cache=True, error_model="numpy", fastmath=False, _nrt=False)
def mesh(tables, meshid, p, v, tmin):
  """(t, face) of the first hit at or beyond tmin of local ray p + t v with mesh meshid; (-1, -1) if none."""
  best, hit = _NONE, -1
  fadr = tables[3][meshid]
  for f in range(fadr, fadr + tables[4][meshid]):
    t = mesh_triangle(tables, meshid, f, p, v)[0]
    nearer = _nearest(best, t, tmin)
    if nearer != best:
      best, hit = nearer, f
  return best, hit


# A height field's arrays are (size, nrow, ncol, data): its hfield_size row, its grid and its own hfield_data. A hit's
# element: 2 (r (ncol - 1) + c) + k for top triangle k of cell (r, c); -2 - (2 axis + s) for a face of the base box
# or an outer wall with outward normal along local axis, s = 1 on the positive side.


@njit(cache=True, error_model="numpy", fastmath=False, _nrt=False)
def _axis_code(axis, positive):
  return -2 - (2 * axis + (1 if positive else 0))


@njit(cache=True, error_model="numpy", fastmath=False, _nrt=False)
def _hfield_wall(size, nrow, ncol, data, p, v, axis, side, tmin):
  """Hit of the outer wall at local coordinate ``axis`` = side * radius, between z = 0 and the terrain's edge (-1
  if none)."""
  if abs(v[axis]) < 1e-300:
    return _NONE
  t = (side * size[axis] - p[axis]) / v[axis]
  if t < tmin:
    return _NONE
  z = p[2] + t * v[2]
  if z < 0.0 or z > size[2]:
    return _NONE
  other = 1 - axis
  u = p[other] + t * v[other]
  if abs(u) > size[other]:
    return _NONE
  # The edge's vertices run along the other axis: columns along x (a wall at fixed y), rows along y.
  count = ncol if other == 0 else nrow
  step = 2.0 * size[other] / (count - 1)
  k = min(count - 2, max(0, int((u + size[other]) / step)))
  a = (u + size[other]) / step - k
  fixed = 0 if side < 0 else (nrow - 1 if axis == 1 else ncol - 1)
  if axis == 1:
    h0, h1 = data[fixed * ncol + k], data[fixed * ncol + k + 1]
  else:
    h0, h1 = data[k * ncol + fixed], data[(k + 1) * ncol + fixed]
  if z > ((1.0 - a) * h0 + a * h1) * size[2]:
    return _NONE
  return t


@njit(cache=True, error_model="numpy", fastmath=False, _nrt=False)
def _hfield_corners(size, nrow, ncol, data, r, c):
  """The four corners (local) of cell (r, c): (x0, y0), (x1, y0), (x0, y1), (x1, y1)."""
  dx, dy = 2.0 * size[0] / (ncol - 1), 2.0 * size[1] / (nrow - 1)
  xa, ya = c * dx - size[0], r * dy - size[1]
  xb, yb = xa + dx, ya + dy
  return ((xa, ya, data[r * ncol + c] * size[2]), (xb, ya, data[r * ncol + c + 1] * size[2]),
          (xa, yb, data[(r + 1) * ncol + c] * size[2]), (xb, yb, data[(r + 1) * ncol + c + 1] * size[2]))


@njit(cache=True, error_model="numpy", fastmath=False, _nrt=False)
def _hfield_cell(size, nrow, ncol, data, p, v, r, c, best, code, tmin):
  """The nearer of hit (best, code) and the hits of the two top triangles of cell (r, c)."""
  p00, p01, p10, p11 = _hfield_corners(size, nrow, ncol, data, r, c)
  first = 2 * (r * (ncol - 1) + c)
  for tri in range(2):
    a, b, cc = (p00, p01, p11) if tri == 0 else (p00, p11, p10)
    t = triangle(p, v, a, b, cc)[0]
    if t >= tmin and (best < 0.0 or t < best):
      best, code = t, first + tri
  return best, code


@njit(cache=True, error_model="numpy", fastmath=False, _nrt=False)
def _hfield(size, nrow, ncol, data, p, v, tmin):
  """hfield on the height field's arrays."""
  rx, ry, top, bottom = size[0], size[1], size[2], size[3]
  code = -1
  best = _box((p[0], p[1], p[2] + 0.5 * bottom), v, (rx, ry, 0.5 * bottom), tmin)
  if best >= 0.0:
    # The base face hit is the one along the axis of largest relative coordinate.
    rel = (abs(p[0] + best * v[0]) / rx, abs(p[1] + best * v[1]) / ry,
           abs(p[2] + 0.5 * bottom + best * v[2]) / (0.5 * bottom))
    if rel[2] >= rel[0] and rel[2] >= rel[1]:
      code = _axis_code(2, p[2] + best * v[2] > -0.5 * bottom)
    elif rel[0] >= rel[1]:
      code = _axis_code(0, p[0] + best * v[0] > 0)
    else:
      code = _axis_code(1, p[1] + best * v[1] > 0)
  for axis in range(2):
    for side in (-1.0, 1.0):
      t = _hfield_wall(size, nrow, ncol, data, p, v, axis, side, tmin)
      if t >= 0.0 and (best < 0.0 or t < best):
        best = t
        code = _axis_code(axis, side > 0.0)
  # Ray parameters inside the box around the terrain (z from 0 to top).
  t0, t1 = tmin, pymath.inf
  lo = (-rx, -ry, 0.0)
  hi = (rx, ry, top)
  for i in range(3):
    if abs(v[i]) < 1e-300:
      if p[i] < lo[i] or p[i] > hi[i]:
        return best, code
      continue
    ta, tb = (lo[i] - p[i]) / v[i], (hi[i] - p[i]) / v[i]
    t0, t1 = max(t0, min(ta, tb)), min(t1, max(ta, tb))
  if t0 > t1 or t1 == pymath.inf:
    return best, code
  step = (2.0 * rx / (ncol - 1), 2.0 * ry / (nrow - 1))
  ncell = (ncol - 1, nrow - 1)
  major = 0 if abs(v[0]) >= abs(v[1]) else 1
  minor = 1 - major
  # Strips of the major axis from the ray's entry to its exit.
  ka = min(ncell[major] - 1, max(0, int((p[major] + t0 * v[major] + size[major]) / step[major])))
  kb = min(ncell[major] - 1, max(0, int((p[major] + t1 * v[major] + size[major]) / step[major])))
  dk = 1 if kb >= ka else -1
  found, fcode = _NONE, code
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
      found, fcode = _hfield_cell(size, nrow, ncol, data, p, v, r, c, found, fcode, tmin)
    if found >= 0.0:
      break
  if found >= 0.0 and (best < 0.0 or found < best):
    return found, fcode
  return best, code


@njit(cache=True, error_model="numpy", fastmath=False, _nrt=False, inline="always")
def _hfield_arrays(tables, hid):
  nrow, ncol, adr = tables[6][hid], tables[7][hid], tables[8][hid]
  return tables[5][hid], nrow, ncol, tables[9][adr:adr + nrow * ncol]


@njit(cache=True, error_model="numpy", fastmath=False, _nrt=False, inline="always")
def hfield(tables, hid, p, v, tmin):
  """(t, code) of the first hit at or beyond tmin of local ray p + t v with height field hid (the solid of its
  prisms down to -zbottom); (-1, -1) if none.

  Tested surfaces are the base box (z from -zbottom to 0), the outer walls up to the terrain's edge and the top
  triangles of the cells the ray passes over, walked strip by strip (columns, or rows for rays closer to y) in
  the ray's direction, so that the first strip with a hit holds the nearest one.
  """
  size, nrow, ncol, data = _hfield_arrays(tables, hid)
  return _hfield(size, nrow, ncol, data, p, v, tmin)


@njit(cache=True, error_model="numpy", fastmath=False, _nrt=False)
def hfield_normal(tables, hid, code):
  """Local unit normal (outward) of the surface of height field hid that a hit's ``code`` names."""
  if code < -1:
    axis, positive = (-2 - code) // 2, (-2 - code) % 2
    s = 1.0 if positive else -1.0
    return (s, 0.0, 0.0) if axis == 0 else ((0.0, s, 0.0) if axis == 1 else (0.0, 0.0, s))
  size, nrow, ncol, data = _hfield_arrays(tables, hid)
  cell = code // 2
  r = cell // (ncol - 1)
  p00, p01, p10, p11 = _hfield_corners(size, nrow, ncol, data, r, cell - r * (ncol - 1))
  a, b, c = (p00, p01, p11) if code % 2 == 0 else (p00, p11, p10)
  n = math.cross((b[0] - a[0], b[1] - a[1], b[2] - a[2]), (c[0] - a[0], c[1] - a[1], c[2] - a[2]))
  ln = pymath.sqrt(math.dot3(n, n))
  return (n[0] / ln, n[1] / ln, n[2] / ln)


@njit(cache=True, error_model="numpy", fastmath=False, _nrt=True)
def ray_hfield(m, g, pos, mat, pnt, vec):
  """Ray parameter of the first hit of pnt + t vec with height field geom g at pose (pos(3), mat(9)) (-1 if
  none), and the world unit normal of the surface there."""
  p = math.mat_t_vec(mat, (pnt[0] - pos[0], pnt[1] - pos[1], pnt[2] - pos[2]))
  v = math.mat_t_vec(mat, vec)
  hid = m.geom_dataid[g]
  arrays = shape_tables(m)
  t, code = hfield(arrays, hid, p, v, 0.0)
  nrm = hfield_normal(arrays, hid, code) if t >= 0.0 else (0.0, 0.0, 1.0)
  return t, math.mat_vec(mat, nrm)


@njit(cache=True, error_model="numpy", fastmath=False, _nrt=False, inline="always")
def ray_local(tables, gtype, size, dataid, p, v, tmin, two_sided):
  """(t, element) of the first hit at or beyond tmin of the local ray p + t v with a shape of type gtype, size
  ``size`` and mesh or height field ``dataid`` (of ``tables``): t = -1 if none; the element is the mesh face or the
  height-field code (hfield_normal), else -1. ``two_sided``: planes are hit from behind too."""
  if gtype == GEOM_PLANE:
    return _plane(p, v, size, tmin, two_sided), -1
  if gtype == GEOM_HFIELD:
    return hfield(tables, dataid, p, v, tmin)
  if gtype == GEOM_SPHERE:
    return _sphere(p, v, size[0], tmin), -1
  if gtype == GEOM_CAPSULE:
    return _nearest(_side(p, v, size[0], size[1], tmin), _capsule_ends(p, v, size[0], size[1], tmin), tmin), -1
  if gtype == GEOM_ELLIPSOID:
    return _ellipsoid(p, v, size, tmin), -1
  if gtype == GEOM_CYLINDER:
    return _nearest(_side(p, v, size[0], size[1], tmin), _caps(p, v, size[0], size[1], tmin), tmin), -1
  if gtype == GEOM_BOX:
    return _box(p, v, size, tmin), -1
  if gtype == GEOM_MESH:
    return mesh(tables, dataid, p, v, tmin)
  return _NONE, -1


@njit(cache=True, error_model="numpy", fastmath=False, _nrt=True, inline="always")
def ray_geom(tables, m, d, g, pnt, vec):
  """Ray parameter t of the first hit of pnt + t vec with geom g (-1 if none); ``tables``: shape_tables(m)."""
  return ray_shape(tables, m.geom_type[g], m.geom_size[g], d.geom_xpos[g], d.geom_xmat[g], m.geom_dataid[g], pnt,
                   vec)


@njit(cache=True, error_model="numpy", fastmath=False, _nrt=False, inline="always")
def ray_shape(tables, gtype, size, pos, mat, dataid, pnt, vec):
  """Ray parameter t of the first hit of pnt + t vec with a shape of type gtype at pose (pos, mat); dataid is the
  mesh or height field (of ``tables``) of those types."""
  p = math.mat_t_vec(mat, (pnt[0] - pos[0], pnt[1] - pos[1], pnt[2] - pos[2]))
  v = math.mat_t_vec(mat, vec)
  return ray_local(tables, gtype, size, dataid, p, v, 0.0, False)[0]


@njit(cache=True, error_model="numpy", fastmath=False, _nrt=True)
def ray(m, d, pnt, vec, bodyexclude):
  """Distance along unit ``vec`` from ``pnt`` to the nearest visible geom not on ``bodyexclude`` (-1 if none).

  Fully transparent geoms (alpha 0) are invisible to rays, as in MuJoCo's mj_ray.
  """
  best = _NONE
  tables = shape_tables(m)
  for g in range(m.ngeom):
    if m.geom_bodyid[g] == bodyexclude or m.geom_rgba[g, 3] == 0.0:
      continue
    best = _nearest(best, ray_geom(tables, m, d, g, pnt, vec), 0.0)
  return best
