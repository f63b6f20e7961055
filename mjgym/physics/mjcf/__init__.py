"""MJCF loading: ``load_path`` / ``load_string`` parse, check and compile a model into an MjModel."""

import os

from mjgym.physics.mjcf.errors import MJCFError


def load_path(filename, assets=None):
  """Compiles the MJCF file at ``filename``; ``assets`` maps file names to bytes (includes, meshes)."""
  from mjgym.physics.mjcf import parser  # pylint: disable=import-outside-toplevel
  filename = os.fspath(filename)
  source = parser.Source(assets)
  return _compile(source.read(filename), filename, source)


def load_string(xml, assets=None):
  """Compiles an MJCF string; relative file names resolve against the working directory or ``assets``."""
  from mjgym.physics.mjcf import parser  # pylint: disable=import-outside-toplevel
  text = xml.encode() if isinstance(xml, str) else xml
  return _compile(text, "<string>", parser.Source(assets))


def _compile(text, filename, source):
  from mjgym.physics.containers import MjModel  # pylint: disable=import-outside-toplevel
  from mjgym.physics.mjcf import compiler  # pylint: disable=import-outside-toplevel
  from mjgym.physics.mjcf import parser  # pylint: disable=import-outside-toplevel
  root, _ = parser.parse(text, filename, source)
  values, names, (lengthrange_jobs, lengthrange_settings) = compiler.compile_tree(root, filename, source)
  model = MjModel.from_fields(values, names, source=filename)
  from mjgym.physics import constraint  # pylint: disable=import-outside-toplevel
  constraint.set_const(model)
  # after constraint.set_const: damping ratios use its dof_invweight0
  from mjgym.physics.mjcf import setconst  # pylint: disable=import-outside-toplevel
  setconst.set_const(model)
  setconst.lengthrange(model, lengthrange_jobs, lengthrange_settings)
  from mjgym.physics import statistic  # pylint: disable=import-outside-toplevel
  statistic.set_stat(model, statistic.given_in_mjcf(root))
  return model


__all__ = ["MJCFError", "load_path", "load_string"]
