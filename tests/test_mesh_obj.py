"""OBJ files against MuJoCo's OBJ reader: which faces it keeps (the first shape's, of 3 to 100 vertices), how it
splits polygons, and which files it refuses, compiled by both engines and compared field by field."""

import importlib.util
import pathlib

import mujoco
import numpy as np
import pytest

import oracle
from mjgym import physics

MESHES = oracle.MODELS_DIR / "meshes"

# Both compilers read the same single-precision vertices and, with the same faces, do the same double-precision
# sums in nearly the same order: the compiled fields agree to rounding (measured below 1e-12 on these files).
TOL = 1e-9


def mesh_xml(filename):
  return f"""<mujoco><asset><mesh name="m" file="{filename}"/></asset>
    <worldbody><body><freejoint/><geom type="mesh" mesh="m" density="1000"/></body></worldbody></mujoco>"""


def compare(source, assets=None):
  mjm, m = oracle.models(source, assets)
  # the faces themselves, exactly, before the derived fields
  assert m.nmeshface == mjm.nmeshface
  np.testing.assert_array_equal(m.mesh_face, mjm.mesh_face)
  assert oracle.model_differences(mjm, m, TOL) == []
  return mjm, m


def test_only_the_first_shape_keeps_its_faces():
  # A first "o" without faces, a bare "g", "usemtl" and "s" lines (no splits), v/vt/vn references (some negative),
  # quads, then a second "g" shape and a third "o" shape whose faces MuJoCo drops; all 12 vertices stay.
  mjm, _ = compare(mesh_xml(MESHES / "obj_shapes.obj"))
  assert (mjm.nmeshvert, mjm.nmeshface) == (12, 12)


def test_degenerate_faces_are_skipped():
  # Faces of 2 and 1 vertices are dropped (not refused), "l" and "p" elements beside faces are ignored, the
  # repeated-vertex triangle stays, and the non-convex hexagonal caps are ear-clipped as MuJoCo's reader does.
  mjm, _ = compare(mesh_xml(MESHES / "obj_degenerate.obj"))
  assert mjm.nmeshface == 2 * 4 + 6 * 2 + 1


V = "v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\nv 1 1 1\nv 2 0 0\n"
TETRA = "f 1 3 2\nf 1 2 4\nf 1 4 3\nf 2 3 4\n"
SECOND = "f 1 5 2\nf 2 5 3\nf 3 5 1\n"


@pytest.mark.parametrize("text", [
    V + "o a\n" + TETRA + "o b\n" + SECOND,
    V + "g a\n" + TETRA + "g b\n" + SECOND,
    V + TETRA + "o b\n" + SECOND,  # faces before any "o" are the first shape
    V + "o a\no b\n" + TETRA + "g c\n" + SECOND,  # a shape without faces is no shape
    V + "g\n" + TETRA + "o\n" + SECOND,  # a bare "g" or "o" does not split
    V + "g \n" + TETRA + "o \n" + SECOND,  # with a space after it, it does (an unnamed shape)
    V + "o\ta\n" + TETRA + "  g\tb\n" + SECOND,  # tabs and leading blanks
    V + "o a\n" + TETRA + "o a\n" + SECOND,  # the same name again is still a new shape
    V + "usemtl x\n" + TETRA + "usemtl y\ns 1\n" + SECOND,  # materials and smoothing groups do not split
    (V + "o a\n" + TETRA + "o b\n" + SECOND).replace("\n", "\r\n"),
    V + "o a\np 1 2 3\no b\n" + TETRA,  # a first shape of points only: no faces, the hull of all vertices
    V + "o a\nf 1 2\nf 3\nf\no b\n" + TETRA,  # faces of 2, 1 or 0 vertices do not make a shape count
    V + "o a\n" + "f " + " ".join(["1", "2", "3", "4", "5", "6"] * 17) + "\no b\n" + TETRA,  # nor one of 102
    V + "o a\nl 5\no b\n" + TETRA,  # a line naming a vertex does: no faces, the hull of all vertices
    V + "o a\nl\np\no b\n" + TETRA,  # empty "l" and "p" lines do not
    V + "f 1 2\nf 2 3\n",  # no face of 3 vertices in the whole file: the same
])
def test_shape_rules(text):
  compare(mesh_xml("a.obj"), {"a.obj": text.encode()})


def polygon_file(n, center=(0.0, 0.0), seed=None):
  """A cone: an n-gon base (regular, or star-shaped and non-convex with a seed) and n triangles to an apex."""
  angle = np.arange(n) * 2 * np.pi / n
  radius = np.ones(n)
  if seed is not None:
    rng = np.random.default_rng(seed)
    angle, radius = np.sort(rng.uniform(0, 2 * np.pi, n)), rng.uniform(0.3, 1.0, n)
  lines = [f"v {center[0] + r * np.cos(t):.6f} {center[1] + r * np.sin(t):.6f} 0" for t, r in zip(angle, radius)]
  lines += [f"v {center[0]} {center[1]} 1", "f " + " ".join(str(i + 1) for i in range(n))]
  lines += [f"f {i + 1} {(i + 1) % n + 1} {n + 1}" for i in range(n)]
  return ("\n".join(lines) + "\n").encode()


@pytest.mark.parametrize("n, center, seed", [
    (5, (0, 0), None), (12, (2, -1), None), (7, (0, 0), 1), (19, (0.5, 0.2), 2), (40, (-3, 1), 3),
    (100, (0, 0), None), (100, (0, 0), 4), (101, (0, 0), None), (101, (0, 0), 5), (128, (1, 1), None)])
def test_polygons(n, center, seed):
  # MuJoCo's reader ear-clips polygons of more than 4 vertices and gives none of more than 100 vertices any
  # triangle (measured on 4.0.0), so the 101- and 128-gons leave only the cone's sides.
  # (A polygon of at most 100 vertices may also lose the remainder that one pass of that ear clipping leaves.)
  mjm, _ = compare(mesh_xml("a.obj"), {"a.obj": polygon_file(n, center, seed)})
  if n > 100:
    assert mjm.nmeshface == n


@pytest.mark.parametrize("text", [
    V + "vn 0 0 1\n" + TETRA,  # normals in the file, none named by the faces
    V + "vn 0 0 1\nf 1//1 3//1 2//1\nf 1//1 2//1 4//1\nf 1//1 4//1 3//1\nf 2 3 4\n",  # one face without
    V + "vn 0 0 1\nf 1//1 3//1 2//1\nf 1//1 2//1 4//1\nf 1//1 4//1 3//1\nf 2//1 3//1 4//2\n",  # out of range
])
def test_missing_face_normals_are_refused(text):
  xml, assets = mesh_xml("a.obj"), {"a.obj": text.encode()}
  with pytest.raises(ValueError, match="normal index"):
    mujoco.MjModel.from_xml_string(xml, assets)
  with pytest.raises(physics.MJCFError, match="normal index"):
    physics.MjModel.from_xml_string(xml, assets)


@pytest.mark.parametrize("text", [
    V + "vn 0 0 1\nf 1//1 3//1 2//1\nf 1//-1 2//1 4//1\nf 1//1 4//1 3//1\nf 2//1 3//1 4//1\n",
    V + "vn 0 0 1\n" + "f 1 2\nf 1//1 3//1 2//1\nf 1//1 2//1 4//1\nf 1//1 4//1 3//1\nf 2//1 3//1 4//1\n",
    V + "vn 0 0 1\no a\n" + TETRA.replace(" 1", " 1//1").replace(" 2", " 2//1").replace(" 3", " 3//1")
    .replace(" 4", " 4//1") + "o b\nf 1 2 3\n",  # the faces without normals are in a dropped shape
])
def test_face_normals_kept(text):
  compare(mesh_xml("a.obj"), {"a.obj": text.encode()})


def test_lines_only_first_shape_is_refused():
  # MuJoCo turns the line segments of a first shape without faces into zero-area triangles, and refuses them.
  xml, assets = mesh_xml("a.obj"), {"a.obj": (V + "o a\nl 1 2 3\no b\n" + TETRA).encode()}
  with pytest.raises(ValueError):
    mujoco.MjModel.from_xml_string(xml, assets)
  with pytest.raises(physics.MJCFError):
    physics.MjModel.from_xml_string(xml, assets)


def pybullet_data_files():
  """Every OBJ file of pybullet_data where it is installed (found at test time, never copied here)."""
  spec = importlib.util.find_spec("pybullet_data")
  if spec is None:
    return [pytest.param(None, marks=pytest.mark.skip(reason="pybullet_data is not installed"))]
  root = pathlib.Path(spec.submodule_search_locations[0])
  return [pytest.param(path, id=str(path.relative_to(root))) for path in sorted(root.rglob("*.obj"))]


@pytest.mark.parametrize("path", pybullet_data_files())
def test_pybullet_data(path):
  # Real files of these kinds (several shapes, 128-gon caps, 2-vertex faces): each compiles alike in both engines,
  # or both refuse it (flat files, non-finite vertices, faces missing normals).
  xml = mesh_xml(path)
  try:
    mujoco.MjModel.from_xml_string(xml)
  except ValueError:
    with pytest.raises(physics.MJCFError):
      physics.MjModel.from_xml_string(xml)
    return
  compare(xml)
