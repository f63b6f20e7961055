"""Box colliders: capsule-box through balls on the capsule's segment, box-box by separating axes and face clipping.

Box-box collider: separating-axis test over the 15 candidate axes, then face clipping or edge-edge closest points.

The axes are the 6 face normals and the 9 cross products of an edge of each box. The contact type is MuJoCo's, which
favours faces (measured with the ``mujoco`` package over ~70k random poses, every one reproduced; no source read):
with ``sf`` the largest separation over the face axes and ``se`` over the edge axes, an edge axis is taken only when

    se - sf > 1e-6 |se|   and   (se - sf > 0.05 |sf|   or   |n_face . n_edge| < 0.99),

so an edge axis must separate clearly more than the best face, or by at least 5% of the face's separation when its
normal lies within about 8 degrees of that face's normal. A face axis makes that face the reference: the most
opposed face of the other box is clipped against the reference face's four side planes and every clipped corner
within margin becomes a contact (up to 8), but for a corner a round-off away from one already kept. An edge axis
gives one contact between the two supporting edges.
Polygons are clipped in the Data scratch ``box_clip`` (its two rows ping-pong), so nothing is allocated.
"""

import math

from numba import njit

from mjgym.physics.collision.primitive import ball_box
from mjgym.physics.collision.primitive import emit
from mjgym.physics.math import add3
from mjgym.physics.math import add_scl3
from mjgym.physics.math import cross
from mjgym.physics.math import dot3
from mjgym.physics.math import frame_axis
from mjgym.physics.math import mat_t_vec
from mjgym.physics.math import norm3
from mjgym.physics.math import scl3
from mjgym.physics.math import sub3
from mjgym.physics.math import vec3

# MuJoCo's preference for face axes (see the module docstring): an edge axis must separate more by this fraction of
# its own separation, and by this fraction of the face's when the two normals are within _FACE_COS of each other.
_EDGE_TOL = 1e-6
_FACE_BIAS = 0.05
_FACE_COS = 0.99
# A capsule segment and a box edge count as parallel below this sin^2 of their angle.
_PARALLEL = 1e-12
# Clipped corners closer than this squared distance, relative to the reference face's squared size, are one (MuJoCo's
# mjBOXBOX_DUPEPS).
_DUPLICATE = 1e-14


@njit(cache=True, error_model="numpy")
def _radius(mat, s, u):
  """Half the extent of a box along unit direction u."""
  return (s[0] * abs(dot3(frame_axis(mat, 0), u)) + s[1] * abs(dot3(frame_axis(mat, 1), u))
          + s[2] * abs(dot3(frame_axis(mat, 2), u)))


@njit(cache=True, error_model="numpy")
def box_box(m, d, g1, g2, margin, i0):
  """Box and box: up to 8 contacts on a face, or one between two edges."""
  c1, c2 = vec3(d.geom_xpos[g1]), vec3(d.geom_xpos[g2])
  r1, r2 = d.geom_xmat[g1], d.geom_xmat[g2]
  s1, s2 = m.geom_size[g1], m.geom_size[g2]
  delta = sub3(c2, c1)
  face_sep, face_kind, face_i, face_u = -math.inf, 0, 0, (0.0, 0.0, 0.0)
  edge_sep, edge_i, edge_j, edge_u = -math.inf, 0, 0, (0.0, 0.0, 0.0)
  for kind in range(3):
    for i in range(3):
      for j in range(3 if kind == 2 else 1):
        if kind == 0:
          u = frame_axis(r1, i)
        elif kind == 1:
          u = frame_axis(r2, i)
        else:
          u = cross(frame_axis(r1, i), frame_axis(r2, j))
          ln = norm3(u)
          if ln < 1e-6:
            continue
          u = scl3(u, 1.0 / ln)
        sep = abs(dot3(delta, u)) - _radius(r1, s1, u) - _radius(r2, s2, u)
        if sep > margin:
          return 0
        if kind < 2:
          if sep > face_sep:
            face_sep, face_kind, face_i, face_u = sep, kind, i, u
        elif sep > edge_sep:
          edge_sep, edge_i, edge_j, edge_u = sep, i, j, u
  gain = edge_sep - face_sep
  if gain > _EDGE_TOL * abs(edge_sep) and (gain > _FACE_BIAS * abs(face_sep)
                                           or abs(dot3(face_u, edge_u)) < _FACE_COS):
    n = edge_u if dot3(delta, edge_u) >= 0 else scl3(edge_u, -1.0)
    return _edge_edge(d, c1, r1, s1, c2, r2, s2, n, edge_i, edge_j, margin, i0)
  n = face_u if dot3(delta, face_u) >= 0 else scl3(face_u, -1.0)
  if face_kind == 0:
    return _face(d, c1, r1, s1, face_i, n, c2, r2, s2, n, margin, i0)
  return _face(d, c2, r2, s2, face_i, scl3(n, -1.0), c1, r1, s1, n, margin, i0)


@njit(cache=True, error_model="numpy")
def _edge_edge(d, c1, r1, s1, c2, r2, s2, n, i, j, margin, i0):
  """Closest points of box 1's edge along axis i farthest along n and box 2's edge along axis j farthest against n."""
  p1, p2 = c1, c2
  for k in range(3):
    if k != i:
      a = frame_axis(r1, k)
      p1 = add_scl3(p1, a, s1[k] if dot3(a, n) > 0 else -s1[k])
    if k != j:
      b = frame_axis(r2, k)
      p2 = add_scl3(p2, b, -s2[k] if dot3(b, n) > 0 else s2[k])
  e1, e2 = scl3(frame_axis(r1, i), s1[i]), scl3(frame_axis(r2, j), s2[j])
  w = sub3(p1, p2)
  aa, bb, ab = dot3(e1, e1), dot3(e2, e2), dot3(e1, e2)
  aw, bw = dot3(e1, w), dot3(e2, w)
  det = aa * bb - ab * ab
  t1 = min(1.0, max(-1.0, (ab * bw - bb * aw) / det))
  t2 = min(1.0, max(-1.0, (ab * t1 + bw) / bb))
  q1, q2 = add_scl3(p1, e1, t1), add_scl3(p2, e2, t2)
  dist = dot3(sub3(q2, q1), n)
  if dist > margin:
    return 0
  emit(d, i0, dist, scl3(add3(q1, q2), 0.5), n)
  return 1


@njit(cache=True, error_model="numpy")
def _face(d, cr, rr, sr, k, out, ci, ri, si, n, margin, i0):
  """Clips the incident box's face most opposed to ``out`` (reference face k's outward normal) against face k."""
  # Incident face: the face of the other box whose normal is most anti-parallel to out.
  best, bestdot = 0, math.inf
  for j in range(3):
    dj = dot3(frame_axis(ri, j), out)
    if -abs(dj) < bestdot:
      best, bestdot = j, -abs(dj)
  a = frame_axis(ri, best)
  fsign = -1.0 if dot3(a, out) > 0 else 1.0
  fc = add_scl3(ci, a, fsign * si[best])
  u, v = (best + 1) % 3, (best + 2) % 3
  au, av = scl3(frame_axis(ri, u), si[u]), scl3(frame_axis(ri, v), si[v])
  corners = ((1.0, 1.0), (-1.0, 1.0), (-1.0, -1.0), (1.0, -1.0))
  for q in range(4):
    p = add_scl3(add_scl3(fc, au, corners[q][0]), av, corners[q][1])
    for t in range(3):
      d.box_clip[0, q, t] = p[t]
  cnt = 4
  src = 0
  # Clip against the 4 side planes of the reference face, |(p - cr) . axis_j| <= sr[j], in MuJoCo's order (the axes
  # after k cyclically, + side then - side), which sets where the clipped polygon starts.
  for j in ((k + 1) % 3, (k + 2) % 3):
    aj = frame_axis(rr, j)
    for side in (1.0, -1.0):
      nrm = scl3(aj, side)
      cnt = _clip(d, src, cnt, nrm, dot3(cr, nrm) + sr[j])
      src = 1 - src
      if cnt == 0:
        return 0
  face_c = add_scl3(cr, out, sr[k])
  # Clipping at a corner of the reference face can leave two corners a round-off apart; MuJoCo keeps the first of
  # corners closer than this (squared, across the face) relative to the face's size.
  ru, rv = (k + 1) % 3, (k + 2) % 3
  dup2 = _DUPLICATE * (sr[ru] * sr[ru] + sr[rv] * sr[rv])
  found = 0
  kept = 0  # bit q: corner q is a contact
  for q in range(cnt):
    p = vec3(d.box_clip[src, q])
    dist = dot3(sub3(p, face_c), out)
    if dist > margin or _repeats(d, src, kept, q, p, frame_axis(rr, ru), frame_axis(rr, rv), dup2):
      continue
    emit(d, i0 + found, dist, add_scl3(p, out, -0.5 * dist), n)
    found += 1
    kept |= 1 << q
  return found


@njit(cache=True, error_model="numpy")
def _repeats(d, src, kept, q, p, au, av, dup2):
  """Whether a corner kept before corner q lies within the duplicate radius of p across the face (axes au, av)."""
  for r in range(q):
    if (kept >> r) & 1:
      e = sub3(vec3(d.box_clip[src, r]), p)
      du, dv = dot3(e, au), dot3(e, av)
      if du * du + dv * dv < dup2:
        return True
  return False


@njit(cache=True, error_model="numpy")
def _clip(d, src, cnt, nrm, offset):
  """Sutherland-Hodgman: keeps the part of polygon box_clip[src, :cnt] with p . nrm <= offset in box_clip[1 - src]."""
  dst = 1 - src
  out = 0
  for q in range(cnt):
    p = vec3(d.box_clip[src, q])
    r = vec3(d.box_clip[src, (q + 1) % cnt])
    dp, dr = dot3(p, nrm) - offset, dot3(r, nrm) - offset
    if dp <= 0:
      for t in range(3):
        d.box_clip[dst, out, t] = p[t]
      out += 1
    if (dp < 0 < dr) or (dr < 0 < dp):
      x = add_scl3(p, sub3(r, p), dp / (dp - dr))
      for t in range(3):
        d.box_clip[dst, out, t] = x[t]
      out += 1
  return out


@njit(cache=True, error_model="numpy")
def _edge_point(s, ax, s1, s2, u):
  """Point u in [-1, 1] along the box edge parallel to axis ax, on side s1 of the lower other axis and s2 of the
  higher (box frame)."""
  lo = 1 if ax == 0 else 0
  return (u * s[0] if ax == 0 else (s1 if lo == 0 else s2) * s[0],
          u * s[1] if ax == 1 else (s1 if lo == 1 else s2) * s[1],
          u * s[2] if ax == 2 else s2 * s[2])


@njit(cache=True, error_model="numpy")
def _nearest_on_edge(lc, la, s, ax, s1, s2):
  """Closest points of the segment lc +- la and a box edge (see ``_edge_point``), box frame.

  Returns the segment parameter in [-1, 1], the edge point and their squared distance. When the two are parallel
  (every point of their overlap is nearest) the pair is MuJoCo's: the nearest of the edge's two ends against the
  segment, then of the segment's two ends against the edge, the first of these on ties.
  """
  w = sub3(lc, _edge_point(s, ax, s1, s2, 0.0))
  aa, bb, ab = dot3(la, la), s[ax] * s[ax], la[ax] * s[ax]
  aw, bw = dot3(la, w), w[ax] * s[ax]
  det = aa * bb - ab * ab
  if det > _PARALLEL * aa * bb:
    t = min(1.0, max(-1.0, (ab * bw - bb * aw) / det))
    u = min(1.0, max(-1.0, (ab * t + bw) / bb))
    t = min(1.0, max(-1.0, (ab * u - aw) / aa))
    q = _edge_point(s, ax, s1, s2, u)
    return t, q, _dist2(add_scl3(lc, la, t), q)
  best_t, best_q, best = 0.0, (0.0, 0.0, 0.0), math.inf
  for k in range(4):
    end = -1.0 if k % 2 == 0 else 1.0
    if k < 2:
      u, t = end, min(1.0, max(-1.0, (ab * end - aw) / aa))
    else:
      t, u = end, min(1.0, max(-1.0, (ab * end + bw) / bb))
    q = _edge_point(s, ax, s1, s2, u)
    f = _dist2(add_scl3(lc, la, t), q)
    if f < best:
      best_t, best_q, best = t, q, f
  return best_t, best_q, best


@njit(cache=True, error_model="numpy")
def _dist2(p, q):
  r = sub3(p, q)
  return dot3(r, r)


@njit(cache=True, error_model="numpy")
def _clamp(p, s):
  """The box point nearest to p (box frame)."""
  return (min(s[0], max(-s[0], p[0])), min(s[1], max(-s[1], p[1])), min(s[2], max(-s[2], p[2])))


@njit(cache=True, error_model="numpy")
def _beyond(p, s):
  """Over how many of the box's face planes point p (box frame) lies: 0 inside, 1 over a face, 2 an edge, 3 a corner."""
  n = 0
  for i in range(3):
    if abs(p[i]) > s[i]:
      n += 1
  return n


@njit(cache=True, error_model="numpy")
def _nearest_feature(lc, la, s):
  """MuJoCo's nearest pair of the capsule segment lc +- la and the box (box frame).

  The candidates are each end of the segment that lies in the box or over a face of it, against the box, then the
  segment against each of the 12 box edges; the nearest wins, the first on ties. Returns the segment parameter, the
  box point (witness) and the edge's axis, or -1 for an end. While the segment stays outside the box this is a true
  nearest pair (an end beyond an edge or corner is covered by that edge); an end in the box wins at distance 0 (the
  -1 end when both are); a segment crossing the box with both ends outside still gets the nearest candidate.
  """
  t, wit, edge, best = 0.0, (0.0, 0.0, 0.0), -1, math.inf
  for end in (-1.0, 1.0):
    p = add_scl3(lc, la, end)
    if _beyond(p, s) <= 1:
      q = _clamp(p, s)
      f = _dist2(p, q)
      if f < best:
        t, wit, best = end, q, f
  for ax in range(3):
    for k in range(4):
      te, q, f = _nearest_on_edge(lc, la, s, ax, 1.0 if k & 2 else -1.0, 1.0 if k & 1 else -1.0)
      if f < best:
        t, wit, edge, best = te, q, ax, f
  return t, wit, edge


@njit(cache=True, error_model="numpy")
def capsule_box(m, d, g1, g2, margin, i0):
  """Capsule and box: a ball at MuJoCo's nearest point of the capsule's segment, and maybe a second ball.

  The first ball sits at the segment point of ``_nearest_feature`` (an end in the box, the -1 end when both are,
  wins outright); ``_second_point`` places the second. Each ball is a contact when within margin of the box. Both
  rules are measured with the ``mujoco`` package.
  """
  c = vec3(d.geom_xpos[g1])
  a = scl3(frame_axis(d.geom_xmat[g1], 2), m.geom_size[g1, 1])
  cb, mat, s = vec3(d.geom_xpos[g2]), d.geom_xmat[g2], m.geom_size[g2]
  lc, la = mat_t_vec(mat, sub3(c, cb)), mat_t_vec(mat, a)
  r = m.geom_size[g1, 0]
  # Exact early out: the segment's extent along a box axis clears the box's slab by more than radius + margin, so no
  # ball on it can touch (most candidate pairs in a pile end here).
  for j in range(3):
    if abs(lc[j]) - abs(la[j]) > s[j] + r + margin:
      return 0
  t, wit, edge = _nearest_feature(lc, la, s)
  cnt = ball_box(d, add_scl3(c, a, t), r, cb, mat, s, margin, i0)
  t2 = _second_point(lc, la, s, t, wit, edge)
  if math.isnan(t2):
    return cnt
  # Checked on its own: across a box the first ball can miss while the second, on a face, touches.
  return cnt + ball_box(d, add_scl3(c, a, t2), r, cb, mat, s, margin, i0 + cnt)


@njit(cache=True, error_model="numpy")
def _second_point(lc, la, s, t, wit, edge):
  """Segment parameter of MuJoCo's second capsule-box ball, or NaN when there is none (box frame).

  Measured with the ``mujoco`` package. The first ball's segment point q (parameter t) has its witness ``wit`` on
  the box: the end's nearest box point, or the point of edge ``edge`` nearest to the segment. At a corner the witness
  moves along the corner's edge the segment is closest to parallel to, into that edge: the second ball sits where it
  reaches the edge's other end, or at the segment's end if that comes first (from a segment end pointing off the
  segment, MuJoCo repeats the first ball). Otherwise take a box face: for an end over a face that face; for an edge
  the one of its two faces the segment is closer to parallel to (when it is as parallel to both, the one the offset
  q - wit points along most). Walk along the segment away from that face's plane (with the segment parallel to the
  plane, towards the side q is not on): the second ball sits where the witness, moved along, reaches a side of the
  face, or at the segment's end if that comes first. A walk that leaves the face at once gives none. A walk off the
  segment turns back into it from an end over a face; from an edge's point at an end it stays there, and MuJoCo then
  repeats the first ball. An end in the box gets none.
  """
  q = add_scl3(lc, la, t)
  if edge >= 0 and abs(wit[edge]) == s[edge]:
    # A corner: walk along the box edge at it that the segment is closest to parallel to.
    e = 0
    for i in (1, 2):
      if abs(la[i]) > abs(la[e]):
        e = i
    step = 1.0 if (wit[e] < 0.0) == (la[e] > 0.0) else -1.0
    if step == t:
      return t
    best = min(1.0, max(-1.0, t - 2.0 * wit[e] / la[e]))
    return math.nan if abs(best - t) < 1e-10 else best
  if edge < 0:
    if _beyond(q, s) == 0:
      return math.nan
    j = 0
    for i in (1, 2):
      if abs(q[i]) > s[i]:
        j = i
  else:
    j, k = (1, 2) if edge == 0 else ((0, 2) if edge == 1 else (0, 1))
    if abs(la[k]) < abs(la[j]) or (abs(la[k]) == abs(la[j]) and abs(q[k] - wit[k]) > abs(q[j] - wit[j])):
      j = k
  step = 1.0 if (q[j] > 0.0) == (la[j] > 0.0) else -1.0
  if step == t:
    if edge >= 0:
      return t
    step = -t
  best = step
  for i in range(3):
    if i == j or abs(la[i]) < 1e-12:
      continue
    target = s[i] if la[i] * step > 0.0 else -s[i]
    tc = t + (target - wit[i]) / la[i]
    if (tc - best) * step < 0.0:
      best = tc
  best = min(1.0, max(-1.0, best))
  return math.nan if abs(best - t) < 1e-10 else best
