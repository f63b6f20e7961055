"""A kernel's reference counts on its own arguments (physics/_jit/link.py, _drop_argument_counts): dropped where the
argument is only borrowed, kept where it can outlive the call; reference counts stay balanced either way."""

import os
import subprocess
import sys

from llvmlite import binding as llvm

from mjgym.physics._jit import link as _link

_IR = """
declare void @NRT_incref(ptr)
declare void @NRT_decref(ptr)
declare i32 @callee(ptr)

define i32 @_ZN5mjgym5probe6borrowE(ptr %arg.m.0) {
entry:
  tail call void @NRT_incref(ptr %arg.m.0)
  %data = getelementptr i8, ptr %arg.m.0, i64 24
  %p = load ptr, ptr %data
  %isnull = icmp eq ptr %arg.m.0, null
  %r = call i32 @callee(ptr %arg.m.0)
  tail call void @NRT_decref(ptr %arg.m.0)
  ret i32 %r
}

define ptr @_ZN5mjgym5probe4keepE(ptr %arg.m.0, ptr %slot) {
entry:
  tail call void @NRT_incref(ptr %arg.m.0)
  store ptr %arg.m.0, ptr %slot
  ret ptr %arg.m.0
}

define void @_ZN4user5probeE(ptr %arg.m.0) {
entry:
  tail call void @NRT_incref(ptr %arg.m.0)
  tail call void @NRT_decref(ptr %arg.m.0)
  ret void
}
"""


def _body(text, name):
  start = text.index(f"@{name}(")
  return text[start:text.index("\n}\n", start)]


def test_counts_dropped_only_on_borrowed_mjgym_arguments():
  module = llvm.parse_assembly(_IR)
  out = str(_link._drop_argument_counts(module))  # pylint: disable=protected-access
  borrow = _body(out, "_ZN5mjgym5probe6borrowE")
  assert "NRT_incref" not in borrow and "NRT_decref" not in borrow
  assert "@callee(ptr %arg.m.0)" in borrow and "getelementptr" in borrow  # the rest is left as it was
  keep = _body(out, "_ZN5mjgym5probe4keepE")
  assert "NRT_incref(ptr %arg.m.0)" in keep  # stored and returned: the count is the reference it keeps
  user = _body(out, "_ZN4user5probeE")
  assert "NRT_incref" in user and "NRT_decref" in user  # not an mjgym function


_ALIAS_IR = """
declare void @NRT_incref(ptr)
declare void @NRT_decref(ptr)
declare i32 @callee(ptr)

define i32 @_ZN5mjgym5probe5aliasE(ptr %arg.m.0, i1 %c) {
entry:
  br i1 %c, label %a, label %b
a:
  br label %join
b:
  br label %join
join:
  %m.sroa = phi ptr [ %arg.m.0, %a ], [ null, %b ]
  tail call void @NRT_incref(ptr %m.sroa)
  %r = call i32 @callee(ptr %m.sroa)
  tail call void @NRT_decref(ptr %m.sroa)
  %s = select i1 %c, ptr %m.sroa, ptr null
  tail call void @NRT_incref(ptr %s)
  %isnull = icmp eq ptr %s, null
  tail call void @NRT_decref(ptr %s)
  ret i32 %r
}

define i32 @_ZN5mjgym5probe5mixedE(ptr %arg.m.0, ptr %other, i1 %c) {
entry:
  br i1 %c, label %a, label %b
a:
  br label %join
b:
  br label %join
join:
  %v = phi ptr [ %arg.m.0, %a ], [ %other, %b ]
  tail call void @NRT_incref(ptr %v)
  %r = call i32 @callee(ptr %v)
  tail call void @NRT_decref(ptr %v)
  ret i32 %r
}

define void @_ZN5mjgym5probe6escapeE(ptr %arg.m.0, ptr %slot, i1 %c) {
entry:
  br i1 %c, label %a, label %b
a:
  br label %join
b:
  br label %join
join:
  %m.sroa = phi ptr [ %arg.m.0, %a ], [ null, %b ]
  tail call void @NRT_incref(ptr %m.sroa)
  store ptr %m.sroa, ptr %slot
  ret void
}
"""


def test_counts_dropped_on_an_arguments_phis_and_selects_of_itself_and_null():
  """A phi or select of the argument and null is the argument (or nothing): its counts go when its uses are
  borrows; merged with another pointer, or stored, it keeps them."""
  out = str(_link._drop_argument_counts(llvm.parse_assembly(_ALIAS_IR)))  # pylint: disable=protected-access
  alias = _body(out, "_ZN5mjgym5probe5aliasE")
  assert "NRT_incref" not in alias and "NRT_decref" not in alias
  assert "@callee(ptr %m.sroa)" in alias and "select i1 %c, ptr %m.sroa, ptr null" in alias
  mixed = _body(out, "_ZN5mjgym5probe5mixedE")
  assert "NRT_incref(ptr %v)" in mixed and "NRT_decref(ptr %v)" in mixed  # may be %other: not the argument's
  escape = _body(out, "_ZN5mjgym5probe6escapeE")
  assert "NRT_incref(ptr %m.sroa)" in escape  # stored: the count is the reference it keeps


def test_module_without_argument_counts_is_returned_as_it_is():
  module = llvm.parse_assembly("define void @_ZN5mjgym1fE(ptr %arg.a.0) {\nentry:\n  ret void\n}\n")
  assert _link._drop_argument_counts(module) is module  # pylint: disable=protected-access


_PROBE = """
import gc
import numba
from numba.core.runtime import nrt
from numba.typed import List
import mjgym.physics

SOURCE = '''
def total(lst):
  s = 0.0
  for x in lst:
    s += x
  return s

def keep(lst):
  return (lst, len(lst))
'''
namespace = {"__name__": "mjgym.count_probe"}
exec(compile(SOURCE, "<mjgym.count_probe>", "exec"), namespace)
total, keep = numba.njit(namespace["total"]), numba.njit(namespace["keep"])
lst = List([1.0, 2.0, 3.0])
assert total(lst) == 6.0 and keep(lst)[1] == 3  # compiled
gc.collect()
before = nrt.rtsys.get_allocation_stats()
for _ in range(100):
  assert total(lst) == 6.0
kept = [keep(lst)[0] for _ in range(100)]  # each return holds a reference of its own
del lst
gc.collect()
assert all(k[2] == 3.0 and len(k) == 3 for k in kept)  # still alive through the returned references
del kept
gc.collect()
after = nrt.rtsys.get_allocation_stats()
print(before.mi_alloc - before.mi_free, after.mi_alloc - after.mi_free)
"""


def test_counts_balance_in_compiled_mjgym_functions(tmp_path):
  """A borrowed argument (total) and one that escapes in the return value (keep): the list stays alive as long as
  a returned reference does and is freed exactly once after (NRT's allocation statistics)."""
  env = dict(os.environ, NUMBA_NRT_STATS="1", MJGYM_CACHE_DIR=str(tmp_path), MJGYM_COMPILE_PROGRESS="0")
  out = subprocess.run([sys.executable, "-c", _PROBE], env=env, capture_output=True, text=True, check=False)
  assert out.returncode == 0, out.stderr[-3000:]
  live_before, live_after = map(int, out.stdout.split())
  assert live_after == live_before - 1  # the list's memory, freed once
