"""The last compile stages: keyframes (which need every size), and the field dict assembled from the object rows
with the object counts."""

import numpy as np

from mjgym.physics.mjcf.errors import fail
from mjgym.physics.types import ObjType

# Object type -> the model's count of it (bodies and sensors are counted where their addresses are made).
_COUNTS = {ObjType.JOINT: "njnt", ObjType.GEOM: "ngeom", ObjType.SITE: "nsite", ObjType.CAMERA: "ncam",
           ObjType.LIGHT: "nlight", ObjType.MESH: "nmesh", ObjType.HFIELD: "nhfield", ObjType.MATERIAL: "nmat",
           ObjType.TEXTURE: "ntex", ObjType.TENDON: "ntendon", ObjType.ACTUATOR: "nu", ObjType.EQUALITY: "neq",
           ObjType.PAIR: "npair", ObjType.EXCLUDE: "nexclude", ObjType.KEY: "nkey"}


def keyframes(ctx, v):
  """key_* and nkey: the <keyframe> keys (completed from qpos0, zeros and the mocap bodies' poses), then as many
  default keys as <size nkey> asks for beyond them."""
  nq, nv, nu, na, nmocap = v["nq"], v["nv"], len(ctx.names[ObjType.ACTUATOR]), v["na"], v["nmocap"]
  mocap_bodies = [b for b in range(len(ctx.body_info)) if ctx.body_info[b].get("mocap")]
  mpos0 = np.array([ctx.rows["body_pos"][b] for b in mocap_bodies]).reshape(nmocap, 3)
  mquat0 = np.array([ctx.rows["body_quat"][b] for b in mocap_bodies]).reshape(nmocap, 4)
  nkey = 0
  for node in ctx.root.all("size"):
    nkey = max(nkey, node.get("nkey", 0))
  keys = [k for section in ctx.root.all("keyframe") for k in section.all("key")]
  nkey = max(nkey, len(keys))
  out = dict(key_time=np.zeros(nkey), key_qpos=np.tile(v["qpos0"], (nkey, 1)), key_qvel=np.zeros((nkey, nv)),
             key_act=np.zeros((nkey, na)), key_ctrl=np.zeros((nkey, nu)),
             key_mpos=np.tile(mpos0, (nkey, 1, 1)), key_mquat=np.tile(mquat0, (nkey, 1, 1)))
  sizes = {"qpos": nq, "qvel": nv, "act": na, "ctrl": nu, "mpos": 3 * nmocap, "mquat": 4 * nmocap}
  for i, node in enumerate(keys):
    ctx.add(ObjType.KEY, node)
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
  ctx.names[ObjType.KEY] += [""] * (nkey - len(keys))
  out["nkey"] = nkey
  v.update(out)


def assemble(ctx, v):
  """The object rows not yet in the field dict as arrays, and the object counts; tables of types without objects are
  left to MjModel, which makes them in their table's shape."""
  for key, rows in ctx.rows.items():
    if key not in v:
      v[key] = np.array(rows)
  for objtype, size in _COUNTS.items():
    v.setdefault(size, len(ctx.names[objtype]))
  # Row lists of object types with no objects come out empty; give them their table shape.
  for key in list(v):
    if isinstance(v[key], np.ndarray) and v[key].size == 0:
      del v[key]
