"""Several contacts for flat features meeting in the general convex collider (MuJoCo's multiccd, on by default).

GJK/EPA (convex.py) finds one normal and one pair of witness points. When a face of one shape (a box face, a mesh
hull face, a cylinder cap) meets a face or an edge of the other, that single point cannot hold the two shapes flat
against each other, so MuJoCo replaces it with the clipped contact region. The rule below was measured with the
``mujoco`` package (no source read), for geom1 = A and geom2 = B, with n the collider's normal from A to B:

* A mesh's faces are its compiled polygons (``mesh_polyvert``: hull triangles in one plane merged). MuJoCo's hull
  builder also merges some nearly coplanar triangles (tests/test_mesh.py); that is not reproduced.
* Feature of A along n (of B along -n): the face whose outward normal is closest to n when their cosine is at least
  0.996 (5.1 degrees); else the edge at A's support vertex that is most perpendicular to n when the sine of its angle
  to the plane normal to n is below 0.0888; else the support vertex. A capsule's only edge is the line of its surface
  through the collider's witness point, parallel to its axis and as long as its segment (so a capsule touching a face
  gets contacts on the side the collider's own normal points to, not the face's). A cylinder's edge is its side line
  through the witness point, its face a cap: a 16-gon inscribed in the rim, corners at multiples of 22.5 degrees
  from the geom's x axis (MuJoCo's cap contacts sit there, and an edge crossing the rim is cut at the 16-gon).
* An edge against the other shape's edge or vertex: when the edge lies (within the edge tolerance) in a face of the
  other polytope at that edge or vertex, the pair is that edge and that face, B's faces tried first; else the
  collider's one contact stays, as it does for two vertices or a vertex and a face.
* A face of A against a face or an edge of B: B's polygon (an edge is a polygon of two corners) is clipped by the
  side planes of A's face (Sutherland-Hodgman, planes through A's edges parallel to A's normal). Each kept point pB
  pairs with its projection pA on A's face plane along A's normal. An edge of A against a face of B is the mirror
  image: A's edge clipped by B's face, paired with its projection on B's face plane along B's normal.
* Cylinder caps: a cap of A against a face of B (box, mesh; a cap of B the same way) is the mirror image too, A's
  16-gon clipped by B's face, but by planes through B's edges parallel to the cap's normal. Of more than 4 kept
  points MuJoCo keeps 4 spread around the cap; taken here as the points of rank 1, 1 + n/4, 1 + n/2, 1 + 3n/4 of the
  n in the clipper's order, which is MuJoCo's choice for most whole caps (its corners 1, 5, 9, 13) but not its rule:
  on whole caps it sometimes takes corners 3, 7, 11, 15 or shifts some by one, depending on the other face's
  orientation and round-off, and on partly clipped caps its choice is not identified. A box's edge against a cap
  keeps the collider's one contact when the collider's witness point on the box is a corner of that edge (its deeper
  end lies over the cap), and is clipped by the cap when the witness lies inside the edge (its deeper end beyond the
  rim, or the edge level with the cap); a mesh's edge is always clipped, as measured.
* The normal becomes B's face normal (reversed) when B shows a face, else A's face normal. A contact's distance is
  (pB - pA) . normal, its position pA + dist / 2 normal (on A's surface shifted half the distance).
* Points farther than the margin are dropped, in the clipper's order, and the first 2 (edge) or 4 (face) are kept.
  Clipping a two-corner polygon repeats a cut point, so a cut edge whose uncut end is dropped yields that point
  twice, as MuJoCo's does.

How often each pair agrees with MuJoCo is in benchmarks/collision_agreement.py (the multiccd rows) and the floors of
tests/test_collision.py; the poses that differ are mostly deep overlaps where MuJoCo takes another feature. Scratch
space: the feature polygons go to ``multiccd_feature`` (A's from slot 0, B's from slot 64) and the clipped polygon
ping-pongs between the two rows of ``multiccd_clip``.
"""

import math

from numba import njit

from mjgym.physics.collision.primitive import emit
from mjgym.physics.constants import GEOM_BOX
from mjgym.physics.constants import GEOM_CAPSULE
from mjgym.physics.constants import GEOM_CYLINDER
from mjgym.physics.constants import GEOM_MESH
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

# A face counts as facing the normal within this cosine, an edge as perpendicular to it below this sine (measured).
_FACE_COS = 0.996
_EDGE_SIN = 0.0888
# Most contacts kept from an edge and from a face.
_EDGE_MAX = 2
_FACE_MAX = 4

_VERTEX = 0
_EDGE = 1
_FACE = 2
# Corners of a cylinder's cap polygon (measured: MuJoCo's contacts on a cap's rim sit at multiples of 22.5 degrees).
_CAP_SIDES = 16

# Slots in multiccd_feature of the two features' corners.
_SLOT_A = 0
_SLOT_B = 64
# Most corners of a mesh face used; A's face fits below B's slot.
_POLY_MAX = 30


@njit(cache=True, error_model="numpy")
def applies(m, g1, g2):
  """Whether the pair is one this module handles: boxes, meshes and cylinders, and capsules against them."""
  t1, t2 = m.geom_type[g1], m.geom_type[g2]
  return ((t1 == GEOM_CAPSULE or t1 == GEOM_CYLINDER or t1 == GEOM_BOX or t1 == GEOM_MESH)
          and (t2 == GEOM_CYLINDER or t2 == GEOM_BOX or t2 == GEOM_MESH))


@njit(cache=True, error_model="numpy")
def _put(d, slot, p):
  for k in range(3):
    d.multiccd_feature[slot, k] = p[k]


@njit(cache=True, error_model="numpy")
def _nface(m, g):
  """Number of faces of box or mesh g (a mesh's are its compiled polygons)."""
  if m.geom_type[g] == GEOM_BOX:
    return 6
  return m.mesh_polynum[m.geom_dataid[g]]


@njit(cache=True, error_model="numpy")
def _face(m, d, g, f, slot):
  """Face f of box or mesh g: writes its world corners (counter-clockwise seen from outside) to multiccd_feature from
  slot when slot >= 0; returns their number and the world outward normal."""
  c = vec3(d.geom_xpos[g])
  mat = d.geom_xmat[g]
  if m.geom_type[g] == GEOM_BOX:
    s = m.geom_size[g]
    k, sg = f // 2, 1.0 - 2.0 * (f % 2)
    nrm = scl3(frame_axis(mat, k), sg)
    if slot >= 0:
      i, j = (k + 1) % 3, (k + 2) % 3
      fc = add_scl3(c, nrm, s[k])
      ai, aj = scl3(frame_axis(mat, i), s[i] * sg), scl3(frame_axis(mat, j), s[j])
      signs = ((-1.0, -1.0), (1.0, -1.0), (1.0, 1.0), (-1.0, 1.0))
      for q in range(4):
        _put(d, slot + q, add_scl3(add_scl3(fc, ai, signs[q][0]), aj, signs[q][1]))
    return 4, nrm
  mid = m.geom_dataid[g]
  vadr = m.mesh_vertadr[mid]
  p = m.mesh_polyadr[mid] + f
  a, num = m.mesh_polyvertadr[p], m.mesh_polyvertnum[p]
  # The normal from the stored corners (the fan's area vector), so that they lie in its plane to roundoff.
  va = vec3(m.mesh_vert[vadr + m.mesh_polyvert[a]])
  fn = (0.0, 0.0, 0.0)
  for q in range(1, num - 1):
    fn = add3(fn, cross(sub3(vec3(m.mesh_vert[vadr + m.mesh_polyvert[a + q]]), va),
                       sub3(vec3(m.mesh_vert[vadr + m.mesh_polyvert[a + q + 1]]), va)))
  ln = norm3(fn)
  if ln < 1e-15:
    return 0, (0.0, 0.0, 0.0)
  un = mat_vec(mat, scl3(fn, 1.0 / ln))
  if slot < 0:
    return num, un
  k = min(num, _POLY_MAX)
  for q in range(k):
    _put(d, slot + q, add3(c, mat_vec(mat, vec3(m.mesh_vert[vadr + m.mesh_polyvert[a + q]]))))
  return k, un


@njit(cache=True, error_model="numpy")
def _face_point(m, d, g, f):
  """A world point on the plane of face f of box or mesh g."""
  c = vec3(d.geom_xpos[g])
  mat = d.geom_xmat[g]
  if m.geom_type[g] == GEOM_BOX:
    k, sg = f // 2, 1.0 - 2.0 * (f % 2)
    return add_scl3(c, frame_axis(mat, k), sg * m.geom_size[g, k])
  mid = m.geom_dataid[g]
  p = m.mesh_polyadr[mid] + f
  return add3(c, mat_vec(mat, vec3(m.mesh_vert[m.mesh_vertadr[mid] + m.mesh_polyvert[m.mesh_polyvertadr[p]]])))


@njit(cache=True, error_model="numpy")
def _support_edge(m, d, g, u, slot, w):
  """The edge through the support vertex of g along u that is most perpendicular to u: writes its world ends to
  multiccd_feature[slot:slot + 2] (a polytope's support vertex first) and returns the sine of its angle to the plane
  normal to u.

  The edge of a capsule or a cylinder is the line of its surface through the collider's witness point w, parallel
  to its axis, between the planes of its ends.
  """
  c = vec3(d.geom_xpos[g])
  mat = d.geom_xmat[g]
  lu = mat_t_vec(mat, u)
  if m.geom_type[g] == GEOM_CAPSULE or m.geom_type[g] == GEOM_CYLINDER:
    a = frame_axis(mat, 2)
    h = m.geom_size[g, 1]
    rel = sub3(w, c)
    line = add_scl3(w, a, -dot3(rel, a))
    _put(d, slot, add_scl3(line, a, -h))
    _put(d, slot + 1, add_scl3(line, a, h))
    return abs(lu[2])
  if m.geom_type[g] == GEOM_BOX:
    s = m.geom_size[g]
    e = 0
    for i in range(1, 3):
      if abs(lu[i]) < abs(lu[e]):
        e = i
    corner = c
    for i in range(3):
      if i != e:
        corner = add_scl3(corner, frame_axis(mat, i), s[i] if lu[i] >= 0 else -s[i])
    # The support corner first.
    se = s[e] if lu[e] >= 0 else -s[e]
    _put(d, slot, add_scl3(corner, frame_axis(mat, e), se))
    _put(d, slot + 1, add_scl3(corner, frame_axis(mat, e), -se))
    return abs(lu[e])
  mid = m.geom_dataid[g]
  vadr = m.mesh_hulladr[mid]
  fadr, fnum = m.mesh_hullfaceadr[mid], m.mesh_hullfacenum[mid]
  sup, supv = 0, -math.inf
  for k in range(m.mesh_hullnum[mid]):
    v = dot3(vec3(m.mesh_hullvert[vadr + k]), lu)
    if v > supv:
      sup, supv = k, v
  other, best = sup, math.inf
  for f in range(fadr, fadr + fnum):
    for q in range(3):
      if m.mesh_hullface[f, q] != sup:
        continue
      for r in (1, 2):
        k = m.mesh_hullface[f, (q + r) % 3]
        e = sub3(vec3(m.mesh_hullvert[vadr + k]), vec3(m.mesh_hullvert[vadr + sup]))
        ln = norm3(e)
        if ln > 1e-15 and abs(dot3(e, lu)) / ln < best:
          other, best = k, abs(dot3(e, lu)) / ln
  _put(d, slot, add3(c, mat_vec(mat, vec3(m.mesh_hullvert[vadr + sup]))))
  _put(d, slot + 1, add3(c, mat_vec(mat, vec3(m.mesh_hullvert[vadr + other]))))
  return best


@njit(cache=True, error_model="numpy")
def _feature(m, d, g, u, slot, w):
  """Feature of geom g facing world direction u: (kind, number of corners from multiccd_feature[slot], face normal).

  A capsule has no face: its feature is its edge through the witness point w or, when too steep to u, a vertex. A
  cylinder's face is a cap (a disk: its center goes to the slot), its edge the side line through w.
  """
  none = (0.0, 0.0, 0.0)
  t = m.geom_type[g]
  if t == GEOM_CYLINDER:
    mat = d.geom_xmat[g]
    a = frame_axis(mat, 2)
    ca = dot3(a, u)
    if abs(ca) >= _FACE_COS:
      # The cap as MuJoCo's polygon: _CAP_SIDES corners on its rim at local angles 2 pi k / _CAP_SIDES from the
      # geom's x axis (counter-clockwise seen from outside).
      sg = 1.0 if ca > 0 else -1.0
      r = m.geom_size[g, 0]
      cen = add_scl3(vec3(d.geom_xpos[g]), a, sg * m.geom_size[g, 1])
      ax, ay = frame_axis(mat, 0), frame_axis(mat, 1)
      for k in range(_CAP_SIDES):
        ang = sg * 2.0 * math.pi * k / _CAP_SIDES
        _put(d, slot + k, add_scl3(add_scl3(cen, ax, r * math.cos(ang)), ay, r * math.sin(ang)))
      return _FACE, _CAP_SIDES, scl3(a, sg)
  elif t != GEOM_CAPSULE:
    best, bestc = -1, -math.inf
    for f in range(_nface(m, g)):
      k, fn = _face(m, d, g, f, -1)
      if k > 0 and dot3(fn, u) > bestc:
        best, bestc = f, dot3(fn, u)
    if bestc >= _FACE_COS:
      k, fn = _face(m, d, g, best, slot)
      return _FACE, k, fn
  if _support_edge(m, d, g, u, slot, w) < _EDGE_SIN:
    return _EDGE, 2, none
  return _VERTEX, 0, none


@njit(cache=True, error_model="numpy")
def _face_along(m, d, g, slot, e, ends):
  """A face of polytope g at its support edge or vertex that contains direction e within the edge tolerance.

  The edge is multiccd_feature[slot:slot + 2], the vertex multiccd_feature[slot] (``ends`` 2 or 1). Of the faces
  whose planes hold those ends, the one whose normal is most perpendicular to e; when found it replaces the edge in
  multiccd_feature from slot. Returns (corners, outward normal), 0 corners when there is none.
  """
  if m.geom_type[g] != GEOM_BOX and m.geom_type[g] != GEOM_MESH:
    return 0, (0.0, 0.0, 0.0)
  p0, p1 = vec3(d.multiccd_feature[slot]), vec3(d.multiccd_feature[slot + 1])
  ue = scl3(e, 1.0 / norm3(e))
  tol = 1e-9 * (m.geom_rbound[g] + 1.0)
  best, bests = -1, _EDGE_SIN
  for f in range(_nface(m, g)):
    k, fn = _face(m, d, g, f, -1)
    if k == 0:
      continue
    q0 = _face_point(m, d, g, f)
    if abs(dot3(sub3(p0, q0), fn)) > tol or (ends == 2 and abs(dot3(sub3(p1, q0), fn)) > tol):
      continue
    if abs(dot3(ue, fn)) < bests:
      best, bests = f, abs(dot3(ue, fn))
  if best < 0:
    return 0, (0.0, 0.0, 0.0)
  return _face(m, d, g, best, slot)


@njit(cache=True, error_model="numpy")
def _at_end(d, eslot, w, size):
  """Whether point w is (within 1e-9 of the geom's size) an end of edge multiccd_feature[eslot:eslot + 2]."""
  tol = 1e-9 * (size + 1.0)
  return (norm3(sub3(w, vec3(d.multiccd_feature[eslot]))) <= tol or norm3(sub3(w, vec3(d.multiccd_feature[eslot + 1]))) <= tol)


@njit(cache=True, error_model="numpy")
def _clip(d, cnt, slot, k, fn):
  """Clips polygon multiccd_clip[0, :cnt] by the side planes of face multiccd_feature[slot:slot + k] (normal fn).

  Sutherland-Hodgman, each plane keeping the side of the face's centroid: a point is kept when inside, a crossing
  adds the cut point. Returns the count and the row of multiccd_clip that holds the result.
  """
  centroid = (0.0, 0.0, 0.0)
  for q in range(k):
    centroid = add_scl3(centroid, vec3(d.multiccd_feature[slot + q]), 1.0 / k)
  src = 0
  for j in range(k):
    a = vec3(d.multiccd_feature[slot + j])
    side = cross(sub3(vec3(d.multiccd_feature[slot + (j + 1) % k]), a), fn)
    if dot3(sub3(centroid, a), side) > 0:
      side = scl3(side, -1.0)
    dst = 1 - src
    out = 0
    for q in range(cnt):
      p = vec3(d.multiccd_clip[src, q])
      r = vec3(d.multiccd_clip[src, (q + 1) % cnt])
      dp, dr = dot3(sub3(p, a), side), dot3(sub3(r, a), side)
      if dp <= 0:
        for t in range(3):
          d.multiccd_clip[dst, out, t] = p[t]
        out += 1
      if (dp <= 0) != (dr <= 0):
        x = add_scl3(p, sub3(r, p), dp / (dp - dr))
        for t in range(3):
          d.multiccd_clip[dst, out, t] = x[t]
        out += 1
    cnt = out
    src = dst
    if cnt == 0:
      break
  return cnt, src


@njit(cache=True, error_model="numpy")
def contacts(m, d, g1, g2, margin, i0, nrm, wa, wb):
  """Replaces the collider's contact of g1 and g2 (normal nrm from g1 to g2) by the clipped contact region.

  ``wa`` and ``wb`` are the collider's witness points on the two surfaces. Writes contacts from row i0 and returns
  their count, or 0 when the features give none (the caller keeps its own single contact).
  """
  ka, na, fa = _feature(m, d, g1, nrm, _SLOT_A, wa)
  kb, nb, fb = _feature(m, d, g2, scl3(nrm, -1.0), _SLOT_B, wb)
  if (ka == _EDGE and (kb == _EDGE or kb == _VERTEX)) or (kb == _EDGE and ka == _VERTEX):
    # An edge lying (within the edge tolerance) in a face at the other's support edge or vertex meets that face,
    # B's faces tried first.
    k = 0
    if ka == _EDGE:
      ea = sub3(vec3(d.multiccd_feature[_SLOT_A + 1]), vec3(d.multiccd_feature[_SLOT_A]))
      k, fn = _face_along(m, d, g2, _SLOT_B, ea, 2 if kb == _EDGE else 1)
      if k > 0:
        kb, nb, fb = _FACE, k, fn
    if k == 0 and kb == _EDGE:
      eb = sub3(vec3(d.multiccd_feature[_SLOT_B + 1]), vec3(d.multiccd_feature[_SLOT_B]))
      k, fn = _face_along(m, d, g1, _SLOT_A, eb, 2 if ka == _EDGE else 1)
      if k > 0:
        ka, na, fa = _FACE, k, fn
    if k == 0:
      return 0
  if ka == _VERTEX or kb == _VERTEX:
    return 0
  # A box's edge against a cylinder's cap where the collider's witness point on the box is a corner of that edge
  # (the edge's deeper end lies over the cap): MuJoCo keeps the collider's one contact (measured). When the witness
  # lies inside the edge (the deeper end beyond the rim, or the edge level with the cap) it clips the edge.
  if ka == _FACE and kb == _EDGE and m.geom_type[g1] == GEOM_CYLINDER and m.geom_type[g2] == GEOM_BOX:
    if _at_end(d, _SLOT_B, wb, m.geom_rbound[g2]):
      return 0
  if kb == _FACE and ka == _EDGE and m.geom_type[g2] == GEOM_CYLINDER and m.geom_type[g1] == GEOM_BOX:
    if _at_end(d, _SLOT_A, wa, m.geom_rbound[g1]):
      return 0
  # A cylinder's cap against a face of B is clipped by B's face (measured), every other face of A clips B's feature.
  ref_a = ka == _FACE and not (kb == _FACE and m.geom_type[g1] == GEOM_CYLINDER)
  if ref_a:
    # B's feature clipped by A's face; points on B paired with their projections on A's face plane.
    ref, kref, fn, sub_slot, nsub = _SLOT_A, na, fa, _SLOT_B, nb
    normal = scl3(fb, -1.0) if kb == _FACE else fa
    cap = _FACE_MAX if kb == _FACE else _EDGE_MAX
  else:
    # A's feature clipped by B's face; points on A paired with their projections on B's face plane.
    ref, kref, fn, sub_slot, nsub = _SLOT_B, nb, fb, _SLOT_A, na
    normal = scl3(fb, -1.0)
    cap = _FACE_MAX if ka == _FACE else _EDGE_MAX
  for q in range(nsub):
    for t in range(3):
      d.multiccd_clip[0, q, t] = d.multiccd_feature[sub_slot + q, t]
  # A cap is clipped by planes through B's edges parallel to the cap's normal (measured), not B's.
  spread = ka == _FACE and kb == _FACE and m.geom_type[g1] == GEOM_CYLINDER
  cnt, row = _clip(d, nsub, ref, kref, fa if spread else fn)
  origin = vec3(d.multiccd_feature[ref])
  # A clipped cap keeps 4 of its points spread around it: those of rank 1, 1 + n/4, 1 + n/2, 1 + 3n/4 among the n
  # within the margin (MuJoCo's choice among a whole cap's 16 corners is mostly every fourth from corner 1; its rule
  # for partly clipped caps and its other choices are not reproduced).
  valid = 0
  if spread:
    for q in range(cnt):
      if _pair_dist(d, row, q, fn, origin, ref_a, normal) <= margin:
        valid += 1
  elif cap == _FACE_MAX:
    # The points within the margin, kept in order in the other row; more than 4 of them are pruned, as MuJoCo
    # prunes them, to the quadrilateral of largest area.
    keep = 1 - row
    for q in range(cnt):
      if _pair_dist(d, row, q, fn, origin, ref_a, normal) <= margin:
        for t in range(3):
          d.multiccd_clip[keep, valid, t] = d.multiccd_clip[row, q, t]
        valid += 1
    if valid > cap:
      quad = _largest_quad(d, keep, valid)
      for k in range(cap):
        dist = _pair_dist(d, keep, quad[k], fn, origin, ref_a, normal)
        p = vec3(d.multiccd_clip[keep, quad[k]])
        proj = add_scl3(p, fn, -dot3(sub3(p, origin), fn))
        emit(d, i0 + k, dist, add_scl3(proj if ref_a else p, normal, 0.5 * dist), normal)
      return cap
  found = 0
  rank = 0
  for q in range(cnt):
    if found == cap:
      break
    dist = _pair_dist(d, row, q, fn, origin, ref_a, normal)
    if dist > margin:
      continue
    rank += 1
    if spread and valid > cap:
      r = rank - 1
      pick = False
      for k in range(cap):
        if r == (1 + k * valid // cap) % valid:
          pick = True
      if not pick:
        continue
    p = vec3(d.multiccd_clip[row, q])
    proj = add_scl3(p, fn, -dot3(sub3(p, origin), fn))
    pa = proj if ref_a else p
    emit(d, i0 + found, dist, add_scl3(pa, normal, 0.5 * dist), normal)
    found += 1
  return found


@njit(cache=True, error_model="numpy")
def _largest_quad(d, row, n):
  """The four of the n points of convex polygon multiccd_clip[row, :n] (in order around it) that span the largest
  quadrilateral (half the cross product of its diagonals); the first in lexicographic order among equals."""
  best, area = (0, 1, 2, 3), -1.0
  for i in range(n):
    for j in range(i + 1, n):
      for k in range(j + 1, n):
        for l in range(k + 1, n):
          diag = cross(sub3(vec3(d.multiccd_clip[row, k]), vec3(d.multiccd_clip[row, i])),
                       sub3(vec3(d.multiccd_clip[row, l]), vec3(d.multiccd_clip[row, j])))
          a = 0.5 * norm3(diag)
          if a > area:
            best, area = (i, j, k, l), a
  return best


@njit(cache=True, error_model="numpy")
def _pair_dist(d, row, q, fn, origin, ref_a, normal):
  """Distance along normal between clipped point multiccd_clip[row, q] and its projection on the reference plane."""
  p = vec3(d.multiccd_clip[row, q])
  proj = add_scl3(p, fn, -dot3(sub3(p, origin), fn))
  pa, pb = (proj, p) if ref_a else (p, proj)
  return dot3(sub3(pb, pa), normal)
