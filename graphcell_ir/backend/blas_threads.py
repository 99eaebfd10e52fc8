"""How many threads numpy's OpenBLAS uses while a compiled function runs, chosen by timing it.

OpenBLAS splits a GEMM over all cores. On an idle machine that is faster (W1's train step: 9.6
ms with 2 threads, 16 ms with 1); when another process keeps a core busy, its threads wait on
each other and the same step takes 30-75 ms (1 thread: 16-27 ms; W2: 4 ms against 10-26 ms).
Neither count is right everywhere, so a :class:`Tuner` per executable times its calls under each
candidate (1 and the configured count), keeps the faster, and measures again every
:data:`RETUNE` calls as the load changes. Outside the call the user's setting is restored.

Only numpy's bundled OpenBLAS (``scipy_openblas``) is driven, through its C API; with another
BLAS, or ``GRAPHCELL_BLAS_THREADS`` set to a number (used as is; ``0`` leaves BLAS alone), the
tuner does nothing but run.

Example::

    >>> t = Tuner()
    >>> t(lambda: 42)
    42
"""
from __future__ import annotations

import ctypes
import glob
import os
import time

import numpy as np

from graphcell_ir import switches

PROBES = 3
"""Calls timed per candidate thread count in one measuring round (the median decides)."""
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


def _candidates() -> tuple[int, ...]:
    fixed = switches.number("GRAPHCELL_BLAS_THREADS")
    if _API is None or fixed == 0:
        return ()
    if fixed is not None:
        return (fixed,)
    n = _API[1]()
    return (1, n) if n > 1 else ()


def limit(n: int) -> None:
    """Cap numpy's OpenBLAS at ``n`` threads for this process (one process of a job that shares
    the machine's cores with the others); with one thread left there is nothing to tune."""
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


class Tuner:
    """Runs calls with the BLAS thread count that has been fastest lately (see the module)."""

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
        setter, getter = _API
        saved = getter()
        setter(n)
        Tuner._depth += 1
        t0 = time.perf_counter()
        try:
            return run()
        finally:
            dt = time.perf_counter() - t0
            Tuner._depth -= 1
            setter(saved)
            self._record(n, dt)

    def _next(self) -> int:
        """The count for this call: while measuring, the candidate with the fewest probes
        (so the candidates alternate and see the same load), else the choice."""
        if self.calls % RETUNE == 0 and self.calls > 1:
            self.times = {c: [] for c in self.candidates}
        c = min(self.candidates, key=lambda c: len(self.times[c]))
        return c if len(self.times[c]) < PROBES else self.choice

    def _record(self, n: int, dt: float) -> None:
        self.calls += 1
        if self.calls == 1:
            return  # the first call compiles kernels: no measure of anything
        probes = self.times.get(n)
        if probes is not None and len(probes) < PROBES:
            probes.append(dt)
            if all(len(v) == PROBES for v in self.times.values()):
                self.choice = min(self.candidates, key=lambda c: float(np.median(self.times[c])))

