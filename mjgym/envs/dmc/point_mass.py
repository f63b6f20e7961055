"""The suite's point_mass domain: easy."""

import math
from typing import NamedTuple

import numpy as np
from numba import njit

from mjgym import physics
from mjgym.envs import rewards
from mjgym.envs.dmc import DmcEnv
from mjgym.envs.dmc import DmcTask
from mjgym.envs.dmc import randomize_limited_and_rotational_joints
from mjgym.envs.rewards import tolerance_kernel


class PointMassParams(NamedTuple):
  pass


class PointMassTask(DmcTask):
  """dm_control's ``point_mass.PointMass`` (fixed gains: the easy task) for many worlds at once."""

  Params = PointMassParams
  info_keys = ("reward_near_target", "reward_small_control")

  def bind(self, model, dt):
    super().bind(model, dt)
    self.mass = physics.mj_name2id(model, physics.mjtObj.mjOBJ_GEOM, "pointmass")
    self.target = physics.mj_name2id(model, physics.mjtObj.mjOBJ_GEOM, "target")
    self.target_size = float(model.geom_size[self.target, 0])

  def observation_layout(self, model):
    return (("position", (model.nq,)), ("velocity", (model.nv,)))

  def reset(self, b, worlds, noise, carry):
    qpos = b.qpos[worlds]
    randomize_limited_and_rotational_joints(self.model, qpos, noise)
    b.qpos[worlds] = qpos

  def observe_sensors(self, b):
    return np.concatenate((b.qpos, b.qvel), axis=1)

  def post_step(self, b, action, carry):
    reward, terms = _reward(b.geom_xpos, b.ctrl, self.mass, self.target, self.target_size)
    return reward, np.zeros(len(reward), np.bool_), self.info_dict(terms)


@njit(cache=True)
def _reward(geom_xpos, ctrl, mass, target, target_size):
  """(reward (W,), terms (2, W) as PointMassTask.info_keys) of every world."""
  nworld, nu = ctrl.shape
  reward = np.empty(nworld)
  terms = np.empty((2, nworld))
  for w in range(nworld):
    d = geom_xpos[w, target] - geom_xpos[w, mass]
    near = tolerance_kernel(math.sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]), 0.0, target_size, target_size,
                            rewards.GAUSSIAN, 0.1)
    control = 0.0
    for i in range(nu):
      control += tolerance_kernel(ctrl[w, i], 0.0, 0.0, 1.0, rewards.QUADRATIC, 0.0)
    small_control = (control / nu + 4.0) / 5.0
    terms[0, w], terms[1, w] = near, small_control
    reward[w] = near * small_control
  return reward, terms


class MjDMCPointMassEnv(DmcEnv):
  """The DeepMind Control Suite's point mass: bring a mass to the target at the centre
  (MjDMC/point_mass-easy-v0).

  ## Description
  A 0.3 kg sphere on two limited slides (``root_x``, ``root_y``, ±0.29 m) in a walled square, each slide pushed
  by one motor through a fixed tendon; the target is a sphere of radius 0.015 m at the centre. No contacts;
  Euler at 50 Hz. mjgym's own model, ``mjgym/assets/dmc/point_mass.xml``, compiled equal to dm_control's.

  ## Action Space
  ``Box(-1, 1, (2,), float32)``: forces along x and y (× gear 0.1, N).

  ## Observation Space
  dm_control's dict in its order, flat ``Box(-inf, inf, (4,), obs_dtype)`` by default:

  | Key | Num | Quantity | Unit |
  |-----|-----|----------|------|
  | position | 0-1 | x, y | m |
  | velocity | 2-3 | x, y velocity | m/s |

  ## Rewards
  ``near_target * small_control``, both in ``info``: near_target = tolerance(distance to the target,
  bounds=(0, r), margin=r) with r the target's radius; small_control = (4 + mean of tolerance(action,
  margin=1, value_at_margin=0, quadratic)) / 5.

  ## Starting State
  Both slides uniform in their range, at rest.

  ## Episode End
  - Termination: none.
  - Truncation: 1000 steps (20 s, registration); or when the physics diverges (``info["divergence"]``).

  ## Arguments
  | Argument | Default | Meaning |
  |----------|---------|---------|
  | observation | "flat" | "flat" (one Box) or "dict" (dm_control's keys) |
  | frame_skip | 1 | physics steps per env step (dt = 0.02 s, dm_control's control timestep) |
  | obs_dtype | float64 | observation dtype |
  | camera | fixed | MJCF camera of render() |
  | render_mode, width, height | None, 480, 480 | rendering (rgb_array, depth_array, human) |

  ## Version History
  - v0: initial version (the easy task; the hard task's random actuation directions are to come).
  """

  task_class = PointMassTask
  xml = "dmc/point_mass.xml"
  default_frame_skip = 1
  default_camera = "fixed"
