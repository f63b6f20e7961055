"""mjgym's numba toolchain: the one place that reaches into numba's and llvmlite's private internals.

The engine runs on stock numba. What this package adds is speed and start-up, never results: kernels compiled
once and called by address (``separate``), compiled only when a model needs them (``lazy``), cached by import
closure and loaded without numba's compiler (``cache``), without reference counts on borrowed arguments and arrays
(``link``, ``borrow``), and indexed without Python's wraparound (``index``). Each of these replaces or calls
private parts of numba and llvmlite, which change between their releases. So:

- ``install()`` (run by ``mjgym.physics`` before any kernel module is imported) applies the patches only on the
  numba and llvmlite versions in ``SUPPORTED`` (the range CI tests, pinned in pyproject.toml), and only after it has
  found every private attribute they patch or call, with the parameters they expect (``_REQUIRED``).
- Otherwise, and always with ``MJGYM_PLAIN_NUMBA=1``, mjgym runs on *plain* numba: nothing of numba or llvmlite is
  replaced, no private attribute is read, kernels are linked and cached as numba does by itself; results are bitwise
  the same, only compiles and steps are slower (docs/compile.md). Outside the range this is said in one line
  (``ToolchainWarning``), naming the versions found and the range supported.
- The patches act on mjgym's own kernels only: a user's ``@njit`` function in the same process compiles, caches
  and runs as on stock numba (tests/test_jit.py compares its machine code with a process without mjgym).

The decorators below are what the engine uses in either mode.
"""

import os
import types
import warnings

from numba.extending import is_jitted

from mjgym.physics._jit.marks import COLD  # noqa: F401  pylint: disable=unused-import
from mjgym.physics._jit.marks import SEPARATE  # noqa: F401  pylint: disable=unused-import
from mjgym.physics._jit.marks import cold  # noqa: F401  pylint: disable=unused-import
from mjgym.physics._jit.marks import is_separate  # noqa: F401  pylint: disable=unused-import
from mjgym.physics._jit.marks import separate  # noqa: F401  pylint: disable=unused-import
from mjgym.physics._jit.supported import SUPPORTED  # noqa: F401  pylint: disable=unused-import
from mjgym.physics._jit.supported import ToolchainWarning
from mjgym.physics._jit.supported import missing_internals
from mjgym.physics._jit.supported import out_of_range
from mjgym.physics._jit.supported import supported_text
from mjgym.physics._jit.supported import versions

# Every private attribute the patches replace or call, with the leading parameters a replaced function must take.
# Found and checked by ``install`` before anything is patched: a numba that renamed or reshaped one runs plain.
# (numba's array indexing, numba.np.arrayobj.fix_integer_index, is checked where index.py patches it, at the first
# compile: importing it imports much of numba's compiler, which a start that only loads cached kernels never needs.)
_REQUIRED = (
    ("numba.core.caching", "_CacheLocator", None),
    ("numba.core.caching", "CacheImpl._locator_classes", None),
    ("numba.core.caching", "Cache.load_overload", ("self", "sig", "target_context")),
    ("numba.core.caching", "Cache._load_overload", ("self", "sig", "target_context")),
    ("numba.core.caching", "Cache._guard_against_spurious_io_errors", ("self",)),
    ("numba.core.caching", "IndexDataCacheFile.save", ("self", "key", "data")),
    ("numba.core.caching", "IndexDataCacheFile._save_data", ("self", "name", "data")),
    ("numba.core.caching", "IndexDataCacheFile._load_index", ("self",)),
    ("numba.core.caching", "IndexDataCacheFile._save_index", ("self", "overloads")),
    ("numba.core.caching", "IndexDataCacheFile._data_path", ("self", "name")),
    ("numba.core.compiler", "CompileResult._reduce", ("self",)),
    ("numba.core.compiler", "CompileResult._rebuild",
     ("cls", "target_context", "libdata", "fndesc", "env", "signature", "objectmode", "lifted", "typeann", "reload_init")),
    ("numba.core.codegen", "CPUCodeLibrary._unserialize", ("cls", "codegen", "state")),
    ("numba.core.codegen", "CPUCodeLibrary._get_module_for_linking", ("self",)),
    ("numba.core.codegen", "CPUCodeLibrary._optimize_functions", ("self", "ll_module")),
    ("numba.core.codegen", "CPUCodeLibrary._optimize_final_module", ("self",)),
    ("numba.core.codegen", "CPUCodeLibrary._finalize_final_module", ("self",)),
    ("numba.core.codegen", "CPUCodeLibrary._set_compiled_object", ("self", "value")),
    ("numba.core.codegen", "CPUCodeLibrary.add_llvm_module", ("self", "ll_module")),
    ("numba.core.codegen", "CPUCodeLibrary.enable_object_caching", ("self",)),
    ("numba.core.codegen", "JITCodeLibrary.get_pointer_to_function", ("self", "name")),
    ("numba.core.codegen", "JITCPUCodegen._module_pass_manager", ("self", "kwargs")),
    ("numba.core.codegen", "JITCPUCodegen._function_pass_manager", ("self", "kwargs")),
    ("numba.core.codegen", "remove_redundant_nrt_refct", ("ll_module",)),
    ("numba.core.base", "BaseContext.insert_user_function", ("self", "func", "fndesc", "libs")),
    ("numba.core.dispatcher", "_DispatcherBase.get_call_template", ("self", "args", "kws")),
    ("numba.core.dispatcher", "Dispatcher._set_uuid", ("self", "u")),
    ("numba.core.lowering", "BaseLower.lower", ("self",)),
    ("numba.core.imputils", "fix_returning_optional", ("context", "builder", "sig", "status", "retval")),
    ("numba.core.runtime.nrt", "rtsys", None),
    ("numba.core.config", "LLVM_REFPRUNE_PASS", None),
    ("llvmlite.binding", "address_of_symbol", ("name",)),
    ("llvmlite.binding", "add_symbol", ("name", "address")),
)


_STATE = {"mode": None, "reason": ""}


def _plain(reason, warn):
  _STATE["mode"], _STATE["reason"] = "plain", reason
  if warn:
    found = versions()
    warnings.warn(f"mjgym runs on plain numba (slower, same results): {reason}; found numba {found['numba']} with "
                  f"llvmlite {found['llvmlite']}, mjgym's toolchain supports {supported_text()}",
                  ToolchainWarning, stacklevel=3)


def install():
  """Applies the toolchain's patches where they are safe, else settles on plain numba; returns the mode,
  "patched" or "plain". Idempotent; must run before any kernel module is imported."""
  if _STATE["mode"] is not None:
    return _STATE["mode"]
  if os.environ.get("MJGYM_PLAIN_NUMBA", "") not in ("", "0"):
    _plain("MJGYM_PLAIN_NUMBA is set", warn=False)
  elif out_of_range():
    _plain(f"{' and '.join(out_of_range())} outside the tested range", warn=True)
  else:
    problems = missing_internals(_REQUIRED)
    if problems:
      _plain(f"{problems[0]}" + (f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""), warn=True)
    else:
      # pylint: disable=import-outside-toplevel
      from mjgym.physics._jit import cache, index, link
      cache.apply()
      link.apply()
      index.apply()
      _STATE["mode"] = "patched"
  if _STATE["mode"] == "plain":
    from mjgym.physics._jit import plain  # pylint: disable=import-outside-toplevel
    plain.clear_stale_cache()
    globals()["borrow"] = plain.borrow
  return _STATE["mode"]


def mode():
  """"patched" or "plain" (installing first if needed)."""
  return install()


def is_plain():
  """Whether mjgym runs on plain numba."""
  return install() == "plain"


def reason():
  """Why mjgym runs plain ('' when patched)."""
  install()
  return _STATE["reason"]


# --- what the engine uses, in either mode -----------------------------------------------------------------------

# The generated struct constructors hold arrays through ``borrow``: without their reference counts (borrow.py) when
# patched, as they are (a plain identity) in plain mode.
from mjgym.physics._jit.borrow import borrow  # pylint: disable=wrong-import-position


def lazy(dispatcher):
  """A kernel compiled only when a model needs it (``prepare``); in plain mode, ``dispatcher`` itself, which its
  callers compile with them."""
  if is_plain():
    return dispatcher
  from mjgym.physics._jit import link  # pylint: disable=import-outside-toplevel
  return link.lazy(dispatcher)


def dispatcher_of(kernel):
  """The numba dispatcher of a kernel, lazy or not."""
  return getattr(kernel, "dispatcher", kernel)


def prepared(kernel, argtypes):
  """Whether ``kernel`` (lazy or not) can be called from compiled code with ``argtypes``."""
  prepared_ = getattr(kernel, "prepared", None)
  return prepared_ is None or prepared_(argtypes)


def prepare(kernel, argtypes):
  """Compiles a lazy kernel for ``argtypes`` (or loads it from the cache) and binds it for its callers; nothing
  for a kernel that its callers compile with them (plain mode)."""
  prepare_ = getattr(kernel, "prepare", None)
  if prepare_ is not None:
    prepare_(argtypes)


def stable_identity(dispatcher):
  """Gives ``dispatcher`` a process-independent identity (its module and name), so that kernels taking it as an
  argument load from a cache in every process; returns it (usable as a decorator above ``@njit``)."""
  set_uuid = getattr(dispatcher, "_set_uuid", None)
  if callable(set_uuid) and not is_plain():
    set_uuid(f"mjgym:{dispatcher.py_func.__module__}.{dispatcher.py_func.__qualname__}")
  return dispatcher


def uncached(dispatchers):
  """Those of ``dispatchers`` that will compile when called (plain mode: those not compiled in this process)."""
  if is_plain():
    return [d for d in dispatchers if not d.overloads and d.targetoptions.get("inline") != "always"]
  from mjgym.physics._jit import cache  # pylint: disable=import-outside-toplevel
  return cache.uncached(dispatchers)


def _dispatchers_of(func, seen):
  """Every mjgym kernel that ``func`` (a Python function) can reach through its module's globals.

  An over-approximation from the bytecode: a global that is a kernel, and ``module.name`` for every module global
  and every attribute name the code loads.
  """
  codes = [func.__code__]
  names, found = set(), []
  while codes:
    code = codes.pop()
    names.update(code.co_names)
    codes.extend(c for c in code.co_consts if isinstance(c, types.CodeType))
  glb = func.__globals__
  for name in names:
    obj = glb.get(name)
    if isinstance(obj, types.ModuleType) and obj.__name__.startswith("mjgym."):
      for attr in names:
        sub = getattr(obj, attr, None)
        if sub is not None and is_jitted(sub):
          found.append(sub)
    elif obj is not None and is_jitted(obj):
      found.append(obj)
  for disp in found:
    if disp not in seen and disp.py_func.__module__.startswith("mjgym."):
      seen.add(disp)
      _dispatchers_of(disp.py_func, seen)
  return seen


def reachable(dispatcher):
  """The mjgym kernels ``dispatcher`` can reach, itself included."""
  return _dispatchers_of(dispatcher.py_func, {dispatcher})


def cache_description():
  """Where compiled kernels are kept, in words for progress lines."""
  if is_plain():
    return "numba's own cache, plain numba"
  return str(cache_dir())


def cache_dir():
  """The directory of mjgym's kernel cache for this numba, llvmlite and Python (patched mode)."""
  from mjgym.physics._jit import cache  # pylint: disable=import-outside-toplevel
  return cache.cache_dir()
