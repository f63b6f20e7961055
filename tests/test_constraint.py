"""Oracle tests of the constraint rows and solvers against `mujoco`, given MuJoCo's own contacts.

States come from random-control rollouts in MuJoCo; at each we run our pipeline with the collision stage
replaced by MuJoCo's contacts and compare every efc quantity, efc_force and qacc.
"""

import mujoco
import numpy as np
import pytest

import constraint_oracle as co
import oracle
from mjgym import physics

MODELS = oracle.MODELS_DIR / "constraint"
NEWTON, CG, PGS = 2, 1, 0
ROW_FIELDS = ("efc_J", "efc_pos", "efc_margin", "efc_diagA", "efc_R", "efc_D", "efc_aref", "efc_vel",
              "efc_frictionloss")


def _load(source):
  path = str(oracle.gym_asset(source)) if "." not in source else str(MODELS / source)
  mjm = mujoco.MjModel.from_xml_path(path)
  return mjm, co.our_model(mjm)


def _check_states(mjm, m, states, rtol, tolerance=None, fields=("efc_force", "qacc")):
  """Runs both engines at each state and returns the worst relative error per field."""
  mjd = mujoco.MjData(mjm)
  d = physics.MjData(m)
  worst = {}
  nrows = 0
  for state in states:
    co.load_state(mjm, mjd, d, state)
    co.forward_given_contacts(m, d, mjd)
    err = co.efc_compare(m, d, mjd)
    assert err["nefc"] == 0, f"nefc {d.nefc} != {mjd.nefc}"
    assert np.array_equal(d.efc_type[:mjd.nefc], mjd.efc_type)
    assert np.array_equal(d.efc_id[:mjd.nefc], mjd.efc_id)
    nrows += mjd.nefc
    for name in fields:
      worst[name] = max(worst.get(name, 0.0), err[name])
  for name, value in worst.items():
    assert value <= rtol, f"{name}: relative error {value:.2e} > {rtol:.0e}"
  return worst, nrows


@pytest.mark.parametrize("source, kick", [
    ("hopper", 0.0), ("walker2d", 0.0), ("ant", 0.0), ("humanoid", 0.0),
    ("equality.xml", 2.0), ("limits.xml", 2.0), ("contacts.xml", 2.0)])
def test_newton_matches_mujoco(source, kick):
  """Rows, forces and qacc within 1e-6 of MuJoCo's Newton solver at the models' own tolerance."""
  mjm, m = _load(source)
  co.set_solver(mjm, m, NEWTON)
  states = co.rollout_states(mjm, 8, 15, kick=kick)
  _, nrows = _check_states(mjm, m, states, 1e-6, fields=("efc_force", "qacc") + ROW_FIELDS)
  assert nrows > 0


def test_elliptic_cones_match_mujoco_converged():
  """Elliptic cones (condim 1/3/4/6, impratio 4, solreffriction): same rows; the same solution when both
  solvers are run to convergence (MuJoCo's Newton stops short of 1e-6 at the default tolerance here)."""
  mjm, m = _load("contacts_elliptic.xml")
  co.set_solver(mjm, m, NEWTON, tolerance=1e-15)
  states = co.rollout_states(mjm, 8, 15, kick=2.0)
  _check_states(mjm, m, states, 1e-6, fields=("efc_force", "qacc") + ROW_FIELDS)


def test_rows_cover_every_family():
  """The purpose-written models produce every row type and condim MuJoCo has."""
  seen_types, seen_dims = set(), set()
  for source, cone in (("contacts.xml", 0), ("contacts_elliptic.xml", 1), ("equality.xml", 0), ("limits.xml", 0)):
    mjm, _ = _load(source)
    for state in co.rollout_states(mjm, 8, 15, kick=2.0):
      mjd = mujoco.MjData(mjm)
      mjd.qpos[:], mjd.qvel[:] = state[0], state[1]
      mujoco.mj_forward(mjm, mjd)
      seen_types |= set(mjd.efc_type.tolist())
      if mjd.ncon:
        seen_dims |= {(cone, int(x)) for x in mjd.contact.dim}
  assert seen_types == set(range(8))
  assert {(0, 1), (0, 3), (0, 4), (0, 6), (1, 3), (1, 4), (1, 6)} <= seen_dims


@pytest.mark.parametrize("source", ["limits.xml", "contacts.xml", "contacts_elliptic.xml", "equality.xml"])
def test_cg_reaches_newton_solution(source):
  mjm, m = _load(source)
  states = co.rollout_states(mjm, 5, 15, kick=2.0)
  mjd = mujoco.MjData(mjm)
  d = physics.MjData(m)
  for state in states:
    co.set_solver(mjm, m, NEWTON, tolerance=1e-15)
    co.load_state(mjm, mjd, d, state)
    co.set_solver(mjm, m, CG, tolerance=1e-15, iterations=1000)
    co.forward_given_contacts(m, d, mjd)
    err = co.efc_compare(m, d, mjd)
    assert err["efc_force"] <= 1e-6 and err["qacc"] <= 1e-6, err


@pytest.mark.parametrize("source", ["limits.xml", "contacts.xml", "contacts_elliptic.xml"])
def test_pgs_within_1e3_of_solution(source):
  mjm, m = _load(source)
  states = co.rollout_states(mjm, 5, 15, kick=2.0)
  mjd = mujoco.MjData(mjm)
  d = physics.MjData(m)
  for state in states:
    co.set_solver(mjm, m, NEWTON, tolerance=1e-15)
    co.load_state(mjm, mjd, d, state)
    co.set_solver(mjm, m, PGS, tolerance=1e-15, iterations=1000)
    co.forward_given_contacts(m, d, mjd)
    err = co.efc_compare(m, d, mjd)
    assert err["efc_force"] <= 1e-3 and err["qacc"] <= 1e-3, err


def test_pgs_matches_mujoco_pgs_on_humanoid():
  """The humanoid's own solver is PGS (50 iterations); ours lands next to MuJoCo's."""
  mjm, m = _load("humanoid")
  states = co.rollout_states(mjm, 8, 15)
  _check_states(mjm, m, states, 1e-4)


def test_solver_is_selectable_at_run_time():
  mjm, m = _load("contacts.xml")
  state = co.rollout_states(mjm, 1, 15, kick=2.0)[0]
  mjd = mujoco.MjData(mjm)
  d = physics.MjData(m)
  niter = {}
  for solver in (NEWTON, CG, PGS):
    m.opt.solver = solver
    mjm.opt.solver = solver
    co.load_state(mjm, mjd, d, state)
    co.forward_given_contacts(m, d, mjd)
    niter[solver] = int(d.solver_niter[0])
    assert d.solver_niter[0] > 0
  assert niter[NEWTON] < niter[PGS]


def test_set_const_matches_mujoco():
  for name in ("hopper", "humanoid"):
    mjm = mujoco.MjModel.from_xml_path(str(oracle.gym_asset(name)))
    m = physics.MjModel.from_xml_path(str(oracle.gym_asset(name)))
    for field in ("dof_invweight0", "body_invweight0", "tendon_invweight0"):
      oracle.assert_close(getattr(m, field), getattr(mjm, field), 1e-12, field)
    assert m.stat_meaninertia[0] == pytest.approx(mjm.stat.meaninertia, rel=1e-12)


def test_disable_flags_and_inactive_equality():
  mjm, m = _load("equality.xml")
  d = physics.MjData(m)
  physics.mj_forward(m, d)
  assert d.ne == 3 + 6 + 6 + 6 + 3
  d.eq_active[1] = 0
  physics.mj_forward(m, d)
  assert d.ne == 3 + 6 + 6 + 3
  m.opt.disableflags = int(physics.mjtDisableBit.EQUALITY)
  physics.mj_forward(m, d)
  assert d.nefc == 0
  np.testing.assert_array_equal(d.qacc, d.qacc_smooth)


def test_njmax_overflow_warns_and_stays_defined():
  mjm, _ = _load("limits.xml")
  values_model = physics.MjModel.from_xml_path(str(MODELS / "limits.xml"))
  fields = {name: getattr(values_model, name) for name, _, _ in physics.types.MODEL_ROWS}
  fields["njmax"] = 2
  m = physics.MjModel.from_fields(fields)
  d = physics.MjData(m)
  d.qpos[0] = 1.0  # hinge far beyond its upper limit
  d.qpos[1] = 0.5  # slider too
  physics.mj_step(m, d, 5)
  assert d.warning.number[physics.mjtWarning.CNSTRFULL] > 0
  assert d.nefc <= 2 and np.all(np.isfinite(d.qacc))
  del mjm


def test_contact_force_and_cfrc_ext():
  """mj_contactForce and the contact wrenches in cfrc_ext match MuJoCo's (both cones)."""
  for source in ("contacts.xml", "contacts_elliptic.xml"):
    mjm, m = _load(source)
    mjd = mujoco.MjData(mjm)
    d = physics.MjData(m)
    for state in co.rollout_states(mjm, 4, 15, kick=2.0):
      co.set_solver(mjm, m, NEWTON, tolerance=1e-15)
      co.load_state(mjm, mjd, d, state)
      co.forward_given_contacts(m, d, mjd)
      ours, theirs = np.zeros(6), np.zeros(6)
      for c in range(mjd.ncon):
        physics.mj_contactForce(m, d, c, ours)
        mujoco.mj_contactForce(mjm, mjd, c, theirs)
        oracle.assert_close(ours, theirs, 1e-6, f"contact {c}")
      physics.mj_rnePostConstraint(m, d)
      mujoco.mj_rnePostConstraint(mjm, mjd)
      oracle.assert_close(d.cfrc_ext, mjd.cfrc_ext, 1e-6, "cfrc_ext")
      oracle.assert_close(d.cfrc_int, mjd.cfrc_int, 1e-6, "cfrc_int")


def _compile_both(name):
  """MuJoCo's and our compilation of one of tests/models (set_const included on both sides)."""
  path = str(oracle.MODELS_DIR / name)
  return mujoco.MjModel.from_xml_path(path), physics.MjModel.from_xml_path(path)


def test_weld_and_connect_frames_at_qpos0_match_mujoco():
  """Anchored welds without relpose and body connects hold at qpos0; eq_data is MuJoCo's in all 12 columns (site
  forms, joint and tendon couplings included); the rollout stays on MuJoCo's."""
  mjm, m = _compile_both("weld_anchor.xml")
  assert m.eq_data.shape == mjm.eq_data.shape == (mjm.neq, 12)
  oracle.assert_close(m.eq_data, mjm.eq_data, 1e-15, "eq_data")
  mjd, d = mujoco.MjData(mjm), physics.MjData(m)
  mujoco.mj_forward(mjm, mjd)
  physics.mj_forward(m, d)
  assert d.nefc == mjd.nefc and d.ne == mjd.ne
  oracle.assert_close(d.efc_pos[:d.nefc], mjd.efc_pos, 1e-12, "efc_pos at qpos0")
  # rows of the constraints whose frames come from qpos0: body connects, and body welds flagged in eq_data[11]
  from_qpos0 = [e for e in range(mjm.neq) if mjm.eq_objtype[e] == mujoco.mjtObj.mjOBJ_BODY
                and (mjm.eq_type[e] == mujoco.mjtEq.mjEQ_CONNECT or mjm.eq_data[e, 11])]
  assert len(from_qpos0) == 5
  rows = np.isin(d.efc_id[:d.ne], from_qpos0)
  assert np.max(np.abs(d.efc_pos[:d.ne][rows])) <= 1e-15
  for nstep in (100, 400):
    mujoco.mj_step(mjm, mjd, nstep)
    physics.mj_step(m, d, nstep)
    oracle.assert_close(d.qpos, mjd.qpos, 1e-10, f"qpos after {nstep} more steps")


def _contact_rows(d, ncon, pos, geom1, geom2, efc_address, dim):
  """(geom1, geom2, position) -> that contact's efc rows, so two engines' contacts match whatever their order."""
  return {(int(geom1[c]), int(geom2[c]), tuple(np.round(pos[c], 9))): (int(efc_address[c]), int(dim[c]))
          for c in range(ncon)}


def test_simple_bodies_weigh_constraints_by_mass():
  """Bodies moved only by slides get MuJoCo's body_simple and its invweight0 (1/mass, armature left out), and
  every other kind its J M^-1 J^T average; the contact rows' efc_R follow."""
  mjm, m = _compile_both("slide_bodies.xml")
  np.testing.assert_array_equal(m.body_simple, mjm.body_simple)
  assert np.count_nonzero(mjm.body_simple[1:] == 2) >= 4 and np.count_nonzero(mjm.body_simple[1:] == 0) >= 4
  oracle.assert_close(m.body_invweight0, mjm.body_invweight0, 1e-12, "body_invweight0")
  oracle.assert_close(m.dof_invweight0, mjm.dof_invweight0, 1e-12, "dof_invweight0")
  mjd, d = mujoco.MjData(mjm), physics.MjData(m)
  for nstep in (0, 1, 20):
    mujoco.mj_step(mjm, mjd, nstep)
    physics.mj_step(m, d, nstep)
    mujoco.mj_forward(mjm, mjd)
    physics.mj_forward(m, d)
    assert d.nefc == mjd.nefc
    ours = _contact_rows(d, d.ncon, d.contact_pos, d.contact_geom1, d.contact_geom2, d.contact_efc_address,
                         d.contact_dim)
    theirs = _contact_rows(mjd, mjd.ncon, mjd.contact.pos, mjd.contact.geom1, mjd.contact.geom2,
                           mjd.contact.efc_address, mjd.contact.dim)
    assert ours.keys() == theirs.keys() and len(theirs) == mjd.ncon > 0
    for key, (adr, dim) in theirs.items():
      rows = 1 if dim == 1 else 2 * (dim - 1)  # pyramidal cone
      our_adr = ours[key][0]
      oracle.assert_close(d.efc_R[our_adr:our_adr + rows], mjd.efc_R[adr:adr + rows], 1e-12, f"efc_R of {key}")
