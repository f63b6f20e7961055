"""Tendon armature (MuJoCo 4's ``<fixed/spatial armature>`` and actuator armature on tendon transmissions) against
MuJoCo: the compiled model, the inertia matrix on MuJoCo's sparsity, its factor, the bias term of spatial tendons,
energy, inverse dynamics, the mass derivative of mjd_inverseFD and trajectories of every integrator."""

import mujoco
import numpy as np
import pytest

import oracle
from located_error import assert_located_error
from mjgym import physics

MODEL = oracle.MODELS_DIR / "tendon_armature" / "tendon_armature.xml"
FIELDS = ("qfrc_bias", "qacc_smooth", "qacc", "qfrc_constraint", "ten_length", "ten_velocity", "actuator_force")


def _dense_factor_ours(m, qld):
  """(L, D) of our qLD (legacy layout: row i holds D[i] then L[i, j] for its ancestors j, nearest first)."""
  lower, diag = np.eye(m.nv), np.zeros(m.nv)
  for i in range(m.nv):
    adr = m.dof_Madr[i]
    diag[i] = qld[adr]
    j = m.dof_parentid[i]
    while j >= 0:
      adr += 1
      lower[i, j] = qld[adr]
      j = m.dof_parentid[j]
  return lower, diag


def _dense_factor_mujoco(mjm, mjd):
  """(L, D) of MuJoCo 4's qLD (M's compressed rows: ancestors ascending, then the diagonal)."""
  lower, diag = np.eye(mjm.nv), np.zeros(mjm.nv)
  for i in range(mjm.nv):
    adr, nnz = mjm.M_rowadr[i], mjm.M_rownnz[i]
    for k in range(adr, adr + nnz - 1):
      lower[i, mjm.M_colind[k]] = mjd.qLD[k]
    diag[i] = mjd.qLD[adr + nnz - 1]
  return lower, diag


def test_compiled_model_matches_mujoco():
  mjm, m = oracle.models(MODEL)
  assert list(mjm.tendon_armature) == [0.3, 0.2, 0.0, 0.05]  # the default class reaches the last tendon
  assert oracle.model_differences(mjm, m, 1e-12) == []


def test_bodies_on_an_armature_tendon_are_not_simple():
  """MuJoCo demotes the bodies of an armature tendon's sites from simple, for its own armature or its actuator's."""
  xml = """<mujoco><worldbody>
    <body pos="0 0 1"><freejoint/><geom size="0.1"/><site name="a"/></body>
    <body pos="1 0 1"><joint type="slide" axis="1 0 0"/><geom size="0.1"/><site name="b"/></body>
    <body pos="2 0 1"><joint type="slide" axis="0 1 0"/><geom size="0.1"/><site name="c"/></body>
    </worldbody><tendon><spatial name="t" armature="{}"><site site="a"/><site site="b"/></spatial></tendon>
    <actuator><motor tendon="t" armature="{}"/></actuator></mujoco>"""
  for tendon, actuator, demoted in (("0", "0", False), ("0", "0.4", True), ("0.2", "0", True)):
    mjm, m = oracle.models(xml.format(tendon, actuator))
    np.testing.assert_array_equal(m.body_simple, mjm.body_simple)
    assert list(mjm.body_simple) == ([1, 0, 0, 2] if demoted else [1, 1, 2, 2])


@pytest.mark.parametrize("from_mujoco", [False, True])
def test_forward_matches_mujoco_at_random_states(from_mujoco):
  """qM (only the entries of M's sparsity get the tendon term), its factor, the bias and the accelerations."""
  mjm, mjd, m, d = oracle.load_both(MODEL, from_mujoco=from_mujoco)
  oracle.check_forward_at_random_states(mjm, mjd, m, d, 3, 20, FIELDS, 1e-9)
  for _ in oracle.forward_states(mjm, mjd, m, d, 4, 10):
    for ours, theirs, name in zip(_dense_factor_ours(m, d.qLD), _dense_factor_mujoco(mjm, mjd), "LD"):
      oracle.assert_close(ours, theirs, 1e-9, f"qLD {name}")


def test_sibling_dofs_stay_uncoupled_in_m():
  """A tendon over dofs of two branches and two trees adds armature J_i J_j only where M has an entry (MuJoCo 4)."""
  mjm, mjd, m, d = oracle.load_both(MODEL)
  oracle.forward_both(mjm, mjd, m, d)
  full = np.zeros((m.nv, m.nv))
  physics.mj_fullM(m, d, full)
  expected = np.zeros((mjm.nv, mjm.nv))
  mujoco.mj_fullM(mjm, mjd, expected)
  h1, s1 = m.jnt_dofadr[m.joint("h1").id], m.jnt_dofadr[m.joint("s1").id]
  assert full[h1, s1] == 0.0 and expected[h1, s1] == 0.0  # dofs of sibling bodies
  oracle.assert_close(full, expected, 1e-12, "qM")


def test_energy_and_inverse_match_mujoco():
  mjm, mjd, m, d = oracle.load_both(MODEL)
  mjm.opt.enableflags |= int(mujoco.mjtEnableBit.mjENBL_ENERGY)
  m.opt.enableflags |= int(physics.mjtEnableBit.mjENBL_ENERGY)
  for _ in oracle.forward_states(mjm, mjd, m, d, 5, 10):
    oracle.assert_close(d.energy, mjd.energy, 1e-10, "energy")
    mujoco.mj_inverse(mjm, mjd)
    physics.mj_inverse(m, d)
    oracle.assert_close(d.qfrc_inverse, mjd.qfrc_inverse, 1e-9, "qfrc_inverse")


def test_inverse_fd_mass_derivative_matches_mujoco():
  """mjd_inverseFD's DmDq lays M out in MuJoCo 4's reduced rows, where the armature tendon's bodies are not simple."""
  from mjgym.physics import derivative  # pylint: disable=import-outside-toplevel
  mjm, mjd, m, d = oracle.load_both(MODEL)
  next(oracle.forward_states(mjm, mjd, m, d, 6, 1))
  d.qacc[:] = mjd.qacc
  outs = {}
  for lib, model, data, nm in ((mujoco, mjm, mjd, mjm.nC), (physics, m, d, len(derivative.mass_csr_index(m)))):
    mats = [np.zeros((model.nv, n)) for n in (model.nv, model.nv, model.nv, 0, 0, 0, nm)]
    lib.mjd_inverseFD(model, data, 1e-6, False, *mats[:3], None, None, None, mats[6])
    outs[lib] = mats
  for k, name in ((0, "DfDq"), (1, "DfDv"), (2, "DfDa"), (6, "DmDq")):
    oracle.assert_close(outs[physics][k], outs[mujoco][k], 1e-6, name)


@pytest.mark.parametrize("integrator", ["Euler", "implicit", "implicitfast", "RK4"])
def test_trajectory_matches_mujoco(integrator):
  """300 steps with contacts on the floor, controls on both actuators."""
  mjm, mjd, m, d = oracle.load_both(MODEL, integrator=integrator)
  rng = np.random.default_rng(7)
  oracle.random_state(mjm, mjd, rng, 0.5)
  mjd.qpos[:3] = (0.0, 0.0, 1.2)
  oracle.copy_state(mjd, d)
  for step in range(300):
    mjd.ctrl[:] = d.ctrl[:] = np.sin(0.05 * step + np.arange(mjm.nu))
    mujoco.mj_step(mjm, mjd)
    physics.mj_step(m, d)
    oracle.assert_close(d.qpos, mjd.qpos, 1e-8, f"{integrator} step {step}: qpos")
    oracle.assert_close(d.qvel, mjd.qvel, 1e-7, f"{integrator} step {step}: qvel")


_TENDON = ('<mujoco>\n<worldbody><body><joint name="j"/><geom name="g" size="0.1"/><site name="s"/>'
           '<site name="s2" pos="1 0 0"/></body><site name="w" pos="0 0 1"/></worldbody>\n<tendon>\n{}\n</tendon>\n'
           '{}</mujoco>')


@pytest.mark.parametrize("tendon,actuator,line,element,fragment", [
    ('<fixed armature="-1"><joint joint="j" coef="1"/></fixed>', "", 4, "fixed", "cannot be negative"),
    ('<spatial armature="1"><site site="w"/><geom geom="g"/><site site="s2"/></spatial>', "", 4, "spatial",
     "geom wrapping"),
    ('<spatial name="t"><site site="w"/><geom geom="g"/><site site="s2"/></spatial>',
     '<actuator>\n<motor tendon="t" armature="1"/>\n</actuator>\n', 7, "motor", "wraps geoms"),
])
def test_refused_tendon_armature(tmp_path, tendon, actuator, line, element, fragment):
  """Where MuJoCo refuses (negative, geom wrapping) or stops with an engine error (an actuator's armature on a
  wrapping tendon), the loader refuses with the place named."""
  assert_located_error(tmp_path, _TENDON.format(tendon, actuator), line, element, "armature", fragment)
