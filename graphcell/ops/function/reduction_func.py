"""Reductions over axes (``sum``, ``mean``, ``max``...) with MindSpore's signatures, written against
the functional API ``F``.
"""
from __future__ import annotations

from graphcell.ops._faces import overload
from graphcell.ops.function._utils import axes, normalize_axis
from graphcell.ops.function.array_func import cast
from graphcell_ir.ir.types import int64
from graphcell_ir.ops import functional as F

__all__ = ["sum", "mean", "argmax"]


def sum(input, dim=None, keepdim=False, *, dtype=None):  # noqa: A001 - MindSpore's name
    """``ops.sum(input, dim=None, keepdim=False, *, dtype=None)``: the ``reduce_sum`` primitive."""
    out = F.reduce_sum(input, axis=axes(dim), keep_dims=bool(keepdim))
    return out if dtype is None else cast(out, dtype)


def mean(x, axis=None, keep_dims=False):
    """``ops.mean(x, axis=None, keep_dims=False)``: the ``reduce_mean`` primitive."""
    return F.reduce_mean(x, axis=axes(axis), keep_dims=bool(keep_dims))


def argmax(input, dim=None, keepdim=False):  # noqa: A002 - MindSpore's parameter name
    """``ops.argmax(input, dim=None, keepdim=False)``: Int64 indices of the maxima along ``dim``
    (of all elements, flattened, when ``dim`` is None); ties give the first index."""
    if dim is None:
        out = F.argmax(F.reshape(input, shape=(-1,)), axis=0, output_type=int64)
        return F.reshape(out, shape=(1,) * input.ndim) if keepdim else out
    dim = normalize_axis(dim, input.ndim, "dim")
    out = F.argmax(input, axis=dim, output_type=int64)
    return F.expand_dims(out, axis=dim) if keepdim else out


def _argmax_axis(self, axis: int | None = None, keepdims: bool = False):
    return argmax(self, axis, keepdims)


def _argmax_dim(self, dim: int | None = None, keepdim: bool = False):
    return argmax(self, dim, keepdim)


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
    # MindSpore 2.10 accepts both spellings (the axis/keepdims one is deprecated)
    "argmax": overload(_argmax_axis, _argmax_dim, name="argmax"),
    "sum": _sum_method,
    **{name.removeprefix("reduce_"): _reduction_method(name)
       for name in ("reduce_mean", "reduce_max", "reduce_min", "reduce_prod", "reduce_any",
                    "reduce_all")},
}
