"""MuJoCo's own Python tests, run on mjgym.physics: the installed `mujoco` wheel's ``rollout_test.py`` and
``bindings_test.py``, read from site-packages (never copied here), with ``import mujoco`` resolving to
``mjgym.physics``. Each file runs in a process of its own (``conformance_worker.py``), since this process imports
the real `mujoco` for the oracle tests.

Every wheel test must pass except those in ``KNOWN_FAILURES``, each with the reason; those are strict xfails, so
one that starts passing fails here until it is taken off the list. ``python tests/conformance_worker.py
bindings_test out.json`` writes every outcome, for a look at what fails and why.
"""

import fcntl
import json
import os
import subprocess
import sys

import pytest

import mjgym
from conformance_worker import wheel_test_path

pytest.importorskip("mujoco")
pytest.importorskip("etils")  # bindings_test.py imports it (etils[epath], a test extra)

FILES = ("rollout_test", "bindings_test")

# Why the known failures fail (docs/bindings.md has the same groups).
_MJSPEC = "MjSpec (model editing) is not part of mjgym.physics"
_PLUGIN = "engine plugins (<extension>, mujoco.pid) are not supported"
_MJV = "MjvFigure (the OpenGL visualizer's plots) is not part of mjgym.physics"
_MJCF4 = "an MJCF feature of MuJoCo 4 the compiler refuses (named in the MJCFError)"
_ARENA = "MuJoCo's arena (narena, _functions._realloc_*, arena views vs owned arrays) has no counterpart here"
_LIFETIME = "pybind11 object lifetimes (reference counts, struct addresses) differ from Python objects'"
_FIELD = "a model field of MuJoCo 4 the engine does not keep (dof_dampingpoly; int64 tex_adr with texture views)"
_FUNCTION = "a bindings function mjgym.physics does not have yet"
_DOCSTRING = "the bindings' generated (pybind11) docstrings"
_LOG = "MuJoCo's logging and allocator hooks (MjLogConfig, mju_user_warning, mju_user_malloc) are not part of it"
_RESOURCES = "reads the wheel's testdata through importlib.resources of `mujoco`, which is mjgym.physics here"

_BINDINGS_FAILURES = {
    _MJSPEC: "bind_sequence_assignment",
    _PLUGIN: "copy_mjdata_with_plugin deepcopy_mjdata_with_plugin load_plugin",
    _MJV: "can_initialize_mjv_structs",
    _MJCF4: "mj_embedAssets mj_inside_site_mesh named_indexing_actuator_moment named_indexing_mimo_actuators "
            "named_indexing_plastic poly_stiffness realloc_con_efc_failure_clears_counts "
            "realloc_island_keeps_dual_and_metric_arrays indexer_bool_views_mutate_in_place "
            "mj_read_ctrl_and_init_ctrl_delay",
    _ARENA: "can_raise_error realloc_con_efc realloc_island unallocated_arena_arrays_are_filled",
    _LIFETIME: "addresses_differ_between_structs array_keeps_struct_alive",
    _FIELD: "named_indexing_ragged2d_after_first_joint texture_size",
    _FUNCTION: "mj_loadTexture",
    _DOCSTRING: "docstrings",
    _LOG: "mjtopic_time_cmp_logs_compile_time mju_user_warning_callback_receives_warnings "
          "set_mju_user_malloc_and_free_reset",
    _RESOURCES: "xml_dependencies",
}

KNOWN_FAILURES = {
    "rollout_test": {f"MuJoCoRolloutTest.test_multi_model{i}": _MJSPEC for i in range(4)},
    "bindings_test": {f"MuJoCoBindingsTest.test_{test}": reason
                      for reason, tests in _BINDINGS_FAILURES.items() for test in tests.split()},
}


@pytest.fixture(scope="module")
def reports(tmp_path_factory):
  """Both files' outcomes, the two worker processes running at once; run once per session, also when
  pytest-xdist spreads this module's tests over several processes (they share the session's directory)."""
  shared = tmp_path_factory.getbasetemp()
  if os.environ.get("PYTEST_XDIST_WORKER"):
    shared = shared.parent
  done = shared / "mujoco_conformance.json"
  with open(shared / "mujoco_conformance.lock", "w", encoding="utf-8") as lock:
    fcntl.flock(lock, fcntl.LOCK_EX)
    if not done.exists():
      done.write_text(json.dumps(_run_workers(shared)))
  return json.loads(done.read_text())


def _run_workers(directory):
  root = os.path.dirname(os.path.dirname(os.path.abspath(mjgym.__file__)))  # this checkout's mjgym, for the workers
  env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [root, os.environ.get("PYTHONPATH")])))
  worker = os.path.join(os.path.dirname(os.path.abspath(__file__)), "conformance_worker.py")
  out = {name: str(directory / f"{name}.json") for name in FILES}
  running = {name: subprocess.Popen([sys.executable, worker, name, out[name]], env=env, stdout=subprocess.PIPE,
                                    stderr=subprocess.STDOUT) for name in FILES}
  result = {}
  for name, process in running.items():
    log, _ = process.communicate(timeout=1200)
    assert process.returncode == 0, f"the {name} worker failed:\n{log.decode(errors='replace')[-3000:]}"
    with open(out[name], encoding="utf-8") as f:
      result[name] = json.load(f)
  return result


@pytest.mark.parametrize("name", FILES)
def test_wheel_tests_pass_on_mjgym(reports, name):
  assert wheel_test_path(name).is_file()
  report = reports[name]
  assert report["collection_error"] is None, report["collection_error"]
  outcomes = report["outcomes"]
  known = KNOWN_FAILURES[name]
  unexpected = {test: outcome for test, outcome in outcomes.items()
                if outcome not in ("passed", "skipped") and test not in known}
  assert not unexpected, f"{len(unexpected)} tests of {name} fail: " + json.dumps(unexpected, indent=1)
  assert not set(known) - set(outcomes), f"listed as failing but not in {name}: {sorted(set(known) - set(outcomes))}"


@pytest.mark.parametrize("name, test", [
    pytest.param(name, test, marks=pytest.mark.xfail(strict=True, raises=AssertionError, reason=reason),
                 id=f"{name}::{test}")
    for name in FILES for test, reason in KNOWN_FAILURES[name].items()])
def test_known_failure(reports, name, test):
  outcome = reports[name]["outcomes"].get(test)
  if outcome is None:
    pytest.fail(f"{test} is not a test of {name}: take it off KNOWN_FAILURES")  # not an AssertionError
  assert outcome == "passed", outcome
