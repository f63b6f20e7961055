"""The suite's cartpole domain: balance, balance_sparse, swingup, swingup_sparse."""

from typing import NamedTuple

import numpy as np
from numba import njit

from mjgym.envs import rewards
from mjgym.envs.dmc import DmcEnv
from mjgym.envs.dmc import DmcTask
from mjgym.envs.rewards import tolerance_kernel

_ZZ, _XZ = 8, 2  # entries of a row-major xmat: the body z axis' world z and x components


class CartpoleParams(NamedTuple):
  swing_up: bool = False
  sparse: bool = False
  cart_range: tuple = (-0.25, 0.25)
  angle_cosine_range: tuple = (0.995, 1.0)


class CartpoleTask(DmcTask):
  """dm_control's ``cartpole.Balance`` for many worlds at once."""

  Params = CartpoleParams

  def __init__(self, params):
    super().__init__(params)
    self.info_keys = (("reward_cart_in_bounds", "reward_angle_in_bounds") if params.sparse else
                      ("reward_upright", "reward_centered", "reward_small_control", "reward_small_velocity"))

  def observation_layout(self, model):
    npole = model.nbody - 2
    return (("position", (1 + 2 * npole,)), ("velocity", (model.nv,)))

  def reset(self, b, worlds, noise, carry):
    n = len(worlds)
    qpos = np.zeros((n, self.model.nq))
    if self.p.swing_up:
      qpos[:, 0] = 0.01 * noise.normal(1.0, 1)[:, 0]
      qpos[:, 1] = np.pi + 0.01 * noise.normal(1.0, 1)[:, 0]
      qpos[:, 2:] = 0.1 * noise.normal(1.0, self.model.nv - 2)
    else:
      qpos[:, 0] = noise.uniform(-0.1, 0.1, 1)[:, 0]
      qpos[:, 1:] = noise.uniform(-0.034, 0.034, self.model.nv - 1)
    b.qpos[worlds] = qpos
    b.qvel[worlds] = 0.01 * noise.normal(1.0, self.model.nv)

  def observe_sensors(self, b):
    return _observe(b.qpos, b.qvel, b.xmat)

  def post_step(self, b, action, carry):
    lo, hi = self.p.cart_range
    alo, ahi = self.p.angle_cosine_range
    reward, terms = _reward(b.qpos, b.qvel, b.xmat, b.ctrl, self.p.sparse, lo, hi, alo, ahi)
    return reward, np.zeros(len(reward), np.bool_), self.info_dict(terms)


@njit(cache=True)
def _observe(qpos, qvel, xmat):
  """(W, n): cart position, each pole's (z axis z, z axis x) as dm_control's ``bounded_position``, qvel."""
  nworld, npole, nv = qpos.shape[0], xmat.shape[1] - 2, qvel.shape[1]
  obs = np.empty((nworld, 1 + 2 * npole + nv))
  for w in range(nworld):
    obs[w, 0] = qpos[w, 0]
    for k in range(npole):
      obs[w, 1 + 2 * k] = xmat[w, 2 + k, _ZZ]
      obs[w, 2 + 2 * k] = xmat[w, 2 + k, _XZ]
    obs[w, 1 + 2 * npole:] = qvel[w]
  return obs


@njit(cache=True)
def _reward(qpos, qvel, xmat, ctrl, sparse, lo, hi, alo, ahi):
  """(reward (W,), terms (2 or 4, W) as CartpoleTask.info_keys) of every world."""
  nworld, npole = qpos.shape[0], xmat.shape[1] - 2
  reward = np.empty(nworld)
  terms = np.empty((2 if sparse else 4, nworld))
  for w in range(nworld):
    if sparse:
      cart = tolerance_kernel(qpos[w, 0], lo, hi, 0.0, rewards.GAUSSIAN, 0.1)
      angle = 1.0
      for k in range(npole):
        angle *= tolerance_kernel(xmat[w, 2 + k, _ZZ], alo, ahi, 0.0, rewards.GAUSSIAN, 0.1)
      terms[0, w], terms[1, w] = cart, angle
      reward[w] = cart * angle
      continue
    upright = 0.0
    for k in range(npole):
      upright += (xmat[w, 2 + k, _ZZ] + 1.0) / 2.0
    upright /= npole
    centered = (1.0 + tolerance_kernel(qpos[w, 0], 0.0, 0.0, 2.0, rewards.GAUSSIAN, 0.1)) / 2.0
    small_control = (4.0 + tolerance_kernel(ctrl[w, 0], 0.0, 0.0, 1.0, rewards.QUADRATIC, 0.0)) / 5.0
    slowest = 1.0
    for k in range(1, qvel.shape[1]):
      slowest = min(slowest, tolerance_kernel(qvel[w, k], 0.0, 0.0, 5.0, rewards.GAUSSIAN, 0.1))
    small_velocity = (1.0 + slowest) / 2.0
    terms[0, w], terms[1, w], terms[2, w], terms[3, w] = upright, centered, small_control, small_velocity
    reward[w] = upright * small_control * small_velocity * centered
  return reward, terms


class MjDMCCartpoleEnv(DmcEnv):
  """The DeepMind Control Suite's cartpole: swing up and balance a pole on a cart by pushing the cart.

  ## Description
  A cart slides on a rail (slide joint ``slider``, limited to ±1.8 m) with a 1 m pole on a hinge (``hinge_1``,
  angle 0 = upright); one motor pushes the cart. No contacts; RK4 at 100 Hz. mjgym's own model,
  ``mjgym/assets/dmc/cartpole.xml``, compiled equal to dm_control's. The four tasks are this class with the
  registered arguments:

  | Id | swing_up | sparse |
  |----|----------|--------|
  | MjDMC/cartpole-balance-v0 | False | False |
  | MjDMC/cartpole-balance_sparse-v0 | False | True |
  | MjDMC/cartpole-swingup-v0 | True | False |
  | MjDMC/cartpole-swingup_sparse-v0 | True | True |

  ## Action Space
  ``Box(-1, 1, (1,), float32)``: force on the cart, × gear 10 (N).

  ## Observation Space
  dm_control's dict in its order, flat ``Box(-inf, inf, (5,), obs_dtype)`` by default:

  | Key | Num | Quantity | Unit |
  |-----|-----|----------|------|
  | position | 0 | cart position | m |
  | position | 1 | cosine of the pole angle (pole z axis, world z) | - |
  | position | 2 | sine of the pole angle (pole z axis, world x) | - |
  | velocity | 3 | cart velocity | m/s |
  | velocity | 4 | pole angular velocity | rad/s |

  ## Rewards
  Smooth (``sparse=False``): ``upright * small_control * small_velocity * centered``, each in ``info``:
  upright = (cos(angle) + 1) / 2; centered = (1 + tolerance(x, margin=2)) / 2; small_control = (4 +
  tolerance(action, margin=1, value_at_margin=0, quadratic)) / 5; small_velocity = (1 + tolerance(pole angular
  velocity, margin=5)) / 2 (``rewards.tolerance``, gaussian unless named).
  Sparse: ``cart_in_bounds * angle_in_bounds``, 1 while the cart is within ``cart_range`` and the pole angle's
  cosine within ``angle_cosine_range``, else 0.

  ## Starting State
  Balance: cart position uniform in [-0.1, 0.1], pole angle uniform in [-0.034, 0.034]. Swing-up: cart position
  and pole angle - π normal with standard deviation 0.01 (pole down). Velocities normal with deviation 0.01.

  ## Episode End
  - Termination: none.
  - Truncation: 1000 steps (10 s, registration); or when the physics diverges (``info["divergence"]``).

  ## Arguments
  | Argument | Default | Meaning |
  |----------|---------|---------|
  | swing_up | False | start with the pole down |
  | sparse | False | the sparse reward |
  | cart_range | (-0.25, 0.25) | sparse reward's cart bounds, m |
  | angle_cosine_range | (0.995, 1.0) | sparse reward's bounds of the pole angle's cosine |
  | observation | "flat" | "flat" (one Box) or "dict" (dm_control's keys) |
  | frame_skip | 1 | physics steps per env step (dt = 0.01 s, dm_control's control timestep) |
  | obs_dtype | float64 | observation dtype |
  | camera | fixed | MJCF camera of render() |
  | render_mode, width, height | None, 480, 480 | rendering (rgb_array, depth_array, human) |

  ## Version History
  - v0: initial version.
  """

  task_class = CartpoleTask
  xml = "dmc/cartpole.xml"
  default_frame_skip = 1
  default_camera = "fixed"


class MjDMCCartpoleTwoPolesEnv(MjDMCCartpoleEnv):
  """The DeepMind Control Suite's cart-pole with two poles in a chain (MjDMC/cartpole-two_poles-v0, registered
  with ``swing_up=True``): ``MjDMCCartpoleEnv``'s task on ``mjgym/assets/dmc/cartpole_two_poles.xml``. The
  observation is ``position`` (cart position, then each pole's (cosine, sine) of its angle from upright: 5) and
  ``velocity`` (3); upright is the poles' mean and small_velocity the smallest over the poles' angular
  velocities; swing-up draws the second pole's angle normal with deviation 0.1. See ``MjDMCCartpoleEnv`` for the
  rest.

  ## Arguments
  | Argument | Default | Meaning |
  |----------|---------|---------|
  | swing_up | False | start with the poles down (the registered task: True) |
  | sparse | False | the sparse reward |
  | cart_range | (-0.25, 0.25) | sparse reward's cart bounds, m |
  | angle_cosine_range | (0.995, 1.0) | sparse reward's bounds of the poles' angle cosines |
  | observation | "flat" | "flat" (one Box) or "dict" (dm_control's keys) |
  | frame_skip | 1 | physics steps per env step (dt = 0.01 s, dm_control's control timestep) |
  | obs_dtype | float64 | observation dtype |
  | camera | fixed | MJCF camera of render() |
  """

  xml = "dmc/cartpole_two_poles.xml"


class MjDMCCartpoleThreePolesEnv(MjDMCCartpoleEnv):
  """The DeepMind Control Suite's cart-pole with three poles in a chain (MjDMC/cartpole-three_poles-v0,
  registered with ``swing_up=True``): as ``MjDMCCartpoleTwoPolesEnv`` with a third pole
  (``mjgym/assets/dmc/cartpole_three_poles.xml``): ``position`` 7, ``velocity`` 4.

  ## Arguments
  | Argument | Default | Meaning |
  |----------|---------|---------|
  | swing_up | False | start with the poles down (the registered task: True) |
  | sparse | False | the sparse reward |
  | cart_range | (-0.25, 0.25) | sparse reward's cart bounds, m |
  | angle_cosine_range | (0.995, 1.0) | sparse reward's bounds of the poles' angle cosines |
  | observation | "flat" | "flat" (one Box) or "dict" (dm_control's keys) |
  | frame_skip | 1 | physics steps per env step (dt = 0.01 s, dm_control's control timestep) |
  | obs_dtype | float64 | observation dtype |
  | camera | fixed | MJCF camera of render() |
  """

  xml = "dmc/cartpole_three_poles.xml"
