"""MjWalker2d-v0: Gymnasium's Walker2d-v5 on mjgym's physics."""

from typing import NamedTuple

from mjgym.envs.base import MjEnv
from mjgym.envs.hopper import HopperParams
from mjgym.envs.hopper import HopperTask


class Walker2dParams(NamedTuple):
  forward_reward_weight: float = 1.0
  ctrl_cost_weight: float = 1e-3
  healthy_reward: float = 1.0
  terminate_when_unhealthy: bool = True
  healthy_z_range: tuple = (0.8, 2.0)
  healthy_angle_range: tuple = (-1.0, 1.0)
  reset_noise_scale: float = 5e-3
  exclude_current_positions_from_observation: bool = True


class Walker2dTask(HopperTask):
  """Walker2d-v5's reward, termination and reset: the hopper's, without bounds on the rest of the state."""

  Params = Walker2dParams

  def kernel_params(self):
    return HopperParams(**self.p._asdict(), healthy_state_range=(-float("inf"), float("inf")))


class MjWalker2dEnv(MjEnv):
  """Make a planar two-legged robot walk forward as fast as possible: Gymnasium's Walker2d-v5.

  ## Description
  A planar biped (torso; right and left thigh, leg, foot) in the x-z plane on six hinge motors. The model
  (``mjgym/assets/walker2d.xml``) is Gymnasium v5's ``walker2d_v5.xml`` to the last compiled field (both feet
  with friction 0.9), plus sensors.

  ## Action Space
  ``Box(-1, 1, (6,), float32)``: torques (gear 100, N·m) of thigh, leg, foot, thigh_left, leg_left, foot_left.

  ## Observation Space
  ``Box(-inf, inf, (17,), obs_dtype)``: the model's sensordata, equal to Walker2d-v5's observation.

  | Num   | Observation                                           | Sensors                  | Unit      |
  |-------|-------------------------------------------------------|--------------------------|-----------|
  | 0     | torso z (rootz)                                       | rootz_pos                | m         |
  | 1     | torso angle (rooty)                                   | rooty_pos                | rad       |
  | 2-7   | right then left thigh, leg, foot angles               | <joint>_pos              | rad       |
  | 8-9   | torso x, z velocity, clipped to ±10                    | rootx_vel, rootz_vel     | m/s       |
  | 10-16 | torso and joint angular velocities, clipped to ±10     | <joint>_vel              | rad/s     |

  With ``exclude_current_positions_from_observation=False`` the torso x (rootx_pos) comes first (18).

  ## Rewards
  ``reward = healthy_reward + forward_reward - ctrl_cost``, each term in ``info``:
  - ``reward_forward``: ``forward_reward_weight * (x_after - x_before) / dt``;
  - ``reward_survive``: ``healthy_reward`` while healthy, also with ``terminate_when_unhealthy=False`` (v5's
    rule; v4 paid it always then);
  - ``reward_ctrl``: ``-ctrl_cost_weight * sum(action²)``.
  ``info`` also has ``x_position``, ``z_distance_from_origin`` and ``x_velocity``.

  ## Starting State
  ``qpos0`` at rest plus uniform noise in [-reset_noise_scale, reset_noise_scale] on every qpos and qvel entry.

  ## Episode End
  - Termination (if ``terminate_when_unhealthy``): torso z outside ``healthy_z_range`` or torso angle outside
    ``healthy_angle_range``.
  - Truncation: 1000 steps; also when the physics diverges (``info["divergence"]``).

  ## Arguments
  | Argument | Default | Meaning |
  |----------|---------|---------|
  | xml_file | mjgym's walker2d.xml | MJCF with the same joints and sensors |
  | frame_skip | 4 | physics steps per env step (dt = 0.008 s) |
  | forward_reward_weight | 1 | weight of the forward velocity |
  | ctrl_cost_weight | 1e-3 | weight of the control cost |
  | healthy_reward | 1 | per-step reward while healthy |
  | terminate_when_unhealthy | True | end the episode when unhealthy |
  | healthy_z_range | (0.8, 2) | bounds of the torso z |
  | healthy_angle_range | (-1, 1) | bounds of the torso angle |
  | reset_noise_scale | 5e-3 | initial-state noise |
  | exclude_current_positions_from_observation | True | leave the torso x out |
  | observation, obs_dtype, render_mode, width, height, camera | see ``MjEnv`` | |

  ## Version History
  - v0: Gymnasium's Walker2d-v5 model and task.
  """

  task_class = Walker2dTask
  xml = "walker2d.xml"
  default_frame_skip = 4
  default_camera = "track"

  @property
  def is_healthy(self):
    return bool(self.task.healthy(self._batch)[0])
