"""mjtState, mj_stateSize, mj_getState, mj_setState, mj_copyData and mj_setConst against MuJoCo."""

import pathlib

import mujoco
import numpy as np
import pytest

import oracle
from mjgym import physics
from mjgym.physics import types

ASSETS = pathlib.Path(physics.__file__).resolve().parents[1] / "assets"


ELEMENTS = [physics.mjtState[name] for name in physics.mjtState.__members__
            if name.startswith("mjSTATE_") and bin(physics.mjtState[name]).count("1") == 1]
COMPOSITES = [int(mujoco.mjtState.mjSTATE_PHYSICS), int(mujoco.mjtState.mjSTATE_FULLPHYSICS),
              int(mujoco.mjtState.mjSTATE_USER), int(mujoco.mjtState.mjSTATE_INTEGRATION), 12345]


def _pair():
  mjm, mjd, m, d = oracle.load_both(oracle.STATE_XML)
  rng = np.random.default_rng(3)
  for data in (mjd, d):
    rng = np.random.default_rng(3)
    data.time = 1.25
    data.qpos[:] = rng.normal(size=m.nq)
    data.qvel[:] = rng.normal(size=m.nv)
    data.act[:] = rng.normal(size=m.na)
    data.qacc_warmstart[:] = rng.normal(size=m.nv)
    data.ctrl[:] = rng.normal(size=m.nu)
    data.qfrc_applied[:] = rng.normal(size=m.nv)
    data.xfrc_applied[:] = rng.normal(size=(m.nbody, 6))
    data.eq_active[:] = [0, 1]
    data.mocap_pos[:] = rng.normal(size=(1, 3))
    data.mocap_quat[:] = rng.normal(size=(1, 4))
  return mjm, mjd, m, d


def test_enum_matches_mujoco():
  assert len(ELEMENTS) == mujoco.mjtState.mjNSTATE == 15
  theirs = {name: int(value) for name, value in mujoco.mjtState.__members__.items()}
  ours = {name: int(value) for name, value in physics.mjtState.__members__.items() if name.startswith("mj")}
  assert ours == theirs
  assert physics.mjtState.mjSTATE_QPOS == physics.mjtState.QPOS == 2


@pytest.mark.parametrize("sig", [int(s) for s in ELEMENTS] + COMPOSITES)
def test_state_matches_mujoco(sig):
  mjm, mjd, m, d = _pair()
  size = physics.mj_stateSize(m, sig)
  assert size == mujoco.mj_stateSize(mjm, sig)
  ours, theirs = np.full(size, np.nan), np.full(size, np.nan)
  physics.mj_getState(m, d, ours, sig)
  mujoco.mj_getState(mjm, mjd, theirs, sig)
  np.testing.assert_array_equal(ours, theirs)


@pytest.mark.parametrize("sig", [int(s) for s in ELEMENTS])
def test_set_state_round_trips(sig):
  _, _, m, d = _pair()
  fresh = physics.MjData(m)
  size = physics.mj_stateSize(m, sig)
  state = np.empty(size)
  physics.mj_getState(m, d, state, sig)
  physics.mj_setState(m, fresh, state, sig)
  again = np.empty(size)
  physics.mj_getState(m, fresh, again, sig)
  np.testing.assert_array_equal(again, state)
  # and every element outside the signature is left alone
  untouched = physics.MjData(m)
  everything = int(physics.mjtState.mjSTATE_INTEGRATION)
  for element in ELEMENTS:
    if int(element) & everything and not int(element) & sig:
      n = physics.mj_stateSize(m, element)
      a, b = np.empty(n), np.empty(n)
      physics.mj_getState(m, fresh, a, element)
      physics.mj_getState(m, untouched, b, element)
      np.testing.assert_array_equal(a, b, err_msg=element.name)


def test_integration_state_restores_a_trajectory_bitwise():
  m = physics.MjModel.from_xml_path(ASSETS / "hopper.xml")
  d = physics.MjData(m)
  d.ctrl[:] = 0.5
  physics.mj_step(m, d, 50)
  sig = physics.mjtState.mjSTATE_INTEGRATION
  state = np.empty(physics.mj_stateSize(m, sig))
  physics.mj_getState(m, d, state, sig)
  physics.mj_step(m, d, 40)
  after = d.qpos.copy()
  other = physics.MjData(m)
  physics.mj_setState(m, other, state, sig)
  physics.mj_step(m, other, 40)
  np.testing.assert_array_equal(other.qpos, after)


def test_state_errors():
  """The bindings' exceptions and messages (MuJoCo aborts the process for a bad signature in mj_getState)."""
  mjm, _, m, d = _pair()
  with pytest.raises(TypeError, match=r"^state size should equal mj_stateSize\(m, sig\)$"):
    physics.mj_getState(m, d, np.zeros(6), physics.mjtState.mjSTATE_QPOS)
  for sig in (-1, 1 << 15):
    with pytest.raises(mujoco.FatalError) as theirs:
      mujoco.mj_stateSize(mjm, sig)
    with pytest.raises(physics.FatalError) as ours:
      physics.mj_stateSize(m, sig)
    assert str(ours.value) == str(theirs.value)
  with pytest.raises(physics.FatalError, match="^mj_setState: invalid state signature 32768 >= 2\\^mjNSTATE$"):
    physics.mj_setState(m, d, np.zeros(1), 1 << 15)


def test_copy_data():
  _, _, m, d = _pair()
  physics.mj_forward(m, d)
  dest = physics.MjData(m)
  physics.mj_copyData(dest, m, d)
  for name, _, _ in types.DATA_ROWS:
    np.testing.assert_array_equal(dest._fields[name], d._fields[name], err_msg=name)
  physics.mj_step(m, dest, 5)
  physics.mj_step(m, d, 5)
  np.testing.assert_array_equal(dest.qpos, d.qpos)
  other = physics.MjData(physics.MjModel.from_xml_path(ASSETS / "hopper.xml"))
  with pytest.raises(ValueError, match="different models"):
    physics.mj_copyData(other, m, d)


@pytest.mark.parametrize("name", ["hopper", "humanoid", "pusher"])
def test_set_const_after_editing_the_model(name):
  mjm, m = oracle.models(ASSETS / f"{name}.xml")
  for model in (mjm, m):
    model.body_mass[1:] *= np.linspace(0.5, 2.0, model.nbody - 1)
    model.body_inertia[1:] *= 1.5
    model.qpos0[-1] += 0.1
  mjd, d = mujoco.MjData(mjm), physics.MjData(m)
  mujoco.mj_setConst(mjm, mjd)
  physics.mj_setConst(m, d)
  for field in ("body_subtreemass", "dof_invweight0", "body_invweight0", "actuator_acc0", "actuator_length0"):
    np.testing.assert_allclose(getattr(m, field), getattr(mjm, field), rtol=1e-10, atol=1e-12, err_msg=field)
  # MuJoCo 4.0.0's mj_setConst leaves the statistics at their compiled values
  np.testing.assert_allclose(m.stat_meaninertia[0], mjm.stat.meaninertia, rtol=1e-12)
