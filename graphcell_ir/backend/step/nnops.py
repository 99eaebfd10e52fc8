"""The step's nn ops (batch norm in training, the softmax family, one_hot): each emitted by
nnkernels' own loops in nnkernels' order, so a step gives the Python runner's bits. Functions
of the step's emitter ``e`` and one op, as :mod:`.window`'s convolutions are; one that cannot
lower its op raises :class:`~graphcell_ir.backend.lower.Unsupported` (the op then runs in
Python between native segments, or the function has no step).
"""
from __future__ import annotations

import numpy as np

from graphcell_ir.backend import nnkernels as K
from graphcell_ir.backend.lower import Unsupported
from graphcell_ir.backend.native import pool as native_pool
from graphcell_ir.ir.core import Literal, Op, Value
from graphcell_ir.ops import nn as N

__all__ = ["OPS", "BAD_LABEL"]

BAD_LABEL = 1
"""What the step returns, having written nothing the caller sees, for a label out of range: the
Python runner then runs the call and the reference raises its error."""


def batch_norm(e, op: Op) -> None:
    """Training-mode ``batch_norm`` (NCHW) by nnkernels' loops, in its order: per-channel
    float64 statistics with each channel's moving statistics and scale (blocks of channels on
    the pool, each with its scratch row; (N, C): the statistics, then the parameters), then y
    (blocks of samples on the pool): the runner's kernel's bits."""
    x, gamma, beta, mean, var = op.operands
    y, new_mean, new_var = op.results
    a = op.attrs
    f = (np.dtype(np.float32), np.dtype(np.float64))
    pdt = mean.type.dtype.np_dtype if not isinstance(mean, Literal) else None
    params = (gamma, beta, mean, var)
    if isinstance(x, Literal) or any(isinstance(p, Literal) for p in params) or \
            not a.get("is_training") or a.get("data_format", "NCHW") != "NCHW" or \
            x.type.ndim < 2 or x.type.dtype.np_dtype not in f or pdt not in f or \
            any(p.type.dtype.np_dtype != pdt or p.type.shape != (x.type.shape[1],)
                for p in params):
        raise Unsupported("batch_norm other than in training, NCHW, of floats")
    n, c = x.type.shape[:2]
    m = x.type.size // c
    hw = m // n
    if m < 2:
        raise Unsupported("batch_norm of one value per channel")
    xdt, f64, i64 = x.type.dtype.np_dtype, np.dtype(np.float64), e.i64
    xs = (n, c) if hw == 1 else (n, c, hw)
    stats, scale = e.scratch((2, c), f64), e.scratch((c,), f64)
    train = [float(pdt.type(1 - a.get("momentum", 0.1))), float(a.get("momentum", 0.1)),
             m / (m - 1), float(a.get("epsilon", 1e-5))]
    if hw == 1:
        e.nn_loop("bn_row_stats", [(e.pointer(x), xdt, xs), (stats, f64, (2, c))])
        e.nn_loop("bn_train_params", [(gamma, (c,)), (mean, (c,)), (var, (c,)),
                                      (stats, f64, (2, c)), *train, (scale, f64, (c,)),
                                      (new_mean, (c,)), (new_var, (c,))])
    else:
        acc = e.scratch((c, hw), f64)
        one = lambda p: [p, i64(c)]   # noqa: E731 (a channel vector's pointer and extent)
        e.pooled_loop(
            "bn_channel_train",
            [(None, xdt, xs), (None, f64, (hw,)), (None, f64, (2, c)), (None, pdt, (c,)),
             (None, pdt, (c,)), (None, pdt, (c,)), *train, (None, f64, (c,)),
             (None, pdt, (c,)), (None, pdt, (c,)), 0, 0],
            [e.pointer(x), acc, stats, e.pointer(gamma), e.pointer(mean), e.pointer(var), scale,
             e.pointer(new_mean), e.pointer(new_var)], c, x.type.size,
            lambda t, lo, hi, p: [p[0], *map(i64, xs),
                                  t.gep(p[1], [t.mul(lo, i64(hw * 8))], source_etype=e.i8),
                                  i64(hw), p[2], i64(2), i64(c), *one(p[3]), *one(p[4]), *one(p[5]),
                                  *(e.ir.Constant(e.ir.DoubleType(), v) for v in train),
                                  *one(p[6]), *one(p[7]), *one(p[8]), lo, hi])
    if hw == 1:
        e.nn_loop("bn_apply_rows", [(e.pointer(x), xdt, xs), (stats, f64, (c,)),
                                    (scale, f64, (c,)), (beta, (c,)),
                                    (e.pointer(y), xdt, xs)])
        return
    item = xdt.itemsize
    e.pooled_loop(
        "bn_apply",
        [(None, xdt, xs), (None, f64, (c,)), (None, f64, (c,)), (None, pdt, (c,)),
         (None, xdt, xs)],
        [e.pointer(x), stats, scale, e.pointer(beta), e.pointer(y)], n,
        x.type.size,
        lambda t, lo, hi, p: [
            t.gep(p[0], [t.mul(lo, i64(c * hw * item))], source_etype=e.i8),
            t.sub(hi, lo), i64(c), i64(hw), p[1], i64(c), p[2], i64(c), p[3], i64(c),
            t.gep(p[4], [t.mul(lo, i64(c * hw * item))], source_etype=e.i8),
            t.sub(hi, lo), i64(c), i64(hw)])


def _rows(e, x: Value) -> tuple:
    k = x.type.shape[-1] if x.type.ndim else 0
    if x.type.dtype.np_dtype.kind != "f" or k == 0:
        raise Unsupported(f"softmax-family op on {x.type}")
    if not K.loop_rows(x.type.shape, x.type.dtype.np_dtype):
        # the runner's reference (numpy's exp) gives other bits than the loops: run it
        raise Unsupported(f"softmax-family op on {x.type}: rows the runner gives numpy")
    return (x.type.size // k, k)


def softmax(e, op: Op) -> None:
    (x,), (r,) = op.operands, op.results
    axis = op.attrs.get("axis")
    if axis is None or len(axis) != 1 or axis[0] not in (-1, x.type.ndim - 1):
        raise Unsupported("softmax over another axis than the last")
    if r.type.dtype != x.type.dtype:
        raise Unsupported(f"softmax of {x.type} to {r.type}")
    if K.fast_exp_rows(x.type.shape, x.type.dtype.np_dtype):
        return _softmax_f32_rows(e, x, r)
    null, dt = e.ir.Constant(e.ptr, None), x.type.dtype.np_dtype   # no labels, loss
    e.nn_loop("sparse_softmax_cross_entropy_rows", [
        (x, _rows(e, x)), (null, np.int32, (0,)), (null, dt, (0,)), (r, _rows(e, x))])


def _softmax_f32_rows(e, x: Value, r: Value) -> None:
    """``nn_loops.softmax_rows_f32`` over blocks of rows on the native pool (each row is
    independent: the runner's bits however the rows are shared out)."""
    k = x.type.shape[-1]
    n, f32, i64 = x.type.size // k, np.dtype(np.float32), e.i64
    split = K.blocks(n, x.type.size, K.LOOP_UNIT) > 1   # exp-bound: worth a second core
    e.pooled_loop(
        "softmax_rows_f32", [(None, f32, (n, k)), (None, f32, (n, k))],
        [e.pointer(x), e.pointer(r)], n, max(x.type.size, native_pool.MIN_WORK) if split else 0,
        lambda t, lo, hi, p: [t.gep(p[0], [t.mul(lo, i64(k * 4))], source_etype=e.i8),
                              t.sub(hi, lo), i64(k),
                              t.gep(p[1], [t.mul(lo, i64(k * 4))], source_etype=e.i8),
                              t.sub(hi, lo), i64(k)])


def sparse_cross_entropy(e, op: Op) -> None:
    (x, labels), (r,) = op.operands, op.results
    shape = _rows(e, x)
    if labels.type.dtype.np_dtype not in (np.dtype(np.int32), np.dtype(np.int64)) or \
            labels.type.size != shape[0] or r.type.size != shape[0]:
        raise Unsupported(f"sparse_softmax_cross_entropy of {x.type} and {labels.type}")
    _labels_in_range(e, labels, shape[1])   # a bad label: the reference raises its error
    e.nn_loop("sparse_softmax_cross_entropy_rows",   # no probabilities: see softmax()
              [(x, shape), (labels, (shape[0],)), (r, (shape[0],)),
               (e.ir.Constant(e.ptr, None), x.type.dtype.np_dtype, (0, shape[1]))])


def _labels_in_range(e, labels: Value, n: int) -> None:
    """Return BAD_LABEL from the step when a label is outside [0, n) (negative labels,
    compared unsigned, are huge)."""
    e.may_decline()
    typ = e.element_type(labels.type.dtype.np_dtype)
    base, b = e.pointer(labels), e.b

    def check(i):
        v = b.load(b.gep(base, [i], source_etype=typ), typ=typ)
        bad = e.entry.append_basic_block("bad_label")
        good = e.entry.append_basic_block("label_ok")
        b.cbranch(b.icmp_unsigned("<", v, typ(n)), good, bad)
        b.position_at_end(bad)
        b.ret(e.i32(BAD_LABEL))
        b.position_at_end(good)
    e.loop(labels.type.size, check)


def one_hot(e, op: Op) -> None:
    (idx,), (r,) = op.operands, op.results
    depth, axis = op.attrs["depth"], op.attrs.get("axis", -1)
    if axis not in (-1, idx.type.ndim) or idx.type.dtype.np_dtype.kind not in "iu" or \
            r.type.dtype.np_dtype.kind not in "fiu":
        raise Unsupported("one_hot other than along a new last axis, of integer indices")
    e.fill(r, op.attrs.get("off_value", 0.0))
    typ = e.element_type(idx.type.dtype.np_dtype)
    out_t = e.element_type(r.type.dtype.np_dtype)
    on = e.constant(out_t, op.attrs.get("on_value", 1.0))
    src, dst, b, i64 = e.pointer(idx), e.pointer(r), e.b, e.i64

    def hot(i):
        v = b.sext(b.load(b.gep(src, [i], source_etype=typ), typ=typ), i64) \
            if typ.width < 64 else b.load(b.gep(src, [i], source_etype=typ), typ=typ)
        put = e.entry.append_basic_block("hot")
        skip = e.entry.append_basic_block("cold")
        b.cbranch(b.icmp_unsigned("<", v, i64(depth)), put, skip)   # out of range: all off
        b.position_at_end(put)
        b.store(on, b.gep(dst, [b.add(b.mul(i, i64(depth)), v)], source_etype=out_t))
        b.branch(skip)
        b.position_at_end(skip)
    e.loop(idx.type.size, hot)


OPS = {N.batch_norm: batch_norm, N.softmax: softmax,
       N.sparse_softmax_cross_entropy: sparse_cross_entropy, N.one_hot: one_hot}
"""The nn ops this module emits, by op."""
