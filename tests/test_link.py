"""Separately compiled kernels (physics/_jit/link.py): callers call them by address instead of linking their code in,
cached callers load them first, and their results and exceptions are those of an ordinary call."""

import os
import pathlib
import subprocess
import sys
import textwrap

import numba
import numpy as np
import pytest

import mjgym
from mjgym.physics import _jit
from mjgym.physics._jit import link as _link
from mjgym.physics import forward
from mjgym.physics import smooth

_TOY = textwrap.dedent('''
    from numba import njit
    from mjgym.physics import _jit

    @_jit.separate
    @njit(cache=True)
    def weigh(x, k):
      if k < 0:
        raise ValueError("k must not be negative")
      s = 0.0
      for i in range(x.shape[0]):
        s += x[i] * k
      return s

    @njit(cache=True)
    def inner(x, k):
      return weigh(x, k) + 1.0

    @njit(cache=True)
    def outer(x, k):
      return inner(x, k) * 2.0
    ''')

_RUN = textwrap.dedent('''
    import numpy as np
    import toy
    x = np.arange(4.0)
    print("value", toy.outer(x, 3))
    try:
      toy.outer(x, -1)
    except ValueError as e:
      print("raised", e)
    for f in (toy.weigh, toy.inner, toy.outer):
      print(f.__name__, sum(f.stats.cache_hits.values()), sum(f.stats.cache_misses.values()))
    import numba
    fresh, sig = numba.njit(toy.inner.py_func), (numba.float64[::1], numba.int64)
    fresh.compile(sig)
    ir = fresh.inspect_llvm(sig)
    defined = [line for line in ir.splitlines() if line.startswith("define")]
    print("declared", "mjgym.separate.toy.weigh." in ir and not any("weigh" in line for line in defined))
    ''')


def _run(tmp_path):
  env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path / "cache"),
             PYTHONPATH=f"{tmp_path}{os.pathsep}{pathlib.Path(mjgym.__file__).parents[1]}")
  proc = subprocess.run([sys.executable, "-c", _RUN], cwd=tmp_path, env=env, capture_output=True, text=True,
                        timeout=300, check=False)
  assert proc.returncode == 0, proc.stderr
  return dict(line.split(" ", 1) for line in proc.stdout.strip().splitlines())


def test_a_cached_caller_loads_its_separate_callee_first(tmp_path):
  (tmp_path / "toy.py").write_text(_TOY)
  cold = _run(tmp_path)
  assert cold["value"] == "38.0"  # ((0 + 1 + 2 + 3) * 3 + 1) * 2
  assert cold["raised"] == "k must not be negative"
  assert cold["weigh"] == cold["inner"] == cold["outer"] == "0 1"  # compiled
  warm = _run(tmp_path)  # a new process: everything from the cache, the callee through the caller's reload hook
  assert warm["value"] == "38.0"
  assert warm["raised"] == "k must not be negative"
  assert warm["outer"] == warm["weigh"] == "1 0"
  assert warm["inner"] == "0 0"  # linked into outer as usual: never loaded on its own; its hook passed to outer


def test_callers_declare_separate_kernels_instead_of_linking_them(tmp_path):
  (tmp_path / "toy.py").write_text(_TOY)
  out = _run(tmp_path)
  assert out["declared"] == "True"


_CHAIN = textwrap.dedent('''
    from numba import njit
    from mjgym.physics import _jit

    @_jit.separate
    @njit(cache=True)
    def leaf(x):
      return x + 1.0

    @njit(cache=True)
    def mid(x):
      return leaf(x) * 2.0

    @njit(cache=True)
    def top(x):
      return mid(x) - 1.0
    ''')


def test_a_kernel_linking_a_cached_caller_inherits_its_hooks(tmp_path):
  """mid is cached first; top, compiled later, links the cached mid in; a third process loads top from the cache
  and must bind leaf, whose hook came to top through the cached mid (numba leaves rebuilt libraries without
  their hooks; without _link's fix LLVM aborts the process on the unresolved symbol)."""
  (tmp_path / "chain.py").write_text(_CHAIN)
  env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path / "cache"),
             PYTHONPATH=f"{tmp_path}{os.pathsep}{pathlib.Path(mjgym.__file__).parents[1]}")
  for code in ("import chain; print(chain.mid(1.0))", "import chain; print(chain.top(1.0))",
               "import chain; print(chain.top(1.0), sum(chain.top.stats.cache_hits.values()))"):
    proc = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, env=env, capture_output=True, text=True,
                          timeout=300, check=False)
    assert proc.returncode == 0, proc.stderr
  assert proc.stdout.split() == ["3.0", "1"]


def _model():
  from mjgym import physics as mj  # pylint: disable=import-outside-toplevel
  m = mj.MjModel.from_xml_string('<mujoco><worldbody><body><joint/><geom size=".1"/></body></worldbody></mujoco>')
  return m, mj.MjData(m)


def test_the_pipeline_entry_links_no_stage():
  """forward.run's code calls the stage kernels by symbol and holds none of them."""
  m, d = _model()
  sig = (numba.typeof(m._struct), numba.typeof(d._struct), numba.int64, numba.int64)
  fresh = numba.njit(forward.run.py_func)  # a fresh compile: an entry loaded from the cache keeps no IR
  fresh.compile(sig)
  ir = fresh.inspect_llvm(sig)
  assert "mjgym.separate.mjgym.physics.smooth.kinematics." in ir
  defined = [line for line in ir.splitlines() if line.startswith("define")]
  assert defined and not any("kinematics" in line or "factor_m" in line for line in defined)
  assert _jit.is_separate(smooth.kinematics) and not _jit.is_separate(smooth.factor_sparse)


def test_a_stale_cached_caller_is_refused_not_crashed():
  """A reload hook whose symbol the kernel does not provide raises instead of letting LLVM abort the process."""
  m, d = _model()
  x = np.zeros(m.nv)
  argtypes = (numba.typeof(m._struct), numba.typeof(d._struct), numba.typeof(x), numba.typeof(x))
  good = _link._Ensure("mjgym.physics.smooth", "solve_m", argtypes, _symbol_of(smooth.solve_m, argtypes))
  good()  # binds and finds its symbol
  stale = _link._Ensure("mjgym.physics.smooth", "solve_m", argtypes, "mjgym.separate.mjgym.physics.smooth.solve_m.0")
  with pytest.raises(RuntimeError, match="no longer provides"):
    stale()


def _symbol_of(dispatcher, argtypes):
  dispatcher.compile(argtypes)
  return _link.symbol(dispatcher.overloads[argtypes].fndesc)
