"""The DeepMind Control Suite's tasks on mjgym's physics, in the scaffold of the Gymnasium v5 tasks.

A suite task is a ``DmcTask`` (reward, termination, observation and initial-state distribution over batched
Data, as every mjgym Task) and an env class naming its asset and control step. The semantics follow dm_control's
``control.Environment`` with its default legacy step:

- an env step sets ``ctrl`` to the action and runs ``frame_skip`` physics steps (dm_control's ``n_sub_steps``:
  control timestep / physics timestep), each state passing the position and velocity stages once; the reward
  and the observation read Data at the new state after mj_step1 (positions, velocities, their sensors, xpos,
  xmat, ...), which is what ``MjDataBatch.step_observe`` leaves there;
- a reset is mj_resetData, the task's own initialization (``DmcTask.reset``), then forward dynamics;
- the time limit (1000 steps for every suite task) is a truncation, registered as ``max_episode_steps``; a task
  with a termination reports it as ``terminated`` (dm_control's discount 0).

Observations are dm_control's observation dict in its key order: flattened into one Box (``observation="flat"``,
the default, as EnvPool and Gymnasium's dm_control wrappers give it) or a ``gymnasium.spaces.Dict`` with
dm_control's shapes (``observation="dict"``). ``DmcTask.layout`` declares the keys and shapes; one kernel per
task writes the flat array, which the dict splits into views.
"""

import numpy as np

from mjgym import physics
from mjgym.envs.base import MjEnv
from mjgym.envs.base import Task

_HINGE, _SLIDE, _BALL, _FREE = (physics.mjtJoint.mjJNT_HINGE, physics.mjtJoint.mjJNT_SLIDE,
                                physics.mjtJoint.mjJNT_BALL, physics.mjtJoint.mjJNT_FREE)


class DmcTask(Task):
  """A dm_control suite task for many worlds at once (see ``Task``); a subclass also declares its observation:
  ``observation_layout(model)``, the ((key, shape), ...) of dm_control's observation dict in order, and
  ``observe_sensors(b)``, the flattened observation of every world, (W, n)."""

  def __init__(self, params):
    super().__init__(params)
    self.layout = ()

  def bind(self, model, dt):
    super().bind(model, dt)
    self.layout = tuple((key, tuple(shape)) for key, shape in self.observation_layout(model))

  def observation_layout(self, model):
    raise NotImplementedError

  def observation_structure(self, v5):
    return {key: int(np.prod(shape, dtype=np.int64)) for key, shape in self.layout}

  def reset(self, b, worlds, noise, carry):
    raise NotImplementedError


def mask_of(b, worlds):
  """(W,) bool of the world indices ``worlds`` of batch ``b`` (what the batched physics calls take)."""
  mask = np.zeros(b.nworld, np.bool_)
  mask[worlds] = True
  return mask


def randomize_limited_and_rotational_joints(model, qpos, noise):
  """dm_control's ``randomizers.randomize_limited_and_rotational_joints`` for the rows of ``qpos`` (W, nq), with
  draws from ``noise``: limited hinges and slides uniform in their range, unlimited hinges uniform in [-pi, pi],
  ball joints uniform on the unit quaternions (limited ones: a uniform axis turned by a uniform angle up to
  their limit), free joints' quaternions a normalized uniform draw in [0, 1)^4 as dm_control draws them; free
  joints' positions and unlimited slides keep their values."""
  for j in range(model.njnt):
    adr, kind, limited = model.jnt_qposadr[j], model.jnt_type[j], bool(model.jnt_limited[j])
    low, high = model.jnt_range[j]
    if kind in (_HINGE, _SLIDE) and limited:
      qpos[:, adr] = noise.uniform(low, high, 1)[:, 0]
    elif kind == _HINGE:
      qpos[:, adr] = noise.uniform(-np.pi, np.pi, 1)[:, 0]
    elif kind == _BALL and limited:
      axis = noise.normal(1.0, 3)
      axis /= np.linalg.norm(axis, axis=1, keepdims=True)
      half = 0.5 * noise.uniform(0.0, 1.0, 1)[:, 0] * high
      qpos[:, adr] = np.cos(half)
      qpos[:, adr + 1:adr + 4] = axis * np.sin(half)[:, None]
    elif kind == _BALL:
      quat = noise.normal(1.0, 4)
      qpos[:, adr:adr + 4] = quat / np.linalg.norm(quat, axis=1, keepdims=True)
    elif kind == _FREE:
      quat = noise.uniform(0.0, 1.0, 4)
      qpos[:, adr + 3:adr + 7] = quat / np.linalg.norm(quat, axis=1, keepdims=True)


def until_contact_free(b, worlds, propose, max_attempts=1000):
  """dm_control's rejection of initial states in contact: ``propose(qpos)`` fills candidate rows of ``worlds``
  ((len(worlds), nq), from their current qpos) with draws; forward dynamics evaluate them, and each world keeps
  its first candidate without contacts. Every attempt draws for all of ``worlds``, so that a world's numbers
  never depend on the others'."""
  pending = np.ones(len(worlds), np.bool_)
  for _ in range(max_attempts):
    candidates = b.qpos[worlds]
    propose(candidates)
    rows = worlds[pending]
    b.qpos[rows] = candidates[pending]
    b.forward(mask_of(b, rows))
    pending[pending] = b.ncon[rows, 0] > 0
    if not pending.any():
      return
  raise RuntimeError(f"no contact-free initial state in {max_attempts} attempts")


def observation_table(envs):
  """Markdown of each suite env's observation layout: id, then each key's shape and its flat indices.
  ``envs``: {id: env}; docs/dmc.md holds this table for the registered tasks (tests keep it current)."""
  lines = ["| Task | dt (s) | frame_skip | action | observation | key | shape | flat indices |",
           "|------|--------|------------|--------|-------------|-----|-------|--------------|"]
  for env_id, env in envs.items():
    env = env.unwrapped
    first, start = True, 0
    for key, shape in env.task.layout:
      size = int(np.prod(shape, dtype=np.int64))
      head = (f"| {env_id} | {env.dt:g} | {env.frame_skip} | {env.action_space.shape[0]} | "
              f"{env.observation_space.shape[0]} " if first else "| | | | | ")
      lines.append(f"{head}| {key} | {shape} | {start}-{start + size - 1} |" if size > 1 else
                   f"{head}| {key} | {shape} | {start} |")
      first, start = False, start + size
  return "\n".join(lines) + "\n"


class DmcEnv(MjEnv):
  """Base of the suite's env classes: ``observation`` is "flat" (default) or "dict" (see the module)."""

  observations = ("flat", "dict")
