"""stable-baselines3 glue: a ``VecEnv`` of N worlds of an mjgym env on one batched Data.

``make_vec_env("MjHopper-v0", n_envs=64)`` replaces SB3's ``make_vec_env`` + ``DummyVecEnv``/``SubprocVecEnv``:
the worlds step in one parallel numba call (``mjgym.envs.vector.VectorCore``), and the step results follow
DummyVecEnv's conventions exactly: an ended episode is reset within the step, its last observation in
``info["terminal_observation"]``, ``info["TimeLimit.truncated"]`` true when it ended by truncation only,
float32 rewards, and the reset info in ``reset_infos``. Envs with dict observations (the DeepMind Control Suite's
``observation="dict"``) give SB3's dict observations, for its ``MultiInputPolicy``.
"""

import warnings

import gymnasium as gym
import numpy as np
from stable_baselines3.common.vec_env import VecEnv
from stable_baselines3.common.vec_env import VecMonitor

from mjgym.envs import vector

# Methods that start or advance an episode: on one world they must go through the VecEnv, not env_method.
_EPISODE_METHODS = ("reset", "step")


class MjVecEnv(VecEnv):
  """An SB3 ``VecEnv`` over ``n_envs`` worlds of one mjgym env class (see ``make_vec_env``).

  Args:
    env_class: the single env's class or entry point (``"mjgym.envs.hopper:MjHopperEnv"``).
    n_envs: number of worlds.
    max_episode_steps: truncation after this many steps (None: never).
    num_threads: threads of the batched physics; None: up to one per usable CPU (at least 4 worlds per thread),
      each step on one thread or all of them, whichever ran faster lately (``vector.ThreadChooser``).
    render_mode: None or "rgb_array" (needed by VecVideoRecorder).
    env_kwargs: the single env's arguments.
  """

  def __init__(self, env_class, n_envs, max_episode_steps=None, num_threads=None, render_mode=None,
               env_kwargs=None):
    env = vector.load_env_class(env_class)(render_mode=render_mode, **(env_kwargs or {}))
    self._core = vector.VectorCore(env, n_envs, max_episode_steps, num_threads)
    # the worlds step flat observations; the env's ``present`` splits them as its observation space says
    self._present = env.present
    self._actions = None
    self._needs_reset = True
    self._closed = False
    super().__init__(n_envs, env.observation_space, env.action_space)
    self.metadata = dict(env.metadata, **self.metadata)

  @property
  def model(self):
    return self._core.model

  @property
  def batch(self):
    """The MjDataBatch of all worlds."""
    return self._core.batch

  @property
  def num_threads(self):
    return self._core.num_threads

  @property
  def world_model(self):
    return self._core.world_model

  def randomize(self, names):
    """Per-world model fields (domain randomization): see ``MjVectorEnv.randomize``."""
    return self._core.randomize(names)

  # ---------------------------------------------------------------- VecEnv API

  def reset(self):
    core = self._core
    seeds = self._seeds if any(s is not None for s in self._seeds) else None
    info = core.reset(None, seeds)
    self.reset_infos = _world_infos(info, self.num_envs)
    self._reset_seeds()
    self._reset_options()
    self._needs_reset = False
    return self._present(core.observe())

  def step_async(self, actions):
    self._actions = actions

  def step_wait(self):
    if self._closed:
      raise gym.error.ClosedEnvironmentError("MjVecEnv: step() after close()")
    if self._needs_reset:
      raise gym.error.ResetNeeded("MjVecEnv: call reset() before step()")
    core = self._core
    actions = self._actions
    if self.model.nu == 1 and np.ndim(actions) == 1:  # (n_envs,) for one actuator is unambiguous
      actions = np.reshape(actions, (self.num_envs, 1))
    obs, reward, terminated, truncated, info, events = core.step(actions)
    done = terminated | truncated
    columns = {k: list(v) for k, v in info.items()}
    # Python bools, as DummyVecEnv's ``truncated and not terminated``
    columns["TimeLimit.truncated"] = (truncated & ~terminated).tolist()
    infos = _rows(columns, self.num_envs)
    for key, flag in events.items():
      for w in np.flatnonzero(flag):
        infos[w][key] = True
    if done.any():
      ended = np.flatnonzero(done)
      for w in ended:
        infos[w]["terminal_observation"] = self._present(obs[w].copy())  # obs[w] is about to become the reset one
      reset_info = _world_infos(core.reset(done), self.num_envs)
      for w in ended:
        self.reset_infos[w] = reset_info[w]
      obs[done] = core.observe()[done]
    return self._present(obs), reward.astype(np.float32), done, infos

  def close(self):
    self._closed = True
    self._core.close()

  def get_images(self):
    if self.render_mode != "rgb_array":
      warnings.warn(f"The render mode is {self.render_mode}, but this method assumes it is `rgb_array` to obtain "
                    "images.")
      return [None for _ in range(self.num_envs)]
    return self._core.render()

  def get_attr(self, attr_name, indices=None):
    """The attribute of each chosen world, evaluated on that world (properties see the world's Data)."""
    return [getattr(self._core.world_env(i), attr_name) for i in self._get_indices(indices)]

  def set_attr(self, attr_name, value, indices=None):
    """Sets an attribute of the env; the worlds share one env object, so only all worlds at once."""
    if sorted(self._get_indices(indices)) != list(range(self.num_envs)):
      raise ValueError("the worlds of an MjVecEnv share their env attributes: set_attr applies to all worlds "
                       "(per-world model fields: see randomize)")
    setattr(self._core.env.unwrapped, attr_name, value)

  def env_method(self, method_name, *method_args, indices=None, **method_kwargs):
    """Calls the env method on each chosen world (its Data and batch are that world's)."""
    if method_name in _EPISODE_METHODS:
      raise ValueError(f"{method_name}() of one world is not available: use the VecEnv's reset/step")
    return [getattr(self._core.world_env(i), method_name)(*method_args, **method_kwargs)
            for i in self._get_indices(indices)]

  def env_is_wrapped(self, wrapper_class, indices=None):
    """Worlds carry no gym wrappers; the built-in episode limit counts as a TimeLimit."""
    time_limit = self._core.max_episode_steps is not None and issubclass(gym.wrappers.TimeLimit, wrapper_class)
    return [time_limit for _ in self._get_indices(indices)]


def _world_infos(info, n):
  """One info dict per world from {name: (W,) array}, values as numpy scalars like a single env's."""
  return _rows({k: list(v) for k, v in info.items()}, n)


def _rows(columns, n):
  """[{name: columns[name][w]} for each world w]."""
  if not columns:
    return [{} for _ in range(n)]
  keys = list(columns)
  return [dict(zip(keys, row)) for row in zip(*columns.values())]


def make_vec_env(env_id, n_envs=1, seed=None, env_kwargs=None, monitor=True, monitor_dir=None, num_threads=None,
                 max_episode_steps=None, render_mode=None):
  """SB3's ``make_vec_env`` for a registered mjgym env id, on batched worlds.

  Args:
    env_id: a registered mjgym id, e.g. "MjHopper-v0".
    n_envs: number of worlds.
    seed: first world's seed for the first reset (world i gets seed + i), as SB3's make_vec_env.
    env_kwargs: the env's arguments.
    monitor: wrap in ``VecMonitor`` (episode returns and lengths in ``info["episode"]``), as SB3 wraps each
      env in ``Monitor``; ``monitor_dir`` is its log directory.
    num_threads: threads of the batched physics (None: chosen per step, see ``vector.ThreadChooser``).
    max_episode_steps: overrides the registered episode limit.
    render_mode: None or "rgb_array".
  """
  spec = gym.spec(env_id)
  kwargs = dict(spec.kwargs, **(env_kwargs or {}))
  steps = spec.max_episode_steps if max_episode_steps is None else max_episode_steps
  venv = MjVecEnv(spec.entry_point, n_envs, max_episode_steps=steps, num_threads=num_threads,
                  render_mode=render_mode, env_kwargs=kwargs)
  if seed is not None:
    venv.action_space.seed(seed)
  venv.seed(seed)
  if monitor:
    filename = None if monitor_dir is None else str(monitor_dir)
    venv = VecMonitor(venv, filename=filename)
  return venv
