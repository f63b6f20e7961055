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
  return oracle.models(oracle.gym_asset(source) if "." not in source else MODELS / source, from_mujoco=True)


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
  oracle.set_options(mjm, m, solver=NEWTON)
  states = co.rollout_states(mjm, 8, 15, kick=kick)
  _, nrows = _check_states(mjm, m, states, 1e-6, fields=("efc_force", "qacc") + ROW_FIELDS)
  assert nrows > 0


def test_elliptic_cones_match_mujoco_converged():
  """Elliptic cones (condim 1/3/4/6, impratio 4, solreffriction): same rows; the same solution when both
  solvers are run to convergence (MuJoCo's Newton stops short of 1e-6 at the default tolerance here)."""
  mjm, m = _load("contacts_elliptic.xml")
  oracle.set_options(mjm, m, solver=NEWTON, tolerance=1e-15)
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
    oracle.set_options(mjm, m, solver=NEWTON, tolerance=1e-15)
    co.load_state(mjm, mjd, d, state)
    oracle.set_options(mjm, m, solver=CG, tolerance=1e-15, iterations=1000)
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
    oracle.set_options(mjm, m, solver=NEWTON, tolerance=1e-15)
    co.load_state(mjm, mjd, d, state)
    oracle.set_options(mjm, m, solver=PGS, tolerance=1e-15, iterations=1000)
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
