"""Loader fuzzing: mutated MJCF models load into a model that steps, or fail with a located MJCFError.

Hypothesis mutates our assets, the test models and Gymnasium's MuJoCo models (tests/fuzz_corpus.py: hostile
numbers, wrong arity, deleted, duplicated and renamed elements, deep nesting). Each case runs in a child
process (tests/fuzz_worker.py) with a time limit, since a numba kernel cannot be interrupted: it loads the model
and, if that works, steps it 10 times. A case passes when the loader raised MJCFError, or the model stepped with
finite qpos, qvel and sensordata, or non-finite ones that a warning in ``d.warning`` accounts for. Anything else
(another exception from the loader or from mj_step, a hang, a dead child, silent NaN) fails it.

CI runs a fixed, derandomized set of MJGYM_FUZZ_EXAMPLES examples (default 300, under a minute once the
kernels are compiled); a longer run: ``MJGYM_FUZZ_EXAMPLES=5000 pytest tests/test_fuzz_loader.py``.
"""

import collections
import os

import pytest

hypothesis = pytest.importorskip("hypothesis")
from hypothesis import HealthCheck  # noqa: E402  pylint: disable=wrong-import-position
from hypothesis import given  # noqa: E402  pylint: disable=wrong-import-position
from hypothesis import settings  # noqa: E402  pylint: disable=wrong-import-position
from hypothesis import strategies as st  # noqa: E402  pylint: disable=wrong-import-position

from tests import fuzz_corpus  # noqa: E402  pylint: disable=wrong-import-position
from tests import fuzz_worker  # noqa: E402  pylint: disable=wrong-import-position

EXAMPLES = int(os.environ.get("MJGYM_FUZZ_EXAMPLES", "300"))
STEPS = 10
CASE_TIMEOUT = 120.0  # seconds per case; a 600-deep chain of bodies loads in a few
SEEDS = fuzz_corpus.seed_models()
_OUTCOMES = collections.Counter()


class _Draws:
  """The ``randrange`` the corpus asks for, drawn from Hypothesis (so failures shrink)."""

  def __init__(self, data):
    self.data = data

  def randrange(self, n):
    return self.data.draw(st.integers(0, n - 1)) if n > 1 else 0


@pytest.fixture(scope="module")
def worker():
  w = fuzz_worker.Worker("mjgym", warmup=fuzz_corpus.WARMUP)
  yield w
  w.close()
  # shown with -s: how the cases ended (ok: loaded and stepped; warned: with a warning; reject: MJCFError)
  print(f"\nfuzz outcomes: {dict(_OUTCOMES)}")


@pytest.fixture(scope="module")
def mirrors():
  m = fuzz_corpus.Mirrors()
  yield m
  m.close()


def test_seeds_found():
  assert len(SEEDS) >= 40, [p.name for p in SEEDS]


@settings(max_examples=EXAMPLES, deadline=None, derandomize=True, database=None, print_blob=False,
          suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_mutated_models_load_and_step_or_fail_with_mjcf_error(worker, mirrors, data):
  seed = SEEDS[data.draw(st.integers(0, len(SEEDS) - 1), label="seed")]
  count = data.draw(st.integers(1, 3), label="mutations")
  text, done = fuzz_corpus.mutated_text(seed, _Draws(data), count)
  path = mirrors.write(seed, text)
  result = worker.run(path, steps=STEPS, timeout=CASE_TIMEOUT)
  _OUTCOMES["warned" if result.get("warned") else result["status"]] += 1
  assert result["status"] in ("ok", "reject"), (seed.name, done, result)


# The fuzzer's first engine signature: a NaN velocity gain with an implicit integrator raised ZeroDivisionError out
# of mj_step (numba's Python error model). MuJoCo steps it to NaN with one BADQVEL warning per step (autoreset).
_ENGINE_REPRO = ('<mujoco><option integrator="{}"/><worldbody><body><joint name="j"/><geom size="0.1"/>'
                 '</body></worldbody><actuator><position joint="j" kv="nan"/></actuator></mujoco>')


@pytest.mark.parametrize("integrator", ["implicitfast", "implicit"])
def test_nan_velocity_gain_steps_as_mujoco(integrator):
  import mujoco  # pylint: disable=import-outside-toplevel
  import numpy as np  # pylint: disable=import-outside-toplevel
  from mjgym import physics  # pylint: disable=import-outside-toplevel
  xml = _ENGINE_REPRO.format(integrator)
  m, mjm = physics.MjModel.from_xml_string(xml), mujoco.MjModel.from_xml_string(xml)
  d, mjd = physics.MjData(m), mujoco.MjData(mjm)
  d.ctrl[:] = mjd.ctrl[:] = 0.5
  for _ in range(STEPS):
    physics.mj_step(m, d)
    mujoco.mj_step(mjm, mjd)
    np.testing.assert_array_equal(d.warning.number, mjd.warning.number)
    np.testing.assert_array_equal(np.isnan(d.qvel), np.isnan(mjd.qvel))
