"""mjgym's environments, registered with Gymnasium on ``import mjgym``.

Registration names entry points as strings, so ``import mjgym`` loads neither numba nor the engine: Gymnasium
imports an env's module (and with it the engine) at ``gym.make``. The classes are importable from here as well
(``from mjgym.envs import MjHopperEnv``); that import loads them.
"""

import importlib

from gymnasium.envs.registration import register

# (id, class, max_episode_steps)
ENVS = (
    ("MjHopper-v0", "mjgym.envs.hopper:MjHopperEnv", 1000),
    ("MjCartpole-v0", "mjgym.envs.cartpole:MjCartpoleEnv", 1000),
    ("MjCartpoleSwingup-v0", "mjgym.envs.cartpole:MjCartpoleSwingupEnv", 1000),
    ("MjArmReach-v0", "mjgym.envs.arm_reach:MjArmReachEnv", 200),
    ("MjHumanoid-v0", "mjgym.envs.humanoid:MjHumanoidEnv", 1000),
)

# Public names and the modules that define them, imported on first access.
_LAZY = {
    "MjEnv": "mjgym.envs.base",
    "MjVectorEnv": "mjgym.envs.vector",
    **{entry.split(":")[1]: entry.split(":")[0] for _, entry, _ in ENVS},
}


def vector_entry_point(entry_point):
  """The ``vector_entry_point`` registered for a single env's entry point ("module:MjXEnv")."""
  name = entry_point.split(":")[1]
  return f"mjgym.envs.vector:{name[:-len('Env')]}VectorEnv"


def _register():
  from gymnasium.envs.registration import registry  # pylint: disable=import-outside-toplevel
  for env_id, entry_point, steps in ENVS:
    if env_id not in registry:
      register(id=env_id, entry_point=entry_point, max_episode_steps=steps,
               vector_entry_point=vector_entry_point(entry_point))


def __getattr__(name):
  if name in _LAZY:
    return getattr(importlib.import_module(_LAZY[name]), name)
  raise AttributeError(f"module 'mjgym.envs' has no attribute '{name}'")


_register()

__all__ = ["MjEnv", "MjHopperEnv", "MjCartpoleEnv", "MjCartpoleSwingupEnv", "MjArmReachEnv", "MjHumanoidEnv",
           "MjVectorEnv", "ENVS"]
