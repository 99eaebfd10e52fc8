"""Gathering and scattering along one axis with an index tensor, as composites of ``take`` and
``scatter_add`` on the flattened tensor.

``take_along(x, idx, axis)`` is numpy's ``take_along_axis`` (MindSpore's ``GatherD`` when the
index has ``x``'s shape off ``axis``); ``scatter_add_along(base, idx, updates, axis)`` is its
adjoint. Sort, top-k, cummax and median send gradients back this way, and the median and quantile
functions pick elements with it. The element offsets of the other axes depend only on shapes, so
they are a constant computed while tracing; only the index along ``axis`` is data. Both functions
run on any emitter (PyNative tensors, IR values, the tests' numpy values) and differentiate
through ``take``/``scatter_add``, so gradients of gradients work.

    >>> import numpy as np
    >>> _flat_offsets((2, 3), (2, 2), 1).tolist()
    [[0, 0], [3, 3]]
"""
from __future__ import annotations

import numpy as np

from graphcell_ir.ir.types import int64
from graphcell_ir.ops import functional as F


def _strides(shape: tuple[int, ...]) -> tuple[int, ...]:
    """Row-major element strides of ``shape``."""
    out, step = [], 1
    for s in reversed(shape):
        out.append(step)
        step *= s
    return tuple(reversed(out))


def _flat_offsets(x_shape: tuple[int, ...], idx_shape: tuple[int, ...], axis: int) -> np.ndarray:
    """The flat offset in ``x`` of every position of the index, its own axis left out."""
    strides = _strides(x_shape)
    grid = np.indices(idx_shape, dtype=np.int64) if idx_shape else np.zeros((0,), np.int64)
    base = np.zeros(idx_shape, np.int64)
    for d, g in enumerate(grid):
        if d != axis:
            base += g * strides[d]
    return base


def _flat_index(x_shape, idx, axis: int):
    """``idx`` (along ``axis``) as indices into the flattened ``x``."""
    stride = _strides(x_shape)[axis]
    along = F.cast(idx, dtype=int64) if idx.dtype is not int64 else idx
    if stride != 1:
        along = F.mul(along, stride)
    return F.add(along, _flat_offsets(tuple(x_shape), tuple(idx.shape), axis))


def take_along(x, idx, axis: int):
    """``out[p] = x[p with its axis-th coordinate replaced by idx[p]]``; ``idx`` has ``x``'s
    rank and, off ``axis``, sizes no larger than ``x``'s; its values are in [0, size)."""
    shape = tuple(x.shape)
    flat = F.reshape(x, shape=(-1,))
    return F.take(flat, _flat_index(shape, idx, axis), axis=0)


def scatter_add_along(base, idx, updates, axis: int):
    """``base`` with ``updates[p]`` added at ``base[p with its axis-th coordinate idx[p]]``
    (repeated indices add up): the adjoint of :func:`take_along`."""
    shape = tuple(base.shape)
    flat = F.reshape(base, shape=(-1,))
    out = F.scatter_add(flat, _flat_index(shape, idx, axis), F.cast_like(updates, base), axis=0)
    return F.reshape(out, shape=shape)
