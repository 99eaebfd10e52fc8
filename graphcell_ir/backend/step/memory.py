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

The pages still fault in on the first write: ResNet-18's step owns ~530 MB of buffers and
its first call took ~100 ms more than later ones. :func:`fault_in` has the kernel map them
ahead of time (``madvise(MADV_POPULATE_WRITE)``); the build starts it on a thread of its own
(:func:`fault_in_soon`) once its compile thread is done, while the main thread compiles and
links the step's own module. (Started earlier, while the compile thread still ran LLVM, it made
that thread slower by more than the first call gained; see docs/decisions.md, first23.)

Example::

    >>> a = empty((1024, 1024, 2), np.float32)   # 8 MB: a private anonymous mapping
    >>> a.shape, a.dtype, a.flags.writeable, a.ctypes.data % mmap.PAGESIZE
    ((1024, 1024, 2), dtype('float32'), True, 0)
    >>> fault_in([a])   # its 2048 pages mapped now, not at the step's first call
"""
from __future__ import annotations

import ctypes
import errno
import functools
import math
import mmap
import sys
import threading

import numpy as np

__all__ = ["empty", "fault_in", "fault_in_soon", "HUGE_PAGE_REQUEST", "MADV_POPULATE_WRITE"]

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


MADV_POPULATE_WRITE = 23
"""Linux's ``madvise`` advice (5.14 on) that faults a writable range's pages in as writes
would, without writing them (Python's ``mmap`` module does not name it)."""

FAULT_CHUNK = 1 << 20
"""Bytes :func:`fault_in` asks for at a time: the kernel holds the process's memory-map lock
while it populates, and LLVM and the linker map memory (their allocations, the linked code)
under that lock meanwhile."""


def fault_in(arrays) -> None:
    """Have the kernel map now the pages of the arrays among ``arrays`` that live in
    :func:`empty`'s own mappings (a step's ``keep``: its arena and large scratch buffers; other
    objects, numpy's smaller arrays and anything else's memory are skipped), which the step
    would otherwise fault in one by one at its first call. The advice never changes an array's
    bytes. :data:`FAULT_CHUNK` bytes per ``madvise`` call, through ctypes, which releases the
    GIL. Where the kernel or the platform lacks the advice it does nothing (the pages fault in
    at the first call, as before)."""
    advise = _madvise()
    if advise is None:
        return
    page = mmap.PAGESIZE
    for a in arrays:
        if not isinstance(a, np.ndarray) or not isinstance(_owner(a), mmap.mmap):
            continue
        start = -(-a.ctypes.data // page) * page
        end = (a.ctypes.data + a.nbytes) // page * page
        for at in range(start, end, FAULT_CHUNK):
            if advise(at, min(FAULT_CHUNK, end - at), MADV_POPULATE_WRITE) != 0 and \
                    ctypes.get_errno() == errno.EINVAL:
                return   # a kernel without the advice: asking again would fail the same


def _owner(a: np.ndarray):
    """What holds ``a``'s memory: :func:`empty`'s mapping, else another object or None."""
    while isinstance(a.base, np.ndarray):
        a = a.base
    return a.base.obj if isinstance(a.base, memoryview) else a.base


def fault_in_soon(arrays) -> threading.Thread:
    """:func:`fault_in` of (a copy of the list) ``arrays`` on a daemon thread, started: the
    caller goes on (the native step's build: compiling and linking its own module) while the
    kernel maps the pages on another core. A step called before it ends
    faults the rest in itself, as without it; the thread keeps the arrays alive until then."""
    thread = threading.Thread(target=fault_in, args=(list(arrays),), name="graphcell-fault-in",
                              daemon=True)
    thread.start()
    return thread


@functools.lru_cache(maxsize=1)
def _madvise():
    """libc's ``madvise`` as a ctypes function (which releases the GIL), or None off Linux."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        fn = ctypes.CDLL(None, use_errno=True).madvise
    except (OSError, AttributeError):
        return None
    fn.argtypes, fn.restype = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int], ctypes.c_int
    return fn
