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
