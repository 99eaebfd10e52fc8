"""Recurrent layers: ``RNN``, ``LSTM``, ``GRU`` — stacked, optionally bidirectional, over a
sequence, with initial states, ``batch_first`` and ``seq_length`` (each sequence's real length).

Constructor, parameters and outputs are MindSpore 2.10's: ``weight_ih_l{k}[_reverse]``
``(gates * hidden_size, input)``, ``weight_hh_l{k}[_reverse]``, ``bias_ih_l{k}[_reverse]``,
``bias_hh_l{k}[_reverse]`` (in ParameterTuples ``w_ih_list``, ``w_hh_list``, ``b_ih_list``,
``b_hh_list``), drawn from ``Uniform(1 / sqrt(hidden_size))``; a call takes ``(x, hx=None,
seq_length=None)`` and returns ``(output, h_n)`` (LSTM: ``(output, (h_n, c_n))``).

The time loop is one :func:`~graphcell.ops.function.control_func.scan` per layer and direction:
a Python loop in PyNative, one IR ``while`` in graph mode whatever the sequence length (so a
sequence of 100 steps compiles as fast as one of 5). The reverse direction scans from the last
step to the first; with ``seq_length`` each step updates the state only where ``t <
seq_length`` and outputs zeros elsewhere, which gives MindSpore's results (it reverses each
sequence within its length instead).

Example::

    >>> import numpy as np
    >>> import graphcell as ms
    >>> from graphcell import nn
    >>> lstm = nn.LSTM(10, 16, num_layers=2, batch_first=True)
    >>> out, (h, c) = lstm(ms.Tensor(np.ones((3, 5, 10), np.float32)))
    >>> out.shape, h.shape
    ((3, 5, 16), (2, 3, 16))
"""
from __future__ import annotations

import math

from graphcell.common.initializer import Uniform, initializer
from graphcell.nn.cell import Cell
from graphcell.nn.layers._validate import (_is_number, check_bool, check_positive_int,
                                           check_string, describe)
from graphcell.nn.layers.basic import Dropout
from graphcell.nn.layers.rnn_cells import (check_float_tensor, gru_update, input_projection,
                                           lstm_update, rnn_relu_update, rnn_tanh_update)
from graphcell.ops.function.control_func import scan
from graphcell.parameter import Parameter, ParameterTuple
from graphcell.tensor import Tensor
from graphcell_ir.ir.types import float32, int32, int64
from graphcell_ir.ops import functional as F

__all__ = ["RNN", "LSTM", "GRU"]

_MODES = {"RNN_TANH": (1, rnn_tanh_update), "RNN_RELU": (1, rnn_relu_update),
          "LSTM": (4, lstm_update), "GRU": (3, gru_update)}
"""mode -> (stacked gates, the step given the input's projection)."""


class _RNNBase(Cell):
    """The layers' common body; ``mode`` picks the step (see ``_MODES``)."""

    def __init__(self, mode: str, input_size, hidden_size, num_layers=1, has_bias=True,
                 batch_first=False, dropout=0.0, bidirectional=False, dtype=float32):
        super().__init__()
        owner = self.cls_name
        self.input_size = check_positive_int(input_size, "input_size", owner)
        self.hidden_size = check_positive_int(hidden_size, "hidden_size", owner)
        self.num_layers = check_positive_int(num_layers, "num_layers", owner)
        self.has_bias = check_bool(has_bias, "has_bias", owner)
        self.batch_first = check_bool(batch_first, "batch_first", owner)
        self.bidirectional = check_bool(bidirectional, "bidirectional", owner)
        if not _is_number(dropout):
            raise TypeError(f"{owner}: 'dropout' must be a float, got {type(dropout).__name__} "
                            f"{dropout!r}")
        if not 0 <= dropout < 1:
            raise ValueError(f"{owner}: 'dropout' must be in [0, 1) (the probability of zeroing "
                             f"an element), got {dropout}")
        self.dropout = float(dropout)
        self.dropout_op = Dropout(p=self.dropout)
        self.mode = mode
        self.is_lstm = mode == "LSTM"
        gates, self.step = _MODES[mode]
        self.num_directions = 2 if self.bidirectional else 1
        self._make_parameters(gates * self.hidden_size, dtype)

    def _make_parameters(self, rows: int, dtype) -> None:
        init = Uniform(1 / math.sqrt(self.hidden_size))
        w_ih, w_hh, b_ih, b_hh = [], [], [], []
        for layer in range(self.num_layers):
            width = self.input_size if layer == 0 else self.hidden_size * self.num_directions
            for direction in range(self.num_directions):
                suffix = f"_l{layer}" + ("_reverse" if direction else "")
                w_ih.append(Parameter(initializer(init, (rows, width), dtype),
                                      "weight_ih" + suffix))
                w_hh.append(Parameter(initializer(init, (rows, self.hidden_size), dtype),
                                      "weight_hh" + suffix))
                if self.has_bias:
                    b_ih.append(Parameter(initializer(init, (rows,), dtype), "bias_ih" + suffix))
                    b_hh.append(Parameter(initializer(init, (rows,), dtype), "bias_hh" + suffix))
        self.w_ih_list = ParameterTuple(w_ih)
        self.w_hh_list = ParameterTuple(w_hh)
        self.b_ih_list = ParameterTuple(b_ih)
        self.b_hh_list = ParameterTuple(b_hh)

    # -- the call --
    def construct(self, x, hx=None, seq_length=None):
        check_float_tensor(x, "x", self.cls_name)
        if x.ndim != 3 or x.shape[2] != self.input_size:
            order = "batch_size, seq_len" if self.batch_first else "seq_len, batch_size"
            raise ValueError(f"{self.cls_name}: 'x' must have shape [{order}, {self.input_size}]"
                             f", got {describe(x)}")
        batch = x.shape[0] if self.batch_first else x.shape[1]
        state_shape = (self.num_layers * self.num_directions, batch, self.hidden_size)
        if hx is None:
            zeros = F.fill(dtype=x.dtype, shape=state_shape, value=0)
            hx = (zeros, zeros) if self.is_lstm else zeros
        else:
            self._check_state(hx, x, state_shape)
        if seq_length is not None:
            self._check_seq_length(seq_length, batch)
        if self.batch_first:
            x = F.transpose(x, perm=(1, 0, 2))
        output, h_n = self._layers(x, hx, seq_length)
        if self.batch_first:
            output = F.transpose(output, perm=(1, 0, 2))
        return output, h_n

    def _layers(self, x, hx, seq_length):
        """Every layer and direction in turn; each layer's output feeds the next (through
        dropout, but after the last)."""
        layer_input, h_n, c_n = x, [], []
        for layer in range(self.num_layers):
            outputs = []
            for direction in range(self.num_directions):
                k = layer * self.num_directions + direction
                h0 = (hx[0][k], hx[1][k]) if self.is_lstm else hx[k]
                out, last = self._direction(layer_input, h0, seq_length, k, direction == 1)
                outputs.append(out)
                h_n.append(last[0] if self.is_lstm else last)
                if self.is_lstm:
                    c_n.append(last[1])
            layer_input = outputs[0] if len(outputs) == 1 else F.concat(*outputs, axis=2)
            if self.dropout != 0 and layer < self.num_layers - 1:
                layer_input = self.dropout_op(layer_input)
        h_n = _stack(h_n)
        return layer_input, ((h_n, _stack(c_n)) if self.is_lstm else h_n)

    def _direction(self, x, h, seq_length, k: int, reverse: bool):
        """One layer in one direction over the whole sequence: ``(outputs, last state)``. The
        input's projection is one GEMM over the whole sequence, before the loop; the loop steps
        on its rows."""
        step, lstm = self.step, self.is_lstm
        w_ih, w_hh = _as(self.w_ih_list[k], x), _as(self.w_hh_list[k], x)
        b_ih = _as(self.b_ih_list[k], x) if self.has_bias else None
        b_hh = _as(self.b_hh_list[k], x) if self.has_bias else None
        gi = input_projection(x, w_ih, b_ih)
        if seq_length is None:
            def plain(state, gi_t):
                state = step(gi_t, state, w_hh, b_hh)
                return state, (state[0] if lstm else state)
            return _swap(scan(plain, h, gi, reverse=reverse))
        last = x.shape[0] - 1
        lengths = F.broadcast_to(F.expand_dims(F.cast(seq_length, dtype=int64), axis=1),
                                 shape=(x.shape[1], self.hidden_size))
        zeros = F.zeros_like(h[0] if lstm else h)

        def masked(carry, gi_t):
            state, count = carry
            valid = F.greater(lengths, last - count if reverse else count)
            new = step(gi_t, state, w_hh, b_hh)
            if lstm:
                kept = (F.select(valid, new[0], state[0]), F.select(valid, new[1], state[1]))
                return (kept, count + 1), F.select(valid, new[0], zeros)
            return (F.select(valid, new, state), count + 1), F.select(valid, new, zeros)
        (state, _), ys = scan(masked, (h, 0), gi, reverse=reverse)
        return ys, state

    # -- checks --
    def _check_state(self, hx, x, shape: tuple) -> None:
        owner = self.cls_name
        if self.is_lstm:
            if not isinstance(hx, (tuple, list)) or len(hx) != 2:
                raise TypeError(f"{owner}: 'hx' must be a tuple (h_0, c_0) of two Tensors, got "
                                f"{describe(hx)}")
            parts = (("hx[0]", hx[0]), ("hx[1]", hx[1]))
        else:
            parts = (("hx", hx),)
        for name, h in parts:
            check_float_tensor(h, name, owner)
            if h.dtype != x.dtype:
                raise TypeError(f"{owner}: '{name}' must have the dtype of 'x' ({x.dtype}), got "
                                f"{h.dtype}")
            if tuple(h.shape) != shape:
                raise ValueError(f"{owner}: '{name}' must have shape [num_layers * "
                                 f"num_directions, batch_size, hidden_size] = {list(shape)}, got "
                                 f"{describe(h)}")

    def _check_seq_length(self, seq_length, batch: int) -> None:
        owner = self.cls_name
        if not isinstance(seq_length, Tensor) or seq_length.dtype not in (int32, int64):
            raise TypeError(f"{owner}: 'seq_length' must be an Int32 or Int64 Tensor, got "
                            f"{describe(seq_length)}")
        if tuple(seq_length.shape) != (batch,):
            raise ValueError(f"{owner}: 'seq_length' must have shape [batch_size] = [{batch}], "
                             f"got {describe(seq_length)}")


def _as(w, x):
    """A weight in the input's dtype (MindSpore casts them the same way)."""
    return w if w.dtype == x.dtype else F.cast(w, dtype=x.dtype)


def _swap(pair):
    state, ys = pair
    return ys, state


def _stack(states: list):
    return F.concat(*[F.expand_dims(s, axis=0) for s in states], axis=0)


class RNN(_RNNBase):
    """``RNN(input_size, hidden_size, num_layers=1, has_bias=True, batch_first=False,
    dropout=0.0, bidirectional=False, dtype=float32, *, nonlinearity='tanh')``: Elman layers,
    ``h_t = nonlinearity(x_t W_ih^T + b_ih + h_{t-1} W_hh^T + b_hh)``."""

    def __init__(self, *args, nonlinearity: str = "tanh", **kwargs):
        mode = check_string(nonlinearity, ("tanh", "relu"), "nonlinearity", "RNN")
        super().__init__("RNN_TANH" if mode == "tanh" else "RNN_RELU", *args, **kwargs)


class LSTM(_RNNBase):
    """``LSTM(input_size, hidden_size, num_layers=1, has_bias=True, batch_first=False,
    dropout=0.0, bidirectional=False, dtype=float32)``; ``hx`` is a tuple ``(h_0, c_0)``."""

    def __init__(self, *args, **kwargs):
        super().__init__("LSTM", *args, **kwargs)


class GRU(_RNNBase):
    """``GRU(input_size, hidden_size, num_layers=1, has_bias=True, batch_first=False,
    dropout=0.0, bidirectional=False, dtype=float32)``."""

    def __init__(self, *args, **kwargs):
        super().__init__("GRU", *args, **kwargs)
