"""Flexes at run time: vertex positions, edge lengths and their sparse Jacobians (MuJoCo's mj_flex), edge velocities,
and the passive forces: edge spring-dampers and elasticity (stretching of 2-D and 3-D elements, bending of 2-D
ones). A model without flexes runs none of it (nflex == 0)."""

import math as pymath

from numba import njit


@njit(cache=True, error_model="numpy")
def _in_chain(m, dofbody, body):
  """Whether the body of a dof is ``body`` or one of its ancestors (the dof moves ``body``)."""
  while body > 0:
    if body == dofbody:
      return True
    body = m.body_parentid[body]
  return False


@njit(cache=True, error_model="numpy")
def flex_position(m, d):
  """flexvert_xpos, flexedge_length and flexedge_J (rows that a constraint or passive force uses)."""
  for f in range(m.nflex):
    for i in range(m.flex_vertadr[f], m.flex_vertadr[f] + m.flex_vertnum[f]):
      b = m.flex_vertbodyid[i]
      v = m.flex_vert[i]
      if m.flex_centered[f] or (v[0] == 0.0 and v[1] == 0.0 and v[2] == 0.0):
        for k in range(3):
          d.flexvert_xpos[i, k] = d.xpos[b, k]
      else:
        for k in range(3):
          r = d.xmat[b, 3 * k] * v[0] + d.xmat[b, 3 * k + 1] * v[1] + d.xmat[b, 3 * k + 2] * v[2]
          d.flexvert_xpos[i, k] = r + d.xpos[b, k]
  d.flexedge_J[:] = 0.0
  for f in range(m.nflex):
    if m.flex_rigid[f] or m.flex_interp[f]:
      continue
    skip = (m.flex_edgeequality[f] != 1 and m.flex_edgedamping[f] == 0.0 and m.flex_edgestiffness[f] == 0.0
            and m.flex_damping[f] == 0.0)
    vbase = m.flex_vertadr[f]
    for e in range(m.flex_edgeadr[f], m.flex_edgeadr[f] + m.flex_edgenum[f]):
      v1 = vbase + m.flex_edge[e, 0]
      v2 = vbase + m.flex_edge[e, 1]
      dx = d.flexvert_xpos[v2, 0] - d.flexvert_xpos[v1, 0]
      dy = d.flexvert_xpos[v2, 1] - d.flexvert_xpos[v1, 1]
      dz = d.flexvert_xpos[v2, 2] - d.flexvert_xpos[v1, 2]
      length = pymath.sqrt(dx * dx + dy * dy + dz * dz)
      d.flexedge_length[e] = length
      if skip:
        continue
      # unit vector from vertex 1 to vertex 2 (MuJoCo's normalize: a degenerate edge points along x)
      if length < 1e-15:
        dx, dy, dz = 1.0, 0.0, 0.0
      else:
        dx, dy, dz = dx / length, dy / length, dz / length
      b1 = m.flex_vertbodyid[v1]
      b2 = m.flex_vertbodyid[v2]
      for j in range(m.flexedge_J_rowadr[e], m.flexedge_J_rowadr[e] + m.flexedge_J_rownnz[e]):
        dof = m.flexedge_J_colind[j]
        dofbody = m.dof_bodyid[dof]
        j0 = j1 = j2 = 0.0
        for side in range(2):
          b = b2 if side == 0 else b1
          if not _in_chain(m, dofbody, b):
            continue
          p = v2 if side == 0 else v1
          root = m.body_rootid[b]
          ox = d.flexvert_xpos[p, 0] - d.subtree_com[root, 0]
          oy = d.flexvert_xpos[p, 1] - d.subtree_com[root, 1]
          oz = d.flexvert_xpos[p, 2] - d.subtree_com[root, 2]
          c = d.cdof[dof]
          sign = 1.0 if side == 0 else -1.0
          j0 += sign * (c[3] + c[1] * oz - c[2] * oy)
          j1 += sign * (c[4] + c[2] * ox - c[0] * oz)
          j2 += sign * (c[5] + c[0] * oy - c[1] * ox)
        d.flexedge_J[j] = j0 * dx + j1 * dy + j2 * dz


@njit(cache=True, error_model="numpy")
def flex_velocity(m, d):
  """flexedge_velocity: the edge Jacobians times qvel."""
  d.flexedge_velocity[:] = 0.0
  for f in range(m.nflex):
    if m.flex_rigid[f] or m.flex_interp[f]:
      continue
    for e in range(m.flex_edgeadr[f], m.flex_edgeadr[f] + m.flex_edgenum[f]):
      s = 0.0
      for j in range(m.flexedge_J_rowadr[e], m.flexedge_J_rowadr[e] + m.flexedge_J_rownnz[e]):
        s += d.flexedge_J[j] * d.qvel[m.flexedge_J_colind[j]]
      d.flexedge_velocity[e] = s


@njit(cache=True, error_model="numpy")
def edge_spring_damper(m, d, spring, damper):
  """Edge stiffness and damping into qfrc_spring and qfrc_damper, through the edge Jacobians."""
  for f in range(m.nflex):
    stiffness = m.flex_edgestiffness[f] if spring else 0.0
    damping = m.flex_edgedamping[f] if damper else 0.0
    if m.flex_rigid[f] or (stiffness == 0.0 and damping == 0.0):
      continue
    for e in range(m.flex_edgeadr[f], m.flex_edgeadr[f] + m.flex_edgenum[f]):
      if m.flexedge_rigid[e]:
        continue
      frc_spring = stiffness * (m.flexedge_length0[e] - d.flexedge_length[e])
      frc_damper = -damping * d.flexedge_velocity[e]
      for j in range(m.flexedge_J_rowadr[e], m.flexedge_J_rowadr[e] + m.flexedge_J_rownnz[e]):
        dof = m.flexedge_J_colind[j]
        d.qfrc_spring[dof] += d.flexedge_J[j] * frc_spring
        d.qfrc_damper[dof] += d.flexedge_J[j] * frc_damper


@njit(cache=True, error_model="numpy")
def _edge_vertex(dim, e, i):
  """Local vertex i (0, 1) of edge e of an element, in MuJoCo's edge order (flex_elemedge follows it)."""
  if dim == 2:
    a, b = ((1, 2), (2, 0), (0, 1))[e]
  else:
    a, b = ((0, 1), (1, 2), (2, 0), (2, 3), (0, 3), (1, 3))[e]
  return a if i == 0 else b


@njit(cache=True, error_model="numpy")
def _elongation(m, d, e, kD, dt):
  """Squared-length strain of edge e and its Rayleigh damping term (from the length one step back at the edge's
  current rate)."""
  length = d.flexedge_length[e]
  previous = length - d.flexedge_velocity[e] * dt
  return length * length - m.flexedge_length0[e] * m.flexedge_length0[e], (length * length - previous * previous) * kD


@njit(cache=True, error_model="numpy")
def _element_elongations(m, d, ebase, eedge, nedge, kD, dt):
  """The strains and damping terms of an element's edges, as two 6-tuples (zero past its nedge edges)."""
  s0, d0 = _elongation(m, d, ebase + m.flex_elemedge[eedge], kD, dt)
  s1, d1 = _elongation(m, d, ebase + m.flex_elemedge[eedge + 1], kD, dt)
  s2, d2 = _elongation(m, d, ebase + m.flex_elemedge[eedge + 2], kD, dt)
  if nedge == 3:
    return (s0, s1, s2, 0.0, 0.0, 0.0), (d0, d1, d2, 0.0, 0.0, 0.0)
  s3, d3 = _elongation(m, d, ebase + m.flex_elemedge[eedge + 3], kD, dt)
  s4, d4 = _elongation(m, d, ebase + m.flex_elemedge[eedge + 4], kD, dt)
  s5, d5 = _elongation(m, d, ebase + m.flex_elemedge[eedge + 5], kD, dt)
  return (s0, s1, s2, s3, s4, s5), (d0, d1, d2, d3, d4, d5)


@njit(cache=True, error_model="numpy")
def _vertex_force(m, d, v, fx, fy, fz, qfrc, scale):
  """qfrc += scale * the world force (fx, fy, fz) on vertex v, in its body's slide dofs (body frame); a vertex on a
  body without dofs takes none (the compiler admits no other vertex bodies for elasticity)."""
  b = m.flex_vertbodyid[v]
  if m.body_dofnum[b] != 3:
    return
  adr = m.body_dofadr[b]
  for k in range(3):
    qfrc[adr + k] += scale * (d.xmat[b, k] * fx + d.xmat[b, 3 + k] * fy + d.xmat[b, 6 + k] * fz)


@njit(cache=True, error_model="numpy")
def _stretch(m, d, f, spring, damper):
  """Linear element elasticity on squared edge lengths (dim 2 membranes, dim 3 solids): each element's force is
  minus the edge-length gradients weighted by its edge metric times the edges' strains (spring) and their rates
  (Rayleigh damping, flex_damping / timestep)."""
  adr = m.flex_stiffnessadr[f]
  if adr < 0 or m.flex_stiffness[adr] == 0.0:
    return
  dim = m.flex_dim[f]
  nedge = 3 if dim == 2 else 6
  stride = 21 if dim == 2 else 24
  dt = m.opt_timestep[0]
  kD = m.flex_damping[f] / dt if dt > 0 else 0.0
  vbase = m.flex_vertadr[f]
  ebase = m.flex_edgeadr[f]
  for t in range(m.flex_elemnum[f]):
    elem = m.flex_elemdataadr[f] + (dim + 1) * t
    strain, rate = _element_elongations(m, d, ebase, m.flex_elemedgeadr[f] + nedge * t, nedge, kD, dt)
    k = adr + stride * t
    for e in range(nedge):
      # the metric's column e (from its upper triangle, row by row) against the strains: edge e's force
      ks = kd = 0.0
      for a in range(nedge):
        i, j = (a, e) if a <= e else (e, a)
        metric = m.flex_stiffness[k + i * nedge - i * (i - 1) // 2 + j - i]
        ks += metric * strain[a]
        kd += metric * rate[a]
      va = vbase + m.flex_elem[elem + _edge_vertex(dim, e, 0)]
      vb = vbase + m.flex_elem[elem + _edge_vertex(dim, e, 1)]
      gx = d.flexvert_xpos[va, 0] - d.flexvert_xpos[vb, 0]
      gy = d.flexvert_xpos[va, 1] - d.flexvert_xpos[vb, 1]
      gz = d.flexvert_xpos[va, 2] - d.flexvert_xpos[vb, 2]
      if spring:
        _vertex_force(m, d, va, gx, gy, gz, d.qfrc_spring, -ks)
        _vertex_force(m, d, vb, gx, gy, gz, d.qfrc_spring, ks)
      if damper:
        _vertex_force(m, d, va, gx, gy, gz, d.qfrc_damper, -kd)
        _vertex_force(m, d, vb, gx, gy, gz, d.qfrc_damper, kd)


@njit(cache=True, error_model="numpy")
def _bend(m, d, f, spring, damper):
  """Thin-shell bending of a 2-D flex: over each inner edge's flap (its two triangles), the bending matrix times the
  four vertex positions plus the curved-reference term (spring), and times their velocities (damper)."""
  adr = m.flex_bendingadr[f]
  if m.flex_dim[f] != 2 or adr < 0:
    return
  vbase = m.flex_vertadr[f]
  damping = m.flex_damping[f]
  for e in range(m.flex_edgenum[f]):
    edge = m.flex_edgeadr[f] + e
    if m.flex_edgeflap[edge, 1] == -1:
      continue
    v0 = vbase + m.flex_edge[edge, 0]
    v1 = vbase + m.flex_edge[edge, 1]
    v2 = vbase + m.flex_edgeflap[edge, 0]
    v3 = vbase + m.flex_edgeflap[edge, 1]
    x = d.flexvert_xpos
    e0x, e0y, e0z = x[v1, 0] - x[v0, 0], x[v1, 1] - x[v0, 1], x[v1, 2] - x[v0, 2]
    e1x, e1y, e1z = x[v2, 0] - x[v0, 0], x[v2, 1] - x[v0, 1], x[v2, 2] - x[v0, 2]
    e2x, e2y, e2z = x[v3, 0] - x[v0, 0], x[v3, 1] - x[v0, 1], x[v3, 2] - x[v0, 2]
    b = adr + 17 * e
    curved = m.flex_bending[b + 16]
    # the curved-reference directions: the gradients of the flap's signed volume at its four vertices
    c1x, c1y, c1z = e1y * e2z - e1z * e2y, e1z * e2x - e1x * e2z, e1x * e2y - e1y * e2x
    c2x, c2y, c2z = e2y * e0z - e2z * e0y, e2z * e0x - e2x * e0z, e2x * e0y - e2y * e0x
    c3x, c3y, c3z = e0y * e1z - e0z * e1y, e0z * e1x - e0x * e1z, e0x * e1y - e0y * e1x
    for i in range(4):
      vi = v0 if i == 0 else v1 if i == 1 else v2 if i == 2 else v3
      if m.body_dofnum[m.flex_vertbodyid[vi]] != 3:
        continue
      if i == 0:
        cx, cy, cz = -(c1x + c2x + c3x), -(c1y + c2y + c3y), -(c1z + c2z + c3z)
      elif i == 1:
        cx, cy, cz = c1x, c1y, c1z
      elif i == 2:
        cx, cy, cz = c2x, c2y, c2z
      else:
        cx, cy, cz = c3x, c3y, c3z
      sx = sy = sz = 0.0
      wx = wy = wz = 0.0
      for j in range(4):
        vj = v0 if j == 0 else v1 if j == 1 else v2 if j == 2 else v3
        coef = m.flex_bending[b + 4 * i + j]
        sx += coef * x[vj, 0]
        sy += coef * x[vj, 1]
        sz += coef * x[vj, 2]
        bj = m.flex_vertbodyid[vj]
        if m.body_dofnum[bj] == 3:
          # MuJoCo reads the slide dofs' velocities as world velocities here
          adr_j = m.body_dofadr[bj]
          wx += coef * d.qvel[adr_j]
          wy += coef * d.qvel[adr_j + 1]
          wz += coef * d.qvel[adr_j + 2]
      if spring:
        _vertex_force(m, d, vi, sx + curved * cx, sy + curved * cy, sz + curved * cz, d.qfrc_spring, -1.0)
      if damper:
        _vertex_force(m, d, vi, wx, wy, wz, d.qfrc_damper, -damping)


@njit(cache=True, error_model="numpy")
def elastic(m, d, spring, damper):
  """Flex elasticity into qfrc_spring and qfrc_damper (MuJoCo's flex passive forces): bending, then stretching, of
  each non-rigid flex of dim 2 or 3."""
  for f in range(m.nflex):
    if m.flex_dim[f] == 1 or m.flex_rigid[f]:
      continue
    _bend(m, d, f, spring, damper)
    _stretch(m, d, f, spring, damper)


@njit(cache=True, error_model="numpy")
def contact_body(m, d, c, side):
  """The body of side ``side`` (0, 1) of contact c: its geom's body; for a flex vertex the vertex's body (the
  contact on a vertex moves with that body), for a flex element its first vertex's (MuJoCo's mj_flexBody)."""
  g = d.contact_geom1[c] if side == 0 else d.contact_geom2[c]
  if g >= 0:
    return m.geom_bodyid[g]
  f = d.contact_flex[c, side]
  v = d.contact_vert[c, side]
  if v < 0:
    v = m.flex_elem[m.flex_elemdataadr[f] + d.contact_elem[c, side] * (m.flex_dim[f] + 1)]
  return m.flex_vertbodyid[m.flex_vertadr[f] + v]


@njit(cache=True, error_model="numpy")
def element_weights(m, d, f, e, p):
  """Weights of the vertices of element e of flex f (1-D or 2-D) for a contact at point p: the barycentric
  coordinates of the element's point nearest to p (MuJoCo 4 spreads an element contact over the vertices so;
  measured on its Jacobians). The third weight is 0 for a segment."""
  dim = m.flex_dim[f]
  adr = m.flex_elemdataadr[f] + e * (dim + 1)
  a = d.flexvert_xpos[m.flex_vertadr[f] + m.flex_elem[adr]]
  b = d.flexvert_xpos[m.flex_vertadr[f] + m.flex_elem[adr + 1]]
  ab = (b[0] - a[0], b[1] - a[1], b[2] - a[2])
  ap = (p[0] - a[0], p[1] - a[1], p[2] - a[2])
  d1 = ab[0] * ap[0] + ab[1] * ap[1] + ab[2] * ap[2]
  if dim == 1:
    t = d1 / max(1e-15, ab[0] * ab[0] + ab[1] * ab[1] + ab[2] * ab[2])
    t = min(max(t, 0.0), 1.0)
    return 1.0 - t, t, 0.0
  c = d.flexvert_xpos[m.flex_vertadr[f] + m.flex_elem[adr + 2]]
  ac = (c[0] - a[0], c[1] - a[1], c[2] - a[2])
  d2 = ac[0] * ap[0] + ac[1] * ap[1] + ac[2] * ap[2]
  # the Voronoi regions of the triangle's vertices, edges and face in turn
  if d1 <= 0.0 and d2 <= 0.0:
    return 1.0, 0.0, 0.0
  bp = (p[0] - b[0], p[1] - b[1], p[2] - b[2])
  d3 = ab[0] * bp[0] + ab[1] * bp[1] + ab[2] * bp[2]
  d4 = ac[0] * bp[0] + ac[1] * bp[1] + ac[2] * bp[2]
  if d3 >= 0.0 and d4 <= d3:
    return 0.0, 1.0, 0.0
  vc = d1 * d4 - d3 * d2
  if vc <= 0.0 and d1 >= 0.0 and d3 <= 0.0:
    v = d1 / (d1 - d3)
    return 1.0 - v, v, 0.0
  cp = (p[0] - c[0], p[1] - c[1], p[2] - c[2])
  d5 = ab[0] * cp[0] + ab[1] * cp[1] + ab[2] * cp[2]
  d6 = ac[0] * cp[0] + ac[1] * cp[1] + ac[2] * cp[2]
  if d6 >= 0.0 and d5 <= d6:
    return 0.0, 0.0, 1.0
  vb = d5 * d2 - d1 * d6
  if vb <= 0.0 and d2 >= 0.0 and d6 <= 0.0:
    w = d2 / (d2 - d6)
    return 1.0 - w, 0.0, w
  va = d3 * d6 - d5 * d4
  if va <= 0.0 and (d4 - d3) >= 0.0 and (d5 - d6) >= 0.0:
    w = (d4 - d3) / ((d4 - d3) + (d5 - d6))
    return 0.0, 1.0 - w, w
  s = 1.0 / (va + vb + vc)
  v, w = vb * s, vc * s
  return 1.0 - v - w, v, w
