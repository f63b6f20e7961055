"""mjgym: Gymnasium environments on a MuJoCo-style physics engine written in Python with numpy and numba.

The engine is ``mjgym.physics`` (``from mjgym import physics as mujoco``); the environments live in
``mjgym.envs`` and are registered with Gymnasium when this package is imported:
``gym.make("MjHopper-v0")`` after ``import mjgym``, or ``gym.make("mjgym:MjHopper-v0")`` without it.
"""

import os

from mjgym._cpus import usable_cpus

__version__ = "0.1.0"

# numba starts one worker thread per machine core unless told otherwise; in each of many Ray env runners (or
# other workers) on one node that is a pool far larger than the CPUs the worker was given. Size it from what this
# process may use, before numba is imported. A value the user set wins; a value mjgym set in a parent process
# (children inherit the environment: Ray's workers inherit the driver's) is recomputed for this one. If numba was
# already imported, the vector envs still use at most ``usable_cpus()`` threads.
_AUTO = "MJGYM_AUTO_NUMBA_NUM_THREADS"
if os.environ.get("NUMBA_NUM_THREADS") in (None, os.environ.get(_AUTO)):
  os.environ["NUMBA_NUM_THREADS"] = os.environ[_AUTO] = str(usable_cpus())

# registers the environments with Gymnasium
from mjgym import envs  # noqa: E402,F401  pylint: disable=wrong-import-position
