"""Rollout videos: ``mjgym.video.record(env, policy, "rollout.mp4")`` on any headless machine.

Frames come from the env's ``render()`` (``render_mode="rgb_array"``, mjgym's renderer needs no OpenGL);
mp4 is written through imageio's ffmpeg plugin (imageio-ffmpeg ships its own ffmpeg), gif through Pillow.
"""

import pathlib
import sys

import imageio.v2 as imageio
import numpy as np


def record(env, policy, path, steps=None, episodes=1, fps=None, seed=None, progress=None):
  """Runs ``policy`` in ``env`` and writes the rendered frames to ``path`` (.mp4 or .gif).

  Args:
    env: a Gymnasium env made with ``render_mode="rgb_array"``.
    policy: ``policy(obs) -> action``; None samples random actions.
    path: output file; the extension picks the format.
    steps: stop after this many env steps (default: when ``episodes`` episodes have ended).
    episodes: episodes to record when ``steps`` is None.
    fps: frames per second of the video (default: the env's ``metadata["render_fps"]``).
    seed: seed of the first reset.
    progress: show a progress bar on stderr (default: when stderr is a terminal).

  Returns:
    The number of frames written (one per reset and per step).
  """
  path = pathlib.Path(path)
  if getattr(env, "render_mode", None) != "rgb_array":
    raise ValueError(f"record needs an env made with render_mode='rgb_array', not {env.render_mode!r}")
  if path.suffix.lower() not in (".mp4", ".gif"):
    raise ValueError(f"unsupported video format {path.suffix!r}: use .mp4 or .gif")
  fps = fps or env.metadata.get("render_fps") or 30
  show = sys.stderr.isatty() if progress is None else progress
  total = steps
  obs, _ = env.reset(seed=seed)
  frames = 0
  kwargs = {"fps": fps}
  if path.suffix.lower() == ".mp4":
    kwargs.update(codec="libx264", macro_block_size=1)
  with imageio.get_writer(path, **kwargs) as writer:
    writer.append_data(np.asarray(env.render()))
    frames += 1
    done_episodes, step = 0, 0
    while (steps is None and done_episodes < episodes) or (steps is not None and step < steps):
      action = env.action_space.sample() if policy is None else policy(obs)
      obs, _, terminated, truncated, _ = env.step(action)
      step += 1
      writer.append_data(np.asarray(env.render()))
      frames += 1
      if terminated or truncated:
        done_episodes += 1
        if (steps is None and done_episodes < episodes) or (steps is not None and step < steps):
          obs, _ = env.reset()
          writer.append_data(np.asarray(env.render()))
          frames += 1
      if show:
        _progress(step, total, done_episodes, episodes)
  if show:
    sys.stderr.write("\n")
  return frames


def _progress(step, total, done_episodes, episodes):
  if total:
    filled = int(30 * step / total)
    sys.stderr.write(f"\r[{'#' * filled}{'.' * (30 - filled)}] {step}/{total} steps")
  else:
    sys.stderr.write(f"\r{step} steps, {done_episodes}/{episodes} episodes")
  sys.stderr.flush()
