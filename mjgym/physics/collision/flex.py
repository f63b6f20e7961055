"""Flex contacts: the colliders between geoms and flexes, and the parameters of a geom-flex contact.

A flex contact names the flex side by its flex, element and vertex instead of a geom (MuJoCo's ``contact.flex``,
``contact.elem``, ``contact.vert``; the geom id of that side is -1). Supported today, as MuJoCo 4 makes them:

- plane - flex: a plane on a body without degrees of freedom against every vertex of the flex as a sphere of the flex
  radius (one contact per vertex within margin + gap: normal along the plane's z, point midway in the overlap,
  geom side 0 = the plane, flex side 1 = the vertex). MuJoCo 4 keeps them all (no per-pair cap) and in vertex order.
- capsule - segment of a 1-D flex: the capsule-capsule collider (primitive.segments) with the segment as a capsule of
  the flex radius.
- box - triangle of a 2-D flex: the triangle's vertices near or in the box, then the box's corners against the
  triangle (up to 11 contacts).
- sphere - element of a 1-D or 2-D flex: the segment as a capsule of the flex radius (nearest point on the segment,
  then two spheres), the triangle inflated by the radius (nearest point of the triangle to the centre); one contact,
  normal from the sphere to the element, skipped when a vertex of the element is on the sphere's body. The constraint
  moves the point with the element's vertices (constraint.py, flex.element_weights).

Contacts of one geom-flex pair are sorted by element (or vertex) id, after the body pairs of lower signature (the
flex counts as body nbody + f). Other geom types, 3-D flexes' elements, flex-flex and self contacts are refused when
the model is compiled (mjcf/flex.py). A model without flexes never calls anything here.
"""

from numba import njit

import math

from mjgym.physics.collision import primitive
from mjgym.physics.constants import ENBL_OVERRIDE
from mjgym.physics.constants import GEOM_BOX
from mjgym.physics.constants import GEOM_CAPSULE
from mjgym.physics.constants import GEOM_PLANE
from mjgym.physics.constants import GEOM_SPHERE
from mjgym.physics.constants import WARN_CONTACTFULL
from mjgym.physics.math import solmix_weight
from mjgym.physics.types import MINVAL


@njit(cache=True, error_model="numpy")
def collide(m, d):
  """Appends the contacts of every geom-flex pair that passes the contype/conaffinity test: planes on bodies
  without degrees of freedom against the vertices, spheres against the elements of 1-D and 2-D flexes. The driver
  sorts them afterwards (order_key)."""
  for g in range(m.ngeom):
    gtype = m.geom_type[g]
    if gtype == GEOM_PLANE and m.body_dofnum[m.body_weldid[m.geom_bodyid[g]]] != 0:
      continue
    if gtype != GEOM_PLANE and gtype != GEOM_SPHERE and gtype != GEOM_CAPSULE and gtype != GEOM_BOX:
      continue
    for f in range(m.nflex):
      if not ((m.geom_contype[g] & m.flex_conaffinity[f]) or (m.flex_contype[f] & m.geom_conaffinity[g])):
        continue
      if gtype == GEOM_PLANE:
        if not _plane_flex(m, d, g, f):
          return
      elif gtype == GEOM_SPHERE and m.flex_dim[f] <= 2:
        for e in range(m.flex_elemnum[f]):
          if not _sphere_element(m, d, g, f, e):
            return
      elif gtype == GEOM_CAPSULE and m.flex_dim[f] == 1:
        for e in range(m.flex_elemnum[f]):
          if not _capsule_segment(m, d, g, f, e):
            return
      elif gtype == GEOM_BOX and m.flex_dim[f] == 2:
        for e in range(m.flex_elemnum[f]):
          if not _box_triangle(m, d, g, f, e):
            return


@njit(cache=True, error_model="numpy")
def margin_gap(m, g, f):
  """Margin and gap of a geom-flex pair: the sums of the two (the margin replaced under the override flag)."""
  margin = m.geom_margin[g] + m.flex_margin[f]
  if (m.opt_enableflags[0] & ENBL_OVERRIDE) != 0:
    margin = m.opt_o_margin[0]
  return margin, m.geom_gap[g] + m.flex_gap[f]


@njit(cache=True, error_model="numpy")
def _plane_flex(m, d, g, f):
  """The flex's vertices as spheres of the flex radius against plane g; False when Data ran out of contacts."""
  margin, gap = margin_gap(m, g, f)
  radius = m.flex_radius[f]
  mat = d.geom_xmat[g]
  nx, ny, nz = mat[2], mat[5], mat[8]
  for i in range(m.flex_vertnum[f]):
    v = d.flexvert_xpos[m.flex_vertadr[f] + i]
    dist = ((v[0] - d.geom_xpos[g, 0]) * nx + (v[1] - d.geom_xpos[g, 1]) * ny
            + (v[2] - d.geom_xpos[g, 2]) * nz)
    if dist > margin + gap + radius:
      continue
    if _full(d):
      return False
    depth = dist - radius
    s = -0.5 * depth - radius
    _add(d, d.ncon[0], g, f, -1, i, depth, (v[0] + s * nx, v[1] + s * ny, v[2] + s * nz), (nx, ny, nz))
  return True


@njit(cache=True, error_model="numpy")
def _add(d, c, g, f, e, v, dist, pos, normal):
  """Writes contact c (geom g on side 0; flex f's element e or vertex v on side 1) and counts it."""
  d.contact_dist[c] = dist
  frame = d.contact_frame[c]
  for k in range(3):
    d.contact_pos[c, k] = pos[k]
    frame[k] = normal[k]
  for k in range(3, 9):
    frame[k] = 0.0
  d.contact_geom1[c] = g
  d.contact_geom2[c] = -1
  d.contact_flex[c, 0], d.contact_flex[c, 1] = -1, f
  d.contact_elem[c, 0], d.contact_elem[c, 1] = -1, e
  d.contact_vert[c, 0], d.contact_vert[c, 1] = -1, v
  d.contact_efc_address[c] = -1
  d.ncon[0] = c + 1


@njit(cache=True, error_model="numpy")
def _full(d):
  """Whether Data has no room for another contact (then MuJoCo's warning is raised)."""
  c = d.ncon[0]
  if c < d.contact_dist.shape[0]:
    return False
  d.warning_number[WARN_CONTACTFULL] += 1
  d.warning_lastinfo[WARN_CONTACTFULL] = c + 1
  return True


@njit(cache=True, error_model="numpy")
def _normalize(x, y, z):
  """(unit vector, length) as MuJoCo's normalize: a vector shorter than MINVAL becomes (1, 0, 0)."""
  n = math.sqrt(x * x + y * y + z * z)
  if n < MINVAL:
    return (1.0, 0.0, 0.0), n
  s = 1.0 / n
  return (x * s, y * s, z * s), n


@njit(cache=True, error_model="numpy")
def _sphere_element(m, d, g, f, e):
  """Sphere g against element e of flex f (a capsule of the flex radius around a segment, or a triangle inflated
  by it): at most one contact, its normal from the sphere to the element. False when Data ran out of contacts."""
  dim = m.flex_dim[f]
  adr = m.flex_elemdataadr[f] + e * (dim + 1)
  vadr = m.flex_vertadr[f]
  body = m.geom_bodyid[g]
  for i in range(dim + 1):
    if m.flex_vertbodyid[vadr + m.flex_elem[adr + i]] == body:
      return True  # MuJoCo skips elements with a vertex on the geom's body
  margin, gap = margin_gap(m, g, f)
  reach = margin + gap
  rs, rt = m.geom_size[g, 0], m.flex_radius[f]
  sx, sy, sz = d.geom_xpos[g, 0], d.geom_xpos[g, 1], d.geom_xpos[g, 2]
  p1 = d.flexvert_xpos[vadr + m.flex_elem[adr]]
  p2 = d.flexvert_xpos[vadr + m.flex_elem[adr + 1]]
  if dim == 1:
    # the nearest point of the segment (from its middle along its axis, clipped to the half length), then two spheres
    axis, length = _normalize(p1[0] - p2[0], p1[1] - p2[1], p1[2] - p2[2])
    half = 0.5 * length
    cx, cy, cz = 0.5 * (p1[0] + p2[0]), 0.5 * (p1[1] + p2[1]), 0.5 * (p1[2] + p2[2])
    x = axis[0] * (sx - cx) + axis[1] * (sy - cy) + axis[2] * (sz - cz)
    x = min(max(x, -half), half)
    qx, qy, qz = cx + axis[0] * x, cy + axis[1] * x, cz + axis[2] * x
    dx, dy, dz = sx - qx, sy - qy, sz - qz
    dist2 = dx * dx + dy * dy + dz * dz
    bound = reach + rs + rt
    if dist2 > bound * bound:
      return True
    depth = math.sqrt(dist2) - rs - rt
    normal, n = _normalize(qx - sx, qy - sy, qz - sz)
    if n < MINVAL:
      return True  # the sphere's centre on the segment: no direction (MuJoCo crosses z axes; not modelled)
  else:
    p3 = d.flexvert_xpos[vadr + m.flex_elem[adr + 2]]
    hit, depth, normal = _sphere_triangle(sx, sy, sz, rs, p1, p2, p3, rt, reach)
    if not hit:
      return True
  if _full(d):
    return False
  s = rs + 0.5 * depth
  _add(d, d.ncon[0], g, f, e, -1, depth, (sx + s * normal[0], sy + s * normal[1], sz + s * normal[2]), normal)
  return True


@njit(cache=True, error_model="numpy")
def _sphere_triangle(sx, sy, sz, rs, p1, p2, p3, rt, reach):
  """A ball (centre s, radius rs) and a triangle inflated by rt: (hit within reach, distance, unit normal from the
  ball to the triangle), through the triangle's point nearest to the centre."""
  bound = reach + rs + rt
  # the triangle (O, A, B) with O at its first vertex; S the sphere's centre
  S = (sx - p1[0], sy - p1[1], sz - p1[2])
  A = (p2[0] - p1[0], p2[1] - p1[1], p2[2] - p1[2])
  B = (p3[0] - p1[0], p3[1] - p1[1], p3[2] - p1[2])
  N = _normalize(A[1] * B[2] - A[2] * B[1], A[2] * B[0] - A[0] * B[2], A[0] * B[1] - A[1] * B[0])[0]
  height = N[0] * S[0] + N[1] * S[1] + N[2] * S[2]
  if abs(height) > bound:
    return False, 0.0, (0.0, 0.0, 0.0)
  P = (S[0] - height * N[0], S[1] - height * N[1], S[2] - height * N[2])
  V1, lenA = _normalize(A[0], A[1], A[2])
  V2 = _normalize(N[1] * A[2] - N[2] * A[1], N[2] * A[0] - N[0] * A[2], N[0] * A[1] - N[1] * A[0])[0]
  # 2-D coordinates in the plane (V1, V2): o = 0, a = (|A|, 0), b, and the projection p
  bx, by = V1[0] * B[0] + V1[1] * B[1] + V1[2] * B[2], V2[0] * B[0] + V2[1] * B[1] + V2[2] * B[2]
  px, py = V1[0] * P[0] + V1[1] * P[1] + V1[2] * P[2], V2[0] * P[0] + V2[1] * P[1] + V2[2] * P[2]
  s1 = _area_sign(px, py, 0.0, 0.0, lenA, 0.0)
  s2 = _area_sign(px, py, lenA, 0.0, bx, by)
  s3 = _area_sign(px, py, bx, by, 0.0, 0.0)
  if s1 == s2 and s2 == s3:
    X = P
  else:
    x0, y0, d0 = _point_segment(px, py, 0.0, 0.0, lenA, 0.0)
    x1, y1, d1 = _point_segment(px, py, lenA, 0.0, bx, by)
    x2, y2, d2 = _point_segment(px, py, bx, by, 0.0, 0.0)
    if d0 < d1 and d0 < d2:
      u, w = x0, y0
    elif d1 < d2:
      u, w = x1, y1
    else:
      u, w = x2, y2
    X = (V1[0] * u + V2[0] * w, V1[1] * u + V2[1] * w, V1[2] * u + V2[2] * w)
  normal, n = _normalize(X[0] - S[0], X[1] - S[1], X[2] - S[2])
  if n > bound:
    return False, 0.0, (0.0, 0.0, 0.0)
  return True, n - rs - rt, normal


@njit(cache=True, error_model="numpy")
def _box_triangle(m, d, g, f, e):
  """Box g against triangle e of a 2-D flex inflated by the flex radius: each triangle vertex near or in the box
  (normal along the box face it is least deep under, from the box), then each box corner against the triangle as a
  ball of radius 0. Up to 11 contacts; False when Data is full."""
  adr = m.flex_elemdataadr[f] + 3 * e
  vadr = m.flex_vertadr[f]
  body = m.geom_bodyid[g]
  for i in range(3):
    if m.flex_vertbodyid[vadr + m.flex_elem[adr + i]] == body:
      return True
  margin, gap = margin_gap(m, g, f)
  reach = margin + gap
  rt = m.flex_radius[f]
  mat = d.geom_xmat[g]
  size = m.geom_size[g]
  px, py, pz = d.geom_xpos[g, 0], d.geom_xpos[g, 1], d.geom_xpos[g, 2]
  for i in range(3):
    v = d.flexvert_xpos[vadr + m.flex_elem[adr + i]]
    dx, dy, dz = v[0] - px, v[1] - py, v[2] - pz
    local = (mat[0] * dx + mat[3] * dy + mat[6] * dz, mat[1] * dx + mat[4] * dy + mat[7] * dz,
             mat[2] * dx + mat[5] * dy + mat[8] * dz)
    axis, most = 0, abs(local[0]) - size[0]
    for j in range(1, 3):
      val = abs(local[j]) - size[j]
      if val > most:
        axis, most = j, val
    if most - rt > reach:
      continue
    if (abs(local[0]) > size[0] + reach + rt or abs(local[1]) > size[1] + reach + rt
        or abs(local[2]) > size[2] + reach + rt):
      continue
    if _full(d):
      return False
    sign = 1.0 if local[axis] > 0 else -1.0
    normal = (mat[axis] * sign, mat[3 + axis] * sign, mat[6 + axis] * sign)
    depth = most - rt
    s = -(rt + depth * 0.5)
    _add(d, d.ncon[0], g, f, e, -1, depth, (v[0] + s * normal[0], v[1] + s * normal[1], v[2] + s * normal[2]),
         normal)
  p1 = d.flexvert_xpos[vadr + m.flex_elem[adr]]
  p2 = d.flexvert_xpos[vadr + m.flex_elem[adr + 1]]
  p3 = d.flexvert_xpos[vadr + m.flex_elem[adr + 2]]
  for i in range(8):
    c0 = size[0] if i & 1 else -size[0]
    c1 = size[1] if i & 2 else -size[1]
    c2 = size[2] if i & 4 else -size[2]
    cx = mat[0] * c0 + mat[1] * c1 + mat[2] * c2 + px
    cy = mat[3] * c0 + mat[4] * c1 + mat[5] * c2 + py
    cz = mat[6] * c0 + mat[7] * c1 + mat[8] * c2 + pz
    hit, depth, normal = _sphere_triangle(cx, cy, cz, 0.0, p1, p2, p3, rt, reach)
    if not hit:
      continue
    if _full(d):
      return False
    s = 0.5 * depth
    _add(d, d.ncon[0], g, f, e, -1, depth, (cx + s * normal[0], cy + s * normal[1], cz + s * normal[2]), normal)
  return True


@njit(cache=True, error_model="numpy")
def _capsule_segment(m, d, g, f, e):
  """Capsule g against segment e of a 1-D flex as a capsule of the flex radius (the capsule-capsule collider: one
  contact, two where the segments are parallel), normals from the geom to the element. False when Data is full."""
  adr = m.flex_elemdataadr[f] + 2 * e
  v1 = m.flex_vertadr[f] + m.flex_elem[adr]
  v2 = m.flex_vertadr[f] + m.flex_elem[adr + 1]
  body = m.geom_bodyid[g]
  if m.flex_vertbodyid[v1] == body or m.flex_vertbodyid[v2] == body:
    return True
  if d.ncon[0] + 2 > d.contact_dist.shape[0]:
    _full(d)
    return False
  margin, gap = margin_gap(m, g, f)
  mat = d.geom_xmat[g]
  h = m.geom_size[g, 1]
  c1 = (d.geom_xpos[g, 0], d.geom_xpos[g, 1], d.geom_xpos[g, 2])
  a1 = (mat[2] * h, mat[5] * h, mat[8] * h)
  p1, p2 = d.flexvert_xpos[v1], d.flexvert_xpos[v2]
  axis, length = _normalize(p1[0] - p2[0], p1[1] - p2[1], p1[2] - p2[2])
  half = 0.5 * length
  c2 = (0.5 * (p1[0] + p2[0]), 0.5 * (p1[1] + p2[1]), 0.5 * (p1[2] + p2[2]))
  a2 = (axis[0] * half, axis[1] * half, axis[2] * half)
  i0 = d.ncon[0]
  # MuJoCo 4 takes capsules within 1e-4 rad of parallel as parallel (measured: sin^2 of the angle below 1e-8)
  n = primitive.segments(d, c1, a1, m.geom_size[g, 0], c2, a2, m.flex_radius[f], margin + gap, i0, 1e-8)
  for i in range(i0, i0 + n):
    frame = d.contact_frame[i]
    _add(d, i, g, f, e, -1, d.contact_dist[i], (d.contact_pos[i, 0], d.contact_pos[i, 1], d.contact_pos[i, 2]),
         (frame[0], frame[1], frame[2]))
  return True


@njit(cache=True, error_model="numpy")
def _area_sign(x1, y1, x2, y2, x3, y3):
  """Sign (-1, 0, 1) of the area of the 2-D triangle (p1, p2, p3)."""
  a = (x1 - x3) * (y2 - y3) - (x2 - x3) * (y1 - y3)
  return 1.0 if a > 0 else (-1.0 if a < 0 else 0.0)


@njit(cache=True, error_model="numpy")
def _point_segment(px, py, ux, uy, vx, vy):
  """The nearest point to p on the 2-D segment (u, v), and its distance."""
  ax, ay = vx - ux, vy - uy
  a = (ax * (px - ux) + ay * (py - uy)) / max(MINVAL, ax * ax + ay * ay)
  if a <= 0:
    x, y = ux, uy
  elif a >= 1:
    x, y = vx, vy
  else:
    x, y = ux + a * ax, uy + a * ay
  return x, y, math.sqrt((x - px) * (x - px) + (y - py) * (y - py))


@njit(cache=True, error_model="numpy")
def order_key(m, d, i):
  """Where MuJoCo's driver puts flex contact i: its body-flex pair's signature (the flex counting as body
  nbody + f), after the explicit pairs, then by geom and vertex."""
  g, f = int(d.contact_geom1[i]), int(d.contact_flex[i, 1])
  signature = (int(m.geom_bodyid[g]) << 16) + int(m.nbody) + f
  e = int(d.contact_elem[i, 1])
  return (signature, int(m.npair), g, e if e >= 0 else int(d.contact_vert[i, 1]))


@njit(cache=True, error_model="numpy")
def parameters(m, d, i, g, f):
  """condim, friction, solref, solimp of geom-flex contact i: MuJoCo's mixing of geom g with flex f (the higher
  priority sets all; equal priorities: max condim and friction, solref and solimp mixed by solmix)."""
  pg, pf = m.geom_priority[g], m.flex_priority[f]
  gs, fs = m.geom_solref[g], m.flex_solref[f]
  gi, fi = m.geom_solimp[g], m.flex_solimp[f]
  gf, ff = m.geom_friction[g], m.flex_friction[f]
  if pg != pf:
    mix = 1.0 if pg > pf else 0.0
    d.contact_dim[i] = m.geom_condim[g] if pg > pf else m.flex_condim[f]
    f0, f1, f2 = (gf[0], gf[1], gf[2]) if pg > pf else (ff[0], ff[1], ff[2])
    direct = False
  else:
    mix = solmix_weight(m.geom_solmix[g], m.flex_solmix[f])
    d.contact_dim[i] = max(m.geom_condim[g], m.flex_condim[f])
    f0, f1, f2 = max(gf[0], ff[0]), max(gf[1], ff[1]), max(gf[2], ff[2])
    direct = not (gs[0] > 0 and fs[0] > 0)
  d.contact_friction[i, 0] = f0
  d.contact_friction[i, 1] = f0
  d.contact_friction[i, 2] = f1
  d.contact_friction[i, 3] = f2
  d.contact_friction[i, 4] = f2
  for k in range(2):
    # direct (negative) stiffness and damping do not average with time constants: the stiffer is taken
    d.contact_solref[i, k] = min(gs[k], fs[k]) if direct else mix * gs[k] + (1.0 - mix) * fs[k]
    d.contact_solreffriction[i, k] = 0.0
  for k in range(5):
    d.contact_solimp[i, k] = mix * gi[k] + (1.0 - mix) * fi[k]
