"""Full mj_step with contacts per constraint solver (Newton, CG, PGS), mjgym next to MuJoCo in the same run.

Usage: python benchmarks/bench_solver.py [nstep]
Prints microseconds per step and the mean number of efc rows and solver iterations; no asserts on time.
"""

import importlib.resources
import sys
import time

import mujoco
import numpy as np

from mjgym import physics

MODELS = ("hopper", "walker2d", "ant", "humanoid")
SOLVERS = {"Newton": 2, "CG": 1, "PGS": 0}


def _asset(name):
  return str(importlib.resources.files("gymnasium.envs.mujoco") / "assets" / f"{name}.xml")


def _run(step, m, d, nstep, seed=0):
  """Seconds per step under random controls (changed every 10 steps), after a warm-up."""
  rng = np.random.default_rng(seed)
  lo, hi = m.actuator_ctrlrange.T
  step(m, d)
  start = time.perf_counter()
  for _ in range(nstep // 10):
    d.ctrl[:] = rng.uniform(lo, hi)
    for _ in range(10):
      step(m, d)
  return (time.perf_counter() - start) / nstep


def main(nstep=2000):
  print(f"{'model':10s} {'solver':7s} {'mjgym us':>9s} {'mujoco us':>9s} {'ratio':>6s} {'nefc':>5s} {'iter':>5s}")
  for name in MODELS:
    for label, solver in SOLVERS.items():
      m = physics.MjModel.from_xml_path(_asset(name))
      mjm = mujoco.MjModel.from_xml_path(_asset(name))
      m.opt.solver = solver
      mjm.opt.solver = solver
      d = physics.MjData(m)
      mjd = mujoco.MjData(mjm)
      ours = _run(physics.mj_step, m, d, nstep)
      theirs = _run(mujoco.mj_step, mjm, mjd, nstep)
      print(f"{name:10s} {label:7s} {ours * 1e6:9.1f} {theirs * 1e6:9.1f} {ours / theirs:6.1f} {int(d.nefc):5d} "
            f"{int(d.solver_niter[0]):5d}", flush=True)


if __name__ == "__main__":
  main(int(sys.argv[1]) if len(sys.argv) > 1 else 2000)
