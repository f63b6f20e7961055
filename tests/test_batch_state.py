"""MjDataBatch.get_state / set_state: per-world state vectors equal to mj_getState / mj_setState on each world."""

import numpy as np
import pytest

import oracle
from mjgym import physics

SPECS = [int(physics.mjtState.mjSTATE_FULLPHYSICS), int(physics.mjtState.mjSTATE_INTEGRATION),
         int(physics.mjtState.mjSTATE_USER), int(physics.mjtState.mjSTATE_QPOS | physics.mjtState.mjSTATE_EQ_ACTIVE)]


def _batch(nworld=5, seed=0):
  m = physics.MjModel.from_xml_string(oracle.STATE_XML)
  batch = physics.MjDataBatch(m, nworld)
  rng = np.random.default_rng(seed)
  for name in ("qpos", "qvel", "act", "qacc_warmstart", "ctrl", "qfrc_applied", "xfrc_applied", "mocap_pos",
               "mocap_quat"):
    getattr(batch, name)[...] = rng.normal(size=getattr(batch, name).shape)
  batch.time[...] = rng.normal(size=batch.time.shape)
  batch.eq_active[...] = rng.integers(0, 2, batch.eq_active.shape)
  return m, batch


@pytest.mark.parametrize("spec", SPECS)
@pytest.mark.parametrize("worlds", [None, [True, False, True, True, False], [4, 0, 2], np.array([3])])
def test_get_state_is_mj_getstate_per_world(spec, worlds):
  m, batch = _batch()
  got = batch.get_state(spec, worlds)
  index = np.arange(5) if worlds is None else (np.nonzero(worlds)[0] if np.asarray(worlds).dtype == bool
                                               else np.asarray(worlds))
  assert got.shape == (len(index), physics.mj_stateSize(m, spec))
  for k, w in enumerate(index):
    vec = np.empty(physics.mj_stateSize(m, spec))
    physics.mj_getState(m, batch[int(w)], vec, spec)
    np.testing.assert_array_equal(got[k], vec)


@pytest.mark.parametrize("spec", SPECS)
def test_set_state_is_mj_setstate_per_world(spec):
  m, batch = _batch()
  _, other = _batch()
  values = _batch(seed=1)[1].get_state(spec, [2, 0])  # valid vectors (eq_active 0 or 1)
  batch.set_state(values, spec, worlds=[3, 1])
  for k, w in enumerate([3, 1]):
    physics.mj_setState(m, other[w], values[k], spec)
  for name, arr in batch._fields.items():  # pylint: disable=protected-access
    np.testing.assert_array_equal(arr, other._fields[name], err_msg=name)  # pylint: disable=protected-access
  # one vector for all the selected worlds
  batch.set_state(values[0], spec, worlds=np.array([True, False, False, False, True]))
  np.testing.assert_array_equal(batch.get_state(spec, [0, 4]), values[[0, 0]])


def test_round_trip_and_errors():
  m, batch = _batch()
  spec = int(physics.mjtState.mjSTATE_INTEGRATION)
  saved = batch.get_state(spec)
  batch.step(3)
  batch.set_state(saved, spec)
  np.testing.assert_array_equal(batch.get_state(spec), saved)
  with pytest.raises(ValueError, match="shape"):
    batch.set_state(saved[:, :-1], spec)
  with pytest.raises(ValueError, match="shape"):
    batch.set_state(saved[:3], spec)
  with pytest.raises(ValueError, match="mask"):
    batch.get_state(spec, [True, False])
  with pytest.raises(IndexError):
    batch.get_state(spec, [7])
  with pytest.raises(physics.FatalError, match="signature"):
    batch.get_state(1 << 20)
  assert batch.state_size(spec) == physics.mj_stateSize(m, spec)
