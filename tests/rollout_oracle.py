"""Rollout oracle: how soon, and by how much, our engine leaves MuJoCo's trajectory on any MJCF.

    python -m tests.rollout_oracle MODEL [MODEL ...] [--steps 500] [--seed 0] [--noise 0.01]
                                   [--solver PGS|CG|Newton] [--integrator Euler|RK4|implicit|implicitfast]

MODEL is an MJCF path or the bare name of one of Gymnasium's MuJoCo models (``humanoid``). Both engines start
from qpos0 and rest plus the same seeded noise (uniform within ±noise on every qpos and qvel, quaternions
renormalized by MuJoCo) and get the same seeded controls (uniform within ctrlrange, within ±1 where an actuator has
none). Per model it reports:

- free rollout: both engines step on their own; the first step after which qpos differs by more than 1e-6.
- one-step error: MuJoCo steps on its own; before each of its steps our Data takes MuJoCo's integration state
  (mjSTATE_INTEGRATION: time, qpos, qvel, act, qacc_warmstart, ctrl, applied forces, eq_active, mocap poses) and
  steps once too. The largest |qpos| and |qvel| difference after the step and the step where it happened; MuJoCo's
  most contacts at one step, and at how many steps the contact count, the contacts' geom pairs in order, or the
  constraint count differed; how often MuJoCo itself diverged and reset (its warnings), after which the errors
  mean little. Parts of that state our Data does not hold (history buffers, userdata, plugin or plastic state) are
  named in the report.

Steps are counted from 1 (step 1 is the first ``mj_step``).
"""

import argparse
import pathlib
import sys
import time

import mujoco
import numpy as np

from mjgym import physics

# Run as ``python -m tests.rollout_oracle`` the tests directory is not on the path the test helpers expect.
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import oracle  # pylint: disable=wrong-import-position

# A qpos difference beyond this counts as having left MuJoCo's trajectory.
DIVERGED = 1e-6

# MuJoCo's integration state, part by part (mjtState bits), and the Data field holding each part in both engines.
_STATE = (("TIME", "time"), ("QPOS", "qpos"), ("QVEL", "qvel"), ("ACT", "act"), ("WARMSTART", "qacc_warmstart"),
          ("CTRL", "ctrl"), ("QFRC_APPLIED", "qfrc_applied"), ("XFRC_APPLIED", "xfrc_applied"),
          ("EQ_ACTIVE", "eq_active"), ("MOCAP_POS", "mocap_pos"), ("MOCAP_QUAT", "mocap_quat"))
# MuJoCo's warnings of a diverged simulation, after which it resets the data.
_UNSTABLE = (mujoco.mjtWarning.mjWARN_BADQPOS, mujoco.mjtWarning.mjWARN_BADQVEL, mujoco.mjtWarning.mjWARN_BADQACC)
_SOLVERS = ("PGS", "CG", "Newton")
_INTEGRATORS = ("Euler", "RK4", "implicit", "implicitfast")


def resolve(model):
  """Path of an MJCF given as a path, or as the bare name of a Gymnasium MuJoCo model."""
  path = pathlib.Path(model)
  if path.is_file():
    return path
  if path.suffix == "" and path.parent == pathlib.Path("."):
    asset = oracle.gym_asset(model)
    if asset.is_file():
      return asset
  raise FileNotFoundError(f"{model!r} is neither an MJCF file nor a Gymnasium MuJoCo model name")


def _label(model, path):
  """A model's name in the report: a Gymnasium name as given, a file as its folder and stem (assets/hopper)."""
  return model if str(model) == path.stem else f"{path.parent.name}/{path.stem}"


def state_not_copied(mjm):
  """Parts of MuJoCo's integration state that this model has and our Data does not hold."""
  copied = {name for name, _ in _STATE}
  integration = int(mujoco.mjtState.mjSTATE_INTEGRATION)
  parts = []
  for name, bit in mujoco.mjtState.__members__.items():
    value = int(bit)
    if value & (value - 1) or not value & integration:
      continue  # not a single part of the integration state
    name = name[len("mjSTATE_"):]
    if name not in copied and mujoco.mj_stateSize(mjm, value) > 0:
      parts.append(name)
  return parts


def _copy_state(mjd, d):
  for _, field in _STATE:
    setattr(d, field, getattr(mjd, field))


def _start(mjm, mjd, d, qpos, qvel):
  mujoco.mj_resetData(mjm, mjd)
  physics.mj_resetData(d.model, d)
  for data in (mjd, d):
    data.qpos[:] = qpos
    data.qvel[:] = qvel


def _geom_pairs(geom1, geom2, n):
  return list(zip(np.asarray(geom1[:n]).tolist(), np.asarray(geom2[:n]).tolist()))


def compare(model, steps=500, seed=0, noise=0.01, solver=None, integrator=None):
  """Both rollouts of one model (path or Gymnasium name); the report as a dict (see the module docstring)."""
  path = resolve(model)
  t0 = time.perf_counter()
  mjm, mjd, m, d = oracle.load_both(path, solver=solver, integrator=integrator)

  rng = np.random.default_rng(seed)
  qpos = mjm.qpos0 + rng.uniform(-noise, noise, mjm.nq)
  mujoco.mj_normalizeQuat(mjm, qpos)
  qvel = rng.uniform(-noise, noise, mjm.nv)
  limited = mjm.actuator_ctrllimited.astype(bool)
  lo = np.where(limited, mjm.actuator_ctrlrange[:, 0], -1.0)
  hi = np.where(limited, mjm.actuator_ctrlrange[:, 1], 1.0)
  ctrl = rng.uniform(lo, hi, (steps, mjm.nu))

  first = None
  _start(mjm, mjd, d, qpos, qvel)
  for t in range(steps):
    mjd.ctrl[:] = d.ctrl[:] = ctrl[t]
    mujoco.mj_step(mjm, mjd)
    physics.mj_step(m, d)
    if not np.abs(d.qpos - mjd.qpos).max(initial=0.0) <= DIVERGED:  # NaN counts as diverged
      first = t + 1
      break

  worst_qpos = worst_qvel = 0.0
  at_qpos = at_qvel = 0
  ncon_off = nefc_off = order_off = ncon_max = 0
  _start(mjm, mjd, d, qpos, qvel)
  for t in range(steps):
    mjd.ctrl[:] = ctrl[t]
    _copy_state(mjd, d)
    mujoco.mj_step(mjm, mjd)
    physics.mj_step(m, d)
    # Both steps began from the same state: the contacts and rows are those of that state.
    err_qpos = np.abs(d.qpos - mjd.qpos).max(initial=0.0)
    err_qvel = np.abs(d.qvel - mjd.qvel).max(initial=0.0)
    if not err_qpos <= worst_qpos:
      worst_qpos, at_qpos = err_qpos, t + 1
    if not err_qvel <= worst_qvel:
      worst_qvel, at_qvel = err_qvel, t + 1
    ncon_max = max(ncon_max, mjd.ncon)
    ncon = int(d.ncon)
    if ncon != mjd.ncon:
      ncon_off += 1
    elif (_geom_pairs(d.contact_geom1, d.contact_geom2, ncon)
          != _geom_pairs(mjd.contact.geom1, mjd.contact.geom2, ncon)):
      order_off += 1
    nefc_off += int(d.nefc) != mjd.nefc
  # MuJoCo's own divergence resets: at such a step ours is compared with a state MuJoCo restarted from qpos0.
  resets = sum(int(mjd.warning[int(w)].number) for w in _UNSTABLE)

  return dict(model=_label(model, path), nv=mjm.nv, solver=mujoco.mjtSolver(mjm.opt.solver).name[len("mjSOL_"):],
              integrator=mujoco.mjtIntegrator(mjm.opt.integrator).name[len("mjINT_"):], steps=steps,
              first_divergence=first, onestep_qpos=float(worst_qpos), onestep_qpos_step=at_qpos,
              onestep_qvel=float(worst_qvel), onestep_qvel_step=at_qvel, ncon_max=ncon_max, ncon_mismatch=ncon_off,
              order_mismatch=order_off, nefc_mismatch=nefc_off, mujoco_resets=resets,
              state_not_copied=state_not_copied(mjm),
              seconds=time.perf_counter() - t0)


_HEADER = (f"{'model':29s} {'nv':>3s} {'solver':>6s} {'integrator':>12s} {'qpos > 1e-6 at':>15s} "
           f"{'1-step |dqpos| (step)':>22s} {'1-step |dqvel| (step)':>22s} {'ncon':>4s} {'ncon!=':>6s} {'order!=':>7s} "
           f"{'nefc!=':>6s} {'mj resets':>9s} {'s':>5s}  not copied")


def _row(r):
  if "error" in r:
    return f"{r['model']:29s} error: {r['error']}"
  first = f"none in {r['steps']}" if r["first_divergence"] is None else f"step {r['first_divergence']}"
  return (f"{r['model']:29s} {r['nv']:3d} {r['solver']:>6s} {r['integrator']:>12s} {first:>15s} "
          f"{r['onestep_qpos']:14.2e} ({r['onestep_qpos_step']:4d}) "
          f"{r['onestep_qvel']:14.2e} ({r['onestep_qvel_step']:4d}) {r['ncon_max']:4d} {r['ncon_mismatch']:6d} "
          f"{r['order_mismatch']:7d} {r['nefc_mismatch']:6d} {r['mujoco_resets']:9d} {r['seconds']:5.1f}  "
          f"{' '.join(r['state_not_copied']) or '-'}")


def table(reports):
  """The reports as a text table, one row per model."""
  return "\n".join([_HEADER, "-" * len(_HEADER)] + [_row(r) for r in reports])


def main(argv=None):
  parser = argparse.ArgumentParser(prog="python -m tests.rollout_oracle", description=__doc__.split("\n")[0])
  parser.add_argument("models", nargs="+", metavar="MODEL", help="MJCF path or Gymnasium model name (humanoid)")
  parser.add_argument("--steps", type=int, default=500)
  parser.add_argument("--seed", type=int, default=0)
  parser.add_argument("--noise", type=float, default=0.01, help="half-width of the uniform start noise")
  parser.add_argument("--solver", choices=sorted(_SOLVERS), help="override the models' solver in both engines")
  parser.add_argument("--integrator", choices=sorted(_INTEGRATORS), help="override the models' integrator")
  args = parser.parse_args(argv)
  print(table([]), flush=True)
  reports = []
  for model in args.models:
    try:
      reports.append(compare(model, args.steps, args.seed, args.noise, args.solver, args.integrator))
    except Exception as e:  # pylint: disable=broad-except
      # One model that either engine cannot load or run must not hide the others' rows.
      reports.append(dict(model=model, error=f"{type(e).__name__}: {e}"))
    print(_row(reports[-1]), flush=True)
  return reports

if __name__ == "__main__":
  main()
