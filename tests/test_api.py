"""The bindings-shaped API: names, named views, options, reset, keyframes, divergence handling."""

import mujoco
import numpy as np
import pytest

import oracle
from mjgym import physics

XML = """
<mujoco model="api">
  <option timestep="0.01"><flag contact="disable"/></option>
  <worldbody>
    <body name="arm" pos="0 0 1">
      <joint name="shoulder" type="hinge" axis="0 1 0" damping="0.1"/>
      <geom name="upper" type="capsule" fromto="0 0 0 0.5 0 0" size="0.05"/>
      <body name="ball" pos="0.5 0 0">
        <joint name="wrist" type="ball"/>
        <geom type="sphere" size="0.1"/>
      </body>
    </body>
  </worldbody>
  <actuator><motor name="drive" joint="shoulder" gear="3" ctrlrange="-1 1"/></actuator>
  <keyframe><key name="bent" time="1.5" qpos="0.5 1 0 0 0" qvel="1 0 0 0" ctrl="0.5"/></keyframe>
</mujoco>
"""


@pytest.fixture(name="model")
def _model():
  return physics.MjModel.from_xml_string(XML)


def test_names_and_views(model):
  d = physics.MjData(model)
  assert physics.mj_name2id(model, physics.mjtObj.BODY, "ball") == 2
  assert physics.mj_name2id(model, physics.mjtObj.JOINT, "nope") == -1
  assert physics.mj_id2name(model, physics.mjtObj.ACTUATOR, 0) == "drive"
  assert model.body("arm").id == 1 and model.geom("upper").type[0] == physics.mjtGeom.CAPSULE
  assert model.actuator("drive").gear[0] == 3.0
  d.joint("wrist").qpos[:] = [0, 1, 0, 0]
  assert np.array_equal(d.qpos[1:5], [0, 1, 0, 0])
  assert d.joint("wrist").qvel.shape == (3,)
  physics.mj_forward(model, d)
  assert np.array_equal(d.body("ball").xpos, d.xpos[2])
  # the bindings' errors, which name what is valid
  with pytest.raises(KeyError, match=r"Invalid name 'missing'\. Valid names: \['arm', 'ball', 'world'\]"):
    model.body("missing")
  with pytest.raises(IndexError, match=r"Invalid index 3\. Valid indices from 0 to 2"):
    d.body(3)
  assert d.body("ball") is d.body(2) and d.body("ball").xpos is d.body(2).xpos  # one view per object


def test_options_reach_compiled_code(model):
  d = physics.MjData(model)
  model.opt.timestep = 0.02
  physics.mj_step(model, d)
  assert d.time == pytest.approx(0.02)
  model.opt.gravity = [0, 0, 0]
  physics.mj_forward(model, d)
  assert np.allclose(d.qfrc_bias, 0)


def test_reset_and_keyframe(model):
  d = physics.MjData(model)
  physics.mj_resetDataKeyframe(model, d, 0)
  assert d.time == 1.5 and d.qpos[0] == 0.5 and d.ctrl[0] == 0.5
  physics.mj_step(model, d, 3)
  physics.mj_resetData(model, d)
  assert d.time == 0 and np.array_equal(d.qpos, model.qpos0) and not d.qvel.any() and not d.ctrl.any()
  with pytest.raises(IndexError):
    physics.mj_resetDataKeyframe(model, d, 1)


def test_full_m_checks_destination(model):
  d = physics.MjData(model)
  physics.mj_forward(model, d)
  with pytest.raises(ValueError, match="shape"):
    physics.mj_fullM(model, d, np.zeros((2, 2)))
  dense = np.zeros((model.nv, model.nv))
  physics.mj_fullM(model, d, dense)
  assert np.allclose(dense, dense.T) and np.all(np.linalg.eigvalsh(dense) > 0)


def test_divergence_is_detected_and_reset(model):
  """A NaN velocity is never integrated: the world is reset and the warning counted, as in MuJoCo."""
  d = physics.MjData(model)
  d.qvel[0] = np.nan
  physics.mj_step(model, d)
  assert d.warning.number[physics.mjtWarning.BADQVEL] == 1
  assert d.warning.lastinfo[physics.mjtWarning.BADQVEL] == 0
  assert np.all(np.isfinite(d.qpos)) and np.all(np.isfinite(d.qvel))
  d.qpos[2] = 1e12
  physics.mj_step(model, d)
  assert d.warning.number[physics.mjtWarning.BADQPOS] == 1
  assert np.all(np.abs(d.qpos) < 10)


def test_huge_force_gives_badqacc_warning(model):
  d = physics.MjData(model)
  d.qfrc_applied[0] = 1e30
  physics.mj_step(model, d)
  assert d.warning.number[physics.mjtWarning.BADQACC] == 1
  assert np.all(np.isfinite(d.qacc))


def test_bindings_spellings_work():
  """Code written for the `mujoco` bindings runs unchanged: enum spellings and warning access."""
  assert physics.mjtJoint.mjJNT_HINGE == physics.mjtJoint.HINGE == 3
  assert physics.mjtObj.mjOBJ_BODY == 1 and physics.mjtIntegrator.mjINT_RK4 == 1
  flags = physics.mjtDisableBit.mjDSBL_CONTACT | physics.mjtDisableBit.mjDSBL_CONSTRAINT
  assert int(flags) == 17
  m = physics.MjModel.from_xml_string(XML)
  d = physics.MjData(m)
  d.qvel[0] = np.inf
  physics.mj_step(m, d)
  assert d.warning[physics.mjtWarning.mjWARN_BADQVEL].number == 1


def test_warning_stat_is_ints_that_write_through():
  """As in the bindings: ``d.warning[i].number`` / ``.lastinfo`` are Python ints, assignable, and
  ``d.warning.number`` is the array of all counts; the same code runs on MuJoCo's Data."""
  mjm, m = oracle.models(XML)
  for d in (physics.MjData(m), mujoco.MjData(mjm)):
    w = int(physics.mjtWarning.mjWARN_BADQACC)
    stat = d.warning[w]
    assert type(stat.number) is int and type(stat.lastinfo) is int  # pylint: disable=unidiomatic-typecheck
    stat.number = 5
    d.warning[w].lastinfo = 7
    assert d.warning[w].number == 5 and d.warning[w].lastinfo == 7
    n = int(mujoco.mjtWarning.mjNWARNING)
    assert len(d.warning) == n and list(d.warning.number) == [0] * w + [5] + [0] * (n - 1 - w)
