"""The one exception type of the MJCF loader, its warning for unusable rendering assets, and the mesh library's
error (which the compiler turns into a located MJCFError)."""


class MJCFError(ValueError):
  """A model problem, located: ``file:line: <element name="..."> attribute 'a': what was expected``."""

  def __init__(self, message, file=None, line=None, element=None, name=None, attribute=None):
    self.file, self.line, self.element, self.attribute = file, line, element, attribute
    where = ""
    if file is not None:
      where = f"{file}:{line}: " if line is not None else f"{file}: "
    if element is not None:
      where += f'<{element} name="{name}">' if name else f"<{element}>"
      where += f" attribute '{attribute}': " if attribute else ": "
    super().__init__(where + message)


def fail(node, message, attribute=None):
  """Raises an MJCFError located at a parsed element (and attribute)."""
  raise MJCFError(message, node.file, node.line, node.tag, node.attrs.get("name") if node.attrs else None,
                  attribute)


class MeshError(ValueError):
  """A mesh file or mesh data that cannot be compiled."""


class MJCFWarning(UserWarning):
  """A model part that only rendering uses and that cannot be used (the model loads without it), located."""


def warn(node, message, attribute=None):
  """Issues an MJCFWarning located at a parsed element (and attribute), as ``fail`` locates errors."""
  import warnings  # pylint: disable=import-outside-toplevel
  where = MJCFError("", node.file, node.line, node.tag, node.attrs.get("name") if node.attrs else None, attribute)
  warnings.warn(MJCFWarning(str(where) + message), stacklevel=2)
