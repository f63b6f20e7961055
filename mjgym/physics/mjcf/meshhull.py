"""Convex hulls of meshes (qhull, with MuJoCo's options and checks) and the polygons MuJoCo makes of their faces."""

import numpy as np

from mjgym.physics import types
from mjgym.physics.mjcf.errors import MeshError

# MuJoCo's mjMINVAL: edges, cross products and offsets below it (scaled by the lengths involved) count as zero.
_MINVAL = types.MINVAL
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
