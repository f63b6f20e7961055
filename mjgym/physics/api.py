"""The engine's functions with the `mujoco` bindings' names and signatures (``mj_step(m, d, nstep=1)``, ...)."""


import time

import numpy as np

from mjgym.physics import binary
from mjgym.physics import energy
from mjgym.physics import forward
from mjgym.physics import history
from mjgym.physics import mjcf
from mjgym.physics import query
from mjgym.physics import ray
from mjgym.physics import sensor
from mjgym.physics import smooth
from mjgym.physics import state
from mjgym.physics import support
from mjgym.physics.collision import distance
from mjgym.physics.enums import mjtTimer
from mjgym.physics.mjcf import schema
from mjgym.physics.types import DisableBit
from mjgym.physics.types import FatalError
from mjgym.physics.types import GeomType
from mjgym.physics.types import IntegratorType
from mjgym.physics.types import MINVAL
from mjgym.physics.types import ObjType
from mjgym.physics.types import SensorType
from mjgym.physics.types import Stage
from mjgym.physics.types import Warning  # pylint: disable=redefined-builtin


_sensor_callback = [None]


def set_mjcb_sensor(callback):
  """Registers ``callback(m, d, stage)`` that fills the model's ``user`` sensors (None to remove it).

  As MuJoCo's mjcb_sensor: the callback writes ``d.sensordata`` of its user sensors for ``stage`` (an
  mjtStage, each stage that has user sensors, in order). It runs in Python after the compiled forward
  pass, with every quantity of that pass available; in mj_step it runs between forward dynamics and the
  integrator, so it sees the state the other sensors saw. Models without user sensors never call it.
  """
  _sensor_callback[0] = callback


_control_callback = [None]
_passive_callback = [None]


def set_mjcb_control(callback):
  """Registers ``callback(m, d)`` that sets the controls (None to remove it), called where MuJoCo calls
  mjcb_control: in every forward pass after the velocity stage, before actuation (not with actuation disabled).

  With a control or passive callback, mj_step and mj_forward run the pipeline in compiled parts with the callbacks
  between them (Python per step); without, they stay one compiled call. Batched stepping (MjDataBatch, the
  vector envs) does not call them, and the RK4 integrator is refused while one is set (MuJoCo calls them in
  each of its four inner evaluations).
  """
  _control_callback[0] = callback


def set_mjcb_passive(callback):
  """Registers ``callback(m, d)`` that adds custom passive forces to ``d.qfrc_passive`` (None to remove it),
  called where MuJoCo calls mjcb_passive: at the end of the passive forces (skipped, as they are, when both springs
  and dampers are disabled). See set_mjcb_control for how the pipeline runs with callbacks."""
  _passive_callback[0] = callback


def get_mjcb_control():  # pylint: disable=invalid-name
  return _control_callback[0]


def get_mjcb_passive():  # pylint: disable=invalid-name
  return _passive_callback[0]


def _has_callbacks():
  return _control_callback[0] is not None or _passive_callback[0] is not None


def _forward_with_callbacks(m, d):
  """mj_forward's stages in compiled parts, with the passive and control callbacks at MuJoCo's points."""
  part = forward.part_entry(m)
  part(m._struct, d._struct, forward.PART_POSITION)
  flags = m.opt.disableflags
  if _passive_callback[0] is not None and not (flags & DisableBit.SPRING and flags & DisableBit.DAMPER):
    _passive_callback[0](m, d)
  part(m._struct, d._struct, forward.PART_VELOCITY_END)
  if _control_callback[0] is not None and not flags & DisableBit.ACTUATION:
    _control_callback[0](m, d)
  part(m._struct, d._struct, forward.PART_ACCELERATION)


def _step_with_callbacks(m, d, nstep, stages):
  if m.opt.integrator == IntegratorType.RK4:
    raise NotImplementedError("mjcb_control / mjcb_passive with the RK4 integrator: MuJoCo calls them in each of "
                              "RK4's inner evaluations, which run compiled here; use Euler or implicit(fast)")
  part = forward.part_entry(m)
  run = forward.entry(m)
  for _ in range(int(nstep)):
    part(m._struct, d._struct, forward.PART_CHECK_STATE)
    _forward_with_callbacks(m, d)
    # a bad qacc resets the world, which is then forwarded once more and not checked again (mj_checkAcc)
    if part(m._struct, d._struct, forward.PART_CHECK_ACC) and not m.opt.disableflags & DisableBit.AUTORESET:
      _forward_with_callbacks(m, d)
    _user_sensors(m, d, stages)
    run(m._struct, d._struct, forward.OP_INTEGRATE, 0)


def _user_stages(m):
  if _sensor_callback[0] is None or m.nsensor == 0 or m.opt.disableflags & DisableBit.SENSOR:
    return ()
  user = m.sensor_type == SensorType.USER
  return tuple(Stage(s) for s in sorted(set(m.sensor_needstage[user].tolist())))


def _user_sensors(m, d, stages):
  for stage in stages:
    _sensor_callback[0](m, d, stage)


_time_callback = [None]


def set_mjcb_time(callback):
  """Registers ``callback()`` -> seconds as the clock of the timers in ``d.timer`` (None: the default clock,
  ``time.perf_counter``). mj_step and mj_forward time themselves (mjTIMER_STEP, mjTIMER_FORWARD)."""
  if callback is not None and not callable(callback):
    raise TypeError("callback is not an Optional[Callable]")
  _time_callback[0] = callback


def get_mjcb_time():  # pylint: disable=invalid-name
  return _time_callback[0]


def _now():
  callback = _time_callback[0]
  if callback is None:
    return _perf_counter()
  now = callback()
  if isinstance(now, bool) or not isinstance(now, (int, float, np.integer, np.floating)):
    raise TypeError("mjcb_time callback did not return a number")
  return float(now)


def _add_time(d, timer, start, count):
  """Adds the time since ``start`` and ``count`` runs to ``d.timer[timer]``."""
  fields = d._fields  # pylint: disable=protected-access
  fields["timer_duration"][timer] += _now() - start
  fields["timer_number"][timer] += count


_perf_counter = time.perf_counter
_TIMER_STEP = int(mjtTimer.mjTIMER_STEP)
_TIMER_FORWARD = int(mjtTimer.mjTIMER_FORWARD)


def mj_step(m, d, nstep=1):
  """Advances the simulation: forward dynamics, then the model's integrator. Optionally, repeat nstep times."""
  start = _now()
  _step(m, d, nstep)
  _add_time(d, _TIMER_STEP, start, nstep)


def _step(m, d, nstep):
  stages = _user_stages(m)
  if _has_callbacks():
    _step_with_callbacks(m, d, nstep, stages)
    return
  run = forward.entry(m)
  if not stages:
    run(m._struct, d._struct, forward.OP_STEP, int(nstep))
    return
  for _ in range(int(nstep)):
    run(m._struct, d._struct, forward.OP_STEP1, 0)
    run(m._struct, d._struct, forward.OP_ACCELERATION, 0)
    _user_sensors(m, d, stages)
    run(m._struct, d._struct, forward.OP_INTEGRATE, 0)


def mj_step1(m, d):
  """The first half of a step split for setting controls in between (MuJoCo's mj_step1): state checks, position
  and velocity stages with their sensors and energy, then the control callback."""
  part = forward.part_entry(m)
  part(m._struct, d._struct, forward.PART_CHECK_STATE)
  stages = _user_stages(m)
  part(m._struct, d._struct, forward.PART_POSITION)
  _user_sensors(m, d, [s for s in stages if s == Stage.POS])
  flags = m.opt.disableflags
  if _passive_callback[0] is not None and not (flags & DisableBit.SPRING and flags & DisableBit.DAMPER):
    _passive_callback[0](m, d)
  part(m._struct, d._struct, forward.PART_VELOCITY_END)
  _user_sensors(m, d, [s for s in stages if s == Stage.VEL])
  if _control_callback[0] is not None:
    _control_callback[0](m, d)


def mj_step2(m, d):
  """The second half (MuJoCo's mj_step2): actuation, accelerations, constraints, acceleration sensors, the qacc
  check, then the integrator: implicit or implicitfast as set, otherwise Euler (RK4 too, as in MuJoCo)."""
  part = forward.part_entry(m)
  part(m._struct, d._struct, forward.PART_ACCELERATION)
  _user_sensors(m, d, [s for s in _user_stages(m) if s == Stage.ACC])
  if part(m._struct, d._struct, forward.PART_CHECK_ACC) and not m.opt.disableflags & DisableBit.AUTORESET:
    mj_forward(m, d)
  part(m._struct, d._struct, forward.PART_INTEGRATE)


def mj_forward(m, d):
  """Forward dynamics: computes every derived quantity of the current state, up to qacc and the sensors."""
  start = _now()
  _forward(m, d)
  _add_time(d, _TIMER_FORWARD, start, 1)


def _forward(m, d):
  if _has_callbacks():
    _forward_with_callbacks(m, d)
  else:
    forward.entry(m)(m._struct, d._struct, forward.OP_FORWARD, 0)
  _user_sensors(m, d, _user_stages(m))


# ------------------------------------------------------------------------------------- history buffers ----
# (layout in history.py: [last sample time, cursor, times (n), values (n * dim)], the newest sample at the cursor)


def _history(m, d, kind, i):
  """(buffer view, nsample, dim) of actuator or sensor ``i``'s history buffer (nsample 0: it has none)."""
  count = m.nu if kind == "actuator" else m.nsensor
  if not 0 <= i < count:
    raise IndexError(f"{kind} id {i} out of range [0, {count})")
  n = int(getattr(m, kind + "_history")[i, 0])
  dim = 1 if kind == "actuator" else int(m.sensor_dim[i])
  adr = int(getattr(m, kind + "_historyadr")[i])
  return d.history[adr:adr + 2 + n * (1 + dim)] if n else None, n, dim


def _read_history(m, d, kind, i, t, result, interp, current):
  buf, n, dim = _history(m, d, kind, i)
  out = _output_vector(result, dim, "result")
  if buf is None:
    out[:] = current
  else:
    history.read(buf, n, dim, float(t) - float(getattr(m, kind + "_delay")[i]), int(interp), out)
  return result


def _init_history(m, d, kind, i, times, values):
  buf, n, dim = _history(m, d, kind, i)
  if buf is None:
    raise ValueError(f"{kind} {i} has no history buffer (nsample 0)")
  values = np.asarray(values, dtype=np.float64)
  if values.size != n * dim or (values.ndim == 2 and values.shape != (n, dim)):
    raise TypeError(f"values must have {n} rows of {dim}, got shape {values.shape}")
  if times is not None:
    times = np.asarray(times, dtype=np.float64)
    if times.shape != (n,):
      raise TypeError(f"times must have {n} elements, got shape {times.shape}")
    buf[2:2 + n] = times
  buf[1] = n - 1  # samples in time order from slot 0: the newest in the last slot
  buf[2 + n:] = values.reshape(-1)
  return buf


def _output_vector(result, size, name, dtype=np.float64):
  if not isinstance(result, np.ndarray) or result.dtype != dtype or result.size != size:
    raise TypeError(f"{name} must be a {np.dtype(dtype).name} numpy array of {size} elements")
  return result.reshape(-1)


def mj_readCtrl(m, d, id, time, result, interp):  # pylint: disable=redefined-builtin,invalid-name
  """Writes into ``result`` (1) actuator ``id``'s control at ``time`` minus its delay, read from its history buffer
  (interp: 0 hold, 1 linear, 2 cubic), or its ctrl if it has no buffer; returns ``result``."""
  return _read_history(m, d, "actuator", id, time, result, interp, d.ctrl[id:id + 1] if 0 <= id < m.nu else 0.0)


def mj_readSensor(m, d, id, time, result, interp):  # pylint: disable=redefined-builtin,invalid-name
  """Writes into ``result`` (sensor_dim) sensor ``id``'s value at ``time`` minus its delay, read from its history
  buffer, or its sensordata if it has no buffer; returns ``result``."""
  current = 0.0
  if 0 <= id < m.nsensor:
    current = d.sensordata[m.sensor_adr[id]:m.sensor_adr[id] + m.sensor_dim[id]]
  return _read_history(m, d, "sensor", id, time, result, interp, current)


def mj_initCtrlHistory(m, d, id, times, values):  # pylint: disable=redefined-builtin,invalid-name
  """Fills actuator ``id``'s history buffer with ``values`` (nsample) at ``times`` (None: the buffer's own)."""
  _init_history(m, d, "actuator", id, times, values)


def mj_initSensorHistory(m, d, id, times, values, phase):  # pylint: disable=redefined-builtin,invalid-name
  """Fills sensor ``id``'s history buffer with ``values`` (nsample, sensor_dim) at ``times`` (None: the buffer's
  own); ``phase`` is the last sample time an interval sensor counts its period from."""
  _init_history(m, d, "sensor", id, times, values)[0] = phase


def mju_threadpool(d, nthread):
  """Gives ``d`` a thread pool of ``nthread`` workers (see ``MjData.threadpool``: the step does not use it)."""
  if isinstance(nthread, bool) or not isinstance(nthread, (int, np.integer)) or nthread < 1:
    raise ValueError(f"mju_threadpool: nthread must be a positive integer, got {nthread!r}")
  object.__setattr__(d, "_threadpool", int(nthread))


def _check_state(m, d, field, warning):
  forward._check(m._struct, d._struct, d._fields[field], warning)  # pylint: disable=protected-access


def mj_checkPos(m, d):  # pylint: disable=invalid-name
  """As mj_step's check: a NaN or huge qpos raises the BADQPOS warning and resets the Data (unless disabled)."""
  _check_state(m, d, "qpos", Warning.BADQPOS)


def mj_checkVel(m, d):  # pylint: disable=invalid-name
  """The same for qvel (BADQVEL)."""
  _check_state(m, d, "qvel", Warning.BADQVEL)


def mj_checkAcc(m, d):  # pylint: disable=invalid-name
  """The same for qacc (BADQACC)."""
  _check_state(m, d, "qacc", Warning.BADQACC)


def _reset_timers(d):
  fields = d._fields  # pylint: disable=protected-access
  fields["timer_duration"][:] = 0.0
  fields["timer_number"][:] = 0


def mj_resetData(m, d):
  """Resets ``d`` to the model's initial state (qpos0, zero velocity, time 0), its timers too."""
  forward.reset_data(m._struct, d._struct)
  _reset_timers(d)


def mj_resetDataKeyframe(m, d, key):
  """Resets ``d`` to keyframe ``key`` (an id)."""
  if not 0 <= key < m.nkey:
    raise IndexError(f"keyframe {key} out of range [0, {m.nkey})")
  forward.reset_data_keyframe(m._struct, d._struct, int(key))
  _reset_timers(d)


def mj_rnePostConstraint(m, d):
  """Fills cacc, cfrc_int and cfrc_ext from the current qacc (needs mj_forward first)."""
  smooth.rne_postconstraint(m._struct, d._struct)


def mj_contactForce(m, d, id, result):  # pylint: disable=redefined-builtin
  """Writes contact ``id``'s force and torque in its contact frame (normal first) into ``result`` (6,)."""
  if not 0 <= id < d.ncon:
    raise IndexError(f"contact {id} out of range [0, {d.ncon})")
  if not isinstance(result, np.ndarray) or result.shape != (6,) or result.dtype != np.float64:
    raise ValueError("result must be a float64 array of shape (6,)")
  support.contact_force(m._struct, d._struct, int(id), result)


def mj_fullM(m, d, dst):
  """Writes the dense (nv, nv) joint-space inertia matrix into ``dst`` (the bindings' 4.x signature)."""
  if not isinstance(dst, np.ndarray) or dst.shape != (m.nv, m.nv) or dst.dtype != np.float64:
    raise ValueError(f"dst must be a float64 array of shape ({m.nv}, {m.nv})")
  smooth.full_m(m._struct, d.qM, dst)


def mj_name2id(m, type, name):  # pylint: disable=redefined-builtin
  """Id of the object of type ``type`` (mjtObj) named ``name``, or -1."""
  return m.name2id(ObjType(type), name)


def mj_id2name(m, type, id):  # pylint: disable=redefined-builtin
  """Name of object ``id`` of type ``type`` (mjtObj), or None if it has none."""
  if type == ObjType.MODEL:
    return None  # the model's name is not an object's (m.names has it)
  names = m.names_of(ObjType(type))
  if not 0 <= id < len(names):
    return None
  return names[id] or None


def mj_energyPos(m, d):  # pylint: disable=invalid-name
  """d.energy[0]: potential energy of the current positions (needs the position stage), whatever the flags."""
  energy.energy_pos(m._struct, d._struct)


def mj_energyVel(m, d):  # pylint: disable=invalid-name
  """d.energy[1]: kinetic energy of the current velocities (needs qM from the position stage)."""
  energy.energy_vel(m._struct, d._struct)


# ----------------------------------------------------------------------------------------- Jacobians ----


def _jac_array(m, arr, name):
  """The (3, nv) output the bindings accept (float64, C-contiguous, writeable), or scratch for None."""
  if arr is None:
    return np.empty((3, m.nv))
  if not isinstance(arr, np.ndarray) or arr.dtype != np.float64:
    raise TypeError(f"{name} must be a float64 numpy array or None")
  if arr.shape != (3, m.nv) or not arr.flags.c_contiguous or not arr.flags.writeable:
    raise TypeError(f"{name} must be a writeable C-contiguous array of shape (3, {m.nv}), got {arr.shape}")
  return arr


def _index(i, count, what):
  i = int(i)
  if not 0 <= i < count:
    raise IndexError(f"{what} id {i} out of range [0, {count})")
  return i


def mj_jac(m, d, jacp, jacr, point, body):
  """Translational and rotational Jacobians (3, nv) of world ``point`` moving with ``body``; either may be None."""
  body = _index(body, m.nbody, "body")
  point = np.ascontiguousarray(point, dtype=np.float64).reshape(3)
  support.jac(m._struct, d._struct, _jac_array(m, jacp, "jacp"), _jac_array(m, jacr, "jacr"), point, body)


def mj_jacBody(m, d, jacp, jacr, body):  # pylint: disable=invalid-name
  """Jacobians of the frame origin of ``body``."""
  body = _index(body, m.nbody, "body")
  mj_jac(m, d, jacp, jacr, d.xpos[body], body)


def mj_jacBodyCom(m, d, jacp, jacr, body):  # pylint: disable=invalid-name
  """Jacobians of the centre of mass of ``body``."""
  body = _index(body, m.nbody, "body")
  mj_jac(m, d, jacp, jacr, d.xipos[body], body)


def mj_jacSite(m, d, jacp, jacr, site):  # pylint: disable=invalid-name
  """Jacobians of ``site``."""
  site = _index(site, m.nsite, "site")
  mj_jac(m, d, jacp, jacr, d.site_xpos[site], m.site_bodyid[site])


def mj_insideSite(m, d, siteid, point):  # pylint: disable=invalid-name
  """1 if ``point`` (3,) lies strictly inside the volume of site ``siteid`` (at its pose in ``d``), else 0."""
  siteid = _index(siteid, m.nsite, "site")
  point = np.asarray(point, dtype=np.float64)
  if point.shape != (3,):
    raise TypeError(f"point must have 3 elements, got shape {point.shape}")
  return int(sensor._inside(m._struct, d._struct, siteid, point))  # pylint: disable=protected-access


def mj_geomDistance(m, d, geom1, geom2, distmax, fromto):  # pylint: disable=invalid-name
  """The smallest signed distance between two geoms, at most ``distmax`` (needs the position stage); ``fromto``
  (6, or None) gets the segment from geom1's nearest point to geom2's (zeros when farther than distmax). The
  geom-distance sensors' kernel: its contacts are written past ncon, where the Data has room."""
  geom1, geom2 = _index(geom1, m.ngeom, "geom"), _index(geom2, m.ngeom, "geom")
  dist, segment = distance.geom_distance(m._struct, d._struct, geom1, geom2, float(distmax))
  if fromto is not None:
    if not isinstance(fromto, np.ndarray) or fromto.dtype != np.float64 or fromto.size != 6:
      raise TypeError("fromto must be a float64 numpy array of 6 elements or None")
    fromto.reshape(-1)[:] = segment
  return dist


def mj_subtreeVel(m, d):  # pylint: disable=invalid-name
  """d.subtree_linvel and d.subtree_angmom at the current state (needs the position and velocity stages)."""
  sensor.subtree_vel(m._struct, d._struct)


def mj_angmomMat(m, d, mat, body):  # pylint: disable=invalid-name
  """mat (3, nv): the map from qvel to the angular momentum of ``body``'s subtree about its com (needs the
  position stage): the sum over its bodies of m (xipos - com) × jacp + R I Rᵀ jacr, their com Jacobians."""
  body = _index(body, m.nbody, "body")
  if mat is None:
    raise TypeError("mat must be a float64 numpy array of shape (3, nv)")
  out = _jac_array(m, mat, "mat")
  out[...] = 0.0
  com = d.subtree_com[body]
  jacp, jacr = np.empty((3, m.nv)), np.empty((3, m.nv))
  for b in range(body, m.nbody):
    a = b
    while a > body:
      a = m.body_parentid[a]
    if a != body:
      continue  # not in the subtree
    mj_jacBodyCom(m, d, jacp, jacr, b)
    r = d.xipos[b] - com
    skew = np.array([[0.0, -r[2], r[1]], [r[2], 0.0, -r[0]], [-r[1], r[0], 0.0]])
    rot = d.ximat[b].reshape(3, 3)
    out += m.body_mass[b] * skew @ jacp + rot @ np.diag(m.body_inertia[b]) @ rot.T @ jacr


def mj_jacGeom(m, d, jacp, jacr, geom):  # pylint: disable=invalid-name
  """Jacobians of the centre of ``geom``."""
  geom = _index(geom, m.ngeom, "geom")
  mj_jac(m, d, jacp, jacr, d.geom_xpos[geom], m.geom_bodyid[geom])


# ---------------------------------------------------------------------------------------------- rays ----


def mj_ray(m, d, pnt, vec, geomgroup, flg_static, bodyexclude, geomid, normal=None):
  """Distance along ``vec`` (in units of its length) from ``pnt`` to the nearest geom, -1 if none.

  As the bindings: ``geomgroup`` (6,) uint8 masks groups (None: all), ``flg_static`` includes geoms welded to
  the world, ``bodyexclude`` skips one body (-1: none); ``geomid`` (1,) int32 receives the geom hit (-1 if
  none), ``normal`` (3,) the outward unit normal of the surface hit. Invisible geoms (alpha 0, their own or their
  material's) are never hit.
  """
  return _ray(m, d, pnt, vec, geomgroup, flg_static, bodyexclude, geomid, normal, np.inf)


def _ray(m, d, pnt, vec, geomgroup, flg_static, bodyexclude, geomid, normal, cutoff):
  if normal is not None and (not isinstance(normal, np.ndarray) or normal.dtype != np.float64 or normal.size != 3):
    raise TypeError("normal must be a float64 numpy array of 3 elements or None")
  pnt = np.ascontiguousarray(pnt, dtype=np.float64).reshape(3)
  vec = np.ascontiguousarray(vec, dtype=np.float64).reshape(3)
  if np.linalg.norm(vec) < MINVAL:
    raise ValueError("mj_ray: vector length is too small")
  use_group = geomgroup is not None
  group = np.ascontiguousarray(geomgroup if use_group else np.zeros(query.NGROUP), dtype=np.uint8).reshape(-1)
  if group.shape != (query.NGROUP,):
    raise ValueError(f"geomgroup must have {query.NGROUP} entries")
  dist, hit = query.ray_select(m._struct, d._struct, pnt, vec, group, use_group, bool(flg_static),
                               int(bodyexclude), float(cutoff))
  if geomid is not None:
    geomid[0] = hit
  if normal is not None:
    normal.reshape(-1)[:] = _ray_normal(m, d, hit, pnt, vec) if hit >= 0 else 0.0
  return float(dist)


def mj_multiRay(m, d, pnt, vec, geomgroup, flg_static, bodyexclude,  # pylint: disable=invalid-name
                geomid, dist, normal, nray, cutoff):
  """mj_ray for ``nray`` rays from one point: ``vec`` (nray * 3) their directions, ``geomid`` (nray) and ``dist``
  (nray) what each hits and how far, ``normal`` (nray * 3, or None) the normals; geoms whose bounding sphere lies
  farther than ``cutoff`` from pnt are left out."""
  vecs = np.asarray(vec, dtype=np.float64).reshape(-1)
  if vecs.size != 3 * nray or geomid.size != nray or dist.size != nray:
    raise TypeError(f"vec must have {3 * nray} elements and geomid and dist {nray}")
  if normal is not None and (not isinstance(normal, np.ndarray) or normal.dtype != np.float64
                             or normal.size != 3 * nray):
    raise TypeError(f"normal must be a float64 numpy array of {3 * nray} elements or None")
  hit = np.zeros(1, np.int32)
  for i in range(nray):
    surface = None if normal is None else np.zeros(3)
    t = _ray(m, d, pnt, vecs[3 * i:3 * i + 3], geomgroup, flg_static, bodyexclude, hit, surface, cutoff)
    dist.reshape(-1)[i], geomid.reshape(-1)[i] = t, hit[0]
    if normal is not None:
      normal.reshape(-1)[3 * i:3 * i + 3] = surface if t >= 0 else 0.0


def _ray_normal(m, d, g, pnt, vec):
  """World unit normal (outward) of geom g's surface where the ray pnt + t vec first meets it."""
  return _hit(ray.shape_tables(m._struct), int(m.geom_type[g]), m.geom_size[g], int(m.geom_dataid[g]),
              d.geom_xpos[g], d.geom_xmat[g], pnt, vec)[1]


def _hit(tables, gtype, size, dataid, pos, mat, pnt, vec):
  """(t, world unit outward normal) of the first hit of pnt + t vec with a shape at pose (pos, mat); (-1, zeros)
  if none. ``tables``: ray.shape_tables, for meshes and height fields."""
  mat = np.asarray(mat, dtype=np.float64).reshape(3, 3)
  p, v = mat.T @ (pnt - pos), mat.T @ vec
  t, element = ray.ray_local(tables, gtype, size, dataid, p, v, 0.0, False)
  if t < 0:
    return -1.0, np.zeros(3)
  q = p + t * v  # the hit, in the shape's frame
  if gtype == GeomType.PLANE:
    n = np.array([0.0, 0.0, 1.0])
  elif gtype == GeomType.SPHERE:
    n = q
  elif gtype == GeomType.ELLIPSOID:
    n = q / size[:3] ** 2
  elif gtype == GeomType.CAPSULE:
    n = q - [0.0, 0.0, np.clip(q[2], -size[1], size[1])]
  elif gtype == GeomType.CYLINDER:
    on_cap = abs(abs(q[2]) - size[1]) < abs(np.hypot(q[0], q[1]) - size[0])
    n = np.array([0.0, 0.0, np.sign(q[2])]) if on_cap else np.array([q[0], q[1], 0.0])
  elif gtype == GeomType.BOX:
    k = int(np.argmax(np.abs(q) / size[:3]))
    n = np.zeros(3)
    n[k] = np.sign(q[k])
  elif gtype == GeomType.HFIELD:
    n = np.array(ray.hfield_normal(tables, dataid, element))
  elif gtype == GeomType.MESH:
    vert = tables[0][tables[2][dataid] + tables[1][element]]
    n = np.cross(vert[1] - vert[0], vert[2] - vert[0])
  else:
    raise NotImplementedError(f"no ray intersection for geom type {GeomType(gtype).name}")
  return float(t), mat @ (n / np.linalg.norm(n))


# mju_rayGeom's shapes have no mesh or height field: empty tables of ray.shape_tables' kinds
_NO_SHAPE_TABLES = (np.zeros((0, 3)), np.zeros((0, 3), np.int32), np.zeros(0, np.int32), np.zeros(0, np.int32),
                    np.zeros(0, np.int32), np.zeros((0, 4)), np.zeros(0, np.int32), np.zeros(0, np.int32),
                    np.zeros(0, np.int32), np.zeros(0))


def mju_rayGeom(pos, mat, size, pnt, vec, geomtype, normal=None):  # pylint: disable=invalid-name
  """Distance along ``vec`` (in units of its length) from ``pnt`` to a primitive shape of type ``geomtype`` at
  pose (pos (3), mat (9)) with ``size`` (3), -1 if none; ``normal`` (3, or None) gets the outward unit normal."""
  gtype = int(geomtype)
  if gtype in (GeomType.MESH, GeomType.HFIELD, GeomType.SDF):
    raise ValueError(f"mju_rayGeom: {GeomType(gtype).name.lower()} is not a primitive shape (use mj_ray)")
  args = [np.ascontiguousarray(a, dtype=np.float64).reshape(-1) for a in (pos, mat, size, pnt, vec)]
  if [a.size for a in args] != [3, 9, 3, 3, 3]:
    raise TypeError("mju_rayGeom: pos, size, pnt and vec must have 3 elements and mat 9")
  t, n = _hit(_NO_SHAPE_TABLES, gtype, args[2], -1, args[0], args[1], args[3], args[4])
  if normal is not None:
    _output_vector(normal, 3, "normal")[:] = n
  return t


def mju_raySkin(nface, nvert, face, vert, pnt, vec, vertid=None):  # pylint: disable=invalid-name
  """Distance along ``vec`` (in units of its length) from ``pnt`` to the nearest of ``nface`` triangles (``face``
  (nface, 3) int32 vertex ids into ``vert`` (nvert, 3) float32, flat or not; both sides count), -1 if none;
  ``vertid`` (1,) int32 or None gets the hit triangle's vertex nearest the hit point (-1 if none)."""
  if not all(isinstance(a, np.ndarray) for a in (face, vert)) or face.dtype != np.int32 or vert.dtype != np.float32:
    raise TypeError("mju_raySkin: face must be an int32 array and vert a float32 array")
  if int(nface) < 0 or int(nvert) < 0:
    raise ValueError(f"mju_raySkin: nface and nvert must be >= 0, got {nface} and {nvert}")
  if face.size != 3 * int(nface) or vert.size != 3 * int(nvert):
    raise TypeError(f"mju_raySkin: face has {face.size} elements and vert {vert.size}, expected 3 * nface = "
                    f"{3 * int(nface)} and 3 * nvert = {3 * int(nvert)}")
  tri = face.reshape(-1, 3)
  if tri.size and (tri.min() < 0 or tri.max() >= int(nvert)):
    raise ValueError(f"mju_raySkin: face holds vertex ids outside [0, {int(nvert)})")
  p = np.asarray(pnt, np.float64).reshape(3)
  v = np.asarray(vec, np.float64).reshape(3)
  corners = vert.reshape(-1, 3).astype(np.float64)[tri]  # (nface, 3 corners, 3)
  # the ray p + t v meets the plane of corners a, b, c where p - a = -t v + u (b - a) + w (c - a) (Cramer's rule)
  a, e1, e2 = corners[:, 0], corners[:, 1] - corners[:, 0], corners[:, 2] - corners[:, 0]
  h = np.cross(v, e2)
  det = np.einsum("ij,ij->i", e1, h)
  hit = np.abs(det) > MINVAL
  inv = np.where(hit, 1.0 / np.where(hit, det, 1.0), 0.0)
  s = p - a
  u = inv * np.einsum("ij,ij->i", s, h)
  q = np.cross(s, e1)
  w = inv * (q @ v)
  t = inv * np.einsum("ij,ij->i", e2, q)
  hit &= (u >= 0) & (w >= 0) & (u + w <= 1) & (t >= 0)
  nearest, dist = -1, -1.0
  if hit.any():
    nearest = int(np.flatnonzero(hit)[np.argmin(t[hit])])
    dist = float(t[nearest])
  if vertid is not None:
    out = _output_vector(vertid, 1, "vertid", np.int32)
    if nearest < 0:
      out[0] = -1
    else:
      point = p + dist * v
      out[0] = tri[nearest][np.argmin(np.linalg.norm(corners[nearest] - point, axis=1))]
  return dist


# ------------------------------------------------------------------------------------ data and state ----


def mj_copyData(dest, m, src):  # pylint: disable=invalid-name
  """Copies every field of ``src`` into ``dest`` (both Data of model ``m``), in place."""
  for name, arr in dest._fields.items():
    if arr.shape != src._fields[name].shape:
      raise ValueError(f"mj_copyData: Data of different models ({name} {arr.shape} vs {src._fields[name].shape})")
  for name, arr in dest._fields.items():
    arr[...] = src._fields[name]
  return dest


def mj_setConst(m, d):  # pylint: disable=invalid-name
  """Recomputes the model's constants that depend on qpos0 and the inertias, after the model was edited.

  body_subtreemass, dof/body/tendon invweight0, connect and weld anchors, tendon_length0, actuator_length0 and
  actuator_acc0, as MuJoCo's mj_setConst. As in MuJoCo 4.0.0, the statistics (``m.stat``) keep their compiled
  values. ``d`` is not touched (a scratch Data is used).
  """
  del d
  from mjgym.physics.mjcf import setconst  # pylint: disable=import-outside-toplevel
  subtree = m.body_mass.copy()
  for b in range(m.nbody - 1, 0, -1):
    subtree[m.body_parentid[b]] += subtree[b]
  m.body_subtreemass[:] = subtree
  meaninertia = m.stat_meaninertia.copy()
  setconst.set_const(m)
  m.stat_meaninertia[:] = meaninertia


def mj_stateSize(m, sig):  # pylint: disable=invalid-name
  """Length of the state vector of signature ``sig`` (an or of mjtState bits)."""
  return state.state_size(m, sig)


def mj_getState(m, d, state_vector, sig):  # pylint: disable=invalid-name
  """Writes the state elements of ``sig`` (in bit order) into ``state_vector`` (float64, mj_stateSize long)."""
  state.get_state(m, d, state_vector, sig)


def mj_setState(m, d, state_vector, sig):  # pylint: disable=invalid-name
  """Sets the state elements of ``sig`` of ``d`` from ``state_vector``."""
  state.set_state(m, d, state_vector, sig)


def mj_copyState(m, src, dst, sig):  # pylint: disable=invalid-name
  """Copies the state elements of ``sig`` from ``src`` to ``dst``."""
  vector = np.empty(state.state_size(m, sig))
  state.get_state(m, src, vector, sig)
  state.set_state(m, dst, vector, sig)


def mj_setKeyframe(m, d, k):  # pylint: disable=invalid-name
  """Stores the state of ``d`` (time, qpos, qvel, act, ctrl, mocap poses) as keyframe ``k`` of ``m``."""
  if not 0 <= k < m.nkey:
    raise FatalError(f"mj_setKeyframe: index must be smaller than {m.nkey} (keyframes allocated in model)")
  m.key_time[k] = d.time
  for key, field in (("key_qpos", "qpos"), ("key_qvel", "qvel"), ("key_act", "act"), ("key_ctrl", "ctrl"),
                     ("key_mpos", "mocap_pos"), ("key_mquat", "mocap_quat")):
    getattr(m, key)[k] = getattr(d, field)


# ------------------------------------------------------------------------------------ model files ----


def mju_getXMLDependencies(filename):  # pylint: disable=invalid-name
  """The model file and every file compiling it reads (includes, meshes, textures, height fields, skins). The
  model is compiled to find them, so a model the compiler refuses raises its MJCFError."""
  return mjcf.dependencies(filename)


def mj_printSchema(flg_html, flg_pad):  # pylint: disable=invalid-name
  """The MJCF schema this compiler reads (elements and their attributes), as text or, with ``flg_html``, an HTML
  table; ``flg_pad`` aligns the attribute column. mjgym's layout, not MuJoCo's."""
  return schema.describe(bool(flg_html), bool(flg_pad))


def mj_saveModel(m, filename=None, buffer=None):  # pylint: disable=invalid-name
  """Saves ``m`` in mjgym's binary format to ``filename`` and/or into ``buffer`` (uint8, mj_sizeModel bytes);
  ``MjModel.from_binary_path`` loads it. Not MuJoCo's MJB format."""
  binary.save(m, filename, buffer)


def mj_sizeModel(m):  # pylint: disable=invalid-name
  """Bytes of ``m``'s binary file."""
  return binary.size_of(m)
