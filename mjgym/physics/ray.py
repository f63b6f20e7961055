"""Ray casting against geoms (plane, sphere, capsule, ellipsoid, cylinder, box, mesh).

Independent of the collision code: each geom is intersected in its own frame and the smallest
non-negative ray parameter wins. With a unit direction the parameter is the distance; a ray starting
inside a geom reports where it leaves it.
"""

import math as pymath

from numba import njit

from mjgym.physics import math
from mjgym.physics.types import GeomType

_NONE = -1.0


@njit(cache=True)
def _nearest(best, t):
  """The smaller of two ray parameters, where negative means no hit."""
  if t < 0.0:
    return best
  if best < 0.0 or t < best:
    return t
  return best


@njit(cache=True)
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


@njit(cache=True)
def _sphere(p, v, r):
  return _quadratic(math.dot3(v, v), math.dot3(p, v), math.dot3(p, p) - r * r)


@njit(cache=True)
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


@njit(cache=True)
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


@njit(cache=True)
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


@njit(cache=True)
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


@njit(cache=True)
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


@njit(cache=True)
def _mesh(m, p, v, meshid):
  best = _NONE
  vadr = m.mesh_vertadr[meshid]
  for f in range(m.mesh_faceadr[meshid], m.mesh_faceadr[meshid] + m.mesh_facenum[meshid]):
    face = m.mesh_face[f]
    t = _triangle(p, v, m.mesh_vert[vadr + face[0]], m.mesh_vert[vadr + face[1]], m.mesh_vert[vadr + face[2]])
    best = _nearest(best, t)
  return best


@njit(cache=True)
def ray_geom(m, d, g, pnt, vec):
  """Ray parameter t of the first hit of pnt + t vec with geom g (-1 if none)."""
  return ray_shape(m, m.geom_type[g], m.geom_size[g], d.geom_xpos[g], d.geom_xmat[g], m.geom_dataid[g], pnt, vec)


@njit(cache=True)
def ray_shape(m, gtype, size, pos, mat, meshid, pnt, vec):
  """Ray parameter t of the first hit of pnt + t vec with a shape of type gtype at pose (pos, mat)."""
  p = math.mat_t_vec(mat, (pnt[0] - pos[0], pnt[1] - pos[1], pnt[2] - pos[2]))
  v = math.mat_t_vec(mat, vec)
  if gtype == GeomType.PLANE:
    if abs(v[2]) < 1e-300:
      return _NONE
    t = -p[2] / v[2]
    if t < 0.0:
      return _NONE
    # a plane of positive size is a finite rectangle
    if (size[0] > 0.0 and abs(p[0] + t * v[0]) > size[0]) or (size[1] > 0.0 and abs(p[1] + t * v[1]) > size[1]):
      return _NONE
    return t
  if gtype == GeomType.SPHERE:
    return _sphere(p, v, size[0])
  if gtype == GeomType.CAPSULE:
    return _nearest(_disc_or_side(p, v, size[0], size[1]), _capsule_ends(p, v, size[0], size[1]))
  if gtype == GeomType.ELLIPSOID:
    ps = (p[0] / size[0], p[1] / size[1], p[2] / size[2])
    vs = (v[0] / size[0], v[1] / size[1], v[2] / size[2])
    return _sphere(ps, vs, 1.0)
  if gtype == GeomType.CYLINDER:
    return _nearest(_disc_or_side(p, v, size[0], size[1]), _caps(p, v, size[0], size[1]))
  if gtype == GeomType.BOX:
    return _box(p, v, size)
  if gtype == GeomType.MESH:
    return _mesh(m, p, v, meshid)
  return _NONE


@njit(cache=True)
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
