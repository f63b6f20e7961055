"""mjgym's environments, registered with Gymnasium on ``import mjgym``."""

from gymnasium.envs.registration import register

from mjgym.envs.arm_reach import MjArmReachEnv
from mjgym.envs.base import MjEnv
from mjgym.envs.cartpole import MjCartpoleEnv
from mjgym.envs.cartpole import MjCartpoleSwingupEnv
from mjgym.envs.hopper import MjHopperEnv
from mjgym.envs.humanoid import MjHumanoidEnv
from mjgym.envs.vector import MjVectorEnv
from mjgym.envs.vector import vector_entry_point

# (id, class, max_episode_steps)
ENVS = (
    ("MjHopper-v0", "mjgym.envs.hopper:MjHopperEnv", 1000),
    ("MjCartpole-v0", "mjgym.envs.cartpole:MjCartpoleEnv", 1000),
    ("MjCartpoleSwingup-v0", "mjgym.envs.cartpole:MjCartpoleSwingupEnv", 1000),
    ("MjArmReach-v0", "mjgym.envs.arm_reach:MjArmReachEnv", 200),
    ("MjHumanoid-v0", "mjgym.envs.humanoid:MjHumanoidEnv", 1000),
)


def _register():
  from gymnasium.envs.registration import registry  # pylint: disable=import-outside-toplevel
  for env_id, entry_point, steps in ENVS:
    if env_id not in registry:
      register(id=env_id, entry_point=entry_point, max_episode_steps=steps,
               vector_entry_point=vector_entry_point(entry_point))


_register()

__all__ = ["MjEnv", "MjHopperEnv", "MjCartpoleEnv", "MjCartpoleSwingupEnv", "MjArmReachEnv", "MjHumanoidEnv",
           "MjVectorEnv", "ENVS"]
