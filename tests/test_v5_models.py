"""mjgym's MJCF assets of the Gymnasium v5 tasks are Gymnasium's physical models.

Our XML files are written here (never copied); each is loaded beside Gymnasium's own model in the `mujoco`
package and every compiled physical field is compared to 1e-12: options, bodies (frames, masses, inertias),
joints and dofs, geoms (sizes, frames, contact parameters), actuators, tendons, equalities, pairs, excludes.
Sensors, cameras, lights, materials and sites that Gymnasium's model lacks are ours to add; sites that it has
must be equal. Names of bodies, joints, geoms, actuators and tendons are compared too, so that
``data.body("torso")`` means the same thing in both.

Our engine's compile of each asset is compared with MuJoCo's on the same fields (it feeds the envs).
"""

import importlib.resources

import numpy as np
import pytest

from mjgym import physics
from mjgym.envs.base import asset_path

mujoco = pytest.importorskip("mujoco")

# our asset -> the model Gymnasium's v5 env loads by default
V5_MODELS = {
    "hopper.xml": "hopper.xml",
    "walker2d.xml": "walker2d_v5.xml",
    "half_cheetah.xml": "half_cheetah.xml",
    "ant.xml": "ant.xml",
    "humanoid.xml": "humanoid.xml",
    "humanoidstandup.xml": "humanoidstandup.xml",
    "swimmer.xml": "swimmer.xml",
    "reacher.xml": "reacher.xml",
    "pusher.xml": "pusher_v5.xml",
    "inverted_pendulum.xml": "inverted_pendulum.xml",
    "inverted_double_pendulum.xml": "inverted_double_pendulum.xml",
}

OPTION_FIELDS = ("timestep", "impratio", "tolerance", "ls_tolerance", "noslip_tolerance", "ccd_tolerance",
                 "gravity", "wind", "magnetic", "density", "viscosity", "o_margin", "o_solref", "o_solimp",
                 "o_friction", "integrator", "cone", "jacobian", "solver", "iterations", "ls_iterations",
                 "noslip_iterations", "ccd_iterations", "disableflags", "enableflags")

COUNTS = ("nq", "nv", "nu", "na", "nbody", "njnt", "ngeom", "ntendon", "nwrap", "neq", "npair", "nexclude",
          "nmocap")

MODEL_FIELDS = (
    "qpos0", "qpos_spring",
    "body_parentid", "body_rootid", "body_weldid", "body_mocapid", "body_jntnum", "body_jntadr", "body_dofnum",
    "body_dofadr", "body_geomnum", "body_geomadr", "body_pos", "body_quat", "body_ipos", "body_iquat",
    "body_mass", "body_subtreemass", "body_inertia", "body_gravcomp", "body_contype", "body_conaffinity",
    "jnt_type", "jnt_qposadr", "jnt_dofadr", "jnt_bodyid", "jnt_group", "jnt_limited", "jnt_actfrclimited",
    "jnt_solref", "jnt_solimp", "jnt_pos", "jnt_axis", "jnt_stiffness", "jnt_range", "jnt_actfrcrange",
    "jnt_margin",
    "dof_bodyid", "dof_jntid", "dof_parentid", "dof_solref", "dof_solimp", "dof_frictionloss", "dof_armature",
    "dof_damping", "dof_invweight0",
    "geom_type", "geom_contype", "geom_conaffinity", "geom_condim", "geom_bodyid", "geom_priority",
    "geom_solmix", "geom_solref", "geom_solimp", "geom_size", "geom_rbound", "geom_pos", "geom_quat",
    "geom_friction", "geom_margin", "geom_gap",
    "actuator_trntype", "actuator_dyntype", "actuator_gaintype", "actuator_biastype", "actuator_trnid",
    "actuator_actadr", "actuator_actnum", "actuator_ctrllimited", "actuator_forcelimited",
    "actuator_actlimited", "actuator_dynprm", "actuator_gainprm", "actuator_biasprm", "actuator_ctrlrange",
    "actuator_forcerange", "actuator_actrange", "actuator_gear", "actuator_length0",
    "tendon_adr", "tendon_num", "tendon_limited", "tendon_solref_lim", "tendon_solimp_lim",
    "tendon_solref_fri", "tendon_solimp_fri", "tendon_range", "tendon_margin", "tendon_stiffness",
    "tendon_damping", "tendon_frictionloss", "tendon_lengthspring", "tendon_length0",
    "wrap_type", "wrap_objid", "wrap_prm",
    "eq_type", "eq_obj1id", "eq_obj2id", "eq_active0", "eq_solref", "eq_solimp", "eq_data",
    "pair_dim", "pair_geom1", "pair_geom2", "pair_solref", "pair_solimp", "pair_margin", "pair_gap",
    "pair_friction", "exclude_signature",
)

NAMED = ((mujoco.mjtObj.mjOBJ_BODY, "nbody"), (mujoco.mjtObj.mjOBJ_JOINT, "njnt"),
         (mujoco.mjtObj.mjOBJ_GEOM, "ngeom"), (mujoco.mjtObj.mjOBJ_ACTUATOR, "nu"),
         (mujoco.mjtObj.mjOBJ_TENDON, "ntendon"))

TOL = 1e-12


def gymnasium_asset(name):
  return str(importlib.resources.files("gymnasium.envs.mujoco") / "assets" / name)


def _names(m, obj, count):
  return [mujoco.mj_id2name(m, obj, i) for i in range(getattr(m, count))]


def _close(a, b):
  a, b = np.asarray(a, np.float64), np.asarray(b, np.float64)
  return a.shape == b.shape and np.allclose(a, b, rtol=TOL, atol=TOL)


def model_differences(ours, theirs):
  """Physical fields (and names) where two compiled ``mujoco.MjModel`` differ, as readable lines."""
  out = []
  for f in OPTION_FIELDS:
    if not _close(getattr(ours.opt, f), getattr(theirs.opt, f)):
      out.append(f"opt.{f}: {getattr(ours.opt, f)} != {getattr(theirs.opt, f)}")
  for f in COUNTS:
    if getattr(ours, f) != getattr(theirs, f):
      out.append(f"{f}: {getattr(ours, f)} != {getattr(theirs, f)}")
  if out:
    return out
  for f in MODEL_FIELDS:
    a, b = getattr(ours, f), getattr(theirs, f)
    if not _close(a, b):
      diff = np.argwhere(~np.isclose(np.asarray(a, float), np.asarray(b, float), rtol=TOL, atol=TOL))
      out.append(f"{f}: differs at {diff[:4].tolist()}: {np.asarray(a)[tuple(diff[0])] if len(diff) else a} "
                 f"!= {np.asarray(b)[tuple(diff[0])] if len(diff) else b}")
  for obj, count in NAMED:
    if _names(ours, obj, count) != _names(theirs, obj, count):
      out.append(f"{obj.name} names: {_names(ours, obj, count)} != {_names(theirs, obj, count)}")
  sites = _names(theirs, mujoco.mjtObj.mjOBJ_SITE, "nsite")
  for i, name in enumerate(sites):
    j = mujoco.mj_name2id(ours, mujoco.mjtObj.mjOBJ_SITE, name) if name else -1
    if j < 0:
      out.append(f"site {name or i} of Gymnasium's model is missing")
    elif not (ours.site_bodyid[j] == theirs.site_bodyid[i] and _close(ours.site_pos[j], theirs.site_pos[i])
              and _close(ours.site_quat[j], theirs.site_quat[i])):
      out.append(f"site {name}: body/frame differ")
  return out


@pytest.mark.parametrize("ours, theirs", sorted(V5_MODELS.items()))
def test_asset_is_gymnasium_v5_model(ours, theirs):
  mine = mujoco.MjModel.from_xml_path(asset_path(ours))
  gym_model = mujoco.MjModel.from_xml_path(gymnasium_asset(theirs))
  assert model_differences(mine, gym_model) == []


ENGINE_FIELDS = ("body_pos", "body_quat", "body_ipos", "body_iquat", "body_mass", "body_inertia", "jnt_type",
                 "jnt_pos", "jnt_axis", "jnt_range", "jnt_stiffness", "dof_armature", "dof_damping",
                 "dof_invweight0", "geom_type", "geom_size", "geom_pos", "geom_quat", "geom_friction",
                 "geom_margin", "geom_solref", "geom_solimp", "geom_condim", "actuator_gear", "actuator_gainprm",
                 "actuator_biasprm", "actuator_ctrlrange", "tendon_stiffness", "tendon_damping", "wrap_prm",
                 "sensor_type", "sensor_objid", "sensor_reftype", "sensor_refid", "sensor_adr", "sensor_dim",
                 "sensor_cutoff", "qpos0")


@pytest.mark.parametrize("ours", sorted(V5_MODELS))
def test_engine_compiles_asset_as_mujoco(ours):
  mine = physics.MjModel.from_xml_path(asset_path(ours))
  ref = mujoco.MjModel.from_xml_path(asset_path(ours))
  for f in ENGINE_FIELDS:
    a, b = np.asarray(getattr(mine, f)), np.asarray(getattr(ref, f))
    assert a.shape == b.shape, f
    np.testing.assert_allclose(a, b, rtol=TOL, atol=TOL, err_msg=f)
