"""mj_ray (ray.py, query.py) against MuJoCo: random rays at random states with geom group masks, static geoms
and an excluded body; its argument errors."""

import mujoco
import numpy as np
import pytest

import oracle
from mjgym import physics

RAY_MODELS = {"ball_chain": oracle.BALL_CHAIN_XML, "humanoid": oracle.ASSETS_DIR / "humanoid.xml",
              "ant": oracle.ASSETS_DIR / "ant.xml", "pusher": oracle.ASSETS_DIR / "pusher.xml"}


@pytest.mark.parametrize("name", RAY_MODELS)
def test_ray_matches_mujoco(name):
  hits = 0
  options = [(None, 1, -1), (None, 0, -1), (np.array([1, 0, 1, 0, 0, 0], np.uint8), 1, -1),
             (np.array([0, 1, 1, 1, 1, 1], np.uint8), 1, 1)]
  mjm, mjd, m, d = oracle.load_both(RAY_MODELS[name])
  for rng in oracle.forward_states(mjm, mjd, m, d, 0, 2):
    center = mjd.subtree_com[0]
    for _ in range(60):
      pnt = center + rng.normal(scale=1.0, size=3)
      # aim near a random geom, so that most rays hit something
      target = mjd.geom_xpos[rng.integers(mjm.ngeom)] + rng.normal(scale=0.05, size=3)
      vec = (target - pnt) * rng.uniform(0.5, 2.0)
      for group, flg_static, exclude in options:
        gid, mjgid = np.array([-7], np.int32), np.array([-7], np.int32)
        dist = physics.mj_ray(m, d, pnt, vec, group, flg_static, exclude, gid)
        expected = mujoco.mj_ray(mjm, mjd, pnt, vec, group, flg_static, exclude, mjgid)
        assert gid[0] == mjgid[0], (pnt, vec, group, flg_static, exclude)
        assert dist == pytest.approx(expected, rel=1e-10, abs=1e-12)
        hits += gid[0] >= 0
  assert hits > 100


def test_ray_errors():
  mjm, mjd, m, d = oracle.load_both(oracle.BALL_CHAIN_XML)
  next(oracle.forward_states(mjm, mjd, m, d, 0, 1))
  with pytest.raises(TypeError, match="normal"):
    physics.mj_ray(m, d, np.zeros(3), np.ones(3), None, 1, -1, None, np.zeros(4))
  with pytest.raises(ValueError, match="too small"):
    physics.mj_ray(m, d, np.zeros(3), np.zeros(3), None, 1, -1, None)
  # straight down from above onto the floor
  assert physics.mj_ray(m, d, np.array([1.5, 1.5, 2.0]), np.array([0, 0, -2.0]), None, 1, -1, None) == 1.0
