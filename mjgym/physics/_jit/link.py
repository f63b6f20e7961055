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

Calls between mjgym kernels never specialize on literal arguments: numba would otherwise compile a callee once per
constant it is called with (``_pgs(..., 0)`` beside ``_pgs(..., isl)``, ``_forward(m, d, True, narrow)`` beside
``False``), each copy a full compile. A constant argument is passed as a value of its type, as from Python.

A kernel marked ``@lazy`` is not compiled with its callers at all, only when a model needs it: implicit
integration, the PGS and noslip solvers, tendons, ... A caller calls it through a cell (a pointer that this process
owns, bound to a stable symbol), which ``Lazy.prepare`` fills once the kernel is compiled; Python fills the cells a
model needs before it runs the model (``forward.prepare``). A call through an empty cell raises RuntimeError naming
the kernel, it never jumps to nowhere. Lazy kernels return nothing.

Every mjgym function also leaves out the reference counting of its own arguments where the argument is only
borrowed for the call (``_drop_argument_counts``): numba's entry and exit counts on ``m`` and ``d`` cost a stage
kernel more than many stages' own work.

A kernel marked ``@cold`` runs once per model or Data (the generated struct constructors): its LLVM IR is not
optimized (opt level 0), which halves its compile time; machine code generation is the same as for every kernel.
"""

import ctypes
import hashlib
import importlib
import re
import warnings

from llvmlite import binding as llvm
from llvmlite import ir
from numba.core import base
from numba.core import cgutils
from numba.core import codegen
from numba.core import compiler
from numba.core import config
from numba.core import dispatcher
from numba.core import imputils
from numba.core import types
from numba.core.typing import templates

from numba.core import event

from mjgym.physics._jit import cache as _cache
from mjgym.physics._jit import marks
from mjgym.physics._jit import supported

_SEPARATE = marks.SEPARATE
_COLD = marks.COLD


def _stable_repr(t):
  """repr of a numba type without process-specific parts (a dispatcher type's repr holds a function address)."""
  if isinstance(t, types.Dispatcher):
    func = t.dispatcher.py_func
    return f"dispatcher({func.__module__}.{func.__qualname__})"
  return repr(t)


def _digest(argtypes, restype):
  sig = ",".join(_stable_repr(t) for t in argtypes) + "->" + _stable_repr(restype)
  return hashlib.sha1(sig.encode()).hexdigest()[:20]


def symbol(fndesc):
  """The stable symbol of a compiled separate kernel: the same name in every process for the same signature."""
  return f"mjgym.separate.{fndesc.modname}.{fndesc.qualname}.{_digest(fndesc.argtypes, fndesc.restype)}"


class _Hook:
  """A ``reload_init`` hook of a cached caller, about one kernel (``module.qualname``) and its argument types; equal
  hooks (the same kernel, types and symbol) are one entry of numba's hook set."""

  def __init__(self, module, qualname, argtypes, name):
    self.module, self.qualname, self.argtypes, self.name = module, qualname, tuple(argtypes), name

  def _key(self):
    return (type(self), self.module, self.qualname, self.argtypes, self.name)

  def __eq__(self, other):
    return isinstance(other, _Hook) and self._key() == other._key()

  def __hash__(self):
    return hash(self._key())

  def _kernel(self):
    target = importlib.import_module(self.module)
    for part in self.qualname.split("."):
      target = getattr(target, part)
    return target


class _Ensure(_Hook):
  """Loads (or compiles) one separate kernel, which binds its symbol."""

  def __call__(self):
    self._kernel().compile(self.argtypes)
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


_rebuild = compiler.CompileResult._rebuild.__func__  # pylint: disable=protected-access


def _rebuild_keeping_hooks(cls, target_context, libdata, fndesc, *rest):
  """CompileResult._rebuild (a cache load), with the entry's reload hooks kept on its library: numba runs them
  before the load but leaves the rebuilt library without them, so a new kernel that links the cached one in would
  not inherit them, and a cached copy of that kernel would load without its separate callees bound."""
  result = _rebuild(cls, target_context, libdata, fndesc, *rest)
  hooks = [hook for hook in rest[5] or () if isinstance(hook, _Hook)]  # mjgym's only: other entries as numba has them
  result.library._reload_init.update(hooks)  # pylint: disable=protected-access
  return result




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




_optimize_functions = codegen.CPUCodeLibrary._optimize_functions  # pylint: disable=protected-access


def _optimize_functions_cold(self, ll_module):
  if self.name not in _COLD or not getattr(self, "_mjgym", False):
    _optimize_functions(self, ll_module)
    return
  ll_module.data_layout = self._codegen._data_layout  # pylint: disable=protected-access
  for func in ll_module.functions:
    fpm, pb = self._codegen._function_pass_manager(opt=0)  # pylint: disable=protected-access
    fpm.run(func, pb)


# numba's reference counts are calls to NRT_incref / NRT_decref, functions of its runtime library that it links
# into every module marked noinline, so that its pruning pass can pair and remove the calls once the rest is
# inlined. Those that survive pruning stay calls, though a borrowed array's (_borrow) is a null pointer that the
# callee tests and returns on; and a call costs more than its few instructions: every vector register is
# caller-saved in the x86-64 ABI (a float loop with a count in it stores its live values before the call and
# loads them after), and the compiler must assume the callee wrote any memory the loop had read (kinematics had
# ~140 such call sites). So the runtime library is linked in with the two as declarations, and once pruning is
# done each module gets them as an inlinable null test in front of an out-of-line count (the same atomic
# operations and fences as numba's): a borrowed array's count becomes a test not taken, or nothing where the
# compiler sees the pointer is null, and an owned array's the same call as before.
_REFCOUNTS = ("NRT_incref", "NRT_decref")
_REFCOUNT_BODIES = """
define linkonce_odr void @NRT_incref(ptr %p) #0 {
entry:
  %null = icmp eq ptr %p, null
  br i1 %null, label %done, label %count
count:
  call void @mjgym.NRT_incref.count(ptr %p)
  br label %done
done:
  ret void
}

define linkonce_odr void @NRT_decref(ptr %p) #0 {
entry:
  %null = icmp eq ptr %p, null
  br i1 %null, label %done, label %count
count:
  call void @mjgym.NRT_decref.count(ptr %p)
  br label %done
done:
  ret void
}

define linkonce_odr void @mjgym.NRT_incref.count(ptr %p) #1 {
entry:
  %old = atomicrmw add ptr %p, i64 1 monotonic, align 8
  ret void
}

define linkonce_odr void @mjgym.NRT_decref.count(ptr %p) #1 {
entry:
  fence release
  %old = atomicrmw sub ptr %p, i64 1 monotonic, align 8
  %last = icmp eq i64 %old, 1
  br i1 %last, label %free, label %done
free:
  fence acquire
  call void @NRT_MemInfo_call_dtor(ptr %p)
  br label %done
done:
  ret void
}

declare void @NRT_MemInfo_call_dtor(ptr)

attributes #0 = { alwaysinline nounwind }
attributes #1 = { noinline nounwind }
"""

_get_module_for_linking = codegen.CPUCodeLibrary._get_module_for_linking  # pylint: disable=protected-access


def _get_module_for_linking_mjgym(self):
  """numba's, except for its runtime library linked into an mjgym kernel: NRT_incref and NRT_decref come as
  declarations (calls the pruning pass sees and the early inlining cannot take in; _refcount_bodies gives them
  bodies after pruning). Every other library links numba's runtime as it is."""
  if self.name != "nrt" or not _FINALIZING[-1]:
    return _get_module_for_linking(self)
  declared = self.__dict__.get("_mjgym_declared")
  if declared is None:
    text = str(_get_module_for_linking(self))
    for name in _REFCOUNTS:
      text, found = re.subn(rf"^define [^\n]*@{name}\(.*?^}}\n", f"declare void @{name}(ptr)\n", text, count=1,
                            flags=re.M | re.S)
      if not found:
        # numba's runtime no longer defines the count as expected: link it as it is (slower counts, same results)
        _report(f"numba's runtime library has no definition of {name} to replace")
        return _get_module_for_linking(self)
    declared = self._mjgym_declared = llvm.parse_assembly(text)  # pylint: disable=attribute-defined-outside-init
  return declared


def _refcount_bodies(module):
  """Links the inlinable NRT_incref / NRT_decref into ``module`` where it calls them without their bodies."""
  if not any(f.name in _REFCOUNTS and f.is_declaration for f in module.functions):
    return
  bodies = llvm.parse_assembly(_REFCOUNT_BODIES)
  bodies.triple = module.triple
  bodies.data_layout = module.data_layout
  module.link_in(bodies)


def _optimize_final_module_mjgym(self):
  if not getattr(self, "_mjgym", False):
    _optimize_final_module(self)
    return
  if self.name not in _COLD:
    # numba's _optimize_final_module (a cheap pass with reference-count pruning, then the full optimization),
    # with the surviving counts made inlinable in between
    cg = self._codegen  # pylint: disable=protected-access
    cheap, cheap_pb = cg._module_pass_manager(  # pylint: disable=protected-access
        loop_vectorize=cg._loopvect, slp_vectorize=False, opt=cg._opt_level, cost="cheap")  # pylint: disable=protected-access
    full, full_pb = cg._module_pass_manager()  # pylint: disable=protected-access
    cheap.run(self._final_module, cheap_pb)  # pylint: disable=protected-access
    if not config.LLVM_REFPRUNE_PASS:
      self._final_module = codegen.remove_redundant_nrt_refct(self._final_module)  # pylint: disable=protected-access
    _refcount_bodies(self._final_module)  # pylint: disable=protected-access
    full.run(self._final_module, full_pb)  # pylint: disable=protected-access
    return
  mpm, mpb = self._codegen._module_pass_manager(  # pylint: disable=protected-access
      opt=0, loop_vectorize=False, slp_vectorize=False)
  mpm.run(self._final_module, mpb)  # pylint: disable=protected-access


# Reference counts of a kernel's own arguments. numba counts a reference for every variable that holds an
# array or struct, arguments included: a kernel increments the count of each argument it is given on entry and
# decrements it on the way out (m and d: four atomic read-modify-writes and two fences a call, ~15-20 ns, which
# MuJoCo's stages do not pay; a stage kernel with nothing to do cost 4-5 times MuJoCo's call). Those counts are
# balanced by construction: the caller holds its reference for the whole call, and numba's rule is that a
# function that keeps a reference beyond the call (returns it, stores it in memory, builds a value with it) takes
# one of its own. So in each mjgym function, once its own IR is optimized and before it is linked anywhere, the
# count operations on an argument pointer are dropped, unless the argument has a use that could keep it: only
# counts, calls it is passed to (which count for themselves), loads and field addresses through it and
# comparisons are allowed. (On an exception numba leaves the entry count unbalanced, a leak that goes with it.)
#
# The optimizer often routes an argument through a phi or select whose other inputs are null (numba's variable,
# dead on some path) or the same argument: counts on such an alias are counts on the argument (or nothing, on
# null), and are dropped with it when the alias's own uses are borrows too. Left in place, they cost a loop that
# passes m to an inlined helper an atomic increment and decrement per iteration (fwd_actuation's control clamp:
# 10 ns an actuator); 47 functions of the hopper and humanoid pipelines had such counts.
_DEFINE = re.compile(r"^define [^\n]*?@(\"?[\w.$]+\"?)\((.*?)\)[^\n]*\{\n(.*?)^\}\n", re.M | re.S)
_COUNT_CALL = r"(?:tail |notail )?call void @NRT_(?:incref|decref)\("  # a count operation, up to its operand
_COUNT = re.compile(r"^\s*" + _COUNT_CALL + r"ptr (?:[a-z]+ )*(%[\w.\"]+)\)\n", re.M)
_PHI = re.compile(r"^\s*(%[\w.\"]+) = phi ptr (.*)$", re.M)
_PHI_INPUT = re.compile(r"\[\s*([^,\]]+?)\s*,")
_SELECT = re.compile(r"^\s*(%[\w.\"]+) = select i1 [^,]+, ptr ([^,\s]+), ptr ([^,\s]+)\s*$", re.M)


def _aliases(body, arg):
  """``arg`` and the pointer phis and selects of ``body`` whose every input is ``arg``, null or another of them."""
  inputs = {name: [v.strip() for v in _PHI_INPUT.findall(rest)] for name, rest in _PHI.findall(body)}
  inputs.update({name: [a, b] for name, a, b in _SELECT.findall(body)})
  aliases = {arg} | set(inputs)
  changed = True
  while changed:  # the largest such set: drop candidates with an input outside it until none is left to drop
    changed = False
    for name in list(aliases - {arg}):
      if any(v != "null" and v not in aliases for v in inputs[name]):
        aliases.discard(name)
        changed = True
  return aliases


def _argument_uses_are_borrows(body, arg, aliases=None):
  """Whether every use of ``arg`` in the function ``body`` (IR text) leaves the reference with the caller; a use
  that defines one of ``aliases`` (the argument's phis and selects) is checked through that alias's own uses."""
  aliases = aliases or {arg}
  for value in aliases:
    token = re.compile(re.escape(value) + r"(?![\w.])")
    for line in body.splitlines():
      if not token.search(line):
        continue
      line = line.strip()
      if re.match(_COUNT_CALL, line):
        continue
      head = line.split("(", 1)[0]
      if "=" in head:
        target, rhs = (part.strip() for part in line.split("=", 1))
        if target in aliases:
          continue  # the definition of an alias (or of the value itself): its uses are checked in turn
        op = rhs.split(None, 1)[0]
      else:
        op = line.split(None, 1)[0]
      if op in ("tail", "notail", "musttail"):
        op = "call"
      if op == "getelementptr" and re.search(r"ptr " + re.escape(value) + r",", line):
        continue
      if op == "load" and re.search(r"ptr " + re.escape(value) + r"(?:,|$)", line):
        continue
      if op == "icmp":
        continue
      if op == "call" and not re.search(r"@[^(]*" + re.escape(value), head):
        continue
      return False
  return True


DROPPED = [0]  # count operations the last _drop_argument_counts removed


def _drop_argument_counts(ll_module):
  """``ll_module`` without the count operations on mjgym functions' own arguments and their aliases (see above);
  the same module when it has none."""
  DROPPED[0] = 0
  text = str(ll_module)
  if "@NRT_incref(ptr %" not in text and "@NRT_decref(ptr %" not in text:
    return ll_module
  pieces = []
  done = 0
  for match in _DEFINE.finditer(text):
    name, body = match.group(1).strip('"'), match.group(3)
    if not name.startswith("_ZN5mjgym"):
      continue
    counted = set(_COUNT.findall(body))
    if not counted:
      continue
    # numba names an argument's value %arg.<name>..., and keeps the prefix on the copies the optimizer makes of it
    # (an inlined callee's argument, a value sunk into a branch)
    args = {a for a in counted if a.startswith("%arg.") or a.startswith('%"arg.')}
    args |= {a for a in re.findall(r"(%\"?arg\.[\w.]*\"?)(?=[,\s)])", match.group(2))}
    drop = set()
    for arg in args:
      aliases = _aliases(body, arg)
      if counted & aliases and _argument_uses_are_borrows(body, arg, aliases):
        drop |= counted & aliases
    if not drop:
      continue
    DROPPED[0] += sum(1 for c in _COUNT.findall(body) if c in drop)
    new_body = _COUNT.sub(lambda m: "" if m.group(1) in drop else m.group(0), body)
    pieces.append(text[done:match.start(3)])
    pieces.append(new_body)
    done = match.end(3)
  if not pieces:
    return ll_module
  pieces.append(text[done:])
  module = llvm.parse_assembly("".join(pieces))
  module.name = ll_module.name
  return module


def _add_llvm_module_mjgym(self, ll_module):
  """CPUCodeLibrary.add_llvm_module: a library that receives code while an mjgym kernel compiles is mjgym's (its
  own code, and the numba helpers compiled for it); its modules lose the counts on their functions' arguments
  (_drop_argument_counts) after their own optimization. Every other library is numba's as it is."""
  if not _compiling_mjgym():
    _add_llvm_module(self, ll_module)
    return
  first = not getattr(self, "_mjgym", False)
  self._mjgym = True  # pylint: disable=attribute-defined-outside-init
  self._optimize_functions(ll_module)  # pylint: disable=protected-access
  ll_module = _drop_argument_counts(ll_module)
  if first and self.name in WATCHED and not DROPPED[0]:
    _report(f"the IR rewrite dropped no argument counts in {self.name}, where it always found some: numba's IR may "
            "have changed shape, and mjgym's kernels lose that speed-up (results are unchanged)")
  if not config.LLVM_REFPRUNE_PASS:
    ll_module = codegen.remove_redundant_nrt_refct(ll_module)
  self._final_module.link_in(ll_module)  # pylint: disable=protected-access


def _finalize_mjgym(self):
  """CPUCodeLibrary.finalize, with whether the library is mjgym's known to the libraries it links in."""
  _FINALIZING.append(getattr(self, "_mjgym", False))
  try:
    _finalize(self)
  finally:
    _FINALIZING.pop()


# Which compiles are mjgym's: numba's compile events, innermost last, as (is an mjgym function, is numba's own). A
# numba function compiled inside (an overload's implementation) belongs to the compile around it.
_COMPILING = []
_FINALIZING = [False]


def _is_mjgym_name(modname):
  return (modname or "").split(".", 1)[0] == "mjgym"


class _CompileScope(event.Listener):
  """Keeps _COMPILING from numba's compile events."""

  def on_start(self, ev):
    module = ev.data["dispatcher"].py_func.__module__ or ""
    _COMPILING.append((_is_mjgym_name(module), module.split(".", 1)[0] == "numba"))

  def on_end(self, ev):
    _COMPILING.pop()


def _compiling_mjgym():
  """Whether the innermost compile that is not numba's own is an mjgym kernel's."""
  for mine, numbas in reversed(_COMPILING):
    if not numbas:
      return mine
  return False


_get_call_template = dispatcher._DispatcherBase.get_call_template  # pylint: disable=protected-access


def _get_call_template_unliteral(self, args, kws):
  """Dispatcher.get_call_template, which types (and compiles) a jitted call: for mjgym kernels, on the arguments'
  plain types."""
  if self.py_func.__module__.split(".", 1)[0] == "mjgym":
    args = tuple(types.unliteral(a) for a in args)
    kws = {k: types.unliteral(v) for k, v in kws.items()}
  return _get_call_template(self, args, kws)




class Lazy:
  """A kernel compiled only when ``prepare`` is called for it: jitted callers call it through a cell (see the
  module docstring). Called from Python it is the kernel itself."""

  def __init__(self, dispatcher):
    func = dispatcher.py_func
    self.dispatcher = dispatcher
    self.__name__, self.__qualname__, self.__module__ = func.__name__, func.__qualname__, func.__module__
    self.__doc__ = func.__doc__
    self._cells = {}  # argument types -> (cell, symbol)
    lazy = self

    class _Template(templates.AbstractTemplate):
      key = self

      def generic(self, args, kws):  # pylint: disable=arguments-differ
        assert not kws, "lazy kernels take positional arguments"
        return templates.signature(types.none, *(types.unliteral(a) for a in args))

    templates.infer_global(self, types.Function(_Template))

    @imputils.lower_builtin(self, types.VarArg(types.Any))
    def _lower(context, builder, sig, args):
      return lazy._lower_call(context, builder, sig, args)

  def __call__(self, *args):
    return self.dispatcher(*args)

  def __repr__(self):
    return f"<lazy kernel {self.__module__}.{self.__qualname__}>"

  def cell(self, argtypes):
    """(ctypes cell, symbol) for ``argtypes``; created and bound to its symbol on first use."""
    argtypes = tuple(argtypes)
    found = self._cells.get(argtypes)
    if found is None:
      name = f"mjgym.lazy.{self.__module__}.{self.__qualname__}.{_digest(argtypes, types.none)}"
      cell = ctypes.c_void_p(0)
      llvm.add_symbol(name, ctypes.addressof(cell))
      found = self._cells[argtypes] = (cell, name)
    return found

  def prepared(self, argtypes):
    """Whether the kernel is compiled for ``argtypes`` and its cell filled."""
    found = self._cells.get(tuple(argtypes))
    return found is not None and bool(found[0].value)

  def prepare(self, argtypes):
    """Compiles (or loads from the cache) the kernel for ``argtypes`` and fills its cell."""
    argtypes = tuple(argtypes)
    cell, _ = self.cell(argtypes)
    if cell.value:
      return
    self.dispatcher.compile(argtypes)
    cres = self.dispatcher.overloads[argtypes]
    cell.value = cres.library.get_pointer_to_function(cres.fndesc.mangled_name)

  def _lower_call(self, context, builder, sig, args):
    argtypes = tuple(sig.args)
    _, name = self.cell(argtypes)
    fnty = context.call_conv.get_function_type(types.none, argtypes)
    slot = cgutils.add_global_variable(builder.module, ir.IntType(8).as_pointer(), name)
    address = builder.load(slot)
    with cgutils.if_unlikely(builder, cgutils.is_null(builder, address)):
      context.call_conv.return_user_exc(
          builder, RuntimeError, (f"mjgym kernel {self.__module__}.{self.__qualname__} was not prepared for this "
                                  "model (forward.prepare)",))
    status, _ = context.call_conv.call_function(builder, builder.bitcast(address, fnty.as_pointer()), types.none,
                                                argtypes, args)
    with cgutils.if_unlikely(builder, status.is_error):
      context.call_conv.return_status_propagate(builder, status)
    context.active_code_library._reload_init.add(  # pylint: disable=protected-access
        _Cell(self.__module__, self.__qualname__, argtypes, name))
    return context.get_dummy_value()


class _Cell(_Hook):
  """Binds a lazy kernel's cell to its symbol (the cell stays empty until the kernel is prepared)."""

  def __call__(self):
    self._kernel().cell(self.argtypes)


def lazy(dispatcher):
  """Makes ``dispatcher`` (a ``numba.njit`` function returning nothing) a lazy kernel: returns its ``Lazy``."""
  return Lazy(dispatcher)


# Stage kernels whose own IR always had counts on their Model and Data arguments for the rewrite to drop: if one
# compiles without any dropped, numba's IR no longer looks as the rewrite expects (reported, not fatal).
WATCHED = frozenset(["kinematics", "com_pos", "crb", "com_vel", "rne", "passive", "fwd_actuation"])
REPORTED = []


def _report(message):
  """Says once per message that a patch found numba other than it expects (the results stay right)."""
  if message not in REPORTED:
    REPORTED.append(message)
    found = supported.versions()
    warnings.warn(f"mjgym: {message} (numba {found['numba']}, llvmlite {found['llvmlite']}; supported: "
                  f"{supported.supported_text()})", supported.ToolchainWarning, stacklevel=2)


_add_llvm_module = codegen.CPUCodeLibrary.add_llvm_module
_optimize_final_module = codegen.CPUCodeLibrary._optimize_final_module  # pylint: disable=protected-access
_finalize = codegen.CPUCodeLibrary.finalize
_APPLIED = []


def apply():
  """Puts the linker's patches in numba (once; ``_jit.install`` checks the attributes first)."""
  global _get_module_for_linking  # pylint: disable=global-statement
  if _APPLIED:
    return
  # cache.apply() has replaced it already (lazily parsed bitcode): chain to that one
  _get_module_for_linking = codegen.CPUCodeLibrary._get_module_for_linking  # pylint: disable=protected-access
  compiler.CompileResult._rebuild = classmethod(_rebuild_keeping_hooks)  # pylint: disable=protected-access
  base.BaseContext.insert_user_function = _insert
  codegen.CPUCodeLibrary._optimize_functions = _optimize_functions_cold  # pylint: disable=protected-access
  codegen.CPUCodeLibrary.add_llvm_module = _add_llvm_module_mjgym
  codegen.CPUCodeLibrary._optimize_final_module = _optimize_final_module_mjgym  # pylint: disable=protected-access
  codegen.CPUCodeLibrary._get_module_for_linking = _get_module_for_linking_mjgym  # pylint: disable=protected-access
  codegen.CPUCodeLibrary.finalize = _finalize_mjgym
  dispatcher._DispatcherBase.get_call_template = _get_call_template_unliteral  # pylint: disable=protected-access
  event.register("numba:compile", _CompileScope())
  _APPLIED.append(True)
