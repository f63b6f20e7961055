"""Runs one test file of the installed `mujoco` wheel with ``import mujoco`` resolving to ``mjgym.physics``.

``python conformance_worker.py bindings_test OUT.json`` reads ``bindings_test.py`` from the wheel's directory in
site-packages (the file is never copied), executes it as a module, runs its absl test cases with unittest and
writes ``{"collection_error": str | None, "outcomes": {test: outcome}}`` to OUT.json. An outcome is ``"passed"``,
``"skipped"``, or ``"failed: "`` / ``"error: "`` followed by the last line of the exception. It is a process of
its own because the oracle tests import the real `mujoco` in the pytest process.
"""

import importlib.util
import json
import pathlib
import sys
import traceback
import types
import unittest


def wheel_test_path(name):
  """The path of the wheel's test file ``name`` (without ``.py``), found without importing the wheel."""
  return pathlib.Path(importlib.util.find_spec("mujoco").origin).parent / f"{name}.py"


class _Outcomes(unittest.TestResult):

  def __init__(self):
    super().__init__()
    self.outcomes = {}

  @staticmethod
  def _name(test):
    return test.id().split(".", 1)[1].split(" ")[0]  # without the module name and parameters

  @staticmethod
  def _last_line(err):
    lines = "".join(traceback.format_exception_only(err[0], err[1])).strip().splitlines()
    return lines[-1][:300] if lines else err[0].__name__

  def addSuccess(self, test):
    self.outcomes[self._name(test)] = "passed"

  def addFailure(self, test, err):
    self.outcomes[self._name(test)] = "failed: " + self._last_line(err)

  def addError(self, test, err):
    name = self._name(test) if isinstance(test, unittest.TestCase) else str(test)
    self.outcomes[name] = "error: " + self._last_line(err)

  def addSkip(self, test, reason):
    self.outcomes[self._name(test)] = "skipped"

  def addExpectedFailure(self, test, err):
    self.outcomes[self._name(test)] = "passed"

  def addUnexpectedSuccess(self, test):
    self.outcomes[self._name(test)] = "failed: unexpected success"


def run(name):
  """Executes the wheel's test file ``name`` on mjgym.physics; returns the report written to OUT.json."""
  path = wheel_test_path(name)
  from mjgym import physics  # pylint: disable=import-outside-toplevel
  from mjgym.physics import rollout  # pylint: disable=import-outside-toplevel
  sys.modules["mujoco"] = physics
  sys.modules["mujoco.rollout"] = rollout
  module = types.ModuleType(name)
  module.__file__ = str(path)
  sys.modules[name] = module
  try:
    exec(compile(path.read_text(), str(path), "exec"), module.__dict__)  # pylint: disable=exec-used
  except Exception:  # pylint: disable=broad-except
    return {"collection_error": traceback.format_exc(), "outcomes": {}}
  result = _Outcomes()
  unittest.defaultTestLoader.loadTestsFromModule(module).run(result)
  return {"collection_error": None, "outcomes": result.outcomes}


if __name__ == "__main__":
  report = run(sys.argv[1])
  pathlib.Path(sys.argv[2]).write_text(json.dumps(report, indent=1, sort_keys=True))
