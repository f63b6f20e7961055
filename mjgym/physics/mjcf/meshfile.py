"""Mesh files: STL (binary or ASCII), OBJ and MuJoCo's legacy MSH, decoded as MuJoCo's readers decode them, and
MuJoCo's SKN skin files."""

import struct

import numpy as np

from mjgym.physics.mjcf.errors import MeshError

# MuJoCo's STL decoder rejects files with more faces than this.
_STL_MAX_FACES = 200000
_STL_HEADER = 84
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
  discards them then, when a face corner names none."""
  vert, texcoord, polys = [], [], []
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
    elif tok[0] == "vt":
      # a missing or unreadable number reads as 0 (as the OBJ reader MuJoCo uses does); v is flipped in single
      # precision, as MuJoCo flips it
      u, v = (_number(tok[k]) if len(tok) > k else 0.0 for k in (1, 2))
      texcoord.append([u, float(np.float32(1.0) - np.float32(v))])
    elif tok[0] == "f":
      if len(tok) < 4:
        raise MeshError(f"OBJ line {lineno}: a face needs at least 3 vertices, got '{line.strip()}'")
      poly, tex = [], []
      for ref in tok[1:]:
        parts = ref.split("/")
        try:
          idx = int(parts[0])
          tidx = int(parts[1]) if len(parts) > 1 and parts[1] else 0
        except ValueError:
          raise MeshError(f"OBJ line {lineno}: bad vertex reference '{ref}'") from None
        # Negative indices count back from the last vertex (texture coordinate) defined so far.
        poly.append(idx - 1 if idx > 0 else len(vert) + idx if idx < 0 else -1)
        if idx == 0 or poly[-1] < 0:
          raise MeshError(f"OBJ line {lineno}: vertex index {idx} out of range")
        tex.append(tidx - 1 if tidx > 0 else len(texcoord) + tidx if tidx < 0 else -1)
        if tidx and not 0 <= tex[-1] < len(texcoord):
          raise MeshError(f"OBJ line {lineno}: texture coordinate index {tidx} out of range")
      polys.append((lineno, poly, tex))
  if not vert:
    raise MeshError("OBJ file has no vertices")
  # MuJoCo stores asset vertices in single precision.
  vert = np.array(vert, dtype=np.float32).astype(np.float64)
  face, facetex = [], []
  for lineno, poly, tex in polys:
    if max(poly) >= len(vert):
      raise MeshError(f"OBJ line {lineno}: vertex index {max(poly) + 1} out of range (file has {len(vert)} vertices)")
    # triangles as corners of the polygon, so that vertices and texture coordinates split alike
    for tri in _triangulate(list(range(len(poly))), vert[poly]):
      face.append([poly[c] for c in tri])
      facetex.append([tex[c] for c in tri])
  facetex = np.array(facetex, dtype=np.int32).reshape(-1, 3)
  if facetex.size and facetex.min() < 0:
    # a corner without texture coordinates: MuJoCo discards the file's texture coordinates
    texcoord = []
  return (vert, np.array(face, dtype=np.int32).reshape(-1, 3), np.array(texcoord, dtype=np.float32).reshape(-1, 2),
          facetex if len(texcoord) else np.zeros_like(facetex))


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
