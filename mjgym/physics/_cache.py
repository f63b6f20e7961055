"""Where numba caches compiled kernels: a directory keyed on every engine source and the numba version.

numba keys a function's cache on its own file only, so a caller whose callee changed in another module would
silently keep stale machine code. Keying the whole cache on a hash of all engine sources rules that out.
"""

import hashlib
import os
import pathlib

import numba

ENGINE_DIR = pathlib.Path(__file__).resolve().parent


def source_hash():
  h = hashlib.sha256(numba.__version__.encode())
  for path in sorted(ENGINE_DIR.rglob("*.py")):
    h.update(str(path.relative_to(ENGINE_DIR)).encode())
    h.update(path.read_bytes())
  return h.hexdigest()[:16]


def cache_root():
  base = os.environ.get("MJGYM_CACHE_DIR")
  if base:
    return pathlib.Path(base)
  xdg = os.environ.get("XDG_CACHE_HOME")
  return (pathlib.Path(xdg) if xdg else pathlib.Path.home() / ".cache") / "mjgym" / "numba"


def configure():
  """Points numba's cache at ``<cache_root>/<source hash>`` (set MJGYM_CACHE_DIR to move the root).

  Must run before any kernel module is imported: numba reads the directory when a function is decorated.
  """
  path = cache_root() / source_hash()
  path.mkdir(parents=True, exist_ok=True)
  numba.config.CACHE_DIR = str(path)
