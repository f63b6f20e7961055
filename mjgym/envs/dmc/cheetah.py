"""The suite's cheetah domain: run."""

from typing import NamedTuple

import numpy as np
from numba import njit

from mjgym import physics
from mjgym.envs import rewards
from mjgym.envs.dmc import DmcEnv
from mjgym.envs.dmc import DmcTask
from mjgym.envs.dmc import mask_of
from mjgym.envs.rewards import tolerance_kernel

# dm_control lets the randomized pose settle for 200 physics steps before the episode, the first one mj_step2
# from the forward dynamics its reset evaluated at qpos0: that step's accelerations are those of qpos0 at rest,
# integrated from the randomized qpos. The others are ordinary steps.
_SETTLE_STEPS = 200


class CheetahParams(NamedTuple):
  run_speed: float = 10.0


class CheetahTask(DmcTask):
  """dm_control's ``cheetah.Cheetah`` for many worlds at once."""

  Params = CheetahParams
  info_keys = ("reward_run", "speed")

  def bind(self, model, dt):
    super().bind(model, dt)
    self.limited = np.flatnonzero(model.jnt_limited)
    self.speed_adr = int(model.sensor_adr[physics.mj_name2id(model, physics.mjtObj.mjOBJ_SENSOR,
                                                              "torso_subtreelinvel")])

  def observation_layout(self, model):
    return (("position", (model.nq - 1,)), ("velocity", (model.nv,)))

  def reset(self, b, worlds, noise, carry):
    low, high = self.model.jnt_range[self.limited].T
    qpos = b.qpos[worlds]
    qpos[:, self.model.jnt_qposadr[self.limited]] = low + (high - low) * noise.uniform(0.0, 1.0, len(low))
    mask = mask_of(b, worlds)
    b.observe(mask)  # at qpos0; writing qpos below leaves these stages for the first step to start from
    b.qpos[worlds] = qpos
    b.step_derived(1, mask)
    b.step(_SETTLE_STEPS - 1, mask)
    b.time[worlds] = 0.0

  def observe_sensors(self, b):
    return np.concatenate((b.qpos[:, 1:], b.qvel), axis=1)

  def post_step(self, b, action, carry):
    reward, terms = _reward(b.sensordata, self.speed_adr, self.p.run_speed)
    return reward, np.zeros(len(reward), np.bool_), self.info_dict(terms)


@njit(cache=True)
def _reward(sensordata, speed_adr, run_speed):
  """(reward (W,), terms (2, W) as CheetahTask.info_keys): 1 at ``run_speed`` and above, linear below."""
  nworld = sensordata.shape[0]
  reward = np.empty(nworld)
  terms = np.empty((2, nworld))
  for w in range(nworld):
    speed = sensordata[w, speed_adr]
    reward[w] = tolerance_kernel(speed, run_speed, np.inf, run_speed, rewards.LINEAR, 0.0)
    terms[0, w], terms[1, w] = reward[w], speed
  return reward, terms


class MjDMCCheetahEnv(DmcEnv):
  """The DeepMind Control Suite's cheetah: run forward as fast as possible (MjDMC/cheetah-run-v0).

  ## Description
  A planar cheetah (root slides ``rootx``, ``rootz`` and hinge ``rooty``; six limited, spring-loaded leg
  joints) on a 200 m track; Euler at 100 Hz. mjgym's own model, ``mjgym/assets/dmc/cheetah.xml``, compiled
  equal to dm_control's.

  ## Action Space
  ``Box(-1, 1, (6,), float32)``: torques of bthigh, bshin, bfoot, fthigh, fshin, ffoot (× gears 120, 90, 60,
  90, 60, 30).

  ## Observation Space
  dm_control's dict in its order, flat ``Box(-inf, inf, (17,), obs_dtype)`` by default:

  | Key | Num | Quantity | Unit |
  |-----|-----|----------|------|
  | position | 0-7 | qpos without rootx: rootz, rooty, the six leg joints | m, rad |
  | velocity | 8-16 | qvel: rootx, rootz, rooty, the six leg joints | m/s, rad/s |

  ## Rewards
  ``tolerance(speed, bounds=(run_speed, inf), margin=run_speed, value_at_margin=0, linear)``: 1 at
  ``run_speed`` (10 m/s) and above, falling linearly to 0 at rest; speed is the torso subtree's linear velocity
  along x (sensor ``torso_subtreelinvel``). ``info``: ``reward_run`` and ``speed``.

  ## Starting State
  Limited joints uniform in their ranges, then 200 physics steps without control to settle; the clock starts
  at 0 after them.

  ## Episode End
  - Termination: none.
  - Truncation: 1000 steps (10 s, registration); or when the physics diverges (``info["divergence"]``).

  ## Arguments
  | Argument | Default | Meaning |
  |----------|---------|---------|
  | run_speed | 10.0 | speed of full reward, m/s |
  | observation | "flat" | "flat" (one Box) or "dict" (dm_control's keys) |
  | frame_skip | 1 | physics steps per env step (dt = 0.01 s, dm_control's control timestep) |
  | obs_dtype | float64 | observation dtype |
  | camera | side | MJCF camera of render() (it follows the cheetah) |
  | render_mode, width, height | None, 480, 480 | rendering (rgb_array, depth_array, human) |

  ## Version History
  - v0: initial version.
  """

  task_class = CheetahTask
  xml = "dmc/cheetah.xml"
  default_frame_skip = 1
  default_camera = "side"
