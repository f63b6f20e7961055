"""Simulation state as one flat vector (MuJoCo's mj_stateSize / mj_getState / mj_setState).

A state signature is a bitwise or of ``State`` elements; the vector holds the selected elements in bit order.
Elements this engine has no storage for (user data, plugin and plastic state) have size 0, as in MuJoCo for a
model without them. The history buffers (``d.history``) are physics state, as in MuJoCo 4.
"""

import enum

import numpy as np

from mjgym.physics.types import FatalError


class State(enum.IntEnum):
  """mjtState (MuJoCo 4.0.0 bits)."""
  TIME = 1 << 0
  QPOS = 1 << 1
  QVEL = 1 << 2
  ACT = 1 << 3
  HISTORY = 1 << 4
  WARMSTART = 1 << 5
  CTRL = 1 << 6
  QFRC_APPLIED = 1 << 7
  XFRC_APPLIED = 1 << 8
  EQ_ACTIVE = 1 << 9
  MOCAP_POS = 1 << 10
  MOCAP_QUAT = 1 << 11
  USERDATA = 1 << 12
  PLUGIN = 1 << 13
  PLASTIC = 1 << 14
  PHYSICS = QPOS | QVEL | ACT | HISTORY | PLASTIC
  FULLPHYSICS = TIME | PHYSICS | PLUGIN
  USER = CTRL | QFRC_APPLIED | XFRC_APPLIED | EQ_ACTIVE | MOCAP_POS | MOCAP_QUAT | USERDATA
  INTEGRATION = FULLPHYSICS | USER | WARMSTART


# Number of state elements (mjNSTATE).
NSTATE = 15


def bindings_enum():
  """mjtState as the bindings spell it: ``mjSTATE_QPOS`` (or ``QPOS``), and ``mjNSTATE``."""
  members = {}
  for member in State:
    members[member.name] = member.value
    members["mjSTATE_" + member.name] = member.value
  members["mjNSTATE"] = NSTATE
  return enum.IntEnum("mjtState", members)

# Element -> the Data field holding it (None: no storage here, size 0).
_FIELDS = {
    State.TIME: "time", State.QPOS: "qpos", State.QVEL: "qvel", State.ACT: "act", State.HISTORY: "history",
    State.WARMSTART: "qacc_warmstart", State.CTRL: "ctrl", State.QFRC_APPLIED: "qfrc_applied",
    State.XFRC_APPLIED: "xfrc_applied", State.EQ_ACTIVE: "eq_active", State.MOCAP_POS: "mocap_pos",
    State.MOCAP_QUAT: "mocap_quat", State.USERDATA: None, State.PLUGIN: None, State.PLASTIC: None,
}


def _check(sig, caller="mj_stateSize"):
  """``sig`` as an int; MuJoCo's error (raised by ``caller``) if it is no state signature."""
  sig = int(sig)
  if sig < 0:
    raise FatalError(f"{caller}: invalid state signature {sig} < 0")
  if sig >= 1 << NSTATE:
    raise FatalError(f"{caller}: invalid state signature {sig} >= 2^mjNSTATE")
  return sig


def element_fields(sig):
  """Names of the Data fields of the elements in ``sig`` that have storage here, in bit order."""
  sig = _check(sig)
  return [_FIELDS[State(1 << i)] for i in range(NSTATE) if sig & (1 << i) and _FIELDS[State(1 << i)] is not None]


def _elements(d, sig):
  """The Data arrays of the elements in ``sig``, in bit order (flat views)."""
  for i in range(NSTATE):
    element = State(1 << i)
    field = _FIELDS[element]
    if sig & element and field is not None:
      yield d._fields[field].reshape(-1)  # pylint: disable=protected-access


def state_size(m, sig):
  """Length of the state vector of signature ``sig``."""
  sig = _check(sig)
  sizes = {State.TIME: 1, State.QPOS: m.nq, State.QVEL: m.nv, State.ACT: m.na, State.HISTORY: m.nhistory,
           State.WARMSTART: m.nv,
           State.CTRL: m.nu, State.QFRC_APPLIED: m.nv, State.XFRC_APPLIED: 6 * m.nbody, State.EQ_ACTIVE: m.neq,
           State.MOCAP_POS: 3 * m.nmocap, State.MOCAP_QUAT: 4 * m.nmocap}
  return sum(n for element, n in sizes.items() if sig & element)


def _vector(m, state, sig, writeable):
  if not isinstance(state, np.ndarray) or state.dtype != np.float64:
    raise TypeError("state must be a float64 numpy array")
  if writeable and not state.flags.writeable:
    raise ValueError("state must be writeable")
  size = state_size(m, sig)
  if state.size != size:
    raise TypeError("state size should equal mj_stateSize(m, sig)")
  return state.reshape(-1)


def get_state(m, d, state, sig):
  """Writes the elements of ``sig`` of ``d`` into ``state`` (float64, mj_stateSize long)."""
  sig = _check(sig, "mj_getState")
  flat = _vector(m, state, sig, True)
  adr = 0
  for arr in _elements(d, sig):
    flat[adr:adr + arr.size] = arr
    adr += arr.size
  if not np.shares_memory(flat, state):
    state.reshape(-1)[:] = flat


def set_state(m, d, state, sig):
  """Sets the elements of ``sig`` of ``d`` from ``state``."""
  sig = _check(sig, "mj_setState")
  flat = _vector(m, np.asarray(state, dtype=np.float64), sig, False)
  adr = 0
  for arr in _elements(d, sig):
    arr[:] = flat[adr:adr + arr.size]
    adr += arr.size
