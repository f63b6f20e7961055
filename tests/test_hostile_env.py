"""Hostile input at the env layer: bad actions, wrong shapes, broken models, misuse of the episode protocol.

Every front end (the single env, the Gymnasium vector env, SB3's VecEnv) follows one rule, checked here side by
side: no NaN or inf reaches an agent, a bad action runs as zero control and is flagged, a wrong shape is a
one-line error naming the expected shape, and stepping a closed or never-reset env raises.
"""

import gymnasium as gym
import numpy as np
import pytest

import mjgym  # noqa: F401  (registers the envs)
from mjgym import sb3 as mjgym_sb3

ENV_ID = "MjHopper-v0"
NU = 3
BAD_VALUES = [np.nan, np.inf, -np.inf, 1e11]


def _single():
  return gym.make(ENV_ID).unwrapped


def _vector(n=4):
  return gym.make_vec(ENV_ID, num_envs=n, vectorization_mode="vector_entry_point", num_threads=1)


def _sb3(n=4):
  return mjgym_sb3.make_vec_env(ENV_ID, n_envs=n, monitor=False, num_threads=1)


def _finite(*arrays):
  return all(np.isfinite(np.asarray(a, np.float64)).all() for a in arrays)


@pytest.mark.parametrize("value", BAD_VALUES)
def test_single_env_bad_action_runs_as_zero_control_and_is_flagged(value):
  bad, twin = _single(), _single()
  bad.reset(seed=3)
  twin.reset(seed=3)
  action = np.array([0.5, value, -0.2])
  obs, reward, terminated, truncated, info = bad.step(action)
  obs0, reward0, terminated0, _, info0 = twin.step(np.zeros(NU))
  assert _finite(obs, reward)
  assert info["bad_action"] is True and "bad_action" not in info0
  # the world stepped exactly as with zero control, and its control cost is that of zero control
  np.testing.assert_array_equal(obs, obs0)
  assert reward == reward0 and info["reward_ctrl"] == 0.0
  assert terminated == terminated0 and not truncated
  assert np.isnan(action[1]) or action[1] == value  # the caller's array is left alone
  # the env zeroed the control before the engine saw it: no engine warning
  assert bad.data.warning_number[int(mjgym.physics.mjtWarning.mjWARN_BADCTRL)] == 0


@pytest.mark.parametrize("value", BAD_VALUES)
def test_vector_envs_bad_action_only_touches_its_world(value):
  n = 4
  actions = np.full((n, NU), 0.3)
  actions[2, 0] = value
  clean = actions.copy()
  clean[2] = 0.0
  for make in (_vector, _sb3):
    bad_env, twin = make(n), make(n)
    if make is _vector:
      bad_env.reset(seed=5)
      twin.reset(seed=5)
      obs, reward, _, truncated, info = bad_env.step(actions)
      obs0, reward0, _, _, _ = twin.step(clean)
      np.testing.assert_array_equal(info["_bad_action"], [False, False, True, False])
      assert not truncated[2]
    else:
      bad_env.seed(5)
      twin.seed(5)
      bad_env.reset()
      twin.reset()
      obs, reward, _, infos = bad_env.step(actions)
      obs0, reward0, _, _ = twin.step(clean)
      assert [bool(i.get("bad_action")) for i in infos] == [False, False, True, False]
    assert _finite(obs, reward)
    np.testing.assert_array_equal(obs, obs0)
    np.testing.assert_array_equal(reward, reward0)
    bad_env.close()
    twin.close()


@pytest.mark.parametrize("shape", [(1, NU), (NU, 1), (NU + 1,), (), (2 * NU,)])
def test_single_env_wrong_action_shape_is_a_one_line_error(shape):
  env = _single()
  env.reset(seed=0)
  with pytest.raises(ValueError, match=r"expected \(3,\)") as e:
    env.step(np.zeros(shape))
  assert "\n" not in str(e.value)


@pytest.mark.parametrize("action", [np.array(["a", "b", "c"]), np.zeros(NU, complex), np.array([None] * NU)])
def test_single_env_non_numeric_action_is_an_error(action):
  env = _single()
  env.reset(seed=0)
  with pytest.raises(TypeError, match=r"real numbers of shape \(3,\)"):
    env.step(action)


@pytest.mark.parametrize("shape", [(4 * NU,), (NU, 4), (2, 2 * NU), (4, NU, 1)])
def test_vector_envs_never_reshape_a_wrong_action_array(shape):
  for make in (_vector, _sb3):
    env = make(4)
    env.reset()
    with pytest.raises(ValueError, match=r"expected \(4, 3\)") as e:
      env.step(np.zeros(shape))
    assert "\n" not in str(e.value)
    env.close()


def test_step_after_close_raises_everywhere():
  single = _single()
  single.reset(seed=0)
  single.close()
  with pytest.raises(gym.error.ClosedEnvironmentError):
    single.step(np.zeros(NU))
  vec = _vector()
  vec.reset(seed=0)
  vec.close()
  with pytest.raises(gym.error.ClosedEnvironmentError):
    vec.step(np.zeros((4, NU)))
  sb3 = _sb3()
  sb3.reset()
  sb3.close()
  with pytest.raises(gym.error.ClosedEnvironmentError):
    sb3.step(np.zeros((4, NU)))


def test_step_before_reset_raises_everywhere():
  with pytest.raises(gym.error.ResetNeeded):
    _single().step(np.zeros(NU))
  with pytest.raises(gym.error.ResetNeeded):
    _vector().step(np.zeros((4, NU)))
  with pytest.raises(gym.error.ResetNeeded):
    _sb3().step(np.zeros((4, NU)))


NAN_EDITS = [
    ("body_mass", lambda m: m.body_mass.__setitem__(1, np.nan)),
    ("gravity", lambda m: m.opt.gravity.__setitem__(2, np.nan)),
    ("gear", lambda m: m.actuator_gear.__setitem__((0, 0), np.inf)),
    ("timestep", lambda m: setattr(m.opt, "timestep", np.nan)),
]


@pytest.mark.parametrize("name,edit", NAN_EDITS, ids=[n for n, _ in NAN_EDITS])
def test_a_nan_model_never_reaches_the_agent(name, edit):
  """A model edited to NaN from Python: every step's observation and reward finite, the world truncated and
  the reason in info, in all three front ends."""
  del name
  single = _single()
  single.reset(seed=0)
  edit(single.model)
  for _ in range(3):
    obs, reward, _, truncated, info = single.step(np.full(NU, 0.5))
    assert _finite(obs, reward)
    assert truncated and (info.get("nonfinite") or info.get("divergence"))
  vec = _vector(2)
  vec.reset(seed=0)
  edit(vec.unwrapped.model)
  for _ in range(3):
    obs, reward, _, truncated, info = vec.step(np.full((2, NU), 0.5))
    assert _finite(obs, reward)
  sb3 = _sb3(2)
  sb3.reset()
  edit(sb3.model)
  for _ in range(3):
    obs, reward, done, infos = sb3.step(np.full((2, NU), 0.5))
    assert _finite(obs, reward)
    assert done.all() and all(i.get("nonfinite") or i.get("divergence") for i in infos)
