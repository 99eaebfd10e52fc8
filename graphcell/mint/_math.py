"""mint's elementwise math, comparisons and products: ``ops`` functions under PyTorch's
argument names (``add(input, other, *, alpha=1)``, ``div(..., rounding_mode=None)``,
``bmm(input, mat2)``...).

Example::

    >>> import graphcell as ms
    >>> from graphcell import mint
    >>> mint.add(ms.Tensor([1.0, 2.0]), ms.Tensor([1.0, 1.0]), alpha=2)
    Tensor(shape=[2], dtype=Float32, value= [ 3.00000000e+00,  4.00000000e+00])
"""
from __future__ import annotations

from graphcell import ops
# mint's function is ops' function (the same object or the same signature in MindSpore 2.10)
from graphcell.ops import (  # noqa: F401 - re-exported
    abs, acos, acosh, addbmm, addmm, addmv, arccos, arccosh, arcsin, arcsinh, arctan, arctan2,
    arctanh, asin, asinh, atan, atan2, atanh, bitwise_and, bitwise_or, bitwise_xor, ceil, clamp,
    cos, cosh, cross, divide, eq, equal, erf, erfc, erfinv, exp, exp2, expm1, float_power, floor,
    floor_divide, fmod, gcd, greater, greater_equal, gt, imag, inverse, isclose, isfinite, isinf,
    isnan, isneginf, le, lerp, less, less_equal, log, log10, log1p, log2, logaddexp, logaddexp2,
    logical_and, logical_not, logical_or, logical_xor, lt, matmul, maximum, minimum, mm, mul,
    nan_to_num, ne, neg, negative, not_equal, outer, pow, real, reciprocal, remainder, round,
    rsqrt, sigmoid, sign, sin, sinc, sinh, square, tan, tanh, trace, trunc, xlogy)

__all__ = [
    "abs", "acos", "acosh", "add", "addbmm", "addcdiv", "addcmul", "addmm", "addmv",
    "allclose", "arccos", "arccosh", "arcsin", "arcsinh", "arctan", "arctan2", "arctanh", "asin",
    "asinh", "atan", "atan2", "atanh", "baddbmm", "bitwise_and", "bitwise_not", "bitwise_or",
    "bitwise_xor", "bmm", "ceil", "cdist", "clamp", "clip", "cos", "cosh", "cross", "div",
    "divide", "dot", "eq", "equal", "erf", "erfc", "erfinv", "exp", "exp2", "expm1", "fix",
    "float_power", "floor", "floor_divide", "fmod", "frac", "gcd", "ge", "greater",
    "greater_equal", "gt", "imag", "inverse", "isclose", "isfinite", "isinf", "isnan", "isneginf",
    "le",
    "lerp", "less", "less_equal", "log", "log1p", "log2", "log10", "logaddexp", "logaddexp2",
    "logical_and", "logical_not", "logical_or", "logical_xor", "lt", "matmul", "maximum",
    "minimum", "mm", "mul", "mv", "nan_to_num", "ne", "neg", "negative", "not_equal", "outer",
    "pow", "real", "reciprocal", "remainder", "round", "rsqrt", "sigmoid", "sign", "sin", "sinc",
    "sinh", "softmax", "sqrt", "square", "sub", "tan", "tanh", "trace", "triangular_solve",
    "trunc", "vdot", "xlogy"]


def add(input, other, *, alpha=1):  # noqa: A002 - mint's argument names
    """``input + alpha * other``."""
    return ops.add(input, other if alpha == 1 else ops.mul(other, alpha))


def sub(input, other, *, alpha=1):  # noqa: A002
    """``input - alpha * other``."""
    return ops.sub(input, other if alpha == 1 else ops.mul(other, alpha))


def div(input, other, *, rounding_mode=None):  # noqa: A002
    """``input / other``, rounded toward zero (``"trunc"``) or down (``"floor"``) if asked."""
    return ops.div(input, other, rounding_mode=rounding_mode)


def addcdiv(input, tensor1, tensor2, *, value=1):  # noqa: A002
    """``input + value * tensor1 / tensor2``."""
    return ops.addcdiv(input, tensor1, tensor2, value)


def addcmul(input, tensor1, tensor2, *, value=1):  # noqa: A002
    """``input + value * tensor1 * tensor2``."""
    return ops.addcmul(input, tensor1, tensor2, value)


def baddbmm(input, batch1, batch2, *, beta=1, alpha=1):  # noqa: A002
    """``beta * input + alpha * (batch1 @ batch2)``."""
    return ops.baddbmm(input, batch1, batch2, beta, alpha)


def bmm(input, mat2):  # noqa: A002
    """Batched matrix product of ``(b, n, m)`` and ``(b, m, p)`` tensors."""
    return ops.bmm(input, mat2)


def mv(input, vec):  # noqa: A002
    """Matrix-vector product."""
    return ops.mv(input, vec)


def cdist(x1, x2, p=2.0, compute_mode="use_mm_for_euclid_dist_if_necessary"):
    """The ``p``-norm distances between the rows of ``x1`` and ``x2`` (``compute_mode`` is
    accepted for PyTorch's sake: graphcell computes every distance directly)."""
    return ops.cdist(x1, x2, p)


fix = trunc
ge = greater_equal
clip = clamp


def frac(input):  # noqa: A002
    """The fractional part, ``input - trunc(input)``."""
    return ops.frac(input)


def sqrt(input):  # noqa: A002
    """The square root."""
    return ops.sqrt(input)


def bitwise_not(input):  # noqa: A002
    """``~input`` for integer and bool tensors."""
    return input.bitwise_not()


def allclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):  # noqa: A002
    """Whether every ``|input - other| <= atol + rtol * |other|`` (a Python bool)."""
    return input.allclose(other, rtol, atol, equal_nan)


def softmax(input, dim, *, dtype=None):  # noqa: A002
    """``exp(input) / sum(exp(input), dim)``, computed in ``dtype`` when given."""
    return ops.softmax(input, dim, dtype=dtype)


def dot(input, other):  # noqa: A002
    """The inner product of two 1-D tensors (PyTorch's ``dot``; ``ops.dot`` is a matrix product)."""
    if input.ndim != 1 or other.ndim != 1:
        raise ValueError(f"mint.dot: both inputs must be 1-D, got shapes {input.shape} and "
                         f"{other.shape}")
    return ops.matmul(input, other)


def vdot(input, other):  # noqa: A002
    """The inner product of two 1-D tensors (no complex dtypes in graphcell: as :func:`dot`)."""
    return dot(input, other)


def triangular_solve(b, A, upper=True, transpose=False, unitriangular=False):  # noqa: N803
    """``(X, A)`` with ``A X = b`` (``A.T X = b`` when ``transpose``) for a triangular ``A``."""
    return b.triangular_solve(A, upper, transpose, unitriangular)
