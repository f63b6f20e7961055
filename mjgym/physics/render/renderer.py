"""``Renderer``: the `mujoco` bindings' offscreen renderer, on the CPU with no OpenGL.

    with physics.Renderer(model, height=240, width=320) as renderer:
      renderer.update_scene(data, camera="track")
      pixels = renderer.render()          # (240, 320, 3) uint8
      renderer.enable_depth_rendering()
      depth = renderer.render()           # (240, 320) float32, metres along the optical axis

Nothing is allocated per frame: buffers live in the renderer; ``render_batch`` draws every world of an
``MjDataBatch`` in one parallel call.
"""

import numpy as np

from mjgym.physics.render import kernels
from mjgym.physics.render.scene import Scene

# Fields of a frame: the geom poses and the camera and light rows.
_RGB, _DEPTH, _SEGMENTATION = 0, 1, 2


class Renderer:
  """Renders RGB, depth or segmentation images of a model's worlds, like ``mujoco.Renderer``.

  Attributes: model, height, width; ``shadows``, ``antialiasing`` and ``reflection`` switch those effects
  (all on by default, MuJoCo's look); ``scene_option``-style geom groups via ``update_scene``.
  """

  def __init__(self, model, height=240, width=320, max_geom=10000):
    """Buffers for ``height`` x ``width`` images of ``model`` (``max_geom`` is accepted for compatibility)."""
    del max_geom
    if height < 1 or width < 1:
      raise ValueError(f"image size must be positive, got {height}x{width}")
    self._model = model
    self._height = int(height)
    self._width = int(width)
    self._scene = Scene(model)
    self._mode = _RGB
    self.shadows = True
    self.antialiasing = True
    self.reflection = True
    n = self._scene.n  # geoms, sites, tendon segments, contact points
    self._cam = np.zeros(17)
    self._lights = np.zeros((self._scene.nlight, kernels.LIGHT_SIZE))
    self._frame = _object_rows(self._scene, ())
    self._rect = np.zeros((n, 8), np.int32)
    self._sph = np.zeros((n, 5))
    self._surf = np.zeros((self._height, self._width, 6), np.float32)
    self._depth = np.zeros((self._height, self._width))
    self._gid = np.zeros((self._height, self._width), np.int32)
    self._elem = np.zeros((self._height, self._width), np.int32)
    self._rgb = np.zeros((self._height, self._width, 3), np.uint8)
    self._batch = None  # buffers of render_batch, made for the first batch size seen
    self._has_scene = False
    self._closed = False

  # ---- properties, context manager ----

  @property
  def model(self):
    return self._model

  @property
  def height(self):
    return self._height

  @property
  def width(self):
    return self._width

  def __enter__(self):
    return self

  def __exit__(self, *exc):
    self.close()

  def close(self):
    """Frees the buffers; the renderer cannot be used afterwards."""
    self._closed = True
    self._depth = self._gid = self._elem = self._rgb = None
    self._batch = None

  # ---- modes ----

  def enable_depth_rendering(self):
    """render() returns depth (H, W) float32 in metres."""
    self._mode = _DEPTH

  def disable_depth_rendering(self):
    self._mode = _RGB

  def enable_segmentation_rendering(self):
    """render() returns (H, W, 2) int32: geom id and object type (mjOBJ_GEOM), -1 for the background."""
    self._mode = _SEGMENTATION

  def disable_segmentation_rendering(self):
    self._mode = _RGB

  # ---- scene and rendering ----

  def update_scene(self, data, camera=-1, scene_option=None):
    """Takes the geom, camera and light poses of ``data`` (after mj_forward) for the next render().

    ``camera``: a camera name or id, -1 for the default free camera, or an ``MjvCamera``-like object
    (type, fixedcamid, trackbodyid, lookat, distance, azimuth, elevation). ``scene_option``: an
    ``MjvOption`` (``physics.MjvOption`` or ``mujoco.MjvOption``): geomgroup, sitegroup, tendongroup and the
    tendon / contact-point flags; it stays in effect for later frames.
    """
    self._check_open()
    if scene_option is not None:
      self._scene.set_option(scene_option)
    self._scene.fill_camera(data, camera, self._width, self._height, self._cam)
    self._scene.fill_lights(data, self._cam, self._lights)
    self._scene.fill_frame(data, *self._frame)
    self._has_scene = True

  def _opts(self, rgb):
    return np.array([int(rgb), int(self.shadows), int(self.antialiasing), int(self.reflection)], np.int32)

  def render(self, out=None):
    """The image of the last update_scene in the current mode (RGB, depth or segmentation)."""
    self._check_open()
    if not self._has_scene:
      raise RuntimeError("call update_scene(data, camera) before render()")
    s = self._scene
    gsize, gbox, gvis, gxpos, gxmat = self._frame
    kernels.render_world(*s.kernel_args(gsize, gbox, gvis), self._cam, gxpos, gxmat, self._lights,
                         self._opts(self._mode == _RGB), s.sky, self._rect, self._sph, self._depth, self._gid,
                         self._elem, self._surf, self._rgb)
    return _output(self._mode, s, self._rgb, self._depth, self._gid, out)

  def render_batch(self, batch, camera=-1, out=None):
    """Images of every world of an ``MjDataBatch`` in the current mode, worlds rendered in parallel.

    Returns (nworld, H, W, 3) uint8 RGB, (nworld, H, W) float32 depth or (nworld, H, W, 2) segmentation.
    ``camera`` as in update_scene (one camera for all worlds). Models with skins are drawn world after world.
    """
    self._check_open()
    n = batch.nworld
    s = self._scene
    if self._batch is None or self._batch[0].shape[0] != n:
      hw = (n, self._height, self._width)
      self._batch = (np.zeros((n, 17)), np.zeros((n,) + self._lights.shape), _object_rows(s, (n,)),
                     np.zeros((n, s.n, 8), np.int32), np.zeros((n, s.n, 5)), np.zeros(hw),
                     np.zeros(hw, np.int32), np.zeros(hw, np.int32), np.zeros(hw + (6,), np.float32),
                     np.zeros(hw + (3,), np.uint8))
    cams, lights, rows, rects, sphs, depth, gid, elem, surf, rgb = self._batch
    gsize, gbox, gvis, gxpos, gxmat = rows
    opts = self._opts(self._mode == _RGB)
    for w in range(n):
      d = batch[w]
      s.fill_camera(d, camera, self._width, self._height, cams[w])
      s.fill_lights(d, cams[w], lights[w])
      s.fill_frame(d, *(a[w] for a in rows))
      if s.skins is not None:
        # skinned vertices live in the scene's mesh tables, shared by the worlds: one world at a time
        kernels.render_world(*s.kernel_args(gsize[w], gbox[w], gvis[w]), cams[w], gxpos[w], gxmat[w], lights[w],
                             opts, s.sky, rects[w], sphs[w], depth[w], gid[w], elem[w], surf[w], rgb[w])
    if s.skins is not None:
      return _output(self._mode, s, rgb, depth, gid, out)
    kernels.render_batch(*s.kernel_args(gsize, gbox, gvis), cams, gxpos, gxmat, lights, opts, s.sky, rects, sphs,
                         depth, gid, elem, surf, rgb)
    return _output(self._mode, s, rgb, depth, gid, out)

  def _check_open(self):
    if self._closed:
      raise RuntimeError("the renderer is closed")


def _object_rows(scene, lead):
  """Per-frame object rows (sizes, boxes, visibility, positions, xmats), with leading axes ``lead``."""
  n = scene.n
  return (np.broadcast_to(scene.size0, lead + (n, 3)).copy(), np.broadcast_to(scene.box0, lead + (n, 6)).copy(),
          np.zeros(lead + (n,), np.uint8), np.zeros(lead + (n, 3)), np.zeros(lead + (n, 9)))


def _output(mode, scene, rgb, depth, gid, out):
  """The result array of a mode (a fresh array, or written into ``out``)."""
  if mode == _RGB:
    result = rgb
  elif mode == _DEPTH:
    result = depth.astype(np.float32) if out is None else depth
  else:
    # (object id, mjtObj type) of each pixel: geoms, sites, tendons; -1 for the background
    seg = np.empty(gid.shape + (2,), np.int32) if out is None else out
    hit = gid >= 0
    seg[..., 0] = np.where(hit, scene.objid[np.maximum(gid, 0)], -1)
    seg[..., 1] = np.where(hit, scene.objtype[np.maximum(gid, 0)], -1)
    return seg
  if out is not None:
    np.copyto(out, result, casting="unsafe")
    return out
  return result.copy()
