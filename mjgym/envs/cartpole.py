"""MjCartpole-v0 (balance) and MjCartpoleSwingup-v0 on mjgym's physics."""

from typing import NamedTuple

import numpy as np
from numba import njit

from mjgym.envs.base import MjEnv
from mjgym.envs.base import Task


class BalanceParams(NamedTuple):
  max_angle: float = 0.2
  max_position: float = 2.4
  reset_noise_scale: float = 0.05


class BalanceTask(Task):
  """MjCartpole's reward (+1 per step) and termination, for many worlds at once."""

  Params = BalanceParams

  def post_step(self, b, action, carry):
    reward, terminated, alive = _balance_step(b.qpos, self.p.max_angle, self.p.max_position)
    return reward, terminated, {"reward_alive": alive}


@njit(cache=True)
def _balance_step(qpos, max_angle, max_position):
  """(reward (W,), terminated (W,), reward_alive (W,)) of every world after a step."""
  nworld = qpos.shape[0]
  terminated = np.empty(nworld, np.bool_)
  for w in range(nworld):
    terminated[w] = abs(qpos[w, 1]) > max_angle or abs(qpos[w, 0]) > max_position
  return np.ones(nworld), terminated, np.ones(nworld)


@njit(cache=True)
def _tolerance(x, margin):
  """1 at x = 0, falling smoothly (Gaussian) to 0.1 at |x| = margin."""
  return np.exp(np.log(0.1) * (x / margin) ** 2)


class SwingupParams(NamedTuple):
  reset_noise_scale: float = 0.05


class SwingupTask(Task):
  """MjCartpoleSwingup's smooth reward and pole-down start, for many worlds at once."""

  Params = SwingupParams
  info_keys = ("reward_upright", "reward_centered", "reward_small_control", "reward_small_velocity")

  def bind(self, model, dt):
    super().bind(model, dt)
    self.init_qpos[1] = np.pi

  def post_step(self, b, action, carry):
    reward, terms = _swingup_step(b.qpos, b.qvel, action)
    return reward, np.zeros(len(reward), np.bool_), self.info_dict(terms)


@njit(cache=True)
def _swingup_step(qpos, qvel, action):
  """(reward (W,), terms (4, W), rows as SwingupTask.info_keys) of every world after a step."""
  nworld = qpos.shape[0]
  reward = np.empty(nworld)
  terms = np.empty((4, nworld))
  for w in range(nworld):
    terms[0, w] = (np.cos(qpos[w, 1]) + 1.0) / 2.0
    terms[1, w] = (1.0 + _tolerance(qpos[w, 0], 2.0)) / 2.0
    terms[2, w] = (4.0 + _tolerance(action[w, 0], 1.0)) / 5.0
    terms[3, w] = (1.0 + _tolerance(qvel[w, 1], 5.0)) / 2.0
    reward[w] = terms[0, w] * terms[1, w] * terms[2, w] * terms[3, w]
  return reward, terms


class MjCartpoleEnv(MjEnv):
  """Keep a pole upright on a cart by pushing the cart along its rail.

  ## Description
  A cart slides on a rail (slide joint ``slider``, ±3 m) with a 1 m pole on a hinge (``hinge``, angle 0 =
  upright); one motor pushes the cart. mjgym's own model, ``mjgym/assets/cartpole.xml``.

  ## Action Space
  ``Box(-1, 1, (1,), float32)``: force on the cart, × gear 10 (N).

  ## Observation Space
  ``Box(-inf, inf, (4,), obs_dtype)``: sensordata.

  | Num | Sensor      | Quantity               | Unit  |
  |-----|-------------|------------------------|-------|
  | 0   | cart_pos    | cart position          | m     |
  | 1   | pole_angle  | pole angle from upright | rad  |
  | 2   | cart_vel    | cart velocity          | m/s   |
  | 3   | pole_angvel | pole angular velocity  | rad/s |

  ## Rewards
  ``reward = 1`` every step (``info["reward_alive"]``).

  ## Starting State
  Upright at rest with uniform noise in [-reset_noise_scale, reset_noise_scale] on qpos and qvel.

  ## Episode End
  - Termination: |pole angle| > ``max_angle`` (0.2 rad) or |cart position| > ``max_position`` (2.4 m).
  - Truncation: 1000 steps (registration); or when the physics diverges (``info["divergence"]``).

  ## Arguments
  | Argument | Default | Meaning |
  |----------|---------|---------|
  | xml_file | mjgym's cartpole.xml | MJCF with joints slider/hinge and the 4 sensors |
  | frame_skip | 2 | physics steps per env step (dt = 0.02 s) |
  | max_angle | 0.2 | termination angle, rad |
  | max_position | 2.4 | termination cart position, m |
  | reset_noise_scale | 0.05 | initial-state noise |
  | obs_dtype | float64 | observation dtype |
  | camera | fixed | MJCF camera of render() (it follows the robot where the model says so) |
  | render_mode, width, height | None, 480, 480 | rendering (rgb_array, depth_array, human) |

  ## Version History
  - v0: initial version.
  """

  task_class = BalanceTask
  xml = "cartpole.xml"
  default_frame_skip = 2
  default_camera = "fixed"


class MjCartpoleSwingupEnv(MjEnv):
  """Swing the pole up from hanging down and balance it, with the cart near the centre.

  ## Description
  The cart-pole of MjCartpole-v0 starting with the pole down. The reward is smooth, in [0, 1] per step.

  ## Action Space
  ``Box(-1, 1, (1,), float32)``: force on the cart, × gear 10 (N).

  ## Observation Space
  ``Box(-inf, inf, (4,), obs_dtype)``: cart position (m), pole angle from upright (rad, unwrapped),
  cart velocity (m/s), pole angular velocity (rad/s) — the model's sensordata.

  ## Rewards
  ``reward = upright * centered * small_control * small_velocity``, each term in [0, 1] and in ``info``:
  - upright: ``(cos(angle) + 1) / 2``;
  - centered: ``(1 + tolerance(x, 2)) / 2``;
  - small_control: ``(4 + tolerance(action, 1)) / 5``;
  - small_velocity: ``(1 + tolerance(pole angular velocity, 5)) / 2``;
  where tolerance(v, margin) is 1 at 0 and falls smoothly to 0.1 at |v| = margin.

  ## Starting State
  Pole down (angle π) at rest, uniform noise in [-reset_noise_scale, reset_noise_scale] on qpos and qvel.

  ## Episode End
  - Termination: none.
  - Truncation: 1000 steps (registration); or when the physics diverges (``info["divergence"]``).

  ## Arguments
  | Argument | Default | Meaning |
  |----------|---------|---------|
  | xml_file | mjgym's cartpole.xml | MJCF with joints slider/hinge and the 4 sensors |
  | frame_skip | 2 | physics steps per env step (dt = 0.02 s) |
  | reset_noise_scale | 0.05 | initial-state noise |
  | obs_dtype | float64 | observation dtype |
  | camera | fixed | MJCF camera of render() (it follows the robot where the model says so) |
  | render_mode, width, height | None, 480, 480 | rendering (rgb_array, depth_array, human) |

  ## Version History
  - v0: initial version.
  """

  task_class = SwingupTask
  xml = "cartpole.xml"
  default_frame_skip = 2
  default_camera = "fixed"
