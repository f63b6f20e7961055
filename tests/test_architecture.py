"""The layers of docs/architecture.md, checked on the import graph of mjgym/ (every import, function-level too)."""

import ast
import fnmatch
import pathlib
import re

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "mjgym"
DOC = ROOT / "docs" / "architecture.md"
# what an environment may import from the engine: the bindings' names and batched Data
PUBLIC_ENGINE = {"mjgym.physics", "mjgym.physics.batch"}


def module_files():
  """{dotted module name: path} of every Python file in mjgym/ (a package by its own name)."""
  found = {}
  for path in sorted(PACKAGE.rglob("*.py")):
    parts = path.relative_to(ROOT).with_suffix("").parts
    if parts[-1] == "__init__":
      parts = parts[:-1]
    found[".".join(parts)] = path
  return found


def imports_of(path, name, modules):
  """The mjgym modules that the file at ``path`` (module ``name``) imports, anywhere in the file."""
  package = name if path.name == "__init__.py" else name.rpartition(".")[0]
  found = set()
  for node in ast.walk(ast.parse(path.read_text(), str(path))):
    if isinstance(node, ast.Import):
      targets = [alias.name for alias in node.names]
    elif isinstance(node, ast.ImportFrom):
      base = node.module or ""
      if node.level:
        anchor = package.split(".")[:len(package.split(".")) - node.level + 1]
        base = ".".join(anchor + ([base] if base else []))
      # ``from package import name`` imports the submodule where there is one, else the package itself
      targets = [f"{base}.{alias.name}" if f"{base}.{alias.name}" in modules else base for alias in node.names]
    else:
      continue
    for target in targets:
      while target and target not in modules:  # ``import a.b.c`` of a module a.b.c, or a name inside one
        target = target.rpartition(".")[0]
      if target and target != name:
        found.add(target)
  return found


def import_graph():
  modules = module_files()
  return {name: imports_of(path, name, modules) for name, path in modules.items()}


def layer_table():
  """[(layer number, layer name, [module patterns])] from the table in docs/architecture.md."""
  text = DOC.read_text()
  body = text[text.index("<!-- layers:"):text.index("<!-- end of layers -->")]
  rows = []
  for line in body.splitlines():
    match = re.match(r"\|\s*(\d+)\s+([^|]+?)\s*\|([^|]*)\|", line)
    if match:
      rows.append((int(match.group(1)), match.group(2), re.findall(r"`([^`]+)`", match.group(3))))
  return rows


def layer_of(name, table):
  """(layer number, layer name) of module ``name``: its exact row, else the row of a pattern that matches it."""
  for number, layer, patterns in table:
    if name in patterns:
      return number, layer
  for number, layer, patterns in table:
    if any("*" in p and fnmatch.fnmatchcase(name, p) for p in patterns):
      return number, layer
  return None


def strongly_connected(graph):
  """The import circles of ``graph``: its strongly connected components with more than one module (Tarjan)."""
  index, low, stack, on_stack, circles = {}, {}, [], set(), []

  def visit(v):
    index[v] = low[v] = len(index)
    stack.append(v)
    on_stack.add(v)
    for w in sorted(graph.get(v, ())):
      if w not in index:
        visit(w)
        low[v] = min(low[v], low[w])
      elif w in on_stack:
        low[v] = min(low[v], index[w])
    if low[v] == index[v]:
      component = []
      while True:
        w = stack.pop()
        on_stack.discard(w)
        component.append(w)
        if w == v:
          break
      if len(component) > 1:
        circles.append(sorted(component))

  for v in sorted(graph):
    if v not in index:
      visit(v)
  return circles


GRAPH = import_graph()
TABLE = layer_table()


def test_the_table_has_every_layer_in_order():
  assert [number for number, _, _ in TABLE] == list(range(len(TABLE)))
  assert [layer for _, layer, _ in TABLE][:3] == ["base", "stages", "forward"]


def test_every_module_has_a_layer():
  unplaced = sorted(name for name in GRAPH if layer_of(name, TABLE) is None)
  assert not unplaced, f"modules without a row in docs/architecture.md: {unplaced}"


def test_every_module_the_table_names_exists():
  named = [p for _, _, patterns in TABLE for p in patterns if "*" not in p]
  assert len(named) == len(set(named)), "a module is named in two rows"
  missing = sorted(p for p in named if p not in GRAPH)
  assert not missing, f"docs/architecture.md names modules that do not exist: {missing}"


def test_no_import_runs_up_a_layer():
  upward = []
  for name, targets in GRAPH.items():
    here = layer_of(name, TABLE)
    for target in sorted(targets):
      there = layer_of(target, TABLE)
      if here and there and there[0] > here[0]:
        upward.append(f"{name} ({here[1]}) imports {target} ({there[1]})")
  assert not upward, "\n".join(upward)


def test_no_import_circle():
  assert strongly_connected(GRAPH) == []


@pytest.mark.parametrize("env", sorted(n for n in GRAPH if layer_of(n, TABLE) and layer_of(n, TABLE)[1] == "envs"))
def test_environments_use_only_the_public_engine_api(env):
  engine = {t for t in GRAPH[env] if t == "mjgym.physics" or t.startswith("mjgym.physics.")}
  assert engine <= PUBLIC_ENGINE, f"{env} imports {sorted(engine - PUBLIC_ENGINE)}"


# The checks above would pass on an empty graph; these make sure the reader sees real imports and circles.


def test_the_reader_sees_function_level_and_package_imports():
  assert "mjgym.physics.forward" in GRAPH["mjgym.physics.containers"]
  assert "mjgym.physics.collision.driver" in GRAPH["mjgym.physics.forward"]
  assert "mjgym.physics.mjcf.parser" in GRAPH["mjgym.physics.mjcf"]  # imported inside its functions
  assert "mjgym.physics" in GRAPH["mjgym.envs.base"]


def test_the_circle_finder_finds_circles():
  graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}, "e": set()}
  assert strongly_connected(graph) == [["a", "b", "c"]]


def test_a_relative_import_resolves_to_its_module(tmp_path):
  pkg = tmp_path / "mjgym" / "physics"
  pkg.mkdir(parents=True)
  (pkg / "stage.py").write_text("from . import base\nfrom .base import thing\n")
  modules = {"mjgym.physics", "mjgym.physics.base", "mjgym.physics.stage"}
  assert imports_of(pkg / "stage.py", "mjgym.physics.stage", modules) == {"mjgym.physics.base"}
