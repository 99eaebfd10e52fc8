"""MindSpore's math functions (``mindspore.ops.function.math_func``): reductions and arithmetic
written against the functional API ``F``.
"""
from __future__ import annotations

from graphcell.ops.function._utils import axes
from graphcell.ops.function.array_func import cast
from graphcell_ir.ops import functional as F

__all__ = ["sum", "mean"]


def sum(input, dim=None, keepdim=False, *, dtype=None):  # noqa: A001 - MindSpore's name
    """``ops.sum(input, dim=None, keepdim=False, *, dtype=None)``: the ``reduce_sum`` primitive."""
    out = F.reduce_sum(input, axis=axes(dim), keep_dims=bool(keepdim))
    return out if dtype is None else cast(out, dtype)


def mean(x, axis=None, keep_dims=False):
    """``ops.mean(x, axis=None, keep_dims=False)``: the ``reduce_mean`` primitive."""
    return F.reduce_mean(x, axis=axes(axis), keep_dims=bool(keep_dims))
