"""Mesh decoding and compilation against MuJoCo: mass, inertia, frame and vertices of single-mesh bodies."""

import importlib.util
import pathlib
import struct

import mujoco
import numpy as np
import pytest

import oracle
from mjgym import physics
from mjgym.physics.mjcf import mesh

DENSITY = 1000.0
GEOM_POS = np.array([0.1, -0.2, 0.3])
GEOM_QUAT = np.array([0.9, 0.1, -0.3, 0.2]) / np.linalg.norm([0.9, 0.1, -0.3, 0.2])


def quat2mat(quat):
  mat = np.zeros(9)
  mujoco.mju_quat2Mat(mat, np.asarray(quat, dtype=float))
  return mat.reshape(3, 3)


# ---- mesh files written in the test ----


def binary_stl(vert, tris, header=b"mjgym test mesh"):
  out = [header.ljust(80, b" "), struct.pack("<I", len(tris))]
  for tri in tris:
    out.append(np.zeros(3, "<f4").tobytes() + np.asarray(vert, "<f4")[list(tri)].tobytes() + b"\0\0")
  return b"".join(out)


def ascii_stl(vert, tris):
  # Single-precision round-trip digits, so the ASCII file holds exactly the binary file's numbers.
  num = lambda x: repr(float(np.float32(x)))
  lines = ["solid mjgym"]
  for tri in tris:
    lines += ["  facet normal 0 0 0", "    outer loop"]
    lines += [f"      vertex {num(x)} {num(y)} {num(z)}" for x, y, z in np.asarray(vert)[list(tri)]]
    lines += ["    endloop", "  endfacet"]
  return ("\n".join(lines + ["endsolid mjgym"]) + "\n").encode()


def obj_file(vert, polys, attributes=False):
  lines = ["# mjgym test mesh", "o part", "g group", "usemtl none", "s off"]
  lines += [f"v {x!r} {y!r} {z!r}" for x, y, z in np.asarray(vert, float).tolist()]
  # MuJoCo wants texture and normal references on every face or on none.
  suffix = "/1/1" if attributes else ""
  if attributes:
    lines += ["vt 0 0", "vn 0 0 1"]
  # Alternate absolute and negative (relative to the last vertex) references.
  for k, poly in enumerate(polys):
    refs = [str(i + 1 if k % 2 else i - len(vert)) + suffix for i in poly]
    lines.append("f " + " ".join(refs))
  return ("\n".join(lines) + "\n").encode()


def msh_file(vert, tris, extras=False):
  """MuJoCo's legacy binary MSH: int32 counts (vertices, normals, texture coordinates, faces), float32 vertices,
  normals and texture coordinates, int32 faces; ``extras`` adds (arbitrary) normals and texture coordinates."""
  vert = np.asarray(vert, np.float32)
  n = len(vert) if extras else 0
  normals = np.tile(np.float32([0, 0, 1]), (n, 1))
  texcoord = np.zeros((n, 2), np.float32)
  head = struct.pack("<4i", len(vert), n, n, len(tris))
  return head + vert.tobytes() + normals.tobytes() + texcoord.tobytes() + np.asarray(tris, "<i4").tobytes()


def fan(polys):
  return [(p[0], p[k], p[k + 1]) for p in polys for k in range(1, len(p) - 1)]


# ---- shapes: vertices and outward counter-clockwise polygons ----


def box_shape(lo=(0.0, 0.0, 0.0), hi=(0.2, 0.3, 0.5)):
  vert = np.array([[(lo, hi)[(i >> k) & 1][k] for k in range(3)] for i in range(8)], float)
  quads = [(0, 2, 3, 1), (4, 5, 7, 6), (0, 1, 5, 4), (2, 6, 7, 3), (0, 4, 6, 2), (1, 3, 7, 5)]
  return vert, quads


def tetrahedron_shape():
  vert = np.array([[0.0, 0.0, 0.0], [0.3, 0.0, 0.0], [0.0, 0.4, 0.0], [0.05, 0.1, 0.25]])
  return vert, [(0, 2, 1), (0, 1, 3), (0, 3, 2), (1, 2, 3)]


def icosphere_shape(radius=0.15, subdivisions=1):
  t = (1 + 5 ** 0.5) / 2
  vert = [(-1, t, 0), (1, t, 0), (-1, -t, 0), (1, -t, 0), (0, -1, t), (0, 1, t), (0, -1, -t), (0, 1, -t),
          (t, 0, -1), (t, 0, 1), (-t, 0, -1), (-t, 0, 1)]
  vert = [np.array(v) / np.linalg.norm(v) for v in vert]
  tris = [(0, 11, 5), (0, 5, 1), (0, 1, 7), (0, 7, 10), (0, 10, 11), (1, 5, 9), (5, 11, 4), (11, 10, 2),
          (10, 7, 6), (7, 1, 8), (3, 9, 4), (3, 4, 2), (3, 2, 6), (3, 6, 8), (3, 8, 9), (4, 9, 5), (2, 4, 11),
          (6, 2, 10), (8, 6, 7), (9, 8, 1)]
  for _ in range(subdivisions):
    mid, finer = {}, []

    def midpoint(i, j):
      key = (min(i, j), max(i, j))
      if key not in mid:
        m = vert[i] + vert[j]
        vert.append(m / np.linalg.norm(m))
        mid[key] = len(vert) - 1
      return mid[key]

    for a, b, c in tris:
      ab, bc, ca = midpoint(a, b), midpoint(b, c), midpoint(c, a)
      finer += [(a, ab, ca), (b, bc, ab), (c, ca, bc), (ab, bc, ca)]
    tris = finer
  return radius * np.array(vert), tris


def prism_shape(outline, height=0.4):
  """A prism over a counter-clockwise outline: caps as single polygons, sides as quads."""
  n = len(outline)
  vert = np.array([(x, y, 0.0) for x, y in outline] + [(x, y, height) for x, y in outline])
  polys = [tuple(range(n))[::-1], tuple(range(n, 2 * n))]
  polys += [(i, (i + 1) % n, n + (i + 1) % n, n + i) for i in range(n)]
  return vert, polys


L_OUTLINE = [(0.0, 0.0), (0.4, 0.0), (0.4, 0.2), (0.2, 0.2), (0.2, 0.4), (0.0, 0.4)]
U_OUTLINE = [(0.0, 0.0), (0.3, 0.0), (0.3, 0.3), (0.2, 0.3), (0.2, 0.1), (0.1, 0.1), (0.1, 0.3), (0.0, 0.3)]


def l_prism_caps_split():
  """The L prism with caps split into convex pieces, for formats without polygons (STL)."""
  vert, polys = prism_shape(L_OUTLINE)
  bottom = [(5, 4, 3), (3, 2, 1), (3, 1, 0), (5, 3, 0)]
  top = [(6, 7, 8), (6, 8, 9), (6, 9, 10), (6, 10, 11)]
  return vert, bottom + top + fan(polys[2:])


def u_prism_triangles():
  vert, polys = prism_shape(U_OUTLINE)
  # Ears of the U outline, valid for both caps (the bottom cap reverses them).
  ears = [(1, 2, 3), (1, 3, 4), (0, 1, 4), (0, 4, 5), (0, 5, 6), (0, 6, 7)]
  tris = [(c, b, a) for a, b, c in ears] + [(8 + a, 8 + b, 8 + c) for a, b, c in ears]
  return vert, tris + fan(polys[2:])


def moved(vert, seed=3):
  """Vertices under an arbitrary rotation and offset."""
  rng = np.random.default_rng(seed)
  quat = rng.normal(size=4)
  return vert @ quat2mat(quat / np.linalg.norm(quat)).T + rng.uniform(-2, 2, 3)


def shape_files(name):
  """(label, file name, file bytes, file name and bytes MuJoCo reads) for every format of one shape."""
  if name == "box":
    vert, polys = box_shape()
  elif name == "tetrahedron":
    vert, polys = tetrahedron_shape()
  elif name == "icosphere":
    vert, polys = icosphere_shape()
  elif name == "l_prism":
    vert, polys = prism_shape(L_OUTLINE)
  elif name == "moved_u_prism":
    vert, tris = u_prism_triangles()
    vert, polys = moved(vert), tris
  else:
    vert, polys = box_shape((-0.1, -0.2, -0.3), (0.15, 0.25, 0.05))
    vert = moved(vert, seed=5)
  tris = l_prism_caps_split()[1] if name == "l_prism" else fan(polys)
  stl = binary_stl(vert, tris)
  obj = obj_file(vert, polys, attributes=name in ("box", "moved_box"))
  return [("obj", f"{name}.obj", obj, f"{name}.obj", obj),
          ("binary_stl", f"{name}.stl", stl, f"{name}.stl", stl),
          ("binary_stl_solid_header", f"{name}.stl", binary_stl(vert, tris, b"solid but binary"), f"{name}.stl", stl),
          # MuJoCo reads binary STL only; it gets the binary twin of the ASCII file.
          ("ascii_stl", f"{name}.stl", ascii_stl(vert, tris), f"{name}.stl", stl),
          ("msh", f"{name}.msh", msh_file(vert, tris, extras=name in ("box", "icosphere")), f"{name}.msh",
           msh_file(vert, tris, extras=name in ("box", "icosphere")))]


# ---- the oracle ----


def mujoco_model(filename, data, inertia=None, scale=None, mass=None):
  mesh_attr = (f' inertia="{inertia}"' if inertia else "") + (f' scale="{" ".join(map(str, scale))}"' if scale else "")
  geom_mass = f'mass="{mass}"' if mass is not None else f'density="{DENSITY}"'
  xml = f"""
  <mujoco>
    <asset><mesh name="part" file="{filename}"{mesh_attr}/></asset>
    <worldbody>
      <body name="body">
        <freejoint/>
        <geom type="mesh" mesh="part" {geom_mass} pos="{' '.join(map(str, GEOM_POS))}"
              quat="{' '.join(map(str, GEOM_QUAT))}"/>
      </body>
    </worldbody>
  </mujoco>"""
  return mujoco.MjModel.from_xml_string(xml, assets={filename: data})


def check_against_mujoco(m, compiled, mass=None, convex=False):
  """Compares one compiled mesh, placed in a body by a posed geom, with MuJoCo's model of the same body.

  The mesh frame and the single-precision vertices in it are MuJoCo's bitwise: the center and the principal
  frame come out of the same operations in the same order. Hull faces are the exception (``convex``, the convex
  mass model or a point cloud's faces): MuJoCo sums over them in qhull's order, we in our hull's, so the center
  agrees to rounding.
  """
  if convex:
    np.testing.assert_allclose(compiled.pos, m.mesh_pos[0], rtol=0, atol=1e-15, err_msg="mesh_pos")
  else:
    np.testing.assert_array_equal(compiled.pos, m.mesh_pos[0], err_msg="mesh_pos")
  np.testing.assert_array_equal(compiled.quat, m.mesh_quat[0], err_msg="mesh_quat")
  np.testing.assert_array_equal(compiled.vert, m.mesh_vert, err_msg="mesh_vert")

  expected_mass = DENSITY * compiled.volume if mass is None else mass
  assert abs(expected_mass - m.body_mass[1]) <= 1e-12 * m.body_mass[1], "body mass"
  geom_rot = quat2mat(GEOM_QUAT)
  rot = geom_rot @ quat2mat(compiled.quat)
  pos = GEOM_POS + geom_rot @ compiled.pos
  size = np.max(np.abs(m.mesh_vert))
  np.testing.assert_allclose(pos, m.body_ipos[1], rtol=0, atol=1e-12 * size, err_msg="body_ipos")
  np.testing.assert_allclose(pos, m.geom_pos[0], rtol=0, atol=1e-12 * size, err_msg="geom_pos")
  moments = compiled.inertia * expected_mass / compiled.volume
  np.testing.assert_allclose(np.sort(moments), np.sort(m.body_inertia[1]), rtol=1e-12, err_msg="principal moments")
  # The inertia tensor in the body frame does not depend on how either side orders or signs the principal axes.
  tensor = rot @ np.diag(moments) @ rot.T
  body_rot = quat2mat(m.body_iquat[1])
  expected = body_rot @ np.diag(m.body_inertia[1]) @ body_rot.T
  err = np.max(np.abs(tensor - expected)) / np.max(np.abs(expected))
  assert err <= 1e-12, f"body inertia tensor: relative error {err:.2e} > 1e-12"
  np.testing.assert_allclose(compiled.aabb[3:] * 2, np.ptp(compiled.vert, axis=0), rtol=0, atol=1e-6 * size)


SHAPES = ("box", "tetrahedron", "icosphere", "l_prism", "moved_u_prism", "moved_box")


@pytest.mark.parametrize("shape", SHAPES)
def test_shapes_match_mujoco(shape, tmp_path):
  for label, filename, data, mj_filename, mj_data in shape_files(shape):
    (tmp_path / f"{label}_{filename}").write_bytes(data)
    vert, face = mesh.read_mesh((tmp_path / f"{label}_{filename}").read_bytes(), filename)
    compiled = mesh.process_mesh(vert, face)
    m = mujoco_model(mj_filename, mj_data)
    check_against_mujoco(m, compiled)
    np.testing.assert_array_equal(compiled.face, m.mesh_face, err_msg=f"{shape} {label} faces")


@pytest.mark.parametrize("inertia", mesh.INERTIA_MODES)
@pytest.mark.parametrize("scale", [None, (2.0, -1.0, 0.5)])
def test_inertia_modes_match_mujoco(inertia, scale):
  # The U prism is non-convex with its face centroid outside the solid: the four modes all differ.
  vert, tris = u_prism_triangles()
  for filename, data in (("u.stl", binary_stl(vert, tris)), ("u.msh", msh_file(vert, tris))):
    m = mujoco_model(filename, data, inertia=inertia, scale=scale)
    compiled = mesh.process_mesh(*mesh.read_mesh(data, filename), scale=scale or (1, 1, 1), inertia=inertia)
    check_against_mujoco(m, compiled, convex=inertia == "convex")
    np.testing.assert_array_equal(compiled.face, m.mesh_face)


def test_default_inertia_is_legacy():
  vert, tris = u_prism_triangles()
  legacy = mesh.process_mesh(vert, tris, inertia="legacy")
  exact = mesh.process_mesh(vert, tris, inertia="exact")
  assert mesh.process_mesh(vert, tris).volume == legacy.volume
  # Legacy counts pyramids from a center outside the solid as positive, so it overestimates.
  assert legacy.volume > exact.volume * 1.1
  np.testing.assert_allclose(exact.volume, 0.4 * (0.09 - 0.02), rtol=1e-7)


def test_explicit_mass():
  vert, polys = box_shape()
  data = obj_file(moved(vert), polys)
  m = mujoco_model("box.obj", data, mass=2.5)
  compiled = mesh.process_mesh(*mesh.read_mesh(data, "box.obj"))
  check_against_mujoco(m, compiled, mass=2.5)


def test_stl_corners_are_merged_bitwise():
  vert, tris = tetrahedron_shape()
  data = bytearray(binary_stl(vert, tris))
  # Write one copy of the corner (0, 0, 0) as (-0.0, 0, 0): a different bit pattern, so a separate vertex.
  offset = 84 + 50 + 12
  data[offset:offset + 4] = struct.pack("<f", -0.0)
  read_vert, face = mesh.read_mesh(bytes(data), "t.stl")
  m = mujoco_model("t.stl", bytes(data))
  assert len(read_vert) == m.nmeshvert == 5
  np.testing.assert_array_equal(face, m.mesh_face)


def test_obj_vertices_are_kept_as_given():
  vert, polys = box_shape()
  # A duplicate of every vertex and one unused vertex: OBJ vertices are not merged or pruned.
  vert = np.vstack([vert, vert, [[1.0, 1.0, 1.0]]])
  polys = [tuple(i + 8 * (k % 2) for i in p) for k, p in enumerate(polys)]
  data = obj_file(vert, polys)
  m = mujoco_model("dup.obj", data)
  compiled = mesh.process_mesh(*mesh.read_mesh(data, "dup.obj"))
  assert len(compiled.vert) == m.nmeshvert == 17
  check_against_mujoco(m, compiled)


def test_point_cloud_obj_is_meshed_by_its_hull():
  rng = np.random.default_rng(0)
  corners, _ = box_shape()
  points = np.vstack([corners, rng.uniform(0.05, 0.15, (6, 3))])
  data = obj_file(points, [])
  m = mujoco_model("cloud.obj", data)
  compiled = mesh.process_mesh(*mesh.read_mesh(data, "cloud.obj"))
  # its faces are its hull's, in our hull's order
  check_against_mujoco(m, compiled, convex=True)
  assert len(compiled.face) == m.nmeshface == 12


def test_convex_hull_of_icosphere():
  vert, tris = icosphere_shape(subdivisions=2)
  hull = mesh.convex_hull(vert)
  assert len(hull) == len(tris)
  normals = np.cross(vert[hull[:, 1]] - vert[hull[:, 0]], vert[hull[:, 2]] - vert[hull[:, 0]])
  # Outward: every hull plane has all points on or behind it.
  heights = (vert @ normals.T) - np.einsum("ij,ij->i", normals, vert[hull[:, 0]])
  assert np.all(heights <= 1e-12)


# ---- malformed input: we and MuJoCo both refuse ----


def flipped_face_box():
  vert, polys = box_shape()
  tris = fan(polys)
  tris[0] = tris[0][::-1]
  return vert, tris


@pytest.mark.parametrize("filename, data, message", [
    ("empty.stl", b"", "empty"),
    ("empty.obj", b"", "no vertices"),
    ("short.stl", b"solid", "no facets"),
    ("short.stl", b"\0" * 50, "shorter than the 84-byte binary header"),
    ("truncated.stl", binary_stl(*tetrahedron_shape())[:-7], "wrong size"),
    ("nofaces.stl", b"\0" * 80 + struct.pack("<I", 0), "number of faces"),
    ("range.obj", b"v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\nf 1 2 5\n", "line 5: vertex index 5 out of range"),
    ("range.obj", b"v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 -4\n", "line 4: vertex index -4 out of range"),
    ("zero.obj", b"v 0 0 0\nv 1 0 0\nv 0 1 0\nf 0 1 2\n", "vertex index 0 out of range"),
    ("flat.obj", b"v 0 0 0\nv 1 0 0\nv 0 1 0\nv 1 1 0\nf 1 2 3\nf 2 4 3\n", "coplanar"),
    ("tiny.obj", obj_file(box_shape(hi=(2e-5, 2e-5, 2e-5))[0], box_shape()[1]), "too small"),
    ("short.msh", b"\0" * 12, "missing header"),
    ("few.msh", struct.pack("<4i", 3, 0, 0, 1) + b"\0" * 48, "invalid sizes"),
    ("normals.msh", struct.pack("<4i", 4, 2, 0, 0) + b"\0" * 72, "invalid sizes"),
    ("truncated.msh", msh_file(*tetrahedron_shape())[:-4], "unexpected file size"),
    ("range.msh", msh_file(tetrahedron_shape()[0], [(0, 1, 4)]), "out of range"),
])
def test_malformed_files(filename, data, message):
  with pytest.raises(mesh.MeshError, match=message):
    mesh.process_mesh(*mesh.read_mesh(data, filename))
  if not filename.startswith("short"):
    with pytest.raises(ValueError):
      mujoco_model(filename, data)


def test_ascii_stl_errors():
  with pytest.raises(mesh.MeshError, match="line 4: expected 'vertex x y z'"):
    mesh.read_mesh(b"solid x\nfacet normal 0 0 1\nouter loop\nvertex 0 0\n", "a.stl")
  with pytest.raises(mesh.MeshError, match="ends inside a facet"):
    mesh.read_mesh(b"solid x\nfacet normal 0 0 1\nouter loop\nvertex 0 0 0\n", "a.stl")


def test_exact_inertia_needs_consistent_orientation():
  vert, tris = flipped_face_box()
  with pytest.raises(mesh.MeshError, match="inconsistent orientation"):
    mesh.process_mesh(vert, tris, inertia="exact")
  with pytest.raises(ValueError, match="inconsistent orientation"):
    mujoco_model("flip.stl", binary_stl(vert, tris), inertia="exact")
  # The other modes accept it, like MuJoCo.
  data = binary_stl(vert, tris)
  for inertia in ("legacy", "shell", "convex"):
    compiled = mesh.process_mesh(*mesh.read_mesh(data, "flip.stl"), inertia=inertia)
    check_against_mujoco(mujoco_model("flip.stl", data, inertia=inertia), compiled, convex=inertia == "convex")


def test_exact_inertia_rejects_inside_out_mesh():
  vert, polys = box_shape()
  tris = [t[::-1] for t in fan(polys)]
  with pytest.raises(mesh.MeshError, match="negative"):
    mesh.process_mesh(vert, tris, inertia="exact")
  with pytest.raises(ValueError, match="negative"):
    mujoco_model("inv.stl", binary_stl(vert, tris), inertia="exact")


def test_bad_arguments():
  vert, polys = box_shape()
  with pytest.raises(mesh.MeshError, match="unknown mesh inertia"):
    mesh.process_mesh(vert, fan(polys), inertia="solid")
  with pytest.raises(mesh.MeshError, match="unsupported mesh file type"):
    mesh.read_mesh(b"", "part.ply")
  with pytest.raises(mesh.MeshError, match="face index out of range"):
    mesh.process_mesh(vert, [(0, 1, 8)])


@pytest.mark.parametrize("attrs", ['vertex="{v}"', 'vertex="{v}" face="{f}"', 'vertex="{v}" scale="2 -1 0.5"',
                                   'vertex="{v}" inertia="exact" face="{f}"'])
def test_inline_mesh_matches_mujoco(attrs):
  """A mesh given by inline ``vertex`` (and ``face``) lists compiles to MuJoCo's vertices, faces and inertia."""
  vert, tris = tetrahedron_shape()
  vert = np.vstack([vert, [[0.3, 0.3, 0.3]]])  # A fifth vertex outside the tetrahedron.
  tris = [(0, 2, 1), (0, 1, 4), (0, 4, 2), (1, 2, 4)]
  given = attrs.format(v=" ".join(map(repr, vert.ravel().tolist())), f=" ".join(str(i) for t in tris for i in t))
  xml = f"""<mujoco><asset><mesh name="m" {given}/></asset><worldbody>
    <body pos="0.1 -0.2 0.3"><freejoint/><geom type="mesh" mesh="m"/></body></worldbody></mujoco>"""
  mjm, m = oracle.models(xml)
  assert m.nmeshvert == mjm.nmeshvert and m.nmeshface == mjm.nmeshface
  # Given faces are kept as given; a point cloud's hull faces may start at another corner or come in another order.
  canonical = lambda faces: sorted(tuple(np.roll(f, -int(np.argmin(f)))) for f in faces.tolist())
  assert canonical(m.mesh_face) == canonical(mjm.mesh_face)
  if "face" in attrs:
    np.testing.assert_array_equal(m.mesh_face, mjm.mesh_face)
  np.testing.assert_array_equal(m.mesh_vert, mjm.mesh_vert)
  np.testing.assert_allclose(m.body_mass, mjm.body_mass, rtol=1e-12)
  np.testing.assert_allclose(m.body_inertia, mjm.body_inertia, rtol=1e-12)
  np.testing.assert_allclose(m.body_ipos, mjm.body_ipos, rtol=0, atol=1e-9)
  np.testing.assert_allclose(m.geom_rbound, mjm.geom_rbound, rtol=1e-6)


# ---- hull polygons (mesh_poly*), the faces multiccd and plane-mesh contacts use ----


def polygons(m, i=0):
  """Mesh i's polygons as {vertex cycle starting at its smallest id: normal}, and per vertex its polygons' cycles."""
  cycles, normals = [], {}
  for p in range(m.mesh_polyadr[i], m.mesh_polyadr[i] + m.mesh_polynum[i]):
    a = m.mesh_polyvertadr[p]
    ids = [int(x) for x in m.mesh_polyvert[a:a + m.mesh_polyvertnum[p]]]
    k = ids.index(min(ids))
    cycles.append(tuple(ids[k:] + ids[:k]))
    normals[cycles[-1]] = np.asarray(m.mesh_polynormal[p], float)
  v0 = m.mesh_vertadr[i]
  at = {}
  for v in range(m.mesh_vertnum[i]):
    a, n = m.mesh_polymapadr[v0 + v], m.mesh_polymapnum[v0 + v]
    at[v] = sorted(cycles[j] for j in m.mesh_polymap[a:a + n])
  return normals, at


def check_polygons(m, mjm, i=0, normal_atol=1e-9):
  normals, at = polygons(m, i)
  mj_normals, mj_at = polygons(mjm, i)
  # MuJoCo lists the polygons in an order of its own; compare them as sets of vertex cycles.
  assert sorted(normals) == sorted(mj_normals)
  assert at == mj_at
  if normal_atol is not None:
    for cycle, normal in normals.items():
      np.testing.assert_allclose(normal, mj_normals[cycle], rtol=0, atol=normal_atol, err_msg=str(cycle))


@pytest.mark.parametrize("shape", [s for s in SHAPES if s != "moved_u_prism"])
def test_polygons_of_shapes_match_mujoco(shape):
  """Square faces of boxes, an L prism's hexagonal caps, the icosphere's triangles: MuJoCo's polygons and polymap.

  moved_u_prism is left out: a vertex of its outline lies on a hull edge and MuJoCo keeps a sliver triangle there.
  """
  _, filename, _, mj_filename, mj_data = next(iter(shape_files(shape)))
  mjm = mujoco_model(mj_filename, mj_data)
  xml = f"""<mujoco><asset><mesh name="m" file="{mj_filename}"/></asset>
    <worldbody><body><freejoint/><geom type="mesh" mesh="m"/></body></worldbody></mujoco>"""
  m = physics.MjModel.from_xml_string(xml, {mj_filename: mj_data})
  # the mesh frame is MuJoCo's, so the normals computed in it are too
  check_polygons(m, mjm, normal_atol=1e-12)
  assert m.nmeshpoly == mjm.nmeshpoly and m.nmeshpolyvert == mjm.nmeshpolyvert
  assert m.nmeshpolymap == mjm.nmeshpolymap


def hull_obj(seed):
  """The random convex point clouds of tests/test_collision.py and benchmarks/collision_agreement.py."""
  rng = np.random.default_rng(seed)
  pts = rng.normal(size=(24, 3)) * (0.09, 0.07, 0.05)
  return ("\n".join(f"v {x!r} {y!r} {z!r}" for x, y, z in pts.tolist()) + "\n").encode()


def test_polygons_of_random_hulls_match_mujoco():
  """Two meshes per model (addresses, mesh-local ids), 40 random hulls: MuJoCo's polygons, including the pairs of
  hull triangles it merges though they are not coplanar (seeds 7, 33, 35: dihedral angles 0.08 to 0.22 degrees,
  normals that round to the same 0.01 rad azimuth and polar angle)."""
  xml = """<mujoco><asset><mesh name="a" file="a.obj"/><mesh name="b" file="b.obj"/></asset>
    <worldbody><geom type="mesh" mesh="a"/><geom type="mesh" mesh="b" pos="1 0 0"/></worldbody></mujoco>"""
  quads = 0
  for seed in range(0, 40, 2):
    assets = {"a.obj": hull_obj(seed), "b.obj": hull_obj(seed + 1)}
    mjm, m = oracle.models(xml, assets)
    np.testing.assert_array_equal(m.mesh_polyadr, mjm.mesh_polyadr)
    np.testing.assert_array_equal(m.mesh_polynum, mjm.mesh_polynum)
    for i in range(2):
      check_polygons(m, mjm, i, normal_atol=1e-12)
    quads += int(np.sum(mjm.mesh_polyvertnum == 4))
  assert quads >= 3  # the merged pairs are there to be matched


@pytest.mark.parametrize("scale", ["-1 1 1", "1 -2 0.5", "-1 -1 -1", "0.5 2 3"])
def test_hulls_of_scaled_point_clouds_match_mujoco(scale):
  """A point cloud is meshed by its hull: MuJoCo's triangles in MuJoCo's order (qhull's, computed before the scale),
  and its polygons and normals, under stretching and mirroring scales."""
  xml = f"""<mujoco><asset><mesh name="a" file="a.obj" scale="{scale}"/></asset>
    <worldbody><body><freejoint/><geom type="mesh" mesh="a"/></body></worldbody></mujoco>"""
  for seed in range(10):
    assets = {"a.obj": hull_obj(seed)}
    mjm, m = oracle.models(xml, assets)
    np.testing.assert_array_equal(m.mesh_face, mjm.mesh_face, err_msg=f"seed {seed}")
    np.testing.assert_allclose(m.mesh_vert, mjm.mesh_vert, rtol=0, atol=1e-6)
    check_polygons(m, mjm, 0, normal_atol=1e-12)


def test_maxhullvert_matches_mujoco():
  """maxhullvert caps the hull's vertices (qhull's TA option, as MuJoCo passes it); 3 and below is refused."""
  for cap in (4, 6, 10, -1):
    xml = f"""<mujoco><asset><mesh name="a" file="a.obj" maxhullvert="{cap}"/></asset>
      <worldbody><body><freejoint/><geom type="mesh" mesh="a"/></body></worldbody></mujoco>"""
    assets = {"a.obj": hull_obj(3)}
    mjm, m = oracle.models(xml, assets)
    np.testing.assert_array_equal(m.mesh_face, mjm.mesh_face, err_msg=f"maxhullvert {cap}")
    assert cap < 0 or len(np.unique(m.mesh_face)) <= cap
    check_polygons(m, mjm, 0, normal_atol=1e-12)
  with pytest.raises(physics.MJCFError, match="maxhullvert must be larger than 3"):
    physics.MjModel.from_xml_string(xml.replace('maxhullvert="-1"', 'maxhullvert="3"'), assets)


def _bench_mesh_load():
  """benchmarks/bench_mesh_load.py as a module (its UV-sphere STL writer is the generated mesh of the test below)."""
  path = pathlib.Path(__file__).resolve().parent.parent / "benchmarks" / "bench_mesh_load.py"
  spec = importlib.util.spec_from_file_location("bench_mesh_load", path)
  module = importlib.util.module_from_spec(spec)
  spec.loader.exec_module(module)
  return module


def test_large_mesh_matches_mujoco():
  """A generated 100k-triangle sphere (50k vertices, all on the hull, where a hull costs most): MuJoCo's hull,
  polygons, frame and inertia. Its load time beside MuJoCo's: benchmarks/bench_mesh_load.py."""
  xml = """<mujoco><asset><mesh name="s" file="s.stl"/></asset>
    <worldbody><body><freejoint/><geom type="mesh" mesh="s"/></body></worldbody></mujoco>"""
  assets = {"s.stl": _bench_mesh_load().uv_sphere_stl(100000)[0]}
  mjm, m = oracle.models(xml, assets)
  assert mjm.mesh_facenum[0] == 100488 and m.mesh_facenum[0] == mjm.mesh_facenum[0]
  np.testing.assert_array_equal(m.mesh_face, mjm.mesh_face)
  np.testing.assert_allclose(m.mesh_vert, mjm.mesh_vert, rtol=0, atol=1e-6)
  assert m.nmeshpoly == mjm.nmeshpoly and m.nmeshpolyvert == mjm.nmeshpolyvert
  check_polygons(m, mjm, 0, normal_atol=1e-9)
  for field in ("body_mass", "body_inertia", "body_ipos", "body_iquat", "geom_size", "geom_rbound", "geom_quat"):
    np.testing.assert_allclose(getattr(m, field), getattr(mjm, field), rtol=1e-9, atol=1e-12, err_msg=field)



def test_hull_only_for_meshes_that_collide():
  """MuJoCo makes a mesh's hull (and its polygons) only when a geom collides with the mesh (contact type or
  affinity, or an explicit pair): a flat visual mesh loads, and nmeshpoly counts only the colliding meshes."""
  flat = b"v 0 0 0\nv 1 0 0\nv 0 1 0\nv 1 1 0\nf 1 2 3\nf 2 4 3\n"
  # a tetrahedron with faces (a point cloud always gets its hull: its faces are the hull's)
  tet = b"v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\nf 1 3 2\nf 1 2 4\nf 1 4 3\nf 2 3 4\n"
  assets = {"flat.obj": flat, "a.obj": tet, "b.obj": hull_obj(2), "c.obj": hull_obj(4)}
  xml = """<mujoco><asset><mesh name="flat" file="flat.obj" inertia="shell"/><mesh name="a" file="a.obj"/>
      <mesh name="b" file="b.obj"/><mesh name="c" file="c.obj"/></asset>
    <worldbody><body><freejoint/><geom size=".1"/>
      <geom type="mesh" mesh="flat" contype="0" conaffinity="0" group="1"/>
      <geom type="mesh" mesh="a" contype="0" conaffinity="0"/>
      <geom name="b" type="mesh" mesh="b" contype="0" conaffinity="0" pos="1 0 0"/>
      <geom type="mesh" mesh="c" conaffinity="0" pos="2 0 0"/></body>
      <geom name="floor" type="plane" size="5 5 .1"/></worldbody>
    <contact><pair geom1="b" geom2="floor"/></contact></mujoco>"""
  mjm, m = oracle.models(xml, assets)
  np.testing.assert_array_equal(m.mesh_polynum, mjm.mesh_polynum)
  assert list(mjm.mesh_polynum[:2]) == [0, 0] and min(mjm.mesh_polynum[2:]) > 0  # flat and a: no hull
  for i in (2, 3):
    check_polygons(m, mjm, i, normal_atol=1e-12)
  with pytest.raises(physics.MJCFError, match="coplanar"):
    physics.MjModel.from_xml_string(xml.replace('mesh="flat" contype="0"', 'mesh="flat" contype="1"'), assets)


@pytest.mark.parametrize("ref", ['refpos=".1 -.2 .3"', 'refquat="0.8 0.3 -0.2 0.4"',
                                 'refpos=".1 0 0" refquat="1 1 0 0" scale="2 -1 1"'])
def test_mesh_reference_frame_matches_mujoco(ref):
  """refpos / refquat: the file's vertices are given in that frame (moved before the scale, the hull computed on
  the file's vertices), as in MuJoCo: the geom's frame, the mesh's vertices, faces, polygons and inertia."""
  xml = """<mujoco><asset><mesh name="a" file="a.obj" {}/></asset>
    <worldbody><body><freejoint/><geom type="mesh" mesh="a"/></body></worldbody></mujoco>"""
  assets = {"a.obj": hull_obj(3)}
  plain = mujoco.MjModel.from_xml_string(xml.format(""), assets)
  mjm, m = oracle.models(xml.format(ref), assets)
  # the reference frame moves the geom (else this test would not test it)
  assert np.abs(plain.geom_pos - mjm.geom_pos).max() + np.abs(plain.geom_quat - mjm.geom_quat).max() > 1e-3
  for field in ("geom_pos", "geom_quat", "mesh_vert", "body_inertia", "body_ipos", "body_mass"):
    np.testing.assert_allclose(getattr(m, field), getattr(mjm, field), rtol=0, atol=1e-12, err_msg=field)
  np.testing.assert_array_equal(m.mesh_face, mjm.mesh_face)
  check_polygons(m, mjm, 0, normal_atol=1e-12)
