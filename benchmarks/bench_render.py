"""Frames per second of the headless renderer (and of MuJoCo's OpenGL renderer when it runs headless here).

  python benchmarks/bench_render.py [--frames 30] [--nworld 8]

Prints one table: model, image size, single-frame fps with all effects, without shadows/AA/reflection,
depth-only, and batched fps (frames of all worlds per second) for the threads numba has.
"""

import argparse
import os
import time

# MuJoCo picks its GL backend when first imported (gymnasium imports it): headless EGL, before that.
os.environ.setdefault("MUJOCO_GL", "egl")

import numba
import numpy as np

from mjgym import physics
from mjgym.physics.batch import MjDataBatch

_SIZES = ((240, 320), (480, 480), (480, 640))


def _assets():
  from gymnasium.envs.mujoco import __file__ as gym_mujoco  # pylint: disable=import-outside-toplevel
  return os.path.join(os.path.dirname(gym_mujoco), "assets")


def _fps(fn, frames):
  fn()
  t = time.perf_counter()
  for _ in range(frames):
    fn()
  return frames / (time.perf_counter() - t)


def _mujoco_fps(path, h, w, frames):
  try:
    import mujoco  # pylint: disable=import-outside-toplevel
    m = mujoco.MjModel.from_xml_path(path)
    d = mujoco.MjData(m)
    mujoco.mj_forward(m, d)
    with mujoco.Renderer(m, h, w) as r:
      def frame():
        r.update_scene(d, 0)
        r.render()
      return _fps(frame, frames)
  except Exception:  # pylint: disable=broad-except
    return float("nan")


def main():
  parser = argparse.ArgumentParser()
  parser.add_argument("--frames", type=int, default=30)
  parser.add_argument("--nworld", type=int, default=8)
  args = parser.parse_args()
  print(f"numba threads: {numba.config.NUMBA_NUM_THREADS}")
  print(f"{'model':10} {'size':>8} {'full':>7} {'plain':>7} {'depth':>7} {'batch':>7} {'mujoco':>7}  (frames/s)")
  for name in ("hopper", "humanoid"):
    path = os.path.join(_assets(), f"{name}.xml")
    m = physics.MjModel.from_xml_path(path)
    d = physics.MjData(m)
    physics.mj_forward(m, d)
    batch = MjDataBatch(m, args.nworld)
    batch.forward()
    for h, w in _SIZES:
      r = physics.Renderer(m, h, w)

      def frame():
        r.update_scene(d, 0)
        r.render()
      full = _fps(frame, args.frames)
      r.shadows = r.antialiasing = r.reflection = False
      plain = _fps(frame, args.frames)
      r.enable_depth_rendering()
      depth = _fps(frame, args.frames)
      r.disable_depth_rendering()
      r.shadows = r.antialiasing = r.reflection = True
      batched = args.nworld * _fps(lambda: r.render_batch(batch, 0), max(1, args.frames // args.nworld))
      theirs = _mujoco_fps(path, h, w, args.frames)
      print(f"{name:10} {h:>4}x{w:<4} {full:7.1f} {plain:7.1f} {depth:7.1f} {batched:7.1f} {theirs:7.1f}")
      r.close()


if __name__ == "__main__":
  main()
