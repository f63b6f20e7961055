"""Oracle tests of actuation (actuation.py) against MuJoCo's mj_forward and mj_step."""

import mujoco
import numpy as np
import pytest

import oracle
from mjgym import physics
from mjgym.physics import actuation

RTOL = 1e-9
ACTUATION_FIELDS = ("act_dot", "actuator_force", "qfrc_actuator", "actuator_length", "actuator_velocity")


@pytest.mark.parametrize("kind,name", oracle.STAGE_MODELS)
def test_actuation(kind, name):
  mjm, mjd, m, d = oracle.load_stage_model(kind, name)
  for _ in oracle.stage_states(mjm, mjd, m, d, seed=21):
    ctrl = d.ctrl.copy()
    oracle.assert_fields_close(d, mjd, ACTUATION_FIELDS, RTOL, name)
    np.testing.assert_array_equal(d.ctrl, ctrl)


@pytest.mark.parametrize("flags", [mujoco.mjtDisableBit.mjDSBL_CLAMPCTRL, mujoco.mjtDisableBit.mjDSBL_ACTUATION])
def test_disable_flags(flags):
  mjm, mjd, m, d = oracle.load_stage_model("file", "kernel_actuators.xml")
  mjm.opt.disableflags |= int(flags)
  m.opt.disableflags = mjm.opt.disableflags
  for _ in oracle.stage_states(mjm, mjd, m, d, seed=22):
    oracle.assert_fields_close(d, mjd, ACTUATION_FIELDS, RTOL, "kernel_actuators")


def test_next_activation():
  """next_activation is the activation MuJoCo's Euler step produces (exact for filterexact, clamped)."""
  mjm, mjd, m, d = oracle.load_stage_model("file", "kernel_actuators.xml")
  for _ in oracle.stage_states(mjm, mjd, m, d, seed=23):
    expected = np.zeros(mjm.na)
    for i in range(mjm.nu):
      adr = mjm.actuator_actadr[i]
      if adr >= 0:
        expected[adr] = actuation.next_activation(m._struct, d._struct, i, d.act[adr], d.act_dot[adr])
    mujoco.mj_step(mjm, mjd)
    oracle.assert_close(expected, mjd.act, RTOL, "next_activation")


@pytest.mark.parametrize("model", ["inverted_pendulum.xml", "reacher.xml", "ant.xml"])
@pytest.mark.parametrize("bad", [np.nan, 1e11, -np.inf])
def test_bad_ctrl_is_mujocos_badctrl(model, bad):
  """A control that is NaN or beyond mjMAXVAL after clamping: BADCTRL counted once per actuation evaluation (RK4:
  four a step) with the actuator's index, every actuator on zero control, d.ctrl untouched; an infinite control
  of a ctrllimited actuator is clamped and runs (compared with MuJoCo's mj_step)."""
  from mjgym.envs.base import asset_path  # pylint: disable=import-outside-toplevel
  mjm, mjd, m, d = oracle.load_both(asset_path(model))
  for limited in (True, False):
    mjm.actuator_ctrllimited[:] = limited
    m.actuator_ctrllimited[:] = limited
    for step in range(3):
      ctrl = np.full(mjm.nu, 0.3)
      ctrl[-1] = bad if step != 1 else 0.4
      mjd.ctrl[:] = ctrl
      d.ctrl[:] = ctrl
      mujoco.mj_step(mjm, mjd)
      physics.mj_step(m, d)
      w = int(mujoco.mjtWarning.mjWARN_BADCTRL)
      assert d.warning_number[w] == mjd.warning[w].number
      assert d.warning_lastinfo[w] == mjd.warning[w].lastinfo
      np.testing.assert_array_equal(d.ctrl, ctrl, err_msg="d.ctrl is the user's")
      for field in ("qpos", "qvel", "actuator_force", "qfrc_actuator"):
        np.testing.assert_allclose(getattr(d, field), getattr(mjd, field), rtol=RTOL, atol=1e-12, err_msg=field)
  assert mjd.warning[int(mujoco.mjtWarning.mjWARN_BADCTRL)].number > 0


def test_joint_actuator_force_limits_and_gravcomp():
  """actuatorfrcrange clamps the total actuator force at a hinge or slide (not a ball), actuatorgravcomp moves a
  joint's gravity compensation from qfrc_passive to qfrc_actuator (before the clamp): a 300-step rollout under
  random controls in both engines, compared after every step."""
  mjm, m = oracle.models(oracle.MODELS_DIR / "joint_actuator_limits.xml")
  for name in ("jnt_actfrclimited", "jnt_actfrcrange", "jnt_actgravcomp"):
    np.testing.assert_array_equal(getattr(m, name), getattr(mjm, name), err_msg=name)
  mjd, d = mujoco.MjData(mjm), physics.MjData(m)
  rng = np.random.default_rng(19)
  clamped = 0
  for _ in range(300):
    d.ctrl[:] = mjd.ctrl[:] = rng.uniform(-1, 1, mjm.nu) * [1, 1, 1, 0.3, 1]
    mujoco.mj_step(mjm, mjd)
    physics.mj_step(m, d)
    for name in ("qfrc_actuator", "qfrc_gravcomp", "qfrc_passive", "sensordata", "qpos", "qvel"):
      oracle.assert_close(getattr(d, name), getattr(mjd, name), 1e-9, name)
    clamped += mjd.qfrc_actuator[0] in (-2.0, 1.5)
  assert clamped > 50


_INHERIT = """<mujoco><compiler angle="radian"/><default><default class="arm">
    <position kp="50" kv="4" inheritrange="0.8"/><motor ctrlrange="-7 7" ctrllimited="true"/></default>
    <default class="leg"><position kp="50" inheritrange="0.8"/></default></default>
  <worldbody><body><joint name="j" range="-1 2"/><geom size=".1" pos="0 0 -.5"/></body></worldbody>
  <actuator><motor class="arm" name="m" joint="j"/><position class="arm" name="p" joint="j"/>
    <position class="leg" name="q" joint="j"/></actuator></mujoco>"""


def test_inheritrange_only_for_the_shortcuts_that_take_it():
  """A class's <position inheritrange> default does not touch a <motor> of that class: it keeps the class's
  ctrlrange, and so does a <position> of that class (the class's ctrlrange wins); a class without a ctrlrange gives
  its <position> 0.8 of the joint's range about the middle. As in MuJoCo."""
  mjm, m = oracle.models(_INHERIT)
  np.testing.assert_allclose(mjm.actuator_ctrlrange, [[-7, 7], [-7, 7], [-0.7, 1.7]])
  for field in ("actuator_ctrlrange", "actuator_ctrllimited", "actuator_gainprm", "actuator_biasprm"):
    np.testing.assert_array_equal(getattr(m, field), getattr(mjm, field), err_msg=field)
