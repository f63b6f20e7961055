"""Hostile MJCF (issue 21): what MuJoCo rejects fails with a located MJCFError; what MuJoCo loads, loads here with
MuJoCo's numbers; nothing but MJCFError ever leaves the loader.

Each rejected case names the line, the element and the attribute; each accepted case is compared with the
`mujoco` package (the oracle) on the fields it touches.
"""

import math

import mujoco
import numpy as np
import pytest

import oracle
from located_error import assert_located_error
from mjgym import physics
from mjgym.physics import MJCFError
from mjgym.physics.mjcf import bodies

_BODY = '<body name="b">\n<joint name="j"/>\n<geom name="g" size="0.1"/>\n</body>'
_TWO = _BODY + '\n<geom name="g2" size="0.1" pos="1 0 0"/>'


def _model(worldbody, head="", tail=""):
  """A model whose worldbody starts on line 4 (head on line 2, tail after the worldbody)."""
  return f"<mujoco>\n{head}\n<worldbody>\n{worldbody}\n</worldbody>\n{tail}\n</mujoco>"


def _hfield(attrs):
  return _model('<geom type="hfield" hfield="h"/>', f'<asset><hfield name="h" {attrs}/></asset>')


def _inertial(attrs):
  return _model(f'<body>\n<joint/>\n<inertial pos="0 0 0" {attrs}/>\n</body>')


# (id, model text, line, element, attribute or None, a fragment of the message)
REJECTED = [
    # item 1: condim of pairs and of geoms (also through a default class), as MuJoCo allows: 1, 3, 4, 6
    *[(f"pair_condim_{c}", _model(_TWO, tail=f'<contact>\n<pair geom1="g" geom2="g2" condim="{c}"/>\n</contact>'),
       11, "pair", "condim", "condim must be 1, 3, 4 or 6") for c in ("0", "-1", "2", "5", "7", "129")],
    ("default_geom_condim", _model('<geom size="1"/>', '<default><geom condim="5"/></default>'), 4, "geom",
     "condim", "condim must be 1, 3, 4 or 6"),
    # item 5: numbers
    ("overflow", _model('<body pos="0 0 1e999"/>'), 4, "body", "pos", "too large"),
    ("overflow_int", _model('<geom size="1" group="2147483648"/>'), 4, "geom", "group", "beyond 32 bits"),
    ("underscore", _model('<geom size="1_000"/>'), 4, "geom", "size", "expected a number, got '1_000'"),
    ("underscore_int", _model('<geom size="1" condim="1_0"/>'), 4, "geom", "condim", "expected an integer"),
    ("hex_int", _model('<geom size="1" condim="0x3"/>'), 4, "geom", "condim", "expected an integer"),
    ("float32_overflow", _model('<geom size="1" rgba="1e39 1 1 1"/>'), 4, "geom", "rgba", "float32"),
    ("nan_inertial_mass", _inertial('mass="nan" diaginertia="1 1 1"'), 4, "body", None,
     "must be numbers larger than 1e-15"),
    ("nan_density", _model('<body>\n<joint/>\n<geom size="1" density="nan"/>\n</body>'), 4, "body", None,
     "must be numbers larger than 1e-15"),
    ("nan_diaginertia", _inertial('mass="1" diaginertia="nan 1 1"'), 4, "body", None, "NaN"),
    ("inf_diaginertia", _inertial('mass="1" diaginertia="inf 1 1"'), 6, "inertial", None, "A + B >= C"),
    ("inf_fullinertia", _inertial('mass="1" fullinertia="inf 1 1 0 0 0"'), 6, "inertial", "fullinertia",
     "must be finite"),
    ("nan_geom_size", _model('<geom size="nan"/>'), 4, "geom", "size", "must not be NaN"),
    ("geom_at_1e300", _model('<body>\n<joint/>\n<geom size="0.1" pos="1e300 0 0"/>\n<geom size="0.1"/>\n</body>'),
     4, "body", None, "too large or far apart"),
    ("seven_dofs", _model('<body name="c">\n' + '<joint type="slide"/>\n' * 7 + '<geom size="1"/>\n</body>'), 4,
     'body name="c"', None, "more than 6 dofs"),
    ("two_free_joints", _model('<body>\n<freejoint/>\n<freejoint/>\n<geom size="1"/>\n</body>'), 4, "body", None,
     "more than 6 dofs"),
    ("nconmax_negative", _model("", '<size nconmax="-5"/>'), 2, "size", "nconmax", "must be >= -1"),
    ("njmax_negative", _model("", '<size njmax="-5"/>'), 2, "size", "njmax", "must be >= -1"),
    ("nconmax_bound", _model("", '<size nconmax="2000000000"/>'), 2, "size", "nconmax", "mjgym's bound"),
    ("njmax_bound", _model("", '<size njmax="2000000000"/>'), 2, "size", "njmax", "mjgym's bound"),
    ("nkey_bound", _model("", '<size nkey="2000000000"/>'), 2, "size", "nkey", "mjgym's bound"),
    ("memory_syntax", _model("", '<size memory="10Q"/>'), 2, "size", "memory", "optional suffix"),
    ("hfield_bound", _hfield('nrow="100000" ncol="100000" size="1 1 1 1"'), 2, 'hfield name="h"', "nrow",
     "mjgym's bound"),
    ("hfield_nan_size", _hfield('nrow="2" ncol="2" size="1 1 nan 1"'), 2, 'hfield name="h"', "size",
     "4 positive numbers"),
    ("texture_bound", _model("", '<asset><texture name="t" type="2d" builtin="checker" width="100000" '
                                 'height="100000"/></asset>'), 2, 'texture name="t"', "width", "mjgym's bound"),
    ("texture_rgb1_arity", _model("", '<asset><texture name="t" builtin="checker" width="8" rgb1="1 1"/></asset>'),
     2, 'texture name="t"', "rgb1", "expected 3 numbers, got 2"),
    ("texture_no_width", _model("", '<asset><texture name="t" type="2d" builtin="checker"/></asset>'), 2,
     'texture name="t"', "width", "positive width"),
    ("visual_bad_number", _model("", '<visual><map znear="abc"/></visual>'), 2, "map", "znear",
     "expected a number"),
    ("visual_arity", _model("", '<visual><map fogend="5 5"/></visual>'), 2, "map", "fogend",
     "expected 1 number, got 2"),
    ("site_size", _model('<site size="0"/>'), 4, "site", "size", "size 0 must be positive"),
    ("plane_spacing", _model('<geom type="plane" size="1 1 0"/>'), 4, "geom", "size", "grid spacing"),
    ("fovy", _model('<camera fovy="180"/>'), 4, "camera", "fovy", "below 180"),
    ("sensor_noise", _model(_BODY, tail='<sensor><jointpos joint="j" noise="-1"/></sensor>'), 9, "jointpos",
     "noise", "non-negative"),
    ("spatial_width", _model(_BODY + '\n<site name="s1"/>\n<site name="s2" pos="1 0 0"/>',
                             tail='<tendon><spatial width="0"><site site="s1"/><site site="s2"/></spatial>'
                                  "</tendon>"), 11, "spatial", "width", "positive width"),
    ("fixed_tendon_rgba", _model(_BODY, tail='<tendon><fixed rgba="1 1 1 1"><joint joint="j" coef="1"/></fixed>'
                                             "</tendon>"), 9, "fixed", "rgba", "unknown attribute"),
    ("position_kv", _model(_BODY, tail='<actuator><position joint="j" kv="-1"/></actuator>'), 9, "position", "kv",
     "non-negative"),
    ("default_twice", _model("", "<default><geom size='1'/><geom size='2'/></default>"), 2, "geom", None,
     "at most one <geom>"),
    ("empty_class", _model("", '<default><default class=""/></default>'), 2, "default", "class",
     "empty class name"),
    ("nonlinear_damping", _model('<body>\n<joint damping="1 2"/>\n<geom size="1"/>\n</body>'), 5, "joint",
     "damping", "unsupported"),
    ("fixed_tendon_repeated_joint", _model(_BODY, tail='<tendon><fixed><joint joint="j" coef="1"/><joint joint="j" '
                                                       'coef="2"/></fixed></tendon>'), 9, "joint", "joint",
     "repeated"),
    ("spatial_repeated_site", _model(_BODY + '\n<site name="s1"/>\n<site name="s2" pos="1 0 0"/>',
                                     tail='<tendon><spatial><site site="s1"/><site site="s2"/><site site="s2"/>'
                                          "</spatial></tendon>"), 11, "site", "site", "twice in a row"),
    ("visual_twice", _model("", "<visual><map znear='0.1'/><map zfar='10'/></visual>"), 2, "map", None,
     "at most one <map>"),
    ("custom_repeated_name", _model("", '<custom><numeric name="n" data="1"/><numeric name="n" data="2"/></custom>'),
     2, 'numeric name="n"', "name", "repeated name"),
    ("ctrlrange_equal_explicit", _model(_BODY, tail='<actuator><motor joint="j" ctrllimited="true" ctrlrange="0 0"/>'
                                                    "</actuator>"), 9, "motor", "ctrlrange", "range[0] < range[1]"),
    ("range_equal_explicit", _model('<body>\n<joint limited="true" range="1 1"/>\n<geom size="1"/>\n</body>'), 5,
     "joint", "range", "range[0] < range[1]"),
    # item 8: messages
    ("fullinertia_not_pd", _inertial('mass="1" fullinertia="1 1 1 2 0 0"'), 6, "inertial", "fullinertia",
     "is not positive definite (its smallest eigenvalue is"),
    ("fullinertia_and_quat", _inertial('mass="1" quat="1 0 0 0" fullinertia="1 1 1 0 0 0"'), 6, "inertial",
     "fullinertia", "not both"),
    ("timestep_nan", _model("", '<option timestep="nan"/>'), 2, "option", "timestep", "positive finite number"),
    ("timestep_zero", _model("", '<option timestep="0"/>'), 2, "option", "timestep", "positive finite number"),
    ("timestep_negative", _model("", '<option timestep="-0.01"/>'), 2, "option", "timestep",
     "positive finite number"),
]


@pytest.mark.parametrize("text,line,element,attribute,fragment", [c[1:] for c in REJECTED],
                         ids=[c[0] for c in REJECTED])
def test_rejected_with_located_error(tmp_path, text, line, element, attribute, fragment):
  assert element is not None
  message = assert_located_error(tmp_path, text, line, element, attribute, fragment)
  assert "np.float64" not in message and "array(" not in message, message


# MuJoCo 4.0 loads these: so does mjgym, with the same numbers. (id, model text, fields compared)
ACCEPTED = [
    ("hex_float", _model('<body pos="0x1p-3 0X1P3 -0x.8"><geom size="0x1p-4"/></body>'), ["body_pos", "geom_size"]),
    ("signs_and_forms", _model('<body pos="+1 .5 5."><geom size="1e-1"/></body>'), ["body_pos", "geom_size"]),
    ("inf_nan_words", _model('<body pos="0 0 nan"><geom size="1" rgba="Infinity 1 1 1"/></body>'),
     ["geom_rgba"]),
    ("underflow", _model('<body pos="1e-400 0 4.9e-324"><geom size="1"/></body>'), ["body_pos"]),
    ("empty_number_list", _model('<body pos=" "><geom size="1" friction=""/></body>'),
     ["body_pos", "geom_friction"]),
    ("texture_random_empty", _model('<geom size="1"/>', '<asset><texture name="t" builtin="checker" width="8" '
                                                       'random=""/></asset>'), ["ntex", "tex_width"]),
    ("partial_solref", _model('<geom size="1" solref="0.05"/>', '<default><geom solref="0.1 0.5"/></default>'),
     ["geom_solref"]),
    ("partial_solimp", _model('<geom size="1" solimp="0.5"/>'), ["geom_solimp"]),
    ("partial_option", _model('<geom size="1"/>', '<option o_solref="0.1" o_solimp="0.8 0.9" o_friction="2"/>'),
     ["opt.o_solref", "opt.o_solimp", "opt.o_friction"]),
    ("pair_partial_solreffriction", _model(_TWO, tail='<contact><pair geom1="g" geom2="g2" solreffriction="-1"/>'
                                                      "</contact>"), ["pair_solreffriction"]),
    ("unused_default_pair_condim", _model(_BODY, '<default><pair condim="2"/></default>'), ["geom_condim"]),
    ("nan_geom_mass_means_not_given", _model('<body>\n<joint/>\n<geom size="1" mass="nan"/>\n</body>'),
     ["body_mass", "body_inertia"]),
    ("sphere_1e300", _model('<body>\n<joint/>\n<geom size="1e300"/>\n</body>'), ["body_mass", "geom_rbound"]),
    ("euler_inf", _model('<body euler="inf 0 0"><geom size="1"/></body>'), ["body_quat"]),
    ("nkey_default", _model(_BODY, '<size nkey="-1" nconmax="-1" njmax="-1"/>'), ["nkey"]),
    ("headlight_active_word", _model(_BODY, '<visual><headlight active="true"/></visual>'), ["nbody"]),
    ("ctrlrange_equal_auto", _model(_BODY, tail='<actuator><motor joint="j" ctrlrange="0 0"/></actuator>'),
     ["actuator_ctrlrange", "actuator_ctrllimited"]),
    ("range_equal_auto", _model('<body><joint range="1 1"/><geom size="1"/></body>'), ["jnt_range", "jnt_limited"]),
    ("range_reversed_auto", _model('<body><joint range="2 1"/><geom size="1"/></body>'), ["jnt_range", "jnt_limited"]),
    ("ctrlrange_reversed_auto", _model(_BODY, tail='<actuator><motor joint="j" ctrlrange="1 -1"/></actuator>'),
     ["actuator_ctrlrange", "actuator_ctrllimited"]),
    ("short_keyframe", _model('<body pos="1 2 3"><freejoint/><geom size="0.1"/></body>\n'
                              '<body><joint name="j" type="slide" ref="0.7"/><geom size="0.1"/></body>',
                              tail='<actuator><motor joint="j"/><motor joint="j"/></actuator>\n'
                                   '<keyframe><key qpos="0.1 5" qvel="1 2" ctrl="3"/></keyframe>'),
     ["key_qpos", "key_qvel", "key_ctrl"]),
    ("empty_material_and_texture", _model('<geom size="1" material=""/>', '<asset><material name="m" texture=""/>'
                                                                          "</asset>"), ["geom_matid", "nmat"]),
    ("nan_range_end", _model('<body><joint limited="true" range="nan 1"/><geom size="1"/></body>'), ["jnt_limited"]),
    ("light_cutoff_inf", _model('<light cutoff="inf"/>'), ["light_cutoff"]),
    ("deep_bodies_254", _model('<body><joint/><geom size="0.1"/>' * 254 + "</body>" * 254),
     ["nbody", "body_parentid", "body_mass"]),
    ("deep_bodies_496", _model('<body><joint/><geom size="0.1"/>' * 496 + "</body>" * 496),
     ["nbody", "body_parentid"]),
    ("deep_defaults_300", _model('<geom class="c299" size="1"/>',
                                 "<default>" + "".join(f'<default class="c{i}">' for i in range(299))
                                 + '<default class="c299"><geom condim="4"/></default>' + "</default>" * 299
                                 + "</default>"), ["geom_condim"]),
    ("deep_defaults_496", _model('<geom class="c495" size="1"/>',
                                 "<default>" + "".join(f'<default class="c{i}">' for i in range(495))
                                 + '<default class="c495"><geom condim="6"/></default>' + "</default>" * 495
                                 + "</default>"), ["geom_condim"]),
]


def _field(model, name):
  holder = model
  for part in name.split("."):
    holder = getattr(holder, part)
  return np.asarray(holder, float)


@pytest.mark.parametrize("text,fields", [c[1:] for c in ACCEPTED], ids=[c[0] for c in ACCEPTED])
def test_accepted_like_mujoco(text, fields):
  theirs, ours = oracle.models(text)
  for name in fields:
    np.testing.assert_allclose(_field(ours, name), _field(theirs, name), rtol=1e-12, atol=0, equal_nan=True,
                               err_msg=name)


def test_deeper_than_mujoco_loads():
  """MuJoCo's XML parser stops at 500 levels; mjgym goes to libxml2's 2048 (1000 here), then says so."""
  m = physics.MjModel.from_xml_string(_model('<body><joint/><geom size="0.1"/>' * 1000 + "</body>" * 1000))
  assert m.nbody == 1001 and m.body_parentid[-1] == 999
  depth = 2100
  with pytest.raises(MJCFError, match=r"^<string>:\d+: elements nested deeper than 2048 levels"):
    physics.MjModel.from_xml_string(_model("<body>" * depth + "</body>" * depth))


def test_include_cycle_names_the_cycle(tmp_path):
  (tmp_path / "a.xml").write_text('<mujoco>\n<include file="b.xml"/>\n</mujoco>')
  (tmp_path / "b.xml").write_text('<mujoco>\n\n<include file="a.xml"/>\n</mujoco>')
  with pytest.raises(MJCFError) as info:
    physics.MjModel.from_xml_path(str(tmp_path / "a.xml"))
  message = str(info.value)
  assert message.startswith(f"{tmp_path / 'b.xml'}:3: <include> attribute 'file': include cycle: "
                            "a.xml -> b.xml -> a.xml"), message


@pytest.mark.parametrize("data", [b"this is not a png", b"\x89PNG\r\n\x1a\n" + b"\0" * 40],
                         ids=["no_signature", "truncated"])
def test_garbage_png_height_field(data):
  text = _model('<geom type="hfield" hfield="h"/>', '<asset><hfield name="h" file="h.png" size="1 1 1 1"/></asset>')
  with pytest.raises(MJCFError) as info:
    physics.MjModel.from_xml_string(text, assets={"h.png": data})
  message = str(info.value)
  assert message.startswith("<string>:2: <hfield name=\"h\"> attribute 'file': 'h.png' is not a valid PNG file"), \
      message
  assert "backend" not in message


def test_internal_error_becomes_located_mjcf_error(monkeypatch):
  """The last line of defence: an exception nobody foresaw leaves as an MJCFError at the element compiled."""
  def broken(self, node, bodyid):
    raise ZeroDivisionError("division by zero")

  monkeypatch.setattr(bodies, "camera", broken)
  with pytest.raises(MJCFError) as info:
    physics.MjModel.from_xml_string(_model('<geom size="1"/>\n<camera name="c"/>'))
  assert str(info.value).startswith('<string>:5: <camera name="c">: cannot compile the model (in broken): '
                                    "ZeroDivisionError")
  assert isinstance(info.value.__cause__, ZeroDivisionError)


def test_keyboard_interrupt_is_not_swallowed(monkeypatch):
  def interrupted(self, node, bodyid):
    raise KeyboardInterrupt

  monkeypatch.setattr(bodies, "camera", interrupted)
  with pytest.raises(KeyboardInterrupt):
    physics.MjModel.from_xml_string(_model('<camera name="c"/>'))


def test_memory_error_is_reported_as_such(monkeypatch):
  def exhausted(self, node, bodyid):
    raise MemoryError

  monkeypatch.setattr(bodies, "camera", exhausted)
  with pytest.raises(MJCFError, match=r"cannot compile the model \(in exhausted\): out of memory"):
    physics.MjModel.from_xml_string(_model('<camera name="c"/>'))


def test_number_syntax_matches_mujoco():
  """Every word MuJoCo's reader takes as a double or an int, mjgym takes with the same value, and the reverse."""
  floats = ["0x1p-3", "0x10", "+1", "+inf", "-inf", "nan", "-nan", "NaN", "INF", "infinity", "1e999", "1e-999",
            "1_000", "1.", ".5", "1d5", "0b1", "1f", "1.5e", "e5", "-", "+", "--1", "0012", "1,2", "0x", "0x.8",
            "nan(123)", "0x1p", "0x1.8p1", "0x1p99999", "0x1p-1080", "0.1e+", "2e+308", "1.7976931348623159e308",
            "\u0661", "1\u00a02", "0x1e3", "+.5", "-.e1"]
  ints = ["3", "0x3", "+3", "3.0", "3e0", "1_0", "03", "-0", "2147483648", "-2147483648", "-2147483649", "+-3"]
  for word in floats:
    xml = _model(f'<body pos="0 0 {word}"><geom size="1"/></body>')
    assert _outcome(mujoco, xml, lambda m: m.body_pos[1, 2]) == _outcome(physics, xml, lambda m: m.body_pos[1, 2]), \
        word
  for word in ints:
    xml = _model(f'<geom size="1" group="{word}"/>')
    assert _outcome(mujoco, xml, lambda m: m.geom_group[0]) == _outcome(physics, xml, lambda m: m.geom_group[0]), \
        word


def _outcome(lib, xml, read):
  try:
    value = float(read(lib.MjModel.from_xml_string(xml)))
  except ValueError:
    return "rejected"
  return "nan" if math.isnan(value) else value
