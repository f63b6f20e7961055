"""The bindings' utility functions (``mju_*``) and small model helpers, on numpy arrays.

As in the bindings, outputs are float64 numpy arrays of the right size that the function fills, inputs are
anything numpy reads as numbers of the right size, and a wrong size or dtype raises ``TypeError``. They are
for scripts: the engine's kernels have their own compiled versions (``math.py``).
"""

import numpy as np

from mjgym.physics import math as _math
from mjgym.physics.mjcf import defaults
from mjgym.physics.mjcf import spatial
from mjgym.physics.types import FatalError


def _output(func, name, arr, size=None):
  """``arr`` as a writeable float64 array of ``size`` elements (any shape), or TypeError."""
  if not isinstance(arr, np.ndarray) or arr.dtype != np.float64 or not arr.flags.writeable:
    raise TypeError(f"{func}: {name} must be a writeable float64 numpy array")
  if size is not None and arr.size != size:
    raise TypeError(f"{func}: {name} must have {size} elements, got {arr.size}")
  return arr


def _input(func, name, value, size=None):
  arr = np.asarray(value, dtype=np.float64)
  if size is not None and arr.size != size:
    raise TypeError(f"{func}: {name} must have {size} elements, got {arr.size}")
  return arr.reshape(-1) if size is not None else arr


def mju_rotVecQuat(res, vec, quat):  # pylint: disable=invalid-name
  """res (3) = vec (3) rotated by the unit quaternion quat (4)."""
  out = _output("mju_rotVecQuat", "res", res, 3)
  out.reshape(-1)[:] = _math.rot_vec_quat(_input("mju_rotVecQuat", "vec", vec, 3),
                                          _input("mju_rotVecQuat", "quat", quat, 4))


def mju_quat2Mat(res, quat):  # pylint: disable=invalid-name
  """res (9, row-major 3x3) = rotation matrix of the unit quaternion quat (4)."""
  out = _output("mju_quat2Mat", "res", res, 9)
  flat = np.empty(9)
  _math.quat_to_mat(flat, _input("mju_quat2Mat", "quat", quat, 4))
  out.reshape(-1)[:] = flat


def mju_euler2Quat(quat, euler, seq):  # pylint: disable=invalid-name
  """quat (4) = the rotation by euler (3, radians) about the axes of seq: x, y, z about the moving axes, X, Y, Z
  about the fixed ones (MJCF's eulerseq)."""
  out = _output("mju_euler2Quat", "quat", quat, 4)
  if len(seq) != 3:
    raise FatalError("mju_euler2Quat: seq must contain exactly 3 characters")
  for i, ch in enumerate(seq):
    if ch not in "xyzXYZ":
      raise FatalError(f"mju_euler2Quat: seq[{i}] is '{ch}', should be one of x, y, z, X, Y, Z")
  out.reshape(-1)[:] = spatial.euler_to_quat(_input("mju_euler2Quat", "euler", euler, 3), seq)


def mju_clip(x, min, max):  # pylint: disable=redefined-builtin
  """x clipped to [min, max]."""
  return float(np.clip(x, min, max))


def mju_zero(res):  # pylint: disable=invalid-name
  """res = 0."""
  _output("mju_zero", "res", res)[...] = 0.0


def mju_fill(res, val):  # pylint: disable=invalid-name
  """res = val, every element."""
  _output("mju_fill", "res", res)[...] = val


def mju_eye(mat):  # pylint: disable=invalid-name
  """mat (n, n) = identity."""
  out = _output("mju_eye", "mat", mat)
  n = int(round(np.sqrt(out.size)))
  if n * n != out.size:
    raise TypeError(f"mju_eye: mat must be square, got {out.size} elements")
  out.reshape(n, n)[...] = np.eye(n)


def mju_symmetrize(res, mat):  # pylint: disable=invalid-name
  """res (n, n) = (mat + matᵀ) / 2."""
  m = _input("mju_symmetrize", "mat", mat)
  if m.ndim != 2 or m.shape[0] != m.shape[1]:
    raise TypeError(f"mju_symmetrize: mat must be square, got shape {m.shape}")
  _output("mju_symmetrize", "res", res, m.size).reshape(m.shape)[...] = 0.5 * (m + m.T)


def mju_mulVecMatVec(vec1, mat, vec2):  # pylint: disable=invalid-name
  """vec1ᵀ mat vec2, for mat (n, n)."""
  a = _input("mju_mulVecMatVec", "vec1", vec1)
  b = _input("mju_mulVecMatVec", "vec2", vec2, a.size)
  m = _input("mju_mulVecMatVec", "mat", mat, a.size * a.size).reshape(a.size, a.size)
  return float(a @ m @ b)


def mju_sparse2dense(res, mat, rownnz, rowadr, colind):  # pylint: disable=invalid-name
  """res (nr, nc) = the dense form of the row-sparse matrix (mat values, rownnz, rowadr, colind)."""
  out = _output("mju_sparse2dense", "res", res)
  if out.ndim != 2:
    raise TypeError("mju_sparse2dense: res must be a 2-dimensional array")
  values = _input("mju_sparse2dense", "mat", mat)
  out[...] = 0.0
  for r in range(out.shape[0]):
    adr, nnz = int(rowadr[r]), int(rownnz[r])
    out[r, np.asarray(colind[adr:adr + nnz], np.int64)] = values[adr:adr + nnz]


def mju_dense2sparse(res, mat, rownnz, rowadr, colind):  # pylint: disable=invalid-name
  """The row-sparse form of mat (nr, nc) into res (values), rownnz, rowadr, colind; 1 if res is too small (the
  outputs then hold what fitted), else 0."""
  dense = _input("mju_dense2sparse", "mat", mat)
  values = _output("mju_dense2sparse", "res", res).reshape(-1)
  adr = 0
  for r, row in enumerate(dense):
    cols = np.nonzero(row)[0]
    if adr + len(cols) > values.size:
      return 1
    rownnz[r], rowadr[r] = len(cols), adr
    colind[adr:adr + len(cols)] = cols
    values[adr:adr + len(cols)] = row[cols]
    adr += len(cols)
  return 0


def mj_defaultSolRefImp(solref, solimp):  # pylint: disable=invalid-name
  """solref (2) and solimp (5), each unless None, = MuJoCo's default constraint solver parameters."""
  if solref is not None:
    _output("mj_defaultSolRefImp", "solref", solref, 2).reshape(-1)[:] = defaults.SOLREF
  if solimp is not None:
    _output("mj_defaultSolRefImp", "solimp", solimp, 5).reshape(-1)[:] = defaults.SOLIMP


# Band-dense matrices (MuJoCo's layout): a symmetric ntotal x ntotal matrix whose first nsparse = ntotal - ndense
# rows hold a band of nband entries left of the diagonal, inclusive (row i at i * nband, its diagonal last), and
# whose last ndense rows are dense (row i at nsparse * nband + (i - nsparse) * ntotal).


def _band_index(ntotal, nband, ndense):
  """(rows, cols, positions) of every stored lower-triangle entry of the band-dense layout."""
  nsparse = ntotal - ndense
  rows, cols, pos = [], [], []
  for i in range(ntotal):
    if i < nsparse:
      for j in range(max(0, i - nband + 1), i + 1):
        rows.append(i)
        cols.append(j)
        pos.append(i * nband + j - i + nband - 1)
    else:
      for j in range(i + 1):
        rows.append(i)
        cols.append(j)
        pos.append(nsparse * nband + (i - nsparse) * ntotal + j)
  return np.array(rows), np.array(cols), np.array(pos)


def _band_size(ntotal, nband, ndense):
  return (ntotal - ndense) * nband + ndense * ntotal


def _band_lower(func, mat, ntotal, nband, ndense):
  """The dense lower triangle of a band-dense matrix."""
  band = _input(func, "mat", mat, _band_size(ntotal, nband, ndense))
  rows, cols, pos = _band_index(ntotal, nband, ndense)
  lower = np.zeros((ntotal, ntotal))
  lower[rows, cols] = band[pos]
  return lower


def mju_bandDiag(i, ntotal, nband, ndense):  # pylint: disable=invalid-name
  """Where the diagonal entry of row i is in a band-dense matrix."""
  nsparse = ntotal - ndense
  return i * nband + nband - 1 if i < nsparse else nsparse * nband + (i - nsparse) * ntotal + i


def mju_dense2Band(res, mat, ntotal, nband, ndense):  # pylint: disable=invalid-name
  """res = the band-dense form of the lower triangle of mat (ntotal, ntotal)."""
  out = _output("mju_dense2Band", "res", res, _band_size(ntotal, nband, ndense)).reshape(-1)
  dense = _input("mju_dense2Band", "mat", mat, ntotal * ntotal).reshape(ntotal, ntotal)
  rows, cols, pos = _band_index(ntotal, nband, ndense)
  out[:] = 0.0
  out[pos] = dense[rows, cols]


def mju_band2Dense(res, mat, ntotal, nband, ndense, flg_sym):  # pylint: disable=invalid-name
  """res (ntotal, ntotal) = the band-dense matrix mat, its upper triangle filled too if flg_sym."""
  lower = _band_lower("mju_band2Dense", mat, ntotal, nband, ndense)
  if flg_sym:
    lower += np.tril(lower, -1).T
  _output("mju_band2Dense", "res", res, ntotal * ntotal).reshape(ntotal, ntotal)[...] = lower


def mju_bandMulMatVec(res, mat, vec, ntotal, nband, ndense, nvec, flg_sym):  # pylint: disable=invalid-name
  """res (nvec, ntotal) = mat @ each of the nvec vectors vec (nvec, ntotal); the upper triangle counts if flg_sym."""
  lower = _band_lower("mju_bandMulMatVec", mat, ntotal, nband, ndense)
  full = lower + np.tril(lower, -1).T if flg_sym else lower
  vectors = _input("mju_bandMulMatVec", "vec", vec, nvec * ntotal).reshape(nvec, ntotal)
  _output("mju_bandMulMatVec", "res", res, nvec * ntotal).reshape(nvec, ntotal)[...] = vectors @ full.T


def mju_cholFactorBand(mat, ntotal, nband, ndense, diagadd, diagmul):  # pylint: disable=invalid-name
  """Cholesky factor L (lower, band-dense as mat) of mat + diag(diagadd + diagmul * mat_ii), in place; returns
  the smallest diagonal entry of L, or 0 (mat unchanged) if the matrix is not positive definite."""
  out = _output("mju_cholFactorBand", "mat", mat, _band_size(ntotal, nband, ndense)).reshape(-1)
  lower = _band_lower("mju_cholFactorBand", out, ntotal, nband, ndense)
  diag = np.diag(lower)
  full = lower + np.tril(lower, -1).T + np.diag(diagadd + diagmul * diag)
  try:
    factor = np.linalg.cholesky(full)
  except np.linalg.LinAlgError:
    return 0.0
  rows, cols, pos = _band_index(ntotal, nband, ndense)
  out[pos] = factor[rows, cols]  # the factor of a band-dense matrix keeps its band-dense pattern
  return float(np.min(np.diag(factor))) if ntotal else 0.0


def mju_cholSolveBand(res, mat, vec, ntotal, nband, ndense):  # pylint: disable=invalid-name
  """res = the solution of L Lᵀ res = vec, for L the band-dense factor mat (mju_cholFactorBand)."""
  factor = _band_lower("mju_cholSolveBand", mat, ntotal, nband, ndense)
  rhs = _input("mju_cholSolveBand", "vec", vec, ntotal)
  y = np.linalg.solve(factor, rhs)
  _output("mju_cholSolveBand", "res", res, ntotal).reshape(-1)[:] = np.linalg.solve(factor.T, y)


def _skew(v):
  return np.array([[0.0, -v[2], v[1]], [v[2], 0.0, -v[0]], [-v[1], v[0], 0.0]])


def _right_jacobian(phi, inverse):
  """SO(3)'s right Jacobian at the rotation vector phi (or its inverse): how a rotation vector's change moves the
  rotation in the tangent space on its right."""
  theta = float(np.linalg.norm(phi))
  k = _skew(phi)
  if theta < 1e-8:  # the series' first terms; the next are O(theta^2) smaller
    return np.eye(3) + 0.5 * k if inverse else np.eye(3) - 0.5 * k
  if inverse:
    return np.eye(3) + 0.5 * k + (1 / theta**2 - (1 + np.cos(theta)) / (2 * theta * np.sin(theta))) * k @ k
  return np.eye(3) - (1 - np.cos(theta)) / theta**2 * k + (theta - np.sin(theta)) / theta**3 * k @ k


def mjd_subQuat(qa, qb, Da, Db):  # pylint: disable=invalid-name
  """Derivatives (3x3, each unless None) of mju_subQuat's res = log(qb⁻¹ qa) with respect to qa and qb, each
  perturbed in its own tangent space (q exp(δ))."""
  a, b = _input("mjd_subQuat", "qa", qa, 4), _input("mjd_subQuat", "qb", qb, 4)
  res = np.array(_math.quat_sub(a, b))
  jinv = _right_jacobian(res, inverse=True)
  if Da is not None:
    _output("mjd_subQuat", "Da", Da, 9).reshape(3, 3)[...] = jinv
  if Db is not None:
    _output("mjd_subQuat", "Db", Db, 9).reshape(3, 3)[...] = -jinv.T


def mjd_quatIntegrate(vel, scale, Dquat, Dvel, Dscale):  # pylint: disable=invalid-name
  """Derivatives of mju_quatIntegrate's q exp(vel scale), in q's tangent space: with respect to q (3x3), to the
  rotation vector vel scale (3x3) and to scale (3)."""
  v = _input("mjd_quatIntegrate", "vel", vel, 3)
  phi = v * scale
  rot = np.empty(9)
  half = np.linalg.norm(phi) / 2
  axis = phi / (2 * half) if half > 0 else np.zeros(3)
  _math.quat_to_mat(rot, np.concatenate([[np.cos(half)], np.sin(half) * axis]))
  jac = _right_jacobian(phi, inverse=False)
  _output("mjd_quatIntegrate", "Dquat", Dquat, 9).reshape(3, 3)[...] = rot.reshape(3, 3).T
  _output("mjd_quatIntegrate", "Dvel", Dvel, 9).reshape(3, 3)[...] = jac
  _output("mjd_quatIntegrate", "Dscale", Dscale, 3).reshape(-1)[:] = jac @ v


def mju_boxQP(res, R, index, H, g, lower, upper):  # pylint: disable=invalid-name
  """Minimizes 0.5 xᵀHx + gᵀx subject to lower <= x <= upper (each None: unbounded) by projected Newton steps from
  the warm start ``res``; returns the number of free dimensions at the solution, or -1 if the free block of H is not
  positive definite. ``R`` (n * (n + 7) entries) gets that block's lower Cholesky factor in its first nfree²,
  ``index`` (n, or None) the free dimensions in its first nfree."""
  x = _output("mju_boxQP", "res", res).reshape(-1)
  n = x.size
  hess = _input("mju_boxQP", "H", H, n * n).reshape(n, n)
  hess = np.tril(hess) + np.tril(hess, -1).T  # only the lower triangle is read, as MuJoCo's
  bias = _input("mju_boxQP", "g", g, n)
  lo = np.full(n, -np.inf) if lower is None else _input("mju_boxQP", "lower", lower, n)
  hi = np.full(n, np.inf) if upper is None else _input("mju_boxQP", "upper", upper, n)
  factor_out = _output("mju_boxQP", "R", R, n * (n + 7)).reshape(-1)
  cost = lambda v: 0.5 * v @ hess @ v + bias @ v  # noqa: E731
  x[:] = np.clip(x, lo, hi)
  free = np.ones(n, bool)
  factor = np.zeros((0, 0))
  for _ in range(100):
    grad = hess @ x + bias
    free = ~((x <= lo) & (grad > 0) | (x >= hi) & (grad < 0))
    if not free.any():
      break
    try:
      factor = np.linalg.cholesky(hess[np.ix_(free, free)])
    except np.linalg.LinAlgError:
      return -1
    if np.linalg.norm(grad[free]) < 1e-12:
      break
    step = np.zeros(n)
    step[free] = -np.linalg.solve(factor.T, np.linalg.solve(factor, grad[free]))
    # Armijo backtracking along the projected path
    before, alpha = cost(x), 1.0
    while alpha > 1e-20:
      trial = np.clip(x + alpha * step, lo, hi)
      if cost(trial) <= before + 0.1 * grad @ (trial - x):
        break
      alpha *= 0.5
    if before - cost(trial) <= 1e-15 * max(1.0, abs(before)):
      x[:] = trial
      break
    x[:] = trial
  grad = hess @ x + bias
  free = ~((x <= lo) & (grad > 0) | (x >= hi) & (grad < 0))
  nfree = int(free.sum())
  if nfree:
    try:
      factor = np.linalg.cholesky(hess[np.ix_(free, free)])
    except np.linalg.LinAlgError:
      return -1
    lower_half = np.tril_indices(nfree)  # the upper triangle of R is left as it is, as MuJoCo's
    factor_out[:nfree * nfree].reshape(nfree, nfree)[lower_half] = factor[lower_half]
  if index is not None:
    index.reshape(-1)[:nfree] = np.flatnonzero(free)
  return nfree
