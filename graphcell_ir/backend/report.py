"""The compile report: how long each phase of a compile took, and the kernel cache hits.

On when ``GRAPHCELL_LOG`` lists ``compile`` (``GRAPHCELL_LOG=compile``), inside :func:`enable`, or
for a session begun with ``on=True`` (graphcell does that when ``set_context(compile_report=True)``
is set). Lines go to stderr as each phase ends, then a summary when the compile's first run is
over::

    [graphcell compile] frontend: 85.1 ms (TrainOneStepCell.construct)
    [graphcell compile] autodiff: 12.0 ms (construct.grad)
    [graphcell compile] pass cse: 3.2 ms (-14 ops)
    [graphcell compile] lower @main: 40.4 ms (13 kernels, 0 fallbacks)
    [graphcell compile] codegen: 34.3 ms (3f2a...)
    [graphcell compile] TrainOneStepCell.construct compiled in 0.64 s: frontend 85 ms,
      autodiff 12 ms, passes 61 ms, kernel generation 48 ms, codegen 494 ms, first run 22 ms;
      kernels: 10 compiled, 2 from the disk cache, 0 from memory

Phases: ``frontend`` (parse and emit IR, without autodiff), ``autodiff``, ``pass <name>`` (each
pass), ``lower @fn`` and ``kernel load`` (kernel generation: the runner and the kernel sources),
``codegen`` (a kernel or loop compiled by graphcell's code generator, ``backend/codegen``),
``native (disk cache hit)`` (an object linked from the object store, nothing compiled) and
``numba`` (the first call of a kernel the code generator refused: numba compiles it, or loads
it from its own cache). The kernel counts of the summary are the session's own
(:func:`count`), not the process's.

A compile is a :class:`Session` (:func:`begin`, ``suspend`` when the IR is compiled, ``resume``
for the first run, ``end``). The active sessions are per thread (a stack: a compile started
inside another's reports to the inner one until it ends), so compiles in several threads at once
each collect their own phases. When stderr is a terminal and the
compile has run for :data:`PROGRESS_AFTER` seconds, a progress line on stderr shows the phase it
is in, rewritten in place and erased at the end (whether or not the report is on;
``GRAPHCELL_PROGRESS=0`` turns it off).

Example::

    >>> s = begin("f")
    >>> with timed("frontend"):
    ...     pass
    >>> sorted(s.totals())
    ['frontend']
    >>> s.end()
"""
from __future__ import annotations

import contextvars
import sys
import threading
import time
from collections import Counter
from contextlib import contextmanager

from graphcell_ir import switches

PROGRESS_AFTER = 1.0
"""Seconds a compile runs before the progress line appears."""

_forced: contextvars.ContextVar = contextvars.ContextVar("graphcell_report_forced", default=None)
_local = threading.local()   # .stack: this thread's active sessions, innermost last

# How phase names group into the summary's columns (the first prefix that matches).
_GROUPS = (("frontend", "frontend"), ("autodiff", "autodiff"), ("pass ", "passes"),
           ("lower ", "kernel generation"), ("kernel load", "kernel generation"),
           ("codegen", "codegen"), ("numba", "numba"), ("python kernel", "python kernels"),
           ("native (", "native load"), ("first run", "first run"))


def enabled(session: "Session | None" = None) -> bool:
    """Whether phases are printed: :func:`enable`'s setting, else ``session`` begun with
    ``on=True``, else ``GRAPHCELL_LOG``."""
    forced = _forced.get()
    if forced is not None:
        return forced
    if session is not None and session.on:
        return True
    return "compile" in switches.words("GRAPHCELL_LOG")


@contextmanager
def enable(on: bool = True):
    """Turn the report on (or off) for the duration of a ``with`` block (in this context)."""
    token = _forced.set(on)
    try:
        yield
    finally:
        _forced.reset(token)


def phase(name: str, seconds: float, detail: str = "") -> None:
    """Report one phase: printed when the report is on, added to the active session."""
    s = active()
    if s is not None:
        s.add(name, seconds)
    if enabled(s):
        if s is not None:
            s.clear_progress()
        more = f" ({detail})" if detail else ""
        print(f"[graphcell compile] {name}: {seconds * 1e3:.1f} ms{more}", file=sys.stderr)
    if s is not None:
        s.progress(name)


@contextmanager
def timed(name: str, detail: str = ""):
    """Time the ``with`` block as phase ``name``, without the phases reported inside it (so a
    summary adds up: the frontend's time does not count the autodiff it ran)."""
    s = active()
    n0, t0 = (len(s.phases) if s is not None else 0), time.perf_counter()
    try:
        yield
    finally:
        inner = sum(sec for _, sec in s.phases[n0:]) if s is not None else 0.0
        phase(name, time.perf_counter() - t0 - inner, detail)


def count(kind: str) -> None:
    """Count one kernel of the active session: ``"compiled"``, ``"disk"`` (from the object
    store) or ``"memory"`` (from this process's cache)."""
    s = active()
    if s is not None:
        s.kernels[kind] += 1


def begin(name: str, on: bool = False) -> "Session":
    """Start the session of one compile: this thread's active one until it is suspended or
    ends. ``on``: print its phases and summary whatever ``GRAPHCELL_LOG`` says."""
    session = Session(name, on)
    _stack().append(session)
    return session


def _stack() -> list:
    """This thread's active sessions, innermost last. Per thread, because a shared chain of
    sessions, suspended and resumed by compiles in several threads, became a loop (a compile
    spun forever looking for the live one)."""
    stack = getattr(_local, "stack", None)
    if stack is None:
        stack = _local.stack = []
    return stack


def active() -> "Session | None":
    """The session this thread's phases go to (None outside a compile)."""
    stack = _stack()
    return stack[-1] if stack else None


def _leave(session: "Session") -> None:
    stack = _stack()
    if session in stack:
        stack.remove(session)


class Session:
    """The phases of one compile, for the summary and the progress line."""

    def __init__(self, name: str, on: bool = False):
        self.name, self.on = name, on
        self.start = time.perf_counter()
        self.phases: list[tuple[str, float]] = []
        self.kernels: Counter = Counter()   # "compiled", "disk", "memory": see count()
        self.shown = False           # a progress line is on the terminal
        self.last_draw = 0.0
        self.ended = False

    def add(self, name: str, seconds: float) -> None:
        self.phases.append((name, seconds))

    def totals(self) -> dict[str, float]:
        """Seconds per summary group (``frontend``, ``autodiff``, ``passes``...)."""
        out: dict[str, float] = {}
        for name, sec in self.phases:
            group = next((g for prefix, g in _GROUPS if name.startswith(prefix)), name)
            out[group] = out.get(group, 0.0) + sec
        return out

    # -- the progress line --
    def progress(self, phase_name: str) -> None:
        now = time.perf_counter()
        if (now - self.start < PROGRESS_AFTER or now - self.last_draw < 0.1
                or not switches.on("GRAPHCELL_PROGRESS") or not _is_tty()):
            return
        self.last_draw = now
        line = f"[graphcell] compiling {self.name}: {phase_name} ({now - self.start:.1f} s)"
        sys.stderr.write("\r" + line[:100] + "\x1b[K")
        sys.stderr.flush()
        self.shown = True

    def clear_progress(self) -> None:
        if self.shown:
            sys.stderr.write("\r\x1b[K")
            sys.stderr.flush()
            self.shown = False

    # -- between the compile and its first run --
    def suspend(self) -> None:
        """The compile is over but its first run (which compiles kernels) has not happened:
        stop collecting (a compile that is never run, ``net.compile(x)``, leaves nothing)."""
        self.clear_progress()
        _leave(self)

    def resume(self) -> None:
        """The first run starts, in this thread: collect again (until :meth:`end`)."""
        if not self.ended and self not in _stack():
            _stack().append(self)

    # -- the end --
    def summary(self) -> str:
        total = time.perf_counter() - self.start
        parts = [f"{g} {_ms(sec)}" for g, sec in self.totals().items()]
        k = self.kernels
        return (f"[graphcell compile] {self.name} compiled in {_ms(total)}: {', '.join(parts)}; "
                f"kernels: {k['compiled']} compiled, {k['disk']} from the disk cache, "
                f"{k['memory']} from memory")

    def end(self) -> None:
        """Erase the progress line, print the summary (when the report is on), deactivate."""
        _leave(self)
        if self.ended:
            return
        self.ended = True
        self.clear_progress()
        if enabled(self):
            print(self.summary(), file=sys.stderr)


def _ms(seconds: float) -> str:
    return f"{seconds:.2f} s" if seconds >= 1 else f"{seconds * 1e3:.0f} ms"


def _is_tty() -> bool:
    try:
        return sys.stderr.isatty()
    except (AttributeError, ValueError):
        return False
