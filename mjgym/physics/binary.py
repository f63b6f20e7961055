"""mjgym's binary model files: ``mj_saveModel`` writes one, ``MjModel.from_binary_path`` loads it without the
MJCF compiler.

This is mjgym's own format, not MuJoCo's MJB (whose layout is tied to MuJoCo's mjModel). Layout, little-endian:

  magic (8 bytes) ``MJGYMMDL`` | format version (uint32) | header length (uint64) | header (UTF-8 JSON) |
  payload | SHA-256 of header and payload (32 bytes)

The header holds the hash of the model field layout (``types.MODEL_ROWS``) the file was written with, the sizes,
each array's name, dtype, shape and payload offset, the object names and the source file name. A file written
with another format version or another field table is refused, as is one whose checksum does not match: a
model must never load with fields silently shifted.
"""

import hashlib
import json
import os
import struct

import numpy as np

from mjgym.physics import types
from mjgym.physics.containers import Model

MAGIC = b"MJGYMMDL"
VERSION = 1
_PREFIX = struct.Struct("<8sIQ")
_DIGEST = 32


class BinaryModelError(ValueError):
  """A binary model file that cannot be loaded: not ours, another version or field table, or damaged."""


def _table_hash():
  return hashlib.sha256(repr(types.MODEL_ROWS).encode()).hexdigest()


def to_bytes(m):
  """The binary file of model ``m`` as bytes."""
  arrays, offset, payload = [], 0, []
  sizes = {}
  for name, _, shape in types.MODEL_ROWS:
    value = m._fields[name]  # pylint: disable=protected-access
    if shape is None:
      sizes[name] = int(value)
      continue
    data = np.ascontiguousarray(value).astype(value.dtype.newbyteorder("<"), copy=False).tobytes()
    arrays.append([name, value.dtype.str, list(value.shape), offset, len(data)])
    payload.append(data)
    offset += len(data)
  header = {
      "fields": _table_hash(),
      "sizes": sizes,
      "arrays": arrays,
      "names": {str(int(t)): list(ns) for t, ns in m._names.items()},  # pylint: disable=protected-access
      "source": m.source,
  }
  head = json.dumps(header).encode()
  body = head + b"".join(payload)
  return _PREFIX.pack(MAGIC, VERSION, len(head)) + body + hashlib.sha256(body).digest()


def size_of(m):
  """Length in bytes of the binary file of ``m`` (mj_sizeModel)."""
  return len(to_bytes(m))


def save(m, filename=None, buffer=None):
  """Writes model ``m`` to ``filename`` and/or into ``buffer`` (a writeable uint8 array of exactly
  ``mj_sizeModel(m)`` bytes), as the bindings' mj_saveModel."""
  if filename is None and buffer is None:
    raise ValueError("mj_saveModel: give a filename or a buffer")
  data = to_bytes(m)
  if buffer is not None:
    if not isinstance(buffer, np.ndarray) or buffer.dtype != np.uint8 or not buffer.flags.writeable:
      raise TypeError("buffer must be a writeable uint8 numpy array")
    if buffer.size != len(data):
      raise ValueError(f"buffer has {buffer.size} bytes, the model needs {len(data)} (mj_sizeModel)")
    buffer.reshape(-1)[:] = np.frombuffer(data, np.uint8)
  if filename is not None:
    with open(os.fspath(filename), "wb") as f:
      f.write(data)


def from_bytes(data, what="buffer"):
  """A Model from the bytes of a binary model file (``what`` names it in errors)."""
  data = bytes(data)
  if len(data) < _PREFIX.size + _DIGEST or data[:len(MAGIC)] != MAGIC:
    raise BinaryModelError(f"{what}: not an mjgym binary model (MuJoCo's own .mjb files cannot be read; load the "
                           "MJCF instead)")
  _, version, head_len = _PREFIX.unpack_from(data)
  if version != VERSION:
    raise BinaryModelError(f"{what}: binary model format version {version}, this mjgym reads version {VERSION}")
  body, digest = data[_PREFIX.size:-_DIGEST], data[-_DIGEST:]
  if head_len > len(body) or hashlib.sha256(body).digest() != digest:
    raise BinaryModelError(f"{what}: binary model is damaged (checksum mismatch)")
  header = json.loads(body[:head_len])
  if header["fields"] != _table_hash():
    raise BinaryModelError(f"{what}: written with another model field table (another mjgym version); "
                           "recompile it from its MJCF")
  payload = memoryview(body)[head_len:]
  fields = dict(header["sizes"])
  for name, dtype, shape, offset, nbytes in header["arrays"]:
    arr = np.frombuffer(payload[offset:offset + nbytes], dtype=np.dtype(dtype)).reshape(shape)
    fields[name] = arr.astype(arr.dtype.newbyteorder("="), copy=True)
  names = {types.ObjType(int(t)): list(ns) for t, ns in header["names"].items()}
  return Model(fields, names, header["source"])


def load(filename):
  """A Model from a binary model file."""
  with open(os.fspath(filename), "rb") as f:
    return from_bytes(f.read(), os.fspath(filename))
