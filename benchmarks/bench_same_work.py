"""Same work in both engines: mjgym's batched step beside MuJoCo's rollout on every Gymnasium v5 MuJoCo model.

Each model is loaded from Gymnasium's own XML (gymnasium/envs/mujoco/assets) into both engines, with the
frame_skip of its Gymnasium v5 env class. Every world gets uniform random controls in the actuators' ctrlrange,
a new one each control period, held for frame_skip physics steps; worlds are never reset. Both engines get the
very same control sequences and start from the same state (qpos0, at rest):

- mjgym: ``MjDataBatch(m, nworld)``; per control period ``batch.ctrl[:] = u`` then ``batch.step(frame_skip)``
  (one numba call per control period, worlds in parallel on ``numba.set_num_threads(threads)`` threads, in
  the batch's own chunks: min(nworld, 4 x NUMBA_NUM_THREADS)).
- MuJoCo: ``mujoco.rollout.Rollout(nthread=threads)`` (nthread=0 for one thread: the calling thread steps, no
  pool), ``rollout(model, datas, initial_state, control)`` over K control periods at once:
  nstep = K x frame_skip, the control array holding each period's control frame_skip times. Each call starts
  from the state the previous call ended in (its last state output). rollout writes every step's full
  physics state into its output array and restarts the solver warm start at zero per call (a per-call cost,
  small since K is chosen so that a call lasts about a quarter of --seconds). rollout stops a world at its first
  warning; such steps are not counted (a note on stderr says so).

One measurement (of one engine at one point: model, worlds, threads) calls its runner, K control periods of every
world per call, until --seconds have passed, and divides the env-steps done by the time taken. The two engines
alternate, --repeats times each; the table shows the best of each. Units: one env-step = one control period of one
world = frame_skip physics steps (mj_step); world-steps/s = env-steps/s x frame_skip. A warm-up call per point
(compile / cache load, thread start) is not timed.

Optional: ``--png FILE`` draws the ratios (mjgym/MuJoCo) per model; when EnvPool is importable, an env-level
table compares mjgym's vector env (gym.make_vec("MjHopper-v0", num_envs, num_threads), mjgym.bench's runner)
with EnvPool's same task (v5 if EnvPool has it, else v4, said in the table), random actions, autoreset on,
the two alternating, best of --repeats each.

    python benchmarks/bench_same_work.py                        # all models, 1 16 64 256 worlds, 1 and 2 threads
    python benchmarks/bench_same_work.py --quick                # 16 and 64 worlds, 1 thread, short points
    python benchmarks/bench_same_work.py --models hopper humanoid --worlds 64 --threads 1 2 --png ratios.png

No asserts on time: read the two engines side by side (both measured in the same run, alternating).
"""

import argparse
import importlib
import inspect
import os
import sys
import time

import numpy as np

# short name -> Gymnasium v5 env id (the frame_skip and XML come from that env's class, see gymnasium_task)
MODELS = {
    "hopper": "Hopper-v5",
    "walker2d": "Walker2d-v5",
    "half_cheetah": "HalfCheetah-v5",
    "ant": "Ant-v5",
    "humanoid": "Humanoid-v5",
    "humanoidstandup": "HumanoidStandup-v5",
    "swimmer": "Swimmer-v5",
    "reacher": "Reacher-v5",
    "pusher": "Pusher-v5",
    "inverted_pendulum": "InvertedPendulum-v5",
    "inverted_double_pendulum": "InvertedDoublePendulum-v5",
}

_MEMORY_CAP = 64 << 20  # bytes of rollout's control, state and sensor arrays per point (caps K at many worlds)


def log(message):
  print(message, file=sys.stderr, flush=True)


def gymnasium_task(name):
  """(XML path, frame_skip) of the Gymnasium v5 env ``MODELS[name]``.

  Both are the defaults of the env class's ``__init__`` keywords ``xml_file`` and ``frame_skip``
  (gymnasium/envs/mujoco/<env>_v5.py, e.g. ``Hopper(frame_skip=4, xml_file="hopper.xml")``, Pusher-v5's
  ``pusher_v5.xml``), the class found through the registry's entry point, and the path resolved as MujocoEnv does
  (mujoco_env.expand_model_path: relative names are under gymnasium/envs/mujoco/assets). No env is built.
  """
  import gymnasium  # pylint: disable=import-outside-toplevel
  from gymnasium.envs.mujoco.mujoco_env import expand_model_path  # pylint: disable=import-outside-toplevel
  module, cls = gymnasium.spec(MODELS[name]).entry_point.split(":")
  params = inspect.signature(getattr(importlib.import_module(module), cls).__init__).parameters
  return expand_model_path(params["xml_file"].default), int(params["frame_skip"].default)


def integrator_name(mjm):
  import mujoco  # pylint: disable=import-outside-toplevel
  return mujoco.mjtIntegrator(mjm.opt.integrator).name.removeprefix("mjINT_")


def random_controls(mjm, nworld, nperiod, seed):
  """(nworld, nperiod, nu) controls, uniform in each actuator's ctrlrange ([-1, 1] where it has none)."""
  lo, hi = mjm.actuator_ctrlrange.T.copy()
  free = mjm.actuator_ctrllimited == 0
  lo[free], hi[free] = -1.0, 1.0
  return np.random.default_rng(seed).uniform(lo, hi, (nworld, nperiod, mjm.nu))


class MjgymRunner:
  """mjgym's batched worlds: ``call()`` steps every world through the ``nperiod`` control periods."""

  def __init__(self, m, nworld, frame_skip, controls):
    from mjgym.physics.batch import MjDataBatch  # pylint: disable=import-outside-toplevel
    self.batch = MjDataBatch(m, nworld)
    self.frame_skip = frame_skip
    self.controls = np.ascontiguousarray(controls.transpose(1, 0, 2))  # (nperiod, nworld, nu): one copy each
    self.nworld = nworld
    self.nperiod = len(self.controls)

  def call(self):
    """(seconds, env-steps done)."""
    batch, ctrl, fs = self.batch, self.batch.ctrl, self.frame_skip
    t0 = time.perf_counter()
    for u in self.controls:
      ctrl[:] = u
      batch.step(fs)
    return time.perf_counter() - t0, self.nworld * self.nperiod

  def first_period(self):
    """qpos (nworld, nq) after the first control period, stepping it (the next call starts at period 0 again)."""
    self.batch.ctrl[:] = self.controls[0]
    self.batch.step(self.frame_skip)
    return self.batch.qpos.copy()

  def warnings(self):
    return int(self.batch.warning_number.sum())


class MujocoRunner:
  """MuJoCo's rollout: ``call()`` rolls every world out over the ``nperiod`` control periods in one call."""

  def __init__(self, mjm, nworld, nthread, frame_skip, controls):
    import mujoco  # pylint: disable=import-outside-toplevel
    import mujoco.rollout  # pylint: disable=import-outside-toplevel
    self.mjm = mjm
    self.nworld = nworld
    self.frame_skip = frame_skip
    self.nperiod = controls.shape[1]
    self.pool = mujoco.rollout.Rollout(nthread=nthread if nthread > 1 else 0)
    self.datas = [mujoco.MjData(mjm) for _ in range(max(1, nthread))]
    spec = mujoco.mjtState.mjSTATE_FULLPHYSICS
    state = np.empty(mujoco.mj_stateSize(mjm, spec))
    mujoco.mj_getState(mjm, self.datas[0], state, spec)
    self.state0 = np.tile(state, (nworld, 1))
    nstep = self.nperiod * frame_skip
    self.control = np.ascontiguousarray(np.repeat(controls, frame_skip, axis=1))  # held for frame_skip steps
    self.state = np.empty((nworld, nstep, len(state)))
    self.sensordata = np.empty((nworld, nstep, mjm.nsensordata))
    self.stopped = 0  # world-steps rollout skipped after a warning

  def call(self):
    """(seconds, env-steps done)."""
    t0 = time.perf_counter()
    self.pool.rollout(self.mjm, self.datas, self.state0, self.control, state=self.state,
                      sensordata=self.sensordata)
    dt = time.perf_counter() - t0
    times = self.state[:, :, 0]  # mjSTATE_TIME first: a world rollout stopped keeps its time
    skipped = int(np.count_nonzero(times[:, 1:] == times[:, :-1]))
    self.stopped += skipped
    self.state0[:] = self.state[:, -1]
    return dt, (self.nworld * self.nperiod * self.frame_skip - skipped) / self.frame_skip

  def close(self):
    self.pool.close()


def _measure(runner, seconds):
  """Env-steps/s of ``runner`` over at least ``seconds`` (whole calls)."""
  total_t, total_n = 0.0, 0.0
  while total_t < seconds:
    dt, n = runner.call()
    total_t += dt
    total_n += n
  return total_n / total_t


def bench_point(path, frame_skip, nworld, threads, seconds, repeats, seed=0):
  """(mjgym env-steps/s, MuJoCo env-steps/s, max |qpos difference| after the first control period, notes) at one
  point, best of ``repeats`` alternating runs."""
  import mujoco  # pylint: disable=import-outside-toplevel
  import numba  # pylint: disable=import-outside-toplevel
  from mjgym import physics  # pylint: disable=import-outside-toplevel
  mjm = mujoco.MjModel.from_xml_path(path)
  m = physics.MjModel.from_xml_path(path)
  numba.set_num_threads(threads)
  # K control periods per call: a MuJoCo call of about seconds / 4, from a 2-period call (after a warm-up one)
  probe = MujocoRunner(mjm, nworld, threads, frame_skip, random_controls(mjm, nworld, 2, seed))
  probe.call()
  per_period = probe.call()[0] / 2
  probe.close()
  bytes_per_period = nworld * frame_skip * (probe.state.shape[2] + mjm.nu + mjm.nsensordata) * 8
  nperiod = int(np.clip(seconds / 4 / per_period, 1, max(1, _MEMORY_CAP // bytes_per_period)))
  controls = random_controls(mjm, nworld, nperiod, seed)
  ours = MjgymRunner(m, nworld, frame_skip, controls)
  theirs = MujocoRunner(mjm, nworld, threads, frame_skip, controls)
  # warm-up (kernels compiled or loaded, threads started), checking on the way that both do the same work: from the
  # same start under the same controls, the first control period ends in the same state
  qpos_ours = ours.first_period()
  theirs.call()
  drift = float(np.abs(qpos_ours - theirs.state[:, frame_skip - 1, 1:1 + mjm.nq]).max())
  ours.call()
  best_ours = best_theirs = 0.0
  for _ in range(repeats):
    best_ours = max(best_ours, _measure(ours, seconds))
    best_theirs = max(best_theirs, _measure(theirs, seconds))
  theirs.close()
  notes = []
  if theirs.stopped:
    notes.append(f"MuJoCo's rollout stopped worlds after a warning ({theirs.stopped} world-steps not counted)")
  if ours.warnings():
    notes.append(f"mjgym raised {ours.warnings()} warnings (worlds reset and went on)")
  return best_ours, best_theirs, drift, notes


# ---------------------------------------------------------------------------------------------------------------
# env level: mjgym's vector env beside EnvPool's (only when envpool imports)


def envpool_task(v5_id):
  """EnvPool's id for a Gymnasium v5 id: the same one if EnvPool has it, else its v4 (older envpools)."""
  import envpool  # pylint: disable=import-outside-toplevel
  known = set(envpool.list_all_envs())
  for candidate in (v5_id, v5_id[:-1] + "4"):
    if candidate in known:
      return candidate
  return None


def env_section(names, worlds, threads, seconds, repeats):
  """mjgym's vector env beside EnvPool's at every (threads, worlds), alternating, best of ``repeats`` each."""
  try:
    import envpool  # noqa: F401  pylint: disable=import-outside-toplevel,unused-import
  except Exception as e:  # pylint: disable=broad-except
    print(f"\nEnv level (mjgym vector env vs EnvPool): skipped, envpool is not importable ({e!r}); "
          "pip install envpool where a wheel exists")
    return
  from mjgym.bench import bench_envpool, bench_mjgym  # pylint: disable=import-outside-toplevel
  from mjgym.envs import GYMNASIUM_V5  # pylint: disable=import-outside-toplevel
  ours_of = {v5: ours for ours, v5 in GYMNASIUM_V5.items()}
  rows = []
  for name in names:
    v5 = MODELS[name]
    theirs = envpool_task(v5)
    if theirs is None or v5 not in ours_of:
      log(f"  env level: {v5} skipped (EnvPool task: {theirs}, mjgym env: {ours_of.get(v5)})")
      continue
    for t in threads:
      for n in worlds:
        a = b = 0.0
        for _ in range(repeats):
          a = max(a, bench_mjgym(ours_of[v5], n, t, seconds)[0])
          b = max(b, bench_envpool(theirs, n, min(t, n), seconds)[0])
        rows.append((ours_of[v5], theirs, t, n, a, b))
        log(f"  env level {ours_of[v5]} vs EnvPool {theirs}, {n} worlds, {t} thr: {a:,.0f} vs {b:,.0f} env-steps/s")
  print("\nEnv level: env-steps/s of mjgym's vector env vs EnvPool (random actions, autoreset)\n")
  print("| mjgym env | EnvPool task | threads | worlds | mjgym env-steps/s | EnvPool env-steps/s | ratio |")
  print("|---|---|---:|---:|---:|---:|---:|")
  for ours, theirs, t, n, a, b in rows:
    print(f"| {ours} | {theirs} | {t} | {n} | {a:,.0f} | {b:,.0f} | {a / b:.2f} |")


# ---------------------------------------------------------------------------------------------------------------


def write_png(path, rows):
  """Bars of mjgym/MuJoCo per model, one bar per (threads, worlds)."""
  from matplotlib.backends.backend_agg import FigureCanvasAgg  # pylint: disable=import-outside-toplevel
  from matplotlib.figure import Figure  # pylint: disable=import-outside-toplevel
  models = list(dict.fromkeys(r["model"] for r in rows))
  series = list(dict.fromkeys((r["threads"], r["worlds"]) for r in rows))
  ratio = {(r["model"], r["threads"], r["worlds"]): r["ours"] / r["theirs"] for r in rows}
  fig = Figure(figsize=(max(7.0, 1.0 + 0.25 * len(models) * (len(series) + 1)), 5.0), dpi=100, layout="constrained")
  FigureCanvasAgg(fig)
  ax = fig.add_subplot()
  width = 0.8 / len(series)
  for i, (t, n) in enumerate(series):
    xs = [k + (i - (len(series) - 1) / 2) * width for k in range(len(models))]
    ax.bar(xs, [ratio.get((model, t, n), 0.0) for model in models], width, label=f"{t} thr, {n} worlds")
  ax.axhline(1.0, color="black", linewidth=0.8)
  ax.set_xticks(range(len(models)), models, rotation=30, ha="right")
  ax.set_ylabel("mjgym / MuJoCo (env-steps/s)")
  ax.set_title("mjgym MjDataBatch.step vs mujoco.rollout, same work (above 1: mjgym faster)", fontsize="medium")
  ax.grid(axis="y", alpha=0.3)
  fig.legend(loc="outside lower center", fontsize="small", ncols=min(4, len(series)))
  fig.savefig(path, format="png")


def print_tables(rows, threads):
  for t in threads:
    print(f"\n### {t} thread{'s' if t > 1 else ''}: env-steps/s (one env-step = frame_skip mj_steps of one world; "
          "world-steps/s = env-steps/s x frame_skip)\n")
    print("| model | frame_skip | integrator | worlds | mjgym env-steps/s | MuJoCo env-steps/s | ratio |")
    print("|---|---:|---|---:|---:|---:|---:|")
    for r in rows:
      if r["threads"] == t:
        print(f"| {r['model']} | {r['frame_skip']} | {r['integrator']} | {r['worlds']} | {r['ours']:,.0f} | "
              f"{r['theirs']:,.0f} | {r['ours'] / r['theirs']:.2f} |")


def main():
  parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
  parser.add_argument("--models", nargs="+", choices=list(MODELS), default=list(MODELS), metavar="MODEL",
                      help=f"models to run (default: all of {', '.join(MODELS)})")
  parser.add_argument("--worlds", nargs="+", type=int, help="world counts (default 1 16 64 256; --quick: 16 64)")
  parser.add_argument("--threads", nargs="+", type=int, help="thread counts, same in both engines (default 1 2; "
                      "--quick: 1); capped at NUMBA_NUM_THREADS")
  parser.add_argument("--seconds", type=float, help="seconds of one measurement (default 1; --quick 0.1)")
  parser.add_argument("--repeats", type=int, help="alternating measurements per engine and point, best kept "
                      "(default 3; --quick 2)")
  parser.add_argument("--quick", action="store_true", help="16 and 64 worlds, 1 thread, 0.1 s x 2 per engine")
  parser.add_argument("--png", metavar="FILE", help="also write a bar chart of the ratios to FILE (matplotlib)")
  parser.add_argument("--skip-env", action="store_true", help="skip the env-level EnvPool section")
  args = parser.parse_args()
  worlds = args.worlds or ([16, 64] if args.quick else [1, 16, 64, 256])
  threads_asked = args.threads or ([1] if args.quick else [1, 2])
  seconds = args.seconds or (0.1 if args.quick else 1.0)
  repeats = args.repeats or (2 if args.quick else 3)
  if min(worlds) < 1 or min(threads_asked) < 1 or seconds <= 0 or repeats < 1:
    parser.error("--worlds, --threads and --repeats must be at least 1, --seconds positive")
  if args.png:
    try:
      import matplotlib  # noqa: F401  pylint: disable=import-outside-toplevel,unused-import
    except ImportError:
      parser.error("--png needs matplotlib (pip install matplotlib)")

  import mujoco  # pylint: disable=import-outside-toplevel
  import numba  # pylint: disable=import-outside-toplevel
  threads = list(dict.fromkeys(min(t, numba.config.NUMBA_NUM_THREADS) for t in threads_asked))
  if threads != list(dict.fromkeys(threads_asked)):
    log(f"threads capped at NUMBA_NUM_THREADS={numba.config.NUMBA_NUM_THREADS}: {threads}")
  print(f"Same work: mjgym MjDataBatch.step vs mujoco.rollout (mujoco {mujoco.__version__}, numba "
        f"{numba.__version__}); {len(os.sched_getaffinity(0))} CPUs "
        f"usable; {seconds:g} s per measurement, best of {repeats}; load average at start "
        f"{', '.join(f'{x:.2f}' for x in os.getloadavg())}")

  rows, notes = [], []
  for name in args.models:
    path, frame_skip = gymnasium_task(name)
    integ = integrator_name(mujoco.MjModel.from_xml_path(path))
    for t in threads:
      for n in worlds:
        t0 = time.perf_counter()
        try:
          ours, theirs, drift, point_notes = bench_point(path, frame_skip, n, t, seconds, repeats)
        except Exception as e:  # pylint: disable=broad-except
          log(f"{name} {n} worlds {t} thr: failed: {e!r}")
          notes.append(f"{name}, {n} worlds, {t} thr: failed ({e!r})")
          continue
        rows.append(dict(model=name, frame_skip=frame_skip, integrator=integ, worlds=n, threads=t, ours=ours,
                         theirs=theirs))
        notes += [f"{name}, {n} worlds, {t} thr: {note}" for note in point_notes]
        log(f"{name} (frame_skip {frame_skip}, {integ}) {n} worlds {t} thr: mjgym {ours:,.0f}, MuJoCo "
            f"{theirs:,.0f} env-steps/s, ratio {ours / theirs:.2f}; max |qpos mjgym - MuJoCo| after the first "
            f"control period {drift:.1e} ({time.perf_counter() - t0:.1f} s)")

  print_tables(rows, threads)
  try:
    layer = numba.threading_layer()
  except ValueError:  # no parallel region ran (one world only)
    layer = "none used"
  print(f"\nratio = mjgym / MuJoCo (above 1: mjgym faster). numba threading layer: {layer}. Load average at the "
        f"end: {', '.join(f'{x:.2f}' for x in os.getloadavg())}")
  for note in notes:
    print(f"note: {note}")
  if args.png and rows:
    write_png(args.png, rows)
    log(f"wrote {args.png}")
  if not args.skip_env:
    env_section(args.models, worlds, threads, seconds, args.repeats)


if __name__ == "__main__":
  main()
