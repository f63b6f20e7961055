"""Vector env throughput: mjgym's batched worlds vs Gymnasium's Sync/AsyncVectorEnv (and EnvPool if installed).

Prints env-steps/s at several world counts and thread counts (fixed, and "auto": the default num_threads=None,
one thread or all per step, whichever ran faster lately) for each mjgym v5 task (MjHopper-v0, ...) next to its
Gymnasium v5 env on MuJoCo (Hopper-v5, ...) and EnvPool's, all on the same physical model, in one run; then the
same with one core kept busy by another process; then end-to-end SB3 PPO steps/s (learner and env in one process)
through mjgym's VecEnv vs SubprocVecEnv. The measuring code is mjgym.bench's (``mjgym bench`` runs it too).

  python benchmarks/bench_vector.py                 # everything (several minutes)
  python benchmarks/bench_vector.py --quick         # fewer world counts, shorter runs
  python benchmarks/bench_vector.py --skip-busy --skip-ppo
  python benchmarks/bench_vector.py --envs humanoid --worlds 64 --threads 1 2 --skip-busy --skip-ppo

Every runner steps the same kind of actions: uniform over the env's action space (Hopper [-1, 1], Humanoid
[-0.4, 0.4], ...), so episodes end (and worlds reset) about as often everywhere. EnvPool: pip install -e ".[bench]".

No asserts on time: the machine is shared and the numbers are noisy; read them side by side. The measuring code
is mjgym.bench's, which `mjgym bench` runs for one world count beside mjgym's single env.
"""

import argparse
import multiprocessing
import os
import time

import numba

from mjgym.bench import PAIRS, print_row, print_table, throughput_table  # the measuring code (`mjgym bench`)


def _spin(stop):
  """Keeps one core busy until ``stop`` is set (the "busy machine" case)."""
  x = 0
  while not stop.is_set():
    for _ in range(100_000):
      x += 1


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
  print_row(rows[-1])
  rows.append(("Hopper-v5", subproc_envs, "SB3 SubprocVecEnv",
               ppo_rate(lambda: make_vec_env("Hopper-v5", n_envs=subproc_envs, seed=0, vec_env_cls=SubprocVecEnv),
                        steps, subproc_envs), None))
  print_row(rows[-1])
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
