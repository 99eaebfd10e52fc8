"""``fma(x, y, z)``: ``x * y + z`` rounded once, the one builtin of the kernel language that
Python 3.11 lacks (3.13's ``math.fma``).

Templates use it where an op's own arithmetic is graphcell's choice (the tanh approximant's
polynomials), never for a sequence of user ops, whose roundings are numpy's. It has three
meanings: the code generator emits ``llvm.fma`` (:meth:`.codegen.arith.Arith.fma`), numba's
fallback the same intrinsic (:func:`numba_fma`), and plain Python (the no-JIT oracle) the exact
sum rounded once to float64 (a zero's sign as IEEE's); they give the same bits, but for a tie in
the last bit of a float32 result in Python (:func:`fma`).

    >>> fma(0.1, 10.0, -1.0)   # 0.1 * 10.0 is 1.0 after rounding; exactly, 5.55e-17 more
    5.551115123125783e-17
    >>> type(fma(np.float32(2), np.float32(3), np.float32(1)))
    <class 'numpy.float32'>
"""
from __future__ import annotations

import functools
from fractions import Fraction

import numpy as np


def fma(x, y, z):
    """``x * y + z`` with one rounding: float32 when all three are, else float64 (numba's rule
    for math functions of several floats). For float32, the exact value is rounded to float64,
    then to float32, which may differ from one rounding in a tie of the last bit; NaN and
    infinite operands give ``x * y + z``."""
    as_type = np.float32 if all(isinstance(v, np.float32) for v in (x, y, z)) else float
    try:
        exact = Fraction(float(x)) * Fraction(float(y)) + Fraction(float(z))
        if exact:
            return as_type(float(exact))
    except (ValueError, OverflowError):   # NaN or Inf operands, or a sum beyond float64
        pass
    # here x * y + z rounds as fma does: an exact zero's sign is IEEE's (a product that cancels
    # z equals -z, so it is exact), and NaN, Inf and overflow come out of either
    return as_type(float(x) * float(y) + float(z))


@functools.cache
def numba_fma():
    """``fma`` for numba (``llvm.fma``), for a kernel numba compiles (imports numba)."""
    from numba.core import types
    from numba.extending import intrinsic

    @intrinsic
    def fma_(typingctx, x, y, z):
        if not all(isinstance(t, types.Float) for t in (x, y, z)):
            return None
        t = x if x == y == z == types.float32 else types.float64
        sig = t(x, y, z)

        def codegen(context, builder, sig, args):
            args = [context.cast(builder, a, at, t) for a, at in zip(args, sig.args)]
            return builder.fma(*args)
        return sig, codegen

    return fma_
