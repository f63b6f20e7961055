"""d.energy (mjENBL_ENERGY), m.stat and m.vis against MuJoCo."""

import pathlib

import mujoco
import numpy as np
import pytest

import oracle
from mjgym import physics

ASSETS = pathlib.Path(physics.__file__).resolve().parents[1] / "assets"

# Springs on every joint type and on a tendon (with a dead band), gravity, a ball joint chain.
SPRINGS = """
<mujoco model="springs">
  <option><flag energy="enable"/></option>
  <worldbody>
    <geom type="plane" size="3 3 0.1"/>
    <body name="free" pos="0 0 1">
      <joint type="free" stiffness="3"/>
      <geom type="box" size="0.1 0.2 0.05"/>
      <site name="s0" pos="0.1 0 0"/>
    </body>
    <body name="a" pos="1 0 1">
      <joint type="ball" stiffness="2" damping="0.1"/>
      <geom type="capsule" fromto="0 0 0 0.3 0 0" size="0.04"/>
      <body name="b" pos="0.3 0 0">
        <joint type="hinge" axis="0 1 0" stiffness="5" springref="20"/>
        <geom type="capsule" fromto="0 0 0 0 0 -0.3" size="0.03"/>
        <body name="c" pos="0 0 -0.3">
          <joint type="slide" axis="1 0 0" stiffness="7" springref="0.05"/>
          <geom type="sphere" size="0.05"/>
          <site name="s1"/>
        </body>
      </body>
    </body>
  </worldbody>
  <tendon>
    <spatial stiffness="4" springlength="0.9 1.1"><site site="s0"/><site site="s1"/></spatial>
  </tendon>
</mujoco>
"""


def _pair(spec):
  if isinstance(spec, str):
    return mujoco.MjModel.from_xml_string(spec), physics.MjModel.from_xml_string(spec)
  return mujoco.MjModel.from_xml_path(str(spec)), physics.MjModel.from_xml_path(spec)


def _enable(mjm, m):
  mjm.opt.enableflags |= int(mujoco.mjtEnableBit.mjENBL_ENERGY)
  m.opt.enableflags |= int(physics.mjtEnableBit.mjENBL_ENERGY)


@pytest.mark.parametrize("spec", [SPRINGS, ASSETS / "humanoid.xml", ASSETS / "ant.xml", ASSETS / "hopper.xml"],
                         ids=["springs", "humanoid", "ant", "hopper"])
def test_energy_matches_mujoco_after_forward(spec):
  mjm, m = _pair(spec)
  _enable(mjm, m)
  mjd, d = mujoco.MjData(mjm), physics.MjData(m)
  rng = np.random.default_rng(0)
  for _ in range(5):
    oracle.random_state(mjm, mjd, rng)
    mujoco.mj_forward(mjm, mjd)
    oracle.copy_state(mjd, d)
    physics.mj_forward(m, d)
    assert mjd.energy[1] > 0
    oracle.assert_close(d.energy, mjd.energy, 1e-12, "energy")


@pytest.mark.parametrize("integrator", ["Euler", "RK4", "implicitfast"])
def test_energy_after_a_step_matches_mujoco(integrator):
  mjm, m = _pair(SPRINGS)
  for model, enum in ((mjm, mujoco.mjtIntegrator), (m, physics.mjtIntegrator)):
    model.opt.integrator = int(getattr(enum, f"mjINT_{integrator.upper()}"))
  mjd, d = mujoco.MjData(mjm), physics.MjData(m)
  rng = np.random.default_rng(1)
  for _ in range(3):
    oracle.random_state(mjm, mjd, rng)
    oracle.copy_state(mjd, d)
    mujoco.mj_step(mjm, mjd)
    physics.mj_step(m, d)
    # RK4 leaves the energy of its last inner evaluation, as MuJoCo does
    oracle.assert_close(d.energy, mjd.energy, 1e-10, f"energy after a {integrator} step")


def test_energy_disabled_is_zero_and_gravity_spring_flags_apply():
  mjm, m = _pair(SPRINGS)
  mjd, d = mujoco.MjData(mjm), physics.MjData(m)
  oracle.random_state(mjm, mjd, np.random.default_rng(2))
  oracle.copy_state(mjd, d)
  physics.mj_forward(m, d)
  assert d.energy[0] != 0
  m.opt.enableflags = 0
  physics.mj_forward(m, d)
  np.testing.assert_array_equal(d.energy, [0.0, 0.0])
  for flag in ("mjDSBL_GRAVITY", "mjDSBL_SPRING"):
    mjm.opt.disableflags = int(getattr(mujoco.mjtDisableBit, flag))
    m.opt.disableflags = int(getattr(physics.mjtDisableBit, flag))
    m.opt.enableflags = int(physics.mjtEnableBit.mjENBL_ENERGY)
    mujoco.mj_forward(mjm, mjd)
    physics.mj_forward(m, d)
    oracle.assert_close(d.energy, mjd.energy, 1e-12, f"energy with {flag}")


def test_energy_functions_run_without_the_flag():
  mjm, m = _pair(ASSETS / "humanoid.xml")
  mjd, d = mujoco.MjData(mjm), physics.MjData(m)
  oracle.random_state(mjm, mjd, np.random.default_rng(4))
  oracle.copy_state(mjd, d)
  mujoco.mj_forward(mjm, mjd)
  physics.mj_forward(m, d)
  np.testing.assert_array_equal(d.energy, [0.0, 0.0])
  mujoco.mj_energyPos(mjm, mjd)
  mujoco.mj_energyVel(mjm, mjd)
  physics.mj_energyPos(m, d)
  physics.mj_energyVel(m, d)
  assert mjd.energy[0] != 0 and mjd.energy[1] != 0
  oracle.assert_close(d.energy, mjd.energy, 1e-12, "energy")


STAT_MODELS = [ASSETS / f for f in ("humanoid.xml", "ant.xml", "hopper.xml", "pusher.xml", "reacher.xml",
                                    "swimmer.xml", "cartpole.xml", "half_cheetah.xml")]
STAT_MODELS += [oracle.gym_asset(name) for name in ("walker2d", "inverted_double_pendulum", "humanoidstandup")]
STAT_MODELS += [oracle.MODELS_DIR / f for f in ("hfield_terrain.xml", "mesh_geoms.xml", "tendon_spatial.xml")]


@pytest.mark.parametrize("path", STAT_MODELS, ids=lambda p: p.stem)
def test_stat_matches_mujoco(path):
  mjm, m = _pair(path)
  for name in ("meaninertia", "meanmass", "meansize", "extent"):
    assert getattr(m.stat, name) == pytest.approx(getattr(mjm.stat, name), rel=1e-12, abs=1e-12), name
  np.testing.assert_allclose(m.stat.center, mjm.stat.center, rtol=1e-12, atol=1e-12)


def test_statistic_element_overrides():
  xml = SPRINGS.replace('<option>', '<statistic extent="3" center="1 2 3" meanmass="7" meaninertia="0.5"/><option>')
  mjm, m = _pair(xml)
  for name in ("meaninertia", "meanmass", "meansize", "extent"):
    assert getattr(m.stat, name) == pytest.approx(getattr(mjm.stat, name), rel=1e-12), name
  np.testing.assert_array_equal(m.stat.center, [1, 2, 3])
  empty_mj, empty = _pair("<mujoco/>")
  for name in ("meaninertia", "meanmass", "meansize", "extent"):
    assert getattr(empty.stat, name) == getattr(empty_mj.stat, name), name
  m.stat.extent = 9.0
  assert m.stat_extent[0] == 9.0


def test_vis_matches_mujoco():
  xml = """<mujoco><visual><global fovy="30" azimuth="10"/><map znear="0.02" zfar="80"/>
    <headlight ambient="0.2 0.2 0.2" active="0"/><quality shadowsize="1024"/></visual>
    <worldbody><geom size="1"/></worldbody></mujoco>"""
  mjm, m = _pair(xml)
  for section, names in {"global_": ("fovy", "azimuth", "elevation"), "map": ("znear", "zfar", "haze", "shadowclip"),
                         "headlight": ("ambient", "diffuse", "specular", "active"),
                         "quality": ("offsamples", "shadowsize")}.items():
    for name in names:
      ours, theirs = getattr(getattr(m.vis, section), name), getattr(getattr(mjm.vis, section), name)
      np.testing.assert_allclose(ours, theirs, rtol=1e-6, err_msg=f"vis.{section}.{name}")
  # MuJoCo 4.0.0's default haze colour is white; our compiler keeps MuJoCo 3's default (the renderer's choice)
  np.testing.assert_allclose(m.vis.rgba.haze, [0.15, 0.25, 0.35, 1.0])
  with pytest.raises(AttributeError, match="not compiled"):
    m.vis.scale  # pylint: disable=pointless-statement
  with pytest.raises(AttributeError, match="not compiled here"):
    m.vis.global_.orthographic  # pylint: disable=pointless-statement
