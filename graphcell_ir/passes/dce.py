"""``dce``: dead code elimination.

Removes ops whose results are unused and that are removable (``support.is_removable``: no side
effect, no random draw, no region or callee with one, not the last use of a side effect's
result), in every block, innermost first, until nothing more dies. Region-holding ops are also
trimmed:

- ``if`` and ``fused``: a result nobody uses is dropped, with the value each region yields for it
  (the ops computing it then die too), unless a region yields a side effect's result there; an
  input of a ``fused`` op its body no longer reads is dropped;
- ``while``: a carried value is dropped when its result is unused and nothing but its own next
  value depends on it (the condition does not read it, and no other carried value, effect or
  region reads it through the body) — a loop counter that only feeds itself, a value computed and
  never read;
- an ``if``/``while``/``fused``/``call`` without effects whose results are all unused goes
  entirely.

Side effects are never removed or reordered: DCE only ever erases ops. Preconditions: valid IR.
Postconditions: valid IR with the same results and effects; no removable op is unused.
"""
from __future__ import annotations

from graphcell_ir.ir.core import Block, Function, Op, OpResult
from graphcell_ir.ir.structural import FUSED, IF, WHILE
from graphcell_ir.ops.registry import Kind
from graphcell_ir.passes.support import (drop_yielded, is_removable, per_function,
                                         rebuild_with_results, within)


@per_function
def dce(fn: Function) -> bool:
    """See the module docstring."""
    changed = False
    while _sweep(fn.body):
        changed = True
    return changed


def _sweep(block: Block) -> bool:
    """One backward pass over ``block`` (regions first, so their dead values are gone before
    the op holding them is judged)."""
    changed = False
    for op in reversed(block.ops):
        for r in op.regions:
            changed |= _sweep(r.block)
        if op.parent is None:
            continue
        if not any(r.uses for r in op.results) and is_removable(op):
            op.erase()
            changed = True
        elif op.opdef is IF:
            changed |= _trim_results(op)
        elif op.opdef is FUSED:
            changed |= _trim_results(op)
            changed |= _trim_inputs(op) if op.parent is not None else False
        elif op.opdef is WHILE:
            changed |= _trim_carried(op)
    return changed


def _trim_results(op: Op) -> bool:
    keep = [i for i, r in enumerate(op.results)
            if r.uses or any(_yields_effect(region.block, i) for region in op.regions)]
    if len(keep) == len(op.results):
        return False
    for r in op.regions:
        drop_yielded(r.block, keep)
    new = rebuild_with_results(op, keep)
    if not new.results and is_removable(new):
        new.erase()
    return True


def _trim_inputs(op: Op) -> bool:
    """Drop the inputs of a ``fused`` op that its body no longer reads."""
    body = op.regions[0].block
    drop = [i for i, a in enumerate(body.args) if not a.uses and not _init_is_effect(op, i)]
    if not drop:
        return False
    for i in reversed(drop):
        body.erase_arg(i)
    op.set_operands([v for i, v in enumerate(op.operands) if i not in drop])
    return True


def _trim_carried(op: Op) -> bool:
    cond, body = op.regions[0].block, op.regions[1].block
    drop = [i for i in range(len(op.results))
            if not op.results[i].uses and not cond.args[i].uses and not _yields_effect(body, i)
            and not _init_is_effect(op, i) and _only_feeds_itself(body, i)]
    if not drop:
        return False
    keep = [i for i in range(len(op.results)) if i not in drop]
    drop_yielded(body, keep)
    _erase_dead(body)  # what computed the dropped values, so the block args lose their uses
    assert not any(body.args[i].uses for i in drop), "a dropped carried value is still read"
    for i in sorted(drop, reverse=True):
        cond.erase_arg(i)
        body.erase_arg(i)
    op.set_operands([op.operands[i] for i in keep])
    rebuild_with_results(op, keep)
    return True


def _yields_effect(block: Block, i: int) -> bool:
    """Whether slot ``i`` of ``block``'s yield hands on a side effect's result (dropping it would
    leave the effect unused: the frontend threads assigned parameters out this way)."""
    v = block.terminator.operands[i]
    return isinstance(v, OpResult) and v.op.opdef.kind is Kind.SIDE_EFFECT


def _init_is_effect(op: Op, i: int) -> bool:
    """Whether operand ``i`` of ``op`` (a while's initial value, a fused op's input) is a side
    effect's result that nothing outside ``op`` uses (dropping it would leave it unused)."""
    v = op.operands[i]
    return isinstance(v, OpResult) and v.op.opdef.kind is Kind.SIDE_EFFECT \
        and all(within(u, op) for u in v.uses)


def _only_feeds_itself(body: Block, i: int) -> bool:
    """Whether body argument ``i`` reaches nothing but slot ``i`` of the body's yield: the ops
    that depend on it (forwards, through regions too) have no effect and reach no other slot."""
    term = body.terminator
    tainted = {body.args[i]}
    for op in body:
        if op is term:
            break
        if _reads_any(op, tainted):
            if not is_removable(op):
                return False
            tainted.update(op.results)
    return not any(v in tainted for j, v in enumerate(term.operands) if j != i)


def _reads_any(op: Op, values: set) -> bool:
    if any(v in values for v in op.operands):
        return True
    return any(_reads_any(inner, values) for r in op.regions for inner in r.block)


def _erase_dead(block: Block) -> None:
    for op in reversed(block.ops):
        if op.parent is not None and not any(r.uses for r in op.results) and is_removable(op):
            op.erase()
