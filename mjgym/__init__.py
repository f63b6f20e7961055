"""mjgym: Gymnasium environments on a MuJoCo-style physics engine written in Python with numpy and numba.

The engine is ``mjgym.physics`` (``from mjgym import physics as mujoco``); the environments arrive in
``mjgym.envs`` and are registered with Gymnasium when this package is imported.
"""

__version__ = "0.1.0"
