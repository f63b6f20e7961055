"""The suite's ball_in_cup domain: catch."""

from typing import NamedTuple

import numpy as np
from numba import njit

from mjgym import physics
from mjgym.envs.dmc import DmcEnv
from mjgym.envs.dmc import DmcTask
from mjgym.envs.dmc import until_contact_free


class BallInCupParams(NamedTuple):
  ball_x_range: tuple = (-0.2, 0.2)
  ball_z_range: tuple = (0.2, 0.5)


class BallInCupTask(DmcTask):
  """dm_control's ``ball_in_cup.BallInCup`` for many worlds at once."""

  Params = BallInCupParams
  info_keys = ("reward_in_target",)

  def bind(self, model, dt):
    super().bind(model, dt)
    name2id = physics.mj_name2id
    self.ball = name2id(model, physics.mjtObj.mjOBJ_BODY, "ball")
    self.target = name2id(model, physics.mjtObj.mjOBJ_SITE, "target")
    ball_size = model.geom_size[name2id(model, physics.mjtObj.mjOBJ_GEOM, "ball"), 0]
    # The ball is in the cup while its centre is this close to the target's in x and in z.
    self.inner = np.array([model.site_size[self.target, 0] - ball_size, model.site_size[self.target, 2] - ball_size])
    joints = [name2id(model, physics.mjtObj.mjOBJ_JOINT, name) for name in ("ball_x", "ball_z")]
    self.ball_adr = model.jnt_qposadr[joints]

  def observation_layout(self, model):
    return (("position", (model.nq,)), ("velocity", (model.nv,)))

  def reset(self, b, worlds, noise, carry):
    def propose(qpos):
      qpos[:, self.ball_adr[0]] = noise.uniform(*self.p.ball_x_range, 1)[:, 0]
      qpos[:, self.ball_adr[1]] = noise.uniform(*self.p.ball_z_range, 1)[:, 0]
    until_contact_free(b, worlds, propose)

  def observe_sensors(self, b):
    return np.concatenate((b.qpos, b.qvel), axis=1)

  def post_step(self, b, action, carry):
    reward = _in_target(b.site_xpos, b.xpos, self.target, self.ball, self.inner)
    return reward, np.zeros(len(reward), np.bool_), {"reward_in_target": reward.copy()}


@njit(cache=True)
def _in_target(site_xpos, xpos, target, ball, inner):
  """(W,) 1 where the ball's centre is within ``inner`` of the target's in x and in z, else 0."""
  nworld = xpos.shape[0]
  reward = np.empty(nworld)
  for w in range(nworld):
    inside = (abs(site_xpos[w, target, 0] - xpos[w, ball, 0]) < inner[0]
              and abs(site_xpos[w, target, 2] - xpos[w, ball, 2]) < inner[1])
    reward[w] = 1.0 if inside else 0.0
  return reward


class MjDMCBallInCupEnv(DmcEnv):
  """The DeepMind Control Suite's ball in cup: swing the ball on its string into the cup
  (MjDMC/ball_in_cup-catch-v0).

  ## Description
  A cup on two sprung, damped slides (``cup_x``, ``cup_z``), each with a motor, and a ball (``ball_x``,
  ``ball_z``) tied to the cup's bottom by a 0.3 m string; Euler at 500 Hz, 10 physics steps per control step.
  mjgym's own model, ``mjgym/assets/dmc/ball_in_cup.xml``, compiled equal to dm_control's.

  ## Action Space
  ``Box(-1, 1, (2,), float32)``: forces on the cup along x and z (× gear 5, N).

  ## Observation Space
  dm_control's dict in its order, flat ``Box(-inf, inf, (8,), obs_dtype)`` by default:

  | Key | Num | Quantity | Unit |
  |-----|-----|----------|------|
  | position | 0-3 | cup_x, cup_z, ball_x, ball_z | m |
  | velocity | 4-7 | their velocities | m/s |

  ## Rewards
  Sparse: 1 while the ball's centre is inside the cup's target box (shrunk by the ball's radius) in x and z,
  else 0 (``info["reward_in_target"]``).

  ## Starting State
  The cup at rest at its origin; the ball uniform in ``ball_x_range`` × ``ball_z_range``, drawn again while it
  touches anything (dm_control's rejection), at rest.

  ## Episode End
  - Termination: none.
  - Truncation: 1000 steps (20 s, registration); or when the physics diverges (``info["divergence"]``).

  ## Arguments
  | Argument | Default | Meaning |
  |----------|---------|---------|
  | ball_x_range | (-0.2, 0.2) | range of the ball's initial x, m |
  | ball_z_range | (0.2, 0.5) | range of the ball's initial z (relative to its body's origin), m |
  | observation | "flat" | "flat" (one Box) or "dict" (dm_control's keys) |
  | frame_skip | 10 | physics steps per env step (dt = 0.02 s, dm_control's control timestep) |
  | obs_dtype | float64 | observation dtype |
  | camera | cam0 | MJCF camera of render() |
  | render_mode, width, height | None, 480, 480 | rendering (rgb_array, depth_array, human) |

  ## Version History
  - v0: initial version.
  """

  task_class = BallInCupTask
  xml = "dmc/ball_in_cup.xml"
  default_frame_skip = 10
  default_camera = "cam0"
