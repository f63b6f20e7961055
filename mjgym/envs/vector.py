"""Vectorized mjgym environments: N worlds of one model in one MjDataBatch, stepped in one numba call.

``VectorCore`` holds the batched state and two primitives, reset-some-worlds and step-some-worlds, that replay
exactly what a single ``MjEnv`` does (same Task code, same per-world reset noise, same kernels), so world i
equals the single env seeded with ``seed + i`` bitwise. Two front ends sit on it: ``MjVectorEnv``, a
``gymnasium.vector.VectorEnv`` reached by ``gym.make_vec(id, num_envs)``, and ``mjgym.sb3.MjVecEnv`` for
stable-baselines3. Nothing in a step loops over worlds in Python: the physics is one parallel kernel call, and
rewards, terminations, truncations and infos come from two small kernels (the Task's and ``base.end_step``).

Every array a step returns (observations, rewards, flags, info entries) is freshly allocated: it stays valid
after later steps, as Gymnasium and SB3 users expect (allocating a few (W,) arrays costs well under a
microsecond each; reusing buffers would save nothing measurable and break code that keeps the results).
"""

import contextlib
import time

import gymnasium as gym
import numba
import numpy as np
from gymnasium.envs.registration import load_env_creator
from gymnasium.utils import seeding
from gymnasium.vector import AutoresetMode
from gymnasium.vector import VectorEnv
from gymnasium.vector.utils import batch_space

from mjgym import physics
from mjgym._cpus import usable_cpus
from mjgym.envs import DMC_ENVS
from mjgym.envs import ENVS
from mjgym.envs import base
from mjgym.envs import vector_entry_point
from mjgym.physics import batch as physics_batch

# Worlds a thread needs in an env step (frame_skip physics steps and a forward pass each) to pay for its wake-up
# and the barrier: 2 threads step 4 hopper worlds 1.3x as fast as one, 8 worlds 1.4x (measured: docs/vector.md).
MIN_WORLDS_PER_THREAD = 4
# The same for calls with one forward pass a world (autoresets): below this a second thread costs more than it
# saves, and on a loaded machine the caller may wait a whole time slice for it.
MIN_RESET_WORLDS_PER_THREAD = 8


def available_cpus():
  """CPUs this process may use: its affinity mask, capped by OMP_NUM_THREADS where set (as Ray sets it for each
  worker), at least 1."""
  return usable_cpus()


def default_num_threads(num_envs):
  """Threads for a batch of ``num_envs`` worlds: one per usable CPU, none idle for lack of worlds."""
  return int(max(1, min(numba.config.NUMBA_NUM_THREADS, available_cpus(), num_envs // MIN_WORLDS_PER_THREAD)))


def load_env_class(entry_point):
  """The single-env class (or factory) of an entry point like ``"mjgym.envs.hopper:MjHopperEnv"``."""
  return load_env_creator(entry_point) if isinstance(entry_point, str) else entry_point


class ThreadChooser:
  """Chooses between one thread and ``max_threads`` for the batched step from the times it measures.

  On idle cores a step on two threads runs up to twice as fast as on one; when other processes load the cores,
  it waits for every thread to be scheduled and often runs slower than one thread (docs/vector.md). The chooser
  keeps an exponential average of the seconds per world of each count, uses the faster one, and measures the
  other once every ``probe_every`` steps to follow changes of load. The first measurement of each count is a
  warm-up and is dropped. Results never depend on the choice.
  """

  def __init__(self, max_threads, probe_every=50, smoothing=0.3):
    self.options = (1, int(max_threads)) if max_threads > 1 else (1,)
    self.probe_every = probe_every
    self.smoothing = smoothing
    self.cost = [None] * len(self.options)  # seconds per world-step, averaged
    self.samples = [0] * len(self.options)
    self.best = len(self.options) - 1
    self.calls = 0

  def next(self):
    """Thread count for the next step."""
    self.calls += 1
    for i, cost in enumerate(self.cost):
      if cost is None:
        return self.options[i]
    if len(self.options) > 1 and self.calls % self.probe_every == 0:
      return self.options[1 - self.best]
    return self.options[self.best]

  def record(self, threads, seconds_per_world):
    """Adds the measured time of a step that ran on ``threads`` threads."""
    if threads not in self.options:
      return
    i = self.options.index(threads)
    self.samples[i] += 1
    if self.samples[i] == 1:
      return
    cost = self.cost[i]
    self.cost[i] = seconds_per_world if cost is None else cost + self.smoothing * (seconds_per_world - cost)
    if None not in self.cost:
      self.best = min(range(len(self.options)), key=self.cost.__getitem__)


class WorldBatch:
  """World ``w`` of an MjDataBatch as a batch of one world (fields ``(1, ...)`` viewing the same memory)."""

  def __init__(self, b, w):
    self._b, self._w = b, w
    self.model, self.nworld = b.model, 1

  def __getattr__(self, name):
    fields = self.__dict__["_b"]._fields  # pylint: disable=protected-access
    if name in fields:
      w = self.__dict__["_w"]
      return fields[name][w:w + 1]
    raise AttributeError(f"WorldBatch has no attribute '{name}'")

  def __getitem__(self, i):
    if i not in (0, -1):
      raise IndexError(i)
    return self._b[self._w]

  def __len__(self):
    return 1


class VectorCore:
  """Batched state of ``num_envs`` worlds and the reset/step primitives both vector front ends use.

  Args:
    env: a single ``MjEnv`` serving as template: its model, Task, frame_skip, spaces and render options.
    num_envs: number of worlds.
    max_episode_steps: truncation after this many steps of an episode (None: never).
    num_threads: threads of the batched physics calls; None: up to ``default_num_threads(num_envs)``, the count
      of each step chosen by a ``ThreadChooser`` from measured step times.
  """

  def __init__(self, env, num_envs, max_episode_steps=None, num_threads=None):
    if num_envs < 1:
      raise ValueError(f"num_envs must be >= 1, got {num_envs}")
    self.env = env
    self.model = env.model
    self.task = env.task
    self.num_envs = int(num_envs)
    self.frame_skip = env.frame_skip
    self.observation = env.observation
    self.obs_dtype = env.observation_space.dtype
    self.max_episode_steps = None if max_episode_steps is None else int(max_episode_steps)
    self.set_num_threads(num_threads)
    self.batch = physics_batch.MjDataBatch(self.model, self.num_envs)
    self.world_seed = np.zeros(self.num_envs, np.uint64)
    self.seeded = np.zeros(self.num_envs, np.bool_)
    self.episode = np.zeros(self.num_envs, np.uint64)
    self.elapsed = np.zeros(self.num_envs, np.int64)
    self.warnings_seen = np.zeros_like(self.batch.warning_number)
    self.carry = np.zeros((self.num_envs, self.task.ncarry))
    self.np_random = None
    self._all = np.ones(self.num_envs, np.bool_)
    self._renderer = None

  # ---------------------------------------------------------------- physics calls

  def set_num_threads(self, num_threads):
    """A fixed thread count for the batched physics, or None: chosen per step (see ``ThreadChooser``)."""
    n = default_num_threads(self.num_envs) if num_threads is None else int(num_threads)
    if not 1 <= n <= numba.config.NUMBA_NUM_THREADS:
      raise ValueError(f"num_threads must be in [1, {numba.config.NUMBA_NUM_THREADS}] (NUMBA_NUM_THREADS), "
                       f"got {n}")
    self.num_threads = n
    self.thread_chooser = ThreadChooser(n) if num_threads is None else None

  @contextlib.contextmanager
  def _threads(self, nworld, limit=None, per_thread=MIN_WORLDS_PER_THREAD):
    """Runs the batched physics calls of the block, over ``nworld`` worlds, on ``limit`` (default
    ``num_threads``) threads at most, each with ``per_thread`` worlds at least (one thread below
    ``2 * per_thread``): waking a second thread for fewer costs more than they take, and far more when another
    process holds its core. Yields the thread count. numba's count is per calling thread: it is set for the
    block and restored."""
    threads = max(1, min(self.num_threads if limit is None else limit, nworld // per_thread))
    previous = numba.get_num_threads()
    if previous == threads:
      yield threads
      return
    numba.set_num_threads(threads)
    try:
      yield threads
    finally:
      numba.set_num_threads(previous)

  def randomize(self, names):
    """Per-world model fields (domain randomization); see ``MjDataBatch.randomize``."""
    return self.batch.randomize(names)

  @property
  def world_model(self):
    return self.batch.world_model

  # ---------------------------------------------------------------- reset and step

  def _seeds(self, seeds):
    """(given (W,) bool, value (W,) uint64) of ``seeds``: None, an int (seed + i) or a list of int/None."""
    n = self.num_envs
    if seeds is None:
      return np.zeros(n, np.bool_), np.zeros(n, np.uint64)
    if isinstance(seeds, (int, np.integer)):
      return np.ones(n, np.bool_), np.arange(n, dtype=np.uint64) + base.seed_to_uint64(seeds)
    seeds = list(seeds)
    if len(seeds) != n:
      raise ValueError(f"a list of seeds must have num_envs={n} entries, got {len(seeds)}")
    given = np.array([s is not None for s in seeds], np.bool_)
    return given, np.array([base.seed_to_uint64(s) if s is not None else 0 for s in seeds], np.uint64)

  def reset(self, mask=None, seeds=None):
    """Resets the worlds where ``mask`` is true exactly as ``MjEnv.reset`` would; returns the reset info
    ({name: (W,) array}, meaningful where ``mask``).

    A world given a seed starts its episode counter at 0 with that seed; an unseeded world that has never
    been seeded draws its seed from ``np_random``; any other world starts its next episode.
    """
    mask = self._all if mask is None else mask
    worlds = np.flatnonzero(mask)
    if seeds is None and self.seeded[worlds].all():  # each world starts its next episode
      self.episode[worlds] += np.uint64(1)
    else:
      self._start_episodes(mask, seeds)
    b = self.batch
    with self._threads(len(worlds), per_thread=MIN_RESET_WORLDS_PER_THREAD):
      b.reset(mask)
      self.task.reset(b, worlds, base.Noise(base.episode_keys(self.world_seed[worlds], self.episode[worlds])),
                      self.carry)
      base.settle(b, self.task, self.observation, worlds, self.carry, mask)
    self.warnings_seen[worlds] = 0
    self.elapsed[worlds] = 0
    return self.task.reset_info(b)

  def _start_episodes(self, mask, seeds):
    """Seeds and episode numbers of the worlds of ``mask`` for their reset (see ``reset``)."""
    given, values = self._seeds(seeds)
    fresh = mask & given
    draw = mask & ~given & ~self.seeded
    cont = mask & ~given & self.seeded
    if draw.any():
      if self.np_random is None:
        self.np_random, _ = seeding.np_random()
      values = values.copy()
      values[draw] = self.np_random.integers(0, 2**63, size=int(draw.sum()), dtype=np.int64).astype(np.uint64)
      fresh = fresh | draw
    self.world_seed[fresh] = values[fresh]
    self.episode[fresh] = 0
    self.seeded |= fresh
    self.episode[cont] += np.uint64(1)

  def step(self, actions, mask=None):
    """One env step of the worlds where ``mask`` is true (all by default) with ``actions`` (W, nu).

    Returns (obs (W, n), reward (W,) float64, terminated (W,), truncated (W,), info {name: (W,)}, events), all
    fresh arrays; the entries of unstepped worlds are meaningless. ``events`` holds, among ``"divergence"`` (the
    engine reset the world), ``"bad_action"`` (a NaN, infinite or huge action, run as zero control: see
    ``base.checked_actions``) and ``"nonfinite"`` (the observation or reward was not finite and was zeroed), the
    (W,) masks of those that happened to a stepped world this step. Divergence and non-finite worlds are
    truncated.
    """
    mask = self._all if mask is None else mask
    b = self.batch
    actions, bad_action = base.checked_actions(actions, (self.num_envs, self.model.nu), "actions")
    b.ctrl[:] = actions
    nworld = self.num_envs if mask is self._all else int(np.count_nonzero(mask))
    chooser = self.thread_chooser
    with self._threads(nworld, None if chooser is None else chooser.next()) as threads:
      start = time.perf_counter()
      reward, terminated, info = base.advance(b, self.task, self.observation, self.frame_skip, actions,
                                              self.carry, mask)
      seconds = time.perf_counter() - start
    if chooser is not None and nworld:
      chooser.record(threads, seconds / nworld)
    # no copies for the Tasks of mjgym; other dtypes of a custom Task converted
    reward, terminated = np.asarray(reward, np.float64), np.asarray(terminated, np.bool_)
    obs = base.observe(b, self.task, self.observation)
    nonfinite = base.scrub(obs, reward, mask)
    diverged, truncated = base.end_step(b.warning_number, self.warnings_seen, base.DIVERGENCE, self.elapsed, mask,
                                        -1 if self.max_episode_steps is None else self.max_episode_steps)
    truncated |= nonfinite
    events = {}
    for key, flag in (("divergence", diverged), ("bad_action", bad_action & mask), ("nonfinite", nonfinite)):
      if flag.any():
        events[key] = flag
    return obs.astype(self.obs_dtype, copy=False), reward, terminated, truncated, info, events

  def observe(self):
    """Observations of every world, (W, n) in the env's observation dtype (a fresh array), rows that are not
    finite zeroed (``base.scrub``; a broken state is reported by the step that follows)."""
    obs = base.observe(self.batch, self.task, self.observation)
    base.scrub(obs, np.zeros(self.num_envs), self._all)
    return obs.astype(self.obs_dtype, copy=False)

  # ---------------------------------------------------------------- per-world views

  def world_env(self, w):
    """World ``w`` seen as a single env (for get_attr / env_method): the template env's attributes with its
    Data and batch replaced by world w's. Methods that start or advance episodes are not meaningful on it."""
    env = self.env.unwrapped
    view = object.__new__(type(env))
    view.__dict__.update(env.__dict__)
    view.__dict__.update(_batch=WorldBatch(self.batch, w), data=self.batch[w], _world_seed=self.world_seed[w],
                         _episode=int(self.episode[w]), _warnings_seen=self.warnings_seen[w:w + 1],
                         _carry=self.carry[w:w + 1])
    return view

  # ---------------------------------------------------------------- rendering

  def render(self, worlds=None):
    """Frames of all worlds, or of the world indices ``worlds``, in the template env's render mode."""
    env = self.env.unwrapped
    mode = env.render_mode
    if mode not in ("rgb_array", "depth_array"):
      raise ValueError(f"vector rendering needs render_mode 'rgb_array' or 'depth_array', got {mode!r}")
    if not hasattr(physics, "Renderer"):
      raise NotImplementedError("mjgym's renderer is not available yet (it arrives with the renderer issue)")
    if self._renderer is None:
      self._renderer = physics.Renderer(self.model, height=env.height, width=env.width)
      if mode == "depth_array":
        self._renderer.enable_depth_rendering()
    r = self._renderer
    if worlds is None and hasattr(r, "render_batch") and env.scene_option is None:
      return list(r.render_batch(self.batch, camera=env.camera))
    frames = []
    for w in range(self.num_envs) if worlds is None else worlds:
      r.update_scene(self.batch[w], camera=env.camera, scene_option=env.scene_option)
      frames.append(r.render())
    return frames

  def close(self):
    if self._renderer is not None:
      self._renderer.close()
      self._renderer = None
    self.env.close()


def _with_events(infos, events, mask=None):
  """``infos`` with each of ``events`` ({name: (W,) bool}, see ``VectorCore.step``) added as a masked key (its
  worlds set it to True), limited to ``mask`` when given."""
  for key, flag in events.items():
    flag = flag if mask is None else flag & mask
    if flag.any():
      infos = masked_info({key: flag}, flag, infos)
  return infos


def masked_info(info, mask, out=None):
  """Adds ``info`` ({name: (W, ...) array}) for the worlds where ``mask`` is true to the vector info ``out``,
  laid out as Gymnasium's ``VectorEnv._add_info`` does: ``out[name]`` zero where no world set it, and
  ``out["_" + name]`` the mask of worlds that did. Keys no world sets are left out.

  Where every world sets a key, ``out`` takes the array of ``info`` itself, and the arrays of ``out`` are
  updated in place: pass fresh arrays that nothing else holds (what ``VectorCore`` returns).
  """
  out = {} if out is None else out
  if not mask.any():
    return out
  every = None
  for key, value in info.items():
    value = np.asarray(value)
    m = mask.reshape((-1,) + (1,) * (value.ndim - 1))
    if key in out and np.result_type(value, out[key]) == out[key].dtype:
      np.copyto(out[key], value, where=m)
      out["_" + key] |= mask
    elif key in out:
      out[key] = np.where(m, value, out[key])
      out["_" + key] |= mask
    else:
      every = mask.all() if every is None else every
      out[key] = value if every else np.where(m, value, np.zeros((), value.dtype))
      out["_" + key] = mask.copy()
  return out


class MjVectorEnv(VectorEnv):
  """A ``gymnasium.vector.VectorEnv`` of ``num_envs`` worlds of an mjgym env on one batched Data.

  Made by ``gym.make_vec("MjHopper-v0", num_envs=64)`` (each env id registers a subclass of this class as its
  ``vector_entry_point``). World i behaves exactly like ``gym.make(id)`` reset with ``seed + i``.

  Args:
    num_envs: number of worlds.
    max_episode_steps: truncation after this many steps (``make_vec`` passes the registered value).
    autoreset_mode: ``AutoresetMode`` (or its value): NEXT_STEP (default), SAME_STEP or DISABLED, with
      Gymnasium's semantics (SAME_STEP puts ``final_obs``/``final_info`` in the info).
    num_threads: threads of the batched physics; None: up to one per usable CPU (at least 4 worlds per thread),
      each step on one thread or all of them, whichever ran faster lately (``ThreadChooser``).
    render_mode: None, "rgb_array" or "depth_array"; ``render()`` returns a tuple of frames, one per world.
    env_class: the single env's class or entry point (subclasses set the class attribute).
    **kwargs: the single env's arguments (frame_skip, obs_dtype, reward weights, xml_file, ...).
  """

  metadata = {"autoreset_mode": AutoresetMode.NEXT_STEP, "render_modes": ["rgb_array", "depth_array"],
              "render_fps": None}
  env_class = None

  def __init__(self, num_envs=1, *, max_episode_steps=None, autoreset_mode=AutoresetMode.NEXT_STEP,
               num_threads=None, render_mode=None, env_class=None, **kwargs):
    env_class = load_env_class(env_class or self.env_class)
    if env_class is None:
      raise ValueError("MjVectorEnv needs env_class (the single env's class or entry point)")
    if render_mode is not None and render_mode not in self.metadata["render_modes"]:
      raise ValueError(f"render_mode must be one of {self.metadata['render_modes']}, got {render_mode!r}")
    env = env_class(render_mode=render_mode, **kwargs)
    self._core = VectorCore(env, num_envs, max_episode_steps, num_threads)
    self.num_envs = self._core.num_envs
    self.autoreset_mode = AutoresetMode(autoreset_mode)
    self.metadata = dict(self.metadata, autoreset_mode=self.autoreset_mode,
                         render_fps=env.metadata.get("render_fps"))
    self.render_mode = render_mode
    self.single_observation_space = env.observation_space
    self.single_action_space = env.action_space
    self.observation_space = batch_space(env.observation_space, self.num_envs)
    self.action_space = batch_space(env.action_space, self.num_envs)
    self.max_episode_steps = self._core.max_episode_steps
    self._autoreset = np.zeros(self.num_envs, np.bool_)
    self._ended = np.zeros(self.num_envs, np.bool_)
    self._needs_reset = True

  # ---------------------------------------------------------------- properties

  @property
  def model(self):
    """The shared MjModel."""
    return self._core.model

  @property
  def batch(self):
    """The MjDataBatch of all worlds (fields (num_envs, ...))."""
    return self._core.batch

  @property
  def task(self):
    return self._core.task

  @property
  def num_threads(self):
    return self._core.num_threads

  @num_threads.setter
  def num_threads(self, n):
    """A fixed thread count, or None for the per-step choice."""
    self._core.set_num_threads(n)

  @property
  def dt(self):
    return self._core.env.dt

  @property
  def world_model(self):
    """Per-world model fields set up by ``randomize`` ({name: (num_envs, ...) array})."""
    return self._core.world_model

  def randomize(self, names):
    """Gives model fields ``names`` a leading world axis for domain randomization and returns them.

    Allowed: ``mjgym.physics.batch.RANDOMIZABLE`` (body_mass, geom_friction, dof_damping, actuator_gear,
    opt_gravity). Write per-world values in place into the returned arrays, e.g. before a reset::

      fields = envs.unwrapped.randomize(["body_mass"])
      fields["body_mass"][:, 1:] *= rng.uniform(0.8, 1.2, (envs.num_envs, 1))

    Derived quantities (inertias, subtree masses, the Task's own constants) are left as compiled.
    """
    return self._core.randomize(names)

  # ---------------------------------------------------------------- gymnasium API

  def reset(self, *, seed=None, options=None):
    """Resets all worlds, or those of ``options["reset_mask"]``; ``seed``: None, int (seed + i) or a list."""
    core = self._core
    if isinstance(seed, (int, np.integer)):
      self._np_random, self._np_random_seed = seeding.np_random(int(seed))
      core.np_random = self._np_random
    elif core.np_random is None:
      core.np_random = self.np_random
    mask = None
    if options is not None and "reset_mask" in options:
      mask = options["reset_mask"]
      if not isinstance(mask, np.ndarray):
        raise TypeError(f"`options['reset_mask']` must be a numpy array, got {type(mask)}")
      if mask.shape != (self.num_envs,):
        raise ValueError(f"`options['reset_mask']` must have shape `({self.num_envs},)`, got {mask.shape}")
      if mask.dtype != np.bool_:
        raise TypeError(f"`options['reset_mask']` must have `dtype=np.bool_`, got {mask.dtype}")
      if not mask.any():
        raise ValueError(f"`options['reset_mask']` must contain at least one True value, got reset_mask={mask}")
    mask = core._all if mask is None else mask.copy()  # pylint: disable=protected-access
    info = core.reset(mask, seed)
    self._autoreset[mask] = False
    self._ended[mask] = False
    self._needs_reset = False
    return core.env.unwrapped.present(core.observe()), masked_info(info, mask)

  def step(self, actions):
    """One step of every world, with the autoreset mode's handling of the worlds whose episode ended."""
    if self.closed:
      raise gym.error.ClosedEnvironmentError(f"{type(self).__name__}: step() after close()")
    if self._needs_reset:
      raise gym.error.ResetNeeded("call reset() before step()")
    core = self._core
    mode = self.autoreset_mode
    if mode == AutoresetMode.NEXT_STEP:
      resetting = self._autoreset
      any_resetting = resetting.any()
      stepping = ~resetting if any_resetting else core._all  # pylint: disable=protected-access
      obs, reward, terminated, truncated, info, events = core.step(actions, stepping)
      infos = _with_events(masked_info(info, stepping), events)
      if any_resetting:
        infos = masked_info(core.reset(resetting), resetting, infos)
        obs[resetting] = core.observe()[resetting]
        reward[resetting] = 0.0
        terminated[resetting] = False
        truncated[resetting] = False
      self._autoreset = terminated | truncated
    elif mode == AutoresetMode.SAME_STEP:
      obs, reward, terminated, truncated, info, events = core.step(actions)
      done = terminated | truncated
      if done.any():
        final_info = _with_events(masked_info(info, done), events, done)
        final_obs = np.full(self.num_envs, None, dtype=object)
        final_obs[done] = np.fromiter(map(core.env.unwrapped.present, obs[done]), dtype=object,
                                      count=int(done.sum()))  # one row per object
        infos = {"final_obs": final_obs, "_final_obs": done.copy(), "final_info": final_info,
                 "_final_info": done.copy()}
        infos = _with_events(masked_info(info, ~done, infos), events, ~done)
        infos = masked_info(core.reset(done), done, infos)
        obs[done] = core.observe()[done]
      else:
        infos = _with_events(masked_info(info, core._all), events)  # pylint: disable=protected-access
    elif mode == AutoresetMode.DISABLED:
      if self._ended.any():
        raise gym.error.ResetNeeded(
            f"worlds {np.flatnonzero(self._ended).tolist()} ended their episode; with AutoresetMode.DISABLED "
            "reset them with reset(options={'reset_mask': mask}) before stepping")
      obs, reward, terminated, truncated, info, events = core.step(actions)
      infos = _with_events(masked_info(info, core._all), events)  # pylint: disable=protected-access
      self._ended = terminated | truncated
    else:
      raise ValueError(f"unexpected autoreset mode {mode}")
    return core.env.unwrapped.present(obs), reward, terminated, truncated, infos

  def render(self, worlds=None):
    """A tuple of frames, one per world (or per index of ``worlds``), or None without a render_mode."""
    if self.render_mode is None:
      gym.logger.warn("render() called without a render_mode; pass render_mode='rgb_array' to make_vec")
      return None
    return tuple(self._core.render(worlds))

  def close_extras(self, **kwargs):
    self._core.close()


def _vector_class(name, entry_point):
  """A subclass of MjVectorEnv for one env class (what ``vector_entry_point`` names)."""
  doc = f"MjVectorEnv of ``{entry_point}``: ``gym.make_vec`` builds it; see MjVectorEnv for the arguments."
  return type(name, (MjVectorEnv,), {"env_class": entry_point, "__doc__": doc, "__module__": __name__})


# One vector class per registered env (the ``vector_entry_point`` each registration names).
for _entry in dict.fromkeys([entry for _, entry, _ in ENVS] + [entry for _, entry, _, _ in DMC_ENVS]):
  _name = vector_entry_point(_entry).split(":")[1]
  globals()[_name] = _vector_class(_name, _entry)
