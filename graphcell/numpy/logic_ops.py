"""``mindspore.numpy.logic_ops``: comparisons, predicates and set membership with numpy's
signatures.

Comparisons and logic are ``graphcell.ops``'s, on the arguments made tensors (numbers are Int32,
Float32 or Bool tensors). ``array_equal``/``array_equiv`` return a 0-d Bool tensor.
``setdiff1d`` returns as many values as the data hold, so it runs in PyNative mode only.

Example::

    >>> import graphcell as ms
    >>> import graphcell.numpy as mnp
    >>> x = ms.Tensor([1.0, float("nan"), float("inf")])
    >>> mnp.isnan(x).asnumpy().tolist(), mnp.isin(x, [1.0, 2.0]).asnumpy().tolist()
    ([False, True, False], [True, False, False])
"""
from __future__ import annotations

import numpy as np

from graphcell import ops
from graphcell.numpy import array_ops
from graphcell.numpy.utils import (apply, axes_arg, cast, check_tensor, dtype_arg, is_scalar,
                                   reduce_all, reduce_any, to_tensor, to_tensors)
from graphcell.tensor import Tensor
from graphcell_ir.ir.types import bool_, promote

__all__ = ["equal", "not_equal", "less", "less_equal", "greater", "greater_equal", "isfinite",
           "isnan", "isinf", "isposinf", "isneginf", "isscalar", "logical_and", "logical_or",
           "logical_xor", "logical_not", "isclose", "in1d", "isin", "signbit", "sometrue",
           "array_equal", "array_equiv", "setdiff1d"]

_FN = "mindspore.numpy"


def _binary(op, name: str, doc: str):
    def fn(x1, x2, dtype=None):
        return apply(op, x1, x2, dtype=dtype, fn=f"{_FN}.{name}")
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"``{name}(x1, x2, dtype=None)``: {doc}"
    return fn


equal = _binary(ops.equal, "equal", "``x1 == x2`` elementwise.")
not_equal = _binary(ops.not_equal, "not_equal", "``x1 != x2`` elementwise.")
less = _binary(ops.less, "less", "``x1 < x2`` elementwise.")
less_equal = _binary(ops.less_equal, "less_equal", "``x1 <= x2`` elementwise.")
greater = _binary(ops.greater, "greater", "``x1 > x2`` elementwise.")
greater_equal = _binary(ops.greater_equal, "greater_equal", "``x1 >= x2`` elementwise.")
logical_and = _binary(ops.logical_and, "logical_and", "``x1 and x2`` elementwise.")
logical_or = _binary(ops.logical_or, "logical_or", "``x1 or x2`` elementwise.")
logical_xor = _binary(ops.logical_xor, "logical_xor", "``x1 xor x2`` elementwise.")


def _unary(op, name: str, doc: str):
    def fn(x, dtype=None):
        return apply(op, x, dtype=dtype, fn=f"{_FN}.{name}")
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"``{name}(x, dtype=None)``: {doc}"
    return fn


isfinite = _unary(ops.isfinite, "isfinite", "True where ``x`` is neither infinite nor NaN.")
isnan = _unary(ops.isnan, "isnan", "True where ``x`` is NaN.")
isinf = _unary(ops.isinf, "isinf", "True where ``x`` is infinite.")


def logical_not(a, dtype=None):
    """``logical_not(a, dtype=None)``: ``not a`` elementwise."""
    return apply(ops.logical_not, a, dtype=dtype, fn=f"{_FN}.logical_not")


def isposinf(x):
    """``isposinf(x)``: True where ``x`` is +inf."""
    check_tensor(x, fn=f"{_FN}.isposinf")
    return ops.isposinf(x)


def isneginf(x):
    """``isneginf(x)``: True where ``x`` is -inf."""
    check_tensor(x, fn=f"{_FN}.isneginf")
    return ops.isneginf(x)


def signbit(x, dtype=None):
    """``signbit(x, dtype=None)``: True where the sign bit is set (negative values, -0.0)."""
    dtype = dtype_arg(dtype, f"{_FN}.signbit")
    if dtype is not None and dtype is not bool_:
        raise TypeError(f"{_FN}.signbit: casting to {dtype} is not allowed")
    x = to_tensor(x, f"{_FN}.signbit")
    return ops.signbit(x) if x.dtype.is_float else ops.lt(x, 0)


def isscalar(element):
    """``isscalar(element)``: whether ``element`` is a Python number (a Tensor is not)."""
    return is_scalar(element) and not isinstance(element, Tensor)


def isclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    """``isclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False)``: ``|a - b| <= atol + rtol *
    |b|`` elementwise."""
    a, b = to_tensors(a, b, fn=f"{_FN}.isclose")
    return ops.isclose(a, b, rtol, atol, equal_nan)


def in1d(ar1, ar2, invert=False):
    """``in1d(ar1, ar2, invert=False)``: for each element of the flattened ``ar1``, whether it
    occurs in ``ar2`` (or not, with ``invert``)."""
    ar1, ar2 = to_tensors(ar1, ar2, fn=f"{_FN}.in1d")
    common = promote(ar1.dtype, ar2.dtype)
    hits = ops.equal(ops.reshape(cast(ar1, common), (-1, 1)),
                     ops.reshape(cast(ar2, common), (1, -1)))
    found = reduce_any(hits, 1) if hits.shape[1] else ops.zeros((hits.shape[0],), bool_)
    return ops.logical_not(found) if invert else found


def isin(element, test_elements, invert=False):
    """``isin(element, test_elements, invert=False)``: :func:`in1d` in ``element``'s shape."""
    element = to_tensor(element, f"{_FN}.isin")
    return ops.reshape(in1d(element, test_elements, invert), tuple(element.shape))


def sometrue(a, axis=None, keepdims=False):
    """``sometrue(a, axis=None, keepdims=False)``: whether any element (along ``axis``) is
    non-zero."""
    if not isinstance(keepdims, (bool, int)):
        raise TypeError(f"{_FN}.sometrue: keepdims must be an int or a bool, but got "
                        f"{keepdims!r}")
    a = to_tensor(a, f"{_FN}.sometrue")
    axes = axes_arg(axis, a.ndim, f"{_FN}.sometrue")
    nonzero = ops.not_equal(a, 0) if a.dtype is not bool_ else a
    return reduce_any(nonzero, axes, bool(keepdims)) if axes else nonzero


def array_equal(a1, a2, equal_nan=False):
    """``array_equal(a1, a2, equal_nan=False)``: whether the shapes and all elements agree (NaN
    equal to NaN with ``equal_nan``): a 0-d Bool tensor."""
    if not isinstance(equal_nan, (bool, np.bool_)):
        raise TypeError(f"{_FN}.array_equal: equal_nan must be a bool, but got {equal_nan!r}")
    a1, a2 = to_tensors(a1, a2, fn=f"{_FN}.array_equal")
    if tuple(a1.shape) != tuple(a2.shape):
        return to_tensor(False)
    same = equal(a1, a2)
    if equal_nan:
        same = ops.logical_or(same, ops.logical_and(isnan(a1), isnan(a2)))
    return reduce_all(same)


def array_equiv(a1, a2):
    """``array_equiv(a1, a2)``: whether the tensors broadcast to each other and agree
    everywhere: a 0-d Bool tensor."""
    a1, a2 = to_tensors(a1, a2, fn=f"{_FN}.array_equiv")
    try:
        np.broadcast_shapes(tuple(a1.shape), tuple(a2.shape))
    except ValueError:
        return to_tensor(False)
    return reduce_all(equal(a1, a2))


def setdiff1d(ar1, ar2, assume_unique=False):
    """``setdiff1d(ar1, ar2, assume_unique=False)``: the values of ``ar1`` not in ``ar2`` (sorted
    and distinct unless ``assume_unique``). PyNative only."""
    if not isinstance(assume_unique, (bool, np.bool_)):
        raise TypeError(f"{_FN}.setdiff1d: assume_unique must be a bool, but got "
                        f"{assume_unique!r}")
    ar1, ar2 = to_tensors(ar1, ar2, fn=f"{_FN}.setdiff1d")
    ar1 = array_ops.ravel(ar1) if assume_unique else ops.sort(ops.unique(ar1)[0])[0]
    return ops.masked_select(ar1, in1d(ar1, ar2, invert=True))
