"""Collision detection against MuJoCo: Gymnasium models in rollouts, every primitive pair at random poses, filters;
GJK's simplex step against a search of every sub-simplex."""

import itertools
import zlib

import mujoco
import numpy as np
import pytest

from mjgym import physics
from mjgym.physics.collision import convex
from mjgym.physics.collision import driver
from mjgym.physics.types import Warning

import oracle
from oracle import MODELS_DIR
from oracle import gym_asset

# Pairs whose colliders are closed forms (1e-8); the rest (GJK/EPA) are held to the deepest contact, box-box to every
# contact (1e-8).
_SIZES = {"sphere": "0.1", "capsule": "0.08 0.15", "ellipsoid": "0.08 0.12 0.15", "cylinder": "0.1 0.12",
          "box": "0.08 0.1 0.12"}
_EXACT = {("plane", "sphere"), ("plane", "capsule"), ("plane", "box"), ("plane", "cylinder"), ("plane", "ellipsoid"),
          ("sphere", "sphere"), ("sphere", "capsule"), ("sphere", "box"), ("capsule", "capsule"),
          ("sphere", "cylinder")}
# MuJoCo's general convex collider stops after opt.ccd_iterations (35) at ccd_tolerance (1e-6): on curved shapes its
# depth is then off by up to 4e-4 and its normal by up to 0.35 from the converged answer. Ours reads the same options
# but is a different GJK/EPA, so both run to convergence here (ours floors EPA's tolerance at 1e-10 relative).
# MuJoCo 4 also enables multiccd by default (its bit is a disable flag): where flat features meet it returns several
# contacts sharing one normal (collision/multiccd.py reproduces its rule; test_multiccd_random_poses compares them).
# These tests check the collider's single deepest contact, so multiccd is off here.
_CONVERGED = '<option ccd_iterations="2000" ccd_tolerance="1e-13"><flag multiccd="disable" gravity="disable"/>'
_TYPES = ("plane", "sphere", "capsule", "ellipsoid", "cylinder", "box")


def _forward_at(mjm, mjd, m, d, qpos):
  """Both engines' forward pass at the same qpos (nq,)."""
  mjd.qpos[:] = qpos
  oracle.forward_both(mjm, mjd, m, d)


def _forwarded(xml, qpos=None, assets=None):
  """(mjd, d) after a forward pass of both engines on one MJCF text, at qpos (default: the model's qpos0)."""
  mjm, mjd, m, d = oracle.load_both(xml, assets)
  _forward_at(mjm, mjd, m, d, mjm.qpos0 if qpos is None else qpos)
  return mjd, d


def _pairs(geom1, geom2):
  return sorted(zip(np.asarray(geom1).tolist(), np.asarray(geom2).tolist()))


def _geom_pairs(geom1, geom2):
  """The contacts' geom pairs in their order."""
  return list(zip(np.asarray(geom1).tolist(), np.asarray(geom2).tolist()))


def _same_in_order(mjd, d, msg=""):
  """MuJoCo's contact count, and each contact's pos and dist within 1e-8 in MuJoCo's order."""
  assert d.ncon == mjd.ncon, msg
  np.testing.assert_allclose(d.contact.pos[:mjd.ncon], mjd.contact.pos, atol=1e-8, err_msg=msg)
  np.testing.assert_allclose(d.contact.dist[:mjd.ncon], mjd.contact.dist, atol=1e-8, err_msg=msg)


def _match(mjd, d, tol, fields=True):
  """Same contacts as MuJoCo (as a set, matched by pair and position); returns the largest error."""
  n = int(d.ncon)
  assert _pairs(mjd.contact.geom1, mjd.contact.geom2) == _pairs(d.contact.geom1, d.contact.geom2)
  worst = 0.0
  used = set()
  for i in range(mjd.ncon):
    cands = [j for j in range(n) if j not in used and d.contact.geom1[j] == mjd.contact.geom1[i]
             and d.contact.geom2[j] == mjd.contact.geom2[i]]
    j = min(cands, key=lambda j: np.abs(d.contact.pos[j] - mjd.contact.pos[i]).max())
    used.add(j)
    err = max(abs(d.contact.dist[j] - mjd.contact.dist[i]), np.abs(d.contact.pos[j] - mjd.contact.pos[i]).max(),
              np.abs(d.contact.frame[j] - mjd.contact.frame[i]).max())
    assert err < tol, (i, err)
    if fields:
      for f in ("friction", "solref", "solreffriction", "solimp", "includemargin", "dim", "exclude"):
        np.testing.assert_allclose(getattr(d.contact, f)[j], getattr(mjd.contact, f)[i], atol=1e-12, err_msg=f)
    worst = max(worst, err)
  return worst


@pytest.mark.parametrize("name", ["ant", "humanoid", "hopper", "walker2d", "half_cheetah"])
def test_gym_rollout_contacts(name):
  """Contacts of Gymnasium models at states from random-control MuJoCo rollouts match to 1e-8, in MuJoCo's order."""
  mjm, mjd, m, d = oracle.load_both(gym_asset(name))
  rng = np.random.default_rng(1)
  total = 0
  for t in range(400):
    mjd.ctrl[:] = rng.uniform(-1, 1, mjm.nu)
    mujoco.mj_step(mjm, mjd)
    if t % 20:
      continue
    oracle.forward_both(mjm, mjd, m, d)
    assert d.ncon == mjd.ncon
    assert (_geom_pairs(d.contact.geom1[:d.ncon], d.contact.geom2[:d.ncon])
            == _geom_pairs(mjd.contact.geom1, mjd.contact.geom2))
    _match(mjd, d, 1e-8)
    total += mjd.ncon
  assert total > 0


def _pair_scene(t1, t2, margin):
  g1 = ('<geom type="plane" size="2 2 0.1"' if t1 == "plane" else f'<geom type="{t1}" size="{_SIZES[t1]}"')
  return f"""<mujoco><option><flag gravity="disable"/></option><worldbody>
    <body name="a">{'' if t1 == 'plane' else '<freejoint/>'}{g1} margin="{margin}"/></body>
    <body name="b"><freejoint/><geom type="{t2}" size="{_SIZES[t2]}"/></body></worldbody></mujoco>"""


def _random_qpos(rng, t1, scale):
  """Poses around contact: the second geom near the first (or near the plane), random orientations."""
  q = []
  if t1 != "plane":
    quat = rng.normal(size=4)
    q += [0.0, 0.0, 0.0, *(quat / np.linalg.norm(quat))]
  quat = rng.normal(size=4)
  pos = rng.uniform(-1, 1, 3) * scale
  if t1 == "plane":
    pos[2] = abs(pos[2]) * 0.6
  q += [*pos, *(quat / np.linalg.norm(quat))]
  return np.array(q)


def _seed(*names):
  """A seed that is the same in every process (str hashes are salted per process)."""
  return zlib.crc32("-".join(names).encode())


def _box_box_axes(mjd):
  """Best face-axis and best edge-axis separation of the two boxes of a pair scene (separating-axis test)."""
  c1, c2 = mjd.geom_xpos[0], mjd.geom_xpos[1]
  r1, r2 = mjd.geom_xmat[0].reshape(3, 3), mjd.geom_xmat[1].reshape(3, 3)
  s = np.array([float(x) for x in _SIZES["box"].split()])
  def sep(u):
    return abs((c2 - c1) @ u) - s @ np.abs(r1.T @ u) - s @ np.abs(r2.T @ u)
  face = max(sep(r[:, i]) for r in (r1, r2) for i in range(3))
  edge = -np.inf
  for i, j in itertools.product(range(3), range(3)):
    u = np.cross(r1[:, i], r2[:, j])
    if np.linalg.norm(u) > 1e-6:
      edge = max(edge, sep(u / np.linalg.norm(u)))
  return face, edge


def _box_witness_sides(mjd, i):
  """On how many box (geom 1) side planes contact i's witness point on the box lies: 1 face, 2 edge, 3 corner."""
  s = np.array([float(x) for x in _SIZES["box"].split()])
  w = mjd.contact.pos[i] + 0.5 * mjd.contact.dist[i] * mjd.contact.frame[i, :3]
  local = (w - mjd.geom_xpos[1]) @ mjd.geom_xmat[1].reshape(3, 3)
  return int(np.sum(np.abs(np.abs(local) - s) < 1e-9))


def _segment_end_in_box(mjd):
  """Whether an end of the capsule's segment (geom 0) lies in the box (geom 1)."""
  half = float(_SIZES["capsule"].split()[1])
  s = np.array([float(x) for x in _SIZES["box"].split()])
  ends = mjd.geom_xpos[0] + np.outer([-1.0, 1.0], mjd.geom_xmat[0].reshape(3, 3)[:, 2] * half)
  local = (ends - mjd.geom_xpos[1]) @ mjd.geom_xmat[1].reshape(3, 3)
  return bool(np.any(np.all(np.abs(local) <= s, axis=1)))


def _segment_enters_box(mjd):
  """Whether the capsule's segment (geom 0) reaches the box (geom 1), by dense sampling."""
  half = float(_SIZES["capsule"].split()[1])
  s = np.array([float(x) for x in _SIZES["box"].split()])
  ends = mjd.geom_xpos[0] + np.outer(np.linspace(-1, 1, 4001), mjd.geom_xmat[0].reshape(3, 3)[:, 2] * half)
  local = (ends - mjd.geom_xpos[1]) @ mjd.geom_xmat[1].reshape(3, 3)
  return bool(np.any(np.all(np.abs(local) <= s + 1e-6, axis=1)))


@pytest.mark.parametrize("t1,t2", [p for p in itertools.combinations_with_replacement(_TYPES, 2)
                                   if p != ("plane", "plane")])
def test_pair_random_poses(t1, t2):
  """Every primitive pair at random poses (penetrating, touching, within and beyond margin) against MuJoCo."""
  rng = np.random.default_rng(_seed(t1, t2))
  exact = (t1, t2) in _EXACT
  xml = _pair_scene(t1, t2, 0.02)
  if not exact:
    xml = xml.replace("<option><flag gravity=\"disable\"/>", _CONVERGED)
  mjm, mjd, m, d = oracle.load_both(xml)
  hits = compared = edge_wins = face_kept = all_exact = 0
  for _ in range(60):
    q = _random_qpos(rng, t1, 0.2)
    _forward_at(mjm, mjd, m, d, q)
    hits += mjd.ncon > 0
    if exact:
      assert d.ncon == mjd.ncon
      _match(mjd, d, 1e-8)
      continue
    assert (d.ncon > 0) == (mjd.ncon > 0)
    if not mjd.ncon:
      continue
    i = int(np.argmin(mjd.contact.dist))
    j = int(np.argmin(d.contact.dist))
    if (t1, t2) == ("capsule", "box"):
      # MuJoCo's balls on the capsule's segment (see test_capsule_box_rules): exact with an end in the box, the segment
      # crossing it, or the first ball beyond a face; otherwise (an edge or corner, ~98.5% agree) the deepest contact.
      if _segment_end_in_box(mjd) or _segment_enters_box(mjd) or _box_witness_sides(mjd, i) == 1:
        assert d.ncon == mjd.ncon
        _match(mjd, d, 1e-8)
        all_exact += 1
      assert abs(d.contact.dist[j] - mjd.contact.dist[i]) < 1e-8
      np.testing.assert_allclose(d.contact.pos[j], mjd.contact.pos[i], atol=1e-8)
      np.testing.assert_allclose(d.contact.frame[j, :3], mjd.contact.frame[i, :3], atol=1e-8)
      compared += 1
      continue
    if t1 == t2 == "box":
      # MuJoCo's face-over-edge preference is reproduced: the same face clip or edge contact, every contact exact.
      face, edge = _box_box_axes(mjd)
      edge_wins += edge > face
      face_kept += edge > face and mjd.ncon > 1
      assert d.ncon == mjd.ncon
      _match(mjd, d, 1e-8)
    # Deepest contact to 1e-4, its normal to 1e-3.
    assert abs(d.contact.dist[j] - mjd.contact.dist[i]) < 1e-4
    np.testing.assert_allclose(d.contact.frame[j, :3], mjd.contact.frame[i, :3], atol=1e-3)
    compared += 1
  assert hits > 5
  assert exact or compared > 5
  if (t1, t2) == ("capsule", "box"):
    assert all_exact > 20
  if t1 == t2 == "box":
    # The poses include edge axes that win outright and face axes kept against a slightly better edge axis.
    assert edge_wins > face_kept > 0


def _capsule_box_case(mjd, r, half, size):
  """How the capsule's segment (geom 0) meets the box (geom 1), read from the poses and MuJoCo's first contact.

  'end in': an end of the segment in the box; 'crossing': the segment crosses the box with both ends outside;
  outside the box, by where MuJoCo's first ball (center = pos - (r + dist / 2) normal) lies: 'face' beyond one face
  plane, 'edge' beyond two at a segment point between the ends (the segment not parallel to the box's edges), and
  'other' for the rest (an end beyond an edge or corner, beyond a corner, parallel beside an edge).
  """
  rot = mjd.geom_xmat[1].reshape(3, 3)
  lc = (mjd.geom_xpos[0] - mjd.geom_xpos[1]) @ rot
  la = mjd.geom_xmat[0].reshape(3, 3)[:, 2] @ rot * half
  if np.any(np.all(np.abs(lc + np.outer([-1.0, 1.0], la)) <= size, axis=1)):
    return "end in"
  # Slab test: the stretch of the segment between every pair of opposite face planes.
  lo, hi = -1.0, 1.0
  for k in range(3):
    if abs(la[k]) < 1e-15:
      lo, hi = (lo, hi) if abs(lc[k]) <= size[k] else (1.0, -1.0)
      continue
    a, b = sorted(((-size[k] - lc[k]) / la[k], (size[k] - lc[k]) / la[k]))
    lo, hi = max(lo, a), min(hi, b)
  if lo <= hi:
    return "crossing"
  n = mjd.contact.frame[0, :3]
  ball = (mjd.contact.pos[0] - (r + 0.5 * mjd.contact.dist[0]) * n - mjd.geom_xpos[1]) @ rot
  beyond = int(np.sum(np.abs(ball) > size))
  t = (ball - lc) @ la / (la @ la)
  if beyond == 1:
    return "face"
  if beyond == 2 and abs(abs(t) - 1.0) > 1e-9 and np.abs(la).max() < half * (1.0 - 1e-9):
    return "edge"
  return "other"


@pytest.mark.parametrize("r,half,size,margin", [(0.04, 0.08, (0.1, 0.07, 0.05), 0.0),
                                                (0.08, 0.15, (0.08, 0.1, 0.12), 0.02),
                                                (0.01, 0.3, (0.1, 0.1, 0.1), 0.0)])
def test_capsule_box_rules(r, half, size, margin):
  """Capsule-box gives MuJoCo's contacts exactly and in MuJoCo's order (see ``_capsule_box_case``): with an end of
  the segment in the box, the segment crossing the box (both ends outside), and outside it with the first ball
  beyond a face or an edge, at random poses and with the capsule parallel to box edges. In the 'other' poses the
  second ball is not always MuJoCo's, and only the first contact is compared."""
  xml = f"""<mujoco><worldbody><body><freejoint/><geom type="capsule" size="{r} {half}" margin="{margin}"/></body>
    <body><freejoint/><geom type="box" size="{size[0]} {size[1]} {size[2]}"/></body></worldbody></mujoco>"""
  mjm, mjd, m, d = oracle.load_both(xml)
  rng = np.random.default_rng(_seed("capsule-box", str(r)))
  spread = 1.5 * max(size) + 0.5 * half
  aligned = ((1.0, 0.0, 0.0, 0.0), (0.5 ** 0.5, 0.0, 0.5 ** 0.5, 0.0), (0.5 ** 0.5, 0.5 ** 0.5, 0.0, 0.0))
  seen = {}
  for k in range(900):
    if k % 3:
      quat = rng.normal(size=4)
      quat /= np.linalg.norm(quat)
    else:
      quat = aligned[k // 3 % 3]
    q = np.r_[0.0, 0.0, 0.0, quat, rng.uniform(-1, 1, 3) * spread, 1.0, 0.0, 0.0, 0.0]
    _forward_at(mjm, mjd, m, d, q)
    if mjd.ncon == 0:
      assert d.ncon == 0
      continue
    case = _capsule_box_case(mjd, r, half, np.array(size))
    seen[case] = seen.get(case, 0) + 1
    if case == "other":
      assert d.ncon >= 1
      err = max(abs(d.contact.dist[0] - mjd.contact.dist[0]), np.abs(d.contact.pos[0] - mjd.contact.pos[0]).max(),
                np.abs(d.contact.frame[0, :3] - mjd.contact.frame[0, :3]).max())
      assert err < 1e-8
      continue
    _same_in_order(mjd, d, case)
    np.testing.assert_allclose(d.contact.frame[:mjd.ncon, :3], mjd.contact.frame[:, :3], atol=1e-8, err_msg=case)
  assert min(seen.get(c, 0) for c in ("end in", "crossing", "face", "edge")) > 10, seen


_BOX_ON_BOX = """<mujoco><option><flag gravity="disable"/></option><worldbody>
  <body><freejoint/><geom type="box" size="0.1 0.12 0.09"/></body>
  <body><freejoint/><geom type="box" size="0.08 0.07 0.06"/></body></worldbody></mujoco>"""


def test_box_box_contact_order():
  """A box against a face of another at random orientations: MuJoCo's contacts in MuJoCo's order, which starts
  where clipping against the reference face's sides (axes after the face's, + side first) leaves the polygon."""
  mjm, mjd, m, d = oracle.load_both(_BOX_ON_BOX)
  rng = np.random.default_rng(_seed("box-box", "order"))
  multi = 0
  for _ in range(300):
    q1, q2 = rng.normal(size=4), rng.normal(size=4)
    q2 = q1 + q2 * rng.choice([1e-3, 1e-2, 1.0])
    mjd.qpos[:] = np.r_[np.zeros(3), q1 / np.linalg.norm(q1), np.zeros(3), q2 / np.linalg.norm(q2)]
    mujoco.mj_kinematics(mjm, mjd)
    frame = mjd.xmat[1].reshape(3, 3)
    k, side = rng.integers(3), rng.choice([-1.0, 1.0])
    mjd.qpos[7:10] = frame[:, k] * side * (mjm.geom_size[0, k] + 0.06) + frame[:, (k + 1) % 3] * rng.uniform(-0.1, 0.1)
    _forward_at(mjm, mjd, m, d, mjd.qpos.copy())
    _same_in_order(mjd, d)
    multi += mjd.ncon > 2
  assert multi > 100


def test_box_box_corner_on_edge():
  """A lid's corner within 1e-10 to 1e-6 of the edge of the box below: clipping leaves two corners a round-off apart
  and MuJoCo keeps one; the same contacts in the same order here."""
  mjm, mjd, m, d = oracle.load_both(_BOX_ON_BOX.replace("0.1 0.12 0.09", "0.1 0.1 0.1"))
  rng = np.random.default_rng(_seed("box-box", "corner"))
  for _ in range(300):
    a, tilt = rng.uniform(0, 2 * np.pi), rng.normal(size=2) * 1e-4
    q = np.r_[np.cos(a / 2), tilt, np.sin(a / 2)]
    mjd.qpos[:] = np.r_[np.zeros(3), 1, 0, 0, 0, np.zeros(3), q / np.linalg.norm(q)]
    mujoco.mj_kinematics(mjm, mjd)
    corner = mjd.xmat[2].reshape(3, 3) @ np.array([0.08, 0.07, -0.06])
    off = 10 ** rng.uniform(-10, -6) * rng.choice([-1.0, 1.0])
    mjd.qpos[7:10] = (0.1 - corner[0] + off, rng.uniform(-0.05, 0.05), 0.16 - rng.uniform(0, 1e-3))
    _forward_at(mjm, mjd, m, d, mjd.qpos.copy())
    _same_in_order(mjd, d)


# ------------------------------------------------------------------ filters ----

# Closed-form pairs only (plane, spheres, capsules, a static box against spheres), so every contact is exact.
_FILTER_BASE = """<mujoco>{option}<worldbody>
  <geom name="floor" type="plane" size="2 2 0.1" {floor}/>
  <body name="p" pos="0 0 0.1"><joint type="slide" axis="0 0 1"/><geom name="gp" type="sphere" size="0.12" {gp}/>
    <body name="c" pos="0.1 0 0"><joint type="hinge"/><geom name="gc" type="sphere" size="0.12" {gc}/></body>
  </body>
  <body name="s" pos="0.05 0.2 0.1"><geom name="gs" type="box" size="0.1 0.1 0.1"/>
    <body name="sc" pos="0 0 0.05"><joint type="hinge"/><geom name="gsc" type="sphere" size="0.05"/></body>
  </body>
  <body name="q" pos="0.1 0.15 0.1"><freejoint/><geom name="gq" type="sphere" size="0.1" {gq}/>
    <geom name="gq2" type="capsule" size="0.05 0.05" pos="0.02 -0.2 0" euler="90 0 0"/></body>
</worldbody>{contact}</mujoco>"""


def _filter_xml(option="", floor="", gp="", gc="", gq="", contact=""):
  return _FILTER_BASE.format(option=option, floor=floor, gp=gp, gc=gc, gq=gq, contact=contact)


@pytest.mark.parametrize("kwargs", [
    {},
    {"gp": 'contype="2" conaffinity="2"'},
    {"gc": 'contype="0" conaffinity="0"'},
    {"gq": 'contype="2" conaffinity="1"'},
    {"option": '<option><flag filterparent="disable"/></option>'},
    {"contact": '<contact><exclude body1="p" body2="q"/><exclude body1="world" body2="p"/></contact>'},
    {"contact": '<contact><pair geom1="gp" geom2="gc" condim="1" friction="0.3 0.3 0.01 0.001 0.001" '
                'solref="0.05 0.9" solimp="0.8 0.9 0.01 0.4 3" margin="0.01" gap="0.002"/></contact>'},
    {"contact": '<contact><pair geom1="gq" geom2="gp" condim="6"/></contact>'},
    {"gp": 'priority="1" condim="4" friction="0.5 0.01 0.002" solref="0.03 0.8"', "gc": 'solmix="3"'},
    {"gq": 'solmix="0.5" solref="-1000 -10" friction="2 0.1 0.01" condim="6"', "gp": 'solref="-500 -20"'},
    {"gp": 'margin="0.05" gap="0.01"', "floor": 'margin="0.02"'},
    {"option": '<option><flag contact="disable"/></option>'},
    # Not 0.1: sphere gsc lies 0.1 (to one ulp) above the floor, and MuJoCo keeps it at one ulp beyond the margin.
    {"option": '<option o_margin="0.11"><flag override="enable"/></option>'},
    {"option": '<option o_margin="0.03" o_solref="0.03 0.7" o_solimp="0.8 0.85 0.002 0.4 3" '
               'o_friction="0.7 0.6 0.01 0.002 0.003"><flag override="enable"/></option>',
     "gp": 'condim="6" friction="2 0.1 0.1" solref="0.1 0.5"',
     "contact": '<contact><pair geom1="gq" geom2="gp" condim="4" margin="0.2"/></contact>'},
    # The override replaces margins, not gaps: the capsule 5 cm above the floor is reported, beyond the margin.
    {"option": '<option o_margin="0.01"><flag override="enable"/></option>', "floor": 'gap="0.045"'},
], ids=["default", "bitmask", "nocollide", "onesided", "filterparent", "exclude", "pair", "pair_defaults",
        "priority", "solmix_direct", "margin_gap", "contact_disabled", "override", "override_params", "override_gap"])
def test_filters(kwargs):
  """Each filtering and mixing rule gives MuJoCo's contacts, in MuJoCo's order, and their parameters."""
  mjd, d = _forwarded(_filter_xml(**kwargs))
  assert d.ncon == mjd.ncon
  assert (_geom_pairs(d.contact.geom1[:d.ncon], d.contact.geom2[:d.ncon])
          == _geom_pairs(mjd.contact.geom1, mjd.contact.geom2))
  if mjd.ncon:
    _match(mjd, d, 1e-4)


def test_parent_child_world_exception():
  """Children of the world touch it; children of a moving body do not touch it unless filterparent is off."""
  mjd, d = _forwarded(_filter_xml())
  pairs = _pairs(d.contact.geom1, d.contact.geom2)
  assert (0, 1) in pairs  # floor (world) and its child body's sphere
  assert (1, 2) not in pairs  # sphere p and its child's sphere overlap but are parent and child
  mjd, d = _forwarded(_filter_xml(option='<option><flag filterparent="disable"/></option>'))
  assert (1, 2) in _pairs(d.contact.geom1, d.contact.geom2)


def test_overflow_keeps_first_and_warns():
  """More contacts than nconmax: the first nconmax are kept, CONTACTFULL is raised, nothing is written past."""
  xml = """<mujoco><size nconmax="3"/><worldbody><geom type="plane" size="2 2 0.1"/>
    <body pos="0 0 0.05"><freejoint/><geom type="box" size="0.1 0.1 0.1"/></body>
    <body pos="0.5 0 0.05"><freejoint/><geom type="box" size="0.1 0.1 0.1"/></body></worldbody></mujoco>"""
  m = physics.MjModel.from_xml_string(xml)
  d = physics.MjData(m)
  assert m.nconmax == 3
  physics.mj_forward(m, d)
  assert d.ncon == 3
  assert d.warning_number[Warning.CONTACTFULL] >= 1
  assert np.all(d.contact.dist < 0)
  big = physics.MjModel.from_xml_string(xml.replace('<size nconmax="3"/>', ""))
  db = physics.MjData(big)
  physics.mj_forward(big, db)
  assert db.ncon == 8
  np.testing.assert_array_equal(db.contact.dist[:3], d.contact.dist)


# ------------------------------------------------------------ contact order ----


def test_contact_order_spheres_on_plane():
  """Three spheres on a plane, listed by body pair as MuJoCo does, whatever their order along the sweep axis."""
  xml = """<mujoco><worldbody><geom type="plane" size="5 5 0.1"/>
    <body pos="0 0 0.09"><freejoint/><geom size="0.1"/></body>
    <body pos="-2 0 0.09"><freejoint/><geom size="0.1"/></body>
    <body pos="2 0 0.09"><freejoint/><geom size="0.1"/></body></worldbody></mujoco>"""
  mjd, d = _forwarded(xml)
  assert _geom_pairs(mjd.contact.geom1, mjd.contact.geom2) == [(0, 1), (0, 2), (0, 3)]
  assert _geom_pairs(d.contact.geom1[:d.ncon], d.contact.geom2[:d.ncon]) == [(0, 1), (0, 2), (0, 3)]


def test_bodies_without_dofs_do_not_collide():
  """Mocap bodies sunk into the floor and into each other make no contacts (neither side could move); with a free
  body they do."""
  xml = """<mujoco><worldbody><geom type="plane" size="5 5 0.1"/>
    <body mocap="true" pos="0 0 0.05"><geom size="0.1"/></body>
    <body mocap="true" pos="0.1 0 0.05"><geom size="0.1"/></body>
    <body pos="0.25 0 0.05"><freejoint/><geom size="0.1"/></body></worldbody></mujoco>"""
  mjd, d = _forwarded(xml)
  assert _geom_pairs(mjd.contact.geom1, mjd.contact.geom2) == [(0, 3), (2, 3)]
  assert _geom_pairs(d.contact.geom1[:d.ncon], d.contact.geom2[:d.ncon]) == [(0, 3), (2, 3)]


def _orders_differ(mjm, pairs):
  """Whether MuJoCo's midphase would list these geom pairs in another order than the bodies' geom lists do."""
  def listed(midphase):
    def key(pair):
      g1, g2 = pair
      bodies = tuple(sorted((mjm.geom_bodyid[g1], mjm.geom_bodyid[g2])))
      return bodies + ((g1, g2) if midphase else (min(pair), max(pair)))
    return sorted(pairs, key=key)
  return listed(True) != listed(False)


@pytest.mark.parametrize("midphase", [True, False], ids=["midphase", "no_midphase"])
def test_contact_order_along_rollout(midphase):
  """At states along MuJoCo's rollout of a pile (tests/models/contact_order.xml), the contacts in MuJoCo's order:
  the same geom pairs in the same sequence (explicit pairs among the filtered ones, body pairs by signature, geom
  pairs by MuJoCo's midphase or, with midphase off, by the bodies' geom lists, each pair's own contacts as its
  collider orders them), each contact's dist, pos and frame (closed forms to 1e-9, the general convex collider to
  1e-4) and parameters, and the constraint rows built from them in the same order."""
  mjm, m = oracle.models(MODELS_DIR / "contact_order.xml")
  if not midphase:
    mjm.opt.disableflags |= int(mujoco.mjtDisableBit.mjDSBL_MIDPHASE)
    m.opt.disableflags |= int(mujoco.mjtDisableBit.mjDSBL_MIDPHASE)
  mjd, d = mujoco.MjData(mjm), physics.MjData(m)
  geom = {mujoco.mj_id2name(mjm, mujoco.mjtObj.mjOBJ_GEOM, g): g for g in range(mjm.ngeom)}
  excluded = [(geom[a], geom[b]) for a in ("bar", "bell", "knob") for b in ("drum", "cap", "egg")]
  seen = set()
  for t in range(301):
    if t % 30 == 0:
      oracle.forward_both(mjm, mjd, m, d)
      n = mjd.ncon
      assert d.ncon == n, t
      pairs = _geom_pairs(mjd.contact.geom1, mjd.contact.geom2)
      assert _geom_pairs(d.contact.geom1[:n], d.contact.geom2[:n]) == pairs, t
      for i, (g1, g2) in enumerate(pairs):
        closed = (mjm.geom_type[g1], mjm.geom_type[g2]) in driver.CLOSED_FORM
        err = max(abs(d.contact.dist[i] - mjd.contact.dist[i]), np.abs(d.contact.pos[i] - mjd.contact.pos[i]).max(),
                  np.abs(d.contact.frame[i] - mjd.contact.frame[i]).max())
        assert err < (1e-9 if closed else 1e-4), (t, i, err)
      for f in ("dim", "friction", "solref", "solreffriction", "solimp", "includemargin", "exclude"):
        np.testing.assert_allclose(getattr(d.contact, f)[:n], getattr(mjd.contact, f), atol=1e-12, err_msg=f)
      assert d.nefc == mjd.nefc, t
      np.testing.assert_array_equal(d.efc_type[:mjd.nefc], mjd.efc_type)
      np.testing.assert_array_equal(d.efc_id[:mjd.nefc], mjd.efc_id)
      # What the pile is there to show, each at one state at least.
      dims = [int(mjd.contact.dim[i]) for i, p in enumerate(pairs) if p == (geom["crate"], geom["lid"])]
      seen.add("both explicit crate-lid pairs" if 4 in dims and 6 in dims else None)
      seen.add("knob-floor pair" if (geom["floor"], geom["knob"]) in pairs else None)
      seen.add("a state the two geom-pair orders tell apart" if _orders_differ(mjm, pairs) else None)
      seen.add("excluded pair overlapping" if min(mujoco.mj_geomDistance(mjm, mjd, a, b, 0.1, None)
                                                  for a, b in excluded) < 0 else None)
      seen.add("mocap box in the floor" if mujoco.mj_geomDistance(mjm, mjd, geom["floor"], geom["hover"], 0.1, None)
               < 0 else None)
      seen.add("mocap box touched" if (geom["upper"], geom["hover"]) in pairs else None)
    mujoco.mj_step(mjm, mjd)
  seen.discard(None)
  assert len(seen) == 6, seen


@pytest.mark.parametrize("midphase", [True, False], ids=["midphase", "no_midphase"])
def test_midphase_box_test_near_planes(midphase):
  """A box touching a wall (a second plane of the world, so the world's pairs go through MuJoCo's midphase) at random
  orientations, up to 2 micrometers into it: MuJoCo's midphase tests the geoms' oriented boxes, a plane's 1e10 deep,
  and at that scale its rounding drops some of these contacts. Ours drops the same ones, and keeps all with the
  midphase off."""
  xml = """<mujoco><option><flag midphase="{}"/></option><worldbody><geom type="plane" size="1 1 0.1"/>
    <geom type="plane" size="1 1 0.1" pos="-0.6 0 0" zaxis="1 0 0"/>
    <body pos="0 0 0.5"><freejoint/><geom type="box" size="0.08 0.08 0.06"/></body></worldbody></mujoco>"""
  mjm, mjd, m, d = oracle.load_both(xml.format("enable" if midphase else "disable"))
  rng = np.random.default_rng(_seed("midphase", "wall"))
  dropped = touching = 0
  for _ in range(400):
    quat = rng.normal(size=4)
    mjd.qpos[:] = np.r_[0.0, rng.uniform(-0.3, 0.3), 0.5, quat / np.linalg.norm(quat)]
    mujoco.mj_kinematics(mjm, mjd)
    reach = np.abs(mjd.geom_xmat[2].reshape(3, 3)[0]) @ mjm.geom_size[2]
    mjd.qpos[0] = -0.6 + reach - rng.uniform(0, 2e-6)
    _forward_at(mjm, mjd, m, d, mjd.qpos.copy())
    assert d.ncon == mjd.ncon
    _same_in_order(mjd, d)
    touching += mjd.ncon > 0
    dropped += mjd.ncon == 0
  assert touching > 300
  assert (dropped > 5) if midphase else (dropped == 0)


# ------------------------------------------------------------------- meshes ----


def _hull_obj(seed):
  """An irregular convex polytope: a point cloud OBJ, which both engines mesh by its convex hull."""
  rng = np.random.default_rng(seed)
  pts = rng.normal(size=(24, 3)) * (0.09, 0.07, 0.05)
  return ("\n".join(f"v {x!r} {y!r} {z!r}" for x, y, z in pts.tolist()) + "\n").encode()


@pytest.mark.parametrize("t1", _TYPES + ("mesh",))
def test_mesh_random_poses(t1):
  """A convex mesh against every geom type at random poses: plane-mesh exactly, the rest to the deepest contact."""
  assets = {"hull.obj": _hull_obj(5), "other.obj": _hull_obj(6)}
  first = ('<geom type="plane" size="2 2 0.1"/>' if t1 == "plane" else
           '<geom type="mesh" mesh="other"/>' if t1 == "mesh" else f'<geom type="{t1}" size="{_SIZES[t1]}"/>')
  xml = f"""<mujoco>{_CONVERGED}</option>
    <asset><mesh name="hull" file="hull.obj"/><mesh name="other" file="other.obj"/></asset><worldbody>
    <body name="a">{'' if t1 == 'plane' else '<freejoint/>'}{first}</body>
    <body name="b"><freejoint/><geom type="mesh" mesh="hull" margin="0.02"/></body></worldbody></mujoco>"""
  mjm, mjd, m, d = oracle.load_both(xml, assets)
  rng = np.random.default_rng(_seed("mesh", t1))
  hits = multi = 0
  for _ in range(40):
    q = _random_qpos(rng, t1, 0.15)
    _forward_at(mjm, mjd, m, d, q)
    assert (d.ncon > 0) == (mjd.ncon > 0)
    if not mjd.ncon:
      continue
    hits += 1
    i = int(np.argmin(mjd.contact.dist))
    j = int(np.argmin(d.contact.dist))
    if t1 == "plane":
      # The deepest hull vertex and the other corners within margin of the hull triangle there that faces the plane
      # most: the same contacts, in the same order.
      assert d.ncon == mjd.ncon
      _match(mjd, d, 1e-8)
      np.testing.assert_allclose(d.contact.pos[:d.ncon], mjd.contact.pos, atol=1e-8)
      multi += mjd.ncon > 1
      continue
    assert abs(d.contact.dist[j] - mjd.contact.dist[i]) < 1e-4
    np.testing.assert_allclose(d.contact.frame[j, :3], mjd.contact.frame[i, :3], atol=1e-3)
  assert hits > 5
  assert t1 != "plane" or multi > 5


_PLANE_HULL = """<mujoco><asset><mesh name="hull" file="hull.obj"/></asset><worldbody><geom type="plane" size="2 2 0.1"/>
  <body><freejoint/><geom type="mesh" mesh="hull" margin="0.02"/></body></worldbody></mujoco>"""


def _plane_mesh_exact(mjm, m, label, poses=400):
  """Random poses of a hull over a plane, each giving MuJoCo's contacts exactly and in order (pos and dist to 1e-8).

  Returns MuJoCo's contact count per pose (poses,) and its deepest dist per pose (poses,; inf without contacts).
  """
  mjd, d = mujoco.MjData(mjm), physics.MjData(m)
  rng = np.random.default_rng(_seed("plane-mesh", label))
  ncons, deepest = np.zeros(poses, int), np.full(poses, np.inf)
  for k in range(poses):
    quat = rng.normal(size=4)
    q = np.r_[rng.uniform(-1, 1, 2), rng.uniform(0, 0.12), quat / np.linalg.norm(quat)]
    _forward_at(mjm, mjd, m, d, q)
    _same_in_order(mjd, d)
    ncons[k] = mjd.ncon
    if mjd.ncon:
      deepest[k] = mjd.contact.dist.min()
  return ncons, deepest


@pytest.mark.parametrize("seed", [5, 6, 8, 9, 10])
def test_plane_mesh_deep(seed):
  """Plane-mesh at poses down to deep in the plane: MuJoCo's contacts exactly, in order, on hulls whose triangles
  MuJoCo keeps apart (its compiled polygons are these triangles) and whose vertices our compile places within 1e-8 of
  MuJoCo's. Deep poses drop the corners no nearer to the plane than the mesh's center."""
  xml = _PLANE_HULL
  assets = {"hull.obj": _hull_obj(seed)}
  mjm, m = oracle.models(xml, assets)
  assert mjm.mesh_polynum[0] == mjm.mesh_facenum[0]
  _, deepest = _plane_mesh_exact(mjm, m, str(seed))
  assert np.sum(deepest < -0.09) > 20


def test_plane_mesh_fourth_corner():
  """Hull seed 7, where MuJoCo's hull builder merges two nearly coplanar triangles into a quadrilateral polygon (their
  normals round to the same direction; tests/test_mesh.py shows our compiler makes the same polygon): plane-mesh
  gives MuJoCo's contacts exactly, in order, including the quadrilateral's fourth corner."""
  xml = _PLANE_HULL
  assets = {"hull.obj": _hull_obj(7)}
  mjm, m = oracle.models(xml, assets)
  assert max(mjm.mesh_polyvertnum) == 4
  ncons, _ = _plane_mesh_exact(mjm, m, "7")
  # 15 of the 400 poses have 4 contacts
  assert np.sum(ncons == 4) > 10


def _box_obj():
  """An OBJ of the 8 corners of a 0.1 x 0.08 x 0.06 box: a box-shaped mesh whose square faces are two hull triangles."""
  corners = np.array(list(itertools.product((-1, 1), repeat=3))) * (0.05, 0.04, 0.03)
  return "".join(f"v {x!r} {y!r} {z!r}\n" for x, y, z in corners.tolist()).encode()


def test_plane_box_shaped_mesh():
  """A box-shaped mesh on a plane: its square face is one polygon (mesh_polyvert), so MuJoCo's 4 corner contacts,
  in order, while its 4 corners are within margin; fewer as it tilts away or sinks deep."""
  xml = """<mujoco><asset><mesh name="c" file="c.obj"/></asset><worldbody><geom type="plane" size="2 2 0.1"/>
    <body><freejoint/><geom type="mesh" mesh="c" margin="0.01"/></body></worldbody></mujoco>"""
  mjm, mjd, m, d = oracle.load_both(xml, {"c.obj": _box_obj()})
  rng = np.random.default_rng(_seed("plane-box-mesh", "4"))
  counts = set()
  for _ in range(200):
    tilt = rng.normal(size=3) * rng.choice([0.01, 0.1, 1.0])
    quat = np.r_[1.0, tilt]
    q = np.r_[rng.uniform(-1, 1, 2), rng.uniform(-0.02, 0.05), quat / np.linalg.norm(quat)]
    _forward_at(mjm, mjd, m, d, q)
    _same_in_order(mjd, d)
    counts.add(int(mjd.ncon))
  assert {1, 2, 4} <= counts


# --------------------------------------------------------------- multiccd ----

# Each pair's floor (shares of colliding poses, seeds fixed; measured 0.99/0.97 box-mesh, 0.98/0.95 mesh-mesh,
# 0.98/0.92 capsule-mesh, 0.98/0.97 cylinder-box, 0.97/0.94 cylinder-mesh, 0.96/0.93 cylinder-cylinder, 0.98/0.96
# capsule-cylinder): the same contact count as MuJoCo, and with it every contact's dist, pos and frame within the
# tolerance. The rest are poses where MuJoCo picks another feature (mostly deep overlaps, or both faces within 5
# degrees of the normal), meets a cylinder's cap with a face or an edge (up to 4 contacts, or 1 where ours clips 2,
# by rules not reproduced), or, for a capsule against a face, lays its line up to ~0.3 degrees around the axis from
# the witness point's (hence 1e-3 there).
_MULTICCD = {("box", "mesh"): (0.98, 0.96, 1e-6), ("mesh", "mesh"): (0.96, 0.93, 1e-6),
             ("capsule", "mesh"): (0.96, 0.89, 1e-3), ("cylinder", "box"): (0.98, 0.98, 1e-4),
             ("cylinder", "mesh"): (0.97, 0.96, 1e-4), ("cylinder", "cylinder"): (0.95, 0.94, 1e-4),
             ("capsule", "cylinder"): (0.98, 0.97, 1e-4)}


def _multiccd_scene(t1, t2, flag=""):
  geom = {t: f'type="{t}" size="{_SIZES[t]}"' for t in _SIZES}
  geom["mesh"] = 'type="mesh" mesh="hull"'
  first = 'type="mesh" mesh="other"' if t1 == t2 == "mesh" else geom[t1]
  return f"""<mujoco><option ccd_iterations="2000" ccd_tolerance="1e-13"><flag gravity="disable" {flag}/></option>
    <asset><mesh name="hull" file="hull.obj"/><mesh name="other" file="other.obj"/></asset><worldbody>
    <body name="a"><freejoint/><geom {first}/></body>
    <body name="b"><freejoint/><geom {geom[t2]} margin="0.01"/></body></worldbody></mujoco>"""


@pytest.mark.parametrize("t1,t2", list(_MULTICCD))
def test_multiccd_random_poses(t1, t2):
  """multiccd at MuJoCo's default (on): where flat features meet, MuJoCo's several contacts sharing one normal."""
  assets = {"hull.obj": _hull_obj(5), "other.obj": _hull_obj(6)}
  xml = _multiccd_scene(t1, t2)
  mjm, mjd, m, d = oracle.load_both(xml, assets)
  assert mjm.opt.disableflags & mujoco.mjtDisableBit.mjDSBL_MULTICCD == 0
  rng = np.random.default_rng(_seed("multiccd", t1, t2))
  posed = same_count = same = multi = 0
  for _ in range(300):
    q = _random_qpos(rng, t1, 0.2)
    _forward_at(mjm, mjd, m, d, q)
    n = int(d.ncon)
    if mjd.ncon == 0 and n == 0:
      continue
    posed += 1
    multi += mjd.ncon > 1
    if n != mjd.ncon:
      continue
    same_count += 1
    # Matched as a set: both engines list the contacts of a clipped region in the clipper's order.
    err = max(min(max(abs(d.contact.dist[j] - mjd.contact.dist[i]), np.abs(d.contact.pos[j] - mjd.contact.pos[i]).max(),
                      np.abs(d.contact.frame[j] - mjd.contact.frame[i]).max()) for j in range(n))
              for i in range(n))
    same += err < _MULTICCD[t1, t2][2]
  count_floor, contact_floor, _ = _MULTICCD[t1, t2]
  assert posed > 100 and multi > 5
  assert same_count >= count_floor * posed, (same_count, posed)
  assert same >= contact_floor * posed, (same, posed)


def _cube_scene(size=""):
  xml = f"""<mujoco>{size}<option ccd_iterations="2000" ccd_tolerance="1e-13"/><asset><mesh name="c" file="c.obj"/>
    </asset><worldbody><body><freejoint/><geom type="box" size="0.1 0.07 0.05"/></body>
    <body><freejoint/><geom type="mesh" mesh="c"/></body></worldbody></mujoco>"""
  return xml, {"c.obj": _box_obj()}


@pytest.mark.parametrize("tilt", [0.0, 1.0, 4.0, 7.0])
def test_multiccd_box_shaped_mesh(tilt):
  """A box-shaped mesh on a box face: its square face (two hull triangles) gives MuJoCo's 4 corner contacts while
  within 5.1 degrees of the box face, then its lowest edge gives 2 (the far corners sit 2 mm deep at most)."""
  xml, assets = _cube_scene()
  a = np.radians(tilt)
  q = np.array([0, 0, 0, 1, 0, 0, 0, 0.01, -0.02, 0.05 + 0.03 * np.cos(a) + 0.04 * np.sin(a) - 0.006,
                np.cos(a / 2), np.sin(a / 2), 0, 0])
  mjd, d = _forwarded(xml, q, assets=assets)
  assert mjd.ncon == (4 if tilt < 5 else 2)
  assert d.ncon == mjd.ncon
  _match(mjd, d, 1e-9)


def _cap_scene(box):
  return f"""<mujoco><option ccd_iterations="2000" ccd_tolerance="1e-13"/><worldbody>
    <body><freejoint/><geom type="cylinder" size="0.08 0.06"/></body>
    <body><freejoint/><geom type="box" size="{box}"/></body></worldbody></mujoco>"""


@pytest.mark.parametrize("tilt", [0.0, 1.0, 3.0, 4.5, 5.5, 8.0])
def test_multiccd_box_on_cylinder_cap(tilt):
  """A small box face on a cylinder's cap (tilted about x): MuJoCo's 4 corner contacts, 2 once the raised corners
  leave the cap, then the box's lowest edge level with the cap gives its 2 corners (past 5.1 degrees)."""
  xml = _cap_scene("0.03 0.04 0.05")
  a = np.radians(tilt)
  q = np.array([0, 0, 0, 1, 0, 0, 0, 0.01, -0.02, 0.06 + 0.05 * np.cos(a) + 0.03 * np.sin(a) - 0.004,
                np.cos(a / 2), np.sin(a / 2), 0, 0])
  mjd, d = _forwarded(xml, q)
  assert mjd.ncon == (4 if tilt < 4 else 2)
  assert d.ncon == mjd.ncon
  _match(mjd, d, 1e-9)


@pytest.mark.parametrize("tilt", [0.0, 1.0, 3.0, 4.5, 5.5, 8.0])
def test_multiccd_cylinder_cap_on_box_face(tilt):
  """A cylinder's cap on a larger box face (the box tilted about x): within 5.1 degrees MuJoCo gives 4 contacts at
  corners of a 16-gon inscribed in the cap's rim, each at that corner's depth below the box face along the face's
  normal; past it the one contact of the rim's lowest point. Which 4 of the 16 corners MuJoCo keeps is not asserted
  (its rule is reproduced only for most whole caps), so both engines' contacts are checked against the geometry."""
  xml = _cap_scene("0.2 0.15 0.05")
  a = np.radians(tilt)
  q = np.array([0, 0, 0, 1, 0, 0, 0, 0.01, -0.02, 0.06 + 0.05 * np.cos(a) - 0.004, np.cos(a / 2), np.sin(a / 2), 0, 0])
  mjd, d = _forwarded(xml, q)
  assert mjd.ncon == (4 if tilt < 5 else 1)
  assert d.ncon == mjd.ncon
  if tilt > 5:
    _match(mjd, d, 1e-6)
    return
  # The box's bottom face: normal -z_box, through the box center minus half its height along z_box.
  up = np.array([0, -np.sin(a), np.cos(a)])
  face = q[7:10] - 0.05 * up
  corners = [np.array([0.08 * np.cos(k * np.pi / 8), 0.08 * np.sin(k * np.pi / 8), 0.06]) for k in range(16)]
  for dist, pos, frame in [(mjd.contact.dist[i], mjd.contact.pos[i], mjd.contact.frame[i, :3]) for i in range(4)] + [
      (d.contact.dist[i], d.contact.pos[i], d.contact.frame[i, :3]) for i in range(4)]:
    np.testing.assert_allclose(frame, up, atol=1e-12)
    on_cap = pos - 0.5 * dist * up
    k = int(np.argmin([np.linalg.norm(on_cap - c) for c in corners]))
    np.testing.assert_allclose(on_cap, corners[k], atol=1e-12)
    np.testing.assert_allclose(dist, np.dot(face - corners[k], up), atol=1e-12)


def test_multiccd_overflow_warns():
  """Several multiccd contacts beyond nconmax: the first are kept and CONTACTFULL is raised, none written past."""
  xml, assets = _cube_scene('<size nconmax="2"/>')
  m = physics.MjModel.from_xml_string(xml, assets)
  d = physics.MjData(m)
  d.qpos[:] = [0, 0, 0, 1, 0, 0, 0, 0.01, -0.02, 0.075, 1, 0, 0, 0]
  physics.mj_forward(m, d)
  assert d.ncon == 2
  assert d.warning_number[Warning.CONTACTFULL] >= 1
  # The mesh keeps single-precision vertices, as MuJoCo does.
  np.testing.assert_allclose(d.contact.dist[:2], -0.005, atol=1e-8)


@pytest.mark.parametrize("t1,t2", [("box", "mesh"), ("mesh", "mesh"), ("cylinder", "box")])
def test_multiccd_disabled(t1, t2):
  """multiccd="disable": the general convex collider gives one contact per pair, as MuJoCo's does."""
  assets = {"hull.obj": _hull_obj(5), "other.obj": _hull_obj(6)}
  xml = _multiccd_scene(t1, t2, 'multiccd="disable"')
  mjm, mjd, m, d = oracle.load_both(xml, assets)
  rng = np.random.default_rng(_seed("single", t1, t2))
  hits = 0
  for _ in range(60):
    q = _random_qpos(rng, t1, 0.2)
    _forward_at(mjm, mjd, m, d, q)
    assert d.ncon == mjd.ncon <= 1
    hits += mjd.ncon
  assert hits > 20


def test_gjk_stops_as_mujoco_on_cores():
  """Capsules and spheres against curved and flat geoms at MuJoCo's default ccd options (tolerance 1e-6), where the
  cores (a segment, a point) stay apart and GJK alone sets the contact (tests/models/capsule_cylinder.xml). GJK
  stops on MuJoCo's duality-gap rule (x.(x - w) < tol^2 / 2), so the nearest points are about as converged as
  MuJoCo's: measured over these 600 poses, distances within 3e-11, points within 7e-7, normals within 3.3e-5 (the
  old rule, |x| - lower bound < tol, gave 8e-7, 1.5e-4 and 5e-3). Deeper contacts (core inside the other geom) go
  to EPA, which is not MuJoCo's, and are skipped."""
  mjm, mjd, m, d = oracle.load_both(str(MODELS_DIR / "capsule_cylinder.xml"))
  rng = np.random.default_rng(_seed("gjk-cores"))
  shallow = 0
  for _ in range(600):
    x = (0.0, 0.3, -0.3)[rng.integers(3)]
    q = []
    for _ in range(2):
      quat = rng.normal(size=4)
      q += [x + rng.uniform(-1, 1) * 0.09, *rng.uniform(-1, 1, 2) * 0.09, *(quat / np.linalg.norm(quat))]
    _forward_at(mjm, mjd, m, d, np.array(q))
    assert _geom_pairs(d.contact.geom1, d.contact.geom2) == _geom_pairs(mjd.contact.geom1, mjd.contact.geom2)
    for i in range(mjd.ncon):
      radius = min(mjm.geom_size[g][0] for g in mjd.contact.geom[i] if mjm.geom_type[g] in (2, 3))
      if mjd.contact.dist[i] < -0.5 * radius:
        continue
      shallow += 1
      assert abs(d.contact.dist[i] - mjd.contact.dist[i]) < 1e-9
      np.testing.assert_allclose(d.contact.pos[i], mjd.contact.pos[i], atol=2e-6)
      np.testing.assert_allclose(d.contact.frame[i, :3], mjd.contact.frame[i, :3], atol=1e-4)
  assert shallow > 150


def test_nativeccd_disabled_runs_mpr():
  """nativeccd="disable": MuJoCo's libccd path (MPR, normals fixed on curved geoms, extra contacts from perturbed
  poses) on every convex pair type it reaches (tests/models/nativeccd_pairs.xml, seven free geoms dropped in a 12 cm
  cube, most overlapping): the same contacts in the same order, each within 1e-9 (measured: at 299 of these 300
  poses, 4,308 of their 4,316 contacts). The rest are contacts of the 12-vertex mesh where MPR's support direction is
  perpendicular to a hull edge or face: MuJoCo climbs its hull graph (in qhull's vertex order, not reproduced) and
  ours scans the hull, so the two may pick different vertices of a near tie, and a perturbed contact then lands
  elsewhere or not at all."""
  mjm, mjd, m, d = oracle.load_both(str(MODELS_DIR / "nativeccd_pairs.xml"))
  rng = np.random.default_rng(_seed("nativeccd-mpr"))
  seen, same, contacts, exact = set(), 0, 0, 0
  for _ in range(300):
    quat = rng.normal(size=(mjm.nbody - 1, 4))
    pos = rng.uniform(-0.06, 0.06, size=(mjm.nbody - 1, 3))
    _forward_at(mjm, mjd, m, d, np.c_[pos, quat / np.linalg.norm(quat, axis=1, keepdims=True)].ravel())
    if _geom_pairs(d.contact.geom1, d.contact.geom2) != _geom_pairs(mjd.contact.geom1, mjd.contact.geom2):
      continue
    same += 1
    for i in range(mjd.ncon):
      err = max(abs(d.contact.dist[i] - mjd.contact.dist[i]), np.abs(d.contact.pos[i] - mjd.contact.pos[i]).max(),
                np.abs(d.contact.frame[i] - mjd.contact.frame[i]).max())
      seen.add(tuple(sorted(mjm.geom_type[mjd.contact.geom[i]])))
      contacts += 1
      exact += err < 1e-9
  # Every pair type of the general collider (sphere-sphere, sphere-capsule, sphere-cylinder, sphere-box,
  # capsule-capsule, capsule-box and box-box have their own colliders).
  assert len(seen) == 16, seen
  assert same >= 0.99 * 300, same
  assert exact >= 0.995 * contacts, (exact, contacts)


# ---------------------------------------------------------------- options ----


@pytest.mark.parametrize("option", ["", '<option ccd_iterations="12" ccd_tolerance="1e-9"/>',
                                    '<option><flag multiccd="disable" nativeccd="disable"/></option>'])
def test_ccd_options(option):
  """ccd_iterations, ccd_tolerance and the multiccd/nativeccd flags compile to MuJoCo's values (multiccd is on by
  default in MuJoCo 4: its bit is a disable flag)."""
  xml = f"<mujoco>{option}<worldbody><geom type='sphere' size='1'/></worldbody></mujoco>"
  mjm, m = oracle.models(xml)
  assert m.opt.ccd_iterations == mjm.opt.ccd_iterations
  assert m.opt.ccd_tolerance == mjm.opt.ccd_tolerance
  assert m.opt.disableflags == mjm.opt.disableflags
  assert m.opt.enableflags == mjm.opt.enableflags


def test_ccd_iterations_bound_the_convex_collider():
  """Fewer ccd_iterations stop GJK/EPA earlier: a cylinder-ellipsoid depth moves away from MuJoCo's converged one,
  and with a tight tolerance and enough iterations it meets it."""
  base = """<mujoco><option ccd_iterations="{it}" ccd_tolerance="{tol}"><flag multiccd="disable"/></option><worldbody>
    <body><freejoint/><geom type="ellipsoid" size="0.08 0.12 0.15"/></body>
    <body pos="0.05 0.12 0.03" euler="20 30 40"><freejoint/><geom type="cylinder" size="0.1 0.12"/></body>
    </worldbody></mujoco>"""
  mjd, _ = _forwarded(base.format(it=2000, tol=1e-13))
  depths = {}
  for it, tol in ((3, 1e-6), (2000, 1e-13)):
    m = physics.MjModel.from_xml_string(base.format(it=it, tol=tol))
    d = physics.MjData(m)
    physics.mj_forward(m, d)
    assert d.ncon == 1
    depths[it] = d.contact.dist[0]
  assert abs(depths[2000] - mjd.contact.dist[0]) < 1e-6
  assert abs(depths[3] - mjd.contact.dist[0]) > 1e-5


def _nearest_on_hull(points):
  """Squared distance from the origin to the convex hull of 2-4 points: the least over every sub-simplex whose affine
  minimizer (the normal equations of min |sum l_i p_i| with sum l_i = 1) has no negative weight."""
  best = np.inf
  for k in range(1, len(points) + 1):
    for idx in itertools.combinations(range(len(points)), k):
      q = points[list(idx)]
      a = np.block([[q @ q.T, np.ones((k, 1))], [np.ones((1, k)), np.zeros((1, 1))]])
      try:
        lam = np.linalg.solve(a, np.r_[np.zeros(k), 1.0])[:k]
      except np.linalg.LinAlgError:
        continue
      if lam.min() >= -1e-12:
        best = min(best, float((lam @ q) @ (lam @ q)))
  return best


def test_gjk_simplex_nearest_point():
  """GJK's signed-volume step finds the point of a segment, triangle or tetrahedron nearest the origin, against a
  search of every sub-simplex: general, thin (nearly collinear or coplanar) and origin-enclosing simplices."""
  rng = np.random.default_rng(_seed("simplex"))
  vert = np.zeros((3, 128, 3))
  for trial in range(3000):
    n = 2 + trial % 3
    p = rng.normal(size=(n, 3)) + rng.normal(size=3) * rng.uniform(0.0, 2.0)
    if trial % 5 == 0:
      # Flatten the simplex towards a line or a plane through its first point.
      p[1:] = p[0] + (p[1:] - p[0]) * np.array([1.0, 1e-6, 1e-6 if n < 4 else 1.0])
    vert[2, :n] = p
    cnt, lam, x = convex._closest_on_simplex(vert, n)
    want = _nearest_on_hull(p)
    if cnt == 4:
      assert want < 1e-20
      continue
    assert abs(np.dot(x, x) - want) <= 1e-9 * (1.0 + want)
    # The kept vertices (now first) with their weights give the same point.
    np.testing.assert_allclose(np.asarray(lam[:cnt]) @ vert[2, :cnt], x, atol=1e-12)
    assert min(lam[:cnt]) >= 0.0 and abs(sum(lam[:cnt]) - 1.0) < 1e-12


@pytest.mark.parametrize("turn", [None, "0.3 -0.5 0.8 0.4"])
def test_parallel_capsules_match_mujoco(turn):
  """Parallel capsules (end to end, overlapping, apart with a gap, one inside the other's stretch, either way
  round): MuJoCo 4's two contacts at the ends of the stretch where they face each other, in its order; also with
  the whole scene turned."""
  frame = f' quat="{turn}"' if turn else ""
  pairs = 0
  for ft1 in ("0 0 0 .3 0 0", ".3 0 0 0 0 0"):
    for pos in (".3 0 0", ".3 0 .05", ".25 0 0", ".1 0 0", ".35 0 0", "-.35 0 0", "0 0 .1", "-.05 0 .05"):
      for ft2 in ("0 0 0 .3 0 0", ".3 0 0 0 0 0", "0 0 0 .1 0 0", "0 0 0 .4 0 0"):
        xml = f"""<mujoco><worldbody><frame{frame}>
          <body><freejoint/><geom type="capsule" fromto="{ft1}" size=".08"/></body>
          <body pos="{pos}"><freejoint/><geom type="capsule" fromto="{ft2}" size=".07"/></body></frame></worldbody></mujoco>"""
        mjd, d = _forwarded(xml)
        label = f"{ft1} | {pos} | {ft2}"
        assert d.ncon == mjd.ncon, label
        pairs += mjd.ncon == 2
        np.testing.assert_allclose(d.contact.dist, mjd.contact.dist, rtol=0, atol=1e-12, err_msg=label)
        np.testing.assert_allclose(d.contact.pos, mjd.contact.pos, rtol=0, atol=1e-12, err_msg=label)
        np.testing.assert_allclose(d.contact.frame, mjd.contact.frame, rtol=0, atol=1e-12, err_msg=label)
  assert pairs >= 50  # of 64 scenes: most touch, each with two contacts
