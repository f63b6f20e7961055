"""MJCF text -> a checked tree of elements with typed attributes, includes spliced in and defaults applied."""

import math
import os
import re

from lxml import etree

from mjgym.physics.mjcf import defaults
from mjgym.physics.mjcf import flex
from mjgym.physics.mjcf import schema
from mjgym.physics.mjcf.errors import MJCFError
from mjgym.physics.mjcf.errors import fail
from mjgym.physics.mjcf.errors import warn

# Numbers as MuJoCo's XML reader takes them (C's strtod / strtol): decimal and hexadecimal floats, a leading
# sign, inf / infinity / nan in any case; no Python-only forms such as '1_000'. Words are split on ASCII
# white space only. An overflowing float or an int outside 32 bits is an error, as in MuJoCo.
_WS = re.compile(r"[ \t\n\r\f\v]+")
_DEC = re.compile(r"[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?\Z")
_HEX = re.compile(r"[+-]?0[xX]([0-9a-fA-F]+\.?[0-9a-fA-F]*|\.[0-9a-fA-F]+)([pP][+-]?[0-9]+)?\Z")
_SPECIAL = re.compile(r"[+-]?(inf|infinity|nan(\([0-9A-Za-z_]*\))?)\Z", re.IGNORECASE)
_INT = re.compile(r"[+-]?[0-9]+\Z")
_INT_MAX = 2**31 - 1
_ABSENT = object()
# the largest float32: a single-precision attribute at or past the rounding to inf is too large
_FLT_MAX = 3.4028235677973366e38
# libxml2's element nesting limit with huge_tree
_MAX_DEPTH = 2048


class Node:
  """One MJCF element: tag, typed attributes (after defaults), where it came from, and its children."""

  __slots__ = ("tag", "attrs", "given", "line", "file", "incdir", "children", "parent", "actuator_chain", "frames")

  def __init__(self, tag, attrs, line, file, parent, incdir=""):
    self.tag, self.attrs, self.line, self.file, self.parent = tag, attrs, line, file, parent
    # the directory of the file this element was <include>d from, as opened (MuJoCo's fallback for asset files
    # not found relative to the main model); "" in the main file
    self.incdir = incdir
    self.given = frozenset(attrs)  # attributes written on the element itself
    self.children = []
    self.actuator_chain = ()
    self.frames = ()  # the <frame> elements this element sat in, outermost first (see _splice_frames)

  def child(self, tag):
    """First child with this tag, or None."""
    return next((c for c in self.children if c.tag == tag), None)

  def all(self, tag):
    """Children with this tag."""
    return [c for c in self.children if c.tag == tag]

  def get(self, attr, default=None):
    return self.attrs.get(attr, default)

  def has(self, attr):
    """Whether the attribute was specified, on the element or by its default class."""
    return attr in self.attrs

  @property
  def name(self):
    return self.attrs.get("name", "")


class Source:
  """Where files come from: the asset dict first (like the bindings), then the file system."""

  def __init__(self, assets):
    self.assets = dict(assets or {})
    # files are also found by their base name, so two assets with one base name would be ambiguous
    seen = set()
    for key in self.assets:
      base = os.path.basename(key)
      if base in seen:
        raise ValueError(f"Repeated file name in assets dict: {base}")
      seen.add(base)
    self.main_dir = ""  # the main model's directory, which relative file names start from

  def exists(self, path):
    return path in self.assets or os.path.basename(path) in self.assets or os.path.isfile(path)

  def read(self, path, node=None, attribute=None):
    for key in (path, os.path.basename(path)):
      if key in self.assets:
        data = self.assets[key]
        return data.encode() if isinstance(data, str) else bytes(data)
    try:
      with open(path, "rb") as f:
        return f.read()
    except OSError as e:
      if node is None:
        raise MJCFError(f"cannot read file: {e.strerror}", path) from None
      fail(node, f"cannot read file '{path}': {e.strerror}", attribute)


def parse(text, filename, source):
  """Parses MJCF bytes into a Node tree with includes spliced in and default classes applied."""
  return parse_element(read_xml(text, filename), filename, source)


def read_xml(text, filename):
  """The root element of XML bytes (lxml), or a located MJCFError."""
  return _xml(text, filename)


def parse_element(root_elem, filename, source):
  """``parse`` of an XML root element already read (see read_xml)."""
  if root_elem.tag != "mujoco":
    raise MJCFError(f"root element must be <mujoco>, got <{root_elem.tag}>", filename, root_elem.sourceline)
  source.main_dir = os.path.dirname(filename)
  root = _convert(root_elem, filename, None, "", source, [os.path.abspath(filename)], "")
  _check_unique(root)
  flex.expand_flexcomps(root, source)
  classes = defaults.collect_defaults(root)
  defaults.apply_defaults(root, classes, None)
  _expand_replicates(root)
  _splice_frames(root)
  return root, classes


def _check_unique(root):
  """MuJoCo's schema: <visual> holds each of its parts once; names of <custom> data are unique."""
  for visual in root.all("visual"):
    seen = set()
    for child in visual.children:
      if child.tag in seen:
        fail(child, f"<visual> holds at most one <{child.tag}>")
      seen.add(child.tag)
  names = set()
  for custom in root.all("custom"):
    for child in custom.children:
      name = child.get("name")
      if name and (child.tag, name) in names:
        fail(child, f"repeated name '{name}' in <{child.tag}>", "name")
      names.add((child.tag, name))


def _xml(text, filename):
  # huge_tree lifts libxml2's default nesting limit (256) to 2048: MuJoCo (tinyxml2) reads up to 500 levels
  parser = etree.XMLParser(remove_comments=True, remove_pis=True, resolve_entities=False, huge_tree=True)
  try:
    return etree.fromstring(_as_tinyxml_reads(text), parser)
  except etree.XMLSyntaxError as e:
    if "Excessive depth" in str(e.msg):
      raise MJCFError(f"elements nested deeper than {_MAX_DEPTH} levels (the XML parser's limit; MuJoCo's is 500)",
                      filename, e.lineno) from None
    raise MJCFError(f"XML syntax error: {e.msg}", filename, e.lineno) from None


_DECLARATION = re.compile(rb"([ \t\n\r]*)<\?xml([^\n>]*?)\?>")


def _as_tinyxml_reads(text):
  """The bytes as MuJoCo's XML reader (tinyxml2) takes them, where libxml2 is stricter: up to the first NUL byte,
  and an XML declaration after white space or with a version other than 1.x (written by some exporters) read as
  one of version 1.0 at the start (the lines keep their numbers)."""
  if isinstance(text, str):
    text = text.encode()
  text = text.split(b"\0", 1)[0]
  match = _DECLARATION.match(text)
  if match is None:
    return text
  space, decl = match.groups()
  version = re.search(rb"version\s*=\s*[\"']([^\"']*)", decl)
  if not space and version is not None and version.group(1).startswith(b"1."):
    return text
  encoding = re.search(rb"encoding\s*=\s*[\"'][^\"']*[\"']", decl)
  return b"<?xml version='1.0' " + (encoding.group(0) if encoding else b"") + b"?>" + space + text[match.end():]


def _spec_key(parent_tag, tag):
  key = f"{parent_tag}/{tag}"
  return key if key in schema.ELEMENTS else None


def _convert(elem, file, parent, parent_tag, source, stack, incdir):
  tag = elem.tag
  line = elem.sourceline
  if parent is None:
    specs = schema.ELEMENTS["mujoco"]
  else:
    key = _spec_key(parent_tag, tag)
    if key is None and (parent_tag, tag) == ("mujoco", "body"):
      # MuJoCo's schema lets a <body> stand in <mujoco> (a file meant to be included in a <worldbody>) and its
      # compiler leaves it out of the model: so does mjgym, saying so
      warn(Node(tag, {"name": elem.get("name")} if elem.get("name") else {}, line, file, parent),
           "a <body> directly inside <mujoco> is not part of the model (MuJoCo leaves it out too); put it in "
           "<worldbody>")
      return None
    if key is None:
      if tag in schema.UNSUPPORTED_ELEMENTS.get(parent_tag, ()):
        raise MJCFError(f"<{tag}> inside <{parent_tag}> is not supported (unsupported feature)", file, line,
                        tag)
      if tag in schema.REMOVED_ELEMENTS:
        raise MJCFError(f"unknown element <{tag}> inside <{parent_tag}>: {schema.REMOVED_ELEMENTS[tag]}", file, line,
                        tag)
      raise MJCFError(f"unknown element <{tag}> inside <{parent_tag}>", file, line, tag)
    specs = schema.ELEMENTS[key]
  attrs = {}
  node = Node(tag, attrs, line, file, parent, incdir)
  for attr, text in elem.attrib.items():
    spec = specs.get(attr)
    if spec is None:
      node.attrs = {"name": elem.get("name")} if elem.get("name") else {}
      fail(node, f"unknown attribute (known: {', '.join(sorted(specs))})", attr)
    value = _value(node, attr, spec, text, elem)
    if value is not _ABSENT:
      attrs[attr] = value
  node.attrs = attrs
  node.given = frozenset(attrs)
  for child in elem:
    if not isinstance(child.tag, str):
      continue
    if child.tag == "include":
      node.children.extend(_include(child, file, node, tag, source, stack, incdir))
    else:
      node.children.append(_convert(child, file, node, tag, source, stack, incdir))
  node.children = [c for c in node.children if c is not None]
  return node


def _include(elem, file, parent, parent_tag, source, stack, incdir):
  """The elements of an included file. As MuJoCo, its name is looked up relative to the main model's directory
  first, then relative to the including file's."""
  inc = Node("include", {}, elem.sourceline, file, parent, incdir)
  unknown = set(elem.attrib) - {"file"}
  if unknown:
    fail(inc, "unknown attribute (known: file)", sorted(unknown)[0])
  name = elem.get("file")
  if not name:
    fail(inc, "required attribute missing", "file")
  main_dir = source.main_dir
  if os.path.isabs(name) or source.exists(os.path.join(main_dir, name)):
    path = os.path.join(main_dir, name)
  else:
    path = os.path.join(main_dir, incdir, name)
  # MuJoCo's directory of the included file: the path it opened, main model's directory included
  incdir = os.path.dirname(path)
  if os.path.abspath(path) in stack:
    start = stack.index(os.path.abspath(path))
    cycle = " -> ".join(os.path.basename(p) for p in stack[start:] + [os.path.abspath(path)])
    fail(inc, f"include cycle: {cycle}", "file")
  text = source.read(path, inc, "file")
  root = _xml(text, path)
  children = []
  for child in root:
    if not isinstance(child.tag, str):
      continue
    if child.tag == "include":
      children.extend(_include(child, path, parent, parent_tag, source, stack + [os.path.abspath(path)], incdir))
    else:
      children.append(_convert(child, path, parent, parent_tag, source, stack + [os.path.abspath(path)], incdir))
  return [c for c in children if c is not None]


def _value(node, attr, spec, text, elem):
  """Parses one attribute's text according to its spec."""
  name = elem.get("name")
  if name:
    node.attrs = {"name": name}
  if spec == "x":
    fail(node, "not supported (unsupported feature)", attr)
  if spec in ("s", "v"):
    return text
  if spec == "b":
    if text not in ("true", "false"):
      fail(node, f"expected 'true' or 'false', got '{text}'", attr)
    return text == "true"
  if spec == "auto":
    if text not in ("true", "false", "auto"):
      fail(node, f"expected 'true', 'false' or 'auto', got '{text}'", attr)
    return text
  if spec.startswith("e:"):
    choices = spec[2:].split("|")
    if text not in choices:
      fail(node, f"expected one of {', '.join(choices)}; got '{text}'", attr)
    return text
  kind, count = spec[0], spec[1:]
  words = [w for w in _WS.split(text) if w]
  if not words:
    return _ABSENT  # MuJoCo reads an empty number list as an attribute not given
  values = [(parse_int if kind == "i" else parse_float)(w, node, attr) for w in words]
  if kind == "g":
    for w, v in zip(words, values):
      if math.isfinite(v) and abs(v) > _FLT_MAX:
        fail(node, f"number '{w}' is too large (beyond the largest float32, as MuJoCo stores it)", attr)
  if count == "*":
    return values
  lo, hi = (int(c) for c in count.split("-")) if "-" in count else (int(count or 1),) * 2
  if not lo <= len(values) <= hi:
    want = f"{lo}" if lo == hi else f"{lo} to {hi}"
    noun = "number" if lo == hi == 1 else "numbers"
    fail(node, f"expected {want} {noun}, got {len(values)}", attr)
  return values[0] if (lo == hi == 1) else values


def parse_float(word, node, attr):
  """One float as MuJoCo reads it (see _DEC, _HEX, _SPECIAL), or a located MJCFError."""
  if _DEC.match(word):
    value = float(word)
  elif _HEX.match(word):
    try:
      value = float.fromhex(word)
    except OverflowError:
      value = float("inf")
  elif _SPECIAL.match(word):
    body = word.lstrip("+-").lower()
    value = float("nan") if body.startswith("nan") else float(word[0] + "inf" if word[0] in "+-" else "inf")
    return value
  else:
    fail(node, f"expected a number, got '{word}'", attr)
  if value in (float("inf"), float("-inf")):
    fail(node, f"number '{word}' is too large (beyond the largest double)", attr)
  return value


def parse_int(word, node, attr):
  """One 32-bit integer as MuJoCo reads it (decimal, optional sign), or a located MJCFError."""
  if not _INT.match(word):
    fail(node, f"expected an integer, got '{word}'", attr)
  value = int(word)
  if not -_INT_MAX - 1 <= value <= _INT_MAX:
    fail(node, f"integer '{word}' is too large (beyond 32 bits)", attr)
  return value



def _expand_replicates(node):
  """Replaces each <replicate> by its copies, in document order: copy k is a <frame> that applies the offset and
  euler k times (``repeat``; the compiler composes it), holding copies of the replicate's contents whose names
  end in sep and k, zero-padded to the digits of count. Inner replicates expand first, so their number comes
  first in a name (``t`` in copy 1 of an inner replicate in copy 0 of an outer one is ``t10``, as in MuJoCo)."""
  expanded = []
  for child in node.children:
    _expand_replicates(child)
    if child.tag != "replicate":
      expanded.append(child)
      continue
    count = child.get("count", 1)
    digits = len(str(count))
    for k in range(max(count, 0)):
      suffix = f"{child.get('sep', '')}{k:0{digits}d}"
      attrs = {"pos": child.get("offset", [0.0, 0.0, 0.0]), "repeat": k}
      if child.has("euler"):
        attrs["euler"] = child.get("euler")
      frame = Node("frame", attrs, child.line, child.file, node, child.incdir)
      frame.children = [_copy(c, frame, suffix) for c in child.children]
      expanded.append(frame)
  node.children = expanded


def _copy(node, parent, suffix):
  """A deep copy of ``node`` under ``parent``, with every name in it followed by ``suffix``."""
  attrs = dict(node.attrs)
  if attrs.get("name"):
    attrs["name"] = attrs["name"] + suffix
  copy = Node(node.tag, attrs, node.line, node.file, parent, node.incdir)
  copy.given, copy.actuator_chain, copy.frames = node.given, node.actuator_chain, node.frames
  copy.children = [_copy(c, copy, suffix) for c in node.children]
  return copy


def _splice_frames(node):
  """Moves the elements inside each <frame> into the frame's body, in document order (the order MuJoCo numbers
  them in); each remembers the frames it sat in, which the compiler composes into its position."""
  spliced = []
  for child in node.children:
    if child.tag == "frame":
      spliced.extend(_frame_contents(child, node, (child,)))
    else:
      _splice_frames(child)
      spliced.append(child)
  node.children = spliced


def _frame_contents(frame, body, chain):
  contents = []
  for child in frame.children:
    if child.tag == "frame":
      contents.extend(_frame_contents(child, body, chain + (child,)))
    else:
      child.frames, child.parent = chain, body
      _splice_frames(child)
      contents.append(child)
  return contents
