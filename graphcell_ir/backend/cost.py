"""Estimated floating-point operations of ops, from their shapes: the one place the profile
(``backend/profile.py``) reads them from.

Counts: an elementwise op, one per result element; a reduction, one per input element; a
contraction (matmul), ``2*M*N*K`` (one multiply and one add per product term: the output's
elements times the contracted length); a convolution and its two gradients, ``2 * output
elements * (input channels per group * kernel elements)``. Layout ops move bytes and count
none. Other ops are unknown (``None``) and a group holding one is unknown, so a rate is never
made up. When the registry grows per-op cost rules (``OpDef.cost``), this module reads them.

    >>> # flops([matmul of f32[4,3] x f32[3,2]]) == 2 * 4 * 2 * 3
"""
from __future__ import annotations

import math

from graphcell_ir.ir.core import Op
from graphcell_ir.ir.types import TensorType
from graphcell_ir.ops.registry import Kind

__all__ = ["flops"]

_CONVOLUTIONS = ("conv2d", "conv2d_backprop_input", "conv2d_backprop_filter")


def _elements(v) -> int:
    return math.prod(v.type.shape) if isinstance(v.type, TensorType) else 1


def op_flops(op: Op) -> int | None:
    """The estimated FLOPs of one op, or ``None`` when graphcell has no rule for its kind."""
    kind = op.opdef.kind
    if kind is Kind.ELEMENTWISE:
        return sum(_elements(r) for r in op.results)
    if kind is Kind.REDUCTION:
        return sum(_elements(v) for v in op.operands)
    if kind is Kind.LAYOUT:
        return 0
    if kind is Kind.CONTRACTION:
        x = op.operands[0]
        if not isinstance(x.type, TensorType) or not x.type.shape:
            return None
        transpose_a = bool(op.attrs.get("transpose_a", False))
        k = x.type.shape[-2] if transpose_a and len(x.type.shape) >= 2 else x.type.shape[-1]
        return 2 * _elements(op.results[0]) * k
    if op.opdef.name in _CONVOLUTIONS:
        return _conv_flops(op)
    return None


def _conv_flops(op: Op) -> int | None:
    """``2 * out * Cin/groups * kh * kw`` for the forward op; its gradients do the same work."""
    name = op.opdef.name
    weight = op.operands[1] if name != "conv2d_backprop_filter" else op.results[0]
    big = op.results[0] if name == "conv2d" else op.operands[0]   # the conv output's shape
    if name == "conv2d_backprop_input":
        big = op.operands[0]
    if not isinstance(weight.type, TensorType) or not isinstance(big.type, TensorType):
        return None
    return 2 * _elements(big) * math.prod(weight.type.shape[1:])


def flops(ops) -> int | None:
    """The estimated FLOPs of ``ops`` together; ``None`` when any of them is unknown."""
    total = 0
    for op in ops:
        n = op_flops(op)
        if n is None:
            return None
        total += n
    return total
