"""Frames per second of the headless renderer (and of MuJoCo's OpenGL renderer when it runs headless here).

  python benchmarks/bench_render.py [--frames 30] [--nworld 8] [--models hopper humanoid textured] [--clock thread]

Prints one table: model, image size, single-frame fps with all effects, without shadows/AA/reflection,
depth-only, and batched fps (frames of all worlds per second) for the threads numba has. ``textured`` is a
scene written here with image textures everywhere: a 512 x 512 PNG on the floor, cube-textured boxes and
spheres, a textured mesh and an image skybox (hopper and humanoid have builtin textures only). ``--clock
thread`` times the single-frame columns in CPU time of the calling thread, best of the frames (they run on one
thread): steadier than wall time on a shared machine; the batch and mujoco columns stay wall time.
"""

import argparse
import os
import tempfile
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


_TEXTURED = """
<mujoco>
  <asset>
    <texture name="floor" type="2d" file="floor.png"/>
    <texture name="cube" type="cube" file="cube.png" gridsize="3 4" gridlayout=".U..LFRB.D.."/>
    <texture name="sky" type="skybox" file="cube.png" gridsize="3 4" gridlayout=".U..LFRB.D.."/>
    <material name="floor" texture="floor" texrepeat="4 4" reflectance="0.2"/>
    <material name="cube" texture="cube"/>
    <material name="mesh" texture="floor"/>
    <mesh name="tile" file="tile.obj"/>
  </asset>
  <worldbody>
    <light pos="0 0 4" dir="0 0 -1" directional="true"/>
    <camera name="view" pos="0 -4 2.5" xyaxes="1 0 0 0 0.5 1"/>
    <geom type="plane" size="4 4 0.1" material="floor"/>
    <geom type="box" size="0.3 0.3 0.3" pos="-1 0 0.3" material="cube"/>
    <geom type="sphere" size="0.4" pos="0 0.5 0.4" material="cube"/>
    <geom type="mesh" mesh="tile" pos="1 0 0.5" euler="60 0 0" material="mesh"/>
  </worldbody>
</mujoco>
"""


def _textured_model(folder):
  """Writes the textured scene and its images into folder; returns the model's path."""
  import imageio.v3 as iio  # pylint: disable=import-outside-toplevel
  y, x = np.mgrid[:512, :512]
  floor = np.stack([x % 256, y % 256, (x ^ y) % 256], axis=2).astype(np.uint8)
  iio.imwrite(os.path.join(folder, "floor.png"), floor)
  cube = np.zeros((3 * 128, 4 * 128, 3), np.uint8)
  cube[..., 0] = np.mgrid[:3 * 128, :4 * 128][1] % 128 * 2
  cube[..., 1] = np.mgrid[:3 * 128, :4 * 128][0] % 128 * 2
  iio.imwrite(os.path.join(folder, "cube.png"), cube)
  with open(os.path.join(folder, "tile.obj"), "w", encoding="utf-8") as f:
    f.write("v -0.5 -0.5 0\nv 0.5 -0.5 0\nv 0.5 0.5 0\nv -0.5 0.5 0\nv 0 0 -0.3\n"
            "vt 0 0\nvt 1 0\nvt 1 1\nvt 0 1\nvt 0.5 0.5\n"
            "f 1/1 2/2 3/3 4/4\nf 1/1 5/5 2/2\nf 2/2 5/5 3/3\nf 3/3 5/5 4/4\nf 4/4 5/5 1/1\n")
  path = os.path.join(folder, "textured.xml")
  with open(path, "w", encoding="utf-8") as f:
    f.write(_TEXTURED)
  return path


def _fps(fn, frames, clock="wall"):
  fn()
  if clock == "thread":
    best = float("inf")
    for _ in range(frames):
      t = time.thread_time()
      fn()
      best = min(best, time.thread_time() - t)
    return 1.0 / max(best, 1e-9)
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
  parser.add_argument("--models", nargs="+", default=["hopper", "humanoid", "textured"])
  parser.add_argument("--sizes", nargs="+", default=[f"{h}x{w}" for h, w in _SIZES])
  parser.add_argument("--clock", choices=("wall", "thread"), default="wall")
  args = parser.parse_args()
  folder = tempfile.mkdtemp()
  print(f"numba threads: {numba.config.NUMBA_NUM_THREADS}")
  print(f"{'model':10} {'size':>8} {'full':>7} {'plain':>7} {'depth':>7} {'batch':>7} {'mujoco':>7}  (frames/s)")
  sizes = [tuple(int(x) for x in s.split("x")) for s in args.sizes]
  for name in args.models:
    path = _textured_model(folder) if name == "textured" else os.path.join(_assets(), f"{name}.xml")
    m = physics.MjModel.from_xml_path(path)
    d = physics.MjData(m)
    physics.mj_forward(m, d)
    batch = MjDataBatch(m, args.nworld)
    batch.forward()
    for h, w in sizes:
      r = physics.Renderer(m, h, w)

      def frame():
        r.update_scene(d, 0)
        r.render()
      full = _fps(frame, args.frames, args.clock)
      r.shadows = r.antialiasing = r.reflection = False
      plain = _fps(frame, args.frames, args.clock)
      r.enable_depth_rendering()
      depth = _fps(frame, args.frames, args.clock)
      r.disable_depth_rendering()
      r.shadows = r.antialiasing = r.reflection = True
      batched = args.nworld * _fps(lambda: r.render_batch(batch, 0), max(1, args.frames // args.nworld))
      theirs = _mujoco_fps(path, h, w, args.frames)
      print(f"{name:10} {h:>4}x{w:<4} {full:7.1f} {plain:7.1f} {depth:7.1f} {batched:7.1f} {theirs:7.1f}")
      r.close()


if __name__ == "__main__":
  main()
