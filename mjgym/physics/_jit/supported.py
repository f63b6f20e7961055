"""The numba and llvmlite versions mjgym's toolchain is written for, and the warning it gives outside them."""

import importlib
import inspect

import llvmlite
import numba

# The versions the patches are written for and CI tests (the lowest and the newest of each): [low, high).
SUPPORTED = {"numba": ("0.68.0", "0.69"), "llvmlite": ("0.50.0", "0.51")}


class ToolchainWarning(UserWarning):
  """mjgym runs on plain numba: the installed numba or llvmlite is outside the tested range, or lacks an internal
  the patches need."""


def _version(text):
  """(major, minor, patch) of a version string; a pre-release or local suffix ("0.69.0rc1", "+g1234") is dropped."""
  parts = []
  for piece in text.split("+")[0].split(".")[:3]:
    digits = piece[:len(piece) - len(piece.lstrip("0123456789"))]
    parts.append(int(digits or 0))
  return tuple(parts + [0] * (3 - len(parts)))


def versions():
  """{"numba": installed version, "llvmlite": installed version}."""
  return {"numba": numba.__version__, "llvmlite": llvmlite.__version__}


def supported_text():
  """The supported range in words, e.g. ``numba >=0.68.0,<0.69 with llvmlite >=0.50.0,<0.51``."""
  (nlo, nhi), (llo, lhi) = SUPPORTED["numba"], SUPPORTED["llvmlite"]
  return f"numba >={nlo},<{nhi} with llvmlite >={llo},<{lhi}"


def out_of_range(found=None):
  """The names of those of numba and llvmlite whose version (``found``, default: installed) is outside SUPPORTED."""
  found = found or versions()
  return [name for name, (low, high) in SUPPORTED.items()
          if not _version(low) <= _version(found[name]) < _version(high)]


def _lookup(module, path):
  obj = importlib.import_module(module)
  for part in path.split("."):
    obj = getattr(obj, part)
  return obj


def missing_internals(required):
  """A line for each private attribute of ``required`` that is absent or no longer takes the parameters the
  patches expect; empty when all are as expected."""
  problems = []
  for module, path, params in required:
    try:
      obj = _lookup(module, path)
    except (ImportError, AttributeError):
      problems.append(f"{module}.{path} is missing")
      continue
    if params is None:
      continue
    func = getattr(obj, "__func__", obj)
    try:
      names = tuple(inspect.signature(func).parameters)
    except (TypeError, ValueError):
      problems.append(f"{module}.{path} is not a function")
      continue
    if names[:len(params)] != params:
      problems.append(f"{module}.{path} takes ({', '.join(names)}), not ({', '.join(params)})")
  return problems
