"""Separately compiled kernels: a jitted caller calls them by address instead of copying their code in.

numba finishes every jitted function as a program of its own: when ``a`` calls the jitted ``b``, ``b``'s LLVM
module is linked into ``a``'s, and the whole is optimized and turned into machine code again. An engine entry
point therefore pays the optimization and code generation of the entire pipeline below it, once per entry (the
single-world ``run``, each batch entry, each env kernel that steps), and its cache file holds another copy of it.

A kernel marked ``@separate`` is compiled once, on its own. Callers declare it as an external symbol with a stable
name (module, name and a hash of its native signature), and the symbol is bound to the kernel's address when the
kernel is compiled or loaded from the cache, before any caller's code is finalized. A cached caller records, in
numba's ``reload_init`` hooks that run before its machine code is loaded, which separate kernels and signatures it
needs, so that loading it first loads (or compiles) them and binds their symbols: a symbol can never be missing.

The price is that LLVM cannot inline a separate kernel into its callers: mark whole pipeline stages, never small
helpers. Results are bitwise those of a linked call (the same machine code for the callee; no argument is
reassociated across the call).

A kernel marked ``@cold`` runs once per model or Data (the generated struct constructors): its LLVM IR is not
optimized (opt level 0), which halves its compile time; machine code generation is the same as for every kernel.
"""

import hashlib
import importlib

from llvmlite import binding as llvm
from numba.core import base
from numba.core import cgutils
from numba.core import codegen
from numba.core import imputils
from numba.core import types

from mjgym.physics import _cache

_SEPARATE = set()  # (module, qualname) of every separate kernel
_COLD = set()  # qualname of every cold kernel (numba names a kernel's code library by its qualname alone)


def separate(dispatcher):
  """Marks ``dispatcher`` (a ``numba.njit`` function) as separately compiled; returns it."""
  func = dispatcher.py_func
  _SEPARATE.add((func.__module__, func.__qualname__))
  return dispatcher


def is_separate(dispatcher):
  """Whether ``dispatcher`` was marked ``@separate``."""
  func = dispatcher.py_func
  return (func.__module__, func.__qualname__) in _SEPARATE


def _stable_repr(t):
  """repr of a numba type without process-specific parts (a dispatcher type's repr holds a function address)."""
  if isinstance(t, types.Dispatcher):
    func = t.dispatcher.py_func
    return f"dispatcher({func.__module__}.{func.__qualname__})"
  return repr(t)


def cold(dispatcher):
  """Marks ``dispatcher`` as run rarely: compiled without LLVM's IR optimizations; returns it."""
  _COLD.add(dispatcher.py_func.__qualname__)
  return dispatcher


def symbol(fndesc):
  """The stable symbol of a compiled separate kernel: the same name in every process for the same signature."""
  sig = ",".join(_stable_repr(t) for t in fndesc.argtypes) + "->" + _stable_repr(fndesc.restype)
  digest = hashlib.sha1(sig.encode()).hexdigest()[:20]
  return f"mjgym.separate.{fndesc.modname}.{fndesc.qualname}.{digest}"


class _Ensure:
  """A ``reload_init`` hook of a cached caller: loads (or compiles) one separate kernel, which binds its symbol."""

  def __init__(self, module, qualname, argtypes, name):
    self.module, self.qualname, self.argtypes, self.name = module, qualname, tuple(argtypes), name

  def _key(self):
    return (self.module, self.qualname, self.name)

  def __eq__(self, other):
    return isinstance(other, _Ensure) and self._key() == other._key()

  def __hash__(self):
    return hash(self._key())

  def __call__(self):
    target = importlib.import_module(self.module)
    for part in self.qualname.split("."):
      target = getattr(target, part)
    target.compile(self.argtypes)
    if not llvm.address_of_symbol(self.name):
      # a caller compiled against another version of the kernel: LLVM would abort the process on the unresolved
      # symbol, so refuse the cached caller instead
      raise RuntimeError(f"compiled mjgym kernel needs {self.name}, which {self.module}.{self.qualname} no longer "
                         f"provides; delete the cache at {_cache.cache_dir()}")


def _call_by_symbol(fndesc, name):
  """numba's call of a user function (imputils.user_function), with the callee declared by ``name`` and no
  library to link."""
  ensure = _Ensure(fndesc.modname, fndesc.qualname, fndesc.argtypes, name)

  def imp(context, builder, sig, args):
    fnty = context.call_conv.get_function_type(fndesc.restype, fndesc.argtypes)
    func = cgutils.get_or_insert_function(builder.module, fnty, name)
    status, retval = context.call_conv.call_function(builder, func, fndesc.restype, fndesc.argtypes, args)
    with cgutils.if_unlikely(builder, status.is_error):
      context.call_conv.return_status_propagate(builder, status)
    retval = imputils.fix_returning_optional(context, builder, sig, status, retval)
    context.active_code_library._reload_init.add(ensure)  # pylint: disable=protected-access
    return imputils.impl_ret_new_ref(context, builder, fndesc.restype, retval)

  imp.signature = fndesc.argtypes
  imp.libs = ()
  return imp


_insert_user_function = base.BaseContext.insert_user_function


def _insert(self, func, fndesc, libs=()):
  """BaseContext.insert_user_function, which numba calls with every function it compiles or loads from a cache:
  for a separate kernel, binds its stable symbol to its address and registers the call-by-symbol lowering."""
  if (fndesc.modname, fndesc.qualname) not in _SEPARATE or len(libs) != 1:
    _insert_user_function(self, func, fndesc, libs)
    return
  name = symbol(fndesc)
  llvm.add_symbol(name, libs[0].get_pointer_to_function(fndesc.mangled_name))
  impl = _call_by_symbol(fndesc, name)
  self._defns[func].append(impl, impl.signature)  # pylint: disable=protected-access


base.BaseContext.insert_user_function = _insert


_optimize_functions = codegen.CPUCodeLibrary._optimize_functions  # pylint: disable=protected-access
_optimize_final_module = codegen.CPUCodeLibrary._optimize_final_module  # pylint: disable=protected-access


def _optimize_functions_cold(self, ll_module):
  if self.name not in _COLD:
    _optimize_functions(self, ll_module)
    return
  ll_module.data_layout = self._codegen._data_layout  # pylint: disable=protected-access
  for func in ll_module.functions:
    fpm, pb = self._codegen._function_pass_manager(opt=0)  # pylint: disable=protected-access
    fpm.run(func, pb)


def _optimize_final_module_cold(self):
  if self.name not in _COLD:
    _optimize_final_module(self)
    return
  mpm, mpb = self._codegen._module_pass_manager(  # pylint: disable=protected-access
      opt=0, loop_vectorize=False, slp_vectorize=False)
  mpm.run(self._final_module, mpb)  # pylint: disable=protected-access


codegen.CPUCodeLibrary._optimize_functions = _optimize_functions_cold  # pylint: disable=protected-access
codegen.CPUCodeLibrary._optimize_final_module = _optimize_final_module_cold  # pylint: disable=protected-access
