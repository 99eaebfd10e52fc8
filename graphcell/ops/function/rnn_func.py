"""MindSpore's ``ops.LSTM`` Primitive: a multi-layer, optionally bidirectional LSTM over a
time-major sequence, with the weights of every layer and direction packed in one flat tensor —
the form ``mindspore.nn.LSTM`` passes it on CPU.

It is a composite: per layer and direction, the input projections of all frames are one matmul,
then each frame adds the recurrent projection and applies the gates (``i, f, g, o``, PyTorch's and
oneDNN's order). The loop over frames is unrolled (the sequence length is static); the gradient
comes from the parts.
"""
from __future__ import annotations

from graphcell.ops.function import _nn_utils as U
from graphcell.ops.primitive import primitive
from graphcell_ir.ops import functional as F

__all__ = ["LSTM"]

_RESERVE_SHAPE = (7168, 1)  # MindSpore 2.10's CPU kernel returns its workspace: zeros here


class _Packing:
    """Where each layer's and direction's weights sit in the flat weight tensor: every input
    projection (4H, in), then every recurrent projection (4H, H), then every bias (4H) — layer
    by layer, direction by direction (oneDNN's ``ldgoi`` order, as MindSpore's CPU kernel)."""

    def __init__(self, input_size: int, hidden: int, layers: int, directions: int, bias: bool):
        self.slots, offset = {}, 0
        for part in ("ih", "hh", "b"):
            if part == "b" and not bias:
                break
            for layer in range(layers):
                width = input_size if layer == 0 else hidden * directions
                for d in range(directions):
                    shape = {"ih": (4 * hidden, width), "hh": (4 * hidden, hidden),
                             "b": (4 * hidden,)}[part]
                    size = 1
                    for s in shape:
                        size *= s
                    self.slots[(part, layer, d)] = (offset, shape)
                    offset += size
        self.size = offset

    def take(self, flat, part: str, layer: int, direction: int):
        if (part, layer, direction) not in self.slots:
            return None
        offset, shape = self.slots[(part, layer, direction)]
        size = 1
        for s in shape:
            size *= s
        return F.reshape(F.getitem(flat, key=(slice(offset, offset + size),)), shape)


def _run_direction(xs, h, c, w_ih, w_hh, bias, reverse: bool):
    """One direction of one layer: (T, N, in) -> (T, N, H), the final h and c."""
    frames, n, width = xs.shape
    hidden = w_hh.shape[1]
    gates_in = F.matmul(F.reshape(xs, (frames * n, width)), w_ih, transpose_b=True)
    if bias is not None:
        gates_in = F.add(gates_in, bias)
    gates_in = F.reshape(gates_in, (frames, n, 4 * hidden))
    outputs = [None] * frames
    for t in (reversed(range(frames)) if reverse else range(frames)):
        g = F.add(F.getitem(gates_in, key=(t,)), F.matmul(h, w_hh, transpose_b=True))
        i, f, cand, o = (F.getitem(g, key=(slice(None), slice(k * hidden, (k + 1) * hidden)))
                         for k in range(4))
        c = F.add(F.mul(F.sigmoid(f), c), F.mul(F.sigmoid(i), F.tanh(cand)))
        h = F.mul(F.sigmoid(o), F.tanh(c))
        outputs[t] = F.expand_dims(h, axis=0)
    return F.concat(*outputs, axis=0), h, c


def _lstm_prim(x, h, c, w, input_size, hidden_size, num_layers, has_bias, bidirectional, dropout,
               proj_size=0):
    """``ops.LSTM(input_size, hidden_size, num_layers, has_bias, bidirectional, dropout,
    proj_size=0)(x, h, c, w)``: ``(output, h_n, c_n, reserve, state)`` for a time-major ``x``
    (T, N, input_size), initial states (num_layers * directions, N, hidden_size) and the packed
    weights ``w`` (size, 1, 1); ``reserve`` and ``state`` are MindSpore's workspace (zeros)."""
    name = "LSTM"
    for what, t in (("x", x), ("h", h), ("c", c), ("w", w)):
        U.float_tensor(name, t, what)
    in_size = U.int_arg(name, input_size, "input_size")
    hidden = U.int_arg(name, hidden_size, "hidden_size")
    layers = U.int_arg(name, num_layers, "num_layers")
    if proj_size:
        raise ValueError(f"{name}: 'proj_size' is not supported (MindSpore's CPU kernel has none)")
    if dropout and layers > 1:
        raise ValueError(f"{name}: dropout between layers is not supported; got {dropout}")
    directions = 2 if bidirectional else 1
    if x.ndim != 3 or x.shape[2] != in_size:
        raise ValueError(f"{name}: 'x' must be (seq_len, batch, {in_size}), got {list(x.shape)}")
    state_shape = (layers * directions, x.shape[1], hidden)
    for what, t in (("h", h), ("c", c)):
        if tuple(t.shape) != state_shape:
            raise ValueError(f"{name}: '{what}' must have shape {list(state_shape)}, got "
                             f"{list(t.shape)}")
    packing = _Packing(in_size, hidden, layers, directions, bool(has_bias))
    flat = F.reshape(w, (-1,))
    if flat.shape[0] < packing.size:
        raise ValueError(f"{name}: 'w' holds {flat.shape[0]} values, the weights need "
                         f"{packing.size}")
    layer_input, h_n, c_n = x, [], []
    for layer in range(layers):
        outputs = []
        for d in range(directions):
            k = layer * directions + d
            y, h_last, c_last = _run_direction(
                layer_input, F.getitem(h, key=(k,)), F.getitem(c, key=(k,)),
                packing.take(flat, "ih", layer, d), packing.take(flat, "hh", layer, d),
                packing.take(flat, "b", layer, d), reverse=d == 1)
            outputs.append(y)
            h_n.append(F.expand_dims(h_last, axis=0))
            c_n.append(F.expand_dims(c_last, axis=0))
        layer_input = outputs[0] if directions == 1 else F.concat(*outputs, axis=2)
    zeros = F.fill(dtype=x.dtype, shape=_RESERVE_SHAPE, value=0)
    return (layer_input, F.concat(*h_n, axis=0), F.concat(*c_n, axis=0), zeros,
            F.fill(dtype=x.dtype, shape=(1, 1), value=0))


LSTM = primitive("LSTM", _lstm_prim,
                 init=("input_size", "hidden_size", "num_layers", "has_bias", "bidirectional",
                       "dropout", "proj_size"))
