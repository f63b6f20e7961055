"""The rollout-video example writes an mp4 that imageio reads back with the expected frames."""

import importlib.util
import os

import imageio.v2 as imageio

_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _example():
  spec = importlib.util.spec_from_file_location("rollout_video", os.path.join(_ROOT, "examples", "rollout_video.py"))
  module = importlib.util.module_from_spec(spec)
  spec.loader.exec_module(module)
  return module


def test_rollout_video_mp4(tmp_path):
  out = str(tmp_path / "clip.mp4")
  n = _example().record(os.path.join(_ROOT, "tests", "models", "mesh_geoms.xml"), out, seconds=0.5, fps=20,
                        height=64, width=96)
  reader = imageio.get_reader(out)
  assert n == 10
  assert reader.count_frames() == n
  assert reader.get_data(0).shape == (64, 96, 3)
