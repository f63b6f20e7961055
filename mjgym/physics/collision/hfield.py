"""Height field against any convex geom: a union of triangular prisms, each collided by the general convex collider.

A height field of ``nrow x ncol`` elevations spans x in [-rx, rx] (columns) and y in [-ry, ry] (rows) of its frame;
vertex (r, c) sits at height ``data[r * ncol + c] * ztop``. Each grid cell is split along its diagonal from (r, c)
to (r + 1, c + 1) into two triangles, and each triangle extruded down to the base at z = -zbottom makes a convex
prism. The other geom's exact extent along the height field's axes (from its support function, grown by the
margin) selects the cells. Three exact tests then skip a prism that cannot touch the geom: its top lies wholly below
the geom, the geom lies wholly beside the cell's diagonal on the other triangle's side, the geom's lowest point
along the triangle's normal is above the triangle's plane, or one of the geom's own axes (a box's face normals)
separates them. Every other prism goes through GJK/EPA (``convex.convex``)
with its six corners in the Data scratch ``col_prism``, and each touching prism adds one contact, up to
``MAXCONPAIR`` contacts per pair, as MuJoCo does. The height field is geom1 of its pairs (its type
is the lower one), so normals point from the terrain to the other geom.
"""

import math

from numba import njit

from mjgym.physics.collision import convex
from mjgym.physics.constants import GEOM_CAPSULE
from mjgym.physics.constants import GEOM_SPHERE
from mjgym.physics.math import add_scl3
from mjgym.physics.math import cross
from mjgym.physics.math import dot3
from mjgym.physics.math import frame_axis
from mjgym.physics.math import mat_t_vec
from mjgym.physics.math import mat_vec
from mjgym.physics.math import norm3
from mjgym.physics.math import scl3
from mjgym.physics.math import sub3
from mjgym.physics.math import vec3
from mjgym.physics.types import MAXCONPAIR


@njit(cache=True, error_model="numpy")
def _reach(m, d, sh, o, u, radius):
  """How far geom ``sh`` reaches along unit world direction u, measured from point o (its radius included)."""
  p = convex.support(m, sh, u)
  return (p[0] - o[0]) * u[0] + (p[1] - o[1]) * u[1] + (p[2] - o[2]) * u[2] + radius


@njit(cache=True, error_model="numpy")
def _beside(axes, lo, hi, x, y, z, bottom):
  """Whether one of the geom's axes (``axes``, in the height field's frame) separates the prism under the triangle of
  local corners (x[k], y[k], z[k]) from the geom, whose extent along axis i is [lo[i], hi[i]]."""
  for i in range(3):
    a = axes[i]
    pmin, pmax = math.inf, -math.inf
    for k in range(3):
      h = x[k] * a[0] + y[k] * a[1]
      pmin = min(pmin, min(h + z[k] * a[2], h - bottom * a[2]))
      pmax = max(pmax, max(h + z[k] * a[2], h - bottom * a[2]))
    if pmax < lo[i] or pmin > hi[i]:
      return True
  return False


@njit(cache=True, error_model="numpy")
def _set_prism(m, d, gh, x, y, z, bottom):
  """col_prism = world corners of the prism under the triangle of local corners (x[k], y[k], z[k]), k < 3."""
  mh = d.geom_xmat[gh]
  prism = d.col_prism
  for k in range(3):
    for level in range(2):
      w = mat_vec(mh, (x[k], y[k], z[k] if level == 0 else -bottom))
      for i in range(3):
        prism[3 * level + k, i] = d.geom_xpos[gh, i] + w[i]


@njit(cache=True, error_model="numpy")
def _above(m, d, gh, sh, x, y, z, radius):
  """Height of geom g's lowest point over the plane of the triangle of local corners (x[k], y[k], z[k]),
  counter-clockwise seen from above. The prism lies below that plane: beyond the margin, it cannot touch g."""
  e1 = (x[1] - x[0], y[1] - y[0], z[1] - z[0])
  e2 = (x[2] - x[0], y[2] - y[0], z[2] - z[0])
  nrm = mat_vec(d.geom_xmat[gh], cross(e1, e2))
  nrm = scl3(nrm, 1.0 / norm3(nrm))
  # support() gives the core of a sphere or capsule (center, segment): its radius comes off afterwards.
  low = convex.support(m, sh, scl3(nrm, -1.0))
  return dot3(sub3(low, vec3(d.col_prism[0])), nrm) - radius


@njit(cache=True, error_model="numpy")
def hfield_convex(m, d, gh, g, margin, i0):
  """Height field gh (geom1) against convex geom g: one contact per touching prism, at most MAXCONPAIR."""
  hid = m.geom_dataid[gh]
  rx, ry, top, bottom = m.hfield_size[hid, 0], m.hfield_size[hid, 1], m.hfield_size[hid, 2], m.hfield_size[hid, 3]
  nrow, ncol, adr = m.hfield_nrow[hid], m.hfield_ncol[hid], m.hfield_adr[hid]
  sh = convex.shape(m, d, g)
  t = m.geom_type[g]
  radius = m.geom_size[g, 0] if t == GEOM_SPHERE or t == GEOM_CAPSULE else 0.0
  # The geom's extent along the height field's axes, grown by the margin.
  o = vec3(d.geom_xpos[gh])
  mh = d.geom_xmat[gh]
  ax, ay, az = frame_axis(mh, 0), frame_axis(mh, 1), frame_axis(mh, 2)
  xmax, xmin = _reach(m, d, sh, o, ax, radius) + margin, -_reach(m, d, sh, o, scl3(ax, -1.0), radius) - margin
  ymax, ymin = _reach(m, d, sh, o, ay, radius) + margin, -_reach(m, d, sh, o, scl3(ay, -1.0), radius) - margin
  zmax, zmin = _reach(m, d, sh, o, az, radius) + margin, -_reach(m, d, sh, o, scl3(az, -1.0), radius) - margin
  if xmin > rx or xmax < -rx or ymin > ry or ymax < -ry or zmin > top or zmax < -bottom:
    return 0
  dx, dy = 2.0 * rx / (ncol - 1), 2.0 * ry / (nrow - 1)
  c0 = max(0, int(math.floor((xmin + rx) / dx)))
  c1 = min(ncol - 2, int(math.floor((xmax + rx) / dx)))
  r0 = max(0, int(math.floor((ymin + ry) / dy)))
  r1 = min(nrow - 2, int(math.floor((ymax + ry) / dy)))
  # Every cell's diagonal runs along (dx, dy); across it, along the unit (dy, -dx) / l, the upper-left triangle lies
  # on the negative side and the lower-right one on the positive side. The geom's extent along that direction
  # skips a triangle it lies wholly beside.
  diag = 1.0 / math.sqrt(dx * dx + dy * dy)
  ad = add_scl3(scl3(ax, dy * diag), ay, -dx * diag)
  smax, smin = _reach(m, d, sh, o, ad, radius) + margin, -_reach(m, d, sh, o, scl3(ad, -1.0), radius) - margin
  # The geom's own axes (a box's face normals) in the height field's frame, and its extent along each.
  mg = d.geom_xmat[g]
  g0, g1, g2 = frame_axis(mg, 0), frame_axis(mg, 1), frame_axis(mg, 2)
  axes = (mat_t_vec(mh, g0), mat_t_vec(mh, g1), mat_t_vec(mh, g2))
  lo = (-_reach(m, d, sh, o, scl3(g0, -1.0), radius) - margin, -_reach(m, d, sh, o, scl3(g1, -1.0), radius) - margin,
        -_reach(m, d, sh, o, scl3(g2, -1.0), radius) - margin)
  hi = (_reach(m, d, sh, o, g0, radius) + margin, _reach(m, d, sh, o, g1, radius) + margin,
        _reach(m, d, sh, o, g2, radius) + margin)
  n = 0
  for r in range(r0, r1 + 1):
    ya, yb = r * dy - ry, (r + 1) * dy - ry
    for c in range(c0, c1 + 1):
      xa, xb = c * dx - rx, (c + 1) * dx - rx
      s0 = (xa * dy - ya * dx) * diag
      z00 = m.hfield_data[adr + r * ncol + c] * top
      z01 = m.hfield_data[adr + r * ncol + c + 1] * top
      z10 = m.hfield_data[adr + (r + 1) * ncol + c] * top
      z11 = m.hfield_data[adr + (r + 1) * ncol + c + 1] * top
      # The upper-left triangle first, then the lower-right one (MuJoCo's order of contacts).
      for tri in range(2):
        if tri == 0:
          if smin > s0:
            continue
          x, y, z = (xa, xb, xa), (ya, yb, yb), (z00, z11, z10)
        else:
          if smax < s0:
            continue
          x, y, z = (xa, xb, xb), (ya, ya, yb), (z00, z01, z11)
        if max(z[0], max(z[1], z[2])) < zmin:
          continue
        _set_prism(m, d, gh, x, y, z, bottom)
        if _above(m, d, gh, sh, x, y, z, radius) > margin or _beside(axes, lo, hi, x, y, z, bottom):
          continue
        n += convex.convex(m, d, gh, g, margin, i0 + n)
        if n >= MAXCONPAIR:
          return n
  return n
