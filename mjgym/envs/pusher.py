"""MjPusher-v0: Gymnasium's Pusher-v5 on mjgym's physics."""

from typing import NamedTuple

import numpy as np
from numba import njit

from mjgym.envs.base import MjEnv
from mjgym.envs.base import Task
from mjgym.envs.base import sum_sq


class PusherParams(NamedTuple):
  reward_near_weight: float = 0.5
  reward_dist_weight: float = 1.0
  reward_control_weight: float = 0.1


class PusherTask(Task):
  """Pusher-v5's reward and reset, for many worlds at once (see MjPusherEnv)."""

  Params = PusherParams
  info_keys = ("reward_dist", "reward_ctrl", "reward_near")
  reads_derived = True

  def bind(self, model, dt):
    super().bind(model, dt)
    self.bodies = np.array([model.body(name).id for name in ("tips_arm", "object", "goal")])

  def reset(self, b, worlds, noise, carry):
    qpos = np.repeat(self.init_qpos[None], len(worlds), axis=0)
    qpos[:, -4:-2] = noise.uniform_until([-0.3, -0.2], [0.0, 0.2], lambda c: np.hypot(c[:, 0], c[:, 1]) > 0.17)
    qpos[:, -2:] = 0.0  # the goal
    qvel = self.init_qvel + noise.uniform(-0.005, 0.005, self.model.nv)
    qvel[:, -4:] = 0.0
    b.qpos[worlds], b.qvel[worlds] = qpos, qvel

  def post_step(self, b, action, carry):
    reward, info = _step(self.p, self.bodies, b.xpos, action)
    return reward, np.zeros(len(reward), np.bool_), self.info_dict(info)

  def observe_v5(self, b):
    w = b.qpos.shape[0]
    return np.concatenate([b.qpos[:, :7], b.qvel[:, :7], b.xpos[:, self.bodies].reshape(w, 9)], axis=1)

  def observation_structure(self, v5):
    return {"qpos": 7, "qvel": 7, "tips_arm": 3, "object": 3, "goal": 3}


@njit(cache=True)
def _step(p, bodies, xpos, action):
  """(reward (W,), info (3, W): reward_dist, reward_ctrl, reward_near) from the bodies' xpos after the step;
  ``bodies``: ids of tips_arm, object, goal."""
  nworld = xpos.shape[0]
  tip, obj, goal = bodies[0], bodies[1], bodies[2]
  reward = np.empty(nworld)
  info = np.empty((3, nworld))
  for w in range(nworld):
    near = -np.sqrt(sum_sq(xpos[w, obj] - xpos[w, tip])) * p.reward_near_weight
    dist = -np.sqrt(sum_sq(xpos[w, obj] - xpos[w, goal])) * p.reward_dist_weight
    ctrl = -sum_sq(action[w]) * p.reward_control_weight
    reward[w] = dist + ctrl + near
    info[0, w], info[1, w], info[2, w] = dist, ctrl, near
  return reward, info


class MjPusherEnv(MjEnv):
  """Push a cylinder to a goal with a seven-joint arm: Gymnasium's Pusher-v5.

  ## Description
  A PR2-like arm (shoulder pan/lift, upper-arm roll, elbow flex, forearm roll, wrist flex/roll) on a table
  pushes a cylinder (two slide joints) to a goal (two slide joints, not moving). The model
  (``mjgym/assets/pusher.xml``) is Gymnasium v5's ``pusher_v5.xml`` to the last compiled field, plus sensors.

  ## Action Space
  ``Box(-2, 2, (7,), float32)``: torques of the seven arm joints.

  ## Observation Space
  ``Box(-inf, inf, (23,), obs_dtype)``: the model's sensordata, in Pusher-v5's order.

  | Num   | Observation                               | Sensors                 | Unit  |
  |-------|-------------------------------------------|-------------------------|-------|
  | 0-6   | the seven arm joint angles                | <joint>_pos             | rad   |
  | 7-13  | the seven arm joint velocities            | <joint>_vel             | rad/s |
  | 14-16 | origin of the arm's tip body (xpos)       | tips_arm_pos            | m     |
  | 17-19 | origin of the object body                 | object_pos              | m     |
  | 20-22 | origin of the goal body                   | goal_pos                | m     |

  Pusher-v5 (its get_body_com is xpos) reads the three positions from Data as MuJoCo leaves it after mj_step
  (one physics step stale); our sensors read the new state. ``observation="v5"`` returns exactly v5's numbers.

  ## Rewards
  ``reward = reward_dist + reward_ctrl + reward_near``, each in ``info``:
  - ``reward_near``: ``-reward_near_weight * |object - tips_arm|``;
  - ``reward_dist``: ``-reward_dist_weight * |object - goal|`` (body positions xpos as Data holds them after the
    step, as in v5);
  - ``reward_ctrl``: ``-reward_control_weight * sum(action²)``.

  ## Starting State
  Arm at ``qpos0``; the cylinder uniform in [-0.3, 0] × [-0.2, 0.2] at more than 0.17 from the goal (rejection
  sampling); the goal at (0, 0); arm velocities uniform in [-0.005, 0.005], object and goal at rest.

  ## Episode End
  - Termination: none.
  - Truncation: 100 steps; also when the physics diverges (``info["divergence"]``).

  ## Arguments
  | Argument | Default | Meaning |
  |----------|---------|---------|
  | xml_file | mjgym's pusher.xml | MJCF with the same bodies, joints and sensors |
  | frame_skip | 5 | physics steps per env step (dt = 0.05 s) |
  | reward_near_weight | 0.5 | weight of the tip-object distance |
  | reward_dist_weight | 1 | weight of the object-goal distance |
  | reward_control_weight | 0.1 | weight of the control cost |
  | observation, obs_dtype, render_mode, width, height, camera | see ``MjEnv`` | |

  ## Version History
  - v0: Gymnasium's Pusher-v5 model and task.
  """

  task_class = PusherTask
  xml = "pusher.xml"
  default_frame_skip = 5
  default_camera = "fixed"
