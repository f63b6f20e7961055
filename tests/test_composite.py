"""<composite> (cable and every other type): MuJoCo 4.0.0 removed the element and the cable plugin
(mujoco.elasticity.cable), so both engines reject a cable composite; mjgym names the place and the 1-D flexcomp that
replaces it. What mjgym builds for cables is test_flex.py's."""

import mujoco
import pytest

from located_error import assert_located_error

_CABLE = ('<composite type="cable" curve="s" count="8 1 1" size="1" offset="0 0 1" initial="none">'
          '<joint kind="main" damping="0.01"/><geom type="capsule" size=".01"/></composite>')

_PARENTS = {
    "worldbody": f"<mujoco>\n<worldbody>\n{_CABLE}\n</worldbody>\n</mujoco>",
    "body": f'<mujoco>\n<worldbody><body name="b">\n{_CABLE}\n</body></worldbody>\n</mujoco>',
    "frame": f'<mujoco>\n<worldbody><frame pos="0 0 1">\n{_CABLE}\n</frame></worldbody>\n</mujoco>',
}


@pytest.mark.parametrize("parent", sorted(_PARENTS))
def test_cable_composite_is_refused_as_by_mujoco(tmp_path, parent):
  text = _PARENTS[parent]
  with pytest.raises(ValueError, match="unrecognized (model )?element"):
    mujoco.MjModel.from_xml_string(text)
  assert_located_error(tmp_path, text, 3, "composite", None, "1-D <flexcomp>")


def test_cable_plugin_is_refused_as_by_mujoco(tmp_path):
  text = ('<mujoco>\n<extension>\n<plugin plugin="mujoco.elasticity.cable"/>\n</extension>\n<worldbody/>\n'
          '</mujoco>')
  with pytest.raises(ValueError, match="not found"):
    mujoco.MjModel.from_xml_string(text)
  assert_located_error(tmp_path, text, 2, "extension", None, "unsupported feature")
