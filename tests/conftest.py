import os
import pathlib
import sys

# Lets tests import the shared helpers in tests/oracle.py.
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))


def pytest_configure(config):
  """Compiles the engine into the cache once, on all cores, before any test runs (``mjgym compile``).

  Without it every pytest-xdist worker compiles the same pipelines at the same time. Only the controlling
  process does it (workers have ``workerinput``); ``MJGYM_TEST_PREWARM=0`` skips it, and a comma-separated list of
  targets (``single,batch``) compiles those only.
  """
  choice = os.environ.get("MJGYM_TEST_PREWARM", "1")
  if hasattr(config, "workerinput") or choice == "0":
    return
  from mjgym import prewarm  # pylint: disable=import-outside-toplevel
  prewarm.run(prewarm.DEFAULT_TARGETS if choice == "1" else choice.split(","))
