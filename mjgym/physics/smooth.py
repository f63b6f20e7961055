"""Smooth dynamics: kinematics, com-based frames, inertia and its factor, velocities and bias forces.

The stages of MuJoCo's engine_core_smooth.c (see the Computation chapter of its documentation), each a
``njit`` kernel ``f(m, d)`` over one world. Com-based quantities (cdof, cinert, cvel, cacc, cfrc_*) are
spatial vectors (angular, linear) expressed in the world frame at the centre of mass of each body's
kinematic tree (``subtree_com[body_rootid]``), so no frame changes are needed along a tree.
"""

import math as pymath

from numba import njit

from mjgym.physics import _jit
from mjgym.physics import math
from mjgym.physics import support
from mjgym.physics.constants import CNSTR_FRICTION_TENDON
from mjgym.physics.constants import CNSTR_LIMIT_TENDON
from mjgym.physics.constants import DSBL_DAMPER
from mjgym.physics.constants import DSBL_GRAVITY
from mjgym.physics.constants import DSBL_SPRING
from mjgym.physics.constants import JNT_BALL
from mjgym.physics.constants import JNT_FREE
from mjgym.physics.constants import JNT_HINGE
from mjgym.physics.constants import JNT_SLIDE
from mjgym.physics.constants import SAMEFRAME_BODY
from mjgym.physics.constants import SAMEFRAME_BODYROT
from mjgym.physics.constants import SAMEFRAME_INERTIA
from mjgym.physics.constants import SAMEFRAME_NONE
from mjgym.physics.constants import WARN_INERTIA
from mjgym.physics.types import CamLightType
from mjgym.physics.types import MINVAL
from mjgym.physics.types import TrnType
from mjgym.physics.types import WrapType


# ------------------------------------------------------------------------------------------- position ----


@njit(cache=True, error_model="numpy", inline="always")
def _local_to_global(xpos, xquat, xmat, xipos, ximat, b, pos, quat, sameframe, out_pos, out_mat, o):
  """Frame (pos[o], quat[o]) given in body b's frame -> world position out_pos[o] and rotation matrix out_mat[o]
  (mj_local2Global).

  A frame the compiler found on the body or inertial frame (``sameframe``) copies that frame, as MuJoCo does,
  so geoms and sites there get bitwise its numbers.
  """
  if sameframe == SAMEFRAME_BODY:
    for k in range(3):
      out_pos[o, k] = xpos[b, k]
  elif sameframe == SAMEFRAME_INERTIA:
    for k in range(3):
      out_pos[o, k] = xipos[b, k]
  else:
    p0, p1, p2 = pos[o, 0], pos[o, 1], pos[o, 2]
    out_pos[o, 0] = (xmat[b, 0] * p0 + xmat[b, 1] * p1 + xmat[b, 2] * p2) + xpos[b, 0]
    out_pos[o, 1] = (xmat[b, 3] * p0 + xmat[b, 4] * p1 + xmat[b, 5] * p2) + xpos[b, 1]
    out_pos[o, 2] = (xmat[b, 6] * p0 + xmat[b, 7] * p1 + xmat[b, 8] * p2) + xpos[b, 2]
  if sameframe == SAMEFRAME_NONE:
    q = math.quat_mul((xquat[b, 0], xquat[b, 1], xquat[b, 2], xquat[b, 3]),
                      (quat[o, 0], quat[o, 1], quat[o, 2], quat[o, 3]))
    math.quat_to_mat(out_mat[o], q)
  elif sameframe == SAMEFRAME_BODY or sameframe == SAMEFRAME_BODYROT:
    for k in range(9):
      out_mat[o, k] = xmat[b, k]
  else:
    for k in range(9):
      out_mat[o, k] = ximat[b, k]


@_jit.separate
@njit(cache=True, error_model="numpy")
def kinematics(m, d):
  """Global frames of bodies, joints, geoms and sites from qpos (and mocap poses)."""
  xpos = d.xpos
  xquat = d.xquat
  xmat = d.xmat
  xipos = d.xipos
  ximat = d.ximat
  xanchor = d.xanchor
  xaxis = d.xaxis
  qpos = d.qpos
  qpos0 = m.qpos0
  jnt_type = m.jnt_type
  jnt_qposadr = m.jnt_qposadr
  jnt_axis = m.jnt_axis
  jnt_pos = m.jnt_pos
  body_jntadr = m.body_jntadr
  body_jntnum = m.body_jntnum
  body_parentid = m.body_parentid
  body_mocapid = m.body_mocapid
  body_pos = m.body_pos
  body_quat = m.body_quat
  for k in range(3):
    xpos[0, k] = 0.0
    xipos[0, k] = 0.0
  for k in range(4):
    xquat[0, k] = 0.0
  xquat[0, 0] = 1.0
  for k in range(9):
    xmat[0, k] = 0.0
    ximat[0, k] = 0.0
  for k in range(3):
    xmat[0, 4 * k] = 1.0
    ximat[0, 4 * k] = 1.0

  for i in range(1, m.nbody):
    jntadr = body_jntadr[i]
    jntnum = body_jntnum[i]
    if jntnum > 0 and jnt_type[jntadr] == JNT_FREE:
      qadr = jnt_qposadr[jntadr]
      xp = (qpos[qadr], qpos[qadr + 1], qpos[qadr + 2])
      xq = math.normalize4((qpos[qadr + 3], qpos[qadr + 4], qpos[qadr + 5], qpos[qadr + 6]))
      for k in range(3):
        xanchor[jntadr, k] = xp[k]
        xaxis[jntadr, k] = jnt_axis[jntadr, k]
    else:
      p = body_parentid[i]
      mocapid = body_mocapid[i]
      if mocapid >= 0:
        mocap_pos = d.mocap_pos
        mocap_quat = d.mocap_quat
        pos = (mocap_pos[mocapid, 0], mocap_pos[mocapid, 1], mocap_pos[mocapid, 2])
        quat = math.normalize4((mocap_quat[mocapid, 0], mocap_quat[mocapid, 1], mocap_quat[mocapid, 2],
                                mocap_quat[mocapid, 3]))
      else:
        pos = (body_pos[i, 0], body_pos[i, 1], body_pos[i, 2])
        quat = (body_quat[i, 0], body_quat[i, 1], body_quat[i, 2], body_quat[i, 3])
      xp = (xpos[p, 0] + (xmat[p, 0] * pos[0] + xmat[p, 1] * pos[1] + xmat[p, 2] * pos[2]),
            xpos[p, 1] + (xmat[p, 3] * pos[0] + xmat[p, 4] * pos[1] + xmat[p, 5] * pos[2]),
            xpos[p, 2] + (xmat[p, 6] * pos[0] + xmat[p, 7] * pos[1] + xmat[p, 8] * pos[2]))
      xq = math.quat_mul((xquat[p, 0], xquat[p, 1], xquat[p, 2], xquat[p, 3]), quat)
      for j in range(jntadr, jntadr + jntnum):
        qadr = jnt_qposadr[j]
        jtype = jnt_type[j]
        jaxis = (jnt_axis[j, 0], jnt_axis[j, 1], jnt_axis[j, 2])
        jpos = (jnt_pos[j, 0], jnt_pos[j, 1], jnt_pos[j, 2])
        axis = math.rot_vec_quat(jaxis, xq)
        anchor = math.add3(xp, math.rot_vec_quat(jpos, xq))
        for k in range(3):
          xaxis[j, k] = axis[k]
          xanchor[j, k] = anchor[k]
        if jtype == JNT_SLIDE:
          s = qpos[qadr] - qpos0[qadr]
          xp = (xp[0] + s * axis[0], xp[1] + s * axis[1], xp[2] + s * axis[2])
        else:
          if jtype == JNT_BALL:
            qloc = math.normalize4((qpos[qadr], qpos[qadr + 1], qpos[qadr + 2], qpos[qadr + 3]))
          else:
            qloc = math.axis_angle_to_quat(jaxis, qpos[qadr] - qpos0[qadr])
          xq = math.quat_mul(xq, qloc)
          # the rotation is about the anchor, not the body origin
          xp = math.sub3(anchor, math.rot_vec_quat(jpos, xq))
    xq = math.normalize4(xq)
    for k in range(3):
      xpos[i, k] = xp[k]
    for k in range(4):
      xquat[i, k] = xq[k]
    math.quat_to_mat(xmat[i], xq)
    _local_to_global(xpos, xquat, xmat, xipos, ximat, i, m.body_ipos, m.body_iquat, m.body_sameframe[i], xipos,
                     ximat, i)

  geom_bodyid = m.geom_bodyid
  geom_pos = m.geom_pos
  geom_quat = m.geom_quat
  geom_sameframe = m.geom_sameframe
  geom_xpos = d.geom_xpos
  geom_xmat = d.geom_xmat
  for g in range(m.ngeom):
    _local_to_global(xpos, xquat, xmat, xipos, ximat, geom_bodyid[g], geom_pos, geom_quat, geom_sameframe[g],
                     geom_xpos, geom_xmat, g)
  site_bodyid = m.site_bodyid
  site_pos = m.site_pos
  site_quat = m.site_quat
  site_sameframe = m.site_sameframe
  site_xpos = d.site_xpos
  site_xmat = d.site_xmat
  for s in range(m.nsite):
    _local_to_global(xpos, xquat, xmat, xipos, ximat, site_bodyid[s], site_pos, site_quat, site_sameframe[s],
                     site_xpos, site_xmat, s)


@njit(cache=True, error_model="numpy", inline="always")
def _inert_com(cinert, i, inertia, ximat, o0, o1, o2, mass):
  """cinert[i] (10,) = com-based inertia of body i, with principal inertia inertia[i] in frame ximat[i] and
  com at offset (o0, o1, o2) from the point."""
  # R diag(I) Rᵀ, then the parallel-axis shift m (|o|² E - o oᵀ)
  offset = (o0, o1, o2)
  oo = o0 * o0 + o1 * o1 + o2 * o2
  for k, (a, b) in enumerate(((0, 0), (1, 1), (2, 2), (0, 1), (0, 2), (1, 2))):
    v = (ximat[i, 3 * a] * inertia[i, 0] * ximat[i, 3 * b] + ximat[i, 3 * a + 1] * inertia[i, 1] * ximat[i, 3 * b + 1]
         + ximat[i, 3 * a + 2] * inertia[i, 2] * ximat[i, 3 * b + 2])
    v -= mass * offset[a] * offset[b]
    if a == b:
      v += mass * oo
    cinert[i, k] = v
  for k in range(3):
    cinert[i, 6 + k] = mass * offset[k]
  cinert[i, 9] = mass


@_jit.separate
@njit(cache=True, error_model="numpy")
def com_pos(m, d):
  """subtree_com, cinert and cdof: the com-based frames of bodies and dofs."""
  nbody = m.nbody
  body_mass = m.body_mass
  parentid = m.body_parentid
  subtreemass = m.body_subtreemass
  rootid = m.body_rootid
  body_inertia = m.body_inertia
  xipos = d.xipos
  ximat = d.ximat
  subtree_com = d.subtree_com
  cinert = d.cinert
  for i in range(nbody):
    for k in range(3):
      subtree_com[i, k] = body_mass[i] * xipos[i, k]
  for i in range(nbody - 1, 0, -1):
    p = parentid[i]
    for k in range(3):
      subtree_com[p, k] += subtree_com[i, k]
  for i in range(nbody):
    if subtreemass[i] < MINVAL:
      for k in range(3):
        subtree_com[i, k] = xipos[i, k]
    else:
      for k in range(3):
        subtree_com[i, k] /= subtreemass[i]

  for i in range(nbody):
    r = rootid[i]
    _inert_com(cinert, i, body_inertia, ximat, xipos[i, 0] - subtree_com[r, 0], xipos[i, 1] - subtree_com[r, 1],
               xipos[i, 2] - subtree_com[r, 2], body_mass[i])

  jnt_bodyid = m.jnt_bodyid
  jnt_dofadr = m.jnt_dofadr
  jnt_type = m.jnt_type
  xanchor = d.xanchor
  xaxis = d.xaxis
  xmat = d.xmat
  cdof = d.cdof
  for j in range(m.njnt):
    b = jnt_bodyid[j]
    dofadr = jnt_dofadr[j]
    jtype = jnt_type[j]
    r = rootid[b]
    o0 = subtree_com[r, 0] - xanchor[j, 0]
    o1 = subtree_com[r, 1] - xanchor[j, 1]
    o2 = subtree_com[r, 2] - xanchor[j, 2]
    if jtype == JNT_SLIDE:
      for k in range(3):
        cdof[dofadr, k] = 0.0
        cdof[dofadr, 3 + k] = xaxis[j, k]
    elif jtype == JNT_HINGE:
      _dof_com(cdof, dofadr, xaxis[j, 0], xaxis[j, 1], xaxis[j, 2], o0, o1, o2)
    else:
      if jtype == JNT_FREE:
        # translations along the world axes, rotations about the body axes
        for k in range(3):
          for c in range(6):
            cdof[dofadr + k, c] = 0.0
          cdof[dofadr + k, 3 + k] = 1.0
        dofadr += 3
      for k in range(3):
        _dof_com(cdof, dofadr + k, xmat[b, k], xmat[b, 3 + k], xmat[b, 6 + k], o0, o1, o2)


@njit(cache=True, error_model="numpy", inline="always")
def _dof_com(cdof, r, a0, a1, a2, o0, o1, o2):
  """cdof[r] = motion of the com-based frame for a unit rotation about axis a through a point o away."""
  cdof[r, 0] = a0
  cdof[r, 1] = a1
  cdof[r, 2] = a2
  cdof[r, 3] = a1 * o2 - a2 * o1
  cdof[r, 4] = a2 * o0 - a0 * o2
  cdof[r, 5] = a0 * o1 - a1 * o0


@_jit.separate
@njit(cache=True, error_model="numpy")
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
      math.store(d.light_xpos[li], math.add3(d.xpos[b], m.light_pos0[li]))
    elif mode == CamLightType.TRACKCOM:
      math.store(d.light_xpos[li], math.add3(d.subtree_com[b], m.light_poscom0[li]))
    else:
      math.store(d.light_xpos[li], math.add3(d.xpos[b], math.mat_vec(d.xmat[b], pos)))
    if mode == CamLightType.TRACK or mode == CamLightType.TRACKCOM:
      math.store(d.light_xdir[li], m.light_dir0[li])
    elif mode == CamLightType.TARGETBODY or mode == CamLightType.TARGETBODYCOM:
      t = m.light_targetbodyid[li]
      target = d.xpos[t] if mode == CamLightType.TARGETBODY else d.subtree_com[t]
      math.store(d.light_xdir[li], math.normalize3(math.sub3(target, d.light_xpos[li])))
    else:
      math.store(d.light_xdir[li], math.normalize3(math.mat_vec(d.xmat[b], m.light_dir[li])))


@njit(cache=True, error_model="numpy")
def _track(m, d, mode, b, target, pos, quat, pos0, poscom0, mat0, out_pos, out_mat):
  """Camera pose: fixed to its body, translating with it (track, trackcom) or aiming at a target body."""
  if mode == CamLightType.TRACK:
    math.store(out_pos, math.add3(d.xpos[b], pos0))
    out_mat[:] = mat0
    return
  if mode == CamLightType.TRACKCOM:
    math.store(out_pos, math.add3(d.subtree_com[b], poscom0))
    out_mat[:] = mat0
    return
  # the frame (pos, quat) on body b, in the world (mj_local2Global)
  math.store(out_pos, math.add3(math.mat_vec(d.xmat[b], pos), d.xpos[b]))
  math.quat_to_mat(out_mat, math.quat_mul(d.xquat[b], quat))
  if (mode == CamLightType.TARGETBODY or mode == CamLightType.TARGETBODYCOM) and target >= 0:
    tpos = d.xpos[target] if mode == CamLightType.TARGETBODY else d.subtree_com[target]
    # cameras look along -z; keep x horizontal (orthogonal to world z), y completes the frame
    z = math.normalize3(math.sub3(out_pos, tpos))
    x = math.normalize3(math.cross((0.0, 0.0, 1.0), z))
    y = math.normalize3(math.cross(z, x))
    for k in range(3):
      out_mat[3 * k] = x[k]
      out_mat[3 * k + 1] = y[k]
      out_mat[3 * k + 2] = z[k]


@_jit.lazy
@njit(cache=True, error_model="numpy")
def tendon(m, d):
  """Lengths, dense Jacobians (ntendon, nv) and wrap points of fixed and spatial tendons."""
  nwrap = 0
  for t in range(m.ntendon):
    d.ten_J[t, :] = 0.0
    d.ten_wrapadr[t] = nwrap
    adr, num = m.tendon_adr[t], m.tendon_num[t]
    if num > 0 and m.wrap_type[adr] == WrapType.JOINT:
      length = 0.0
      for w in range(adr, adr + num):
        j = m.wrap_objid[w]
        coef = m.wrap_prm[w]
        length += coef * d.qpos[m.jnt_qposadr[j]]
        d.ten_J[t, m.jnt_dofadr[j]] += coef
      d.ten_length[t] = length
      d.ten_wrapnum[t] = 0
    else:
      d.ten_length[t] = _spatial_tendon(m, d, t, nwrap)
      nwrap += d.ten_wrapnum[t]
  # unused wrap slots read as empty (MuJoCo leaves stale points there)
  for k in range(nwrap, 2 * m.nwrap):
    _wrap_point(d, k, 0, (0.0, 0.0, 0.0))


@njit(cache=True, error_model="numpy")
def _wrap_point(d, k, obj, pos):
  d.wrap_obj[k // 2, k % 2] = obj
  for c in range(3):
    d.wrap_xpos[k // 2, 3 * (k % 2) + c] = pos[c]


@njit(cache=True, error_model="numpy")
def _segment(m, d, t, p0, b0, p1, b1, divisor):
  """Length of the straight piece p0 -> p1 (points on bodies b0, b1), its Jacobian added to ten_J[t]."""
  dif = math.sub3(p1, p0)
  length = pymath.sqrt(math.dot3(dif, dif))
  if b0 != b1 and length > MINVAL:
    u = (dif[0] / (length * divisor), dif[1] / (length * divisor), dif[2] / (length * divisor))
    zero = (0.0, 0.0, 0.0)
    support.apply_ft(m, d, u, zero, p1, b1, d.ten_J[t])
    support.apply_ft(m, d, (-u[0], -u[1], -u[2]), zero, p0, b0, d.ten_J[t])
  return length / divisor


@njit(cache=True, error_model="numpy")
def _spatial_tendon(m, d, t, wrapadr):
  """Length of spatial tendon t; fills its row of ten_J and its wrap points from wrap_xpos[wrapadr]."""
  adr, end = m.tendon_adr[t], m.tendon_adr[t] + m.tendon_num[t]
  length = 0.0
  divisor = 1.0
  npoint = wrapadr
  j = adr
  while j < end:
    if m.wrap_type[j] == WrapType.PULLEY:
      divisor = m.wrap_prm[j]
      _wrap_point(d, npoint, -2, (0.0, 0.0, 0.0))
      npoint += 1
      j += 1
      continue
    # a branch: sites joined by straight lines or wraps, up to the next pulley or the end
    _wrap_point(d, npoint, -1, d.site_xpos[m.wrap_objid[j]])
    npoint += 1
    while j + 1 < end and m.wrap_type[j + 1] != WrapType.PULLEY:
      s0 = m.wrap_objid[j]
      p0, b0 = d.site_xpos[s0], m.site_bodyid[s0]
      if m.wrap_type[j + 1] == WrapType.SITE:
        s1 = m.wrap_objid[j + 1]
        length += _segment(m, d, t, p0, b0, d.site_xpos[s1], m.site_bodyid[s1], divisor)
        j += 1
      else:
        g = m.wrap_objid[j + 1]
        s1 = m.wrap_objid[j + 2]
        p1, b1 = d.site_xpos[s1], m.site_bodyid[s1]
        arc, t0, t1 = support.wrap(m, d, g, int(m.wrap_prm[j + 1]), p0, p1)
        if arc < 0.0:
          length += _segment(m, d, t, p0, b0, p1, b1, divisor)
        else:
          bg = m.geom_bodyid[g]
          length += _segment(m, d, t, p0, b0, t0, bg, divisor) + arc / divisor
          length += _segment(m, d, t, t1, bg, p1, b1, divisor)
          _wrap_point(d, npoint, g, t0)
          _wrap_point(d, npoint + 1, g, t1)
          npoint += 2
        j += 2
      _wrap_point(d, npoint, -1, d.site_xpos[m.wrap_objid[j]])
      npoint += 1
    j += 1
  d.ten_wrapnum[t] = npoint - wrapadr
  return length


@_jit.separate
@njit(cache=True, error_model="numpy")
def transmission(m, d):
  """actuator_length and dense actuator_moment (nu, nv) of every transmission, times gear."""
  for i in range(m.nu):
    d.actuator_moment[i, :] = 0.0
    gear = m.actuator_gear[i]
    trntype = m.actuator_trntype[i]
    idx = m.actuator_trnid[i, 0]
    if trntype == TrnType.JOINT or trntype == TrnType.JOINTINPARENT:
      jtype = m.jnt_type[idx]
      qadr = m.jnt_qposadr[idx]
      dofadr = m.jnt_dofadr[idx]
      if jtype == JNT_HINGE or jtype == JNT_SLIDE:
        d.actuator_length[i] = gear[0] * d.qpos[qadr]
        d.actuator_moment[i, dofadr] = gear[0]
      elif jtype == JNT_BALL:
        quat = math.normalize4(d.qpos[qadr:qadr + 4])
        axis = _gear_axis(trntype, gear[:3], quat)
        d.actuator_length[i] = math.dot3(math.quat_to_vel(quat, 1.0), axis)
        math.store(d.actuator_moment[i, dofadr:dofadr + 3], axis)
      else:
        # a free joint has no meaningful scalar length
        quat = math.normalize4(d.qpos[qadr + 3:qadr + 7])
        d.actuator_length[i] = 0.0
        math.store(d.actuator_moment[i, dofadr:dofadr + 3], gear[:3])
        math.store(d.actuator_moment[i, dofadr + 3:dofadr + 6], _gear_axis(trntype, gear[3:6], quat))
    elif trntype == TrnType.TENDON:
      d.actuator_length[i] = gear[0] * d.ten_length[idx]
      for k in range(m.nv):
        d.actuator_moment[i, k] = gear[0] * d.ten_J[idx, k]
    elif trntype == TrnType.SITE:
      _site_transmission(m, d, i, idx, m.actuator_trnid[i, 1], gear)
    elif trntype == TrnType.SLIDERCRANK:
      _slider_crank(m, d, i, idx, m.actuator_trnid[i, 1], gear[0])
    elif trntype == TrnType.BODY:
      _body_transmission(m, d, i, idx, gear[0])


@njit(cache=True, error_model="numpy")
def _site_transmission(m, d, i, site, ref, gear):
  """A wrench (gear: force, torque in the site frame) at a site; with a reference site, the length is the
  site's displacement from it (position and rotation vector in the reference frame) along the gear."""
  moment = d.actuator_moment[i]
  body = m.site_bodyid[site]
  pos = d.site_xpos[site]
  if ref < 0:
    d.actuator_length[i] = 0.0
    mat = d.site_xmat[site]
    support.apply_ft(m, d, math.mat_vec(mat, gear[:3]), math.mat_vec(mat, gear[3:6]), pos, body, moment)
    return
  rbody = m.site_bodyid[ref]
  rpos = d.site_xpos[ref]
  rmat = d.site_xmat[ref]
  rel = math.mat_t_vec(rmat, math.sub3(pos, rpos))
  q = math.quat_mul(d.xquat[body], m.site_quat[site])
  rq = math.quat_mul(d.xquat[rbody], m.site_quat[ref])
  rot = math.quat_to_vel(math.quat_mul((rq[0], -rq[1], -rq[2], -rq[3]), q), 1.0)
  d.actuator_length[i] = math.dot3(rel, gear[:3]) + math.dot3(rot, gear[3:6])
  force = math.mat_vec(rmat, gear[:3])
  torque = math.mat_vec(rmat, gear[3:6])
  zero = (0.0, 0.0, 0.0)
  support.apply_ft(m, d, force, torque, pos, body, moment)
  support.apply_ft(m, d, (-force[0], -force[1], -force[2]), (-torque[0], -torque[1], -torque[2]), rpos, rbody,
                   moment)
  # the reference frame turns the offset with it: d(R_refᵀ r)/dt picks up -w_ref × r
  r = math.sub3(pos, rpos)
  support.apply_ft(m, d, zero, math.cross(force, r), rpos, rbody, moment)


@njit(cache=True, error_model="numpy")
def _slider_crank(m, d, i, crank, slider, gear):
  """Slider-crank: a rod of length cranklength from the crank site to the slider site's z axis.

  length = a·v - sqrt((a·v)² + r² - |v|²) with v = crank - slider and a the slider axis; the moment is
  its gradient through the two sites' motion and the axis' rotation with the slider's body.
  """
  moment = d.actuator_moment[i]
  smat = d.site_xmat[slider]
  axis = (smat[2], smat[5], smat[8])
  v = math.sub3(d.site_xpos[crank], d.site_xpos[slider])
  av = math.dot3(v, axis)
  r = m.actuator_cranklength[i]
  det = av * av + r * r - math.dot3(v, v)
  if det <= 0.0:
    # the rod cannot reach the axis: degenerate, take the projection
    length = av
    dldv = axis
    dlda = v
  else:
    sdet = pymath.sqrt(det)
    length = av - sdet
    c = av / sdet
    dldv = (axis[0] - (c * axis[0] - v[0] / sdet), axis[1] - (c * axis[1] - v[1] / sdet),
            axis[2] - (c * axis[2] - v[2] / sdet))
    dlda = (v[0] * (1.0 - c), v[1] * (1.0 - c), v[2] * (1.0 - c))
  d.actuator_length[i] = gear * length
  f = (gear * dldv[0], gear * dldv[1], gear * dldv[2])
  zero = (0.0, 0.0, 0.0)
  support.apply_ft(m, d, f, zero, d.site_xpos[crank], m.site_bodyid[crank], moment)
  # the slider site moves v by -(its velocity) and turns the axis: da/dt = w × a, so dL = w · (a × dlda)
  t = math.cross(axis, dlda)
  support.apply_ft(m, d, (-f[0], -f[1], -f[2]), (gear * t[0], gear * t[1], gear * t[2]), d.site_xpos[slider],
                   m.site_bodyid[slider], moment)


@njit(cache=True, error_model="numpy")
def _body_transmission(m, d, i, body, gear):
  """Adhesion: minus the average normal Jacobian of the body's contacts (pulls them together).

  Contacts in the gap band (farther than margin - gap, so without constraint rows) count too, as in
  MuJoCo: adhesion reaches as far as the geom margin.
  """
  moment = d.actuator_moment[i]
  d.actuator_length[i] = 0.0
  count = 0
  for c in range(d.ncon[0]):
    if d.contact_geom2[c] < 0:
      continue  # a flex contact: MuJoCo's adhesion leaves them out
    if m.geom_bodyid[d.contact_geom1[c]] == body or m.geom_bodyid[d.contact_geom2[c]] == body:
      count += 1
  if count == 0:
    return
  zero = (0.0, 0.0, 0.0)
  for c in range(d.ncon[0]):
    if d.contact_geom2[c] < 0:
      continue
    b1 = m.geom_bodyid[d.contact_geom1[c]]
    b2 = m.geom_bodyid[d.contact_geom2[c]]
    if b1 != body and b2 != body:
      continue
    n = d.contact_frame[c]
    s = gear / count
    f = (s * n[0], s * n[1], s * n[2])
    support.apply_ft(m, d, (-f[0], -f[1], -f[2]), zero, d.contact_pos[c], b2, moment)
    support.apply_ft(m, d, f, zero, d.contact_pos[c], b1, moment)


@njit(cache=True, error_model="numpy")
def _gear_axis(trntype, gear, quat):
  """Rotational gear in the joint's child frame: as given, or from the parent frame for jointinparent."""
  if trntype == TrnType.JOINT:
    return (gear[0], gear[1], gear[2])
  return math.rot_vec_quat(gear, (quat[0], -quat[1], -quat[2], -quat[3]))


# -------------------------------------------------------------------------------------------- inertia ----


@_jit.separate
@njit(cache=True, error_model="numpy")
def crb(m, d):
  """Composite rigid-body inertias (crb) and the joint-space inertia qM (legacy sparse layout)."""
  # Data's and Model's arrays bound once and read element by element: a row view (d.crb[b], d.cdof[i]) made per
  # dof costs more than the arithmetic it feeds
  crbs = d.crb
  cinert = d.cinert
  cdof = d.cdof
  qm = d.qM
  body_parentid = m.body_parentid
  body_simple = m.body_simple
  dof_bodyid = m.dof_bodyid
  dof_parentid = m.dof_parentid
  dof_madr = m.dof_Madr
  for i in range(m.nbody):
    for k in range(10):
      crbs[i, k] = cinert[i, k]
  for i in range(m.nbody - 1, 0, -1):
    p = body_parentid[i]
    # bodies of different trees are expressed at different points, and the world has no dofs
    if p > 0:
      for k in range(10):
        crbs[p, k] += crbs[i, k]
  for i in range(m.nv):
    # all dofs of one tree share the same reference point, so M[i, j] = cdof[j] · crb[body(i)] cdof[i]
    b = dof_bodyid[i]
    v = (cdof[i, 0], cdof[i, 1], cdof[i, 2], cdof[i, 3], cdof[i, 4], cdof[i, 5])
    f = math.mul_inert_vec((crbs[b, 0], crbs[b, 1], crbs[b, 2], crbs[b, 3], crbs[b, 4], crbs[b, 5], crbs[b, 6],
                            crbs[b, 7], crbs[b, 8], crbs[b, 9]), v)
    adr = dof_madr[i]
    qm[adr] = math.dot6(v, f) + support.dof_armature(m, i)
    # MuJoCo takes the block of a simple body (body_simple) as diagonal: exact for its aligned axes, and what
    # keeps two coaxial slides of one such body from making M singular
    simple = body_simple[b] != 0
    j = dof_parentid[i]
    while j >= 0:
      adr += 1
      qm[adr] = 0.0 if simple else (cdof[j, 0] * f[0] + cdof[j, 1] * f[1] + cdof[j, 2] * f[2] + cdof[j, 3] * f[3]
                                    + cdof[j, 4] * f[4] + cdof[j, 5] * f[5])
      j = dof_parentid[j]


@njit(cache=True, error_model="numpy")
def _tendon_armature_of(m, t):
  """Armature of tendon t: its own plus what its actuators add."""
  return m.tendon_armature[t] + support.tendon_actuator_armature(m, t)


@_jit.separate
@njit(cache=True, error_model="numpy")
def tendon_armature(m, d):
  """qM += armature ten_Jᵀ ten_J of each tendon with armature (MuJoCo's mj_tendonArmature, after crb).

  As in MuJoCo 4, only the entries in qM's sparsity get the term: dofs i, j coupled by a tendon where neither is
  an ancestor of the other (other branches, other trees) keep M[i, j] = 0.
  """
  for t in range(m.ntendon):
    armature = _tendon_armature_of(m, t)
    if armature == 0.0:
      continue
    ten_J = d.ten_J[t]
    for i in range(m.nv):
      ji = ten_J[i]
      if ji == 0.0:
        continue
      scl = armature * ji
      adr = m.dof_Madr[i]
      d.qM[adr] += scl * ji
      j = m.dof_parentid[i]
      while j >= 0:
        adr += 1
        d.qM[adr] += scl * ten_J[j]
        j = m.dof_parentid[j]


@njit(cache=True, error_model="numpy")
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


@njit(cache=True, error_model="numpy")
def factor_sparse(m, src, ld, diaginv):
  """Factors a symmetric matrix in qM layout as Lᵀ D L (L unit lower triangular on the dof tree).

  ``ld`` gets D on the diagonal slots and L below it, in the same layout; ``diaginv`` = 1 / D. ``src`` and
  ``ld`` may be the same array. Eliminating from the leaves up keeps all fill-in inside the ancestor
  pattern, so the factor needs no more memory than the matrix.

  A pivot below MINVAL (a singular matrix: coaxial joints in one body, a zero-length axis) is raised to MINVAL,
  as MuJoCo does. Returns (number of pivots raised, the last dof raised, i.e. the lowest; -1 if none) for the
  caller's INERTIA warning.
  """
  madr = m.dof_Madr
  parentid = m.dof_parentid
  nv = m.nv
  if ld is not src:
    math.store(ld, src)
  nsmall = 0
  last = -1
  for k in range(nv - 1, -1, -1):
    adr_kk = madr[k]
    # a NaN pivot is left as it is (as in MuJoCo): the acceleration check catches what it causes
    if ld[adr_kk] < MINVAL:
      ld[adr_kk] = MINVAL
      nsmall += 1
      last = k
    adr_ki = adr_kk + 1
    i = parentid[k]
    while i >= 0:
      tmp = ld[adr_ki] / ld[adr_kk]
      # row i's entries (i, i), (i, parent(i)), ... line up with row k's entries from (k, i) on; row i holds
      # one entry per dof from i to its root, up to where row i + 1 starts (a count instead of walking the
      # parent chain, whose dependent loads would set the pace)
      adr_ij = madr[i]
      n = (madr[i + 1] if i + 1 < nv else m.nM) - adr_ij
      for t in range(n):
        ld[adr_ij + t] -= tmp * ld[adr_ki + t]
      ld[adr_ki] = tmp
      adr_ki += 1
      i = parentid[i]
  for i in range(m.nv):
    diaginv[i] = 1.0 / ld[madr[i]]
  return nsmall, last


@njit(cache=True, error_model="numpy")
def solve_lt(m, ld, x):
  """x <- L⁻ᵀ x in place, L the unit lower factor of factor_sparse (from the leaves up)."""
  madr = m.dof_Madr
  parentid = m.dof_parentid
  for i in range(m.nv - 1, -1, -1):
    xi = x[i]
    if xi != 0.0:
      adr = madr[i] + 1
      j = parentid[i]
      while j >= 0:
        x[j] -= ld[adr] * xi
        adr += 1
        j = parentid[j]


@njit(cache=True, error_model="numpy")
def solve_sparse(m, ld, diaginv, x, y):
  """x = (Lᵀ D L)⁻¹ y from a factor_sparse factor; x and y (nv,) may be the same array."""
  nv = m.nv
  if x is not y:
    math.store(x, y)
  solve_lt(m, ld, x)
  for i in range(nv):
    x[i] *= diaginv[i]
  madr = m.dof_Madr
  parentid = m.dof_parentid
  for i in range(nv):
    adr = madr[i] + 1
    j = parentid[i]
    s = 0.0
    while j >= 0:
      s += ld[adr] * x[j]
      adr += 1
      j = parentid[j]
    x[i] -= s


@_jit.separate
@njit(cache=True, error_model="numpy")
def factor_m(m, d):
  """qLD, qLDiagInv = sparse Lᵀ D L factor of qM; pivots raised to MINVAL count as INERTIA warnings."""
  nsmall, last = factor_sparse(m, d.qM, d.qLD, d.qLDiagInv)
  warn_inertia(d, nsmall, last)


@njit(cache=True, error_model="numpy")
def warn_inertia(d, nsmall, last):
  """Counts ``nsmall`` INERTIA warnings (pivots of a mass-like matrix raised to MINVAL), the last at dof ``last``."""
  if nsmall > 0:
    d.warning_number[WARN_INERTIA] += nsmall
    d.warning_lastinfo[WARN_INERTIA] = last


@_jit.separate
@njit(cache=True, error_model="numpy")
def solve_m(m, d, x, y):
  """x = M⁻¹ y using the factor from factor_m (x and y may be the same array)."""
  solve_sparse(m, d.qLD, d.qLDiagInv, x, y)


# ------------------------------------------------------------------------------------------- velocity ----


@njit(cache=True, error_model="numpy")
def _com_vel(m, d, qvel, cvel, cdof_dot):
  """cvel, cdof_dot of joint velocity ``qvel`` (cdof from com_pos)."""
  body_parentid = m.body_parentid
  body_jntadr = m.body_jntadr
  body_jntnum = m.body_jntnum
  jnt_dofadr = m.jnt_dofadr
  jnt_type = m.jnt_type
  cdof = d.cdof
  for c in range(6):
    cvel[0, c] = 0.0
  for i in range(1, m.nbody):
    p = body_parentid[i]
    for c in range(6):
      cvel[i, c] = cvel[p, c]
    for j in range(body_jntadr[i], body_jntadr[i] + body_jntnum[i]):
      dofadr = jnt_dofadr[j]
      jtype = jnt_type[j]
      if jtype == JNT_FREE or jtype == JNT_BALL:
        if jtype == JNT_FREE:
          # world-aligned translations do not rotate with the body
          for k in range(3):
            for c in range(6):
              cdof_dot[dofadr + k, c] = 0.0
          _add_dof_vel(cvel, i, cdof, qvel, dofadr, 3)
          dofadr += 3
        # all three rotational axes move with the velocity before the ball's own rotation
        for k in range(3):
          _cross_motion_row(cdof_dot, dofadr + k, cvel, i, cdof)
        _add_dof_vel(cvel, i, cdof, qvel, dofadr, 3)
      else:
        _cross_motion_row(cdof_dot, dofadr, cvel, i, cdof)
        _add_dof_vel(cvel, i, cdof, qvel, dofadr, 1)


@njit(cache=True, error_model="numpy", inline="always")
def _cross_motion_row(res, r, v, i, u):
  """res[r] = v[i] ×ₘ u[r] (math.cross_motion on rows, without views)."""
  x = math.cross_motion((v[i, 0], v[i, 1], v[i, 2], v[i, 3], v[i, 4], v[i, 5]),
                        (u[r, 0], u[r, 1], u[r, 2], u[r, 3], u[r, 4], u[r, 5]))
  for c in range(6):
    res[r, c] = x[c]


@njit(cache=True, error_model="numpy")
def _add_dof_vel(vel, i, cdof, qvel, dofadr, n):
  """vel[i] += Σ cdof[k] qvel[k] over the n dofs from dofadr."""
  for k in range(dofadr, dofadr + n):
    for c in range(6):
      vel[i, c] += cdof[k, c] * qvel[k]


@_jit.separate
@njit(cache=True, error_model="numpy")
def com_vel(m, d):
  """Com-based body velocities cvel and the time derivatives of the dof axes cdof_dot."""
  _com_vel(m, d, d.qvel, d.cvel, d.cdof_dot)


@njit(cache=True, error_model="numpy")
def _body_forces(m, d, qvel, qacc, use_qacc, cvel, cdof_dot, cacc, cfrc):
  """Forward RNE pass: cacc of every body, then cfrc = cinert cacc + cvel ×f (cinert cvel)."""
  body_parentid = m.body_parentid
  body_dofadr = m.body_dofadr
  body_dofnum = m.body_dofnum
  cdof = d.cdof
  cinert = d.cinert
  # gravity enters as an upward acceleration of the world
  for c in range(6):
    cacc[0, c] = 0.0
  if (m.opt_disableflags[0] & DSBL_GRAVITY) == 0:
    gravity = m.opt_gravity
    for k in range(3):
      cacc[0, 3 + k] = -gravity[k]
  for i in range(1, m.nbody):
    p = body_parentid[i]
    for c in range(6):
      cacc[i, c] = cacc[p, c]
    for j in range(body_dofadr[i], body_dofadr[i] + body_dofnum[i]):
      for c in range(6):
        cacc[i, c] += cdof_dot[j, c] * qvel[j]
      if use_qacc:
        for c in range(6):
          cacc[i, c] += cdof[j, c] * qacc[j]
  for i in range(m.nbody):
    inert = (cinert[i, 0], cinert[i, 1], cinert[i, 2], cinert[i, 3], cinert[i, 4], cinert[i, 5], cinert[i, 6],
             cinert[i, 7], cinert[i, 8], cinert[i, 9])
    vel = (cvel[i, 0], cvel[i, 1], cvel[i, 2], cvel[i, 3], cvel[i, 4], cvel[i, 5])
    fa = math.mul_inert_vec(inert, (cacc[i, 0], cacc[i, 1], cacc[i, 2], cacc[i, 3], cacc[i, 4], cacc[i, 5]))
    fv = math.cross_force(vel, math.mul_inert_vec(inert, vel))
    for c in range(6):
      cfrc[i, c] = fa[c] + fv[c]


@njit(cache=True, error_model="numpy")
def _bias(m, d, qvel, cvel, cdof_dot, cacc, cfrc, out):
  """out = qfrc_bias at velocity qvel, given its cvel and cdof_dot; cacc and cfrc are work arrays."""
  _body_forces(m, d, qvel, qvel, False, cvel, cdof_dot, cacc, cfrc)
  body_parentid = m.body_parentid
  for i in range(m.nbody - 1, 0, -1):
    p = body_parentid[i]
    for c in range(6):
      cfrc[p, c] += cfrc[i, c]
  cdof = d.cdof
  dof_bodyid = m.dof_bodyid
  for j in range(m.nv):
    b = dof_bodyid[j]
    out[j] = (cdof[j, 0] * cfrc[b, 0] + cdof[j, 1] * cfrc[b, 1] + cdof[j, 2] * cfrc[b, 2] + cdof[j, 3] * cfrc[b, 3]
              + cdof[j, 4] * cfrc[b, 4] + cdof[j, 5] * cfrc[b, 5])


@_jit.separate
@njit(cache=True, error_model="numpy")
def rne(m, d):
  """qfrc_bias: gravity plus Coriolis and centrifugal forces, by recursive Newton-Euler at qacc = 0."""
  _bias(m, d, d.qvel, d.cvel, d.cdof_dot, d.rne_cacc, d.rne_cfrc, d.qfrc_bias)


@njit(cache=True, error_model="numpy")
def _point_vel(d, b, root, p):
  """Linear velocity of point p fixed to body b (root: its tree's root body), from cvel."""
  com = d.subtree_com[root]
  w = (d.cvel[b, 0], d.cvel[b, 1], d.cvel[b, 2])
  r = (p[0] - com[0], p[1] - com[1], p[2] - com[2])
  c = math.cross(w, r)
  return (d.cvel[b, 3] + c[0], d.cvel[b, 4] + c[1], d.cvel[b, 5] + c[2])


@njit(cache=True, error_model="numpy")
def _point_jac_dot_vel(m, d, p, b):
  """(d/dt J_p) qvel for point p fixed to body b, J_p its translational Jacobian (MuJoCo's mj_jacDot times qvel)."""
  root = m.body_rootid[b]
  com = d.subtree_com[root]
  offset = (p[0] - com[0], p[1] - com[1], p[2] - com[2])
  pvel = _point_vel(d, b, root, p)
  res0 = res1 = res2 = 0.0
  weld = m.body_weldid[b]
  if m.body_dofnum[weld] == 0:
    return (0.0, 0.0, 0.0)
  i = m.body_dofadr[weld] + m.body_dofnum[weld] - 1
  while i >= 0:
    cdof = (d.cdof[i, 0], d.cdof[i, 1], d.cdof[i, 2], d.cdof[i, 3], d.cdof[i, 4], d.cdof[i, 5])
    jnt = m.dof_jntid[i]
    jtype = m.jnt_type[jnt]
    if jtype == JNT_BALL or (jtype == JNT_FREE and i >= m.jnt_dofadr[jnt] + 3):
      # a quaternion dof's axis turns with its own body's full velocity
      bi = m.dof_bodyid[i]
      cdd = math.cross_motion((d.cvel[bi, 0], d.cvel[bi, 1], d.cvel[bi, 2], d.cvel[bi, 3], d.cvel[bi, 4],
                               d.cvel[bi, 5]), cdof)
    else:
      cdd = (d.cdof_dot[i, 0], d.cdof_dot[i, 1], d.cdof_dot[i, 2], d.cdof_dot[i, 3], d.cdof_dot[i, 4],
             d.cdof_dot[i, 5])
    t1 = math.cross((cdd[0], cdd[1], cdd[2]), offset)
    t2 = math.cross((cdof[0], cdof[1], cdof[2]), pvel)
    v = d.qvel[i]
    res0 += (cdd[3] + t1[0] + t2[0]) * v
    res1 += (cdd[4] + t1[1] + t2[1]) * v
    res2 += (cdd[5] + t1[2] + t2[2]) * v
    i = m.dof_parentid[i]
  return (res0, res1, res2)


@njit(cache=True, error_model="numpy")
def _tendon_dot(m, d, t):
  """(d/dt ten_J[t]) qvel of spatial tendon t (its path sites and pulleys only; fixed tendons: 0)."""
  adr, num = m.tendon_adr[t], m.tendon_num[t]
  if m.wrap_type[adr] == WrapType.JOINT:
    return 0.0
  res = 0.0
  divisor = 1.0
  for j in range(adr, adr + num - 1):
    if m.wrap_type[j] == WrapType.PULLEY:
      divisor = m.wrap_prm[j]
      continue
    if m.wrap_type[j + 1] == WrapType.PULLEY:
      continue
    s0, s1 = m.wrap_objid[j], m.wrap_objid[j + 1]
    b0, b1 = m.site_bodyid[s0], m.site_bodyid[s1]
    if b0 == b1:
      continue
    p0, p1 = d.site_xpos[s0], d.site_xpos[s1]
    v0 = _point_vel(d, b0, m.body_rootid[b0], p0)
    v1 = _point_vel(d, b1, m.body_rootid[b1], p1)
    dif = (p1[0] - p0[0], p1[1] - p0[1], p1[2] - p0[2])
    norm = pymath.sqrt(math.dot3(dif, dif))
    u = (1.0, 0.0, 0.0) if norm < MINVAL else (dif[0] / norm, dif[1] / norm, dif[2] / norm)
    dv = (v1[0] - v0[0], v1[1] - v0[1], v1[2] - v0[2])
    # d/dt of the unit direction u: the part of the relative velocity across it, over the length
    along = math.dot3(u, dv)
    inv = 1.0 / norm if norm > MINVAL else 0.0
    du = ((dv[0] - along * u[0]) * inv, (dv[1] - along * u[1]) * inv, (dv[2] - along * u[2]) * inv)
    a0 = _point_jac_dot_vel(m, d, p0, b0)
    a1 = _point_jac_dot_vel(m, d, p1, b1)
    res += math.dot3((a1[0] - a0[0], a1[1] - a0[1], a1[2] - a0[2]), u) / divisor
    res += math.dot3(dv, du) / divisor
  return res


@_jit.separate
@njit(cache=True, error_model="numpy")
def tendon_bias(m, d):
  """qfrc_bias += ten_J armature (d/dt ten_J) qvel for each tendon with armature (MuJoCo's mj_tendonBias)."""
  for t in range(m.ntendon):
    armature = _tendon_armature_of(m, t)
    if armature == 0.0:
      continue
    coef = armature * _tendon_dot(m, d, t)
    if coef != 0.0:
      for i in range(m.nv):
        d.qfrc_bias[i] += coef * d.ten_J[t, i]


@njit(cache=True, error_model="numpy")
def bias_force(m, d, qvel, cvel, cdof_dot, cacc, cfrc, out):
  """out (nv,) = bias force at an arbitrary velocity qvel, at d's positions; leaves d's velocity fields alone.

  cvel, cacc, cfrc (nbody, 6) and cdof_dot (nv, 6) are caller-provided work arrays.
  """
  _com_vel(m, d, qvel, cvel, cdof_dot)
  _bias(m, d, qvel, cvel, cdof_dot, cacc, cfrc, out)


@njit(cache=True, error_model="numpy")
def _tendon_force(m, d, t):
  """Scalar force along tendon t (positive lengthens): spring, damper, actuators and constraint rows."""
  f = 0.0
  flags = m.opt_disableflags[0]
  if (flags & DSBL_SPRING) == 0:
    length = d.ten_length[t]
    if length > m.tendon_lengthspring[t, 1]:
      f += m.tendon_stiffness[t] * (m.tendon_lengthspring[t, 1] - length)
    elif length < m.tendon_lengthspring[t, 0]:
      f += m.tendon_stiffness[t] * (m.tendon_lengthspring[t, 0] - length)
  if (flags & DSBL_DAMPER) == 0:
    f -= support.tendon_damping(m, t) * d.ten_velocity[t]
  for i in range(m.nu):
    if m.actuator_trntype[i] == TrnType.TENDON and m.actuator_trnid[i, 0] == t:
      f += m.actuator_gear[i, 0] * d.actuator_force[i]
  for r in range(d.nefc[0]):
    if (d.efc_type[r] == CNSTR_LIMIT_TENDON or d.efc_type[r] == CNSTR_FRICTION_TENDON) and d.efc_id[r] == t:
      f += d.efc_force[r]
  return f


@njit(cache=True, error_model="numpy")
def _add_ext_force(m, d, body, point, f):
  """cfrc_ext[body] += the com-based wrench of force f acting at world ``point`` (the world takes none)."""
  if body == 0:
    return
  r = math.sub3(point, d.subtree_com[m.body_rootid[body]])
  t = math.cross(r, f)
  for k in range(3):
    d.cfrc_ext[body, k] += t[k]
    d.cfrc_ext[body, 3 + k] += f[k]


@njit(cache=True, error_model="numpy")
def _tendon_pull(m, d, p0, b0, p1, b1, force):
  """A straight tendon piece under ``force`` (positive pushes apart) acting on the bodies at its ends."""
  if b0 == b1:
    return
  dif = math.sub3(p1, p0)
  n = pymath.sqrt(math.dot3(dif, dif))
  if n < MINVAL:
    return
  f = (force * dif[0] / n, force * dif[1] / n, force * dif[2] / n)
  _add_ext_force(m, d, b1, p1, f)
  _add_ext_force(m, d, b0, p0, (-f[0], -f[1], -f[2]))


@njit(cache=True, error_model="numpy")
def _spatial_tendon_cfrc_ext(m, d):
  """cfrc_ext += the forces spatial tendons exert on the bodies along their paths, as MuJoCo counts them."""
  for t in range(m.ntendon):
    adr, end = m.tendon_adr[t], m.tendon_adr[t] + m.tendon_num[t]
    if m.tendon_num[t] == 0 or m.wrap_type[adr] == WrapType.JOINT:
      continue
    force = _tendon_force(m, d, t)
    if force == 0.0:
      continue
    xpos = d.wrap_xpos
    k = d.ten_wrapadr[t]
    divisor = 1.0
    j = adr
    while j < end:
      if m.wrap_type[j] == WrapType.PULLEY:
        divisor = m.wrap_prm[j]
        k += 1
        j += 1
        continue
      while j + 1 < end and m.wrap_type[j + 1] != WrapType.PULLEY:
        b0 = m.site_bodyid[m.wrap_objid[j]]
        p0 = _point(xpos, k)
        if m.wrap_type[j + 1] == WrapType.SITE:
          _tendon_pull(m, d, p0, b0, _point(xpos, k + 1), m.site_bodyid[m.wrap_objid[j + 1]], force / divisor)
          k += 1
          j += 1
        else:
          g = m.wrap_objid[j + 1]
          b1 = m.site_bodyid[m.wrap_objid[j + 2]]
          if d.wrap_obj[(k + 1) // 2, (k + 1) % 2] == g:
            bg = m.geom_bodyid[g]
            _tendon_pull(m, d, p0, b0, _point(xpos, k + 1), bg, force / divisor)
            _tendon_pull(m, d, _point(xpos, k + 2), bg, _point(xpos, k + 3), b1, force / divisor)
            k += 3
          else:
            _tendon_pull(m, d, p0, b0, _point(xpos, k + 1), b1, force / divisor)
            k += 1
          j += 2
      k += 1
      j += 1


@njit(cache=True, error_model="numpy")
def _point(wrap_xpos, k):
  row = wrap_xpos[k // 2]
  c = 3 * (k % 2)
  return (row[c], row[c + 1], row[c + 2])


@_jit.separate
@njit(cache=True, error_model="numpy")
def rne_postconstraint(m, d):
  """cacc, cfrc_int and cfrc_ext of the current qacc, as mj_rnePostConstraint (external: xfrc_applied)."""
  for i in range(m.nbody):
    # the applied wrench acts at the body com; move its torque to the tree's reference point
    xf = d.xfrc_applied[i]
    r = math.sub3(d.xipos[i], d.subtree_com[m.body_rootid[i]])
    t = math.cross(r, xf[:3])
    for k in range(3):
      d.cfrc_ext[i, k] = xf[3 + k] + t[k]
      d.cfrc_ext[i, 3 + k] = xf[k]
  support.add_contact_cfrc_ext(m, d)
  _spatial_tendon_cfrc_ext(m, d)
  _body_forces(m, d, d.qvel, d.qacc, True, d.cvel, d.cdof_dot, d.cacc, d.cfrc_int)
  for i in range(m.nbody):
    for c in range(6):
      d.cfrc_int[i, c] -= d.cfrc_ext[i, c]
  for i in range(m.nbody - 1, 0, -1):
    p = m.body_parentid[i]
    for c in range(6):
      d.cfrc_int[p, c] += d.cfrc_int[i, c]
