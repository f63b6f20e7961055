"""The model statistics (``m.stat``: center, extent, meansize, meanmass), computed at qpos0 as MuJoCo's compiler does.

meaninertia is computed with the other qpos0 constants (mjcf/setconst.py). Values given in MJCF
``<statistic>`` replace the computed ones.
"""

import numpy as np

from mjgym.physics import forward
from mjgym.physics.containers import MjData
from mjgym.physics.types import GeomType

# MuJoCo's values for a model without bodies (no bounding box, no body sizes).
_DEFAULT_EXTENT = 2.0
_DEFAULT_MEANSIZE = 0.2
_DEFAULT_MEANMASS = 1.0
# Smallest extent and body size.
_MINSIZE = 1e-5


def _geom_radius(m, g):
  """The radius a geom adds to the bounding box: its rbound, or a tenth of a plane's or height field's size."""
  if m.geom_rbound[g] > 0:
    return m.geom_rbound[g]
  if m.geom_type[g] == GeomType.PLANE:
    size = m.geom_size[g]
    return max(size[0], size[1]) * 0.1 if size[0] or size[1] else 0.01
  if m.geom_type[g] == GeomType.HFIELD:
    return np.max(m.hfield_size[m.geom_dataid[g]]) * 0.1
  return 0.0


def compute(m, d):
  """(center (3,), extent, meansize, meanmass) of model ``m`` from ``d`` after the position stage at qpos0."""
  lo = np.full(3, 1e10)
  hi = np.full(3, -1e10)

  def grow(points, radius=0.0):
    for p in np.reshape(points, (-1, 3)):
      np.minimum(lo, p - radius, out=lo)
      np.maximum(hi, p + radius, out=hi)

  grow(d.xpos[1:])
  grow(d.xipos[1:])
  grow(d.xanchor)
  grow(d.site_xpos)
  for g in range(m.ngeom):
    grow(d.geom_xpos[g], _geom_radius(m, g))
  center = 0.5 * (lo + hi)
  extent = _DEFAULT_EXTENT
  if hi[0] > lo[0]:
    extent = max(_MINSIZE, max(hi[0] - lo[0], max(hi[1] - lo[1], hi[2] - lo[2])))

  # a body's size: the farthest of its joints (and its children's) from its com, or of its geoms' surfaces
  size = np.zeros(m.nbody)
  for j in range(m.njnt):
    b = m.jnt_bodyid[j]
    for body in (b, m.body_parentid[b]):
      size[body] = max(size[body], np.linalg.norm(d.xipos[body] - d.xanchor[j]))
  size[0] = 0.0
  for b in range(1, m.nbody):
    for g in range(m.body_geomadr[b], m.body_geomadr[b] + m.body_geomnum[b]):
      if m.geom_rbound[g] > 0:
        size[b] = max(size[b], m.geom_rbound[g] + np.linalg.norm(d.xipos[b] - d.geom_xpos[g]))
  # a flex vertex body: at least as large as its edges at qpos0
  for f in range(m.nflex):
    for e in range(m.flex_edgeadr[f], m.flex_edgeadr[f] + m.flex_edgenum[f]):
      for b in m.flex_vertbodyid[m.flex_vertadr[f] + m.flex_edge[e]]:
        size[b] = max(size[b], m.flexedge_length0[e])
  meansize, meanmass = _DEFAULT_MEANSIZE, _DEFAULT_MEANMASS
  if m.nbody > 1:
    meansize = 0.0
    for b in range(1, m.nbody):
      meansize += max(size[b], _MINSIZE) / (m.nbody - 1)
    meanmass = 0.0
    for b in range(1, m.nbody):
      meanmass += m.body_mass[b]
    meanmass /= m.nbody - 1
  extent = max(extent, 2.0 * meansize)
  return center, extent, meansize, meanmass


def set_stat(model, given=None):
  """Fills the model's stat_* fields at qpos0; ``given`` maps names of ``<statistic>`` attributes to values that
  replace the computed ones (meaninertia among them)."""
  data = MjData(model)
  forward.entry(model)(model._struct, data._struct, forward.OP_POSITION, 0)  # pylint: disable=protected-access
  center, extent, meansize, meanmass = compute(model, data)
  model.stat_center[:] = center
  model.stat_extent[:] = extent
  model.stat_meansize[:] = meansize
  model.stat_meanmass[:] = meanmass
  for name, value in (given or {}).items():
    getattr(model, "stat_" + name)[:] = value


def given_in_mjcf(root):
  """The ``<statistic>`` attributes of a parsed MJCF tree, as numbers (or (3,) for center)."""
  given = {}
  for node in root.all("statistic"):
    for name, text in node.attrs.items():
      values = [float(x) for x in str(text).split()]
      given[name] = values if name == "center" else values[0]
  return given
