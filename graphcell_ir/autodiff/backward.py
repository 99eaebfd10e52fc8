"""The reverse sweep: walk a :class:`~graphcell_ir.autodiff.replay.Tape` backwards and emit, for
each op, the ops of its registry bprop rule — the rule PyNative runs, called here with the Builder
as the emitter, so ``F.mul(dout, y)`` in a rule becomes a ``mul`` op at the insertion point.

Each backward op gets the location of the forward op it differentiates, marked as gradient code
(``loc.with_mark(GRAD)``), so ``print_module`` shows which user line every gradient op is for.

How each kind of op is differentiated:

- a registry primitive: its ``bprop(*inputs, out, dout, **attrs)``. Literal operands are passed
  as Python numbers, as PyNative passes them; a multi-result op gets ``out``/``dout`` as tuples,
  with ``None`` for a result no cotangent reached (the rules of multi-result ops accept that);
- ``make_tuple`` / ``tuple_get``: cotangents are tuples of element cotangents;
- ``if`` / ``while``: ``control.py``; a ``call`` to a callee with a custom bprop: ``custom.py``.

Only *active* values (``analysis.active_values``) receive cotangents, and an op is skipped when
no cotangent reached its results: gradient code exists only where a gradient flows.
"""
from __future__ import annotations

from graphcell_ir.errors import AutodiffError
from graphcell_ir.ir.builder import Builder
from graphcell_ir.ir.core import Literal, Module, Op
from graphcell_ir.ir.structural import CALL, IF, MAKE_TUPLE, TUPLE_GET, WHILE
from graphcell_ir.autodiff.cotangent import accumulate, check_shape
from graphcell_ir.autodiff.replay import Copier, Tape, grad_loc, where


class Backward:
    """Emits the backward of tapes at ``builder``'s insertion point."""

    def __init__(self, builder: Builder, module: Module, active: set, capacity: int):
        self.b = builder
        self.module = module
        self.active = active
        self.capacity = capacity
        self.replayer = Copier(builder, active, capacity, mark=True)

    def block(self, tape: Tape, ct: dict) -> None:
        """Propagate ``ct`` (original value -> cotangent) back through ``tape``'s ops.

        Cotangents of values the block defines are consumed; what is left in ``ct`` afterwards
        belongs to values defined outside it (and to the block's arguments).
        """
        from graphcell_ir.autodiff import control, custom
        for op, info in reversed(tape.steps):
            douts = [ct.pop(r, None) for r in op.results]
            if all(d is None for d in douts) or not any(r in self.active for r in op.results):
                continue
            with self.b.at_loc(grad_loc(op.loc)):
                if op.opdef is IF:
                    control.backward_if(self, op, info, tape, douts, ct)
                elif op.opdef is WHILE:
                    control.backward_while(self, op, info, tape, douts, ct)
                elif op.opdef is CALL:
                    custom.backward_call(self, op, tape, douts, ct)
                elif op.opdef is MAKE_TUPLE:
                    self.distribute(op, douts[0], ct, "make_tuple")
                elif op.opdef is TUPLE_GET:
                    self.tuple_get(op, douts[0], ct)
                else:
                    self.primitive(op, tape, douts, ct)

    def primitive(self, op: Op, tape: Tape, douts: list, ct: dict) -> None:
        ins = [v.value if isinstance(v, Literal) else tape.vmap[v] for v in op.operands]
        outs = [tape.vmap[r] for r in op.results]
        single = len(outs) == 1
        grads = op.opdef.bprop(*ins, outs[0] if single else tuple(outs),
                               douts[0] if single else tuple(douts), **op.attrs)
        self.distribute(op, grads, ct, f"the bprop rule of {op.opdef.display_name}")

    def tuple_get(self, op: Op, dout, ct: dict) -> None:
        t = op.operands[0]
        n = len(t.type.elements)
        index = op.attrs["index"] % n
        self.distribute(op, [tuple(dout if j == index else None for j in range(n))], ct, "tuple_get")

    def distribute(self, op: Op, grads, ct: dict, source: str) -> None:
        """Add ``grads`` (one per operand of ``op``, None for none) to the operands' cotangents."""
        grads = tuple(grads) if isinstance(grads, (tuple, list)) else (grads,)
        if len(grads) != len(op.operands):
            raise AutodiffError(f"{source}{where(op)} returned {len(grads)} gradient(s) for "
                                f"{len(op.operands)} operand(s)")
        for i, (v, g) in enumerate(zip(op.operands, grads)):
            if g is None or isinstance(v, Literal) or v not in self.active:
                continue
            check_shape(g, v, f"the gradient {source}{where(op)} gives for operand {i}")
            accumulate(self.b, ct, v, g)
