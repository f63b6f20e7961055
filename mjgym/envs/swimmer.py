"""MjSwimmer-v0: Gymnasium's Swimmer-v5 on mjgym's physics."""

from typing import NamedTuple

import numpy as np
from numba import njit

from mjgym.envs.base import MjEnv
from mjgym.envs.base import Task
from mjgym.envs.base import sum_sq


class SwimmerParams(NamedTuple):
  forward_reward_weight: float = 1.0
  ctrl_cost_weight: float = 1e-4
  reset_noise_scale: float = 0.1
  exclude_current_positions_from_observation: bool = True


class SwimmerTask(Task):
  """Swimmer-v5's reward and reset, for many worlds at once (see MjSwimmerEnv)."""

  Params = SwimmerParams
  info_keys = ("x_position", "y_position", "distance_from_origin", "x_velocity", "y_velocity", "reward_forward",
               "reward_ctrl")
  skipped_qpos = 2
  ncarry = 2  # x, y before the step

  def start(self, b, worlds, carry):
    carry[worlds] = b.qpos[worlds, :2]

  def post_step(self, b, action, carry):
    reward, info = _step(self.p, self.dt, b.qpos, action, carry)
    return reward, np.zeros(len(reward), np.bool_), self.info_dict(info)

  def reset_info(self, b):
    return {"x_position": b.qpos[:, 0].copy(), "y_position": b.qpos[:, 1].copy(),
            "distance_from_origin": np.hypot(b.qpos[:, 0], b.qpos[:, 1])}


@njit(cache=True)
def _step(p, dt, qpos, action, carry):
  """(reward (W,), info (7, W), rows as SwimmerTask.info_keys); carry: (x, y) before -> after."""
  nworld = qpos.shape[0]
  reward = np.empty(nworld)
  info = np.empty((7, nworld))
  for w in range(nworld):
    vx, vy = (qpos[w, 0] - carry[w, 0]) / dt, (qpos[w, 1] - carry[w, 1]) / dt
    carry[w, 0], carry[w, 1] = qpos[w, 0], qpos[w, 1]
    forward = p.forward_reward_weight * vx
    ctrl = p.ctrl_cost_weight * sum_sq(action[w])
    reward[w] = forward - ctrl
    info[0, w], info[1, w] = qpos[w, 0], qpos[w, 1]
    info[2, w] = np.sqrt(qpos[w, 0] * qpos[w, 0] + qpos[w, 1] * qpos[w, 1])
    info[3, w], info[4, w], info[5, w], info[6, w] = vx, vy, forward, -ctrl
  return reward, info


class MjSwimmerEnv(MjEnv):
  """Make a three-link swimmer move forward through a viscous fluid: Gymnasium's Swimmer-v5.

  ## Description
  Three capsule links joined by two hinge motors, on a planar base (two slides, one hinge) in a fluid of
  viscosity 0.1 (Coulom 2002). The model (``mjgym/assets/swimmer.xml``) is Gymnasium v5's ``swimmer.xml`` to
  the last compiled field, plus sensors.

  ## Action Space
  ``Box(-1, 1, (2,), float32)``: torques (gear 150, N·m) of motor1_rot and motor2_rot.

  ## Observation Space
  ``Box(-inf, inf, (8,), obs_dtype)``: the model's sensordata, equal to Swimmer-v5's observation.

  | Num | Observation                                  | Sensors                          | Unit  |
  |-----|----------------------------------------------|----------------------------------|-------|
  | 0   | angle of the front tip                       | free_body_rot_pos                | rad   |
  | 1-2 | angles of the two rotors                     | motor1_rot_pos, motor2_rot_pos   | rad   |
  | 3-4 | x, y velocity of the tip                     | slider1_vel, slider2_vel         | m/s   |
  | 5-7 | angular velocities of tip and rotors         | <joint>_vel                      | rad/s |

  With ``exclude_current_positions_from_observation=False`` the tip's x, y come first (10).

  ## Rewards
  ``reward = forward_reward - ctrl_cost``, each term in ``info``:
  - ``reward_forward``: ``forward_reward_weight * (x_after - x_before) / dt``;
  - ``reward_ctrl``: ``-ctrl_cost_weight * sum(action²)``.
  ``info`` also has ``x_position``, ``y_position``, ``distance_from_origin``, ``x_velocity``, ``y_velocity``.

  ## Starting State
  ``qpos0`` at rest plus uniform noise in [-reset_noise_scale, reset_noise_scale] on every qpos and qvel entry.

  ## Episode End
  - Termination: none.
  - Truncation: 1000 steps; also when the physics diverges (``info["divergence"]``).

  ## Arguments
  | Argument | Default | Meaning |
  |----------|---------|---------|
  | xml_file | mjgym's swimmer.xml | MJCF with the same joints and sensors |
  | frame_skip | 4 | physics steps per env step (dt = 0.04 s) |
  | forward_reward_weight | 1 | weight of the forward velocity |
  | ctrl_cost_weight | 1e-4 | weight of the control cost |
  | reset_noise_scale | 0.1 | initial-state noise |
  | exclude_current_positions_from_observation | True | leave the tip's x, y out |
  | observation, obs_dtype, render_mode, width, height, camera | see ``MjEnv`` | |

  ## Version History
  - v0: Gymnasium's Swimmer-v5 model and task.
  """

  task_class = SwimmerTask
  xml = "swimmer.xml"
  default_frame_skip = 4
  default_camera = "track"
