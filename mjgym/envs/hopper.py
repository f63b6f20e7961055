"""MjHopper-v0: the classic planar one-legged hopper on mjgym's physics."""

import numpy as np
from gymnasium.utils import EzPickle
from numba import njit

from mjgym.envs.base import MjEnv
from mjgym.envs.base import Task
from mjgym.envs.base import asset_path


class MjHopperEnv(MjEnv, EzPickle):
  """Make a one-legged robot hop forward as fast as possible.

  ## Description
  A planar hopper (torso, thigh, leg, foot) moves in the x-z plane on three hinge motors. The model is
  mjgym's own (``mjgym/assets/hopper.xml``), built like Gymnasium's Hopper so that results compare.

  ## Action Space
  ``Box(-1, 1, (3,), float32)``: torques (× gear 200, N·m) of

  | Num | Actuator    | Joint       |
  |-----|-------------|-------------|
  | 0   | thigh_motor | thigh_joint |
  | 1   | leg_motor   | leg_joint   |
  | 2   | foot_motor  | foot_joint  |

  ## Observation Space
  ``Box(-inf, inf, (11,), obs_dtype)``, the model's sensordata, the same quantities in the same order as
  Gymnasium Hopper-v5's observation:

  | Num | Sensor    | Quantity                                   | Unit  |
  |-----|-----------|--------------------------------------------|-------|
  | 0   | rootz_pos | z of the torso                             | m     |
  | 1   | rooty_pos | torso angle                                | rad   |
  | 2   | thigh_pos | thigh joint angle                          | rad   |
  | 3   | leg_pos   | leg joint angle                            | rad   |
  | 4   | foot_pos  | foot joint angle                           | rad   |
  | 5   | rootx_vel | x velocity of the torso, clipped to ±10    | m/s   |
  | 6   | rootz_vel | z velocity of the torso, clipped to ±10    | m/s   |
  | 7   | rooty_vel | torso angular velocity, clipped to ±10     | rad/s |
  | 8   | thigh_vel | thigh angular velocity, clipped to ±10     | rad/s |
  | 9   | leg_vel   | leg angular velocity, clipped to ±10       | rad/s |
  | 10  | foot_vel  | foot angular velocity, clipped to ±10      | rad/s |

  ## Rewards
  ``reward = healthy_reward + forward_reward - ctrl_cost``:
  - forward_reward: ``forward_reward_weight * (x_after - x_before) / dt`` (torso x velocity).
  - healthy_reward: ``healthy_reward`` every step while healthy (or always, with
    ``terminate_when_unhealthy=False``).
  - ctrl_cost: ``ctrl_cost_weight * sum(action²)``.
  ``info`` has every term: ``reward_forward``, ``reward_ctrl`` (negative), ``reward_survive``, plus
  ``x_position``, ``z_distance_from_origin`` and ``x_velocity``.

  ## Starting State
  Upright at rest, with uniform noise in [-reset_noise_scale, reset_noise_scale] on every qpos and qvel.

  ## Episode End
  - Termination: unhealthy, i.e. torso z outside ``healthy_z_range``, torso angle outside
    ``healthy_angle_range``, or any of qpos[2:], qvel outside ``healthy_state_range``
    (only if ``terminate_when_unhealthy``).
  - Truncation: 1000 steps (``max_episode_steps`` at registration); also when the physics diverges
    (``info["divergence"]`` names the warning; the engine has reset the world).

  ## Arguments
  | Argument | Default | Meaning |
  |----------|---------|---------|
  | xml_file | mjgym's hopper.xml | any MJCF with the same joint names and 11 sensors |
  | frame_skip | 4 | physics steps per env step (dt = 0.008 s) |
  | forward_reward_weight | 1.0 | weight of the forward velocity |
  | ctrl_cost_weight | 1e-3 | weight of the control cost |
  | healthy_reward | 1.0 | per-step reward while healthy |
  | terminate_when_unhealthy | True | end the episode when unhealthy |
  | healthy_state_range | (-100, 100) | bounds of qpos[2:] and qvel |
  | healthy_z_range | (0.7, inf) | bounds of the torso z |
  | healthy_angle_range | (-0.2, 0.2) | bounds of the torso angle |
  | reset_noise_scale | 5e-3 | initial-state noise |
  | obs_dtype | float64 | observation dtype |
  | camera | track | MJCF camera of render() (it follows the robot where the model says so) |
  | render_mode, width, height | None, 480, 480 | rendering (rgb_array, depth_array, human) |

  ## Version History
  - v0: initial version.
  """

  def __init__(self, xml_file=None, frame_skip=4, forward_reward_weight=1.0, ctrl_cost_weight=1e-3,
               healthy_reward=1.0, terminate_when_unhealthy=True, healthy_state_range=(-100.0, 100.0),
               healthy_z_range=(0.7, float("inf")), healthy_angle_range=(-0.2, 0.2), reset_noise_scale=5e-3,
               obs_dtype=np.float64, **kwargs):
    EzPickle.__init__(self, xml_file, frame_skip, forward_reward_weight, ctrl_cost_weight, healthy_reward,
                      terminate_when_unhealthy, healthy_state_range, healthy_z_range, healthy_angle_range,
                      reset_noise_scale, obs_dtype, **kwargs)
    task = HopperTask(forward_reward_weight, ctrl_cost_weight, healthy_reward, terminate_when_unhealthy,
                      healthy_state_range, healthy_z_range, healthy_angle_range, reset_noise_scale)
    MjEnv.__init__(self, task, xml_file or asset_path("hopper.xml"), frame_skip, obs_dtype=obs_dtype,
                   **{"camera": "track", **kwargs})

  @property
  def is_healthy(self):
    return bool(self.task.healthy(self._batch)[0])


class HopperTask(Task):
  """MjHopper's reward, termination and reset, for many worlds at once (see MjHopperEnv)."""

  def __init__(self, forward_reward_weight, ctrl_cost_weight, healthy_reward, terminate_when_unhealthy,
               healthy_state_range, healthy_z_range, healthy_angle_range, reset_noise_scale):
    super().__init__(reset_noise_scale)
    self.forward_reward_weight = forward_reward_weight
    self.ctrl_cost_weight = ctrl_cost_weight
    self.healthy_reward = healthy_reward
    self.terminate_when_unhealthy = terminate_when_unhealthy
    self.healthy_state_range = healthy_state_range
    self.healthy_z_range = healthy_z_range
    self.healthy_angle_range = healthy_angle_range

  def _params(self):
    return np.array([*self.healthy_state_range, *self.healthy_z_range, *self.healthy_angle_range,
                     self.forward_reward_weight, self.ctrl_cost_weight, self.healthy_reward,
                     self.terminate_when_unhealthy, self.dt, self.init_qpos[1]], np.float64)

  def healthy(self, b):
    """Per world, whether the hopper is healthy, (W,) bool."""
    return _healthy(b.qpos, b.qvel, self._params())

  def pre_step(self, b):
    return b.qpos[:, 0].copy()

  def post_step(self, b, action, x_before):
    reward, terminated, info = _post_step(b.qpos, b.qvel, action, x_before, self._params())
    return reward, terminated, dict(zip(INFO_KEYS, info))

  def reset_info(self, b):
    return {"x_position": b.qpos[:, 0].copy(), "z_distance_from_origin": b.qpos[:, 1] - self.init_qpos[1]}


INFO_KEYS = ("x_position", "z_distance_from_origin", "x_velocity", "reward_forward", "reward_ctrl", "reward_survive")
NINFO = len(INFO_KEYS)


@njit(cache=True)
def _healthy(qpos, qvel, params):
  """(W,) bool; params as HopperTask._params."""
  state_lo, state_hi = params[0], params[1]
  z_lo, z_hi, angle_lo, angle_hi = params[2], params[3], params[4], params[5]
  healthy = np.empty(qpos.shape[0], np.bool_)
  for w in range(qpos.shape[0]):
    ok = z_lo < qpos[w, 1] < z_hi and angle_lo < qpos[w, 2] < angle_hi
    for i in range(2, qpos.shape[1]):
      ok = ok and state_lo < qpos[w, i] < state_hi
    for i in range(qvel.shape[1]):
      ok = ok and state_lo < qvel[w, i] < state_hi
    healthy[w] = ok
  return healthy


@njit(cache=True)
def _post_step(qpos, qvel, action, x_before, params):
  """(reward (W,), terminated (W,), info (NINFO, W), rows as INFO_KEYS) of every world after a step."""
  forward_weight, ctrl_weight, healthy_reward = params[6], params[7], params[8]
  terminate, dt, z0 = params[9] != 0.0, params[10], params[11]
  nworld = qpos.shape[0]
  healthy = _healthy(qpos, qvel, params)
  reward = np.empty(nworld)
  terminated = np.empty(nworld, np.bool_)
  info = np.empty((NINFO, nworld))
  for w in range(nworld):
    x_velocity = (qpos[w, 0] - x_before[w]) / dt
    forward = forward_weight * x_velocity
    survive = healthy_reward if healthy[w] or not terminate else 0.0
    sum_sq = 0.0
    for j in range(action.shape[1]):
      sum_sq += action[w, j] * action[w, j]
    ctrl = ctrl_weight * sum_sq
    reward[w] = forward + survive - ctrl
    terminated[w] = terminate and not healthy[w]
    info[0, w] = qpos[w, 0]
    info[1, w] = qpos[w, 1] - z0
    info[2, w] = x_velocity
    info[3, w] = forward
    info[4, w] = -ctrl
    info[5, w] = survive
  return reward, terminated, info
