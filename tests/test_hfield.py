"""Height fields against MuJoCo: compiled fields (inline, PNG, binary, empty), contacts with every convex type at
random poses, a drop onto bumpy terrain, rays, and the errors of malformed height fields."""

import zlib

import imageio.v3 as iio
import mujoco
import numpy as np
import pytest

from mjgym import physics
from mjgym.physics import MJCFError
from mjgym.physics import ray

import oracle
from oracle import MODELS_DIR

# MuJoCo's general convex collider run to convergence and one contact per prism (multiccd off), as in
# test_collision.py: ours always converges and gives one contact per prism.
_CONVERGED = '<option ccd_iterations="2000" ccd_tolerance="1e-13"><flag multiccd="disable" gravity="disable"/></option>'
_SIZES = {"sphere": "0.12", "capsule": "0.08 0.15", "ellipsoid": "0.08 0.12 0.15", "cylinder": "0.1 0.12",
          "box": "0.08 0.1 0.12"}


def _seed(*words):
  return zlib.crc32(" ".join(words).encode())


def _elevation(nrow, ncol, seed):
  return np.random.default_rng(seed).uniform(0.0, 1.0, (nrow, ncol))


def _hfield_xml(body, elevation, option=_CONVERGED, assets=""):
  nrow, ncol = elevation.shape
  values = " ".join(repr(float(v)) for v in elevation.ravel())
  return f"""<mujoco>{option}<asset>{assets}
    <hfield name="h" nrow="{nrow}" ncol="{ncol}" size="1 0.8 0.3 0.1" elevation="{values}"/></asset>
    <worldbody><geom name="terrain" type="hfield" hfield="h" pos="0.1 0.2 -0.05" euler="5 -3 30"/>
    <body name="b" pos="0 0 0.3"><freejoint/>{body}</body></worldbody></mujoco>"""


# ------------------------------------------------------------------ compiler ----


def test_compiled_fields_match_mujoco(tmp_path):
  """Inline, PNG (RGB, gray, 16-bit gray), binary and empty height fields compile to MuJoCo's fields."""
  rng = np.random.default_rng(_seed("compile"))
  iio.imwrite(tmp_path / "rgb.png", rng.integers(0, 256, (5, 4, 3), dtype=np.uint8))
  iio.imwrite(tmp_path / "gray.png", rng.integers(20, 200, (3, 6), dtype=np.uint8))
  iio.imwrite(tmp_path / "gray16.png", rng.integers(300, 60000, (4, 3), dtype=np.uint16))
  with open(tmp_path / "terrain.bin", "wb") as f:
    f.write(np.array([3, 5], np.int32).tobytes() + rng.normal(size=15).astype(np.float32).tobytes())
  inline = " ".join(repr(v) for v in rng.normal(size=12).tolist())
  xml = f"""<mujoco><compiler assetdir="{tmp_path}"/><asset>
    <hfield name="inline" nrow="3" ncol="4" size="1 2 0.5 0.1" elevation="{inline}"/>
    <hfield name="empty" nrow="4" ncol="2" size="0.5 0.5 1 2"/>
    <hfield name="flat" nrow="2" ncol="2" size="1 1 1 1" elevation="3 3 3 3"/>
    <hfield file="rgb.png" size="1 2 0.3 2"/>
    <hfield name="gray" file="gray.png" size="2 1 0.7 0.2"/>
    <hfield name="gray16" file="gray16.png" size="2 1 0.7 0.2"/>
    <hfield name="bin" file="terrain.bin" size="3 1 0.2 0.4"/></asset>
    <worldbody><geom type="hfield" hfield="inline" pos="1 2 3" euler="10 20 30"/><geom type="hfield" hfield="empty"/>
    <geom type="hfield" hfield="flat"/><geom type="hfield" hfield="rgb"/><geom type="hfield" hfield="bin"/>
    <body pos="0 0 1"><freejoint/><geom type="hfield" hfield="gray"/><geom size="0.1"/></body>
    <body pos="0 1 1"><freejoint/><geom type="hfield" hfield="gray16" density="300"/></body>
    </worldbody></mujoco>"""
  mjm, m = oracle.models(xml)
  for name in ("nhfield", "nhfielddata", "hfield_nrow", "hfield_ncol", "hfield_adr", "hfield_size", "geom_dataid"):
    np.testing.assert_array_equal(getattr(m, name), getattr(mjm, name), err_msg=name)
  # MuJoCo normalizes in float32; so do we, to the last bit.
  np.testing.assert_array_equal(m.hfield_data, mjm.hfield_data.astype(np.float64))
  for name in ("geom_size", "geom_rbound", "geom_aabb", "body_mass", "body_inertia", "body_ipos"):
    np.testing.assert_allclose(getattr(m, name), getattr(mjm, name), rtol=1e-12, atol=1e-12, err_msg=name)
  assert [physics.mj_id2name(m, physics.mjtObj.mjOBJ_HFIELD, i) for i in range(m.nhfield)] == [
      mujoco.mj_id2name(mjm, mujoco.mjtObj.mjOBJ_HFIELD, i) for i in range(mjm.nhfield)]


# ----------------------------------------------------------------- collision ----


def _random_pose(rng):
  q = np.concatenate([rng.uniform([-1.0, -0.8, -0.1], [1.2, 1.0, 0.35]), rng.normal(size=4)])
  q[3:] /= np.linalg.norm(q[3:])
  return q


def _contacts_at_random_poses(mjm, mjd, m, d, gtype, count):
  """Puts the free geom at ``count`` random poses in both engines; yields each pose's contact count, after
  asserting that the two engines found as many contacts."""
  rng = np.random.default_rng(_seed("poses", gtype))
  for _ in range(count):
    mjd.qpos[:] = d.qpos[:] = _random_pose(rng)
    mujoco.mj_forward(mjm, mjd)
    physics.mj_forward(m, d)
    n = int(d.ncon)
    assert n == mjd.ncon
    yield n


def _hull_obj(seed):
  pts = np.random.default_rng(seed).normal(size=(24, 3)) * (0.09, 0.07, 0.05)
  return ("\n".join(f"v {x!r} {y!r} {z!r}" for x, y, z in pts.tolist()) + "\n").encode()


@pytest.mark.parametrize("gtype", ("sphere", "capsule", "ellipsoid", "cylinder"))
def test_smooth_convex_random_poses(gtype):
  """Each smooth convex type (with a margin) at random poses over a bumpy height field, against MuJoCo: the same
  contacts in the same order (one per prism within the margin), each to 1e-4 in depth, 1e-3 in position and normal
  (measured: 1e-13 for spheres and capsules, 1.5e-5 for ellipsoids and cylinders, whose GJK/EPA converge slowly)."""
  xml = _hfield_xml(f'<geom type="{gtype}" size="{_SIZES[gtype]}" margin="0.01"/>',
                    _elevation(7, 9, _seed("terrain")))
  mjm, mjd, m, d = oracle.load_both(xml)
  touching = 0
  for n in _contacts_at_random_poses(mjm, mjd, m, d, gtype, 60):
    if n == 0:
      continue
    touching += 1
    np.testing.assert_array_equal(d.contact.geom1[:n], mjd.contact.geom1)
    np.testing.assert_array_equal(d.contact.geom2[:n], mjd.contact.geom2)
    np.testing.assert_allclose(d.contact.dist[:n], mjd.contact.dist, atol=1e-4)
    np.testing.assert_allclose(d.contact.pos[:n], mjd.contact.pos, atol=1e-3)
    np.testing.assert_allclose(d.contact.frame[:n, :3], mjd.contact.frame[:, :3], atol=1e-3)
    np.testing.assert_allclose(d.contact.includemargin[:n], mjd.contact.includemargin)
  assert touching > 15


def _prisms(mjm, mjd, g):
  """World corners (6, 3) of every prism of height field geom g, from MuJoCo's compiled data and pose."""
  h = mjm.geom_dataid[g]
  rx, ry, top, bottom = mjm.hfield_size[h]
  nrow, ncol = mjm.hfield_nrow[h], mjm.hfield_ncol[h]
  z = mjm.hfield_data[mjm.hfield_adr[h]:mjm.hfield_adr[h] + nrow * ncol].astype(float).reshape(nrow, ncol) * top
  x, y = np.linspace(-rx, rx, ncol), np.linspace(-ry, ry, nrow)
  out = []
  for r in range(nrow - 1):
    for c in range(ncol - 1):
      for tri in (((r, c), (r, c + 1), (r + 1, c + 1)), ((r, c), (r + 1, c + 1), (r + 1, c))):
        corners = [(x[cc], y[rr], z[rr, cc]) for rr, cc in tri]
        local = np.array(corners + [(px, py, -bottom) for px, py, _ in corners])
        out.append(mjd.geom_xpos[g] + local @ mjd.geom_xmat[g].reshape(3, 3).T)
  return out


def _triangle_normals(p):
  i, j, k = np.array([t for t in np.ndindex(len(p), len(p), len(p)) if t[0] < t[1] < t[2]]).T
  return np.cross(p[j] - p[i], p[k] - p[i])


def _penetration(a, b):
  """Exact penetration of convex hulls of point sets a (geom1) and b (geom2) by the separating axis theorem: the
  smallest overlap over every candidate axis (normals of all point triangles of each set, cross products of all
  point-pair directions across the sets). Returns (-depth, normal from a to b), or None when they are apart."""
  ia, ja = np.triu_indices(len(a), 1)
  ib, jb = np.triu_indices(len(b), 1)
  ea, eb = a[ja] - a[ia], b[jb] - b[ib]
  axes = np.concatenate([_triangle_normals(a), _triangle_normals(b), np.cross(ea[:, None], eb[None]).reshape(-1, 3)])
  length = np.linalg.norm(axes, axis=1)
  axes = axes[length > 1e-9] / length[length > 1e-9, None]
  axes = np.concatenate([axes, -axes])
  overlap = (a @ axes.T).max(axis=0) - (b @ axes.T).min(axis=0)
  k = int(np.argmin(overlap))
  return None if overlap[k] <= 0 else (-overlap[k], axes[k])


@pytest.mark.parametrize("gtype", ("box", "mesh"))
def test_polytope_random_poses(gtype):
  """A box and a convex mesh at random poses over a bumpy height field: as many contacts as MuJoCo, each the exact
  penetration of one prism, computed here by the separating axis theorem: to 1e-9 in depth and 1e-6 in normal for
  the box, 1e-7 and 1e-5 for the mesh, whose vertices MuJoCo keeps in float32 (ours are the file's float64).

  MuJoCo 4.0's native convex collider is not the reference for polytopes against prisms: at the same poses its
  depths differ from the exact ones by up to 0.1 (and its normals by up to 1.9) while its libccd path
  (``nativeccd`` off) agrees with these exact values, as do its native results for the smooth types above.
  """
  assets = {"hull.obj": _hull_obj(3)}
  body = '<geom type="mesh" mesh="hull"/>' if gtype == "mesh" else f'<geom type="box" size="{_SIZES["box"]}"/>'
  xml = _hfield_xml(body, _elevation(7, 9, _seed("terrain")), assets='<mesh name="hull" file="hull.obj"/>')
  mjm, mjd, m, d = oracle.load_both(xml, assets)
  if gtype == "mesh":
    local = mjm.mesh_vert[mjm.mesh_vertadr[0]:mjm.mesh_vertadr[0] + mjm.mesh_vertnum[0]].astype(float)
  else:
    local = np.array(list(np.ndindex(2, 2, 2))) * 2.0 - 1.0
    local = local * mjm.geom_size[1]
  touching = 0
  for n in _contacts_at_random_poses(mjm, mjd, m, d, gtype, 40):
    corners = mjd.geom_xpos[1] + local @ mjd.geom_xmat[1].reshape(3, 3).T
    center, radius = corners.mean(axis=0), np.linalg.norm(corners - corners.mean(axis=0), axis=1).max()
    near = [p for p in _prisms(mjm, mjd, 0)
            if np.linalg.norm(p.mean(axis=0) - center) < radius + np.linalg.norm(p - p.mean(axis=0), axis=1).max()]
    exact = [c for c in (_penetration(p, corners) for p in near) if c is not None]
    assert n == len(exact)
    if n == 0:
      continue
    touching += 1
    for i in range(n):
      j = int(np.argmin([abs(e[0] - d.contact.dist[i]) for e in exact]))
      assert abs(d.contact.dist[i] - exact[j][0]) < (1e-9 if gtype == "box" else 1e-7)
      np.testing.assert_allclose(d.contact.frame[i, :3], exact[j][1], atol=1e-6 if gtype == "box" else 1e-5)
  assert touching > 10


def test_contacts_per_pair_are_capped():
  """A large sphere on a fine grid touches more than MAXCONPAIR prisms: both engines keep the same first 50, in the
  same order (rows, then columns, then the upper-left triangle of a cell before the lower-right one)."""
  xml = _hfield_xml('<geom type="sphere" size="0.35"/>', _elevation(30, 30, _seed("fine")) * 0.1)
  mjm, mjd, m, d = oracle.load_both(xml)
  mjd.qpos[:] = d.qpos[:] = [0.1, 0.2, 0.0, 1, 0, 0, 0]
  mujoco.mj_forward(mjm, mjd)
  physics.mj_forward(m, d)
  assert mjd.ncon == d.ncon == physics.types.MAXCONPAIR
  np.testing.assert_allclose(d.contact.pos[:50], mjd.contact.pos, atol=1e-9)
  np.testing.assert_allclose(d.contact.dist[:50], mjd.contact.dist, atol=1e-9)


def test_plane_and_hfield_pairs_make_no_contacts():
  """MuJoCo collides neither plane-hfield nor hfield-hfield pairs, even overlapping: neither do we."""
  elevation = " ".join(str(v) for v in _elevation(3, 3, 1).ravel())
  xml = f"""<mujoco><asset><hfield name="h" nrow="3" ncol="3" size="1 1 0.5 0.2" elevation="{elevation}"/></asset>
    <worldbody><geom type="plane" size="2 2 0.1" pos="0 0 0.2"/><geom type="hfield" hfield="h"/>
    <body pos="0.3 0 0.1"><freejoint/><geom type="hfield" hfield="h"/></body></worldbody></mujoco>"""
  mjm, mjd, m, d = oracle.load_both(xml)
  mujoco.mj_forward(mjm, mjd)
  physics.mj_forward(m, d)
  assert mjd.ncon == 0 and d.ncon == 0


def test_drop_on_terrain():
  """A ball and a crate dropped on bumpy terrain (tests/models/hfield_terrain.xml), 400 steps of 2 ms in both
  engines with MuJoCo's defaults (pyramidal cones, Newton): the fall, the impacts, the rolling and the settling.

  The ball's sphere-prism contacts equal MuJoCo's to 1e-13, so its whole path is held to 1e-8 (measured 3e-15 over
  500 steps) and its contact count to MuJoCo's at every step. The crate's box-prism contacts cannot equal MuJoCo
  4.0's native ones (see test_polytope_random_poses), so only where it comes to rest is compared: with MuJoCo's
  libccd path (nativeccd off), whose depths and normals are ours and only its contact points differ, and with the
  default path. Measured at step 400: 4e-4 m and 0.011 (quaternion) from the first, 3e-3 m and 0.016 from the
  second; the tolerances below are 2 mm / 5 mm and 0.03 (2 degrees) on a 9 cm crate.
  """
  mjm, mjd, m, d = oracle.load_both(MODELS_DIR / "hfield_terrain.xml")
  text = (MODELS_DIR / "hfield_terrain.xml").read_text()
  libccd = mujoco.MjModel.from_xml_string(text.replace('<option timestep="0.002"/>',
                                                       '<option timestep="0.002"><flag nativeccd="disable"/></option>'))
  libccd_d = mujoco.MjData(libccd)
  ball_contacts = 0
  for step in range(400):
    mujoco.mj_step(mjm, mjd)
    mujoco.mj_step(libccd, libccd_d)
    physics.mj_step(m, d)
    n = int(d.ncon)
    ball = int(np.count_nonzero(d.contact.geom2[:n] == 1))
    assert ball == np.count_nonzero(mjd.contact.geom2 == 1), step
    ball_contacts += ball
    np.testing.assert_allclose(d.qpos[:7], mjd.qpos[:7], atol=1e-8, err_msg=str(step))
    np.testing.assert_allclose(d.qvel[:6], mjd.qvel[:6], atol=1e-6, err_msg=str(step))
  assert ball_contacts > 200
  assert np.abs(d.qvel[6:]).max() < 0.05
  for ref, atol in ((libccd_d, 2e-3), (mjd, 5e-3)):
    np.testing.assert_allclose(d.qpos[7:10], ref.qpos[7:10], atol=atol)
    np.testing.assert_allclose(d.qpos[10:14], ref.qpos[10:14], atol=0.03)


# ----------------------------------------------------------------------- rays ----


def test_ray_matches_mj_ray():
  """Rays from above, from the sides, from below and from inside the solid agree with mj_ray: distance to 1e-9,
  and the normal of ray_hfield is the terrain's where the hit is on a top triangle."""
  xml = _hfield_xml('<geom size="0.01" pos="5 5 5"/>', _elevation(6, 8, _seed("rays")), option="")
  mjm, mjd, m, d = oracle.load_both(xml)
  mujoco.mj_forward(mjm, mjd)
  physics.mj_forward(m, d)
  rng = np.random.default_rng(_seed("rays"))
  geomid = np.zeros(1, np.int32)
  group = np.array([1, 1, 1, 1, 1, 1], np.uint8)
  hits = 0
  for k in range(400):
    kind = k % 4
    if kind == 0:  # from above, towards the terrain
      pnt = np.concatenate([rng.uniform(-1.3, 1.3, 2), [rng.uniform(0.5, 2.0)]])
      vec = np.concatenate([rng.normal(size=2) * 0.3, [-1.0]])
    elif kind == 1:  # sideways, low
      pnt = np.concatenate([rng.normal(size=2) * 3.0, [rng.uniform(-0.2, 0.3)]])
      vec = np.concatenate([-pnt[:2] + rng.normal(size=2) * 0.3, [rng.normal() * 0.05]])
    elif kind == 2:  # from below
      pnt = np.concatenate([rng.uniform(-1.3, 1.3, 2), [-1.0]])
      vec = np.concatenate([rng.normal(size=2) * 0.3, [1.0]])
    else:  # anywhere, any direction
      pnt = rng.uniform(-1.5, 1.5, 3) * (1, 1, 0.3)
      vec = rng.normal(size=3)
    vec = vec / np.linalg.norm(vec)
    expected = mujoco.mj_ray(mjm, mjd, pnt, vec, group, 1, 1, geomid)
    got = ray.ray(m._struct, d._struct, pnt, vec, 1)
    assert abs(got - expected) < 1e-9, (k, pnt, vec, got, expected)
    t, nrm = ray.ray_hfield(m._struct, 0, d.geom_xpos[0], d.geom_xmat[0], pnt, vec)
    assert abs(t - expected) < 1e-9
    if expected >= 0:
      hits += 1
      assert abs(np.linalg.norm(nrm) - 1.0) < 1e-12
  assert hits > 150


def test_rangefinder_over_terrain():
  """A rangefinder carried over the terrain at random poses reads what MuJoCo's does (to 1e-9), -1 when it misses."""
  site = '<site name="eye" pos="0 0 0.1"/><geom size="0.01" contype="0" conaffinity="0" rgba="0 0 0 0"/>'
  xml = _hfield_xml(site, _elevation(6, 8, _seed("rangefinder")), option="").replace(
      "</mujoco>", '<sensor><rangefinder site="eye"/></sensor></mujoco>')
  mjm, mjd, m, d = oracle.load_both(xml)
  rng = np.random.default_rng(_seed("rangefinder"))
  hits = 0
  for _ in range(100):
    q = _random_pose(rng)
    q[2] += 0.5
    mjd.qpos[:] = d.qpos[:] = q
    mujoco.mj_forward(mjm, mjd)
    physics.mj_forward(m, d)
    assert abs(d.sensordata[0] - mjd.sensordata[0]) < 1e-9
    hits += mjd.sensordata[0] >= 0
  assert hits > 20


# --------------------------------------------------------------------- errors ----

_GEOM = '<geom type="hfield" hfield="h"/>'


@pytest.mark.parametrize("asset, geom, attribute, fragment", [
    ('<hfield name="h" nrow="2" ncol="2" size="1 1 0 1"/>', _GEOM, "size", "4 positive numbers"),
    ('<hfield name="h" nrow="2" ncol="2" size="1 -1 1 1"/>', _GEOM, "size", "4 positive numbers"),
    ('<hfield name="h" nrow="2" ncol="2"/>', _GEOM, "size", "required attribute missing"),
    ('<hfield name="h" nrow="1" ncol="3" size="1 1 1 1"/>', _GEOM, "nrow", "at least 2"),
    ('<hfield name="h" size="1 1 1 1" elevation="1 2 3 4"/>', _GEOM, "nrow", "at least 2"),
    ('<hfield name="h" nrow="2" ncol="2" size="1 1 1 1" elevation="1 2 3"/>', _GEOM, "elevation",
     "elevation has 3 values, nrow * ncol = 4"),
    ('<hfield name="h" size="1 1 1 1" file="missing.png"/>', _GEOM, "file", "cannot read file"),
    ('<hfield name="h" size="1 1 1 1" file="bad.bin"/>', _GEOM, "file", "not a PNG nor a binary height field"),
    ('<hfield nrow="2" ncol="2" size="1 1 1 1"/>', _GEOM, "name", "needs a 'name'"),
    ('<hfield name="h" nrow="2" ncol="2" size="1 1 1 1"/>', '<geom type="hfield"/>', "hfield", "needs an 'hfield'"),
    ('<hfield name="h" nrow="2" ncol="2" size="1 1 1 1"/>', '<geom type="hfield" hfield="x"/>', "hfield",
     "unknown hfield 'x'"),
    ('<hfield name="h" nrow="2" ncol="2" size="1 1 1 1"/>', '<geom size="1" hfield="h"/>', "hfield",
     "'hfield' given for a geom of type sphere"),
])
def test_errors(tmp_path, asset, geom, attribute, fragment):
  (tmp_path / "bad.bin").write_bytes(np.array([2, 2], np.int32).tobytes() + b"\0" * 12)
  path = tmp_path / "model.xml"
  path.write_text(f"<mujoco>\n<asset>\n{asset}\n</asset>\n<worldbody>\n{geom}\n</worldbody>\n</mujoco>")
  with pytest.raises(MJCFError) as info:
    physics.MjModel.from_xml_path(str(path))
  message = str(info.value)
  line = 6 if "<geom" in message.split(":")[2] else 3
  assert message.startswith(f"{path}:{line}: "), message
  assert f"attribute '{attribute}'" in message, message
  assert fragment in message, message
