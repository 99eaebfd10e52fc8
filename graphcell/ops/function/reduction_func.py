"""Reductions over axes (``sum``, ``mean``, ``max``...) with MindSpore's signatures, written against
the functional API ``F``.
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


# --- Tensor methods (as graphcell had them before the breadth work; MindSpore 2.10's overloads
# replace them family by family) ---------------------------------------------------------------

def _reduce(x, name: str, axis, keep_dims: bool):
    return getattr(F, name)(x, axis=axes(axis), keep_dims=bool(keep_dims))


def _sum_method(self, axis=None, dtype=None, keepdims=False, initial=None, keep_dims=None):
    """Sum over ``axis`` (all axes when None); integer and bool inputs sum in Int64."""
    out = _reduce(self, "reduce_sum", axis, keepdims if keep_dims is None else keep_dims)
    if initial is not None:
        out = out + initial
    return out if dtype is None else cast(out, dtype)


def _reduction_method(name: str):
    def method(self, axis=None, keep_dims=False, keepdims=None, initial=None, where=None):
        return _reduce(self, name, axis, keep_dims if keepdims is None else keepdims)
    method.__name__ = name.removeprefix("reduce_")
    return method


TENSOR_METHODS = {
    "sum": _sum_method,
    **{name.removeprefix("reduce_"): _reduction_method(name)
       for name in ("reduce_mean", "reduce_max", "reduce_min", "reduce_prod", "reduce_any",
                    "reduce_all")},
}
