"""MjHumanoidStandup-v0: Gymnasium's HumanoidStandup-v5 on mjgym's physics."""

from typing import NamedTuple

import numpy as np
from numba import njit

from mjgym.envs.base import MjEnv
from mjgym.envs.base import sum_sq
from mjgym.envs.humanoid import HumanoidTask


class HumanoidStandupParams(NamedTuple):
  uph_cost_weight: float = 1.0
  ctrl_cost_weight: float = 0.1
  impact_cost_weight: float = 0.5e-6
  impact_cost_range: tuple = (-np.inf, 10.0)
  reset_noise_scale: float = 1e-2
  exclude_current_positions_from_observation: bool = True
  include_cinert_in_observation: bool = True
  include_cvel_in_observation: bool = True
  include_qfrc_actuator_in_observation: bool = True
  include_cfrc_ext_in_observation: bool = True


class HumanoidStandupTask(HumanoidTask):
  """HumanoidStandup-v5's reward and reset, for many worlds at once (see MjHumanoidStandupEnv)."""

  Params = HumanoidStandupParams
  info_keys = ("x_position", "y_position", "z_distance_from_origin", "reward_linup", "reward_quadctrl",
               "reward_impact")
  ncarry = 0

  def start(self, b, worlds, carry):
    pass

  def post_step(self, b, action, carry):
    reward, info = _step(self.p, self.model.opt.timestep, self.init_qpos[2], b.qpos, b.cfrc_ext, b.ctrl)
    return reward, np.zeros(len(reward), np.bool_), {**self.info_dict(info), **self.tendon_info(b)}

  def reset_info(self, b):
    return {"x_position": b.qpos[:, 0].copy(), "y_position": b.qpos[:, 1].copy(),
            "z_distance_from_origin": b.qpos[:, 2] - self.init_qpos[2], **self.tendon_info(b)}


@njit(cache=True)
def _step(p, timestep, z0, qpos, cfrc_ext, ctrl):
  """(reward (W,), info (6, W), rows as HumanoidStandupTask.info_keys)."""
  nworld = qpos.shape[0]
  reward = np.empty(nworld)
  info = np.empty((6, nworld))
  for w in range(nworld):
    uph = p.uph_cost_weight * qpos[w, 2] / timestep
    ctrl_cost = p.ctrl_cost_weight * sum_sq(ctrl[w])
    impact = p.impact_cost_weight * sum_sq(cfrc_ext[w].ravel())
    impact = min(max(impact, p.impact_cost_range[0]), p.impact_cost_range[1])
    reward[w] = uph - ctrl_cost - impact + 1.0
    info[0, w], info[1, w], info[2, w] = qpos[w, 0], qpos[w, 1], qpos[w, 2] - z0
    info[3, w], info[4, w], info[5, w] = uph, -ctrl_cost, -impact
  return reward, info


class MjHumanoidStandupEnv(MjEnv):
  """Make a humanoid lying on its back stand up and stay up: Gymnasium's HumanoidStandup-v5.

  ## Description
  The humanoid of MjHumanoid-v0, starting on the ground. The model (``mjgym/assets/humanoidstandup.xml``) is
  Gymnasium v5's ``humanoidstandup.xml`` to the last compiled field, plus sensors.

  ## Action Space
  ``Box(-0.4, 0.4, (17,), float32)``: torques (gear 100, N·m) of the 17 hinge joints.

  ## Observation Space
  ``Box(-inf, inf, (62,), obs_dtype)`` by default, the model's sensordata, laid out as MjHumanoid-v0's (torso z,
  quaternion, 17 angles, torso linear and angular velocity, 17 joint velocities, qfrc_actuator[6:]).
  HumanoidStandup-v5 also observes ``cinert[1:]``, ``cvel[1:]`` and ``cfrc_ext[1:]``, which no sensor gives:
  ``observation="v5"`` returns exactly v5's 348 numbers, with the ``include_*`` switches.

  ## Rewards
  ``reward = uph_cost + 1 - quad_ctrl_cost - quad_impact_cost``, each term in ``info``:
  - ``reward_linup``: ``uph_cost_weight * torso z / timestep`` (v5 ignores ``uph_cost_weight``; at its default
    of 1 the two are the same);
  - ``reward_quadctrl``: ``-ctrl_cost_weight * sum(ctrl²)``;
  - ``reward_impact``: ``-clip(impact_cost_weight * sum(cfrc_ext²), *impact_cost_range)``.
  ``info`` also has ``x_position``, ``y_position``, ``z_distance_from_origin``, ``tendon_length`` and
  ``tendon_velocity``.

  ## Starting State
  Lying (``qpos0``) at rest plus uniform noise in [-reset_noise_scale, reset_noise_scale] on every qpos and
  qvel entry.

  ## Episode End
  - Termination: none.
  - Truncation: 1000 steps; also when the physics diverges (``info["divergence"]``).

  ## Arguments
  | Argument | Default | Meaning |
  |----------|---------|---------|
  | xml_file | mjgym's humanoidstandup.xml | MJCF with the same bodies, joints and sensors |
  | frame_skip | 5 | physics steps per env step (dt = 0.015 s) |
  | uph_cost_weight | 1 | weight of the height term |
  | ctrl_cost_weight | 0.1 | weight of the control cost |
  | impact_cost_weight | 5e-7 | weight of the impact cost |
  | impact_cost_range | (-inf, 10) | clip of the impact cost |
  | reset_noise_scale | 1e-2 | initial-state noise |
  | exclude_current_positions_from_observation | True | leave torso x, y out |
  | include_cinert/cvel/qfrc_actuator/cfrc_ext_in_observation | True | parts of the v5 observation |
  | observation, obs_dtype, render_mode, width, height, camera | see ``MjEnv`` | |

  ## Version History
  - v0: Gymnasium's HumanoidStandup-v5 model and task.
  """

  task_class = HumanoidStandupTask
  xml = "humanoidstandup.xml"
  default_frame_skip = 5
  default_camera = "track"
