"""Argument normalisation shared by the family modules (MindSpore's spellings of axes, shapes and
scalars), written so that it runs on Tensors and, in graph mode, on the values the frontend traces.
"""
from __future__ import annotations

import numpy as np

from graphcell_ir.ir.types import DType, to_dtype


def axes(axis, ndim: int | None = None) -> tuple[int, ...] | None:
    """``axis`` as a tuple of ints, or None for "every axis" (None or an empty tuple, as MindSpore's
    reductions take them); negative axes are made positive when ``ndim`` is given."""
    if axis is None or (isinstance(axis, (tuple, list)) and len(axis) == 0):
        return None
    out = (int(axis),) if isinstance(axis, (int, np.integer)) else tuple(int(a) for a in axis)
    if ndim is not None:
        out = tuple(normalize_axis(a, ndim) for a in out)
    return out


def normalize_axis(axis: int, ndim: int, name: str = "axis") -> int:
    """``axis`` in ``[0, ndim)``; an IndexError in MindSpore's words when it is out of range."""
    axis = int(axis)
    rank = max(ndim, 1)
    if not -rank <= axis < rank:
        raise ValueError(f"{name} {axis} is out of range for a tensor of rank {ndim}: expected "
                         f"a value in [{-rank}, {rank})")
    return axis % rank


def shape_of(size) -> tuple[int, ...]:
    """A shape given as an int, a tuple/list of ints, or a 1-D integer Tensor of sizes."""
    if isinstance(size, (int, np.integer)):
        return (int(size),)
    if hasattr(size, "asnumpy"):
        return tuple(int(s) for s in np.asarray(size.asnumpy()).reshape(-1))
    return tuple(int(s) for s in size)


def scalar(value):
    """A Python number from a number or a one-element Tensor (MindSpore accepts both)."""
    return value.item() if hasattr(value, "item") and not isinstance(value, (int, float, bool)) \
        else value


def dtype_or(dtype, default: DType | None) -> DType | None:
    return default if dtype is None else to_dtype(dtype)
