"""The generated <flexcomp> kinds beyond grid and direct (mjcf/flexshapes.py, mjcf/flex.py): box, cylinder and
ellipsoid (dim 1 chains, dim 2 open surfaces, dim 3 volumes around a centre point), square, disc, circle, mesh (from
tests/models/flex/flex_pebble.obj and .stl) and gmsh (ASCII 4.1 and 2.2), the vertex joints of dof="radial" and
dof="2d", the material and texture fields, and flexcomps in frames: compiled and stepped against MuJoCo 4.

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
    ("box", 3, "2 2 2", "full"), ("box", 1, "2 2 2", "full"), ("ellipsoid", 2, "2 2 2", "full"),
    ("cylinder", 2, "5 5 2", "full"), ("ellipsoid", 3, "5 5 5", "full"),
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
    ('<flexcomp name="f" type="box" count="3 3 1" dim="2"/>', "no elements were created in box", "count"),
    ('<flexcomp name="f" type="ellipsoid" count="1 3 3" dim="3"/>', "no elements were created in box", "count"),
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


_TEXTURED = """<mujoco><compiler meshdir="{dir}"/><option><flag contact="disable"/></option>
<asset><material name="m0"/><material name="m1"/></asset><worldbody>{body}</worldbody>{extra}</mujoco>"""
_THREE_BODIES = """<body name="a"><freejoint/><geom size=".1"/></body><body name="b" pos="1 0 0"><freejoint/>
<geom size=".1"/></body><body name="c" pos="0 1 0"><freejoint/><geom size=".1"/></body>"""


def _textured_kind(ftype, dim, count):
  return (f'<flexcomp name="c" type="{ftype}" count="{count}" spacing=".1 .1 .1" dim="{dim}" material="m1">'
          '<contact selfcollide="none"/></flexcomp>'
          f'<flexcomp name="d" type="{ftype}" count="{count}" spacing=".1 .1 .1" dim="{dim}" pos="1 0 0">'
          '<contact selfcollide="none"/></flexcomp>'), ""


@pytest.mark.parametrize("body, extra", [
    *[_textured_kind(*case) for case in (
        ("box", 2, "3 3 3"), ("box", 3, "3 4 3"), ("ellipsoid", 3, "3 3 3"), ("cylinder", 1, "3 3 3"),
        ("grid", 3, "3 3 2"), ("grid", 2, "3 4 1"), ("grid", 1, "3 1 1"), ("disc", 2, "3 3 1"),
        ("circle", 1, "5 1 1"), ("circle", 2, "5 3 1"), ("square", 2, "4 3 1"))],
    (_THREE_BODIES, '<deformable><flex name="f" dim="2" body="a b c" element="0 1 2" texcoord="0 0 1 0 0 1" '
     'material="m1"/><flex name="g" dim="2" body="a b c" element="0 1 2" texcoord="0 0 1 0 0 1 .5 .5" '
     'elemtexcoord="3 1 2"/><flex name="h" dim="1" body="a b c" element="0 1 1 2" material="m0"/></deformable>'),
    ('<flexcomp name="f" type="direct" dim="2" point="0 0 0 1 0 0 0 1 0 1 1 0 5 5 5" element="0 1 2 1 3 2" '
     'texcoord="0 0 1 0 0 1 1 1 .5 .5" material="m0"><contact selfcollide="none"/></flexcomp>'
     '<flexcomp name="g" type="grid" dim="2" count="3 3 1" spacing=".1 .1 .1" pos="2 0 0" '
     'texcoord="0 0 1 0 0 1 1 1 0 0 1 0 0 1 1 1 .5 .5"><contact selfcollide="none"/></flexcomp>', ""),
    ('<flexcomp name="f" type="mesh" file="flex_pebble_uv.obj" dim="2" material="m0" radius=".001">'
     '<contact selfcollide="none"/></flexcomp>', ""),
])
def test_texture_fields_match_mujoco(body, extra):
  """flex_matid (MuJoCo 4 keeps one an element), flex_texcoordadr, flex_texcoord and flex_elemtexcoord, and the
  interpolation fields of flexes without interpolation (no nodes, one cell, no vertex cells): the texture coordinates
  MuJoCo generates for a flexcomp with a material (per kind and dim; none for dim 1 grids and circles), given ones
  (explicit flexes, direct and grid flexcomps, an unused direct point dropped with its coordinates), explicit
  elemtexcoord, and an OBJ file's own (with a seam: a vertex with two texture coordinates). Every field to 1e-9."""
  xml = _TEXTURED.format(dir=FLEX_DIR, body=body, extra=extra)
  mjm = mujoco.MjModel.from_xml_string(xml)
  m = physics.MjModel.from_xml_string(xml)
  assert oracle.model_differences(mjm, m, 1e-9) == []
  for field in ("flex_matid", "flex_texcoordadr", "flex_elemtexcoord", "flex_cellnum", "flex_vertcell"):
    np.testing.assert_array_equal(getattr(m, field), getattr(mjm, field), err_msg=field)
  assert m.nflextexcoord == mjm.nflextexcoord


@pytest.mark.parametrize("flexcomp", [
    '<flexcomp name="f" type="grid" dim="1" count="3 1 1" spacing=".1 .1 .1" pos="0.1 0 0"><pin id="0"/>'
    '<contact selfcollide="none"/></flexcomp>',
    '<flexcomp name="f" type="ellipsoid" dim="3" count="3 3 3" spacing=".1 .1 .1" pos="0.13 0 0" dof="radial">'
    '<contact selfcollide="none"/></flexcomp>',
    '<flexcomp name="f" type="box" dim="2" count="3 3 3" spacing=".1 .1 .1" pos="0.1 0 0" euler="10 0 0">'
    '<pin id="3"/><edge equality="true"/><contact selfcollide="none"/></flexcomp>',
])
def test_flexcomp_in_frames_matches_mujoco(flexcomp):
  """A flexcomp inside nested <frame>s (in a body, before a sibling body) and inside a frame in the world: MuJoCo 4
  poses its points through the frames into the parent body's frame and makes the vertex bodies there, unrotated
  (slide joints along the parent's axes; a radial joint along the posed point). Every field to 1e-9."""
  xml = f"""<mujoco><option><flag contact="disable"/></option><worldbody><body name="p" pos="0 0 1"><geom size=".1"/>
  <frame pos="0.5 0 0" euler="0 0 90"><frame pos="0 0.2 0" euler="20 0 0">{flexcomp}</frame></frame>
  <body name="q"><joint type="ball"/><geom size=".1"/></body></body>
  <frame pos="0 0 2" euler="0 30 0">{flexcomp.replace('name="f"', 'name="g"')}</frame></worldbody></mujoco>"""
  mjm = mujoco.MjModel.from_xml_string(xml)
  m = physics.MjModel.from_xml_string(xml)
  assert oracle.model_differences(mjm, m, 1e-9) == []
  np.testing.assert_array_equal(m.body_parentid, mjm.body_parentid)


def test_flexcomp_in_frame_takes_the_body_class():
  """The vertex joints of a flexcomp in a <frame> take the default class of the body around the frame (its
  childclass), not the frame's childclass, as in MuJoCo 4: armature 0.3 in body 'p', none in the world's frame."""
  xml = """<mujoco><option><flag contact="disable"/></option>
  <default><default class="a"><joint armature="0.3"/></default></default><worldbody>
  <body name="p" childclass="a"><frame childclass="a" pos="0 0 1"><flexcomp name="f" dim="1" count="3 1 1"
  spacing=".1 .1 .1"><contact selfcollide="none"/></flexcomp></frame></body>
  <frame childclass="a" pos="0 0 2"><flexcomp name="g" dim="1" count="3 1 1" spacing=".1 .1 .1">
  <contact selfcollide="none"/></flexcomp></frame></worldbody></mujoco>"""
  mjm = mujoco.MjModel.from_xml_string(xml)
  m = physics.MjModel.from_xml_string(xml)
  assert oracle.model_differences(mjm, m, 1e-9) == []
  assert np.any(mjm.dof_armature == 0.3) and np.any(mjm.dof_armature == 0)


_ROPE = '<flexcomp name="f" dim="1" count="3 1 1" spacing=".1 .1 .1" {}><contact selfcollide="none"/>{}</flexcomp>'
_FREE = '<body name="p"><freejoint/><geom size=".1"/>{}</body>'
_CHILD_OF_FREE = '<body name="q"><freejoint/><geom size=".1"/><body name="p"><geom size=".1"/>{}</body></body>'


@pytest.mark.parametrize("bodies, rope, moving", [
    (_FREE, _ROPE.format("", ""), "p"),
    ('<body name="p"><joint type="hinge"/><geom size=".1"/>{}</body>', _ROPE.format("", ""), "p"),
    (_CHILD_OF_FREE, _ROPE.format("", ""), "q"),
    (_CHILD_OF_FREE, _ROPE.format("", '<pin id="1"/>'), None),
    (_FREE, _ROPE.format('rigid="true"', ""), None),
    ('<body name="p" mocap="true">{}</body>', _ROPE.format("", ""), None),
])
def test_flexcomp_in_a_moving_body_needs_a_pin(bodies, rope, moving):
  """MuJoCo 4 refuses a flexcomp in a body with joints (or welded to one) unless a vertex is pinned to it, and loads
  it with a pin (or rigid, or in a mocap body); mjgym refuses and loads the same models."""
  xml = f"""<mujoco><option><flag contact="disable"/></option><worldbody>{bodies.format(rope)}</worldbody></mujoco>"""
  message = f"body '{moving}' has joints but no flex vertices/nodes are pinned to it"
  if moving is None:
    mjm = mujoco.MjModel.from_xml_string(xml)
    assert oracle.model_differences(mjm, physics.MjModel.from_xml_string(xml), 1e-9) == []
    return
  with pytest.raises(ValueError, match=message):
    mujoco.MjModel.from_xml_string(xml)
  with pytest.raises(MJCFError, match=message) as e:
    physics.MjModel.from_xml_string(xml)
  assert e.value.line is not None


@pytest.mark.parametrize("file, extra", [("flex_block41.msh", ""), ("flex_block41.msh", 'dim="3" euler="0 10 0"'),
                                         ("flex_sheet22.msh", 'scale="2 1 1"')])
def test_gmsh_flexcomp_matches_mujoco(file, extra):
  """type="gmsh": ASCII GMSH 4.1 (a block of 6 tetrahedra, coordinates in double precision) and 2.2 (a sheet of 8
  triangles with tags and a point no element uses, coordinates in single precision as MuJoCo 4 reads them); the dim
  comes from the file. Every field to 1e-9."""
  xml = f"""<mujoco><compiler meshdir="{FLEX_DIR}"/><option><flag contact="disable"/></option><worldbody>
  <body name="p" pos="0 0 1"><flexcomp name="f" type="gmsh" file="{file}" radius=".002" pos=".1 0 0" {extra}>
  <edge equality="true"/><contact selfcollide="none"/></flexcomp></body></worldbody></mujoco>"""
  mjm = mujoco.MjModel.from_xml_string(xml)
  m = physics.MjModel.from_xml_string(xml)
  assert oracle.model_differences(mjm, m, 1e-9) == []
  np.testing.assert_array_equal(m.flex_elem, mjm.flex_elem)


def test_gmsh_dim_must_match_the_file():
  """A dim given on a gmsh flexcomp must be the file's (MuJoCo 4's error)."""
  xml = _BAD.format(dir=FLEX_DIR, body='<flexcomp name="f" type="gmsh" dim="2" file="flex_block41.msh"/>')
  with pytest.raises(ValueError, match="flexcomp dim does not match GMSH mesh dimensionality"):
    mujoco.MjModel.from_xml_string(xml)
  with pytest.raises(MJCFError, match="flexcomp dim does not match GMSH mesh dimensionality") as info:
    physics.MjModel.from_xml_string(xml)
  assert info.value.attribute == "dim"


@pytest.mark.parametrize("data, message", [
    (b"$MeshFormat\n4.1 1 8\n$EndMeshFormat\n", "binary GMSH files are not supported"),
    (b"$MeshFormat\n3.0 0 8\n$EndMeshFormat\n", "only GMSH file format versions 4.1 and 2.2 are supported"),
    (b"$Nodes\n", "must begin with \\$MeshFormat"),
    (b"$MeshFormat\n4.1 0 8\n$EndMeshFormat\n$Nodes\n2 2 1 2\n", "missing \\$Nodes or \\$EndNodes"),
    (b"$MeshFormat\n2.2 0 8\n$EndMeshFormat\n$Nodes\n1\n1 0 0 0\n$EndNodes\n$Elements\n1\n1 2 0 1 2 3\n"
     b"$EndElements\n", "invalid node tag"),
])
def test_bad_gmsh_file_is_a_located_error(data, message):
  xml = '<mujoco><worldbody><flexcomp name="f" type="gmsh" file="bad.msh"/></worldbody></mujoco>'
  with pytest.raises(MJCFError, match=message) as info:
    physics.MjModel.from_xml_string(xml, assets={"bad.msh": data})
  assert info.value.attribute == "file"
