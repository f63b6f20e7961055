"""Frames of MJCF elements: orientation attributes to quaternions, <frame> composition, fromto, and which frame of
its body an object's frame coincides with, all in MuJoCo's compiler arithmetic."""

import numpy as np

from mjgym.physics import types
from mjgym.physics.mjcf import spatial
from mjgym.physics.mjcf.errors import fail

ORIENTATIONS = ("quat", "axisangle", "euler", "xyaxes", "zaxis")
# Below this componentwise difference MuJoCo's compiler takes two frames as equal (kFrameEps).
_FRAME_EPS = 1e-6


def orientation(cfg, node):
  """Quaternion of an element's orientation attribute (identity if none); at most one may be given."""
  given = [a for a in ORIENTATIONS if node.has(a)]
  if len(given) > 1:
    fail(node, f"more than one orientation given ({', '.join(given)})", given[1])
  if not given:
    return spatial.IDENTITY_QUAT.copy()
  attr = given[0]
  v = np.asarray(node.get(attr), float)
  # MuJoCo's order of operations (its compiler's normalization, angles as a / 180 * pi), so that frames come
  # out bitwise as its compiler makes them
  if attr == "quat":
    if np.linalg.norm(v) < 1e-15:
      fail(node, "quaternion has zero norm", attr)
    return spatial.unit(v)
  if attr == "axisangle":
    if np.linalg.norm(v[:3]) < 1e-15:
      fail(node, "rotation axis has zero length", attr)
    axis, half = spatial.unit(v[:3]), cfg.orientation_angle(v[3]) / 2
    c, sn = spatial.cos(half), spatial.sin(half)
    return np.array([c, sn * axis[0], sn * axis[1], sn * axis[2]])
  if attr == "euler":
    return spatial.euler_to_quat([cfg.orientation_angle(angle) for angle in v], cfg.eulerseq)
  if attr == "xyaxes":
    x, y = v[:3], v[3:]
    if np.linalg.norm(x) < 1e-15:
      fail(node, "x axis has zero length", attr)
    x = spatial.unit(x)
    y = y - x * (x[0] * y[0] + x[1] * y[1] + x[2] * y[2])
    if np.linalg.norm(y) < 1e-15:
      fail(node, "y axis is parallel to the x axis", attr)
    y = spatial.unit(y)
    return spatial.mat_to_quat(np.column_stack([x, y, spatial.unit(np.cross(x, y))]))
  if np.linalg.norm(v) < 1e-15:
    fail(node, "z axis has zero length", attr)
  return spatial.quat_z_to_vec(v)


def frame(cfg, node):
  """(pos, quat) an element gives itself."""
  return np.asarray(node.get("pos", [0.0, 0.0, 0.0]), float), orientation(cfg, node)


def frames(cfg, node):
  """(pos, quat) of the <frame> elements an element sat in, composed outermost first and normalized as
  MuJoCo's compiler composes them; None for an element outside frames."""
  composed = None
  for outer in node.frames:
    # a copy of a <replicate> sits in a frame applied ``repeat`` times (its copy number)
    for _ in range(outer.get("repeat", 1)):
      pos, quat = frame(cfg, outer)
      composed = (pos, spatial.unit(quat)) if composed is None else spatial.frame_accum(*composed, pos, quat)
  return composed


def in_frames(cfg, node, pos, quat):
  """An element's pos and quat, given in the frames it sat in, in its body's frame."""
  composed = frames(cfg, node)
  if composed is None:
    return pos, quat
  return spatial.frame_accum(*composed, pos, quat)


def fromto_frame(node, gtype, size):
  """pos, quat and size of a geom or site given by its end points."""
  ft = np.asarray(node.get("fromto"), float)
  if gtype not in ("capsule", "cylinder", "box", "ellipsoid"):
    fail(node, f"fromto is only for capsule, cylinder, box and ellipsoid, not {gtype}", "fromto")
  vec = ft[:3] - ft[3:]
  length = spatial.normvec(vec)[1]
  if length < 1e-15:
    fail(node, "the two end points coincide", "fromto")
  size = list(size)
  if gtype in ("capsule", "cylinder"):
    size[1] = 0.5 * length
  else:
    size[1], size[2] = size[0], 0.5 * length
  return 0.5 * (ft[:3] + ft[3:]), spatial.quat_z_to_vec(vec), size


def same_vec(a, b):
  """Same vector within MuJoCo's compiler tolerance, componentwise."""
  return bool(np.all(np.abs(np.subtract(a, b)) < _FRAME_EPS))


def _same_quat(a, b):
  """Same rotation: q or -q within _FRAME_EPS componentwise."""
  a, b = np.asarray(a, float), np.asarray(b, float)
  return same_vec(a, b) or same_vec(a, -b)


def sameframe(pos, quat, ipos=None, iquat=None):
  """Which frame of its body a frame (pos, quat) in the body frame coincides with, to MuJoCo's 1e-6.

  Kinematics copies that frame instead of composing it, so a pose within 1e-6 of it is taken as equal. The
  inertial frame (ipos, iquat) is a candidate for geoms and sites, not for the inertial frame itself.
  """
  if same_vec(pos, np.zeros(3)) and _same_quat(quat, spatial.IDENTITY_QUAT):
    return int(types.SameFrame.BODY)
  if _same_quat(quat, spatial.IDENTITY_QUAT):
    return int(types.SameFrame.BODYROT)
  if ipos is not None and same_vec(pos, ipos) and _same_quat(quat, iquat):
    return int(types.SameFrame.INERTIA)
  if iquat is not None and _same_quat(quat, iquat):
    return int(types.SameFrame.INERTIAROT)
  return int(types.SameFrame.NONE)
