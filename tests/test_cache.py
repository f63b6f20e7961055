"""mjgym's numba cache: keyed on each module's import closure, so an edit recompiles the modules that can contain the
edited code and no others, and never leaves stale machine code behind."""

import ast
import json
import os
import pathlib
import shutil
import subprocess
import sys

import numba

import mjgym
from mjgym.physics._jit import cache as _cache

PACKAGE = pathlib.Path(mjgym.__file__).resolve().parent


def test_indented_imports_sit_in_functions():
  """The closure scan reads module-level imports only; that is sound because kernels cannot import, as long as
  no import hides in a module-level if/try/with/class block."""
  offenders = []
  for path in sorted(PACKAGE.rglob("*.py")):
    tree = ast.parse(path.read_text(encoding="utf-8"))

    def visit(node, in_function, path=path):
      for child in ast.iter_child_nodes(node):
        if isinstance(child, (ast.Import, ast.ImportFrom)) and node is not tree and not in_function:
          offenders.append(f"{path.relative_to(PACKAGE)}:{child.lineno}")
        visit(child, in_function or isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)))

    visit(tree, False)
  assert not offenders, f"imports outside functions that the cache key would miss: {offenders}"


def test_closure_follows_module_level_imports():
  closure = {str(p.relative_to(PACKAGE)) for p in _cache.import_closure(PACKAGE / "physics/collision/driver.py")}
  assert {"physics/collision/driver.py", "physics/collision/convex.py", "physics/collision/multiccd.py",
          "physics/collision/primitive.py", "physics/collision/box.py", "physics/types.py"} <= closure
  assert "physics/smooth.py" not in closure and "physics/forward.py" not in closure
  forward = {str(p.relative_to(PACKAGE)) for p in _cache.import_closure(PACKAGE / "physics/forward.py")}
  assert "physics/collision/convex.py" in forward and "physics/solver.py" in forward
  assert "physics/render/kernels.py" not in forward
  math_closure = {str(p.relative_to(PACKAGE)) for p in _cache.import_closure(PACKAGE / "physics/math.py")}
  assert math_closure == {"physics/math.py", "physics/types.py"}


def test_relative_and_parenthesized_imports(tmp_path):
  pkg = tmp_path / "pkg"
  (pkg / "sub").mkdir(parents=True)
  for name in ("__init__.py", "a.py", "b.py", "c.py", "sub/__init__.py", "sub/d.py"):
    (pkg / name).write_text("")
  (pkg / "sub/d.py").write_text("from .. import a\nfrom ..b import thing\nfrom pkg import (c,\n   sub)\n"
                                "def f():\n  import pkg.b\n")
  found = {str(p.relative_to(pkg)) for p in _cache.imports_of(pkg / "sub/d.py", pkg)}
  assert found == {"a.py", "b.py", "c.py", "sub/__init__.py"}


_PROBE = """
import json, sys
from numba.core import event
compiled = []
class L(event.Listener):
  def on_start(self, ev): pass
  def on_end(self, ev): compiled.append(ev.data["dispatcher"].py_func.__qualname__)
event.register("numba:compile", L())
from mjgym.physics import ray
from mjgym.physics import linalg
caller = ray._sphere((0.0, 0.0, -2.0), (0.0, 0.0, 1.0), 1.0, 0.0)  # ray.py -> math.dot3
other = linalg.dot((1.0, 2.0, 3.0), (4.0, 5.0, 6.0), 3)             # linalg.py: no path to math.py
print(json.dumps({"compiled": compiled, "caller": caller, "other": other}))
"""


def _probe(root, cache):
  env = {"PYTHONPATH": str(root), "MJGYM_CACHE_DIR": str(cache), "MJGYM_COMPILE_PROGRESS": "0", "PATH": ""}
  out = subprocess.run([sys.executable, "-c", _PROBE], env=env, capture_output=True, text=True, check=True,
                       cwd=root)
  return json.loads(out.stdout.strip().splitlines()[-1])


def test_edit_recompiles_callers_and_only_them(tmp_path):
  """Edit math.dot3 in a copy of the package: ray._sphere (a caller in another module) recompiles and sees the
  edit; linalg.dot (a kernel whose module cannot reach math.py) loads from the cache."""
  root = tmp_path / "src"
  shutil.copytree(PACKAGE, root / "mjgym", ignore=shutil.ignore_patterns("__pycache__"))
  cache = tmp_path / "cache"
  first = _probe(root, cache)
  assert "_sphere" in first["compiled"] and "dot" in first["compiled"]
  assert first["caller"] == 1.0 and first["other"] == 32.0  # the ray from z=-2 meets the unit sphere at t=1
  again = _probe(root, cache)
  assert again["compiled"] == [] and again == dict(first, compiled=[])

  math_py = root / "mjgym/physics/math.py"
  source = math_py.read_text()
  edited = source.replace("return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]",
                          "return 4.0 * (a[0] * b[0] + a[1] * b[1] + a[2] * b[2])")
  assert edited != source
  math_py.write_text(edited)
  after = _probe(root, cache)
  assert "_sphere" in after["compiled"] and "dot3" in after["compiled"]
  assert "dot" not in after["compiled"]  # linalg.dot came from the cache
  assert after["other"] == 32.0
  # scaled dot products: a t^2 + 2 b t + c with a = 4, b = -8, c = 16 - 1 gives t = (8 - sqrt(64 - 60)) / 4 = 1.5
  assert after["caller"] == 1.5


def test_dispatcher_arguments_keep_their_type_across_processes():
  """A kernel taking a narrow-phase tier (a dispatcher) is indexed in the cache by the dispatcher's type, which
  numba pickles with the dispatcher's uuid: with a random uuid another process unpickles a different type and the
  cached kernel never loads. The tiers' uuids are stable, so the pickled type is equal to the fresh one there."""
  import pickle  # pylint: disable=import-outside-toplevel
  import numba  # pylint: disable=import-outside-toplevel
  from mjgym.physics.collision import driver  # pylint: disable=import-outside-toplevel
  for name in ("narrow_closed_form", "narrow_all"):
    blob = pickle.dumps(numba.typeof(getattr(driver, name)))
    code = ("import pickle, sys, numba; from mjgym.physics.collision import driver; "
            f"t = pickle.loads(sys.stdin.buffer.read()); print(t == numba.typeof(driver.{name}))")
    out = subprocess.run([sys.executable, "-c", code], input=blob, capture_output=True, check=True)
    assert out.stdout.decode().strip() == "True", (name, out.stderr.decode()[-2000:])



_LOAD_PROBE = """
import json, os, sys
from numba.core import codegen, event
compiled = []
class L(event.Listener):
  def on_start(self, ev): pass
  def on_end(self, ev): compiled.append(ev.data["dispatcher"].py_func.__qualname__)
event.register("numba:compile", L())
import numba
from mjgym.physics import math as m, ray
if os.environ.get("NEED"):  # the entries claim to need a symbol that only a numba registry's import defines
  load = codegen.CPUCodeLibrary._unserialize.__func__
  def needing(cls, cg, state):
    name, kind, (code, bitcode, defined, needed) = state
    return load(cls, cg, (name, kind, (code, bitcode, defined, needed + (os.environ["NEED"],))))
  codegen.CPUCodeLibrary._unserialize = classmethod(needing)
out = {"caller": ray._sphere((0.0, 0.0, -2.0), (0.0, 0.0, 1.0), 1.0, 0.0)}
lib = ray._sphere.overloads[ray._sphere.signatures[0]].library
out["bitcode_parsed"] = lib._shared_module is not None
out["registries_imported"] = "numba.np.arraymath" in sys.modules
@numba.njit  # a new kernel (not cached) that links the cached dot3 in: its bitcode is parsed now
def new(a, b):
  return 2.0 * m.dot3(a, b)
out["new"] = new((1.0, 2.0, 3.0), (4.0, 5.0, 6.0))
out["compiled"] = compiled
print(json.dumps(out))
"""


def test_cached_kernels_load_without_the_compiler(tmp_path):
  """A warm load reads each entry's stored names, leaves its bitcode unparsed and does not import numba's compiler
  registries; an entry that needs a symbol only a registry defines readies the compiler first (LLVM would abort the
  process on an unresolved symbol); a new kernel still links a loaded one in."""
  root = tmp_path / "src"
  shutil.copytree(PACKAGE, root / "mjgym", ignore=shutil.ignore_patterns("__pycache__"))
  env = {"PYTHONPATH": str(root), "MJGYM_CACHE_DIR": str(tmp_path / "cache"), "MJGYM_COMPILE_PROGRESS": "0",
         "PATH": ""}
  runs = []
  # Python's hash secret: numba.cpython.hashing defines these symbols when it is imported (a string hash needs it)
  for need in ("", "", "_numba_hashsecret_siphash_k0"):
    out = subprocess.run([sys.executable, "-c", _LOAD_PROBE], env=dict(env, NEED=need), capture_output=True,
                         text=True, cwd=root)
    assert out.returncode == 0, out.stderr[-3000:]
    runs.append(json.loads(out.stdout.strip().splitlines()[-1]))
  cold, warm, needing = runs
  assert {"_sphere", "dot3"} <= set(cold["compiled"])
  assert warm["compiled"] == needing["compiled"] == ["new"]  # everything else came from the cache
  for run in runs:
    assert run["caller"] == 1.0 and run["new"] == 64.0
  assert not warm["bitcode_parsed"] and not warm["registries_imported"]
  assert needing["registries_imported"]


# ---------------------------------------------------------------- the stale-cache guard ----

# A package whose modules import each other: base <- mid <- top <- sub/deep (absolute, relative and parent-relative
# imports), leaf <- side (a plain `import`), and late, which imports base only inside a function.
_PACKAGE = {
    "__init__.py": "",
    "base.py": "X = 1\n",
    "mid.py": "from pkg import base\n",
    "top.py": "from . import mid\n",
    "sub/__init__.py": "",
    "sub/deep.py": "from ..top import thing\n",
    "leaf.py": "Y = 2\n",
    "side.py": "import pkg.leaf\n",
    "late.py": "def f():\n  from pkg import base\n  return base.X\n",
}


def _package(root, edits=None):
  """Writes _PACKAGE, with ``edits`` (file -> new text), as root/pkg; returns the package directory."""
  pkg = root / "pkg"
  for name, text in dict(_PACKAGE, **(edits or {})).items():
    (pkg / name).parent.mkdir(parents=True, exist_ok=True)
    (pkg / name).write_text(text)
  return pkg.resolve()


def _keys(pkg):
  """Each module's cache key (closure_hash), by its path in the package."""
  return {name: _cache.closure_hash(pkg / name, pkg) for name in _PACKAGE}


def _changed(root, edits):
  """The modules whose key differs between _PACKAGE and _PACKAGE with ``edits`` (two copies under root)."""
  before, after = _keys(_package(root / "before")), _keys(_package(root / "after", edits))
  return {name for name in _PACKAGE if before[name] != after[name]}


def test_edit_changes_the_key_of_every_importer_and_no_other(tmp_path):
  """An edited module's key changes, and so does the key of every module that imports it, directly or through
  others; every other key stays."""
  pkg = _package(tmp_path / "pkg")
  closure = {str(p.relative_to(pkg)) for p in _cache.import_closure(pkg / "sub/deep.py", pkg)}
  assert closure == {"sub/deep.py", "top.py", "mid.py", "base.py"}
  assert _changed(tmp_path / "base", {"base.py": "X = 2\n"}) == {"base.py", "mid.py", "top.py", "sub/deep.py"}
  assert _changed(tmp_path / "mid", {"mid.py": "from pkg import base  # edited\n"}) == {
      "mid.py", "top.py", "sub/deep.py"}
  assert _changed(tmp_path / "leaf", {"leaf.py": "Y = 3\n"}) == {"leaf.py", "side.py"}


def test_import_inside_a_function_is_not_in_the_key(tmp_path):
  """Only module-level imports enter a module's closure: a compiled kernel cannot import, so it reaches no code
  through an import inside a function (test_indented_imports_sit_in_functions keeps every other indented import
  out of the package). late.py imports base.py only in a function, and keeps its key when base.py changes."""
  pkg = _package(tmp_path / "pkg")
  assert _cache.import_closure(pkg / "late.py", pkg) == [pkg / "late.py"]
  assert "late.py" not in _changed(tmp_path, {"base.py": "X = 2\n"})


def test_identical_sources_give_identical_keys(tmp_path):
  """The key is the sources' contents and paths inside the package: two copies in different places, one with its
  files rewritten and dated otherwise, give the same keys; no two modules share one."""
  first = _keys(_package(tmp_path / "a"))
  pkg = _package(tmp_path / "b")
  for name in _PACKAGE:
    (pkg / name).write_text((pkg / name).read_text())
    os.utime(pkg / name, (0, 0))
  assert _keys(pkg) == first
  assert len(set(first.values())) == len(first)


def test_numba_version_is_part_of_the_key(tmp_path, monkeypatch):
  """Another numba gives every module another key, and another cache directory; the same numba the same key."""
  pkg = _package(tmp_path / "a")
  key = _cache.closure_hash(pkg / "top.py", pkg)
  directory = _cache.cache_dir()
  monkeypatch.setattr(numba, "__version__", numba.__version__ + ".other")
  pkg = _package(tmp_path / "b")
  assert _cache.closure_hash(pkg / "top.py", pkg) != key
  assert _cache.cache_dir() != directory
  monkeypatch.undo()
  pkg = _package(tmp_path / "c")
  assert _cache.closure_hash(pkg / "top.py", pkg) == key


def test_each_kernel_module_caches_under_its_closure_hash():
  """numba's cache locator for an mjgym module (what keeps stale code out) uses that module's closure hash, in the
  cache directory of this numba; a file outside the package keeps numba's own rules."""
  for module in ("physics/forward.py", "physics/math.py", "physics/collision/driver.py"):
    path = PACKAGE / module
    _, key, cache_path = _cache._locate(str(path))  # pylint: disable=protected-access
    assert key == _cache.closure_hash(path.resolve())
    assert pathlib.Path(cache_path).parent == _cache.cache_dir() and cache_path.endswith(key)
  assert _cache._locate(__file__) is None  # pylint: disable=protected-access


_RACE = """
import os, sys, time
from mjgym.physics import linalg
import numpy as np
target = float(sys.argv[1])
while time.time() < target:  # both processes save at about the same moment
  pass
arg = np.arange(3.0) if sys.argv[2] == "float" else np.arange(3)
print(linalg.dot(arg, arg, 3))
"""

_RACE_LOAD = """
import json
from mjgym.physics import linalg
import numpy as np
out = {"float": linalg.dot(np.arange(3.0), np.arange(3.0), 3), "int": linalg.dot(np.arange(3), np.arange(3), 3)}
out["signatures"] = sorted(str(s[0].dtype) for s in linalg.dot.overloads)
out["compiled"] = linalg.dot.stats.cache_misses
print(json.dumps({k: (v if not isinstance(v, dict) else sum(v.values())) for k, v in out.items()}))
"""


def test_processes_saving_one_function_at_once_keep_their_entries_apart(tmp_path):
  """Two processes compile linalg.dot for different argument types into one empty cache at about the same moment
  (as `mjgym compile`'s workers do for the pipelines of the two collider tiers): a third process loads both
  entries from the cache, each for its own types. numba's own save numbers a new data file from the index it
  read, so two saves that overlap can take one name and leave one entry's machine code under the other's key
  (CI met it: forward.step2 for one collider tier loaded the other's). Whether two saves overlap here depends on
  timing, so this run can pass without them; what it asserts holds either way."""
  env = dict(os.environ, MJGYM_CACHE_DIR=str(tmp_path / "cache"), MJGYM_COMPILE_PROGRESS="0")
  import time  # pylint: disable=import-outside-toplevel
  start = str(time.time() + 8.0)  # after both interpreters have imported numba and typed the call
  procs = [subprocess.Popen([sys.executable, "-c", _RACE, start, kind], env=env, stdout=subprocess.PIPE, text=True)
           for kind in ("float", "int")]
  outs = [p.communicate(timeout=300)[0].split() for p in procs]
  assert [p.returncode for p in procs] == [0, 0] and outs == [["5.0"], ["5.0"]]
  out = subprocess.run([sys.executable, "-c", _RACE_LOAD], env=env, capture_output=True, text=True, check=True)
  loaded = json.loads(out.stdout.strip().splitlines()[-1])
  assert loaded["float"] == 5.0 and loaded["int"] == 5.0
  assert loaded["signatures"] == ["float64", "int64"]
  assert loaded["compiled"] == 0  # both came from the cache
