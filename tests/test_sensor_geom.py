"""Oracle tests of the geom-distance sensors (<distance>, <normal>, <fromto>) against the `mujoco` package.

The model, built below, holds two free bodies of every shape the narrow phase collides (sphere, capsule, box,
cylinder, ellipsoid, mesh) and a floor plane, with a distance, normal and fromto sensor for every pair of them at
several cutoffs (0, beyond which separated geoms read 0; 0.05, which most pairs exceed or overlap deeper than; 1), in
both geom orders, plus sensors of a body of three geoms against geoms, bodies and the world, and of a body with no
geom. Its geoms do not collide (contype 0): the sensors measure geoms the collision pipeline never sees, as those of
dm_control's robot_arm.xml do.

Tolerances are absolute (the geoms are 0.1 across) and set by the collider each engine uses for a pair:

- closed forms (plane against anything, sphere against sphere, capsule, cylinder or box, capsule against capsule or
  box): 1e-12 for every sensor, the same arithmetic up to round-off;
- everything else goes to GJK/EPA, which the two engines implement differently, both stopping after
  opt.ccd_iterations at opt.ccd_tolerance (1e-6 by default). At MuJoCo's defaults only distances are compared:
  within 1e-6 for points, segments and polytopes (sphere, capsule, box, mesh against box or mesh, box-box under
  native CCD, and the body sensors), within 1e-3 for curved shapes (an ellipsoid or a cylinder against anything but
  a plane or sphere-cylinder), where MuJoCo's own distances are off by up to 4e-4 from converged ones
  (tests/test_collision.py). Their nearest points are not fixed by a stopped GJK: a segment nearly parallel to a
  face slides along it for free, a point of a curved surface is fixed only to about sqrt(2 R e) by a distance known
  to e (R its radius of curvature). So normals and fromto segments are compared with both engines run to
  convergence (2000 iterations, tolerance 1e-13): distances within 1e-12 (polytopes) and 1e-9 (curved), fromto
  within 1e-7 and 2e-5, normals (the fromto difference over its length) within 1e-10 and 5e-4 (measured over these
  states: 4e-9 and 4e-6 for fromto, 4e-13 and 4e-5 for normals).
"""

import itertools

import mujoco
import numpy as np
import pytest

import oracle
from mjgym import physics
from mjgym.physics.mjcf import MJCFError

_SHAPES = {
    "sphere": 'type="sphere" size="0.1"',
    "capsule": 'type="capsule" size="0.06 0.1"',
    "box": 'type="box" size="0.1 0.07 0.05"',
    "cylinder": 'type="cylinder" size="0.08 0.06"',
    "ellipsoid": 'type="ellipsoid" size="0.12 0.08 0.06"',
    "mesh": 'type="mesh" mesh="rock"',
}
_MESH = ('<mesh name="rock" vertex="0.1 0 0  -0.08 0.03 0  0 0.09 0.02  0 -0.07 0.05  0.02 0.01 -0.1  '
         '-0.03 -0.02 0.08"/>')
_CONVERGED = '<option ccd_iterations="2000" ccd_tolerance="1e-13"/>'
_G = mujoco.mjtGeom
_CLOSED = {(_G.mjGEOM_SPHERE, t) for t in (_G.mjGEOM_SPHERE, _G.mjGEOM_CAPSULE, _G.mjGEOM_CYLINDER, _G.mjGEOM_BOX)}
_CLOSED |= {(_G.mjGEOM_CAPSULE, _G.mjGEOM_CAPSULE), (_G.mjGEOM_CAPSULE, _G.mjGEOM_BOX)}
_CURVED = (_G.mjGEOM_ELLIPSOID, _G.mjGEOM_CYLINDER)


def _model_xml(option=""):
  bodies, geoms = [], ["floor"]
  for k, (name, attrs) in enumerate((n, a) for n, a in _SHAPES.items() for _ in range(2)):
    geom = f"{name}{k % 2}"
    x, y = (k % 4) * 0.22 - 0.33, (k // 4) * 0.22 - 0.22
    bodies.append(f'<body name="b_{geom}" pos="{x:.2f} {y:.2f} 0"><freejoint/><geom name="{geom}" {attrs}/></body>')
    geoms.append(geom)
  bodies.append('<body name="multi" pos="0 0 0.2"><freejoint/><geom name="m1" type="sphere" size="0.05"/>'
                '<geom name="m2" type="box" size="0.04 0.04 0.04" pos="0.12 0 0"/>'
                '<geom name="m3" type="capsule" size="0.03 0.06" pos="-0.1 0 0" euler="0 90 0"/></body>')
  bodies.append('<body name="empty" pos="0.3 0.3 0.3"><freejoint/>'
                '<inertial pos="0 0 0" mass="1" diaginertia="1 1 1"/></body>')
  sensors = []
  for i, (a, b) in enumerate(itertools.combinations(geoms, 2)):
    if i % 2:
      a, b = b, a
    sensors += [f'<distance geom1="{a}" geom2="{b}" cutoff="{c}"/>' for c in (0, 0.05, 1)]
    sensors += [f'<normal geom1="{b}" geom2="{a}" cutoff="1"/>', f'<fromto geom1="{a}" geom2="{b}" cutoff="1"/>',
                f'<fromto geom1="{b}" geom2="{a}" cutoff="0.05"/>']
  for other in ("b_sphere0", "b_box1", "b_mesh0", "world"):
    sensors += [f'<distance body1="multi" body2="{other}" cutoff="1"/>',
                f'<fromto body1="{other}" body2="multi" cutoff="1"/>',
                f'<normal body1="multi" geom2="capsule0" cutoff="0.1"/>']
  sensors += ['<distance body1="empty" body2="multi" cutoff="0.5"/>',
              '<fromto geom1="sphere0" body2="empty" cutoff="0.5"/>']
  return f"""<mujoco>{option}
  <asset>{_MESH}</asset>
  <default><geom contype="0" conaffinity="0"/></default>
  <worldbody><geom name="floor" type="plane" size="1 1 0.1" pos="0 0 -0.15"/>{"".join(bodies)}</worldbody>
  <sensor>{"".join(sensors)}</sensor>
</mujoco>"""


def _pair_class(mjm, i):
  """'closed', 'gjk' or 'curved' (see the module docstring) for a geom-geom sensor, 'body' for the body sensors
  (their geoms are spheres, boxes, capsules, a mesh and the plane: closed forms and polytope GJK)."""
  if mjm.sensor_objtype[i] != mujoco.mjtObj.mjOBJ_GEOM or mjm.sensor_reftype[i] != mujoco.mjtObj.mjOBJ_GEOM:
    return "body"
  t1, t2 = sorted((int(mjm.geom_type[mjm.sensor_objid[i]]), int(mjm.geom_type[mjm.sensor_refid[i]])))
  if t1 == _G.mjGEOM_PLANE or (t1, t2) in _CLOSED:
    return "closed"
  return "curved" if t1 in _CURVED or t2 in _CURVED else "gjk"


def _check(mjm, mjd, d, tolerances, what):
  """Each sensor's data within the tolerance of its pair class and type: tolerances[(class, type)], None: skipped."""
  for i in range(mjm.nsensor):
    tol = tolerances[(_pair_class(mjm, i), int(mjm.sensor_type[i]))]
    if tol is None:
      continue
    a, n = mjm.sensor_adr[i], mjm.sensor_dim[i]
    err = np.max(np.abs(d.sensordata[a:a + n] - mjd.sensordata[a:a + n]))
    assert err <= tol, (f"{what}: sensor {i} (type {mjm.sensor_type[i]}, objects {mjm.sensor_objid[i]}, "
                        f"{mjm.sensor_refid[i]}, cutoff {mjm.sensor_cutoff[i]}): error {err:.2e} > {tol:.0e}")


_DIST, _NORMAL, _FROMTO = (int(mujoco.mjtSensor.mjSENS_GEOMDIST), int(mujoco.mjtSensor.mjSENS_GEOMNORMAL),
                           int(mujoco.mjtSensor.mjSENS_GEOMFROMTO))
_DEFAULT_TOL = {**{("closed", t): 1e-12 for t in (_DIST, _NORMAL, _FROMTO)},
                **{(c, _DIST): 1e-6 for c in ("gjk", "body")}, ("curved", _DIST): 1e-3,
                **{(c, t): None for c in ("gjk", "body", "curved") for t in (_NORMAL, _FROMTO)}}
_CONVERGED_TOL = {**{("closed", t): 1e-12 for t in (_DIST, _NORMAL, _FROMTO)},
                  **{(c, _DIST): 1e-12 for c in ("gjk", "body")}, ("curved", _DIST): 1e-9,
                  **{(c, _NORMAL): 1e-10 for c in ("gjk", "body")}, ("curved", _NORMAL): 5e-4,
                  **{(c, _FROMTO): 1e-7 for c in ("gjk", "body")}, ("curved", _FROMTO): 2e-5}


def test_compiled_fields_match_mujoco():
  """Type, data type, size, objects and cutoff of each geom-distance sensor are MuJoCo's."""
  mjm, m = oracle.models(_model_xml())
  for field in ("sensor_type", "sensor_datatype", "sensor_needstage", "sensor_objtype", "sensor_objid",
                "sensor_reftype", "sensor_refid", "sensor_dim", "sensor_adr", "sensor_cutoff"):
    np.testing.assert_array_equal(getattr(m, field), getattr(mjm, field), field)


@pytest.mark.parametrize("option, tolerances", [("", _DEFAULT_TOL), (_CONVERGED, _CONVERGED_TOL)],
                         ids=["default", "converged"])
def test_random_states(option, tolerances):
  """At 100 random poses (geoms apart, touching, overlapping, beyond every cutoff) sensordata is MuJoCo's."""
  mjm, mjd, m, d = oracle.load_both(_model_xml(option))
  for k, _ in enumerate(oracle.forward_states(mjm, mjd, m, d, seed=5, count=100, scale=0.6)):
    _check(mjm, mjd, d, tolerances, f"state {k}")


def test_states_cover_every_case():
  """The random states reach every case of the cutoff: apart beyond it, within it, and overlapping deeper than it."""
  mjm, mjd, m, d = oracle.load_both(_model_xml())
  dist = [i for i in range(mjm.nsensor) if mjm.sensor_type[i] == _DIST and mjm.sensor_cutoff[i] == 0.05]
  seen = set()
  for _ in oracle.random_states(mjm, mjd, seed=5, count=100, scale=0.6):
    mujoco.mj_forward(mjm, mjd)
    values = mjd.sensordata[mjm.sensor_adr[dist]]
    seen |= {"beyond"} if (values == 0.05).any() else set()
    seen |= {"within"} if ((values > 0) & (values < 0.05)).any() else set()
    seen |= {"overlap"} if ((values < 0) & (values > -0.05)).any() else set()
    seen |= {"deeper"} if (values == -0.05).any() else set()
  assert seen == {"beyond", "within", "overlap", "deeper"}


def test_rollout():
  """Along 200 steps of both engines from a spinning, falling start, sensordata stays MuJoCo's (the geoms do not
  collide, so the rollouts stay together)."""
  mjm, mjd, m, d = oracle.load_both(_model_xml())
  rng = np.random.default_rng(3)
  mjd.qvel[:] = rng.normal(size=mjm.nv) * 0.5
  oracle.copy_state(mjd, d)
  for k in range(200):
    mujoco.mj_step(mjm, mjd)
    physics.mj_step(m, d)
    mujoco.mj_forward(mjm, mjd)
    physics.mj_forward(m, d)
    oracle.assert_close(d.qpos, mjd.qpos, 1e-10, f"step {k}: qpos")
    _check(mjm, mjd, d, _DEFAULT_TOL, f"step {k}")


_TWO = """<mujoco><worldbody>
  <body name="a"><freejoint/><geom name="a1" type="sphere" size="0.1"/>
    <geom name="a2" type="box" size="0.1 0.1 0.1" pos="0.5 0 0"/></body>
  <body name="b" pos="{pos}"><freejoint/><geom name="b1" type="sphere" size="0.2"/></body>
  <body name="c" pos="0 0 -1"/>
</worldbody><sensor>{sensors}</sensor></mujoco>"""


@pytest.mark.parametrize("pos", ["0 0 1", "0 0 0.25", "0 0 0.1", "0 0 3"], ids=["apart", "overlap", "deep", "far"])
@pytest.mark.parametrize("cutoff", [0, 0.02, 0.5, 2])
def test_cutoff_edges(pos, cutoff):
  """MuJoCo's cutoff rules, exactly: the distance is the cutoff (0 by default) when the geoms are farther apart,
  with zero normal and fromto; an overlap deeper than the cutoff reads -cutoff, while fromto keeps the whole
  segment; a body with no geoms reads the cutoff."""
  sensors = "".join(f'<{s} {o}="{x}" {r}="{y}" cutoff="{cutoff}"/>' for s in ("distance", "normal", "fromto")
                    for o, x, r, y in (("geom1", "a1", "geom2", "b1"), ("geom1", "b1", "body2", "a"),
                                       ("body1", "a", "body2", "c")))
  mjm, mjd, m, d = oracle.load_both(_TWO.format(pos=pos, sensors=sensors))
  oracle.forward_both(mjm, mjd, m, d)
  np.testing.assert_allclose(d.sensordata, mjd.sensordata, rtol=0, atol=1e-15)


def test_public_api_and_batch():
  """mj_forward through the public API fills d.sensordata, readable by sensor name; a batch of worlds gives each
  world's single-world numbers bitwise."""
  from mjgym.physics import batch  # pylint: disable=import-outside-toplevel
  xml = _TWO.format(pos="0 0 1", sensors='<distance name="gap" geom1="a1" geom2="b1" cutoff="1"/>'
                                         '<fromto name="seg" body1="a" body2="b" cutoff="1"/>')
  m = physics.MjModel.from_xml_string(xml)
  d = physics.MjData(m)
  physics.mj_forward(m, d)
  np.testing.assert_allclose(d.sensor("gap").data, [0.7], atol=1e-15)
  np.testing.assert_allclose(d.sensor("seg").data, [0, 0, 0.1, 0, 0, 0.8], atol=1e-15)
  worlds = batch.MjDataBatch(m, 3)
  qpos = np.tile(d.qpos, (3, 1))
  qpos[:, 2] += [0.0, 0.1, -0.5]
  worlds.qpos[:] = qpos
  worlds.forward()
  for w in range(3):
    d.qpos[:] = qpos[w]
    physics.mj_forward(m, d)
    np.testing.assert_array_equal(worlds.sensordata[w], d.sensordata)


@pytest.mark.parametrize("sensor, message, attr", [
    ('<distance geom1="a1" body1="a" geom2="b1"/>', "exactly one of 'geom1', 'body1'", "geom1"),
    ('<distance geom1="a1"/>', "exactly one of 'geom2', 'body2'", "geom2"),
    ('<normal geom1="a1" geom2="a1"/>', "must differ", "geom2"),
    ('<fromto body1="a" body2="a"/>', "must differ", "body2"),
    ('<distance geom1="a1" geom2="nope"/>', "unknown geom 'nope'", "geom2"),
    ('<distance geom1="a1" geom2="b1" cutoff="-1"/>', "cutoff must be non-negative", "cutoff"),
])
def test_errors(sensor, message, attr):
  """Bad sensors fail to load with MJCFError naming the element and attribute; MuJoCo refuses them too."""
  xml = _TWO.format(pos="0 0 1", sensors=sensor)
  with pytest.raises(ValueError):
    mujoco.MjModel.from_xml_string(xml)
  with pytest.raises(MJCFError, match=message) as info:
    physics.MjModel.from_xml_string(xml)
  assert attr in str(info.value)


def test_height_field_geom_refused_as_in_mujoco():
  """A height-field geom cannot be a side (MuJoCo refuses it); a body holding one can, as in MuJoCo."""
  xml = """<mujoco><asset><hfield name="h" nrow="2" ncol="2" size="1 1 0.2 0.1"/></asset><worldbody>
    <geom name="terrain" type="hfield" hfield="h"/><body pos="0 0 1"><freejoint/><geom name="ball" size="0.1"/></body>
    </worldbody><sensor>{}</sensor></mujoco>"""
  bad = xml.format('<distance geom1="ball" geom2="terrain" cutoff="1"/>')
  with pytest.raises(ValueError):
    mujoco.MjModel.from_xml_string(bad)
  with pytest.raises(MJCFError, match="height fields are not supported") as info:
    physics.MjModel.from_xml_string(bad)
  assert "geom2" in str(info.value)
  mjm, mjd, m, d = oracle.load_both(xml.format('<distance body1="world" geom2="ball" cutoff="2"/>'))
  oracle.forward_both(mjm, mjd, m, d)
  np.testing.assert_allclose(d.sensordata, mjd.sensordata, rtol=0, atol=1e-12)
