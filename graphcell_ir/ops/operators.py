"""Python's operators on tensors, and the registry op each one is: the one table.

PyNative's ``Tensor``, graph mode's ``GraphTensor`` (library code traced with IR values) and the
frontend (``x & y`` in a user's ``construct``) all read it, so an operator means the same in both
modes. It follows MindSpore 2.10: ``&``, ``|`` and ``^`` are the bitwise ops (logical on bools, a
TypeError on floats) and have no reflected forms (``1 & x`` is a TypeError, as in MindSpore);
``~`` is ``logical_not`` whatever the dtype (MindSpore's ``~`` on an Int32 tensor gives Bool);
``<<`` and ``>>`` are not Tensor operators (``ops.bitwise_left_shift`` is).

    >>> BY_SYMBOL["&"]
    ('__and__', None, 'bitwise_and')
"""
from __future__ import annotations

BINARY_OPERATORS: tuple[tuple[str, str, str | None, str], ...] = (
    # symbol, method, reflected method (None: Python's TypeError), registry op
    ("+", "__add__", "__radd__", "add"), ("-", "__sub__", "__rsub__", "sub"),
    ("*", "__mul__", "__rmul__", "mul"), ("/", "__truediv__", "__rtruediv__", "div"),
    ("//", "__floordiv__", "__rfloordiv__", "floor_div"), ("%", "__mod__", "__rmod__", "mod"),
    ("**", "__pow__", "__rpow__", "pow"), ("@", "__matmul__", "__rmatmul__", "matmul"),
    ("<", "__lt__", None, "less"), ("<=", "__le__", None, "less_equal"),
    (">", "__gt__", None, "greater"), (">=", "__ge__", None, "greater_equal"),
    ("==", "__eq__", None, "equal"), ("!=", "__ne__", None, "not_equal"),
    ("&", "__and__", None, "bitwise_and"), ("|", "__or__", None, "bitwise_or"),
    ("^", "__xor__", None, "bitwise_xor"),
)
"""Binary operators. Comparisons need no reflected method: Python swaps them (``1 < x`` is
``x > 1``)."""

UNARY_OPERATORS: tuple[tuple[str, str, str], ...] = (
    ("-", "__neg__", "neg"), ("~", "__invert__", "logical_not"), ("abs", "__abs__", "abs"),
)
"""Unary operators: symbol (``abs`` is the builtin), method, registry op."""

BY_SYMBOL = {symbol: (method, reflected, op) for symbol, method, reflected, op in BINARY_OPERATORS}
UNARY_BY_SYMBOL = {symbol: op for symbol, _, op in UNARY_OPERATORS}
