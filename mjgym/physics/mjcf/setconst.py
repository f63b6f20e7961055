"""Compile-time constants that need the model's kinematics at its reference configurations: MuJoCo's mj_setConst.

``set_const`` fills, in mj_setConst's order: the inverse weights at qpos0 (dof, body and tendon invweight0),
stat_meaninertia, the eq_data of connects and welds that the compiler leaves to the kinematics; then spring
lengths of spatial tendons (at qpos_spring), tendon_length0, actuator_length0, actuator_acc0 and position gains
given as damping ratios. ``lengthrange`` finds actuator length ranges by simulation.
"""

import math

import numpy as np
from numba import njit

from mjgym.physics import flex
from mjgym.physics import forward
from mjgym.physics import math as mjmath
from mjgym.physics import smooth
from mjgym.physics import support
from mjgym.physics.containers import MjData
from mjgym.physics.mjcf.errors import fail
from mjgym.physics.types import BiasType
from mjgym.physics.types import DisableBit
from mjgym.physics.types import EqType
from mjgym.physics.types import GainType
from mjgym.physics.types import JointType
from mjgym.physics.types import MINVAL
from mjgym.physics.types import ObjType

# dofs of each joint type (free, ball, slide, hinge)
_JOINT_NV = (6, 3, 1, 1)
# What the length-range simulation leaves out (Modeling chapter, "Length range"): contacts, passive forces,
# gravity, friction loss and the actuators' own forces. Joint and tendon limits (and equalities) stay.
_LENGTHRANGE_DISABLE = int(DisableBit.CONTACT | DisableBit.SPRING | DisableBit.DAMPER | DisableBit.GRAVITY
                           | DisableBit.FRICTIONLOSS | DisableBit.ACTUATION)


def set_const(m):
  """Fills the qpos0 constants of ``m`` (a model fresh from the compiler, or edited) in place, like mj_setConst."""
  data = MjData(m)
  ms, ds = m._struct, data._struct  # pylint: disable=protected-access
  # through the pipeline's entry point, which the model needs anyway: one compiled function to load, not five
  forward.entry(m)(ms, ds, forward.OP_INERTIA, 0)
  _equality_at_qpos0(ms, ds)
  _invweights(ms, ds)
  if m.nflex:
    _flex_constants(m, data)
  # damping ratios below use dof_invweight0
  _transmission_constants(m, data)


def _flex_constants(m, d):
  """flexedge_length0 and flexedge_invweight0 at qpos0: edges between bodies moved by slides alone weigh the mean
  of their inverse masses, others the edge Jacobian's J M⁻¹ Jᵀ."""
  flex.flex_position(m._struct, d._struct)  # pylint: disable=protected-access
  m.flexedge_length0[:] = d.flexedge_length
  # the run-time stage leaves rigid flexes out; MuJoCo 4 still gives their edges their lengths at qpos0
  for f in np.flatnonzero(m.flex_rigid):
    for e in range(m.flex_edgeadr[f], m.flex_edgeadr[f] + m.flex_edgenum[f]):
      p1, p2 = (d.flexvert_xpos[m.flex_vertadr[f] + m.flex_edge[e, k]] for k in range(2))
      dx, dy, dz = p2 - p1
      m.flexedge_length0[e] = math.sqrt(dx * dx + dy * dy + dz * dz)
  x = np.zeros(m.nv)
  for f in range(m.nflex):
    if m.flex_interp[f]:
      continue
    for e in range(m.flex_edgeadr[f], m.flex_edgeadr[f] + m.flex_edgenum[f]):
      b1, b2 = (m.flex_vertbodyid[m.flex_vertadr[f] + m.flex_edge[e, k]] for k in range(2))
      if m.flexedge_rigid[e]:
        m.flexedge_invweight0[e] = 0.0
      elif m.body_simple[b1] == _SIMPLE_SLIDES and m.body_simple[b2] == _SIMPLE_SLIDES:
        m.flexedge_invweight0[e] = (1 / m.body_mass[b1] + 1 / m.body_mass[b2]) / 2
      else:
        row = np.zeros(m.nv)
        adr, nnz = m.flexedge_J_rowadr[e], m.flexedge_J_rownnz[e]
        row[m.flexedge_J_colind[adr:adr + nnz]] = d.flexedge_J[adr:adr + nnz]
        smooth.solve_m(m._struct, d._struct, x, row)  # pylint: disable=protected-access
        m.flexedge_invweight0[e] = float(row @ x)


def _transmission_constants(m, d):
  """Tendon and actuator constants at qpos0 (and spatial tendon spring lengths at qpos_spring), on ``d``, whose
  position stages it reruns at those configurations."""
  if m.ntendon == 0 and m.nu == 0:
    return
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


# body_simple of a body moved by slide joints alone: MuJoCo weighs its constraints by its mass only, armature and
# the coupling of its slides left out (mj_setConst's "simple body" case).
_SIMPLE_SLIDES = 2


@njit(cache=True, error_model="numpy")
def _equality_at_qpos0(m, d):
  """eq_data the compiler leaves to the kinematics at qpos0, as mj_setConst computes it.

  Body connect: data[3:6] = body1's anchor in body2's frame. Body weld flagged in data[11] (no relpose
  given): data[3:6] = body2's anchor in body1's frame, data[6:10] = body2's orientation relative to body1.
  """
  for e in range(m.neq):
    if m.eq_objtype[e] != ObjType.BODY:
      continue
    data = m.eq_data[e]
    if m.eq_type[e] == EqType.CONNECT:
      b, other = m.eq_obj1id[e], m.eq_obj2id[e]
    elif m.eq_type[e] == EqType.WELD and data[11] != 0.0:
      b, other = m.eq_obj2id[e], m.eq_obj1id[e]
      q1 = d.xquat[other]
      rel = mjmath.quat_mul((q1[0], -q1[1], -q1[2], -q1[3]), d.xquat[b])
      for k in range(4):
        data[6 + k] = rel[k]
    else:
      continue
    r = mjmath.mat_vec(d.xmat[b], data[0:3])
    world = (r[0] + d.xpos[b, 0], r[1] + d.xpos[b, 1], r[2] + d.xpos[b, 2])
    local = mjmath.mat_t_vec(d.xmat[other], (world[0] - d.xpos[other, 0], world[1] - d.xpos[other, 1],
                                           world[2] - d.xpos[other, 2]))
    for k in range(3):
      data[3 + k] = local[k]


@njit(cache=True, error_model="numpy")
def _invweights(m, d):
  nv = m.nv
  if nv == 0:
    m.stat_meaninertia[0] = 1.0
    return
  minv = np.zeros((nv, nv))
  col = np.zeros(nv)
  for k in range(nv):
    col[:] = 0.0
    col[k] = 1.0
    smooth.solve_m(m, d, col, col)
    minv[:, k] = col
  trace = 0.0
  for k in range(nv):
    trace += d.qM[m.dof_Madr[k]]
  m.stat_meaninertia[0] = trace / nv
  # dofs: the diagonal of M⁻¹, averaged over the translations / rotations of free and ball joints
  for j in range(m.njnt):
    adr = m.jnt_dofadr[j]
    jtype = m.jnt_type[j]
    if m.body_simple[m.jnt_bodyid[j]] == _SIMPLE_SLIDES:
      m.dof_invweight0[adr] = 1.0 / max(MINVAL, m.body_mass[m.jnt_bodyid[j]])
    elif jtype == JointType.FREE:
      t = (minv[adr, adr] + minv[adr + 1, adr + 1] + minv[adr + 2, adr + 2]) / 3.0
      r = (minv[adr + 3, adr + 3] + minv[adr + 4, adr + 4] + minv[adr + 5, adr + 5]) / 3.0
      for k in range(3):
        m.dof_invweight0[adr + k] = t
        m.dof_invweight0[adr + 3 + k] = r
    elif jtype == JointType.BALL:
      r = (minv[adr, adr] + minv[adr + 1, adr + 1] + minv[adr + 2, adr + 2]) / 3.0
      for k in range(3):
        m.dof_invweight0[adr + k] = r
    else:
      m.dof_invweight0[adr] = minv[adr, adr]
  # bodies: mean diagonal of the translational and rotational blocks of J M⁻¹ Jᵀ at the body's com
  m.body_invweight0[0, 0] = 0.0
  m.body_invweight0[0, 1] = 0.0
  for b in range(1, m.nbody):
    if m.body_dofnum[m.body_weldid[b]] == 0:  # static and mocap bodies
      m.body_invweight0[b, 0] = 0.0
      m.body_invweight0[b, 1] = 0.0
      continue
    if m.body_simple[b] == _SIMPLE_SLIDES:
      m.body_invweight0[b, 0] = 1.0 / max(MINVAL, m.body_mass[b])
      m.body_invweight0[b, 1] = 0.0
      continue
    support.jac(m, d, d.setconst_jacp, d.setconst_jacr, d.xipos[b], b)
    for part in range(2):
      jac = d.setconst_jacp if part == 0 else d.setconst_jacr
      s = 0.0
      for k in range(3):
        for p in range(nv):
          if jac[k, p] == 0.0:
            continue
          for q in range(nv):
            s += jac[k, p] * minv[p, q] * jac[k, q]
      m.body_invweight0[b, part] = s / 3.0
  for t in range(m.ntendon):
    s = 0.0
    for p in range(nv):
      for q in range(nv):
        s += d.ten_J[t, p] * minv[p, q] * d.ten_J[t, q]
    m.tendon_invweight0[t] = s


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
