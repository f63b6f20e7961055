"""Indexing in mjgym kernels (physics/_jit/index.py): run-time indices are used as they are inside mjgym's modules,
constant ones and every other module's keep numba's (Python's) meaning, and MJGYM_CHECK_INDEX=1 traps a negative
run-time index."""

import os
import subprocess
import sys

import numba
import numpy as np

import mjgym.physics  # noqa: F401  (installs the indexing rule)

_SOURCE = """
def read(a, i):
  return a[i]

def read_last(a):
  return a[-1]

def read2(a, i, j):
  return a[i, j]

def write(a, i, v):
  a[i] = v
"""


def _functions(module_name):
  """The _SOURCE functions, jitted as functions of module ``module_name`` (not cached)."""
  namespace = {"__name__": module_name}
  exec(compile(_SOURCE, f"<{module_name}>", "exec"), namespace)  # pylint: disable=exec-used
  return {name: numba.njit(namespace[name]) for name in ("read", "read_last", "read2", "write")}


def test_other_modules_keep_wraparound():
  f = _functions("user_code")
  a = np.arange(10.0)
  assert f["read"](a, -1) == 9.0
  assert f["read"](a, -3) == 7.0
  assert f["read_last"](a) == 9.0
  b = np.arange(12.0).reshape(3, 4)
  assert f["read2"](b, -1, -2) == 10.0
  f["write"](a, -2, 100.0)
  assert a[8] == 100.0


def test_mjgym_modules_use_runtime_indices_as_given():
  f = _functions("mjgym.index_probe")
  big = np.arange(10.0)
  view = big[3:]  # index -1 of the view, taken as it is, is big[2]; wrapped it would be big[9]
  assert f["read"](view, -1) == 2.0
  assert f["read"](view, 4) == 7.0
  assert f["read_last"](view) == 9.0  # a constant index keeps its meaning
  rows = np.arange(20.0).reshape(5, 4)
  sub = rows[1:]
  assert f["read2"](sub, -1, 1) == 1.0  # row 0 of rows, not the last row
  f["write"](view, -1, 50.0)
  assert big[2] == 50.0 and big[9] == 9.0


def test_check_mode_traps_negative_runtime_indices(tmp_path):
  code = """
import numpy as np, numba
import mjgym.physics
namespace = {"__name__": "mjgym.index_probe"}
exec(compile('def read(a, i):\\n  return a[i]\\ndef last(a):\\n  return a[-1]\\n', "<probe>", "exec"), namespace)
read, last = numba.njit(namespace["read"]), numba.njit(namespace["last"])
a = np.arange(5.0)
print(read(a, 4), last(a))
try:
  read(a, -1)
except IndexError as e:
  print("IndexError", e)
"""
  env = dict(os.environ, MJGYM_CHECK_INDEX="1", MJGYM_CACHE_DIR=str(tmp_path), MJGYM_COMPILE_PROGRESS="0")
  out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
  lines = out.stdout.strip().splitlines()
  assert lines[0] == "4.0 4.0"
  assert lines[1] == "IndexError negative index in an mjgym kernel"
