"""Mesh mass properties: volume (or area), center and inertia tensor per unit density, as MuJoCo's compiler sums
them for each ``inertia`` mode."""

import numpy as np

from mjgym.physics import types
from mjgym.physics.mjcf.errors import MeshError

# MuJoCo refuses meshes below this volume (measured against MuJoCo 4: it sits at 1e-14, not mjMINVAL).
_MIN_VOLUME = 1e-14
# Faces shorter than this in twice their area count as degenerate (MuJoCo's mjMINVAL).
_MINVAL = types.MINVAL


def check_orientation(face):
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


def mass_properties(vert, face, all_faces, mode):
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
