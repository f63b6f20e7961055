"""The suite's reacher domain: easy, hard."""

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


class ReacherParams(NamedTuple):
  target_size: float = 0.05
  target_radius_range: tuple = (0.05, 0.2)


class ReacherTask(DmcTask):
  """dm_control's ``reacher.Reacher`` for many worlds at once. The target is a geom of the world body that
  nothing collides with: its position, drawn every episode, lives in each world's carry (x, y) rather than in
  the shared model, and is written into the world's ``geom_xpos`` whenever kinematics have run (so that the
  observation, the reward and the renderer find it where dm_control's model puts it)."""

  Params = ReacherParams
  info_keys = ("reward_reached", "distance")
  ncarry = 2

  def bind(self, model, dt):
    super().bind(model, dt)
    self.finger = physics.mj_name2id(model, physics.mjtObj.mjOBJ_GEOM, "finger")
    self.target = physics.mj_name2id(model, physics.mjtObj.mjOBJ_GEOM, "target")
    model.geom_size[self.target, 0] = self.p.target_size
    self.radii = float(self.p.target_size + model.geom_size[self.finger, 0])

  def observation_layout(self, model):
    return (("position", (model.nq,)), ("to_target", (2,)), ("velocity", (model.nv,)))

  def reset(self, b, worlds, noise, carry):
    qpos = b.qpos[worlds]
    randomize_limited_and_rotational_joints(self.model, qpos, noise)
    b.qpos[worlds] = qpos
    angle = noise.uniform(0.0, 2.0 * np.pi, 1)[:, 0]
    radius = noise.uniform(*self.p.target_radius_range, 1)[:, 0]
    carry[worlds, 0] = radius * np.sin(angle)
    carry[worlds, 1] = radius * np.cos(angle)

  def start(self, b, worlds, carry):
    b.geom_xpos[worlds, self.target, :2] = carry[worlds]

  def observe_sensors(self, b):
    return _observe(b.qpos, b.qvel, b.geom_xpos, self.finger, self.target)

  def post_step(self, b, action, carry):
    reward, terms = _reward(b.geom_xpos, carry, self.finger, self.target, self.radii)
    return reward, np.zeros(len(reward), np.bool_), self.info_dict(terms)


@njit(cache=True)
def _observe(qpos, qvel, geom_xpos, finger, target):
  """(W, n): qpos, target minus finger in x and y, qvel."""
  nworld, nq, nv = qpos.shape[0], qpos.shape[1], qvel.shape[1]
  obs = np.empty((nworld, nq + 2 + nv))
  for w in range(nworld):
    obs[w, :nq] = qpos[w]
    obs[w, nq] = geom_xpos[w, target, 0] - geom_xpos[w, finger, 0]
    obs[w, nq + 1] = geom_xpos[w, target, 1] - geom_xpos[w, finger, 1]
    obs[w, nq + 2:] = qvel[w]
  return obs


@njit(cache=True)
def _reward(geom_xpos, carry, finger, target, radii):
  """(reward (W,), terms (2, W) as ReacherTask.info_keys): 1 while the finger touches the target, else 0. Puts
  the target of ``carry`` into ``geom_xpos`` first (the step's kinematics placed it at the model's position)."""
  nworld = geom_xpos.shape[0]
  reward = np.empty(nworld)
  terms = np.empty((2, nworld))
  for w in range(nworld):
    geom_xpos[w, target, 0], geom_xpos[w, target, 1] = carry[w, 0], carry[w, 1]
    dx = geom_xpos[w, target, 0] - geom_xpos[w, finger, 0]
    dy = geom_xpos[w, target, 1] - geom_xpos[w, finger, 1]
    distance = math.sqrt(dx * dx + dy * dy)
    reward[w] = tolerance_kernel(distance, 0.0, radii, 0.0, rewards.GAUSSIAN, 0.1)
    terms[0, w], terms[1, w] = reward[w], distance
  return reward, terms


class MjDMCReacherEnv(DmcEnv):
  """The DeepMind Control Suite's reacher: touch a randomly placed target with the fingertip.

  ## Description
  A two-link planar arm (``shoulder`` unlimited, ``wrist`` ±160°) in a walled square; the target, a sphere of
  radius ``target_size``, is placed uniformly in angle at a distance uniform in ``target_radius_range`` from the
  shoulder every episode. No contacts; Euler at 50 Hz. mjgym's own model, ``mjgym/assets/dmc/reacher.xml``,
  compiled equal to dm_control's. The two tasks are this class with the registered arguments:

  | Id | target_size |
  |----|-------------|
  | MjDMC/reacher-easy-v0 | 0.05 |
  | MjDMC/reacher-hard-v0 | 0.015 |

  ## Action Space
  ``Box(-1, 1, (2,), float32)``: torques of shoulder and wrist (× gear 0.05, N m).

  ## Observation Space
  dm_control's dict in its order, flat ``Box(-inf, inf, (6,), obs_dtype)`` by default:

  | Key | Num | Quantity | Unit |
  |-----|-----|----------|------|
  | position | 0-1 | shoulder, wrist angles | rad |
  | to_target | 2-3 | target minus fingertip, x and y | m |
  | velocity | 4-5 | shoulder, wrist angular velocities | rad/s |

  ## Rewards
  Sparse: 1 while the fingertip-to-target distance (in the plane) is at most the sum of their radii, else 0
  (``info["reward_reached"]``, with ``info["distance"]``).

  ## Starting State
  Shoulder uniform in [-π, π], wrist uniform in its range, at rest; the target as described.

  ## Episode End
  - Termination: none.
  - Truncation: 1000 steps (20 s, registration); or when the physics diverges (``info["divergence"]``).

  ## Arguments
  | Argument | Default | Meaning |
  |----------|---------|---------|
  | target_size | 0.05 | target radius, m |
  | target_radius_range | (0.05, 0.2) | range of the target's distance from the shoulder, m |
  | observation | "flat" | "flat" (one Box) or "dict" (dm_control's keys) |
  | frame_skip | 1 | physics steps per env step (dt = 0.02 s, dm_control's control timestep) |
  | obs_dtype | float64 | observation dtype |
  | camera | fixed | MJCF camera of render() |
  | render_mode, width, height | None, 480, 480 | rendering (rgb_array, depth_array, human) |

  ## Version History
  - v0: initial version.
  """

  task_class = ReacherTask
  xml = "dmc/reacher.xml"
  default_frame_skip = 1
  default_camera = "fixed"
