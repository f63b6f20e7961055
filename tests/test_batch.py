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


def test_claimed_worlds_each_step_once_on_any_thread_count():
  """Threads claim worlds one at a time (batch.run_batch): with an odd world count, a mask and worlds of very
  different cost (some at rest, some thrown), every selected world steps exactly once per call on 1 and on 2
  threads, the rest not at all, and the results are the same bitwise."""
  m = _model(physics.mjtIntegrator.RK4)
  rng = np.random.default_rng(7)
  nworld = 37
  mask = rng.uniform(size=nworld) < 0.7
  mask[16:21] = True  # around the boundary of two threads' ranges
  qvel0 = np.where(rng.uniform(size=(nworld, 1)) < 0.5, 0.0, rng.normal(scale=3.0, size=(nworld, m.nv)))
  results = []
  for threads in sorted({1, min(2, batch.numba.config.NUMBA_NUM_THREADS)}):
    batch.set_num_threads(threads)
    try:
      b = batch.MjDataBatch(m, nworld)
      b.qvel[:] = qvel0
      for _ in range(3):
        b.step(4, mask)
    finally:
      batch.set_num_threads(batch.numba.config.NUMBA_NUM_THREADS)
    t = 0.0
    for _ in range(12):
      t += m.opt.timestep  # as the integrator advances time
    assert np.array_equal(b.time[:, 0], np.where(mask, t, 0.0)), threads
    assert np.array_equal(b.qvel[~mask], qvel0[~mask])
    results.append(b.qpos.copy())
  assert all(np.array_equal(results[0], r) for r in results)


def test_the_calling_thread_waits_for_the_others_a_bounded_time():
  """batch._finish: task 0 stops reading the finished count as soon as every task is counted, and gives up after
  _SPIN_LIMIT reads when another task never finishes (a worker that lost its core): no hang."""
  stride = batch._CURSOR_STRIDE  # pylint: disable=protected-access
  cursor = np.zeros(3 * stride, np.int64)
  cursor[2 * stride] = 1  # task 1 of 2 has finished
  batch._finish(cursor, 0, 2)  # pylint: disable=protected-access
  assert cursor[2 * stride] == 3  # its own count and one read
  cursor[2 * stride] = 0  # task 1 never finishes
  batch._finish(cursor, 0, 2)  # pylint: disable=protected-access
  assert cursor[2 * stride] == 1 + batch._SPIN_LIMIT  # pylint: disable=protected-access
  cursor[2 * stride] = 0
  batch._finish(cursor, 1, 2)  # pylint: disable=protected-access  (other tasks only count themselves)
  assert cursor[2 * stride] == 1
