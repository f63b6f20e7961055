"""<mesh> and <hfield> assets: read and compiled (with the ``mesh`` library), the hulls the colliding meshes need,
and the mesh_* and hfield_* fields."""

import os

import numpy as np

from mjgym.physics import types
from mjgym.physics.mjcf import mesh as meshlib
from mjgym.physics.mjcf import meshbuiltin
from mjgym.physics.mjcf import meshfile
from mjgym.physics.mjcf.errors import fail
from mjgym.physics.types import ObjType

# mjgym's bound on the elevation samples of one height field (nrow * ncol): it sets how much memory the model takes
# (MuJoCo has none). Documented in docs/mjcf.md.
MAX_HFIELD_SAMPLES = 2**26


def mesh(ctx, node):
  """A mesh asset from an STL, OBJ or MSH file or from inline ``vertex`` (and optional ``face``) lists, as in MuJoCo."""
  for inline in ("vertex", "face"):
    if node.has("file") and node.has(inline):
      fail(node, f"give either a 'file' or inline '{inline}' data, not both", inline)
  if node.has("file"):
    name = node.get("file")
    if not node.has("name"):
      # MuJoCo's default name: the file name after the last / or \\, without its extension
      node.attrs["name"] = os.path.splitext(name[max(name.rfind("/"), name.rfind("\\")) + 1:])[0]
    path = ctx.asset_path(node, name, ctx.cfg.meshdir)
    data = ctx.source.read(path, node, "file")
    attr, what = "file", f"mesh '{name}'"
  elif node.get("builtin", "none") != "none":
    attr, what = "builtin", f"builtin mesh '{node.get('builtin')}'"
    vert, face = _builtin_mesh(node)
  elif node.has("vertex"):
    if not node.has("name"):
      fail(node, "a mesh with inline vertices needs a name", "name")
    attr, what = "vertex", "the inline mesh"
    vert, face = _inline_mesh(node)
  else:
    fail(node, "a mesh needs a 'file' or inline 'vertex' data", "file")
  maxhullvert = node.get("maxhullvert", -1)
  if maxhullvert != -1 and maxhullvert <= 3:
    fail(node, "maxhullvert must be larger than 3", "maxhullvert")
  try:
    if attr == "file":
      vert, face = meshlib.read_mesh(data, name)
    processed = meshlib.process_mesh(vert, face, np.asarray(node.get("scale", [1.0] * 3), float),
                                     node.get("inertia", meshlib.DEFAULT_INERTIA), maxhullvert, need_hull=False,
                                     refpos=node.get("refpos", [0.0] * 3),
                                     refquat=node.get("refquat", [1.0, 0.0, 0.0, 0.0]))
  except ValueError as e:
    fail(node, f"cannot load {what}: {e}", attr)
  except (ArithmeticError, IndexError, KeyError, TypeError, UnicodeError) as e:
    fail(node, f"cannot load {what}: {type(e).__name__}: {e}", attr)
  texcoord, facetex = _texcoords(node, data if attr == "file" else None, name if attr == "file" else "", len(vert))
  if len(texcoord):
    # the face corners keep their texture coordinates: swapped alike under a mirroring scale, none for a hull
    facetex = facetex[:, [0, 2, 1]] if processed.mirrored else facetex
    if len(facetex) != len(processed.face):
      facetex = np.zeros((len(processed.face), 3), np.int32)
  ctx.meshes.append(processed)
  ctx.mesh_nodes.append(node)
  ctx.mesh_texcoords.append((texcoord, facetex))
  ctx.add(ObjType.MESH, node)


def _texcoords(node, data, name, nvert):
  """(texcoord (k, 2) float32, facetexcoord (nface, 3)) of a mesh as MuJoCo keeps them: an OBJ file's ``vt`` (v
  flipped) with the indices its faces name, an MSH file's or the inline ``texcoord`` one a vertex (the corners
  then use their vertex's); (0, 2) when the mesh has none."""
  none = np.zeros((0, 2), np.float32), np.zeros((0, 3), np.int32)
  ext = os.path.splitext(name)[1].lower()
  try:
    if ext == ".obj":
      _, face, texcoord, facetex = meshfile.read_obj_textured(data)
      return (texcoord, facetex) if len(texcoord) else none
    if ext == ".msh":
      texcoord = meshfile.read_msh_texcoord(data)
      return (texcoord, meshfile.read_msh(data)[1]) if len(texcoord) else none
  except ValueError as e:
    fail(node, f"cannot load the texture coordinates of mesh '{name}': {e}", "file")
  if data is None and node.has("texcoord"):
    texcoord = np.asarray(node.get("texcoord"), np.float32)
    if texcoord.size != 2 * nvert:
      fail(node, f"texcoord must have 2 numbers a vertex ({2 * nvert}), got {texcoord.size}", "texcoord")
    face = node.get("face", [])
    return texcoord.reshape(-1, 2), np.reshape(np.asarray(face, np.int32), (-1, 3))
  return none


def _builtin_mesh(node):
  """(vertices (n, 3), faces (k, 3)) of a builtin mesh (MuJoCo 4's ``builtin`` with its ``params``)."""
  kind = node.get("builtin")
  if kind in meshbuiltin.REFUSED:
    fail(node, f"builtin mesh '{kind}' is not supported (unsupported feature; mjgym builds "
         f"{', '.join(meshbuiltin.BUILT)})", "builtin")
  if not node.has("params"):
    fail(node, "a builtin mesh needs 'params'", "params")
  if node.has("vertex"):
    fail(node, "give either a 'builtin' mesh or inline 'vertex' data, not both", "vertex")
  try:
    return meshbuiltin.make(kind, node.get("params"))
  except meshbuiltin.BuiltinError as e:
    fail(node, str(e), "params")


def _inline_mesh(node):
  """(vertices (n, 3), faces (k, 3)) from a mesh's ``vertex`` and ``face`` attributes, checked as MuJoCo does."""
  vert = node.get("vertex")
  if len(vert) % 3:
    fail(node, f"vertex data must be a multiple of 3 numbers, got {len(vert)}", "vertex")
  if len(vert) < 12:
    fail(node, f"at least 4 vertices are required, got {len(vert) // 3}", "vertex")
  face = node.get("face", [])
  if len(face) % 3:
    fail(node, f"face data must be a multiple of 3 vertex indices, got {len(face)}", "face")
  for k, i in enumerate(face):
    if not 0 <= i < len(vert) // 3:
      fail(node, f"face {k // 3} uses vertex {i}, which does not exist (the mesh has {len(vert) // 3})", "face")
  return np.reshape(vert, (-1, 3)), np.reshape(np.asarray(face, np.int64), (-1, 3))


def hfield(ctx, node):
  """A height field: its grid from inline ``elevation``, a PNG or binary file, or zeros for the user to fill.

  MuJoCo stores elevations as float32 normalized to [0, 1] (min to 0, max to 1) with row 0 at -y: inline
  and PNG rows are listed from +y down, so they are flipped; a PNG is read through its first (red or gray)
  channel at 8 bits, as lodepng's gray conversion does.
  """
  if not node.has("size"):
    fail(node, "required attribute missing", "size")
  size = [float(x) for x in node.get("size")]
  if not all(x > 0 for x in size):
    fail(node, f"size must be 4 positive numbers (radius x, radius y, elevation z, base z), got {size}", "size")
  if node.has("file"):
    name = node.get("file")
    if not node.has("name"):
      # MuJoCo's default name: the file name after the last / or \\, without its extension
      node.attrs["name"] = os.path.splitext(name[max(name.rfind("/"), name.rfind("\\")) + 1:])[0]
    # MuJoCo's reader checks the asset directory, its compiler then reads from the mesh directory
    path = ctx.asset_path(node, name, ctx.cfg.assetdir, loaddir=ctx.cfg.meshdir)
    elevation = _read_hfield(ctx.source.read(path, node, "file"), name, node)
    nrow, ncol = elevation.shape
  else:
    nrow, ncol = node.get("nrow", 0), node.get("ncol", 0)
    if nrow < 2 or ncol < 2:
      fail(node, f"nrow and ncol must be at least 2 (or give a 'file'), got {nrow} x {ncol}",
           "nrow" if nrow < 2 else "ncol")
    if nrow * ncol > MAX_HFIELD_SAMPLES:
      fail(node, f"height field of {nrow} x {ncol} samples is larger than mjgym's bound of {MAX_HFIELD_SAMPLES} "
           "samples", "nrow")
    if node.has("elevation"):
      values = np.asarray(node.get("elevation"), np.float32)
      if values.size != nrow * ncol:
        fail(node, f"elevation has {values.size} values, nrow * ncol = {nrow * ncol}", "elevation")
      elevation = values.reshape(nrow, ncol)[::-1]
    else:
      elevation = np.zeros((nrow, ncol), np.float32)
  if not node.get("name", ""):
    fail(node, "a height field needs a 'name' (or a 'file' to name it after)", "name")
  lo, hi = elevation.min(), elevation.max()
  span = hi - lo
  if span > 0:
    elevation = (elevation - lo) / span
  else:
    elevation = np.zeros_like(elevation)
  ctx.hfields.append((nrow, ncol, size, np.ascontiguousarray(elevation, np.float32).ravel()))
  ctx.add(ObjType.HFIELD, node)


def _read_hfield(data, name, node):
  """Elevations (nrow, ncol) float32 of a height field file: a PNG, or MuJoCo's binary format (int32 nrow,
  int32 ncol, then nrow * ncol float32 in row order)."""
  if name.lower().endswith(".png"):
    import imageio.v3 as iio  # pylint: disable=import-outside-toplevel
    if not data.startswith(b"\x89PNG\r\n\x1a\n"):
      fail(node, f"'{name}' is not a valid PNG file (it does not start with the PNG signature)", "file")
    try:
      image = iio.imread(data, extension=".png")
    except Exception as e:  # pylint: disable=broad-except
      fail(node, f"'{name}' is not a valid PNG file (it cannot be decoded: {type(e).__name__})", "file")
    if image.ndim not in (2, 3) or image.size == 0:
      fail(node, f"'{name}' is not a valid PNG height field (image of shape {image.shape})", "file")
    if image.ndim == 3:
      image = image[..., 0]
    if image.dtype == np.uint16:
      image = image >> 8
    elevation = image.astype(np.float32)[::-1]
  else:
    head = np.frombuffer(data[:8], np.int32) if len(data) >= 8 else np.zeros(0, np.int32)
    if head.size < 2 or head[0] < 1 or head[1] < 1 or len(data) != 8 + 4 * int(head[0]) * int(head[1]):
      fail(node, f"'{name}' is not a PNG nor a binary height field (int32 nrow, int32 ncol, float32 data)",
           "file")
    elevation = np.frombuffer(data[8:], np.float32).reshape(int(head[0]), int(head[1]))
  if elevation.shape[0] < 2 or elevation.shape[1] < 2:
    fail(node, f"height field '{name}' must be at least 2 x 2, got {elevation.shape[0]} x {elevation.shape[1]}",
         "file")
  return elevation


def _mesh_hulls(ctx):
  """Hulls (and their polygons) for the meshes that collide: used by a mesh geom with a contact type or affinity,
  or by one in an explicit pair, as MuJoCo decides (it leaves the others without a hull)."""
  if not ctx.meshes:
    return
  paired = {int(g) for key in ("pair_geom1", "pair_geom2") for g in ctx.rows.get(key, [])}
  for g, (gtype, dataid) in enumerate(zip(ctx.rows.get("geom_type", []), ctx.rows.get("geom_dataid", []))):
    if gtype == types.GeomType.MESH and (ctx.rows["geom_contype"][g] or ctx.rows["geom_conaffinity"][g]
                                         or g in paired):
      try:
        ctx.meshes[dataid] = meshlib.with_hull(ctx.meshes[dataid])
      except ValueError as e:
        node = ctx.mesh_nodes[dataid]
        fail(node, f"cannot compute the convex hull of mesh '{node.get('name')}' (a geom collides with it): {e}",
             "file" if node.has("file") else "vertex")


def mesh_fields(ctx, v):
  """mesh_*: the meshes' vertices and faces, their hulls and the hulls' polygons, back to back."""
  _mesh_hulls(ctx)
  verts, faces, vadr, fadr, vnum, fnum = [], [], [], [], [], []
  # Colliders see a mesh as its convex hull: keep the hull's vertices, the only ones a support point can be.
  # Hull triangles index the mesh's hull vertices (counter-clockwise seen from outside), for plane-mesh contacts.
  hullids = [np.unique(m.hull) for m in ctx.meshes]
  hulls = [np.asarray(m.vert, float)[ids] for m, ids in zip(ctx.meshes, hullids)]
  hullfaces = [np.searchsorted(ids, m.hull).astype(np.int32).reshape(-1, 3) for m, ids in zip(ctx.meshes, hullids)]
  if hulls:
    hullnum = [len(h) for h in hulls]
    facenum = [len(f) for f in hullfaces]
    v.update(nmeshhull=sum(hullnum), mesh_hullvert=np.concatenate(hulls), mesh_hullnum=hullnum,
             mesh_hulladr=np.concatenate([[0], np.cumsum(hullnum)[:-1]]), nmeshhullface=sum(facenum),
             mesh_hullface=np.concatenate(hullfaces), mesh_hullfacenum=facenum,
             mesh_hullfaceadr=np.concatenate([[0], np.cumsum(facenum)[:-1]]))
  _polygon_fields(ctx, v)
  for m in ctx.meshes:
    vadr.append(sum(len(x) for x in verts))
    fadr.append(sum(len(x) for x in faces))
    verts.append(np.asarray(m.vert, float))
    faces.append(np.asarray(m.face, np.int32))
    vnum.append(len(m.vert))
    fnum.append(len(m.face))
  if ctx.meshes:
    v.update(nmeshvert=sum(vnum), nmeshface=sum(fnum), mesh_vert=np.concatenate(verts),
             mesh_face=np.concatenate(faces), mesh_vertadr=vadr, mesh_faceadr=fadr, mesh_vertnum=vnum,
             mesh_facenum=fnum)
    _texcoord_fields(ctx, v, fnum)


def _texcoord_fields(ctx, v, fnum):
  """mesh_texcoord*: each mesh's texture coordinates back to back (address -1 for a mesh without), and the
  texture coordinate of every face corner (0 for the faces of meshes without)."""
  tex, adr, num, facetex = [], [], [], []
  total = 0
  for (texcoord, ftex), nface in zip(ctx.mesh_texcoords, fnum):
    adr.append(total if len(texcoord) else -1)
    num.append(len(texcoord))
    total += len(texcoord)
    tex.append(texcoord)
    facetex.append(ftex if len(texcoord) else np.zeros((nface, 3), np.int32))
  v.update(mesh_texcoordadr=adr, mesh_texcoordnum=num, mesh_facetexcoord=np.concatenate(facetex))
  if total:
    v.update(nmeshtexcoord=total, mesh_texcoord=np.concatenate(tex).astype(float))


def _polygon_fields(ctx, v):
  """mesh_poly*: each mesh's hull faces as polygons (mesh-local vertex ids), and per vertex the polygons at it."""
  if not ctx.meshes:
    return
  polys = [p for m in ctx.meshes for p in m.polygons]
  polynum = [len(m.polygons) for m in ctx.meshes]
  vertnum = [len(p) for p in polys]
  maps, mapnum = [], []
  for m in ctx.meshes:
    at = [[] for _ in range(len(m.vert))]
    for i, p in enumerate(m.polygons):
      for vid in p:
        at[vid].append(i)
    maps += [i for lst in at for i in lst]
    mapnum += [len(lst) for lst in at]
  v.update(nmeshpoly=len(polys), nmeshpolyvert=sum(vertnum), nmeshpolymap=len(maps), mesh_polynum=polynum,
           mesh_polyadr=np.concatenate([[0], np.cumsum(polynum)[:-1]]),
           mesh_polynormal=np.concatenate([m.polynormals for m in ctx.meshes]),
           mesh_polyvertnum=vertnum,
           mesh_polyvertadr=np.concatenate([[0], np.cumsum(vertnum)[:-1]])[:len(vertnum)],
           mesh_polyvert=np.concatenate(polys) if polys else np.zeros(0, np.int32), mesh_polymapnum=mapnum,
           mesh_polymapadr=np.concatenate([[0], np.cumsum(mapnum)[:-1]]), mesh_polymap=np.array(maps, np.int32))


def hfield_fields(ctx, v):
  """hfield_*: the height fields' sizes and normalized elevations, back to back."""
  if not ctx.hfields:
    return
  nrow = [h[0] for h in ctx.hfields]
  ncol = [h[1] for h in ctx.hfields]
  count = [r * c for r, c in zip(nrow, ncol)]
  v.update(nhfield=len(ctx.hfields), nhfielddata=sum(count), hfield_nrow=nrow, hfield_ncol=ncol,
           hfield_size=np.array([h[2] for h in ctx.hfields], float),
           hfield_adr=np.concatenate([[0], np.cumsum(count)[:-1]]),
           hfield_data=np.concatenate([h[3] for h in ctx.hfields]).astype(float))
