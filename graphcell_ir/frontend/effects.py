"""Keeping host callbacks (``print`` in ``construct``) alive: each unused result gets a use.

The verifier requires every result of a side-effecting op to be used, so that no pass can drop
the effect. ``print(x)`` has no use for the values ``host_callback`` passes through, so once a
Function is built, each unused result ``r`` gets one, an ordering edge with no arithmetic:

- in the function's body, the first returned value ``t`` becomes ``depend(t, r)``, so that IR
  autodiff, which copies what the outputs need and the effects, keeps a use in its forward copy;
- in a region (an ``if`` branch, a loop body), ``depend(0, r)`` right after the callback (IR
  autodiff exports side-effecting results out of regions itself).

The passes keep these (each holds the last use of a side-effecting result:
``passes.support.keeps_effect_alive``). Nothing changes in a Function without callbacks.
"""
from __future__ import annotations

from graphcell_ir.ir.builder import Builder
from graphcell_ir.ir.core import Function, Literal
from graphcell_ir.ir.walk import walk
from graphcell_ir.ops.registry import lookup


def thread_callbacks(fn: Function) -> None:
    """Give every unused result of a ``host_callback`` in ``fn`` a use (see the module doc)."""
    depend = lookup("depend")
    for op in [op for op in walk(fn) if op.opdef.name == "host_callback"]:
        unused = [r for r in op.results if not r.uses]
        if not unused:
            continue
        term = op.parent.terminator
        if op.parent is fn.body and term is not None and term.operands:
            b = Builder.before_op(term, op.loc)
            for r in unused:
                term.set_operand(0, b.op(depend, term.operands[0], r))
            continue
        b = Builder.before_op(op.next_op, op.loc)  # a callback is never a block's terminator
        for r in unused:
            b.op(depend, Literal(0), r)
