"""The environment suite: Gymnasium's checker, determinism, resets, rewards, terminations, and the end-to-end
oracle (each asset stepped in mjgym and in the `mujoco` package gives the same sensordata)."""

import pathlib
import subprocess
import sys

import gymnasium as gym
import mujoco
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import mjgym
import oracle
from mjgym.envs import base

ENV_IDS = [env_id for env_id, _, _ in mjgym.envs.ENVS]
ASSETS = sorted(base.ASSETS.glob("*.xml"))


def _rollout(env, seed, nsteps, action_seed=0):
  obs, _ = env.reset(seed=seed)
  env.action_space.seed(action_seed)
  trajectory = [obs]
  for _ in range(nsteps):
    obs, reward, terminated, truncated, _ = env.step(env.action_space.sample())
    trajectory.append(np.append(obs, reward))
    if terminated or truncated:
      break
  return trajectory


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_gymnasium_env_checker(env_id):
  env = gym.make(env_id)
  check_env(env.unwrapped, skip_render_check=True)
  env.close()


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_stable_baselines3_env_checker(env_id):
  sb3_env_checker = pytest.importorskip("stable_baselines3.common.env_checker")
  env = gym.make(env_id)
  sb3_env_checker.check_env(env, warn=False)
  env.close()


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_same_seed_same_actions_same_trajectory(env_id):
  a = _rollout(gym.make(env_id), seed=7, nsteps=100)
  b = _rollout(gym.make(env_id), seed=7, nsteps=100)
  assert len(a) == len(b)
  for x, y in zip(a, b):
    assert np.array_equal(x, y)
  c = _rollout(gym.make(env_id), seed=8, nsteps=100)
  assert not np.array_equal(a[0], c[0])


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_reset_after_long_episode_equals_fresh_reset(env_id):
  env = gym.make(env_id)
  _rollout(env, seed=1, nsteps=300)
  obs_after, _ = env.reset(seed=3)
  data = env.unwrapped.data
  state_after = {k: data._fields[k].copy() for k in ("qpos", "qvel", "act", "ctrl", "qacc_warmstart", "mocap_pos",
                                                      "time", "ncon")}
  fresh = gym.make(env_id)
  obs_fresh, _ = fresh.reset(seed=3)
  assert np.array_equal(obs_after, obs_fresh)
  for k, v in state_after.items():
    assert np.array_equal(v, fresh.unwrapped.data._fields[k]), k


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_observation_dtype_is_the_declared_one(env_id):
  for dtype in (np.float64, np.float32):
    env = gym.make(env_id, obs_dtype=dtype)
    obs, _ = env.reset(seed=0)
    assert obs.dtype == dtype == env.observation_space.dtype
    obs, *_ = env.step(env.action_space.sample())
    assert obs.dtype == dtype and env.observation_space.contains(obs)


# The info entries that sum to the reward (plus a constant), as each env's docstring states.
_REWARD_TERMS = {
    "MjHopper-v0": ("reward_forward", "reward_ctrl", "reward_survive"),
    "MjWalker2d-v0": ("reward_forward", "reward_ctrl", "reward_survive"),
    "MjHalfCheetah-v0": ("reward_forward", "reward_ctrl"),
    "MjAnt-v0": ("reward_forward", "reward_ctrl", "reward_contact", "reward_survive"),
    "MjHumanoid-v0": ("reward_forward", "reward_survive", "reward_ctrl", "reward_contact"),
    "MjHumanoidStandup-v0": ("reward_linup", "reward_quadctrl", "reward_impact"),
    "MjSwimmer-v0": ("reward_forward", "reward_ctrl"),
    "MjReacher-v0": ("reward_dist", "reward_ctrl"),
    "MjPusher-v0": ("reward_dist", "reward_ctrl", "reward_near"),
    "MjInvertedPendulum-v0": ("reward_survive",),
    "MjInvertedDoublePendulum-v0": ("reward_survive", "distance_penalty", "velocity_penalty"),
    "MjCartpole-v0": ("reward_alive",),
    "MjArmReach-v0": ("reward_dist", "reward_ctrl"),
}
_REWARD_CONSTANT = {"MjHumanoidStandup-v0": 1.0}


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_reward_terms_make_the_reward(env_id):
  env = gym.make(env_id)
  env.reset(seed=0)
  for _ in range(50):
    _, reward, terminated, truncated, info = env.step(env.action_space.sample())
    if env_id == "MjCartpoleSwingup-v0":
      terms = [v for k, v in info.items() if k.startswith("reward_")]
      assert len(terms) == 4 and all(0 <= t <= 1 for t in terms)
      assert reward == pytest.approx(np.prod(terms), abs=1e-12)
    else:
      total = sum(info[k] for k in _REWARD_TERMS[env_id]) + _REWARD_CONSTANT.get(env_id, 0.0)
      assert reward == pytest.approx(total, abs=1e-12)
    if terminated or truncated:
      env.reset()


def test_hopper_terminates_when_it_falls_or_tilts():
  env = gym.make("MjHopper-v0")
  env.reset(seed=0)
  hopper = env.unwrapped
  qpos, qvel = hopper.data.qpos.copy(), hopper.data.qvel.copy()
  qpos[1] = 0.6  # torso too low
  hopper.set_state(qpos, qvel)
  assert not hopper.is_healthy
  _, _, terminated, _, _ = env.step(np.zeros(3, np.float32))
  assert terminated
  env.reset(seed=0)
  qpos = hopper.data.qpos.copy()
  qpos[2] = 0.3  # torso tilted beyond 0.2 rad
  hopper.set_state(qpos, qvel)
  _, _, terminated, _, _ = env.step(np.zeros(3, np.float32))
  assert terminated


def test_cartpole_terminates_on_angle_and_position():
  env = gym.make("MjCartpole-v0")
  env.reset(seed=0)
  cart = env.unwrapped
  cart.set_state(np.array([0.0, 0.25]), np.zeros(2))
  assert env.step(np.zeros(1, np.float32))[2]
  env.reset(seed=0)
  cart.set_state(np.array([2.45, 0.0]), np.zeros(2))
  assert env.step(np.zeros(1, np.float32))[2]
  env.reset(seed=0)
  assert not env.step(np.zeros(1, np.float32))[2]


def test_humanoid_terminates_when_it_falls():
  env = gym.make("MjHumanoid-v0")
  env.reset(seed=0)
  for k in range(200):
    *_, terminated, truncated, _ = env.step(np.zeros(17, np.float32))
    if terminated:
      break
  assert terminated and env.unwrapped.data.qpos[2] < 1.0


def test_arm_reach_success_and_target_resampling():
  env = gym.make("MjArmReach-v0")
  obs0, info0 = env.reset(seed=0)
  obs1, info1 = env.reset(seed=1)
  assert not np.allclose(obs0[13:16], obs1[13:16])  # a new target each episode
  arm = env.unwrapped
  assert info1["distance"] == pytest.approx(np.linalg.norm(obs1[10:13] - obs1[13:16]))
  arm.data.mocap_pos[0] = arm.data.site_xpos[arm.model.site("fingertip").id]
  _, reward, _, _, info = env.step(np.zeros(5, np.float32))
  assert info["is_success"] and reward > -0.05


def test_custom_hopper_xml_with_longer_leg(tmp_path):
  xml = (base.ASSETS / "hopper.xml").read_text()
  longer = xml.replace('fromto="0 0 0.25 0 0 -0.25" size="0.04"', 'fromto="0 0 0.3 0 0 -0.3" size="0.04"').replace(
      '<body name="foot" pos="0.13 0 -0.35">', '<body name="foot" pos="0.13 0 -0.4">')
  assert longer != xml
  path = tmp_path / "long_hopper.xml"
  path.write_text(longer)
  env = gym.make("MjHopper-v0", xml_file=str(path))
  env.reset(seed=0)
  default = gym.make("MjHopper-v0")
  default.reset(seed=0)
  assert env.unwrapped.model.body("leg").mass[0] > default.unwrapped.model.body("leg").mass[0]
  for _ in range(20):
    env.step(env.action_space.sample())


def test_make_without_prior_import():
  code = "import gymnasium as gym; env = gym.make('mjgym:MjCartpole-v0'); print(env.reset(seed=0)[0].shape)"
  out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
  assert out.stdout.strip() == "(4,)"


def _random_controls(m, nsteps, seed):
  rng = np.random.default_rng(seed)
  lo, hi = m.actuator_ctrlrange.T
  return rng.uniform(lo, hi, size=(nsteps, m.nu))


@pytest.mark.parametrize("path", ASSETS, ids=lambda p: p.stem)
def test_assets_match_mujoco_end_to_end(path):
  """Every asset, 200 steps in both engines with the same random controls: sensordata within 1e-6."""
  from mjgym import physics
  mjm, mjd, m, d = oracle.load_both(path)
  ctrl = _random_controls(mjm, 200, seed=0)
  for k in range(200):
    mjd.ctrl[:] = ctrl[k]
    d.ctrl[:] = ctrl[k]
    mujoco.mj_step(mjm, mjd)
    physics.mj_step(m, d)
    scale = max(1.0, float(np.abs(mjd.sensordata).max()))
    err = float(np.abs(d.sensordata - mjd.sensordata).max())
    assert err <= 1e-6 * scale, f"{path.stem} step {k}: sensordata error {err:.2e} (scale {scale:.1f})"
