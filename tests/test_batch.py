"""Batched worlds: a world stepped inside a batch equals the same world stepped alone, bitwise."""

import numpy as np

import oracle
from mjgym import physics
from mjgym.physics import batch

NWORLD = 64
FIELDS = ("qpos", "qvel", "act", "qacc", "xpos", "qfrc_actuator", "time")


def _model(integrator):
  m = physics.MjModel.from_xml_path(str(oracle.MODELS_DIR / "trajectory.xml"))
  m.opt.integrator = int(integrator)
  return m


def _initial_states(m, rng):
  return rng.normal(scale=0.5, size=(NWORLD, m.nv)), rng.uniform(-1, 1, size=(NWORLD, 20, m.nu))


def test_batch_equals_single_worlds_bitwise():
  """64 worlds with different states and controls, 20 control periods of 5 steps each, every integrator."""
  rng = np.random.default_rng(1)
  for integrator in physics.mjtIntegrator:
    m = _model(integrator)
    qvel0, ctrls = _initial_states(m, rng)
    b = batch.MjDataBatch(m, NWORLD)
    b.qvel[:] = qvel0
    singles = [physics.MjData(m) for _ in range(NWORLD)]
    for w, d in enumerate(singles):
      d.qvel[:] = qvel0[w]
    for k in range(ctrls.shape[1]):
      b.ctrl[:] = ctrls[:, k]
      b.step(5)
      for w, d in enumerate(singles):
        d.ctrl[:] = ctrls[w, k]
        physics.mj_step(m, d, 5)
    for w, d in enumerate(singles):
      for f in FIELDS:
        assert np.array_equal(getattr(b, f)[w], d._fields[f]), f"{integrator.name} world {w} field {f}"
    assert not np.array_equal(b.qpos[0], b.qpos[1])  # the worlds really differ


def test_batch_world_views_share_memory_and_reset_mask():
  m = _model(physics.mjtIntegrator.EULER)
  b = batch.MjDataBatch(m, 4)
  b[2].qvel[:] = 1.0
  assert np.all(b.qvel[2] == 1.0) and np.all(b.qvel[1] == 0.0)
  b.step(10)
  moved = b.qpos.copy()
  b.reset(np.array([False, False, True, False]))
  assert np.array_equal(b.qpos[2], m.qpos0) and b.time[2, 0] == 0.0
  assert np.array_equal(b.qpos[0], moved[0]) and b.time[0, 0] > 0
