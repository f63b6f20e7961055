"""``mjgym bench``: env-steps/s of mjgym's envs beside their Gymnasium v5 counterparts (and EnvPool's).

For each env it measures mjgym's single env (``gym.make``, a step loop), mjgym's vector env
(``gym.make_vec(id, num_envs, num_threads)``) at each thread count, the Gymnasium v5 counterpart's Sync and
Async vector envs (Async only up to 64 worlds: a process per env) and EnvPool's (when installed), all under
uniform random actions, and prints a markdown table with each rate's ratio to Gymnasium's SyncVectorEnv.
Progress goes to stderr, the table to stdout. No number is asserted: on a shared machine they are noisy.

The measuring code here is shared with ``benchmarks/bench_vector.py`` (world and thread sweeps, a busy core,
SB3 PPO end to end).
"""

import argparse
import os
import sys
import time

import gymnasium as gym
import numpy as np

from mjgym import usage
from mjgym.envs import ENVS, GYMNASIUM_V5  # no numba, no engine: those load at the first gym.make

DEFAULT_ENVS = ("MjHopper-v0", "MjHumanoid-v0")
MAX_ASYNC_WORLDS = 64  # AsyncVectorEnv runs a process per env: beyond this a small machine only thrashes


# every Gymnasium v5 task: short name ("hopper") -> (mjgym id, Gymnasium id, which is also EnvPool's)
PAIRS = {v5[:-3].lower(): (ours, v5) for ours, v5 in GYMNASIUM_V5.items()}


# ---------------------------------------------------------------------------------------------------------------
# measuring


def _rate(step, nworld, seconds, actions):
  """(env-steps/s, CPU µs of this process per env-step) of ``step(actions[k])`` over about ``seconds`` (after a
  warm-up step). The CPU time counts every thread of the process (EnvPool's workers too, not the processes of
  an AsyncVectorEnv): on a shared machine it moves far less with the load than the rate does."""
  step(actions[0])
  n, t0, cpu0 = 0, time.perf_counter(), time.process_time()
  while True:
    step(actions[n % len(actions)])
    n += 1
    dt = time.perf_counter() - t0
    if dt >= seconds:
      return nworld * n / dt, (time.process_time() - cpu0) / (nworld * n) * 1e6


def _actions(space, nworld):
  """8 batches of actions (nworld, *shape) float32, uniform over the (bounded) single-env action ``space``."""
  rng = np.random.default_rng(0)
  return [rng.uniform(space.low, space.high, (nworld,) + space.shape).astype(np.float32) for _ in range(8)]


def bench_single(env_id, seconds):
  """(env-steps/s, CPU µs per env-step) of one env from ``gym.make``: step, and reset when an episode ends."""
  env = gym.make(env_id)
  env.reset(seed=0)
  actions = [a[0] for a in _actions(env.action_space, 1)]

  def step(action):
    _, _, terminated, truncated, _ = env.step(action)
    if terminated or truncated:
      env.reset()

  rate = _rate(step, 1, seconds, actions)
  env.close()
  return rate


def bench_mjgym(env_id, nworld, threads, seconds):
  """mjgym's vector env of ``nworld`` worlds on ``threads`` threads (None: its own choice)."""
  envs = gym.make_vec(env_id, num_envs=nworld, num_threads=threads)
  envs.reset(seed=0)
  rate = _rate(envs.step, nworld, seconds, _actions(envs.single_action_space, nworld))
  envs.close()
  return rate


def bench_gymnasium(env_id, nworld, mode, seconds):
  """Gymnasium's ``mode`` ("sync" or "async") vector env; the CPU time only for sync (async's is elsewhere)."""
  envs = gym.make_vec(env_id, num_envs=nworld, vectorization_mode=mode)
  envs.reset(seed=0)
  rate, cpu = _rate(envs.step, nworld, seconds, _actions(envs.single_action_space, nworld))
  envs.close()
  return rate, (cpu if mode == "sync" else None)


def bench_envpool(env_id, nworld, threads, seconds):
  import envpool  # pylint: disable=import-outside-toplevel
  envs = envpool.make_gymnasium(env_id, num_envs=nworld, num_threads=threads)
  envs.reset()
  rate = _rate(envs.step, nworld, seconds, _actions(envs.action_space, nworld))
  envs.close()
  return rate


def envpool_available():
  try:
    import envpool  # noqa: F401  pylint: disable=import-outside-toplevel,unused-import
    return True
  except Exception:  # pylint: disable=broad-except
    return False


def loads(env_id, file=None):
  """Whether mjgym's ``env_id`` builds (a model the engine cannot load yet is reported and skipped)."""
  from mjgym import physics  # pylint: disable=import-outside-toplevel
  try:
    gym.make(env_id).close()
    return True
  except physics.MJCFError as e:  # pylint: disable=no-member
    print(f"  ({env_id} skipped: {e})", file=file or sys.stdout, flush=True)
    return False


def clamp_threads(t):
  import numba  # pylint: disable=import-outside-toplevel
  return None if t is None else min(t, numba.config.NUMBA_NUM_THREADS)


# ---------------------------------------------------------------------------------------------------------------
# the world/thread sweep of benchmarks/bench_vector.py


def throughput_table(pairs, worlds, threads, seconds, gym_worlds, async_worlds, file=None):
  """Rows (env id, worlds, runner, env-steps/s, CPU µs / env-step) for each (mjgym id, Gymnasium id) pair, at
  each world count: mjgym at each thread count and "auto", Gymnasium Sync/Async at ``gym_worlds``/``async_worlds``,
  EnvPool at each thread count. Prints each row as it comes to ``file`` (stdout)."""
  from mjgym.envs.vector import default_num_threads  # pylint: disable=import-outside-toplevel
  rows = []
  envpool_ok = envpool_available()
  for ours, theirs in pairs:
    if loads(ours, file):
      for n in worlds:
        for t in list(threads) + [None]:
          t = clamp_threads(t)
          name = f"mjgym {t} thr" if t is not None else f"mjgym auto (<= {default_num_threads(n)} thr)"
          rows.append((ours, n, name, *bench_mjgym(ours, n, t, seconds)))
          print_row(rows[-1], file)
    for n in worlds:
      runs = []
      if n in gym_worlds:
        runs.append(("gym Sync", lambda n=n: bench_gymnasium(theirs, n, "sync", seconds)))
      if n in async_worlds:
        runs.append(("gym Async", lambda n=n: bench_gymnasium(theirs, n, "async", seconds)))
      if envpool_ok:
        for t in threads:
          runs.append((f"EnvPool {t} thr", lambda n=n, t=t: bench_envpool(theirs, n, t, seconds)))
      for name, run_ in runs:
        try:
          rows.append((theirs, n, name, *run_()))
        except Exception as e:  # pylint: disable=broad-except
          print(f"  {theirs} {n} {name} failed: {e!r}", file=file or sys.stdout, flush=True)
          continue
        print_row(rows[-1], file)
  return rows


def _cpu(cpu):
  return "–" if cpu is None else f"{cpu:,.1f}"


def print_row(row, file=None):
  env_id, n, runner, rate, cpu = row
  print(f"  {env_id:28s} {n:5d} {runner:24s} {rate:12,.0f} {_cpu(cpu):>10s}", file=file or sys.stdout, flush=True)


def print_table(title, rows, file=None):
  file = file or sys.stdout
  print(f"\n{title} (load average now: {', '.join(f'{x:.2f}' for x in os.getloadavg())})\n", file=file)
  print("| env | worlds | runner | env-steps/s | CPU µs / env-step |\n|---|---:|---|---:|---:|", file=file)
  for env_id, n, runner, rate, cpu in rows:
    print(f"| {env_id} | {n} | {runner} | {rate:,.0f} | {_cpu(cpu)} |", file=file)


# ---------------------------------------------------------------------------------------------------------------
# the command


def _fail(message):
  usage.fail("mjgym bench", message)


def resolve_env(name):
  """mjgym's env id for an id of ours, a Gymnasium v5 id or a short name (``hopper``); UsageError if unknown."""
  return usage.resolve_env(name, "mjgym bench")


def _check_png(path):
  """Fails early (before minutes of measuring) if ``path`` cannot be written or matplotlib is missing."""
  if os.path.isdir(path):
    _fail(f"cannot write --png {path!r}: it is a directory")
  folder = os.path.dirname(os.path.abspath(path))
  if not os.path.isdir(folder):
    _fail(f"cannot write --png {path!r}: no folder {folder!r}")
  existed = os.path.exists(path)
  try:
    with open(path, "ab"):
      pass
  except OSError as e:
    _fail(f"cannot write --png {path!r}: {e.strerror or e}")
  if not existed:
    os.remove(path)
  try:
    import matplotlib  # noqa: F401  pylint: disable=import-outside-toplevel,unused-import
  except ImportError:
    _fail("--png needs matplotlib: pip install 'mjgym[train]' (or pip install matplotlib)")


def add_arguments(parser):
  """Adds ``mjgym bench``'s arguments to an argparse ``parser``."""
  parser.add_argument("envs", metavar="ENV_ID", nargs="*", default=list(DEFAULT_ENVS),
                      help="mjgym env ids or short names such as hopper (default: %(default)s)")
  parser.add_argument("--worlds", type=int, default=64, help="worlds (envs) per vector env (default 64)")
  parser.add_argument("--seconds", type=float, default=None,
                      help="seconds per measurement (default 1.5; 0.5 with --quick)")
  parser.add_argument("--quick", action="store_true", help="shorter measurements (0.5 s each)")
  parser.add_argument("--threads", type=int, nargs="+", default=None,
                      help="thread counts of mjgym's vector env and EnvPool (default: 1 and all usable CPUs)")
  parser.add_argument("--png", metavar="FILE", default=None,
                      help="also write a bar chart of env-steps/s to FILE (needs matplotlib)")
  return parser


def _measure(label, fn, file):
  print(f"  {label} ...", end="", file=file, flush=True)
  t0 = time.perf_counter()
  try:
    rate = fn()[0]
  except Exception as e:  # pylint: disable=broad-except
    print(f" failed: {e!r}", file=file, flush=True)
    return None
  print(f" {rate:,.0f} env-steps/s ({time.perf_counter() - t0:.1f} s)", file=file, flush=True)
  return rate


def measure(env_ids, worlds, threads, seconds, file=None):
  """Rows (env id, runner, worlds, env-steps/s, ratio to Gymnasium Sync or None) of the command."""
  file = file or sys.stderr
  envpool_ok = envpool_available()
  rows = []
  for ours in env_ids:
    theirs = GYMNASIUM_V5.get(ours)
    runs = []
    if loads(ours, file):
      runs.append((ours, "mjgym single env", 1, lambda ours=ours: bench_single(ours, seconds)))
      for t in threads:
        runs.append((ours, f"mjgym vector {t} thr", worlds,
                     lambda ours=ours, t=t: bench_mjgym(ours, worlds, t, seconds)))
    if theirs is not None:
      runs.append((theirs, "Gymnasium Sync", worlds, lambda: bench_gymnasium(theirs, worlds, "sync", seconds)))
      if worlds <= MAX_ASYNC_WORLDS:
        runs.append((theirs, "Gymnasium Async", worlds, lambda: bench_gymnasium(theirs, worlds, "async", seconds)))
      if envpool_ok:
        for t in dict.fromkeys(min(t, worlds) for t in threads):  # EnvPool wants no more threads than envs
          runs.append((theirs, f"EnvPool {t} thr", worlds, lambda t=t: bench_envpool(theirs, worlds, t, seconds)))
    else:
      print(f"  ({ours}: no Gymnasium counterpart, mjgym only)", file=file, flush=True)
    env_rows = []
    for env_id, runner, n, fn in runs:
      rate = _measure(f"{env_id}, {runner}, {n} world{'s' if n > 1 else ''}", fn, file)
      if rate is not None:
        env_rows.append([env_id, runner, n, rate, None])
    sync = next((r[3] for r in env_rows if r[1] == "Gymnasium Sync"), None)
    for r in env_rows:
      r[4] = None if sync is None else r[3] / sync
    rows += [tuple(r) for r in env_rows]
  return rows


def format_table(rows):
  lines = ["| env | runner | worlds | env-steps/s | vs Gymnasium Sync |", "|---|---|---:|---:|---:|"]
  for env_id, runner, n, rate, ratio in rows:
    lines.append(f"| {env_id} | {runner} | {n} | {rate:,.0f} | {'–' if ratio is None else f'{ratio:.2f}x'} |")
  return "\n".join(lines)


def _group(env_id):
  """The mjgym id a row belongs to (Gymnasium's rows go with their mjgym counterpart)."""
  return {v5: ours for ours, v5 in GYMNASIUM_V5.items()}.get(env_id, env_id)


def write_png(path, rows, worlds, cpus):
  """A bar chart of env-steps/s per runner, grouped per env (log scale when the rates span over 20x)."""
  from matplotlib.backends.backend_agg import FigureCanvasAgg  # pylint: disable=import-outside-toplevel
  from matplotlib.figure import Figure  # pylint: disable=import-outside-toplevel
  groups = list(dict.fromkeys(_group(r[0]) for r in rows))
  runners = list(dict.fromkeys(r[1] for r in rows))
  rate = {(_group(r[0]), r[1]): r[3] for r in rows}
  fig = Figure(figsize=(max(6.0, 1.2 + 0.35 * len(groups) * (len(runners) + 1)), 5.0), dpi=100,
               layout="constrained")
  FigureCanvasAgg(fig)
  ax = fig.add_subplot()
  width = 0.8 / max(1, len(runners))
  for i, runner in enumerate(runners):
    xs = [g + (i - (len(runners) - 1) / 2) * width for g in range(len(groups))]
    ys = [rate.get((group, runner), 0.0) for group in groups]
    ax.bar(xs, ys, width, label=runner)
  ax.set_xticks(range(len(groups)), [g.removesuffix("-v0") for g in groups])
  ax.set_ylabel("env-steps/s")
  rates = [r[3] for r in rows if r[3] > 0]
  if rates and max(rates) / min(rates) > 20:
    ax.set_yscale("log")
  ax.set_title(f"mjgym bench: env-steps/s, {worlds} worlds per vector env ({cpus} CPUs)")
  ax.grid(axis="y", alpha=0.3)
  fig.legend(loc="outside lower center", fontsize="small", ncols=min(4, len(runners)))
  fig.savefig(path, format="png")


def run(args):
  """Runs ``mjgym bench`` with parsed ``args`` (see ``add_arguments``); returns the exit code."""
  env_ids = list(dict.fromkeys(resolve_env(name) for name in (args.envs or DEFAULT_ENVS)))
  if args.worlds < 1:
    _fail(f"--worlds must be at least 1 (got {args.worlds})")
  if args.seconds is not None and not args.seconds > 0:
    _fail(f"--seconds must be positive (got {args.seconds})")
  if args.threads is not None and min(args.threads) < 1:
    _fail(f"--threads must be at least 1 (got {min(args.threads)})")
  if args.png:
    _check_png(args.png)
  seconds = args.seconds if args.seconds is not None else (0.5 if args.quick else 1.5)

  import numba  # pylint: disable=import-outside-toplevel
  from mjgym.envs.vector import available_cpus  # pylint: disable=import-outside-toplevel
  cpus = available_cpus()
  threads = list(dict.fromkeys(clamp_threads(t) for t in (args.threads or (1, cpus))))
  print(f"mjgym bench: {', '.join(env_ids)}; {args.worlds} worlds, threads {threads}, {seconds:g} s each; "
        f"{cpus} CPUs usable, NUMBA_NUM_THREADS={numba.config.NUMBA_NUM_THREADS}, "
        f"load average {', '.join(f'{x:.2f}' for x in os.getloadavg())}"
        f"{'' if envpool_available() else '; EnvPool not installed'}", file=sys.stderr, flush=True)
  rows = measure(env_ids, args.worlds, threads, seconds)
  if not rows:
    _fail("nothing could be measured")
  print(format_table(rows), flush=True)
  if args.png:
    try:
      write_png(args.png, rows, args.worlds, cpus)
    except OSError as e:
      _fail(f"cannot write --png {args.png!r}: {e.strerror or e}")
    print(f"wrote {args.png}", file=sys.stderr, flush=True)
  return 0


def main(argv=None):
  parser = argparse.ArgumentParser(prog="mjgym bench", description=__doc__.strip().splitlines()[0])
  add_arguments(parser)
  return run(parser.parse_args(argv))


if __name__ == "__main__":
  sys.exit(main())
