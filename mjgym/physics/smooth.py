"""Smooth dynamics: kinematics, com-based frames, inertia and its factor, velocities and bias forces.

The stages of MuJoCo's engine_core_smooth.c (see the Computation chapter of its documentation), each a
``njit`` kernel ``f(m, d)`` over one world. Com-based quantities (cdof, cinert, cvel, cacc, cfrc_*) are
spatial vectors (angular, linear) expressed in the world frame at the centre of mass of each body's
kinematic tree (``subtree_com[body_rootid]``), so no frame changes are needed along a tree.
"""

from numba import njit

from mjgym.physics import math
from mjgym.physics.types import CamLightType
from mjgym.physics.types import DisableBit
from mjgym.physics.types import JointType
from mjgym.physics.types import MINVAL
from mjgym.physics.types import TrnType
from mjgym.physics.types import WrapType

# numba cannot apply & to IntFlag members; plain ints are compile-time constants.
_DSBL_GRAVITY = int(DisableBit.GRAVITY)


@njit(cache=True)
def _store(dst, v):
  for k in range(len(v)):
    dst[k] = v[k]


@njit(cache=True)
def _add(a, b):
  return (a[0] + b[0], a[1] + b[1], a[2] + b[2])


@njit(cache=True)
def _sub(a, b):
  return (a[0] - b[0], a[1] - b[1], a[2] - b[2])


# ------------------------------------------------------------------------------------------- position ----


@njit(cache=True)
def _local_to_global(xpos, xquat, pos, quat, out_pos, out_mat):
  """Frame (pos, quat) given in a body frame (xpos, xquat) -> world position and rotation matrix."""
  _store(out_pos, _add(xpos, math.rot_vec_quat(pos, xquat)))
  math.quat_to_mat(out_mat, math.quat_mul(xquat, quat))


@njit(cache=True)
def kinematics(m, d):
  """Global frames of bodies, joints, geoms and sites from qpos (and mocap poses)."""
  d.xpos[0, :] = 0.0
  d.xquat[0, :] = 0.0
  d.xquat[0, 0] = 1.0
  d.xipos[0, :] = 0.0
  d.xmat[0, :] = 0.0
  d.ximat[0, :] = 0.0
  for k in range(3):
    d.xmat[0, 4 * k] = 1.0
    d.ximat[0, 4 * k] = 1.0

  for i in range(1, m.nbody):
    jntadr = m.body_jntadr[i]
    jntnum = m.body_jntnum[i]
    if jntnum > 0 and m.jnt_type[jntadr] == JointType.FREE:
      qadr = m.jnt_qposadr[jntadr]
      xp = (d.qpos[qadr], d.qpos[qadr + 1], d.qpos[qadr + 2])
      xq = math.normalize4(d.qpos[qadr + 3:qadr + 7])
      _store(d.xanchor[jntadr], xp)
      _store(d.xaxis[jntadr], m.jnt_axis[jntadr])
    else:
      p = m.body_parentid[i]
      mocapid = m.body_mocapid[i]
      if mocapid >= 0:
        pos = (d.mocap_pos[mocapid, 0], d.mocap_pos[mocapid, 1], d.mocap_pos[mocapid, 2])
        quat = math.normalize4(d.mocap_quat[mocapid])
      else:
        pos = (m.body_pos[i, 0], m.body_pos[i, 1], m.body_pos[i, 2])
        quat = (m.body_quat[i, 0], m.body_quat[i, 1], m.body_quat[i, 2], m.body_quat[i, 3])
      xp = _add(d.xpos[p], math.mat_vec(d.xmat[p], pos))
      xq = math.quat_mul(d.xquat[p], quat)
      for j in range(jntadr, jntadr + jntnum):
        qadr = m.jnt_qposadr[j]
        jtype = m.jnt_type[j]
        axis = math.rot_vec_quat(m.jnt_axis[j], xq)
        anchor = _add(xp, math.rot_vec_quat(m.jnt_pos[j], xq))
        _store(d.xaxis[j], axis)
        _store(d.xanchor[j], anchor)
        if jtype == JointType.SLIDE:
          s = d.qpos[qadr] - m.qpos0[qadr]
          xp = (xp[0] + s * axis[0], xp[1] + s * axis[1], xp[2] + s * axis[2])
        else:
          if jtype == JointType.BALL:
            qloc = math.normalize4(d.qpos[qadr:qadr + 4])
          else:
            qloc = math.axis_angle_to_quat(m.jnt_axis[j], d.qpos[qadr] - m.qpos0[qadr])
          xq = math.quat_mul(xq, qloc)
          # the rotation is about the anchor, not the body origin
          xp = _sub(anchor, math.rot_vec_quat(m.jnt_pos[j], xq))
    xq = math.normalize4(xq)
    _store(d.xpos[i], xp)
    _store(d.xquat[i], xq)
    math.quat_to_mat(d.xmat[i], xq)
    _local_to_global(xp, xq, m.body_ipos[i], m.body_iquat[i], d.xipos[i], d.ximat[i])

  for g in range(m.ngeom):
    b = m.geom_bodyid[g]
    _local_to_global(d.xpos[b], d.xquat[b], m.geom_pos[g], m.geom_quat[g], d.geom_xpos[g], d.geom_xmat[g])
  for s in range(m.nsite):
    b = m.site_bodyid[s]
    _local_to_global(d.xpos[b], d.xquat[b], m.site_pos[s], m.site_quat[s], d.site_xpos[s], d.site_xmat[s])


@njit(cache=True)
def _inert_com(res, inertia, ximat, offset, mass):
  """res (10,) = com-based inertia of a body with principal inertia in ximat, com at offset from the point."""
  # R diag(I) Rᵀ, then the parallel-axis shift m (|o|² E - o oᵀ)
  r = ximat
  oo = offset[0] * offset[0] + offset[1] * offset[1] + offset[2] * offset[2]
  for k, (a, b) in enumerate(((0, 0), (1, 1), (2, 2), (0, 1), (0, 2), (1, 2))):
    v = (r[3 * a] * inertia[0] * r[3 * b] + r[3 * a + 1] * inertia[1] * r[3 * b + 1]
         + r[3 * a + 2] * inertia[2] * r[3 * b + 2])
    v -= mass * offset[a] * offset[b]
    if a == b:
      v += mass * oo
    res[k] = v
  for k in range(3):
    res[6 + k] = mass * offset[k]
  res[9] = mass


@njit(cache=True)
def com_pos(m, d):
  """subtree_com, cinert and cdof: the com-based frames of bodies and dofs."""
  for i in range(m.nbody):
    for k in range(3):
      d.subtree_com[i, k] = m.body_mass[i] * d.xipos[i, k]
  for i in range(m.nbody - 1, 0, -1):
    p = m.body_parentid[i]
    for k in range(3):
      d.subtree_com[p, k] += d.subtree_com[i, k]
  for i in range(m.nbody):
    if m.body_subtreemass[i] < MINVAL:
      d.subtree_com[i] = d.xipos[i]
    else:
      for k in range(3):
        d.subtree_com[i, k] /= m.body_subtreemass[i]

  for i in range(m.nbody):
    offset = _sub(d.xipos[i], d.subtree_com[m.body_rootid[i]])
    _inert_com(d.cinert[i], m.body_inertia[i], d.ximat[i], offset, m.body_mass[i])

  for j in range(m.njnt):
    b = m.jnt_bodyid[j]
    dofadr = m.jnt_dofadr[j]
    jtype = m.jnt_type[j]
    offset = _sub(d.subtree_com[m.body_rootid[b]], d.xanchor[j])
    if jtype == JointType.SLIDE:
      d.cdof[dofadr, :3] = 0.0
      d.cdof[dofadr, 3:] = d.xaxis[j]
    elif jtype == JointType.HINGE:
      _dof_com(d.cdof[dofadr], d.xaxis[j], offset)
    else:
      if jtype == JointType.FREE:
        # translations along the world axes, rotations about the body axes
        for k in range(3):
          d.cdof[dofadr + k] = 0.0
          d.cdof[dofadr + k, 3 + k] = 1.0
        dofadr += 3
      xmat = d.xmat[b]
      for k in range(3):
        _dof_com(d.cdof[dofadr + k], (xmat[k], xmat[3 + k], xmat[6 + k]), offset)


@njit(cache=True)
def _dof_com(res, axis, offset):
  """Motion of the com-based frame for a unit rotation about ``axis`` through a point ``offset`` away."""
  _store(res[:3], axis)
  _store(res[3:], math.cross(axis, offset))


@njit(cache=True)
def camlight(m, d):
  """Global poses of cameras and lights in their tracking modes."""
  for c in range(m.ncam):
    b = m.cam_bodyid[c]
    _track(m, d, m.cam_mode[c], b, m.cam_targetbodyid[c], m.cam_pos[c], m.cam_quat[c], m.cam_pos0[c],
           m.cam_poscom0[c], m.cam_mat0[c], d.cam_xpos[c], d.cam_xmat[c])
  for li in range(m.nlight):
    b = m.light_bodyid[li]
    mode = m.light_mode[li]
    pos = m.light_pos[li]
    if mode == CamLightType.TRACK:
      _store(d.light_xpos[li], _add(d.xpos[b], m.light_pos0[li]))
    elif mode == CamLightType.TRACKCOM:
      _store(d.light_xpos[li], _add(d.subtree_com[b], m.light_poscom0[li]))
    else:
      _store(d.light_xpos[li], _add(d.xpos[b], math.mat_vec(d.xmat[b], pos)))
    if mode == CamLightType.TRACK or mode == CamLightType.TRACKCOM:
      _store(d.light_xdir[li], m.light_dir0[li])
    elif mode == CamLightType.TARGETBODY or mode == CamLightType.TARGETBODYCOM:
      t = m.light_targetbodyid[li]
      target = d.xpos[t] if mode == CamLightType.TARGETBODY else d.subtree_com[t]
      _store(d.light_xdir[li], math.normalize3(_sub(target, d.light_xpos[li])))
    else:
      _store(d.light_xdir[li], math.normalize3(math.mat_vec(d.xmat[b], m.light_dir[li])))


@njit(cache=True)
def _track(m, d, mode, b, target, pos, quat, pos0, poscom0, mat0, out_pos, out_mat):
  """Camera pose: fixed to its body, translating with it (track, trackcom) or aiming at a target body."""
  if mode == CamLightType.TRACK:
    _store(out_pos, _add(d.xpos[b], pos0))
    out_mat[:] = mat0
    return
  if mode == CamLightType.TRACKCOM:
    _store(out_pos, _add(d.subtree_com[b], poscom0))
    out_mat[:] = mat0
    return
  _local_to_global(d.xpos[b], d.xquat[b], pos, quat, out_pos, out_mat)
  if (mode == CamLightType.TARGETBODY or mode == CamLightType.TARGETBODYCOM) and target >= 0:
    tpos = d.xpos[target] if mode == CamLightType.TARGETBODY else d.subtree_com[target]
    # cameras look along -z; keep x horizontal (orthogonal to world z), y completes the frame
    z = math.normalize3(_sub(out_pos, tpos))
    x = math.normalize3(math.cross((0.0, 0.0, 1.0), z))
    y = math.normalize3(math.cross(z, x))
    for k in range(3):
      out_mat[3 * k] = x[k]
      out_mat[3 * k + 1] = y[k]
      out_mat[3 * k + 2] = z[k]


@njit(cache=True)
def tendon(m, d):
  """Lengths and dense Jacobians (ntendon, nv) of fixed tendons."""
  for t in range(m.ntendon):
    length = 0.0
    d.ten_J[t, :] = 0.0
    for w in range(m.tendon_adr[t], m.tendon_adr[t] + m.tendon_num[t]):
      if m.wrap_type[w] == WrapType.JOINT:
        j = m.wrap_objid[w]
        coef = m.wrap_prm[w]
        length += coef * d.qpos[m.jnt_qposadr[j]]
        d.ten_J[t, m.jnt_dofadr[j]] += coef
    d.ten_length[t] = length


@njit(cache=True)
def transmission(m, d):
  """actuator_length and dense actuator_moment (nu, nv) for joint and tendon transmissions, times gear."""
  for i in range(m.nu):
    d.actuator_moment[i, :] = 0.0
    gear = m.actuator_gear[i]
    trntype = m.actuator_trntype[i]
    idx = m.actuator_trnid[i, 0]
    if trntype == TrnType.JOINT or trntype == TrnType.JOINTINPARENT:
      jtype = m.jnt_type[idx]
      qadr = m.jnt_qposadr[idx]
      dofadr = m.jnt_dofadr[idx]
      if jtype == JointType.HINGE or jtype == JointType.SLIDE:
        d.actuator_length[i] = gear[0] * d.qpos[qadr]
        d.actuator_moment[i, dofadr] = gear[0]
      elif jtype == JointType.BALL:
        quat = math.normalize4(d.qpos[qadr:qadr + 4])
        axis = _gear_axis(trntype, gear[:3], quat)
        d.actuator_length[i] = math.dot3(math.quat_to_vel(quat, 1.0), axis)
        _store(d.actuator_moment[i, dofadr:dofadr + 3], axis)
      else:
        # a free joint has no meaningful scalar length
        quat = math.normalize4(d.qpos[qadr + 3:qadr + 7])
        d.actuator_length[i] = 0.0
        _store(d.actuator_moment[i, dofadr:dofadr + 3], gear[:3])
        _store(d.actuator_moment[i, dofadr + 3:dofadr + 6], _gear_axis(trntype, gear[3:6], quat))
    elif trntype == TrnType.TENDON:
      d.actuator_length[i] = gear[0] * d.ten_length[idx]
      for k in range(m.nv):
        d.actuator_moment[i, k] = gear[0] * d.ten_J[idx, k]


@njit(cache=True)
def _gear_axis(trntype, gear, quat):
  """Rotational gear in the joint's child frame: as given, or from the parent frame for jointinparent."""
  if trntype == TrnType.JOINT:
    return (gear[0], gear[1], gear[2])
  return math.rot_vec_quat(gear, (quat[0], -quat[1], -quat[2], -quat[3]))


# -------------------------------------------------------------------------------------------- inertia ----


@njit(cache=True)
def crb(m, d):
  """Composite rigid-body inertias (crb) and the joint-space inertia qM (legacy sparse layout)."""
  d.crb[:, :] = d.cinert
  for i in range(m.nbody - 1, 0, -1):
    p = m.body_parentid[i]
    # bodies of different trees are expressed at different points, and the world has no dofs
    if p > 0:
      for k in range(10):
        d.crb[p, k] += d.crb[i, k]
  for i in range(m.nv):
    # all dofs of one tree share the same reference point, so M[i, j] = cdof[j] · crb[body(i)] cdof[i]
    f = math.mul_inert_vec(d.crb[m.dof_bodyid[i]], d.cdof[i])
    adr = m.dof_Madr[i]
    d.qM[adr] = math.dot6(d.cdof[i], f) + m.dof_armature[i]
    j = m.dof_parentid[i]
    while j >= 0:
      adr += 1
      d.qM[adr] = math.dot6(d.cdof[j], f)
      j = m.dof_parentid[j]


@njit(cache=True)
def full_m(m, qM, dst):
  """dst (nv, nv) = dense symmetric matrix of qM-layout array ``qM``."""
  dst[:, :] = 0.0
  for i in range(m.nv):
    adr = m.dof_Madr[i]
    dst[i, i] = qM[adr]
    j = m.dof_parentid[i]
    while j >= 0:
      adr += 1
      dst[i, j] = qM[adr]
      dst[j, i] = qM[adr]
      j = m.dof_parentid[j]


@njit(cache=True)
def factor_sparse(m, src, ld, diaginv):
  """Factors a symmetric matrix in qM layout as Lᵀ D L (L unit lower triangular on the dof tree).

  ``ld`` gets D on the diagonal slots and L below it, in the same layout; ``diaginv`` = 1 / D. ``src`` and
  ``ld`` may be the same array. Eliminating from the leaves up keeps all fill-in inside the ancestor
  pattern, so the factor needs no more memory than the matrix.
  """
  if ld is not src:
    ld[:] = src
  for k in range(m.nv - 1, -1, -1):
    adr_kk = m.dof_Madr[k]
    adr_ki = adr_kk + 1
    i = m.dof_parentid[k]
    while i >= 0:
      tmp = ld[adr_ki] / ld[adr_kk]
      # row i's entries (i, i), (i, parent(i)), ... line up with row k's entries from (k, i) on
      adr_ij = m.dof_Madr[i]
      adr_kj = adr_ki
      j = i
      while j >= 0:
        ld[adr_ij] -= tmp * ld[adr_kj]
        adr_ij += 1
        adr_kj += 1
        j = m.dof_parentid[j]
      ld[adr_ki] = tmp
      adr_ki += 1
      i = m.dof_parentid[i]
  for i in range(m.nv):
    diaginv[i] = 1.0 / ld[m.dof_Madr[i]]


@njit(cache=True)
def solve_sparse(m, ld, diaginv, x, y):
  """x = (Lᵀ D L)⁻¹ y from a factor_sparse factor; x and y (nv,) may be the same array."""
  if x is not y:
    x[:] = y
  for i in range(m.nv - 1, -1, -1):
    xi = x[i]
    if xi != 0.0:
      adr = m.dof_Madr[i] + 1
      j = m.dof_parentid[i]
      while j >= 0:
        x[j] -= ld[adr] * xi
        adr += 1
        j = m.dof_parentid[j]
  for i in range(m.nv):
    x[i] *= diaginv[i]
  for i in range(m.nv):
    adr = m.dof_Madr[i] + 1
    j = m.dof_parentid[i]
    s = 0.0
    while j >= 0:
      s += ld[adr] * x[j]
      adr += 1
      j = m.dof_parentid[j]
    x[i] -= s


@njit(cache=True)
def factor_m(m, d):
  """qLD, qLDiagInv = sparse Lᵀ D L factor of qM."""
  factor_sparse(m, d.qM, d.qLD, d.qLDiagInv)


@njit(cache=True)
def solve_m(m, d, x, y):
  """x = M⁻¹ y using the factor from factor_m (x and y may be the same array)."""
  solve_sparse(m, d.qLD, d.qLDiagInv, x, y)


# ------------------------------------------------------------------------------------------- velocity ----


@njit(cache=True)
def _com_vel(m, d, qvel, cvel, cdof_dot):
  """cvel, cdof_dot of joint velocity ``qvel`` (cdof from com_pos)."""
  cvel[0, :] = 0.0
  for i in range(1, m.nbody):
    cvel[i] = cvel[m.body_parentid[i]]
    for j in range(m.body_jntadr[i], m.body_jntadr[i] + m.body_jntnum[i]):
      dofadr = m.jnt_dofadr[j]
      jtype = m.jnt_type[j]
      if jtype == JointType.FREE or jtype == JointType.BALL:
        if jtype == JointType.FREE:
          # world-aligned translations do not rotate with the body
          for k in range(3):
            cdof_dot[dofadr + k] = 0.0
          _add_dof_vel(cvel[i], d.cdof, qvel, dofadr, 3)
          dofadr += 3
        # all three rotational axes move with the velocity before the ball's own rotation
        for k in range(3):
          _store(cdof_dot[dofadr + k], math.cross_motion(cvel[i], d.cdof[dofadr + k]))
        _add_dof_vel(cvel[i], d.cdof, qvel, dofadr, 3)
      else:
        _store(cdof_dot[dofadr], math.cross_motion(cvel[i], d.cdof[dofadr]))
        _add_dof_vel(cvel[i], d.cdof, qvel, dofadr, 1)


@njit(cache=True)
def _add_dof_vel(vel, cdof, qvel, dofadr, n):
  for k in range(dofadr, dofadr + n):
    for c in range(6):
      vel[c] += cdof[k, c] * qvel[k]


@njit(cache=True)
def com_vel(m, d):
  """Com-based body velocities cvel and the time derivatives of the dof axes cdof_dot."""
  _com_vel(m, d, d.qvel, d.cvel, d.cdof_dot)


@njit(cache=True)
def _body_forces(m, d, qvel, qacc, use_qacc, cvel, cdof_dot, cacc, cfrc):
  """Forward RNE pass: cacc of every body, then cfrc = cinert cacc + cvel ×f (cinert cvel)."""
  # gravity enters as an upward acceleration of the world
  cacc[0, :] = 0.0
  if (m.opt_disableflags[0] & _DSBL_GRAVITY) == 0:
    for k in range(3):
      cacc[0, 3 + k] = -m.opt_gravity[k]
  for i in range(1, m.nbody):
    cacc[i] = cacc[m.body_parentid[i]]
    for j in range(m.body_dofadr[i], m.body_dofadr[i] + m.body_dofnum[i]):
      for c in range(6):
        cacc[i, c] += cdof_dot[j, c] * qvel[j]
      if use_qacc:
        for c in range(6):
          cacc[i, c] += d.cdof[j, c] * qacc[j]
  for i in range(m.nbody):
    fa = math.mul_inert_vec(d.cinert[i], cacc[i])
    fv = math.cross_force(cvel[i], math.mul_inert_vec(d.cinert[i], cvel[i]))
    for c in range(6):
      cfrc[i, c] = fa[c] + fv[c]


@njit(cache=True)
def _bias(m, d, qvel, cvel, cdof_dot, cacc, cfrc, out):
  """out = qfrc_bias at velocity qvel, given its cvel and cdof_dot; cacc and cfrc are work arrays."""
  _body_forces(m, d, qvel, qvel, False, cvel, cdof_dot, cacc, cfrc)
  for i in range(m.nbody - 1, 0, -1):
    p = m.body_parentid[i]
    for c in range(6):
      cfrc[p, c] += cfrc[i, c]
  for j in range(m.nv):
    out[j] = math.dot6(d.cdof[j], cfrc[m.dof_bodyid[j]])


@njit(cache=True)
def rne(m, d):
  """qfrc_bias: gravity plus Coriolis and centrifugal forces, by recursive Newton-Euler at qacc = 0."""
  _bias(m, d, d.qvel, d.cvel, d.cdof_dot, d.rne_cacc, d.rne_cfrc, d.qfrc_bias)


@njit(cache=True)
def bias_force(m, d, qvel, cvel, cdof_dot, cacc, cfrc, out):
  """out (nv,) = bias force at an arbitrary velocity qvel, at d's positions; leaves d's velocity fields alone.

  cvel, cacc, cfrc (nbody, 6) and cdof_dot (nv, 6) are caller-provided work arrays.
  """
  _com_vel(m, d, qvel, cvel, cdof_dot)
  _bias(m, d, qvel, cvel, cdof_dot, cacc, cfrc, out)


@njit(cache=True)
def rne_postconstraint(m, d):
  """cacc, cfrc_int and cfrc_ext of the current qacc, as mj_rnePostConstraint (external: xfrc_applied)."""
  for i in range(m.nbody):
    # the applied wrench acts at the body com; move its torque to the tree's reference point
    xf = d.xfrc_applied[i]
    r = _sub(d.xipos[i], d.subtree_com[m.body_rootid[i]])
    t = math.cross(r, xf[:3])
    for k in range(3):
      d.cfrc_ext[i, k] = xf[3 + k] + t[k]
      d.cfrc_ext[i, 3 + k] = xf[k]
  _body_forces(m, d, d.qvel, d.qacc, True, d.cvel, d.cdof_dot, d.cacc, d.cfrc_int)
  for i in range(m.nbody):
    for c in range(6):
      d.cfrc_int[i, c] -= d.cfrc_ext[i, c]
  for i in range(m.nbody - 1, 0, -1):
    p = m.body_parentid[i]
    for c in range(6):
      d.cfrc_int[p, c] += d.cfrc_int[i, c]
