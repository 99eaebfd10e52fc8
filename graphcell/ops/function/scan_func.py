"""Cumulative operations and differences with MindSpore 2.10's signatures: ``cumsum``,
``cumprod``, ``cummax``, ``cummin``, ``logcumsumexp``, ``diff`` — thin spellings of the scan
primitives (``graphcell_ir/ops/scan.py``) and composites written against ``F``.

Dtypes as MindSpore 2.10 gives them: ``ops.cumsum``/``CumSum`` keep the input's dtype and refuse
Bool; ``Tensor.cumsum`` first widens Bool, Int8, Int16 and UInt8 to Int32 (and flattens when no
axis is given); ``ops.cumprod``/``Tensor.cumprod`` widen integers and Bool to Int64 while
``CumProd`` keeps the dtype; ``cummax`` indices are Int64, ``cummin`` indices Int32.
"""
from __future__ import annotations

import numpy as np

from graphcell.ops._faces import overload
from graphcell.ops.function._utils import normalize_axis, scalar
from graphcell.ops.function.array_func import cast
from graphcell.ops.primitive import primitive
from graphcell.tensor import Tensor
from graphcell_ir.ir.types import bool_, int8, int16, int32, int64, uint8, uint16, uint32, uint64
from graphcell_ir.ops import functional as F

__all__ = ["cumsum", "cumprod", "cummax", "cummin", "logcumsumexp", "diff",
           "CumulativeLogsumexp"]


def _axis_int(axis, fname: str, name: str = "axis") -> int:
    if isinstance(axis, (bool, np.bool_)) or not isinstance(axis, (int, np.integer)):
        raise TypeError(f"{fname}: {name} must be an int, got {type(axis).__name__}")
    return int(axis)


def _check_tensor(x, fname: str, name: str = "input") -> None:
    if not isinstance(x, Tensor):
        raise TypeError(f"{fname}: {name} must be a Tensor, got {type(x).__name__}")


def cumsum(x, axis, dtype=None):
    """``ops.cumsum(x, axis, dtype=None)``: the cumulative sum along ``axis`` (``dtype`` casts the
    input first; without it the input's dtype is kept and Bool is refused).

    >>> import graphcell as ms
    >>> cumsum(ms.Tensor([1, 2, 3]), 0).asnumpy().tolist()
    [1, 3, 6]
    """
    _check_tensor(x, "ops.cumsum", "x")
    if dtype is not None:
        x = cast(x, dtype)
    return F.cumsum(x, axis=_axis_int(axis, "ops.cumsum"))


def cumprod(input, dim, dtype=None):
    """``ops.cumprod(input, dim, dtype=None)``: the cumulative product along ``dim``; integer and
    Bool inputs multiply in Int64 unless ``dtype`` says otherwise."""
    _check_tensor(input, "ops.cumprod")
    if dtype is not None:
        input = cast(input, dtype)
    elif not input.dtype.is_float:
        input = cast(input, int64)
    return F.cumprod(input, axis=_axis_int(dim, "ops.cumprod", "dim"))


def cummax(input, axis):
    """``ops.cummax(input, axis)``: ``(values, indices)`` of the running maximum along ``axis``;
    Int64 indices, the later index on ties."""
    _check_tensor(input, "ops.cummax")
    return F.cummax(input, axis=_axis_int(axis, "ops.cummax"))


def cummin(input, axis):
    """``ops.cummin(input, axis)``: ``(values, indices)`` of the running minimum along ``axis``;
    Int32 indices, the later index on ties."""
    _check_tensor(input, "ops.cummin")
    return F.cummin(input, axis=_axis_int(axis, "ops.cummin"))


def logcumsumexp(input, axis):
    """``ops.logcumsumexp(input, axis)``: ``log(cumsum(exp(input)))`` along ``axis``, computed
    without overflow; float inputs only."""
    _check_tensor(input, "ops.logcumsumexp")
    return F.cumlogsumexp(input, axis=_axis_int(axis, "ops.logcumsumexp"))


def _cumulative_logsumexp(x, axis, exclusive=False, reverse=False):
    """``CumulativeLogsumexp(exclusive=False, reverse=False)(x, axis)``: MindSpore passes ``axis``
    as a 0-d Tensor (its value must be known: in graph mode it must be a constant)."""
    if isinstance(axis, Tensor):
        axis = scalar(axis)
    return F.cumlogsumexp(x, axis=_axis_int(axis, "CumulativeLogsumexp"), exclusive=bool(exclusive),
                          reverse=bool(reverse))


CumulativeLogsumexp = primitive("CumulativeLogsumexp", _cumulative_logsumexp,
                                init=("exclusive", "reverse"))


# --- diff ------------------------------------------------------------------------------------------

_UNSIGNED_WIDE = (uint16, uint32, uint64)


def diff(x, n=1, axis=-1, prepend=None, append=None):
    """``ops.diff(x, n=1, axis=-1, prepend=None, append=None)``: ``x[1:] - x[:-1]`` along ``axis``
    after joining ``prepend`` and ``append`` to ``x``; MindSpore 2.10 supports ``n=1`` only. The
    difference of Bool tensors is their exclusive or."""
    _check_tensor(x, "ops.diff", "x")
    if x.ndim < 1:
        raise TypeError("ops.diff: x must have at least 1 dimension, got a 0-d tensor")
    if 0 in tuple(x.shape):
        raise ValueError(f"ops.diff: x must not be empty, got shape {list(x.shape)}")
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)):
        raise TypeError(f"ops.diff: n must be an int, got {type(n).__name__}")
    if n != 1:
        raise ValueError(f"ops.diff: n must be 1 (as in MindSpore 2.10), got {n}")
    if x.dtype in _UNSIGNED_WIDE:
        raise TypeError(f"ops.diff: x cannot be {x.dtype}")
    a = normalize_axis(axis, x.ndim, "ops.diff: axis")
    parts = [p for p in (prepend, x, append) if p is not None]
    if len(parts) > 1:
        x = F.concat(*parts, axis=a)
    size = x.shape[a]
    head = (slice(None),) * a
    later = F.getitem(x, key=head + (slice(1, size, None),))
    earlier = F.getitem(x, key=head + (slice(0, size - 1, None),))
    if x.dtype.is_bool:
        return F.not_equal(later, earlier)
    return F.sub(later, earlier)


# --- Tensor methods --------------------------------------------------------------------------------

_NARROW = (bool_, int8, int16, uint8)


def _cumsum_method(self, axis, dtype):
    """``Tensor.cumsum``: narrow integers and Bool widen to Int32; no axis flattens first."""
    x = cast(self, int32) if self.dtype in _NARROW else self
    if axis is None:
        x, axis = F.reshape(x, shape=(-1,)), 0
    out = F.cumsum(x, axis=_axis_int(axis, "Tensor.cumsum"))
    return out if dtype is None else cast(out, dtype)


def _cumsum_dim(self, dim: int, *, dtype=None):
    return _cumsum_method(self, dim, dtype)


def _cumsum_axis(self, axis: int | None = None, dtype=None):
    return _cumsum_method(self, axis, dtype)


def _cumprod_method(self, dim, dtype=None):
    return cumprod(self, dim, dtype)


def _cummax_method(self, axis):
    return cummax(self, axis)


def _cummin_method(self, axis):
    return cummin(self, axis)


def _logcumsumexp_method(self, axis):
    return logcumsumexp(self, axis)


def _diff_method(self, n=1, axis=-1, prepend=None, append=None):
    return diff(self, n, axis, prepend, append)


TENSOR_METHODS = {
    # Tensor.cumsum(dim, *, dtype=None) and the older Tensor.cumsum(axis=None, dtype=None)
    "cumsum": overload(_cumsum_dim, _cumsum_axis, name="cumsum"),
    "cumprod": _cumprod_method,
    "cummax": _cummax_method,
    "cummin": _cummin_method,
    "logcumsumexp": _logcumsumexp_method,
    "diff": _diff_method,
}
