"""Shared helpers of the oracle tests: the `mujoco` package as reference, Gymnasium's models, comparisons."""

import importlib.resources
import pathlib

import mujoco
import numpy as np

from mjgym import physics
from mjgym.physics import types
from mjgym.physics.mjcf.tree import dof_madr

MODELS_DIR = pathlib.Path(__file__).resolve().parent / "models"

GYM_MODELS = ("hopper", "walker2d", "half_cheetah", "ant", "humanoid", "humanoidstandup", "reacher", "pusher",
              "swimmer", "inverted_pendulum", "inverted_double_pendulum")


def gym_asset(name):
  """Path of one of the MJCF models Gymnasium ships (found in the installed package, never copied here)."""
  return pathlib.Path(str(importlib.resources.files("gymnasium.envs.mujoco") / "assets" / f"{name}.xml"))


def model_from_mujoco(mjm):
  """Our MjModel built field by field from a model compiled by MuJoCo itself.

  Lets the kernels be checked against MuJoCo independently of our MJCF compiler.
  """
  values = {}
  for name, _, shape in types.MODEL_ROWS:
    src = name[4:] if name.startswith("opt_") else name
    holder = mjm.opt if name.startswith("opt_") else mjm
    if hasattr(holder, src):
      values[name] = getattr(holder, src)
  # MuJoCo 4 keeps one texture per material role; the colour (RGB) role is the one we model.
  values["mat_texid"] = mjm.mat_texid[:, int(mujoco.mjtTextureRole.mjTEXROLE_RGB)] if mjm.nmat else []
  values["nu"] = mjm.nu
  # MuJoCo 4 sizes its contact and constraint buffers dynamically (-1); ours are fixed capacities.
  if mjm.nconmax < 0:
    values["nconmax"] = 8 * mjm.ngeom + 64
  if mjm.njmax < 0:
    values["njmax"] = 3 * mjm.nv + 6 * mjm.neq + 2 * mjm.ntendon + 6 * values.get("nconmax", mjm.nconmax)
  values["dof_Madr"], values["nM"] = dof_madr(mjm.dof_parentid)
  counts = {types.ObjType.BODY: mjm.nbody, types.ObjType.JOINT: mjm.njnt, types.ObjType.GEOM: mjm.ngeom,
            types.ObjType.SITE: mjm.nsite, types.ObjType.ACTUATOR: mjm.nu, types.ObjType.TENDON: mjm.ntendon,
            types.ObjType.CAMERA: mjm.ncam, types.ObjType.LIGHT: mjm.nlight}
  names = {objtype: [mujoco.mj_id2name(mjm, int(objtype), i) or "" for i in range(count)]
           for objtype, count in counts.items()}
  return physics.MjModel.from_fields(values, names)


def copy_state(mjd, d):
  """Copies MuJoCo's state and inputs into our Data."""
  for name in ("qpos", "qvel", "act", "ctrl", "qfrc_applied", "xfrc_applied", "mocap_pos", "mocap_quat"):
    getattr(d, name)[...] = getattr(mjd, name)
  d.time = mjd.time


def random_state(mjm, mjd, rng, scale=1.0):
  """A random but valid state: qpos around qpos0 (normalized quaternions), qvel, act and ctrl."""
  mujoco.mj_resetData(mjm, mjd)
  mjd.qpos[:] = mjm.qpos0 + scale * rng.uniform(-1, 1, mjm.nq) * 0.5
  for j in range(mjm.njnt):
    adr = mjm.jnt_qposadr[j]
    if mjm.jnt_type[j] == mujoco.mjtJoint.mjJNT_FREE:
      adr += 3
    if mjm.jnt_type[j] in (mujoco.mjtJoint.mjJNT_FREE, mujoco.mjtJoint.mjJNT_BALL):
      q = rng.normal(size=4)
      mjd.qpos[adr:adr + 4] = q / np.linalg.norm(q)
  mjd.qvel[:] = scale * rng.normal(size=mjm.nv)
  mjd.act[:] = rng.uniform(-1, 1, mjm.na)
  lo, hi = mjm.actuator_ctrlrange.T if mjm.nu else (np.zeros(0), np.zeros(0))
  mjd.ctrl[:] = rng.uniform(-1.2, 1.2, mjm.nu) * np.where(hi > lo, np.maximum(np.abs(lo), np.abs(hi)), 1.0)


def disable_constraints(mjm):
  mjm.opt.disableflags |= int(mujoco.mjtDisableBit.mjDSBL_CONSTRAINT) | int(mujoco.mjtDisableBit.mjDSBL_CONTACT)


def assert_close(actual, expected, rtol, name="", atol_scale=1.0):
  """Relative error check: |a - e| <= rtol * max(1, |e|_inf) elementwise, with the field named on failure."""
  actual = np.asarray(actual, dtype=float)
  expected = np.asarray(expected, dtype=float)
  assert actual.shape == expected.shape, f"{name}: shape {actual.shape} != {expected.shape}"
  if expected.size == 0:
    return
  scale = max(1.0, float(np.max(np.abs(expected)))) * atol_scale
  err = np.max(np.abs(actual - expected))
  assert err <= rtol * scale, f"{name}: max abs error {err:.3e} > {rtol:.0e} * scale {scale:.3e}"


def check_forward_at_random_states(mjm, mjd, m, d, rng, nstates, fields, rtol, label=""):
  """At ``nstates`` random states (``random_state`` with ``rng``), ``mj_forward`` in both engines gives MuJoCo's
  ``fields`` and full inertia matrix within ``rtol`` (``assert_close``); each failure names the state and field."""
  dense, dense_ours = np.zeros((mjm.nv, mjm.nv)), np.zeros((m.nv, m.nv))
  for k in range(nstates):
    random_state(mjm, mjd, rng)
    copy_state(mjd, d)
    mujoco.mj_forward(mjm, mjd)
    physics.mj_forward(m, d)
    for field in fields:
      assert_close(getattr(d, field), getattr(mjd, field), rtol, f"{label}state {k} {field}")
    mujoco.mj_fullM(mjm, mjd, dense)
    physics.mj_fullM(m, d, dense_ours)
    assert_close(dense_ours, dense, rtol, f"{label}state {k} qM")
