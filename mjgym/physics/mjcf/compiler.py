"""Parsed MJCF tree -> MjModel fields: frames, inertias, addresses, options and MuJoCo's compile-time constants."""

import math
import re

import numpy as np

from mjgym.physics import containers
from mjgym.physics import math as mjmath
from mjgym.physics import types
from mjgym.physics.mjcf import assets
from mjgym.physics.mjcf import context
from mjgym.physics.mjcf import frames
from mjgym.physics.mjcf import meshes
from mjgym.physics.mjcf import parser
from mjgym.physics.mjcf import schema
from mjgym.physics.mjcf import spatial
from mjgym.physics.mjcf.context import EPS
from mjgym.physics.mjcf.context import MINVAL
from mjgym.physics.mjcf.context import RANGE_RULE
from mjgym.physics.mjcf.context import full
from mjgym.physics.mjcf.context import linear
from mjgym.physics.mjcf.context import plain
from mjgym.physics.mjcf.context import range_ok
from mjgym.physics.mjcf.defaults import SOLIMP
from mjgym.physics.mjcf.defaults import SOLREF
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

# The <visual> attributes the renderer reads: field prefix -> (child element, {attribute: MuJoCo's default}).
_VISUAL_USED = {
    "global": ("global", {"fovy": [45.0], "azimuth": [90.0], "elevation": [-45.0]}),
    "headlight": ("headlight", {"ambient": [0.1] * 3, "diffuse": [0.4] * 3, "specular": [0.5] * 3,
                                "active": [1]}),
    "map": ("map", {"znear": [0.01], "zfar": [50.0], "haze": [0.3], "shadowclip": [1.0]}),
    "rgba": ("rgba", {"haze": [0.15, 0.25, 0.35, 1.0]}),
    "quality": ("quality", {"offsamples": [4], "shadowsize": [4096]}),
}


_ST, _STAGE, _DT = types.SensorType, types.Stage, types.DataType
# Sensor tag -> (type, stage it needs, data type, dimension).
_SENSOR_INFO = {
    "touch": (_ST.TOUCH, _STAGE.ACC, _DT.POSITIVE, 1),
    "accelerometer": (_ST.ACCELEROMETER, _STAGE.ACC, _DT.REAL, 3),
    "velocimeter": (_ST.VELOCIMETER, _STAGE.VEL, _DT.REAL, 3),
    "gyro": (_ST.GYRO, _STAGE.VEL, _DT.REAL, 3),
    "force": (_ST.FORCE, _STAGE.ACC, _DT.REAL, 3),
    "torque": (_ST.TORQUE, _STAGE.ACC, _DT.REAL, 3),
    "magnetometer": (_ST.MAGNETOMETER, _STAGE.POS, _DT.REAL, 3),
    "rangefinder": (_ST.RANGEFINDER, _STAGE.POS, _DT.REAL, 1),
    "jointpos": (_ST.JOINTPOS, _STAGE.POS, _DT.REAL, 1),
    "jointvel": (_ST.JOINTVEL, _STAGE.VEL, _DT.REAL, 1),
    "tendonpos": (_ST.TENDONPOS, _STAGE.POS, _DT.REAL, 1),
    "tendonvel": (_ST.TENDONVEL, _STAGE.VEL, _DT.REAL, 1),
    "actuatorpos": (_ST.ACTUATORPOS, _STAGE.POS, _DT.REAL, 1),
    "actuatorvel": (_ST.ACTUATORVEL, _STAGE.VEL, _DT.REAL, 1),
    "actuatorfrc": (_ST.ACTUATORFRC, _STAGE.ACC, _DT.REAL, 1),
    "jointactuatorfrc": (_ST.JOINTACTFRC, _STAGE.ACC, _DT.REAL, 1),
    "tendonactuatorfrc": (_ST.TENDONACTFRC, _STAGE.ACC, _DT.REAL, 1),
    "ballquat": (_ST.BALLQUAT, _STAGE.POS, _DT.QUATERNION, 4),
    "ballangvel": (_ST.BALLANGVEL, _STAGE.VEL, _DT.REAL, 3),
    "jointlimitpos": (_ST.JOINTLIMITPOS, _STAGE.POS, _DT.REAL, 1),
    "jointlimitvel": (_ST.JOINTLIMITVEL, _STAGE.VEL, _DT.REAL, 1),
    "jointlimitfrc": (_ST.JOINTLIMITFRC, _STAGE.ACC, _DT.REAL, 1),
    "tendonlimitpos": (_ST.TENDONLIMITPOS, _STAGE.POS, _DT.REAL, 1),
    "tendonlimitvel": (_ST.TENDONLIMITVEL, _STAGE.VEL, _DT.REAL, 1),
    "tendonlimitfrc": (_ST.TENDONLIMITFRC, _STAGE.ACC, _DT.REAL, 1),
    "framepos": (_ST.FRAMEPOS, _STAGE.POS, _DT.REAL, 3),
    "framequat": (_ST.FRAMEQUAT, _STAGE.POS, _DT.QUATERNION, 4),
    "framexaxis": (_ST.FRAMEXAXIS, _STAGE.POS, _DT.AXIS, 3),
    "frameyaxis": (_ST.FRAMEYAXIS, _STAGE.POS, _DT.AXIS, 3),
    "framezaxis": (_ST.FRAMEZAXIS, _STAGE.POS, _DT.AXIS, 3),
    "framelinvel": (_ST.FRAMELINVEL, _STAGE.VEL, _DT.REAL, 3),
    "frameangvel": (_ST.FRAMEANGVEL, _STAGE.VEL, _DT.REAL, 3),
    "framelinacc": (_ST.FRAMELINACC, _STAGE.ACC, _DT.REAL, 3),
    "frameangacc": (_ST.FRAMEANGACC, _STAGE.ACC, _DT.REAL, 3),
    "subtreecom": (_ST.SUBTREECOM, _STAGE.POS, _DT.REAL, 3),
    "subtreelinvel": (_ST.SUBTREELINVEL, _STAGE.VEL, _DT.REAL, 3),
    "subtreeangmom": (_ST.SUBTREEANGMOM, _STAGE.VEL, _DT.REAL, 3),
    "clock": (_ST.CLOCK, _STAGE.POS, _DT.REAL, 1),
}
# mjgym's bounds on inputs that set how much memory the model or its data take (MuJoCo has none; it fails when
# an allocation does). Documented in docs/mjcf.md.
MAX_NCONMAX = 1_000_000  # contacts per world (<size nconmax>)
MAX_NJMAX = 10_000_000  # constraint rows per world (<size njmax>)
MAX_EFC_J = 2**27  # entries of the dense constraint Jacobian, njmax * nv (1 GiB)
MAX_NKEY = 100_000  # keyframes (<size nkey>)
_MEMORY = re.compile(r"(-1|[0-9]+[KMGTPEkmgtpe]?)\Z")
# Width of an eq_data row (MuJoCo's mjNEQDATA) and the column flagging a weld whose relpose set_const fills.
_NEQDATA = 12
_EQ_RELPOSE_FROM_QPOS0 = 11


def _counts(geom):
  """Whether a geom enters its body's inertia: a mass above mjEPS, as in MuJoCo (a NaN mass too, so that the
  body's error names it)."""
  return geom["mass"] > EPS or np.isnan(geom["mass"])


class _Builder(context.Context):
  """Collects per-object rows while walking the tree, then turns them into model fields."""

  def build(self):
    self.check_sizes()
    worldbody = self.root.all("worldbody")
    assets.compile_assets(self)
    self.add(ObjType.BODY, None, body_parentid=0, body_pos=np.zeros(3), body_quat=spatial.IDENTITY_QUAT,
             body_mocapid=-1, body_gravcomp=0.0)
    self.names[ObjType.BODY][0] = "world"
    self.body_info = [dict(node=None, geoms=[], joints=[], inertial=None, parent=-1)]
    self.jnt_rows, self.geom_rows = [], []
    if worldbody:
      # Several <worldbody> elements (from includes) make one world body: its own geoms, sites, ... first
      world = parser.Node("worldbody", {}, worldbody[0].line, worldbody[0].file, self.root)
      world.children = [child for wb in worldbody for child in wb.children]
      self.body_children(world, 0)
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
    pos, quat = frames.in_frames(self.cfg, node, *frames.frame(self.cfg, node))
    mocap = node.get("mocap", False)
    bodyid = self.add(ObjType.BODY, node, body_parentid=parent, body_pos=pos, body_quat=quat,
                      body_mocapid=-1, body_gravcomp=node.get("gravcomp", 0.0))
    self.body_info.append(dict(node=node, geoms=[], joints=[], inertial=None, parent=parent, mocap=mocap))
    self.body_children(node, bodyid)
    ndof = sum(_JOINT_NV[j["type"]] for j in self.body_info[bodyid]["joints"])
    if ndof > 6:
      fail(node, f"more than 6 dofs in one body ({ndof}); split the joints over a chain of bodies")
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
    jpos = np.asarray(node.get("pos", [0.0] * 3), float)
    composed = frames.frames(self.cfg, node)
    if composed is not None and jtype in (2, 3):
      axis = spatial.rotate(composed[1], axis)
    if composed is not None and jtype != 0:
      jpos = composed[0] + spatial.rotate(composed[1], jpos)
    if np.linalg.norm(axis) < 1e-14:
      fail(node, "joint axis has zero length", "axis")
    axis = spatial.unit(axis)
    rng = np.asarray(node.get("range", [0.0, 0.0]), float)
    limited = self.limited(node, "limited", "range")
    if jtype in (1, 3) and limited:
      # MuJoCo converts the range of limited angular joints only; an unused range keeps its units.
      rng = np.array([self.cfg.angle(r) for r in rng])
    if limited and jtype == 0:
      fail(node, "a free joint cannot be limited", "limited")
    if limited and not range_ok(rng):
      fail(node, f"limited joint needs {RANGE_RULE}, got {plain(node.get('range', [0, 0]))}",
           "range")
    actfrcrange = np.asarray(node.get("actuatorfrcrange", [0.0, 0.0]), float)
    # MuJoCo: free and ball joints have no joint-level actuator force limit, whatever is given
    actfrclimited = jtype in (2, 3) and self.limited(node, "actuatorfrclimited", "actuatorfrcrange")
    if actfrclimited and not range_ok(actfrcrange):
      fail(node, f"actuator force limited joint needs {RANGE_RULE}, got "
           f"{plain(node.get('actuatorfrcrange', [0, 0]))}", "actuatorfrcrange")
    ref = node.get("ref", 0.0)
    springref = node.get("springref", 0.0)
    if jtype == 3:
      ref, springref = self.cfg.angle(ref), self.cfg.angle(springref)
    jntid = self.add(ObjType.JOINT, node, jnt_type=jtype, jnt_bodyid=bodyid, jnt_group=node.get("group", 0),
                     jnt_limited=int(limited), jnt_pos=jpos if jtype else np.zeros(3), jnt_axis=axis if jtype else np.array([0.0, 0.0, 1.0]),
                     jnt_stiffness=linear(node, "stiffness"), jnt_range=rng,
                     jnt_margin=node.get("margin", 0.0), jnt_solref=node.get("solreflimit", SOLREF),
                     jnt_solimp=node.get("solimplimit", SOLIMP), jnt_actfrclimited=int(actfrclimited),
                     jnt_actfrcrange=actfrcrange, jnt_actgravcomp=int(node.get("actuatorgravcomp", False)))
    info["joints"].append(dict(id=jntid, type=jtype, ref=ref, springref=springref, node=node))
    timeconst, dampratio = node.get("springdamper", [0.0, 0.0])
    if timeconst or dampratio:
      if not (timeconst > 0 and dampratio > 0):
        fail(node, f"springdamper (timeconst, dampratio) must both be positive when given, got "
             f"{plain([timeconst, dampratio])}", "springdamper")
      self.springdamper_jobs.append((jntid, timeconst, dampratio))

  def geom(self, node, bodyid):
    gtype = node.get("type", "sphere")
    if gtype == "sdf":
      fail(node, f"geom type '{gtype}' is not supported (unsupported feature)", "type")
    size = list(node.get("size", [0.0, 0.0, 0.0]))
    pos, quat = frames.frame(self.cfg, node)
    if node.has("fromto"):
      pos, quat, size = frames.fromto_frame(node, gtype, size)
    meshid = -1
    # the asset a mesh or height-field geom draws its shape from (and only those geoms name one)
    for kind, objtype, article in (("mesh", ObjType.MESH, "a"), ("hfield", ObjType.HFIELD, "an")):
      if gtype == kind:
        if not node.has(kind):
          fail(node, f"{kind} geom needs {article} '{kind}'", kind)
        meshid = self.lookup(objtype, node, kind)
      elif node.has(kind):
        fail(node, f"'{kind}' given for a geom of type {gtype}", kind)
    self.check_size(node, gtype, size, "geom")
    if gtype == "plane" and bodyid != 0 and self.body_info[bodyid]["joints"]:
      fail(node, "planes can only be attached to static bodies", "type")
    if gtype == "mesh":
      mesh = self.meshes[meshid]
      # The mesh was recentered at its centroid and aligned with its principal axes: move the geom with it, in
      # MuJoCo's arithmetic (mjuu_frameaccum), as the geom's frame feeds the body's inertia and its principal frame.
      pos, quat = spatial.frame_accum(pos, quat, mesh.pos, mesh.quat)
      rb = mesh.rbound
      aabb = np.asarray(mesh.aabb, float)
      volume, unit_inertia = mesh.volume, np.asarray(mesh.inertia) / mesh.volume
      # Half sizes of the box around the mesh that is centered at the geom frame's origin.
      size = list(np.abs(mesh.aabb[:3]) + mesh.aabb[3:])
    elif gtype == "hfield":
      rx, ry, top, bottom = self.hfields[meshid][2]
      # MuJoCo's numbers for a height field: the box from -bottom to top bounds it, and its mass and inertia
      # are those of a box with the half sizes in geom_size.
      size = [rx, ry, 0.5 * (0.5 * top + bottom)]
      rb = spatial.sqrt(rx * rx + ry * ry + max(top, bottom) * max(top, bottom))
      aabb = np.array([0.0, 0.0, 0.5 * (top - bottom), rx, ry, 0.5 * (top + bottom)])
      volume, unit_inertia = spatial.primitive_inertia("box", size)
    elif gtype == "plane":
      rb, volume, unit_inertia = 0.0, 0.0, np.zeros(3)
      # MuJoCo's box for the infinite half-space below a plane.
      aabb = np.array([0.0, 0.0, -5e9, 1e10, 1e10, 5e9])
    else:
      rb = spatial.rbound(gtype, size)
      aabb = np.concatenate([np.zeros(3), spatial.half_extents(gtype, size)])
      volume, unit_inertia = spatial.primitive_inertia(gtype, size)
    if node.has("mass") and not math.isnan(node.get("mass")):
      mass = node.get("mass")
    else:
      # (a NaN mass is MuJoCo's "not given": the density decides)
      mass = node.get("density", 1000.0) * volume
    if mass < 0 or node.get("density", 0.0) < 0:
      fail(node, "mass and density must be non-negative", "mass" if node.has("mass") else "density")
    pos, quat = frames.in_frames(self.cfg, node, pos, quat)
    friction = node.get("friction", [1.0, 0.005, 0.0001])
    matid = self.lookup(ObjType.MATERIAL, node, "material") if node.get("material") else -1
    group = node.get("group", 0)
    geomid = self.add(
        ObjType.GEOM, node, geom_type=_GEOM_TYPES[gtype], geom_contype=node.get("contype", 1),
        geom_conaffinity=node.get("conaffinity", 1), geom_condim=node.get("condim", 3), geom_bodyid=bodyid,
        geom_dataid=meshid, geom_matid=matid, geom_group=group, geom_priority=node.get("priority", 0),
        geom_solmix=node.get("solmix", 1.0), geom_solref=node.get("solref", SOLREF),
        geom_solimp=node.get("solimp", SOLIMP), geom_size=size, geom_rbound=rb, geom_pos=pos,
        geom_quat=quat, geom_friction=friction, geom_margin=node.get("margin", 0.0),
        geom_gap=node.get("gap", 0.0), geom_aabb=aabb, geom_rgba=node.get("rgba", [0.5, 0.5, 0.5, 1.0]))
    condim = node.get("condim", 3)
    if condim not in (1, 3, 4, 6):
      fail(node, f"condim must be 1, 3, 4 or 6, got {condim}", "condim")
    lo, hi = self.cfg.inertiagrouprange
    if gtype != "plane" and lo <= group <= hi:
      self.body_info[bodyid]["geoms"].append(dict(id=geomid, mass=mass, pos=pos, quat=quat,
                                                  inertia=mass * unit_inertia))

  @staticmethod
  def check_size(node, gtype, size, what):
    """MuJoCo's size checks: no NaN; the sizes a primitive uses positive; a plane's grid spacing positive."""
    if what == "geom" and any(math.isnan(x) for x in size):
      fail(node, f"{what} size must not be NaN, got {plain(size)}", "size")
    if gtype == "plane":
      if not size[2] > 0:
        fail(node, f"plane size 2 (grid spacing) must be positive, got {plain(size[2])}", "size")
      return
    need = {"sphere": 1, "capsule": 2, "cylinder": 2, "ellipsoid": 3, "box": 3}.get(gtype, 0)
    for i in range(need):
      # (MuJoCo lets a NaN site size through)
      if not size[i] > 0 and not (what == "site" and math.isnan(size[i])):
        fail(node, f"size {i} must be positive for a {gtype}, got {plain(size[i])}", "size")

  def site(self, node, bodyid):
    stype = node.get("type", "sphere")
    size = list(node.get("size", [0.005] * 3))
    pos, quat = frames.frame(self.cfg, node)
    if node.has("fromto"):
      pos, quat, size = frames.fromto_frame(node, stype, size)
    pos, quat = frames.in_frames(self.cfg, node, pos, quat)
    self.check_size(node, stype, size, "site")
    self.add(ObjType.SITE, node, site_type=_GEOM_TYPES[stype], site_bodyid=bodyid,
             site_group=node.get("group", 0), site_size=size, site_pos=pos, site_quat=quat,
             site_rgba=node.get("rgba", [0.5, 0.5, 0.5, 1.0]),
             site_matid=self.lookup(ObjType.MATERIAL, node, "material") if node.get("material") else -1)

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
    pos, quat = frames.in_frames(self.cfg, node, *frames.frame(self.cfg, node))
    if node.get("fovy", 45.0) >= 180:
      fail(node, f"fovy must be below 180 degrees, got {node.get('fovy')}", "fovy")
    self.add(ObjType.CAMERA, node, cam_mode=_CAMLIGHT_MODES[node.get("mode", "fixed")], cam_bodyid=bodyid,
             cam_targetbodyid=node, cam_pos=pos, cam_quat=quat, cam_fovy=node.get("fovy", 45.0),
             cam_ipd=node.get("ipd", 0.068))

  def light(self, node, bodyid):
    direction = np.asarray(node.get("dir", [0.0, 0.0, -1.0]), float)
    pos = np.asarray(node.get("pos", [0.0] * 3), float)
    composed = frames.frames(self.cfg, node)
    if composed is not None:
      pos, direction = composed[0] + spatial.rotate(composed[1], pos), spatial.rotate(composed[1], direction)
    norm = np.linalg.norm(direction)
    if norm < 1e-15:
      fail(node, "light direction has zero length", "dir")
    if node.has("directional") and node.has("type"):
      fail(node, "give either 'directional' or 'type', not both", "directional")
    ltype = _LIGHT_TYPES[node.get("type", "directional" if node.get("directional", False) else "spot")]
    self.add(ObjType.LIGHT, node, light_mode=_CAMLIGHT_MODES[node.get("mode", "fixed")], light_bodyid=bodyid,
             light_targetbodyid=node, light_type=ltype,
             light_castshadow=int(node.get("castshadow", True)), light_active=int(node.get("active", True)),
             light_pos=pos, light_dir=direction / norm,
             light_attenuation=node.get("attenuation", [1.0, 0.0, 0.0]), light_cutoff=node.get("cutoff", 45.0),
             light_exponent=node.get("exponent", 10.0), light_ambient=node.get("ambient", [0.0] * 3),
             light_diffuse=node.get("diffuse", [0.7] * 3), light_specular=node.get("specular", [0.3] * 3))

  # ---- assets ----

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
      elif mode != "false" and any(_counts(g) for g in info["geoms"]):
        # MuJoCo leaves geoms of (nearly) no mass out of the body's inertia: one other geom gives its frame
        mass[b], ipos[b], iquat[b], inertia[b] = self.geom_inertia([g for g in info["geoms"] if _counts(g)])
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
    quat = frames.orientation(self.cfg, node)
    if node.has("fullinertia"):
      if node.has("diaginertia"):
        fail(node, "give either diaginertia or fullinertia, not both", "fullinertia")
      orient = [a for a in frames.ORIENTATIONS if node.has(a)]
      if orient:
        fail(node, f"give either fullinertia or an orientation ({orient[0]}), not both", "fullinertia")
      xx, yy, zz, xy, xz, yz = node.get("fullinertia")
      tensor = np.array([[xx, xy, xz], [xy, yy, yz], [xz, yz, zz]])
      if not np.all(np.isfinite(tensor)):
        fail(node, f"fullinertia must be finite, got {plain(node.get('fullinertia'))}", "fullinertia")
      values, rot = spatial.principal_frame(tensor)
      # MuJoCo's test: the smallest eigenvalue at least mjEPS
      if values[2] < EPS:
        fail(node, f"fullinertia {plain(node.get('fullinertia'))} is not positive definite (its smallest "
             f"eigenvalue is {plain(values[2])})", "fullinertia")
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
    """Mass, center, principal frame and moments of a body made of the given geoms, summed as MuJoCo sums them
    (mjCBody::InertiaFromGeom): the same roundoff gives the same tensor, hence the same principal frame where the
    moments are nearly equal and any rounding would pick another of the equivalent frames."""
    if len(geoms) == 1:
      g = geoms[0]
      return g["mass"], g["pos"], g["quat"], g["inertia"]
    total, com = 0.0, [0.0, 0.0, 0.0]
    for g in geoms:
      mass, pos = float(g["mass"]), [float(x) for x in g["pos"]]
      total += mass
      com = [com[k] + mass * pos[k] for k in range(3)]
    if total < MINVAL:
      return total, np.zeros(3), spatial.IDENTITY_QUAT.copy(), np.zeros(3)
    com = [c / total for c in com]
    tensor = [0.0] * 6
    for g in geoms:
      own = spatial.global_inertia(g["inertia"], g["quat"])
      shift = spatial.offcenter_inertia(float(g["mass"]), [float(g["pos"][k]) - com[k] for k in range(3)])
      tensor = [tensor[j] + own[j] + shift[j] for j in range(6)]
    tensor = spatial.tensor_from6(tensor)
    com = np.array(com)
    if not np.all(np.isfinite(tensor)):
      # geoms too large or too far apart for double precision: MuJoCo's mass test rejects the body
      return total, com, spatial.IDENTITY_QUAT.copy(), np.full(3, np.nan)
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
    self.subtree_com = np.where(subtree_mass[:, None] > MINVAL, weighted / np.maximum(subtree_mass, MINVAL)[:, None],
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
          damping.append(linear(node, "damping"))
          frictionloss.append(node.get("frictionloss", 0.0))
          dof_solref.append(node.get("solreffriction", SOLREF))
          dof_solimp.append(node.get("solimpfriction", SOLIMP))
      dofnum[b] = len(dof_bodyid) - dofadr[b] if joints else 0
      last_dof[b] = prev
    self.rootid = rootid
    self.check_masses(weldid)
    body_sameframe = [frames.sameframe(self.ipos[b], self.iquat[b]) for b in range(nbody)]
    nq, nv = len(qpos0), len(dof_bodyid)
    self.qpos0 = np.array(qpos0, float)
    self.qpos_spring = np.array(qpos_spring, float)
    v.update(nq=nq, nv=nv, nbody=nbody, nmocap=nmocap, qpos0=self.qpos0, qpos_spring=qpos_spring,
             body_rootid=rootid, body_weldid=weldid, body_mocapid=mocapid, body_jntadr=jntadr,
             body_jntnum=jntnum, body_dofadr=dofadr, body_dofnum=dofnum, body_ipos=self.ipos,
             body_iquat=self.iquat, body_mass=self.mass, body_inertia=self.body_inertia,
             body_subtreemass=self.subtree_mass, body_sameframe=body_sameframe,
             body_simple=self.simple_bodies(parent, dofnum, body_sameframe), jnt_qposadr=jnt_qposadr,
             jnt_dofadr=jnt_dofadr,
             dof_bodyid=dof_bodyid, dof_jntid=dof_jntid, dof_parentid=dof_parentid, dof_armature=armature,
             dof_damping=damping, dof_frictionloss=frictionloss, dof_solref=dof_solref, dof_solimp=dof_solimp)
    v["dof_Madr"], v["nM"] = containers.dof_madr(np.array(dof_parentid, np.int32))
    v["dof_treeid"] = containers.dof_treeid(np.array(dof_parentid, np.int32))
    v.update(containers.trees(v["dof_treeid"], weldid, dofadr, dofnum))
    geom_bodyid = np.array(self.rows.get("geom_bodyid", []), np.int32)
    geomadr, geomnum = np.full(nbody, -1, np.int32), np.bincount(geom_bodyid, minlength=nbody).astype(np.int32)
    for g in range(len(geom_bodyid) - 1, -1, -1):
      geomadr[geom_bodyid[g]] = g
    v.update(body_geomadr=geomadr, body_geomnum=geomnum)
    for kind in ("geom", "site"):
      bodyid, pos, quat = (self.rows.get(f"{kind}_{f}", []) for f in ("bodyid", "pos", "quat"))
      v[f"{kind}_sameframe"] = [frames.sameframe(pos[i], quat[i], self.ipos[b], self.iquat[b])
                                for i, b in enumerate(bodyid)]
    self.jnt_qposadr = np.array(jnt_qposadr, np.int32)
    self.jnt_dofadr = np.array(jnt_dofadr, np.int32)
    self.camlight(v)
    self.tendons(v)
    self.actuators(v)
    self.equality(v)
    self.contact(v)
    self.sensors(v)
    self.options(v)
    self.visual(v)
    v.update(self.keyframes(v))
    for key, rows in self.rows.items():
      if key not in v:
        v[key] = np.array(rows)
    counts = {ObjType.JOINT: "njnt", ObjType.GEOM: "ngeom", ObjType.SITE: "nsite", ObjType.CAMERA: "ncam",
              ObjType.LIGHT: "nlight", ObjType.MESH: "nmesh", ObjType.HFIELD: "nhfield", ObjType.MATERIAL: "nmat",
              ObjType.TEXTURE: "ntex", ObjType.TENDON: "ntendon", ObjType.ACTUATOR: "nu", ObjType.EQUALITY: "neq",
              ObjType.PAIR: "npair", ObjType.EXCLUDE: "nexclude", ObjType.KEY: "nkey"}
    for objtype, size in counts.items():
      v.setdefault(size, len(self.names[objtype]))
    # Row lists of object types with no objects come out empty; give them their table shape.
    for key in list(v):
      if isinstance(v[key], np.ndarray) and v[key].size == 0:
        del v[key]
    meshes.mesh_fields(self, v)
    meshes.hfield_fields(self, v)
    assets.texture_fields(self, v)
    v["nconmax"] = self.nconmax(v)
    v["njmax"] = self.njmax(v)
    # The dual solvers (PGS, noslip) keep A + R for this many rows and recompute entries past it: room for
    # large problems when the model asks for them, for typical ones when a user switches solver at run time.
    dual = v["opt_solver"] == int(types.SolverType.PGS) or v["opt_noslip_iterations"] > 0
    v["narmax"] = min(v["njmax"], types.NARMAX if dual else types.NARMAX // 4)
    return v

  def size_option(self, attr):
    """(value, element) of a <size> attribute, the last one given; (None, None) if none."""
    found = None, None
    for node in self.root.all("size"):
      if node.has(attr):
        found = node.get(attr), node
    return found

  def check_sizes(self):
    """<size> attributes as MuJoCo checks them (-1 means the default), and mjgym's bounds on the ones that
    set how much memory a model or its data preallocates."""
    for node in self.root.all("size"):
      for attr in ("nconmax", "njmax", "nstack", "nkey", "nuser_body", "nuser_jnt", "nuser_geom", "nuser_site",
                   "nuser_cam", "nuser_tendon", "nuser_actuator", "nuser_sensor"):
        if node.get(attr, 0) < -1:
          fail(node, f"{attr} must be >= -1, got {node.get(attr)}", attr)
      for attr in ("nuserdata",):
        if node.get(attr, 0) < 0:
          fail(node, f"{attr} must be non-negative, got {node.get(attr)}", attr)
      if node.get("nconmax", 0) > MAX_NCONMAX:
        fail(node, f"nconmax {node.get('nconmax')} is larger than mjgym's bound of {MAX_NCONMAX} contacts",
             "nconmax")
      if node.get("njmax", 0) > MAX_NJMAX:
        fail(node, f"njmax {node.get('njmax')} is larger than mjgym's bound of {MAX_NJMAX} constraint rows",
             "njmax")
      if node.get("nkey", 0) > MAX_NKEY:
        fail(node, f"nkey {node.get('nkey')} is larger than mjgym's bound of {MAX_NKEY} keyframes", "nkey")
      if node.has("memory") and not _MEMORY.match(node.get("memory").strip()):
        fail(node, "expected an unsigned integer with an optional suffix K, M, G, T, P or E (or -1), got "
             f"'{node.get('memory')}'", "memory")

  def nconmax(self, v):
    """Contact capacity per world: ``<size nconmax>`` when given, else enough for a pile of the model's geoms."""
    value, _ = self.size_option("nconmax")
    if value is not None and value > 0:
      return value
    types_ = np.atleast_1d(v.get("geom_type", []))
    nhf = int(np.count_nonzero(types_ == int(types.GeomType.HFIELD)))
    # A height field makes up to MAXCONPAIR contacts with every other geom it touches.
    return default_nconmax(v.get("ngeom", 0)) + types.MAXCONPAIR * nhf * (len(types_) - nhf)

  def njmax(self, v):
    """Constraint-row capacity: ``<size njmax>`` when given, else every possible non-contact row plus the
    rows of nconmax contacts of the model's largest condim under either cone."""
    value, node = self.size_option("njmax")
    if value is not None and value > 0:
      if value * max(v["nv"], 1) > MAX_EFC_J:
        fail(node, f"njmax {value} rows of {v['nv']} dofs need a constraint Jacobian larger than mjgym's bound of "
             f"{MAX_EFC_J} entries", "njmax")
      return value
    rows = {0: 3, 1: 6}  # connect, weld; joint and tendon couplings take one row
    n = sum(rows.get(int(t), 1) for t in np.atleast_1d(v.get("eq_type", [])))
    n += int(np.count_nonzero(v.get("dof_frictionloss", [])))
    n += int(np.count_nonzero(v.get("tendon_frictionloss", [])))
    n += 2 * int(np.count_nonzero(v.get("jnt_limited", []))) + 2 * int(np.count_nonzero(v.get("tendon_limited", [])))
    condims = list(np.atleast_1d(v.get("geom_condim", []))) + list(np.atleast_1d(v.get("pair_dim", [])))
    condim = int(max(condims)) if condims else 1
    return max(1, n + v["nconmax"] * max(condim, 2 * (condim - 1)))

  def simple_bodies(self, parent, dofnum, sameframe):
    """MuJoCo's body_simple: 1 for a leaf body whose mass matrix block is diagonal, 2 if it only slides.

    Simple: inertial frame on the body frame, parent the world or a static child of the world, no child bodies,
    joints at the body origin with hinge and slide axes along a body axis, and no joint after a rotational
    one; ``simple="false"`` opts out. Its constraint weights are then taken from its mass alone (set_const).
    """
    nbody = len(parent)
    simple = np.zeros(nbody, np.int32)
    for b in range(nbody):
      p = parent[b]
      root_like = b == 0 or p == 0 or (parent[p] == 0 and dofnum[p] == 0)
      opted_out = b > 0 and self.body_info[b]["node"].get("simple", "auto") == "false"
      simple[b] = sameframe[b] == types.SameFrame.BODY and root_like and not opted_out
    # a parent is never simple, except the world
    parents = parent[1:]
    simple[parents[parents > 0]] = 0
    jnt_type, jnt_pos, jnt_axis = (self.rows.get(f"jnt_{f}", []) for f in ("type", "pos", "axis"))
    for b in range(1, nbody):
      joints = [j["id"] for j in self.body_info[b]["joints"]]
      rotation_before = False
      for j in joints:
        aligned = np.count_nonzero(np.abs(jnt_axis[j]) > EPS) == 1
        if (rotation_before or not frames.same_vec(jnt_pos[j], np.zeros(3))
            or (jnt_type[j] in (_JOINT_TYPES["slide"], _JOINT_TYPES["hinge"]) and not aligned)):
          simple[b] = 0
        rotation_before = rotation_before or jnt_type[j] in (_JOINT_TYPES["ball"], _JOINT_TYPES["hinge"])
      if simple[b] and joints:
        simple[b] = 2 if all(jnt_type[j] == _JOINT_TYPES["slide"] for j in joints) else 1
    return simple

  def check_masses(self, weldid):
    for b in range(1, len(self.body_info)):
      info = self.body_info[b]
      if info["joints"] and not (self.mass[b] >= MINVAL and np.all(self.body_inertia[b] >= MINVAL)):
        # A massless body on joints is allowed when its welded children carry the mass (MuJoCo's rule).
        children = [c for c in range(b + 1, len(self.body_info)) if weldid[c] == b]
        if not children:
          what = ("mass and inertia of moving bodies must be larger than 1e-15 (add geoms, an <inertial>, or "
                  "compiler boundmass/boundinertia)")
          if np.isnan(self.mass[b]) or np.any(np.isnan(self.body_inertia[b])):
            what = (f"mass {plain(self.mass[b])} and inertia {plain(self.body_inertia[b])} of a moving body must "
                    "be numbers larger than 1e-15 (NaN from a NaN mass, density, size or position, or geoms too "
                    "large or far apart)")
          fail(info["node"], what)
      a = self.body_inertia[b]
      tol = 1e-12 * max(1.0, float(a.max())) if np.all(np.isfinite(a)) else 0.0
      if a[0] + a[1] < a[2] - tol or a[0] + a[2] < a[1] - tol or a[1] + a[2] < a[0] - tol:
        node = info["inertial"] or info["node"]
        fail(node, f"principal inertia {plain(a)} violates A + B >= C (use compiler balanceinertia='true')")

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
        length0 = spring_length = 0.0
        adr.append(len(wtype))
        if node.tag == "spatial":
          path = self.spatial_path(node)
          num.append(len(path))
          for row in path:
            wtype.append(row[0])
            wobj.append(row[1])
            wprm.append(row[2])
        joints = node.all("joint") if node.tag == "fixed" else []
        if node.tag == "fixed" and not joints:
          fail(node, "a fixed tendon needs at least one <joint>")
        if node.tag == "fixed":
          num.append(len(joints))
        for jn in joints:
          for attr in ("joint", "coef"):
            if not jn.has(attr):
              fail(jn, "required attribute missing", attr)
          j = self.lookup(ObjType.JOINT, jn, "joint")
          if j in wobj[adr[-1]:]:
            fail(jn, f"joint '{jn.get('joint')}' is repeated in the fixed tendon", "joint")
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
        if limited and not range_ok(rng):
          fail(node, f"limited tendon needs {RANGE_RULE}, got {plain(rng)}", "range")
        spring = node.get("springlength", [-1.0, -1.0])
        if len(spring) == 1:
          spring = [spring[0], spring[0]]
        if spring[0] > spring[1]:
          fail(node, "springlength needs a lower end <= the upper end", "springlength")
        if spring[0] == -1.0 and spring[1] == -1.0 and node.tag == "fixed":
          # No spring length given: the tendon's length in the spring reference configuration (for
          # spatial tendons that needs kinematics, done once the model exists: see setconst).
          spring = [spring_length, spring_length]
        if node.tag == "spatial" and not node.get("width", 0.003) > 0:
          fail(node, f"a spatial tendon needs a positive width, got {node.get('width')}", "width")
        self.add(ObjType.TENDON, node, tendon_limited=int(limited), tendon_range=rng,
                 tendon_solref_lim=node.get("solreflimit", SOLREF),
                 tendon_solimp_lim=node.get("solimplimit", SOLIMP),
                 tendon_solref_fri=node.get("solreffriction", SOLREF),
                 tendon_solimp_fri=node.get("solimpfriction", SOLIMP), tendon_margin=node.get("margin", 0.0),
                 tendon_stiffness=linear(node, "stiffness"), tendon_damping=linear(node, "damping"),
                 tendon_frictionloss=node.get("frictionloss", 0.0), tendon_lengthspring=spring,
                 tendon_length0=length0, tendon_group=node.get("group", 0),
                 tendon_matid=self.lookup(ObjType.MATERIAL, node, "material") if node.get("material") else -1,
                 tendon_width=node.get("width", 0.003), tendon_rgba=node.get("rgba", [0.5, 0.5, 0.5, 1.0]))
    v.update(nwrap=len(wtype), tendon_adr=np.array(adr, np.int32), tendon_num=np.array(num, np.int32),
             wrap_type=np.array(wtype, np.int32), wrap_objid=np.array(wobj, np.int32),
             wrap_prm=np.array(wprm, float))

  def spatial_path(self, node):
    """(wrap type, object id, parameter) rows of a spatial tendon's path, checked for MuJoCo's rules.

    The path starts and ends with a site; a wrapping geom (sphere or cylinder, parameter = its side
    site or -1) sits between two sites; a pulley (parameter = divisor) starts a new branch after a site.
    """
    rows = []
    for el in node.children:
      if el.tag == "site":
        if not el.has("site"):
          fail(el, "required attribute missing", "site")
        rows.append((int(types.WrapType.SITE), self.lookup(ObjType.SITE, el, "site"), 0.0))
      elif el.tag == "geom":
        if not el.has("geom"):
          fail(el, "required attribute missing", "geom")
        g = self.lookup(ObjType.GEOM, el, "geom")
        gtype = self.rows["geom_type"][g]
        if gtype not in (int(types.GeomType.SPHERE), int(types.GeomType.CYLINDER)):
          fail(el, "tendons can only wrap around spheres and cylinders", "geom")
        side = self.lookup(ObjType.SITE, el, "sidesite") if el.has("sidesite") else -1
        wtype = types.WrapType.SPHERE if gtype == int(types.GeomType.SPHERE) else types.WrapType.CYLINDER
        rows.append((int(wtype), g, float(side)))
      else:
        divisor = el.get("divisor", 0.0)
        if not divisor > 0:
          fail(el, f"pulley divisor must be positive, got {divisor}", "divisor")
        rows.append((int(types.WrapType.PULLEY), -1, divisor))
    site, pulley = int(types.WrapType.SITE), int(types.WrapType.PULLEY)
    kinds = [r[0] for r in rows]
    if len(kinds) < 2:
      fail(node, "a spatial tendon needs at least two path elements")
    if kinds[0] != site or kinds[-1] != site:
      fail(node, "a spatial tendon's path must start and end with a site")
    for k, kind in enumerate(kinds):
      # MuJoCo's rules: a site has a neighbour that is not a pulley, and is not the same site as the next one
      if kind == site and (k == 0 or kinds[k - 1] == pulley) and (k == len(kinds) - 1 or kinds[k + 1] == pulley):
        fail(node.children[k], "a site in a spatial tendon needs a neighbour that is not a pulley")
      if kind == site and k + 1 < len(kinds) and kinds[k + 1] == site and rows[k][1] == rows[k + 1][1]:
        fail(node.children[k + 1], "the same site twice in a row in a spatial tendon", "site")
    for k in range(1, len(kinds) - 1):
      if kinds[k] not in (site, pulley) and (kinds[k - 1] != site or kinds[k + 1] != site):
        fail(node.children[k], "a wrapping geom must sit between two sites")
      if kinds[k] == pulley and (kinds[k - 1] != site or kinds[k + 1] != site):
        fail(node.children[k], "a pulley must sit between two sites")
    return rows

  def actuators(self, v):
    na = 0
    for section in self.root.all("actuator"):
      for node in section.children:
        p = _actuator_params(node)
        trntype, trnid = self.transmission(node)
        length0 = 0.0  # set from the kinematics at qpos0 (setconst)
        gear = list(node.get("gear", [1.0, 0, 0, 0, 0, 0]))
        limits = {}
        for kind in ("ctrl", "force", "act"):
          lim = self.limited(node, f"{kind}limited", f"{kind}range")
          rng = node.get(f"{kind}range", [0.0, 0.0])
          if lim and not range_ok(rng):
            fail(node, f"invalid {kind}range {plain(rng)}: needs {RANGE_RULE}",
                 f"{kind}range")
          limits[kind] = (int(lim), rng)
        if p["dyntype"] == 5 or p["gaintype"] == 3 or p["biastype"] == 3:
          fail(node, "user actuator dynamics/gain/bias are not supported (unsupported feature)", "dyntype")
        self.shortcut_limits(node, p, trntype, trnid, limits)
        lengthrange, simulate = self.lengthrange(node, p, trntype, trnid)
        actdim = node.get("actdim", -1)
        actnum = (1 if p["dyntype"] else 0) if actdim < 0 else actdim
        if actnum > 1 or (actnum == 1 and not p["dyntype"]) or (actnum == 0 and p["dyntype"]):
          fail(node, f"actdim {actdim} does not fit dyntype", "actdim")
        actid = self.add(ObjType.ACTUATOR, node, actuator_trntype=trntype, actuator_dyntype=p["dyntype"],
                         actuator_gaintype=p["gaintype"], actuator_biastype=p["biastype"], actuator_trnid=trnid,
                         actuator_actadr=na if actnum else -1, actuator_actnum=actnum,
                         actuator_group=node.get("group", 0),
                         actuator_ctrllimited=limits["ctrl"][0], actuator_forcelimited=limits["force"][0],
                         actuator_actlimited=limits["act"][0], actuator_actearly=int(p["actearly"]),
                         actuator_dynprm=p["dynprm"], actuator_gainprm=p["gainprm"], actuator_biasprm=p["biasprm"],
                         actuator_ctrlrange=limits["ctrl"][1], actuator_forcerange=limits["force"][1],
                         actuator_actrange=limits["act"][1], actuator_gear=gear,
                         actuator_cranklength=node.get("cranklength", 0.0), actuator_length0=length0 * gear[0],
                         actuator_lengthrange=lengthrange)
        if simulate:
          self.lengthrange_jobs.append((actid, node))
        na += actnum
    v["na"] = na

  def transmission(self, node):
    """(trntype, [id, second id]) of an actuator's transmission, exactly one of which must be given."""
    given = [a for a in ("joint", "jointinparent", "tendon", "site", "cranksite", "body") if node.has(a)]
    if len(given) != 1:
      fail(node, "needs exactly one transmission: 'joint', 'jointinparent', 'tendon', 'site', 'cranksite' "
           "or 'body'", given[1] if given else "joint")
    kind = given[0]
    for attr, owner in (("refsite", "site"), ("slidersite", "cranksite")):
      if node.has(attr) and kind != owner:
        fail(node, f"'{attr}' goes with a '{owner}' transmission", attr)
    if kind in ("joint", "jointinparent"):
      trntype = types.TrnType.JOINT if kind == "joint" else types.TrnType.JOINTINPARENT
      return int(trntype), [self.lookup(ObjType.JOINT, node, kind), -1]
    if kind == "tendon":
      return int(types.TrnType.TENDON), [self.lookup(ObjType.TENDON, node, "tendon"), -1]
    if kind == "site":
      ref = self.lookup(ObjType.SITE, node, "refsite") if node.has("refsite") else -1
      return int(types.TrnType.SITE), [self.lookup(ObjType.SITE, node, "site"), ref]
    if kind == "cranksite":
      if not node.has("slidersite"):
        fail(node, "a slider-crank needs 'slidersite'", "slidersite")
      if not node.get("cranklength", 0.0) > 0:
        fail(node, "a slider-crank needs a positive 'cranklength'", "cranklength")
      return int(types.TrnType.SLIDERCRANK), [self.lookup(ObjType.SITE, node, "cranksite"),
                                              self.lookup(ObjType.SITE, node, "slidersite")]
    return int(types.TrnType.BODY), [self.lookup(ObjType.BODY, node, "body"), -1]

  def lengthrange(self, node, p, trntype, trnid):
    """(actuator_lengthrange, whether to simulate for it) under <compiler><lengthrange>.

    As given (useexisting), the transmission's joint or tendon limits (uselimit), or, for the actuators
    ``mode`` selects, found by simulating the model once it is compiled (setconst.lengthrange).
    """
    given = list(node.get("lengthrange", [0.0, 0.0]))
    settings = self.lengthrange_settings()
    mode = settings["mode"]
    # MuJoCo selects muscles by their gain or bias type (a muscle-type activation alone does not count)
    muscle = p["gaintype"] == int(types.GainType.MUSCLE) or p["biastype"] == int(types.BiasType.MUSCLE)
    if mode == "none" or (mode in ("muscle", "muscleuser") and not muscle):
      return given, False
    if settings["useexisting"] and given[0] < given[1]:
      return given, False
    if settings["uselimit"]:
      if trntype in (int(types.TrnType.JOINT), int(types.TrnType.JOINTINPARENT)):
        if self.rows["jnt_limited"][trnid[0]] and self.rows["jnt_type"][trnid[0]] in (2, 3):
          # MuJoCo takes the limits as they are, without the gear
          return list(self.rows["jnt_range"][trnid[0]]), False
      elif trntype == int(types.TrnType.TENDON) and self.rows["tendon_limited"][trnid[0]]:
        return list(self.rows["tendon_range"][trnid[0]]), False
    return [0.0, 0.0], True

  def lengthrange_settings(self):
    """The <compiler><lengthrange> options with MuJoCo's defaults, checked once."""
    if self.lengthrange_options is None:
      settings = dict(mode="muscle", useexisting=True, uselimit=False, accel=20.0, maxforce=0.0, timeconst=1.0,
                      timestep=0.01, inttotal=10.0, interval=2.0, tolrange=0.05)
      for comp in self.root.all("compiler"):
        for lr in comp.all("lengthrange"):
          settings.update(lr.attrs)
          for attr in ("accel", "timeconst", "inttotal", "interval", "tolrange"):
            if lr.has(attr) and not settings[attr] > 0:
              fail(lr, f"{attr} must be positive, got {settings[attr]}", attr)
          for attr in ("maxforce", "timestep"):
            if lr.has(attr) and not settings[attr] >= 0:
              fail(lr, f"{attr} must be non-negative, got {settings[attr]}", attr)
      self.lengthrange_options = settings
    return self.lengthrange_options

  def shortcut_limits(self, node, p, trntype, trnid, limits):
    """Ranges the shortcuts fix or require: inheritrange, intvelocity's actrange, damper/adhesion controls."""
    kind = p["kind"]
    # only the shortcuts that take it read inheritrange (a <motor> of a class whose <position> default sets it
    # keeps its own ctrlrange, as in MuJoCo)
    inherit = p.get("inheritrange", 0.0) if kind in ("position", "intvelocity") else 0.0
    if inherit > 0:
      if trntype in (int(types.TrnType.JOINT), int(types.TrnType.JOINTINPARENT)):
        j = trnid[0]
        if self.rows["jnt_type"][j] not in (2, 3) or not self.rows["jnt_limited"][j]:
          fail(node, "inheritrange needs a limited hinge or slide joint", "inheritrange")
        rng = self.rows["jnt_range"][j]
      elif trntype == int(types.TrnType.TENDON) and self.rows["tendon_limited"][trnid[0]]:
        rng = self.rows["tendon_range"][trnid[0]]
      else:
        fail(node, "inheritrange needs a limited joint or tendon transmission", "inheritrange")
      mid, half = 0.5 * (rng[0] + rng[1]), 0.5 * inherit * (rng[1] - rng[0])
      which = "act" if kind == "intvelocity" else "ctrl"
      if node.has(f"{which}range"):
        fail(node, f"give either inheritrange or {which}range", "inheritrange")
      limits[which] = (1, [mid - half, mid + half])
    if kind == "intvelocity" and not limits["act"][0]:
      fail(node, "intvelocity needs actrange (actlimited)", "actrange")
    if kind in ("damper", "adhesion"):
      lim, rng = limits["ctrl"]
      if not lim or rng[0] < 0:
        fail(node, f"<{kind}> needs a non-negative ctrlrange", "ctrlrange")
    if kind == "adhesion" and trntype != int(types.TrnType.BODY):
      fail(node, "<adhesion> acts through a 'body'", "body")

  def equality(self, v):
    for section in self.root.all("equality"):
      for node in section.children:
        kind = node.tag
        # MuJoCo's starting values for every type: a unit slope and a unit torque-to-force ratio
        data = np.zeros(_NEQDATA)
        data[1] = 1.0
        data[10] = 1.0
        if kind in ("connect", "weld"):
          objtype, o1, o2 = self.equality_objects(node, kind)
          if objtype == ObjType.SITE and kind == "connect":
            data[:] = 0.0  # the sites are the anchors: nothing to store
          elif kind == "connect":
            data[:3] = node.get("anchor")  # data[3:6], its place on body2 at qpos0, comes from set_const
          else:
            if objtype == ObjType.BODY:
              data[:3] = node.get("anchor", [0.0] * 3)
              data[3:10] = node.get("relpose", [0.0] * 7)
              if np.all(data[6:10] == 0.0):
                data[_EQ_RELPOSE_FROM_QPOS0] = 1.0  # set_const fills data[3:10] with the pose at qpos0
              else:
                data[6:10] = mjmath.normalize4(data[6:10])  # as the engine normalizes
            data[10] = node.get("torquescale", 1.0)
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
                 eq_objtype=int(objtype), eq_active0=int(node.get("active", True)),
                 eq_solref=node.get("solref", SOLREF), eq_solimp=node.get("solimp", SOLIMP), eq_data=data)

  def equality_objects(self, node, kind):
    """(objtype, id1, id2) of a connect or weld: two sites, or body1 and body2 (the world if not given)."""
    body_attrs = ("body1", "body2", "anchor") + (("relpose",) if kind == "weld" else ())
    given_site = [a for a in ("site1", "site2") if node.has(a)]
    given_body = [a for a in body_attrs if node.has(a)]
    if given_site and given_body:
      fail(node, f"give either site1 and site2 or {', '.join(body_attrs)}, not both", given_body[0])
    if given_site:
      for attr in ("site1", "site2"):
        if not node.has(attr):
          fail(node, "required attribute missing (a site-based constraint needs site1 and site2)", attr)
      objtype = ObjType.SITE
      ids = self.lookup(objtype, node, "site1"), self.lookup(objtype, node, "site2")
    else:
      for attr in ("body1",) + (("anchor",) if kind == "connect" else ()):
        if not node.has(attr):
          fail(node, "required attribute missing (give body1" + (" and anchor" if kind == "connect" else "")
               + ", or site1 and site2)", attr)
      objtype = ObjType.BODY
      ids = self.lookup(objtype, node, "body1"), self.lookup(objtype, node, "body2") if node.has("body2") else 0
    if ids[0] == ids[1]:
      attr = "site2" if objtype == ObjType.SITE else "body2" if node.has("body2") else "body1"
      fail(node, f"the constraint joins {objtype.name.lower()} {ids[0]} to itself", attr)
    return objtype, ids[0], ids[1]

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
        if node.get("condim", 3) not in (1, 3, 4, 6):
          fail(node, f"condim must be 1, 3, 4 or 6, got {node.get('condim')}", "condim")
        pairs.append((node, dict(pair_dim=node.get("condim", 3), pair_geom1=g1, pair_geom2=g2,
                 pair_signature=(b1 << 16) + b2, pair_solref=node.get("solref", SOLREF),
                 pair_solreffriction=node.get("solreffriction", [0.0, 0.0]),
                 pair_solimp=node.get("solimp", SOLIMP), pair_margin=node.get("margin", 0.0),
                 pair_gap=node.get("gap", 0.0), pair_friction=node.get("friction", [1.0, 1.0, 0.005, 1e-4, 1e-4]))))
    # MuJoCo orders explicit pairs by their body-pair signature (stable for equal signatures).
    for node, row in sorted(pairs, key=lambda p: p[1]["pair_signature"]):
      self.add(ObjType.PAIR, node, **row)
    excludes = []
    for section in self.root.all("contact"):
      for node in section.all("exclude"):
        for attr in ("body1", "body2"):
          if not node.has(attr):
            fail(node, "required attribute missing", attr)
        b1, b2 = sorted((self.lookup(ObjType.BODY, node, "body1"), self.lookup(ObjType.BODY, node, "body2")))
        excludes.append((node, (b1 << 16) + b2))
    # MuJoCo orders excludes by their signature too (stable for equal signatures)
    for node, signature in sorted(excludes, key=lambda e: e[1]):
      self.add(ObjType.EXCLUDE, node, exclude_signature=signature)

  def visual(self, v):
    """The <visual> settings the renderer uses, with MuJoCo's defaults (the rest stay accepted, unused)."""
    given = {}
    for node in self.root.all("visual"):
      for section, (child, _) in _VISUAL_USED.items():
        for sub in node.all(child):
          given.update({f"{section}_{k}": val for k, val in sub.attrs.items()})
    for section, (_, defaults) in _VISUAL_USED.items():
      for key, default in defaults.items():
        name = f"{section}_{key}"
        if name not in given:
          value = default
        elif key == "active":
          value = [int(given[name].strip() in ("true", "1"))]
        else:
          value = [given[name]] if not isinstance(given[name], list) else given[name]
        v["vis_" + name] = value

  def sensors(self, v):
    """Sensor rows in document order; their data is laid out back to back in sensordata."""
    adr = 0
    for section in self.root.all("sensor"):
      for node in section.children:
        if node.tag == "user":
          if not node.has("dim") or node.get("dim") < 1:
            fail(node, "a user sensor needs a positive 'dim'", "dim")
          stype, dim = types.SensorType.USER, node.get("dim")
          stage = types.Stage[node.get("needstage", "acc").upper()]
          datatype = types.DataType[node.get("datatype", "real").upper()]
          objtype, objid = self.sensor_user_object(node)
        else:
          stype, stage, datatype, dim = _SENSOR_INFO[node.tag]
          objtype, objid = self.sensor_object(node, schema.SENSOR_KINDS[node.tag])
        reftype, refid = 0, -1
        if node.has("reftype") or node.has("refname"):
          for attr in ("reftype", "refname"):
            if not node.has(attr):
              fail(node, "reftype and refname go together", attr)
          if node.tag in ("framelinacc", "frameangacc"):
            fail(node, "acceleration frame sensors have no reference frame", "reftype")
          reftype, refid = self.frame_object(node, "reftype", "refname")
        if node.get("cutoff", 0.0) < 0:
          fail(node, "cutoff must be non-negative", "cutoff")
        if node.get("noise", 0.0) < 0:
          fail(node, "noise must be non-negative", "noise")
        self.add(ObjType.SENSOR, node, sensor_type=int(stype), sensor_datatype=int(datatype),
                 sensor_needstage=int(stage), sensor_objtype=int(objtype), sensor_objid=objid,
                 sensor_reftype=int(reftype), sensor_refid=refid, sensor_dim=dim, sensor_adr=adr,
                 sensor_cutoff=node.get("cutoff", 0.0), sensor_noise=node.get("noise", 0.0))
        adr += dim
    v.update(nsensor=len(self.names[ObjType.SENSOR]), nsensordata=adr)

  def sensor_object(self, node, kind):
    """(objtype, objid) of a built-in sensor, checking the object fits the sensor."""
    if kind == "none":
      return ObjType.UNKNOWN, -1
    if kind == "frame":
      return self.frame_object(node, "objtype", "objname")
    objtype = {"site": ObjType.SITE, "joint": ObjType.JOINT, "tendon": ObjType.TENDON,
               "actuator": ObjType.ACTUATOR, "body": ObjType.BODY}[kind]
    if not node.has(kind):
      fail(node, "required attribute missing", kind)
    objid = self.lookup(objtype, node, kind)
    if kind == "joint":
      jtype = self.rows["jnt_type"][objid]
      ball = node.tag in ("ballquat", "ballangvel")
      if ball and jtype != 1:
        fail(node, f"<{node.tag}> needs a ball joint", "joint")
      limit = node.tag.startswith("jointlimit")
      if not ball and not limit and jtype not in (2, 3):
        fail(node, f"<{node.tag}> needs a hinge or slide joint", "joint")
      if limit and jtype == 0:
        fail(node, "a free joint has no limits", "joint")
    return objtype, objid

  def frame_object(self, node, type_attr, name_attr):
    for attr in (type_attr, name_attr):
      if not node.has(attr):
        fail(node, "required attribute missing", attr)
    objtype = {"body": ObjType.BODY, "xbody": ObjType.XBODY, "geom": ObjType.GEOM, "site": ObjType.SITE,
               "camera": ObjType.CAMERA}[node.get(type_attr)]
    lookup_type = ObjType.BODY if objtype == ObjType.XBODY else objtype
    return objtype, self.lookup(lookup_type, node, name_attr)

  def sensor_user_object(self, node):
    if not node.has("objtype"):
      return ObjType.UNKNOWN, -1
    name = node.get("objtype")
    try:
      objtype = ObjType[name.upper()]
    except KeyError:
      fail(node, f"unknown object type '{name}'", "objtype")
    if objtype not in self.names:
      fail(node, f"user sensors of '{name}' objects are not supported (unsupported feature)", "objtype")
    if not node.has("objname"):
      fail(node, "required attribute missing", "objname")
    return objtype, self.lookup(objtype, node, "objname")

  def options(self, v):
    a, flags = {}, {}
    for node in self.root.all("option"):
      a.update(node.attrs)
      # MuJoCo 4 loads any timestep and fails (or runs away) at the first step; mjgym refuses it here
      if node.has("timestep") and not (math.isfinite(node.get("timestep")) and node.get("timestep") > 0):
        fail(node, f"timestep must be a positive finite number, got {plain(node.get('timestep'))}", "timestep")
      for f in node.all("flag"):
        flags.update(f.attrs)
    v.update(opt_timestep=a.get("timestep", 0.002), opt_impratio=a.get("impratio", 1.0),
             opt_tolerance=a.get("tolerance", 1e-8), opt_ls_tolerance=a.get("ls_tolerance", 0.01),
             opt_noslip_tolerance=a.get("noslip_tolerance", 1e-6), opt_ccd_tolerance=a.get("ccd_tolerance", 1e-6),
             opt_gravity=a.get("gravity", [0, 0, -9.81]),
             opt_wind=a.get("wind", [0.0] * 3), opt_magnetic=a.get("magnetic", [0.0, -0.5, 0.0]),
             opt_density=a.get("density", 0.0), opt_viscosity=a.get("viscosity", 0.0),
             opt_o_margin=a.get("o_margin", 0.0), opt_o_solref=full(a.get("o_solref", []), SOLREF),
             opt_o_solimp=full(a.get("o_solimp", []), SOLIMP),
             opt_o_friction=full(a.get("o_friction", []), [1.0, 1.0, 0.005, 1e-4, 1e-4]),
             opt_integrator=_INTEGRATORS[a.get("integrator", "Euler")],
             opt_cone=int(a.get("cone", "pyramidal") == "elliptic"),
             opt_jacobian={"dense": 0, "sparse": 1, "auto": 2}[a.get("jacobian", "auto")],
             opt_solver=_SOLVERS[a.get("solver", "Newton")], opt_iterations=a.get("iterations", 100),
             opt_ls_iterations=a.get("ls_iterations", 50), opt_noslip_iterations=a.get("noslip_iterations", 0),
             opt_ccd_iterations=a.get("ccd_iterations", 35))
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
          # MuJoCo 4 completes a short qpos, qvel, act or ctrl with the defaults (qpos0, zeros)
          short_ok = attr in ("qpos", "qvel", "act", "ctrl") and len(value) < n
          if len(value) != n and not short_ok:
            fail(node, f"expected {n} number{'s' * (n != 1)}, got {len(value)}", attr)
          row = out[f"key_{attr}"][i].reshape(-1)
          row[:len(value)] = value
          out[f"key_{attr}"][i] = row.reshape(out[f"key_{attr}"][i].shape)
      for j, q in enumerate(out["key_mquat"][i]):
        norm = np.linalg.norm(q)
        if norm < 1e-15:
          fail(node, "quaternion has zero norm", "mquat")
        out["key_mquat"][i, j] = q / norm
    self.names[ObjType.KEY] += [""] * (nkey - len(keys))
    out["nkey"] = nkey
    return out


def default_nconmax(ngeom):
  """Contact capacity when the model sets none: a box-box pair makes up to 8 contacts (a multiccd pair of the general
  convex collider up to 4), piles touch ~2 others."""
  return 8 * ngeom + 64


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
  if kind == "adhesion":
    # as MuJoCo 4: the gain defaults to the record's gain, whichever element set it; the rest is the shortcut's
    gain = attrs.get("gain", rec["gainprm"][0])
    if gain < 0:
      fail(node, "gain must be non-negative", "gain")
    rec.update(kind=kind, own={}, dyntype=0, dynprm=[1.0] + [0.0] * 9, gaintype=0, gainprm=[gain] + [0.0] * 9,
               biastype=0, biasprm=[0.0] * 10)
    return
  # A shortcut takes its own parameters' defaults from the record when the record was set by the same
  # shortcut or by <general>; MuJoCo's rules for the remaining mixes are not reproduced, so refuse them.
  # (a motor reads nothing from the record)
  allowed = (None, "motor", "general", kind) if kind in ("position", "velocity") else (None, kind)
  if kind != "motor" and rec["kind"] not in allowed:
    fail(node, f"a <{kind}> actuator over a default class set by <{rec['kind']}> is not supported "
         "(unsupported feature); use the same shortcut in the default class", "class")
  same = rec["kind"] in (kind, "general")
  # accumulated attributes of this shortcut along the default chain
  own = dict(rec.get("own", {})) if rec["kind"] == kind else {}
  own.update(attrs)
  dynprm, dyntype, gaintype, biastype = [1.0] + [0.0] * 9, 0, 0, 1
  gain, bias = [1.0], [0.0, 0.0, 0.0]
  if kind == "motor":
    biastype = 0
  elif kind in ("position", "intvelocity"):
    kp = attrs.get("kp", rec["gainprm"][0] if same else 1.0)
    if "kv" in attrs and "dampratio" in attrs:
      fail(node, "give either kv or dampratio, not both", "dampratio")
    if "dampratio" in attrs:
      b2 = attrs["dampratio"]  # stays positive until setconst turns it into -kv
    elif "kv" in attrs:
      b2 = -attrs["kv"]
    else:
      b2 = rec["biasprm"][2] if same else 0.0
    for attr in ("kv", "dampratio"):
      if attrs.get(attr, 0.0) < 0:
        fail(node, f"{attr} must be non-negative, got {attrs[attr]}", attr)
    gain, bias = [kp], [0.0, -kp, b2]
    rec["inheritrange"] = own.get("inheritrange", 0.0)
    if kind == "intvelocity":
      dyntype = 1
    else:
      timeconst = attrs.get("timeconst", rec["dynprm"][0] if same and rec["dyntype"] == 3 else 0.0)
      if timeconst < 0:
        fail(node, "timeconst must be non-negative", "timeconst")
      if timeconst > 0:
        dyntype, dynprm[0] = 3, timeconst
  elif kind == "velocity":
    kv = attrs.get("kv", rec["gainprm"][0] if same else 1.0)
    gain, bias = [kv], [0.0, 0.0, -kv]
  elif kind == "damper":
    kv = own.get("kv", 1.0)
    if kv < 0:
      fail(node, "kv must be non-negative", "kv")
    gaintype, biastype, gain, bias = 1, 0, [0.0, 0.0, -kv], [0.0]
  elif kind == "cylinder":
    dyntype, dynprm[0] = 2, own.get("timeconst", 1.0)
    area = own.get("area", 1.0)
    if "diameter" in own:
      area = math.pi / 4.0 * own["diameter"] ** 2
    gain, bias = [area], list(own.get("bias", [0.0, 0.0, 0.0]))
  else:  # muscle
    tc = own.get("timeconst", [0.01, 0.04])
    rng = own.get("range", [0.75, 1.05])
    prm = [rng[0], rng[1], own.get("force", -1.0), own.get("scale", 200.0), own.get("lmin", 0.5),
           own.get("lmax", 1.6), own.get("vmax", 1.5), own.get("fpmax", 1.3), own.get("fvmax", 1.2)]
    if not (tc[0] > 0 and tc[1] > 0 and 0 <= rng[0] < rng[1] and prm[4] < 1 < prm[5]):
      fail(node, "muscle needs positive time constants, 0 <= range[0] < range[1] and lmin < 1 < lmax",
           "range")
    dyntype, gaintype, biastype = 4, 2, 2
    dynprm[:3] = [tc[0], tc[1], own.get("tausmooth", 0.0)]
    gain = bias = prm
  rec.update(kind=kind, own=own, dyntype=dyntype, dynprm=dynprm, gaintype=gaintype,
             gainprm=gain + [0.0] * (10 - len(gain)), biastype=biastype,
             biasprm=bias + [0.0] * (10 - len(bias)))


def compile_tree(root, filename, source):
  """Model field values, per-type names, and (actuators whose length range setconst simulates, the
  <compiler><lengthrange> options, joints whose stiffness and damping setconst derives from springdamper)."""
  builder = _Builder(root, filename, source)
  builder.build()
  values = builder.finish()
  return values, builder.names, (builder.lengthrange_jobs, builder.lengthrange_settings(), builder.springdamper_jobs)
