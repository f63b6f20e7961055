"""Oracle tests of MuJoCo 4's history buffers (history.py): delayed and interpolated controls, delayed and
interval-sampled sensors. The buffers' layout, their reset, how each step fills them and what the actuators and
sensors read from them are compared with MuJoCo, for each integrator, batched worlds, and the state API."""

import itertools

import mujoco
import mujoco.rollout
import numpy as np
import pytest

import oracle
from located_error import assert_located_error
from mjgym import physics
from mjgym.physics import batch
from mjgym.physics import rollout

MODEL = oracle.MODELS_DIR / "history.xml"
COMPILED = ("nhistory", "actuator_history", "actuator_historyadr", "actuator_delay", "sensor_history",
            "sensor_historyadr", "sensor_delay", "sensor_interval", "sensor_noise")
# The trajectories are compared step by step; they leave MuJoCo's by rounding only (contacts and the arm's limit
# keep them sensitive, so they are short).
RTOL = 1e-9
TRAJECTORY = ("qpos", "qvel", "act", "ctrl", "actuator_force", "sensordata", "history")


def _rollout(mjm, mjd, m, d, nstep, seed):
  """Steps both engines under the same random controls, comparing the trajectory fields after every step."""
  rng = np.random.default_rng(seed)
  for step in range(nstep):
    mjd.ctrl[:] = d.ctrl[:] = rng.uniform(-1.5, 1.5, mjm.nu)
    mujoco.mj_step(mjm, mjd)
    physics.mj_step(m, d)
    oracle.assert_fields_close(d, mjd, TRAJECTORY, RTOL, f"step {step}")


def test_compiled_as_mujoco():
  mjm, m = oracle.models(MODEL)
  for name in COMPILED:
    oracle.assert_close(np.asarray(getattr(m, name), float), np.asarray(getattr(mjm, name), float), 0.0, name)
  assert m.nhistory > 0


def test_defaults_reach_every_actuator():
  # MuJoCo 4 reads the history attributes of a default's actuator element for every actuator kind
  xml = ('<mujoco><default><motor nsample="3" delay="0.01" interp="linear"/><default class="b">'
         '<general nsample="4" interp="cubic"/></default></default><worldbody><body><joint name="j"/>'
         '<geom size=".1"/></body></worldbody><actuator><motor joint="j"/><general joint="j" nsample="2"/>'
         '<general joint="j" class="b"/><position joint="j" class="b"/></actuator></mujoco>')
  mjm, m = oracle.models(xml)
  for name in COMPILED[:4]:
    oracle.assert_close(np.asarray(getattr(m, name), float), np.asarray(getattr(mjm, name), float), 0.0, name)


def test_reset_fills_the_buffers_as_mujoco():
  mjm, mjd, m, d = oracle.load_both(MODEL)
  oracle.assert_close(d.history, mjd.history, 0.0, "history of a new Data")
  for _ in range(3):
    mujoco.mj_step(mjm, mjd)
    physics.mj_step(m, d)
  mujoco.mj_resetData(mjm, mjd)
  physics.mj_resetData(m, d)
  oracle.assert_close(d.history, mjd.history, 0.0, "history after mj_resetData")
  # a keyframe's time does not move the buffers' sample times
  mujoco.mj_resetDataKeyframe(mjm, mjd, 0)
  physics.mj_resetDataKeyframe(m, d, 0)
  oracle.assert_close(d.history, mjd.history, 0.0, "history after mj_resetDataKeyframe")


def test_forward_reads_and_does_not_fill():
  mjm, mjd, m, d = oracle.load_both(MODEL)
  _rollout(mjm, mjd, m, d, 12, seed=5)
  before = d.history.copy()
  for _ in range(2):
    mujoco.mj_forward(mjm, mjd)
    physics.mj_forward(m, d)
  np.testing.assert_array_equal(d.history, before)
  oracle.assert_fields_close(d, mjd, ("sensordata", "actuator_force", "qacc"), RTOL)


@pytest.mark.parametrize("integrator", ["EULER", "RK4", "IMPLICIT", "IMPLICITFAST"])
def test_trajectory_matches_mujoco(integrator):
  mjm, mjd, m, d = oracle.load_both(MODEL, integrator=integrator)
  _rollout(mjm, mjd, m, d, 120, seed=1)


def test_step1_step2_with_controls_set_between():
  # mj_step2 inserts the controls set after mj_step1, as MuJoCo's
  mjm, mjd, m, d = oracle.load_both(MODEL)
  rng = np.random.default_rng(14)
  for step in range(30):
    mujoco.mj_step1(mjm, mjd)
    physics.mj_step1(m, d)
    mjd.ctrl[:] = d.ctrl[:] = rng.uniform(-1.5, 1.5, mjm.nu)
    mujoco.mj_step2(mjm, mjd)
    physics.mj_step2(m, d)
    oracle.assert_fields_close(d, mjd, TRAJECTORY, RTOL, f"step {step}")


def test_trajectory_from_a_keyframe():
  mjm, mjd, m, d = oracle.load_both(MODEL)
  mujoco.mj_resetDataKeyframe(mjm, mjd, 0)
  physics.mj_resetDataKeyframe(m, d, 0)
  _rollout(mjm, mjd, m, d, 60, seed=2)


@pytest.mark.parametrize("back", [0.0125, 0.1])
def test_time_set_back_inserts_in_time_order(back):
  # a time between the buffer's samples (or before all of them) puts the new samples in their place in time order
  mjm, mjd, m, d = oracle.load_both(MODEL)
  _rollout(mjm, mjd, m, d, 10, seed=9)
  mjd.time -= back
  d.time = mjd.time
  _rollout(mjm, mjd, m, d, 6, seed=10)


# One actuator and one sensor with each combination of the history attributes.
_COMBO_XML = """<mujoco><option timestep="{dt}" integrator="{integrator}"/><worldbody><body pos="0 0 1">
  <joint name="j" axis="0 1 0" damping="0.05"/><geom type="capsule" fromto="0 0 0 0.3 0 0" size="0.03"/>
  <site name="s" pos="0.3 0 0"/></body></worldbody>
  <actuator><general joint="j" gainprm="2" {attrs}/></actuator>
  <sensor><framepos objtype="site" objname="s" {sattrs}/><jointvel joint="j" {sattrs}/></sensor></mujoco>"""
_COMBOS = [(nsample, interp, delay, interval)
           for nsample, interp, delay, interval in itertools.product(
               (1, 2, 5), ("zoh", "linear", "cubic"), (0, 0.004, 0.0137), ("", "0.01", "0.012 -0.005"))
           if not (nsample == 1 and interp != "zoh")]


@pytest.mark.parametrize("nsample, interp, delay, interval", _COMBOS)
def test_attribute_combinations(nsample, interp, delay, interval):
  attrs = f'nsample="{nsample}" interp="{interp}" delay="{delay}"'
  sattrs = attrs + (f' interval="{interval}"' if interval else "")
  for integrator, dt in (("Euler", 0.002), ("RK4", 0.003)):
    xml = _COMBO_XML.format(dt=dt, integrator=integrator, attrs=attrs, sattrs=sattrs)
    mjm, mjd, m, d = oracle.load_both(xml)
    _rollout(mjm, mjd, m, d, 40, seed=3)


def test_delayed_control_against_a_shifted_one():
  # an actuator delayed by whole steps with hold applies the control of that many steps ago: the same trajectory
  # as an undelayed actuator fed the shifted controls (a check of the semantics apart from MuJoCo)
  base = ('<mujoco><option timestep="0.01"/><worldbody><body><joint name="j" damping="0.1"/>'
          '<geom size=".1" pos="0.2 0 0"/></body></worldbody><actuator><motor joint="j" {}/></actuator></mujoco>')
  m = physics.MjModel.from_xml_string(base.format('nsample="4" delay="0.03"'))
  ref = physics.MjModel.from_xml_string(base.format(""))
  d, dref = physics.MjData(m), physics.MjData(ref)
  ctrl = np.random.default_rng(4).uniform(-1, 1, 30)
  for k in range(30):
    d.ctrl[0] = ctrl[k]
    dref.ctrl[0] = ctrl[k - 3] if k >= 3 else 0.0
    physics.mj_step(m, d)
    physics.mj_step(ref, dref)
    np.testing.assert_array_equal(d.qpos, dref.qpos)


def test_state_holds_the_history():
  mjm, mjd, m, d = oracle.load_both(MODEL)
  for spec in (mujoco.mjtState.mjSTATE_HISTORY, mujoco.mjtState.mjSTATE_PHYSICS,
               mujoco.mjtState.mjSTATE_FULLPHYSICS, mujoco.mjtState.mjSTATE_INTEGRATION):
    assert physics.mj_stateSize(m, int(spec)) == mujoco.mj_stateSize(mjm, spec), spec
  _rollout(mjm, mjd, m, d, 10, seed=6)
  spec = mujoco.mjtState.mjSTATE_INTEGRATION
  ours, theirs = np.empty(mujoco.mj_stateSize(mjm, spec)), np.empty(mujoco.mj_stateSize(mjm, spec))
  physics.mj_getState(m, d, ours, int(spec))
  mujoco.mj_getState(mjm, mjd, theirs, spec)
  oracle.assert_close(ours, theirs, RTOL, "integration state")
  # MuJoCo's state, history included, set into fresh Data continues MuJoCo's trajectory
  d2 = physics.MjData(m)
  physics.mj_setState(m, d2, theirs, int(spec))
  np.testing.assert_array_equal(d2.history, mjd.history)
  _rollout(mjm, mjd, m, d2, 10, seed=7)


def test_rollout_matches_mujoco():
  # rollout's states are MuJoCo's full physics state, history included
  mjm, mjd, m, d = oracle.load_both(MODEL)
  _rollout(mjm, mjd, m, d, 7, seed=12)
  spec = mujoco.mjtState.mjSTATE_FULLPHYSICS
  x0 = np.empty(mujoco.mj_stateSize(mjm, spec))
  mujoco.mj_getState(mjm, mjd, x0, spec)
  ctrl = np.random.default_rng(13).uniform(-1, 1, (2, 30, mjm.nu))
  expected = mujoco.rollout.rollout(mjm, mjd, np.tile(x0, (2, 1)), ctrl)
  actual = rollout.rollout(m, d, np.tile(x0, (2, 1)), ctrl)
  for label, a, e in zip(("state", "sensordata"), actual, expected):
    oracle.assert_close(a, e, RTOL, label)


def test_inverse_reads_the_history():
  mjm, mjd, m, d = oracle.load_both(MODEL)
  _rollout(mjm, mjd, m, d, 15, seed=15)
  mujoco.mj_inverse(mjm, mjd)
  physics.mj_inverse(m, d)
  oracle.assert_fields_close(d, mjd, ("qfrc_inverse", "sensordata", "actuator_force"), RTOL)


def test_transition_fd_refused_as_in_mujoco():
  mjm, mjd, m, d = oracle.load_both(MODEL)
  ndx, nu = 2 * m.nv + m.na, m.nu
  with pytest.raises(mujoco.FatalError, match="delays are not supported"):
    mujoco.mjd_transitionFD(mjm, mjd, 1e-6, False, np.zeros((ndx, ndx)), np.zeros((ndx, nu)), None, None)
  with pytest.raises(ValueError, match="delays"):
    physics.mjd_transitionFD(m, d, 1e-6, False, np.zeros((ndx, ndx)), np.zeros((ndx, nu)), None, None)


def test_batched_worlds_step_as_single_ones():
  m = physics.MjModel.from_xml_path(str(MODEL))
  nworld, nstep = 3, 25
  ctrls = np.random.default_rng(8).uniform(-1, 1, (nstep, nworld, m.nu))
  b = batch.MjDataBatch(m, nworld)
  singles = [physics.MjData(m) for _ in range(nworld)]
  for k in range(nstep):
    b.ctrl[:] = ctrls[k]
    b.step(1)
    for w, d in enumerate(singles):
      d.ctrl[:] = ctrls[k, w]
      physics.mj_step(m, d)
  for w, d in enumerate(singles):
    for name in ("history", "sensordata", "qpos", "qvel", "act"):
      np.testing.assert_array_equal(getattr(b[w], name), getattr(d, name), err_msg=f"world {w} {name}")
  assert np.ptp(b.history, axis=0).max() > 0  # the worlds' controls differ, and so do their buffers


_ERR_ACT = ('<mujoco>\n<worldbody><body><joint name="j"/><geom size=".1"/></body></worldbody>\n<actuator>\n'
            '<motor joint="j" {}/>\n</actuator></mujoco>')
_ERR_SENSOR = ('<mujoco>\n<worldbody><body><joint name="j"/><geom size=".1"/></body></worldbody>\n<sensor>\n'
               '<{} {}/>\n</sensor></mujoco>')


@pytest.mark.parametrize("attrs, attribute, fragment", [
    ('delay="0.1"', "delay", "delay > 0 without a history buffer"),
    ('nsample="-2"', "nsample", "nsample must be non-negative"),
    ('nsample="16777217"', "nsample", "at most 2^24 samples"),
    ('nsample="2" interp="spline"', "interp", "spline"),
])
def test_actuator_errors(tmp_path, attrs, attribute, fragment):
  assert_located_error(tmp_path, _ERR_ACT.format(attrs), 4, "motor", attribute, fragment)


@pytest.mark.parametrize("tag, attrs, attribute, fragment", [
    ("jointpos", 'joint="j" delay="0.1"', "delay", "delay > 0 without a history buffer"),
    ("jointpos", 'joint="j" interval="-1"', "interval", "negative interval"),
    ("jointpos", 'joint="j" interval="1 0.5"', "interval", "positive phase"),
    ("jointpos", 'joint="j" interval="1 -1"', "interval", "phase must be greater than -period"),
    ("jointpos", 'joint="j" interval="1 -0.5 2"', "interval", ""),
    ("user", 'dim="1" nsample="2"', "nsample", "unknown attribute"),
])
def test_sensor_errors(tmp_path, tag, attrs, attribute, fragment):
  assert_located_error(tmp_path, _ERR_SENSOR.format(tag, attrs), 4, tag, attribute, fragment)
