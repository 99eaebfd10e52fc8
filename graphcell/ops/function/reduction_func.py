"""Reductions with MindSpore 2.10's signatures: sums, means, products, extrema and their indices,
logical reductions, NaN-ignoring and counting reductions, variance and standard deviation,
log-sum-exp, covariance, ``Tensor.trace``/``ptp`` — written against the functional API ``F``.

Dtype rules, as MindSpore 2.10 (CPU) computes them:

- ``ops.sum``, ``Tensor.sum``, ``ops.prod`` with an int (or no) axis, ``Tensor.prod`` and
  ``Tensor.trace`` widen integer and Bool inputs to Int64; the Primitives (``ReduceSum``,
  ``ReduceProd``...), ``ops.reduce_sum``, ``ops.prod`` with a tuple axis and ``ops.nansum`` keep the
  input's dtype (``ReduceSum`` of Bool is "any");
- means of integers truncate toward zero in the input's dtype; Bool is refused by means, max and
  min (``ops.argmax`` alone casts Bool to Int32 first);
- ``ops.argmax`` gives Int64 indices, ``ops.argmin`` Int32 (MindSpore's ``Argmin`` default),
  ``ops.max``/``ops.min``/``Tensor.max(dim)`` Int64; ``count_nonzero`` Int32 unless ``dtype``;
- an empty axis tuple (or None) reduces every axis.

Gradients follow MindSpore: ``ReduceMax``/``amax``/``Tensor.max()`` share the gradient among tied
maxima, while the index-returning ``ops.max(x, axis)``/``ArgMaxWithValue`` send it to the one
index they return (the first of ties).

Where graphcell deliberately differs (``docs/decisions.md``, "Reductions"): ``Tensor.var``/``std``
of integers are computed exactly in Float32 (MindSpore subtracts a truncated integer mean), and
``Tensor.var(dim=...)`` works (MindSpore 2.10's CPU build has no kernel for it).
"""
from __future__ import annotations

import builtins

import numpy as np

from graphcell.ops._faces import overload
from graphcell.ops.function._utils import normalize_axis
from graphcell.ops.function.array_func import cast
from graphcell.ops.primitive import primitive
from graphcell.tensor import Tensor
from graphcell_ir.ir.types import DType, bool_, float32, int32, int64, to_dtype
from graphcell_ir.ops import functional as F

__all__ = ["sum", "reduce_sum", "mean", "reduce_mean", "prod", "amax", "amin", "max", "min",
           "reduce_max", "reduce_min", "all", "any", "argmax", "argmin", "aminmax", "nansum",
           "nanmean", "count_nonzero", "var", "std", "var_mean", "std_mean", "logsumexp", "cov",
           "ReduceStd", "EqualCount"]


# --- arguments -----------------------------------------------------------------------------------

def reduce_axes(axis, ndim: int, fname: str, name: str = "axis") -> tuple[int, ...] | None:
    """MindSpore's reduction axis (an int, a tuple or list of ints, None or ``()`` for all) as
    sorted non-negative ints, or None for every axis. TypeError/ValueError name ``fname``."""
    if axis is None or (isinstance(axis, (tuple, list)) and len(axis) == 0):
        return None
    items = axis if isinstance(axis, (tuple, list)) else (axis,)
    out = []
    for a in items:
        if isinstance(a, (bool, np.bool_)) or not isinstance(a, (int, np.integer)):
            raise TypeError(f"{fname}: {name} must be an int or a tuple of ints, got {axis!r}")
        a = normalize_axis(a, ndim, f"{fname}: {name}")
        if a in out:
            raise ValueError(f"{fname}: {name} {axis!r} repeats axis {a}")
        out.append(a)
    return tuple(sorted(out)) if ndim else None


def _reduce(op, x, axis, keep_dims, fname: str):
    return op(x, axis=reduce_axes(axis, x.ndim, fname), keep_dims=bool(keep_dims))


def _check_tensor(x, fname: str, name: str = "input") -> None:
    if not isinstance(x, Tensor):
        raise TypeError(f"{fname}: {name} must be a Tensor, got {type(x).__name__}")


def _widened(x):
    """Integer and Bool tensors as Int64 (what ``ops.sum`` and ``ops.prod`` accumulate in)."""
    return x if x.dtype.is_float else cast(x, int64)


def _in_dtype(x, dtype, widen: bool):
    if dtype is not None:
        return cast(x, dtype)
    return _widened(x) if widen else x


def _numeric(x, fname: str) -> None:
    if x.dtype.is_bool:
        raise TypeError(f"{fname}: the input must be numeric, got a Bool tensor")


def _float_only(x, fname: str) -> None:
    if not x.dtype.is_float:
        raise TypeError(f"{fname}: the input must have a float dtype, got {x.dtype}")


def check_bool(value, fname: str, name: str) -> bool:
    """``value`` if it is a bool (MindSpore refuses ints for its flags), else TypeError."""
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{fname}: {name} must be a bool, got {type(value).__name__}")
    return bool(value)


def _zero(dtype: DType, shape=()):
    return F.fill(dtype=dtype, shape=tuple(shape), value=0)


# --- sums, means, products -------------------------------------------------------------------------

def sum(input, dim=None, keepdim=False, *, dtype=None):  # noqa: A001 - MindSpore's name
    """``ops.sum(input, dim=None, keepdim=False, *, dtype=None)``: the sum over ``dim`` (all axes
    when None); integer and Bool inputs sum in Int64, ``dtype`` casts the input first.

    >>> import graphcell as ms
    >>> sum(ms.Tensor([[1, 2], [3, 4]]), dim=1).asnumpy().tolist()
    [3, 7]
    """
    _check_tensor(input, "ops.sum")
    return _reduce(F.reduce_sum, _in_dtype(input, dtype, widen=True), dim, keepdim, "ops.sum")


def reduce_sum(x, axis=()):
    """``ops.reduce_sum(x, axis=())``: ``ReduceSum()(x, axis)``, the input's dtype kept."""
    return _reduce(F.reduce_sum, x, axis, False, "ops.reduce_sum")


def mean(x, axis=None, keep_dims=False):
    """``ops.mean(x, axis=None, keep_dims=False)``: integer means truncate toward zero."""
    _check_tensor(x, "ops.mean", "x")
    _numeric(x, "ops.mean")
    return _reduce(F.reduce_mean, x, axis, keep_dims, "ops.mean")


def reduce_mean(x, axis=()):
    """``ops.reduce_mean(x, axis=())``: ``ReduceMean()(x, axis)``."""
    return mean(x, axis)


def prod(input, axis=None, keep_dims=False, dtype=None):
    """``ops.prod(input, axis=None, keep_dims=False, dtype=None)``: the product over ``axis``.

    An int (or no) axis widens integer and Bool inputs to Int64; a tuple or list of axes is
    MindSpore's ``ReduceProd``, which keeps the input's dtype. ``dtype`` casts the input first.
    """
    _check_tensor(input, "ops.prod")
    if axis is None and keep_dims:
        raise ValueError("ops.prod: keep_dims must be False when axis is None (MindSpore 2.10)")
    x = _in_dtype(input, dtype, widen=not isinstance(axis, (tuple, list)))
    return _reduce(F.reduce_prod, x, axis, keep_dims, "ops.prod")


# --- extrema ---------------------------------------------------------------------------------------

def _with_initial(x, initial, where, combine, fname: str):
    """MindSpore's ``initial``/``where`` for max/min: elements are combined with ``initial``, and
    where ``where`` is False they are replaced by it."""
    if isinstance(initial, Tensor) and fname in ("ops.amax", "ops.amin"):
        initial = F.broadcast_to(F.cast(initial, dtype=x.dtype), shape=tuple(x.shape))
        x = combine(x, initial)  # amax/amin (not max/min) also take a 0-d Tensor
    elif initial is not None:
        if not isinstance(initial, (int, float, np.number)) or isinstance(initial, bool):
            raise TypeError(f"{fname}: initial must be a number, got {type(initial).__name__}")
        initial = F.fill(dtype=x.dtype, shape=tuple(x.shape), value=initial)
        x = combine(x, initial)
    if where is None or where is True:
        return x
    if initial is None:
        raise ValueError(f"{fname}: initial must be given with a where mask")
    mask = where if isinstance(where, Tensor) else np.asarray(where, dtype=bool)
    if isinstance(mask, Tensor) and not mask.dtype.is_bool:
        mask = F.cast(mask, dtype=bool_)
    mask = F.broadcast_to(mask, shape=tuple(x.shape))
    return F.select(mask, x, initial)


def amax(input, axis=None, keepdims=False, *, initial=None, where=None):
    """``ops.amax(input, axis=None, keepdims=False, *, initial=None, where=None)``: the maximum
    over ``axis``; the gradient is shared among tied maxima (``ReduceMax``)."""
    _check_tensor(input, "ops.amax")
    _numeric(input, "ops.amax")
    x = _with_initial(input, initial, where, F.maximum, "ops.amax")
    return _reduce(F.reduce_max, x, axis, keepdims, "ops.amax")


def amin(input, axis=None, keepdims=False, *, initial=None, where=None):
    """``ops.amin(input, axis=None, keepdims=False, *, initial=None, where=None)``."""
    _check_tensor(input, "ops.amin")
    _numeric(input, "ops.amin")
    x = _with_initial(input, initial, where, F.minimum, "ops.amin")
    return _reduce(F.reduce_min, x, axis, keepdims, "ops.amin")


def reduce_max(x, axis=()):
    """``ops.reduce_max(x, axis=())``: ``ReduceMax()(x, axis)``."""
    return amax(x, axis)


def reduce_min(x, axis=()):
    """``ops.reduce_min(x, axis=())``: ``ReduceMin()(x, axis)``."""
    return amin(x, axis)


def arg_extremum_with_value(x, axis: int, keep_dims: bool, largest: bool, fname: str):
    """``(indices, values)`` of the maxima (``largest``) or minima along ``axis``: the
    ``argmax_with_value`` primitive (Int64 indices, the first of ties; the gradient of the values
    goes to that one element)."""
    _check_tensor(x, fname)
    _numeric(x, fname)
    if isinstance(axis, bool) or not isinstance(axis, (int, np.integer)):
        raise TypeError(f"{fname}: axis must be an int, got {type(axis).__name__}")
    normalize_axis(axis, x.ndim, f"{fname}: axis")
    op = F.argmax_with_value if largest else F.argmin_with_value
    return op(x, axis=int(axis), keep_dims=bool(keep_dims))


def _extremum(input, axis, keepdims, initial, where, largest: bool, fname: str):
    """``ops.max``/``ops.min``: ``(values, indices)``; without an axis the indices are 0."""
    _check_tensor(input, fname)
    _numeric(input, fname)
    if input.ndim == 0 or axis is None:
        values = input if input.ndim == 0 else (F.reduce_max if largest else F.reduce_min)(input)
        return values, F.fill(dtype=int64, shape=(), value=0)
    x = _with_initial(input, initial, where, F.maximum if largest else F.minimum, fname)
    index, values = arg_extremum_with_value(x, axis, keepdims, largest, fname)
    return values, index


def max(input, axis=None, keepdims=False, *, initial=None, where=None):  # noqa: A001
    """``ops.max(input, axis=None, keepdims=False, *, initial=None, where=None)``: ``(values,
    indices)`` of the maxima along ``axis`` (an int); with no axis, the maximum of all elements
    and the index 0, as MindSpore 2.10 returns."""
    return _extremum(input, axis, keepdims, initial, where, True, "ops.max")


def min(input, axis=None, keepdims=False, *, initial=None, where=None):  # noqa: A001
    """``ops.min(input, axis=None, keepdims=False, *, initial=None, where=None)``: see ``max``."""
    return _extremum(input, axis, keepdims, initial, where, False, "ops.min")


def aminmax(input, *, axis=0, keepdims=False):
    """``ops.aminmax(input, *, axis=0, keepdims=False)``: ``(min, max)`` along ``axis`` (of all
    elements when None, then ``keepdims`` keeps every axis as 1)."""
    if axis is None:
        lo, hi = F.reduce_min(input), F.reduce_max(input)
        if keepdims:
            lo = F.reshape(lo, shape=(1,) * input.ndim)
            hi = F.reshape(hi, shape=(1,) * input.ndim)
        return lo, hi
    _, lo = arg_extremum_with_value(input, axis, keepdims, False, "ops.aminmax")
    _, hi = arg_extremum_with_value(input, axis, keepdims, True, "ops.aminmax")
    return lo, hi


def argmax(input, dim=None, keepdim=False):  # noqa: A002 - MindSpore's parameter name
    """``ops.argmax(input, dim=None, keepdim=False)``: Int64 indices of the maxima along ``dim``
    (of all elements, flattened, when ``dim`` is None); ties give the first index; Bool inputs
    are compared as Int32."""
    _check_tensor(input, "ops.argmax")
    keepdim = check_bool(keepdim, "ops.argmax", "keepdim")
    if input.ndim == 0:
        return F.fill(dtype=int64, shape=(), value=0)
    x = cast(input, int32) if input.dtype.is_bool else input
    if dim is None:
        return F.argmax(F.reshape(x, shape=(-1,)), axis=0, output_type=int64)
    dim = normalize_axis(dim, x.ndim, "ops.argmax: dim")
    out = F.argmax(x, axis=dim, output_type=int64)
    return F.expand_dims(out, axis=dim) if keepdim else out


def argmin(input, axis=None, keepdims=False):  # noqa: A002
    """``ops.argmin(input, axis=None, keepdims=False)``: Int32 indices of the minima (MindSpore's
    ``Argmin`` default; Int64 0 for a 0-d input); Bool is refused."""
    _check_tensor(input, "ops.argmin")
    if input.ndim == 0:
        return F.fill(dtype=int64, shape=(), value=0)
    if axis is None:
        return F.argmin(F.reshape(input, shape=(-1,)), axis=0, output_type=int32)
    axis = normalize_axis(axis, input.ndim, "ops.argmin: axis")
    out = F.argmin(input, axis=axis, output_type=int32)
    return F.expand_dims(out, axis=axis) if keepdims else out


# --- logical reductions ----------------------------------------------------------------------------

def all(input, axis=None, keep_dims=False):  # noqa: A001
    """``ops.all(input, axis=None, keep_dims=False)``: whether every element is non-zero."""
    _check_tensor(input, "ops.all")
    return _reduce(F.reduce_all, input, axis, keep_dims, "ops.all")


def any(input, axis=None, keep_dims=False):  # noqa: A001
    """``ops.any(input, axis=None, keep_dims=False)``: whether some element is non-zero (UInt8 for
    a UInt8 input, as MindSpore's ``ReduceAny``)."""
    _check_tensor(input, "ops.any")
    return _reduce(F.reduce_any, input, axis, keep_dims, "ops.any")


# --- NaN-ignoring and counting reductions ----------------------------------------------------------

def _nan_to_zero(x):
    return F.select(F.isnan(x), _zero(x.dtype, x.shape), x) if x.dtype.is_float else x


def nansum(input, axis=None, keepdims=False, *, dtype=None):
    """``ops.nansum(input, axis=None, keepdims=False, *, dtype=None)``: the sum with NaNs counted
    as zero; the input's dtype is kept (Bool sums in Int64), then cast to ``dtype``."""
    _check_tensor(input, "ops.nansum")
    x = cast(input, int64) if input.dtype.is_bool else input
    out = _reduce(F.reduce_sum, _nan_to_zero(x), axis, keepdims, "ops.nansum")
    return out if dtype is None or to_dtype(dtype) is out.dtype else cast(out, dtype)


def nanmean(input, axis=None, keepdims=False, *, dtype=None):
    """``ops.nanmean(input, axis=None, keepdims=False, *, dtype=None)``: the mean of the non-NaN
    elements (NaN where there are none); float inputs only."""
    _check_tensor(input, "ops.nanmean")
    _float_only(input, "ops.nanmean")
    valid = F.logical_not(F.isnan(input))
    total = _reduce(F.reduce_sum, _nan_to_zero(input), axis, keepdims, "ops.nanmean")
    count = _reduce(F.reduce_sum, F.cast(valid, dtype=input.dtype), axis, keepdims, "ops.nanmean")
    out = F.div(total, count)
    return out if dtype is None or to_dtype(dtype) is out.dtype else cast(out, dtype)


def count_nonzero(x, axis=(), keep_dims=False, dtype=int32):
    """``ops.count_nonzero(x, axis=(), keep_dims=False, dtype=mindspore.int32)``: the number of
    non-zero elements over ``axis``, as ``dtype``; Bool inputs are refused."""
    _check_tensor(x, "ops.count_nonzero", "x")
    if x.dtype.is_bool:
        raise TypeError("ops.count_nonzero: x must be a numeric tensor, got Bool")
    keep_dims = check_bool(keep_dims, "ops.count_nonzero", "keep_dims")
    nonzero = F.cast(F.not_equal(x, 0), dtype=float32)
    return cast(_reduce(F.reduce_sum, nonzero, axis, keep_dims, "ops.count_nonzero"), dtype)


def _equal_count(x, y):
    """``EqualCount()(x, y)``: how many elements of two same-shaped, same-dtype tensors are
    equal, as a 1-element tensor of their dtype."""
    if x.dtype is not y.dtype:
        raise TypeError(f"EqualCount: x and y must have the same dtype, got {x.dtype} and {y.dtype}")
    if tuple(x.shape) != tuple(y.shape):
        raise ValueError(f"EqualCount: x and y must have the same shape, got {list(x.shape)} and "
                         f"{list(y.shape)}")
    hits = F.reduce_sum(F.cast(F.equal(x, y), dtype=int64))
    return F.reshape(F.cast(hits, dtype=x.dtype), shape=(1,))


EqualCount = primitive("EqualCount", _equal_count)


# --- variance, standard deviation ------------------------------------------------------------------

def _var_axes(input, axis, ddof, keepdims, fname: str):
    _check_tensor(input, fname)
    if isinstance(ddof, (bool, np.bool_)):
        ddof = int(ddof)
    if not isinstance(ddof, (int, np.integer)):
        raise TypeError(f"{fname}: ddof must be an int, got {type(ddof).__name__}")
    if not isinstance(keepdims, (bool, np.bool_)):
        raise TypeError(f"{fname}: keepdims must be a bool, got {type(keepdims).__name__}")
    if isinstance(axis, list):
        raise TypeError(f"{fname}: axis must be an int or a tuple of ints, got a list")
    return reduce_axes(axis, input.ndim, fname), int(ddof)


def var_and_mean(x, axes, ddof: int, keepdims: bool):
    """``(variance, mean)`` of ``x`` over ``axes`` (None: all), dividing by ``n - ddof``."""
    n = 1
    for a in (range(x.ndim) if axes is None else axes):
        n *= x.shape[a]
    centred = F.sub(x, F.reduce_mean(x, axis=axes, keep_dims=True))
    squares = F.reduce_sum(F.mul(centred, centred), axis=axes, keep_dims=keepdims)
    return F.div(squares, n - ddof), F.reduce_mean(x, axis=axes, keep_dims=keepdims)


def var_mean(input, axis=None, ddof=0, keepdims=False):
    """``ops.var_mean(input, axis=None, ddof=0, keepdims=False)``: ``(variance, mean)`` over
    ``axis``, the variance divided by ``n - ddof``; float inputs only."""
    axes, ddof = _var_axes(input, axis, ddof, keepdims, "ops.var_mean")
    _float_only(input, "ops.var_mean")
    return var_and_mean(input, axes, ddof, keepdims)


def var(input, axis=None, ddof=0, keepdims=False):
    """``ops.var(input, axis=None, ddof=0, keepdims=False)``: see ``var_mean``."""
    axes, ddof = _var_axes(input, axis, ddof, keepdims, "ops.var")
    _float_only(input, "ops.var")
    return var_and_mean(input, axes, ddof, keepdims)[0]


def std_mean(input, axis=None, ddof=0, keepdims=False):
    """``ops.std_mean(input, axis=None, ddof=0, keepdims=False)``: ``(std, mean)``."""
    axes, ddof = _var_axes(input, axis, ddof, keepdims, "ops.std_mean")
    _float_only(input, "ops.std_mean")
    v, m = var_and_mean(input, axes, ddof, keepdims)
    return F.sqrt(v), m


def std(input, axis=None, ddof=0, keepdims=False):
    """``ops.std(input, axis=None, ddof=0, keepdims=False)``: see ``std_mean``."""
    axes, ddof = _var_axes(input, axis, ddof, keepdims, "ops.std")
    _float_only(input, "ops.std")
    return F.sqrt(var_and_mean(input, axes, ddof, keepdims)[0])


def _reduce_std(x, axis=(), unbiased=True, keep_dims=False):
    """``ReduceStd(axis=[], unbiased=True, keep_dims=False)(x)``: ``(std, mean)``."""
    _check_tensor(x, "ReduceStd", "x")
    _float_only(x, "ReduceStd")
    axes = reduce_axes(tuple(axis) if isinstance(axis, list) else axis, x.ndim, "ReduceStd")
    v, m = var_and_mean(x, axes, int(bool(unbiased)), bool(keep_dims))
    return F.sqrt(v), m


ReduceStd = primitive("ReduceStd", _reduce_std, init=("axis", "unbiased", "keep_dims"))


# --- log-sum-exp, covariance -----------------------------------------------------------------------

def logsumexp(input, dim, keepdim=False):
    """``ops.logsumexp(input, dim, keepdim=False)``: ``log(sum(exp(input)))`` over ``dim``,
    shifted by the maximum so that it does not overflow."""
    _check_tensor(input, "ops.logsumexp")
    axes = reduce_axes(dim, input.ndim, "ops.logsumexp", "dim")
    top = F.reduce_max(input, axis=axes, keep_dims=True)
    total = F.reduce_sum(F.exp(F.sub(input, top)), axis=axes, keep_dims=bool(keepdim))
    return F.add(F.log(total), top if keepdim else F.reshape(top, shape=tuple(total.shape)))


def _cov_weight(w, name: str, n: int, integral: bool):
    if not isinstance(w, Tensor):
        raise TypeError(f"ops.cov: {name} must be a Tensor, got {type(w).__name__}")
    if w.ndim > 1 or (w.ndim == 1 and w.shape[0] != n):
        raise ValueError(f"ops.cov: {name} must be a scalar or have {n} elements (one per "
                         f"observation), got shape {list(w.shape)}")
    if integral != (not w.dtype.is_float) or w.dtype.is_bool:
        kind = "an integer" if integral else "a floating-point"
        raise TypeError(f"ops.cov: {name} must have {kind} dtype, got {w.dtype}")
    return w


def cov(input, *, correction=1, fweights=None, aweights=None):
    """``ops.cov(input, *, correction=1, fweights=None, aweights=None)``: the covariance matrix of
    the variables in the rows of ``input`` (observations in columns), as ``numpy.cov``; a 1-D
    input is one variable (a 0-d result)."""
    _check_tensor(input, "ops.cov")
    if input.ndim > 2:
        raise ValueError(f"ops.cov: the input must have at most 2 dimensions, got {input.ndim}")
    if input.dtype.is_bool:
        raise TypeError("ops.cov: the input must be numeric, got Bool")
    x = F.reshape(input, shape=(1, -1)) if input.ndim < 2 else input
    if not x.dtype.is_float or x.dtype.itemsize < 4:
        x = cast(x, float32)  # integers and Float16 compute in Float32, as MindSpore does
    n = x.shape[1]
    w = None
    if fweights is not None:
        w = cast(_cov_weight(fweights, "fweights", n, True), x.dtype)
    if aweights is not None:
        aw = cast(_cov_weight(aweights, "aweights", n, False), x.dtype)
        w = aw if w is None else F.mul(w, aw)
    if w is None:
        w_sum, avg = n, F.div(F.reduce_sum(x, axis=(1,)), n)
        norm = builtins.max(n - correction, 0)
    else:
        w_sum = F.reduce_sum(w)
        avg = F.div(F.reduce_sum(F.mul(x, w), axis=(1,)), w_sum)
        norm = F.sub(w_sum, correction)
        if aweights is not None and correction != 0:
            norm = F.sub(w_sum, F.div(F.mul(F.reduce_sum(F.mul(w, aw)), correction), w_sum))
        norm = F.maximum(norm, _zero(norm.dtype))
    centred = F.sub(x, F.expand_dims(avg, axis=1))
    weighted = centred if w is None else F.mul(centred, w)
    c = F.matmul(centred, weighted, transpose_a=False, transpose_b=True)
    return F.squeeze(F.div(c, norm))


# --- Tensor methods --------------------------------------------------------------------------------

def _trace(self, offset=0, axis1=0, axis2=1, dtype=None):
    """``Tensor.trace(offset=0, axis1=0, axis2=1, dtype=None)``: the sum of the diagonal ``offset``
    of the planes spanned by ``axis1`` and ``axis2``; integers sum in Int64."""
    if self.ndim < 2:
        raise ValueError(f"Tensor.trace: the input must have at least 2 dimensions, got {self.ndim}")
    a1 = normalize_axis(axis1, self.ndim, "Tensor.trace: axis1")
    a2 = normalize_axis(axis2, self.ndim, "Tensor.trace: axis2")
    if a1 == a2:
        raise ValueError(f"Tensor.trace: axis1 and axis2 must differ, got {axis1} and {axis2}")
    x = _in_dtype(self, dtype, widen=True)
    plane = np.eye(self.shape[a1], self.shape[a2], k=int(offset), dtype=bool)
    mask_shape = [1] * self.ndim
    mask_shape[a1], mask_shape[a2] = self.shape[a1], self.shape[a2]
    mask = (plane if a1 < a2 else plane.T).reshape(mask_shape)
    on_diagonal = F.select(np.broadcast_to(mask, tuple(self.shape)).copy(), x,
                           _zero(x.dtype, x.shape))
    return F.reduce_sum(on_diagonal, axis=(a1, a2))


def _ptp(self, axis=None, keepdims=False):
    """``Tensor.ptp(axis=None, keepdims=False)``: maximum minus minimum over ``axis``."""
    if not isinstance(keepdims, (bool, np.bool_)):
        raise TypeError(f"Tensor.ptp: keepdims must be a bool, got {type(keepdims).__name__}")
    return F.sub(_reduce(F.reduce_max, self, axis, keepdims, "Tensor.ptp"),
                 _reduce(F.reduce_min, self, axis, keepdims, "Tensor.ptp"))


def _sum_axis(self, axis: int | tuple | list | None = None, dtype: DType | None = None,
              keepdims: bool = False, initial: int | float | None = None):
    out = sum(self, axis, keepdims, dtype=dtype)
    if initial is not None:
        out = F.add(out, initial)
    return cast(out, bool_) if dtype is not None and to_dtype(dtype) is bool_ else out


def _sum_dim(self, dim: int | tuple | list | None = None, keepdim: bool = False, *,
             dtype: DType | None = None):
    return sum(self, dim, keepdim, dtype=dtype)


def _mean_dim(self, dim: int | tuple | list | None = None, keepdim: bool = False, *,
              dtype: DType | None = None):
    return mean(self if dtype is None else cast(self, dtype), dim, keepdim)


def _mean_axis(self, axis: int | tuple | list | None = None, keep_dims: bool = False):
    return mean(self, axis, keep_dims)


def _prod_method(self, dim: int | None = None, keepdim: bool = False, dtype: DType | None = None):
    """``Tensor.prod(dim=None, keepdim=False, dtype=None)`` (integers multiply in Int64)."""
    return prod(self, dim, keepdim, dtype)


def _extremum_method(largest: bool):
    """``Tensor.max``/``min``'s three signatures: no argument (the extremum of all elements), an
    int ``dim`` (``(values, indices)``), or MindSpore's older ``axis`` form (values only, unless
    ``return_indices``)."""
    name = "max" if largest else "min"
    reduce = F.reduce_max if largest else F.reduce_min
    combine = F.maximum if largest else F.minimum

    def whole(self):
        _numeric(self, f"Tensor.{name}")
        return reduce(self)

    def along_dim(self, dim: int, keepdim: bool = False):
        index, values = arg_extremum_with_value(self, dim, keepdim, largest, f"Tensor.{name}")
        return values, index

    def along_axis(self, axis: int | tuple | list | None = None, keepdims: bool = False, *,
                   initial=None, where=None, return_indices: bool = False):
        fname = f"Tensor.{name}"
        if isinstance(axis, (tuple, list)):
            _numeric(self, fname)
            x = _with_initial(self, initial, where, combine, fname)
            return _reduce(reduce, x, axis, keepdims, fname)
        values, index = _extremum(self, axis, keepdims, initial, where, largest, fname)
        return (values, index) if return_indices else values

    return overload(whole, along_dim, along_axis, name=name)


def _argmax_axis(self, axis: int | None = None, keepdims: bool = False):
    return argmax(self, axis, keepdims)


def _argmax_dim(self, dim: int | None = None, keepdim: bool = False):
    return argmax(self, dim, keepdim)


def _argmin_axis(self, axis: int | None = None, keepdims: bool = False):
    return argmin(self, axis, keepdims)


def _argmin_dim(self, dim: int | None = None, keepdim: bool = False):
    return argmin(self, dim, keepdim)


def _all_axis(self, axis: int | tuple | list | None = None, keep_dims: bool = False):
    return all(self, axis, keep_dims)


def _all_dim(self, dim: int | tuple | list | None = None, keepdim: bool = False):
    return all(self, dim, keepdim)


def _any_axis(self, axis: int | tuple | list | None = None, keep_dims: bool = False):
    return any(self, axis, keep_dims)


def _any_dim(self, dim: int | tuple | list | None = None, keepdim: bool = False):
    return any(self, dim, keepdim)


def _exact_float(x):
    """Integers as Float32 (``Tensor.var``/``std`` of integers; see the module docstring)."""
    return x if x.dtype.is_float else cast(x, float32)


def _var_axis(self, axis: int | tuple | list | None = None, ddof: int | bool = 0,
              keepdims: bool = False):
    axes, ddof = _var_axes(self, axis, ddof, keepdims, "Tensor.var")
    return var_and_mean(_exact_float(self), axes, ddof, keepdims)[0]


def _var_dim(self, dim: int | tuple | list | None = None, *, correction: int = 1,
             keepdim: bool = False):
    axes, ddof = _var_axes(self, dim, correction, keepdim, "Tensor.var")
    return var_and_mean(_exact_float(self), axes, ddof, keepdim)[0]


def _std_axis(self, axis: int | tuple | list | None = None, ddof: int | bool = 0,
              keepdims: bool = False):
    return F.sqrt(_var_axis(self, axis, ddof, keepdims))


def _std_dim(self, dim: int | tuple | list | None = None, *, correction: int = 0,
             keepdim: bool = False):
    # correction defaults to 0 here: MindSpore 2.10's Tensor.std(dim=...) divides by n
    return F.sqrt(_var_dim(self, dim, correction=correction, keepdim=keepdim))


def _nansum_method(self, axis=(), keepdims=False, *, dtype=None):
    """``Tensor.nansum(axis=(), keepdims=False, *, dtype=None)``."""
    return nansum(self, axis, keepdims, dtype=dtype)


def _count_nonzero_method(self, axis=(), keep_dims=False, dtype=None):
    """``Tensor.count_nonzero(axis=(), keep_dims=False, dtype=None)`` (Int32 by default)."""
    return count_nonzero(self, axis, keep_dims, int32 if dtype is None else dtype)


def _logsumexp_method(self, dim, keepdim=False):
    return logsumexp(self, dim, keepdim)


def _amax_method(self, axis=None, keepdims=False, *, initial=None, where=None):
    return amax(self, axis, keepdims, initial=initial, where=where)


def _amin_method(self, axis=None, keepdims=False, *, initial=None, where=None):
    return amin(self, axis, keepdims, initial=initial, where=where)


def _aminmax_method(self, *, axis=0, keepdims=False):
    return aminmax(self, axis=axis, keepdims=keepdims)


def _argmax_with_value_method(self, axis=0, keep_dims=False):
    """``Tensor.argmax_with_value(axis=0, keep_dims=False)``: ``(values, indices)``."""
    index, values = arg_extremum_with_value(self, axis, keep_dims, True, "Tensor.argmax_with_value")
    return values, index


def _argmin_with_value_method(self, axis=0, keep_dims=False):
    """``Tensor.argmin_with_value(axis=0, keep_dims=False)``: ``(values, indices)``."""
    index, values = arg_extremum_with_value(self, axis, keep_dims, False, "Tensor.argmin_with_value")
    return values, index


def _nanmean_method(self, axis=None, keepdims=False, *, dtype=None):
    return nanmean(self, axis, keepdims, dtype=dtype)


def _cov_method(self, *, correction=1, fweights=None, aweights=None):
    return cov(self, correction=correction, fweights=fweights, aweights=aweights)


TENSOR_METHODS = {
    # MindSpore 2.10 accepts both spellings where it has two overloads (the older one first, as
    # its dispatcher tries them: x.sum(1, ms.float64) is (axis, dtype), x.sum(1, True) (dim, keepdim))
    "sum": overload(_sum_axis, _sum_dim, name="sum"),
    "mean": overload(_mean_dim, _mean_axis, name="mean"),
    "prod": _prod_method,
    "max": _extremum_method(True),
    "min": _extremum_method(False),
    "amax": _amax_method,
    "amin": _amin_method,
    "aminmax": _aminmax_method,
    "argmax": overload(_argmax_axis, _argmax_dim, name="argmax"),
    "argmin": overload(_argmin_axis, _argmin_dim, name="argmin"),
    "argmax_with_value": _argmax_with_value_method,
    "argmin_with_value": _argmin_with_value_method,
    "all": overload(_all_axis, _all_dim, name="all"),
    "any": overload(_any_axis, _any_dim, name="any"),
    "nansum": _nansum_method,
    "nanmean": _nanmean_method,
    "count_nonzero": _count_nonzero_method,
    "var": overload(_var_axis, _var_dim, name="var"),
    "std": overload(_std_axis, _std_dim, name="std"),
    "logsumexp": _logsumexp_method,
    "cov": _cov_method,
    "trace": _trace,
    "ptp": _ptp,
}
