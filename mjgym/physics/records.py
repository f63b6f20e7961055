"""The bindings' small struct types and the lists of them that Data holds.

``MjContact``, ``MjWarningStat``, ``MjSolverStat``, ``MjTimerStat``, ``MjLROpt``, ``MjOption`` and
``MjStatistic`` behave as the bindings' structs do: constructed bare they own their fields (zeros, or MuJoCo's
defaults); taken from a Model or Data (``m.opt``, ``d.contact[0]``, ``d.warning[i]``) they are views of its
arrays, so reads see the engine's values and writes reach it. Scalars read as Python numbers, arrays as numpy
arrays; two structs are equal when their types and every field are; they are mutable, so not hashable; their repr
lists every field, as the bindings' does. ``d.contact``, ``d.warning``, ``d.solver`` and ``d.timer`` are
``StructList``s: indexable, iterable, comparable, and ``d.contact.dist`` gives the field of all of them at once.
"""

import numpy as np


class Struct:
  """A bindings struct; subclasses list their fields in ``FIELDS`` as (name, numpy dtype, shape, default)."""

  FIELDS = ()
  __hash__ = None  # mutable: equal structs may change

  def __init__(self):
    object.__setattr__(self, "_arrays", {name: filled(shape, default, dtype)
                                         for name, dtype, shape, default in self.FIELDS})

  @classmethod
  def over(cls, arrays):
    """A struct whose fields are views of ``arrays`` ({name: array}, each with the field's shape)."""
    struct = cls.__new__(cls)
    object.__setattr__(struct, "_arrays", arrays)
    return struct

  def __copy__(self):
    """A struct that owns copies of the fields (the bindings' copy of a struct taken from Data is no view)."""
    return type(self).over({name: arr.copy() for name, arr in self.__dict__["_arrays"].items()})

  def __deepcopy__(self, memo):
    return self.__copy__()

  def __reduce__(self):
    return type(self).over, ({name: arr.copy() for name, arr in self.__dict__["_arrays"].items()},)

  def _array(self, name):
    try:
      return self.__dict__["_arrays"][name]
    except KeyError:
      raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'") from None

  def __getattr__(self, name):
    arr = self._array(name)
    return arr.item() if arr.ndim == 0 else arr

  def __setattr__(self, name, value):
    arr = self._array(name)
    if arr.dtype.kind == "i" and np.asarray(value).dtype.kind not in "iub":
      raise TypeError(f"{type(self).__name__}.{name} takes integers, got {value!r}")
    arr[...] = value

  def __dir__(self):
    return sorted(set(super().__dir__()) | set(self.__dict__["_arrays"]))

  def __eq__(self, other):
    if not isinstance(other, Struct) or self._base() is not other._base():
      return NotImplemented
    mine, theirs = self.__dict__["_arrays"], other.__dict__["_arrays"]
    return mine.keys() == theirs.keys() and all(np.array_equal(mine[n], theirs[n]) for n in mine)

  @classmethod
  def _base(cls):
    """The bindings type of a struct (subclasses of MjContact compare as MjContact)."""
    return next(c for c in cls.__mro__ if Struct in c.__bases__)

  def __repr__(self):
    arrays = self.__dict__["_arrays"]
    lines = "".join(f"  {name}: {self.__getattr__(name)!r}\n" for name in sorted(arrays))
    return f"<{type(self).__name__}\n{lines}>"


def filled(shape, default, dtype):
  """An array of a field's shape holding its default (one value, or one per element in order)."""
  if isinstance(default, list):
    return np.array(default, dtype).reshape(shape)
  return np.full(shape, default, dtype)


def fields(spec):
  """FIELDS from "name dtype shape default" lines (shape: dimensions joined by 'x', or '-' for a scalar; default:
  one value for every element, or all of them joined by ',')."""
  rows = []
  for line in spec.strip().splitlines():
    name, dtype, shape, default = line.split()
    rows.append((name, np.dtype(dtype), () if shape == "-" else tuple(int(n) for n in shape.split("x")),
                 [float(x) for x in default.split(",")] if "," in default else float(default)))
  return tuple(rows)


def defaults(struct_type):
  """{field: default value} of a struct type (what its constructor fills in)."""
  return {name: default for name, _, _, default in struct_type.FIELDS}


class MjContact(Struct):
  """One contact (``mjContact``): dist (m), pos (3,), frame (9,) rows normal and tangents, includemargin,
  friction (5,), solref (2,), solreffriction (2,), solimp (5,), mu, H (36,) cone Hessian, dim, geom (2,) with
  geom1 and geom2, flex (2,), elem (2,), vert (2,), exclude, efc_address, adhesion, surfacevel (3,)."""

  FIELDS = fields("""
    dist float64 - 0
    pos float64 3 0
    frame float64 9 0
    includemargin float64 - 0
    friction float64 5 0
    solref float64 2 0
    solreffriction float64 2 0
    solimp float64 5 0
    mu float64 - 0
    H float64 36 0
    dim int32 - 0
    geom1 int32 - 0
    geom2 int32 - 0
    geom int32 2 0
    flex int32 2 0
    elem int32 2 0
    vert int32 2 0
    exclude int32 - 0
    efc_address int32 - 0
    adhesion float64 - 0
    surfacevel float64 3 0
  """)


class MjWarningStat(Struct):
  """One warning's statistics (``mjWarningStat``): lastinfo (the last index involved) and number (how often)."""

  FIELDS = fields("""
    lastinfo int32 - 0
    number int32 - 0
  """)


class MjSolverStat(Struct):
  """One solver iteration's statistics (``mjSolverStat``)."""

  FIELDS = fields("""
    improvement float64 - 0
    gradient float64 - 0
    lineslope float64 - 0
    nactive int32 - 0
    nchange int32 - 0
    neval int32 - 0
    nupdate int32 - 0
  """)


class MjTimerStat(Struct):
  """One timer's statistics (``mjTimerStat``): duration (cumulative) and number (how many times it ran)."""

  FIELDS = fields("""
    duration float64 - 0
    number int32 - 0
  """)


class MjLROpt(Struct):
  """Options of the actuator length-range computation (``mjLROpt``); zeros when constructed, as in the bindings
  (MuJoCo's defaults are mj_defaultLROpt's)."""

  FIELDS = fields("""
    mode int32 - 0
    useexisting int32 - 0
    uselimit int32 - 0
    accel float64 - 0
    maxforce float64 - 0
    timeconst float64 - 0
    timestep float64 - 0
    inttotal float64 - 0
    interval float64 - 0
    tolrange float64 - 0
  """)


class MjOption(Struct):
  """Simulation options (``mjOption``), MuJoCo's defaults when constructed; ``m.opt`` reads and writes the model
  arrays compiled code sees. timestep (s), impratio, tolerance, ls_tolerance, noslip_tolerance, ccd_tolerance (m),
  gravity (3,) m/s², wind (3,) m/s, magnetic (3,), density kg/m³, viscosity Pa·s, o_margin, o_solref (2,),
  o_solimp (5,), o_friction (5,), integrator (mjtIntegrator), cone, jacobian, solver, iterations, ls_iterations,
  noslip_iterations, ccd_iterations, disableflags (mjtDisableBit), disableactuator (bits of the disabled actuator
  groups), enableflags (mjtEnableBit)."""

  FIELDS = fields("""
    timestep float64 - 0.002
    impratio float64 - 1
    tolerance float64 - 1e-8
    ls_tolerance float64 - 0.01
    noslip_tolerance float64 - 1e-6
    ccd_tolerance float64 - 1e-6
    gravity float64 3 0,0,-9.81
    wind float64 3 0
    magnetic float64 3 0,-0.5,0
    density float64 - 0
    viscosity float64 - 0
    o_margin float64 - 0
    o_solref float64 2 0.02,1
    o_solimp float64 5 0.9,0.95,0.001,0.5,2
    o_friction float64 5 1,1,0.005,1e-4,1e-4
    integrator int32 - 0
    cone int32 - 0
    jacobian int32 - 2
    solver int32 - 2
    iterations int32 - 100
    ls_iterations int32 - 50
    noslip_iterations int32 - 0
    ccd_iterations int32 - 35
    disableflags int32 - 0
    disableactuator int32 - 0
    enableflags int32 - 0
  """)


class MjStatistic(Struct):
  """Model statistics (``mjStatistic``): meaninertia (kg·m²), meanmass (kg), meansize (m), extent (m), center (3,)."""

  FIELDS = fields("""
    meaninertia float64 - 0
    meanmass float64 - 0
    meansize float64 - 0
    extent float64 - 0
    center float64 3 0
  """)


class _VisualGlobal(Struct):
  """``m.vis.global_`` (``mjVisual.global``): the free camera (cameraid, orthographic, fovy degrees, ipd, azimuth,
  elevation degrees), linewidth, glow, realtime, offscreen size (offwidth, offheight), ellipsoidinertia, bvactive."""

  FIELDS = fields("""
    cameraid int32 - -1
    orthographic int32 - 0
    fovy float32 - 45
    ipd float32 - 0.068
    azimuth float32 - 90
    elevation float32 - -45
    linewidth float32 - 1
    glow float32 - 0.3
    realtime float32 - 1
    offwidth int32 - 640
    offheight int32 - 480
    ellipsoidinertia int32 - 0
    bvactive int32 - 0
  """)


class _VisualQuality(Struct):
  """``m.vis.quality``: shadowsize, offsamples, numslices, numstacks, numquads."""

  FIELDS = fields("""
    shadowsize int32 - 4096
    offsamples int32 - 4
    numslices int32 - 28
    numstacks int32 - 16
    numquads int32 - 4
  """)


class _VisualHeadlight(Struct):
  """``m.vis.headlight``: ambient, diffuse, specular (3,) rgb, active."""

  FIELDS = fields("""
    ambient float32 3 0.1
    diffuse float32 3 0.4
    specular float32 3 0.5
    active int32 - 1
  """)


class _VisualMap(Struct):
  """``m.vis.map``: mouse perturbation (stiffness, stiffnessrot), force and torque scales, alpha, fog (fogstart,
  fogend), clipping planes (znear, zfar), haze, shadowclip, shadowscale, actuatortendon (in units of extent)."""

  FIELDS = fields("""
    stiffness float32 - 100
    stiffnessrot float32 - 500
    force float32 - 0.005
    torque float32 - 0.1
    alpha float32 - 0.3
    fogstart float32 - 3
    fogend float32 - 10
    znear float32 - 0.01
    zfar float32 - 50
    haze float32 - 0.3
    shadowclip float32 - 1
    shadowscale float32 - 0.6
    actuatortendon float32 - 2
  """)


class _VisualScale(Struct):
  """``m.vis.scale``: sizes of the decor the visualizer draws, in units of meansize."""

  FIELDS = fields("""
    forcewidth float32 - 0.1
    contactwidth float32 - 0.3
    contactheight float32 - 0.1
    connect float32 - 0.2
    com float32 - 0.4
    camera float32 - 0.3
    light float32 - 0.3
    selectpoint float32 - 0.2
    jointlength float32 - 1
    jointwidth float32 - 0.1
    actuatorlength float32 - 0.7
    actuatorwidth float32 - 0.2
    framelength float32 - 1
    framewidth float32 - 0.1
    constraint float32 - 0.1
    slidercrank float32 - 0.2
    frustum float32 - 10
  """)


class _VisualRgba(Struct):
  """``m.vis.rgba``: colors (4,) of the visualizer's decor."""

  FIELDS = fields("""
    fog float32 4 0,0,0,1
    haze float32 4 1,1,1,1
    force float32 4 1,0.5,0.5,1
    inertia float32 4 0.8,0.2,0.2,0.6
    joint float32 4 0.2,0.6,0.8,1
    actuator float32 4 0.2,0.25,0.2,1
    actuatornegative float32 4 0.2,0.6,0.9,1
    actuatorpositive float32 4 0.9,0.4,0.2,1
    com float32 4 0.9,0.9,0.9,1
    camera float32 4 0.6,0.9,0.6,1
    light float32 4 0.6,0.6,0.9,1
    selectpoint float32 4 0.9,0.9,0.1,1
    connect float32 4 0.2,0.2,0.8,1
    contactpoint float32 4 0.9,0.6,0.2,1
    contactforce float32 4 0.7,0.9,0.9,1
    contactfriction float32 4 0.9,0.8,0.4,1
    contacttorque float32 4 0.9,0.7,0.9,1
    contactgap float32 4 0.5,0.8,0.9,1
    rangefinder float32 4 1,1,0.1,1
    constraint float32 4 0.9,0,0,1
    slidercrank float32 4 0.5,0.3,0.8,1
    crankbroken float32 4 0.9,0,0,1
    frustum float32 4 1,1,0,0.2
    bv float32 4 0,1,0,0.5
    bvactive float32 4 1,0,0,0.5
  """)


for _cls, _name in ((_VisualGlobal, "Global"), (_VisualQuality, "Quality"), (_VisualHeadlight, "Headlight"),
                    (_VisualMap, "Map"), (_VisualScale, "Scale"), (_VisualRgba, "Rgba")):
  _cls.__name__, _cls.__qualname__ = _name, f"MjVisual.{_name}"  # the bindings' names: MjVisual.Global, ...


class MjVisual:
  """Visualization settings (``mjVisual``): the sections ``global_``, ``quality``, ``headlight``, ``map``,
  ``scale`` and ``rgba``, each a struct. Constructed bare it owns MuJoCo's defaults; ``m.vis`` is a view of the
  model's. Assigning a section (``vis.headlight = h``) copies its values in, so views of it stay valid; equality
  by every field; ``copy.copy`` gives an owned copy."""

  SECTIONS = {"global_": _VisualGlobal, "quality": _VisualQuality, "headlight": _VisualHeadlight,
              "map": _VisualMap, "scale": _VisualScale, "rgba": _VisualRgba}
  Global, Quality, Headlight, Map, Scale, Rgba = SECTIONS.values()
  __hash__ = None

  def __init__(self):
    for attr, section in self.SECTIONS.items():
      object.__setattr__(self, attr, section())

  @classmethod
  def over(cls, sections):
    """An MjVisual whose sections are the given structs ({attribute: struct})."""
    vis = cls.__new__(cls)
    for attr in cls.SECTIONS:
      object.__setattr__(vis, attr, sections[attr])
    return vis

  def __setattr__(self, attr, value):
    if attr not in self.SECTIONS:
      raise AttributeError(f"'MjVisual' object has no attribute '{attr}'")
    current = self.__dict__[attr]
    if type(value) is not type(current):
      raise TypeError(f"{attr} takes an MjVisual.{type(current).__name__}, got {type(value).__name__}")
    for field, _, _, _ in current.FIELDS:
      setattr(current, field, getattr(value, field))

  def __eq__(self, other):
    if not isinstance(other, MjVisual):
      return NotImplemented
    return all(getattr(self, attr) == getattr(other, attr) for attr in self.SECTIONS)

  def __copy__(self):
    return MjVisual.over({attr: getattr(self, attr).__copy__() for attr in self.SECTIONS})

  def __deepcopy__(self, memo):
    return self.__copy__()

  def __reduce__(self):
    return MjVisual.over, ({attr: getattr(self, attr).__copy__() for attr in self.SECTIONS},)

  def __repr__(self):
    parts = "".join(f"  {attr}: " + repr(getattr(self, attr)).replace("\n", "\n  ") + "\n"
                    for attr in sorted(self.SECTIONS))
    return f"<MjVisual\n{parts}>"


class MjvPerturb(Struct):
  """A mouse perturbation (``mjvPerturb``): select (body id, 0: none), flexselect, skinselect (-1: none), active
  and active2 (mjtPertBit), refpos (3,), refquat (4,), refselpos (3,), localpos (3,), localmass, scale."""

  FIELDS = fields("""
    select int32 - 0
    flexselect int32 - -1
    skinselect int32 - -1
    active int32 - 0
    active2 int32 - 0
    refpos float64 3 0
    refquat float64 4 1,0,0,0
    refselpos float64 3 0
    localpos float64 3 0
    localmass float64 - 0
    scale float64 - 1
  """)


class StructList:
  """Several structs of one type over the rows of Data arrays (``d.contact``, ``d.warning``, ...).

  ``fields`` maps each struct field to an array with one row per struct (or to a function of the row count that
  gives the field of all rows, for fields made on the fly); ``count`` gives how many rows are in use.
  """

  def __init__(self, struct_type, fields, count):
    self._type, self._fields, self._count = struct_type, fields, count

  def __len__(self):
    return self._count()

  def _field(self, name, n):
    source = self._fields[name]
    return source(n) if callable(source) else source[:n]

  def __getattr__(self, name):
    if name.startswith("_") or name not in self.__dict__["_fields"]:
      raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")
    return self._field(name, len(self))

  def __getitem__(self, key):
    n = len(self)
    if isinstance(key, slice):
      rows = range(n)[key]
      return [self[i] for i in rows]
    i = int(key)
    if not -n <= i < n:
      raise IndexError(f"index {key} out of range for {n} {self._type.__name__}")
    i %= n
    return self._type.over({name: self._field(name, n)[i, ...] for name in self._fields})

  def __iter__(self):
    return (self[i] for i in range(len(self)))

  def __eq__(self, other):
    if not isinstance(other, StructList) or other._type is not self._type:
      return NotImplemented
    n = len(self)
    return n == len(other) and all(np.array_equal(self._field(f, n), other._field(f, n)) for f in self._fields)

  __hash__ = None

  def __repr__(self):
    n = len(self)
    lines = "".join(f"  {name}: {self._field(name, n)!r}\n" for name in sorted(self._fields))
    return f"<_{self._type.__name__}List\n{lines}>"
