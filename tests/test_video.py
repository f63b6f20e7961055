"""Env rendering and rollout videos, headless."""

import gymnasium as gym
import imageio.v2 as imageio
import imageio_ffmpeg
import numpy as np
import pytest

import mjgym
from mjgym import video


@pytest.mark.parametrize("env_id", ["MjHopper-v0", "MjHumanoid-v0"])
def test_record_writes_a_video_with_the_expected_frames(env_id, tmp_path):
  env = gym.make(env_id, render_mode="rgb_array", width=96, height=64)
  path = tmp_path / "rollout.mp4"
  frames = video.record(env, None, path, steps=12, seed=0, progress=False)
  assert frames >= 13
  reader = imageio.get_reader(path, "ffmpeg")
  read = [f for f in reader]
  assert len(read) == frames and read[0].shape == (64, 96, 3)
  assert np.std(read[5]) > 1  # a picture, not a blank frame


def test_render_modes_and_tracking_camera():
  env = gym.make("MjHopper-v0", render_mode="rgb_array", width=80, height=60)
  env.reset(seed=0)
  rgb = env.render()
  assert rgb.shape == (60, 80, 3) and rgb.dtype == np.uint8
  depth_env = gym.make("MjHopper-v0", render_mode="depth_array", width=80, height=60)
  depth_env.reset(seed=0)
  depth = depth_env.render()
  assert depth.shape == (60, 80) and depth.dtype == np.float32 and np.isfinite(depth).all()
  with pytest.raises(ValueError, match="render_mode"):
    gym.make("MjHopper-v0", render_mode="pixels")


def test_record_video_wrapper_headless(tmp_path):
  env = gym.make("MjHopper-v0", render_mode="rgb_array", width=64, height=48)
  env = gym.wrappers.RecordVideo(env, str(tmp_path), episode_trigger=lambda e: True, disable_logger=True)
  env.reset(seed=0)
  for _ in range(10):
    env.step(env.action_space.sample())
  env.close()
  videos = list(tmp_path.glob("*.mp4"))
  assert videos
  frames, _ = imageio_ffmpeg.count_frames_and_secs(str(videos[0]))
  assert frames >= 10
