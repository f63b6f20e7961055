"""Constraint islands (island.py) against MuJoCo's mj_island: the kinematic trees they group, and the islands of a
pile of bodies in contact, with islands enabled and disabled."""

import mujoco
import numpy as np
import pytest

import constraint_oracle as co
import oracle

PILE = oracle.MODELS_DIR / "solver" / "pile.xml"


@pytest.mark.parametrize("name", ["humanoid", "ant", "hopper"])
def test_trees_match_mujoco(name):
  mjm, m = oracle.models(oracle.gym_asset(name))
  assert m.ntree == mjm.ntree
  np.testing.assert_array_equal(m.body_treeid, mjm.body_treeid)
  np.testing.assert_array_equal(m.dof_treeid, mjm.dof_treeid)
  np.testing.assert_array_equal(m.tree_dofadr, mjm.tree_dofadr)
  np.testing.assert_array_equal(m.tree_dofnum, mjm.tree_dofnum)


def test_islands_match_mujoco():
  """The pile: balls, boxes, an arm and a welded pair make separate islands; trees, dofs and islands agree."""
  (mjm, mjd), (m, d) = co.forward_at_contact_state(PILE, 50)
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
  (_, mjd), (_, d) = co.forward_at_contact_state(PILE, 50, disableflags=int(mujoco.mjtDisableBit.mjDSBL_ISLAND))
  assert mjd.nisland == 0 and d.nisland == 0
