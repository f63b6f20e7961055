"""Dense linear algebra on small matrices: dot products, Cholesky and LU factorizations and their solves.

Everything works in place on caller-owned arrays (the step path allocates nothing). The two Cholesky
factorizations round differently and each is kept for the numbers of its caller: ``cholesky`` (the Newton
solver's Hessian) subtracts the products one by one and floors a pivot at MINVAL; ``cholesky_rank`` (the
friction QCQP of PGS) forms its sums with ``dot``'s four lanes, floors a pivot at 1e-10, clears that pivot's
column and reports the rank.
"""

import math

from numba import njit

from mjgym.physics.types import MINVAL


@njit(cache=True, error_model="numpy")
def dot(a, b, n):
  """Σ a[k] b[k] for k < n, summed in four interleaved lanes ((0 + 2) + (1 + 3)), then the tail."""
  s0 = s1 = s2 = s3 = 0.0
  k = 0
  while k + 4 <= n:
    s0 += a[k] * b[k]
    s1 += a[k + 1] * b[k + 1]
    s2 += a[k + 2] * b[k + 2]
    s3 += a[k + 3] * b[k + 3]
    k += 4
  s = (s0 + s2) + (s1 + s3)
  left = n - k
  if left == 3:
    s += a[k] * b[k] + a[k + 1] * b[k + 1] + a[k + 2] * b[k + 2]
  elif left == 2:
    s += a[k] * b[k] + a[k + 1] * b[k + 1]
  elif left == 1:
    s += a[k] * b[k]
  return s


@njit(cache=True, error_model="numpy", inline="always")
def dot_row(a, r, b, n):
  """dot(a[r], b, n) for a 2-D a, in the same order, without taking a view of the row: a view made inside
  the Gauss-Seidel sweep costs a reference-count increment and decrement per row visit, more than the dot.
  Inlined where it is called (by numba): as a call into this module it stays a call, which passes both arrays
  field by field on the stack and tests a status word, per row."""
  s0 = s1 = s2 = s3 = 0.0
  k = 0
  while k + 4 <= n:
    s0 += a[r, k] * b[k]
    s1 += a[r, k + 1] * b[k + 1]
    s2 += a[r, k + 2] * b[k + 2]
    s3 += a[r, k + 3] * b[k + 3]
    k += 4
  s = (s0 + s2) + (s1 + s3)
  left = n - k
  if left == 3:
    s += a[r, k] * b[k] + a[r, k + 1] * b[k + 1] + a[r, k + 2] * b[k + 2]
  elif left == 2:
    s += a[r, k] * b[k] + a[r, k + 1] * b[k + 1]
  elif left == 1:
    s += a[r, k] * b[k]
  return s


@njit(cache=True, error_model="numpy")
def cholesky(h, n):
  """In-place lower Cholesky factor of the SPD matrix h (n, n)."""
  for j in range(n):
    s = h[j, j]
    for k in range(j):
      s -= h[j, k] * h[j, k]
    h[j, j] = math.sqrt(max(s, MINVAL))
    for i in range(j + 1, n):
      s = h[i, j]
      for k in range(j):
        s -= h[i, k] * h[j, k]
      h[i, j] = s / h[j, j]


@njit(cache=True, error_model="numpy")
def cholesky_solve(h, n, x):
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


@njit(cache=True, error_model="numpy")
def cholesky_rank(w, n):
  """In-place Cholesky of w[:n, :n] with pivots floored at 1e-10 (their columns cleared); returns the rank."""
  rank = n
  for j in range(n):
    t = w[j, j] - dot(w[j], w[j], j)
    low = t < 1e-10
    if low:
      t = 1e-10
      rank -= 1
    w[j, j] = math.sqrt(t)
    for i in range(j + 1, n):
      w[i, j] = 0.0 if low else (w[i, j] - dot(w[i], w[j], j)) * (1.0 / w[j, j])
  return rank


@njit(cache=True, error_model="numpy")
def cholesky_solve_floored(w, n, rhs, x):
  """x = (L Lᵀ)⁻¹ rhs with L in w[:n, :n] (a cholesky_rank factor), summed as ``dot`` sums (MuJoCo's order)."""
  for i in range(n):
    x[i] = rhs[i]
  for i in range(n):
    x[i] = (x[i] - dot(w[i], x, i)) / w[i, i]
  for i in range(n - 1, -1, -1):
    for j in range(i + 1, n):
      x[i] -= w[j, i] * x[j]
    x[i] /= w[i, i]


@njit(cache=True, error_model="numpy")
def lu_solve(a, piv, x):
  """Factors a (n, n) in place by LU with partial pivoting (row swaps in piv), then overwrites x with a⁻¹ x."""
  n = a.shape[0]
  for k in range(n):
    p = k
    for i in range(k + 1, n):
      if abs(a[i, k]) > abs(a[p, k]):
        p = i
    piv[k] = p
    if p != k:
      for j in range(n):
        a[k, j], a[p, j] = a[p, j], a[k, j]
      x[k], x[p] = x[p], x[k]
    for i in range(k + 1, n):
      f = a[i, k] / a[k, k]
      a[i, k] = f
      for j in range(k + 1, n):
        a[i, j] -= f * a[k, j]
      x[i] -= f * x[k]
  for i in range(n - 1, -1, -1):
    s = x[i]
    for j in range(i + 1, n):
      s -= a[i, j] * x[j]
    x[i] = s / a[i, i]
