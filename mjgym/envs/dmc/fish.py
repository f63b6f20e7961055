"""The suite's fish domain: upright, swim."""

import math
from typing import NamedTuple

import numpy as np
from numba import njit

from mjgym import physics
from mjgym.envs import rewards
from mjgym.envs.dmc import DmcEnv
from mjgym.envs.dmc import DmcTask
from mjgym.envs.rewards import tolerance_kernel

_JOINTS = ("tail1", "tail_twist", "tail2", "finright_roll", "finright_pitch", "finleft_roll", "finleft_pitch")
_ZZ = 8  # entry of a row-major xmat


class FishParams(NamedTuple):
  swim: bool = False
  joint_range: float = 0.2
  target_low: tuple = (-0.4, -0.4, 0.1)
  target_high: tuple = (0.4, 0.4, 0.3)


class FishTask(DmcTask):
  """dm_control's ``fish.Upright`` and ``fish.Swim`` for many worlds at once. Swim's target is a geom of the
  world body in a model without constraints: its position, drawn every episode, lives in each world's carry and
  is written into ``geom_xpos`` whenever kinematics have run."""

  Params = FishParams

  def __init__(self, params):
    super().__init__(params)
    self.ncarry = 3 if params.swim else 0
    self.info_keys = ("reward_in_target", "reward_upright") if params.swim else ("reward_upright",)

  def bind(self, model, dt):
    super().bind(model, dt)
    obj = physics.mjtObj
    self.joints = model.jnt_qposadr[[physics.mj_name2id(model, obj.mjOBJ_JOINT, name) for name in _JOINTS]]
    self.dofs = model.jnt_dofadr[[physics.mj_name2id(model, obj.mjOBJ_JOINT, name) for name in _JOINTS]]
    self.root = model.jnt_qposadr[physics.mj_name2id(model, obj.mjOBJ_JOINT, "root")]
    self.torso = physics.mj_name2id(model, obj.mjOBJ_BODY, "torso")
    self.mouth = physics.mj_name2id(model, obj.mjOBJ_GEOM, "mouth")
    self.target = physics.mj_name2id(model, obj.mjOBJ_GEOM, "target")
    self.radii = float(model.geom_size[self.mouth, 0] + model.geom_size[self.target, 0])
    if not self.p.swim:  # dm_control's upright task hides the target
      model.geom_rgba[self.target, 3] = 0.0

  def observation_layout(self, model):
    target = (("target", (3,)),) if self.p.swim else ()
    return (("joint_angles", (len(_JOINTS),)), ("upright", ())) + target + (("velocity", (model.nv,)),)

  def reset(self, b, worlds, noise, carry):
    quat = noise.normal(1.0, 4)
    b.qpos[worlds, self.root + 3:self.root + 7] = quat / np.linalg.norm(quat, axis=1, keepdims=True)
    r = self.p.joint_range
    b.qpos[worlds[:, None], self.joints] = noise.uniform(-r, r, len(_JOINTS))
    if self.p.swim:
      low, high = np.array(self.p.target_low), np.array(self.p.target_high)
      carry[worlds] = low + (high - low) * noise.uniform(0.0, 1.0, 3)

  def start(self, b, worlds, carry):
    if self.p.swim:
      b.geom_xpos[worlds, self.target] = carry[worlds]

  def observe_sensors(self, b):
    return _observe(b.qpos, b.qvel, b.xmat, b.geom_xpos, b.geom_xmat, self.joints, self.torso, self.mouth,
                    self.target, self.p.swim)

  def post_step(self, b, action, carry):
    reward, terms = _reward(b.xmat, b.geom_xpos, b.geom_xmat, carry, self.torso, self.mouth, self.target,
                            self.radii, self.p.swim)
    return reward, np.zeros(len(reward), np.bool_), self.info_dict(terms)


@njit(cache=True, inline="always")
def _mouth_to_target(geom_xpos, geom_xmat, w, mouth, target, j):
  """Entry j of the target minus the mouth, in the mouth's frame."""
  total = 0.0
  for i in range(3):
    total += (geom_xpos[w, target, i] - geom_xpos[w, mouth, i]) * geom_xmat[w, mouth, 3 * i + j]
  return total


@njit(cache=True)
def _observe(qpos, qvel, xmat, geom_xpos, geom_xmat, joints, torso, mouth, target, swim):
  """(W, n): the seven joints' angles, the torso's z axis' world z, (swim) the target in the mouth's frame,
  qvel."""
  nworld, nj, nv = qpos.shape[0], joints.shape[0], qvel.shape[1]
  ntarget = 3 if swim else 0
  obs = np.empty((nworld, nj + 1 + ntarget + nv))
  for w in range(nworld):
    for k in range(nj):
      obs[w, k] = qpos[w, joints[k]]
    obs[w, nj] = xmat[w, torso, _ZZ]
    for j in range(ntarget):
      obs[w, nj + 1 + j] = _mouth_to_target(geom_xpos, geom_xmat, w, mouth, target, j)
    obs[w, nj + 1 + ntarget:] = qvel[w]
  return obs


@njit(cache=True)
def _reward(xmat, geom_xpos, geom_xmat, carry, torso, mouth, target, radii, swim):
  """(reward (W,), terms as FishTask.info_keys). Swim puts the target of ``carry`` into ``geom_xpos`` first
  (the step's kinematics placed it at the model's position)."""
  nworld = xmat.shape[0]
  reward = np.empty(nworld)
  terms = np.empty((2 if swim else 1, nworld))
  for w in range(nworld):
    upright = xmat[w, torso, _ZZ]
    if not swim:
      reward[w] = terms[0, w] = tolerance_kernel(upright, 1.0, 1.0, 1.0, rewards.GAUSSIAN, 0.1)
      continue
    geom_xpos[w, target, :] = carry[w]
    d0 = _mouth_to_target(geom_xpos, geom_xmat, w, mouth, target, 0)
    d1 = _mouth_to_target(geom_xpos, geom_xmat, w, mouth, target, 1)
    d2 = _mouth_to_target(geom_xpos, geom_xmat, w, mouth, target, 2)
    in_target = tolerance_kernel(math.sqrt(d0 * d0 + d1 * d1 + d2 * d2), 0.0, radii, 2.0 * radii,
                                 rewards.GAUSSIAN, 0.1)
    is_upright = 0.5 * (upright + 1.0)
    terms[0, w], terms[1, w] = in_target, is_upright
    reward[w] = (7.0 * in_target + is_upright) / 8.0
  return reward, terms


class MjDMCFishEnv(DmcEnv):
  """The DeepMind Control Suite's fish: keep upright, or swim to a target.

  ## Description
  A fish on a free root with a two-joint tail and two fins (roll and pitch each; a fixed tendon flaps the fins'
  roll together), driven by five position actuators, in a fluid of density 5000 without gravity or constraints;
  Euler at 250 Hz, 10 physics steps per control step. mjgym's own model, ``mjgym/assets/dmc/fish.xml``,
  compiled equal to dm_control's. The two tasks are this class with the registered arguments:

  | Id | swim |
  |----|------|
  | MjDMC/fish-upright-v0 | False |
  | MjDMC/fish-swim-v0 | True |

  ## Action Space
  ``Box(-1, 1, (5,), float32)``: position targets of tail, tail_twist, fins_flap, finleft_pitch, finright_pitch.

  ## Observation Space
  dm_control's dict in its order, flat ``Box(-inf, inf, (21,), obs_dtype)`` (upright) or ``(24,)`` (swim):

  | Key | Num | Quantity | Unit |
  |-----|-----|----------|------|
  | joint_angles | 0-6 | tail1, tail_twist, tail2, finright roll, pitch, finleft roll, pitch | rad |
  | upright | 7 | the torso z axis' world z | - |
  | target | 8-10 | (swim) target minus mouth, in the mouth's frame | m |
  | velocity | 8-20 (11-23 swim) | qvel (free joint, then the seven joints) | m/s, rad/s |

  ## Rewards
  Upright: ``tolerance(upright, bounds=(1, 1), margin=1)``. Swim: ``(7 * in_target + is_upright) / 8`` with
  in_target = tolerance(mouth-to-target distance, bounds=(0, r), margin=2r), r the sum of the mouth's and the
  target's radii, and is_upright = (upright + 1) / 2. The terms are in ``info``.

  ## Starting State
  The root's orientation a normalized normal draw (uniform on the unit quaternions), the seven joints uniform in
  [-joint_range, joint_range], at rest. Swim: the target uniform in the box [target_low, target_high].

  ## Episode End
  - Termination: none.
  - Truncation: 1000 steps (40 s, registration); or when the physics diverges (``info["divergence"]``).

  ## Arguments
  | Argument | Default | Meaning |
  |----------|---------|---------|
  | swim | False | the swim task (else upright) |
  | joint_range | 0.2 | range of the joints' initial angles, rad |
  | target_low | (-0.4, -0.4, 0.1) | swim: lower corner of the target's box, m |
  | target_high | (0.4, 0.4, 0.3) | swim: upper corner of the target's box, m |
  | observation | "flat" | "flat" (one Box) or "dict" (dm_control's keys) |
  | frame_skip | 10 | physics steps per env step (dt = 0.04 s, dm_control's control timestep) |
  | obs_dtype | float64 | observation dtype |
  | camera | tracking_top | MJCF camera of render() (it follows the fish) |
  | render_mode, width, height | None, 480, 480 | rendering (rgb_array, depth_array, human) |

  ## Version History
  - v0: initial version.
  """

  task_class = FishTask
  xml = "dmc/fish.xml"
  default_frame_skip = 10
  default_camera = "tracking_top"
