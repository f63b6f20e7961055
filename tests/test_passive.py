"""Oracle tests of passive forces (passive.py): springs, dampers, gravity compensation, fluid drag."""

import mujoco
import pytest

import oracle
import rollout_oracle

from test_smooth import MODELS, RTOL, compare, load, states

PASSIVE_FIELDS = ("qfrc_spring", "qfrc_damper", "qfrc_fluid", "qfrc_gravcomp", "qfrc_passive")


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



def test_springdamper_compiled_as_mujoco():
  """springdamper="timeconst dampratio" compiles to MuJoCo's stiffness and damping (from dof_invweight0 at qpos0),
  and our rollout of the model stays on MuJoCo's."""
  from mjgym import physics  # pylint: disable=import-outside-toplevel
  path = oracle.MODELS_DIR / "springdamper.xml"
  m, mjm = physics.MjModel.from_xml_path(str(path)), mujoco.MjModel.from_xml_path(str(path))
  oracle.assert_close(m.jnt_stiffness, mjm.jnt_stiffness, 1e-12, "jnt_stiffness")
  oracle.assert_close(m.dof_damping, mjm.dof_damping, 1e-12, "dof_damping")
  assert mjm.jnt_stiffness[0] != 3 and mjm.dof_damping[0] != 1  # springdamper wins over stiffness and damping
  report = rollout_oracle.compare(path, steps=200)
  assert report["first_divergence"] is None and report["onestep_qpos"] < 1e-12
