"""Oracle tests of MuJoCo's ellipsoid fluid model (<geom fluidshape="ellipsoid">, passive.py): the compiled
geom_fluid and the fluid forces, beside the inertia-box model."""

import mujoco
import numpy as np
import pytest

import oracle
from mjgym import physics

RTOL = 1e-9
MODEL = oracle.MODELS_DIR / "fluid_ellipsoid.xml"
FIELDS = ("qfrc_fluid", "qfrc_passive", "qacc")


def _geoms(fluid):
  """One free body of every primitive geom type, each with geom attributes ``fluid``."""
  shapes = (("sphere", "0.1"), ("capsule", "0.05 0.2"), ("cylinder", "0.07 0.1"), ("ellipsoid", "0.2 0.1 0.04"),
            ("box", "0.1 0.3 0.02"), ("ellipsoid", "0.1 0.1 0.1"), ("box", "0.1 0.1 0.3"))
  bodies = "".join(f'<body pos="{i} 0 0"><freejoint/><geom type="{t}" size="{s}" {fluid}/></body>'
                   for i, (t, s) in enumerate(shapes))
  return f'<mujoco><option density="1000" viscosity="0.001"/><worldbody>{bodies}</worldbody></mujoco>'


@pytest.mark.parametrize("fluid", ['fluidshape="ellipsoid"', 'fluidshape="ellipsoid" fluidcoef="0.1 0.2 0.3 0.4"',
                                   'fluidshape="none" fluidcoef="1 2 3 4 5"'])
def test_geom_fluid_compiled_as_mujoco(fluid):
  mjm, m = oracle.models(_geoms(fluid))
  oracle.assert_close(m.geom_fluid, mjm.geom_fluid, RTOL, "geom_fluid")


def test_geom_fluid_of_the_test_model_and_defaults():
  mjm, m = oracle.models(MODEL)
  oracle.assert_close(m.geom_fluid, mjm.geom_fluid, RTOL, "geom_fluid")
  assert mjm.geom_fluid[:, 0].tolist() == [1, 1, 1, 1, 0, 1, 0, 0]


@pytest.mark.parametrize("options", [{}, {"density": 0.0}, {"viscosity": 0.0}, {"wind": (0.0, 0.0, 0.0)},
                                     {"density": 50.0, "viscosity": 0.5}])
def test_fluid_forces_at_random_states(options):
  mjm, mjd, m, d = oracle.load_both(MODEL, **options)
  for _ in oracle.forward_states(mjm, mjd, m, d, seed=3, count=8, scale=2.0):
    oracle.assert_fields_close(d, mjd, FIELDS, RTOL, str(options))


def test_fluid_forces_from_mujoco_model():
  # the engine apart from our compiler: MuJoCo's own geom_fluid
  mjm, mjd, m, d = oracle.load_both(MODEL, from_mujoco=True)
  for _ in oracle.forward_states(mjm, mjd, m, d, seed=4, count=5, scale=2.0):
    oracle.assert_fields_close(d, mjd, FIELDS, RTOL)


def test_every_geom_type_at_random_states():
  mjm, mjd, m, d = oracle.load_both(_geoms('fluidshape="ellipsoid" fluidcoef="0.3 0.2 1 0.7 1.3"'),
                                    wind=(1.0, 2.0, -0.5))
  for _ in oracle.forward_states(mjm, mjd, m, d, seed=5, count=8, scale=3.0):
    oracle.assert_fields_close(d, mjd, FIELDS, RTOL)


@pytest.mark.parametrize("integrator", ["EULER", "RK4", "IMPLICIT", "IMPLICITFAST"])
def test_rollout_matches_mujoco(integrator):
  mjm, mjd, m, d = oracle.load_both(MODEL, integrator=integrator, timestep=0.002)
  rng = np.random.default_rng(6)
  oracle.random_state(mjm, mjd, rng, scale=2.0)
  oracle.copy_state(mjd, d)
  for _ in range(100):
    mujoco.mj_step(mjm, mjd)
    physics.mj_step(m, d)
  oracle.assert_fields_close(d, mjd, ("qpos", "qvel", "qfrc_fluid"), RTOL, integrator)


def test_a_massless_body_takes_no_fluid_force():
  # (a massless body welded to a moving one)
  xml = ('<mujoco><option density="1000"/><worldbody><body><freejoint/><geom size="0.1"/>'
         '<body pos="0.3 0 0"><geom size="0.1" mass="0" fluidshape="ellipsoid"/></body></body></worldbody></mujoco>')
  mjm, mjd, m, d = oracle.load_both(xml)
  for _ in oracle.forward_states(mjm, mjd, m, d, seed=7, count=3):
    oracle.assert_fields_close(d, mjd, FIELDS, RTOL)


def test_bad_fluidshape_is_refused():
  with pytest.raises(physics.MJCFError, match="fluidshape"):
    physics.MjModel.from_xml_string('<mujoco><worldbody><geom size="1" fluidshape="box"/></worldbody></mujoco>')
  with pytest.raises(physics.MJCFError, match="fluidcoef"):
    physics.MjModel.from_xml_string('<mujoco><worldbody><geom size="1" fluidcoef="1 2 3 4 5 6"/></worldbody>'
                                    '</mujoco>')


@pytest.mark.parametrize("integrator", ["IMPLICIT", "IMPLICITFAST"])
def test_implicit_step_uses_the_ellipsoid_derivative(integrator):
  # a dense fluid, so that d(qfrc_fluid)/d(qvel) moves the implicit step far from the explicit one: one step from
  # each random state (the lone free body "ball" keeps its full 6x6 block under implicitfast, the others are
  # symmetrized)
  mjm, mjd, m, d = oracle.load_both(MODEL, integrator=integrator, timestep=0.005, density=500.0)
  for _ in oracle.random_states(mjm, mjd, seed=8, count=6, scale=2.0):
    oracle.copy_state(mjd, d)
    mujoco.mj_step(mjm, mjd)
    physics.mj_step(m, d)
    oracle.assert_fields_close(d, mjd, ("qacc", "qvel", "qpos"), RTOL, integrator)


def test_mesh_geom_as_its_ellipsoid():
  xml = ('<mujoco><asset><mesh name="tet" vertex="0 0 0 1 0 0 0 2 0 0 0 0.5 0.3 0.3 0.3"/></asset>'
         '<option density="1000" viscosity="0.01"/><worldbody><body><freejoint/>'
         '<geom type="mesh" mesh="tet" fluidshape="ellipsoid"/></body></worldbody></mujoco>')
  mjm, mjd, m, d = oracle.load_both(xml)
  oracle.assert_close(m.geom_fluid, mjm.geom_fluid, RTOL, "geom_fluid")
  for _ in oracle.forward_states(mjm, mjd, m, d, seed=9, count=4):
    oracle.assert_fields_close(d, mjd, FIELDS, RTOL)
