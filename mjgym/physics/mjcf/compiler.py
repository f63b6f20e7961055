"""Parsed MJCF tree -> MjModel fields: frames, inertias, addresses, options and MuJoCo's compile-time constants."""

import math

import numpy as np

from mjgym.physics import containers
from mjgym.physics import types
from mjgym.physics.mjcf import actuators
from mjgym.physics.mjcf import assets
from mjgym.physics.mjcf import constraints
from mjgym.physics.mjcf import context
from mjgym.physics.mjcf import frames
from mjgym.physics.mjcf import meshes
from mjgym.physics.mjcf import options
from mjgym.physics.mjcf import parser
from mjgym.physics.mjcf import sensors
from mjgym.physics.mjcf import spatial
from mjgym.physics.mjcf import tendons
from mjgym.physics.mjcf.context import EPS
from mjgym.physics.mjcf.context import MINVAL
from mjgym.physics.mjcf.context import RANGE_RULE
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



def _counts(geom):
  """Whether a geom enters its body's inertia: a mass above mjEPS, as in MuJoCo (a NaN mass too, so that the
  body's error names it)."""
  return geom["mass"] > EPS or np.isnan(geom["mass"])


class _Builder(context.Context):
  """Collects per-object rows while walking the tree, then turns them into model fields."""

  def build(self):
    options.check_sizes(self)
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
    tendons.tendons(self, v)
    actuators.actuators(self, v)
    constraints.equality(self)
    constraints.contact(self)
    sensors.sensors(self, v)
    options.options(self, v)
    options.visual(self, v)
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
    options.capacities(self, v)
    return v

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


def compile_tree(root, filename, source):
  """Model field values, per-type names, and (actuators whose length range setconst simulates, the
  <compiler><lengthrange> options, joints whose stiffness and damping setconst derives from springdamper)."""
  builder = _Builder(root, filename, source)
  builder.build()
  values = builder.finish()
  return values, builder.names, (builder.lengthrange_jobs, actuators.lengthrange_settings(builder), builder.springdamper_jobs)
