"""Counts read as Python numbers; copy.copy, copy.deepcopy and pickle of MjModel, MjData and MjDataBatch."""

import copy
import pathlib
import pickle

import mujoco
import numpy as np
import pytest

from mjgym import physics
from mjgym.physics import batch as physics_batch
from mjgym.physics import types

ASSETS = pathlib.Path(physics.__file__).resolve().parents[1] / "assets"
SCALARS = ("ncon", "ne", "nf", "nl", "nefc", "nisland", "nidof")


def _stepped(name="hopper.xml", nstep=30):
  m = physics.MjModel.from_xml_path(ASSETS / name)
  d = physics.MjData(m)
  rng = np.random.default_rng(0)
  d.qvel[:] = rng.normal(0, 0.5, m.nv)
  d.ctrl[:] = rng.uniform(-1, 1, m.nu)
  physics.mj_step(m, d, nstep)
  return m, d


def _assert_fields_equal(a, b):
  for name, _, _ in types.DATA_ROWS:
    np.testing.assert_array_equal(a._fields[name], b._fields[name], err_msg=name)


def _assert_models_equal(a, b):
  for name, _, _ in types.MODEL_ROWS:
    np.testing.assert_array_equal(a._fields[name], b._fields[name], err_msg=name)
  assert a._names == b._names


def test_counts_are_python_ints_like_the_bindings():
  m, d = _stepped(nstep=300)
  mjm = mujoco.MjModel.from_xml_path(str(ASSETS / "hopper.xml"))
  mjd = mujoco.MjData(mjm)
  mjd.qpos[:], mjd.qvel[:], mjd.ctrl[:] = d.qpos, d.qvel, d.ctrl
  mujoco.mj_forward(mjm, mjd)
  physics.mj_forward(m, d)
  assert d.ncon > 0
  for name in SCALARS:
    assert type(getattr(d, name)) is int, name  # pylint: disable=unidiomatic-typecheck
    assert type(getattr(mjd, name)) is int, name  # pylint: disable=unidiomatic-typecheck
  for name in ("ncon", "ne", "nf", "nl", "nefc"):
    assert getattr(d, name) == getattr(mjd, name), name
  assert type(d.time) is float  # pylint: disable=unidiomatic-typecheck
  # the compiled storage is still the one-element array, written in place by the step
  storage = d._fields["ncon"]
  assert storage.shape == (1,) and d._struct is not None
  physics.mj_step(m, d)
  assert d._fields["ncon"] is storage and storage[0] == d.ncon
  d.ncon = 0
  assert storage[0] == 0
  # slicing with a count works as in the bindings
  assert d.contact_pos[:d.ncon].shape == (0, 3)


def test_model_copies_are_deep_and_equal():
  m, _ = _stepped()
  for copied in (copy.copy(m), copy.deepcopy(m), pickle.loads(pickle.dumps(m))):
    assert copied is not m
    _assert_models_equal(copied, m)
    assert copied.source == m.source and copied.needs_ccd == m.needs_ccd
    copied.body_mass[1] += 1.0
    copied.opt.timestep = 0.5
    assert copied.body_mass[1] != m.body_mass[1] and m.opt.timestep != 0.5
    assert copied.body("torso").id == m.body("torso").id


@pytest.mark.parametrize("how", ["copy", "deepcopy", "pickle"])
def test_data_copy_steps_bitwise_like_the_original_and_independently(how):
  m, d = _stepped("hopper.xml")
  copied = {"copy": copy.copy, "deepcopy": copy.deepcopy,
            "pickle": lambda x: pickle.loads(pickle.dumps(x))}[how](d)
  # bindings: copy.copy binds the copy to the same model; deepcopy and pickle copy the model too
  assert (copied.model is m) == (how == "copy")
  _assert_fields_equal(copied, d)
  before = {n: d._fields[n].copy() for n, _, _ in types.DATA_ROWS}
  physics.mj_step(copied.model, copied, 20)
  for name, _, _ in types.DATA_ROWS:
    np.testing.assert_array_equal(d._fields[name], before[name], err_msg=f"original changed: {name}")
  physics.mj_step(m, d, 20)
  _assert_fields_equal(copied, d)


def test_deepcopy_and_pickle_share_the_model_within_one_object_graph():
  m, d = _stepped("humanoid.xml", 10)
  d2 = copy.copy(d)
  copies = (copy.deepcopy((m, d, d2)), pickle.loads(pickle.dumps((m, d, d2))))
  physics.mj_step(m, d, 5)
  for m_copy, d_copy, d2_copy in copies:
    assert d_copy.model is m_copy and d2_copy.model is m_copy
    _assert_models_equal(m_copy, m)
    physics.mj_step(m_copy, d_copy, 5)
    _assert_fields_equal(d_copy, d)


def test_copy_of_a_batch_world_is_standalone():
  m = physics.MjModel.from_xml_path(ASSETS / "hopper.xml")
  b = physics_batch.MjDataBatch(m, 3)
  b.qvel[:] = np.random.default_rng(1).normal(0, 0.3, (3, m.nv))
  b.step(5)
  world = copy.copy(b[1])
  physics.mj_step(m, world, 5)
  assert not np.array_equal(world.qpos, b.qpos[1])
  b.step(5)
  np.testing.assert_array_equal(world.qpos, b.qpos[1])


@pytest.mark.parametrize("how", ["copy", "deepcopy", "pickle"])
def test_batch_copies(how):
  m = physics.MjModel.from_xml_path(ASSETS / "hopper.xml")
  b = physics_batch.MjDataBatch(m, 4)
  b.randomize("body_mass")["body_mass"][:, 1] *= np.array([1.0, 1.1, 1.2, 1.3])
  b.qvel[:] = np.random.default_rng(2).normal(0, 0.3, (4, m.nv))
  b.step(5)
  copied = {"copy": copy.copy, "deepcopy": copy.deepcopy,
            "pickle": lambda x: pickle.loads(pickle.dumps(x))}[how](b)
  assert copied.nworld == 4 and (copied.model is m) == (how == "copy")
  np.testing.assert_array_equal(copied.world_model["body_mass"], b.world_model["body_mass"])
  qpos = b.qpos.copy()
  copied.step(10)
  np.testing.assert_array_equal(b.qpos, qpos)
  b.step(10)
  for name, _, _ in types.DATA_ROWS:
    np.testing.assert_array_equal(getattr(copied, name), getattr(b, name), err_msg=name)
