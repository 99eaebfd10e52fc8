"""Reductions over axes: sum, mean, max, min, prod, any, all.

``axis`` is ``None`` (all axes) or a tuple of ints; ``keep_dims`` keeps reduced axes as size 1.
"""
from __future__ import annotations

import numpy as np

from graphcell_ir.ops import functional as F
from graphcell_ir.ops.registry import NONDIFF, AttrKind, Kind, attr, defop
from graphcell_ir.ops.shape_rules import (normalize_axes, reduce_bool, reduce_same_dtype,
                                          reduce_shape, reduce_sum_dtype)

RED = Kind.REDUCTION
_AXIS_ATTRS = [attr("axis", AttrKind.OPT_INTS, None), attr("keep_dims", AttrKind.BOOL, False)]


def _np_axis(x, axis):
    return normalize_axes(axis, np.ndim(x))


def _reducer(np_fn, out_dtype=None):
    def ref(x, *, axis=None, keep_dims=False):
        out = np_fn(x, axis=_np_axis(x, axis), keepdims=keep_dims)
        dtype = out_dtype(x) if out_dtype else x.dtype
        return np.asarray(out, dtype=dtype)
    ref.__name__ = np_fn.__name__
    return ref


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
    for a in normalize_axes(axis, len(x.shape)):
        n *= x.shape[a]
    return (F.cast_like(F.div(_broadcast_back(dout, x, axis), max(n, 1)), x),)


def bprop_reduce_extremum(x, out, dout, *, axis, keep_dims):
    """The gradient goes to every position equal to the extremum, shared among ties."""
    out_b = F.broadcast_to(F.reshape(out, _keep_dims_shape(x, axis)), tuple(x.shape))
    hit = F.cast(F.equal(x, out_b), x.dtype)
    count = F.reduce_sum(hit, axis=axis, keep_dims=True)
    share = F.div(_broadcast_back(dout, x, axis), F.broadcast_to(count, tuple(x.shape)))
    return (F.mul(share, hit),)


def _mean_infer(x, *, axis=None, keep_dims=False):
    return reduce_same_dtype(x, axis=axis, keep_dims=keep_dims)


def _mean_ref(x, *, axis=None, keep_dims=False):
    # integer means truncate to the input dtype, as MindSpore's Tensor.mean does
    acc = np.mean(x, axis=_np_axis(x, axis), keepdims=keep_dims, dtype=np.float64)
    return np.asarray(acc).astype(x.dtype)


reduce_sum = defop("reduce_sum", ("x",), kind=RED, ms_name="ReduceSum", attrs=_AXIS_ATTRS,
                   prim_init=("keep_dims",), infer=reduce_sum_dtype,
                   ref=_reducer(np.sum, lambda x: x.dtype if x.dtype.kind == "f" else np.int64),
                   bprop=bprop_reduce_sum, kernel="{acc} + {x}")
reduce_mean = defop("reduce_mean", ("x",), kind=RED, ms_name="ReduceMean", attrs=_AXIS_ATTRS,
                    prim_init=("keep_dims",), infer=_mean_infer, ref=_mean_ref,
                    bprop=bprop_reduce_mean, kernel="{acc} + {x}")
reduce_max = defop("reduce_max", ("x",), kind=RED, ms_name="ReduceMax", attrs=_AXIS_ATTRS,
                   prim_init=("keep_dims",), infer=reduce_same_dtype, ref=_reducer(np.max),
                   bprop=bprop_reduce_extremum, kernel="max({acc}, {x})")
reduce_min = defop("reduce_min", ("x",), kind=RED, ms_name="ReduceMin", attrs=_AXIS_ATTRS,
                   prim_init=("keep_dims",), infer=reduce_same_dtype, ref=_reducer(np.min),
                   bprop=bprop_reduce_extremum, kernel="min({acc}, {x})")
reduce_prod = defop("reduce_prod", ("x",), kind=RED, ms_name="ReduceProd", attrs=_AXIS_ATTRS,
                    prim_init=("keep_dims",), infer=reduce_same_dtype, ref=_reducer(np.prod),
                    bprop=lambda x, out, dout, axis, keep_dims: (
                        F.div(F.mul(_broadcast_back(dout, x, axis),
                                    _broadcast_back(out, x, axis)), x),),
                    kernel="{acc} * {x}")
reduce_any = defop("reduce_any", ("x",), kind=RED, ms_name="ReduceAny", attrs=_AXIS_ATTRS,
                   prim_init=("keep_dims",), infer=reduce_bool, ref=_reducer(np.any, lambda x: np.bool_),
                   bprop=NONDIFF, kernel="{acc} or bool({x})")
reduce_all = defop("reduce_all", ("x",), kind=RED, ms_name="ReduceAll", attrs=_AXIS_ATTRS,
                   prim_init=("keep_dims",), infer=reduce_bool, ref=_reducer(np.all, lambda x: np.bool_),
                   bprop=NONDIFF, kernel="{acc} and bool({x})")
