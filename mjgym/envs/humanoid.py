"""MjHumanoid-v0: a 3D humanoid learning to run forward, on mjgym's physics."""

import numpy as np
from gymnasium.utils import EzPickle
from numba import njit

from mjgym.envs.base import MjEnv
from mjgym.envs.base import Task
from mjgym.envs.base import asset_path


class MjHumanoidEnv(MjEnv, EzPickle):
  """Make a 3D bipedal robot walk forward as fast as possible without falling over.

  ## Description
  A humanoid with a free-floating torso, a 3-joint abdomen, legs (hip x/z/y, knee) and arms (two shoulder
  joints, elbow), driven by 17 motors. mjgym's own model, ``mjgym/assets/humanoid.xml``.

  ## Action Space
  ``Box(-0.4, 0.4, (17,), float32)``: joint torques (× gears 25 to 300 N·m) of abdomen_y, abdomen_z,
  abdomen_x, right_hip_x/z/y, right_knee, left_hip_x/z/y, left_knee, right_shoulder1/2, right_elbow,
  left_shoulder1/2, left_elbow.

  ## Observation Space
  ``Box(-inf, inf, (69,), obs_dtype)``: sensordata.

  | Num   | Sensor               | Quantity                                    | Unit   |
  |-------|----------------------|---------------------------------------------|--------|
  | 0-2   | torso_pos            | torso position (z is its height)            | m      |
  | 3-6   | torso_quat           | torso orientation (w, x, y, z)              |        |
  | 7-23  | jointpos             | the 17 joint angles                         | rad    |
  | 24-40 | jointvel             | the 17 joint velocities                     | rad/s  |
  | 41-43 | torso_linvel         | torso linear velocity (torso frame)         | m/s    |
  | 44-46 | torso_angvel         | torso angular velocity (torso frame)        | rad/s  |
  | 47-49 | torso_acc            | accelerometer (torso frame)                 | m/s²   |
  | 50-51 | right/left_foot_touch| normal contact force on each foot           | N      |
  | 52-68 | actuatorfrc          | the 17 actuator forces                      | N·m    |

  ## Rewards
  ``reward = healthy_reward + forward_reward - ctrl_cost - contact_cost``:
  - forward_reward: ``forward_reward_weight * dx/dt`` of the whole-body centre of mass;
  - healthy_reward: ``healthy_reward`` per step while healthy;
  - ctrl_cost: ``ctrl_cost_weight * sum(action²)``;
  - contact_cost: ``contact_cost_weight * sum(cfrc_ext²)``, clipped to ``contact_cost_range``.
  ``info`` has ``reward_forward``, ``reward_survive``, ``reward_ctrl`` and ``reward_contact`` (negative), plus
  ``x_position``, ``y_position``, ``x_velocity`` and ``y_velocity`` of the centre of mass.

  ## Starting State
  Standing at rest with uniform noise in [-reset_noise_scale, reset_noise_scale] on qpos and qvel (the
  root quaternion is renormalized).

  ## Episode End
  - Termination: torso height outside ``healthy_z_range`` (if ``terminate_when_unhealthy``).
  - Truncation: 1000 steps (registration); or when the physics diverges (``info["divergence"]``).

  ## Arguments
  | Argument | Default | Meaning |
  |----------|---------|---------|
  | xml_file | mjgym's humanoid.xml | MJCF with the same sensors, torso body and free joint |
  | frame_skip | 5 | physics steps per env step (dt = 0.015 s) |
  | forward_reward_weight | 1.25 | weight of the centre-of-mass velocity |
  | ctrl_cost_weight | 0.1 | weight of the control cost |
  | contact_cost_weight | 5e-7 | weight of the external contact forces |
  | contact_cost_range | (-inf, 10) | clip range of the contact cost |
  | healthy_reward | 5.0 | per-step reward while healthy |
  | terminate_when_unhealthy | True | end the episode when unhealthy |
  | healthy_z_range | (1.0, 2.0) | torso heights counted as healthy, m |
  | reset_noise_scale | 1e-2 | initial-state noise |
  | obs_dtype | float64 | observation dtype |
  | camera | track | MJCF camera of render() (it follows the robot where the model says so) |
  | render_mode, width, height | None, 480, 480 | rendering (rgb_array, depth_array, human) |

  ## Version History
  - v0: initial version.
  """

  def __init__(self, xml_file=None, frame_skip=5, forward_reward_weight=1.25, ctrl_cost_weight=0.1,
               contact_cost_weight=5e-7, contact_cost_range=(-np.inf, 10.0), healthy_reward=5.0,
               terminate_when_unhealthy=True, healthy_z_range=(1.0, 2.0), reset_noise_scale=1e-2,
               obs_dtype=np.float64, **kwargs):
    EzPickle.__init__(self, xml_file, frame_skip, forward_reward_weight, ctrl_cost_weight, contact_cost_weight,
                      contact_cost_range, healthy_reward, terminate_when_unhealthy, healthy_z_range,
                      reset_noise_scale, obs_dtype, **kwargs)
    task = HumanoidTask(forward_reward_weight, ctrl_cost_weight, contact_cost_weight, contact_cost_range,
                        healthy_reward, terminate_when_unhealthy, healthy_z_range, reset_noise_scale)
    MjEnv.__init__(self, task, xml_file or asset_path("humanoid.xml"), frame_skip, obs_dtype=obs_dtype,
                   **{"camera": "track", **kwargs})

  @property
  def is_healthy(self):
    return bool(self.task.healthy(self._batch)[0])


class HumanoidTask(Task):
  """MjHumanoid's reward, termination and reset, for many worlds at once."""

  def __init__(self, forward_reward_weight, ctrl_cost_weight, contact_cost_weight, contact_cost_range,
               healthy_reward, terminate_when_unhealthy, healthy_z_range, reset_noise_scale):
    super().__init__(reset_noise_scale)
    self.forward_reward_weight = forward_reward_weight
    self.ctrl_cost_weight = ctrl_cost_weight
    self.contact_cost_weight = contact_cost_weight
    self.contact_cost_range = contact_cost_range
    self.healthy_reward = healthy_reward
    self.terminate_when_unhealthy = terminate_when_unhealthy
    self.healthy_z_range = healthy_z_range

  def bind(self, model, dt):
    super().bind(model, dt)
    self.mass_fraction = model.body_mass / model.body_mass.sum()

  def _params(self):
    return np.array([*self.healthy_z_range, *self.contact_cost_range, self.forward_reward_weight,
                     self.ctrl_cost_weight, self.contact_cost_weight, self.healthy_reward,
                     self.terminate_when_unhealthy, self.dt], np.float64)

  def com(self, b):
    """Whole-body centre of mass (W, 3)."""
    return _com(self.mass_fraction, b.xipos)

  def healthy(self, b):
    """Per world, whether the torso height is within healthy_z_range, (W,) bool."""
    return _healthy(b.qpos, self._params())

  def reset(self, b, worlds, noise):
    super().reset(b, worlds, noise)
    quat = b.qpos[worlds, 3:7]
    b.qpos[worlds, 3:7] = quat / np.linalg.norm(quat, axis=1, keepdims=True)

  def pre_step(self, b):
    return self.com(b)

  def post_step(self, b, action, com_before):
    reward, terminated, info = _post_step(self.mass_fraction, b.qpos, b.xipos, b.cfrc_ext, action, com_before,
                                          self._params())
    return reward, terminated, dict(zip(INFO_KEYS, info))

  def reset_info(self, b):
    com = self.com(b)
    return {"x_position": com[:, 0].copy(), "y_position": com[:, 1].copy()}


INFO_KEYS = ("reward_forward", "reward_survive", "reward_ctrl", "reward_contact", "x_position", "y_position",
             "x_velocity", "y_velocity")
NINFO = len(INFO_KEYS)


@njit(cache=True)
def _com(mass_fraction, xipos):
  """(W, 3) centre of mass: bodies' ``xipos`` (W, nbody, 3) weighted by ``mass_fraction`` (nbody,)."""
  com = np.zeros((xipos.shape[0], 3))
  for w in range(xipos.shape[0]):
    for i in range(xipos.shape[1]):
      for k in range(3):
        com[w, k] += mass_fraction[i] * xipos[w, i, k]
  return com


@njit(cache=True)
def _healthy(qpos, params):
  healthy = np.empty(qpos.shape[0], np.bool_)
  for w in range(qpos.shape[0]):
    healthy[w] = params[0] < qpos[w, 2] < params[1]
  return healthy


@njit(cache=True)
def _post_step(mass_fraction, qpos, xipos, cfrc_ext, action, com_before, params):
  """(reward (W,), terminated (W,), info (NINFO, W), rows as INFO_KEYS) of every world after a step; params as
  HumanoidTask._params."""
  contact_lo, contact_hi = params[2], params[3]
  forward_weight, ctrl_weight, contact_weight, healthy_reward = params[4], params[5], params[6], params[7]
  terminate, dt = params[8] != 0.0, params[9]
  nworld = qpos.shape[0]
  com_after = _com(mass_fraction, xipos)
  healthy = _healthy(qpos, params)
  reward = np.empty(nworld)
  terminated = np.empty(nworld, np.bool_)
  info = np.empty((NINFO, nworld))
  for w in range(nworld):
    x_velocity = (com_after[w, 0] - com_before[w, 0]) / dt
    y_velocity = (com_after[w, 1] - com_before[w, 1]) / dt
    forward = forward_weight * x_velocity
    survive = healthy_reward if healthy[w] or not terminate else 0.0
    sum_sq = 0.0
    for j in range(action.shape[1]):
      sum_sq += action[w, j] * action[w, j]
    ctrl = ctrl_weight * sum_sq
    sum_sq = 0.0
    for i in range(cfrc_ext.shape[1]):
      for k in range(6):
        sum_sq += cfrc_ext[w, i, k] * cfrc_ext[w, i, k]
    contact = min(max(contact_weight * sum_sq, contact_lo), contact_hi)
    reward[w] = forward + survive - ctrl - contact
    terminated[w] = terminate and not healthy[w]
    info[0, w] = forward
    info[1, w] = survive
    info[2, w] = -ctrl
    info[3, w] = -contact
    info[4, w] = com_after[w, 0]
    info[5, w] = com_after[w, 1]
    info[6, w] = x_velocity
    info[7, w] = y_velocity
  return reward, terminated, info
