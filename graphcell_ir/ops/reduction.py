"""Reductions over axes: sum, mean, max, min, prod, any, all — MindSpore's ``Reduce*`` Primitives.

``axis`` is ``None`` (all axes) or a tuple of ints; ``keep_dims`` keeps reduced axes as size 1.
Dtypes are the Primitives' (checked against MindSpore 2.10): every reduction keeps its input's
dtype — ``ReduceSum`` of Int8 wraps around in Int8, of Bool is "any" — integer means truncate
toward zero, and Bool is refused by mean, max and min. ``ops.sum``/``Tensor.sum`` widen integers
to Int64 first (``graphcell/ops/function/reduction_func.py``). ``ReduceAny`` of UInt8 gives UInt8
(MindSpore's quirk, kept); every other any/all gives Bool.

``argmax_with_value``/``argmin_with_value`` (``ArgMaxWithValue``...) return the indices and the
extrema along one axis; their gradient goes to the one element picked, where ``reduce_max``'s is
shared among tied maxima — both as MindSpore's.
"""
from __future__ import annotations

import functools

import numpy as np

from graphcell_ir.errors import OpTypeError
from graphcell_ir.ir.types import TensorType, int64, uint8
from graphcell_ir.ops import functional as F
from graphcell_ir.ops.along_axis import scatter_add_along
from graphcell_ir.ops.registry import NONDIFF, AttrKind, Kind, attr, defop
from graphcell_ir.ops.shape_rules import (normalize_axes, reduce_bool, reduce_same_dtype,
                                          reduce_shape, require_tensor)

RED = Kind.REDUCTION
_AXIS_ATTRS = [attr("axis", AttrKind.OPT_INTS, None), attr("keep_dims", AttrKind.BOOL, False)]


def _reduced(axis, ndim: int) -> tuple[int, ...]:
    """The axes a reduction removes: none for a 0-d input (which takes axis 0 or -1)."""
    if not ndim:
        return ()
    try:
        return _normalized_axes(axis, ndim)
    except TypeError:   # an unhashable axis (a list): normalised each time
        return normalize_axes(axis, ndim)


@functools.lru_cache(maxsize=1024)
def _normalized_axes(axis, ndim: int) -> tuple[int, ...]:
    return normalize_axes(axis, ndim)   # a pure function of its arguments: PyNative's hot path


def _np_axis(x, axis):
    ndim = x.ndim if x.__class__ is np.ndarray else np.ndim(x)
    return _reduced(axis, ndim) if ndim else None


def _reducer(np_fn, out_dtype=None):
    def ref(x, *, axis=None, keep_dims=False):
        out = np_fn(x, axis=_np_axis(x, axis), keepdims=keep_dims)
        dtype = out_dtype(x) if out_dtype else x.dtype
        return np.asarray(out).astype(dtype, copy=False)  # astype: integer sums wrap, as in C
    ref.__name__ = np_fn.__name__
    return ref


def _numeric_reduce(x, *, axis=None, keep_dims=False) -> TensorType:
    """mean/max/min: dtype kept; Bool refused (MindSpore's CPU kernels have none)."""
    x = require_tensor(x)
    if x.dtype.is_bool:
        raise OpTypeError(f"input must be numeric, got {x}")
    return reduce_same_dtype(x, axis=axis, keep_dims=keep_dims)


def _any_infer(x, *, axis=None, keep_dims=False) -> TensorType:
    out = reduce_bool(x, axis=axis, keep_dims=keep_dims)
    return TensorType(uint8, out.shape) if x.dtype is uint8 else out


def _any_ref(x, *, axis=None, keep_dims=False):
    out = np.any(x, axis=_np_axis(x, axis), keepdims=keep_dims)
    return np.asarray(out).astype(np.uint8 if x.dtype == np.uint8 else np.bool_, copy=False)


def _keep_dims_shape(x, axis):
    """The shape of the reduction's result with reduced axes kept as 1 (for broadcasting back)."""
    return reduce_shape(tuple(x.shape), axis, True)


def _broadcast_back(dout, x, axis):
    g = F.reshape(dout, _keep_dims_shape(x, axis))
    return F.broadcast_to(g, tuple(x.shape))


def bprop_reduce_sum(x, out, dout, *, axis, keep_dims):
    return (F.cast_like(_broadcast_back(dout, x, axis), x),)


def bprop_reduce_mean(x, out, dout, *, axis, keep_dims):
    n = 1
    for a in _reduced(axis, len(x.shape)):
        n *= x.shape[a]
    return (F.cast_like(F.div(_broadcast_back(dout, x, axis), max(n, 1)), x),)


def bprop_reduce_extremum(x, out, dout, *, axis, keep_dims):
    """The gradient goes to every position equal to the extremum, shared among ties."""
    out_b = F.broadcast_to(F.reshape(out, _keep_dims_shape(x, axis)), tuple(x.shape))
    hit = F.cast(F.equal(x, out_b), x.dtype)
    count = F.reduce_sum(hit, axis=axis, keep_dims=True)
    share = F.div(_broadcast_back(dout, x, axis), F.broadcast_to(count, tuple(x.shape)))
    return (F.mul(share, hit),)


def bprop_reduce_prod(x, out, dout, *, axis, keep_dims):
    """d prod / d x_i is the product of the *other* elements: the exclusive cumulative products
    from both ends, multiplied — exact where x has zeros (dividing ``out`` by ``x`` is not), as
    MindSpore's ReduceProd gradient is.

    The reduced axes are moved to the end and flattened into one, scanned, and put back.
    """
    shape = tuple(x.shape)
    reduced = _reduced(axis, len(shape))
    if not reduced:  # nothing multiplied: the identity
        return (F.reshape(dout, shape=shape),)
    kept = tuple(a for a in range(len(shape)) if a not in reduced)
    perm = kept + reduced
    n = 1
    for a in reduced:
        n *= shape[a]
    rows = F.reshape(F.transpose(x, perm=perm), shape=tuple(shape[a] for a in kept) + (n,))
    others = F.mul(F.cumprod(rows, axis=-1, exclusive=True),
                   F.cumprod(rows, axis=-1, exclusive=True, reverse=True))
    others = F.transpose(F.reshape(others, shape=tuple(shape[a] for a in perm)),
                         perm=tuple(int(i) for i in np.argsort(perm)))
    return (F.mul(_broadcast_back(dout, x, axis), others),)


def _mean_ref(x, *, axis=None, keep_dims=False):
    # integer means truncate to the input dtype, as MindSpore's Tensor.mean does
    acc = np.mean(x, axis=_np_axis(x, axis), keepdims=keep_dims, dtype=np.float64)
    return np.asarray(acc).astype(x.dtype)


reduce_sum = defop("reduce_sum", ("x",), kind=RED, ms_name="ReduceSum", attrs=_AXIS_ATTRS,
                   prim_init=("keep_dims",), infer=reduce_same_dtype, ref=_reducer(np.sum),
                   bprop=bprop_reduce_sum, kernel="{acc} + {x}")
reduce_mean = defop("reduce_mean", ("x",), kind=RED, ms_name="ReduceMean", attrs=_AXIS_ATTRS,
                    prim_init=("keep_dims",), infer=_numeric_reduce, ref=_mean_ref,
                    bprop=bprop_reduce_mean, kernel="{acc} + {x}")
reduce_max = defop("reduce_max", ("x",), kind=RED, ms_name="ReduceMax", attrs=_AXIS_ATTRS,
                   prim_init=("keep_dims",), infer=_numeric_reduce, ref=_reducer(np.max),
                   bprop=bprop_reduce_extremum, kernel="max({acc}, {x})")
reduce_min = defop("reduce_min", ("x",), kind=RED, ms_name="ReduceMin", attrs=_AXIS_ATTRS,
                   prim_init=("keep_dims",), infer=_numeric_reduce, ref=_reducer(np.min),
                   bprop=bprop_reduce_extremum, kernel="min({acc}, {x})")
reduce_prod = defop("reduce_prod", ("x",), kind=RED, ms_name="ReduceProd", attrs=_AXIS_ATTRS,
                    prim_init=("keep_dims",), infer=reduce_same_dtype, ref=_reducer(np.prod),
                    bprop=bprop_reduce_prod, kernel="{acc} * {x}")
reduce_any = defop("reduce_any", ("x",), kind=RED, ms_name="ReduceAny", attrs=_AXIS_ATTRS,
                   prim_init=("keep_dims",), infer=_any_infer, ref=_any_ref,
                   bprop=NONDIFF, kernel="{acc} or bool({x})")
reduce_all = defop("reduce_all", ("x",), kind=RED, ms_name="ReduceAll", attrs=_AXIS_ATTRS,
                   prim_init=("keep_dims",), infer=reduce_bool, ref=_reducer(np.all, lambda x: np.bool_),
                   bprop=NONDIFF, kernel="{acc} and bool({x})")


# --- the extremum and its index -----------------------------------------------------------------

def _arg_with_value_infer(x, *, axis=0, keep_dims=False):
    """``(Int64 indices, values)``; a 0-d input gives index 0 and itself."""
    x = require_tensor(x)
    if x.dtype.is_bool:
        raise OpTypeError(f"the input must be numeric, got {x}")
    shape = reduce_shape(x.shape, (axis,), keep_dims)
    return TensorType(int64, shape), TensorType(x.dtype, shape)


def _arg_with_value_ref(np_arg):
    def ref(x, *, axis=0, keep_dims=False):
        if x.ndim == 0:
            return np.zeros((), np.int64), x.copy()
        a = axis % x.ndim
        index = np.expand_dims(np_arg(x, axis=a), a)  # the first of ties
        values = np.take_along_axis(x, index, a)
        if not keep_dims:
            index, values = np.squeeze(index, a), np.squeeze(values, a)
        return index.astype(np.int64), np.array(values)  # (ascontiguousarray makes 0-d 1-d)
    ref.__name__ = np_arg.__name__ + "_with_value"
    return ref


def bprop_arg_with_value(x, out, dout, *, axis, keep_dims):
    """The values' cotangent goes to the one element each value was taken from."""
    dvalues = dout[1]
    if dvalues is None or not x.shape:
        return (dvalues,)
    a = axis % len(x.shape)
    index, dvalues = out[0], dvalues
    if not keep_dims:
        index, dvalues = F.expand_dims(index, axis=a), F.expand_dims(dvalues, axis=a)
    return (scatter_add_along(F.zeros_like(x), index, dvalues, a),)


_ARG_WITH_VALUE_ATTRS = [attr("axis", AttrKind.INT, 0), attr("keep_dims", AttrKind.BOOL, False)]
argmax_with_value = defop("argmax_with_value", ("x",), kind=Kind.OPAQUE, ms_name="ArgMaxWithValue",
                          attrs=_ARG_WITH_VALUE_ATTRS, prim_init=("axis", "keep_dims"),
                          infer=_arg_with_value_infer, ref=_arg_with_value_ref(np.argmax),
                          bprop=bprop_arg_with_value,
                          doc="``(indices, values)`` of the maxima along ``axis`` (Int64 indices, "
                              "the first of ties); the gradient goes to that element only.")
argmin_with_value = defop("argmin_with_value", ("x",), kind=Kind.OPAQUE, ms_name="ArgMinWithValue",
                          attrs=_ARG_WITH_VALUE_ATTRS, prim_init=("axis", "keep_dims"),
                          infer=_arg_with_value_infer, ref=_arg_with_value_ref(np.argmin),
                          bprop=bprop_arg_with_value,
                          doc="``(indices, values)`` of the minima along ``axis``; see "
                              "``argmax_with_value``.")
