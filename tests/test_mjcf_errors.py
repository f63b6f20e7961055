"""Malformed models: each must fail with an MJCFError naming the file, the line, the element and attribute."""

import pytest

from located_error import assert_located_error
from mjgym import physics
from mjgym.physics import MJCFError

_BODY = '<body name="b"><joint name="j"/><geom size="0.1"/></body>'
_MESH = "<mujoco>\n<asset>\n{}\n</asset>\n</mujoco>"
_TET = "0 0 0 1 0 0 0 1 0 0 0 1"
_EQ = ('<mujoco>\n<worldbody>\n<body name="b"><freejoint/><geom size="0.1"/><site name="s"/></body>\n'
       "</worldbody>\n<equality>\n{}\n</equality>\n</mujoco>")

# (id, model text, line of the problem, element, attribute or None, a fragment of the explanation).
CASES = [
    ("broken_xml", "<mujoco>\n<worldbody>\n<body>\n</worldbody>\n</mujoco>", 4, None, None, "XML syntax error"),
    ("unknown_element", "<mujoco>\n<worldbody>\n<thing/>\n</worldbody>\n</mujoco>", 3, "thing", None,
     "unknown element"),
    ("unknown_attribute", '<mujoco>\n<worldbody>\n<geom sise="1"/>\n</worldbody>\n</mujoco>', 3, "geom", "sise",
     "unknown attribute"),
    ("range_count", '<mujoco>\n<worldbody>\n<body>\n<joint name="foot" range="0 1 2"/>\n<geom size="1"/>\n'
     "</body>\n</worldbody>\n</mujoco>", 4, 'joint name="foot"', "range", "expected 2 numbers, got 3"),
    ("bad_number", '<mujoco>\n<worldbody>\n<body pos="1 a 3"/>\n</worldbody>\n</mujoco>', 3, "body", "pos",
     "expected a number, got 'a'"),
    ("bad_int", '<mujoco>\n<worldbody>\n<geom size="1" condim="3.5"/>\n</worldbody>\n</mujoco>', 3, "geom",
     "condim", "expected an integer"),
    ("bad_enum", '<mujoco>\n<worldbody>\n<body>\n<joint type="hinged"/>\n</body>\n</worldbody>\n</mujoco>', 4,
     "joint", "type", "expected one of"),
    ("bad_bool", '<mujoco>\n<worldbody>\n<body mocap="yes"/>\n</worldbody>\n</mujoco>', 3, "body", "mocap",
     "expected 'true' or 'false'"),
    ("unknown_joint", f'<mujoco>\n<worldbody>\n{_BODY}\n</worldbody>\n<actuator>\n<motor joint="nope"/>\n'
     "</actuator>\n</mujoco>", 6, "motor", "joint", "unknown joint 'nope'"),
    ("unknown_class", '<mujoco>\n<worldbody>\n<geom class="nope" size="1"/>\n</worldbody>\n</mujoco>', 3, "geom",
     "class", "unknown default class 'nope'"),
    ("unknown_childclass", '<mujoco>\n<worldbody>\n<body childclass="nope"/>\n</worldbody>\n</mujoco>', 3,
     "body", "childclass", "unknown default class"),
    ("unknown_mesh", '<mujoco>\n<worldbody>\n<geom type="mesh" mesh="nope"/>\n</worldbody>\n</mujoco>', 3, "geom",
     "mesh", "unknown mesh 'nope'"),
    ("unknown_body", f'<mujoco>\n<worldbody>\n{_BODY}\n</worldbody>\n<contact>\n<exclude body1="b" body2="x"/>\n'
     "</contact>\n</mujoco>", 6, "exclude", "body2", "unknown body 'x'"),
    ("negative_mass", '<mujoco>\n<worldbody>\n<body>\n<joint/>\n<geom size="1" mass="-1"/>\n</body>\n'
     "</worldbody>\n</mujoco>", 5, "geom", "mass", "non-negative"),
    ("negative_inertial_mass", '<mujoco>\n<worldbody>\n<body>\n<joint/>\n'
     '<inertial pos="0 0 0" mass="-2" diaginertia="1 1 1"/>\n</body>\n</worldbody>\n</mujoco>', 5, "inertial",
     "mass", "non-negative"),
    ("zero_size", '<mujoco>\n<worldbody>\n<geom name="g" type="box" size="1 0 1"/>\n</worldbody>\n</mujoco>', 3,
     'geom name="g"', "size", "size 1 must be positive"),
    ("zero_quat", '<mujoco>\n<worldbody>\n<body quat="0 0 0 0"/>\n</worldbody>\n</mujoco>', 3, "body", "quat",
     "zero norm"),
    ("zero_axis", '<mujoco>\n<worldbody>\n<body>\n<joint axis="0 0 0"/>\n<geom size="1"/>\n</body>\n'
     "</worldbody>\n</mujoco>", 4, "joint", "axis", "zero length"),
    ("nested_free", '<mujoco>\n<worldbody>\n<body>\n<geom size="1"/>\n<body>\n<freejoint/>\n<geom size="1"/>\n'
     "</body>\n</body>\n</worldbody>\n</mujoco>", 6, "freejoint", None, "top-level body"),
    ("duplicate_name", '<mujoco>\n<worldbody>\n<geom name="g" size="1"/>\n<geom name="g" size="1"/>\n'
     "</worldbody>\n</mujoco>", 4, 'geom name="g"', "name", "repeated name 'g'"),
    ("muscle", f'<mujoco>\n<worldbody>\n{_BODY}\n</worldbody>\n<actuator>\n<muscle joint="j"/>\n</actuator>\n'
     "</mujoco>", 6, "muscle", "lengthrange", "did not settle"),
    ("sensor", f'<mujoco>\n<worldbody>\n{_BODY}\n</worldbody>\n<sensor>\n<tactile/>\n</sensor>\n'
     "</mujoco>", 6, "tactile", None, "unsupported"),
    ("unsupported_attribute", '<mujoco>\n<worldbody>\n<body>\n<joint name="j"/>\n<geom size="1"/>\n<site name="s"/>\n'
     '</body>\n</worldbody>\n<sensor>\n<rangefinder site="s" camera="c"/>\n</sensor>\n</mujoco>', 10,
     "rangefinder", "camera", "unsupported"),
    ("springdamper_not_positive", '<mujoco>\n<worldbody>\n<body>\n<joint springdamper="0.1 0"/>\n'
     '<geom size="1"/>\n</body>\n</worldbody>\n</mujoco>', 4, "joint", "springdamper", "must both be positive"),
    ("limited_without_range", '<mujoco>\n<worldbody>\n<body>\n<joint limited="true"/>\n<geom size="1"/>\n'
     "</body>\n</worldbody>\n</mujoco>", 4, "joint", "limited", "needs 'range'"),
    ("range_without_autolimits", '<mujoco>\n<compiler autolimits="false"/>\n<worldbody>\n<body>\n'
     '<joint range="0 1"/>\n<geom size="1"/>\n</body>\n</worldbody>\n</mujoco>', 5, "joint", "range",
     "autolimits"),
    ("empty_range", '<mujoco>\n<worldbody>\n<body>\n<joint limited="true" range="2 1"/>\n<geom size="1"/>\n'
     "</body>\n</worldbody>\n</mujoco>", 4, "joint", "range", "range[0] < range[1]"),
    ("empty_actuatorfrcrange", '<mujoco>\n<worldbody>\n<body>\n<joint actuatorfrclimited="true" '
     'actuatorfrcrange="1 1"/>\n<geom size="1"/>\n</body>\n</worldbody>\n</mujoco>', 4, "joint",
     "actuatorfrcrange", "range[0] < range[1]"),
    ("actuatorfrcrange_without_autolimits", '<mujoco>\n<compiler autolimits="false"/>\n<worldbody>\n<body>\n'
     '<joint actuatorfrcrange="0 1"/>\n<geom size="1"/>\n</body>\n</worldbody>\n</mujoco>', 5, "joint",
     "actuatorfrcrange", "autolimits"),
    ("frame_unknown_childclass", '<mujoco>\n<worldbody>\n<frame childclass="nope"/>\n</worldbody>\n</mujoco>', 3,
     "frame", "childclass", "unknown default class 'nope'"),
    ("frame_two_orientations", '<mujoco>\n<worldbody>\n<frame name="f" quat="1 0 0 0" zaxis="0 0 1">\n'
     '<geom size="1"/>\n</frame>\n</worldbody>\n</mujoco>', 3, 'frame name="f"', "zaxis",
     "more than one orientation"),
    ("joint_in_world_frame", '<mujoco>\n<worldbody>\n<frame>\n<joint/>\n</frame>\n</worldbody>\n</mujoco>', 4,
     "joint", None, "world body cannot have joints"),
    ("bad_ctrlrange", f'<mujoco>\n<worldbody>\n{_BODY}\n</worldbody>\n<actuator>\n'
     '<motor joint="j" ctrllimited="true" ctrlrange="1 -1"/>\n</actuator>\n</mujoco>', 6, "motor", "ctrlrange",
     "invalid ctrlrange"),
    ("no_transmission", f'<mujoco>\n<worldbody>\n{_BODY}\n</worldbody>\n<actuator>\n<motor/>\n</actuator>\n'
     "</mujoco>", 6, "motor", "joint", "exactly one transmission"),
    ("massless_moving_body", '<mujoco>\n<worldbody>\n<body name="empty">\n<joint/>\n</body>\n</worldbody>\n'
     "</mujoco>", 3, 'body name="empty"', None, "mass and inertia of moving bodies"),
    ("inertial_missing_mass", '<mujoco>\n<worldbody>\n<body>\n<joint/>\n<inertial pos="0 0 0" '
     'diaginertia="1 1 1"/>\n</body>\n</worldbody>\n</mujoco>', 5, "inertial", "mass", "required attribute"),
    ("two_orientations", '<mujoco>\n<worldbody>\n<body quat="1 0 0 0" euler="0 0 1"/>\n</worldbody>\n'
     "</mujoco>", 3, "body", "euler", "more than one orientation"),
    ("key_size", f'<mujoco>\n<worldbody>\n{_BODY}\n</worldbody>\n<keyframe>\n<key qpos="1 2"/>\n</keyframe>\n'
     "</mujoco>", 6, "key", "qpos", "expected 1 number, got 2"),
    ("global_coordinates", '<mujoco>\n<compiler coordinate="global"/>\n</mujoco>', 2, "compiler", "coordinate",
     "unsupported"),
    ("spatial_tendon", "<mujoco>\n<tendon>\n<spatial/>\n</tendon>\n</mujoco>", 3, "spatial", None,
     "at least two path elements"),
    ("bad_condim", '<mujoco>\n<worldbody>\n<geom size="1" condim="2"/>\n</worldbody>\n</mujoco>', 3, "geom",
     "condim", "condim must be 1, 3, 4 or 6"),
    ("inline_mesh_count", _MESH.format('<mesh name="m" vertex="0 0 0 1 0 0 0 1 0 0 0"/>'), 3, 'mesh name="m"',
     "vertex", "multiple of 3"),
    ("inline_mesh_few", _MESH.format('<mesh name="m" vertex="0 0 0 1 0 0 0 1 0"/>'), 3, 'mesh name="m"', "vertex",
     "at least 4 vertices"),
    ("inline_mesh_face_index", _MESH.format(f'<mesh name="m" vertex="{_TET}" face="0 2 1 0 1 4"/>'), 3,
     'mesh name="m"', "face", "vertex 4, which does not exist"),
    ("inline_mesh_face_count", _MESH.format(f'<mesh name="m" vertex="{_TET}" face="0 2 1 0 1"/>'), 3,
     'mesh name="m"', "face", "multiple of 3"),
    ("inline_mesh_and_file", _MESH.format(f'<mesh name="m" file="m.obj" vertex="{_TET}"/>'), 3, 'mesh name="m"',
     "vertex", "not both"),
    ("inline_mesh_unnamed", _MESH.format(f'<mesh vertex="{_TET}"/>'), 3, "mesh", "name", "needs a name"),
    ("inline_mesh_flat", _MESH.format('<mesh name="m" vertex="0 0 0 1 0 0 0 1 0 1 1 0"/>'), 3, 'mesh name="m"',
     "vertex", "cannot load the inline mesh"),
    ("mesh_without_data", _MESH.format('<mesh name="m"/>'), 3, 'mesh name="m"', "file", "a 'file' or inline"),
    ("weld_mixed_semantics", _EQ.format('<weld site1="s" body2="b"/>'), 6, "weld", "body2",
     "give either site1 and site2"),
    ("connect_one_site", _EQ.format('<connect site1="s"/>'), 6, "connect", "site2", "needs site1 and site2"),
    ("connect_without_anchor", _EQ.format('<connect body1="b"/>'), 6, "connect", "anchor",
     "give body1 and anchor"),
    ("weld_without_body1", _EQ.format('<weld body2="b"/>'), 6, "weld", "body1", "required attribute missing"),
    ("weld_to_itself", _EQ.format('<weld body1="b" body2="b"/>'), 6, "weld", "body2", "to itself"),
    ("connect_site_to_itself", _EQ.format('<connect site1="s" site2="s"/>'), 6, "connect", "site2", "to itself"),
    ("unknown_site", _EQ.format('<weld site1="s" site2="nope"/>'), 6, "weld", "site2", "unknown site 'nope'"),
    ("plane_on_joint", '<mujoco>\n<worldbody>\n<body>\n<joint/>\n<geom type="plane" size="1 1 1"/>\n'
     "</body>\n</worldbody>\n</mujoco>", 5, "geom", "type", "static bodies"),
]


@pytest.mark.parametrize("text,line,element,attribute,fragment", [c[1:] for c in CASES],
                         ids=[c[0] for c in CASES])
def test_error_is_located(tmp_path, text, line, element, attribute, fragment):
  assert_located_error(tmp_path, text, line, element, attribute, fragment)


def test_missing_include(tmp_path):
  path = tmp_path / "main.xml"
  path.write_text('<mujoco>\n<worldbody>\n<include file="parts/missing.xml"/>\n</worldbody>\n</mujoco>')
  with pytest.raises(MJCFError) as info:
    physics.MjModel.from_xml_path(str(path))
  message = str(info.value)
  assert message.startswith(f"{path}:3: <include> attribute 'file': cannot read file"), message
  assert "parts/missing.xml" in message


def test_error_inside_include_names_included_file(tmp_path):
  (tmp_path / "parts").mkdir()
  part = tmp_path / "parts" / "arm.xml"
  part.write_text('<mujoco>\n<body name="arm">\n<joint range="1 2 3"/>\n</body>\n</mujoco>')
  path = tmp_path / "main.xml"
  path.write_text('<mujoco>\n<worldbody>\n<include file="parts/arm.xml"/>\n</worldbody>\n</mujoco>')
  with pytest.raises(MJCFError) as info:
    physics.MjModel.from_xml_path(str(path))
  assert str(info.value).startswith(f"{part}:3: <joint> attribute 'range': expected 2 numbers, got 3")


def test_include_from_assets():
  assets = {"arm.xml": b'<mujoco><body name="arm"><joint/><geom size="0.1"/></body></mujoco>'}
  m = physics.MjModel.from_xml_string('<mujoco><worldbody><include file="arm.xml"/></worldbody></mujoco>',
                                      assets=assets)
  assert m.nbody == 2 and m.njnt == 1


def test_string_errors_name_the_string():
  with pytest.raises(MJCFError, match=r"^<string>:1: <geom> attribute 'size'"):
    physics.MjModel.from_xml_string('<mujoco><worldbody><geom size="a"/></worldbody></mujoco>')


def test_body_outside_worldbody_is_left_out_as_mujoco_does(tmp_path):
  """MuJoCo's schema lets a <body> stand in <mujoco> (files meant to be included in a <worldbody>) and leaves it
  out of the model: mjgym too, with a located warning."""
  import mujoco  # pylint: disable=import-outside-toplevel
  from mjgym.physics.mjcf.errors import MJCFWarning  # pylint: disable=import-outside-toplevel
  path = tmp_path / "part.xml"
  path.write_text('<mujoco>\n<body name="arm">\n<joint/>\n<geom size="0.1"/>\n</body>\n</mujoco>')
  ref = mujoco.MjModel.from_xml_path(str(path))
  with pytest.warns(MJCFWarning) as record:
    m = physics.MjModel.from_xml_path(str(path))
  assert str(record[0].message).startswith(f'{path}:2: <body name="arm">: a <body> directly inside <mujoco>')
  assert (m.nbody, m.ngeom, m.njnt) == (ref.nbody, ref.ngeom, ref.njnt) == (1, 0, 0)


def test_unsupported_list_in_docs_is_current():
  """docs/unsupported.md lists what the loader refuses, from its own tables: regenerate it and compare."""
  import importlib.util  # pylint: disable=import-outside-toplevel
  import pathlib  # pylint: disable=import-outside-toplevel
  tool = pathlib.Path(__file__).resolve().parent.parent / "tools" / "gen_unsupported.py"
  spec = importlib.util.spec_from_file_location("gen_unsupported", tool)
  gen = importlib.util.module_from_spec(spec)
  spec.loader.exec_module(gen)
  assert gen.DOC.read_text() == gen.render(), "run python tools/gen_unsupported.py"
  assert "`<replicate>`" in gen.render() and "| `camera` |" in gen.render()
