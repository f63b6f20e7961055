"""Default classes: MJCF's <default> tree, applied to every element that takes defaults (attribute by attribute,
partial arrays completed from the class or MuJoCo's built-in values)."""

from mjgym.physics.mjcf import fluid
from mjgym.physics.mjcf import schema
from mjgym.physics.mjcf.errors import fail

# MuJoCo's default solver impedance and reference of every constraint kind.
SOLIMP = (0.9, 0.95, 0.001, 0.5, 2.0)
SOLREF = (0.02, 1.0)
# Attributes that may be given with fewer values than they hold: the missing tail keeps the value
# inherited from the default class, or else the built-in default here (keyed by attribute, then element).
_PARTIAL_BASE = {
    "size": {"geom": (0.0, 0.0, 0.0), "site": (0.005, 0.005, 0.005)},
    "friction": {"geom": (1.0, 0.005, 0.0001), "pair": (1.0, 1.0, 0.005, 0.0001, 0.0001)},
    "solimp": SOLIMP, "solimplimit": SOLIMP, "solimpfriction": SOLIMP,
    "solref": SOLREF, "solreflimit": SOLREF,
    "solreffriction": {"joint": SOLREF, "tendon": SOLREF, "pair": (0.0, 0.0)},
    "gear": (1.0, 0.0, 0.0, 0.0, 0.0, 0.0),
    "dynprm": (1.0,) + (0.0,) * 9, "gainprm": (1.0,) + (0.0,) * 9, "biasprm": (0.0,) * 10,
    "polycoef": (0.0, 1.0, 0.0, 0.0, 0.0),
    "fluidcoef": {"geom": fluid.FLUIDCOEF},
}
_ACTUATOR_KINDS = tuple(schema.ACTUATORS)


class DefaultClass:
  """A default class: attribute values per element kind, inherited from the parent class."""

  def __init__(self, name, parent):
    self.name = name
    self.values = {k: dict(v) for k, v in parent.values.items()} if parent else {}
    # Actuator defaults of every kind feed one actuator record, applied in order (see actuators).
    self.actuators = list(parent.actuators) if parent else []


def collect_defaults(root):
  """Builds the default classes: 'main' is the top one; nested classes inherit from their parents."""
  classes = {"main": DefaultClass("main", None)}
  tops = root.all("default")
  for top in tops:
    name = top.get("class", "main")
    if not name:
      fail(top, "empty class name", "class")
    if name != "main":
      classes[name] = DefaultClass(name, classes["main"])
    _fill_class(top, classes[name], classes)
  return classes


def _fill_class(node, cls, classes):
  seen = set()
  for child in node.children:
    if child.tag != "default":
      # a default class holds at most one of each element (MuJoCo's schema)
      if child.tag in seen:
        fail(child, f"a default class holds at most one <{child.tag}>")
      seen.add(child.tag)
    if child.tag == "default":
      name = child.get("class")
      if not name:
        fail(child, "nested default class needs a name" if name is None else "empty class name", "class")
      if name in classes:
        fail(child, f"repeated default class name '{name}'", "class")
      classes[name] = DefaultClass(name, cls)
      _fill_class(child, classes[name], classes)
    elif child.tag in _ACTUATOR_KINDS:
      cls.actuators.append((child.tag, dict(child.attrs), child))
    else:
      base = cls.values.setdefault(child.tag, {})
      for attr, value in child.attrs.items():
        base[attr] = _merge(child.tag, attr, base.get(attr), value)


def _merge(tag, attr, base, value):
  """The value of an attribute given ``value`` over an inherited ``base`` (partial arrays keep the tail)."""
  partial = _PARTIAL_BASE.get(attr)
  if partial is None or not isinstance(value, list):
    return value
  if isinstance(partial, dict):
    partial = partial.get(tag)
    if partial is None:
      return value
  full = list(base) if base is not None else list(partial)
  full[:len(value)] = value
  return full


def _defaultable_tag(node):
  if node.parent is not None and node.parent.tag == "equality":
    return "equality"
  if node.tag in ("fixed", "spatial"):
    return "tendon"
  return node.tag


def apply_defaults(node, classes, childclass):
  for child in node.children:
    if child.tag == "default":
      continue
    cls = childclass
    if child.tag in ("body", "frame"):
      if child.has("childclass"):
        cls = _lookup_class(child, child.get("childclass"), classes, "childclass")
    else:
      tag = _defaultable_tag(child)
      if tag in schema.DEFAULTABLE or tag in _ACTUATOR_KINDS:
        use = cls
        if child.has("class"):
          use = _lookup_class(child, child.get("class"), classes, "class")
        elif use is None or child.parent.tag in ("actuator", "tendon", "equality", "contact", "asset"):
          use = classes["main"]
        if tag in _ACTUATOR_KINDS:
          child.actuator_chain = tuple(use.actuators)
          values = {}
          for _, attrs, _ in use.actuators:
            for attr, value in attrs.items():
              if attr in schema.ACTUATORS[child.tag]:
                values[attr] = _merge(child.tag, attr, values.get(attr), value)
        else:
          values = use.values.get(tag, {})
        merged = dict(values)
        for attr, value in child.attrs.items():
          merged[attr] = _merge(tag, attr, merged.get(attr), value)
        for attr, value in list(merged.items()):
          partial = _PARTIAL_BASE.get(attr)
          if isinstance(partial, dict):
            partial = partial.get(tag)
          if partial is not None and isinstance(value, list) and len(value) < len(partial):
            merged[attr] = _merge(tag, attr, None, value)
        child.attrs = merged
    apply_defaults(child, classes, cls)


def _lookup_class(node, name, classes, attr):
  if name not in classes:
    fail(node, f"unknown default class '{name}'", attr)
  return classes[name]
