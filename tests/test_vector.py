"""Vector envs on batched Data: world i equals the single env bitwise, Gymnasium's autoreset semantics."""

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import data_equivalence
from gymnasium.vector import AutoresetMode
from gymnasium.vector import SyncVectorEnv

import mjgym  # noqa: F401  (registers the environments)
from mjgym import physics
from mjgym.envs import vector
from mjgym.physics import batch as physics_batch

ALL_IDS = ("MjHopper-v0", "MjCartpole-v0", "MjCartpoleSwingup-v0", "MjArmReach-v0", "MjHumanoid-v0")


def _loads(env_id):
  """Skips the test when the env's model does not load yet (e.g. features landing in parallel)."""
  try:
    gym.make(env_id).close()
  except physics.MJCFError as e:  # pylint: disable=no-member
    pytest.skip(f"{env_id} does not load yet: {e}")


def assert_same(a, b, where=""):
  """Exact equality of step/reset outputs, infos included (nested dicts, object arrays of observations)."""
  if isinstance(a, dict):
    assert isinstance(b, dict) and set(a) == set(b), f"{where}: keys {sorted(a)} != {sorted(b)}"
    for k in a:
      assert_same(a[k], b[k], f"{where}[{k}]")
    return
  if isinstance(a, tuple):
    assert isinstance(b, tuple) and len(a) == len(b), where
    for i, (x, y) in enumerate(zip(a, b)):
      assert_same(x, y, f"{where}[{i}]")
    return
  a, b = np.asarray(a), np.asarray(b)
  assert a.shape == b.shape, f"{where}: shape {a.shape} != {b.shape}"
  if a.dtype == object or b.dtype == object:
    for i, (x, y) in enumerate(zip(a, b)):
      if x is None or y is None:
        assert x is None and y is None, f"{where}[{i}]: {x!r} != {y!r}"
      else:
        assert_same(x, y, f"{where}[{i}]")
    return
  assert np.array_equal(a, b), f"{where}: {a} != {b}"
  assert a.dtype == b.dtype, f"{where}: dtype {a.dtype} != {b.dtype}"


def _rollout_against_sync(env_id, mode, num_envs=4, steps=60, max_episode_steps=25, seed=123, action_scale=1.0):
  """Steps our vector env and SyncVectorEnv of single envs side by side with actions uniform in
  [-action_scale, action_scale]; returns the (terminated, truncated) counts seen."""
  ours = gym.make_vec(env_id, num_envs=num_envs, max_episode_steps=max_episode_steps, autoreset_mode=mode)
  ref = SyncVectorEnv([lambda: gym.make(env_id, max_episode_steps=max_episode_steps) for _ in range(num_envs)],
                      autoreset_mode=mode)
  rng = np.random.default_rng(0)
  out_a, out_b = ours.reset(seed=seed), ref.reset(seed=seed)
  assert_same(out_a, out_b, "reset")
  ends = np.zeros(2, int)
  for t in range(steps):
    actions = rng.uniform(-action_scale, action_scale, ours.action_space.shape).astype(np.float32)
    out_a, out_b = ours.step(actions), ref.step(actions)
    assert_same(out_a, out_b, f"step {t}")
    _, _, terminated, truncated, _ = out_a
    ends += terminated.sum(), truncated.sum()
    if mode == AutoresetMode.DISABLED and (terminated | truncated).any():
      mask = terminated | truncated
      assert_same(ours.reset(options={"reset_mask": mask}), ref.reset(options={"reset_mask": mask}), f"reset {t}")
  ours.close()
  ref.close()
  return ends


@pytest.mark.parametrize("mode", list(AutoresetMode), ids=lambda m: m.name)
def test_hopper_equals_sync_vector_env_of_single_envs(mode):
  """Bitwise: observations, rewards, flags and infos (final_obs/final_info too) over episodes that end by
  termination (falls under random actions) and by truncation (25 steps)."""
  terminated, truncated = _rollout_against_sync("MjHopper-v0", mode)
  assert terminated > 0 and truncated > 0


@pytest.mark.parametrize("mode", list(AutoresetMode), ids=lambda m: m.name)
def test_humanoid_equals_sync_vector_env_of_single_envs(mode):
  """The same for MjHumanoid (free joint, contacts, cfrc_ext and the centre of mass in the reward): episodes
  end by falls under random actions over the action space and by truncation (20 steps)."""
  _loads("MjHumanoid-v0")
  terminated, truncated = _rollout_against_sync("MjHumanoid-v0", mode, steps=80, max_episode_steps=20,
                                                action_scale=0.4)
  assert terminated > 0 and truncated > 0


def _arrays(tree):
  """The numpy arrays inside a step/reset output (dicts, tuples, object arrays of observations)."""
  if isinstance(tree, dict):
    return [a for v in tree.values() for a in _arrays(v)]
  if isinstance(tree, (tuple, list)):
    return [a for v in tree for a in _arrays(v)]
  if isinstance(tree, np.ndarray):
    if tree.dtype == object:
      return [tree] + [a for v in tree if v is not None for a in _arrays(v)]
    return [tree]
  return []


@pytest.mark.parametrize("mode", list(AutoresetMode), ids=lambda m: m.name)
def test_step_results_are_fresh_arrays_that_stay_valid(mode):
  """Every array a step returns belongs to that step alone: no two share memory, none views the batch, and
  later steps and autoresets leave them unchanged."""
  envs = gym.make_vec("MjHopper-v0", num_envs=8, max_episode_steps=25, autoreset_mode=mode)
  envs.reset(seed=0)
  rng = np.random.default_rng(0)
  kept = []
  for _ in range(60):
    out = envs.step(rng.uniform(-1, 1, (8, 3)).astype(np.float32))
    arrays = _arrays(out)
    for i, a in enumerate(arrays):
      assert not any(np.shares_memory(a, v) for v in envs.batch._fields.values())  # pylint: disable=protected-access
      assert not any(np.shares_memory(a, b) for b in arrays[i + 1:])
    kept.append((out, [a.copy() for a in arrays]))
    ended = out[2] | out[3]
    if mode == AutoresetMode.DISABLED and ended.any():
      envs.reset(options={"reset_mask": ended})
  assert any(out[2].any() for out, _ in kept) and any(out[3].any() for out, _ in kept)
  for out, copies in kept:
    for a, c in zip(_arrays(out), copies):
      assert_same(a, c)


@pytest.mark.parametrize("env_id", ALL_IDS[1:])
def test_every_env_equals_sync_vector_env(env_id):
  _loads(env_id)
  _rollout_against_sync(env_id, AutoresetMode.NEXT_STEP, num_envs=3, steps=30, max_episode_steps=12)


def test_make_vec_builds_the_native_vector_env():
  envs = gym.make_vec("MjHopper-v0", num_envs=8)
  assert isinstance(envs.unwrapped, vector.MjVectorEnv)
  assert envs.metadata["autoreset_mode"] == AutoresetMode.NEXT_STEP
  assert envs.max_episode_steps == 1000 and envs.num_envs == 8 and envs.batch.nworld == 8
  assert envs.observation_space.shape == (8, 11) and envs.action_space.shape == (8, 3)
  assert envs.single_observation_space == gym.make("MjHopper-v0").observation_space
  assert envs.spec.id == "MjHopper-v0"
  sync = gym.make_vec("MjHopper-v0", num_envs=2, vectorization_mode="sync")
  assert isinstance(sync, SyncVectorEnv)
  for mode in AutoresetMode:
    assert gym.make_vec("MjCartpole-v0", num_envs=2, autoreset_mode=mode.value).metadata["autoreset_mode"] == mode


def test_vector_env_checks():
  """Gymnasium's env-checker ideas on the vector env: spaces, seeded determinism, fresh output arrays."""
  envs = gym.make_vec("MjHopper-v0", num_envs=5)
  obs, info = envs.reset(seed=7)
  assert obs in envs.observation_space and isinstance(info, dict)
  obs2, info2 = envs.reset(seed=7)
  assert data_equivalence((obs, info), (obs2, info2), exact=True)
  actions = envs.action_space.sample()
  first = envs.step(actions)
  envs.reset(seed=7)
  second = envs.step(actions)
  assert data_equivalence(first, second, exact=True)
  obs_a = envs.step(actions)[0]
  obs_b = envs.step(actions)[0]
  assert not np.shares_memory(obs_a, obs_b) and not np.shares_memory(obs_b, envs.batch.sensordata)
  rewards, terminated, truncated = second[1:4]
  assert rewards.dtype == np.float64 and terminated.dtype == np.bool_ and truncated.dtype == np.bool_
  assert rewards.shape == terminated.shape == truncated.shape == (5,)
  with pytest.raises(gym.error.ResetNeeded):
    gym.make_vec("MjHopper-v0", num_envs=2).step(np.zeros((2, 3)))


def test_seeding_int_list_and_none():
  """int seed -> world i seeded seed + i; a list seeds each world; None entries continue their stream."""
  envs = gym.make_vec("MjCartpole-v0", num_envs=3)
  obs_int, _ = envs.reset(seed=10)
  obs_list, _ = envs.reset(seed=[10, 11, 12])
  assert np.array_equal(obs_int, obs_list)
  single = gym.make("MjCartpole-v0")
  assert np.array_equal(obs_int[1], single.reset(seed=11)[0])
  obs_mixed, _ = envs.reset(seed=[None, 11, None])
  assert np.array_equal(obs_mixed[1], obs_int[1])
  # worlds 0 and 2 started their second episode, like a single env reset without a seed
  single.reset(seed=10)
  assert np.array_equal(obs_mixed[0], single.reset()[0])
  assert not np.array_equal(obs_mixed[0], obs_int[0])
  with pytest.raises(ValueError):
    envs.reset(seed=[1, 2])


def test_reset_mask_resets_only_chosen_worlds():
  envs = gym.make_vec("MjHopper-v0", num_envs=4, autoreset_mode=AutoresetMode.DISABLED)
  envs.reset(seed=0)
  for _ in range(3):
    obs, *_ = envs.step(np.zeros((4, 3), np.float32))
  mask = np.array([False, True, False, True])
  obs2, info = envs.reset(options={"reset_mask": mask})
  assert np.array_equal(obs2[~mask], obs[~mask])
  single = gym.make("MjHopper-v0")
  single.reset(seed=1)
  assert np.array_equal(obs2[1], single.reset()[0])  # world 1's second episode
  assert np.array_equal(info["_x_position"], mask)
  for bad, error in ((mask.astype(int), TypeError), (np.zeros(4, bool), ValueError), (mask[:3], ValueError),
                     (list(mask), TypeError)):
    with pytest.raises(error):
      envs.reset(options={"reset_mask": bad})


def test_disabled_mode_refuses_to_step_ended_worlds():
  envs = gym.make_vec("MjCartpole-v0", num_envs=2, max_episode_steps=2, autoreset_mode=AutoresetMode.DISABLED)
  envs.reset(seed=0)
  envs.step(np.zeros((2, 1)))
  *_, truncated, _ = envs.step(np.zeros((2, 1)))
  assert truncated.all()
  with pytest.raises(gym.error.ResetNeeded):
    envs.step(np.zeros((2, 1)))


def test_divergence_truncates_the_world_like_the_single_env():
  """A world whose state blows up is reset by the engine; the step reports it (info["divergence"], truncated)
  exactly as the single env does, and the other worlds carry on."""
  envs = gym.make_vec("MjHopper-v0", num_envs=3)
  single = gym.make("MjHopper-v0")
  envs.reset(seed=4)
  single.reset(seed=5)
  action = np.zeros((3, 3), np.float32)
  envs.step(action)
  single.step(action[1])
  envs.batch.qvel[1] = 1e11
  single.unwrapped.data.qvel[:] = 1e11
  obs, reward, terminated, truncated, info = envs.step(action)
  single_obs, single_reward, single_terminated, single_truncated, single_info = single.step(action[1])
  assert single_truncated and single_info["divergence"]
  assert truncated.tolist() == [False, True, False]
  assert info["_divergence"].tolist() == [False, True, False] and info["divergence"][1]
  assert np.array_equal(obs[1], single_obs) and reward[1] == single_reward
  assert terminated[1] == single_terminated
  obs, reward, *_ = envs.step(action)  # NEXT_STEP: world 1 starts its next episode
  assert reward[1] == 0.0 and np.array_equal(obs[1], single.reset()[0])


def test_thread_chooser_follows_the_faster_count():
  """Fed step times, the chooser warms up each count, settles on the faster, probes the other every
  probe_every steps, and switches when the load changes which one is faster."""
  chooser = vector.ThreadChooser(2, probe_every=10)
  cost = {1: 2.0, 2: 1.0}  # two threads twice as fast: idle cores
  used = []
  for _ in range(60):
    threads = chooser.next()
    used.append(threads)
    chooser.record(threads, cost[threads])
  assert used[:4] == [1, 1, 2, 2]  # the first time of each count is a warm-up
  assert used[10:].count(1) == 5 and all(used[k] == 1 for k in range(19, 60, 10))  # probes only
  cost = {1: 2.0, 2: 5.0}  # another process now holds a core
  for _ in range(60):
    threads = chooser.next()
    used.append(threads)
    chooser.record(threads, cost[threads])
  assert used[-30:].count(2) == 3  # settled on one thread, still probing two
  assert vector.ThreadChooser(1).next() == 1


def test_num_threads_default_is_chosen_per_step_and_explicit_counts_are_fixed():
  envs = gym.make_vec("MjHopper-v0", num_envs=32)
  core = envs.unwrapped._core  # pylint: disable=protected-access
  assert core.thread_chooser is not None and core.num_threads == vector.default_num_threads(32)
  envs.reset(seed=0)
  for _ in range(5):
    envs.step(np.zeros((32, 3)))
  assert core.thread_chooser.calls == 5
  envs.unwrapped.num_threads = 1
  assert core.thread_chooser is None and core.num_threads == 1
  with pytest.raises(ValueError):
    envs.unwrapped.num_threads = physics_batch.numba.config.NUMBA_NUM_THREADS + 1


def test_a_step_with_a_few_worlds_resetting_keeps_its_threads():
  """With NEXT_STEP autoreset a step skips the worlds that reset: 15 of 16 worlds still step on 2 threads; an
  autoreset of a few worlds (one forward pass each) runs on one."""
  if physics_batch.numba.config.NUMBA_NUM_THREADS < 2:
    pytest.skip("needs 2 numba threads")
  envs = gym.make_vec("MjHopper-v0", num_envs=16, num_threads=2)
  core = envs.unwrapped._core  # pylint: disable=protected-access
  with core._threads(15) as threads:  # pylint: disable=protected-access
    assert threads == 2
  with core._threads(2 * vector.MIN_WORLDS_PER_THREAD - 1) as threads:  # pylint: disable=protected-access
    assert threads == 1
  with core._threads(15, per_thread=vector.MIN_RESET_WORLDS_PER_THREAD) as threads:  # pylint: disable=protected-access
    assert threads == 1
  assert vector.default_num_threads(8) == min(2, vector.default_num_threads(1024))


def test_num_threads_do_not_change_results():
  outs = []
  for threads in (1, 2, None):
    threads = None if threads is None else min(threads, physics_batch.numba.config.NUMBA_NUM_THREADS)
    envs = gym.make_vec("MjHopper-v0", num_envs=32, num_threads=threads)
    obs, _ = envs.reset(seed=3)
    rng = np.random.default_rng(1)
    for _ in range(10):
      obs, *_ = envs.step(rng.uniform(-1, 1, (32, 3)))
    outs.append(obs)
  assert np.array_equal(outs[0], outs[1]) and np.array_equal(outs[0], outs[2])
  assert vector.default_num_threads(1) == 1
  assert 1 <= vector.default_num_threads(1024) <= physics_batch.numba.config.NUMBA_NUM_THREADS


def test_render_returns_a_frame_per_world():
  if not hasattr(physics, "Renderer"):
    pytest.skip("mjgym's renderer is not available yet")
  envs = gym.make_vec("MjCartpole-v0", num_envs=3, render_mode="rgb_array", width=32, height=24)
  envs.reset(seed=0)
  frames = envs.render()
  assert len(frames) == 3 and frames[0].shape == (24, 32, 3) and frames[0].dtype == np.uint8
  single = gym.make("MjCartpole-v0", render_mode="rgb_array", width=32, height=24)
  single.reset(seed=2)
  assert np.array_equal(frames[2], single.render())
  chosen = envs.unwrapped.render(worlds=[2])
  assert len(chosen) == 1 and np.array_equal(chosen[0], frames[2])


# ------------------------------------------------------------------ domain randomization


def _cartpole_model():
  return physics.MjModel.from_xml_path(mjgym.envs.base.asset_path("cartpole.xml"))


def test_randomized_masses_follow_physics_and_other_fields_stay_shared():
  m = _cartpole_model()
  b = physics_batch.MjDataBatch(m, 2)
  fields = b.randomize(["body_mass", "opt_gravity"])
  cart = m.body("cart").id
  fields["body_mass"][1, cart] *= 3.0
  fields["opt_gravity"][1] = (0.0, 0.0, -3.0)
  assert m.body_mass[cart] == fields["body_mass"][0, cart]  # the model itself is untouched
  m.dof_damping[:] = 0.05  # an unrandomized field edited after randomize reaches every world
  b.ctrl[:] = 1.0
  b.step(50)
  # each world equals a single world stepped on a model carrying that world's values
  for w in range(2):
    mw = _cartpole_model()
    mw.body_mass[:] = fields["body_mass"][w]
    mw.opt.gravity = fields["opt_gravity"][w]
    mw.dof_damping[:] = 0.05
    d = physics.MjData(mw)
    d.ctrl[:] = 1.0
    physics.mj_step(mw, d, 50)
    assert np.array_equal(b.qpos[w], d.qpos) and np.array_equal(b.qvel[w], d.qvel), w
  # a heavier cart pushed by the same force gains less speed
  assert 0 < b.qvel[1, 0] < b.qvel[0, 0]


def test_randomized_vector_env_and_unrandomized_chunks():
  envs = gym.make_vec("MjCartpole-v0", num_envs=4)
  assert len(envs.batch._models) == envs.batch.nchunk  # pylint: disable=protected-access
  fields = envs.unwrapped.randomize(["geom_friction", "dof_damping", "actuator_gear"])
  assert set(fields) == {"geom_friction", "dof_damping", "actuator_gear"}
  assert len(envs.batch._models) == 4  # pylint: disable=protected-access
  fields["actuator_gear"][:, 0, 0] = [10.0, 10.0, 20.0, 0.0]
  envs.reset(seed=[5, 5, 5, 5])
  for _ in range(5):
    obs, *_ = envs.step(np.ones((4, 1)))
  assert np.array_equal(obs[0], obs[1])
  assert obs[2, 2] > obs[0, 2] > obs[3, 2]  # cart velocity grows with the gear
  with pytest.raises(ValueError):
    envs.unwrapped.randomize(["body_pos"])


# ------------------------------------------------------------------ task kernels against their formulas


def _hopper_terms(m, qpos0, before, after, action, dt):
  """MjHopper's documented reward terms, written out in numpy from the states before and after a step."""
  qpos, qvel = after[:2]
  x_velocity = (qpos[:, 0] - before[0][:, 0]) / dt
  healthy = ((0.7 < qpos[:, 1]) & (-0.2 < qpos[:, 2]) & (qpos[:, 2] < 0.2)
             & (np.abs(qpos[:, 2:]) < 100).all(axis=1) & (np.abs(qvel) < 100).all(axis=1))
  return {"x_position": qpos[:, 0], "z_distance_from_origin": qpos[:, 1] - qpos0[1], "x_velocity": x_velocity,
          "reward_forward": x_velocity, "reward_ctrl": -1e-3 * (action**2).sum(axis=1),
          "reward_survive": np.where(healthy, 1.0, 0.0)}, ~healthy


def _humanoid_terms(m, qpos0, before, after, action, dt):
  """MjHumanoid's documented reward terms: centre-of-mass velocity, survival, control and contact costs, read
  from Data as the step leaves it (observation="v5": no forward pass after the physics)."""
  com_before = np.average(before[2], axis=1, weights=m.body_mass)
  com = np.average(after[2], axis=1, weights=m.body_mass)
  velocity = (com - com_before) / dt
  qpos = after[0]
  healthy = (1.0 < qpos[:, 2]) & (qpos[:, 2] < 2.0)
  contact = np.minimum(5e-7 * (after[3]**2).sum(axis=(1, 2)), 10.0)
  return {"reward_forward": 1.25 * velocity[:, 0], "reward_survive": np.where(healthy, 5.0, 0.0),
          "reward_ctrl": -0.1 * (action**2).sum(axis=1), "reward_contact": -contact, "x_position": qpos[:, 0],
          "y_position": qpos[:, 1], "distance_from_origin": np.hypot(qpos[:, 0], qpos[:, 1]),
          "x_velocity": velocity[:, 0], "y_velocity": velocity[:, 1]}, ~healthy


@pytest.mark.parametrize("env_id,terms,scale,observation", [("MjHopper-v0", _hopper_terms, 1.0, "sensors"),
                                                            ("MjHumanoid-v0", _humanoid_terms, 0.4, "v5")])
def test_task_kernels_follow_the_documented_formulas(env_id, terms, scale, observation):
  """Rewards, every info term and terminations of all worlds against the env docstring's formulas evaluated
  in numpy on the batch's states before and after each step (until the first world falls)."""
  _loads(env_id)
  n = 16
  envs = gym.make_vec(env_id, num_envs=n, autoreset_mode=AutoresetMode.DISABLED, observation=observation)
  envs.reset(seed=0)
  b, m = envs.batch, envs.model
  qpos0 = m.qpos0.copy()
  rng = np.random.default_rng(2)
  state = lambda: (b.qpos.copy(), b.qvel.copy(), b.xipos.copy(), b.cfrc_ext.copy())  # noqa: E731
  for t in range(200):
    before = state()
    action = rng.uniform(-scale, scale, (n, m.nu)).astype(np.float32)
    _, reward, terminated, _, info = envs.step(action)
    expected, unhealthy = terms(m, qpos0, before, state(), action.astype(np.float64), envs.dt)
    for key, value in expected.items():
      np.testing.assert_allclose(info[key], value, rtol=1e-12, atol=1e-12, err_msg=f"step {t}: {key}")
    total = sum(v for k, v in expected.items() if k.startswith("reward_"))
    np.testing.assert_allclose(reward, total, rtol=1e-12, atol=1e-12)
    assert np.array_equal(terminated, unhealthy)
    if terminated.any():
      break
  assert terminated.any()
