"""The kinematic tree's addresses: joints and dofs (qpos0, dof parameters, dof_parentid), kinematic trees, the
rows of the sparse inertia matrix, each body's geoms, and the frame flags kinematics uses (sameframe, simple)."""

import numpy as np

from mjgym.physics import types
from mjgym.physics.mjcf import frames
from mjgym.physics.mjcf.bodies import JOINT_NV
from mjgym.physics.mjcf.context import EPS
from mjgym.physics.mjcf.context import linear
from mjgym.physics.mjcf.defaults import SOLIMP
from mjgym.physics.mjcf.defaults import SOLREF
from mjgym.physics.types import JointType


def joints_and_dofs(ctx, v):
  """Per body its root, weld and mocap ids and the addresses of its joints and dofs; qpos0 and qpos_spring; and
  the dof rows: each dof's body, joint and parent dof, with its joint's armature, damping and friction loss."""
  nbody = len(ctx.body_info)
  parent = np.array(ctx.rows["body_parentid"], np.int32)
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
    info = ctx.body_info[b]
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
      if jtype == JointType.FREE:
        q = [*ctx.rows["body_pos"][b], *ctx.rows["body_quat"][b]]
        qpos0 += q
        qpos_spring += q
      elif jtype == JointType.BALL:
        qpos0 += [1.0, 0.0, 0.0, 0.0]
        qpos_spring += [1.0, 0.0, 0.0, 0.0]
      else:
        qpos0.append(j["ref"])
        qpos_spring.append(j["springref"])
      for _ in range(JOINT_NV[jtype]):
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
  v.update(nq=len(qpos0), nv=len(dof_bodyid), nbody=nbody, nmocap=nmocap, qpos0=np.array(qpos0, float),
           qpos_spring=qpos_spring, body_rootid=rootid, body_weldid=weldid, body_mocapid=mocapid, body_jntadr=jntadr,
           body_jntnum=jntnum, body_dofadr=dofadr, body_dofnum=dofnum, jnt_qposadr=jnt_qposadr, jnt_dofadr=jnt_dofadr,
           dof_bodyid=dof_bodyid, dof_jntid=dof_jntid, dof_parentid=dof_parentid, dof_armature=armature,
           dof_damping=damping, dof_frictionloss=frictionloss, dof_solref=dof_solref, dof_solimp=dof_solimp)


def layout(ctx, v):
  """body_sameframe and body_simple, dof_Madr and nM, the kinematic trees, each body's geoms, and geom_sameframe
  and site_sameframe."""
  nbody = v["nbody"]
  parent = np.array(ctx.rows["body_parentid"], np.int32)
  ipos, iquat = v["body_ipos"], v["body_iquat"]
  body_sameframe = [frames.sameframe(ipos[b], iquat[b]) for b in range(nbody)]
  v.update(body_sameframe=body_sameframe, body_simple=_simple_bodies(ctx, parent, v["body_dofnum"], body_sameframe))
  dof_parentid = np.array(v["dof_parentid"], np.int32)
  v["dof_Madr"], v["nM"] = dof_madr(dof_parentid)
  v["dof_treeid"] = dof_treeid(dof_parentid)
  v.update(trees(v["dof_treeid"], v["body_weldid"], v["body_dofadr"], v["body_dofnum"]))
  geom_bodyid = np.array(ctx.rows.get("geom_bodyid", []), np.int32)
  geomadr, geomnum = np.full(nbody, -1, np.int32), np.bincount(geom_bodyid, minlength=nbody).astype(np.int32)
  for g in range(len(geom_bodyid) - 1, -1, -1):
    geomadr[geom_bodyid[g]] = g
  v.update(body_geomadr=geomadr, body_geomnum=geomnum)
  for kind in ("geom", "site"):
    bodyid, pos, quat = (ctx.rows.get(f"{kind}_{f}", []) for f in ("bodyid", "pos", "quat"))
    v[f"{kind}_sameframe"] = [frames.sameframe(pos[i], quat[i], ipos[b], iquat[b]) for i, b in enumerate(bodyid)]


def dof_madr(dof_parentid):
  """Addresses of the rows of MuJoCo's legacy sparse qM: row i holds M[i, i] then M[i, j] for each ancestor
  dof j of i, nearest first. Returns (dof_Madr (nv,) int32, nM)."""
  nv = len(dof_parentid)
  madr = np.zeros(nv, np.int32)
  adr = 0
  for i in range(nv):
    madr[i] = adr
    j = i
    while j >= 0:
      adr += 1
      j = dof_parentid[j]
  return madr, adr


def dof_treeid(dof_parentid):
  """Kinematic tree of each dof (nv,) int32: trees are numbered by their first dof, in order."""
  tree = np.zeros(len(dof_parentid), np.int32)
  count = 0
  for i, parent in enumerate(dof_parentid):
    if parent < 0:
      tree[i] = count
      count += 1
    else:
      tree[i] = tree[parent]
  return tree


def trees(treeid, body_weldid, body_dofadr, body_dofnum):
  """ntree, body_treeid (-1 for bodies that cannot move), tree_dofadr, tree_dofnum from each dof's tree (``treeid``,
  as dof_treeid numbers them): a tree's dofs are contiguous."""
  ntree = int(treeid.max()) + 1 if len(treeid) else 0
  body_treeid = np.array([treeid[body_dofadr[w]] if body_dofnum[w] else -1 for w in body_weldid], np.int32)
  tree_dofnum = np.bincount(treeid, minlength=ntree).astype(np.int32)
  tree_dofadr = (np.cumsum(tree_dofnum) - tree_dofnum).astype(np.int32)
  return dict(ntree=ntree, body_treeid=body_treeid, tree_dofadr=tree_dofadr, tree_dofnum=tree_dofnum)


def _simple_bodies(ctx, parent, dofnum, sameframe):
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
    opted_out = b > 0 and ctx.body_info[b]["node"].get("simple", "auto") == "false"
    simple[b] = sameframe[b] == types.SameFrame.BODY and root_like and not opted_out
  # a parent is never simple, except the world
  parents = parent[1:]
  simple[parents[parents > 0]] = 0
  jnt_type, jnt_pos, jnt_axis = (ctx.rows.get(f"jnt_{f}", []) for f in ("type", "pos", "axis"))
  for b in range(1, nbody):
    joints = [j["id"] for j in ctx.body_info[b]["joints"]]
    rotation_before = False
    for j in joints:
      aligned = np.count_nonzero(np.abs(jnt_axis[j]) > EPS) == 1
      if (rotation_before or not frames.same_vec(jnt_pos[j], np.zeros(3))
          or (jnt_type[j] in (JointType.SLIDE, JointType.HINGE) and not aligned)):
        simple[b] = 0
      rotation_before = rotation_before or jnt_type[j] in (JointType.BALL, JointType.HINGE)
    if simple[b] and joints:
      simple[b] = 2 if all(jnt_type[j] == JointType.SLIDE for j in joints) else 1
  return simple
