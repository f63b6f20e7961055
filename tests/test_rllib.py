"""Ray RLlib's env runners over mjgym's batched vector envs (examples/rllib_ppo.py).

Skipped where Ray is not installed; CI installs the ``ray`` extra in a second venv (RLlib pins an older
Gymnasium) and runs this file there.
"""

import importlib.util
import math
import pathlib
import sys

import pytest

pytest.importorskip("ray.rllib")
import gymnasium as gym  # noqa: E402
import ray  # noqa: E402

EXAMPLES = pathlib.Path(__file__).resolve().parent.parent / "examples"


def _example():
  spec = importlib.util.spec_from_file_location("rllib_ppo", EXAMPLES / "rllib_ppo.py")
  module = importlib.util.module_from_spec(spec)
  spec.loader.exec_module(module)
  return module


@pytest.fixture(scope="module")
def local_ray():
  ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, ignore_reinit_error=True)
  yield
  ray.shutdown()


def test_each_runner_steps_one_batched_vector_env(local_ray):  # pylint: disable=unused-argument,redefined-outer-name
  """Two runners x 8 worlds: each runner's env is mjgym's vector env over one MjDataBatch of 8 worlds (RLlib's
  VECTOR_ENTRY_POINT path, NEXT_STEP autoreset), its numba pool sized by the one CPU Ray gives it, and its
  pipeline loaded from the shared cache (MJGYM_CACHE_DIR, filled by ``mjgym compile`` / this session's prewarm):
  no runner compiled."""
  def _runner_view(runner):
    """What an env runner holds: its env's types, world count, Data type, threads, and the batched pipeline's
    numba cache statistics (defined in the test so that Ray pickles it by value)."""
    import numba  # pylint: disable=import-outside-toplevel
    from mjgym.physics import batch  # pylint: disable=import-outside-toplevel
    env = runner.env.unwrapped
    return {"env": type(env).__name__, "num_envs": env.num_envs, "batch": type(env.batch).__name__,
            "nworld": env.batch.nworld, "numba_threads": numba.config.NUMBA_NUM_THREADS,
            "cache_hits": sum(batch.run_batch.stats.cache_hits.values()),
            "cache_misses": sum(batch.run_batch.stats.cache_misses.values()),
            "autoreset": str(env.autoreset_mode), "gymnasium": gym.__version__}

  config = _example().build_config("mjgym:MjHopper-v0", runners=2, envs_per_runner=8, batch_size=256,
                                   minibatch_size=64, epochs=1, seed=0)
  algo = config.build_algo()
  try:
    algo.train()  # the runners step their envs
    views = algo.env_runner_group.foreach_env_runner(_runner_view, local_env_runner=False)
  finally:
    algo.stop()
  assert len(views) == 2, views
  for view in views:
    assert view["env"] == "MjHopperVectorEnv" and view["batch"] == "MjDataBatch"
    assert view["num_envs"] == 8 and view["nworld"] == 8
    assert view["autoreset"].endswith("NEXT_STEP")
    assert view["numba_threads"] == 1  # Ray's OMP_NUM_THREADS=1 for a 1-CPU actor
    assert view["cache_hits"] >= 1 and view["cache_misses"] == 0
    assert view["gymnasium"] == gym.__version__


def test_example_trains_two_iterations(local_ray, capsys):  # pylint: disable=unused-argument,redefined-outer-name
  returns = _example().main(["--iterations", "2", "--runners", "2", "--envs-per-runner", "8", "--batch-size", "512",
                             "--minibatch-size", "128", "--epochs", "2"])
  assert len(returns) == 2 and all(math.isfinite(r) for r in returns)
  lines = [ln for ln in capsys.readouterr().out.splitlines() if ln.strip()[:1].isdigit()]
  assert len(lines) == 2  # one printed row per iteration
  assert int(lines[-1].split()[1].replace(",", "")) >= 1024  # env steps sampled over the two iterations


def test_dmc_task_runs_on_batched_vector_envs(local_ray):  # pylint: disable=unused-argument,redefined-outer-name
  """A suite id (its namespace "MjDMC/" behind the module prefix) reaches each runner as mjgym's vector env: one
  training iteration of one runner x 4 worlds, shorter than the suite's 1000-step episodes."""
  def _runner_env(runner):
    env = runner.env.unwrapped
    return type(env).__name__, env.num_envs, env.single_observation_space.shape

  config = _example().build_config("mjgym:MjDMC/cheetah-run-v0", runners=1, envs_per_runner=4, batch_size=128,
                                   minibatch_size=64, epochs=1, seed=0)
  algo = config.build_algo()
  try:
    algo.train()
    views = algo.env_runner_group.foreach_env_runner(_runner_env, local_env_runner=False)
  finally:
    algo.stop()
  assert views == [("MjDMCCheetahVectorEnv", 4, (17,))], views


if __name__ == "__main__":
  sys.exit(pytest.main([__file__, "-q"]))
