"""Rollout and finite-difference benchmark of mjgym beside MuJoCo, measured in the same run.

Prints one table: `physics.rollout.rollout` against `mujoco.rollout.rollout` (nbatch trajectories of nstep steps
from random initial states with random controls, 1 and 2 threads), and the transition Jacobians of every world
of a batch (`derivative.transition_fd_batch`, all perturbed steps in one parallel call) against a loop of
MuJoCo's `mjd_transitionFD` over the same states (Euler integrator for that part). Best of a few repeats, after a
warm-up call (compilation not included). No pass/fail: timings on a shared machine are noisy.

    python benchmarks/bench_rollout.py [--model hopper] [--nbatch 64] [--nstep 100] [--repeats 3]
"""

import argparse
import importlib.resources
import time

import numpy as np


def _asset(name):
  return str(importlib.resources.files("gymnasium.envs.mujoco") / "assets" / f"{name}.xml")


def _best(fn, repeats):
  best = np.inf
  for _ in range(repeats):
    t0 = time.perf_counter()
    fn()
    best = min(best, time.perf_counter() - t0)
  return best


def main():
  parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
  parser.add_argument("--model", default="hopper")
  parser.add_argument("--nbatch", type=int, default=64)
  parser.add_argument("--nstep", type=int, default=100)
  parser.add_argument("--nfd", type=int, default=16, help="worlds for the finite-difference row")
  parser.add_argument("--repeats", type=int, default=3)
  args = parser.parse_args()

  import mujoco
  import mujoco.rollout
  from mjgym import physics
  from mjgym.physics import derivative
  from mjgym.physics import rollout

  mjm = mujoco.MjModel.from_xml_path(_asset(args.model))
  m = physics.MjModel.from_xml_path(_asset(args.model))
  rng = np.random.default_rng(0)
  spec = mujoco.mjtState.mjSTATE_FULLPHYSICS
  mjd = mujoco.MjData(mjm)
  init = np.empty((args.nbatch, mujoco.mj_stateSize(mjm, spec)))
  for r in range(args.nbatch):
    mujoco.mj_resetData(mjm, mjd)
    mjd.qvel[:] = rng.normal(0, 0.1, mjm.nv)
    mujoco.mj_getState(mjm, mjd, init[r], spec)
  lo, hi = mjm.actuator_ctrlrange.T
  control = rng.uniform(lo, hi, (args.nbatch, args.nstep, mjm.nu))
  steps = args.nbatch * args.nstep

  rows = []
  for nthread in (1, 2):
    mj_datas = [mujoco.MjData(mjm) for _ in range(nthread)]
    datas = [physics.MjData(m) for _ in range(nthread)]
    mujoco.rollout.rollout(mjm, mj_datas, init, control, persistent_pool=True)
    rollout.rollout(m, datas, init, control, persistent_pool=True)
    t_mj = _best(lambda: mujoco.rollout.rollout(mjm, mj_datas, init, control, persistent_pool=True), args.repeats)
    t_ours = _best(lambda: rollout.rollout(m, datas, init, control, persistent_pool=True), args.repeats)
    rows.append((f"rollout {args.nbatch}x{args.nstep}, {nthread} thread(s)", steps / t_mj, steps / t_ours, "steps/s"))
  mujoco.rollout.shutdown_persistent_pool()
  rollout.shutdown_persistent_pool()

  # transition Jacobians of nfd worlds (Euler: MuJoCo's finite differences refuse RK4, hopper's integrator)
  mjm.opt.integrator = int(mujoco.mjtIntegrator.mjINT_EULER)
  m.opt.integrator = int(physics.mjtIntegrator.mjINT_EULER)
  nfd = args.nfd
  batch = physics.MjDataBatch(m, nfd)
  batch.set_state(init[:nfd], int(spec))
  batch.ctrl[:] = control[:nfd, 0]
  states = batch.get_state(int(physics.mjtState.mjSTATE_INTEGRATION))
  ndx, nu, ns = 2 * m.nv + m.na, m.nu, m.nsensordata
  mats = [np.zeros((ndx, ndx)), np.zeros((ndx, nu)), np.zeros((ns, ndx)), np.zeros((ns, nu))]

  def loop_mujoco():
    for w in range(nfd):
      mujoco.mj_setState(mjm, mjd, states[w], int(mujoco.mjtState.mjSTATE_INTEGRATION))
      mujoco.mjd_transitionFD(mjm, mjd, 1e-6, True, *mats)

  def loop_ours():
    for w in range(nfd):
      physics.mjd_transitionFD(m, batch[w], 1e-6, True, *mats)

  from mjgym.physics import batch as batch_module  # pylint: disable=import-outside-toplevel
  for nthread in (1, 2):
    batch_module.set_num_threads(nthread)
    derivative.transition_fd_batch(m, batch, 1e-6, True)
    loop_ours()
    t_mj = _best(loop_mujoco, args.repeats)
    t_loop = _best(loop_ours, args.repeats)
    t_batch = _best(lambda: derivative.transition_fd_batch(m, batch, 1e-6, True), args.repeats)
    rows.append((f"transitionFD centered, {nfd} worlds, loop, {nthread} thread(s)", nfd / t_mj, nfd / t_loop,
                 "Jacobians/s"))
    rows.append((f"transitionFD centered, {nfd} worlds, batch, {nthread} thread(s)", nfd / t_mj, nfd / t_batch,
                 "Jacobians/s"))

  print(f"\nmodel {args.model}: nv={m.nv} nu={m.nu} nsensordata={m.nsensordata}; best of {args.repeats}\n")
  print(f"| {'case':<58} | {'MuJoCo':>12} | {'mjgym':>12} | {'ratio':>6} | unit |")
  print(f"|{'-' * 60}|{'-' * 14}|{'-' * 14}|{'-' * 8}|------|")
  for label, mj, ours, unit in rows:
    print(f"| {label:<58} | {mj:>12,.0f} | {ours:>12,.0f} | {ours / mj:>6.2f} | {unit} |")


if __name__ == "__main__":
  main()
