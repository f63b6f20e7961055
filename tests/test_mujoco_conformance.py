"""MuJoCo's own Python tests, run on mjgym.physics: the installed `mujoco` wheel's ``rollout_test.py`` and
``bindings_test.py``, read from site-packages (never copied here), with ``import mujoco`` resolving to
``mjgym.physics``. Each file runs in a process of its own (``conformance_worker.py``), since this process imports
the real `mujoco` for the oracle tests.

Every wheel test must pass except those in ``KNOWN_FAILURES``, each with the reason; those are strict xfails, so
one that starts passing fails here until it is taken off the list. ``python tests/conformance_worker.py
bindings_test out.json`` writes every outcome, for a look at what fails and why.
"""

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

# Reasons, then the tests that fail for each.
_MJSPEC = "MjSpec (model editing) is not part of mjgym.physics"
_PLUGIN = "engine plugins (<extension>, mujoco.pid) are not supported"
_MJV = "MjvScene / mjv_updateScene (the OpenGL visualizer's scene) are not part of the headless renderer"
_MJCF4 = "an MJCF feature of MuJoCo 4 the compiler does not have yet"
_HISTORY = "mj_readCtrl / mj_readSensor / mj_init*History are not exposed (docs/bindings.md)"
_ARENA = "MuJoCo's arena memory (narena, _functions._realloc_*, views vs owned arrays) has no counterpart here"
_REFCOUNT = "pybind11 object lifetimes (reference counts, struct addresses) differ from Python objects'"
_FIELDS = "a model or data field of MuJoCo 4 the engine does not keep"
_FUNCTION = "a function of the bindings mjgym.physics does not have yet"
_DOCSTRING = "the bindings' generated docstrings (pybind11 signatures)"
_CONTACT = "d.contact[i].geom, .H and .surfacevel are made on the fly: writes do not reach the Data"
_STEP_ARRAYS = "efc_* arrays keep their capacity (njmax) where MuJoCo cuts them to nefc"
_LOG = "MuJoCo's logging (MjLogConfig, user warning/malloc callbacks) is not part of mjgym.physics"
_RAY = "mj_ray's normal output, mj_multiRay, mju_rayGeom and mju_raySkin are not supported"

KNOWN_FAILURES = {
    "rollout_test": {
        "MuJoCoRolloutTest.test_multi_model0": _MJSPEC,
        "MuJoCoRolloutTest.test_multi_model1": _MJSPEC,
        "MuJoCoRolloutTest.test_multi_model2": _MJSPEC,
        "MuJoCoRolloutTest.test_multi_model3": _MJSPEC,
    },
    "bindings_test": {},
}


@pytest.fixture(scope="module")
def reports(tmp_path_factory):
  """Both files' outcomes, the two worker processes running at once."""
  root = os.path.dirname(os.path.dirname(os.path.abspath(mjgym.__file__)))  # this checkout's mjgym, for the workers
  env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [root, os.environ.get("PYTHONPATH")])))
  worker = os.path.join(os.path.dirname(os.path.abspath(__file__)), "conformance_worker.py")
  out = {name: str(tmp_path_factory.mktemp(name) / "report.json") for name in FILES}
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
