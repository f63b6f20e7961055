"""Collision timing beside MuJoCo's mj_collision: per geom-pair type (height fields too) and whole scenes (humanoid,
piles of bodies).

Prints a table; no asserts on time. Both engines run collision only, after one forward pass set the poses. Scenes
that need contacts (the humanoid lying on the floor, the piles) are first settled by a MuJoCo rollout, and both
engines then take its ``qpos``. Ours is
timed twice: called from Python (what a Python loop pays, including numba's dispatch of the structref arguments) and
inside one jitted loop (the kernel alone, what the stepping pipeline pays).
"""

import importlib.resources
import time

import mujoco
import numpy as np
from numba import njit

from mjgym import physics
from mjgym.physics.collision import driver

_SIZES = {"sphere": "0.1", "capsule": "0.08 0.15", "ellipsoid": "0.08 0.12 0.15", "cylinder": "0.1 0.12",
          "box": "0.08 0.1 0.12"}
_TYPES = ("sphere", "capsule", "ellipsoid", "cylinder", "box")


@njit(cache=True)
def _collide(m, d):
  driver.collision(m, d, driver.narrow_all)


@njit(cache=True)
def _collide_n(m, d, reps):
  for _ in range(reps):
    driver.collision(m, d, driver.narrow_all)


def _time(fn, reps):
  fn()
  best = np.inf
  for _ in range(3):
    t = time.perf_counter()
    for _ in range(reps):
      fn()
    best = min(best, (time.perf_counter() - t) / reps)
  return best


def _both(xml, reps, settle=0):
  """Times both engines' collision on one state: qpos0, or the state after ``settle`` MuJoCo steps."""
  mjm = mujoco.MjModel.from_xml_string(xml)
  mjd = mujoco.MjData(mjm)
  m = physics.MjModel.from_xml_string(xml)
  d = physics.MjData(m)
  mujoco.mj_step(mjm, mjd, settle)
  d.qpos[:] = mjd.qpos
  mujoco.mj_forward(mjm, mjd)
  physics.mj_forward(m, d)
  ms, ds = m._struct, d._struct
  ours = _time(lambda: _collide(ms, ds), reps)
  kernel = _time(lambda: _collide_n(ms, ds, reps), 1) / reps
  theirs = _time(lambda: mujoco.mj_collision(mjm, mjd), reps)
  return ours, kernel, theirs, int(d.ncon), int(mjd.ncon)


def _pile(n, rng):
  bodies = []
  for i in range(n):
    t = ("box", "sphere", "capsule")[i % 3]
    x, y = rng.uniform(-1, 1, 2) * np.sqrt(n) * 0.06
    z = 0.1 + 0.25 * i / max(1, np.sqrt(n))
    bodies.append(f'<body pos="{x} {y} {z}"><freejoint/><geom type="{t}" size="{_SIZES[t]}"/></body>')
  return ("<mujoco><worldbody><geom type='plane' size='10 10 0.1'/>" + "".join(bodies) + "</worldbody></mujoco>")


def _hfield_scene(t):
  """Geom t sitting 2 cm into a 20 x 20 bumpy height field, over a few cells (several prisms touch it)."""
  rng = np.random.default_rng(1)
  values = " ".join(f"{v:.4f}" for v in rng.uniform(0, 1, 400))
  return (f'<mujoco><asset><hfield name="h" nrow="20" ncol="20" size="1 1 0.1 0.1" elevation="{values}"/>'
          f'</asset><worldbody><geom type="hfield" hfield="h"/><body pos="0.02 0.03 0.16" euler="20 30 40">'
          f'<freejoint/><geom type="{t}" size="{_SIZES[t]}"/></body></worldbody></mujoco>')


def main():
  rows = []
  for t in ("sphere", "box"):
    rows.append((f"hfield 20x20-{t}", *_both(_hfield_scene(t), 500)))
  for t2 in ("plane",) + _TYPES:
    for t1 in _TYPES:
      if t2 != "plane" and _TYPES.index(t1) > _TYPES.index(t2):
        continue
      g1 = '<geom type="plane" size="2 2 0.1"/>' if t2 == "plane" else f'<geom type="{t2}" size="{_SIZES[t2]}"/>'
      xml = (f'<mujoco><worldbody>{g1}<body pos="0.02 0.03 0.1" euler="20 30 40"><freejoint/>'
             f'<geom type="{t1}" size="{_SIZES[t1]}"/></body></worldbody></mujoco>')
      rows.append((f"{t2}-{t1}", *_both(xml, 2000)))
  humanoid = (importlib.resources.files("gymnasium.envs.mujoco") / "assets" / "humanoid.xml").read_text()
  rows.append(("humanoid (qpos0)", *_both(humanoid, 2000)))
  # Fallen from qpos0 with no control: after 1.8 s it lies on the floor (head, torso, arms, feet touching).
  rows.append(("humanoid (lying, 1.8 s)", *_both(humanoid, 2000, settle=600)))
  rng = np.random.default_rng(0)
  for n in (100, 1000):
    rows.append((f"pile of {n} bodies", *_both(_pile(n, rng), 20 if n == 1000 else 200, settle=300)))
  print(f"{'scene':28s} {'mjgym us':>10s} {'kernel us':>10s} {'mujoco us':>10s} {'ratio':>7s} {'kratio':>7s} "
        f"{'ncon':>6s} {'mj ncon':>8s}")
  for name, ours, kernel, theirs, n, mn in rows:
    print(f"{name:28s} {ours * 1e6:10.2f} {kernel * 1e6:10.2f} {theirs * 1e6:10.2f} {ours / theirs:7.2f} "
          f"{kernel / theirs:7.2f} {n:6d} {mn:8d}")


if __name__ == "__main__":
  main()
