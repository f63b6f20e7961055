"""The oracle tests' shared helpers: one MJCF loaded into both engines (mjgym and the `mujoco` package), random
states from a seed, forward dynamics in both, and field comparisons with a tolerance. docs/testing.md lists the
engine modules with the test file of each and describes these helpers.
"""

import importlib.resources
import pathlib

import mujoco
import numpy as np

from mjgym import physics
from mjgym.physics import types
from mjgym.physics.mjcf.tree import dof_madr

MODELS_DIR = pathlib.Path(__file__).resolve().parent / "models"
ASSETS_DIR = pathlib.Path(physics.__file__).resolve().parents[1] / "assets"  # mjgym's own models

GYM_MODELS = ("hopper", "walker2d", "half_cheetah", "ant", "humanoid", "humanoidstandup", "reacher", "pusher",
              "swimmer", "inverted_pendulum", "inverted_double_pendulum")

# The models of the stage tests (test_smooth, test_passive, test_actuation, test_support), as (kind, name). MuJoCo
# finds the bend point of a tendon whose side site is inside its wrapping geom only to ~1e-7, so its ten_J there is
# ~1e-6 off the exact one: test_sensor checks that model with tolerances of its own.
_OWN_TOLERANCES = ("tendon_sidesite_inside.xml",)
STAGE_MODELS = [("gym", name) for name in GYM_MODELS] + [
    ("file", p.name) for p in sorted(MODELS_DIR.glob("*.xml")) if p.name not in _OWN_TOLERANCES]
STAGE_NSTATE = 50

# Purpose-written models that several test files use.

# Every state element this engine stores: act (a filter actuator), mocap, equality, applied forces.
STATE_XML = """
<mujoco model="state">
  <worldbody>
    <body name="mocap" mocap="true" pos="0 0 1"><geom type="sphere" size="0.05" contype="0" conaffinity="0"/></body>
    <body name="box" pos="0 0 0.5">
      <freejoint/>
      <geom type="box" size="0.1 0.1 0.1"/>
      <body name="arm" pos="0.1 0 0">
        <joint name="hinge" axis="0 1 0"/>
        <geom type="capsule" fromto="0 0 0 0.3 0 0" size="0.03"/>
      </body>
    </body>
  </worldbody>
  <equality><weld body1="mocap" body2="box"/><joint joint1="hinge" polycoef="0.1 0 0 0 0"/></equality>
  <actuator>
    <general joint="hinge" dyntype="filter" dynprm="0.1"/>
    <motor joint="hinge"/>
  </actuator>
</mujoco>
"""

# Springs on every joint type and on a tendon (with a dead band), gravity, a ball joint chain.
SPRINGS_XML = """
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

# Ball joints (a chain of three), a slide, a body welded to its parent and a static body, with sites.
BALL_CHAIN_XML = """
<mujoco model="ball chain">
  <worldbody>
    <geom name="floor" type="plane" size="2 2 0.1"/>
    <body name="post" pos="0.3 0 0.2"><geom type="box" size="0.05 0.05 0.2" group="2"/></body>
    <body name="a" pos="0 0 1">
      <joint type="ball"/>
      <geom type="capsule" fromto="0 0 0 0.3 0 0" size="0.04"/>
      <site name="sa" pos="0.3 0.02 0"/>
      <body name="b" pos="0.3 0 0">
        <joint type="ball"/>
        <geom type="capsule" fromto="0 0 0 0 0.3 0" size="0.03" group="1"/>
        <body name="welded" pos="0 0.3 0">
          <geom type="sphere" size="0.05" pos="0.02 0 0"/>
          <site name="sw" pos="0 0.05 0.01"/>
          <body name="c">
            <joint type="ball"/>
            <joint type="slide" axis="0 0 1"/>
            <geom type="box" size="0.05 0.04 0.03" pos="0.1 0 0"/>
            <geom type="ellipsoid" size="0.05 0.04 0.03" pos="0 0.1 0" rgba="1 1 1 0"/>
            <site name="sc" pos="0.1 0.1 0"/>
          </body>
        </body>
      </body>
    </body>
  </worldbody>
</mujoco>
"""

# Gymnasium's models have no sensors: this one has sensors of every stage, a free and a ball joint (quaternion
# states), activations (a filter actuator), a limited control range and contacts.
SENSED_XML = """
<mujoco model="sensed">
  <option timestep="0.005"/>
  <worldbody>
    <geom type="plane" size="2 2 0.1"/>
    <body name="box" pos="0 0 0.12">
      <freejoint/>
      <geom type="box" size="0.1 0.08 0.06" mass="1"/>
      <site name="imu" pos="0.02 0 0.03"/>
      <body name="arm" pos="0.1 0 0">
        <joint name="hinge" axis="0 1 0" damping="0.05" range="-1 1" limited="true"/>
        <geom type="capsule" fromto="0 0 0 0.2 0 0" size="0.02" mass="0.2"/>
        <body name="tip" pos="0.2 0 0">
          <joint name="ball" type="ball"/>
          <geom type="sphere" size="0.03" pos="0.05 0 0" mass="0.1"/>
          <site name="tipsite" pos="0.05 0 0" size="0.035"/>
        </body>
      </body>
    </body>
  </worldbody>
  <actuator>
    <motor name="motor" joint="hinge" ctrlrange="-1 1" ctrllimited="true" gear="2"/>
    <general joint="hinge" dyntype="filter" dynprm="0.05" gainprm="1" ctrlrange="-2 2" ctrllimited="true"/>
  </actuator>
  <sensor>
    <jointpos joint="hinge"/>
    <jointvel joint="hinge"/>
    <ballquat joint="ball"/>
    <accelerometer site="imu"/>
    <gyro site="imu"/>
    <framequat objtype="body" objname="box"/>
    <touch site="tipsite"/>
    <actuatorfrc actuator="motor"/>
    <force site="imu"/>
  </sensor>
</mujoco>
"""

# Options whose values are members of an enum: a name given for one picks the member of each engine's own enum.
_ENUM_OPTIONS = {"integrator": ("mjtIntegrator", "mjINT_"), "solver": ("mjtSolver", "mjSOL_"),
                 "cone": ("mjtCone", "mjCONE_")}


def gym_asset(name):
  """Path of one of the MJCF models Gymnasium ships (found in the installed package, never copied here)."""
  return pathlib.Path(str(importlib.resources.files("gymnasium.envs.mujoco") / "assets" / f"{name}.xml"))


def model_file(name):
  """A model's path by name: a file of tests/models (a name ending in .xml) or one of Gymnasium's (hopper)."""
  return MODELS_DIR / name if name.endswith(".xml") else gym_asset(name)


def model_from_mujoco(mjm):
  """Our MjModel built field by field from a model compiled by MuJoCo itself.

  Lets the kernels be checked against MuJoCo independently of our MJCF compiler.
  """
  values = {}
  # opt_* and stat_* (meaninertia scales the solvers' stopping tests) are in MuJoCo's option and statistic structs.
  structs = {"opt": mjm.opt, "stat": mjm.stat}
  for name, _, _ in types.MODEL_ROWS:
    prefix, _, rest = name.partition("_")
    holder, src = (structs[prefix], rest) if prefix in structs else (mjm, name)
    if hasattr(holder, src):
      values[name] = getattr(holder, src)
  # MuJoCo 4 keeps one texture per material role; the colour (RGB) role is the one we model.
  values["mat_texid"] = mjm.mat_texid[:, int(mujoco.mjtTextureRole.mjTEXROLE_RGB)] if mjm.nmat else []
  values["nu"] = mjm.nu
  # MuJoCo 4 sizes its contact and constraint buffers dynamically (-1); ours are fixed capacities.
  if mjm.nconmax < 0:
    values["nconmax"] = 8 * mjm.ngeom + 64
  if mjm.njmax < 0:
    values["njmax"] = 3 * mjm.nv + 6 * mjm.neq + 2 * mjm.ntendon + 6 * values.get("nconmax", mjm.nconmax)
  values["dof_Madr"], values["nM"] = dof_madr(mjm.dof_parentid)
  counts = {types.ObjType.BODY: mjm.nbody, types.ObjType.JOINT: mjm.njnt, types.ObjType.GEOM: mjm.ngeom,
            types.ObjType.SITE: mjm.nsite, types.ObjType.ACTUATOR: mjm.nu, types.ObjType.TENDON: mjm.ntendon,
            types.ObjType.CAMERA: mjm.ncam, types.ObjType.LIGHT: mjm.nlight}
  names = {objtype: [mujoco.mj_id2name(mjm, int(objtype), i) or "" for i in range(count)]
           for objtype, count in counts.items()}
  return physics.MjModel.from_fields(values, names)


def disable_constraints(model):
  """Disables constraints and contacts in a model of either engine."""
  model.opt.disableflags |= int(mujoco.mjtDisableBit.mjDSBL_CONSTRAINT) | int(mujoco.mjtDisableBit.mjDSBL_CONTACT)


def set_options(mjm, m, **options):
  """The same options in both models. None leaves an option as it is; a name picks the member of each engine's own
  enum (integrator="RK4", solver="Newton", cone="elliptic")."""
  for name, value in options.items():
    if value is None:
      continue
    for model, lib in ((mjm, mujoco), (m, physics)):
      if isinstance(value, str):
        enum, prefix = _ENUM_OPTIONS[name]
        setattr(model.opt, name, int(getattr(getattr(lib, enum), prefix + value.upper())))
      else:
        setattr(model.opt, name, value)


def models(source, assets=None, constraints=True, from_mujoco=False, **options):
  """(mjm, m): MuJoCo's model and ours of one MJCF, given as a path (str or Path) or as the XML text itself.

  ``assets`` maps file names to bytes for both compilers. ``constraints=False`` disables constraints and contacts in
  both. ``from_mujoco`` builds ours from MuJoCo's compiled model (``model_from_mujoco``), so that the engine is
  checked apart from our compiler. ``options`` go to ``set_options``.
  """
  extra = () if assets is None else (assets,)
  if isinstance(source, str) and source.lstrip().startswith("<"):
    mjm = mujoco.MjModel.from_xml_string(source, *extra)
    m = None if from_mujoco else physics.MjModel.from_xml_string(source, *extra)
  else:
    mjm = mujoco.MjModel.from_xml_path(str(source), *extra)
    m = None if from_mujoco else physics.MjModel.from_xml_path(str(source), *extra)
  if from_mujoco:
    m = model_from_mujoco(mjm)
  if not constraints:
    disable_constraints(mjm)
    disable_constraints(m)
  set_options(mjm, m, **options)
  return mjm, m


def load_both(source, assets=None, constraints=True, from_mujoco=False, **options):
  """(mjm, mjd, m, d): both engines' models of one MJCF (``models``, same arguments) and a fresh Data of each."""
  mjm, m = models(source, assets, constraints, from_mujoco, **options)
  return mjm, mujoco.MjData(mjm), m, physics.MjData(m)


def copy_state(mjd, d):
  """Copies MuJoCo's state and inputs into our Data."""
  for name in ("qpos", "qvel", "act", "ctrl", "qfrc_applied", "xfrc_applied", "mocap_pos", "mocap_quat"):
    getattr(d, name)[...] = getattr(mjd, name)
  d.time = mjd.time


def random_state(mjm, mjd, rng, scale=1.0):
  """A random but valid state: qpos around qpos0 (normalized quaternions), qvel, act and ctrl."""
  mujoco.mj_resetData(mjm, mjd)
  mjd.qpos[:] = mjm.qpos0 + scale * rng.uniform(-1, 1, mjm.nq) * 0.5
  for j in range(mjm.njnt):
    adr = mjm.jnt_qposadr[j]
    if mjm.jnt_type[j] == mujoco.mjtJoint.mjJNT_FREE:
      adr += 3
    if mjm.jnt_type[j] in (mujoco.mjtJoint.mjJNT_FREE, mujoco.mjtJoint.mjJNT_BALL):
      q = rng.normal(size=4)
      mjd.qpos[adr:adr + 4] = q / np.linalg.norm(q)
  mjd.qvel[:] = scale * rng.normal(size=mjm.nv)
  mjd.act[:] = rng.uniform(-1, 1, mjm.na)
  lo, hi = mjm.actuator_ctrlrange.T if mjm.nu else (np.zeros(0), np.zeros(0))
  mjd.ctrl[:] = rng.uniform(-1.2, 1.2, mjm.nu) * np.where(hi > lo, np.maximum(np.abs(lo), np.abs(hi)), 1.0)


def random_states(mjm, mjd, seed, count, scale=1.0):
  """Puts ``count`` random states (``random_state``, one generator seeded with ``seed``) into MuJoCo's Data one
  after the other, yielding the generator after each, for tests that draw more from it."""
  rng = np.random.default_rng(seed)
  for _ in range(count):
    random_state(mjm, mjd, rng, scale)
    yield rng


def forward_both(mjm, mjd, m, d):
  """mj_forward in both engines at MuJoCo's state, which is copied into our Data (``copy_state``) first."""
  mujoco.mj_forward(mjm, mjd)
  copy_state(mjd, d)
  physics.mj_forward(m, d)


def forward_states(mjm, mjd, m, d, seed, count, scale=1.0):
  """``random_states`` with ``forward_both`` at each: yields the generator after both engines' mj_forward."""
  for rng in random_states(mjm, mjd, seed, count, scale):
    forward_both(mjm, mjd, m, d)
    yield rng


def assert_close(actual, expected, rtol, name="", atol_scale=1.0):
  """Relative error check: |a - e| <= rtol * max(1, |e|_inf) elementwise, with the field named on failure."""
  actual = np.asarray(actual, dtype=float)
  expected = np.asarray(expected, dtype=float)
  assert actual.shape == expected.shape, f"{name}: shape {actual.shape} != {expected.shape}"
  if expected.size == 0:
    return
  scale = max(1.0, float(np.max(np.abs(expected)))) * atol_scale
  err = np.max(np.abs(actual - expected))
  assert err <= rtol * scale, f"{name}: max abs error {err:.3e} > {rtol:.0e} * scale {scale:.3e}"


def assert_fields_close(d, mjd, fields, rtol, label=""):
  """``assert_close`` of each of ``fields`` in our Data against MuJoCo's, named "<label>: <field>" on failure."""
  for field in fields:
    assert_close(getattr(d, field), getattr(mjd, field), rtol, f"{label}: {field}")


def dense_ten_j(mjm, mjd):
  """MuJoCo's tendon Jacobian ten_J (sparse) as a dense (ntendon, nv) array, the layout of ours."""
  dst = np.zeros((mjm.ntendon, mjm.nv))
  if mjm.ntendon:
    mujoco.mju_sparse2dense(dst, mjd.ten_J, mjm.ten_J_rownnz, mjm.ten_J_rowadr, mjm.ten_J_colind)
  return dst


def dense_moment(mjm, mjd):
  """MuJoCo's actuator_moment (sparse) as a dense (nu, nv) array, the layout of ours."""
  dst = np.zeros((mjm.nu, mjm.nv))
  if mjm.nu:
    mujoco.mju_sparse2dense(dst, mjd.actuator_moment, mjd.moment_rownnz, mjd.moment_rowadr, mjd.moment_colind)
  return dst


def check_forward_at_random_states(mjm, mjd, m, d, seed, nstates, fields, rtol, label=""):
  """At ``nstates`` random states (``random_states`` from ``seed``), ``mj_forward`` in both engines gives MuJoCo's
  ``fields`` and full inertia matrix within ``rtol`` (``assert_close``); each failure names the state and field."""
  dense, dense_ours = np.zeros((mjm.nv, mjm.nv)), np.zeros((m.nv, m.nv))
  for k, _ in enumerate(forward_states(mjm, mjd, m, d, seed, nstates)):
    assert_fields_close(d, mjd, fields, rtol, f"{label}state {k}")
    mujoco.mj_fullM(mjm, mjd, dense)
    physics.mj_fullM(m, d, dense_ours)
    assert_close(dense_ours, dense, rtol, f"{label}state {k}: qM")


def load_stage_model(kind, name):
  """Both engines for the stage tests, one of ``STAGE_MODELS``: MuJoCo's model with constraints off, ours built
  from it (``model_from_mujoco``), and a Data of each."""
  path = gym_asset(name) if kind == "gym" else MODELS_DIR / name
  return load_both(path, constraints=False, from_mujoco=True)


def stage_states(mjm, mjd, m, d, seed, scale=1.0):
  """Yields at ``STAGE_NSTATE`` random states from ``seed``, each after ``forward_both``; besides ``random_state``'s
  parts the states have random mocap poses (quaternions unnormalized on purpose) and applied body forces."""
  for rng in random_states(mjm, mjd, seed, STAGE_NSTATE, scale):
    if mjm.nmocap:
      mjd.mocap_pos[:] = rng.normal(size=mjd.mocap_pos.shape)
      mjd.mocap_quat[:] = rng.normal(size=mjd.mocap_quat.shape)
    if mjm.nbody > 1:
      mjd.xfrc_applied[1:] = rng.normal(size=(mjm.nbody - 1, 6))
    forward_both(mjm, mjd, m, d)
    yield


# Model fields left out of the comparison, each with the reason; none of them enters the physics.
SKIPPED_MODEL_FIELDS = {
  "nconmax": "MuJoCo 4 sizes its contact buffer at run time (-1 in the model); ours is a fixed capacity",
  "njmax": "MuJoCo 4 sizes its constraint rows at run time (-1 in the model); ours is a fixed capacity",
  "mat_texid": "MuJoCo 4 keeps one texture per material role (nmat, mjNTEXROLE); we model the RGB role only",
  "vis_headlight_active": "rendering only; MuJoCo 4's default is 2, ours 1",
  "vis_rgba_haze": "rendering only; MuJoCo 4's default is (1, 1, 1, 1), ours MuJoCo 3's (0.15, 0.25, 0.35, 1)",
}


def mujoco_field(mjm, name):
  """MuJoCo's value of our model field ``name`` (``opt_*``, ``stat_*``, ``vis_<section>_*`` in their structs)."""
  if name.startswith(("opt_", "stat_")):
    holder, name = getattr(mjm, name[:name.index("_")]), name[name.index("_") + 1:]
  elif name.startswith("vis_"):
    section, name = name[4:].split("_", 1)
    holder = getattr(mjm.vis, "global_" if section == "global" else section)
  else:
    holder = mjm
  return getattr(holder, name, None)


def model_differences(mjm, m, tol):
  """Sizes and fields where our compile differs from MuJoCo's, as readable lines.

  A field sized by a count that already differs is not listed again. MuJoCo stores some fields as float32
  (``mesh_vert``, ``hfield_data``, colours, all of ``mjVisual``, which the bindings show as Python floats):
  ours, in float64, are rounded to float32 before the comparison.
  """
  out, bad_sizes = [], set()
  for name in types.MODEL_SIZES:
    if name not in SKIPPED_MODEL_FIELDS and hasattr(mjm, name) and getattr(m, name) != getattr(mjm, name):
      out.append(f"{name}: mjgym {getattr(m, name)}, MuJoCo {getattr(mjm, name)}")
      bad_sizes.add(name)
  if "nmeshpoly" not in bad_sizes:
    out += _polygon_differences(mjm, m, tol)
  for name, _, shape in types.MODEL_ROWS:
    if name in POLYGON_FIELDS:
      continue
    theirs = None if shape is None or name in SKIPPED_MODEL_FIELDS else mujoco_field(mjm, name)
    if theirs is None or bad_sizes.intersection(shape):
      continue
    theirs, ours = np.asarray(theirs), getattr(m, name)
    if theirs.dtype == np.float32 or name.startswith("vis_"):
      theirs = theirs.astype(np.float32)
      ours = ours.astype(np.float32)
    if ours.size == theirs.size:
      theirs = theirs.reshape(ours.shape)  # (n,) beside (n, 1) and the like
    try:
      assert_close(ours, theirs, tol, name)
    except AssertionError as e:
      out.append(str(e).splitlines()[0])
  return out


# MuJoCo stores a mesh's hull polygons in the iteration order of a hash table keyed on their rounded normals:
# these are compared per mesh as sets of vertex cycles (each with its normal, and the cycles at each vertex).
POLYGON_FIELDS = ("mesh_polyadr", "mesh_polynormal", "mesh_polyvertadr", "mesh_polyvertnum", "mesh_polyvert",
                  "mesh_polymapadr", "mesh_polymapnum", "mesh_polymap")


def _polygons(model, mesh):
  """({vertex cycle: normal}, [sorted cycles at each vertex]) of one mesh's hull polygons."""
  first = model.mesh_polyadr[mesh]
  cycles, normals = [], {}
  for p in range(first, first + model.mesh_polynum[mesh]):
    adr = model.mesh_polyvertadr[p]
    cycle = tuple(int(v) for v in model.mesh_polyvert[adr:adr + model.mesh_polyvertnum[p]])
    cycles.append(cycle)
    normals[cycle] = np.asarray(model.mesh_polynormal[p], float)
  at = []
  for v in range(model.mesh_vertnum[mesh]):
    adr = model.mesh_polymapadr[model.mesh_vertadr[mesh] + v]
    num = model.mesh_polymapnum[model.mesh_vertadr[mesh] + v]
    at.append(sorted(cycles[int(i)] for i in model.mesh_polymap[adr:adr + num]))
  return normals, at


def _polygon_differences(mjm, m, tol):
  out = []
  for mesh in range(mjm.nmesh):
    if m.mesh_polynum[mesh] != mjm.mesh_polynum[mesh]:
      out.append(f"mesh {mesh}: {m.mesh_polynum[mesh]} polygons, MuJoCo {mjm.mesh_polynum[mesh]}")
      continue
    (normals, at), (mj_normals, mj_at) = _polygons(m, mesh), _polygons(mjm, mesh)
    if set(normals) != set(mj_normals):
      out.append(f"mesh {mesh}: {len(set(normals) - set(mj_normals))} polygons not MuJoCo's")
      continue
    worst = max((np.max(np.abs(normals[c] - mj_normals[c])) for c in normals), default=0.0)
    if worst > tol:
      out.append(f"mesh {mesh}: polygon normals differ by {worst:.3e}")
    if at != mj_at:
      out.append(f"mesh {mesh}: polygons at the vertices differ")
  return out


_NAMED_TYPES = (("body", "nbody"), ("joint", "njnt"), ("geom", "ngeom"), ("site", "nsite"), ("camera", "ncam"),
                ("light", "nlight"), ("mesh", "nmesh"), ("material", "nmat"), ("texture", "ntex"))


def name_differences(mjm, m):
  """Object types whose names (in id order) differ between MuJoCo's model and ours, as readable lines."""
  out = []
  for kind, count in _NAMED_TYPES:
    objtype = int(getattr(mujoco.mjtObj, f"mjOBJ_{kind.upper()}"))
    theirs = [mujoco.mj_id2name(mjm, objtype, i) or "" for i in range(getattr(mjm, count))]
    ours = [physics.mj_id2name(m, objtype, i) or "" for i in range(getattr(m, count))]
    if ours != theirs:
      out.append(f"{kind} names: mjgym {ours}, MuJoCo {theirs}")
  return out
