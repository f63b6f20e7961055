"""Textures against MuJoCo's compiler: builtin patterns and image files, pixel for pixel in tex_data.

The PNG files are written at test time into tmp_path.
"""

import struct
import zlib

import imageio.v3 as iio
import mujoco
import numpy as np
import pytest
from PIL import Image

import oracle
from located_error import assert_located_error
from mjgym import physics
from mjgym.physics.mjcf.errors import MJCFWarning

TEX_FIELDS = ("tex_type", "tex_height", "tex_width", "tex_nchannel", "tex_adr", "tex_colorspace", "tex_data")

TEXTURES = """
<texture name="grid" type="cube" file="grid.png" gridsize="3 4" gridlayout=".U..LFRB.D.." rgb1="1 0 0.5"/>
<texture name="repeated" type="skybox" file="square.png"/>
<texture name="faces" type="cube" fileright="square.png" fileup="square.png" fileback="square.png" rgb1="0 1 0"/>
<texture name="flipped" type="2d" file="grid.png" hflip="true" vflip="true"/>
<texture name="rgba4" type="2d" file="rgba.png" nchannel="4"/>
<texture name="rgba3" type="2d" file="rgba.png"/>
<texture name="rgba1" type="2d" file="rgba.png" nchannel="1"/>
<texture name="grey3" type="2d" file="grey.png"/>
<texture name="grey4" type="2d" file="grey.png" nchannel="4"/>
<texture name="grey16" type="2d" file="grey16.png"/>
<texture name="greyalpha4" type="2d" file="greyalpha.png" nchannel="4"/>
<texture name="greyalpha1" type="2d" file="greyalpha.png" nchannel="1"/>
<texture name="srgb" type="2d" file="srgb.png"/>
<texture name="linear" type="2d" file="srgb.png" colorspace="linear"/>
<texture type="2d" file="unnamed.png"/>
<texture name="gradient2d" type="2d" builtin="gradient" width="7" height="5" rgb1="0.3 0.9 0.1" mark="edge"
         markrgb="1 1 1"/>
<texture name="checker2d" type="2d" builtin="checker" width="7" height="5" mark="cross"/>
<texture name="sky" type="skybox" builtin="gradient" width="9" rgb1="0.3 0.9 0.1"/>
<texture name="checkercube" type="cube" builtin="checker" width="5" mark="random" random="0.3"
         markrgb="0.2 0.4 0.6"/>
<texture name="flatcube" type="cube" builtin="flat" width="4" rgb2="0.1 0.2 0.3" mark="edge"/>
<texture name="dots" type="2d" builtin="flat" width="64" height="48" mark="random" random="0.5"/>
"""


def _with_srgb_chunk(png):
  """The PNG with an sRGB chunk after its header (which Pillow does not write)."""
  body = b"sRGB" + b"\x00"
  chunk = struct.pack(">I", 1) + body + struct.pack(">I", zlib.crc32(body))
  ihdr_end = 8 + 8 + 13 + 4
  return png[:ihdr_end] + chunk + png[ihdr_end:]


def _write_images(folder):
  rng = np.random.default_rng(19)
  iio.imwrite(folder / "grid.png", rng.integers(0, 256, (6, 8, 3), dtype=np.uint8))
  iio.imwrite(folder / "square.png", rng.integers(0, 256, (2, 2, 3), dtype=np.uint8))
  iio.imwrite(folder / "rgba.png", rng.integers(0, 256, (3, 2, 4), dtype=np.uint8))
  iio.imwrite(folder / "grey.png", rng.integers(0, 256, (5, 3), dtype=np.uint8))
  iio.imwrite(folder / "grey16.png", rng.integers(0, 65536, (5, 3), dtype=np.uint16))
  iio.imwrite(folder / "greyalpha.png", rng.integers(0, 256, (5, 3, 2), dtype=np.uint8))
  iio.imwrite(folder / "unnamed.png", rng.integers(0, 256, (4, 4, 3), dtype=np.uint8))
  png = iio.imwrite("<bytes>", rng.integers(0, 256, (3, 3, 3), dtype=np.uint8), extension=".png")
  (folder / "srgb.png").write_bytes(_with_srgb_chunk(png))


def _same_textures(ours, ref):
  assert ours.ntex == ref.ntex and ours.ntexdata == ref.ntexdata
  for name in TEX_FIELDS:
    np.testing.assert_array_equal(np.asarray(getattr(ours, name)), np.asarray(getattr(ref, name)), err_msg=name)
  for i in range(ref.ntex):
    assert physics.mj_id2name(ours, physics.mjtObj.mjOBJ_TEXTURE, i) == mujoco.mj_id2name(
        ref, mujoco.mjtObj.mjOBJ_TEXTURE, i)


def test_textures_as_mujoco_stores_them(tmp_path):
  (tmp_path / "textures").mkdir()
  _write_images(tmp_path / "textures")
  path = tmp_path / "model.xml"
  path.write_text(f'<mujoco><compiler texturedir="textures"/><asset>{TEXTURES}'
                  '<material name="m" texture="grid"/></asset><worldbody/></mujoco>')
  ref, ours = oracle.models(path)
  _same_textures(ours, ref)
  assert ours.mat_texid[0] == 0


def test_texture_from_string_with_assets(tmp_path):
  _write_images(tmp_path)
  xml = '<mujoco><asset><texture name="t" type="2d" file="grid.png"/></asset><worldbody/></mujoco>'
  assets = {"grid.png": (tmp_path / "grid.png").read_bytes()}
  ref, ours = oracle.models(xml, assets)
  _same_textures(ours, ref)


def test_ktx_bytes_kept(tmp_path):
  (tmp_path / "t.ktx").write_bytes(bytes(range(40)))
  path = tmp_path / "model.xml"
  path.write_text('<mujoco><asset><texture name="t" type="2d" file="t.ktx"/></asset><worldbody/></mujoco>')
  ref, ours = oracle.models(path)
  _same_textures(ours, ref)


@pytest.mark.parametrize("case, attribute, fragment", [
    ('file="t.jpg"', "file", "unsupported content type"),
    ('file="garbage.png"', "file", "not a PNG file"),
    ('file="truncated.png"', "file", "cannot be decoded"),
    ('file="missing.png"', "file", "cannot read"),
    ('type="cube" file="grid.png" gridsize="2 2" gridlayout="RLUD"', "file", "does not split"),
    ('type="cube" fileright="grid.png"', "fileright", "not square"),
    ('type="skybox" file="grid.png" nchannel="4"', "file", "3 channels"),
])
def test_unusable_texture_file_warns_and_loads(tmp_path, case, attribute, fragment):
  _write_images(tmp_path)
  (tmp_path / "t.jpg").write_bytes(b"\xff\xd8\xff\xe0 not really")
  (tmp_path / "garbage.png").write_bytes(b"garbage")
  (tmp_path / "truncated.png").write_bytes((tmp_path / "grid.png").read_bytes()[:60])
  path = tmp_path / "model.xml"
  path.write_text('<mujoco>\n<asset>\n<texture name="t" type="2d" builtin="checker" width="2" height="2"/>\n'
                  f'<texture name="bad" {case}/>\n<material name="m" texture="bad"/>\n</asset>\n<worldbody>\n'
                  '<body><freejoint/><geom size="0.1" material="m"/></body>\n</worldbody>\n</mujoco>')
  with pytest.warns(MJCFWarning) as record:
    m = physics.MjModel.from_xml_path(str(path))
  message = str(record[0].message)
  assert message.startswith(f'{path}:4: <texture name="bad"> attribute \'{attribute}\': '), message
  assert fragment in message, message
  assert m.ntex == 2 and m.tex_width[1] == 0 and m.tex_height[1] == 0 and m.tex_adr[1] == m.ntexdata
  assert m.mat_texid[0] == 1
  d = physics.MjData(m)
  physics.mj_step(m, d)
  assert d.qpos[2] < 0


@pytest.mark.parametrize("attrs, attribute, fragment", [
    ('type="cube" file="a.png" gridsize="2 3" gridlayout="RLUD"', "gridlayout", "gridsize 2 x 3 needs 6"),
    ('type="cube" file="a.png" gridsize="1 2" gridlayout="RX"', "gridlayout", "must be among"),
    ('type="cube" file="a.png" gridsize="4 4" gridlayout="................"', "gridsize", "at most 12"),
    ('type="2d" file="a.png" nchannel="2"', "nchannel", "1, 3 or 4"),
    ('type="2d" builtin="flat" width="2" height="2" nchannel="4"', "nchannel", "3 channels"),
    ('type="2d" fileright="a.png"', "fileright", "separate files"),
    ('type="cube"', "builtin", "needs 'builtin', 'file'"),
])
def test_texture_errors(tmp_path, attrs, attribute, fragment):
  text = f'<mujoco>\n<asset>\n<texture name="t" {attrs}/>\n</asset>\n</mujoco>'
  (tmp_path / "a.png").write_bytes(iio.imwrite("<bytes>", np.zeros((6, 6, 3), np.uint8), extension=".png"))
  path = tmp_path / "ref.xml"
  path.write_text(text)
  with pytest.raises(ValueError):
    mujoco.MjModel.from_xml_path(str(path))
  assert_located_error(tmp_path, text, 3, 'texture name="t"', attribute, fragment)


def test_cube_from_ktx_warns(tmp_path):
  (tmp_path / "t.ktx").write_bytes(bytes(range(48)))
  path = tmp_path / "model.xml"
  path.write_text('<mujoco><asset><texture name="t" type="cube" file="t.ktx"/></asset><worldbody/></mujoco>')
  with pytest.warns(MJCFWarning, match="RGB images"):
    m = physics.MjModel.from_xml_path(str(path))
  assert m.tex_width[0] == 0


def _png16(path, pixels):
  """A 16-bit RGB or RGBA PNG (which Pillow does not write)."""
  h, w, c = pixels.shape
  raw = b"".join(b"\0" + pixels[r].astype(">u2").tobytes() for r in range(h))

  def chunk(kind, body):
    return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))

  header = struct.pack(">IIBBBBB", w, h, 16, 2 if c == 3 else 6, 0, 0, 0)
  path.write_bytes(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(raw))
                   + chunk(b"IEND", b""))


def test_png_colour_types(tmp_path):
  """Palettes (with and without transparency), 1-bit grey, an RGB colour key, 16-bit RGB and RGBA: decoded into
  1, 3 and 4 channels as MuJoCo's lodepng decodes them."""
  rng = np.random.default_rng(7)
  rgb = rng.integers(0, 256, (5, 4, 3), dtype=np.uint8)
  palette = Image.fromarray(rgb).convert("P", palette=Image.Palette.ADAPTIVE, colors=6)
  palette.save(tmp_path / "palette.png")
  palette.save(tmp_path / "palette_alpha.png", transparency=2)
  Image.fromarray((rng.integers(0, 2, (5, 4)) * 255).astype(np.uint8)).convert("1").save(tmp_path / "bw.png")
  Image.fromarray(rgb).save(tmp_path / "key.png", transparency=tuple(int(v) for v in rgb[0, 0]))
  _png16(tmp_path / "rgb16.png", rng.integers(0, 65536, (5, 4, 3)).astype(np.uint16))
  _png16(tmp_path / "rgba16.png", rng.integers(0, 65536, (5, 4, 4)).astype(np.uint16))
  names = ("palette", "palette_alpha", "bw", "key", "rgb16", "rgba16")
  textures = "".join(f'<texture name="{n}{c}" type="2d" file="{n}.png" nchannel="{c}"/>' for n in names
                     for c in (1, 3, 4))
  path = tmp_path / "model.xml"
  path.write_text(f"<mujoco><asset>{textures}</asset></mujoco>")
  ref, ours = oracle.models(path)
  _same_textures(ours, ref)


MESH_TEXCOORD_FIELDS = ("nmeshtexcoord", "mesh_texcoordadr", "mesh_texcoordnum", "mesh_texcoord",
                        "mesh_facetexcoord", "mesh_face")

# An OBJ with texture coordinates: triangles, quads (split like their vertices), negative indices and unused
# texture coordinates.
TEXTURED_OBJ = """v 0 0 0
v 1 0 0
v 1 1 0
v 0 1 0
v 0 0 1
v 0.5 1.5 0.3
vt 0 0
vt 1 0
vt 1 1
vt 0.25 0.75
vt 0.5 0.5 0
vt 0.1 0.9
f 1/1 2/2 3/3
f 1/5 3/3 4/4
f -6/-2 -5/-3 -2/-4 -1/-5
f 4/4 3/3 6/1 5/2
f 2/2 3/1 5/3
f 1/1 5/2 4/3 2/5
"""


def _msh(vert, texcoord, face):
  """MuJoCo's legacy binary mesh with texture coordinates one a vertex."""
  head = np.array([len(vert), 0, len(texcoord), len(face)], "<i4").tobytes()
  return (head + np.asarray(vert, "<f4").tobytes() + np.asarray(texcoord, "<f4").tobytes()
          + np.asarray(face, "<i4").tobytes())


def test_mesh_texcoords_as_mujoco_stores_them():
  """mesh_texcoord (OBJ v flipped), mesh_facetexcoord (following the split of polygons and a mirroring scale),
  the addresses (-1 for a mesh without) and counts, from OBJ, MSH and inline data, field for field."""
  vert = [[0, 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, 1], [0.3, 0.3, 0.3]]
  face = [[0, 2, 1], [0, 1, 3], [0, 3, 2], [1, 2, 3]]
  assets = {"t.obj": TEXTURED_OBJ.encode(), "t.msh": _msh(vert, [[0.1 * k, 1 - 0.2 * k] for k in range(5)], face)}
  xml = """<mujoco><asset>
    <mesh name="plain" vertex="0 0 0 1 0 0 0 1 0 0 0 1"/>
    <mesh name="obj" file="t.obj"/>
    <mesh name="mirrored" file="t.obj" scale="1 -1 1"/>
    <mesh name="msh" file="t.msh"/>
    <mesh name="inline" vertex="0 0 0 1 0 0 0 1 0 0 0 1" face="0 2 1 0 1 3 0 3 2 1 2 3"
          texcoord="0 0 1 0 0 1 0.5 0.5"/>
  </asset><worldbody>
    <geom type="mesh" mesh="plain"/><geom type="mesh" mesh="obj"/><geom type="mesh" mesh="mirrored"/>
    <geom type="mesh" mesh="msh"/><geom type="mesh" mesh="inline"/>
  </worldbody></mujoco>"""
  mjm, m = oracle.models(xml, assets)
  assert mjm.nmeshtexcoord == 6 + 6 + 5 + 4  # the test covers every kind
  for name in MESH_TEXCOORD_FIELDS:
    np.testing.assert_array_equal(np.asarray(getattr(m, name)).reshape(-1),
                                  np.asarray(getattr(mjm, name)).reshape(-1), err_msg=name)


def test_obj_face_without_texcoords_discards_them():
  """A face corner naming no texture coordinate makes MuJoCo discard the file's (with a warning): none kept."""
  obj = TEXTURED_OBJ.replace("f 2/2 3/1 5/3", "f 2 3 5")
  mjm, m = oracle.models('<mujoco><asset><mesh file="t.obj"/></asset><worldbody><geom type="mesh" mesh="t"/>'
                         '</worldbody></mujoco>', {"t.obj": obj.encode()})
  assert mjm.nmeshtexcoord == 0
  for name in MESH_TEXCOORD_FIELDS:
    np.testing.assert_array_equal(np.asarray(getattr(m, name)).reshape(-1),
                                  np.asarray(getattr(mjm, name)).reshape(-1), err_msg=name)


def test_mesh_texcoord_errors(tmp_path):
  text = ('<mujoco>\n<asset>\n<mesh name="m" vertex="0 0 0 1 0 0 0 1 0 0 0 1" texcoord="0 0 1 0 0 1"/>\n'
          '</asset>\n<worldbody/>\n</mujoco>')
  path = tmp_path / "model.xml"
  path.write_text(text)
  with pytest.raises(ValueError):
    mujoco.MjModel.from_xml_path(str(path))
  assert_located_error(tmp_path, text, 3, 'mesh name="m"', "texcoord", "2 numbers a vertex")
