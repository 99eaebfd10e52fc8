"""``fold``: constant folding with the registry's numpy references.

A primitive whose operands are all compile-time constants (literals and ``const`` ops) is run
once, now, with ``opdef.ref`` — the same function PyNative and the interpreter run, so the folded
value is bit for bit what running the op would give. Tensor results become ``const`` ops (inline
when small, in the module's constant table when large, as ``Builder.const`` decides); scalar
results become literals at each use.

Never folded:
- ops with a side effect or that draw random numbers (``Kind.SIDE_EFFECT``, ``Trait.RANDOM``),
  and ops carrying a host callback (an ``ANY`` attribute): running them now would do it at the
  wrong time, or once instead of every call;
- structural ops (``if``, ``while``, ``call``, tuples: ``simplify``/``dead_branch`` handle what
  is constant there);
- ops that would *grow* the program's data: a result with more elements than its operands
  together and than an inline constant holds (``fill``, ``broadcast_to`` of a scalar into a
  large tensor are cheaper computed than stored);
- ops whose reference raises, or returns a value that does not fit the op's type: the op stays,
  so the error happens at run time, where the user sees it.

Precondition: valid IR. Postcondition: valid IR with the same values; folded ops are erased
(constants they used are left for ``dce``); ``const`` ops take the folded op's loc and name.
"""
from __future__ import annotations

import numpy as np

from graphcell_ir.backend.interp import type_mismatch
from graphcell_ir.ir.builder import INLINE_CONST_LIMIT, Builder
from graphcell_ir.ir.core import Function, Literal, Op
from graphcell_ir.ir.structural import StructuralOpDef
from graphcell_ir.ir.types import ScalarType, TensorType
from graphcell_ir.ir.walk import walk
from graphcell_ir.passes.support import (NOT_CONSTANT, constant_value, has_effect,
                                         has_host_callback, per_function, replace_value)


@per_function
def fold(fn: Function) -> bool:
    """See the module docstring."""
    changed = False
    for op in list(walk(fn)):
        if op.function is fn and foldable(op):
            changed |= fold_op(op)
    return changed


def foldable(op: Op) -> bool:
    """Whether ``op`` is a pure primitive with only constant operands (see the docstring)."""
    if isinstance(op.opdef, StructuralOpDef) or op.regions or not op.results:
        return False
    if has_effect(op) or has_host_callback(op):
        return False
    if not all(isinstance(r.type, (TensorType, ScalarType)) for r in op.results):
        return False
    return all(constant_value(v) is not NOT_CONSTANT for v in op.operands)


def fold_op(op: Op) -> bool:
    """Replace ``op`` by its value; False (and ``op`` untouched) when it must stay."""
    args = [constant_value(v) for v in op.operands]
    if _grows_data(op, args):
        return False
    try:
        out = op.opdef.ref(*args, **op.attrs)
    except Exception:  # the op fails on these values: leave it to fail at run time
        return False
    outs = out if len(op.results) > 1 else (out,)
    if not isinstance(outs, tuple) or len(outs) != len(op.results):
        return False
    values = [_as_value_of_type(x, r.type) for x, r in zip(outs, op.results)]
    if any(v is None for v in values):
        return False
    if op.function.module is None and any(np.size(v) > INLINE_CONST_LIMIT for v in values):
        return False  # a large constant goes to a module's table, and there is none
    b = Builder.before_op(op)
    for r, v in zip(op.results, values):
        if isinstance(r.type, ScalarType):
            replace_value(r, Literal(v, r.type))
            continue
        c = b.const(v)
        c.name_hint = r.name_hint
        r.replace_all_uses_with(c)
    op.erase()
    return True


def _grows_data(op: Op, args: list) -> bool:
    size_in = sum(np.size(a) for a in args if a is not None)
    size_out = sum(r.type.size for r in op.results if isinstance(r.type, TensorType))
    return size_out > max(size_in, INLINE_CONST_LIMIT)


def _as_value_of_type(x, t):
    """``x`` as the Python scalar or array the IR type ``t`` holds, or None when it does not fit."""
    if isinstance(t, ScalarType):
        if isinstance(x, np.generic):
            x = x.item()
        return x if type_mismatch(x, t) is None else None
    if isinstance(x, np.generic):
        x = np.asarray(x)
    return np.array(x) if type_mismatch(x, t) is None else None
