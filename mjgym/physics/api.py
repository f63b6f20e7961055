"""The engine's functions with the `mujoco` bindings' names and signatures (``mj_step(m, d, nstep=1)``, ...)."""

import warnings

import numpy as np

from mjgym.physics import forward
from mjgym.physics import smooth
from mjgym.physics.types import DisableBit
from mjgym.physics.types import ObjType


def unsolved_constraints(m):
  """The kinds of constraint the model has enabled that this engine does not solve yet (contacts, limits,
  friction loss and equalities arrive with the constraint-solver issue)."""
  flags = m.opt.disableflags
  if flags & DisableBit.CONSTRAINT:
    return []
  kinds = []
  if not flags & DisableBit.LIMIT and (m.jnt_limited.any() or m.tendon_limited.any()):
    kinds.append("joint/tendon limits")
  if not flags & DisableBit.FRICTIONLOSS and (m.dof_frictionloss.any() or m.tendon_frictionloss.any()):
    kinds.append("friction loss")
  if not flags & DisableBit.EQUALITY and m.neq:
    kinds.append("equality constraints")
  if not flags & DisableBit.CONTACT and (m.npair or _may_collide(m)):
    kinds.append("contacts")
  return kinds


def _may_collide(m):
  for i in range(m.ngeom):
    for j in range(i + 1, m.ngeom):
      if m.geom_bodyid[i] != m.geom_bodyid[j] and (
          m.geom_contype[i] & m.geom_conaffinity[j] or m.geom_contype[j] & m.geom_conaffinity[i]):
        return True
  return False


def _warn_unsolved(m):
  flags = m.opt.disableflags
  if m.__dict__.get("_checked_flags") == flags:
    return
  m.__dict__["_checked_flags"] = flags
  kinds = unsolved_constraints(m)
  if kinds:
    warnings.warn(f"mjgym does not solve constraints yet; this model's {', '.join(kinds)} are ignored "
                  "(disable them with m.opt.disableflags |= mjtDisableBit.CONSTRAINT to silence this)",
                  RuntimeWarning, stacklevel=3)


def mj_step(m, d, nstep=1):
  """Advances the simulation ``nstep`` times (forward dynamics, then the model's integrator)."""
  _warn_unsolved(m)
  forward.step(m._struct, d._struct, int(nstep))


def mj_forward(m, d):
  """Forward dynamics: computes every derived quantity of the current state, up to qacc."""
  forward.forward(m._struct, d._struct)


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
