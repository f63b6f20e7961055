"""The suite's envs in mjgym's scaffold: spaces and layouts as dm_control's, seeding, vector envs bitwise equal
to the single env, resets distributed as dm_control's, documented defaults equal to the parameters."""

import ast
import inspect
import pathlib
import re

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from gymnasium.vector import AutoresetMode
from gymnasium.vector import SyncVectorEnv

import dmc_oracle
import mjgym
from test_vector import assert_same

IDS = [env_id for env_id, _, _, _ in mjgym.envs.DMC_ENVS]
CLASSES = sorted({entry for _, entry, _, _ in mjgym.envs.DMC_ENVS})


@pytest.mark.parametrize("env_id", IDS)
def test_spaces_and_layout_are_dm_controls(env_id):
  domain, task = mjgym.envs.DMC_TASKS[env_id]
  theirs = dmc_oracle.load(domain, task, 0)
  spec = theirs.observation_spec()
  flat = gym.make(env_id)
  as_dict = gym.make(env_id, observation="dict")
  assert list(as_dict.observation_space.spaces) == list(spec)
  for key, space in as_dict.observation_space.spaces.items():
    assert space.shape == spec[key].shape, key
  assert flat.observation_space.shape == (sum(int(np.prod(s.shape)) for s in spec.values()),)
  action = theirs.action_spec()
  np.testing.assert_array_equal(flat.action_space.low, action.minimum.astype(np.float32))
  np.testing.assert_array_equal(flat.action_space.high, action.maximum.astype(np.float32))
  assert flat.unwrapped.dt == pytest.approx(theirs.control_timestep(), rel=1e-12)
  assert flat.spec.max_episode_steps == round(theirs._step_limit)  # pylint: disable=protected-access
  obs, _ = flat.reset(seed=5)
  parts, _ = as_dict.reset(seed=5)
  np.testing.assert_array_equal(obs, np.concatenate([np.reshape(v, -1) for v in parts.values()]))


@pytest.mark.parametrize("env_id", ["MjDMC/cartpole-swingup-v0", "MjDMC/cheetah-run-v0", "MjDMC/walker-walk-v0"])
def test_gymnasium_env_checker(env_id):
  check_env(gym.make(env_id).unwrapped, skip_render_check=True)
  check_env(gym.make(env_id, observation="dict").unwrapped, skip_render_check=True)


@pytest.mark.parametrize("env_id", ["MjDMC/cartpole-swingup-v0", "MjDMC/cheetah-run-v0"])
def test_same_seed_same_episode(env_id):
  env = gym.make(env_id)
  actions = np.random.default_rng(0).uniform(-1, 1, (30,) + env.action_space.shape)

  def episode(seed):
    out = [env.reset(seed=seed)[0]]
    out += [np.append(env.step(a)[0], env.step(a)[1]) for a in actions]
    return np.concatenate(out)

  first = episode(7)
  assert np.array_equal(first, episode(7))
  assert not np.array_equal(first, episode(8))


@pytest.mark.parametrize("env_id, observation, mode", [
    ("MjDMC/cartpole-balance_sparse-v0", "flat", AutoresetMode.NEXT_STEP),
    ("MjDMC/cheetah-run-v0", "dict", AutoresetMode.SAME_STEP),
    ("MjDMC/walker-run-v0", "flat", AutoresetMode.DISABLED),
    ("MjDMC/hopper-hop-v0", "dict", AutoresetMode.NEXT_STEP),
    ("MjDMC/ball_in_cup-catch-v0", "flat", AutoresetMode.SAME_STEP),
    ("MjDMC/reacher-easy-v0", "flat", AutoresetMode.NEXT_STEP),
    ("MjDMC/finger-turn_easy-v0", "dict", AutoresetMode.DISABLED),
    ("MjDMC/manipulator-bring_ball-v0", "flat", AutoresetMode.NEXT_STEP),
])
def test_vector_env_equals_single_envs_bitwise(env_id, observation, mode):
  """World i of the batched vector env equals gym.make(env_id) seeded with seed + i, resets included."""
  _vector_equals_singles(env_id, observation, mode, worlds=3, limit=8, steps=20)


@pytest.mark.parametrize("env_id, observation, mode", [
    ("MjDMC/humanoid-walk-v0", "dict", AutoresetMode.NEXT_STEP),
    ("MjDMC/fish-swim-v0", "flat", AutoresetMode.SAME_STEP),
    ("MjDMC/swimmer-swimmer6-v0", "dict", AutoresetMode.DISABLED),
    ("MjDMC/acrobot-swingup_sparse-v0", "flat", AutoresetMode.NEXT_STEP),
    ("MjDMC/pendulum-swingup-v0", "dict", AutoresetMode.SAME_STEP),
    ("MjDMC/point_mass-easy-v0", "flat", AutoresetMode.DISABLED),
])
def test_other_domains_vector_env_equals_single_envs_bitwise(env_id, observation, mode):
  """The remaining domains, cheaply: two worlds through one reset each."""
  _vector_equals_singles(env_id, observation, mode, worlds=2, limit=3, steps=5)


def _vector_equals_singles(env_id, observation, mode, worlds, limit, steps):
  kwargs = {"observation": observation, "max_episode_steps": limit}
  ours = gym.make_vec(env_id, num_envs=worlds, autoreset_mode=mode, **kwargs)
  ref = SyncVectorEnv([lambda: gym.make(env_id, **kwargs) for _ in range(worlds)], autoreset_mode=mode)
  assert_same(ours.reset(seed=11), ref.reset(seed=11), "reset")
  rng = np.random.default_rng(0)
  for t in range(steps):
    actions = rng.uniform(-1, 1, ours.action_space.shape).astype(np.float32)
    out = ours.step(actions)
    assert_same(out, ref.step(actions), f"step {t}")
    if mode == AutoresetMode.DISABLED and (out[2] | out[3]).any():
      mask = out[2] | out[3]
      assert_same(ours.reset(options={"reset_mask": mask}), ref.reset(options={"reset_mask": mask}), f"reset {t}")


def _ks(a, b):
  """Two-sample Kolmogorov-Smirnov statistic."""
  grid = np.sort(np.concatenate([a, b]))
  return np.max(np.abs(np.searchsorted(np.sort(a), grid, "right") / len(a)
                       - np.searchsorted(np.sort(b), grid, "right") / len(b)))


@pytest.mark.parametrize("env_id", ["MjDMC/cartpole-balance-v0", "MjDMC/cartpole-three_poles-v0",
                                    "MjDMC/cheetah-run-v0", "MjDMC/walker-stand-v0", "MjDMC/hopper-stand-v0",
                                    "MjDMC/pendulum-swingup-v0", "MjDMC/point_mass-easy-v0",
                                    "MjDMC/reacher-hard-v0", "MjDMC/ball_in_cup-catch-v0",
                                    "MjDMC/finger-turn_hard-v0", "MjDMC/acrobot-swingup-v0",
                                    "MjDMC/humanoid-stand-v0", "MjDMC/fish-swim-v0",
                                    "MjDMC/swimmer-swimmer6-v0", "MjDMC/manipulator-bring_ball-v0"])
def test_reset_states_are_distributed_as_dm_controls(env_id):
  """qpos, qvel and the observation after reset (targets too), 150 episodes of each: every coordinate's
  two-sample KS statistic below 0.25 (its 0.999 quantile for equal distributions is 0.225); coordinates
  dm_control leaves constant are the same constant."""
  n = 150
  domain, task = mjgym.envs.DMC_TASKS[env_id]
  theirs = dmc_oracle.load(domain, task, 0)
  env = gym.make(env_id).unwrapped
  ours, ref = [], []
  for k in range(n):
    ts = theirs.reset()
    ref.append(np.concatenate([theirs.physics.data.qpos, theirs.physics.data.qvel, dmc_oracle.flat(ts.observation)]))
    obs, _ = env.reset(seed=k)
    ours.append(np.concatenate([env.state_vector(), obs]))
  ours, ref = np.array(ours), np.array(ref)
  for i in range(ours.shape[1]):
    if np.ptp(ref[:, i]) == 0:
      assert np.all(ours[:, i] == ref[0, i]), f"coordinate {i}: dm_control's is constant"
      continue
    assert _ks(ours[:, i], ref[:, i]) < 0.25, f"coordinate {i}"


def _documented_defaults(cls):
  """{argument: value} from the class docstring's Arguments table (rows with one argument and a literal)."""
  table = cls.__doc__.split("## Arguments")[1].split("##")[0]
  out = {}
  for name, default in re.findall(r"^\s*\| (\w+) \| ([^|]+) \|", table, re.M):
    if name == "Argument":
      continue
    default = default.strip()
    try:
      out[name] = ast.literal_eval(default)
    except (ValueError, SyntaxError):
      out[name] = default
  return out


@pytest.mark.parametrize("entry", CLASSES)
def test_documented_defaults_are_the_parameters(entry):
  cls = gym.envs.registration.load_env_creator(entry)
  documented = _documented_defaults(cls)
  signature = inspect.signature(cls).parameters
  assert set(cls.task_class.Params._fields) <= set(documented)
  for name, value in documented.items():
    if name == "frame_skip":
      assert value == cls.default_frame_skip
    elif name == "camera":
      assert value == cls.default_camera
    elif name == "obs_dtype":
      assert np.dtype(value) == np.dtype(signature[name].default)
    else:
      assert value == signature[name].default, name


@pytest.mark.parametrize("env_id", IDS)
def test_reward_terms_are_in_info(env_id):
  env = gym.make(env_id)
  env.reset(seed=0)
  _, reward, _, _, info = env.step(env.action_space.sample())
  terms = [k for k in info if k.startswith("reward_")]
  assert terms and all(0.0 <= info[k] <= 1.0 for k in terms)
  assert 0.0 <= reward <= 1.0


class _FixedNoise:
  """Noise whose uniform draws are given numbers in [0, 1), scaled to the range asked for."""

  def __init__(self, unit):
    self.unit = np.asarray(unit, np.float64)

  def uniform(self, low, high, n):
    assert n == self.unit.size
    return low + (high - low) * self.unit.reshape(1, n)


def test_cheetah_settles_its_pose_as_dm_control():
  """dm_control's cheetah reset: mj_resetData and forward at qpos0, the limited joints set, 200 steps (the first
  mj_step2 from qpos0's forward dynamics), the clock set to 0, forward. MuJoCo runs that sequence from the same
  joint angles; mjgym's reset of a world must reach its state within 1e-9."""
  import mujoco  # pylint: disable=import-outside-toplevel
  env = gym.make("MjDMC/cheetah-run-v0").unwrapped
  m = mujoco.MjModel.from_xml_path(env.fullpath)
  d = mujoco.MjData(m)
  unit = np.random.default_rng(3).uniform(size=int(m.jnt_limited.sum()))
  limited = np.flatnonzero(m.jnt_limited)
  low, high = m.jnt_range[limited].T
  mujoco.mj_resetData(m, d)
  mujoco.mj_forward(m, d)
  d.qpos[m.jnt_qposadr[limited]] = low + (high - low) * unit
  mujoco.mj_step2(m, d)
  mujoco.mj_step(m, d, 199)
  mujoco.mj_step1(m, d)
  b = env._batch  # pylint: disable=protected-access
  b.reset()
  env.task.reset(b, np.array([0]), _FixedNoise(unit), env._carry)  # pylint: disable=protected-access
  assert b.time[0] == 0.0
  np.testing.assert_allclose(b.qpos[0], d.qpos, rtol=0, atol=1e-9)
  np.testing.assert_allclose(b.qvel[0], d.qvel, rtol=0, atol=1e-9)
  plain = mujoco.MjData(m)  # 200 ordinary steps from the pose end elsewhere: the first step's origin matters
  plain.qpos[m.jnt_qposadr[limited]] = low + (high - low) * unit
  mujoco.mj_step(m, plain, 200)
  assert np.abs(plain.qpos - d.qpos).max() > 1e-6


def test_docs_observation_table_is_current():
  """docs/dmc.md's table is what ``python -m mjgym.envs.dmc`` prints for the registered tasks."""
  from mjgym.envs.dmc import observation_table  # pylint: disable=import-outside-toplevel
  doc = (pathlib.Path(__file__).resolve().parent.parent / "docs" / "dmc.md").read_text()
  current = doc.split("<!-- observation table -->\n")[1].split("<!-- end of observation table -->")[0]
  assert current == observation_table({env_id: gym.make(env_id) for env_id in IDS}), \
      "docs/dmc.md: regenerate its table with python -m mjgym.envs.dmc"
