"""Renders a rollout of random controls to an mp4 (or gif) with no display and no OpenGL.

  python examples/rollout_video.py path/to/model.xml out.mp4 --seconds 4 --camera 0
"""

import argparse

import imageio.v2 as imageio
import numpy as np

from mjgym import physics


def record(model_path, out_path, seconds=4.0, fps=30, camera=-1, height=240, width=320, seed=0):
  """Steps the model under random controls and writes one frame every 1/fps seconds; returns the frame count."""
  m = physics.MjModel.from_xml_path(model_path)
  d = physics.MjData(m)
  rng = np.random.default_rng(seed)
  steps_per_frame = max(1, round(1.0 / (fps * m.opt.timestep)))
  nframes = int(seconds * fps)
  lo, hi = (m.actuator_ctrlrange[:, 0], m.actuator_ctrlrange[:, 1]) if m.nu else (None, None)
  physics.mj_forward(m, d)
  with physics.Renderer(m, height, width) as renderer, imageio.get_writer(out_path, fps=fps) as writer:
    for _ in range(nframes):
      renderer.update_scene(d, camera=camera)
      writer.append_data(renderer.render())
      if m.nu:
        d.ctrl[:] = rng.uniform(np.where(lo < hi, lo, -1.0), np.where(lo < hi, hi, 1.0))
      physics.mj_step(m, d, nstep=steps_per_frame)
  return nframes


def main():
  parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
  parser.add_argument("model")
  parser.add_argument("out", help=".mp4 (needs imageio-ffmpeg) or .gif")
  parser.add_argument("--seconds", type=float, default=4.0)
  parser.add_argument("--fps", type=int, default=30)
  parser.add_argument("--camera", default="-1", help="camera name or id; -1 is the free camera")
  parser.add_argument("--height", type=int, default=240)
  parser.add_argument("--width", type=int, default=320)
  args = parser.parse_args()
  camera = int(args.camera) if args.camera.lstrip("-").isdigit() else args.camera
  n = record(args.model, args.out, args.seconds, args.fps, camera, args.height, args.width)
  print(f"wrote {n} frames to {args.out}")


if __name__ == "__main__":
  main()
