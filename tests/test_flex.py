"""Flexes (mjcf/flex.py, physics/flex.py, collision/flex.py): <flexcomp> grids, explicit <deformable><flex> and their
edge equalities, and their contacts with planes (vertices) and spheres (elements), compiled and run against MuJoCo.

Some models in tests/models/flex/ touch geoms mjgym cannot collide with a flex yet (boxes, capsules) or other flexes:
the loader refuses such a flex unless contacts are disabled, so the tests that compare the compiled model and the
contact-free dynamics load every model with <flag contact="disable"/> in both engines; test_flex_contacts_match_mujoco
runs the ones it can with contacts.
"""

import mujoco
import numpy as np
import pytest

from mjgym import physics
from mjgym.physics.mjcf.errors import MJCFError
from tests import oracle

FLEX_DIR = oracle.MODELS_DIR / "flex"
FLEX_MODELS = ("flex_rope.xml", "flex_cloth.xml", "flex_box3d.xml", "flex_pinned_cloth.xml", "flex_explicit.xml",
               "flex_mixed.xml")
_NO_CONTACT = '<option><flag contact="disable"/></option>\n  <worldbody>'


def _xml(name):
  return (FLEX_DIR / name).read_text().replace("<worldbody>", _NO_CONTACT, 1)


@pytest.mark.parametrize("name", FLEX_MODELS)
def test_compiled_model_matches_mujoco(name):
  """Every model field MuJoCo has (flex_*, flexedge_*, the vertex bodies and joints, equalities), to 1e-9: the
  compiler's arithmetic is MuJoCo's up to the order of a few sums (bounding boxes, inverse weights)."""
  xml = _xml(name)
  mjm, m = oracle.models(xml)
  assert m.nflex == mjm.nflex > 0
  assert oracle.model_differences(mjm, m, 1e-9) == []
  names = [mujoco.mj_id2name(mjm, mujoco.mjtObj.mjOBJ_FLEX, i) for i in range(mjm.nflex)]
  assert [m.flex(i).name for i in range(m.nflex)] == names
  assert physics.mj_name2id(m, physics.mjtObj.mjOBJ_FLEX, names[-1]) == m.nflex - 1


# Rows, forces and accelerations agree to rounding (measured: qacc 3e-14 relative, efc_aref 1e-15); the
# tolerances leave a few orders of magnitude for other machines' rounding.
_FORWARD_FIELDS = {"flexvert_xpos": 1e-12, "flexedge_length": 1e-12, "flexedge_J": 1e-12,
                   "flexedge_velocity": 1e-12, "qfrc_passive": 1e-10, "qfrc_bias": 1e-10, "efc_J": 1e-12,
                   "efc_pos": 1e-12, "efc_R": 1e-10, "efc_aref": 1e-12, "efc_force": 1e-10, "qacc": 1e-10}


@pytest.mark.parametrize("name", FLEX_MODELS)
def test_forward_at_random_states_matches_mujoco(name):
  """mj_forward at random states: vertex positions, edge lengths, Jacobians and velocities, passive edge forces,
  the flex equality rows and the constrained acceleration."""
  mjm, mjd, m, d = oracle.load_both(_xml(name))
  for _ in oracle.forward_states(mjm, mjd, m, d, seed=3, count=5, scale=0.05):
    assert d.nefc == mjd.nefc
    for field, tol in _FORWARD_FIELDS.items():
      if field == "efc_force" and name == "flex_mixed.xml":
        # the connect and the 'web' flex pull on the same arm dofs: nearly redundant rows make the split of the
        # force between them ill conditioned (measured 7e-5 relative), while qacc agrees to 1e-12
        tol = 1e-3
      if field.startswith("efc_"):
        n = mjd.nefc
        theirs = getattr(mjd, field)
        theirs = (theirs.reshape(n, m.nv) if mujoco.mj_isSparse(mjm) == 0 else _dense_efc_j(mjm, mjd)
                  ) if field == "efc_J" else theirs[:n]
        oracle.assert_close(getattr(d, field)[:n], theirs, tol, field)
      else:
        oracle.assert_close(getattr(d, field), getattr(mjd, field), tol, field)


def _dense_efc_j(mjm, mjd):
  out = np.zeros((mjd.nefc, mjm.nv))
  for i in range(mjd.nefc):
    adr, nnz = mjd.efc_J_rowadr[i], mjd.efc_J_rownnz[i]
    out[i, mjd.efc_J_colind[adr:adr + nnz]] = mjd.efc_J[adr:adr + nnz]
  return out


def test_edge_stiffness_passive_force_matches_mujoco():
  """The rope of flex_explicit.xml has edge stiffness and damping: its spring and damper forces alone."""
  mjm, mjd, m, d = oracle.load_both(_xml("flex_explicit.xml"))
  rng = np.random.default_rng(5)
  for _ in range(5):
    oracle.random_state(mjm, mjd, rng, 0.1)
    oracle.forward_both(mjm, mjd, m, d)
    for field in ("qfrc_spring", "qfrc_damper", "qfrc_passive"):
      oracle.assert_close(getattr(d, field), getattr(mjd, field), 1e-12, field)
    assert np.any(d.qfrc_spring != 0)


@pytest.mark.parametrize("name", ("flex_rope.xml", "flex_cloth.xml", "flex_pinned_cloth.xml"))
def test_trajectory_without_contacts_matches_mujoco(name):
  """300 steps of a falling (or hanging) flex held by its edge equalities, contacts disabled, from random vertex
  velocities (so that the edges stretch and the constraints work). The solve differs from MuJoCo's by rounding
  (~1e-14 relative in qacc, measured), which grows along the trajectory: 1e-8 in qpos after 300 steps leaves
  room for that and none for a wrong force."""
  mjm, mjd, m, d = oracle.load_both(_xml(name))
  mjd.qvel[:] = np.random.default_rng(7).normal(0.0, 0.3, mjm.nv)
  d.qvel[:] = mjd.qvel
  for _ in range(300):
    mujoco.mj_step(mjm, mjd)
    physics.mj_step(m, d)
  assert np.ptp(mjd.flexedge_length - mjm.flexedge_length0) > 1e-4  # the edges did stretch
  oracle.assert_close(d.qpos, mjd.qpos, 1e-8, "qpos")
  oracle.assert_close(d.flexvert_xpos, mjd.flexvert_xpos, 1e-8, "flexvert_xpos")


_BASE = """<mujoco><option><flag contact="disable"/></option><worldbody>
<body name="b"><freejoint/><geom size="0.1"/></body>
{}
</worldbody>{}</mujoco>"""


@pytest.mark.parametrize("body, extra, message, attribute", [
    ('<flexcomp name="f" dim="1" count="3 1 1" dof="trilinear"/>', "", "dof='trilinear' is not supported", "dof"),
    ('<flexcomp name="f" type="gmsh" count="3 3 3"/>', "", "type 'gmsh' needs 'file'", "file"),
    ('<flexcomp name="f" dim="2" count="3 3 1" spacing="0.01 0.01 0.01" radius="0.01"/>', "",
     "spacing must be larger", "spacing"),
    ('<flexcomp name="f" dim="1" count="3 1 1"><edge equality="vert"/></flexcomp>', "",
     "equality='vert' is not supported", "equality"),
    ('<flexcomp name="f" dim="2" count="3 3 1"><edge stiffness="3"/></flexcomp>', "",
     "edge stiffness is only available for dim=1", "stiffness"),
    ('<flexcomp name="f" dim="1" count="3 1 1"><edge equality="true" stiffness="3"/></flexcomp>', "",
     "both edge equality constraints and edge stiffness", "stiffness"),
    ('<flexcomp name="f" dim="1" count="3 1 1"><pin id="7"/></flexcomp>', "", "pin id 7 out of range", "id"),
    ('<flexcomp name="f" dim="1" count="3 1 1"><elasticity young="1e4"/></flexcomp>', "", "not supported",
     "young"),
    ("", '<deformable><flex name="f" dim="1" body="b nothere" element="0 1"/></deformable>', "unknown body",
     "body"),
    ("", '<deformable><flex name="f" dim="2" body="b world b" vertex="0 0 0 1 0 0 0 1 0" element="0 1 1"/>'
     '</deformable>', "repeated vertex", "element"),
    ("", '<equality><flex flex="nothere"/></equality>', "unknown flex 'nothere'", "flex"),
])
def test_bad_flex_is_a_located_error(body, extra, message, attribute):
  with pytest.raises(MJCFError, match=message) as info:
    physics.MjModel.from_xml_string(_BASE.format(body, extra))
  assert info.value.attribute == attribute
  assert info.value.line is not None


def test_colliding_flex_is_refused():
  """Flex contacts with boxes are not modelled: a flex that can touch one is an error naming the flex and the
  geom."""
  base = _BASE.replace('<option><flag contact="disable"/></option>', "")
  base = base.replace('<geom size="0.1"', '<geom type="box" size="0.1 0.1 0.1"')
  xml = base.format('<flexcomp name="rope" dim="1" count="3 1 1"/>', "")
  with pytest.raises(MJCFError, match="flex 'rope' can collide with geom 0 .*only with planes on bodies without"):
    physics.MjModel.from_xml_string(xml)
  quiet = xml.replace('count="3 1 1"/>', 'count="3 1 1"><contact contype="0" conaffinity="0"/></flexcomp>')
  assert physics.MjModel.from_xml_string(quiet).nflex == 1


def test_flexcomp_elsewhere_is_unsupported():
  xml = _BASE.format('<replicate count="2" offset="1 0 0"><flexcomp name="f" dim="1" count="3 1 1"/></replicate>',
                     "")
  with pytest.raises(MJCFError, match="<flexcomp> inside <replicate> is not supported"):
    physics.MjModel.from_xml_string(xml)


def test_model_without_flex_has_no_flex_work():
  """nflex == 0: the flex fields are empty and the stages skip flexes entirely (forward.py, passive.py)."""
  m = physics.MjModel.from_xml_string(_BASE.format("", ""))
  assert m.nflex == m.nflexvert == m.nflexedge == m.nJfe == 0


def test_renderer_draws_flex_edges():
  """Flex edges are drawn as capsules of the flex's radius in its colour; segmentation names the flex (mjOBJ_FLEX);
  flexgroup hides them."""
  m = physics.MjModel.from_xml_string(_xml("flex_pinned_cloth.xml"))
  d = physics.MjData(m)
  physics.mj_forward(m, d)
  with physics.Renderer(m, 120, 160) as renderer:
    renderer.update_scene(d)
    renderer.enable_segmentation_rendering()
    seg = renderer.render()
    flex_pixels = seg[..., 1] == int(mujoco.mjtObj.mjOBJ_FLEX)
    assert flex_pixels.sum() > 50
    assert set(np.unique(seg[..., 0][flex_pixels])) == {0, 1}  # both flexes
    option = physics.MjvOption()
    option.flexgroup[:] = 0
    renderer.update_scene(d, scene_option=option)
    assert not np.any(renderer.render()[..., 1] == int(mujoco.mjtObj.mjOBJ_FLEX))


_CONTACT_IDS = ("geom", "flex", "elem", "vert", "dim", "exclude", "efc_address")
_CONTACT_VALUES = ("dist", "pos", "frame", "includemargin", "friction", "solref", "solreffriction", "solimp", "mu")


def _assert_contacts_match(d, mjd, step):
  """The same contacts in the same order: ids exact, values to 1e-12."""
  assert d.ncon == mjd.ncon, step
  for field in _CONTACT_IDS:
    np.testing.assert_array_equal(getattr(d.contact, field), getattr(mjd.contact, field), err_msg=f"{step} {field}")
  for field in _CONTACT_VALUES:
    np.testing.assert_allclose(getattr(d.contact, field), getattr(mjd.contact, field), rtol=0, atol=1e-12,
                               err_msg=f"{step} {field}")


@pytest.mark.parametrize("name", ("flex_rope_plane.xml", "flex_cloth_plane.xml", "flex_box3d.xml", "flex_rope.xml",
                                  "flex_cloth.xml", "flex_rope_capsule.xml", "flex_hammock.xml", "flex_cloth_box.xml"))
def test_flex_contacts_match_mujoco(name):
  """Plane-vertex contacts: a rope on a tilted plane (equal priorities: mixed parameters, a margin and a gap), a cloth
  beside a box on another (the flex's priority sets condim 4 and friction) and a 3-D block; sphere-element contacts:
  a rope (capsule elements) and a cloth (triangles) falling on a ball above a floor; capsule-segment contacts: ropes
  across and along capsules (nearly parallel segments: two contacts each); moving geoms: a free ball in a pinned
  cloth and a free capsule on a pinned rope; box-triangle contacts (midphase disabled): a cloth on a turned box. For
  400 steps, at every step: the same contacts in the same order (geom, flex, elem, vert ids exact), their values,
  the constraint forces, cfrc_ext and the state. Tolerance 1e-12 on contacts and 1e-10 on forces and state: the
  arithmetic is MuJoCo's up to the order of a few sums and the element weights (measured: 2e-14 on qpos, 2e-13 on
  efc_force, the first impacts the largest)."""
  xml = (FLEX_DIR / name).read_text()
  mjm, mjd, m, d = oracle.load_both(xml)
  touched = 0
  for step in range(400):
    mujoco.mj_step(mjm, mjd)
    physics.mj_step(m, d)
    mujoco.mj_rnePostConstraint(mjm, mjd)
    physics.mj_rnePostConstraint(m, d)
    _assert_contacts_match(d, mjd, step)
    assert d.nefc == mjd.nefc, step
    np.testing.assert_allclose(d.efc_force[:d.nefc], mjd.efc_force[:mjd.nefc], rtol=0, atol=1e-10, err_msg=str(step))
    np.testing.assert_allclose(d.cfrc_ext, mjd.cfrc_ext, rtol=0, atol=1e-10, err_msg=str(step))
    np.testing.assert_allclose(d.qpos, mjd.qpos, rtol=0, atol=1e-10, err_msg=str(step))
    np.testing.assert_allclose(d.qvel, mjd.qvel, rtol=0, atol=1e-10, err_msg=str(step))
    touched += int(np.sum(mjd.contact.flex[:, 1] >= 0))
  assert touched > 1000  # the flex lay on the plane or the ball for most of the run


def test_geom_contacts_name_no_flex():
  """Geom-geom contacts have flex, elem and vert -1 on both sides, as MuJoCo's do (here a ball on a floor)."""
  xml = """<mujoco><worldbody><geom type="plane" size="1 1 .1"/>
  <body pos="0 0 .09"><freejoint/><geom size=".1"/></body></worldbody></mujoco>"""
  mjm, mjd, m, d = oracle.load_both(xml)
  mujoco.mj_forward(mjm, mjd)
  physics.mj_forward(m, d)
  assert d.ncon == mjd.ncon == 1
  for field in ("geom", "flex", "elem", "vert"):
    np.testing.assert_array_equal(getattr(d.contact, field), getattr(mjd.contact, field))


_PLAIN_CONTACT = '<contact contype="2" conaffinity="2" selfcollide="none"/>'


@pytest.mark.parametrize("body, message", [
    ('<geom type="box" size=".1 .1 .1" pos="0 1 0"/><flexcomp name="cloth" dim="2" count="3 3 1" pos="0 0 1">'
     '<contact selfcollide="none"/></flexcomp>', "box-flex contacts are supported only with <flag midphase"),
    ('<geom type="box" size=".1 .1 .1" pos="0 1 0"/>'
     '<flexcomp name="rope" dim="1" count="3 1 1">'
     '<contact selfcollide="none"/></flexcomp>', "flex 'rope' can collide with geom 1"),
    ('<flexcomp name="a" dim="1" count="3 1 1" pos="0 0 1">' + _PLAIN_CONTACT + '</flexcomp>'
     '<flexcomp name="b" dim="1" count="3 1 1" pos="0 0 2">' + _PLAIN_CONTACT + '</flexcomp>',
     "flex 'b' can collide with flex 'a'"),
    ('<body pos="0 0 1"><freejoint/><geom type="sphere" size=".1" contype="2"/></body>'
     '<flexcomp name="box" type="grid" dim="3" count="2 2 2">' + _PLAIN_CONTACT + '</flexcomp>',
     "flex 'box' can collide with geom 1"),
])
def test_unsupported_flex_contacts_are_refused(body, message):
  """Flex contacts with boxes (unless midphase is disabled), with 3-D flexes' elements (tetrahedra) and between
  flexes are not modelled."""
  xml = """<mujoco><worldbody><geom type="plane" size="1 1 .1" contype="1" conaffinity="1"/>{}</worldbody>
  </mujoco>""".format(body)
  with pytest.raises(MJCFError, match=message):
    physics.MjModel.from_xml_string(xml)


def test_many_flex_contacts_fit_in_data():
  """Data holds every geom-flex contact a model can make (mjcf/options.py counts a contact per vertex for each plane
  and per element for each sphere a flex can touch): a 9x9 cloth on a ball over a floor and a rope on the floor make
  more contacts than the geoms alone would reserve room for, and all of MuJoCo's (ids exact, state to 1e-10)."""
  xml = """<mujoco><worldbody><geom type="plane" size="2 2 .1" contype="3" conaffinity="3"/>
  <geom type="sphere" size="0.2" pos="0 0 0.2"/>
  <flexcomp name="cloth" type="grid" count="9 9 1" spacing="0.06 0.06 0.06" pos="0 0 0.6" euler="0 0 15"
            radius="0.008" dim="2" mass="0.3"><edge equality="true"/><contact selfcollide="none"/></flexcomp>
  <flexcomp name="rope" type="grid" count="16 1 1" spacing="0.04 0.04 0.04" pos="0.55 0 0.4" euler="0 20 0"
            radius="0.012" dim="1" mass="0.2"><edge equality="true"/>
            <contact contype="2" conaffinity="2" selfcollide="none"/></flexcomp></worldbody></mujoco>"""
  mjm, mjd, m, d = oracle.load_both(xml)
  most = 0
  for step in range(300):
    mujoco.mj_step(mjm, mjd)
    physics.mj_step(m, d)
    assert d.ncon == mjd.ncon, step
    most = max(most, d.ncon)
  assert most > 80 and d.warning.number[int(mujoco.mjtWarning.mjWARN_CONTACTFULL)] == 0
  for field in ("geom", "flex", "elem", "vert"):
    np.testing.assert_array_equal(getattr(d.contact, field), getattr(mjd.contact, field))
  np.testing.assert_allclose(d.qpos, mjd.qpos, rtol=0, atol=1e-10)


def test_flex_contacts_under_override_match_mujoco():
  """<flag override="enable"/>: the global margin, solref, solimp and friction replace the geom-flex pair's (the
  rope on a plane and on a capsule, 300 steps; ids exact, values to 1e-12, state to 1e-10 as above)."""
  xml = (FLEX_DIR / "flex_rope_capsule.xml").read_text().replace(
      '<option timestep="0.002"/>',
      '<option timestep="0.002" o_margin="0.003" o_solref="0.02 0.8" o_solimp="0.8 0.9 0.002 0.5 2" '
      'o_friction="0.4 0.4 0.01 0.001 0.001"><flag override="enable"/></option>')
  mjm, mjd, m, d = oracle.load_both(xml)
  for step in range(300):
    mujoco.mj_step(mjm, mjd)
    physics.mj_step(m, d)
    _assert_contacts_match(d, mjd, step)
  assert mjd.ncon > 0 and np.all(mjd.contact.includemargin == 0.003)
  np.testing.assert_allclose(d.qpos, mjd.qpos, rtol=0, atol=1e-10)


def test_contact_sensors_see_flex_contacts_as_mujoco():
  """Contact sensors on a geom count its flex contacts (the flex side a vertex or element body): the floor's and the
  capsule's sensors under the ropes, 400 steps, to 1e-9 (measured: 1e-13, the forces' rounding)."""
  xml = (FLEX_DIR / "flex_rope_capsule.xml").read_text().replace("</worldbody>", """</worldbody>
  <sensor><contact geom1="floor" data="found force dist" num="3" reduce="mindist"/>
  <contact geom1="bar" data="found force normal" num="2" reduce="maxforce"/></sensor>""")
  mjm, mjd, m, d = oracle.load_both(xml)
  found = 0
  for step in range(400):
    mujoco.mj_step(mjm, mjd)
    physics.mj_step(m, d)
    np.testing.assert_allclose(d.sensordata, mjd.sensordata, rtol=0, atol=1e-9, err_msg=str(step))
    found += int(mjd.sensordata[0] > 0) + int(mjd.sensordata[mjm.sensor_adr[1]] > 0)
  assert found > 100
