"""Oracle tests of the whole pipeline and the integrators: our compiler + engine vs the `mujoco` package.

Relative error of a field = max |ours - mujoco| / max(1, max |mujoco|) (oracle.assert_close).
"""

import mujoco
import numpy as np
import pytest

import oracle
from mjgym import physics

MODELS = [oracle.gym_asset(n) for n in oracle.GYM_MODELS] + sorted(oracle.MODELS_DIR.glob("*.xml"))
STATE_FIELDS = ("xpos", "xmat", "xipos", "subtree_com", "cinert", "cdof", "cvel", "qfrc_bias", "qfrc_passive",
                "actuator_force", "qfrc_actuator", "qacc")
NSTATES = 50


@pytest.mark.parametrize("path", MODELS, ids=lambda p: p.stem)
def test_forward_matches_mujoco_at_random_states(path):
  """At 50 random states with constraints disabled, every stage output matches MuJoCo to 1e-9."""
  mjm, mjd, m, d = oracle.load_both(path, constraints=False)
  oracle.check_forward_at_random_states(mjm, mjd, m, d, 0, NSTATES, STATE_FIELDS, 1e-9, f"{path.stem} ")


def _controls(nu, nstep):
  t = np.arange(nstep)[:, None] * 0.01
  return np.sin(t * (1.0 + np.arange(nu))[None, :] + np.arange(nu)[None, :])


@pytest.mark.parametrize("integrator", ["EULER", "RK4", "IMPLICIT", "IMPLICITFAST"])
def test_trajectory_matches_mujoco(integrator):
  """1000 steps of a constraint-free model under fixed controls: qpos within 1e-8 of MuJoCo's, each step."""
  mjm, mjd, m, d = oracle.load_both(oracle.MODELS_DIR / "trajectory.xml", constraints=False)
  oracle.set_options(mjm, m, integrator=integrator)
  mjd.qvel[:] = np.linspace(-1, 1, mjm.nv)
  oracle.copy_state(mjd, d)
  ctrl = _controls(mjm.nu, 1000)
  worst = 0.0
  for k in range(1000):
    mjd.ctrl[:] = ctrl[k]
    d.ctrl[:] = ctrl[k]
    mujoco.mj_step(mjm, mjd)
    physics.mj_step(m, d)
    worst = max(worst, float(np.max(np.abs(d.qpos - mjd.qpos))))
    assert worst <= 1e-8, f"{integrator}: step {k}: qpos error {worst:.2e}"
  np.testing.assert_allclose(d.time, mjd.time, rtol=0, atol=1e-12)
  oracle.assert_close(d.act, mjd.act, 1e-8, "act")
  # what a step leaves in qacc (RK4: the stages' weighted mean) and keeps for the next warm start
  oracle.assert_close(d.qacc, mjd.qacc, 1e-6, "qacc after the step")
  oracle.assert_close(d.qacc_warmstart, mjd.qacc_warmstart, 1e-6, "qacc_warmstart")
  # The trajectory must really move, or the comparison proves nothing.
  assert np.abs(mjd.qpos - mjm.qpos0).max() > 0.1


def test_same_seed_same_actions_bitwise():
  """Two runs from the same state with the same controls give bitwise the same trajectory."""
  m = physics.MjModel.from_xml_path(str(oracle.MODELS_DIR / "trajectory.xml"))
  m.opt.integrator = int(physics.mjtIntegrator.RK4)
  runs = []
  for _ in range(2):
    d = physics.MjData(m)
    d.qvel[:] = 0.3
    for c in _controls(m.nu, 300):
      d.ctrl[:] = c
      physics.mj_step(m, d)
    runs.append((d.qpos.copy(), d.qvel.copy(), d.act.copy()))
  for a, b in zip(*runs):
    assert np.array_equal(a, b)


# Stress models for the per-state kernel tests: their gains and stiffnesses make explicit integration at their
# timestep unstable (MuJoCo's own rollouts blow up within a few steps), so rollouts there compare noise.
_UNSTABLE = ("ball_slide", "defaults", "kernel_actuators")
ROLLOUT_MODELS = [p for p in MODELS if p.stem not in _UNSTABLE]


@pytest.mark.parametrize("integrator", ["EULER", "RK4", "IMPLICIT", "IMPLICITFAST"])
@pytest.mark.parametrize("path", ROLLOUT_MODELS, ids=lambda p: p.stem)
def test_short_random_rollouts_match_mujoco(path, integrator):
  """100 steps under random controls from a random velocity, every model and integrator: qpos, qvel and act
  within 1e-8 (relative) of MuJoCo's while MuJoCo itself reports no divergence."""
  mjm, mjd, m, d = oracle.load_both(path, constraints=False)
  oracle.set_options(mjm, m, integrator=integrator)
  rng = np.random.default_rng(3)
  mjd.qvel[:] = 0.5 * rng.normal(size=mjm.nv)
  oracle.copy_state(mjd, d)
  compared = 0
  for k in range(100):
    ctrl = rng.uniform(-1, 1, mjm.nu)
    mjd.ctrl[:] = ctrl
    d.ctrl[:] = ctrl
    mujoco.mj_step(mjm, mjd)
    physics.mj_step(m, d)
    if mjd.warning.number.any():
      break  # MuJoCo's own state diverged (some test models are stiff on purpose); nothing left to compare
    for field in ("qpos", "qvel", "act"):
      oracle.assert_close(getattr(d, field), getattr(mjd, field), 1e-8, f"{path.stem} {integrator} step {k} {field}")
    compared += 1
  assert compared >= 20, f"MuJoCo diverged after {compared} steps: the model is unfit for this test"
