"""The model statistics m.stat (statistic.py, with meaninertia from mj_setConst) against MuJoCo's compiler."""

import numpy as np
import pytest

import oracle

STAT_MODELS = [oracle.ASSETS_DIR / f for f in ("humanoid.xml", "ant.xml", "hopper.xml", "pusher.xml", "reacher.xml",
                                           "swimmer.xml", "cartpole.xml", "half_cheetah.xml")]
STAT_MODELS += [oracle.gym_asset(name) for name in ("walker2d", "inverted_double_pendulum", "humanoidstandup")]
STAT_MODELS += [oracle.MODELS_DIR / f for f in ("hfield_terrain.xml", "mesh_geoms.xml", "tendon_spatial.xml")]


@pytest.mark.parametrize("path", STAT_MODELS, ids=lambda p: p.stem)
def test_stat_matches_mujoco(path):
  mjm, m = oracle.models(path)
  for name in ("meaninertia", "meanmass", "meansize", "extent"):
    assert getattr(m.stat, name) == pytest.approx(getattr(mjm.stat, name), rel=1e-12, abs=1e-12), name
  np.testing.assert_allclose(m.stat.center, mjm.stat.center, rtol=1e-12, atol=1e-12)


def test_statistic_element_overrides():
  xml = oracle.SPRINGS_XML.replace('<option>',
                                   '<statistic extent="3" center="1 2 3" meanmass="7" meaninertia="0.5"/><option>')
  mjm, m = oracle.models(xml)
  for name in ("meaninertia", "meanmass", "meansize", "extent"):
    assert getattr(m.stat, name) == pytest.approx(getattr(mjm.stat, name), rel=1e-12), name
  np.testing.assert_array_equal(m.stat.center, [1, 2, 3])
  empty_mj, empty = oracle.models("<mujoco/>")
  for name in ("meaninertia", "meanmass", "meansize", "extent"):
    assert getattr(empty.stat, name) == getattr(empty_mj.stat, name), name
  m.stat.extent = 9.0
  assert m.stat_extent[0] == 9.0
