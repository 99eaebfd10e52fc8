"""Recurrent cells: ``RNNCell``, ``LSTMCell``, ``GRUCell`` — one step of a recurrence — and the
step functions the multi-step layers (``rnns.py``) run in their loops, given the input's
projection (``input_projection``), which a layer computes for the whole sequence before its loop.

Parameters are MindSpore 2.10's: ``weight_ih`` ``(chunks * hidden_size, input_size)``,
``weight_hh`` ``(chunks * hidden_size, hidden_size)``, ``bias_ih`` and ``bias_hh``
``(chunks * hidden_size,)``, all drawn from ``Uniform(1 / sqrt(hidden_size))``; the gates are
stacked in MindSpore's (and PyTorch's) order: LSTM ``i, f, g, o``, GRU ``r, z, n``.

Example::

    >>> import numpy as np
    >>> import graphcell as ms
    >>> from graphcell import nn
    >>> cell = nn.GRUCell(3, 4)
    >>> h = cell(ms.Tensor(np.ones((2, 3), np.float32)), ms.Tensor(np.zeros((2, 4), np.float32)))
    >>> h.shape
    (2, 4)
"""
from __future__ import annotations

import math

from graphcell.common.initializer import Uniform, initializer
from graphcell.nn.cell import Cell
from graphcell.nn.layers._validate import check_bool, check_positive_int, check_string, describe
from graphcell.parameter import Parameter
from graphcell.tensor import Tensor
from graphcell_ir.ir.types import float16, float32, float64
from graphcell_ir.ops import functional as F

__all__ = ["RNNCell", "LSTMCell", "GRUCell"]

FLOATS = (float16, float32, float64)
"""The dtypes the recurrent layers take (MindSpore's CPU: float16 and float32; graphcell also
float64, for finite differences)."""


# --- one step, as functions of the weights --------------------------------------------------------

def input_projection(x, w_ih, b_ih):
    """``x W_ih^T + b_ih`` for ``x`` of shape ``(..., input_size)``: the part of a step that
    does not depend on the state. A layer computes it for the whole sequence at once, before its
    time loop (one GEMM instead of one per step, and so is its gradient), as cuDNN and oneDNN do."""
    lead = x.shape[:-1]
    flat = x if len(lead) == 1 else F.reshape(x, shape=(-1, x.shape[-1]))
    gi = F.matmul(flat, w_ih, transpose_b=True)
    if b_ih is not None:
        gi = F.add(gi, b_ih)
    return gi if len(lead) == 1 else F.reshape(gi, shape=tuple(lead) + (gi.shape[-1],))


def _recurrent(h, w_hh, b_hh):
    gh = F.matmul(h, w_hh, transpose_b=True)
    return gh if b_hh is None else F.add(gh, b_hh)


def _chunks(x, n: int) -> list:
    """``x`` split into ``n`` equal parts along axis 1 (the stacked gates)."""
    size = x.shape[1] // n
    return [F.getitem(x, key=(slice(None), slice(k * size, (k + 1) * size))) for k in range(n)]


# Each ``*_update`` is a step given the input's projection ``gi = x W_ih^T + b_ih``.

def rnn_tanh_update(gi, h, w_hh, b_hh):
    """``tanh(gi + h W_hh^T + b_hh)``."""
    return F.tanh(F.add(gi, _recurrent(h, w_hh, b_hh)))


def rnn_relu_update(gi, h, w_hh, b_hh):
    """``relu(gi + h W_hh^T + b_hh)``."""
    return F.relu(F.add(gi, _recurrent(h, w_hh, b_hh)))


def lstm_update(gi, hidden, w_hh, b_hh):
    """One LSTM step on ``hidden = (h, c)``; returns the new ``(h, c)``."""
    h, c = hidden
    i, f, g, o = _chunks(F.add(gi, _recurrent(h, w_hh, b_hh)), 4)
    c = F.add(F.mul(F.sigmoid(f), c), F.mul(F.sigmoid(i), F.tanh(g)))
    return F.mul(F.sigmoid(o), F.tanh(c)), c


def gru_update(gi, h, w_hh, b_hh):
    """One GRU step: reset ``r``, update ``z``, new ``n``; ``h' = n + z * (h - n)``."""
    i_r, i_z, i_n = _chunks(gi, 3)
    h_r, h_z, h_n = _chunks(_recurrent(h, w_hh, b_hh), 3)
    r = F.sigmoid(F.add(i_r, h_r))
    z = F.sigmoid(F.add(i_z, h_z))
    n = F.tanh(F.add(i_n, F.mul(r, h_n)))
    return F.add(n, F.mul(z, F.sub(h, n)))


# --- the cells -----------------------------------------------------------------------------------

def check_float_tensor(value, name: str, owner: str) -> Tensor:
    if not isinstance(value, Tensor):
        raise TypeError(f"{owner}: '{name}' must be a Tensor, got {type(value).__name__}")
    if value.dtype not in FLOATS:
        raise TypeError(f"{owner}: '{name}' must be a Float16, Float32 or Float64 Tensor, got "
                        f"{value.dtype}")
    return value


def _check_shape(value, shape: tuple, name: str, owner: str) -> None:
    if tuple(value.shape) != shape:
        raise ValueError(f"{owner}: '{name}' must have shape {list(shape)}, got {describe(value)}")


class RNNCellBase(Cell):
    """The parameters and checks the three cells share (``chunks`` stacked gates)."""

    def __init__(self, input_size: int, hidden_size: int, has_bias: bool, num_chunks: int,
                 dtype=float32):
        super().__init__()
        owner = self.cls_name
        self.input_size = check_positive_int(input_size, "input_size", owner)
        self.hidden_size = check_positive_int(hidden_size, "hidden_size", owner)
        self.has_bias = check_bool(has_bias, "has_bias", owner)
        init = Uniform(1 / math.sqrt(self.hidden_size))
        rows = num_chunks * self.hidden_size
        self.weight_ih = Parameter(initializer(init, (rows, self.input_size), dtype), "weight_ih")
        self.weight_hh = Parameter(initializer(init, (rows, self.hidden_size), dtype),
                                   "weight_hh")
        self.bias_ih = self.bias_hh = None
        if self.has_bias:
            self.bias_ih = Parameter(initializer(init, (rows,), dtype), "bias_ih")
            self.bias_hh = Parameter(initializer(init, (rows,), dtype), "bias_hh")

    def _check_step(self, x, h, name: str) -> None:
        owner = self.cls_name
        check_float_tensor(x, "x", owner)
        check_float_tensor(h, name, owner)
        if x.ndim != 2 or x.shape[1] != self.input_size:
            raise ValueError(f"{owner}: 'x' must have shape [batch_size, {self.input_size}], "
                             f"got {describe(x)}")
        _check_shape(h, (x.shape[0], self.hidden_size), name, owner)


class RNNCell(RNNCellBase):
    """``RNNCell(input_size, hidden_size, has_bias=True, nonlinearity='tanh', dtype=float32)``:
    ``h' = nonlinearity(x W_ih^T + b_ih + h W_hh^T + b_hh)``; called as ``cell(x, hx)`` with
    ``x`` ``(batch, input_size)`` and ``hx`` ``(batch, hidden_size)``."""

    def __init__(self, input_size: int, hidden_size: int, has_bias: bool = True,
                 nonlinearity: str = "tanh", dtype=float32):
        super().__init__(input_size, hidden_size, has_bias, 1, dtype)
        self.nonlinearity = check_string(nonlinearity, ("tanh", "relu"), "nonlinearity",
                                         self.cls_name)

    def construct(self, x, hx):
        self._check_step(x, hx, "hx")
        update = rnn_tanh_update if self.nonlinearity == "tanh" else rnn_relu_update
        return update(input_projection(x, self.weight_ih, self.bias_ih), hx, self.weight_hh,
                      self.bias_hh)


class LSTMCell(RNNCellBase):
    """``LSTMCell(input_size, hidden_size, has_bias=True, dtype=float32)``: one LSTM step,
    ``cell(x, (h, c))`` -> ``(h', c')``."""

    def __init__(self, input_size: int, hidden_size: int, has_bias: bool = True, dtype=float32):
        super().__init__(input_size, hidden_size, has_bias, 4, dtype)

    def construct(self, x, hx):
        if not isinstance(hx, (tuple, list)) or len(hx) != 2:
            raise TypeError(f"{self.cls_name}: 'hx' must be a tuple (h, c) of two Tensors, got "
                            f"{describe(hx)}")
        self._check_step(x, hx[0], "hx[0]")
        self._check_step(x, hx[1], "hx[1]")
        return lstm_update(input_projection(x, self.weight_ih, self.bias_ih), hx, self.weight_hh,
                           self.bias_hh)


class GRUCell(RNNCellBase):
    """``GRUCell(input_size, hidden_size, has_bias=True, dtype=float32)``: one GRU step,
    ``cell(x, hx)`` -> ``h'``."""

    def __init__(self, input_size: int, hidden_size: int, has_bias: bool = True, dtype=float32):
        super().__init__(input_size, hidden_size, has_bias, 3, dtype)

    def construct(self, x, hx):
        self._check_step(x, hx, "hx")
        return gru_update(input_projection(x, self.weight_ih, self.bias_ih), hx, self.weight_hh,
                          self.bias_hh)
