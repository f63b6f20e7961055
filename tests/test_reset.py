"""mj_resetData: a reset world retraces a fresh world bitwise.

A reset leaves the contact and constraint rows as MuJoCo leaves its arena (only their counts go to zero), so a
step after a reset must not read a row it has not written: whatever the world did before the reset, stepping it
afterwards gives bit for bit what a fresh MjData gives.
"""

import os

import numpy as np
import pytest

import oracle
from mjgym import physics
from mjgym.physics import types

# contacts (pyramidal and elliptic), equality constraints, joint limits, PGS and Newton, soft and hard contacts
MODELS = [oracle.MODELS_DIR / "constraint" / name for name in
          ("contacts.xml", "contacts_elliptic.xml", "equality.xml", "limits.xml")]
_ARENA = {name: shape[0] for name, _, shape in types.DATA_ROWS if shape and shape[0] in ("nconmax", "njmax", "narmax")}


def _gymnasium_model(name):
  gymnasium = pytest.importorskip("gymnasium")
  return os.path.join(os.path.dirname(gymnasium.__file__), "envs", "mujoco", "assets", name)


def _run(m, d, ctrls, nstep):
  for u in ctrls:
    d.ctrl[:] = u
    physics.mj_step(m, d, nstep)


def _visible(d):
  """Every Data field, the contact and constraint rows cut to ncon and nefc and AR to nefc x nefc (what the step
  wrote; MuJoCo shows no more)."""
  ncon, nefc = int(d._fields["ncon"][0]), int(d._fields["nefc"][0])  # pylint: disable=protected-access
  out = {}
  for name, value in d._fields.items():  # pylint: disable=protected-access
    if name == "timer_duration":
      continue  # wall-clock time: never the same twice
    dim = _ARENA.get(name)
    if dim == "nconmax":
      value = value[:ncon]
    elif dim == "njmax":
      value = value[:nefc]
    elif dim == "narmax":
      value = value[:nefc, :nefc]
    out[name] = value
  return out


@pytest.mark.parametrize("path", MODELS + ["humanoid.xml", "ant.xml"], ids=lambda p: os.path.basename(str(p)))
def test_a_reset_world_retraces_a_fresh_world_bitwise(path):
  path = _gymnasium_model(path) if isinstance(path, str) else path
  m = physics.MjModel.from_xml_path(str(path))
  rng = np.random.default_rng(3)
  before = rng.uniform(-1, 1, size=(40, m.nu))
  after = rng.uniform(-1, 1, size=(20, m.nu))
  used = physics.MjData(m)
  _run(m, used, before, 5)  # contacts and constraint rows of another history
  assert used.nefc > 0  # rows the reset leaves behind
  physics.mj_resetData(m, used)
  fresh = physics.MjData(m)
  _run(m, used, after, 5)
  _run(m, fresh, after, 5)
  a, b = _visible(used), _visible(fresh)
  assert a.keys() == b.keys()
  for name in a:
    assert np.array_equal(a[name], b[name]), name
  assert fresh.nefc > 0, "the model should have constraint rows to compare"
