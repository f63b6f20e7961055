"""Constraint solvers on MuJoCo's convex problem: Newton and CG (primal), PGS (dual).

Primal problem (Todorov 2014; MuJoCo Computation chapter): find qacc minimizing

  ½ (qacc - qacc_smooth)ᵀ M (qacc - qacc_smooth) + Σ s(J qacc - aref),

where each row's cost s of jar = J qacc - aref is ½ D jar² for equalities, ½ D jar² on jar < 0 only for limits
and frictionless / pyramidal contacts, the Huber function of the friction loss for friction rows, and for
an elliptic contact a three-zone function of the whole block (zero inside the dual cone, quadratic in all
dimensions inside the cone's negative, and ½ D₀ / (1 + μ²) (u₀ - |u_t|)² in between, with u the jar block
scaled by the friction coefficients). The constraint force is f = -∂s/∂jar, qfrc_constraint = Jᵀ f.

Newton uses the exact Hessian M + Jᵀ ∂²s Jᵀ (dense Cholesky, nv is small); CG is Polak-Ribière with M as
preconditioner; both take an exact line search (safeguarded 1-D Newton on the piecewise-smooth cost).
Dual problem (PGS): minimize ½ fᵀ (A + R) f + fᵀ (J qacc_smooth - aref) over the force cones, A = J M⁻¹ Jᵀ,
by projected Gauss-Seidel as MuJoCo runs it: rows (or elliptic blocks, by a ray step on the whole block and a
QCQP on its friction) in an order shuffled every sweep by a fixed-seed PCG32, with Nesterov momentum and
gradient restarts. Noslip is the same Gauss-Seidel on the friction rows alone, without R, after any solver.
Every solver runs once per constraint island (island.py) unless islands are disabled.
"""

import math as pymath

import numpy as np
from numba import njit

from mjgym.physics import _jit
from mjgym.physics import linalg
from mjgym.physics import smooth
from mjgym.physics.constants import CNSTRSTATE_CONE
from mjgym.physics.constants import CNSTRSTATE_LINEARNEG
from mjgym.physics.constants import CNSTRSTATE_LINEARPOS
from mjgym.physics.constants import CNSTRSTATE_QUADRATIC
from mjgym.physics.constants import CNSTRSTATE_SATISFIED
from mjgym.physics.constants import CNSTR_CONTACT_ELLIPTIC
from mjgym.physics.constants import CNSTR_CONTACT_PYRAMIDAL
from mjgym.physics.constants import CNSTR_EQUALITY
from mjgym.physics.constants import CNSTR_FRICTION_DOF
from mjgym.physics.constants import CNSTR_FRICTION_TENDON
from mjgym.physics.constants import DSBL_WARMSTART
from mjgym.physics.types import MINVAL
from mjgym.physics.types import NISLAND
from mjgym.physics.types import NSOLVER
from mjgym.physics.types import SolverType



# ------------------------------------------------------------ linear algebra ----


@njit(cache=True, error_model="numpy")
def mul_m(m, d, res, vec):
  """res = M vec, from qM's sparse layout."""
  nv = m.nv
  qm = d.qM
  madr = m.dof_Madr
  parent = m.dof_parentid
  for i in range(nv):
    res[i] = qm[madr[i]] * vec[i]
  for i in range(nv):
    adr = madr[i] + 1
    j = parent[i]
    while j >= 0:
      mij = qm[adr]
      res[i] += mij * vec[j]
      res[j] += mij * vec[i]
      adr += 1
      j = parent[j]


@njit(cache=True, error_model="numpy")
def _mul_j(d, res, vec, nv):
  efc_j = d.efc_J
  for i in range(d.nefc[0]):
    res[i] = linalg.dot_row(efc_j, i, vec, nv)


@njit(cache=True, error_model="numpy")
def _mul_jt(d, res, vec, nv):
  efc_j = d.efc_J
  res[:] = 0.0
  for i in range(d.nefc[0]):
    f = vec[i]
    if f != 0.0:
      for k in range(nv):
        res[k] += efc_j[i, k] * f


# ------------------------------------------------------------- row costs ----


@njit(cache=True, error_model="numpy")
def _block_rows(d, i):
  """Rows of the contact block that starts at efc row i: its contact's dim, kept in 1..6.

  make_constraint keeps contact dims in 1..6; the bounds hold even if another dim got into the data: every loop
  over blocks advances (by at least one row an iteration, so at most nefc iterations; a dim of 0 once hung the
  solvers) and no block outgrows the solvers' 6-row scratch.
  """
  return _dim_at(d.contact_dim, d.efc_id, i)


@njit(cache=True, error_model="numpy", inline="always")
def _dim_at(contact_dim, efc_id, i):
  """_block_rows on bound arrays (the primal solver's row loops bind Data's arrays once)."""
  return min(max(contact_dim[efc_id[i]], 1), 6)


@njit(cache=True, error_model="numpy", inline="always")
def _cone_split_at(friction, c, first, dim, jar):
  """(u0, |u_t|) of an elliptic block starting at row ``first``: the normal jar and the norm of the
  friction-scaled tangential jar (friction is contact_friction, c the block's contact)."""
  t2 = 0.0
  for k in range(1, dim):
    u = friction[c, k - 1] * jar[first + k]
    t2 += u * u
  return jar[first], pymath.sqrt(t2)


@njit(cache=True, error_model="numpy")
def update_constraint(m, d):
  """efc_force, efc_state from efc_jar; returns the constraint part of the cost."""
  efc_jar = d.efc_jar
  efc_d = d.efc_D
  efc_type = d.efc_type
  efc_force = d.efc_force
  efc_state = d.efc_state
  efc_fl = d.efc_frictionloss
  efc_r = d.efc_R
  efc_id = d.efc_id
  contact_dim = d.contact_dim
  contact_mu = d.contact_mu
  friction = d.contact_friction
  cost = 0.0
  nefc = d.nefc[0]
  i = 0
  while i < nefc:
    jar = efc_jar[i]
    dd = efc_d[i]
    ctype = efc_type[i]
    if ctype == CNSTR_EQUALITY:
      efc_force[i] = -dd * jar
      efc_state[i] = CNSTRSTATE_QUADRATIC
      cost += 0.5 * dd * jar * jar
    elif ctype == CNSTR_FRICTION_DOF or ctype == CNSTR_FRICTION_TENDON:
      fl = efc_fl[i]
      r = efc_r[i]
      if jar <= -r * fl:
        efc_force[i] = fl
        efc_state[i] = CNSTRSTATE_LINEARNEG
        cost += -fl * jar - 0.5 * r * fl * fl
      elif jar >= r * fl:
        efc_force[i] = -fl
        efc_state[i] = CNSTRSTATE_LINEARPOS
        cost += fl * jar - 0.5 * r * fl * fl
      else:
        efc_force[i] = -dd * jar
        efc_state[i] = CNSTRSTATE_QUADRATIC
        cost += 0.5 * dd * jar * jar
    elif ctype == CNSTR_CONTACT_ELLIPTIC:
      c = efc_id[i]
      dim = _dim_at(contact_dim, efc_id, i)
      mu = contact_mu[c]
      u0, tn = _cone_split_at(friction, c, i, dim, efc_jar)
      if u0 >= tn:
        for k in range(dim):
          efc_force[i + k] = 0.0
          efc_state[i + k] = CNSTRSTATE_SATISFIED
      elif mu * mu * u0 + tn <= 0.0:
        for k in range(dim):
          jk = efc_jar[i + k]
          efc_force[i + k] = -efc_d[i + k] * jk
          efc_state[i + k] = CNSTRSTATE_QUADRATIC
          cost += 0.5 * efc_d[i + k] * jk * jk
      else:
        cc = dd / (1.0 + mu * mu)
        delta = u0 - tn
        cost += 0.5 * cc * delta * delta
        efc_force[i] = -cc * delta
        efc_state[i] = CNSTRSTATE_CONE
        for k in range(1, dim):
          fr = friction[c, k - 1]
          efc_force[i + k] = cc * delta * fr * fr * efc_jar[i + k] / tn
          efc_state[i + k] = CNSTRSTATE_CONE
      i += dim
      continue
    else:
      if jar < 0.0:
        efc_force[i] = -dd * jar
        efc_state[i] = CNSTRSTATE_QUADRATIC
        cost += 0.5 * dd * jar * jar
      else:
        efc_force[i] = 0.0
        efc_state[i] = CNSTRSTATE_SATISFIED
    i += 1
  return cost


@njit(cache=True, error_model="numpy")
def _line_eval(m, d, alpha, snorm_m, slope0, isl):
  """(cost, first, second derivative) of the cost at qacc + alpha * search, the Gauss part relative to
  alpha = 0, the constraint part over island isl's rows (all rows when isl < 0)."""
  efc_jar = d.efc_jar
  efc_jv = d.efc_jv
  efc_d = d.efc_D
  efc_type = d.efc_type
  efc_island = d.efc_island
  efc_fl = d.efc_frictionloss
  efc_r = d.efc_R
  efc_id = d.efc_id
  contact_dim = d.contact_dim
  contact_mu = d.contact_mu
  friction = d.contact_friction
  d1 = slope0 + alpha * snorm_m
  d2 = snorm_m
  cost = alpha * slope0 + 0.5 * alpha * alpha * snorm_m
  nefc = d.nefc[0]
  i = 0
  while i < nefc:
    if isl >= 0 and efc_island[i] != isl:
      i += 1
      continue
    jv = efc_jv[i]
    jar = efc_jar[i] + alpha * jv
    dd = efc_d[i]
    ctype = efc_type[i]
    if ctype == CNSTR_EQUALITY:
      cost += 0.5 * dd * jar * jar
      d1 += dd * jar * jv
      d2 += dd * jv * jv
    elif ctype == CNSTR_FRICTION_DOF or ctype == CNSTR_FRICTION_TENDON:
      fl = efc_fl[i]
      r = efc_r[i]
      if jar <= -r * fl:
        cost += -fl * jar - 0.5 * r * fl * fl
        d1 -= fl * jv
      elif jar >= r * fl:
        cost += fl * jar - 0.5 * r * fl * fl
        d1 += fl * jv
      else:
        cost += 0.5 * dd * jar * jar
        d1 += dd * jar * jv
        d2 += dd * jv * jv
    elif ctype == CNSTR_CONTACT_ELLIPTIC:
      c = efc_id[i]
      dim = _dim_at(contact_dim, efc_id, i)
      mu = contact_mu[c]
      u0 = jar
      du0 = jv
      t2 = 0.0
      tdt = 0.0
      dt2 = 0.0
      for k in range(1, dim):
        fr = friction[c, k - 1]
        u = fr * (efc_jar[i + k] + alpha * efc_jv[i + k])
        du = fr * efc_jv[i + k]
        t2 += u * u
        tdt += u * du
        dt2 += du * du
      tn = pymath.sqrt(t2)
      if u0 >= tn:
        pass
      elif mu * mu * u0 + tn <= 0.0:
        for k in range(dim):
          jk = efc_jar[i + k] + alpha * efc_jv[i + k]
          vk = efc_jv[i + k]
          cost += 0.5 * efc_d[i + k] * jk * jk
          d1 += efc_d[i + k] * jk * vk
          d2 += efc_d[i + k] * vk * vk
      else:
        cc = dd / (1.0 + mu * mu)
        delta = u0 - tn
        dtn = tdt / tn
        ddelta = du0 - dtn
        cost += 0.5 * cc * delta * delta
        d1 += cc * delta * ddelta
        d2 += cc * (ddelta * ddelta - delta * (dt2 - dtn * dtn) / tn)
      i += dim
      continue
    else:
      if jar < 0.0:
        cost += 0.5 * dd * jar * jar
        d1 += dd * jar * jv
        d2 += dd * jv * jv
    i += 1
  return cost, d1, d2


@njit(cache=True, error_model="numpy")
def _newton_point(m, d, p, snorm_m, slope0, c0, isl):
  """The line point one 1-D Newton step from p = (alpha, cost - cost(0), d1, d2)."""
  alpha = p[0] - p[2] / p[3]
  c, g, h = _line_eval(m, d, alpha, snorm_m, slope0, isl)
  return (alpha, c - c0, g, h)


@njit(cache=True, error_model="numpy")
def _bracket(m, d, p, cands, snorm_m, slope0, c0, isl):
  """Moves bracket end p to the candidate closest to the minimum on its side; (moved, p, p's Newton point)."""
  moved = False
  for q in cands:
    if (p[2] < 0.0 and q[2] < 0.0 and p[2] < q[2]) or (p[2] > 0.0 and q[2] > 0.0 and p[2] > q[2]):
      p = q
      moved = True
  nxt = _newton_point(m, d, p, snorm_m, slope0, c0, isl) if moved else p
  return moved, p, nxt


@njit(cache=True, error_model="numpy")
def _linesearch(m, d, scale, isl):
  """Step along d.solver_search as MuJoCo's line search takes it: Newton steps from 0, one-sided until
  the derivative changes sign, then a bracket shrunk by Newton points and midpoints, until |d cost / d alpha|
  falls below tolerance · ls_tolerance · |search| / scale. Returns (alpha, evaluations, cost decrease)."""
  nv = m.nv
  search = d.solver_search
  snorm = pymath.sqrt(linalg.dot(search, search, nv))
  if snorm < MINVAL:
    return 0.0, 0, 0.0
  mv = d.solver_Mv
  _mul_j(d, d.efc_jv, search, nv)
  mul_m(m, d, mv, search)
  snorm_m = 0.0
  slope0 = 0.0
  for k in range(nv):
    snorm_m += search[k] * mv[k]
    slope0 += search[k] * (d.solver_Ma[k] - d.qfrc_smooth[k])
  gtol = m.opt_tolerance[0] * m.opt_ls_tolerance[0] * snorm / scale
  budget = m.opt_ls_iterations[0]
  c0, g0, h0 = _line_eval(m, d, 0.0, snorm_m, slope0, isl)
  p0 = (0.0, 0.0, g0, h0)
  p1 = _newton_point(m, d, p0, snorm_m, slope0, c0, isl)
  neval = 2
  if abs(p1[2]) < gtol and (p1[0] == 0.0 or p1[1] < 0.0):
    return p1[0], neval, -p1[1]
  direction = 1.0 if p1[2] < 0.0 else -1.0
  p2 = p0
  while p1[2] * direction <= -gtol and neval < budget:
    p2 = p1
    p1 = _newton_point(m, d, p1, snorm_m, slope0, c0, isl)
    neval += 1
    if abs(p1[2]) < gtol and p1[1] < 0.0:
      return p1[0], neval, -p1[1]
  if neval >= budget:
    return p1[0], neval, -p1[1]
  p2next = p1
  p1next = _newton_point(m, d, p1, snorm_m, slope0, c0, isl)
  neval += 1
  while neval < budget:
    amid = 0.5 * (p1[0] + p2[0])
    c, g, h = _line_eval(m, d, amid, snorm_m, slope0, isl)
    pmid = (amid, c - c0, g, h)
    neval += 1
    cands = (p1next, p2next, pmid)
    best = -1
    for i in range(3):
      if abs(cands[i][2]) < gtol and (best == -1 or cands[i][1] < cands[best][1]):
        best = i
    if best >= 0:
      return cands[best][0], neval, -cands[best][1]
    moved1, p1, p1next = _bracket(m, d, p1, cands, snorm_m, slope0, c0, isl)
    moved2, p2, p2next = _bracket(m, d, p2, cands, snorm_m, slope0, c0, isl)
    neval += int(moved1) + int(moved2)
    if not moved1 and not moved2:
      return pmid[0], neval, -pmid[1]
  if p1[1] <= p2[1] and p1[1] < 0.0:
    return p1[0], neval, -p1[1]
  if p2[1] <= p1[1] and p2[1] < 0.0:
    return p2[0], neval, -p2[1]
  return 0.0, neval, 0.0


# ---------------------------------------------------------------- primal ----


@njit(cache=True, error_model="numpy")
def _gauss_cost(m, d, qacc):
  qacc_smooth = d.qacc_smooth
  ma = d.solver_Ma
  qfrc_smooth = d.qfrc_smooth
  s = 0.0
  for k in range(m.nv):
    s += 0.5 * (qacc[k] - qacc_smooth[k]) * (ma[k] - qfrc_smooth[k])
  return s


@njit(cache=True, error_model="numpy")
def _evaluate(m, d, qacc):
  """Ma, jar, forces at qacc; returns the total cost."""
  mul_m(m, d, d.solver_Ma, qacc)
  efc_jar = d.efc_jar
  efc_aref = d.efc_aref
  _mul_j(d, efc_jar, qacc, m.nv)
  for i in range(d.nefc[0]):
    efc_jar[i] -= efc_aref[i]
  return _gauss_cost(m, d, qacc) + update_constraint(m, d)


@njit(cache=True, error_model="numpy")
def _gradient(m, d):
  """grad = M qacc - qfrc_smooth - Jᵀ force."""
  qfrc = d.solver_qfrc
  _mul_jt(d, qfrc, d.efc_force, m.nv)
  grad = d.solver_grad
  ma = d.solver_Ma
  qfrc_smooth = d.qfrc_smooth
  for k in range(m.nv):
    grad[k] = ma[k] - qfrc_smooth[k] - qfrc[k]


@njit(cache=True, error_model="numpy")
def _add_rank(h, a, r, w, nv):
  """h += w a[r] a[r]ᵀ (lower triangle), without a view of row r."""
  for p in range(nv):
    jp = a[r, p]
    if jp == 0.0:
      continue
    for q in range(p + 1):
      h[p, q] += w * jp * a[r, q]


@njit(cache=True, error_model="numpy")
def _hessian(m, d):
  """solver_H = Cholesky factor of M + Jᵀ ∂²s J at the current states."""
  nv = m.nv
  h = d.solver_H
  smooth.full_m(m, d.qM, h)
  tmp = d.solver_hrow
  efc_j = d.efc_J
  efc_d = d.efc_D
  efc_jar = d.efc_jar
  efc_state = d.efc_state
  efc_type = d.efc_type
  efc_id = d.efc_id
  contact_dim = d.contact_dim
  contact_mu = d.contact_mu
  friction = d.contact_friction
  nefc = d.nefc[0]
  i = 0
  while i < nefc:
    state = efc_state[i]
    if efc_type[i] == CNSTR_CONTACT_ELLIPTIC:
      c = efc_id[i]
      dim = _dim_at(contact_dim, efc_id, i)
      if state == CNSTRSTATE_QUADRATIC:
        for k in range(dim):
          _add_rank(h, efc_j, i + k, efc_d[i + k], nv)
      elif state == CNSTRSTATE_CONE:
        # ∂²s/∂u² = c [v vᵀ - (δ / T) (0 ⊕ (I - û ûᵀ))], v = (1, -û), mapped by u = S jar
        mu = contact_mu[c]
        cc = efc_d[i] / (1.0 + mu * mu)
        u0, tn = _cone_split_at(friction, c, i, dim, efc_jar)
        delta = u0 - tn
        # v-term: rank one along J₀ - Σ ûₖ μₖ Jₖ
        for p in range(nv):
          s = efc_j[i, p]
          for k in range(1, dim):
            fr = friction[c, k - 1]
            s -= (fr * efc_jar[i + k] / tn) * fr * efc_j[i + k, p]
          tmp[0, p] = s
        _add_rank(h, tmp, 0, cc, nv)
        # curvature of |u_t|: (-δ / T)(Σ μₖ² Jₖ Jₖᵀ - (Σ ûₖ μₖ Jₖ)(...)ᵀ)
        w = -cc * delta / tn
        for k in range(1, dim):
          fr = friction[c, k - 1]
          _add_rank(h, efc_j, i + k, w * fr * fr, nv)
        for p in range(nv):
          s = 0.0
          for k in range(1, dim):
            fr = friction[c, k - 1]
            s += (fr * efc_jar[i + k] / tn) * fr * efc_j[i + k, p]
          tmp[0, p] = s
        _add_rank(h, tmp, 0, -w, nv)
      i += dim
      continue
    if state == CNSTRSTATE_QUADRATIC:
      _add_rank(h, efc_j, i, efc_d[i], nv)
    i += 1
  for p in range(nv):
    for q in range(p + 1, nv):
      h[p, q] = 0.0
  linalg.cholesky(h, nv)


@njit(cache=True, error_model="numpy")
def _precondition(m, d, newton, rebuild):
  """Mgrad = M⁻¹ grad (CG, the certificate), or H⁻¹ grad (Newton), rebuilding H first when ``rebuild``."""
  mgrad = d.solver_Mgrad
  mgrad[:] = d.solver_grad
  if newton:
    if rebuild:
      _hessian(m, d)
    linalg.cholesky_solve(d.solver_H, m.nv, mgrad)
  else:
    smooth.solve_m(m, d, mgrad, mgrad)


@njit(cache=True, error_model="numpy")
def _hessian_stale(d):
  """Whether the Newton Hessian must be rebuilt: a row changed state since it was built, or a row is in an
  elliptic cone's middle zone (whose curvature moves with jar). Either way the states are saved as those of
  the Hessian about to be built. Otherwise H = M + Jᵀ ∂²s J is the very matrix already factored (M, J and D
  do not change within a solve), so keeping the factor gives the same bits as rebuilding it."""
  efc_state = d.efc_state
  saved = d.solver_state_h
  stale = False
  for i in range(d.nefc[0]):
    state = efc_state[i]
    if state != saved[i] or state == CNSTRSTATE_CONE:
      stale = True
    saved[i] = state
  return stale


@njit(cache=True, error_model="numpy")
def _primal(m, d, newton):
  """Newton (newton=True) or CG on the primal problem; leaves qacc, efc_force, efc_state."""
  nv = m.nv
  qacc = d.qacc
  # warm start: the better of last step's qacc and the unconstrained one
  qacc[:] = d.qacc_smooth
  cost = _evaluate(m, d, qacc)
  if not (m.opt_disableflags[0] & DSBL_WARMSTART):
    if _evaluate(m, d, d.qacc_warmstart) <= cost:  # a tie keeps the warm start, as MuJoCo does
      qacc[:] = d.qacc_warmstart
    else:
      _evaluate(m, d, qacc)  # rows and forces back at qacc_smooth
  nisland = d.nisland[0]
  if nisland == 0:
    _primal_island(m, d, newton, -1)
  else:
    # trees no row touches move freely; each island is its own problem, with its own stopping test
    dof_island = d.dof_island
    qacc_smooth = d.qacc_smooth
    moved = False
    for k in range(nv):
      if dof_island[k] < 0:
        a, b = qacc[k], qacc_smooth[k]
        if a != b or pymath.copysign(1.0, a) != pymath.copysign(1.0, b):
          moved = True
        qacc[k] = b
    if moved:
      # (when no free dof moved, the rows and forces are already those at qacc: the same arithmetic would
      # give the same bits)
      _evaluate(m, d, qacc)
    for isl in range(nisland):
      _primal_island(m, d, newton, isl)
  _mul_jt(d, d.qfrc_constraint, d.efc_force, nv)


@njit(cache=True, error_model="numpy")
def _island_gradient(m, d, isl):
  """The cost gradient, zero outside island isl's dofs (everywhere kept when isl < 0)."""
  _gradient(m, d)
  if isl >= 0:
    dof_island = d.dof_island
    grad = d.solver_grad
    for k in range(m.nv):
      if dof_island[k] != isl:
        grad[k] = 0.0


@njit(cache=True, error_model="numpy")
def _primal_island(m, d, newton, isl):
  """Newton or CG iterations on island isl (all rows and dofs when isl < 0), from the current qacc."""
  nv = m.nv
  qacc = d.qacc
  scale = _scale(m, d, isl)
  tolerance = m.opt_tolerance[0]
  grad = d.solver_grad
  mgrad = d.solver_Mgrad
  search = d.solver_search
  ma = d.solver_Ma
  mv = d.solver_Mv
  efc_jar = d.efc_jar
  efc_jv = d.efc_jv
  # already optimal at the start (MuJoCo's certificate): small gap in the M⁻¹ norm, and for Newton a small
  # gradient and Newton decrement
  _island_gradient(m, d, isl)
  small_gradient = scale * pymath.sqrt(linalg.dot(grad, grad, nv)) < tolerance
  done = False
  if not newton or small_gradient:
    # (Newton with a large gradient cannot be done: the M⁻¹ gap is not needed, the Hessian's solve follows)
    _precondition(m, d, False, False)
    done = max(0.0, 0.5 * scale * linalg.dot(grad, mgrad, nv)) < tolerance
  if not done and newton:
    _hessian_stale(d)  # saves the states the Hessian is built at
    _precondition(m, d, True, True)
    done = small_gradient and max(0.0, 0.5 * scale * linalg.dot(grad, mgrad, nv)) < tolerance
  for k in range(nv):
    search[k] = -mgrad[k]
  niter = 0
  while not done and niter < m.opt_iterations[0]:
    alpha, neval, decrease = _linesearch(m, d, scale, isl)
    if alpha == 0.0:
      break
    for k in range(nv):
      qacc[k] += alpha * search[k]
      ma[k] += alpha * mv[k]
    for i in range(d.nefc[0]):
      efc_jar[i] += alpha * efc_jv[i]
    if not newton:
      d.solver_grad_old[:] = grad
      d.solver_Mgrad_old[:] = mgrad
    update_constraint(m, d)
    _island_gradient(m, d, isl)
    _precondition(m, d, newton, newton and _hessian_stale(d))
    improvement = scale * decrease
    gradient = scale * pymath.sqrt(linalg.dot(grad, grad, nv))
    if isl <= 0:
      _stats(d, niter, improvement, gradient, neval)
    decrement = max(0.0, 0.5 * scale * linalg.dot(grad, mgrad, nv)) if newton else 0.0
    niter += 1
    if 0.0 < improvement < tolerance or gradient < tolerance or (newton and decrement < tolerance):
      break
    if newton:
      for k in range(nv):
        search[k] = -mgrad[k]
    else:
      _cg_direction(m, d)
  if isl < NISLAND:
    d.solver_niter[max(isl, 0)] = niter


@njit(cache=True, error_model="numpy")
def _cg_direction(m, d):
  """Hager-Zhang conjugate direction in the M⁻¹ metric, bounded below as Hager and Zhang do (η = 0.01)."""
  nv = m.nv
  grad = d.solver_grad
  mgrad = d.solver_Mgrad
  search = d.solver_search
  y = d.solver_dgrad
  my = d.solver_dMgrad
  for k in range(nv):
    y[k] = grad[k] - d.solver_grad_old[k]
    my[k] = mgrad[k] - d.solver_Mgrad_old[k]
  d_y = linalg.dot(search, y, nv)
  beta = 0.0
  if d_y >= MINVAL:
    beta_hz = (linalg.dot(y, mgrad, nv) - 2.0 * (linalg.dot(y, my, nv) / d_y) * linalg.dot(search, grad, nv)) / d_y
    eta = -1.0 / max(MINVAL, pymath.sqrt(linalg.dot(search, search, nv))
                     * min(0.01, pymath.sqrt(linalg.dot(grad, grad, nv))))
    beta = max(eta, beta_hz)
  for k in range(nv):
    search[k] = -mgrad[k] + beta * search[k]


@njit(cache=True, error_model="numpy")
def _stats(d, it, improvement, gradient, neval):
  if it < NSOLVER:
    d.solver_improvement[it] = improvement
    d.solver_gradient[it] = gradient
    d.solver_neval[it] = neval
    nactive = 0
    efc_state = d.efc_state
    for i in range(d.nefc[0]):
      if efc_state[i] != CNSTRSTATE_SATISFIED:
        nactive += 1
    d.solver_nactive[it] = nactive


# ------------------------------------------------------------------ dual ----
#
# The dual solvers work on AR = A + R = J M⁻¹ Jᵀ + diag(R), formed as Y Yᵀ + R with Y = J L⁻ᵀ D^-½ from the
# factor of M, and visit rows through a list (an island's rows, or all of them): list position c is row
# rows[c]. Sums follow MuJoCo's order of operations, so that iterates agree with its to rounding.


@njit(cache=True, error_model="numpy")
def _make_ar(m, d):
  """efc_Y rows <- Y; efc_AR = Y Yᵀ + R when the rows fit in it (else _ar_row recomputes rows)."""
  nv = m.nv
  nefc = d.nefc[0]
  y = d.efc_Y
  ld = d.qLD
  efc_j = d.efc_J
  madr = m.dof_Madr
  # D^-½, once per solve rather than once per row and dof (the same value: 1 / sqrt of the same pivot)
  dinv = d.solver_dinvsqrt
  for k in range(nv):
    dinv[k] = 1.0 / pymath.sqrt(ld[madr[k]])
  for i in range(nefc):
    row = y[i]
    for k in range(nv):
      row[k] = efc_j[i, k]
    smooth.solve_lt(m, ld, row)
    for k in range(nv):
      row[k] *= dinv[k]
  if nefc > d.efc_AR.shape[0]:
    return
  ar = d.efc_AR
  efc_r = d.efc_R
  for i in range(nefc):
    for j in range(i + 1):
      # _ar_entry(y, i, j, nv), written out: as a call it passed y on the stack for every entry
      s = 0.0
      for k in range(nv):
        if y[i, k] != 0.0:
          s += y[j, k] * y[i, k]
      ar[i, j] = s
    ar[i, i] += efc_r[i]
  for i in range(nefc):
    for j in range(i + 1, nefc):
      ar[i, j] = ar[j, i]


@njit(cache=True, error_model="numpy")
def _ar_entry(y, i, j, nv):
  """(Y Yᵀ)[i, j] of y = efc_Y, summed over dofs in order."""
  s = 0.0
  for k in range(nv):
    if y[i, k] != 0.0:
      s += y[j, k] * y[i, k]
  return s


@njit(cache=True, error_model="numpy")
def _ar_row(m, d, i):
  """Row i of AR (nefc,): the stored one, or recomputed into scratch when AR did not fit."""
  nefc = d.nefc[0]
  if nefc <= d.efc_AR.shape[0]:
    return d.efc_AR[i]
  row = d.solver_ARrow
  for j in range(nefc):
    row[j] = _ar_entry(d.efc_Y, max(i, j), min(i, j), m.nv)
  row[i] += d.efc_R[i]
  return row


@njit(cache=True, error_model="numpy")
def _residual(m, d, res, i, dim, sub_r):
  """res[:dim] = b + AR f on rows i.., without the R f term when sub_r."""
  nefc = d.nefc[0]
  for j in range(dim):
    res[j] = d.efc_b[i + j] + linalg.dot(_ar_row(m, d, i + j), d.efc_force, nefc)
    if sub_r:
      res[j] -= d.efc_R[i + j] * d.efc_force[i + j]


@njit(cache=True, error_model="numpy")
def _block(m, d, ac, start, n, sub_r):
  """ac[:n, :n] = AR[start:start+n, start:start+n]; without R (diagonal kept ≥ 1e-10) when sub_r."""
  for j in range(n):
    row = _ar_row(m, d, start + j)
    for k in range(n):
      ac[j, k] = row[start + k]
    if sub_r:
      ac[j, j] = max(1e-10, ac[j, j] - d.efc_R[start + j])


@njit(cache=True, error_model="numpy")
def _cost_change(a, force, old, res, first, dim, dvec):
  """Change of the dual cost from moving force[first:first+dim] away from old; undoes moves that raise it."""
  if dim == 1:
    delta = force[first] - old[0]
    change = 0.5 * delta * delta * a[0, 0] + delta * res[0]
  else:
    for k in range(dim):
      dvec[k] = force[first + k] - old[k]
    quad = 0.0
    for k in range(dim):
      quad += dvec[k] * linalg.dot(a[k], dvec, dim)
    change = 0.5 * quad + linalg.dot(dvec, res, dim)
  if change > 1e-10:
    for k in range(dim):
      force[first + k] = old[k]
    change = 0.0
  return change


@njit(cache=True, error_model="numpy")
def _dual_state(d, ne, nf, nefc, rows):
  """efc_state of the current dual forces on the listed rows; returns the number of active rows."""
  f = d.efc_force
  state = d.efc_state
  etype = d.efc_type
  floss = d.efc_frictionloss
  nactive = ne + nf
  for c in range(ne):
    state[rows[c]] = CNSTRSTATE_QUADRATIC
  for c in range(ne, ne + nf):
    i = rows[c]
    fl = floss[i]
    if f[i] <= -fl:
      state[i] = CNSTRSTATE_LINEARPOS
    elif f[i] >= fl:
      state[i] = CNSTRSTATE_LINEARNEG
    else:
      state[i] = CNSTRSTATE_QUADRATIC
  c = ne + nf
  while c < nefc:
    i = rows[c]
    if etype[i] != CNSTR_CONTACT_ELLIPTIC:
      if f[i] <= 0.0:
        state[i] = CNSTRSTATE_SATISFIED
      else:
        state[i] = CNSTRSTATE_QUADRATIC
        nactive += 1
      c += 1
      continue
    con = d.efc_id[i]
    dim = _block_rows(d, i)
    mu = d.contact_mu[con]
    fn = f[i] / mu
    t2 = 0.0
    for k in range(1, dim):
      ft = f[i + k] / d.contact_friction[con, k - 1]
      t2 += ft * ft
    t = pymath.sqrt(t2)
    if mu * fn >= t:
      cone_state = CNSTRSTATE_SATISFIED
    elif fn + mu * t <= 0.0:
      cone_state = CNSTRSTATE_QUADRATIC
      nactive += dim
    else:
      cone_state = CNSTRSTATE_CONE
      nactive += dim
    for k in range(dim):
      state[i + k] = cone_state
    c += dim
  return nactive


@njit(cache=True, error_model="numpy")
def _scale(m, d, isl):
  """The scale of costs and gradients in the stopping tests: 1 / (mean inertia · nv) for the whole problem
  (isl < 0), and for island isl 1 / (sum of its dofs' diagonal of M at the current state), as MuJoCo 4."""
  if isl < 0:
    return 1.0 / (m.stat_meaninertia[0] * max(1, m.nv))
  inertia = 0.0
  dof_island = d.dof_island
  qm = d.qM
  madr = m.dof_Madr
  for k in range(m.nv):
    if dof_island[k] == isl:
      inertia += qm[madr[k]]
  return 1.0 / inertia


@njit(cache=True, error_model="numpy")
def _dual_start(m, d, ne, nf, nefc, rows, sub_r, island):
  """Start of a dual sweep over the listed rows: solver_arinv[c] = 1 / AR diagonal (without R, floored at
  MINVAL, when sub_r), efc_state of the current forces; returns the cost scale."""
  arinv = d.solver_arinv
  for c in range(nefc):
    i = rows[c]
    diag = _ar_row(m, d, i)[i]
    arinv[c] = 1.0 / (max(MINVAL, diag - d.efc_R[i]) if sub_r else diag)
  _dual_state(d, ne, nf, nefc, rows)
  return _scale(m, d, island if d.nisland[0] > 0 else -1)


@njit(cache=True, error_model="numpy")
def _state_change(d, ne, nf, nefc, rows):
  """_dual_state, also counting the rows whose state changed; returns (nactive, nchange)."""
  old = d.solver_state_old
  state = d.efc_state
  for c in range(nefc):
    old[c] = state[rows[c]]
  nactive = _dual_state(d, ne, nf, nefc, rows)
  nchange = 0
  for c in range(nefc):
    if old[c] != state[rows[c]]:
      nchange += 1
  return nactive, nchange


@njit(cache=True, error_model="numpy")
def _stats_dual(d, it, improvement, nactive, nchange):
  if it < NSOLVER:
    d.solver_improvement[it] = improvement
    d.solver_gradient[it] = 0.0
    d.solver_neval[it] = 0
    d.solver_nactive[it] = nactive
    d.solver_nchange[it] = nchange


@njit(cache=True, error_model="numpy")
def _scale_ellipsoid(fric, first, n, normal, mu, feasible):
  """Scales fric[first:first+n] onto (feasible: into) the ellipsoid Σ (fₖ / μₖ)² ≤ normal²."""
  s = 0.0
  for k in range(n):
    s += fric[first + k] * fric[first + k] / (mu[k] * mu[k])
  n2 = normal * normal
  if not feasible or s > n2:
    scl = pymath.sqrt(n2 / max(MINVAL, s))
    for k in range(n):
      fric[first + k] *= scl


@njit(cache=True, error_model="numpy")
def _qcqp(d, res, a, b, mu, r, n):
  """min ½ xᵀ A x + bᵀ x subject to Σ (xₖ / μₖ)² ≤ r², by Newton's method on the multiplier of the scaled
  problem (x = μ ∘ z, |z| ≤ r); res[:n] = x. Returns whether the constraint is active."""
  sa, sb, lf, dx = d.solver_qcqp_A, d.solver_qcqp_b, d.solver_qcqp_L, d.solver_qcqp_dx
  for p in range(n):
    sb[p] = b[p] * mu[p]
    for q in range(n):
      sa[p, q] = a[p, q] * mu[p] * mu[q]
  la = 0.0
  for _ in range(20):
    for p in range(n):
      for q in range(n):
        lf[p, q] = sa[p, q]
      lf[p, p] += la
    if linalg.cholesky_rank(lf, n) < n:
      for p in range(n):
        res[p] = 0.0
      return False
    linalg.cholesky_solve_floored(lf, n, sb, res)
    for p in range(n):
      res[p] = -res[p]
    val = linalg.dot(res, res, n) - r * r
    if val < 1e-10:
      break
    linalg.cholesky_solve_floored(lf, n, res, dx)
    deriv = -2.0 * linalg.dot(res, dx, n)
    delta = -val / deriv
    if delta < 1e-10:
      break
    la += delta
  for p in range(n):
    res[p] *= mu[p]
  return la != 0.0


@njit(cache=True, error_model="numpy")
def _friction_qcqp(d, force, i, dim, ac, bc):
  """Friction of elliptic block i given its normal force: the QCQP, its answer put on the ellipsoid when
  the constraint binds."""
  con = d.efc_id[i]
  mu = d.contact_friction[con]
  v = d.solver_fric
  if _qcqp(d, v, ac, bc, mu, force[i], dim - 1):
    _scale_ellipsoid(v, 0, dim - 1, force[i], mu, False)
  for k in range(dim - 1):
    force[i + 1 + k] = v[k]


@njit(cache=True, error_model="numpy")
def _project_elliptic(d, i, dim):
  """Force of an elliptic contact block back into its cone."""
  f = d.efc_force
  if f[i] < 0.0:
    for k in range(dim):
      f[i + k] = 0.0
  else:
    _scale_ellipsoid(f, i + 1, dim - 1, f[i], d.contact_friction[d.efc_id[i]], True)


@njit(cache=True, error_model="numpy")
def _pcg32(state):
  """(next 32-bit output, next state) of the PCG32 generator with increment 1 (the order PGS visits blocks)."""
  nxt = state * np.uint64(6364136223846793005) + np.uint64(1)
  xs = (((state >> np.uint64(18)) ^ state) >> np.uint64(27)) & np.uint64(0xFFFFFFFF)
  rot = state >> np.uint64(59)
  return ((xs >> rot) | (xs << ((np.uint64(32) - rot) & np.uint64(31)))) & np.uint64(0xFFFFFFFF), nxt


@njit(cache=True, error_model="numpy")
def _pgs_scalar(ar, efc_b, force, fl, state, rows, blocks, arinv, ardiag, prev, mom, old_state, ne, nf, nefc,
                nefc_all, maxiter, tolerance, scale, improvements, gradients, nevals, nactives, nchanges):
  """_pgs's iterations when every row is a single row (no elliptic block) and AR is stored: momentum, shuffle,
  sweep, efc_state, statistics (into the given arrays, empty for islands other than 0) and restart test, as
  _pgs's general loop does them, in one function of arrays and scalars so that its loops keep their values in
  registers. Returns the number of iterations."""
  rng = np.uint64(0)
  _, rng = _pcg32(rng)
  it = 0
  k_nesterov = 0
  nstats = improvements.shape[0]
  while it < maxiter:
    beta = (k_nesterov - 1) / (k_nesterov + 2) if it > 0 else 0.0
    if beta > 0.0:
      for c in range(nefc):
        i = rows[c]
        f0 = force[i]
        force[i] += beta * (force[i] - prev[c])
        prev[c] = f0
      for c in range(ne, ne + nf):
        i = rows[c]
        force[i] = min(max(force[i], -fl[i]), fl[i])
      for c in range(ne + nf, nefc):
        i = rows[c]
        if force[i] < 0.0:
          force[i] = 0.0
    else:
      for c in range(nefc):
        prev[c] = force[rows[c]]
    for c in range(nefc):
      mom[c] = force[rows[c]]
    for b in range(nefc - 1, 0, -1):
      r, rng = _pcg32(rng)
      j = int(np.uint32(r) % np.uint32(b + 1))  # 32-bit, as the generator's output: a cheaper division
      blocks[b], blocks[j] = blocks[j], blocks[b]
    # one sweep in the shuffled order: each row's update with AR's diagonal from ardiag (1 / arinv, computed once
    # per solve), written out here so that the loop keeps its values in registers
    improvement = 0.0
    for b in range(nefc):
      c = blocks[b]
      i = rows[c]
      # linalg.dot_row(ar, i, force, nefc_all), written out: called from another module it stays a call (both
      # arrays passed field by field on the stack, a status word tested) and, inlined by numba, it brings
      # reference-count tests whose calls make the loop spill
      s0 = s1 = s2 = s3 = 0.0
      k = 0
      while k + 4 <= nefc_all:
        s0 += ar[i, k] * force[k]
        s1 += ar[i, k + 1] * force[k + 1]
        s2 += ar[i, k + 2] * force[k + 2]
        s3 += ar[i, k + 3] * force[k + 3]
        k += 4
      dot = (s0 + s2) + (s1 + s3)
      left = nefc_all - k
      if left == 3:
        dot += ar[i, k] * force[k] + ar[i, k + 1] * force[k + 1] + ar[i, k + 2] * force[k + 2]
      elif left == 2:
        dot += ar[i, k] * force[k] + ar[i, k + 1] * force[k + 1]
      elif left == 1:
        dot += ar[i, k] * force[k]
      res = efc_b[i] + dot
      f0 = force[i]
      fi = f0 - res * arinv[c]
      if ne <= c < ne + nf:
        fi = min(max(fi, -fl[i]), fl[i])
      elif c >= ne + nf and fi < 0.0:
        fi = 0.0
      delta = fi - f0
      change = 0.5 * delta * delta * ardiag[c] + delta * res
      if change > 1e-10:
        fi = f0
        change = 0.0
      force[i] = fi
      improvement -= change
    # efc_state of the new forces (_dual_state's single-row cases), counting active rows and changes
    nactive = ne + nf
    nchange = 0
    for c in range(nefc):
      i = rows[c]
      old_state[c] = state[i]
      if c < ne:
        st = CNSTRSTATE_QUADRATIC
      elif c < ne + nf:
        if force[i] <= -fl[i]:
          st = CNSTRSTATE_LINEARPOS
        elif force[i] >= fl[i]:
          st = CNSTRSTATE_LINEARNEG
        else:
          st = CNSTRSTATE_QUADRATIC
      elif force[i] <= 0.0:
        st = CNSTRSTATE_SATISFIED
      else:
        st = CNSTRSTATE_QUADRATIC
        nactive += 1
      state[i] = st
      if old_state[c] != st:
        nchange += 1
    improvement *= scale
    if it < nstats:
      improvements[it] = improvement
      gradients[it] = 0.0
      nevals[it] = 0
      nactives[it] = nactive
      nchanges[it] = nchange
    if it > 0:
      along = 0.0
      for c in range(nefc):
        along += (force[rows[c]] - mom[c]) * (mom[c] - prev[c])
      k_nesterov = 0 if along < 0.0 else k_nesterov + 1
    else:
      k_nesterov += 1
    it += 1
    if improvement < tolerance:
      break
  return it


@njit(cache=True, error_model="numpy")
def _pgs(m, d, ne, nf, nefc, rows, island):
  """Projected Gauss-Seidel over the listed rows, one row or elliptic block at a time in a shuffled order,
  with Nesterov momentum and gradient restarts; efc_force in, efc_force and efc_state out."""
  force = d.efc_force
  fl = d.efc_frictionloss
  arinv = d.solver_arinv
  prev = d.solver_prev
  mom = d.solver_mom
  blocks = d.solver_blocks
  res = d.solver_res
  old = d.solver_old
  v = d.solver_ray
  v1 = d.solver_ARray
  bc = d.solver_bc
  dvec = d.solver_dforce
  athis = d.solver_Ablock
  ac = d.solver_Asub
  etype = d.efc_type
  efc_b = d.efc_b
  ar = d.efc_AR
  nefc_all = d.nefc[0]
  ar_stored = nefc_all <= ar.shape[0]
  scale = _dual_start(m, d, ne, nf, nefc, rows, False, island)
  for c in range(nefc):
    prev[c] = force[rows[c]]
  nblocks = 0
  elliptic = False
  c = 0
  while c < nefc:
    blocks[nblocks] = c
    nblocks += 1
    i = rows[c]
    if d.efc_type[i] == CNSTR_CONTACT_ELLIPTIC:
      elliptic = True
      c += _block_rows(d, i)
    else:
      c += 1
  # rows only (no elliptic block) with AR stored: the iterations are _pgs_scalar's
  scalar = ar_stored and not elliptic
  ardiag = d.solver_ardiag
  if scalar:
    for c in range(nefc):
      ardiag[c] = 1.0 / arinv[c]
  maxiter = m.opt_iterations[0]
  tolerance = m.opt_tolerance[0]
  if scalar:
    nstats = NSOLVER if island == 0 else 0
    it = _pgs_scalar(ar, efc_b, force, fl, d.efc_state, rows, blocks, arinv, ardiag, prev, mom, d.solver_state_old,
                     ne, nf, nefc, nefc_all, maxiter, tolerance, scale, d.solver_improvement[:nstats],
                     d.solver_gradient[:nstats], d.solver_neval[:nstats], d.solver_nactive[:nstats],
                     d.solver_nchange[:nstats])
    if island < NISLAND:
      d.solver_niter[island] += it
    return
  # a fixed seed each call: the same problem is always visited in the same orders
  _, rng = _pcg32(np.uint64(0))
  it = 0
  k_nesterov = 0
  while it < maxiter:
    # momentum: extrapolate along the last step, then back into the feasible set
    beta = (k_nesterov - 1) / (k_nesterov + 2) if it > 0 else 0.0
    if beta > 0.0:
      for c in range(nefc):
        i = rows[c]
        f0 = force[i]
        force[i] += beta * (force[i] - prev[c])
        prev[c] = f0
      for c in range(ne, ne + nf):
        i = rows[c]
        force[i] = min(max(force[i], -fl[i]), fl[i])
      c = ne + nf
      while c < nefc:
        i = rows[c]
        if etype[i] != CNSTR_CONTACT_ELLIPTIC:
          if force[i] < 0.0:
            force[i] = 0.0
          c += 1
        else:
          dim = _block_rows(d, i)
          _project_elliptic(d, i, dim)
          c += dim
    else:
      for c in range(nefc):
        prev[c] = force[rows[c]]
    for c in range(nefc):
      mom[c] = force[rows[c]]
    improvement = 0.0
    for b in range(nblocks - 1, 0, -1):
      r, rng = _pcg32(rng)
      j = int(np.uint32(r) % np.uint32(b + 1))  # 32-bit, as the generator's output: a cheaper division
      blocks[b], blocks[j] = blocks[j], blocks[b]
    for b in range(nblocks):
      c = blocks[b]
      i = rows[c]
      elliptic = etype[i] == CNSTR_CONTACT_ELLIPTIC
      dim = _block_rows(d, i) if elliptic else 1
      if ar_stored:
        for j in range(dim):
          res[j] = efc_b[i + j] + linalg.dot_row(ar, i + j, force, nefc_all)
      else:
        _residual(m, d, res, i, dim, False)
      if not elliptic:
        # one row: the update and the dim-1 case of _cost_change on scalars, so that the force stays in a register
        # instead of going through memory that the compiler must assume the scratch arrays alias
        f0 = force[i]
        fi = f0 - res[0] * arinv[c]
        if ne <= c < ne + nf:
          fi = min(max(fi, -fl[i]), fl[i])
        elif c >= ne + nf and fi < 0.0:
          fi = 0.0
        delta = fi - f0
        change = 0.5 * delta * delta * (1.0 / arinv[c]) + delta * res[0]
        if change > 1e-10:
          fi = f0
          change = 0.0
        force[i] = fi
        improvement -= change
        continue
      # elliptic block
      for k in range(dim):
        old[k] = force[i + k]
      _block(m, d, athis, i, dim, False)
      if force[i] < MINVAL:
        # normal update from zero normal force; friction cleared
        force[i] = max(0.0, force[i] - res[0] * arinv[c])
        for k in range(1, dim):
          force[i + k] = 0.0
      else:
        # ray update: scale the whole block along itself
        for k in range(dim):
          v[k] = force[i + k]
        for k in range(dim):
          v1[k] = linalg.dot(athis[k], v, dim)
        denom = linalg.dot(v, v1, dim)
        if denom >= MINVAL:
          x = -linalg.dot(v, res, dim) / denom
          if force[i] + x * v[0] < 0.0:
            x = -v[0] / force[i]
          for k in range(dim):
            force[i + k] += x * v[k]
      # friction with the normal force fixed
      for p in range(dim - 1):
        for q in range(dim - 1):
          ac[p, q] = athis[p + 1, q + 1]
        bc[p] = res[p + 1] - linalg.dot(ac[p], old[1:], dim - 1) + athis[p + 1, 0] * (force[i] - old[0])
      if force[i] < MINVAL:
        for k in range(1, dim):
          force[i + k] = 0.0
      else:
        _friction_qcqp(d, force, i, dim, ac, bc)
      improvement -= _cost_change(athis, force, old, res, i, dim, dvec)
    nactive, nchange = _state_change(d, ne, nf, nefc, rows)
    improvement *= scale
    if island == 0:
      _stats_dual(d, it, improvement, nactive, nchange)
    if it > 0:
      # restart momentum when this sweep's correction opposes the extrapolation
      along = 0.0
      for c in range(nefc):
        along += (force[rows[c]] - mom[c]) * (mom[c] - prev[c])
      k_nesterov = 0 if along < 0.0 else k_nesterov + 1
    else:
      k_nesterov += 1
    it += 1
    if improvement < tolerance:
      break
  if island < NISLAND:
    d.solver_niter[island] += it


@njit(cache=True, error_model="numpy")
def _noslip(m, d, ne, nf, nefc, rows, island):
  """MuJoCo's noslip post-solver: Gauss-Seidel on the friction rows only (dry friction, pyramid edge pairs,
  elliptic friction blocks with the normal force fixed), without the regularizer R."""
  force = d.efc_force
  fl = d.efc_frictionloss
  arinv = d.solver_arinv
  res = d.solver_res
  old = d.solver_old
  bc = d.solver_bc
  dvec = d.solver_dforce
  ac = d.solver_Asub
  scale = _dual_start(m, d, ne, nf, nefc, rows, True, island)
  start = d.solver_niter[island] if island < NISLAND else 0
  it = 0
  while it < m.opt_noslip_iterations[0]:
    improvement = 0.0
    if it == 0:
      for c in range(nefc):
        i = rows[c]
        improvement += 0.5 * force[i] * force[i] * d.efc_R[i]
    for c in range(ne, ne + nf):
      i = rows[c]
      _residual(m, d, res, i, 1, True)
      old[0] = force[i]
      force[i] = min(max(force[i] - res[0] * arinv[c], -fl[i]), fl[i])
      delta = force[i] - old[0]
      improvement -= 0.5 * delta * delta / arinv[c] + delta * res[0]
    c = ne + nf
    while c < nefc:
      i = rows[c]
      ctype = d.efc_type[i]
      if ctype == CNSTR_CONTACT_PYRAMIDAL:
        dim = _block_rows(d, i)
        # each pair of opposing pyramid edges: redistribute their sum, which fixes the normal force
        for j in range(i, i + 2 * (dim - 1), 2):
          _residual(m, d, res, j, 2, True)
          old[0] = force[j]
          old[1] = force[j + 1]
          _block(m, d, ac, j, 2, True)
          for p in range(2):
            bc[p] = res[p] - linalg.dot(ac[p], old, 2)
          mid = 0.5 * (force[j] + force[j + 1])
          k1 = ac[0, 0] + ac[1, 1] - ac[0, 1] - ac[1, 0]
          k0 = mid * (ac[0, 0] - ac[1, 1]) + bc[0] - bc[1]
          if k1 < MINVAL:
            force[j] = force[j + 1] = mid
          else:
            y = -k0 / k1
            if y < -mid:
              force[j] = 0.0
              force[j + 1] = 2.0 * mid
            elif y > mid:
              force[j] = 2.0 * mid
              force[j + 1] = 0.0
            else:
              force[j] = mid + y
              force[j + 1] = mid - y
          improvement -= _cost_change(ac, force, old, res, j, 2, dvec)
        c += max(1, 2 * (dim - 1))
      elif ctype == CNSTR_CONTACT_ELLIPTIC:
        dim = _block_rows(d, i)
        _residual(m, d, res, i + 1, dim - 1, True)
        for k in range(dim - 1):
          old[k] = force[i + 1 + k]
        _block(m, d, ac, i + 1, dim - 1, True)
        for p in range(dim - 1):
          bc[p] = res[p] - linalg.dot(ac[p], old, dim - 1)
        if force[i] < MINVAL:
          for k in range(1, dim):
            force[i + k] = 0.0
        else:
          _friction_qcqp(d, force, i, dim, ac, bc)
        improvement -= _cost_change(ac, force, old, res, i + 1, dim - 1, dvec)
        c += dim
      else:
        c += 1
    nactive, nchange = _state_change(d, ne, nf, nefc, rows)
    improvement *= scale
    if island == 0:
      _stats_dual(d, start + it, improvement, nactive, nchange)
    it += 1
    if improvement < m.opt_noslip_tolerance[0]:
      break
  if island < NISLAND:
    d.solver_niter[island] += it


@njit(cache=True, error_model="numpy")
def _pgs_warmstart(m, d):
  """efc_force from last step's qacc (the primal forces there), or zero when those raise the dual cost."""
  nefc = d.nefc[0]
  f = d.efc_force
  if m.opt_disableflags[0] & DSBL_WARMSTART:
    d.qacc[:] = d.qacc_smooth
    f[:nefc] = 0.0
    return
  d.qacc[:] = d.qacc_warmstart
  _mul_j(d, d.efc_jar, d.qacc_warmstart, m.nv)
  for i in range(nefc):
    d.efc_jar[i] -= d.efc_aref[i]
  update_constraint(m, d)
  arf = d.solver_arf
  ar = d.efc_AR
  stored = nefc <= ar.shape[0]
  for i in range(nefc):
    # the stored row read in place (dot_row: dot's order, without a row view)
    arf[i] = linalg.dot_row(ar, i, f, nefc) if stored else linalg.dot(_ar_row(m, d, i), f, nefc)
  if linalg.dot(f, d.efc_b, nefc) + 0.5 * linalg.dot(f, arf, nefc) > 0.0:
    f[:nefc] = 0.0
    d.qfrc_constraint[:] = 0.0


@njit(cache=True, error_model="numpy")
def _dual_finish(m, d):
  """qfrc_constraint = Jᵀ f and qacc = qacc_smooth + M⁻¹ qfrc_constraint from the dual forces."""
  _mul_jt(d, d.qfrc_constraint, d.efc_force, m.nv)
  smooth.solve_m(m, d, d.qacc, d.qfrc_constraint)
  for k in range(m.nv):
    d.qacc[k] += d.qacc_smooth[k]


@njit(cache=True, error_model="numpy")
def _island_rows(d, isl):
  """(ne, nf, nefc, rows) of island ``isl`` for the dual sweeps (PGS, noslip); with no islands (island 0 then) all
  rows, as one problem."""
  if d.nisland[0] == 0:
    nefc = d.nefc[0]
    rows = d.solver_rows[:nefc]
    for i in range(nefc):
      rows[i] = i
    return d.ne[0], d.nf[0], nefc, rows
  adr = d.island_iefcadr[isl]
  nefc = d.island_nefc[isl]
  return d.island_ne[isl], d.island_nf[isl], nefc, d.map_iefc2efc[adr:adr + nefc]


# ------------------------------------------------------------------ entry ----


# Each solver is compiled only for models that use it (lazy kernels; forward.prepare).


@_jit.lazy
@njit(cache=True, error_model="numpy")
def _solve_pgs(m, d):
  _pgs_warmstart(m, d)
  for isl in range(max(d.nisland[0], 1)):
    ne, nf, nefc, rows = _island_rows(d, isl)
    _pgs(m, d, ne, nf, nefc, rows, isl)


@_jit.lazy
@njit(cache=True, error_model="numpy")
def _solve_primal(m, d):
  _primal(m, d, m.opt_solver[0] == SolverType.NEWTON)


@_jit.lazy
@njit(cache=True, error_model="numpy")
def _solve_noslip(m, d):
  for isl in range(max(d.nisland[0], 1)):
    ne, nf, nefc, rows = _island_rows(d, isl)
    _noslip(m, d, ne, nf, nefc, rows, isl)


@_jit.separate
@njit(cache=True, error_model="numpy")
def solve(m, d):
  """Solves the constraint problem with m.opt.solver (per island), then noslip if asked; qacc,
  qfrc_constraint, efc_force, efc_state, solver statistics."""
  nefc = d.nefc[0]
  d.solver_niter[:] = 0
  if nefc == 0:
    d.qacc[:] = d.qacc_smooth
    d.qfrc_constraint[:] = 0.0
    return
  solver = m.opt_solver[0]
  noslip = m.opt_noslip_iterations[0] > 0
  dual = solver == SolverType.PGS or noslip
  if dual:
    _make_ar(m, d)
  if solver == SolverType.PGS:
    _solve_pgs(m, d)
  else:
    _solve_primal(m, d)
  if noslip:
    _solve_noslip(m, d)
  if dual:
    _dual_finish(m, d)
