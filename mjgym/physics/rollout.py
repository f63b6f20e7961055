"""Open-loop rollouts of many initial states and control sequences: the `mujoco.rollout` module's API.

``rollout(model, data, initial_state, control)`` returns the full physics state (mjSTATE_FULLPHYSICS) and the
sensor values after each of ``nstep`` steps of each of ``nbatch`` trajectories, shapes (nbatch, nstep, nstate)
and (nbatch, nstep, nsensordata), with MuJoCo's semantics (rollout.cc): each trajectory starts from its initial
state and warm start (zero if none is given); user inputs not in ``control_spec`` are cleared (ctrl, applied
forces) or set to the model's defaults (mocap poses, active equalities); inputs in ``control_spec`` but without
``control`` keep the values of ``data``, which ends holding the state of the last trajectory (as MuJoCo's Data
does); a trajectory that raises a warning (divergence) repeats its state from
then on.

Here the trajectories are the worlds of one ``MjDataBatch``, stepped in parallel (numba threads over worlds, as
many as there are Data in ``data``, at most numba's thread count); every world steps exactly as mj_step on one
Data would, so the result is bitwise that of stepping each trajectory alone.
"""

import numba
import numpy as np

from mjgym.physics import state as _state
from mjgym.physics.batch import MjDataBatch
from mjgym.physics.containers import Model
from mjgym.physics.state import State

_FULLPHYSICS = int(State.FULLPHYSICS)
_INTEGRATION = int(State.INTEGRATION)


class Rollout:
  """Keeps the batches of earlier rollouts (per model and batch size) for reuse: ``Rollout(nthread=n)`` steps
  with n threads (0: as many as Data are given to ``rollout``); the user inputs come from the first Data."""

  def __init__(self, *, nthread=None):
    self.nthread = 0 if nthread is None else int(nthread)
    self._batches = {}

  def __enter__(self):
    return self

  def __exit__(self, *exc):
    self.close()

  def close(self):
    self._batches = None

  def _batch(self, m, nbatch):
    if self._batches is None:
      raise RuntimeError("rollout requested after thread pool shutdown")
    key = (id(m), nbatch)
    entry = self._batches.get(key)
    if entry is None or entry[0] is not m:
      entry = self._batches[key] = (m, MjDataBatch(m, nbatch))
    return entry[1]

  def rollout(self, model, data, initial_state, control=None, *, control_spec=int(State.CTRL), skip_checks=False,
              nstep=None, initial_warmstart=None, state=None, sensordata=None, chunk_size=None):
    """See the module docstring; the arguments and results of mujoco.rollout.Rollout.rollout."""
    models = [model] if isinstance(model, Model) else list(model)
    datas = [data] if not isinstance(data, (list, tuple)) else list(data)
    self._check_data(datas)
    if chunk_size is not None and (not isinstance(chunk_size, (int, np.integer)) or isinstance(chunk_size, bool)):
      raise ValueError("chunk_size must be an integer")
    if chunk_size is not None and chunk_size <= 0:
      raise ValueError("chunk_size must be a positive integer")
    if skip_checks and initial_state is not None and np.ndim(initial_state) == 2:
      # MuJoCo then takes nbatch from the initial states and the first nbatch models of a longer list
      models = models[:len(initial_state)]
    control_spec = int(control_spec)
    if control_spec & ~int(State.USER):
      raise ValueError("control_spec can only contain bits in mjSTATE_USER")
    if nstep is not None and (not isinstance(nstep, (int, np.integer)) or isinstance(nstep, bool)):
      raise ValueError("nstep must be an integer")
    if nstep is not None and nstep < 0:
      raise ValueError("nstep must be non-negative")
    for name, value, ndim in (("initial_state", initial_state, 2), ("initial_warmstart", initial_warmstart, 2),
                              ("control", control, 3), ("state", state, 3), ("sensordata", sensordata, 3)):
      if value is not None and not isinstance(value, (np.ndarray, float)):
        raise ValueError(f"{name} must be a numpy array or float")
      if value is not None and np.ndim(value) > ndim:
        raise ValueError(f"{name} can have at most {ndim} dimensions")
    initial_state = _atleast(initial_state, 2)
    initial_warmstart = _atleast(initial_warmstart, 2)
    control = _atleast(control, 3)
    out_state, out_sensor = state, sensordata
    arrays = {"initial_state": initial_state, "initial_warmstart": initial_warmstart, "control": control,
              "state": None if state is None else _atleast(state, 3),
              "sensordata": None if sensordata is None else _atleast(sensordata, 3)}
    nbatch = _infer(0, 1, arrays)
    if len(models) > 1 and nbatch == 1:
      nbatch = len(models)
    if len(models) > 1 and len(models) != nbatch:
      raise ValueError(f"nbatch inferred as {nbatch} but model is length {len(models)}")
    nstep = _infer(1, 1 if nstep is None else nstep,
                   {k: arrays[k] for k in ("control", "state", "sensordata")})
    m0 = models[0]
    nstate = _state.state_size(m0, _FULLPHYSICS)
    ncontrol = _state.state_size(m0, control_spec)
    for m in models[1:]:
      if (_state.state_size(m, _FULLPHYSICS) != nstate or _state.state_size(m, control_spec) != ncontrol
          or m.nv != m0.nv or m.nsensordata != m0.nsensordata):
        raise ValueError("models are not compatible")
    for name, dim in (("initial_state", nstate), ("state", nstate), ("control", ncontrol),
                      ("initial_warmstart", m0.nv), ("sensordata", m0.nsensordata)):
      if arrays[name] is not None and arrays[name].shape[-1] != dim:
        raise ValueError(f"trailing dimension of {name} must be {dim}, got {arrays[name].shape[-1]}")
    if out_state is None:
      out_state = np.empty((nbatch, nstep, nstate))
    if out_sensor is None:
      out_sensor = np.empty((nbatch, nstep, m0.nsensordata))
    st = out_state.reshape(nbatch, nstep, nstate)
    sd = out_sensor.reshape(nbatch, nstep, m0.nsensordata)
    init = np.broadcast_to(initial_state, (nbatch, nstate))
    warm = None if initial_warmstart is None else np.broadcast_to(initial_warmstart, (nbatch, m0.nv))
    ctrl = None if control is None else np.broadcast_to(control, (nbatch, nstep, ncontrol))

    threads = numba.get_num_threads()
    numba.set_num_threads(max(1, min(self.nthread or len(datas), numba.config.NUMBA_NUM_THREADS)))
    try:
      # one batch per distinct model (a list of models holding the same object once makes one batch)
      groups = {}
      for r in range(nbatch):
        groups.setdefault(id(models[r if len(models) > 1 else 0]), []).append(r)
      for rows in groups.values():
        rows = np.array(rows)
        m = models[rows[0] if len(models) > 1 else 0]
        self._run(m, datas[0], rows, nstep, control_spec, init, warm, ctrl, st, sd)
    finally:
      numba.set_num_threads(threads)
    return out_state, out_sensor

  def _check_data(self, datas):
    """rollout.cc's checks of the Data list against the thread count, with its messages."""
    if not datas:
      raise ValueError("The list of data instances is empty")
    if self.nthread == 0 and len(datas) > 1:
      raise ValueError("More than one data instance passed but rollout is configured to run on main thread")
    if self.nthread > 0 and len(datas) != self.nthread:
      raise ValueError(f"Length of data: {len(datas)} not equal to nthread: {self.nthread}")
    for i, d in enumerate(datas):
      if d.threadpool:
        raise ValueError(f"data[{i}] has a thread pool: rollout runs its own threads")

  def _run(self, m, d, rows, nstep, control_spec, init, warm, ctrl, st, sd):
    batch = self._batch(m, len(rows))
    # the Data's user inputs, then rollout.cc's clearing of those not controlled
    batch.set_state(_get(m, d, int(State.USER)), int(State.USER))
    if not control_spec & State.CTRL:
      batch.ctrl[...] = 0.0
    if not control_spec & State.QFRC_APPLIED:
      batch.qfrc_applied[...] = 0.0
    if not control_spec & State.XFRC_APPLIED:
      batch.xfrc_applied[...] = 0.0
    mocap = m.body_mocapid[m.body_mocapid >= 0]
    bodies = np.nonzero(m.body_mocapid >= 0)[0]
    if not control_spec & State.MOCAP_POS:
      batch.mocap_pos[:, mocap] = m.body_pos[bodies]
    if not control_spec & State.MOCAP_QUAT:
      batch.mocap_quat[:, mocap] = m.body_quat[bodies]
    if not control_spec & State.EQ_ACTIVE:
      batch.eq_active[...] = m.eq_active0
    batch.set_state(init[rows], _FULLPHYSICS)
    batch.qacc_warmstart[...] = 0.0 if warm is None else warm[rows]
    batch.warning_number[...] = 0
    alive = np.ones(len(rows), np.bool_)
    for t in range(nstep):
      alive &= ~batch.warning_number.any(axis=1)
      if ctrl is not None:
        batch.set_state(ctrl[rows, t][alive], control_spec, worlds=alive)
      batch.step(mask=alive)
      st[rows, t] = batch.get_state(_FULLPHYSICS)
      sd[rows, t] = batch.sensordata
    # as MuJoCo, whose Data ends holding the last trajectory it ran (a later rollout without controls starts
    # from its ctrl, say)
    _state.set_state(m, d, batch.get_state(_INTEGRATION, [len(rows) - 1])[0], _INTEGRATION)


def _get(m, d, spec):
  vec = np.empty(_state.state_size(m, spec))
  _state.get_state(m, d, vec, spec)
  return vec


def _atleast(arg, ndim):
  if arg is None:
    return None
  arg = np.asarray(arg, dtype=np.float64)
  while arg.ndim < ndim:
    arg = arg[np.newaxis]
  return np.ascontiguousarray(arg)


def _infer(dim, value, arrays):
  for name, array in arrays.items():
    if array is None:
      continue
    if array.shape[dim] != value:
      if value == 1:
        value = array.shape[dim]
      elif array.shape[dim] != 1:
        raise ValueError(f"dimension {dim} inferred as {value} but {name} has {array.shape[dim]}")
  return value


_persistent = [None]


def shutdown_persistent_pool():
  """Drops the persistent Rollout (its batches) that ``rollout(..., persistent_pool=True)`` keeps."""
  if _persistent[0] is not None:
    _persistent[0].close()
  _persistent[0] = None


def rollout(model, data, initial_state, control=None, *, control_spec=int(State.CTRL), skip_checks=False,
            nstep=None, initial_warmstart=None, state=None, sensordata=None, chunk_size=None,
            persistent_pool=False):
  """Rolls out open-loop trajectories; returns (state (nbatch, nstep, nstate), sensordata (nbatch, nstep,
  nsensordata)). ``data``: one MjData or a list of them, one per thread. With ``persistent_pool`` the batches are
  kept for the next call (same model and nbatch)."""
  datas = [data] if not isinstance(data, (list, tuple)) else list(data)
  nthread = len(datas) if len(datas) > 1 else 0
  if persistent_pool:
    if _persistent[0] is None or _persistent[0].nthread != nthread:
      _persistent[0] = Rollout(nthread=nthread)
    runner = _persistent[0]
  else:
    runner = Rollout(nthread=nthread)
  try:
    return runner.rollout(model, datas, initial_state, control, control_spec=control_spec, skip_checks=skip_checks,
                          nstep=nstep, initial_warmstart=initial_warmstart, state=state, sensordata=sensordata,
                          chunk_size=chunk_size)
  finally:
    if not persistent_pool:
      runner.close()
