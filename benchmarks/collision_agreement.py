"""How often our multi-contact colliders give exactly MuJoCo's contacts, over random poses.

Prints one row per scene: poses where either engine found a contact, how many of those have MuJoCo's contact count,
and how many agree exactly (same count, and every contact's dist, pos and normal within ``--tol`` of MuJoCo's,
matched as a set). No asserts: the oracle tests hold the pass/fail checks; this shows the agreement on many more
poses and shapes than they run. Some hulls' vertices come out of our mesh compile ~6e-8 away from MuJoCo's, so
``--tol 1e-6`` separates the collider's choice of contacts from that. The multiccd rows (general convex pairs with
MuJoCo's multiccd on, its default) run with ccd_iterations 2000 and ccd_tolerance 1e-13, so that both GJK/EPA
converge; curved shapes then still differ by ~1e-6 (EPA on a curved boundary), so read those at ``--tol 1e-4``.

  python benchmarks/collision_agreement.py --poses 2000
"""

import argparse

import mujoco
import numpy as np

from mjgym import physics


def _agree(xml, sample, poses, tol, assets=None, keep=None):
  """(agreeing poses, poses with MuJoCo's contact count, compared poses) of one two-body scene under the sampler."""
  mjm = mujoco.MjModel.from_xml_string(xml, assets or {})
  mjd = mujoco.MjData(mjm)
  m = physics.MjModel.from_xml_string(xml, assets or {})
  d = physics.MjData(m)
  rng = np.random.default_rng(0)
  same = same_count = total = 0
  for _ in range(poses):
    q = sample(rng)
    mjd.qpos[:] = q
    d.qpos[:] = q
    mujoco.mj_forward(mjm, mjd)
    physics.mj_forward(m, d)
    n = int(d.ncon)
    if (mjd.ncon == 0 and n == 0) or (keep is not None and not keep(mjd)):
      continue
    total += 1
    if n != mjd.ncon:
      continue
    same_count += 1
    ok = True
    for i in range(mjd.ncon):
      err = min(max(abs(d.contact.dist[j] - mjd.contact.dist[i]), np.abs(d.contact.pos[j] - mjd.contact.pos[i]).max(),
                    np.abs(d.contact.frame[j, :3] - mjd.contact.frame[i, :3]).max()) for j in range(n))
      ok = ok and err < tol
    same += ok
  return same, same_count, total


def _two_free(rng):
  q1, q2 = rng.normal(size=4), rng.normal(size=4)
  return np.r_[0.0, 0.0, 0.0, q1 / np.linalg.norm(q1), rng.uniform(-1, 1, 3) * 0.2, q2 / np.linalg.norm(q2)]


def _over_plane(rng):
  q = rng.normal(size=4)
  return np.r_[rng.uniform(-1, 1, 2), rng.uniform(0, 0.12), q / np.linalg.norm(q)]


def _hull_obj(seed):
  """The irregular convex point cloud of tests/test_collision.py (seed 5 there)."""
  rng = np.random.default_rng(seed)
  pts = rng.normal(size=(24, 3)) * (0.09, 0.07, 0.05)
  return ("\n".join(f"v {x!r} {y!r} {z!r}" for x, y, z in pts.tolist()) + "\n").encode()


def _end_in_box(mjd):
  """Capsule (geom 0, half-length 0.15) with an end of its segment in the box (geom 1)."""
  ends = mjd.geom_xpos[0] + np.outer([-1.0, 1.0], mjd.geom_xmat[0].reshape(3, 3)[:, 2] * 0.15)
  local = (ends - mjd.geom_xpos[1]) @ mjd.geom_xmat[1].reshape(3, 3)
  return bool(np.any(np.all(np.abs(local) <= [0.08, 0.1, 0.12], axis=1)))


def _crossing(mjd):
  """Capsule segment crossing the box (geom 1) with both ends outside it."""
  half, size = 0.15, np.array([0.08, 0.1, 0.12])
  pts = mjd.geom_xpos[0] + np.outer(np.linspace(-1, 1, 2001), mjd.geom_xmat[0].reshape(3, 3)[:, 2] * half)
  local = (pts - mjd.geom_xpos[1]) @ mjd.geom_xmat[1].reshape(3, 3)
  inside = np.all(np.abs(local) <= size, axis=1)
  return bool(inside.any() and not inside[0] and not inside[-1])


def _outside_on(sides):
  """Capsule segment outside the box, nearest ball's box witness on ``sides`` side planes (1 face, 2 edge, 3 corner)."""
  def keep(mjd):
    half, size = 0.15, np.array([0.08, 0.1, 0.12])
    ends = mjd.geom_xpos[0] + np.outer(np.linspace(-1, 1, 2001), mjd.geom_xmat[0].reshape(3, 3)[:, 2] * half)
    local = (ends - mjd.geom_xpos[1]) @ mjd.geom_xmat[1].reshape(3, 3)
    if mjd.ncon == 0 or np.any(np.all(np.abs(local) <= size, axis=1)):
      return False
    i = int(np.argmin(mjd.contact.dist))
    w = mjd.contact.pos[i] + 0.5 * mjd.contact.dist[i] * mjd.contact.frame[i, :3]
    w = (w - mjd.geom_xpos[1]) @ mjd.geom_xmat[1].reshape(3, 3)
    return int(np.sum(np.abs(np.abs(w) - size) < 1e-9)) == sides
  return keep


_MULTICCD_PAIRS = (("box", "mesh"), ("mesh", "mesh"), ("capsule", "mesh"), ("cylinder", "box"),
                   ("cylinder", "mesh"), ("cylinder", "cylinder"), ("capsule", "cylinder"))
_SHAPES = {"box": 'type="box" size="0.1 0.07 0.05"', "cylinder": 'type="cylinder" size="0.08 0.06"',
           "capsule": 'type="capsule" size="0.04 0.08"', "mesh": 'type="mesh" mesh="hull"'}


def _multiccd_xml(t1, t2):
  """Two free geoms for the general convex collider, multiccd on, GJK/EPA run to convergence; geom2 has a margin."""
  first = 'type="mesh" mesh="other"' if t1 == t2 == "mesh" else _SHAPES[t1]
  return f"""<mujoco><option ccd_iterations="2000" ccd_tolerance="1e-13"/>
    <asset><mesh name="hull" file="hull.obj"/><mesh name="other" file="other.obj"/></asset><worldbody>
    <body><freejoint/><geom {first}/></body><body><freejoint/><geom {_SHAPES[t2]} margin="0.01"/></body>
    </worldbody></mujoco>"""


def main():
  parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
  parser.add_argument("--poses", type=int, default=2000)
  parser.add_argument("--tol", type=float, default=1e-8)
  parser.add_argument("--hulls", type=int, default=20, help="plane-mesh: number of random hulls (seeds 5, 6, ...)")
  args = parser.parse_args()
  rows = []
  for s1, s2, margin in (("0.08 0.1 0.12", "0.08 0.1 0.12", 0.02), ("0.05 0.2 0.1", "0.15 0.03 0.07", 0.0),
                         ("0.1 0.1 0.1", "0.3 0.02 0.2", 0.05)):
    xml = f"""<mujoco><worldbody><body><freejoint/><geom type="box" size="{s1}" margin="{margin}"/></body>
      <body><freejoint/><geom type="box" size="{s2}"/></body></worldbody></mujoco>"""
    rows.append((f"box-box {s1} | {s2}, margin {margin}", *_agree(xml, _two_free, args.poses, args.tol)))
  xml = """<mujoco><worldbody><body><freejoint/><geom type="capsule" size="0.08 0.15" margin="0.02"/></body>
    <body><freejoint/><geom type="box" size="0.08 0.1 0.12"/></body></worldbody></mujoco>"""
  rows.append(("capsule-box, segment end in box", *_agree(xml, _two_free, args.poses, args.tol, keep=_end_in_box)))
  rows.append(("capsule-box, segment crossing the box", *_agree(xml, _two_free, args.poses, args.tol, keep=_crossing)))
  for sides, name in ((1, "a face"), (2, "an edge"), (3, "a corner")):
    rows.append((f"capsule-box, outside, nearest on {name}",
                 *_agree(xml, _two_free, args.poses, args.tol, keep=_outside_on(sides))))
  xml = """<mujoco><asset><mesh name="hull" file="hull.obj"/></asset><worldbody><geom type="plane" size="2 2 0.1"/>
    <body><freejoint/><geom type="mesh" mesh="hull" margin="0.02"/></body></worldbody></mujoco>"""
  same = same_count = total = 0
  for seed in range(5, 5 + args.hulls):
    s, c, t = _agree(xml, _over_plane, args.poses // 2, args.tol, {"hull.obj": _hull_obj(seed)})
    rows.append((f"plane-mesh, hull seed {seed}", s, c, t))
    same, same_count, total = same + s, same_count + c, total + t
  rows.append((f"plane-mesh, {args.hulls} hulls", same, same_count, total))
  assets = {"hull.obj": _hull_obj(5), "other.obj": _hull_obj(6)}
  for t1, t2 in _MULTICCD_PAIRS:
    rows.append((f"multiccd {t1}-{t2}", *_agree(_multiccd_xml(t1, t2), _two_free, args.poses, args.tol, assets)))
  print(f"{'scene':46s} {'agree':>7s} {'count':>7s} {'posed':>7s} {'share':>7s} {'count':>7s}   (tol {args.tol:g})")
  for name, s, c, t in rows:
    print(f"{name:46s} {s:7d} {c:7d} {t:7d} {s / max(t, 1):7.4f} {c / max(t, 1):7.4f}")


if __name__ == "__main__":
  main()
