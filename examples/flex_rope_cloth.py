"""Writes docs/images/flex.png: a cloth dropped on a ball and a rope dropped on the floor.

  python examples/flex_rope_cloth.py [--steps 600] [--height 240] [--width 320] [--out docs/images/flex.png]

Both are <flexcomp> grids held together by edge equality constraints (the rope also has edge damping). The cloth
drapes over the ball through sphere-triangle contacts and the rope lands on the floor through plane-vertex contacts,
both as MuJoCo makes them; contype/conaffinity keep the cloth and the rope apart (mjgym has no flex-flex contacts).
The run prints how far the last state is from MuJoCo's (the `mujoco` package, stepped beside it): 1.1e-15 after the
600 steps (measured).
"""

import argparse
import os

import imageio.v3 as iio
import numpy as np

from mjgym import physics

SCENE = """
<mujoco model="flex rope and cloth">
  <option timestep="0.002"/>
  <worldbody>
    <light pos="0 -1 3" dir="0 0.3 -1" directional="true"/>
    <camera name="view" pos="0.25 -1.6 0.9" xyaxes="1 0 0 0 0.45 1"/>
    <geom type="plane" size="2 2 0.1" rgba="0.85 0.85 0.8 1" contype="3" conaffinity="3"/>
    <geom type="sphere" size="0.2" pos="0 0 0.2" rgba="0.3 0.3 0.3 1"/>
    <flexcomp name="cloth" type="grid" count="9 9 1" spacing="0.06 0.06 0.06" pos="0 0 0.6" euler="0 0 15"
              radius="0.008" dim="2" mass="0.3" rgba="0.2 0.5 0.85 1">
      <edge equality="true" damping="0.002"/>
      <contact condim="3" friction="0.8" selfcollide="none"/>
    </flexcomp>
    <flexcomp name="rope" type="grid" count="16 1 1" spacing="0.04 0.04 0.04" pos="0.55 0 0.4" euler="0 20 0"
              radius="0.012" dim="1" mass="0.2" rgba="0.85 0.35 0.2 1">
      <edge equality="true" damping="0.01"/>
      <contact contype="2" conaffinity="2" condim="3" friction="0.8" selfcollide="none"/>
    </flexcomp>
  </worldbody>
</mujoco>
"""


def main():
  parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
  parser.add_argument("--steps", type=int, default=600)
  parser.add_argument("--height", type=int, default=240)
  parser.add_argument("--width", type=int, default=320)
  parser.add_argument("--out", default=os.path.join("docs", "images", "flex.png"))
  args = parser.parse_args()
  m = physics.MjModel.from_xml_string(SCENE)
  d = physics.MjData(m)
  physics.mj_step(m, d, nstep=args.steps)
  try:
    import mujoco  # pylint: disable=import-outside-toplevel
  except ImportError:
    mujoco = None
  if mujoco is not None:
    mjm = mujoco.MjModel.from_xml_string(SCENE)
    mjd = mujoco.MjData(mjm)
    mujoco.mj_step(mjm, mjd, nstep=args.steps)
    print(f"after {args.steps} steps: max |qpos - MuJoCo's| = {np.max(np.abs(d.qpos - mjd.qpos)):.1e}")
  with physics.Renderer(m, args.height, args.width) as renderer:
    renderer.update_scene(d, "view")
    pixels = renderer.render()
  os.makedirs(os.path.dirname(args.out) or ".", exist_ok=True)
  iio.imwrite(args.out, pixels)
  print(f"wrote {args.out}")


if __name__ == "__main__":
  main()
