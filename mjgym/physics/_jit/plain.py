"""What plain mode needs of its own: a borrow that is the identity, and a numba cache that cannot go stale.

In plain mode numba caches mjgym's kernels by its own rules, beside each module (``__pycache__``), and keys an
entry on its own file's time stamp only: a kernel in ``forward.py`` that inlined an older ``smooth.py`` would load
as it was. So the whole package's sources are hashed at start-up; when the hash differs from the one stamped beside
the cache, mjgym's numba cache files are removed first. (Entries of another numba or Python numba never reads: its
index is versioned and named per Python; the hash leaves the versions out, so that processes of two numbas sharing a
tree do not clear each other's entries.)
"""

import hashlib
import pathlib

import numba

PACKAGE_DIR = pathlib.Path(__file__).resolve().parents[2]  # .../mjgym
_STAMP = "mjgym-plain-numba.stamp"


@numba.njit(cache=True, inline="always", error_model="numpy")
def borrow(arr):
  """``arr`` itself: in plain mode a struct holds its arrays with their reference counts, as numba does."""
  return arr


def engine_hash(package_dir=PACKAGE_DIR):
  """Hash of every source file of the package."""
  h = hashlib.sha256()
  for path in sorted(package_dir.rglob("*.py")):
    h.update(str(path.relative_to(package_dir)).encode())
    h.update(path.read_bytes())
  return h.hexdigest()[:16]


def clear_stale_cache(package_dir=PACKAGE_DIR):
  """Removes the package's numba cache files (``__pycache__/*.nbi``, ``*.nbc``) when its sources changed since
  they were written; returns how many were removed. Nothing where it cannot write."""
  stamp = package_dir / "__pycache__" / _STAMP
  key = engine_hash(package_dir)
  try:
    if stamp.is_file() and stamp.read_text(encoding="utf-8") == key:
      return 0
    removed = 0
    for entry in package_dir.rglob("__pycache__/*.nb[ic]"):
      entry.unlink(missing_ok=True)
      removed += 1
    stamp.parent.mkdir(exist_ok=True)
    stamp.write_text(key, encoding="utf-8")
    return removed
  except OSError:
    return 0
