"""The generated files agree with the field tables, and every field says what it is."""

import pathlib
import subprocess
import sys

import pytest

from mjgym.physics import types

ROOT = pathlib.Path(__file__).resolve().parent.parent
GENERATED = (pathlib.Path("mjgym", "physics", "_structs.py"), pathlib.Path("docs", "fields.md"))


def test_generated_files_are_up_to_date(tmp_path):
  subprocess.run([sys.executable, str(ROOT / "tools" / "gen_structs.py"), "--out", str(tmp_path)], check=True,
                 capture_output=True)
  for rel in GENERATED:
    assert (tmp_path / rel).read_bytes() == (ROOT / rel).read_bytes(), (
        f"{rel} is out of date with the field tables in types.py: run python tools/gen_structs.py")


@pytest.mark.parametrize("table", [types.MODEL_TABLE, types.DATA_TABLE], ids=["model", "data"])
def test_every_field_has_a_meaning_and_a_section(table):
  assert [f.name for f in table if not f.meaning] == []
  assert [f.name for f in table if not f.section] == []


@pytest.mark.parametrize("table", [types.MODEL_TABLE, types.DATA_TABLE], ids=["model", "data"])
def test_field_names_are_unique(table):
  names = [f.name for f in table]
  assert len(names) == len(set(names))


def test_a_row_without_meaning_parses_with_an_empty_one():
  fields = types.parse_fields("# Bodies\nbody_mass float nbody\nbody_pos float nbody 3 | position (m)\n")
  assert fields == [types.Field("body_mass", "float", ("nbody",), "", "Bodies"),
                    types.Field("body_pos", "float", ("nbody", 3), "position (m)", "Bodies")]
