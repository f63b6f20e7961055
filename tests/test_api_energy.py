"""d.energy (mjENBL_ENERGY; energy.py) and mj_energyPos / mj_energyVel against MuJoCo."""

import mujoco
import numpy as np
import pytest

import oracle
from mjgym import physics


def _enable(mjm, m):
  mjm.opt.enableflags |= int(mujoco.mjtEnableBit.mjENBL_ENERGY)
  m.opt.enableflags |= int(physics.mjtEnableBit.mjENBL_ENERGY)


@pytest.mark.parametrize("spec", [oracle.SPRINGS_XML] + [oracle.ASSETS_DIR / f"{name}.xml"
                                                          for name in ("humanoid", "ant", "hopper")],
                         ids=["springs", "humanoid", "ant", "hopper"])
def test_energy_matches_mujoco_after_forward(spec):
  mjm, m = oracle.models(spec)
  _enable(mjm, m)
  mjd, d = mujoco.MjData(mjm), physics.MjData(m)
  for _ in oracle.forward_states(mjm, mjd, m, d, 0, 5):
    assert mjd.energy[1] > 0
    oracle.assert_close(d.energy, mjd.energy, 1e-12, "energy")


@pytest.mark.parametrize("integrator", ["Euler", "RK4", "implicitfast"])
def test_energy_after_a_step_matches_mujoco(integrator):
  mjm, m = oracle.models(oracle.SPRINGS_XML)
  oracle.set_options(mjm, m, integrator=integrator)
  mjd, d = mujoco.MjData(mjm), physics.MjData(m)
  for _ in oracle.random_states(mjm, mjd, 1, 3):
    oracle.copy_state(mjd, d)
    mujoco.mj_step(mjm, mjd)
    physics.mj_step(m, d)
    # RK4 leaves the energy of its last inner evaluation, as MuJoCo does
    oracle.assert_close(d.energy, mjd.energy, 1e-10, f"energy after a {integrator} step")


def test_energy_disabled_is_zero_and_gravity_spring_flags_apply():
  mjm, m = oracle.models(oracle.SPRINGS_XML)
  mjd, d = mujoco.MjData(mjm), physics.MjData(m)
  oracle.random_state(mjm, mjd, np.random.default_rng(2))
  oracle.copy_state(mjd, d)
  physics.mj_forward(m, d)
  assert d.energy[0] != 0
  m.opt.enableflags = 0
  physics.mj_forward(m, d)
  np.testing.assert_array_equal(d.energy, [0.0, 0.0])
  for flag in ("mjDSBL_GRAVITY", "mjDSBL_SPRING"):
    mjm.opt.disableflags = int(getattr(mujoco.mjtDisableBit, flag))
    m.opt.disableflags = int(getattr(physics.mjtDisableBit, flag))
    m.opt.enableflags = int(physics.mjtEnableBit.mjENBL_ENERGY)
    mujoco.mj_forward(mjm, mjd)
    physics.mj_forward(m, d)
    oracle.assert_close(d.energy, mjd.energy, 1e-12, f"energy with {flag}")


def test_energy_functions_run_without_the_flag():
  mjm, mjd, m, d = oracle.load_both(oracle.ASSETS_DIR / "humanoid.xml")
  oracle.random_state(mjm, mjd, np.random.default_rng(4))
  oracle.forward_both(mjm, mjd, m, d)
  np.testing.assert_array_equal(d.energy, [0.0, 0.0])
  mujoco.mj_energyPos(mjm, mjd)
  mujoco.mj_energyVel(mjm, mjd)
  physics.mj_energyPos(m, d)
  physics.mj_energyVel(m, d)
  assert mjd.energy[0] != 0 and mjd.energy[1] != 0
  oracle.assert_close(d.energy, mjd.energy, 1e-12, "energy")
