"""Lazy kernels (physics/_jit/link.py, forward.prepare): compiled only for models that use them, prepared exactly when
the pipeline calls them, and a call through an unprepared one is an error, never a jump to nowhere."""

import itertools
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import mjgym
from mjgym import physics as mj
from mjgym.physics import forward
from mjgym.physics.types import EnableBit
from mjgym.physics.types import IntegratorType
from mjgym.physics.types import SolverType

from oracle import MODELS_DIR, gym_asset  # noqa: E402  pylint: disable=wrong-import-position


def _empty_cells():
  """Forgets in this process that any lazy kernel was prepared (their compiled code stays loaded)."""
  for kernel, _, _ in forward._LAZY:  # pylint: disable=protected-access
    for cell, _ in kernel._cells.values():  # pylint: disable=protected-access
      cell.value = 0


_FILES = sorted(str(p) for p in MODELS_DIR.glob("*.xml")) + [gym_asset(n) for n in ("hopper", "humanoid", "ant")]


@pytest.mark.parametrize("path", _FILES, ids=lambda p: os.path.basename(p))
def test_every_pipeline_path_finds_its_lazy_kernels_prepared(path):
  """Each model under every integrator, solver, noslip and energy setting steps (single and batched) with only the
  lazy kernels forward.prepare chose for it: a kernel the pipeline calls but prepare skipped would raise."""
  try:
    m = mj.MjModel.from_xml_path(path)
  except mj.MJCFError:
    pytest.skip("not a standalone model")
  combos = itertools.product(
      (IntegratorType.EULER, IntegratorType.RK4, IntegratorType.IMPLICIT, IntegratorType.IMPLICITFAST),
      (SolverType.PGS, SolverType.CG, SolverType.NEWTON), (0, 2), (0, int(EnableBit.ENERGY)))
  for integrator, solver, noslip, energy in combos:
    m.opt.integrator, m.opt.solver, m.opt.noslip_iterations = integrator, solver, noslip
    m.opt.enableflags = energy
    _empty_cells()
    object.__setattr__(m, "_lazy_ready", None)
    d = mj.MjData(m)
    mj.mj_step(m, d, 3)
    mj.mj_forward(m, d)
    batch = mj.MjDataBatch(m, 2)
    batch.step(2)
    assert np.isfinite(d.qacc).all() or d.warning[0].number >= 0


def test_every_lazy_kernel_is_cacheable():
  """No lazy kernel holds a process-specific address (numba would recompile it in every process: a dispatcher
  passed as a value once did this to the PGS solver)."""
  for kernel, argtypes in forward.lazy_kernels():
    kernel.prepare(argtypes)
    assert not kernel.dispatcher.overloads[argtypes].library.has_dynamic_globals, kernel


def test_a_call_through_an_unprepared_kernel_raises():
  m = mj.MjModel.from_xml_path(str(MODELS_DIR / "slide_bodies.xml"))
  m.opt.integrator = IntegratorType.IMPLICITFAST
  d = mj.MjData(m)
  mj.mj_step(m, d)  # prepares implicit
  _empty_cells()
  with pytest.raises(RuntimeError, match="mjgym kernel mjgym.physics.[a-z_.]+ was not prepared"):
    forward.run(m._struct, d._struct, forward.OP_STEP, 1)  # the entry without forward.prepare
  object.__setattr__(m, "_lazy_ready", None)  # (cells are never emptied outside this test)
  mj.mj_step(m, d)  # the public path prepares it again
  assert np.isfinite(d.qpos).all()


def test_a_batch_prepares_its_lazy_kernels_itself():
  """The world-parallel entry prepares what the model needs without a single-world call before it."""
  m = mj.MjModel.from_xml_path(gym_asset("humanoid"))  # PGS, tendons, acceleration sensors
  _empty_cells()
  object.__setattr__(m, "_lazy_ready", None)  # (loading prepared it; cells are never emptied outside this test)
  batch = mj.MjDataBatch(m, 3)
  batch.step(2)
  assert np.isfinite(batch.qpos).all()


def test_changing_options_between_steps_prepares_the_new_path():
  m = mj.MjModel.from_xml_path(gym_asset("hopper"))
  d = mj.MjData(m)
  mj.mj_step(m, d, 5)
  ref = mj.MjData(m)
  mj.mj_step(m, ref, 5)
  for integrator in (IntegratorType.IMPLICIT, IntegratorType.EULER, IntegratorType.RK4):
    m.opt.integrator = integrator
    mj.mj_step(m, d, 5)
    mj.mj_step(m, ref, 5)
  np.testing.assert_array_equal(d.qpos, ref.qpos)


_FRESH = textwrap.dedent("""
    import gymnasium as gym, mjgym
    from mjgym.physics import constraint, energy, forward, sensor, smooth, solver
    env = gym.make("MjHopper-v0")
    env.reset(seed=0)
    env.step(env.action_space.sample())
    for kernel, _, _ in forward._LAZY:
      print(kernel.__module__ + "." + kernel.__qualname__, len(kernel.dispatcher.overloads))
    """)


def test_a_hopper_process_compiles_only_the_lazy_kernels_it_uses():
  """In a new process (the cache warm from the session's prewarm), the hopper (RK4, Newton, no tendons, equality,
  energy, acceleration sensors or rangefinders) loads exactly two lazy kernels."""
  env = dict(os.environ, PYTHONPATH=os.path.dirname(os.path.dirname(mjgym.__file__)), MJGYM_COMPILE_PROGRESS="0")
  out = subprocess.run([sys.executable, "-c", _FRESH], env=env, capture_output=True, text=True, timeout=600,
                       check=True).stdout
  loaded = {name for name, count in (line.split() for line in out.strip().splitlines()) if int(count)}
  assert loaded == {"mjgym.physics.forward.rungekutta4", "mjgym.physics.solver._solve_primal"}
