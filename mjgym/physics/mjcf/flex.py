"""Flexes: <flexcomp> (expanded into vertex bodies at parse time, as MuJoCo's flexcomp makes them), <deformable><flex>
(vertices on named bodies), the equality constraints on their edges, and the flex_* model fields.

MuJoCo's order is kept: flexes of <deformable> first, then those of <flexcomp> in document order; the equalities a
flexcomp's <edge equality="true"> adds come after every <equality> element.
"""

import os

import numpy as np

from mjgym.physics import types
from mjgym.physics.mjcf import flex_elastic
from mjgym.physics.mjcf import flexshapes
from mjgym.physics.mjcf import frames
from mjgym.physics.mjcf import mesh as meshlib
from mjgym.physics.mjcf import meshfile
from mjgym.physics.mjcf import spatial
from mjgym.physics.mjcf.context import full
from mjgym.physics.mjcf.context import Settings
from mjgym.physics.mjcf.context import plain
from mjgym.physics.mjcf.defaults import SOLIMP
from mjgym.physics.mjcf.defaults import SOLREF
from mjgym.physics.mjcf.errors import fail
from mjgym.physics.types import ObjType

# Where a flexcomp keeps, between parsing and compiling, what its expansion made (not an MJCF attribute).
_EXPANDED = "_expanded"
# The vertex pairs of each element's edges, by dimension (segment, triangle, tetrahedron), in MuJoCo's order.
_ELEM_EDGES = (((0, 1),), ((1, 2), (2, 0), (0, 1)), ((0, 1), (1, 2), (2, 0), (2, 3), (0, 3), (1, 3)))
# A grid cube's six tetrahedra (corner ids 0-3 on the low z face, 4-7 above them), as MuJoCo splits it.
_CUBE_TETS = ((0, 3, 1, 7), (0, 1, 4, 7), (1, 3, 2, 7), (1, 2, 6, 7), (1, 5, 4, 7), (1, 6, 5, 7))
# The flexcomp types whose points the compiler generates from count and spacing.
_GENERATED = ("grid", "box", "cylinder", "ellipsoid", "square", "disc", "circle")
# The slide joints of a free flexcomp vertex, by dof; a radial joint's axis (None) points along the vertex position.
_DOF_AXES = {"full": np.eye(3), "2d": np.eye(3)[:2], "radial": [None]}
_SELFCOLLIDE = {"none": 0, "narrow": 1, "bvh": 2, "sap": 3, "auto": 4}
_MINVAL = types.MINVAL


# ---------------------------------------------------------------------------------------------- parse time


def expand_flexcomps(root, source):
  """Replaces each <flexcomp> by the bodies of its free vertices (each with the slide joints of its dof), in place
  among its parent's children, before default classes are applied so that the joints take them as MuJoCo's do."""
  for section in root.all("worldbody"):
    _expand_in(section, "world", root, source, None)


def _expand_in(node, parent_name, root, source, childclass):
  # a flexcomp in a <frame> makes its bodies for the body around the frame, whose default class (not the frame's
  # childclass) their joints take, as in MuJoCo 4
  children = []
  for child in node.children:
    if child.tag == "flexcomp":
      bodies = _expand(child, node, parent_name, root, source)
      if node.tag == "frame":
        for body in bodies:
          body.attrs["childclass"] = childclass or "main"
      children.extend(bodies)
      children.append(child)
    else:
      if child.tag == "body":
        _expand_in(child, child.get("name"), root, source, child.get("childclass", childclass))
      elif child.tag == "frame":
        _expand_in(child, parent_name, root, source, childclass)
      children.append(child)
  node.children = children


def _expand(node, parent, parent_name, root, source):
  """The vertex bodies of one flexcomp; what the compiler needs later is kept on the flexcomp."""
  if not node.has("name"):
    fail(node, "required attribute missing", "name")
  if not parent_name:
    fail(node, "the body holding a flexcomp must have a name", "name")
  dof = node.get("dof", "full")
  if dof not in _DOF_AXES:
    fail(node, f"dof='{dof}' is not supported (unsupported feature; mjgym builds dof='full', 'radial' and '2d', "
         "not the interpolated flexes)", "dof")
  ftype = node.get("type", "grid")
  dim = node.get("dim", 2)
  if dim < 1 or dim > 3:
    fail(node, f"dim must be 1, 2 or 3, got {dim}", "dim")
  count = node.get("count", [10, 10, 10])
  if any(c < 1 for c in count):
    fail(node, f"count must be at least 1, got {plain(count)}", "count")
  if dof == "radial" and dim == 3 and any(c < 2 for c in count):
    fail(node, f"count must be at least 2 for dof='radial' in dim 3, got {plain(count)}", "count")
  spacing = np.asarray(node.get("spacing", [0.02] * 3), float)
  contact = node.child("contact")
  radius = node.get("radius", 0.005)
  margin = contact.get("margin", 0.0) if contact is not None else 0.0
  scale = np.asarray(node.get("scale", [1.0] * 3), float)
  mass, inertiabox = node.get("mass", 1.0), node.get("inertiabox", 0.005)
  texcoord = elemtexcoord = None
  if ftype in _GENERATED:
    if np.any(spacing < 2 * radius + margin):
      fail(node, "spacing must be larger than the geometry size (2 radius + margin)", "spacing")
    if ftype in ("square", "disc"):
      dim = 2
      points, elements = flexshapes.square(node, ftype, count, spacing)
    elif ftype in ("box", "cylinder", "ellipsoid"):
      points, elements, texcoord = flexshapes.box(node, ftype, dim, count, spacing)
    elif ftype == "circle" and dim == 1:
      points, elements = flexshapes.circle(node, count, spacing)
    else:
      points, elements = _grid(node, dim, count, spacing)
    if ftype not in ("box", "cylinder", "ellipsoid"):
      texcoord = flexshapes.grid_texcoord(dim, count)
    # MuJoCo makes texture coordinates for a generated flexcomp with a material and none given
    if not node.get("material") or node.has("texcoord"):
      texcoord = None
  elif ftype == "mesh":
    if dim == 3 and not node.has("origin"):
      fail(node, "origin must be specified for mesh flexcomps if dim=3", "origin")
    vert, face, texcoord, elemtexcoord = _read_mesh(node, root, source)
    if texcoord is not None and dim != 2:
      fail(node, "texture coordinates in the mesh file of a flexcomp of dim 1 or 3 are not supported (unsupported "
           "feature)", "file")
    # the scale applies after the tetrahedra are chosen, to the origin too
    points, elements = flexshapes.mesh(node, dim, vert, face, node.get("origin", [0.0] * 3))
    points = points * scale
  elif ftype == "gmsh":
    dim, points, elements = flexshapes.gmsh(node, _file_bytes(node, root, source))
    points = points * scale
  elif ftype == "direct":
    for attr in ("point", "element"):
      if not node.has(attr):
        fail(node, f"type 'direct' needs '{attr}'", attr)
    points = np.asarray(node.get("point"), float)
    elements = np.asarray(node.get("element"), int)
    if points.size % 3:
      fail(node, "point size must be a multiple of 3", "point")
    if elements.size % (dim + 1):
      fail(node, f"element size must be a multiple of dim + 1 ({dim + 1})", "element")
    points = points.reshape(-1, 3) * scale
    bad = (elements < 0) | (elements >= len(points))
    if np.any(bad):
      fail(node, f"element {int(np.argmax(bad))} has point id {int(elements[np.argmax(bad)])}, number of points "
           f"is {len(points)}", "element")
  else:
    fail(node, f"unknown flexcomp type '{ftype}'", "type")
  if np.any(scale < _MINVAL):
    fail(node, "scale must be larger than 1e-15", "scale")
  if mass < _MINVAL or inertiabox < _MINVAL:
    fail(node, "mass and inertiabox must be larger than 1e-15", "mass" if mass < _MINVAL else "inertiabox")
  npnt = len(points)
  if node.has("texcoord"):
    texcoord = np.asarray(node.get("texcoord"), np.float32)
    if texcoord.size % 2:
      fail(node, "texcoord size must be a multiple of 2", "texcoord")
    texcoord = texcoord.reshape(-1, 2)
  pinned = np.full(npnt, bool(node.get("rigid", False)))
  if not node.get("rigid", False):
    for pin in node.all("pin"):
      _pin(node, pin, pinned, dim, count, npnt, ftype)
    # a radial flex moves its points along rays from point 0 (the centre of a box, cylinder or ellipsoid volume)
    pinned[0] = pinned[0] or dof == "radial"
  rigid = bool(np.all(pinned))
  centered = not np.any(pinned)
  if ftype in ("direct", "mesh", "gmsh"):
    used = np.zeros(npnt, bool)
    used[elements] = True
    if not np.all(used):
      newid = np.cumsum(used) - 1
      elements = newid[elements]
      points, pinned = points[used], pinned[used]
      if texcoord is not None:
        # MuJoCo compacts texture coordinates as it compacts points, by point id
        if len(texcoord) != npnt:
          fail(node, "texture coordinates not one a point, with points that no element uses (unsupported "
               "feature)", "texcoord" if node.has("texcoord") else "file")
        texcoord = texcoord[used]
      npnt = len(points)
  name = node.get("name")
  bodies, vertbody = [], []
  body_mass = mass / npnt
  body_inertia = body_mass * (2.0 * inertiabox * inertiabox) / 3.0
  if rigid:
    vertbody = [parent_name]
  else:
    for i in range(npnt):
      if pinned[i]:
        vertbody.append(parent_name)
        continue
      body = type(node)("body", {"name": f"{name}_{i}"}, node.line, node.file, parent, node.incdir)
      body.frames = node.frames
      inertial = type(node)("inertial", {"pos": [0.0] * 3, "mass": body_mass, "diaginertia": [body_inertia] * 3},
                            node.line, node.file, body, node.incdir)
      body.children.append(inertial)
      for axis in _DOF_AXES[dof]:
        attrs = {"type": "slide", "axis": None if axis is None else list(axis), "pos": [0.0] * 3}
        body.children.append(type(node)("joint", attrs, node.line, node.file, body, node.incdir))
      bodies.append((i, body))
      vertbody.append(body.get("name"))
  flatskin = ftype in ("box", "cylinder") or (ftype == "grid" and dim == 3)
  node.attrs[_EXPANDED] = dict(points=points, elements=elements, pinned=pinned, rigid=rigid, centered=centered,
                               bodies=bodies, vertbody=vertbody, dim=dim, flatskin=flatskin, texcoord=texcoord,
                               elemtexcoord=elemtexcoord, parent=parent_name)
  return [body for _, body in bodies]


def _file_bytes(node, root, source):
  """The contents of a mesh or gmsh flexcomp's file, looked up as MuJoCo looks up a mesh asset's file."""
  if not node.has("file"):
    fail(node, f"type '{node.get('type')}' needs 'file'", "file")
  cfg = Settings(root)
  name = node.get("file")
  if cfg.strippath:
    name = name[max(name.rfind("/"), name.rfind("\\")) + 1:]
  path = name
  if not os.path.isabs(name):
    if node.incdir and not source.exists(os.path.join(source.main_dir, cfg.meshdir, name)):
      name = os.path.join(node.incdir, name)
    path = os.path.join(source.main_dir, cfg.meshdir, name)
  if os.path.splitext(path)[1].lower() == ".msh" and node.get("type") == "mesh":
    fail(node, "legacy MSH files are not supported in flexcomp", "file")
  return source.read(path, node, "file")


def _read_mesh(node, root, source):
  """(vert, face, texcoord, facetexcoord) of a mesh flexcomp's file (OBJ or STL; the last two None without ``vt``
  lines)."""
  data = _file_bytes(node, root, source)
  path = node.get("file")
  try:
    if os.path.splitext(path)[1].lower() == ".obj":
      vert, face, texcoord, facetex = meshfile.read_obj_textured(data)
      return (vert, face) + ((texcoord, facetex.ravel()) if len(texcoord) else (None, None))
    return meshlib.read_mesh(data, path) + (None, None)
  except ValueError as e:
    fail(node, f"cannot load mesh '{node.get('file')}': {e}", "file")


def _grid(node, dim, count, spacing):
  """Points and elements of a grid flexcomp, numbered as MuJoCo numbers them."""
  points, elements = [], []
  cx, cy, cz = count
  if dim == 1:
    for ix in range(cx):
      points.append([spacing[0] * (ix - 0.5 * (cx - 1)), 0.0, 0.0])
      if ix < cx - 1:
        elements += [ix, ix + 1]
  elif dim == 2:
    for ix in range(cx):
      for iy in range(cy):
        points.append([spacing[0] * (ix - 0.5 * (cx - 1)), spacing[1] * (iy - 0.5 * (cy - 1)), 0.0])
        if ix < cx - 1 and iy < cy - 1:
          quad = [cz * cy * ix + cz * iy, cz * cy * (ix + 1) + cz * iy, cz * cy * (ix + 1) + cz * (iy + 1),
                  cz * cy * ix + cz * (iy + 1)]
          elements += [quad[0], quad[1], quad[2], quad[0], quad[2], quad[3]]
  else:
    for ix in range(cx):
      for iy in range(cy):
        for iz in range(cz):
          points.append([spacing[0] * (ix - 0.5 * (cx - 1)), spacing[1] * (iy - 0.5 * (cy - 1)),
                         spacing[2] * (iz - 0.5 * (cz - 1))])
          if ix < cx - 1 and iy < cy - 1 and iz < cz - 1:
            corner = [cz * cy * (ix + a) + cz * (iy + b) + iz + c
                      for c, (a, b) in ((0, (0, 0)), (0, (1, 0)), (0, (1, 1)), (0, (0, 1)),
                                        (1, (0, 0)), (1, (1, 0)), (1, (1, 1)), (1, (0, 1)))]
            for tet in _CUBE_TETS:
              elements += [corner[k] for k in tet]
  if not elements:
    fail(node, "no elements were created in the grid (count too small for its dim)", "count")
  points = np.asarray(points, float)
  elements = np.asarray(elements, int)
  if np.any(elements >= len(points)):
    bad = int(np.argmax(elements >= len(points)))
    fail(node, f"element {bad} has point id {int(elements[bad])}, number of points is {len(points)}", "count")
  return points, elements


def _pin(node, pin, pinned, dim, count, npnt, ftype):
  """Marks the vertices a <pin> names: by id, id range, grid coordinates or grid coordinate ranges."""
  ids, ranges = pin.get("id", []), pin.get("range", [])
  grid, gridrange = pin.get("grid", []), pin.get("gridrange", [])
  if len(ranges) % 2:
    fail(pin, "pin range needs pairs of ids", "range")
  if len(grid) % dim:
    fail(pin, f"pin grid needs {dim} numbers a vertex (dim)", "grid")
  if len(gridrange) % (2 * dim):
    fail(pin, f"pin gridrange needs {2 * dim} numbers a range (2 dim)", "gridrange")
  if (grid or gridrange) and (ftype != "grid" or dim == 1):
    fail(pin, "pin grid and gridrange need a grid flexcomp of dim 2 or 3", "grid" if grid else "gridrange")
  for i in ids:
    if not 0 <= i < npnt:
      fail(pin, f"pin id {i} out of range (0 to {npnt - 1})", "id")
    pinned[i] = True
  for a, b in zip(ranges[::2], ranges[1::2]):
    if not (0 <= a < npnt and 0 <= b < npnt):
      fail(pin, f"pin range [{a}, {b}] out of range (0 to {npnt - 1})", "range")
    pinned[a:b + 1] = True

  def grid_id(ix):
    return ix[0] * count[1] + ix[1] if dim == 2 else ix[0] * count[1] * count[2] + ix[1] * count[2] + ix[2]

  for k in range(0, len(grid), dim):
    ix = grid[k:k + dim]
    if any(not 0 <= ix[j] < count[j] for j in range(dim)):
      fail(pin, f"pin grid {plain(ix)} out of range", "grid")
    pinned[grid_id(ix)] = True
  for k in range(0, len(gridrange), 2 * dim):
    lo, hi = gridrange[k:k + dim], gridrange[k + dim:k + 2 * dim]
    if any(not 0 <= v < count[j % dim] for j, v in enumerate(lo + hi)):
      fail(pin, f"pin gridrange {plain(lo + hi)} out of range", "gridrange")
    for ix in np.ndindex(*[hi[j] - lo[j] + 1 for j in range(dim)]):
      pinned[grid_id([lo[j] + ix[j] for j in range(dim)])] = True


# ---------------------------------------------------------------------------------------------- compile time


def place_flexcomps(ctx):
  """Positions of the vertex bodies (the flexcomp's pose applied to its points), before the bodies are compiled."""
  for node in _flexcomps(ctx.root):
    info = node.get(_EXPANDED)
    pos, quat = frames.frame(ctx.cfg, node)
    points = np.array([np.asarray(pos) + spatial.rotate(quat, p) for p in info["points"]]).reshape(-1, 3)
    # MuJoCo 4 poses the points through the <frame>s around the flexcomp into the parent body's frame, and puts the
    # vertex bodies there unrotated (their slide joints along the parent's axes)
    composed = frames.frames(ctx.cfg, node)
    if composed is not None:
      points = np.array([composed[0] + spatial.rotate(composed[1], p) for p in points]).reshape(-1, 3)
    info["posed"] = points
    for i, body in info["bodies"]:
      body.attrs["pos"] = list(points[i])
      body.given = frozenset(body.attrs)
      body.frames = ()
      for joint in body.children:
        if joint.tag == "joint" and joint.attrs.get("axis") is None:
          joint.attrs["axis"] = list(flexshapes.unit(points[i]))


def _flexcomps(root):
  """The flexcomp elements, depth first in document order (MuJoCo makes them as it reads the body tree)."""
  out = []

  def walk(node):
    for child in node.children:
      if child.tag == "flexcomp":
        out.append(child)
      elif child.tag == "body":
        walk(child)

  for section in root.all("worldbody"):
    walk(section)
  return out


def equality_nodes(ctx):
  """The <equality> elements in MuJoCo's order, then the flexcomps whose edges are equality-constrained."""
  nodes = [child for section in ctx.root.all("equality") for child in section.children]
  for node in _flexcomps(ctx.root):
    edge = node.child("edge")
    if edge is not None:
      kind = edge.get("equality", "false")
      if kind in ("vert", "strain"):
        fail(edge, f"equality='{kind}' is not supported (unsupported feature; mjgym has edge equalities)",
             "equality")
      if kind == "true":
        nodes.append(edge)
  return nodes


def equality_flex(ctx, node):
  """(flex id, name) of an <equality><flex>, or of a flexcomp's <edge equality="true">."""
  if node.tag == "edge":
    name = node.parent.get("name")
  else:
    if not node.has("flex"):
      fail(node, "required attribute missing", "flex")
    name = node.get("flex")
  names = [spec["name"] for spec in ctx.flexes]
  if name not in names:
    fail(node, f"unknown flex '{name}'", "flex")
  return names.index(name)


def collect(ctx):
  """The flexes in MuJoCo's order (each a dict of its element, settings and vertices), with their names."""
  ctx.flexes = []
  for section in ctx.root.all("deformable"):
    for node in section.all("flex"):
      _explicit(ctx, node)
  for node in _flexcomps(ctx.root):
    info = node.get(_EXPANDED)
    # the posed points, in the parent body's frame; a free vertex sits at its own body's origin
    vert = np.zeros((len(info["vertbody"]), 3)) if info["centered"] else info["posed"].copy()
    if not info["centered"] and not info["rigid"]:
      vert[~info["pinned"]] = 0.0
    spec = _settings(node, info["dim"])
    # as for an explicit flex, vertices that all sit at their bodies' origins make a centred flex (a pinned centre)
    spec.update(vertbody=info["vertbody"], vert=vert, elements=info["elements"].copy(),
                centered=info["centered"] or not np.any(vert != 0), vert_given=not info["centered"],
                flatskin=info["flatskin"] or node.get("flatskin", False), texcoord=info["texcoord"],
                elemtexcoord=info["elemtexcoord"], parent=info["parent"])
    edge = node.child("edge")
    if edge is not None:
      spec.update(edgestiffness=edge.get("stiffness", 0.0), edgedamping=edge.get("damping", 0.0))
    _add(ctx, spec)


def _explicit(ctx, node):
  dim = node.get("dim", 2)
  if not node.has("body"):
    fail(node, "required attribute missing", "body")
  if not node.has("element"):
    fail(node, "required attribute missing", "element")
  vertbody = node.get("body").split()
  vert = np.asarray(node.get("vertex", []), float)
  if vert.size % 3:
    fail(node, "vertex size must be a multiple of 3", "vertex")
  given = vert.size > 0
  vert = vert.reshape(-1, 3) if given else np.zeros((len(vertbody), 3))
  if given and len(vertbody) not in (1, len(vert)):
    fail(node, f"body must name 1 or {len(vert)} bodies (one a vertex), got {len(vertbody)}", "body")
  spec = _settings(node, dim)
  spec.update(vertbody=vertbody, vert=vert, elements=np.asarray(node.get("element"), int),
              centered=not given or not np.any(vert != 0), vert_given=given,
              flatskin=node.get("flatskin", False),
              texcoord=np.asarray(node.get("texcoord"), np.float32) if node.has("texcoord") else None,
              elemtexcoord=np.asarray(node.get("elemtexcoord"), int) if node.has("elemtexcoord") else None)
  if spec["texcoord"] is not None and spec["texcoord"].size % 2:
    fail(node, "texcoord size must be a multiple of 2", "texcoord")
  edge = node.child("edge")
  if edge is not None:
    spec.update(edgestiffness=edge.get("stiffness", 0.0), edgedamping=edge.get("damping", 0.0))
  _add(ctx, spec)


def _settings(node, dim):
  """What a flex element and its <contact> say, with MuJoCo's defaults."""
  if not 1 <= dim <= 3:
    fail(node, f"dim must be 1, 2 or 3, got {dim}", "dim")
  contact = node.child("contact")
  c = contact.attrs if contact is not None else {}
  friction = full(c.get("friction", []), [1.0, 0.005, 0.0001])
  return dict(node=node, name=node.get("name", ""), dim=dim, radius=node.get("radius", 0.005),
              group=node.get("group", 0), rgba=node.get("rgba", [0.5, 0.5, 0.5, 1.0]),
              contype=c.get("contype", 1), conaffinity=c.get("conaffinity", 1), condim=c.get("condim", 3),
              priority=c.get("priority", 0), friction=friction, solmix=c.get("solmix", 1.0),
              solref=full(c.get("solref", []), SOLREF), solimp=full(c.get("solimp", []), SOLIMP),
              margin=c.get("margin", 0.0), gap=c.get("gap", 0.0),
              selfcollide=_SELFCOLLIDE[c.get("selfcollide", "auto")], activelayers=c.get("activelayers", 1),
              passive=int(c.get("passive", False)), material=node.get("material", ""), texcoord=None,
              elemtexcoord=None,
              internal=c.get("internal", False), contact=contact, edgestiffness=0.0, edgedamping=0.0,
              **flex_elastic.settings(node, dim))


def _add(ctx, spec):
  node = spec["node"]
  if spec["name"] and spec["name"] in [s["name"] for s in ctx.flexes]:
    fail(node, f"repeated name '{spec['name']}' for flex", "name")
  ctx.names[ObjType.FLEX].append(spec["name"])
  ctx.flexes.append(spec)


def flex_fields(ctx, v, xpos, xquat):
  """flex_* and flexedge_* (length0 and invweight0 come from set_const): vertices, edges, shells and bounding boxes
  at qpos0, as mjCFlex::Compile and the model builder make them."""
  if not ctx.flexes:
    return
  eq_flex = {}
  for i, etype in enumerate(ctx.rows.get("eq_type", [])):
    if etype == int(types.EqType.FLEX):
      eq_flex.setdefault(ctx.rows["eq_obj1id"][i], 1)
  parent = np.asarray(ctx.rows["body_parentid"])
  weldid, dofadr, dofnum = v["body_weldid"], v["body_dofadr"], v["body_dofnum"]
  rows = {}

  def put(key, value):
    rows.setdefault(key, []).append(value)

  adr = dict(vert=0, edge=0, elem=0, elemdata=0, elemedge=0, shelldata=0, jfe=0, texcoord=0, stiffness=0, bending=0)
  nJfe = 0
  for f, spec in enumerate(ctx.flexes):
    if eq_flex.get(f) and spec["edgestiffness"]:
      fail(spec["node"].child("edge"), "a flex cannot have both edge equality constraints and edge stiffness",
           "stiffness")
    flex = _compile_one(ctx, spec, xpos, xquat)
    _check_contacts(ctx, spec, flex, weldid, dofnum)
    _check_anchored(ctx, spec, flex, weldid, dofnum)
    dim, nvert, nedge, nelem = spec["dim"], flex["nvert"], len(flex["edges"]), flex["nelem"]
    for key in ("contype", "conaffinity", "condim", "priority", "solmix", "solref", "solimp", "friction", "margin",
                "gap", "selfcollide", "activelayers", "passive", "dim", "radius", "edgestiffness", "edgedamping",
                "group", "rgba"):
      put(f"flex_{key}", spec[key])
    put("flex_size", flex["size"])
    put("flex_damping", spec["damping"])
    flaps = flex_elastic.add_fields(ctx, spec, flex, parent, weldid, rows, adr)
    put("flex_edgeequality", eq_flex.get(f, 0))
    put("flex_rigid", flex["rigid"])
    put("flex_centered", flex["centered"])
    put("flex_flatskin", int(spec["flatskin"]))
    put("flex_interp", 0)
    _texture_fields(ctx, spec, flex, adr, rows)
    put("flex_vertadr", adr["vert"])
    put("flex_vertnum", nvert)
    put("flex_edgeadr", adr["edge"])
    put("flex_edgenum", nedge)
    put("flex_elemadr", adr["elem"])
    put("flex_elemnum", nelem)
    put("flex_elemdataadr", adr["elemdata"])
    put("flex_elemedgeadr", adr["elemedge"])
    shellnum = len(flex["shell"]) // dim
    put("flex_shellnum", shellnum)
    put("flex_shelldataadr", adr["shelldata"] if shellnum else -1)
    rows.setdefault("flex_vertbodyid", []).extend(flex["vertbodyid"])
    rows.setdefault("flex_vert", []).extend(np.zeros((nvert, 3)) if flex["centered"] else flex["vert"])
    rows.setdefault("flex_vert0", []).extend(flex["vert0"])
    rows.setdefault("flex_edge", []).extend(flex["edges"])
    rows.setdefault("flex_edgeflap", []).extend(flaps)
    rows.setdefault("flex_elem", []).extend(flex["elements"])
    rows.setdefault("flex_elemedge", []).extend(flex["elemedge"])
    rows.setdefault("flex_elemlayer", []).extend(flex["elemlayer"])
    rows.setdefault("flex_shell", []).extend(flex["shell"])
    # edge Jacobian sparsity: the dofs of both vertex bodies' chains (set_const's flex sparsity)
    skip = not (eq_flex.get(f, 0) or spec["edgedamping"] or spec["edgestiffness"] or spec["damping"])
    for a, b in flex["edges"]:
      b1, b2 = flex["vertbodyid"][a], flex["vertbodyid"][b]
      dofs = _chain_dofs(parent, dofadr, dofnum, b1) | _chain_dofs(parent, dofadr, dofnum, b2)
      if not flex["rigid"]:
        nJfe += len(dofs)
      put("flexedge_rigid", 1 if flex["rigid"] else int(weldid[b1] == weldid[b2]))
      e = len(rows.get("flexedge_J_rownnz", []))
      rowadr = rows["flexedge_J_rowadr"][e - 1] + rows["flexedge_J_rownnz"][e - 1] if e > 0 else 0
      # MuJoCo 4: a rigid flex's edges have empty rows that still advance the address; a flex whose edges make
      # no force has rows left at address 0
      if flex["rigid"] or skip:
        put("flexedge_J_rownnz", 0)
        put("flexedge_J_rowadr", rowadr if flex["rigid"] else 0)
        continue
      put("flexedge_J_rowadr", rowadr)
      put("flexedge_J_rownnz", len(dofs))
      colind = rows.setdefault("flexedge_J_colind", [])
      colind.extend([0] * (rowadr + len(dofs) - len(colind)))
      colind[rowadr:rowadr + len(dofs)] = sorted(dofs)
    adr["vert"] += nvert
    adr["edge"] += nedge
    adr["elem"] += nelem
    adr["elemdata"] += nelem * (dim + 1)
    adr["elemedge"] += nelem * len(_ELEM_EDGES[dim - 1])
    adr["shelldata"] += len(flex["shell"])
  colind = rows.pop("flexedge_J_colind", [])
  v["flexedge_J_colind"] = np.array(colind + [0] * (nJfe - len(colind)), int)
  for key, value in rows.items():
    v[key] = np.array(value)
  v.update(nflextexcoord=adr["texcoord"])
  v.update(nflex=len(ctx.flexes), nflexvert=adr["vert"], nflexedge=adr["edge"], nflexelem=adr["elem"],
           nflexelemdata=adr["elemdata"], nflexelemedge=adr["elemedge"], nflexshelldata=adr["shelldata"],
           nJfe=nJfe, nflexstiffness=adr["stiffness"], nflexbending=adr["bending"])


def _texture_fields(ctx, spec, flex, adr, rows):
  """A flex's material (one an element), texture coordinates and the coordinate ids of its elements' vertices (its
  own vertex ids without texture coordinates or explicit ids); no interpolation nodes or cells."""
  node, dim, nelem = spec["node"], spec["dim"], flex["nelem"]
  matid = ctx.lookup(ObjType.MATERIAL, node, "material") if spec["material"] else -1
  rows.setdefault("flex_matid", []).extend([matid] * nelem)
  texcoord, elemtexcoord = spec["texcoord"], spec["elemtexcoord"]
  texcoord = None if texcoord is None or not texcoord.size else texcoord.reshape(-1, 2)
  if texcoord is not None and elemtexcoord is None and len(texcoord) != flex["nvert"]:
    fail(node, "two texture coordinates per vertex expected", "texcoord")
  if texcoord is None or elemtexcoord is None:
    elemtexcoord = flex["elements"]
  elif len(elemtexcoord) != len(flex["elements"]) or np.any((elemtexcoord < 0) | (elemtexcoord >= len(texcoord))):
    fail(node, f"elemtexcoord must have {len(flex['elements'])} texture coordinate ids, each below "
         f"{len(texcoord)}", "elemtexcoord")
  rows.setdefault("flex_elemtexcoord", []).extend(list(elemtexcoord))
  rows.setdefault("flex_texcoordadr", []).append(-1 if texcoord is None else adr["texcoord"])
  if texcoord is not None:
    rows.setdefault("flex_texcoord", []).extend(texcoord.astype(np.float32).astype(float))
    adr["texcoord"] += len(texcoord)
  rows.setdefault("flex_nodeadr", []).append(0)
  rows.setdefault("flex_nodenum", []).append(0)
  rows.setdefault("flex_cellnum", []).append([1, 1, 1])
  rows.setdefault("flex_vertcell", []).extend([-1] * flex["nvert"])


def _check_anchored(ctx, spec, flex, weldid, dofnum):
  """MuJoCo 4 refuses a flexcomp inside a moving body (one with joints, or welded to one) unless a vertex is pinned
  to that body: the free vertices would not follow it."""
  if "parent" not in spec:
    return
  names = ctx.names[ObjType.BODY]
  moving = weldid[names.index(spec["parent"])] if spec["parent"] != "world" else 0
  if moving and dofnum[moving] and not any(weldid[b] == moving for b in flex["vertbodyid"]):
    fail(spec["node"], f"body '{names[moving]}' has joints but no flex vertices/nodes are pinned to it", None)


def _contacts_disabled(ctx):
  return any(flag.get("contact") == "disable" or flag.get("constraint") == "disable"
             for option in ctx.root.all("option") for flag in option.all("flag"))


def _midphase_disabled(ctx):
  return any(flag.get("midphase") == "disable" for option in ctx.root.all("option") for flag in option.all("flag"))


def _check_contacts(ctx, spec, flex, weldid, dofnum):
  """mjgym collides a flex only with planes on bodies without degrees of freedom (MuJoCo's plane-vertex contacts)
  and, element by element, with spheres (1-D and 2-D flexes), capsules (1-D) and boxes (2-D, midphase disabled): a
  flex that could touch another geom, another flex or itself (contype / conaffinity, MuJoCo's filter) is refused,
  unless contacts are disabled in <option><flag>."""
  if _contacts_disabled(ctx):
    return
  ct, ca = spec["contype"], spec["conaffinity"]
  where = spec["contact"] if spec["contact"] is not None else spec["node"]
  attr = "contype" if spec["contact"] is not None else None
  hint = ("; give the flex or the geom contype/conaffinity that keep them apart, or disable contacts "
          "(<option><flag contact=\"disable\"/>)")
  gtype, gbody = ctx.rows.get("geom_type", []), ctx.rows.get("geom_bodyid", [])
  for g, (gct, gca) in enumerate(zip(ctx.rows.get("geom_contype", []), ctx.rows.get("geom_conaffinity", []))):
    if not ((gct & ca) or (ct & gca)):
      continue
    if gtype[g] == int(types.GeomType.PLANE) and dofnum[weldid[gbody[g]]] == 0:
      continue
    if gtype[g] == int(types.GeomType.SPHERE) and spec["dim"] <= 2:
      continue
    if gtype[g] == int(types.GeomType.CAPSULE) and spec["dim"] == 1:
      continue
    if gtype[g] == int(types.GeomType.BOX) and spec["dim"] == 2:
      if _midphase_disabled(ctx):
        continue
      fail(where, f"flex '{spec['name']}' can collide with box geom {g} ('{ctx.names[ObjType.GEOM][g]}'): "
           "box-flex contacts are supported only with <flag midphase=\"disable\"/> (MuJoCo's midphase prunes "
           "box-element pairs through a flex bounding-volume hierarchy mjgym does not build) (unsupported "
           "feature)" + hint, attr)
    fail(where, f"flex '{spec['name']}' can collide with geom {g} ('{ctx.names[ObjType.GEOM][g]}'): flex "
         "contacts are supported only with planes on bodies without degrees of freedom, spheres (1-D and 2-D "
         "flexes), capsules (1-D flexes) and boxes (2-D flexes) (unsupported feature)" + hint, attr)
  for other in ctx.flexes:
    if other is spec:
      break
    if (other["contype"] & ca) or (ct & other["conaffinity"]):
      fail(where, f"flex '{spec['name']}' can collide with flex '{other['name']}': flex-flex contacts are not "
           "supported (unsupported feature)" + hint, attr)
  selfcollide = spec["selfcollide"] != _SELFCOLLIDE["none"] or spec["internal"]
  if not flex["rigid"] and (ct & ca) and selfcollide:
    fail(where, f"flex '{spec['name']}' self-collision is not supported (unsupported feature); give "
         "selfcollide=\"none\"" + hint, "selfcollide" if spec["contact"] is not None else None)


def _chain_dofs(parent, dofadr, dofnum, body):
  dofs = set()
  while body > 0:
    dofs.update(range(dofadr[body], dofadr[body] + dofnum[body]))
    body = parent[body]
  return dofs


def _compile_one(ctx, spec, xpos, xquat):
  """One flex at qpos0: body ids, vertex positions, oriented elements, edges, shell and bounding box."""
  node, dim = spec["node"], spec["dim"]
  attr = "body" if node.tag == "flex" else "name"
  vertbodyid = []
  for name in spec["vertbody"]:
    if name not in ctx.names[ObjType.BODY]:
      fail(node, f"unknown body '{name}'", attr)
    vertbodyid.append(ctx.names[ObjType.BODY].index(name))
  elements = np.asarray(spec["elements"], int)
  if elements.size == 0:
    fail(node, "element is empty", "element")
  if elements.size % (dim + 1):
    fail(node, f"element size must be a multiple of dim + 1 ({dim + 1})", "element")
  vert = np.asarray(spec["vert"], float)
  rigid = len(vertbodyid) == 1 and spec["vert_given"]
  nvert = len(vert) if spec["vert_given"] else len(vertbodyid)
  if nvert < dim + 1:
    fail(node, "not enough vertices for the flex's dim", "element")
  if np.any((elements < 0) | (elements >= nvert)):
    fail(node, "element vertex id out of range", "element")
  elements = elements.reshape(-1, dim + 1)
  for el in elements:
    if len(set(el.tolist())) < dim + 1:
      fail(node, "repeated vertex in element", "element")
  if spec["edgestiffness"] > 0 and dim > 1:
    fail(spec["node"].child("edge"), "edge stiffness is only available for dim=1", "stiffness")
  if spec["internal"]:
    fail(spec["contact"], "internal collisions are not supported (unsupported feature)", "internal")
  if not rigid:
    rigid = all(b == vertbodyid[0] for b in vertbodyid)
  ids = [vertbodyid[0]] * nvert if len(vertbodyid) == 1 else vertbodyid
  for b in set(ids):
    for joint in ctx.body_info[b]["joints"]:
      if np.any(np.asarray(joint["node"].get("damping", 0.0)) != 0):
        fail(node, f"flex vertex body '{ctx.names[ObjType.BODY][b]}' cannot have joint damping; use edge damping",
             attr)
  centered = spec["centered"]
  xv = np.array([xpos[b] + (spatial.rotate(xquat[b], vert[i]) if not centered else 0.0)
                 for i, b in enumerate(ids)]).reshape(-1, 3)
  if dim == 3:
    for el in elements:
      v0, v1, v2, v3 = xv[el]
      if np.dot(np.cross(v1 - v0, v2 - v0), v3 - v0) > 0:
        el[1], el[2] = el[2], el[1]
  edges, index, elemedge = [], {}, []
  for el in elements:
    for a, b in _ELEM_EDGES[dim - 1]:
      pair = (min(el[a], el[b]), max(el[a], el[b]))
      if pair not in index:
        index[pair] = len(edges)
        edges.append(pair)
      elemedge.append(index[pair])
  shell, elemlayer = _shell(elements, dim)
  # bounding box of the (active) elements, each grown by the radius
  lo, hi = np.full(3, np.inf), np.full(3, -np.inf)
  for e, el in enumerate(elements):
    if dim == 3 and elemlayer[e] >= spec["activelayers"]:
      continue
    emin, emax = xv[el].min(axis=0), xv[el].max(axis=0)
    center, half = 0.5 * (emax + emin), 0.5 * (emax - emin) + spec["radius"]
    lo, hi = np.minimum(lo, center - half), np.maximum(hi, center + half)
  center, half = 0.5 * (hi + lo), 0.5 * (hi - lo)
  size = half - spec["radius"]
  vert0 = np.where(size > _MINVAL, (xv - center) / np.where(size > _MINVAL, 2 * size, 1.0) + 0.5, 0.5)
  return dict(nvert=nvert, nelem=len(elements), vertbodyid=ids, xv=xv, vert=vert if len(vert) == nvert else
              np.zeros((nvert, 3)), centered=int(centered), rigid=int(rigid), elements=elements.ravel().tolist(),
              edges=edges, elemedge=elemedge, shell=shell, elemlayer=elemlayer, size=size, vert0=vert0)


def _shell(elements, dim):
  """Border fragments (vertices of faces, edges or points that one element alone has), in MuJoCo's order, and each
  element's layer: its distance from the border in elements (3-D; 0 otherwise)."""
  nelem = len(elements)
  # the fragments of an element (its faces for dim 3, edges for dim 2, points for dim 1), in MuJoCo's order
  local = {1: ((0,), (1,)), 2: ((0, 1), (2, 0), (1, 2)), 3: ((0, 1, 2), (0, 3, 1), (0, 2, 3), (1, 3, 2))}[dim]
  frags = []
  for e, el in enumerate(elements):
    for k in local:
      verts = [int(el[i]) for i in k]
      frags.append((tuple(sorted(verts)), e, tuple(verts)))
  frags.sort()
  border = [False] * nelem
  borderfrag = [False] * len(frags)
  connect = []
  cnt = 1
  for n in range(1, len(frags)):
    if frags[n - 1][0] == frags[n][0]:
      connect.append((frags[n - 1][1], frags[n][1]))
      cnt += 1
    else:
      if cnt == 1:
        border[frags[n - 1][1]] = True
        borderfrag[n - 1] = True
      cnt = 1
  if cnt == 1:
    border[frags[-1][1]] = True
    borderfrag[-1] = True
  shell = [v for n, frag in enumerate(frags) if borderfrag[n] for v in frag[2]]
  if dim < 3:
    return shell, [0] * nelem
  layer = [0 if border[e] else nelem + 1 for e in range(nelem)]
  changed = True
  while changed:
    changed = False
    for e1, e2 in connect:
      if layer[e1] > layer[e2] + 1:
        layer[e1], changed = layer[e2] + 1, True
      elif layer[e2] > layer[e1] + 1:
        layer[e2], changed = layer[e1] + 1, True
  return shell, layer
