"""Learning benchmark: PPO with rl-zoo3's Hopper hyperparameters on MjHopper-v0 (mjgym's engine, batched VecEnv)
and on Gymnasium's Hopper-v5 (MuJoCo, SB3's DummyVecEnv), same seeds, same budget.

Prints, per env and seed, the deterministic evaluation return at 250k, 500k and the final step count, the
wall-clock and the env-steps/s (learning included), then mean ± std over seeds. rl-zoo3 reports PPO on
Hopper 2410 ± 10 at 1M steps. Not a test: learning curves are noisy and the machine is shared.

  python benchmarks/learning.py                         # 1M steps, seeds 0 1 2 (hours on two cores)
  python benchmarks/learning.py --steps 50000 --seeds 0 # a quick look
"""

import argparse
import time

import gymnasium as gym
import numpy as np

import mjgym  # noqa: F401  (registers the environments)
from mjgym import hyperparams
from mjgym import sb3
from mjgym import train


def run(env_id, seed, steps, checkpoints, eval_episodes):
  """(returns at each checkpoint, wall seconds) of one PPO run."""
  from stable_baselines3 import PPO  # pylint: disable=import-outside-toplevel
  from stable_baselines3.common.env_util import make_vec_env  # pylint: disable=import-outside-toplevel
  from stable_baselines3.common.evaluation import evaluate_policy  # pylint: disable=import-outside-toplevel
  from stable_baselines3.common.vec_env import VecNormalize  # pylint: disable=import-outside-toplevel
  kwargs, n_envs, _, normalize, _ = train.sb3_arguments(hyperparams.load("ppo", "MjHopper-v0"), env_id)
  if env_id.startswith("Mj"):
    venv = sb3.make_vec_env(env_id, n_envs=n_envs, seed=seed)
    eval_env = sb3.make_vec_env(env_id, n_envs=1, seed=seed + 10_000)
  else:
    venv = make_vec_env(env_id, n_envs=n_envs, seed=seed)
    eval_env = make_vec_env(env_id, n_envs=1, seed=seed + 10_000)
  if normalize is not None:
    venv = VecNormalize(venv, **normalize)
    eval_env = VecNormalize(eval_env, training=False, norm_reward=False)
  model = PPO(env=venv, seed=seed, device="cpu", verbose=0, **kwargs)
  returns, done, wall = [], 0, 0.0
  for target in checkpoints:
    t0 = time.perf_counter()
    model.learn(total_timesteps=target - done, reset_num_timesteps=done == 0)
    wall += time.perf_counter() - t0
    done = target
    if normalize is not None:
      eval_env.obs_rms = venv.obs_rms
    mean, _ = evaluate_policy(model, eval_env, n_eval_episodes=eval_episodes, deterministic=True)
    returns.append(mean)
    print(f"  {env_id} seed {seed}: {target:>9,} steps  return {mean:8.1f}  ({wall:.0f} s)", flush=True)
  return returns, wall


def main():
  parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
  parser.add_argument("--steps", type=int, default=1_000_000)
  parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
  parser.add_argument("--eval-episodes", type=int, default=10)
  parser.add_argument("--envs", nargs="+", default=["MjHopper-v0", "Hopper-v5"])
  args = parser.parse_args()
  checkpoints = sorted({min(s, args.steps) for s in (250_000, 500_000)} | {args.steps})
  results = {}
  for env_id in args.envs:
    gym.spec(env_id)
    for seed in args.seeds:
      results[env_id, seed] = run(env_id, seed, args.steps, checkpoints, args.eval_episodes)
  print("\n| env | seed | " + " | ".join(f"return @ {c:,}" for c in checkpoints) + " | wall s | env-steps/s |")
  print("|---|---:|" + "---:|" * (len(checkpoints) + 2))
  for (env_id, seed), (returns, wall) in results.items():
    print(f"| {env_id} | {seed} | " + " | ".join(f"{r:.1f}" for r in returns) + f" | {wall:.0f} | "
          f"{args.steps / wall:,.0f} |")
  for env_id in args.envs:
    final = [results[env_id, s][0][-1] for s in args.seeds]
    print(f"| {env_id} | mean ± std | {np.mean(final):.1f} ± {np.std(final):.1f} (final) |")


if __name__ == "__main__":
  main()
