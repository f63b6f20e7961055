"""Oracle tests of sensors, the full actuator model and spatial tendons against the `mujoco` package.

Purpose-written models (tests/models/sensors.xml, actuators_full.xml, tendon_spatial.xml,
sensors_site_energy.xml, sensors_contact.xml) are compared field by field at random states and along 100 steps of random controls. Relative error of a field =
max |ours - mujoco| / max(1, max |mujoco|) (oracle.assert_close). Constraints are disabled where MuJoCo would
solve them (this engine's solver is compared elsewhere); sensors that only read positions and velocities
are also compared with joint and tendon limits active.
"""

import re

import mujoco
import numpy as np
import pytest

import oracle
from mjgym import physics
from mjgym.physics.mjcf import MJCFError

RTOL = 1e-8
MODELS = ("sensors", "actuators_full", "tendon_spatial", "sensors_site_energy")
# Compile-time fields of these models that must equal MuJoCo's.
MODEL_FIELDS = ("sensor_type", "sensor_datatype", "sensor_needstage", "sensor_objtype", "sensor_objid",
                "sensor_reftype", "sensor_refid", "sensor_dim", "sensor_adr", "sensor_cutoff", "sensor_noise",
                "sensor_intprm", "wrap_type", "wrap_objid", "wrap_prm", "tendon_lengthspring", "tendon_length0",
                "actuator_trntype", "actuator_trnid", "actuator_dyntype", "actuator_gaintype", "actuator_biastype",
                "actuator_dynprm", "actuator_gainprm", "actuator_biasprm", "actuator_ctrllimited",
                "actuator_ctrlrange", "actuator_actlimited", "actuator_actrange", "actuator_actadr",
                "actuator_actnum", "actuator_length0", "actuator_acc0", "actuator_lengthrange",
                "actuator_cranklength")


def _load(name, constraints=False):
  return oracle.load_both(oracle.MODELS_DIR / f"{name}.xml", constraints=constraints)


def _compare(mjm, mjd, m, d, what):
  oracle.assert_close(d.sensordata, mjd.sensordata, RTOL, f"{what}: sensordata")
  oracle.assert_close(d.actuator_force, mjd.actuator_force, RTOL, f"{what}: actuator_force")
  oracle.assert_close(d.actuator_length, mjd.actuator_length, RTOL, f"{what}: actuator_length")
  oracle.assert_close(d.actuator_velocity, mjd.actuator_velocity, RTOL, f"{what}: actuator_velocity")
  oracle.assert_close(d.actuator_moment, oracle.dense_moment(mjm, mjd), RTOL, f"{what}: actuator_moment")
  oracle.assert_close(d.act, mjd.act, RTOL, f"{what}: act")
  oracle.assert_close(d.act_dot, mjd.act_dot, RTOL, f"{what}: act_dot")
  oracle.assert_close(d.ten_length, mjd.ten_length, RTOL, f"{what}: ten_length")
  oracle.assert_close(d.ten_velocity, mjd.ten_velocity, RTOL, f"{what}: ten_velocity")
  oracle.assert_close(d.ten_J, oracle.dense_ten_j(mjm, mjd), RTOL, f"{what}: ten_J")
  np.testing.assert_array_equal(d.ten_wrapadr, mjd.ten_wrapadr, f"{what}: ten_wrapadr")
  np.testing.assert_array_equal(d.ten_wrapnum, mjd.ten_wrapnum, f"{what}: ten_wrapnum")
  # MuJoCo leaves stale values beyond the wrap points in use; only those in use mean something
  used = int(mjd.ten_wrapadr[-1] + mjd.ten_wrapnum[-1]) if mjm.ntendon else 0
  np.testing.assert_array_equal(d.wrap_obj.ravel()[:used], mjd.wrap_obj.ravel()[:used], f"{what}: wrap_obj")
  oracle.assert_close(d.wrap_xpos.reshape(-1, 3)[:used], mjd.wrap_xpos.reshape(-1, 3)[:used], RTOL,
                      f"{what}: wrap_xpos")
  oracle.assert_close(d.qfrc_passive, mjd.qfrc_passive, RTOL, f"{what}: qfrc_passive")
  oracle.assert_close(d.qacc, mjd.qacc, RTOL, f"{what}: qacc")


@pytest.mark.parametrize("name", MODELS)
def test_compiled_fields_match_mujoco(name):
  """Sensor layout, wrap paths, actuator parameters and the qpos0 constants are MuJoCo's."""
  mjm, _, m, _ = _load(name)
  for field in MODEL_FIELDS:
    oracle.assert_close(getattr(m, field), getattr(mjm, field), 1e-12, f"{name}: {field}")


@pytest.mark.parametrize("name", MODELS)
def test_random_states_match_mujoco(name):
  """At 40 random states: sensordata, actuator length/velocity/moment/force, act_dot, tendons, wrap points."""
  mjm, mjd, m, d = _load(name)
  for k, _ in enumerate(oracle.forward_states(mjm, mjd, m, d, 1, 40)):
    _compare(mjm, mjd, m, d, f"{name} state {k}")


ROLLOUTS = [(name, "EULER") for name in MODELS] + [("actuators_full", i) for i in ("RK4", "IMPLICITFAST",
                                                                                   "IMPLICIT")]


@pytest.mark.parametrize("name, integrator", ROLLOUTS)
def test_rollout_with_random_controls_matches_mujoco(name, integrator):
  """100 steps of random controls from a random state: each step's sensordata (evaluated by the step's
  forward pass) and state, then every derived field after mj_forward at the new state."""
  mjm, mjd, m, d = _load(name)
  oracle.set_options(mjm, m, integrator=integrator)
  rng = np.random.default_rng(2)
  oracle.random_state(mjm, mjd, rng, scale=0.3)
  oracle.copy_state(mjd, d)
  for k in range(100):
    ctrl = rng.uniform(-1.2, 1.2, mjm.nu)
    mjd.ctrl[:] = ctrl
    d.ctrl[:] = ctrl
    mujoco.mj_step(mjm, mjd)
    physics.mj_step(m, d)
    what = f"{name} {integrator} step {k}"
    oracle.assert_close(d.sensordata, mjd.sensordata, RTOL, f"{what}: sensordata")
    for field in ("qpos", "qvel", "act"):
      oracle.assert_close(getattr(d, field), getattr(mjd, field), RTOL, f"{what}: {field}")
    if k % 10 == 9:
      mujoco.mj_forward(mjm, mjd)
      physics.mj_forward(m, d)
      _compare(mjm, mjd, m, d, what)
  assert np.abs(mjd.qpos - mjm.qpos0).max() > 0.05, "the rollout hardly moved"


def test_position_sensors_with_limits_active():
  """Limit positions/velocities and every position/velocity sensor with joint and tendon limits enabled."""
  mjm, mjd, m, d = _load("sensors", constraints=True)
  stages = (int(mujoco.mjtStage.mjSTAGE_POS), int(mujoco.mjtStage.mjSTAGE_VEL))
  active = 0
  for _ in oracle.forward_states(mjm, mjd, m, d, 3, 40):
    for i in range(mjm.nsensor):
      if mjm.sensor_needstage[i] in stages:
        adr, dim = mjm.sensor_adr[i], mjm.sensor_dim[i]
        oracle.assert_close(d.sensordata[adr:adr + dim], mjd.sensordata[adr:adr + dim], RTOL,
                            f"sensor {i} ({mujoco.mjtSensor(mjm.sensor_type[i]).name})")
        if mjm.sensor_type[i] == mujoco.mjtSensor.mjSENS_JOINTLIMITPOS and mjd.sensordata[adr] != 0:
          active += 1
  assert active > 20, "the limits were hardly ever active: the comparison proves little"


def test_sensor_disable_flag_keeps_sensordata():
  """With the sensor stage disabled, sensordata is left untouched (as in MuJoCo)."""
  _, _, m, d = _load("sensors")
  m.opt.disableflags |= int(physics.mjtDisableBit.SENSOR)
  d.sensordata[:] = 7.0
  physics.mj_forward(m, d)
  physics.mj_step(m, d)
  assert np.all(d.sensordata == 7.0)


def test_rangefinder_sees_geoms_and_misses():
  """The rangefinders hit a wall, a capsule and nothing; transparent geoms are invisible to them."""
  mjm, mjd, m, d = _load("sensors")
  mujoco.mj_forward(mjm, mjd)
  physics.mj_forward(m, d)
  values = [d.sensor(n).data[0] for n in ("range_tip", "range_slider", "range_imu")]
  np.testing.assert_allclose(values, [mjd.sensor(n).data[0] for n in ("range_tip", "range_slider", "range_imu")],
                             rtol=1e-12)
  assert min(values) == -1.0 and max(values) > 0


def test_user_sensor_callback():
  """User sensors are filled by the registered callback at their stage, after the compiled pipeline."""
  xml = """<mujoco><worldbody><body><joint name="j"/><geom size="0.1"/></body></worldbody>
    <sensor><user name="u" dim="2" needstage="vel" datatype="real"/><jointpos joint="j"/></sensor></mujoco>"""
  m = physics.MjModel.from_xml_string(xml)
  d = physics.MjData(m)
  seen = []

  def callback(model, data, stage):
    seen.append(stage)
    data.sensordata[0:2] = data.qpos[0], 2 * data.qvel[0]

  physics.set_mjcb_sensor(callback)
  try:
    d.qvel[0] = 0.5
    physics.mj_step(m, d, 3)
    assert seen == [physics.mjtStage.VEL] * 3
    # the callback sees the state forward() saw, before the integrator moved it (as mjcb_sensor does)
    np.testing.assert_allclose(d.sensordata[:2], [d.sensordata[2], 1.0])
  finally:
    physics.set_mjcb_sensor(None)


@pytest.mark.parametrize("xml, message", [
    ('<sensor><jointpos joint="j" delay="0.1"/></sensor>', "delay"),
    ('<sensor><rangefinder site="s" data="dist normal"/></sensor>', "data"),
    ('<sensor><camprojection site="s" camera="c"/></sensor>', "camprojection"),
    ('<sensor><ballquat joint="j"/></sensor>', "ball joint"),
    ('<sensor><framepos objtype="site" objname="s" reftype="site"/></sensor>', "refname"),
    ('<sensor><user dim="0"/></sensor>', "dim"),
    ('<sensor><insidesite objtype="geom" objname="g"/></sensor>', "site"),
    ('<sensor><insidesite objtype="joint" objname="j" site="s"/></sensor>', "objtype"),
    ('<sensor><insidesite objtype="geom" objname="g" site="nope"/></sensor>', "unknown site 'nope'"),
    ('<sensor><e_kinetic objtype="body"/></sensor>', "objtype"),
    ('<sensor><contact geom1="g" body1="b"/></sensor>', "at most one"),
    ('<sensor><contact site="s" subtree1="b"/></sensor>', "at most one"),
    ('<sensor><contact data="force found"/></sensor>', "in the order"),
    ('<sensor><contact data="speed"/></sensor>', "data fields are"),
    ('<sensor><contact num="0"/></sensor>', "num must be positive"),
    ('<sensor><contact reduce="netforce" data="force linvel"/></sensor>', "netforce"),
    ('<sensor><contact reduce="most"/></sensor>', "reduce"),
    ('<actuator><motor joint="j" delay="0.01"/></actuator>', "delay"),
    ('<actuator><motor joint="j" nsample="-1"/></actuator>', "nsample"),
    ('<actuator><dcmotor joint="j"/></actuator>', "dcmotor"),
    ('<actuator><muscle joint="free_j"/></actuator>', "lengthrange"),
    ('<actuator><position joint="j" kv="1" dampratio="1"/></actuator>', "dampratio"),
    ('<actuator><intvelocity joint="j"/></actuator>', "actrange"),
    ('<actuator><damper joint="j"/></actuator>', "ctrlrange"),
    ('<actuator><adhesion body="b" ctrlrange="-1 1"/></actuator>', "ctrlrange"),
    ('<actuator><motor cranksite="s" slidersite="s"/></actuator>', "cranklength"),
    ('<actuator><motor joint="j" refsite="s"/></actuator>', "refsite"),
    ('<actuator><general joint="j" dyntype="user"/></actuator>', "user"),
    ('<tendon><spatial><site site="s"/><geom geom="g"/></spatial></tendon>', "end with a site"),
    ('<tendon><spatial><site site="s"/><geom geom="box"/><site site="s"/></spatial></tendon>', "spheres"),
    ('<tendon><spatial><site site="s"/><pulley divisor="0"/><site site="s"/></spatial></tendon>', "divisor"),
])
def test_unsupported_or_invalid_fails_at_load(xml, message):
  """Unsupported sensor/actuator attributes and invalid paths fail at load, naming the problem."""
  model = f"""<mujoco><worldbody><body name="b"><joint name="j"/><geom name="g" size="0.1"/>
    <geom name="box" type="box" size="0.1 0.1 0.1"/><site name="s"/><camera name="c"/></body>
    <body name="f"><freejoint name="free_j"/><geom size="0.1"/></body></worldbody>{xml}</mujoco>"""
  with pytest.raises(MJCFError, match=message):
    physics.MjModel.from_xml_string(model)


def test_insidesite_sees_every_site_shape_inside_and_out():
  """Over the random states of test_random_states_match_mujoco, every site shape of sensors_site_energy.xml holds
  some object and misses some (MuJoCo's reading), so the comparison covers both answers of each shape."""
  mjm, mjd, _, _ = _load("sensors_site_energy")
  inside = [i for i in range(mjm.nsensor) if mjm.sensor_type[i] == mujoco.mjtSensor.mjSENS_INSIDESITE]
  seen = set()
  for _ in oracle.random_states(mjm, mjd, 1, 40):
    mujoco.mj_forward(mjm, mjd)
    seen |= {(int(mjm.sensor_refid[i]), float(mjd.sensordata[mjm.sensor_adr[i]])) for i in inside}
  sites = {int(mjm.sensor_refid[i]) for i in inside}
  assert seen >= {(s, v) for s in sites for v in (0.0, 1.0)}, sorted(seen)


@pytest.mark.parametrize("energy", [False, True], ids=["energy-off", "energy-on"])
@pytest.mark.parametrize("keep", ["potential", "kinetic", "potential kinetic"])
def test_energy_sensors_and_data_energy(energy, keep):
  """e_potential and e_kinetic read MuJoCo's energies, with mjENBL_ENERGY on or off, and d.energy is MuJoCo's
  afterwards: without the flag MuJoCo leaves what the sensors computed only when the potential was among them."""
  path = oracle.MODELS_DIR / "sensors_site_energy.xml"
  xml = path.read_text()
  for name in ("potential", "kinetic"):
    if name not in keep.split():
      xml = re.sub(rf"<e_{name}\b[^>]*/>", "", xml)
  mjm, mjd, m, d = oracle.load_both(xml, constraints=False)
  if energy:
    mjm.opt.enableflags |= mujoco.mjtEnableBit.mjENBL_ENERGY
    m.opt.enableflags |= int(physics.mjtEnableBit.ENERGY)
  for k, _ in enumerate(oracle.forward_states(mjm, mjd, m, d, 4, 10)):
    oracle.assert_close(d.sensordata, mjd.sensordata, 1e-12, f"state {k}: sensordata")
    oracle.assert_close(d.energy, mjd.energy, 1e-12, f"state {k}: energy")
  mujoco.mj_step(mjm, mjd)
  physics.mj_step(m, d)
  oracle.assert_close(d.energy, mjd.energy, 1e-12, "after a step: energy")


def test_contact_sensors_compile_like_mujoco():
  """A contact sensor's sides, data fields, reduction and slots (sensor_intprm) and its size are MuJoCo's; a
  rangefinder's data field too."""
  xml = (oracle.MODELS_DIR / "sensors_contact.xml").read_text().replace(
      "<sensor>", '<sensor><rangefinder site="pad"/>')
  mjm, m = oracle.models(xml)
  for field in (f for f in MODEL_FIELDS if f.startswith("sensor_")):
    np.testing.assert_array_equal(getattr(m, field), getattr(mjm, field), field)


def test_contact_sensors_match_mujoco():
  """Along MuJoCo's 400-step rollout from a random throw, every 4th state in both engines: the contacts are MuJoCo's
  (same geom pairs, same order) and every contact sensor reads MuJoCo's values within 1e-6 relative (forces come from
  the constraint solver, as in test_touch_force_and_accelerometer_with_contacts; match counts, normals and positions
  agree to round-off). Every sensor but the one whose geoms never touch matches some contact, and the flipped
  sensors see the normal reversed."""
  mjm, mjd, m, d = oracle.load_both(oracle.MODELS_DIR / "sensors_contact.xml")
  rng = np.random.default_rng(6)
  mjd.qvel[:] = rng.normal(size=mjm.nv) * 2.0
  found = np.zeros(mjm.nsensor)
  for k in range(400):
    mujoco.mj_step(mjm, mjd)
    if k % 4:
      continue
    oracle.forward_both(mjm, mjd, m, d)
    np.testing.assert_array_equal(d.contact.geom, mjd.contact.geom, f"step {k}: contact geoms")
    for i in range(mjm.nsensor):
      adr, dim = mjm.sensor_adr[i], mjm.sensor_dim[i]
      name = mujoco.mj_id2name(mjm, mujoco.mjtObj.mjOBJ_SENSOR, i)
      oracle.assert_close(d.sensordata[adr:adr + dim], mjd.sensordata[adr:adr + dim], 1e-6, f"step {k}: {name}")
      found[i] += np.any(mjd.sensordata[adr:adr + dim] != 0)
  never = mujoco.mj_name2id(mjm, mujoco.mjtObj.mjOBJ_SENSOR, "never")
  assert found[never] == 0 and np.all(np.delete(found, never) > 0), found
  crate = d.sensor("crate_floor").data.reshape(4, 6)
  flipped = d.sensor("floor_crate").data.reshape(4, 15)
  np.testing.assert_array_equal(flipped[:, 3:6], -crate[:, 3:6])


def test_arm_holding_cylinder_on_a_limited_tendon():
  """MuJoCo's overview example loads and simulates: the falling cylinder is caught by the tendon, whose
  (soft) length limit holds it near 0.6, with the tendon length following MuJoCo's step by step."""
  mjm, mjd, m, d = _load("arm_cylinder", constraints=True)
  oracle.assert_close(m.tendon_length0, mjm.tendon_length0, 1e-12, "tendon_length0")
  for k in range(1000):
    physics.mj_step(m, d)
    mujoco.mj_step(mjm, mjd)
    oracle.assert_close(d.ten_length, mjd.ten_length, 1e-8, f"step {k}: ten_length")
  # the limit is soft: caught at up to 0.69, the cylinder then hangs just beyond 0.6
  assert 0.6 < d.ten_length[0] < 0.62
  assert d.sensor(1).data[0] != 0.0 and d.sensordata[0] == d.ten_length[0]


def test_constraint_force_sensors_match_mujoco():
  """jointlimitfrc/tendonlimitfrc, force/torque, accelerometer and acceleration frames with the hinge, slide,
  ball and tendon limits active, solved by Newton: within 1e-8 of MuJoCo (measured: 2e-14).

  Contacts are disabled here. In this model the arm's capsule and the ellipsoid two bodies down can
  overlap, and that pair goes through both engines' GJK/EPA. MuJoCo's stops at ccd_tolerance (1e-6): its
  normals are ~5e-5 off ours (median over 84 contacts), and at one deep overlap its reported depth is
  smaller than the overlap along its own normal. With ccd_tolerance 1e-15 and 1000 ccd_iterations the
  depths agree to 3e-9 but the normals still differ by up to 1e-3 (median 5e-6; the depth is flat to first
  order in the normal), which moves the forces by up to 1.5e-3. Those contact rows, not the limit rows or
  the solver, made this test miss 1e-6; contact forces in sensors are checked on primitive pairs in
  test_touch_force_and_accelerometer_with_contacts.
  """
  mjm, mjd, m, d = _load("sensors", constraints=True)
  mjm.opt.disableflags |= int(mujoco.mjtDisableBit.mjDSBL_CONTACT)
  m.opt.disableflags = mjm.opt.disableflags
  ball = mujoco.mj_name2id(mjm, mujoco.mjtObj.mjOBJ_JOINT, "ball")
  rows = {"joint": 0, "ball": 0, "tendon": 0}
  for k, _ in enumerate(oracle.forward_states(mjm, mjd, m, d, 4, 100)):
    np.testing.assert_array_equal(d.efc_type[:d.nefc], mjd.efc_type, f"state {k}: efc_type")
    np.testing.assert_array_equal(d.efc_id[:d.nefc], mjd.efc_id, f"state {k}: efc_id")
    oracle.assert_close(d.efc_force[:d.nefc], mjd.efc_force, RTOL, f"state {k}: efc_force")
    oracle.assert_close(d.qacc, mjd.qacc, RTOL, f"state {k}: qacc")
    oracle.assert_close(d.sensordata, mjd.sensordata, RTOL, f"state {k}: sensordata")
    for ctype, cid in zip(mjd.efc_type, mjd.efc_id):
      if ctype == mujoco.mjtConstraint.mjCNSTR_LIMIT_TENDON:
        rows["tendon"] += 1
      elif ctype == mujoco.mjtConstraint.mjCNSTR_LIMIT_JOINT:
        rows["ball" if cid == ball else "joint"] += 1
  assert min(rows.values()) >= 10, rows


def test_limit_force_sensors_read_the_solver():
  """The limit-force sensors report the efc_force of their joint's or tendon's first limit row."""
  _, _, m, d = _load("sensors", constraints=True)
  rng = np.random.default_rng(5)
  nonzero = 0
  for _ in range(20):
    d.qpos[:] = m.qpos0 + rng.uniform(-1, 1, m.nq)
    physics.mj_forward(m, d)
    for i in range(m.nsensor):
      if m.sensor_type[i] in (physics.mjtSensor.JOINTLIMITFRC, physics.mjtSensor.TENDONLIMITFRC):
        kind = 3 if m.sensor_type[i] == physics.mjtSensor.JOINTLIMITFRC else 4
        rows = [r for r in range(d.nefc) if d.efc_type[r] == kind and d.efc_id[r] == m.sensor_objid[i]]
        expected = d.efc_force[rows[0]] if rows else 0.0
        assert d.sensordata[m.sensor_adr[i]] == expected
        nonzero += bool(rows)
  assert nonzero > 10


def test_touch_force_and_accelerometer_with_contacts():
  """Touch sensors (site volumes on a resting box and ball), a force sensor and an accelerometer through
  300 steps of contact: within 1e-6 of MuJoCo (they depend on the constraint solver's forces)."""
  mjm, mjd, m, d = _load("touch", constraints=True)
  for k in range(300):
    mujoco.mj_step(mjm, mjd)
    physics.mj_step(m, d)
    oracle.assert_close(d.sensordata, mjd.sensordata, 1e-6, f"step {k}: sensordata")
  assert d.sensordata[0] > 80 and d.sensordata[1] > 5 and d.sensordata[2] == 0.0


# --------------------------------------------------------- tendon side sites ----


def test_sidesite_inside_wrap_geom_matches_mujoco():
  """A side site inside the wrapping sphere or cylinder: the tendon passes through the geom's surface.

  Measured from MuJoCo: where the straight line crosses the geom (its cylinder cross-section) the tendon is
  straight; otherwise it bends at the one surface point that makes it shortest (two equal wrap points).
  At 300 random states, lengths and wrap counts are MuJoCo's (measured: 2e-13); wrap points are within
  1e-6 and ten_J within 1e-5 (measured 6e-8 and 4e-6): MuJoCo finds the bend point less exactly than we
  do, and our ten_J matches central differences of MuJoCo's own lengths to 1e-6 (measured 7e-10).
  """
  mjm, mjd, m, d = _load("tendon_sidesite_inside")
  rng = np.random.default_rng(7)
  seen = set()
  for k in range(300):
    oracle.random_state(mjm, mjd, rng)
    oracle.copy_state(mjd, d)
    mujoco.mj_forward(mjm, mjd)
    physics.mj_forward(m, d)
    oracle.assert_close(d.ten_length, mjd.ten_length, 1e-9, f"state {k}: ten_length")
    np.testing.assert_array_equal(d.ten_wrapnum, mjd.ten_wrapnum, f"state {k}: ten_wrapnum")
    used = int(mjd.ten_wrapadr[-1] + mjd.ten_wrapnum[-1])
    np.testing.assert_array_equal(d.wrap_obj.ravel()[:used], mjd.wrap_obj.ravel()[:used], f"state {k}: wrap_obj")
    oracle.assert_close(d.wrap_xpos.reshape(-1, 3)[:used], mjd.wrap_xpos.reshape(-1, 3)[:used], 1e-6,
                        f"state {k}: wrap_xpos")
    oracle.assert_close(d.ten_J, oracle.dense_ten_j(mjm, mjd), 1e-5, f"state {k}: ten_J")
    seen.update((t, int(n)) for t, n in enumerate(mjd.ten_wrapnum))
  # both tendons went straight through their geom at some states and bent at its surface at others
  assert seen == {(0, 2), (0, 4), (1, 2), (1, 4)}, seen
  for k in range(5):
    oracle.random_state(mjm, mjd, rng)
    oracle.copy_state(mjd, d)
    physics.mj_forward(m, d)
    fd = np.zeros((mjm.ntendon, mjm.nv))
    h = 1e-6
    for j in range(mjm.nv):
      for sign in (1.0, -1.0):
        q = mjd.qpos.copy()
        v = np.zeros(mjm.nv)
        v[j] = sign * h
        mujoco.mj_integratePos(mjm, q, v, 1.0)
        probe = mujoco.MjData(mjm)
        probe.qpos[:] = q
        mujoco.mj_fwdPosition(mjm, probe)
        fd[:, j] += sign * probe.ten_length / (2 * h)
    oracle.assert_close(d.ten_J, fd, 1e-6, f"state {k}: ten_J vs central differences of MuJoCo's lengths")


# ------------------------------------------------------------------- adhesion ----


def test_adhesion_with_contacts_matches_mujoco():
  """Body transmissions with contacts: a box held on the floor (4 contacts), a ball reaching a wall within
  its margin but beyond margin - gap (a contact without constraint rows, which still counts), and a paddle
  whose adhesion finds no contact. 600 steps of varying controls: actuator_moment, actuator_force and
  qfrc_actuator within 1e-8 of MuJoCo at each step, the trajectory (qpos, qvel) within 1e-6 (measured:
  moment 0, forces 2e-16, qpos 1e-16)."""
  mjm, mjd, m, d = _load("adhesion", constraints=True)
  box, ball = (mujoco.mj_name2id(mjm, mujoco.mjtObj.mjOBJ_BODY, name) for name in ("box", "ball"))
  gap_contact_steps = box_steps = 0
  for k in range(600):
    t = k * mjm.opt.timestep
    ctrl = [0.5 + 0.5 * np.sin(3 * t), 1.0 if t < 0.6 else 0.5, 1.0, 0.3 + 0.4 * np.sin(5 * t), 0.4 * np.cos(2 * t)]
    mjd.ctrl[:] = ctrl
    d.ctrl[:] = ctrl
    mujoco.mj_step(mjm, mjd)
    physics.mj_step(m, d)
    assert d.ncon == mjd.ncon, f"step {k}: ncon"
    oracle.assert_close(d.actuator_moment, oracle.dense_moment(mjm, mjd), 1e-8, f"step {k}: actuator_moment")
    oracle.assert_close(d.actuator_force, mjd.actuator_force, 1e-8, f"step {k}: actuator_force")
    oracle.assert_close(d.qfrc_actuator, mjd.qfrc_actuator, 1e-8, f"step {k}: qfrc_actuator")
    oracle.assert_close(d.qpos, mjd.qpos, 1e-6, f"step {k}: qpos")
    oracle.assert_close(d.qvel, mjd.qvel, 1e-6, f"step {k}: qvel")
    bodies = [(mjm.geom_bodyid[c.geom1], mjm.geom_bodyid[c.geom2], c.exclude) for c in mjd.contact]
    box_steps += sum(box in pair[:2] for pair in bodies) == 4
    gap_contact_steps += any(ball in pair[:2] and pair[2] == 1 for pair in bodies)
  assert box_steps > 500 and gap_contact_steps > 50, (box_steps, gap_contact_steps)
  assert not np.any(d.actuator_moment[2])
