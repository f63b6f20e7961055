"""mj_inverse against MuJoCo: qfrc_inverse, the inverse constraint forces and the sensors, with contacts, each
solver, both friction cones and discrete-time inverse dynamics; and forward -> inverse consistency."""

import mujoco
import numpy as np
import pytest

import oracle
from mjgym import physics

RTOL = 1e-8


def _pair(name, solver=None, cone=None, integrator=None):
  return oracle.load_both(oracle.model_file(name), solver=solver, cone=cone, integrator=integrator)


def _settle(mjm, mjd, m, d, nstep, seed):
  """Steps MuJoCo from a random state into contact, then copies the state (and a random qacc) to our Data."""
  rng = np.random.default_rng(seed)
  oracle.random_state(mjm, mjd, rng, scale=0.3)
  mjd.qpos[:] = mjm.qpos0  # random velocities and controls from a pose without interpenetration
  mujoco.mj_step(mjm, mjd, nstep)
  mujoco.mj_forward(mjm, mjd)
  oracle.copy_state(mjd, d)
  physics.mj_forward(m, d)  # what inverse dynamics does not compute (actuator forces) as MuJoCo's Data has it
  qacc = mjd.qacc + rng.normal(0.0, 1.0, mjm.nv)
  mjd.qacc[:] = qacc
  d.qacc[:] = qacc


def _compare(mjd, d, what=""):
  oracle.assert_close(d.qfrc_inverse, mjd.qfrc_inverse, RTOL, f"{what} qfrc_inverse")
  oracle.assert_close(d.qfrc_constraint, mjd.qfrc_constraint, RTOL, f"{what} qfrc_constraint")
  assert d.nefc == mjd.nefc, what
  oracle.assert_close(d.efc_force[:d.nefc], mjd.efc_force, RTOL, f"{what} efc_force")
  oracle.assert_close(d.sensordata, mjd.sensordata, RTOL, f"{what} sensordata")


@pytest.mark.parametrize("name", ["hopper", "walker2d", "half_cheetah", "ant", "humanoid", "swimmer", "reacher"])
def test_inverse_matches_mujoco(name):
  mjm, mjd, m, d = _pair(name)
  contacts = 0
  for seed, nstep in ((0, 0), (1, 60), (2, 150)):
    _settle(mjm, mjd, m, d, nstep, seed)
    mujoco.mj_inverse(mjm, mjd)
    physics.mj_inverse(m, d)
    _compare(mjd, d, f"{name} after {nstep} steps")
    contacts += mjd.ncon
  if name in ("hopper", "ant", "humanoid"):
    assert contacts > 0, "the test should cover contacts"


@pytest.mark.parametrize("solver", ["NEWTON", "CG", "PGS"])
@pytest.mark.parametrize("cone", ["PYRAMIDAL", "ELLIPTIC"])
def test_inverse_under_each_solver_and_cone(solver, cone):
  mjm, mjd, m, d = _pair("ant", solver, cone)
  _settle(mjm, mjd, m, d, 120, 3)
  assert mjd.ncon > 0
  mujoco.mj_inverse(mjm, mjd)
  physics.mj_inverse(m, d)
  _compare(mjd, d, f"{solver}/{cone}")
  np.testing.assert_array_equal(d.efc_state[:d.nefc], mjd.efc_state)


@pytest.mark.parametrize("model", ["tendon_fixed.xml", "tendon_spatial.xml", "contact_equality.xml",
                                   "weld_anchor.xml", "sensors.xml", "actuators.xml"])
def test_inverse_on_test_models(model):
  mjm, mjd, m, d = _pair(model)
  for seed, nstep in ((0, 0), (4, 40)):
    _settle(mjm, mjd, m, d, nstep, seed)
    mujoco.mj_inverse(mjm, mjd)
    physics.mj_inverse(m, d)
    _compare(mjd, d, f"{model} after {nstep} steps")


@pytest.mark.parametrize("integrator", ["EULER", "IMPLICITFAST", "IMPLICIT"])
@pytest.mark.parametrize("name", ["hopper", "ant"])
def test_discrete_inverse_matches_mujoco(name, integrator):
  mjm, mjd, m, d = _pair(name, integrator=integrator)
  mjm.opt.enableflags |= int(mujoco.mjtEnableBit.mjENBL_INVDISCRETE)
  m.opt.enableflags |= int(physics.mjtEnableBit.mjENBL_INVDISCRETE)
  _settle(mjm, mjd, m, d, 80, 5)
  mujoco.mj_inverse(mjm, mjd)
  physics.mj_inverse(m, d)
  _compare(mjd, d, f"{name} discrete {integrator}")
  np.testing.assert_array_equal(d.qacc, mjd.qacc)  # restored


def _applied(m, d):
  """qfrc_applied + qfrc_actuator + Jᵀ xfrc_applied: what inverse dynamics of a forward solution gives."""
  total = d.qfrc_applied + d.qfrc_actuator
  for b in range(1, m.nbody):
    jacp, jacr = np.zeros((3, m.nv)), np.zeros((3, m.nv))
    physics.mj_jac(m, d, jacp, jacr, d.xipos[b], b)
    total = total + jacp.T @ d.xfrc_applied[b, :3] + jacr.T @ d.xfrc_applied[b, 3:]
  return total


@pytest.mark.parametrize("name", ["hopper", "ant", "humanoid"])
def test_forward_then_inverse_gives_the_applied_forces(name):
  mjm, mjd, m, d = _pair(name, solver="NEWTON")
  m.opt.tolerance = 1e-14
  m.opt.iterations = 200
  rng = np.random.default_rng(7)
  _settle(mjm, mjd, m, d, 300, 7)
  d.xfrc_applied[1] = rng.normal(size=6)
  d.qfrc_applied[:] = rng.normal(size=m.nv)
  physics.mj_forward(m, d)
  assert d.ncon > 0
  expected = _applied(m, d)
  constraint = d.qfrc_constraint.copy()
  physics.mj_inverse(m, d)
  oracle.assert_close(d.qfrc_inverse, expected, 1e-8, "qfrc_inverse vs applied forces")
  oracle.assert_close(d.qfrc_constraint, constraint, 1e-8, "inverse vs forward constraint force")


@pytest.mark.parametrize("integrator", ["EULER", "IMPLICITFAST", "IMPLICIT"])
def test_discrete_inverse_of_a_step_gives_the_applied_forces(integrator):
  """With mjENBL_INVDISCRETE, the finite difference of the velocities of one step inverts that step."""
  _, _, m, d = _pair("hopper", solver="NEWTON", integrator=integrator)
  m.opt.tolerance = 1e-14
  m.opt.iterations = 200
  m.opt.enableflags |= int(physics.mjtEnableBit.mjENBL_INVDISCRETE)
  rng = np.random.default_rng(8)
  physics.mj_step(m, d, 50)
  d.ctrl[:] = rng.uniform(-1, 1, m.nu)
  qvel = d.qvel.copy()
  physics.mj_forward(m, d)
  expected = d.qfrc_applied + d.qfrc_actuator
  before = {k: np.copy(getattr(d, k)) for k in ("qpos", "qvel", "act", "time", "qacc_warmstart")}
  physics.mj_step(m, d)
  qacc = (d.qvel - qvel) / m.opt.timestep
  for k, v in before.items():
    setattr(d, k, v)
  d.qacc[:] = qacc
  physics.mj_inverse(m, d)
  oracle.assert_close(d.qfrc_inverse, expected, 1e-7, f"discrete {integrator}")


def test_discrete_inverse_refuses_rk4():
  _, _, m, d = _pair("hopper", integrator="RK4")
  m.opt.enableflags |= int(physics.mjtEnableBit.mjENBL_INVDISCRETE)
  with pytest.raises(ValueError, match="RK4"):
    physics.mj_inverse(m, d)


def test_qfrc_inverse_is_a_data_field():
  _, _, m, d = _pair("hopper")
  assert d.qfrc_inverse.shape == (m.nv,)
  batch = physics.MjDataBatch(m, 3)
  assert batch.qfrc_inverse.shape == (3, m.nv)
  physics.mj_inverse(m, batch[1])
  assert np.any(batch.qfrc_inverse[1] != 0) and not np.any(batch.qfrc_inverse[0])


def test_inverse_calls_the_passive_callback_like_mujoco():
  mjm, mjd, m, d = _pair("hopper")

  def passive(_, data):
    data.qfrc_passive[:] -= 0.3 * data.qvel

  try:
    mujoco.set_mjcb_passive(passive)
    physics.set_mjcb_passive(passive)
    _settle(mjm, mjd, m, d, 40, 9)
    mujoco.mj_inverse(mjm, mjd)
    physics.mj_inverse(m, d)
  finally:
    mujoco.set_mjcb_passive(None)
    physics.set_mjcb_passive(None)
  _compare(mjd, d, "passive callback")
  assert np.any(d.qvel)
