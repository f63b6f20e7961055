"""``mjgym train``, ``mjgym eval`` and ``mjgym record``: stable-baselines3 on mjgym's batched VecEnv.

A run directory holds everything a training run makes::

  RUN/config.json          the command's arguments and the hyperparameters used (and where they came from)
  RUN/model.zip            the final policy; RUN/checkpoints/ the periodic ones (``--resume`` continues the last)
  RUN/vecnormalize.pkl     VecNormalize statistics, where the hyperparameters normalize
  RUN/progress.csv         SB3's training log (TensorBoard events beside it when tensorboard is installed)
  RUN/evaluations.csv      periodic deterministic evaluations: env steps, mean and std return
  RUN/curve.png            the learning curve (episode returns while training, evaluations), rewritten as it goes
  RUN/video.mp4            the trained policy's rollout

Hyperparameters come from ``mjgym/hyperparams/<algo>.yml`` (rl-zoo3's format; see ``mjgym.hyperparams``).
"""

import csv
import json
import os
import pathlib
import time

import numpy as np

from mjgym import usage

ALGOS = ("ppo", "sac", "td3", "a2c")


def _algo_class(name):
  import stable_baselines3  # pylint: disable=import-outside-toplevel
  return {"ppo": stable_baselines3.PPO, "sac": stable_baselines3.SAC, "td3": stable_baselines3.TD3,
          "a2c": stable_baselines3.A2C}[name]


def _schedule(value):
  """rl-zoo3's "lin_<x>" strings: a linear schedule from x to 0 over training; anything else unchanged."""
  if isinstance(value, str) and value.startswith("lin_"):
    start = float(value[4:])
    return lambda progress_remaining: progress_remaining * start
  return value


def sb3_arguments(hyperparams, env_id):
  """(algorithm kwargs, n_envs, n_timesteps, normalize kwargs or None, (noise_type, noise_std)) from an rl-zoo3
  hyperparameter entry."""
  import torch  # pylint: disable=import-outside-toplevel
  h = dict(hyperparams)
  n_envs = int(h.pop("n_envs", 1))
  n_timesteps = int(float(h.pop("n_timesteps", 1e6)))
  normalize = h.pop("normalize", False)
  if isinstance(normalize, str):
    normalize = eval(normalize, {"dict": dict})  # pylint: disable=eval-used  (rl-zoo3's own convention)
  normalize = {} if normalize is True else (dict(normalize) if normalize else None)
  if normalize is not None and "gamma" in h:
    # as rl-zoo3 does: the return that VecNormalize scales rewards by is discounted with the algorithm's gamma
    normalize["gamma"] = h["gamma"]
  for key in ("env_wrapper", "frame_stack", "callback", "vec_env_wrapper"):
    if key in h:
      usage.fail("mjgym train", f"hyperparameter {key!r} of {env_id} is not supported by mjgym train; "
                 "use rl-zoo3 for it")
  if isinstance(h.get("policy_kwargs"), str):
    h["policy_kwargs"] = eval(h["policy_kwargs"], {"dict": dict, "nn": torch.nn})  # pylint: disable=eval-used
  noise_type, noise_std = h.pop("noise_type", None), float(h.pop("noise_std", 0.0))
  for key in ("learning_rate", "clip_range", "clip_range_vf"):
    if key in h:
      h[key] = _schedule(h[key])
  if isinstance(h.get("train_freq"), list):
    h["train_freq"] = tuple(h["train_freq"])
  return h, n_envs, n_timesteps, normalize, (noise_type, noise_std)


def _action_noise(spec, nu):
  """SB3's action noise for rl-zoo3's noise_type / noise_std, or None."""
  from stable_baselines3.common import noise  # pylint: disable=import-outside-toplevel
  noise_type, std = spec
  if noise_type is None:
    return None
  if noise_type == "normal":
    return noise.NormalActionNoise(np.zeros(nu), std * np.ones(nu))
  if noise_type == "ornstein-uhlenbeck":
    return noise.OrnsteinUhlenbeckActionNoise(np.zeros(nu), std * np.ones(nu))
  usage.fail("mjgym train", f"unknown noise_type {noise_type!r}")


def _writable_dir(path):
  path = pathlib.Path(path)
  try:
    path.mkdir(parents=True, exist_ok=True)
    probe = path / ".write-test"
    probe.write_text("")
    probe.unlink()
  except OSError as e:
    usage.fail("mjgym", f"cannot write to {path}: {e.strerror}")
  return path


def write_curve(run_dir, title):
  """Redraws RUN/curve.png from the monitor log (training episodes) and evaluations.csv."""
  import matplotlib  # pylint: disable=import-outside-toplevel
  matplotlib.use("Agg")
  import matplotlib.pyplot as plt  # pylint: disable=import-outside-toplevel
  run_dir = pathlib.Path(run_dir)
  fig, ax = plt.subplots(figsize=(7, 4), dpi=100)
  episodes = _read_monitor(run_dir / "monitor.csv")
  if len(episodes):
    steps = np.cumsum(episodes[:, 1])
    ax.plot(steps, episodes[:, 0], ".", ms=2, alpha=0.3, color="tab:blue", label="training episodes")
    k = min(50, len(episodes))
    smooth = np.convolve(episodes[:, 0], np.ones(k) / k, mode="valid")
    ax.plot(steps[k - 1:], smooth, color="tab:blue", label=f"training, mean of {k}")
  evals = _read_csv(run_dir / "evaluations.csv")
  if evals:
    x = np.array([float(r["timesteps"]) for r in evals])
    mean = np.array([float(r["mean_return"]) for r in evals])
    std = np.array([float(r["std_return"]) for r in evals])
    ax.errorbar(x, mean, yerr=std, fmt="o-", color="tab:red", capsize=3, label="evaluation (deterministic)")
  ax.set_xlabel("env steps")
  ax.set_ylabel("episode return")
  ax.set_title(title)
  ax.grid(alpha=0.3)
  if ax.lines:
    ax.legend(loc="lower right", fontsize=8)
  fig.tight_layout()
  tmp = run_dir / "curve.tmp.png"
  fig.savefig(tmp)
  plt.close(fig)
  os.replace(tmp, run_dir / "curve.png")


def _read_monitor(path):
  """(n, 2) array of (return, length) of the episodes VecMonitor logged."""
  if not path.exists():
    return np.zeros((0, 2))
  rows = []
  with open(path, encoding="utf-8") as f:
    lines = [line for line in f if not line.startswith("#")]
  for row in csv.DictReader(lines):
    rows.append((float(row["r"]), float(row["l"])))
  return np.array(rows).reshape(-1, 2)


def _read_csv(path):
  if not path.exists():
    return []
  with open(path, encoding="utf-8") as f:
    return list(csv.DictReader(f))


def _callbacks(run_dir, env_id, eval_env, eval_every, eval_episodes, checkpoint_every, total, start):
  """SB3 callbacks: progress bar, periodic evaluation (+ curve), checkpoints."""
  from stable_baselines3.common.callbacks import BaseCallback  # pylint: disable=import-outside-toplevel
  from stable_baselines3.common.evaluation import evaluate_policy  # pylint: disable=import-outside-toplevel
  from tqdm import tqdm  # pylint: disable=import-outside-toplevel

  class Progress(BaseCallback):
    """Live progress (steps, env-steps/s, recent mean return, ETA), evaluations, checkpoints."""

    def _on_training_start(self):
      self.bar = tqdm(total=total, initial=start, unit="step", unit_scale=True, dynamic_ncols=True,
                      desc=f"train {env_id}")
      self.last_eval = self.last_checkpoint = self.num_timesteps
      self.evaluated_at = None
      self.returns = []

    def _on_step(self):
      for info in self.locals.get("infos", []):
        if "episode" in info:
          self.returns.append(info["episode"]["r"])
      self.bar.update(self.num_timesteps - self.bar.n)
      if self.returns:
        self.bar.set_postfix(mean_return=f"{np.mean(self.returns[-20:]):.1f}", refresh=False)
      if self.num_timesteps - self.last_eval >= eval_every:
        self.last_eval = self.num_timesteps
        self.evaluate()
      if self.num_timesteps - self.last_checkpoint >= checkpoint_every:
        self.last_checkpoint = self.num_timesteps
        save_run(self.model, run_dir, checkpoint=True)
      return True

    def evaluate(self):
      # once per policy: an on-policy algorithm updates after its rollout's last step, so the final evaluation at
      # the same step count as a periodic one in that rollout sees a new policy (SB3 counts updates in _n_updates)
      policy = (self.num_timesteps, self.model._n_updates)  # pylint: disable=protected-access
      if policy == self.evaluated_at:
        return
      self.evaluated_at = policy
      if hasattr(self.training_env, "obs_rms"):  # evaluation sees the training statistics, frozen
        eval_env.obs_rms = self.training_env.obs_rms
      mean, std = evaluate_policy(self.model, eval_env, n_eval_episodes=eval_episodes, deterministic=True)
      path = run_dir / "evaluations.csv"
      new = not path.exists()
      with open(path, "a", encoding="utf-8", newline="") as f:
        writer = csv.writer(f)
        if new:
          writer.writerow(["timesteps", "mean_return", "std_return", "episodes", "wall_s"])
        writer.writerow([self.num_timesteps, f"{mean:.4f}", f"{std:.4f}", eval_episodes,
                         f"{time.perf_counter() - t0:.1f}"])
      self.bar.write(f"eval at {self.num_timesteps:,} steps: return {mean:.1f} ± {std:.1f}")
      write_curve(run_dir, f"{type(self.model).__name__} on {env_id}")

    def _on_training_end(self):
      self.bar.close()

  t0 = time.perf_counter()
  return Progress()


def save_run(model, run_dir, checkpoint=False):
  """model.zip (+ vecnormalize.pkl); with ``checkpoint``, under checkpoints/ with the step count."""
  run_dir = pathlib.Path(run_dir)
  if checkpoint:
    target = run_dir / "checkpoints"
    target.mkdir(exist_ok=True)
    stem = f"model_{model.num_timesteps}_steps"
  else:
    target, stem = run_dir, "model"
  model.save(target / f"{stem}.zip")
  venv = model.get_env()
  if hasattr(venv, "obs_rms"):
    venv.save(str(target / (f"vecnormalize_{model.num_timesteps}_steps.pkl" if checkpoint else "vecnormalize.pkl")))


def _last_checkpoint(run_dir):
  found = sorted((run_dir / "checkpoints").glob("model_*_steps.zip"), key=lambda p: int(p.stem.split("_")[1]))
  return found[-1] if found else None


def train(args):
  """``mjgym train``: see the module docstring."""
  from mjgym import hyperparams  # pylint: disable=import-outside-toplevel
  args.env_id = usage.resolve_env(args.env_id, "mjgym train")
  if args.algo not in ALGOS:
    usage.fail("mjgym train", f"unknown algorithm {args.algo!r} (known: {', '.join(ALGOS)})")
  try:
    entry = hyperparams.load(args.algo, args.env_id)
  except ValueError as e:
    usage.fail("mjgym train", f"{e}")
  # a suite id's "/" ("MjDMC/cheetah-run-v0") would nest the default directory: one folder per run instead
  default = pathlib.Path("runs") / f"{args.env_id.replace('/', '-')}_{args.algo}_{args.seed}"
  run_dir = _writable_dir(args.out or default)
  algo_kwargs, n_envs, n_timesteps, normalize, noise = sb3_arguments(entry, args.env_id)
  n_envs = args.n_envs or n_envs
  total = args.steps or n_timesteps
  from stable_baselines3.common.logger import configure  # pylint: disable=import-outside-toplevel
  from stable_baselines3.common.vec_env import VecNormalize  # pylint: disable=import-outside-toplevel
  from mjgym import sb3  # pylint: disable=import-outside-toplevel

  venv = sb3.make_vec_env(args.env_id, n_envs=n_envs, seed=args.seed, monitor_dir=run_dir / "monitor.csv")
  eval_env = sb3.make_vec_env(args.env_id, n_envs=1, seed=args.seed + 10_000)
  resume = _last_checkpoint(run_dir) if args.resume else None
  if args.resume and resume is None:
    usage.fail("mjgym train", f"--resume: no checkpoint in {run_dir / 'checkpoints'}")
  if normalize is not None:
    stats = resume.parent / resume.name.replace("model_", "vecnormalize_").replace(".zip", ".pkl") if resume else None
    venv = VecNormalize.load(str(stats), venv) if stats and stats.exists() else VecNormalize(venv, **normalize)
    eval_env = VecNormalize(eval_env, training=False, norm_reward=False,
                            **{k: v for k, v in normalize.items() if k not in ("norm_reward",)})
  algo = _algo_class(args.algo)
  if resume:
    model = algo.load(resume, env=venv, device=args.device)
  else:
    action_noise = _action_noise(noise, venv.action_space.shape[0])
    if action_noise is not None:
      algo_kwargs["action_noise"] = action_noise
    model = algo(env=venv, seed=args.seed, device=args.device, verbose=0, **algo_kwargs)
  formats = ["csv"]
  try:
    import tensorboard  # noqa: F401  pylint: disable=import-outside-toplevel,unused-import
    formats.append("tensorboard")
  except ImportError:
    pass
  model.set_logger(configure(str(run_dir), formats))
  config = {"env_id": args.env_id, "algo": args.algo, "seed": args.seed, "n_envs": n_envs, "steps": total,
            "device": args.device, "hyperparams": entry, "hyperparams_file": str(hyperparams.path(args.algo)),
            "resumed_from": str(resume) if resume else None}
  (run_dir / "config.json").write_text(json.dumps(config, indent=2, default=str))
  start = model.num_timesteps
  eval_every = max(args.eval_every or total // 10, n_envs)
  callback = _callbacks(run_dir, args.env_id, eval_env, eval_every, args.eval_episodes,
                        max(args.checkpoint_every or total // 5, n_envs), total, start)
  t0 = time.perf_counter()
  model.learn(total_timesteps=total - start, callback=callback, reset_num_timesteps=not resume)
  wall = time.perf_counter() - t0
  save_run(model, run_dir)
  callback.evaluate()
  video = None if args.no_video else record_policy(run_dir, run_dir / "video.mp4", episodes=1)
  last = _read_csv(run_dir / "evaluations.csv")[-1]
  print(f"\n{args.algo.upper()} on {args.env_id}: {model.num_timesteps:,} env steps in {wall:.0f} s "
        f"({(model.num_timesteps - start) / wall:,.0f} env-steps/s incl. learning)\n"
        f"  final evaluation: return {float(last['mean_return']):.1f} ± {float(last['std_return']):.1f} "
        f"over {last['episodes']} episodes\n"
        f"  model:  {run_dir / 'model.zip'}\n"
        + (f"  stats:  {run_dir / 'vecnormalize.pkl'}\n" if normalize is not None else "")
        + f"  curve:  {run_dir / 'curve.png'}\n  log:    {run_dir / 'progress.csv'}\n"
        + (f"  video:  {video}\n" if video else "")
        + f"  eval:   mjgym eval {run_dir}")
  venv.close()
  eval_env.close()
  return 0


def load_run(run_dir, n_envs=1, render_mode=None, seed=0, command="mjgym eval"):
  """(model, env) of a run directory: the final model and a VecEnv with its VecNormalize statistics."""
  run_dir = pathlib.Path(run_dir)
  if not (run_dir / "config.json").exists() or not (run_dir / "model.zip").exists():
    usage.fail(command, f"{run_dir} is not a finished training run (no config.json / model.zip)")
  from stable_baselines3.common.vec_env import VecNormalize  # pylint: disable=import-outside-toplevel
  from mjgym import sb3  # pylint: disable=import-outside-toplevel
  config = json.loads((run_dir / "config.json").read_text())
  env = sb3.make_vec_env(config["env_id"], n_envs=n_envs, seed=seed, render_mode=render_mode)
  if (run_dir / "vecnormalize.pkl").exists():
    env = VecNormalize.load(str(run_dir / "vecnormalize.pkl"), env)
    env.training, env.norm_reward = False, False
  model = _algo_class(config["algo"]).load(run_dir / "model.zip", env=env, device="cpu")
  return model, env, config


def evaluate(args):
  """``mjgym eval RUN_DIR``: mean ± std return of the deterministic policy."""
  from stable_baselines3.common.evaluation import evaluate_policy  # pylint: disable=import-outside-toplevel
  model, env, config = load_run(args.run_dir, seed=args.seed)
  returns, lengths = evaluate_policy(model, env, n_eval_episodes=args.episodes, deterministic=True,
                                     return_episode_rewards=True)
  print(f"{config['algo'].upper()} on {config['env_id']} ({args.run_dir}): return {np.mean(returns):.1f} ± "
        f"{np.std(returns):.1f}, length {np.mean(lengths):.0f}, over {args.episodes} episodes")
  env.close()
  return 0


def record_policy(run_dir, path, episodes=1, seed=0, steps=None):
  """Writes a video of a run's deterministic policy (``steps`` env steps, or ``episodes`` whole episodes);
  returns the path."""
  import gymnasium as gym  # pylint: disable=import-outside-toplevel
  from mjgym import video  # pylint: disable=import-outside-toplevel
  model, venv, config = load_run(run_dir, seed=seed, command="mjgym record")
  env = gym.make(config["env_id"], render_mode="rgb_array")

  def policy(obs):
    if hasattr(venv, "normalize_obs"):
      obs = venv.normalize_obs(obs)
    return model.predict(obs, deterministic=True)[0]

  video.record(env, policy, str(path), steps=steps, episodes=episodes, seed=seed)
  env.close()
  venv.close()
  return path


def record(args):
  """``mjgym record RUN_DIR|ENV_ID``: a video of a trained policy, or of random actions."""
  import gymnasium as gym  # pylint: disable=import-outside-toplevel
  from mjgym import video  # pylint: disable=import-outside-toplevel
  out = pathlib.Path(args.out)
  _writable_dir(out.parent if str(out.parent) else ".")
  if pathlib.Path(args.target).is_dir():
    if args.random:
      usage.fail("mjgym record", "--random takes an env id, not a run directory")
    path = record_policy(args.target, out, episodes=args.episodes, seed=args.seed, steps=args.steps)
  else:
    args.target = usage.resolve_env(args.target, "mjgym record")
    if not args.random:
      usage.fail("mjgym record", f"{args.target} is an env id: pass --random, or give a run directory")
    env = gym.make(args.target, render_mode="rgb_array")
    video.record(env, None, str(out), steps=args.steps, episodes=args.episodes, seed=args.seed)
    env.close()
    path = out
  print(f"wrote {path}")
  return 0


def add_train_arguments(p):
  p.add_argument("env_id", help="a registered mjgym env id, e.g. MjHopper-v0 or MjDMC/cheetah-run-v0 (the DeepMind "
                 "Control Suite's tasks), or a short name such as hopper or dmc/cheetah-run")
  p.add_argument("--algo", default="ppo", help=f"one of {', '.join(ALGOS)} (default ppo)")
  p.add_argument("--steps", type=int, default=None, help="env steps (default: the hyperparameters' n_timesteps)")
  p.add_argument("--n-envs", type=int, default=None, help="worlds (default: the hyperparameters' n_envs)")
  p.add_argument("--seed", type=int, default=0)
  p.add_argument("--out", default=None, help="run directory (default runs/ENV_ALGO_SEED)")
  p.add_argument("--device", default="cpu", help="torch device (default cpu)")
  p.add_argument("--eval-every", type=int, default=None, help="env steps between evaluations (default steps/10)")
  p.add_argument("--eval-episodes", type=int, default=5)
  p.add_argument("--checkpoint-every", type=int, default=None, help="env steps between checkpoints (steps/5)")
  p.add_argument("--resume", action="store_true", help="continue from the run directory's last checkpoint")
  p.add_argument("--no-video", action="store_true", help="skip the final rollout video")
  p.set_defaults(func=train)


def add_eval_arguments(p):
  p.add_argument("run_dir", help="a directory written by mjgym train")
  p.add_argument("--episodes", type=int, default=10)
  p.add_argument("--seed", type=int, default=0)
  p.set_defaults(func=evaluate)


def add_record_arguments(p):
  p.add_argument("target", help="a run directory (its trained policy) or an env id such as MjHopper-v0 or "
                 "MjDMC/cheetah-run-v0 (with --random)")
  p.add_argument("--random", action="store_true", help="random actions (with an env id)")
  p.add_argument("--out", default="rollout.mp4", help="output file, .mp4 or .gif (default rollout.mp4)")
  p.add_argument("--episodes", type=int, default=1)
  # the suite's episodes are 1000 steps whatever the policy does: a short clip needs a step count
  p.add_argument("--steps", type=int, default=None, help="stop after this many env steps (default: --episodes "
                 "whole episodes)")
  p.add_argument("--seed", type=int, default=0)
  p.set_defaults(func=record)
