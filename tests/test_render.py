"""Renderer: geometry from the camera model (analytic depths, silhouettes, ids), camera modes, API, and
pixels against MuJoCo's own OpenGL renderer where it runs headless (MUJOCO_GL=egl)."""

import math
import os
import subprocess
import sys

import mujoco
import numpy as np
import pytest

import oracle
from mjgym import physics

# MuJoCo reads its GL backend on first use of its renderer: headless EGL unless told otherwise.
os.environ.setdefault("MUJOCO_GL", "egl")

_SCENE = """
<mujoco>
  <visual><map znear="0.01" zfar="50"/></visual>
  <worldbody>
    <light pos="0 0 3" dir="0 0 -1" directional="true"/>
    <camera name="front" pos="0 -3 0" xyaxes="1 0 0 0 0 1" fovy="60"/>
    <geom name="ball" type="sphere" size="0.3" pos="0 0 0"/>
    <geom name="block" type="box" size="0.2 0.2 0.2" pos="0.9 0 0"/>
    <geom name="pill" type="capsule" size="0.1 0.25" pos="-0.9 0 0"/>
    <geom name="hidden" type="sphere" size="0.1" pos="0 0 1" group="4"/>
  </worldbody>
</mujoco>
"""
_H, _W = 120, 160


def _scene():
  m = physics.MjModel.from_xml_string(_SCENE)
  d = physics.MjData(m)
  physics.mj_forward(m, d)
  return m, d


def _render(m, d, camera="front", mode="rgb", h=_H, w=_W):
  with physics.Renderer(m, h, w) as r:
    if mode == "depth":
      r.enable_depth_rendering()
    elif mode == "seg":
      r.enable_segmentation_rendering()
    r.update_scene(d, camera=camera)
    return r.render()


def _focal(fovy_deg, h):
  return 0.5 * h / math.tan(math.radians(fovy_deg) / 2)


def test_output_shapes_and_types():
  m, d = _scene()
  rgb = _render(m, d)
  depth = _render(m, d, mode="depth")
  seg = _render(m, d, mode="seg")
  assert rgb.shape == (_H, _W, 3) and rgb.dtype == np.uint8
  assert depth.shape == (_H, _W) and depth.dtype == np.float32
  assert seg.shape == (_H, _W, 2) and seg.dtype == np.int32


def test_sphere_depth_is_the_analytic_ray_distance():
  m, d = _scene()
  depth = _render(m, d, mode="depth").astype(float)
  seg = _render(m, d, mode="seg")
  f = _focal(60, _H)
  ball = m.geom("ball").id
  checked = 0
  for i in range(_H):
    for j in range(_W):
      if seg[i, j, 0] != ball:
        continue
      # camera at (0, -3, 0) looking along +y; pixel ray (u, 1, v) in world coordinates, depth along y
      u = (j + 0.5 - _W / 2) / f
      v = (_H / 2 - i - 0.5) / f
      dvec = np.array([u, 1.0, v])
      o = np.array([0.0, -3.0, 0.0])
      b = o @ dvec
      t = (-b - math.sqrt(b * b - (dvec @ dvec) * (o @ o - 0.09))) / (dvec @ dvec)
      assert abs(depth[i, j] - t) < 1e-3
      checked += 1
  assert checked > 100


def test_sphere_silhouette_centre_and_radius():
  m, d = _scene()
  seg = _render(m, d, mode="seg")
  f = _focal(60, _H)
  mask = seg[..., 0] == m.geom("ball").id
  ii, jj = np.nonzero(mask)
  # centre of the ball projects on the image centre
  assert abs(ii.mean() + 0.5 - _H / 2) < 0.5 and abs(jj.mean() + 0.5 - _W / 2) < 0.5
  # the silhouette of a sphere of radius r at distance D is a circle of radius f r / sqrt(D^2 - r^2)
  radius = f * 0.3 / math.sqrt(9 - 0.09)
  assert abs(math.sqrt(mask.sum() / math.pi) - radius) < 0.5
  # every pixel whose centre is inside the circle is the ball, every one outside is not
  ci, cj = np.mgrid[0:_H, 0:_W] + 0.5
  r = np.hypot(ci - _H / 2, cj - _W / 2)
  assert np.all(mask[r < radius - 0.5]) and not np.any(mask[r > radius + 0.5])


def test_box_edges_and_capsule_outline():
  m, d = _scene()
  seg = _render(m, d, mode="seg")
  f = _focal(60, _H)
  # front face of the box at y = -0.2: x in [0.7, 1.1], z in [-0.2, 0.2], at depth 2.8
  box = seg[..., 0] == m.geom("block").id
  ii, jj = np.nonzero(box)
  # left edge: the back edge of the side face at x = 0.7 (depth 3.2) that the camera sees; right and bottom
  # edges: the front face (depth 2.8). A pixel is in when its centre is.
  assert abs(jj.min() + 0.5 - (_W / 2 + f * 0.7 / 3.2)) <= 1
  assert abs(jj.max() + 0.5 - (_W / 2 + f * 1.1 / 2.8)) <= 1
  assert abs(ii.max() + 0.5 - (_H / 2 + f * 0.2 / 2.8)) <= 1
  # capsule: a vertical pill centred at x = -0.9, total half height 0.35, radius 0.1
  cap = seg[..., 0] == m.geom("pill").id
  ii, jj = np.nonzero(cap)
  assert abs(0.5 * (jj.min() + jj.max() + 1) - (_W / 2 - f * 0.9 / 3)) < 1.5
  assert abs((ii.max() - ii.min() + 1) - 2 * f * 0.35 / 3) < 2


def test_segmentation_ids_types_and_hidden_groups():
  m, d = _scene()
  seg = _render(m, d, mode="seg")
  ids = set(np.unique(seg[..., 0]))
  assert ids == {-1, m.geom("ball").id, m.geom("block").id, m.geom("pill").id}
  assert np.all(seg[..., 1][seg[..., 0] >= 0] == int(physics.mjtObj.mjOBJ_GEOM))
  assert np.all(seg[..., 1][seg[..., 0] < 0] == -1)


def test_free_camera_matches_fixed_camera_with_the_same_pose():
  m, d = _scene()
  fixed = _render(m, d, camera="front", mode="depth")
  cam = physics.MjvCamera()
  cam.lookat[:] = (0, 0, 0)
  cam.distance, cam.azimuth, cam.elevation = 3.0, 90.0, 0.0
  # the free camera's fovy is the model's <visual> fovy (45); compare against a 45-degree fixed camera
  m2 = physics.MjModel.from_xml_string(_SCENE.replace('fovy="60"', 'fovy="45"'))
  d2 = physics.MjData(m2)
  physics.mj_forward(m2, d2)
  free = _render(m, d, camera=cam, mode="depth")
  fixed45 = _render(m2, d2, camera="front", mode="depth")
  assert fixed.shape == free.shape
  np.testing.assert_allclose(free, fixed45, atol=1e-4)


def test_tracking_camera_keeps_its_body_at_the_same_pixel():
  xml = """
  <mujoco>
    <worldbody>
      <geom type="plane" size="5 5 0.1"/>
      <body name="ball" pos="0 0 1">
        <freejoint/>
        <geom type="sphere" size="0.1"/>
        <camera name="track" mode="track" pos="0 -2 0" xyaxes="1 0 0 0 0 1"/>
      </body>
    </worldbody>
  </mujoco>"""
  m = physics.MjModel.from_xml_string(xml)
  d = physics.MjData(m)
  centres = []
  with physics.Renderer(m, 60, 80) as r:
    r.enable_segmentation_rendering()
    for x in (0.0, 0.7, -1.3):
      d.qpos[:3] = (x, 0.3 * x, 1.0 + 0.2 * x)
      physics.mj_forward(m, d)
      r.update_scene(d, camera="track")
      ii, jj = np.nonzero(r.render()[..., 0] == 1)
      centres.append((ii.mean(), jj.mean()))
  np.testing.assert_allclose(centres[1], centres[0], atol=1e-6)
  np.testing.assert_allclose(centres[2], centres[0], atol=1e-6)


def test_renderer_api():
  m, d = _scene()
  r = physics.Renderer(m, 30, 40)
  with pytest.raises(RuntimeError):
    r.render()
  with pytest.raises(ValueError):
    r.update_scene(d, camera="nope")
  r.update_scene(d, camera=0)
  assert r.render().shape == (30, 40, 3)
  r.enable_depth_rendering()
  r.disable_depth_rendering()
  r.enable_segmentation_rendering()
  r.disable_segmentation_rendering()
  assert r.render().shape == (30, 40, 3)
  r.close()
  with pytest.raises(RuntimeError):
    r.render()


def test_all_primitive_types_and_meshes_draw(tmp_path):
  path = os.path.join(os.path.dirname(__file__), "models", "mesh_geoms.xml")
  m = physics.MjModel.from_xml_path(path)
  d = physics.MjData(m)
  physics.mj_forward(m, d)
  seg = _render(m, d, camera=-1, mode="seg", h=120, w=160)
  assert set(range(m.ngeom)) <= set(np.unique(seg[..., 0]))


def test_batched_rendering_equals_single_world_rendering():
  from mjgym.physics.batch import MjDataBatch  # pylint: disable=import-outside-toplevel
  xml = _SCENE.replace('<geom name="ball" type="sphere" size="0.3" pos="0 0 0"/>',
                       '<body name="b"><freejoint/><geom name="ball" type="sphere" size="0.3"/></body>')
  m = physics.MjModel.from_xml_string(xml)
  batch = MjDataBatch(m, 3)
  for w in range(3):
    batch.qpos[w, 0] = 0.2 * w
  batch.forward()
  with physics.Renderer(m, 40, 50) as r:
    images = r.render_batch(batch, camera="front")
    assert images.shape == (3, 40, 50, 3)
    for w in range(3):
      r.update_scene(batch[w], camera="front")
      np.testing.assert_array_equal(images[w], r.render())
    assert not np.array_equal(images[0], images[2])


_DECOR = os.path.join(os.path.dirname(__file__), "models", "render_decor.xml")


def _decor():
  m = physics.MjModel.from_xml_path(_DECOR)
  d = physics.MjData(m)
  physics.mj_forward(m, d)
  return m, d


def _pixel_of(point, h, w, fovy=60.0, cam=(0.0, -3.0, 0.5)):
  """(row, column) of the pixel holding a world point, for the decor model's front camera (looking along +y)."""
  f = _focal(fovy, h)
  depth = point[1] - cam[1]
  return (int(math.floor(h / 2 - f * (point[2] - cam[2]) / depth)),
          int(math.floor(w / 2 + f * (point[0] - cam[0]) / depth)))


def test_sites_and_tendons_are_drawn_as_mujoco_does():
  """Sites of groups 0-2 and spatial tendons are drawn by default (MuJoCo's default mjvOption), with their ids
  and object types in the segmentation image; the option switches them off."""
  m, d = _decor()
  h, w = 120, 160
  with physics.Renderer(m, h, w) as r:
    r.enable_segmentation_rendering()
    r.update_scene(d, camera="front")
    seg = r.render()
    r.enable_depth_rendering()
    depth = r.render()
    marker = m.site("marker").id
    i, j = _pixel_of(d.site_xpos[marker], h, w)
    assert tuple(seg[i, j]) == (marker, int(physics.mjtObj.mjOBJ_SITE))
    # the near side of the sphere of radius 0.15 at distance 3 (pixel centre ray, to 1e-3 m)
    f = _focal(60, h)
    u, v = (j + 0.5 - w / 2) / f, (h / 2 - i - 0.5) / f
    dvec, o = np.array([u, 1.0, v]), np.array([0.0, -3.0, 0.5]) - d.site_xpos[marker]
    b = o @ dvec
    t = (-b - math.sqrt(b * b - (dvec @ dvec) * (o @ o - 0.15 ** 2))) / (dvec @ dvec)
    assert abs(depth[i, j] - t) < 1e-3
    # the group-4 site is not drawn
    assert m.site("hidden").id not in seg[..., 0][seg[..., 1] == int(physics.mjtObj.mjOBJ_SITE)]
    # the rope: a capsule of radius 0.02 between the anchor and the hook
    rope = seg[..., 1] == int(physics.mjtObj.mjOBJ_TENDON)
    assert rope.sum() > 20 and np.all(seg[..., 0][rope] == m.tendon("rope").id)
    mid = 0.5 * (d.site_xpos[m.site("anchor").id] + d.site_xpos[m.site("hook").id])
    i, j = _pixel_of(mid, h, w)
    assert rope[i - 1:i + 2, j - 1:j + 2].any()
    # switched off through the option
    opt = physics.MjvOption()
    opt.sitegroup[0] = 0
    opt.flags[7] = 0  # mjVIS_TENDON
    r.enable_segmentation_rendering()
    r.update_scene(d, camera="front", scene_option=opt)
    seg = r.render()
    assert not np.isin(seg[..., 1], [int(physics.mjtObj.mjOBJ_SITE), int(physics.mjtObj.mjOBJ_TENDON)]).any()


def test_contact_points_are_drawn_when_enabled():
  """Contact points (off by default, as in MuJoCo) are drawn as small cylinders at the contact positions."""
  m, d = _decor()
  d.qpos[2] = 0.099  # the block rests 1 mm into the floor: four corner contacts
  physics.mj_forward(m, d)
  assert d.ncon == 4
  h, w = 240, 320
  with physics.Renderer(m, h, w) as r:
    r.enable_segmentation_rendering()
    r.update_scene(d, camera="top")
    assert not (r.render()[..., 1] == int(physics.mjtObj.mjOBJ_UNKNOWN)).any()
    opt = physics.MjvOption()
    opt.flags[14] = 1  # mjVIS_CONTACTPOINT
    r.update_scene(d, camera="top", scene_option=opt)
    seg = r.render()
  points = seg[..., 1] == int(physics.mjtObj.mjOBJ_UNKNOWN)
  assert set(np.unique(seg[..., 0][points])) == {0, 1, 2, 3}
  # each contact's cylinder shows around its corner of the block (camera straight down from 1.5 m)
  f = _focal(45, h)
  for k in range(4):
    x, y, z = d.contact.pos[k]
    ii, jj = np.nonzero(points & (seg[..., 0] == k))
    ci = h / 2 - f * y / (1.5 - z)
    cj = w / 2 + f * (x + 0.8) / (1.5 - z)
    assert abs(ii.mean() + 0.5 - ci) < 6 and abs(jj.mean() + 0.5 - cj) < 6


def test_contact_force_arrows_follow_the_contact_forces():
  """With mjVIS_CONTACTFORCE, contact k's arrow runs from its position along its force (contact frame to world),
  force / mean body mass x 0.005 m long (vis.map.force), as MuJoCo scales it."""
  from mjgym.physics.render.scene import Scene  # pylint: disable=import-outside-toplevel
  m, d = _decor()
  d.qpos[2] = 0.099
  physics.mj_forward(m, d)
  scene = Scene(m)
  opt = physics.MjvOption()
  opt.flags[16] = 1  # mjVIS_CONTACTFORCE
  scene.set_option(opt)
  n = scene.n
  gsize, gbox, gvis = scene.size0.copy(), scene.box0.copy(), np.zeros(n, np.uint8)
  gxpos, gxmat = np.zeros((n, 3)), np.zeros((n, 9))
  scene.fill_frame(d, gsize, gbox, gvis, gxpos, gxmat)
  result = np.zeros(6)
  for k in range(d.ncon):
    physics.mj_contactForce(m, d, k, result)
    arrow = np.asarray(d.contact.frame[k]).reshape(3, 3).T @ result[:3] * 0.005 / m.body_mass[1]
    row = scene.force0 + k
    axis = np.asarray(gxmat[row]).reshape(3, 3)[:, 2]
    assert gvis[row] == 1 and np.linalg.norm(arrow) > 1e-3
    np.testing.assert_allclose(gxpos[row] - gsize[row, 1] * axis, d.contact.pos[k], atol=1e-12)
    np.testing.assert_allclose(gxpos[row] + gsize[row, 1] * axis, d.contact.pos[k] + arrow, atol=1e-12)
  assert not gvis[scene.force0 + d.ncon:].any()


def test_batched_rendering_draws_each_worlds_tendons():
  from mjgym.physics.batch import MjDataBatch  # pylint: disable=import-outside-toplevel
  m = physics.MjModel.from_xml_path(_DECOR)
  batch = MjDataBatch(m, 2)
  batch.qpos[1, 0] = 0.5  # world 1: the block (and the rope's end) moved along x
  batch.forward()
  with physics.Renderer(m, 60, 80) as r:
    images = r.render_batch(batch, camera="front")
    for k in range(2):
      r.update_scene(batch[k], camera="front")
      np.testing.assert_array_equal(images[k], r.render())
    assert not np.array_equal(images[0], images[1])


def test_height_field_depth_matches_mujoco_rays():
  """Every pixel's depth on a bumpy height field (top triangles, walls, base) equals MuJoCo's mj_ray along the
  same camera ray, and the two agree on which pixels hit the terrain."""
  import mujoco  # pylint: disable=import-outside-toplevel
  path = os.path.join(os.path.dirname(__file__), "models", "hfield_terrain.xml")
  with open(path, encoding="utf-8") as f:
    xml = f.read().replace("<worldbody>", '<worldbody><camera name="view" pos="0.2 -3 1.6" xyaxes="1 0 0 0 1.6 3"/>')
  m = physics.MjModel.from_xml_string(xml)
  d = physics.MjData(m)
  physics.mj_forward(m, d)
  mm = mujoco.MjModel.from_xml_string(xml)
  dd = mujoco.MjData(mm)
  mujoco.mj_forward(mm, dd)
  h, w = 48, 64
  with physics.Renderer(m, h, w) as r:
    r.update_scene(d, camera="view")
    r.enable_depth_rendering()
    depth = r.render()
    r.enable_segmentation_rendering()
    seg = r.render()
  terrain = m.geom("terrain").id
  f = _focal(float(mm.cam_fovy[0]), h)
  xmat = dd.cam_xmat[0].reshape(3, 3)
  geomid = np.zeros(1, np.int32)
  agree = hits = 0
  for i in range(h):
    for j in range(w):
      vec = xmat @ np.array([(j + 0.5 - w / 2) / f, (h / 2 - i - 0.5) / f, -1.0])
      # with this vec, mj_ray's distance is the depth along the optical axis
      dist = mujoco.mj_ray(mm, dd, dd.cam_xpos[0], vec, None, 1, -1, geomid)
      theirs = dist >= 0 and geomid[0] == terrain
      ours = seg[i, j, 0] == terrain
      agree += theirs == ours
      if theirs and ours:
        hits += 1
        assert abs(depth[i, j] - dist) < 1e-6, (i, j, depth[i, j], dist)
  assert hits > 0.3 * h * w and agree >= h * w - 3
  # the terrain is shaded: its pixels are not all one colour
  with physics.Renderer(m, h, w) as r:
    r.update_scene(d, camera="view")
    rgb = r.render()
  assert len(np.unique(rgb[seg[..., 0] == terrain].reshape(-1, 3), axis=0)) > 50


def test_translucent_geoms_blend_over_what_is_behind():
  """A geom with rgba alpha 0.4 shows 0.4 of its own lit colour over 0.6 of the scene behind it: inside its
  outline the image equals that mix of the image with it opaque and the image without it."""
  xml = """<mujoco><visual><map znear="0.01" zfar="50"/></visual><worldbody>
    <camera name="front" pos="0 -3 0" xyaxes="1 0 0 0 0 1" fovy="60"/>
    <geom name="ball" type="sphere" size="0.5" pos="0 0.5 0" rgba="0.9 0.2 0.1 1"/>
    <geom name="pane" type="box" size="0.4 0.02 0.3" pos="0.2 -0.5 0" rgba="0.1 0.3 0.9 ALPHA" group="GROUP"/>
    </worldbody></mujoco>"""
  images = {}
  for key, alpha, group in (("mix", 0.4, 0), ("opaque", 1.0, 0), ("without", 1.0, 4)):
    m = physics.MjModel.from_xml_string(xml.replace("ALPHA", str(alpha)).replace("GROUP", str(group)))
    d = physics.MjData(m)
    physics.mj_forward(m, d)
    with physics.Renderer(m, 60, 80) as r:
      r.update_scene(d, camera="front")
      images[key] = r.render().astype(float)
      r.enable_segmentation_rendering()
      images[key + "_seg"] = r.render()
  pane = images["opaque_seg"][..., 0] == 1
  inside = pane.copy()
  inside[1:-1, 1:-1] &= pane[:-2, 1:-1] & pane[2:, 1:-1] & pane[1:-1, :-2] & pane[1:-1, 2:]
  inside[[0, -1], :] = inside[:, [0, -1]] = False
  # away from the ball's outline behind the pane (supersampled in the image without the pane only)
  behind = images["without_seg"][..., 0]
  edge = np.zeros_like(inside)
  edge[1:, :] |= behind[1:, :] != behind[:-1, :]
  edge[:-1, :] |= behind[:-1, :] != behind[1:, :]
  edge[:, 1:] |= behind[:, 1:] != behind[:, :-1]
  edge[:, :-1] |= behind[:, :-1] != behind[:, 1:]
  inside &= ~edge
  assert inside.sum() > 100
  expected = 0.4 * images["opaque"] + 0.6 * images["without"]
  assert np.abs(images["mix"] - expected)[inside].max() <= 1.0
  # behind the pane there is both ball and background: the blend shows both
  assert len(np.unique(images["mix"][inside].reshape(-1, 3), axis=0)) > 2


def _mujoco_renderer_works():
  # probed in a child process: a GL backend that fails can abort the whole process, not just raise
  probe = ("import mujoco; m = mujoco.MjModel.from_xml_string('<mujoco/>'); r = mujoco.Renderer(m, 8, 8); "
           "r.update_scene(mujoco.MjData(m)); r.render()")
  try:
    return subprocess.run([sys.executable, "-c", probe], env=dict(os.environ), capture_output=True,
                          timeout=120).returncode == 0
  except (OSError, subprocess.TimeoutExpired):
    return False


@pytest.mark.skipif(not _mujoco_renderer_works(), reason="MuJoCo's renderer has no headless GL here")
@pytest.mark.parametrize("name", ["hopper", "humanoid", "render_decor"])
def test_against_mujoco_renderer(name):
  # In a child process: MuJoCo's GL backend can abort a process (seen inside pytest-xdist workers here).
  code = f"import sys; sys.path.insert(0, {os.path.dirname(__file__)!r}); import test_render; " \
         f"test_render.compare_with_mujoco_renderer({name!r})"
  child = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=900)
  gl_failure = child.returncode < 0 or any(k in child.stderr for k in ("FatalError", "EGL", "OSMesa", "gladLoad"))
  if child.returncode != 0 and gl_failure:
    pytest.skip(f"MuJoCo's renderer failed here: {child.stderr.strip()[-300:]}")
  assert child.returncode == 0, child.stderr


def compare_with_mujoco_renderer(name):
  """Renders Gymnasium's model with both renderers and compares segmentation, depth and colour."""
  import mujoco  # pylint: disable=import-outside-toplevel
  from gymnasium.envs.mujoco import __file__ as gym_mujoco  # pylint: disable=import-outside-toplevel
  path = _DECOR if name == "render_decor" else os.path.join(os.path.dirname(gym_mujoco), "assets", f"{name}.xml")
  m = physics.MjModel.from_xml_path(path)
  d = physics.MjData(m)
  physics.mj_forward(m, d)
  mm = mujoco.MjModel.from_xml_path(path)
  dd = mujoco.MjData(mm)
  mujoco.mj_forward(mm, dd)
  with physics.Renderer(m, 120, 160) as ours, mujoco.Renderer(mm, 120, 160) as theirs:
    for cam in (0, -1):
      ours.update_scene(d, cam)
      theirs.update_scene(dd, cam)
      rgb_a, rgb_b = ours.render(), theirs.render()
      ours.enable_depth_rendering()
      theirs.enable_depth_rendering()
      depth_a, depth_b = ours.render(), theirs.render()
      ours.disable_depth_rendering()
      theirs.disable_depth_rendering()
      ours.enable_segmentation_rendering()
      theirs.enable_segmentation_rendering()
      seg_a, seg_b = ours.render(), theirs.render()
      ours.disable_segmentation_rendering()
      theirs.disable_segmentation_rendering()
      # same object at >= 99.9% of pixels (MuJoCo tessellates its primitives; we intersect the exact ones)
      assert (seg_a[..., 0] == seg_b[..., 0]).mean() > 0.999
      assert (seg_a[..., 1] == seg_b[..., 1]).mean() > 0.999
      both = (seg_a[..., 0] >= 0) & (seg_a[..., 0] == seg_b[..., 0])
      assert np.median(np.abs(depth_a - depth_b)[both]) < 1e-3
      # the look: mean colour difference small (lighting model and skybox are approximations)
      assert np.abs(rgb_a.astype(int) - rgb_b).mean() < 20


_MJV_XML = """
<mujoco>
  <asset><material name="green" rgba="0 1 0 1" specular="0.2"/><material name="red" rgba="1 0 0 1"/></asset>
  <worldbody>
    <light pos="0 0 3"/>
    <geom type="plane" size="1 1 .1"/>
    <site name="s" size=".05"/>
    <body pos="0 0 1">
      <freejoint/>
      <geom size=".1" material="green" rgba="1 0 0 1"/>
      <geom type="box" size=".1 .2 .3" pos=".3 0 0" material="red" euler="10 20 30"/>
      <geom size=".1" group="4"/>
      <geom size=".1" rgba="1 1 1 0"/>
      <site name="t" type="capsule" size=".02 .1" group="1" pos="0 .2 0"/>
      <site name="u" size=".02" group="5"/>
    </body>
    <body pos="1 0 0"><geom type="capsule" size=".05 .2"/></body>
  </worldbody>
</mujoco>
"""


@pytest.mark.parametrize("catmask", [7, 1, 2])
def test_mjv_scene_geoms_are_mujocos(catmask):
  """MjvScene filled by mjv_updateScene holds MuJoCo's geoms and sites in MuJoCo's order: type, object, category,
  material, size, pose (float32: 1e-6) and colour; decor and lights are not compared (this scene has none)."""
  mjm, mjd, m, d = oracle.load_both(_MJV_XML)
  mujoco.mj_forward(mjm, mjd)
  physics.mj_forward(m, d)
  theirs, ours = mujoco.MjvScene(mjm, 20), physics.MjvScene(m, 20)
  mujoco.mjv_updateScene(mjm, mjd, mujoco.MjvOption(), None, mujoco.MjvCamera(), catmask, theirs)
  physics.mjv_updateScene(m, d, physics.MjvOption(), None, physics.MjvCamera(), catmask, ours)
  assert ours.ngeom == theirs.ngeom > 0 and len(ours.geoms) == ours.maxgeom == 20
  for mine, real in zip(ours.geoms[:ours.ngeom], theirs.geoms[:theirs.ngeom]):
    for field in ("type", "objtype", "objid", "category", "matid", "segid", "transparent"):
      assert getattr(mine, field) == getattr(real, field), field
    for field in ("size", "pos", "mat", "rgba", "specular", "shininess", "emission", "reflectance"):
      np.testing.assert_allclose(getattr(mine, field), getattr(real, field), rtol=0, atol=1e-6, err_msg=field)
  bare = physics.MjvScene()
  assert (bare.scale, bare.maxgeom, bare.ngeom, bare.geoms) == (1.0, 0, 0, ())
  np.testing.assert_array_equal(bare.flags, mujoco.MjvScene().flags)
