"""The ``mjgym`` command.

``mjgym train ENV_ID``: trains a policy with stable-baselines3 on mjgym's batched VecEnv (tuned hyperparameters,
progress, evaluations, learning curve, checkpoints, video); ``mjgym eval RUN_DIR`` and ``mjgym record`` read
the run back (see ``mjgym.train``).
``mjgym simulate MODEL``: compiles an MJCF model (a path, or the name of one of Gymnasium's MuJoCo models such
as ``hopper``), simulates it under random controls and prints what happened.
``mjgym compile``: compiles the engine into mjgym's cache ahead of time, in parallel (Dockerfiles, cluster images).
"""

import argparse
import importlib.resources
import pathlib
import sys
import time

import numpy as np

from mjgym import usage


def _model_path(name):
  path = pathlib.Path(name)
  if path.suffix == ".xml" or path.exists():
    return path
  gym_assets = importlib.resources.files("gymnasium.envs.mujoco") / "assets"
  candidate = pathlib.Path(str(gym_assets / f"{name}.xml"))
  if candidate.exists():
    return candidate
  known = sorted(p.name[:-4] for p in gym_assets.iterdir() if p.name.endswith(".xml"))
  return usage.fail("mjgym simulate", f"no model file {name!r} and no Gymnasium model of that name "
                    f"(known: {', '.join(known)})")


def simulate(args):
  from mjgym import physics  # imported here so that --help stays instant

  path = _model_path(args.model)
  t0 = time.perf_counter()
  m = physics.MjModel.from_xml_path(str(path))
  d = physics.MjData(m)
  t1 = time.perf_counter()
  if args.no_constraints:
    m.opt.disableflags |= int(physics.mjtDisableBit.CONSTRAINT | physics.mjtDisableBit.CONTACT)
  print(f"model {path.name}: nbody={m.nbody} njnt={m.njnt} nq={m.nq} nv={m.nv} nu={m.nu} ngeom={m.ngeom} "
        f"integrator={physics.mjtIntegrator(m.opt.integrator).name} timestep={m.opt.timestep} s")
  physics.mj_step(m, d, 1)  # compiles (or loads from cache) the step path
  t2 = time.perf_counter()
  print(f"compiled model in {t1 - t0:.2f} s; first step (numba compile or cache load) {t2 - t1:.2f} s")
  rng = np.random.default_rng(args.seed)
  lo, hi = m.actuator_ctrlrange.T
  lo = np.where(m.actuator_ctrllimited == 1, lo, -1.0)
  hi = np.where(m.actuator_ctrllimited == 1, hi, 1.0)
  report_every = max(1, args.steps // 5)
  t3 = time.perf_counter()
  for k in range(1, args.steps + 1):
    d.ctrl[:] = rng.uniform(lo, hi)
    physics.mj_step(m, d)
    if k % report_every == 0 or k == args.steps:
      print(f"  step {k:6d}  t={d.time:8.3f} s  root xpos={np.round(d.xpos[min(1, m.nbody - 1)], 3)}  "
            f"|qvel|={np.linalg.norm(d.qvel):9.3f}")
  wall = time.perf_counter() - t3
  warnings = {physics.mjtWarning(i).name: int(n) for i, n in enumerate(d.warning.number) if n}
  print(f"simulated {d.time:.3f} s in {wall:.3f} s wall ({wall / args.steps * 1e6:.1f} µs/step incl. Python); "
        f"warnings: {warnings or 'none'}")
  return 0


def compile_engine(args):
  from mjgym import prewarm  # imported here so that --help stays instant
  try:
    prewarm.run(args.targets or prewarm.DEFAULT_TARGETS, jobs=args.jobs)
  except (RuntimeError, ValueError) as e:
    usage.fail("mjgym compile", str(e))
  return 0


def main(argv=None):
  parser = argparse.ArgumentParser(prog="mjgym", description=__doc__.strip().splitlines()[0])
  sub = parser.add_subparsers(dest="command", required=True)
  sim = sub.add_parser("simulate", help="compile a model and simulate it under random controls")
  sim.add_argument("model", nargs="?", default="hopper", help="MJCF path or Gymnasium model name (default hopper)")
  sim.add_argument("--steps", type=int, default=2000)
  sim.add_argument("--seed", type=int, default=0)
  sim.add_argument("--no-constraints", action="store_true",
                   help="disable constraints and contacts (pure smooth dynamics)")
  sim.set_defaults(func=simulate)
  comp = sub.add_parser("compile", help="compile the engine into the cache ahead of time, on all cores",
                        description="Compiles the engine (and the envs' kernels) into mjgym's cache "
                        "($MJGYM_CACHE_DIR or ~/.cache/mjgym/numba), one process per target. Targets: "
                        "single, single-ccd, batch, batch-ccd, envs (default: these five) and render.")
  comp.add_argument("targets", nargs="*", help="what to compile (default: all but render)")
  comp.add_argument("--jobs", "-j", type=int, default=None, help="processes at once (default: usable cores)")
  comp.set_defaults(func=compile_engine)
  from mjgym import train  # light: its heavy imports happen inside the commands
  train.add_train_arguments(sub.add_parser("train", help="train a policy (stable-baselines3) on an mjgym env",
                                           description=train.__doc__.strip().splitlines()[0]))
  train.add_eval_arguments(sub.add_parser("eval", help="evaluate a trained run: mean ± std return"))
  train.add_record_arguments(sub.add_parser("record", help="video of a trained run's policy, or of random actions"))
  from mjgym import bench  # light, as train
  bench.add_arguments(sub.add_parser("bench", help="env-steps/s of mjgym's envs beside Gymnasium's (and EnvPool's)",
                                     description=bench.__doc__.strip().splitlines()[0])).set_defaults(func=bench.run)
  args = parser.parse_args(argv)
  return args.func(args)


if __name__ == "__main__":
  sys.exit(main())
