"""Texture pixels as MuJoCo's compiler stores them in ``tex_data``: builtin patterns, PNG and KTX files.

Layout (MuJoCo's): rows of ``width * nchannel`` bytes, top row first. A cube or skybox texture is six square
faces stacked vertically in the order right, left, up, down, front, back (``height = 6 * width``), except a
cube read from one file without a grid: that image is the single (repeated) face, ``height = width``.
"""

import math

import numpy as np

from mjgym.physics.types import Builtin
from mjgym.physics.types import Mark
from mjgym.physics.types import TextureType

CONTENT_TYPES = {".png": "image/png", ".ktx": "image/ktx"}
# gridlayout symbols -> face index
FACES = "RLUDFB"
# the separate-file attributes of a cube or skybox, in face order
CUBE_FILES = ("fileright", "fileleft", "fileup", "filedown", "filefront", "fileback")
_PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


class TextureFileError(ValueError):
  """A texture file that cannot be used: unreadable, undecodable, or of the wrong shape."""


def to_byte(x):
  """A colour in [0, 1] to a byte as MuJoCo's (std::byte)(255 * x): truncated toward zero."""
  return np.trunc(255.0 * np.asarray(x, float)).astype(np.int64) & 0xFF


# ---- builtin patterns ----

def _interp(rgb1, rgb2, pos):
  """MuJoCo's sigmoid blend of two colours over pos in (-1, 1); pos has any shape, the colours add an axis."""
  alpha = 0.5 * (1 + pos / np.sqrt(1 + pos * pos) / (1.0 / math.sqrt(2)))
  alpha = np.clip(alpha, 0.0, 1.0)[..., None]
  return to_byte(alpha * np.asarray(rgb1, float) + (1 - alpha) * np.asarray(rgb2, float))


def _checker(c1, c2, width, height):
  face = np.empty((height, width, 3), np.int64)
  face[:, :] = c2
  face[:height // 2, :width // 2] = c1
  face[height // 2:, width // 2:] = c1
  return face


def _mark(face, mark, markbytes):
  """Edge or cross marks drawn over one face (random dots are drawn over the whole buffer)."""
  h, w = face.shape[:2]
  if mark == Mark.EDGE:
    face[:, 0] = face[:, w - 1] = markbytes
    face[0, :] = face[h - 1, :] = markbytes
  elif mark == Mark.CROSS:
    face[:, w // 2] = markbytes
    face[h // 2, :] = markbytes


def _mt19937_64_uniform(count, seed=42):
  """The first ``count`` draws of std::uniform_real_distribution<double>(0, 1) over std::mt19937_64(seed)."""
  n, m = 312, 156
  upper, lower = np.uint64(0xFFFFFFFF80000000), np.uint64(0x7FFFFFFF)
  matrix = np.uint64(0xB5026F5AA96619E9)
  mt = np.zeros(n, np.uint64)
  mt[0] = seed
  for i in range(1, n):
    prev = int(mt[i - 1])
    mt[i] = (6364136223846793005 * (prev ^ (prev >> 62)) + i) & 0xFFFFFFFFFFFFFFFF
  out = np.empty(count, np.float64)
  done = 0
  one = np.uint64(1)

  def twist(a, b, c):
    y = (a & upper) | (b & lower)
    return c ^ (y >> one) ^ np.where((y & one) != 0, matrix, np.uint64(0))

  while done < count:
    # the first n - m words read old words only; the rest read words of this round, in blocks that do
    mt[:n - m] = twist(mt[:n - m], mt[1:n - m + 1], mt[m:])
    for start in range(n - m, n - 1, m):
      stop = min(start + m, n - 1)
      mt[start:stop] = twist(mt[start:stop], mt[start + 1:stop + 1], mt[start - (n - m):stop - (n - m)])
    mt[n - 1] = twist(mt[n - 1:], mt[:1], mt[m - 1:m])[0]
    y = mt.copy()
    y ^= (y >> np.uint64(29)) & np.uint64(0x5555555555555555)
    y ^= (y << np.uint64(17)) & np.uint64(0x71D67FFFEDA60000)
    y ^= (y << np.uint64(37)) & np.uint64(0xFFF7EEE000000000)
    y ^= y >> np.uint64(43)
    take = min(n, count - done)
    out[done:done + take] = y[:take].astype(np.float64) / 2.0**64
    done += take
  return np.minimum(out, np.nextafter(1.0, 0.0))


def builtin(ttype, kind, mark, rgb1, rgb2, markrgb, random, width, height):
  """Bytes (3 * width * height) of a builtin texture of pattern ``kind`` (a Builtin) and ``mark`` (a Mark)."""
  c1, c2, cm = to_byte(rgb1), to_byte(rgb2), to_byte(markrgb)
  if ttype == TextureType.TWO_D:
    if kind == Builtin.GRADIENT:
      x = 2 * np.arange(width) / float(width - 1) - 1
      y = 1 - 2 * np.arange(height) / float(height - 1)
      pos = 2 * np.sqrt(x[None, :] ** 2 + y[:, None] ** 2) - 1
      img = _interp(rgb2, rgb1, pos)
    elif kind == Builtin.CHECKER:
      img = _checker(c1, c2, width, height)
    else:
      img = np.empty((height, width, 3), np.int64)
      img[:, :] = c1
    _mark(img, mark, cm)
  else:
    w = width
    img = np.empty((6, w, w, 3), np.int64)
    if kind == Builtin.GRADIENT:
      x = (2 * np.arange(w) / float(w - 1) - 1)[None, :]
      y = (1 - 2 * np.arange(w) / float(w - 1))[:, None]
      norm = np.sqrt(1 + x * x + y * y)
      elside = np.arcsin(y / norm) / (0.5 * math.pi)
      elup = 1 - np.arccos(1.0 / norm) / (0.5 * math.pi)
      img[[0, 1, 4, 5]] = _interp(rgb1, rgb2, elside)
      img[2] = _interp(rgb1, rgb2, elup)
      img[3] = _interp(rgb1, rgb2, -elup)
    elif kind == Builtin.CHECKER:
      img[:4] = _checker(c1, c2, w, w)
      img[4:] = _checker(c2, c1, w, w)
    else:
      img[:] = c1
      img[3] = c2
    for face in img:
      _mark(face, mark, cm)
  rgb = img.reshape(-1, 3)
  if mark == Mark.RANDOM and random > 0:
    rgb[_mt19937_64_uniform(len(rgb)) < random] = to_byte(np.asarray(markrgb, float))
  return rgb.astype(np.uint8).ravel()


# ---- files ----

def content_type(filename, given):
  """The content type MuJoCo reads a texture file as: the one given, else from the file's extension."""
  if given:
    return given
  ext = filename[filename.rfind("."):].lower() if "." in filename else ""
  return CONTENT_TYPES.get(ext, f"unknown (extension '{ext}')" if ext else "unknown (no extension)")


def _has_chunk(data, name):
  """Whether a PNG carries a chunk (sRGB, tRNS) before its image data."""
  pos = len(_PNG_SIGNATURE)
  while pos + 8 <= len(data):
    length = int.from_bytes(data[pos:pos + 4], "big")
    kind = data[pos + 4:pos + 8]
    if kind == name:
      return True
    if kind in (b"IDAT", b"IEND"):
      return False
    pos += 12 + length
  return False


def _key_alpha(data, alpha):
  """The alpha a PNG's tRNS chunk gives a palette, grey or RGB image without an alpha channel (lodepng's and
  Pillow's reading: palette alphas, or 0 where a pixel equals the colour key); 8-bit images only."""
  import io  # pylint: disable=import-outside-toplevel
  from PIL import Image  # pylint: disable=import-outside-toplevel
  image = Image.open(io.BytesIO(data))
  if image.mode not in ("P", "L", "RGB", "1"):
    return alpha
  return np.asarray(image.convert("RGBA"))[:, :, 3]


def decode(data, ctype, nchannel):
  """(pixels (h, w, nchannel) uint8, nchannel, is_srgb) of a texture file, converted as lodepng converts.

  PNG: 16-bit samples keep their high byte; grey becomes (g, g, g), colour becomes grey through its red
  channel, and a missing alpha is 255 (or, with a tRNS chunk, the palette's alpha or 0 at the colour key). KTX: MuJoCo keeps the file's bytes as one row of one channel.
  """
  if ctype == "image/ktx":
    if not data:
      raise TextureFileError("the KTX file is empty")
    return np.frombuffer(data, np.uint8).reshape(1, -1, 1), 1, False
  if ctype != "image/png":
    raise TextureFileError(f"unsupported content type {ctype} (MuJoCo reads PNG and KTX textures)")
  if not data.startswith(_PNG_SIGNATURE):
    raise TextureFileError("not a PNG file (it does not start with the PNG signature)")
  import imageio.v3 as iio  # pylint: disable=import-outside-toplevel
  try:
    image = np.asarray(iio.imread(data, extension=".png"))
  except Exception as e:  # pylint: disable=broad-except
    raise TextureFileError(f"the PNG file cannot be decoded ({type(e).__name__}: {e})") from None
  if image.ndim not in (2, 3) or image.size == 0 or (image.ndim == 3 and image.shape[2] > 4):
    raise TextureFileError(f"unexpected PNG image of shape {image.shape}")
  if image.dtype == np.bool_:
    image = image.astype(np.uint8) * 255
  elif image.dtype == np.uint16:
    image = (image >> 8).astype(np.uint8)
  elif image.dtype != np.uint8:
    raise TextureFileError(f"unexpected PNG sample type {image.dtype}")
  if image.ndim == 2:
    image = image[:, :, None]
  h, w, have = image.shape
  grey = have <= 2
  alpha = image[:, :, have - 1] if have in (2, 4) else np.full((h, w), 255, np.uint8)
  if nchannel == 4 and have in (1, 3) and _has_chunk(data, b"tRNS"):
    alpha = _key_alpha(data, alpha)
  if nchannel == 1:
    out = image[:, :, :1]
  elif nchannel == 3:
    out = np.repeat(image[:, :, :1], 3, axis=2) if grey else image[:, :, :3]
  else:
    rgb = np.repeat(image[:, :, :1], 3, axis=2) if grey else image[:, :, :3]
    out = np.concatenate([rgb, alpha[:, :, None]], axis=2)
  return np.ascontiguousarray(out), nchannel, _has_chunk(data, b"sRGB")


def flip(image, hflip, vflip):
  if hflip:
    image = image[:, ::-1]
  if vflip:
    image = image[::-1]
  return np.ascontiguousarray(image)
