"""Contractions: matrix products (BLAS in the backend)."""
from __future__ import annotations

import numpy as np

from graphcell_ir.errors import OpTypeError, ShapeError
from graphcell_ir.ir.types import TensorType, promote
from graphcell_ir.ops import functional as F
from graphcell_ir.ops.cost import elements
from graphcell_ir.ops.registry import AttrKind, Kind, attr, defop
from graphcell_ir.ops.shape_rules import broadcast_shapes, require_tensor


def _matmul_infer(x, y, *, transpose_a=False, transpose_b=False):
    x, y = require_tensor(x, "x"), require_tensor(y, "y")
    if x.dtype.is_bool or y.dtype.is_bool:
        raise OpTypeError(f"operands must be numeric, got {x.dtype} and {y.dtype}")
    if x.dtype is not y.dtype:
        raise OpTypeError(f"operands must have the same dtype, got x {x} and y {y}")
    if x.ndim < 1 or y.ndim < 1:
        raise ShapeError(f"operands must have rank >= 1, got x {x} and y {y}")
    xs = _t(x.shape, transpose_a)
    ys = _t(y.shape, transpose_b)
    k_x = xs[-1]
    k_y = ys[-2] if len(ys) >= 2 else ys[0]
    if k_x != k_y:
        flags = "".join(f", {n}=True" for n, f in (("transpose_a", transpose_a),
                                                    ("transpose_b", transpose_b)) if f)
        raise ShapeError(f"cannot multiply x {x} by y {y}{flags}: contracted sizes {k_x} and "
                         f"{k_y} differ")
    batch = broadcast_shapes(xs[:-2], ys[:-2])
    rows = xs[-2:-1]
    cols = ys[-1:] if len(ys) >= 2 else ()
    return TensorType(promote(x.dtype, y.dtype), batch + rows + cols)


def _t(shape, flag):
    return shape[:-2] + (shape[-1], shape[-2]) if flag and len(shape) >= 2 else shape


def _matmul_ref(x, y, *, transpose_a=False, transpose_b=False):
    if transpose_a and x.ndim >= 2:
        x = np.swapaxes(x, -1, -2)
    if transpose_b and y.ndim >= 2:
        y = np.swapaxes(y, -1, -2)
    return np.asarray(np.matmul(x, y))


def bprop_matmul(x, y, out, dout, *, transpose_a, transpose_b, needs=(True, True)):
    if len(x.shape) != 2 or len(y.shape) != 2:
        return _bprop_matmul_batched(x, y, dout, transpose_a, transpose_b)
    dx = dy = None
    if needs[0] and transpose_a:
        dx = F.matmul(y, dout, transpose_a=transpose_b, transpose_b=True)
    elif needs[0]:
        dx = F.matmul(dout, y, transpose_a=False, transpose_b=not transpose_b)
    if needs[1] and transpose_b:
        dy = F.matmul(dout, x, transpose_a=True, transpose_b=transpose_a)
    elif needs[1]:
        dy = F.matmul(x, dout, transpose_a=not transpose_a, transpose_b=False)
    return dx, dy


def _bprop_matmul_batched(x, y, dout, transpose_a, transpose_b):
    """Batched / vector operands: promote vectors to matrices, then reduce broadcast batch dims."""
    xs, ys = tuple(x.shape), tuple(y.shape)
    x2 = F.reshape(x, (1,) + xs) if len(xs) == 1 else x
    y2 = F.reshape(y, ys + (1,)) if len(ys) == 1 else y
    g = F.reshape(dout, tuple(_matmul_infer(TensorType(x.dtype, tuple(x2.shape)),
                                            TensorType(y.dtype, tuple(y2.shape)),
                                            transpose_a=transpose_a,
                                            transpose_b=transpose_b).shape))
    if transpose_a:
        dx = F.matmul(y2, g, transpose_a=transpose_b, transpose_b=True)
    else:
        dx = F.matmul(g, y2, transpose_b=not transpose_b)
    if transpose_b:
        dy = F.matmul(g, x2, transpose_a=True, transpose_b=transpose_a)
    else:
        dy = F.matmul(x2, g, transpose_a=not transpose_a)
    return F.sum_to(dx, xs) if len(xs) > 1 else F.reshape(F.sum_to(dx, (1,) + xs), xs), \
        F.sum_to(dy, ys) if len(ys) > 1 else F.reshape(F.sum_to(dy, ys + (1,)), ys)


def _matmul_cost(ins, outs, *, transpose_a, transpose_b) -> int:
    x = ins[0]
    k = x.shape[-2] if transpose_a and x.ndim > 1 else x.shape[-1] if x.ndim else 1
    return 2 * elements(outs[0]) * k   # a multiply-add per result element per k


SMALL_PRODUCT = 1 << 16
"""Multiply-adds up to which a 2-D product is specialised (a recurrent layer's step, 100x400):
one BLAS call, which runs it on one thread at this size, with the transposes decided once."""


def _specialize_matmul(types, attrs, into):
    """A small 2-D product as one ``np.matmul`` of (views of) its operands. Larger ones are
    left to the backend's GEMM policy. Written here, a registry module, so the warnings filter
    of the references silences numpy's floating-point warnings at no cost per call."""
    x, y = types
    if len(x.shape) != 2 or len(y.shape) != 2:
        return None
    ta, tb = attrs.get("transpose_a", False), attrs.get("transpose_b", False)
    (m, k), n = _t(tuple(x.shape), ta), _t(tuple(y.shape), tb)[1]
    if m * k * n > SMALL_PRODUCT:
        return None
    if ta and tb:
        return lambda x, y: np.matmul(x.T, y.T)
    if ta:
        return lambda x, y: np.matmul(x.T, y)
    if tb:
        return lambda x, y: np.matmul(x, y.T)
    return lambda x, y: np.matmul(x, y)   # called from this module: the filter applies


matmul = defop("matmul", ("x", "y"), kind=Kind.CONTRACTION, ms_name="MatMul",
               attrs=[attr("transpose_a", AttrKind.BOOL, False), attr("transpose_b", AttrKind.BOOL, False)],
               prim_init=("transpose_a", "transpose_b"), aliases=("batch_matmul",),
               infer=_matmul_infer, ref=_matmul_ref, bprop=bprop_matmul, cost=_matmul_cost,
               specialize=_specialize_matmul)
