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
by projected Gauss-Seidel, one row (or one elliptic block) at a time.
"""

import math as pymath

from numba import njit

from mjgym.physics import smooth
from mjgym.physics.types import ConstraintState
from mjgym.physics.types import ConstraintType
from mjgym.physics.types import DisableBit
from mjgym.physics.types import MINVAL
from mjgym.physics.types import NSOLVER
from mjgym.physics.types import SolverType

_SATISFIED = int(ConstraintState.SATISFIED)
_QUADRATIC = int(ConstraintState.QUADRATIC)
_LINEARNEG = int(ConstraintState.LINEARNEG)
_LINEARPOS = int(ConstraintState.LINEARPOS)
_CONE = int(ConstraintState.CONE)

_EQUALITY = int(ConstraintType.EQUALITY)
_FRICTION_DOF = int(ConstraintType.FRICTION_DOF)
_FRICTION_TENDON = int(ConstraintType.FRICTION_TENDON)
_CONTACT_ELLIPTIC = int(ConstraintType.CONTACT_ELLIPTIC)

_DSBL_WARMSTART = int(DisableBit.WARMSTART)

# rows of d.solver_vec
_MA, _GRAD, _MGRAD, _SEARCH, _MV, _MGRAD_OLD, _QFRC, _TMP, _QACC0 = 0, 1, 2, 3, 4, 5, 6, 7, 8


# ------------------------------------------------------------ linear algebra ----


@njit(cache=True)
def mul_m(m, d, res, vec):
  """res = M vec, from qM's sparse layout."""
  for i in range(m.nv):
    res[i] = d.qM[m.dof_Madr[i]] * vec[i]
  for i in range(m.nv):
    adr = m.dof_Madr[i] + 1
    j = m.dof_parentid[i]
    while j >= 0:
      mij = d.qM[adr]
      res[i] += mij * vec[j]
      res[j] += mij * vec[i]
      adr += 1
      j = m.dof_parentid[j]


@njit(cache=True)
def _mul_j(d, res, vec, nv):
  for i in range(d.nefc[0]):
    s = 0.0
    for k in range(nv):
      s += d.efc_J[i, k] * vec[k]
    res[i] = s


@njit(cache=True)
def _mul_jt(d, res, vec, nv):
  res[:] = 0.0
  for i in range(d.nefc[0]):
    f = vec[i]
    if f != 0.0:
      for k in range(nv):
        res[k] += d.efc_J[i, k] * f


@njit(cache=True)
def _cholesky(h, n):
  """In-place lower Cholesky factor of the SPD matrix h (n, n)."""
  for j in range(n):
    s = h[j, j]
    for k in range(j):
      s -= h[j, k] * h[j, k]
    h[j, j] = pymath.sqrt(max(s, MINVAL))
    for i in range(j + 1, n):
      s = h[i, j]
      for k in range(j):
        s -= h[i, k] * h[j, k]
      h[i, j] = s / h[j, j]


@njit(cache=True)
def _cholesky_solve(h, n, x):
  """x <- (L Lᵀ)⁻¹ x with L the factor in h's lower triangle."""
  for i in range(n):
    s = x[i]
    for k in range(i):
      s -= h[i, k] * x[k]
    x[i] = s / h[i, i]
  for i in range(n - 1, -1, -1):
    s = x[i]
    for k in range(i + 1, n):
      s -= h[k, i] * x[k]
    x[i] = s / h[i, i]


# ------------------------------------------------------------- row costs ----


@njit(cache=True)
def _elliptic_block(d, c):
  """(first row, dim, mu) of elliptic contact ``c``."""
  return d.contact_efc_address[c], d.contact_dim[c], d.contact_mu[c]


@njit(cache=True)
def _cone_split(d, first, dim, jar):
  """(u0, |u_t|) of an elliptic block: the normal jar and the norm of the friction-scaled tangential jar."""
  c = d.efc_id[first]
  t2 = 0.0
  for k in range(1, dim):
    u = d.contact_friction[c, k - 1] * jar[first + k]
    t2 += u * u
  return jar[first], pymath.sqrt(t2)


@njit(cache=True)
def update_constraint(m, d):
  """efc_force, efc_state from efc_jar; returns the constraint part of the cost."""
  cost = 0.0
  nefc = d.nefc[0]
  i = 0
  while i < nefc:
    jar = d.efc_jar[i]
    dd = d.efc_D[i]
    ctype = d.efc_type[i]
    if ctype == _EQUALITY:
      d.efc_force[i] = -dd * jar
      d.efc_state[i] = _QUADRATIC
      cost += 0.5 * dd * jar * jar
    elif ctype == _FRICTION_DOF or ctype == _FRICTION_TENDON:
      fl = d.efc_frictionloss[i]
      r = d.efc_R[i]
      if jar <= -r * fl:
        d.efc_force[i] = fl
        d.efc_state[i] = _LINEARNEG
        cost += -fl * jar - 0.5 * r * fl * fl
      elif jar >= r * fl:
        d.efc_force[i] = -fl
        d.efc_state[i] = _LINEARPOS
        cost += fl * jar - 0.5 * r * fl * fl
      else:
        d.efc_force[i] = -dd * jar
        d.efc_state[i] = _QUADRATIC
        cost += 0.5 * dd * jar * jar
    elif ctype == _CONTACT_ELLIPTIC:
      c = d.efc_id[i]
      dim = d.contact_dim[c]
      mu = d.contact_mu[c]
      u0, tn = _cone_split(d, i, dim, d.efc_jar)
      if u0 >= tn:
        for k in range(dim):
          d.efc_force[i + k] = 0.0
          d.efc_state[i + k] = _SATISFIED
      elif mu * mu * u0 + tn <= 0.0:
        for k in range(dim):
          jk = d.efc_jar[i + k]
          d.efc_force[i + k] = -d.efc_D[i + k] * jk
          d.efc_state[i + k] = _QUADRATIC
          cost += 0.5 * d.efc_D[i + k] * jk * jk
      else:
        cc = dd / (1.0 + mu * mu)
        delta = u0 - tn
        cost += 0.5 * cc * delta * delta
        d.efc_force[i] = -cc * delta
        d.efc_state[i] = _CONE
        for k in range(1, dim):
          fr = d.contact_friction[c, k - 1]
          d.efc_force[i + k] = cc * delta * fr * fr * d.efc_jar[i + k] / tn
          d.efc_state[i + k] = _CONE
      i += dim
      continue
    else:
      if jar < 0.0:
        d.efc_force[i] = -dd * jar
        d.efc_state[i] = _QUADRATIC
        cost += 0.5 * dd * jar * jar
      else:
        d.efc_force[i] = 0.0
        d.efc_state[i] = _SATISFIED
    i += 1
  return cost


@njit(cache=True)
def _line_derivatives(m, d, alpha, snorm_m, slope0):
  """First and second derivative of the total cost at qacc + alpha * search."""
  d1 = slope0 + alpha * snorm_m
  d2 = snorm_m
  nefc = d.nefc[0]
  i = 0
  while i < nefc:
    jv = d.efc_jv[i]
    jar = d.efc_jar[i] + alpha * jv
    dd = d.efc_D[i]
    ctype = d.efc_type[i]
    if ctype == _EQUALITY:
      d1 += dd * jar * jv
      d2 += dd * jv * jv
    elif ctype == _FRICTION_DOF or ctype == _FRICTION_TENDON:
      fl = d.efc_frictionloss[i]
      r = d.efc_R[i]
      if jar <= -r * fl:
        d1 -= fl * jv
      elif jar >= r * fl:
        d1 += fl * jv
      else:
        d1 += dd * jar * jv
        d2 += dd * jv * jv
    elif ctype == _CONTACT_ELLIPTIC:
      c = d.efc_id[i]
      dim = d.contact_dim[c]
      mu = d.contact_mu[c]
      u0 = jar
      du0 = jv
      t2 = 0.0
      tdt = 0.0
      dt2 = 0.0
      for k in range(1, dim):
        fr = d.contact_friction[c, k - 1]
        u = fr * (d.efc_jar[i + k] + alpha * d.efc_jv[i + k])
        du = fr * d.efc_jv[i + k]
        t2 += u * u
        tdt += u * du
        dt2 += du * du
      tn = pymath.sqrt(t2)
      if u0 >= tn:
        pass
      elif mu * mu * u0 + tn <= 0.0:
        for k in range(dim):
          jk = d.efc_jar[i + k] + alpha * d.efc_jv[i + k]
          vk = d.efc_jv[i + k]
          d1 += d.efc_D[i + k] * jk * vk
          d2 += d.efc_D[i + k] * vk * vk
      else:
        cc = dd / (1.0 + mu * mu)
        delta = u0 - tn
        dtn = tdt / tn
        ddelta = du0 - dtn
        d1 += cc * delta * ddelta
        d2 += cc * (ddelta * ddelta - delta * (dt2 - dtn * dtn) / tn)
      i += dim
      continue
    else:
      if jar < 0.0:
        d1 += dd * jar * jv
        d2 += dd * jv * jv
    i += 1
  return d1, d2


@njit(cache=True)
def _linesearch(m, d):
  """Step length minimizing the cost along d.solver_vec[_SEARCH] (exact up to ls_tolerance); returns (alpha, neval)."""
  nv = m.nv
  search = d.solver_vec[_SEARCH]
  mv = d.solver_vec[_MV]
  _mul_j(d, d.efc_jv, search, nv)
  mul_m(m, d, mv, search)
  snorm_m = 0.0
  slope0 = 0.0
  for k in range(nv):
    snorm_m += search[k] * mv[k]
    slope0 += search[k] * (d.solver_vec[_MA, k] - d.qfrc_smooth[k])
  d1, d2 = _line_derivatives(m, d, 0.0, snorm_m, slope0)
  neval = 1
  if not d1 < 0.0 or not d2 > 0.0:
    return 0.0, neval
  gtol = m.opt_ls_tolerance[0] * -d1 * 1e-6
  lo, hi = 0.0, pymath.inf
  alpha = -d1 / d2
  for _ in range(max(1, m.opt_ls_iterations[0])):
    d1, d2 = _line_derivatives(m, d, alpha, snorm_m, slope0)
    neval += 1
    if abs(d1) <= gtol:
      break
    if d1 < 0.0:
      lo = alpha
    else:
      hi = alpha
    nxt = alpha - d1 / d2 if d2 > 0.0 else pymath.inf
    if not lo < nxt < hi:
      nxt = 0.5 * (lo + hi) if hi < pymath.inf else 2.0 * max(alpha, MINVAL)
    if nxt == alpha:
      break
    alpha = nxt
  return alpha, neval


# ---------------------------------------------------------------- primal ----


@njit(cache=True)
def _gauss_cost(m, d, qacc):
  s = 0.0
  for k in range(m.nv):
    s += 0.5 * (qacc[k] - d.qacc_smooth[k]) * (d.solver_vec[_MA, k] - d.qfrc_smooth[k])
  return s


@njit(cache=True)
def _evaluate(m, d, qacc):
  """Ma, jar, forces at qacc; returns the total cost."""
  mul_m(m, d, d.solver_vec[_MA], qacc)
  _mul_j(d, d.efc_jar, qacc, m.nv)
  for i in range(d.nefc[0]):
    d.efc_jar[i] -= d.efc_aref[i]
  return _gauss_cost(m, d, qacc) + update_constraint(m, d)


@njit(cache=True)
def _gradient(m, d):
  """grad = M qacc - qfrc_smooth - Jᵀ force."""
  qfrc = d.solver_vec[_QFRC]
  _mul_jt(d, qfrc, d.efc_force, m.nv)
  grad = d.solver_vec[_GRAD]
  for k in range(m.nv):
    grad[k] = d.solver_vec[_MA, k] - d.qfrc_smooth[k] - qfrc[k]


@njit(cache=True)
def _add_rank(h, row, w, nv):
  """h += w row rowᵀ (lower triangle)."""
  for p in range(nv):
    jp = row[p]
    if jp == 0.0:
      continue
    for q in range(p + 1):
      h[p, q] += w * jp * row[q]


@njit(cache=True)
def _hessian(m, d):
  """solver_H = Cholesky factor of M + Jᵀ ∂²s J at the current states."""
  nv = m.nv
  h = d.solver_H
  smooth.full_m(m, d.qM, h)
  tmp = d.solver_vec[_TMP]
  nefc = d.nefc[0]
  i = 0
  while i < nefc:
    state = d.efc_state[i]
    if d.efc_type[i] == _CONTACT_ELLIPTIC:
      c = d.efc_id[i]
      dim = d.contact_dim[c]
      if state == _QUADRATIC:
        for k in range(dim):
          _add_rank(h, d.efc_J[i + k], d.efc_D[i + k], nv)
      elif state == _CONE:
        # ∂²s/∂u² = c [v vᵀ - (δ / T) (0 ⊕ (I - û ûᵀ))], v = (1, -û), mapped by u = S jar
        mu = d.contact_mu[c]
        cc = d.efc_D[i] / (1.0 + mu * mu)
        u0, tn = _cone_split(d, i, dim, d.efc_jar)
        delta = u0 - tn
        # v-term: rank one along J₀ - Σ ûₖ μₖ Jₖ
        for p in range(nv):
          s = d.efc_J[i, p]
          for k in range(1, dim):
            fr = d.contact_friction[c, k - 1]
            s -= (fr * d.efc_jar[i + k] / tn) * fr * d.efc_J[i + k, p]
          tmp[p] = s
        _add_rank(h, tmp, cc, nv)
        # curvature of |u_t|: (-δ / T)(Σ μₖ² Jₖ Jₖᵀ - (Σ ûₖ μₖ Jₖ)(...)ᵀ)
        w = -cc * delta / tn
        for k in range(1, dim):
          fr = d.contact_friction[c, k - 1]
          _add_rank(h, d.efc_J[i + k], w * fr * fr, nv)
        for p in range(nv):
          s = 0.0
          for k in range(1, dim):
            fr = d.contact_friction[c, k - 1]
            s += (fr * d.efc_jar[i + k] / tn) * fr * d.efc_J[i + k, p]
          tmp[p] = s
        _add_rank(h, tmp, -w, nv)
      i += dim
      continue
    if state == _QUADRATIC:
      _add_rank(h, d.efc_J[i], d.efc_D[i], nv)
    i += 1
  for p in range(nv):
    for q in range(p + 1, nv):
      h[p, q] = 0.0
  _cholesky(h, nv)


@njit(cache=True)
def _precondition(m, d, newton):
  mgrad = d.solver_vec[_MGRAD]
  mgrad[:] = d.solver_vec[_GRAD]
  if newton:
    _hessian(m, d)
    _cholesky_solve(d.solver_H, m.nv, mgrad)
  else:
    smooth.solve_m(m, d, mgrad, mgrad)


@njit(cache=True)
def _primal(m, d, newton):
  """Newton (newton=True) or CG on the primal problem; leaves qacc, efc_force, efc_state."""
  nv = m.nv
  qacc = d.qacc
  # warm start: the better of last step's qacc and the unconstrained one
  qacc[:] = d.qacc_smooth
  cost = _evaluate(m, d, qacc)
  if not (m.opt_disableflags[0] & _DSBL_WARMSTART):
    d.solver_vec[_QACC0] = d.qacc_warmstart
    cost_ws = _evaluate(m, d, d.solver_vec[_QACC0])
    if cost_ws < cost:
      qacc[:] = d.qacc_warmstart
      cost = cost_ws
    else:
      cost = _evaluate(m, d, qacc)
  scale = 1.0 / (m.stat_meaninertia[0] * max(1, nv))
  _gradient(m, d)
  _precondition(m, d, newton)
  search = d.solver_vec[_SEARCH]
  den = 0.0
  for k in range(nv):
    search[k] = -d.solver_vec[_MGRAD, k]
    den += d.solver_vec[_GRAD, k] * d.solver_vec[_MGRAD, k]
  d.solver_vec[_TMP, 0] = den
  tolerance = m.opt_tolerance[0]
  niter = 0
  for it in range(m.opt_iterations[0]):
    alpha, neval = _linesearch(m, d)
    niter = it + 1
    if alpha == 0.0:
      _stats(d, it, 0.0, 0.0, neval)
      break
    for k in range(nv):
      qacc[k] += alpha * search[k]
      d.solver_vec[_MA, k] += alpha * d.solver_vec[_MV, k]
    for i in range(d.nefc[0]):
      d.efc_jar[i] += alpha * d.efc_jv[i]
    old = cost
    cost = _gauss_cost(m, d, qacc) + update_constraint(m, d)
    _gradient(m, d)
    if newton:
      _precondition(m, d, True)
      for k in range(nv):
        search[k] = -d.solver_vec[_MGRAD, k]
    else:
      d.solver_vec[_MGRAD_OLD] = d.solver_vec[_MGRAD]
      _cg_direction(m, d)
    gnorm = 0.0
    for k in range(nv):
      gnorm += d.solver_vec[_GRAD, k] ** 2
    improvement = scale * (old - cost)
    gradient = scale * pymath.sqrt(gnorm)
    _stats(d, it, improvement, gradient, neval)
    if improvement < tolerance or gradient < tolerance:
      break
  d.solver_niter[0] = niter
  _mul_jt(d, d.qfrc_constraint, d.efc_force, nv)


@njit(cache=True)
def _cg_direction(m, d):
  """Polak-Ribière direction with M⁻¹ preconditioning; restarts on a non-descent direction."""
  nv = m.nv
  grad = d.solver_vec[_GRAD]
  mgrad = d.solver_vec[_MGRAD]
  old_mgrad = d.solver_vec[_MGRAD_OLD]
  search = d.solver_vec[_SEARCH]
  # grad_old · Mgrad_old, kept from the previous iteration
  den = d.solver_vec[_TMP, 0]
  mgrad[:] = grad
  smooth.solve_m(m, d, mgrad, mgrad)
  num = 0.0
  new_den = 0.0
  for k in range(nv):
    num += grad[k] * (mgrad[k] - old_mgrad[k])
    new_den += grad[k] * mgrad[k]
  beta = max(0.0, num / den) if den > MINVAL else 0.0
  descent = 0.0
  for k in range(nv):
    search[k] = -mgrad[k] + beta * search[k]
    descent += search[k] * grad[k]
  if descent >= 0.0:
    for k in range(nv):
      search[k] = -mgrad[k]
  d.solver_vec[_TMP, 0] = new_den


@njit(cache=True)
def _stats(d, it, improvement, gradient, neval):
  if it < NSOLVER:
    d.solver_improvement[it] = improvement
    d.solver_gradient[it] = gradient
    d.solver_neval[it] = neval
    nactive = 0
    for i in range(d.nefc[0]):
      if d.efc_state[i] != _SATISFIED:
        nactive += 1
    d.solver_nactive[it] = nactive


# ------------------------------------------------------------------ dual ----


@njit(cache=True)
def _pgs(m, d):
  """Projected Gauss-Seidel on the dual; qacc = qacc_smooth + M⁻¹ Jᵀ f."""
  nv = m.nv
  nefc = d.nefc[0]
  minvjt = d.efc_MinvJT
  for i in range(nefc):
    minvjt[i] = d.efc_J[i]
    smooth.solve_m(m, d, minvjt[i], minvjt[i])
  # v = M⁻¹ Jᵀ f, the constraint part of qacc
  v = d.solver_vec[_TMP]
  f = d.efc_force
  f[:nefc] = 0.0
  if not (m.opt_disableflags[0] & _DSBL_WARMSTART):
    _evaluate(m, d, d.qacc_warmstart)
    v[:] = 0.0
    for i in range(nefc):
      if f[i] != 0.0:
        for k in range(nv):
          v[k] += minvjt[i, k] * f[i]
    if _dual_cost(m, d, v) > 0.0:
      f[:nefc] = 0.0
      v[:] = 0.0
  else:
    v[:] = 0.0
  scale = 1.0 / (m.stat_meaninertia[0] * max(1, nv))
  cost = _dual_cost(m, d, v)
  niter = 0
  for it in range(m.opt_iterations[0]):
    niter = it + 1
    i = 0
    while i < nefc:
      if d.efc_type[i] == _CONTACT_ELLIPTIC:
        dim = d.contact_dim[d.efc_id[i]]
        _pgs_elliptic(m, d, i, dim, v)
        i += dim
        continue
      ctype = d.efc_type[i]
      ar = d.efc_R[i]
      res = d.efc_b[i] + d.efc_R[i] * f[i]
      for k in range(nv):
        res += d.efc_J[i, k] * v[k]
        ar += d.efc_J[i, k] * minvjt[i, k]
      fi = f[i] - res / ar
      if ctype == _FRICTION_DOF or ctype == _FRICTION_TENDON:
        fl = d.efc_frictionloss[i]
        fi = min(max(fi, -fl), fl)
      elif ctype != _EQUALITY:
        fi = max(fi, 0.0)
      df = fi - f[i]
      if df != 0.0:
        f[i] = fi
        for k in range(nv):
          v[k] += minvjt[i, k] * df
      i += 1
    old = cost
    cost = _dual_cost(m, d, v)
    improvement = scale * (old - cost)
    _stats(d, it, improvement, 0.0, 0)
    if improvement < m.opt_tolerance[0]:
      break
  d.solver_niter[0] = niter
  for k in range(nv):
    d.qacc[k] = d.qacc_smooth[k] + v[k]
  _mul_jt(d, d.qfrc_constraint, f, nv)
  for i in range(nefc):
    d.efc_state[i] = _SATISFIED if f[i] == 0.0 else _QUADRATIC


@njit(cache=True)
def _dual_cost(m, d, v):
  """½ fᵀ (A + R) f + fᵀ b with A f = J v."""
  nefc = d.nefc[0]
  cost = 0.0
  # fᵀ A f = (Jᵀ f)ᵀ M⁻¹ (Jᵀ f) = vᵀ M v
  mv = d.solver_vec[_MV]
  mul_m(m, d, mv, v)
  for k in range(m.nv):
    cost += 0.5 * v[k] * mv[k]
  for i in range(nefc):
    fi = d.efc_force[i]
    cost += 0.5 * d.efc_R[i] * fi * fi + fi * d.efc_b[i]
  return cost


@njit(cache=True)
def _pgs_elliptic(m, d, first, dim, v):
  """One Gauss-Seidel update of an elliptic block: its sub-problem by projected gradient on the cone."""
  nv = m.nv
  f = d.efc_force
  c = d.efc_id[first]
  minvjt = d.efc_MinvJT
  # block matrix A_bb + R (rows 0-5 of solver_block) and residual g at the current forces
  ab = d.solver_block
  g = d.solver_block[6]
  for p in range(dim):
    r = d.efc_b[first + p]
    for k in range(nv):
      r += d.efc_J[first + p, k] * v[k]
    for q in range(dim):
      s = 0.0
      for k in range(nv):
        s += d.efc_J[first + p, k] * minvjt[first + q, k]
      ab[p, q] = s
    ab[p, p] += d.efc_R[first + p]
    r += d.efc_R[first + p] * f[first + p]
    g[p] = r
  # minimize ½ Δᵀ A Δ + gᵀ Δ over f + Δ in the cone, by projected gradient in z = S⁻¹ f with
  # S = diag(1, μ₁, ...), where the cone is the standard one and projection is Euclidean
  lam = 0.0
  for p in range(dim):
    sp = 1.0 if p == 0 else d.contact_friction[c, p - 1]
    lam += sp * sp * ab[p, p]
  x = d.solver_block[7]
  x0 = d.solver_block[8]
  for p in range(dim):
    x[p] = f[first + p]
    x0[p] = f[first + p]
  y = d.solver_block[9]
  for _ in range(100):
    for p in range(dim):
      grad = g[p]
      for q in range(dim):
        grad += ab[p, q] * (x[q] - x0[q])
      sp = 1.0 if p == 0 else d.contact_friction[c, p - 1]
      # z step: z - S grad / lam, mapped back to f: f - S² grad / lam
      y[p] = x[p] - sp * sp * grad / lam
    _project_cone(d, c, dim, y)
    change = 0.0
    for p in range(dim):
      change += abs(y[p] - x[p])
      x[p] = y[p]
    if change < 1e-15 * (1.0 + abs(x[0])):
      break
  for p in range(dim):
    df = x[p] - f[first + p]
    if df != 0.0:
      f[first + p] = x[p]
      for k in range(nv):
        v[k] += minvjt[first + p, k] * df


@njit(cache=True)
def _project_cone(d, c, dim, y):
  """Euclidean projection (in friction-scaled coordinates) of y onto {y₀ ≥ |yₖ / μₖ|}."""
  t2 = 0.0
  for k in range(1, dim):
    z = y[k] / d.contact_friction[c, k - 1]
    t2 += z * z
  t = pymath.sqrt(t2)
  if t <= y[0]:
    return
  if t <= -y[0]:
    for k in range(dim):
      y[k] = 0.0
    return
  a = 0.5 * (y[0] + t)
  y[0] = a
  for k in range(1, dim):
    y[k] *= a / t


# ------------------------------------------------------------------ entry ----


@njit(cache=True)
def solve(m, d):
  """Solves the constraint problem with m.opt.solver; qacc, qfrc_constraint, efc_force, efc_state."""
  nefc = d.nefc[0]
  d.solver_niter[0] = 0
  if nefc == 0:
    d.qacc[:] = d.qacc_smooth
    d.qfrc_constraint[:] = 0.0
    return
  solver = m.opt_solver[0]
  if solver == SolverType.PGS:
    _pgs(m, d)
  else:
    _primal(m, d, solver == SolverType.NEWTON)
