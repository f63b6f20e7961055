"""What the kernels draw: per-model geom, material, texture (mipmapped pixels) and mesh-corner tables, per-frame
cameras, lights and skinned vertices.

Everything per model is built once (``Scene``); per frame only the camera row, the light rows and the skins'
vertices are filled, in place, from a Data.
"""

import math

import numpy as np

from mjgym.physics import ray
from mjgym.physics import records
from mjgym.physics.render import kernels
from mjgym.physics.types import Builtin
from mjgym.physics.types import ColorSpace
from mjgym.physics.types import GeomType
from mjgym.physics.types import LightType
from mjgym.physics.types import ObjType
from mjgym.physics.types import TextureType
from mjgym.physics.types import WrapType

# MuJoCo's geom rgba default: a geom left at it takes its material's colour.
_DEFAULT_RGBA = (0.5, 0.5, 0.5, 1.0)
# mjtCamera.
CAMERA_FREE = 0
CAMERA_TRACKING = 1
CAMERA_FIXED = 2
# wrap_obj (a tendon path point in Data) of a pulley
_WRAP_PULLEY = -2
# mjtObj of skins (segmentation)
_OBJ_SKIN = 11
# Faces whose normals are within this cosine of a face's own share its smooth normal at a vertex (sharper
# creases stay sharp, as MuJoCo's default smoothnormal="false" does).
_CREASE_COS = 0.8


def _pose_capsules(rows, centre, xmat, half, width, gxpos, gxmat, gsize, gbox):
  """Scene capsules ``rows`` posed along segments: centres (k, 3), frames (k, 9), half lengths (k,), radius
  ``width`` (scalar or (k,)); their bounding boxes slightly grown, so that a ray along a face still enters."""
  gxpos[rows] = centre
  gxmat[rows] = xmat
  gsize[rows, 0] = width
  gsize[rows, 1] = half
  gbox[rows, 3] = gbox[rows, 4] = width * (1 + 1e-9) + 1e-12
  gbox[rows, 5] = (half + width) * (1 + 1e-9) + 1e-12


def _vertex_normals(vert, face):
  """Unit normals (nvert, 3) of a triangle mesh's vertices: the sum of the cross products of the triangles
  around each vertex (area-weighted), normalized."""
  tri = vert[face]
  fn = np.cross(tri[:, 1] - tri[:, 0], tri[:, 2] - tri[:, 0])
  normal = np.zeros_like(vert)
  for k in range(3):
    np.add.at(normal, face[:, k], fn)
  return normal / np.maximum(np.linalg.norm(normal, axis=1, keepdims=True), 1e-15)

class MjvCamera(records.Struct):
  """An abstract camera like the bindings' ``mujoco.MjvCamera``: free (orbit), tracking or fixed.

  Attributes: type (mjtCamera: 0 free, 1 tracking, 2 fixed), fixedcamid, trackbodyid, lookat (3,) m, distance m,
  azimuth and elevation in degrees, orthographic (not supported, must stay 0).
  """

  FIELDS = records.fields("""
    type int32 - 0
    fixedcamid int32 - -1
    trackbodyid int32 - -1
    lookat float64 3 0
    distance float64 - 2
    azimuth float64 - 90
    elevation float64 - -45
    orthographic int32 - 0
  """)


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


def _srgb_to_linear(c):
  """OpenGL's decoding of sRGB texels (MuJoCo uploads sRGB textures as GL_SRGB8): c in [0, 1]."""
  return np.where(c <= 0.04045, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)


def _mipmaps(faces):
  """Mipmap levels of (nface, h, w, 3) float32 pixels: each level half the last (rounded down, at least 1) by
  averaging 2 x 2 texels (an odd last row or column is dropped, as OpenGL's box filter may)."""
  levels = [faces]
  while (faces.shape[1] > 1 or faces.shape[2] > 1) and len(levels) < kernels.MAX_LEVELS:
    if faces.shape[1] > 1:
      h = faces.shape[1] // 2
      faces = 0.5 * (faces[:, 0:2 * h:2] + faces[:, 1:2 * h:2])
    if faces.shape[2] > 1:
      w = faces.shape[2] // 2
      faces = 0.5 * (faces[:, :, 0:2 * w:2] + faces[:, :, 1:2 * w:2])
    levels.append(faces.astype(np.float32))
  return levels


def texture_tables(m):
  """(tt (ntex, kernels.TT_SIZE), pixels float32): the kernels' texture rows and every texture's RGB mipmaps
  (in [0, 1], sRGB textures decoded to linear as OpenGL samples them) back to back."""
  tt = np.zeros((m.ntex, kernels.TT_SIZE))
  tt[:, kernels.TT_SKY] = -1
  parts, total = [], 0
  for t in range(m.ntex):
    tt[t, :13] = [m.tex_builtin[t], m.tex_mark[t], *m.tex_rgb1[t], *m.tex_rgb2[t], *m.tex_markrgb[t],
                  m.tex_width[t], m.tex_type[t]]
    w, h, nc = int(m.tex_width[t]), int(m.tex_height[t]), int(m.tex_nchannel[t])
    if w * h * nc == 0:
      continue
    adr = int(m.tex_adr[t])
    pixels = np.asarray(m.tex_data[adr:adr + w * h * nc], np.float32).reshape(h, w, nc) / 255.0
    rgb = pixels[..., [0, 0, 0]] if nc == 1 else pixels[..., :3]
    if m.tex_colorspace[t] == ColorSpace.SRGB:
      rgb = _srgb_to_linear(rgb)
    nface = 1 if m.tex_type[t] == TextureType.TWO_D or h == w else 6
    levels = _mipmaps(np.ascontiguousarray(rgb, np.float32).reshape(nface, h // nface, w, 3))
    tt[t, 13:16] = (h // nface, len(levels), nface)
    for k, level in enumerate(levels):
      tt[t, 16 + k] = total
      parts.append(level.ravel())
      total += level.size
    if m.tex_type[t] == TextureType.SKYBOX and m.tex_builtin[t] == Builtin.GRADIENT and m.tex_mark[t] == 0:
      # MuJoCo's gradient skybox texels: this blend of the elevation (in bytes), as a table over its sine
      pos = np.arcsin(np.linspace(-1.0, 1.0, kernels.SKY_TABLE)) / (0.5 * np.pi)
      a = np.clip(0.5 * (1 + np.sqrt(2.0) * pos / np.sqrt(1 + pos * pos)), 0.0, 1.0)[:, None]
      table = a * m.tex_rgb1[t] + (1 - a) * m.tex_rgb2[t]
      table = (_srgb_to_linear(table) if m.tex_colorspace[t] == ColorSpace.SRGB else table).astype(np.float32)
      tt[t, kernels.TT_SKY] = total
      parts.append(table.ravel())
      total += table.size
  pixels = np.concatenate(parts).astype(np.float32) if parts else np.zeros(1, np.float32)
  return tt, pixels


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


def _corner_uv_scale(vert, face, uv):
  """Per face (k,): texture-coordinate units per metre, the square root of the ratio of the areas."""
  tri = vert[face]
  area = np.linalg.norm(np.cross(tri[:, 1] - tri[:, 0], tri[:, 2] - tri[:, 0]), axis=1)
  t = uv.reshape(-1, 3, 2)
  uvarea = np.abs((t[:, 1, 0] - t[:, 0, 0]) * (t[:, 2, 1] - t[:, 0, 1])
                  - (t[:, 2, 0] - t[:, 0, 0]) * (t[:, 1, 1] - t[:, 0, 1]))
  return np.sqrt(uvarea / np.maximum(area, 1e-300))


def _mesh_corner_table(m):
  """(corners (3 * nmeshface, 6), hasuv (nmesh,)): per mesh face corner the smooth normal, the texture coordinates
  (mesh_texcoord through mesh_facetexcoord) and the face's texture units per metre (see kernels)."""
  out = np.zeros((3 * m.nmeshface, 6))
  hasuv = np.zeros(m.nmesh, bool)
  for mid in range(m.nmesh):
    va, vn = m.mesh_vertadr[mid], m.mesh_vertnum[mid]
    fa, fn = m.mesh_faceadr[mid], m.mesh_facenum[mid]
    vert, face = np.asarray(m.mesh_vert[va:va + vn]), np.asarray(m.mesh_face[fa:fa + fn])
    rows = slice(3 * fa, 3 * (fa + fn))
    out[rows, :3] = _mesh_normals(vert, face)
    tadr = int(m.mesh_texcoordadr[mid]) if m.nmeshtexcoord else -1
    if tadr >= 0 and fn:
      hasuv[mid] = True
      uv = np.asarray(m.mesh_texcoord)[tadr + np.asarray(m.mesh_facetexcoord[fa:fa + fn]).reshape(-1)]
      out[rows, 3:5] = uv
      out[rows, 5] = np.repeat(_corner_uv_scale(vert, face, uv), 3)
  return out, hasuv


class SkinTable:
  """A model's skins posed from body poses as MuJoCo's mjv_updateScene poses them: each vertex the weighted sum
  over its bones of (bone pose) (bind pose)^-1 vertex, then moved by inflate along its normal (the area-weighted
  sum of its faces' normals)."""

  def __init__(self, m):
    self.nskin = m.nskin
    self.vertadr = np.asarray(m.skin_vertadr)
    self.vertnum = np.asarray(m.skin_vertnum)
    self.vert = np.asarray(m.skin_vert, float).reshape(-1, 3)
    nbone = m.nskinbone
    bone_skin = np.repeat(np.arange(m.nskin), m.skin_bonenum)
    self.bodyid = np.asarray(m.skin_bonebodyid)
    self.bindpos = np.asarray(m.skin_bonebindpos, float).reshape(-1, 3)
    self.bindquat = np.asarray(m.skin_bonebindquat, float).reshape(-1, 4)
    # one entry per (bone, vertex): the bone, the global vertex index, the weight
    self.entry_bone = np.repeat(np.arange(nbone), m.skin_bonevertnum)
    self.entry_vert = (np.asarray(m.skin_bonevertid) + self.vertadr[bone_skin][self.entry_bone]).astype(np.int64)
    self.entry_weight = np.asarray(m.skin_bonevertweight, float)
    face_skin = np.repeat(np.arange(m.nskin), m.skin_facenum)
    self.face = np.asarray(m.skin_face, np.int64).reshape(-1, 3) + self.vertadr[face_skin][:, None]
    self.inflate = np.repeat(np.asarray(m.skin_inflate, float), self.vertnum)[:, None]
    self.corner_vert = self.face.reshape(-1)
    self.texcoordadr = np.asarray(m.skin_texcoordadr)
    self.model = m
    self.vert0 = self.face0 = 0  # where the skins start in the extended mesh tables

  def pose(self, xpos, xquat):
    """(vertices (nskinvert, 3), unit normals (nskinvert, 3)) in world coordinates for the body poses."""
    q = _quat_mul(np.asarray(xquat)[self.bodyid], self.bindquat * [1.0, -1.0, -1.0, -1.0])
    rot = _quat_mats(q)
    trans = np.asarray(xpos)[self.bodyid] - np.einsum("kij,kj->ki", rot, self.bindpos)
    moved = np.einsum("kij,kj->ki", rot[self.entry_bone], self.vert[self.entry_vert]) + trans[self.entry_bone]
    vert = np.zeros_like(self.vert)
    np.add.at(vert, self.entry_vert, self.entry_weight[:, None] * moved)
    normal = _vertex_normals(vert, self.face)
    return vert + self.inflate * normal, normal

  def vertices(self, xpos, xquat):
    """The skinned vertices (nskinvert, 3) for the body poses."""
    return self.pose(xpos, xquat)[0]

  def extend_tables(self, tables, corners):
    """physics.ray's mesh tables and the corner table with the skins appended as meshes (vertices filled per
    frame): (tables, corners)."""
    m = self.model
    vert, face, vadr, fadr, fnum = tables[:5]
    self.vert0, self.face0 = len(vert), len(face)
    vert = np.ascontiguousarray(np.concatenate([np.reshape(vert, (-1, 3)), self.vert]), np.float64)
    local_face = np.asarray(m.skin_face).reshape(-1, 3)
    face = np.ascontiguousarray(np.concatenate([np.reshape(face, (-1, 3)), local_face]).astype(np.asarray(face).dtype))
    vadr = np.concatenate([vadr, self.vert0 + self.vertadr]).astype(np.asarray(vadr).dtype)
    fadr = np.concatenate([fadr, self.face0 + np.asarray(m.skin_faceadr)]).astype(np.asarray(fadr).dtype)
    fnum = np.concatenate([fnum, m.skin_facenum]).astype(np.asarray(fnum).dtype)
    extra = np.zeros((3 * len(local_face), 6))
    for k in range(self.nskin):
      tadr = int(self.texcoordadr[k])
      f0, nf = int(m.skin_faceadr[k]), int(m.skin_facenum[k])
      if tadr < 0 or not nf:
        continue
      f = local_face[f0:f0 + nf]
      uv = np.asarray(m.skin_texcoord).reshape(-1, 2)[tadr + f.reshape(-1)]
      v = self.vert[self.vertadr[k]:self.vertadr[k] + self.vertnum[k]]
      extra[3 * f0:3 * (f0 + nf), 3:5] = uv
      extra[3 * f0:3 * (f0 + nf), 5] = np.repeat(_corner_uv_scale(v, f, uv), 3)
    return (vert, face, vadr, fadr, fnum) + tuple(tables[5:]), np.concatenate([corners, extra])


class FlexSurface:
  """The faces of a model's 2-D and 3-D flexes (triangles of a 2-D flex, the border triangles of a 3-D one) as
  meshes appended to physics.ray's tables, their vertices (every flex vertex) and normals filled per frame."""

  def __init__(self, m):
    self.model = m
    self.flexes = [f for f in range(m.nflex) if m.flex_dim[f] >= 2]
    faces, self.faceadr, self.facenum = [], [], []
    for f in self.flexes:
      if m.flex_dim[f] == 2:
        adr = m.flex_elemdataadr[f]
        local = np.asarray(m.flex_elem[adr:adr + 3 * m.flex_elemnum[f]]).reshape(-1, 3)
      else:
        adr = m.flex_shelldataadr[f]
        local = np.asarray(m.flex_shell[adr:adr + 3 * m.flex_shellnum[f]]).reshape(-1, 3)
      self.faceadr.append(sum(len(x) for x in faces))
      self.facenum.append(len(local))
      faces.append(local)
    self.local_face = np.concatenate(faces).astype(np.int64) if faces else np.zeros((0, 3), np.int64)
    vertadr = np.asarray(m.flex_vertadr, np.int64)
    self.face = self.local_face + np.repeat(vertadr[self.flexes], self.facenum)[:, None]
    self.corner_vert = self.face.reshape(-1)
    self.vert0 = self.face0 = 0  # where the surfaces start in the extended mesh tables

  def pose(self, flexvert_xpos):
    """(vertices (nflexvert, 3), unit normals (nflexvert, 3)): the flex vertices and their area-weighted normals."""
    vert = np.asarray(flexvert_xpos, float).reshape(-1, 3)
    return vert, _vertex_normals(vert, self.face)

  def extend_tables(self, tables, corners):
    """The mesh and corner tables with one mesh per surface appended (vertices filled per frame)."""
    m = self.model
    vert, face, vadr, fadr, fnum = tables[:5]
    self.vert0, self.face0 = len(vert), len(face)
    vert = np.ascontiguousarray(np.concatenate([np.reshape(vert, (-1, 3)), np.zeros((m.nflexvert, 3))]))
    face = np.ascontiguousarray(np.concatenate([np.reshape(face, (-1, 3)), self.local_face]).astype(
        np.asarray(face).dtype))
    vadr = np.concatenate([vadr, self.vert0 + np.asarray(m.flex_vertadr)[self.flexes]]).astype(
        np.asarray(vadr).dtype)
    fadr = np.concatenate([fadr, self.face0 + np.asarray(self.faceadr, np.int64)]).astype(np.asarray(fadr).dtype)
    fnum = np.concatenate([fnum, self.facenum]).astype(np.asarray(fnum).dtype)
    extra = np.zeros((3 * len(self.local_face), 6))
    return (vert, face, vadr, fadr, fnum) + tuple(tables[5:]), np.concatenate([corners, extra])


def _quat_mul(a, b):
  """Row-wise quaternion products a b (w, x, y, z)."""
  aw, ax, ay, az = a.T
  bw, bx, by, bz = b.T
  return np.stack([aw * bw - ax * bx - ay * by - az * bz, aw * bx + ax * bw + ay * bz - az * by,
                   aw * by - ax * bz + ay * bw + az * bx, aw * bz + ax * by - ay * bx + az * bw], axis=1)


def _quat_mats(q):
  """Rotation matrices (n, 3, 3) of unit quaternions (n, 4)."""
  w, x, y, z = q.T
  return np.stack([1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y),
                   2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x),
                   2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)], axis=1).reshape(-1, 3, 3)


# Decor MuJoCo draws besides geoms (visual-only rows after the geoms in the kernels' tables).
VIS_TENDON = 7          # mjtVisFlag indices
VIS_CONTACTPOINT = 14
VIS_CONTACTFORCE = 16
_TENDON_WIDTH_MIN = 1e-6
_CONTACT_RGBA = (0.9, 0.6, 0.2, 1.0)  # MuJoCo's vis.rgba.contactpoint
_CONTACT_WIDTH = 0.3    # vis.scale.contactwidth, contactheight (times the model's mean body size)
_CONTACT_HEIGHT = 0.1
_FORCE_RGBA = (0.7, 0.9, 0.9, 1.0)    # vis.rgba.contactforce
_FORCE_WIDTH = 0.1      # vis.scale.forcewidth (times the mean body size)
_FORCE_SCALE = 0.005    # vis.map.force: arrow length (m) per unit of force over the mean body mass


class MjvOption:
  """What to draw besides the geoms, like the bindings' ``mujoco.MjvOption`` (same defaults).

  Attributes: geomgroup, sitegroup, tendongroup, skingroup, flexgroup: (6,) uint8 flags per group (groups 0-2 on);
  flags: (31,)
  uint8 indexed by mjtVisFlag (mjVIS_TENDON = 7 on; mjVIS_CONTACTPOINT = 14 and mjVIS_CONTACTFORCE = 16 off by
  default).
  """

  def __init__(self):
    self.geomgroup = np.array([1, 1, 1, 0, 0, 0], np.uint8)
    self.sitegroup = np.array([1, 1, 1, 0, 0, 0], np.uint8)
    self.tendongroup = np.array([1, 1, 1, 0, 0, 0], np.uint8)
    self.skingroup = np.array([1, 1, 1, 0, 0, 0], np.uint8)
    self.flexgroup = np.array([1, 1, 1, 0, 0, 0], np.uint8)
    self.flags = np.zeros(31, np.uint8)
    self.flags[VIS_TENDON] = 1


def _mean_body_size(m):
  """Mean size (m) of the model's bodies: the average half-extent of each massive body's equivalent inertia box
  (close to MuJoCo's stat.meansize, which scales contact-point decor)."""
  sizes = []
  for b in range(1, m.nbody):
    mass = m.body_mass[b]
    if mass <= 1e-10:
      continue
    i = m.body_inertia[b]
    box = [max(i[1] + i[2] - i[0], 0.0), max(i[0] + i[2] - i[1], 0.0), max(i[0] + i[1] - i[2], 0.0)]
    sizes.append(np.mean(np.sqrt(6.0 * np.array(box) / mass)) / 2)
  return float(np.mean(sizes)) if sizes else 0.05


def _box_of(gtype, size):
  """Half sizes of the local box around a primitive of the given type and size (3,); planes get a huge box."""
  if gtype == GeomType.PLANE:
    big = 1e9
    return (size[0] if size[0] > 0 else big, size[1] if size[1] > 0 else big, 0.0)
  if gtype == GeomType.SPHERE:
    return (size[0],) * 3
  if gtype == GeomType.CAPSULE:
    return (size[0], size[0], size[1] + size[0])
  if gtype == GeomType.CYLINDER:
    return (size[0], size[0], size[1])
  return tuple(size)


def _frames_along(p0, p1):
  """Centres (n, 3), xmat rows (n, 9) with z along p1 - p0, and half lengths (n,) of segments p0 -> p1."""
  d = p1 - p0
  length = np.linalg.norm(d, axis=1)
  z = d / np.maximum(length, 1e-12)[:, None]
  z[length < 1e-12] = (0.0, 0.0, 1.0)
  # any unit x perpendicular to z: cross with the world axis least aligned with z
  helper = np.where(np.abs(z[:, :1]) < 0.9, [[1.0, 0.0, 0.0]], [[0.0, 1.0, 0.0]])
  x = np.cross(helper, z)
  x /= np.linalg.norm(x, axis=1)[:, None]
  y = np.cross(z, x)
  return 0.5 * (p0 + p1), np.stack([x, y, z], axis=2).reshape(-1, 9), 0.5 * length


class Scene:
  """The per-model tables the kernels read, and the per-frame rows (poses, decor, camera, lights) filled in place.

  Rows of the object tables: the model's geoms, then its sites, then its skins (meshes appended to physics.ray's
  mesh tables, posed in world coordinates each frame), then tendon segments (spatial tendons, drawn as
  capsules of the tendon's width between consecutive path points), then flex edges (capsules of the flex's
  radius between the edge's vertices, in the flex's colour), then flex surfaces (meshes of the 2-D flexes'
  triangles and the 3-D flexes' border triangles, posed per frame), then contact points (cylinders along the
  contact normal), then contact forces (cylinders from the contact point along the force, MuJoCo's arrows
  without their heads). Segmentation reports each row's (object id, mjtObj type); contact decor is
  (contact index, mjOBJ_UNKNOWN). With skins the mesh tables belong to the scene and change every frame.
  """

  def __init__(self, m):
    self.model = m
    ng = m.ngeom
    ns = m.nsite
    self.stat = statistic(m)
    extent = self.stat[1]
    self.znear = _vis(m, "vis_map_znear", 0.01) * extent
    self.zfar = _vis(m, "vis_map_zfar", 50.0) * extent
    self.fovy = _vis(m, "vis_global_fovy", 45.0)
    # spatial tendons: path point ranges; at most 2 points per path element
    self.spatial = [t for t in range(m.ntendon)
                    if m.tendon_num[t] and m.wrap_type[m.tendon_adr[t]] != WrapType.JOINT]
    self.nseg = int(sum(2 * m.tendon_num[t] - 1 for t in self.spatial))
    self.ncon = int(m.nconmax)
    self.ngeom, self.nsite = ng, ns
    nsk = m.nskin
    self.skins = SkinTable(m) if nsk else None
    self.skin0 = ng + ns
    self.seg0 = ng + ns + nsk
    self.nflexedge = int(m.nflexedge)
    self.flex0 = self.seg0 + self.nseg
    self.surfaces = FlexSurface(m) if m.nflex else None
    self.nsurface = len(self.surfaces.flexes) if self.surfaces is not None else 0
    self.surface0 = self.flex0 + self.nflexedge
    self.con0 = self.surface0 + self.nsurface
    self.force0 = self.con0 + self.ncon
    n = self.force0 + self.ncon
    self.n = n
    gtype = np.full(n, GeomType.CAPSULE, np.int32)
    gtype[:ng] = m.geom_type
    gtype[ng:ng + ns] = m.site_type
    gtype[self.skin0:self.seg0] = GeomType.MESH  # skins: meshes posed per frame, in world coordinates
    gtype[self.surface0:self.con0] = GeomType.MESH
    gtype[self.con0:] = GeomType.CYLINDER  # contact points and forces
    size0 = np.zeros((n, 3))
    size0[:ng] = m.geom_size
    size0[ng:ng + ns] = m.site_size
    self.meansize = _mean_body_size(m)
    size0[self.con0:self.force0] = (_CONTACT_WIDTH * self.meansize, _CONTACT_WIDTH * self.meansize,
                                    _CONTACT_HEIGHT * self.meansize)
    size0[self.force0:, 0] = _FORCE_WIDTH * self.meansize
    masses = np.asarray(m.body_mass)[1:]
    self.meanmass = float(masses.mean()) if len(masses) and masses.mean() > 0 else 1.0
    dataid = np.full(n, -1, np.int32)
    dataid[:ng] = m.geom_dataid
    dataid[self.skin0:self.seg0] = m.nmesh + np.arange(nsk)
    dataid[self.surface0:self.con0] = m.nmesh + nsk + np.arange(self.nsurface)
    rgba = np.zeros((n, 4))
    matid = np.full(n, -1, np.int64)
    rgba[:ng], matid[:ng] = np.reshape(m.geom_rgba, (ng, 4)), m.geom_matid
    rgba[ng:ng + ns], matid[ng:ng + ns] = np.reshape(m.site_rgba, (ns, 4)), m.site_matid
    if nsk:
      rgba[self.skin0:self.seg0], matid[self.skin0:self.seg0] = np.reshape(m.skin_rgba, (nsk, 4)), m.skin_matid
    seg_tendon = np.full(self.nseg, -1, np.int64)
    row = 0
    for t in self.spatial:
      k = 2 * m.tendon_num[t] - 1
      seg_tendon[row:row + k] = t
      row += k
    rgba[self.seg0:self.con0] = np.reshape(m.tendon_rgba, (-1, 4))[seg_tendon] if self.nseg else 0.0
    matid[self.seg0:self.con0] = np.asarray(m.tendon_matid)[seg_tendon] if self.nseg else -1
    # flex edges: each edge's flex and its vertices (global ids)
    edge_flex = np.repeat(np.arange(m.nflex), m.flex_edgenum).astype(np.int64)
    self.edge_flex = edge_flex
    self.edge_vert = (np.asarray(m.flex_edge, np.int64).reshape(-1, 2)
                      + np.asarray(m.flex_vertadr, np.int64)[edge_flex][:, None])
    rows = slice(self.flex0, self.surface0)
    rgba[rows] = np.reshape(m.flex_rgba, (-1, 4))[edge_flex] if self.nflexedge else 0.0
    size0[rows, 0] = np.maximum(np.asarray(m.flex_radius, float)[edge_flex], _TENDON_WIDTH_MIN)
    surface_flex = np.asarray(self.surfaces.flexes if self.nsurface else [], np.int64)
    self.surface_flex = surface_flex
    rgba[self.surface0:self.con0] = np.reshape(m.flex_rgba, (-1, 4))[surface_flex] if self.nsurface else 0.0
    rgba[self.con0:self.force0] = _CONTACT_RGBA
    rgba[self.force0:] = _FORCE_RGBA
    self.seg_tendon = seg_tendon
    gmat = np.tile([0.5, 0.5, 0.0, 0.0], (n, 1))
    gtex = np.full(n, -1, np.int32)
    texrepeat = np.ones((n, 2))
    texuniform = np.zeros(n, np.int32)
    for g in range(n):
      mat = int(matid[g])
      if mat < 0:
        continue
      if np.allclose(rgba[g], _DEFAULT_RGBA):
        rgba[g] = m.mat_rgba[mat]
      gmat[g] = (m.mat_specular[mat], m.mat_shininess[mat], m.mat_emission[mat], m.mat_reflectance[mat])
      gtex[g] = m.mat_texid[mat]
      texrepeat[g] = m.mat_texrepeat[mat]
      texuniform[g] = m.mat_texuniform[mat]
    # boxes around each object in its own frame: centre and half sizes (a hair larger, so that pixels whose
    # centres graze the silhouette are tested); tendon rows are sized per frame
    box0 = np.zeros((n, 6))
    for g in range(n):
      if gtype[g] == GeomType.HFIELD:
        rx, ry, top, bottom = m.hfield_size[m.geom_dataid[g]]
        box0[g] = (0.0, 0.0, 0.5 * (top - bottom), rx, ry, 0.5 * (top + bottom))
      elif self.skin0 <= g < self.seg0 or self.surface0 <= g < self.con0:
        continue  # sized per frame
      elif gtype[g] == GeomType.MESH:
        mid = dataid[g]
        v = m.mesh_vert[m.mesh_vertadr[mid]:m.mesh_vertadr[mid] + m.mesh_vertnum[mid]]
        lo, hi = v.min(axis=0), v.max(axis=0)
        box0[g, :3] = 0.5 * (lo + hi)
        box0[g, 3:] = 0.5 * (hi - lo)
      else:
        box0[g, 3:] = _box_of(gtype[g], size0[g])
    box0[:, 3:] = box0[:, 3:] * (1 + 1e-9) + 1e-12
    self.gtype, self.size0, self.box0 = gtype, size0, box0
    supported = np.isin(gtype, [GeomType.PLANE, GeomType.HFIELD, GeomType.SPHERE, GeomType.CAPSULE,
                                GeomType.ELLIPSOID, GeomType.CYLINDER, GeomType.BOX, GeomType.MESH])
    self.drawable = supported & (rgba[:, 3] > 0)
    self.vis0 = np.zeros(n, np.uint8)
    self.set_option(MjvOption())
    # segmentation: (object id, mjtObj) of every row
    self.objid = np.concatenate([np.arange(ng), np.arange(ns), np.arange(nsk), seg_tendon, edge_flex, surface_flex,
                                 np.arange(self.ncon), np.arange(self.ncon)]).astype(np.int32)
    self.objtype = np.concatenate([np.full(ng, ObjType.GEOM), np.full(ns, ObjType.SITE), np.full(nsk, _OBJ_SKIN),
                                   np.full(self.nseg, ObjType.TENDON),
                                   np.full(self.nflexedge + self.nsurface, ObjType.FLEX),
                                   np.full(2 * self.ncon, ObjType.UNKNOWN)]).astype(np.int32)
    self._force = np.zeros(6)
    corners, hasuv = _mesh_corner_table(m)
    gm = np.concatenate([rgba, gmat, gtex[:, None], texrepeat, texuniform[:, None], np.zeros((n, 1))], axis=1)
    gm[:ng, 12] = [hasuv[i] if t == GeomType.MESH and i >= 0 else 0 for t, i in zip(m.geom_type, m.geom_dataid)]
    self.sky = next((t for t in range(m.ntex) if m.tex_type[t] == TextureType.SKYBOX), -1)
    self.tt, pixels = texture_tables(m)
    self.gdataid = dataid
    tables = ray.shape_tables(m._struct)
    if self.skins is not None:
      gm[self.skin0:self.seg0, 12] = np.asarray(m.skin_texcoordadr) >= 0
      tables, corners = self.skins.extend_tables(tables, corners)
    if self.nsurface:
      tables, corners = self.surfaces.extend_tables(tables, corners)
    self.tables = tuple(tables) + (pixels,)
    self.mesh_normal = np.ascontiguousarray(corners, np.float64)
    self.gm = np.ascontiguousarray(gm)
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
      static[row, 0] = 1.0 if ltype == LightType.DIRECTIONAL else 0.0
      static[row, 7:10] = m.light_ambient[li]
      static[row, 10:13] = m.light_diffuse[li]
      static[row, 13:16] = m.light_specular[li]
      static[row, 16:19] = m.light_attenuation[li]
      static[row, 19] = -1.0 if ltype == LightType.POINT else math.cos(math.radians(min(m.light_cutoff[li], 180.0)))
      static[row, 20] = m.light_exponent[li]
      static[row, 21] = m.light_castshadow[li]
    if self.headlight:
      static[-1, 0] = 1.0
      static[-1, 7:10], static[-1, 10:13], static[-1, 13:16] = self.head
    self.light_static = static

  def kernel_args(self, gsize, gbox, gvis):
    """The object tables, the model's meshes and height fields (physics.ray's tables, skins and the texture pixels
    appended) and the mesh-corner table in the kernels' argument order, with this frame's sizes, boxes,
    visibility.

    ``gtype`` is cut after the last row visible this frame (in any world when gvis has a world axis): the
    kernels loop over its length, so unused decor rows (contact capacity, tendon segments) cost nothing.
    """
    on = np.flatnonzero(np.asarray(gvis).reshape(-1, self.n).any(axis=0))
    return (self.gtype[:on[-1] + 1 if len(on) else 0], gsize, gbox, gvis, self.gdataid, self.tables,
            self.mesh_normal, self.gm, self.tt)

  def set_option(self, option):
    """What is drawn, from an ``MjvOption``-like object (geomgroup, sitegroup, tendongroup, flags)."""
    m = self.model
    ng, ns = self.ngeom, self.nsite
    vis = np.zeros(self.n, bool)
    vis[:ng] = np.asarray(option.geomgroup).astype(bool)[np.clip(m.geom_group, 0, 5)]
    vis[ng:ng + ns] = np.asarray(option.sitegroup).astype(bool)[np.clip(m.site_group, 0, 5)]
    if self.skins is not None:
      skingroup = np.asarray(getattr(option, "skingroup", MjvOption().skingroup)).astype(bool)
      vis[self.skin0:self.seg0] = skingroup[np.clip(m.skin_group, 0, 5)]
    flags = np.asarray(getattr(option, "flags", MjvOption().flags))
    self.draw_tendons = bool(flags[VIS_TENDON]) and self.nseg > 0
    if self.nflexedge:
      flexgroup = np.asarray(getattr(option, "flexgroup", MjvOption().flexgroup)).astype(bool)
      vis[self.flex0:self.surface0] = flexgroup[np.clip(np.asarray(m.flex_group)[self.edge_flex], 0, 5)]
      vis[self.surface0:self.con0] = flexgroup[np.clip(np.asarray(m.flex_group)[self.surface_flex], 0, 5)]
    self.draw_contacts = bool(flags[VIS_CONTACTPOINT]) and self.ncon > 0
    self.draw_forces = bool(flags[VIS_CONTACTFORCE]) and self.ncon > 0
    if self.nseg:
      tgroup = np.asarray(getattr(option, "tendongroup", MjvOption().tendongroup)).astype(bool)
      self.seg_visible = tgroup[np.clip(np.asarray(m.tendon_group)[self.seg_tendon], 0, 5)] & self.draw_tendons
    # tendon and contact rows are switched on per frame, for the segments and contacts that exist
    self.vis0[:] = (self.drawable & vis).astype(np.uint8)

  def fill_frame(self, d, gsize, gbox, gvis, gxpos, gxmat):
    """Per-frame object rows from ``d``: geom and site poses, tendon segments, contact points."""
    ng, ns = self.ngeom, self.nsite
    gxpos[:ng] = d.geom_xpos
    gxmat[:ng] = d.geom_xmat
    gxpos[ng:ng + ns] = d.site_xpos
    gxmat[ng:ng + ns] = d.site_xmat
    gvis[:] = self.vis0
    if self.skins is not None:
      self._fill_skins(d, gbox, gxpos, gxmat)
    if self.draw_tendons:
      self._fill_tendons(d, gsize, gbox, gvis, gxpos, gxmat)
    if self.nflexedge:
      self._fill_flex(d, gsize, gbox, gxpos, gxmat)
    if self.nsurface:
      self._fill_surfaces(d, gbox, gxpos, gxmat)
    ncon = d.ncon
    if self.draw_forces:
      self._fill_forces(d, ncon, gsize, gbox, gvis, gxpos, gxmat)
    if self.draw_contacts:
      rows = slice(self.con0, self.con0 + ncon)
      gxpos[rows] = d.contact_pos[:ncon]
      # the cylinder's axis along the normal (the frame's first row): columns tangent1, tangent2, normal
      frame = np.asarray(d.contact_frame[:ncon]).reshape(ncon, 3, 3)
      gxmat[rows] = frame[:, [1, 2, 0], :].transpose(0, 2, 1).reshape(ncon, 9)
      gvis[rows] = self.drawable[rows]

  def _fill_skins(self, d, gbox, gxpos, gxmat):
    """Skin rows: the skinned vertices and their normals into the mesh tables, identity poses, boxes around them."""
    sk = self.skins
    vert, normal = sk.pose(d.xpos, d.xquat)
    self.tables[0][sk.vert0:] = vert
    self.mesh_normal[3 * sk.face0:, :3] = normal[sk.corner_vert]
    rows = slice(self.skin0, self.seg0)
    gxpos[rows] = 0.0
    gxmat[rows] = (1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0)
    for k in range(sk.nskin):
      v = vert[sk.vertadr[k]:sk.vertadr[k] + sk.vertnum[k]]
      lo, hi = v.min(axis=0), v.max(axis=0)
      gbox[self.skin0 + k, :3] = 0.5 * (lo + hi)
      gbox[self.skin0 + k, 3:] = 0.5 * (hi - lo) * (1 + 1e-9) + 1e-9

  def _fill_flex(self, d, gsize, gbox, gxpos, gxmat):
    """Flex edge rows: capsules between the edges' vertices (their visibility is the model's, set once)."""
    pts = np.asarray(d.flexvert_xpos).reshape(-1, 3)
    centre, xmat, half = _frames_along(pts[self.edge_vert[:, 0]], pts[self.edge_vert[:, 1]])
    rows = slice(self.flex0, self.surface0)
    _pose_capsules(rows, centre, xmat, half, self.size0[rows, 0], gxpos, gxmat, gsize, gbox)

  def _fill_surfaces(self, d, gbox, gxpos, gxmat):
    """Flex surface rows: the vertices and their normals into the mesh tables, identity poses, boxes around them."""
    sf = self.surfaces
    vert, normal = sf.pose(d.flexvert_xpos)
    self.tables[0][sf.vert0:sf.vert0 + len(vert)] = vert
    self.mesh_normal[3 * sf.face0:3 * sf.face0 + len(sf.corner_vert), :3] = normal[sf.corner_vert]
    rows = slice(self.surface0, self.con0)
    gxpos[rows] = 0.0
    gxmat[rows] = (1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0)
    m = self.model
    for k, f in enumerate(sf.flexes):
      v = vert[m.flex_vertadr[f]:m.flex_vertadr[f] + m.flex_vertnum[f]]
      lo, hi = v.min(axis=0), v.max(axis=0)
      gbox[self.surface0 + k, :3] = 0.5 * (lo + hi)
      gbox[self.surface0 + k, 3:] = 0.5 * (hi - lo) * (1 + 1e-9) + 1e-9

  def _fill_forces(self, d, ncon, gsize, gbox, gvis, gxpos, gxmat):
    from mjgym.physics import api  # pylint: disable=import-outside-toplevel
    if not ncon:
      return
    force = np.zeros((ncon, 3))
    for k in range(ncon):
      api.mj_contactForce(self.model, d, k, self._force)
      force[k] = self._force[:3]
    frame = np.asarray(d.contact_frame[:ncon]).reshape(ncon, 3, 3)
    world = np.einsum("kij,ki->kj", frame, force)  # the contact frame's rows are its axes in world coordinates
    p0 = np.asarray(d.contact_pos[:ncon])
    p1 = p0 + world * (_FORCE_SCALE / self.meanmass)
    centre, xmat, half = _frames_along(p0, p1)
    rows = slice(self.force0, self.force0 + ncon)
    width = self.size0[self.force0, 0]
    gxpos[rows] = centre
    gxmat[rows] = xmat
    gsize[rows, 1] = half
    gbox[rows, 3] = gbox[rows, 4] = width * (1 + 1e-9) + 1e-12
    gbox[rows, 5] = half * (1 + 1e-9) + 1e-12
    gvis[rows] = (self.drawable[rows] & (half > 0)).astype(np.uint8)

  def _fill_tendons(self, d, gsize, gbox, gvis, gxpos, gxmat):
    m = self.model
    pts = np.asarray(d.wrap_xpos).reshape(-1, 3)
    obj = np.asarray(d.wrap_obj).reshape(-1)
    row = self.seg0
    for t in self.spatial:
      cap = 2 * m.tendon_num[t] - 1
      adr, num = int(d.ten_wrapadr[t]), int(d.ten_wrapnum[t])
      if num >= 2:
        p = pts[adr:adr + num]
        centre, xmat, half = _frames_along(p[:-1], p[1:])
        # no segment into or out of a pulley (it splits the path into branches)
        keep = (obj[adr:adr + num - 1] != _WRAP_PULLEY) & (obj[adr + 1:adr + num] != _WRAP_PULLEY)
        k = num - 1
        rows = slice(row, row + k)
        width = max(float(m.tendon_width[t]), _TENDON_WIDTH_MIN)
        _pose_capsules(rows, centre, xmat, half, width, gxpos, gxmat, gsize, gbox)
        gvis[rows] = (keep & self.seg_visible[row - self.seg0:row - self.seg0 + k]
                      & self.drawable[rows]).astype(np.uint8)
      row += cap

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
  cid = m.name2id(ObjType.CAMERA, name)
  if cid < 0:
    raise ValueError(f"The camera '{name}' does not exist.")
  return cid
