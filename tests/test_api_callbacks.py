"""set_mjcb_control / set_mjcb_passive: the callbacks run at MuJoCo's points of the pipeline."""

import pathlib

import mujoco
import numpy as np
import pytest

import oracle
from mjgym import physics

ASSETS = pathlib.Path(physics.__file__).resolve().parents[1] / "assets"


@pytest.fixture(autouse=True)
def _clear_callbacks():
  yield
  for lib in (physics, mujoco):
    lib.set_mjcb_control(None)
    lib.set_mjcb_passive(None)


def _control(m, d):
  d.ctrl[:] = np.clip(-2.0 * d.qpos[0] - 0.5 * d.qvel[0] + 3.0 * d.qpos[1], -1, 1)


def _passive(m, d):
  d.qfrc_passive[:] -= 0.05 * d.qvel


@pytest.mark.parametrize("integrator", ["EULER", "IMPLICITFAST", "IMPLICIT"])
@pytest.mark.parametrize("name", ["inverted_double_pendulum", "hopper"])
def test_trajectory_matches_mujoco(name, integrator):
  mjm, mjd, m, d = oracle.load_both(ASSETS / f"{name}.xml", integrator=integrator)
  mjd.qvel[:] = np.random.default_rng(0).normal(0, 0.2, mjm.nv)
  d.qvel[:] = mjd.qvel
  for lib in (physics, mujoco):
    lib.set_mjcb_control(_control)
    lib.set_mjcb_passive(_passive)
  nstep = 200 if name == "inverted_double_pendulum" else 40
  for k in range(nstep):
    if name == "hopper":
      oracle.copy_state(mjd, d)  # contacts: compare one step at a time from MuJoCo's state
      d.qacc_warmstart[:] = mjd.qacc_warmstart
    mujoco.mj_step(mjm, mjd)
    physics.mj_step(m, d)
    oracle.assert_close(d.qvel, mjd.qvel, 1e-8, f"step {k}: qvel")
    oracle.assert_close(d.qpos, mjd.qpos, 1e-8, f"step {k}: qpos")
    np.testing.assert_allclose(d.ctrl, mjd.ctrl, atol=1e-8)
  assert np.any(d.ctrl != 0)


def test_callbacks_see_their_stage():
  m = physics.MjModel.from_xml_path(ASSETS / "inverted_double_pendulum.xml")
  d = physics.MjData(m)
  d.qvel[:] = 0.3
  seen = []

  def passive(m, d):
    seen.append(("passive", d.qfrc_passive.copy(), d.qfrc_bias.copy()))
    d.qfrc_passive[:] += 1.0

  def control(m, d):
    seen.append(("control", d.qfrc_passive.copy(), d.qfrc_bias.copy()))
    d.ctrl[:] = 0.7

  physics.set_mjcb_passive(passive)
  physics.set_mjcb_control(control)
  assert physics.get_mjcb_control() is control and physics.get_mjcb_passive() is passive
  physics.mj_forward(m, d)
  (p_name, p_passive, p_bias), (c_name, c_passive, c_bias) = seen
  assert (p_name, c_name) == ("passive", "control")
  np.testing.assert_array_equal(c_passive, p_passive + 1.0)  # control runs after the passive forces
  assert not np.any(p_bias) and np.any(c_bias)  # passive runs before rne, control after
  assert np.all(d.actuator_force == 0.7 * m.actuator_gainprm[:, 0])  # the control is used in the same pass
  # no passive forces at all when springs and dampers are disabled, as in MuJoCo
  m.opt.disableflags = int(physics.mjtDisableBit.mjDSBL_SPRING | physics.mjtDisableBit.mjDSBL_DAMPER)
  seen.clear()
  physics.mj_forward(m, d)
  assert [s[0] for s in seen] == ["control"]
  m.opt.disableflags = int(physics.mjtDisableBit.mjDSBL_ACTUATION)
  seen.clear()
  physics.mj_forward(m, d)
  assert [s[0] for s in seen] == ["passive"]


def test_no_op_callbacks_step_bitwise_like_the_compiled_pipeline():
  m = physics.MjModel.from_xml_path(ASSETS / "hopper.xml")
  m.opt.integrator = int(physics.mjtIntegrator.mjINT_EULER)  # its own RK4 takes no callbacks
  ds = [physics.MjData(m) for _ in range(2)]
  for d in ds:
    d.qvel[:] = 0.4
    d.ctrl[:] = 0.5
  physics.mj_step(m, ds[0], 60)
  physics.set_mjcb_control(lambda m, d: None)
  physics.set_mjcb_passive(lambda m, d: None)
  physics.mj_step(m, ds[1], 60)
  for name in ("qpos", "qvel", "qacc", "sensordata", "qfrc_constraint", "qacc_warmstart"):
    np.testing.assert_array_equal(getattr(ds[1], name), getattr(ds[0], name), err_msg=name)


def test_rk4_is_refused_with_callbacks():
  m = physics.MjModel.from_xml_path(ASSETS / "inverted_double_pendulum.xml")
  m.opt.integrator = int(physics.mjtIntegrator.mjINT_RK4)
  physics.set_mjcb_control(_control)
  with pytest.raises(NotImplementedError, match="RK4"):
    physics.mj_step(m, physics.MjData(m))
  physics.set_mjcb_control(None)
  physics.mj_step(m, physics.MjData(m))


@pytest.mark.parametrize("integrator", ["EULER", "RK4", "IMPLICITFAST"])
def test_step1_step2_match_mujoco(integrator):
  """Controls set between mj_step1 and mj_step2 (and by a control callback in step1); RK4 integrates with Euler."""
  mjm, mjd, m, d = oracle.load_both(ASSETS / "inverted_double_pendulum.xml", integrator=integrator)
  mjd.qvel[:] = d.qvel[:] = 0.3
  for k in range(150):
    if k == 75:
      for lib in (physics, mujoco):
        lib.set_mjcb_control(_control)
    mujoco.mj_step1(mjm, mjd)
    physics.mj_step1(m, d)
    oracle.assert_close(d.qfrc_bias, mjd.qfrc_bias, 1e-8, f"step {k}: qfrc_bias after step1")
    if k < 75:
      mjd.ctrl[:] = d.ctrl[:] = np.sin(0.1 * k)
    mujoco.mj_step2(mjm, mjd)
    physics.mj_step2(m, d)
    oracle.assert_close(d.qpos, mjd.qpos, 1e-8, f"step {k}: qpos")
    oracle.assert_close(d.qvel, mjd.qvel, 1e-8, f"step {k}: qvel")


def test_step1_step2_is_a_step():
  m = physics.MjModel.from_xml_path(ASSETS / "hopper.xml")
  m.opt.integrator = int(physics.mjtIntegrator.mjINT_EULER)
  ds = [physics.MjData(m) for _ in range(2)]
  for d in ds:
    d.qvel[:] = 0.4
    d.ctrl[:] = 0.5
  physics.mj_step(m, ds[0], 60)
  for _ in range(60):
    physics.mj_step1(m, ds[1])
    physics.mj_step2(m, ds[1])
  for name in ("qpos", "qvel", "qacc", "sensordata", "qfrc_constraint", "qacc_warmstart", "time"):
    np.testing.assert_array_equal(getattr(ds[1], name), getattr(ds[0], name), err_msg=name)
