"""Writes a PNG of every registered mjgym environment's default camera view to docs/images/.

  python examples/env_views.py [--size 480] [--steps 20] [--out docs/images]

Each env is reset with seed 0 and stepped a few times with zero actions so that the robot settles into a
typical pose; the image is what ``env.render()`` returns in ``rgb_array`` mode (the env's own default camera).
"""

import argparse
import os

import gymnasium as gym
import imageio.v3 as iio
import numpy as np

import mjgym


def main():
  parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
  parser.add_argument("--size", type=int, default=480, help="image height and width (pixels)")
  parser.add_argument("--steps", type=int, default=20, help="zero-action steps before the picture")
  parser.add_argument("--out", default=os.path.join(os.path.dirname(__file__), "..", "docs", "images"))
  args = parser.parse_args()
  os.makedirs(args.out, exist_ok=True)
  for env_id, _, _ in mjgym.envs.ENVS:
    env = gym.make(env_id, render_mode="rgb_array", width=args.size, height=args.size)
    env.reset(seed=0)
    zero = np.zeros(env.action_space.shape, env.action_space.dtype)
    for _ in range(args.steps):
      env.step(zero)
    path = os.path.join(args.out, f"{env_id}.png")
    iio.imwrite(path, env.render())
    env.close()
    print(f"wrote {os.path.normpath(path)}")


if __name__ == "__main__":
  main()
