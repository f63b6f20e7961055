"""``mjgym compile``: compile the engine ahead of time, in parallel, into mjgym's cache.

For Dockerfiles, cluster images and CI: after ``mjgym compile`` every process on the machine (or every container
of the image, with the cache directory baked in; see ``MJGYM_CACHE_DIR``) starts from the cache in about a second.

The work is split into targets, each compiled by its own process so that several cores work at once:

  single      the one-world pipeline with the closed-form colliders (``forward.run``): mj_step, single envs
  single-ccd  the same with every collider (``forward.run_ccd``): meshes, height fields, ellipsoids, cylinders
  batch       the world-parallel pipeline (``batch.run_batch``): vector envs, MjDataBatch
  batch-ccd   the world-parallel pipeline with every collider
  envs        each registered env's own kernels (reward, reset noise, bookkeeping), single and vector
  render      the headless renderer (only on request: it compiles on the first render otherwise)

Targets share many kernels; a target that finds a kernel already cached loads it, and two processes compiling the
same kernel at once both write the same result. The parent shows one progress bar over the kernels of all targets.
"""

import os
import queue
import subprocess
import sys
import tempfile
import threading
import time

from mjgym.physics import _jit
from mjgym.physics import _parallel

TARGETS = ("single", "single-ccd", "batch", "batch-ccd", "envs", "render")
DEFAULT_TARGETS = ("single", "single-ccd", "batch", "batch-ccd", "envs")

# A model of every closed-form collider pair and one that needs GJK/EPA: each tier's pipeline compiles whatever
# the model, so these only have to select the tier.
_CLOSED_XML = """<mujoco><worldbody><geom type="plane" size="1 1 .1"/>
<body pos="0 0 .2"><freejoint/><geom type="sphere" size=".1"/></body></worldbody>
<actuator/><sensor><framepos objtype="body" objname="world"/></sensor></mujoco>"""
_CCD_XML = """<mujoco><worldbody><geom type="plane" size="1 1 .1"/>
<body pos="0 0 .2"><freejoint/><geom type="cylinder" size=".1 .1"/></body>
<body pos=".3 0 .2"><freejoint/><geom type="ellipsoid" size=".1 .1 .2"/></body></worldbody></mujoco>"""


def _entries(target):
  """The kernels a target compiles, as dispatchers (for the progress bar's total)."""
  from mjgym.physics import batch, forward  # pylint: disable=import-outside-toplevel
  if target.startswith("stages"):
    return []
  if target == "single":
    return [forward.run] + [_jit.dispatcher_of(kernel) for kernel, _ in forward.lazy_kernels()]
  if target == "single-ccd":
    return [forward.run_ccd, _jit.dispatcher_of(forward.rungekutta4)]
  if target == "batch":
    return [batch.run_batch]
  if target == "batch-ccd":
    return [batch.run_batch_ccd]
  if target == "render":
    from mjgym.physics.render import kernels  # pylint: disable=import-outside-toplevel
    return [v for v in vars(kernels).values() if hasattr(v, "py_func")]
  import importlib  # pylint: disable=import-outside-toplevel
  from mjgym import envs  # pylint: disable=import-outside-toplevel
  from mjgym.envs import base  # pylint: disable=import-outside-toplevel
  found = [v for v in vars(base).values() if hasattr(v, "py_func")]
  for _, entry, _ in envs.ENVS:
    module = importlib.import_module(entry.split(":")[0])
    found += [v for v in vars(module).values() if hasattr(v, "py_func") and v.py_func.__module__ == module.__name__]
  return found


def compile_target(target):
  """Compiles one target in this process (a worker's job)."""
  from mjgym import physics  # pylint: disable=import-outside-toplevel
  from mjgym.physics import batch  # pylint: disable=import-outside-toplevel
  if target.startswith("stages"):
    _, ccd, part, nparts = target.split(":")
    if part == "0":  # the Model and Data constructors, which every later worker would otherwise compile
      from mjgym.physics import containers  # pylint: disable=import-outside-toplevel
      m = physics.MjModel.from_fields({})  # an empty model: no set_const, so no pipeline compiles here
      physics.MjData.over_arrays(m, containers.allocate_data_arrays(m))
    _parallel.compile_stages(bool(int(ccd)), int(part), int(nparts), first=_parallel.STRUCTS_SECONDS)
  elif target in ("single", "single-ccd", "batch", "batch-ccd"):
    m = physics.MjModel.from_xml_string(_CCD_XML if target.endswith("ccd") else _CLOSED_XML)
    if target.startswith("single"):
      d = physics.MjData(m)
      physics.mj_step(m, d)
      # the kernels compiled only for models that need them (implicit integrators, PGS, tendons, ...): all of them
      from mjgym.physics import forward  # pylint: disable=import-outside-toplevel
      for kernel, argtypes in forward.lazy_kernels(m.needs_ccd):
        _jit.prepare(kernel, argtypes)
    else:
      batch.MjDataBatch(m, 2).step()
  elif target == "envs":
    import gymnasium as gym  # pylint: disable=import-outside-toplevel
    import mjgym  # pylint: disable=import-outside-toplevel
    for env_id, _, _ in mjgym.envs.ENVS:
      env = gym.make(env_id)
      env.reset(seed=0)
      env.step(env.action_space.sample())
      vec = gym.make_vec(env_id, num_envs=2, vectorization_mode="vector_entry_point")
      vec.reset(seed=0)
      vec.step(vec.action_space.sample())
  elif target == "render":
    m = physics.MjModel.from_xml_string(_CLOSED_XML)
    d = physics.MjData(m)
    physics.mj_forward(m, d)
    renderer = physics.Renderer(m, 16, 16)
    renderer.update_scene(d)
    renderer.render()
    renderer.enable_depth_rendering()
    renderer.render()
    renderer.close()
  else:
    raise ValueError(f"unknown target {target!r}; the targets are {', '.join(TARGETS)}")


class _Bar:
  """One progress line: kernels done of the total, targets done, seconds; rewritten in place on a terminal."""

  def __init__(self, total, ntargets, stream=sys.stderr):
    self.total, self.ntargets, self.stream = max(total, 1), ntargets, stream
    self.done, self.targets_done = set(), 0
    self.start = time.perf_counter()
    self._tty = hasattr(stream, "isatty") and stream.isatty()
    self._last = -1

  def show(self, final=False):
    n = min(len(self.done), self.total)
    frac = n / self.total
    width = 30
    bar = "#" * int(frac * width) + "." * (width - int(frac * width))
    line = (f"mjgym compile [{bar}] {n}/{self.total} kernels, {self.targets_done}/{self.ntargets} targets, "
            f"{time.perf_counter() - self.start:.0f} s")
    if self._tty:
      self.stream.write("\r\033[K" + line + ("\n" if final else ""))
    elif final or int(frac * 10) > self._last:
      self._last = int(frac * 10)
      self.stream.write(line + "\n")
    self.stream.flush()


def plan(targets, jobs):
  """The worker jobs of a compile as (job, jobs it waits for), in the order they start: the stage kernels shared
  out among ``jobs`` processes; the single-world entry points once those are cached; then what calls them (batch
  entry points after their single-world entry, env kernels after the one-world and batch entries, whose kernels
  they share). A job waits only for jobs in the plan."""
  pipelines = [t for t in ("single", "single-ccd") if t in targets or f"batch{t[6:]}" in targets]
  stages = []
  if pipelines and not _jit.is_plain():  # on plain numba the stages are linked into the entry points, not called
    ccd = int("single-ccd" in pipelines)
    stages = [f"stages:{ccd}:{i}:{jobs}" for i in range(jobs)]
  waits = {"single": stages, "single-ccd": stages, "batch": ["single"], "batch-ccd": ["single-ccd"],
           "envs": ["single", "batch"], "render": []}
  names = stages + pipelines + [t for t in targets if t not in pipelines]
  return [(t, [w for w in waits.get(t, []) if w in names]) for t in names]


def run(targets=DEFAULT_TARGETS, jobs=None, stream=sys.stderr):
  """Compiles ``targets`` with ``jobs`` worker processes (default: the usable cores); returns the seconds taken.

  Raises RuntimeError naming the target whose worker failed.
  """
  targets = list(dict.fromkeys(targets))
  unknown = [t for t in targets if t not in TARGETS]
  if unknown:
    raise ValueError(f"unknown target(s) {', '.join(unknown)}; the targets are {', '.join(TARGETS)}")
  jobs = max(1, jobs or _parallel.cpu_count())
  jobs_plan = plan(targets, jobs)
  todo = set()
  for target in targets:
    for entry in _entries(target):
      todo.update(_jit.uncached(_jit.reachable(entry)))
  names = {f"{d.py_func.__module__}.{d.py_func.__qualname__}" for d in todo}
  stream.write(f"mjgym compile: {', '.join(targets)} on {jobs} processes into {_jit.cache_description()}\n")
  bar = _Bar(len(names), len(jobs_plan), stream)
  # Workers are the parallelism here: none of them starts a compile helper of its own.
  env = dict(os.environ, MJGYM_COMPILE_PROGRESS="0", MJGYM_COMPILE_HELPER="1", PYTHONUNBUFFERED="1")
  finished = queue.Queue()

  def watch(target, proc, err):
    for line in proc.stdout:
      if line.startswith("compiled "):
        finished.put(("kernel", line.split(" ", 1)[1].strip()))
    proc.wait()
    err.seek(0)
    finished.put(("target", (target, proc.returncode, err.read())))
    err.close()

  failed, done, running, procs = [], set(), 0, []
  pending = list(jobs_plan)
  while (pending or running) and not failed:
    ready = [job for job in pending if all(w in done for w in job[1])]
    while ready and running < jobs:
      target = ready.pop(0)[0]
      pending = [job for job in pending if job[0] != target]
      # stderr to a file: a worker writing much to a pipe nobody reads until it ends would block
      err = tempfile.TemporaryFile("w+")  # pylint: disable=consider-using-with
      proc = subprocess.Popen([sys.executable, "-m", "mjgym.prewarm", target], env=env,
                              stdout=subprocess.PIPE, stderr=err, text=True)
      procs.append(proc)
      threading.Thread(target=watch, args=(target, proc, err), daemon=True).start()
      running += 1
    try:
      kind, value = finished.get(timeout=0.5)
    except queue.Empty:
      bar.show()
      continue
    if kind == "kernel":
      bar.done.add(value)
    else:
      target, code, err = value
      running -= 1
      done.add(target)
      bar.targets_done += 1
      if code != 0:
        failed.append((target, (err.strip().splitlines() or ["(no message)"])[-1]))
    bar.show()
  if not failed:
    bar.done.update(names)  # kernels the workers loaded from the cache, or that were inlined
  bar.show(final=True)
  seconds = time.perf_counter() - bar.start
  if failed:
    for proc in procs:  # the other workers' results are not wanted
      if proc.poll() is None:
        proc.terminate()
    raise RuntimeError("; ".join(f"target {t} failed: {msg}" for t, msg in failed))
  stream.write(f"mjgym compile: done in {seconds:.0f} s; cache at {_jit.cache_description()}\n")
  return seconds


def _worker(target):
  """Compiles ``target``, printing "compiled NAME" for every kernel numba finishes."""
  from numba.core import event  # pylint: disable=import-outside-toplevel

  class _Printer(event.Listener):

    def on_start(self, ev):
      pass

    def on_end(self, ev):
      disp = ev.data["dispatcher"]
      print(f"compiled {disp.py_func.__module__}.{disp.py_func.__qualname__}", flush=True)

  event.register("numba:compile", _Printer())
  compile_target(target)


if __name__ == "__main__":
  _worker(sys.argv[1])
