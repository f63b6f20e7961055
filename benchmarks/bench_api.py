"""The bindings-API extras beside MuJoCo, in one run: model loading and the cost of user callbacks.

Two tables, each with MuJoCo measured in the same run so the ratios mean something on a noisy machine:

  load   ms per model load of Gymnasium's hopper, ant and humanoid: MuJoCo's MJCF compiler, mjgym's MJCF compiler,
         and mjgym's binary format (``mj_saveModel`` / ``MjModel.from_binary_path``, no compiler), best of --repeats
  step   µs per ``mj_step`` of hopper and humanoid (Euler, contacts included): MuJoCo; mjgym's ``mj_step`` with no
         callback set (the compiled path); mjgym's compiled kernel called directly (no Python dispatch at all, the
         floor for the row above); and both engines with a no-op Python control callback
         (``set_mjcb_control``), which in mjgym splits the step into compiled parts with Python between

No pass/fail: read the rows side by side.

    python benchmarks/bench_api.py [--repeats 5] [--steps 2000]
"""

import argparse
import importlib.resources
import os
import tempfile
import time

import numpy as np

MODELS = ("hopper", "ant", "humanoid")


def _asset(name):
  return str(importlib.resources.files("gymnasium.envs.mujoco") / "assets" / f"{name}.xml")


def _best(fn, repeats, n=1):
  """Best seconds per call of ``fn`` over ``repeats`` timings of ``n`` calls each."""
  best = np.inf
  for _ in range(repeats):
    t0 = time.perf_counter()
    for _ in range(n):
      fn()
    best = min(best, (time.perf_counter() - t0) / n)
  return best


def load_rows(repeats):
  """(model, MuJoCo MJCF ms, mjgym MJCF ms, mjgym binary ms, binary file bytes) per model."""
  import mujoco  # pylint: disable=import-outside-toplevel
  from mjgym import physics  # pylint: disable=import-outside-toplevel
  rows = []
  with tempfile.TemporaryDirectory() as tmp:
    for name in MODELS:
      path = _asset(name)
      filename = os.path.join(tmp, f"{name}.mjgym")
      physics.mj_saveModel(physics.MjModel.from_xml_path(path), filename)
      theirs = _best(lambda: mujoco.MjModel.from_xml_path(path), repeats)  # pylint: disable=cell-var-from-loop
      ours = _best(lambda: physics.MjModel.from_xml_path(path), repeats)  # pylint: disable=cell-var-from-loop
      binary = _best(lambda: physics.MjModel.from_binary_path(filename), repeats)  # pylint: disable=cell-var-from-loop
      rows.append((name, 1e3 * theirs, 1e3 * ours, 1e3 * binary, os.path.getsize(filename)))
      print(f"{name:10s} {rows[-1][1]:12.2f} {rows[-1][2]:12.2f} {rows[-1][3]:12.2f} {rows[-1][2] / rows[-1][3]:8.0f}x "
            f"{rows[-1][4]:10,d}", flush=True)
  return rows


def step_rows(steps, repeats):
  """(model, MuJoCo µs, mjgym mj_step µs, mjgym kernel µs, MuJoCo + callback µs, mjgym + callback µs) per model."""
  import mujoco  # pylint: disable=import-outside-toplevel
  from mjgym import physics  # pylint: disable=import-outside-toplevel
  from mjgym.physics import forward  # pylint: disable=import-outside-toplevel
  rng = np.random.default_rng(0)
  rows = []
  for name in ("hopper", "humanoid"):
    path = _asset(name)
    mj_m = mujoco.MjModel.from_xml_path(path)
    mj_d = mujoco.MjData(mj_m)
    m = physics.MjModel.from_xml_path(path)
    # Gymnasium's models integrate with RK4, where MuJoCo calls a callback in each inner evaluation (which mjgym
    # refuses): both engines use Euler here
    mj_m.opt.integrator = mujoco.mjtIntegrator.mjINT_EULER
    m.opt.integrator = int(mujoco.mjtIntegrator.mjINT_EULER)
    d = physics.MjData(m)
    ctrl = rng.uniform(-0.2, 0.2, m.nu)
    mj_d.ctrl[:] = ctrl
    d.ctrl[:] = ctrl
    kernel = forward.entry(m)

    def timed(step, data, model, n=steps):
      def run():
        step(model, data)
      return 1e6 * _best(run, repeats, n)

    def kernel_step(model, data):
      kernel(model._struct, data._struct, forward.OP_STEP, 1)

    def reset():
      mujoco.mj_resetData(mj_m, mj_d)
      physics.mj_resetData(m, d)
      mj_d.ctrl[:] = ctrl
      d.ctrl[:] = ctrl

    physics.mj_step(m, d, 10)  # compiled code loaded before timing
    reset()
    theirs = timed(mujoco.mj_step, mj_d, mj_m)
    reset()
    ours = timed(physics.mj_step, d, m)
    reset()
    direct = timed(kernel_step, d, m)

    def noop(model, data):  # pylint: disable=unused-argument
      return None
    mujoco.set_mjcb_control(noop)
    physics.set_mjcb_control(noop)
    try:
      reset()
      theirs_cb = timed(mujoco.mj_step, mj_d, mj_m)
      reset()
      ours_cb = timed(physics.mj_step, d, m)
    finally:
      mujoco.set_mjcb_control(None)
      physics.set_mjcb_control(None)
    rows.append((name, theirs, ours, direct, theirs_cb, ours_cb))
    print(f"{name:10s} {theirs:10.2f} {ours:14.2f} {direct:12.2f} {ours / theirs:7.2f}x {theirs_cb:14.2f} "
          f"{ours_cb:14.2f} {ours_cb / theirs_cb:7.2f}x", flush=True)
  return rows


def main(argv=None):
  parser = argparse.ArgumentParser(description=__doc__.strip().splitlines()[0])
  parser.add_argument("--repeats", type=int, default=5, help="timings per figure; the best is kept (default 5)")
  parser.add_argument("--steps", type=int, default=2000, help="steps per step timing (default 2000)")
  args = parser.parse_args(argv)
  import mujoco  # pylint: disable=import-outside-toplevel
  print(f"MuJoCo {mujoco.__version__}; best of {args.repeats}", flush=True)
  print("\nmodel load, ms")
  print(f"{'model':10s} {'MuJoCo MJCF':>12s} {'mjgym MJCF':>12s} {'mjgym bin':>12s} {'MJCF/bin':>9s} {'bin bytes':>10s}")
  load = load_rows(args.repeats)
  print("\nmj_step, µs (no callback: the compiled path; kernel: the compiled entry called directly)")
  print(f"{'model':10s} {'MuJoCo':>10s} {'mjgym mj_step':>14s} {'mjgym kernel':>12s} {'time ×':>8s} "
        f"{'MuJoCo + cb':>14s} {'mjgym + cb':>14s} {'time ×':>8s}")
  step = step_rows(args.steps, args.repeats)
  return load, step


if __name__ == "__main__":
  main()
