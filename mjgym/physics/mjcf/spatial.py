"""Small frame and inertia helpers of the compiler (plain numpy; the compiler runs once per model)."""

import math

import numpy as np

IDENTITY_QUAT = np.array([1.0, 0.0, 0.0, 0.0])


# Squared lengths below this count as zero when normalizing, and lengths within it of 1 are left as they are
# (MuJoCo's mjEPS in its compiler).
_EPS = 1e-14


def normvec(v):
  """(v / |v|, |v|) as MuJoCo's compiler normalizes: squares summed in order, a unit vector left as it is, and a
  vector of squared length below _EPS returned unchanged with length 0."""
  v = np.array(v, float)
  sq = 0.0
  for x in v:
    sq += x * x
  if sq < _EPS:
    return v, 0.0
  n = sqrt(sq)
  return (v / n if abs(n - 1.0) > _EPS else v), n


def unit(v):
  return normvec(v)[0]


def quat_mul(a, b):
  """Hamilton product a * b of (w, x, y, z) quaternions."""
  aw, ax, ay, az = a
  bw, bx, by, bz = b
  return np.array([aw * bw - ax * bx - ay * by - az * bz,
                   aw * bx + ax * bw + ay * bz - az * by,
                   aw * by - ax * bz + ay * bw + az * bx,
                   aw * bz + ax * by - ay * bx + az * bw])


def quat_conj(q):
  return np.array([q[0], -q[1], -q[2], -q[3]])


def quat_to_mat(q):
  """3x3 rotation matrix of a unit quaternion."""
  w, x, y, z = q
  return np.array([
      [w * w + x * x - y * y - z * z, 2 * (x * y - w * z), 2 * (x * z + w * y)],
      [2 * (x * y + w * z), w * w - x * x + y * y - z * z, 2 * (y * z - w * x)],
      [2 * (x * z - w * y), 2 * (y * z + w * x), w * w - x * x - y * y + z * z]])


def mat_to_quat(r):
  """Unit quaternion of a rotation matrix, as MuJoCo's compiler converts a frame (largest component first)."""
  if r[0, 0] + r[1, 1] + r[2, 2] > 0:
    w = 0.5 * sqrt(1 + r[0, 0] + r[1, 1] + r[2, 2])
    q = [w, 0.25 * (r[2, 1] - r[1, 2]) / w, 0.25 * (r[0, 2] - r[2, 0]) / w, 0.25 * (r[1, 0] - r[0, 1]) / w]
  elif r[0, 0] > r[1, 1] and r[0, 0] > r[2, 2]:
    x = 0.5 * sqrt(1 + r[0, 0] - r[1, 1] - r[2, 2])
    q = [0.25 * (r[2, 1] - r[1, 2]) / x, x, 0.25 * (r[0, 1] + r[1, 0]) / x, 0.25 * (r[0, 2] + r[2, 0]) / x]
  elif r[1, 1] > r[2, 2]:
    y = 0.5 * sqrt(1 - r[0, 0] + r[1, 1] - r[2, 2])
    q = [0.25 * (r[0, 2] - r[2, 0]) / y, 0.25 * (r[0, 1] + r[1, 0]) / y, y, 0.25 * (r[1, 2] + r[2, 1]) / y]
  else:
    z = 0.5 * sqrt(1 - r[0, 0] - r[1, 1] + r[2, 2])
    q = [0.25 * (r[1, 0] - r[0, 1]) / z, 0.25 * (r[0, 2] + r[2, 0]) / z, 0.25 * (r[1, 2] + r[2, 1]) / z, z]
  return unit(q)


def rotate(q, v):
  return quat_to_mat(q) @ np.asarray(v, float)


def frame_accum(pos, quat, child_pos, child_quat):
  """(pos, quat) of the frame ``(child_pos, child_quat)`` given in the frame ``(pos, quat)``, in MuJoCo's arithmetic
  (mjuu_frameaccum: the child offset rotated by the matrix, summed in order; the product normalized as MuJoCo
  normalizes)."""
  m = quat_to_mat(quat).ravel().tolist()
  c = [float(x) for x in child_pos]
  vec = [m[0] * c[0] + m[1] * c[1] + m[2] * c[2], m[3] * c[0] + m[4] * c[1] + m[5] * c[2],
         m[6] * c[0] + m[7] * c[1] + m[8] * c[2]]
  return np.array([float(pos[k]) + vec[k] for k in range(3)]), unit(quat_mul(quat, child_quat))


def quat_z_to_vec(vec):
  """The minimal rotation taking +z to the direction of ``vec`` (half a turn about x when opposite), as MuJoCo's
  compiler computes it."""
  v = unit(vec)
  axis, s = normvec([-v[1], v[0], 0.0])  # (0, 0, 1) x v
  if s < 1e-10:
    axis = np.array([1.0, 0.0, 0.0])
  half = math.atan2(s, v[2]) / 2
  return np.array([cos(half), axis[0] * sin(half), axis[1] * sin(half), axis[2] * sin(half)])


# eig3 stops when the largest off-diagonal entry is below this fraction of the tensor's largest entry, and takes
# eigenvalues closer than that as equal when sorting. MuJoCo 4's compiler stops the principal frame of a mesh early
# and that of a body's inertia at rounding level (both measured against it).
MESH_EIG_TOL = 1e-7
INERTIA_EIG_TOL = 4e-15


def _mul3(a, b):
  """a @ b for 3x3 nested lists, each entry summed in order (numpy's matmul may not)."""
  return [[a[i][0] * b[0][j] + a[i][1] * b[1][j] + a[i][2] * b[2][j] for j in range(3)] for i in range(3)]


def eig3(tensor, rel_tol):
  """(eigenvalues descending, quaternion of the principal axes) of a symmetric 3x3 tensor, as MuJoCo's compiler
  finds them: Jacobi rotations accumulated in a quaternion started at the identity, then sorted by quarter turns.

  Bitwise MuJoCo 4, so that mesh frames (and the float32 vertices stored in them) and inertial frames match.
  """
  mat = np.asarray(tensor, float).tolist()
  tol = rel_tol * max(abs(x) for row in mat for x in row)
  quat = IDENTITY_QUAT.copy()
  for _ in range(500):
    rot = quat_to_mat(quat).tolist()
    d = _mul3(_mul3([list(c) for c in zip(*rot)], mat), rot)
    values = [d[0][0], d[1][1], d[2][2]]
    if abs(d[0][1]) > abs(d[0][2]) and abs(d[0][1]) > abs(d[1][2]):
      r, c, axis = 0, 1, 2
    elif abs(d[0][2]) > abs(d[1][2]):
      r, c, axis = 0, 2, 1
    else:
      r, c, axis = 1, 2, 0
    if abs(d[r][c]) < tol:
      break
    # the 2x2 symmetric Schur rotation zeroing d[r][c], as a half-angle quaternion about the third axis
    tau = (d[c][c] - d[r][r]) / (2 * d[r][c])
    if tau >= 0:
      t = 1.0 / (tau + math.sqrt(1 + tau * tau))
    else:
      t = -1.0 / (-tau + math.sqrt(1 + tau * tau))
    half_tan = abs(t) / (1 + math.sqrt(1 + t * t))
    cos_half = 1 / math.sqrt(1 + half_tan * half_tan)
    sin_half = (-1.0 if tau >= 0 else 1.0) * half_tan * cos_half
    step = np.zeros(4)
    step[0] = cos_half
    step[1 + axis] = -sin_half if axis == 1 else sin_half
    quat = unit(quat_mul(quat, unit(step)))
  # descending order by bubble sort (pairs 0-1, 1-2, 0-1), each swap a quarter turn about the third axis
  for j1 in (0, 1, 0):
    if values[j1] + tol < values[j1 + 1]:
      values[j1], values[j1 + 1] = values[j1 + 1], values[j1]
      step = np.array([0.707106781186548, 0.0, 0.0, 0.0])
      step[(j1 + 2) % 3 + 1] = step[0]
      quat = unit(quat_mul(quat, step))
  return np.array(values), quat


def global_inertia(local, quat):
  """(6,) inertia tensor (xx, yy, zz, xy, xz, yz) of principal moments `local` (3,) in the frame `quat`, in MuJoCo's
  arithmetic (mjuu_globalinertia), so that sums of such tensors round as MuJoCo's do."""
  m = quat_to_mat(quat).ravel().tolist()
  l0, l1, l2 = (float(x) for x in local)
  t = [m[0] * l0, m[3] * l0, m[6] * l0, m[1] * l1, m[4] * l1, m[7] * l1, m[2] * l2, m[5] * l2, m[8] * l2]
  return [m[0] * t[0] + m[1] * t[3] + m[2] * t[6],
          m[3] * t[1] + m[4] * t[4] + m[5] * t[7],
          m[6] * t[2] + m[7] * t[5] + m[8] * t[8],
          m[0] * t[1] + m[1] * t[4] + m[2] * t[7],
          m[0] * t[2] + m[1] * t[5] + m[2] * t[8],
          m[3] * t[2] + m[4] * t[5] + m[5] * t[8]]


def offcenter_inertia(mass, vec):
  """(6,) inertia (xx, yy, zz, xy, xz, yz) of a point `mass` at `vec` (3,), in MuJoCo's arithmetic (mjuu_offcenter)."""
  x, y, z = (float(v) for v in vec)
  return [mass * (y * y + z * z), mass * (x * x + z * z), mass * (x * x + y * y),
          -mass * x * y, -mass * x * z, -mass * y * z]


def tensor_from6(t):
  """3x3 symmetric matrix of a (6,) tensor (xx, yy, zz, xy, xz, yz)."""
  return np.array([[t[0], t[3], t[4]], [t[3], t[1], t[5]], [t[4], t[5], t[2]]])


def principal_frame(tensor):
  """Eigenvalues (descending) and the rotation (quaternion) to the principal axes of a body's inertia tensor."""
  return eig3(tensor, INERTIA_EIG_TOL)


def _cube(r):
  """r ** 3 as C's pow computes it, and +-inf where Python's float power raises OverflowError."""
  try:
    return r ** 3
  except OverflowError:
    return math.copysign(math.inf, r)


def sqrt(x):
  """math.sqrt, NaN (as in C) where it raises for a negative argument (only non-finite input gets there)."""
  return math.sqrt(x) if x >= 0 else math.nan


def cos(x):
  """math.cos, NaN (as in C) for an infinite angle."""
  return math.cos(x) if math.isfinite(x) else math.nan


def sin(x):
  """math.sin, NaN (as in C) for an infinite angle."""
  return math.sin(x) if math.isfinite(x) else math.nan


def primitive_inertia(gtype, size):
  """(volume, principal inertia per unit mass) of a primitive geom of the given half-sizes."""
  r = size[0]
  if gtype == "sphere":
    return 4.0 / 3.0 * math.pi * _cube(r), np.full(3, 0.4 * r * r)
  if gtype == "capsule":
    h = size[1]
    vcyl = math.pi * r * r * 2.0 * h
    vsph = 4.0 / 3.0 * math.pi * _cube(r)
    vol = vcyl + vsph
    # Cylinder plus two hemispheres, each hemisphere's own inertia moved to the end caps (Steiner).
    mc, ms = (vcyl / vol, vsph / vol) if vol else (math.nan, math.nan)
    izz = mc * 0.5 * r * r + ms * 0.4 * r * r
    ixx = mc * (3.0 * r * r + 4.0 * h * h) / 12.0 + ms * (0.4 * r * r + h * h + 0.75 * h * r)
    return vol, np.array([ixx, ixx, izz])
  if gtype == "cylinder":
    h = size[1]
    ixx = (3.0 * r * r + 4.0 * h * h) / 12.0
    return math.pi * r * r * 2.0 * h, np.array([ixx, ixx, 0.5 * r * r])
  if gtype == "ellipsoid":
    a, b, c = size
    return 4.0 / 3.0 * math.pi * a * b * c, np.array([b * b + c * c, a * a + c * c, a * a + b * b]) / 5.0
  if gtype == "box":
    a, b, c = size
    return 8.0 * a * b * c, np.array([b * b + c * c, a * a + c * c, a * a + b * b]) / 3.0
  raise ValueError(gtype)


def shell_inertia(gtype, size):
  """(surface area, principal inertia per unit mass) of a primitive geom's surface as a thin uniform shell
  (<geom shellinertia="true">): the mass spread over the faces, caps and sides by their areas."""
  r = size[0]
  if gtype == "sphere":
    return 4.0 * math.pi * r * r, np.full(3, 2.0 * r * r / 3.0)
  if gtype in ("capsule", "cylinder"):
    h = size[1]
    side = 2.0 * math.pi * r * 2.0 * h
    # the tube's own inertia: radius r, length 2h
    tube_xx, tube_zz = (6.0 * r * r + 4.0 * h * h) / 12.0, r * r
    if gtype == "capsule":
      caps = 4.0 * math.pi * r * r
      area = caps + side
      mcap = caps / area
      # two hemispherical shells: com r/2 from their flat face, moved out to h + r/2 (Steiner)
      cap_xx = 2.0 * r * r / 3.0 + (h + 0.5 * r) * (h + 0.5 * r) - 0.25 * r * r
      cap_zz = 2.0 * r * r / 3.0
    else:
      caps = 2.0 * math.pi * r * r
      area = caps + side
      mcap = caps / area
      # two disks at +-h
      cap_xx = 0.25 * r * r + h * h
      cap_zz = 0.5 * r * r
    ixx = (1.0 - mcap) * tube_xx + mcap * cap_xx
    return area, np.array([ixx, ixx, (1.0 - mcap) * tube_zz + mcap * cap_zz])
  if gtype == "ellipsoid":
    a, b, c = size
    # MuJoCo's shell ellipsoid: Thomsen's approximation of the area; the inertia as the difference between the
    # solid ellipsoid grown by 1e-6 and the solid one, both of the density that gives the shell its mass
    p = 1.6075
    area = 4.0 * math.pi * ((math.pow(a * b, p) + math.pow(b * c, p) + math.pow(c * a, p)) / 3.0) ** (1.0 / p)
    eps = 1e-6
    va = 4.0 * math.pi * a * b * c / 3.0
    ae, be, ce = a + eps, b + eps, c + eps
    vb = 4.0 * math.pi * ae * be * ce / 3.0
    density = 1.0 / (vb - va)
    ma, mb = va * density, vb * density
    return area, np.array([mb * (be * be + ce * ce) / 5.0 - ma * (b * b + c * c) / 5.0,
                           mb * (ae * ae + ce * ce) / 5.0 - ma * (a * a + c * c) / 5.0,
                           mb * (ae * ae + be * be) / 5.0 - ma * (a * a + b * b) / 5.0])
  if gtype == "box":
    lx, ly, lz = 2.0 * size[0], 2.0 * size[1], 2.0 * size[2]
    # three pairs of faces normal to z, x and y, at distances size[2], size[0], size[1] from the center
    axy, ayz, azx = lx * ly, ly * lz, lz * lx
    total = 2.0 * (axy + ayz + azx)
    mz, mx, my = axy / total, ayz / total, azx / total
    sx, sy, sz = size[0] * size[0], size[1] * size[1], size[2] * size[2]
    return total, 2.0 * np.array([
        mz * sz + my * sy + (mz * ly * ly + mx * (ly * ly + lz * lz) + my * lz * lz) / 12.0,
        mz * sz + mx * sx + (mz * lx * lx + mx * lz * lz + my * (lx * lx + lz * lz)) / 12.0,
        mx * sx + my * sy + (mz * (lx * lx + ly * ly) + mx * ly * ly + my * lx * lx) / 12.0])
  raise ValueError(gtype)


def half_extents(gtype, size):
  """Half sizes of the box around a primitive in its own frame (MuJoCo's `geom_aabb` second half)."""
  if gtype == "sphere":
    return np.full(3, size[0])
  if gtype == "capsule":
    return np.array([size[0], size[0], size[0] + size[1]])
  if gtype == "cylinder":
    return np.array([size[0], size[0], size[1]])
  return np.array(size[:3], float)


def rbound(gtype, size):
  """Radius of the sphere around the geom center that bounds a primitive."""
  if gtype == "sphere":
    return size[0]
  if gtype == "capsule":
    return size[0] + size[1]
  if gtype == "cylinder":
    return math.hypot(size[0], size[1])
  if gtype == "ellipsoid":
    return max(size)
  if gtype == "box":
    return float(np.linalg.norm(size))
  return 0.0


def euler_to_quat(angles, seq):
  """Unit quaternion of three rotations by ``angles`` (radians) about the axes of ``seq`` (three of x, y, z):
  lower case about the moving (already rotated) axes, upper case about the fixed ones."""
  q = IDENTITY_QUAT.copy()
  for ch, angle in zip(seq, angles):
    half = angle / 2
    qi = np.array([cos(half), 0.0, 0.0, 0.0])
    qi[1 + "xyz".index(ch.lower())] = sin(half)
    q = unit(quat_mul(q, qi) if ch.islower() else quat_mul(qi, q))
  return unit(q)
