"""``dce``: dead code elimination.

Removes ops whose results are unused and that are removable (``support.is_removable``: no side
effect, no random draw, no region or callee with one, not the last use of a side effect's
result), in every block, innermost first, until nothing more dies. Region-holding ops are also
trimmed:

- ``if`` and ``fused``: a result nobody uses is dropped, with the value each region yields for it
  (the ops computing it then die too), unless a region yields a side effect's result there; an
  input of a ``fused`` op its body no longer reads is dropped;
- ``while``: the carried values kept are those whose results are used, those the condition or
  an effect in the body needs, and, closing over the body, those computing the next values of
  kept ones; every other carried value goes with the ops computing it — a loop counter that only
  feeds itself, values that only feed each other (a gradient of a gradient's unneeded stacks);
- an ``if``/``while``/``fused``/``call`` without effects whose results are all unused goes
  entirely.

:func:`erase_if_dead` is the same elimination started from one op (the rewrite driver erases
what a rewrite left dead with it). This is the one DCE: the pass pipeline, the rule driver and
the gradient transform (which sweeps its own output) use it.

Side effects are never removed or reordered: DCE only ever erases ops. Preconditions: valid IR.
Postconditions: valid IR with the same results and effects; no removable op is unused.
"""
from __future__ import annotations

from graphcell_ir.ir.core import Block, Function, Literal, Op, OpResult
from graphcell_ir.ir.structural import FUSED, IF, WHILE
from graphcell_ir.ir.walk import free_values
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
    live = _live_carried(op, cond, body)
    if len(live) == len(op.results):
        return False
    keep = sorted(live)
    drop_yielded(body, keep)
    _erase_dead(body)  # what computed the dropped values, so the block args lose their uses
    _erase_dead(cond)
    drop = [i for i in range(len(op.results)) if i not in live]
    assert not any(body.args[i].uses or cond.args[i].uses for i in drop), \
        "a dropped carried value is still read"
    for i in reversed(drop):
        cond.erase_arg(i)
        body.erase_arg(i)
    op.set_operands([op.operands[i] for i in keep])
    rebuild_with_results(op, keep)
    return True


def _live_carried(op: Op, cond: Block, body: Block) -> set[int]:
    """The carried values of ``while`` op ``op`` that must stay (see the module docstring)."""
    n = len(op.results)
    live = {i for i in range(n) if op.results[i].uses or _yields_effect(body, i)
            or _init_is_effect(op, i)}
    while True:
        needed = _needed(cond, [0]) | _needed(body, sorted(live))
        more = {i for i in range(n) if body.args[i] in needed or cond.args[i] in needed} - live
        if not more:
            return live
        live |= more


def _needed(block: Block, positions) -> set:
    """The values ``block`` needs to yield the values at ``positions`` and to run its effects:
    closed over operands and the captures of ops with regions, within ``block``."""
    todo = [block.terminator.operands[i] for i in positions]
    for op in block:
        if not op.is_terminator and not is_removable(op):
            todo += [*op.operands, *free_values(op)]
    needed: set = set()
    while todo:
        v = todo.pop()
        if v in needed or isinstance(v, Literal):
            continue
        needed.add(v)
        if isinstance(v, OpResult) and v.op.parent is block:
            todo += [*v.op.operands, *free_values(v.op)]
    return needed


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


def _erase_dead(block: Block) -> None:
    for op in reversed(block.ops):
        if op.parent is not None and not any(r.uses for r in op.results) and is_removable(op):
            op.erase()


def erase_if_dead(op: Op) -> int:
    """Erase ``op`` if it is unused and removable, then the producers that became dead with it.
    Returns how many ops were erased."""
    erased, todo = 0, [op]
    while todo:  # a worklist, not recursion: dead chains can be thousands of ops long
        op = todo.pop()
        if op.parent is None or any(r.uses for r in op.results) or not is_removable(op):
            continue
        todo.extend(v.op for v in op.operands if isinstance(v, OpResult))
        op.erase()
        erased += 1
    return erased
