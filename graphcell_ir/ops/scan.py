"""Scans along one axis: cumulative sum, product, max, min and log-sum-exp.

MindSpore's ``CumSum(exclusive, reverse)``, ``CumProd(exclusive, reverse)``, ``Cummax(axis)``,
``Cummin(axis)`` and ``CumulativeLogsumexp(exclusive, reverse)``. Semantics checked against
MindSpore 2.10 (CPU):

- every scan keeps its input's dtype (an Int8 cumsum wraps around in Int8) and refuses Bool and
  0-d inputs; ``cumlogsumexp`` takes floats only;
- ``exclusive`` shifts by one (the first element is the identity: 0, 1, or for log-sum-exp the
  lowest finite float, as MindSpore gives), ``reverse`` scans from the end;
- ``cummax``/``cummin`` return ``(values, indices)``: Int64 indices for cummax, Int32 for cummin
  (as MindSpore); on ties the later index wins, and a NaN, once met, stays.

Gradients: ``cumsum``'s is the reverse scan; ``cumprod``'s is MindSpore's
``cumsum(dout * out, reversed) / x`` (NaN where ``x`` is exactly 0, as in MindSpore);
``cummax``/``cummin`` send each cotangent to the index it came from; ``cumlogsumexp``'s is split
into positive and negative cotangents so that it never overflows.
"""
from __future__ import annotations

import numpy as np

from graphcell_ir.errors import OpTypeError, ShapeError
from graphcell_ir.ir.types import TensorType, int32, int64
from graphcell_ir.ops import functional as F
from graphcell_ir.ops.along_axis import scatter_add_along
from graphcell_ir.ops.registry import AttrKind, Kind, attr, defop
from graphcell_ir.ops.shape_rules import require_tensor

OPAQUE = Kind.OPAQUE


def scan_axis(x: TensorType, axis: int) -> int:
    """``axis`` in [0, ndim) for a scan of ``x``; ShapeError for 0-d inputs and bad axes."""
    if x.ndim == 0:
        raise ShapeError(f"the input must have rank >= 1, got {x}")
    if not -x.ndim <= axis < x.ndim:
        raise ShapeError(f"axis {axis} is out of range for a tensor of rank {x.ndim}: expected "
                         f"a value in [{-x.ndim}, {x.ndim})")
    return axis % x.ndim


def _numeric_scan_infer(x, *, axis, exclusive=False, reverse=False):
    x = require_tensor(x)
    if x.dtype.is_bool:
        raise OpTypeError(f"the input must be numeric, got {x}")
    scan_axis(x, axis)
    return x


def _float_scan_infer(x, *, axis, exclusive=False, reverse=False):
    x = require_tensor(x)
    if not x.dtype.is_float:
        raise OpTypeError(f"the input must have a float dtype, got {x}")
    scan_axis(x, axis)
    return x


def _scan_ref(accumulate, identity):
    """A numpy reference for ``accumulate`` (a ufunc's ``accumulate``) along ``axis``."""
    def ref(x, *, axis, exclusive=False, reverse=False):
        a = axis % x.ndim
        y = np.flip(x, a) if reverse else x
        out = accumulate(y, axis=a, dtype=_acc_dtype(x)).astype(x.dtype, copy=False)
        if exclusive and x.shape[a]:
            first = np.full_like(np.take(out, [0], axis=a), identity(x.dtype))
            out = np.concatenate([first, np.take(out, np.arange(x.shape[a] - 1), axis=a)], a)
        return np.ascontiguousarray(np.flip(out, a) if reverse else out)
    return ref


def _acc_dtype(x):
    """Integers accumulate in 64 bits and wrap when cast back (numpy's default for sums)."""
    return None if x.dtype.kind == "f" else (np.uint64 if x.dtype.kind == "u" else np.int64)


def bprop_cumsum(x, out, dout, *, axis, exclusive, reverse):
    return (F.cumsum(dout, axis=axis, exclusive=exclusive, reverse=not reverse),)


def bprop_cumprod(x, out, dout, *, axis, exclusive, reverse):
    summed = F.cumsum(F.mul(dout, out), axis=axis, exclusive=exclusive, reverse=not reverse)
    return (F.div(summed, x),)


_SCAN_ATTRS = [attr("axis", AttrKind.INT), attr("exclusive", AttrKind.BOOL, False),
               attr("reverse", AttrKind.BOOL, False)]

cumsum = defop("cumsum", ("x",), kind=OPAQUE, ms_name="CumSum", attrs=_SCAN_ATTRS,
               prim_init=("exclusive", "reverse"), infer=_numeric_scan_infer,
               ref=_scan_ref(np.add.accumulate, lambda d: 0), bprop=bprop_cumsum,
               doc="Cumulative sum along ``axis`` (the call's argument; ``exclusive`` and "
                   "``reverse`` are the Primitive's constructor arguments).")
cumprod = defop("cumprod", ("x",), kind=OPAQUE, ms_name="CumProd", attrs=_SCAN_ATTRS,
                prim_init=("exclusive", "reverse"), infer=_numeric_scan_infer,
                ref=_scan_ref(np.multiply.accumulate, lambda d: 1), bprop=bprop_cumprod,
                doc="Cumulative product along ``axis``; see ``cumsum``.")


# --- log-sum-exp ---------------------------------------------------------------------------------

def _lowest(dtype) -> float:
    return float(np.finfo(dtype).min)


def _cumlogsumexp_ref(x, *, axis, exclusive=False, reverse=False):
    return _scan_ref(np.logaddexp.accumulate, _lowest)(x, axis=axis, exclusive=exclusive,
                                                       reverse=reverse)


def bprop_cumlogsumexp(x, out, dout, *, axis, exclusive, reverse):
    """dx_j = sum over the outputs i that include x_j of dout_i * exp(x_j - out_i).

    Computed as ``exp(x + rev_lcse(log(dout) - out))`` for the positive and the negative parts
    of ``dout`` separately (PyTorch's formulation), so that no exp of a large number is taken.
    Where a part is zero, its log is the lowest finite float rather than -inf: no inf - inf
    appears, in this rule or in its own gradient.
    """
    lowest = F.fill(dtype=x.dtype, shape=tuple(x.shape), value=_lowest(x.dtype.np_dtype))
    ones = F.ones_like(dout)

    def part(w, mask):
        log_w = F.select(mask, F.log(F.select(mask, w, ones)), lowest)
        scanned = F.cumlogsumexp(F.sub(log_w, out), axis=axis, exclusive=exclusive,
                                 reverse=not reverse)
        return F.exp(F.add(x, scanned))
    return (F.sub(part(dout, F.greater(dout, 0)), part(F.neg(dout), F.less(dout, 0))),)


cumlogsumexp = defop("cumlogsumexp", ("x",), kind=OPAQUE, attrs=_SCAN_ATTRS,
                     infer=_float_scan_infer, ref=_cumlogsumexp_ref, bprop=bprop_cumlogsumexp,
                     doc="``log(cumsum(exp(x)))`` along ``axis``, computed without overflow "
                         "(MindSpore's CumulativeLogsumexp, whose axis is a Tensor, is declared "
                         "in graphcell.ops.function.scan_func).")


# --- running extremum ----------------------------------------------------------------------------

def _cumextremum_infer(index_dtype):
    def infer(x, *, axis):
        x = require_tensor(x)
        if x.dtype.is_bool:
            raise OpTypeError(f"the input must be numeric, got {x}")
        scan_axis(x, axis)
        return x, TensorType(index_dtype, x.shape)
    return infer


def _cumextremum_ref(better, index_dtype):
    """Values and indices of the running extremum; ``better(new, current)`` says when the new
    element takes over (ties included: the later index wins); a NaN takes over and stays."""
    def ref(x, *, axis):
        a = axis % x.ndim
        xs = np.moveaxis(x, a, 0)
        values, indices = np.empty_like(xs), np.zeros(xs.shape, index_dtype.np_dtype)
        if xs.shape[0]:
            cur, where = xs[0].copy(), np.zeros(xs.shape[1:], index_dtype.np_dtype)
            values[0], indices[0] = cur, where
            for i in range(1, xs.shape[0]):
                take = better(xs[i], cur)
                if xs.dtype.kind == "f":
                    take = (take | np.isnan(xs[i])) & ~np.isnan(cur)
                cur = np.where(take, xs[i], cur)
                where = np.where(take, i, where)
                values[i], indices[i] = cur, where
        return (np.ascontiguousarray(np.moveaxis(values, 0, a)),
                np.ascontiguousarray(np.moveaxis(indices, 0, a)))
    return ref


def bprop_cumextremum(x, out, dout, *, axis):
    """Each value's cotangent goes back to the element it was taken from."""
    dvalues = dout[0]
    if dvalues is None:
        return (None,)
    return (scatter_add_along(F.zeros_like(x), out[1], dvalues, axis % len(x.shape)),)


cummax = defop("cummax", ("x",), kind=OPAQUE, ms_name="Cummax", attrs=[attr("axis", AttrKind.INT)],
               prim_init=("axis",), infer=_cumextremum_infer(int64),
               ref=_cumextremum_ref(np.greater_equal, int64), bprop=bprop_cumextremum,
               doc="Running maximum along ``axis`` and the index it came from (Int64).")
cummin = defop("cummin", ("x",), kind=OPAQUE, ms_name="Cummin", attrs=[attr("axis", AttrKind.INT)],
               prim_init=("axis",), infer=_cumextremum_infer(int32),
               ref=_cumextremum_ref(np.less_equal, int32), bprop=bprop_cumextremum,
               doc="Running minimum along ``axis`` and the index it came from (Int32, as "
                   "MindSpore's Cummin).")

