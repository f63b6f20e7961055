"""Oracle tests of MuJoCo 4 attributes issue 19 added: actuator damping and armature (passed to the actuated
joint or tendon, times gear²) and the limit on the total force of a tendon's actuators (actuatorfrcrange)."""

import mujoco
import numpy as np
import pytest

import oracle
from located_error import assert_located_error
from mjgym import physics

RTOL = 1e-9
MODEL = oracle.MODELS_DIR / "actuator_damping_armature.xml"
COMPILED = ("actuator_damping", "actuator_armature", "jnt_actuatorid", "tendon_actuatorid", "tendon_actfrclimited",
            "tendon_actfrcrange", "dof_invweight0", "body_invweight0", "tendon_invweight0", "actuator_acc0")
FIELDS = ("qfrc_damper", "qfrc_passive", "actuator_force", "qfrc_actuator", "qacc")


def test_compiled_as_mujoco():
  mjm, m = oracle.models(MODEL)
  for name in COMPILED:
    oracle.assert_close(getattr(m, name), getattr(mjm, name), RTOL, name)


@pytest.mark.parametrize("from_mujoco", [False, True])
def test_forward_at_random_states(from_mujoco):
  mjm, mjd, m, d = oracle.load_both(MODEL, from_mujoco=from_mujoco)
  oracle.check_forward_at_random_states(mjm, mjd, m, d, seed=1, nstates=10, fields=FIELDS, rtol=RTOL)


@pytest.mark.parametrize("integrator", ["EULER", "RK4", "IMPLICIT", "IMPLICITFAST"])
def test_rollout_matches_mujoco(integrator):
  mjm, mjd, m, d = oracle.load_both(MODEL, integrator=integrator, timestep=0.005)
  rng = np.random.default_rng(2)
  oracle.random_state(mjm, mjd, rng)
  oracle.copy_state(mjd, d)
  for _ in range(60):
    mjd.ctrl[:] = d.ctrl[:] = rng.uniform(-1, 1, mjm.nu)
    mujoco.mj_step(mjm, mjd)
    physics.mj_step(m, d)
  oracle.assert_fields_close(d, mjd, ("qpos", "qvel", "act", "actuator_force"), RTOL, integrator)


def test_the_same_as_the_joint_and_tendon_attributes():
  # MuJoCo's own equivalence: an actuator's damping and armature act as gear² times them on its joint
  base = ('<mujoco><worldbody><body><joint name="j" damping="{}" armature="{}"/><geom size="0.1" pos="0 0 0.5"/>'
          '</body></worldbody><actuator><motor joint="j" gear="2" {}/></actuator></mujoco>')
  mjm, mjd, m, d = oracle.load_both(base.format(0.5, 0.1, 'damping="1" armature="0.25"'))
  ref = physics.MjModel.from_xml_string(base.format(4.5, 1.1, ""))
  dref = physics.MjData(ref)
  for _ in oracle.forward_states(mjm, mjd, m, d, seed=3, count=3):
    oracle.copy_state(mjd, dref)
    physics.mj_forward(ref, dref)
    oracle.assert_fields_close(d, dref, ("qacc", "qfrc_passive"), RTOL)


def test_inverse_dynamics():
  mjm, mjd, m, d = oracle.load_both(MODEL)
  for _ in oracle.forward_states(mjm, mjd, m, d, seed=4, count=4):
    mujoco.mj_inverse(mjm, mjd)
    physics.mj_inverse(m, d)
    oracle.assert_fields_close(d, mjd, ("qfrc_inverse",), RTOL)


def test_spatial_tendon_forces_on_bodies():
  mjm, mjd, m, d = oracle.load_both(MODEL)
  for _ in oracle.forward_states(mjm, mjd, m, d, seed=5, count=4):
    mujoco.mj_rnePostConstraint(mjm, mjd)
    physics.mj_rnePostConstraint(m, d)
    oracle.assert_fields_close(d, mjd, ("cfrc_ext", "cfrc_int", "cacc"), RTOL)


@pytest.mark.parametrize("ctrl", [(1.0, 1.0), (-1.0, -1.0), (1.0, -1.0), (0.3, 0.1), (0.0, 0.0)])
def test_tendon_actuator_force_limit(ctrl):
  # the two motors on tendon "pair": their total is brought into [-1.5, 1.8] by one factor, then each is clamped
  mjm, mjd, m, d = oracle.load_both(MODEL)
  for _ in oracle.random_states(mjm, mjd, seed=6, count=3):
    mjd.ctrl[5:7] = ctrl
    oracle.forward_both(mjm, mjd, m, d)
    oracle.assert_fields_close(d, mjd, ("actuator_force", "qfrc_actuator", "qacc"), RTOL, str(ctrl))


def test_a_model_without_the_attributes_is_bitwise_unchanged():
  # the new terms add exact zeros: the same joint damping with and without a zero-damping actuator
  xml = ('<mujoco><worldbody><body><joint name="j" damping="0.7" armature="0.3"/><geom size="0.1" pos="0 0 0.5"/>'
         '</body></worldbody><actuator><motor joint="j" {}/></actuator></mujoco>')
  a, b = (physics.MjModel.from_xml_string(xml.format(extra)) for extra in ("", 'damping="0" armature="0"'))
  da, db = physics.MjData(a), physics.MjData(b)
  for data in (da, db):
    data.qpos[:] = 0.4
    data.qvel[:] = -1.3
    data.ctrl[:] = 0.2
    physics.mj_step(a, data, 5)
  assert np.array_equal(da.qpos, db.qpos) and np.array_equal(da.qvel, db.qvel)


@pytest.mark.parametrize("actuator,attribute,fragment", [
    ('<motor site="s" damping="1"/>', "damping", "requires joint or tendon transmission"),
    ('<motor site="s" armature="1"/>', "armature", "requires joint or tendon transmission"),
    ('<motor joint="j" damping="1 2"/>', "damping", "nonlinear damping"),
])
def test_refused_actuator_values(tmp_path, actuator, attribute, fragment):
  text = ('<mujoco>\n<worldbody><body><joint name="j"/><geom size="0.1"/><site name="s"/><site name="s2" pos="1 0 0"/>'
          '</body></worldbody>\n<tendon><fixed name="t"><joint joint="j" coef="1"/></fixed></tendon>\n'
          f'<actuator>\n{actuator}\n</actuator>\n</mujoco>')
  assert_located_error(tmp_path, text, 5, "motor", attribute, fragment)


def test_bad_tendon_actuatorfrcrange(tmp_path):
  text = ('<mujoco>\n<worldbody><body><joint name="j"/><geom size="0.1"/></body></worldbody>\n<tendon>\n'
          '<fixed actuatorfrclimited="true" actuatorfrcrange="1 -1"><joint joint="j" coef="1"/></fixed>\n'
          '</tendon>\n</mujoco>')
  assert_located_error(tmp_path, text, 4, "fixed", "actuatorfrcrange", "actuator force limited tendon")


_SHAPES = (("sphere", "0.1"), ("capsule", "0.05 0.2"), ("cylinder", "0.07 0.1"), ("ellipsoid", "0.2 0.1 0.04"),
           ("box", "0.1 0.3 0.02"))


@pytest.mark.parametrize("mass", ["", 'mass="2"', 'density="7"'])
def test_shellinertia_of_every_primitive(mass):
  # each body: a shell geom beside a solid one, so the shell's mass, inertia and com all enter the body's
  bodies = "".join(f'<body pos="{i} 0 0"><freejoint/><geom type="{t}" size="{s}" shellinertia="true" {mass} '
                   f'euler="10 20 30"/><geom type="{t}" size="{s}" pos="0.1 0 0"/></body>'
                   for i, (t, s) in enumerate(_SHAPES))
  mjm, m = oracle.models(f'<mujoco><default><default class="shell"><geom shellinertia="true"/></default></default>'
                         f'<worldbody>{bodies}<body><freejoint/><geom class="shell" type="box" size="0.2 0.1 0.3"/>'
                         f'</body></worldbody></mujoco>')
  for name in ("body_mass", "body_inertia", "body_ipos", "body_iquat"):
    oracle.assert_close(getattr(m, name), getattr(mjm, name), RTOL, name)


def test_shellinertia_on_a_mesh_geom_is_refused(tmp_path):
  text = ('<mujoco>\n<asset><mesh name="tet" vertex="0 0 0 1 0 0 0 1 0 0 0 1"/></asset>\n<worldbody><body>'
          '<freejoint/>\n<geom type="mesh" mesh="tet" shellinertia="true"/>\n</body></worldbody>\n</mujoco>')
  assert_located_error(tmp_path, text, 4, "geom", "shellinertia", "inertia should be specified in the mesh asset")


_MESHES = ('<mesh name="tet" vertex="0 0 0 1 0 0 0 2 0 0 0 0.5 0.3 0.3 0.3" scale="0.3 0.2 0.4"/>'
           '<mesh name="hut" inertia="shell" vertex="-1 -1 -1 1 -1 -1 1 1 -1 -1 1 -1 -1 -1 1 1 -1 1 1 1 1 -1 1 1 '
           '0 0 1.6"/>')
_FIT_FIELDS = ("geom_size", "geom_pos", "geom_quat", "geom_dataid", "geom_rbound", "geom_aabb", "body_mass",
               "body_inertia", "body_ipos", "body_iquat")


@pytest.mark.parametrize("compiler", ["", '<compiler fitaabb="true"/>'])
@pytest.mark.parametrize("extra", ["", 'fitscale="1.3"', 'fitscale="0.7" shellinertia="true" mass="2"',
                                   'size="0.1 0.2 0.3" fitscale="2"'])
def test_primitives_fitted_to_meshes(compiler, extra):
  # a primitive geom naming a mesh is fitted to it (inertia box, or bounding box with fitaabb), times fitscale
  bodies = "".join(f'<body pos="{i} 0 0"><freejoint/><geom type="{t}" mesh="{mesh}" {extra} pos="0.1 0.2 0" '
                   f'euler="10 20 30"/></body>'
                   for i, t in enumerate(("sphere", "capsule", "cylinder", "ellipsoid", "box")) for mesh in ("tet", "hut"))
  mjm, m = oracle.models(f'<mujoco>{compiler}<asset>{_MESHES}</asset><worldbody>{bodies}</worldbody></mujoco>')
  for name in _FIT_FIELDS:
    oracle.assert_close(getattr(m, name), getattr(mjm, name), RTOL, name)


def test_fitted_geom_forward():
  mjm, mjd, m, d = oracle.load_both(f'<mujoco><asset>{_MESHES}</asset><worldbody><body><freejoint/>'
                                    '<geom type="capsule" mesh="tet"/><geom type="box" mesh="hut" pos="0 0 -1"/>'
                                    '</body><geom type="plane" size="5 5 1" pos="0 0 -1.2"/></worldbody></mujoco>')
  oracle.check_forward_at_random_states(mjm, mjd, m, d, seed=7, nstates=4, fields=("qacc",), rtol=RTOL)


def test_fitting_refuses_fromto(tmp_path):
  text = (f'<mujoco>\n<asset>{_MESHES}</asset>\n<worldbody>\n<geom type="capsule" mesh="tet" fromto="0 0 0 1 0 0"/>'
          '\n</worldbody>\n</mujoco>')
  assert_located_error(tmp_path, text, 4, "geom", "fromto", "fromto cannot be used with mesh geom")


def test_exactmeshinertia_is_not_mujoco_4(tmp_path):
  # MuJoCo 4 removed it: an unknown attribute, as there
  with pytest.raises(ValueError, match="unrecognized attribute: 'exactmeshinertia'"):
    mujoco.MjModel.from_xml_string('<mujoco><compiler exactmeshinertia="true"/></mujoco>')
  assert_located_error(tmp_path, '<mujoco>\n<compiler exactmeshinertia="true"/>\n</mujoco>', 2, "compiler",
                       "exactmeshinertia", "")


_ALIGN = ('<mujoco><compiler alignfree="{}"/><worldbody>'
          '<body pos="1 2 3" euler="10 20 30"><freejoint {}/><geom type="box" size="0.1 0.2 0.3" pos="0.2 0 0" '
          'euler="5 0 0"/><geom size="0.1" pos="0 0.3 0"/><site name="s" pos="0.1 0.1 0.1" euler="0 0 20"/>'
          '<camera pos="0 0 1"/><light pos="0 1 0" dir="0 1 -1"/></body>'
          '<body pos="0 0 1"><freejoint/><geom size="0.1" pos="0.1 0 0"/><body pos="0.2 0 0"><geom size="0.1"/>'
          '</body></body>'
          '<body pos="0 1 1"><freejoint align="true"/><inertial pos="0.1 0.2 0" euler="30 0 0" mass="1" '
          'diaginertia="1 2 3"/><geom size="0.1" pos="0.1 0 0"/></body>'
          '<body pos="0 1 1"><joint type="slide"/><joint type="ball"/><geom size="0.1" pos="0.1 0 0"/></body>'
          '</worldbody></mujoco>')
_ALIGN_FIELDS = ("body_pos", "body_quat", "body_ipos", "body_iquat", "qpos0", "geom_pos", "geom_quat", "site_pos",
                 "site_quat", "cam_pos", "cam_quat", "light_pos", "light_dir", "body_sameframe", "geom_sameframe",
                 "site_sameframe", "cam_mat0", "light_dir0")


@pytest.mark.parametrize("alignfree,align", [("false", ""), ("true", ""), ("false", 'align="true"'),
                                             ("true", 'align="false"')])
def test_free_joint_alignment(alignfree, align):
  # only childless bodies whose one joint is free are aligned: the first body by the switches, the third always
  mjm, mjd, m, d = oracle.load_both(_ALIGN.format(alignfree, align))
  for name in _ALIGN_FIELDS:
    oracle.assert_close(getattr(m, name), getattr(mjm, name), RTOL, name)
  oracle.check_forward_at_random_states(mjm, mjd, m, d, seed=8, nstates=3, fields=("xpos", "site_xpos", "qacc"),
                                        rtol=RTOL)


_GROUPS = ('<mujoco><option actuatorgroupdisable="1 3 30"/><worldbody><body><joint name="j"/>'
           '<geom size="0.1" pos="0 0 0.5"/><body pos="0 0 0.5"><joint name="k" type="slide"/><geom size="0.1"/>'
           '</body></body></worldbody><tendon><fixed name="t" actuatorfrcrange="-0.5 0.5"><joint joint="j" coef="1"/>'
           '<joint joint="k" coef="0.3"/></fixed></tendon><actuator>'
           '<motor joint="j" group="1" forcerange="0.5 1"/>'
           '<general joint="j" group="0" dyntype="integrator" gainprm="2"/>'
           '<general joint="k" group="3" dyntype="filter" dynprm="0.1" gainprm="1 0 -2" gaintype="affine"/>'
           '<motor joint="k" group="5" damping="1"/><general joint="j" group="40"/>'
           '<motor tendon="t" group="1" gear="2"/><motor tendon="t" group="2"/>'
           '<position joint="k" group="30" kp="5" kv="1"/></actuator></mujoco>')


@pytest.mark.parametrize("integrator", ["EULER", "RK4", "IMPLICIT", "IMPLICITFAST"])
def test_actuatorgroupdisable(integrator):
  # disabled groups give no force (a zero still clamped to forcerange and counted in a tendon's total, as
  # MuJoCo) and hold their activations; groups outside 0..30 are never disabled
  mjm, mjd, m, d = oracle.load_both(_GROUPS, integrator=integrator)
  assert m.opt.disableactuator == mjm.opt.disableactuator == (1 << 1) | (1 << 3) | (1 << 30)
  rng = np.random.default_rng(9)
  oracle.random_state(mjm, mjd, rng)
  oracle.copy_state(mjd, d)
  for _ in range(40):
    mjd.ctrl[:] = d.ctrl[:] = rng.uniform(-1, 1, mjm.nu)
    mujoco.mj_step(mjm, mjd)
    physics.mj_step(m, d)
  oracle.assert_fields_close(d, mjd, ("qpos", "qvel", "act", "act_dot", "actuator_force", "qfrc_actuator"), RTOL,
                             integrator)
  # switched back on at run time
  mjm.opt.disableactuator = m.opt.disableactuator = 0
  oracle.forward_both(mjm, mjd, m, d)
  oracle.assert_fields_close(d, mjd, ("actuator_force", "qfrc_actuator", "qacc"), RTOL)


@pytest.mark.parametrize("value,fragment", [("31", "not in 0..30"), ("-1", "not in 0..30")])
def test_bad_actuatorgroupdisable(tmp_path, value, fragment):
  assert_located_error(tmp_path, f'<mujoco>\n<option actuatorgroupdisable="{value}"/>\n</mujoco>', 2, "option",
                       "actuatorgroupdisable", fragment)
