"""Flex elasticity at compile time: what a flex's <elasticity> asks for, checked, and the per-element and per-edge
stiffness data MuJoCo 4 stores for the passive forces (flex_stiffness, flex_bending, flex_edgeflap).

Stretching (dim 3, and dim 2 with elastic2d "stretch" or "both") is linear elasticity written on squared edge
lengths: each element keeps the upper triangle of a symmetric edge-by-edge metric (Lame's mu and lambda times the
traces of products of a per-edge strain basis made of the face normals next to the edge). Bending (dim 2,
elastic2d "bend" or "both") keeps for each inner edge the 4x4 cotangent-weighted matrix of the two triangles
sharing it (its flap) and a factor for a curved reference shape.
"""

import numpy as np

from mjgym.physics.mjcf.errors import fail
from mjgym.physics.types import ObjType

ELASTIC2D = {"none": 0, "bend": 1, "stretch": 2, "both": 3}
# Element edges as local vertex pairs (dim 2, dim 3), in MuJoCo's order.
_EDGES = {2: ((1, 2), (2, 0), (0, 1)), 3: ((0, 1), (1, 2), (2, 0), (2, 3), (0, 3), (1, 3))}
# The two element faces away from each edge: for dim 2 the other two edges' vertex pairs, for dim 3 the two
# faces (vertex triples) not containing the edge.
_FACES = {2: ((1, 2), (2, 0), (0, 1)), 3: ((2, 1, 0), (0, 1, 3), (1, 2, 3), (2, 0, 3))}
_EDGE_FACES = {2: ((1, 2), (2, 0), (0, 1)), 3: ((2, 3), (1, 3), (2, 1), (1, 0), (0, 2), (0, 3))}
# Values stored per element: the 21 of a 6x6 upper triangle; MuJoCo 4 pads a tetrahedron's to 24 (measured).
STIFFNESS_STRIDE = {2: 21, 3: 24}
BENDING_STRIDE = 17


def settings(node, dim):
  """young, poisson, damping, thickness and elastic2d of a flex's <elasticity>, checked as MuJoCo checks them."""
  el = node.child("elasticity")
  a = el.attrs if el is not None else {}
  out = dict(young=a.get("young", 0.0), poisson=a.get("poisson", 0.0), damping=a.get("damping", 0.0),
             thickness=a.get("thickness", -1.0), elastic2d=ELASTIC2D[a.get("elastic2d", "none")])
  if out["elastic2d"]:
    if out["thickness"] <= 0:
      fail(el, "2d elasticity requires positive thickness", "thickness")
    if not 0.0 <= out["poisson"] < 0.5:
      fail(el, "Poisson ratio must be in [0, 0.5)", "poisson")
    if dim != 2:
      fail(el, "2d elasticity requires a 2d flex", "elastic2d")
  if out["young"] > 0:
    if not 0.0 <= out["poisson"] < 0.5:
      fail(el, "Poisson ratio must be in [0, 0.5)", "poisson")
    if dim == 1:
      fail(el, "elasticity of a 1-D flex is not supported (unsupported feature; mjgym has dim 2 and 3)", "young")
  return out


def makes_forces(spec):
  """Whether the flex's elasticity makes stretch or bending forces (MuJoCo 4 refuses them with the implicit
  integrators; measured)."""
  return spec["young"] > 0 and not (spec["dim"] == 2 and spec["elastic2d"] == 0)


def check(ctx, spec, rigid, vertbodyid, parent, weldid, body_names):
  """Elasticity moves a flex's vertices through bodies of three slide joints (x, y, z) on a static parent, as
  flexcomp makes them, or leaves them on static bodies; anything else, and the implicit integrators, are refused.
  A rigid flex (all its vertices on one body) makes no elastic force."""
  if rigid or not makes_forces(spec):
    return
  el = spec["node"].child("elasticity")
  integrator = [opt.get("integrator") for opt in ctx.root.all("option") if opt.has("integrator")]
  if integrator and integrator[-1] in ("implicit", "implicitfast"):
    fail(el, "flex elasticity is not integrated implicitly (MuJoCo 4 refuses it with integrator 'implicit' and "
         "'implicitfast'): use 'Euler' or 'RK4' with a small timestep", "young")
  for b in set(vertbodyid):
    if weldid[b] == 0:
      continue
    joints = ctx.body_info[b]["joints"]
    kinds = [(j["node"].get("type", "hinge"), tuple(j["node"].get("axis", [0.0, 0.0, 1.0]))) for j in joints]
    if weldid[parent[b]] == 0 and kinds == [("slide", (1.0, 0.0, 0.0)), ("slide", (0.0, 1.0, 0.0)),
                                            ("slide", (0.0, 0.0, 1.0))]:
      continue
    fail(el, f"flex elasticity on body '{body_names[b]}': mjgym applies it to vertex bodies of three slide joints "
         "(x, y, z) on a static parent, or to static bodies (unsupported feature)", "young")


def add_fields(ctx, spec, flex, parent, weldid, rows, adr):
  """Checks one compiled flex's elasticity and appends its flex_stiffness, flex_bending and their addresses to the
  model rows (advancing ``adr["stiffness"]``, ``adr["bending"]``); returns its flex_edgeflap rows."""
  check(ctx, spec, flex["rigid"], flex["vertbodyid"], parent, weldid, ctx.names[ObjType.BODY])
  elements = np.reshape(flex["elements"], (flex["nelem"], -1))
  stiffness, bending, flaps = compile_flex(spec, flex["xv"], elements, flex["edges"])
  for key, data in (("stiffness", stiffness), ("bending", bending)):
    rows.setdefault(f"flex_{key}adr", []).append(adr[key] if data is not None else -1)
    if data is not None:
      rows.setdefault(f"flex_{key}", []).extend(data)
      adr[key] += len(data)
  return flaps


def compile_flex(spec, xv, elements, edges):
  """flex_stiffness, flex_bending (None where the flex has none) and flex_edgeflap rows of one flex, from its vertex
  positions ``xv`` at qpos0, its (oriented) elements (nelem, dim + 1) and its edges."""
  dim, young, poisson = spec["dim"], spec["young"], spec["poisson"]
  nedge = len(edges)
  flaps = [[-1, -1]] * nedge
  if young <= 0 or dim == 1:
    return None, None, flaps
  stride = STIFFNESS_STRIDE[dim]
  stiffness = np.zeros(stride * len(elements))
  if dim == 3 or spec["elastic2d"] >= 2:
    for t, el in enumerate(elements):
      stiffness[stride * t:stride * t + 21] = _metric(xv, el, dim, young, poisson, spec["thickness"])
  bending = None
  if dim == 2 and spec["elastic2d"] in (1, 3):
    stencils = _flaps(elements, nedge)
    flaps = [[s[2], s[3]] for s in stencils]
    bending = np.zeros(BENDING_STRIDE * nedge)
    rigidity = young * spec["thickness"] ** 3 / (12 * (1 - poisson * poisson))
    for e, s in enumerate(stencils):
      if s[3] >= 0:
        flap = (edges[e][0], edges[e][1], s[2], s[3])
        bending[BENDING_STRIDE * e:BENDING_STRIDE * (e + 1)] = _bending(xv, flap, rigidity)
  return stiffness, bending, flaps


def _volume(x, el, dim):
  """Triangle area (dim 2) or signed tetrahedron volume (dim 3)."""
  e1, e2 = x[el[1]] - x[el[0]], x[el[2]] - x[el[0]]
  n = np.cross(e1, e2)
  if dim == 2:
    return np.linalg.norm(n) / 2
  return np.dot(n, x[el[3]] - x[el[0]]) / 6


def _basis(x, el, dim, e, volume):
  """The symmetric strain basis of edge e: the symmetrised product of the normals of the two faces away from it."""
  fl, fr = (_FACES[dim][k] for k in _EDGE_FACES[dim][e])
  if dim == 2:
    left = x[el[fl[0]]] - x[el[fl[1]]]
    right = x[el[fr[1]]] - x[el[fr[0]]]
    normal = np.cross(right, left)
    normal = normal / np.linalg.norm(normal)
    bl, br = np.cross(normal, left), np.cross(right, normal)
    scale = 8 * volume * volume
  else:
    bl = np.cross(x[el[fl[1]]] - x[el[fl[0]]], x[el[fl[2]]] - x[el[fl[0]]])
    br = np.cross(x[el[fr[1]]] - x[el[fr[0]]], x[el[fr[2]]] - x[el[fr[0]]])
    scale = 72 * volume * volume
  return (np.outer(bl, br) + np.outer(br, bl)) / scale


def _metric(x, el, dim, young, poisson, thickness):
  """Upper triangle, row by row, of mu tr(B_i B_j) + lambda tr(B_i) tr(B_j) over the element's edge bases: Lame's
  parameters times the element's measure (a membrane takes the plane-stress lambda and its thickness); MuJoCo 4
  halves lambda against the textbook energy (measured, over Poisson ratios, as its mu and lambda scale)."""
  volume = _volume(x, el, dim)
  if dim == 2:
    mu = young / (2 * (1 + poisson)) * abs(volume) * thickness
    la = young * poisson / (1 - poisson * poisson) * abs(volume) * thickness / 2
  else:
    mu = young / (2 * (1 + poisson)) * abs(volume)
    la = young * poisson / ((1 + poisson) * (1 - 2 * poisson)) * abs(volume) / 2
  basis = [_basis(x, el, dim, e, volume) for e in range(len(_EDGES[dim]))]
  tr = [np.trace(b) for b in basis]
  out = np.zeros(21)
  k = 0
  for i in range(len(basis)):
    for j in range(i, len(basis)):
      out[k] = mu * np.sum(basis[i] * basis[j].T) + la * tr[j] * tr[i]
      k += 1
  return out


def _flaps(elements, nedge):
  """For each edge (numbered as the flex's edges are), its vertices as the first triangle holding it orders them,
  the third vertex of that triangle and that of the second one (-1 on the border)."""
  stencils = [None] * nedge
  index = {}
  for el in elements:
    for a, b in _EDGES[2]:
      pair = (min(el[a], el[b]), max(el[a], el[b]))
      opposite = int(el[(b + 1) % 3])
      if pair not in index:
        index[pair] = len(index)
        stencils[index[pair]] = [int(el[a]), int(el[b]), opposite, -1]
      else:
        stencils[index[pair]][3] = opposite
  return stencils


def _cot(x, v0, v1, v2):
  e1, e2 = x[v1] - x[v0], x[v2] - x[v0]
  return np.dot(e1, e2) / np.linalg.norm(np.cross(e1, e2))


def _area(x, v0, v1, v2):
  return np.linalg.norm(np.cross(x[v1] - x[v0], x[v2] - x[v0])) / 2


def _bending(x, v, rigidity):
  """The 17 bending values of one inner edge's flap ``v`` (the edge's vertices, lower id first, then the vertices
  opposite it in the first and second triangle): a discrete quadratic bending energy's 4x4 matrix (cotangent
  weights, scaled by the angle the flap's triangles make at rest and by the plate's flexural rigidity over the flap's
  area), and the factor of the curved-reference force, which the runtime applies along the gradients of the flap's
  signed volume."""
  a01, a02 = _cot(x, v[0], v[1], v[2]), _cot(x, v[0], v[3], v[1])
  a03, a04 = _cot(x, v[1], v[2], v[0]), _cot(x, v[1], v[0], v[3])
  c = np.array([a03 + a04, a01 + a02, -(a01 + a03), -(a02 + a04)])
  volume = _area(x, v[0], v[1], v[2]) + _area(x, v[1], v[0], v[3])
  stiffness = rigidity / volume
  e0, e1, e2 = x[v[1]] - x[v[0]], x[v[2]] - x[v[0]], x[v[3]] - x[v[0]]
  e3, e4 = x[v[2]] - x[v[1]], x[v[3]] - x[v[1]]
  t0 = -(a03 * e1 + a01 * e3)
  t1 = -(a04 * e2 + a02 * e4)
  sqr = np.dot(e0, e0)
  cos_theta = -np.dot(t0, t1) / sqr
  out = np.zeros(BENDING_STRIDE)
  out[:16] = (np.outer(c, c) * cos_theta * stiffness).ravel()
  # MuJoCo 4 (measured): the factor that cancels, at rest, the force on the first opposite vertex along the normal
  # of its triangle
  normal = np.cross(e0, e1)
  force = out[8:12] @ x[list(v)]
  out[16] = -np.dot(force, normal) / np.dot(np.cross(e2, e0), normal)
  return out
