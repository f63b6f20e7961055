"""The check every located-error test makes: a model that fails to load names its file, line, element, attribute."""

import pytest

from mjgym import physics
from mjgym.physics import MJCFError


def assert_located_error(tmp_path, text, line, element, attribute, fragment):
  """Loading ``text`` from a file raises an MJCFError (a ValueError) whose message starts with that file and
  ``line`` and names ``<element>``, ``attribute '...'`` (each unless None) and ``fragment``; returns the message."""
  path = tmp_path / "model.xml"
  path.write_text(text)
  with pytest.raises(MJCFError) as info:
    physics.MjModel.from_xml_path(str(path))
  message = str(info.value)
  assert isinstance(info.value, ValueError)
  assert message.startswith(f"{path}:{line}: "), message
  if element is not None:
    assert f"<{element}>" in message, message
  if attribute is not None:
    assert f"attribute '{attribute}'" in message, message
  assert fragment in message, message
  return message
