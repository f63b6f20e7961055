"""MjArmReach-v0: a 5-joint 3D arm reaching for a target sampled in its workspace."""

from typing import NamedTuple

import numpy as np
from numba import njit

from mjgym.envs.base import MjEnv
from mjgym.envs.base import Task


class ReachParams(NamedTuple):
  distance_weight: float = 1.0
  ctrl_cost_weight: float = 0.01
  success_distance: float = 0.05
  target_radius_range: tuple = (0.25, 0.75)
  target_elevation_range: tuple = (-0.5, 1.2)
  reset_noise_scale: float = 0.1


class ReachTask(Task):
  """MjArmReach's reward, success and target sampling, for many worlds at once."""

  Params = ReachParams

  def bind(self, model, dt):
    super().bind(model, dt)
    self.shoulder = model.body("shoulder").pos.copy()
    self.fingertip = model.site("fingertip").id
    self.target = model.site("target").id

  def reset(self, b, worlds, noise, carry):
    super().reset(b, worlds, noise, carry)
    r = noise.uniform(*self.p.target_radius_range, 1)[:, 0]
    elevation = noise.uniform(*self.p.target_elevation_range, 1)[:, 0]
    azimuth = noise.uniform(-np.pi, np.pi, 1)[:, 0]
    direction = np.stack([np.cos(elevation) * np.cos(azimuth), np.cos(elevation) * np.sin(azimuth),
                          np.sin(elevation)], axis=1)
    b.mocap_pos[worlds, 0] = self.shoulder + r[:, None] * direction

  def distance(self, b):
    """Fingertip-to-target distance of every world, (W,) m."""
    return _distance(b.site_xpos, self.fingertip, self.target)

  def post_step(self, b, action, carry):
    p = self.p
    reward, terms, success = _post_step(b.site_xpos, self.fingertip, self.target, action, p.distance_weight,
                                        p.ctrl_cost_weight, p.success_distance)
    info = {"reward_dist": terms[0], "reward_ctrl": terms[1], "distance": terms[2], "is_success": success}
    return reward, np.zeros(len(reward), np.bool_), info

  def reset_info(self, b):
    return {"distance": self.distance(b)}


@njit(cache=True)
def _distance(site_xpos, a, b):
  """(W,) distance between sites ``a`` and ``b`` in every world."""
  distance = np.empty(site_xpos.shape[0])
  for w in range(site_xpos.shape[0]):
    dx = site_xpos[w, a, 0] - site_xpos[w, b, 0]
    dy = site_xpos[w, a, 1] - site_xpos[w, b, 1]
    dz = site_xpos[w, a, 2] - site_xpos[w, b, 2]
    distance[w] = np.sqrt(dx * dx + dy * dy + dz * dz)
  return distance


@njit(cache=True)
def _post_step(site_xpos, fingertip, target, action, distance_weight, ctrl_cost_weight, success_distance):
  """(reward (W,), terms (3, W): reward_dist, reward_ctrl, distance; is_success (W,)) after a step."""
  nworld = site_xpos.shape[0]
  distance = _distance(site_xpos, fingertip, target)
  reward = np.empty(nworld)
  terms = np.empty((3, nworld))
  success = np.empty(nworld, np.bool_)
  for w in range(nworld):
    sum_sq = 0.0
    for j in range(action.shape[1]):
      sum_sq += action[w, j] * action[w, j]
    terms[0, w] = -distance_weight * distance[w]
    terms[1, w] = -ctrl_cost_weight * sum_sq
    terms[2, w] = distance[w]
    success[w] = distance[w] < success_distance
    reward[w] = terms[0, w] + terms[1, w]
  return reward, terms, success


class MjArmReachEnv(MjEnv):
  """Move the fingertip of a 3D arm to a target that changes every episode.

  ## Description
  A gravity-compensated arm on a pedestal: shoulder yaw and pitch, elbow, wrist pitch and wrist roll. The
  target is a mocap body placed at reset. mjgym's own model, ``mjgym/assets/arm_reach.xml``.

  ## Action Space
  ``Box(-1, 1, (5,), float32)``: joint torques, × gears 12, 12, 8, 3, 1 N·m, for shoulder_yaw,
  shoulder_pitch, elbow, wrist_pitch, wrist_roll.

  ## Observation Space
  ``Box(-inf, inf, (16,), obs_dtype)``: sensordata.

  | Num   | Sensor        | Quantity                              | Unit  |
  |-------|---------------|---------------------------------------|-------|
  | 0-4   | jointpos      | the five joint angles                 | rad   |
  | 5-9   | jointvel      | the five joint velocities             | rad/s |
  | 10-12 | fingertip_pos | fingertip position (world frame)      | m     |
  | 13-15 | target_pos    | target position (world frame)         | m     |

  ## Rewards
  ``reward = reward_dist + reward_ctrl`` with ``reward_dist = -distance_weight * |fingertip - target|`` and
  ``reward_ctrl = -ctrl_cost_weight * sum(action²)``; both in ``info`` with ``distance`` and
  ``is_success`` (distance below ``success_distance``).

  ## Starting State
  Joints at 0 plus uniform noise in [-reset_noise_scale, reset_noise_scale]; the target uniformly in the
  shell ``target_radius_range`` around the shoulder, elevation in ``target_elevation_range``, any azimuth.

  ## Episode End
  - Termination: none.
  - Truncation: 200 steps (registration); or when the physics diverges (``info["divergence"]``).

  ## Arguments
  | Argument | Default | Meaning |
  |----------|---------|---------|
  | xml_file | mjgym's arm_reach.xml | MJCF with the same sensors, a mocap target and a shoulder body |
  | frame_skip | 4 | physics steps per env step (dt = 0.02 s) |
  | distance_weight | 1.0 | weight of the distance |
  | ctrl_cost_weight | 0.01 | weight of the control cost |
  | success_distance | 0.05 | distance counted as success, m |
  | target_radius_range | (0.25, 0.75) | target distance from the shoulder, m |
  | target_elevation_range | (-0.5, 1.2) | target elevation seen from the shoulder, rad |
  | reset_noise_scale | 0.1 | initial-state noise |
  | obs_dtype | float64 | observation dtype |
  | camera | side | MJCF camera of render() (it follows the robot where the model says so) |
  | render_mode, width, height | None, 480, 480 | rendering (rgb_array, depth_array, human) |

  ## Version History
  - v0: initial version.
  """

  task_class = ReachTask
  xml = "arm_reach.xml"
  default_frame_skip = 4
  default_camera = "side"

  def distance(self):
    """Fingertip-to-target distance, m."""
    return float(self.task.distance(self._batch)[0])
