"""Loading big meshes: seconds and peak memory of compiling a model with one generated mesh, beside MuJoCo.

The mesh is a UV sphere written as a binary STL (every vertex on the convex hull, the costliest case for a hull and
its polygons), from 10k to 200k triangles (MuJoCo's STL limit). Each load runs in a fresh process, so the peak
resident memory is that load's (plus the interpreter and the engine's imports, shown by the smallest row). No
asserts: timings are for reading.

  python benchmarks/bench_mesh_load.py [--faces 10000 50000 100000 200000]
"""

import argparse
import json
import resource
import subprocess
import sys
import time


def uv_sphere_stl(faces):
  """(binary STL bytes, triangles) of a UV sphere of about ``faces`` triangles (4n(n - 1)), every vertex on the hull."""
  import struct  # pylint: disable=import-outside-toplevel
  import numpy as np  # pylint: disable=import-outside-toplevel
  n = max(2, int(round((1 + (1 + faces) ** 0.5) / 2)))  # 4n(n - 1) triangles
  theta, phi = np.meshgrid(np.linspace(0, np.pi, n + 1), np.linspace(0, 2 * np.pi, 2 * n + 1), indexing="ij")
  p = np.stack([np.sin(theta) * np.cos(phi), np.sin(theta) * np.sin(phi), np.cos(theta)], axis=-1)
  a, b, c, d = p[:-1, :-1], p[1:, :-1], p[1:, 1:], p[:-1, 1:]
  tris = np.concatenate([np.stack([a, b, d], axis=2)[1:].reshape(-1, 3, 3),
                         np.stack([b, c, d], axis=2)[:-1].reshape(-1, 3, 3)])
  rec = np.zeros(len(tris), dtype=[("normal", "<f4", (3,)), ("vert", "<f4", (3, 3)), ("attr", "<u2")])
  rec["vert"] = tris
  return b"\0" * 80 + struct.pack("<I", len(tris)) + rec.tobytes(), len(tris)


_XML = """<mujoco><asset><mesh name="s" file="s.stl"/></asset>
  <worldbody><body><freejoint/><geom type="mesh" mesh="s"/></body></worldbody></mujoco>"""


def _worker(engine, faces):
  data, nface = uv_sphere_stl(faces)
  if engine == "mujoco":
    import mujoco as lib  # pylint: disable=import-outside-toplevel
  else:
    from mjgym import physics as lib  # pylint: disable=import-outside-toplevel
  t0 = time.perf_counter()
  model = lib.MjModel.from_xml_string(_XML, {"s.stl": data})
  seconds = time.perf_counter() - t0
  return {"faces": nface, "seconds": seconds, "polygons": int(model.nmeshpoly),
          "peak_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}


def main():
  parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
  parser.add_argument("--faces", type=int, nargs="+", default=[10000, 50000, 100000, 200000])
  parser.add_argument("--worker", nargs=2, help=argparse.SUPPRESS)
  args = parser.parse_args()
  if args.worker:
    print(json.dumps(_worker(args.worker[0], int(args.worker[1]))))
    return
  print("| triangles | MuJoCo s | mjgym s | ratio | MuJoCo peak MiB | mjgym peak MiB | polygons (both) |")
  print("|---|---|---|---|---|---|---|")
  for faces in args.faces:
    row = {}
    for engine in ("mujoco", "mjgym"):
      print(f"  {engine}, {faces} triangles ...", file=sys.stderr, flush=True)
      out = subprocess.run([sys.executable, __file__, "--worker", engine, str(faces)], check=True,
                           capture_output=True, text=True)
      row[engine] = json.loads(out.stdout.strip().splitlines()[-1])
    mj, us = row["mujoco"], row["mjgym"]
    polys = str(mj["polygons"]) if mj["polygons"] == us["polygons"] else f"{mj['polygons']} / {us['polygons']}"
    print(f"| {mj['faces']} | {mj['seconds']:.2f} | {us['seconds']:.2f} | {us['seconds'] / mj['seconds']:.1f} | "
          f"{mj['peak_mib']:.0f} | {us['peak_mib']:.0f} | {polys} |", flush=True)


if __name__ == "__main__":
  main()
