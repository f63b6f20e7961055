"""Renderer: image and cube textures, the skybox, textured meshes and skins, drawn where MuJoCo draws them.

The images are written at test time. Pixel colours are checked at known places (orientation included) and, where
MuJoCo's own renderer runs headless (MUJOCO_GL=egl), against its pixels.
"""

import os
import subprocess
import sys

import imageio.v3 as iio
import numpy as np
import pytest

from mjgym import physics

os.environ.setdefault("MUJOCO_GL", "egl")

# Four quadrants: red top left, green top right, blue bottom left, white bottom right (PNG rows from the top).
_QUADRANTS = np.zeros((8, 8, 3), np.uint8)
_QUADRANTS[:4, :4] = (255, 0, 0)
_QUADRANTS[:4, 4:] = (0, 255, 0)
_QUADRANTS[4:, :4] = (0, 0, 255)
_QUADRANTS[4:, 4:] = (255, 255, 255)

# Lit by emission only: a pixel's colour is its texture's (times the material rgba).
_UNLIT = '<visual><headlight ambient="0 0 0" diffuse="0 0 0" specular="0 0 0"/></visual>'
_MAT = 'emission="1" specular="0" shininess="0"'

_PLANE = f"""
<mujoco>
  {_UNLIT}
  <asset>
    <texture name="quad" type="2d" file="quad.png"/>
    <material name="quad" texture="quad" {_MAT}/>
  </asset>
  <worldbody>
    <camera name="top" pos="0 0 3" xyaxes="1 0 0 0 1 0" fovy="45"/>
    <geom type="plane" size="1 1 0.1" material="quad"/>
  </worldbody>
</mujoco>
"""

_FACES = {"right": (255, 0, 0), "left": (0, 255, 255), "up": (0, 255, 0), "down": (255, 0, 255),
          "front": (0, 0, 255), "back": (255, 255, 0)}

_CUBE = f"""
<mujoco>
  {_UNLIT}
  <asset>
    <texture name="cube" type="cube" {" ".join(f'file{k}="{k}.png"' for k in _FACES)}/>
    <material name="cube" texture="cube" {_MAT}/>
  </asset>
  <worldbody>
    <camera name="px" pos="3 0 0" xyaxes="0 1 0 0 0 1"/>
    <camera name="nx" pos="-3 0 0" xyaxes="0 -1 0 0 0 1"/>
    <camera name="py" pos="0 3 0" xyaxes="-1 0 0 0 0 1"/>
    <camera name="ny" pos="0 -3 0" xyaxes="1 0 0 0 0 1"/>
    <camera name="pz" pos="0 0 3" xyaxes="1 0 0 0 1 0"/>
    <camera name="nz" pos="0 0 -3" xyaxes="1 0 0 0 -1 0"/>
    <geom type="box" size="0.4 0.5 0.3" material="cube"/>
  </worldbody>
</mujoco>
"""

# 2d textures on the shapes MuJoCo draws itself: its texture coordinates of each shape (seen from above and the side)
_SHAPES = f"""
<mujoco>
  {_UNLIT}
  <asset>
    <texture name="quad" type="2d" file="quad.png"/>
    <material name="quad" texture="quad" {_MAT}/>
  </asset>
  <worldbody>
    <camera name="top" pos="0 0 4" xyaxes="1 0 0 0 1 0" fovy="45"/>
    <camera name="side" pos="0 -4 0" xyaxes="1 0 0 0 0 1" fovy="45"/>
    <geom type="box" size="0.4 0.3 0.2" pos="-0.7 0.6 0" material="quad"/>
    <geom type="sphere" size="0.4" pos="0.7 0.6 0" material="quad"/>
    <geom type="cylinder" size="0.3 0.3" pos="-0.7 -0.6 0" material="quad"/>
    <geom type="capsule" size="0.2 0.2" pos="0.7 -0.6 0" material="quad"/>
  </worldbody>
</mujoco>
"""

_H, _W = 64, 64


def _write_images(tmp_path):
  iio.imwrite(tmp_path / "quad.png", _QUADRANTS)
  for name, rgb in _FACES.items():
    iio.imwrite(tmp_path / f"{name}.png", np.full((32, 32, 3), rgb, np.uint8))
  # a 3 x 4 grid of faces (gridlayout ".U..LFRB.D.."), each with an off-centre bar that shows its orientation
  grid = np.zeros((3 * 32, 4 * 32, 3), np.uint8)
  for (r, c), name in {(0, 1): "up", (1, 0): "left", (1, 1): "front", (1, 2): "right", (1, 3): "back",
                       (2, 1): "down"}.items():
    grid[r * 32:(r + 1) * 32, c * 32:(c + 1) * 32] = _FACES[name]
    grid[r * 32 + 4:r * 32 + 12, c * 32 + 4:c * 32 + 20] = 255
  iio.imwrite(tmp_path / "grid.png", grid)


def _load(tmp_path, xml):
  _write_images(tmp_path)
  path = tmp_path / "model.xml"
  path.write_text(xml)
  m = physics.MjModel.from_xml_path(str(path))
  d = physics.MjData(m)
  physics.mj_forward(m, d)
  return m, d, path


def _render(m, d, camera, h=_H, w=_W):
  with physics.Renderer(m, h, w) as r:
    r.update_scene(d, camera=camera)
    return r.render().astype(int)


def test_image_texture_on_plane_keeps_its_orientation(tmp_path):
  """Seen from above with +y up, the plane shows the PNG as an image viewer does: its first rows at +y, its first
  columns at -x; each quadrant in its colour, exactly where it is not blurred by the filter."""
  m, d, _ = _load(tmp_path, _PLANE)
  img = _render(m, d, "top")
  # the plane spans +-1 m; at 3 m with fovy 45 one metre is 0.5 * 64 / tan(22.5 deg) / 3 = 25.7 px
  c = _W // 2
  for (i, j), rgb in {(c - 12, c - 12): (255, 0, 0), (c - 12, c + 12): (0, 255, 0), (c + 12, c - 12): (0, 0, 255),
                      (c + 12, c + 12): (255, 255, 255)}.items():
    assert np.abs(img[i, j] - rgb).max() <= 2, ((i, j), img[i, j], rgb)


def test_texrepeat_and_texuniform_tile_the_plane(tmp_path):
  """texrepeat 2 shows the image twice along each side; texuniform repeats it per 2 m of a 4 m plane (twice)."""
  for attrs, size in (('texrepeat="2 2"', "1 1"), ('texrepeat="1 1" texuniform="true"', "2 2")):
    xml = _PLANE.replace(f'texture="quad" {_MAT}', f'texture="quad" {attrs} {_MAT}').replace(
        'size="1 1 0.1"', f'size="{size} 0.1"')
    if size == "2 2":
      xml = xml.replace('pos="0 0 3"', 'pos="0 0 6"')
    m, d, _ = _load(tmp_path, xml)
    img = _render(m, d, "top")
    c = _W // 2
    q = 6  # a quarter of a tile is 0.25 m (0.5 m) at 25.7 (12.9) px per metre: 6.4 px
    for di in (-1, 1):
      for dj in (-1, 1):
        # each quadrant of the image is itself a whole tile of 4 quadrants, red at its top left
        i, j = c + di * 2 * q, c + dj * 2 * q
        assert np.abs(img[i - q // 2 - 1, j - q // 2 - 1] - (255, 0, 0)).max() <= 3, (attrs, di, dj)
        assert np.abs(img[i + q // 2 + 1, j + q // 2 + 1] - (255, 255, 255)).max() <= 3, (attrs, di, dj)


@pytest.mark.parametrize("camera,face", [("px", "right"), ("nx", "left"), ("py", "up"), ("ny", "down"),
                                         ("pz", "front"), ("nz", "back")])
def test_cube_texture_shows_each_face_on_its_side(tmp_path, camera, face):
  """OpenGL's cube mapping in the box's frame: +x shows the right face, -x the left, +y up, -y down, +z front,
  -z back."""
  m, d, _ = _load(tmp_path, _CUBE)
  img = _render(m, d, camera)
  assert np.abs(img[_H // 2, _W // 2] - _FACES[face]).max() <= 2, img[_H // 2, _W // 2]


def test_cube_texture_turns_with_the_geom(tmp_path):
  """The mapping is in the geom's frame: a box turned 90 degrees about z shows its -y (down) face to +x."""
  m, d, _ = _load(tmp_path, _CUBE.replace('<geom type="box"', '<geom type="box" euler="0 0 90"'))
  img = _render(m, d, "px")
  assert np.abs(img[_H // 2, _W // 2] - _FACES["down"]).max() <= 2


def test_skybox_image_fills_the_background(tmp_path):
  """A skybox from six face images: looking up (+z) shows the face OpenGL's lookup (x, z, -y) picks, +y."""
  xml = _CUBE.replace('type="cube"', 'type="skybox"').replace('<geom type="box" size="0.4 0.5 0.3" material="cube"/>',
                                                              "")
  m, d, _ = _load(tmp_path, xml)
  up = _render(m, d, "nz")  # at z = -3 looking up
  assert np.abs(up[_H // 2, _W // 2] - _FACES["up"]).max() <= 2
  side = _render(m, d, "ny")  # looking along +y: the lookup direction (0, 0, -1), the back face
  assert np.abs(side[_H // 2, _W // 2] - _FACES["back"]).max() <= 2


_MESH_OBJ = """v -1 -1 0
v 1 -1 0
v 1 1 0
v -1 1 0
v 0 0 -0.5
vt 0 0
vt 1 0
vt 1 1
vt 0 1
vt 0.5 0.5
f 1/1 2/2 3/3 4/4
f 1/5 5/5 2/5
f 2/5 5/5 3/5
f 3/5 5/5 4/5
f 4/5 5/5 1/5
"""


def test_mesh_texture_coordinates_map_the_image(tmp_path):
  """A square mesh whose corners carry the image's corners (OBJ v up the image): seen from above it shows the
  image upright, as the plane does."""
  (tmp_path / "sq.obj").write_text(_MESH_OBJ)
  xml = _PLANE.replace("<texture", '<mesh name="sq" file="sq.obj"/><texture').replace(
      '<geom type="plane" size="1 1 0.1" material="quad"/>', '<geom type="mesh" mesh="sq" material="quad"/>')
  m, d, _ = _load(tmp_path, xml)
  assert m.mesh_texcoordadr[0] == 0
  img = _render(m, d, "top")
  c = _W // 2
  for (i, j), rgb in {(c - 12, c - 12): (255, 0, 0), (c - 12, c + 12): (0, 255, 0), (c + 12, c - 12): (0, 0, 255),
                      (c + 12, c + 12): (255, 255, 255)}.items():
    assert np.abs(img[i, j] - rgb).max() <= 2, ((i, j), img[i, j], rgb)


def test_minified_texture_averages_instead_of_aliasing(tmp_path):
  """A fine 1-texel checker image seen from afar shows its mean (mipmaps), not a moire of its texels."""
  checker = np.indices((256, 256)).sum(axis=0) % 2 * 255
  iio.imwrite(tmp_path / "fine.png", np.repeat(checker[..., None], 3, axis=2).astype(np.uint8))
  xml = _PLANE.replace('file="quad.png"', 'file="fine.png"').replace('colorspace', 'x')
  _write_images(tmp_path)
  path = tmp_path / "model.xml"
  path.write_text(xml.replace('<texture name="quad" type="2d"', '<texture name="quad" type="2d" colorspace="linear"'))
  m = physics.MjModel.from_xml_path(str(path))
  d = physics.MjData(m)
  physics.mj_forward(m, d)
  img = _render(m, d, "top")
  centre = img[_H // 2 - 10:_H // 2 + 10, _W // 2 - 10:_W // 2 + 10]
  assert np.abs(centre - 127.5).max() < 12


_SKIN = f"""
<mujoco>
  {_UNLIT}
  <asset>
    <material name="skin" rgba="1 0.5 0 1" {_MAT}/>
    <skin name="flap" material="skin" vertex="-0.2 -0.2 0  0.2 -0.2 0  0.2 0.2 0  -0.2 0.2 0" face="0 1 2 0 2 3">
      <bone body="arm" bindpos="0 0 0" bindquat="1 0 0 0" vertid="0 1 2 3" vertweight="1 1 1 1"/>
    </skin>
  </asset>
  <worldbody>
    <camera name="top" pos="0 0 3" xyaxes="1 0 0 0 1 0" fovy="45"/>
    <body name="arm"><joint name="slide" type="slide" axis="1 0 0"/><geom size="0.01" rgba="0 0 0 0"/></body>
    <geom type="sphere" size="1" pos="0 0 -3" group="3"/>  <!-- hidden: sizes the scene (far clipping plane) -->
  </worldbody>
</mujoco>
"""


def test_skin_is_drawn_and_follows_its_bone():
  m = physics.MjModel.from_xml_string(_SKIN)
  d = physics.MjData(m)
  physics.mj_forward(m, d)
  with physics.Renderer(m, _H, _W) as r:
    r.update_scene(d, "top")
    before = r.render().astype(int)
    r.enable_segmentation_rendering()
    seg = r.render()
    r.disable_segmentation_rendering()
    d.qpos[0] = 0.5
    physics.mj_forward(m, d)
    r.update_scene(d, "top")
    after = r.render().astype(int)
  c = _W // 2
  shift = int(round(0.5 * 0.5 * _H / np.tan(np.radians(22.5)) / 3))  # 0.5 m at 3 m: 12.9 px
  assert np.abs(before[c, c] - (255, 128, 0)).max() <= 2
  assert tuple(seg[c, c]) == (0, 11)  # skin 0, mjOBJ_SKIN
  assert before[c, c + shift + 4].sum() == 0  # the flap ends 0.2 m (5 px) right of the centre
  assert np.abs(after[c, c + shift] - (255, 128, 0)).max() <= 2
  assert after[c, c - 8].sum() == 0  # and left the centre when moved


def test_skins_in_batches_follow_each_world():
  from mjgym.physics.batch import MjDataBatch  # pylint: disable=import-outside-toplevel
  m = physics.MjModel.from_xml_string(_SKIN)
  batch = MjDataBatch(m, 2)
  batch.qpos[1, 0] = 0.5
  batch.forward()
  with physics.Renderer(m, _H, _W) as r:
    imgs = r.render_batch(batch, "top").astype(int)
    for w in range(2):
      d = physics.MjData(m)
      d.qpos[:] = batch.qpos[w]
      physics.mj_forward(m, d)
      r.update_scene(d, "top")
      np.testing.assert_array_equal(imgs[w], r.render())
  assert not np.array_equal(imgs[0], imgs[1])


def _mujoco_renderer_works():
  probe = ("import mujoco; m = mujoco.MjModel.from_xml_string('<mujoco/>'); r = mujoco.Renderer(m, 8, 8); "
           "r.update_scene(mujoco.MjData(m)); r.render()")
  try:
    return subprocess.run([sys.executable, "-c", probe], env=dict(os.environ), capture_output=True,
                          timeout=120).returncode == 0
  except (OSError, subprocess.TimeoutExpired):
    return False


@pytest.mark.skipif(not _mujoco_renderer_works(), reason="MuJoCo's renderer has no headless GL here")
@pytest.mark.parametrize("scene", ["plane", "cube", "grid", "skybox", "mesh", "shapes", "skin"])
def test_textures_against_mujoco_renderer(tmp_path, scene):
  """Our pixels against MuJoCo's OpenGL renderer's on the scenes above (in a child process: a GL backend can abort
  a process)."""
  _write_images(tmp_path)
  (tmp_path / "sq.obj").write_text(_MESH_OBJ)
  grid = _CUBE.replace(" ".join(f'file{k}="{k}.png"' for k in _FACES),
                       'file="grid.png" gridsize="3 4" gridlayout=".U..LFRB.D.."')
  xml = {"plane": _PLANE, "cube": _CUBE, "grid": grid,
         "skybox": _CUBE.replace('type="cube"', 'type="skybox"').replace('<geom type="box"', '<geom type="sphere"'),
         "mesh": _PLANE.replace("<texture", '<mesh name="sq" file="sq.obj"/><texture').replace(
             '<geom type="plane" size="1 1 0.1" material="quad"/>', '<geom type="mesh" mesh="sq" material="quad"/>'),
         "shapes": _SHAPES, "skin": _SKIN}[scene]
  (tmp_path / "model.xml").write_text(xml)
  code = f"import sys; sys.path.insert(0, {os.path.dirname(__file__)!r}); import test_render_textures as t; " \
         f"t.compare_with_mujoco({str(tmp_path / 'model.xml')!r})"
  child = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=900)
  gl_failure = child.returncode < 0 or any(k in child.stderr for k in ("FatalError", "EGL", "OSMesa", "gladLoad"))
  if child.returncode != 0 and gl_failure:
    pytest.skip(f"MuJoCo's renderer failed here: {child.stderr.strip()[-300:]}")
  assert child.returncode == 0, child.stderr


def compare_with_mujoco(path):
  """Every camera of the model: the same object at nearly every pixel, colours close where both see it."""
  import mujoco  # pylint: disable=import-outside-toplevel
  m = physics.MjModel.from_xml_path(path)
  d = physics.MjData(m)
  physics.mj_forward(m, d)
  mm = mujoco.MjModel.from_xml_path(path)
  dd = mujoco.MjData(mm)
  mujoco.mj_forward(mm, dd)
  with physics.Renderer(m, _H, _W) as ours, mujoco.Renderer(mm, _H, _W) as theirs:
    for cam in range(m.ncam):
      ours.update_scene(d, cam)
      theirs.update_scene(dd, cam)
      a, b = ours.render().astype(int), theirs.render().astype(int)
      diff = np.abs(a - b).max(axis=2)
      # edges of colour regions are filtered differently (and MuJoCo's silhouettes are tessellated)
      assert (diff <= 24).mean() > 0.9, (cam, (diff <= 24).mean())
      # what is drawn is drawn alike away from colour edges (filtered differently, MuJoCo's cube maps bleed
      # across faces): the drawn pixels whose neighbours have their colour in our image
      pad = np.pad(a, ((1, 1), (1, 1), (0, 0)), mode="edge")
      flat = np.ones(diff.shape, bool)
      for di in (0, 1, 2):
        for dj in (0, 1, 2):
          flat &= np.abs(pad[di:di + _H, dj:dj + _W] - a).max(axis=2) <= 3
      inner = flat & (a.sum(axis=2) > 0)
      assert inner.sum() > 20, (cam, inner.sum())
      assert (diff[inner] <= 24).mean() > 0.95, (cam, (diff[inner] <= 24).mean())
      assert np.median(diff) <= 4, (cam, np.median(diff))
