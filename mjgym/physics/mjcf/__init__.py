"""MJCF loading: ``load_path`` / ``load_string`` parse, check and compile a model into a ``containers.Model``."""

import contextlib
import os
import sys

from mjgym.physics.mjcf.errors import MJCFError

# Nesting the compiler follows by recursion (elements, bodies, default classes) goes as deep as the XML parser
# allows (libxml2's limit for huge trees, 2048 levels; MuJoCo's tinyxml2 stops at 500); each level takes a few
# Python frames.
_RECURSION_LIMIT = 20000


def load_path(filename, assets=None):
  """Compiles the MJCF file at ``filename``; ``assets`` maps file names to bytes (includes, meshes)."""
  from mjgym.physics.mjcf import parser  # pylint: disable=import-outside-toplevel
  filename = os.fspath(filename)
  source = parser.Source(assets)
  return _compile(source.read(filename), filename, source)


def dependencies(filename, assets=None):
  """The files compiling the MJCF file ``filename`` reads, each once: the asset files (meshes, textures, height
  fields, skins) as the compiler reads them, then the included files, the last included first, and the model file
  last (MuJoCo's list has the same files; its order follows no rule a caller can rely on)."""
  from mjgym.physics.mjcf import parser  # pylint: disable=import-outside-toplevel

  class Recording(parser.Source):
    def read(self, path, node=None, attribute=None):
      if path not in self.paths:
        self.paths.append(path)
      return super().read(path, node, attribute)

  filename = os.fspath(filename)
  xml = Recording(assets)
  xml.paths = []
  parser.parse(xml.read(filename), filename, xml)  # the model file and its includes
  everything = Recording(assets)
  everything.paths = []
  _compile(everything.read(filename), filename, everything)
  return [p for p in everything.paths if p not in xml.paths] + xml.paths[::-1]


def load_string(xml, assets=None):
  """Compiles an MJCF string; relative file names resolve against the working directory or ``assets``."""
  from mjgym.physics.mjcf import parser  # pylint: disable=import-outside-toplevel
  text = xml.encode() if isinstance(xml, str) else xml
  return _compile(text, "<string>", parser.Source(assets))


def _compile(text, filename, source):
  """Compiles, turning any exception but MJCFError (and KeyboardInterrupt / SystemExit) into a located
  MJCFError: the loader's one error type for any input. Known problems are reported where they are found;
  this is the last line of defence for the ones nobody foresaw."""
  import numpy as np  # pylint: disable=import-outside-toplevel
  try:
    with _deep_recursion(), np.errstate(all="ignore"):
      return _compile_checked(text, filename, source)
  except MJCFError:
    raise
  except Exception as e:  # pylint: disable=broad-except
    raise _internal_error(e, filename) from e


@contextlib.contextmanager
def _deep_recursion():
  old = sys.getrecursionlimit()
  sys.setrecursionlimit(max(old, _RECURSION_LIMIT))
  try:
    yield
  finally:
    sys.setrecursionlimit(old)


def _internal_error(exc, filename):
  """An MJCFError for an unexpected exception, located at the innermost MJCF element being compiled."""
  from mjgym.physics.mjcf import parser  # pylint: disable=import-outside-toplevel
  node = None
  tb = exc.__traceback__
  where = ""
  while tb is not None:
    where = tb.tb_frame.f_code.co_name
    local = tb.tb_frame.f_locals
    for value in [local.get("node"), *local.values()]:
      if isinstance(value, parser.Node):
        node = value
        break
    tb = tb.tb_next
  what = {MemoryError: "out of memory", RecursionError: "nested too deeply"}.get(type(exc))
  message = (f"cannot compile the model (in {where}): {what or type(exc).__name__}"
             + (f": {exc}" if str(exc) else ""))
  if node is None:
    return MJCFError(message, filename)
  return MJCFError(message, node.file, node.line, node.tag, node.attrs.get("name") if node.attrs else None)


def _compile_checked(text, filename, source):
  from mjgym.physics.containers import Model  # pylint: disable=import-outside-toplevel
  from mjgym.physics.mjcf import compiler  # pylint: disable=import-outside-toplevel
  from mjgym.physics.mjcf import parser  # pylint: disable=import-outside-toplevel
  from mjgym.physics.mjcf import urdf  # pylint: disable=import-outside-toplevel
  root_elem = parser.read_xml(text, filename)
  if urdf.is_urdf(root_elem):
    root_elem = urdf.to_mjcf(root_elem, filename)
  root, _ = parser.parse_element(root_elem, filename, source)
  values, names, (lengthrange_jobs, lengthrange_settings, springdamper_jobs) = compiler.compile_tree(
      root, filename, source)
  model = Model.from_fields(values, names, source=filename)
  from mjgym.physics.mjcf import setconst  # pylint: disable=import-outside-toplevel
  setconst.set_const(model)
  setconst.spring_damper(model, springdamper_jobs)
  setconst.lengthrange(model, lengthrange_jobs, lengthrange_settings)
  from mjgym.physics import statistic  # pylint: disable=import-outside-toplevel
  statistic.set_stat(model, statistic.given_in_mjcf(root))
  return model


__all__ = ["MJCFError", "load_path", "load_string"]
