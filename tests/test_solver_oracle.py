"""The constraint solvers iteration by iteration against MuJoCo: PGS (shuffled sweeps, Nesterov momentum), CG
(Hager-Zhang directions), Newton, noslip, and PGS on several constraint islands (the islands: test_island.py).

Each test takes a state MuJoCo reached with contacts, loads it into both engines, caps the solver at a few
iterations and compares the forces after mj_forward: equal forces after 1, 2 and 10 iterations mean the same
iterates, not only the same optimum.
"""

import mujoco
import numpy as np
import pytest

import constraint_oracle as co
import oracle
from mjgym import physics

PILE = oracle.MODELS_DIR / "solver" / "pile.xml"


def _compare(pair, atol=1e-10):
  (_, mjd), (_, d) = pair
  n = mjd.nefc
  assert d.nefc == n and n > 0
  np.testing.assert_array_equal(np.asarray(d.efc_type)[:n], mjd.efc_type)
  np.testing.assert_allclose(np.asarray(d.efc_force)[:n], mjd.efc_force, rtol=0, atol=atol)
  np.testing.assert_allclose(d.qacc, mjd.qacc, rtol=0, atol=atol * 100)
  assert int(np.ravel(d.solver_niter)[0]) == mjd.solver_niter[0]


HUMANOID = oracle.gym_asset("humanoid")


@pytest.mark.parametrize("cone", [0, 1], ids=["pyramidal", "elliptic"])
@pytest.mark.parametrize("warmstart", [True, False], ids=["warm", "cold"])
@pytest.mark.parametrize("iterations", [1, 2, 10, 100])
@pytest.mark.parametrize("solver", [0, 1], ids=["PGS", "CG"])
def test_iterates_match_mujoco(solver, iterations, warmstart, cone):
  """Gymnasium's humanoid fallen on the floor: forces after 1, 2, 10 iterations and at convergence."""
  _compare(co.forward_at_contact_state(HUMANOID, 250, solver=solver, iterations=iterations, cone=cone,
                                       warmstart=warmstart))


@pytest.mark.parametrize("solver", [0, 1, 2], ids=["PGS", "CG", "Newton"])
def test_noslip_matches_mujoco(solver):
  """Noslip after each solver: the friction rows re-solved without R, qacc from the corrected forces."""
  _compare(co.forward_at_contact_state(HUMANOID, 250, solver=solver, noslip_iterations=5))


def test_newton_stops_on_mujocos_iteration():
  pair = co.forward_at_contact_state(HUMANOID, 250, solver=2)
  _compare(pair)


@pytest.mark.parametrize("cone", [0, 1], ids=["pyramidal", "elliptic"])
@pytest.mark.parametrize("iterations", [1, 2, 10, 100])
def test_pgs_per_island_matches_mujoco(iterations, cone):
  """Several islands: each island's sweep order, momentum and stopping test are its own."""
  _compare(co.forward_at_contact_state(PILE, 50, solver=0, iterations=iterations, cone=cone))


@pytest.mark.parametrize("name", ["humanoid", "humanoidstandup"])
def test_gymnasium_pgs_rollout_follows_mujoco(name):
  """Gymnasium's PGS models under their own options: 500 steps of random controls from qpos0 plus small
  noise, qpos within 1e-9 of MuJoCo throughout (contacts from the first steps; measured 7e-14 and 3e-15). The
  stopping test scales the cost by the island's own inertia, as MuJoCo 4 does; with the whole model's mean
  inertia instead, PGS stopped an iteration early inside RK4's stages and the runs left 1e-6 within 150 steps."""
  path = str(oracle.gym_asset(name))
  mjm, mjd, m, d = oracle.load_both(path)
  assert mjm.opt.solver == mujoco.mjtSolver.mjSOL_PGS
  rng = np.random.default_rng(0)
  q = mjm.qpos0 + rng.uniform(-0.01, 0.01, mjm.nq)
  mjd.qpos[:], d.qpos[:] = q, q
  for t in range(500):
    u = rng.uniform(-0.4, 0.4, mjm.nu)
    mjd.ctrl[:], d.ctrl[:] = u, u
    mujoco.mj_step(mjm, mjd)
    physics.mj_step(m, d)
    err = float(np.max(np.abs(d.qpos - mjd.qpos)))
    assert err <= 1e-9, f"{name}: step {t}: |qpos - mujoco| = {err:.2e}"
