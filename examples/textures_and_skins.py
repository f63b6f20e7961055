"""Writes docs/images/render_textures.png: a scene of image textures and a skin, mjgym's renderer beside MuJoCo's.

  python examples/textures_and_skins.py [--height 240] [--width 320] [--out docs/images/render_textures.png]

The scene (written with its images to a temporary folder): a floor with a PNG, a cube-textured box, a sphere
with a 2d texture (MuJoCo's longitude-latitude coordinates), a mesh with OBJ texture coordinates, an image
skybox and a skinned strip bent by two bones. MuJoCo's half is left black where its renderer has no headless
OpenGL (MUJOCO_GL=egl).
"""

import argparse
import os
import tempfile

os.environ.setdefault("MUJOCO_GL", "egl")

import imageio.v3 as iio  # pylint: disable=wrong-import-position
import numpy as np  # pylint: disable=wrong-import-position

from mjgym import physics  # pylint: disable=wrong-import-position

_SCENE = """
<mujoco>
  <asset>
    <texture name="floor" type="2d" file="floor.png"/>
    <texture name="faces" type="cube" file="faces.png" gridsize="3 4" gridlayout=".U..LFRB.D.."/>
    <texture name="sky" type="skybox" file="sky.png" gridsize="3 4" gridlayout=".U..LFRB.D.."/>
    <material name="floor" texture="floor" texrepeat="2 2"/>
    <material name="faces" texture="faces"/>
    <material name="globe" texture="floor"/>
    <material name="skin" rgba="0.9 0.5 0.2 1"/>
    <mesh name="tile" file="tile.obj"/>
    <skin name="strip" material="skin" inflate="0.01"
          vertex="-0.5 -0.1 0  -0.5 0.1 0  0 -0.1 0  0 0.1 0  0.5 -0.1 0  0.5 0.1 0"
          face="0 2 1  1 2 3  2 4 3  3 4 5">
      <bone body="root" bindpos="-0.25 0 0" bindquat="1 0 0 0" vertid="0 1 2 3" vertweight="1 1 0.5 0.5"/>
      <bone body="tip" bindpos="0.25 0 0" bindquat="1 0 0 0" vertid="2 3 4 5" vertweight="0.5 0.5 1 1"/>
    </skin>
  </asset>
  <worldbody>
    <light pos="0 -1 4" dir="0 0.2 -1" directional="true"/>
    <camera name="view" pos="0 -4.2 2.2" xyaxes="1 0 0 0 0.45 1"/>
    <geom type="plane" size="3 3 0.1" material="floor"/>
    <geom type="box" size="0.3 0.3 0.3" pos="-1.2 0 0.3" euler="0 0 30" material="faces"/>
    <geom type="sphere" size="0.35" pos="-0.3 0.4 0.35" material="globe"/>
    <geom type="mesh" mesh="tile" pos="1.2 0.2 0.6" euler="70 0 -20" material="floor"/>
    <body name="root" pos="0.35 -0.9 0.3">
      <geom size="0.02" rgba="0 0 0 0"/>
      <body name="tip" pos="0.5 0 0" euler="0 -40 0"><geom size="0.02" rgba="0 0 0 0"/></body>
    </body>
  </worldbody>
</mujoco>
"""

_TILE = """v -0.5 -0.5 0
v 0.5 -0.5 0
v 0.5 0.5 0
v -0.5 0.5 0
v 0 0 -0.25
vt 0 0
vt 1 0
vt 1 1
vt 0 1
vt 0.5 0.5
f 1/1 2/2 3/3 4/4
f 1/1 5/5 2/2
f 2/2 5/5 3/3
f 3/3 5/5 4/4
f 4/4 5/5 1/1
"""


def _write(folder):
  """The scene's images and mesh, and its XML; returns the XML's path."""
  y, x = np.mgrid[:256, :256]
  floor = np.stack([x, y, 255 - (x + y) // 2], axis=2).astype(np.uint8)
  floor[(x // 32 + y // 32) % 2 == 0] //= 2
  iio.imwrite(os.path.join(folder, "floor.png"), floor)
  faces = np.zeros((3 * 64, 4 * 64, 3), np.uint8)
  colours = {(0, 1): (230, 230, 60), (1, 0): (60, 200, 230), (1, 1): (230, 80, 80), (1, 2): (80, 200, 80),
             (1, 3): (80, 80, 230), (2, 1): (200, 80, 200)}
  for (r, c), rgb in colours.items():
    faces[r * 64:(r + 1) * 64, c * 64:(c + 1) * 64] = rgb
    faces[r * 64 + 24:r * 64 + 40, c * 64 + 8:c * 64 + 56] = 255  # a bar: shows each face's orientation
  iio.imwrite(os.path.join(folder, "faces.png"), faces)
  sky = np.zeros((3 * 64, 4 * 64, 3), np.uint8)
  rows = np.mgrid[:3 * 64, :4 * 64][0]
  sky[..., 0] = 60 + rows // 3
  sky[..., 1] = 90 + rows // 3
  sky[..., 2] = 160 + rows // 4
  iio.imwrite(os.path.join(folder, "sky.png"), sky)
  with open(os.path.join(folder, "tile.obj"), "w", encoding="utf-8") as f:
    f.write(_TILE)
  path = os.path.join(folder, "scene.xml")
  with open(path, "w", encoding="utf-8") as f:
    f.write(_SCENE)
  return path


def _mujoco_image(path, height, width):
  try:
    import mujoco  # pylint: disable=import-outside-toplevel
    m = mujoco.MjModel.from_xml_path(path)
    d = mujoco.MjData(m)
    mujoco.mj_forward(m, d)
    with mujoco.Renderer(m, height, width) as r:
      r.update_scene(d, "view")
      return r.render()
  except Exception:  # pylint: disable=broad-except
    return np.zeros((height, width, 3), np.uint8)


def main():
  parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
  parser.add_argument("--height", type=int, default=240)
  parser.add_argument("--width", type=int, default=320)
  parser.add_argument("--out", default=os.path.join(os.path.dirname(__file__), "..", "docs", "images",
                                                    "render_textures.png"))
  args = parser.parse_args()
  path = _write(tempfile.mkdtemp())
  m = physics.MjModel.from_xml_path(path)
  d = physics.MjData(m)
  physics.mj_forward(m, d)
  with physics.Renderer(m, args.height, args.width) as r:
    r.update_scene(d, "view")
    ours = r.render()
  gap = np.full((args.height, 4, 3), 255, np.uint8)
  iio.imwrite(args.out, np.concatenate([ours, gap, _mujoco_image(path, args.height, args.width)], axis=1))
  print(f"wrote {args.out} (mjgym left, MuJoCo right)")


if __name__ == "__main__":
  main()
