"""MjInvertedPendulum-v0: Gymnasium's InvertedPendulum-v5 on mjgym's physics."""

from typing import NamedTuple

import numpy as np
from numba import njit

from mjgym.envs.base import MjEnv
from mjgym.envs.base import Task


class InvertedPendulumParams(NamedTuple):
  reset_noise_scale: float = 0.01


class InvertedPendulumTask(Task):
  """InvertedPendulum-v5's reward, termination and reset, for many worlds at once."""

  Params = InvertedPendulumParams
  info_keys = ("reward_survive",)

  def post_step(self, b, action, carry):
    reward, terminated = _step(b.qpos, b.qvel)
    return reward, terminated, {"reward_survive": reward.copy()}

  def observation_structure(self, v5):
    return {"qpos": self.model.nq, "qvel": self.model.nv}


@njit(cache=True)
def _step(qpos, qvel):
  """(reward (W,): 1 while balanced else 0, terminated (W,): a non-finite state or |pole angle| > 0.2)."""
  nworld = qpos.shape[0]
  reward = np.empty(nworld)
  terminated = np.empty(nworld, np.bool_)
  for w in range(nworld):
    finite = np.isfinite(qpos[w]).all() and np.isfinite(qvel[w]).all()
    terminated[w] = not finite or abs(qpos[w, 1]) > 0.2
    reward[w] = 0.0 if terminated[w] else 1.0
  return reward, terminated


class MjInvertedPendulumEnv(MjEnv):
  """Balance a pole on a cart: Gymnasium's InvertedPendulum-v5.

  ## Description
  A cart on a rail (slide joint ``slider``, ±1 m) with a pole on a hinge (``hinge``); one motor pushes the cart.
  The model (``mjgym/assets/inverted_pendulum.xml``) is Gymnasium v5's ``inverted_pendulum.xml`` to the last
  compiled field, plus sensors.

  ## Action Space
  ``Box(-3, 3, (1,), float32)``: force on the cart (gear 100, N).

  ## Observation Space
  ``Box(-inf, inf, (4,), obs_dtype)``: the model's sensordata, equal to InvertedPendulum-v5's observation.

  | Num | Observation                 | Sensor      | Unit  |
  |-----|-----------------------------|-------------|-------|
  | 0   | cart position               | slider_pos  | m     |
  | 1   | pole angle from vertical    | hinge_pos   | rad   |
  | 2   | cart velocity               | slider_vel  | m/s   |
  | 3   | pole angular velocity       | hinge_vel   | rad/s |

  ## Rewards
  ``reward = 1`` while the pole is up (``info["reward_survive"]``), 0 on the step that ends the episode.

  ## Starting State
  ``qpos0`` at rest plus uniform noise in [-reset_noise_scale, reset_noise_scale] on qpos and qvel.

  ## Episode End
  - Termination: a non-finite state, or |pole angle| > 0.2 rad.
  - Truncation: 1000 steps; also when the physics diverges (``info["divergence"]``).

  ## Arguments
  | Argument | Default | Meaning |
  |----------|---------|---------|
  | xml_file | mjgym's inverted_pendulum.xml | MJCF with the same joints and sensors |
  | frame_skip | 2 | physics steps per env step (dt = 0.04 s) |
  | reset_noise_scale | 0.01 | initial-state noise |
  | observation, obs_dtype, render_mode, width, height, camera | see ``MjEnv`` | |

  ## Version History
  - v0: Gymnasium's InvertedPendulum-v5 model and task.
  """

  task_class = InvertedPendulumTask
  xml = "inverted_pendulum.xml"
  default_frame_skip = 2
  default_camera = "fixed"
