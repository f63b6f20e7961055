"""The suite's pendulum domain: swingup."""

from typing import NamedTuple

import numpy as np
from numba import njit

from mjgym import physics
from mjgym.envs import rewards
from mjgym.envs.dmc import DmcEnv
from mjgym.envs.dmc import DmcTask
from mjgym.envs.rewards import tolerance_kernel

_XZ, _ZZ = 2, 8  # entries of a row-major xmat


class PendulumParams(NamedTuple):
  angle_bound: float = 8.0


class PendulumTask(DmcTask):
  """dm_control's ``pendulum.SwingUp`` for many worlds at once."""

  Params = PendulumParams
  info_keys = ("reward_upright",)

  def bind(self, model, dt):
    super().bind(model, dt)
    self.pole = physics.mj_name2id(model, physics.mjtObj.mjOBJ_BODY, "pole")
    self.cosine_bound = float(np.cos(np.deg2rad(self.p.angle_bound)))

  def observation_layout(self, model):
    return (("orientation", (2,)), ("velocity", (1,)))

  def reset(self, b, worlds, noise, carry):
    b.qpos[worlds, 0] = noise.uniform(-np.pi, np.pi, 1)[:, 0]

  def observe_sensors(self, b):
    return _observe(b.xmat, b.qvel, self.pole)

  def post_step(self, b, action, carry):
    reward, terms = _reward(b.xmat, self.pole, self.cosine_bound)
    return reward, np.zeros(len(reward), np.bool_), self.info_dict(terms)


@njit(cache=True)
def _observe(xmat, qvel, pole):
  obs = np.empty((xmat.shape[0], 3))
  for w in range(xmat.shape[0]):
    obs[w, 0], obs[w, 1], obs[w, 2] = xmat[w, pole, _ZZ], xmat[w, pole, _XZ], qvel[w, 0]
  return obs


@njit(cache=True)
def _reward(xmat, pole, cosine_bound):
  """(reward (W,), terms (1, W)): 1 while the pole is within the angle bound of upright, else 0."""
  nworld = xmat.shape[0]
  reward = np.empty(nworld)
  for w in range(nworld):
    reward[w] = tolerance_kernel(xmat[w, pole, _ZZ], cosine_bound, 1.0, 0.0, rewards.GAUSSIAN, 0.1)
  return reward, reward.reshape(1, nworld).copy()


class MjDMCPendulumEnv(DmcEnv):
  """The DeepMind Control Suite's pendulum: swing a torque-limited pendulum up and hold it
  (MjDMC/pendulum-swingup-v0).

  ## Description
  A 0.5 m pole with a 1 kg tip on a damped hinge (``hinge``, angle 0 = upright); its motor is too weak to lift
  it directly. No contacts; Euler at 50 Hz. mjgym's own model, ``mjgym/assets/dmc/pendulum.xml``, compiled
  equal to dm_control's.

  ## Action Space
  ``Box(-1, 1, (1,), float32)``: torque on the hinge (N m).

  ## Observation Space
  dm_control's dict in its order, flat ``Box(-inf, inf, (3,), obs_dtype)`` by default:

  | Key | Num | Quantity | Unit |
  |-----|-----|----------|------|
  | orientation | 0 | cosine of the pole angle (pole z axis, world z) | - |
  | orientation | 1 | sine of the pole angle (pole z axis, world x) | - |
  | velocity | 2 | angular velocity | rad/s |

  ## Rewards
  Sparse: 1 while the pole is within ``angle_bound`` degrees of upright (its angle's cosine within
  [cos(angle_bound), 1]), else 0 (``info["reward_upright"]``).

  ## Starting State
  Angle uniform in [-π, π), at rest.

  ## Episode End
  - Termination: none.
  - Truncation: 1000 steps (20 s, registration); or when the physics diverges (``info["divergence"]``).

  ## Arguments
  | Argument | Default | Meaning |
  |----------|---------|---------|
  | angle_bound | 8.0 | degrees from upright that earn the reward |
  | observation | "flat" | "flat" (one Box) or "dict" (dm_control's keys) |
  | frame_skip | 1 | physics steps per env step (dt = 0.02 s, dm_control's control timestep) |
  | obs_dtype | float64 | observation dtype |
  | camera | fixed | MJCF camera of render() |
  | render_mode, width, height | None, 480, 480 | rendering (rgb_array, depth_array, human) |

  ## Version History
  - v0: initial version.
  """

  task_class = PendulumTask
  xml = "dmc/pendulum.xml"
  default_frame_skip = 1
  default_camera = "fixed"
