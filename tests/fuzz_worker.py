"""A child process that loads (and steps) models for the fuzzer, so that a hang or a crash is one case's result.

The parent side is ``Worker``: ``Worker("mjgym").run(path, steps, timeout)`` returns a dict with ``status``:
  ``reject``     the loader raised its error type (MJCFError for mjgym, ValueError for mujoco)
  ``ok``         it loaded and (for mjgym) stepped ``steps`` times with finite state, or non-finite state that
                 a warning in ``d.warning`` accounts for
  ``crash``      the loader raised anything else (``error`` holds type and message)
  ``step_crash`` ``mj_step`` raised (``error`` holds type, message and the innermost frame)
  ``nonfinite``  qpos, qvel or sensordata went non-finite and no warning was counted
  ``timeout``    the case ran past its time (the child is killed and restarted)
  ``died``       the child exited (segfault, out of memory)
Run as a script it is the child: one JSON request per line on stdin, one JSON answer per line on stdout.
"""

import json
import os
import subprocess
import sys
import time
import traceback

_HERE = os.path.dirname(os.path.abspath(__file__))


class Worker:
  """One child process for one engine ('mjgym' or 'mujoco'), restarted after a timeout or a death."""

  def __init__(self, engine, warmup=(), warmup_timeout=900.0):
    self.engine, self.warmup, self.warmup_timeout = engine, list(warmup), warmup_timeout
    self.proc = None

  def _start(self):
    env = dict(os.environ)
    root = os.path.dirname(_HERE)
    env["PYTHONPATH"] = root + os.pathsep + env.get("PYTHONPATH", "")
    self.proc = subprocess.Popen([sys.executable, os.path.join(_HERE, "fuzz_worker.py"), self.engine],
                                 stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                 env=env, text=True, bufsize=1)
    # compiles (or loads from numba's cache) the loader's and the step's kernels before any case is timed
    for path in self.warmup:
      self._ask(dict(path=str(path), steps=2), self.warmup_timeout)
      if self.proc is None:
        raise RuntimeError(f"the {self.engine} worker did not warm up on {path}")

  def _ask(self, request, timeout):
    import select  # pylint: disable=import-outside-toplevel
    self.proc.stdin.write(json.dumps(request) + "\n")
    self.proc.stdin.flush()
    ready, _, _ = select.select([self.proc.stdout], [], [], timeout)
    if not ready:
      self.kill()
      return dict(status="timeout")
    line = self.proc.stdout.readline()
    if not line:
      self.kill()
      return dict(status="died")
    return json.loads(line)

  def run(self, path, steps=10, timeout=30.0):
    if self.proc is None or self.proc.poll() is not None:
      self._start()
    return self._ask(dict(path=str(path), steps=steps), timeout)

  def kill(self):
    if self.proc is not None:
      self.proc.kill()
      self.proc.wait()
      self.proc = None

  close = kill


def _frame(exc):
  tb = traceback.extract_tb(exc.__traceback__)
  if not tb:
    return ""
  f = tb[-1]
  return f"{os.path.basename(f.filename)}:{f.lineno} in {f.name}"


def _serve(engine):
  import numpy as np  # pylint: disable=import-outside-toplevel
  if engine == "mujoco":
    import mujoco as mj  # pylint: disable=import-outside-toplevel
    expected = ValueError
  else:
    from mjgym import physics as mj  # pylint: disable=import-outside-toplevel
    expected = mj.MJCFError
  out = sys.stdout
  sys.stdout = sys.stderr  # MuJoCo's warnings and stray prints must not reach the answer channel
  for line in sys.stdin:
    req = json.loads(line)
    t0 = time.perf_counter()
    try:
      m = mj.MjModel.from_xml_path(req["path"])
    except KeyboardInterrupt:
      raise
    except expected as e:
      answer = dict(status="reject", error=str(e).splitlines()[0] if str(e) else type(e).__name__)
    except BaseException as e:  # pylint: disable=broad-except
      answer = dict(status="crash", error=f"{type(e).__name__}: {e}"[:500], where=_frame(e))
    else:
      answer = dict(status="ok")
      if engine == "mjgym" and req["steps"]:
        answer.update(_step(mj, np, m, req["steps"]))
    answer["seconds"] = time.perf_counter() - t0
    out.write(json.dumps(answer) + "\n")
    out.flush()


def _step(mj, np, m, steps):
  try:
    d = mj.MjData(m)
    for _ in range(steps):
      mj.mj_step(m, d)
  except KeyboardInterrupt:
    raise
  except BaseException as e:  # pylint: disable=broad-except
    return dict(status="step_crash", error=f"{type(e).__name__}: {e}"[:500], where=_frame(e))
  finite = all(np.isfinite(a).all() for a in (d.qpos, d.qvel, d.sensordata))
  warned = int(np.sum(d.warning.number)) > 0
  if not finite and not warned:
    return dict(status="nonfinite")
  return dict(warned=warned)


if __name__ == "__main__":
  _serve(sys.argv[1])
