"""MjInvertedDoublePendulum-v0: Gymnasium's InvertedDoublePendulum-v5 on mjgym's physics."""

from typing import NamedTuple

import numpy as np
from numba import njit

from mjgym.envs.base import MjEnv
from mjgym.envs.base import Task


class InvertedDoublePendulumParams(NamedTuple):
  healthy_reward: float = 10.0
  reset_noise_scale: float = 0.1


class InvertedDoublePendulumTask(Task):
  """InvertedDoublePendulum-v5's reward, termination and reset, for many worlds at once."""

  Params = InvertedDoublePendulumParams
  info_keys = ("reward_survive", "distance_penalty", "velocity_penalty")
  reads_derived = True

  def reset(self, b, worlds, noise, carry):
    s = self.p.reset_noise_scale
    b.qpos[worlds] = self.init_qpos + noise.uniform(-s, s, self.model.nq)
    b.qvel[worlds] = self.init_qvel + noise.normal(s, self.model.nv)

  def post_step(self, b, action, carry):
    reward, terminated, info = _step(self.p, b.site_xpos, b.qvel)
    return reward, terminated, self.info_dict(info)

  def observe_v5(self, b):
    q = b.qpos
    return np.concatenate([q[:, :1], np.sin(q[:, 1:]), np.cos(q[:, 1:]), np.clip(b.qvel, -10, 10),
                           np.clip(b.qfrc_constraint, -10, 10)[:, :1]], axis=1)

  def observation_structure(self, v5):
    if v5:
      return {"qpos": 1, "sin_qpos": 2, "cos_qpos": 2, "qvel": 3, "qfrc_constraint": 1}
    return {"qpos": 3, "qvel": 3, "limit_force": 1}


@njit(cache=True)
def _step(p, site_xpos, qvel):
  """(reward (W,), terminated (W,), info (3, W), rows as the Task's info_keys) from the tip site's position
  after the step and the new velocities."""
  nworld = qvel.shape[0]
  reward = np.empty(nworld)
  terminated = np.empty(nworld, np.bool_)
  info = np.empty((3, nworld))
  for w in range(nworld):
    x, y = site_xpos[w, 0, 0], site_xpos[w, 0, 2]
    terminated[w] = y <= 1.0
    v1, v2 = qvel[w, 1], qvel[w, 2]
    distance = 0.01 * x * x + (y - 2.0) ** 2
    velocity = 1e-3 * v1 * v1 + 5e-3 * v2 * v2
    alive = 0.0 if terminated[w] else p.healthy_reward
    reward[w] = alive - distance - velocity
    info[0, w], info[1, w], info[2, w] = alive, -distance, -velocity
  return reward, terminated, info


class MjInvertedDoublePendulumEnv(MjEnv):
  """Balance two poles, one on top of the other, on a cart: Gymnasium's InvertedDoublePendulum-v5.

  ## Description
  A cart on a rail (slide ``slider``) carrying two hinged poles (``hinge``, ``hinge2``); one motor pushes the
  cart. The model (``mjgym/assets/inverted_double_pendulum.xml``) is Gymnasium v5's
  ``inverted_double_pendulum.xml`` to the last compiled field, plus sensors.

  ## Action Space
  ``Box(-1, 1, (1,), float32)``: force on the cart (gear 500, N).

  ## Observation Space
  ``Box(-inf, inf, (7,), obs_dtype)`` by default, the model's sensordata:

  | Num | Observation                                   | Sensor                    | Unit      |
  |-----|-----------------------------------------------|---------------------------|-----------|
  | 0   | cart position                                 | slider_pos                | m         |
  | 1-2 | angles of the two poles                       | hinge_pos, hinge2_pos     | rad       |
  | 3-5 | cart and pole velocities, clipped to ±10       | <joint>_vel               | m/s, rad/s |
  | 6   | the rail's limit force, clipped to ±10         | slider_limit_force        | N         |

  InvertedDoublePendulum-v5 observes the sines and cosines of the pole angles (no sensor gives them) and
  ``clip(qfrc_constraint[0], -10, 10)`` from Data as MuJoCo leaves it after mj_step; ``observation="v5"``
  returns exactly v5's 9 numbers.

  ## Rewards
  ``reward = alive_bonus - distance_penalty - velocity_penalty``, each in ``info``:
  - ``reward_survive``: ``healthy_reward`` unless the episode ends on this step;
  - ``distance_penalty``: ``-(0.01 x² + (y - 2)²)`` of the tip site (site_xpos as Data holds it after the step);
  - ``velocity_penalty``: ``-(1e-3 ω1² + 5e-3 ω2²)`` of the two poles.

  ## Starting State
  ``qpos0`` plus uniform noise in [-reset_noise_scale, reset_noise_scale] on qpos; qvel normal with standard
  deviation ``reset_noise_scale``.

  ## Episode End
  - Termination: the tip's height y <= 1.
  - Truncation: 1000 steps; also when the physics diverges (``info["divergence"]``).

  ## Arguments
  | Argument | Default | Meaning |
  |----------|---------|---------|
  | xml_file | mjgym's inverted_double_pendulum.xml | MJCF with the same joints, site and sensors |
  | frame_skip | 5 | physics steps per env step (dt = 0.05 s) |
  | healthy_reward | 10 | per-step bonus while up |
  | reset_noise_scale | 0.1 | initial-state noise |
  | observation, obs_dtype, render_mode, width, height, camera | see ``MjEnv`` | |

  ## Version History
  - v0: Gymnasium's InvertedDoublePendulum-v5 model and task.
  """

  task_class = InvertedDoublePendulumTask
  xml = "inverted_double_pendulum.xml"
  default_frame_skip = 5
  default_camera = "fixed"
