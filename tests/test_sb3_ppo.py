"""Learning through the batched VecEnv: SB3's PPO trains MjCartpole-v0 on 64 worlds to a mean return >= 475."""

import pytest

import mjgym  # noqa: F401  (registers the environments)


def test_ppo_learns_cartpole_on_64_worlds():
  sb3_lib = pytest.importorskip("stable_baselines3")
  import torch  # pylint: disable=import-outside-toplevel
  from stable_baselines3.common.evaluation import evaluate_policy  # pylint: disable=import-outside-toplevel
  from mjgym import sb3  # pylint: disable=import-outside-toplevel
  torch.set_num_threads(1)  # a small MLP: more torch threads only fight the physics threads for cores
  env = sb3.make_vec_env("MjCartpole-v0", n_envs=64, seed=0)
  # 64 worlds x 16 steps = 1024 samples per update, the rollout size of tests/test_learning.py's single env
  model = sb3_lib.PPO("MlpPolicy", env, n_steps=16, batch_size=64, n_epochs=10, learning_rate=3e-4, gamma=0.99,
                      gae_lambda=0.95, seed=0, device="cpu", verbose=0)
  model.learn(total_timesteps=100_000)
  eval_env = sb3.make_vec_env("MjCartpole-v0", n_envs=16, seed=1000)
  mean_return, _ = evaluate_policy(model, eval_env, n_eval_episodes=16, deterministic=True)
  assert mean_return >= 475, f"PPO reached a mean return of {mean_return:.1f} after 100k steps on 64 worlds"
