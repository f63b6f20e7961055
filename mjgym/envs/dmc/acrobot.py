"""The suite's acrobot domain: swingup, swingup_sparse."""

import math
from typing import NamedTuple

import numpy as np
from numba import njit

from mjgym import physics
from mjgym.envs import rewards
from mjgym.envs.dmc import DmcEnv
from mjgym.envs.dmc import DmcTask
from mjgym.envs.rewards import tolerance_kernel

_XZ, _ZZ = 2, 8  # entries of a row-major xmat


class AcrobotParams(NamedTuple):
  sparse: bool = False


class AcrobotTask(DmcTask):
  """dm_control's ``acrobot.Balance`` for many worlds at once."""

  Params = AcrobotParams
  info_keys = ("reward_near_target", "distance")

  def bind(self, model, dt):
    super().bind(model, dt)
    obj = physics.mjtObj
    self.arms = np.array([physics.mj_name2id(model, obj.mjOBJ_BODY, name) for name in ("upper_arm", "lower_arm")],
                         np.intp)
    self.tip = physics.mj_name2id(model, obj.mjOBJ_SITE, "tip")
    self.target = physics.mj_name2id(model, obj.mjOBJ_SITE, "target")
    self.target_radius = float(model.site_size[self.target, 0])

  def observation_layout(self, model):
    return (("orientations", (4,)), ("velocity", (model.nv,)))

  def reset(self, b, worlds, noise, carry):
    b.qpos[worlds] = noise.uniform(-np.pi, np.pi, self.model.nq)

  def observe_sensors(self, b):
    return _observe(b.xmat, b.qvel, self.arms)

  def post_step(self, b, action, carry):
    reward, terms = _reward(b.site_xpos, self.tip, self.target, self.target_radius, 0.0 if self.p.sparse else 1.0)
    return reward, np.zeros(len(reward), np.bool_), self.info_dict(terms)


@njit(cache=True)
def _observe(xmat, qvel, arms):
  """(W, n): both arms' xmat entries xz, then both zz (sine and cosine of their angles), qvel."""
  nworld, nv = xmat.shape[0], qvel.shape[1]
  obs = np.empty((nworld, 4 + nv))
  for w in range(nworld):
    obs[w, 0], obs[w, 1] = xmat[w, arms[0], _XZ], xmat[w, arms[1], _XZ]
    obs[w, 2], obs[w, 3] = xmat[w, arms[0], _ZZ], xmat[w, arms[1], _ZZ]
    obs[w, 4:] = qvel[w]
  return obs


@njit(cache=True)
def _reward(site_xpos, tip, target, target_radius, margin):
  """(reward (W,), terms (2, W) as AcrobotTask.info_keys): tolerance of the tip's distance to the target."""
  nworld = site_xpos.shape[0]
  reward = np.empty(nworld)
  terms = np.empty((2, nworld))
  for w in range(nworld):
    d = site_xpos[w, target] - site_xpos[w, tip]
    distance = math.sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2])
    reward[w] = tolerance_kernel(distance, 0.0, target_radius, margin, rewards.GAUSSIAN, 0.1)
    terms[0, w], terms[1, w] = reward[w], distance
  return reward, terms


class MjDMCAcrobotEnv(DmcEnv):
  """The DeepMind Control Suite's acrobot: swing the tip of a two-link pendulum, actuated at the elbow only, up
  to a target above it.

  ## Description
  Two 1 m links on hinges (``shoulder`` passive, ``elbow`` with a motor); the target is a sphere of radius 0.2 m
  4 m above the floor (the tip's height when both links point up). No constraints; RK4 at 100 Hz. mjgym's own
  model, ``mjgym/assets/dmc/acrobot.xml``, compiled equal to dm_control's. The two tasks are this class with
  the registered arguments:

  | Id | sparse |
  |----|--------|
  | MjDMC/acrobot-swingup-v0 | False |
  | MjDMC/acrobot-swingup_sparse-v0 | True |

  ## Action Space
  ``Box(-1, 1, (1,), float32)``: elbow torque (× gear 2, N m).

  ## Observation Space
  dm_control's dict in its order, flat ``Box(-inf, inf, (6,), obs_dtype)`` by default:

  | Key | Num | Quantity | Unit |
  |-----|-----|----------|------|
  | orientations | 0-1 | sine of the upper and lower arm's angles from upright (xmat entry xz) | - |
  | orientations | 2-3 | their cosines (xmat entry zz) | - |
  | velocity | 4-5 | shoulder, elbow angular velocities | rad/s |

  ## Rewards
  ``tolerance(distance from the tip to the target's centre, bounds=(0, 0.2), margin)``, gaussian, with margin 1
  (smooth) or 0 (``sparse``: 1 while the tip is in the target, else 0). ``info``: ``reward_near_target`` and
  ``distance``.

  ## Starting State
  Both angles uniform in [-π, π), at rest.

  ## Episode End
  - Termination: none.
  - Truncation: 1000 steps (10 s, registration); or when the physics diverges (``info["divergence"]``).

  ## Arguments
  | Argument | Default | Meaning |
  |----------|---------|---------|
  | sparse | False | the sparse reward |
  | observation | "flat" | "flat" (one Box) or "dict" (dm_control's keys) |
  | frame_skip | 1 | physics steps per env step (dt = 0.01 s, dm_control's control timestep) |
  | obs_dtype | float64 | observation dtype |
  | camera | fixed | MJCF camera of render() |
  | render_mode, width, height | None, 480, 480 | rendering (rgb_array, depth_array, human) |

  ## Version History
  - v0: initial version.
  """

  task_class = AcrobotTask
  xml = "dmc/acrobot.xml"
  default_frame_skip = 1
  default_camera = "fixed"
