"""MindSpore's window functions (``blackman_window``, ``hamming_window``...): constant tensors of a
length known when the call is made (an int, or a one-element integer Tensor in PyNative).

A window is computed with numpy while the call is made; graph mode makes it a constant of the
graph. A periodic window of length N is the symmetric window of length N + 1 without its last
point, as in MindSpore and PyTorch. (MindSpore 2.10 returns Float64 for ``hann_window`` and
``hamming_window`` of length <= 1 whatever ``dtype`` asks; graphcell honours ``dtype``.)

Example::

    >>> from graphcell import ops
    >>> ops.hann_window(4, periodic=False).asnumpy().round(3).tolist()
    [0.0, 0.75, 0.75, 0.0]
"""
from __future__ import annotations

import numpy as np

from graphcell.ops.primitive import primitive
from graphcell.tensor import Tensor
from graphcell_ir.errors import GraphcellError
from graphcell_ir.ir.types import float16, float32, float64, to_dtype
from graphcell_ir.ops import functional as F

__all__ = ["blackman_window", "bartlett_window", "hamming_window", "hann_window",
           "kaiser_window", "BlackmanWindow", "BartlettWindow", "HammingWindow"]

_FLOATS = (float16, float32, float64)


def _length(name: str, window_length, tensor_only: bool = False) -> int:
    """The window's length: an int, or a one-element integer Tensor whose value is known now."""
    if isinstance(window_length, Tensor):
        if not window_length.dtype.is_int or window_length.size != 1:
            raise TypeError(f"{name}: window_length must be a one-element integer Tensor, got "
                            f"{window_length.dtype}{list(window_length.shape)}")
        try:
            n = int(window_length.asnumpy().reshape(-1)[0])
        except GraphcellError:
            raise TypeError(f"{name}: window_length must be known while compiling (a Python int "
                            "or a constant); a tensor computed in the graph is data") from None
    elif isinstance(window_length, (int, np.integer)) and not isinstance(window_length, bool):
        if tensor_only:
            raise TypeError(f"{name}: window_length must be a Tensor, got "
                            f"{type(window_length).__name__} (as MindSpore 2.10)")
        n = int(window_length)
    else:
        raise TypeError(f"{name}: window_length must be an int or a Tensor, got "
                        f"{type(window_length).__name__}")
    if n < 0:
        raise ValueError(f"{name}: window_length must be non-negative, got {n}")
    return n


def _window(name: str, symmetric, n: int, periodic: bool, dtype, default) -> Tensor:
    d = default if dtype is None else to_dtype(dtype)
    if d not in _FLOATS:
        raise TypeError(f"{name}: dtype must be a float type, got {d}")
    if not isinstance(periodic, bool):
        raise TypeError(f"{name}: periodic must be a bool, got {type(periodic).__name__}")
    if n <= 1:
        values = np.ones(n)
    else:
        values = symmetric(n + 1)[:-1] if periodic else symmetric(n)
    # through an op, so that graph mode makes the window a constant of the graph (a Tensor
    # returned as it is would come out of a compiled function as a Python value)
    return F.reshape(np.asarray(values, d.np_dtype), shape=(n,))


def _cosine(coefficients):
    """The symmetric window ``sum_k (-1)^k a_k cos(2 pi k n / (N - 1))``."""
    def symmetric(m):
        t = 2 * np.pi * np.arange(m) / (m - 1)
        return sum((-1) ** k * a * np.cos(k * t) for k, a in enumerate(coefficients))
    return symmetric


def blackman_window(window_length, periodic=True, *, dtype=None):
    """``ops.blackman_window(window_length, periodic=True, *, dtype=None)``: the Blackman window
    (Float32 by default; ``window_length`` a Tensor, as MindSpore 2.10 requires)."""
    n = _length("ops.blackman_window", window_length, tensor_only=True)
    return _window("ops.blackman_window", _cosine((0.42, 0.5, 0.08)), n, periodic, dtype, float32)


def bartlett_window(window_length, periodic=True, *, dtype=None):
    """``ops.bartlett_window(window_length, periodic=True, *, dtype=None)``: the triangular
    Bartlett window (Float32 by default; ``window_length`` a Tensor)."""
    n = _length("ops.bartlett_window", window_length, tensor_only=True)
    return _window("ops.bartlett_window", np.bartlett, n, periodic, dtype, float32)


def hamming_window(window_length, periodic=True, alpha=0.54, beta=0.46, *, dtype=None):
    """``ops.hamming_window(window_length, periodic=True, alpha=0.54, beta=0.46, *,
    dtype=None)``: ``alpha - beta cos(2 pi n / (N - 1))`` (Float32 by default)."""
    n = _length("ops.hamming_window", window_length)
    return _window("ops.hamming_window", _cosine((float(alpha), float(beta))), n, periodic,
                   dtype, float32)


def hann_window(window_length, periodic=True, *, dtype=None):
    """``ops.hann_window(window_length, periodic=True, *, dtype=None)``: the Hann window
    (Float64 by default, as MindSpore 2.10 returns it)."""
    n = _length("ops.hann_window", window_length)
    return _window("ops.hann_window", _cosine((0.5, 0.5)), n, periodic, dtype, float64)


def kaiser_window(window_length, periodic=True, beta=12.0, *, dtype=None):
    """``ops.kaiser_window(window_length, periodic=True, beta=12.0, *, dtype=None)``: the Kaiser
    window of shape parameter ``beta`` (Float64 by default, as MindSpore 2.10 returns it)."""
    n = _length("ops.kaiser_window", window_length)
    return _window("ops.kaiser_window", lambda m: np.kaiser(m, float(beta)), n, periodic, dtype,
                   float64)


BlackmanWindow = primitive(
    "BlackmanWindow", lambda window_length, periodic=True, dtype=float32: blackman_window(
        window_length, periodic, dtype=dtype), init=("periodic", "dtype"),
    doc="MindSpore's ``BlackmanWindow(periodic=True, dtype=mindspore.float32)(window_length)``.")
BartlettWindow = primitive(
    "BartlettWindow", lambda window_length, periodic=True, dtype=float32: bartlett_window(
        window_length, periodic, dtype=dtype), init=("periodic", "dtype"),
    doc="MindSpore's ``BartlettWindow(periodic=True, dtype=mindspore.float32)(window_length)``.")
HammingWindow = primitive(
    "HammingWindow", lambda length, periodic=True, alpha=0.54, beta=0.46, dtype=float32:
    hamming_window(length, periodic, alpha, beta, dtype=dtype),
    init=("periodic", "alpha", "beta", "dtype"),
    doc="MindSpore's ``HammingWindow(periodic=True, alpha=0.54, beta=0.46, dtype=mindspore."
        "float32)(length)``.")
