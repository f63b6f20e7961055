"""Batched worlds: one set of Data arrays with a leading world axis, stepped world-parallel in one call.

World ``w`` of a batch is an ordinary ``MjData`` over the views ``array[w]``, so every stage kernel is the
very same code whether a world is stepped alone or inside a batch: the numbers are bitwise identical.
"""

import numba
import numpy as np
from numba import njit
from numba import prange
from numba.typed import List

from mjgym.physics import forward
from mjgym.physics.containers import MjData
from mjgym.physics.containers import allocate_data_arrays


# Every read of a Model field from compiled code touches the reference count of that array's memory-info
# block. When all threads share one Model struct those counts ping-pong between cores and a batch runs
# slower than a single thread (measured: 32k vs 83k hopper world-steps/s on 2 cores). Each chunk of worlds
# therefore gets its own Model struct over the very same arrays (separately unboxed, so with separate
# counts): changes to the model from Python still reach every world.


@njit(cache=True, parallel=True)
def step_batch(models, worlds, nstep):
  """Steps every world ``nstep`` times; the worlds are split into ``len(models)`` chunks run in parallel."""
  nchunk = len(models)
  nworld = len(worlds)
  for c in prange(nchunk):
    m = models[np.int64(c)]
    for w in range(c * nworld // nchunk, (c + 1) * nworld // nchunk):
      forward.step(m, worlds[w], nstep)


@njit(cache=True, parallel=True)
def forward_batch(models, worlds):
  """Forward dynamics of every world, chunks of worlds in parallel."""
  nchunk = len(models)
  nworld = len(worlds)
  for c in prange(nchunk):
    m = models[np.int64(c)]
    for w in range(c * nworld // nchunk, (c + 1) * nworld // nchunk):
      forward.forward(m, worlds[w])


@njit(cache=True, parallel=True)
def reset_batch(models, worlds, mask):
  """Resets the worlds whose ``mask`` entry is true (mj_resetData each), chunks of worlds in parallel."""
  nchunk = len(models)
  nworld = len(worlds)
  for c in prange(nchunk):
    m = models[np.int64(c)]
    for w in range(c * nworld // nchunk, (c + 1) * nworld // nchunk):
      if mask[w]:
        forward.reset_data(m, worlds[w])


class MjDataBatch:
  """``nworld`` worlds of one model; every Data field is an array of shape ``(nworld, *single_world_shape)``.

  ``batch.qpos`` is (nworld, nq), ``batch.xpos`` (nworld, nbody, 3), and so on; ``batch[w]`` is world w as
  an ``MjData`` sharing the same memory. Construction resets every world like ``mj_resetData``.
  """

  def __init__(self, m, nworld):
    if nworld < 1:
      raise ValueError(f"nworld must be >= 1, got {nworld}")
    self.model = m
    self.nworld = int(nworld)
    self._fields = allocate_data_arrays(m, nworld)
    self._worlds = [MjData.over_arrays(m, {k: v[w] for k, v in self._fields.items()}) for w in range(nworld)]
    self._structs = List([d._struct for d in self._worlds])
    # a few chunks per thread, so that a thread slowed by another process does not hold everyone up
    nchunk = min(self.nworld, 4 * numba.config.NUMBA_NUM_THREADS)
    self._models = List([m.new_struct() for _ in range(nchunk)])
    self.reset()

  def __getattr__(self, name):
    fields = self.__dict__.get("_fields", {})
    if name in fields:
      return fields[name]
    raise AttributeError(f"MjDataBatch has no attribute '{name}'")

  def __getitem__(self, w):
    return self._worlds[w]

  def __len__(self):
    return self.nworld

  def step(self, nstep=1):
    """Advances every world ``nstep`` times (mj_step each), in parallel over worlds."""
    step_batch(self._models, self._structs, int(nstep))

  def forward(self):
    """mj_forward on every world, in parallel over worlds."""
    forward_batch(self._models, self._structs)

  def reset(self, mask=None):
    """Resets all worlds, or those where the boolean ``mask`` (nworld,) is true."""
    if mask is None:
      mask = np.ones(self.nworld, np.bool_)
    mask = np.asarray(mask, np.bool_)
    if mask.shape != (self.nworld,):
      raise ValueError(f"mask must have shape ({self.nworld},), got {mask.shape}")
    reset_batch(self._models, self._structs, mask)


def set_num_threads(n):
  """Threads used by batched calls (at most numba's NUMBA_NUM_THREADS); share cores with torch wisely."""
  numba.set_num_threads(int(n))


def get_num_threads():
  return numba.get_num_threads()
