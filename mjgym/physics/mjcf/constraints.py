"""<equality> constraints (connect, weld, joint and tendon couplings) and the <contact> section (explicit pairs and
excludes, in MuJoCo's order)."""

import numpy as np

from mjgym.physics import math as mjmath
from mjgym.physics import types
from mjgym.physics.mjcf import flex
from mjgym.physics.mjcf.context import full
from mjgym.physics.mjcf.defaults import SOLIMP
from mjgym.physics.mjcf.defaults import SOLREF
from mjgym.physics.mjcf.errors import fail
from mjgym.physics.types import ObjType

# Width of an eq_data row (MuJoCo's mjNEQDATA) and the column flagging a weld whose relpose set_const fills.
_NEQDATA = 12
_EQ_RELPOSE_FROM_QPOS0 = 11


def equality(ctx):
  """eq_*: one row per <equality> element, in document order, then one per flexcomp with edge equalities."""
  for node in flex.equality_nodes(ctx):
    kind = "flex" if node.tag == "edge" else node.tag
    # MuJoCo's starting values for every type: a unit slope and a unit torque-to-force ratio
    data = np.zeros(_NEQDATA)
    data[1] = 1.0
    data[10] = 1.0
    if kind in ("connect", "weld"):
      objtype, o1, o2 = _equality_objects(ctx, node, kind)
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
    elif kind == "flex":
      # MuJoCo leaves eq_objtype unset (0) for flex constraints too
      objtype, o1, o2 = ObjType.UNKNOWN, flex.equality_flex(ctx, node), -1
    else:
      # MuJoCo leaves eq_objtype unset (0) for joint and tendon couplings.
      objtype, looked_up = ObjType.UNKNOWN, ObjType.JOINT if kind == "joint" else ObjType.TENDON
      a1, a2 = f"{kind}1", f"{kind}2"
      if not node.has(a1):
        fail(node, "required attribute missing", a1)
      o1 = ctx.lookup(looked_up, node, a1)
      o2 = ctx.lookup(looked_up, node, a2) if node.has(a2) else -1
      data[:5] = node.get("polycoef", [0.0, 1.0, 0.0, 0.0, 0.0])
    ctx.add(ObjType.EQUALITY, node, eq_type=int(types.EqType[kind.upper()]), eq_obj1id=o1, eq_obj2id=o2,
            eq_objtype=int(objtype), eq_active0=int(node.get("active", True)),
            eq_solref=full(node.get("solref", []), SOLREF), eq_solimp=full(node.get("solimp", []), SOLIMP),
            eq_data=data)


def _equality_objects(ctx, node, kind):
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
    ids = ctx.lookup(objtype, node, "site1"), ctx.lookup(objtype, node, "site2")
  else:
    for attr in ("body1",) + (("anchor",) if kind == "connect" else ()):
      if not node.has(attr):
        fail(node, "required attribute missing (give body1" + (" and anchor" if kind == "connect" else "")
             + ", or site1 and site2)", attr)
    objtype = ObjType.BODY
    ids = ctx.lookup(objtype, node, "body1"), ctx.lookup(objtype, node, "body2") if node.has("body2") else 0
  if ids[0] == ids[1]:
    attr = "site2" if objtype == ObjType.SITE else "body2" if node.has("body2") else "body1"
    fail(node, f"the constraint joins {objtype.name.lower()} {ids[0]} to itself", attr)
  return objtype, ids[0], ids[1]


def contact(ctx):
  """pair_* and exclude_*: the explicit contact pairs and the excluded body pairs, each sorted as MuJoCo sorts them."""
  geom_body = ctx.rows.get("geom_bodyid", [])
  pairs = []
  for section in ctx.root.all("contact"):
    for node in section.all("pair"):
      for attr in ("geom1", "geom2"):
        if not node.has(attr):
          fail(node, "required attribute missing", attr)
      g1, g2 = ctx.lookup(ObjType.GEOM, node, "geom1"), ctx.lookup(ObjType.GEOM, node, "geom2")
      if geom_body[g1] > geom_body[g2]:
        g1, g2 = g2, g1
      b1, b2 = geom_body[g1], geom_body[g2]
      if node.get("condim", 3) not in (1, 3, 4, 6):
        fail(node, f"condim must be 1, 3, 4 or 6, got {node.get('condim')}", "condim")
      row = dict(pair_dim=node.get("condim", 3), pair_geom1=g1, pair_geom2=g2, pair_signature=(b1 << 16) + b2,
                 pair_solref=node.get("solref", SOLREF), pair_solreffriction=node.get("solreffriction", [0.0, 0.0]),
                 pair_solimp=node.get("solimp", SOLIMP), pair_margin=node.get("margin", 0.0),
                 pair_gap=node.get("gap", 0.0), pair_friction=node.get("friction", [1.0, 1.0, 0.005, 1e-4, 1e-4]))
      pairs.append((node, row))
  # MuJoCo orders explicit pairs by their body-pair signature (stable for equal signatures).
  for node, row in sorted(pairs, key=lambda p: p[1]["pair_signature"]):
    ctx.add(ObjType.PAIR, node, **row)
  excludes = []
  for section in ctx.root.all("contact"):
    for node in section.all("exclude"):
      for attr in ("body1", "body2"):
        if not node.has(attr):
          fail(node, "required attribute missing", attr)
      b1, b2 = sorted((ctx.lookup(ObjType.BODY, node, "body1"), ctx.lookup(ObjType.BODY, node, "body2")))
      excludes.append((node, (b1 << 16) + b2))
  # MuJoCo orders excludes by their signature too (stable for equal signatures)
  for node, signature in sorted(excludes, key=lambda e: e[1]):
    ctx.add(ObjType.EXCLUDE, node, exclude_signature=signature)
