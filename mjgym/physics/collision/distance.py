"""Signed distance between two geoms (MuJoCo's mj_geomDistance), for the distance, normal and fromto sensors.

The geoms are collided by the narrow phase with a margin equal to ``distmax``: the nearest contact found gives the
distance (negative when the geoms overlap) and its normal and position the segment from geom1's surface to geom2's.
With native CCD on (MuJoCo's default), the pairs MuJoCo sends to its convex collider, and box-box, are measured by
GJK/EPA directly, one nearest pair of points without multiccd's extra contacts. Geoms farther apart than ``distmax``
give ``distmax`` and a zero segment.

The closed-form and height-field colliders write their contacts into Data's contact arrays: they are written past
``ncon``, where the compiler reserves room for one pair's contacts in models with these sensors, and ``ncon`` is
left as it is. When the collision pipeline has filled that room as well, what does not fit is dropped and the
CONTACTFULL warning raised, as the collision driver does.
"""

from numba import njit

from mjgym.physics.collision import convex
from mjgym.physics.collision import driver
from mjgym.physics.collision import hfield
from mjgym.physics.constants import DSBL_NATIVECCD
from mjgym.physics.constants import GEOM_BOX
from mjgym.physics.constants import GEOM_HFIELD
from mjgym.physics.constants import GEOM_PLANE
from mjgym.physics.constants import WARN_CONTACTFULL


@njit(cache=True, error_model="numpy")
def geom_distance(m, d, geom1, geom2, distmax):
  """(distance, fromto): the smallest signed distance between two geoms, at most distmax, and the segment (6,) from
  geom1's nearest point to geom2's (zeros when none was found within distmax)."""
  zero = (0.0, 0.0, 0.0, 0.0, 0.0, 0.0)
  flip = m.geom_type[geom1] > m.geom_type[geom2]
  g1, g2 = (geom2, geom1) if flip else (geom1, geom2)
  t1, t2 = m.geom_type[g1], m.geom_type[g2]
  if t1 == GEOM_PLANE and (t2 == GEOM_PLANE or t2 == GEOM_HFIELD) or t1 == GEOM_HFIELD and t2 == GEOM_HFIELD:
    return distmax, zero
  if t1 == GEOM_HFIELD:
    n = hfield.hfield_convex(m, d, g1, g2, distmax, d.ncon[0])
  else:
    native = (m.opt_disableflags[0] & DSBL_NATIVECCD) == 0
    n = -1 if native and t1 == GEOM_BOX and t2 == GEOM_BOX else driver.narrow_closed_form(m, d, t1, t2, g1, g2,
                                                                                          distmax, d.ncon[0])
    if n < 0:
      # MuJoCo's convex-collider pairs, and box-box under native CCD: GJK/EPA, in the caller's geom order
      dist, _, p1, p2 = convex.closest(m, d, geom1, geom2, distmax)
      if dist < distmax:
        return dist, (p1[0], p1[1], p1[2], p2[0], p2[1], p2[2])
      return distmax, zero
  return _nearest(m, d, n, flip, distmax)


@njit(cache=True, error_model="numpy")
def _nearest(m, d, n, flip, distmax):
  """The nearest of the n contacts a collider wrote past ncon, as (distance, fromto) in the caller's geom order."""
  i0 = d.ncon[0]
  kept = min(n, d.contact_dist.shape[0] - i0)
  if kept < n:
    d.warning_number[WARN_CONTACTFULL] += 1
    d.warning_lastinfo[WARN_CONTACTFULL] = i0 + n
  dist, best = distmax, -1
  for i in range(i0, i0 + kept):
    if d.contact_dist[i] < dist:
      dist, best = d.contact_dist[i], i
  if best < 0:
    return distmax, (0.0, 0.0, 0.0, 0.0, 0.0, 0.0)
  half = 0.5 * dist if not flip else -0.5 * dist
  p, nrm = d.contact_pos[best], d.contact_frame[best]
  return dist, (p[0] - half * nrm[0], p[1] - half * nrm[1], p[2] - half * nrm[2],
                p[0] + half * nrm[0], p[1] + half * nrm[1], p[2] + half * nrm[2])
