"""MjEnv and Task: the base of every mjgym environment, a `gymnasium.Env` on mjgym's own physics.

Actions are actuator controls (``data.ctrl``, a Box from ``actuator_ctrlrange``); observations are the model's
``sensordata`` (the sensors in the env's MJCF define the observation).

What makes an environment (reward, termination, reset distribution) is a ``Task`` whose methods work on
*batched* Data: arrays with a leading world axis. A single environment is a batch of one world, and the
vector environments run the very same Task code over many worlds, so world i of a vector env equals the
single env bitwise for the same seed and actions.

Reset noise comes from a counter-based generator (SplitMix64 over ``(world seed, episode number, draw)``),
computed for all resetting worlds at once; the single env derives its world seed from ``reset(seed=...)``.

Per-step work runs in small numba kernels (one per Task, plus ``end_step``) so that an env step costs a few
Python calls whatever the number of worlds. Their cache is keyed on their module's import closure
(``mjgym.physics._cache``), so they may call kernels of any module they import.
"""

import os
import pathlib

import gymnasium as gym
import numpy as np
from gymnasium import spaces
from numba import njit

from mjgym import physics
from mjgym.physics import batch as physics_batch

ASSETS = pathlib.Path(__file__).resolve().parent.parent / "assets"

# Warnings that mean the simulated state diverged (the engine has reset the world when it raised them).
DIVERGENCE = np.array([physics.mjtWarning.BADQPOS, physics.mjtWarning.BADQVEL, physics.mjtWarning.BADQACC])

_GAMMA = np.uint64(0x9E3779B97F4A7C15)
_MIX1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX2 = np.uint64(0x94D049BB133111EB)


def asset_path(name):
  """Path of one of mjgym's own MJCF models (mjgym/assets/NAME)."""
  return str(ASSETS / name)


@njit(cache=True)
def _mix64(z):
  """SplitMix64's finalizer: a bijection of uint64 with full avalanche (products wrap)."""
  z = (z ^ (z >> np.uint64(30))) * _MIX1
  z = (z ^ (z >> np.uint64(27))) * _MIX2
  return z ^ (z >> np.uint64(31))


@njit(cache=True)
def _episode_keys(seeds, episodes):
  keys = np.empty(seeds.shape[0], np.uint64)
  for w in range(seeds.shape[0]):
    keys[w] = _mix64(_mix64(seeds[w] + _GAMMA) ^ (episodes[w] * _GAMMA))
  return keys


@njit(cache=True)
def _unit_uniform(keys, first, n):
  """(W, n) numbers in [0, 1) on the 2**-53 grid: draws ``first`` .. ``first + n - 1`` of each key's stream."""
  u = np.empty((keys.shape[0], n))
  for w in range(keys.shape[0]):
    for j in range(n):
      z = _mix64(keys[w] + np.uint64(first + j) * _GAMMA)
      u[w, j] = np.float64(z >> np.uint64(11)) * (1.0 / 9007199254740992.0)
  return u


def episode_keys(seeds, episodes):
  """Key of each world's episode, (W,) uint64, from world seeds and episode numbers (W,)."""
  return _episode_keys(np.ascontiguousarray(seeds, np.uint64), np.ascontiguousarray(episodes, np.uint64))


def seed_to_uint64(seed):
  return np.uint64(int(seed) % (1 << 64))


class Noise:
  """Uniform draws for a set of resetting worlds: row w continues world w's stream for this episode."""

  def __init__(self, keys):
    self._keys = np.ascontiguousarray(keys, np.uint64)
    self._count = 0

  def uniform(self, low, high, n):
    """(W, n) uniform numbers in [low, high)."""
    u = _unit_uniform(self._keys, self._count + 1, n)
    self._count += n
    return low + (high - low) * u


class Task:
  """Reward, termination and initial-state distribution of an environment, for many worlds at once.

  Every method takes ``b``, an ``MjDataBatch`` (fields with a leading world axis W); the single env passes a
  batch of one world. Subclasses override ``reset``, ``pre_step``/``post_step`` and ``reset_info``.
  """

  def __init__(self, reset_noise_scale=0.0):
    self.reset_noise_scale = reset_noise_scale
    self.model = None
    self.dt = None
    self.init_qpos = None
    self.init_qvel = None

  def bind(self, model, dt):
    """Called once the model is compiled: precompute what depends on it."""
    self.model = model
    self.dt = dt
    self.init_qpos = model.qpos0.copy()
    self.init_qvel = np.zeros(model.nv)

  def reset(self, b, worlds, noise):
    """Sets the initial state of ``worlds`` (index array; their Data was just reset): init_qpos/init_qvel
    plus uniform noise of ``reset_noise_scale``."""
    s = self.reset_noise_scale
    b.qpos[worlds] = self.init_qpos + noise.uniform(-s, s, self.model.nq)
    b.qvel[worlds] = self.init_qvel + noise.uniform(-s, s, self.model.nv)

  def pre_step(self, b):
    """What post_step needs from before the physics step (e.g. positions for a velocity), as a fresh array."""
    return None

  def post_step(self, b, action, pre):
    """(reward (W,) float64, terminated (W,) bool, info {name: (W,) array}) after the physics step.

    ``action`` is (W, nu) float64. Every returned array must be fresh and belong to the caller alone (no view of
    ``b``, no array behind two entries): the vector envs hand them to the user without copying. Tasks compute
    them in one numba kernel over all worlds.
    """
    raise NotImplementedError

  def reset_info(self, b):
    """Info of a reset, {name: (W,) array}, fresh arrays as in ``post_step``."""
    return {}


class MjEnv(gym.Env):
  """A Gymnasium environment whose physics is ``mjgym.physics``, its task given by a ``Task``.

  Args:
    task: the Task (reward, termination, reset distribution).
    xml_file: MJCF path (any model works that has what the task reads).
    frame_skip: physics steps per env step; ``dt = timestep * frame_skip`` seconds.
    obs_dtype: dtype of observations (float64 default; float32 on request); always the space's dtype.
    render_mode: None, "rgb_array", "depth_array" or "human".
    width, height: rendered image size in pixels.
    camera: the MJCF camera (name or id) to render from; -1 is the free camera.
  """

  metadata = {"render_modes": ["human", "rgb_array", "depth_array"], "render_fps": None}

  def __init__(self, task, xml_file, frame_skip, obs_dtype=np.float64, render_mode=None, width=480, height=480,
               camera=-1):
    if frame_skip < 1:
      raise ValueError(f"frame_skip must be >= 1, got {frame_skip}")
    if render_mode is not None and render_mode not in self.metadata["render_modes"]:
      raise ValueError(f"render_mode must be one of {self.metadata['render_modes']}, got {render_mode!r}")
    self.fullpath = os.fspath(xml_file)
    self.model = physics.MjModel.from_xml_path(self.fullpath)
    if self.model.nsensordata == 0:
      raise ValueError(f"{self.fullpath}: the model has no sensors; mjgym observations are its sensordata")
    self.frame_skip = int(frame_skip)
    self._batch = physics_batch.MjDataBatch(self.model, 1)
    self.data = self._batch[0]
    self.task = task
    task.bind(self.model, self.dt)
    self.render_mode = render_mode
    self.width, self.height, self.camera = width, height, camera
    self._renderer = None
    self.metadata = dict(self.metadata, render_fps=int(np.round(1.0 / self.dt)))
    self._obs_dtype = np.dtype(obs_dtype)
    self.observation_space = spaces.Box(-np.inf, np.inf, (self.model.nsensordata,), self._obs_dtype)
    self.action_space = action_space(self.model)
    self._world_seed = None
    self._episode = 0
    self._warnings_seen = np.zeros_like(self._batch.warning_number)
    self._world = np.zeros(1, np.intp)
    self._elapsed = np.zeros(1, np.int64)  # end_step's episode counter; the TimeLimit wrapper truncates
    self._stepped = np.ones(1, np.bool_)

  @property
  def dt(self):
    """Seconds of simulated time per env step."""
    return self.model.opt.timestep * self.frame_skip

  @property
  def init_qpos(self):
    return self.task.init_qpos

  @property
  def init_qvel(self):
    return self.task.init_qvel

  def set_state(self, qpos, qvel):
    """Sets qpos (nq,) and qvel (nv,) and recomputes every derived quantity (sensors included)."""
    assert qpos.shape == (self.model.nq,) and qvel.shape == (self.model.nv,)
    self.data.qpos[:] = qpos
    self.data.qvel[:] = qvel
    physics.mj_forward(self.model, self.data)

  def do_simulation(self, ctrl, n_frames):
    """Applies ``ctrl`` (nu,) and steps the physics ``n_frames`` times; sensors, cacc and cfrc_ext then
    describe the new state."""
    ctrl = np.asarray(ctrl)
    if ctrl.shape != (self.model.nu,):
      raise ValueError(f"action has shape {ctrl.shape}, expected ({self.model.nu},)")
    self.data.ctrl[:] = ctrl
    self._batch.step_observe(int(n_frames))

  def _get_obs(self):
    return self.data.sensordata.astype(self._obs_dtype, copy=True)

  # ------------------------------------------------------------------ gymnasium API

  def reset(self, *, seed=None, options=None):
    super().reset(seed=seed)
    if seed is not None:
      self._world_seed, self._episode = seed_to_uint64(seed), 0
    elif self._world_seed is None:
      self._world_seed, self._episode = seed_to_uint64(self.np_random.integers(0, 2**63)), 0
    else:
      self._episode += 1
    self._batch.reset()
    self._warnings_seen[:] = 0
    self._elapsed[:] = 0
    self.task.reset(self._batch, self._world, Noise(episode_keys([self._world_seed], [self._episode])))
    self._batch.observe()
    return self._get_obs(), {k: v[0] for k, v in self.task.reset_info(self._batch).items()}

  def step(self, action):
    action = np.ascontiguousarray(action, dtype=np.float64).reshape(1, self.model.nu)
    pre = self.task.pre_step(self._batch)
    self.do_simulation(action[0], self.frame_skip)
    reward, terminated, info = self.task.post_step(self._batch, action, pre)
    info = {k: v[0] for k, v in info.items()}
    diverged, _ = end_step(self._batch.warning_number, self._warnings_seen, DIVERGENCE, self._elapsed,
                           self._stepped, -1)
    if diverged[0]:
      info["divergence"] = True
    return self._get_obs(), float(reward[0]), bool(terminated[0]), bool(diverged[0]), info

  def render(self):
    if self.render_mode is None:
      gym.logger.warn("render() called without a render_mode; pass render_mode='rgb_array' to gym.make")
      return None
    if not hasattr(physics, "Renderer"):
      raise NotImplementedError("mjgym's renderer is not available yet (it arrives with the renderer issue)")
    if self._renderer is None:
      self._renderer = physics.Renderer(self.model, height=self.height, width=self.width)
      if self.render_mode == "depth_array":
        self._renderer.enable_depth_rendering()
    self._renderer.update_scene(self.data, camera=self.camera)
    frame = self._renderer.render()
    if self.render_mode == "human":
      show(frame)
      return None
    return frame

  def close(self):
    if self._renderer is not None:
      self._renderer.close()
      self._renderer = None


def action_space(model):
  """Box of the actuator controls: ctrlrange where limited, unbounded otherwise (float32)."""
  low, high = model.actuator_ctrlrange.T
  limited = model.actuator_ctrllimited.astype(bool)
  return spaces.Box(np.where(limited, low, -np.inf).astype(np.float32),
                    np.where(limited, high, np.inf).astype(np.float32), dtype=np.float32)


@njit(cache=True)
def end_step(number, seen, divergence, elapsed, stepped, max_episode_steps):
  """Bookkeeping after an env step of the worlds where ``stepped`` (W,) is true: (diverged (W,), truncated (W,)).

  diverged: a warning of ``divergence`` (indices into the warning counts ``number`` (W, nwarning)) was raised
  since ``seen`` (W, nwarning), which is then updated to ``number``. ``elapsed`` (W,) counts the steps of each
  episode; truncated: diverged, or ``elapsed`` reached ``max_episode_steps`` (a negative value: no limit).
  """
  nworld = number.shape[0]
  diverged = np.zeros(nworld, np.bool_)
  truncated = np.zeros(nworld, np.bool_)
  for w in range(nworld):
    for k in divergence:
      if number[w, k] > seen[w, k]:
        diverged[w] = True
    seen[w, :] = number[w, :]
    if stepped[w]:
      elapsed[w] += 1
    truncated[w] = diverged[w] or (max_episode_steps >= 0 and elapsed[w] >= max_episode_steps)
  return diverged, truncated


def show(frame):
  """Displays a frame in a window (pygame); a clear error where pygame is missing."""
  try:
    import pygame  # pylint: disable=import-outside-toplevel
  except ImportError as e:
    raise gym.error.DependencyNotInstalled("render_mode='human' needs pygame: pip install pygame") from e
  if not pygame.display.get_init():
    pygame.display.init()
  surface = pygame.surfarray.make_surface(np.transpose(frame, (1, 0, 2)))
  screen = pygame.display.get_surface() or pygame.display.set_mode(surface.get_size())
  screen.blit(surface, (0, 0))
  pygame.display.flip()
  pygame.event.pump()
