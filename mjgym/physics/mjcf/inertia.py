"""Body inertias (explicit <inertial>, or summed from the body's geoms, as MuJoCo sums them), the <compiler> bounds
and scaling applied to them, the checks on moving bodies, and the body frames and subtree coms at qpos0."""

import numpy as np

from mjgym.physics.mjcf import frames
from mjgym.physics.mjcf import spatial
from mjgym.physics.mjcf.context import EPS
from mjgym.physics.mjcf.context import MINVAL
from mjgym.physics.mjcf.context import plain
from mjgym.physics.mjcf.errors import fail
from mjgym.physics.types import JointType


def body_inertias(ctx, v):
  """body_mass, body_ipos, body_iquat, body_inertia: as given, or from the geoms, bounded (set_total_mass
  scales them later)."""
  nbody = len(ctx.body_info)
  mass = np.zeros(nbody)
  ipos = np.zeros((nbody, 3))
  iquat = np.tile(spatial.IDENTITY_QUAT, (nbody, 1))
  inertia = np.zeros((nbody, 3))
  mode = ctx.cfg.inertiafromgeom
  for b in range(1, nbody):
    info = ctx.body_info[b]
    inertial = info["inertial"]
    if inertial is not None and mode != "true":
      mass[b], ipos[b], iquat[b], inertia[b] = _explicit_inertial(ctx, inertial)
    elif mode != "false" and any(counts(g) for g in info["geoms"]):
      # MuJoCo leaves geoms of (nearly) no mass out of the body's inertia: one other geom gives its frame
      mass[b], ipos[b], iquat[b], inertia[b] = _geom_inertia([g for g in info["geoms"] if counts(g)])
    else:
      # MuJoCo gives a body without any inertial information its own frame values here.
      ipos[b], iquat[b] = ctx.rows["body_pos"][b], ctx.rows["body_quat"][b]
  for b in range(1, nbody):
    mass[b] = max(mass[b], ctx.cfg.boundmass)
    inertia[b] = np.maximum(inertia[b], ctx.cfg.boundinertia)
    if ctx.cfg.balanceinertia:
      a = inertia[b]
      if a[0] + a[1] < a[2] or a[0] + a[2] < a[1] or a[1] + a[2] < a[0]:
        inertia[b] = a.mean()
  v.update(body_mass=mass, body_ipos=ipos, body_iquat=iquat, body_inertia=inertia)


def align_free_bodies(ctx, v):
  """Free-joint alignment (<freejoint align>, or <compiler alignfree> for align="auto"): a childless body whose
  only joint is free takes its inertial frame as its own frame, and its geoms, sites, cameras and lights are
  re-expressed in it, as MuJoCo does."""
  rows = ctx.rows
  parents = set(rows["body_parentid"])
  for b in range(1, len(ctx.body_info)):
    joints = ctx.body_info[b]["joints"]
    if len(joints) != 1 or joints[0]["type"] != JointType.FREE or b in parents:
      continue
    align = joints[0]["node"].get("align", "auto")
    if not (align == "true" or (align == "auto" and ctx.cfg.alignfree)):
      continue
    ipos, iquat = v["body_ipos"][b].copy(), v["body_iquat"][b].copy()
    rows["body_pos"][b], rows["body_quat"][b] = spatial.frame_accum(rows["body_pos"][b], rows["body_quat"][b],
                                                                    ipos, iquat)
    inv_quat = spatial.quat_conj(iquat)
    inv_pos = -spatial.rotate(inv_quat, ipos)
    v["body_ipos"][b] = np.zeros(3)
    v["body_iquat"][b] = spatial.IDENTITY_QUAT
    for kind in ("geom", "site", "cam", "light"):
      for i, owner in enumerate(rows.get(f"{kind}_bodyid", [])):
        if owner != b:
          continue
        if kind == "light":
          rows["light_pos"][i] = spatial.frame_accum(inv_pos, inv_quat, rows["light_pos"][i],
                                                     spatial.IDENTITY_QUAT)[0]
          rows["light_dir"][i] = spatial.rotate(inv_quat, rows["light_dir"][i])
        else:
          rows[f"{kind}_pos"][i], rows[f"{kind}_quat"][i] = spatial.frame_accum(
              inv_pos, inv_quat, rows[f"{kind}_pos"][i], rows[f"{kind}_quat"][i])


def set_total_mass(ctx, v):
  """compiler settotalmass: masses and inertias scaled to the total asked (after fusestatic, as in MuJoCo)."""
  if ctx.cfg.settotalmass > 0:
    total = v["body_mass"][1:].sum()
    if total > 0:
      scale = ctx.cfg.settotalmass / total
      v["body_mass"] = v["body_mass"] * scale
      v["body_inertia"] = v["body_inertia"] * scale


def kinematics(ctx, v):
  """body_subtreemass, and (xpos, xquat, subtree_com) of the bodies at qpos0, where the model puts them."""
  mass = v["body_mass"]
  nbody = len(ctx.body_info)
  parent = np.array(ctx.rows["body_parentid"], np.int32)
  pos = np.array(ctx.rows["body_pos"], float)
  quat = np.array(ctx.rows["body_quat"], float)
  xpos, xquat = np.zeros((nbody, 3)), np.tile(spatial.IDENTITY_QUAT, (nbody, 1))
  for b in range(1, nbody):
    p = parent[b]
    xpos[b] = xpos[p] + spatial.rotate(xquat[p], pos[b])
    xquat[b] = spatial.quat_mul(xquat[p], quat[b])
    xquat[b] /= np.linalg.norm(xquat[b])
  xipos = np.array([xpos[b] + spatial.rotate(xquat[b], v["body_ipos"][b]) for b in range(nbody)])
  subtree_mass = mass.copy()
  weighted = mass[:, None] * xipos
  for b in range(nbody - 1, 0, -1):
    subtree_mass[parent[b]] += subtree_mass[b]
    weighted[parent[b]] += weighted[b]
  v["body_subtreemass"] = subtree_mass
  subtree_com = np.where(subtree_mass[:, None] > MINVAL, weighted / np.maximum(subtree_mass, MINVAL)[:, None], xipos)
  return xpos, xquat, subtree_com


def check_masses(ctx, v):
  """MuJoCo's checks of the bodies' masses and inertias: a moving body needs both (or welded children that carry
  them), and principal moments that satisfy the triangle inequality."""
  weldid, mass, inertia = v["body_weldid"], v["body_mass"], v["body_inertia"]
  for b in range(1, len(ctx.body_info)):
    info = ctx.body_info[b]
    if info["joints"] and not (mass[b] >= MINVAL and np.all(inertia[b] >= MINVAL)):
      # A massless body on joints is allowed when its welded children carry the mass (MuJoCo's rule).
      children = [c for c in range(b + 1, len(ctx.body_info)) if weldid[c] == b]
      if not children:
        what = ("mass and inertia of moving bodies must be larger than 1e-15 (add geoms, an <inertial>, or "
                "compiler boundmass/boundinertia)")
        if np.isnan(mass[b]) or np.any(np.isnan(inertia[b])):
          what = (f"mass {plain(mass[b])} and inertia {plain(inertia[b])} of a moving body must "
                  "be numbers larger than 1e-15 (NaN from a NaN mass, density, size or position, or geoms too "
                  "large or far apart)")
        fail(info["node"], what)
    a = inertia[b]
    tol = 1e-12 * max(1.0, float(a.max())) if np.all(np.isfinite(a)) else 0.0
    if a[0] + a[1] < a[2] - tol or a[0] + a[2] < a[1] - tol or a[1] + a[2] < a[0] - tol:
      node = info["inertial"] or info["node"]
      fail(node, f"principal inertia {plain(a)} violates A + B >= C (use compiler balanceinertia='true')")


def _explicit_inertial(ctx, node):
  """(mass, pos, quat, principal moments) of an <inertial> element, checked as MuJoCo checks it."""
  for attr in ("pos", "mass"):
    if not node.has(attr):
      fail(node, "required attribute missing", attr)
  m = node.get("mass")
  if m < 0:
    fail(node, f"mass must be non-negative, got {m}", "mass")
  quat = frames.orientation(ctx.cfg, node)
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


def _geom_inertia(geoms):
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


def counts(geom):
  """Whether a geom enters its body's inertia: a mass above mjEPS, as in MuJoCo (a NaN mass too, so that the
  body's error names it)."""
  return geom["mass"] > EPS or np.isnan(geom["mass"])
