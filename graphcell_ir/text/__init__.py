"""The ``.gcir`` text form of the IR: printer, lexer and parser.

``print_module(parse_module(t)) == t`` for printed text ``t``, and ``parse_module(print_module(m))``
is structurally equal to ``m`` (exactly so with ``locs="full"``).

Example::

    >>> from graphcell_ir.text import parse_module, print_module
    >>> m = parse_module("func @f(%x: f32[2]) -> f32[2] {\\n  %0 = neg(%x) : f32[2]\\n  return %0\\n}\\n")
    >>> print(print_module(m), end="")
    func @f(%x: f32[2]) -> f32[2] {
      %0 = neg(%x) : f32[2]
      return %0
    }
"""
from graphcell_ir.text.parser import parse_function, parse_module
from graphcell_ir.text.printer import LOC_MODES, Printer, print_function, print_module, print_op
from graphcell_ir.text.values import HostRef

__all__ = ["parse_module", "parse_function", "print_module", "print_function", "print_op",
           "Printer", "LOC_MODES", "HostRef"]
