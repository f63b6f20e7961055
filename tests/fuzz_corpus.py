"""Mutated MJCF models for the loader fuzzer (tests/test_fuzz_loader.py) and the MuJoCo acceptance comparison
(tests/fuzz_acceptance.py).

Seeds are our assets, the test models and Gymnasium's MuJoCo models (found through importlib.resources when
Gymnasium is installed). A mutation edits the parsed tree: an attribute gets a hostile value (non-finite,
huge, negative, zero, overflowing, Python-only syntax such as ``1_0``, hex floats, the wrong number of values),
an attribute or element is deleted or duplicated, an element is renamed to another MJCF element, or a body
or default class is nested hundreds deep. Choices come from ``rand``, any object with ``randrange(n)``, so
Hypothesis (through ``st.data()``) and ``random.Random`` drive the same mutations.

Mutated text is written into a mirror of the seed's folder (symbolic links to its files), so meshes, height
fields and includes resolve as they do for the seed.
"""

import copy
import importlib.resources
import os
import pathlib
import tempfile

from lxml import etree

ROOT = pathlib.Path(__file__).resolve().parent.parent

HOSTILE = ["nan", "inf", "-inf", "1e300", "-1e300", "-1", "0", "1e999", "1_0", "", "0x1p3", "1e-300", "+2",
           "2147483648", "-2147483649", "abc", "-0", "3", "1e6", "-nan", "2000000000", "100000"]

# Attributes worth setting where a model does not have them (by element), beside the ones it has.
EXTRA_ATTRS = {
    "geom": ["condim", "solref", "solimp", "mass", "density", "size", "friction", "margin", "gap", "priority",
             "solmix", "fromto", "type", "quat", "euler", "axisangle", "xyaxes", "zaxis"],
    "pair": ["condim", "solref", "solimp", "friction", "solreffriction", "margin"],
    "joint": ["range", "limited", "stiffness", "damping", "armature", "frictionloss", "solreflimit",
              "solimplimit", "ref", "springref", "axis", "type", "margin"],
    "body": ["pos", "quat", "euler", "gravcomp", "mocap"],
    "inertial": ["mass", "diaginertia", "fullinertia", "pos", "quat"],
    "option": ["timestep", "impratio", "tolerance", "iterations", "ls_iterations", "noslip_iterations", "cone",
               "o_solref", "o_solimp", "o_friction", "gravity", "density", "viscosity", "integrator", "solver",
               "ccd_iterations", "ls_tolerance", "noslip_tolerance", "o_margin"],
    "size": ["nconmax", "njmax", "nkey", "memory", "nuserdata"],
    "compiler": ["boundmass", "boundinertia", "settotalmass", "angle", "autolimits", "inertiafromgeom"],
    "motor": ["gear", "ctrlrange", "forcerange", "ctrllimited"],
    "position": ["kp", "kv", "dampratio", "timeconst", "ctrlrange"],
    "general": ["dyntype", "gainprm", "biasprm", "dynprm", "actdim"],
    "site": ["size", "type", "fromto"],
    "hfield": ["nrow", "ncol", "size"],
    "texture": ["width", "height", "random", "rgb1", "rgb2", "builtin"],
    "tendon": ["range", "limited", "stiffness", "springlength"],
    "fixed": ["range", "limited", "stiffness", "springlength", "solreflimit"],
    "spatial": ["range", "limited", "stiffness", "width"],
    "key": ["qpos", "qvel", "ctrl", "time"],
    "camera": ["fovy", "mode", "ipd"],
    "light": ["dir", "cutoff", "attenuation"],
    "weld": ["relpose", "torquescale", "solref"],
    "connect": ["anchor", "solimp"],
}
# Elements a swap may turn an element into.
SWAP_TAGS = ["geom", "site", "joint", "freejoint", "body", "inertial", "camera", "light", "motor", "position",
             "general", "pair", "exclude", "default", "include", "frame", "composite", "mesh", "hfield"]
KINDS = ("value", "word", "arity", "delete_attr", "delete_elem", "duplicate", "swap", "nest")


def _gymnasium_models():
  try:
    folder = importlib.resources.files("gymnasium.envs.mujoco") / "assets"
    return sorted(pathlib.Path(str(p)) for p in folder.iterdir() if p.name.endswith(".xml"))
  except (ImportError, FileNotFoundError, NotADirectoryError):
    return []


def seed_models():
  """Every seed model file: assets, test models (not include fragments), Gymnasium's models."""
  ours = sorted((ROOT / "mjgym" / "assets").glob("*.xml"))
  tests = sorted(p for p in (ROOT / "tests" / "models").rglob("*.xml") if p.parent.name != "include")
  return ours + tests + _gymnasium_models()


# Models a worker loads and steps before its first timed case: they compile the kernels that meshes, height
# fields and the step use (numba's cache makes later runs quick).
WARMUP = [ROOT / "mjgym" / "assets" / "humanoid.xml", ROOT / "tests" / "models" / "mesh_geoms.xml",
          ROOT / "tests" / "models" / "hfield_terrain.xml", ROOT / "tests" / "models" / "tendon_spatial.xml"]


def _pick(rand, seq):
  return seq[rand.randrange(len(seq))]


def _elements(root):
  return [e for e in root.iter() if isinstance(e.tag, str)]


def _hostile_word(rand):
  return _pick(rand, HOSTILE)


def mutate_tree(root, rand, count):
  """Applies ``count`` mutations to the tree in place; returns their descriptions."""
  done = []
  for _ in range(count):
    elems = _elements(root)
    kind = _pick(rand, KINDS)
    elem = _pick(rand, elems)
    tag = elem.tag
    if kind in ("value", "word", "arity"):
      attrs = list(elem.attrib)
      extra = EXTRA_ATTRS.get(tag, [])
      if not attrs and not extra:
        continue
      if extra and (not attrs or rand.randrange(3) == 0):
        attr = _pick(rand, extra)
      else:
        attr = _pick(rand, attrs)
      old = elem.get(attr, "1 1 1").split() or ["1"]
      if kind == "value":
        value = _hostile_word(rand)
        if rand.randrange(2):
          value = " ".join([value] * len(old))
      elif kind == "word":
        words = list(old)
        words[rand.randrange(len(words))] = _hostile_word(rand)
        value = " ".join(words)
      else:
        n = len(old)
        value = " ".join((old * 12)[:_pick(rand, [max(n - 1, 0), n + 1, 1, 7, 2])])
      elem.set(attr, value)
      done.append(f"<{tag}> {attr}={value!r}")
    elif kind == "delete_attr":
      if not elem.attrib:
        continue
      attr = _pick(rand, list(elem.attrib))
      del elem.attrib[attr]
      done.append(f"<{tag}> -{attr}")
    elif kind == "delete_elem":
      if elem.getparent() is None:
        continue
      elem.getparent().remove(elem)
      done.append(f"-<{tag}>")
    elif kind == "duplicate":
      if elem.getparent() is None:
        continue
      elem.addnext(copy.deepcopy(elem))
      done.append(f"<{tag}> x2")
    elif kind == "swap":
      if elem.getparent() is None:
        continue
      new = _pick(rand, SWAP_TAGS)
      elem.tag = new
      done.append(f"<{tag}> -> <{new}>")
    else:
      depth = _pick(rand, [3, 40, 300, 600])
      if tag == "body" or tag == "worldbody":
        inner = etree.SubElement(elem, "body")
        top = inner
        for _ in range(depth - 1):
          inner = etree.SubElement(inner, "body")
        etree.SubElement(inner, "joint")
        etree.SubElement(inner, "geom", size="0.01")
        done.append(f"<{tag}> + {depth} nested bodies")
        del top
      else:
        default = etree.SubElement(root, "default")
        inner = default
        for i in range(depth):
          inner = etree.SubElement(inner, "default", {"class": f"fuzz{i}"})
        etree.SubElement(inner, "geom", size="0.02")
        done.append(f"+ {depth} nested default classes")
  return done


def mutated_text(path, rand, count):
  """(mutated XML bytes, mutation descriptions) of the seed at ``path``."""
  root = etree.parse(str(path), etree.XMLParser(remove_comments=True, huge_tree=True)).getroot()
  done = mutate_tree(root, rand, count)
  return etree.tostring(root), done


class Mirrors:
  """Temporary folders that mirror each seed's folder, to write mutated models beside the seed's files."""

  def __init__(self):
    self._tmp = tempfile.TemporaryDirectory(prefix="mjgym-fuzz-")
    self._dirs = {}

  def folder(self, seed):
    src = pathlib.Path(seed).parent
    if src not in self._dirs:
      dst = pathlib.Path(self._tmp.name) / str(len(self._dirs))
      dst.mkdir()
      for entry in src.iterdir():
        os.symlink(entry, dst / entry.name)
      self._dirs[src] = dst
    return self._dirs[src]

  def write(self, seed, text, name="fuzz_case.xml"):
    path = self.folder(seed) / name
    path.write_bytes(text)
    return path

  def close(self):
    self._tmp.cleanup()
