"""Helpers of the constraint and solver oracle tests: MuJoCo's contacts copied into our Data, staged forward, states
with contacts that MuJoCo reached."""

import functools

import mujoco
import numpy as np

import oracle
from mjgym import physics
from mjgym.physics import constraint
from mjgym.physics import forward
from mjgym.physics import smooth

# Contact fields of our Data and the attribute of MuJoCo's d.contact they come from.
_CONTACT_FIELDS = ("dist", "pos", "frame", "includemargin", "friction", "solref", "solreffriction", "solimp",
                   "mu", "dim", "geom1", "geom2", "exclude")
_WARMSTART = int(mujoco.mjtDisableBit.mjDSBL_WARMSTART)


def copy_contacts(mjd, d):
  """d.contact_* = MuJoCo's contacts (the test's stand-in for our collision stage)."""
  n = mjd.ncon
  assert n <= d.contact_dist.shape[0], "raise nconmax for this test"
  d.ncon = n
  for name in _CONTACT_FIELDS:
    src = getattr(mjd.contact, name)
    getattr(d, "contact_" + name)[:n] = np.reshape(src, getattr(d, "contact_" + name)[:n].shape)


def forward_given_contacts(m, d, mjd):
  """mj_forward with MuJoCo's contacts in place of ours (needs the state copied first): the engine's position stage,
  then MuJoCo's contacts copied in and the two position stages that read contacts (constraint rows, the adhesion
  transmission) run again, then the engine's velocity and acceleration stages."""
  ms, ds = m._struct, d._struct  # pylint: disable=protected-access
  forward.entry(m)(ms, ds, forward.OP_POSITION, 0)  # entry prepares the lazy kernels the later stages reach
  copy_contacts(mjd, d)
  constraint.make_constraint(ms, ds)
  smooth.transmission(ms, ds)
  forward.fwd_velocity(ms, ds)
  forward._forward_acceleration(ms, ds, False)  # pylint: disable=protected-access


def rollout_states(mjm, nstate, nskip, seed=0, ctrl_scale=1.0, kick=0.0):
  """States (qpos, qvel, act, ctrl, qacc_warmstart) visited by MuJoCo under random controls.

  ``kick`` scales a random initial velocity, for models without actuators.
  """
  rng = np.random.default_rng(seed)
  mjd = mujoco.MjData(mjm)
  if mjm.nkey:
    mujoco.mj_resetDataKeyframe(mjm, mjd, 0)
  mjd.qvel[:] = kick * rng.normal(size=mjm.nv)
  states = []
  lo, hi = (mjm.actuator_ctrlrange.T if mjm.nu else (np.zeros(0), np.zeros(0)))
  for _ in range(nstate):
    for _ in range(nskip):
      ctrl = rng.uniform(-1, 1, mjm.nu) * ctrl_scale
      mjd.ctrl[:] = np.where(hi > lo, lo + (ctrl + 1) * 0.5 * (hi - lo), ctrl)
      mujoco.mj_step(mjm, mjd)
    states.append((mjd.qpos.copy(), mjd.qvel.copy(), mjd.act.copy(), mjd.ctrl.copy(), mjd.qacc_warmstart.copy()))
  return states


def load_state(mjm, mjd, d, state):
  """Puts one rollout state into MuJoCo's and our Data and runs MuJoCo's forward."""
  qpos, qvel, act, ctrl, warm = state
  for data in (mjd, d):
    data.qpos[:] = qpos
    data.qvel[:] = qvel
    data.act[:] = act
    data.ctrl[:] = ctrl
    data.qacc_warmstart[:] = warm
  mujoco.mj_forward(mjm, mjd)


def efc_compare(m, d, mjd):
  """Max relative differences of the efc quantities and qacc (dict name -> error)."""
  n = mjd.nefc
  out = {"nefc": abs(int(d.nefc) - n)}
  if d.nefc != n:
    return out
  for name, ours, theirs in (("efc_type", d.efc_type[:n], mjd.efc_type), ("efc_id", d.efc_id[:n], mjd.efc_id),
                             ("efc_J", d.efc_J[:n], mjd.efc_J.reshape(n, m.nv)),
                             ("efc_pos", d.efc_pos[:n], mjd.efc_pos), ("efc_margin", d.efc_margin[:n], mjd.efc_margin),
                             ("efc_diagA", d.efc_diagA[:n], mjd.efc_diagA), ("efc_R", d.efc_R[:n], mjd.efc_R),
                             ("efc_D", d.efc_D[:n], mjd.efc_D), ("efc_aref", d.efc_aref[:n], mjd.efc_aref),
                             ("efc_vel", d.efc_vel[:n], mjd.efc_vel),
                             ("efc_frictionloss", d.efc_frictionloss[:n], mjd.efc_frictionloss),
                             ("efc_force", d.efc_force[:n], mjd.efc_force), ("qacc", d.qacc, mjd.qacc),
                             ("qfrc_constraint", d.qfrc_constraint, mjd.qfrc_constraint)):
    ours = np.asarray(ours, float)
    theirs = np.asarray(theirs, float)
    scale = max(1.0, float(np.max(np.abs(theirs)))) if theirs.size else 1.0
    out[name] = float(np.max(np.abs(ours - theirs))) / scale if theirs.size else 0.0
  return out


@functools.lru_cache(maxsize=None)
def contact_state(path, nstep):
  """(qpos, qvel, ctrl, qacc_warmstart) after nstep MuJoCo steps of seeded random controls."""
  mjm = mujoco.MjModel.from_xml_path(str(path))
  mjd = mujoco.MjData(mjm)
  rng = np.random.default_rng(0)
  for _ in range(nstep):
    mjd.ctrl[:] = rng.uniform(-1, 1, mjm.nu)
    mujoco.mj_step(mjm, mjd)
  assert mjd.ncon > 0
  return mjd.qpos.copy(), mjd.qvel.copy(), mjd.ctrl.copy(), mjd.qacc_warmstart.copy()


def forward_at_contact_state(path, nstep, warmstart=True, **options):
  """((mjm, mjd), (m, d)): both engines forwarded at ``contact_state(path, nstep)`` with ``options``
  (``oracle.set_options``), the warm start on or off."""
  mjm, m = oracle.models(path, **options)
  for model in (mjm, m):
    model.opt.disableflags = (int(model.opt.disableflags) & ~_WARMSTART) | (0 if warmstart else _WARMSTART)
  mjd, d = mujoco.MjData(mjm), physics.MjData(m)
  qpos, qvel, ctrl, warm = contact_state(path, nstep)
  for data in (mjd, d):
    data.qpos[:], data.qvel[:], data.ctrl[:], data.qacc_warmstart[:] = qpos, qvel, ctrl, warm
  mujoco.mj_forward(mjm, mjd)
  physics.mj_forward(m, d)
  return (mjm, mjd), (m, d)
