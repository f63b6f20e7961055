"""Quaternion, rotation and spatial-vector algebra shared by the kernels.

Conventions follow MuJoCo: quaternions are (w, x, y, z), matrices are 3x3 row-major in flat 9-vectors,
spatial vectors are (angular, linear), and com-based inertias are 10-vectors
(Ixx, Iyy, Izz, Ixy, Ixz, Iyz, m*cx, m*cy, m*cz, m). Small results are returned as tuples (they live in
registers, so kernels allocate nothing); inputs may be arrays or tuples.
"""

import math

from numba import njit

from mjgym.physics.types import MINVAL


@njit(cache=True, error_model="numpy")
def vec3(arr):
  """The first three entries of arr (a row of an (n, 3) array) as a tuple."""
  return (arr[0], arr[1], arr[2])


@njit(cache=True, error_model="numpy")
def store(dst, v):
  """dst[:len(v)] = v, entry by entry (numba's slice assignment takes its slow general path on a few numbers)."""
  for k in range(len(v)):
    dst[k] = v[k]


@njit(cache=True, error_model="numpy")
def add3(a, b):
  """a + b."""
  return (a[0] + b[0], a[1] + b[1], a[2] + b[2])


@njit(cache=True, error_model="numpy")
def sub3(a, b):
  """a - b."""
  return (a[0] - b[0], a[1] - b[1], a[2] - b[2])


@njit(cache=True, error_model="numpy")
def scl3(a, s):
  """s a."""
  return (a[0] * s, a[1] * s, a[2] * s)


@njit(cache=True, error_model="numpy")
def add_scl3(a, b, s):
  """a + s b."""
  return (a[0] + b[0] * s, a[1] + b[1] * s, a[2] + b[2] * s)


@njit(cache=True, error_model="numpy")
def dot3(a, b):
  """a . b for 3-vectors."""
  return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]


@njit(cache=True, error_model="numpy")
def norm3(a):
  """|a|."""
  return math.sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2])


@njit(cache=True, error_model="numpy")
def dot6(a, b):
  """a . b for 6-vectors."""
  return a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3] + a[4] * b[4] + a[5] * b[5]


@njit(cache=True, error_model="numpy")
def cross(a, b):
  """a x b."""
  return (a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0])


@njit(cache=True, error_model="numpy")
def normalize3(v):
  """v / |v| (v itself if tiny)."""
  n = math.sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2])
  if n < MINVAL:
    return (v[0], v[1], v[2])
  return (v[0] / n, v[1] / n, v[2] / n)


@njit(cache=True, error_model="numpy")
def normalize4(q):
  """q / |q| as MuJoCo 4 computes it; a tiny quaternion becomes the identity, a unit one is left as is."""
  # Bitwise MuJoCo 4: the squares summed in pairs, q scaled by 1 / |q|, and no rescaling within MINVAL of 1.
  n = math.sqrt((q[0] * q[0] + q[1] * q[1]) + (q[2] * q[2] + q[3] * q[3]))
  if n < MINVAL:
    return (1.0, 0.0, 0.0, 0.0)
  if abs(n - 1.0) <= MINVAL:
    return (q[0], q[1], q[2], q[3])
  inv = 1.0 / n
  return (q[0] * inv, q[1] * inv, q[2] * inv, q[3] * inv)


@njit(cache=True, error_model="numpy")
def quat_mul(a, b):
  """a * b (Hamilton product)."""
  # Bitwise MuJoCo 4, which sums each component's four products in pairs.
  return ((a[0] * b[0] - a[1] * b[1]) + (-a[2] * b[2] - a[3] * b[3]),
          (a[0] * b[1] + a[1] * b[0]) + (a[2] * b[3] - a[3] * b[2]),
          (a[0] * b[2] - a[1] * b[3]) + (a[2] * b[0] + a[3] * b[1]),
          (a[0] * b[3] + a[1] * b[2]) + (a[3] * b[0] - a[2] * b[1]))


@njit(cache=True, error_model="numpy")
def quat_to_mat(res, q):
  """res (9,) = rotation matrix of unit quaternion q."""
  w, x, y, z = q[0], q[1], q[2], q[3]
  ww, xx, yy, zz = w * w, x * x, y * y, z * z
  # Bitwise MuJoCo 4: each diagonal entry sums its four squares in these pairs.
  res[0] = (ww - yy) + (xx - zz)
  res[4] = (ww + yy) - (xx + zz)
  res[8] = (ww - yy) + (zz - xx)
  res[1] = 2.0 * (x * y - w * z)
  res[2] = 2.0 * (x * z + w * y)
  res[3] = 2.0 * (x * y + w * z)
  res[5] = 2.0 * (y * z - w * x)
  res[6] = 2.0 * (x * z - w * y)
  res[7] = 2.0 * (y * z + w * x)


@njit(cache=True, error_model="numpy")
def rot_vec_quat(v, q):
  """v rotated by unit quaternion q."""
  # q v q* expanded as MuJoCo does: t = w v + u x v, then v + 2 u x t, u = vector part of q
  tx = q[0] * v[0] + q[2] * v[2] - q[3] * v[1]
  ty = q[0] * v[1] + q[3] * v[0] - q[1] * v[2]
  tz = q[0] * v[2] + q[1] * v[1] - q[2] * v[0]
  return (v[0] + 2.0 * (q[2] * tz - q[3] * ty),
          v[1] + 2.0 * (q[3] * tx - q[1] * tz),
          v[2] + 2.0 * (q[1] * ty - q[2] * tx))


@njit(cache=True, error_model="numpy")
def mat_vec(mat, v):
  """mat (9,) @ v."""
  return (mat[0] * v[0] + mat[1] * v[1] + mat[2] * v[2],
          mat[3] * v[0] + mat[4] * v[1] + mat[5] * v[2],
          mat[6] * v[0] + mat[7] * v[1] + mat[8] * v[2])


@njit(cache=True, error_model="numpy")
def mat_t_vec(mat, v):
  """mat (9,)ᵀ @ v."""
  return (mat[0] * v[0] + mat[3] * v[1] + mat[6] * v[2],
          mat[1] * v[0] + mat[4] * v[1] + mat[7] * v[2],
          mat[2] * v[0] + mat[5] * v[1] + mat[8] * v[2])


@njit(cache=True, error_model="numpy")
def frame_axis(mat, k):
  """Column k of the rotation mat (9,): axis k of the frame in world coordinates."""
  return (mat[k], mat[3 + k], mat[6 + k])


@njit(cache=True, error_model="numpy")
def axis_angle_to_quat(axis, angle):
  """Quaternion of a rotation by ``angle`` about the unit ``axis``."""
  if angle == 0.0:
    return (1.0, 0.0, 0.0, 0.0)
  s = math.sin(0.5 * angle)
  return (math.cos(0.5 * angle), axis[0] * s, axis[1] * s, axis[2] * s)


@njit(cache=True, error_model="numpy")
def _vec_to_tangent(w, x, y, z, dt):
  """Axis times angle / dt of unit quaternion (w, x, y, z), the short way round."""
  sin_a_2 = math.sqrt(x * x + y * y + z * z)
  if sin_a_2 == 0.0:
    return (0.0, 0.0, 0.0)
  angle = 2.0 * math.atan2(sin_a_2, w)
  # q and -q are the same rotation
  if angle > math.pi:
    angle -= 2.0 * math.pi
  scale = angle / (sin_a_2 * dt)
  return (x * scale, y * scale, z * scale)


@njit(cache=True, error_model="numpy")
def quat_to_vel(q, dt):
  """Angular velocity that rotates by unit quaternion q in time dt."""
  return _vec_to_tangent(q[0], q[1], q[2], q[3], dt)


@njit(cache=True, error_model="numpy")
def quat_sub(qa, qb):
  """qa - qb in qb's tangent space: the 3-vector r with qb * exp(r) = qa (unit quaternions)."""
  w, x, y, z = quat_mul((qb[0], -qb[1], -qb[2], -qb[3]), qa)
  return _vec_to_tangent(w, x, y, z, 1.0)


@njit(cache=True, error_model="numpy")
def quat_integrate(q, omega, h):
  """Rotates quaternion array q in place by local angular velocity omega over time h.

  As MuJoCo does it: q is normalized first and the rotated result is left as the product gives it.
  """
  norm = math.sqrt(omega[0] * omega[0] + omega[1] * omega[1] + omega[2] * omega[2])
  if norm < MINVAL:
    axis = (1.0, 0.0, 0.0)
  else:
    inv = 1.0 / norm
    axis = (omega[0] * inv, omega[1] * inv, omega[2] * inv)
  r = quat_mul(normalize4(q), axis_angle_to_quat(axis, h * norm))
  q[0] = r[0]
  q[1] = r[1]
  q[2] = r[2]
  q[3] = r[3]


@njit(cache=True, error_model="numpy")
def cross_motion(v, u):
  """v ×ₘ u: spatial motion cross product (rate of change of motion u in a frame moving with v)."""
  return (v[1] * u[2] - v[2] * u[1],
          v[2] * u[0] - v[0] * u[2],
          v[0] * u[1] - v[1] * u[0],
          v[1] * u[5] - v[2] * u[4] + v[4] * u[2] - v[5] * u[1],
          v[2] * u[3] - v[0] * u[5] + v[5] * u[0] - v[3] * u[2],
          v[0] * u[4] - v[1] * u[3] + v[3] * u[1] - v[4] * u[0])


@njit(cache=True, error_model="numpy")
def cross_force(v, f):
  """v ×f f: spatial force cross product (the dual of cross_motion)."""
  return (v[1] * f[2] - v[2] * f[1] + v[4] * f[5] - v[5] * f[4],
          v[2] * f[0] - v[0] * f[2] + v[5] * f[3] - v[3] * f[5],
          v[0] * f[1] - v[1] * f[0] + v[3] * f[4] - v[4] * f[3],
          v[1] * f[5] - v[2] * f[4],
          v[2] * f[3] - v[0] * f[5],
          v[0] * f[4] - v[1] * f[3])


@njit(cache=True, error_model="numpy")
def mul_inert_vec(i, v):
  """Spatial force (momentum) of com-based inertia i (10,) moving with spatial velocity v."""
  # angular: I w + (m c) x v_lin; linear: m v_lin - (m c) x w
  return (i[0] * v[0] + i[3] * v[1] + i[4] * v[2] - i[8] * v[4] + i[7] * v[5],
          i[3] * v[0] + i[1] * v[1] + i[5] * v[2] + i[8] * v[3] - i[6] * v[5],
          i[4] * v[0] + i[5] * v[1] + i[2] * v[2] - i[7] * v[3] + i[6] * v[4],
          i[8] * v[1] - i[7] * v[2] + i[9] * v[3],
          i[6] * v[2] - i[8] * v[0] + i[9] * v[4],
          i[7] * v[0] - i[6] * v[1] + i[9] * v[5])


@njit(cache=True, error_model="numpy", inline="always")
def solmix_weight(s1, s2):
  """Weight of the first side's solref/solimp when two contact sides of equal priority mix (solmix s1, s2):
  s1 / (s1 + s2), with a side below MINVAL weighing nothing (both below: 0.5), as MuJoCo."""
  if s1 < MINVAL and s2 < MINVAL:
    return 0.5
  if s1 < MINVAL:
    return 0.0
  if s2 < MINVAL:
    return 1.0
  return s1 / (s1 + s2)
