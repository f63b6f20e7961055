"""Bad input to an ``mjgym`` command, and the env names every command accepts.

Every command reports bad input the same way: one line on stderr that names the command and the problem, exit
status 2 (as argparse does for bad arguments), no traceback.
"""

import re
import sys


class UsageError(SystemExit):
  """Bad input to an mjgym command: a SystemExit whose ``str`` is the one-line message and whose exit status is
  2. Python prints a SystemExit's message only when its code is not an int (and then exits 1), so ``fail``
  prints the message itself before raising."""

  def __init__(self, message):
    super().__init__(message)
    self.code = 2


def fail(command, message):
  """Prints ``"<command>: <message>"`` on stderr and raises ``UsageError`` with it."""
  message = f"{command}: {message}"
  print(message, file=sys.stderr, flush=True)
  raise UsageError(message)


def _key(name):
  """"MjHalfCheetah-v0", "HalfCheetah-v5", "half_cheetah", "halfcheetah" -> "halfcheetah";
  "MjDMC/cheetah-run-v0", "dmc/cheetah-run", "dmc-cheetah-run" -> "dmccheetahrun" (a suite task's short name keeps
  "dmc": without it "cartpole-swingup" would also be MjCartpoleSwingup-v0)."""
  key = re.sub(r"-v\d+$", "", name.strip().lower())
  key = re.sub(r"[^a-z0-9]", "", key)
  return key[2:] if key.startswith("mj") else key


def resolve_env(name, command):
  """mjgym's env id for an id of ours (``MjHopper-v0``, ``MjDMC/cheetah-run-v0``), a Gymnasium v5 id
  (``Hopper-v5``) or a short name (``hopper``, ``half_cheetah``, ``dmc/cheetah-run``); ``fail`` for anything else."""
  ids = known_envs()
  if name in ids:
    return name
  by_key = {_key(env_id): env_id for env_id in ids}
  if _key(name) in by_key:
    return by_key[_key(name)]
  return fail(command, f"unknown env {name!r} (known: {', '.join(ids)}, or short names such as hopper or "
              "dmc/cheetah-run)")


def known_envs():
  """Every env id the commands accept: mjgym's own tasks, then the DeepMind Control Suite's."""
  from mjgym.envs import DMC_ENVS, ENVS  # pylint: disable=import-outside-toplevel
  return [env_id for env_id, _, _ in ENVS] + [env_id for env_id, _, _, _ in DMC_ENVS]
