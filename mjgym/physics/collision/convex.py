"""General convex collider: GJK for the distance of separated shapes, EPA for the depth of overlapping ones.

Both work on the Minkowski difference M = B - A of geom2 (B) and geom1 (A), known only through its support
function. Separated: the point of M closest to the origin is the vector from A's witness point to B's, so its
length is the distance and its direction the normal. Overlapping: EPA grows a polytope inside M until the face
nearest the origin lies on M's boundary; that face's distance is the depth and its outward normal points from B to A.
The contact sits at the midpoint of the two witness points.

Both stop as MuJoCo's do, on ``opt.ccd_iterations`` (support points added) and ``opt.ccd_tolerance`` (the gap
between the current distance or depth and the bound the newest support point gives, in length units).

Spheres and capsules enter as their cores (a point, a segment) and their radii are added afterwards: the distance of
the cores is then found by GJK, which converges fast on smooth shapes, for every pose where the cores stay apart,
and EPA, slow to converge on curved boundaries, runs only once a core enters the other shape. Scratch space
(polytope vertices, faces, horizon edges) lives in Data (``col_vert``, ``col_face``, ``col_plane``, ``col_edge``), so
nothing is allocated.
"""

import math

from numba import njit

from mjgym.physics.collision import multiccd
from mjgym.physics.collision.primitive import add
from mjgym.physics.collision.primitive import addscl
from mjgym.physics.collision.primitive import axis
from mjgym.physics.collision.primitive import cross
from mjgym.physics.collision.primitive import dot
from mjgym.physics.collision.primitive import emit
from mjgym.physics.collision.primitive import norm
from mjgym.physics.collision.primitive import scl
from mjgym.physics.collision.primitive import sub
from mjgym.physics.collision.primitive import to_local
from mjgym.physics.collision.primitive import to_world
from mjgym.physics.collision.primitive import vec
from mjgym.physics.types import DisableBit
from mjgym.physics.types import GeomType

_DSBL_MULTICCD = int(DisableBit.MULTICCD)
_DSBL_NATIVECCD = int(DisableBit.NATIVECCD)
_HFIELD = int(GeomType.HFIELD)
_SPHERE = int(GeomType.SPHERE)
_CAPSULE = int(GeomType.CAPSULE)
_ELLIPSOID = int(GeomType.ELLIPSOID)
_CYLINDER = int(GeomType.CYLINDER)
_BOX = int(GeomType.BOX)
_MESH = int(GeomType.MESH)

_TINY = 1e-15
_EPA_FLOOR = 1e-10


@njit(cache=True)
def support(m, d, g, u):
  """The point of geom g's core farthest along world direction u (a sphere's center, a capsule's segment).

  A height field stands for the one prism of it being collided, whose world corners are in ``col_prism``.
  """
  if m.geom_type[g] == _HFIELD:
    best, bestv = 0, -math.inf
    for k in range(6):
      v = d.col_prism[k, 0] * u[0] + d.col_prism[k, 1] * u[1] + d.col_prism[k, 2] * u[2]
      if v > bestv:
        best, bestv = k, v
    return vec(d.col_prism[best])
  c = vec(d.geom_xpos[g])
  mat = d.geom_xmat[g]
  s = m.geom_size[g]
  t = m.geom_type[g]
  lu = to_local(mat, u)
  if t == _SPHERE:
    return c
  if t == _CAPSULE:
    return addscl(c, axis(mat, 2), s[1] if lu[2] >= 0 else -s[1])
  if t == _ELLIPSOID:
    su = (s[0] * lu[0], s[1] * lu[1], s[2] * lu[2])
    n = norm(su)
    if n < _TINY:
      return c
    return add(c, to_world(mat, (s[0] * su[0] / n, s[1] * su[1] / n, s[2] * su[2] / n)))
  if t == _CYLINDER:
    rho = math.sqrt(lu[0] * lu[0] + lu[1] * lu[1])
    k = s[0] / rho if rho > _TINY else 0.0
    return add(c, to_world(mat, (lu[0] * k, lu[1] * k, s[1] if lu[2] >= 0 else -s[1])))
  if t == _BOX:
    return add(c, to_world(mat, (s[0] if lu[0] >= 0 else -s[0], s[1] if lu[1] >= 0 else -s[1],
                                  s[2] if lu[2] >= 0 else -s[2])))
  # Mesh: the hull vertex of largest projection.
  mid = m.geom_dataid[g]
  adr, num = m.mesh_hulladr[mid], m.mesh_hullnum[mid]
  best, bestv = adr, -math.inf
  for k in range(adr, adr + num):
    v = m.mesh_hullvert[k, 0] * lu[0] + m.mesh_hullvert[k, 1] * lu[1] + m.mesh_hullvert[k, 2] * lu[2]
    if v > bestv:
      best, bestv = k, v
  return add(c, to_world(mat, vec(m.mesh_hullvert[best])))


@njit(cache=True)
def _center(m, d, g):
  """A point inside geom g: its origin, or the centroid of the current prism of a height field."""
  if m.geom_type[g] != _HFIELD:
    return vec(d.geom_xpos[g])
  c = (0.0, 0.0, 0.0)
  for k in range(6):
    c = addscl(c, vec(d.col_prism[k]), 1.0 / 6.0)
  return c


@njit(cache=True)
def _core_radius(m, g):
  """The radius by which a sphere or capsule exceeds its core; 0 for shapes used whole."""
  t = m.geom_type[g]
  return m.geom_size[g, 0] if t == _SPHERE or t == _CAPSULE else 0.0


@njit(cache=True)
def _support_m(m, d, g1, g2, u, i):
  """Stores vertex i of M = B - A along u: A's point, B's point, and their difference; returns the difference."""
  pa = support(m, d, g1, scl(u, -1.0))
  pb = support(m, d, g2, u)
  w = sub(pb, pa)
  for k in range(3):
    d.col_vert[0, i, k] = pa[k]
    d.col_vert[1, i, k] = pb[k]
    d.col_vert[2, i, k] = w[k]
  return w


@njit(cache=True)
def _copy_vert(d, src, dst):
  for j in range(3):
    for k in range(3):
      d.col_vert[j, dst, k] = d.col_vert[j, src, k]


# ----------------------------------------------------------------- GJK ----


@njit(cache=True)
def _affine_closest(d, idx, n):
  """Closest point to the origin on the affine hull of simplex vertices idx[:n]: barycentric weights, or None if
  degenerate. Solves the normal equations of min |sum l_i w_i| with sum l_i = 1."""
  w0 = vec(d.col_vert[2, idx[0]])
  if n == 1:
    return (1.0, 0.0, 0.0, 0.0)
  e1 = sub(vec(d.col_vert[2, idx[1]]), w0)
  if n == 2:
    ee = dot(e1, e1)
    if ee < _TINY:
      return (-1.0, 0.0, 0.0, 0.0)
    t = -dot(w0, e1) / ee
    return (1.0 - t, t, 0.0, 0.0)
  e2 = sub(vec(d.col_vert[2, idx[2]]), w0)
  if n == 3:
    a11, a12, a22 = dot(e1, e1), dot(e1, e2), dot(e2, e2)
    b1, b2 = -dot(w0, e1), -dot(w0, e2)
    det = a11 * a22 - a12 * a12
    if det < 1e-14 * (a11 * a22 + _TINY):
      return (-1.0, 0.0, 0.0, 0.0)
    s = (b1 * a22 - b2 * a12) / det
    t = (a11 * b2 - a12 * b1) / det
    return (1.0 - s - t, s, t, 0.0)
  e3 = sub(vec(d.col_vert[2, idx[3]]), w0)
  det = dot(e1, cross(e2, e3))
  if abs(det) < 1e-14 * (norm(e1) * norm(e2) * norm(e3) + _TINY):
    return (-1.0, 0.0, 0.0, 0.0)
  # Origin = w0 + s e1 + t e2 + u e3 solved by Cramer's rule.
  p = scl(w0, -1.0)
  s = dot(p, cross(e2, e3)) / det
  t = dot(e1, cross(p, e3)) / det
  u = dot(e1, cross(e2, p)) / det
  return (1.0 - s - t - u, s, t, u)


@njit(cache=True)
def _closest_on_simplex(d, n):
  """Reduces the simplex in col_vert[:, :n] to the smallest face holding its point nearest the origin.

  Tries every face of the simplex (at most 15) and keeps the nearest one whose affine minimizer lies inside it;
  returns the new vertex count and the weights of the kept vertices (now in slots 0..).
  """
  best_d, best_mask = math.inf, 0
  bw = (0.0, 0.0, 0.0, 0.0)
  for mask in range(1, 1 << n):
    k0 = k1 = k2 = k3 = 0
    cnt = 0
    for i in range(n):
      if mask & (1 << i):
        if cnt == 0:
          k0 = i
        elif cnt == 1:
          k1 = i
        elif cnt == 2:
          k2 = i
        else:
          k3 = i
        cnt += 1
    idx = (k0, k1, k2, k3)
    lam = _affine_closest(d, idx, cnt)
    ok = True
    for i in range(cnt):
      if lam[i] < 0.0:
        ok = False
    if not ok:
      continue
    p = (0.0, 0.0, 0.0)
    for i in range(cnt):
      p = addscl(p, vec(d.col_vert[2, idx[i]]), lam[i])
    dd = dot(p, p)
    if dd < best_d:
      best_d, best_mask, bw = dd, mask, lam
  cnt = 0
  for i in range(n):
    if best_mask & (1 << i):
      if cnt != i:
        _copy_vert(d, i, cnt)
      cnt += 1
  return cnt, bw


@njit(cache=True)
def convex(m, d, g1, g2, margin, i0):
  """Any two convex geoms: one contact at the deepest point (or nearest points within margin)."""
  r1, r2 = _core_radius(m, g1), _core_radius(m, g2)
  # The cores may be up to both radii farther apart than the shapes.
  reach = margin + r1 + r2
  u = sub(vec(d.geom_xpos[g2]), _center(m, d, g1))
  if norm(u) < _TINY:
    u = (1.0, 0.0, 0.0)
  x = _support_m(m, d, g1, g2, u, 0)
  n = 1
  lam = (1.0, 0.0, 0.0, 0.0)
  tol = m.opt_ccd_tolerance[0]
  for _ in range(m.opt_ccd_iterations[0]):
    xx = dot(x, x)
    if xx < 1e-24 or n == 4:
      break
    w = _support_m(m, d, g1, g2, scl(x, -1.0), n)
    # w is the farthest point of M along -x: no point of M is nearer the origin than this plane.
    lower = dot(x, w) / math.sqrt(xx)
    if lower > reach:
      return 0
    # Converged when the distance is within ccd_tolerance of that lower bound (or at round-off).
    if math.sqrt(xx) - lower <= tol or xx - dot(x, w) <= 1e-12 * xx:
      break
    n, lam = _closest_on_simplex(d, n + 1)
    x = (0.0, 0.0, 0.0)
    for i in range(n):
      x = addscl(x, vec(d.col_vert[2, i]), lam[i])
  dist = norm(x)
  if dist > 1e-10 and n < 4:
    nrm = scl(x, 1.0 / dist)
    pa, pb = (0.0, 0.0, 0.0), (0.0, 0.0, 0.0)
    for i in range(n):
      pa = addscl(pa, vec(d.col_vert[0, i]), lam[i])
      pb = addscl(pb, vec(d.col_vert[1, i]), lam[i])
  else:
    dist, nrm, pa, pb = _epa(m, d, g1, g2, n)
    if dist == math.inf:
      return 0
  dist -= r1 + r2
  if dist > margin:
    return 0
  # MuJoCo's multiccd clips features only on its native collider (with nativeccd off its libccd path keeps one).
  if (m.opt_disableflags[0] & (_DSBL_MULTICCD | _DSBL_NATIVECCD)) == 0 and multiccd.applies(m, g1, g2):
    cnt = multiccd.contacts(m, d, g1, g2, margin, i0, nrm, addscl(pa, nrm, r1), addscl(pb, nrm, -r2))
    if cnt > 0:
      return cnt
  # Witness points move out of the cores by the radii, along the normal (from geom1 to geom2).
  pos = scl(add(addscl(pa, nrm, r1), addscl(pb, nrm, -r2)), 0.5)
  emit(d, i0, dist, pos, nrm)
  return 1


# ----------------------------------------------------------------- EPA ----


@njit(cache=True)
def _fill_tetrahedron(m, d, g1, g2, n):
  """Grows a touching or degenerate simplex to a tetrahedron with supports along fixed directions."""
  dirs = ((1.0, 0.0, 0.0), (-1.0, 0.0, 0.0), (0.0, 1.0, 0.0), (0.0, -1.0, 0.0), (0.0, 0.0, 1.0), (0.0, 0.0, -1.0),
          (0.577, 0.577, 0.577), (-0.577, -0.577, -0.577), (0.577, -0.577, 0.577), (-0.577, 0.577, -0.577))
  for u in dirs:
    if n == 4:
      break
    w = _support_m(m, d, g1, g2, u, n)
    w0 = vec(d.col_vert[2, 0])
    if n == 1:
      ok = norm(sub(w, w0)) > 1e-9
    elif n == 2:
      ok = norm(cross(sub(vec(d.col_vert[2, 1]), w0), sub(w, w0))) > 1e-12
    else:
      nrm = cross(sub(vec(d.col_vert[2, 1]), w0), sub(vec(d.col_vert[2, 2]), w0))
      ok = abs(dot(nrm, sub(w, w0))) > 1e-12 * max(1.0, norm(nrm))
    if ok:
      n += 1
  return n


@njit(cache=True)
def _set_face(d, f, a, b, c):
  """Face f = (a, b, c) with its unit normal and offset; False when it has no area (no normal)."""
  d.col_face[f, 0], d.col_face[f, 1], d.col_face[f, 2] = a, b, c
  va = vec(d.col_vert[2, a])
  nrm = cross(sub(vec(d.col_vert[2, b]), va), sub(vec(d.col_vert[2, c]), va))
  ln = norm(nrm)
  if ln < _TINY:
    return False
  for k in range(3):
    d.col_plane[f, k] = nrm[k] / ln
  d.col_plane[f, 3] = dot(nrm, va) / ln
  return True


@njit(cache=True)
def _epa(m, d, g1, g2, n):
  """Depth and normal of overlapping shapes: the face of a growing polytope inside M that is nearest the origin.

  M has flat patches wherever both shapes do (box faces, cylinder caps), so new support points are often coplanar
  with faces or collinear with edges. A face only counts as seen from a new point when the point is clearly above
  it, and the expansion stops at the first face without area or when scratch space runs out: the nearest face found
  so far is then kept, which is a valid inner bound of the depth. Returns the signed distance (minus the depth),
  the normal from geom1 to geom2 and the two witness points; an infinite distance when M has no volume.
  """
  nvmax, nfmax, nemax = d.col_vert.shape[1], d.col_face.shape[0], d.col_edge.shape[0]
  none = (math.inf, (0.0, 0.0, 0.0), (0.0, 0.0, 0.0), (0.0, 0.0, 0.0))
  n = _fill_tetrahedron(m, d, g1, g2, n)
  if n < 4:
    return none
  # Orient the tetrahedron so that its faces wind counter-clockwise seen from outside.
  w0 = vec(d.col_vert[2, 0])
  if dot(cross(sub(vec(d.col_vert[2, 1]), w0), sub(vec(d.col_vert[2, 2]), w0)), sub(vec(d.col_vert[2, 3]), w0)) > 0:
    _copy_vert(d, 1, 4)
    _copy_vert(d, 2, 1)
    _copy_vert(d, 4, 2)
  ok = _set_face(d, 0, 0, 1, 2) & _set_face(d, 1, 0, 3, 1) & _set_face(d, 2, 0, 2, 3) & _set_face(d, 3, 1, 3, 2)
  if not ok:
    return none
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
      if d.col_face[f, 0] >= 0 and d.col_plane[f, 3] < bestd:
        best, bestd = f, d.col_plane[f, 3]
    if best < 0:
      return none
    fa, fb, fc = d.col_face[best, 0], d.col_face[best, 1], d.col_face[best, 2]
    depth = bestd
    u = (d.col_plane[best, 0], d.col_plane[best, 1], d.col_plane[best, 2])
    if nv >= nvmax or iterations <= 0:
      break
    iterations -= 1
    w = _support_m(m, d, g1, g2, u, nv)
    scale = max(1.0, abs(bestd))
    # Converged when the support along the face normal is within ccd_tolerance of the face. Below 1e-10 (relative)
    # the polytope's faces are too thin to resolve, so tighter tolerances stop there.
    if dot(w, u) - bestd <= max(tol, _EPA_FLOOR * scale):
      break
    # Remove every face that sees w; the boundary of the removed region (the horizon) is kept as edges.
    eps = 1e-13 * scale
    ne = 0
    overflow = False
    for f in range(nf):
      if d.col_face[f, 0] < 0:
        continue
      if f != best and (d.col_plane[f, 0] * w[0] + d.col_plane[f, 1] * w[1] + d.col_plane[f, 2] * w[2]
                        - d.col_plane[f, 3] <= eps):
        continue
      for k in range(3):
        a, b = d.col_face[f, k], d.col_face[f, (k + 1) % 3]
        shared = -1
        for e in range(ne):
          if d.col_edge[e, 0] == b and d.col_edge[e, 1] == a:
            shared = e
            break
        if shared >= 0:
          ne -= 1
          d.col_edge[shared, 0], d.col_edge[shared, 1] = d.col_edge[ne, 0], d.col_edge[ne, 1]
        elif ne < nemax:
          d.col_edge[ne, 0], d.col_edge[ne, 1] = a, b
          ne += 1
        else:
          overflow = True
      d.col_face[f, 0] = -1
    if overflow:
      break
    # New faces reuse dead slots first.
    f = 0
    for e in range(ne):
      while f < nf and d.col_face[f, 0] >= 0:
        f += 1
      if f >= nfmax or not _set_face(d, f, d.col_edge[e, 0], d.col_edge[e, 1], nv):
        overflow = True
        break
      if f == nf:
        nf += 1
    if overflow:
      break
    nv += 1
  return _epa_witness(d, fa, fb, fc, u, depth)


@njit(cache=True)
def _epa_witness(d, a, b, c, u, depth):
  """Distance, normal and witness points of EPA's nearest face (a, b, c), outward normal u, depth from the origin."""
  # Barycentric weights of the origin's projection onto the face.
  p = scl(u, depth)
  va, vb, vc = vec(d.col_vert[2, a]), vec(d.col_vert[2, b]), vec(d.col_vert[2, c])
  area = dot(cross(sub(vb, va), sub(vc, va)), u)
  la = dot(cross(sub(vb, p), sub(vc, p)), u) / area
  lb = dot(cross(sub(vc, p), sub(va, p)), u) / area
  lc = 1.0 - la - lb
  pa = addscl(addscl(addscl((0.0, 0.0, 0.0), vec(d.col_vert[0, a]), la), vec(d.col_vert[0, b]), lb),
              vec(d.col_vert[0, c]), lc)
  pb = addscl(addscl(addscl((0.0, 0.0, 0.0), vec(d.col_vert[1, a]), la), vec(d.col_vert[1, b]), lb),
              vec(d.col_vert[1, c]), lc)
  return -depth, scl(u, -1.0), pa, pb
