"""The engine's functions with the `mujoco` bindings' names and signatures (``mj_step(m, d, nstep=1)``, ...)."""

import numpy as np

from mjgym.physics import constraint
from mjgym.physics import forward
from mjgym.physics import smooth
from mjgym.physics.types import DisableBit
from mjgym.physics.types import ObjType
from mjgym.physics.types import SensorType
from mjgym.physics.types import Stage


_sensor_callback = [None]


def set_mjcb_sensor(callback):
  """Registers ``callback(m, d, stage)`` that fills the model's ``user`` sensors (None to remove it).

  As MuJoCo's mjcb_sensor: the callback writes ``d.sensordata`` of its user sensors for ``stage`` (an
  mjtStage, each stage that has user sensors, in order). It runs in Python after the compiled forward
  pass, with every quantity of that pass available; in mj_step it runs between forward dynamics and the
  integrator, so it sees the state the other sensors saw. Models without user sensors never call it.
  """
  _sensor_callback[0] = callback


def _user_stages(m):
  if _sensor_callback[0] is None or m.nsensor == 0 or m.opt.disableflags & DisableBit.SENSOR:
    return ()
  user = m.sensor_type == SensorType.USER
  return tuple(Stage(s) for s in sorted(set(m.sensor_needstage[user].tolist())))


def _user_sensors(m, d, stages):
  for stage in stages:
    _sensor_callback[0](m, d, stage)


def mj_step(m, d, nstep=1):
  """Advances the simulation ``nstep`` times (forward dynamics, then the model's integrator)."""
  stages = _user_stages(m)
  run = forward.entry(m)
  if not stages:
    run(m._struct, d._struct, forward.OP_STEP, int(nstep))
    return
  for _ in range(int(nstep)):
    run(m._struct, d._struct, forward.OP_STEP1, 0)
    _user_sensors(m, d, stages)
    run(m._struct, d._struct, forward.OP_STEP2, 0)


def mj_forward(m, d):
  """Forward dynamics: computes every derived quantity of the current state, up to qacc and the sensors."""
  forward.entry(m)(m._struct, d._struct, forward.OP_FORWARD, 0)
  _user_sensors(m, d, _user_stages(m))


def mj_resetData(m, d):
  """Resets ``d`` to the model's initial state (qpos0, zero velocity, time 0)."""
  forward.reset_data(m._struct, d._struct)


def mj_resetDataKeyframe(m, d, key):
  """Resets ``d`` to keyframe ``key`` (an id)."""
  if not 0 <= key < m.nkey:
    raise IndexError(f"keyframe {key} out of range [0, {m.nkey})")
  forward.reset_data_keyframe(m._struct, d._struct, int(key))


def mj_rnePostConstraint(m, d):
  """Fills cacc, cfrc_int and cfrc_ext from the current qacc (needs mj_forward first)."""
  smooth.rne_postconstraint(m._struct, d._struct)


def mj_contactForce(m, d, id, result):  # pylint: disable=redefined-builtin
  """Writes contact ``id``'s force and torque in its contact frame (normal first) into ``result`` (6,)."""
  if not 0 <= id < d.ncon:
    raise IndexError(f"contact {id} out of range [0, {d.ncon})")
  if not isinstance(result, np.ndarray) or result.shape != (6,) or result.dtype != np.float64:
    raise ValueError("result must be a float64 array of shape (6,)")
  constraint.contact_force(m._struct, d._struct, int(id), result)


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
  names = m.names_of(ObjType(type))
  if not 0 <= id < len(names):
    return None
  return names[id] or None
