"""Oracle tests of the smooth-dynamics kernels (smooth.py, support.py) against MuJoCo's mj_forward."""

import mujoco
import numpy as np
import pytest

import oracle
from mjgym import physics
from mjgym.physics import actuation
from mjgym.physics import containers
from mjgym.physics import math as engine_math
from mjgym.physics import passive
from mjgym.physics import smooth
from mjgym.physics import support

RTOL = 1e-9
NSTATE = 50
# MuJoCo finds the bend point of a tendon whose side site is inside its wrapping geom only to ~1e-7, so
# its ten_J there is ~1e-6 off the exact one: test_sensor checks that model with tolerances of its own.
_OWN_TOLERANCES = ("tendon_sidesite_inside.xml",)
MODELS = [("gym", name) for name in oracle.GYM_MODELS] + [
    ("file", p.name) for p in sorted(oracle.MODELS_DIR.glob("*.xml")) if p.name not in _OWN_TOLERANCES]


def load(kind, name):
  """MuJoCo's model (constraints off), our model built from it, and a Data of each."""
  path = oracle.gym_asset(name) if kind == "gym" else oracle.MODELS_DIR / name
  mjm = mujoco.MjModel.from_xml_path(str(path))
  oracle.disable_constraints(mjm)
  m = oracle.model_from_mujoco(mjm)
  d = containers.MjData.over_arrays(m, containers.allocate_data_arrays(m))
  return mjm, mujoco.MjData(mjm), m, d


def run_pipeline(m, d):
  """Our position, velocity and actuation stages in MuJoCo's order."""
  ms, ds = m._struct, d._struct
  smooth.kinematics(ms, ds)
  smooth.com_pos(ms, ds)
  smooth.camlight(ms, ds)
  smooth.tendon(ms, ds)
  smooth.crb(ms, ds)
  smooth.factor_m(ms, ds)
  smooth.transmission(ms, ds)
  actuation.fwd_velocity_quantities(ms, ds)
  smooth.com_vel(ms, ds)
  passive.passive(ms, ds)
  smooth.rne(ms, ds)
  actuation.fwd_actuation(ms, ds)


def states(mjm, mjd, m, d, seed, scale=1.0):
  """Yields after MuJoCo's mj_forward and our pipeline have run on the same random state."""
  rng = np.random.default_rng(seed)
  for _ in range(NSTATE):
    oracle.random_state(mjm, mjd, rng, scale)
    if mjm.nmocap:
      mjd.mocap_pos[:] = rng.normal(size=mjd.mocap_pos.shape)
      mjd.mocap_quat[:] = rng.normal(size=mjd.mocap_quat.shape)  # unnormalized on purpose
    if mjm.nbody > 1:
      mjd.xfrc_applied[1:] = rng.normal(size=(mjm.nbody - 1, 6))
    mujoco.mj_forward(mjm, mjd)
    oracle.copy_state(mjd, d)
    run_pipeline(m, d)
    yield


def dense_ten_j(mjm, mjd):
  dst = np.zeros((mjm.ntendon, mjm.nv))
  if mjm.ntendon:
    mujoco.mju_sparse2dense(dst, mjd.ten_J, mjm.ten_J_rownnz, mjm.ten_J_rowadr, mjm.ten_J_colind)
  return dst


def dense_moment(mjm, mjd):
  dst = np.zeros((mjm.nu, mjm.nv))
  if mjm.nu:
    mujoco.mju_sparse2dense(dst, mjd.actuator_moment, mjd.moment_rownnz, mjd.moment_rowadr, mjd.moment_colind)
  return dst


def compare(d, mjd, fields, name):
  for f in fields:
    oracle.assert_close(getattr(d, f), getattr(mjd, f), RTOL, f"{name}: {f}")


POSITION_FIELDS = ("xpos", "xquat", "xmat", "xipos", "ximat", "xanchor", "xaxis", "geom_xpos", "geom_xmat",
                   "site_xpos", "site_xmat", "subtree_com", "cinert", "cdof", "crb", "cam_xpos", "cam_xmat",
                   "light_xpos", "light_xdir", "ten_length", "actuator_length")


@pytest.mark.parametrize("kind,name", MODELS)
def test_position(kind, name):
  mjm, mjd, m, d = load(kind, name)
  full = np.zeros((mjm.nv, mjm.nv))
  ours = np.zeros((mjm.nv, mjm.nv))
  x = np.zeros(mjm.nv)
  for _ in states(mjm, mjd, m, d, seed=1):
    compare(d, mjd, POSITION_FIELDS, name)
    oracle.assert_close(d.ten_J, dense_ten_j(mjm, mjd), RTOL, f"{name}: ten_J")
    oracle.assert_close(d.actuator_moment, dense_moment(mjm, mjd), RTOL, f"{name}: actuator_moment")
    mujoco.mj_fullM(mjm, mjd, full)
    smooth.full_m(m._struct, d.qM, ours)
    oracle.assert_close(ours, full, RTOL, f"{name}: qM")
    y = np.random.default_rng(0).normal(size=mjm.nv)
    smooth.solve_m(m._struct, d._struct, x, y)
    oracle.assert_close(x, np.linalg.solve(full, y), RTOL, f"{name}: solve_m")
    smooth.solve_m(m._struct, d._struct, y, y)
    oracle.assert_close(y, x, 1e-15, f"{name}: solve_m in place")


@pytest.mark.parametrize("kind,name", MODELS)
def test_velocity(kind, name):
  mjm, mjd, m, d = load(kind, name)
  for _ in states(mjm, mjd, m, d, seed=2):
    compare(d, mjd, ("cvel", "cdof_dot", "qfrc_bias", "ten_velocity", "actuator_velocity"), name)


@pytest.mark.parametrize("kind,name", MODELS)
def test_bias_force_at_other_velocity(kind, name):
  """bias_force at qvel' equals MuJoCo's qfrc_bias with qvel', and leaves our cvel/cdof_dot untouched."""
  mjm, mjd, m, d = load(kind, name)
  nb, nv = mjm.nbody, mjm.nv
  work = [np.zeros((nb, 6)), np.zeros((nv, 6)), np.zeros((nb, 6)), np.zeros((nb, 6))]
  out = np.zeros(nv)
  rng = np.random.default_rng(3)
  for _ in states(mjm, mjd, m, d, seed=3):
    cvel = d.cvel.copy()
    qvel = rng.normal(size=nv)
    smooth.bias_force(m._struct, d._struct, qvel, work[0], work[1], work[2], work[3], out)
    np.testing.assert_array_equal(d.cvel, cvel)
    mjd.qvel[:] = qvel
    mujoco.mj_forward(mjm, mjd)
    oracle.assert_close(out, mjd.qfrc_bias, RTOL, f"{name}: bias_force")


@pytest.mark.parametrize("kind,name", MODELS)
def test_rne_postconstraint(kind, name):
  mjm, mjd, m, d = load(kind, name)
  for _ in states(mjm, mjd, m, d, seed=4):
    mujoco.mj_rnePostConstraint(mjm, mjd)
    d.qacc[:] = mjd.qacc
    smooth.rne_postconstraint(m._struct, d._struct)
    compare(d, mjd, ("cacc", "cfrc_int", "cfrc_ext"), name)


@pytest.mark.parametrize("kind,name", MODELS)
def test_support(kind, name):
  """jac against mj_jac; apply_ft and xfrc_accumulate against mj_applyFT."""
  mjm, mjd, m, d = load(kind, name)
  nv = mjm.nv
  jacp, jacr = np.zeros((3, nv)), np.zeros((3, nv))
  ref_p, ref_r = np.zeros((3, nv)), np.zeros((3, nv))
  rng = np.random.default_rng(5)
  for _ in states(mjm, mjd, m, d, seed=5):
    body = int(rng.integers(mjm.nbody))
    point = rng.normal(size=3)
    support.jac(m._struct, d._struct, jacp, jacr, point, body)
    mujoco.mj_jac(mjm, mjd, ref_p, ref_r, point, body)
    oracle.assert_close(jacp, ref_p, RTOL, f"{name}: jacp")
    oracle.assert_close(jacr, ref_r, RTOL, f"{name}: jacr")
    force, torque = rng.normal(size=3), rng.normal(size=3)
    ours, ref = np.zeros(nv), np.zeros(nv)
    support.apply_ft(m._struct, d._struct, force, torque, point, body, ours)
    mujoco.mj_applyFT(mjm, mjd, force, torque, point, body, ref)
    oracle.assert_close(ours, ref, RTOL, f"{name}: apply_ft")
    ours[:] = 0.0
    ref[:] = 0.0
    support.xfrc_accumulate(m._struct, d._struct, ours)
    for b in range(1, mjm.nbody):
      mujoco.mj_applyFT(mjm, mjd, mjd.xfrc_applied[b, :3], mjd.xfrc_applied[b, 3:], mjd.xipos[b], b, ref)
    oracle.assert_close(ours, ref, RTOL, f"{name}: xfrc_accumulate")


def test_factor_sparse_on_another_matrix():
  """factor_sparse / solve_sparse on M + h diag(damping), factored in place, as the integrator uses them."""
  mjm, mjd, m, d = load("gym", "humanoid")
  for _ in states(mjm, mjd, m, d, seed=6):
    h = np.zeros(m.nM)
    h[:] = d.qM
    damping = np.linspace(0.5, 2.0, mjm.nv)
    h[m.dof_Madr] += damping
    diaginv = np.zeros(mjm.nv)
    smooth.factor_sparse(m._struct, h, h, diaginv)
    full = np.zeros((mjm.nv, mjm.nv))
    smooth.full_m(m._struct, d.qM, full)
    full += np.diag(damping)
    y = np.arange(mjm.nv, dtype=float)
    x = np.zeros(mjm.nv)
    smooth.solve_sparse(m._struct, h, diaginv, x, y)
    oracle.assert_close(x, np.linalg.solve(full, y), RTOL, "solve_sparse")
    break


def test_quaternion_algebra_is_mujocos_bitwise():
  """The quaternion kernels round as MuJoCo 4's: normalize4 (also on unit and tiny inputs), quat_mul,
  rot_vec_quat, quat_to_mat, and quat_integrate as mj_integratePos applies it to a free joint."""
  rng = np.random.default_rng(0)
  free = mujoco.MjModel.from_xml_string('<mujoco><worldbody><body><freejoint/><geom size="1"/></body>'
                                        '</worldbody></mujoco>')
  for k in range(2000):
    q = rng.normal(size=4) * 10.0 ** rng.uniform(-3, 3)
    if k % 3 == 0:
      q /= np.sqrt(np.sum(q * q))
    r = rng.normal(size=4)
    v = rng.normal(size=3)
    expected = q.copy()
    mujoco.mju_normalize4(expected)
    np.testing.assert_array_equal(engine_math.normalize4(q), expected)
    expected = np.zeros(4)
    mujoco.mju_mulQuat(expected, q, r)
    np.testing.assert_array_equal(engine_math.quat_mul(q, r), expected)
    unit = np.array(engine_math.normalize4(q))
    expected = np.zeros(3)
    mujoco.mju_rotVecQuat(expected, v, unit)
    np.testing.assert_array_equal(engine_math.rot_vec_quat(v, unit), expected)
    ours, expected = np.zeros(9), np.zeros(9)
    mujoco.mju_quat2Mat(expected, unit)
    engine_math.quat_to_mat(ours, unit)
    np.testing.assert_array_equal(ours, expected)
    qpos, qvel = np.concatenate([rng.normal(size=3), q]), rng.normal(size=6) * 10.0 ** rng.uniform(-16, 1)
    expected = qpos.copy()
    mujoco.mj_integratePos(free, expected, qvel, 0.01)
    ours = qpos[3:].copy()
    engine_math.quat_integrate(ours, qvel[3:], 0.01)
    np.testing.assert_array_equal(ours, expected[3:])
  for q in ([1.0 + 4e-16, 0, 0, 0], [1e-16, 0, 0, 0], [0.6, 0.8, 0, 1e-16]):
    expected = np.array(q)
    mujoco.mju_normalize4(expected)
    np.testing.assert_array_equal(engine_math.normalize4(np.array(q)), expected)


def test_sphere_on_plane_contacts_and_frames_are_mujocos():
  """Spheres resting exactly on a plane: the compiled frames and the kinematics are bitwise MuJoCo's, so every
  touching contact (a distance of -5.6e-17 or 0 decides it) exists exactly when MuJoCo's does, at every step."""
  path = str(oracle.MODELS_DIR / "sphere_on_plane.xml")
  mjm = mujoco.MjModel.from_xml_path(path)
  m = physics.MjModel.from_xml_path(path)
  for field in ("body_pos", "body_quat", "geom_pos", "geom_quat", "body_sameframe", "geom_sameframe"):
    np.testing.assert_array_equal(getattr(m, field), getattr(mjm, field), err_msg=field)
  mjd, d = mujoco.MjData(mjm), physics.MjData(m)
  lockstep = physics.MjData(m)
  touching = 0
  for step in range(100):
    mujoco.mj_forward(mjm, mjd)
    # our own rollout: the contact set is MuJoCo's at every step
    physics.mj_forward(m, d)
    assert d.nefc == mjd.nefc, f"step {step}: nefc {d.nefc} != {mjd.nefc}"
    # MuJoCo's state: our frames are bitwise its frames
    oracle.copy_state(mjd, lockstep)
    physics.mj_forward(m, lockstep)
    assert lockstep.nefc == mjd.nefc
    for field in ("xpos", "xquat", "xmat", "xipos", "ximat", "geom_xpos", "geom_xmat"):
      np.testing.assert_array_equal(getattr(lockstep, field), getattr(mjd, field), err_msg=f"step {step}: {field}")
    touching += int(np.count_nonzero(mjd.contact.dist[:mjd.ncon] > -1e-15))
    mujoco.mj_step(mjm, mjd)
    physics.mj_step(m, d)
  assert touching > 0
