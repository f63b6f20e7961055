"""mj_jac, mj_jacBody, mj_jacBodyCom, mj_jacSite and mj_jacGeom against MuJoCo."""

import mujoco
import numpy as np
import pytest

import oracle
from mjgym import physics


MODELS = {name: oracle.ASSETS_DIR / f"{name}.xml" for name in ("humanoid", "ant", "reacher", "pusher")}
MODELS["ball_chain"] = oracle.BALL_CHAIN_XML


def _states(name, count=4):
  """(mjm, mjd, m, d, rng) at ``count`` random states of one of MODELS, after mj_forward in both engines."""
  mjm, mjd, m, d = oracle.load_both(MODELS[name])
  for rng in oracle.forward_states(mjm, mjd, m, d, 0, count):
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
  # a wrong shape is a TypeError, as in the bindings (pybind11's argument check)
  with pytest.raises(TypeError, match=r"jacp must be a writeable C-contiguous array of shape \(3, 10\)"):
    physics.mj_jacBody(m, d, np.zeros((3, m.nv + 1)), None, 1)
  with pytest.raises(TypeError, match="jacr"):
    physics.mj_jacBody(m, d, None, np.zeros((m.nv, 3)).T, 1)
  with pytest.raises(TypeError, match="float64"):
    physics.mj_jacBody(m, d, np.zeros((3, m.nv), np.float32), None, 1)
  with pytest.raises(IndexError, match=r"site id 7 out of range \[0, 3\)"):
    physics.mj_jacSite(m, d, jacp, None, 7)
