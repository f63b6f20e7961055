"""Per-stage profile of one step, mjgym beside MuJoCo: µs per world-step of each pipeline stage, same states.

For each model (Gymnasium's XMLs, with their own integrators and solvers: hopper RK4/Newton, ant RK4/Newton,
humanoid RK4/PGS) both engines are put at the same states and each stage is timed alone, the same way in both.

States. A MuJoCo trajectory from qpos0 under uniform random controls (a new one per control period of the
Gymnasium v5 env's frame_skip; no resets) is sampled at --states points after --warmup control periods. At each
sample both engines get qpos, qvel, act, ctrl and qacc_warmstart from MuJoCo and run mj_forward, so every field a
stage reads is that state's; the average contact and constraint-row counts of both engines are printed.

Timing. Each engine has one compiled timing loop, ``@numba.njit``, whose body is ``if stage == k: for _ in
range(n): <stage k>(m, d)``:
- mjgym's stage kernels are called directly (they are numba functions taking the structs ``m._struct,
  d._struct``; they are compiled separately, so the loop calls them by address, as mjgym's own pipeline does);
- MuJoCo's are called through ctypes function pointers into the very libmujoco the bindings loaded
  (``mj_kinematics(model._address, data._address)``): a direct C call from compiled code, without the
  ~0.3-0.5 µs a call through the Python bindings costs.
A stage's time is (T(n) - T_empty(n)) / n: T(n) the best of --repeats runs of the loop over n calls, T_empty(n)
the best of as many runs of the same loop function with nothing to call: the empty-call overhead, i.e. the
Python-to-numba crossing (measured here: ~10 µs into mjgym's loop, which unboxes two structs; ~1 µs into MuJoCo's,
which takes two addresses). It cancels, and only the calls remain. What a call itself costs belongs to the stage,
as it does in each engine's pipeline; the line above each table shows it for an entry point with nothing to do
(mjgym: ``forward.run(m, d, OP_STEP, 0)``, the engine's entry asked for zero steps; MuJoCo: ``mj_flex``, which has
nothing to do on these models). n is chosen per stage and engine so that a loop runs about --target-ms. Stages
that change the state (the integrator, the whole step) restore qpos, qvel, act, qacc and qacc_warmstart before
every call; their baseline loop does the same restores without the call, so the copying cancels as well. Stages
that only recompute outputs from inputs (all others) are simply repeated. The engines alternate, stage by stage
(mjgym's runs of a stage, then MuJoCo's); a stage's figure is the mean over the sampled states.

Stages (mjgym kernel | MuJoCo function):
  kinematics        smooth.kinematics              | mj_kinematics
  com_pos           smooth.com_pos                 | mj_comPos
  camlight          smooth.camlight                | mj_camlight
  tendon            smooth.tendon                  | mj_tendon                      (models with tendons)
  crb               smooth.crb                     | mj_makeM (mj_crb + tendon armature: MuJoCo's inertia stage)
  factor_m          smooth.factor_m                | mj_factorM
  collision         driver.collision (broad+narrow)| mj_collision (broad+narrow: one function in both engines)
  make_constraint   constraint.make_constraint     | mj_makeConstraint + mj_island + mj_projectConstraint
                    (islands included)               (the three calls of mj_fwdPosition's constraint part)
  transmission      smooth.transmission            | mj_transmission
  velocity_vectors  actuation.fwd_velocity_quantities | (inline in mj_fwdVelocity: not exposed, no figure)
  com_vel           smooth.com_vel                 | mj_comVel
  passive           passive.passive                | mj_passive
  constraint_ref    constraint.constraint_velocity | mj_referenceConstraint (mjgym also forms efc_b here,
                    (efc_vel, efc_aref, efc_b)       MuJoCo in mj_fwdConstraint)
  rne               smooth.rne                     | mj_rne(m, d, 0, qfrc_bias)
  actuation         actuation.fwd_actuation        | mj_fwdActuation
  fwd_acceleration  forward.fwd_acceleration       | mj_fwdAcceleration (qfrc_smooth, xfrc, solve_m)
  constraint_solve  solver.solve                   | mj_fwdConstraint
  sensor_pos/vel/acc sensor.sensor_*               | mj_sensorPos / mj_sensorVel / mj_sensorAcc
  integrator        forward.integrate              | mj_Euler / mj_RungeKutta(4) / mj_implicit (RK4 runs three
                                                     more forward passes: it is most of an RK4 step)
The "whole step" row is one mj_step of each engine (forward.step, mj_step) timed the same way (state restored
every call), for calibration: the stage sums should come close to it (a warning is printed when a sum is more
than 20% off). MuJoCo's sum misses what mj_step does outside the exposed functions (state checks, mj_flex, the
tendon/actuator velocity products, tendon bias); mjgym's misses only the state checks.

    python benchmarks/profile_stages.py                          # hopper, ant, humanoid
    python benchmarks/profile_stages.py --quick --models hopper  # a few seconds
    python benchmarks/profile_stages.py --models walker2d --states 16 --target-ms 50

No asserts on time: both engines are measured in the same run, alternating; read them side by side.
"""

import argparse
import ctypes
import glob
import os
import sys
import time

import mujoco
import numba
import numpy as np
from numba import njit

from bench_same_work import MODELS, gymnasium_task, integrator_name, log, random_controls
from mjgym import physics
from mjgym.physics import actuation
from mjgym.physics import constraint
from mjgym.physics import forward
from mjgym.physics import passive
from mjgym.physics import sensor
from mjgym.physics import smooth
from mjgym.physics import solver
from mjgym.physics.collision import driver

# ---------------------------------------------------------------------------------------------------------------
# MuJoCo's stage functions as C function pointers (numba calls ctypes functions from compiled code). Pointers are
# passed as size_t: the same register on every 64-bit ABI, and numba takes an int for it.

_LIB = ctypes.CDLL(sorted(glob.glob(os.path.join(os.path.dirname(mujoco.__file__), "libmujoco.so*")) +
                          glob.glob(os.path.join(os.path.dirname(mujoco.__file__), "libmujoco*.dylib")))[0])


def _cfunc(name, *extra):
  f = getattr(_LIB, name)
  f.argtypes = (ctypes.c_size_t, ctypes.c_size_t) + extra
  f.restype = None
  return f


mj_flex = _cfunc("mj_flex")
mj_kinematics = _cfunc("mj_kinematics")
mj_comPos = _cfunc("mj_comPos")
mj_camlight = _cfunc("mj_camlight")
mj_tendon = _cfunc("mj_tendon")
mj_makeM = _cfunc("mj_makeM")
mj_factorM = _cfunc("mj_factorM")
mj_collision = _cfunc("mj_collision")
mj_makeConstraint = _cfunc("mj_makeConstraint")
mj_island = _cfunc("mj_island")
mj_projectConstraint = _cfunc("mj_projectConstraint")
mj_transmission = _cfunc("mj_transmission")
mj_comVel = _cfunc("mj_comVel")
mj_passive = _cfunc("mj_passive")
mj_referenceConstraint = _cfunc("mj_referenceConstraint")
mj_rne = _cfunc("mj_rne", ctypes.c_int, ctypes.c_size_t)
mj_fwdActuation = _cfunc("mj_fwdActuation")
mj_fwdAcceleration = _cfunc("mj_fwdAcceleration")
mj_fwdConstraint = _cfunc("mj_fwdConstraint")
mj_sensorPos = _cfunc("mj_sensorPos")
mj_sensorVel = _cfunc("mj_sensorVel")
mj_sensorAcc = _cfunc("mj_sensorAcc")
mj_Euler = _cfunc("mj_Euler")
mj_RungeKutta = _cfunc("mj_RungeKutta", ctypes.c_int)
mj_implicit = _cfunc("mj_implicit")
mj_step = _cfunc("mj_step")

# ---------------------------------------------------------------------------------------------------------------
# stages: (name, id, has a MuJoCo counterpart)

# Baselines: the loop with nothing to call (EMPTY), or only the state restore (RESTORE, for the state-changing rows);
# ENTRY calls an entry point that has nothing to do, to show each engine's fixed cost of a call.
EMPTY, RESTORE, ENTRY = 0, 1, 24
STAGES = (
    ("kinematics", 2, True),
    ("com_pos", 3, True),
    ("camlight", 4, True),
    ("tendon", 5, True),
    ("crb", 6, True),
    ("factor_m", 7, True),
    ("collision", 8, True),
    ("make_constraint", 9, True),
    ("transmission", 10, True),
    ("velocity_vectors", 11, False),
    ("com_vel", 12, True),
    ("passive", 13, True),
    ("constraint_ref", 14, True),
    ("rne", 15, True),
    ("actuation", 16, True),
    ("fwd_acceleration", 17, True),
    ("constraint_solve", 18, True),
    ("sensor_pos", 19, True),
    ("sensor_vel", 20, True),
    ("sensor_acc", 21, True),
    ("integrator", 22, True),
)
STEP = 23
_RESTORING = (22, 23)  # the stages timed against RESTORE instead of EMPTY


@njit
def _restore(live, saved):
  """live[i][:] = saved[i] for (qpos, qvel, act, qacc, qacc_warmstart)."""
  live[0][:] = saved[0]
  live[1][:] = saved[1]
  live[2][:] = saved[2]
  live[3][:] = saved[3]
  live[4][:] = saved[4]


@njit
def mjgym_loop(m, d, narrow, stage, n, live, saved):
  """``n`` calls of mjgym's ``stage`` on Model struct ``m`` and Data struct ``d`` (live: d's state arrays)."""
  if stage == EMPTY:
    pass
  elif stage == RESTORE:
    for _ in range(n):
      _restore(live, saved)
  elif stage == ENTRY:
    for _ in range(n):
      forward.run(m, d, forward.OP_STEP, 0)
  elif stage == 2:
    for _ in range(n):
      smooth.kinematics(m, d)
  elif stage == 3:
    for _ in range(n):
      smooth.com_pos(m, d)
  elif stage == 4:
    for _ in range(n):
      smooth.camlight(m, d)
  elif stage == 5:
    for _ in range(n):
      smooth.tendon(m, d)
  elif stage == 6:
    for _ in range(n):
      smooth.crb(m, d)
  elif stage == 7:
    for _ in range(n):
      smooth.factor_m(m, d)
  elif stage == 8:
    for _ in range(n):
      driver.collision(m, d, narrow)
  elif stage == 9:
    for _ in range(n):
      constraint.make_constraint(m, d)
  elif stage == 10:
    for _ in range(n):
      smooth.transmission(m, d)
  elif stage == 11:
    for _ in range(n):
      actuation.fwd_velocity_quantities(m, d)
  elif stage == 12:
    for _ in range(n):
      smooth.com_vel(m, d)
  elif stage == 13:
    for _ in range(n):
      passive.passive(m, d)
  elif stage == 14:
    for _ in range(n):
      constraint.constraint_velocity(m, d)
  elif stage == 15:
    for _ in range(n):
      smooth.rne(m, d)
  elif stage == 16:
    for _ in range(n):
      actuation.fwd_actuation(m, d)
  elif stage == 17:
    for _ in range(n):
      forward.fwd_acceleration(m, d)
  elif stage == 18:
    for _ in range(n):
      solver.solve(m, d)
  elif stage == 19:
    for _ in range(n):
      sensor.sensor_pos(m, d)
  elif stage == 20:
    for _ in range(n):
      sensor.sensor_vel(m, d)
  elif stage == 21:
    for _ in range(n):
      sensor.sensor_acc(m, d)
  elif stage == 22:
    for _ in range(n):
      _restore(live, saved)
      forward.integrate(m, d, narrow)
  elif stage == STEP:
    for _ in range(n):
      _restore(live, saved)
      forward.step(m, d, 1, narrow)


@njit
def mujoco_loop(m, d, integrator, stage, n, live, saved, qfrc_bias):
  """``n`` calls of MuJoCo's ``stage`` on mjModel* ``m``, mjData* ``d`` (addresses; live: views of d's state)."""
  if stage == EMPTY:
    pass
  elif stage == RESTORE:
    for _ in range(n):
      _restore(live, saved)
  elif stage == ENTRY:
    for _ in range(n):
      mj_flex(m, d)
  elif stage == 2:
    for _ in range(n):
      mj_kinematics(m, d)
  elif stage == 3:
    for _ in range(n):
      mj_comPos(m, d)
  elif stage == 4:
    for _ in range(n):
      mj_camlight(m, d)
  elif stage == 5:
    for _ in range(n):
      mj_tendon(m, d)
  elif stage == 6:
    for _ in range(n):
      mj_makeM(m, d)
  elif stage == 7:
    for _ in range(n):
      mj_factorM(m, d)
  elif stage == 8:
    for _ in range(n):
      mj_collision(m, d)
  elif stage == 9:
    for _ in range(n):
      mj_makeConstraint(m, d)
      mj_island(m, d)
      mj_projectConstraint(m, d)
  elif stage == 10:
    for _ in range(n):
      mj_transmission(m, d)
  elif stage == 12:
    for _ in range(n):
      mj_comVel(m, d)
  elif stage == 13:
    for _ in range(n):
      mj_passive(m, d)
  elif stage == 14:
    for _ in range(n):
      mj_referenceConstraint(m, d)
  elif stage == 15:
    for _ in range(n):
      mj_rne(m, d, 0, qfrc_bias)
  elif stage == 16:
    for _ in range(n):
      mj_fwdActuation(m, d)
  elif stage == 17:
    for _ in range(n):
      mj_fwdAcceleration(m, d)
  elif stage == 18:
    for _ in range(n):
      mj_fwdConstraint(m, d)
  elif stage == 19:
    for _ in range(n):
      mj_sensorPos(m, d)
  elif stage == 20:
    for _ in range(n):
      mj_sensorVel(m, d)
  elif stage == 21:
    for _ in range(n):
      mj_sensorAcc(m, d)
  elif stage == 22:
    for _ in range(n):
      _restore(live, saved)
      if integrator == 1:
        mj_RungeKutta(m, d, 4)
      elif integrator == 2 or integrator == 3:
        mj_implicit(m, d)
      else:
        mj_Euler(m, d)
  elif stage == STEP:
    for _ in range(n):
      _restore(live, saved)
      mj_step(m, d)


# ---------------------------------------------------------------------------------------------------------------


class Engine:
  """One engine at one model: ``time(stage, n)`` runs its timing loop once and returns the seconds."""

  def __init__(self, loop, args_before, live, args_after=()):
    self.loop, self.args_before, self.live, self.args_after = loop, args_before, live, args_after
    self.saved = tuple(a.copy() for a in live)

  def save(self):
    """Takes the current state as the one restoring stages go back to."""
    self.saved = tuple(a.copy() for a in self.live)

  def time(self, stage, n):
    t0 = time.perf_counter()
    self.loop(*self.args_before, stage, n, self.live, self.saved, *self.args_after)
    return time.perf_counter() - t0

  def calls_for(self, stage, seconds):
    """A call count for which a loop over ``stage`` takes about ``seconds``."""
    n = 1
    while True:
      t = min(self.time(stage, n), self.time(stage, n))
      if t > seconds / 8 or n >= 1 << 24:
        return max(1, int(n * seconds / max(t, 1e-9)))
      n *= 4

  def stage_seconds(self, stage, n, repeats):
    """(best T(n) - best T_baseline(n)) / n: seconds of one call of ``stage``."""
    base = RESTORE if stage in _RESTORING else EMPTY
    t = min(self.time(stage, n) for _ in range(repeats))
    t0 = min(self.time(base, n) for _ in range(repeats))
    return (t - t0) / n


def make_engines(path):
  mjm = mujoco.MjModel.from_xml_path(path)
  if mjm.opt.integrator not in (0, 1, 2, 3):  # mujoco_loop's integrator row knows Euler, RK4, implicit(fast)
    raise ValueError(f"integrator {integrator_name(mjm)} is not profiled")
  mjd = mujoco.MjData(mjm)
  m = physics.MjModel.from_xml_path(path)
  d = physics.MjData(m)
  forward.prepare(m)  # lazy kernels this model needs (RK4, PGS, tendons, ...)
  narrow = driver.narrow_all if m.needs_ccd else driver.narrow_closed_form
  state = ("qpos", "qvel", "act", "qacc", "qacc_warmstart")
  # pylint: disable=protected-access
  ours = Engine(mjgym_loop, (m._struct, d._struct, narrow), tuple(getattr(d, f) for f in state))
  theirs = Engine(mujoco_loop, (mjm._address, mjd._address, int(mjm.opt.integrator)),
                  tuple(getattr(mjd, f) for f in state), (mjd.qfrc_bias.ctypes.data,))
  return mjm, mjd, m, d, ours, theirs


def sample_states(mjm, frame_skip, nstate, warmup, seed):
  """``nstate`` states (qpos, qvel, act, ctrl, qacc_warmstart) of a MuJoCo trajectory under random controls."""
  d = mujoco.MjData(mjm)
  stride = max(1, warmup // max(1, nstate))
  controls = random_controls(mjm, 1, warmup + nstate * stride, seed)[0]
  states = []
  for k, u in enumerate(controls):
    d.ctrl[:] = u
    mujoco.mj_step(mjm, d, frame_skip)
    if k >= warmup and (k - warmup) % stride == 0 and len(states) < nstate:
      states.append(tuple(a.copy() for a in (d.qpos, d.qvel, d.act, d.ctrl, d.qacc_warmstart)))
  return states


def set_state(state, mjm, mjd, m, d):
  """Both engines at ``state``, forwarded."""
  for data in (mjd, d):
    for name, value in zip(("qpos", "qvel", "act", "ctrl", "qacc_warmstart"), state):
      getattr(data, name)[:] = value
  mujoco.mj_forward(mjm, mjd)
  physics.mj_forward(m, d)


def profile(name, nstate, warmup, target, repeats, seed=0):
  """Per-stage µs of both engines for model ``name``, and counts; prints progress."""
  path, frame_skip = gymnasium_task(name)
  mjm, mjd, m, d, ours, theirs = make_engines(path)
  stages = [s for s in STAGES if s[0] != "tendon" or mjm.ntendon > 0] + [("whole step", STEP, True)]
  t0 = time.perf_counter()
  ours.time(EMPTY, 1)  # compiles the timing loops (a few seconds, once per process and collider tier)
  theirs.time(EMPTY, 1)
  log(f"{name}: timing loops ready ({time.perf_counter() - t0:.1f} s)")
  sums = {key: {s[0]: 0.0 for s in stages} for key in ("ours", "theirs")}
  counts = np.zeros(4)
  entry = [0.0, 0.0]
  states = sample_states(mjm, frame_skip, nstate, warmup, seed)
  for i, state in enumerate(states):
    set_state(state, mjm, mjd, m, d)
    counts += (d.ncon, mjd.ncon, d.nefc, mjd.nefc)
    ours.save()
    theirs.save()
    for k, engine in enumerate((ours, theirs)):
      entry[k] += engine.stage_seconds(ENTRY, engine.calls_for(ENTRY, target), repeats)
    for stage_name, stage, mujoco_has in stages:
      for key, engine in (("ours", ours), ("theirs", theirs)):
        if key == "theirs" and not mujoco_has:
          sums[key][stage_name] = None
          continue
        n = engine.calls_for(stage, target)
        sums[key][stage_name] += engine.stage_seconds(stage, n, repeats)
    log(f"{name}: state {i + 1}/{len(states)} done (contacts mjgym {d.ncon} / MuJoCo {mjd.ncon}, "
        f"constraint rows {d.nefc} / {mjd.nefc})")
  us = {key: {k: (None if v is None else v / len(states) * 1e6) for k, v in sums[key].items()} for key in sums}
  info = dict(integrator=integrator_name(mjm), solver=mujoco.mjtSolver(mjm.opt.solver).name.removeprefix("mjSOL_"),
              nv=mjm.nv, frame_skip=frame_skip, states=len(states), counts=counts / len(states),
              entry_ns=[e / len(states) * 1e9 for e in entry])
  return us, info


def print_table(name, us, info):
  ours, theirs = us["ours"], us["theirs"]
  step_ours, step_theirs = ours.pop("whole step"), theirs.pop("whole step")
  ncon_o, ncon_t, nefc_o, nefc_t = info["counts"]
  print(f"\n### {name} ({info['integrator']}, {info['solver']}, nv={info['nv']}; mean over {info['states']} states: "
        f"contacts mjgym {ncon_o:.1f} / MuJoCo {ncon_t:.1f}, constraint rows {nefc_o:.1f} / {nefc_t:.1f})\n")
  print(f"A call of an entry point with nothing to do: mjgym {info['entry_ns'][0]:.1f} ns (forward.run, 0 steps), "
        f"MuJoCo {info['entry_ns'][1]:.1f} ns (mj_flex).\n")
  print("| stage | mjgym µs | MuJoCo µs | ratio | share of mjgym's step |")
  print("|---|---:|---:|---:|---:|")

  def gap(stage):
    return ours[stage] - (theirs[stage] or 0.0)

  def fmt(x):
    return "n/a" if x is None else f"{x:.3f}"

  def ratio(a, b):  # none where either figure is within noise of zero
    return "–" if b is None or min(a, b) < 0.005 else f"{a / b:.2f}"

  for stage in sorted(ours, key=gap, reverse=True):
    print(f"| {stage} | {fmt(ours[stage])} | {fmt(theirs[stage])} | {ratio(ours[stage], theirs[stage])} | "
          f"{100 * ours[stage] / step_ours:.1f}% |")
  sum_ours = sum(ours.values())
  sum_theirs = sum(v for v in theirs.values() if v is not None)
  print(f"| **stage sum** | {sum_ours:.3f} | {sum_theirs:.3f} | {ratio(sum_ours, sum_theirs)} | "
        f"{100 * sum_ours / step_ours:.1f}% |")
  print(f"| **whole step** (mj_step) | {step_ours:.3f} | {step_theirs:.3f} | {ratio(step_ours, step_theirs)} | 100% |")
  for engine, total, step in (("mjgym", sum_ours, step_ours), ("MuJoCo", sum_theirs, step_theirs)):
    if abs(total / step - 1) > 0.2:
      print(f"\nWARNING: {engine}'s stage sum ({total:.2f} µs) is {100 * (total / step - 1):+.0f}% off its whole "
            f"step ({step:.2f} µs): noise, or work outside the timed stages")


def main():
  parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
  parser.add_argument("--models", nargs="+", choices=list(MODELS), default=["hopper", "ant", "humanoid"],
                      metavar="MODEL", help="Gymnasium models (default: hopper ant humanoid; any of "
                      f"{', '.join(MODELS)})")
  parser.add_argument("--states", type=int, help="states sampled from the trajectory (default 8; --quick 2)")
  parser.add_argument("--warmup", type=int, default=50, help="control periods before the first sample (default "
                      "50; samples follow every warmup / states periods)")
  parser.add_argument("--target-ms", type=float, help="duration of one timing loop (default 20; --quick 2)")
  parser.add_argument("--repeats", type=int, help="runs of each loop, best kept (default 3; --quick 2)")
  parser.add_argument("--quick", action="store_true", help="2 states, 2 ms loops, best of 2")
  args = parser.parse_args()
  nstate = args.states or (2 if args.quick else 8)
  target = (args.target_ms or (2.0 if args.quick else 20.0)) / 1e3
  repeats = args.repeats or (2 if args.quick else 3)
  if nstate < 1 or repeats < 1 or target <= 0 or args.warmup < 0:
    parser.error("--states and --repeats must be at least 1, --target-ms positive, --warmup not negative")
  numba.set_num_threads(1)
  print(f"Per-stage profile, µs per call (one world, one thread; mujoco {mujoco.__version__} through ctypes, "
        f"numba {numba.__version__}); {nstate} states, loops of ~{target * 1e3:g} ms, best of {repeats}; "
        f"load average at start {', '.join(f'{x:.2f}' for x in os.getloadavg())}")
  print("Rows sorted by the gap (mjgym µs - MuJoCo µs), biggest first; share = stage / mjgym's whole step.")
  for name in args.models:
    us, info = profile(name, nstate, args.warmup, target, repeats)
    print_table(name, us, info)
    sys.stdout.flush()
  print(f"\nLoad average at the end: {', '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
  main()
