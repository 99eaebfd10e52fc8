"""The native step's own buffers (its arena and scratch arrays), on small pages.

numpy asks the kernel for transparent huge pages for every array of 4 MB or more
(``madvise(MADV_HUGEPAGE)``). Under the common ``defrag=madvise`` setting (this machine's) the
first touch of such a region may compact memory synchronously, so a step's first call stalled
for a varying time: ResNet-18's first call (compile and run) took 1.41-1.79 s with numpy's
arrays and 1.21-1.39 s with huge pages not asked for (4 paired fresh processes each, load ~0.9,
26 Nov 2026), its steady step the same (107-173 against 113-173 ms). A step's buffers live as
long as the step and are rewritten every call, so their pages fault in once; on small pages
that is ~1 us a 4 KB page and never a compaction. Buffers below numpy's threshold are numpy's
own.

Example::

    >>> a = empty((1024, 1024, 2), np.float32)   # 8 MB: a private anonymous mapping
    >>> a.shape, a.dtype, a.flags.writeable, a.ctypes.data % mmap.PAGESIZE
    ((1024, 1024, 2), dtype('float32'), True, 0)
"""
from __future__ import annotations

import math
import mmap

import numpy as np

__all__ = ["empty", "HUGE_PAGE_REQUEST"]

HUGE_PAGE_REQUEST = 4 << 20
"""Bytes from which numpy asks for huge pages (its ``madvise_hugepage`` threshold)."""


def empty(shape: tuple, dtype) -> np.ndarray:
    """An uninitialised C-ordered array of ``shape`` and ``dtype`` for the step to keep; from
    :data:`HUGE_PAGE_REQUEST` bytes a private anonymous mapping, page-aligned, never advised
    to use huge pages."""
    dtype = np.dtype(dtype)
    count = math.prod(shape)
    size = count * dtype.itemsize
    if size < HUGE_PAGE_REQUEST:
        return np.empty(shape, dtype)
    pages = mmap.mmap(-1, size, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
    return np.frombuffer(pages, dtype, count).reshape(shape)
