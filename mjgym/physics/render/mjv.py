"""The visualizer's abstract scene as in the bindings: ``MjvScene`` and its ``MjvGeom`` / ``MjvLight`` /
``MjvGLCamera`` structs, filled by ``mjv_updateScene`` with the model's geoms and sites.

This is the container MuJoCo's OpenGL renderer draws from, kept for scripts that read it (what is in view, with
which pose, size and colour). mjgym's own renderer (``render/renderer.py``) does not go through it.
"""

import numpy as np

from mjgym.physics import records
from mjgym.physics.types import GeomType
from mjgym.physics.types import ObjType

# mjtCatBit
_CAT_STATIC, _CAT_DYNAMIC = 1, 2
_GEOM_NONE = 1001  # mjGEOM_NONE: the type of an unused MjvGeom
_DEFAULT_RGBA = (0.5, 0.5, 0.5, 1.0)  # MuJoCo's geom and site rgba when none is given


class MjvGeom(records.Struct):
  """One abstract geom (``mjvGeom``): type (mjtGeom), dataid (mesh / hfield id), objtype and objid (what it draws),
  category (mjtCatBit), matid, texid, texuniform, texrepeat (2,), size (3,), pos (3,), mat (3, 3), rgba (4,) and
  the lighting terms, label, transparent, segid (its place in the scene)."""

  FIELDS = records.fields("""
    type int32 - 1001
    dataid int32 - -1
    objtype int32 - 0
    objid int32 - 0
    category int32 - 0
    matid int32 - -1
    texcoord int32 - 0
    segid int32 - 0
    texid int32 - -1
    texuniform int32 - 0
    texrepeat float32 2 0
    size float32 3 0.1
    pos float32 3 0
    mat float32 3x3 1,0,0,0,1,0,0,0,1
    rgba float32 4 0.5,0.5,0.5,1
    emission float32 - 0
    specular float32 - 0.5
    shininess float32 - 0.5
    reflectance float32 - 0
    camdist float32 - 0
    modelrbound float32 - 0
    transparent int32 - 0
    castshadow int32 - 1
  """) + (("label", np.dtype("U100"), (), ""),)


class MjvLight(records.Struct):
  """One light of the scene (``mjvLight``)."""

  FIELDS = records.fields("""
    id int32 - 0
    pos float32 3 0
    dir float32 3 0
    type int32 - 0
    texid int32 - 0
    attenuation float32 3 0
    cutoff float32 - 0
    exponent float32 - 0
    ambient float32 3 0
    diffuse float32 3 0
    specular float32 3 0
    headlight int32 - 0
    castshadow int32 - 0
    bulbradius float32 - 0
    intensity float32 - 0
    range float32 - 0
    softness float32 - 0
  """)


class MjvGLCamera(records.Struct):
  """One eye of the scene's camera (``mjvGLCamera``): pos, forward, up (3,) and the frustum."""

  FIELDS = records.fields("""
    pos float32 3 0
    forward float32 3 0
    up float32 3 0
    orthographic int32 - 0
    frustum_center float32 - 0
    frustum_width float32 - 0
    frustum_bottom float32 - 0
    frustum_top float32 - 0
    frustum_near float32 - 0
    frustum_far float32 - 0
  """)


def _struct_rows(struct_type, count):
  """Arrays of ``count`` rows for every field of ``struct_type``, and the structs viewing each row."""
  arrays = {name: np.broadcast_to(records.filled(shape, default, dtype), (count,) + shape).copy()
            for name, dtype, shape, default in struct_type.FIELDS}
  structs = tuple(struct_type.over({name: arr[i, ...] for name, arr in arrays.items()}) for i in range(count))
  return arrays, structs


class MjvScene:
  """An abstract scene (``mjvScene``) with room for ``maxgeom`` geoms: ``geoms`` is a tuple of maxgeom MjvGeom
  (the first ``ngeom`` in use), ``lights`` of mjMAXLIGHT (100) MjvLight, ``camera`` the two MjvGLCamera; ``scale``
  1, ``flags`` (mjNRNDFLAG,) MuJoCo's defaults. ``model`` is accepted as in the bindings (MuJoCo sizes its flex and
  skin buffers from it; this scene keeps none)."""

  MAXLIGHT = 100

  def __init__(self, model=None, maxgeom=0):
    maxgeom = int(maxgeom)
    if maxgeom < 0:
      raise ValueError(f"maxgeom must be >= 0, got {maxgeom}")
    self.maxgeom, self.ngeom, self.nlight = maxgeom, 0, 0
    self._geom_rows, self.geoms = _struct_rows(MjvGeom, maxgeom)
    self._light_rows, self.lights = _struct_rows(MjvLight, self.MAXLIGHT)
    self.camera = (MjvGLCamera(), MjvGLCamera())
    self.geomorder = np.zeros(maxgeom, np.int32)
    self.enabletransform, self.scale, self.stereo = 0, 1.0, 0
    self.translate = np.zeros(3, np.float32)
    self.rotate = np.array([1, 0, 0, 0], np.float32)
    self.flags = np.array([1, 0, 1, 0, 1, 0, 1, 0, 0, 0, 1, 1], np.uint8)  # mjtRndFlag: MuJoCo's defaults
    self.framewidth, self.status = 0, 0
    self.framergb = np.ones(3, np.float32)
    self.nflex = self.nskin = 0
    del model


def _drawn_size(gtype, size):
  """The half sizes the visualizer draws: a sphere's radius on all three axes, a capsule's or cylinder's radius on
  two and half length on the third; the others as the model gives them."""
  if gtype == GeomType.SPHERE:
    return (size[0],) * 3
  if gtype in (GeomType.CAPSULE, GeomType.CYLINDER):
    return (size[0], size[0], size[1])
  return size


def update_scene(m, d, opt, pert, cam, catmask, scn):
  """``mjv_updateScene``: the scene's geoms from ``d`` (after mj_forward or a step): every geom, then every site,
  whose group ``opt`` shows, whose alpha is not 0 and whose category (static: welded to the world; dynamic) is in
  ``catmask``, as long as there is room (maxgeom). Decor (frames, contacts, tendons, labels, perturbations) and
  lights are not added. ``pert`` and ``cam`` are accepted as in the bindings."""
  del pert, cam
  catmask = int(catmask)
  rows = scn._geom_rows  # pylint: disable=protected-access
  for name, dtype, shape, default in MjvGeom.FIELDS:
    rows[name][...] = records.filled(shape, default, dtype)
  static = np.asarray(m.body_weldid) == 0
  n = 0
  for objtype, count, prefix, xprefix in ((ObjType.GEOM, m.ngeom, "geom_", "geom_"),
                                          (ObjType.SITE, m.nsite, "site_", "site_")):
    group = np.clip(np.asarray(getattr(m, prefix + "group")), 0, 5)
    shown = np.asarray(opt.geomgroup if objtype == ObjType.GEOM else opt.sitegroup).astype(bool)[group]
    for i in range(count):
      rgba = np.asarray(getattr(m, prefix + "rgba")[i])
      matid = int(getattr(m, prefix + "matid")[i])
      if matid >= 0 and np.array_equal(rgba, _DEFAULT_RGBA):
        rgba = m.mat_rgba[matid]  # a material's colour, unless the object gives its own
      category = _CAT_STATIC if static[getattr(m, prefix + "bodyid")[i]] else _CAT_DYNAMIC
      if not shown[i] or rgba[3] == 0 or not catmask & category:
        continue
      if n == scn.maxgeom:
        break  # MuJoCo warns (mjWARN_VGEOMFULL) and stops adding
      rows["type"][n] = getattr(m, prefix + "type")[i]
      rows["dataid"][n] = m.geom_dataid[i] if objtype == ObjType.GEOM else -1
      rows["objtype"][n], rows["objid"][n], rows["category"][n] = int(objtype), i, category
      rows["matid"][n], rows["segid"][n] = matid, n
      rows["size"][n] = _drawn_size(getattr(m, prefix + "type")[i], getattr(m, prefix + "size")[i])
      rows["pos"][n] = getattr(d, xprefix + "xpos")[i]
      rows["mat"][n] = np.asarray(getattr(d, xprefix + "xmat")[i]).reshape(3, 3)
      rows["rgba"][n] = rgba
      if matid >= 0:
        for field in ("emission", "specular", "shininess", "reflectance"):
          rows[field][n] = getattr(m, "mat_" + field)[matid]
      rows["transparent"][n] = rgba[3] < 1
      n += 1
  scn.ngeom = n
