"""``dead_branch``: control flow decided by a constant.

- An ``if`` whose predicate is a constant (a ``bool`` literal or a ``const`` of type ``bool[]``,
  as ``fold`` leaves them) is replaced by the ops of the branch it takes, moved in front of it;
  its results become what that branch yields. The other branch never ran, so dropping it removes
  no effect.
- A ``while`` whose condition region yields a constant ``false`` runs its condition once and
  never its body: the condition's ops are moved in front of it (its arguments bound to the
  initial values, so any effect there still happens once) and its results are the initial
  values.

Ops keep their locations. Not done when the dropped region holds the last use of a side
effect's result from outside it (the verifier requires such results to be used).

Precondition: valid IR. Postcondition: valid IR with the same values and effects; no ``if`` on a
constant predicate and no ``while`` with a constant-false condition, but for that exception.
"""
from __future__ import annotations

from graphcell_ir.ir.core import Block, Function, Op, OpResult, Value
from graphcell_ir.ir.structural import IF, WHILE
from graphcell_ir.ir.walk import walk
from graphcell_ir.passes.support import (NOT_CONSTANT, constant_value, keeps_effect_alive,
                                         per_function, replace_value)


@per_function
def dead_branch(fn: Function) -> bool:
    """See the module docstring."""
    changed = False
    for op in list(walk(fn)):
        if op.function is not fn:
            continue  # inside a branch that was just dropped
        if op.opdef is IF:
            taken = constant_predicate(op.operands[0])
            if taken is not None and not keeps_effect_alive(op.regions[1 if taken else 0].block):
                _inline_region(op, op.regions[0 if taken else 1].block)
                changed = True
        elif op.opdef is WHILE:
            cond, body = op.regions[0].block, op.regions[1].block
            if constant_predicate(cond.terminator.operands[0]) is False \
                    and not keeps_effect_alive(body):
                for arg, init in zip(cond.args, op.operands):
                    replace_value(arg, init)
                _inline_region(op, cond, results=list(op.operands))
                changed = True
    return changed


def constant_predicate(v: Value) -> bool | None:
    """The value of a constant predicate, None when it is not known while compiling."""
    c = constant_value(v)
    if c is NOT_CONSTANT or c is None:
        return None
    return bool(c)


def _inline_region(op: Op, block: Block, results: list[Value] | None = None) -> None:
    """Move ``block``'s ops in front of ``op``; replace ``op``'s results by ``results`` (default:
    what the block yields) and erase ``op``."""
    yielded = list(block.terminator.operands)
    moved = block.ops[:-1]
    for inner in moved:
        inner.move_before(op)
    for r, v in zip(op.results, yielded if results is None else results):
        if isinstance(v, OpResult) and v.op in moved and v.name_hint is None:
            v.name_hint = r.name_hint  # the user's name for what the branch computed
        replace_value(r, v)
    op.erase()
