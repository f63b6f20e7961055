"""mj_setConst (mjcf/setconst.py) against MuJoCo: the invweight0 constants and meaninertia, the qpos0 anchors of
connects and welds, actuator_acc0, stiffness and damping from springdamper, and actuator length ranges found by
simulation."""

import mujoco
import numpy as np
import pytest

import oracle
import rollout_oracle
from mjgym import physics
from mjgym.physics.mjcf import MJCFError


def test_set_const_matches_mujoco():
  for name in ("hopper", "humanoid"):
    mjm, m = oracle.models(oracle.gym_asset(name))
    for field in ("dof_invweight0", "body_invweight0", "tendon_invweight0"):
      oracle.assert_close(getattr(m, field), getattr(mjm, field), 1e-12, field)
    assert m.stat_meaninertia[0] == pytest.approx(mjm.stat.meaninertia, rel=1e-12)


def test_weld_and_connect_frames_at_qpos0_match_mujoco():
  """Anchored welds without relpose and body connects hold at qpos0; eq_data is MuJoCo's in all 12 columns (site
  forms, joint and tendon couplings included); the rollout stays on MuJoCo's."""
  mjm, mjd, m, d = oracle.load_both(oracle.MODELS_DIR / "weld_anchor.xml")
  assert m.eq_data.shape == mjm.eq_data.shape == (mjm.neq, 12)
  oracle.assert_close(m.eq_data, mjm.eq_data, 1e-15, "eq_data")
  mujoco.mj_forward(mjm, mjd)
  physics.mj_forward(m, d)
  assert d.nefc == mjd.nefc and d.ne == mjd.ne
  oracle.assert_close(d.efc_pos[:d.nefc], mjd.efc_pos, 1e-12, "efc_pos at qpos0")
  # rows of the constraints whose frames come from qpos0: body connects, and body welds flagged in eq_data[11]
  from_qpos0 = [e for e in range(mjm.neq) if mjm.eq_objtype[e] == mujoco.mjtObj.mjOBJ_BODY
                and (mjm.eq_type[e] == mujoco.mjtEq.mjEQ_CONNECT or mjm.eq_data[e, 11])]
  assert len(from_qpos0) == 5
  rows = np.isin(d.efc_id[:d.ne], from_qpos0)
  assert np.max(np.abs(d.efc_pos[:d.ne][rows])) <= 1e-15
  for nstep in (100, 400):
    mujoco.mj_step(mjm, mjd, nstep)
    physics.mj_step(m, d, nstep)
    oracle.assert_close(d.qpos, mjd.qpos, 1e-10, f"qpos after {nstep} more steps")


def _contact_rows(d, ncon, pos, geom1, geom2, efc_address, dim):
  """(geom1, geom2, position) -> that contact's efc rows, so two engines' contacts match whatever their order."""
  return {(int(geom1[c]), int(geom2[c]), tuple(np.round(pos[c], 9))): (int(efc_address[c]), int(dim[c]))
          for c in range(ncon)}


def test_simple_bodies_weigh_constraints_by_mass():
  """Bodies moved only by slides get MuJoCo's body_simple and its invweight0 (1/mass, armature left out), and
  every other kind its J M^-1 J^T average; the contact rows' efc_R follow."""
  mjm, mjd, m, d = oracle.load_both(oracle.MODELS_DIR / "slide_bodies.xml")
  np.testing.assert_array_equal(m.body_simple, mjm.body_simple)
  assert np.count_nonzero(mjm.body_simple[1:] == 2) >= 4 and np.count_nonzero(mjm.body_simple[1:] == 0) >= 4
  oracle.assert_close(m.body_invweight0, mjm.body_invweight0, 1e-12, "body_invweight0")
  oracle.assert_close(m.dof_invweight0, mjm.dof_invweight0, 1e-12, "dof_invweight0")
  for nstep in (0, 1, 20):
    mujoco.mj_step(mjm, mjd, nstep)
    physics.mj_step(m, d, nstep)
    mujoco.mj_forward(mjm, mjd)
    physics.mj_forward(m, d)
    assert d.nefc == mjd.nefc
    ours = _contact_rows(d, d.ncon, d.contact_pos, d.contact_geom1, d.contact_geom2, d.contact_efc_address,
                         d.contact_dim)
    theirs = _contact_rows(mjd, mjd.ncon, mjd.contact.pos, mjd.contact.geom1, mjd.contact.geom2,
                           mjd.contact.efc_address, mjd.contact.dim)
    assert ours.keys() == theirs.keys() and len(theirs) == mjd.ncon > 0
    for key, (adr, dim) in theirs.items():
      rows = 1 if dim == 1 else 2 * (dim - 1)  # pyramidal cone
      our_adr = ours[key][0]
      oracle.assert_close(d.efc_R[our_adr:our_adr + rows], mjd.efc_R[adr:adr + rows], 1e-12, f"efc_R of {key}")


def test_adhesion_acc0_from_the_smooth_stages_alone():
  """actuator_acc0 comes from the position stages without collision, as in MuJoCo: an adhesion actuator (its
  moment comes from contacts) has acc0 = 0 even when its body touches the floor at qpos0."""
  xml = """<mujoco><worldbody><geom type="plane" size="1 1 .1"/>
    <body name="foot" pos="0 0 .09"><freejoint/><geom size=".1"/></body></worldbody>
    <actuator><adhesion body="foot" ctrlrange="0 1" gain="5"/></actuator></mujoco>"""
  mjm, m = oracle.models(xml)
  mjd = mujoco.MjData(mjm)
  mujoco.mj_forward(mjm, mjd)
  assert mjd.ncon > 0  # the foot touches the floor at qpos0
  assert mjm.actuator_acc0[0] == 0.0
  np.testing.assert_array_equal(m.actuator_acc0, mjm.actuator_acc0)


def test_springdamper_compiled_as_mujoco():
  """springdamper="timeconst dampratio" compiles to MuJoCo's stiffness and damping (from dof_invweight0 at qpos0),
  and our rollout of the model stays on MuJoCo's."""
  path = oracle.MODELS_DIR / "springdamper.xml"
  mjm, m = oracle.models(path)
  oracle.assert_close(m.jnt_stiffness, mjm.jnt_stiffness, 1e-12, "jnt_stiffness")
  oracle.assert_close(m.dof_damping, mjm.dof_damping, 1e-12, "dof_damping")
  assert mjm.jnt_stiffness[0] != 3 and mjm.dof_damping[0] != 1  # springdamper wins over stiffness and damping
  report = rollout_oracle.compare(path, steps=200)
  assert report["first_divergence"] is None and report["onestep_qpos"] < 1e-12


# --------------------------------------------------------------- length range ----

LENGTHRANGE_EXTRA = ('<motor name="motor" joint="shoulder"/>'
                     '<muscle name="given" joint="shoulder" lengthrange="-0.5 0.5"/>'
                     '<general name="muscle_dynamics_only" joint="elbow" dyntype="muscle"/>')


@pytest.mark.parametrize("options", [
    "",
    '<lengthrange accel="50" tolrange="0.01"/>',
    '<lengthrange mode="all" maxforce="5" timeconst="0.5" timestep="0.005"/>',
    '<lengthrange mode="muscleuser" useexisting="false"/>',
])
def test_muscle_lengthrange_by_simulation_matches_mujoco(options):
  """actuator_lengthrange found by the compiler's simulation (<compiler><lengthrange>) is MuJoCo's to 1e-9.

  tests/models/muscle_lengthrange.xml: muscles on a spatial tendon over two limited hinges, on a tendon
  limited by geometry only, on a limited joint and on a fixed tendon; plus a motor (simulated under
  mode="all"), a muscle with a given range (kept unless useexisting="false") and a muscle-dynamics-only
  actuator (never simulated). Both simulations settle on the same soft-limit equilibria (measured: at
  most 2e-10 apart; the soft limits let the elbow pass its range by 6e-4 to 2.4e-3, more with more accel).
  """
  xml = (oracle.MODELS_DIR / "muscle_lengthrange.xml").read_text()
  xml = xml.replace("<worldbody>", f"<compiler>{options}</compiler><worldbody>")
  xml = xml.replace("</actuator>", LENGTHRANGE_EXTRA + "</actuator>")
  mjm, m = oracle.models(xml)
  oracle.assert_close(m.actuator_lengthrange, mjm.actuator_lengthrange, 1e-9, "actuator_lengthrange")
  elbow = m.actuator_lengthrange[2]
  assert -5e-3 < elbow[0] < 0.0 and np.radians(120) < elbow[1] < np.radians(120) + 5e-3
  oracle.assert_close(m.actuator_lengthrange[1], [0.4, 0.6], 1e-9, "belt (limited by geometry)")


@pytest.mark.parametrize("xml, message", [
    ('<actuator><muscle joint="j"/></actuator>', "did not settle"),
    ('<actuator><muscle joint="free_j"/></actuator>', "is empty"),
    ('<compiler><lengthrange inttotal="1" interval="2"/></compiler><actuator><muscle joint="lim"/></actuator>',
     "did not settle"),
    ('<compiler><lengthrange timeconst="0"/></compiler>', "timeconst must be positive"),
    ('<compiler><lengthrange timestep="-0.01"/></compiler>', "timestep must be non-negative"),
])
def test_lengthrange_simulation_errors(xml, message):
  """Unlimited or immobile transmissions, an unsettled simulation and bad options fail at load, named."""
  model = f"""<mujoco><worldbody><body name="b"><joint name="j"/><geom size="0.1"/></body>
    <body name="f"><freejoint name="free_j"/><geom size="0.1"/></body>
    <body name="c" pos="1 0 0"><joint name="lim" range="-30 40"/><geom size="0.1" pos="0.2 0 0"/></body>
    </worldbody>{xml}</mujoco>"""
  with pytest.raises(MJCFError, match=message):
    physics.MjModel.from_xml_string(model)
  if "lengthrange" in xml and "muscle" in xml:
    with pytest.raises(ValueError, match="did not converge"):
      mujoco.MjModel.from_xml_string(model)
