"""mint's tensor creation: ``zeros``, ``ones``, ``full``, ``arange``, ``eye``, ``empty``,
``linspace`` and their ``*_like`` forms (Float32 unless ``dtype`` says otherwise).

Example::

    >>> from graphcell import mint
    >>> mint.zeros((2, 3)).shape, mint.empty(2, 3).shape
    ((2, 3), (2, 3))
"""
from __future__ import annotations

from graphcell import dtype as mstype
from graphcell import ops
from graphcell.ops import arange, eye, full_like, ones_like, zeros_like  # same signatures

__all__ = ["arange", "empty", "empty_like", "eye", "full", "full_like", "linspace", "ones",
           "ones_like", "zeros", "zeros_like"]


def _size(size: tuple) -> tuple:
    """``f(2, 3)`` and ``f((2, 3))`` name the same shape."""
    if len(size) == 1 and isinstance(size[0], (tuple, list)):
        return tuple(size[0])
    return tuple(size)


def zeros(size, *, dtype=None):
    """A tensor of zeros of shape ``size`` (Float32 by default)."""
    return ops.zeros(size, dtype or mstype.float32)


def ones(size, *, dtype=None):
    """A tensor of ones of shape ``size`` (Float32 by default)."""
    return ops.ones(size, dtype or mstype.float32)


def empty(*size, dtype=None, device=None, pin_memory=False):
    """A tensor of shape ``size`` whose values are unspecified (graphcell fills it with zeros)."""
    return ops.zeros(_size(size), dtype or mstype.float32)


def empty_like(input, *, dtype=None, device=None, pin_memory=False):  # noqa: A002 - mint's name
    """A tensor shaped like ``input`` whose values are unspecified (zeros in graphcell)."""
    return ops.zeros_like(input, dtype=dtype or input.dtype)


def linspace(start, end, steps, *, dtype=None):
    """``steps`` evenly spaced values from ``start`` to ``end`` (Float32 unless ``dtype``)."""
    out = ops.linspace(start, end, steps)
    return out if dtype is None else out.astype(dtype)


def full(size, fill_value, *, dtype=None):
    """A tensor of shape ``size`` filled with ``fill_value``; without ``dtype``, the fill
    value's kind decides (bool: Bool, int: Int64, float: Float32), as in PyTorch."""
    if dtype is None:
        dtype = (mstype.bool_ if isinstance(fill_value, bool) else
                 mstype.int64 if isinstance(fill_value, int) else mstype.float32)
    return ops.full(size, fill_value, dtype=dtype)
