"""Each suite task against dm_control itself: from dm_control's state after its reset, under the same actions,
mjgym's observation, reward and episode end equal dm_control's within 1e-9.

Where the task is chaotic (the walker's contacts), no engine holds 1e-9 forever: the bar is then dm_control
itself, a copy of its episode nudged by 1e-13 in qpos, and mjgym must hold 1e-9 for as long as that copy does.
CI runs ``MJGYM_DMC_STEPS`` steps (200 by default); ``MJGYM_DMC_STEPS=1000`` runs whole episodes.
"""

import os

import gymnasium as gym
import numpy as np
import pytest

import dmc_oracle
import mjgym

STEPS = int(os.environ.get("MJGYM_DMC_STEPS", "200"))
TOL = 1e-9
NUDGE = 1e-13
# Steps a task must hold before chaos may end the comparison: a nudged copy of any suite task stays far longer.
MIN_HORIZON = 10


def _reacher_target(env, physics):
  env.unwrapped._carry[0] = physics.named.model.geom_pos["target", :2]  # pylint: disable=protected-access


def _finger_target(env, physics):
  if env.unwrapped.task.p.turn:
    env.unwrapped._carry[0] = physics.named.model.site_pos["target", ["x", "z"]]  # pylint: disable=protected-access


def _fish_target(env, physics):
  if env.unwrapped.task.p.swim:
    env.unwrapped._carry[0] = physics.named.model.geom_pos["target"]  # pylint: disable=protected-access


def _swimmer_target(env, physics):
  env.unwrapped._carry[0] = physics.named.model.geom_pos["target", :2]  # pylint: disable=protected-access


def _manipulator_target(env, physics):
  pos, quat = physics.named.model.body_pos["target_ball"], physics.named.model.body_quat["target_ball"]
  env.unwrapped._carry[0] = pos[0], pos[2], 2 * np.arctan2(quat[2], quat[0])  # pylint: disable=protected-access


# What a task draws into the model every episode, copied into mjgym's env (after its reset, before set_state).
EPISODE_FIELDS = {"reacher": _reacher_target, "finger": _finger_target, "fish": _fish_target,
                  "swimmer": _swimmer_target, "manipulator": _manipulator_target}


def _error(obs, reward, terminated, truncated, ts):
  """Worst difference of one step's outcome from dm_control's TimeStep ``ts``."""
  discount = 0.0 if terminated else 1.0
  ended = terminated or truncated
  if ended != ts.last() or discount != ts.discount:
    return np.inf
  return max(float(np.max(np.abs(obs - dmc_oracle.flat(ts.observation)))), abs(reward - ts.reward))


def _nudged_error(ts, ref):
  return max(float(np.max(np.abs(dmc_oracle.flat(ts.observation) - dmc_oracle.flat(ref.observation)))),
             abs(ts.reward - ref.reward), 0.0 if ts.discount == ref.discount else np.inf)


def compare(env_id, steps, seed=0):
  """(steps held within TOL, worst error over them, horizon of dm_control's nudged copy) of one task."""
  domain, task = mjgym.envs.DMC_TASKS[env_id]
  theirs, nudged = dmc_oracle.load(domain, task, seed), dmc_oracle.load(domain, task, seed)
  first = theirs.reset()
  nudged.reset()
  nudged.physics.data.qpos[:] += NUDGE
  nudged.physics.forward()
  env = gym.make(env_id)
  env.reset(seed=seed)
  qpos, qvel, act, warmstart = dmc_oracle.state_of(theirs.physics)
  env.unwrapped.data.act[:] = act
  env.unwrapped.data.qacc_warmstart[:] = warmstart
  if domain in EPISODE_FIELDS:
    EPISODE_FIELDS[domain](env, theirs.physics)
  env.unwrapped.set_state(qpos, qvel)
  batch = env.unwrapped._batch  # pylint: disable=protected-access
  obs = env.unwrapped.present(env.unwrapped.task.observe_sensors(batch)[0])
  worst = float(np.max(np.abs(obs - dmc_oracle.flat(first.observation))))
  spec = theirs.action_spec()
  actions = np.random.default_rng(seed).uniform(spec.minimum, spec.maximum, (steps, len(spec.minimum)))
  held, horizon = 0, steps
  for k in range(steps):
    ts = theirs.step(actions[k])
    error = _error(*env.step(actions[k])[:4], ts)
    if horizon == steps and _nudged_error(nudged.step(actions[k]), ts) > TOL:
      horizon = k
    if error > TOL:
      break
    worst = max(worst, error)
    held = k + 1
  return held, worst, horizon


@pytest.mark.parametrize("env_id", [env_id for env_id, _, _, _ in mjgym.envs.DMC_ENVS])
def test_task_equals_dm_control(env_id):
  held, worst, horizon = compare(env_id, STEPS)
  assert horizon >= min(MIN_HORIZON, STEPS), f"dm_control's nudged copy left it after {horizon} steps"
  assert held >= horizon, f"{env_id}: within {TOL} for {held} steps (worst {worst:.2e}), dm_control's own " \
                          f"nudged copy for {horizon}"


if __name__ == "__main__":  # the table: python tests/test_dmc_exactness.py (MJGYM_DMC_STEPS=1000 for episodes)
  print("| task | steps held | worst error | nudged dm_control holds |")
  print("|------|------------|-------------|-------------------------|")
  for env_id, _, _, _ in mjgym.envs.DMC_ENVS:
    held, worst, horizon = compare(env_id, STEPS)
    print(f"| {env_id} | {held} | {worst:.1e} | {horizon} |", flush=True)
