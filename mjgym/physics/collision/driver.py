"""Collision driver: candidate pairs (explicit pairs, then a sweep-and-prune broad phase), filters, dispatch, and
MuJoCo's contact order.

Explicit ``<contact><pair>`` entries are collided with their own parameters and bypass every filter but the
bounding-sphere test. All other geom pairs come from the broad phase: world-aligned boxes around the geoms (grown by
each geom's margin and gap) are sorted along x and swept, so only pairs whose boxes overlap on all three axes reach
the filters. A pair then has to pass, in order: the contype/conaffinity bitmasks, different weld bodies (no contacts
within one rigid body), not two bodies without degrees of freedom (world, static and mocap bodies: nothing could
move), the parent-child filter (skipped for children of a static parent, and when ``filterparent`` is disabled), the
``<exclude>`` list, not being an explicit pair, a bounding-sphere test and, for bodies MuJoCo's midphase handles
(one of them with several geoms), its test of the two geoms' oriented boxes. The survivors go to the narrow phase.

Contacts then take MuJoCo's order, which user code sees in ``d.contact`` and which sets the order of the constraint
rows (and so what PGS computes). MuJoCo walks body pairs by signature ``(body1 << 16) + body2`` (body1 < body2, the
world's geoms with body 0); explicit pairs come before the body pair of equal signature, in their model order. Within
a body pair, its midphase collides the geom pairs in order of (geom1, geom2) as the contact names them (the geom of
lower type first); without midphase, in the order of the two bodies' geom lists. A geom pair's own contacts keep the
collider's order. The contacts are put in that order after the narrow phase, by a stable sort in place.

Pair table (lower geom type first; ``c`` = closed form in primitive.py / box.py, ``g`` = GJK+EPA in convex.py)::

              plane hfield sphere capsule ellipsoid cylinder box mesh
    plane       -     -      c      c        c         c      c    c
    hfield            -      h      h        h         h      h    h
    sphere                   c      c        g         c      c    g
    capsule                         c        g         g      c*   g
    ellipsoid                                g         g      g    g
    cylinder                                           g      g    g
    box                                                       c    g
    mesh                                                           g

``c*``: MuJoCo's one or two balls on the capsule's segment, also when the segment crosses the box (box.py). ``h``:
hfield.py, GJK+EPA against each prism of the height field under the other geom. Plane-hfield and hfield-hfield pairs
make no contacts, as in MuJoCo. SDF geoms are refused when the model is compiled. Unless ``multiccd`` is disabled,
``g`` pairs of capsules, cylinders, boxes and meshes get up to 4 contacts where flat features meet (multiccd.py);
height-field prisms keep one, as MuJoCo's do. With ``nativeccd`` disabled the ``g`` pairs go through MuJoCo's libccd
path instead (mpr.py: MPR, with extra contacts from perturbed poses unless ``multiccd`` is disabled).
"""

import math

from numba import njit

from mjgym.physics import _jit
from mjgym.physics.collision import box
from mjgym.physics.collision import convex
from mjgym.physics.collision import flex as flexcol
from mjgym.physics.collision import hfield
from mjgym.physics.collision import primitive
from mjgym.physics.constants import DSBL_CONSTRAINT
from mjgym.physics.constants import DSBL_CONTACT
from mjgym.physics.constants import DSBL_FILTERPARENT
from mjgym.physics.constants import DSBL_MIDPHASE
from mjgym.physics.constants import ENBL_OVERRIDE
from mjgym.physics.constants import GEOM_BOX
from mjgym.physics.constants import GEOM_CAPSULE
from mjgym.physics.constants import GEOM_CYLINDER
from mjgym.physics.constants import GEOM_ELLIPSOID
from mjgym.physics.constants import GEOM_HFIELD
from mjgym.physics.constants import GEOM_MESH
from mjgym.physics.constants import GEOM_PLANE
from mjgym.physics.constants import GEOM_SPHERE
from mjgym.physics.constants import WARN_CONTACTFULL
from mjgym.physics.math import add3
from mjgym.physics.math import dot3
from mjgym.physics.math import frame_axis
from mjgym.physics.math import mat_vec
from mjgym.physics.math import solmix_weight
from mjgym.physics.math import vec3
from mjgym.physics.types import MAXVAL

_MINMU = 1e-5  # MuJoCo's mjMINMU


@_jit.separate
@njit(cache=True, error_model="numpy")
def collision(m, d, narrow):
  """Fills ``d.ncon`` and the contact arrays from the geom poses of the position stage, in MuJoCo's order.

  ``narrow`` is the narrow-phase dispatcher of the model's collider tier: ``narrow_closed_form`` or ``narrow_all``.
  """
  d.ncon[0] = 0
  if m.nconmax == 0 or (m.opt_disableflags[0] & (DSBL_CONSTRAINT | DSBL_CONTACT)) != 0:
    return
  for p in range(m.npair):
    g1, g2 = m.pair_geom1[p], m.pair_geom2[p]
    margin, gap = _margin_gap(m, g1, g2, p)
    if _spheres_overlap(m, d, g1, g2, margin + gap):
      _narrow(m, d, g1, g2, margin + gap, p, narrow)
  _broadphase(m, d, narrow)
  if m.nflex > 0:
    flexcol.collide(m, d)
  _sort_contacts(m, d)
  _finish_contacts(m, d)


@njit(cache=True, error_model="numpy")
def _margin_gap(m, g1, g2, pair):
  """Margin and gap of a geom pair: the explicit pair's own, else the sums of the two geoms' (MuJoCo 4). The global
  override replaces the margin only."""
  if pair >= 0:
    margin, gap = m.pair_margin[pair], m.pair_gap[pair]
  else:
    margin, gap = m.geom_margin[g1] + m.geom_margin[g2], m.geom_gap[g1] + m.geom_gap[g2]
  if (m.opt_enableflags[0] & ENBL_OVERRIDE) != 0:
    margin = m.opt_o_margin[0]
  return margin, gap


@njit(cache=True, error_model="numpy")
def _stable_sort(m, d, idx, buf, n, contacts):
  """Sorts idx[:n] (contacts, or geoms for the sweep; see _before), equal keys kept in their order: a bottom-up
  merge sort through buf."""
  width = 1
  flipped = False
  while width < n:
    src, dst = (buf, idx) if flipped else (idx, buf)
    for lo in range(0, n, 2 * width):
      mid, hi = min(lo + width, n), min(lo + 2 * width, n)
      i, j, k = lo, mid, lo
      while i < mid and j < hi:
        if _before(m, d, src[j], src[i], contacts):
          dst[k] = src[j]
          j += 1
        else:
          dst[k] = src[i]
          i += 1
        k += 1
      while i < mid:
        dst[k] = src[i]
        i += 1
        k += 1
      while j < hi:
        dst[k] = src[j]
        j += 1
        k += 1
    flipped = not flipped
    width *= 2
  if flipped:
    idx[:n] = buf[:n]


# ---------------------------------------------------------------- broad phase ----


@njit(cache=True, error_model="numpy")
def _world_aabbs(m, d):
  """col_aabb[g] = (min xyz, max xyz) of geom g's box in world axes, grown by its detection range (margin + gap)."""
  override = (m.opt_enableflags[0] & ENBL_OVERRIDE) != 0
  for g in range(m.ngeom):
    mat = d.geom_xmat[g]
    a = m.geom_aabb[g]
    # Each box takes its geom's share of the pair's range; under override each takes the whole global margin.
    grow = (m.opt_o_margin[0] if override else m.geom_margin[g]) + m.geom_gap[g]
    for i in range(3):
      c = d.geom_xpos[g, i] + mat[3 * i] * a[0] + mat[3 * i + 1] * a[1] + mat[3 * i + 2] * a[2]
      h = abs(mat[3 * i]) * a[3] + abs(mat[3 * i + 1]) * a[4] + abs(mat[3 * i + 2]) * a[5] + grow
      d.col_aabb[g, i] = c - h
      d.col_aabb[g, 3 + i] = c + h


@njit(cache=True, error_model="numpy")
def _before(m, d, a, b, contacts):
  """Whether a sorts strictly before b: contacts in MuJoCo's order, geoms by the lower x of their box."""
  if contacts:
    return _order_key(m, d, a) < _order_key(m, d, b)
  return d.col_aabb[a, 0] < d.col_aabb[b, 0]


@njit(cache=True, error_model="numpy")
def _broadphase(m, d, narrow):
  _world_aabbs(m, d)
  order = d.col_order
  for g in range(m.ngeom):
    order[g] = g
  _stable_sort(m, d, order, d.col_buf, m.ngeom, False)
  for i in range(m.ngeom):
    a = order[i]
    hi = d.col_aabb[a, 3]
    for j in range(i + 1, m.ngeom):
      b = order[j]
      if d.col_aabb[b, 0] > hi:
        break
      if (d.col_aabb[b, 1] > d.col_aabb[a, 4] or d.col_aabb[a, 1] > d.col_aabb[b, 4]
          or d.col_aabb[b, 2] > d.col_aabb[a, 5] or d.col_aabb[a, 2] > d.col_aabb[b, 5]):
        continue
      if a < b:
        _candidate(m, d, a, b, narrow)
      else:
        _candidate(m, d, b, a, narrow)


@njit(cache=True, error_model="numpy")
def _candidate(m, d, g1, g2, narrow):
  """Applies MuJoCo's filters to a broad-phase pair (g1 < g2) and collides the survivors."""
  if not ((m.geom_contype[g1] & m.geom_conaffinity[g2]) or (m.geom_contype[g2] & m.geom_conaffinity[g1])):
    return
  b1, b2 = m.geom_bodyid[g1], m.geom_bodyid[g2]
  w1, w2 = m.body_weldid[b1], m.body_weldid[b2]
  if w1 == w2 or (m.body_dofnum[w1] == 0 and m.body_dofnum[w2] == 0):
    return
  if (m.opt_disableflags[0] & DSBL_FILTERPARENT) == 0:
    # A child may still touch its parent when the parent is the (static) world.
    p1, p2 = m.body_weldid[m.body_parentid[w1]], m.body_weldid[m.body_parentid[w2]]
    if (w2 != 0 and p1 == w2) or (w1 != 0 and p2 == w1):
      return
  signature = (min(b1, b2) << 16) + max(b1, b2)
  for e in range(m.nexclude):
    if m.exclude_signature[e] == signature:
      return
  for p in range(m.npair):
    if ((m.pair_geom1[p] == g1 and m.pair_geom2[p] == g2) or (m.pair_geom1[p] == g2 and m.pair_geom2[p] == g1)):
      return
  margin, gap = _margin_gap(m, g1, g2, -1)
  if not _spheres_overlap(m, d, g1, g2, margin + gap):
    return
  if _midphase(m, b1, b2) and not _boxes_overlap(m, d, g1, g2, margin + gap):
    return
  _narrow(m, d, g1, g2, margin + gap, -1, narrow)


@njit(cache=True, error_model="numpy")
def _midphase(m, b1, b2):
  """Whether MuJoCo sends the geom pairs of two bodies through its midphase: unless disabled, when a body has more
  than one geom."""
  return (m.opt_disableflags[0] & DSBL_MIDPHASE) == 0 and (m.body_geomnum[b1] > 1 or m.body_geomnum[b2] > 1)


@njit(cache=True, error_model="numpy")
def _boxes_overlap(m, d, g1, g2, margin):
  """The midphase's last test of a geom pair (g1 on the lower body): do the geoms' oriented boxes (``geom_aabb``)
  come within margin along the face normals of either box.

  In MuJoCo's arithmetic, because it decides: a plane's box is the half-space behind it, 1e10 deep, so near a plane
  the test rounds at ~1e-6 and MuJoCo drops contacts that penetrate less than that. A box infinite on all its axes
  overlaps everything; one infinite on some is not tested along the other box's faces.
  """
  a1, a2 = m.geom_aabb[g1], m.geom_aabb[g2]
  inf1 = (a1[3] >= MAXVAL, a1[4] >= MAXVAL, a1[5] >= MAXVAL)
  inf2 = (a2[3] >= MAXVAL, a2[4] >= MAXVAL, a2[5] >= MAXVAL)
  if (inf1[0] and inf1[1] and inf1[2]) or (inf2[0] and inf2[1] and inf2[2]):
    return True
  mat1, mat2 = d.geom_xmat[g1], d.geom_xmat[g2]
  c1 = add3(mat_vec(mat1, (a1[0], a1[1], a1[2])), vec3(d.geom_xpos[g1]))
  c2 = add3(mat_vec(mat2, (a2[0], a2[1], a2[2])), vec3(d.geom_xpos[g2]))
  for j in range(2):
    if (inf2[0] or inf2[1] or inf2[2]) if j == 0 else (inf1[0] or inf1[1] or inf1[2]):
      continue
    for k in range(3):
      n = frame_axis(mat1 if j == 0 else mat2, k)
      r1 = _box_radius(mat1, a1, n)
      r2 = _box_radius(mat2, a2, n)
      if r1 + r2 + margin < abs(dot3(c2, n) - dot3(c1, n)):
        return False
  return True


@njit(cache=True, error_model="numpy")
def _box_radius(mat, a, n):
  """Half extent along unit n of the box with half sizes a[3:6] on the axes of mat."""
  return (abs(a[3] * dot3(frame_axis(mat, 0), n)) + abs(a[4] * dot3(frame_axis(mat, 1), n))
          + abs(a[5] * dot3(frame_axis(mat, 2), n)))


@njit(cache=True, error_model="numpy")
def _spheres_overlap(m, d, g1, g2, margin):
  """Bounding spheres (a half-space for a plane) closer than the margin."""
  t1, t2 = m.geom_type[g1], m.geom_type[g2]
  if t1 == GEOM_PLANE or t2 == GEOM_PLANE:
    if t1 == GEOM_PLANE and t2 == GEOM_PLANE:
      return False
    p, g = (g1, g2) if t1 == GEOM_PLANE else (g2, g1)
    mat = d.geom_xmat[p]
    h = 0.0
    for k in range(3):
      h += (d.geom_xpos[g, k] - d.geom_xpos[p, k]) * mat[3 * k + 2]
    return h <= m.geom_rbound[g] + margin
  dx = d.geom_xpos[g1, 0] - d.geom_xpos[g2, 0]
  dy = d.geom_xpos[g1, 1] - d.geom_xpos[g2, 1]
  dz = d.geom_xpos[g1, 2] - d.geom_xpos[g2, 2]
  reach = m.geom_rbound[g1] + m.geom_rbound[g2] + margin
  return dx * dx + dy * dy + dz * dz <= reach * reach


# --------------------------------------------------------------- narrow phase ----


# Type pairs (t1 <= t2) with a closed-form collider; every other pair needs GJK/EPA or the height-field collider.
CLOSED_FORM = frozenset([
    (GEOM_PLANE, GEOM_SPHERE), (GEOM_PLANE, GEOM_CAPSULE), (GEOM_PLANE, GEOM_ELLIPSOID), (GEOM_PLANE, GEOM_CYLINDER),
    (GEOM_PLANE, GEOM_BOX), (GEOM_PLANE, GEOM_MESH), (GEOM_SPHERE, GEOM_SPHERE), (GEOM_SPHERE, GEOM_CAPSULE),
    (GEOM_SPHERE, GEOM_CYLINDER), (GEOM_SPHERE, GEOM_BOX), (GEOM_CAPSULE, GEOM_CAPSULE), (GEOM_CAPSULE, GEOM_BOX),
    (GEOM_BOX, GEOM_BOX)])
# Pairs that never make contacts.
_NONE = frozenset([(GEOM_PLANE, GEOM_PLANE), (GEOM_PLANE, GEOM_HFIELD), (GEOM_HFIELD, GEOM_HFIELD)])


def needs_ccd(geom_type, geom_contype, geom_conaffinity, pair_geom1, pair_geom2):
  """Whether a model has a geom pair that may collide and has no closed-form collider (a conservative test on
  the types present: any two collidable geoms, or an explicit pair)."""
  types = sorted({int(t) for t, c, a in zip(geom_type, geom_contype, geom_conaffinity) if c or a})
  pairs = {(t1, t2) for i, t1 in enumerate(types) for t2 in types[i:]}
  pairs |= {tuple(sorted((int(geom_type[g1]), int(geom_type[g2])))) for g1, g2 in zip(pair_geom1, pair_geom2)}
  return any(p not in CLOSED_FORM and p not in _NONE for p in pairs)


@_jit.stable_identity  # it is an argument of cached kernels
@njit(cache=True, error_model="numpy")
def narrow_closed_form(m, d, t1, t2, g1, g2, margin, i0):
  """The closed-form collider of a type pair (t1 <= t2): the number of contacts found, -1 if it has none."""
  if t1 == GEOM_PLANE:
    if t2 == GEOM_SPHERE:
      return primitive.plane_sphere(m, d, g1, g2, margin, i0)
    if t2 == GEOM_CAPSULE:
      return primitive.plane_capsule(m, d, g1, g2, margin, i0)
    if t2 == GEOM_ELLIPSOID:
      return primitive.plane_ellipsoid(m, d, g1, g2, margin, i0)
    if t2 == GEOM_CYLINDER:
      return primitive.plane_cylinder(m, d, g1, g2, margin, i0)
    if t2 == GEOM_BOX:
      return primitive.plane_box(m, d, g1, g2, margin, i0)
    if t2 == GEOM_MESH:
      return primitive.plane_mesh(m, d, g1, g2, margin, i0)
    return 0
  if t1 == GEOM_SPHERE:
    if t2 == GEOM_SPHERE:
      return primitive.sphere_sphere(m, d, g1, g2, margin, i0)
    if t2 == GEOM_CAPSULE:
      return primitive.sphere_capsule(m, d, g1, g2, margin, i0)
    if t2 == GEOM_CYLINDER:
      return primitive.sphere_cylinder(m, d, g1, g2, margin, i0)
    if t2 == GEOM_BOX:
      return primitive.sphere_box(m, d, g1, g2, margin, i0)
  elif t1 == GEOM_CAPSULE:
    if t2 == GEOM_CAPSULE:
      return primitive.capsule_capsule(m, d, g1, g2, margin, i0)
    if t2 == GEOM_BOX:
      return box.capsule_box(m, d, g1, g2, margin, i0)
  elif t1 == GEOM_BOX and t2 == GEOM_BOX:
    return box.box_box(m, d, g1, g2, margin, i0)
  return -1


@_jit.stable_identity
@njit(cache=True, error_model="numpy")
def narrow_all(m, d, t1, t2, g1, g2, margin, i0):
  """Every collider of a type pair (t1 <= t2): closed forms, height fields, else GJK/EPA; the number of contacts."""
  if t1 == GEOM_HFIELD:
    if t2 == GEOM_HFIELD:
      return 0
    return hfield.hfield_convex(m, d, g1, g2, margin, i0)
  n = narrow_closed_form(m, d, t1, t2, g1, g2, margin, i0)
  if n >= 0:
    return n
  return convex.convex(m, d, g1, g2, margin, i0)


# Until the contacts are sorted, three of their int fields that are only filled afterwards hold the sort's
# bookkeeping (Data has no other per-contact storage, and the step path allocates nothing): efc_address the explicit
# pair each contact came from (-1: broad phase), dim and exclude the merge sort's index arrays.


@njit(cache=True, error_model="numpy")
def _narrow(m, d, g1, g2, reach, pair, narrow):
  """Collides one geom pair out to ``reach`` (margin + gap) and records who made its contacts; ``pair`` is the
  explicit pair id or -1."""
  t1, t2 = m.geom_type[g1], m.geom_type[g2]
  if t1 > t2:
    g1, g2, t1, t2 = g2, g1, t2, t1
  i0 = d.ncon[0]
  n = max(0, narrow(m, d, t1, t2, g1, g2, reach, i0))
  capacity = d.contact_dist.shape[0]
  kept = min(n, capacity - i0)
  if kept < n:
    # Keep what fits (the contacts of the pairs the sweep met first, deterministically) and say so, as MuJoCo does.
    d.warning_number[WARN_CONTACTFULL] += 1
    d.warning_lastinfo[WARN_CONTACTFULL] = i0 + n
  for i in range(i0, i0 + kept):
    d.contact_geom1[i] = g1
    d.contact_geom2[i] = g2
    d.contact_efc_address[i] = pair
    for k in range(2):
      d.contact_flex[i, k] = d.contact_elem[i, k] = d.contact_vert[i, k] = -1
  d.ncon[0] = i0 + kept


@njit(cache=True, error_model="numpy")
def _order_key(m, d, i):
  """Where MuJoCo's collision driver puts contact i: (body-pair signature, explicit pair id or npair after them,
  geom pair within the body pair)."""
  pair = d.contact_efc_address[i]
  if pair >= 0:
    return (int(m.pair_signature[pair]), int(pair), 0, 0)
  if d.contact_geom2[i] < 0:
    return flexcol.order_key(m, d, i)
  g1, g2 = int(d.contact_geom1[i]), int(d.contact_geom2[i])
  b1, b2 = int(m.geom_bodyid[g1]), int(m.geom_bodyid[g2])
  signature = (min(b1, b2) << 16) + max(b1, b2)
  if (m.opt_disableflags[0] & DSBL_MIDPHASE) != 0:
    # Both bodies' geom lists in turn; the lower body's geoms have the lower ids.
    return (signature, int(m.npair), min(g1, g2), max(g1, g2))
  return (signature, int(m.npair), g1, g2)


@njit(cache=True, error_model="numpy")
def _sort_contacts(m, d):
  """Puts the contacts in MuJoCo's order (a stable sort: a geom pair's contacts keep the collider's order)."""
  n = d.ncon[0]
  i = 1
  while i < n and not _before(m, d, i, i - 1, True):
    i += 1
  if i >= n:
    return
  order, home = d.contact_dim, d.contact_exclude
  for i in range(n):
    order[i] = i
  _stable_sort(m, d, order, home, n, True)
  for k in range(n):
    home[order[k]] = k
  # Each swap sends one contact to its place, so at most n - 1 swaps.
  for i in range(n):
    while home[i] != i:
      j = home[i]
      _swap_contacts(m, d, i, j)
      home[i] = home[j]
      home[j] = j


@njit(cache=True, error_model="numpy")
def _swap_contacts(m, d, i, j):
  """Swaps what the colliders and _narrow wrote for contacts i and j."""
  d.contact_dist[i], d.contact_dist[j] = d.contact_dist[j], d.contact_dist[i]
  for k in range(3):
    d.contact_pos[i, k], d.contact_pos[j, k] = d.contact_pos[j, k], d.contact_pos[i, k]
  for k in range(9):
    d.contact_frame[i, k], d.contact_frame[j, k] = d.contact_frame[j, k], d.contact_frame[i, k]
  d.contact_geom1[i], d.contact_geom1[j] = d.contact_geom1[j], d.contact_geom1[i]
  d.contact_geom2[i], d.contact_geom2[j] = d.contact_geom2[j], d.contact_geom2[i]
  d.contact_efc_address[i], d.contact_efc_address[j] = d.contact_efc_address[j], d.contact_efc_address[i]
  if m.nflex > 0:
    for k in range(2):
      d.contact_flex[i, k], d.contact_flex[j, k] = d.contact_flex[j, k], d.contact_flex[i, k]
      d.contact_elem[i, k], d.contact_elem[j, k] = d.contact_elem[j, k], d.contact_elem[i, k]
      d.contact_vert[i, k], d.contact_vert[j, k] = d.contact_vert[j, k], d.contact_vert[i, k]


@njit(cache=True, error_model="numpy")
def _finish_contacts(m, d):
  """Frames and parameters of the sorted contacts."""
  for i in range(d.ncon[0]):
    g1, g2, pair = d.contact_geom1[i], d.contact_geom2[i], d.contact_efc_address[i]
    if g2 < 0:  # a geom-flex contact
      margin = flexcol.margin_gap(m, g1, d.contact_flex[i, 1])[0]
    else:
      margin = _margin_gap(m, g1, g2, pair)[0]
    _make_frame(d.contact_frame[i])
    _parameters(m, d, i, g1, g2, pair)
    d.contact_includemargin[i] = margin
    # Not closer than the margin (found within the gap, or just touching with no margin): reported, but the
    # constraint builder leaves it out, as MuJoCo 4 does.
    d.contact_exclude[i] = 1 if d.contact_dist[i] >= margin else 0


@njit(cache=True, error_model="numpy")
def _make_frame(frame):
  """Tangents of a contact frame from its normal (row 0) and a tangent hint in row 1 when the collider set one.

  Without a hint, y starts from (0, 1, 0), or (0, 0, 1) when that is near the normal.
  """
  if frame[3] * frame[3] + frame[4] * frame[4] + frame[5] * frame[5] > 0.25:
    ty = (frame[3], frame[4], frame[5])
  elif abs(frame[1]) < 0.5:
    ty = (0.0, 1.0, 0.0)
  else:
    ty = (0.0, 0.0, 1.0)
  dn = frame[0] * ty[0] + frame[1] * ty[1] + frame[2] * ty[2]
  y0, y1, y2 = ty[0] - dn * frame[0], ty[1] - dn * frame[1], ty[2] - dn * frame[2]
  ln = math.sqrt(y0 * y0 + y1 * y1 + y2 * y2)
  if ln < 1e-10:
    # A hint along the normal carries no tangent direction.
    frame[3] = frame[4] = frame[5] = 0.0
    _make_frame(frame)
    return
  s = 1.0 / ln
  frame[3], frame[4], frame[5] = y0 * s, y1 * s, y2 * s
  frame[6] = frame[1] * frame[5] - frame[2] * frame[4]
  frame[7] = frame[2] * frame[3] - frame[0] * frame[5]
  frame[8] = frame[0] * frame[4] - frame[1] * frame[3]


@njit(cache=True, error_model="numpy")
def _parameters(m, d, i, g1, g2, pair):
  """condim, friction, solref, solimp of contact i: the pair's own, or the geoms' mixed by priority and solmix."""
  d.contact_efc_address[i] = -1
  if pair >= 0:
    d.contact_dim[i] = m.pair_dim[pair]
    for k in range(5):
      d.contact_friction[i, k] = m.pair_friction[pair, k]
      d.contact_solimp[i, k] = m.pair_solimp[pair, k]
    for k in range(2):
      d.contact_solref[i, k] = m.pair_solref[pair, k]
      d.contact_solreffriction[i, k] = m.pair_solreffriction[pair, k]
  elif g2 < 0:
    flexcol.parameters(m, d, i, g1, d.contact_flex[i, 1])
  else:
    p1, p2 = m.geom_priority[g1], m.geom_priority[g2]
    if p1 != p2:
      # The geom of higher priority sets every parameter.
      g = g1 if p1 > p2 else g2
      mix = 1.0
      d.contact_dim[i] = m.geom_condim[g]
      f0, f1, f2 = m.geom_friction[g, 0], m.geom_friction[g, 1], m.geom_friction[g, 2]
      ga, gb = g, g
    else:
      mix = solmix_weight(m.geom_solmix[g1], m.geom_solmix[g2])
      d.contact_dim[i] = max(m.geom_condim[g1], m.geom_condim[g2])
      f0 = max(m.geom_friction[g1, 0], m.geom_friction[g2, 0])
      f1 = max(m.geom_friction[g1, 1], m.geom_friction[g2, 1])
      f2 = max(m.geom_friction[g1, 2], m.geom_friction[g2, 2])
      ga, gb = g1, g2
    d.contact_friction[i, 0] = f0
    d.contact_friction[i, 1] = f0
    d.contact_friction[i, 2] = f1
    d.contact_friction[i, 3] = f2
    d.contact_friction[i, 4] = f2
    if m.geom_solref[ga, 0] > 0 and m.geom_solref[gb, 0] > 0:
      for k in range(2):
        d.contact_solref[i, k] = mix * m.geom_solref[ga, k] + (1.0 - mix) * m.geom_solref[gb, k]
    else:
      # Direct (negative) stiffness and damping do not average with time constants: take the stiffer.
      for k in range(2):
        d.contact_solref[i, k] = min(m.geom_solref[ga, k], m.geom_solref[gb, k])
    for k in range(5):
      d.contact_solimp[i, k] = mix * m.geom_solimp[ga, k] + (1.0 - mix) * m.geom_solimp[gb, k]
    d.contact_solreffriction[i, 0] = 0.0
    d.contact_solreffriction[i, 1] = 0.0
  if (m.opt_enableflags[0] & ENBL_OVERRIDE) != 0:
    # The global override replaces every mixed or explicit parameter except condim, friction's solref included.
    for k in range(5):
      d.contact_friction[i, k] = m.opt_o_friction[k]
      d.contact_solimp[i, k] = m.opt_o_solimp[k]
    for k in range(2):
      d.contact_solref[i, k] = m.opt_o_solref[k]
      d.contact_solreffriction[i, k] = m.opt_o_solref[k]
  # MuJoCo's floor on friction coefficients (mjMINMU): the cones and the solvers divide by them
  for k in range(5):
    d.contact_friction[i, k] = max(_MINMU, d.contact_friction[i, k])
  d.contact_mu[i] = 0.0
