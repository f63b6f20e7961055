"""mj_jac, mj_jacBody, mj_jacBodyCom, mj_jacSite, mj_jacGeom and mj_ray against MuJoCo."""

import pathlib

import mujoco
import numpy as np
import pytest

import oracle
from mjgym import physics

ASSETS = pathlib.Path(physics.__file__).resolve().parents[1] / "assets"

# Ball joints (a chain of three), a slide, a body welded to its parent and a static body, with sites.
BALL_CHAIN = """
<mujoco model="ball chain">
  <worldbody>
    <geom name="floor" type="plane" size="2 2 0.1"/>
    <body name="post" pos="0.3 0 0.2"><geom type="box" size="0.05 0.05 0.2" group="2"/></body>
    <body name="a" pos="0 0 1">
      <joint type="ball"/>
      <geom type="capsule" fromto="0 0 0 0.3 0 0" size="0.04"/>
      <site name="sa" pos="0.3 0.02 0"/>
      <body name="b" pos="0.3 0 0">
        <joint type="ball"/>
        <geom type="capsule" fromto="0 0 0 0 0.3 0" size="0.03" group="1"/>
        <body name="welded" pos="0 0.3 0">
          <geom type="sphere" size="0.05" pos="0.02 0 0"/>
          <site name="sw" pos="0 0.05 0.01"/>
          <body name="c">
            <joint type="ball"/>
            <joint type="slide" axis="0 0 1"/>
            <geom type="box" size="0.05 0.04 0.03" pos="0.1 0 0"/>
            <geom type="ellipsoid" size="0.05 0.04 0.03" pos="0 0.1 0" rgba="1 1 1 0"/>
            <site name="sc" pos="0.1 0.1 0"/>
          </body>
        </body>
      </body>
    </body>
  </worldbody>
</mujoco>
"""

MODELS = {
    "humanoid": lambda: str(ASSETS / "humanoid.xml"),
    "ant": lambda: str(ASSETS / "ant.xml"),
    "reacher": lambda: str(ASSETS / "reacher.xml"),
    "pusher": lambda: str(ASSETS / "pusher.xml"),
    "ball_chain": lambda: BALL_CHAIN,
}


def _load(name):
  spec = MODELS[name]()
  if spec.lstrip().startswith("<"):
    return mujoco.MjModel.from_xml_string(spec), physics.MjModel.from_xml_string(spec)
  return mujoco.MjModel.from_xml_path(spec), physics.MjModel.from_xml_path(spec)


def _states(name, count=4, seed=0):
  mjm, m = _load(name)
  mjd, d = mujoco.MjData(mjm), physics.MjData(m)
  rng = np.random.default_rng(seed)
  for _ in range(count):
    oracle.random_state(mjm, mjd, rng)
    mujoco.mj_forward(mjm, mjd)
    oracle.copy_state(mjd, d)
    physics.mj_forward(m, d)
    yield mjm, mjd, m, d, rng


def _both(fn_ours, fn_theirs, m, mjm, *args):
  ours = (np.full((3, m.nv), np.nan), np.full((3, m.nv), np.nan))
  theirs = (np.zeros((3, mjm.nv)), np.zeros((3, mjm.nv)))
  fn_ours(*args[0], *ours, *args[2:])
  fn_theirs(*args[1], *theirs, *args[2:])
  return ours, theirs


@pytest.mark.parametrize("name", sorted(MODELS))
def test_jacobians_match_mujoco(name):
  checked = 0
  for mjm, mjd, m, d, rng in _states(name):
    cases = [(physics.mj_jacBody, mujoco.mj_jacBody, b) for b in range(m.nbody)]
    cases += [(physics.mj_jacBodyCom, mujoco.mj_jacBodyCom, b) for b in range(m.nbody)]
    cases += [(physics.mj_jacSite, mujoco.mj_jacSite, s) for s in range(m.nsite)]
    cases += [(physics.mj_jacGeom, mujoco.mj_jacGeom, g) for g in range(m.ngeom)]
    for ours_fn, theirs_fn, i in cases:
      (jp, jr), (tp, tr) = _both(ours_fn, theirs_fn, m, mjm, (m, d), (mjm, mjd), i)
      oracle.assert_close(jp, tp, 1e-12, f"{ours_fn.__name__}({i}) jacp")
      oracle.assert_close(jr, tr, 1e-12, f"{ours_fn.__name__}({i}) jacr")
      checked += 1
    for b in range(m.nbody):
      point = rng.normal(size=3)
      (jp, jr), (tp, tr) = _both(physics.mj_jac, mujoco.mj_jac, m, mjm, (m, d), (mjm, mjd), point, b)
      oracle.assert_close(jp, tp, 1e-12, f"mj_jac({b}) jacp")
      oracle.assert_close(jr, tr, 1e-12, f"mj_jac({b}) jacr")
  assert checked > 0


def test_jacobian_outputs_may_be_none_and_are_checked():
  _, _, m, d, _ = next(_states("ball_chain", 1))
  jacp = np.zeros((3, m.nv))
  physics.mj_jacSite(m, d, jacp, None, 2)
  jacr = np.zeros((3, m.nv))
  physics.mj_jacSite(m, d, None, jacr, 2)
  full = (np.zeros((3, m.nv)), np.zeros((3, m.nv)))
  physics.mj_jacSite(m, d, *full, 2)
  np.testing.assert_array_equal(full[0], jacp)
  np.testing.assert_array_equal(full[1], jacr)
  with pytest.raises(ValueError, match=r"jacp must be a writeable C-contiguous array of shape \(3, 10\)"):
    physics.mj_jacBody(m, d, np.zeros((3, m.nv + 1)), None, 1)
  with pytest.raises(ValueError, match="jacr"):
    physics.mj_jacBody(m, d, None, np.zeros((m.nv, 3)).T, 1)
  with pytest.raises(TypeError, match="float64"):
    physics.mj_jacBody(m, d, np.zeros((3, m.nv), np.float32), None, 1)
  with pytest.raises(IndexError, match=r"site id 7 out of range \[0, 3\)"):
    physics.mj_jacSite(m, d, jacp, None, 7)


RAY_MODELS = ("ball_chain", "humanoid", "ant", "pusher")


@pytest.mark.parametrize("name", RAY_MODELS)
def test_ray_matches_mujoco(name):
  hits = 0
  options = [(None, 1, -1), (None, 0, -1), (np.array([1, 0, 1, 0, 0, 0], np.uint8), 1, -1),
             (np.array([0, 1, 1, 1, 1, 1], np.uint8), 1, 1)]
  for mjm, mjd, m, d, rng in _states(name, 2):
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
  _, _, m, d, _ = next(_states("ball_chain", 1))
  with pytest.raises(NotImplementedError, match="normal"):
    physics.mj_ray(m, d, np.zeros(3), np.ones(3), None, 1, -1, None, np.zeros(3))
  with pytest.raises(ValueError, match="too small"):
    physics.mj_ray(m, d, np.zeros(3), np.zeros(3), None, 1, -1, None)
  # straight down from above onto the floor
  assert physics.mj_ray(m, d, np.array([1.5, 1.5, 2.0]), np.array([0, 0, -2.0]), None, 1, -1, None) == 1.0
