"""mjd_transitionFD and mjd_inverseFD against MuJoCo (forward and centered differences, quaternion states, control
limits, warm starts), mj_integratePos / mj_differentiatePos, and the batched transition_fd_batch against the
per-world function (bitwise)."""

import mujoco
import numpy as np
import pytest

import oracle
from mjgym import physics
from mjgym.physics import derivative

EPS = 1e-6
RTOL = 1e-6


def _pair(name, integrator=None, solver=None):
  mjm, m = oracle.models(oracle.SENSED_XML if name == "sensed" else oracle.model_file(name), solver=solver)
  if integrator is None and mjm.opt.integrator == mujoco.mjtIntegrator.mjINT_RK4:
    integrator = "EULER"  # several Gymnasium models use RK4, which MuJoCo's finite differences refuse
  oracle.set_options(mjm, m, integrator=integrator)
  return mjm, mujoco.MjData(mjm), m, physics.MjData(m)


def _state(mjm, mjd, d, nstep, seed):
  """A random state stepped ``nstep`` times by MuJoCo (into contact), copied to our Data with its warm start."""
  rng = np.random.default_rng(seed)
  oracle.random_state(mjm, mjd, rng, scale=0.3)
  mjd.qpos[:] = mjm.qpos0
  mujoco.mj_step(mjm, mjd, nstep)
  lo, hi = mjm.actuator_ctrlrange.T
  mjd.ctrl[:] = rng.uniform(lo, hi) if mjm.nu else []
  oracle.copy_state(mjd, d)
  d.qacc_warmstart[:] = mjd.qacc_warmstart


def _transition(lib, m, d, centered):
  ndx, nu, ns = 2 * m.nv + m.na, m.nu, m.nsensordata
  A, B, C, D = np.zeros((ndx, ndx)), np.zeros((ndx, nu)), np.zeros((ns, ndx)), np.zeros((ns, nu))
  lib.mjd_transitionFD(m, d, EPS, centered, A, B, C, D)
  return A, B, C, D


@pytest.mark.parametrize("centered", [False, True])
@pytest.mark.parametrize("name", ["hopper", "walker2d", "half_cheetah", "ant", "humanoid", "swimmer", "reacher",
                                  "inverted_double_pendulum", "sensed"])
def test_transition_fd_matches_mujoco(name, centered):
  mjm, mjd, m, d = _pair(name)
  _state(mjm, mjd, d, 80, 0)
  expected = _transition(mujoco, mjm, mjd, centered)
  actual = _transition(physics, m, d, centered)
  for label, a, e in zip("ABCD", actual, expected):
    oracle.assert_close(a, e, RTOL, f"{name} {label}")
  assert np.abs(expected[0]).max() > 0


def test_transition_fd_leaves_data_unchanged_and_takes_none():
  mjm, mjd, m, d = _pair("ant")
  _state(mjm, mjd, d, 60, 1)
  fields = d._fields  # pylint: disable=protected-access
  before = {k: v.copy() for k, v in fields.items()}
  ndx = 2 * m.nv + m.na
  A, B = np.zeros((ndx, ndx)), np.zeros((ndx, m.nu))
  physics.mjd_transitionFD(m, d, EPS, False, A, None, None, None)
  physics.mjd_transitionFD(m, d, EPS, False, None, B, None, None)
  for k, v in before.items():
    np.testing.assert_array_equal(fields[k], v, err_msg=k)
  eA, eB, _, _ = _transition(mujoco, mjm, mjd, False)
  oracle.assert_close(A, eA, RTOL, "A alone")
  oracle.assert_close(B, eB, RTOL, "B alone")
  with pytest.raises(ValueError, match="shape"):
    physics.mjd_transitionFD(m, d, EPS, False, np.zeros((ndx, ndx + 1)), None, None, None)


@pytest.mark.parametrize("centered", [False, True])
def test_transition_fd_controls_at_their_limits(centered):
  mjm, mjd, m, d = _pair("sensed")
  _state(mjm, mjd, d, 30, 2)
  lo, hi = mjm.actuator_ctrlrange.T
  ctrl = np.array([lo[0], hi[1]])
  mjd.ctrl[:] = ctrl
  d.ctrl[:] = ctrl
  expected = _transition(mujoco, mjm, mjd, centered)
  actual = _transition(physics, m, d, centered)
  for label, a, e in zip("ABCD", actual, expected):
    oracle.assert_close(a, e, RTOL, f"limits {label}")


@pytest.mark.parametrize("integrator", ["IMPLICITFAST", "IMPLICIT"])
def test_transition_fd_implicit_integrators(integrator):
  mjm, mjd, m, d = _pair("ant", integrator=integrator)
  _state(mjm, mjd, d, 60, 3)
  for label, a, e in zip("ABCD", _transition(physics, m, d, True), _transition(mujoco, mjm, mjd, True)):
    oracle.assert_close(a, e, RTOL, f"{integrator} {label}")


def test_transition_fd_uses_the_warm_start_in_every_perturbed_step():
  """With a solver stopped early the warm start shapes the result: each perturbed step must start from d's."""
  mjm, mjd, m, d = _pair("ant", solver="CG")
  mjm.opt.iterations = m.opt.iterations = 3
  _state(mjm, mjd, d, 60, 4)
  warm = np.random.default_rng(4).normal(size=mjm.nv)
  mjd.qacc_warmstart[:] = warm
  d.qacc_warmstart[:] = warm
  for label, a, e in zip("ABCD", _transition(physics, m, d, False), _transition(mujoco, mjm, mjd, False)):
    oracle.assert_close(a, e, RTOL, f"warm start {label}")


def test_transition_fd_refuses_rk4():
  _, _, m, d = _pair("ant", integrator="RK4")
  with pytest.raises(ValueError, match="RK4"):
    physics.mjd_transitionFD(m, d, EPS, False, None, None, None, None)


def _inverse_fd(lib, m, d, flg_actuation):
  nv, ns, nm = m.nv, m.nsensordata, (len(derivative.mass_csr_index(m)) if lib is physics else m.nC)
  outs = [np.zeros((nv, n)) for n in (nv, nv, nv, ns, ns, ns, nm)]
  lib.mjd_inverseFD(m, d, EPS, flg_actuation, *outs)
  return outs


@pytest.mark.parametrize("flg_actuation", [False, True])
@pytest.mark.parametrize("name", ["hopper", "ant", "humanoid", "half_cheetah", "reacher", "sensed"])
def test_inverse_fd_matches_mujoco(name, flg_actuation):
  mjm, mjd, m, d = _pair(name)
  _state(mjm, mjd, d, 60, 5)
  mujoco.mj_forward(mjm, mjd)
  physics.mj_forward(m, d)  # as MuJoCo's Data: the inverse reads actuator_force of the last forward pass
  d.qacc[:] = mjd.qacc
  expected = _inverse_fd(mujoco, mjm, mjd, flg_actuation)
  actual = _inverse_fd(physics, m, d, flg_actuation)
  for label, a, e in zip(("DfDq", "DfDv", "DfDa", "DsDq", "DsDv", "DsDa", "DmDq"), actual, expected):
    oracle.assert_close(a, e, RTOL, f"{name} {label}")


def test_integrate_and_differentiate_pos_match_mujoco():
  mjm, mjd, m, _ = _pair("humanoid")
  rng = np.random.default_rng(6)
  oracle.random_state(mjm, mjd, rng)
  qvel = rng.normal(size=mjm.nv)
  q_mj, q = mjd.qpos.copy(), mjd.qpos.copy()
  mujoco.mj_integratePos(mjm, q_mj, qvel, 0.3)
  physics.mj_integratePos(m, q, qvel, 0.3)
  np.testing.assert_allclose(q, q_mj, rtol=0, atol=1e-14)
  v_mj, v = np.zeros(mjm.nv), np.zeros(mjm.nv)
  mujoco.mj_differentiatePos(mjm, v_mj, 0.3, mjd.qpos, q_mj)
  physics.mj_differentiatePos(m, v, 0.3, mjd.qpos, q_mj)
  np.testing.assert_allclose(v, v_mj, rtol=0, atol=1e-12)
  np.testing.assert_allclose(v, qvel, rtol=0, atol=1e-12)


@pytest.mark.parametrize("name", oracle.GYM_MODELS)
def test_mass_layout_is_mujocos_compressed_rows(name):
  mjm, mjd, m, d = _pair(name)
  np.testing.assert_array_equal(derivative.dof_simplenum(m), mjm.dof_simplenum)
  mujoco.mj_forward(mjm, mjd)
  oracle.copy_state(mjd, d)
  physics.mj_forward(m, d)
  np.testing.assert_allclose(d.qM[derivative.mass_csr_index(m)], mjd.M, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("max_worlds", [derivative.MAX_SCRATCH_WORLDS, 100])
@pytest.mark.parametrize("centered", [False, True])
def test_transition_fd_batch_equals_per_world_bitwise(centered, max_worlds, monkeypatch):
  monkeypatch.setattr(derivative, "MAX_SCRATCH_WORLDS", max_worlds)  # 100: several calls of 1 or 2 sources
  _, _, m, _ = _pair("ant")
  batch = physics.MjDataBatch(m, 4)
  rng = np.random.default_rng(9)
  batch.qvel[:] = rng.normal(0, 0.3, batch.qvel.shape)
  batch.ctrl[:] = rng.uniform(-1, 1, batch.ctrl.shape)
  batch.step(40)
  batch.ctrl[:] = rng.uniform(-1, 1, batch.ctrl.shape)
  A, B, C, D = derivative.transition_fd_batch(m, batch, EPS, centered)
  assert A.shape == (4, 2 * m.nv, 2 * m.nv) and D.shape == (4, m.nsensordata, m.nu)
  for w in range(4):
    one = _transition(physics, m, batch[w], centered)
    for label, a, e in zip("ABCD", (A[w], B[w], C[w], D[w]), one):
      np.testing.assert_array_equal(a, e, err_msg=f"world {w} {label}")
  # a subset by mask
  sub = derivative.transition_fd_batch(m, batch, EPS, centered, mask=[False, True, False, True])
  np.testing.assert_array_equal(sub[0], A[[1, 3]])


def test_transition_fd_batch_honours_randomized_worlds():
  _, _, m, _ = _pair("hopper")
  batch = physics.MjDataBatch(m, 2)
  batch.randomize(["body_mass"])["body_mass"][1] *= 1.5
  batch.qvel[:] = 0.1
  A, _, _, _ = derivative.transition_fd_batch(m, batch, EPS, False)
  assert not np.array_equal(A[0], A[1])
  m.body_mass[:] = batch.world_model["body_mass"][1]
  one = _transition(physics, m, batch[1], False)
  np.testing.assert_array_equal(A[1], one[0])


@pytest.mark.parametrize("solver", ["PGS", "CG", "NEWTON"])
def test_transition_fd_under_each_solver_with_elliptic_cones(solver):
  mjm, mjd, m, d = _pair("ant", solver=solver)
  mjm.opt.cone = int(mujoco.mjtCone.mjCONE_ELLIPTIC)
  m.opt.cone = int(physics.mjtCone.mjCONE_ELLIPTIC)
  _state(mjm, mjd, d, 80, 10)
  assert mjd.ncon > 0
  for label, a, e in zip("ABCD", _transition(physics, m, d, True), _transition(mujoco, mjm, mjd, True)):
    oracle.assert_close(a, e, RTOL, f"{solver} {label}")
