"""How many CPUs this process may use (imports nothing of mjgym: the package sizes numba's pool with it)."""

import os


def usable_cpus():
  """CPUs this process may use: its affinity mask, capped by ``OMP_NUM_THREADS`` where that is a positive
  integer (Ray, SLURM launchers and job schedulers set it to the CPUs they grant a worker), at least 1."""
  try:
    cpus = len(os.sched_getaffinity(0))
  except AttributeError:  # not Linux
    cpus = os.cpu_count() or 1
  omp = os.environ.get("OMP_NUM_THREADS", "").strip()
  if omp.isdigit() and int(omp) > 0:
    cpus = min(cpus, int(omp))
  return max(1, cpus)
