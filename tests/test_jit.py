"""mjgym's numba toolchain (physics/_jit): fenced, checked, scoped to mjgym's kernels, with a plain-numba mode and a
cache that survives concurrent writers, damaged entries and other toolchains."""

import json
import os
import pathlib
import subprocess
import sys
import textwrap
import warnings

import llvmlite
from llvmlite import binding as llvm
import numba
import pytest

import mjgym  # noqa: F401  pylint: disable=unused-import
from mjgym.physics import _jit

PACKAGE = pathlib.Path(mjgym.__file__).resolve().parent
PATCHED = not _jit.is_plain()
needs_patches = pytest.mark.skipif(not PATCHED, reason="checks the patches (this process runs plain numba)")


def _run(code, tmp_path, timeout=600, **env):
  """Runs ``code`` in a fresh interpreter with its cache under ``tmp_path``; returns its last stdout line as JSON
  and its stderr."""
  full = dict(os.environ, MJGYM_CACHE_DIR=str(tmp_path / "cache"), MJGYM_COMPILE_PROGRESS="0",
              MJGYM_COMPILE_JOBS="1")
  for name, value in env.items():
    if value is None:
      full.pop(name, None)
    else:
      full[name] = value
  out = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], env=full, capture_output=True, text=True,
                       timeout=timeout, cwd=tmp_path, check=False)
  assert out.returncode == 0, out.stderr[-3000:]
  return json.loads(out.stdout.strip().splitlines()[-1]), out.stderr


# --- versions, internals, modes -----------------------------------------------------------------------------------


def test_pyproject_pins_the_supported_range():
  """pyproject.toml asks for exactly the range the toolchain supports (and CI tests)."""
  text = (PACKAGE.parent / "pyproject.toml").read_text()
  (nlo, nhi), (llo, lhi) = _jit.SUPPORTED["numba"], _jit.SUPPORTED["llvmlite"]
  assert f'"numba>={nlo},<{nhi}"' in text and f'"llvmlite>={llo},<{lhi}"' in text


def test_version_range_bounds():
  assert _jit.out_of_range({"numba": "0.68.0", "llvmlite": "0.50.0"}) == []
  assert _jit.out_of_range({"numba": "0.68.1", "llvmlite": "0.50.2"}) == []
  assert _jit.out_of_range({"numba": "0.61.2", "llvmlite": "0.50.0"}) == ["numba"]
  assert _jit.out_of_range({"numba": "0.69.0rc1", "llvmlite": "0.51.0"}) == ["numba", "llvmlite"]
  assert _jit.out_of_range({"numba": "0.67.0+g123", "llvmlite": "0.49.0"}) == ["numba", "llvmlite"]


@pytest.mark.skipif(os.environ.get("MJGYM_PLAIN_NUMBA", "") not in ("", "0"), reason="plain mode on request")
def test_every_required_internal_is_found_on_this_numba():
  """The installed numba is in the range, so each private attribute the patches use was where they expect it when
  ``install`` looked (before patching), and the patches are in."""
  assert not _jit.out_of_range()
  assert _jit.mode() == "patched" and _jit.reason() == ""


def test_a_missing_or_reshaped_internal_is_named():
  required = (("numba.core.codegen", "CPUCodeLibrary.no_such_method", ("self",)),
              ("numba.core.codegen", "CPUCodeLibrary.add_llvm_module", ("self", "other_name")),
              ("numba.core.no_such_module", "thing", None))
  problems = _jit.missing_internals(required)
  assert problems == ["numba.core.codegen.CPUCodeLibrary.no_such_method is missing",
                      "numba.core.codegen.CPUCodeLibrary.add_llvm_module takes (self, ll_module), not "
                      "(self, other_name)",
                      "numba.core.no_such_module.thing is missing"]


_MODE = """
import json, warnings
with warnings.catch_warnings(record=True) as caught:
  warnings.simplefilter("always")
  {prelude}
  import mjgym
  from mjgym.physics import _jit
out = {{"mode": _jit.mode(), "warnings": [str(w.message) for w in caught if w.category is _jit.ToolchainWarning]}}
print(json.dumps(out))
"""


def test_outside_the_range_runs_plain_with_one_line(tmp_path):
  """A numba outside the range (here: one that says it is 0.70.0) gets plain numba and one line that names the
  versions found and the range supported; no patch is tried."""
  out, _ = _run(_MODE.format(prelude="import numba; numba.__version__ = '0.70.0'"), tmp_path, MJGYM_PLAIN_NUMBA=None)
  assert out["mode"] == "plain"
  assert len(out["warnings"]) == 1 and "\n" not in out["warnings"][0]
  assert "numba 0.70.0" in out["warnings"][0] and _jit.supported_text() in out["warnings"][0]


def test_a_missing_internal_runs_plain_with_one_line(tmp_path):
  """An internal the patches need is gone (as a numba that renamed it would have it): plain numba, one line that
  names it, never an AttributeError."""
  prelude = "from numba.core import codegen; del codegen.CPUCodeLibrary._optimize_functions"
  out, _ = _run(_MODE.format(prelude=prelude), tmp_path, MJGYM_PLAIN_NUMBA=None)
  assert out["mode"] == "plain"
  assert len(out["warnings"]) == 1
  assert "numba.core.codegen.CPUCodeLibrary._optimize_functions is missing" in out["warnings"][0]


def test_plain_mode_is_chosen_without_a_warning(tmp_path):
  out, _ = _run(_MODE.format(prelude="pass"), tmp_path, MJGYM_PLAIN_NUMBA="1")
  assert out == {"mode": "plain", "warnings": []}


# Every attribute of numba's and llvmlite's modules and classes that the patches touch or could touch, by identity.
_SNAPSHOT = """
import importlib, inspect
def snapshot():
  found = {}
  for name in ("numba.core.caching", "numba.core.codegen", "numba.core.compiler", "numba.core.base",
               "numba.core.dispatcher", "numba.core.lowering", "numba.np.arrayobj", "numba.core.imputils",
               "numba.core.registry", "llvmlite.binding"):
    module = importlib.import_module(name)
    for attr, value in list(vars(module).items()):
      found[f"{name}.{attr}"] = id(value)
      if inspect.isclass(value) and value.__module__ == name:
        for sub, subvalue in list(vars(value).items()):
          found[f"{name}.{attr}.{sub}"] = id(subvalue)
  from numba.core import caching
  found["locators"] = [c.__name__ for c in caching.CacheImpl._locator_classes]
  return found
"""


@pytest.mark.parametrize("step", [False, pytest.param(True, marks=pytest.mark.skipif(
    PATCHED, reason="a plain first step compiles the whole pipeline: in CI's plain stage, whose cache is warm"))])
def test_plain_mode_replaces_nothing_of_numba(tmp_path, step):
  """With MJGYM_PLAIN_NUMBA=1 no attribute of numba or llvmlite is replaced, and none of the patch modules is even
  imported, through an import of the engine and the envs (and, in plain mode's own test run, a model's first
  step)."""
  code = _SNAPSHOT + f"STEP = {step}" + """
import json, sys
before = snapshot()
import numpy as np
import mjgym
from mjgym import physics
if STEP:
  m = physics.MjModel.from_xml_string('<mujoco><worldbody><body><freejoint/><geom size=".1"/></body></worldbody></mujoco>')
  physics.mj_step(m, physics.MjData(m))
changed = sorted(k for k, v in snapshot().items() if before.get(k) != v)
print(json.dumps({"changed": changed, "mode": physics._jit.mode(),
                  "patch_modules": sorted(n for n in ("mjgym.physics._jit.cache", "mjgym.physics._jit.link",
                                                      "mjgym.physics._jit.index") if n in sys.modules)}))
"""
  out, _ = _run(code, tmp_path, MJGYM_PLAIN_NUMBA="1")
  assert out == {"changed": [], "mode": "plain", "patch_modules": []}


# --- the patches act on mjgym's kernels only -----------------------------------------------------------------------

_USER_MODULE = '''
import numpy as np
from numba import njit

@njit
def last(a, i):
  return a[i]            # a negative run-time index counts from the end

@njit
def tail(a, k):
  return a[k:]           # a view of an argument, returned

@njit
def make(n):
  return np.arange(n) * 2.0

@njit
def pair(a):
  return (a, a.sum())    # keeps a reference to its argument

@njit(cache=True)
def cached_sum(a):
  s = 0.0
  for i in range(-1, -a.shape[0] - 1, -1):
    s += a[i] * i
  return s
'''

_USER = """
import json, sys
sys.path.insert(0, ".")
import numpy as np
if {with_mjgym}:
  from mjgym import physics
  from mjgym.physics import smooth
  m = physics.MjModel.from_xml_string('<mujoco><worldbody><body><joint/><geom size=".1"/></body></worldbody></mujoco>')
  physics.mj_step(m, physics.MjData(m))
import usercode
a = np.arange(5.0)
t = usercode.tail(a, 2)
t[0] = 100.0             # the view shares the argument's memory
p, s = usercode.pair(a)
out = {{"last": usercode.last(a, -1), "last2": usercode.last(a, -2), "tail_shares": bool(a[2] == 100.0),
       "made": usercode.make(3).tolist(), "pair_same": bool(p[0] == a[0]), "sum": s,
       "cached": usercode.cached_sum(np.arange(4.0)), "cached_loaded": usercode.cached_sum.stats.cache_hits != {{}},
       "ir": {{name: getattr(usercode, name).inspect_llvm(getattr(usercode, name).signatures[0])
               for name in ("last", "tail", "make", "pair")}}}}  # cached_sum: loaded, no IR kept
print(json.dumps(out))
"""


def _normalized(ir):
  """LLVM IR without the parts that name a process: addresses, and the function counter numba puts in mangled
  names (``B2v7B`` in one process is ``B4v436B`` in another, and the length of a string holding the name with it)."""
  import re  # pylint: disable=import-outside-toplevel
  ir = re.sub(r"B\d+v\d+B", "BvB", ir)
  ir = re.sub(r"\[\d+ x i8\]", "[n x i8]", ir)
  ir = re.sub(r"\b\d{9,}\b", "N", ir)
  return re.sub(r"0x[0-9a-f]+", "A", ir)


def test_user_code_beside_mjgym_compiles_as_on_stock_numba(tmp_path):
  """A user's @njit functions compiled in a process that imported mjgym and stepped a model behave as stock numba's
  (negative indices, returned views, new arrays, a kept reference, a cached function that loads again) and their
  LLVM IR is the one a process without mjgym produces."""
  (tmp_path / "usercode.py").write_text(_USER_MODULE)
  suite_cache = {"MJGYM_CACHE_DIR": os.environ["MJGYM_CACHE_DIR"]} if "MJGYM_CACHE_DIR" in os.environ else {}
  stock, _ = _run(_USER.format(with_mjgym=False), tmp_path)  # usercode caches beside itself, in tmp_path
  beside, _ = _run(_USER.format(with_mjgym=True), tmp_path, **suite_cache)
  assert stock["last"] == 4.0 and stock["last2"] == 3.0 and stock["tail_shares"] and stock["pair_same"]
  assert not stock["cached_loaded"] and beside["cached_loaded"]  # the second process loads the first's entry
  for key in ("last", "last2", "tail_shares", "made", "pair_same", "sum", "cached"):
    assert beside[key] == stock[key], key
  for name, ir in stock["ir"].items():
    assert _normalized(beside["ir"][name]) == _normalized(ir), name


# --- the IR rewrite's own assumption ---------------------------------------------------------------------------------


@needs_patches
def test_the_rewrite_finds_argument_counts_in_a_known_kernel(tmp_path):
  """Compiled from an empty cache, each stage kernel the rewrite watches loses the counts on its arguments: no
  report that the rewrite found nothing."""
  code = """
import json, warnings
with warnings.catch_warnings(record=True) as caught:
  warnings.simplefilter("always")
  from mjgym.physics import _jit, _structs, smooth
  from mjgym.physics._jit import link
  dropped = {}
  for name in ("kinematics", "com_pos", "crb"):
    getattr(smooth, name).compile((_structs.model_type, _structs.data_type))
print(json.dumps({"reports": [str(w.message) for w in caught if w.category is _jit.ToolchainWarning],
                  "watched": sorted(link.WATCHED)}))
"""
  out, _ = _run(code, tmp_path)
  assert out["reports"] == [] and "kinematics" in out["watched"]


@needs_patches
def test_a_watched_kernel_without_argument_counts_is_reported():
  """If numba's IR no longer holds the count operations the rewrite looks for, compiling a watched kernel says
  so (here: a module named as a watched stage, with no counts at all)."""
  from mjgym.physics._jit import link  # pylint: disable=import-outside-toplevel
  from numba.core.registry import cpu_target  # pylint: disable=import-outside-toplevel
  library = cpu_target.target_context.codegen().create_library("kinematics")
  module = llvm.parse_assembly('define void @"_ZN5mjgym4fake10kinematicsE"(ptr %arg.m) {\n  ret void\n}\n')
  link.REPORTED.clear()
  link._COMPILING.append((True, False))  # pylint: disable=protected-access
  try:
    with warnings.catch_warnings(record=True) as caught:
      warnings.simplefilter("always")
      library.add_llvm_module(module)
  finally:
    link._COMPILING.pop()  # pylint: disable=protected-access
  messages = [str(w.message) for w in caught if w.category is _jit.ToolchainWarning]
  assert len(messages) == 1 and "dropped no argument counts in kinematics" in messages[0]


# --- the cache under stress ------------------------------------------------------------------------------------------

_COMPILE = """
import json, os, sys, time
target = float(sys.argv[1]) if len(sys.argv) > 1 else 0.0
import numpy as np
from mjgym.physics import linalg, math
while time.time() < target:  # all processes compile at about the same moment
  pass
q = np.array([0.5, 0.5, 0.5, 0.5])
res = np.zeros(9)
math.quat_to_mat(res, q)
out = {"dot": linalg.dot(np.arange(3.0), np.arange(3.0), 3), "mat": res.tolist(),
       "compiled": sum(linalg.dot.stats.cache_misses.values()) + sum(math.quat_to_mat.stats.cache_misses.values())}
print(json.dumps(out))
"""
_EXPECTED_MAT = [0.0, 0.0, 1.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0]


@needs_patches
def test_processes_compiling_at_once_into_an_empty_cache(tmp_path):
  """Four processes compile the same kernels into one empty cache at once: none crashes, each computes the right
  values, no entry is torn (a fifth process loads every kernel, compiling none)."""
  import time  # pylint: disable=import-outside-toplevel
  env = dict(os.environ, MJGYM_CACHE_DIR=str(tmp_path / "cache"), MJGYM_COMPILE_PROGRESS="0")
  start = str(time.time() + 6.0)
  procs = [subprocess.Popen([sys.executable, "-c", _COMPILE, start], env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True) for _ in range(4)]
  outs = [p.communicate(timeout=300) for p in procs]
  assert [p.returncode for p in procs] == [0] * 4, [err[-2000:] for _, err in outs]
  for out, _ in outs:
    result = json.loads(out.strip().splitlines()[-1])
    assert result["dot"] == 5.0 and result["mat"] == _EXPECTED_MAT
  later, err = _run(_COMPILE, tmp_path)
  assert later["compiled"] == 0 and later["mat"] == _EXPECTED_MAT and "could not be read" not in err
  assert not list((tmp_path / "cache").rglob("*.tmp*"))


@needs_patches
@pytest.mark.parametrize("damage", ["truncate-data", "garble-data", "truncate-index"])
def test_a_damaged_entry_is_compiled_again_with_a_notice(tmp_path, damage):
  """An entry cut short (a full disk, a killed copy) or overwritten is detected on load: one line says so, the
  kernel compiles again and computes the right values, and the next process loads the new entry."""
  first, _ = _run(_COMPILE, tmp_path)
  assert first["compiled"] > 0
  pattern = "*.nbi" if damage == "truncate-index" else "*.nbc"
  damaged = sorted((tmp_path / "cache").rglob(f"mjgym.physics.math-*/{pattern}"))
  assert damaged
  for path in damaged:
    data = path.read_bytes()
    path.write_bytes(data[:len(data) // 2] if damage.startswith("truncate") else bytes(len(data)))
  again, err = _run(_COMPILE, tmp_path)
  assert again["mat"] == _EXPECTED_MAT and again["compiled"] > 0
  notices = [line for line in err.splitlines() if "could not be read" in line]
  assert notices and all("compiled again" in line for line in notices)
  third, err = _run(_COMPILE, tmp_path)
  assert third["compiled"] == 0 and "could not be read" not in err


@needs_patches
def test_an_entry_for_another_cpu_is_never_loaded(tmp_path):
  """Kernels compiled for another CPU (numba's generic x86-64 here) are keyed apart: a process on this CPU
  compiles its own instead of loading them, and both stay in the cache."""
  other, _ = _run(_COMPILE, tmp_path, NUMBA_CPU_NAME="generic", NUMBA_CPU_FEATURES="")
  assert other["compiled"] > 0
  here, _ = _run(_COMPILE, tmp_path)
  assert here["compiled"] > 0 and here["mat"] == _EXPECTED_MAT
  again, _ = _run(_COMPILE, tmp_path)
  assert again["compiled"] == 0


def test_another_numba_or_llvmlite_uses_another_directory(monkeypatch):
  """Entries of another numba or llvmlite are never read: each version pair has its own directory."""
  from mjgym.physics._jit import cache  # pylint: disable=import-outside-toplevel
  here = cache.cache_dir()
  assert f"numba-{numba.__version__}-llvmlite-{llvmlite.__version__}" in here.name
  monkeypatch.setattr(llvmlite, "__version__", "0.99.0")
  assert cache.cache_dir() != here
  monkeypatch.setattr(numba, "__version__", "0.99.0")
  assert cache.cache_dir() != here


def test_plain_mode_clears_a_stale_numba_cache(tmp_path):
  """In plain mode numba caches beside the sources and keys an entry on its own file only; a changed package
  removes those entries before any is loaded (another numba's entries numba itself never reads, and they stay)."""
  from mjgym.physics._jit import plain  # pylint: disable=import-outside-toplevel
  pkg = tmp_path / "pkg"
  (pkg / "__pycache__").mkdir(parents=True)
  (pkg / "a.py").write_text("X = 1\n")
  entry = pkg / "__pycache__" / "a.f-1.py311.nbi"
  entry.write_bytes(b"old")
  assert plain.clear_stale_cache(pkg) == 1 and not entry.exists()
  entry.write_bytes(b"new")
  assert plain.clear_stale_cache(pkg) == 0 and entry.exists()  # same sources: kept
  (pkg / "a.py").write_text("X = 2\n")
  assert plain.clear_stale_cache(pkg) == 1 and not entry.exists()


# --- plain and patched give the same numbers ---------------------------------------------------------------------

_TRAJECTORY = """
import json, sys
import numpy as np
from mjgym import physics
from mjgym.physics import batch
out = {"mode": physics._jit.mode()}
for name, integrator in (("hopper", None), ("humanoid", None), ("ant", "RK4"), ("walker2d", "implicitfast")):
  m = physics.MjModel.from_xml_path(f"{ASSETS}/{name}.xml")
  if integrator:
    m.opt.integrator = getattr(physics.mjtIntegrator, "mjINT_" + integrator.upper())
  d = physics.MjData(m)
  rng = np.random.default_rng(0)
  rows = []
  for _ in range(200):
    d.ctrl[:] = rng.uniform(-1, 1, m.nu)
    physics.mj_step(m, d)
    rows.append(np.concatenate([d.qpos, d.qvel, d.qacc, d.sensordata]).tobytes().hex())
  out[name] = rows
m = physics.MjModel.from_xml_path(f"{ASSETS}/half_cheetah.xml")
b = batch.MjDataBatch(m, 5)
b.ctrl[:] = np.random.default_rng(1).uniform(-1, 1, b.ctrl.shape)
b.step(50)
out["batch"] = np.concatenate([b.qpos.ravel(), b.qvel.ravel()]).tobytes().hex()
print(json.dumps(out))
"""


@pytest.mark.skipif(PATCHED, reason="runs in plain mode (CI's plain stage), against a patched process")
def test_plain_and_patched_trajectories_are_bitwise_equal(tmp_path):
  """The same models, controls and integrators (Euler, RK4, implicitfast; a batch of worlds) step to bitwise the
  same states, sensors and accelerations on plain numba as with the patches."""
  code = f"ASSETS = {str(PACKAGE / 'assets')!r}\n" + _TRAJECTORY
  cache = os.environ.get("MJGYM_CACHE_DIR")  # the patched process loads the suite's cache, when it has one
  plain, _ = _run(code, tmp_path, timeout=1800)
  patched, _ = _run(code, tmp_path, timeout=1800, MJGYM_PLAIN_NUMBA=None,
                    **({"MJGYM_CACHE_DIR": cache} if cache else {}))
  assert plain["mode"] == "plain" and patched["mode"] == "patched"
  for key in ("hopper", "humanoid", "ant", "walker2d", "batch"):
    assert plain[key] == patched[key], key
