"""How many threads graphcell's GEMMs and nn loops use while a compiled function runs, chosen
by timing it; numpy's OpenBLAS is kept on one thread meanwhile.

graphcell's kernels split a large product or loop into fixed blocks that the calling thread and
the kernel pool take as they come (``nnkernels.in_blocks``), each BLAS call single-threaded.
OpenBLAS's own threads are never used inside a compiled function: they wait on each other, so
when another process holds the second core a product takes a scheduler slice or more (W1's
layers: 1.3-1.6 ms on one thread, 8-32 ms on two), and after a threaded call they spin for ~0.1
s, holding the core that graphcell's next block wants. The blocks degrade gracefully instead,
but not for free: on a busy machine splitting costs 3-30% against one thread (the pool's
wake-up, a block that a preempted worker holds). So a :class:`Tuner` per executable times its
calls with the split on (all the CPUs) and off (1 thread), alternating, and measures again every
:data:`RETUNE` calls as the load changes; :func:`decide` is the policy: the split stays on
unless one thread was faster by more than :data:`MARGIN` (median of :data:`PROBES` calls each):
a few noisy probes on an idle machine can no longer switch the second core off (seen: 5.2 ms
on 1 thread against 3.3 on 2 for a 512x1024x1024 product, chosen from 3 probes), and on a busy
machine the split is given up only where it costs more than the margin. :func:`split_threads`
is what the kernels ask. docs/performance.md has the measurements.

``GRAPHCELL_BLAS_THREADS=N`` fixes the split at N threads (no timing); ``0`` leaves BLAS alone
(one call per product on OpenBLAS's own threads, no split). Outside a compiled function's call
(PyNative) the kernels split over all the CPUs, and OpenBLAS keeps the user's setting.

Example::

    >>> t = Tuner()
    >>> t(lambda: 42)
    42
"""
from __future__ import annotations

import contextvars
import ctypes
import glob
import os
import time

import numpy as np

from graphcell_ir import switches
from graphcell_ir.backend.native import pool

PROBES = 5
"""Calls timed per candidate thread count in one measuring round (the median decides): 3 let
one stalled call on an idle machine decide."""
WARMUP = 3
"""Calls not timed after the executable's first: the first compiles kernels, the next ones
still fault in workspaces and start the block workers."""
MARGIN = 0.10
"""How much faster (a fraction of the split's median) one thread must be to switch the split
off: the split's cost on a busy machine was 3-30%, and 1 thread is never faster on an idle
one, so only a clear loss gives the second core up."""
RETUNE = 200
"""Calls between measuring rounds."""


def _openblas():
    """(set, get) of numpy's OpenBLAS thread count, or None."""
    here = os.path.dirname(np.__file__)
    for path in glob.glob(os.path.join(here, "..", "numpy.libs", "libscipy_openblas*.so*")):
        try:
            lib = ctypes.CDLL(path)
        except OSError:
            continue
        for suffix in ("64_", ""):
            setter = getattr(lib, f"scipy_openblas_set_num_threads{suffix}", None)
            getter = getattr(lib, f"scipy_openblas_get_num_threads{suffix}", None)
            if setter is not None and getter is not None:
                getter.restype = ctypes.c_int
                return setter, getter
    return None


_API = _openblas()


def _cpus() -> int:
    """The kernel pool's thread count (``GRAPHCELL_KERNEL_THREADS``, else the CPUs this process
    may run on), at most OpenBLAS's thread count: what :func:`limit` (a process of a job sharing
    the cores) or the user set for BLAS caps graphcell's split too."""
    n = pool.configured_threads()
    return min(n, _API[1]()) if _API is not None else n


def _candidates() -> tuple[int, ...]:
    fixed = switches.number("GRAPHCELL_BLAS_THREADS")
    if fixed is not None:
        return () if fixed == 0 else (fixed,)
    n = _cpus()
    return (1, n) if n > 1 else (1,)


_SPLIT = contextvars.ContextVar("graphcell_split_threads", default=None)
"""The thread count a running compiled function's tuner chose (None outside one)."""


def split_threads() -> int | None:
    """Threads a kernel splits a product or loop over: the tuner's choice inside a compiled
    function's call, else ``GRAPHCELL_BLAS_THREADS``, else the CPUs; None for
    ``GRAPHCELL_BLAS_THREADS=0`` (no split: BLAS alone)."""
    n = _SPLIT.get()
    if n is not None:
        return n
    fixed = switches.number("GRAPHCELL_BLAS_THREADS")
    if fixed is not None:
        return fixed or None
    return _cpus()


def limit(n: int) -> None:
    """Cap numpy's OpenBLAS, and graphcell's split, at ``n`` threads for this process (one
    process of a job that shares the machine's cores with the others); with one thread left
    there is nothing to tune."""
    if _API is not None and n >= 1 and _API[1]() > n:
        _API[0](n)


def single(run):
    """``run()`` with numpy's OpenBLAS on one thread, the user's count restored after (0.3 us):
    for a GEMM that graphcell splits over its own threads (``nnkernels``), where OpenBLAS's
    worker would only add a wait."""
    if _API is None:
        return run()
    setter, getter = _API
    saved = getter()
    if saved == 1:
        return run()
    setter(1)
    try:
        return run()
    finally:
        setter(saved)


def decide(times: dict[int, list[float]], default: int) -> int:
    """The thread count a measuring round chose: ``default`` (the CPUs) unless another count's
    median time beats it by more than :data:`MARGIN` of its own, then the fastest such count.
    A pure function of the probes (tested as such).

    >>> decide({1: [1.0, 1.0, 1.0], 2: [1.05, 0.5, 1.05]}, default=2)   # within the margin
    2
    >>> decide({1: [0.5, 0.5, 0.5], 2: [1.0, 1.0, 1.0]}, default=2)
    1
    """
    median = {c: _median(v) for c, v in times.items() if v}
    if default not in median:
        return default
    bar = median[default] * (1.0 - MARGIN)
    faster = [c for c in median if median[c] < bar]
    return min(faster, key=median.__getitem__) if faster else default


def _median(xs: list[float]) -> float:
    """The median, in Python: ``np.median``'s first call imports ``numpy.ma`` (~6 ms, inside
    the user's 14th call)."""
    s, m = sorted(xs), len(xs) // 2
    return s[m] if len(s) % 2 else (s[m - 1] + s[m]) / 2


class Tuner:
    """Runs calls with the split thread count :func:`decide` chose from the latest measuring
    round, OpenBLAS on one thread (see the module)."""

    _depth = 0  # a compiled function called by another runs under its caller's choice

    def __init__(self):
        self.candidates = _candidates()
        self.times: dict[int, list[float]] = {c: [] for c in self.candidates}
        self.choice = self.candidates[-1] if self.candidates else None
        self.calls = 0

    def __call__(self, run):
        if self.choice is None or Tuner._depth:
            return run()
        n = self._next()
        token = _SPLIT.set(n)
        Tuner._depth += 1
        t0 = time.perf_counter()
        try:
            return single(run)
        finally:
            dt = time.perf_counter() - t0
            Tuner._depth -= 1
            _SPLIT.reset(token)
            self._record(n, dt)

    def _next(self) -> int:
        """The count for this call: while measuring, the candidate with the fewest probes
        (so the candidates alternate and see the same load), else the choice; the choice
        (the CPUs at first) while warming up."""
        if self.calls <= WARMUP:
            return self.choice
        if self.calls % RETUNE == 0 and self.calls > WARMUP:
            self.times = {c: [] for c in self.candidates}
        c = min(self.candidates, key=lambda c: len(self.times[c]))
        return c if len(self.times[c]) < PROBES else self.choice

    def _record(self, n: int, dt: float) -> None:
        self.calls += 1
        if self.calls <= 1 + WARMUP:
            return  # compiling, faulting in: no measure of anything
        probes = self.times.get(n)
        if probes is not None and len(probes) < PROBES:
            probes.append(dt)
            if all(len(v) == PROBES for v in self.times.values()):
                self.choice = decide(self.times, self.candidates[-1])
