"""Ray-casting rasterizer: numba kernels that turn one world's geoms into depth, ids and shaded pixels.

Every primitive is drawn object by object, as a rasterizer would, but inside the screen rectangle of its
bounding box each pixel intersects its ray with the exact surface (quadrics, boxes, triangles; physics.ray's
intersections, the ones mj_ray uses) instead of with a tessellation: silhouettes and depths are the analytic
ones, and the cost grows with the pixels a geom covers. Then a shading pass lights every pixel (Blinn-Phong,
MuJoCo's fixed-function look), casts shadow rays, mirrors reflective planes, and supersamples the pixels on
silhouette edges.

Rays are ``o + t d`` with ``d = R (u, v, -1)``: the parameter ``t`` of a hit is its depth along the optical
axis, which is what the depth image holds.

Layouts (flat float64 arrays, filled by scene.py):
  cam:    pos(3) xmat(9, columns = camera x right, y up, z back) focal(px) znear zfar width height
  light:  (nlight, LIGHT_SIZE) rows: directional, pos(3), dir(3), ambient(3), diffuse(3), specular(3),
          attenuation(3), cos(cutoff), exponent, castshadow, then the pixel rectangle i0 i1 j0 j1 outside which
          no shadow of this light falls on a plane (filled per frame by shadow_rects)
  gbox:   (ngeom, 6) centre(3) and half sizes(3) of the local box around each geom
  Object rows (geoms, then decor): the kernels draw the first len(gtype) rows; the other per-row arrays may be
  longer (rows past len(gtype) are not in use this frame).
  rect:   (ngeom, 8) int32 per frame: the pixel rectangle i0 i1 j0 j1 of each geom's box, then for reflective
          planes the rectangle holding the mirror images of all other geoms' boxes
  sph:    (ngeom, 5) per frame: world centre(3) and radius of the sphere around each geom's box, and the cosine
          between normal and half vector below which the geom's specular highlight is under 1/512
  tables: physics.ray's mesh and height-field tuple (skins appended as meshes, posed in world coordinates), then
          TEX_TABLE: the texture pixels, RGB float32 in [0, 1], every mipmap level of every texture back to back
  tt:     (ntex, TT_SIZE) per texture: builtin, mark, rgb1(3), rgb2(3), markrgb(3), width, type, height of a face,
          mipmap levels, faces (1 or 6), the address in the pixel table of each level, and (TT_SKY) that of a
          gradient skybox's colour table (SKY_TABLE RGB entries over the sine of the elevation; -1: none)
  gm:     (nrow, 13) per object row: rgba(4), specular, shininess, emission, reflectance, texture id, texrepeat(2),
          texuniform, whether its mesh has texture coordinates
  mesh_normal: (3 * nface, 6) per mesh face corner: smooth normal(3), texture coordinates (u, v), and the face's
          texture-coordinate units per metre
"""

import math

import numpy as np
from numba import njit
from numba import prange

from mjgym.physics import ray
from mjgym.physics.constants import BUILTIN_CHECKER
from mjgym.physics.constants import GEOM_BOX
from mjgym.physics.constants import GEOM_CAPSULE
from mjgym.physics.constants import GEOM_CYLINDER
from mjgym.physics.constants import GEOM_ELLIPSOID
from mjgym.physics.constants import GEOM_HFIELD
from mjgym.physics.constants import GEOM_MESH
from mjgym.physics.constants import GEOM_PLANE
from mjgym.physics.constants import GEOM_SPHERE
from mjgym.physics.constants import MARK_EDGE
from mjgym.physics.constants import TEXTURE_2D

LIGHT_SIZE = 26
INF = 1e30
# The pixel table's place in the tables tuple, and the layout of a texture row (see above).
TEX_TABLE = 10
MAX_LEVELS = 16
TT_SKY = 16 + MAX_LEVELS
TT_SIZE = TT_SKY + 1
# Entries of a gradient skybox's colour table over the elevation sine, -1 to 1.
SKY_TABLE = 1024

# Rotated-grid subpixel offsets for the silhouette supersampling (4 samples, no two on a row or column).
_AA_DX = (-0.375, 0.125, 0.375, -0.125)
_AA_DY = (-0.125, -0.375, 0.125, 0.375)

# Floating-point licence for the image kernels: contraction, reassociation, reciprocals and fast library calls;
# never the no-NaN/no-Inf assumptions. Pixels may differ from strict IEEE evaluation by a rounding step.
_FAST = {"nsz", "arcp", "contract", "afn", "reassoc"}

# Shadow rays start this far off the surface (m) so that a surface does not shadow itself.
_SHADOW_EPS = 1e-4

# Specular highlights dimmer than this are not computed (half a step of an 8-bit channel at full intensity).
_SPEC_MIN = 1.0 / 512.0


# ---- surfaces in geom-local coordinates (the hits come from physics.ray) ----

@njit(cache=True, fastmath=_FAST, _nrt=False)
def _local_normal(gtype, size, x, y, z):
  """Outward unit normal at a surface point, in the geom's frame."""
  if gtype == GEOM_PLANE:
    return 0.0, 0.0, 1.0
  if gtype == GEOM_SPHERE:
    nx, ny, nz = x, y, z
  elif gtype == GEOM_ELLIPSOID:
    nx, ny, nz = x / (size[0] * size[0]), y / (size[1] * size[1]), z / (size[2] * size[2])
  elif gtype == GEOM_CAPSULE:
    zc = min(max(z, -size[1]), size[1])
    nx, ny, nz = x, y, z - zc
  elif gtype == GEOM_CYLINDER:
    # the caps where the point is closer to a cap plane than to the side
    if size[1] - abs(z) < size[0] - math.sqrt(x * x + y * y):
      return 0.0, 0.0, 1.0 if z > 0 else -1.0
    nx, ny, nz = x, y, 0.0
  elif gtype == GEOM_BOX:
    ax, ay, az = abs(x) / size[0], abs(y) / size[1], abs(z) / size[2]
    if ax >= ay and ax >= az:
      return 1.0 if x > 0 else -1.0, 0.0, 0.0
    if ay >= az:
      return 0.0, 1.0 if y > 0 else -1.0, 0.0
    return 0.0, 0.0, 1.0 if z > 0 else -1.0
  else:
    return 0.0, 0.0, 1.0
  n = math.sqrt(nx * nx + ny * ny + nz * nz)
  if n == 0.0:
    return 0.0, 0.0, 1.0
  return nx / n, ny / n, nz / n


# ---- frames ----

@njit(cache=True, fastmath=_FAST, _nrt=False)
def _to_local(gxpos, gxmat, g, px, py, pz):
  """World point -> geom frame."""
  x = px - gxpos[g, 0]
  y = py - gxpos[g, 1]
  z = pz - gxpos[g, 2]
  m = gxmat[g]
  return (m[0] * x + m[3] * y + m[6] * z, m[1] * x + m[4] * y + m[7] * z, m[2] * x + m[5] * y + m[8] * z)


@njit(cache=True, fastmath=_FAST, _nrt=False)
def _dir_to_local(gxmat, g, x, y, z):
  m = gxmat[g]
  return (m[0] * x + m[3] * y + m[6] * z, m[1] * x + m[4] * y + m[7] * z, m[2] * x + m[5] * y + m[8] * z)


@njit(cache=True, fastmath=_FAST, _nrt=False)
def _dir_to_world(gxmat, g, x, y, z):
  m = gxmat[g]
  return (m[0] * x + m[1] * y + m[2] * z, m[3] * x + m[4] * y + m[5] * z, m[6] * x + m[7] * y + m[8] * z)


@njit(cache=True, fastmath=_FAST, _nrt=False)
def _pixel_dir(cam, px, py):
  """World direction of the ray through image point (px, py) (pixel units, origin top left)."""
  f = cam[12]
  u = (px - 0.5 * cam[15]) / f
  v = (0.5 * cam[16] - py) / f
  return (cam[3] * u + cam[4] * v - cam[5], cam[6] * u + cam[7] * v - cam[8], cam[9] * u + cam[10] * v - cam[11])


@njit(cache=True, fastmath=_FAST, _nrt=False)
def _screen_rect(cam, gxpos, gxmat, gbox, g, rect):
  """Pixel rectangle [i0, i1) x [j0, j1) covering geom g (whole image if its box reaches behind the camera)."""
  width = int(cam[15])
  height = int(cam[16])
  f = cam[12]
  znear = cam[13]
  imin = INF
  imax = -INF
  jmin = INF
  jmax = -INF
  behind = False
  for k in range(8):
    lx = gbox[g, 0] + (gbox[g, 3] if k & 1 else -gbox[g, 3])
    ly = gbox[g, 1] + (gbox[g, 4] if k & 2 else -gbox[g, 4])
    lz = gbox[g, 2] + (gbox[g, 5] if k & 4 else -gbox[g, 5])
    wx, wy, wz = _dir_to_world(gxmat, g, lx, ly, lz)
    wx += gxpos[g, 0] - cam[0]
    wy += gxpos[g, 1] - cam[1]
    wz += gxpos[g, 2] - cam[2]
    cx = cam[3] * wx + cam[6] * wy + cam[9] * wz
    cy = cam[4] * wx + cam[7] * wy + cam[10] * wz
    cz = cam[5] * wx + cam[8] * wy + cam[11] * wz
    if -cz < znear:
      behind = True
      break
    j = 0.5 * width + f * cx / -cz
    i = 0.5 * height - f * cy / -cz
    imin = min(imin, i)
    imax = max(imax, i)
    jmin = min(jmin, j)
    jmax = max(jmax, j)
  if behind:
    rect[g, 0] = 0
    rect[g, 1] = height
    rect[g, 2] = 0
    rect[g, 3] = width
    return
  rect[g, 0] = max(0, int(math.floor(imin)))
  rect[g, 1] = min(height, int(math.floor(imax)) + 1)
  rect[g, 2] = max(0, int(math.floor(jmin)))
  rect[g, 3] = min(width, int(math.floor(jmax)) + 1)


# ---- visibility ----

@njit(cache=True, fastmath=_FAST, _nrt=False, inline="always")
def _hit_local(tables, gt, size, dataid, ox, oy, oz, dx, dy, dz, tmin, tmax):
  """Nearest hit (t, element) in [tmin, tmax) of the local ray o + t d with a geom of type gt, t = tmax if none;
  the element is physics.ray.ray_local's (mesh face, height-field code, or -1). Planes show both faces."""
  t, k = ray.ray_local(tables, gt, size, dataid, (ox, oy, oz), (dx, dy, dz), tmin, True)
  if t >= 0.0 and t < tmax:
    return t, k
  return tmax, -1


@njit(cache=True, fastmath=_FAST, _nrt=False)
def visibility(cam, gtype, gsize, gbox, gvis, gxpos, gxmat, gdataid, tables, rect, depth, gid, elem):
  """Z-buffer pass: depth (along the optical axis), geom id and mesh face of the nearest surface per pixel."""
  height, width = depth.shape
  znear, zfar = cam[13], cam[14]
  for i in range(height):
    for j in range(width):
      depth[i, j] = zfar
      gid[i, j] = -1
      elem[i, j] = -1
  for g in range(gtype.shape[0]):
    if not gvis[g]:
      rect[g, 0] = rect[g, 1] = rect[g, 2] = rect[g, 3] = 0
      continue
    _screen_rect(cam, gxpos, gxmat, gbox, g, rect)
    ox, oy, oz = _to_local(gxpos, gxmat, g, cam[0], cam[1], cam[2])
    # the local ray direction is linear in the pixel coordinates: d = a + u b + v c
    bx, by, bz = _dir_to_local(gxmat, g, cam[3], cam[6], cam[9])
    cx, cy, cz = _dir_to_local(gxmat, g, cam[4], cam[7], cam[10])
    ax, ay, az = _dir_to_local(gxmat, g, -cam[5], -cam[8], -cam[11])
    f = cam[12]
    gt = gtype[g]
    size = gsize[g]
    dataid = gdataid[g]
    for i in range(rect[g, 0], rect[g, 1]):
      v = (0.5 * height - i - 0.5) / f
      for j in range(rect[g, 2], rect[g, 3]):
        u = (j + 0.5 - 0.5 * width) / f
        dx = ax + u * bx + v * cx
        dy = ay + u * by + v * cy
        dz = az + u * bz + v * cz
        t, k = _hit_local(tables, gt, size, dataid, ox, oy, oz, dx, dy, dz, znear, depth[i, j])
        if t < depth[i, j]:
          depth[i, j] = t
          gid[i, j] = g
          elem[i, j] = k


@njit(cache=True, fastmath=_FAST, _nrt=False)
def _trace(cam, gtype, gsize, gvis, gxpos, gxmat, gdataid, tables, rect, i, j, px, py, tmin, skip):
  """Nearest surface (t, geom, element) beyond tmin along the ray through image point (px, py), among geoms but
  skip whose rectangle holds (i, j)."""
  dwx, dwy, dwz = _pixel_dir(cam, px, py)
  best = cam[14]
  best_g = -1
  best_e = -1
  for g in range(gtype.shape[0]):
    if g == skip or not gvis[g] or i < rect[g, 0] or i >= rect[g, 1] or j < rect[g, 2] or j >= rect[g, 3]:
      continue
    t, k = _hit_geom(gtype, gsize, gdataid, tables, gxpos, gxmat, g, cam[0], cam[1], cam[2], dwx, dwy, dwz, tmin, best)
    if t < best:
      best, best_g, best_e = t, g, k
  return best, best_g, best_e


@njit(cache=True, fastmath=_FAST, _nrt=False)
def bounding_spheres(ndraw, gbox, gm, gxpos, gxmat, sph):
  """sph (see the layouts above) for one frame, for the first ndraw rows."""
  for g in range(ndraw):
    cx, cy, cz = _dir_to_world(gxmat, g, gbox[g, 0], gbox[g, 1], gbox[g, 2])
    sph[g, 0] = cx + gxpos[g, 0]
    sph[g, 1] = cy + gxpos[g, 1]
    sph[g, 2] = cz + gxpos[g, 2]
    sph[g, 3] = math.sqrt(gbox[g, 3] ** 2 + gbox[g, 4] ** 2 + gbox[g, 5] ** 2)
    # spec * cos^shininess < _SPEC_MIN below this cosine
    spec = gm[g, 4]
    sph[g, 4] = math.exp(math.log(_SPEC_MIN / spec) / max(gm[g, 5] * 128.0, 1.0)) if spec > _SPEC_MIN else 2.0


@njit(cache=True, fastmath=_FAST, _nrt=False)
def _grow_rect(cam, wx, wy, wz, i0, i1, j0, j1):
  """The image rectangle [i0, i1] x [j0, j1] (pixel units, floats) grown by the image of world point w, and
  False instead when w is at or behind the near plane (the rectangle is then the whole image)."""
  x, y, z = wx - cam[0], wy - cam[1], wz - cam[2]
  cx = cam[3] * x + cam[6] * y + cam[9] * z
  cy = cam[4] * x + cam[7] * y + cam[10] * z
  cz = cam[5] * x + cam[8] * y + cam[11] * z
  if -cz < cam[13]:
    return False, i0, i1, j0, j1
  j = 0.5 * cam[15] + cam[12] * cx / -cz
  i = 0.5 * cam[16] - cam[12] * cy / -cz
  return True, min(i0, i), max(i1, i), min(j0, j), max(j1, j)


@njit(cache=True, fastmath=_FAST, _nrt=False)
def _box_corner(gbox, gxpos, gxmat, g, k):
  """World position of corner k (0..7) of geom g's box."""
  lx = gbox[g, 0] + (gbox[g, 3] if k & 1 else -gbox[g, 3])
  ly = gbox[g, 1] + (gbox[g, 4] if k & 2 else -gbox[g, 4])
  lz = gbox[g, 2] + (gbox[g, 5] if k & 4 else -gbox[g, 5])
  wx, wy, wz = _dir_to_world(gxmat, g, lx, ly, lz)
  return wx + gxpos[g, 0], wy + gxpos[g, 1], wz + gxpos[g, 2]


@njit(cache=True, fastmath=_FAST, _nrt=False)
def _store_rect(cam, i0, i1, j0, j1, full, out, col):
  """Writes the pixel rectangle covering [i0, i1] x [j0, j1] (the whole image when full) to out[col:col + 4]."""
  if full:
    out[col], out[col + 1], out[col + 2], out[col + 3] = 0, int(cam[16]), 0, int(cam[15])
  elif i0 > i1:
    out[col] = out[col + 1] = out[col + 2] = out[col + 3] = 0
  else:
    out[col] = max(0, int(math.floor(max(i0, -1.0))))
    out[col + 1] = min(int(cam[16]), int(math.floor(min(i1, cam[16]))) + 1)
    out[col + 2] = max(0, int(math.floor(max(j0, -1.0))))
    out[col + 3] = min(int(cam[15]), int(math.floor(min(j1, cam[15]))) + 1)


@njit(cache=True, fastmath=_FAST, _nrt=False)
def mirror_rects(cam, gtype, gbox, gvis, gm, gxpos, gxmat, rect):
  """rect[:, 4:8]: for each visible reflective plane, the pixels where mirror images of other geoms can show."""
  for g in range(gtype.shape[0]):
    rect[g, 4] = rect[g, 5] = rect[g, 6] = rect[g, 7] = 0
    if not gvis[g] or gtype[g] != GEOM_PLANE or gm[g, 7] <= 0:
      continue
    nx, ny, nz = gxmat[g, 2], gxmat[g, 5], gxmat[g, 8]
    i0 = j0 = INF
    i1 = j1 = -INF
    full = False
    for h in range(gtype.shape[0]):
      if h == g or not gvis[h] or gtype[h] == GEOM_PLANE or full:
        continue
      for k in range(8):
        wx, wy, wz = _box_corner(gbox, gxpos, gxmat, h, k)
        s = 2 * ((wx - gxpos[g, 0]) * nx + (wy - gxpos[g, 1]) * ny + (wz - gxpos[g, 2]) * nz)
        ok, i0, i1, j0, j1 = _grow_rect(cam, wx - s * nx, wy - s * ny, wz - s * nz, i0, i1, j0, j1)
        if not ok:
          full = True
          break
    _store_rect(cam, i0, i1, j0, j1, full, rect[g], 4)


@njit(cache=True, fastmath=_FAST, _nrt=False)
def shadow_rects(cam, gtype, gbox, gvis, gxpos, gxmat, light):
  """light[:, 22:26]: pixels outside which no shadow of the light falls on any visible plane: the image of every
  geom box projected onto every plane from the light (along its direction when directional)."""
  for k in range(light.shape[0]):
    i0 = j0 = INF
    i1 = j1 = -INF
    full = False
    if light[k, 21] <= 0:
      continue
    for p in range(gtype.shape[0]):
      if full or not gvis[p] or gtype[p] != GEOM_PLANE:
        continue
      nx, ny, nz = gxmat[p, 2], gxmat[p, 5], gxmat[p, 8]
      # the plane: n . x = c
      c = nx * gxpos[p, 0] + ny * gxpos[p, 1] + nz * gxpos[p, 2]
      for h in range(gtype.shape[0]):
        if full or h == p or not gvis[h] or gtype[h] == GEOM_PLANE:
          continue
        for q in range(8):
          wx, wy, wz = _box_corner(gbox, gxpos, gxmat, h, q)
          if light[k, 0] > 0:
            # parallel projection along the light: affine, so the box's shadow lies in its corners' hull
            lx, ly, lz = light[k, 4], light[k, 5], light[k, 6]
          else:
            # central projection from the light: only safe when the whole box lies between light and plane side
            lx, ly, lz = wx - light[k, 1], wy - light[k, 2], wz - light[k, 3]
            side = nx * light[k, 1] + ny * light[k, 2] + nz * light[k, 3] - c
            if side * (nx * wx + ny * wy + nz * wz - c) <= 0 or abs(nx * wx + ny * wy + nz * wz - c) >= abs(side):
              full = True
              break
          ln = nx * lx + ny * ly + nz * lz
          if abs(ln) < 1e-9:
            full = True
            break
          s = (c - nx * wx - ny * wy - nz * wz) / ln
          ok, i0, i1, j0, j1 = _grow_rect(cam, wx + s * lx, wy + s * ly, wz + s * lz, i0, i1, j0, j1)
          if not ok:
            full = True
            break
    _store_rect(cam, i0, i1, j0, j1, full, light[k], 22)


@njit(cache=True, fastmath=_FAST, _nrt=False)
def _sphere_missed(sph, g, px, py, pz, lx, ly, lz):
  """Whether the ray p + t l (t > 0, l a unit vector) surely misses geom g's bounding sphere."""
  cx = sph[g, 0] - px
  cy = sph[g, 1] - py
  cz = sph[g, 2] - pz
  r = sph[g, 3]
  tc = cx * lx + cy * ly + cz * lz
  if tc < -r:
    return True
  return cx * cx + cy * cy + cz * cz - tc * tc > r * r


@njit(cache=True, fastmath=_FAST, _nrt=False, inline="always")
def _hit_geom(gtype, gsize, gdataid, tables, gxpos, gxmat, g, px, py, pz, lx, ly, lz, tmin, tmax):
  """Nearest hit (t, element) of geom g along the world ray p + t l in [tmin, tmax), as _hit_local."""
  ox, oy, oz = _to_local(gxpos, gxmat, g, px, py, pz)
  dx, dy, dz = _dir_to_local(gxmat, g, lx, ly, lz)
  return _hit_local(tables, gtype[g], gsize[g], gdataid[g], ox, oy, oz, dx, dy, dz, tmin, tmax)


@njit(cache=True, fastmath=_FAST, _nrt=False)
def _occluded(gtype, gsize, gvis, gdataid, tables, gxpos, gxmat, sph, skip, px, py, pz, lx, ly, lz, tmax):
  """Whether the segment p + t l, 0 < t < tmax (l a unit vector) hits any visible non-plane geom but skip."""
  for g in range(gtype.shape[0]):
    if g == skip or not gvis[g] or gtype[g] == GEOM_PLANE:
      continue
    # bounding sphere first: most geoms are nowhere near the ray
    if _sphere_missed(sph, g, px, py, pz, lx, ly, lz):
      continue
    t, _ = _hit_geom(gtype, gsize, gdataid, tables, gxpos, gxmat, g, px, py, pz, lx, ly, lz, 0.0, tmax)
    if t < tmax:
      return True
  return False


# ---- shading ----

@njit(cache=True, fastmath=_FAST, _nrt=False)
def _filtered_square(x, w):
  """The square wave +1 on [0, .5), -1 on [.5, 1) averaged over [x - w/2, x + w/2]: checkers without aliasing."""
  if w < 1e-6:
    return 1.0 if x - math.floor(x) < 0.5 else -1.0
  w = min(w, 1.0)
  a = x - 0.5 * w
  b = x + 0.5 * w
  # the integral of the square wave is the triangle wave 0.5 - |frac(x) - 0.5|
  ia = 0.5 - abs(a - math.floor(a) - 0.5)
  ib = 0.5 - abs(b - math.floor(b) - 0.5)
  return (ib - ia) / w

@njit(cache=True, fastmath=_FAST, _nrt=False)
def _checker(s, t, w, tt, tex):
  """MuJoCo's checker builtin (2x2 squares per texture repeat), box-filtered over the pixel footprint."""
  q = _filtered_square(s, w) * _filtered_square(t, w)
  # q = +1 where s and t fall on the same half (rgb1 there, as in MuJoCo's tex_data), -1 elsewhere (rgb2)
  a = 0.5 + 0.5 * q
  return (a * tt[tex, 2] + (1 - a) * tt[tex, 5], a * tt[tex, 3] + (1 - a) * tt[tex, 6],
          a * tt[tex, 4] + (1 - a) * tt[tex, 7])


@njit(cache=True, fastmath=_FAST, _nrt=False)
def _marked_checker(tt, tex, s, t, w):
  """MuJoCo's checker builtin at texture coordinates (s, t), w the pixel footprint in (s, t): the squares, and the
  edge mark (a line one texel wide along the texture's border, faded out when thinner than a pixel)."""
  r, g, b = _checker(s, t, w, tt, tex)
  if int(tt[tex, 1]) == MARK_EDGE and tt[tex, 11] > 0:
    texel = 1.0 / tt[tex, 11]
    fs = s - math.floor(s)
    ft = t - math.floor(t)
    if min(fs, 1 - fs, ft, 1 - ft) < texel:
      a = min(1.0, texel / max(w, 1e-9))
      r = (1 - a) * r + a * tt[tex, 8]
      g = (1 - a) * g + a * tt[tex, 9]
      b = (1 - a) * b + a * tt[tex, 10]
  return r, g, b


@njit(cache=True, fastmath=_FAST, _nrt=False)
def _texel_bilinear(pix, adr, w, h, face, x, y, wrap):
  """Bilinear RGB of one mipmap level at texel coordinates (x, y) (texel centres at half integers): repeated
  beyond the edges when wrap, else clamped to them (cube faces)."""
  x -= 0.5
  y -= 0.5
  fx0 = math.floor(x)
  fy0 = math.floor(y)
  ax = x - fx0
  ay = y - fy0
  if wrap:
    i0 = int(fx0 - w * math.floor(fx0 / w))
    j0 = int(fy0 - h * math.floor(fy0 / h))
    i1 = i0 + 1 if i0 + 1 < w else 0
    j1 = j0 + 1 if j0 + 1 < h else 0
  else:
    i0 = min(max(int(fx0), 0), w - 1)
    j0 = min(max(int(fy0), 0), h - 1)
    i1 = min(max(int(fx0) + 1, 0), w - 1)
    j1 = min(max(int(fy0) + 1, 0), h - 1)
  base = adr + face * w * h * 3
  p00 = base + (j0 * w + i0) * 3
  p10 = base + (j0 * w + i1) * 3
  p01 = base + (j1 * w + i0) * 3
  p11 = base + (j1 * w + i1) * 3
  w00 = (1 - ax) * (1 - ay)
  w10 = ax * (1 - ay)
  w01 = (1 - ax) * ay
  w11 = ax * ay
  return (w00 * pix[p00] + w10 * pix[p10] + w01 * pix[p01] + w11 * pix[p11],
          w00 * pix[p00 + 1] + w10 * pix[p10 + 1] + w01 * pix[p01 + 1] + w11 * pix[p11 + 1],
          w00 * pix[p00 + 2] + w10 * pix[p10 + 2] + w01 * pix[p01 + 2] + w11 * pix[p11 + 2])


@njit(cache=True, fastmath=_FAST, _nrt=False)
def _sample(pix, tt, tex, face, s, t, texels, wrap):
  """Texture tex at (s, t) (0..1 across the image, t down its rows) of one face: bilinear in the mipmap level
  nearest the pixel's footprint (OpenGL's LINEAR_MIPMAP_NEAREST), texels the footprint in level-0 texels. White
  for an empty texture."""
  nlev = int(tt[tex, 14])
  if nlev == 0:
    return 1.0, 1.0, 1.0
  if int(tt[tex, 15]) == 1:
    face = 0
  level = 0
  if texels > 1.414:
    level = min(int(math.log2(texels) + 0.5), nlev - 1)
  w = max(1, int(tt[tex, 11]) >> level)
  h = max(1, int(tt[tex, 13]) >> level)
  return _texel_bilinear(pix, int(tt[tex, 16 + level]), w, h, face, s * w, t * h, wrap)


@njit(cache=True, fastmath=_FAST, _nrt=False)
def _cube_face(rx, ry, rz):
  """OpenGL's cube-map lookup of direction r: (face +x -x +y -y +z -z as 0..5, s, t), s and t in 0..1."""
  ax, ay, az = abs(rx), abs(ry), abs(rz)
  if ax >= ay and ax >= az:
    if ax == 0.0:
      return 4, 0.5, 0.5
    face, sc, tc, ma = (0, -rz, -ry, ax) if rx > 0 else (1, rz, -ry, ax)
  elif ay >= az:
    face, sc, tc, ma = (2, rx, rz, ay) if ry > 0 else (3, rx, -rz, ay)
  else:
    face, sc, tc, ma = (4, rx, -ry, az) if rz > 0 else (5, -rx, -ry, az)
  return face, 0.5 * (sc / ma + 1.0), 0.5 * (tc / ma + 1.0)


@njit(cache=True, fastmath=_FAST, _nrt=False)
def _drawn_size(gt, size, k):
  """Half size along local axis k of the unit shape MuJoCo scales to draw a primitive (its object coordinates)."""
  if gt == GEOM_SPHERE:
    return size[0]
  if gt == GEOM_CAPSULE or gt == GEOM_CYLINDER:
    return size[0] if k < 2 else size[1]
  return size[k] if size[k] > 0 else 1.0


@njit(cache=True, fastmath=_FAST, _nrt=False)
def _plane_map(gm, g, size):
  """MuJoCo's texture coordinates on plane g: s = k0 x + c0, t = c1 - k1 y; (k0, c0, k1, c1). A finite plane shows
  the image texrepeat times across (texuniform: texrepeat times its half size), its first row at +y; an infinite
  one repeats it texrepeat times every 2 m."""
  rep0, rep1 = gm[g, 9], gm[g, 10]
  uniform = gm[g, 11] != 0
  if size[0] > 0:
    k0 = rep0 * (size[0] if uniform else 1.0) / (2 * size[0])
    c0 = k0 * size[0]
  else:
    k0 = 0.5 * rep0
    c0 = -0.5
  if size[1] > 0:
    k1 = rep1 * (size[1] if uniform else 1.0) / (2 * size[1])
    c1 = k1 * size[1]
  else:
    k1 = 0.5 * rep1
    c1 = -0.5
  return k0, c0, k1, c1


@njit(cache=True, fastmath=_FAST, _nrt=False)
def _builtin_uv(gt, size, lx, ly, lz):
  """Texture coordinates (u, v) MuJoCo's renderer gives the shapes it draws itself, at local point l, and the
  texture units per metre there: a box's faces each the whole image, spheres and ellipsoids by longitude and
  latitude, a cylinder's side by angle and height and its caps as disks, a capsule's caps by latitude."""
  if gt == GEOM_BOX:
    x, y, z = lx / size[0], ly / size[1], lz / size[2]
    ax, ay, az = abs(x), abs(y), abs(z)
    if az >= ax and az >= ay:
      return 0.5 * (x + 1), 0.5 * (1 - y), 0.5 / min(size[0], size[1])
    if ax >= ay:
      return 0.5 * (y + 1), 0.5 * (1 - z), 0.5 / min(size[1], size[2])
    return 0.5 * (x + 1), 0.5 * (1 - z), 0.5 / min(size[0], size[2])
  if gt == GEOM_SPHERE or gt == GEOM_ELLIPSOID:
    r0 = size[0]
    r1 = size[0] if gt == GEOM_SPHERE else size[1]
    r2 = size[0] if gt == GEOM_SPHERE else size[2]
    x, y, z = lx / r0, ly / r1, lz / r2
    n = math.sqrt(x * x + y * y + z * z)
    az = math.atan2(y, x)
    el = math.asin(min(max(z / n, -1.0), 1.0)) if n > 0 else 0.0
    return (az / (2 * math.pi)) % 1.0, 0.5 - el / math.pi, 1.0 / (math.pi * min(r0, r1, r2))
  r, h = size[0], size[1]
  az = (math.atan2(ly, lx) / (2 * math.pi)) % 1.0
  if gt == GEOM_CYLINDER:
    if h - abs(lz) < r - math.sqrt(lx * lx + ly * ly):
      return 0.5 + 0.5 * lx / r, 0.5 + 0.5 * ly / r, 0.5 / r
    return az, 0.5 * (1 - lz / h), 1.0 / (math.pi * min(r, h))
  # capsule: the side as a cylinder's, each cap by latitude from its rim (v 1 at the top rim to 0 at the top
  # pole; 0 at the bottom rim to 1 at the bottom pole)
  if abs(lz) <= h:
    return az, 0.5 * (1 - lz / h), 1.0 / (math.pi * min(r, h) if h > 0 else math.pi * r)
  zc = lz - h if lz > 0 else lz + h
  n = math.sqrt(lx * lx + ly * ly + zc * zc)
  el = math.asin(min(max(abs(zc) / n, -1.0), 1.0)) if n > 0 else 0.0
  v = 1.0 - 2 * el / math.pi if lz > 0 else 2 * el / math.pi
  return az, v, 1.0 / (math.pi * r)


@njit(cache=True, fastmath=_FAST, _nrt=False)
def _tex_color(pix, tt, gm, g, tex, gt, size, lx, ly, lz, hasuv, tu, tv, uvscale, footprint):
  """Colour of texture tex on row g at local point l, as MuJoCo's renderer maps it: 2d textures by the plane's
  grid, a mesh's texture coordinates (projected along z without), the texture coordinates of MuJoCo's drawn
  shapes (_builtin_uv); cube textures by the direction of l in the drawn shape's coordinates. footprint: the
  pixel's size on the surface (m)."""
  rep0, rep1 = gm[g, 9], gm[g, 10]
  uniform = gm[g, 11] != 0
  if tt[tex, 12] == TEXTURE_2D:
    if gt == GEOM_PLANE:
      k0, c0, k1, c1 = _plane_map(gm, g, size)
      s = k0 * lx + c0
      t = c1 - k1 * ly
      scale = max(abs(k0), abs(k1))
    elif hasuv:
      k0 = rep0 if rep0 > 0 else 1.0
      k1 = rep1 if rep1 > 0 else 1.0
      s = tu * k0
      t = tv * k1
      scale = uvscale * max(k0, k1)
    elif gt == GEOM_MESH or gt == GEOM_HFIELD:
      # no texture coordinates: projected along z, one repeat per 2 m
      s = 0.5 * rep0 * lx - 0.5
      t = -0.5 * rep1 * ly - 0.5
      scale = 0.5 * max(abs(rep0), abs(rep1))
    else:
      u, v, uvscale = _builtin_uv(gt, size, lx, ly, lz)
      k0 = (rep0 if rep0 > 0 else 1.0) * (size[0] if uniform and size[0] > 0 else 1.0)
      k1 = (rep1 if rep1 > 0 else 1.0) * (size[1] if uniform and size[1] > 0 else 1.0)
      s = u * k0
      t = v * k1
      scale = uvscale * max(k0, k1)
    if int(tt[tex, 0]) == BUILTIN_CHECKER:
      return _marked_checker(tt, tex, s, t, footprint * scale)
    return _sample(pix, tt, tex, 0, s, t, footprint * scale * max(tt[tex, 11], tt[tex, 13]), True)
  # cube textures
  if gt == GEOM_MESH or gt == GEOM_HFIELD or uniform:
    rx, ry, rz = lx, ly, lz
    extent = max(abs(lx), abs(ly), abs(lz))
  else:
    s0, s1, s2 = _drawn_size(gt, size, 0), _drawn_size(gt, size, 1), _drawn_size(gt, size, 2)
    rx, ry, rz = lx / s0, ly / s1, lz / s2
    extent = min(s0, s1, s2)
  face, s, t = _cube_face(rx, ry, rz)
  return _sample(pix, tt, tex, face, s, t, footprint * tt[tex, 11] / max(2 * extent, 1e-9), False)


@njit(cache=True, fastmath=_FAST, _nrt=False)
def sky_color(pix, tt, sky, dx, dy, dz, f):
  """Background along a world direction d: the first skybox texture (MuJoCo's cube mapping with z up: lookup
  direction (x, z, -y)), else black; f is the focal length (px) that sets the footprint of a pixel."""
  if sky < 0:
    return 0.0, 0.0, 0.0
  adr = int(tt[sky, TT_SKY])
  if adr >= 0:
    # a gradient skybox: a function of the elevation only, interpolated in its colour table
    x = (dz / math.sqrt(dx * dx + dy * dy + dz * dz) + 1.0) * (0.5 * (SKY_TABLE - 1))
    k = min(max(int(x), 0), SKY_TABLE - 2)
    a = min(max(x - k, 0.0), 1.0)
    p = adr + 3 * k
    return ((1 - a) * pix[p] + a * pix[p + 3], (1 - a) * pix[p + 1] + a * pix[p + 4],
            (1 - a) * pix[p + 2] + a * pix[p + 5])
  face, s, t = _cube_face(dx, dz, -dy)
  # a face spans 90 degrees: about width / 2 texels per radian at its centre
  return _sample(pix, tt, sky, face, s, t, 0.5 * tt[sky, 11] / f, False)


@njit(cache=True, fastmath=_FAST, _nrt=False)
def _smooth_normal(tables, mesh_normal, meshid, e, ox, oy, oz, dx, dy, dz):
  """Where the ray o + t d meets face e of mesh meshid: its unit normal (local, the corner normals blended), its
  texture coordinates (u, v) and the face's texture-coordinate units per metre."""
  _, u, v = ray.mesh_triangle(tables, meshid, e, (ox, oy, oz), (dx, dy, dz))
  w0 = 1 - u - v
  a, b, c = 3 * e, 3 * e + 1, 3 * e + 2
  nx = w0 * mesh_normal[a, 0] + u * mesh_normal[b, 0] + v * mesh_normal[c, 0]
  ny = w0 * mesh_normal[a, 1] + u * mesh_normal[b, 1] + v * mesh_normal[c, 1]
  nz = w0 * mesh_normal[a, 2] + u * mesh_normal[b, 2] + v * mesh_normal[c, 2]
  tu = w0 * mesh_normal[a, 3] + u * mesh_normal[b, 3] + v * mesh_normal[c, 3]
  tv = w0 * mesh_normal[a, 4] + u * mesh_normal[b, 4] + v * mesh_normal[c, 4]
  nn = math.sqrt(nx * nx + ny * ny + nz * nz)
  if nn > 0:
    return nx / nn, ny / nn, nz / nn, tu, tv, mesh_normal[a, 5]
  return nx, ny, nz, tu, tv, mesh_normal[a, 5]


@njit(cache=True, fastmath=_FAST, _nrt=False)
def _surface(gtype, gsize, gdataid, tables, mesh_normal, gm, tt, gxpos, gxmat, g, e, wx, wy, wz, dx, dy, dz, footprint):
  """Normal (world) and base colour of geom g at world point w seen along d."""
  lx, ly, lz = _to_local(gxpos, gxmat, g, wx, wy, wz)
  gt = gtype[g]
  tu = tv = uvscale = 0.0
  if gt == GEOM_MESH:
    ox, oy, oz = _to_local(gxpos, gxmat, g, wx - dx, wy - dy, wz - dz)
    ddx, ddy, ddz = _dir_to_local(gxmat, g, dx, dy, dz)
    nx, ny, nz, tu, tv, uvscale = _smooth_normal(tables, mesh_normal, gdataid[g], e, ox, oy, oz, ddx, ddy, ddz)
  elif gt == GEOM_HFIELD:
    nx, ny, nz = ray.hfield_normal(tables, gdataid[g], e)
  else:
    nx, ny, nz = _local_normal(gt, gsize[g], lx, ly, lz)
  nx, ny, nz = _dir_to_world(gxmat, g, nx, ny, nz)
  # two-sided: light the face the camera sees
  if nx * dx + ny * dy + nz * dz > 0:
    nx, ny, nz = -nx, -ny, -nz
  r, gg, b = gm[g, 0], gm[g, 1], gm[g, 2]
  tex = int(gm[g, 8])
  if tex >= 0:
    tr, tg, tb = _tex_color(tables[TEX_TABLE], tt, gm, g, tex, gt, gsize[g], lx, ly, lz, gm[g, 12] > 0, tu, tv, uvscale,
                            footprint)
    r, gg, b = r * tr, gg * tg, b * tb
  return nx, ny, nz, r, gg, b


@njit(cache=True, fastmath=_FAST, _nrt=False, inline="always")
def _illuminate(gtype, gsize, gvis, gdataid, tables, gxpos, gxmat, sph, light, gm, g, nx, ny, nz, r, gg, b, wx, wy, wz,
                vx, vy, vz, shadows, i, j):
  """Lit colour of geom g at world point w (Blinn-Phong with MuJoCo's light model).

  n: unit world normal facing the viewer; (r, gg, b): base colour; v: unit direction to the viewer; (i, j): the
  pixel (or -1) for skipping shadow rays on planes outside a light's shadow rectangle.
  """
  on_plane = i >= 0 and gtype[g] == GEOM_PLANE
  thr2 = sph[g, 4] * sph[g, 4]
  spec = gm[g, 4]
  shininess = max(gm[g, 5] * 128.0, 1.0)
  emission = gm[g, 6]
  cr = emission * r
  cg = emission * gg
  cb = emission * b
  for k in range(light.shape[0]):
    if light[k, 0] > 0:
      lx, ly, lz = -light[k, 4], -light[k, 5], -light[k, 6]
      dist = INF
      atten = 1.0
    else:
      lx, ly, lz = light[k, 1] - wx, light[k, 2] - wy, light[k, 3] - wz
      dist = math.sqrt(lx * lx + ly * ly + lz * lz)
      lx, ly, lz = lx / dist, ly / dist, lz / dist
      atten = 1.0 / max(light[k, 16] + light[k, 17] * dist + light[k, 18] * dist * dist, 1e-9)
      # spot cone: cos of the angle between the light's axis and the way to the point
      cosang = -(lx * light[k, 4] + ly * light[k, 5] + lz * light[k, 6])
      if cosang < light[k, 19]:
        atten = 0.0
      elif light[k, 20] > 0:
        atten *= math.exp(light[k, 20] * math.log(max(cosang, 1e-12)))
    if atten == 0.0:
      continue
    cr += atten * light[k, 7] * r
    cg += atten * light[k, 8] * gg
    cb += atten * light[k, 9] * b
    ndl = nx * lx + ny * ly + nz * lz
    if ndl <= 0:
      continue
    if shadows and light[k, 21] > 0 and not (
        on_plane and (i < light[k, 22] or i >= light[k, 23] or j < light[k, 24] or j >= light[k, 25])):
      if _occluded(gtype, gsize, gvis, gdataid, tables, gxpos, gxmat, sph, g, wx + _SHADOW_EPS * nx,
                   wy + _SHADOW_EPS * ny, wz + _SHADOW_EPS * nz, lx, ly, lz, dist):
        continue
    cr += atten * light[k, 10] * r * ndl
    cg += atten * light[k, 11] * gg * ndl
    cb += atten * light[k, 12] * b * ndl
    if light[k, 13] + light[k, 14] + light[k, 15] > 0:
      hx, hy, hz = lx + vx, ly + vy, lz + vz
      nh = nx * hx + ny * hy + nz * hz
      hh = hx * hx + hy * hy + hz * hz
      # cheap test first: is the half-vector cosine above the geom's highlight threshold?
      if nh > 0 and nh * nh > thr2 * hh:
        s = spec * math.exp(shininess * math.log(nh / math.sqrt(hh)))
        cr += atten * light[k, 13] * s
        cg += atten * light[k, 14] * s
        cb += atten * light[k, 15] * s
  return min(cr, 1.0), min(cg, 1.0), min(cb, 1.0)


@njit(cache=True, fastmath=_FAST, _nrt=False)
def _shade_point(gtype, gsize, gvis, gdataid, tables, mesh_normal, gm, tt, gxpos, gxmat, sph, light, g, e, wx, wy, wz,
                 dx, dy, dz, footprint, shadows):
  """Lit colour of geom g (mesh face e) at world point w seen along d."""
  nx, ny, nz, r, gg, b = _surface(gtype, gsize, gdataid, tables, mesh_normal, gm, tt, gxpos, gxmat, g, e, wx, wy, wz,
                                  dx, dy, dz, footprint)
  dn = math.sqrt(dx * dx + dy * dy + dz * dz)
  return _illuminate(gtype, gsize, gvis, gdataid, tables, gxpos, gxmat, sph, light, gm, g, nx, ny, nz, r, gg, b, wx, wy,
                     wz, -dx / dn, -dy / dn, -dz / dn, shadows, -1, -1)


@njit(cache=True, fastmath=_FAST, _nrt=False)
def _mirror(gtype, gsize, gvis, gdataid, tables, mesh_normal, gm, tt, gxpos, gxmat, sph, light, g, wx, wy, wz, dx, dy,
            dz, footprint):
  """What reflective plane g mirrors at w for the view ray d: (found, colour) of the nearest other non-plane geom
  along the mirrored ray, lit without shadows."""
  nx, ny, nz = gxmat[g, 2], gxmat[g, 5], gxmat[g, 8]
  dn = dx * nx + dy * ny + dz * nz
  rx, ry, rz = dx - 2 * dn * nx, dy - 2 * dn * ny, dz - 2 * dn * nz
  rn = math.sqrt(rx * rx + ry * ry + rz * rz)
  rx, ry, rz = rx / rn, ry / rn, rz / rn
  best = INF
  best_g = -1
  best_e = -1
  for h in range(gtype.shape[0]):
    if h == g or not gvis[h] or gtype[h] == GEOM_PLANE or _sphere_missed(sph, h, wx, wy, wz, rx, ry, rz):
      continue
    t, k = _hit_geom(gtype, gsize, gdataid, tables, gxpos, gxmat, h, wx, wy, wz, rx, ry, rz, 1e-6, best)
    if t < best:
      best, best_g, best_e = t, h, k
  if best_g < 0:
    return False, 0.0, 0.0, 0.0
  r, gg, b = _shade_point(gtype, gsize, gvis, gdataid, tables, mesh_normal, gm, tt, gxpos, gxmat, sph, light, best_g,
                          best_e, wx + best * rx, wy + best * ry, wz + best * rz, rx, ry, rz, footprint, False)
  return True, r, gg, b


@njit(cache=True, fastmath=_FAST, _nrt=False)
def _plane_footprint(cam, gxmat, g, t, dx, dy, dz):
  """Pixel footprint (m) on plane g at depth t along d: distance over focal length, over the grazing cosine."""
  cosg = abs(gxmat[g, 2] * dx + gxmat[g, 5] * dy + gxmat[g, 8] * dz) / math.sqrt(dx * dx + dy * dy + dz * dz)
  return t / cam[12] / max(cosg, 0.05)


@njit(cache=True, fastmath=_FAST, _nrt=False)
def _shade_sample(gtype, gsize, gvis, gdataid, tables, mesh_normal, gm, tt, cam, gxpos, gxmat, sph, light, opts, sky, g,
                  e, t, px, py):
  """Final colour of one camera sample (the general path, for supersampling): sky, or the lit surface plus its
  mirror image on reflective planes. The per-pixel passes below compute the same colours faster."""
  dx, dy, dz = _pixel_dir(cam, px, py)
  if g < 0:
    return sky_color(tables[TEX_TABLE], tt, sky, dx, dy, dz, cam[12])
  wx, wy, wz = cam[0] + t * dx, cam[1] + t * dy, cam[2] + t * dz
  plane = gtype[g] == GEOM_PLANE
  footprint = _plane_footprint(cam, gxmat, g, t, dx, dy, dz) if plane else t / cam[12]
  r, gg, b = _shade_point(gtype, gsize, gvis, gdataid, tables, mesh_normal, gm, tt, gxpos, gxmat, sph, light, g, e, wx,
                          wy, wz, dx, dy, dz, footprint, opts[1] > 0)
  refl = gm[g, 7]
  if refl > 0 and opts[3] > 0 and plane:
    found, rr, rg, rb = _mirror(gtype, gsize, gvis, gdataid, tables, mesh_normal, gm, tt, gxpos, gxmat, sph, light, g,
                                wx, wy, wz, dx, dy, dz, footprint)
    if found:
      r = (1 - refl) * r + refl * rr
      gg = (1 - refl) * gg + refl * rg
      b = (1 - refl) * b + refl * rb
  return r, gg, b


@njit(cache=True, fastmath=_FAST, _nrt=False)
def _composite(gtype, gsize, gvis, gdataid, tables, mesh_normal, gm, tt, cam, gxpos, gxmat, sph, light, opts, sky, rect,
               i, j, px, py, g, t, r, gg, b):
  """Colour (r, gg, b) of translucent geom g (rgba alpha < 1) met at depth t on the sample (px, py) of pixel
  (i, j), blended over the nearest other surface behind it (or the sky): one layer, front faces only, as
  MuJoCo's alpha blending with back-face culling shows a closed translucent geom."""
  t2, g2, e2 = _trace(cam, gtype, gsize, gvis, gxpos, gxmat, gdataid, tables, rect, i, j, px, py, t, g)
  br, bg, bb = _shade_sample(gtype, gsize, gvis, gdataid, tables, mesh_normal, gm, tt, cam, gxpos, gxmat, sph, light,
                             opts, sky, g2, e2, t2, px, py)
  a = gm[g, 3]
  return a * r + (1 - a) * br, a * gg + (1 - a) * bg, a * b + (1 - a) * bb


@njit(cache=True, fastmath=_FAST, _nrt=False)
def surfaces(cam, gtype, gsize, gvis, gdataid, tables, mesh_normal, gm, tt, gxpos, gxmat, rect, depth, gid, elem, surf):
  """Geom by geom over its screen rectangle: world normal (facing the camera) and textured base colour of every
  pixel it won in the visibility pass, into surf (H, W, 6) = normal(3), colour(3). Same values as _surface."""
  height, width = depth.shape
  f = cam[12]
  for g in range(gtype.shape[0]):
    if not gvis[g]:
      continue
    ox, oy, oz = _to_local(gxpos, gxmat, g, cam[0], cam[1], cam[2])
    bx, by, bz = _dir_to_local(gxmat, g, cam[3], cam[6], cam[9])
    cx, cy, cz = _dir_to_local(gxmat, g, cam[4], cam[7], cam[10])
    ax, ay, az = _dir_to_local(gxmat, g, -cam[5], -cam[8], -cam[11])
    gt = gtype[g]
    size = gsize[g]
    m = gxmat[g]
    dataid = gdataid[g]
    br, bg, bb = gm[g, 0], gm[g, 1], gm[g, 2]
    tex = int(gm[g, 8])
    # a builtin checker on a plane (most floors) is drawn here, other textures in a second pass (_textured)
    checker = tex >= 0 and gt == GEOM_PLANE and tt[tex, 12] == TEXTURE_2D and int(tt[tex, 0]) == BUILTIN_CHECKER
    k0, c0, k1, c1 = _plane_map(gm, g, size)
    kmax = max(abs(k0), abs(k1))
    for i in range(rect[g, 0], rect[g, 1]):
      v = (0.5 * height - i - 0.5) / f
      for j in range(rect[g, 2], rect[g, 3]):
        if gid[i, j] != g:
          continue
        u = (j + 0.5 - 0.5 * width) / f
        dx = ax + u * bx + v * cx
        dy = ay + u * by + v * cy
        dz = az + u * bz + v * cz
        t = depth[i, j]
        if gt == GEOM_PLANE:
          # the plane's z axis (turned towards the camera below)
          nx, ny, nz = 0.0, 0.0, 1.0
        elif gt == GEOM_MESH:
          nx, ny, nz, _, _, _ = _smooth_normal(tables, mesh_normal, dataid, elem[i, j], ox, oy, oz, dx, dy, dz)
        elif gt == GEOM_HFIELD:
          nx, ny, nz = ray.hfield_normal(tables, dataid, elem[i, j])
        else:
          nx, ny, nz = _local_normal(gt, size, ox + t * dx, oy + t * dy, oz + t * dz)
        # two-sided: light the face the camera sees
        if nx * dx + ny * dy + nz * dz > 0:
          nx, ny, nz = -nx, -ny, -nz
        surf[i, j, 0] = m[0] * nx + m[1] * ny + m[2] * nz
        surf[i, j, 1] = m[3] * nx + m[4] * ny + m[5] * nz
        surf[i, j, 2] = m[6] * nx + m[7] * ny + m[8] * nz
        r, gg, b = br, bg, bb
        if checker:
          footprint = t / f / max(abs(dz) / math.sqrt(dx * dx + dy * dy + dz * dz), 0.05)
          tr, tg, tb = _marked_checker(tt, tex, k0 * (ox + t * dx) + c0, c1 - k1 * (oy + t * dy), footprint * kmax)
          r, gg, b = r * tr, gg * tg, b * tb
        surf[i, j, 3] = r
        surf[i, j, 4] = gg
        surf[i, j, 5] = b
    if tex >= 0 and not checker:
      _textured(cam, gtype, gsize, gdataid, tables, mesh_normal, gm, tt, g, ox, oy, oz, ax, ay, az, bx, by, bz, cx, cy,
                cz, rect, depth, gid, elem, surf)


@njit(cache=True, fastmath=_FAST, _nrt=False)
def _textured(cam, gtype, gsize, gdataid, tables, mesh_normal, gm, tt, g, ox, oy, oz, ax, ay, az, bx, by, bz, cx, cy,
              cz, rect, depth, gid, elem, surf):
  """The surfaces pass's second half for a textured geom g but a checkered plane (camera ray d = a + u b + v c
  and origin o in its frame): its pixels' base colours times the texture's."""
  height, width = depth.shape
  f = cam[12]
  gt = gtype[g]
  size = gsize[g]
  dataid = gdataid[g]
  pix = tables[TEX_TABLE]
  tex = int(gm[g, 8])
  hasuv = gm[g, 12] > 0
  # a 2d image on a plane: the grid's affine map and the texel scale once for the geom
  plane2d = gt == GEOM_PLANE and tt[tex, 12] == TEXTURE_2D
  k0, c0, k1, c1 = _plane_map(gm, g, size)
  kmax = max(abs(k0), abs(k1)) * max(tt[tex, 11], tt[tex, 13])
  for i in range(rect[g, 0], rect[g, 1]):
    v = (0.5 * height - i - 0.5) / f
    for j in range(rect[g, 2], rect[g, 3]):
      if gid[i, j] != g:
        continue
      u = (j + 0.5 - 0.5 * width) / f
      dx = ax + u * bx + v * cx
      dy = ay + u * by + v * cy
      dz = az + u * bz + v * cz
      t = depth[i, j]
      lx, ly, lz = ox + t * dx, oy + t * dy, oz + t * dz
      footprint = t / f
      if gt == GEOM_PLANE:
        footprint = footprint / max(abs(dz) / math.sqrt(dx * dx + dy * dy + dz * dz), 0.05)
      if plane2d:
        tr, tg, tb = _sample(pix, tt, tex, 0, k0 * lx + c0, c1 - k1 * ly, footprint * kmax, True)
        surf[i, j, 3] *= tr
        surf[i, j, 4] *= tg
        surf[i, j, 5] *= tb
        continue
      tu = tv = uvscale = 0.0
      if hasuv:
        _, _, _, tu, tv, uvscale = _smooth_normal(tables, mesh_normal, dataid, elem[i, j], ox, oy, oz, dx, dy, dz)
      tr, tg, tb = _tex_color(pix, tt, gm, g, tex, gt, size, lx, ly, lz, hasuv, tu, tv, uvscale, footprint)
      surf[i, j, 3] *= tr
      surf[i, j, 4] *= tg
      surf[i, j, 5] *= tb


@njit(cache=True, fastmath=_FAST, _nrt=False)
def _background(cam, pix, tt, sky, gid, rgb):
  """The sky (black without a skybox) into rgb where no geom is seen."""
  height, width = gid.shape
  f = cam[12]
  adr = int(tt[sky, TT_SKY]) if sky >= 0 else -1
  for i in range(height):
    v = (0.5 * height - i - 0.5) / f
    for j in range(width):
      if gid[i, j] >= 0:
        continue
      if sky < 0:
        rgb[i, j, 0] = rgb[i, j, 1] = rgb[i, j, 2] = 0
        continue
      u = (j + 0.5 - 0.5 * width) / f
      if adr >= 0:
        # a gradient skybox: the table at the sine of the ray's elevation (|(u, v, -1)| in camera axes)
        x = ((cam[9] * u + cam[10] * v - cam[11]) / math.sqrt(u * u + v * v + 1.0) + 1.0) * (0.5 * (SKY_TABLE - 1))
        k = min(max(int(x), 0), SKY_TABLE - 2)
        a = min(max(x - k, 0.0), 1.0)
        p = adr + 3 * k
        r = (1 - a) * pix[p] + a * pix[p + 3]
        gg = (1 - a) * pix[p + 1] + a * pix[p + 4]
        b = (1 - a) * pix[p + 2] + a * pix[p + 5]
      else:
        r, gg, b = sky_color(pix, tt, sky, cam[3] * u + cam[4] * v - cam[5], cam[6] * u + cam[7] * v - cam[8],
                             cam[9] * u + cam[10] * v - cam[11], f)
      rgb[i, j, 0] = np.uint8(r * 255.0 + 0.5)
      rgb[i, j, 1] = np.uint8(gg * 255.0 + 0.5)
      rgb[i, j, 2] = np.uint8(b * 255.0 + 0.5)


@njit(cache=True, fastmath=_FAST, _nrt=False)
def lighting(gtype, gsize, gvis, gdataid, tables, mesh_normal, gm, tt, cam, gxpos, gxmat, sph, light, opts, sky, rect,
             depth, gid, surf, rgb):
  """Pixel by pixel: sky, or the lit surface of surf (shadows, mirror images on reflective planes, blended over
  what lies behind when translucent) into rgb."""
  height, width = depth.shape
  shadows = opts[1] > 0
  mirrors = opts[3] > 0
  _background(cam, tables[TEX_TABLE], tt, sky, gid, rgb)
  for i in range(height):
    for j in range(width):
      g = gid[i, j]
      if g < 0:
        continue
      dx, dy, dz = _pixel_dir(cam, j + 0.5, i + 0.5)
      t = depth[i, j]
      wx, wy, wz = cam[0] + t * dx, cam[1] + t * dy, cam[2] + t * dz
      dn = math.sqrt(dx * dx + dy * dy + dz * dz)
      r, gg, b = _illuminate(gtype, gsize, gvis, gdataid, tables, gxpos, gxmat, sph, light, gm, g, surf[i, j, 0],
                             surf[i, j, 1], surf[i, j, 2], surf[i, j, 3], surf[i, j, 4], surf[i, j, 5], wx, wy, wz,
                             -dx / dn, -dy / dn, -dz / dn, shadows, i, j)
      refl = gm[g, 7]
      if (refl > 0 and mirrors and gtype[g] == GEOM_PLANE and rect[g, 4] <= i < rect[g, 5]
          and rect[g, 6] <= j < rect[g, 7]):
        found, rr, rg, rb = _mirror(gtype, gsize, gvis, gdataid, tables, mesh_normal, gm, tt, gxpos, gxmat, sph,
                                    light, g, wx, wy, wz, dx, dy, dz, _plane_footprint(cam, gxmat, g, t, dx, dy, dz))
        if found:
          r = (1 - refl) * r + refl * rr
          gg = (1 - refl) * gg + refl * rg
          b = (1 - refl) * b + refl * rb
      if gm[g, 3] < 1.0:
        r, gg, b = _composite(gtype, gsize, gvis, gdataid, tables, mesh_normal, gm, tt, cam, gxpos, gxmat, sph, light,
                              opts, sky, rect, i, j, j + 0.5, i + 0.5, g, t, r, gg, b)
      rgb[i, j, 0] = np.uint8(r * 255.0 + 0.5)
      rgb[i, j, 1] = np.uint8(gg * 255.0 + 0.5)
      rgb[i, j, 2] = np.uint8(b * 255.0 + 0.5)


@njit(cache=True, fastmath=_FAST, _nrt=False)
def antialias(gtype, gsize, gvis, gdataid, tables, mesh_normal, gm, tt, cam, gxpos, gxmat, sph, light, opts, sky, gid,
              rect, rgb):
  """Supersamples (4 rotated-grid samples) the pixels on silhouettes: those with a neighbour of another geom.

  Samples that land on the geom of the pixel's centre take the centre's colour; the others are shaded."""
  height, width = gid.shape
  for i in range(height):
    for j in range(width):
      c = gid[i, j]
      if not ((i > 0 and gid[i - 1, j] != c) or (i + 1 < height and gid[i + 1, j] != c)
              or (j > 0 and gid[i, j - 1] != c) or (j + 1 < width and gid[i, j + 1] != c)):
        continue
      # the pixel's own colour (lit at its centre) stands for the samples that land on the same geom
      cr, cg, cb = rgb[i, j, 0] / 255.0, rgb[i, j, 1] / 255.0, rgb[i, j, 2] / 255.0
      ar = ag = ab = 0.0
      for s in range(4):
        px = j + 0.5 + _AA_DX[s]
        py = i + 0.5 + _AA_DY[s]
        t, g, e = _trace(cam, gtype, gsize, gvis, gxpos, gxmat, gdataid, tables, rect, i, j, px, py, cam[13], -1)
        if g == c:
          ar += cr
          ag += cg
          ab += cb
          continue
        r, gg, b = _shade_sample(gtype, gsize, gvis, gdataid, tables, mesh_normal, gm, tt, cam, gxpos, gxmat, sph,
                                 light, opts, sky, g, e, t, px, py)
        if g >= 0 and gm[g, 3] < 1.0:
          r, gg, b = _composite(gtype, gsize, gvis, gdataid, tables, mesh_normal, gm, tt, cam, gxpos, gxmat, sph, light,
                                opts, sky, rect, i, j, px, py, g, t, r, gg, b)
        ar += r
        ag += gg
        ab += b
      rgb[i, j, 0] = np.uint8(ar * 63.75 + 0.5)
      rgb[i, j, 1] = np.uint8(ag * 63.75 + 0.5)
      rgb[i, j, 2] = np.uint8(ab * 63.75 + 0.5)


@njit(cache=True, fastmath=_FAST, _nrt=False)
def render_world(gtype, gsize, gbox, gvis, gdataid, tables, mesh_normal, gm, tt, cam, gxpos, gxmat, light, opts, sky,
                 rect, sph, depth, gid, elem, surf, rgb):
  """One frame of one world: visibility, then (when opts[0]) surfaces, lighting and supersampling into rgb.

  Scratch buffers: rect (ngeom, 8) int32, sph (ngeom, 5), surf (H, W, 6) float32; light's last 4 columns.
  """
  visibility(cam, gtype, gsize, gbox, gvis, gxpos, gxmat, gdataid, tables, rect, depth, gid, elem)
  if opts[0] <= 0:
    return
  bounding_spheres(gtype.shape[0], gbox, gm, gxpos, gxmat, sph)
  if opts[1] > 0:
    shadow_rects(cam, gtype, gbox, gvis, gxpos, gxmat, light)
  if opts[3] > 0:
    mirror_rects(cam, gtype, gbox, gvis, gm, gxpos, gxmat, rect)
  surfaces(cam, gtype, gsize, gvis, gdataid, tables, mesh_normal, gm, tt, gxpos, gxmat, rect, depth, gid, elem, surf)
  lighting(gtype, gsize, gvis, gdataid, tables, mesh_normal, gm, tt, cam, gxpos, gxmat, sph, light, opts, sky, rect,
           depth, gid, surf, rgb)
  if opts[2] > 0:
    antialias(gtype, gsize, gvis, gdataid, tables, mesh_normal, gm, tt, cam, gxpos, gxmat, sph, light, opts, sky, gid,
              rect, rgb)


@njit(cache=True, fastmath=_FAST, parallel=True)
def render_batch(gtype, gsize, gbox, gvis, gdataid, tables, mesh_normal, gm, tt, cams, gxpos, gxmat, lights, opts, sky,
                 rects, sphs, depth, gid, elem, surf, rgb):
  """render_world for every world of a batch, worlds in parallel: gsize, gbox, gvis and everything after tt have
  a leading world axis."""
  for w in prange(cams.shape[0]):
    render_world(gtype, gsize[w], gbox[w], gvis[w], gdataid, tables, mesh_normal, gm, tt, cams[w], gxpos[w], gxmat[w],
                 lights[w], opts, sky, rects[w], sphs[w], depth[w], gid[w], elem[w], surf[w], rgb[w])
