"""Convolutions and polynomials of ``mindspore.numpy`` (re-exported by ``math_ops``).

``convolve`` gathers the sliding windows of the (zero-padded) longer input with a constant index
and multiplies them by the reversed shorter one: one ``gather`` and one ``matmul``, so it
differentiates and compiles like any product. It computes in Float32 and returns the inputs'
promoted dtype, as mindspore.numpy does. ``correlate`` is ``convolve`` with the second input
reversed (numpy swaps the inputs and reverses the result when the second is longer).
Polynomials are 1-D coefficient tensors, highest power first.

Example::

    >>> import graphcell as ms
    >>> convolve(ms.Tensor([1.0, 2.0, 3.0]), ms.Tensor([0.0, 1.0, 0.5])).asnumpy().tolist()
    [0.0, 1.0, 2.5, 4.0, 1.5]
"""
from __future__ import annotations

import numpy as np

from graphcell import ops
from graphcell.numpy import array_ops
from graphcell.numpy.utils import cast, reduce_sum, to_tensor
from graphcell.ops.function._array_utils import const
from graphcell_ir.ir.types import float32, float64, int32, promote

__all__ = ["convolve", "correlate", "polyadd", "polysub", "polyval", "polyder", "polyint",
           "polymul"]

_FN = "mindspore.numpy"
_MODES = ("full", "same", "valid")


def _vector(x, fn: str):
    x = to_tensor(x, f"{_FN}.{fn}")
    if x.size == 0:
        raise ValueError(f"{_FN}.{fn}: inputs cannot be empty")
    x = ops.reshape(x, (1,)) if x.ndim == 0 else x
    if x.ndim != 1:
        raise ValueError(f"{_FN}.{fn}: inputs must be 1-D, but got shape {list(x.shape)}")
    return x


def _full_convolution(a, v):
    """``numpy.convolve(a, v, 'full')`` of two 1-D float tensors, ``len(a) >= len(v)``."""
    n, m = a.shape[0], v.shape[0]
    if m > 1:
        zeros = ops.zeros((m - 1,), a.dtype)
        a = ops.concat((zeros, a, zeros), 0)
    windows = np.arange(n + m - 1)[:, None] + np.arange(m)[None, :]
    rows = ops.gather(a, const(windows.astype(np.int32)), 0)
    return ops.matmul(rows, ops.flip(v, (0,)))


def _convolution(a, v, mode: str, fn: str):
    if mode not in _MODES:
        raise ValueError(f"{_FN}.{fn}: mode must be one of {list(_MODES)}, but got {mode!r}")
    dtype = promote(a.dtype, v.dtype)
    work = float64 if dtype is float64 else float32  # mindspore.numpy computes in Float32
    a, v = ops.cast(a, work), ops.cast(v, work)
    if a.shape[0] < v.shape[0]:
        a, v = v, a
    n, m = a.shape[0], v.shape[0]
    full = _full_convolution(a, v)
    if mode == "same":
        full = full[(m - 1) // 2:(m - 1) // 2 + n]
    elif mode == "valid":
        full = full[m - 1:n]
    return full, dtype


def convolve(a, v, mode="full"):
    """``convolve(a, v, mode='full')``: the discrete convolution of two 1-D sequences
    (``'full'``, ``'same'`` — as long as the longer input — or ``'valid'``)."""
    a, v = _vector(a, "convolve"), _vector(v, "convolve")
    out, dtype = _convolution(a, v, mode, "convolve")
    return cast(out, dtype)


def correlate(a, v, mode="valid"):
    """``correlate(a, v, mode='valid')``: the cross-correlation ``c[k] = sum_n a[n + k] v[n]``
    (Float32 for integer inputs, as mindspore.numpy's kernel gives)."""
    a, v = _vector(a, "correlate"), _vector(v, "correlate")
    swap = a.shape[0] < v.shape[0]
    first, second = (v, a) if swap else (a, v)
    out, dtype = _convolution(first, ops.flip(second, (0,)), mode, "correlate")
    out = ops.flip(out, (0,)) if swap else out
    return cast(out, dtype if dtype.is_float else float32)


def _poly(p, fn: str):
    p = to_tensor(p, f"{_FN}.{fn}")
    p = ops.reshape(p, (1,)) if p.ndim == 0 else p
    if p.ndim != 1:
        raise ValueError(f"{_FN}.{fn}: input array must be scalar or 1-d sequence")
    return p


def polyadd(a1, a2):
    """``polyadd(a1, a2)``: the sum of two polynomials."""
    a1, a2 = _poly(a1, "polyadd"), _poly(a2, "polyadd")
    extra = a1.shape[0] - a2.shape[0]
    if extra == 0:
        return _add(a1, a2)
    if extra > 0:
        return array_ops.concatenate((a1[:extra], _add(a1[extra:], a2)))
    return array_ops.concatenate((a2[:-extra], _add(a1, a2[-extra:])))


def _add(a, b):
    common = promote(a.dtype, b.dtype)
    return ops.add(cast(a, common), cast(b, common))


def polysub(a1, a2):
    """``polysub(a1, a2)``: the difference of two polynomials."""
    return polyadd(a1, ops.neg(to_tensor(a2, f"{_FN}.polysub")))


def polyval(p, x):
    """``polyval(p, x)``: the polynomial evaluated at ``x`` (powers in Float32)."""
    p = _poly(p, "polyval")
    x = to_tensor(x, f"{_FN}.polyval")
    n = p.shape[0]
    powers = const(np.arange(n - 1, -1, -1, dtype=np.float32))
    terms = ops.pow(ops.expand_dims(x, -1), powers)
    common = promote(p.dtype, terms.dtype)
    return reduce_sum(ops.mul(cast(p, common), cast(terms, common)), -1)


def polyder(p, m=1):
    """``polyder(p, m=1)``: the ``m``-th derivative."""
    p = _poly(p, "polyder")
    if m < 0:
        raise ValueError(f"{_FN}.polyder: the order of the derivative must be positive")
    if m >= p.shape[0]:
        return ops.zeros((0,), float32)
    for _ in range(m):
        n = p.shape[0]
        coeff = const(np.arange(n - 1, 0, -1, dtype=np.int32))
        common = promote(p.dtype, int32)
        p = ops.mul(cast(p[:-1], common), cast(coeff, common))
    return p


def polyint(p, m=1, k=None):
    """``polyint(p, m=1, k=None)``: the ``m``-th antiderivative, with integration constants
    ``k`` (one value, or one per order)."""
    p = _poly(p, "polyint")
    if m < 0:
        raise ValueError(f"{_FN}.polyint: the order of the integral must be positive")
    if m == 0:
        return p
    k = ops.zeros((m,), p.dtype) if k is None else to_tensor(k)
    k = ops.reshape(k, (-1,))
    if k.shape[0] == 1:
        k = ops.tile(k, (m,))
    for i in range(m):
        n = p.shape[0]
        coeff = const(np.arange(n, 0, -1, dtype=np.float32))
        p = array_ops.concatenate((ops.div(cast(p, float32) if not p.dtype.is_float else p,
                                           coeff), k[i:i + 1]))
    return p


def polymul(a1, a2):
    """``polymul(a1, a2)``: the product of two polynomials."""
    return convolve(_poly(a1, "polymul"), _poly(a2, "polymul"))
