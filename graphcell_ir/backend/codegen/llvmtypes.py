"""The LLVM types of the kernel language's values: scalars in registers and in memory, and how
each kind of value is passed to a function.

    >>> from graphcell_ir.backend.codegen.typerules import Array, F32, BOOL
    >>> str(value_type(F32)), str(value_type(BOOL)), str(memory_type(BOOL))
    ('float', 'i1', 'i8')
    >>> [str(t) for t in param_types(Array(F32, 2))]
    ['ptr', 'i64', 'i64']
"""
from __future__ import annotations

import llvmlite.ir as ir
import numpy as np

from graphcell_ir.backend.codegen import typerules as T

I1, I8, I32, I64 = ir.IntType(1), ir.IntType(8), ir.IntType(32), ir.IntType(64)
VOID, PTR = ir.VoidType(), ir.PointerType()


def value_type(t: np.dtype) -> ir.Type:
    """The LLVM type of a scalar in registers (a bool is an ``i1``)."""
    if t == T.BOOL:
        return I1
    if t.kind in "iu":
        return ir.IntType(t.itemsize * 8)
    return ir.FloatType() if t == T.F32 else ir.DoubleType()


def memory_type(t: np.dtype) -> ir.Type:
    """The LLVM type of a scalar in an array (a bool is a byte)."""
    return I8 if t == T.BOOL else value_type(t)


def param_types(t) -> list[ir.Type]:
    """How a value of type ``t`` is passed: an array as its data pointer and dimensions."""
    if isinstance(t, T.Array):
        return [PTR] + [I64] * t.ndim
    return [value_type(T.scalar(t, "a parameter"))]
