"""The body tree of <worldbody>: bodies, joints, geoms, sites, cameras and lights, placed in their bodies' frames
and numbered depth-first as MuJoCo numbers them, and the frames of cameras and lights at qpos0."""

import math

import numpy as np

from mjgym.physics import types
from mjgym.physics.mjcf import fluid
from mjgym.physics.mjcf import frames
from mjgym.physics.mjcf import parser
from mjgym.physics.mjcf import spatial
from mjgym.physics.mjcf.context import RANGE_RULE
from mjgym.physics.mjcf.context import keywords
from mjgym.physics.mjcf.context import linear
from mjgym.physics.mjcf.context import plain
from mjgym.physics.mjcf.context import range_ok
from mjgym.physics.mjcf.defaults import SOLIMP
from mjgym.physics.mjcf.defaults import SOLREF
from mjgym.physics.mjcf.errors import fail
from mjgym.physics.types import JointType
from mjgym.physics.types import ObjType

_JOINT_TYPES = keywords(JointType)
_GEOM_TYPES = keywords(types.GeomType)
# Primitive geoms that a mesh attribute fits to that mesh.
_FITTED = ("sphere", "capsule", "cylinder", "ellipsoid", "box")
_CAMLIGHT_MODES = keywords(types.CamLightType)
_LIGHT_TYPES = keywords(types.LightType)
# Dofs of each joint type.
JOINT_NV = {JointType.FREE: 6, JointType.BALL: 3, JointType.SLIDE: 1, JointType.HINGE: 1}


def compile_bodies(ctx):
  """The world body and, depth-first, every body and what it holds; then the bodies cameras and lights target."""
  ctx.add(ObjType.BODY, None, body_parentid=0, body_pos=np.zeros(3), body_quat=spatial.IDENTITY_QUAT,
          body_mocapid=-1, body_gravcomp=0.0)
  ctx.names[ObjType.BODY][0] = "world"
  ctx.body_info.append(dict(node=None, geoms=[], joints=[], inertial=None, parent=-1))
  worldbody = ctx.root.all("worldbody")
  if worldbody:
    # Several <worldbody> elements (from includes) make one world body: its own geoms, sites, ... first
    world = parser.Node("worldbody", {}, worldbody[0].line, worldbody[0].file, ctx.root)
    world.children = [child for wb in worldbody for child in wb.children]
    body_children(ctx, world, 0)
  resolve_targets(ctx)


def body_children(ctx, node, bodyid):
  """What a body holds: its own objects before its child bodies (depth-first order, as MuJoCo numbers them)."""
  info = ctx.body_info[bodyid]
  for child in node.children:
    tag = child.tag
    if tag == "inertial":
      if info["inertial"] is not None:
        fail(child, "a body has at most one <inertial>")
      info["inertial"] = child
    elif tag in ("joint", "freejoint"):
      joint(ctx, child, bodyid)
  for tag, compile_element in (("geom", geom), ("site", site), ("camera", camera), ("light", light)):
    for child in node.all(tag):
      compile_element(ctx, child, bodyid)
  for child in node.all("body"):
    body(ctx, child, bodyid)


def body(ctx, node, parent):
  """One <body> and its subtree."""
  pos, quat = frames.in_frames(ctx.cfg, node, *frames.frame(ctx.cfg, node))
  mocap = node.get("mocap", False)
  bodyid = ctx.add(ObjType.BODY, node, body_parentid=parent, body_pos=pos, body_quat=quat,
                   body_mocapid=-1, body_gravcomp=node.get("gravcomp", 0.0))
  ctx.body_info.append(dict(node=node, geoms=[], joints=[], inertial=None, parent=parent, mocap=mocap))
  body_children(ctx, node, bodyid)
  ndof = sum(JOINT_NV[j["type"]] for j in ctx.body_info[bodyid]["joints"])
  if ndof > 6:
    fail(node, f"more than 6 dofs in one body ({ndof}); split the joints over a chain of bodies")
  if mocap:
    if parent != 0:
      fail(node, "mocap bodies must be children of the world body", "mocap")
    if ctx.body_info[bodyid]["joints"]:
      fail(node, "mocap bodies cannot have joints", "mocap")


def joint(ctx, node, bodyid):
  """One <joint> or <freejoint> of a body."""
  info = ctx.body_info[bodyid]
  if node.tag == "freejoint":
    jtype = JointType.FREE
  else:
    jtype = _JOINT_TYPES[node.get("type", "hinge")]
  if bodyid == 0:
    fail(node, "the world body cannot have joints")
  # (under fusestatic the bodies in between may be fused away: simplify.fuse_static checks it then)
  if jtype == JointType.FREE and info["parent"] != 0 and not ctx.cfg.fusestatic:
    free_joint_not_top_level(node)
  axis = np.asarray(node.get("axis", [0.0, 0.0, 1.0]), float)
  jpos = np.asarray(node.get("pos", [0.0] * 3), float)
  composed = frames.frames(ctx.cfg, node)
  if composed is not None and jtype in (JointType.SLIDE, JointType.HINGE):
    axis = spatial.rotate(composed[1], axis)
  if composed is not None and jtype != JointType.FREE:
    jpos = composed[0] + spatial.rotate(composed[1], jpos)
  if np.linalg.norm(axis) < 1e-14:
    fail(node, "joint axis has zero length", "axis")
  axis = spatial.unit(axis)
  rng = np.asarray(node.get("range", [0.0, 0.0]), float)
  limited = ctx.limited(node, "limited", "range")
  if jtype in (JointType.BALL, JointType.HINGE) and limited:
    # MuJoCo converts the range of limited angular joints only; an unused range keeps its units.
    rng = np.array([ctx.cfg.angle(r) for r in rng])
  if limited and jtype == JointType.FREE:
    fail(node, "a free joint cannot be limited", "limited")
  if limited and not range_ok(rng):
    fail(node, f"limited joint needs {RANGE_RULE}, got {plain(node.get('range', [0, 0]))}",
         "range")
  actfrcrange = np.asarray(node.get("actuatorfrcrange", [0.0, 0.0]), float)
  # MuJoCo: free and ball joints have no joint-level actuator force limit, whatever is given
  actfrclimited = (jtype in (JointType.SLIDE, JointType.HINGE)
                   and ctx.limited(node, "actuatorfrclimited", "actuatorfrcrange"))
  if actfrclimited and not range_ok(actfrcrange):
    fail(node, f"actuator force limited joint needs {RANGE_RULE}, got "
         f"{plain(node.get('actuatorfrcrange', [0, 0]))}", "actuatorfrcrange")
  ref = node.get("ref", 0.0)
  springref = node.get("springref", 0.0)
  if jtype == JointType.HINGE:
    ref, springref = ctx.cfg.angle(ref), ctx.cfg.angle(springref)
  # a free joint sits at the body origin along z, whatever it is given; a ball joint's axis is z too (MuJoCo 4)
  free = jtype == JointType.FREE
  jntid = ctx.add(ObjType.JOINT, node, jnt_type=int(jtype), jnt_bodyid=bodyid, jnt_group=node.get("group", 0),
                  jnt_limited=int(limited), jnt_pos=np.zeros(3) if free else jpos,
                  jnt_axis=np.array([0.0, 0.0, 1.0]) if jtype in (JointType.FREE, JointType.BALL) else axis,
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
    ctx.springdamper_jobs.append((jntid, timeconst, dampratio))


def free_joint_not_top_level(node):
  fail(node, "a free joint can only be used on a top-level body (child of the world body)",
       None if node.tag == "freejoint" else "type")


def geom(ctx, node, bodyid):
  """One <geom>: its frame, size, bounds and the mass and inertia it adds to its body."""
  gtype = node.get("type", "sphere")
  if gtype == "sdf":
    fail(node, f"geom type '{gtype}' is not supported (unsupported feature)", "type")
  size = list(node.get("size", [0.0, 0.0, 0.0]))
  pos, quat = frames.frame(ctx.cfg, node)
  if gtype in _FITTED and node.has("mesh") and node.has("fromto"):
    fail(node, "fromto cannot be used with mesh geom", "fromto")
  if node.has("fromto"):
    pos, quat, size = frames.fromto_frame(node, gtype, size)
  meshid = -1
  # the asset a mesh or height-field geom draws its shape from (and only those geoms name one, but for a
  # primitive fitted to a mesh)
  for kind, objtype, article in (("mesh", ObjType.MESH, "a"), ("hfield", ObjType.HFIELD, "an")):
    if gtype == kind:
      if not node.has(kind):
        fail(node, f"{kind} geom needs {article} '{kind}'", kind)
      meshid = ctx.lookup(objtype, node, kind)
    elif node.has(kind) and not (kind == "mesh" and gtype in _FITTED):
      fail(node, f"'{kind}' given for a geom of type {gtype}", kind)
  if gtype in _FITTED and node.has("mesh"):
    pos, quat, size = _fit_to_mesh(ctx, node, gtype, pos, quat, size)
  check_size(node, gtype, size, "geom")
  if gtype == "plane" and bodyid != 0 and ctx.body_info[bodyid]["joints"]:
    fail(node, "planes can only be attached to static bodies", "type")
  shell = node.get("shellinertia", False)
  inertia_of = spatial.shell_inertia if shell else spatial.primitive_inertia
  if gtype == "mesh":
    if shell:
      fail(node, "for mesh geoms, inertia should be specified in the mesh asset", "shellinertia")
    mesh = ctx.meshes[meshid]
    # The mesh was recentered at its centroid and aligned with its principal axes: move the geom with it, in
    # MuJoCo's arithmetic (mjuu_frameaccum), as the geom's frame feeds the body's inertia and its principal frame.
    pos, quat = spatial.frame_accum(pos, quat, mesh.pos, mesh.quat)
    rb = mesh.rbound
    aabb = np.asarray(mesh.aabb, float)
    volume, unit_inertia = mesh.volume, np.asarray(mesh.inertia) / mesh.volume
    # Half sizes of the box around the mesh that is centered at the geom frame's origin.
    size = list(np.abs(mesh.aabb[:3]) + mesh.aabb[3:])
  elif gtype == "hfield":
    rx, ry, top, bottom = ctx.hfields[meshid][2]
    # MuJoCo's numbers for a height field: the box from -bottom to top bounds it, and its mass and inertia
    # are those of a box with the half sizes in geom_size.
    size = [rx, ry, 0.5 * (0.5 * top + bottom)]
    rb = spatial.sqrt(rx * rx + ry * ry + max(top, bottom) * max(top, bottom))
    aabb = np.array([0.0, 0.0, 0.5 * (top - bottom), rx, ry, 0.5 * (top + bottom)])
    volume, unit_inertia = inertia_of("box", size)
  elif gtype == "plane":
    rb, volume, unit_inertia = 0.0, 0.0, np.zeros(3)
    # MuJoCo's box for the infinite half-space below a plane.
    aabb = np.array([0.0, 0.0, -5e9, 1e10, 1e10, 5e9])
  else:
    rb = spatial.rbound(gtype, size)
    aabb = np.concatenate([np.zeros(3), spatial.half_extents(gtype, size)])
    volume, unit_inertia = inertia_of(gtype, size)
  if node.has("mass") and not math.isnan(node.get("mass")):
    mass = node.get("mass")
  else:
    # (a NaN mass is MuJoCo's "not given": the density decides)
    mass = node.get("density", 1000.0) * volume
  if mass < 0 or node.get("density", 0.0) < 0:
    fail(node, "mass and density must be non-negative", "mass" if node.has("mass") else "density")
  pos, quat = frames.in_frames(ctx.cfg, node, pos, quat)
  friction = node.get("friction", [1.0, 0.005, 0.0001])
  matid = ctx.lookup(ObjType.MATERIAL, node, "material") if node.get("material") else -1
  group = node.get("group", 0)
  if node.get("fluidshape", "none") == "ellipsoid":
    fluid_coefs = fluid.geom_fluid(gtype, size, node.get("fluidcoef", fluid.FLUIDCOEF))
  else:
    fluid_coefs = np.zeros(12)
  geomid = ctx.add(
      ObjType.GEOM, node, geom_type=int(_GEOM_TYPES[gtype]), geom_contype=node.get("contype", 1),
      geom_conaffinity=node.get("conaffinity", 1), geom_condim=node.get("condim", 3), geom_bodyid=bodyid,
      geom_dataid=meshid, geom_matid=matid, geom_group=group, geom_priority=node.get("priority", 0),
      geom_solmix=node.get("solmix", 1.0), geom_solref=node.get("solref", SOLREF),
      geom_solimp=node.get("solimp", SOLIMP), geom_size=size, geom_rbound=rb, geom_pos=pos,
      geom_quat=quat, geom_friction=friction, geom_margin=node.get("margin", 0.0),
      geom_gap=node.get("gap", 0.0), geom_aabb=aabb, geom_rgba=node.get("rgba", [0.5, 0.5, 0.5, 1.0]),
      geom_fluid=fluid_coefs)
  condim = node.get("condim", 3)
  if condim not in (1, 3, 4, 6):
    fail(node, f"condim must be 1, 3, 4 or 6, got {condim}", "condim")
  lo, hi = ctx.cfg.inertiagrouprange
  if gtype != "plane" and lo <= group <= hi:
    ctx.body_info[bodyid]["geoms"].append(dict(id=geomid, mass=mass, pos=pos, quat=quat,
                                               inertia=mass * unit_inertia))


def _fit_to_mesh(ctx, node, gtype, pos, quat, size):
  """(pos, quat, size) of a primitive geom fitted to the mesh it names, as MuJoCo fits it: to the mesh's
  equivalent-inertia box, or (compiler fitaabb) to the smallest such primitive around the mesh's bounding box;
  then scaled by fitscale (sizes the shape does not use keep their given values, scaled too). The geom takes
  the mesh's frame (moved to the box's center for fitaabb)."""
  mesh = ctx.meshes[ctx.lookup(ObjType.MESH, node, "mesh")]
  center = np.zeros(3)
  size = list(size) + [0.0] * (3 - len(size))
  if not ctx.cfg.fitaabb:
    i0, i1, i2 = mesh.inertia
    box = [0.5 * math.sqrt(6 * (i1 + i2 - i0) / mesh.volume), 0.5 * math.sqrt(6 * (i0 + i2 - i1) / mesh.volume),
           0.5 * math.sqrt(6 * (i0 + i1 - i2) / mesh.volume)]
    if gtype == "sphere":
      size[0] = (box[0] + box[1] + box[2]) / 3
    elif gtype == "capsule":
      r = (box[0] + box[1]) / 2
      size[:2] = [r, max(0.0, box[2] - r / 2)]
    elif gtype == "cylinder":
      size[:2] = [(box[0] + box[1]) / 2, box[2]]
    else:
      size = box
  else:
    center = np.asarray(mesh.aabb[:3], float)
    half = mesh.aabb[3:]
    if gtype == "sphere":
      size[0] = max(max(half[0], half[1]), half[2])
    elif gtype in ("capsule", "cylinder"):
      r = max(half[0], half[1])
      # a capsule's caps reach beyond its cylinder
      size[:2] = [r, half[2] - r if gtype == "capsule" else half[2]]
    else:
      size = [half[0], half[1], half[2]]
  scale = node.get("fitscale", 1.0)
  size = [x * scale for x in size]
  meshpos = spatial.rotate(mesh.quat, center) + mesh.pos
  pos, quat = spatial.frame_accum(pos, quat, meshpos, mesh.quat)
  return pos, quat, size


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


def site(ctx, node, bodyid):
  """One <site>."""
  stype = node.get("type", "sphere")
  size = list(node.get("size", [0.005] * 3))
  pos, quat = frames.frame(ctx.cfg, node)
  if node.has("fromto"):
    pos, quat, size = frames.fromto_frame(node, stype, size)
  pos, quat = frames.in_frames(ctx.cfg, node, pos, quat)
  check_size(node, stype, size, "site")
  ctx.add(ObjType.SITE, node, site_type=int(_GEOM_TYPES[stype]), site_bodyid=bodyid,
          site_group=node.get("group", 0), site_size=size, site_pos=pos, site_quat=quat,
          site_rgba=node.get("rgba", [0.5, 0.5, 0.5, 1.0]),
          site_matid=ctx.lookup(ObjType.MATERIAL, node, "material") if node.get("material") else -1)


def resolve_targets(ctx):
  """Target bodies of cameras and lights (looked up once all bodies exist; targets may come later)."""
  for key in ("cam_targetbodyid", "light_targetbodyid"):
    ctx.rows[key] = [target(ctx, node) for node in ctx.rows.get(key, [])]


def target(ctx, node):
  """The body a camera or light of a target mode follows (-1 for the other modes)."""
  mode = node.get("mode", "fixed")
  if mode.startswith("target"):
    if not node.has("target"):
      fail(node, f"mode '{mode}' needs a 'target' body", "target")
    return ctx.lookup(ObjType.BODY, node, "target")
  return -1


def camera(ctx, node, bodyid):
  """One <camera> (its target body is looked up once all bodies exist)."""
  pos, quat = frames.in_frames(ctx.cfg, node, *frames.frame(ctx.cfg, node))
  if node.get("fovy", 45.0) >= 180:
    fail(node, f"fovy must be below 180 degrees, got {node.get('fovy')}", "fovy")
  ctx.add(ObjType.CAMERA, node, cam_mode=int(_CAMLIGHT_MODES[node.get("mode", "fixed")]), cam_bodyid=bodyid,
          cam_targetbodyid=node, cam_pos=pos, cam_quat=quat, cam_fovy=node.get("fovy", 45.0),
          cam_ipd=node.get("ipd", 0.068))


def light(ctx, node, bodyid):
  """One <light> (its target body is looked up once all bodies exist)."""
  direction = np.asarray(node.get("dir", [0.0, 0.0, -1.0]), float)
  pos = np.asarray(node.get("pos", [0.0] * 3), float)
  composed = frames.frames(ctx.cfg, node)
  if composed is not None:
    pos, direction = composed[0] + spatial.rotate(composed[1], pos), spatial.rotate(composed[1], direction)
  norm = np.linalg.norm(direction)
  if norm < 1e-15:
    fail(node, "light direction has zero length", "dir")
  if node.has("directional") and node.has("type"):
    fail(node, "give either 'directional' or 'type', not both", "directional")
  ltype = _LIGHT_TYPES[node.get("type", "directional" if node.get("directional", False) else "spot")]
  ctx.add(ObjType.LIGHT, node, light_mode=int(_CAMLIGHT_MODES[node.get("mode", "fixed")]), light_bodyid=bodyid,
          light_targetbodyid=node, light_type=int(ltype),
          light_castshadow=int(node.get("castshadow", True)), light_active=int(node.get("active", True)),
          light_pos=pos, light_dir=direction / norm,
          light_attenuation=node.get("attenuation", [1.0, 0.0, 0.0]), light_cutoff=node.get("cutoff", 45.0),
          light_exponent=node.get("exponent", 10.0), light_ambient=node.get("ambient", [0.0] * 3),
          light_diffuse=node.get("diffuse", [0.7] * 3), light_specular=node.get("specular", [0.3] * 3))


def camlight(ctx, v, xpos, xquat, subtree_com):
  """cam_*0 and light_*0: world frames at qpos0 relative to the body and to its subtree's com."""
  for prefix in ("cam", "light"):
    bodies = ctx.rows.get(f"{prefix}_bodyid", [])
    pos0, poscom0, extra = [], [], []
    for i, b in enumerate(bodies):
      world = xpos[b] + spatial.rotate(xquat[b], ctx.rows[f"{prefix}_pos"][i])
      pos0.append(world - xpos[b])
      # Relative to the com of the subtree the camera/light follows: its target's, else its own body's.
      target = ctx.rows[f"{prefix}_targetbodyid"][i]
      poscom0.append(world - subtree_com[target if target >= 0 else b])
      if prefix == "cam":
        q = spatial.quat_mul(xquat[b], ctx.rows["cam_quat"][i])
        extra.append(spatial.quat_to_mat(q / np.linalg.norm(q)).ravel())
      else:
        extra.append(spatial.rotate(xquat[b], ctx.rows["light_dir"][i]))
    if bodies:
      v[f"{prefix}_pos0"], v[f"{prefix}_poscom0"] = np.array(pos0), np.array(poscom0)
      v["cam_mat0" if prefix == "cam" else "light_dir0"] = np.array(extra)
