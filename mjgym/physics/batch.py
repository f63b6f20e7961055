"""Batched worlds: one set of Data arrays with a leading world axis, stepped world-parallel in one call.

World ``w`` of a batch is an ordinary ``MjData`` over the views ``array[w]``, so every stage kernel is the
very same code whether a world is stepped alone or inside a batch: the numbers are bitwise identical.
"""

import numba
import numpy as np
from numba import njit
from numba import prange
from numba.core import cgutils
from numba.extending import intrinsic
from numba.typed import List

from mjgym.physics import _structs
from mjgym.physics import forward
from mjgym.physics import state
from mjgym.physics import types
from mjgym.physics.containers import MjData
from mjgym.physics.containers import allocate_data_arrays

# Threads share a batch's worlds by claiming them one at a time (``run_batch``). A static split (each thread a
# fixed half) makes every call as slow as its slowest thread, and on a shared machine one core often runs at half
# speed for a while; claimed worlds let the other thread take over the rest (64 worlds, a 2-thread call against a
# 1-thread one, interleaved in one process on a 2-core machine: hopper 1.55x -> 1.71x, walker2d 1.59x -> 1.73x,
# humanoid 1.70x -> 1.83x). numba's own chunking does not do this under its OpenMP layer: with
# set_parallel_chunksize(1) each of 2 threads still got exactly half of the 64 worlds in every one of 700 calls
# (measured). Each thread starts on a contiguous range of worlds of its own, so a world's data stays in the cache
# of the core that stepped it last call, and turns to the others' ranges once its own is done.
#
# Each chunk of worlds also gets its own Model struct over the very same arrays (separately unboxed): reading
# the typed list of structs counts a reference on the struct taken, which would ping-pong between cores if
# all threads shared one. Changes to the model from Python still reach every world.


@intrinsic
def _claim(typingctx, cursor, i):
  """``cursor[i] += 1`` as one atomic operation, returning the value before: a world index no other thread
  gets."""
  sig = numba.types.int64(cursor, i)

  def codegen(context, builder, signature, args):
    aryty = signature.args[0]
    ary = context.make_array(aryty)(context, builder, args[0])
    ptr = cgutils.get_item_pointer(context, builder, aryty, ary, [args[1]], wraparound=False)
    return builder.atomic_rmw("add", ptr, ptr.type.pointee(1), "monotonic")

  return sig, codegen


# int64 slots between two threads' cursors: each on a cache line of its own
_CURSOR_STRIDE = 8


@njit(cache=True, error_model="numpy")
def _start_ranges(cursor, nworld, nthread):
  """Splits ``nworld`` worlds into contiguous ranges, one per task (one per thread, at most one per world), sets
  each range's cursor to its first world, clears the count of finished tasks and returns the number of tasks."""
  ntask = max(1, min(nthread, nworld, len(cursor) // _CURSOR_STRIDE - 1))
  for t in range(ntask):
    cursor[t * _CURSOR_STRIDE] = t * nworld // ntask
  cursor[ntask * _CURSOR_STRIDE] = 0
  return ntask


@njit(cache=True, error_model="numpy")
def _next_world(cursor, t, k, ntask, nworld):
  """(world, k): the next world task ``t`` claims from range (t + k) % ntask, or from the ranges after it once
  that one is used up, and the k of the range it came from; world -1 when every range is used up."""
  while k < ntask:
    v = (t + k) % ntask
    w = _claim(cursor, v * _CURSOR_STRIDE)
    if w < (v + 1) * nworld // ntask:
      return w, k
    k += 1
  return -1, k


# Reads of the finished count task 0 makes at most while the other tasks finish their last worlds (a few hundred
# microseconds): a bound for when a worker has lost its core to another process.
_SPIN_LIMIT = 20000


@njit(cache=True, error_model="numpy")
def _finish(cursor, t, ntask):
  """Counts task ``t`` finished. Task 0 (the calling thread: OpenMP deals a prange of one iteration per thread
  out in order) then waits, reading the count, until every task has finished or ``_SPIN_LIMIT`` reads have gone
  by. Asleep in the region's closing barrier instead, the caller would be woken only after a wake-up latency
  (tens of microseconds on a virtual machine): the spin made 2-thread calls 1-6% faster (hopper and half_cheetah,
  16 and 64 worlds; the most at 16 worlds of half_cheetah)."""
  done = ntask * _CURSOR_STRIDE
  _claim(cursor, done)
  if t == 0:
    n = 0
    while n < _SPIN_LIMIT and _claim(cursor, done) - n < ntask:  # each read adds one
      n += 1


# Operations: those of forward.run, applied to every world selected by the mask.
OP_STEP = forward.OP_STEP
OP_STEP_OBSERVE = forward.OP_STEP_OBSERVE
OP_FORWARD = forward.OP_FORWARD
OP_RESET = forward.OP_RESET
OP_OBSERVE = forward.OP_OBSERVE
OP_STEP_RNE = forward.OP_STEP_RNE
OP_ENV_STEP_RNE = forward.OP_ENV_STEP_RNE


@njit(cache=True, error_model="numpy", parallel=True)
def run_batch(models, model_of, worlds, mask, op, nstep, cursor, nthread):
  """Applies ``op`` (forward.OP_*) to every world w with ``mask[w]``, using Model ``models[model_of[w]]``. Each
  world goes through ``forward.run``, the very function a single world calls (closed-form colliders), on one of
  ``nthread`` threads (numba's current count): thread t first claims the worlds of its own contiguous range, then
  those left in the others' ranges (``cursor``: int64, ``_CURSOR_STRIDE`` slots per thread and one more,
  overwritten).

  ``model_of`` maps a world to the struct of its chunk (shared model) or to its own struct (per-world model
  fields, see ``MjDataBatch.randomize``).
  """
  nworld = len(worlds)
  ntask = _start_ranges(cursor, nworld, nthread)
  for t in prange(ntask):
    w, k = _next_world(cursor, t, 0, ntask, nworld)
    while w >= 0:
      if mask[w]:
        forward.run(models[model_of[w]], worlds[w], op, nstep)
      w, k = _next_world(cursor, t, k, ntask, nworld)
    _finish(cursor, t, ntask)


@njit(cache=True, error_model="numpy", parallel=True)
def run_batch_ccd(models, model_of, worlds, mask, op, nstep, cursor, nthread):
  """``run_batch`` through ``forward.run_ccd`` (every collider)."""
  nworld = len(worlds)
  ntask = _start_ranges(cursor, nworld, nthread)
  for t in prange(ntask):
    w, k = _next_world(cursor, t, 0, ntask, nworld)
    while w >= 0:
      if mask[w]:
        forward.run_ccd(models[model_of[w]], worlds[w], op, nstep)
      w, k = _next_world(cursor, t, k, ntask, nworld)
    _finish(cursor, t, ntask)


# Model fields that may carry a leading world axis (domain randomization). Derived model quantities (e.g.
# body_subtreemass, dof_invweight0, body inertia) are not recomputed, as when one edits them in MuJoCo.
RANDOMIZABLE = ("body_mass", "geom_friction", "dof_damping", "actuator_gear", "opt_gravity")


class MjDataBatch:
  """``nworld`` worlds of one model; every Data field is an array of shape ``(nworld, *single_world_shape)``.

  ``batch.qpos`` is (nworld, nq), ``batch.xpos`` (nworld, nbody, 3), and so on; ``batch[w]`` is world w as
  an ``MjData`` sharing the same memory. Construction resets every world like ``mj_resetData``.
  ``randomize`` gives chosen model fields a leading world axis (one value per world).
  """

  def __init__(self, m, nworld):
    if nworld < 1:
      raise ValueError(f"nworld must be >= 1, got {nworld}")
    self._attach(m, allocate_data_arrays(m, nworld))
    self.reset()

  def _attach(self, m, fields, world_model=None):
    self.model = m
    self.nworld = len(fields["time"])
    self._fields = fields
    self._worlds = [MjData.over_arrays(m, {k: v[w] for k, v in self._fields.items()}) for w in range(self.nworld)]
    # Model structs: a few per thread (see the note at the top)
    self.nchunk = min(self.nworld, 4 * numba.config.NUMBA_NUM_THREADS)
    self._cursor = np.zeros(_CURSOR_STRIDE * (numba.config.NUMBA_NUM_THREADS + 1), np.int64)
    # The typed lists run_batch takes are made at its first call: numba compiles typed-list code in every
    # process (about a second), which a one-world batch (a single env) never needs.
    self._structs = None
    self._models = None
    chunk_of = np.empty(self.nworld, np.int64)
    for c in range(self.nchunk):
      chunk_of[c * self.nworld // self.nchunk:(c + 1) * self.nworld // self.nchunk] = c
    self._model_of = chunk_of
    self.world_model = {}
    self._all = np.ones(self.nworld, np.bool_)
    if world_model:
      self.randomize(list(world_model))
      for name, values in world_model.items():
        self.world_model[name][...] = values

  @classmethod
  def over_arrays(cls, m, fields, world_model=None):
    """A batch over the given (nworld, ...) Data arrays and per-world model fields, left as they are."""
    batch = cls.__new__(cls)
    batch._attach(m, fields, world_model)  # pylint: disable=protected-access
    return batch

  # As MjData: copy.copy copies the worlds onto the same model, copy.deepcopy and pickle carry the model too.
  def __copy__(self):
    return MjDataBatch.over_arrays(self.model, _copy(self._fields), _copy(self.world_model))

  def __deepcopy__(self, memo):
    import copy  # pylint: disable=import-outside-toplevel
    copied = MjDataBatch.over_arrays(copy.deepcopy(self.model, memo), _copy(self._fields), _copy(self.world_model))
    memo[id(self)] = copied
    return copied

  def __reduce__(self):
    return MjDataBatch.over_arrays, (self.model, self._fields, self.world_model)

  def __getattr__(self, name):
    fields = self.__dict__.get("_fields", {})
    if name in fields:
      return fields[name]
    raise AttributeError(f"MjDataBatch has no attribute '{name}'")

  def __getitem__(self, w):
    return self._worlds[w]

  def __len__(self):
    return self.nworld

  def _mask(self, mask):
    if mask is None:
      return self._all
    mask = np.asarray(mask, np.bool_)
    if mask.shape != (self.nworld,):
      raise ValueError(f"mask must have shape ({self.nworld},), got {mask.shape}")
    return mask

  def _run(self, op, mask, nstep=1):
    mask = self._mask(mask)
    if self.nworld == 1 and not self.world_model:
      # One world: the single-world entry point, without a parallel region around it (and only one pipeline
      # to compile for a single environment).
      if mask[0]:
        forward.entry(self.model)(self.model._struct, self._worlds[0]._struct, op, int(nstep))
      return
    forward.prepare(self.model)
    if self._structs is None:
      self._structs = List([d._struct for d in self._worlds])
    if self._models is None:
      self._models = List([self.model.new_struct() for _ in range(self.nchunk)])
    run = run_batch_ccd if self.model.needs_ccd else run_batch
    run(self._models, self._model_of, self._structs, mask, op, int(nstep), self._cursor, numba.get_num_threads())

  def step(self, nstep=1, mask=None):
    """Advances every world (or those where ``mask`` is true) ``nstep`` times (mj_step each), in parallel."""
    self._run(OP_STEP, mask, nstep)

  def step_observe(self, nstep, mask=None):
    """An environment step: ``nstep`` steps, then forward dynamics and mj_rnePostConstraint at the new state.

    Runs as MuJoCo's split step (forward.env_steps): each state passes the position and velocity stages once, the
    last step's mj_step1 serving the observation and the next call's first step. A state set from Python
    (``set_state``, or ``observe`` after writing qpos/qvel) is evaluated anew; one written into the arrays
    directly needs ``observe`` (or ``forward``) before the next ``step_observe``, as MuJoCo needs mj_forward
    after such a write."""
    self._run(OP_STEP_OBSERVE, mask, nstep)

  def step_rne(self, nstep, mask=None):
    """``nstep`` steps then mj_rnePostConstraint (Gymnasium's ``do_simulation``): qpos/qvel are the new state;
    derived fields (xipos, cinert, cvel, cfrc_ext, ...) are those MuJoCo leaves after mj_step, computed at the
    last step's state before integration."""
    self._run(OP_STEP_RNE, mask, nstep)

  def step_derived(self, nstep, mask=None):
    """``step_rne`` for an environment whose reward reads derived fields before its observation (``observe``):
    the first step starts from the mj_step1 of the ``observe`` that ended the previous environment step (see
    ``step_observe``); the fields it leaves are those of ``step_rne``."""
    self._run(OP_ENV_STEP_RNE, mask, nstep)

  def forward(self, mask=None):
    """mj_forward on every world (or those where ``mask`` is true), in parallel over worlds."""
    self._run(OP_FORWARD, mask)

  def observe(self, mask=None):
    """mj_forward (with mj_step1's state checks) then mj_rnePostConstraint on the worlds where ``mask`` is true
    (the end of an env reset or set_state)."""
    self._run(OP_OBSERVE, mask)

  def reset(self, mask=None):
    """Resets all worlds, or those where the boolean ``mask`` (nworld,) is true (mj_resetData each)."""
    self._run(OP_RESET, mask)

  def state_size(self, spec):
    """Length of one world's state vector of signature ``spec`` (mj_stateSize)."""
    return state.state_size(self.model, spec)

  def _world_index(self, worlds):
    """None (all worlds), a boolean mask (nworld,) or world indices -> an index array."""
    if worlds is None:
      return np.arange(self.nworld)
    worlds = np.asarray(worlds)
    if worlds.dtype == np.bool_:
      return np.nonzero(self._mask(worlds))[0]
    if worlds.dtype.kind not in "iu":
      raise TypeError("worlds must be None, a boolean mask or integer indices")
    worlds = worlds.reshape(-1).astype(np.int64)
    if worlds.size and (worlds.min() < -self.nworld or worlds.max() >= self.nworld):
      raise IndexError(f"world index out of range [0, {self.nworld})")
    return worlds % self.nworld

  def get_state(self, spec, worlds=None, out=None):
    """The state vectors of signature ``spec`` of the selected worlds: (n, mj_stateSize) float64, row k equal to
    mj_getState on world ``worlds[k]``. ``worlds``: None (all), a boolean mask (nworld,) or indices."""
    index = self._world_index(worlds)
    size = self.state_size(spec)
    if out is None:
      out = np.empty((len(index), size))
    elif out.shape != (len(index), size) or out.dtype != np.float64:
      raise ValueError(f"out must be a float64 array of shape ({len(index)}, {size})")
    adr = 0
    for name in state.element_fields(spec):
      arr = self._fields[name].reshape(self.nworld, -1)
      out[:, adr:adr + arr.shape[1]] = arr[index]
      adr += arr.shape[1]
    return out

  def set_state(self, values, spec, worlds=None):
    """Sets the elements of ``spec`` of the selected worlds from ``values`` ((n, mj_stateSize), or one vector for
    all of them), as mj_setState on each world."""
    index = self._world_index(worlds)
    size = self.state_size(spec)
    values = np.asarray(values, dtype=np.float64)
    if values.shape[-1:] != (size,) or values.ndim > 2 or (values.ndim == 2 and values.shape[0] not in (1, len(index))):
      raise ValueError(f"values must have shape ({len(index)}, {size}) or ({size},), got {values.shape}")
    values = np.broadcast_to(values if values.ndim == 2 else values[np.newaxis], (len(index), size))
    adr = 0
    for name in state.element_fields(spec):
      field = self._fields[name]
      width = field[0].size
      field[index] = values[:, adr:adr + width].reshape((len(index),) + field.shape[1:])
      adr += width
    self._fields["step1_valid"][index] = 0  # the state moved: the next environment step starts with mj_step1

  def randomize(self, names):
    """Gives model fields ``names`` (from ``RANDOMIZABLE``) a leading world axis; returns ``world_model``.

    ``world_model[name]`` is a (nworld, *field_shape) array, initially the model's values, that world w reads
    instead of the model's field: write into it in place (e.g. ``world_model["body_mass"][:, 1] *= 1.2``).
    Every other field stays shared with the model. Each world then gets its own Model struct (over the shared
    arrays and its rows of the per-world ones); an unrandomized batch keeps one struct per chunk.
    """
    names = [names] if isinstance(names, str) else list(names)
    unknown = [n for n in names if n not in RANDOMIZABLE]
    if unknown:
      raise ValueError(f"cannot randomize {unknown}: the per-world fields are {RANDOMIZABLE}")
    fields = self.model._fields  # pylint: disable=protected-access
    for name in names:
      if name not in self.world_model:
        self.world_model[name] = np.ascontiguousarray(np.repeat(fields[name][None], self.nworld, axis=0))
    rows = [n for n, _, _ in types.MODEL_ROWS]
    self._models = List([
        _structs.new_model(*[self.world_model[n][w] if n in self.world_model else fields[n] for n in rows])
        for w in range(self.nworld)
    ])
    self._model_of = np.arange(self.nworld, dtype=np.int64)
    return self.world_model


def _copy(arrays):
  return {name: arr.copy() for name, arr in arrays.items()}


def set_num_threads(n):
  """Threads used by batched calls (at most numba's NUMBA_NUM_THREADS); share cores with torch wisely."""
  numba.set_num_threads(int(n))


def get_num_threads():
  return numba.get_num_threads()
