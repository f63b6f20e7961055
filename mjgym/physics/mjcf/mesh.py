"""Mesh assets: STL and OBJ decoding, and MuJoCo's mesh compilation (frame, volume, inertia).

The compiler re-expresses every mesh in its own frame: origin at the centroid of the mass model selected by the
asset's `inertia` attribute, axes along the principal axes of inertia. `process_mesh` returns that frame relative to
the file's coordinates (MuJoCo's `mesh_pos` / `mesh_quat`) together with the volume and the principal moments per
unit density, so a geom's mass is `density * volume` and its inertia `density * inertia`.
"""

import dataclasses
import os
import struct

import numpy as np

from mjgym.physics.mjcf import spatial

INERTIA_MODES = ("convex", "exact", "legacy", "shell")
DEFAULT_INERTIA = "legacy"  # MuJoCo's default, kept for backward compatibility in MuJoCo itself.

# MuJoCo refuses meshes below this volume (measured against MuJoCo 4: it sits at 1e-14, not mjMINVAL).
_MIN_VOLUME = 1e-14
# Faces shorter than this in twice their area count as degenerate (MuJoCo's mjMINVAL).
_MINVAL = 1e-15
# MuJoCo's STL decoder rejects files with more faces than this.
_STL_MAX_FACES = 200000
_STL_HEADER = 84
_STL_RECORD = np.dtype([("normal", "<f4", (3,)), ("vert", "<f4", (3, 3)), ("attr", "<u2")])


class MeshError(ValueError):
  """A mesh file or mesh data that cannot be compiled."""


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
    return _read_stl(data)
  if ext == ".obj":
    return _read_obj(data)
  if ext == ".msh":
    return _read_msh(data)
  raise MeshError(f"unsupported mesh file type '{ext}' (expected .stl, .obj or .msh)")


def _read_msh(data):
  """MuJoCo's legacy binary mesh: int32 counts of vertices, normals, texture coordinates and faces, then float32
  vertices (n, 3), normals (n, 3), texture coordinates (n, 2) and int32 faces (m, 3), little-endian. Normals and
  texture coordinates (0 or as many as vertices) are checked and not kept; repeated vertices stay, as in MuJoCo."""
  if len(data) < 16:
    raise MeshError("missing header in MSH file (4 int32 counts)")
  nvert, nnormal, ntexcoord, nface = (int(x) for x in np.frombuffer(data, "<i4", 4))
  if (nvert < 4 or nface < 0 or nnormal < 0 or ntexcoord < 0 or nnormal not in (0, nvert)
      or ntexcoord not in (0, nvert)):
    raise MeshError(f"invalid sizes in MSH file: {nvert} vertices (at least 4), {nnormal} normals and "
                    f"{ntexcoord} texture coordinates (0 or one a vertex), {nface} faces")
  size = 16 + 12 * nvert + 12 * nnormal + 8 * ntexcoord + 12 * nface
  if len(data) != size:
    raise MeshError(f"unexpected file size in MSH file: {len(data)} bytes, its counts need {size}")
  vert = np.frombuffer(data, "<f4", 3 * nvert, 16).reshape(nvert, 3).astype(np.float64)
  face = np.frombuffer(data, "<i4", 3 * nface, size - 12 * nface).reshape(nface, 3).astype(np.int32)
  return vert, face


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
    _check_orientation(face)

  volume, com, tensor = _mass_properties(vert, hull if inertia == "convex" else face, face, inertia)
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


# MuJoCo groups hull triangles into polygons by their normal's azimuth and polar angle, each rounded to this step
# (radians): triangles in one bin that share edges are one polygon, whether or not they are exactly coplanar.
_POLYGON_ANGLE_STEP = 0.01


def _round_half_away(x):
  """C's round(): halves away from zero (numpy rounds them to even)."""
  return np.copysign(np.floor(np.abs(x) + 0.5), x)


def hull_polygons(raw, vert, hull, mirrored=False) -> tuple[list, np.ndarray]:
  """Faces of a convex hull as MuJoCo makes them: neighbouring hull triangles whose normals round to the same
  direction merged into one polygon.

  Args:
    raw: (n, 3) vertices as the hull was computed on (the file's, before scale): they decide the grouping.
    vert: (n, 3) vertices in the mesh frame: the polygons' normals come from them.
    hull: (k, 3) hull triangles indexing `vert`, counter-clockwise seen from outside, in qhull's order.
    mirrored: whether `hull` was turned around for a mirroring scale; the grouping then uses the triangles' normals
      from before that (MuJoCo groups them before it mirrors).

  Returns:
    The polygons, each a (p,) int32 array of vertex indices counter-clockwise seen from outside, in the order of
    their first triangles (MuJoCo's order is its hash table's; the polygons themselves are its); and their
    (npoly, 3) unit normals, the area-weighted mean of their triangles' normals (as MuJoCo 4's mesh_polynormal).
  """
  raw = np.asarray(raw, dtype=np.float64)
  vert = np.asarray(vert, dtype=np.float64)
  hull = np.asarray(hull, dtype=np.int64).reshape(-1, 3)
  normal = np.cross(raw[hull[:, 1]] - raw[hull[:, 0]], raw[hull[:, 2]] - raw[hull[:, 0]])
  if mirrored:
    normal = -normal
  norm = np.linalg.norm(normal, axis=1)
  keep = norm >= _MINVAL
  unit = normal[keep] / norm[keep, None] + 0.0  # + 0.0: no negative zeros into atan2
  pole = np.abs(unit[:, 2]) > 1.0 - 1e-7
  theta = np.where(pole, 0.0, _round_half_away(np.arctan2(unit[:, 1], unit[:, 0]) / _POLYGON_ANGLE_STEP))
  phi = np.where(pole, np.where(unit[:, 2] < 0, _round_half_away(np.pi / _POLYGON_ANGLE_STEP), 0.0),
                 _round_half_away(np.arccos(np.clip(unit[:, 2], -1.0, 1.0)) / _POLYGON_ANGLE_STEP))
  kept = hull[keep]
  groups = {}
  for k, key in enumerate(zip(theta.tolist(), phi.tolist())):
    groups.setdefault(key, []).append(k)
  tris = kept.tolist()
  polygons, owner = [], np.full(len(kept), -1, np.int64)  # -1: a triangle no path kept
  for members in groups.values():
    for path, ids in _polygon_paths([tris[k] for k in members], members):
      owner[ids] = len(polygons)
      polygons.append(path)
  # each polygon's normal: the sum of its triangles' area vectors, in the triangles' order, normalized
  area = np.cross(vert[kept[:, 1]] - vert[kept[:, 0]], vert[kept[:, 2]] - vert[kept[:, 0]])
  normals = np.zeros((len(polygons), 3))
  np.add.at(normals, owner[owner >= 0], area[owner >= 0])
  normals /= np.linalg.norm(normals, axis=1)[:, None]
  return polygons, normals


def _polygon_paths(faces, ids):
  """(path, the ``ids`` of its triangles) of the boundary cycles of triangles (each (a, b, c)) joined across shared edges, as MuJoCo
  traces them: its directed edges in insertion order, a triangle's edge cancelling its reverse, each connected
  island one path."""
  if len(faces) == 1:
    return [(np.array(faces[0], dtype=np.int32), ids)]
  edges, island_of = {}, {}  # directed edge -> insertion rank; edge -> island
  rank = 0
  parent = []

  def root(i):
    while parent[i] != i:
      parent[i] = parent[parent[i]]
      i = parent[i]
    return i

  island_of_face = []
  for a, b, c in faces:
    island = None
    new = []
    for u, v in ((a, b), (b, c), (c, a)):
      if (v, u) in edges:
        del edges[(v, u)]
        other = root(island_of.pop((v, u)))
        if island is None:
          island = other
        elif other != island:
          parent[max(other, island)] = min(other, island)
          island = min(other, island)
      else:
        new.append((u, v))
    if island is None:
      island = len(parent)
      parent.append(island)
    for e in new:
      edges[e] = rank
      island_of[e] = island
      rank += 1
    island_of_face.append(island)
  order = sorted(edges, key=edges.get)
  # islands in the order they were created (a merged island keeps the older number); each path starts at the
  # island's earliest remaining edge and follows, from each vertex, the earliest edge out of it
  by_island = {}
  for e in order:
    by_island.setdefault(root(island_of[e]), []).append(e)
  paths = []
  for island in sorted(by_island):
    island_edges = by_island[island]
    nxt = {}
    for u, v in island_edges:
      nxt.setdefault(u, v)
    path = list(island_edges[0])
    for _ in range(len(order)):
      following = nxt.get(path[-1])
      if following is None:
        break
      if following == path[0]:
        if len(path) >= 3:
          members = [k for k, i in zip(ids, island_of_face) if root(i) == island]
          paths.append((np.array(path, dtype=np.int32), members))
        break
      path.append(following)
  return paths


def convex_hull(points, maxhullvert: int = -1) -> np.ndarray:
  """Triangles (k, 3) int32 of the convex hull of `points` (n, 3), counter-clockwise seen from outside.

  The hull is qhull's (scipy's build of the library MuJoCo itself uses), run with MuJoCo's options ("Qt", and with
  `maxhullvert` > -1 "Q9 TA<maxhullvert - 4>"), so the triangles, their order and their first corners are MuJoCo's.
  Degenerate inputs are refused with MuJoCo's checks and tolerances, before qhull sees them.
  """
  # pylint: disable=import-outside-toplevel
  from scipy.spatial import ConvexHull
  from scipy.spatial import QhullError
  pts = np.asarray(points, dtype=np.float64)
  if len(pts) < 4:
    raise MeshError(f"mesh has {len(pts)} vertices; at least 4 non-coplanar vertices are needed")
  _check_hull_input(pts)
  options = "Qt" if maxhullvert < 0 else f"Qt Q9 TA{maxhullvert - 4}"
  try:
    hull = ConvexHull(pts, qhull_options=options)
  except QhullError as e:
    raise MeshError(f"qhull cannot compute the mesh's convex hull: {str(e).splitlines()[0]}") from e
  tri = hull.simplices.astype(np.int32)
  # qhull orients each facet by its own flag; turn the inward ones (normal against qhull's outward plane) around
  normal = np.cross(pts[tri[:, 1]] - pts[tri[:, 0]], pts[tri[:, 2]] - pts[tri[:, 0]])
  inward = np.einsum("ij,ij->i", normal, hull.equations[:, :3]) < 0
  tri[inward] = tri[inward][:, [1, 0, 2]]
  return tri


def _check_hull_input(pts):
  """MuJoCo's checks before its hull: a second distinct vertex, a non-collinear triple, a vertex off its plane."""
  len1 = np.linalg.norm(pts[1:] - pts[0], axis=1)
  distinct = np.flatnonzero(len1 > _MINVAL)
  if not distinct.size:
    raise MeshError("mesh has colocated vertices, cannot compute convex hull; consider using a small sphere instead")
  v1 = int(distinct[0]) + 1
  edge1 = pts[v1] - pts[0]
  length1 = float(len1[v1 - 1])
  edge2 = pts[1:] - pts[0]
  len2 = np.linalg.norm(edge2, axis=1)
  cross = np.cross(edge1, edge2)
  norm = np.linalg.norm(cross, axis=1)
  ok = (np.arange(1, len(pts)) != v1) & (len2 >= _MINVAL) & (norm > _MINVAL * length1 * len2)
  if not ok.any():
    raise MeshError("mesh has collinear vertices, cannot compute convex hull; consider using a thin capsule instead")
  k = int(np.argmax(ok))
  normal = cross[k] / norm[k]
  if not np.any(np.abs(pts @ normal - normal @ pts[0]) > _MINVAL * length1):
    raise MeshError("mesh has coplanar vertices, cannot compute convex hull; consider using a primitive geom type "
                    "(plane or thin box) instead")


def _check_orientation(face):
  """Raises unless every directed edge is used by one face at most, as the exact inertia requires."""
  edges = np.concatenate([face[:, [0, 1]], face[:, [1, 2]], face[:, [2, 0]]])
  uniq, counts = np.unique(edges, axis=0, return_counts=True)
  if np.any(counts > 1):
    i, j = uniq[np.argmax(counts > 1)]
    # MuJoCo names the vertices 1-based in this message; we do the same so the two can be compared.
    raise MeshError(f"faces of mesh have inconsistent orientation; check the faces containing the vertices "
                    f"{i + 1} and {j + 1} (1-based)")


def _seq_sum(x):
  """Sum of x's entries added in order, as MuJoCo's compiler accumulates (np.sum adds pairwise)."""
  return float(np.add.accumulate(x)[-1]) if len(x) else 0.0


def _triangles(vert, face):
  """Area, unit normal and centroid of every face, computed as MuJoCo's compiler does.

  A face of area below MINVAL gets area 0 and its normal is left unscaled.
  """
  a, b, c = vert[face[:, 0]], vert[face[:, 1]], vert[face[:, 2]]
  center = (a + b + c) / 3
  e1, e2 = b - a, c - a
  normal = np.stack([e1[:, 1] * e2[:, 2] - e1[:, 2] * e2[:, 1], e1[:, 2] * e2[:, 0] - e1[:, 0] * e2[:, 2],
                     e1[:, 0] * e2[:, 1] - e1[:, 1] * e2[:, 0]], axis=1)
  length = np.sqrt(normal[:, 0] * normal[:, 0] + normal[:, 1] * normal[:, 1] + normal[:, 2] * normal[:, 2])
  small = length < _MINVAL
  normal = np.where(small[:, None], normal, normal / np.where(small, 1.0, length)[:, None])
  return np.where(small, 0.0, 0.5 * length), normal, center


def _dot_rows(u, v):
  return u[:, 0] * v[:, 0] + u[:, 1] * v[:, 1] + u[:, 2] * v[:, 2]


def _mass_properties(vert, face, all_faces, mode):
  """Volume (area for shell), center and inertia tensor about that center per unit density.

  MuJoCo's sequence and order of operations, so that the center and the principal frame come out bitwise as
  its: the area-weighted face centroid (over all faces), then the pyramids from it to the mass-model faces give
  the center, then the pyramids from the center give volume and tensor. Legacy counts every pyramid as
  positive, which makes the two passes disagree for a non-convex mesh.
  """
  area, _, center = _triangles(vert, all_faces)
  total_area = _seq_sum(area)
  if total_area <= 0:
    raise MeshError("mesh faces have zero total area")
  facecen = np.array([_seq_sum(area * center[:, k]) for k in range(3)]) / total_area
  area, normal, center = _triangles(vert, face)
  if mode == "shell":
    weight = area
  else:
    weight = _dot_rows(center - facecen, normal) * area / 3
    if mode == "legacy":
      weight = np.abs(weight)
  total = _seq_sum(weight)
  if mode == "exact" and total < 0:
    raise MeshError("mesh volume is negative (misoriented triangles)")
  if mode != "shell" and total < _MIN_VOLUME:
    raise MeshError(f"mesh volume {total:.3g} is too small; try inertia='shell'")
  com = np.array([_seq_sum(weight * (center[:, k] * 3.0 / 4.0 + facecen[k] / 4.0)) for k in range(3)]) / total

  local = vert - com
  area, normal, center = _triangles(local, face)
  if mode == "shell":
    weight, denom = area, 12
  else:
    weight, denom = _dot_rows(center, normal) * area / 3, 20
    if mode == "legacy":
      weight = np.abs(weight)
  volume = _seq_sum(weight)
  if mode != "shell" and volume < _MIN_VOLUME:
    raise MeshError(f"mesh volume {volume:.3g} is too small; try inertia='shell'")
  # products of inertia P_ij of the pyramids (triangles for shell) with corners d, e, f
  d, e, f = local[face[:, 0]], local[face[:, 1]], local[face[:, 2]]
  p = {}
  for i, j in ((0, 0), (1, 1), (2, 2), (0, 1), (0, 2), (1, 2)):
    terms = (2 * (d[:, i] * d[:, j] + e[:, i] * e[:, j] + f[:, i] * f[:, j]) + d[:, i] * e[:, j] + d[:, j] * e[:, i]
             + d[:, i] * f[:, j] + d[:, j] * f[:, i] + e[:, i] * f[:, j] + e[:, j] * f[:, i])
    p[i, j] = _seq_sum(weight / denom * terms)
  tensor = np.array([[p[1, 1] + p[2, 2], -p[0, 1], -p[0, 2]],
                     [-p[0, 1], p[0, 0] + p[2, 2], -p[1, 2]],
                     [-p[0, 2], -p[1, 2], p[0, 0] + p[1, 1]]])
  return volume, com, tensor


def _to_frame(vert, com, quat):
  """Vertices in the frame (com, quat), rotated as MuJoCo's compiler rotates them (by the conjugate's matrix)."""
  rot = spatial.quat_to_mat(spatial.quat_conj(quat))
  v = vert - com
  return np.stack([rot[k, 0] * v[:, 0] + rot[k, 1] * v[:, 1] + rot[k, 2] * v[:, 2] for k in range(3)], axis=1)


def _read_stl(data):
  """Binary STL (any header, even one starting with "solid") or ASCII STL, with repeated corners merged."""
  if not data:
    raise MeshError("STL file is empty")
  count = struct.unpack_from("<I", data, 80)[0] if len(data) >= _STL_HEADER else -1
  if count >= 0 and len(data) == _STL_HEADER + _STL_RECORD.itemsize * count:
    if not 1 <= count <= _STL_MAX_FACES:
      raise MeshError(f"STL file has {count} faces; the number of faces must be between 1 and {_STL_MAX_FACES}")
    corners = np.frombuffer(data, dtype=_STL_RECORD, count=count, offset=_STL_HEADER)["vert"].reshape(-1, 3)
  elif data.lstrip()[:5].lower() == b"solid":
    corners = _read_ascii_stl(data)
  elif count < 0:
    raise MeshError(f"invalid STL file: {len(data)} bytes, shorter than the {_STL_HEADER}-byte binary header")
  else:
    raise MeshError(f"binary STL file has wrong size: {count} faces need "
                    f"{_STL_HEADER + _STL_RECORD.itemsize * count} bytes, the file has {len(data)} (truncated?)")
  if not np.all(np.isfinite(corners)):
    raise MeshError("STL file has non-finite vertex coordinates")
  # STL repeats every shared corner; MuJoCo merges bitwise-identical ones, keeping first-occurrence order
  # (so 0.0 and -0.0 stay distinct).
  bits = np.ascontiguousarray(corners.astype("<f4")).view("<u4")
  _, first, inverse = np.unique(bits, axis=0, return_index=True, return_inverse=True)
  order = np.argsort(first)
  rank = np.empty_like(order)
  rank[order] = np.arange(len(order))
  vert = corners[first[order]].astype(np.float64)
  return vert, rank[inverse.reshape(-1)].reshape(-1, 3).astype(np.int32)


def _read_ascii_stl(data):
  """Corner coordinates (3 * nface, 3) float32 of an ASCII STL file."""
  corners, loop = [], 0
  for lineno, line in enumerate(data.decode("ascii", errors="replace").splitlines(), 1):
    tok = line.split()
    if not tok:
      continue
    key = tok[0].lower()
    if key == "vertex":
      try:
        if len(tok) != 4:
          raise ValueError
        corners.append([float(x) for x in tok[1:]])
      except ValueError:
        raise MeshError(f"ASCII STL line {lineno}: expected 'vertex x y z', got '{line.strip()}'") from None
      loop += 1
    elif key == "endloop":
      if loop != 3:
        raise MeshError(f"ASCII STL line {lineno}: a facet has {loop} vertices, expected 3")
      loop = 0
  if not corners:
    raise MeshError("ASCII STL file has no facets")
  if loop:
    raise MeshError("ASCII STL file ends inside a facet (truncated?)")
  return np.array(corners, dtype=np.float32)


def _read_obj(data):
  """Vertices and triangulated faces of an OBJ file; texture, normal, group and material lines are ignored."""
  vert, polys = [], []
  for lineno, line in enumerate(data.decode("utf-8", errors="replace").splitlines(), 1):
    tok = line.split("#", 1)[0].split()
    if not tok:
      continue
    if tok[0] == "v":
      try:
        if len(tok) < 4:
          raise ValueError
        vert.append([float(x) for x in tok[1:4]])
      except ValueError:
        raise MeshError(f"OBJ line {lineno}: expected 'v x y z', got '{line.strip()}'") from None
    elif tok[0] == "f":
      if len(tok) < 4:
        raise MeshError(f"OBJ line {lineno}: a face needs at least 3 vertices, got '{line.strip()}'")
      poly = []
      for ref in tok[1:]:
        try:
          idx = int(ref.split("/", 1)[0])
        except ValueError:
          raise MeshError(f"OBJ line {lineno}: bad vertex reference '{ref}'") from None
        # Negative indices count back from the last vertex defined so far.
        poly.append(idx - 1 if idx > 0 else len(vert) + idx if idx < 0 else -1)
        if idx == 0 or poly[-1] < 0:
          raise MeshError(f"OBJ line {lineno}: vertex index {idx} out of range")
      polys.append((lineno, poly))
  if not vert:
    raise MeshError("OBJ file has no vertices")
  # MuJoCo stores asset vertices in single precision.
  vert = np.array(vert, dtype=np.float32).astype(np.float64)
  face = []
  for lineno, poly in polys:
    if max(poly) >= len(vert):
      raise MeshError(f"OBJ line {lineno}: vertex index {max(poly) + 1} out of range (file has {len(vert)} vertices)")
    face.extend(_triangulate(poly, vert))
  return vert, np.array(face, dtype=np.int32).reshape(-1, 3)


def _triangulate(poly, vert):
  """Triangles of one OBJ polygon, split the way MuJoCo's OBJ reader splits them."""
  n = len(poly)
  if n == 3:
    return [poly]
  p = vert[poly]
  if n == 4:
    # Quads are cut along their shorter diagonal (the 1-3 one on ties), compared in single precision as MuJoCo
    # does: near-ties are common (rotated rectangles) and decide which triangles a non-planar quad gets.
    q = p.astype(np.float32)
    d02, d13 = q[0] - q[2], q[1] - q[3]
    if d02[0] * d02[0] + d02[1] * d02[1] + d02[2] * d02[2] < d13[0] * d13[0] + d13[1] * d13[1] + d13[2] * d13[2]:
      return [[poly[0], poly[1], poly[2]], [poly[0], poly[2], poly[3]]]
    return [[poly[0], poly[1], poly[3]], [poly[1], poly[2], poly[3]]]
  # Larger polygons: ear clipping in the coordinate plane the polygon faces most.
  normal = np.sum(np.cross(p, np.roll(p, -1, axis=0)), axis=0)
  drop = int(np.argmax(np.abs(normal)))
  xy = np.delete(p, drop, axis=1)
  sense = np.sign(np.sum(xy[:, 0] * np.roll(xy[:, 1], -1) - np.roll(xy[:, 0], -1) * xy[:, 1]))
  left, tris, guess, misses = list(range(n)), [], 0, 0
  while len(left) > 3 and misses < len(left):
    guess %= len(left)
    i, j, k = (left[(guess + t) % len(left)] for t in range(3))
    e0, e1 = xy[j] - xy[i], xy[k] - xy[j]
    convex = (e0[0] * e1[1] - e0[1] * e1[0]) * sense > 0
    if convex and not any(_in_triangle(xy[m], xy[i], xy[j], xy[k]) for m in left if m not in (i, j, k)):
      tris.append([poly[i], poly[j], poly[k]])
      left.remove(j)
      misses = 0
    else:
      guess += 1
      misses += 1
  # A degenerate remainder (no ear found) is closed as a fan so no vertex is dropped.
  tris.extend([poly[left[0]], poly[left[t]], poly[left[t + 1]]] for t in range(1, len(left) - 1))
  return tris


def _in_triangle(q, a, b, c):
  """True if 2-D point q lies inside or on triangle abc (either winding)."""
  d = [(b[0] - a[0]) * (q[1] - a[1]) - (b[1] - a[1]) * (q[0] - a[0]),
       (c[0] - b[0]) * (q[1] - b[1]) - (c[1] - b[1]) * (q[0] - b[0]),
       (a[0] - c[0]) * (q[1] - c[1]) - (a[1] - c[1]) * (q[0] - c[0])]
  return min(d) >= 0 or max(d) <= 0
