"""mjgym: Gymnasium environments on a MuJoCo-style physics engine written in Python with numpy and numba.

The engine is ``mjgym.physics`` (``from mjgym import physics as mujoco``); the environments live in
``mjgym.envs`` and are registered with Gymnasium when this package is imported:
``gym.make("MjHopper-v0")`` after ``import mjgym``, or ``gym.make("mjgym:MjHopper-v0")`` without it.
"""

__version__ = "0.1.0"

from mjgym import envs  # noqa: E402,F401  (registers the environments with Gymnasium)
