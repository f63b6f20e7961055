"""URDF models and the compiler options that rewrite a model (fusestatic, discardvisual), against MuJoCo (issue 19).

The models: tests/models/urdf/robot.urdf (written for these tests: every URDF joint type, limits and dynamics,
inertial origins with rpy, box / cylinder / sphere / capsule / mesh geometry with scale, visual and collision
elements, materials, a ``world`` link), variants of it made here with MuJoCo's <mujoco> extension element
(each <compiler> option URDF uses, <option>), tests/models/fusestatic.xml and discardvisual.xml (MJCF), and the
URDF files that installed PyPI packages ship, found at test time (never copied here): ``upkie_description``
(a 5.7 MB wheel of pure data, meant for the test extra), and, where installed, ``robot_properties_fingers``
(its meshes given as assets, with strippath) and pybullet's ``pybullet_data``. A package that is not installed
has no tests.

Checks: every model field and every object name within 1e-9 relative (oracle.model_differences, name_differences),
200-step trajectories (qpos, qvel within 1e-8 relative, each step); a file MuJoCo refuses is refused with an
MJCFError, which names the URDF file, line, element and attribute.
"""

import importlib.util
import pathlib
import re

import numpy as np
import pytest

mujoco = pytest.importorskip("mujoco")

import oracle  # pylint: disable=wrong-import-position
from located_error import assert_located_error  # pylint: disable=wrong-import-position
from mjgym import physics  # pylint: disable=wrong-import-position
from mjgym.physics import MJCFError  # pylint: disable=wrong-import-position

URDF_DIR = oracle.MODELS_DIR / "urdf"
ROBOT = URDF_DIR / "robot.urdf"
MESHDIR = URDF_DIR / "meshes"
TOL = 1e-9
# Trajectories: measured within 6e-16 (robot.urdf), 1.2e-14 (fusestatic.xml), 7e-18 (discardvisual.xml) of
# MuJoCo's qpos over the 200 steps (their contacts: sphere, box and plane pairs, which both engines solve in
# closed form). The tolerance is that of the engine's trajectory tests (test_forward,
# test_api_rollout): 1e-8 relative leaves room for rounding that contacts, joint limits and friction loss amplify
# through the constraint solver's iterations, and fails on any modelling difference.
STATE_TOL = 1e-8
NSTEPS = 200


def _with_extension(text, extension, **replacements):
  """A URDF text with MuJoCo's <mujoco> extension element inside <robot>, after some text replacements."""
  for old, new in replacements.items():
    assert old in text, old
    text = text.replace(old, new)
  return text.replace("</robot>", f"<mujoco>{extension}</mujoco></robot>")


_ROBOT_TEXT = ROBOT.read_text()
# Each variant loads from a string (file names then resolve against the working directory: meshdir is absolute).
VARIANTS = {
    "visuals_kept": _with_extension(
        _ROBOT_TEXT, f'<compiler discardvisual="false" angle="degree" meshdir="{URDF_DIR}"/>'),
    "meshdir": _with_extension(
        _ROBOT_TEXT, f'<compiler meshdir="{MESHDIR}"/>', **{'filename="meshes/': 'filename="'}),
    "strippath": _with_extension(
        _ROBOT_TEXT, f'<compiler strippath="true" meshdir="{MESHDIR}"/>',
        **{'filename="meshes/': 'filename="package://testbot/meshes/'}),
    "static_kept": _with_extension(
        _ROBOT_TEXT, f'<compiler fusestatic="false" discardvisual="false" meshdir="{URDF_DIR}"/>',
        # a floating joint needs a top-level body: without fusing, its parent link stays a body
        **{'type="floating"': 'type="spherical"'}),
    "options": _with_extension(
        _ROBOT_TEXT, f'<compiler meshdir="{URDF_DIR}" boundmass="0.01" inertiafromgeom="true"/>'
        '<option timestep="0.004" gravity="0 0.5 -9" integrator="RK4"/><size memory="1M"/>'),
}
# Principal moments 1, 1, 3 break A + B >= C: MuJoCo refuses them unless balanceinertia makes them equal.
UNBALANCED = """<robot name="unbalanced">
  <link name="base"/>
  <link name="arm">
    <inertial><origin xyz="0 0 0.1" rpy="0.3 0 0"/><mass value="1"/>
      <inertia ixx="1" iyy="1" izz="3" ixy="0" ixz="0" iyz="0"/></inertial>
    <collision><geometry><box size="0.1 0.1 0.2"/></geometry></collision>
  </link>
  <joint name="hinge" type="revolute"><parent link="base"/><child link="arm"/><axis xyz="0 1 0"/>
    <limit lower="-1" upper="1"/></joint>
</robot>
"""
VARIANTS["balanceinertia"] = _with_extension(UNBALANCED, '<compiler balanceinertia="true"/>')


def _installed(package):
  """The directory of an installed package, or None."""
  spec = importlib.util.find_spec(package)
  return pathlib.Path(spec.origin).parent if spec is not None and spec.origin else None


def _package_models():
  """(id, URDF path or text, assets) of the URDF files the installed packages ship."""
  found = []
  upkie = _installed("upkie_description")
  if upkie is not None:
    for path in sorted((upkie / "urdf").glob("*.urdf")):
      found.append((f"upkie_description/{path.name}", str(path), None))
  fingers = _installed("robot_properties_fingers")
  if fingers is not None:
    # their meshes are named package://robot_properties_fingers/meshes/...: strippath and the mesh files as assets
    assets = {p.name: p.read_bytes() for p in (fingers / "meshes").rglob("*.stl")}
    for path in sorted((fingers / "urdf").rglob("*.urdf")):
      text = _with_extension(path.read_text(), '<compiler strippath="true"/>')
      found.append((f"robot_properties_fingers/{path.name}", text, assets))
  bullet = _installed("pybullet_data")
  if bullet is not None:
    for path in sorted(bullet.rglob("*.urdf")):
      if "random_urdfs" not in path.parts:
        found.append((f"pybullet_data/{path.relative_to(bullet)}", str(path), None))
  return found


PACKAGE_MODELS = _package_models()
# package models where mjgym and MuJoCo differ, with the measured cause (model id -> reason). pybullet_data's ten
# (multi-object OBJ files, a two-vertex face) were fixed by reading OBJ files as MuJoCo does (tests/test_mesh_obj.py).
KNOWN_FAILURES = {}


def _load(source, assets=None):
  """MuJoCo's model and ours of a path or a text."""
  extra = () if assets is None else (assets,)
  if source.lstrip().startswith("<"):
    return mujoco.MjModel.from_xml_string(source, *extra), physics.MjModel.from_xml_string(source, *extra)
  return mujoco.MjModel.from_xml_path(source, *extra), physics.MjModel.from_xml_path(source, *extra)


def _assert_same_model(mjm, m):
  differences = oracle.model_differences(mjm, m, TOL) + oracle.name_differences(mjm, m)
  assert not differences, "; ".join(differences)


def _assert_same_trajectory(mjm, m, nstep=NSTEPS):
  """``nstep`` steps from qpos0 with a velocity on every dof: qpos and qvel within STATE_TOL of MuJoCo's."""
  mjd, d = mujoco.MjData(mjm), physics.MjData(m)
  mjd.qvel[:] = np.linspace(-1.0, 1.0, mjm.nv)
  oracle.copy_state(mjd, d)
  for step in range(nstep):
    mujoco.mj_step(mjm, mjd)
    physics.mj_step(m, d)
    assert not mjd.warning.number.any(), f"step {step}: MuJoCo warns: the model is unfit for this test"
    for field in ("qpos", "qvel"):
      oracle.assert_close(getattr(d, field), getattr(mjd, field), STATE_TOL, f"step {step}: {field}")
  assert d.ncon == mjd.ncon
  return mjd


@pytest.mark.parametrize("name", ["robot", *VARIANTS])
def test_urdf_model_matches_mujoco(name):
  """robot.urdf as it is, and with each <mujoco> extension: MuJoCo's compiled model, field by field and by name."""
  mjm, m = _load(str(ROBOT) if name == "robot" else VARIANTS[name])
  _assert_same_model(mjm, m)


def test_urdf_translation():
  """What MuJoCo makes of robot.urdf, in the terms a user sees: the static links fused into the world, a body per
  moving link, the planar joint's three joints, the limits, and visual geoms only when kept."""
  m = physics.MjModel.from_xml_path(str(ROBOT))
  bodies = [physics.mj_id2name(m, physics.mjtObj.mjOBJ_BODY, i) for i in range(m.nbody)]
  assert bodies == ["world", "upper", "lower", "slider", "wheel", "floater", "puck"]
  joints = [physics.mj_id2name(m, physics.mjtObj.mjOBJ_JOINT, i) for i in range(m.njnt)]
  assert joints == ["shoulder", "elbow", "slide", "spin", "loose", "glide_TX", "glide_TY", "glide_RZ"]
  assert (m.geom_contype == 1).all() and (m.geom_group == 0).all()
  kept = physics.MjModel.from_xml_string(VARIANTS["visuals_kept"])
  assert kept.ngeom > m.ngeom and set(kept.geom_group) == {0, 1}


@pytest.mark.parametrize("name", ["robot", "static_kept"])
def test_urdf_trajectory_matches_mujoco(name):
  """200 steps of robot.urdf (a free body falling on the floor link, a chain with limits, damping and friction
  loss, a planar joint): qpos and qvel follow MuJoCo's."""
  mjm, m = _load(str(ROBOT) if name == "robot" else VARIANTS[name])
  mjd = _assert_same_trajectory(mjm, m)
  assert np.abs(mjd.qpos - mjm.qpos0).max() > 0.1, "the trajectory must move, or the comparison proves nothing"


@pytest.mark.parametrize("name", ["fusestatic.xml", "discardvisual.xml"])
def test_rewriting_compiler_options_match_mujoco(name):
  """MJCF with fusestatic (static chains, cameras, lights, sites and meshes moved, inertias merged; bodies other
  elements name, mocap bodies and force sensor bodies kept) and with discardvisual (materials, textures, drawn
  geoms and meshes dropped; geoms a pair, tendon or sensor names kept): MuJoCo's model and trajectory."""
  mjm, m = _load(str(oracle.MODELS_DIR / name))
  _assert_same_model(mjm, m)
  _assert_same_trajectory(mjm, m)


@pytest.mark.parametrize("name", oracle.GYM_MODELS)
def test_gym_models_with_rewriting_options_match_mujoco(name):
  """Gymnasium's models with fusestatic and discardvisual: MuJoCo's model, field by field and by name; where
  inertiafromgeom is 'true' and a drawn geom gives a body mass, MuJoCo 4 refuses the model, naming the body."""
  text = oracle.gym_asset(name).read_text()
  text = re.sub(r"(<mujoco[^>]*>)", r'\1<compiler fusestatic="true" discardvisual="true"/>', text, count=1)
  try:
    mjm = mujoco.MjModel.from_xml_string(text)
  except ValueError as e:
    body = re.search(r"Element name '([^']*)'", str(e)).group(1)
    with pytest.raises(MJCFError, match=f'<body name="{body}">: discarding visual geoms would change the inertia'):
      physics.MjModel.from_xml_string(text)
    return
  _assert_same_model(mjm, physics.MjModel.from_xml_string(text))


def test_fusestatic_with_discardvisual_matches_mujoco():
  """Both options: drawn geoms of fused bodies are dropped after their mass joined the parent's."""
  text = (oracle.MODELS_DIR / "fusestatic.xml").read_text()
  meshdir = f'discardvisual="true" meshdir="{oracle.MODELS_DIR}/'
  for old, new in (('meshdir="', meshdir),
                   ('pos="0 0.1 0"/>', 'pos="0 0.1 0" contype="0" conaffinity="0"/>'),
                   ('mesh="wedge"/>', 'mesh="wedge" contype="0" conaffinity="0"/>')):
    assert old in text, old
    text = text.replace(old, new)
  mjm, m = _load(text)
  _assert_same_model(mjm, m)
  assert mjm.nmesh == 0


def test_fusestatic_then_settotalmass_matches_mujoco():
  """settotalmass scales the bodies left after fusing (the mass fused into the world body no longer counts)."""
  text = (oracle.MODELS_DIR / "fusestatic.xml").read_text()
  text = text.replace('meshdir="', f'settotalmass="10" meshdir="{oracle.MODELS_DIR}/')
  mjm, m = _load(text)
  _assert_same_model(mjm, m)


@pytest.mark.parametrize("name", ["fusestatic.xml", "discardvisual.xml"])
def test_rewriting_options_change_the_model(name):
  """The two test models exercise the options: with the option off, MuJoCo (and mjgym) keep more objects."""
  text = (oracle.MODELS_DIR / name).read_text()
  option = name.split(".")[0]
  off = text.replace(f'{option}="true"', f'{option}="false"').replace('meshdir="', f'meshdir="{oracle.MODELS_DIR}/')
  # without fusing, the free body's static parent stays a body: a free joint needs a top-level one
  off = off.replace("<freejoint/>", '<joint type="ball"/>')
  mjm_on = mujoco.MjModel.from_xml_path(str(oracle.MODELS_DIR / name))
  mjm_off, m_off = _load(off)
  _assert_same_model(mjm_off, m_off)
  assert (mjm_off.nbody, mjm_off.ngeom, mjm_off.nmesh) != (mjm_on.nbody, mjm_on.ngeom, mjm_on.nmesh)


def _package_params():
  """A known failure is a strict xfail: a fix turns it into an XPASS, and the list has to shrink."""
  return [pytest.param(*p, id=p[0], marks=[pytest.mark.xfail(strict=True, reason=KNOWN_FAILURES[p[0]])]
                       if p[0] in KNOWN_FAILURES else []) for p in PACKAGE_MODELS]


@pytest.mark.parametrize("model_id, source, assets", _package_params())
def test_package_urdf_matches_mujoco(model_id, source, assets):
  """The URDF files of installed packages: MuJoCo's model, field by field and by name, or, for a file MuJoCo
  refuses (Collada meshes, broken inertias, missing links), an MJCFError."""
  del model_id
  ours = physics.MjModel.from_xml_string if assets is not None else physics.MjModel.from_xml_path
  try:
    mjm = (mujoco.MjModel.from_xml_string(source, assets) if assets is not None
           else mujoco.MjModel.from_xml_path(source))
  except ValueError:
    with pytest.raises(MJCFError):
      ours(source, assets)
    return
  _assert_same_model(mjm, ours(source, assets))


def test_package_urdf_present():
  """upkie_description (the package meant for the test extra) is found, and its URDF files are among the models."""
  if _installed("upkie_description") is None:
    pytest.skip("upkie_description is not installed")
  assert any(p[0].startswith("upkie_description/") for p in PACKAGE_MODELS)


def test_unbalanced_inertia_is_refused_as_mujoco_refuses_it(tmp_path):
  """Without balanceinertia, moments that break A + B >= C fail to load in both engines."""
  with pytest.raises(ValueError):
    mujoco.MjModel.from_xml_string(UNBALANCED)
  assert_located_error(tmp_path, UNBALANCED, 4, "inertial", None, "violates A + B >= C")


_LINK = '<link name="{}"><inertial><mass value="1"/><inertia ixx="1" iyy="1" izz="1" ixy="0" ixz="0" iyz="0"/>' \
        '</inertial></link>'


def _robot(*lines):
  return "\n".join(['<robot name="r">', *lines, "</robot>"])


_JOINT = '<joint name="j" type="revolute"><parent link="{}"/><child link="{}"/></joint>'
ERRORS = {
    # name: (URDF text, line, element, attribute, message fragment)
    "undefined_parent": (_robot(_LINK.format("a"), _JOINT.format("nowhere", "a")), 3, "parent", "link",
                         "undefined link 'nowhere'"),
    "undefined_child": (_robot(_LINK.format("a"), _JOINT.format("a", "b")), 3, "child", "link", "undefined link 'b'"),
    "two_parents": (_robot(_LINK.format("a"), _LINK.format("b"), _LINK.format("c"), _JOINT.format("a", "c"),
                           _JOINT.format("b", "c")), 6, None, None, '<joint name="j">: link \'c\' has more than one '
                   "parent joint (the first is on line 5)"),
    "cycle": (_robot(_LINK.format("a"), _LINK.format("b"), _JOINT.format("a", "b"), _JOINT.format("b", "a")), 2,
              None, None, '<link name="a">: link \'a\' is in a cycle of joints'),
    "joint_type": (_robot(_LINK.format("a"), _LINK.format("b"),
                          '<joint name="j" type="hinge"><parent link="a"/><child link="b"/></joint>'), 4, None,
                   "type", '<joint name="j"> attribute \'type\': unknown joint type \'hinge\''),
    "repeated_element": (_robot(_LINK.format("a"), _LINK.format("b"), '<joint name="j" type="revolute">'
                                '<parent link="a"/><child link="b"/><axis xyz="1 0 0"/><axis xyz="0 1 0"/></joint>'),
                         4, "axis", None, "repeated element <axis> inside <joint>"),
    "missing_mesh_file": (_robot('<link name="a"><collision><geometry><mesh filename="nowhere.stl"/></geometry>',
                                 "</collision></link>"), 2, None, "file", '<mesh name="nowhere"> attribute \'file\': '
                          "cannot read file"),
    "no_geometry": (_robot('<link name="a"><collision><geometry/></collision></link>'), 2, "geometry", None,
                    "needs a <box>"),
    "bad_number": (_robot('<link name="a"><collision><geometry><box size="1 x 1"/></geometry></collision></link>'), 2,
                   "box", "size", "expected a number, got 'x'"),
    "link_name": (_robot("<link/>"), 2, "link", "name", "required attribute missing"),
    "not_positive_definite": (_robot('<link name="a"><inertial><mass value="1"/>',
                                     '<inertia ixx="1" iyy="1" izz="1" ixy="2" ixz="0" iyz="0"/></inertial></link>'),
                              3, "inertia", None, "not positive definite"),
    "free_joint_below_a_body": (_robot('<mujoco><compiler fusestatic="false"/></mujoco>', _LINK.format("a"),
                                       _LINK.format("b"),
                                       '<joint name="f" type="floating"><parent link="a"/><child link="b"/></joint>'),
                                5, None, "type", '<joint name="f"> attribute \'type\': a free joint can only be used '
                                "on a top-level body"),
}


@pytest.mark.parametrize("name", ERRORS)
def test_urdf_errors_are_located(tmp_path, name):
  """A URDF MuJoCo refuses is refused here too, with an MJCFError naming the URDF file, line, element and
  attribute."""
  text, line, element, attribute, fragment = ERRORS[name]
  with pytest.raises(ValueError):
    mujoco.MjModel.from_xml_string(text)
  assert_located_error(tmp_path, text, line, element, attribute, fragment)


def test_urdf_from_string_and_error_type():
  """from_xml_string reads a <robot> root; a root that is neither <mujoco> nor <robot> is an MJCFError."""
  m = physics.MjModel.from_xml_string(_robot(_LINK.format("a")))
  assert m.nbody == 1  # the root link has no joint: fused into the world
  with pytest.raises(MJCFError, match="root element must be <mujoco>"):
    physics.MjModel.from_xml_string("<sdf/>")


def test_mjcf_strippath_matches_mujoco():
  """compiler strippath in MJCF: asset file names lose their directories before the asset directories apply."""
  xml = f"""<mujoco>
    <compiler strippath="true" meshdir="{MESHDIR}"/>
    <asset><mesh file="some/where/else/wedge.obj" scale="1 1 2"/><mesh file="C:\\\\models\\\\tetra.stl"/></asset>
    <worldbody><body><freejoint/><geom type="mesh" mesh="wedge"/><geom type="mesh" mesh="tetra"/></body></worldbody>
  </mujoco>"""
  mjm, m = _load(xml)
  _assert_same_model(mjm, m)
  assert m.nmesh == 2
