"""MjAnt-v0: Gymnasium's Ant-v5 on mjgym's physics."""

from typing import NamedTuple

import numpy as np
from numba import njit

from mjgym import physics
from mjgym.envs.base import MjEnv
from mjgym.envs.base import Task
from mjgym.envs.base import sum_sq


class AntParams(NamedTuple):
  forward_reward_weight: float = 1.0
  ctrl_cost_weight: float = 0.5
  contact_cost_weight: float = 5e-4
  healthy_reward: float = 1.0
  main_body: int = 1  # or a body name
  terminate_when_unhealthy: bool = True
  healthy_z_range: tuple = (0.2, 1.0)
  contact_force_range: tuple = (-1.0, 1.0)
  reset_noise_scale: float = 0.1
  exclude_current_positions_from_observation: bool = True
  include_cfrc_ext_in_observation: bool = True


class AntTask(Task):
  """Ant-v5's reward, termination and reset, for many worlds at once (see MjAntEnv)."""

  Params = AntParams
  info_keys = ("x_position", "y_position", "distance_from_origin", "x_velocity", "y_velocity", "reward_forward",
               "reward_ctrl", "reward_contact", "reward_survive")
  skipped_qpos = 2
  ncarry = 2  # main body (x, y) before the step, as Data held it
  reads_derived = True

  def bind(self, model, dt):
    super().bind(model, dt)
    body = self.p.main_body
    if isinstance(body, str):
      body = physics.mj_name2id(model, physics.mjtObj.mjOBJ_BODY, body)
    if not 0 <= body < model.nbody:
      raise ValueError(f"main_body {self.p.main_body!r} is not a body of the model")
    self.p = self.p._replace(main_body=int(body))

  def reset(self, b, worlds, noise, carry):
    s = self.p.reset_noise_scale
    b.qpos[worlds] = self.init_qpos + noise.uniform(-s, s, self.model.nq)
    b.qvel[worlds] = self.init_qvel + noise.normal(s, self.model.nv)

  def start(self, b, worlds, carry):
    carry[worlds] = b.xpos[worlds, self.p.main_body, :2]

  def post_step(self, b, action, carry):
    reward, terminated, info = _step(self.p, self.dt, b.qpos, b.qvel, b.xpos, b.cfrc_ext, action, carry)
    return reward, terminated, self.info_dict(info)

  def reset_info(self, b):
    return {"x_position": b.qpos[:, 0].copy(), "y_position": b.qpos[:, 1].copy(),
            "distance_from_origin": np.hypot(b.qpos[:, 0], b.qpos[:, 1])}

  def observe_v5(self, b):
    parts = [b.qpos[:, self.skip:], b.qvel]
    if self.p.include_cfrc_ext_in_observation:
      parts.append(np.clip(b.cfrc_ext[:, 1:], *self.p.contact_force_range).reshape(b.qpos.shape[0], -1))
    return np.concatenate(parts, axis=1)

  def observation_structure(self, v5):
    structure = super().observation_structure(v5)
    if v5:
      structure["cfrc_ext"] = 6 * (self.model.nbody - 1) * self.p.include_cfrc_ext_in_observation
    return structure


@njit(cache=True)
def _step(p, dt, qpos, qvel, xpos, cfrc_ext, action, carry):
  """(reward (W,), terminated (W,), info (9, W), rows as AntTask.info_keys); carry: main body xy before ->
  after."""
  nworld = qpos.shape[0]
  lo, hi = p.contact_force_range
  reward = np.empty(nworld)
  terminated = np.empty(nworld, np.bool_)
  info = np.empty((9, nworld))
  for w in range(nworld):
    x, y = xpos[w, p.main_body, 0], xpos[w, p.main_body, 1]
    vx, vy = (x - carry[w, 0]) / dt, (y - carry[w, 1]) / dt
    carry[w, 0], carry[w, 1] = x, y
    healthy = np.isfinite(qpos[w]).all() and np.isfinite(qvel[w]).all()
    healthy = healthy and p.healthy_z_range[0] <= qpos[w, 2] <= p.healthy_z_range[1]
    survive = p.healthy_reward if healthy else 0.0
    forward = p.forward_reward_weight * vx
    ctrl = p.ctrl_cost_weight * sum_sq(action[w])
    contact = 0.0
    for i in range(cfrc_ext.shape[1]):
      for k in range(6):
        f = min(max(cfrc_ext[w, i, k], lo), hi)
        contact += f * f
    contact *= p.contact_cost_weight
    reward[w] = forward + survive - (ctrl + contact)
    terminated[w] = p.terminate_when_unhealthy and not healthy
    info[0, w], info[1, w] = qpos[w, 0], qpos[w, 1]
    info[2, w] = np.sqrt(qpos[w, 0] * qpos[w, 0] + qpos[w, 1] * qpos[w, 1])
    info[3, w], info[4, w], info[5, w], info[6, w] = vx, vy, forward, -ctrl
    info[7, w], info[8, w] = -contact, survive
  return reward, terminated, info


class MjAntEnv(MjEnv):
  """Make a four-legged robot walk forward as fast as possible: Gymnasium's Ant-v5.

  ## Description
  A spherical torso on a free joint with four two-link legs, eight hinge motors (Schulman et al. 2015). The
  model (``mjgym/assets/ant.xml``) is Gymnasium v5's ``ant.xml`` to the last compiled field, plus sensors.

  ## Action Space
  ``Box(-1, 1, (8,), float32)``: torques (gear 150, N·m) of hip_4, ankle_4, hip_1, ankle_1, hip_2, ankle_2,
  hip_3, ankle_3.

  ## Observation Space
  ``Box(-inf, inf, (27,), obs_dtype)`` by default, the model's sensordata:

  | Num   | Observation                                   | Sensors              | Unit  |
  |-------|-----------------------------------------------|----------------------|-------|
  | 0     | torso z                                       | root_pos[2]          | m     |
  | 1-4   | torso orientation quaternion (w, x, y, z)     | root_quat            |       |
  | 5-12  | the eight hip and ankle angles                | <joint>_pos          | rad   |
  | 13-15 | torso linear velocity, world frame            | root_linvel          | m/s   |
  | 16-18 | torso angular velocity, torso frame           | root_angvel (gyro)   | rad/s |
  | 19-26 | the eight joint velocities                    | <joint>_vel          | rad/s |

  These are Ant-v5's qpos[2:] and qvel. v5 also observes ``clip(cfrc_ext[1:], *contact_force_range)`` (78),
  which no sensor gives: ``observation="v5"`` returns exactly v5's 105 numbers (27 with
  ``include_cfrc_ext_in_observation=False``). ``exclude_current_positions_from_observation=False`` adds x, y.

  ## Rewards
  ``reward = healthy_reward + forward_reward - ctrl_cost - contact_cost``, each term in ``info``:
  - ``reward_forward``: ``forward_reward_weight *`` x velocity of ``main_body`` (its xpos, as Data holds it
    after the step, as in v5);
  - ``reward_survive``: ``healthy_reward`` while healthy, also with ``terminate_when_unhealthy=False`` (v5's
    rule; v4 paid it always then);
  - ``reward_ctrl``: ``-ctrl_cost_weight * sum(action²)``;
  - ``reward_contact``: ``-contact_cost_weight * sum(clip(cfrc_ext, *contact_force_range)²)``.
  ``info`` also has ``x_position``, ``y_position``, ``distance_from_origin`` (of qpos), ``x_velocity``,
  ``y_velocity``.

  ## Starting State
  ``qpos0`` plus uniform noise in [-reset_noise_scale, reset_noise_scale] on qpos (the quaternion included, as
  in v5); qvel normal with standard deviation ``reset_noise_scale``.

  ## Episode End
  - Termination (if ``terminate_when_unhealthy``): a non-finite state, or torso z outside ``healthy_z_range``.
  - Truncation: 1000 steps; also when the physics diverges (``info["divergence"]``).

  ## Arguments
  | Argument | Default | Meaning |
  |----------|---------|---------|
  | xml_file | mjgym's ant.xml | MJCF with the same bodies, joints and sensors |
  | frame_skip | 5 | physics steps per env step (dt = 0.05 s) |
  | forward_reward_weight, ctrl_cost_weight, contact_cost_weight | 1, 0.5, 5e-4 | reward weights |
  | healthy_reward | 1 | per-step reward while healthy |
  | main_body | 1 | body (id or name) whose x velocity is rewarded |
  | terminate_when_unhealthy | True | end the episode when unhealthy |
  | healthy_z_range | (0.2, 1) | bounds of the torso z |
  | contact_force_range | (-1, 1) | clip of cfrc_ext in the contact cost and the v5 observation |
  | reset_noise_scale | 0.1 | initial-state noise |
  | exclude_current_positions_from_observation | True | leave torso x, y out |
  | include_cfrc_ext_in_observation | True | contact forces in the v5 observation |
  | observation, obs_dtype, render_mode, width, height, camera | see ``MjEnv`` | |

  ## Version History
  - v0: Gymnasium's Ant-v5 model and task.
  """

  task_class = AntTask
  xml = "ant.xml"
  default_frame_skip = 5
  default_camera = "track"
