"""mjgym's environments, registered with Gymnasium on ``import mjgym``.

Registration names entry points as strings, so ``import mjgym`` loads neither numba nor the engine: Gymnasium
imports an env's module (and with it the engine) at ``gym.make``. The classes are importable from here as well
(``from mjgym.envs import MjHopperEnv``); that import loads them.
"""

import importlib

from gymnasium.envs.registration import register

# (id, class, max_episode_steps); the Gymnasium v5 tasks first, then mjgym's own.
ENVS = (
    ("MjHopper-v0", "mjgym.envs.hopper:MjHopperEnv", 1000),
    ("MjWalker2d-v0", "mjgym.envs.walker2d:MjWalker2dEnv", 1000),
    ("MjHalfCheetah-v0", "mjgym.envs.half_cheetah:MjHalfCheetahEnv", 1000),
    ("MjAnt-v0", "mjgym.envs.ant:MjAntEnv", 1000),
    ("MjHumanoid-v0", "mjgym.envs.humanoid:MjHumanoidEnv", 1000),
    ("MjHumanoidStandup-v0", "mjgym.envs.humanoidstandup:MjHumanoidStandupEnv", 1000),
    ("MjSwimmer-v0", "mjgym.envs.swimmer:MjSwimmerEnv", 1000),
    ("MjReacher-v0", "mjgym.envs.reacher:MjReacherEnv", 50),
    ("MjPusher-v0", "mjgym.envs.pusher:MjPusherEnv", 100),
    ("MjInvertedPendulum-v0", "mjgym.envs.inverted_pendulum:MjInvertedPendulumEnv", 1000),
    ("MjInvertedDoublePendulum-v0", "mjgym.envs.inverted_double_pendulum:MjInvertedDoublePendulumEnv", 1000),
    ("MjCartpole-v0", "mjgym.envs.cartpole:MjCartpoleEnv", 1000),
    ("MjCartpoleSwingup-v0", "mjgym.envs.cartpole:MjCartpoleSwingupEnv", 1000),
    ("MjArmReach-v0", "mjgym.envs.arm_reach:MjArmReachEnv", 200),
)

# The DeepMind Control Suite's tasks: (id, class, max_episode_steps, the class's arguments that make the task).
# Ids are dm_control's domain and task names, "MjDMC/<domain>-<task>-v0"; every suite task lasts 1000 steps.
DMC_ENVS = (
    ("MjDMC/acrobot-swingup-v0", "mjgym.envs.dmc.acrobot:MjDMCAcrobotEnv", 1000, {}),
    ("MjDMC/acrobot-swingup_sparse-v0", "mjgym.envs.dmc.acrobot:MjDMCAcrobotEnv", 1000, {"sparse": True}),
    ("MjDMC/ball_in_cup-catch-v0", "mjgym.envs.dmc.ball_in_cup:MjDMCBallInCupEnv", 1000, {}),
    ("MjDMC/cartpole-balance-v0", "mjgym.envs.dmc.cartpole:MjDMCCartpoleEnv", 1000, {}),
    ("MjDMC/cartpole-balance_sparse-v0", "mjgym.envs.dmc.cartpole:MjDMCCartpoleEnv", 1000, {"sparse": True}),
    ("MjDMC/cartpole-swingup-v0", "mjgym.envs.dmc.cartpole:MjDMCCartpoleEnv", 1000, {"swing_up": True}),
    ("MjDMC/cartpole-swingup_sparse-v0", "mjgym.envs.dmc.cartpole:MjDMCCartpoleEnv", 1000,
     {"swing_up": True, "sparse": True}),
    ("MjDMC/cartpole-two_poles-v0", "mjgym.envs.dmc.cartpole:MjDMCCartpoleTwoPolesEnv", 1000, {"swing_up": True}),
    ("MjDMC/cartpole-three_poles-v0", "mjgym.envs.dmc.cartpole:MjDMCCartpoleThreePolesEnv", 1000,
     {"swing_up": True}),
    ("MjDMC/cheetah-run-v0", "mjgym.envs.dmc.cheetah:MjDMCCheetahEnv", 1000, {}),
    ("MjDMC/finger-spin-v0", "mjgym.envs.dmc.finger:MjDMCFingerEnv", 1000, {}),
    ("MjDMC/finger-turn_easy-v0", "mjgym.envs.dmc.finger:MjDMCFingerEnv", 1000, {"turn": True}),
    ("MjDMC/finger-turn_hard-v0", "mjgym.envs.dmc.finger:MjDMCFingerEnv", 1000,
     {"turn": True, "target_radius": 0.03}),
    ("MjDMC/fish-upright-v0", "mjgym.envs.dmc.fish:MjDMCFishEnv", 1000, {}),
    ("MjDMC/fish-swim-v0", "mjgym.envs.dmc.fish:MjDMCFishEnv", 1000, {"swim": True}),
    ("MjDMC/hopper-stand-v0", "mjgym.envs.dmc.hopper:MjDMCHopperEnv", 1000, {}),
    ("MjDMC/hopper-hop-v0", "mjgym.envs.dmc.hopper:MjDMCHopperEnv", 1000, {"hop_speed": 2.0}),
    ("MjDMC/humanoid-stand-v0", "mjgym.envs.dmc.humanoid:MjDMCHumanoidEnv", 1000, {}),
    ("MjDMC/humanoid-walk-v0", "mjgym.envs.dmc.humanoid:MjDMCHumanoidEnv", 1000, {"move_speed": 1.0}),
    ("MjDMC/humanoid-run-v0", "mjgym.envs.dmc.humanoid:MjDMCHumanoidEnv", 1000, {"move_speed": 10.0}),
    ("MjDMC/humanoid-run_pure_state-v0", "mjgym.envs.dmc.humanoid:MjDMCHumanoidEnv", 1000,
     {"move_speed": 10.0, "pure_state": True}),
    ("MjDMC/manipulator-bring_ball-v0", "mjgym.envs.dmc.manipulator:MjDMCManipulatorEnv", 1000, {}),
    ("MjDMC/pendulum-swingup-v0", "mjgym.envs.dmc.pendulum:MjDMCPendulumEnv", 1000, {}),
    ("MjDMC/point_mass-easy-v0", "mjgym.envs.dmc.point_mass:MjDMCPointMassEnv", 1000, {}),
    ("MjDMC/reacher-easy-v0", "mjgym.envs.dmc.reacher:MjDMCReacherEnv", 1000, {}),
    ("MjDMC/reacher-hard-v0", "mjgym.envs.dmc.reacher:MjDMCReacherEnv", 1000, {"target_size": 0.015}),
    ("MjDMC/swimmer-swimmer6-v0", "mjgym.envs.dmc.swimmer:MjDMCSwimmer6Env", 1000, {}),
    ("MjDMC/swimmer-swimmer15-v0", "mjgym.envs.dmc.swimmer:MjDMCSwimmer15Env", 1000, {}),
    ("MjDMC/walker-stand-v0", "mjgym.envs.dmc.walker:MjDMCWalkerEnv", 1000, {}),
    ("MjDMC/walker-walk-v0", "mjgym.envs.dmc.walker:MjDMCWalkerEnv", 1000, {"move_speed": 1.0}),
    ("MjDMC/walker-run-v0", "mjgym.envs.dmc.walker:MjDMCWalkerEnv", 1000, {"move_speed": 8.0}),
)

# The dm_control (domain, task) each suite id is.
DMC_TASKS = {env_id: tuple(env_id[len("MjDMC/"):-len("-v0")].split("-")) for env_id, _, _, _ in DMC_ENVS}

# Gymnasium's reward thresholds of the v5 tasks, registered with ours.
REWARD_THRESHOLDS = {"MjHopper-v0": 3800.0, "MjHalfCheetah-v0": 4800.0, "MjAnt-v0": 6000.0, "MjSwimmer-v0": 360.0,
                     "MjReacher-v0": -3.75, "MjPusher-v0": 0.0, "MjInvertedPendulum-v0": 950.0,
                     "MjInvertedDoublePendulum-v0": 9100.0}

# The Gymnasium v5 task each of ours is.
GYMNASIUM_V5 = {"MjHopper-v0": "Hopper-v5", "MjWalker2d-v0": "Walker2d-v5", "MjHalfCheetah-v0": "HalfCheetah-v5",
                "MjAnt-v0": "Ant-v5", "MjHumanoid-v0": "Humanoid-v5", "MjHumanoidStandup-v0": "HumanoidStandup-v5",
                "MjSwimmer-v0": "Swimmer-v5", "MjReacher-v0": "Reacher-v5", "MjPusher-v0": "Pusher-v5",
                "MjInvertedPendulum-v0": "InvertedPendulum-v5",
                "MjInvertedDoublePendulum-v0": "InvertedDoublePendulum-v5"}

# Public names and the modules that define them, imported on first access.
_LAZY = {
    "MjEnv": "mjgym.envs.base",
    "MjVectorEnv": "mjgym.envs.vector",
    **{entry.split(":")[1]: entry.split(":")[0] for _, entry, _ in ENVS},
    **{entry.split(":")[1]: entry.split(":")[0] for _, entry, _, _ in DMC_ENVS},
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
               reward_threshold=REWARD_THRESHOLDS.get(env_id), vector_entry_point=vector_entry_point(entry_point))
  for env_id, entry_point, steps, kwargs in DMC_ENVS:
    if env_id not in registry:
      register(id=env_id, entry_point=entry_point, max_episode_steps=steps, kwargs=kwargs,
               vector_entry_point=vector_entry_point(entry_point))


def __getattr__(name):
  if name in _LAZY:
    return getattr(importlib.import_module(_LAZY[name]), name)
  raise AttributeError(f"module 'mjgym.envs' has no attribute '{name}'")


_register()

__all__ = ["MjEnv", "MjVectorEnv", "ENVS", "DMC_ENVS", "DMC_TASKS", "GYMNASIUM_V5",
           *(entry.split(":")[1] for _, entry, _ in ENVS),
           *sorted({entry.split(":")[1] for _, entry, _, _ in DMC_ENVS})]
