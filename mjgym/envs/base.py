"""MjEnv and Task: the base of every mjgym environment, a `gymnasium.Env` on mjgym's own physics.

Actions are actuator controls (``data.ctrl``, a Box from ``actuator_ctrlrange``); observations are the model's
``sensordata`` (the sensors in the env's MJCF define the observation), or, with ``observation="v5"``,
Gymnasium v5's observation computed from Data as Gymnasium computes it.

An environment is declared once: a ``Params`` NamedTuple holds its task's keyword arguments and defaults (the
numba kernels read it by name), a ``Task`` computes reward, termination and the reset distribution over
*batched* Data (arrays with a leading world axis), and the env class names its Task, MJCF asset, frame skip and
camera. ``MjEnv`` builds the constructor, pickling and the Gymnasium API from that. A single environment is a
batch of one world, and the vector environments run the very same Task code over many worlds, so world i of a
vector env equals the single env bitwise for the same seed and actions.

A step is Gymnasium's ``MujocoEnv`` step: ``frame_skip`` calls of mj_step then mj_rnePostConstraint; the reward
reads Data as MuJoCo leaves it then (qpos/qvel new; derived fields such as xpos and cfrc_ext are those of the last
physics step's forward pass: its start state under Euler, its fourth stage under RK4), as in Gymnasium v5. Then,
for the sensor observation, forward dynamics at the new state fill ``sensordata`` (and leave every derived field
consistent with qpos/qvel).

Reset noise comes from a counter-based generator (SplitMix64 over ``(world seed, episode number, draw)``),
computed for all resetting worlds at once; the single env derives its world seed from ``reset(seed=...)``.

Per-step work runs in small numba kernels (one per Task, plus ``end_step``) so that an env step costs a few
Python calls whatever the number of worlds. Their cache is keyed on their module's import closure
(``mjgym.physics._jit.cache``), so they may call kernels of any module they import.
"""

import collections
import inspect
import os
import pathlib

import gymnasium as gym
import numpy as np
from gymnasium import spaces
from gymnasium.utils import EzPickle
from numba import njit

from mjgym import physics
from mjgym.physics import batch as physics_batch

ASSETS = pathlib.Path(__file__).resolve().parent.parent / "assets"

# Warnings that mean the simulated state diverged (the engine has reset the world when it raised them).
DIVERGENCE = np.array([physics.mjtWarning.BADQPOS, physics.mjtWarning.BADQVEL, physics.mjtWarning.BADQACC])

_MAXVAL = physics.mjMAXVAL  # a numba global: the bound on actions, as MuJoCo bounds controls
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

  def normal(self, scale, n):
    """(W, n) normal numbers of mean 0 and standard deviation ``scale`` (Box-Muller on two uniform draws)."""
    u = self.uniform(0.0, 1.0, 2 * n)
    return scale * np.sqrt(-2.0 * np.log1p(-u[:, :n])) * np.cos(2.0 * np.pi * u[:, n:])

  def uniform_until(self, low, high, accept, tries=64):
    """(W, n) uniform points in the box [low, high) (arrays (n,)), each world's first draw that ``accept``
    ((W, n) -> (W,) bool) takes: a rejection sampler. Every world draws ``tries`` candidates so that streams
    stay aligned across worlds (a world's numbers never depend on another's); ``tries`` = 64 leaves a chance
    below 1e-20 of no accepted draw when half the box is accepted, and that raises."""
    low, high = np.asarray(low, np.float64), np.asarray(high, np.float64)
    n = low.shape[0]
    candidates = self.uniform(0.0, 1.0, tries * n).reshape(-1, tries, n) * (high - low) + low
    ok = accept(candidates.reshape(-1, n)).reshape(-1, tries)
    if not ok.any(axis=1).all():
      raise RuntimeError(f"no accepted draw in {tries} tries")
    return candidates[np.arange(candidates.shape[0]), ok.argmax(axis=1)]


def make_params(params_class, kwargs, owner):
  """``params_class(**kwargs)`` with each value converted to its default's type (float, bool, int, tuple of
  floats), so that numba compiles a kernel once per Params class; unknown names raise TypeError."""
  unknown = sorted(set(kwargs) - set(params_class._fields))
  if unknown:
    raise TypeError(f"{owner} got unexpected keyword argument(s) {unknown}; its task arguments are "
                    f"{list(params_class._fields)}")
  values = params_class(**kwargs)
  converted = []
  for name, value in zip(params_class._fields, values):
    default = params_class._field_defaults.get(name)
    if isinstance(default, bool):
      value = bool(value)
    elif isinstance(default, float):
      value = float(value)
    elif isinstance(default, int) and not isinstance(value, str):
      value = int(value)
    elif isinstance(default, tuple):
      value = tuple(float(x) for x in value)
      if len(value) != len(default):
        raise ValueError(f"{owner}: {name} needs {len(default)} numbers, got {len(value)}")
    converted.append(value)
  return params_class(*converted)


class Task:
  """Reward, termination and initial-state distribution of an environment, for many worlds at once.

  Every method takes ``b``, an ``MjDataBatch`` (fields with a leading world axis W); the single env passes a
  batch of one world. A subclass sets:

  - ``Params``: a NamedTuple of the task's keyword arguments with their defaults (kernels read it by name);
  - ``info_keys``: names of the rows of the info array its step kernel returns;
  - ``skipped_qpos``: how many leading sensors ``exclude_current_positions_from_observation`` drops;
  - ``ncarry``: floats per world that a step needs from the previous state (Gymnasium reads "before" values
    such as the centre of mass from Data as the previous step left it: ``start`` stores them, ``post_step``
    reads and updates them);
  - ``reads_derived``: whether the reward reads fields derived from the state (xipos, xpos, cfrc_ext, ...),
    which must then be read as MuJoCo leaves them after mj_step, before the observation's forward pass;
  - ``held_sensors``: sensordata entries (an index array) that reward and observation read as mj_step1 leaves
    them after mj_step: acceleration-stage sensors (touch, ...) keep the values of the last physics step's
    state before integration (the DeepMind Control Suite observes them so);

  and overrides ``post_step``, and where needed ``reset``, ``start``, ``reset_info``, ``observe_v5``.
  """

  Params = None
  info_keys = ()
  skipped_qpos = 0
  ncarry = 0
  reads_derived = False
  held_sensors = None

  def __init__(self, params):
    self.p = params
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

  @property
  def skip(self):
    """Sensors (qpos entries) the observation leaves out."""
    return self.skipped_qpos if getattr(self.p, "exclude_current_positions_from_observation", False) else 0

  def reset(self, b, worlds, noise, carry):
    """Sets the initial state of ``worlds`` (index array; their Data was just reset), and in their ``carry``
    what stays fixed over the episode and no state holds (a target placed at reset; ``start`` and ``post_step``
    keep it). The default: init_qpos/init_qvel plus uniform noise of ``reset_noise_scale`` on both."""
    s = self.p.reset_noise_scale
    b.qpos[worlds] = self.init_qpos + noise.uniform(-s, s, self.model.nq)
    b.qvel[worlds] = self.init_qvel + noise.uniform(-s, s, self.model.nv)

  def start(self, b, worlds, carry):
    """Fills ``carry[worlds]`` from a state that forward dynamics just evaluated (reset or set_state)."""

  def post_step(self, b, action, carry):
    """(reward (W,) float64, terminated (W,) bool, info {name: (W,) array}) after the physics step.

    ``action`` is (W, nu) float64. Every returned array must be fresh and belong to the caller alone (no view of
    ``b``, no array behind two entries): the vector envs hand them to the user without copying. Tasks compute
    them in one numba kernel over all worlds.
    """
    raise NotImplementedError

  def reset_info(self, b):
    """Info of a reset, {name: (W,) array}, fresh arrays as in ``post_step``."""
    return {}

  def observe_sensors(self, b):
    """The observation of every world at its evaluated new state, (W, n), a fresh array: by default the
    sensors, (W, nsensordata - skip)."""
    return b.sensordata[:, self.skip:].copy()

  def observe_v5(self, b):
    """Gymnasium v5's observation of every world, (W, n), computed from Data as Gymnasium computes it (after a
    step the sensors are not evaluated at the new state). The default: qpos (less the skipped entries), qvel."""
    return np.concatenate([b.qpos[:, self.skip:], b.qvel], axis=1)

  def observation_structure(self, v5):
    """Sizes of the observation's parts, in order (Gymnasium v5's ``observation_structure``)."""
    m = self.model
    return {"skipped_qpos": self.skip, "qpos": m.nq - self.skip, "qvel": m.nv}

  def info_dict(self, info):
    """{key: row} of a kernel's (len(info_keys), W) info array."""
    return dict(zip(self.info_keys, info))


OBSERVATIONS = ("sensors", "v5")


def dict_space(layout, dtype):
  """``spaces.Dict`` of an observation made of named parts, ``layout`` ((key, shape), ...), in that order (an
  OrderedDict: gymnasium sorts the keys of a plain dict)."""
  return spaces.Dict(collections.OrderedDict((key, spaces.Box(-np.inf, np.inf, shape, dtype))
                                             for key, shape in layout))


def split_observation(layout, obs):
  """{key: part} of flat observations ``obs`` (..., n) laid out as ``layout`` ((key, shape), ...): views of
  ``obs``, each (..., *shape)."""
  parts, start = {}, 0
  for key, shape in layout:
    size = int(np.prod(shape, dtype=np.int64))
    parts[key] = obs[..., start:start + size].reshape(obs.shape[:-1] + tuple(shape))
    start += size
  return parts


class MjEnv(gym.Env, EzPickle):
  """A Gymnasium environment whose physics is ``mjgym.physics``, its task given by a ``Task`` subclass.

  Subclasses declare ``task_class``, ``xml`` (asset name), ``default_frame_skip`` and ``default_camera``; the
  constructor takes these arguments plus every field of ``task_class.Params`` as keywords:

  Args:
    xml_file: MJCF path (any model works that has what the task reads); default: the env's own asset.
    frame_skip: physics steps per env step; ``dt = timestep * frame_skip`` seconds.
    observation: "sensors" (default: the model's sensordata) or "v5" (Gymnasium v5's observation, computed
      from Data as Gymnasium does); an env class may offer others (``observations``: the DeepMind Control
      Suite's envs take "flat", their default, or "dict").
    obs_dtype: dtype of observations (float64 default; float32 on request); always the space's dtype.
    render_mode: None, "rgb_array", "depth_array" or "human".
    width, height: rendered image size in pixels.
    camera: the MJCF camera (name or id) to render from; -1 is the free camera. ``camera_id`` and
      ``camera_name`` (Gymnasium's names) are accepted too.
    default_camera_config: Gymnasium's free-camera settings (distance, azimuth, elevation, lookat,
      trackbodyid), used when no camera is named.
    visual_options: Gymnasium's ``{mjtVisFlag: bool}`` switches of what render() draws (contact points, ...).
    max_geom: Gymnasium's size of the renderer's geom buffer; accepted for compatibility (mjgym's ray caster
      has no such buffer, so no scene is ever cut short).
  """

  metadata = {"render_modes": ["human", "rgb_array", "depth_array"], "render_fps": None}
  # The values of ``observation``, the default first; any but "v5" observes the state forward dynamics evaluated
  # after the step, "dict" splits it into the Task's ``layout`` (a gymnasium.spaces.Dict).
  observations = OBSERVATIONS
  task_class = Task
  xml = None
  default_frame_skip = 1
  default_camera = -1

  def __init_subclass__(cls, **kwargs):
    super().__init_subclass__(**kwargs)
    params = cls.task_class.Params
    if params is None:
      return
    fixed = [p.replace(default=cls.observations[0]) if p.name == "observation" else p
             for p in inspect.signature(MjEnv.__init__).parameters.values() if p.kind is p.KEYWORD_ONLY]
    task = [inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, default=params._field_defaults[name])
            for name in params._fields]
    cls.__signature__ = inspect.Signature(fixed + task)

  def __init__(self, *, xml_file=None, frame_skip=None, observation=None, obs_dtype=np.float64,
               render_mode=None, width=480, height=480, camera=None, camera_id=None, camera_name=None,
               default_camera_config=None, visual_options=None, max_geom=1000, **params):
    EzPickle.__init__(self, xml_file=xml_file, frame_skip=frame_skip, observation=observation,
                      obs_dtype=obs_dtype, render_mode=render_mode, width=width, height=height, camera=camera,
                      camera_id=camera_id, camera_name=camera_name, default_camera_config=default_camera_config,
                      visual_options=visual_options, max_geom=max_geom, **params)
    frame_skip = self.default_frame_skip if frame_skip is None else frame_skip
    observation = self.observations[0] if observation is None else observation
    if frame_skip < 1:
      raise ValueError(f"frame_skip must be >= 1, got {frame_skip}")
    if render_mode is not None and render_mode not in self.metadata["render_modes"]:
      raise ValueError(f"render_mode must be one of {self.metadata['render_modes']}, got {render_mode!r}")
    if observation not in self.observations:
      raise ValueError(f"observation must be one of {self.observations}, got {observation!r}")
    self.task = self.task_class(make_params(self.task_class.Params, params, type(self).__name__))
    self.fullpath = os.fspath(xml_file if xml_file is not None else asset_path(self.xml))
    self.model = physics.MjModel.from_xml_path(self.fullpath)
    if observation == "sensors" and self.model.nsensordata == 0:
      raise ValueError(f"{self.fullpath}: the model has no sensors; mjgym observations are its sensordata")
    self.frame_skip = int(frame_skip)
    self.observation = observation
    self._batch = physics_batch.MjDataBatch(self.model, 1)
    self.data = self._batch[0]
    self.task.bind(self.model, self.dt)
    self.render_mode = render_mode
    self.width, self.height = width, height
    self.camera = _camera(self.model, camera, camera_id, camera_name, default_camera_config, self.default_camera)
    self.scene_option = _scene_option(visual_options)
    self._renderer = None
    self.metadata = dict(self.metadata, render_fps=int(np.round(1.0 / self.dt)))
    self._obs_dtype = np.dtype(obs_dtype)
    self._carry = np.zeros((1, self.task.ncarry))
    self._world = np.zeros(1, np.intp)
    settle(self._batch, self.task, observation, self._world, self._carry)
    nobs = observe(self._batch, self.task, observation).shape[1]
    self.observation_space = spaces.Box(-np.inf, np.inf, (nobs,), self._obs_dtype)
    if observation == "dict":
      self.observation_space = dict_space(self.task.layout, self._obs_dtype)
    self.observation_structure = self.task.observation_structure(observation == "v5")
    self.action_space = action_space(self.model)
    self._world_seed = None
    self._episode = 0
    self._warnings_seen = np.zeros_like(self._batch.warning_number)
    self._elapsed = np.zeros(1, np.int64)  # end_step's episode counter; the TimeLimit wrapper truncates
    self._stepped = np.ones(1, np.bool_)
    self._needs_reset = True
    self._closed = False

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

  def state_vector(self):
    """(nq + nv,) qpos then qvel."""
    return np.concatenate([self.data.qpos, self.data.qvel])

  def set_state(self, qpos, qvel):
    """Sets qpos (nq,) and qvel (nv,) and recomputes every derived quantity (sensors included)."""
    qpos, qvel = np.asarray(qpos, np.float64), np.asarray(qvel, np.float64)
    if qpos.shape != (self.model.nq,) or qvel.shape != (self.model.nv,):
      raise ValueError(f"set_state needs qpos ({self.model.nq},) and qvel ({self.model.nv},), got {qpos.shape} "
                       f"and {qvel.shape}")
    self.data.qpos[:] = qpos
    self.data.qvel[:] = qvel
    settle(self._batch, self.task, self.observation, self._world, self._carry)

  def do_simulation(self, ctrl, n_frames):
    """Applies ``ctrl`` (nu,) and steps the physics ``n_frames`` times, then mj_rnePostConstraint (Gymnasium's
    ``do_simulation``)."""
    ctrl = np.asarray(ctrl)
    if ctrl.shape != (self.model.nu,):
      raise ValueError(f"action has shape {ctrl.shape}, expected ({self.model.nu},)")
    self.data.ctrl[:] = ctrl
    self._batch.step_rne(int(n_frames))

  # ------------------------------------------------------------------ gymnasium API

  def reset(self, *, seed=None, options=None):
    """Starts an episode; ``options``: ``{"qpos": (nq,), "qvel": (nv,)}`` (either or both) sets the start
    state instead of the task's draw for those parts."""
    super().reset(seed=seed)
    if seed is not None:
      self._world_seed, self._episode = seed_to_uint64(seed), 0
    elif self._world_seed is None:
      self._world_seed, self._episode = seed_to_uint64(self.np_random.integers(0, 2**63)), 0
    else:
      self._episode += 1
    b = self._batch
    b.reset()
    self._warnings_seen[:] = 0
    self._elapsed[:] = 0
    self.task.reset(b, self._world, Noise(episode_keys([self._world_seed], [self._episode])), self._carry)
    for key, size in (("qpos", self.model.nq), ("qvel", self.model.nv)):
      if options and key in options:
        value = np.asarray(options[key], np.float64)
        if value.shape != (size,):
          raise ValueError(f"options['{key}'] must have shape ({size},), got {value.shape}")
        getattr(b, key)[0] = value
    settle(b, self.task, self.observation, self._world, self._carry)
    self._needs_reset = False
    obs = observe(b, self.task, self.observation)
    scrub(obs, np.zeros(1), self._stepped)  # a broken state is reported by the step that follows
    return self.present(obs[0]), {k: v[0] for k, v in self.task.reset_info(b).items()}

  def step(self, action):
    if self._closed:
      raise gym.error.ClosedEnvironmentError(f"{type(self).__name__}: step() after close()")
    if self._needs_reset:
      raise gym.error.ResetNeeded(f"{type(self).__name__}: call reset() before step()")
    action, bad_action = checked_actions(action, (self.model.nu,), "action")
    action = action.reshape(1, self.model.nu)
    b = self._batch
    b.ctrl[:] = action
    reward, terminated, info = advance(b, self.task, self.observation, self.frame_skip, action, self._carry)
    info = {k: v[0] for k, v in info.items()}
    obs = observe(b, self.task, self.observation)
    nonfinite = scrub(obs, reward, self._stepped)
    diverged, _ = end_step(b.warning_number, self._warnings_seen, DIVERGENCE, self._elapsed, self._stepped, -1)
    for key, flag in (("divergence", diverged), ("bad_action", bad_action), ("nonfinite", nonfinite)):
      if flag[0]:
        info[key] = True
    truncated = bool(diverged[0] or nonfinite[0])
    return self.present(obs[0]), float(reward[0]), bool(terminated[0]), truncated, info

  def present(self, obs):
    """Observations as the agent gets them from flat ones (..., n): in the observation dtype, split into the
    Task's parts (``split_observation``) for ``observation="dict"``."""
    obs = obs.astype(self._obs_dtype, copy=False)
    return split_observation(self.task.layout, obs) if self.observation == "dict" else obs

  def render(self):
    if self.render_mode is None:
      gym.logger.warn("render() called without a render_mode; pass render_mode='rgb_array' to gym.make")
      return None
    if self._renderer is None:
      self._renderer = physics.Renderer(self.model, height=self.height, width=self.width)
      if self.render_mode == "depth_array":
        self._renderer.enable_depth_rendering()
    self._renderer.update_scene(self.data, camera=self.camera, scene_option=self.scene_option)
    frame = self._renderer.render()
    if self.render_mode == "human":
      show(frame)
      return None
    return frame

  def close(self):
    self._closed = True
    if self._renderer is not None:
      self._renderer.close()
      self._renderer = None


def advance(b, task, observation, frame_skip, action, carry, mask=None):
  """One env step of the worlds of ``mask`` (ctrl already set): physics, then the task's (reward, terminated,
  info), then the forward pass the sensor observation needs. The one sequence both front doors run."""
  fused = observation != "v5" and not task.reads_derived
  if fused and task.held_sensors is not None:  # the new state evaluated, the held sensors put back
    b.step_derived(frame_skip, mask)
    held = b.sensordata[:, task.held_sensors]
    b.observe(mask)
    b.sensordata[:, task.held_sensors] = held
  elif fused:  # the reward reads the new state: one call steps and observes
    b.step_observe(frame_skip, mask)
  elif observation != "v5":  # the observe below ends with the step1 that the next step starts from
    b.step_derived(frame_skip, mask)
  else:
    b.step_rne(frame_skip, mask)
  result = task.post_step(b, action, carry)
  if observation != "v5" and not fused:
    b.observe(mask)
  return result


def settle(b, task, observation, worlds, carry, mask=None):
  """After the state of ``worlds`` (= where ``mask``) was set: forward dynamics (and mj_rnePostConstraint for
  the sensor observation), then the task's carry. The v5 observation stops at mj_forward, as Gymnasium's
  ``set_state`` does."""
  if observation != "v5":
    b.observe(mask)
  else:
    b.forward(mask)
  task.start(b, worlds, carry)


def observe(b, task, observation):
  """(W, n) float64 observation of every world."""
  return task.observe_v5(b) if observation == "v5" else task.observe_sensors(b)


def checked_actions(actions, shape, what):
  """(actions as a C-contiguous float64 array, bad (W,) bool) after checking dtype and ``shape``.

  The env layer's rule for bad actions, the same in every front end: a row (a world's action) with an entry that
  is NaN, infinite or beyond MuJoCo's mjMAXVAL (1e10) is replaced by zeros (in a copy; the caller's array is left
  alone) and flagged, so the world steps with zero control as MuJoCo's BADCTRL handling does, its reward's
  control cost is that of zero control, and its info has ``bad_action=True``. A shape or dtype that is not the
  expected one is an error naming the expected shape.
  """
  a = np.asarray(actions)
  if a.dtype.kind not in "biuf":
    raise TypeError(f"{what} must be real numbers of shape {shape}, got dtype {a.dtype}")
  if a.shape != shape:
    raise ValueError(f"{what} has shape {a.shape}, expected {shape}")
  a = np.ascontiguousarray(a, dtype=np.float64)
  bad = _bad_rows(a.reshape(-1, shape[-1]))
  if bad.any():
    a = a.copy()
    a.reshape(-1, shape[-1])[bad] = 0.0
  return a, bad


@njit(cache=True)
def _bad_rows(actions):
  """(W,) bool: the rows of ``actions`` (W, nu) with an entry that is NaN or beyond +-mjMAXVAL."""
  bad = np.zeros(actions.shape[0], np.bool_)
  for w in range(actions.shape[0]):
    for x in actions[w]:
      if not -_MAXVAL <= x <= _MAXVAL:
        bad[w] = True
  return bad


@njit(cache=True)
def scrub(obs, reward, mask):
  """The guard before anything reaches an agent: in the worlds where ``mask`` (W,) is true, a row of ``obs``
  (W, n) float64 with a non-finite entry and a non-finite ``reward`` (W,) are set to zero in place. Returns
  (W,) bool of the worlds scrubbed (the env truncates them and says ``nonfinite=True`` in info)."""
  nonfinite = np.zeros(obs.shape[0], np.bool_)
  for w in range(obs.shape[0]):
    if not mask[w]:
      continue
    if not np.isfinite(reward[w]):
      reward[w] = 0.0
      nonfinite[w] = True
    for x in obs[w]:
      if not np.isfinite(x):
        obs[w, :] = 0.0
        nonfinite[w] = True
        break
  return nonfinite


def _scene_option(visual_options):
  """An MjvOption with Gymnasium's ``visual_options`` ({mjtVisFlag: bool}) applied, or None for the defaults."""
  if not visual_options:
    return None
  option = physics.MjvOption()
  for flag, on in visual_options.items():
    if not 0 <= int(flag) < len(option.flags):
      raise ValueError(f"visual_options: {flag!r} is not an mjtVisFlag (0 to {len(option.flags) - 1})")
    option.flags[int(flag)] = bool(on)
  return option


def _camera(model, camera, camera_id, camera_name, config, default):
  """The renderer's camera: a name or id given, else Gymnasium's free-camera config, else the env's default."""
  given = [c for c in (camera, camera_id, camera_name) if c is not None]
  if len(given) > 1:
    raise ValueError("give at most one of camera, camera_id and camera_name")
  if given:
    return given[0]
  if config:
    cam = physics.MjvCamera()
    for key, value in config.items():
      if not hasattr(cam, key):
        raise ValueError(f"default_camera_config: unknown camera setting {key!r}")
      setattr(cam, key, np.array(value, float) if key == "lookat" else value)
    if "trackbodyid" in config:
      cam.type = 1
    return cam
  if isinstance(default, str) and physics.mj_name2id(model, physics.mjtObj.mjOBJ_CAMERA, default) < 0:
    return -1
  return default

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

  The divergence counts are consumed (set to 0): an autoreset clears the warning statistics as in MuJoCo,
  leaving the count of its warning at 1, so a count that did not rise can still hide a new reset.
  """
  nworld = number.shape[0]
  diverged = np.zeros(nworld, np.bool_)
  truncated = np.zeros(nworld, np.bool_)
  for w in range(nworld):
    for k in divergence:
      if number[w, k] > seen[w, k]:
        diverged[w] = True
      number[w, k] = 0
    seen[w, :] = number[w, :]
    if stepped[w]:
      elapsed[w] += 1
    truncated[w] = diverged[w] or (max_episode_steps >= 0 and elapsed[w] >= max_episode_steps)
  return diverged, truncated


@njit(cache=True, inline="always")
def sum_sq(x):
  """Sum of squares of a 1-d array, in index order."""
  total = 0.0
  for v in x:
    total += v * v
  return total


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
