"""The BLAS the native step calls: numpy's bundled OpenBLAS's ``cblas_sgemm``/``cblas_dgemm``
(and the GEMV, dot and SYRK numpy's ``matmul`` takes for some shapes: :mod:`.route`),
found once per process with ctypes (the library :mod:`..blas_threads` drives, so its thread
count applies to these calls too). The step calls it through its address: transposes are
flags, not copies."""
from __future__ import annotations

import ctypes
import functools
import glob
import os

import numpy as np


@functools.lru_cache(maxsize=1)
def _library():
    here = os.path.dirname(np.__file__)
    for path in sorted(glob.glob(os.path.join(here, "..", "numpy.libs", "libscipy_openblas*.so*"))):
        try:
            return ctypes.CDLL(path)
        except OSError:
            continue
    return None


def gemm(dtype: str) -> tuple[int, int] | None:
    """``(address, integer bits)`` of the CBLAS GEMM for ``dtype`` (``float32``/``float64``):
    ``void gemm(i32 order, i32 transa, i32 transb, int m, n, k, T alpha, T *a, int lda, T *b,
    int ldb, T beta, T *c, int ldc)``, ``int`` of the returned width (64 for OpenBLAS's ILP64
    build); None when numpy has no such library."""
    return routine("gemm", dtype)


def routine(name: str, dtype: str) -> tuple[int, int] | None:
    """``(address, integer bits)`` of CBLAS routine ``name`` (``gemm``, ``gemv``, ``dot``,
    ``syrk``) for ``dtype`` (``float32``/``float64``), or None (see :func:`gemm`)."""
    lib = _library()
    letter = {"float32": "s", "float64": "d"}.get(dtype)
    if lib is None or letter is None:
        return None
    routine = letter + name
    for symbol, bits in ((f"scipy_cblas_{routine}64_", 64), (f"scipy_cblas_{routine}", 32),
                         (f"cblas_{routine}", 32)):
        fn = getattr(lib, symbol, None)
        if fn is not None:
            return ctypes.cast(fn, ctypes.c_void_p).value, bits
    return None
