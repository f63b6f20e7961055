"""Oracle tests of passive forces (passive.py): springs, dampers, gravity compensation, fluid drag."""

import mujoco
import pytest

from test_smooth import MODELS, RTOL, compare, load, states

PASSIVE_FIELDS = ("qfrc_spring", "qfrc_damper", "qfrc_fluid", "qfrc_passive")


@pytest.mark.parametrize("kind,name", MODELS)
def test_passive(kind, name):
  mjm, mjd, m, d = load(kind, name)
  for _ in states(mjm, mjd, m, d, seed=11):
    compare(d, mjd, PASSIVE_FIELDS, name)


@pytest.mark.parametrize("flags", [mujoco.mjtDisableBit.mjDSBL_SPRING, mujoco.mjtDisableBit.mjDSBL_DAMPER,
                                   mujoco.mjtDisableBit.mjDSBL_SPRING | mujoco.mjtDisableBit.mjDSBL_DAMPER,
                                   mujoco.mjtDisableBit.mjDSBL_GRAVITY])
@pytest.mark.parametrize("kind,name", [("file", "kernel_joints.xml"), ("gym", "swimmer")])
def test_disable_flags(kind, name, flags):
  mjm, mjd, m, d = load(kind, name)
  mjm.opt.disableflags |= int(flags)
  m.opt.disableflags = mjm.opt.disableflags
  for _ in states(mjm, mjd, m, d, seed=12):
    compare(d, mjd, PASSIVE_FIELDS + ("qfrc_bias",), name)

