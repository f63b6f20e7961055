"""Says so when the engine compiles: one line with the kernels done of those to do, and where the cache lives.

numba compiles a kernel the first time it is called and keeps the machine code in mjgym's cache (``_jit``), so
a fresh machine pays a compile once and later processes load it in well under a second. That first wait must
never be silent: a listener on numba's compile events notices the first compile of an mjgym entry point, prints
what is happening and where the result goes, and counts the kernels compiled against those the entry point can
reach that have no cache yet. On a terminal the line is rewritten in place; elsewhere (logs, CI) a line is
written at every tenth of the way and at the end. ``MJGYM_COMPILE_PROGRESS=0`` silences it. The first compile
of a process also starts the compile helper (``_parallel.start_helper``), which takes half the work to another
core.
"""

import os
import sys
import threading
import time

from numba.core import event

from mjgym.physics import _jit


def _short(path):
  home = os.path.expanduser("~")
  path = str(path)
  return "~" + path[len(home):] if path.startswith(home + os.sep) else path


# Fewer kernels than this to compile is a moment's work, left unannounced.
_ANNOUNCE = 5
# Entry points that hold the whole pipeline: the engine is compiled when one of them is.
_PIPELINES = frozenset(["run", "run_ccd", "run_batch", "run_batch_ccd"])


class CompileReporter(event.Listener):
  """Prints the progress of mjgym's compiles (see the module docstring)."""

  def __init__(self, stream=None):
    self.stream = stream
    self._lock = threading.Lock()
    self._depth = 0
    self._reset()

  def _reset(self):
    self._todo = set()
    self._done = set()
    self._start = None
    self._last_tenth = -1
    self._checked = 0.0
    self._helper = False

  def _out(self):
    return self.stream if self.stream is not None else sys.stderr

  def _tty(self):
    out = self._out()
    return hasattr(out, "isatty") and out.isatty()

  def _write(self, text, final=False):
    if os.environ.get("MJGYM_COMPILE_PROGRESS", "1") == "0":
      return
    out = self._out()
    if self._tty():
      out.write("\r\033[K" + text + ("\n" if final else ""))
    else:
      out.write(text + "\n")
    out.flush()

  def _seconds(self):
    return time.perf_counter() - self._start

  def _line(self):
    # kernels another process (the helper) has cached since count as done
    now = time.perf_counter()
    if now - self._checked > 1.0:
      self._checked = now
      cached = self._todo - set(_jit.uncached(self._todo))
      self._done |= cached
      self._todo -= cached
    total = max(len(self._todo | self._done), 1)
    helper = " with a helper process" if self._helper else ""
    return (f"mjgym: compiling the engine for this machine{helper}, once (cache: {_short(_jit.cache_description())}): "
            f"{len(self._done)}/{total} kernels, {self._seconds():.0f} s")

  def on_start(self, ev):
    disp = ev.data["dispatcher"]
    if not disp.py_func.__module__.startswith("mjgym."):
      return
    with self._lock:
      self._depth += 1
      if self._depth > 1:
        return
      # A new entry point: what it can reach without a cache joins the work to do (the single-world pipeline
      # too, which the first step of any model compiles).
      roots = [disp]
      forward = sys.modules.get("mjgym.physics.forward")
      if self._start is None and forward is not None and disp.py_func.__module__.startswith("mjgym.physics"):
        roots.append(forward.run)
      for root in roots:
        self._todo.update(_jit.uncached(_jit.reachable(root)))
      self._todo.add(disp)
      if self._start is None and len(self._todo) >= _ANNOUNCE:
        self._start = time.perf_counter()
        self._last_tenth = 0
        if disp.py_func.__module__.startswith("mjgym.physics"):
          from mjgym.physics import _parallel  # pylint: disable=import-outside-toplevel
          self._helper = _parallel.start_helper()
        self._write(self._line())

  def on_end(self, ev):
    disp = ev.data["dispatcher"]
    if not disp.py_func.__module__.startswith("mjgym."):
      return
    with self._lock:
      self._depth -= 1
      self._done.add(disp)
      self._todo.discard(disp)
      if self._start is None:
        if self._depth == 0:
          self._reset()
        return
      if self._depth == 0 and (not self._todo or disp.py_func.__name__ in _PIPELINES):
        self._write(f"mjgym: compiled {len(self._done)} kernels in {self._seconds():.0f} s "
                    f"(cache: {_short(_jit.cache_description())}); later runs load them in a moment", final=True)
        self._reset()
        return
      tenth = 10 * len(self._done) // max(len(self._todo | self._done), 1)
      if self._tty() or tenth > self._last_tenth:
        self._last_tenth = tenth
        self._write(self._line())


_REPORTER = CompileReporter()
_INSTALLED = []


def install():
  """Registers the reporter with numba (once). It prints unless MJGYM_COMPILE_PROGRESS=0, and starts the compile
  helper process (``_parallel``) either way."""
  if _INSTALLED:
    return
  event.register("numba:compile", _REPORTER)
  _INSTALLED.append(_REPORTER)


__all__ = ["CompileReporter", "install"]
