"""The bindings' small API against the `mujoco` package: enums, struct types, the names buffer, contact and warning
lists, timers, mj_insideSite and the mju_* utilities."""

import copy
import pickle

import mujoco
import numpy as np
import pytest

import oracle
from mjgym import physics

_ENUMS = sorted(name for name in dir(physics) if name.startswith("mjt"))


@pytest.mark.parametrize("name", _ENUMS)
def test_enums_have_mujocos_members_and_values(name):
  theirs = {k: int(v) for k, v in getattr(mujoco, name).__members__.items()}
  ours = {k: int(v) for k, v in getattr(physics, name).__members__.items() if k.startswith("mj")}
  assert ours == theirs


def test_string_tables_are_mujocos():
  for name in ("mjDISABLESTRING", "mjENABLESTRING", "mjTIMERSTRING", "mjLABELSTRING", "mjFRAMESTRING",
               "mjVISSTRING", "mjRNDSTRING"):
    assert getattr(physics, name) == getattr(mujoco, name), name
  assert (physics.mjNREF, physics.mjNIMP, physics.MJTNUM_DTYPE) == (mujoco.mjNREF, mujoco.mjNIMP, mujoco.MJTNUM_DTYPE)


@pytest.mark.parametrize("name", ["MjContact", "MjWarningStat", "MjSolverStat", "MjTimerStat", "MjLROpt",
                                  "MjStatistic", "MjvPerturb", "MjvCamera"])
def test_constructed_structs_repr_as_mujocos(name):
  assert repr(getattr(physics, name)()) == repr(getattr(mujoco, name)())


def test_constructed_option_is_mujocos_default():
  ours, theirs = physics.MjOption(), mujoco.MjOption()
  for field, _, _, _ in physics.MjOption.FIELDS:
    np.testing.assert_array_equal(getattr(ours, field), getattr(theirs, field), err_msg=field)


def test_struct_semantics():
  a, b = physics.MjOption(), physics.MjOption()
  a.gravity = 2
  assert a != b and a != 3
  b.gravity = (2, 2, 2)
  assert a == b
  with pytest.raises(TypeError):
    hash(a)
  c = copy.copy(a)
  a.timestep = 0.5
  assert c.timestep == 0.002 and pickle.loads(pickle.dumps(c)) == c
  with pytest.raises(TypeError, match="integers"):
    a.iterations = 2.5
  with pytest.raises(AttributeError):
    a.no_such_option = 1


def test_model_structs_are_views():
  m = physics.MjModel.from_xml_string(oracle.STATE_XML)
  m.opt.timestep = 0.004
  assert m.opt_timestep[0] == 0.004
  gravity = m.opt.gravity
  m.opt_gravity[2] = -1.0
  assert gravity[2] == -1.0 and m.stat.extent == m.stat_extent[0]


# (Ant's <custom><numeric> is not compiled here, so its name is missing from our buffer)
@pytest.mark.parametrize("model", ["hopper", "humanoid", "half_cheetah", "pusher", "walker2d"])
def test_names_buffer_is_mujocos(model):
  mjm, m = oracle.models(oracle.gym_asset(model))
  assert m.names == mjm.names and m.names is m.names
  for name in dir(mjm):
    if name.startswith("name_") and name.endswith("adr") and name != "name_skinadr" and name != "name_pluginadr":
      np.testing.assert_array_equal(getattr(m, name), getattr(mjm, name), err_msg=name)
  assert physics.mj_id2name(m, physics.mjtObj.mjOBJ_MODEL, 0) is mujoco.mj_id2name(mjm, mujoco.mjtObj.mjOBJ_MODEL, 0)


def test_contact_list_is_mujocos():
  mjm, mjd, m, d = oracle.load_both("""
  <mujoco model="contacts">
    <worldbody>
      <geom name="floor" type="plane" size="5 5 .1"/>
      <body pos="0 0 .09"><freejoint/><geom type="box" size=".1 .1 .1"/></body>
    </worldbody>
  </mujoco>""")
  mujoco.mj_forward(mjm, mjd)
  physics.mj_forward(m, d)
  assert len(d.contact) == len(mjd.contact) == 4
  for ours, theirs in zip(d.contact, mjd.contact):
    for field in ("dist", "pos", "frame", "friction", "solref", "solimp", "mu", "dim", "geom", "geom1", "geom2",
                  "exclude", "efc_address"):
      np.testing.assert_allclose(getattr(ours, field), getattr(theirs, field), rtol=0, atol=1e-12, err_msg=field)
  np.testing.assert_allclose(d.contact.pos, mjd.contact.pos, rtol=0, atol=1e-12)
  d.contact[-1].dist = 7.0  # a view: writes reach the Data
  assert d.contact_dist[3] == 7.0 and d.contact[3] == d.contact[-1] and d.contact[0] != d.contact[1]
  with pytest.raises(IndexError):
    d.contact[4]  # pylint: disable=pointless-statement
  assert len(d.warning) == physics.mjtWarning.mjNWARNING and d.warning[3].number == 0
  np.testing.assert_array_equal(d.efc_type, mjd.efc_type)  # the rows cut to nefc, as the bindings show them
  assert d.efc_J.size == mjd.efc_J.size  # (the bindings' dense efc_J is flat, nefc * nv; ours is (nefc, nv))
  physics.mj_resetData(m, d)
  assert d.efc_force.shape == (0,) and d.efc_force.flags.owndata


def test_contact_writes_reach_the_data_as_mujocos():
  """d.contact[i].geom, .H, .surfacevel and .adhesion written one contact at a time read back as MuJoCo's, all at
  once too; geom writes the engine's geom1 / geom2 (MuJoCo 4 keeps geom apart from them)."""
  mjm, mjd, m, d = oracle.load_both("""
  <mujoco model="contacts">
    <worldbody>
      <geom name="floor" type="plane" size="5 5 .1"/>
      <body pos="0 0 .09"><freejoint/><geom type="box" size=".1 .1 .1"/></body>
      <body pos="1 0 .09"><freejoint/><geom type="sphere" size=".1"/></body>
    </worldbody>
  </mujoco>""")
  mujoco.mj_forward(mjm, mjd)
  physics.mj_forward(m, d)
  assert len(d.contact) == len(mjd.contact) == 5
  np.testing.assert_array_equal(d.contact.H, mjd.contact.H)  # zeros for pyramidal cones
  np.testing.assert_array_equal(d.contact.surfacevel, mjd.contact.surfacevel)
  rng = np.random.default_rng(0)
  for i, (ours, theirs) in enumerate(zip(d.contact, mjd.contact)):
    values = {"geom": [i, i + 1], "H": rng.uniform(size=36), "surfacevel": rng.uniform(size=3),
              "adhesion": rng.uniform()}
    for field, value in values.items():
      setattr(ours, field, value)
      setattr(theirs, field, value)
  for field in ("geom", "H", "surfacevel", "adhesion", "pos", "dist"):
    np.testing.assert_array_equal(getattr(d.contact, field), getattr(mjd.contact, field), err_msg=field)
  np.testing.assert_array_equal(d.contact_geom1[:5], np.arange(5))
  np.testing.assert_array_equal(d.contact[2].geom, [2, 3])
  assert repr(d.contact[0]).startswith("<MjContact") and repr(d.contact).startswith("<_MjContactList")
  assert copy.copy(d.contact[1]) == d.contact[1] and pickle.loads(pickle.dumps(d.contact[1])) == d.contact[1]


def test_timers_count_steps_and_use_the_time_callback():
  m = physics.MjModel.from_xml_string(oracle.STATE_XML)
  d = physics.MjData(m)
  physics.mj_step(m, d, 3)
  physics.mj_forward(m, d)
  step, fwd = d.timer[physics.mjtTimer.mjTIMER_STEP], d.timer[physics.mjtTimer.mjTIMER_FORWARD]
  assert step.number == 3 and step.duration > 0 and fwd.number == 1
  clock = iter(range(100))
  physics.set_mjcb_time(lambda: float(next(clock)))
  try:
    physics.mj_step(m, d)
  finally:
    physics.set_mjcb_time(None)
  assert d.timer[0].number == 4 and physics.get_mjcb_time() is None
  with pytest.raises(TypeError, match="Optional"):
    physics.set_mjcb_time(3)
  physics.mj_resetData(m, d)  # as MuJoCo's, the reset clears the timers
  assert d.timer[0].number == 0 and d.timer[0].duration == 0.0


@pytest.mark.parametrize("stype", ["sphere", "capsule", "ellipsoid", "cylinder", "box"])
def test_inside_site_is_mujocos(stype):
  xml = f"""<mujoco><worldbody><body pos=".1 .2 .3" euler="10 20 30">
    <site type="{stype}" size=".3 .2 .25" euler="5 -40 7"/></body></worldbody></mujoco>"""
  mjm, mjd, m, d = oracle.load_both(xml)
  mujoco.mj_forward(mjm, mjd)
  physics.mj_forward(m, d)
  points = np.random.default_rng(0).uniform(-0.4, 0.8, (200, 3))
  theirs = [mujoco.mj_insideSite(mjm, mjd, 0, p) for p in points]
  assert [physics.mj_insideSite(m, d, 0, p) for p in points] == theirs
  assert 0 < sum(theirs) < len(points)


def test_mju_utilities_are_mujocos():
  rng = np.random.default_rng(1)
  quat = rng.normal(size=4)
  quat /= np.linalg.norm(quat)
  vec = rng.normal(size=3)
  for name, outs, args in (("mju_rotVecQuat", [3], (vec, quat)), ("mju_quat2Mat", [9], (quat,))):
    ours, theirs = np.zeros(outs[0]), np.zeros(outs[0])
    getattr(physics, name)(ours, *args)
    getattr(mujoco, name)(theirs, *args)
    np.testing.assert_allclose(ours, theirs, rtol=0, atol=1e-15, err_msg=name)
  for seq in ("xyz", "XYZ", "zYx", "yzx"):
    ours, theirs = np.zeros(4), np.zeros(4)
    physics.mju_euler2Quat(ours, vec, seq)
    mujoco.mju_euler2Quat(theirs, vec, seq)
    np.testing.assert_allclose(ours, theirs, rtol=0, atol=1e-15, err_msg=seq)
  for seq in ("xy", "xYp"):
    with pytest.raises(mujoco.FatalError) as theirs:
      mujoco.mju_euler2Quat(np.zeros(4), vec, seq)
    with pytest.raises(physics.FatalError, match=f"^{str(theirs.value)}$".replace("[", r"\[").replace("]", r"\]")):
      physics.mju_euler2Quat(np.zeros(4), vec, seq)
  mat = rng.normal(size=(4, 4))
  ours, theirs = np.zeros((4, 4)), np.zeros((4, 4))
  physics.mju_symmetrize(ours, mat)
  mujoco.mju_symmetrize(theirs, mat)
  np.testing.assert_array_equal(ours, theirs)
  v1, v2 = rng.normal(size=4), rng.normal(size=4)
  assert abs(physics.mju_mulVecMatVec(v1, mat, v2) - mujoco.mju_mulVecMatVec(v1, mat, v2)) < 1e-14
  sparse = np.where(rng.uniform(size=(3, 5)) < 0.5, rng.normal(size=(3, 5)), 0.0)
  outs = [(np.zeros(15), np.zeros(3, np.int32), np.zeros(3, np.int32), np.zeros(15, np.int32)) for _ in range(2)]
  assert physics.mju_dense2sparse(outs[0][0], sparse, *outs[0][1:]) == mujoco.mju_dense2sparse(
      outs[1][0], sparse, *outs[1][1:])
  for ours, theirs in zip(*outs):
    np.testing.assert_array_equal(ours, theirs)
  dense = np.zeros((3, 5))
  physics.mju_sparse2dense(dense, *outs[0])
  np.testing.assert_array_equal(dense, sparse)
  with pytest.raises(TypeError):
    physics.mju_rotVecQuat(np.zeros(4), vec, quat)
  with pytest.raises(TypeError):
    physics.mju_rotVecQuat(np.zeros(3, np.int32), vec, quat)


@pytest.mark.parametrize("ntotal, nband, ndense", [(5, 2, 1), (6, 3, 2), (7, 7, 0), (5, 1, 5)])
def test_band_matrices_are_mujocos(ntotal, nband, ndense):
  rng = np.random.default_rng(ntotal + nband)
  dense = rng.normal(size=(ntotal, ntotal))
  dense = dense @ dense.T + ntotal * np.eye(ntotal)
  nsparse = ntotal - ndense
  for i in range(nsparse):
    for j in range(nsparse):
      if abs(i - j) >= nband:
        dense[i, j] = 0.0
  size = nband * nsparse + ndense * ntotal
  theirs, ours = np.zeros(size), np.zeros(size)
  mujoco.mju_dense2Band(theirs, dense, ntotal, nband, ndense)
  physics.mju_dense2Band(ours, dense, ntotal, nband, ndense)
  np.testing.assert_array_equal(ours, theirs)
  assert [physics.mju_bandDiag(i, ntotal, nband, ndense) for i in range(ntotal)] == [
      mujoco.mju_bandDiag(i, ntotal, nband, ndense) for i in range(ntotal)]
  back = np.zeros((ntotal, ntotal))
  physics.mju_band2Dense(back, theirs, ntotal, nband, ndense, True)
  np.testing.assert_array_equal(back, dense)
  vec = rng.normal(size=(ntotal, 1))
  products = np.zeros((ntotal, 1)), np.zeros((ntotal, 1))
  mujoco.mju_bandMulMatVec(products[0], theirs.reshape(-1, 1), vec, ntotal, nband, ndense, 1, True)
  physics.mju_bandMulMatVec(products[1], theirs, vec, ntotal, nband, ndense, 1, True)
  np.testing.assert_allclose(products[1], products[0], rtol=0, atol=1e-13)
  assert physics.mju_cholFactorBand(ours, ntotal, nband, ndense, 0.1, 0.2) == pytest.approx(
      mujoco.mju_cholFactorBand(theirs, ntotal, nband, ndense, 0.1, 0.2), rel=1e-14)
  np.testing.assert_allclose(ours, theirs, rtol=0, atol=1e-13)
  solutions = np.zeros(ntotal), np.zeros(ntotal)
  mujoco.mju_cholSolveBand(solutions[0], theirs, vec[:, 0], ntotal, nband, ndense)
  physics.mju_cholSolveBand(solutions[1], ours, vec[:, 0], ntotal, nband, ndense)
  np.testing.assert_allclose(solutions[1], solutions[0], rtol=0, atol=1e-13)


def test_quaternion_derivatives_are_mujocos():
  rng = np.random.default_rng(2)
  for scale in (1.0, 1e-10, 0.0):
    qa, qb = rng.normal(size=4), rng.normal(size=4)
    qa, qb = qa / np.linalg.norm(qa), qb / np.linalg.norm(qb)
    qb = qa + scale * (qb - qa)
    qb /= np.linalg.norm(qb)
    ours, theirs = [np.zeros(9), np.zeros(9)], [np.zeros(9), np.zeros(9)]
    physics.mjd_subQuat(qa, qb, *ours)
    mujoco.mjd_subQuat(qa, qb, *theirs)
    np.testing.assert_allclose(np.array(ours), np.array(theirs), rtol=0, atol=1e-13)
    vel = rng.normal(size=3) * scale
    ours, theirs = [np.zeros(9), np.zeros(9), np.zeros(3)], [np.zeros(9), np.zeros(9), np.zeros(3)]
    physics.mjd_quatIntegrate(vel, 0.7, *ours)
    mujoco.mjd_quatIntegrate(vel, 0.7, *theirs)
    for a, b in zip(ours, theirs):
      np.testing.assert_allclose(a, b, rtol=0, atol=1e-13)


@pytest.mark.parametrize("model", ["hopper", "humanoid", "ant"])
def test_nc_is_mujocos(model):
  mjm, m = oracle.models(oracle.gym_asset(model))
  assert m.nC == mjm.nC


def test_history_buffers_are_mujocos():
  """mj_init*History and mj_read* on delayed actuators and sensors, then steps from the buffers they filled."""
  xml = """<mujoco><worldbody><body><geom type="sphere" size="0.1"/><joint name="hinge"/><site name="s"/></body>
    </worldbody>
    <actuator><position joint="hinge" kp="10" delay="0.01" nsample="4"/></actuator>
    <sensor><accelerometer site="s" delay="0.01" nsample="3"/><jointpos joint="hinge" nsample="2" interval="0.05"/>
    </sensor></mujoco>"""
  results = []
  for lib, (m, d) in ((mujoco, oracle.load_both(xml)[:2]), (physics, oracle.load_both(xml)[2:])):
    lib.mj_step(m, d, 3)
    lib.mj_initCtrlHistory(m, d, 0, np.array([0, 0.01, 0.02, 0.03]), np.array([1.0, 2, 3, 4]))
    lib.mj_initCtrlHistory(m, d, 0, None, np.array([5.0, 6, 7, 8]))
    lib.mj_initSensorHistory(m, d, 0, np.array([0, 0.01, 0.02]), np.arange(9.0).reshape(3, 3), phase=0.3)
    lib.mj_initSensorHistory(m, d, 1, np.array([0, 0.01]), np.arange(2.0).reshape(2, 1), phase=0.3)
    reads = []
    for t in np.linspace(-0.01, 0.05, 13):
      for interp in (0, 1, 2):
        ctrl, sensor = np.zeros(1), np.zeros(3)
        lib.mj_readCtrl(m, d, 0, t, ctrl, interp=interp)
        lib.mj_readSensor(m, d, 0, t, sensor, interp=interp)
        reads += [*ctrl, *sensor]
    lib.mj_step(m, d, 5)
    results.append((np.array(reads), d.history.copy(), d.qpos.copy(), d.sensordata.copy()))
  for ours, theirs in zip(results[1], results[0]):
    np.testing.assert_allclose(ours, theirs, rtol=0, atol=1e-12)
  _, _, m, d = oracle.load_both(xml)
  with pytest.raises(IndexError):
    physics.mj_readCtrl(m, d, 1, 0.0, np.zeros(1), interp=0)
  with pytest.raises(TypeError):
    physics.mj_initSensorHistory(m, d, 0, None, np.zeros((3, 2)), 0.0)


def test_box_qp_is_mujocos():
  """Same solution, free set and factor (its lower triangle) as MuJoCo's, bounded on both sides, one or none."""
  for seed in range(40):
    n = 1 + seed % 7
    rng = np.random.default_rng(seed)
    a = rng.normal(size=(n, n))
    hess, bias = a @ a.T + 0.1 * np.eye(n), 3 * rng.normal(size=n)
    lower = None if seed % 5 == 0 else -rng.uniform(0.2, 2, n)
    upper = None if seed % 5 == 1 else rng.uniform(0.2, 2, n)
    results = []
    for lib in (mujoco, physics):
      res, factor, index = np.zeros(n), np.zeros((n, n + 7)), np.zeros(n, np.int32)
      rank = lib.mju_boxQP(res, factor, index, hess, bias, lower, upper)
      results.append((rank, res, np.tril(factor.reshape(-1)[:rank * rank].reshape(rank, rank)), index[:rank]))
    (rank, res, factor, index), theirs = results[1], results[0]
    assert rank == theirs[0] and np.array_equal(index, theirs[3]), seed
    np.testing.assert_allclose(res, theirs[1], rtol=0, atol=1e-9, err_msg=str(seed))
    np.testing.assert_allclose(factor, theirs[2], rtol=0, atol=1e-9, err_msg=str(seed))


def test_subtree_velocities_and_angular_momentum_matrix_are_mujocos():
  mjm, mjd, m, d = oracle.load_both(oracle.gym_asset("humanoid"))
  rng = np.random.default_rng(3)
  mjd.qpos[:] = mjm.qpos0 + 0.2 * rng.normal(size=mjm.nq)
  mjd.qvel[:] = rng.normal(size=mjm.nv)
  oracle.copy_state(mjd, d)
  oracle.forward_both(mjm, mjd, m, d)
  mujoco.mj_subtreeVel(mjm, mjd)
  physics.mj_subtreeVel(m, d)
  np.testing.assert_allclose(d.subtree_linvel, mjd.subtree_linvel, rtol=0, atol=1e-12)
  np.testing.assert_allclose(d.subtree_angmom, mjd.subtree_angmom, rtol=0, atol=1e-12)
  for body in (0, 1, 3, 7):
    ours, theirs = np.zeros((3, m.nv)), np.zeros((3, m.nv))
    mujoco.mj_angmomMat(mjm, mjd, theirs, body)
    physics.mj_angmomMat(m, d, ours, body)
    np.testing.assert_allclose(ours, theirs, rtol=0, atol=1e-12, err_msg=str(body))


def test_frame_quaternions_are_mujocos():
  mjm, mjd, m, d = oracle.load_both(oracle.gym_asset("humanoid"))
  mjd.qpos[:] = mjm.qpos0 + 0.3 * np.random.default_rng(4).normal(size=mjm.nq)
  oracle.forward_both(mjm, mjd, m, d)
  for name in ("xiquat", "geom_xquat"):
    np.testing.assert_allclose(getattr(d, name), getattr(mjd, name), rtol=0, atol=1e-14, err_msg=name)
  np.testing.assert_array_equal(d.body(2).xiquat, d.xiquat[2])
  np.testing.assert_array_equal(d.geom(3).xquat, d.geom_xquat[3])
  assert "xiquat" in dir(d)


def test_assigning_options_and_statistics_copies_them_in():
  m = physics.MjModel.from_xml_string(oracle.STATE_XML)
  gravity = m.opt.gravity
  opt = physics.MjOption()
  opt.timestep, opt.gravity = 0.001, (0, 0, -1)
  m.opt = opt
  assert m.opt == opt and m.opt_timestep[0] == 0.001 and list(gravity) == [0, 0, -1]
  opt.timestep = 0.5  # a copy: later edits stay out of the model
  assert m.opt.timestep == 0.001
  stat = physics.MjStatistic()
  stat.extent, stat.center = 42.0, (1, 2, 3)
  m.stat = stat
  assert m.stat == stat and m.stat_extent[0] == 42.0
  with pytest.raises(TypeError, match="MjOption"):
    m.opt = stat


def test_xml_dependencies_are_mujocos(tmp_path):
  """Asset files, included files and the model file, each once (MuJoCo's order varies with the file's layout)."""
  mesh = (oracle.MODELS_DIR / "meshes" / "wedge.obj").read_bytes()
  (tmp_path / "sub").mkdir()
  (tmp_path / "a.obj").write_bytes(mesh)
  (tmp_path / "sub" / "b.obj").write_bytes(mesh)
  (tmp_path / "sub" / "inc.xml").write_text('<mujoco><asset><mesh name="b" file="sub/b.obj"/></asset></mujoco>')
  (tmp_path / "main.xml").write_text("""<mujoco><include file="sub/inc.xml"/><asset><mesh name="a" file="a.obj"/>
    </asset><worldbody><geom type="mesh" mesh="a"/><geom type="mesh" mesh="b"/></worldbody></mujoco>""")
  for path in [tmp_path / "main.xml"] + [oracle.MODELS_DIR / n for n in ("mesh_geoms.xml", "keyframes_mocap.xml")]:
    ours, theirs = physics.mju_getXMLDependencies(str(path)), mujoco.mju_getXMLDependencies(str(path))
    assert sorted(ours) == sorted(theirs) and len(set(ours)) == len(ours)


def test_geom_distance_is_mujocos():
  xml = """<mujoco><worldbody><geom type="plane" size="5 5 .1"/><geom type="capsule" size=".1 .3" pos="1 0 .5"
    euler="30 20 10"/><geom type="sphere" size=".2" pos="3 0 4"/><body pos="0 0 1"><freejoint/>
    <geom type="box" size=".1 .2 .3" euler="10 0 5"/></body></worldbody></mujoco>"""
  mjm, mjd, m, d = oracle.load_both(xml)
  oracle.forward_both(mjm, mjd, m, d)
  for g1, g2, distmax in ((0, 3, 200.0), (1, 3, 10.0), (2, 3, 10.0), (1, 2, 1.0), (3, 0, 0.5)):
    ours, theirs = np.zeros(6), np.zeros(6)
    dist = physics.mj_geomDistance(m, d, g1, g2, distmax, ours)
    assert dist == pytest.approx(mujoco.mj_geomDistance(mjm, mjd, g1, g2, distmax, theirs), abs=1e-9), (g1, g2)
    np.testing.assert_allclose(ours, theirs, rtol=0, atol=1e-9, err_msg=str((g1, g2)))
  assert d.ncon == mjd.ncon  # the distance's contacts are not the Data's


def test_ray_normals_are_mujocos():
  """mj_ray's normal output on every geom type, rays aimed at each geom from around it."""
  wedge = oracle.MODELS_DIR / "meshes" / "wedge.obj"
  xml = f"""<mujoco><asset><mesh name="w" file="{wedge}"/>
    <hfield name="h" nrow="3" ncol="3" size="1 1 .3 .1" elevation="0 .2 .1 .3 .5 .2 .1 0 .4"/></asset>
    <worldbody><geom type="plane" size="5 5 .1" pos="0 0 -2"/><geom type="sphere" size=".3" pos="1 0 0"/>
    <geom type="capsule" size=".2 .4" pos="-1 0 0" euler="30 40 0"/>
    <geom type="ellipsoid" size=".2 .3 .4" pos="0 1 0" euler="10 20 30"/>
    <geom type="cylinder" size=".3 .2" pos="0 -1 0" euler="50 10 0"/><geom type="box" size=".2 .3 .1" pos="1 1 0"
    euler="5 15 25"/><geom type="mesh" mesh="w" pos="-1 -1 0" euler="10 0 40"/>
    <geom type="hfield" hfield="h" pos="0 0 -1.5"/></worldbody></mujoco>"""
  mjm, mjd, m, d = oracle.load_both(xml)
  oracle.forward_both(mjm, mjd, m, d)
  rng = np.random.default_rng(5)
  hit_types = set()
  for g in range(m.ngeom):
    for _ in range(25):
      pnt = d.geom_xpos[g] + rng.normal(size=3) * 2.0
      vec = d.geom_xpos[g] + rng.normal(size=3) * 0.1 - pnt
      ids, normals = [np.zeros(1, np.int32), np.zeros(1, np.int32)], [np.zeros(3), np.zeros(3)]
      theirs = mujoco.mj_ray(mjm, mjd, pnt, vec, None, 1, -1, ids[0], normals[0])
      ours = physics.mj_ray(m, d, pnt, vec, None, 1, -1, ids[1], normals[1])
      assert ids[1][0] == ids[0][0] and ours == pytest.approx(theirs, abs=1e-9)
      np.testing.assert_allclose(normals[1], normals[0], rtol=0, atol=1e-9)
      if ids[0][0] >= 0:
        hit_types.add(int(m.geom_type[ids[0][0]]))
  assert hit_types == set(range(8))  # plane, hfield, sphere, capsule, ellipsoid, cylinder, box, mesh


@pytest.mark.parametrize("model", ["ant", "humanoid"])
def test_multi_ray_is_mujocos(model):
  """Rays from one point in every direction, with MuJoCo's cutoff of the geoms by bounding sphere."""
  mjm, mjd, m, d = oracle.load_both(oracle.gym_asset(model))
  oracle.forward_both(mjm, mjd, m, d)
  nray, pnt = 200, np.array([0.3, 0.2, 1.2])
  vec = np.random.default_rng(6).normal(size=3 * nray)
  for cutoff in (mujoco.mjMAXVAL, 0.6, 0.1):
    results = []
    for lib, mm, dd in ((mujoco, mjm, mjd), (physics, m, d)):
      geomid, dist, normal = np.zeros(nray, np.int32), np.zeros(nray), np.zeros(3 * nray)
      lib.mj_multiRay(mm, dd, pnt, vec, None, 1, -1, geomid, dist, normal, nray, cutoff)
      results.append((geomid, dist, normal))
    np.testing.assert_array_equal(results[1][0], results[0][0])
    np.testing.assert_allclose(results[1][1], results[0][1], rtol=0, atol=1e-12)
    np.testing.assert_allclose(results[1][2], results[0][2], rtol=0, atol=1e-12)


def test_ray_geom_is_mujocos():
  """mju_rayGeom on every primitive type, random poses and rays: distance and normal."""
  rng = np.random.default_rng(7)
  hits = 0
  for k in range(300):
    gtype = (0, 2, 3, 4, 5, 6)[k % 6]
    pos, quat, mat = rng.normal(size=3) * 0.2, rng.normal(size=4), np.zeros(9)
    mujoco.mju_quat2Mat(mat, quat / np.linalg.norm(quat))
    size, pnt = rng.uniform(0.1, 0.5, 3), rng.normal(size=3) * 1.5
    vec = pos + rng.normal(size=3) * 0.2 - pnt
    normals = np.zeros(3), np.zeros(3)
    theirs = mujoco.mju_rayGeom(pos, mat, size, pnt, vec, gtype, normals[0])
    ours = physics.mju_rayGeom(pos, mat, size, pnt, vec, gtype, normals[1])
    assert ours == pytest.approx(theirs, abs=1e-9), (k, gtype)
    np.testing.assert_allclose(normals[1], normals[0], rtol=0, atol=1e-9, err_msg=str((k, gtype)))
    hits += theirs >= 0
  assert hits > 100
  with pytest.raises(ValueError, match="primitive"):
    physics.mju_rayGeom(pos, mat, size, pnt, vec, physics.mjtGeom.mjGEOM_MESH)


_TENDON_SPARSITY_XML = """
<mujoco>
  <worldbody>
    <site name="w0"/>
    <body name="a">
      <joint name="a_slide" type="slide" axis="1 0 0"/>
      <joint name="a_hinge" axis="0 0 1"/>
      <geom size=".1"/>
      <site name="a_site" pos=".1 0 0"/>
    </body>
    <body name="b" pos="1 0 0">
      <joint type="ball"/>
      <geom size=".1"/>
      <body name="c" pos="0 1 0">
        <joint name="c_hinge" axis="1 0 0"/>
        <geom name="wrap" type="cylinder" size=".1 .1"/>
        <site name="c_site" pos="0 .3 0"/>
      </body>
    </body>
    <body name="d" pos="3 0 0">
      <joint name="d_hinge"/>
      <geom size=".1"/>
      <site name="side" pos="0 0 .3"/>
      <site name="d_site" pos="0 .5 0"/>
    </body>
    <body name="e" pos="0 3 0">
      <joint name="e_slide" type="slide"/>
      <geom name="ball" size=".2"/>
    </body>
  </worldbody>
  <tendon>
    <fixed><joint joint="d_hinge" coef="1"/><joint joint="a_slide" coef="-2"/><joint joint="c_hinge" coef="0"/></fixed>
    <spatial><site site="w0"/><site site="a_site"/></spatial>
    <spatial><site site="a_site"/><geom geom="wrap"/><site site="c_site"/></spatial>
    <spatial><site site="w0"/><geom geom="ball" sidesite="side"/><site site="d_site"/></spatial>
    <spatial><site site="a_site"/><site site="w0"/><pulley divisor="2"/><site site="w0"/><site site="d_site"/></spatial>
  </tendon>
</mujoco>
"""


def test_tendon_jacobian_sparsity_is_mujocos():
  """nJten and ten_J_rownnz / rowadr / colind (MuJoCo 4's sparse tendon Jacobian layout) equal to MuJoCo's, and
  the tendon views' ragged J_* rows; wrap geoms, side sites and pulleys included."""
  ours = physics.MjModel.from_xml_string(_TENDON_SPARSITY_XML)
  theirs = mujoco.MjModel.from_xml_string(_TENDON_SPARSITY_XML)
  assert ours.nJten == theirs.nJten
  for name in ("ten_J_rownnz", "ten_J_rowadr", "ten_J_colind"):
    np.testing.assert_array_equal(getattr(ours, name), getattr(theirs, name), err_msg=name)
  for t in range(theirs.ntendon):
    for name in ("J_rownnz", "J_rowadr", "J_colind"):
      np.testing.assert_array_equal(getattr(ours.tendon(t), name), getattr(theirs.tendon(t), name))


def test_ray_skin_is_mujocos():
  """mju_raySkin against MuJoCo's: 300 rays at random triangle soups (hits from both sides, misses), distance to
  1e-9 and the same nearest vertex; the same error types."""
  rng = np.random.default_rng(1)
  for trial in range(30):
    nvert, nface = 12, 8
    vert = rng.uniform(-1, 1, (nvert, 3)).astype(np.float32)
    face = rng.integers(0, nvert, (nface, 3)).astype(np.int32)
    for _ in range(10):
      pnt = rng.uniform(-3, 3, 3)
      vec = rng.uniform(-1, 1, 3) if trial % 2 else -pnt * rng.uniform(0.5, 2)  # aimed near the soup: hits
      ours_id, theirs_id = np.array([-5], np.int32), np.array([-5], np.int32)
      ours = physics.mju_raySkin(nface, nvert, face, vert, pnt, vec, ours_id)
      theirs = mujoco.mju_raySkin(nface, nvert, face, vert, pnt, vec, theirs_id)
      np.testing.assert_allclose(ours, theirs, rtol=1e-9, atol=1e-12)
      assert ours_id[0] == theirs_id[0]
      assert physics.mju_raySkin(nface, nvert, face.ravel(), vert.ravel(), pnt, vec, None) == ours
  pnt, vec = np.array([0.2, 0.2, 2.0]), np.array([0.0, 0.0, -1.0])
  face, vert = np.array([[0, 1, 2]], np.int32), np.eye(3, dtype=np.float32)
  for args, error in (((1, 3, 0, 0.0), TypeError), ((2, 3, face, vert), TypeError), ((1, 4, face, vert), TypeError),
                      ((1, 3, np.array([[0, 1, 3]], np.int32), vert), ValueError),
                      ((-1, 3, np.zeros(0, np.int32), vert), ValueError)):
    for function in (physics.mju_raySkin, mujoco.mju_raySkin):
      with pytest.raises(error):
        function(*args, pnt, vec, None)


def test_passive_force_flags_are_mujocos():
  """flg_gravcomp (on when a body has gravcomp, ngravcomp its count), flg_surfacevel: MuJoCo's values, and the
  settings that change nothing in this engine are taken; turning gravcomp off while a body has it is refused."""
  for xml in ("<mujoco><worldbody><body gravcomp='1'><freejoint/><geom size='.1'/></body></worldbody></mujoco>",
              "<mujoco><worldbody><body><freejoint/><geom size='.1'/></body></worldbody></mujoco>"):
    mjm, mjd, m, d = oracle.load_both(xml)
    assert (m.flg_gravcomp, m.ngravcomp, m.flg_surfacevel) == (mjm.flg_gravcomp, mjm.ngravcomp, mjm.flg_surfacevel)
    assert copy.copy(m).flg_gravcomp == m.flg_gravcomp and pickle.loads(pickle.dumps(m)).ngravcomp == m.ngravcomp
    for flag in (True, False):
      m.flg_surfacevel = mjm.flg_surfacevel = flag
      assert m.flg_surfacevel is flag
    if m.flg_gravcomp:
      with pytest.raises(ValueError, match="body_gravcomp"):
        m.flg_gravcomp = False
      continue
    m.flg_gravcomp = mjm.flg_gravcomp = True  # no body has gravcomp: the same forces
    assert (m.flg_gravcomp, m.ngravcomp) == (True, 1)
    mujoco.mj_forward(mjm, mjd)
    physics.mj_forward(m, d)
    np.testing.assert_allclose(d.qacc, mjd.qacc, rtol=0, atol=1e-12)
    m.flg_gravcomp = False
    assert (m.flg_gravcomp, m.ngravcomp) == (False, 0)
