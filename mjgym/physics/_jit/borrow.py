"""Borrowed arrays: the Model and Data structs hold their arrays without owning a reference to them.

A numba array carries a pointer to its memory-info block, and every time compiled code takes an array out of a
struct (``d.qpos``) or makes a view of it (``d.xpos[i]``) it increments that block's reference count, and
decrements it when done: two atomic read-modify-writes, about 10 ns together. numba's reference-count pruning
removes the pairs it can prove redundant, but not those around a call or inside a loop with an early exit, so
a small stage such as com_pos spent most of its time on them (hopper: 255 ns a call, 165 ns with its fields bound
once, against MuJoCo's 66 ns), and threads that share an array fight over the cache line of its count.

The structs built by ``_structs.new_model`` / ``new_data`` therefore hold each array as a *borrowed* array: the
same data pointer, shape and strides, with no memory-info block and no parent object. Taking a reference to it
is then a null test; no count changes. The memory stays owned by the numpy arrays of the Python container that
built the struct (``Model._fields``, ``MjData._fields``, a batch's world arrays), which keeps them for as long as
it keeps the struct: the rule is that a struct never outlives the container that made it, and no kernel returns
a struct's array to Python (where it would come back as a numpy array that owns nothing).
"""

from numba.core import cgutils
from numba.core import types as nt
from numba.extending import intrinsic


@intrinsic
def borrow(typingctx, arr):  # pylint: disable=unused-argument
  """The array ``arr`` (any layout) without its memory-info block and parent: same data, shape and strides."""
  if not isinstance(arr, nt.Array):
    return None

  def codegen(context, builder, signature, args):
    cls = context.make_array(arr)
    src = cls(context, builder, value=args[0])
    dst = cls(context, builder)
    dst.meminfo = cgutils.get_null_value(dst.meminfo.type)
    dst.parent = cgutils.get_null_value(dst.parent.type)
    dst.nitems = src.nitems
    dst.itemsize = src.itemsize
    dst.data = src.data
    dst.shape = src.shape
    dst.strides = src.strides
    return dst._getvalue()

  return arr(arr), codegen
