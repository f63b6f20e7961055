"""MuJoCo 4's builtin meshes (``<mesh builtin="..." params="...">``): their vertices and faces as MuJoCo's compiler
makes them, before the mesh processing every mesh goes through.

MuJoCo keeps user vertices in single precision: each generator computes in double and rounds each coordinate to
float32 where MuJoCo does, and the icosphere's subdivision computes in float32 throughout, as MuJoCo's does.
"""

import math

import numpy as np

# MuJoCo 4.0.0 accepts these names; mjgym builds the first five.
BUILT = ("sphere", "hemisphere", "cone", "supersphere", "supertorus")
# wedge and plate carry per-vertex frames (user normals, for the tactile sensor); the others are flexcomp-like grids
REFUSED = ("wedge", "plate", "grid", "box", "cylinder", "ellipsoid", "square", "disc")

_PI = math.pi  # mjPI, the same double

_ICOSAHEDRON_FACES = (0, 11, 5, 0, 5, 1, 0, 1, 7, 0, 7, 10, 0, 10, 11, 1, 5, 9, 5, 11, 4, 11, 10, 2, 10, 7, 6, 7, 1,
                      8, 3, 9, 4, 3, 4, 2, 3, 2, 6, 3, 6, 8, 3, 8, 9, 4, 9, 5, 2, 4, 11, 6, 2, 10, 8, 6, 7, 9, 8, 1)


class BuiltinError(ValueError):
  """A builtin mesh's parameters are out of MuJoCo's bounds (the message says which)."""


def make(kind, params):
  """(vertices (n, 3) float32, faces (k, 3) int64, possibly (0, 3): the convex hull's then) of builtin ``kind``."""
  count = {"sphere": 1, "hemisphere": 1, "cone": 2, "supersphere": 3, "supertorus": 4}[kind]
  if len(params) != count:
    raise BuiltinError(f"{kind} mesh type requires {count} parameter{'s' if count > 1 else ''}, got {len(params)}")
  if kind == "sphere":
    return _sphere(_bounded_int(params[0], 0, 4, "sphere subdivision"))
  if kind == "hemisphere":
    return _hemisphere(_bounded_int(params[0], 0, 10, "hemisphere resolution"))
  if kind == "cone":
    return _cone(int(params[0]), params[1])
  if kind == "supersphere":
    res, e, n = int(params[0]), params[1], params[2]
    if res < 3:
      raise BuiltinError(f"supersphere resolution must be greater than 2, got {res}")
    if e < 0 or n < 0:
      raise BuiltinError(f"supersphere 'e' and 'n' cannot be negative, got {e} and {n}")
    return _supersphere(res, e, n)
  res, radius, s, t = int(params[0]), params[1], params[2], params[3]
  if res < 3:
    raise BuiltinError(f"supertorus resolution must be at least 3, got {res}")
  if not 0 < radius <= 1:
    raise BuiltinError(f"supertorus radius must be in (0, 1], got {radius}")
  if s <= 0 or t <= 0:
    raise BuiltinError(f"supertorus 's' and 't' must be positive, got {s} and {t}")
  return _supertorus(res, radius, s, t)


def _bounded_int(value, lo, hi, what):
  k = int(value)
  if not lo <= k <= hi:
    raise BuiltinError(f"{what} must be in [{lo}, {hi}], got {k}")
  return k


def _faces(face):
  return np.asarray(face, np.int64).reshape(-1, 3)


def _sphere(subdiv):
  """An icosahedron subdivided ``subdiv`` times, each new midpoint pushed onto the unit sphere."""
  f32 = np.float32
  phi = f32((1.0 + math.sqrt(5.0)) / 2.0)
  base = [-1.0, phi, 0.0, 1.0, phi, 0.0, -1.0, -phi, 0.0, 1.0, -phi, 0.0,
          0.0, -1.0, phi, 0.0, 1.0, phi, 0.0, -1.0, -phi, 0.0, 1.0, -phi,
          phi, 0.0, -1.0, phi, 0.0, 1.0, -phi, 0.0, -1.0, -phi, 0.0, 1.0]
  norm = math.sqrt(1.0 + float(phi) * float(phi))
  vert = [np.array([f32(float(base[3 * i + k]) / norm) for k in range(3)], f32) for i in range(12)]
  face = list(_ICOSAHEDRON_FACES)
  for _ in range(subdiv):
    cache = {}

    def midpoint(a, b, cache=cache):
      key = (min(a, b), max(a, b))
      if key not in cache:
        mid = (vert[a] + vert[b]) / f32(2.0)
        mid = mid / np.sqrt(mid[0] * mid[0] + mid[1] * mid[1] + mid[2] * mid[2])
        cache[key] = len(vert)
        vert.append(mid.astype(f32))
      return cache[key]

    refined = []
    for j in range(0, len(face), 3):
      v1, v2, v3 = face[j:j + 3]
      m12, m23, m31 = midpoint(v1, v2), midpoint(v2, v3), midpoint(v3, v1)
      refined += [v1, m12, m31, v2, m23, m12, v3, m31, m23, m12, m23, m31]
    face = refined
  return np.array(vert, f32), _faces(face)


def _hemisphere(res):
  """The upper unit hemisphere from a subdivided square pyramid (rows of points from the pole to the equator, each
  pushed onto the sphere) and a bottom cap fanned from its centre."""
  north = (0.0, 0.0, 1.0)
  equator = ((1.0, 0.0, 0.0), (0.0, 1.0, 0.0), (-1.0, 0.0, 0.0), (0.0, -1.0, 0.0))
  vert = [north]
  for row in range(res + 1):
    for side in range(4):
      factor = (row + 1) / (res + 1)
      start = [north[i] + factor * (equator[side][i] - north[i]) for i in range(3)]
      end = [north[i] + factor * (equator[(side + 1) % 4][i] - north[i]) for i in range(3)]
      delta = [(end[i] - start[i]) / (row + 1) for i in range(3)]
      for i in range(row + 1):
        p = [start[j] + i * delta[j] for j in range(3)]
        norm = math.sqrt(p[0] * p[0] + p[1] * p[1] + p[2] * p[2])
        vert.append((p[0] / norm, p[1] / norm, p[2] / norm))
  vert.append((0.0, 0.0, 0.0))
  nvert = len(vert)
  face = [0, 1, 2, 0, 2, 3, 0, 3, 4, 0, 4, 1]
  for row in range(res):
    start_curr = 2 * row * (row + 1) + 1
    count_curr = 4 * (row + 1)
    start_next = start_curr + count_curr
    count_next = 4 * (row + 2)
    for side in range(4):
      for i in range(row + 2):
        v_curr = i + (row + 1) * side
        v_next = i + (row + 2) * side
        face += [start_curr + v_curr % count_curr, start_next + v_next % count_next,
                 start_next + (v_next + 1) % count_next]
        if i < row + 1:
          face += [start_curr + v_curr % count_curr, start_next + (v_next + 1) % count_next,
                   start_curr + (v_curr + 1) % count_curr]
  start = 2 * res * (res + 1) + 1
  count = 4 * (res + 1)
  for i in range(count):
    face += [start + i, nvert - 1, start + (i + 1) % count]
  return np.array(vert, np.float32), _faces(face)


def _cone(nedge, radius):
  """A prism-like frustum: a regular ``nedge``-gon at z = -1 (unit circumradius) and one of ``radius`` at z = 1, or
  the apex (0, 0, 1) for a radius <= 0; no faces (the convex hull's)."""
  vert = [(math.cos(2 * i * _PI / nedge), math.sin(2 * i * _PI / nedge), -1.0) for i in range(nedge)]
  if radius > 0:
    # the top ring's angles continue from nedge on, as MuJoCo computes them
    vert += [(radius * math.cos(2 * i * _PI / nedge), radius * math.sin(2 * i * _PI / nedge), 1.0)
             for i in range(nedge, 2 * nedge)]
  else:
    vert.append((0.0, 0.0, 1.0))
  return np.array(vert, np.float32), np.zeros((0, 3), np.int64)


def _aux_c(omega, m):
  c = math.cos(omega)
  return math.copysign(math.pow(abs(c), m), c)


def _aux_s(omega, m):
  s = math.sin(omega)
  return math.copysign(math.pow(abs(s), m), s)


def _supersphere(res, e, n):
  """A superellipsoid of exponents e (around z) and n (along z): the poles and res - 1 rings of res points."""
  vert = [(0.0, 0.0, -1.0)]
  for i in range(1, res):
    v = -_PI / 2 + i * _PI / res
    for j in range(res):
      u = -_PI + j * 2 * _PI / res
      vert.append((_aux_c(v, n) * _aux_c(u, e), _aux_c(v, n) * _aux_s(u, e), _aux_s(v, n)))
  vert.append((0.0, 0.0, 1.0))
  nvert = len(vert)
  face = []
  for j in range(res):
    face += [0, 1 + (j + 1) % res, 1 + j]
  for i in range(res - 2):
    for j in range(res):
      v1 = 1 + i * res + j
      v2 = 1 + i * res + (j + 1) % res
      v4 = 1 + (i + 1) * res + j
      v3 = 1 + (i + 1) * res + (j + 1) % res
      face += [v1, v2, v4, v2, v3, v4]
  last = 1 + (res - 2) * res
  for j in range(res):
    face += [last + j, last + (j + 1) % res, nvert - 1]
  return np.array(vert, np.float32), _faces(face)


def _supertorus(res, radius, s, t):
  """A supertoroid of tube ``radius`` (the ring's is 1) and exponents s (tube) and t (ring): res x res points."""
  vert = []
  for i in range(res):
    for j in range(res):
      u = 2 * _PI * i / res
      v = 2 * _PI * j / res
      vert.append(((1 + radius * _aux_c(v, s)) * _aux_c(u, t), (1 + radius * _aux_c(v, s)) * _aux_s(u, t),
                   radius * _aux_s(v, s)))
  face = []
  for i in range(res):
    for j in range(res):
      i_next, j_next = (i + 1) % res, (j + 1) % res
      v1, v2, v3, v4 = i * res + j, i_next * res + j, i_next * res + j_next, i * res + j_next
      face += [v1, v2, v4, v2, v3, v4]
  return np.array(vert, np.float32), _faces(face)
