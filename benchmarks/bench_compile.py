"""What a user waits for before the first step: numba's compile, cold and warm, beside MuJoCo's start.

Runs, each in a fresh process:
  cold   an empty mjgym cache: import mjgym, then for each env make -> reset -> step (the first env pays the engine's
         compile, the next ones what they add);
  warm   the same with the cache the cold run left (what every later process pays);
  mujoco import mujoco + gymnasium, gym.make("Hopper-v5") -> reset -> step, as the reference.
The compile is read from numba's own events ("numba:compile" per kernel, "numba:llvm_lock" inside it), so the
tables say where the seconds go: per entry point (a compile started from Python, inclusive) and per kernel
(exclusive of the kernels it compiled, with the part spent in LLVM). No asserts: timings are for reading.

  python benchmarks/bench_compile.py [--envs MjHopper-v0 MjHumanoid-v0] [--top 25] [--cache DIR] [--json FILE]
                                    [--modes patched plain]

``--modes plain`` measures mjgym on plain numba (``MJGYM_PLAIN_NUMBA=1``: no toolchain patch, kernels linked into
their callers and cached by numba's own rules, here under the same empty directory through NUMBA_CACHE_DIR).
"""

import argparse
import collections
import json
import os
import subprocess
import sys
import tempfile
import time


def _worker(env_ids):
  """In a fresh process: time import and each env's make/reset/step, recording numba's compile events."""
  t0 = time.perf_counter()
  from numba.core import event  # pylint: disable=import-outside-toplevel
  compile_rec, llvm_rec = event.RecordingListener(), event.RecordingListener()
  event.register("numba:compile", compile_rec)
  event.register("numba:llvm_lock", llvm_rec)
  t_numba = time.perf_counter() - t0
  t0 = time.perf_counter()
  import gymnasium as gym  # pylint: disable=import-outside-toplevel
  import mjgym  # pylint: disable=import-outside-toplevel,unused-import
  t_import = time.perf_counter() - t0
  # numba is imported first (to listen to its compile events); a user's import pays for it too
  phases = [("import numba, gymnasium, mjgym", t_numba + t_import)]
  for env_id in env_ids:
    t0 = time.perf_counter()
    env = gym.make(env_id)
    env.reset(seed=0)
    env.step(env.action_space.sample())
    phases.append((f"{env_id}: make, reset, step", time.perf_counter() - t0))
    env.close()
  events = []
  for kind, rec in (("compile", compile_rec), ("llvm", llvm_rec)):
    for t, ev in rec.buffer:
      name = None
      if kind == "compile":
        disp = ev.data["dispatcher"]
        name = f"{disp.py_func.__module__}.{disp.py_func.__qualname__}"
      events.append((t, kind, ev.is_start, name))
  events.sort(key=lambda e: e[0])
  return {"phases": phases, "numba_import": t_numba, "events": events}


def _mujoco_worker():
  t0 = time.perf_counter()
  import gymnasium as gym  # pylint: disable=import-outside-toplevel
  import mujoco  # pylint: disable=import-outside-toplevel,unused-import
  t_import = time.perf_counter() - t0
  t0 = time.perf_counter()
  env = gym.make("Hopper-v5")
  env.reset(seed=0)
  env.step(env.action_space.sample())
  return {"phases": [("import gymnasium, mujoco", t_import), ("Hopper-v5: make, reset, step",
                                                             time.perf_counter() - t0)], "events": []}


def compile_times(events):
  """(entry points {name: inclusive s}, kernels {name: [exclusive s, llvm s, count]}) from ordered events."""
  stack, entries = [], collections.Counter()
  kernels = collections.defaultdict(lambda: [0.0, 0.0, 0])
  for t, kind, start, name in events:
    if start:
      stack.append([kind, name, t, 0.0])
      continue
    kind, name, t_start, nested = stack.pop()
    dur = t - t_start
    if kind == "compile":
      row = kernels[name]
      row[0] += dur - nested
      row[2] += 1
      if not any(s[0] == "compile" for s in stack):
        entries[name] += dur
      if stack:
        stack[-1][3] += dur
    else:
      owner = next((s for s in reversed(stack) if s[0] == "compile"), None)
      if owner is not None:
        kernels[owner[1]][1] += dur
  return entries, kernels


def _run(args, env, label):
  cmd = [sys.executable, __file__] + args
  t0 = time.perf_counter()
  out = subprocess.run(cmd, env=env, check=True, capture_output=True, text=True)
  wall = time.perf_counter() - t0
  result = json.loads(out.stdout.strip().splitlines()[-1])
  result["wall"] = wall
  result["label"] = label
  return result


def _short(name):
  return name.removeprefix("mjgym.physics.").removeprefix("mjgym.")


def report(runs, top):
  print("\n| run | phase | seconds |")
  print("|---|---|---|")
  for r in runs:
    for phase, sec in r["phases"]:
      print(f"| {r['label']} | {phase} | {sec:.2f} |")
    print(f"| {r['label']} | whole process (interpreter start to exit) | {r['wall']:.2f} |")
  for r in runs:
    if not r["events"]:
      continue
    entries, kernels = compile_times(r["events"])
    total = sum(entries.values())
    llvm = sum(k[1] for k in kernels.values())
    print(f"\n{r['label']}: {total:.1f} s compiling {len(kernels)} kernels ({llvm:.1f} s of it in LLVM)")
    print("\n| entry point (compile started from Python) | s, inclusive |")
    print("|---|---|")
    for name, sec in entries.most_common():
      if sec >= 0.05:
        print(f"| {_short(name)} | {sec:.2f} |")
    print(f"\n| kernel (top {top} by own compile time) | s, exclusive | of it LLVM | signatures |")
    print("|---|---|---|---|")
    for name, (sec, lv, count) in sorted(kernels.items(), key=lambda kv: -kv[1][0])[:top]:
      print(f"| {_short(name)} | {sec:.2f} | {lv:.2f} | {count} |")


def main():
  parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
  parser.add_argument("--envs", nargs="+", default=["MjHopper-v0", "MjHumanoid-v0"])
  parser.add_argument("--top", type=int, default=25)
  parser.add_argument("--cache", help="cache directory to use (default: a new temporary one)")
  parser.add_argument("--json", help="also write the raw results here")
  parser.add_argument("--modes", nargs="+", choices=["patched", "plain"], default=["patched"],
                      help="mjgym's numba toolchain patched (the default) and/or plain numba")
  parser.add_argument("--worker", choices=["mjgym", "mujoco"], help=argparse.SUPPRESS)
  args = parser.parse_args()
  if args.worker == "mjgym":
    print(json.dumps(_worker(args.envs)))
    return
  if args.worker == "mujoco":
    print(json.dumps(_mujoco_worker()))
    return
  runs = []
  worker = ["--worker", "mjgym", "--envs"] + args.envs
  for mode in args.modes:
    with tempfile.TemporaryDirectory(prefix="mjgym-bench-compile-") as tmp:
      cache = os.path.join(args.cache, mode) if args.cache else tmp
      env = dict(os.environ, MJGYM_CACHE_DIR=cache, MJGYM_COMPILE_PROGRESS="0")
      if mode == "plain":
        env.update(MJGYM_PLAIN_NUMBA="1", NUMBA_CACHE_DIR=cache)
      name = "mjgym" if args.modes == ["patched"] else f"mjgym {mode}"
      print(f"{name}: cold run (empty cache at {cache}) ...", flush=True)
      runs.append(_run(worker, env, f"{name} cold"))
      print(f"{name}: warm run ...", flush=True)
      runs.append(_run(worker, env, f"{name} warm"))
  print("MuJoCo + Gymnasium ...", flush=True)
  runs.append(_run(["--worker", "mujoco"], dict(os.environ), "mujoco"))
  report(runs, args.top)
  if args.json:
    with open(args.json, "w", encoding="utf-8") as f:
      json.dump(runs, f)


if __name__ == "__main__":
  main()
