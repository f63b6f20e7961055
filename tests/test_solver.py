"""Trajectories with contacts through our own collision stage, and long-horizon sanity of the solver."""

import os

import mujoco
import numpy as np
import pytest

import oracle
from mjgym import physics

DROP = """
<mujoco>
  <option timestep="0.002"/>
  <worldbody>
    <geom type="plane" size="5 5 .1"/>
    <body pos="0 0 .5" euler="10 20 30">
      <freejoint/>
      <geom type="{shape}" size="{size}"/>
    </body>
  </worldbody>
</mujoco>
"""
SHAPES = {"box": ".1 .08 .06", "sphere": ".1", "capsule": ".05 .15"}


def _trajectory_error(source, nstep, ctrl=None):
  mjm, mjd, m, d = oracle.load_both(source)
  worst = 0.0
  for t in range(nstep):
    if ctrl is not None:
      mjd.ctrl[:] = ctrl[t]
      d.ctrl[:] = ctrl[t]
    mujoco.mj_step(mjm, mjd)
    physics.mj_step(m, d)
    worst = max(worst, float(np.max(np.abs(d.qpos - mjd.qpos))))
  return worst


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_drop_on_plane_follows_mujoco(shape):
  """Dropped from 0.5 m: falls ~0.3 s, lands and settles; qpos within 1e-6 of MuJoCo for 400 steps."""
  err = _trajectory_error(DROP.format(shape=shape, size=SHAPES[shape]), 400)
  assert err <= 1e-6, f"{shape}: max |qpos - mujoco| = {err:.2e}"


def test_hopper_fixed_controls_follows_mujoco():
  rng = np.random.default_rng(0)
  ctrl = rng.uniform(-1, 1, (200, 3))
  err = _trajectory_error(oracle.gym_asset("hopper"), 200, ctrl)
  assert err <= 1e-6, f"hopper: max |qpos - mujoco| = {err:.2e}"


def test_box_resting_on_plane_stays_at_rest():
  xml = DROP.format(shape="box", size=SHAPES["box"]).replace('pos="0 0 .5" euler="10 20 30"', 'pos="0 0 .06"')
  m = physics.MjModel.from_xml_string(xml)
  d = physics.MjData(m)
  physics.mj_step(m, d, 5000)  # 10 s
  assert np.max(np.abs(d.qvel)) < 1e-6


def _humanoid_random(nstep, seed=0):
  m = physics.MjModel.from_xml_path(str(oracle.gym_asset("humanoid")))
  d = physics.MjData(m)
  rng = np.random.default_rng(seed)
  lo, hi = m.actuator_ctrlrange.T
  for _ in range(nstep // 100):
    d.ctrl[:] = rng.uniform(lo, hi)
    physics.mj_step(m, d, 100)
    assert np.all(np.isfinite(d.qpos)) and np.all(np.isfinite(d.qacc))
  assert d.warning.number[physics.mjtWarning.BADQACC] == 0
  assert d.warning.number[physics.mjtWarning.CNSTRFULL] == 0
  return d


def test_humanoid_random_controls_short():
  _humanoid_random(2000)


@pytest.mark.skipif(not os.environ.get("MJGYM_SLOW"), reason="100k steps; set MJGYM_SLOW=1")
def test_humanoid_random_controls_100k():
  _humanoid_random(100_000)
