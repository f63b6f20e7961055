"""The <asset> section: textures, materials, meshes, height fields and skins in MuJoCo's order, and the tex_* and
skin_* data.

Meshes and height fields are compiled in ``meshes``; the texture pixels are drawn and decoded in ``texture``.
"""

import os

import numpy as np

from mjgym.physics.mjcf import meshes
from mjgym.physics.mjcf import meshfile
from mjgym.physics.mjcf import texture as texlib
from mjgym.physics.mjcf.context import keywords
from mjgym.physics.mjcf.errors import MJCFError
from mjgym.physics.mjcf.errors import fail
from mjgym.physics.mjcf.errors import warn
from mjgym.physics.types import MINVAL
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
      skin(ctx, node)


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


# The inline data of a skin (a file gives all of it instead).
_SKIN_DATA = ("vertex", "texcoord", "face")
_BONE_DATA = ("body", "bindpos", "bindquat", "vertid", "vertweight")


def skin(ctx, node):
  """A skin's mesh and bones, inline or from a .skn file, checked and normalized as MuJoCo's compiler does: the
  weights at each vertex scaled to sum to 1 (in single precision), the bind quaternions to unit length. Bodies
  and the material are resolved once the bodies exist (``skin_fields``)."""
  bones = node.all("bone")
  if node.get("file", ""):
    name = node.get("file")
    if any(node.has(a) for a in _SKIN_DATA) or bones:
      fail(node, f"both skin data and file were specified: '{name}'", "file")
    if os.path.splitext(name)[1].lower() != ".skn":
      fail(node, f"unknown skin file type: '{name}' (expected .skn)", "file")
    path = ctx.asset_path(node, name, ctx.cfg.meshdir)
    try:
      vert, texcoord, face, bonedata = meshfile.read_skn(ctx.source.read(path, node, "file"))
    except ValueError as e:
      fail(node, f"cannot load skin '{name}': {e}", "file")
    where = [(node, "file")] * len(bonedata)
  else:
    vert = np.asarray(node.get("vertex", []), np.float32)
    texcoord = np.asarray(node.get("texcoord", []), np.float32)
    face = np.asarray(node.get("face", []), np.int64)
    bonedata = [tuple(b.get(a, []) if a != "body" else b.get(a, "") for a in _BONE_DATA) for b in bones]
    where = [(b, "vertid") for b in bones]
  if vert.size == 0 or face.size == 0 or not bonedata:
    fail(node, "missing data in skin: it needs vertices, faces and bones (inline or from a file)",
         "file" if node.get("file", "") else "vertex")
  if vert.size % 3:
    fail(node, f"vertex data must be a multiple of 3 numbers, got {vert.size}", "vertex")
  nvert = vert.size // 3
  if texcoord.size and texcoord.size != 2 * nvert:
    fail(node, f"texcoord must have 2 numbers a vertex ({2 * nvert}), got {texcoord.size}", "texcoord")
  if face.size % 3:
    fail(node, f"face data must be a multiple of 3 vertex indices, got {face.size}", "face")
  if face.min() < 0 or face.max() >= nvert:
    fail(node, f"face vertex index out of range [0, {nvert})", "face")
  total = np.zeros(nvert, np.float32)
  for (body, bindpos, bindquat, vertid, weight), (bnode, attr) in zip(bonedata, where):
    if len(bindpos) != 3 or len(bindquat) != 4:
      fail(bnode, "a bone needs bindpos (3 numbers) and bindquat (4)", "bindpos" if len(bindpos) != 3 else "bindquat")
    if len(vertid) != len(weight) or not len(vertid):
      fail(bnode, "vertid and vertweight must have the same non-zero size in skin", attr)
    for j, w in zip(vertid, np.asarray(weight, np.float32)):
      if not 0 <= j < nvert:
        fail(bnode, f"vertid {j} out of range in skin (it has {nvert} vertices)", attr)
      total[j] = np.float32(total[j] + w)
  if np.any(total <= MINVAL):
    k = int(np.argmax(total <= MINVAL))
    fail(node, f"vertex {k} must have positive total weight in skin", "vertex")
  out = []
  for (body, bindpos, bindquat, vertid, weight), (bnode, _) in zip(bonedata, where):
    vertid = np.asarray(vertid, np.int32)
    quat = np.asarray(bindquat, np.float32).astype(np.float64)
    norm = np.linalg.norm(quat)
    quat = quat / norm if norm >= 1e-15 else np.array([1.0, 0.0, 0.0, 0.0])
    out.append((body, bnode, np.asarray(bindpos, np.float32), quat.astype(np.float32), vertid,
                np.asarray(weight, np.float32) / total[vertid]))
  ctx.skins.append(dict(node=node, vert=vert.reshape(-1, 3), texcoord=texcoord.reshape(-1, 2),
                        face=face.reshape(-1, 3).astype(np.int32), bones=out,
                        rgba=node.get("rgba", [0.5, 0.5, 0.5, 1.0]), inflate=node.get("inflate", 0.0),
                        group=node.get("group", 0), material=node.get("material", "")))


def skin_fields(ctx, v):
  """skin_*: the skins' meshes and bones back to back, with their bodies and materials resolved by name."""
  if not ctx.skins:
    return
  rows = {k: [] for k in ("matid", "group", "rgba", "inflate", "vertadr", "vertnum", "texcoordadr", "faceadr",
                          "facenum", "boneadr", "bonenum")}
  bones = {k: [] for k in ("bonevertadr", "bonevertnum", "bonebindpos", "bonebindquat", "bonebodyid")}
  vert, tex, face, vertid, weight = [], [], [], [], []
  nvert = ntex = nface = nbone = nbonevert = 0
  for sk in ctx.skins:
    node = sk["node"]
    rows["matid"].append(ctx.lookup(ObjType.MATERIAL, node, "material") if sk["material"] else -1)
    rows["group"].append(sk["group"])
    # MuJoCo keeps a skin's numbers in single precision
    rows["rgba"].append(np.asarray(sk["rgba"], np.float32).astype(float))
    rows["inflate"].append(float(np.float32(sk["inflate"])))
    rows["vertadr"].append(nvert)
    rows["vertnum"].append(len(sk["vert"]))
    rows["texcoordadr"].append(ntex if len(sk["texcoord"]) else -1)
    rows["faceadr"].append(nface)
    rows["facenum"].append(len(sk["face"]))
    rows["boneadr"].append(nbone)
    rows["bonenum"].append(len(sk["bones"]))
    nvert += len(sk["vert"])
    ntex += len(sk["texcoord"])
    nface += len(sk["face"])
    nbone += len(sk["bones"])
    vert.append(sk["vert"])
    tex.append(sk["texcoord"])
    face.append(sk["face"])
    for body, bnode, bindpos, bindquat, ids, w in sk["bones"]:
      try:
        bodyid = ctx.names[ObjType.BODY].index(body)
      except ValueError:
        fail(bnode, f"unknown body '{body}' in skin", "body" if bnode is not node else "file")
      bones["bonevertadr"].append(nbonevert)
      bones["bonevertnum"].append(len(ids))
      bones["bonebindpos"].append(bindpos)
      bones["bonebindquat"].append(bindquat)
      bones["bonebodyid"].append(bodyid)
      nbonevert += len(ids)
      vertid.append(ids)
      weight.append(w)
  v.update({f"skin_{k}": np.array(r) for k, r in rows.items()})
  v.update({f"skin_{k}": np.array(r, float if k.startswith("bonebind") else np.int32)
            for k, r in bones.items()})
  v.update(nskin=len(ctx.skins), nskinvert=nvert, nskintexvert=ntex, nskinface=nface, nskinbone=nbone,
           nskinbonevert=nbonevert, skin_vert=np.concatenate(vert).astype(float),
           skin_face=np.concatenate(face), skin_bonevertid=np.concatenate(vertid),
           skin_bonevertweight=np.concatenate(weight).astype(float))
  if ntex:
    v.update(skin_texcoord=np.concatenate(tex).astype(float))
