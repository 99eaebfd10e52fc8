"""Estimated floating-point operations of a group of ops (a kernel or one op), for the profile
(``backend/profile.py``): the sum of each op's estimate from the registry's cost rules
(``OpDef.cost``, the defaults of its ``Kind``: ``graphcell_ir.ops.cost``). A group holding an op
with no estimate is unknown (``None``), so a rate is never made up.

    >>> # flops([matmul of f32[4,3] x f32[3,2]^T]) == 2 * 4 * 2 * 3
"""
from __future__ import annotations

from graphcell_ir.ir.core import Op
from graphcell_ir.ops import cost as op_cost

__all__ = ["flops"]


def flops(ops) -> int | None:
    """The estimated FLOPs of ``ops`` together; ``None`` when any of them is unknown."""
    total = 0
    for op in ops:
        n = _op_flops(op)
        if n is None:
            return None
        total += n
    return total


def _op_flops(op: Op) -> int | None:
    try:
        return op_cost.flops(op.opdef, [v.type for v in op.operands],
                             [r.type for r in op.results], dict(op.attrs))
    except (TypeError, ValueError, AttributeError):   # a rule that does not fit these types
        return None
