"""Ray RLlib sampling throughput: mjgym's batched vector env per env runner vs RLlib on Gymnasium's Hopper-v5.

For each count of env runners (Ray actors, one CPU each) and worlds per runner, builds RLlib's PPO (new API stack)
twice on the same model, Hopper:

  mjgym   "mjgym:MjHopper-v0", gym_env_vectorize_mode=VECTOR_ENTRY_POINT: a runner's worlds are one MjDataBatch
  gym     "Hopper-v5" on MuJoCo, RLlib's default vectorization (a SyncVectorEnv of N envs in the runner)

then times every runner sampling ``--steps`` env steps at once (RLlib's own ``EnvRunner.sample``: the policy's
forward pass, the env step and the episode bookkeeping, all in the runners) and prints env-steps/s sampled, summed
over runners, with the mjgym/gym ratio, and beside them the rate of each runner's vector env stepped directly in
this process (mjgym's on one thread; Gymnasium's SyncVectorEnv): what a runner's env costs without RLlib around
it. Runner 0 of each configuration is warmed up first (numba loads from the cache, torch initializes), so the
figures are steady-state sampling. Needs ``pip install -e ".[ray,test]"`` (mujoco for Hopper-v5). No asserts on
time: the machine is shared; read the numbers side by side.

  python benchmarks/bench_rllib.py                          # 1 and 2 runners x 16 and 64 worlds
  python benchmarks/bench_rllib.py --runners 2 --worlds 64 --steps 20000
"""

import argparse
import time

import gymnasium as gym


def _config(env, runners, worlds):
  from ray.rllib.algorithms.ppo import PPOConfig  # pylint: disable=import-outside-toplevel
  mode = gym.VectorizeMode.VECTOR_ENTRY_POINT if env.startswith("mjgym:") else gym.VectorizeMode.SYNC
  return (PPOConfig().environment(env)
          .env_runners(num_env_runners=runners, num_envs_per_env_runner=worlds, gym_env_vectorize_mode=mode)
          .training(train_batch_size_per_learner=runners * worlds * 8, minibatch_size=64, num_epochs=1))


def sample_rate(env, runners, worlds, steps):
  """Env-steps/s that ``runners`` env runners of ``worlds`` worlds each sample together (RLlib's sample())."""
  algo = _config(env, runners, worlds).build_algo()
  group = algo.env_runner_group
  try:
    group.foreach_env_runner(lambda r: r.sample(num_timesteps=worlds * 64), local_env_runner=False)  # warm up
    start = time.perf_counter()
    counts = group.foreach_env_runner(lambda r: sum(len(e) for e in r.sample(num_timesteps=steps)),
                                      local_env_runner=False)
    seconds = time.perf_counter() - start
  finally:
    algo.stop()
  if len(counts) != runners:
    raise RuntimeError(f"{env}: {runners - len(counts)} of {runners} env runners failed")
  return sum(counts) / seconds


def env_rate(env, worlds, steps):
  """Env-steps/s of the vector env a runner holds, stepped directly in this process with random actions: mjgym's
  batched env on one thread, or Gymnasium's SyncVectorEnv of Hopper-v5. The env's share of a runner's time,
  without RLlib around it."""
  import numpy as np  # pylint: disable=import-outside-toplevel
  if env.startswith("mjgym:"):
    vec = gym.make_vec(env, num_envs=worlds, vectorization_mode="vector_entry_point", num_threads=1)
  else:
    vec = gym.make_vec(env, num_envs=worlds, vectorization_mode="sync")
  vec.reset(seed=0)
  actions = np.random.default_rng(0).uniform(-1, 1, (64, worlds, 3))
  for a in actions[:8]:
    vec.step(a)
  n = max(1, steps // worlds)
  start = time.perf_counter()
  for k in range(n):
    vec.step(actions[k % 64])
  seconds = time.perf_counter() - start
  vec.close()
  return n * worlds / seconds


def main(argv=None):
  parser = argparse.ArgumentParser(description=__doc__.strip().splitlines()[0])
  parser.add_argument("--runners", type=int, nargs="+", default=[1, 2])
  parser.add_argument("--worlds", type=int, nargs="+", default=[16, 64], help="worlds (envs) per env runner")
  parser.add_argument("--steps", type=int, default=8192, help="env steps each runner samples in the timed call")
  args = parser.parse_args(argv)

  import ray  # pylint: disable=import-outside-toplevel
  ray.init(include_dashboard=False, log_to_driver=False, ignore_reinit_error=True)
  cpus = ray.cluster_resources().get("CPU", 0)
  print(f"RLlib {ray.__version__}, Gymnasium {gym.__version__}, {cpus:.0f} CPUs in the Ray cluster; "
        f"{args.steps} env steps per runner per timed sample()", flush=True)
  print(f"{'runners':>7s} {'worlds/runner':>13s} {'mjgym steps/s':>14s} {'Hopper-v5 steps/s':>18s} {'ratio':>6s} "
        f"{'env alone: mjgym':>17s} {'Hopper-v5':>10s}", flush=True)
  rows = []
  for runners in args.runners:
    for worlds in args.worlds:
      ours = sample_rate("mjgym:MjHopper-v0", runners, worlds, args.steps)
      theirs = sample_rate("Hopper-v5", runners, worlds, args.steps)
      alone = env_rate("mjgym:MjHopper-v0", worlds, args.steps), env_rate("Hopper-v5", worlds, args.steps)
      rows.append((runners, worlds, ours, theirs) + alone)
      print(f"{runners:7d} {worlds:13d} {ours:14,.0f} {theirs:18,.0f} {ours / theirs:5.2f}x {alone[0]:17,.0f} "
            f"{alone[1]:10,.0f}", flush=True)
  ray.shutdown()
  return rows


if __name__ == "__main__":
  main()
