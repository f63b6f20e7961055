"""Mesh files: STL (binary or ASCII), OBJ and MuJoCo's legacy MSH, decoded as MuJoCo's readers decode them, and
MuJoCo's SKN skin files."""

import struct

import numpy as np

from mjgym.physics.mjcf.errors import MeshError

# MuJoCo's STL decoder rejects files with more faces than this.
_STL_MAX_FACES = 200000
_STL_HEADER = 84
# MuJoCo's OBJ reader silently gives no triangles for a face with more vertices than this (measured on 4.0.0:
# convex or not, 100 vertices split into 98 triangles, 101 or more into none).
_OBJ_MAX_POLYGON = 100
_STL_RECORD = np.dtype([("normal", "<f4", (3,)), ("vert", "<f4", (3, 3)), ("attr", "<u2")])


def read_msh(data):
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


def read_stl(data):
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


def read_obj(data):
  """Vertices and triangulated faces of an OBJ file; normal, group and material lines are ignored."""
  vert, face, _, _ = read_obj_textured(data)
  return vert, face


def read_obj_textured(data):
  """(vert (n, 3), face (m, 3), texcoord (k, 2) float32, facetexcoord (m, 3)) of an OBJ file: the ``vt`` lines
  with v flipped (MuJoCo stores 1 - v, so that v runs down the image), and per triangle corner the ``vt`` index its
  face names. ``texcoord`` is (0, 2) (and facetexcoord zeros) when the file has no ``vt`` lines or, as MuJoCo
  discards them then, when a face corner names none.

  As MuJoCo's OBJ reader, this keeps every vertex of the file but the faces of its first shape only: ``o`` and
  ``g`` lines (with a space or tab after the letter) start a new shape, and a shape counts once it has a face or
  an ``l`` or ``p`` line naming a vertex (``usemtl`` and ``s`` lines do not split). A face with fewer than 3 or
  more than ``_OBJ_MAX_POLYGON`` vertices is skipped as if absent (silently, as MuJoCo does). When the first shape
  has no face but has ``l`` lines, each line segment (i, j) becomes the degenerate triangle (i, j, j), as in
  MuJoCo."""
  vert, texcoord, polys, segments, nnormal = [], [], [], [], 0
  shape, used = 0, False  # current shape index; whether it has an f, l or p line yet
  for lineno, line in enumerate(data.decode("utf-8", errors="replace").splitlines(), 1):
    tok = line.split("#", 1)[0].split()
    if not tok:
      continue
    if tok[0] in ("o", "g") and line.lstrip(" \t")[1:2] in (" ", "\t"):
      shape, used = shape + used, False
      continue
    if tok[0] == "v":
      try:
        if len(tok) < 4:
          raise ValueError
        vert.append([float(x) for x in tok[1:4]])
      except ValueError:
        raise MeshError(f"OBJ line {lineno}: expected 'v x y z', got '{line.strip()}'") from None
    elif tok[0] == "vt":
      # a missing or unreadable number reads as 0 (as the OBJ reader MuJoCo uses does); v is flipped in single
      # precision, as MuJoCo flips it
      u, v = (_number(tok[k]) if len(tok) > k else 0.0 for k in (1, 2))
      texcoord.append([u, float(np.float32(1.0) - np.float32(v))])
    elif tok[0] == "vn":
      nnormal += 1
    elif tok[0] in ("f", "l", "p"):
      poly, tex, nrm = [], [], []
      for ref in tok[1:]:
        parts = ref.split("/")
        try:
          idx = int(parts[0])
          tidx = int(parts[1]) if len(parts) > 1 and parts[1] else 0
          nidx = int(parts[2]) if len(parts) > 2 and parts[2] else 0
        except ValueError:
          raise MeshError(f"OBJ line {lineno}: bad vertex reference '{ref}'") from None
        # Negative indices count back from the last vertex (texture coordinate) defined so far.
        poly.append(idx - 1 if idx > 0 else len(vert) + idx if idx < 0 else -1)
        if idx == 0 or poly[-1] < 0:
          raise MeshError(f"OBJ line {lineno}: vertex index {idx} out of range")
        tex.append(tidx - 1 if tidx > 0 else len(texcoord) + tidx if tidx < 0 else -1)
        if tidx and not 0 <= tex[-1] < len(texcoord):
          raise MeshError(f"OBJ line {lineno}: texture coordinate index {tidx} out of range")
        nrm.append(nidx - 1 if nidx > 0 else nnormal + nidx if nidx < 0 else -1)
      if tok[0] == "f" and not 3 <= len(poly) <= _OBJ_MAX_POLYGON:
        continue  # skipped as if absent: such a line does not even make its shape count
      used = used or bool(poly)
      if shape:
        continue  # past the first shape: MuJoCo drops its faces
      if tok[0] == "f":
        polys.append((lineno, poly, tex, nrm))
      elif tok[0] == "l":
        segments += [(lineno, [i, j, j]) for i, j in zip(poly, poly[1:])]
  if not vert:
    raise MeshError("OBJ file has no vertices")
  # MuJoCo stores asset vertices in single precision.
  vert = np.array(vert, dtype=np.float32).astype(np.float64)
  face, facetex = [], []
  for lineno, poly, tex, nrm in polys:
    if max(poly) >= len(vert):
      raise MeshError(f"OBJ line {lineno}: vertex index {max(poly) + 1} out of range (file has {len(vert)} vertices)")
    # MuJoCo takes a file's normals with the faces' normal indices, and refuses a kept face with a corner that
    # names none (or one out of range) when the file has "vn" lines.
    if nnormal and not all(0 <= i < nnormal for i in nrm):
      raise MeshError(f"OBJ line {lineno}: a face corner has a missing or out-of-range normal index (the file has "
                      f"{nnormal} 'vn' normals; MuJoCo wants one on every face corner)")
    # triangles as corners of the polygon, so that vertices and texture coordinates split alike
    for tri in _triangulate(list(range(len(poly))), vert[poly]):
      face.append([poly[c] for c in tri])
      facetex.append([tex[c] for c in tri])
  if not face:
    for lineno, tri in segments:
      if max(tri) >= len(vert):
        raise MeshError(f"OBJ line {lineno}: vertex index {max(tri) + 1} out of range "
                        f"(file has {len(vert)} vertices)")
      face.append(tri)
    texcoord = []  # MuJoCo keeps no texture coordinates for line segments
  facetex = np.array(facetex, dtype=np.int32).reshape(-1, 3)
  if facetex.size and facetex.min() < 0:
    # a corner without texture coordinates: MuJoCo discards the file's texture coordinates
    texcoord = []
  return (vert, np.array(face, dtype=np.int32).reshape(-1, 3), np.array(texcoord, dtype=np.float32).reshape(-1, 2),
          facetex if len(texcoord) else np.zeros((len(face), 3), np.int32))


def _number(token):
  try:
    return float(token)
  except ValueError:
    return 0.0


def read_msh_texcoord(data):
  """The texture coordinates (n, 2) float32 of an MSH file (one a vertex, as stored), (0, 2) if it has none."""
  nvert, nnormal, ntexcoord, _ = (int(x) for x in np.frombuffer(data, "<i4", 4))
  return np.frombuffer(data, "<f4", 2 * ntexcoord, 16 + 12 * nvert + 12 * nnormal).reshape(-1, 2).copy()


def read_skn(data):
  """MuJoCo's binary skin: int32 counts of vertices, texture coordinates, faces and bones, then float32 vertices
  (n, 3), texture coordinates (k, 2), int32 faces (m, 3), and per bone a 40-byte body name, float32 bindpos (3)
  and bindquat (4), an int32 vertex count c, int32 vertex ids (c) and float32 weights (c); little-endian.
  Returns (vert, texcoord, face, bones) with bones a list of (body, bindpos, bindquat, vertid, vertweight)."""
  if len(data) < 16:
    raise MeshError("missing header in SKN file (4 int32 counts)")
  nvert, ntex, nface, nbone = (int(x) for x in np.frombuffer(data, "<i4", 4))
  if min(nvert, ntex, nface, nbone) < 0:
    raise MeshError(f"negative size in the header of the SKN file: {nvert}, {ntex}, {nface}, {nbone}")
  words = len(data) // 4 - 4
  need = 3 * nvert + 2 * ntex + 3 * nface + 18 * nbone
  if words < need:
    raise MeshError(f"insufficient data in SKN file: its counts need at least {16 + 4 * need} bytes, "
                    f"it has {len(data)}")
  f32 = np.frombuffer(data, "<f4", words, 16)
  i32 = np.frombuffer(data, "<i4", words, 16)
  at = 0
  vert = f32[at:at + 3 * nvert].reshape(-1, 3).copy()
  at += 3 * nvert
  texcoord = f32[at:at + 2 * ntex].reshape(-1, 2).copy()
  at += 2 * ntex
  face = i32[at:at + 3 * nface].reshape(-1, 3).copy()
  at += 3 * nface
  bones = []
  for b in range(nbone):
    if words - at < 18:
      raise MeshError(f"insufficient data in SKN file at bone {b}")
    name = data[16 + 4 * at:16 + 4 * at + 39].split(b"\0", 1)[0].decode("utf-8", errors="replace")
    at += 10
    bindpos = f32[at:at + 3].copy()
    bindquat = f32[at + 3:at + 7].copy()
    count = int(i32[at + 7])
    at += 8
    if count < 1:
      raise MeshError(f"vertex count must be positive in SKN file, bone {b} has {count}")
    if (words - at) // 2 < count:
      raise MeshError(f"insufficient vertex data in SKN file, bone {b}")
    bones.append((name, bindpos, bindquat, i32[at:at + count].copy(), f32[at + count:at + 2 * count].copy()))
    at += 2 * count
  if at != words or len(data) % 4:
    raise MeshError(f"unexpected size of SKN file: {len(data)} bytes, its contents take {16 + 4 * at}")
  return vert, texcoord, face, bones


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
  # Larger polygons: the OBJ reader's ear clipping, in single precision as it computes. It works in the coordinate
  # plane picked at the first corner (of consecutive vertices) that is not straight, and takes as an ear the next
  # triangle (guess, guess + 1, guess + 2) of the remaining polygon whose turn has the sign of a (2-D) cross
  # product of its first two corners (not of the polygon's orientation: that reader's test, followed as it is) and
  # that holds no other remaining vertex; a remainder it cannot clip in one pass over it is dropped.
  f = np.float32
  q = p.astype(np.float32)
  axes = (1, 2)
  for k in range(n):
    e0, e1 = q[(k + 1) % n] - q[k], q[(k + 2) % n] - q[(k + 1) % n]
    c = np.abs(np.array([e0[1] * e1[2] - e0[2] * e1[1], e0[2] * e1[0] - e0[0] * e1[2],
                         e0[0] * e1[1] - e0[1] * e1[0]], np.float32))
    if np.any(c > np.finfo(np.float32).eps):
      if not (c[0] > c[1] and c[0] > c[2]):
        axes = (0, 1) if c[2] > c[0] and c[2] > c[1] else (0, 2)
      break
  xy = q[:, list(axes)]
  left, tris, guess = list(range(n)), [], 0
  tries, last = n, n
  while len(left) > 3 and tries > 0:
    m = len(left)
    if guess >= m:
      guess -= m
    if last != m:
      last, tries = m, m
    else:
      tries -= 1
    i, j, k = (left[(guess + t) % m] for t in range(3))
    (x0, y0), (x1, y1), (x2, y2) = xy[i], xy[j], xy[k]
    cross = (x1 - x0) * (y2 - y1) - (y1 - y0) * (x2 - x1)
    area = (x0 * y1 - y0 * x1) * f(0.5)
    if cross * area < 0 or any(_crossing_inside(xy[[i, j, k]], xy[left[(guess + t) % m]]) for t in range(3, m)):
      guess += 1
      continue
    tris.append([poly[i], poly[j], poly[k]])
    left.remove(j)
  if len(left) == 3:
    tris.append([poly[t] for t in left])
  return tris


def _crossing_inside(tri, point):
  """The even-odd (ray crossing) test of a 2-D point against a triangle, as the OBJ reader computes it: points on
  some edges count as inside and on others as outside."""
  inside = False
  tx, ty = point
  for a in range(3):
    (xi, yi), (xj, yj) = tri[a], tri[a - 1]
    if (yi > ty) != (yj > ty) and tx < (xj - xi) * (ty - yi) / (yj - yi) + xi:
      inside = not inside
  return inside
