"""Constraint rows (``efc_*``): equality, friction loss, limits and contacts, as in MuJoCo's constraint model.

Each row family has one builder; ``make_constraint`` calls them in MuJoCo's order (equality, friction loss,
limits, contacts) and then fills the velocity-dependent quantities. Every row gets, from its solref / solimp
(Computation chapter, "Soft constraints"):

- impedance d(r) in (0, 1) of the violation r = pos - margin, shaped by solimp = (d0, dwidth, width,
  midpoint, power);
- the regularizer R = (1 - d) / d * A_ii, where A_ii approximates the diagonal of A = J M⁻¹ Jᵀ from the
  invweight0 constants of the model (``mjcf/setconst.py``), and D = 1 / R;
- the reference acceleration aref = -B (J qvel) - K d r, with K, B from solref: positive solref =
  (timeconst, dampratio) gives B = 2 / (dmax timeconst), K = 1 / (dmax² timeconst² dampratio²); negative
  solref = (-stiffness, -damping) gives K = stiffness / dmax², B = damping / dmax.

Contacts with friction use one of two cones. Elliptic: one row per contact dimension; the friction rows
have R scaled so that the cone is isotropic in the solver (R₁ = R₀ / impratio, Rⱼ = R₁ μ₁² / μⱼ²).
Pyramidal: 2 (condim - 1) edge rows Jₙ ± μⱼ Jⱼ, all sharing one R = 2 μ₁² / impratio · R(first edge).
"""

import math as pymath

from numba import njit

from mjgym.physics import _jit
from mjgym.physics import flex
from mjgym.physics import island
from mjgym.physics import math
from mjgym.physics import support
from mjgym.physics.constants import CNSTR_CONTACT_ELLIPTIC
from mjgym.physics.constants import CNSTR_CONTACT_FRICTIONLESS
from mjgym.physics.constants import CNSTR_CONTACT_PYRAMIDAL
from mjgym.physics.constants import CNSTR_EQUALITY
from mjgym.physics.constants import CNSTR_FRICTION_DOF
from mjgym.physics.constants import CNSTR_FRICTION_TENDON
from mjgym.physics.constants import CNSTR_LIMIT_JOINT
from mjgym.physics.constants import CNSTR_LIMIT_TENDON
from mjgym.physics.constants import DSBL_CONSTRAINT
from mjgym.physics.constants import DSBL_CONTACT
from mjgym.physics.constants import DSBL_EQUALITY
from mjgym.physics.constants import DSBL_FRICTIONLOSS
from mjgym.physics.constants import DSBL_LIMIT
from mjgym.physics.constants import DSBL_REFSAFE
from mjgym.physics.constants import JNT_BALL
from mjgym.physics.constants import JNT_HINGE
from mjgym.physics.constants import JNT_SLIDE
from mjgym.physics.constants import WARN_CNSTRFULL
from mjgym.physics.types import ConeType
from mjgym.physics.types import EqType
from mjgym.physics.types import MINVAL
from mjgym.physics.types import ObjType

# Impedance is kept inside (MINIMP, MAXIMP) so that R = (1 - d) / d * A stays finite and positive.
MINIMP = 0.0001
MAXIMP = 0.9999

# MuJoCo's default solref, which replaces a mixed one (mj_defaultSolRefImp)
_SOLREF_DEFAULT = (0.02, 1.0)



@njit(cache=True, error_model="numpy", inline="always")
def _disabled(m, flag):
  return (m.opt_disableflags[0] & flag) != 0


# -------------------------------------------------------------- impedance ----


@njit(cache=True, error_model="numpy")
def impedance(solimp, r):
  """(d, dd/dr) for violation ``r``; solimp = (d0, dwidth, width, midpoint, power), clamped like MuJoCo."""
  d0 = min(max(solimp[0], MINIMP), MAXIMP)
  dwidth = min(max(solimp[1], MINIMP), MAXIMP)
  width = solimp[2]
  mid = min(max(solimp[3], MINIMP), MAXIMP)
  power = max(1.0, solimp[4])
  if d0 == dwidth or width <= MINVAL:
    return 0.5 * (d0 + dwidth), 0.0
  x = abs(r) / width
  if x >= 1.0:
    return dwidth, 0.0
  # y(x) rises from 0 to 1: a power curve below the midpoint, its mirror image above it
  if power == 1.0:
    y, dy = x, 1.0
  elif x <= mid:
    a = 1.0 / mid ** (power - 1.0)
    y, dy = a * x ** power, a * power * x ** (power - 1.0)
  else:
    b = 1.0 / (1.0 - mid) ** (power - 1.0)
    y, dy = 1.0 - b * (1.0 - x) ** power, b * power * (1.0 - x) ** (power - 1.0)
  sign = 1.0 if r >= 0.0 else -1.0
  return d0 + y * (dwidth - d0), dy * (dwidth - d0) * sign / width


@njit(cache=True, error_model="numpy")
def mixed_solref(solref):
  """Whether solref mixes the standard (timeconst, dampratio > 0) and direct (-stiffness, -damping <= 0) forms."""
  return (solref[0] > 0.0) != (solref[1] > 0.0)


@njit(cache=True, error_model="numpy")
def stiffness_damping(m, solref, solimp):
  """(K, B) of the reference acceleration from solref, with dmax = solimp[1] (refsafe bounds timeconst).

  A mixed solref is replaced by the default (0.02, 1), as MuJoCo does at run time.
  """
  dmax = min(max(solimp[1], MINIMP), MAXIMP)
  ref0, ref1 = (_SOLREF_DEFAULT[0], _SOLREF_DEFAULT[1]) if mixed_solref(solref) else (solref[0], solref[1])
  if ref0 > 0.0:
    timeconst = ref0
    if not _disabled(m, DSBL_REFSAFE):
      # a time constant below two steps cannot be resolved by the integrator and only adds energy
      timeconst = max(timeconst, 2.0 * m.opt_timestep[0])
    # MINVAL floors: a vanishing time constant makes the row stiff, not a division by zero
    return (1.0 / max(MINVAL, dmax * dmax * timeconst * timeconst * ref1 * ref1),
            2.0 / max(MINVAL, dmax * timeconst))
  return -ref0 / (dmax * dmax), -ref1 / dmax


# ------------------------------------------------------------------- rows ----


@njit(cache=True, error_model="numpy")
def _reserve(m, d, n):
  """True when ``n`` more rows fit; otherwise raises CNSTRFULL and the rows are dropped."""
  if d.nefc[0] + n <= m.njmax:
    return True
  d.warning_number[WARN_CNSTRFULL] += 1
  d.warning_lastinfo[WARN_CNSTRFULL] = d.nefc[0] + n
  return False


@njit(cache=True, error_model="numpy")
def _add_row(m, d, ctype, cid, pos, margin, frictionloss, diag, solref, solimp, use_pos):
  """Appends one row's scalars (its Jacobian row is zeroed for the caller to fill); returns its index."""
  i = d.nefc[0]
  d.nefc[0] = i + 1
  d.efc_type[i] = ctype
  d.efc_id[i] = cid
  d.efc_J[i, :] = 0.0
  d.efc_pos[i] = pos
  d.efc_margin[i] = margin
  d.efc_frictionloss[i] = frictionloss
  imp, dimp = impedance(solimp, pos - margin)
  k, b = stiffness_damping(m, solref, solimp)
  d.efc_KBIP[i, 0] = k if use_pos else 0.0
  d.efc_KBIP[i, 1] = b
  d.efc_KBIP[i, 2] = imp
  d.efc_KBIP[i, 3] = dimp
  d.efc_diagA[i] = diag
  d.efc_R[i] = max(MINVAL, (1.0 - imp) / imp * diag)
  return i


@njit(cache=True, error_model="numpy")
def _add_jac(m, d, jacp, jacr, point, body, sign):
  """jacp, jacr (3, nv) += sign * Jacobians of world ``point`` moving with ``body``."""
  c = d.subtree_com[m.body_rootid[body]]
  offset = (point[0] - c[0], point[1] - c[1], point[2] - c[2])
  j = support._last_dof(m, body)  # pylint: disable=protected-access
  while j >= 0:
    cdof = d.cdof[j]
    t = math.cross(cdof[:3], offset)
    for k in range(3):
      jacr[k, j] += sign * cdof[k]
      jacp[k, j] += sign * (cdof[3 + k] + t[k])
    j = m.dof_parentid[j]


@njit(cache=True, error_model="numpy")
def _element_jac(m, d, c):
  """constraint_jacp, constraint_jacr of geom-element contact c (the element on side 1): the contact point moves
  with the element's vertex bodies, weighted as flex.element_weights says, minus the geom's body; returns the same
  weighting of the bodies' inverse weights (translation, rotation), as MuJoCo's."""
  d.constraint_jacp[:, :] = 0.0
  d.constraint_jacr[:, :] = 0.0
  pos = d.contact_pos[c]
  b = m.geom_bodyid[d.contact_geom1[c]]
  _add_jac(m, d, d.constraint_jacp, d.constraint_jacr, pos, b, -1.0)
  tran, rot = m.body_invweight0[b, 0], m.body_invweight0[b, 1]
  f, e = d.contact_flex[c, 1], d.contact_elem[c, 1]
  weights = flex.element_weights(m, d, f, e, pos)
  adr = m.flex_elemdataadr[f] + e * (m.flex_dim[f] + 1)
  for i in range(m.flex_dim[f] + 1):
    w = weights[i]
    if w == 0.0:
      continue
    b = m.flex_vertbodyid[m.flex_vertadr[f] + m.flex_elem[adr + i]]
    _add_jac(m, d, d.constraint_jacp, d.constraint_jacr, pos, b, w)
    tran += m.body_invweight0[b, 0] * w
    rot += m.body_invweight0[b, 1] * w
  return tran, rot


@njit(cache=True, error_model="numpy")
def _jac_pair(m, d, p1, b1, p2, b2):
  """constraint_jacp, constraint_jacr = Jacobian of p1 on b1 minus Jacobian of p2 on b2."""
  d.constraint_jacp[:, :] = 0.0
  d.constraint_jacr[:, :] = 0.0
  _add_jac(m, d, d.constraint_jacp, d.constraint_jacr, p1, b1, 1.0)
  _add_jac(m, d, d.constraint_jacp, d.constraint_jacr, p2, b2, -1.0)


@njit(cache=True, error_model="numpy")
def _polynomial(coef, x):
  """(p(x), p'(x)) of the quartic sum coef[k] x^k."""
  p = coef[0] + x * (coef[1] + x * (coef[2] + x * (coef[3] + x * coef[4])))
  dp = coef[1] + x * (2.0 * coef[2] + x * (3.0 * coef[3] + x * 4.0 * coef[4]))
  return p, dp


@_jit.lazy
@njit(cache=True, error_model="numpy")
def _equality(m, d):
  """Rows of the active equality constraints: connect (3), weld (6), joint (1), tendon (1), flex (1 an edge)."""
  for e in range(m.neq):
    if not d.eq_active[e]:
      continue
    etype = m.eq_type[e]
    o1 = m.eq_obj1id[e]
    o2 = m.eq_obj2id[e]
    data = m.eq_data[e]
    solref = m.eq_solref[e]
    solimp = m.eq_solimp[e]
    if etype == EqType.CONNECT or etype == EqType.WELD:
      p1, b1, p2, b2 = _anchors(m, d, e)
      tran = m.body_invweight0[b1, 0] + m.body_invweight0[b2, 0]
      rot = m.body_invweight0[b1, 1] + m.body_invweight0[b2, 1]
      nrow = 3 if etype == EqType.CONNECT else 6
      if not _reserve(m, d, nrow):
        continue
      _jac_pair(m, d, p1, b1, p2, b2)
      for k in range(3):
        i = _add_row(m, d, CNSTR_EQUALITY, e, p1[k] - p2[k], 0.0, 0.0, tran, solref, solimp, True)
        d.efc_J[i, :] = d.constraint_jacp[k]
      if etype == EqType.WELD:
        _weld_rotation(m, d, e, data[10], rot, solref, solimp)
      _block_impedance(d, d.nefc[0] - nrow, nrow, solimp)
    elif etype == EqType.JOINT or etype == EqType.TENDON:
      is_joint = etype == EqType.JOINT
      if is_joint:
        x1 = d.qpos[m.jnt_qposadr[o1]] - m.qpos0[m.jnt_qposadr[o1]]
        diag = m.dof_invweight0[m.jnt_dofadr[o1]]
      else:
        x1 = d.ten_length[o1] - m.tendon_length0[o1]
        diag = m.tendon_invweight0[o1]
      p, dp = data[0], 0.0
      if o2 >= 0:
        if is_joint:
          x2 = d.qpos[m.jnt_qposadr[o2]] - m.qpos0[m.jnt_qposadr[o2]]
          diag += m.dof_invweight0[m.jnt_dofadr[o2]]
        else:
          x2 = d.ten_length[o2] - m.tendon_length0[o2]
          diag += m.tendon_invweight0[o2]
        p, dp = _polynomial(data, x2)
      if not _reserve(m, d, 1):
        continue
      i = _add_row(m, d, CNSTR_EQUALITY, e, x1 - p, 0.0, 0.0, diag, solref, solimp, True)
      if is_joint:
        d.efc_J[i, m.jnt_dofadr[o1]] = 1.0
        if o2 >= 0:
          d.efc_J[i, m.jnt_dofadr[o2]] -= dp
      else:
        for k in range(m.nv):
          d.efc_J[i, k] = d.ten_J[o1, k]
          if o2 >= 0:
            d.efc_J[i, k] -= dp * d.ten_J[o2, k]
    elif etype == EqType.FLEX:
      # one row per edge that is not rigid: its length back to the length at qpos0
      for edge in range(m.flex_edgeadr[o1], m.flex_edgeadr[o1] + m.flex_edgenum[o1]):
        if m.flexedge_rigid[edge] or not _reserve(m, d, 1):
          continue
        i = _add_row(m, d, CNSTR_EQUALITY, e, d.flexedge_length[edge] - m.flexedge_length0[edge], 0.0, 0.0,
                     m.flexedge_invweight0[edge], solref, solimp, True)
        for j in range(m.flexedge_J_rowadr[edge], m.flexedge_J_rowadr[edge] + m.flexedge_J_rownnz[edge]):
          d.efc_J[i, m.flexedge_J_colind[j]] = d.flexedge_J[j]


@njit(cache=True, error_model="numpy")
def _block_impedance(d, first, n, solimp):
  """Gives the rows of a multi-row equality the impedance of their joint violation |pos| (and its R)."""
  r2 = 0.0
  for i in range(first, first + n):
    r2 += d.efc_pos[i] * d.efc_pos[i]
  imp, dimp = impedance(solimp, pymath.sqrt(r2))
  for i in range(first, first + n):
    d.efc_KBIP[i, 2] = imp
    d.efc_KBIP[i, 3] = dimp
    d.efc_R[i] = max(MINVAL, (1.0 - imp) / imp * d.efc_diagA[i])


@njit(cache=True, error_model="numpy")
def _anchors(m, d, e):
  """(p1, b1, p2, b2): the two world points connect / weld ``e`` holds together and the bodies they move with.

  Body semantics: connect puts body1's anchor on its image on body2, weld body2's anchor on its target on
  body1 (both stored at qpos0 by set_const unless given). Site semantics: the two sites.
  """
  o1 = m.eq_obj1id[e]
  o2 = m.eq_obj2id[e]
  if m.eq_objtype[e] == ObjType.SITE:
    p1 = (d.site_xpos[o1, 0], d.site_xpos[o1, 1], d.site_xpos[o1, 2])
    p2 = (d.site_xpos[o2, 0], d.site_xpos[o2, 1], d.site_xpos[o2, 2])
    return p1, m.site_bodyid[o1], p2, m.site_bodyid[o2]
  data = m.eq_data[e]
  if m.eq_type[e] == EqType.CONNECT:
    a1, a2 = data[0:3], data[3:6]
  else:
    a1, a2 = data[3:6], data[0:3]
  r1 = math.mat_vec(d.xmat[o1], a1)
  r2 = math.mat_vec(d.xmat[o2], a2)
  p1 = (r1[0] + d.xpos[o1, 0], r1[1] + d.xpos[o1, 1], r1[2] + d.xpos[o1, 2])
  p2 = (r2[0] + d.xpos[o2, 0], r2[1] + d.xpos[o2, 1], r2[2] + d.xpos[o2, 2])
  return p1, o1, p2, o2


@njit(cache=True, error_model="numpy")
def _weld_frames(m, d, e):
  """(target, q2): a weld holds q2 at the target orientation.

  Body semantics: target = q1 q_rel (relpose), q2 = body2's orientation. Site semantics: the two sites'
  orientations, built from their bodies' so that they move with them.
  """
  o1 = m.eq_obj1id[e]
  o2 = m.eq_obj2id[e]
  if m.eq_objtype[e] == ObjType.SITE:
    target = math.quat_mul(d.xquat[m.site_bodyid[o1]], m.site_quat[o1])
    q2 = math.quat_mul(d.xquat[m.site_bodyid[o2]], m.site_quat[o2])
    return target, q2
  q = d.xquat[o2]
  return math.quat_mul(d.xquat[o1], m.eq_data[e, 6:10]), (q[0], q[1], q[2], q[3])


@njit(cache=True, error_model="numpy")
def _weld_rotation(m, d, e, scale, rot, solref, solimp):
  """The 3 rotational rows of a weld: torquescale times the imaginary part of q2⁻¹ target."""
  target, q2 = _weld_frames(m, d, e)
  inv2 = (q2[0], -q2[1], -q2[2], -q2[3])
  err = math.quat_mul(inv2, target)
  first = d.nefc[0]
  for k in range(3):
    _add_row(m, d, CNSTR_EQUALITY, e, scale * err[1 + k], 0.0, 0.0, rot, solref, solimp, True)
  # d/dt of the error quaternion is ½ q2⁻¹ ⊗ (0, ω₁ - ω₂) ⊗ (q1 q_rel), ω the world angular velocities
  for j in range(m.nv):
    w = (0.0, d.constraint_jacr[0, j], d.constraint_jacr[1, j], d.constraint_jacr[2, j])
    if w[1] == 0.0 and w[2] == 0.0 and w[3] == 0.0:
      continue
    v = math.quat_mul(math.quat_mul(inv2, w), target)
    for k in range(3):
      d.efc_J[first + k, j] = 0.5 * scale * v[1 + k]


@njit(cache=True, error_model="numpy")
def _friction(m, d):
  """Friction-loss rows: one per dof, then one per tendon, with frictionloss > 0."""
  for i in range(m.nv):
    fl = m.dof_frictionloss[i]
    if fl > 0.0 and _reserve(m, d, 1):
      r = _add_row(m, d, CNSTR_FRICTION_DOF, i, 0.0, 0.0, fl, m.dof_invweight0[i], m.dof_solref[i],
                   m.dof_solimp[i], False)
      d.efc_J[r, i] = 1.0
  for t in range(m.ntendon):
    fl = m.tendon_frictionloss[t]
    if fl > 0.0 and _reserve(m, d, 1):
      r = _add_row(m, d, CNSTR_FRICTION_TENDON, t, 0.0, 0.0, fl, m.tendon_invweight0[t], m.tendon_solref_fri[t],
                   m.tendon_solimp_fri[t], False)
      d.efc_J[r, :] = d.ten_J[t]


@njit(cache=True, error_model="numpy")
def _limits(m, d):
  """Limit rows of joints (hinge/slide: lower, upper; ball: cone on the rotation angle), then tendons."""
  for j in range(m.njnt):
    if not m.jnt_limited[j]:
      continue
    jtype = m.jnt_type[j]
    qadr = m.jnt_qposadr[j]
    dadr = m.jnt_dofadr[j]
    margin = m.jnt_margin[j]
    if jtype == JNT_SLIDE or jtype == JNT_HINGE:
      q = d.qpos[qadr]
      for side in range(2):
        dist = q - m.jnt_range[j, 0] if side == 0 else m.jnt_range[j, 1] - q
        if dist < margin and _reserve(m, d, 1):
          i = _add_row(m, d, CNSTR_LIMIT_JOINT, j, dist, margin, 0.0, m.dof_invweight0[dadr], m.jnt_solref[j],
                       m.jnt_solimp[j], True)
          d.efc_J[i, dadr] = 1.0 if side == 0 else -1.0
    elif jtype == JNT_BALL:
      v = math.quat_to_vel(d.qpos[qadr:qadr + 4], 1.0)
      angle = pymath.sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2])
      dist = max(m.jnt_range[j, 0], m.jnt_range[j, 1]) - angle
      if dist < margin and _reserve(m, d, 1):
        i = _add_row(m, d, CNSTR_LIMIT_JOINT, j, dist, margin, 0.0, m.dof_invweight0[dadr], m.jnt_solref[j],
                     m.jnt_solimp[j], True)
        if angle > MINVAL:
          for k in range(3):
            d.efc_J[i, dadr + k] = -v[k] / angle
  for t in range(m.ntendon):
    if not m.tendon_limited[t]:
      continue
    length = d.ten_length[t]
    margin = m.tendon_margin[t]
    for side in range(2):
      dist = length - m.tendon_range[t, 0] if side == 0 else m.tendon_range[t, 1] - length
      if dist < margin and _reserve(m, d, 1):
        i = _add_row(m, d, CNSTR_LIMIT_TENDON, t, dist, margin, 0.0, m.tendon_invweight0[t], m.tendon_solref_lim[t],
                     m.tendon_solimp_lim[t], True)
        sign = 1.0 if side == 0 else -1.0
        for k in range(m.nv):
          d.efc_J[i, k] = sign * d.ten_J[t, k]


@njit(cache=True, error_model="numpy")
def _contact_direction_row(d, frame, dim_index, out):
  """out (nv,) = relative-velocity Jacobian of contact direction ``dim_index`` (0..5) from constraint_jacp/jacr."""
  # 0: normal, 1-2: tangents (translation); 3: spin about the normal, 4-5: rolling about the tangents
  jac = d.constraint_jacp if dim_index < 3 else d.constraint_jacr
  a = dim_index if dim_index < 3 else dim_index - 3
  for k in range(out.shape[0]):
    out[k] = frame[3 * a] * jac[0, k] + frame[3 * a + 1] * jac[1, k] + frame[3 * a + 2] * jac[2, k]


@njit(cache=True, error_model="numpy")
def _contacts(m, d):
  """Contact rows of every included contact: frictionless, pyramidal edges or elliptic dimensions."""
  elliptic = m.opt_cone[0] == ConeType.ELLIPTIC
  impratio = max(MINVAL, m.opt_impratio[0])  # as MuJoCo: impratio 0 is a tiny one, not a division by zero
  scratch = d.constraint_row
  for c in range(d.ncon[0]):
    d.contact_efc_address[c] = -1
    if d.contact_exclude[c] != 0 or d.contact_dist[c] >= d.contact_includemargin[c]:
      continue
    # a contact has 1 to 6 dimensions; the loader refuses others, but a condim edited on the model must not make
    # rows of no or negative width, which the solvers could not step over
    dim = min(max(d.contact_dim[c], 1), 6)
    d.contact_dim[c] = dim
    friction = d.contact_friction[c]
    d.contact_mu[c] = friction[0] / pymath.sqrt(impratio)
    if dim == 1:
      ctype, nrow = CNSTR_CONTACT_FRICTIONLESS, 1
    elif elliptic:
      ctype, nrow = CNSTR_CONTACT_ELLIPTIC, dim
    else:
      ctype, nrow = CNSTR_CONTACT_PYRAMIDAL, 2 * (dim - 1)
    if not _reserve(m, d, nrow):
      continue
    if d.contact_geom2[c] < 0 and d.contact_vert[c, 1] < 0:
      tran, rot = _element_jac(m, d, c)
    else:
      b1 = flex.contact_body(m, d, c, 0)
      b2 = flex.contact_body(m, d, c, 1)
      # velocity of body2 relative to body1 at the contact point: the normal points from geom1 to geom2
      _jac_pair(m, d, d.contact_pos[c], b2, d.contact_pos[c], b1)
      tran = m.body_invweight0[b1, 0] + m.body_invweight0[b2, 0]
      rot = m.body_invweight0[b1, 1] + m.body_invweight0[b2, 1]
    pos = d.contact_dist[c]
    margin = d.contact_includemargin[c]
    solref = d.contact_solref[c]
    solimp = d.contact_solimp[c]
    frame = d.contact_frame[c]
    first = d.nefc[0]
    d.contact_efc_address[c] = first
    if ctype == CNSTR_CONTACT_FRICTIONLESS:
      i = _add_row(m, d, ctype, c, pos, margin, 0.0, tran, solref, solimp, True)
      _contact_direction_row(d, frame, 0, d.efc_J[i])
    elif ctype == CNSTR_CONTACT_ELLIPTIC:
      solref_f = d.contact_solreffriction[c]
      if (solref_f[0] == 0.0 and solref_f[1] == 0.0) or mixed_solref(solref_f):
        solref_f = solref  # MuJoCo zeroes a mixed solreffriction, which then defers to solref
      i0 = _add_row(m, d, ctype, c, pos, margin, 0.0, tran, solref, solimp, True)
      _contact_direction_row(d, frame, 0, d.efc_J[i0])
      imp = d.efc_KBIP[i0, 2]
      r1 = d.efc_R[i0] / impratio
      for k in range(1, dim):
        i = _add_row(m, d, ctype, c, 0.0, 0.0, 0.0, tran, solref_f, solimp, False)
        _contact_direction_row(d, frame, k, d.efc_J[i])
        # friction rows share the normal row's impedance; R makes the cone isotropic for the solver
        d.efc_KBIP[i, 2] = imp
        d.efc_KBIP[i, 3] = d.efc_KBIP[i0, 3]
        ratio = friction[0] / friction[k - 1] if friction[k - 1] > 0.0 else 1.0
        d.efc_R[i] = max(MINVAL, r1 * ratio * ratio)
        d.efc_diagA[i] = d.efc_R[i] * imp / (1.0 - imp)
    else:
      _contact_direction_row(d, frame, 0, scratch)
      for k in range(1, dim):
        mu = friction[k - 1]
        for sign in (1.0, -1.0):
          i = _add_row(m, d, ctype, c, pos, margin, 0.0, tran + mu * mu * (tran if k < 3 else rot), solref,
                       solimp, True)
          _contact_direction_row(d, frame, k, d.efc_J[i])
          for q in range(m.nv):
            d.efc_J[i, q] = scratch[q] + sign * mu * d.efc_J[i, q]
      # all edges take the regularizer of the first one, scaled to approximate the elliptic cone's
      imp = d.efc_KBIP[first, 2]
      r = max(MINVAL, 2.0 * friction[0] * friction[0] / impratio * d.efc_R[first])
      for i in range(first, first + nrow):
        d.efc_R[i] = r
        d.efc_diagA[i] = r * imp / (1.0 - imp)


@_jit.separate
@njit(cache=True, error_model="numpy")
def make_constraint(m, d):
  """Builds all efc rows of the current positions (after collision) and their D, R, vel, aref and b, then
  the constraint islands that partition them."""
  d.nefc[0] = 0
  d.nisland[0] = 0
  d.ne[0] = 0
  d.nf[0] = 0
  d.nl[0] = 0
  for c in range(d.ncon[0]):
    d.contact_efc_address[c] = -1
  if _disabled(m, DSBL_CONSTRAINT):
    return
  if m.neq > 0 and not _disabled(m, DSBL_EQUALITY):
    _equality(m, d)
  d.ne[0] = d.nefc[0]
  if not _disabled(m, DSBL_FRICTIONLOSS):
    _friction(m, d)
  d.nf[0] = d.nefc[0] - d.ne[0]
  if not _disabled(m, DSBL_LIMIT):
    _limits(m, d)
  d.nl[0] = d.nefc[0] - d.ne[0] - d.nf[0]
  if not _disabled(m, DSBL_CONTACT):
    _contacts(m, d)
  for i in range(d.nefc[0]):
    d.efc_D[i] = 1.0 / d.efc_R[i]
  island.island(m, d)


@njit(cache=True, error_model="numpy")
def _bias_motion(m, d, body):
  """(ω, s) of ``body``: its angular velocity and the spatial acceleration Σ cdof_dot qvel of zero qacc."""
  s0 = s1 = s2 = s3 = s4 = s5 = 0.0
  j = support._last_dof(m, body)  # pylint: disable=protected-access
  while j >= 0:
    cd = d.cdof_dot[j]
    v = d.qvel[j]
    s0 += cd[0] * v
    s1 += cd[1] * v
    s2 += cd[2] * v
    s3 += cd[3] * v
    s4 += cd[4] * v
    s5 += cd[5] * v
    j = m.dof_parentid[j]
  return d.cvel[body, :3], (s0, s1, s2, s3, s4, s5)


@njit(cache=True, error_model="numpy")
def _point_bias(m, d, point, body):
  """Acceleration at zero qacc of the material ``point`` of ``body``: (d/dt Jₚ) qvel."""
  w, s = _bias_motion(m, d, body)
  c = d.subtree_com[m.body_rootid[body]]
  r = (point[0] - c[0], point[1] - c[1], point[2] - c[2])
  v = d.cvel[body, 3:]
  wr = math.cross(w, r)
  vp = (v[0] + wr[0], v[1] + wr[1], v[2] + wr[2])
  sr = math.cross(s[:3], r)
  # spatial acceleration at the point plus ω x vₚ is the classical one
  wv = math.cross(w, vp)
  return (s[3] + sr[0] + wv[0], s[4] + sr[1] + wv[1], s[5] + sr[2] + wv[2])


@njit(cache=True, error_model="numpy")
def _equality_bias(m, d, e, first):
  """aref -= (d/dt J) qvel for the rows of connect / weld ``e``, so they hold at the acceleration level."""
  p1, b1, p2, b2 = _anchors(m, d, e)
  acc1 = _point_bias(m, d, p1, b1)
  acc2 = _point_bias(m, d, p2, b2)
  for k in range(3):
    d.efc_aref[first + k] -= acc1[k] - acc2[k]
  if m.eq_type[e] != EqType.WELD:
    return
  # rotation error rate is ½ s imag(q2⁻¹ ⊗ (0, ω₁ - ω₂) ⊗ qt), qt the target; differentiate at zero qacc
  w1, s1 = _bias_motion(m, d, b1)
  w2, s2 = _bias_motion(m, d, b2)
  qt, q2 = _weld_frames(m, d, e)
  inv2 = (q2[0], -q2[1], -q2[2], -q2[3])
  dw = (0.0, w1[0] - w2[0], w1[1] - w2[1], w1[2] - w2[2])
  ddw = (0.0, s1[0] - s2[0], s1[1] - s2[1], s1[2] - s2[2])
  # d/dt q2⁻¹ = ½ q2⁻¹ ⊗ (0, -ω₂);  d/dt qt = ½ (0, ω₁) ⊗ qt
  dinv2 = math.quat_mul(inv2, (0.0, -0.5 * w2[0], -0.5 * w2[1], -0.5 * w2[2]))
  dqt = math.quat_mul((0.0, 0.5 * w1[0], 0.5 * w1[1], 0.5 * w1[2]), qt)
  t1 = math.quat_mul(math.quat_mul(dinv2, dw), qt)
  t2 = math.quat_mul(math.quat_mul(inv2, ddw), qt)
  t3 = math.quat_mul(math.quat_mul(inv2, dw), dqt)
  scale = 0.5 * m.eq_data[e, 10]
  for k in range(3):
    d.efc_aref[first + 3 + k] -= scale * (t1[1 + k] + t2[1 + k] + t3[1 + k])


@_jit.lazy
@njit(cache=True, error_model="numpy")
def _equality_velocity(m, d):
  """The velocity-dependent bias of the connect and weld rows ((d/dt J) qvel), in efc_aref."""
  i = 0
  while i < d.ne[0]:
    e = d.efc_id[i]
    etype = m.eq_type[e]
    if etype == EqType.CONNECT or etype == EqType.WELD:
      _equality_bias(m, d, e, i)
      i += 3 if etype == EqType.CONNECT else 6
    else:
      i += 1


@_jit.separate
@njit(cache=True, error_model="numpy")
def constraint_velocity(m, d):
  """efc_vel = J qvel; efc_aref = -B vel - K imp (pos - margin) (minus (d/dt J) qvel for connect and weld);
  efc_b = J qacc_smooth - aref."""
  nv = m.nv
  nefc = d.nefc[0]
  efc_j = d.efc_J
  qvel = d.qvel
  efc_vel = d.efc_vel
  efc_aref = d.efc_aref
  efc_kbip = d.efc_KBIP
  efc_pos = d.efc_pos
  efc_margin = d.efc_margin
  for i in range(nefc):
    vel = 0.0
    for k in range(nv):
      vel += efc_j[i, k] * qvel[k]
    efc_vel[i] = vel
    efc_aref[i] = -efc_kbip[i, 1] * vel - efc_kbip[i, 0] * efc_kbip[i, 2] * (efc_pos[i] - efc_margin[i])
  if d.ne[0] > 0:
    _equality_velocity(m, d)
  qacc_smooth = d.qacc_smooth
  efc_b = d.efc_b
  for i in range(nefc):
    acc = 0.0
    for k in range(nv):
      acc += efc_j[i, k] * qacc_smooth[k]
    efc_b[i] = acc - efc_aref[i]
