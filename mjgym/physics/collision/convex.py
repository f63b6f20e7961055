"""General convex collider: GJK for the distance of separated shapes, EPA for the depth of overlapping ones.

Both work on the Minkowski difference M = B - A of geom2 (B) and geom1 (A), known only through its support
function. Separated: the point of M closest to the origin is the vector from A's witness point to B's, so its
length is the distance and its direction the normal. Overlapping: EPA grows a polytope inside M until the face
nearest the origin lies on M's boundary; that face's distance is the depth and its outward normal points from B to A.
The contact sits at the midpoint of the two witness points.

Both stop on ``opt.ccd_iterations`` (support points added) and ``opt.ccd_tolerance`` (tol). GJK stops as MuJoCo's does,
when the duality gap x.(x - w) of its nearest point x and the newest support point w falls below tol^2 / 2 (below
zero, i.e. at round-off, for two polytopes without margin): its distance is then within ~tol^2 / distance of the
true one, and on curved shapes its normal within ~tol / sqrt(distance * curvature radius). EPA stops when the
support along the nearest face's normal is within tol of the face.

Spheres and capsules enter as their cores (a point, a segment) and their radii are added afterwards: the distance of
the cores is then found by GJK, which converges fast on smooth shapes, for every pose where the cores stay apart,
and EPA, slow to converge on curved boundaries, runs only once a core enters the other shape. Scratch space
(polytope vertices, faces, horizon edges) lives in Data (``col_vert``, ``col_face``, ``col_plane``, ``col_edge``), so
nothing is allocated.

Speed: each geom is read from Model and Data once per call into a tuple of plain numbers (``shape``), so the support
function, inlined into its callers, touches no Data field. GJK reduces its simplex by signed volumes, descending only
into the faces whose Voronoi regions can hold the origin; EPA keeps each face's neighbours, so an expansion visits
only the faces the new point sees and their rim, not the whole polytope.
"""

import math

from numba import njit

from mjgym.physics.collision import mpr
from mjgym.physics.collision import multiccd
from mjgym.physics.collision.primitive import emit
from mjgym.physics.constants import DSBL_MULTICCD
from mjgym.physics.constants import DSBL_NATIVECCD
from mjgym.physics.constants import GEOM_BOX
from mjgym.physics.constants import GEOM_CAPSULE
from mjgym.physics.constants import GEOM_CYLINDER
from mjgym.physics.constants import GEOM_ELLIPSOID
from mjgym.physics.constants import GEOM_HFIELD
from mjgym.physics.constants import GEOM_MESH
from mjgym.physics.constants import GEOM_SPHERE
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

_TINY = 1e-15
_EPA_FLOOR = 1e-10


@njit(cache=True, error_model="numpy")
def shape(m, d, g):
  """Geom g as the support function reads it, loaded once per collision into a tuple of plain numbers: (type,
  position, rotation, size, first hull vertex, hull vertex count, prism).

  The rotation is the row-major 3x3 ``geom_xmat`` as a 9-tuple and the size the 3-tuple ``geom_size``. A mesh gives
  the range of its hull's vertices in ``mesh_hullvert``; a height field gives the six world corners of its prism
  being collided (``col_prism``). Numbers only: a tuple holding arrays would be reference counted at every call.
  """
  t = m.geom_type[g]
  z = (0.0, 0.0, 0.0)
  prism = (z, z, z, z, z, z)
  adr = num = 0
  if t == GEOM_HFIELD:
    q = d.col_prism
    prism = ((q[0, 0], q[0, 1], q[0, 2]), (q[1, 0], q[1, 1], q[1, 2]), (q[2, 0], q[2, 1], q[2, 2]),
             (q[3, 0], q[3, 1], q[3, 2]), (q[4, 0], q[4, 1], q[4, 2]), (q[5, 0], q[5, 1], q[5, 2]))
  elif t == GEOM_MESH:
    mid = m.geom_dataid[g]
    adr, num = m.mesh_hulladr[mid], m.mesh_hullnum[mid]
  p, r, s = d.geom_xpos, d.geom_xmat, m.geom_size
  return (t, (p[g, 0], p[g, 1], p[g, 2]),
          (r[g, 0], r[g, 1], r[g, 2], r[g, 3], r[g, 4], r[g, 5], r[g, 6], r[g, 7], r[g, 8]),
          (s[g, 0], s[g, 1], s[g, 2]), adr, num, prism)


# Inlined where called: as a call, its tuple arguments cost several times the arithmetic (measured ~45 ns against
# ~5 ns for the two supports of a GJK step). Each inlined copy adds compile time, so cold paths call
# ``_support_m_once`` instead.
@njit(cache=True, error_model="numpy", inline='always')
def support(m, sh, u):
  """The point of a geom's core farthest along world direction u (a sphere's center, a capsule's segment).

  ``sh`` is the geom's ``shape``; a height field stands for its prism being collided.
  """
  t, c, mat, s, adr, num, prism = sh
  if t == GEOM_HFIELD:
    best, bestv = 0, -math.inf
    for k in range(6):
      v = dot3(prism[k], u)
      if v > bestv:
        best, bestv = k, v
    return prism[best]
  if t == GEOM_SPHERE:
    return c
  lu = mat_t_vec(mat, u)
  if t == GEOM_CAPSULE:
    return add_scl3(c, frame_axis(mat, 2), s[1] if lu[2] >= 0 else -s[1])
  if t == GEOM_ELLIPSOID:
    su = (s[0] * lu[0], s[1] * lu[1], s[2] * lu[2])
    n = norm3(su)
    if n < _TINY:
      return c
    k = 1.0 / n
    return add3(c, mat_vec(mat, (s[0] * su[0] * k, s[1] * su[1] * k, s[2] * su[2] * k)))
  if t == GEOM_CYLINDER:
    rho = math.sqrt(lu[0] * lu[0] + lu[1] * lu[1])
    k = s[0] / rho if rho > _TINY else 0.0
    return add3(c, mat_vec(mat, (lu[0] * k, lu[1] * k, s[1] if lu[2] >= 0 else -s[1])))
  if t == GEOM_BOX:
    return add3(c, mat_vec(mat, (s[0] if lu[0] >= 0 else -s[0], s[1] if lu[1] >= 0 else -s[1],
                                  s[2] if lu[2] >= 0 else -s[2])))
  # Mesh: the hull vertex of largest projection.
  hull = m.mesh_hullvert
  best, bestv = adr, -math.inf
  for k in range(adr, adr + num):
    v = hull[k, 0] * lu[0] + hull[k, 1] * lu[1] + hull[k, 2] * lu[2]
    if v > bestv:
      best, bestv = k, v
  return add3(c, mat_vec(mat, (hull[best, 0], hull[best, 1], hull[best, 2])))


@njit(cache=True, error_model="numpy")
def _center(sh):
  """A point inside a geom: its origin, or the centroid of a height field's prism."""
  if sh[0] != GEOM_HFIELD:
    return sh[1]
  c = (0.0, 0.0, 0.0)
  for k in range(6):
    c = add_scl3(c, sh[6][k], 1.0 / 6.0)
  return c


@njit(cache=True, error_model="numpy")
def _core_radius(sh):
  """The radius by which a sphere or capsule exceeds its core; 0 for shapes used whole."""
  return sh[3][0] if sh[0] == GEOM_SPHERE or sh[0] == GEOM_CAPSULE else 0.0


@njit(cache=True, error_model="numpy", inline='always')
def _support_m(m, vert, s1, s2, u, i):
  """Stores vertex i of M = B - A along u in ``vert`` (col_vert): A's point, B's point, and their difference;
  returns the difference."""
  pa = support(m, s1, (-u[0], -u[1], -u[2]))
  pb = support(m, s2, u)
  w = (pb[0] - pa[0], pb[1] - pa[1], pb[2] - pa[2])
  vert[0, i, 0], vert[0, i, 1], vert[0, i, 2] = pa
  vert[1, i, 0], vert[1, i, 1], vert[1, i, 2] = pb
  vert[2, i, 0], vert[2, i, 1], vert[2, i, 2] = w
  return w


@njit(cache=True, error_model="numpy")
def _support_m_once(m, vert, s1, s2, u, i):
  """``_support_m`` as a call, for the first and the filling supports: each inlined copy costs compile time."""
  return _support_m(m, vert, s1, s2, u, i)


@njit(cache=True, error_model="numpy")
def _w(vert, i):
  """Vertex i of M (row 2 of col_vert) as a tuple."""
  return (vert[2, i, 0], vert[2, i, 1], vert[2, i, 2])


@njit(cache=True, error_model="numpy")
def _copy_vert(vert, src, dst):
  for j in range(3):
    for k in range(3):
      vert[j, dst, k] = vert[j, src, k]


# ----------------------------------------------------------------- GJK ----


@njit(cache=True, error_model="numpy")
def _segment(vert, i, j):
  """Nearest point to the origin on the segment of simplex slots i < j: (count, slots, weights, squared distance)."""
  a, b = _w(vert, i), _w(vert, j)
  e = sub3(b, a)
  ee = dot3(e, e)
  t = -dot3(a, e) / ee if ee > _TINY else (0.0 if dot3(a, a) <= dot3(b, b) else 1.0)
  if t <= 0.0:
    return 1, (i, 0, 0, 0), (1.0, 0.0, 0.0, 0.0), dot3(a, a)
  if t >= 1.0:
    return 1, (j, 0, 0, 0), (1.0, 0.0, 0.0, 0.0), dot3(b, b)
  p = add_scl3(a, e, t)
  return 2, (i, j, 0, 0), (1.0 - t, t, 0.0, 0.0), dot3(p, p)


@njit(cache=True, error_model="numpy")
def _triangle(vert, i, j, k):
  """Nearest point to the origin on the triangle of simplex slots i < j < k, in the same form as ``_segment``.

  The origin's projection onto the triangle's plane has barycentric weights proportional to the signed areas the
  origin spans with each edge. All positive: the projection is the answer. Otherwise the answer lies on an edge
  whose opposite weight is not positive, and only those edges are searched.
  """
  a, b, c = _w(vert, i), _w(vert, j), _w(vert, k)
  e1, e2 = sub3(b, a), sub3(c, a)
  nrm = cross(e1, e2)
  nn = dot3(nrm, nrm)
  la = lb = lc = -1.0
  if nn > 1e-14 * dot3(e1, e1) * dot3(e2, e2) and nn > 0.0:
    la = dot3(cross(b, c), nrm) / nn
    lb = dot3(cross(c, a), nrm) / nn
    lc = 1.0 - la - lb
    if la > 0.0 and lb > 0.0 and lc > 0.0:
      h = dot3(a, nrm)
      return 3, (i, j, k, 0), (la, lb, lc, 0.0), h * h / nn
  best = (0, (0, 0, 0, 0), (0.0, 0.0, 0.0, 0.0), math.inf)
  # A degenerate triangle (la = lb = lc = -1) searches all three edges.
  if la <= 0.0:
    cand = _segment(vert, j, k)
    if cand[3] < best[3]:
      best = cand
  if lb <= 0.0:
    cand = _segment(vert, i, k)
    if cand[3] < best[3]:
      best = cand
  if lc <= 0.0:
    cand = _segment(vert, i, j)
    if cand[3] < best[3]:
      best = cand
  return best


@njit(cache=True, error_model="numpy")
def _tetrahedron(vert):
  """Nearest point to the origin on the tetrahedron of simplex slots 0..3, in the same form as ``_segment``.

  The origin's barycentric weights are ratios of signed volumes. All positive: the origin is inside (distance 0).
  Otherwise only the faces opposite a vertex of non-positive weight can hold the answer.
  """
  a, b, c, e = _w(vert, 0), _w(vert, 1), _w(vert, 2), _w(vert, 3)
  va = dot3(b, cross(c, e))
  vb = -dot3(a, cross(c, e))
  vc = dot3(a, cross(b, e))
  ve = -dot3(a, cross(b, c))
  vol = va + vb + vc + ve
  scale = norm3(sub3(b, a)) * norm3(sub3(c, a)) * norm3(sub3(e, a))
  if abs(vol) > 1e-14 * scale and vol != 0.0:
    la, lb, lc, le = va / vol, vb / vol, vc / vol, ve / vol
    if la > 0.0 and lb > 0.0 and lc > 0.0 and le > 0.0:
      return 4, (0, 1, 2, 3), (la, lb, lc, le), 0.0
  else:
    la = lb = lc = le = -1.0
  best = (0, (0, 0, 0, 0), (0.0, 0.0, 0.0, 0.0), math.inf)
  if la <= 0.0:
    cand = _triangle(vert, 1, 2, 3)
    if cand[3] < best[3]:
      best = cand
  if lb <= 0.0:
    cand = _triangle(vert, 0, 2, 3)
    if cand[3] < best[3]:
      best = cand
  if lc <= 0.0:
    cand = _triangle(vert, 0, 1, 3)
    if cand[3] < best[3]:
      best = cand
  if le <= 0.0:
    cand = _triangle(vert, 0, 1, 2)
    if cand[3] < best[3]:
      best = cand
  return best


@njit(cache=True, error_model="numpy")
def _closest_on_simplex(vert, n):
  """Reduces the simplex in col_vert[:, :n] to the smallest face holding its point nearest the origin.

  Signed-volume selection (after Montanari, Petrinic and Barbieri, 2017): each simplex only descends into the faces
  whose Voronoi regions can hold the origin. Returns the new vertex count, the weights of the kept vertices (now in
  slots 0..) and the nearest point.
  """
  if n == 1:
    cnt, idx, lam = 1, (0, 0, 0, 0), (1.0, 0.0, 0.0, 0.0)
  elif n == 2:
    cnt, idx, lam, _ = _segment(vert, 0, 1)
  elif n == 3:
    cnt, idx, lam, _ = _triangle(vert, 0, 1, 2)
  else:
    cnt, idx, lam, _ = _tetrahedron(vert)
  x = (0.0, 0.0, 0.0)
  for s in range(cnt):
    # Slots are kept in increasing order, so copying down never overwrites a vertex still to be read.
    if idx[s] != s:
      _copy_vert(vert, idx[s], s)
    x = add_scl3(x, _w(vert, s), lam[s])
  return cnt, lam, x


@njit(cache=True, error_model="numpy")
def convex(m, d, g1, g2, margin, i0):
  """Any two convex geoms: one contact at the deepest point (or nearest points within margin)."""
  # Without nativeccd MuJoCo runs libccd's MPR (height-field prisms stay here: they are not matched to it yet).
  if (m.opt_disableflags[0] & DSBL_NATIVECCD) != 0 and m.geom_type[g1] != GEOM_HFIELD:
    return mpr.convex(m, d, g1, g2, margin, i0)
  dist, nrm, p1, p2 = closest(m, d, g1, g2, margin)
  if dist > margin:
    return 0
  # MuJoCo's multiccd clips features only on its native collider.
  if (m.opt_disableflags[0] & (DSBL_MULTICCD | DSBL_NATIVECCD)) == 0 and multiccd.applies(m, g1, g2):
    cnt = multiccd.contacts(m, d, g1, g2, margin, i0, nrm, p1, p2)
    if cnt > 0:
      return cnt
  emit(d, i0, dist, scl3(add3(p1, p2), 0.5), nrm)
  return 1


@njit(cache=True, error_model="numpy")
def closest(m, d, g1, g2, margin):
  """(distance, normal from geom1 to geom2, point on geom1, point on geom2) of two convex geoms: the nearest points
  when apart, the deepest when overlapping (negative distance); the distance is inf when farther than margin."""
  none = (math.inf, (0.0, 0.0, 0.0), (0.0, 0.0, 0.0), (0.0, 0.0, 0.0))
  s1, s2 = shape(m, d, g1), shape(m, d, g2)
  vert = d.col_vert
  r1, r2 = _core_radius(s1), _core_radius(s2)
  # The cores may be up to both radii farther apart than the shapes.
  reach = margin + r1 + r2
  u = sub3(s2[1], _center(s1))
  if norm3(u) < _TINY:
    u = (1.0, 0.0, 0.0)
  x = _support_m_once(m, vert, s1, s2, u, 0)
  n = 1
  lam = (1.0, 0.0, 0.0, 0.0)
  tol = m.opt_ccd_tolerance[0]
  # MuJoCo's stopping rule: the Frank-Wolfe gap x.(x - w), an upper bound on |x|^2 - distance^2, below half the
  # squared tolerance; zero for two polytopes without margin, whose GJK ends in finitely many steps.
  polytopes = (margin == 0.0 and (s1[0] == GEOM_MESH or s1[0] == GEOM_BOX or s1[0] == GEOM_HFIELD)
               and (s2[0] == GEOM_MESH or s2[0] == GEOM_BOX or s2[0] == GEOM_HFIELD))
  gap = 0.0 if polytopes else 0.5 * tol * tol
  for _ in range(m.opt_ccd_iterations[0]):
    xx = dot3(x, x)
    if xx < 1e-24 or n == 4:
      break
    w = _support_m(m, vert, s1, s2, scl3(x, -1.0), n)
    # w is the farthest point of M along -x: no point of M is nearer the origin than this plane.
    lower = dot3(x, w) / math.sqrt(xx)
    if lower > reach:
      return none
    if xx - dot3(x, w) < gap or xx - dot3(x, w) <= 1e-12 * xx:
      break
    n, lam, x = _closest_on_simplex(vert, n + 1)
  dist = norm3(x)
  if dist > 1e-10 and n < 4:
    nrm = scl3(x, 1.0 / dist)
    pa, pb = (0.0, 0.0, 0.0), (0.0, 0.0, 0.0)
    for i in range(n):
      pa = add_scl3(pa, (vert[0, i, 0], vert[0, i, 1], vert[0, i, 2]), lam[i])
      pb = add_scl3(pb, (vert[1, i, 0], vert[1, i, 1], vert[1, i, 2]), lam[i])
  else:
    dist, nrm, pa, pb = _epa(m, d, vert, s1, s2, n)
    if dist == math.inf:
      return none
  dist -= r1 + r2
  if dist > margin:
    return none
  # Witness points move out of the cores by the radii, along the normal (from geom1 to geom2).
  return dist, nrm, add_scl3(pa, nrm, r1), add_scl3(pb, nrm, -r2)


# ----------------------------------------------------------------- EPA ----


@njit(cache=True, error_model="numpy")
def _fill_tetrahedron(m, vert, s1, s2, n):
  """Grows a touching or degenerate simplex to a tetrahedron with supports along fixed directions."""
  dirs = ((1.0, 0.0, 0.0), (-1.0, 0.0, 0.0), (0.0, 1.0, 0.0), (0.0, -1.0, 0.0), (0.0, 0.0, 1.0), (0.0, 0.0, -1.0),
          (0.577, 0.577, 0.577), (-0.577, -0.577, -0.577), (0.577, -0.577, 0.577), (-0.577, 0.577, -0.577))
  for u in dirs:
    if n == 4:
      break
    w = _support_m_once(m, vert, s1, s2, u, n)
    w0 = _w(vert, 0)
    if n == 1:
      ok = norm3(sub3(w, w0)) > 1e-9
    elif n == 2:
      ok = norm3(cross(sub3(_w(vert, 1), w0), sub3(w, w0))) > 1e-12
    else:
      nrm = cross(sub3(_w(vert, 1), w0), sub3(_w(vert, 2), w0))
      ok = abs(dot3(nrm, sub3(w, w0))) > 1e-12 * max(1.0, norm3(nrm))
    if ok:
      n += 1
  return n


@njit(cache=True, error_model="numpy")
def _set_face(face, plane, vert, f, a, b, c):
  """Live face f = (a, b, c) with its unit normal and offset; False when it has no area (no normal)."""
  face[f, 0], face[f, 1], face[f, 2], face[f, 6] = a, b, c, 0
  va = _w(vert, a)
  nrm = cross(sub3(_w(vert, b), va), sub3(_w(vert, c), va))
  ln = norm3(nrm)
  if ln < _TINY:
    return False
  plane[f, 0], plane[f, 1], plane[f, 2] = nrm[0] / ln, nrm[1] / ln, nrm[2] / ln
  plane[f, 3] = dot3(nrm, va) / ln
  return True


@njit(cache=True, error_model="numpy", inline='always')
def _edge_slot(face, f, a, b):
  """k such that face f runs from vertex a to vertex b along its edge k, or -1."""
  for k in range(3):
    if face[f, k] == a and face[f, (k + 1) % 3] == b:
      return k
  return -1


@njit(cache=True, error_model="numpy")
def _epa(m, d, vert, s1, s2, n):
  """Depth and normal of overlapping shapes: the face of a growing polytope inside M that is nearest the origin.

  Faces are stored as ``col_face[f] = (a, b, c, across ab, across bc, across ca, dead)``: three vertices counter-clockwise
  seen from outside, the faces beyond each edge, and a flag. Each expansion removes the faces that see the new support
  point by a flood from the nearest face over the neighbours (the faces seeing a point outside a convex polytope are
  connected), so only those faces and their rim are visited; the rim (the horizon, ``col_edge[h] = (a, b, outside
  face)``) is then coned to the new point.

  M has flat patches wherever both shapes do (box faces, cylinder caps), so new support points are often coplanar
  with faces or collinear with edges. A face only counts as seen from a new point when the point is clearly above
  it, and the expansion stops at the first face without area, at a horizon that is not one simple loop, or when
  scratch space runs out: the nearest face found so far is then kept, which is a valid inner bound of the depth.
  Returns the signed distance (minus the depth), the normal from geom1 to geom2 and the two witness points; an
  infinite distance when M has no volume.
  """
  none = (math.inf, (0.0, 0.0, 0.0), (0.0, 0.0, 0.0), (0.0, 0.0, 0.0))
  n = _fill_tetrahedron(m, vert, s1, s2, n)
  if n < 4:
    return none
  face, plane, edge = d.col_face, d.col_plane, d.col_edge
  nvmax, nfmax, nemax = vert.shape[1], face.shape[0], edge.shape[0]
  # Orient the tetrahedron so that its faces wind counter-clockwise seen from outside.
  w0 = _w(vert, 0)
  if dot3(cross(sub3(_w(vert, 1), w0), sub3(_w(vert, 2), w0)), sub3(_w(vert, 3), w0)) > 0:
    _copy_vert(vert, 1, 4)
    _copy_vert(vert, 2, 1)
    _copy_vert(vert, 4, 2)
  ok = (_set_face(face, plane, vert, 0, 0, 1, 2) & _set_face(face, plane, vert, 1, 0, 3, 1)
        & _set_face(face, plane, vert, 2, 0, 2, 3) & _set_face(face, plane, vert, 3, 1, 3, 2))
  if not ok:
    return none
  # Neighbours across the edges of faces (0, 1, 2), (0, 3, 1), (0, 2, 3), (1, 3, 2).
  face[0, 3], face[0, 4], face[0, 5] = 1, 3, 2
  face[1, 3], face[1, 4], face[1, 5] = 2, 3, 0
  face[2, 3], face[2, 4], face[2, 5] = 0, 3, 1
  face[3, 3], face[3, 4], face[3, 5] = 1, 2, 0
  nf = 4
  nv = 4
  tol = m.opt_ccd_tolerance[0]
  iterations = m.opt_ccd_iterations[0]
  fa = fb = fc = 0
  depth = 0.0
  u = (0.0, 0.0, 0.0)
  while True:
    best, bestd = -1, math.inf
    for f in range(nf):
      if face[f, 6] == 0 and plane[f, 3] < bestd:
        best, bestd = f, plane[f, 3]
    if best < 0:
      return none
    fa, fb, fc = face[best, 0], face[best, 1], face[best, 2]
    depth = bestd
    u = (plane[best, 0], plane[best, 1], plane[best, 2])
    if nv >= nvmax or iterations <= 0:
      break
    iterations -= 1
    w = _support_m(m, vert, s1, s2, u, nv)
    scale = max(1.0, abs(bestd))
    # Converged when the support along the face normal is within ccd_tolerance of the face. Below 1e-10 (relative)
    # the polytope's faces are too thin to resolve, so tighter tolerances stop there.
    if dot3(w, u) - bestd <= max(tol, _EPA_FLOOR * scale):
      break
    # Flood the faces that see w from the nearest one (a stack at the end of col_edge), collecting the horizon at
    # its start.
    eps = 1e-13 * scale
    face[best, 6] = 1
    edge[nemax - 1, 0] = best
    sp, nh = 1, 0
    overflow = False
    while sp > 0 and not overflow:
      sp -= 1
      f = edge[nemax - 1 - sp, 0]
      for k in range(3):
        g = face[f, 3 + k]
        if face[g, 6] != 0:
          continue
        if nh + sp + 1 >= nemax:
          overflow = True
          break
        if plane[g, 0] * w[0] + plane[g, 1] * w[1] + plane[g, 2] * w[2] - plane[g, 3] > eps:
          face[g, 6] = 1
          edge[nemax - 1 - sp, 0] = g
          sp += 1
        else:
          edge[nh, 0], edge[nh, 1], edge[nh, 2] = face[f, k], face[f, (k + 1) % 3], g
          nh += 1
    if overflow:
      break
    # Cone the horizon to w, dead slots first; each new face takes over its outside neighbour's edge.
    f = 0
    for h in range(nh):
      while f < nf and face[f, 6] == 0:
        f += 1
      if f >= nfmax or not _set_face(face, plane, vert, f, edge[h, 0], edge[h, 1], nv):
        overflow = True
        break
      g = edge[h, 2]
      face[f, 3] = g
      face[g, 3 + _edge_slot(face, g, edge[h, 1], edge[h, 0])] = f
      edge[h, 2] = f
      if f == nf:
        nf += 1
    if overflow:
      break
    # Neighbouring new faces meet where one horizon edge ends and the next begins; a horizon that is not one simple
    # loop (round-off on nearly flat patches) leaves a vertex with no or two successors.
    for h in range(nh):
      nxt = -1
      for h2 in range(nh):
        if edge[h2, 0] == edge[h, 1]:
          if nxt >= 0:
            overflow = True
          nxt = h2
      if nxt < 0:
        overflow = True
      if overflow:
        break
      face[edge[h, 2], 4] = edge[nxt, 2]
      face[edge[nxt, 2], 5] = edge[h, 2]
    if overflow:
      break
    nv += 1
  return _epa_witness(vert, fa, fb, fc, u, depth)


@njit(cache=True, error_model="numpy")
def _epa_witness(vert, a, b, c, u, depth):
  """Distance, normal and witness points of EPA's nearest face (a, b, c), outward normal u, depth from the origin."""
  # Barycentric weights of the origin's projection onto the face.
  p = scl3(u, depth)
  va, vb, vc = _w(vert, a), _w(vert, b), _w(vert, c)
  area = dot3(cross(sub3(vb, va), sub3(vc, va)), u)
  la = dot3(cross(sub3(vb, p), sub3(vc, p)), u) / area
  lb = dot3(cross(sub3(vc, p), sub3(va, p)), u) / area
  lc = 1.0 - la - lb
  pa, pb = (0.0, 0.0, 0.0), (0.0, 0.0, 0.0)
  for v, lv in ((a, la), (b, lb), (c, lc)):
    pa = add_scl3(pa, (vert[0, v, 0], vert[0, v, 1], vert[0, v, 2]), lv)
    pb = add_scl3(pb, (vert[1, v, 0], vert[1, v, 1], vert[1, v, 2]), lv)
  return -depth, scl3(u, -1.0), pa, pb
