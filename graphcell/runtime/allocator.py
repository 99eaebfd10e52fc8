"""Keep freed array memory in the process: glibc's malloc tuned for numpy's temporaries.

numpy takes every array buffer from ``malloc``. glibc serves blocks above a (dynamic) threshold
with ``mmap`` and hands freed memory at the top of the heap back to the OS; a training step frees
and reallocates the same few-hundred-KB-to-MB buffers op after op, so each reuse page-faults
once per 4 KiB (measured: 1.6 ms of CPU in an 8 ms LeNet5 PyNative step; the select/fill/relu
of the backward pass run 2-4x faster without it). :func:`tune` raises the mmap threshold to
32 MiB and the trim threshold to 64 MiB once, so those buffers are recycled from the heap — what
PyTorch's caching allocator does for its tensors. The cost: up to 64 MiB of freed memory stays
mapped in the process. ``GRAPHCELL_MALLOC_TUNING=0`` opts out; elsewhere than glibc it does
nothing.

Example::

    >>> tune() in (True, False)   # True where glibc took the settings
    True
"""
from __future__ import annotations

import ctypes
import sys

from graphcell_ir import switches

M_TRIM_THRESHOLD, M_MMAP_THRESHOLD = -1, -3   # glibc's mallopt parameter numbers
MMAP_THRESHOLD = 32 << 20                      # glibc's largest allowed value on 64-bit
TRIM_THRESHOLD = 64 << 20

_done: bool | None = None


def tune() -> bool:
    """Apply the settings (once per process); whether glibc accepted them."""
    global _done
    if _done is None:
        _done = _apply()
    return _done


def _apply() -> bool:
    if not switches.on("GRAPHCELL_MALLOC_TUNING"):
        return False
    if not sys.platform.startswith("linux"):
        return False
    try:
        mallopt = ctypes.CDLL(None).mallopt   # the process's own symbols: glibc's malloc
    except (OSError, AttributeError):   # musl and others: no mallopt
        return False
    mallopt.argtypes, mallopt.restype = (ctypes.c_int, ctypes.c_int), ctypes.c_int
    return bool(mallopt(M_MMAP_THRESHOLD, MMAP_THRESHOLD)) and bool(
        mallopt(M_TRIM_THRESHOLD, TRIM_THRESHOLD))
