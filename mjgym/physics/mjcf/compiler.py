"""Parsed MJCF tree -> MjModel fields: frames, inertias, addresses, options and MuJoCo's compile-time constants."""

import math
import os

import numpy as np

from mjgym.physics import containers
from mjgym.physics import types
from mjgym.physics.mjcf import spatial
from mjgym.physics.mjcf.errors import fail
from mjgym.physics.types import ObjType

_JOINT_TYPES = {"free": 0, "ball": 1, "slide": 2, "hinge": 3}
_JOINT_NQ = {0: 7, 1: 4, 2: 1, 3: 1}
_JOINT_NV = {0: 6, 1: 3, 2: 1, 3: 1}
_GEOM_TYPES = {t.name.lower(): int(t) for t in types.GeomType}
_CAMLIGHT_MODES = {"fixed": 0, "track": 1, "trackcom": 2, "targetbody": 3, "targetbodycom": 4}
_LIGHT_TYPES = {"spot": 0, "directional": 1, "point": 2, "image": 3}
_INTEGRATORS = {"Euler": 0, "RK4": 1, "implicit": 2, "implicitfast": 3}
_SOLVERS = {"PGS": 0, "CG": 1, "Newton": 2}
_DYN = {"none": 0, "integrator": 1, "filter": 2, "filterexact": 3, "muscle": 4, "user": 5}
_GAIN = {"fixed": 0, "affine": 1, "muscle": 2, "user": 3}
_BIAS = {"none": 0, "affine": 1, "muscle": 2, "user": 3}
_SOLREF = (0.02, 1.0)
_SOLIMP = (0.9, 0.95, 0.001, 0.5, 2.0)
# MuJoCo's mjMINVAL: the smallest mass or inertia of a body that moves.
_MINVAL = types.MINVAL


class _Settings:
  """The <compiler> attributes that shape compilation."""

  def __init__(self, root):
    a = {}
    for node in root.all("compiler"):
      a.update(node.attrs)
      if node.get("coordinate") == "global":
        fail(node, "coordinate='global' is not supported (unsupported feature)", "coordinate")
      for flag in ("discardvisual", "fusestatic", "alignfree"):
        if node.get(flag):
          fail(node, f"{flag}='true' is not supported (unsupported feature)", flag)
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
    self.inertiagrouprange = a.get("inertiagrouprange", [0, 5])
    self.assetdir = a.get("assetdir", "")
    self.meshdir = a.get("meshdir", self.assetdir)
    self.texturedir = a.get("texturedir", self.assetdir)

  def angle(self, value):
    return value * math.pi / 180.0 if self.degree else value


class _Builder:
  """Collects per-object rows while walking the tree, then turns them into model fields."""

  def __init__(self, root, filename, source):
    self.root, self.filename, self.source = root, filename, source
    self.cfg = _Settings(root)
    self.names = {t: [] for t in (ObjType.BODY, ObjType.JOINT, ObjType.GEOM, ObjType.SITE, ObjType.CAMERA,
                                  ObjType.LIGHT, ObjType.MESH, ObjType.MATERIAL, ObjType.TEXTURE,
                                  ObjType.TENDON, ObjType.ACTUATOR, ObjType.EQUALITY, ObjType.PAIR,
                                  ObjType.EXCLUDE, ObjType.KEY, ObjType.SENSOR)}
    self.rows = {}
    self.meshes = []  # processed meshes, by mesh id

  # ---- bookkeeping ----

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
    name = node.get(attr)
    try:
      return self.names[objtype].index(name)
    except ValueError:
      fail(node, f"unknown {objtype.name.lower()} '{name}'", attr)

  # ---- frames ----

  def orientation(self, node):
    """Quaternion of an element's orientation attribute (identity if none); at most one may be given."""
    given = [a for a in ("quat", "axisangle", "euler", "xyaxes", "zaxis") if node.has(a)]
    if len(given) > 1:
      fail(node, f"more than one orientation given ({', '.join(given)})", given[1])
    if not given:
      return spatial.IDENTITY_QUAT.copy()
    attr = given[0]
    v = np.asarray(node.get(attr), float)
    if attr == "quat":
      n = np.linalg.norm(v)
      if n < 1e-15:
        fail(node, "quaternion has zero norm", attr)
      return v / n
    if attr == "axisangle":
      n = np.linalg.norm(v[:3])
      if n < 1e-15:
        fail(node, "rotation axis has zero length", attr)
      return spatial.axis_angle_quat(v[:3] / n, self.cfg.angle(v[3]))
    if attr == "euler":
      q = spatial.IDENTITY_QUAT.copy()
      for ch, angle in zip(self.cfg.eulerseq, v):
        axis = np.eye(3)["xyz".index(ch.lower())]
        qi = spatial.axis_angle_quat(axis, self.cfg.angle(angle))
        # Lower case rotates about the moving (already rotated) axes, upper case about the fixed ones.
        q = spatial.quat_mul(q, qi) if ch.islower() else spatial.quat_mul(qi, q)
      return q / np.linalg.norm(q)
    if attr == "xyaxes":
      x, y = v[:3], v[3:]
      nx = np.linalg.norm(x)
      if nx < 1e-15:
        fail(node, "x axis has zero length", attr)
      x = x / nx
      y = y - x * np.dot(x, y)
      ny = np.linalg.norm(y)
      if ny < 1e-15:
        fail(node, "y axis is parallel to the x axis", attr)
      y = y / ny
      return spatial.mat_to_quat(np.column_stack([x, y, np.cross(x, y)]))
    if np.linalg.norm(v) < 1e-15:
      fail(node, "z axis has zero length", attr)
    return spatial.quat_z_to_vec(v)

  def frame(self, node):
    return np.asarray(node.get("pos", [0.0, 0.0, 0.0]), float), self.orientation(node)

  def fromto_frame(self, node, gtype, size):
    """pos, quat and size of a geom or site given by its end points."""
    ft = np.asarray(node.get("fromto"), float)
    if gtype not in ("capsule", "cylinder", "box", "ellipsoid"):
      fail(node, f"fromto is only for capsule, cylinder, box and ellipsoid, not {gtype}", "fromto")
    vec = ft[:3] - ft[3:]
    length = np.linalg.norm(vec)
    if length < 1e-15:
      fail(node, "the two end points coincide", "fromto")
    size = list(size)
    if gtype in ("capsule", "cylinder"):
      size[1] = 0.5 * length
    else:
      size[1], size[2] = size[0], 0.5 * length
    return 0.5 * (ft[:3] + ft[3:]), spatial.quat_z_to_vec(vec), size

  # ---- the tree ----

  def build(self):
    worldbody = self.root.all("worldbody")
    self.assets()
    self.add(ObjType.BODY, None, body_parentid=0, body_pos=np.zeros(3), body_quat=spatial.IDENTITY_QUAT,
             body_mocapid=-1, body_gravcomp=0.0)
    self.names[ObjType.BODY][0] = "world"
    self.body_info = [dict(node=None, geoms=[], joints=[], inertial=None, parent=-1)]
    self.jnt_rows, self.geom_rows = [], []
    for wb in worldbody:
      self.body_children(wb, 0)
    self.resolve_targets()
    self.inertia()
    self.kinematics()

  def body_children(self, node, bodyid):
    # A body's own objects come before those of its child bodies (depth-first order, as MuJoCo numbers them).
    info = self.body_info[bodyid]
    for child in node.children:
      tag = child.tag
      if tag == "inertial":
        if info["inertial"] is not None:
          fail(child, "a body has at most one <inertial>")
        info["inertial"] = child
      elif tag in ("joint", "freejoint"):
        self.joint(child, bodyid)
    for tag in ("geom", "site", "camera", "light"):
      for child in node.all(tag):
        getattr(self, tag)(child, bodyid)
    for child in node.all("body"):
      self.body(child, bodyid)

  def body(self, node, parent):
    pos, quat = self.frame(node)
    mocap = node.get("mocap", False)
    bodyid = self.add(ObjType.BODY, node, body_parentid=parent, body_pos=pos, body_quat=quat,
                      body_mocapid=-1, body_gravcomp=node.get("gravcomp", 0.0))
    self.body_info.append(dict(node=node, geoms=[], joints=[], inertial=None, parent=parent, mocap=mocap))
    self.body_children(node, bodyid)
    if mocap:
      if parent != 0:
        fail(node, "mocap bodies must be children of the world body", "mocap")
      if self.body_info[bodyid]["joints"]:
        fail(node, "mocap bodies cannot have joints", "mocap")

  def joint(self, node, bodyid):
    info = self.body_info[bodyid]
    if node.tag == "freejoint":
      jtype = 0
    else:
      jtype = _JOINT_TYPES[node.get("type", "hinge")]
    if bodyid == 0:
      fail(node, "the world body cannot have joints")
    if jtype == 0 and info["parent"] != 0:
      fail(node, "a free joint can only be used on a top-level body (child of the world body)",
           None if node.tag == "freejoint" else "type")
    axis = np.asarray(node.get("axis", [0.0, 0.0, 1.0]), float)
    norm = np.linalg.norm(axis)
    if norm < 1e-14:
      fail(node, "joint axis has zero length", "axis")
    axis = axis / norm
    rng = np.asarray(node.get("range", [0.0, 0.0]), float)
    limited = self.limited(node, "limited", "range")
    if jtype in (1, 3) and limited:
      # MuJoCo converts the range of limited angular joints only; an unused range keeps its units.
      rng = np.array([self.cfg.angle(r) for r in rng])
    if limited and jtype == 0:
      fail(node, "a free joint cannot be limited", "limited")
    if limited and rng[0] > rng[1]:
      fail(node, f"limited joint needs range[0] <= range[1], got {list(node.get('range', [0, 0]))}", "range")
    ref = node.get("ref", 0.0)
    springref = node.get("springref", 0.0)
    if jtype == 3:
      ref, springref = self.cfg.angle(ref), self.cfg.angle(springref)
    jntid = self.add(ObjType.JOINT, node, jnt_type=jtype, jnt_bodyid=bodyid, jnt_group=node.get("group", 0),
                     jnt_limited=int(limited), jnt_pos=np.asarray(node.get("pos", [0.0] * 3), float) if jtype
                     else np.zeros(3), jnt_axis=axis if jtype else np.array([0.0, 0.0, 1.0]),
                     jnt_stiffness=node.get("stiffness", 0.0), jnt_range=rng,
                     jnt_margin=node.get("margin", 0.0), jnt_solref=node.get("solreflimit", _SOLREF),
                     jnt_solimp=node.get("solimplimit", _SOLIMP))
    info["joints"].append(dict(id=jntid, type=jtype, ref=ref, springref=springref, node=node))

  def limited(self, node, attr, range_attr):
    """MuJoCo's limited flags: explicit true/false, or 'auto' = range given (needs compiler autolimits)."""
    value = node.get(attr, "auto")
    if value == "auto":
      if node.has(range_attr):
        if not self.cfg.autolimits:
          fail(node, f"'{range_attr}' given without '{attr}': set {attr} explicitly or use the compiler "
               "option autolimits='true'", range_attr)
        return True
      return False
    if value == "true" and not node.has(range_attr):
      fail(node, f"{attr}='true' needs '{range_attr}'", attr)
    return value == "true"

  def geom(self, node, bodyid):
    gtype = node.get("type", "sphere")
    if gtype in ("hfield", "sdf"):
      fail(node, f"geom type '{gtype}' is not supported (unsupported feature)", "type")
    size = list(node.get("size", [0.0, 0.0, 0.0]))
    pos, quat = self.frame(node)
    if node.has("fromto"):
      pos, quat, size = self.fromto_frame(node, gtype, size)
    meshid = -1
    if gtype == "mesh":
      if not node.has("mesh"):
        fail(node, "mesh geom needs a 'mesh'", "mesh")
      meshid = self.lookup(ObjType.MESH, node, "mesh")
    elif node.has("mesh"):
      fail(node, f"'mesh' given for a geom of type {gtype}", "mesh")
    need = {"sphere": 1, "capsule": 2, "cylinder": 2, "ellipsoid": 3, "box": 3}.get(gtype, 0)
    for i in range(need):
      if not size[i] > 0:
        fail(node, f"size {i} must be positive for a {gtype}, got {size[i]}", "size")
    if gtype == "plane" and bodyid != 0 and self.body_info[bodyid]["joints"]:
      fail(node, "planes can only be attached to static bodies", "type")
    if gtype == "mesh":
      mesh = self.meshes[meshid]
      # The mesh was recentered at its centroid and aligned with its principal axes: move the geom with it.
      pos = pos + spatial.rotate(quat, mesh.pos)
      quat = spatial.quat_mul(quat, mesh.quat)
      quat /= np.linalg.norm(quat)
      rb = mesh.rbound
      volume, unit_inertia = mesh.volume, np.asarray(mesh.inertia) / mesh.volume
      # Half sizes of the box around the mesh that is centered at the geom frame's origin.
      size = list(np.abs(mesh.aabb[:3]) + mesh.aabb[3:])
    elif gtype == "plane":
      rb, volume, unit_inertia = 0.0, 0.0, np.zeros(3)
    else:
      rb = spatial.rbound(gtype, size)
      volume, unit_inertia = spatial.primitive_inertia(gtype, size)
    if node.has("mass"):
      mass = node.get("mass")
    else:
      mass = node.get("density", 1000.0) * volume
    if mass < 0 or node.get("density", 0.0) < 0:
      fail(node, "mass and density must be non-negative", "mass" if node.has("mass") else "density")
    friction = node.get("friction", [1.0, 0.005, 0.0001])
    matid = self.lookup(ObjType.MATERIAL, node, "material") if node.has("material") else -1
    group = node.get("group", 0)
    geomid = self.add(
        ObjType.GEOM, node, geom_type=_GEOM_TYPES[gtype], geom_contype=node.get("contype", 1),
        geom_conaffinity=node.get("conaffinity", 1), geom_condim=node.get("condim", 3), geom_bodyid=bodyid,
        geom_dataid=meshid, geom_matid=matid, geom_group=group, geom_priority=node.get("priority", 0),
        geom_solmix=node.get("solmix", 1.0), geom_solref=node.get("solref", _SOLREF),
        geom_solimp=node.get("solimp", _SOLIMP), geom_size=size, geom_rbound=rb, geom_pos=pos,
        geom_quat=quat, geom_friction=friction, geom_margin=node.get("margin", 0.0),
        geom_gap=node.get("gap", 0.0), geom_rgba=node.get("rgba", [0.5, 0.5, 0.5, 1.0]))
    condim = node.get("condim", 3)
    if condim not in (1, 3, 4, 6):
      fail(node, f"condim must be 1, 3, 4 or 6, got {condim}", "condim")
    lo, hi = self.cfg.inertiagrouprange
    if gtype != "plane" and lo <= group <= hi:
      self.body_info[bodyid]["geoms"].append(dict(id=geomid, mass=mass, pos=pos, quat=quat,
                                                  inertia=mass * unit_inertia))

  def site(self, node, bodyid):
    stype = node.get("type", "sphere")
    size = list(node.get("size", [0.005] * 3))
    pos, quat = self.frame(node)
    if node.has("fromto"):
      pos, quat, size = self.fromto_frame(node, stype, size)
    self.add(ObjType.SITE, node, site_type=_GEOM_TYPES[stype], site_bodyid=bodyid,
             site_group=node.get("group", 0), site_size=size, site_pos=pos, site_quat=quat,
             site_rgba=node.get("rgba", [0.5, 0.5, 0.5, 1.0]))

  def resolve_targets(self):
    """Target bodies of cameras and lights (looked up once all bodies exist; targets may come later)."""
    for key in ("cam_targetbodyid", "light_targetbodyid"):
      self.rows[key] = [self.target(node) for node in self.rows.get(key, [])]

  def target(self, node):
    mode = node.get("mode", "fixed")
    if mode.startswith("target"):
      if not node.has("target"):
        fail(node, f"mode '{mode}' needs a 'target' body", "target")
      return self.lookup(ObjType.BODY, node, "target")
    return -1

  def camera(self, node, bodyid):
    pos, quat = self.frame(node)
    self.add(ObjType.CAMERA, node, cam_mode=_CAMLIGHT_MODES[node.get("mode", "fixed")], cam_bodyid=bodyid,
             cam_targetbodyid=node, cam_pos=pos, cam_quat=quat, cam_fovy=node.get("fovy", 45.0),
             cam_ipd=node.get("ipd", 0.068))

  def light(self, node, bodyid):
    direction = np.asarray(node.get("dir", [0.0, 0.0, -1.0]), float)
    norm = np.linalg.norm(direction)
    if norm < 1e-15:
      fail(node, "light direction has zero length", "dir")
    if node.has("directional") and node.has("type"):
      fail(node, "give either 'directional' or 'type', not both", "directional")
    ltype = _LIGHT_TYPES[node.get("type", "directional" if node.get("directional", False) else "spot")]
    self.add(ObjType.LIGHT, node, light_mode=_CAMLIGHT_MODES[node.get("mode", "fixed")], light_bodyid=bodyid,
             light_targetbodyid=node, light_type=ltype,
             light_castshadow=int(node.get("castshadow", True)), light_active=int(node.get("active", True)),
             light_pos=node.get("pos", [0.0] * 3), light_dir=direction / norm,
             light_attenuation=node.get("attenuation", [1.0, 0.0, 0.0]), light_cutoff=node.get("cutoff", 45.0),
             light_exponent=node.get("exponent", 10.0), light_ambient=node.get("ambient", [0.0] * 3),
             light_diffuse=node.get("diffuse", [0.7] * 3), light_specular=node.get("specular", [0.3] * 3))

  # ---- assets ----

  def assets(self):
    for asset in self.root.all("asset"):
      for node in asset.all("texture"):
        self.texture(node)
    for asset in self.root.all("asset"):
      for node in asset.all("material"):
        texid = self.lookup(ObjType.TEXTURE, node, "texture") if node.has("texture") else -1
        self.add(ObjType.MATERIAL, node, mat_texid=texid, mat_texuniform=int(node.get("texuniform", False)),
                 mat_texrepeat=node.get("texrepeat", [1.0, 1.0]), mat_emission=node.get("emission", 0.0),
                 mat_specular=node.get("specular", 0.5), mat_shininess=node.get("shininess", 0.5),
                 mat_reflectance=node.get("reflectance", 0.0), mat_rgba=node.get("rgba", [1.0] * 4))
      for node in asset.all("mesh"):
        self.mesh(node)

  def texture(self, node):
    ttype = {"2d": 0, "cube": 1, "skybox": 2}[node.get("type", "cube")]
    if node.has("file") or any(a.startswith("file") for a in node.given):
      fail(node, "textures from image files are not supported (unsupported feature)", "file")
    if node.get("builtin", "none") == "none":
      fail(node, "a texture needs 'builtin' (image files are not supported)", "builtin")
    width, height = node.get("width", 0), node.get("height", 0)
    if ttype != 0:
      # Cube and skybox builtins are square faces stacked vertically, six of them.
      height = 6 * width
    self.add(ObjType.TEXTURE, node, tex_type=ttype, tex_height=height, tex_width=width)

  def mesh(self, node):
    from mjgym.physics.mjcf import mesh as meshlib  # pylint: disable=import-outside-toplevel
    if not node.has("file"):
      fail(node, "mesh needs a 'file' (inline vertices are not supported)", "file")
    name = node.get("file")
    if not node.has("name"):
      node.attrs["name"] = os.path.splitext(os.path.basename(name))[0]
    base = os.path.dirname(node.file)
    path = name if os.path.isabs(name) else os.path.join(base, self.cfg.meshdir, name)
    data = self.source.read(path, node, "file")
    try:
      vert, face = meshlib.read_mesh(data, name)
      processed = meshlib.process_mesh(vert, face, np.asarray(node.get("scale", [1.0] * 3), float),
                                       node.get("inertia", meshlib.DEFAULT_INERTIA))
    except ValueError as e:
      fail(node, f"cannot load mesh '{name}': {e}", "file")
    self.meshes.append(processed)
    self.add(ObjType.MESH, node)

  # ---- inertia ----

  def inertia(self):
    nbody = len(self.body_info)
    mass = np.zeros(nbody)
    ipos = np.zeros((nbody, 3))
    iquat = np.tile(spatial.IDENTITY_QUAT, (nbody, 1))
    inertia = np.zeros((nbody, 3))
    mode = self.cfg.inertiafromgeom
    for b in range(1, nbody):
      info = self.body_info[b]
      inertial = info["inertial"]
      if inertial is not None and mode != "true":
        mass[b], ipos[b], iquat[b], inertia[b] = self.explicit_inertial(inertial)
      elif mode != "false" and info["geoms"]:
        mass[b], ipos[b], iquat[b], inertia[b] = self.geom_inertia(info["geoms"])
      else:
        # MuJoCo gives a body without any inertial information its own frame values here.
        ipos[b], iquat[b] = self.rows["body_pos"][b], self.rows["body_quat"][b]
    for b in range(1, nbody):
      mass[b] = max(mass[b], self.cfg.boundmass)
      inertia[b] = np.maximum(inertia[b], self.cfg.boundinertia)
      if self.cfg.balanceinertia:
        a = inertia[b]
        if a[0] + a[1] < a[2] or a[0] + a[2] < a[1] or a[1] + a[2] < a[0]:
          inertia[b] = a.mean()
    if self.cfg.settotalmass > 0:
      total = mass[1:].sum()
      if total > 0:
        scale = self.cfg.settotalmass / total
        mass *= scale
        inertia *= scale
    self.mass, self.ipos, self.iquat, self.body_inertia = mass, ipos, iquat, inertia

  def explicit_inertial(self, node):
    for attr in ("pos", "mass"):
      if not node.has(attr):
        fail(node, "required attribute missing", attr)
    m = node.get("mass")
    if m < 0:
      fail(node, f"mass must be non-negative, got {m}", "mass")
    quat = self.orientation(node)
    if node.has("fullinertia"):
      if node.has("diaginertia"):
        fail(node, "give either diaginertia or fullinertia, not both", "fullinertia")
      xx, yy, zz, xy, xz, yz = node.get("fullinertia")
      tensor = np.array([[xx, xy, xz], [xy, yy, yz], [xz, yz, zz]])
      values, rot = spatial.principal_frame(tensor)
      if values[0] < 0:
        fail(node, "inertia matrix must be positive semidefinite", "fullinertia")
      quat = spatial.quat_mul(quat, rot)
      diag = values
    elif node.has("diaginertia"):
      diag = np.asarray(node.get("diaginertia"), float)
      if np.any(diag < 0):
        fail(node, "inertia must be non-negative", "diaginertia")
    else:
      fail(node, "needs diaginertia or fullinertia", "diaginertia")
    return m, np.asarray(node.get("pos"), float), quat, diag

  @staticmethod
  def geom_inertia(geoms):
    """Mass, center, principal frame and moments of a body made of the given geoms."""
    if len(geoms) == 1:
      g = geoms[0]
      return g["mass"], g["pos"], g["quat"], g["inertia"]
    total = sum(g["mass"] for g in geoms)
    if total < _MINVAL:
      return total, np.zeros(3), spatial.IDENTITY_QUAT.copy(), np.zeros(3)
    com = sum(g["mass"] * g["pos"] for g in geoms) / total
    tensor = np.zeros((3, 3))
    for g in geoms:
      r = spatial.quat_to_mat(g["quat"])
      d = g["pos"] - com
      tensor += r @ np.diag(g["inertia"]) @ r.T + g["mass"] * (np.dot(d, d) * np.eye(3) - np.outer(d, d))
    values, quat = spatial.principal_frame(tensor)
    return total, com, quat, values

  # ---- kinematics at qpos0 ----

  def kinematics(self):
    """Tree addresses and the world frames of everything at qpos0 (bodies sit where the model puts them)."""
    nbody = len(self.body_info)
    parent = np.array(self.rows["body_parentid"], np.int32)
    pos = np.array(self.rows["body_pos"], float)
    quat = np.array(self.rows["body_quat"], float)
    xpos, xquat = np.zeros((nbody, 3)), np.tile(spatial.IDENTITY_QUAT, (nbody, 1))
    for b in range(1, nbody):
      p = parent[b]
      xpos[b] = xpos[p] + spatial.rotate(xquat[p], pos[b])
      xquat[b] = spatial.quat_mul(xquat[p], quat[b])
      xquat[b] /= np.linalg.norm(xquat[b])
    self.xpos, self.xquat = xpos, xquat
    xipos = np.array([xpos[b] + spatial.rotate(xquat[b], self.ipos[b]) for b in range(nbody)])
    subtree_mass = self.mass.copy()
    weighted = self.mass[:, None] * xipos
    for b in range(nbody - 1, 0, -1):
      subtree_mass[parent[b]] += subtree_mass[b]
      weighted[parent[b]] += weighted[b]
    self.subtree_mass = subtree_mass
    self.subtree_com = np.where(subtree_mass[:, None] > _MINVAL, weighted / np.maximum(subtree_mass, _MINVAL)[:, None],
                                xipos)

  # ---- everything that follows the tree ----

  def finish(self):
    v = {}
    nbody = len(self.body_info)
    parent = np.array(self.rows["body_parentid"], np.int32)
    rootid = np.zeros(nbody, np.int32)
    weldid = np.zeros(nbody, np.int32)
    mocapid = np.full(nbody, -1, np.int32)
    jntadr, jntnum = np.full(nbody, -1, np.int32), np.zeros(nbody, np.int32)
    dofadr, dofnum = np.full(nbody, -1, np.int32), np.zeros(nbody, np.int32)
    qpos0, qpos_spring = [], []
    jnt_qposadr, jnt_dofadr = [], []
    dof_bodyid, dof_jntid, dof_parentid, armature, damping, frictionloss = [], [], [], [], [], []
    dof_solref, dof_solimp = [], []
    last_dof = np.full(nbody, -1, np.int32)
    nmocap = 0
    for b in range(1, nbody):
      info = self.body_info[b]
      p = parent[b]
      rootid[b] = b if p == 0 else rootid[p]
      joints = info["joints"]
      # Mocap bodies move (the user drives them), so they weld only to themselves.
      weldid[b] = b if joints or info["mocap"] else weldid[p]
      if info["mocap"]:
        mocapid[b] = nmocap
        nmocap += 1
      prev = last_dof[p]
      if joints:
        jntadr[b], jntnum[b] = joints[0]["id"], len(joints)
        dofadr[b] = len(dof_bodyid)
      for j in joints:
        node, jtype = j["node"], j["type"]
        jnt_qposadr.append(len(qpos0))
        jnt_dofadr.append(len(dof_bodyid))
        if jtype == 0:
          q = [*self.rows["body_pos"][b], *self.rows["body_quat"][b]]
          qpos0 += q
          qpos_spring += q
        elif jtype == 1:
          qpos0 += [1.0, 0.0, 0.0, 0.0]
          qpos_spring += [1.0, 0.0, 0.0, 0.0]
        else:
          qpos0.append(j["ref"])
          qpos_spring.append(j["springref"])
        for _ in range(_JOINT_NV[jtype]):
          dof_bodyid.append(b)
          dof_jntid.append(j["id"])
          dof_parentid.append(prev)
          prev = len(dof_bodyid) - 1
          armature.append(node.get("armature", 0.0))
          damping.append(node.get("damping", 0.0))
          frictionloss.append(node.get("frictionloss", 0.0))
          dof_solref.append(node.get("solreffriction", _SOLREF))
          dof_solimp.append(node.get("solimpfriction", _SOLIMP))
      dofnum[b] = len(dof_bodyid) - dofadr[b] if joints else 0
      last_dof[b] = prev
    self.rootid = rootid
    self.check_masses(weldid)
    nq, nv = len(qpos0), len(dof_bodyid)
    self.qpos0 = np.array(qpos0, float)
    self.qpos_spring = np.array(qpos_spring, float)
    v.update(nq=nq, nv=nv, nbody=nbody, nmocap=nmocap, qpos0=self.qpos0, qpos_spring=qpos_spring,
             body_rootid=rootid, body_weldid=weldid, body_mocapid=mocapid, body_jntadr=jntadr,
             body_jntnum=jntnum, body_dofadr=dofadr, body_dofnum=dofnum, body_ipos=self.ipos,
             body_iquat=self.iquat, body_mass=self.mass, body_inertia=self.body_inertia,
             body_subtreemass=self.subtree_mass, jnt_qposadr=jnt_qposadr, jnt_dofadr=jnt_dofadr,
             dof_bodyid=dof_bodyid, dof_jntid=dof_jntid, dof_parentid=dof_parentid, dof_armature=armature,
             dof_damping=damping, dof_frictionloss=frictionloss, dof_solref=dof_solref, dof_solimp=dof_solimp)
    v["dof_Madr"], v["nM"] = containers.dof_madr(np.array(dof_parentid, np.int32))
    v["dof_treeid"] = containers.dof_treeid(np.array(dof_parentid, np.int32))
    geom_bodyid = np.array(self.rows.get("geom_bodyid", []), np.int32)
    geomadr, geomnum = np.full(nbody, -1, np.int32), np.bincount(geom_bodyid, minlength=nbody).astype(np.int32)
    for g in range(len(geom_bodyid) - 1, -1, -1):
      geomadr[geom_bodyid[g]] = g
    v.update(body_geomadr=geomadr, body_geomnum=geomnum)
    self.jnt_qposadr = np.array(jnt_qposadr, np.int32)
    self.jnt_dofadr = np.array(jnt_dofadr, np.int32)
    self.camlight(v)
    self.tendons(v)
    self.actuators(v)
    self.equality(v)
    self.contact(v)
    self.options(v)
    v.update(self.keyframes(v))
    for key, rows in self.rows.items():
      if key not in v:
        v[key] = np.array(rows)
    counts = {ObjType.JOINT: "njnt", ObjType.GEOM: "ngeom", ObjType.SITE: "nsite", ObjType.CAMERA: "ncam",
              ObjType.LIGHT: "nlight", ObjType.MESH: "nmesh", ObjType.MATERIAL: "nmat", ObjType.TEXTURE: "ntex",
              ObjType.TENDON: "ntendon", ObjType.ACTUATOR: "nu", ObjType.EQUALITY: "neq", ObjType.PAIR: "npair",
              ObjType.EXCLUDE: "nexclude", ObjType.KEY: "nkey"}
    for objtype, size in counts.items():
      v.setdefault(size, len(self.names[objtype]))
    # Row lists of object types with no objects come out empty; give them their table shape.
    for key in list(v):
      if isinstance(v[key], np.ndarray) and v[key].size == 0:
        del v[key]
    self.mesh_fields(v)
    return v

  def check_masses(self, weldid):
    for b in range(1, len(self.body_info)):
      info = self.body_info[b]
      if info["joints"] and (self.mass[b] < _MINVAL or np.any(self.body_inertia[b] < _MINVAL)):
        # A massless body on joints is allowed when its welded children carry the mass (MuJoCo's rule).
        children = [c for c in range(b + 1, len(self.body_info)) if weldid[c] == b]
        if not children:
          fail(info["node"], "mass and inertia of moving bodies must be larger than 1e-15 "
               "(add geoms, an <inertial>, or compiler boundmass/boundinertia)")
      a = self.body_inertia[b]
      tol = 1e-12 * max(1.0, float(a.max()))
      if a[0] + a[1] < a[2] - tol or a[0] + a[2] < a[1] - tol or a[1] + a[2] < a[0] - tol:
        node = info["inertial"] or info["node"]
        fail(node, f"inertia {list(a)} violates A + B >= C (use compiler balanceinertia='true')")

  def mesh_fields(self, v):
    verts, faces, vadr, fadr, vnum, fnum = [], [], [], [], [], []
    for m in self.meshes:
      vadr.append(sum(len(x) for x in verts))
      fadr.append(sum(len(x) for x in faces))
      verts.append(np.asarray(m.vert, float))
      faces.append(np.asarray(m.face, np.int32))
      vnum.append(len(m.vert))
      fnum.append(len(m.face))
    if self.meshes:
      v.update(nmeshvert=sum(vnum), nmeshface=sum(fnum), mesh_vert=np.concatenate(verts),
               mesh_face=np.concatenate(faces), mesh_vertadr=vadr, mesh_faceadr=fadr, mesh_vertnum=vnum,
               mesh_facenum=fnum)

  def camlight(self, v):
    """cam_*0 and light_*0: world frames at qpos0 relative to the body and to its subtree's com."""
    for prefix in ("cam", "light"):
      bodies = self.rows.get(f"{prefix}_bodyid", [])
      pos0, poscom0, extra = [], [], []
      for i, b in enumerate(bodies):
        world = self.xpos[b] + spatial.rotate(self.xquat[b], self.rows[f"{prefix}_pos"][i])
        pos0.append(world - self.xpos[b])
        # Relative to the com of the subtree the camera/light follows: its target's, else its own body's.
        target = self.rows[f"{prefix}_targetbodyid"][i]
        poscom0.append(world - self.subtree_com[target if target >= 0 else b])
        if prefix == "cam":
          q = spatial.quat_mul(self.xquat[b], self.rows["cam_quat"][i])
          extra.append(spatial.quat_to_mat(q / np.linalg.norm(q)).ravel())
        else:
          extra.append(spatial.rotate(self.xquat[b], self.rows["light_dir"][i]))
      if bodies:
        v[f"{prefix}_pos0"], v[f"{prefix}_poscom0"] = np.array(pos0), np.array(poscom0)
        v["cam_mat0" if prefix == "cam" else "light_dir0"] = np.array(extra)

  def tendons(self, v):
    adr, num, wtype, wobj, wprm = [], [], [], [], []
    for section in self.root.all("tendon"):
      for node in section.children:
        joints = node.all("joint")
        if not joints:
          fail(node, "a fixed tendon needs at least one <joint>")
        adr.append(len(wtype))
        num.append(len(joints))
        length0 = spring_length = 0.0
        for jn in joints:
          for attr in ("joint", "coef"):
            if not jn.has(attr):
              fail(jn, "required attribute missing", attr)
          j = self.lookup(ObjType.JOINT, jn, "joint")
          if self.rows["jnt_type"][j] not in (2, 3):
            fail(jn, "fixed tendons can only use hinge and slide joints", "joint")
          coef = jn.get("coef", 1.0)
          wtype.append(int(types.WrapType.JOINT))
          wobj.append(j)
          wprm.append(coef)
          length0 += coef * self.qpos0[self.jnt_qposadr[j]]
          spring_length += coef * self.qpos_spring[self.jnt_qposadr[j]]
        limited = self.limited(node, "limited", "range")
        rng = node.get("range", [0.0, 0.0])
        if limited and not rng[0] < rng[1]:
          fail(node, f"limited tendon needs range[0] < range[1], got {rng}", "range")
        spring = node.get("springlength", [-1.0, -1.0])
        if len(spring) == 1:
          spring = [spring[0], spring[0]]
        if spring[0] > spring[1]:
          fail(node, "springlength needs a lower end <= the upper end", "springlength")
        if spring[0] == -1.0 and spring[1] == -1.0:
          # No spring length given: the tendon's length in the spring reference configuration.
          spring = [spring_length, spring_length]
        self.add(ObjType.TENDON, node, tendon_limited=int(limited), tendon_range=rng,
                 tendon_solref_lim=node.get("solreflimit", _SOLREF),
                 tendon_solimp_lim=node.get("solimplimit", _SOLIMP),
                 tendon_solref_fri=node.get("solreffriction", _SOLREF),
                 tendon_solimp_fri=node.get("solimpfriction", _SOLIMP), tendon_margin=node.get("margin", 0.0),
                 tendon_stiffness=node.get("stiffness", 0.0), tendon_damping=node.get("damping", 0.0),
                 tendon_frictionloss=node.get("frictionloss", 0.0), tendon_lengthspring=spring,
                 tendon_length0=length0)
    v.update(nwrap=len(wtype), tendon_adr=np.array(adr, np.int32), tendon_num=np.array(num, np.int32),
             wrap_type=np.array(wtype, np.int32), wrap_objid=np.array(wobj, np.int32),
             wrap_prm=np.array(wprm, float))

  def actuators(self, v):
    na = 0
    for section in self.root.all("actuator"):
      for node in section.children:
        p = _actuator_params(node)
        given = [a for a in ("joint", "jointinparent", "tendon") if node.has(a)]
        if len(given) != 1:
          fail(node, "needs exactly one transmission: 'joint', 'jointinparent' or 'tendon'",
               given[1] if given else "joint")
        if given[0] != "tendon":
          trntype = int(types.TrnType.JOINT if given[0] == "joint" else types.TrnType.JOINTINPARENT)
          trnid = self.lookup(ObjType.JOINT, node, given[0])
          jtype = self.rows["jnt_type"][trnid]
          length0 = self.qpos0[self.jnt_qposadr[trnid]] if jtype in (2, 3) else 0.0
        else:
          trntype, trnid = int(types.TrnType.TENDON), self.lookup(ObjType.TENDON, node, "tendon")
          length0 = self.rows["tendon_length0"][trnid]
        gear = list(node.get("gear", [1.0, 0, 0, 0, 0, 0]))
        limits = {}
        for kind in ("ctrl", "force", "act"):
          lim = self.limited(node, f"{kind}limited", f"{kind}range")
          rng = node.get(f"{kind}range", [0.0, 0.0])
          if lim and not rng[0] < rng[1]:
            fail(node, f"invalid {kind}range {rng}: needs range[0] < range[1]", f"{kind}range")
          if kind == "force" and lim and (rng[0] > 0 or rng[1] < 0):
            fail(node, f"forcerange {rng} must contain 0", "forcerange")
          limits[kind] = (int(lim), rng)
        if p["dyntype"] in (4, 5) or p["gaintype"] in (2, 3) or p["biastype"] in (2, 3):
          fail(node, "muscle and user actuator dynamics/gain/bias are not supported (unsupported feature)",
               "dyntype")
        actdim = node.get("actdim", -1)
        actnum = (1 if p["dyntype"] else 0) if actdim < 0 else actdim
        if actnum > 1 or (actnum == 1 and not p["dyntype"]) or (actnum == 0 and p["dyntype"]):
          fail(node, f"actdim {actdim} does not fit dyntype", "actdim")
        self.add(ObjType.ACTUATOR, node, actuator_trntype=trntype, actuator_dyntype=p["dyntype"],
                 actuator_gaintype=p["gaintype"], actuator_biastype=p["biastype"], actuator_trnid=[trnid, -1],
                 actuator_actadr=na if actnum else -1, actuator_actnum=actnum, actuator_group=node.get("group", 0),
                 actuator_ctrllimited=limits["ctrl"][0], actuator_forcelimited=limits["force"][0],
                 actuator_actlimited=limits["act"][0], actuator_actearly=int(p["actearly"]),
                 actuator_dynprm=p["dynprm"], actuator_gainprm=p["gainprm"], actuator_biasprm=p["biasprm"],
                 actuator_ctrlrange=limits["ctrl"][1], actuator_forcerange=limits["force"][1],
                 actuator_actrange=limits["act"][1], actuator_gear=gear,
                 actuator_cranklength=node.get("cranklength", 0.0), actuator_length0=length0 * gear[0],
                 actuator_lengthrange=node.get("lengthrange", [0.0, 0.0]))
        na += actnum
    v["na"] = na

  def equality(self, v):
    for section in self.root.all("equality"):
      for node in section.children:
        data = np.zeros(11)
        data[10] = 1.0  # torquescale's default, which MuJoCo stores for every type
        kind = node.tag
        if kind in ("connect", "weld"):
          if node.has("site1") or node.has("site2"):
            fail(node, "site-based equality constraints are not supported (unsupported feature)", "site1")
          if not node.has("body1"):
            fail(node, "required attribute missing", "body1")
          b1 = self.lookup(ObjType.BODY, node, "body1")
          b2 = self.lookup(ObjType.BODY, node, "body2") if node.has("body2") else 0
          anchor = np.asarray(node.get("anchor", [0.0] * 3), float)
          data[:3] = anchor
          objtype = int(ObjType.BODY)
          if kind == "connect":
            if not node.has("anchor"):
              fail(node, "required attribute missing", "anchor")
            world = self.xpos[b1] + spatial.rotate(self.xquat[b1], anchor)
            data[3:6] = spatial.rotate(spatial.quat_conj(self.xquat[b2]), world - self.xpos[b2])
          else:
            relpose = np.asarray(node.get("relpose", [0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0]), float)
            if np.linalg.norm(relpose[3:]) < 1e-15:
              # No relative pose given: keep the one the bodies have at qpos0 (body2 seen from body1).
              q1 = spatial.quat_conj(self.xquat[b1])
              relpose[:3] = spatial.rotate(q1, self.xpos[b2] - self.xpos[b1])
              relpose[3:] = spatial.quat_mul(q1, self.xquat[b2])
            else:
              relpose[3:] /= np.linalg.norm(relpose[3:])
            data[3:10] = relpose
            data[10] = node.get("torquescale", 1.0)
          o1, o2 = b1, b2
        else:
          # MuJoCo leaves eq_objtype unset (0) for joint and tendon couplings.
          objtype, looked_up = 0, ObjType.JOINT if kind == "joint" else ObjType.TENDON
          a1, a2 = f"{kind}1", f"{kind}2"
          if not node.has(a1):
            fail(node, "required attribute missing", a1)
          o1 = self.lookup(looked_up, node, a1)
          o2 = self.lookup(looked_up, node, a2) if node.has(a2) else -1
          data[:5] = node.get("polycoef", [0.0, 1.0, 0.0, 0.0, 0.0])
        self.add(ObjType.EQUALITY, node, eq_type=int(types.EqType[kind.upper()]), eq_obj1id=o1, eq_obj2id=o2,
                 eq_objtype=objtype, eq_active0=int(node.get("active", True)),
                 eq_solref=node.get("solref", _SOLREF), eq_solimp=node.get("solimp", _SOLIMP), eq_data=data)

  def contact(self, v):
    geom_body = self.rows.get("geom_bodyid", [])
    pairs = []
    for section in self.root.all("contact"):
      for node in section.all("pair"):
        for attr in ("geom1", "geom2"):
          if not node.has(attr):
            fail(node, "required attribute missing", attr)
        g1, g2 = self.lookup(ObjType.GEOM, node, "geom1"), self.lookup(ObjType.GEOM, node, "geom2")
        if geom_body[g1] > geom_body[g2]:
          g1, g2 = g2, g1
        b1, b2 = geom_body[g1], geom_body[g2]
        pairs.append((node, dict(pair_dim=node.get("condim", 3), pair_geom1=g1, pair_geom2=g2,
                 pair_signature=(b1 << 16) + b2, pair_solref=node.get("solref", _SOLREF),
                 pair_solreffriction=node.get("solreffriction", [0.0, 0.0]),
                 pair_solimp=node.get("solimp", _SOLIMP), pair_margin=node.get("margin", 0.0),
                 pair_gap=node.get("gap", 0.0), pair_friction=node.get("friction", [1.0, 1.0, 0.005, 1e-4, 1e-4]))))
    # MuJoCo orders explicit pairs by their body-pair signature (stable for equal signatures).
    for node, row in sorted(pairs, key=lambda p: p[1]["pair_signature"]):
      self.add(ObjType.PAIR, node, **row)
    for section in self.root.all("contact"):
      for node in section.all("exclude"):
        for attr in ("body1", "body2"):
          if not node.has(attr):
            fail(node, "required attribute missing", attr)
        b1, b2 = sorted((self.lookup(ObjType.BODY, node, "body1"), self.lookup(ObjType.BODY, node, "body2")))
        self.add(ObjType.EXCLUDE, node, exclude_signature=(b1 << 16) + b2)

  def options(self, v):
    a, flags = {}, {}
    for node in self.root.all("option"):
      a.update(node.attrs)
      for f in node.all("flag"):
        flags.update(f.attrs)
    v.update(opt_timestep=a.get("timestep", 0.002), opt_impratio=a.get("impratio", 1.0),
             opt_tolerance=a.get("tolerance", 1e-8), opt_ls_tolerance=a.get("ls_tolerance", 0.01),
             opt_noslip_tolerance=a.get("noslip_tolerance", 1e-6), opt_gravity=a.get("gravity", [0, 0, -9.81]),
             opt_wind=a.get("wind", [0.0] * 3), opt_magnetic=a.get("magnetic", [0.0, -0.5, 0.0]),
             opt_density=a.get("density", 0.0), opt_viscosity=a.get("viscosity", 0.0),
             opt_o_margin=a.get("o_margin", 0.0), opt_o_solref=a.get("o_solref", _SOLREF),
             opt_o_solimp=a.get("o_solimp", _SOLIMP),
             opt_o_friction=a.get("o_friction", [1.0, 1.0, 0.005, 1e-4, 1e-4]),
             opt_integrator=_INTEGRATORS[a.get("integrator", "Euler")],
             opt_cone=int(a.get("cone", "pyramidal") == "elliptic"),
             opt_jacobian={"dense": 0, "sparse": 1, "auto": 2}[a.get("jacobian", "auto")],
             opt_solver=_SOLVERS[a.get("solver", "Newton")], opt_iterations=a.get("iterations", 100),
             opt_ls_iterations=a.get("ls_iterations", 50), opt_noslip_iterations=a.get("noslip_iterations", 0))
    disable = enable = 0
    for name, value in flags.items():
      if name.upper() in types.DisableBit.__members__:
        if value == "disable":
          disable |= int(types.DisableBit[name.upper()])
      elif value == "enable":
        enable |= int(types.EnableBit[name.upper()])
    v.update(opt_disableflags=disable, opt_enableflags=enable)

  def keyframes(self, v):
    nq, nv, nu, na, nmocap = v["nq"], v["nv"], len(self.names[ObjType.ACTUATOR]), v["na"], v["nmocap"]
    mocap_bodies = [b for b in range(len(self.body_info)) if self.body_info[b].get("mocap")]
    mpos0 = np.array([self.rows["body_pos"][b] for b in mocap_bodies]).reshape(nmocap, 3)
    mquat0 = np.array([self.rows["body_quat"][b] for b in mocap_bodies]).reshape(nmocap, 4)
    nkey = 0
    for node in self.root.all("size"):
      nkey = max(nkey, node.get("nkey", 0))
    keys = [k for section in self.root.all("keyframe") for k in section.all("key")]
    nkey = max(nkey, len(keys))
    out = dict(key_time=np.zeros(nkey), key_qpos=np.tile(self.qpos0, (nkey, 1)), key_qvel=np.zeros((nkey, nv)),
               key_act=np.zeros((nkey, na)), key_ctrl=np.zeros((nkey, nu)),
               key_mpos=np.tile(mpos0, (nkey, 1, 1)), key_mquat=np.tile(mquat0, (nkey, 1, 1)))
    sizes = {"qpos": nq, "qvel": nv, "act": na, "ctrl": nu, "mpos": 3 * nmocap, "mquat": 4 * nmocap}
    for i, node in enumerate(keys):
      self.add(ObjType.KEY, node)
      out["key_time"][i] = node.get("time", 0.0)
      for attr, n in sizes.items():
        if node.has(attr):
          value = node.get(attr)
          if len(value) != n:
            fail(node, f"expected {n} number{'s' * (n != 1)}, got {len(value)}", attr)
          out[f"key_{attr}"][i] = np.reshape(value, out[f"key_{attr}"][i].shape)
      for j, q in enumerate(out["key_mquat"][i]):
        norm = np.linalg.norm(q)
        if norm < 1e-15:
          fail(node, "quaternion has zero norm", "mquat")
        out["key_mquat"][i, j] = q / norm
    self.names[ObjType.KEY] += [""] * (nkey - len(keys))
    out["nkey"] = nkey
    return out


def _actuator_params(node):
  """dyn/gain/bias types and parameters of an actuator, folding its default chain and its own shortcut.

  Every actuator default (of any shortcut kind) edits one record per class, as in MuJoCo; a shortcut element
  then reads its own parameters (kp, kv, ...) with defaults taken from that record.
  """
  rec = dict(kind=None, dyntype=0, gaintype=0, biastype=0, dynprm=[1.0] + [0.0] * 9,
             gainprm=[1.0] + [0.0] * 9, biasprm=[0.0] * 10, actearly=False)
  for kind, attrs, src in node.actuator_chain:
    _apply_shortcut(rec, kind, attrs, src)
  _apply_shortcut(rec, node.tag, {a: node.attrs[a] for a in node.given}, node)
  return rec


def _apply_shortcut(rec, kind, attrs, node):
  def full(values, base):
    out = list(base)
    out[:len(values)] = values
    return out

  if kind == "general":
    for attr, table in (("dyntype", _DYN), ("gaintype", _GAIN), ("biastype", _BIAS)):
      if attr in attrs:
        rec[attr] = table[attrs[attr]]
    for attr in ("dynprm", "gainprm", "biasprm"):
      if attr in attrs:
        rec[attr] = full(attrs[attr], rec[attr])
    if "actearly" in attrs:
      rec["actearly"] = attrs["actearly"]
    if any(a in attrs for a in ("gaintype", "biastype", "gainprm", "biasprm", "dyntype", "dynprm")):
      rec["kind"] = "general"
    return
  # A shortcut takes its own parameters' defaults from the record when the record was set by the same
  # shortcut or by <general>; MuJoCo's rules for the remaining mixes are not reproduced, so refuse them.
  if kind in ("position", "velocity") and rec["kind"] not in (None, "motor", "general", kind):
    fail(node, f"a <{kind}> actuator over a default class set by <{rec['kind']}> is not supported "
         "(unsupported feature); use the same shortcut in the default class", "class")
  same = rec["kind"] in (kind, "general")
  if kind == "position" and same and rec["biasprm"][2] > 0 and "kv" not in attrs:
    fail(node, "a positive default biasprm[2] means dampratio for <position>, which is not supported "
         "(unsupported feature)", "kv")
  dynprm, dyntype = [1.0] + [0.0] * 9, 0
  if kind == "motor":
    gain, bias = 1.0, [0.0, 0.0, 0.0]
  elif kind == "position":
    kp = attrs.get("kp", rec["gainprm"][0] if same else 1.0)
    kv = attrs.get("kv", -rec["biasprm"][2] if same else 0.0)
    timeconst = attrs.get("timeconst", rec["dynprm"][0] if same and rec["dyntype"] == 3 else 0.0)
    if kp < 0 or kv < 0 or timeconst < 0:
      fail(node, "kp, kv and timeconst must be non-negative", "kp")
    gain, bias = kp, [0.0, -kp, -kv]
    if timeconst > 0:
      dyntype, dynprm[0] = 3, timeconst
  else:
    kv = attrs.get("kv", rec["gainprm"][0] if same else 1.0)
    if kv < 0:
      fail(node, "kv must be non-negative", "kv")
    gain, bias = kv, [0.0, 0.0, -kv]
  rec.update(kind=kind, dyntype=dyntype, dynprm=dynprm, gaintype=0, gainprm=[gain] + [0.0] * 9,
             biastype=0 if kind == "motor" else 1, biasprm=bias + [0.0] * 7)


def compile_tree(root, filename, source):
  """Model field values and per-type names of a parsed model."""
  builder = _Builder(root, filename, source)
  builder.build()
  values = builder.finish()
  return values, builder.names
