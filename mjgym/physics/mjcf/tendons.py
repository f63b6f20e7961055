"""<tendon>: fixed tendons (linear couplings of joints) and spatial tendons (paths through sites, wrapping geoms and
pulleys), checked for MuJoCo's rules, and the wrap_* path table."""

import numpy as np

from mjgym.physics import types
from mjgym.physics.mjcf.context import RANGE_RULE
from mjgym.physics.mjcf.context import linear
from mjgym.physics.mjcf.context import plain
from mjgym.physics.mjcf.context import range_ok
from mjgym.physics.mjcf.defaults import SOLIMP
from mjgym.physics.mjcf.defaults import SOLREF
from mjgym.physics.mjcf.errors import fail
from mjgym.physics.types import JointType
from mjgym.physics.types import ObjType


def tendons(ctx, v):
  """tendon_* and wrap_*: one row per tendon, and its path (joints and coefficients, or sites, geoms and pulleys)."""
  adr, num, wtype, wobj, wprm = [], [], [], [], []
  for section in ctx.root.all("tendon"):
    for node in section.children:
      length0 = spring_length = 0.0
      adr.append(len(wtype))
      if node.tag == "spatial":
        path = _spatial_path(ctx, node)
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
        j = ctx.lookup(ObjType.JOINT, jn, "joint")
        if j in wobj[adr[-1]:]:
          fail(jn, f"joint '{jn.get('joint')}' is repeated in the fixed tendon", "joint")
        if ctx.rows["jnt_type"][j] not in (JointType.SLIDE, JointType.HINGE):
          fail(jn, "fixed tendons can only use hinge and slide joints", "joint")
        coef = jn.get("coef", 1.0)
        wtype.append(int(types.WrapType.JOINT))
        wobj.append(j)
        wprm.append(coef)
        length0 += coef * v["qpos0"][v["jnt_qposadr"][j]]
        spring_length += coef * v["qpos_spring"][v["jnt_qposadr"][j]]
      limited = ctx.limited(node, "limited", "range")
      rng = node.get("range", [0.0, 0.0])
      if limited and not range_ok(rng):
        fail(node, f"limited tendon needs {RANGE_RULE}, got {plain(rng)}", "range")
      actfrcrange = node.get("actuatorfrcrange", [0.0, 0.0])
      actfrclimited = ctx.limited(node, "actuatorfrclimited", "actuatorfrcrange")
      if actfrclimited and not range_ok(actfrcrange):
        fail(node, f"actuator force limited tendon needs {RANGE_RULE}, got {plain(actfrcrange)}",
             "actuatorfrcrange")
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
      armature = node.get("armature", 0.0)
      if armature < 0:
        fail(node, f"tendon armature cannot be negative, got {plain(armature)}", "armature")
      if armature and node.tag == "spatial" and _wraps_geoms(wtype[adr[-1]:]):
        fail(node, "geom wrapping is not supported by tendon armature (as in MuJoCo)", "armature")
      ctx.add(ObjType.TENDON, node, tendon_limited=int(limited), tendon_range=rng,
              tendon_actfrclimited=int(actfrclimited), tendon_actfrcrange=actfrcrange,
              tendon_solref_lim=node.get("solreflimit", SOLREF),
              tendon_solimp_lim=node.get("solimplimit", SOLIMP),
              tendon_solref_fri=node.get("solreffriction", SOLREF),
              tendon_solimp_fri=node.get("solimpfriction", SOLIMP), tendon_margin=node.get("margin", 0.0),
              tendon_stiffness=linear(node, "stiffness"), tendon_damping=linear(node, "damping"),
              tendon_armature=armature,
              tendon_frictionloss=node.get("frictionloss", 0.0), tendon_lengthspring=spring,
              tendon_length0=length0, tendon_group=node.get("group", 0),
              tendon_matid=ctx.lookup(ObjType.MATERIAL, node, "material") if node.get("material") else -1,
              tendon_width=node.get("width", 0.003), tendon_rgba=node.get("rgba", [0.5, 0.5, 0.5, 1.0]))
  v.update(nwrap=len(wtype), tendon_adr=np.array(adr, np.int32), tendon_num=np.array(num, np.int32),
           wrap_type=np.array(wtype, np.int32), wrap_objid=np.array(wobj, np.int32),
           wrap_prm=np.array(wprm, float))


def _wraps_geoms(wtype):
  """Whether a path (wrap types) wraps a sphere or a cylinder."""
  return any(w in (int(types.WrapType.SPHERE), int(types.WrapType.CYLINDER)) for w in wtype)


def demote_simple(ctx, v):
  """Bodies on the path of a tendon with armature (its own or its actuators') are not simple: their M blocks get
  its off-diagonal terms. MuJoCo's compiler rule; geom wrapping is refused there, so the path's sites count."""
  rows = ctx.rows
  armature = list(rows.get("tendon_armature", []))
  for k, trntype in enumerate(rows.get("actuator_trntype", [])):
    if trntype == int(types.TrnType.TENDON) and rows["actuator_armature"][k]:
      armature[rows["actuator_trnid"][k][0]] = 1.0
  simple = v["body_simple"]
  for t, a in enumerate(armature):
    if not a:
      continue
    for k in range(v["tendon_adr"][t], v["tendon_adr"][t] + v["tendon_num"][t]):
      if v["wrap_type"][k] == int(types.WrapType.SITE):
        simple[rows["site_bodyid"][v["wrap_objid"][k]]] = 0


def _spatial_path(ctx, node):
  """(wrap type, object id, parameter) rows of a spatial tendon's path, checked for MuJoCo's rules.

  The path starts and ends with a site; a wrapping geom (sphere or cylinder, parameter = its side
  site or -1) sits between two sites; a pulley (parameter = divisor) starts a new branch after a site.
  """
  rows = []
  for el in node.children:
    if el.tag == "site":
      if not el.has("site"):
        fail(el, "required attribute missing", "site")
      rows.append((int(types.WrapType.SITE), ctx.lookup(ObjType.SITE, el, "site"), 0.0))
    elif el.tag == "geom":
      if not el.has("geom"):
        fail(el, "required attribute missing", "geom")
      g = ctx.lookup(ObjType.GEOM, el, "geom")
      gtype = ctx.rows["geom_type"][g]
      if gtype not in (int(types.GeomType.SPHERE), int(types.GeomType.CYLINDER)):
        fail(el, "tendons can only wrap around spheres and cylinders", "geom")
      side = ctx.lookup(ObjType.SITE, el, "sidesite") if el.has("sidesite") else -1
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
