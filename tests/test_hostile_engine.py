"""Hostile input to the engine (issue 21): models and edits that once hung a step, raised out of numba or left
NaN states, checked against MuJoCo wherever MuJoCo loads the model.

- singular mass matrices (coaxial joints in one body, an axis that overflows): pivots raised to MINVAL with an
  INERTIA warning, as MuJoCo does; loading and stepping never divide by zero;
- contact parameters MuJoCo sanitizes at run time (impratio 0, mixed solref, zero friction) and contact dims
  outside 1..6, which once made the solvers' block loops spin forever;
- NaN or huge model fields and states: MuJoCo's state checks (BADQPOS / BADQVEL / BADQACC), the autoreset and
  the warning statistics, step by step, in single worlds and in batches;
- no kernel raises: the engine is compiled with numpy's error model (IEEE results, like MuJoCo's C).

Steps that could hang run in a child process with a timeout: a hang inside numba cannot be interrupted.
"""

import importlib
import os
import pathlib
import pkgutil
import subprocess
import sys
import textwrap

import mujoco
import numpy as np
import numba
import pytest

import oracle
from mjgym import physics
from mjgym.physics import batch
from mjgym.physics import solver
from mjgym.physics import types
from mjgym.physics.mjcf.errors import MJCFError

TESTS_DIR = pathlib.Path(__file__).resolve().parent
W = types.Warning
NWARNING = len(W)

BALL_ON_PLANE = """
<mujoco>
  <option cone="{cone}" impratio="{impratio}" solver="{solver}"/>
  <worldbody>
    <geom name="floor" type="plane" size="5 5 .1" friction="{friction}" solref="{solref}"/>
    <body pos="0 0 0.095">
      <freejoint/>
      <geom name="ball" size=".1" friction="{friction}" solref="{solref}"/>
    </body>
    <body pos="0.5 0 0.095" euler="10 20 30">
      <freejoint/>
      <geom type="box" size=".1 .08 .06" friction="{friction}" solref="{solref}"/>
    </body>
  </worldbody>
  <contact><pair geom1="floor" geom2="ball" condim="{condim}"/></contact>
</mujoco>
"""


def ball_on_plane(cone="pyramidal", impratio=1, solver="Newton", friction="1 0.005 0.0001", solref="0.02 1",
                  condim=3):
  return BALL_ON_PLANE.format(cone=cone, impratio=impratio, solver=solver, friction=friction, solref=solref,
                              condim=condim)


def warnings_of(d):
  """(number, lastinfo) of every warning, for ours or MuJoCo's Data."""
  stats = [d.warning[i] for i in range(NWARNING)]
  return ([int(np.ravel(s.number)[0]) for s in stats], [int(np.ravel(s.lastinfo)[0]) for s in stats])


def assert_close(ours, theirs, tol, what):
  """Equal within tol (relative to 1), NaN where MuJoCo has NaN."""
  ours, theirs = np.asarray(ours, float), np.asarray(theirs, float)
  assert np.array_equal(np.isnan(ours), np.isnan(theirs)), f"{what}: NaN pattern {ours} vs {theirs}"
  fin = np.isfinite(theirs)
  assert np.all(np.abs(ours[fin] - theirs[fin]) <= tol * np.maximum(1.0, np.abs(theirs[fin]))), \
      f"{what}: {ours} vs {theirs}"


def step_both(m, mjm, nstep, tol, setup=None, fields=("qpos", "qvel")):
  """Steps our engine and MuJoCo side by side from the same state; compares time, ``fields`` and (exactly) the
  warning statistics after every step. Returns both Datas."""
  d, mjd = physics.MjData(m), mujoco.MjData(mjm)
  if setup is not None:
    setup(m, d)
    setup(mjm, mjd)
  for k in range(nstep):
    physics.mj_step(m, d)
    mujoco.mj_step(mjm, mjd)
    assert_close(d.time, mjd.time, 1e-12, f"step {k} time")
    for f in fields:
      assert_close(getattr(d, f), getattr(mjd, f), tol, f"step {k} {f}")
    assert warnings_of(d) == warnings_of(mjd), f"step {k} warnings"
  return d, mjd


def run_isolated(code, timeout=600):
  """Runs ``code`` in a child Python (same engine cache): a hang inside numba fails the test instead of the run."""
  env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(TESTS_DIR), os.environ.get("PYTHONPATH")])))
  result = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True,
                          timeout=timeout, check=False, env=env)
  assert result.returncode == 0, result.stderr[-3000:]
  return result.stdout


# ------------------------------------------------------------------------------- singular mass matrices ----

COAXIAL_HINGES = """
<mujoco><worldbody><body>
  <joint type="hinge" axis="0 0 1"/><joint type="hinge" axis="0 0 1" {damping}/>
  <geom size=".1" pos=".2 0 0"/>
</body>{other}</worldbody></mujoco>"""
DAMPED_ARM = '<body pos="1 0 0"><joint type="hinge" axis="0 1 0" damping="1"/><geom size=".1" pos=".2 0 0"/></body>'
COAXIAL_SLIDES = """
<mujoco><worldbody><body {pos}>
  <joint type="slide" axis="1 0 0"/><joint type="slide" axis="1 0 0"/><geom size=".1" {gpos}/>
</body></worldbody></mujoco>"""
HUGE_AXIS = """
<mujoco><worldbody><body>
  <joint type="hinge" axis="1e200 0 0"/><geom size=".1" pos="0 .2 0"/>
</body></worldbody></mujoco>"""

SINGULAR = {
    "coaxial_hinges": COAXIAL_HINGES.format(damping="", other=""),
    "coaxial_hinges_damped": COAXIAL_HINGES.format(damping='damping="1"', other=""),
    "coaxial_hinges_euler_qH": COAXIAL_HINGES.format(damping="", other=DAMPED_ARM),
    "coaxial_slides_simple_body": COAXIAL_SLIDES.format(pos="", gpos=""),
    "coaxial_slides": COAXIAL_SLIDES.format(pos="", gpos='pos=".1 .1 0"'),
    "huge_axis": HUGE_AXIS,
}


@pytest.mark.parametrize("name", SINGULAR)
def test_singular_mass_matrix_loads_and_steps_like_mujoco(name):
  """MuJoCo loads these (coaxial joints in one body, an axis whose norm overflows) and raises tiny pivots of
  the mass matrix's factor to MINVAL with an INERTIA warning at that dof, once per factorization (Euler's
  damped matrix too). Ours once raised ZeroDivisionError in set_const."""
  mjm, m = oracle.models(SINGULAR[name])
  singular = name != "coaxial_slides_simple_body"  # MuJoCo keeps a simple body's block diagonal
  assert_close(m.dof_invweight0, mjm.dof_invweight0, 1e-9, "dof_invweight0")
  if singular:
    # J M⁻¹ Jᵀ cancels terms of 1 / MINVAL: only rounding noise is left, in either engine
    assert np.isfinite(m.body_invweight0).all() and (m.body_invweight0 >= 0).all()
  else:
    assert_close(m.body_invweight0, mjm.body_invweight0, 1e-9, "body_invweight0")

  def push(model, data):
    del model
    data.qfrc_applied[:] = 1.0

  # the split of a motion between coaxial dofs is rounding noise times 1 / MINVAL: compare what the bodies do
  fields = ("xpos", "xquat", "cvel") if singular else ("qpos", "qvel")
  d, _ = step_both(m, mjm, 20, 1e-9, push, fields)
  assert (d.warning.number[W.INERTIA] > 0) == singular


def test_inertia_warning_counts_each_raised_pivot():
  m = physics.MjModel.from_xml_string(SINGULAR["coaxial_hinges"])
  d = physics.MjData(m)
  physics.mj_forward(m, d)
  assert d.warning.number[W.INERTIA] == 1 and d.warning.lastinfo[W.INERTIA] == 0
  assert d.qLD[m.dof_Madr[0]] == types.MINVAL and np.isfinite(d.qLDiagInv).all()


# -------------------------------------------------------------------------- contact parameters ----

CONTACT_CASES = {  # model, tolerance
    "impratio0_pyramidal": (ball_on_plane(impratio=0), 1e-6),
    "impratio0_elliptic": (ball_on_plane(cone="elliptic", impratio=0), 1e-6),
    "impratio0_elliptic_pgs": (ball_on_plane(cone="elliptic", impratio=0, solver="PGS"), 1e-6),
    "mixed_solref": (ball_on_plane(solref="0.02 0"), 1e-6),
    "mixed_solref_direct": (ball_on_plane(cone="elliptic", solref="-1000 10"), 1e-6),
    "zero_friction_elliptic": (ball_on_plane(cone="elliptic", friction="0 0 0", condim=6), 1e-6),
    # pyramid edges J_n ± 1e-5 J_t are nearly parallel: CG stops at its tolerance in both engines, not at one point
    "zero_friction_pyramidal_cg": (ball_on_plane(friction="0 0 0", condim=4, solver="CG"), 1e-2),
}


@pytest.mark.parametrize("name", CONTACT_CASES)
def test_contact_parameters_sanitized_like_mujoco(name):
  """MuJoCo floors impratio and friction (mjMINVAL, mjMINMU) and replaces a mixed solref by the default at run
  time; ours once divided by zero (impratio 0: in the loader's position pass already)."""
  xml, tol = CONTACT_CASES[name]
  mjm, m = oracle.models(xml)
  d, mjd = step_both(m, mjm, 30, tol)
  assert np.array_equal(d.contact.friction, mjd.contact.friction)


def test_mixed_solref_is_the_default_solref():
  mixed, default = (physics.MjModel.from_xml_string(ball_on_plane(solref=s)) for s in ("0.02 0", "0.02 1"))
  runs = []
  for m in (mixed, default):
    d = physics.MjData(m)
    physics.mj_step(m, d, 10)
    runs.append(d.qpos.copy())
  assert np.array_equal(runs[0], runs[1])


@pytest.mark.parametrize("condim", [0, -1, 2, 7, 100])
@pytest.mark.parametrize("cone", ["elliptic", "pyramidal"])
def test_contact_dims_outside_range_step_in_bounded_time(cone, condim):
  """A pair condim of 0 with the elliptic cone hung mj_step inside numba (the solvers' block loops advanced by
  the dim). The loader refuses such condims; set on the model afterwards, the contact's dim is kept in 1..6."""
  out = run_isolated(f"""
    import numpy as np
    from mjgym import physics
    from test_hostile_engine import ball_on_plane
    m = physics.MjModel.from_xml_string(ball_on_plane(cone="{cone}"))
    m.pair_dim[0] = {condim}
    d = physics.MjData(m)
    physics.mj_step(m, d, 20)
    assert np.isfinite(d.qpos).all() and d.ncon >= 1
    print(int(d.contact.dim[0]), int(d.nefc))
    """)
  dim, _ = map(int, out.split())
  assert dim == min(max(condim, 1), 6)


@pytest.mark.parametrize("solver_name", ["PGS", "CG", "Newton"])
@pytest.mark.parametrize("bad_dim", [0, -1, -5, 50])
def test_solver_block_loops_terminate_on_crafted_dims(solver_name, bad_dim):
  """Drives the solvers' loops over contact blocks (cost, line search, Hessian, dual states, PGS sweeps and
  momentum projection, noslip) with contact dims overwritten after make_constraint: each loop advances by at
  least one row, so it ends (at most nefc iterations), whatever the dims."""
  run_isolated(f"""
    import numpy as np
    from mjgym import physics
    from mjgym.physics import solver
    from test_hostile_engine import ball_on_plane
    for noslip in (0, 3):
      m = physics.MjModel.from_xml_string(ball_on_plane(cone="elliptic", solver="{solver_name}"))
      m.opt.noslip_iterations = noslip
      d = physics.MjData(m)
      physics.mj_forward(m, d)
      assert d.nefc > 0
      d.contact.dim[:d.ncon] = {bad_dim}
      solver.solve(m._struct, d._struct)
      solver.update_constraint(m._struct, d._struct)
    """)


# ------------------------------------------------------------------- no exception out of a step ----


def test_body_with_two_free_joints_never_raises():
  """MuJoCo refuses it (more than 6 dofs in a body); if our loader takes it, its singular mass matrix must not
  raise out of the step (it once raised ZeroDivisionError)."""
  xml = ball_on_plane().replace("<freejoint/>", "<freejoint/><freejoint/>", 1)
  try:
    m = physics.MjModel.from_xml_string(xml)
  except MJCFError:
    return
  d = physics.MjData(m)
  physics.mj_step(m, d, 50)
  assert np.isfinite(d.qpos).all() or d.warning.number[W.BADQACC] + d.warning.number[W.BADQPOS] > 0


@pytest.mark.parametrize("edit", ["meaninertia0", "pulley0", "timestep0"])
def test_zeroed_model_fields_never_raise(edit):
  """Model fields edited to 0 that some kernel divides by: IEEE inf / NaN (numpy's error model) and MuJoCo's
  state checks instead of ZeroDivisionError out of numba."""
  xml = ball_on_plane(solver="PGS")
  if edit == "pulley0":
    xml = """<mujoco><worldbody>
      <site name="a" pos="0 0 1"/><site name="b" pos="1 0 1"/>
      <body pos="0 0 .5"><joint type="slide" axis="0 0 1"/><geom size=".1"/><site name="c"/></body>
      <body pos="1 0 .5"><joint type="slide" axis="0 0 1"/><geom size=".1"/><site name="e"/></body>
    </worldbody>
    <tendon><spatial name="t"><site site="a"/><site site="c"/><pulley divisor="2"/><site site="b"/><site site="e"/>
    </spatial></tendon>
    <actuator><motor tendon="t" gear="1"/></actuator></mujoco>"""
  m = physics.MjModel.from_xml_string(xml)
  d = physics.MjData(m)
  if edit == "meaninertia0":
    m.stat.meaninertia = 0.0
  elif edit == "pulley0":
    m.wrap_prm[np.flatnonzero(m.wrap_type == physics.mjtWrap.PULLEY)] = 0.0
    d.ctrl[:] = 1.0
  else:
    m.opt.timestep = 0.0
  physics.mj_step(m, d, 5)
  physics.mj_forward(m, d)


def _engine_dispatchers():
  """Every numba dispatcher defined in mjgym.physics (the renderer aside: its kernels are not on the step path)."""
  found = []
  for info in pkgutil.walk_packages(physics.__path__, "mjgym.physics."):
    if ".render" in info.name:
      continue
    module = importlib.import_module(info.name)
    for value in vars(module).values():
      value = getattr(value, "dispatcher", value)  # a lazy kernel's (physics/_jit/link.py)
      if isinstance(value, numba.core.registry.CPUDispatcher) and value.__module__ == info.name:
        found.append(value)
  return found


def test_engine_kernels_use_numpy_error_model():
  """A float division by zero in a kernel gives inf or NaN, as in MuJoCo's C, and MuJoCo's state checks take it
  from there; numba's default (Python) error model would raise ZeroDivisionError out of mj_step instead."""
  dispatchers = _engine_dispatchers()
  assert len(dispatchers) > 100
  python_model = [f"{d.__module__}.{d.__name__}" for d in dispatchers
                  if d.targetoptions.get("error_model") != "numpy"]
  assert not python_model


# ----------------------------------------------------------------- divergence and warnings ----

ARM_AND_BALL = """
<mujoco><worldbody><geom type="plane" size="5 5 .1"/>
  <body pos="0 0 1">
    <joint name="h" type="hinge" axis="0 1 0"/><geom type="capsule" fromto="0 0 0 .5 0 0" size=".05"/>
  </body>
  <body pos="1 0 .3"><freejoint/><geom size=".1"/></body>
</worldbody><actuator><motor joint="h" gear="1"/></actuator></mujoco>
"""


def _nan_mass(m, d):
  del d
  m.body_mass[1] = np.nan


def _nan_gravity(m, d):
  del d
  m.opt.gravity[2] = np.nan


def _nan_gear(m, d):
  del d
  m.actuator_gear[0, 0] = np.nan


def _inf_gear(m, d):
  del d
  m.actuator_gear[0, 0] = np.inf


def _nan_timestep(m, d):
  del d
  m.opt.timestep = np.nan


def _huge_qvel(m, d):
  del m
  d.qvel[4] = 1e11


def _nan_qpos(m, d):
  del m
  d.qpos[2] = np.nan


def _nan_qacc_warmstart(m, d):
  del m
  d.qacc_warmstart[:] = np.nan


EDITS = [_nan_mass, _nan_gravity, _nan_gear, _inf_gear, _nan_timestep, _huge_qvel, _nan_qpos, _nan_qacc_warmstart]


def _no_autoreset(edit):
  def setup(m, d):
    edit(m, d)
    m.opt.disableflags |= int(physics.mjtDisableBit.AUTORESET)
  setup.__name__ = edit.__name__ + "_no_autoreset"
  return setup


@pytest.mark.parametrize("edit", EDITS + [_no_autoreset(e) for e in (_nan_mass, _huge_qvel, _nan_timestep)],
                         ids=lambda e: e.__name__.lstrip("_"))
def test_divergence_resets_and_warnings_match_mujoco(edit):
  """NaN model fields and bad states: MuJoCo's mj_checkPos / mj_checkVel / mj_checkAcc find them, reset the
  data (which clears the warning statistics: the warning that caused it then counts 1) unless autoreset is
  off, and forward once more after a bad qacc. Time, state and every warning's number and lastinfo match
  MuJoCo after each step."""
  mjm, m = oracle.models(ARM_AND_BALL)

  def setup(model, data):
    edit(model, data)
    data.ctrl[:] = 0.5

  # without autoreset NaN spreads on through the next steps (collisions of NaN poses, the solver): its pattern
  # there is not the engines' to agree on, the warnings are
  fields = () if edit.__name__.endswith("_no_autoreset") else ("qpos", "qvel", "act", "ctrl")
  step_both(m, mjm, 6, 1e-9, setup, fields)


def test_warnings_via_callbacks_path_match_mujoco():
  """The Python-callback step (api.set_mjcb_control) checks qacc once per step like the compiled one."""
  mjm, m = oracle.models(ARM_AND_BALL)
  m.body_mass[1] = np.nan
  mjm.body_mass[1] = np.nan
  physics.set_mjcb_control(lambda model, data: data.ctrl.__setitem__(slice(None), 0.5))
  try:
    d, mjd = physics.MjData(m), mujoco.MjData(mjm)
    for _ in range(4):
      physics.mj_step(m, d)
      mjd.ctrl[:] = 0.5
      mujoco.mj_step(mjm, mjd)
      assert warnings_of(d) == warnings_of(mjd)
  finally:
    physics.set_mjcb_control(None)


def test_batch_world_that_diverges_leaves_the_others_alone():
  """A world with a bad state is reset alone; every world of the batch is bitwise the world stepped by itself."""
  m = physics.MjModel.from_xml_string(ball_on_plane(cone="elliptic", impratio=0))
  nworld = 4
  b = batch.MjDataBatch(m, nworld)
  singles = [physics.MjData(m) for _ in range(nworld)]
  rng = np.random.default_rng(0)
  qvel = rng.normal(scale=0.3, size=(nworld, m.nv))
  qvel[1, 2] = np.nan
  qvel[3, 0] = 1e12
  b.qvel[:] = qvel
  for w, d in enumerate(singles):
    d.qvel[:] = qvel[w]
  for _ in range(3):
    b.step(4)
    for d in singles:
      physics.mj_step(m, d, 4)
  for w, d in enumerate(singles):
    for f in ("qpos", "qvel", "qacc", "time", "warning_number", "warning_lastinfo", "efc_force"):
      assert np.array_equal(getattr(b, f)[w], d._fields[f], equal_nan=True), f"world {w} {f}"
  assert b.warning_number[1, W.BADQVEL] == 1 and b.warning_number[3, W.BADQVEL] == 1
  assert b.warning_number[0].sum() == 0 and b.warning_number[2].sum() == 0
  assert np.isfinite(b.qpos).all()
