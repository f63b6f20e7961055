"""DeepMind Control Suite throughput: mjgym's single and vector envs vs dm_control's env (and EnvPool's, if installed).

For each task, every runner is measured once per round and the rounds alternate the runners, so that a change of
load on the shared machine falls on all of them alike; the table gives each runner's median over the rounds and
its ratio to dm_control's env. Runners, all under uniform random actions over the task's action space:

- dm_control: ``suite.load(domain, task)``, one env stepped in a Python loop (what the suite gives);
- mjgym single env: ``gym.make("MjDMC/<domain>-<task>-v0")``;
- mjgym vector: ``gym.make_vec`` of ``--worlds`` worlds on each ``--threads`` count (one batched Data);
- EnvPool: ``envpool.make_gymnasium("<Domain><Task>-v1")`` on each thread count, when envpool imports.

  python benchmarks/bench_dmc.py                                 # 4 tasks, 3 rounds of 1 s (a few minutes)
  python benchmarks/bench_dmc.py --tasks cheetah-run --rounds 2 --seconds 0.5 --worlds 16 --threads 1

No asserts on time: the machine is shared and the numbers are noisy; read them side by side.
"""

import argparse
import os
import statistics
import sys
import time

import gymnasium as gym
import numpy as np

import mjgym  # noqa: F401  (registers the environments)
from mjgym.bench import bench_envpool, bench_mjgym, bench_single, clamp_threads, envpool_available

DEFAULT_TASKS = ("cartpole-swingup", "cheetah-run", "walker-walk", "humanoid-walk")


def _dm_control_suite():
  """dm_control's ``suite``, loadable on MuJoCo 4: dm_control 1.0.x names struct fields in its index tables that
  MuJoCo 4 removed (``flex_vertedge``, ...), and ``suite.load`` fails on them; the names the installed MuJoCo
  lacks are dropped first (as tests/dmc_oracle.py does for the exactness tests)."""
  import mujoco  # pylint: disable=import-outside-toplevel
  from dm_control import suite  # pylint: disable=import-outside-toplevel
  from dm_control.mujoco.wrapper.mjbindings import sizes  # pylint: disable=import-outside-toplevel
  probe = mujoco.MjModel.from_xml_string("<mujoco/>")
  for struct, instance in (("mjmodel", probe), ("mjdata", mujoco.MjData(probe))):
    fields = sizes.array_sizes.get(struct, {})
    for name in [n for n in fields if not hasattr(instance, n)]:
      del fields[name]
  return suite


def dm_control_rate(domain, task, seconds):
  """(env-steps/s, None) of dm_control's env: step, and reset when the episode ends (after a warm-up step)."""
  env = _dm_control_suite().load(domain, task, task_kwargs={"random": 0})
  spec = env.action_spec()
  rng = np.random.default_rng(0)
  actions = rng.uniform(spec.minimum, spec.maximum, (8,) + spec.shape)
  env.reset()
  env.step(actions[0])
  n, t0 = 0, time.perf_counter()
  while True:
    if env.step(actions[n % len(actions)]).last():
      env.reset()
    n += 1
    dt = time.perf_counter() - t0
    if dt >= seconds:
      return n / dt, None


def envpool_id(domain, task):
  """EnvPool's name of a suite task: "ball_in_cup", "catch" -> "BallInCupCatch-v1"."""
  return "".join(part.capitalize() for part in f"{domain}_{task}".split("_")) + "-v1"


def runners(domain, task, worlds, threads, seconds, with_envpool):
  """[(runner, worlds, fn)] for one task; fn() -> (env-steps/s, CPU µs or None)."""
  env_id = f"MjDMC/{domain}-{task}-v0"
  out = [("dm_control", 1, lambda: dm_control_rate(domain, task, seconds)),
         ("mjgym single env", 1, lambda: bench_single(env_id, seconds))]
  out += [(f"mjgym vector {t} thr", worlds, lambda t=t: bench_mjgym(env_id, worlds, t, seconds)) for t in threads]
  if with_envpool:
    out += [(f"EnvPool {t} thr", worlds, lambda t=t: bench_envpool(envpool_id(domain, task), worlds, t, seconds))
            for t in dict.fromkeys(min(t, worlds) for t in threads)]  # EnvPool wants no more threads than envs
  return out


def measure(tasks, worlds, threads, seconds, rounds, with_envpool, file=sys.stderr):
  """Rows (task, runner, worlds, median env-steps/s, ratio to dm_control or None), the runners alternating."""
  rows = []
  for name in tasks:
    domain, task = name.split("-")
    todo = runners(domain, task, worlds, threads, seconds, with_envpool)
    rates = {runner: [] for runner, _, _ in todo}
    for r in range(rounds):
      for runner, n, fn in todo:
        if r and not rates[runner]:
          continue  # failed in the first round: not again
        try:
          rates[runner].append(fn()[0])
        except Exception as e:  # pylint: disable=broad-except
          print(f"  {name} {runner} failed: {e!r}", file=file, flush=True)
          continue
        print(f"  round {r + 1}: {name}, {runner}, {n} world{'s' if n > 1 else ''}: {rates[runner][-1]:,.0f} "
              "env-steps/s", file=file, flush=True)
    base = statistics.median(rates["dm_control"]) if rates["dm_control"] else None
    for runner, n, _ in todo:
      if rates[runner]:
        rate = statistics.median(rates[runner])
        rows.append((name, runner, n, rate, None if base is None else rate / base))
  return rows


def format_table(rows, rounds):
  lines = [f"| task | runner | worlds | env-steps/s (median of {rounds}) | vs dm_control |",
           "|---|---|---:|---:|---:|"]
  for name, runner, n, rate, ratio in rows:
    lines.append(f"| {name} | {runner} | {n} | {rate:,.0f} | {'–' if ratio is None else f'{ratio:.1f}x'} |")
  return "\n".join(lines)


def main(argv=None):
  parser = argparse.ArgumentParser(description=__doc__.strip().splitlines()[0])
  parser.add_argument("--tasks", nargs="+", default=list(DEFAULT_TASKS),
                      help="suite tasks as <domain>-<task> (default: %(default)s)")
  parser.add_argument("--worlds", type=int, default=64, help="worlds of the vector envs (default 64)")
  parser.add_argument("--threads", type=int, nargs="+", default=None,
                      help="thread counts of mjgym's vector env and EnvPool (default: 1 and all usable CPUs)")
  parser.add_argument("--seconds", type=float, default=1.0, help="seconds per measurement (default 1)")
  parser.add_argument("--rounds", type=int, default=3, help="rounds over the runners (default 3)")
  args = parser.parse_args(argv)
  unknown = [t for t in args.tasks if f"MjDMC/{t}-v0" not in gym.registry]
  if unknown:
    parser.error(f"unknown suite tasks {unknown} (registered: "
                 f"{', '.join(e[len('MjDMC/'):-len('-v0')] for e in gym.registry if e.startswith('MjDMC/'))})")
  from mjgym.envs.vector import available_cpus  # pylint: disable=import-outside-toplevel
  threads = list(dict.fromkeys(clamp_threads(t) for t in (args.threads or (1, available_cpus()))))
  with_envpool = envpool_available()
  print(f"bench_dmc: {', '.join(args.tasks)}; {args.worlds} worlds, threads {threads}, {args.rounds} rounds of "
        f"{args.seconds:g} s; load average {', '.join(f'{x:.2f}' for x in os.getloadavg())}"
        f"{'' if with_envpool else '; EnvPool not installed'}", file=sys.stderr, flush=True)
  rows = measure(args.tasks, args.worlds, threads, args.seconds, args.rounds, with_envpool)
  print(format_table(rows, args.rounds), flush=True)
  return 0


if __name__ == "__main__":
  sys.exit(main())
