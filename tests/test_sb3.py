"""stable-baselines3 VecEnv on batched worlds: DummyVecEnv's conventions exactly, wrappers, PPO learns."""

import gymnasium as gym
import numpy as np
import pytest

import mjgym  # noqa: F401  (registers the environments)

pytest.importorskip("stable_baselines3")
from stable_baselines3.common.vec_env import DummyVecEnv  # noqa: E402  pylint: disable=wrong-import-position
from stable_baselines3.common.vec_env import VecNormalize  # noqa: E402  pylint: disable=wrong-import-position

from mjgym import sb3  # noqa: E402  pylint: disable=wrong-import-position


def _assert_infos_equal(ours, ref):
  assert len(ours) == len(ref)
  for w, (a, b) in enumerate(zip(ours, ref)):
    assert set(a) == set(b), (w, sorted(a), sorted(b))
    for k in a:
      assert np.array_equal(a[k], b[k]), (w, k, a[k], b[k])
      assert type(a[k]) is type(b[k]), (w, k, type(a[k]), type(b[k]))


@pytest.mark.parametrize("env_id,limit,scale", [("MjHopper-v0", 25, 1.0), ("MjHumanoid-v0", 20, 0.4)])
def test_matches_dummy_vec_env_bitwise(env_id, limit, scale):
  """Observations, rewards, dones and infos (terminal_observation, TimeLimit.truncated) as DummyVecEnv's over
  episodes ending by termination and by truncation (random actions in [-scale, scale])."""
  n = 4
  ours = sb3.make_vec_env(env_id, n_envs=n, seed=5, monitor=False, max_episode_steps=limit)
  ref = DummyVecEnv([lambda: gym.make(env_id, max_episode_steps=limit) for _ in range(n)])
  ref.seed(5)
  assert np.array_equal(ours.reset(), ref.reset())
  _assert_infos_equal(ours.reset_infos, ref.reset_infos)
  rng = np.random.default_rng(0)
  terminated = truncated = 0
  for _ in range(80):
    actions = rng.uniform(-scale, scale, (n,) + ours.action_space.shape).astype(np.float32)
    obs_a, rew_a, done_a, info_a = ours.step(actions)
    obs_b, rew_b, done_b, info_b = ref.step(actions)
    assert np.array_equal(obs_a, obs_b) and obs_a.dtype == obs_b.dtype
    assert np.array_equal(rew_a, rew_b) and rew_a.dtype == rew_b.dtype
    assert np.array_equal(done_a, done_b) and done_a.dtype == done_b.dtype
    _assert_infos_equal(info_a, info_b)
    _assert_infos_equal(ours.reset_infos, ref.reset_infos)
    for info in info_a:
      if "terminal_observation" in info:
        truncated += info["TimeLimit.truncated"]
        terminated += not info["TimeLimit.truncated"]
  assert terminated > 0 and truncated > 0


@pytest.mark.parametrize("env_id", [env_id for env_id, _, _ in mjgym.envs.ENVS])
def test_every_env_matches_dummy_vec_env(env_id):
  """Every registered env through mjgym.sb3 equals SB3's DummyVecEnv of single envs, bitwise, over truncations."""
  n, limit = 3, 7
  ours = sb3.make_vec_env(env_id, n_envs=n, seed=1, monitor=False, max_episode_steps=limit)
  ref = DummyVecEnv([lambda: gym.make(env_id, max_episode_steps=limit) for _ in range(n)])
  ref.seed(1)
  assert np.array_equal(ours.reset(), ref.reset())
  space = ours.action_space
  rng = np.random.default_rng(0)
  for _ in range(16):
    actions = rng.uniform(space.low, space.high, (n,) + space.shape).astype(np.float32)
    obs_a, rew_a, done_a, info_a = ours.step(actions)
    obs_b, rew_b, done_b, info_b = ref.step(actions)
    assert np.array_equal(obs_a, obs_b) and np.array_equal(rew_a, rew_b) and np.array_equal(done_a, done_b)
    _assert_infos_equal(info_a, info_b)


def test_terminal_observation_at_truncation():
  venv = sb3.make_vec_env("MjCartpole-v0", n_envs=3, seed=0, monitor=False, max_episode_steps=5)
  venv.reset()
  for _ in range(4):
    obs, _, dones, _ = venv.step(np.zeros((3, 1), np.float32))
    assert not dones.any()
  last = venv.batch.sensordata.copy()
  single = gym.make("MjCartpole-v0", max_episode_steps=5)
  single.reset(seed=1)
  for _ in range(5):
    single_obs, *_ = single.step(np.zeros(1, np.float32))
  obs, _, dones, infos = venv.step(np.zeros((3, 1), np.float32))
  assert dones.all()
  for w in range(3):
    assert infos[w]["TimeLimit.truncated"] is True
    assert not np.array_equal(infos[w]["terminal_observation"], last[w])
    assert not np.array_equal(infos[w]["terminal_observation"], obs[w])  # obs is the reset one
  assert np.array_equal(infos[1]["terminal_observation"], single_obs)
  assert np.array_equal(obs[1], single.reset()[0])


def test_vec_env_methods():
  venv = sb3.make_vec_env("MjArmReach-v0", n_envs=3, seed=0, monitor=False)
  venv.reset()
  assert venv.get_attr("frame_skip") == [4, 4, 4]
  assert venv.get_attr("render_mode") == [None] * 3
  distances = venv.env_method("distance")
  expected = np.linalg.norm(venv.batch.site_xpos[:, venv.model.site("fingertip").id]
                            - venv.batch.site_xpos[:, venv.model.site("target").id], axis=1)
  assert np.allclose(distances, expected) and len(set(distances)) == 3
  assert venv.env_method("distance", indices=[2]) == [distances[2]]
  venv.set_attr("frame_skip", 4)
  with pytest.raises(ValueError):
    venv.set_attr("frame_skip", 2, indices=[0])
  with pytest.raises(ValueError):
    venv.env_method("reset")
  assert venv.env_is_wrapped(gym.wrappers.TimeLimit) == [True] * 3
  assert venv.env_is_wrapped(gym.wrappers.RecordEpisodeStatistics) == [False] * 3
  assert venv.seed(7) == [7, 8, 9]
  obs = venv.reset()
  assert np.array_equal(obs[1], gym.make("MjArmReach-v0").reset(seed=8)[0])
  hopper = sb3.make_vec_env("MjHopper-v0", n_envs=2, seed=0, monitor=False)
  hopper.reset()
  assert hopper.get_attr("is_healthy") == [True, True]


def test_works_under_vec_normalize_and_vec_monitor():
  venv = VecNormalize(sb3.make_vec_env("MjHopper-v0", n_envs=8, seed=0))
  obs = venv.reset()
  assert obs.shape == (8, 11)
  episodes = 0
  for _ in range(100):
    obs, rewards, _, infos = venv.step(np.random.default_rng(0).uniform(-1, 1, (8, 3)))
    episodes += sum("episode" in info for info in infos)
  assert np.all(np.abs(obs) <= venv.clip_obs) and rewards.shape == (8,)
  assert episodes > 0  # VecMonitor's episode statistics


def test_works_under_vec_video_recorder(tmp_path):
  pytest.importorskip("moviepy")
  from stable_baselines3.common.vec_env import VecVideoRecorder  # pylint: disable=import-outside-toplevel
  venv = sb3.make_vec_env("MjCartpole-v0", n_envs=4, seed=0, render_mode="rgb_array",
                          env_kwargs={"width": 64, "height": 48})
  assert len(venv.get_images()) == 4
  rec = VecVideoRecorder(venv, str(tmp_path), record_video_trigger=lambda step: step == 0, video_length=10)
  rec.reset()
  for _ in range(12):
    rec.step(np.zeros((4, 1), np.float32))
  rec.close()
  assert list(tmp_path.glob("*.mp4"))


# The DeepMind Control Suite: one task per domain class (a class's tasks differ only in arguments).
DMC_IDS = list({entry: env_id for env_id, entry, _, _ in reversed(mjgym.envs.DMC_ENVS)}.values())


def _step_both(ours, ref, steps, seed):
  """Steps both VecEnvs under the same random actions; yields their (obs, reward, done, infos) pairs."""
  ours.seed(seed)
  ref.seed(seed)
  yield ours.reset(), ref.reset()
  space = ours.action_space
  rng = np.random.default_rng(seed)
  for _ in range(steps):
    actions = rng.uniform(space.low, space.high, (ours.num_envs,) + space.shape).astype(np.float32)
    yield ours.step(actions), ref.step(actions)


@pytest.mark.parametrize("env_id", DMC_IDS)
def test_dmc_task_matches_dummy_vec_env(env_id):
  """Flat observations of a suite task: DummyVecEnv's of single envs, bitwise, across a truncation."""
  n, limit = 2, 4
  ours = sb3.make_vec_env(env_id, n_envs=n, monitor=False, max_episode_steps=limit)
  ref = DummyVecEnv([lambda: gym.make(env_id, max_episode_steps=limit) for _ in range(n)])
  for k, (a, b) in enumerate(_step_both(ours, ref, 5, seed=3)):
    if k == 0:
      assert np.array_equal(a, b)
      continue
    for x, y in zip(a[:3], b[:3]):
      assert np.array_equal(x, y) and x.dtype == y.dtype, (env_id, k)
    _assert_infos_equal(a[3], b[3])


def test_dmc_dict_observations_match_dummy_vec_env_and_train():
  """observation="dict": SB3's dict observations (terminal ones too) equal to DummyVecEnv's, and PPO's and SAC's
  MultiInputPolicy learn on them."""
  from stable_baselines3 import PPO, SAC  # pylint: disable=import-outside-toplevel
  env_id, kwargs = "MjDMC/cheetah-run-v0", {"observation": "dict"}
  ours = sb3.make_vec_env(env_id, n_envs=2, monitor=False, max_episode_steps=3, env_kwargs=kwargs)
  ref = DummyVecEnv([lambda: gym.make(env_id, max_episode_steps=3, **kwargs) for _ in range(2)])
  assert ours.observation_space == ref.observation_space and list(ours.observation_space) == ["position", "velocity"]
  ended = 0
  for k, (a, b) in enumerate(_step_both(ours, ref, 4, seed=0)):
    obs_a, obs_b = (a, b) if k == 0 else (a[0], b[0])
    assert obs_a.keys() == obs_b.keys()
    for key in obs_b:
      assert np.array_equal(obs_a[key], obs_b[key]) and obs_a[key].dtype == obs_b[key].dtype, (k, key)
    if k:
      for info_a, info_b in zip(a[3], b[3]):
        if "terminal_observation" in info_b:
          ended += 1
          for key, value in info_b["terminal_observation"].items():
            assert np.array_equal(info_a["terminal_observation"][key], value), (k, key)
  assert ended == 2
  for algo, algo_kwargs in ((PPO, {"n_steps": 16, "batch_size": 32}), (SAC, {"learning_starts": 8, "batch_size": 8})):
    model = algo("MultiInputPolicy", sb3.make_vec_env(env_id, n_envs=2, env_kwargs=kwargs), seed=0,
                 policy_kwargs={"net_arch": [16, 16]}, **algo_kwargs)
    model.learn(64)  # two of PPO's rollouts of 16 steps of 2 worlds
    assert model.num_timesteps == 64
