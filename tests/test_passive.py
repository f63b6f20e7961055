"""Oracle tests of passive forces (passive.py): springs, dampers, gravity compensation, fluid drag."""

import mujoco
import pytest

import oracle

RTOL = 1e-9
PASSIVE_FIELDS = ("qfrc_spring", "qfrc_damper", "qfrc_fluid", "qfrc_gravcomp", "qfrc_passive")


@pytest.mark.parametrize("kind,name", oracle.STAGE_MODELS)
def test_passive(kind, name):
  mjm, mjd, m, d = oracle.load_stage_model(kind, name)
  for _ in oracle.stage_states(mjm, mjd, m, d, seed=11):
    oracle.assert_fields_close(d, mjd, PASSIVE_FIELDS, RTOL, name)


@pytest.mark.parametrize("flags", [mujoco.mjtDisableBit.mjDSBL_SPRING, mujoco.mjtDisableBit.mjDSBL_DAMPER,
                                   mujoco.mjtDisableBit.mjDSBL_SPRING | mujoco.mjtDisableBit.mjDSBL_DAMPER,
                                   mujoco.mjtDisableBit.mjDSBL_GRAVITY])
@pytest.mark.parametrize("kind,name", [("file", "kernel_joints.xml"), ("gym", "swimmer")])
def test_disable_flags(kind, name, flags):
  mjm, mjd, m, d = oracle.load_stage_model(kind, name)
  mjm.opt.disableflags |= int(flags)
  m.opt.disableflags = mjm.opt.disableflags
  for _ in oracle.stage_states(mjm, mjd, m, d, seed=12):
    oracle.assert_fields_close(d, mjd, PASSIVE_FIELDS + ("qfrc_bias",), RTOL, name)
