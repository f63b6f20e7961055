"""What the compiler's stages share: the <compiler> settings, one row of fields and a name per object, and what a
stage leaves for later ones (the body tree, the processed assets, the jobs set_const finishes).

Every stage is a function of a ``Context`` (and of the dict of model fields it fills): stages add objects with
``add``, find the ones named in attributes with ``lookup``, and read each other's results from the context.
"""

import math
import os

import numpy as np

from mjgym.physics import types
from mjgym.physics.mjcf.errors import fail
from mjgym.physics.types import ObjType

# MuJoCo's mjEPS: an axis component at most this large counts as zero.
EPS = 1e-14
# MuJoCo's mjMINVAL: the smallest mass or inertia of a body that moves.
MINVAL = types.MINVAL
# The object types the compiler names, in the order the model lists them.
_NAMED = (ObjType.BODY, ObjType.JOINT, ObjType.GEOM, ObjType.SITE, ObjType.CAMERA, ObjType.LIGHT, ObjType.FLEX,
          ObjType.MESH, ObjType.HFIELD, ObjType.MATERIAL, ObjType.TEXTURE, ObjType.TENDON, ObjType.ACTUATOR,
          ObjType.EQUALITY, ObjType.PAIR, ObjType.EXCLUDE, ObjType.KEY, ObjType.SENSOR)


def keywords(enum_cls):
  """MJCF keyword -> member of an enum whose members are named as the keywords (in upper case)."""
  return {member.name.lower(): member for member in enum_cls}


class Settings:
  """The <compiler> attributes that shape compilation."""

  def __init__(self, root):
    a = {}
    for node in root.all("compiler"):
      a.update(node.attrs)
      if node.get("coordinate") == "global":
        fail(node, "coordinate='global' is not supported (unsupported feature)", "coordinate")
      seq = node.get("eulerseq")
      if seq is not None and (len(seq) != 3 or any(c not in "xyzXYZ" for c in seq)):
        fail(node, f"expected three characters from xyzXYZ, got '{seq}'", "eulerseq")
    self.degree = a.get("angle", "degree") == "degree"
    self.eulerseq = a.get("eulerseq", "xyz")
    self.inertiafromgeom = a.get("inertiafromgeom", "auto")
    self.autolimits = a.get("autolimits", True)
    self.boundmass = a.get("boundmass", 0.0)
    self.boundinertia = a.get("boundinertia", 0.0)
    self.settotalmass = a.get("settotalmass", -1.0)
    self.balanceinertia = a.get("balanceinertia", False)
    self.discardvisual = a.get("discardvisual", False)
    self.fusestatic = a.get("fusestatic", False)
    self.strippath = a.get("strippath", False)
    self.inertiagrouprange = a.get("inertiagrouprange", [0, 5])
    self.fitaabb = a.get("fitaabb", False)
    self.alignfree = a.get("alignfree", False)
    self.assetdir = a.get("assetdir", "")
    self.meshdir = a.get("meshdir", self.assetdir)
    self.texturedir = a.get("texturedir", self.assetdir)

  def angle(self, value):
    """A joint angle (range, ref) in radians, converted as MuJoCo does."""
    return value * (math.pi / 180.0) if self.degree else value

  def orientation_angle(self, value):
    """An orientation angle (euler, axisangle) in radians; MuJoCo converts these in another order."""
    return value / 180.0 * math.pi if self.degree else value


class Context:
  """The compile state of one model.

  Attributes:
    root: the parsed <mujoco> element; filename and source: where the model and its files come from.
    cfg: the <compiler> settings.
    names: ObjType -> the name of each object of that type ("" if unnamed), in id order.
    rows: model field -> one value per object, in id order (the objects' own fields, as given or derived).
    body_info: per body id, what the tree walk found in it: element, parent, geoms and joints that make its
      inertia and dofs, its <inertial>, whether it is a mocap body.
    meshes, mesh_nodes: each mesh (mesh.Mesh) and its <mesh> element, by mesh id.
    hfields: (nrow, ncol, size, elevation (nrow * ncol) float32 in [0, 1]) of each height field, by hfield id.
    texture_data: the tex_data bytes of each texture, by texture id.
    lengthrange_jobs: (actuator id, element) of the length ranges set_const finds by simulation.
    springdamper_jobs: (joint id, timeconst, dampratio) of the joints given springdamper.
    lengthrange_options: the <compiler><lengthrange> options, once read (actuators.lengthrange_settings).
  """

  def __init__(self, root, filename, source):
    self.root, self.filename, self.source = root, filename, source
    self.cfg = Settings(root)
    self.names = {t: [] for t in _NAMED}
    self.rows = {}
    self.body_info = []
    self.meshes, self.mesh_nodes = [], []
    self.mesh_texcoords = []  # (texcoord (k, 2), facetexcoord (nface, 3)) by mesh id
    self.skins = []  # dicts of skin_* rows and arrays, by skin id
    self.flexes = []  # dicts of each flex's element, settings and vertices, by flex id (mjcf/flex.py)
    self.hfields = []
    self.texture_data = []
    self.lengthrange_jobs, self.springdamper_jobs = [], []
    self.lengthrange_options = None

  def add(self, objtype, node, **row):
    """Appends one object's fields; checks that its name is new for its type."""
    name = node.get("name", "") if node is not None else ""
    names = self.names[objtype]
    if name and name in names:
      fail(node, f"repeated name '{name}' for {objtype.name.lower()}", "name")
    names.append(name)
    for key, value in row.items():
      self.rows.setdefault(key, []).append(value)
    return len(names) - 1

  def lookup(self, objtype, node, attr):
    """Id of the object of ``objtype`` that attribute ``attr`` names."""
    name = node.get(attr)
    try:
      return self.names[objtype].index(name)
    except ValueError:
      fail(node, f"unknown {objtype.name.lower()} '{name}'", attr)

  def limited(self, node, attr, range_attr):
    """MuJoCo's limited flags: explicit true/false, or 'auto' = a range with range[0] < range[1] given (needs
    compiler autolimits; an empty or reversed range under 'auto' leaves the object unlimited, as in MuJoCo 4)."""
    value = node.get(attr, "auto")
    if value == "auto":
      if node.has(range_attr):
        if not self.cfg.autolimits:
          fail(node, f"'{range_attr}' given without '{attr}': set {attr} explicitly or use the compiler "
               "option autolimits='true'", range_attr)
        rng = node.get(range_attr)
        return bool(rng[0] < rng[1])
      return False
    if value == "true" and not node.has(range_attr):
      fail(node, f"{attr}='true' needs '{range_attr}'", attr)
    return value == "true"

  def asset_path(self, node, name, subdir, loaddir=None):
    """Where MuJoCo looks for a file an asset names: relative to the main model's directory and the compiler's
    directory for its kind (``subdir``), even inside an <include>d file. A file not found there is looked up
    relative to the included file's directory joined below the main directory and ``loaddir`` (where a height
    field reads from): with an absolute model path that is the included file's directory, with a relative one
    MuJoCo puts the kind's directory in front of it, and so does mjgym. Under strippath the name loses its
    directories first."""
    if self.cfg.strippath:
      name = name[max(name.rfind("/"), name.rfind("\\")) + 1:]
    if os.path.isabs(name):
      return name
    main = os.path.dirname(self.filename)
    if node.incdir and not self.source.exists(os.path.join(main, subdir, name)):
      name = os.path.join(node.incdir, name)
    return os.path.join(main, subdir if loaddir is None else loaddir, name)


def range_ok(rng):
  """MuJoCo's test of a range where ``limited`` is 'true' (range[0] >= range[1] fails; a NaN end passes)."""
  return not rng[0] >= rng[1]


RANGE_RULE = "range[0] < range[1]"


def plain(x):
  """Numbers as plain text for messages: 2.5, [1.0, 2.0] (never np.float64(2.5))."""
  if isinstance(x, (list, tuple, np.ndarray)):
    return "[" + ", ".join(plain(v) for v in x) + "]"
  return repr(float(x)) if not isinstance(x, (int, np.integer)) else str(int(x))


def linear(node, attr):
  """A joint's or tendon's stiffness or damping: MuJoCo 4 reads up to three polynomial coefficients; mjgym
  models the linear one."""
  value = node.get(attr, [0.0])
  value = value if isinstance(value, list) else [value]
  if any(v != 0 for v in value[1:]):
    fail(node, f"nonlinear {attr} (more than one coefficient) is not supported (unsupported feature)", attr)
  return value[0]


def full(values, base):
  """A partially given array: the values given, then the rest of ``base``."""
  out = list(base)
  out[:len(values)] = values
  return out
