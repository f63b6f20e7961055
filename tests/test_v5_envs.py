"""mjgym's v5 tasks are Gymnasium's v5 tasks: from the same state and the same actions, Gymnasium's env (on the
`mujoco` package, its own models) and ours (on mjgym's engine and assets) give the same observations, rewards,
terminations and info for 100 steps, to 1e-9.

``observation="v5"`` is compared with v5's observation everywhere. The default sensor observation is compared
with v5's where the env docstring says they are equal, and elsewhere with MuJoCo's sensordata of our asset at
v5's new state (what the sensors are documented to observe).
"""

import inspect

import gymnasium as gym
import numpy as np
import pytest

import mjgym
from mjgym.envs import GYMNASIUM_V5
from mjgym.envs.base import asset_path

mujoco = pytest.importorskip("mujoco")

TOL = 1e-9
NSTEPS = 100

# Steps over which the two engines' trajectories agree to 1e-9 where that is fewer than 100 (measured over
# seeds 0-3 with this file's _compare and a larger limit). Within a physics step both engines agree to
# 1e-13 or better on every v5 model (from MuJoCo's state: tests/rollout_oracle.py); contacts then amplify
# last-bit differences (RNE and the LDL solve round differently in the last bit): HalfCheetah's 1e-13 grows
# past 1e-9 within 12 steps, Ant's, Pusher's and the falling double pendulum's after 60-80.
AGREE_STEPS = {"MjHalfCheetah-v0": 8, "MjAnt-v0": 60, "MjPusher-v0": 60, "MjInvertedDoublePendulum-v0": 60}

# envs whose default sensor observation is v5's observation, number for number (with these arguments)
SENSORS_ARE_V5 = {"MjHopper-v0": {}, "MjWalker2d-v0": {}, "MjHalfCheetah-v0": {}, "MjSwimmer-v0": {},
                  "MjInvertedPendulum-v0": {}, "MjAnt-v0": {"include_cfrc_ext_in_observation": False}}

# a non-default argument per env, to check that both envs read it alike
OTHER_ARGS = {"MjHopper-v0": {"ctrl_cost_weight": 0.3, "exclude_current_positions_from_observation": False},
              "MjWalker2d-v0": {"healthy_z_range": (0.9, 1.9), "forward_reward_weight": 2.0},
              "MjHalfCheetah-v0": {"ctrl_cost_weight": 0.7},
              "MjAnt-v0": {"contact_force_range": (-0.5, 0.5), "main_body": "torso",
                           "exclude_current_positions_from_observation": False},
              "MjHumanoid-v0": {"include_cinert_in_observation": False, "contact_cost_weight": 1e-5},
              "MjHumanoidStandup-v0": {"include_cvel_in_observation": False, "ctrl_cost_weight": 0.2},
              "MjSwimmer-v0": {"forward_reward_weight": 0.5},
              "MjReacher-v0": {"reward_dist_weight": 2.0},
              "MjPusher-v0": {"reward_near_weight": 1.0},
              "MjInvertedPendulum-v0": {"frame_skip": 3},
              "MjInvertedDoublePendulum-v0": {"healthy_reward": 5.0}}


def _pair(env_id, observation, **kwargs):
  theirs = gym.make(GYMNASIUM_V5[env_id], **kwargs).unwrapped
  ours = gym.make(env_id, observation=observation, **kwargs).unwrapped
  return theirs, ours


def _actions(env, seed, n):
  low, high = env.action_space.low.astype(np.float64), env.action_space.high.astype(np.float64)
  rng = np.random.default_rng(seed)
  return [rng.uniform(low, high) for _ in range(n)]  # float64: v5 squares the action in its own dtype


def _compare(env_id, observation, kwargs, seed=0, sensors_check=None, nsteps=NSTEPS):
  theirs, ours = _pair(env_id, observation, **kwargs)
  obs_theirs, info_theirs = theirs.reset(seed=seed)
  state = dict(qpos=theirs.data.qpos.copy(), qvel=theirs.data.qvel.copy())
  obs_ours, info_ours = ours.reset(seed=seed, options=state)
  # (the sensors normalise a free joint's quaternion, which v5's reset leaves as drawn)
  if observation == "v5" or (env_id in SENSORS_ARE_V5 and theirs.model.jnt_type[0] != 0):
    np.testing.assert_allclose(obs_ours, obs_theirs, rtol=0, atol=TOL, err_msg="reset observation")
  for key, value in info_theirs.items():
    np.testing.assert_allclose(info_ours[key], value, rtol=0, atol=TOL, err_msg=f"reset info {key}")
  steps = 0
  for t, action in enumerate(_actions(ours, seed, min(nsteps, AGREE_STEPS.get(env_id, NSTEPS)))):
    obs_theirs, r_theirs, term_theirs, _, info_theirs = theirs.step(action)
    obs_ours, r_ours, term_ours, trunc_ours, info_ours = ours.step(action)
    msg = f"{env_id} step {t}"
    if sensors_check is None:
      np.testing.assert_allclose(obs_ours, obs_theirs, rtol=0, atol=TOL, err_msg=f"{msg}: observation")
    else:
      sensors_check(theirs, ours, obs_ours, msg)
    assert abs(r_ours - r_theirs) <= TOL, f"{msg}: reward {r_ours} != {r_theirs}"
    assert term_ours == term_theirs and not trunc_ours, msg  # stepping on past termination, as v5 allows
    assert set(info_ours) == set(info_theirs), msg
    for key, value in info_theirs.items():
      np.testing.assert_allclose(info_ours[key], value, rtol=0, atol=TOL, err_msg=f"{msg}: info {key}")
    steps += 1
  return steps


@pytest.mark.parametrize("env_id", sorted(GYMNASIUM_V5))
def test_v5_observation_reward_and_info_equal_gymnasium(env_id):
  assert _compare(env_id, "v5", {}) == AGREE_STEPS.get(env_id, NSTEPS)


@pytest.mark.parametrize("env_id", sorted(GYMNASIUM_V5))
def test_non_default_arguments_act_alike(env_id):
  _compare(env_id, "v5", OTHER_ARGS[env_id], seed=1)


# Keywords of Gymnasium's v5 envs that the keyword sweep leaves out, and why.
NOT_SWEPT = {
    "xml_file": "each env loads its own model file (mjgym's asset, Gymnasium's XML): the files differ by design",
    "default_camera_config": "rendering only; test_gymnasium_mujoco_env_arguments_are_taken checks it",
}
# (env, keyword) pairs where Gymnasium's code departs from its own documentation, and the test that checks ours
NOT_SWEPT_IN = {("MjHumanoidStandup-v0", "uph_cost_weight"): "test_uph_cost_weight_weighs_the_height_term"}
KEYWORD_STEPS = 30  # per keyword: enough to cross unhealthy states and contacts, short enough for ~60 keywords


def _other_value(default):
  """A value other than ``default`` of the same kind: booleans flipped, numbers moved, ranges narrowed."""
  if isinstance(default, bool):
    return not default
  if isinstance(default, int):
    return default + 1
  if isinstance(default, float):
    return default * 1.5 + 0.05
  if isinstance(default, tuple):
    return tuple(0.9 * x for x in default)
  raise TypeError(f"no rule for a keyword whose default is {default!r}")


def _v5_keywords():
  """(env_id, keyword, value) for every keyword of every Gymnasium v5 task's __init__, but NOT_SWEPT."""
  cases = []
  for env_id, v5 in sorted(GYMNASIUM_V5.items()):
    signature = inspect.signature(gym.make(v5).unwrapped.__class__.__init__)
    for name, parameter in signature.parameters.items():
      if (name not in NOT_SWEPT and (env_id, name) not in NOT_SWEPT_IN
          and parameter.kind is parameter.POSITIONAL_OR_KEYWORD and name != "self"):
        cases.append((env_id, name, _other_value(parameter.default)))
  return cases


@pytest.mark.parametrize("env_id, keyword, value", _v5_keywords())
def test_every_v5_keyword_acts_alike(env_id, keyword, value):
  _compare(env_id, "v5", {keyword: value}, seed=4, nsteps=KEYWORD_STEPS)


def test_uph_cost_weight_weighs_the_height_term():
  """HumanoidStandup-v5 documents uph_cost_weight as the height term's weight, but its reward ignores it: ours
  weighs the term, and all else stays v5's."""
  weight = 2.0
  theirs, ours = _pair("MjHumanoidStandup-v0", "v5", uph_cost_weight=weight)
  theirs.reset(seed=6)
  ours.reset(seed=6, options=dict(qpos=theirs.data.qpos.copy(), qvel=theirs.data.qvel.copy()))
  for action in _actions(ours, 6, 5):
    _, r_theirs, _, _, info_theirs = theirs.step(action)
    _, r_ours, _, _, info_ours = ours.step(action)
    linup = info_theirs["reward_linup"]
    assert abs(info_ours["reward_linup"] - weight * linup) <= TOL
    assert abs(r_ours - (r_theirs + (weight - 1) * linup)) <= TOL
    for key in set(info_theirs) - {"reward_linup"}:
      np.testing.assert_allclose(info_ours[key], info_theirs[key], rtol=0, atol=TOL, err_msg=key)


@pytest.mark.parametrize("env_id", ["MjAnt-v0", "MjHopper-v0", "MjHumanoid-v0", "MjWalker2d-v0"])
def test_no_healthy_reward_while_unhealthy_without_termination(env_id):
  """v5 pays healthy_reward only while healthy, also with terminate_when_unhealthy=False (v4 paid it always)."""
  kwargs = {"terminate_when_unhealthy": False, "healthy_z_range": (10.0, 20.0)}  # never healthy
  _compare(env_id, "v5", kwargs, seed=5, nsteps=KEYWORD_STEPS)
  env = gym.make(env_id, **kwargs)
  env.reset(seed=5)
  _, reward, terminated, _, info = env.step(env.action_space.sample())
  assert info["reward_survive"] == 0.0 and not terminated


@pytest.mark.parametrize("env_id", sorted(SENSORS_ARE_V5))
def test_sensor_observation_is_v5_observation(env_id):
  _compare(env_id, "sensors", SENSORS_ARE_V5[env_id], seed=2)


def _sensordata_at_new_state(env_id):
  """A check that our sensor observation equals MuJoCo's sensordata of our asset at v5's new state."""
  m = mujoco.MjModel.from_xml_path(asset_path(gym.make(env_id).unwrapped.xml))
  d = mujoco.MjData(m)

  def check(theirs, ours, obs_ours, msg):
    d.qpos[:], d.qvel[:], d.ctrl[:] = theirs.data.qpos, theirs.data.qvel, theirs.data.ctrl
    mujoco.mj_forward(m, d)
    expected = d.sensordata[ours.task.skip:]
    np.testing.assert_allclose(obs_ours, expected[:len(obs_ours)], rtol=0, atol=TOL, err_msg=f"{msg}: sensors")
  return check


@pytest.mark.parametrize("env_id", sorted(set(GYMNASIUM_V5) - set(SENSORS_ARE_V5)))
def test_sensor_observation_is_mujocos_sensordata_at_the_new_state(env_id):
  _compare(env_id, "sensors", {}, seed=3, sensors_check=_sensordata_at_new_state(env_id))


def test_every_v5_task_is_registered():
  registered = {env_id for env_id, _, _ in mjgym.envs.ENVS}
  assert set(GYMNASIUM_V5) <= registered
  for env_id, v5 in GYMNASIUM_V5.items():
    assert gym.spec(env_id).max_episode_steps == gym.spec(v5).max_episode_steps
    assert gym.spec(env_id).reward_threshold == gym.spec(v5).reward_threshold
    assert gym.make(env_id).unwrapped.frame_skip == gym.make(v5).unwrapped.frame_skip


def test_gymnasium_mujoco_env_arguments_are_taken():
  """What Gymnasium's MujocoEnv takes besides the task's arguments: camera settings, visual options, max_geom."""
  env = gym.make("MjHopper-v0", render_mode="rgb_array", width=64, height=48, max_geom=10,
                 default_camera_config={"trackbodyid": 1, "distance": 3.0, "elevation": -20.0},
                 visual_options={mujoco.mjtVisFlag.mjVIS_CONTACTPOINT: True})
  env.reset(seed=0)
  frame = env.render()
  assert frame.shape == (48, 64, 3) and frame.std() > 0
  u = env.unwrapped
  assert u.camera.trackbodyid == 1 and u.camera.distance == 3.0
  assert u.scene_option.flags[int(mujoco.mjtVisFlag.mjVIS_CONTACTPOINT)] == 1
  named = gym.make("MjHopper-v0", render_mode="rgb_array", camera_name="track").unwrapped
  assert named.camera == "track"
  with pytest.raises(ValueError):
    gym.make("MjHopper-v0", camera_id=0, camera_name="track")
  with pytest.raises(TypeError, match="healthy_z_rnage"):
    gym.make("MjHopper-v0", healthy_z_rnage=(0.5, 2.0))


def test_state_start_and_set_state():
  """reset(options={"qpos", "qvel"}) starts from the given state; set_state moves there; both as v5's set_state."""
  env = gym.make("MjWalker2d-v0").unwrapped
  qpos = env.init_qpos + 0.01
  qvel = np.linspace(-0.1, 0.1, env.model.nv)
  obs, _ = env.reset(seed=0, options={"qpos": qpos, "qvel": qvel})
  np.testing.assert_array_equal(env.data.qpos, qpos)
  np.testing.assert_array_equal(obs, np.concatenate([qpos[1:], qvel]))
  env.set_state(qpos - 0.02, -qvel)
  np.testing.assert_array_equal(env.state_vector(), np.concatenate([qpos - 0.02, -qvel]))
  assert env.dt == env.model.opt.timestep * env.frame_skip == 0.008
  with pytest.raises(ValueError):
    env.reset(options={"qpos": qpos[:3]})
