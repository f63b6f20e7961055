"""Flex elasticity (mjcf/flex_elastic.py, physics/flex.py's elastic): <elasticity> of 2-D flexes (membrane, bending)
and 3-D flexes (linear tetrahedra), compiled and simulated against MuJoCo.

Models (tests/models/flex/): flex_elastic_cloth.xml, a membrane-and-bending cloth falling on a sphere;
flex_elastic_box.xml, a tilted elastic block of 48 tetrahedra falling on a plane; flex_elastic_shell.xml, a
bending-only plate pinned along one side and held by edge equalities; flex_elastic_explicit.xml, an explicit <flex>
sheet and tetrahedron on user bodies (one vertex static); flex_elastic_curved.xml, a sheet curved at rest.
"""

import mujoco
import numpy as np
import pytest

from mjgym import physics
from mjgym.physics import batch
from mjgym.physics.mjcf.errors import MJCFError
from tests import oracle

FLEX_DIR = oracle.MODELS_DIR / "flex"
MODELS = ("flex_elastic_cloth.xml", "flex_elastic_box.xml", "flex_elastic_shell.xml", "flex_elastic_explicit.xml",
          "flex_elastic_curved.xml")
_NO_CONTACT = '<option><flag contact="disable"/></option>\n  <worldbody>'


def _xml(name, contacts=True, poisson=None):
  xml = (FLEX_DIR / name).read_text()
  if poisson is not None:
    for value in ("0.2", "0.25", "0.3"):
      xml = xml.replace(f'poisson="{value}"', f'poisson="{poisson}"')
  return xml if contacts else xml.replace("<worldbody>", _NO_CONTACT, 1)


@pytest.mark.parametrize("poisson", (None, 0.0, 0.45))
@pytest.mark.parametrize("name", MODELS)
def test_compiled_elasticity_matches_mujoco(name, poisson):
  """flex_stiffness, flex_bending (and their addresses and sizes), flex_edgeflap, flex_damping and every other
  field, to 1e-9, at the model's Poisson ratio and at two others (mu and lambda scale differently with it)."""
  xml = _xml(name, poisson=poisson)
  mjm, m = oracle.models(xml)
  assert mjm.nflexstiffness + mjm.nflexbending > 0
  if poisson is not None:
    assert f'poisson="{poisson}"' in xml
  assert (m.nflexstiffness, m.nflexbending) == (mjm.nflexstiffness, mjm.nflexbending)
  assert oracle.model_differences(mjm, m, 1e-9) == []


# Measured: qfrc_spring / qfrc_damper agree to 3e-14 relative or better (the block's; the sums run in another order
# than MuJoCo's); 1e-11 leaves room for other machines' rounding and none for a wrong term.
@pytest.mark.parametrize("name", MODELS)
def test_passive_forces_at_random_states_match_mujoco(name):
  """qfrc_spring, qfrc_damper and qfrc_passive at random deformed states with random velocities."""
  mjm, mjd, m, d = oracle.load_both(_xml(name, contacts=False))
  for _ in oracle.forward_states(mjm, mjd, m, d, seed=11, count=6, scale=0.05):
    assert np.abs(mjd.qfrc_spring).max() > 1e-3 and np.abs(mjd.qfrc_damper).max() > 1e-5
    for field in ("qfrc_spring", "qfrc_damper", "qfrc_passive"):
      oracle.assert_close(getattr(d, field), getattr(mjd, field), 1e-11, field)
    oracle.assert_close(d.qacc, mjd.qacc, 1e-9, "qacc")


@pytest.mark.parametrize("flag", ("spring", "damper"))
def test_disabled_springs_or_dampers_drop_their_part(flag):
  """<flag spring="disable"/> leaves the elastic damping, damper="disable" the elastic springs, as in MuJoCo."""
  xml = _xml("flex_elastic_box.xml").replace("<worldbody>", f'<option><flag {flag}="disable"/></option><worldbody>')
  mjm, mjd, m, d = oracle.load_both(xml)
  for _ in oracle.forward_states(mjm, mjd, m, d, seed=2, count=2, scale=0.05):
    kept = "qfrc_damper" if flag == "spring" else "qfrc_spring"
    assert np.abs(mjd.qfrc_passive).max() > 0
    oracle.assert_close(d.qfrc_passive, mjd.qfrc_passive, 1e-11, "qfrc_passive")
    oracle.assert_close(getattr(d, kept), getattr(mjd, kept), 1e-11, kept)


# (model, steps, qpos tolerance). Each step agrees with MuJoCo to rounding, and the trajectories stay within
# ~1e-15 of MuJoCo's over 300 steps (measured: cloth 8e-16 with 37 sphere contacts at the end, box 9e-16 with its
# plane contacts, shell 1e-16 with 40 edge-equality rows, explicit 3e-16, curved 7e-16). Contacts and the solver
# amplify rounding where an active set changes, so the tolerance leaves five orders of magnitude for other machines,
# and none for a wrong force.
TRAJECTORIES = [(name, 300, 1e-10) for name in MODELS]


@pytest.mark.parametrize("name, steps, tol", TRAJECTORIES)
def test_trajectory_matches_mujoco(name, steps, tol):
  """A draped cloth, a block landing on the floor and a sagging shell, stepped in both engines from the same random
  velocities."""
  mjm, mjd, m, d = oracle.load_both(_xml(name))
  mjd.qvel[:] = np.random.default_rng(7).normal(0.0, 0.1, mjm.nv)
  d.qvel[:] = mjd.qvel
  for _ in range(steps):
    mujoco.mj_step(mjm, mjd)
    physics.mj_step(m, d)
  assert np.ptp(mjd.flexedge_length - mjm.flexedge_length0) > 1e-4  # the flex did deform
  oracle.assert_close(d.qpos, mjd.qpos, tol, "qpos")
  oracle.assert_close(d.qvel, mjd.qvel, 100 * tol, "qvel")
  assert d.ncon == mjd.ncon
  oracle.assert_close(d.flexvert_xpos, mjd.flexvert_xpos, tol, "flexvert_xpos")


def test_rk4_trajectory_matches_mujoco():
  """The block under RK4 (elastic forces at each of its four stages), 100 steps; measured 1e-16 off MuJoCo."""
  xml = _xml("flex_elastic_box.xml").replace("<worldbody>", '<option integrator="RK4"/><worldbody>', 1)
  mjm, mjd, m, d = oracle.load_both(xml)
  mjd.qvel[:] = np.random.default_rng(3).normal(0.0, 0.1, mjm.nv)
  d.qvel[:] = mjd.qvel
  for _ in range(100):
    mujoco.mj_step(mjm, mjd)
    physics.mj_step(m, d)
  oracle.assert_close(d.qpos, mjd.qpos, 1e-10, "qpos")


def test_batch_equals_single_worlds_bitwise():
  """Elastic cloths on the sphere stepped in a batch of 4 worlds equal the same worlds stepped alone, bitwise."""
  m = physics.MjModel.from_xml_path(str(FLEX_DIR / "flex_elastic_cloth.xml"))
  qvel0 = np.random.default_rng(5).normal(0.0, 0.1, (4, m.nv))
  b = batch.MjDataBatch(m, 4)
  b.qvel[:] = qvel0
  b.step(150)
  for w in range(4):
    d = physics.MjData(m)
    d.qvel[:] = qvel0[w]
    physics.mj_step(m, d, 150)
    assert d.ncon > 0
    for field in ("qpos", "qvel", "qacc", "qfrc_passive"):
      assert np.array_equal(getattr(b, field)[w], getattr(d, field)), f"world {w} {field}"


_GRID = """<mujoco>{option}<worldbody>
<flexcomp name="f" type="grid" count="3 3 {nz}" spacing="0.1 0.1 0.1" dim="{dim}">
  <elasticity {elasticity}/><contact contype="0" conaffinity="0"/>
</flexcomp></worldbody></mujoco>"""


@pytest.mark.parametrize("dim, elasticity, option, message, attribute", [
    (2, 'young="1e4" elastic2d="both"', "", "requires positive thickness", "thickness"),
    (2, 'young="1e4" poisson="0.5" thickness="0.01" elastic2d="stretch"', "", r"Poisson ratio must be in \[0, 0.5\)",
     "poisson"),
    (3, 'young="1e4" poisson="-0.1"', "", r"Poisson ratio must be in \[0, 0.5\)", "poisson"),
    (3, 'young="1e4" thickness="0.01" elastic2d="bend"', "", "2d elasticity requires a 2d flex", "elastic2d"),
    (3, 'young="1e4"', '<option integrator="implicitfast"/>', "not integrated implicitly", "young"),
    (2, 'young="1e4" thickness="0.01" elastic2d="bend"', '<option integrator="implicit"/>',
     "not integrated implicitly", "young"),
])
def test_bad_elasticity_is_a_located_error(dim, elasticity, option, message, attribute):
  """What MuJoCo refuses (the implicit integrators at its first step, the rest when it compiles) is refused at
  load time, with the element and attribute."""
  xml = _GRID.format(option=option, nz=2 if dim == 3 else 1, dim=dim, elasticity=elasticity)
  with pytest.raises(Exception):
    mujoco.MjModel.from_xml_string(xml)
  with pytest.raises(MJCFError, match=message) as info:
    physics.MjModel.from_xml_string(xml)
  assert info.value.attribute == attribute
  assert info.value.line is not None


def test_membrane_off_under_implicit_loads_as_in_mujoco():
  """young without elastic2d on a 2-D flex stores zero stiffness and makes no force: MuJoCo loads it under
  implicitfast, and so does mjgym, with the same (zero) stiffness."""
  xml = _GRID.format(option='<option integrator="implicitfast"/>', nz=1, dim=2,
                     elasticity='young="1e4" damping="0.01"')
  mjm, m = oracle.models(xml)
  assert m.nflexstiffness == mjm.nflexstiffness > 0
  assert oracle.model_differences(mjm, m, 1e-9) == []


def test_elasticity_on_moving_vertex_bodies_is_refused():
  """MuJoCo applies elastic forces on vertices of other bodies through their Jacobians: mjgym only builds flexcomp
  vertices (three slide joints on a static parent) and static vertices, and refuses the rest."""
  xml = """<mujoco><worldbody>
  <body name="a"><freejoint/><geom size="0.01"/></body>
  <body name="b" pos="0.1 0 0"><freejoint/><geom size="0.01"/></body>
  <body name="c" pos="0 0.1 0"><freejoint/><geom size="0.01"/></body></worldbody>
  <deformable><flex name="f" dim="2" body="a b c" element="0 1 2">
    <elasticity young="1e4" thickness="0.01" elastic2d="stretch"/><contact contype="0" conaffinity="0"/>
  </flex></deformable></mujoco>"""
  mujoco.MjModel.from_xml_string(xml)
  with pytest.raises(MJCFError, match="flex elasticity on body 'a'") as info:
    physics.MjModel.from_xml_string(xml)
  assert info.value.attribute == "young"


@pytest.mark.parametrize("attribute", ("yield", "shear"))
def test_plasticity_and_cable_attributes_are_unsupported(attribute):
  """MuJoCo 4's plastic yield strains and 1-D cable shear modulus load there; mjgym names them as unsupported."""
  xml = _GRID.format(option="", nz=2, dim=3, elasticity=f'young="1e4" {attribute}="0.01"')
  mujoco.MjModel.from_xml_string(xml)
  with pytest.raises(MJCFError, match="not supported") as info:
    physics.MjModel.from_xml_string(xml)
  assert info.value.attribute == attribute


def test_rigid_elastic_flex_makes_no_force():
  """A flex whose vertices all sit on one body is rigid: MuJoCo compiles its elasticity, applies none and allows the
  implicit integrators; mjgym does the same (its moving body would otherwise be refused)."""
  xml = """<mujoco><option integrator="implicitfast"/><worldbody>
  <body name="b" pos="0 0 1"><freejoint/><geom size="0.05"/></body></worldbody>
  <deformable><flex name="f" dim="2" body="b" vertex="0 0 0 0.1 0 0 0 0.1 0" element="0 1 2">
    <elasticity young="1e4" thickness="0.01" elastic2d="both"/><contact contype="0" conaffinity="0"/>
  </flex></deformable></mujoco>"""
  mjm, mjd, m, d = oracle.load_both(xml)
  assert m.flex_rigid[0] and m.nflexbending == mjm.nflexbending > 0
  assert oracle.model_differences(mjm, m, 1e-9) == []
  mjd.qvel[:] = d.qvel[:] = 0.3
  for _ in range(50):
    mujoco.mj_step(mjm, mjd)
    physics.mj_step(m, d)
  assert not np.any(d.qfrc_spring)
  oracle.assert_close(d.qpos, mjd.qpos, 1e-12, "qpos")
