"""numba's thread pool follows the CPUs a worker is given (Ray sets OMP_NUM_THREADS; schedulers set affinity)."""

import os
import subprocess
import sys

import pytest

_PROBE = ("import mjgym, numba, gymnasium as gym; "
          "from mjgym.envs import vector; "
          "e = gym.make_vec('MjCartpole-v0', num_envs=64, vectorization_mode='vector_entry_point'); "
          "print(numba.config.NUMBA_NUM_THREADS, vector.default_num_threads(64), e.unwrapped.num_threads)")


def _probe(env=None, cpus=None):
  environ = {k: v for k, v in os.environ.items()
             if k not in ("OMP_NUM_THREADS", "NUMBA_NUM_THREADS", "MJGYM_AUTO_NUMBA_NUM_THREADS")}
  environ.update(env or {})
  preexec = (lambda: os.sched_setaffinity(0, cpus)) if cpus is not None else None
  out = subprocess.run([sys.executable, "-c", _PROBE], env=environ, preexec_fn=preexec, capture_output=True,
                       text=True, timeout=300, check=True).stdout.split()
  return tuple(int(x) for x in out)


@pytest.mark.skipif(len(os.sched_getaffinity(0)) < 2, reason="needs two usable CPUs")
def test_numba_pool_follows_omp_num_threads():
  assert _probe({"OMP_NUM_THREADS": "1"}) == (1, 1, 1)
  cpus = len(os.sched_getaffinity(0))
  assert _probe() == (cpus, min(cpus, 8), min(cpus, 8))  # 64 worlds: at least 8 a thread


@pytest.mark.skipif(len(os.sched_getaffinity(0)) < 2, reason="needs two usable CPUs")
def test_numba_pool_follows_cpu_affinity():
  first = min(os.sched_getaffinity(0))
  assert _probe(cpus={first}) == (1, 1, 1)


def test_a_numba_num_threads_the_user_set_wins():
  assert _probe({"OMP_NUM_THREADS": "1", "NUMBA_NUM_THREADS": "2"})[0] == 2


def test_a_child_recomputes_what_mjgym_set_in_its_parent():
  """Ray's workers inherit the driver's environment: mjgym's own choice there must not pin the worker's pool."""
  assert _probe({"NUMBA_NUM_THREADS": "2", "MJGYM_AUTO_NUMBA_NUM_THREADS": "2", "OMP_NUM_THREADS": "1"})[0] == 1
