"""MjHumanoid-v0: Gymnasium's Humanoid-v5 on mjgym's physics."""

from typing import NamedTuple

import numpy as np
from numba import njit

from mjgym.envs.base import MjEnv
from mjgym.envs.base import Task
from mjgym.envs.base import sum_sq


class HumanoidParams(NamedTuple):
  forward_reward_weight: float = 1.25
  ctrl_cost_weight: float = 0.1
  contact_cost_weight: float = 5e-7
  contact_cost_range: tuple = (-np.inf, 10.0)
  healthy_reward: float = 5.0
  terminate_when_unhealthy: bool = True
  healthy_z_range: tuple = (1.0, 2.0)
  reset_noise_scale: float = 1e-2
  exclude_current_positions_from_observation: bool = True
  include_cinert_in_observation: bool = True
  include_cvel_in_observation: bool = True
  include_qfrc_actuator_in_observation: bool = True
  include_cfrc_ext_in_observation: bool = True


class HumanoidTask(Task):
  """Humanoid-v5's reward, termination and reset, for many worlds at once (see MjHumanoidEnv)."""

  Params = HumanoidParams
  info_keys = ("x_position", "y_position", "distance_from_origin", "x_velocity", "y_velocity", "reward_survive",
               "reward_forward", "reward_ctrl", "reward_contact")
  skipped_qpos = 2
  ncarry = 2  # centre of mass (x, y) before the step, as Data held it
  reads_derived = True

  def start(self, b, worlds, carry):
    carry[worlds] = _mass_center(self.model.body_mass, b.xipos[worlds])

  def post_step(self, b, action, carry):
    reward, terminated, info = _step(self.p, self.dt, self.model.body_mass, b.qpos, b.xipos, b.cfrc_ext, b.ctrl,
                                     carry)
    return reward, terminated, {**self.info_dict(info), **self.tendon_info(b)}

  def reset_info(self, b):
    return {"x_position": b.qpos[:, 0].copy(), "y_position": b.qpos[:, 1].copy(),
            "distance_from_origin": np.hypot(b.qpos[:, 0], b.qpos[:, 1]), **self.tendon_info(b)}

  @staticmethod
  def tendon_info(b):
    return {"tendon_length": b.ten_length.copy(), "tendon_velocity": b.ten_velocity.copy()}

  def observe_sensors(self, b):
    end = None if self.p.include_qfrc_actuator_in_observation else self.model.nq + self.model.nv
    return b.sensordata[:, self.skip:end].copy()

  def observe_v5(self, b):
    p, w = self.p, b.qpos.shape[0]
    parts = [b.qpos[:, self.skip:], b.qvel]
    for include, part in ((p.include_cinert_in_observation, b.cinert[:, 1:]),
                          (p.include_cvel_in_observation, b.cvel[:, 1:]),
                          (p.include_qfrc_actuator_in_observation, b.qfrc_actuator[:, 6:]),
                          (p.include_cfrc_ext_in_observation, b.cfrc_ext[:, 1:])):
      if include:
        parts.append(part.reshape(w, -1))
    return np.concatenate(parts, axis=1)

  def observation_structure(self, v5):
    p, m = self.p, self.model
    rest = m.nbody - 1
    structure = {"skipped_qpos": self.skip, "qpos": m.nq - self.skip, "qvel": m.nv}
    if v5:
      structure.update(cinert=10 * rest * p.include_cinert_in_observation,
                       cvel=6 * rest * p.include_cvel_in_observation)
    structure["qfrc_actuator"] = (m.nv - 6) * p.include_qfrc_actuator_in_observation
    if v5:
      structure["cfrc_ext"] = 6 * rest * p.include_cfrc_ext_in_observation
    return structure


@njit(cache=True)
def _mass_center(mass, xipos):
  """(W, 2) x, y of the whole-body centre of mass: ``sum(mass * xipos) / sum(mass)``, as Gymnasium's."""
  com = np.zeros((xipos.shape[0], 2))
  total = np.sum(mass)
  for w in range(xipos.shape[0]):
    for k in range(2):
      num = 0.0
      for i in range(mass.shape[0]):
        num += mass[i] * xipos[w, i, k]
      com[w, k] = num / total
  return com


@njit(cache=True)
def _step(p, dt, mass, qpos, xipos, cfrc_ext, ctrl, carry):
  """(reward (W,), terminated (W,), info (9, W), rows as HumanoidTask.info_keys); carry: com before -> after."""
  nworld = qpos.shape[0]
  com = _mass_center(mass, xipos)
  reward = np.empty(nworld)
  terminated = np.empty(nworld, np.bool_)
  info = np.empty((9, nworld))
  for w in range(nworld):
    vx, vy = (com[w, 0] - carry[w, 0]) / dt, (com[w, 1] - carry[w, 1]) / dt
    carry[w, 0], carry[w, 1] = com[w, 0], com[w, 1]
    healthy = p.healthy_z_range[0] < qpos[w, 2] < p.healthy_z_range[1]
    survive = p.healthy_reward if healthy else 0.0
    forward = p.forward_reward_weight * vx
    ctrl_cost = p.ctrl_cost_weight * sum_sq(ctrl[w])
    contact = p.contact_cost_weight * sum_sq(cfrc_ext[w].ravel())
    contact = min(max(contact, p.contact_cost_range[0]), p.contact_cost_range[1])
    reward[w] = forward + survive - (ctrl_cost + contact)
    terminated[w] = p.terminate_when_unhealthy and not healthy
    info[0, w], info[1, w] = qpos[w, 0], qpos[w, 1]
    info[2, w] = np.sqrt(qpos[w, 0] * qpos[w, 0] + qpos[w, 1] * qpos[w, 1])
    info[3, w], info[4, w], info[5, w], info[6, w] = vx, vy, survive, forward
    info[7, w], info[8, w] = -ctrl_cost, -contact
  return reward, terminated, info


class MjHumanoidEnv(MjEnv):
  """Make a 3D bipedal robot walk forward as fast as possible without falling: Gymnasium's Humanoid-v5.

  ## Description
  A humanoid (torso, abdomen, pelvis, two legs, two arms; 17 hinge motors, a free root) as in Tassa et al. 2012.
  The model (``mjgym/assets/humanoid.xml``) is Gymnasium v5's ``humanoid.xml`` to the last compiled field
  (PGS solver, 2 fixed tendons), plus sensors.

  ## Action Space
  ``Box(-0.4, 0.4, (17,), float32)``: torques (gear 25 to 100, N·m) of the 17 hinge joints, in actuator order.

  ## Observation Space
  ``Box(-inf, inf, (62,), obs_dtype)`` by default, the model's sensordata:

  | Num   | Observation                                            | Sensors                             |
  |-------|--------------------------------------------------------|-------------------------------------|
  | 0     | torso z (m)                                            | root_pos[2]                         |
  | 1-4   | torso orientation quaternion (w, x, y, z)              | root_quat                           |
  | 5-21  | the 17 hinge angles (rad)                              | <joint>_pos                         |
  | 22-24 | torso linear velocity, world frame (m/s)               | root_linvel                         |
  | 25-27 | torso angular velocity, torso frame (rad/s)            | root_angvel (gyro)                  |
  | 28-44 | the 17 hinge velocities (rad/s)                        | <joint>_vel                         |
  | 45-61 | actuator torque at each hinge = qfrc_actuator[6:] (N·m) | <joint>_actfrc (jointactuatorfrc) |

  These are Humanoid-v5's qpos[2:], qvel and qfrc_actuator[6:], in v5's order. v5 also observes ``cinert[1:]``
  (130), ``cvel[1:]`` (78) and ``cfrc_ext[1:]`` (78), which no sensor gives (348 in all): ``observation="v5"``
  returns exactly v5's observation, computed from Data as Gymnasium computes it (derived fields as MuJoCo
  leaves them after mj_step), with the ``include_*`` switches. In the sensor observation
  ``include_qfrc_actuator_in_observation=False`` drops the last 17 sensors; the other switches are v5's only.

  ## Rewards
  ``reward = healthy_reward + forward_reward - ctrl_cost - contact_cost``, each term in ``info``:
  - ``reward_forward``: ``forward_reward_weight *`` x velocity of the centre of mass (xipos weighted by mass);
  - ``reward_survive``: ``healthy_reward`` while healthy, also with ``terminate_when_unhealthy=False`` (v5's
    rule; v4 paid it always then);
  - ``reward_ctrl``: ``-ctrl_cost_weight * sum(ctrl²)``;
  - ``reward_contact``: ``-clip(contact_cost_weight * sum(cfrc_ext²), *contact_cost_range)``.
  ``info`` also has ``x_position``, ``y_position``, ``distance_from_origin`` (of qpos), ``x_velocity``,
  ``y_velocity`` (of the centre of mass), ``tendon_length`` and ``tendon_velocity`` (2 each).

  ## Starting State
  ``qpos0`` (standing, torso at z = 1.4) at rest, plus uniform noise in [-reset_noise_scale, reset_noise_scale]
  on every qpos and qvel entry (the root quaternion included, as in v5).

  ## Episode End
  - Termination (if ``terminate_when_unhealthy``): torso z outside ``healthy_z_range``.
  - Truncation: 1000 steps; also when the physics diverges (``info["divergence"]``).

  ## Arguments
  | Argument | Default | Meaning |
  |----------|---------|---------|
  | xml_file | mjgym's humanoid.xml | MJCF with the same bodies, joints and sensors |
  | frame_skip | 5 | physics steps per env step (dt = 0.015 s) |
  | forward_reward_weight | 1.25 | weight of the forward velocity |
  | ctrl_cost_weight | 0.1 | weight of the control cost |
  | contact_cost_weight | 5e-7 | weight of the contact cost |
  | contact_cost_range | (-inf, 10) | clip of the contact cost |
  | healthy_reward | 5 | per-step reward while healthy |
  | terminate_when_unhealthy | True | end the episode when unhealthy |
  | healthy_z_range | (1, 2) | bounds of the torso z |
  | reset_noise_scale | 1e-2 | initial-state noise |
  | exclude_current_positions_from_observation | True | leave torso x, y out |
  | include_cinert/cvel/qfrc_actuator/cfrc_ext_in_observation | True | parts of the v5 observation |
  | observation, obs_dtype, render_mode, width, height, camera | see ``MjEnv`` | |

  ## Version History
  - v0: Gymnasium's Humanoid-v5 model and task (the first v0 used a look-alike model; see CHANGELOG.md).
  """

  task_class = HumanoidTask
  xml = "humanoid.xml"
  default_frame_skip = 5
  default_camera = "track"

  @property
  def is_healthy(self):
    z_lo, z_hi = self.task.p.healthy_z_range
    return bool(z_lo < self.data.qpos[2] < z_hi)
