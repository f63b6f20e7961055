"""MuJoCo's mj_step1 / mj_step2 split in the compiled pipeline, and the environment step built on it.

An environment step (``MjDataBatch.step_observe``) runs nstep steps and then evaluates the new state for the
observation; built on the split, each state passes the position and velocity stages once (the last mj_step1
serves the observation and the next step). These tests hold it to the plain sequence it replaces (nstep
mj_steps, mj_forward, mj_rnePostConstraint) bitwise, field by field, on models with contacts, every integrator.
"""

import pathlib

import gymnasium
import numpy as np
import pytest

from mjgym import physics
from mjgym.physics import batch

GYM_ASSETS = pathlib.Path(gymnasium.__file__).parent / "envs" / "mujoco" / "assets"
NWORLD = 3
# everything the agent or a reward can read after an environment step
FIELDS = ("qpos", "qvel", "act", "time", "sensordata", "qacc", "qacc_warmstart", "xpos", "xquat", "xipos",
          "cvel", "cacc", "cfrc_int", "cfrc_ext", "qfrc_actuator", "qfrc_constraint", "actuator_force",
          "efc_force", "ncon", "energy", "warning_number")


def _model(name, integrator=None):
  m = physics.MjModel.from_xml_path(str(GYM_ASSETS / name))
  if integrator is not None:
    m.opt.integrator = int(integrator)
  return m


def _batches(m, seed):
  """Two batches of NWORLD worlds in the same random state, evaluated (an environment reset)."""
  rng = np.random.default_rng(seed)
  qvel = rng.normal(scale=0.3, size=(NWORLD, m.nv))
  pair = []
  for _ in range(2):
    b = batch.MjDataBatch(m, NWORLD)
    b.qvel[:] = qvel
    b.observe()
    pair.append(b)
  return pair


def _assert_equal(a, b, what):
  for f in FIELDS:
    assert np.array_equal(getattr(a, f), getattr(b, f)), f"{what}: {f}"


CASES = [("hopper.xml", physics.mjtIntegrator.RK4), ("hopper.xml", physics.mjtIntegrator.EULER),
         ("ant.xml", physics.mjtIntegrator.RK4), ("ant.xml", physics.mjtIntegrator.IMPLICITFAST),
         ("humanoid.xml", physics.mjtIntegrator.IMPLICIT), ("half_cheetah.xml", physics.mjtIntegrator.EULER)]


@pytest.mark.parametrize("name,integrator", CASES, ids=[f"{n[:-4]}-{i.name}" for n, i in CASES])
def test_env_step_equals_steps_then_forward(name, integrator):
  m = _model(name, integrator)
  split, plain = _batches(m, 0)
  rng = np.random.default_rng(1)
  contacts = 0
  for k in range(30):
    ctrl = rng.uniform(-1, 1, size=(NWORLD, m.nu))
    split.ctrl[:] = ctrl
    plain.ctrl[:] = ctrl
    split.step_observe(4)
    plain.step(4)
    plain.forward()
    for w in range(NWORLD):
      physics.mj_rnePostConstraint(m, plain[w])
    _assert_equal(split, plain, f"step {k}")
    contacts += split.ncon.sum()
  assert contacts > 0  # the constraint solver's outputs were compared too


@pytest.mark.parametrize("name", ["ant.xml", "hopper.xml"])
def test_derived_env_step_equals_gymnasium_step_then_observation(name):
  """The path of a reward that reads derived fields: step_derived leaves what step_rne leaves, then observe."""
  m = _model(name)
  split, plain = _batches(m, 2)
  rng = np.random.default_rng(3)
  for k in range(20):
    ctrl = rng.uniform(-1, 1, size=(NWORLD, m.nu))
    split.ctrl[:] = ctrl
    plain.ctrl[:] = ctrl
    split.step_derived(5)
    plain.step_rne(5)
    _assert_equal(split, plain, f"step {k}, before the observation")
    split.observe()
    plain.observe()
    _assert_equal(split, plain, f"step {k}, observed")


def test_state_set_between_steps_is_evaluated_anew():
  """set_state (and the plain mj_step) invalidate the step1 an environment step would start from."""
  m = _model("hopper.xml")
  split, plain = _batches(m, 4)
  split.step_observe(4)
  plain.step_observe(4)
  spec = physics.mjtState.mjSTATE_QPOS | physics.mjtState.mjSTATE_QVEL
  state = split.get_state(spec) + np.random.default_rng(5).normal(scale=0.1, size=(NWORLD, m.nq + m.nv))
  split.set_state(state, spec)
  assert not split.step1_valid.any()
  plain.set_state(state, spec)
  plain.observe()
  split.step_observe(4)
  plain.step(4)
  plain.forward()
  for w in range(NWORLD):
    physics.mj_rnePostConstraint(m, plain[w])
  _assert_equal(split, plain, "after set_state")
  split.step(1)
  assert not split.step1_valid.any()


def test_step1_then_step2_is_mj_step():
  """The compiled mj_step1 / mj_step2 (OP_STEP1, OP_STEP2) against mj_step, Euler and implicit."""
  from mjgym.physics import forward  # pylint: disable=import-outside-toplevel
  for integrator in (physics.mjtIntegrator.EULER, physics.mjtIntegrator.IMPLICITFAST):
    m = _model("ant.xml", integrator)
    d1, d2 = physics.MjData(m), physics.MjData(m)
    rng = np.random.default_rng(6)
    run = forward.entry(m)
    for _ in range(50):
      d1.ctrl[:] = d2.ctrl[:] = rng.uniform(-1, 1, m.nu)
      run(m._struct, d1._struct, forward.OP_STEP1, 0)
      assert d1.step1_valid == 1
      run(m._struct, d1._struct, forward.OP_STEP2, 0)
      physics.mj_step(m, d2)
    for f in ("qpos", "qvel", "qacc", "efc_force", "sensordata"):
      assert np.array_equal(d1._fields[f], d2._fields[f]), f"{integrator.name}: {f}"
