"""Oracle tests of support.py against MuJoCo: Jacobians of points on bodies, Cartesian forces mapped to joint space,
and the contact outputs (mj_contactForce, the contact wrenches of cfrc_ext)."""

import mujoco
import numpy as np
import pytest

import constraint_oracle as co
import oracle
from mjgym import physics
from mjgym.physics import support

RTOL = 1e-9


@pytest.mark.parametrize("kind,name", oracle.STAGE_MODELS)
def test_jac_and_applied_forces_match_mujoco(kind, name):
  """jac against mj_jac; apply_ft and xfrc_accumulate against mj_applyFT."""
  mjm, mjd, m, d = oracle.load_stage_model(kind, name)
  nv = mjm.nv
  jacp, jacr = np.zeros((3, nv)), np.zeros((3, nv))
  ref_p, ref_r = np.zeros((3, nv)), np.zeros((3, nv))
  rng = np.random.default_rng(5)
  for _ in oracle.stage_states(mjm, mjd, m, d, seed=5):
    body = int(rng.integers(mjm.nbody))
    point = rng.normal(size=3)
    support.jac(m._struct, d._struct, jacp, jacr, point, body)
    mujoco.mj_jac(mjm, mjd, ref_p, ref_r, point, body)
    oracle.assert_close(jacp, ref_p, RTOL, f"{name}: jacp")
    oracle.assert_close(jacr, ref_r, RTOL, f"{name}: jacr")
    force, torque = rng.normal(size=3), rng.normal(size=3)
    ours, ref = np.zeros(nv), np.zeros(nv)
    support.apply_ft(m._struct, d._struct, force, torque, point, body, ours)
    mujoco.mj_applyFT(mjm, mjd, force, torque, point, body, ref)
    oracle.assert_close(ours, ref, RTOL, f"{name}: apply_ft")
    ours[:] = 0.0
    ref[:] = 0.0
    support.xfrc_accumulate(m._struct, d._struct, ours)
    for b in range(1, mjm.nbody):
      mujoco.mj_applyFT(mjm, mjd, mjd.xfrc_applied[b, :3], mjd.xfrc_applied[b, 3:], mjd.xipos[b], b, ref)
    oracle.assert_close(ours, ref, RTOL, f"{name}: xfrc_accumulate")


def test_contact_force_and_cfrc_ext():
  """mj_contactForce and the contact wrenches in cfrc_ext match MuJoCo's (both cones)."""
  for source in ("contacts.xml", "contacts_elliptic.xml"):
    mjm, m = oracle.models(oracle.MODELS_DIR / "constraint" / source, from_mujoco=True)
    mjd = mujoco.MjData(mjm)
    d = physics.MjData(m)
    for state in co.rollout_states(mjm, 4, 15, kick=2.0):
      oracle.set_options(mjm, m, solver="Newton", tolerance=1e-15)
      co.load_state(mjm, mjd, d, state)
      co.forward_given_contacts(m, d, mjd)
      ours, theirs = np.zeros(6), np.zeros(6)
      for c in range(mjd.ncon):
        physics.mj_contactForce(m, d, c, ours)
        mujoco.mj_contactForce(mjm, mjd, c, theirs)
        oracle.assert_close(ours, theirs, 1e-6, f"contact {c}")
      physics.mj_rnePostConstraint(m, d)
      mujoco.mj_rnePostConstraint(mjm, mjd)
      oracle.assert_close(d.cfrc_ext, mjd.cfrc_ext, 1e-6, "cfrc_ext")
      oracle.assert_close(d.cfrc_int, mjd.cfrc_int, 1e-6, "cfrc_int")
