"""``mjgym bench`` (mjgym.bench): the table has every runner's row, --png writes a chart, bad input is one line.

No timing is asserted: only that each runner was measured and reported.
"""

import argparse
import contextlib
import io
import os
import re

import pytest

from mjgym import bench

QUICK = ["MjInvertedPendulum-v0", "--quick", "--worlds", "4", "--seconds", "0.05"]


def _args(argv):
  return bench.add_arguments(argparse.ArgumentParser(prog="mjgym bench")).parse_args(argv)


@pytest.fixture(scope="module")
def quick_run(tmp_path_factory):
  """One quick run with --png (the measurements are the slow part), its stdout/stderr and the PNG's path."""
  png = tmp_path_factory.mktemp("bench") / "bench.png"
  out, err = io.StringIO(), io.StringIO()
  with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
    code = bench.run(_args(QUICK + ["--png", str(png)]))
  return code, out.getvalue(), err.getvalue(), png


def test_quick_table_has_every_runner(quick_run):
  code, out, err, _ = quick_run
  assert code == 0
  cpus = bench.clamp_threads(len(os.sched_getaffinity(0)))
  threads = sorted({1, cpus})
  expected = [("MjInvertedPendulum-v0", "mjgym single env", 1)]
  expected += [("MjInvertedPendulum-v0", f"mjgym vector {t} thr", 4) for t in threads]
  expected += [("InvertedPendulum-v5", "Gymnasium Sync", 4), ("InvertedPendulum-v5", "Gymnasium Async", 4)]
  if bench.envpool_available():
    expected += [("InvertedPendulum-v5", f"EnvPool {t} thr", 4) for t in sorted({min(t, 4) for t in threads})]
  assert "| env | runner | worlds | env-steps/s | vs Gymnasium Sync |" in out
  rows = {}
  for line in out.splitlines()[2:]:
    cells = [c.strip() for c in line.strip("|").split("|")]
    rows[(cells[0], cells[1], int(cells[2]))] = cells[3:]
  assert set(rows) == set(expected), out
  for key, (rate, ratio) in rows.items():
    assert float(rate.replace(",", "")) > 0, key
    assert re.fullmatch(r"\d+\.\d\dx", ratio), (key, ratio)
  assert rows[("InvertedPendulum-v5", "Gymnasium Sync", 4)][1] == "1.00x"
  # a progress line per measurement, on stderr
  assert sum(" env-steps/s (" in line for line in err.splitlines()) == len(expected), err


def test_png_is_a_chart(quick_run):
  from matplotlib import image  # pylint: disable=import-outside-toplevel
  code, _, _, png = quick_run
  assert code == 0 and png.stat().st_size > 0
  pixels = image.imread(png)
  assert pixels.ndim == 3 and pixels.shape[0] > 100 and pixels.shape[1] > 100
  assert pixels[..., :3].std() > 0.01  # not a blank canvas


@pytest.mark.parametrize("argv, message", [
    (["NoSuchEnv-v0"], "unknown env 'NoSuchEnv-v0'"),
    (["hopper", "--worlds", "0"], "--worlds must be at least 1 (got 0)"),
    (["hopper", "--png", "/nonexistent-folder/x.png"], "cannot write --png '/nonexistent-folder/x.png'"),
])
def test_bad_input_is_one_line(argv, message, capsys):
  with pytest.raises(SystemExit) as exc:
    bench.run(_args(argv))
  text = str(exc.value)
  assert exc.value.code == 2
  assert text.startswith("mjgym bench: ") and message in text and "\n" not in text
  captured = capsys.readouterr()
  assert captured.out == ""  # failed before measuring anything
  assert captured.err == text + "\n"  # the one line the user sees


def test_unwritable_png(tmp_path):
  folder = tmp_path / "ro"
  folder.mkdir()
  folder.chmod(0o500)
  try:
    # root ignores the folder's permissions: then a file /proc refuses to create
    path = folder / "x.png" if not os.access(folder, os.W_OK) else "/proc/mjgym-bench-test.png"
    with pytest.raises(SystemExit, match=r"^mjgym bench: cannot write --png .+: \w") as exc:
      bench.run(_args(["hopper", "--png", str(path)]))
    assert exc.value.code == 2 and not os.path.exists(path)
  finally:
    folder.chmod(0o700)


def test_env_names_resolve():
  assert bench.resolve_env("hopper") == "MjHopper-v0"
  assert bench.resolve_env("MjHumanoid-v0") == "MjHumanoid-v0"
  assert bench.resolve_env("half_cheetah") == "MjHalfCheetah-v0"
  assert bench.resolve_env("InvertedDoublePendulum-v5") == "MjInvertedDoublePendulum-v0"
  assert bench.resolve_env("cartpoleswingup") == "MjCartpoleSwingup-v0"
  assert _args([]).envs == list(bench.DEFAULT_ENVS)


def test_own_task_has_mjgym_rows_only(capsys):
  assert bench.run(_args(["cartpole", "--worlds", "4", "--seconds", "0.05", "--threads", "1"])) == 0
  captured = capsys.readouterr()
  assert captured.out.splitlines()[2:] == [
      line for line in captured.out.splitlines()[2:] if line.startswith("| MjCartpole-v0 | mjgym ")]
  assert len(captured.out.splitlines()) == 4 and captured.out.count("| – |") == 2
  assert "no Gymnasium counterpart" in captured.err


def test_dmc_names_resolve():
  """Suite ids, and their short names: "dmc" stays in them, since "cartpole-swingup" is mjgym's own task."""
  assert bench.resolve_env("MjDMC/cheetah-run-v0") == "MjDMC/cheetah-run-v0"
  assert bench.resolve_env("dmc/cheetah-run") == "MjDMC/cheetah-run-v0"
  assert bench.resolve_env("dmc-point_mass-easy") == "MjDMC/point_mass-easy-v0"
  assert bench.resolve_env("cartpole-swingup") == "MjCartpoleSwingup-v0"


def test_dmc_task_has_mjgym_rows(capsys):
  assert bench.run(_args(["dmc/cheetah-run", "--worlds", "2", "--seconds", "0.05", "--threads", "1"])) == 0
  captured = capsys.readouterr()
  rows = captured.out.splitlines()[2:]
  assert [r.split("|")[2].strip() for r in rows] == ["mjgym single env", "mjgym vector 1 thr"], captured.out
  assert all(r.startswith("| MjDMC/cheetah-run-v0 | ") for r in rows)
  assert "MjDMC/cheetah-run-v0: no Gymnasium counterpart" in captured.err
