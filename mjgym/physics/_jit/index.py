"""Array indexing in mjgym kernels: an index computed at run time is used as it is, without Python's wraparound.

numba gives ``a[i]`` Python's meaning for a signed ``i``: a negative index counts from the end, so every access
with an index the compiler cannot prove non-negative carries a compare and a select (``i < 0 ? i + n : i``) and
a load of the dimension ``n``. The engine indexes almost everything through indices it reads from the model
(``dof_Madr[i]``, ``dof_parentid[j]``, ``efc_id[r]``...), so the compiler can rarely prove it, and the select
also hides the address pattern from its vectorizer: the sparse LᵀDL factorization spent half its time on it
(humanoid: 0.95 µs a call with it, 0.50 µs without).

The rule in mjgym's kernels is therefore that an index is never negative: ``-1`` means "none" in the model's id
arrays and is tested for, never used to index. While a function of an ``mjgym`` module is lowered, an integer
index that is a run-time value is used as given; a constant index keeps numba's meaning (``a[-1]`` is still the
last element, resolved at compile time). Every other function, numba's own and user code in the same process,
keeps numba's semantics: the switch is scoped to the lowering of one function at a time, and a function lowered
from inside another (numba compiles an overload's implementation as a function of its own) gets its own.

``MJGYM_CHECK_INDEX=1`` compiles the opposite way for testing the rule: a negative run-time index raises
IndexError naming the kernel's module, instead of being wrapped or used. It is part of the cache key (a checked
build never loads an unchecked one's code); the test suite passes with it.
"""

from llvmlite import ir
from numba.core import cgutils
from numba.core import lowering
from numba.core import types

from mjgym.physics._jit import cache as _cache
from mjgym.physics._jit import supported

_lowering = []  # stack: whether each function being lowered (innermost last) is an mjgym function


def _is_mjgym(fndesc):
  return (fndesc.modname or "").split(".", 1)[0] == "mjgym"


_lower = lowering.BaseLower.lower
_fix_integer_index = None  # numba's, once _patch_indexing has replaced it (False: left as it is)
_REQUIRED = (("numba.np.arrayobj", "fix_integer_index", ("context", "builder", "idxty", "idx", "size")),)


def _lower_scoped(self):
  """BaseLower.lower, with the innermost function's origin on the stack while it is lowered."""
  _patch_indexing()
  _lowering.append(_is_mjgym(self.fndesc))
  try:
    _lower(self)
  finally:
    _lowering.pop()


def _fix_integer_index_mjgym(context, builder, idxty, idx, size):
  """arrayobj.fix_integer_index: in an mjgym function, a signed run-time index is taken as it is."""
  if not (_lowering and _lowering[-1]) or not idxty.signed or isinstance(idx, ir.Constant):
    return _fix_integer_index(context, builder, idxty, idx, size)
  ind = context.cast(builder, idx, idxty, types.intp)
  if _cache.CHECK_INDEX:
    with cgutils.if_unlikely(builder, builder.icmp_signed("<", ind, ind.type(0))):
      context.call_conv.return_user_exc(builder, IndexError, ("negative index in an mjgym kernel",))
  return ind


def _patch_indexing():
  """Puts _fix_integer_index_mjgym in numba's array indexing, at the first lowering: importing numba's array
  implementation imports much of its compiler, which a warm start that only loads cached kernels never needs."""
  global _fix_integer_index  # pylint: disable=global-statement
  if _fix_integer_index is not None:
    return
  problems = supported.missing_internals(_REQUIRED)
  if problems:
    # numba's indexing is not where this patch expects it: kernels keep numba's wraparound (same results, slower)
    _fix_integer_index = False
    from mjgym.physics._jit import link  # pylint: disable=import-outside-toplevel
    link._report(f"{problems[0]}; mjgym's kernels keep numba's indexing")  # pylint: disable=protected-access
    return
  from numba.np import arrayobj  # pylint: disable=import-outside-toplevel
  _fix_integer_index = arrayobj.fix_integer_index
  arrayobj.fix_integer_index = _fix_integer_index_mjgym


def apply():
  """Puts the scoped indexing in numba's lowering (once; ``_jit.install`` checks the attributes first)."""
  if lowering.BaseLower.lower is not _lower_scoped:
    lowering.BaseLower.lower = _lower_scoped
