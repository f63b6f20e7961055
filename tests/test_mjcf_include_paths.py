"""Files named inside <include>d files, found where MuJoCo finds them.

MuJoCo treats an include as text: a mesh, texture or height field file (and a nested include) is looked up
relative to the main model's directory and the compiler's meshdir / texturedir / assetdir, not relative to
the included file; only a file missing there is looked up relative to the included file's directory (under
meshdir or texturedir). The models are written into tmp_path so that the two rules find different files.
"""

import imageio.v3 as iio
import numpy as np
import pytest

import oracle
from mjgym import physics


def _tetrahedron(path, size):
  path.parent.mkdir(parents=True, exist_ok=True)
  path.write_text(f"v 0 0 0\nv {size} 0 0\nv 0 {size} 0\nv 0 0 {size}\nf 1 3 2\nf 1 2 4\nf 1 4 3\nf 2 3 4\n")


def _png(path, value):
  path.parent.mkdir(parents=True, exist_ok=True)
  iio.imwrite(path, np.array([[value, 0], [255 - value, 7]], np.uint8))


def _model(root, compiler):
  (root / "sub").mkdir(parents=True, exist_ok=True)
  (root / "main.xml").write_text(
      f'<mujoco><compiler {compiler}/><include file="sub/part.xml"/>'
      '<worldbody><geom type="mesh" mesh="tet"/><geom type="hfield" hfield="hf"/></worldbody></mujoco>')
  (root / "sub" / "part.xml").write_text(
      '<mujoco><include file="inner.xml"/><asset><mesh file="tet.obj"/><texture name="t" type="2d" file="t.png"/>'
      '<hfield name="hf" file="hf.png" size="1 1 1 1"/></asset></mujoco>')
  return root / "main.xml"


def _same(path):
  ref, ours = oracle.models(path)
  np.testing.assert_array_equal(ours.mesh_vert, ref.mesh_vert)
  np.testing.assert_array_equal(ours.tex_data, ref.tex_data)
  np.testing.assert_array_equal(ours.hfield_data, ref.hfield_data.astype(float))
  assert ours.names_of(physics.mjtObj.mjOBJ_MATERIAL) == [ref.material(i).name for i in range(ref.nmat)]
  return ours


def _inner(path, name):
  path.write_text(f'<mujoco><asset><material name="{name}"/></asset></mujoco>')


@pytest.mark.parametrize("compiler", ['angle="radian"', 'meshdir="meshes" texturedir="textures"',
                                      'assetdir="assets"'])
def test_main_directory_first(tmp_path, compiler):
  """Every file exists both beside the main model and beside the included file: the main model's wins."""
  path = _model(tmp_path, compiler)
  dirs = {"meshdir": "", "texturedir": "", "assetdir": ""}
  for word in compiler.split():
    key, value = word.split("=")
    dirs[key] = value.strip('"')
  meshdir = dirs["meshdir"] or dirs["assetdir"]
  texturedir = dirs["texturedir"] or dirs["assetdir"]
  _tetrahedron(tmp_path / meshdir / "tet.obj", 1.0)
  _tetrahedron(tmp_path / "sub" / meshdir / "tet.obj", 2.0)
  _png(tmp_path / texturedir / "t.png", 10)
  _png(tmp_path / "sub" / texturedir / "t.png", 200)
  # a height field is checked for under assetdir, then read from under meshdir (MuJoCo's reader and compiler)
  _png(tmp_path / dirs["assetdir"] / "hf.png", 30)
  _png(tmp_path / meshdir / "hf.png", 60)
  _png(tmp_path / "sub" / "hf.png", 90)
  _inner(tmp_path / "inner.xml", "beside_main")
  _inner(tmp_path / "sub" / "inner.xml", "beside_part")
  ours = _same(path)
  assert ours.names_of(physics.mjtObj.mjOBJ_MATERIAL) == ["beside_main"]
  assert np.ptp(ours.mesh_vert[:, 0]) < 1.0
  assert ours.tex_data[0] == 10


def test_included_directory_as_fallback(tmp_path):
  """Files only beside the included file are found there (MuJoCo's fallback)."""
  path = _model(tmp_path, 'angle="radian"')
  _tetrahedron(tmp_path / "sub" / "tet.obj", 2.0)
  _png(tmp_path / "sub" / "t.png", 200)
  _png(tmp_path / "sub" / "hf.png", 90)
  _inner(tmp_path / "sub" / "inner.xml", "beside_part")
  ours = _same(path)
  assert ours.names_of(physics.mjtObj.mjOBJ_MATERIAL) == ["beside_part"]
  assert ours.tex_data[0] == 200


@pytest.mark.parametrize("relative", [False, True])
def test_fallback_with_asset_directories(tmp_path, monkeypatch, relative):
  """With meshdir and texturedir, the fallback is the included file's directory as MuJoCo opened it, joined
  below the main directory and meshdir or texturedir: the included file's own directory for an absolute model
  path, <meshdir>/<folder of the include> for a model path relative to the working directory."""
  path = _model(tmp_path, 'meshdir="meshes" texturedir="textures"')
  if relative:
    monkeypatch.chdir(tmp_path)
    path = path.name
    _tetrahedron(tmp_path / "meshes" / "sub" / "tet.obj", 2.0)
    _png(tmp_path / "textures" / "sub" / "t.png", 200)
    _png(tmp_path / "meshes" / "sub" / "hf.png", 90)
  else:
    _tetrahedron(tmp_path / "sub" / "tet.obj", 2.0)
    _png(tmp_path / "sub" / "t.png", 200)
    _png(tmp_path / "sub" / "hf.png", 90)
  # (the height field was not found under assetdir, here the main directory: it falls back the same way)
  _inner(tmp_path / "inner.xml", "beside_main")
  ours = _same(path)
  assert np.ptp(ours.mesh_vert[:, 0]) > 1.0
  assert ours.tex_data[0] == 200


def test_worldbody_elements_make_one_world_body(tmp_path):
  """A second <worldbody> (here from an include after the first) adds to the one world body: its geoms are
  numbered with the world's, before every body's, as in MuJoCo."""
  (tmp_path / "robot.xml").write_text(
      '<mujoco><worldbody><geom name="post" size="0.1" pos="1 0 0"/><body name="a"><freejoint/>'
      '<geom name="a" size="0.1"/><body name="b" pos="0 0 1"><joint/><geom name="b" size="0.1"/></body></body>'
      '</worldbody></mujoco>')
  path = tmp_path / "main.xml"
  path.write_text('<mujoco><include file="robot.xml"/><worldbody><geom name="floor" type="plane" size="1 1 1"/>'
                  '<body name="c"><freejoint/><geom name="c" size="0.2"/></body></worldbody></mujoco>')
  ref, ours = oracle.models(path)
  assert ours.names_of(physics.mjtObj.mjOBJ_GEOM) == [ref.geom(i).name for i in range(ref.ngeom)]
  assert ours.names_of(physics.mjtObj.mjOBJ_BODY) == [ref.body(i).name for i in range(ref.nbody)]
  np.testing.assert_array_equal(ours.geom_bodyid, ref.geom_bodyid)
