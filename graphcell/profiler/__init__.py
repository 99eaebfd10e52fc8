"""``mindspore.profiler``, and graphcell's per-kernel profile of compiled steps.

:func:`kernel_profile` times every kernel and primitive call of the compiled functions run
inside it (graph mode: ``ms.jit``, GRAPH_MODE cells), with bytes moved, achieved GB/s and
GFLOP/s, and the source lines each kernel implements::

    with ms.profiler.kernel_profile() as prof:
        step(x, y)
    print(prof.table(10))            # slowest first
    prof.slowest(3, kind="kernel")   # rows: .site.name, .site.sources, .seconds, .gbps, .gflops
"""
from __future__ import annotations

import contextlib

from graphcell_ir.backend import profile as _profile

from graphcell.profiler._api import (Profiler, ProfilerAction, ProfilerActivity, ProfilerLevel,
                                     profile, schedule, tensorboard_trace_handler)

__all__ = ["kernel_profile", "KernelProfile", "Profiler", "profile", "schedule",
           "tensorboard_trace_handler", "ProfilerActivity", "ProfilerLevel", "ProfilerAction"]


class KernelProfile:
    """What :func:`kernel_profile` measured; filled when its block ends."""

    def __init__(self):
        self.recorder = _profile.Recorder()
        self._summary: _profile.Profile | None = None

    @property
    def events(self) -> list:
        """Every timed call, in order (``backend.profile.Event``)."""
        return self.recorder.events

    @property
    def summary(self) -> _profile.Profile:
        if self._summary is None or sum(r.calls for r in self._summary.rows) != len(self.events):
            self._summary = _profile.Profile(self.events)
        return self._summary

    def slowest(self, n: int = 3, kind: str | None = None) -> list:
        """The ``n`` call sites that took longest (``kind``: ``"kernel"`` or ``"op"``)."""
        return self.summary.slowest(n, kind)

    def table(self, n: int | None = 20) -> str:
        """The ``n`` slowest sites as a table: time, share, MB, GB/s, GFLOP/s, source lines."""
        return self.summary.table(n)


@contextlib.contextmanager
def kernel_profile():
    """Profile the compiled kernels and ops run inside the block (see the module docstring)."""
    prof = KernelProfile()
    with _profile.recording(prof.recorder):
        yield prof
