"""mjgym/hyperparams with rl-zoo3: the files parse as rl-zoo3 reads them, and rl-zoo3's train / enjoy /
record_video run on mjgym envs with them (``--gym-packages mjgym``)."""

import argparse
import os
import pathlib
import subprocess
import sys

import gymnasium as gym
import pytest
import yaml

import mjgym
from mjgym import hyperparams


def _import_rl_zoo3():
  """rl_zoo3, imported without its global patch of Gymnasium's TimeLimit (rl_zoo3.gym_patches replaces the class
  on import, which would change every other test's envs in this process); its subprocesses keep the patch."""
  import gymnasium.envs.registration as registration  # pylint: disable=import-outside-toplevel
  import gymnasium.wrappers as wrappers  # pylint: disable=import-outside-toplevel
  import gymnasium.wrappers.common as common  # pylint: disable=import-outside-toplevel
  modules = (wrappers, common, registration)
  saved = [m.__dict__.get("TimeLimit") for m in modules]
  try:
    return pytest.importorskip("rl_zoo3"), pytest.importorskip("rl_zoo3.exp_manager").ExperimentManager
  finally:
    for module, value in zip(modules, saved):
      if value is None:
        module.__dict__.pop("TimeLimit", None)
      else:
        module.TimeLimit = value


rl_zoo3, ExperimentManager = _import_rl_zoo3()

ROOT = pathlib.Path(__file__).resolve().parent.parent
ENV_IDS = [env_id for env_id, _, _ in mjgym.envs.ENVS]
DMC_IDS = [env_id for env_id, _, _, _ in mjgym.envs.DMC_ENVS]
ENTRIES = [(algo, env_id) for algo in hyperparams.ALGOS for env_id in hyperparams.load_all(algo)]


def test_files_shipped():
  assert hyperparams.ALGOS == ("a2c", "ppo", "sac", "td3")
  for algo in hyperparams.ALGOS:
    assert pathlib.Path(hyperparams.path(algo)).is_file()


@pytest.mark.parametrize("algo", ["ppo", "sac", "td3", "a2c"])
def test_every_env_has_an_entry_and_every_entry_is_an_env(algo):
  entries = hyperparams.load_all(algo)
  registered = set(gym.registry)
  assert set(entries) <= registered, set(entries) - registered
  # the suite's tasks have SAC, TD3 and PPO settings (docs/dmc.md), not A2C
  assert set(entries) == set(ENV_IDS) | (set(DMC_IDS) if algo != "a2c" else set())


@pytest.mark.parametrize("algo", ["ppo", "sac", "td3"])
def test_every_dmc_task_has_one_setting_of_each_algorithm(algo):
  """All suite tasks share their algorithm's one setting (the YAML merge key), as the papers it comes from run it."""
  entries = hyperparams.load_all(algo)
  first = hyperparams.load(algo, DMC_IDS[0])
  assert first["n_timesteps"] == 1e6 and first["policy"] == "MlpPolicy"
  for env_id in DMC_IDS:
    assert entries[env_id] == first, env_id


def test_load_and_errors():
  entry = hyperparams.load("ppo", "MjCartpole-v0")
  assert entry["learning_rate"] == "lin_0.001" and entry["n_envs"] == 8
  with pytest.raises(ValueError, match="known algos: a2c, ppo, sac, td3"):
    hyperparams.load("dqn", "MjCartpole-v0")
  with pytest.raises(ValueError, match="known env ids: .*MjHopper-v0"):
    hyperparams.load("ppo", "CartPole-v1")


def test_entries_are_rl_zoo3_entries():
  """Spot checks against rl-zoo3's own files: the entries taken unchanged are equal to rl-zoo3's."""
  zoo = pathlib.Path(rl_zoo3.__file__).parent / "hyperparams"
  same = {"ppo": {"MjHopper-v0": "Hopper-v4", "MjWalker2d-v0": "Walker2d-v4", "MjHalfCheetah-v0": "HalfCheetah-v4",
                  "MjHumanoid-v0": "Humanoid-v4", "MjSwimmer-v0": "Swimmer-v4", "MjAnt-v0": "Ant-v4"},
          "sac": {"MjHopper-v0": "Hopper-v4", "MjHumanoid-v0": "Humanoid-v4", "MjSwimmer-v0": "Swimmer-v4"},
          "td3": {"MjWalker2d-v0": "Walker2d-v4", "MjSwimmer-v0": "Swimmer-v4"},
          "a2c": {"MjHalfCheetah-v0": "HalfCheetah-v4", "MjHumanoid-v0": "Humanoid-v4"}}
  for algo, pairs in same.items():
    theirs = yaml.safe_load((zoo / f"{algo}.yml").read_text())
    for ours, gym_id in pairs.items():
      if gym_id in theirs:  # rl-zoo3 may rename its entries in later versions
        assert hyperparams.load(algo, ours) == theirs[gym_id], (algo, ours)


@pytest.mark.parametrize("algo,env_id", ENTRIES)
def test_rl_zoo3_parses_entry(algo, env_id, tmp_path):
  """rl-zoo3's ExperimentManager reads the entry from our file and preprocesses it (schedules, normalize,
  policy_kwargs strings, ...) into arguments the algorithm's class accepts."""
  exp = ExperimentManager(argparse.Namespace(), algo, env_id, str(tmp_path), config=hyperparams.path(algo))
  params, saved = exp.read_hyperparameters()
  assert saved == dict(sorted(hyperparams.load(algo, env_id).items()))
  params, _, _, _ = exp._preprocess_hyperparams(params)  # pylint: disable=protected-access
  assert exp.n_timesteps > 0
  params.pop("noise_type", None)  # turned into action_noise once the env exists
  params.pop("noise_std", None)
  params.pop("policy")
  cls = rl_zoo3.ALGOS[algo]
  import inspect  # pylint: disable=import-outside-toplevel
  accepted = set(inspect.signature(cls.__init__).parameters)
  assert set(params) <= accepted, set(params) - accepted


def _run(args, timeout, import_mjgym=False):
  """``python -m args...``; with import_mjgym, mjgym is imported first (for scripts without --gym-packages)."""
  if import_mjgym:
    module, *rest = args
    args = ["-c", f"import sys, runpy, mjgym; sys.argv = {[module] + rest!r}; "
                  f"runpy.run_module({module!r}, run_name='__main__', alter_sys=True)"]
  else:
    args = ["-m", *args]
  env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])),
             MPLBACKEND="Agg")
  proc = subprocess.run([sys.executable, *args], cwd=ROOT, env=env, capture_output=True, text=True,
                        timeout=timeout, check=False)
  assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
  return proc.stdout


@pytest.mark.parametrize("env_id,n", [("MjCartpole-v0", 2000), ("MjHopper-v0", 1024)])
def test_rl_zoo3_train_enjoy_record_video(env_id, n, tmp_path):
  """rl-zoo3 trains on an mjgym env with our file, then enjoys and records a video of the saved model."""
  log = tmp_path / "logs"
  _run(["rl_zoo3.train", "--algo", "ppo", "--env", env_id, "--gym-packages", "mjgym",
        "--conf-file", hyperparams.path("ppo"), "-n", str(n), "--log-folder", str(log), "--seed", "0",
        "--num-threads", "1"], timeout=120)
  models = list(log.glob(f"ppo/{env_id}_1/{env_id}.zip"))
  assert models, sorted(str(p) for p in log.rglob("*"))
  _run(["rl_zoo3.enjoy", "--algo", "ppo", "--env", env_id, "--gym-packages", "mjgym", "-f", str(log),
        "-n", "50", "--no-render"], timeout=60)
  videos = tmp_path / "videos"
  # rl-zoo3's record_video has no --gym-packages: mjgym is imported before it runs
  _run(["rl_zoo3.record_video", "--algo", "ppo", "--env", env_id, "-f", str(log), "-n", "50", "-o", str(videos)],
       timeout=60, import_mjgym=True)
  mp4 = list(videos.rglob("*.mp4"))
  assert mp4 and mp4[0].stat().st_size > 0, sorted(str(p) for p in tmp_path.rglob("*"))
