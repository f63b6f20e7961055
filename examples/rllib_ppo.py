"""PPO with Ray RLlib on mjgym: each env runner steps its worlds as one batched mjgym vector env.

RLlib's env runners build their envs with ``gym.make_vec``; with ``gym_env_vectorize_mode`` set to Gymnasium's
``VectorizeMode.VECTOR_ENTRY_POINT`` that is mjgym's registered vector env, so the ``--envs-per-runner`` worlds
of a runner are one ``MjDataBatch`` stepped in one numba call (not N Python envs). The env id is given as
``"mjgym:MjHopper-v0"`` so that each runner process imports mjgym (and registers its envs) on its own.

  python examples/rllib_ppo.py                            # 2 runners x 16 worlds, 20 iterations, local Ray
  python examples/rllib_ppo.py --iterations 2 --runners 1 --envs-per-runner 8
  RAY_ADDRESS=auto python examples/rllib_ppo.py --runners 64 --envs-per-runner 64   # on a running cluster

``ray.init()`` connects to the cluster named by ``RAY_ADDRESS`` (``auto``: the one this node belongs to) and
starts a local one otherwise; see docs/scale-out.md. Needs ``pip install -e ".[ray]"``.
"""

import argparse
import os
import time

import gymnasium as gym


def build_config(env_id, runners, envs_per_runner, batch_size, minibatch_size, epochs, seed):
  """A PPOConfig (RLlib's new API stack) with each runner's envs as one mjgym batched vector env."""
  from ray.rllib.algorithms.ppo import PPOConfig  # pylint: disable=import-outside-toplevel
  return (
      PPOConfig()
      .environment(env_id)
      .env_runners(num_env_runners=runners, num_envs_per_env_runner=envs_per_runner,
                   gym_env_vectorize_mode=gym.VectorizeMode.VECTOR_ENTRY_POINT)
      .training(train_batch_size_per_learner=batch_size, minibatch_size=minibatch_size, num_epochs=epochs,
                lr=3e-4, gamma=0.99, lambda_=0.95)
      .debugging(seed=seed)
  )


def main(argv=None):
  parser = argparse.ArgumentParser(description=__doc__.strip().splitlines()[0])
  parser.add_argument("--env", default="mjgym:MjHopper-v0", help="env id (default mjgym:MjHopper-v0)")
  parser.add_argument("--iterations", type=int, default=20)
  parser.add_argument("--runners", type=int, default=2, help="env runners (Ray actors)")
  parser.add_argument("--envs-per-runner", type=int, default=16, help="worlds per runner (one batched Data)")
  parser.add_argument("--batch-size", type=int, default=4096, help="env steps per training iteration")
  parser.add_argument("--minibatch-size", type=int, default=256)
  parser.add_argument("--epochs", type=int, default=10)
  parser.add_argument("--seed", type=int, default=0)
  args = parser.parse_args(argv)

  import ray  # pylint: disable=import-outside-toplevel
  # RAY_ADDRESS (if set) names the cluster; without it this starts a local one
  ray.init(include_dashboard=False, log_to_driver=False, ignore_reinit_error=True)
  where = os.environ.get("RAY_ADDRESS") or "a local Ray instance"
  print(f"PPO on {args.env}: {args.runners} env runners x {args.envs_per_runner} worlds on {where} "
        f"({ray.cluster_resources().get('CPU', 0):.0f} CPUs)", flush=True)
  config = build_config(args.env, args.runners, args.envs_per_runner, args.batch_size, args.minibatch_size,
                        args.epochs, args.seed)
  algo = config.build_algo()
  returns = []
  print(f"{'iter':>4s} {'env steps':>10s} {'return':>9s} {'episodes':>8s} {'seconds':>8s} {'steps/s':>8s}",
        flush=True)
  try:
    for i in range(1, args.iterations + 1):
      start = time.perf_counter()
      result = algo.train()
      seconds = time.perf_counter() - start
      runners = result["env_runners"]
      ret = runners.get("episode_return_mean", float("nan"))
      returns.append(ret)
      print(f"{i:4d} {int(runners['num_env_steps_sampled_lifetime']):10,d} {ret:9.1f} "
            f"{int(runners.get('num_episodes', 0)):8d} {seconds:8.2f} {runners['num_env_steps_sampled'] / seconds:8,.0f}",
            flush=True)
  finally:
    algo.stop()
  return returns


if __name__ == "__main__":
  main()
