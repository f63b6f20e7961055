"""Vector env throughput: mjgym's batched worlds vs Gymnasium's Sync/AsyncVectorEnv (and EnvPool if installed).

Prints env-steps/s at several world counts and thread counts (fixed, and "auto": the default num_threads=None,
one thread or all per step, whichever ran faster lately) for each mjgym v5 task (MjHopper-v0, ...) next to its
Gymnasium v5 env on MuJoCo (Hopper-v5, ...) and EnvPool's, all on the same physical model, in one run; then the same with one core kept busy by another process;
then end-to-end SB3 PPO steps/s (learner and env in one process) through mjgym's VecEnv vs SubprocVecEnv.

  python benchmarks/bench_vector.py                 # everything (several minutes)
  python benchmarks/bench_vector.py --quick         # fewer world counts, shorter runs
  python benchmarks/bench_vector.py --skip-busy --skip-ppo
  python benchmarks/bench_vector.py --envs humanoid --worlds 64 --threads 1 2 --skip-busy --skip-ppo

Every runner steps the same kind of actions: uniform over the env's action space (Hopper [-1, 1], Humanoid
[-0.4, 0.4], ...), so episodes end (and worlds reset) about as often everywhere. EnvPool: pip install -e ".[bench]".

No asserts on time: the machine is shared and the numbers are noisy; read them side by side.
"""

import argparse
import multiprocessing
import os
import time

import gymnasium as gym
import numba
import numpy as np

import mjgym  # noqa: F401  (registers the environments)
from mjgym import physics
from mjgym.envs import GYMNASIUM_V5
from mjgym.envs.vector import default_num_threads

# every Gymnasium v5 task: short name -> (mjgym id, Gymnasium id, also EnvPool's)
PAIRS = {v5[:-3].lower(): (ours, v5) for ours, v5 in GYMNASIUM_V5.items()}


def _spin(stop):
  """Keeps one core busy until ``stop`` is set (the "busy machine" case)."""
  x = 0
  while not stop.is_set():
    for _ in range(100_000):
      x += 1


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


def bench_mjgym(env_id, nworld, threads, seconds):
  envs = gym.make_vec(env_id, num_envs=nworld, num_threads=threads)
  envs.reset(seed=0)
  rate = _rate(envs.step, nworld, seconds, _actions(envs.single_action_space, nworld))
  envs.close()
  return rate


def bench_gymnasium(env_id, nworld, mode, seconds):
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


def _envpool_available():
  try:
    import envpool  # noqa: F401  pylint: disable=import-outside-toplevel,unused-import
    return True
  except Exception:  # pylint: disable=broad-except
    return False


def _loads(env_id):
  try:
    gym.make(env_id).close()
    return True
  except physics.MJCFError as e:  # pylint: disable=no-member
    print(f"  ({env_id} skipped: {e})")
    return False


def throughput_table(pairs, worlds, threads, seconds, gym_worlds, async_worlds):
  rows = []
  envpool_ok = _envpool_available()
  for ours, theirs in pairs:
    if _loads(ours):
      for n in worlds:
        for t in list(threads) + [None]:
          t = None if t is None else min(t, numba.config.NUMBA_NUM_THREADS)
          name = f"mjgym {t} thr" if t is not None else f"mjgym auto (<= {default_num_threads(n)} thr)"
          rows.append((ours, n, name, *bench_mjgym(ours, n, t, seconds)))
          _print_row(rows[-1])
    for n in worlds:
      runs = []
      if n in gym_worlds:
        runs.append(("gym Sync", lambda n=n: bench_gymnasium(theirs, n, "sync", seconds)))
      if n in async_worlds:
        runs.append(("gym Async", lambda n=n: bench_gymnasium(theirs, n, "async", seconds)))
      if envpool_ok:
        for t in threads:
          runs.append((f"EnvPool {t} thr", lambda n=n, t=t: bench_envpool(theirs, n, t, seconds)))
      for name, run in runs:
        try:
          rows.append((theirs, n, name, *run()))
        except Exception as e:  # pylint: disable=broad-except
          print(f"  {theirs} {n} {name} failed: {e!r}")
          continue
        _print_row(rows[-1])
  return rows


def _cpu(cpu):
  return "–" if cpu is None else f"{cpu:,.1f}"


def _print_row(row):
  env_id, n, runner, rate, cpu = row
  print(f"  {env_id:28s} {n:5d} {runner:24s} {rate:12,.0f} {_cpu(cpu):>10s}", flush=True)


def print_table(title, rows):
  print(f"\n{title} (load average now: {', '.join(f'{x:.2f}' for x in os.getloadavg())})\n")
  print("| env | worlds | runner | env-steps/s | CPU µs / env-step |\n|---|---:|---|---:|---:|")
  for env_id, n, runner, rate, cpu in rows:
    print(f"| {env_id} | {n} | {runner} | {rate:,.0f} | {_cpu(cpu)} |")


def ppo_rate(make_env, steps, n_envs):
  """SB3 PPO env-steps/s over ``steps`` steps (rollouts and updates), learner and env in one process."""
  import torch  # pylint: disable=import-outside-toplevel
  from stable_baselines3 import PPO  # pylint: disable=import-outside-toplevel
  torch.set_num_threads(1)
  env = make_env()
  model = PPO("MlpPolicy", env, n_steps=max(8, 2048 // n_envs), batch_size=256, n_epochs=4, device="cpu", seed=0,
              verbose=0)
  model.learn(total_timesteps=n_envs * model.n_steps)  # warm-up
  t0 = time.perf_counter()
  model.learn(total_timesteps=steps, reset_num_timesteps=False)
  rate = steps / (time.perf_counter() - t0)
  env.close()
  return rate


def ppo_table(steps, n_envs, subproc_envs):
  from stable_baselines3.common.env_util import make_vec_env  # pylint: disable=import-outside-toplevel
  from stable_baselines3.common.vec_env import SubprocVecEnv  # pylint: disable=import-outside-toplevel
  from mjgym import sb3  # pylint: disable=import-outside-toplevel
  # CPU time left out: SubprocVecEnv's envs run in other processes
  rows = [("MjHopper-v0", n_envs, "mjgym.sb3 VecEnv",
           ppo_rate(lambda: sb3.make_vec_env("MjHopper-v0", n_envs=n_envs, seed=0), steps, n_envs), None)]
  _print_row(rows[-1])
  rows.append(("Hopper-v5", subproc_envs, "SB3 SubprocVecEnv",
               ppo_rate(lambda: make_vec_env("Hopper-v5", n_envs=subproc_envs, seed=0, vec_env_cls=SubprocVecEnv),
                        steps, subproc_envs), None))
  _print_row(rows[-1])
  return rows


def main():
  parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
  parser.add_argument("--quick", action="store_true", help="16 and 64 worlds, 0.5 s per point")
  parser.add_argument("--seconds", type=float, default=1.5, help="seconds per measurement")
  parser.add_argument("--skip-busy", action="store_true", help="skip the busy-core table")
  parser.add_argument("--skip-ppo", action="store_true", help="skip the SB3 PPO comparison")
  parser.add_argument("--envs", nargs="+", choices=sorted(PAIRS), default=sorted(PAIRS), help="env pairs to run")
  parser.add_argument("--worlds", nargs="+", type=int, help="world counts (default 1 16 64 256 1024; quick: 16 64)")
  parser.add_argument("--threads", nargs="+", type=int, default=(1, 2), help="thread counts of mjgym and EnvPool")
  args = parser.parse_args()
  worlds = args.worlds or ((16, 64) if args.quick else (1, 16, 64, 256, 1024))
  seconds = 0.5 if args.quick else args.seconds
  threads = args.threads
  pairs = [PAIRS[name] for name in args.envs]
  gym_worlds = {1, 16, 64, 256}  # SyncVectorEnv at 1024 worlds only repeats the 256 figure, slowly
  async_worlds = {1, 16, 64}  # a process per env: beyond 64 processes on a small machine only thrashes
  print(f"CPUs usable: {len(os.sched_getaffinity(0))}, NUMBA_NUM_THREADS={numba.config.NUMBA_NUM_THREADS}, "
        f"threading layer: {numba.config.THREADING_LAYER}, load average: {os.getloadavg()}")

  rows = throughput_table(pairs, worlds, threads, seconds, gym_worlds, async_worlds)
  print_table("Env-steps/s (random actions, autoreset NEXT_STEP)", rows)

  if not args.skip_busy:
    stop = multiprocessing.Event()
    spinner = multiprocessing.Process(target=_spin, args=(stop,), daemon=True)
    spinner.start()
    try:
      busy = throughput_table(pairs, worlds if not args.quick else (64,), threads, seconds, {64}, {16})
    finally:
      stop.set()
      spinner.join()
    print_table("Same with one core kept busy by another process", busy)

  if not args.skip_ppo:
    ppo = ppo_table(steps=8192 if args.quick else 32768, n_envs=64, subproc_envs=8)
    print_table("SB3 PPO end to end (MlpPolicy, torch 1 thread)", ppo)


if __name__ == "__main__":
  main()
