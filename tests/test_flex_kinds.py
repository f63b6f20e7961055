"""The generated <flexcomp> kinds beyond grid and direct (mjcf/flexshapes.py, mjcf/flex.py): box, cylinder and
ellipsoid (dim 1 chains, dim 2 open surfaces, dim 3 volumes around a centre point), square, disc, circle and mesh
(from tests/models/flex/flex_pebble.obj), and the vertex joints of dof="radial" and dof="2d": compiled and stepped
against MuJoCo 4.

Expected values all come from MuJoCo: the compiled models are compared field by field (every field MuJoCo has, the
generated vertex bodies, joints, flex_vert, flex_elem and the edge equalities included), and the trajectories step by
step with contacts on.
"""

import mujoco
import numpy as np
import pytest

from mjgym import physics
from mjgym.physics.mjcf.errors import MJCFError
from tests import oracle

FLEX_DIR = oracle.MODELS_DIR / "flex"
KIND_MODELS = ("flex_kinds_box.xml", "flex_kinds_shell.xml", "flex_kinds_sheets.xml", "flex_kinds_mesh.xml",
               "flex_kinds_radial.xml")


@pytest.mark.parametrize("name", KIND_MODELS)
def test_compiled_model_matches_mujoco(name):
  """Every model field MuJoCo has, to 1e-9 (the compiler's arithmetic is MuJoCo's up to the order of a few sums:
  bounding boxes, inverse weights)."""
  mjm = mujoco.MjModel.from_xml_path(str(FLEX_DIR / name))
  m = physics.MjModel.from_xml_path(str(FLEX_DIR / name))
  assert m.nflex == mjm.nflex > 0
  assert oracle.model_differences(mjm, m, 1e-9) == []
  np.testing.assert_array_equal(m.flex_elem, mjm.flex_elem)
  np.testing.assert_array_equal(m.flex_vertbodyid, mjm.flex_vertbodyid)


_GENERATED = """<mujoco><option><flag contact="disable"/></option><worldbody><body name="parent" pos="0 0.1 0.3">
<flexcomp name="f" type="{type}" count="{count}" spacing="0.1 0.12 0.1" pos="0.05 0 0.7" dim="{dim}" radius="0.01"
          axisangle="1 0 0 20" dof="{dof}" scale="1 1.5 0.8"><edge equality="true"/><contact selfcollide="none"/>
</flexcomp></body></worldbody></mujoco>"""


@pytest.mark.parametrize("ftype, dim, count, dof", [
    *[(t, dim, "4 3 3", "full") for t in ("box", "cylinder", "ellipsoid") for dim in (1, 2, 3)],
    ("box", 3, "2 2 2", "full"), ("cylinder", 2, "5 5 2", "full"), ("ellipsoid", 3, "5 5 5", "full"),
    ("square", 2, "5 4 1", "full"), ("disc", 2, "5 4 1", "full"), ("disc", 2, "6 6 1", "full"),
    ("square", 3, "4 4 1", "full"),  # square and disc are always 2-D, whatever dim says
    ("circle", 1, "9 1 1", "full"), ("circle", 2, "4 3 1", "full"), ("circle", 3, "3 3 3", "full"),
    ("box", 3, "4 3 3", "radial"), ("ellipsoid", 3, "4 4 4", "radial"), ("grid", 3, "3 3 3", "radial"),
    ("disc", 2, "5 5 1", "radial"), ("circle", 1, "9 1 1", "radial"),
    ("box", 3, "4 3 3", "2d"), ("grid", 2, "4 4 1", "2d"),
])
def test_generated_flexcomp_matches_mujoco(ftype, dim, count, dof):
  """The points, elements (and so edges, shells, equality rows), vertex bodies and joints of each generated kind,
  dim and dof, posed in a parent body, to 1e-9 on every field; element and vertex-body ids exactly."""
  xml = _GENERATED.format(type=ftype, dim=dim, count=count, dof=dof)
  mjm = mujoco.MjModel.from_xml_string(xml)
  m = physics.MjModel.from_xml_string(xml)
  assert oracle.model_differences(mjm, m, 1e-9) == []
  np.testing.assert_array_equal(m.flex_elem, mjm.flex_elem)
  np.testing.assert_array_equal(m.flex_vertbodyid, mjm.flex_vertbodyid)


@pytest.mark.parametrize("file", ("flex_pebble.obj", "flex_pebble.stl"))
@pytest.mark.parametrize("dim, extra", [(1, ""), (2, ""), (2, 'scale="1 2 1"'), (3, 'origin="0.001 0.002 0"'),
                                        (3, 'origin="0 0 0" scale="2 1 1"'), (3, 'origin="0.2 0 0"')])
def test_mesh_flexcomp_matches_mujoco(file, dim, extra):
  """type="mesh": the file's vertices (float32, as MuJoCo stores them; an STL's repeated corners merged) and
  triangles (dim 2), their first edges (dim 1, unused vertices dropped), or tetrahedra from the origin to the
  triangles it sees from inside (dim 3; an origin outside the surface drops the triangles facing it); the scale
  applies after. 1e-9 on every field."""
  xml = f"""<mujoco><compiler meshdir="{FLEX_DIR}"/><option><flag contact="disable"/></option><worldbody>
  <body name="p" pos="0 0 1"><flexcomp name="f" type="mesh" file="{file}" dim="{dim}" radius=".002"
  euler="10 20 0" pos=".1 0 0" {extra}><edge equality="true"/><contact selfcollide="none"/></flexcomp></body>
  </worldbody></mujoco>"""
  mjm = mujoco.MjModel.from_xml_string(xml)
  m = physics.MjModel.from_xml_string(xml)
  assert oracle.model_differences(mjm, m, 1e-9) == []
  np.testing.assert_array_equal(m.flex_elem, mjm.flex_elem)


@pytest.mark.parametrize("name", KIND_MODELS)
def test_trajectory_with_contacts_matches_mujoco(name):
  """300 steps with contacts on (plane-vertex and sphere-element contacts): the same contacts in the same order
  (geom, flex, elem, vert ids exact) at every step, and the state to 1e-10. The arithmetic is MuJoCo's up to the order
  of a few sums (measured: qpos within 2e-15 of MuJoCo's after 300 steps on all five models); 1e-10 leaves room for
  other machines' rounding and none for a wrong force or a missing contact."""
  mjm = mujoco.MjModel.from_xml_path(str(FLEX_DIR / name))
  mjd = mujoco.MjData(mjm)
  m = physics.MjModel.from_xml_path(str(FLEX_DIR / name))
  d = physics.MjData(m)
  touched = 0
  for step in range(300):
    mujoco.mj_step(mjm, mjd)
    physics.mj_step(m, d)
    assert d.ncon == mjd.ncon, step
    for field in ("geom", "flex", "elem", "vert"):
      np.testing.assert_array_equal(getattr(d.contact, field), getattr(mjd.contact, field), err_msg=f"{step} {field}")
    np.testing.assert_allclose(d.qpos, mjd.qpos, rtol=0, atol=1e-10, err_msg=str(step))
    touched += mjd.ncon
  assert touched > 500  # the flexes did land
  assert np.ptp(mjd.flexedge_length - mjm.flexedge_length0) > 1e-4  # and their edges worked
  np.testing.assert_allclose(d.flexvert_xpos, mjd.flexvert_xpos, rtol=0, atol=1e-10)


_BAD = """<mujoco><compiler meshdir="{dir}"/><worldbody><body name="b">{body}</body></worldbody></mujoco>"""


@pytest.mark.parametrize("body, message, attribute", [
    ('<flexcomp name="f" type="box" count="3 3 1" dim="2"/>', "count must be at least 2 for type 'box'", "count"),
    ('<flexcomp name="f" type="mesh" dim="2"/>', "type 'mesh' needs 'file'", "file"),
    ('<flexcomp name="f" type="mesh" dim="3" file="flex_pebble.obj"/>', "origin must be specified", "origin"),
    ('<flexcomp name="f" type="mesh" dim="2" file="nothere.obj"/>', "cannot read file", "file"),
    ('<flexcomp name="f" type="mesh" dim="2" file="pebble.msh"/>', "legacy MSH files are not supported", "file"),
    ('<flexcomp name="f" type="box" count="3 3 3" dof="trilinear"/>', "dof='trilinear' is not supported", "dof"),
    ('<flexcomp name="f" type="box" count="3 3 3" dof="quadratic"/>', "dof='quadratic' is not supported", "dof"),
    ('<flexcomp name="f" type="box" dim="3" count="3 3 1" dof="radial"/>', "count must be at least 2", "count"),
    ('<flexcomp name="f" type="box" count="3 3 3" spacing="0.01 0.1 0.1" radius="0.01"/>', "spacing must be larger",
     "spacing"),
    ('<flexcomp name="f" type="disc" count="5 5 1"><pin grid="2 2"/></flexcomp>',
     "pin grid and gridrange need a grid flexcomp", "grid"),
])
def test_bad_flexcomp_kind_is_a_located_error(body, message, attribute):
  with pytest.raises(MJCFError, match=message) as info:
    physics.MjModel.from_xml_string(_BAD.format(dir=FLEX_DIR, body=body))
  assert info.value.attribute == attribute
  assert info.value.line is not None
