"""Compile-time constants that need the model's kinematics at its reference configurations.

The counterpart of MuJoCo's mj_setConst for what depends on tendons and transmissions: spring lengths of
spatial tendons (at qpos_spring), tendon_length0, actuator_length0, actuator_acc0, position gains given as
damping ratios; and the actuator length ranges found by simulation (``lengthrange``).
"""

import math

import numpy as np
from numba import njit

from mjgym.physics import forward
from mjgym.physics import smooth
from mjgym.physics.mjcf.errors import fail
from mjgym.physics.types import BiasType
from mjgym.physics.types import DisableBit
from mjgym.physics.types import GainType
from mjgym.physics.types import MINVAL

# dofs of each joint type (free, ball, slide, hinge)
_JOINT_NV = (6, 3, 1, 1)
# What the length-range simulation leaves out (Modeling chapter, "Length range"): contacts, passive forces,
# gravity, friction loss and the actuators' own forces. Joint and tendon limits (and equalities) stay.
_LENGTHRANGE_DISABLE = int(DisableBit.CONTACT | DisableBit.SPRING | DisableBit.DAMPER | DisableBit.GRAVITY
                           | DisableBit.FRICTIONLOSS | DisableBit.ACTUATION)


def set_const(m):
  """Fills the constants of ``m`` (an MjModel fresh from the compiler) in place."""
  from mjgym.physics.containers import MjData  # pylint: disable=import-outside-toplevel
  if m.ntendon == 0 and m.nu == 0:
    return
  d = MjData(m)
  pending = [t for t in range(m.ntendon) if np.all(m.tendon_lengthspring[t] == -1.0)]
  if pending:
    d.qpos[:] = m.qpos_spring
    _position(m, d)
    for t in pending:
      m.tendon_lengthspring[t] = d.ten_length[t]
  d.qpos[:] = m.qpos0
  # MuJoCo's constants come from the smooth position stages alone, without collision: an adhesion actuator (body
  # transmission, moment from contacts) therefore has no moment here and acc0 = 0
  flags = int(m.opt.disableflags)
  m.opt.disableflags = flags | int(DisableBit.CONTACT)
  try:
    _position(m, d)
  finally:
    m.opt.disableflags = flags
  m.tendon_length0[:] = d.ten_length
  m.actuator_length0[:] = d.actuator_length
  x = np.zeros(m.nv)
  for i in range(m.nu):
    moment = np.ascontiguousarray(d.actuator_moment[i])
    smooth.solve_m(m._struct, d._struct, x, moment)
    m.actuator_acc0[i] = np.linalg.norm(x)
    if _is_dampratio(m, i):
      m.actuator_biasprm[i, 2] = -_damping_from_ratio(m, d, i)


def spring_damper(m, jobs):
  """Joint stiffness and damping from springdamper (timeconst, dampratio), as MuJoCo after mj_setConst: a
  spring-damper of that time constant and damping ratio on the joint's mean inertia at qpos0, 1 / dof_invweight0
  averaged over its dofs (the way solref turns into impedance)."""
  for j, timeconst, dampratio in jobs:
    adr, ndim = m.jnt_dofadr[j], _JOINT_NV[int(m.jnt_type[j])]
    inertia = ndim / max(MINVAL, sum(float(w) for w in m.dof_invweight0[adr:adr + ndim]))
    m.jnt_stiffness[j] = inertia / max(MINVAL, timeconst * timeconst * dampratio * dampratio)
    m.dof_damping[adr:adr + ndim] = 2 * inertia / max(MINVAL, timeconst)


def _position(m, d):
  forward.entry(m)(m._struct, d._struct, forward.OP_POSITION, 0)


def _is_dampratio(m, i):
  """Position-like actuators store a damping ratio as a positive biasprm[2] until it is converted here."""
  return (m.actuator_gaintype[i] == GainType.FIXED and m.actuator_biastype[i] == BiasType.AFFINE
          and m.actuator_biasprm[i, 2] > 0 and m.actuator_gainprm[i, 0] == -m.actuator_biasprm[i, 1])


def _damping_from_ratio(m, d, i):
  """kv = dampratio * 2 sqrt(kp * reflected inertia), the inertia seen through the transmission at qpos0.

  Each dof the actuator moves contributes moment² / dof_invweight0 (its inverse-inertia weight at qpos0).
  """
  moment = d.actuator_moment[i]
  used = moment != 0
  mass = np.sum(moment[used] ** 2 / m.dof_invweight0[used])
  return m.actuator_biasprm[i, 2] * 2.0 * np.sqrt(m.actuator_gainprm[i, 0] * mass)


def lengthrange(m, jobs, settings):
  """actuator_lengthrange of the actuators in ``jobs`` ((id, element) pairs), found by simulation.

  As the Modeling chapter ("Length range") and <compiler><lengthrange> describe it: for each actuator and
  direction, start at qpos0 at rest and push the transmission with a force that gives a joint-space
  acceleration of norm ``accel`` (its norm capped at ``maxforce`` if positive), with contacts, passive
  forces, gravity, friction loss and actuator forces off, damping the motion by scaling qvel by
  exp(-timestep / timeconst) after every step. After ``inttotal`` seconds the shortest (then the longest)
  length of the last ``interval`` seconds is the range's end; if the lengths of that interval still spread
  over more than ``tolrange`` of the range, the simulation did not settle and loading fails.
  """
  if not jobs:
    return
  from mjgym.physics.containers import MjData  # pylint: disable=import-outside-toplevel
  dt = settings["timestep"] if settings["timestep"] > 0 else float(m.opt.timestep)
  nstep = max(1, int(settings["inttotal"] / dt + 1e-9))
  nrec = min(nstep, max(1, int(settings["interval"] / dt + 1e-9)))
  saved = float(m.opt.timestep), int(m.opt.disableflags)
  m.opt.timestep = dt
  m.opt.disableflags = saved[1] | _LENGTHRANGE_DISABLE
  try:
    d = MjData(m)
    lengths = np.zeros(nstep)
    scratch = np.zeros(m.nv)
    for i, node in jobs:
      ends, spread = [0.0, 0.0], [0.0, 0.0]
      for side, sign in enumerate((-1.0, 1.0)):
        _push(m, d, i, sign, settings["accel"], settings["maxforce"],
              math.exp(-dt / settings["timeconst"]), lengths, scratch)
        last = lengths[nstep - nrec:]
        ends[side] = float(last.min() if side == 0 else last.max())
        spread[side] = float(last.max() - last.min())
      if not ends[0] < ends[1]:
        fail(node, f"the simulated length range ({ends[0]:g}, {ends[1]:g}) is empty: the transmission does not "
             "move when pushed from qpos0; give 'lengthrange'", "lengthrange")
      if max(spread) > settings["tolrange"] * (ends[1] - ends[0]):
        fail(node, f"the length-range simulation did not settle: the lengths of its last interval spread over "
             f"({spread[0]:g}, {spread[1]:g}) of the range ({ends[0]:g}, {ends[1]:g}), more than tolrange "
             f"{settings['tolrange']:g}; limit the joints or tendons it moves, tune <compiler><lengthrange>, or "
             "give 'lengthrange'", "lengthrange")
      m.actuator_lengthrange[i] = ends
  finally:
    m.opt.timestep, m.opt.disableflags = saved


def _push(m, d, i, sign, accel, maxforce, decay, lengths, x):
  """One length-range run from qpos0: lengths[k] = actuator i's length before step k.

  A Python loop over the engine's compiled entry point: a compiled loop calling the position stage and the
  step would carry a second copy of the whole pipeline's machine code for this rarely used procedure.
  """
  run = forward.entry(m)
  ms, ds = m._struct, d._struct
  run(ms, ds, forward.OP_RESET, 0)
  for k in range(lengths.shape[0]):
    run(ms, ds, forward.OP_POSITION, 0)
    _push_force(ms, ds, i, sign, accel, maxforce, x)
    run(ms, ds, forward.OP_STEP, 1)
    d.qvel *= decay
    lengths[k] = d.actuator_length[i]


@njit(cache=True, error_model="numpy")
def _push_force(m, d, i, sign, accel, maxforce, x):
  """qfrc_applied = the push along actuator i's moment that accelerates the joints by ``accel`` (capped)."""
  nv = m.nv
  moment = d.actuator_moment[i]
  smooth.solve_m(m, d, x, moment)
  xnorm = 0.0
  mnorm = 0.0
  for j in range(nv):
    xnorm += x[j] * x[j]
    mnorm += moment[j] * moment[j]
  xnorm = math.sqrt(xnorm)
  mnorm = math.sqrt(mnorm)
  force = accel / xnorm if xnorm > MINVAL else 0.0
  if maxforce > 0.0 and force * mnorm > maxforce:
    force = maxforce / mnorm
  for j in range(nv):
    d.qfrc_applied[j] = sign * force * moment[j]
