"""Oracle tests of actuation (actuation.py) against MuJoCo's mj_forward and mj_step."""

import mujoco
import numpy as np
import pytest

import oracle
from mjgym.physics import actuation
from test_smooth import MODELS, RTOL, compare, load, states

ACTUATION_FIELDS = ("act_dot", "actuator_force", "qfrc_actuator", "actuator_length", "actuator_velocity")


@pytest.mark.parametrize("kind,name", MODELS)
def test_actuation(kind, name):
  mjm, mjd, m, d = load(kind, name)
  for _ in states(mjm, mjd, m, d, seed=21):
    ctrl = d.ctrl.copy()
    compare(d, mjd, ACTUATION_FIELDS, name)
    np.testing.assert_array_equal(d.ctrl, ctrl)


@pytest.mark.parametrize("flags", [mujoco.mjtDisableBit.mjDSBL_CLAMPCTRL, mujoco.mjtDisableBit.mjDSBL_ACTUATION])
def test_disable_flags(flags):
  mjm, mjd, m, d = load("file", "kernel_actuators.xml")
  mjm.opt.disableflags |= int(flags)
  m.opt.disableflags = mjm.opt.disableflags
  for _ in states(mjm, mjd, m, d, seed=22):
    compare(d, mjd, ACTUATION_FIELDS, "kernel_actuators")


def test_next_activation():
  """next_activation is the activation MuJoCo's Euler step produces (exact for filterexact, clamped)."""
  mjm, mjd, m, d = load("file", "kernel_actuators.xml")
  for _ in states(mjm, mjd, m, d, seed=23):
    expected = np.zeros(mjm.na)
    for i in range(mjm.nu):
      adr = mjm.actuator_actadr[i]
      if adr >= 0:
        expected[adr] = actuation.next_activation(m._struct, d._struct, i, d.act[adr], d.act_dot[adr])
    mujoco.mj_step(mjm, mjd)
    oracle.assert_close(expected, mjd.act, RTOL, "next_activation")
