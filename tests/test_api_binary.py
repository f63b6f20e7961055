"""mj_saveModel / MjModel.from_binary_path: mjgym's own versioned binary model files."""

import pathlib
import struct

import mujoco
import numpy as np
import pytest

import oracle
from mjgym import physics
from mjgym.physics import binary
from mjgym.physics import types

ASSETS = pathlib.Path(physics.__file__).resolve().parents[1] / "assets"
MODELS = [ASSETS / "humanoid.xml", ASSETS / "ant.xml", oracle.MODELS_DIR / "mesh_geoms.xml",
          oracle.MODELS_DIR / "hfield_terrain.xml", oracle.MODELS_DIR / "tendon_spatial.xml"]


def _assert_models_equal(a, b):
  for name, _, shape in types.MODEL_ROWS:
    x, y = a._fields[name], b._fields[name]
    if shape is None:
      assert type(x) is int and x == y, name  # pylint: disable=unidiomatic-typecheck
    else:
      assert x.dtype == y.dtype and x.flags.c_contiguous and x.flags.writeable, name
      np.testing.assert_array_equal(x, y, err_msg=name)
  assert a._names == b._names and a.source == b.source


@pytest.mark.parametrize("path", MODELS, ids=lambda p: p.stem)
def test_round_trip_field_by_field_and_steps_bitwise(path, tmp_path):
  m = physics.MjModel.from_xml_path(path)
  m.opt.timestep = 0.003  # edits made after compiling travel too
  filename = tmp_path / "model.mjgym"
  physics.mj_saveModel(m, str(filename))
  loaded = physics.MjModel.from_binary_path(str(filename))
  _assert_models_equal(loaded, m)
  assert loaded.needs_ccd == m.needs_ccd
  d, d2 = physics.MjData(m), physics.MjData(loaded)
  for data in (d, d2):
    data.ctrl[:] = 0.3
  physics.mj_step(m, d, 20)
  physics.mj_step(loaded, d2, 20)
  np.testing.assert_array_equal(d2.qpos, d.qpos)
  np.testing.assert_array_equal(d2.qacc, d.qacc)


def test_buffer_and_assets(tmp_path):
  m = physics.MjModel.from_xml_path(ASSETS / "hopper.xml")
  buffer = np.zeros(physics.mj_sizeModel(m), np.uint8)
  physics.mj_saveModel(m, None, buffer)
  loaded = physics.MjModel.from_binary_path("hopper.mjgym", assets={"hopper.mjgym": buffer.tobytes()})
  _assert_models_equal(loaded, m)
  with pytest.raises(ValueError, match="mj_sizeModel"):
    physics.mj_saveModel(m, None, np.zeros(10, np.uint8))
  with pytest.raises(ValueError, match="filename or a buffer"):
    physics.mj_saveModel(m)


def test_load_runs_without_the_mjcf_compiler(monkeypatch, tmp_path):
  """The binary format is the compiled model itself: loading it never reaches the MJCF parser or compiler (its
  speed beside MJCF loading is measured in benchmarks/bench_api.py, not here)."""
  from mjgym.physics import mjcf  # pylint: disable=import-outside-toplevel
  path = ASSETS / "humanoid.xml"
  filename = tmp_path / "humanoid.mjgym"
  original = physics.MjModel.from_xml_path(path)
  physics.mj_saveModel(original, str(filename))

  def refuse(*args, **kwargs):
    raise AssertionError("the MJCF compiler was called")
  for name in ("load_path", "load_string", "_compile"):
    monkeypatch.setattr(mjcf, name, refuse)
  with pytest.raises(AssertionError, match="compiler was called"):
    physics.MjModel.from_xml_path(path)  # the patch is in effect
  _assert_models_equal(original, physics.MjModel.from_binary_path(str(filename)))


def test_bad_files_are_refused(tmp_path):
  m = physics.MjModel.from_xml_path(ASSETS / "hopper.xml")
  good = binary.to_bytes(m)
  cases = {
      "version": good[:8] + struct.pack("<I", 99) + good[12:],
      "damaged": good[:200] + bytes([good[200] ^ 1]) + good[201:],
      "truncated": good[:-100],
      "not ours": b"\x00" * 100,
  }
  messages = {"version": "format version 99, this mjgym reads version 1", "damaged": "checksum",
              "truncated": "checksum", "not ours": "not an mjgym binary model"}
  for what, data in cases.items():
    path = tmp_path / f"{what}.mjgym"
    path.write_bytes(data)
    with pytest.raises(binary.BinaryModelError, match=messages[what]):
      physics.MjModel.from_binary_path(str(path))
  # MuJoCo's own MJB
  mjb = tmp_path / "hopper.mjb"
  mujoco.mj_saveModel(mujoco.MjModel.from_xml_path(str(ASSETS / "hopper.xml")), str(mjb), None)
  with pytest.raises(ValueError, match="MuJoCo's own .mjb files cannot be read"):
    physics.MjModel.from_binary_path(str(mjb))


def test_other_field_table_is_refused(monkeypatch, tmp_path):
  m = physics.MjModel.from_xml_path(ASSETS / "hopper.xml")
  path = tmp_path / "hopper.mjgym"
  physics.mj_saveModel(m, str(path))
  monkeypatch.setattr(types, "MODEL_ROWS", types.MODEL_ROWS + [("new_field", "float", ("nbody",))])
  with pytest.raises(binary.BinaryModelError, match="another model field table"):
    physics.MjModel.from_binary_path(str(path))
