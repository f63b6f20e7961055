"""Which MJCF models of the installed model collections load in mjgym as in MuJoCo (a report, not a test).

    python tests/collections_report.py [--timeout 120] [--verbose] [COLLECTION_OR_DIR ...]

Collections are installed packages that ship MJCF files: ``gymnasium_robotics``, ``dm_control`` (and
``mujoco_menagerie``: the robots in its download cache, or the checkout ``MENAGERIE_ROOT`` names), or any
directory given on the command line. Every
``*.xml`` under them is loaded by MuJoCo first; a file MuJoCo does not load on its own (an include fragment, a
template) is skipped. The rest are loaded by mjgym and counted:

- PASS: loads, with MuJoCo's sizes (nq, nv, nu, nbody, ...) and, within 1e-6, its qpos0, body positions and
  masses, joint ranges, damping, actuator gains and biases, geom sizes and texture bytes (``FIELDS``);
- DIFF: loads with another size or field (the first that differs is printed);
- FAIL: mjgym raises (the first line of its error is printed) or runs past the time limit.

Each model loads in a worker process, so that a hang or a crash costs one model.
"""

import argparse
import collections
import concurrent.futures
import importlib.util
import pathlib
import sys

import numpy as np

SIZES = ("nq", "nv", "nu", "nbody", "njnt", "ngeom", "nsite", "nmesh", "ntex", "nsensordata")
# compiled quantities compared too (rtol 1e-6): the tree's reference pose, masses, joint and actuator parameters
FIELDS = ("qpos0", "body_pos", "body_mass", "jnt_range", "dof_damping", "actuator_gainprm", "actuator_biasprm",
          "geom_size", "tex_data")
PACKAGES = ("gymnasium_robotics", "dm_control", "mujoco_menagerie")


def _package_dirs(name):
  """Directories holding the MJCF files of an installed collection (none if it is not installed)."""
  spec = importlib.util.find_spec(name)
  if spec is None or not spec.submodule_search_locations:
    return []
  if name == "mujoco_menagerie":
    # the robots it has downloaded, or the checkout MENAGERIE_ROOT points at
    import mujoco_menagerie  # pylint: disable=import-outside-toplevel
    cache = mujoco_menagerie.Cache()
    base = cache.root or cache.dir / "models"
    return [base] if base.is_dir() else []
  return [pathlib.Path(p) for p in spec.submodule_search_locations]


def _load(path):
  """('skip' | 'pass' | 'diff' | 'fail', detail) of one file, in the worker."""
  import warnings  # pylint: disable=import-outside-toplevel
  import mujoco  # pylint: disable=import-outside-toplevel
  from mjgym import physics  # pylint: disable=import-outside-toplevel
  try:
    ref = mujoco.MjModel.from_xml_path(path)
  except Exception as e:  # pylint: disable=broad-except
    return "skip", str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
  try:
    with warnings.catch_warnings():
      warnings.simplefilter("ignore")
      ours = physics.MjModel.from_xml_path(path)
  except Exception as e:  # pylint: disable=broad-except
    return "fail", f"{type(e).__name__}: {str(e).strip().splitlines()[0] if str(e).strip() else ''}"
  for size in SIZES:
    if getattr(ours, size) != getattr(ref, size):
      return "diff", f"{size}: mjgym {getattr(ours, size)}, MuJoCo {getattr(ref, size)}"
  for field in FIELDS:
    mine, theirs = np.asarray(getattr(ours, field), float), np.asarray(getattr(ref, field), float)
    if not np.allclose(mine, theirs, rtol=1e-6, atol=1e-9):
      return "diff", f"{field}: largest difference {np.max(np.abs(mine - theirs)):.3g}"
  return "pass", ""


def _collections(args):
  found = {}
  for name in args or PACKAGES:
    path = pathlib.Path(name)
    dirs = [path] if path.is_dir() else _package_dirs(name)
    files = sorted({f for d in dirs for f in d.rglob("*.xml")})
    if files:
      found[name] = (dirs[0], files)
    else:
      print(f"{name}: not installed or no MJCF files", file=sys.stderr)
  return found


def main(argv=None):
  parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
  parser.add_argument("collections", nargs="*")
  parser.add_argument("--timeout", type=float, default=120.0, help="seconds one model may take")
  parser.add_argument("--verbose", action="store_true", help="also list the skipped files and why")
  args = parser.parse_args(argv)
  totals = collections.Counter()
  pool = concurrent.futures.ProcessPoolExecutor(max_workers=1)
  try:
    for name, (root, files) in _collections(args.collections).items():
      counts = collections.Counter()
      for path in files:
        future = pool.submit(_load, str(path))
        try:
          status, detail = future.result(timeout=args.timeout)
        except concurrent.futures.TimeoutError:
          status, detail = "fail", f"took more than {args.timeout:g} s"
          for process in pool._processes.values():  # pylint: disable=protected-access
            process.kill()
          pool.shutdown(wait=False, cancel_futures=True)
          pool = concurrent.futures.ProcessPoolExecutor(max_workers=1)
        except concurrent.futures.process.BrokenProcessPool:
          status, detail = "fail", "the worker process died"
          pool = concurrent.futures.ProcessPoolExecutor(max_workers=1)
        counts[status] += 1
        if status != "skip" or args.verbose:
          print(f"{status.upper():4s} {name}/{path.relative_to(root)}" + (f"  {detail}" if detail else ""),
                flush=True)
      loadable = counts["pass"] + counts["diff"] + counts["fail"]
      print(f"== {name}: {counts['pass']} pass, {counts['diff']} diff, {counts['fail']} fail of {loadable} models "
            f"MuJoCo loads ({counts['skip']} other files skipped)", flush=True)
      totals.update(counts)
  finally:
    pool.shutdown(wait=False, cancel_futures=True)
  loadable = totals["pass"] + totals["diff"] + totals["fail"]
  print(f"== all: {totals['pass']} pass, {totals['diff']} diff, {totals['fail']} fail of {loadable} models")


if __name__ == "__main__":
  main()
