"""The suite's finger domain: spin, turn_easy, turn_hard."""

import math
from typing import NamedTuple

import numpy as np
from numba import njit

from mjgym import physics
from mjgym.envs.dmc import DmcEnv
from mjgym.envs.dmc import DmcTask
from mjgym.envs.dmc import randomize_limited_and_rotational_joints
from mjgym.envs.dmc import until_contact_free

_SENSORS = ("proximal", "distal", "proximal_velocity", "distal_velocity", "hinge_velocity", "tip", "target",
            "spinner", "touchtop", "touchbottom")
_PROXIMAL, _DISTAL, _PROXIMAL_VEL, _DISTAL_VEL, _HINGE_VEL, _TIP, _TARGET, _SPINNER, _TOP, _BOTTOM = range(10)


class FingerParams(NamedTuple):
  turn: bool = False
  target_radius: float = 0.07
  spin_velocity: float = 15.0
  spin_damping: float = 0.03


class FingerTask(DmcTask):
  """dm_control's ``finger.Spin`` and ``finger.Turn`` for many worlds at once. Turn's target is a site of the
  world body placed anew every episode: its (x, z) live in each world's carry, and are written where the model's
  site would put them (``site_xpos`` and the ``target`` sensor) whenever the sensors have run."""

  Params = FingerParams

  def __init__(self, params):
    super().__init__(params)
    self.ncarry = 2 if params.turn else 0
    self.info_keys = ("reward_on_target", "dist_to_target") if params.turn else ("reward_spinning",)

  def bind(self, model, dt):
    super().bind(model, dt)
    obj = physics.mjtObj
    self.adr = np.array([model.sensor_adr[physics.mj_name2id(model, obj.mjOBJ_SENSOR, name)] for name in _SENSORS],
                        np.intp)
    self.held_sensors = self.adr[[_TOP, _BOTTOM]]
    self.target = physics.mj_name2id(model, obj.mjOBJ_SITE, "target")
    hinge = physics.mj_name2id(model, obj.mjOBJ_JOINT, "hinge")
    if self.p.turn:
      model.site_size[self.target, 0] = self.p.target_radius
      rest = physics.MjData(model)
      physics.mj_forward(model, rest)
      self.hinge_anchor = rest.xanchor[hinge, [0, 2]].copy()
      self.spinner_radius = float(model.geom_size[physics.mj_name2id(model, obj.mjOBJ_GEOM, "cap1")].sum())
    else:  # dm_control's spin task lowers the spinner's damping and hides the target and tip
      model.dof_damping[model.jnt_dofadr[hinge]] = self.p.spin_damping
      model.site_rgba[self.target, 3] = 0.0
      model.site_rgba[physics.mj_name2id(model, obj.mjOBJ_SITE, "tip"), 3] = 0.0

  def observation_layout(self, model):
    layout = (("position", (4,)), ("velocity", (3,)), ("touch", (2,)))
    return layout + ((("target_position", (2,)), ("dist_to_target", ())) if self.p.turn else ())

  def reset(self, b, worlds, noise, carry):
    until_contact_free(b, worlds, lambda qpos: randomize_limited_and_rotational_joints(self.model, qpos, noise))
    if self.p.turn:
      angle = noise.uniform(-np.pi, np.pi, 1)[:, 0]
      carry[worlds, 0] = self.hinge_anchor[0] + self.spinner_radius * np.sin(angle)
      carry[worlds, 1] = self.hinge_anchor[1] + self.spinner_radius * np.cos(angle)

  def start(self, b, worlds, carry):
    if self.p.turn:
      _place_target(b.site_xpos, b.sensordata, carry, worlds, self.target, self.adr[_TARGET])

  def observe_sensors(self, b):
    return _observe(b.sensordata, self.adr, self.p.turn, self.p.target_radius)

  def post_step(self, b, action, carry):
    if self.p.turn:
      _place_target(b.site_xpos, b.sensordata, carry, np.arange(len(carry)), self.target, self.adr[_TARGET])
    reward, terms = _reward(b.sensordata, self.adr, self.p.turn, self.p.target_radius, self.p.spin_velocity)
    return reward, np.zeros(len(reward), np.bool_), self.info_dict(terms)


@njit(cache=True)
def _place_target(site_xpos, sensordata, carry, worlds, target, target_adr):
  for w in worlds:
    site_xpos[w, target, 0] = sensordata[w, target_adr] = carry[w, 0]
    site_xpos[w, target, 2] = sensordata[w, target_adr + 2] = carry[w, 1]


@njit(cache=True, inline="always")
def _dist_to_target(s, adr, target_radius):
  """Distance from the tip to the target's edge (negative inside it), in the plane."""
  dx = (s[adr[_TARGET]] - s[adr[_SPINNER]]) - (s[adr[_TIP]] - s[adr[_SPINNER]])
  dz = (s[adr[_TARGET] + 2] - s[adr[_SPINNER] + 2]) - (s[adr[_TIP] + 2] - s[adr[_SPINNER] + 2])
  return math.sqrt(dx * dx + dz * dz) - target_radius


@njit(cache=True)
def _observe(sensordata, adr, turn, target_radius):
  """(W, n): joint angles and the tip relative to the spinner, velocities, log(1 + touch); for turn also the
  target relative to the spinner and the tip's distance to the target's edge."""
  nworld = sensordata.shape[0]
  obs = np.empty((nworld, 12 if turn else 9))
  for w in range(nworld):
    s = sensordata[w]
    obs[w, 0], obs[w, 1] = s[adr[_PROXIMAL]], s[adr[_DISTAL]]
    obs[w, 2] = s[adr[_TIP]] - s[adr[_SPINNER]]
    obs[w, 3] = s[adr[_TIP] + 2] - s[adr[_SPINNER] + 2]
    obs[w, 4], obs[w, 5], obs[w, 6] = s[adr[_PROXIMAL_VEL]], s[adr[_DISTAL_VEL]], s[adr[_HINGE_VEL]]
    obs[w, 7], obs[w, 8] = math.log1p(s[adr[_TOP]]), math.log1p(s[adr[_BOTTOM]])
    if turn:
      obs[w, 9] = s[adr[_TARGET]] - s[adr[_SPINNER]]
      obs[w, 10] = s[adr[_TARGET] + 2] - s[adr[_SPINNER] + 2]
      obs[w, 11] = _dist_to_target(s, adr, target_radius)
  return obs


@njit(cache=True)
def _reward(sensordata, adr, turn, target_radius, spin_velocity):
  """(reward (W,), terms as FingerTask.info_keys): spin, 1 while the spinner turns at ``spin_velocity`` or faster
  (clockwise seen along +y); turn, 1 while the tip is inside the target."""
  nworld = sensordata.shape[0]
  reward = np.empty(nworld)
  terms = np.empty((2 if turn else 1, nworld))
  for w in range(nworld):
    if turn:
      dist = _dist_to_target(sensordata[w], adr, target_radius)
      reward[w] = 1.0 if dist <= 0.0 else 0.0
      terms[1, w] = dist
    else:
      reward[w] = 1.0 if sensordata[w, adr[_HINGE_VEL]] <= -spin_velocity else 0.0
    terms[0, w] = reward[w]
  return reward, terms


class MjDMCFingerEnv(DmcEnv):
  """The DeepMind Control Suite's finger: spin a body, or turn it until its tip points at a target.

  ## Description
  A two-link planar finger (``proximal``, ``distal``, ±110°) with touch sensors at its tip, and a spinner on a
  hinge with friction loss (``hinge``). No gravity; elliptic friction cones; Euler at 100 Hz, 2 physics steps
  per control step. mjgym's own model, ``mjgym/assets/dmc/finger.xml``, compiled equal to dm_control's. The
  three tasks are this class with the registered arguments:

  | Id | turn | target_radius |
  |----|------|---------------|
  | MjDMC/finger-spin-v0 | False | - |
  | MjDMC/finger-turn_easy-v0 | True | 0.07 |
  | MjDMC/finger-turn_hard-v0 | True | 0.03 |

  The spin task sets the spinner's damping to ``spin_damping`` (the model has 0.5), as dm_control does.

  ## Action Space
  ``Box(-1, 1, (2,), float32)``: torques of proximal and distal (× gears 30, 15).

  ## Observation Space
  dm_control's dict in its order, flat ``Box(-inf, inf, (9,), obs_dtype)`` (spin) or ``(12,)`` (turn):

  | Key | Num | Quantity | Unit |
  |-----|-----|----------|------|
  | position | 0-3 | proximal, distal angles; spinner tip minus spinner centre in x and z | rad, m |
  | velocity | 4-6 | proximal, distal, spinner angular velocities | rad/s |
  | touch | 7-8 | log(1 + touch force) at the top and bottom of the fingertip | log N |
  | target_position | 9-10 | (turn) target minus spinner centre in x and z | m |
  | dist_to_target | 11 | (turn) distance from the spinner tip to the target's edge | m |

  The touch sensors read as dm_control reads them after its step: their values from the last physics step's
  state before integration (mj_step1 does not evaluate acceleration-stage sensors).

  ## Rewards
  Sparse. Spin: 1 while the spinner's angular velocity is at most ``-spin_velocity`` rad/s, else 0. Turn: 1
  while the spinner's tip is inside the target (``dist_to_target`` <= 0), else 0. In ``info``.

  ## Starting State
  All hinges uniform (limited ones in their range, the spinner in [-π, π]), drawn again while anything touches
  (dm_control's rejection), at rest. Turn: the target on the circle of the spinner's tip about its hinge, at a
  uniform angle in [-π, π].

  ## Episode End
  - Termination: none.
  - Truncation: 1000 steps (20 s, registration); or when the physics diverges (``info["divergence"]``).

  ## Arguments
  | Argument | Default | Meaning |
  |----------|---------|---------|
  | turn | False | the turn task (else spin) |
  | target_radius | 0.07 | turn: target radius, m |
  | spin_velocity | 15.0 | spin: angular speed of the reward, rad/s |
  | spin_damping | 0.03 | spin: the spinner's damping |
  | observation | "flat" | "flat" (one Box) or "dict" (dm_control's keys) |
  | frame_skip | 2 | physics steps per env step (dt = 0.02 s, dm_control's control timestep) |
  | obs_dtype | float64 | observation dtype |
  | camera | cam0 | MJCF camera of render() |
  | render_mode, width, height | None, 480, 480 | rendering (rgb_array, depth_array, human) |

  ## Version History
  - v0: initial version.
  """

  task_class = FingerTask
  xml = "dmc/finger.xml"
  default_frame_skip = 2
  default_camera = "cam0"
