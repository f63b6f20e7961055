"""``mjgym train``, ``eval`` and ``record`` with tiny budgets: the files a run writes, reading them back, resuming,
and one-line errors for bad input."""

import json
import pickle

import imageio
import imageio.v3 as iio
import numpy as np
import pytest

pytest.importorskip("stable_baselines3")
event_accumulator = pytest.importorskip("tensorboard.backend.event_processing.event_accumulator")
from mjgym import cli  # noqa: E402  pylint: disable=wrong-import-position


def _run(*argv):
  return cli.main([str(a) for a in argv])


@pytest.fixture(scope="module")
def cartpole_run(tmp_path_factory):
  run = tmp_path_factory.mktemp("runs") / "cartpole"
  assert _run("train", "MjCartpole-v0", "--steps", 2048, "--n-envs", 8, "--eval-every", 1024, "--eval-episodes", 2,
              "--checkpoint-every", 1024, "--out", run) == 0
  return run


def test_train_writes_the_run(cartpole_run):
  run = cartpole_run
  for name in ("model.zip", "config.json", "progress.csv", "evaluations.csv", "curve.png", "video.mp4",
               "monitor.csv"):
    assert (run / name).exists(), name
  config = json.loads((run / "config.json").read_text())
  assert config["env_id"] == "MjCartpole-v0" and config["algo"] == "ppo" and config["n_envs"] == 8
  assert config["hyperparams_file"].endswith("ppo.yml")
  evals = (run / "evaluations.csv").read_text().splitlines()
  assert evals[0].startswith("timesteps,mean_return")
  # two periodic ones, each before its rollout's update, and the final one after the last update
  assert [row.split(",")[0] for row in evals[1:]] == ["1024", "2048", "2048"]
  curve = iio.imread(run / "curve.png")
  assert curve.ndim == 3 and curve.std() > 0
  assert len(list((run / "checkpoints").glob("model_*_steps.zip"))) >= 1
  # TensorBoard's log beside the CSV
  events = event_accumulator.EventAccumulator(str(next(run.glob("events.out.tfevents.*"))))
  events.Reload()
  assert "rollout/ep_rew_mean" in events.Tags()["scalars"]
  reader = imageio.get_reader(run / "video.mp4", "ffmpeg")
  assert reader.count_frames() > 10 and np.std(reader.get_data(5)) > 1


def test_eval_and_record_read_the_run(cartpole_run, tmp_path, capsys):
  assert _run("eval", cartpole_run, "--episodes", 2) == 0
  out = capsys.readouterr().out
  assert "return" in out and "±" in out
  video = tmp_path / "policy.gif"
  assert _run("record", cartpole_run, "--out", video) == 0
  assert iio.imread(video).shape[0] > 10


def test_resume_continues_from_the_last_checkpoint(cartpole_run):
  before = sorted(int(p.stem.split("_")[1]) for p in (cartpole_run / "checkpoints").glob("model_*_steps.zip"))
  assert _run("train", "MjCartpole-v0", "--steps", 4096, "--n-envs", 8, "--eval-every", 4096, "--eval-episodes", 1,
              "--checkpoint-every", 1024, "--out", cartpole_run, "--resume", "--no-video") == 0
  config = json.loads((cartpole_run / "config.json").read_text())
  assert config["resumed_from"].endswith(f"model_{before[-1]}_steps.zip")
  after = sorted(int(p.stem.split("_")[1]) for p in (cartpole_run / "checkpoints").glob("model_*_steps.zip"))
  assert after[-1] > before[-1]


def test_normalized_run_saves_and_loads_its_statistics(tmp_path, capsys):
  run = tmp_path / "hopper"
  assert _run("train", "MjHopper-v0", "--steps", 256, "--n-envs", 4, "--eval-episodes", 1, "--out", run,
              "--no-video") == 0
  assert (run / "vecnormalize.pkl").exists()
  # rl-zoo3 discounts the return that scales the rewards with the algorithm's gamma (0.999 for PPO Hopper), not
  # VecNormalize's default 0.99
  with open(run / "vecnormalize.pkl", "rb") as f:
    assert pickle.load(f).gamma == 0.999
  assert _run("eval", run, "--episodes", 1) == 0
  assert "MjHopper-v0" in capsys.readouterr().out


def test_record_random_actions(tmp_path):
  out = tmp_path / "random.gif"
  assert _run("record", "MjInvertedPendulum-v0", "--random", "--out", out) == 0
  assert np.asarray(iio.imread(out)).shape[0] >= 2


@pytest.mark.parametrize("argv, message", [
    (("train", "MjNoSuchEnv-v0"), "mjgym train: unknown env 'MjNoSuchEnv-v0'"),
    (("train", "MjCartpole-v0", "--algo", "dqn"), "unknown algorithm 'dqn'"),
    (("eval", "/nonexistent/run"), "is not a finished training run"),
    (("record", "MjCartpole-v0"), "pass --random"),
])
def test_bad_input_is_one_line(argv, message, capsys):
  with pytest.raises(SystemExit) as e:
    _run(*argv)
  text = str(e.value)
  assert e.value.code == 2  # as argparse's own usage errors
  assert message in text and "\n" not in text
  assert capsys.readouterr().err.endswith(text + "\n")  # the one line the user sees


def test_unwritable_output_directory(tmp_path):
  """An output path under a regular file cannot be created, whoever runs the test (root included)."""
  blocker = tmp_path / "a_file"
  blocker.write_text("")
  with pytest.raises(SystemExit, match="cannot write") as e:
    _run("train", "MjCartpole-v0", "--steps", 64, "--out", blocker / "run")
  assert e.value.code == 2 and "\n" not in str(e.value)


@pytest.mark.parametrize("algo", ["sac", "td3", "a2c"])
def test_other_algorithms_train_from_their_files(algo, tmp_path):
  """Each algorithm's entry (action noise for TD3, schedules, policy_kwargs) builds and runs a few steps."""
  run = tmp_path / algo
  assert _run("train", "MjInvertedPendulum-v0", "--algo", algo, "--steps", 200, "--n-envs", 2, "--eval-episodes", 1,
              "--out", run, "--no-video") == 0
  config = json.loads((run / "config.json").read_text())
  assert config["algo"] == algo and config["hyperparams_file"].endswith(f"{algo}.yml")
  assert (run / "model.zip").exists()


# The DeepMind Control Suite's tasks. Off-policy runs shorter than their hyperparameters' seed steps (5000 for SAC,
# 25000 for TD3) exercise the whole command without minutes of gradient steps.


@pytest.fixture(scope="module")
def dmc_run(tmp_path_factory):
  run = tmp_path_factory.mktemp("runs") / "dmc"
  assert _run("train", "dmc/cartpole-swingup", "--algo", "sac", "--steps", 300, "--n-envs", 2, "--eval-every", 300,
              "--eval-episodes", 1, "--out", run, "--no-video") == 0
  return run


def test_dmc_task_trains_with_the_suite_hyperparameters(dmc_run):
  config = json.loads((dmc_run / "config.json").read_text())
  assert config["env_id"] == "MjDMC/cartpole-swingup-v0" and config["algo"] == "sac"
  assert config["hyperparams"]["batch_size"] == 1024 and config["hyperparams"]["ent_coef"] == "auto_0.1"
  assert (dmc_run / "model.zip").exists()
  evals = (dmc_run / "evaluations.csv").read_text().splitlines()
  assert len(evals) == 2 and evals[1].split(",")[3] == "1"  # one evaluation of one episode
  # every training episode of the suite lasts 1000 steps: none ended in 300 steps of 2 worlds
  assert len((dmc_run / "monitor.csv").read_text().splitlines()) == 2


def test_dmc_run_evaluates_and_records(dmc_run, tmp_path, capsys):
  assert _run("eval", dmc_run, "--episodes", 1) == 0
  out = capsys.readouterr().out
  assert "SAC on MjDMC/cartpole-swingup-v0" in out and "length 1000" in out
  clip = tmp_path / "policy.gif"
  assert _run("record", dmc_run, "--steps", 20, "--out", clip) == 0
  assert iio.imread(clip).shape[0] == 21  # the reset frame and one per step


def test_dmc_default_run_directory_is_one_folder(tmp_path, monkeypatch):
  """The id's "/" does not nest the default run directory; TD3's action noise is built for the suite task."""
  monkeypatch.chdir(tmp_path)
  assert _run("train", "MjDMC/cheetah-run-v0", "--algo", "td3", "--steps", 100, "--n-envs", 2, "--eval-every", 100,
              "--eval-episodes", 1, "--no-video") == 0
  assert [p.name for p in (tmp_path / "runs").iterdir()] == ["MjDMC-cheetah-run-v0_td3_0"]
  config = json.loads((tmp_path / "runs" / "MjDMC-cheetah-run-v0_td3_0" / "config.json").read_text())
  assert config["hyperparams"]["noise_type"] == "normal" and config["hyperparams"]["learning_starts"] == 25000


def test_random_clip_of_a_dmc_task(tmp_path):
  out = tmp_path / "random.gif"
  assert _run("record", "MjDMC/cheetah-run-v0", "--random", "--steps", 10, "--out", out) == 0
  assert iio.imread(out).shape[0] == 11


def test_unknown_env_lists_the_suite(capsys):
  with pytest.raises(SystemExit, match="unknown env 'MjDMC/cheetah-fly-v0'") as e:
    _run("train", "MjDMC/cheetah-fly-v0")
  assert "MjDMC/cheetah-run-v0" in str(e.value) and "MjDMC/walker-run-v0" in str(e.value)
  assert capsys.readouterr().err == str(e.value) + "\n"
