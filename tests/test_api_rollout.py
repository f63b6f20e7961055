"""physics.rollout against mujoco.rollout (shapes, argument handling, trajectories) and against stepping each
trajectory one by one (bitwise)."""

import mujoco
import mujoco.rollout
import numpy as np
import pytest

import oracle
from mjgym import physics
from mjgym.physics import rollout

RTOL = 1e-8  # as the trajectory oracle tests: 1e-14 per step, grown by the dynamics over the rollout


def _pair(name):
  return oracle.load_both(oracle.gym_asset(name))


def _inputs(mjm, mjd, nbatch, nstep, seed):
  rng = np.random.default_rng(seed)
  nstate = mujoco.mj_stateSize(mjm, mujoco.mjtState.mjSTATE_FULLPHYSICS)
  init = np.empty((nbatch, nstate))
  for r in range(nbatch):
    mujoco.mj_resetData(mjm, mjd)
    mjd.qvel[:] = rng.normal(0, 0.2, mjm.nv)
    mujoco.mj_getState(mjm, mjd, init[r], mujoco.mjtState.mjSTATE_FULLPHYSICS)
  lo, hi = mjm.actuator_ctrlrange.T
  control = rng.uniform(lo, hi, (nbatch, nstep, mjm.nu))
  return init, control


@pytest.mark.parametrize("name", ["hopper", "ant", "half_cheetah"])
def test_rollout_matches_mujoco(name):
  mjm, mjd, m, d = _pair(name)
  init, control = _inputs(mjm, mjd, 5, 30, 0)
  exp_state, exp_sens = mujoco.rollout.rollout(mjm, mjd, init, control)
  state, sens = rollout.rollout(m, d, init, control)
  assert state.shape == exp_state.shape == (5, 30, init.shape[1])
  assert sens.shape == exp_sens.shape == (5, 30, mjm.nsensordata)
  oracle.assert_close(state, exp_state, RTOL, f"{name} state")
  oracle.assert_close(sens, exp_sens, RTOL, f"{name} sensordata")


def test_rollout_equals_stepping_one_by_one_bitwise():
  mjm, mjd, m, d = _pair("ant")
  init, control = _inputs(mjm, mjd, 6, 25, 1)
  warm = np.random.default_rng(1).normal(size=(6, m.nv))
  state, sens = rollout.rollout(m, [d, physics.MjData(m)], init, control, initial_warmstart=warm)
  spec = int(physics.mjtState.mjSTATE_FULLPHYSICS)
  one = physics.MjData(m)
  for r in range(6):
    physics.mj_resetData(m, one)
    physics.mj_setState(m, one, init[r], spec)
    one.qacc_warmstart[:] = warm[r]
    for t in range(25):
      one.ctrl[:] = control[r, t]
      physics.mj_step(m, one)
      vec = np.empty(init.shape[1])
      physics.mj_getState(m, one, vec, spec)
      np.testing.assert_array_equal(state[r, t], vec, err_msg=f"rollout {r} step {t}")
      np.testing.assert_array_equal(sens[r, t], one.sensordata)


def test_rollout_broadcasting_and_outputs_like_mujoco():
  mjm, mjd, m, d = _pair("hopper")
  init, control = _inputs(mjm, mjd, 3, 10, 2)
  # one initial state for three control sequences; one control for all steps; nstep given
  for args, kwargs in (((init[0], control), {}), ((init, control[:, :1]), {"nstep": 10}),
                       ((init, None), {"nstep": 4}), ((init[:1], control[0]), {})):
    exp = mujoco.rollout.rollout(mjm, mjd, *args, **kwargs)
    got = rollout.rollout(m, d, *args, **kwargs)
    for e, g in zip(exp, got):
      assert g.shape == e.shape, (args[0].shape, kwargs)
      oracle.assert_close(g, e, RTOL, "broadcast")
  # preallocated outputs are filled and returned
  state = np.zeros((3, 10, init.shape[1]))
  sens = np.zeros((3, 10, m.nsensordata))
  out = rollout.rollout(m, d, init, control, state=state, sensordata=sens)
  assert out[0] is state and out[1] is sens and np.any(state)


def test_rollout_control_spec_and_list_of_models():
  mjm, mjd, m, d = _pair("hopper")
  init, control = _inputs(mjm, mjd, 2, 8, 3)
  spec = int(mujoco.mjtState.mjSTATE_CTRL | mujoco.mjtState.mjSTATE_QFRC_APPLIED)
  ctrl = np.concatenate([control, np.random.default_rng(3).normal(size=(2, 8, mjm.nv))], axis=2)
  exp = mujoco.rollout.rollout([mjm, mjm], mjd, init, ctrl, control_spec=spec)
  got = rollout.rollout([m, m], d, init, ctrl, control_spec=spec)
  for e, g in zip(exp, got):
    oracle.assert_close(g, e, RTOL, "control_spec")


def test_rollout_errors_like_mujoco():
  mjm, mjd, m, d = _pair("hopper")
  init, control = _inputs(mjm, mjd, 2, 3, 4)
  for kwargs, message in (({"control_spec": int(mujoco.mjtState.mjSTATE_QPOS)}, "mjSTATE_USER"),
                          ({"nstep": -1}, "non-negative"), ({"nstep": 2.5}, "integer")):
    with pytest.raises(ValueError, match=message):
      mujoco.rollout.rollout(mjm, mjd, init, control, **kwargs)
    with pytest.raises(ValueError, match=message):
      rollout.rollout(m, d, init, control, **kwargs)
  with pytest.raises(ValueError, match="trailing dimension"):
    rollout.rollout(m, d, init[:, :-1], control)
  with pytest.raises(ValueError, match="dimension 0"):
    rollout.rollout(m, d, init, np.zeros((3, 3, m.nu)))


def test_persistent_pool_reuses_batches():
  mjm, mjd, m, d = _pair("hopper")
  init, control = _inputs(mjm, mjd, 2, 5, 5)
  first = rollout.rollout(m, d, init, control, persistent_pool=True)
  second = rollout.rollout(m, d, init, control, persistent_pool=True)
  np.testing.assert_array_equal(first[0], second[0])
  rollout.shutdown_persistent_pool()


def test_rollout_sensors_and_divergence_match_mujoco():
  """A model with sensors, activations and quaternions; one trajectory diverges (MuJoCo resets it and repeats its
  state from then on)."""
  mjm, mjd, m, d = oracle.load_both(oracle.SENSED_XML)
  init, control = _inputs(mjm, mjd, 4, 20, 6)
  init[2, 1 + m.nq] = 1e11  # a qvel beyond MuJoCo's bound
  exp_state, exp_sens = mujoco.rollout.rollout(mjm, mjd, init, control)
  state, sens = rollout.rollout(m, d, init, control)
  assert m.nsensordata > 0 and m.na > 0
  oracle.assert_close(state, exp_state, RTOL, "state")
  oracle.assert_close(sens, exp_sens, RTOL, "sensordata")
  np.testing.assert_array_equal(state[2, 5], state[2, -1])


def test_rollout_with_a_model_per_trajectory():
  mjm, mjd, m, d = _pair("hopper")
  mjm2, m2 = oracle.models(oracle.gym_asset("hopper"))
  mjm2.opt.gravity[2] = m2.opt.gravity[2] = -3.0
  init, control = _inputs(mjm, mjd, 3, 12, 7)
  exp = mujoco.rollout.rollout([mjm, mjm2, mjm], mjd, init, control)
  got = rollout.rollout([m, m2, m], d, init, control)
  for e, g in zip(exp, got):
    oracle.assert_close(g, e, RTOL, "model per trajectory")
  assert not np.allclose(got[0][1], got[0][0])
