"""Model and MjData: the Python face of the engine's data, shaped like the `mujoco` bindings.

``Model`` is a compiled model; the bindings' ``MjModel`` (``model.py``) is a Model with the constructors from
files, which need the compilers (one layer up: they build Models, so this module cannot import them). Each
container keeps its fields as numpy arrays (read and written directly from Python) and, beside them, a
numba structref over the very same arrays (``_struct``) that compiled kernels take. Field names and shapes
come from the tables in ``types.py``.
"""

import numpy as np

from mjgym.physics import _structs
from mjgym.physics import forward
from mjgym.physics import math
from mjgym.physics import records
from mjgym.physics import types
from mjgym.physics.collision import driver
from mjgym.physics.types import ObjType

_NUMPY_DTYPE = {"int": np.int32, "float": np.float64, "u8": np.uint8}

# Object type -> (model field prefix, accessor names in the bindings).
_OBJECTS = {
    ObjType.BODY: ("body_", ("body",)),
    ObjType.JOINT: ("jnt_", ("joint", "jnt")),
    ObjType.GEOM: ("geom_", ("geom",)),
    ObjType.SITE: ("site_", ("site",)),
    ObjType.CAMERA: ("cam_", ("camera", "cam")),
    ObjType.LIGHT: ("light_", ("light",)),
    ObjType.FLEX: ("flex_", ("flex",)),
    ObjType.MESH: ("mesh_", ("mesh",)),
    ObjType.HFIELD: ("hfield_", ("hfield",)),
    ObjType.MATERIAL: ("mat_", ("material", "mat")),
    ObjType.TEXTURE: ("tex_", ("texture", "tex")),
    ObjType.TENDON: ("tendon_", ("tendon", "ten")),
    ObjType.ACTUATOR: ("actuator_", ("actuator",)),
    ObjType.EQUALITY: ("eq_", ("equality", "eq")),
    ObjType.PAIR: ("pair_", ("pair",)),
    ObjType.EXCLUDE: ("exclude_", ("exclude",)),
    ObjType.KEY: ("key_", ("key", "keyframe")),
    ObjType.SENSOR: ("sensor_", ("sensor",)),
}

# The bindings' names buffer lists the model's name, then the names of these object types, in this order;
# name_<prefix>adr gives where each object's name starts.
_NAME_ADR = {"name_bodyadr": ObjType.BODY, "name_jntadr": ObjType.JOINT, "name_geomadr": ObjType.GEOM,
             "name_siteadr": ObjType.SITE, "name_camadr": ObjType.CAMERA, "name_lightadr": ObjType.LIGHT,
             "name_flexadr": ObjType.FLEX, "name_meshadr": ObjType.MESH,
             "name_hfieldadr": ObjType.HFIELD, "name_texadr": ObjType.TEXTURE, "name_matadr": ObjType.MATERIAL,
             "name_pairadr": ObjType.PAIR, "name_excludeadr": ObjType.EXCLUDE, "name_eqadr": ObjType.EQUALITY,
             "name_tendonadr": ObjType.TENDON, "name_actuatoradr": ObjType.ACTUATOR,
             "name_sensoradr": ObjType.SENSOR, "name_numericadr": ObjType.NUMERIC, "name_textadr": ObjType.TEXT,
             "name_tupleadr": ObjType.TUPLE, "name_keyadr": ObjType.KEY}
_NAME_ORDER = (ObjType.MODEL,) + tuple(_NAME_ADR.values())

# Object type -> {accessor attribute: data field}, for the per-object views of MjData.
_DATA_VIEWS = {
    ObjType.BODY: {f: f for f in ("xpos", "xquat", "xmat", "xipos", "ximat", "subtree_com", "cinert", "crb",
                                  "cvel", "cacc", "cfrc_int", "cfrc_ext", "xfrc_applied")},
    ObjType.GEOM: {"xpos": "geom_xpos", "xmat": "geom_xmat"},
    ObjType.SITE: {"xpos": "site_xpos", "xmat": "site_xmat"},
    ObjType.CAMERA: {"xpos": "cam_xpos", "xmat": "cam_xmat"},
    ObjType.LIGHT: {"xpos": "light_xpos", "xdir": "light_xdir"},
    ObjType.JOINT: {"xanchor": "xanchor", "xaxis": "xaxis"},
    ObjType.TENDON: {"length": "ten_length", "velocity": "ten_velocity", "J": "ten_J"},
    ObjType.ACTUATOR: {"ctrl": "ctrl", "length": "actuator_length", "velocity": "actuator_velocity",
                       "force": "actuator_force", "moment": "actuator_moment"},
}
# Orientations MuJoCo 4 keeps as quaternions beside their matrices: the body's xquat times the object's local
# quaternion, as its kinematics makes them. Made here when read (they follow from xquat), so not writable.
_FRAME_QUATS = {"xiquat": ("body_iquat", None), "geom_xquat": ("geom_quat", "geom_bodyid"),
                "site_xquat": ("site_quat", "site_bodyid")}
_VIEW_QUATS = {ObjType.BODY: ("xiquat", "xiquat"), ObjType.GEOM: ("xquat", "geom_xquat"),
               ObjType.SITE: ("xquat", "site_xquat")}
_JOINT_QPOS_FIELDS = ("qpos",)
_JOINT_DOF_FIELDS = ("qvel", "qacc", "qacc_warmstart", "qfrc_applied", "qfrc_bias", "qfrc_passive", "cdof",
                     "qfrc_spring", "qfrc_damper", "qfrc_actuator", "qfrc_smooth", "qacc_smooth",
                     "qfrc_constraint")
_JOINT_NQ = {types.JointType.FREE: 7, types.JointType.BALL: 4, types.JointType.SLIDE: 1,
             types.JointType.HINGE: 1}


# Data fields that the bindings show as Python numbers (``d.ncon``, ``d.nefc``, ``d.time``...): one-element arrays
# here, so that compiled code writes them in place; Python reads convert.
DATA_SCALARS = frozenset(name for name, _, shape in types.DATA_ROWS if shape == (1,))
# The constraint rows, which the bindings show cut to nefc (the arrays here have room for njmax).
_EFC_ROWS = frozenset(name for name, _, shape in types.DATA_ROWS if name.startswith("efc_") and shape[:1] == ("njmax",))


def data_sizes(m):
  """Sizes that shape MjData's arrays: the model sizes plus those derived from them."""
  sizes = {name: getattr(m, name) for name in types.MODEL_SIZES}
  sizes["nv2na"] = 2 * m.nv + m.na
  return sizes


def field_shape(shape, sizes, lead=()):
  return tuple(lead) + tuple(sizes[s] if isinstance(s, str) else s for s in shape)


def _struct_over(struct_type, fields, prefix):
  """A ``records`` struct over the model arrays ``prefix + field`` (one-element arrays as scalars)."""
  return struct_type.over({name: fields[prefix + name].reshape(()) if fields[prefix + name].shape == (1,)
                           else fields[prefix + name] for name, _, _, _ in struct_type.FIELDS})


def _visual_rows():
  """(field, numpy dtype, shape, default) of the <visual> settings the compiled model does not hold: kept in the
  model's fields in Python (no kernel reads them) as ``vis_<section>_<name>``, for ``m.vis``."""
  compiled = {name for name, _, _ in types.MODEL_ROWS}
  return tuple((f"vis_{attr.rstrip('_')}_{name}", dtype, shape, default)
               for attr, section in records.MjVisual.SECTIONS.items()
               for name, dtype, shape, default in section.FIELDS
               if f"vis_{attr.rstrip('_')}_{name}" not in compiled)


VISUAL_ROWS = _visual_rows()


def _visual_over(fields):
  """``m.vis``: an MjVisual whose sections are views of the model's ``vis_*`` fields (one-element arrays as
  scalars), compiled or kept in Python."""
  sections = {}
  for attr, section in records.MjVisual.SECTIONS.items():
    arrays = {}
    for name, _, shape, _ in section.FIELDS:
      arr = fields[f"vis_{attr.rstrip('_')}_{name}"]
      arrays[name] = arr.reshape(()) if shape == () else arr
    sections[attr] = section.over(arrays)
  return records.MjVisual.over(sections)


def _add_visual_defaults(fields):
  for name, dtype, shape, default in VISUAL_ROWS:
    if name not in fields:
      fields[name] = np.full(shape, default, dtype)


class _ObjectView:
  """``m.body("torso")`` / ``d.joint("hip")``: the fields of one object, as views into the arrays."""

  def __init__(self, owner, objtype, index, fields):
    object.__setattr__(self, "id", index)
    object.__setattr__(self, "name", owner._model.names_of(objtype)[index])
    object.__setattr__(self, "_fields", fields)
    # the bindings' class names, which scripts see in reprs: _MjModelGeomViews, _MjDataJointViews
    kind = "Model" if isinstance(owner, Model) else "Data"
    object.__setattr__(self, "_kind", f"_Mj{kind}{objtype.name.capitalize()}Views")

  def __getattr__(self, name):
    try:
      value = self._fields[name]
    except KeyError:
      raise AttributeError(f"'{self._kind}' object has no attribute '{name}'") from None
    return value() if callable(value) else value

  def __setattr__(self, name, value):
    self.__getattr__(name)[...] = value

  def __dir__(self):
    return sorted(set(super().__dir__()) | set(self._fields))

  def __repr__(self):
    lines = [f"  id: {self.id}", f"  name: {self.name!r}"]
    lines += [f"  {name}: {self.__getattr__(name)!r}" for name in sorted(self._fields)]
    return f"<{self._kind}\n" + "\n".join(lines) + "\n>"


def _view(owner, objtype, key, make):
  """The view of one object of ``owner`` (a Model or MjData), made by ``make(index)`` once and then kept: the
  bindings give the same view, and the same field arrays, each time an object is named."""
  index = _lookup(owner, objtype, key)
  views = owner.__dict__.setdefault("_views", {})
  view = views.get((objtype, index))
  if view is None:
    view = views[(objtype, index)] = make(index)
  return view


def _lookup(owner, objtype, key):
  """The id of the object ``key`` (a name or an id), with the bindings' errors."""
  names = owner._model.names_of(objtype)
  if isinstance(key, str):
    index = owner._model.name2id(objtype, key)
    if index < 0:
      raise KeyError(f"Invalid name {key!r}. Valid names: {sorted(n for n in names if n)}")
    return index
  index = int(key)
  if not 0 <= index < len(names):
    raise IndexError(f"Invalid index {index}. Valid indices from 0 to {len(names) - 1}")
  return index


def _row_view(arr, index):
  return arr[index:index + 1] if arr.ndim == 1 else arr[index]


# Fields that decide which colliders a model needs (forward.entry); assigning one re-decides.
_TIER_FIELDS = frozenset(["geom_type", "geom_contype", "geom_conaffinity", "pair_geom1", "pair_geom2"])


class Model:
  """A compiled model (``mjModel``): sizes, options and per-object arrays, read-only while simulating.

  What the compilers build; users meet it as its subclass ``MjModel`` (``model.py``), which adds the bindings'
  constructors from MJCF and binary files.

  Every field of ``types.MODEL_FIELDS`` is an attribute: sizes are ints, the rest numpy arrays of the shapes
  in the table (``body_pos`` (nbody, 3) m, ``body_quat`` (nbody, 4), ``actuator_gear`` (nu, 6), ...);
  ``opt`` holds the options. ``_struct`` is the same data as a numba struct for compiled kernels.
  """

  def __init__(self, fields, names, source=None):
    """Internal: the compiler (and tests) build models with ``from_fields``."""
    object.__setattr__(self, "_fields", fields)
    object.__setattr__(self, "_names", names)
    object.__setattr__(self, "_name2id", {t: {n: i for i, n in enumerate(ns) if n} for t, ns in names.items()})
    object.__setattr__(self, "source", source)
    object.__setattr__(self, "opt", _struct_over(records.MjOption, self._fields, "opt_"))
    object.__setattr__(self, "stat", _struct_over(records.MjStatistic, self._fields, "stat_"))
    _add_visual_defaults(fields)
    # MuJoCo 4's flags of optional passive forces, kept in Python: gravity compensation is on when a body has it
    fields.setdefault("flg_gravcomp", np.array([bool(np.any(fields["body_gravcomp"] != 0))]))
    fields.setdefault("flg_surfacevel", np.array([False]))
    object.__setattr__(self, "vis", _visual_over(fields))
    object.__setattr__(self, "_struct", self.new_struct())
    self._update_tier()

  def _update_tier(self):
    f = self._fields
    needs = driver.needs_ccd(f["geom_type"], f["geom_contype"], f["geom_conaffinity"], f["pair_geom1"],
                             f["pair_geom2"])
    object.__setattr__(self, "needs_ccd", needs)

  def new_struct(self):
    """A fresh numba struct over this model's arrays (same memory, its own reference counts)."""
    return _structs.new_model(*[self._fields[n] for n, _, _ in types.MODEL_ROWS])

  @classmethod
  def from_fields(cls, values, names=None, source=None):
    """Builds a model from a dict of field values (missing arrays are zeros of the table's shape).

    ``names`` maps ObjType to a list of names (``""`` for unnamed) per object of that type.
    """
    unknown = set(values) - {n for n, _, _ in types.MODEL_ROWS} - {n for n, _, _, _ in VISUAL_ROWS}
    if unknown:
      raise KeyError(f"unknown model fields: {sorted(unknown)}")
    fields = {}
    for name, _, shape in types.MODEL_ROWS:
      if shape is None:
        fields[name] = int(values.get(name, 0))
    for name, dtype, shape in types.MODEL_ROWS:
      if shape is None:
        continue
      want = field_shape(shape, fields)
      value = values.get(name)
      if value is None:
        arr = np.zeros(want, _NUMPY_DTYPE[dtype])
      else:
        arr = np.ascontiguousarray(np.asarray(value, dtype=_NUMPY_DTYPE[dtype]).reshape(want))
      fields[name] = arr
    for name, dtype, shape, default in VISUAL_ROWS:
      fields[name] = np.array(values.get(name, default), dtype).reshape(shape)
    names = dict(names or {})
    for objtype, (prefix, _) in _OBJECTS.items():
      count = _object_count(fields, objtype)
      names.setdefault(objtype, [""] * count)
      if len(names[objtype]) != count:
        raise ValueError(f"{len(names[objtype])} names given for {count} objects of type {objtype.name}")
    return cls(fields, names, source)

  # Copies follow the bindings: copy.copy and copy.deepcopy of a model are both a full copy (mj_copyModel).
  def __copy__(self):
    return self.__deepcopy__({})

  def __deepcopy__(self, memo):
    fields = {n: v if isinstance(v, int) else v.copy() for n, v in self._fields.items()}
    copied = type(self)(fields, {t: list(ns) for t, ns in self._names.items()}, self.source)
    memo[id(self)] = copied
    return copied

  def __reduce__(self):
    # the arrays and names travel; the compiled struct is rebuilt over the unpickled arrays
    return type(self), (self._fields, self._names, self.source)

  def __getattr__(self, name):
    if name.startswith("_"):
      raise AttributeError(name)
    if name in _NAME_ADR:
      return self._name_table()[1][_NAME_ADR[name]]
    if name in _TENDON_SPARSITY:
      return self._tendon_sparsity()[name]
    if name in _FLAGS:
      return bool(self._fields[name][0])
    if name == "ngravcomp":  # MuJoCo 4 keeps it as the flag's count
      return int(self._fields["flg_gravcomp"][0])
    try:
      return self._fields[name]
    except KeyError:
      raise AttributeError(f"{type(self).__name__} has no attribute '{name}'") from None

  def __setattr__(self, name, value):
    if name in _FLAGS:
      self._set_flag(name, bool(value))
      return
    if name == "vis":
      # as the bindings: every section's values are copied in; views of m.vis and its sections stay valid
      if not isinstance(value, records.MjVisual):
        raise TypeError(f"vis takes an MjVisual, got {type(value).__name__}")
      for attr in records.MjVisual.SECTIONS:
        setattr(self.vis, attr, getattr(value, attr))
      return
    if name in ("opt", "stat"):
      # as the bindings: the struct's values are copied in, and views of m.opt / m.stat stay valid
      current = self.__dict__[name]
      if type(value) is not type(current):
        raise TypeError(f"{name} takes an {type(current).__name__}, got {type(value).__name__}")
      for field, _, _, _ in current.FIELDS:
        setattr(current, field, getattr(value, field))
      return
    if name not in self._fields:
      raise AttributeError(f"{type(self).__name__} has no attribute '{name}'")
    if isinstance(self._fields[name], int):
      raise AttributeError(f"size '{name}' is fixed at compile time")
    self._fields[name][...] = value
    if name in _TIER_FIELDS:
      self._update_tier()

  def __dir__(self):
    computed = _TENDON_SPARSITY | {"ngravcomp"}
    return sorted(set(super().__dir__()) | {n for n in self._fields if not n.startswith("opt_")} | computed)

  @property
  def names(self):
    """The bindings' names buffer: the model's name, then every object's, each ended by a null byte, in MuJoCo's
    order of object types; ``name_bodyadr`` (nbody,) ... give where each name starts."""
    return self._name_table()[0]

  def _name_table(self):
    table = self.__dict__.get("_name_table_cache")
    if table is None:
      buffer, adr = bytearray(), {}
      for objtype in _NAME_ORDER:
        starts = []
        for name in self.names_of(objtype):
          starts.append(len(buffer))
          buffer += name.encode() + b"\0"
        adr[objtype] = np.array(starts, np.int32)
      table = self.__dict__["_name_table_cache"] = (bytes(buffer), adr)
    return table

  def _set_flag(self, name, value):
    """flg_gravcomp / flg_surfacevel. The engine applies gravity compensation by body_gravcomp and has no surface
    velocities, so only the settings that change nothing there are taken: turning gravcomp off while a body has
    it (MuJoCo then skips it) is refused."""
    if name == "flg_gravcomp" and not value and np.any(self._fields["body_gravcomp"] != 0):
      raise ValueError("flg_gravcomp = False: this engine compensates gravity by body_gravcomp alone; set "
                       "m.body_gravcomp to 0 to turn it off")
    self._fields[name][0] = value

  def _tendon_sparsity(self):
    """MuJoCo 4's rows of the tendon Jacobian's sparsity, made from the wrap objects when first read (the engine
    keeps ten_J dense): each tendon's dofs, ascending, a fixed tendon's joints' and a spatial tendon's union of
    the dof chains of the bodies its sites and wrapping geoms ride on."""
    sparsity = self.__dict__.get("_tendon_sparsity_cache")
    if sparsity is None:
      f = self._fields
      rows = [_tendon_dofs(f, t) for t in range(f["ntendon"])]
      nnz = np.array([len(r) for r in rows], np.int32)
      sparsity = {"nJten": int(nnz.sum()), "ten_J_rownnz": nnz,
                  "ten_J_rowadr": (np.cumsum(nnz) - nnz).astype(np.int32),
                  "ten_J_colind": np.array([dof for r in rows for dof in r], np.int32)}
      self.__dict__["_tendon_sparsity_cache"] = sparsity
    return sparsity

  def names_of(self, objtype):
    return self._names.get(ObjType(objtype), [])

  def name2id(self, objtype, name):
    return self._name2id.get(ObjType(objtype), {}).get(name, -1)

  def _view(self, objtype, key):
    return _view(self, objtype, key, lambda index: self._make_view(objtype, index))

  def _make_view(self, objtype, index):
    prefix = _OBJECTS[objtype][0]
    count = len(self._model.names_of(objtype))
    # one row an object: arrays over other counts (flex_texcoord, mesh_vert, ...) are not the object's, as in the
    # bindings
    fields = {n[len(prefix):]: _row_view(v, index) for n, v in self._fields.items()
              if n.startswith(prefix) and not isinstance(v, int) and len(v) == count}
    if objtype == ObjType.TENDON:
      # the tendon's row of the Jacobian's sparsity, as the bindings' ragged view
      adr, nnz = int(self.ten_J_rowadr[index]), int(self.ten_J_rownnz[index])
      fields.update(J_rowadr=self.ten_J_rowadr[index:index + 1], J_rownnz=self.ten_J_rownnz[index:index + 1],
                    J_colind=self.ten_J_colind[adr:adr + nnz])
    return _ObjectView(self, objtype, index, fields)

  @property
  def _model(self):
    return self


_FLAGS = frozenset(["flg_gravcomp", "flg_surfacevel"])
# Model fields made in Python from others when first read, not compiled (no kernel takes them).
_TENDON_SPARSITY = frozenset(["nJten", "ten_J_rownnz", "ten_J_rowadr", "ten_J_colind"])


def _dof_chain(f, body):
  """The dofs that move ``body``: its own and its ancestors'."""
  dofs = []
  while body > 0:
    adr = f["body_dofadr"][body]
    dofs.extend(range(adr, adr + f["body_dofnum"][body]) if adr >= 0 else ())
    body = f["body_parentid"][body]
  return dofs


def _tendon_dofs(f, tendon):
  """The sorted dofs tendon ``tendon``'s length depends on, by its wrap objects."""
  dofs = set()
  adr = f["tendon_adr"][tendon]
  for w in range(adr, adr + f["tendon_num"][tendon]):
    kind, obj = f["wrap_type"][w], f["wrap_objid"][w]
    if kind == types.WrapType.JOINT:
      dofs.add(int(f["jnt_dofadr"][obj]))
    elif kind == types.WrapType.SITE:
      dofs.update(_dof_chain(f, f["site_bodyid"][obj]))
    elif kind in (types.WrapType.SPHERE, types.WrapType.CYLINDER):
      dofs.update(_dof_chain(f, f["geom_bodyid"][obj]))
  return sorted(dofs)


class MjData:
  """Time-varying state and every quantity computed from it (``mjData``), preallocated for one model.

  Every field of ``types.DATA_FIELDS`` is an attribute holding a numpy array: ``qpos`` (nq,), ``qvel`` (nv,)
  m/s or rad/s, ``xpos`` (nbody, 3) m, ``xmat`` (nbody, 9) row-major, ``cinert`` (nbody, 10), ``qM`` (nM,)
  in MuJoCo's legacy sparse layout (use ``mj_fullM``), ``actuator_moment`` (nu, nv) dense, ...;
  ``time`` reads as a float (s). Construction resets to ``qpos0`` like ``mj_resetData``.
  """

  def __init__(self, m):
    self._attach(m, allocate_data_arrays(m))
    forward.reset_data(m._struct, self._struct)

  @classmethod
  def over_arrays(cls, m, arrays):
    """A Data whose fields are the given arrays (views into a batch, say), left as they are."""
    d = cls.__new__(cls)
    d._attach(m, arrays)
    return d

  # Copies follow the bindings: copy.copy gives new Data bound to the same model, copy.deepcopy copies the model
  # too (unless memo already holds its copy), and a pickle carries the model along.
  def __copy__(self):
    return MjData.over_arrays(self.model, _copy_arrays(self._fields))

  def __deepcopy__(self, memo):
    import copy  # pylint: disable=import-outside-toplevel
    copied = MjData.over_arrays(copy.deepcopy(self.model, memo), _copy_arrays(self._fields))
    memo[id(self)] = copied
    return copied

  def __reduce__(self):
    return MjData.over_arrays, (self.model, self._fields)

  def _attach(self, m, arrays):
    object.__setattr__(self, "model", m)
    object.__setattr__(self, "_fields", arrays)
    object.__setattr__(self, "_struct", _structs.new_data(*[arrays[n] for n, _, _ in types.DATA_ROWS]))
    object.__setattr__(self, "_threadpool", 0)

  @property
  def threadpool(self):
    """Worker threads of the pool ``mju_threadpool`` gave this Data (0: none), as the bindings' (nonzero) pointer.
    This engine's single-Data step runs on the calling thread: the pool only marks the Data, and rollout refuses
    it as MuJoCo's does."""
    return self._threadpool

  @property
  def _model(self):
    return self.model

  @property
  def contact(self):
    """The ``ncon`` contacts (``records.MjContact``): ``d.contact[i]``, ``for c in d.contact``, or a field of all,
    ``d.contact.dist`` (ncon,), ``.geom`` (ncon, 2)... ``geom`` is made from geom1 and geom2, the engine's
    storage of a contact's geoms, and writing it writes them. ``H``, ``adhesion`` and ``surfacevel`` are kept in
    arrays of their own (``PYTHON_ONLY_DATA_ROWS``): what is written stays, the engine neither fills nor clears
    them (zeros unless written; MuJoCo refills them at each collision)."""
    f = self._fields
    for name, dtype, shape in _CONTACT_ROWS:  # Data made over older arrays get them here
      if name not in f:
        f[name] = np.zeros(field_shape(shape, data_sizes(self.model)), _NUMPY_DTYPE[dtype])
    fields = {name: f["contact_" + name] for name, _, _, _ in records.MjContact.FIELDS if "contact_" + name in f}
    fields["geom"] = lambda n: np.stack([f["contact_geom1"][:n], f["contact_geom2"][:n]], axis=1)
    return records.StructList(_ContactOfData, fields, lambda: int(f["ncon"][0]))

  @property
  def warning(self):
    """Per mjtWarning (``records.MjWarningStat``): ``d.warning[i].number`` (how often it was raised) and
    ``.lastinfo`` (last index involved); ``d.warning.number`` (mjNWARNING,) all at once."""
    f = self._fields
    return records.StructList(records.MjWarningStat, {"number": f["warning_number"],
                                                      "lastinfo": f["warning_lastinfo"]},
                              lambda: len(f["warning_number"]))

  @property
  def solver(self):
    """The main solver's statistics per iteration of island 0 (``records.MjSolverStat``, mjNSOLVER of them;
    ``d.solver_niter`` says how many are used). ``nupdate`` is zero: this engine does not count updates."""
    f = self._fields
    fields = {name: f["solver_" + name] for name, _, _, _ in records.MjSolverStat.FIELDS if "solver_" + name in f}
    fields["nupdate"] = lambda n: np.zeros(n, np.int32)
    return records.StructList(records.MjSolverStat, fields, lambda: len(f["solver_neval"]))

  @property
  def timer(self):
    """The bindings' timers (``records.MjTimerStat``, mjNTIMER of them): zeros, this engine times no stage; a
    user may write them."""
    f = self._fields
    return records.StructList(records.MjTimerStat, {"duration": f["timer_duration"], "number": f["timer_number"]},
                              lambda: len(f["timer_number"]))

  def __getattr__(self, name):
    if name.startswith("_"):
      # not a field; also keeps copy/pickle of a half-built object from recursing through _fields
      raise AttributeError(name)
    if name in _FRAME_QUATS:
      return self._frame_quat(name)
    try:
      value = self._fields[name]
    except KeyError:
      raise AttributeError(f"MjData has no attribute '{name}'") from None
    if name in DATA_SCALARS:
      return value[0].item()
    if name in _EFC_ROWS:
      nefc = int(self._fields["nefc"][0])
      # no rows: an empty array of its own, as the bindings give (not a view of the unused room)
      return value[:nefc] if nefc else np.empty((0,) + value.shape[1:], value.dtype)
    return value

  def __setattr__(self, name, value):
    if name not in self._fields:
      raise AttributeError(f"MjData has no attribute '{name}'")
    self._fields[name][...] = value

  def __dir__(self):
    return sorted(set(super().__dir__()) | set(self._fields) | set(_FRAME_QUATS))

  def _view(self, objtype, key):
    return _view(self, objtype, key, lambda index: self._make_view(objtype, index))

  def _frame_quat(self, name):
    local, body = _FRAME_QUATS[name]
    m = self.model
    xquat = self._fields["xquat"] if body is None else self._fields["xquat"][getattr(m, body)]
    return np.ascontiguousarray(np.array(math.quat_mul.py_func(xquat.T, getattr(m, local).T)).T)

  def _make_view(self, objtype, index):
    m = self.model
    fields = {attr: _row_view(self._fields[f], index) for attr, f in _DATA_VIEWS.get(objtype, {}).items()}
    if objtype in _VIEW_QUATS:
      attr, field = _VIEW_QUATS[objtype]
      fields[attr] = lambda: self._frame_quat(field)[index]
    if objtype == ObjType.JOINT:
      jtype = int(m.jnt_type[index])
      qadr, dadr = int(m.jnt_qposadr[index]), int(m.jnt_dofadr[index])
      nq = _JOINT_NQ[jtype]
      nv = {7: 6, 4: 3}.get(nq, 1)
      for f in _JOINT_QPOS_FIELDS:
        fields[f] = self._fields[f][qadr:qadr + nq]
      for f in _JOINT_DOF_FIELDS:
        fields[f] = self._fields[f][dadr:dadr + nv]
    if objtype == ObjType.SENSOR:
      adr, dim = int(m.sensor_adr[index]), int(m.sensor_dim[index])
      fields["data"] = self._fields["sensordata"][adr:adr + dim]
    if objtype == ObjType.ACTUATOR:
      adr, num = int(m.actuator_actadr[index]), int(m.actuator_actnum[index])
      fields["act"] = self._fields["act"][adr:adr + num] if adr >= 0 else self._fields["act"][:0]
    return _ObjectView(self, objtype, index, fields)


def _copy_arrays(fields):
  """Contiguous copies of every Data array (the struct requires C order)."""
  return {name: np.ascontiguousarray(arr).copy() for name, arr in fields.items()}


def allocate_data_arrays(m, nworld=None):
  """Zeroed arrays for every Data field; with ``nworld``, each gets a leading world axis."""
  sizes = data_sizes(m)
  lead = () if nworld is None else (nworld,)
  arrays = {name: np.zeros(field_shape(shape, sizes, lead), _NUMPY_DTYPE[dtype])
            for name, dtype, shape in types.DATA_ROWS}
  for name, dtype, shape in PYTHON_ONLY_DATA_ROWS:
    arrays[name] = np.zeros(field_shape(shape, sizes, lead), _NUMPY_DTYPE[dtype])
  return arrays


# Contact fields MuJoCo 4 has and the engine does not compute: kept for the bindings' d.contact[i].H = ...
_CONTACT_ROWS = (("contact_H", "float", ("nconmax", 36)), ("contact_adhesion", "float", ("nconmax",)),
                 ("contact_surfacevel", "float", ("nconmax", 3)))
# Data fields outside the compiled Data struct: written only by functions that take them as explicit arguments
# (inverse dynamics) or by Python, so that adding them recompiles nothing. Same (name, dtype, shape) rows as
# types.DATA_ROWS.
PYTHON_ONLY_DATA_ROWS = (("qfrc_inverse", "float", ("nv",)), ("timer_duration", "float", (types.NTIMER,)),
                         ("timer_number", "int", (types.NTIMER,))) + _CONTACT_ROWS


class _ContactOfData(records.MjContact):
  """``d.contact[i]``: an MjContact over the Data's rows, whose ``geom`` (made from geom1 and geom2) writes them."""

  def __setattr__(self, name, value):
    super().__setattr__(name, value)
    arrays = self.__dict__["_arrays"]
    if name == "geom":
      arrays["geom1"][...], arrays["geom2"][...] = arrays["geom"]
    elif name in ("geom1", "geom2"):
      arrays["geom"][int(name[-1]) - 1] = arrays[name]


_ContactOfData.__name__ = "MjContact"  # the bindings' name in reprs (its qualified name, for pickle, stays)


def _object_count(fields, objtype):
  counts = {ObjType.BODY: "nbody", ObjType.JOINT: "njnt", ObjType.GEOM: "ngeom", ObjType.SITE: "nsite",
            ObjType.CAMERA: "ncam", ObjType.LIGHT: "nlight", ObjType.FLEX: "nflex", ObjType.MESH: "nmesh",
            ObjType.HFIELD: "nhfield", ObjType.MATERIAL: "nmat", ObjType.TEXTURE: "ntex",
            ObjType.TENDON: "ntendon", ObjType.ACTUATOR: "nu", ObjType.EQUALITY: "neq", ObjType.PAIR: "npair",
            ObjType.EXCLUDE: "nexclude", ObjType.KEY: "nkey", ObjType.SENSOR: "nsensor"}
  return fields[counts[objtype]]


def _add_accessors():
  for objtype, (_, accessors) in _OBJECTS.items():
    def accessor(self, key="", _t=objtype):
      return self._view(_t, key)
    accessor.__doc__ = f"Named access to one {objtype.name.lower()}: by name or id."
    for attr in accessors:
      setattr(Model, attr, accessor)
      setattr(MjData, attr, accessor)


_add_accessors()
