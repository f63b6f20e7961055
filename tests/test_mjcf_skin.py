"""Skins against MuJoCo: the compiled skin_* fields (inline data and .skn files) and the skinned vertices drawn.

The .skn files are written at test time.
"""

import mujoco
import numpy as np
import pytest

import oracle
from located_error import assert_located_error
from mjgym import physics
from mjgym.physics.render import scene

SKIN_FIELDS = ("nskin", "nskinvert", "nskintexvert", "nskinface", "nskinbone", "nskinbonevert", "skin_matid",
               "skin_group", "skin_rgba", "skin_inflate", "skin_vertadr", "skin_vertnum", "skin_texcoordadr",
               "skin_faceadr", "skin_facenum", "skin_boneadr", "skin_bonenum", "skin_vert", "skin_texcoord",
               "skin_face", "skin_bonevertadr", "skin_bonevertnum", "skin_bonebindpos", "skin_bonebindquat",
               "skin_bonebodyid", "skin_bonevertid", "skin_bonevertweight")

BODIES = """
<worldbody>
  <body name="b1" pos="0 0 1"><joint name="j1" type="ball"/><geom size=".1"/>
    <body name="b2" pos="0 .3 0" euler="10 20 30"><joint name="j2" axis="1 1 0"/><geom size=".1"/>
      <body name="b3" pos=".2 0 .1"><joint name="j3" type="slide"/><geom size=".05"/></body>
    </body>
  </body>
</worldbody>"""

# Two inline skins (weights to normalize, an unnormalized bind quaternion, a material, texture coordinates) and one
# from a file.
SKINS = """
<asset>
  <material name="skinmat" rgba="1 0 0 1"/>
  <material name="other" rgba="0 1 0 1"/>
  <skin name="s1" material="other" rgba=".1 .2 .3 1" inflate="0.01" group="2"
        vertex="0 0 0  1 0 0  0 1 0  0 0 1" texcoord="0 0 1 0 0 1 .5 .5" face="0 2 1 0 1 3 0 3 2 1 2 3">
    <bone body="b1" bindpos="0 0 0.5" bindquat="1 0 0 0.2" vertid="0 1 2" vertweight="1 2 1"/>
    <bone body="b2" bindpos="0.1 0.3 1" bindquat="0.9 0.1 0 0" vertid="2 3" vertweight="1 0.5"/>
  </skin>
  <skin vertex="0 0 0  1 0 0  0 1 0" face="0 1 2">
    <bone body="b3" bindpos="0 0 0" bindquat="1 0 0 0" vertid="0 1 2" vertweight="0.3 1 1"/>
  </skin>
  <skin file="arm.skn" material="skinmat" inflate="-0.002"/>
</asset>"""


def _skn(vert, texcoord, face, bones):
  """MuJoCo's binary skin file: counts, vertices, texture coordinates, faces, then each bone."""
  out = np.array([len(vert), len(texcoord), len(face), len(bones)], "<i4").tobytes()
  out += np.asarray(vert, "<f4").tobytes() + np.asarray(texcoord, "<f4").tobytes() + np.asarray(face, "<i4").tobytes()
  for body, bindpos, bindquat, vertid, weight in bones:
    out += body.encode().ljust(40, b"\0") + np.asarray(bindpos, "<f4").tobytes()
    out += np.asarray(bindquat, "<f4").tobytes() + np.array([len(vertid)], "<i4").tobytes()
    out += np.asarray(vertid, "<i4").tobytes() + np.asarray(weight, "<f4").tobytes()
  return out


def _arm_skn():
  """A box-like tube of 8 vertices around the b2 -> b3 segment, bound to both bodies with blended weights."""
  vert = [[x, y, z] for z in (0.9, 1.2) for x, y in ((-.05, .25), (.05, .25), (.05, .35), (-.05, .35))]
  face = [[0, 1, 5], [0, 5, 4], [1, 2, 6], [1, 6, 5], [2, 3, 7], [2, 7, 6], [3, 0, 4], [3, 4, 7], [0, 2, 1],
          [0, 3, 2], [4, 5, 6], [4, 6, 7]]
  tex = [[k / 8, 1 - k / 8] for k in range(8)]
  bones = [("b2", [0, .3, 1], [1, 0, 0, 0], list(range(8)), [1, 1, 1, 1, .5, .5, .5, .5]),
           ("b3", [.2, .3, 1.1], [0.5, 0.5, 0.5, 0.5], [4, 5, 6, 7], [.5, .5, .5, .5])]
  return _skn(vert, tex, face, bones)


def _xml(skins=SKINS):
  return f"<mujoco>{skins}{BODIES}</mujoco>"


def test_skins_as_mujoco_compiles_them():
  mjm, m = oracle.models(_xml(), {"arm.skn": _arm_skn()})
  assert mjm.nskin == 3 and mjm.nskintexvert == 12
  for name in SKIN_FIELDS:
    np.testing.assert_array_equal(np.asarray(getattr(m, name)).reshape(-1),
                                  np.asarray(getattr(mjm, name)).reshape(-1), err_msg=name)


def _skin_vertices_mujoco(mjm, mjd):
  """MuJoCo's skinned vertices (mjv_updateScene, no OpenGL) of every skin group."""
  scn = mujoco.MjvScene(mjm, 100)
  opt = mujoco.MjvOption()
  opt.skingroup[:] = 1
  mujoco.mjv_updateScene(mjm, mjd, opt, None, mujoco.MjvCamera(), int(mujoco.mjtCatBit.mjCAT_ALL), scn)
  return np.asarray(scn.skinvert).reshape(-1, 3)


def test_skinned_vertices_follow_mujoco():
  """Each vertex the weighted sum over its bones of bone pose * bind inverse * vertex, pushed out by inflate along
  the area-weighted vertex normal: as MuJoCo's mjv_updateScene computes them (in single precision there), at random
  poses."""
  mjm, mjd, m, d = oracle.load_both(_xml(), {"arm.skn": _arm_skn()})
  skins = scene.SkinTable(m)
  for _ in oracle.forward_states(mjm, mjd, m, d, seed=3, count=4):
    vert = skins.vertices(d.xpos, d.xquat)
    oracle.assert_close(vert, _skin_vertices_mujoco(mjm, mjd), 1e-5, "skin vertices")


def test_skin_errors(tmp_path):
  cases = [
      ('<skin file="a.skn" vertex="0 0 0"/>', "file", "both skin data and file"),
      ('<skin file="a.stl"/>', "file", "unknown skin file type"),
      ('<skin vertex="0 0 0 1 0 0 0 1 0" face="0 1 3">'
       '<bone body="b1" bindpos="0 0 0" bindquat="1 0 0 0" vertid="0 1 2" vertweight="1 1 1"/></skin>',
       "face", "out of range"),
      ('<skin vertex="0 0 0 1 0 0 0 1 0" face="0 1 2">'
       '<bone body="b1" bindpos="0 0 0" bindquat="1 0 0 0" vertid="0 1" vertweight="1 1"/></skin>',
       "vertex", "vertex 2 must have positive total weight"),
      ('<skin vertex="0 0 0 1 0 0 0 1 0" face="0 1 2">'
       '<bone body="nobody" bindpos="0 0 0" bindquat="1 0 0 0" vertid="0 1 2" vertweight="1 1 1"/></skin>',
       "body", "unknown body 'nobody'"),
      ('<skin vertex="0 0 0 1 0 0 0 1 0" face="0 1 2" texcoord="0 0 1 1">'
       '<bone body="b1" bindpos="0 0 0" bindquat="1 0 0 0" vertid="0 1 2" vertweight="1 1 1"/></skin>',
       "texcoord", "2 numbers a vertex"),
  ]
  for skin, attribute, fragment in cases:
    text = f"<mujoco>\n<asset>\n{skin}\n</asset>{BODIES}</mujoco>"
    path = tmp_path / "model.xml"
    path.write_text(text)
    with pytest.raises(ValueError):
      mujoco.MjModel.from_xml_path(str(path))
    assert_located_error(tmp_path, text, 3, None, attribute, fragment)


def test_skn_file_errors():
  good = _arm_skn()
  for data, fragment in ((good[:12], "missing header"), (good[:-4], "SKN"), (good + b"\0\0\0\0", "SKN")):
    with pytest.raises(ValueError, match=fragment):
      mujoco.MjModel.from_xml_string(_xml('<asset><skin file="arm.skn"/></asset>'), {"arm.skn": data})
    with pytest.raises(ValueError, match=fragment):
      physics.MjModel.from_xml_string(_xml('<asset><skin file="arm.skn"/></asset>'), {"arm.skn": data})
