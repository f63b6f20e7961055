"""The vector and rotation kernels of math.py against MuJoCo's mju_* functions, bitwise."""

import mujoco
import numpy as np

from mjgym.physics import math as engine_math


def test_quaternion_algebra_is_mujocos_bitwise():
  """The quaternion kernels round as MuJoCo 4's: normalize4 (also on unit and tiny inputs), quat_mul,
  rot_vec_quat, quat_to_mat, and quat_integrate as mj_integratePos applies it to a free joint."""
  rng = np.random.default_rng(0)
  free = mujoco.MjModel.from_xml_string('<mujoco><worldbody><body><freejoint/><geom size="1"/></body>'
                                        '</worldbody></mujoco>')
  for k in range(2000):
    q = rng.normal(size=4) * 10.0 ** rng.uniform(-3, 3)
    if k % 3 == 0:
      q /= np.sqrt(np.sum(q * q))
    r = rng.normal(size=4)
    v = rng.normal(size=3)
    expected = q.copy()
    mujoco.mju_normalize4(expected)
    np.testing.assert_array_equal(engine_math.normalize4(q), expected)
    expected = np.zeros(4)
    mujoco.mju_mulQuat(expected, q, r)
    np.testing.assert_array_equal(engine_math.quat_mul(q, r), expected)
    unit = np.array(engine_math.normalize4(q))
    expected = np.zeros(3)
    mujoco.mju_rotVecQuat(expected, v, unit)
    np.testing.assert_array_equal(engine_math.rot_vec_quat(v, unit), expected)
    ours, expected = np.zeros(9), np.zeros(9)
    mujoco.mju_quat2Mat(expected, unit)
    engine_math.quat_to_mat(ours, unit)
    np.testing.assert_array_equal(ours, expected)
    qpos, qvel = np.concatenate([rng.normal(size=3), q]), rng.normal(size=6) * 10.0 ** rng.uniform(-16, 1)
    expected = qpos.copy()
    mujoco.mj_integratePos(free, expected, qvel, 0.01)
    ours = qpos[3:].copy()
    engine_math.quat_integrate(ours, qvel[3:], 0.01)
    np.testing.assert_array_equal(ours, expected[3:])
  for q in ([1.0 + 4e-16, 0, 0, 0], [1e-16, 0, 0, 0], [0.6, 0.8, 0, 1e-16]):
    expected = np.array(q)
    mujoco.mju_normalize4(expected)
    np.testing.assert_array_equal(engine_math.normalize4(np.array(q)), expected)
