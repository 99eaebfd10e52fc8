"""``cse``: common subexpression elimination.

Two ops compute the same value when they have the same OpDef, the same operands (the same SSA
values; literals by type and exact value, so ``-0.0`` and ``0.0`` differ and NaN equals NaN), the
same attributes and the same result types. The later one is replaced by the earlier one when the
earlier one dominates it: it comes before it in the same block, or in a block enclosing it. So a
scoped table is kept: a region sees the values of the blocks around it, but what a region
computes is never reused after it. The body of a ``fused`` op is isolated from above and starts
with an empty table. Constants are merged by value.

Never merged: ops with a side effect or a random draw (``support.has_effect``), ops with regions
(``if``/``while``/``fused``: comparing bodies is not worth it here), calls, terminators.

Precondition: valid IR. Postcondition: valid IR with the same values; no two mergeable ops where
one dominates the other. Replaced ops are erased; nothing is moved.
"""
from __future__ import annotations

import math
from collections import ChainMap

import numpy as np

from graphcell_ir.ir.core import Block, Function, Literal, Op, Value
from graphcell_ir.ir.structural import CALL, FUSED
from graphcell_ir.passes.support import has_effect, per_function, replace_value


@per_function
def cse(fn: Function) -> bool:
    """See the module docstring."""
    return _cse_block(fn.body, ChainMap())


def _cse_block(block: Block, seen: ChainMap) -> bool:
    """``seen`` maps keys of the ops that dominate this block to their ops; this block adds to a
    child scope of it, so nothing computed here leaks outwards."""
    table = seen.new_child()
    changed = False
    for op in block.ops:
        for r in op.regions:
            changed |= _cse_block(r.block, ChainMap() if op.opdef is FUSED else table)
        if not _mergeable(op):
            continue
        key = op_key(op)
        first = table.get(key)
        if first is None:
            table[key] = op
            continue
        for old, new in zip(op.results, first.results):
            if new.name_hint is None:
                new.name_hint = old.name_hint
            replace_value(old, new)
        op.erase()
        changed = True
    return changed


def _mergeable(op: Op) -> bool:
    return bool(op.results) and not op.regions and op.opdef is not CALL \
        and not op.is_terminator and not has_effect(op)


def op_key(op: Op) -> tuple:
    """What makes two ops compute the same value (see the module docstring)."""
    return (op.opdef, tuple(_operand_key(v) for v in op.operands),
            tuple((k, _attr_key(op.attrs[k])) for k in sorted(op.attrs)),
            tuple(r.type for r in op.results))


def _operand_key(v: Value):
    if isinstance(v, Literal):
        return ("literal", v.type, _attr_key(v.value))
    return v  # values have identity semantics: the same SSA value


def _attr_key(x):
    """A hashable stand-in for an attribute value that is equal exactly when the values are."""
    if isinstance(x, np.ndarray):
        return ("array", x.dtype.str, x.shape, x.tobytes())
    if isinstance(x, float):
        return ("float", "nan" if math.isnan(x) else x, math.copysign(1.0, x))
    if isinstance(x, slice):
        return ("slice", x.start, x.stop, x.step)
    if isinstance(x, (tuple, list)):
        return (type(x).__name__, tuple(_attr_key(e) for e in x))
    if isinstance(x, dict):
        return ("dict", tuple((k, _attr_key(x[k])) for k in sorted(x)))
    try:
        hash(x)
    except TypeError:
        return ("object", id(x))  # an opaque host object: equal only to itself
    return (type(x).__name__, x)

