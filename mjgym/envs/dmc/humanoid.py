"""The suite's humanoid domain: stand, walk, run."""

import math
from typing import NamedTuple

import numpy as np
from numba import njit

from mjgym import physics
from mjgym.envs import rewards
from mjgym.envs.dmc import DmcEnv
from mjgym.envs.dmc import DmcTask
from mjgym.envs.dmc import randomize_limited_and_rotational_joints
from mjgym.envs.dmc import until_contact_free
from mjgym.envs.rewards import tolerance_kernel

# dm_control's order of the extremities: left hand, left foot, right hand, right foot.
_EXTREMITIES = ("left_hand", "left_foot", "right_hand", "right_foot")
_ROOT_QPOS = 7  # the free joint's position and quaternion


class HumanoidParams(NamedTuple):
  move_speed: float = 0.0
  stand_height: float = 1.4
  pure_state: bool = False


class HumanoidTask(DmcTask):
  """dm_control's ``humanoid.Humanoid`` for many worlds at once."""

  Params = HumanoidParams

  def __init__(self, params):
    super().__init__(params)
    self.info_keys = ("reward_standing", "reward_upright", "reward_small_control",
                      "reward_move" if params.move_speed else "reward_dont_move")

  def bind(self, model, dt):
    super().bind(model, dt)
    body = physics.mjtObj.mjOBJ_BODY
    self.torso = physics.mj_name2id(model, body, "torso")
    self.head = physics.mj_name2id(model, body, "head")
    self.limbs = np.array([physics.mj_name2id(model, body, name) for name in _EXTREMITIES], np.intp)
    self.com_adr = int(model.sensor_adr[physics.mj_name2id(model, physics.mjtObj.mjOBJ_SENSOR,
                                                            "torso_subtreelinvel")])

  def observation_layout(self, model):
    if self.p.pure_state:
      return (("position", (model.nq,)), ("velocity", (model.nv,)))
    return (("joint_angles", (model.nq - _ROOT_QPOS,)), ("head_height", ()), ("extremities", (12,)),
            ("torso_vertical", (3,)), ("com_velocity", (3,)), ("velocity", (model.nv,)))

  def reset(self, b, worlds, noise, carry):
    until_contact_free(b, worlds, lambda qpos: randomize_limited_and_rotational_joints(self.model, qpos, noise))

  def observe_sensors(self, b):
    if self.p.pure_state:
      return np.concatenate((b.qpos, b.qvel), axis=1)
    return _observe(b.qpos, b.qvel, b.xpos, b.xmat, b.sensordata, self.torso, self.head, self.limbs, self.com_adr)

  def post_step(self, b, action, carry):
    reward, terms = _reward(b.xpos, b.xmat, b.sensordata, b.ctrl, self.torso, self.head, self.com_adr,
                            self.p.stand_height, self.p.move_speed)
    return reward, np.zeros(len(reward), np.bool_), self.info_dict(terms)


@njit(cache=True)
def _observe(qpos, qvel, xpos, xmat, sensordata, torso, head, limbs, com_adr):
  """(W, n): joint angles, head height, each extremity's position relative to the torso in the torso's frame,
  the torso's z axis in the world (xmat row z), the centre-of-mass velocity sensor, qvel."""
  nworld, nq, nv = qpos.shape[0], qpos.shape[1], qvel.shape[1]
  nj = nq - _ROOT_QPOS
  obs = np.empty((nworld, nj + 1 + 12 + 3 + 3 + nv))
  for w in range(nworld):
    obs[w, :nj] = qpos[w, _ROOT_QPOS:]
    obs[w, nj] = xpos[w, head, 2]
    k = nj + 1
    for limb in limbs:
      d0 = xpos[w, limb, 0] - xpos[w, torso, 0]
      d1 = xpos[w, limb, 1] - xpos[w, torso, 1]
      d2 = xpos[w, limb, 2] - xpos[w, torso, 2]
      for j in range(3):  # the row vector d times the torso's rotation: d expressed in the torso's frame
        obs[w, k] = d0 * xmat[w, torso, j] + d1 * xmat[w, torso, 3 + j] + d2 * xmat[w, torso, 6 + j]
        k += 1
    obs[w, k:k + 3] = xmat[w, torso, 6:9]
    obs[w, k + 3:k + 6] = sensordata[w, com_adr:com_adr + 3]
    obs[w, k + 6:] = qvel[w]
  return obs


@njit(cache=True)
def _reward(xpos, xmat, sensordata, ctrl, torso, head, com_adr, stand_height, move_speed):
  """(reward (W,), terms (4, W) as HumanoidTask.info_keys) of every world."""
  nworld, nu = ctrl.shape
  reward = np.empty(nworld)
  terms = np.empty((4, nworld))
  for w in range(nworld):
    standing = tolerance_kernel(xpos[w, head, 2], stand_height, np.inf, stand_height / 4, rewards.GAUSSIAN, 0.1)
    upright = tolerance_kernel(xmat[w, torso, 8], 0.9, np.inf, 1.9, rewards.LINEAR, 0.0)
    control = 0.0
    for i in range(nu):
      control += tolerance_kernel(ctrl[w, i], 0.0, 0.0, 1.0, rewards.QUADRATIC, 0.0)
    small_control = (4.0 + control / nu) / 5.0
    vx, vy = sensordata[w, com_adr], sensordata[w, com_adr + 1]
    if move_speed:
      move = tolerance_kernel(math.sqrt(vx * vx + vy * vy), move_speed, np.inf, move_speed, rewards.LINEAR, 0.0)
      last = (5.0 * move + 1.0) / 6.0
    else:
      last = (tolerance_kernel(vx, 0.0, 0.0, 2.0, rewards.GAUSSIAN, 0.1)
              + tolerance_kernel(vy, 0.0, 0.0, 2.0, rewards.GAUSSIAN, 0.1)) / 2.0
    terms[0, w], terms[1, w], terms[2, w], terms[3, w] = standing, upright, small_control, last
    reward[w] = small_control * (standing * upright) * last
  return reward, terms


class MjDMCHumanoidEnv(DmcEnv):
  """The DeepMind Control Suite's humanoid: stand up, walk or run.

  ## Description
  A humanoid of 21 hinge joints on a free root; Euler at 200 Hz, 5 physics steps per control step. mjgym's own
  model, ``mjgym/assets/dmc/humanoid.xml``, compiled equal to dm_control's. The three tasks are this class
  with the registered arguments:

  | Id | move_speed |
  |----|------------|
  | MjDMC/humanoid-stand-v0 | 0 |
  | MjDMC/humanoid-walk-v0 | 1 |
  | MjDMC/humanoid-run-v0 | 10 |
  | MjDMC/humanoid-run_pure_state-v0 | 10, with ``pure_state=True`` |

  ## Action Space
  ``Box(-1, 1, (21,), float32)``: torques of the 21 hinges, in the model's actuator order (abdomen y, z, x;
  right hip x, z, y, knee, ankle x, y; the same on the left; right shoulder 1, 2, elbow; the same on the left).

  ## Observation Space
  dm_control's dict in its order, flat ``Box(-inf, inf, (67,), obs_dtype)`` by default (with ``pure_state``,
  ``position``, qpos (28), and ``velocity``, qvel (27): ``(55,)``):

  | Key | Num | Quantity | Unit |
  |-----|-----|----------|------|
  | joint_angles | 0-20 | the hinges' angles (qpos after the free joint) | rad |
  | head_height | 21 | head height | m |
  | extremities | 22-33 | left hand, left foot, right hand, right foot minus the torso, in the torso's frame | m |
  | torso_vertical | 34-36 | the world z axis in the torso's frame (xmat row z) | - |
  | com_velocity | 37-39 | the torso subtree's linear velocity (sensor ``torso_subtreelinvel``) | m/s |
  | velocity | 40-66 | qvel (free joint, then the hinges) | m/s, rad/s |

  ## Rewards
  ``small_control * standing * upright * last``, each in ``info``: standing = tolerance(head height,
  bounds=(stand_height, inf), margin=stand_height / 4); upright = tolerance(torso z axis' world z, bounds=(0.9,
  inf), margin=1.9, value_at_margin=0, linear); small_control = (4 + mean of tolerance(action, margin=1,
  value_at_margin=0, quadratic)) / 5; last, for stand (``move_speed`` = 0), dont_move = mean of
  tolerance(centre-of-mass velocity in x and in y, margin=2), otherwise move = (5 * tolerance(horizontal speed
  of the centre of mass, bounds=(move_speed, inf), margin=move_speed, value_at_margin=0, linear) + 1) / 6.

  ## Starting State
  dm_control's ``randomize_limited_and_rotational_joints`` (hinges uniform in their ranges, the root's
  orientation a normalized uniform draw in [0, 1)^4, its position the model's), drawn again while anything
  touches (dm_control's rejection), at rest.

  ## Episode End
  - Termination: none.
  - Truncation: 1000 steps (25 s, registration); or when the physics diverges (``info["divergence"]``).

  ## Arguments
  | Argument | Default | Meaning |
  |----------|---------|---------|
  | move_speed | 0.0 | speed of full move reward, m/s (0: the stand task) |
  | stand_height | 1.4 | head height of full standing reward, m |
  | pure_state | False | observe qpos and qvel only |
  | observation | "flat" | "flat" (one Box) or "dict" (dm_control's keys) |
  | frame_skip | 5 | physics steps per env step (dt = 0.025 s, dm_control's control timestep) |
  | obs_dtype | float64 | observation dtype |
  | camera | side | MJCF camera of render() (it follows the humanoid) |
  | render_mode, width, height | None, 480, 480 | rendering (rgb_array, depth_array, human) |

  ## Version History
  - v0: initial version.
  """

  task_class = HumanoidTask
  xml = "dmc/humanoid.xml"
  default_frame_skip = 5
  default_camera = "side"
