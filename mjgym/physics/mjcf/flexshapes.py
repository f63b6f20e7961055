"""The points and elements of the generated <flexcomp> kinds other than grid: box, cylinder and ellipsoid (closed
surfaces, or volumes around a centre point for dim 3), square and disc (2-D sheets), circle (a closed ring for dim
1), and mesh (from an OBJ or STL file), numbered as MuJoCo 4 numbers them."""

import math

import numpy as np

from mjgym.physics.mjcf.errors import MJCFError
from mjgym.physics.mjcf.errors import fail

# MuJoCo's mjEPS: below it a squared length is not normalized, and within it of 1 a length is left as is.
_EPS = 1e-14


def _normalize(v, n):
  """The first n components of v scaled to unit length in place (not when nearly zero or already unit)."""
  nrm = 0.0
  for i in range(n):
    nrm += v[i] * v[i]
  if nrm < _EPS:
    return
  nrm = math.sqrt(nrm)
  if abs(nrm - 1) > _EPS:
    for i in range(n):
      v[i] /= nrm


def unit(v):
  """v (3,) scaled to unit length as MuJoCo's compiler scales a vector (left as is when nearly zero or unit)."""
  out = [float(x) for x in v]
  _normalize(out, 3)
  return out


def _project(ftype, count, spacing, ix, iy, iz):
  """A box lattice point (ix, iy, iz) on the box, cylinder or ellipsoid the flexcomp makes."""
  pos = [2.0 * ix / (count[0] - 1) - 1, 2.0 * iy / (count[1] - 1) - 1, 2.0 * iz / (count[2] - 1) - 1]
  size = [0.5 * spacing[k] * (count[k] - 1) for k in range(3)]
  if ftype == "box":
    return [pos[k] * size[k] for k in range(3)]
  if ftype == "cylinder":
    radial = max(abs(pos[0]), abs(pos[1]))
    _normalize(pos, 2)
    return [pos[0] * (size[0] * radial), pos[1] * (size[1] * radial), pos[2] * size[2]]
  _normalize(pos, 3)
  return [pos[k] * size[k] for k in range(3)]


def box(node, ftype, dim, count, spacing):
  """Points, elements and texture coordinates (float32, one a point: the lattice position on each face) of a box, cylinder or ellipsoid flexcomp. dim 3: a centre point (0) and tetrahedra from
  it to each surface triangle; dim 2: the surface, open at the top (z = max) as MuJoCo 4 builds it; dim 1: the
  closed surface's points strung into a chain."""
  if any(c < 2 for c in count):
    # a box lattice needs two points along each axis (MuJoCo 4's message)
    fail(node, f"no elements were created in box (type '{ftype}' needs a count of at least 2 along each axis)",
         "count")
  cx, cy, cz = count
  open_top = dim == 2
  points, idx, tex = [], {}, []

  def add(ix, iy, iz, u, v):
    idx[ix, iy, iz] = len(points)
    points.append(_project(ftype, count, spacing, ix, iy, iz))
    tex.append([u, v])

  if dim == 3:
    points.append([0.0, 0.0, 0.0])
    tex.append([0.0, 0.0])
  for iz in (0, cz - 1):
    for ix in range(cx):
      for iy in range(cy):
        if not (open_top and iz != 0):
          add(ix, iy, iz, ix / (cx - 1), iy / (cy - 1))
  for iy in (0, cy - 1):
    for ix in range(cx):
      for iz in range(cz):
        if iz > 0 and (open_top or iz < cz - 1):
          add(ix, iy, iz, ix / (cx - 1), iz / (cz - 1))
  for ix in (0, cx - 1):
    for iy in range(1, cy - 1):
      for iz in range(cz):
        if iz > 0 and (open_top or iz < cz - 1):
          add(ix, iy, iz, iy / (cy - 1), iz / (cz - 1))
  tex = np.asarray(tex, np.float32)
  if dim == 1:
    # MuJoCo 4 strings the surface points into one chain, in their order
    return (np.asarray(points, float), np.array([k for i in range(len(points) - 1) for k in (i, i + 1)], int),
            tex)
  elements = []

  def tets(a, b, c, d):
    # two tetrahedra from the centre to the quad (a, b, c, d), split along a-c
    elements.extend([0, idx[a], idx[b], idx[c], 0, idx[a], idx[d], idx[c]])

  for iz in (0, cz - 1):
    for ix in range(cx - 1):
      for iy in range(cy - 1):
        if open_top and iz != 0:
          continue
        if dim == 3:
          tets((ix, iy, iz), (ix + 1, iy, iz), (ix + 1, iy + 1, iz), (ix, iy + 1, iz))
        else:
          s1, s2 = (1, 0) if iz == 0 else (0, 1)
          elements += [idx[ix, iy, iz], idx[ix + 1, iy + s1, iz], idx[ix + 1, iy + s2, iz],
                       idx[ix, iy, iz], idx[ix + s2, iy + 1, iz], idx[ix + s1, iy + 1, iz]]
  for iy in (0, cy - 1):
    for ix in range(cx - 1):
      for iz in range(cz - 1):
        if dim == 3:
          tets((ix, iy, iz), (ix + 1, iy, iz), (ix + 1, iy, iz + 1), (ix, iy, iz + 1))
        else:
          x0, dx = (ix, 1) if iy == 0 else (ix + 1, -1)
          elements += [idx[x0, iy, iz], idx[x0 + dx, iy, iz], idx[x0 + dx, iy, iz + 1],
                       idx[x0, iy, iz], idx[x0 + dx, iy, iz + 1], idx[x0, iy, iz + 1]]
  for ix in (0, cx - 1):
    for iy in range(cy - 1):
      for iz in range(cz - 1):
        if dim == 3:
          tets((ix, iy, iz), (ix, iy + 1, iz), (ix, iy + 1, iz + 1), (ix, iy, iz + 1))
        else:
          y0, dy = (iy, 1) if ix != 0 else (iy + 1, -1)
          elements += [idx[ix, y0, iz], idx[ix, y0 + dy, iz], idx[ix, y0 + dy, iz + 1],
                       idx[ix, y0, iz], idx[ix, y0 + dy, iz + 1], idx[ix, y0, iz + 1]]
  return np.asarray(points, float), np.asarray(elements, int), tex


def square(node, ftype, count, spacing):
  """Points and triangles of a square or disc flexcomp (always dim 2): a grid in the xy plane; a disc's points are
  pushed out radially, and the triangles of the quads in its second and fourth quadrants split the other way."""
  points, elements = [], []
  cx, cy, cz = count
  for ix in range(cx):
    for iy in range(cy):
      x, y = spacing[0] * (ix - 0.5 * (cx - 1)), spacing[1] * (iy - 0.5 * (cy - 1))
      points.append([x, y, 0.0])
      split = ((0, 1, 2), (0, 2, 3))
      if ftype == "disc" and ((x < -_EPS and y > -_EPS) or (x > -_EPS and y < -_EPS)):
        split = ((0, 1, 3), (1, 2, 3))
      if ix < cx - 1 and iy < cy - 1:
        quad = (cz * cy * ix + cz * iy, cz * cy * (ix + 1) + cz * iy, cz * cy * (ix + 1) + cz * (iy + 1),
                cz * cy * ix + cz * (iy + 1))
        for tri in split:
          elements += [quad[k] for k in tri]
  if not elements:
    fail(node, "no elements were created in the grid (count too small for its dim)", "count")
  if ftype == "disc":
    size = (0.5 * spacing[0] * (cx - 1), 0.5 * spacing[1] * (cy - 1))
    for p in points:
      radial = max(abs(p[0]), abs(p[1]))
      _normalize(p, 2)
      p[0] *= size[0] * radial
      p[1] *= size[1] * radial
  return np.asarray(points, float), np.asarray(elements, int)


def grid_texcoord(dim, count):
  """The texture coordinates (float32) MuJoCo gives the points of a 2-D or 3-D grid (square, disc, circle) when the
  flexcomp has a material: the point's x and y lattice position in [0, 1]; None for dim 1 (it gives none)."""
  if dim == 1:
    return None
  cx, cy, cz = count
  layers = cz if dim == 3 else 1
  tex = [[ix / max(cx - 1, 1), iy / max(cy - 1, 1)] for ix in range(cx) for iy in range(cy) for _ in range(layers)]
  return np.asarray(tex, np.float32)


def circle(node, count, spacing):
  """Points and segments of a dim 1 circle flexcomp: count - 1 points on a ring whose chords are spacing long."""
  n = count[0] - 1
  if n < 1:
    fail(node, "no elements were created in the grid (count too small for its dim)", "count")
  theta = 2 * math.pi / n
  radius = spacing[0] / math.sin(theta / 2) / 2
  points = [[radius * math.cos(theta * i), radius * math.sin(theta * i), 0.0] for i in range(n)]
  elements = [k for i in range(n) for k in (i, 0 if i == n - 1 else i + 1)]
  return np.asarray(points, float), np.asarray(elements, int)


def mesh(node, dim, vert, face, origin):
  """Points and elements of a mesh flexcomp from the file's vertices and triangles: the triangles (dim 2), their
  first edges (dim 1: a file's line segments, read as degenerate triangles), or tetrahedra from the origin (point 0)
  to each triangle it sees from inside (dim 3; triangles facing the other way are dropped)."""
  vert = np.asarray(vert, float).reshape(-1, 3)
  face = np.asarray(face, int).reshape(-1, 3)
  if not len(vert) or not len(face):
    fail(node, "the mesh file needs vertices and faces", "file")
  if dim == 2:
    return vert, face.ravel()
  if dim == 1:
    return vert, face[:, :2].ravel()
  origin = np.asarray(origin, float)
  points = np.vstack([origin, vert])
  elements = []
  for tri in face + 1:
    e1, e2, e3 = (points[tri[k]] - origin for k in range(3))
    normal = np.array([e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2], e1[0] * e2[1] - e1[1] * e2[0]])
    if normal[0] * e3[0] + normal[1] * e3[1] + normal[2] * e3[2] < 1e-15:
      continue
    elements += [0, *tri]
  return points, np.asarray(elements, int)


def gmsh(node, data):
  """(dim, points, elements) of an ASCII GMSH file, format 4.1 (one node block, one element block) or 2.2, read as
  MuJoCo 4 reads them: the dim comes from the file (a dim given must match it), node tags are dropped and element
  node tags made 0-based."""

  def bad(message):
    fail(node, f"GMSH file: {message}", "file")

  text = data.decode("latin-1")
  if not text.startswith("$MeshFormat"):
    bad("GMSH file must begin with $MeshFormat")
  header = text[11:].split()
  try:
    version, binary = float(header[0]), int(header[1])
  except (IndexError, ValueError):
    bad("could not read GMSH file header")
  if round(100 * version) not in (220, 410):
    bad("only GMSH file format versions 4.1 and 2.2 are supported")
  if binary:
    fail(node, "binary GMSH files are not supported (unsupported feature; mjgym reads ASCII GMSH)", "file")
  sections = {}
  for name in ("Nodes", "Elements"):
    begin, end = text.find(f"${name}"), text.find(f"$End{name}")
    if begin < 0 or end < begin:
      bad(f"missing ${name} or $End{name}")
    sections[name] = text[begin + len(name) + 2:end].split()
  nodes, elems = sections["Nodes"], sections["Elements"]
  try:
    if round(100 * version) == 410:
      nblocks, nnode, mintag, maxtag, dim, _, _, nblock = (int(x) for x in nodes[:8])
      if nblocks != 1 or nnode != nblock:
        bad("all nodes must be in single block")
      if maxtag != nblock:
        bad("maximum number of nodes must be equal to number of nodes in a block")
      if not 1 <= dim <= 3:
        bad("entity must be 1D, 2D or 3D")
      if [int(x) for x in nodes[8:8 + nnode]] != list(range(mintag, mintag + nnode)):
        bad("node tags must be sequential")
      points = np.array([float(x) for x in nodes[8 + nnode:8 + 4 * nnode]]).reshape(nnode, 3)
      nblocks, nelem, _, _, edim, _, etype, nblock = (int(x) for x in elems[:8])
      if nblocks != 1 or nelem != nblock:
        bad("all elements must be in single block")
      if edim != dim:
        bad("inconsistent dimensionality in Elements")
      if etype != (1, 2, 4)[dim - 1]:
        bad("element type inconsistent with dimensionality")
      rows = np.array([int(x) for x in elems[8:8 + nelem * (dim + 2)]]).reshape(nelem, dim + 2)
      elements = rows[:, 1:] - mintag
    else:
      nnode = int(nodes[0])
      rows = np.array([float(x) for x in nodes[1:1 + 4 * nnode]]).reshape(nnode, 4)
      points = rows[:, 1:].astype(np.float32).astype(float)  # MuJoCo 4 reads 2.2 coordinates in single precision
      nelem, pos, elements, dim = int(elems[0]), 1, [], None
      for _ in range(nelem):
        etype, ntags = int(elems[pos + 1]), int(elems[pos + 2])
        if dim is None:
          # the first element's type sets the dim: triangles or tetrahedra
          dim = {2: 2, 4: 3}.get(etype)
          if dim is None:
            bad("invalid number of node tags")
        pos += 3 + (2 if ntags > 0 else 0)
        tags = [int(x) for x in elems[pos:pos + dim + 1]]
        if len(tags) < dim + 1 or any(not 1 <= t <= nnode for t in tags):
          bad("invalid node tag")
        elements += [t - 1 for t in tags]
        pos += dim + 1
      if dim is None:
        bad("error reading Elements")
  except MJCFError:
    raise
  except (IndexError, ValueError):
    bad("error reading Nodes or Elements")
  if node.has("dim") and node.get("dim") != dim:
    fail(node, f"flexcomp dim does not match GMSH mesh dimensionality ({dim})", "dim")
  return dim, points, np.asarray(elements, int).ravel()
