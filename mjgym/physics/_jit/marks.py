"""Which mjgym kernels are compiled on their own (``separate``) and which are not worth optimizing (``cold``): marks
the engine sets in either toolchain mode and the patches read (link.py)."""

SEPARATE = set()  # (module, qualname) of every separate kernel
COLD = set()  # qualname of every cold kernel (numba names a kernel's code library by its qualname alone)


def separate(dispatcher):
  """Marks a pipeline stage as compiled on its own and called by address (link.py); in plain mode it is linked
  into its callers as numba does. Returns ``dispatcher``."""
  func = dispatcher.py_func
  SEPARATE.add((func.__module__, func.__qualname__))
  return dispatcher


def is_separate(dispatcher):
  """Whether ``dispatcher`` was marked ``separate``."""
  func = dispatcher.py_func
  return (func.__module__, func.__qualname__) in SEPARATE


def cold(dispatcher):
  """Marks a kernel that runs once per model or Data: its IR is not optimized (patched mode). Returns it."""
  COLD.add(dispatcher.py_func.__qualname__)
  return dispatcher
