"""The <asset> section: textures, materials, meshes and height fields in MuJoCo's order, and the tex_* data.

Meshes and height fields are compiled in ``meshes``; the texture pixels are drawn and decoded in ``texture``.
"""

import os

import numpy as np

from mjgym.physics.mjcf import meshes
from mjgym.physics.mjcf import texture as texlib
from mjgym.physics.mjcf.context import keywords
from mjgym.physics.mjcf.errors import MJCFError
from mjgym.physics.mjcf.errors import fail
from mjgym.physics.mjcf.errors import warn
from mjgym.physics.types import Builtin
from mjgym.physics.types import ColorSpace
from mjgym.physics.types import Mark
from mjgym.physics.types import ObjType
from mjgym.physics.types import TextureType

# mjgym's bound on the pixels of one texture, builtin (width * height, 6 faces for a cube) or read from a PNG: it
# sets how much memory the model takes (MuJoCo has none). Documented in docs/mjcf.md.
MAX_TEXTURE_PIXELS = 2**26
_BUILTINS = keywords(Builtin)
_MARKS = keywords(Mark)
# MJCF keywords of the texture types and color spaces (spelled unlike their enum members).
_TEXTURE_TYPES = {"2d": TextureType.TWO_D, "cube": TextureType.CUBE, "skybox": TextureType.SKYBOX}
_COLORSPACES = {"auto": ColorSpace.AUTO, "linear": ColorSpace.LINEAR, "sRGB": ColorSpace.SRGB}


def compile_assets(ctx):
  """The assets of every <asset> section: all textures first (materials name them), then materials, meshes and
  height fields."""
  for asset in ctx.root.all("asset"):
    for node in asset.all("texture"):
      texture(ctx, node)
  for asset in ctx.root.all("asset"):
    for node in asset.all("material"):
      texid = ctx.lookup(ObjType.TEXTURE, node, "texture") if node.get("texture") else -1
      ctx.add(ObjType.MATERIAL, node, mat_texid=texid, mat_texuniform=int(node.get("texuniform", False)),
              mat_texrepeat=node.get("texrepeat", [1.0, 1.0]), mat_emission=node.get("emission", 0.0),
              mat_specular=node.get("specular", 0.5), mat_shininess=node.get("shininess", 0.5),
              mat_reflectance=node.get("reflectance", 0.0), mat_rgba=node.get("rgba", [1.0] * 4))
    for node in asset.all("mesh"):
      meshes.mesh(ctx, node)
    for node in asset.all("hfield"):
      meshes.hfield(ctx, node)
    for node in asset.all("skin"):
      warn(node, "skins are not drawn by mjgym's renderer and do not act on the physics; the skin is left out")


def texture(ctx, node):
  """A texture's pixels as MuJoCo stores them: a builtin pattern, one image file (2d, or a cube or skybox
  as one repeated face or a grid of faces) or one file a face. A file that cannot be used is a warning and
  an empty texture: rendering assets never keep a model from loading."""
  ttype = _TEXTURE_TYPES[node.get("type", "cube")]
  nchannel = node.get("nchannel", 3)
  if nchannel not in (1, 3, 4):
    fail(node, f"nchannel must be 1, 3 or 4, got {nchannel}", "nchannel")
  gridsize, layout = node.get("gridsize", [1, 1]), node.get("gridlayout", "")
  if node.has("gridlayout") and len(layout) != gridsize[0] * gridsize[1]:
    fail(node, f"gridlayout has {len(layout)} symbols, gridsize {gridsize[0]} x {gridsize[1]} needs "
         f"{gridsize[0] * gridsize[1]}", "gridlayout")
  if any(c not in "." + texlib.FACES for c in layout):
    fail(node, f"gridlayout symbols must be among '.{texlib.FACES}', got '{layout}'", "gridlayout")
  kind = _BUILTINS[node.get("builtin", "none")]
  rgb1 = node.get("rgb1", [0.8, 0.8, 0.8])
  colorspace = _COLORSPACES[node.get("colorspace", "auto")]
  cubefiles = [node.get(a, "") for a in texlib.CUBE_FILES]
  if kind != Builtin.NONE:
    width, height = node.get("width", 0), node.get("height", 0)
    if nchannel != 3:
      fail(node, f"builtin textures have 3 channels, got {nchannel}", "nchannel")
    if width < 1:
      fail(node, f"a builtin texture needs a positive width, got {width}", "width")
    if ttype != TextureType.TWO_D:
      # Cube and skybox builtins are square faces stacked vertically, six of them.
      height = 6 * width
    elif height < 1:
      fail(node, f"a builtin texture needs a positive height, got {height}", "height")
    if width * height > MAX_TEXTURE_PIXELS:
      fail(node, f"texture of {width} x {height} pixels is larger than mjgym's bound of {MAX_TEXTURE_PIXELS} "
           "pixels", "width")
    data = texlib.builtin(ttype, kind, _MARKS[node.get("mark", "none")], rgb1, node.get("rgb2", [0.5] * 3),
                          node.get("markrgb", [0.0] * 3), node.get("random", 0.01), width, height)
  elif node.get("file"):
    if not node.has("name"):
      node.attrs["name"] = os.path.splitext(os.path.basename(node.get("file")))[0]
    if ttype != TextureType.TWO_D and (min(gridsize) < 1 or gridsize[0] * gridsize[1] > 12):
      fail(node, f"gridsize must be positive with at most 12 squares, got {gridsize[0]} x {gridsize[1]}",
           "gridsize")
    width, height, data, nchannel, colorspace = _texture_file(ctx, node, ttype, nchannel, colorspace, rgb1)
  elif any(cubefiles):
    if ttype == TextureType.TWO_D:
      fail(node, "a 2d texture cannot be loaded from separate files (give 'file')",
           texlib.CUBE_FILES[next(i for i, f in enumerate(cubefiles) if f)])
    width, height, data, nchannel, colorspace = _texture_faces(ctx, node, cubefiles, nchannel, colorspace, rgb1)
  else:
    fail(node, "a texture needs 'builtin', 'file' or (cube and skybox) one file a face ('fileright', ...)",
         "builtin")
  ctx.texture_data.append(data)
  ctx.add(ObjType.TEXTURE, node, tex_type=int(ttype), tex_height=height, tex_width=width, tex_nchannel=nchannel,
          tex_colorspace=int(colorspace), tex_builtin=int(kind), tex_mark=int(_MARKS[node.get("mark", "none")]),
          tex_rgb1=rgb1, tex_rgb2=node.get("rgb2", [0.5, 0.5, 0.5]),
          tex_markrgb=node.get("markrgb", [0.0, 0.0, 0.0]), tex_random=node.get("random", 0.01))


def _read_image(ctx, node, attr, nchannel):
  """(pixels (h, w, nchannel), nchannel, sRGB flag) of an image file named by attribute ``attr``."""
  name = node.get(attr)
  path = ctx.asset_path(node, name, ctx.cfg.texturedir)
  try:
    data = ctx.source.read(path, node, attr)
  except MJCFError as e:
    raise texlib.TextureFileError(f"cannot read '{path}'") from e
  ctype = texlib.content_type(name, node.get("content_type"))
  if ctype == "image/png" and len(data) >= 24:
    w, h = int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")
    if w * h > MAX_TEXTURE_PIXELS:
      raise texlib.TextureFileError(f"'{name}' has {w} x {h} pixels, more than mjgym's bound of "
                                    f"{MAX_TEXTURE_PIXELS}")
  if ctype == "image/ktx" and (node.get("hflip", False) or node.get("vflip", False)):
    fail(node, "KTX textures cannot be flipped", "hflip" if node.get("hflip", False) else "vflip")
  try:
    image, nchannel, srgb = texlib.decode(data, ctype, nchannel)
  except texlib.TextureFileError as e:
    raise texlib.TextureFileError(f"'{name}': {e}") from None
  return texlib.flip(image, node.get("hflip", False), node.get("vflip", False)), nchannel, srgb


def _texture_file(ctx, node, ttype, nchannel, colorspace, rgb1):
  """(width, height, data, nchannel, colorspace) of a texture read from one file."""
  try:
    if ttype != TextureType.TWO_D and nchannel != 3:
      raise texlib.TextureFileError(f"cube and skybox files are read with 3 channels, not {nchannel}")
    image, nchannel, srgb = _read_image(ctx, node, "file", nchannel)
    if colorspace == ColorSpace.AUTO:
      colorspace = ColorSpace.SRGB if srgb else ColorSpace.LINEAR
    h, w, have = image.shape
    if ttype == TextureType.TWO_D:
      return w, h, image.ravel(), nchannel, colorspace
    if have != 3:
      raise texlib.TextureFileError("a cube or skybox is read from RGB images (not KTX)")
    rows, cols = node.get("gridsize", [1, 1])
    if w % cols or h % rows or w // cols != h // rows:
      raise texlib.TextureFileError(f"an image of {w} x {h} pixels does not split into a grid of {rows} x "
                                    f"{cols} square faces")
    if rows == cols == 1:
      # MuJoCo keeps the one face (repeated on all six sides when drawn)
      return w, w, image.ravel(), nchannel, colorspace
    size = w // cols
    faces = np.empty((6, size, size, 3), np.uint8)
    faces[:] = texlib.to_byte(rgb1)
    for k, symbol in enumerate(node.get("gridlayout", "")):
      if symbol != ".":
        r, c = divmod(k, cols)
        faces[texlib.FACES.index(symbol)] = image[r * size:(r + 1) * size, c * size:(c + 1) * size]
    return size, 6 * size, faces.ravel(), nchannel, colorspace
  except texlib.TextureFileError as e:
    warn(node, f"{e}; the texture is left empty", "file")
    return 0, 0, np.zeros(0, np.uint8), nchannel, colorspace


def _texture_faces(ctx, node, files, nchannel, colorspace, rgb1):
  """(width, height, data, nchannel, colorspace) of a cube or skybox read from one file a face."""
  attr = "file"
  try:
    if nchannel != 3:
      raise texlib.TextureFileError(f"cube and skybox files are read with 3 channels, not {nchannel}")
    faces, size = [None] * 6, None
    for i, (attr, name) in enumerate(zip(texlib.CUBE_FILES, files)):
      if not name:
        continue
      image, _, srgb = _read_image(ctx, node, attr, nchannel)
      if colorspace == ColorSpace.AUTO:
        colorspace = ColorSpace.SRGB if srgb else ColorSpace.LINEAR
      h, w, have = image.shape
      if have != 3:
        raise texlib.TextureFileError("a cube or skybox is read from RGB images (not KTX)")
      if w != h:
        raise texlib.TextureFileError(f"'{name}' is not square ({w} x {h} pixels)")
      if size is not None and w != size:
        raise texlib.TextureFileError(f"'{name}' has {w} x {h} pixels, the first face {size} x {size}")
      size, faces[i] = w, image
    data = np.empty((6, size, size, 3), np.uint8)
    for i, face in enumerate(faces):
      data[i] = texlib.to_byte(rgb1) if face is None else face
    return size, 6 * size, data.ravel(), nchannel, colorspace
  except texlib.TextureFileError as e:
    warn(node, f"{e}; the texture is left empty", attr)
    return 0, 0, np.zeros(0, np.uint8), nchannel, colorspace


def texture_fields(ctx, v):
  """tex_data and tex_adr: the textures' bytes back to back."""
  if not ctx.texture_data:
    return
  count = [len(t) for t in ctx.texture_data]
  v.update(ntexdata=sum(count), tex_adr=np.concatenate([[0], np.cumsum(count)[:-1]]),
           tex_data=np.concatenate(ctx.texture_data))
