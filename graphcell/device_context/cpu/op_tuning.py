"""``mindspore.device_context.cpu.op_tuning``: how many threads CPU kernels use.

Example::

    >>> from graphcell.device_context.cpu import op_tuning
    >>> callable(op_tuning.threads_num)
    True
"""
from __future__ import annotations

import threading

__all__ = ["threads_num"]


class _Setting:
    lock = threading.Lock()
    threads: int | None = None


def threads_num(num: int) -> None:
    """Use at most ``num`` threads in kernels: numpy's BLAS (which PyNative's matrix products and
    the compiled BLAS calls use) and the parallel loops of numba-compiled kernels. As in
    MindSpore, it can be set once per process.

    Example::

        >>> from graphcell.device_context.cpu import op_tuning
        >>> op_tuning.threads_num(0)
        Traceback (most recent call last):
        ...
        ValueError: threads_num: 'num' must be a positive int, got 0
    """
    if not isinstance(num, int) or isinstance(num, bool):
        raise TypeError(f"threads_num: 'num' must be an int, got {type(num).__name__}")
    if num <= 0:
        raise ValueError(f"threads_num: 'num' must be a positive int, got {num}")
    with _Setting.lock:
        if _Setting.threads is not None:
            raise RuntimeError("The 'threads_num' can not be set repeatedly.")
        _Setting.threads = num
    from graphcell_ir.backend import blas_threads
    blas_threads.limit_threads(num)
