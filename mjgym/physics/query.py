"""Queries of a computed state for the public API (mj_ray): compiled, but not part of the step path."""

from numba import njit

from mjgym.physics import ray

# Geom groups that ray and visualization masks distinguish (MuJoCo's mjNGROUP).
NGROUP = 6


@njit(cache=True, error_model="numpy")
def _excluded(m, g, geomgroup, use_group, flg_static, bodyexclude):
  """Whether mj_ray skips geom g: on the excluded body, invisible (its own or its material's alpha 0), static
  (welded to the world) when static geoms are not wanted, or in a group the mask leaves out."""
  body = m.geom_bodyid[g]
  if body == bodyexclude:
    return True
  mat = m.geom_matid[g]
  if (m.geom_rgba[g, 3] if mat < 0 else m.mat_rgba[mat, 3]) == 0.0:
    return True
  if not flg_static and m.body_weldid[body] == 0:
    return True
  if not use_group:
    return False
  return geomgroup[min(NGROUP - 1, max(0, m.geom_group[g]))] == 0


@njit(cache=True, error_model="numpy")
def ray_select(m, d, pnt, vec, geomgroup, use_group, flg_static, bodyexclude, cutoff):
  """(t, geom) of the nearest hit of pnt + t vec among the geoms mj_ray considers; (-1, -1) if none. Geoms whose
  bounding sphere lies farther than ``cutoff`` from pnt are left out (mj_multiRay's cutoff; planes never are)."""
  best, hit = -1.0, -1
  tables = ray.shape_tables(m)
  for g in range(m.ngeom):
    if _excluded(m, g, geomgroup, use_group, flg_static, bodyexclude):
      continue
    rbound = m.geom_rbound[g]
    if rbound > 0.0:
      x, y, z = d.geom_xpos[g, 0] - pnt[0], d.geom_xpos[g, 1] - pnt[1], d.geom_xpos[g, 2] - pnt[2]
      if (x * x + y * y + z * z) ** 0.5 - rbound > cutoff:
        continue
    t = ray.ray_geom(tables, m, d, g, pnt, vec)
    if t >= 0.0 and (best < 0.0 or t < best):
      best, hit = t, g
  return best, hit
