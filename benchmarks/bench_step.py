"""Step-time benchmark of mjgym's engine beside MuJoCo, measured in the same run.

Prints one table: µs per mj_step (constraints disabled in both engines, the models' own integrators) for
Gymnasium's hopper and humanoid, batched world-steps/s at 1, 64 and 1024 worlds, numba's cold compile (empty
cache) and warm start (new process with the cache present: import to first step). No pass/fail: timings on a
shared machine are noisy, so MuJoCo is timed in the same run to make the ratio meaningful.

    python benchmarks/bench_step.py [--quick]
"""

import argparse
import importlib.resources
import os
import pathlib
import subprocess
import sys
import tempfile
import time

import numpy as np

MODELS = ("hopper", "humanoid")


def _asset(name):
  return str(importlib.resources.files("gymnasium.envs.mujoco") / "assets" / f"{name}.xml")


def _best_rate(fn, steps, repeats):
  """Seconds per call of ``fn(steps)`` / steps: the best of ``repeats`` runs (least disturbed by noise)."""
  best = np.inf
  for _ in range(repeats):
    t0 = time.perf_counter()
    fn(steps)
    best = min(best, (time.perf_counter() - t0) / steps)
  return best


def _disable_constraints(opt, flags):
  opt.disableflags = opt.disableflags | flags


def bench_single(name, steps, repeats):
  import mujoco
  from mjgym import physics

  mjm = mujoco.MjModel.from_xml_path(_asset(name))
  _disable_constraints(mjm.opt, int(mujoco.mjtDisableBit.mjDSBL_CONSTRAINT | mujoco.mjtDisableBit.mjDSBL_CONTACT))
  mjd = mujoco.MjData(mjm)
  m = physics.MjModel.from_xml_path(_asset(name))
  _disable_constraints(m.opt, int(physics.mjtDisableBit.CONSTRAINT | physics.mjtDisableBit.CONTACT))
  d = physics.MjData(m)
  physics.mj_step(m, d, 1)

  def run_mujoco(n):
    mujoco.mj_step(mjm, mjd, n)

  run = physics.forward.entry(m)

  def run_ours(n):
    run(m._struct, d._struct, physics.forward.OP_STEP, n)

  def run_ours_python(n):
    for _ in range(n):
      physics.mj_step(m, d)

  t_mj = _best_rate(run_mujoco, steps, repeats)
  t_ours = _best_rate(run_ours, steps, repeats)
  t_py = _best_rate(run_ours_python, steps // 10, repeats)
  return t_mj, t_ours, t_py


def bench_batch(name, nworld, steps, repeats):
  import mujoco
  from mjgym import physics
  from mjgym.physics import batch

  m = physics.MjModel.from_xml_path(_asset(name))
  _disable_constraints(m.opt, int(physics.mjtDisableBit.CONSTRAINT | physics.mjtDisableBit.CONTACT))
  b = batch.MjDataBatch(m, nworld)
  b.step(1)
  ours = nworld / _best_rate(b.step, steps, repeats)
  mjm = mujoco.MjModel.from_xml_path(_asset(name))
  _disable_constraints(mjm.opt, int(mujoco.mjtDisableBit.mjDSBL_CONSTRAINT | mujoco.mjtDisableBit.mjDSBL_CONTACT))
  datas = [mujoco.MjData(mjm) for _ in range(nworld)]
  mj_steps = max(1, steps // 4)

  def run_mujoco(n):
    for dd in datas:
      mujoco.mj_step(mjm, dd, n)

  theirs = nworld / _best_rate(run_mujoco, mj_steps, repeats)
  return ours, theirs


_FIRST_STEP = """
import time
t0 = time.perf_counter()
from mjgym import physics
m = physics.MjModel.from_xml_path({path!r})
m.opt.disableflags = int(physics.mjtDisableBit.CONSTRAINT | physics.mjtDisableBit.CONTACT)
d = physics.MjData(m)
physics.mj_step(m, d, 1)
from mjgym.physics import batch
b = batch.MjDataBatch(m, 2)
b.step(1)
print(time.perf_counter() - t0)
"""


def bench_compile(name):
  """Cold compile (fresh cache directory) and warm start (same directory, new process), in seconds."""
  with tempfile.TemporaryDirectory() as cache:
    env = dict(os.environ, MJGYM_CACHE_DIR=cache)
    code = _FIRST_STEP.format(path=_asset(name))
    cold = float(subprocess.run([sys.executable, "-c", code], env=env, check=True, capture_output=True,
                                text=True).stdout.split()[-1])
    warm = float(subprocess.run([sys.executable, "-c", code], env=env, check=True, capture_output=True,
                                text=True).stdout.split()[-1])
  return cold, warm


def main():
  parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
  parser.add_argument("--quick", action="store_true", help="fewer steps and repeats")
  parser.add_argument("--no-compile", action="store_true", help="skip the cold-compile measurement")
  args = parser.parse_args()
  steps, repeats = (500, 3) if args.quick else (5000, 5)

  import mujoco
  import numba
  print(f"mjgym step benchmark: mujoco {mujoco.__version__}, numba {numba.__version__}, "
        f"{os.cpu_count()} cpus, numba threads {numba.get_num_threads()}; constraints disabled in both engines")
  print()
  print(f"{'model':<10} {'mujoco µs/step':>15} {'mjgym µs/step':>14} {'ratio':>6} {'mjgym via Python µs':>20}")
  for name in MODELS:
    t_mj, t_ours, t_py = bench_single(name, steps, repeats)
    print(f"{name:<10} {t_mj * 1e6:15.2f} {t_ours * 1e6:14.2f} {t_ours / t_mj:6.2f} {t_py * 1e6:20.2f}")
  print()
  print(f"{'model':<10} {'worlds':>6} {'mjgym world-steps/s':>20} {'mujoco loop world-steps/s':>26} {'ratio':>6}")
  for name in MODELS:
    for nworld in (1, 64, 1024):
      bsteps = max(2, steps * 4 // nworld) if nworld > 1 else steps
      ours, theirs = bench_batch(name, nworld, bsteps, repeats)
      print(f"{name:<10} {nworld:6d} {ours:20,.0f} {theirs:26,.0f} {ours / theirs:6.2f}")
  if not args.no_compile:
    print()
    cold, warm = bench_compile("hopper")
    print(f"numba cold compile (empty cache, import to first single + batched step): {cold:.1f} s")
    print(f"warm start (new process, cache present, import to first single + batched step): {warm:.2f} s")


if __name__ == "__main__":
  main()
