"""Oracle tests of actuation (actuation.py) against MuJoCo's mj_forward and mj_step."""

import mujoco
import numpy as np
import pytest

import oracle
from mjgym.physics import actuation
from test_smooth import MODELS, RTOL, compare, load, states

ACTUATION_FIELDS = ("act_dot", "actuator_force", "qfrc_actuator", "actuator_length", "actuator_velocity")


@pytest.mark.parametrize("kind,name", MODELS)
def test_actuation(kind, name):
  mjm, mjd, m, d = load(kind, name)
  for _ in states(mjm, mjd, m, d, seed=21):
    ctrl = d.ctrl.copy()
    compare(d, mjd, ACTUATION_FIELDS, name)
    np.testing.assert_array_equal(d.ctrl, ctrl)


@pytest.mark.parametrize("flags", [mujoco.mjtDisableBit.mjDSBL_CLAMPCTRL, mujoco.mjtDisableBit.mjDSBL_ACTUATION])
def test_disable_flags(flags):
  mjm, mjd, m, d = load("file", "kernel_actuators.xml")
  mjm.opt.disableflags |= int(flags)
  m.opt.disableflags = mjm.opt.disableflags
  for _ in states(mjm, mjd, m, d, seed=22):
    compare(d, mjd, ACTUATION_FIELDS, "kernel_actuators")


def test_next_activation():
  """next_activation is the activation MuJoCo's Euler step produces (exact for filterexact, clamped)."""
  mjm, mjd, m, d = load("file", "kernel_actuators.xml")
  for _ in states(mjm, mjd, m, d, seed=23):
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
  from mjgym import physics  # pylint: disable=import-outside-toplevel
  from mjgym.envs.base import asset_path  # pylint: disable=import-outside-toplevel
  path = str(asset_path(model))
  mjm = mujoco.MjModel.from_xml_path(path)
  mjd = mujoco.MjData(mjm)
  m = physics.MjModel.from_xml_path(path)
  d = physics.MjData(m)
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
