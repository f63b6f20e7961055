"""The engine's compile shared out among processes: the stage kernels by explicit signature, and the helper
process that takes half of a first compile off the main process.

A process that meets an uncached engine compiles the pipeline in the order it types it: position stage first,
integrators last. The helper (``start_helper``, called by the compile progress reporter at the first compile of a
process) compiles the same stage kernels from the other end, so the two meet in the middle; every kernel the
helper has finished is a cache hit when the main process reaches it. It runs only where a second core is free to
take it (``MJGYM_COMPILE_JOBS=1`` turns it off) and is ended when the main process exits.
"""

import atexit
import importlib
import os
import subprocess
import sys

from mjgym.physics import _jit

# The stage kernels that take (Model, Data), in the order a process first calls them (a new MjData resets itself),
# with the seconds each took to compile from an empty cache on this project's 2-core machines
# (benchmarks/bench_compile.py): most of the pipeline's compile. Compiled one by one with explicit signatures they
# can be shared out among processes (the seconds balance the shares); the entry points that call them then load
# them from the cache.
_STAGES = (
    ("forward", "reset_data", 6.7), ("smooth", "kinematics", 3.1), ("smooth", "com_pos", 1.8),
    ("smooth", "camlight", 1.5), ("smooth", "crb", 2.4), ("smooth", "factor_m", 0.7),
    ("collision.driver", "collision", 20.6), ("constraint", "make_constraint", 11.5),
    ("smooth", "transmission", 1.9), ("sensor", "sensor_pos", 8.7), ("actuation", "fwd_velocity_quantities", 0.2),
    ("smooth", "com_vel", 1.2), ("passive", "passive", 2.3), ("smooth", "rne", 1.3), ("sensor", "sensor_vel", 2.4),
    ("actuation", "fwd_actuation", 1.8), ("constraint", "constraint_velocity", 1.9), ("solver", "solve", 15.3),
    ("sensor", "sensor_acc", 8.5), ("smooth", "rne_postconstraint", 0.5), ("forward", "euler", 0.8),
    # lazy (compiled only for models that use them), but MuJoCo's default solver is Newton: most models need it,
    # so the helper, which starts from this end, takes it first
    ("solver", "_solve_primal", 14.0),
)

_HELPER = []


def cpu_count():
  """Cores this process may use (its affinity mask where the OS has one)."""
  try:
    return len(os.sched_getaffinity(0))
  except AttributeError:
    return os.cpu_count() or 1


# The collision stage with every collider (GJK/EPA, meshes, height fields): the ccd pipeline's only stage of its
# own, compiled after the closed-form stages when both tiers are wanted.
_CCD_COLLISION = ("collision.driver", "collision", 62.0)


def _stages(ccd):
  return _STAGES + (_CCD_COLLISION,) if ccd else _STAGES


def stage_kernels(ccd=False):
  """(dispatcher, signature) of every stage kernel, in pipeline order: the closed-form tier's, then (if ``ccd``)
  the collision stage of the tier with every collider."""
  import numba  # pylint: disable=import-outside-toplevel
  from mjgym.physics import _structs  # pylint: disable=import-outside-toplevel
  from mjgym.physics.collision import driver  # pylint: disable=import-outside-toplevel
  md = (_structs.model_type, _structs.data_type)
  kernels = []
  for i, (module, name, _) in enumerate(_stages(ccd)):
    disp = getattr(importlib.import_module(f"mjgym.physics.{module}"), name)
    disp = _jit.dispatcher_of(disp)  # a lazy kernel's own dispatcher
    if name == "collision":
      narrow = driver.narrow_all if i == len(_STAGES) else driver.narrow_closed_form
      kernels.append((disp, md + (numba.typeof(narrow),)))
    else:
      kernels.append((disp, md))
  return kernels


# Seconds to compile the Model and Data constructors (``_structs.new_model``, ``new_data``), which every process
# compiles first when it builds its first model.
STRUCTS_SECONDS = 14.0


def share(nparts, ccd=False, first=0.0):
  """Stage indices split into ``nparts`` shares of about equal compile time (longest first to the least loaded),
  each in pipeline order; share 0 starts with ``first`` seconds of other work."""
  stages = _stages(ccd)
  shares = [[] for _ in range(nparts)]
  load = [first] + [0.0] * (nparts - 1)
  for i in sorted(range(len(stages)), key=lambda i: -stages[i][2]):
    k = load.index(min(load))
    shares[k].append(i)
    load[k] += stages[i][2]
  return [sorted(s) for s in shares]


def compile_stages(ccd=False, part=0, nparts=1, reverse=False, first=0.0):
  """Compiles share ``part`` of ``nparts`` of the stage kernels, the ccd tier's collision too if ``ccd`` (in
  reverse pipeline order if ``reverse``); ``first`` as in ``share``."""
  kernels = stage_kernels(ccd)
  mine = [kernels[i] for i in share(nparts, ccd, first)[part]]
  for disp, sig in reversed(mine) if reverse else mine:
    disp.compile(sig)  # loads from the cache instead when another process got there first


def uncached_stages():
  """How many stage kernels will compile (no cache on disk, not compiled in this process)."""
  return len(_jit.uncached([disp for disp, _ in stage_kernels()]))


def _may_spawn():
  """Whether a helper could take work: a second usable core, compiles not limited to one process
  (MJGYM_COMPILE_JOBS=1), and this process not a helper itself."""
  return (not _jit.is_plain() and not os.environ.get("MJGYM_COMPILE_HELPER") and os.environ.get("MJGYM_COMPILE_JOBS", "") != "1"
          and cpu_count() >= 2)


def _spawn(args):
  """A silent helper process ``python <args>``, ended when this process exits."""
  env = dict(os.environ, MJGYM_COMPILE_HELPER="1", MJGYM_COMPILE_PROGRESS="0")
  proc = subprocess.Popen([sys.executable, *args], env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                          stderr=subprocess.DEVNULL)
  if not _HELPER:
    atexit.register(_stop_helper)
  _HELPER.append(proc)
  return proc


def start_helper():
  """Starts the helper process if it can help (see ``_may_spawn``), once per process and only with stage kernels
  left to compile. Returns whether one started."""
  if _HELPER or not _may_spawn() or uncached_stages() < 4:
    return False
  _spawn(["-m", "mjgym.physics._parallel"])
  return True


def run_in_helper(code):
  """Starts a helper process running the Python statement ``code`` (a compile that fills the cache) and returns
  it; None where it cannot help (see ``_may_spawn``, or a helper already at work)."""
  if not _may_spawn() or any(proc.poll() is None for proc in _HELPER):
    return None
  return _spawn(["-c", code])


def _stop_helper():
  for proc in _HELPER:
    if proc.poll() is None:
      proc.terminate()


if __name__ == "__main__":
  compile_stages(reverse=True)
