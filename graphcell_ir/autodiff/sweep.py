"""Dropping the ops the gradient transform emitted but nothing uses.

Rules compute a gradient for every operand, also for those that are not active (``mul``'s rule
computes both sides), and replays recompute every op of a branch or loop body, also those whose
values the backward does not need. This sweep erases such ops — pure ops whose results are all
unused — so the printed gradient Function shows only what runs. Ops with side effects or random
draws, and ops whose regions hold any, are kept (DESIGN.md §4: effects are never dropped).

It also drops unused *results* of ``if`` and ``while`` ops (with the yields and loop-carried
values feeding only them). That matters for memory: a loop's stacked entry values that the
backward turned out not to need (a loop counter; in a gradient of a gradient, the first
gradient's own stacks) disappear with the ``fill`` that allocated them.

It is a small, local dead-code elimination for the transform's own output; the pass pipeline's
``dce`` does the general job afterwards.
"""
from __future__ import annotations

from graphcell_ir.ir.core import Block, Function, Op, Region
from graphcell_ir.ir.structural import IF, WHILE
from graphcell_ir.ir.walk import walk
from graphcell_ir.autodiff.analysis import must_save, needed_values


def sweep(fn: Function) -> None:
    """Erase dead pure ops and unused control-flow results of ``fn`` until none is left.

    >>> from graphcell_ir.text import parse_module
    >>> m = parse_module("func @f(%x: f32[2]) -> f32[2] {\\n  %0 = exp(%x) : f32[2]\\n"
    ...                  "  %1 = neg(%0) : f32[2]\\n  return %x\\n}\\n")
    >>> sweep(m["f"]); [op.opdef.name for op in m["f"].body]
    ['return']
    """
    while True:
        erase_dead_ops(fn)
        if not prune_results(fn):
            return


def erase_dead_ops(fn: Function) -> int:
    """Erase dead pure ops of ``fn`` until none is left; returns how many were erased."""
    erased = 0
    while True:
        before = erased
        for op in reversed(list(walk(fn))):  # users before the values they use
            if _removable(op) and _attached(op, fn):
                op.erase()
                erased += 1
        if erased == before:
            return erased


def _attached(op: Op, fn: Function) -> bool:
    """Whether ``op`` is still in ``fn`` (not inside an op erased earlier in this round)."""
    return op.parent is not None and op.function is fn


def _removable(op: Op) -> bool:
    if op.is_terminator or must_save(op) or any(r.uses for r in op.results):
        return False
    return not any(must_save(inner) for region in op.regions for inner in walk(region))


# --- unused results of if / while ----------------------------------------------------------------

def prune_results(fn: Function) -> bool:
    """Rebuild each ``if``/``while`` of ``fn`` without its dead results; whether any changed."""
    changed = False
    for op in reversed(list(walk(fn))):
        if op.opdef is IF or op.opdef is WHILE:
            keep = _live_results(op)
            if len(keep) < len(op.results):
                _rebuild(op, keep)
                changed = True
    return changed


def _live_results(op: Op) -> list[int]:
    live = {i for i, r in enumerate(op.results) if r.uses}
    if op.opdef is IF:
        return sorted(live)
    cond, body = (r.block for r in op.regions)
    while True:  # a carried value is live if the condition or a live one needs it
        needed = needed_values(cond, [0]) | needed_values(body, live)
        more = {i for i in range(len(op.results))
                if body.args[i] in needed or cond.args[i] in needed} - live
        if not more:
            return sorted(live)
        live |= more


def _rebuild(op: Op, keep: list[int]) -> None:
    """Replace ``op`` by a copy holding only results (and carried values) ``keep``."""
    is_while = op.opdef is WHILE
    operands = [op.operands[i] for i in keep] if is_while else list(op.operands)
    new = Op(op.opdef, operands, [op.results[i].type for i in keep], None,
             [Region(Block()) for _ in op.regions], op.loc)
    for old_r, new_r in zip(op.regions, new.regions):
        old, dst = old_r.block, new_r.block
        for i in (keep if is_while else ()):
            dst.add_arg(old.args[i].type, old.args[i].name_hint)
        for i, a in enumerate(old.args):
            if is_while and i in keep:
                a.replace_all_uses_with(dst.args[keep.index(i)])
        for inner in old.ops:
            inner.detach()
            dst.append(inner)
        term = dst.terminator
        is_cond = is_while and old_r is op.regions[0]
        if not is_cond:
            term.set_operands([term.operands[i] for i in keep])
    op.parent.insert_before(op, new)
    for i, r in zip(keep, new.results):
        r.name_hint = op.results[i].name_hint
        op.results[i].replace_all_uses_with(r)
    op.erase()
