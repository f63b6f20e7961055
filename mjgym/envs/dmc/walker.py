"""The suite's walker domain: stand, walk, run."""

from typing import NamedTuple

import numpy as np
from numba import njit

from mjgym import physics
from mjgym.envs import rewards
from mjgym.envs.dmc import DmcEnv
from mjgym.envs.dmc import DmcTask
from mjgym.envs.dmc import randomize_limited_and_rotational_joints
from mjgym.envs.rewards import tolerance_kernel

_XX, _XZ, _ZZ = 0, 2, 8  # entries of a row-major xmat


class WalkerParams(NamedTuple):
  move_speed: float = 0.0
  stand_height: float = 1.2


class WalkerTask(DmcTask):
  """dm_control's ``walker.PlanarWalker`` for many worlds at once."""

  Params = WalkerParams

  def __init__(self, params):
    super().__init__(params)
    self.info_keys = ("reward_standing", "reward_upright") + (("reward_move",) if params.move_speed else ())

  def bind(self, model, dt):
    super().bind(model, dt)
    self.torso = physics.mj_name2id(model, physics.mjtObj.mjOBJ_BODY, "torso")
    self.speed_adr = int(model.sensor_adr[physics.mj_name2id(model, physics.mjtObj.mjOBJ_SENSOR,
                                                              "torso_subtreelinvel")])

  def observation_layout(self, model):
    return (("orientations", (2 * (model.nbody - 1),)), ("height", ()), ("velocity", (model.nv,)))

  def reset(self, b, worlds, noise, carry):
    qpos = b.qpos[worlds]
    randomize_limited_and_rotational_joints(self.model, qpos, noise)
    b.qpos[worlds] = qpos

  def observe_sensors(self, b):
    return _observe(b.xmat, b.xpos, b.qvel, self.torso)

  def post_step(self, b, action, carry):
    reward, terms = _reward(b.xmat, b.xpos, b.sensordata, self.torso, self.speed_adr, self.p.stand_height,
                            self.p.move_speed)
    return reward, np.zeros(len(reward), np.bool_), self.info_dict(terms)


@njit(cache=True)
def _observe(xmat, xpos, qvel, torso):
  """(W, n): the xmat entries xx and xz of every body but the world, the torso height, qvel."""
  nworld, nbody, nv = xmat.shape[0], xmat.shape[1], qvel.shape[1]
  obs = np.empty((nworld, 2 * (nbody - 1) + 1 + nv))
  for w in range(nworld):
    for i in range(1, nbody):
      obs[w, 2 * i - 2] = xmat[w, i, _XX]
      obs[w, 2 * i - 1] = xmat[w, i, _XZ]
    obs[w, 2 * nbody - 2] = xpos[w, torso, 2]
    obs[w, 2 * nbody - 1:] = qvel[w]
  return obs


@njit(cache=True)
def _reward(xmat, xpos, sensordata, torso, speed_adr, stand_height, move_speed):
  """(reward (W,), terms (2 or 3, W) as WalkerTask.info_keys) of every world."""
  nworld = xmat.shape[0]
  reward = np.empty(nworld)
  terms = np.empty((3 if move_speed else 2, nworld))
  for w in range(nworld):
    standing = tolerance_kernel(xpos[w, torso, 2], stand_height, np.inf, stand_height / 2, rewards.GAUSSIAN, 0.1)
    upright = (1.0 + xmat[w, torso, _ZZ]) / 2.0
    terms[0, w], terms[1, w] = standing, upright
    stand = (3.0 * standing + upright) / 4.0
    if move_speed:
      move = tolerance_kernel(sensordata[w, speed_adr], move_speed, np.inf, move_speed / 2, rewards.LINEAR, 0.5)
      terms[2, w] = move
      reward[w] = stand * (5.0 * move + 1.0) / 6.0
    else:
      reward[w] = stand
  return reward, terms


class MjDMCWalkerEnv(DmcEnv):
  """The DeepMind Control Suite's planar walker: stand up, walk or run.

  ## Description
  A planar biped (root slides ``rootz``, ``rootx`` and hinge ``rooty``; hip, knee and ankle on each leg) on a
  500 m floor; Euler at 400 Hz, 10 physics steps per control step. mjgym's own model,
  ``mjgym/assets/dmc/walker.xml``, compiled equal to dm_control's. The three tasks are this class with the
  registered arguments:

  | Id | move_speed |
  |----|------------|
  | MjDMC/walker-stand-v0 | 0 |
  | MjDMC/walker-walk-v0 | 1 |
  | MjDMC/walker-run-v0 | 8 |

  ## Action Space
  ``Box(-1, 1, (6,), float32)``: torques of right hip, knee, ankle, left hip, knee, ankle (× gears 100, 50, 20).

  ## Observation Space
  dm_control's dict in its order, flat ``Box(-inf, inf, (24,), obs_dtype)`` by default:

  | Key | Num | Quantity | Unit |
  |-----|-----|----------|------|
  | orientations | 0-13 | each body's xmat entries xx, xz (torso, then right thigh, leg, foot, left ...) | - |
  | height | 14 | torso height | m |
  | velocity | 15-23 | qvel: rootz, rootx, rooty, the six leg joints | m/s, rad/s |

  ## Rewards
  ``stand = (3 * standing + upright) / 4`` with standing = tolerance(torso height, bounds=(stand_height, inf),
  margin=stand_height / 2) and upright = (1 + torso z axis' world z) / 2. Stand task (``move_speed`` = 0):
  ``stand``; otherwise ``stand * (5 * move + 1) / 6`` with move = tolerance(horizontal speed of the torso
  subtree, bounds=(move_speed, inf), margin=move_speed / 2, value_at_margin=0.5, linear). The terms are in
  ``info``.

  ## Starting State
  dm_control's ``randomize_limited_and_rotational_joints``: leg joints uniform in their ranges, the root hinge
  uniform in [-π, π] (the walker falls to the floor first), at rest.

  ## Episode End
  - Termination: none.
  - Truncation: 1000 steps (25 s, registration); or when the physics diverges (``info["divergence"]``).

  ## Arguments
  | Argument | Default | Meaning |
  |----------|---------|---------|
  | move_speed | 0.0 | speed of full move reward, m/s (0: the stand task) |
  | stand_height | 1.2 | torso height of full standing reward, m |
  | observation | "flat" | "flat" (one Box) or "dict" (dm_control's keys) |
  | frame_skip | 10 | physics steps per env step (dt = 0.025 s, dm_control's control timestep) |
  | obs_dtype | float64 | observation dtype |
  | camera | side | MJCF camera of render() (it follows the walker) |
  | render_mode, width, height | None, 480, 480 | rendering (rgb_array, depth_array, human) |

  ## Version History
  - v0: initial version.
  """

  task_class = WalkerTask
  xml = "dmc/walker.xml"
  default_frame_skip = 10
  default_camera = "side"
