"""Model-wide settings: <option> (with its flags), <size> (checked, and the contact and constraint capacities it
sets or mjgym derives), and the <visual> attributes the renderer reads."""

import math
import re

import numpy as np

from mjgym.physics import types
from mjgym.physics.mjcf.context import full
from mjgym.physics.mjcf.context import keywords
from mjgym.physics.mjcf.context import plain
from mjgym.physics.mjcf.defaults import SOLIMP
from mjgym.physics.mjcf.defaults import SOLREF
from mjgym.physics.mjcf.errors import fail
from mjgym.physics.types import IntegratorType
from mjgym.physics.types import SolverType

# mjgym's bounds on inputs that set how much memory the model or its data take (MuJoCo has none; it fails when
# an allocation does). Documented in docs/mjcf.md.
MAX_NCONMAX = 1_000_000  # contacts per world (<size nconmax>)
MAX_NJMAX = 10_000_000  # constraint rows per world (<size njmax>)
MAX_EFC_J = 2**27  # entries of the dense constraint Jacobian, njmax * nv (1 GiB)
MAX_NKEY = 100_000  # keyframes (<size nkey>)
_MEMORY = re.compile(r"(-1|[0-9]+[KMGTPEkmgtpe]?)\Z")
# MJCF keywords of the integrators and solvers (spelled unlike their enum members), cones and Jacobians.
_INTEGRATORS = {"Euler": IntegratorType.EULER, "RK4": IntegratorType.RK4, "implicit": IntegratorType.IMPLICIT,
                "implicitfast": IntegratorType.IMPLICITFAST}
_SOLVERS = {"PGS": SolverType.PGS, "CG": SolverType.CG, "Newton": SolverType.NEWTON}
_CONES = keywords(types.ConeType)
_JACOBIANS = keywords(types.JacobianType)
# The <visual> attributes the renderer reads: field prefix -> (child element, {attribute: MuJoCo's default}).
_VISUAL_USED = {
    "global": ("global", {"fovy": [45.0], "azimuth": [90.0], "elevation": [-45.0]}),
    "headlight": ("headlight", {"ambient": [0.1] * 3, "diffuse": [0.4] * 3, "specular": [0.5] * 3,
                                "active": [1]}),
    "map": ("map", {"znear": [0.01], "zfar": [50.0], "haze": [0.3], "shadowclip": [1.0]}),
    "rgba": ("rgba", {"haze": [0.15, 0.25, 0.35, 1.0]}),
    "quality": ("quality", {"offsamples": [4], "shadowsize": [4096]}),
}


def options(ctx, v):
  """opt_*: the <option> attributes and flags, with MuJoCo's defaults."""
  a, flags = {}, {}
  for node in ctx.root.all("option"):
    a.update(node.attrs)
    # MuJoCo 4 loads any timestep and fails (or runs away) at the first step; mjgym refuses it here
    if node.has("timestep") and not (math.isfinite(node.get("timestep")) and node.get("timestep") > 0):
      fail(node, f"timestep must be a positive finite number, got {plain(node.get('timestep'))}", "timestep")
    for f in node.all("flag"):
      flags.update(f.attrs)
    for group in node.get("actuatorgroupdisable", []):
      if not 0 <= group <= 30:
        fail(node, f"disabled actuator group {group} is not in 0..30", "actuatorgroupdisable")
  v.update(opt_timestep=a.get("timestep", 0.002), opt_impratio=a.get("impratio", 1.0),
           opt_tolerance=a.get("tolerance", 1e-8), opt_ls_tolerance=a.get("ls_tolerance", 0.01),
           opt_noslip_tolerance=a.get("noslip_tolerance", 1e-6), opt_ccd_tolerance=a.get("ccd_tolerance", 1e-6),
           opt_gravity=a.get("gravity", [0, 0, -9.81]),
           opt_wind=a.get("wind", [0.0] * 3), opt_magnetic=a.get("magnetic", [0.0, -0.5, 0.0]),
           opt_density=a.get("density", 0.0), opt_viscosity=a.get("viscosity", 0.0),
           opt_o_margin=a.get("o_margin", 0.0), opt_o_solref=full(a.get("o_solref", []), SOLREF),
           opt_o_solimp=full(a.get("o_solimp", []), SOLIMP),
           opt_o_friction=full(a.get("o_friction", []), [1.0, 1.0, 0.005, 1e-4, 1e-4]),
           opt_integrator=int(_INTEGRATORS[a.get("integrator", "Euler")]),
           opt_cone=int(_CONES[a.get("cone", "pyramidal")]), opt_jacobian=int(_JACOBIANS[a.get("jacobian", "auto")]),
           opt_solver=int(_SOLVERS[a.get("solver", "Newton")]), opt_iterations=a.get("iterations", 100),
           opt_ls_iterations=a.get("ls_iterations", 50), opt_noslip_iterations=a.get("noslip_iterations", 0),
           opt_ccd_iterations=a.get("ccd_iterations", 35))
  disable = enable = 0
  for name, value in flags.items():
    if name.upper() in types.DisableBit.__members__:
      if value == "disable":
        disable |= int(types.DisableBit[name.upper()])
    elif value == "enable":
      enable |= int(types.EnableBit[name.upper()])
  groups = 0
  for group in a.get("actuatorgroupdisable", []):
    groups |= 1 << group
  v.update(opt_disableflags=disable, opt_enableflags=enable, opt_disableactuator=groups)


def visual(ctx, v):
  """The <visual> settings, ``vis_<section>_<attribute>``: those the renderer uses with MuJoCo's defaults here,
  the rest when given (``containers.VISUAL_ROWS`` holds their defaults)."""
  given = {}
  for node in ctx.root.all("visual"):
    for sub in node.children:
      given.update({f"{sub.tag}_{k}": val for k, val in sub.attrs.items()})
  for section, (_, defaults) in _VISUAL_USED.items():
    for key, default in defaults.items():
      given.setdefault(f"{section}_{key}", default)
  for name, value in given.items():
    if name.endswith(("_active", "_orthographic", "_ellipsoidinertia", "_bvactive")) and isinstance(value, str):
      value = int(value.strip() in ("true", "1"))
    v["vis_" + name] = value if isinstance(value, list) else [value]


def check_sizes(ctx):
  """<size> attributes as MuJoCo checks them (-1 means the default), and mjgym's bounds on the ones that
  set how much memory a model or its data preallocates."""
  for node in ctx.root.all("size"):
    for attr in ("nconmax", "njmax", "nstack", "nkey", "nuser_body", "nuser_jnt", "nuser_geom", "nuser_site",
                 "nuser_cam", "nuser_tendon", "nuser_actuator", "nuser_sensor"):
      if node.get(attr, 0) < -1:
        fail(node, f"{attr} must be >= -1, got {node.get(attr)}", attr)
    for attr in ("nuserdata",):
      if node.get(attr, 0) < 0:
        fail(node, f"{attr} must be non-negative, got {node.get(attr)}", attr)
    if node.get("nconmax", 0) > MAX_NCONMAX:
      fail(node, f"nconmax {node.get('nconmax')} is larger than mjgym's bound of {MAX_NCONMAX} contacts",
           "nconmax")
    if node.get("njmax", 0) > MAX_NJMAX:
      fail(node, f"njmax {node.get('njmax')} is larger than mjgym's bound of {MAX_NJMAX} constraint rows",
           "njmax")
    if node.get("nkey", 0) > MAX_NKEY:
      fail(node, f"nkey {node.get('nkey')} is larger than mjgym's bound of {MAX_NKEY} keyframes", "nkey")
    if node.has("memory") and not _MEMORY.match(node.get("memory").strip()):
      fail(node, "expected an unsigned integer with an optional suffix K, M, G, T, P or E (or -1), got "
           f"'{node.get('memory')}'", "memory")


def capacities(ctx, v):
  """nconmax, njmax and narmax: what a world's Data preallocates for contacts and constraint rows."""
  v["nconmax"] = _nconmax(ctx, v)
  v["njmax"] = _njmax(ctx, v)
  # The dual solvers (PGS, noslip) keep A + R for this many rows and recompute entries past it: room for
  # large problems when the model asks for them, for typical ones when a user switches solver at run time.
  dual = v["opt_solver"] == SolverType.PGS or v["opt_noslip_iterations"] > 0
  v["narmax"] = min(v["njmax"], types.NARMAX if dual else types.NARMAX // 4)


def _size_option(ctx, attr):
  """(value, element) of a <size> attribute, the last one given; (None, None) if none."""
  found = None, None
  for node in ctx.root.all("size"):
    if node.has(attr):
      found = node.get(attr), node
  return found


def _nconmax(ctx, v):
  """Contact capacity per world: ``<size nconmax>`` when given, else enough for a pile of the model's geoms; plus
  room for one geom pair's contacts past the collision's own when geom-distance sensors collide geoms (sensor.py)."""
  reserve = types.MAXCONPAIR if any(node.tag in ("distance", "normal", "fromto")
                                    for section in ctx.root.all("sensor") for node in section.children) else 0
  value, _ = _size_option(ctx, "nconmax")
  if value is not None and value > 0:
    return value + reserve
  types_ = np.atleast_1d(v.get("geom_type", []))
  nhf = int(np.count_nonzero(types_ == int(types.GeomType.HFIELD)))
  # A height field makes up to MAXCONPAIR contacts with every other geom it touches.
  return default_nconmax(v.get("ngeom", 0)) + types.MAXCONPAIR * nhf * (len(types_) - nhf) + reserve + _flex_contacts(v)


def _flex_contacts(v):
  """Most geom-flex contacts at once (collision/flex.py): each plane the flex can touch, one per vertex; each sphere,
  one per element; each capsule, two per element; each box, 11 per element."""
  n = 0
  gtype = np.atleast_1d(v.get("geom_type", []))
  for f in range(v.get("nflex", 0)):
    for g, t in enumerate(gtype):
      if not ((v["geom_contype"][g] & v["flex_conaffinity"][f]) or (v["flex_contype"][f] & v["geom_conaffinity"][g])):
        continue
      if t == int(types.GeomType.PLANE):
        n += int(v["flex_vertnum"][f])
      elif t == int(types.GeomType.SPHERE):
        n += int(v["flex_elemnum"][f])
      elif t == int(types.GeomType.CAPSULE):
        n += 2 * int(v["flex_elemnum"][f])
      elif t == int(types.GeomType.BOX):
        n += 11 * int(v["flex_elemnum"][f])
  return n


def _njmax(ctx, v):
  """Constraint-row capacity: ``<size njmax>`` when given, else every possible non-contact row plus the
  rows of nconmax contacts of the model's largest condim under either cone."""
  value, node = _size_option(ctx, "njmax")
  if value is not None and value > 0:
    if value * max(v["nv"], 1) > MAX_EFC_J:
      fail(node, f"njmax {value} rows of {v['nv']} dofs need a constraint Jacobian larger than mjgym's bound of "
           f"{MAX_EFC_J} entries", "njmax")
    return value
  rows = {types.EqType.CONNECT: 3, types.EqType.WELD: 6}  # joint and tendon couplings take one row
  n = sum(rows.get(int(t), 1) for t in np.atleast_1d(v.get("eq_type", [])))
  # a flex equality takes one row per edge that is not rigid
  for t, f in zip(np.atleast_1d(v.get("eq_type", [])), np.atleast_1d(v.get("eq_obj1id", []))):
    if t == types.EqType.FLEX:
      adr, num = v["flex_edgeadr"][f], v["flex_edgenum"][f]
      n += int(num - np.count_nonzero(v["flexedge_rigid"][adr:adr + num])) - 1
  n += int(np.count_nonzero(v.get("dof_frictionloss", [])))
  n += int(np.count_nonzero(v.get("tendon_frictionloss", [])))
  n += 2 * int(np.count_nonzero(v.get("jnt_limited", []))) + 2 * int(np.count_nonzero(v.get("tendon_limited", [])))
  condims = (list(np.atleast_1d(v.get("geom_condim", []))) + list(np.atleast_1d(v.get("pair_dim", [])))
             + list(np.atleast_1d(v.get("flex_condim", []))))
  condim = int(max(condims)) if condims else 1
  return max(1, n + v["nconmax"] * max(condim, 2 * (condim - 1)))


def default_nconmax(ngeom):
  """Contact capacity when the model sets none: a box-box pair makes up to 8 contacts (a multiccd pair of the general
  convex collider up to 4), piles touch ~2 others."""
  return 8 * ngeom + 64
