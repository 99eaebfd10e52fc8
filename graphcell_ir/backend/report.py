"""The compile report: how long each phase of a compile took, and the kernel cache hits.

On when ``GRAPHCELL_LOG`` lists ``compile`` (``GRAPHCELL_LOG=compile``) or when a caller turns it
on (graphcell's ``set_context(compile_report=True)`` does, through :func:`set_switch`). Lines go
to stderr as each phase ends, then a summary when the compile's first run is over::

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
``numba compile`` / ``numba (disk cache hit)`` (the first call of a kernel numba compiles: one
the code generator refuses, a parallel one, or all with ``GRAPHCELL_CODEGEN=0``), ``native emit``
(writing the native object of what numba compiled to the disk cache) and ``native (disk cache
hit)`` (linking one from there, without numba).

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

import os
import sys
import threading
import time
from contextlib import contextmanager

PROGRESS_AFTER = 1.0
"""Seconds a compile runs before the progress line appears."""

_forced: bool | None = None
_switch = None
_local = threading.local()   # .stack: this thread's active sessions, innermost last

# How phase names group into the summary's columns (the first prefix that matches).
_GROUPS = (("frontend", "frontend"), ("autodiff", "autodiff"), ("pass ", "passes"),
           ("lower ", "kernel generation"), ("kernel load", "kernel generation"),
           ("codegen", "codegen"), ("numba", "numba"), ("python kernel", "numba"),
           ("native emit", "native emit"),
           ("native (", "native load"), ("first run", "first run"))


def set_switch(fn) -> None:
    """Also report when ``fn()`` is true (graphcell's ``compile_report`` context key)."""
    global _switch
    _switch = fn


def enabled() -> bool:
    if _forced is not None:
        return _forced
    if _switch is not None and _switch():
        return True
    return "compile" in os.environ.get("GRAPHCELL_LOG", "").replace(",", " ").split()


@contextmanager
def enable(on: bool = True):
    """Turn the report on (or off) for the duration of a ``with`` block."""
    global _forced
    saved, _forced = _forced, on
    try:
        yield
    finally:
        _forced = saved


def phase(name: str, seconds: float, detail: str = "") -> None:
    """Report one phase: printed when the report is on, added to the active session."""
    s = active()
    if s is not None:
        s.add(name, seconds)
    if enabled():
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


def begin(name: str) -> "Session":
    """Start the session of one compile: this thread's active one until it is suspended or
    ends."""
    session = Session(name)
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

    def __init__(self, name: str):
        self.name = name
        self.start = time.perf_counter()
        self.phases: list[tuple[str, float]] = []
        self.stats0 = _kernel_counts()
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
                or os.environ.get("GRAPHCELL_PROGRESS", "1") == "0" or not _is_tty()):
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
        mem, disk, compiles = (max(0, a - b) for a, b in zip(_kernel_counts(), self.stats0))
        return (f"[graphcell compile] {self.name} compiled in {_ms(total)}: {', '.join(parts)}; "
                f"kernels: {compiles} compiled, {disk} from the disk cache, {mem} from memory")

    def end(self) -> None:
        """Erase the progress line, print the summary (when the report is on), deactivate."""
        _leave(self)
        if self.ended:
            return
        self.ended = True
        self.clear_progress()
        if enabled():
            print(self.summary(), file=sys.stderr)


def _ms(seconds: float) -> str:
    return f"{seconds:.2f} s" if seconds >= 1 else f"{seconds * 1e3:.0f} ms"


def _is_tty() -> bool:
    try:
        return sys.stderr.isatty()
    except (AttributeError, ValueError):
        return False


def _kernel_counts() -> tuple[int, int, int]:
    from graphcell_ir.backend.kernels import cache_stats  # kernels reports through this module
    s = cache_stats()
    return s.memory_hits, s.disk_hits, len(s.misses)
