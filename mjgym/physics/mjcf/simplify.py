"""The compiler options that rewrite the model, as MuJoCo 4 applies them: discardvisual (drop materials, textures, and
the geoms and meshes only drawn) and fusestatic (merge each body without joints into its parent).

Both act on the compiled bodies, after their inertias are known (MuJoCo's order): a discarded geom still counts in
its body's mass, and a fused body's mass and inertia join its parent's (unless the parent is the world body).
"""

import numpy as np

from mjgym.physics.mjcf import bodies
from mjgym.physics.mjcf import inertia
from mjgym.physics.mjcf import spatial
from mjgym.physics.mjcf.context import MINVAL
from mjgym.physics.mjcf.errors import fail
from mjgym.physics.types import GeomType
from mjgym.physics.types import JointType
from mjgym.physics.types import ObjType

# Sensor object types that name a body (objtype / reftype).
_BODY_OBJTYPES = ("body", "xbody")
# Attributes that name a body: camera and light targets, <exclude> and equality bodies, skin bones (and the body of
# an actuator's transmission and of a subtree sensor, below).
_BODY_ATTRS = {"camera": ("target",), "light": ("target",), "exclude": ("body1", "body2"),
               "connect": ("body1", "body2"), "weld": ("body1", "body2"), "bone": ("body",)}
_SUBTREE_SENSORS = ("subtreecom", "subtreelinvel", "subtreeangmom")


def drop_visual_assets(ctx):
  """discardvisual: materials and textures go, and every reference to a material with them (before assets)."""
  if not ctx.cfg.discardvisual:
    return
  for asset in ctx.root.all("asset"):
    asset.children = [c for c in asset.children if c.tag not in ("material", "texture")]
  for node in _walk(ctx.root):
    if node.tag != "default":
      node.attrs.pop("material", None)


def discard_visual(ctx, v):
  """discardvisual: geoms that cannot collide (contype = conaffinity = 0) and that no pair, tendon, sensor or tuple
  names, then meshes that no remaining geom or sensor uses. Their bodies keep the mass they gave."""
  if not ctx.cfg.discardvisual:
    return
  named = _named_geoms_and_meshes(ctx.root)
  rows, names = ctx.rows, ctx.names[ObjType.GEOM]
  keep = [g for g in range(len(names))
          if rows["geom_contype"][g] or rows["geom_conaffinity"][g] or (names[g] and ("geom", names[g]) in named)]
  used = {rows["geom_dataid"][g] for g in keep if rows["geom_type"][g] == GeomType.MESH}
  meshes = [i for i, name in enumerate(ctx.names[ObjType.MESH]) if i in used or (name and ("mesh", name) in named)]
  if ctx.cfg.inertiafromgeom == "true":
    dropped = set(range(len(names))).difference(keep)
    for info in ctx.body_info[1:]:
      if any(g["id"] in dropped and inertia.counts(g) for g in info["geoms"]):
        fail(info["node"], "discarding visual geoms would change the inertia of this body, which inertiafromgeom "
             "'true' infers from its geoms (with inertiafromgeom 'auto' the inertia they give is kept)")
  _select(ctx, "geom_", ObjType.GEOM, keep)
  new_mesh = {old: new for new, old in enumerate(meshes)}
  if keep:
    rows["geom_dataid"] = [new_mesh[d] if t == GeomType.MESH else d
                           for d, t in zip(rows["geom_dataid"], rows["geom_type"])]
  ctx.meshes = [ctx.meshes[i] for i in meshes]
  ctx.mesh_nodes = [ctx.mesh_nodes[i] for i in meshes]
  ctx.names[ObjType.MESH] = [ctx.names[ObjType.MESH][i] for i in meshes]
  for info in ctx.body_info:
    info["geoms"] = []  # their inertias are summed; ids would be stale


def fuse_static(ctx, v):
  """fusestatic: each body without joints (not mocap, not named by another element, not holding the site of a
  force or torque sensor) merges into its parent: its geoms, sites, cameras and lights and its child bodies move
  to the parent, their frames composed with the body's, and its mass and inertia join the parent's."""
  if not ctx.cfg.fusestatic:
    return
  rows, info = ctx.rows, ctx.body_info
  body_names = ctx.names[ObjType.BODY]
  named = _named_bodies(ctx.root)
  site_names = ctx.names[ObjType.SITE]
  pinned = {rows["site_bodyid"][site_names.index(n)] for n in _force_torque_sites(ctx.root) if n in site_names}
  parent = list(rows["body_parentid"])
  pos, quat = list(rows["body_pos"]), list(rows["body_quat"])
  inertial = [[v["body_mass"][b], v["body_ipos"][b], v["body_iquat"][b], v["body_inertia"][b]]
              for b in range(len(info))]
  owners = {kind: list(rows[f"{kind}_bodyid"]) for kind in ("geom", "site", "cam", "light") if f"{kind}_bodyid" in rows}
  fused = []
  for b in range(1, len(info)):
    if info[b]["joints"] or info[b]["mocap"] or (body_names[b] and body_names[b] in named) or b in pinned:
      continue
    p = parent[b]
    if p != 0 and inertial[b][0] >= MINVAL:
      inertial[p] = _accumulate(inertial[p], inertial[b], pos[b], quat[b])
    for c in range(b + 1, len(info)):
      if parent[c] == b:
        parent[c] = p
        pos[c], quat[c] = spatial.frame_accum(pos[b], quat[b], pos[c], quat[c])
    for kind, owner in owners.items():
      for i, o in enumerate(owner):
        if o == b:
          owner[i] = p
          if kind == "light":
            rows["light_pos"][i] = spatial.frame_accum(pos[b], quat[b], rows["light_pos"][i],
                                                       spatial.IDENTITY_QUAT)[0]
            rows["light_dir"][i] = spatial.rotate(quat[b], rows["light_dir"][i])
          else:
            rows[f"{kind}_pos"][i], rows[f"{kind}_quat"][i] = spatial.frame_accum(
                pos[b], quat[b], rows[f"{kind}_pos"][i], rows[f"{kind}_quat"][i])
    fused.append(b)
  for b in range(1, len(info)):
    for j in info[b]["joints"]:
      if j["type"] == JointType.FREE and parent[b] != 0:
        bodies.free_joint_not_top_level(j["node"])
  if not fused:
    return
  kept = [b for b in range(len(info)) if b not in set(fused)]
  new_id = {old: new for new, old in enumerate(kept)}
  rows["body_parentid"], rows["body_pos"], rows["body_quat"] = parent, pos, quat
  _select(ctx, "body_", ObjType.BODY, kept)
  ctx.body_info = [info[b] for b in kept]
  rows["body_parentid"] = [new_id[p] if b else 0 for b, p in enumerate(rows["body_parentid"])]
  for column, field in enumerate(("body_mass", "body_ipos", "body_iquat", "body_inertia")):
    v[field] = np.array([inertial[b][column] for b in kept], float)
  for kind, owner in owners.items():
    rows[f"{kind}_bodyid"] = [new_id[o] for o in owner]
    # each body's objects stay together, its own before those it took over (MuJoCo appends them)
    order = sorted(range(len(owner)), key=lambda i: new_id[owner[i]])
    objtype = {"geom": ObjType.GEOM, "site": ObjType.SITE, "cam": ObjType.CAMERA, "light": ObjType.LIGHT}[kind]
    _select(ctx, f"{kind}_", objtype, order)
  for key in ("jnt_bodyid", "cam_targetbodyid", "light_targetbodyid"):
    if key in rows:
      rows[key] = [new_id[t] if t >= 0 else t for t in rows[key]]


def _accumulate(into, other, pos, quat):
  """(mass, ipos, iquat, inertia) of two bodies' inertias summed in the frame of the first (MuJoCo's
  mjCBody::AccumulateInertia); the second body sits at ``pos``, ``quat`` in that frame."""
  other_ipos, other_iquat = spatial.frame_accum(pos, quat, other[1], other[2])
  parts = [(into[0], into[1], into[2], into[3]), (other[0], other_ipos, other_iquat, other[3])]
  mass = 0.0
  com = [0.0, 0.0, 0.0]
  for m, p, _, _ in parts:
    mass += m
    com = [com[k] + m * float(p[k]) for k in range(3)]
  if mass < MINVAL:
    return [0.0, np.zeros(3), spatial.IDENTITY_QUAT.copy(), np.zeros(3)]
  com = [c / mass for c in com]
  tensor = [0.0] * 6
  for m, p, q, moments in parts:
    own = spatial.global_inertia(moments, q)
    shift = spatial.offcenter_inertia(m, [float(p[k]) - com[k] for k in range(3)])
    tensor = [tensor[j] + own[j] + shift[j] for j in range(6)]
  values, iquat = spatial.principal_frame(spatial.tensor_from6(tensor))
  return [mass, np.array(com), iquat, values]


def _select(ctx, prefix, objtype, order):
  """Keeps the objects of one type listed in ``order`` (old ids), in that order: their rows and names."""
  for key, column in ctx.rows.items():
    if key.startswith(prefix):
      ctx.rows[key] = [column[i] for i in order]
  ctx.names[objtype] = [ctx.names[objtype][i] for i in order]


def _walk(node):
  yield node
  for child in node.children:
    yield from _walk(child)


def _in_section(node, tags):
  """Whether an element sits inside one of the sections ``tags`` (not in a <default>)."""
  while node is not None:
    if node.tag == "default":
      return False
    if node.tag in tags:
      return True
    node = node.parent
  return False


def _named_bodies(root):
  """Names of the bodies other elements refer to (these bodies are not fused)."""
  named = set()
  for node in _walk(root):
    if node.tag == "default":
      continue
    for attr in _BODY_ATTRS.get(node.tag, ()):
      if node.get(attr):
        named.add(node.get(attr))
    if _in_section(node, ("actuator",)) and node.get("body"):
      named.add(node.get("body"))
    if _in_section(node, ("sensor",)):
      if node.tag in _SUBTREE_SENSORS and node.get("body"):
        named.add(node.get("body"))
      for typ, obj in (("objtype", "objname"), ("reftype", "refname")):
        if node.get(typ) in _BODY_OBJTYPES and node.get(obj):
          named.add(node.get(obj))
    if node.tag == "element" and node.get("objtype") in _BODY_OBJTYPES:
      named.add(node.get("objname"))
  return named


def _force_torque_sites(root):
  return {n.get("site") for n in _walk(root) if n.tag in ("force", "torque") and _in_section(n, ("sensor",))}


def _named_geoms_and_meshes(root):
  """(kind, name) of the geoms and meshes that pairs, tendons, sensors and tuples name (these are not visual)."""
  named = set()
  for node in _walk(root):
    if node.tag == "default":
      continue
    if node.tag == "pair":
      named.update(("geom", node.get(a)) for a in ("geom1", "geom2") if node.get(a))
    elif node.tag == "geom" and _in_section(node, ("tendon",)):
      named.add(("geom", node.get("geom")))
    elif node.tag == "element":
      named.add((node.get("objtype"), node.get("objname")))
    elif _in_section(node, ("sensor",)):
      for typ, obj in (("objtype", "objname"), ("reftype", "refname")):
        if node.get(typ) in ("geom", "mesh"):
          named.add((node.get(typ), node.get(obj)))
      named.update(("geom", node.get(a)) for a in ("geom1", "geom2") if node.get(a))
  return named
