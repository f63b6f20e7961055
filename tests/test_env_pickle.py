"""mjgym's envs across processes: pickling, Gymnasium's AsyncVectorEnv and SB3's SubprocVecEnv."""

import pickle

import gymnasium as gym
import numpy as np
import pytest

import mjgym  # noqa: F401  (registers the envs)
from mjgym import sb3 as mjgym_sb3

ENV_ID = "MjHopper-v0"
# a subprocess started by forkserver or spawn (SB3's SubprocVecEnv default) imports nothing of the parent's: the
# "mjgym:" prefix makes gym.make import mjgym (which registers the envs) there
PROC_ENV_ID = "mjgym:MjHopper-v0"


def _actions(n, steps, nu=3, seed=0):
  return np.random.default_rng(seed).uniform(-1, 1, (steps, n, nu))


def _rollout(env, actions):
  out = []
  for a in actions:
    obs, reward, terminated, truncated, _ = env.step(a)
    out.append((obs.copy(), np.copy(reward), np.copy(terminated), np.copy(truncated)))
  return out


def _assert_same(a, b):
  for x, y in zip(a, b):
    for u, v in zip(x, y):
      np.testing.assert_array_equal(u, v)


def test_single_env_pickles_to_an_equal_env():
  """As Gymnasium's MuJoCo envs (EzPickle): the copy is built from the same arguments; seeded, it runs the same
  trajectory bitwise."""
  env = gym.make(ENV_ID, reset_noise_scale=0.02, frame_skip=3).unwrapped
  copy = pickle.loads(pickle.dumps(env))
  assert copy.frame_skip == 3 and copy.task.p.reset_noise_scale == 0.02
  actions = _actions(1, 30)[:, 0]
  np.testing.assert_array_equal(env.reset(seed=4)[0], copy.reset(seed=4)[0])
  _assert_same(_rollout(env, actions), _rollout(copy, actions))


def test_vector_env_pickles_mid_episode_and_continues_bitwise():
  """The batched Data, seeds, episode counters and autoreset flags travel: the copy continues exactly as the
  original does."""
  env = gym.make_vec(ENV_ID, num_envs=4, vectorization_mode="vector_entry_point", num_threads=1)
  env.reset(seed=1)
  actions = _actions(4, 60)
  _rollout(env, actions[:30])
  copy = pickle.loads(pickle.dumps(env))
  _assert_same(_rollout(env, actions[30:]), _rollout(copy, actions[30:]))


def test_sb3_vecenv_pickles_mid_episode_and_continues_bitwise():
  env = mjgym_sb3.make_vec_env(ENV_ID, n_envs=3, seed=2, monitor=False, num_threads=1)
  env.reset()
  actions = _actions(3, 40)
  for a in actions[:20]:
    env.step(a)
  copy = pickle.loads(pickle.dumps(env))
  for a in actions[20:]:
    for x, y in zip(env.step(a)[:3], copy.step(a)[:3]):
      np.testing.assert_array_equal(x, y)


def test_async_vector_env_matches_sync():
  """Gymnasium's AsyncVectorEnv (one subprocess per env) over mjgym envs: the same trajectory as SyncVectorEnv."""
  actions = _actions(2, 40)
  sync = gym.vector.SyncVectorEnv([lambda: gym.make(ENV_ID) for _ in range(2)])
  proc = gym.vector.AsyncVectorEnv([lambda: gym.make(PROC_ENV_ID) for _ in range(2)])
  try:
    np.testing.assert_array_equal(sync.reset(seed=3)[0], proc.reset(seed=3)[0])
    _assert_same(_rollout(sync, actions), _rollout(proc, actions))
  finally:
    proc.close()
    sync.close()


def test_sb3_subproc_vec_env_matches_dummy():
  """SB3's SubprocVecEnv (forkserver: the env is built from a pickled factory in a fresh process) equals DummyVecEnv."""
  vec_env = pytest.importorskip("stable_baselines3.common.vec_env")
  actions = _actions(2, 40)
  dummy = vec_env.DummyVecEnv([lambda: gym.make(ENV_ID) for _ in range(2)])
  proc = vec_env.SubprocVecEnv([lambda: gym.make(PROC_ENV_ID) for _ in range(2)], start_method="forkserver")
  try:
    dummy.seed(5)
    proc.seed(5)
    np.testing.assert_array_equal(dummy.reset(), proc.reset())
    for a in actions:
      # DummyVecEnv keeps rewards in a float32 buffer, SubprocVecEnv stacks the envs' float64: compare as float32
      for x, y in zip(dummy.step(a)[:3], proc.step(a)[:3]):
        np.testing.assert_array_equal(x, np.asarray(y, dtype=np.asarray(x).dtype))
  finally:
    proc.close()
    dummy.close()
