"""Prints the suite's observation-layout table of docs/dmc.md: ``python -m mjgym.envs.dmc``."""

import gymnasium as gym

from mjgym.envs import DMC_ENVS
from mjgym.envs.dmc import observation_table

print(observation_table({env_id: gym.make(env_id) for env_id, _, _, _ in DMC_ENVS}), end="")
