"""Our MJCF compiler against MuJoCo's: every Gymnasium model and every tests/models/*.xml, field by field; m.vis."""

import copy
import pickle

import mujoco
import numpy as np
import pytest

import oracle
from mjgym import physics
from mjgym.physics import types

RTOL = 1e-9
MODEL_PATHS = [oracle.gym_asset(n) for n in oracle.GYM_MODELS] + sorted(oracle.MODELS_DIR.glob("*.xml"))

SIZES = ("nq", "nv", "nu", "na", "nbody", "njnt", "ngeom", "nsite", "ntendon", "nkey", "ncam", "nlight",
         "nmocap", "nwrap", "neq", "npair", "nexclude", "nmesh", "nmat", "ntex", "ntexdata", "nmeshvert", "nmeshface")
# Fields compared value by value (quaternion fields up to sign, below).
FIELDS = (
    "qpos0", "qpos_spring",
    "body_parentid", "body_rootid", "body_weldid", "body_mocapid", "body_jntnum", "body_jntadr", "body_dofnum",
    "body_dofadr", "body_geomnum", "body_geomadr", "body_pos", "body_ipos", "body_mass", "body_subtreemass",
    "body_gravcomp", "body_sameframe", "body_simple",
    "jnt_type", "jnt_qposadr", "jnt_dofadr", "jnt_bodyid", "jnt_group", "jnt_limited", "jnt_pos", "jnt_axis",
    "jnt_stiffness", "jnt_range", "jnt_margin", "jnt_solref", "jnt_solimp", "jnt_actfrclimited", "jnt_actfrcrange",
    "jnt_actgravcomp",
    "dof_bodyid", "dof_jntid", "dof_parentid", "dof_Madr", "dof_armature", "dof_damping", "dof_frictionloss",
    "dof_solref", "dof_solimp",
    "geom_type", "geom_contype", "geom_conaffinity", "geom_condim", "geom_bodyid", "geom_dataid", "geom_matid",
    "geom_group", "geom_priority", "geom_solmix", "geom_solref", "geom_solimp", "geom_size", "geom_rbound",
    "geom_pos", "geom_friction", "geom_margin", "geom_gap", "geom_rgba", "geom_sameframe",
    "site_type", "site_bodyid", "site_group", "site_size", "site_pos", "site_rgba", "site_matid", "site_sameframe",
    "cam_mode", "cam_bodyid", "cam_targetbodyid", "cam_pos", "cam_poscom0", "cam_pos0", "cam_mat0", "cam_fovy",
    "cam_ipd",
    "light_mode", "light_bodyid", "light_targetbodyid", "light_type", "light_castshadow", "light_active",
    "light_pos", "light_dir", "light_poscom0", "light_pos0", "light_dir0", "light_attenuation", "light_cutoff",
    "light_exponent", "light_ambient", "light_diffuse", "light_specular",
    "mesh_vertadr", "mesh_vertnum", "mesh_faceadr", "mesh_facenum",
    "mat_texid", "mat_texuniform", "mat_texrepeat", "mat_emission", "mat_specular", "mat_shininess",
    "mat_reflectance", "mat_rgba", "tex_type", "tex_height", "tex_width", "tex_nchannel", "tex_adr", "tex_colorspace",
    "tex_data",
    "tendon_adr", "tendon_num", "tendon_limited", "tendon_solref_lim", "tendon_solimp_lim", "tendon_solref_fri",
    "tendon_solimp_fri", "tendon_range", "tendon_margin", "tendon_stiffness", "tendon_damping",
    "tendon_frictionloss", "tendon_lengthspring", "tendon_length0", "tendon_group", "tendon_matid",
    "tendon_width", "tendon_rgba", "wrap_type", "wrap_objid", "wrap_prm",
    "actuator_trntype", "actuator_dyntype", "actuator_gaintype", "actuator_biastype", "actuator_trnid",
    "actuator_actadr", "actuator_actnum", "actuator_group", "actuator_ctrllimited", "actuator_forcelimited",
    "actuator_actlimited", "actuator_actearly", "actuator_dynprm", "actuator_gainprm", "actuator_biasprm",
    "actuator_ctrlrange", "actuator_forcerange", "actuator_actrange", "actuator_gear", "actuator_cranklength",
    "actuator_length0", "actuator_lengthrange",
    "eq_type", "eq_obj1id", "eq_obj2id", "eq_objtype", "eq_active0", "eq_solref", "eq_solimp",
    "pair_dim", "pair_geom1", "pair_geom2", "pair_signature", "pair_solref", "pair_solreffriction",
    "pair_solimp", "pair_margin", "pair_gap", "pair_friction", "exclude_signature",
    "key_time", "key_qpos", "key_qvel", "key_act", "key_mpos", "key_ctrl",
)
QUAT_FIELDS = ("body_quat", "geom_quat", "site_quat", "cam_quat", "key_mquat")
OPTIONS = ("timestep", "impratio", "tolerance", "ls_tolerance", "noslip_tolerance", "gravity", "wind", "magnetic",
           "density", "viscosity", "o_margin", "o_solref", "o_solimp", "o_friction", "integrator", "cone",
           "jacobian", "solver", "iterations", "ls_iterations", "noslip_iterations", "disableflags",
           "enableflags")
NAMED = (types.ObjType.BODY, types.ObjType.JOINT, types.ObjType.GEOM, types.ObjType.SITE, types.ObjType.CAMERA,
         types.ObjType.LIGHT, types.ObjType.MESH, types.ObjType.MATERIAL, types.ObjType.TEXTURE,
         types.ObjType.TENDON, types.ObjType.ACTUATOR, types.ObjType.EQUALITY, types.ObjType.PAIR,
         types.ObjType.EXCLUDE, types.ObjType.KEY)


def _rotation(q):
  w, x, y, z = q
  return np.array([[1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
                   [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
                   [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)]])


def _inertia_tensors(m):
  """Each body's inertia tensor about its com in the body frame: R diag(I) R^T (eigen order-independent)."""
  return np.array([_rotation(q) @ np.diag(i) @ _rotation(q).T for q, i in zip(m.body_iquat, m.body_inertia)])


def _same_quats(ours, theirs, name):
  ours, theirs = np.asarray(ours, float), np.asarray(theirs, float)
  assert ours.shape == theirs.shape, f"{name}: shape {ours.shape} != {theirs.shape}"
  if ours.size == 0:
    return
  flat_o, flat_t = ours.reshape(-1, 4), theirs.reshape(-1, 4)
  sign = np.where(np.sum(flat_o * flat_t, axis=1) < 0, -1.0, 1.0)
  oracle.assert_close(flat_o * sign[:, None], flat_t, RTOL, name)


@pytest.fixture(scope="module", params=MODEL_PATHS, ids=lambda p: p.stem)
def models(request):
  ref, ours = oracle.models(request.param)
  return ours, ref


def test_sizes(models):
  ours, ref = models
  for size in SIZES:
    assert getattr(ours, size) == getattr(ref, size), size


def test_fields(models):
  ours, ref = models
  for name in FIELDS:
    theirs = np.asarray(getattr(ref, name))
    mine = np.asarray(getattr(ours, name))
    if name == "mat_texid":
      # MuJoCo 4 keeps one texture per role; ours is the color (RGB) role's.
      theirs = theirs[:, mujoco.mjtTextureRole.mjTEXROLE_RGB]
    # MuJoCo keeps colors and material properties in float32.
    rtol = 1e-7 if theirs.dtype == np.float32 else RTOL
    oracle.assert_close(mine, theirs.reshape(mine.shape) if theirs.size == mine.size else theirs, rtol, name)
  for name in QUAT_FIELDS:
    theirs = np.asarray(getattr(ref, name))
    _same_quats(getattr(ours, name), theirs.reshape(np.shape(getattr(ours, name))), name)
  oracle.assert_close(ours.eq_data, ref.eq_data, RTOL, "eq_data")


def test_inertia(models):
  ours, ref = models
  oracle.assert_close(_inertia_tensors(ours), _inertia_tensors(ref), RTOL, "inertia tensor")
  oracle.assert_close(ours.body_mass, ref.body_mass, RTOL, "body_mass")


def test_options(models):
  ours, ref = models
  for name in OPTIONS:
    oracle.assert_close(getattr(ours.opt, name), getattr(ref.opt, name), RTOL, f"opt.{name}")


def test_mesh_data(models):
  ours, ref = models
  oracle.assert_close(ours.mesh_face, ref.mesh_face, 0, "mesh_face")
  # MuJoCo's single-precision vertices in MuJoCo's mesh frame, bitwise
  np.testing.assert_array_equal(ours.mesh_vert, ref.mesh_vert, err_msg="mesh_vert")


def test_names(models):
  ours, ref = models
  for objtype in NAMED:
    count = len(ours.names_of(objtype))
    for i in range(count):
      name = mujoco.mj_id2name(ref, int(objtype), i)
      assert physics.mj_id2name(ours, objtype, i) == name, (objtype.name, i)
      if name:
        assert physics.mj_name2id(ours, objtype, name) == i, (objtype.name, name)


def test_excludes_sorted_by_signature_as_mujoco():
  """MuJoCo orders <exclude> entries (and their names) by body-pair signature, as it orders pairs."""
  xml = """<mujoco><worldbody><body name="a"><freejoint/><geom size=".1"/></body>
    <body name="b"><freejoint/><geom size=".1"/></body><body name="c"><freejoint/><geom size=".1"/></body></worldbody>
    <contact><exclude name="x" body1="c" body2="b"/><exclude name="y" body1="a" body2="b"/>
      <exclude name="z" body1="c" body2="a"/></contact></mujoco>"""
  theirs, ours = oracle.models(xml)
  np.testing.assert_array_equal(ours.exclude_signature, theirs.exclude_signature)
  names = [[lib.mj_id2name(m, lib.mjtObj.mjOBJ_EXCLUDE, i) for i in range(3)]
           for lib, m in ((physics, ours), (mujoco, theirs))]
  assert names[0] == names[1] == ["y", "z", "x"]


_REPLICATE = (
    # nested replicates, turned and moved, with sites, capsules from fromto, a frame, a camera and a light
    """<mujoco><compiler angle="radian"/><worldbody>
      <replicate count="2" offset="0 1 0" euler="0 0 1.5707963267948966">
        <replicate count="3" offset="1 0 0" euler="0 0.1 0"><site name="t" pos="0 0 .5"/>
          <geom name="x" size=".1" fromto="0 0 0 0 0 1" type="capsule"/></replicate></replicate>
      <body name="bb"><joint name="jj" type="slide"/><replicate count="2" offset="0 0 1"><geom name="q" size=".1"/>
        <frame pos="1 0 0"><site name="fs"/></frame><camera name="c"/><light name="l"/></replicate></body>
    </worldbody></mujoco>""",
    # bodies with joints in a ring (degrees, sep), an actuator naming one of the copies
    """<mujoco><worldbody><replicate count="12" offset="0.1 0 0" euler="0 0 30" sep="-">
        <body name="b" pos="0 0 1"><joint name="j"/><geom name="g" size=".05" pos=".2 0 0"/><site name="s"/></body>
      </replicate><replicate count="0"><geom name="none" size=".1"/></replicate></worldbody>
      <actuator><motor joint="j-03" name="m"/></actuator></mujoco>""",
)


@pytest.mark.parametrize("xml", _REPLICATE)
def test_replicate_as_mujoco(xml):
  """<replicate>: copies in document order, copy k moved and turned k times, names suffixed with sep and the copy's
  number (zero-padded to count's digits, an inner replicate's number first), count 0 giving none: MuJoCo's names
  and frames."""
  theirs, ours = oracle.models(xml)
  for objtype, count in ((mujoco.mjtObj.mjOBJ_BODY, theirs.nbody), (mujoco.mjtObj.mjOBJ_JOINT, theirs.njnt),
                         (mujoco.mjtObj.mjOBJ_GEOM, theirs.ngeom), (mujoco.mjtObj.mjOBJ_SITE, theirs.nsite),
                         (mujoco.mjtObj.mjOBJ_CAMERA, theirs.ncam), (mujoco.mjtObj.mjOBJ_LIGHT, theirs.nlight)):
    assert ([physics.mj_id2name(ours, int(objtype), i) for i in range(count)]
            == [mujoco.mj_id2name(theirs, objtype, i) for i in range(count)]), objtype
  for field in ("body_pos", "body_quat", "body_mass", "geom_pos", "geom_quat", "site_pos", "site_quat", "cam_pos",
                "cam_quat", "light_pos", "jnt_pos", "actuator_trnid"):
    np.testing.assert_allclose(getattr(ours, field), getattr(theirs, field), rtol=0, atol=1e-12, err_msg=field)


def test_replicate_refuses_joints():
  """MuJoCo refuses a joint directly in a <replicate> (it belongs to a body); so does mjgym, naming the line."""
  xml = '<mujoco><worldbody><body><geom size=".1"/><replicate count="2">\n<joint/></replicate></body></worldbody></mujoco>'
  with pytest.raises(ValueError, match="joint cannot be a direct child of replicate"):
    mujoco.MjModel.from_xml_string(xml)
  with pytest.raises(physics.MJCFError, match=r":2: .*<joint>"):
    physics.MjModel.from_xml_string(xml)


def test_vis_matches_mujoco():
  xml = """<mujoco><visual><global fovy="30" azimuth="10"/><map znear="0.02" zfar="80"/>
    <headlight ambient="0.2 0.2 0.2" active="0"/><quality shadowsize="1024"/></visual>
    <worldbody><geom size="1"/></worldbody></mujoco>"""
  mjm, m = oracle.models(xml)
  for section, names in {"global_": ("fovy", "azimuth", "elevation"), "map": ("znear", "zfar", "haze", "shadowclip"),
                         "headlight": ("ambient", "diffuse", "specular", "active"),
                         "quality": ("offsamples", "shadowsize")}.items():
    for name in names:
      ours, theirs = getattr(getattr(m.vis, section), name), getattr(getattr(mjm.vis, section), name)
      np.testing.assert_allclose(ours, theirs, rtol=1e-6, err_msg=f"vis.{section}.{name}")
  # MuJoCo 4.0.0's default haze colour is white; our compiler keeps MuJoCo 3's default (the renderer's choice)
  np.testing.assert_allclose(m.vis.rgba.haze, [0.15, 0.25, 0.35, 1.0])


def test_every_visual_setting_is_mujocos():
  """m.vis holds every field of mjVisual, MuJoCo's defaults and the values <visual> gives (float32 as MuJoCo's
  floats: equal to 1e-7); whole sections and whole MjVisuals assign by copying in, as in the bindings."""
  xml = """<mujoco><visual><global orthographic="true" ipd="0.1" offwidth="800" glow="0.5" realtime="0.5"/>
    <quality numslices="10"/><map stiffness="50" fogend="20" actuatortendon="3"/>
    <scale framelength="2.5" jointwidth="0.3" frustum="5"/><rgba fog="0.1 0.2 0.3 0.4" joint="1 0 0 1"/>
    <headlight active="1"/></visual><worldbody><geom size="1"/></worldbody></mujoco>"""
  for mjm, m in (oracle.models(xml), oracle.models("<mujoco><visual><headlight active='1'/></visual></mujoco>")):
    for attr, section in physics.MjVisual.SECTIONS.items():
      for name, _, _, _ in section.FIELDS:
        if attr == "rgba" and name in ("haze", "bv", "bvactive"):
          continue  # haze: above; bv, bvactive: the bindings show them as empty arrays
        ours, theirs = getattr(getattr(m.vis, attr), name), getattr(getattr(mjm.vis, attr), name)
        np.testing.assert_allclose(ours, theirs, rtol=1e-7, err_msg=f"vis.{attr}.{name}")
  vis = copy.copy(m.vis)
  vis.scale.framelength, vis.rgba.fog = 3.0, (0.5, 0.5, 0.5, 1)
  fog = m.vis.rgba.fog
  m.vis = vis
  assert m.vis == vis and m.vis.scale.framelength == 3.0
  np.testing.assert_array_equal(fog, [0.5, 0.5, 0.5, 1])
  vis.scale.framelength = 4.0  # the model holds a copy
  assert m.vis.scale.framelength == 3.0 and m.vis != vis
  assert copy.deepcopy(m).vis == m.vis and pickle.loads(pickle.dumps(m)).vis == m.vis
  with pytest.raises(TypeError):
    m.vis.scale = m.vis.map
