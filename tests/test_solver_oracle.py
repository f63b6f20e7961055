"""The constraint solvers iteration by iteration against MuJoCo: PGS (shuffled sweeps, Nesterov momentum), CG
(Hager-Zhang directions), Newton, noslip, and the constraint islands they run on.

Each test takes a state MuJoCo reached with contacts, loads it into both engines, caps the solver at a few
iterations and compares the forces after mj_forward: equal forces after 1, 2 and 10 iterations mean the same
iterates, not only the same optimum.
"""

import functools

import mujoco
import numpy as np
import pytest

import oracle
from mjgym import physics

PILE = oracle.MODELS_DIR / "solver" / "pile.xml"
_WARMSTART = int(mujoco.mjtDisableBit.mjDSBL_WARMSTART)


@functools.lru_cache(maxsize=None)
def _contact_state(path, nstep):
  """(qpos, qvel, ctrl, qacc_warmstart) after nstep MuJoCo steps of seeded random controls."""
  mjm = mujoco.MjModel.from_xml_path(str(path))
  mjd = mujoco.MjData(mjm)
  rng = np.random.default_rng(0)
  for _ in range(nstep):
    mjd.ctrl[:] = rng.uniform(-1, 1, mjm.nu)
    mujoco.mj_step(mjm, mjd)
  assert mjd.ncon > 0
  return mjd.qpos.copy(), mjd.qvel.copy(), mjd.ctrl.copy(), mjd.qacc_warmstart.copy()


def _forward_both(path, nstep, **opt):
  """Both engines forwarded at the same contact state with the options in ``opt`` (warmstart: bool)."""
  warmstart = opt.pop("warmstart", True)
  out = []
  for lib in (mujoco, physics):
    m = lib.MjModel.from_xml_path(str(path))
    for key, value in opt.items():
      setattr(m.opt, key, value)
    m.opt.disableflags = (int(m.opt.disableflags) & ~_WARMSTART) | (0 if warmstart else _WARMSTART)
    d = lib.MjData(m)
    qpos, qvel, ctrl, warm = _contact_state(path, nstep)
    d.qpos[:], d.qvel[:], d.ctrl[:], d.qacc_warmstart[:] = qpos, qvel, ctrl, warm
    lib.mj_forward(m, d)
    out.append((m, d))
  return out


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
  _compare(_forward_both(HUMANOID, 250, solver=solver, iterations=iterations, cone=cone, warmstart=warmstart))


@pytest.mark.parametrize("solver", [0, 1, 2], ids=["PGS", "CG", "Newton"])
def test_noslip_matches_mujoco(solver):
  """Noslip after each solver: the friction rows re-solved without R, qacc from the corrected forces."""
  _compare(_forward_both(HUMANOID, 250, solver=solver, noslip_iterations=5))


def test_newton_stops_on_mujocos_iteration():
  pair = _forward_both(HUMANOID, 250, solver=2)
  _compare(pair)


@pytest.mark.parametrize("name", ["humanoid", "ant", "hopper"])
def test_trees_match_mujoco(name):
  mjm = mujoco.MjModel.from_xml_path(str(oracle.gym_asset(name)))
  m = physics.MjModel.from_xml_path(str(oracle.gym_asset(name)))
  assert m.ntree == mjm.ntree
  np.testing.assert_array_equal(m.body_treeid, mjm.body_treeid)
  np.testing.assert_array_equal(m.dof_treeid, mjm.dof_treeid)
  np.testing.assert_array_equal(m.tree_dofadr, mjm.tree_dofadr)
  np.testing.assert_array_equal(m.tree_dofnum, mjm.tree_dofnum)


def test_islands_match_mujoco():
  """The pile: balls, boxes, an arm and a welded pair make separate islands; trees, dofs and islands agree."""
  (mjm, mjd), (m, d) = _forward_both(PILE, 50)
  assert mjd.nisland > 1
  nisland = d.nisland
  assert nisland == mjd.nisland
  np.testing.assert_array_equal(np.asarray(d.tree_island)[:mjm.ntree], mjd.tree_island)
  np.testing.assert_array_equal(np.asarray(d.dof_island), mjd.dof_island)
  np.testing.assert_array_equal(np.asarray(d.map_idof2dof)[:mjd.nidof], mjd.map_idof2dof[:mjd.nidof])
  np.testing.assert_array_equal(np.asarray(d.island_nv)[:nisland], mjd.island_nv)
  np.testing.assert_array_equal(np.asarray(d.island_nefc)[:nisland], mjd.island_nefc)
  np.testing.assert_array_equal(np.asarray(d.island_ne)[:nisland], mjd.island_ne)
  np.testing.assert_array_equal(np.asarray(d.island_nf)[:nisland], mjd.island_nf)


def test_islands_disabled_solve_one_problem():
  (_, mjd), (_, d) = _forward_both(PILE, 50, disableflags=int(mujoco.mjtDisableBit.mjDSBL_ISLAND))
  assert mjd.nisland == 0 and d.nisland == 0
@pytest.mark.parametrize("cone", [0, 1], ids=["pyramidal", "elliptic"])
@pytest.mark.parametrize("iterations", [1, 2, 10, 100])
def test_pgs_per_island_matches_mujoco(iterations, cone):
  """Several islands: each island's sweep order, momentum and stopping test are its own."""
  _compare(_forward_both(PILE, 50, solver=0, iterations=iterations, cone=cone))


@pytest.mark.parametrize("name", ["humanoid", "humanoidstandup"])
def test_gymnasium_pgs_rollout_follows_mujoco(name):
  """Gymnasium's PGS models under their own options: 500 steps of random controls from qpos0 plus small
  noise, qpos within 1e-9 of MuJoCo throughout (contacts from the first steps; measured 7e-14 and 3e-15). The
  stopping test scales the cost by the island's own inertia, as MuJoCo 4 does; with the whole model's mean
  inertia instead, PGS stopped an iteration early inside RK4's stages and the runs left 1e-6 within 150 steps."""
  path = str(oracle.gym_asset(name))
  mjm, m = mujoco.MjModel.from_xml_path(path), physics.MjModel.from_xml_path(path)
  assert mjm.opt.solver == mujoco.mjtSolver.mjSOL_PGS
  mjd, d = mujoco.MjData(mjm), physics.MjData(m)
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
