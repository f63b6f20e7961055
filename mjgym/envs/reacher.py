"""MjReacher-v0: Gymnasium's Reacher-v5 on mjgym's physics."""

from typing import NamedTuple

import numpy as np
from numba import njit

from mjgym.envs.base import MjEnv
from mjgym.envs.base import Task
from mjgym.envs.base import sum_sq


class ReacherParams(NamedTuple):
  reward_dist_weight: float = 1.0
  reward_control_weight: float = 1.0


class ReacherTask(Task):
  """Reacher-v5's reward and reset, for many worlds at once (see MjReacherEnv)."""

  Params = ReacherParams
  info_keys = ("reward_dist", "reward_ctrl")
  reads_derived = True

  def bind(self, model, dt):
    super().bind(model, dt)
    self.fingertip, self.target = model.body("fingertip").id, model.body("target").id

  def reset(self, b, worlds, noise, carry):
    qpos = self.init_qpos + noise.uniform(-0.1, 0.1, self.model.nq)
    qpos[:, -2:] = noise.uniform_until([-0.2, -0.2], [0.2, 0.2], lambda g: np.hypot(g[:, 0], g[:, 1]) < 0.2)
    qvel = self.init_qvel + noise.uniform(-0.005, 0.005, self.model.nv)
    qvel[:, -2:] = 0.0
    b.qpos[worlds], b.qvel[worlds] = qpos, qvel

  def post_step(self, b, action, carry):
    reward, info = _step(self.p, self.fingertip, self.target, b.xpos, action)
    return reward, np.zeros(len(reward), np.bool_), self.info_dict(info)

  def observe_v5(self, b):
    q = b.qpos
    to_target = b.xpos[:, self.fingertip, :2] - b.xpos[:, self.target, :2]
    return np.concatenate([np.cos(q[:, :2]), np.sin(q[:, :2]), q[:, 2:], b.qvel[:, :2], to_target], axis=1)

  def observation_structure(self, v5):
    if v5:
      return {"cos_qpos": 2, "sin_qpos": 2, "target": 2, "qvel": 2, "fingertip_to_target": 2}
    return {"qpos": 4, "qvel": 2, "fingertip_to_target": 3}


@njit(cache=True)
def _step(p, fingertip, target, xpos, action):
  """(reward (W,), info (2, W): reward_dist, reward_ctrl) from the bodies' xpos after the step."""
  nworld = xpos.shape[0]
  reward = np.empty(nworld)
  info = np.empty((2, nworld))
  for w in range(nworld):
    dist = -np.sqrt(sum_sq(xpos[w, fingertip] - xpos[w, target])) * p.reward_dist_weight
    ctrl = -sum_sq(action[w]) * p.reward_control_weight
    reward[w] = dist + ctrl
    info[0, w], info[1, w] = dist, ctrl
  return reward, info


class MjReacherEnv(MjEnv):
  """Move the tip of a two-joint planar arm to a random target: Gymnasium's Reacher-v5.

  ## Description
  A two-link arm on a table (two hinge motors) and a target on two slide joints (not actuated). The model
  (``mjgym/assets/reacher.xml``) is Gymnasium v5's ``reacher.xml`` to the last compiled field, plus sensors.

  ## Action Space
  ``Box(-1, 1, (2,), float32)``: torques (gear 200, N·m) of joint0 and joint1.

  ## Observation Space
  ``Box(-inf, inf, (9,), obs_dtype)`` by default, the model's sensordata:

  | Num | Observation                                     | Sensors                   | Unit  |
  |-----|-------------------------------------------------|---------------------------|-------|
  | 0-1 | angles of the two arm joints                    | joint0_pos, joint1_pos    | rad   |
  | 2-3 | target x, y                                     | target_x_pos, target_y_pos | m    |
  | 4-5 | angular velocities of the two arm joints        | joint0_vel, joint1_vel    | rad/s |
  | 6-8 | fingertip minus target (x, y, z), body origins | fingertip_minus_target    | m     |

  Reacher-v5 observes the cosines and sines of the angles (no sensor gives them), only x and y of the
  fingertip-target vector, and reads that vector from Data as MuJoCo leaves it after mj_step (one physics
  step stale); our sensors read the new state. ``observation="v5"`` returns exactly v5's 10 numbers.

  ## Rewards
  ``reward = reward_dist + reward_ctrl``, both in ``info``:
  - ``reward_dist``: ``-reward_dist_weight * |fingertip - target|`` (body frames' origins xpos, as Data holds
    them after the step, as in v5);
  - ``reward_ctrl``: ``-reward_control_weight * sum(action²)``.

  ## Starting State
  Arm joints ``qpos0`` plus uniform noise in [-0.1, 0.1]; target uniform in the disc of radius 0.2 (rejection
  sampling in the square [-0.2, 0.2]²); arm velocities uniform in [-0.005, 0.005], the target at rest.

  ## Episode End
  - Termination: none.
  - Truncation: 50 steps; also when the physics diverges (``info["divergence"]``).

  ## Arguments
  | Argument | Default | Meaning |
  |----------|---------|---------|
  | xml_file | mjgym's reacher.xml | MJCF with the same bodies, joints and sensors |
  | frame_skip | 2 | physics steps per env step (dt = 0.02 s) |
  | reward_dist_weight | 1 | weight of the distance |
  | reward_control_weight | 1 | weight of the control cost |
  | observation, obs_dtype, render_mode, width, height, camera | see ``MjEnv`` | |

  ## Version History
  - v0: Gymnasium's Reacher-v5 model and task.
  """

  task_class = ReacherTask
  xml = "reacher.xml"
  default_frame_skip = 2
  default_camera = "fixed"
