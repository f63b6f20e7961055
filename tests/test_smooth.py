"""Oracle tests of the smooth-dynamics kernels (smooth.py) against MuJoCo's mj_forward."""

import mujoco
import numpy as np
import pytest

import oracle
from mjgym import physics
from mjgym.physics import smooth

RTOL = 1e-9
MODELS = oracle.STAGE_MODELS
POSITION_FIELDS = ("xpos", "xquat", "xmat", "xipos", "ximat", "xanchor", "xaxis", "geom_xpos", "geom_xmat",
                   "site_xpos", "site_xmat", "subtree_com", "cinert", "cdof", "crb", "cam_xpos", "cam_xmat",
                   "light_xpos", "light_xdir", "ten_length", "actuator_length")


@pytest.mark.parametrize("kind,name", MODELS)
def test_position(kind, name):
  mjm, mjd, m, d = oracle.load_stage_model(kind, name)
  full = np.zeros((mjm.nv, mjm.nv))
  ours = np.zeros((mjm.nv, mjm.nv))
  x = np.zeros(mjm.nv)
  for _ in oracle.stage_states(mjm, mjd, m, d, seed=1):
    oracle.assert_fields_close(d, mjd, POSITION_FIELDS, RTOL, name)
    oracle.assert_close(d.ten_J, oracle.dense_ten_j(mjm, mjd), RTOL, f"{name}: ten_J")
    oracle.assert_close(d.actuator_moment, oracle.dense_moment(mjm, mjd), RTOL, f"{name}: actuator_moment")
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
  mjm, mjd, m, d = oracle.load_stage_model(kind, name)
  for _ in oracle.stage_states(mjm, mjd, m, d, seed=2):
    oracle.assert_fields_close(d, mjd, ("cvel", "cdof_dot", "qfrc_bias", "ten_velocity", "actuator_velocity"), RTOL,
                               name)


@pytest.mark.parametrize("kind,name", MODELS)
def test_bias_force_at_other_velocity(kind, name):
  """bias_force at qvel' equals MuJoCo's qfrc_bias with qvel', and leaves our cvel/cdof_dot untouched."""
  mjm, mjd, m, d = oracle.load_stage_model(kind, name)
  nb, nv = mjm.nbody, mjm.nv
  work = [np.zeros((nb, 6)), np.zeros((nv, 6)), np.zeros((nb, 6)), np.zeros((nb, 6))]
  out = np.zeros(nv)
  rng = np.random.default_rng(3)
  for _ in oracle.stage_states(mjm, mjd, m, d, seed=3):
    cvel = d.cvel.copy()
    qvel = rng.normal(size=nv)
    smooth.bias_force(m._struct, d._struct, qvel, work[0], work[1], work[2], work[3], out)
    np.testing.assert_array_equal(d.cvel, cvel)
    mjd.qvel[:] = qvel
    mujoco.mj_forward(mjm, mjd)
    oracle.assert_close(out, mjd.qfrc_bias, RTOL, f"{name}: bias_force")


@pytest.mark.parametrize("kind,name", MODELS)
def test_rne_postconstraint(kind, name):
  mjm, mjd, m, d = oracle.load_stage_model(kind, name)
  for _ in oracle.stage_states(mjm, mjd, m, d, seed=4):
    mujoco.mj_rnePostConstraint(mjm, mjd)
    d.qacc[:] = mjd.qacc
    smooth.rne_postconstraint(m._struct, d._struct)
    oracle.assert_fields_close(d, mjd, ("cacc", "cfrc_int", "cfrc_ext"), RTOL, name)


def test_factor_sparse_on_another_matrix():
  """factor_sparse / solve_sparse on M + h diag(damping), factored in place, as the integrator uses them."""
  mjm, mjd, m, d = oracle.load_stage_model("gym", "humanoid")
  for _ in oracle.stage_states(mjm, mjd, m, d, seed=6):
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


def test_sphere_on_plane_contacts_and_frames_are_mujocos():
  """Spheres resting exactly on a plane: the compiled frames and the kinematics are bitwise MuJoCo's, so every
  touching contact (a distance of -5.6e-17 or 0 decides it) exists exactly when MuJoCo's does, at every step."""
  mjm, m = oracle.models(oracle.MODELS_DIR / "sphere_on_plane.xml")
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
