"""MjHalfCheetah-v0: Gymnasium's HalfCheetah-v5 on mjgym's physics."""

from typing import NamedTuple

import numpy as np
from numba import njit

from mjgym.envs.base import MjEnv
from mjgym.envs.base import Task
from mjgym.envs.base import sum_sq


class HalfCheetahParams(NamedTuple):
  forward_reward_weight: float = 1.0
  ctrl_cost_weight: float = 0.1
  reset_noise_scale: float = 0.1
  exclude_current_positions_from_observation: bool = True


class HalfCheetahTask(Task):
  """HalfCheetah-v5's reward and reset, for many worlds at once (see MjHalfCheetahEnv)."""

  Params = HalfCheetahParams
  info_keys = ("x_position", "x_velocity", "reward_forward", "reward_ctrl")
  skipped_qpos = 1
  ncarry = 1  # x before the step

  def reset(self, b, worlds, noise, carry):
    s = self.p.reset_noise_scale
    b.qpos[worlds] = self.init_qpos + noise.uniform(-s, s, self.model.nq)
    b.qvel[worlds] = self.init_qvel + noise.normal(s, self.model.nv)

  def start(self, b, worlds, carry):
    carry[worlds, 0] = b.qpos[worlds, 0]

  def post_step(self, b, action, carry):
    reward, info = _step(self.p, self.dt, b.qpos, action, carry)
    return reward, np.zeros(len(reward), np.bool_), self.info_dict(info)

  def reset_info(self, b):
    return {"x_position": b.qpos[:, 0].copy()}


@njit(cache=True)
def _step(p, dt, qpos, action, carry):
  """(reward (W,), info (4, W), rows as HalfCheetahTask.info_keys); carry: x before -> x after."""
  nworld = qpos.shape[0]
  reward = np.empty(nworld)
  info = np.empty((4, nworld))
  for w in range(nworld):
    x_velocity = (qpos[w, 0] - carry[w, 0]) / dt
    carry[w, 0] = qpos[w, 0]
    forward = p.forward_reward_weight * x_velocity
    ctrl = p.ctrl_cost_weight * sum_sq(action[w])
    reward[w] = forward - ctrl
    info[0, w], info[1, w], info[2, w], info[3, w] = qpos[w, 0], x_velocity, forward, -ctrl
  return reward, info


class MjHalfCheetahEnv(MjEnv):
  """Make a planar cat-like robot run forward as fast as possible: Gymnasium's HalfCheetah-v5.

  ## Description
  A planar runner (torso, back and front thigh, shin, foot) in the x-z plane on six hinge motors (Wawrzyński
  2009). The model (``mjgym/assets/half_cheetah.xml``) is Gymnasium v5's ``half_cheetah.xml`` to the last
  compiled field, plus sensors.

  ## Action Space
  ``Box(-1, 1, (6,), float32)``: torques (gear 120/90/60/120/60/30, N·m) of bthigh, bshin, bfoot, fthigh,
  fshin, ffoot.

  ## Observation Space
  ``Box(-inf, inf, (17,), obs_dtype)``: the model's sensordata, equal to HalfCheetah-v5's observation.

  | Num   | Observation                                  | Sensors                | Unit  |
  |-------|----------------------------------------------|------------------------|-------|
  | 0     | torso z (rootz)                              | rootz_pos              | m     |
  | 1     | torso angle (rooty)                          | rooty_pos              | rad   |
  | 2-7   | back then front thigh, shin, foot angles     | <joint>_pos            | rad   |
  | 8-9   | torso x, z velocity                          | rootx_vel, rootz_vel   | m/s   |
  | 10-16 | torso and joint angular velocities           | <joint>_vel            | rad/s |

  With ``exclude_current_positions_from_observation=False`` the torso x (rootx_pos) comes first (18).

  ## Rewards
  ``reward = forward_reward - ctrl_cost``, each term in ``info``:
  - ``reward_forward``: ``forward_reward_weight * (x_after - x_before) / dt``;
  - ``reward_ctrl``: ``-ctrl_cost_weight * sum(action²)``.
  ``info`` also has ``x_position`` and ``x_velocity``.

  ## Starting State
  ``qpos0`` plus uniform noise in [-reset_noise_scale, reset_noise_scale] on qpos; qvel normal with standard
  deviation ``reset_noise_scale``.

  ## Episode End
  - Termination: none.
  - Truncation: 1000 steps; also when the physics diverges (``info["divergence"]``).

  ## Arguments
  | Argument | Default | Meaning |
  |----------|---------|---------|
  | xml_file | mjgym's half_cheetah.xml | MJCF with the same joints and sensors |
  | frame_skip | 5 | physics steps per env step (dt = 0.05 s) |
  | forward_reward_weight | 1 | weight of the forward velocity |
  | ctrl_cost_weight | 0.1 | weight of the control cost |
  | reset_noise_scale | 0.1 | initial-state noise |
  | exclude_current_positions_from_observation | True | leave the torso x out |
  | observation, obs_dtype, render_mode, width, height, camera | see ``MjEnv`` | |

  ## Version History
  - v0: Gymnasium's HalfCheetah-v5 model and task.
  """

  task_class = HalfCheetahTask
  xml = "half_cheetah.xml"
  default_frame_skip = 5
  default_camera = "track"
