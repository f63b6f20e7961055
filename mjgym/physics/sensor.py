"""Sensors: ``sensor_pos``, ``sensor_vel`` and ``sensor_acc`` fill ``sensordata`` at MuJoCo's stages.

Each sensor writes ``sensor_dim`` numbers at ``sensordata[sensor_adr:]`` in the stage named by its
``sensor_needstage``, then its ``cutoff`` is applied (real data clamped to [-cutoff, cutoff], positive data
to at most cutoff; axes and quaternions are left alone). ``noise`` is stored but, as in MuJoCo, never
applied. A sensor with a history buffer (``nsample``) may report a delayed or interval-sampled value instead
(history.py). ``user`` sensors are filled outside the compiled pipeline by a Python callback (see
``api.set_mjcb_sensor``).

Sensors of objects on bodies use MuJoCo's object frames: ``xbody`` is the body frame, ``body`` its
inertial frame, then geoms, sites and cameras. Velocities and accelerations are taken from the com-based
``cvel`` / ``cacc`` and moved to the object's origin. The distance, normal and fromto sensors collide their geoms
with the narrow phase (collision/distance.py); contact sensors read the contacts and their solved forces.
"""

import math as pymath

from numba import njit

from mjgym.physics import _jit
from mjgym.physics import energy
from mjgym.physics import flex
from mjgym.physics import history
from mjgym.physics import math
from mjgym.physics import ray
from mjgym.physics import smooth
from mjgym.physics import support
from mjgym.physics.collision import distance
from mjgym.physics.constants import CNSTR_CONTACT_PYRAMIDAL
from mjgym.physics.constants import CNSTR_LIMIT_JOINT
from mjgym.physics.constants import CNSTR_LIMIT_TENDON
from mjgym.physics.constants import DSBL_CONSTRAINT
from mjgym.physics.constants import DSBL_LIMIT
from mjgym.physics.constants import DSBL_SENSOR
from mjgym.physics.constants import ENBL_ENERGY
from mjgym.physics.constants import GEOM_BOX
from mjgym.physics.constants import GEOM_CAPSULE
from mjgym.physics.constants import GEOM_CYLINDER
from mjgym.physics.constants import GEOM_ELLIPSOID
from mjgym.physics.constants import GEOM_SPHERE
from mjgym.physics.constants import JNT_BALL
from mjgym.physics.types import DataType
from mjgym.physics.types import MINVAL
from mjgym.physics.types import ObjType
from mjgym.physics.types import SensorType as S
from mjgym.physics.types import Stage


# Stages as plain ints (the lazy history kernel takes an int64).
_STAGE_POS, _STAGE_VEL, _STAGE_ACC = int(Stage.POS), int(Stage.VEL), int(Stage.ACC)


# ------------------------------------------------------------------------------------- object frames ----


@njit(cache=True, error_model="numpy")
def _object_pose(m, d, objtype, objid):
  """World position, rotation matrix (9,) and body of a sensed object."""
  if objtype == ObjType.XBODY:
    return d.xpos[objid], d.xmat[objid], objid
  if objtype == ObjType.BODY:
    return d.xipos[objid], d.ximat[objid], objid
  if objtype == ObjType.GEOM:
    return d.geom_xpos[objid], d.geom_xmat[objid], m.geom_bodyid[objid]
  if objtype == ObjType.SITE:
    return d.site_xpos[objid], d.site_xmat[objid], m.site_bodyid[objid]
  return d.cam_xpos[objid], d.cam_xmat[objid], m.cam_bodyid[objid]


@njit(cache=True, error_model="numpy")
def _object_quat(m, d, objtype, objid):
  """World orientation of a sensed object as the product of its body's quaternion and its local one."""
  if objtype == ObjType.XBODY:
    q = d.xquat[objid]
    return (q[0], q[1], q[2], q[3])
  if objtype == ObjType.BODY:
    return math.quat_mul(d.xquat[objid], m.body_iquat[objid])
  if objtype == ObjType.GEOM:
    return math.quat_mul(d.xquat[m.geom_bodyid[objid]], m.geom_quat[objid])
  if objtype == ObjType.SITE:
    return math.quat_mul(d.xquat[m.site_bodyid[objid]], m.site_quat[objid])
  return math.quat_mul(d.xquat[m.cam_bodyid[objid]], m.cam_quat[objid])


@njit(cache=True, error_model="numpy")
def _point_velocity(m, d, body, pos):
  """(angular, linear) world velocity of the point ``pos`` moving with ``body``."""
  v = d.cvel[body]
  c = d.subtree_com[m.body_rootid[body]]
  r = (pos[0] - c[0], pos[1] - c[1], pos[2] - c[2])
  w = (v[0], v[1], v[2])
  rw = math.cross(r, w)
  return w, (v[3] - rw[0], v[4] - rw[1], v[5] - rw[2])


@njit(cache=True, error_model="numpy")
def _point_acceleration(m, d, body, pos):
  """(angular, linear) world acceleration of the point ``pos`` moving with ``body`` (needs cacc).

  cacc is a spatial acceleration; the classical acceleration of a point adds w x v.
  """
  a = d.cacc[body]
  c = d.subtree_com[m.body_rootid[body]]
  r = (pos[0] - c[0], pos[1] - c[1], pos[2] - c[2])
  alpha = (a[0], a[1], a[2])
  ra = math.cross(r, alpha)
  w, v = _point_velocity(m, d, body, pos)
  wv = math.cross(w, v)
  return alpha, (a[3] - ra[0] + wv[0], a[4] - ra[1] + wv[1], a[5] - ra[2] + wv[2])


# ---------------------------------------------------------------------------------------- helpers ----


@njit(cache=True, error_model="numpy")
def _cutoff(m, d, i):
  """Clamps sensor i's data to its cutoff (real and positive data only; a fromto sensor's cutoff is its reach, a
  contact sensor has none)."""
  cutoff = m.sensor_cutoff[i]
  if cutoff <= 0.0 or m.sensor_type[i] == S.GEOMFROMTO or m.sensor_type[i] == S.CONTACT:
    return
  adr = m.sensor_adr[i]
  datatype = m.sensor_datatype[i]
  for k in range(adr, adr + m.sensor_dim[i]):
    if datatype == DataType.REAL:
      d.sensordata[k] = min(max(d.sensordata[k], -cutoff), cutoff)
    elif datatype == DataType.POSITIVE:
      d.sensordata[k] = min(d.sensordata[k], cutoff)


@njit(cache=True, error_model="numpy")
def _limits_active(m):
  return (m.opt_disableflags[0] & (DSBL_CONSTRAINT | DSBL_LIMIT)) == 0


@njit(cache=True, error_model="numpy")
def _limit_side(m, d, value, lo, hi, margin):
  """The active side of a limit on a scalar (1 lower, -1 upper, 0 none) and its distance beyond the margin.

  The lower side is tested first: when both are within their margin, it is the one reported, as the limit
  rows are ordered lower before upper.
  """
  dist = value - lo
  if dist < margin:
    return 1, dist - margin
  dist = hi - value
  if dist < margin:
    return -1, dist - margin
  return 0, 0.0


@njit(cache=True, error_model="numpy")
def _joint_limit(m, d, j):
  """(side, distance - margin) of joint j's active limit; for a ball joint the side is 1 when active."""
  if not _limits_active(m) or not m.jnt_limited[j]:
    return 0, 0.0
  qadr = m.jnt_qposadr[j]
  if m.jnt_type[j] == JNT_BALL:
    q = math.normalize4(d.qpos[qadr:qadr + 4])
    v = math.quat_to_vel(q, 1.0)
    angle = pymath.sqrt(math.dot3(v, v))
    dist = max(m.jnt_range[j, 0], m.jnt_range[j, 1]) - angle
    if dist < m.jnt_margin[j]:
      return 1, dist - m.jnt_margin[j]
    return 0, 0.0
  return _limit_side(m, d, d.qpos[qadr], m.jnt_range[j, 0], m.jnt_range[j, 1], m.jnt_margin[j])


@njit(cache=True, error_model="numpy")
def _tendon_limit(m, d, t):
  if not _limits_active(m) or not m.tendon_limited[t]:
    return 0, 0.0
  return _limit_side(m, d, d.ten_length[t], m.tendon_range[t, 0], m.tendon_range[t, 1], m.tendon_margin[t])


@njit(cache=True, error_model="numpy")
def _ball_limit_velocity(m, d, j):
  """Rate of change of the distance to a ball joint's limit: minus the rotation speed along its axis."""
  qadr = m.jnt_qposadr[j]
  dadr = m.jnt_dofadr[j]
  q = math.normalize4(d.qpos[qadr:qadr + 4])
  axis = math.normalize3(math.quat_to_vel(q, 1.0))
  return -(axis[0] * d.qvel[dadr] + axis[1] * d.qvel[dadr + 1] + axis[2] * d.qvel[dadr + 2])


@njit(cache=True, error_model="numpy")
def _contact_normal_force(d, c):
  """Normal force of contact c (a pyramid's edges each carry part of it)."""
  first = d.contact_efc_address[c]
  if first < 0:
    return 0.0
  if d.efc_type[first] != CNSTR_CONTACT_PYRAMIDAL:
    return d.efc_force[first]
  f = 0.0
  for k in range(2 * (d.contact_dim[c] - 1)):
    f += d.efc_force[first + k]
  return f


@njit(cache=True, error_model="numpy")
def _touch(m, d, site):
  """Sum of the normal forces of the site body's contacts whose force line, pushing on that body, passes
  through the site's volume (so a contact point inside the site always counts)."""
  body = m.site_bodyid[site]
  total = 0.0
  tables = ray.shape_tables(m)
  for c in range(d.ncon[0]):
    b1 = flex.contact_body(m, d, c, 0)
    b2 = flex.contact_body(m, d, c, 1)
    if b1 != body and b2 != body:
      continue
    f = _contact_normal_force(d, c)
    if f <= 0.0:
      continue
    n = d.contact_frame[c]
    sign = -1.0 if body == b2 else 1.0
    ray_dir = (sign * n[0], sign * n[1], sign * n[2])
    if ray.ray_shape(tables, m.site_type[site], m.site_size[site], d.site_xpos[site], d.site_xmat[site], -1,
                     d.contact_pos[c], ray_dir) >= 0.0:
      total += f
  return total


@njit(cache=True, error_model="numpy")
def _limit_force(d, efc_type, objid):
  """Force of the first active limit row of a joint or tendon (lower before upper; 0 if none)."""
  for r in range(d.nefc[0]):
    if d.efc_type[r] == efc_type and d.efc_id[r] == objid:
      return d.efc_force[r]
  return 0.0


# ------------------------------------------------------------------------------------------- stages ----


@njit(cache=True, error_model="numpy")
def _enabled(m):
  return m.nsensor > 0 and (m.opt_disableflags[0] & DSBL_SENSOR) == 0


@_jit.lazy
@njit(cache=True, error_model="numpy")
def _rangefinder_sensor(m, d, i):
  """Rangefinder sensor i: ray casting, compiled only for models that have one."""
  d.sensordata[m.sensor_adr[i]] = _rangefinder(m, d, m.sensor_objid[i])


@_jit.lazy
@njit(cache=True, error_model="numpy")
def _geom_distance_sensor(m, d, i):
  """Distance, normal or fromto sensor i: the nearest pair of geoms of its two sides (a geom, or a body's geoms)
  within its cutoff, by the narrow phase (compiled only for models that have one)."""
  cutoff = m.sensor_cutoff[i]
  dist = cutoff
  fromto = (0.0, 0.0, 0.0, 0.0, 0.0, 0.0)
  objid, refid = m.sensor_objid[i], m.sensor_refid[i]
  first1, n1 = objid, 1
  if m.sensor_objtype[i] == ObjType.BODY:
    first1, n1 = m.body_geomadr[objid], m.body_geomnum[objid]
  first2, n2 = refid, 1
  if m.sensor_reftype[i] == ObjType.BODY:
    first2, n2 = m.body_geomadr[refid], m.body_geomnum[refid]
  for g1 in range(first1, first1 + n1):
    for g2 in range(first2, first2 + n2):
      dist_new, fromto_new = distance.geom_distance(m, d, g1, g2, cutoff)
      if dist_new < dist:
        dist, fromto = dist_new, fromto_new
  out = d.sensordata[m.sensor_adr[i]:]
  stype = m.sensor_type[i]
  if stype == S.GEOMDIST:
    out[0] = dist
  elif stype == S.GEOMNORMAL:
    nrm = (fromto[3] - fromto[0], fromto[4] - fromto[1], fromto[5] - fromto[2])
    if nrm[0] != 0.0 or nrm[1] != 0.0 or nrm[2] != 0.0:
      nrm = math.normalize3(nrm)
    math.store(out, nrm)
  else:
    for k in range(6):
      out[k] = fromto[k]


@_jit.separate
@njit(cache=True, error_model="numpy")
def sensor_pos(m, d):
  """Position-dependent sensors."""
  if not _enabled(m):
    return
  potential = kinetic = False
  for i in range(m.nsensor):
    if m.sensor_needstage[i] != Stage.POS:
      continue
    stype = m.sensor_type[i]
    objid = m.sensor_objid[i]
    adr = m.sensor_adr[i]
    out = d.sensordata[adr:adr + m.sensor_dim[i]]
    if stype == S.MAGNETOMETER:
      math.store(out, math.mat_t_vec(d.site_xmat[objid], m.opt_magnetic))
    elif stype == S.RANGEFINDER:
      _rangefinder_sensor(m, d, i)
    elif stype == S.GEOMDIST or stype == S.GEOMNORMAL or stype == S.GEOMFROMTO:
      _geom_distance_sensor(m, d, i)
    elif stype == S.JOINTPOS:
      out[0] = d.qpos[m.jnt_qposadr[objid]]
    elif stype == S.TENDONPOS:
      out[0] = d.ten_length[objid]
    elif stype == S.ACTUATORPOS:
      out[0] = d.actuator_length[objid]
    elif stype == S.BALLQUAT:
      qadr = m.jnt_qposadr[objid]
      q = math.normalize4(d.qpos[qadr:qadr + 4])
      for k in range(4):
        out[k] = q[k]
    elif stype == S.JOINTLIMITPOS:
      out[0] = _joint_limit(m, d, objid)[1]
    elif stype == S.TENDONLIMITPOS:
      out[0] = _tendon_limit(m, d, objid)[1]
    elif stype == S.FRAMEPOS or stype == S.FRAMEXAXIS or stype == S.FRAMEYAXIS or stype == S.FRAMEZAXIS:
      pos, mat, _ = _object_pose(m, d, m.sensor_objtype[i], objid)
      if stype == S.FRAMEPOS:
        v = (pos[0], pos[1], pos[2])
      else:
        k = stype - S.FRAMEXAXIS
        v = (mat[k], mat[3 + k], mat[6 + k])
      refid = m.sensor_refid[i]
      if refid >= 0:
        rpos, rmat, _ = _object_pose(m, d, m.sensor_reftype[i], refid)
        if stype == S.FRAMEPOS:
          v = (v[0] - rpos[0], v[1] - rpos[1], v[2] - rpos[2])
        v = math.mat_t_vec(rmat, v)
      math.store(out, v)
    elif stype == S.FRAMEQUAT:
      q = _object_quat(m, d, m.sensor_objtype[i], objid)
      refid = m.sensor_refid[i]
      if refid >= 0:
        r = _object_quat(m, d, m.sensor_reftype[i], refid)
        q = math.quat_mul((r[0], -r[1], -r[2], -r[3]), q)
      for k in range(4):
        out[k] = q[k]
    elif stype == S.SUBTREECOM:
      math.store(out, d.subtree_com[objid])
    elif stype == S.CLOCK:
      out[0] = d.time[0]
    elif stype == S.INSIDESITE:
      out[0] = 1.0 if _inside_site(m, d, i) else 0.0
    elif stype == S.E_POTENTIAL:
      energy.energy_pos(m, d)
      out[0] = d.energy[0]
      potential = True
    elif stype == S.E_KINETIC:
      energy.energy_vel(m, d)
      out[0] = d.energy[1]
      kinetic = True
    elif stype == S.CONTACT:
      _contact_sensor(m, d, i)
    _cutoff(m, d, i)
  if m.nhistory > 0:
    history.sensors(m, d, _STAGE_POS)
  if kinetic and not potential and (m.opt_enableflags[0] & ENBL_ENERGY) == 0:
    # MuJoCo clears d.energy after the position sensors unless one of them computed the potential energy
    d.energy[1] = 0.0


@_jit.separate
@njit(cache=True, error_model="numpy")
def sensor_vel(m, d):
  """Velocity-dependent sensors."""
  if not _enabled(m):
    return
  subtree_done = False
  for i in range(m.nsensor):
    if m.sensor_needstage[i] != Stage.VEL:
      continue
    stype = m.sensor_type[i]
    objid = m.sensor_objid[i]
    adr = m.sensor_adr[i]
    out = d.sensordata[adr:adr + m.sensor_dim[i]]
    if stype == S.VELOCIMETER or stype == S.GYRO:
      w, v = _point_velocity(m, d, m.site_bodyid[objid], d.site_xpos[objid])
      math.store(out, math.mat_t_vec(d.site_xmat[objid], v if stype == S.VELOCIMETER else w))
    elif stype == S.JOINTVEL:
      out[0] = d.qvel[m.jnt_dofadr[objid]]
    elif stype == S.TENDONVEL:
      out[0] = d.ten_velocity[objid]
    elif stype == S.ACTUATORVEL:
      out[0] = d.actuator_velocity[objid]
    elif stype == S.BALLANGVEL:
      dadr = m.jnt_dofadr[objid]
      math.store(out, d.qvel[dadr:dadr + 3])
    elif stype == S.JOINTLIMITVEL:
      side, _ = _joint_limit(m, d, objid)
      if side == 0:
        out[0] = 0.0
      elif m.jnt_type[objid] == JNT_BALL:
        out[0] = _ball_limit_velocity(m, d, objid)
      else:
        out[0] = side * d.qvel[m.jnt_dofadr[objid]]
    elif stype == S.TENDONLIMITVEL:
      side, _ = _tendon_limit(m, d, objid)
      out[0] = side * d.ten_velocity[objid]
    elif stype == S.FRAMELINVEL or stype == S.FRAMEANGVEL:
      pos, _, body = _object_pose(m, d, m.sensor_objtype[i], objid)
      w, v = _point_velocity(m, d, body, pos)
      refid = m.sensor_refid[i]
      if refid >= 0:
        rpos, rmat, rbody = _object_pose(m, d, m.sensor_reftype[i], refid)
        rw, rv = _point_velocity(m, d, rbody, rpos)
        if stype == S.FRAMEANGVEL:
          w = (w[0] - rw[0], w[1] - rw[1], w[2] - rw[2])
          math.store(out, math.mat_t_vec(rmat, w))
        else:
          # velocity seen by an observer riding the reference frame, rotation included
          dp = (pos[0] - rpos[0], pos[1] - rpos[1], pos[2] - rpos[2])
          c = math.cross(rw, dp)
          v = (v[0] - rv[0] - c[0], v[1] - rv[1] - c[1], v[2] - rv[2] - c[2])
          math.store(out, math.mat_t_vec(rmat, v))
      else:
        math.store(out, v if stype == S.FRAMELINVEL else w)
    elif stype == S.SUBTREELINVEL or stype == S.SUBTREEANGMOM:
      if not subtree_done:
        subtree_vel(m, d)
        subtree_done = True
      math.store(out, d.subtree_linvel[objid] if stype == S.SUBTREELINVEL else d.subtree_angmom[objid])
    elif stype == S.CONTACT:
      _contact_sensor(m, d, i)
    _cutoff(m, d, i)
  if m.nhistory > 0:
    history.sensors(m, d, _STAGE_VEL)


@njit(cache=True, error_model="numpy")
def _needs_rne_post(m):
  for i in range(m.nsensor):
    stype = m.sensor_type[i]
    if (stype == S.ACCELEROMETER or stype == S.FORCE or stype == S.TORQUE or stype == S.FRAMELINACC
        or stype == S.FRAMEANGACC):
      return True
  return False


@_jit.separate
@njit(cache=True, error_model="numpy")
def sensor_acc(m, d):
  """Acceleration- and force-dependent sensors (after the constraint solve)."""
  if not _enabled(m):
    return
  for i in range(m.nsensor):
    if m.sensor_needstage[i] == Stage.ACC:
      _sensor_acc(m, d)
      return


@_jit.lazy
@njit(cache=True, error_model="numpy")
def _sensor_acc(m, d):
  """sensor_acc for a model with acceleration-stage sensors (compiled only for those)."""
  if _needs_rne_post(m):
    smooth.rne_postconstraint(m, d)
  for i in range(m.nsensor):
    if m.sensor_needstage[i] != Stage.ACC:
      continue
    stype = m.sensor_type[i]
    objid = m.sensor_objid[i]
    adr = m.sensor_adr[i]
    out = d.sensordata[adr:adr + m.sensor_dim[i]]
    if stype == S.TOUCH:
      out[0] = _touch(m, d, objid)
    elif stype == S.ACCELEROMETER:
      _, a = _point_acceleration(m, d, m.site_bodyid[objid], d.site_xpos[objid])
      math.store(out, math.mat_t_vec(d.site_xmat[objid], a))
    elif stype == S.FORCE or stype == S.TORQUE:
      body = m.site_bodyid[objid]
      f = d.cfrc_int[body]
      if stype == S.FORCE:
        math.store(out, math.mat_t_vec(d.site_xmat[objid], f[3:]))
      else:
        # the interaction torque about the site, moved from the tree's com
        c = d.subtree_com[m.body_rootid[body]]
        p = d.site_xpos[objid]
        r = (p[0] - c[0], p[1] - c[1], p[2] - c[2])
        rf = math.cross(r, f[3:])
        math.store(out, math.mat_t_vec(d.site_xmat[objid], (f[0] - rf[0], f[1] - rf[1], f[2] - rf[2])))
    elif stype == S.ACTUATORFRC:
      out[0] = d.actuator_force[objid]
    elif stype == S.JOINTACTFRC:
      out[0] = d.qfrc_actuator[m.jnt_dofadr[objid]]
    elif stype == S.TENDONACTFRC:
      s = 0.0
      for a in range(m.nu):
        if m.actuator_trntype[a] == 3 and m.actuator_trnid[a, 0] == objid:
          s += d.actuator_force[a]
      out[0] = s
    elif stype == S.JOINTLIMITFRC:
      out[0] = _limit_force(d, CNSTR_LIMIT_JOINT, objid)
    elif stype == S.TENDONLIMITFRC:
      out[0] = _limit_force(d, CNSTR_LIMIT_TENDON, objid)
    elif stype == S.FRAMELINACC or stype == S.FRAMEANGACC:
      pos, _, body = _object_pose(m, d, m.sensor_objtype[i], objid)
      alpha, a = _point_acceleration(m, d, body, pos)
      math.store(out, a if stype == S.FRAMELINACC else alpha)
    elif stype == S.CONTACT:
      _contact_sensor(m, d, i)
    _cutoff(m, d, i)
  if m.nhistory > 0:
    history.sensors(m, d, _STAGE_ACC)


# ---------------------------------------------------------------------------------------- contact ----

# A contact sensor's data fields (bit k of its data mask, MuJoCo's mjtConDataField order) and their sizes: found,
# force, torque, dist, pos, normal, tangent, linvel, angvel.
_CON_FOUND, _CON_FORCE, _CON_TORQUE, _CON_DIST, _CON_POS, _CON_NORMAL, _CON_TANGENT, _CON_LINVEL, _CON_ANGVEL = range(9)
_CON_SIZE = (1, 3, 3, 1, 3, 3, 3, 3, 3)
_REDUCE_NONE, _REDUCE_MINDIST, _REDUCE_MAXFORCE, _REDUCE_NETFORCE = range(4)


@njit(cache=True, error_model="numpy")
def _contact_side(m, body, geom, objtype, objid):
  """Whether a contact's side (its body and geom) is a contact sensor's side: any, a geom, a body, a subtree (a site
  was tested on the contact point)."""
  if objtype == ObjType.UNKNOWN or objtype == ObjType.SITE:
    return True
  if objtype == ObjType.GEOM:
    return objid == geom
  if objtype == ObjType.BODY:
    return objid == body
  while body > objid:
    body = m.body_parentid[body]
  return body == objid


@njit(cache=True, error_model="numpy")
def _contact_match(m, d, i, c):
  """Whether contact c is one of sensor i's: 0 no; 1 yes; -1 yes, with its sides the other way round (normal from
  the sensor's side 2 to side 1)."""
  type1, id1, type2, id2 = m.sensor_objtype[i], m.sensor_objid[i], m.sensor_reftype[i], m.sensor_refid[i]
  if type1 == ObjType.UNKNOWN and type2 == ObjType.UNKNOWN:
    return 1
  if type1 == ObjType.SITE and not _inside(m, d, id1, d.contact_pos[c]):
    return 0
  g1, g2 = d.contact_geom1[c], d.contact_geom2[c]
  b1, b2 = flex.contact_body(m, d, c, 0), flex.contact_body(m, d, c, 1)
  m11, m12 = _contact_side(m, b1, g1, type1, id1), _contact_side(m, b2, g2, type1, id1)
  m21, m22 = _contact_side(m, b1, g1, type2, id2), _contact_side(m, b2, g2, type2, id2)
  if not (m11 or m12) or not (m21 or m22):
    return 0
  if type1 != ObjType.UNKNOWN and type2 != ObjType.UNKNOWN:
    # both sides given: the contact's order decides, the regular one when both fit
    return 1 if m11 and m22 or not (m12 and m21) else -1
  if type1 != ObjType.UNKNOWN:
    return 1 if m11 else -1
  return 1 if m22 else -1


@njit(cache=True, error_model="numpy")
def _contact_key(m, d, i, c):
  """The order of a reducing contact sensor: distance (mindist) or minus the squared force (maxforce)."""
  if m.sensor_intprm[i, 1] == _REDUCE_MINDIST:
    return d.contact_dist[c]
  w = d.support_wrench
  support.contact_force(m, d, c, w)
  return -(w[0] * w[0] + w[1] * w[1] + w[2] * w[2])


@njit(cache=True, error_model="numpy")
def _contact_slot(m, d, out, dataspec, c, flip, nmatch):
  """One slot of a contact sensor: contact c's data fields, seen from the sensor's side 1 when flipped (normal and
  first tangent reversed, so the force, torque and velocities change the sign of their second-tangent part)."""
  sign = -1.0 if flip else 1.0
  frame = d.contact_frame[c]
  k = 0
  for f in range(9):
    if not dataspec & (1 << f):
      continue
    if f == _CON_FOUND:
      out[k] = nmatch
    elif f == _CON_FORCE or f == _CON_TORQUE:
      w = d.support_wrench
      support.contact_force(m, d, c, w)
      base = 0 if f == _CON_FORCE else 3
      math.store(out[k:], (w[base], w[base + 1], sign * w[base + 2]))
    elif f == _CON_DIST:
      out[k] = d.contact_dist[c]
    elif f == _CON_POS:
      math.store(out[k:], d.contact_pos[c])
    elif f == _CON_NORMAL or f == _CON_TANGENT:
      base = 0 if f == _CON_NORMAL else 3
      math.store(out[k:], (sign * frame[base], sign * frame[base + 1], sign * frame[base + 2]))
    else:
      pos = d.contact_pos[c]
      w1, v1 = _point_velocity(m, d, flex.contact_body(m, d, c, 0), pos)
      w2, v2 = _point_velocity(m, d, flex.contact_body(m, d, c, 1), pos)
      if f == _CON_LINVEL:
        rel = math.mat_vec(frame, (v2[0] - v1[0], v2[1] - v1[1], v2[2] - v1[2]))
      else:
        rel = math.mat_vec(frame, (w2[0] - w1[0], w2[1] - w1[1], w2[2] - w1[2]))
      math.store(out[k:], (rel[0], rel[1], sign * rel[2]))
    k += _CON_SIZE[f]


@njit(cache=True, error_model="numpy")
def _contact_netforce(m, d, i, out, nmatch):
  """A netforce contact sensor's one slot: the total wrench of its contacts (world frame) about their centroid
  weighted by force magnitude, the number of contacts, that point, and the world x and y axes as normal and tangent."""
  w = d.support_wrench
  point = (0.0, 0.0, 0.0)
  total = 0.0
  for c in range(d.ncon[0]):
    if _contact_match(m, d, i, c) == 0:
      continue
    support.contact_force(m, d, c, w)
    weight = pymath.sqrt(w[0] * w[0] + w[1] * w[1] + w[2] * w[2])
    point = math.add_scl3(point, d.contact_pos[c], weight)
    total += weight
  point = math.scl3(point, 1.0 / max(total, MINVAL))
  force = (0.0, 0.0, 0.0)
  torque = (0.0, 0.0, 0.0)
  for c in range(d.ncon[0]):
    flip = _contact_match(m, d, i, c)
    if flip == 0:
      continue
    support.contact_force(m, d, c, w)
    s = -1.0 if flip < 0 else 1.0
    frame = d.contact_frame[c]
    fj = math.mat_t_vec(frame, (s * w[0], s * w[1], s * w[2]))
    tj = math.mat_t_vec(frame, (s * w[3], s * w[4], s * w[5]))
    force = math.add3(force, fj)
    torque = math.add3(torque, tj)
    pos = d.contact_pos[c]
    torque = math.add3(torque, math.cross((pos[0] - point[0], pos[1] - point[1], pos[2] - point[2]), fj))
  dataspec = m.sensor_intprm[i, 0]
  k = 0
  for f in range(9):
    if not dataspec & (1 << f):
      continue
    if f == _CON_FOUND:
      out[k] = nmatch
    elif f == _CON_FORCE:
      math.store(out[k:], force)
    elif f == _CON_TORQUE:
      math.store(out[k:], torque)
    elif f == _CON_POS:
      math.store(out[k:], point)
    elif f == _CON_NORMAL:
      out[k] = 1.0
    elif f == _CON_TANGENT:
      out[k + 1] = 1.0
    k += _CON_SIZE[f]


@_jit.lazy
@njit(cache=True, error_model="numpy")
def _contact_sensor(m, d, i):
  """Contact sensor i (compiled only for models that have one): up to ``num`` slots of its matching contacts' data,
  in contact order or the smallest distances or largest forces first, or their net wrench."""
  dataspec, reduce, num = m.sensor_intprm[i, 0], m.sensor_intprm[i, 1], m.sensor_intprm[i, 2]
  adr, dim = m.sensor_adr[i], m.sensor_dim[i]
  out = d.sensordata[adr:adr + dim]
  for k in range(dim):
    out[k] = 0.0
  size = dim // num
  ncon = d.ncon[0]
  nmatch = 0
  for c in range(ncon):
    if _contact_match(m, d, i, c) != 0:
      nmatch += 1
  if reduce == _REDUCE_NETFORCE:
    if nmatch > 0:  # no contact, no axes either (MuJoCo 4)
      _contact_netforce(m, d, i, out, nmatch)
    return
  nslot = min(num, nmatch)
  if reduce == _REDUCE_NONE:
    j = 0
    for c in range(ncon):
      if j == nslot:
        break
      flip = _contact_match(m, d, i, c)
      if flip != 0:
        _contact_slot(m, d, out[j * size:], dataspec, c, flip < 0, nmatch)
        j += 1
    return
  # the nslot smallest keys, ties by contact id, one pass each (no scratch; num is small)
  last_key, last = -pymath.inf, -1
  for j in range(nslot):
    best, best_key = -1, pymath.inf
    for c in range(ncon):
      flip = _contact_match(m, d, i, c)
      if flip == 0:
        continue
      key = _contact_key(m, d, i, c)
      if key < last_key or key == last_key and c <= last:
        continue
      if best < 0 or key < best_key or key == best_key and c < best:
        best, best_key = c, key
    _contact_slot(m, d, out[j * size:], dataspec, best, _contact_match(m, d, i, best) < 0, nmatch)
    last_key, last = best_key, best


# --------------------------------------------------------------------------------- subtree momenta ----


@njit(cache=True, error_model="numpy")
def subtree_vel(m, d):
  """subtree_linvel (com velocity of each subtree) and subtree_angmom (its angular momentum about its com)."""
  nbody = m.nbody
  lin = d.subtree_linvel
  ang = d.subtree_angmom
  for i in range(nbody):
    mass = m.body_mass[i]
    w, v = _point_velocity(m, d, i, d.xipos[i])
    # spin about the body's own com: R diag(I) Rᵀ w
    wl = math.mat_t_vec(d.ximat[i], w)
    inertia = m.body_inertia[i]
    spin = math.mat_vec(d.ximat[i], (inertia[0] * wl[0], inertia[1] * wl[1], inertia[2] * wl[2]))
    xv = math.cross(d.xipos[i], v)
    for k in range(3):
      lin[i, k] = mass * v[k]
      ang[i, k] = spin[k] + mass * xv[k]
  # sum m v and (L + x × m v) over subtrees; L about the subtree com = sum - M c × v_com
  for i in range(nbody - 1, 0, -1):
    p = m.body_parentid[i]
    for k in range(3):
      lin[p, k] += lin[i, k]
      ang[p, k] += ang[i, k]
  for i in range(nbody):
    mass = m.body_subtreemass[i]
    for k in range(3):
      lin[i, k] /= max(mass, MINVAL)
    cv = math.cross(d.subtree_com[i], lin[i])
    for k in range(3):
      ang[i, k] -= mass * cv[k]


# -------------------------------------------------------------------------------------- inside site ----


@njit(cache=True, error_model="numpy")
def _inside_site(m, d, i):
  """Whether sensor i's object (its frame's origin) lies strictly inside the volume of its site."""
  objtype, objid = m.sensor_objtype[i], m.sensor_objid[i]
  point, _, _ = _object_pose(m, d, objtype, objid)
  if (objtype == ObjType.BODY and objid > 0 and m.body_mass[objid] < MINVAL
      and m.body_subtreemass[objid] >= MINVAL):
    # a massless body's inertial frame is its body frame: MuJoCo takes its subtree's com
    point = d.subtree_com[objid]
  return _inside(m, d, m.sensor_refid[i], point)


@njit(cache=True, error_model="numpy")
def _inside(m, d, site, point):
  """Whether ``point`` lies strictly inside the volume of ``site`` (MuJoCo's mju_insideGeom)."""
  pos, mat, size = d.site_xpos[site], d.site_xmat[site], m.site_size[site]
  v = (point[0] - pos[0], point[1] - pos[1], point[2] - pos[2])
  stype = m.site_type[site]
  if stype == GEOM_SPHERE:
    return math.dot3(v, v) < size[0] * size[0]
  x, y, z = math.mat_t_vec(mat, v)
  if stype == GEOM_CAPSULE:
    dz = z - min(max(z, -size[1]), size[1])
    return x * x + y * y + dz * dz < size[0] * size[0]
  if stype == GEOM_ELLIPSOID:
    return x * x / (size[0] * size[0]) + y * y / (size[1] * size[1]) + z * z / (size[2] * size[2]) < 1.0
  if stype == GEOM_CYLINDER:
    return abs(z) < size[1] and x * x + y * y < size[0] * size[0]
  if stype == GEOM_BOX:
    return abs(x) < size[0] and abs(y) < size[1] and abs(z) < size[2]
  return False


# ---------------------------------------------------------------------------------------- rangefinder ----


@njit(cache=True, error_model="numpy")
def _rangefinder(m, d, site):
  """Distance along the site's z axis to the nearest geom not on the site's body (-1 if none)."""
  mat = d.site_xmat[site]
  return ray.ray(m, d, d.site_xpos[site], (mat[2], mat[5], mat[8]), m.site_bodyid[site])
