"""Finite-difference derivatives (MuJoCo's engine_derivative_fd.c): transition Jacobians of mj_step and Jacobians
of inverse dynamics.

The state of a transition is x = (qpos, qvel, act) with qpos in tangent coordinates: a position perturbation
of dimension i is ``mj_integratePos(qpos, e_i, ±eps)`` (a rotation about a local axis for ball and free joints),
and differences of next positions are ``mj_differentiatePos``. As MuJoCo, every perturbed step starts from the
same full integration state (time, physics, controls and applied forces, mocap, warm start), so that the
solver's warm start is the same in all of them.

Beyond MuJoCo's sequential loop, the perturbed steps of ``transition_fd`` are worlds of one ``MjDataBatch``
stepped in one parallel call, for one Data (``mjd_transitionFD``) or for every world of a batch at once
(``transition_fd_batch``); a world's Jacobians are the same numbers either way, since each perturbed world
steps exactly as it would alone.
"""

import numpy as np
from numba import njit

from mjgym.physics import actuation
from mjgym.physics import forward
from mjgym.physics import inverse
from mjgym.physics import math
from mjgym.physics import state
from mjgym.physics.batch import MjDataBatch
from mjgym.physics.constants import JNT_BALL
from mjgym.physics.constants import JNT_FREE
from mjgym.physics.state import State
from mjgym.physics.types import JointType
from mjgym.physics.types import TrnType
from mjgym.physics.types import WrapType

_FULL = int(State.INTEGRATION)


@njit(cache=True, error_model="numpy")
def differentiate_pos(m, qvel, dt, qpos1, qpos2):
  """qvel (nv,) = the velocity that moves qpos1 to qpos2 in time dt (quaternion joints: the local rotation)."""
  for j in range(m.njnt):
    qadr = m.jnt_qposadr[j]
    dadr = m.jnt_dofadr[j]
    jtype = m.jnt_type[j]
    if jtype == JNT_FREE:
      for k in range(3):
        qvel[dadr + k] = (qpos2[qadr + k] - qpos1[qadr + k]) / dt
      qadr += 3
      dadr += 3
    if jtype == JNT_FREE or jtype == JNT_BALL:
      r = math.quat_sub(qpos2[qadr:qadr + 4], qpos1[qadr:qadr + 4])
      for k in range(3):
        qvel[dadr + k] = r[k] / dt
    else:
      qvel[dadr] = (qpos2[qadr] - qpos1[qadr]) / dt


@njit(cache=True, error_model="numpy")
def _state_diff(m, out, x1, x2, h):
  """out (n, 2nv+na) = (x2 - x1) / h per row for physics states (n, nq+nv+na), positions in tangent space."""
  nq, nv, na = m.nq, m.nv, m.na
  inv_h = 1.0 / h
  for w in range(out.shape[0]):
    if nq == nv:
      for k in range(nq + nv + na):
        out[w, k] = inv_h * (x2[w, k] - x1[w, k])
    else:
      differentiate_pos(m, out[w, :nv], h, x1[w, :nq], x2[w, :nq])
      for k in range(nv + na):
        out[w, nv + k] = inv_h * (x2[w, nq + k] - x1[w, nq + k])


@njit(cache=True, error_model="numpy")
def _nudge_positions(m, qpos, dims, signs, eps):
  """qpos[w] <- mj_integratePos(qpos[w], e_dims[w], signs[w] * eps) for every row w with dims[w] >= 0."""
  dpos = np.zeros(m.nv)
  for w in range(qpos.shape[0]):
    i = dims[w]
    if i >= 0:
      dpos[:] = 0.0
      dpos[i] = 1.0
      forward.integrate_pos(m, qpos[w], dpos, signs[w] * eps)


# Worlds of one scratch batch at most (more sources are done in chunks): bounds the memory of a batched call.
MAX_SCRATCH_WORLDS = 512


def _scratch_batch(m, nworld):
  """A batch of ``nworld`` worlds for the perturbed steps, kept on the model for the next call of that size."""
  batch = m.__dict__.get("_fd_scratch")
  if batch is None or batch.nworld != nworld:
    batch = MjDataBatch(m, nworld)
    object.__setattr__(m, "_fd_scratch", batch)
  return batch


def _plan(m, centered, states, controls):
  """The perturbations of one source world: arrays (kind, dim, sign) per perturbed world, nominal first.

  kind 0 nominal, 1 qpos, 2 qvel, 3 act, 4 ctrl. Controls get both directions (the limits decide per source which
  are used); the state dimensions get +eps, and -eps too when centered.
  """
  kinds, dims, signs = [0], [-1], [0.0]
  directions = (1.0, -1.0) if centered else (1.0,)
  if states:
    for kind, n in ((3, m.na), (2, m.nv), (1, m.nv)):
      for i in range(n):
        for s in directions:
          kinds.append(kind)
          dims.append(i)
          signs.append(s)
  if controls:
    for i in range(m.nu):
      for s in (1.0, -1.0):
        kinds.append(4)
        dims.append(i)
        signs.append(s)
  return np.array(kinds), np.array(dims), np.array(signs)


def transition_fd(m, sources, eps, centered, want_a=True, want_b=True, want_c=True, want_d=True,
                  world_model=None):
  """A, B, C, D of mjd_transitionFD for every Data in ``sources`` (a list of one model's Data), each with a
  leading axis over the sources: A (n, ndx, ndx), B (n, ndx, nu), C (n, ns, ndx), D (n, ns, nu); None where not
  wanted. ``world_model`` gives per-source model fields (MjDataBatch.randomize) when the sources are a batch's.
  The perturbed steps of up to MAX_SCRATCH_WORLDS worlds run in one parallel call.
  """
  inverse.check_integrator(m, "mjd_transitionFD")
  if m.nhistory:
    raise ValueError("mjd_transitionFD: delays (history buffers) are not supported, as in MuJoCo 4")
  nsrc = len(sources)
  nv, na, nu, ns = m.nv, m.na, m.nu, m.nsensordata
  ndx = 2 * nv + na
  plan = _plan(m, centered, want_a or want_c, want_b or want_d)
  nper = len(plan[0])
  per_call = max(1, min(nsrc, MAX_SCRATCH_WORLDS // nper))
  batch = _scratch_batch(m, per_call * nper)
  out = (np.zeros((nsrc, ndx, ndx)) if want_a else None, np.zeros((nsrc, ndx, nu)) if want_b else None,
         np.zeros((nsrc, ns, ndx)) if want_c else None, np.zeros((nsrc, ns, nu)) if want_d else None)
  for first in range(0, nsrc, per_call):
    last = min(nsrc, first + per_call)
    chunk_model = None if not world_model else {k: v[first:last] for k, v in world_model.items()}
    nxt, sens = _perturbed_steps(m, batch, sources[first:last], plan, eps, chunk_model)
    _differences(m, sources[first:last], nxt, sens, plan, eps, centered,
                 *[None if o is None else o[first:last] for o in out])
  return out


def _perturbed_steps(m, batch, sources, plan, eps, world_model):
  """Sets the first len(sources) * nper worlds of ``batch`` to the perturbed copies of the sources (source-major:
  world = source * nper + p), steps them in one call; returns their next physics states (n, nper, nq+nv+na) and
  sensor values (n, nper, nsensordata)."""
  kinds, dims, signs = plan
  nsrc, nper = len(sources), len(kinds)
  nw = nsrc * nper
  rows = np.arange(nw)
  if world_model:
    scratch_model = batch.world_model if set(batch.world_model) == set(world_model) else batch.randomize(
        list(world_model))
    for name, values in world_model.items():
      scratch_model[name][:nw] = np.repeat(values, nper, axis=0)
    fields = m._fields  # pylint: disable=protected-access
    for name in set(scratch_model) - set(world_model):
      scratch_model[name][...] = fields[name][None]
  elif batch.world_model:
    # a scratch batch randomized by an earlier call: back to the model's own values
    fields = m._fields  # pylint: disable=protected-access
    for name, values in batch.world_model.items():
      values[...] = fields[name][None]
  full = np.empty((nsrc, batch.state_size(_FULL)))
  for k, d in enumerate(sources):
    state.get_state(m, d, full[k], _FULL)
  batch.set_state(np.repeat(full, nper, axis=0), _FULL, worlds=rows)
  kind, dim, sign = np.tile(kinds, nsrc), np.tile(dims, nsrc), np.tile(signs, nsrc)
  for k, field in ((2, "qvel"), (3, "act"), (4, "ctrl")):
    sel = kind == k
    getattr(batch, field)[rows[sel], dim[sel]] += sign[sel] * eps
  _nudge_positions(m._struct, batch.qpos[:nw], np.where(kind == 1, dim, -1), sign, float(eps))
  batch.step(mask=np.arange(batch.nworld) < nw)
  nxt = np.concatenate([batch.qpos[:nw], batch.qvel[:nw], batch.act[:nw]], axis=1).reshape(nsrc, nper, -1)
  return nxt, batch.sensordata[:nw].reshape(nsrc, nper, m.nsensordata)


def _differences(m, sources, nxt, sens, plan, eps, centered, A, B, C, D):
  """The Jacobians of a chunk of sources from its perturbed next states and sensor values."""
  kinds, dims, signs = plan
  nv = m.nv
  nominal, nominal_s = nxt[:, 0], sens[:, 0]
  col_of = {1: 0, 2: nv, 3: 2 * nv}
  work = np.empty((len(sources), 2 * nv + m.na))
  for p in range(1, len(kinds)):
    k, i, s = kinds[p], dims[p], signs[p]
    if k == 4 or s < 0:
      continue
    col = col_of[k] + i
    if centered:
      lo, hi, h = nxt[:, p + 1], nxt[:, p], 2 * eps
      lo_s, hi_s = sens[:, p + 1], sens[:, p]
    else:
      lo, hi, h = nominal, nxt[:, p], eps
      lo_s, hi_s = nominal_s, sens[:, p]
    if A is not None:
      _state_diff(m._struct, work, np.ascontiguousarray(lo), np.ascontiguousarray(hi), h)
      A[:, :, col] = work
    if C is not None:
      C[:, :, col] = (1.0 / h) * (hi_s - lo_s)
  if B is not None or D is not None:
    _control_columns(m, sources, nxt, sens, kinds, dims, eps, centered, B, D, work)


def _control_columns(m, sources, nxt, sens, kinds, dims, eps, centered, B, D, work):
  """B and D by MuJoCo's clamped differences: a control is nudged only within a limited ctrlrange (one-sided at a
  limit, zero if neither side fits)."""
  ctrl = np.array([d.ctrl for d in sources]).reshape(len(sources), m.nu)
  for p in np.nonzero((kinds == 4) & (np.arange(len(kinds)) > 0))[0][::2]:
    i = dims[p]
    lo_r, hi_r = m.actuator_ctrlrange[i]
    limited = bool(m.actuator_ctrllimited[i])
    u = ctrl[:, i]

    def in_range(a, b, lo_r=lo_r, hi_r=hi_r):
      return (a >= lo_r) & (a <= hi_r) & (b >= lo_r) & (b <= hi_r)

    fwd = np.ones_like(u, bool) if not limited else in_range(u, u + eps)
    back = (centered | ~fwd) & (np.ones_like(u, bool) if not limited else in_range(u - eps, u))
    plus, minus = nxt[:, p], nxt[:, p + 1]
    plus_s, minus_s = sens[:, p], sens[:, p + 1]
    nominal, nominal_s = nxt[:, 0], sens[:, 0]
    # per source: (x1, x2, h) of the difference
    both = fwd & back
    x1 = np.where(both[:, None], minus, np.where(fwd[:, None], nominal, minus))
    x2 = np.where(both[:, None], plus, np.where(fwd[:, None], plus, nominal))
    s1 = np.where(both[:, None], minus_s, np.where(fwd[:, None], nominal_s, minus_s))
    s2 = np.where(both[:, None], plus_s, np.where(fwd[:, None], plus_s, nominal_s))
    none = ~(fwd | back)
    for w in range(len(u)):
      h = 2 * eps if both[w] else eps
      if B is not None:
        _state_diff(m._struct, work[w:w + 1], np.ascontiguousarray(x1[w:w + 1]), np.ascontiguousarray(x2[w:w + 1]),
                    h)
        B[w, :, i] = 0.0 if none[w] else work[w]
      if D is not None:
        D[w, :, i] = 0.0 if none[w] else (1.0 / h) * (s2[w] - s1[w])


def transition_fd_batch(m, batch, eps, centered=False, mask=None):
  """mjd_transitionFD for every world of ``batch`` (or those where ``mask`` is true), all perturbed steps in one
  parallel call: A (n, ndx, ndx), B (n, ndx, nu), C (n, ns, ndx), D (n, ns, nu) over the selected worlds.

  World w's matrices equal mjd_transitionFD on ``batch[w]`` bitwise; per-world model fields of a randomized batch
  are honoured.
  """
  selected = batch._mask(mask)  # pylint: disable=protected-access
  worlds = np.nonzero(selected)[0]
  world_model = {name: values[worlds] for name, values in batch.world_model.items()} or None
  return transition_fd(m, [batch[int(w)] for w in worlds], float(eps), bool(centered), world_model=world_model)


def dof_simplenum(m):
  """MuJoCo's dof_simplenum (nv,): how many consecutive dofs from here on belong to "simple" bodies, whose mass
  matrix rows have no off-diagonal entries in MuJoCo 4's reduced layout. A body is simple when its inertial frame
  is its body frame, it is a root (or the child of a fixed child of the world), it has no child bodies, and its
  joints have zero position, coordinate-aligned hinge/slide axes and no joint after a rotational one."""
  simple = np.zeros(m.nbody, np.int64)
  parent, dofnum, root = m.body_parentid, m.body_dofnum, m.body_rootid
  for i in range(1, m.nbody):
    p = parent[i]
    null = not np.any(m.body_ipos[i]) and np.array_equal(m.body_iquat[i], (1.0, 0.0, 0.0, 0.0))
    simple[i] = null and (root[i] == i or (parent[p] == 0 and dofnum[p] == 0))
    if p > 0:
      simple[p] = 0
    rotation = False
    for j in np.nonzero(m.jnt_bodyid == i)[0]:
      jtype = m.jnt_type[j]
      aligned = np.count_nonzero(np.abs(m.jnt_axis[j]) > 1e-14) == 1
      if rotation or np.any(m.jnt_pos[j]) or (jtype in (JointType.HINGE, JointType.SLIDE) and not aligned):
        simple[i] = 0
      if jtype in (JointType.BALL, JointType.HINGE):
        rotation = True
  # the bodies of a tendon with armature (its own or its actuators') are not simple (its sites' bodies: geom
  # wrapping is refused there)
  armature = m.tendon_armature.copy()
  for k in np.flatnonzero((m.actuator_trntype == TrnType.TENDON) & (m.actuator_armature != 0)):
    armature[m.actuator_trnid[k, 0]] = 1.0
  for t in np.flatnonzero(armature):
    for k in range(m.tendon_adr[t], m.tendon_adr[t] + m.tendon_num[t]):
      if m.wrap_type[k] == WrapType.SITE:
        simple[m.site_bodyid[m.wrap_objid[k]]] = 0
  num = np.zeros(m.nv, np.int64)
  count = 0
  for i in range(m.nv - 1, -1, -1):
    count = count + 1 if simple[m.dof_bodyid[i]] else 0
    num[i] = count
  return num


def mass_csr_index(m):
  """Indices into qM (MuJoCo's legacy sparse layout) of MuJoCo 4's reduced compressed row layout ``d.M``: each
  row's ancestors in increasing order, then its diagonal; rows of simple dofs hold the diagonal only."""
  simplenum = dof_simplenum(m)
  index = []
  for i in range(m.nv):
    chain = []
    adr = int(m.dof_Madr[i])
    j = i
    while j >= 0:
      chain.append(adr)
      adr += 1
      j = int(m.dof_parentid[j])
    index.extend(reversed(chain[:1] if simplenum[i] else chain))
  return np.array(index, dtype=np.int64)


def inverse_fd(m, d, eps, flg_actuation, stages, DfDq, DfDv, DfDa, DsDq, DsDv, DsDa, DmDq):
  """mjd_inverseFD's loop (see api_dynamics.mjd_inverseFD); ``stages(m, d, position, velocity, sensors)`` runs
  inverse dynamics and returns qfrc_inverse."""
  nv = m.nv
  skipsensor = DsDq is None and DsDv is None and DsDa is None
  mass_index = mass_csr_index(m) if DmDq is not None else None

  def force(position, velocity):
    f = stages(m, d, position, velocity, not skipsensor).copy()
    if flg_actuation:
      actuation.fwd_actuation(m._struct, d._struct)
      f -= d.qfrc_actuator
    return f

  pos = d.qpos.copy()
  center = force(True, True)
  sensor = d.sensordata.copy()
  mass = d.qM[mass_index] if mass_index is not None else None
  inv = 1.0 / eps

  def rows(out, i, now, ref):
    if out is not None:
      out.reshape(nv, -1)[i] = inv * (now - ref)

  def nudge_each(values, rerun_stages, dforce, dsensor):
    """Forward differences of the force and sensors in each entry of ``values`` (d.qacc or d.qvel)."""
    if dforce is None and dsensor is None:
      return
    for i in range(nv):
      saved = values[i]
      values[i] += eps
      f = force(rerun_stages, rerun_stages)
      values[i] = saved
      rows(dforce, i, f, center)
      rows(dsensor, i, d.sensordata, sensor)

  nudge_each(d.qacc, False, DfDa, DsDa)
  nudge_each(d.qvel, True, DfDv, DsDv)
  if DfDq is not None or DsDq is not None or DmDq is not None:
    dpos = np.zeros(nv)
    for i in range(nv):
      dpos[:] = 0.0
      dpos[i] = 1.0
      forward.integrate_pos(m._struct, d.qpos, dpos, eps)
      f = force(True, True)
      d.qpos[:] = pos
      rows(DfDq, i, f, center)
      rows(DsDq, i, d.sensordata, sensor)
      if DmDq is not None:
        rows(DmDq, i, d.qM[mass_index], mass)
