"""URDF -> MJCF: the <mujoco> element tree MuJoCo's URDF reader makes of a <robot>, for the MJCF parser and compiler.

The physics is compiled once, by the MJCF compiler: this module only translates, element by element, as MuJoCo 4's
URDF reader does (measured against it with mj_saveLastXML):

- every <link> is a body, placed by the <joint> that has it as child (``origin`` xyz / rpy, rpy about the fixed
  axes X, Y, Z); links without a parent joint hang from the world body without a joint, and a link named
  ``world`` is the world body itself;
- joint types: revolute and continuous are hinges, prismatic a slide, floating a free joint, planar two slides
  along the x and y axes of a frame whose z is the joint axis (``NAME_TX``, ``NAME_TY``) and a hinge about the
  axis (``NAME_RZ``), spherical (Bullet's extension) a ball, fixed no joint; <limit> lower / upper is the range
  (unlimited when only one is given or lower > upper; a continuous joint ignores it), |effort| the actuator force
  range; <dynamics> damping and
  friction (friction loss), the same on all three joints of a planar joint;
- <inertial>: mass, and the inertia tensor, given in the rpy frame of its origin, turned to its principal axes (a
  tensor of zeros leaves the moments at zero);
- <collision> geoms collide (contype = conaffinity = 1); <visual> geoms do not, have no mass and are in group 1,
  and are not made at all under discardvisual; box, cylinder, sphere, capsule, and mesh geometry (a mesh asset
  per file and scale, named after the file);
- colors: a visual's <material> (its <color>, or a named <material> with a <color> anywhere in the file) colors
  it and every later geom of the link;
- the extension element <mujoco> inside <robot>: its first <compiler>, <option> and <size> apply as in MJCF.
  URDF changes two compiler defaults (fusestatic and discardvisual are true) and fixes angles to radians.

Each generated element carries the line of the URDF element it comes from, so that errors the MJCF compiler finds
point into the URDF file.
"""

import copy

import numpy as np
from lxml import etree

from mjgym.physics.mjcf import parser
from mjgym.physics.mjcf import spatial
from mjgym.physics.mjcf.context import EPS
from mjgym.physics.mjcf.context import plain
from mjgym.physics.mjcf.errors import MJCFError

# URDF joint type -> the MJCF joints it becomes (None: planar, three joints; fixed: none)
_JOINTS = {"revolute": "hinge", "continuous": "hinge", "prismatic": "slide", "fixed": None, "floating": "free",
           "planar": None, "spherical": "ball"}
_EXTENSION = ("compiler", "option", "size")
_SHAPES = ("box", "cylinder", "sphere", "capsule", "mesh")


def is_urdf(root):
  """Whether an XML root element is a URDF <robot> (MuJoCo compares the tag without case)."""
  return isinstance(root.tag, str) and root.tag.lower() == "robot"


def to_mjcf(robot, filename):
  """The <mujoco> element MuJoCo makes of a URDF <robot> element."""
  return _Translator(robot, filename).mujoco


class _Translator:
  """One URDF file's translation: links and joints, read and checked, then written out as MJCF."""

  def __init__(self, robot, filename):
    self.file = filename
    extension = self._child(robot, "mujoco")
    compiler = self._child(extension, "compiler") if extension is not None else None
    # URDF's own compiler defaults, overridden by the extension's <compiler>
    self.discardvisual = self._flag(compiler, "discardvisual", True)
    self.strippath = self._flag(compiler, "strippath", False)
    self.colors = {}
    self._collect_colors(robot)
    self.mujoco = etree.Element("mujoco")
    self.mujoco.sourceline = robot.sourceline
    if robot.get("name") is not None:
      self.mujoco.set("model", robot.get("name"))
    self._sub(self.mujoco, "compiler", robot, fusestatic="true", discardvisual="true")
    if extension is not None:
      for tag in _EXTENSION:
        elem = self._child(extension, tag)
        if elem is not None:
          self.mujoco.append(_copy_located(elem))
    # URDF angles are radians and rpy turns about the fixed axes, whatever the extension says
    self._sub(self.mujoco, "compiler", robot, angle="radian", eulerseq="XYZ")
    self.asset = self._sub(self.mujoco, "asset", robot)
    self.geom_names = set()
    self.meshes = {}  # mesh name -> [(scale, mesh element)], in the order made
    self.worldbody = self._sub(self.mujoco, "worldbody", robot)
    links, joints = self._links(robot), self._joints(robot)
    # geoms (and the mesh assets and names they make) in the links' document order, as MuJoCo makes them
    self.link_geoms = {name: self._geoms(link) for name, link in links.items()}
    children = {name: [] for name in links}
    parent_joint = {}
    for joint in joints:
      parent, child = (self._link_ref(joint, tag, links) for tag in ("parent", "child"))
      if child in parent_joint:
        self._fail(joint, f"link '{child}' has more than one parent joint (the first is on line "
                   f"{parent_joint[child].sourceline})")
      parent_joint[child] = joint
      children[parent].append(child)
    reached = set()
    for name, link in links.items():
      if name not in parent_joint:
        if name == "world":
          reached.add(name)
          self.worldbody.extend(self.link_geoms[name])
          self._add_children(name, self.worldbody, links, children, parent_joint, reached)
        else:
          self._body(name, self.worldbody, links, children, parent_joint, reached)
    for name, link in links.items():
      if name not in reached:
        self._fail(link, f"link '{name}' is in a cycle of joints (no chain of parents leads to a root link)")
    if not len(self.asset):
      self.mujoco.remove(self.asset)

  # ---- reading

  def _fail(self, elem, message, attribute=None):
    raise MJCFError(message, self.file, elem.sourceline, elem.tag, elem.get("name"), attribute)

  def _flag(self, compiler, attr, default):
    text = compiler.get(attr) if compiler is not None else None
    # a value other than true / false is refused when the MJCF parser reads the copied <compiler>
    return default if text is None else text == "true"

  def _numbers(self, elem, attr, count, default=None):
    """``count`` numbers of an attribute (one as a float), or ``default`` when absent (an error if None)."""
    text = elem.get(attr)
    if not _given(elem, attr):
      if default is None:
        self._fail(elem, "required attribute missing", attr)
      return default
    node = parser.Node(elem.tag, {"name": elem.get("name")} if elem.get("name") else {}, elem.sourceline,
                       self.file, None)
    values = [parser.parse_float(w, node, attr) for w in text.split()]
    if len(values) != count:
      self._fail(elem, f"expected {count} number{'s' if count > 1 else ''}, got {len(values)}", attr)
    return values[0] if count == 1 else values

  def _child(self, elem, tag):
    """The child element with this tag, or None; like MuJoCo's URDF reader, refuses a repeated one."""
    found = _children(elem, tag)
    if len(found) > 1:
      self._fail(found[1], f"repeated element <{tag}> inside <{elem.tag}> (one is allowed)")
    return found[0] if found else None

  def _name(self, elem):
    name = elem.get("name")
    if name is None:  # (an empty name is a name for MuJoCo's URDF reader)
      self._fail(elem, "required attribute missing", "name")
    return name

  def _collect_colors(self, elem):
    """Named materials with a color, anywhere in the file: the first of each name counts."""
    for material in elem.iter("material"):
      name = material.get("name")
      if name and name not in self.colors:
        color = self._child(material, "color")
        if color is not None:
          self.colors[name] = self._numbers(color, "rgba", 4)

  def _links(self, robot):
    links = {}
    for link in _children(robot, "link"):
      name = self._name(link)
      if name in links:
        self._fail(link, f"repeated link name '{name}'", "name")
      links[name] = link
    return links

  def _joints(self, robot):
    joints = _children(robot, "joint")
    for joint in joints:
      self._name(joint)
      jtype = joint.get("type")
      if jtype is None:
        self._fail(joint, "required attribute missing", "type")
      if jtype not in _JOINTS:
        self._fail(joint, f"unknown joint type '{jtype}' (known: {', '.join(_JOINTS)})", "type")
    return joints

  def _link_ref(self, joint, tag, links):
    elem = self._child(joint, tag)
    if elem is None:
      self._fail(joint, f"joint needs a <{tag}> element")
    name = elem.get("link")
    if name is None:
      self._fail(elem, "required attribute missing", "link")
    if name not in links:
      self._fail(elem, f"undefined link '{name}'", "link")
    return name

  # ---- writing

  def _sub(self, parent, tag, source, **attrs):
    """A new MJCF element located at the URDF element ``source`` (inside ``parent`` unless None)."""
    attrib = {k: v for k, v in attrs.items() if v is not None}
    elem = etree.Element(tag, attrib) if parent is None else etree.SubElement(parent, tag, attrib)
    elem.sourceline = source.sourceline
    return elem

  def _origin(self, elem):
    """pos and euler attributes of an element's <origin> (absent when not given)."""
    origin = self._child(elem, "origin")
    if origin is None:
      return {}
    out = {}
    for attr, mjcf in (("xyz", "pos"), ("rpy", "euler")):
      if _given(origin, attr):
        out[mjcf] = _text(self._numbers(origin, attr, 3))
    return out

  def _body(self, name, parent_elem, links, children, parent_joint, reached):
    link = links[name]
    reached.add(name)
    joint = parent_joint.get(name)
    body = self._sub(parent_elem, "body", link, name=name, **(self._origin(joint) if joint is not None else {}))
    if joint is not None:
      self._joint(joint, body)
    self._inertial(link, body)
    body.extend(self.link_geoms[name])
    self._add_children(name, body, links, children, parent_joint, reached)

  def _add_children(self, name, elem, links, children, parent_joint, reached):
    for child in children[name]:
      if child == "world":
        self._fail(parent_joint[child], "the world link cannot be the child of a joint")
      self._body(child, elem, links, children, parent_joint, reached)

  def _joint(self, joint, body):
    jtype, name = joint.get("type"), joint.get("name")
    axis_elem = self._child(joint, "axis")
    axis = self._numbers(axis_elem, "xyz", 3) if axis_elem is not None else [1.0, 0.0, 0.0]
    if jtype == "fixed":
      return
    if jtype == "planar":
      rot = spatial.quat_to_mat(spatial.quat_z_to_vec(axis))
      made = [self._sub(body, "joint", joint, name=f"{name}_TX", type="slide", axis=_text(rot[:, 0])),
              self._sub(body, "joint", joint, name=f"{name}_TY", type="slide", axis=_text(rot[:, 1])),
              self._sub(body, "joint", joint, name=f"{name}_RZ", type="hinge", axis=_text(axis))]
    elif jtype == "floating":
      made = [self._sub(body, "joint", joint, name=name, type="free")]
    else:
      made = [self._sub(body, "joint", joint, name=name, type=_JOINTS[jtype], axis=_text(axis))]
    dynamics = self._child(joint, "dynamics")
    if dynamics is not None:
      for attr, mjcf in (("damping", "damping"), ("friction", "frictionloss")):
        if _given(dynamics, attr):
          for elem in made:
            elem.set(mjcf, _text([self._numbers(dynamics, attr, 1)]))
    limit = self._child(joint, "limit")
    if limit is not None:
      lower, upper = (_given(limit, a) for a in ("lower", "upper"))
      rng = [self._numbers(limit, "lower", 1, 0.0), self._numbers(limit, "upper", 1, 0.0)]
      # only the first joint of a planar joint takes the limits; a continuous joint takes none (MuJoCo 4)
      if jtype == "continuous":
        lower = upper = False
      if lower or upper:
        made[0].set("range", _text(rng))
      if lower != upper or rng[0] > rng[1]:
        made[0].set("limited", "false")
      effort = abs(self._numbers(limit, "effort", 1, 0.0))
      if effort > 0:
        made[0].set("actuatorfrcrange", _text([-effort, effort]))

  def _inertial(self, link, body):
    inertial = self._child(link, "inertial")
    if inertial is None:
      return
    mass_elem, inertia_elem = self._child(inertial, "mass"), self._child(inertial, "inertia")
    for tag, elem in (("mass", mass_elem), ("inertia", inertia_elem)):
      if elem is None:
        self._fail(inertial, f"<inertial> needs a <{tag}> element")
    mass = self._numbers(mass_elem, "value", 1)
    xx, yy, zz, xy, xz, yz = (self._numbers(inertia_elem, a, 1) for a in ("ixx", "iyy", "izz", "ixy", "ixz", "iyz"))
    origin = self._origin(inertial)
    quat = _rpy_quat(self._numbers(self._child(inertial, "origin"), "rpy", 3)) if "euler" in origin else None
    diag = [0.0, 0.0, 0.0]
    if any((xx, yy, zz, xy, xz, yz)):
      tensor = np.array([[xx, xy, xz], [xy, yy, yz], [xz, yz, zz]])
      if not np.all(np.isfinite(tensor)):
        self._fail(inertia_elem, f"inertia must be finite, got {plain([xx, yy, zz, xy, xz, yz])}")
      if quat is not None:
        # MuJoCo 4 turns the tensor into the link frame, then finds its principal axes there (where two moments
        # are equal, this picks the frame MuJoCo picks)
        rot = spatial.quat_to_mat(quat)
        tensor = rot @ tensor @ rot.T
      diag, quat = spatial.principal_frame(tensor)
      if diag[2] < EPS:
        self._fail(inertia_elem, f"inertia {plain([xx, yy, zz, xy, xz, yz])} is not positive definite (its "
                   f"smallest eigenvalue is {plain(diag[2])})")
    self._sub(body, "inertial", inertial, pos=origin.get("pos", "0 0 0"),
              quat=_text(quat) if quat is not None else None, mass=_text([mass]), diaginertia=_text(diag))

  def _geoms(self, link):
    """The <geom> elements of the link's visual and collision elements, in document order."""
    geoms = []
    rgba = None
    names = self.geom_names
    for elem in link:
      if elem.tag == "visual":
        material = self._child(elem, "material")
        if material is not None:
          color = self._child(material, "color")
          if color is not None:
            rgba = self._numbers(color, "rgba", 4)
          else:
            rgba = self.colors.get(self._name(material), rgba)
        if self.discardvisual:
          continue
        geom = self._geom(elem, contype="0", conaffinity="0", group="1", density="0")
      elif elem.tag == "collision":
        geom = self._geom(elem, contype="1", conaffinity="1")
      else:
        continue
      if rgba is not None:
        geom.set("rgba", _text(rgba))
      # names are unique over the file's geoms: MuJoCo leaves a repeated one unnamed
      name = elem.get("name", "")
      if name and name not in names:
        geom.set("name", name)
      names.add(name)
      geoms.append(geom)
    return geoms

  def _geom(self, elem, **attrs):
    geometry = self._child(elem, "geometry")
    if geometry is None:
      self._fail(elem, "needs a <geometry> element")
    # the first of these kinds that is there, in MuJoCo's order of looking
    shape = next((s for s in (self._child(geometry, t) for t in _SHAPES) if s is not None), None)
    if shape is None:
      self._fail(geometry, "needs a <box>, <cylinder>, <sphere>, <capsule> or <mesh> element")
    if shape.tag == "box":
      size = [0.5 * s for s in self._numbers(shape, "size", 3)]
    elif shape.tag == "sphere":
      size = [self._numbers(shape, "radius", 1)]
    elif shape.tag == "mesh":
      size = None
      attrs["mesh"] = self._mesh(shape)
    else:
      size = [self._numbers(shape, "radius", 1), 0.5 * self._numbers(shape, "length", 1)]
    return self._sub(None, "geom", elem, type=shape.tag, size=_text(size) if size else None, **attrs,
                     **self._origin(elem))

  def _mesh(self, shape):
    """The name of the mesh asset of a <mesh> geometry: one asset per file name (without directory and
    extension) and scale; another scale of the same file gets the name followed by its number."""
    path = shape.get("filename")
    if path is None:
      self._fail(shape, "required attribute missing", "filename")
    scale = self._numbers(shape, "scale", 3, [1.0, 1.0, 1.0])
    if self.strippath:
      path = _strip(path)
    base = _strip(path)
    name = base[:base.rfind(".")] if "." in base else base  # MuJoCo's mjuu_stripext: up to the last dot
    made = self.meshes.setdefault(name, [])
    for i, (known, _) in enumerate(made):
      if known == scale:
        return name if i == 0 else f"{name}{i}"
    mesh_name = name if not made else f"{name}{len(made)}"
    mesh = self._sub(self.asset, "mesh", shape, name=mesh_name, file=path, scale=_text(scale))
    made.append((scale, mesh))
    return mesh_name


def _given(elem, attr):
  """Whether an attribute holds a value: as in MJCF, only white space is none."""
  return bool((elem.get(attr) or "").split())


def _children(elem, tag):
  return [c for c in elem if c.tag == tag]


def _copy_located(elem):
  """A copy of an element (and its children) that keeps each one's line."""
  out = copy.deepcopy(elem)
  for original, made in zip(elem.iter(), out.iter()):
    made.sourceline = original.sourceline
  return out


def _strip(path):
  """The file name without its directories (MuJoCo's strippath: after the last / or \\)."""
  return path[max(path.rfind("/"), path.rfind("\\")) + 1:]


def _text(values):
  """Numbers as MJCF text that reads back bitwise."""
  return " ".join(repr(float(v)) for v in values)


def _rpy_quat(rpy):
  """The quaternion of URDF roll, pitch, yaw (about the fixed X, Y, Z axes), as MuJoCo's euler 'XYZ' makes it."""
  q = spatial.IDENTITY_QUAT.copy()
  for k, angle in enumerate(rpy):
    qi = np.array([spatial.cos(angle / 2), 0.0, 0.0, 0.0])
    qi[1 + k] = spatial.sin(angle / 2)
    q = spatial.unit(spatial.quat_mul(qi, q))
  return spatial.unit(q)
