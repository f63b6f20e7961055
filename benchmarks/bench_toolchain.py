"""Step time on mjgym's patched numba toolchain and on plain numba (MJGYM_PLAIN_NUMBA=1), beside MuJoCo, one run.

Each engine steps each model in a process of its own (the toolchain's mode is chosen per process), from the model's
initial state under fixed random controls; the figure is the best of ``--repeats`` timed runs of ``--steps`` steps
(per step, microseconds). The processes run one after another, engine by engine, round by round, so that a busy
moment on the machine hits all of them alike. No asserts: timings are for reading.

  python benchmarks/bench_toolchain.py [--models hopper humanoid] [--steps 2000] [--repeats 5] [--rounds 2]
                                      [--plain-cache DIR]

Plain mode compiles its kernels into numba's own cache (here a temporary NUMBA_CACHE_DIR, filled by a first
untimed process), so the first plain run of a fresh machine takes minutes (bench_compile.py --modes plain).
"""

import argparse
import json
import os
import pathlib
import subprocess
import sys
import tempfile
import time

ASSETS = pathlib.Path(__file__).resolve().parents[1] / "mjgym" / "assets"


def _worker(engine, models, steps, repeats):
  import numpy as np  # pylint: disable=import-outside-toplevel
  if engine == "mujoco":
    import mujoco as lib  # pylint: disable=import-outside-toplevel
  else:
    from mjgym import physics as lib  # pylint: disable=import-outside-toplevel
  out = {}
  for name in models:
    m = lib.MjModel.from_xml_path(str(ASSETS / f"{name}.xml"))
    d = lib.MjData(m)
    ctrl = np.random.default_rng(0).uniform(-1, 1, (steps, m.nu))
    lib.mj_step(m, d)
    best = float("inf")
    for _ in range(repeats):
      lib.mj_resetData(m, d)
      t0 = time.perf_counter()
      for i in range(steps):
        d.ctrl[:] = ctrl[i]
        lib.mj_step(m, d)
      best = min(best, (time.perf_counter() - t0) / steps)
    out[name] = best * 1e6
  if engine != "mujoco":
    out["mode"] = lib._jit.mode()  # pylint: disable=protected-access
  return out


def main():
  parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
  parser.add_argument("--models", nargs="+", default=["hopper", "humanoid"])
  parser.add_argument("--steps", type=int, default=2000)
  parser.add_argument("--repeats", type=int, default=5)
  parser.add_argument("--rounds", type=int, default=2)
  parser.add_argument("--plain-cache", help="NUMBA_CACHE_DIR for plain mode (default: a new temporary one); "
                      "bench_compile.py --modes plain --cache DIR leaves one at DIR/plain; 'in-tree': numba's own "
                      "place beside the sources, as a plain-mode run without NUMBA_CACHE_DIR leaves it")
  parser.add_argument("--worker", choices=["patched", "plain", "mujoco"], help=argparse.SUPPRESS)
  args = parser.parse_args()
  if args.worker:
    print(json.dumps(_worker(args.worker, args.models, args.steps, args.repeats)))
    return
  with tempfile.TemporaryDirectory(prefix="mjgym-bench-plain-") as tmp:
    plain_cache = args.plain_cache or tmp
    envs = {"patched": dict(os.environ, MJGYM_COMPILE_PROGRESS="0"),
            "plain": dict(os.environ, MJGYM_PLAIN_NUMBA="1", NUMBA_CACHE_DIR=plain_cache, MJGYM_COMPILE_PROGRESS="0"),
            "mujoco": dict(os.environ)}
    if plain_cache == "in-tree":
      envs["plain"].pop("NUMBA_CACHE_DIR")
    best = {engine: {} for engine in envs}
    for rnd in range(args.rounds + 1):  # round 0 compiles (untimed)
      for engine, env in envs.items():
        cmd = [sys.executable, __file__, "--worker", engine, "--steps", str(args.steps if rnd else 10),
               "--repeats", str(args.repeats if rnd else 1), "--models", *args.models]
        print(f"round {rnd}: {engine} ...", flush=True)
        out = json.loads(subprocess.run(cmd, env=env, check=True, capture_output=True, text=True)
                         .stdout.strip().splitlines()[-1])
        if rnd:
          for name in args.models:
            best[engine][name] = min(best[engine].get(name, float("inf")), out[name])
  print("\n| model | mjgym patched, us/step | mjgym plain, us/step | MuJoCo, us/step | plain / patched | "
        "patched / MuJoCo |")
  print("|---|---:|---:|---:|---:|---:|")
  for name in args.models:
    pa, pl, mj = best["patched"][name], best["plain"][name], best["mujoco"][name]
    print(f"| {name} | {pa:.1f} | {pl:.1f} | {mj:.1f} | {pl / pa:.2f} | {pa / mj:.2f} |")


if __name__ == "__main__":
  main()
