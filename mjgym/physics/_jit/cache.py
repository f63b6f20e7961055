"""Where numba caches mjgym's compiled kernels: one directory per module, keyed on that module's import closure.

numba keys a cached function on its own source file only, so a kernel whose callee changed in another module would
silently keep stale machine code. Here every mjgym module's cache lives in a directory named after a hash of the
module's *import closure*: its own source and the source of every mjgym module it imports, transitively (module-level
imports count, and so does the numba version). A kernel can only reach code through the modules its file
imports, so an edit invalidates exactly the modules that can have compiled it in: edit ``collision/convex.py`` and
the collision driver, ``forward`` and ``batch`` recompile, while ``smooth``, ``passive`` or ``sensor`` load from the
cache as before. Only module-level imports count (kernels cannot import), and a package's ``__init__`` only where a
file imports a name that is not a submodule of it. The modules that patch numba's code generator (``CODEGEN``)
count for every module, since they change the code of every kernel.

A kernel whose signature holds a compiled function (a dispatcher type, like collision.driver's ``narrow`` tiers)
is found in the index by that function's identity: numba pickles a dispatcher with a random per-process uuid, so
such an entry would never load in another process. ``stable_identity`` gives these functions a uuid derived from
their qualified name.

Files outside the mjgym package keep numba's own cache rules: the locator below declines them.

Loading a cached kernel is kept cheap (a warm start loads a few dozen): numba stores beside a kernel's machine code
its LLVM bitcode, which it needs only to link the kernel into a *new* kernel that calls it, yet it parses that
bitcode on every load, and walks it from Python for the names the code defines. mjgym's entries store those names
too, and the bitcode is parsed only when a compile links the kernel in (``_unserialize_lazily``). numba also
readies its whole compiler (imports its typing and lowering registries, ~0.1 s) before loading any entry, though a
load needs only the runtime (NRT) and the external symbols the machine code calls: an mjgym entry stores those
names, and the compiler is readied only if one of them is not yet defined (a compile readies it in any case).
"""

import contextlib
import functools
import hashlib
import importlib
import os
import pathlib
import re
import sys
import uuid

import warnings

import llvmlite
from llvmlite import binding as llvm
import numba
from numba.core import caching
from numba.core import codegen
from numba.core import compiler
from numba.core.runtime import nrt

PACKAGE_DIR = pathlib.Path(__file__).resolve().parents[2]  # .../mjgym
_FORMAT = 2  # version of how mjgym's entries are serialized (part of every key: never read by older code)
# Modules that change how numba generates code for every kernel (they patch its code generator when imported):
# part of every module's key, whether or not the module imports them.
CODEGEN = ("physics/_jit/__init__.py", "physics/_jit/borrow.py", "physics/_jit/cache.py", "physics/_jit/index.py",
           "physics/_jit/link.py", "physics/_jit/marks.py", "physics/_jit/supported.py")
# MJGYM_CHECK_INDEX=1: kernels trap negative run-time indices (physics/_index.py); a build of its own
CHECK_INDEX = os.environ.get("MJGYM_CHECK_INDEX", "") not in ("", "0")


def cache_root():
  """The directory under which mjgym's numba caches live: $MJGYM_CACHE_DIR, else ~/.cache/mjgym/numba."""
  base = os.environ.get("MJGYM_CACHE_DIR")
  if base:
    return pathlib.Path(base)
  xdg = os.environ.get("XDG_CACHE_HOME")
  return (pathlib.Path(xdg) if xdg else pathlib.Path.home() / ".cache") / "mjgym" / "numba"


def cache_dir():
  """This numba, llvmlite and Python's cache directory: ``<cache_root>/numba-<v>-llvmlite-<v>-py<major><minor>``
  (entries of other versions are never read; numba's index keys each entry on the CPU too)."""
  return cache_root() / (f"numba-{numba.__version__}-llvmlite-{llvmlite.__version__}"
                         f"-py{sys.version_info[0]}{sys.version_info[1]}")


def _module_name(path, package_dir):
  rel = path.relative_to(package_dir.parent).with_suffix("")
  parts = rel.parts[:-1] if rel.name == "__init__" else rel.parts
  return ".".join(parts)


def _module_file(name, package_dir):
  """The file of module ``name`` (dotted) inside the package, or None if it is not one of the package's."""
  top = package_dir.name
  if name != top and not name.startswith(top + "."):
    return None
  base = package_dir.parent.joinpath(*name.split("."))
  if base.with_suffix(".py").is_file():
    return base.with_suffix(".py")
  if (base / "__init__.py").is_file():
    return base / "__init__.py"
  return None


# One module-level import statement: `import a.b[, c]` or `from [.]a.b import x[, y]` (a parenthesized list may
# span lines). Imports inside functions do not count: compiled kernels cannot import, so only a module's top-level
# names can reach its kernels (tests/test_cache.py checks that every indented import sits in a function).
_IMPORT = re.compile(r"^(?:from[ \t]+(\.*)([\w.]*)[ \t]+import[ \t]+(\([^)]*\)|[^\n#]+)|import[ \t]+([^\n#]+))",
                     re.MULTILINE)


@functools.lru_cache(maxsize=None)
def imports_of(path, package_dir=PACKAGE_DIR):
  """The package's module files that ``path`` imports at module level (absolute and relative imports).

  A line scan rather than a parse: it runs for every module when mjgym is imported, and a parse of the engine
  costs ten times as much. Import-like lines inside strings only make the closure larger, never smaller.
  """
  path = pathlib.Path(path)
  here = _module_name(path, package_dir).split(".")
  if path.name != "__init__.py":
    here = here[:-1]  # the package the module sits in
  found = set()
  for level, module, names, plain in _IMPORT.findall(path.read_text(encoding="utf-8")):
    if plain:
      for item in plain.split(","):
        found.add(_module_file(item.split(" as ")[0].strip(), package_dir))
      continue
    base = module
    if level:
      prefix = ".".join(here[:len(here) - len(level) + 1])
      base = f"{prefix}.{module}" if module else prefix
    for item in names.strip("()").split(","):
      name = item.split(" as ")[0].strip()
      if not name:
        continue
      sub = _module_file(f"{base}.{name}", package_dir)
      # `from pkg import module` needs the module only; `from pkg import name` needs pkg itself
      found.add(sub if sub is not None else _module_file(base, package_dir))
  found.discard(None)
  return frozenset(p.resolve() for p in found)


def import_closure(path, package_dir=PACKAGE_DIR):
  """``path`` and every package module it imports, transitively, as a sorted list of files."""
  seen = set()
  todo = [pathlib.Path(path).resolve()]
  while todo:
    p = todo.pop()
    if p not in seen:
      seen.add(p)
      todo.extend(imports_of(p, package_dir) - seen)
  return sorted(seen)


@functools.lru_cache(maxsize=None)
def _file_hash(path):
  return hashlib.sha256(path.read_bytes()).digest()


@functools.lru_cache(maxsize=None)
def closure_hash(path, package_dir=PACKAGE_DIR):
  """Hash of a module's import closure and the CODEGEN modules (relative paths and contents), the numba version
  and the index-check switch: its cache key."""
  h = hashlib.sha256(f"{numba.__version__}:{_FORMAT}{':check-index' if CHECK_INDEX else ''}".encode())
  codegen = {(package_dir / name).resolve() for name in CODEGEN if (package_dir / name).is_file()}
  for p in sorted(set(import_closure(path, package_dir)) | codegen):
    h.update(str(p.relative_to(package_dir.parent)).encode())
    h.update(_file_hash(p))
  return h.hexdigest()[:16]


_ENSURED = set()


def uncached(dispatchers):
  """Those of ``dispatchers`` that will compile: neither inlined into their callers, nor compiled in this process,
  nor with a cache index on disk."""
  todo = []
  for disp in dispatchers:
    if disp.overloads or disp.targetoptions.get("inline") == "always":
      continue
    cache = getattr(disp, "_cache", None)
    index = getattr(getattr(cache, "_cache_file", None), "_index_path", None)
    if index is not None and os.path.exists(index):
      continue
    todo.append(disp)
  return todo


@functools.lru_cache(maxsize=None)
def _locate(py_file):
  """(resolved file, closure hash, cache path) of an mjgym module file, or None for a file outside the package;
  once per file (a module decorates dozens of kernels)."""
  path = pathlib.Path(py_file).resolve()
  try:
    path.relative_to(PACKAGE_DIR)
  except ValueError:
    return None
  key = closure_hash(path)
  return str(path), key, str(cache_dir() / f"{_module_name(path, PACKAGE_DIR)}-{key}")


class ClosureCacheLocator(caching._CacheLocator):  # pylint: disable=protected-access
  """numba cache locator for mjgym's modules: ``<cache_dir>/<module>-<closure hash>/``."""

  def __init__(self, py_func, py_file):
    # a str, as numba passes it to warnings.warn_explicit
    self._py_file, self._hash, self._cache_path = _locate(py_file)
    self._lineno = py_func.__code__.co_firstlineno

  def get_cache_path(self):
    return self._cache_path

  def ensure_cache_path(self):
    # numba checks that the directory is writable for every function it decorates; once per directory will do
    if self._cache_path not in _ENSURED:
      super().ensure_cache_path()
      _ENSURED.add(self._cache_path)

  def get_source_stamp(self):
    return self._hash

  def get_disambiguator(self):
    return str(self._lineno)

  @classmethod
  def from_function(cls, py_func, py_file):
    if _locate(py_file) is None:
      return None  # not mjgym's: numba's own locators decide
    self = cls(py_func, py_file)
    try:
      self.ensure_cache_path()
    except OSError:
      return None
    return self




# --- How a cached mjgym kernel is stored and loaded -------------------------------------------------------------

_KIND = "mjgym-object"  # numba's 'object' entry (machine code, bitcode for linking) plus defined and needed names
_reduce = compiler.CompileResult._reduce  # pylint: disable=protected-access
_unserialize = codegen.CPUCodeLibrary._unserialize.__func__  # pylint: disable=protected-access
_get_module_for_linking = codegen.CPUCodeLibrary._get_module_for_linking  # pylint: disable=protected-access
_load_overload = caching.Cache.load_overload


def _names(module, declared):
  """Names of the functions and globals ``module`` defines (or, with ``declared``, needs from elsewhere)."""
  return tuple(g.name for gs in (module.functions, module.global_variables) for g in gs
               if g.is_declaration == declared and not g.name.startswith("llvm."))


def _reduce_with_names(self):
  """CompileResult._reduce (what the cache stores): for mjgym's kernels, with the names the code defines and
  the external names it calls."""
  state = _reduce(self)
  libdata = state[0]
  if self.fndesc.modname.split(".", 1)[0] != "mjgym" or libdata[1] != "object":
    return state
  name, _, (object_code, bitcode) = libdata
  defined = _names(self.library._get_module_for_linking(), False)  # pylint: disable=protected-access
  needed = _names(self.library._final_module, True)  # pylint: disable=protected-access
  return ((name, _KIND, (object_code, bitcode, defined, needed)),) + tuple(state[1:])


def _unserialize_lazily(cls, cg, state):
  """CPUCodeLibrary._unserialize (a cache load): an mjgym entry's machine code is loaded as numba loads it, its
  defined names registered from the stored list, and its bitcode kept unparsed until a compile links it in."""
  name, kind, data = state
  if kind != _KIND:
    return _unserialize(cls, cg, state)
  object_code, bitcode, defined, needed = data
  engine = cg._engine  # pylint: disable=protected-access
  if not all(engine.is_symbol_defined(n) or llvm.address_of_symbol(n) for n in needed):
    # a symbol that numba's registries provide (they add some as they are imported): LLVM would abort the process
    # on an unresolved one, so ready the whole compiler as numba would have
    from numba.core.registry import cpu_target  # pylint: disable=import-outside-toplevel
    cpu_target.target_context.refresh()
  self = cg.create_library(name)
  self.enable_object_caching()
  self._set_compiled_object(object_code)  # pylint: disable=protected-access
  self._mjgym_bitcode = bitcode  # pylint: disable=protected-access
  self._finalize_final_module()  # pylint: disable=protected-access
  engine._defined_symbols.update(defined)  # pylint: disable=protected-access
  return self


def _module_for_linking(self):
  """CPUCodeLibrary._get_module_for_linking: parses a loaded mjgym entry's bitcode on first need."""
  bitcode = self.__dict__.pop("_mjgym_bitcode", None)
  if bitcode is not None:
    self._shared_module = llvm.parse_bitcode(bitcode)  # pylint: disable=protected-access
  return _get_module_for_linking(self)


def _load_overload_light(self, sig, target_context):
  """Cache.load_overload: for mjgym's caches, readies only numba's runtime before the load (see the docstring), and
  takes an entry that cannot be read (truncated or corrupted, as a full disk or a killed copy leaves it) as a miss:
  it is removed with a one-line notice and the kernel compiles anew."""
  if not isinstance(self._impl.locator, ClosureCacheLocator):  # pylint: disable=protected-access
    return _load_overload(self, sig, target_context)
  nrt.rtsys.initialize(target_context)
  try:
    with self._guard_against_spurious_io_errors():  # pylint: disable=protected-access
      return self._load_overload(sig, target_context)  # pylint: disable=protected-access
  except Exception as exc:  # pylint: disable=broad-except  (any unreadable entry: pickle, zlib, EOF, bad types)
    _discard_unreadable(self, exc)
    return None


def _discard_unreadable(cache, exc):
  """Drops the entry of ``cache`` (a numba Cache) that failed to load, with a one-line notice: its key leaves the
  index (the whole index, if the index itself is unreadable) and its data file is removed; the compile that
  follows saves a new entry."""
  cache_file = cache._cache_file  # pylint: disable=protected-access
  warnings.warn(f"mjgym: a cached kernel of {cache._name} could not be read ({type(exc).__name__}: "  # pylint: disable=protected-access
                f"{str(exc)[:80]}); it is compiled again (cache: {cache_file._cache_path})",  # pylint: disable=protected-access
                CacheWarning, stacklevel=3)
  with _index_lock(cache_file):
    try:
      overloads = cache_file._load_index()  # pylint: disable=protected-access
    except Exception:  # pylint: disable=broad-except
      _unlink(cache_file._index_path)  # pylint: disable=protected-access
      return
    for key, name in list(overloads.items()):
      try:
        cache_file._load_data(name)  # pylint: disable=protected-access
      except Exception:  # pylint: disable=broad-except
        del overloads[key]
        _unlink(cache_file._data_path(name))  # pylint: disable=protected-access
    cache_file._save_index(overloads)  # pylint: disable=protected-access


def _unlink(path):
  try:
    os.unlink(path)
  except OSError:
    pass


class CacheWarning(UserWarning):
  """A cache entry of mjgym's could not be read and is compiled again."""


_save = caching.IndexDataCacheFile.save
fcntl = importlib.import_module("fcntl") if os.name == "posix" else None  # elsewhere the index has no lock


def _save_entry(self, key, data):
  """IndexDataCacheFile.save for mjgym's caches, safe when processes compile one function at once (``mjgym
  compile``'s workers, a vector env's subprocesses on a cold cache).

  numba names a new entry's data file by the next free number in the index it read: two processes that compile
  one function for different signatures at once both take the same number, and the one that writes its data last
  leaves its machine code under the other's key (a later load gets code for other argument types). Here the data
  file has a name of its own and is written before the index, and the index's read-modify-write holds a lock.
  """
  if not str(self._cache_path).startswith(str(cache_root())):  # pylint: disable=protected-access
    _save(self, key, data)
    return
  name = self._data_name_pattern.replace("{number:d}", uuid.uuid4().hex[:16])  # pylint: disable=protected-access
  self._save_data(name, data)  # pylint: disable=protected-access
  with _index_lock(self):
    try:
      overloads = self._load_index()  # pylint: disable=protected-access
    except Exception:  # pylint: disable=broad-except  (an unreadable index is replaced)
      overloads = {}
    old = overloads.get(key)
    overloads[key] = name
    self._save_index(overloads)  # pylint: disable=protected-access
  if old is not None and old != name:
    _unlink(self._data_path(old))  # pylint: disable=protected-access


@contextlib.contextmanager
def _index_lock(cache_file):
  """Holds the lock on a cache index's read-modify-write (none where the OS has no flock)."""
  with open(cache_file._index_path + ".lock", "a", encoding="utf-8") as lock:  # pylint: disable=protected-access
    if fcntl is not None:
      fcntl.flock(lock, fcntl.LOCK_EX)
    yield


def apply():
  """Puts mjgym's cache kind in numba: its locator first among numba's (so mjgym's kernels cache by import
  closure; numba picks a function's locator when it is decorated, so this runs before any kernel module is
  imported), and the entry format, load and save above. Once; ``_jit.install`` checks the attributes first."""
  classes = caching.CacheImpl._locator_classes  # pylint: disable=protected-access
  if ClosureCacheLocator in classes:
    return
  classes.insert(0, ClosureCacheLocator)
  compiler.CompileResult._reduce = _reduce_with_names  # pylint: disable=protected-access
  caching.IndexDataCacheFile.save = _save_entry
  codegen.CPUCodeLibrary._unserialize = classmethod(_unserialize_lazily)  # pylint: disable=protected-access
  codegen.CPUCodeLibrary._get_module_for_linking = _module_for_linking  # pylint: disable=protected-access
  caching.Cache.load_overload = _load_overload_light
