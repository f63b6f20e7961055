"""Box colliders: capsule-box through a ball on the capsule's segment, box-box by separating axes and face clipping.

Box-box collider: separating-axis test over the 15 candidate axes, then face clipping or edge-edge closest points.

The axes are the 6 face normals and the 9 cross products of an edge of each box. The contact type is MuJoCo's, which
favours faces (measured with the ``mujoco`` package over ~70k random poses, every one reproduced; no source read):
with ``sf`` the largest separation over the face axes and ``se`` over the edge axes, an edge axis is taken only when

    se - sf > 1e-6 |se|   and   (se - sf > 0.05 |sf|   or   |n_face . n_edge| < 0.99),

so an edge axis must separate clearly more than the best face, or by at least 5% of the face's separation when its
normal lies within about 8 degrees of that face's normal. A face axis makes that face the reference: the most
opposed face of the other box is clipped against the reference face's four side planes and every clipped corner
within margin becomes a contact (up to 8). An edge axis gives one contact between the two supporting edges.
Polygons are clipped in the Data scratch ``col_vert`` (rows 0 and 1 ping-pong), so nothing is allocated.
"""

import math

from numba import njit

from mjgym.physics.collision import convex
from mjgym.physics.collision.primitive import add
from mjgym.physics.collision.primitive import addscl
from mjgym.physics.collision.primitive import axis
from mjgym.physics.collision.primitive import ball_box
from mjgym.physics.collision.primitive import cross
from mjgym.physics.collision.primitive import dot
from mjgym.physics.collision.primitive import emit
from mjgym.physics.collision.primitive import norm
from mjgym.physics.collision.primitive import scl
from mjgym.physics.collision.primitive import sub
from mjgym.physics.collision.primitive import to_local
from mjgym.physics.collision.primitive import vec

# MuJoCo's preference for face axes (see the module docstring): an edge axis must separate more by this fraction of
# its own separation, and by this fraction of the face's when the two normals are within _FACE_COS of each other.
_EDGE_TOL = 1e-6
_FACE_BIAS = 0.05
_FACE_COS = 0.99


@njit(cache=True)
def _radius(mat, s, u):
  """Half the extent of a box along unit direction u."""
  return (s[0] * abs(dot(axis(mat, 0), u)) + s[1] * abs(dot(axis(mat, 1), u))
          + s[2] * abs(dot(axis(mat, 2), u)))


@njit(cache=True)
def box_box(m, d, g1, g2, margin, i0):
  """Box and box: up to 8 contacts on a face, or one between two edges."""
  c1, c2 = vec(d.geom_xpos[g1]), vec(d.geom_xpos[g2])
  r1, r2 = d.geom_xmat[g1], d.geom_xmat[g2]
  s1, s2 = m.geom_size[g1], m.geom_size[g2]
  delta = sub(c2, c1)
  face_sep, face_kind, face_i, face_u = -math.inf, 0, 0, (0.0, 0.0, 0.0)
  edge_sep, edge_i, edge_j, edge_u = -math.inf, 0, 0, (0.0, 0.0, 0.0)
  for kind in range(3):
    for i in range(3):
      for j in range(3 if kind == 2 else 1):
        if kind == 0:
          u = axis(r1, i)
        elif kind == 1:
          u = axis(r2, i)
        else:
          u = cross(axis(r1, i), axis(r2, j))
          ln = norm(u)
          if ln < 1e-6:
            continue
          u = scl(u, 1.0 / ln)
        sep = abs(dot(delta, u)) - _radius(r1, s1, u) - _radius(r2, s2, u)
        if sep > margin:
          return 0
        if kind < 2:
          if sep > face_sep:
            face_sep, face_kind, face_i, face_u = sep, kind, i, u
        elif sep > edge_sep:
          edge_sep, edge_i, edge_j, edge_u = sep, i, j, u
  gain = edge_sep - face_sep
  if gain > _EDGE_TOL * abs(edge_sep) and (gain > _FACE_BIAS * abs(face_sep)
                                           or abs(dot(face_u, edge_u)) < _FACE_COS):
    n = edge_u if dot(delta, edge_u) >= 0 else scl(edge_u, -1.0)
    return _edge_edge(d, c1, r1, s1, c2, r2, s2, n, edge_i, edge_j, margin, i0)
  n = face_u if dot(delta, face_u) >= 0 else scl(face_u, -1.0)
  if face_kind == 0:
    return _face(d, c1, r1, s1, face_i, n, c2, r2, s2, n, margin, i0)
  return _face(d, c2, r2, s2, face_i, scl(n, -1.0), c1, r1, s1, n, margin, i0)


@njit(cache=True)
def _edge_edge(d, c1, r1, s1, c2, r2, s2, n, i, j, margin, i0):
  """Closest points of box 1's edge along axis i farthest along n and box 2's edge along axis j farthest against n."""
  p1, p2 = c1, c2
  for k in range(3):
    if k != i:
      a = axis(r1, k)
      p1 = addscl(p1, a, s1[k] if dot(a, n) > 0 else -s1[k])
    if k != j:
      b = axis(r2, k)
      p2 = addscl(p2, b, -s2[k] if dot(b, n) > 0 else s2[k])
  e1, e2 = scl(axis(r1, i), s1[i]), scl(axis(r2, j), s2[j])
  w = sub(p1, p2)
  aa, bb, ab = dot(e1, e1), dot(e2, e2), dot(e1, e2)
  aw, bw = dot(e1, w), dot(e2, w)
  det = aa * bb - ab * ab
  t1 = min(1.0, max(-1.0, (ab * bw - bb * aw) / det))
  t2 = min(1.0, max(-1.0, (ab * t1 + bw) / bb))
  q1, q2 = addscl(p1, e1, t1), addscl(p2, e2, t2)
  dist = dot(sub(q2, q1), n)
  if dist > margin:
    return 0
  emit(d, i0, dist, scl(add(q1, q2), 0.5), n)
  return 1


@njit(cache=True)
def _face(d, cr, rr, sr, k, out, ci, ri, si, n, margin, i0):
  """Clips the incident box's face most opposed to ``out`` (reference face k's outward normal) against face k."""
  # Incident face: the face of the other box whose normal is most anti-parallel to out.
  best, bestdot = 0, math.inf
  for j in range(3):
    dj = dot(axis(ri, j), out)
    if -abs(dj) < bestdot:
      best, bestdot = j, -abs(dj)
  a = axis(ri, best)
  fsign = -1.0 if dot(a, out) > 0 else 1.0
  fc = addscl(ci, a, fsign * si[best])
  u, v = (best + 1) % 3, (best + 2) % 3
  au, av = scl(axis(ri, u), si[u]), scl(axis(ri, v), si[v])
  corners = ((1.0, 1.0), (-1.0, 1.0), (-1.0, -1.0), (1.0, -1.0))
  for q in range(4):
    p = addscl(addscl(fc, au, corners[q][0]), av, corners[q][1])
    for t in range(3):
      d.col_vert[0, q, t] = p[t]
  cnt = 4
  src = 0
  # Clip against the 4 side planes of the reference face: |(p - cr) . axis_j| <= sr[j] for j != k.
  for j in range(3):
    if j == k:
      continue
    aj = axis(rr, j)
    for side in (1.0, -1.0):
      nrm = scl(aj, side)
      cnt = _clip(d, src, cnt, nrm, dot(cr, nrm) + sr[j])
      src = 1 - src
      if cnt == 0:
        return 0
  face_c = addscl(cr, out, sr[k])
  found = 0
  for q in range(cnt):
    p = vec(d.col_vert[src, q])
    dist = dot(sub(p, face_c), out)
    if dist > margin:
      continue
    emit(d, i0 + found, dist, addscl(p, out, -0.5 * dist), n)
    found += 1
  return found


@njit(cache=True)
def _clip(d, src, cnt, nrm, offset):
  """Sutherland-Hodgman: keeps the part of polygon col_vert[src, :cnt] with p . nrm <= offset in col_vert[1 - src]."""
  dst = 1 - src
  out = 0
  for q in range(cnt):
    p = vec(d.col_vert[src, q])
    r = vec(d.col_vert[src, (q + 1) % cnt])
    dp, dr = dot(p, nrm) - offset, dot(r, nrm) - offset
    if dp <= 0:
      for t in range(3):
        d.col_vert[dst, out, t] = p[t]
      out += 1
    if (dp < 0 < dr) or (dr < 0 < dp):
      x = addscl(p, sub(r, p), dp / (dp - dr))
      for t in range(3):
        d.col_vert[dst, out, t] = x[t]
      out += 1
  return out


@njit(cache=True)
def _excess2(lc, la, s, t):
  """Squared distance from the box to the segment point lc + t la (box frame)."""
  f = 0.0
  for i in range(3):
    x = lc[i] + t * la[i]
    e = max(abs(x) - s[i], 0.0)
    f += e * e
  return f


@njit(cache=True)
def _stationary(lc, la, s, t, eps):
  """Minimizer over the line of the quadratic piece of the squared box distance just right of parameter t."""
  num, den = 0.0, 0.0
  for i in range(3):
    x = lc[i] + (t + eps) * la[i]
    if x > s[i]:
      num += la[i] * (lc[i] - s[i])
      den += la[i] * la[i]
    elif x < -s[i]:
      num += la[i] * (lc[i] + s[i])
      den += la[i] * la[i]
  if den < 1e-300:
    return t
  return min(1.0, max(-1.0, -num / den))


@njit(cache=True)
def _segment_box_closest(lc, la, s):
  """Parameter in [-1, 1] of the segment point lc + t la nearest the box, and its squared distance.

  The squared distance is convex and piecewise quadratic in t, with pieces bounded where a coordinate crosses a face
  plane; its minimum is an end, a crossing, or the stationary point of the piece right of one of those.
  """
  best_t, best_f = -1.0, _excess2(lc, la, s, -1.0)
  f = _excess2(lc, la, s, 1.0)
  if f < best_f:
    best_t, best_f = 1.0, f
  # Pieces shorter than this are not looked into: their stationary points are their ends.
  eps = 1e-12
  for k in range(7):
    if k == 0:
      t = -1.0
    else:
      i, side = (k - 1) // 2, 1.0 if k % 2 else -1.0
      if abs(la[i]) < 1e-300:
        continue
      t = (side * s[i] - lc[i]) / la[i]
      if not -1.0 < t < 1.0:
        continue
      f = _excess2(lc, la, s, t)
      if f < best_f:
        best_t, best_f = t, f
    ts = _stationary(lc, la, s, t, eps)
    f = _excess2(lc, la, s, ts)
    if f < best_f:
      best_t, best_f = ts, f
  return best_t, best_f


@njit(cache=True)
def _inside(lc, la, s, t):
  """Whether the segment point lc + t la (box frame) lies in the box."""
  for i in range(3):
    if abs(lc[i] + t * la[i]) > s[i]:
      return False
  return True


@njit(cache=True)
def capsule_box(m, d, g1, g2, margin, i0):
  """Capsule and box: a ball at one point of the capsule's segment against the box.

  While the segment stays outside the box the point is its nearest to the box, and a second ball may follow (see
  ``_second_point``). Once an end of the segment is in the box, MuJoCo's ball sits at that end (the -1 end when both
  are), which leaves through the box face nearest to it; this is measured with the ``mujoco`` package. A segment that
  crosses the box with both ends outside goes to the general collider (true penetration depth), where MuJoCo's own
  choice is not reproduced.
  """
  c = vec(d.geom_xpos[g1])
  a = scl(axis(d.geom_xmat[g1], 2), m.geom_size[g1, 1])
  cb, mat, s = vec(d.geom_xpos[g2]), d.geom_xmat[g2], m.geom_size[g2]
  lc, la = to_local(mat, sub(c, cb)), to_local(mat, a)
  t, f = _segment_box_closest(lc, la, s)
  r = m.geom_size[g1, 0]
  if f <= 0.0:
    if _inside(lc, la, s, -1.0):
      t = -1.0
    elif _inside(lc, la, s, 1.0):
      t = 1.0
    else:
      return convex.convex(m, d, g1, g2, margin, i0)
    return ball_box(d, addscl(c, a, t), r, cb, mat, s, margin, i0)
  if ball_box(d, addscl(c, a, t), r, cb, mat, s, margin, i0) == 0:
    return 0
  t2 = _second_point(lc, la, s, t)
  if abs(t2 - t) < 1e-10:
    return 1
  return 1 + ball_box(d, addscl(c, a, t2), r, cb, mat, s, margin, i0 + 1)


@njit(cache=True)
def _second_point(lc, la, s, t):
  """Segment parameter of MuJoCo's second capsule-box ball, or t itself when there is none (box frame).

  Measured with the ``mujoco`` package. The nearest point (parameter t) faces a box face, edge or corner. A corner gets
  no second ball. Otherwise take that face, or of an edge's two faces the one the contact normal is closest to, and
  walk along the segment away from the face's plane: the second ball sits where the witness point of the first would
  leave the face (its other coordinates reach the face's sides), or at the segment's end if that comes first. For a
  face this is MuJoCo's choice in every pose tried; for an edge in about 95%.
  """
  q = (lc[0] + t * la[0], lc[1] + t * la[1], lc[2] + t * la[2])
  j, excess, nout = -1, 0.0, 0
  for i in range(3):
    e = abs(q[i]) - s[i]
    if e > 0.0:
      nout += 1
      if e > excess:
        j, excess = i, e
  if nout == 0 or nout == 3:
    return t
  step = 1.0 if la[j] * q[j] >= 0.0 else -1.0
  best = step
  for i in range(3):
    if i == j or abs(la[i]) < 1e-12:
      continue
    w = min(s[i], max(-s[i], q[i]))
    target = s[i] if la[i] * step > 0.0 else -s[i]
    tc = t + (target - w) / la[i]
    if (tc - best) * step < 0.0:
      best = tc
  return min(1.0, max(-1.0, best))
