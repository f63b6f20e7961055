"""Hyperparameters for mjgym's envs in rl-zoo3's YAML format, one file per algorithm (``ppo.yml`` ...).

Each entry is rl-zoo3's published entry for the matching Gymnasium task (the comment above it in the file says
which, and what was changed), so ``python -m rl_zoo3.train --algo ppo --env MjHopper-v0 --gym-packages mjgym
--conf-file $(python -c "import mjgym.hyperparams as h; print(h.path('ppo'))")`` trains with them.
Values are as rl-zoo3 reads them: ``policy_kwargs`` / ``normalize`` may be Python strings, schedules strings
such as ``"lin_0.001"``.
"""

from pathlib import Path

import yaml

_DIR = Path(__file__).resolve().parent

ALGOS = tuple(sorted(p.stem for p in _DIR.glob("*.yml")))


def path(algo):
  """The path of ``algo``'s YAML file (``"ppo"`` -> ``.../mjgym/hyperparams/ppo.yml``)."""
  p = _DIR / f"{algo}.yml"
  if algo not in ALGOS or not p.is_file():
    raise ValueError(f"no mjgym hyperparameters for algo {algo!r}; known algos: {', '.join(ALGOS)}")
  return str(p)


def load_all(algo):
  """All entries of ``algo``'s file: {env_id: entry}."""
  with open(path(algo)) as f:
    return yaml.safe_load(f)


def load(algo, env_id):
  """``algo``'s entry for ``env_id``, as in the file (a dict with rl-zoo3's keys, unmodified)."""
  entries = load_all(algo)
  if env_id not in entries:
    raise ValueError(f"no {algo} hyperparameters for env id {env_id!r} in {path(algo)}; "
                     f"known env ids: {', '.join(entries)}")
  return entries[env_id]


__all__ = ["ALGOS", "path", "load", "load_all"]
