"""What the kernels draw: per-model geom, material, texture and mesh tables, per-frame cameras and lights.

Everything per model is built once (``Scene``); per frame only the camera row and the light rows are
filled, in place, from a Data.
"""

import math

import numpy as np

from mjgym.physics.render import kernels
from mjgym.physics.types import GeomType

# MuJoCo's geom rgba default: a geom left at it takes its material's colour.
_DEFAULT_RGBA = (0.5, 0.5, 0.5, 1.0)
# mjtCamera and mjtLightType.
CAMERA_FREE = 0
CAMERA_TRACKING = 1
CAMERA_FIXED = 2
_LIGHT_DIRECTIONAL = 1
_LIGHT_POINT = 2
# Faces whose normals are within this cosine of a face's own share its smooth normal at a vertex (sharper
# creases stay sharp, as MuJoCo's default smoothnormal="false" does).
_CREASE_COS = 0.8


class MjvCamera:
  """An abstract camera like the bindings' ``mujoco.MjvCamera``: free (orbit), tracking or fixed.

  Attributes: type (0 free, 1 tracking, 2 fixed), fixedcamid, trackbodyid, lookat (3,) m, distance m,
  azimuth and elevation in degrees, orthographic (not supported, must stay 0).
  """

  def __init__(self):
    self.type = CAMERA_FREE
    self.fixedcamid = -1
    self.trackbodyid = -1
    self.lookat = np.zeros(3)
    self.distance = 2.0
    self.azimuth = 90.0
    self.elevation = -45.0
    self.orthographic = 0

  def __repr__(self):
    return (f"<MjvCamera type={self.type} fixedcamid={self.fixedcamid} trackbodyid={self.trackbodyid} "
            f"lookat={list(self.lookat)} distance={self.distance} azimuth={self.azimuth} "
            f"elevation={self.elevation}>")


def statistic(m):
  """(center (3,), extent) of the model at qpos0, as MuJoCo's ``mjStatistic`` (without body-size floor)."""
  from mjgym.physics import api  # pylint: disable=import-outside-toplevel
  from mjgym.physics.containers import MjData  # pylint: disable=import-outside-toplevel
  d = MjData(m)
  api.mj_forward(m, d)
  pts = [d.xpos[1:], d.xipos[1:], d.xanchor, d.site_xpos]
  lo = [p for p in pts if len(p)]
  lo = np.concatenate(lo) if lo else np.zeros((0, 3))
  xmin = lo.min(axis=0) if len(lo) else np.full(3, 1e10)
  xmax = lo.max(axis=0) if len(lo) else np.full(3, -1e10)
  for g in range(m.ngeom):
    r = m.geom_rbound[g]
    if r <= 0 and m.geom_type[g] == GeomType.PLANE:
      r = 0.1 * max(m.geom_size[g, 0], m.geom_size[g, 1]) if m.geom_size[g, :2].any() else 0.01
    xmin = np.minimum(xmin, d.geom_xpos[g] - r)
    xmax = np.maximum(xmax, d.geom_xpos[g] + r)
  center = 0.5 * (xmin + xmax)
  extent = max(1e-5, float(np.max(xmax - xmin))) if xmax[0] > xmin[0] else 2.0
  return center, extent


def default_free_camera(m, cam=None, stat=None):
  """``mjv_defaultFreeCamera``: orbit the model's centre from 1.5 extents at the <visual> angles."""
  cam = cam or MjvCamera()
  center, extent = stat if stat is not None else statistic(m)
  cam.type = CAMERA_FREE
  cam.fixedcamid = -1
  cam.trackbodyid = -1
  cam.lookat = np.array(center, float)
  cam.distance = 1.5 * extent
  cam.azimuth = _vis(m, "vis_global_azimuth", 90.0)
  cam.elevation = _vis(m, "vis_global_elevation", -45.0)
  return cam


def _vis(m, name, default):
  """A <visual> value, or MuJoCo's default for models built without the compiler (all-zero fields)."""
  v = np.asarray(getattr(m, name, [0.0])).ravel()
  return float(v[0]) if v[0] != 0 else default


def orbit_pose(lookat, distance, azimuth, elevation):
  """Position and xmat (9,) of a free camera orbiting ``lookat`` (angles in degrees), as mjv_updateCamera."""
  az, el = math.radians(azimuth), math.radians(elevation)
  fwd = np.array([math.cos(el) * math.cos(az), math.cos(el) * math.sin(az), math.sin(el)])
  up = np.array([-math.sin(el) * math.cos(az), -math.sin(el) * math.sin(az), math.cos(el)])
  right = np.cross(fwd, up)
  pos = np.asarray(lookat, float) - distance * fwd
  return pos, np.column_stack([right, up, -fwd]).ravel()


def _mesh_normals(vert, face):
  """Per face corner normals (nface*3, 3): area-weighted over the faces at that vertex that bend little."""
  if len(face) == 0:
    return np.zeros((0, 3))
  tri = vert[face]
  fn = np.cross(tri[:, 1] - tri[:, 0], tri[:, 2] - tri[:, 0])  # length = 2 * area
  unit = fn / np.maximum(np.linalg.norm(fn, axis=1, keepdims=True), 1e-300)
  at_vertex = [[] for _ in range(len(vert))]
  for f, (a, b, c) in enumerate(face):
    for v in (a, b, c):
      at_vertex[v].append(f)
  out = np.zeros((3 * len(face), 3))
  for f, corners in enumerate(face):
    for k, v in enumerate(corners):
      near = [h for h in at_vertex[v] if unit[h] @ unit[f] > _CREASE_COS]
      n = fn[near].sum(axis=0)
      out[3 * f + k] = n / max(np.linalg.norm(n), 1e-300)
  return out


class Scene:
  """The per-model tables the kernels read (tuple ``arrays``), and the light/camera rows filled per frame."""

  def __init__(self, m):
    self.model = m
    ng = m.ngeom
    self.stat = statistic(m)
    extent = self.stat[1]
    self.znear = _vis(m, "vis_map_znear", 0.01) * extent
    self.zfar = _vis(m, "vis_map_zfar", 50.0) * extent
    self.fovy = _vis(m, "vis_global_fovy", 45.0)
    gtype = np.ascontiguousarray(m.geom_type, np.int32)
    gsize = np.ascontiguousarray(m.geom_size, np.float64)
    rgba = np.array(m.geom_rgba, np.float64).reshape(ng, 4)
    gmat = np.tile([0.5, 0.5, 0.0, 0.0], (ng, 1))
    gtex = np.full(ng, -1, np.int32)
    texrepeat = np.ones((ng, 2))
    texuniform = np.zeros(ng, np.int32)
    for g in range(ng):
      mat = int(m.geom_matid[g])
      if mat < 0:
        continue
      if np.allclose(rgba[g], _DEFAULT_RGBA):
        rgba[g] = m.mat_rgba[mat]
      gmat[g] = (m.mat_specular[mat], m.mat_shininess[mat], m.mat_emission[mat], m.mat_reflectance[mat])
      gtex[g] = m.mat_texid[mat]
      texrepeat[g] = m.mat_texrepeat[mat]
      texuniform[g] = m.mat_texuniform[mat]
    self.rgba = rgba
    # boxes around each geom in its own frame: centre and half sizes
    gbox = np.zeros((ng, 6))
    for g in range(ng):
      t, s = gtype[g], gsize[g]
      if t == GeomType.PLANE:
        big = 1e9
        gbox[g, 3:] = (s[0] if s[0] > 0 else big, s[1] if s[1] > 0 else big, 0.0)
      elif t == GeomType.SPHERE:
        gbox[g, 3:] = s[0]
      elif t == GeomType.CAPSULE:
        gbox[g, 3:] = (s[0], s[0], s[1] + s[0])
      elif t == GeomType.CYLINDER:
        gbox[g, 3:] = (s[0], s[0], s[1])
      elif t in (GeomType.ELLIPSOID, GeomType.BOX):
        gbox[g, 3:] = s
      elif t == GeomType.MESH:
        mid = m.geom_dataid[g]
        v = m.mesh_vert[m.mesh_vertadr[mid]:m.mesh_vertadr[mid] + m.mesh_vertnum[mid]]
        lo, hi = v.min(axis=0), v.max(axis=0)
        gbox[g, :3] = 0.5 * (lo + hi)
        gbox[g, 3:] = 0.5 * (hi - lo)
    # a hair larger, so that pixels whose centres graze the silhouette are tested
    gbox[:, 3:] = gbox[:, 3:] * (1 + 1e-9) + 1e-12
    self.gbox = gbox
    supported = np.isin(gtype, [GeomType.PLANE, GeomType.SPHERE, GeomType.CAPSULE, GeomType.ELLIPSOID,
                                GeomType.CYLINDER, GeomType.BOX, GeomType.MESH])
    self.drawable = supported & (rgba[:, 3] > 0)
    self.gvis = np.zeros(ng, np.uint8)
    self.set_groups(np.array([1, 1, 1, 0, 0, 0]))
    normals = np.zeros((0, 3))
    if m.nmesh:
      parts = []
      for mid in range(m.nmesh):
        va, vn = m.mesh_vertadr[mid], m.mesh_vertnum[mid]
        fa, fn = m.mesh_faceadr[mid], m.mesh_facenum[mid]
        parts.append(_mesh_normals(np.asarray(m.mesh_vert[va:va + vn]), np.asarray(m.mesh_face[fa:fa + fn])))
      normals = np.concatenate(parts)
    mesh_vert = np.ascontiguousarray(m.mesh_vert, np.float64).reshape(-1, 3)
    mesh_face = np.ascontiguousarray(m.mesh_face, np.int32).reshape(-1, 3)
    ntex = m.ntex
    self.sky = -1
    for t in range(ntex):
      if m.tex_type[t] == 2 and m.tex_builtin[t] == 1:
        self.sky = t
    gm = np.concatenate([rgba, gmat, gtex[:, None], texrepeat, texuniform[:, None]], axis=1)
    tt = np.zeros((ntex, 13))
    for t in range(ntex):
      tt[t] = [m.tex_builtin[t], m.tex_mark[t], *m.tex_rgb1[t], *m.tex_rgb2[t], *m.tex_markrgb[t],
               m.tex_width[t], m.tex_type[t]]
    self.arrays = (
        gtype, gsize, gbox, self.gvis, np.ascontiguousarray(m.geom_dataid, np.int32), mesh_vert, mesh_face,
        np.ascontiguousarray(m.mesh_vertadr, np.int32), np.ascontiguousarray(m.mesh_faceadr, np.int32),
        np.ascontiguousarray(m.mesh_facenum, np.int32), np.ascontiguousarray(normals, np.float64),
        np.ascontiguousarray(gm), tt)
    # lights: the model's active ones, then the headlight
    self.light_ids = [i for i in range(m.nlight) if m.light_active[i]]
    if m.vis_map_zfar[0] > 0:
      self.headlight = bool(m.vis_headlight_active[0])
      self.head = (m.vis_headlight_ambient, m.vis_headlight_diffuse, m.vis_headlight_specular)
    else:
      # a model built without the compiler (all <visual> fields zero): MuJoCo's headlight
      self.headlight = True
      self.head = ([0.1] * 3, [0.4] * 3, [0.5] * 3)
    self.nlight = len(self.light_ids) + (1 if self.headlight else 0)
    static = np.zeros((self.nlight, kernels.LIGHT_SIZE))
    for row, li in enumerate(self.light_ids):
      ltype = m.light_type[li]
      static[row, 0] = 1.0 if ltype == _LIGHT_DIRECTIONAL else 0.0
      static[row, 7:10] = m.light_ambient[li]
      static[row, 10:13] = m.light_diffuse[li]
      static[row, 13:16] = m.light_specular[li]
      static[row, 16:19] = m.light_attenuation[li]
      static[row, 19] = -1.0 if ltype == _LIGHT_POINT else math.cos(math.radians(min(m.light_cutoff[li], 180.0)))
      static[row, 20] = m.light_exponent[li]
      static[row, 21] = m.light_castshadow[li]
    if self.headlight:
      static[-1, 0] = 1.0
      static[-1, 7:10], static[-1, 10:13], static[-1, 13:16] = self.head
    self.light_static = static

  def set_groups(self, geomgroup):
    """Geoms drawn: those of a group switched on in ``geomgroup`` (6,), as mjvOption.geomgroup."""
    m = self.model
    groups = np.asarray(geomgroup).astype(bool)
    grp = np.clip(m.geom_group, 0, 5)
    self.gvis[:] = (self.drawable & groups[grp]).astype(np.uint8)

  def fill_lights(self, d, cam, out):
    """Light rows for one frame: world positions/directions from ``d``, the headlight along the camera."""
    out[:] = self.light_static
    for row, li in enumerate(self.light_ids):
      out[row, 1:4] = d.light_xpos[li]
      out[row, 4:7] = d.light_xdir[li]
    if self.headlight:
      # the headlight shines along the camera's view direction (its -z axis)
      out[-1, 4] = -cam[5]
      out[-1, 5] = -cam[8]
      out[-1, 6] = -cam[11]

  def fill_camera(self, d, camera, width, height, out):
    """Camera row (see kernels) for ``camera``: an id (-1 free), a name, or an MjvCamera-like object."""
    m = self.model
    fovy = self.fovy
    if isinstance(camera, str):
      camera = _camera_id(m, camera)
    if isinstance(camera, (int, np.integer)):
      camera = int(camera)
      if camera < -1 or camera >= m.ncam:
        raise ValueError(f"camera id {camera} out of range [-1, {m.ncam})")
      if camera == -1:
        pos, xmat = orbit_pose(*_orbit(default_free_camera(m, stat=self.stat)))
      else:
        pos, xmat = d.cam_xpos[camera], d.cam_xmat[camera]
        fovy = float(m.cam_fovy[camera])
    else:
      ctype = int(getattr(camera, "type", CAMERA_FREE))
      if ctype == CAMERA_FIXED:
        cid = int(camera.fixedcamid)
        pos, xmat = d.cam_xpos[cid], d.cam_xmat[cid]
        fovy = float(m.cam_fovy[cid])
      else:
        lookat = np.asarray(camera.lookat, float)
        if ctype == CAMERA_TRACKING and camera.trackbodyid >= 0:
          lookat = d.subtree_com[int(camera.trackbodyid)]
        pos, xmat = orbit_pose(lookat, float(camera.distance), float(camera.azimuth), float(camera.elevation))
    out[0:3] = pos
    out[3:12] = xmat
    out[12] = 0.5 * height / math.tan(math.radians(fovy) / 2)
    out[13] = self.znear
    out[14] = self.zfar
    out[15] = width
    out[16] = height


def _orbit(cam):
  return cam.lookat, cam.distance, cam.azimuth, cam.elevation


def _camera_id(m, name):
  from mjgym.physics.types import ObjType  # pylint: disable=import-outside-toplevel
  cid = m.name2id(ObjType.CAMERA, name)
  if cid < 0:
    raise ValueError(f"The camera '{name}' does not exist.")
  return cid
