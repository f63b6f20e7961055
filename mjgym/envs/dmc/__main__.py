"""Prints the suite's observation-layout table of docs/dmc.md: ``python -m mjgym.envs.dmc``."""

import gymnasium as gym

import mjgym
from mjgym.envs.dmc import observation_table

print(observation_table({env_id: gym.make(env_id) for env_id, _, _, _ in mjgym.envs.DMC_ENVS}), end="")
