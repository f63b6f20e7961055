"""Flex contacts: the colliders between geoms and flexes, and the parameters of a geom-flex contact.

A flex contact names the flex side by its flex, element and vertex instead of a geom (MuJoCo's ``contact.flex``,
``contact.elem``, ``contact.vert``; the geom id of that side is -1). Supported today, as MuJoCo 4 makes them:

- plane - flex: a plane on a body without degrees of freedom against every vertex of the flex as a sphere of the flex
  radius (one contact per vertex within margin + gap: normal along the plane's z, point midway in the overlap,
  geom side 0 = the plane, flex side 1 = the vertex). MuJoCo 4 keeps them all (no per-pair cap) and in vertex order.

Element contacts (other geom types), flex-flex and self contacts are refused when the model is compiled
(mjcf/flex.py). A model without flexes never calls anything here.
"""

from numba import njit

from mjgym.physics.constants import ENBL_OVERRIDE
from mjgym.physics.constants import GEOM_PLANE
from mjgym.physics.constants import WARN_CONTACTFULL
from mjgym.physics.types import MINVAL


@njit(cache=True, error_model="numpy")
def collide(m, d):
  """Appends the contacts of every plane-flex pair that passes the contype/conaffinity test (planes on bodies
  without degrees of freedom, in geom order, each against the flexes in order)."""
  for g in range(m.ngeom):
    if m.geom_type[g] != GEOM_PLANE or m.body_dofnum[m.body_weldid[m.geom_bodyid[g]]] != 0:
      continue
    for f in range(m.nflex):
      if not ((m.geom_contype[g] & m.flex_conaffinity[f]) or (m.flex_contype[f] & m.geom_conaffinity[g])):
        continue
      if not _plane_flex(m, d, g, f):
        return


@njit(cache=True, error_model="numpy")
def margin_gap(m, g, f):
  """Margin and gap of a geom-flex pair: the sums of the two (the margin replaced under the override flag)."""
  margin = m.geom_margin[g] + m.flex_margin[f]
  if (m.opt_enableflags[0] & ENBL_OVERRIDE) != 0:
    margin = m.opt_o_margin[0]
  return margin, m.geom_gap[g] + m.flex_gap[f]


@njit(cache=True, error_model="numpy")
def _plane_flex(m, d, g, f):
  """The flex's vertices as spheres of the flex radius against plane g; False when Data ran out of contacts."""
  margin, gap = margin_gap(m, g, f)
  radius = m.flex_radius[f]
  mat = d.geom_xmat[g]
  nx, ny, nz = mat[2], mat[5], mat[8]
  capacity = d.contact_dist.shape[0]
  for i in range(m.flex_vertnum[f]):
    v = d.flexvert_xpos[m.flex_vertadr[f] + i]
    dist = ((v[0] - d.geom_xpos[g, 0]) * nx + (v[1] - d.geom_xpos[g, 1]) * ny
            + (v[2] - d.geom_xpos[g, 2]) * nz)
    if dist > margin + gap + radius:
      continue
    c = d.ncon[0]
    if c >= capacity:
      d.warning_number[WARN_CONTACTFULL] += 1
      d.warning_lastinfo[WARN_CONTACTFULL] = c + 1
      return False
    depth = dist - radius
    s = -0.5 * depth - radius
    d.contact_dist[c] = depth
    d.contact_pos[c, 0] = v[0] + s * nx
    d.contact_pos[c, 1] = v[1] + s * ny
    d.contact_pos[c, 2] = v[2] + s * nz
    frame = d.contact_frame[c]
    frame[0], frame[1], frame[2] = nx, ny, nz
    for k in range(3, 9):
      frame[k] = 0.0
    d.contact_geom1[c] = g
    d.contact_geom2[c] = -1
    d.contact_flex[c, 0], d.contact_flex[c, 1] = -1, f
    d.contact_elem[c, 0], d.contact_elem[c, 1] = -1, -1
    d.contact_vert[c, 0], d.contact_vert[c, 1] = -1, i
    d.contact_efc_address[c] = -1
    d.ncon[0] = c + 1
  return True


@njit(cache=True, error_model="numpy")
def order_key(m, d, i):
  """Where MuJoCo's driver puts flex contact i: its body-flex pair's signature (the flex counting as body
  nbody + f), after the explicit pairs, then by geom and vertex."""
  g, f = int(d.contact_geom1[i]), int(d.contact_flex[i, 1])
  signature = (int(m.geom_bodyid[g]) << 16) + int(m.nbody) + f
  return (signature, int(m.npair), g, int(d.contact_vert[i, 1]))


@njit(cache=True, error_model="numpy")
def parameters(m, d, i, g, f):
  """condim, friction, solref, solimp of geom-flex contact i: MuJoCo's mixing of geom g with flex f (the higher
  priority sets all; equal priorities: max condim and friction, solref and solimp mixed by solmix)."""
  pg, pf = m.geom_priority[g], m.flex_priority[f]
  gs, fs = m.geom_solref[g], m.flex_solref[f]
  gi, fi = m.geom_solimp[g], m.flex_solimp[f]
  gf, ff = m.geom_friction[g], m.flex_friction[f]
  if pg != pf:
    mix = 1.0 if pg > pf else 0.0
    d.contact_dim[i] = m.geom_condim[g] if pg > pf else m.flex_condim[f]
    f0, f1, f2 = (gf[0], gf[1], gf[2]) if pg > pf else (ff[0], ff[1], ff[2])
    direct = False
  else:
    s1, s2 = m.geom_solmix[g], m.flex_solmix[f]
    if s1 < MINVAL and s2 < MINVAL:
      mix = 0.5
    elif s1 < MINVAL:
      mix = 0.0
    elif s2 < MINVAL:
      mix = 1.0
    else:
      mix = s1 / (s1 + s2)
    d.contact_dim[i] = max(m.geom_condim[g], m.flex_condim[f])
    f0, f1, f2 = max(gf[0], ff[0]), max(gf[1], ff[1]), max(gf[2], ff[2])
    direct = not (gs[0] > 0 and fs[0] > 0)
  d.contact_friction[i, 0] = f0
  d.contact_friction[i, 1] = f0
  d.contact_friction[i, 2] = f1
  d.contact_friction[i, 3] = f2
  d.contact_friction[i, 4] = f2
  for k in range(2):
    # direct (negative) stiffness and damping do not average with time constants: the stiffer is taken
    d.contact_solref[i, k] = min(gs[k], fs[k]) if direct else mix * gs[k] + (1.0 - mix) * fs[k]
    d.contact_solreffriction[i, k] = 0.0
  for k in range(5):
    d.contact_solimp[i, k] = mix * gi[k] + (1.0 - mix) * fi[k]
