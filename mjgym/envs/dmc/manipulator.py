"""The suite's manipulator domain: bring_ball."""

import math
from typing import NamedTuple

import numpy as np
from numba import njit

from mjgym import physics
from mjgym.envs import rewards
from mjgym.envs.dmc import DmcEnv
from mjgym.envs.dmc import DmcTask
from mjgym.envs.dmc import mask_of
from mjgym.envs.rewards import tolerance_kernel

_ARM_JOINTS = ("arm_root", "arm_shoulder", "arm_elbow", "arm_wrist", "finger", "fingertip", "thumb", "thumbtip")
_OBJECT_JOINTS = ("ball_x", "ball_z", "ball_y")
_TOUCH_SENSORS = ("palm_touch", "finger_touch", "thumb_touch", "fingertip_touch", "thumbtip_touch")
_XX, _ZX = 0, 6  # entries of a row-major xmat


class ManipulatorParams(NamedTuple):
  close: float = 0.01
  p_in_hand: float = 0.1
  p_in_target: float = 0.1
  max_attempts: int = 1000


class ManipulatorTask(DmcTask):
  """dm_control's ``manipulator.Bring`` with the ball (fully observable) for many worlds at once. The target is
  a body of the world without joints or contacts (a ghost): its pose in the x-z plane (x, z, angle about y),
  drawn every episode, lives in each world's carry and is written into the body's, its geom's and its site's
  poses whenever kinematics have run."""

  Params = ManipulatorParams
  info_keys = ("reward_bring", "distance")
  ncarry = 3

  def bind(self, model, dt):
    super().bind(model, dt)
    obj = physics.mjtObj
    joint = [physics.mj_name2id(model, obj.mjOBJ_JOINT, name) for name in _ARM_JOINTS + _OBJECT_JOINTS]
    self.arm_qpos = model.jnt_qposadr[joint[:len(_ARM_JOINTS)]]
    self.arm_dof = model.jnt_dofadr[joint[:len(_ARM_JOINTS)]]
    self.object_qpos = model.jnt_qposadr[joint[len(_ARM_JOINTS):]]
    self.object_dof = model.jnt_dofadr[joint[len(_ARM_JOINTS):]]
    limited = model.jnt_limited[joint[:len(_ARM_JOINTS)]].astype(bool)
    low, high = model.jnt_range[joint[:len(_ARM_JOINTS)]].T
    self.arm_low, self.arm_high = np.where(limited, low, -np.pi), np.where(limited, high, np.pi)
    self.finger, self.thumb = (self.arm_qpos[_ARM_JOINTS.index(name)] for name in ("finger", "thumb"))
    self.touch = np.array([model.sensor_adr[physics.mj_name2id(model, obj.mjOBJ_SENSOR, name)]
                           for name in _TOUCH_SENSORS], np.intp)
    self.held_sensors = self.touch
    self.bodies = np.array([physics.mj_name2id(model, obj.mjOBJ_BODY, name)
                            for name in ("hand", "ball", "target_ball")], np.intp)
    self.target_geom = physics.mj_name2id(model, obj.mjOBJ_GEOM, "target_ball")
    self.sites = np.array([physics.mj_name2id(model, obj.mjOBJ_SITE, name) for name in ("ball", "target_ball")],
                          np.intp)
    self.grasp = physics.mj_name2id(model, obj.mjOBJ_SITE, "grasp")

  def observation_layout(self, model):
    narm = len(_ARM_JOINTS)
    return (("arm_pos", (narm, 2)), ("arm_vel", (narm,)), ("touch", (len(_TOUCH_SENSORS),)), ("hand_pos", (4,)),
            ("object_pos", (4,)), ("object_vel", (len(_OBJECT_JOINTS),)), ("target_pos", (4,)))

  def reset(self, b, worlds, noise, carry):
    """dm_control's loop: arm, target and ball drawn until nothing touches. Every attempt draws for all of
    ``worlds`` (a world's numbers never depend on the others'); a world keeps its first state without contacts
    and the ball velocity of its last uniform placement, as dm_control's loop leaves it."""
    n, p = len(worlds), self.p
    pending = np.ones(n, np.bool_)
    ball_vx = np.zeros(n)
    for _ in range(p.max_attempts):
      arm = noise.uniform(0.0, 1.0, len(_ARM_JOINTS)) * (self.arm_high - self.arm_low) + self.arm_low
      target = np.column_stack([noise.uniform(-0.4, 0.4, 1)[:, 0], noise.uniform(0.1, 0.4, 1)[:, 0],
                                noise.uniform(-np.pi, np.pi, 1)[:, 0]])
      kind = noise.uniform(0.0, 1.0, 1)[:, 0]
      spread = np.column_stack([noise.uniform(-0.5, 0.5, 1)[:, 0], noise.uniform(0.0, 0.7, 1)[:, 0],
                                noise.uniform(0.0, 2.0 * np.pi, 1)[:, 0]])
      vx = noise.uniform(-5.0, 5.0, 1)[:, 0]
      rows = worlds[pending]
      qpos = b.qpos[rows]
      qpos[:, self.arm_qpos] = arm[pending]
      qpos[:, self.finger] = qpos[:, self.thumb]
      b.qpos[rows] = qpos
      b.forward(mask_of(b, rows))  # the grasp site of the new arm, for a ball placed in the hand
      in_hand, in_target = kind < p.p_in_hand, (kind >= p.p_in_hand) & (kind < p.p_in_hand + p.p_in_target)
      grasp_xpos, grasp_xmat = b.site_xpos[worlds, self.grasp], b.site_xmat[worlds, self.grasp]
      hand = np.column_stack([grasp_xpos[:, 0], grasp_xpos[:, 2],
                              np.pi - np.arctan2(grasp_xmat[:, _ZX], grasp_xmat[:, _XX])])
      ball = np.where(in_hand[:, None], hand, np.where(in_target[:, None], target, spread))
      uniform = pending & ~in_hand & ~in_target
      ball_vx[uniform] = vx[uniform]
      qpos[:, self.object_qpos] = ball[pending]
      b.qpos[rows] = qpos
      b.qvel[rows[:, None], self.object_dof[0]] = ball_vx[pending, None]
      carry[rows] = target[pending]
      b.forward(mask_of(b, rows))
      pending[pending] = b.ncon[rows, 0] > 0
      if not pending.any():
        return
    raise RuntimeError(f"no contact-free initial state in {p.max_attempts} attempts")

  def start(self, b, worlds, carry):
    _place_target(b.xpos, b.xquat, b.xmat, b.geom_xpos, b.geom_xmat, b.site_xpos, b.site_xmat, carry, worlds,
                  self.bodies[2], self.target_geom, self.sites[1])

  def observe_sensors(self, b):
    return _observe(b.qpos, b.qvel, b.xpos, b.xquat, b.sensordata, self.arm_qpos, self.arm_dof, self.touch,
                    self.bodies, self.object_dof)

  def post_step(self, b, action, carry):
    _place_target(b.xpos, b.xquat, b.xmat, b.geom_xpos, b.geom_xmat, b.site_xpos, b.site_xmat, carry,
                  np.arange(len(carry)), self.bodies[2], self.target_geom, self.sites[1])
    reward, terms = _reward(b.site_xpos, self.sites, self.p.close)
    return reward, np.zeros(len(reward), np.bool_), self.info_dict(terms)


@njit(cache=True)
def _place_target(xpos, xquat, xmat, geom_xpos, geom_xmat, site_xpos, site_xmat, carry, worlds, body, geom, site):
  """The target body (and its geom and site, at its origin) at (x, z) of ``carry``, turned about y by its
  angle, as kinematics place a jointless body of the world."""
  for w in worlds:
    x, z, angle = carry[w, 0], carry[w, 1], carry[w, 2]
    qw, qy = math.cos(angle / 2), math.sin(angle / 2)
    xquat[w, body, 0], xquat[w, body, 1], xquat[w, body, 2], xquat[w, body, 3] = qw, 0.0, qy, 0.0
    c, s = qw * qw - qy * qy, 2.0 * qw * qy
    for out, i in ((xpos, body), (geom_xpos, geom), (site_xpos, site)):
      out[w, i, 0], out[w, i, 2] = x, z
    for out, i in ((xmat, body), (geom_xmat, geom), (site_xmat, site)):
      out[w, i, 0], out[w, i, 1], out[w, i, 2] = c, 0.0, s
      out[w, i, 3], out[w, i, 4], out[w, i, 5] = 0.0, 1.0, 0.0
      out[w, i, 6], out[w, i, 7], out[w, i, 8] = -s, 0.0, c


@njit(cache=True)
def _observe(qpos, qvel, xpos, xquat, sensordata, arm_qpos, arm_dof, touch, bodies, object_dof):
  """(W, 44): each arm joint's (sine, cosine), their velocities, log(1 + touch), the hand's, ball's and target's
  (x, z, qw, qy), the ball's joint velocities."""
  nworld, narm = qpos.shape[0], arm_qpos.shape[0]
  obs = np.empty((nworld, 3 * narm + touch.shape[0] + 4 * bodies.shape[0] + object_dof.shape[0]))
  for w in range(nworld):
    k = 0
    for j in arm_qpos:
      obs[w, k], obs[w, k + 1] = math.sin(qpos[w, j]), math.cos(qpos[w, j])
      k += 2
    for j in arm_dof:
      obs[w, k] = qvel[w, j]
      k += 1
    for adr in touch:
      obs[w, k] = math.log1p(sensordata[w, adr])
      k += 1
    for i in range(bodies.shape[0]):
      if i == 2:  # the ball's velocities come between the ball's pose and the target's
        for j in object_dof:
          obs[w, k] = qvel[w, j]
          k += 1
      body = bodies[i]
      obs[w, k], obs[w, k + 1] = xpos[w, body, 0], xpos[w, body, 2]
      obs[w, k + 2], obs[w, k + 3] = xquat[w, body, 0], xquat[w, body, 2]
      k += 4
  return obs


@njit(cache=True)
def _reward(site_xpos, sites, close):
  """(reward (W,), terms (2, W) as ManipulatorTask.info_keys): tolerance of the ball's distance to the
  target, 1 within ``close``."""
  nworld = site_xpos.shape[0]
  reward = np.empty(nworld)
  terms = np.empty((2, nworld))
  for w in range(nworld):
    d = site_xpos[w, sites[0]] - site_xpos[w, sites[1]]
    distance = math.sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2])
    reward[w] = tolerance_kernel(distance, 0.0, close, 2.0 * close, rewards.GAUSSIAN, 0.1)
    terms[0, w], terms[1, w] = reward[w], distance
  return reward, terms


class MjDMCManipulatorEnv(DmcEnv):
  """The DeepMind Control Suite's manipulator: bring the ball to the target (MjDMC/manipulator-bring_ball-v0).

  ## Description
  A planar arm (``arm_root`` unlimited, shoulder, elbow, wrist) with a two-fingered hand (finger and thumb,
  each with a tip joint; a tendon equality couples them, one actuator closes them), touch sensors on palm,
  fingers and tips, and a ball on two slides and a hinge between walls; the target is a ghost ball (no
  contacts). Elliptic cones; Euler at 1 kHz, 10 physics steps per control step. mjgym's own model,
  ``mjgym/assets/dmc/manipulator_bring_ball.xml``, compiled equal to the model dm_control builds for the ball.

  ## Action Space
  ``Box(-1, 1, (5,), float32)``: torques of root, shoulder, elbow, wrist (× gears 12, 8, 4, 2) and the grasp
  tendon (× 2).

  ## Observation Space
  dm_control's dict in its order, flat ``Box(-inf, inf, (44,), obs_dtype)`` by default:

  | Key | Num | Quantity | Unit |
  |-----|-----|----------|------|
  | arm_pos | 0-15 | (sine, cosine) of root, shoulder, elbow, wrist, finger, fingertip, thumb, thumbtip | - |
  | arm_vel | 16-23 | their angular velocities | rad/s |
  | touch | 24-28 | log(1 + touch force) of palm, finger, thumb, fingertip, thumbtip | log N |
  | hand_pos | 29-32 | the hand's x, z and quaternion entries w, y | m, - |
  | object_pos | 33-36 | the ball's x, z, quaternion w, y | m, - |
  | object_vel | 37-39 | the ball's x, z and angular velocities | m/s, rad/s |
  | target_pos | 40-43 | the target's x, z, quaternion w, y | m, - |

  The touch sensors read as dm_control reads them after its step: their values from the last physics step's
  state before integration (mj_step1 does not evaluate acceleration-stage sensors).

  ## Rewards
  ``tolerance(distance of the ball to the target, bounds=(0, close), margin=2 close)``, 1 within ``close``
  (``info``: ``reward_bring``, ``distance``).

  ## Starting State
  Drawn until nothing touches (dm_control's rejection): arm joints uniform in their ranges (the root in
  [-π, π]), the finger's angle equal to the thumb's; the target uniform in x ∈ [-0.4, 0.4], z ∈ [0.1, 0.4],
  angle ∈ [-π, π]; the ball in the hand (probability ``p_in_hand``), on the target (``p_in_target``) or uniform
  in x ∈ [-0.5, 0.5], z ∈ [0, 0.7], angle ∈ [0, 2π] with an x velocity uniform in [-5, 5] m/s.

  ## Episode End
  - Termination: none.
  - Truncation: 1000 steps (10 s, registration); or when the physics diverges (``info["divergence"]``).

  ## Arguments
  | Argument | Default | Meaning |
  |----------|---------|---------|
  | close | 0.01 | distance of full reward, m |
  | p_in_hand | 0.1 | probability of a start with the ball in the hand |
  | p_in_target | 0.1 | probability of a start with the ball on the target |
  | max_attempts | 1000 | draws of the initial state before giving up |
  | observation | "flat" | "flat" (one Box) or "dict" (dm_control's keys) |
  | frame_skip | 10 | physics steps per env step (dt = 0.01 s, dm_control's control timestep) |
  | obs_dtype | float64 | observation dtype |
  | camera | fixed | MJCF camera of render() |
  | render_mode, width, height | None, 480, 480 | rendering (rgb_array, depth_array, human) |

  ## Version History
  - v0: initial version.
  """

  task_class = ManipulatorTask
  xml = "dmc/manipulator_bring_ball.xml"
  default_frame_skip = 10
  default_camera = "fixed"
