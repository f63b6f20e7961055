"""Learning: stable-baselines3's PPO trains MjCartpole-v0 to a mean return of at least 475 in 100k env steps."""

import gymnasium as gym
import numpy as np
import pytest

import mjgym  # noqa: F401  (registers the environments)


def test_ppo_learns_cartpole():
  sb3 = pytest.importorskip("stable_baselines3")
  import torch  # pylint: disable=import-outside-toplevel
  from stable_baselines3.common.evaluation import evaluate_policy  # pylint: disable=import-outside-toplevel
  torch.set_num_threads(1)
  env = gym.make("MjCartpole-v0")
  model = sb3.PPO("MlpPolicy", env, n_steps=1024, batch_size=64, n_epochs=10, learning_rate=3e-4, gamma=0.99,
                  gae_lambda=0.95, seed=0, device="cpu", verbose=0)
  model.learn(total_timesteps=100_000)
  mean_return, _ = evaluate_policy(model, gym.make("MjCartpole-v0"), n_eval_episodes=10, deterministic=True)
  assert mean_return >= 475, f"PPO reached a mean return of {mean_return:.1f} after 100k steps"
