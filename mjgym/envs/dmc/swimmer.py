"""The suite's swimmer domain: swimmer6, swimmer15."""

import math
from typing import NamedTuple

import numpy as np
from numba import njit

from mjgym import physics
from mjgym.envs import rewards
from mjgym.envs.dmc import DmcEnv
from mjgym.envs.dmc import DmcTask
from mjgym.envs.dmc import randomize_limited_and_rotational_joints
from mjgym.envs.rewards import tolerance_kernel

_ROOT_QPOS = 3  # rootx, rooty, rootz
_BODY_SENSORS = 12  # nose_pos, target_pos, head_xaxis, head_yaxis come before the velocimeter/gyro pairs


class SwimmerParams(NamedTuple):
  close_target_probability: float = 0.2
  close_target_box: float = 0.3
  far_target_box: float = 2.0


class SwimmerTask(DmcTask):
  """dm_control's ``swimmer.Swimmer`` for many worlds at once. The target is a geom of the world body in a model
  without contacts, lit by its own light: its (x, y), drawn every episode, live in each world's carry and are
  written into ``geom_xpos``, the ``target_pos`` sensor and the light's ``light_xpos`` whenever kinematics have
  run."""

  Params = SwimmerParams
  info_keys = ("reward_near_target", "distance")
  ncarry = 2

  def bind(self, model, dt):
    super().bind(model, dt)
    obj = physics.mjtObj
    self.head = physics.mj_name2id(model, obj.mjOBJ_BODY, "head")
    self.nose = physics.mj_name2id(model, obj.mjOBJ_GEOM, "nose")
    self.target = physics.mj_name2id(model, obj.mjOBJ_GEOM, "target")
    self.light = physics.mj_name2id(model, obj.mjOBJ_LIGHT, "target_light")
    self.target_adr = int(model.sensor_adr[physics.mj_name2id(model, obj.mjOBJ_SENSOR, "target_pos")])
    self.target_size = float(model.geom_size[self.target, 0])

  def observation_layout(self, model):
    return (("joints", (model.nq - _ROOT_QPOS,)), ("to_target", (2,)),
            ("body_velocities", ((model.nsensordata - _BODY_SENSORS) // 2,)))

  def reset(self, b, worlds, noise, carry):
    qpos = b.qpos[worlds]
    randomize_limited_and_rotational_joints(self.model, qpos, noise)
    b.qpos[worlds] = qpos
    close = noise.uniform(0.0, 1.0, 1)[:, 0] < self.p.close_target_probability
    box = np.where(close, self.p.close_target_box, self.p.far_target_box)[:, None]
    carry[worlds] = box * noise.uniform(-1.0, 1.0, 2)

  def start(self, b, worlds, carry):
    _place_target(b.geom_xpos, b.sensordata, b.light_xpos, carry, worlds, self.target, self.target_adr, self.light)

  def observe_sensors(self, b):
    return _observe(b.qpos, b.geom_xpos, b.xmat, b.sensordata, self.head, self.nose, self.target)

  def post_step(self, b, action, carry):
    _place_target(b.geom_xpos, b.sensordata, b.light_xpos, carry, np.arange(len(carry)), self.target,
                  self.target_adr, self.light)
    reward, terms = _reward(b.geom_xpos, b.xmat, self.head, self.nose, self.target, self.target_size)
    return reward, np.zeros(len(reward), np.bool_), self.info_dict(terms)


@njit(cache=True)
def _place_target(geom_xpos, sensordata, light_xpos, carry, worlds, target, target_adr, light):
  for w in worlds:
    for i in range(2):
      geom_xpos[w, target, i] = sensordata[w, target_adr + i] = light_xpos[w, light, i] = carry[w, i]


@njit(cache=True, inline="always")
def _nose_to_target(geom_xpos, xmat, w, head, nose, target, j):
  """Entry j of the target minus the nose, in the head's frame."""
  total = 0.0
  for i in range(3):
    total += (geom_xpos[w, target, i] - geom_xpos[w, nose, i]) * xmat[w, head, 3 * i + j]
  return total


@njit(cache=True)
def _observe(qpos, geom_xpos, xmat, sensordata, head, nose, target):
  """(W, n): the joints' angles, the target in the head's frame (x, y), each body's local (vx, vy, wz) from its
  velocimeter and gyro."""
  nworld, nq = qpos.shape
  nj, nbody = nq - _ROOT_QPOS, (sensordata.shape[1] - _BODY_SENSORS) // 6
  obs = np.empty((nworld, nj + 2 + 3 * nbody))
  for w in range(nworld):
    obs[w, :nj] = qpos[w, _ROOT_QPOS:]
    obs[w, nj] = _nose_to_target(geom_xpos, xmat, w, head, nose, target, 0)
    obs[w, nj + 1] = _nose_to_target(geom_xpos, xmat, w, head, nose, target, 1)
    for k in range(nbody):
      adr = _BODY_SENSORS + 6 * k
      obs[w, nj + 2 + 3 * k] = sensordata[w, adr]
      obs[w, nj + 3 + 3 * k] = sensordata[w, adr + 1]
      obs[w, nj + 4 + 3 * k] = sensordata[w, adr + 5]
  return obs


@njit(cache=True)
def _reward(geom_xpos, xmat, head, nose, target, target_size):
  """(reward (W,), terms (2, W) as SwimmerTask.info_keys): long-tailed tolerance of the nose's distance to the
  target in the head's plane."""
  nworld = geom_xpos.shape[0]
  reward = np.empty(nworld)
  terms = np.empty((2, nworld))
  for w in range(nworld):
    dx = _nose_to_target(geom_xpos, xmat, w, head, nose, target, 0)
    dy = _nose_to_target(geom_xpos, xmat, w, head, nose, target, 1)
    distance = math.sqrt(dx * dx + dy * dy)
    reward[w] = tolerance_kernel(distance, 0.0, target_size, 5.0 * target_size, rewards.LONG_TAIL, 0.1)
    terms[0, w], terms[1, w] = reward[w], distance
  return reward, terms


class MjDMCSwimmer6Env(DmcEnv):
  """The DeepMind Control Suite's swimmer: swim the nose to a target (MjDMC/swimmer-swimmer6-v0; with 15 links,
  ``MjDMCSwimmer15Env``, MjDMC/swimmer-swimmer15-v0).

  ## Description
  A planar chain of n links (a head on slides ``rootx``, ``rooty`` and hinge ``rootz``, then n - 1 segments on
  hinges ``joint_0`` ... limited to ±360/n degrees, each with a motor) in a fluid of density 3000 without
  contacts; Euler at 500 Hz, 15 physics steps per control step. The target is a sphere of radius 0.1 m.
  mjgym's own models, ``mjgym/assets/dmc/swimmer6.xml`` and ``swimmer15.xml``, compiled equal to the models
  dm_control builds.

  ## Action Space
  ``Box(-1, 1, (n - 1,), float32)``: joint torques (× gear 5e-4, N m).

  ## Observation Space
  dm_control's dict in its order, flat ``Box(-inf, inf, (4n + 1,), obs_dtype)`` (25 for six links, 61 for 15):

  | Key | Num (n links) | Quantity | Unit |
  |-----|---------------|----------|------|
  | joints | 0 to n - 2 | the segments' joint angles | rad |
  | to_target | n - 1, n | target minus nose in the head's frame, x and y | m |
  | body_velocities | n + 1 to 4n | each body's local vx, vy (velocimeter) and wz (gyro), head first | m/s, rad/s |

  ## Rewards
  ``tolerance(distance, bounds=(0, 0.1), margin=0.5, long_tail)`` of the nose's distance to the target in the
  head's plane (``info``: ``reward_near_target``, ``distance``).

  ## Starting State
  The head's heading uniform in [-π, π], the joints uniform in their ranges, at rest. The target uniform in
  the square of half side ``close_target_box`` with probability ``close_target_probability``, else of half side
  ``far_target_box``, at the swimmer's height.

  ## Episode End
  - Termination: none.
  - Truncation: 1000 steps (30 s, registration); or when the physics diverges (``info["divergence"]``).

  ## Arguments
  | Argument | Default | Meaning |
  |----------|---------|---------|
  | close_target_probability | 0.2 | probability of a target close to the start |
  | close_target_box | 0.3 | half side of the square of close targets, m |
  | far_target_box | 2.0 | half side of the square of other targets, m |
  | observation | "flat" | "flat" (one Box) or "dict" (dm_control's keys) |
  | frame_skip | 15 | physics steps per env step (dt = 0.03 s, dm_control's control timestep) |
  | obs_dtype | float64 | observation dtype |
  | camera | tracking1 | MJCF camera of render() (it follows the swimmer) |
  | render_mode, width, height | None, 480, 480 | rendering (rgb_array, depth_array, human) |

  ## Version History
  - v0: initial version.
  """

  task_class = SwimmerTask
  xml = "dmc/swimmer6.xml"
  default_frame_skip = 15
  default_camera = "tracking1"


class MjDMCSwimmer15Env(MjDMCSwimmer6Env):
  """The DeepMind Control Suite's swimmer with 15 links (MjDMC/swimmer-swimmer15-v0): ``MjDMCSwimmer6Env``'s
  task on ``mjgym/assets/dmc/swimmer15.xml``; see that class for the tables.

  ## Arguments
  | Argument | Default | Meaning |
  |----------|---------|---------|
  | close_target_probability | 0.2 | probability of a target close to the start |
  | close_target_box | 0.3 | half side of the square of close targets, m |
  | far_target_box | 2.0 | half side of the square of other targets, m |
  | observation | "flat" | "flat" (one Box) or "dict" (dm_control's keys) |
  | frame_skip | 15 | physics steps per env step (dt = 0.03 s, dm_control's control timestep) |
  | obs_dtype | float64 | observation dtype |
  | camera | tracking1 | MJCF camera of render() (it follows the swimmer) |
  """

  xml = "dmc/swimmer15.xml"
