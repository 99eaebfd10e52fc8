"""The compile report: how long each backend phase took, printed as it happens.

On when ``GRAPHCELL_LOG`` lists ``compile`` (``GRAPHCELL_LOG=compile``) or when a caller turns it
on (graphcell's ``set_context(compile_report=True)`` does, through :func:`enable`). Lines go to
stderr::

    [graphcell compile] lower @main: 0.4 ms (3 kernels, 1 fallback)
    [graphcell compile] numba compile: 212.0 ms (k_3f2a...)

Phases reported: ``lower`` (kernel source generation per function), ``kernel load`` (writing and
importing the kernel file), ``numba compile`` / ``numba (disk cache hit)`` (the first call of each
kernel), ``executable`` (generating the function's Python runner). The frontend and the passes are
timed by their own tools (``PassManager`` reports); see ``phase`` for adding others.
"""
from __future__ import annotations

import os
import sys
from contextlib import contextmanager

_forced: bool | None = None
_switch = None


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
    """Report one phase (when the report is on)."""
    if enabled():
        more = f" ({detail})" if detail else ""
        print(f"[graphcell compile] {name}: {seconds * 1e3:.1f} ms{more}", file=sys.stderr)
