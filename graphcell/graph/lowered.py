"""``Lowered``: the IR of one compiled call, for reading (``net.compile(x)``, ``jit(f).lower(x)``).

Example::

    >>> import numpy as np
    >>> import graphcell as ms
    >>> from graphcell import ops
    >>> @ms.jit
    ... def add_fn(x, y):
    ...     return ops.add(x, y)
    >>> x = ms.Tensor(np.ones((2, 2), np.float32))
    >>> print(add_fn.lower(x, x).as_text(locs="none"))
    func @add_fn(%x: f32[2,2], %y: f32[2,2]) -> f32[2,2] {
      %0 = add(%x, %y) : f32[2,2]
      return %0
    }
"""
from __future__ import annotations

from graphcell.graph.executor import Program
from graphcell_ir.text.printer import LOC_MODES, print_module

__all__ = ["Lowered"]


class Lowered:
    """The compiled IR of one function for one input signature.

    ``as_text(locs="user")`` prints the module (``"user"``: the user's source line on every op;
    ``"full"``: every inlined frame; ``"none"``: no locations). ``module`` and ``function`` are
    the IR objects; ``param_names`` the Parameters that are arguments, in order.
    """

    def __init__(self, program: Program, signature: str = ""):
        self.program = program
        self.signature = signature

    @property
    def pass_reports(self) -> tuple:
        """What each optimisation pass did: name, changed, ops before and after, time; a tuple
        of ``PassReport`` that prints as a table (``print(lowered.pass_reports)``)."""
        from graphcell_ir.passes.manager import PassReports
        return PassReports(self.program.pass_reports)

    @property
    def module(self):
        return self.program.module

    @property
    def function(self):
        return self.program.function

    @property
    def param_names(self) -> list[str]:
        return [p.name for p in self.program.params]

    @property
    def mutated_names(self) -> list[str]:
        """The Parameters the function writes back, in result order."""
        return [p.name for p in self.program.mutated]

    def as_text(self, locs: str = "user") -> str:
        """The IR text (``.gcir``); ``locs`` is ``"user"``, ``"full"`` or ``"none"``."""
        if locs not in LOC_MODES:
            raise ValueError(f"as_text: locs must be one of {', '.join(map(repr, LOC_MODES))}, "
                             f"got {locs!r}")
        return print_module(self.program.module, locs=locs).rstrip("\n")

    def summary(self):
        """One screen about the compiled function: its inputs, parameters and results with their
        types, the ops by name and kind, the fused groups and the ops inside them, and the
        estimated FLOPs and bytes (``graphcell_ir.text.summary``); ``print()`` it.

        Example::

            >>> import numpy as np
            >>> import graphcell as ms
            >>> from graphcell import nn
            >>> s = nn.ReLU().compile(ms.Tensor(np.ones((2, 3), np.float32))).summary()
            >>> print(s)
            @ReLU.construct: 1 input, 0 parameters (0 values, 0 B), 1 result, 1 op
              inputs: %input f32[2,3]
              results: f32[2,3]
              ops: relu 1
              by kind: elementwise 1
              estimated work: 6 FLOP, 48 B read and written
              heaviest: relu 6 FLOP (100%)
        """
        from graphcell_ir.text.summary import summarize
        return summarize(self.program.function)

    def __str__(self) -> str:
        return self.as_text()

    def __repr__(self) -> str:
        return f"<Lowered @{self.program.function.name}({self.signature})>"
