"""The runtime profile of compiled functions: time, bytes and rates per kernel and per op.

While :func:`recording` is active (a context variable, so only the calls it wraps are
measured), every compiled runner runs its *timed* twin: the same source whose kernels and
primitive calls are wrapped to note one :class:`Event` each (start, duration, bytes read and
written). Outside it the runner is the plain one: profiling costs nothing when off. The events
are summed per call site by :class:`Profile`, named as everywhere else (``backend/naming.py``)
and mapped back to the source lines each site implements.

    >>> from graphcell_ir.backend import profile
    >>> with profile.recording() as rec:          # doctest: +SKIP
    ...     exe(args)
    >>> print(profile.Profile(rec.events).table(5))   # doctest: +SKIP
"""
from __future__ import annotations

import contextlib
import time
from contextvars import ContextVar
from dataclasses import dataclass, field

import numpy as np

from graphcell_ir.backend.naming import Site  # re-exported: the profile events name it

__all__ = ["Event", "Recorder", "Site", "recording", "active", "start", "stop", "timed", "Profile",
           "Row"]

_ACTIVE: ContextVar["Recorder | None"] = ContextVar("graphcell_profile", default=None)


@dataclass(frozen=True)
class Event:
    """One timed call: ``function`` is the compiled function's name (``None`` for a PyNative op),
    ``site`` what ran; ``start_ns`` (``time.perf_counter_ns``) and ``duration_ns``; ``nbytes``
    the bytes of its array arguments and results."""

    function: str | None
    site: Site
    start_ns: int
    duration_ns: int
    nbytes: int


@dataclass
class Recorder:
    """Where one profiling session's events go."""

    events: list[Event] = field(default_factory=list)

    def add(self, event: Event) -> None:
        self.events.append(event)   # list.append is atomic: threads may record at once


def active() -> Recorder | None:
    """The recorder of the innermost active :func:`recording`, or ``None``."""
    return _ACTIVE.get()


@contextlib.contextmanager
def recording(recorder: Recorder | None = None):
    """Record every compiled runner's calls made inside the block; yields the recorder."""
    rec = recorder if recorder is not None else Recorder()
    token = _ACTIVE.set(rec)
    try:
        yield rec
    finally:
        _ACTIVE.reset(token)


def nbytes(obj) -> int:
    """Bytes of the arrays in ``obj`` (an array, or a tuple/list of them and other values)."""
    if isinstance(obj, np.ndarray):
        return obj.nbytes
    if isinstance(obj, (tuple, list)):
        return sum(nbytes(o) for o in obj)
    return 0


def timed(function: str, site: Site, fn):
    """``fn`` wrapped to add an :class:`Event` to the active recorder (if any) per call."""
    def call(*args):
        rec = _ACTIVE.get()
        if rec is None:
            return fn(*args)
        start = time.perf_counter_ns()
        out = fn(*args)
        took = time.perf_counter_ns() - start
        rec.add(Event(function, site, start, took, nbytes(args) + nbytes(out)))
        return out
    call.__name__ = site.name
    return call


@dataclass(frozen=True)
class Row:
    """One call site's totals over a profile."""

    function: str | None
    site: Site
    calls: int
    seconds: float
    nbytes: int

    @property
    def gbps(self) -> float:
        """Achieved bandwidth: bytes read and written per second, in GB/s."""
        return self.nbytes / self.seconds / 1e9 if self.seconds > 0 else 0.0

    @property
    def gflops(self) -> float | None:
        """Achieved GFLOP/s from the estimated FLOPs (``None`` when they are unknown)."""
        if self.site.flops is None or self.seconds <= 0:
            return None
        return self.site.flops * self.calls / self.seconds / 1e9


class Profile:
    """Events summed per call site, slowest first.

    >>> # Profile(rec.events).slowest(3)[0].site.sources -> ("net.py:12",)
    """

    def __init__(self, events: list[Event]):
        totals: dict[tuple, list] = {}
        for e in events:
            t = totals.setdefault((e.function, e.site), [0, 0, 0])
            t[0] += 1
            t[1] += e.duration_ns
            t[2] += e.nbytes
        self.rows = sorted((Row(f, s, n, ns / 1e9, b) for (f, s), (n, ns, b) in totals.items()),
                           key=lambda r: -r.seconds)

    def slowest(self, n: int, kind: str | None = None) -> list[Row]:
        """The ``n`` sites that took longest in all (only ``kind``'s: ``"kernel"``, ``"op"``)."""
        return [r for r in self.rows if kind is None or r.site.kind == kind][:n]

    def table(self, n: int | None = None) -> str:
        """A readable table: one line per site (the ``n`` slowest), then its source lines."""
        total = sum(r.seconds for r in self.rows) or 1.0
        lines = [f"{'site':<36} {'calls':>6} {'ms':>9} {'%':>5} {'MB':>8} {'GB/s':>7} "
                 f"{'GFLOP/s':>8}  source"]
        for r in self.rows[:n]:
            rate = f"{r.gflops:8.2f}" if r.gflops is not None else f"{'-':>8}"
            where = ", ".join(r.site.sources[:3]) + (" ..." if len(r.site.sources) > 3 else "")
            lines.append(f"{r.site.name[:36]:<36} {r.calls:>6} {r.seconds * 1e3:>9.3f} "
                         f"{100 * r.seconds / total:>5.1f} {r.nbytes / 1e6:>8.2f} "
                         f"{r.gbps:>7.2f} {rate}  {where or '-'}")
        return "\n".join(lines)


def start(recorder: Recorder):
    """Make ``recorder`` the active one until :func:`stop` with the returned token (for
    profilers whose start and stop are two calls, not one block)."""
    return _ACTIVE.set(recorder)


def stop(token) -> None:
    """End what :func:`start` began (from another context: no recorder is active after)."""
    try:
        _ACTIVE.reset(token)
    except ValueError:
        _ACTIVE.set(None)
