"""Mesh assets: MuJoCo's mesh compilation (frame, volume, inertia, hull) of decoded vertices and faces.

The compiler re-expresses every mesh in its own frame: origin at the centroid of the mass model selected by the
asset's `inertia` attribute, axes along the principal axes of inertia. `process_mesh` returns that frame relative to
the file's coordinates (MuJoCo's `mesh_pos` / `mesh_quat`) together with the volume and the principal moments per
unit density, so a geom's mass is `density * volume` and its inertia `density * inertia`. The files are decoded
in `meshfile`, hulls and their polygons made in `meshhull`, the mass properties summed in `meshinertia`.
"""

import dataclasses
import os

import numpy as np

from mjgym.physics.mjcf import meshfile
from mjgym.physics.mjcf import meshinertia
from mjgym.physics.mjcf import spatial
from mjgym.physics.mjcf.errors import MeshError
from mjgym.physics.mjcf.meshhull import convex_hull
from mjgym.physics.mjcf.meshhull import hull_polygons

INERTIA_MODES = ("convex", "exact", "legacy", "shell")
DEFAULT_INERTIA = "legacy"  # MuJoCo's default, kept for backward compatibility in MuJoCo itself.


@dataclasses.dataclass(frozen=True)
class Mesh:
  """A compiled mesh, in MuJoCo's mesh frame.

  Attributes:
    vert: (nvert, 3) vertices in the mesh frame, rounded to single precision like MuJoCo's `mesh_vert`.
    face: (nface, 3) int32 vertex indices, counter-clockwise seen from outside.
    pos: (3,) origin of the mesh frame in file coordinates (MuJoCo's `mesh_pos`).
    quat: (4,) orientation (w, x, y, z) of the mesh frame in file coordinates (MuJoCo's `mesh_quat`).
    volume: volume of the mass model; its surface area when `inertia` is "shell".
    inertia: (3,) principal moments of inertia per unit density, descending.
    aabb: (6,) center (3,) and half sizes (3,) of the vertices' bounding box in the mesh frame.
    rbound: distance from the mesh-frame origin to the farthest corner of the aabb (MuJoCo's `geom_rbound`).
    hull: (nhull, 3) int32 triangles of the convex hull, counter-clockwise seen from outside; (0, 3) for a mesh
      that needs none (MuJoCo makes the hull only for meshes that collide or use the convex inertia: see
      `with_hull`).
    polygons: list of (k,) int32 vertex indices of the hull's faces, counter-clockwise seen from outside.
    polynormals: (npoly, 3) unit outward normals of the polygons.
    raw: (nvert, 3) the file's vertices in single precision (before the scale): the hull is computed on them.
    local: (nvert, 3) the vertices in the mesh frame in double precision (the polygon normals come from them).
    mirrored: whether the scale mirrors the mesh.
    maxhullvert: the cap on the hull's vertices (-1: none).
  """
  vert: np.ndarray
  face: np.ndarray
  pos: np.ndarray
  quat: np.ndarray
  volume: float
  inertia: np.ndarray
  aabb: np.ndarray
  rbound: float
  hull: np.ndarray
  polygons: list
  polynormals: np.ndarray
  raw: np.ndarray = None
  local: np.ndarray = None
  mirrored: bool = False
  maxhullvert: int = -1


def read_mesh(data: bytes, filename: str) -> tuple[np.ndarray, np.ndarray]:
  """Decodes an STL (binary or ASCII), OBJ or MuJoCo MSH file into (vert (n, 3) float64, face (m, 3) int32)."""
  ext = os.path.splitext(filename)[1].lower()
  if ext == ".stl":
    return meshfile.read_stl(data)
  if ext == ".obj":
    return meshfile.read_obj(data)
  if ext == ".msh":
    return meshfile.read_msh(data)
  raise MeshError(f"unsupported mesh file type '{ext}' (expected .stl, .obj or .msh)")


def process_mesh(vert, face, scale=(1.0, 1.0, 1.0), inertia: str = DEFAULT_INERTIA, maxhullvert: int = -1,
                 need_hull: bool = True, refpos=(0.0, 0.0, 0.0), refquat=(1.0, 0.0, 0.0, 0.0)) -> Mesh:
  """Compiles raw vertices and faces the way MuJoCo does: scale, hull, mass model, principal frame.

  `maxhullvert` (-1: no limit, else at least 4) caps the hull's vertices as the mesh attribute does in MuJoCo.
  Without `need_hull` the hull and its polygons are made only where the mesh itself needs them (a point cloud, the
  convex inertia), as in MuJoCo; `with_hull` adds them later for a mesh that a colliding geom uses. `refpos` (3,)
  and `refquat` (4,) are the file's reference frame: the vertices are expressed in it (before the scale).
  """
  if inertia not in INERTIA_MODES:
    raise MeshError(f"unknown mesh inertia '{inertia}' (expected one of {', '.join(INERTIA_MODES)})")
  vert = np.asarray(vert, dtype=np.float64)
  if vert.ndim != 2 or vert.shape[1] != 3 or not vert.shape[0]:
    raise MeshError(f"mesh vertices must be a non-empty (n, 3) array, got shape {vert.shape}")
  if not np.all(np.isfinite(vert)):
    raise MeshError("mesh vertices are not all finite")
  face = np.asarray(face, dtype=np.int64).reshape(-1, 3)
  if face.size and (face.min() < 0 or face.max() >= len(vert)):
    raise MeshError(f"mesh face index out of range [0, {len(vert) - 1}]")
  scale = np.asarray(scale, dtype=np.float64).reshape(3)

  # MuJoCo keeps asset vertices in single precision and scales them in double precision afterwards; its hull is
  # computed before the scale.
  raw = vert.astype(np.float32).astype(np.float64)
  vert = _in_reference_frame(raw, refpos, refquat) * scale
  mirrored = bool(np.prod(np.sign(scale)) < 0)
  hull = None
  if need_hull or inertia == "convex" or not face.size:
    hull = _hull(raw, maxhullvert, mirrored)
  if mirrored:
    # A mirroring scale turns the faces inside out; swapping two corners restores outward winding.
    face = face[:, [0, 2, 1]]
  if not face.size:
    # A point cloud is meshed by its convex hull.
    face = hull.astype(np.int64)
  if inertia == "exact":
    meshinertia.check_orientation(face)

  volume, com, tensor = meshinertia.mass_properties(vert, hull if inertia == "convex" else face, face, inertia)
  moments, quat = spatial.eig3(tensor, spatial.MESH_EIG_TOL)
  local = _to_frame(vert, com, quat)
  lo, hi = local.min(axis=0), local.max(axis=0)
  mesh = Mesh(
      vert=local.astype(np.float32).astype(np.float64),
      face=face.astype(np.int32),
      pos=com,
      quat=quat,
      volume=float(volume),
      inertia=moments,
      aabb=np.concatenate([(hi + lo) / 2, (hi - lo) / 2]),
      # Like MuJoCo, bound the box rather than the vertices: the farthest corner of the aabb from the origin.
      rbound=float(np.linalg.norm(np.abs(hi + lo) / 2 + (hi - lo) / 2)),
      hull=np.zeros((0, 3), np.int32),
      polygons=[],
      polynormals=np.zeros((0, 3)),
      raw=raw,
      local=local,
      mirrored=mirrored,
      maxhullvert=maxhullvert,
  )
  return mesh if hull is None else with_hull(mesh, hull)


def with_hull(mesh: Mesh, hull=None) -> Mesh:
  """`mesh` with its convex hull and the hull's polygons (computed now unless given or already there)."""
  if mesh.hull.size:
    return mesh
  if hull is None:
    hull = _hull(mesh.raw, mesh.maxhullvert, mesh.mirrored)
  # MuJoCo's polygon normals come from the vertices in the mesh frame before they are stored in single precision.
  polygons, polynormals = hull_polygons(mesh.raw, mesh.local, hull, mesh.mirrored)
  return dataclasses.replace(mesh, hull=hull, polygons=polygons, polynormals=polynormals)


def _in_reference_frame(vert, refpos, refquat):
  """The vertices (n, 3) relative to the frame (refpos, refquat), as MuJoCo's compiler moves them (the offset
  first, then the rotation by the transposed matrix)."""
  refpos = np.asarray(refpos, dtype=np.float64)
  out = vert - refpos if np.any(refpos != 0) else vert
  if tuple(refquat) != (1.0, 0.0, 0.0, 0.0):
    m = spatial.quat_to_mat(spatial.unit(refquat)).ravel()
    out = np.stack([m[k] * out[:, 0] + m[3 + k] * out[:, 1] + m[6 + k] * out[:, 2] for k in range(3)], axis=1)
  return out


def _hull(raw, maxhullvert, mirrored):
  """The hull triangles of the unscaled vertices, turned around (two corners swapped) under a mirroring scale."""
  hull = convex_hull(raw, maxhullvert)
  return hull[:, [0, 2, 1]] if mirrored else hull


def _to_frame(vert, com, quat):
  """Vertices in the frame (com, quat), rotated as MuJoCo's compiler rotates them (by the conjugate's matrix)."""
  rot = spatial.quat_to_mat(spatial.quat_conj(quat))
  v = vert - com
  return np.stack([rot[k, 0] * v[:, 0] + rot[k, 1] * v[:, 1] + rot[k, 2] * v[:, 2] for k in range(3)], axis=1)
