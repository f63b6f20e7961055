"""The suite's hopper domain: stand, hop."""

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


class HopperParams(NamedTuple):
  hop_speed: float = 0.0
  stand_height: float = 0.6


class HopperTask(DmcTask):
  """dm_control's ``hopper.Hopper`` for many worlds at once."""

  Params = HopperParams

  def __init__(self, params):
    super().__init__(params)
    self.info_keys = ("reward_standing", "reward_hopping" if params.hop_speed else "reward_small_control")

  def bind(self, model, dt):
    super().bind(model, dt)
    body, sensor = physics.mjtObj.mjOBJ_BODY, physics.mjtObj.mjOBJ_SENSOR
    self.torso = physics.mj_name2id(model, body, "torso")
    self.foot = physics.mj_name2id(model, body, "foot")
    self.speed_adr = int(model.sensor_adr[physics.mj_name2id(model, sensor, "torso_subtreelinvel")])
    self.touch_adr = np.array([model.sensor_adr[physics.mj_name2id(model, sensor, name)]
                               for name in ("touch_toe", "touch_heel")], np.intp)
    self.held_sensors = self.touch_adr

  def observation_layout(self, model):
    return (("position", (model.nq - 1,)), ("velocity", (model.nv,)), ("touch", (2,)))

  def reset(self, b, worlds, noise, carry):
    qpos = b.qpos[worlds]
    randomize_limited_and_rotational_joints(self.model, qpos, noise)
    b.qpos[worlds] = qpos

  def observe_sensors(self, b):
    return _observe(b.qpos, b.qvel, b.sensordata, self.touch_adr)

  def post_step(self, b, action, carry):
    reward, terms = _reward(b.xipos, b.sensordata, b.ctrl, self.torso, self.foot, self.speed_adr,
                            self.p.stand_height, self.p.hop_speed)
    return reward, np.zeros(len(reward), np.bool_), self.info_dict(terms)


@njit(cache=True)
def _observe(qpos, qvel, sensordata, touch_adr):
  """(W, n): qpos without rootx, qvel, log(1 + touch) of toe and heel."""
  nworld, nq, nv = qpos.shape[0], qpos.shape[1], qvel.shape[1]
  obs = np.empty((nworld, nq - 1 + nv + 2))
  for w in range(nworld):
    obs[w, :nq - 1] = qpos[w, 1:]
    obs[w, nq - 1:nq - 1 + nv] = qvel[w]
    obs[w, nq - 1 + nv] = math.log1p(sensordata[w, touch_adr[0]])
    obs[w, nq + nv] = math.log1p(sensordata[w, touch_adr[1]])
  return obs


@njit(cache=True)
def _reward(xipos, sensordata, ctrl, torso, foot, speed_adr, stand_height, hop_speed):
  """(reward (W,), terms (2, W) as HopperTask.info_keys) of every world."""
  nworld, nu = ctrl.shape
  reward = np.empty(nworld)
  terms = np.empty((2, nworld))
  for w in range(nworld):
    height = xipos[w, torso, 2] - xipos[w, foot, 2]
    standing = tolerance_kernel(height, stand_height, 2.0, 0.0, rewards.GAUSSIAN, 0.1)
    if hop_speed:
      second = tolerance_kernel(sensordata[w, speed_adr], hop_speed, np.inf, hop_speed / 2, rewards.LINEAR, 0.5)
    else:
      control = 0.0
      for i in range(nu):
        control += tolerance_kernel(ctrl[w, i], 0.0, 0.0, 1.0, rewards.QUADRATIC, 0.0)
      second = (control / nu + 4.0) / 5.0
    terms[0, w], terms[1, w] = standing, second
    reward[w] = standing * second
  return reward, terms


class MjDMCHopperEnv(DmcEnv):
  """The DeepMind Control Suite's planar hopper: stand up, or hop forward.

  ## Description
  A one-legged planar robot (root slides ``rootx``, ``rootz`` and hinge ``rooty``; waist, hip, knee, ankle) on
  a 100 m floor, with touch sensors at toe and heel; Euler at 200 Hz, 4 physics steps per control step.
  mjgym's own model, ``mjgym/assets/dmc/hopper.xml``, compiled equal to dm_control's. The two tasks are this
  class with the registered arguments:

  | Id | hop_speed |
  |----|-----------|
  | MjDMC/hopper-stand-v0 | 0 |
  | MjDMC/hopper-hop-v0 | 2 |

  ## Action Space
  ``Box(-1, 1, (4,), float32)``: torques of waist, hip, knee, ankle (× gears 30, 40, 30, 10).

  ## Observation Space
  dm_control's dict in its order, flat ``Box(-inf, inf, (15,), obs_dtype)`` by default:

  | Key | Num | Quantity | Unit |
  |-----|-----|----------|------|
  | position | 0-5 | qpos without rootx: rootz, rooty, waist, hip, knee, ankle | m, rad |
  | velocity | 6-12 | qvel | m/s, rad/s |
  | touch | 13-14 | log(1 + touch force) at toe and heel | log N |

  The touch sensors read as dm_control reads them after its step: their values from the last physics step's
  state before integration (mj_step1 does not evaluate acceleration-stage sensors).

  ## Rewards
  ``standing * second``, both in ``info``: standing = 1 while the torso's centre of mass is between
  ``stand_height`` and 2 m above the foot's, else 0. Stand task (``hop_speed`` = 0): second = small_control =
  (4 + mean of tolerance(action, margin=1, value_at_margin=0, quadratic)) / 5. Hop task: second = hopping =
  tolerance(torso subtree's x velocity, bounds=(hop_speed, inf), margin=hop_speed / 2, value_at_margin=0.5,
  linear).

  ## Starting State
  dm_control's ``randomize_limited_and_rotational_joints``: the root hinge uniform in [-π, π], the other hinges
  uniform in their ranges, at rest.

  ## Episode End
  - Termination: none.
  - Truncation: 1000 steps (20 s, registration); or when the physics diverges (``info["divergence"]``).

  ## Arguments
  | Argument | Default | Meaning |
  |----------|---------|---------|
  | hop_speed | 0.0 | speed of full hopping reward, m/s (0: the stand task) |
  | stand_height | 0.6 | least height of the torso above the foot that counts as standing, m |
  | observation | "flat" | "flat" (one Box) or "dict" (dm_control's keys) |
  | frame_skip | 4 | physics steps per env step (dt = 0.02 s, dm_control's control timestep) |
  | obs_dtype | float64 | observation dtype |
  | camera | cam0 | MJCF camera of render() (it follows the hopper) |
  | render_mode, width, height | None, 480, 480 | rendering (rgb_array, depth_array, human) |

  ## Version History
  - v0: initial version.
  """

  task_class = HopperTask
  xml = "dmc/hopper.xml"
  default_frame_skip = 4
  default_camera = "cam0"
