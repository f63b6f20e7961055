"""Env-steps/s of each mjgym environment next to its Gymnasium (MuJoCo) counterpart, in the same run.

Random actions, resets included (auto-reset on termination/truncation), one env at a time, best of a few
repeats to resist noise on a shared machine. No pass/fail.

    python benchmarks/bench_envs.py [--steps 5000]
"""

import argparse
import time

import gymnasium as gym
import numpy as np

import mjgym  # noqa: F401  (registers the environments)

PAIRS = (
    ("MjHopper-v0", "Hopper-v5"),
    ("MjHumanoid-v0", "Humanoid-v5"),
    ("MjArmReach-v0", "Reacher-v5"),
    ("MjCartpole-v0", "InvertedPendulum-v5"),
)


def steps_per_second(env_id, steps, repeats):
  env = gym.make(env_id)
  env.reset(seed=0)
  env.action_space.seed(0)
  actions = [env.action_space.sample() for _ in range(steps)]
  for a in actions[:50]:  # warm-up: compiles or loads cached kernels
    if any(env.step(a)[2:4]):
      env.reset()
  best = np.inf
  for _ in range(repeats):
    env.reset(seed=1)
    t0 = time.perf_counter()
    for a in actions:
      _, _, terminated, truncated, _ = env.step(a)
      if terminated or truncated:
        env.reset()
    best = min(best, time.perf_counter() - t0)
  env.close()
  return steps / best


def main():
  parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
  parser.add_argument("--steps", type=int, default=5000)
  parser.add_argument("--repeats", type=int, default=3)
  args = parser.parse_args()
  print(f"{'mjgym env':<16} {'steps/s':>9}   {'Gymnasium env':<20} {'steps/s':>9} {'ratio':>6}")
  for ours, theirs in PAIRS:
    a = steps_per_second(ours, args.steps, args.repeats)
    b = steps_per_second(theirs, args.steps, args.repeats)
    print(f"{ours:<16} {a:9,.0f}   {theirs:<20} {b:9,.0f} {a / b:6.2f}")


if __name__ == "__main__":
  main()
