"""MjHopper-v0: Gymnasium's Hopper-v5 on mjgym's physics."""

from typing import NamedTuple

import numpy as np
from numba import njit

from mjgym.envs.base import MjEnv
from mjgym.envs.base import Task
from mjgym.envs.base import sum_sq


class HopperParams(NamedTuple):
  forward_reward_weight: float = 1.0
  ctrl_cost_weight: float = 1e-3
  healthy_reward: float = 1.0
  terminate_when_unhealthy: bool = True
  healthy_state_range: tuple = (-100.0, 100.0)
  healthy_z_range: tuple = (0.7, float("inf"))
  healthy_angle_range: tuple = (-0.2, 0.2)
  reset_noise_scale: float = 5e-3
  exclude_current_positions_from_observation: bool = True


class HopperTask(Task):
  """Hopper-v5's reward, termination and reset, for many worlds at once (see MjHopperEnv)."""

  Params = HopperParams
  info_keys = ("x_position", "z_distance_from_origin", "x_velocity", "reward_forward", "reward_ctrl",
               "reward_survive")
  skipped_qpos = 1
  ncarry = 1  # x before the step

  def __init__(self, params):
    super().__init__(params)
    self.k = self.kernel_params()

  def kernel_params(self):
    """The HopperParams the kernels read (Walker2d's task maps its own onto them)."""
    return self.p

  def start(self, b, worlds, carry):
    carry[worlds, 0] = b.qpos[worlds, 0]

  def healthy(self, b):
    """Per world, whether the hopper is healthy, (W,) bool."""
    return _healthy(self.k, b.qpos, b.qvel)

  def post_step(self, b, action, carry):
    reward, terminated, info = _step(self.k, self.dt, self.init_qpos[1], b.qpos, b.qvel, action, carry)
    return reward, terminated, self.info_dict(info)

  def reset_info(self, b):
    return {"x_position": b.qpos[:, 0].copy(), "z_distance_from_origin": b.qpos[:, 1] - self.init_qpos[1]}

  def observe_v5(self, b):
    return np.concatenate([b.qpos[:, self.skip:], np.clip(b.qvel, -10.0, 10.0)], axis=1)


@njit(cache=True)
def _healthy(p, qpos, qvel):
  """(W,) bool: torso z, torso angle and every entry of qpos[2:] and qvel inside their healthy ranges."""
  healthy = np.empty(qpos.shape[0], np.bool_)
  lo, hi = p.healthy_state_range
  for w in range(qpos.shape[0]):
    ok = (p.healthy_z_range[0] < qpos[w, 1] < p.healthy_z_range[1]
          and p.healthy_angle_range[0] < qpos[w, 2] < p.healthy_angle_range[1])
    for i in range(2, qpos.shape[1]):
      ok = ok and lo < qpos[w, i] < hi
    for i in range(qvel.shape[1]):
      ok = ok and lo < qvel[w, i] < hi
    healthy[w] = ok
  return healthy


@njit(cache=True)
def _step(p, dt, z0, qpos, qvel, action, carry):
  """(reward (W,), terminated (W,), info (6, W), rows as HopperTask.info_keys); carry: x before -> x after."""
  nworld = qpos.shape[0]
  healthy = _healthy(p, qpos, qvel)
  reward = np.empty(nworld)
  terminated = np.empty(nworld, np.bool_)
  info = np.empty((6, nworld))
  for w in range(nworld):
    x_velocity = (qpos[w, 0] - carry[w, 0]) / dt
    carry[w, 0] = qpos[w, 0]
    forward = p.forward_reward_weight * x_velocity
    survive = p.healthy_reward if healthy[w] else 0.0
    ctrl = p.ctrl_cost_weight * sum_sq(action[w])
    reward[w] = forward + survive - ctrl
    terminated[w] = p.terminate_when_unhealthy and not healthy[w]
    info[0, w], info[1, w], info[2, w] = qpos[w, 0], qpos[w, 1] - z0, x_velocity
    info[3, w], info[4, w], info[5, w] = forward, -ctrl, survive
  return reward, terminated, info


class MjHopperEnv(MjEnv):
  """Make a one-legged robot hop forward as fast as possible: Gymnasium's Hopper-v5 on mjgym's physics.

  ## Description
  A planar hopper (torso, thigh, leg, foot) moves in the x-z plane on three hinge motors. The model
  (``mjgym/assets/hopper.xml``) is Gymnasium v5's ``hopper.xml`` to the last compiled field, plus sensors.

  ## Action Space
  ``Box(-1, 1, (3,), float32)``: torques (gear 200, N·m) of thigh_joint, leg_joint, foot_joint.

  ## Observation Space
  ``Box(-inf, inf, (11,), obs_dtype)``: the model's sensordata, equal to Hopper-v5's observation.

  | Num | Observation                                   | Sensors                          | Unit        |
  |-----|-----------------------------------------------|----------------------------------|-------------|
  | 0   | z of the torso (rootz)                        | rootz_pos                        | m           |
  | 1   | torso angle (rooty)                           | rooty_pos                        | rad         |
  | 2-4 | thigh, leg, foot joint angles                 | thigh_pos, leg_pos, foot_pos     | rad         |
  | 5-6 | x, z velocity of the torso, clipped to ±10     | rootx_vel, rootz_vel             | m/s         |
  | 7-10| torso, thigh, leg, foot angular velocities, ±10 | rooty_vel ... foot_vel        | rad/s       |

  With ``exclude_current_positions_from_observation=False`` the torso x (rootx_pos) comes first (12).
  ``observation="v5"`` computes the same numbers from qpos/qvel as Gymnasium does.

  ## Rewards
  ``reward = healthy_reward + forward_reward - ctrl_cost``, each term in ``info``:
  - ``reward_forward``: ``forward_reward_weight * (x_after - x_before) / dt``;
  - ``reward_survive``: ``healthy_reward`` while healthy, also with ``terminate_when_unhealthy=False`` (v5's
    rule; v4 paid it always then);
  - ``reward_ctrl``: ``-ctrl_cost_weight * sum(action²)``.
  ``info`` also has ``x_position``, ``z_distance_from_origin`` and ``x_velocity``.

  ## Starting State
  ``qpos0`` and zero velocity, plus uniform noise in [-reset_noise_scale, reset_noise_scale] on every entry.

  ## Episode End
  - Termination (if ``terminate_when_unhealthy``): torso z outside ``healthy_z_range``, torso angle outside
    ``healthy_angle_range``, or an entry of qpos[2:] or qvel outside ``healthy_state_range``.
  - Truncation: 1000 steps; also when the physics diverges (``info["divergence"]``).

  ## Arguments
  | Argument | Default | Meaning |
  |----------|---------|---------|
  | xml_file | mjgym's hopper.xml | MJCF with the same joints and sensors |
  | frame_skip | 4 | physics steps per env step (dt = 0.008 s) |
  | forward_reward_weight | 1 | weight of the forward velocity |
  | ctrl_cost_weight | 1e-3 | weight of the control cost |
  | healthy_reward | 1 | per-step reward while healthy |
  | terminate_when_unhealthy | True | end the episode when unhealthy |
  | healthy_state_range | (-100, 100) | bounds of qpos[2:] and qvel |
  | healthy_z_range | (0.7, inf) | bounds of the torso z |
  | healthy_angle_range | (-0.2, 0.2) | bounds of the torso angle |
  | reset_noise_scale | 5e-3 | initial-state noise |
  | exclude_current_positions_from_observation | True | leave the torso x out |
  | observation, obs_dtype, render_mode, width, height, camera | see ``MjEnv`` | |

  ## Version History
  - v0: Gymnasium's Hopper-v5 model and task (the first v0 used a look-alike model; see CHANGELOG.md).
  """

  task_class = HopperTask
  xml = "hopper.xml"
  default_frame_skip = 4
  default_camera = "track"

  @property
  def is_healthy(self):
    return bool(self.task.healthy(self._batch)[0])
