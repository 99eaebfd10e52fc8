"""MindSpore's neural-network functions (``mindspore.ops.function.nn_func``): activations, the
softmax family, one-hot, dense layers, embeddings and distances.

Normalization and dropout are in ``normalization_func``, losses in ``loss_func`` and
``ctc_func``, convolutions in ``conv_func``, pooling in ``pool_func``, resizing and patch layouts
in ``image_func``, the LSTM Primitive in ``rnn_func``. Each function is a registry primitive spelled MindSpore's way or a composite
written against ``F``: it runs eagerly in PyNative, graph mode traces it into IR, and its gradient
comes from its parts.

Where graphcell accepts more than MindSpore 2.10's CPU build (Float64 inputs where MindSpore's
kernels stop at Float32; ``elu`` with any ``alpha``), the function's docstring says so.
"""
from __future__ import annotations

import math

import numpy as np

from graphcell.ops.function import _nn_utils as U
from graphcell.ops.function.array_func import cast
from graphcell.ops.primitive import primitive
from graphcell.tensor import Tensor
from graphcell_ir.ir.types import bool_, float32, int64
from graphcell_ir.ops import functional as F

__all__ = [
    # activations
    "relu", "relu6", "leaky_relu", "rrelu", "prelu", "elu", "celu", "selu", "gelu", "fast_gelu",
    "silu",
    "softplus", "softsign", "mish", "hardswish", "hardsigmoid", "hardtanh", "hardshrink",
    "softshrink", "soft_shrink", "threshold", "tanhshrink", "logsigmoid", "softmax", "softmin",
    "log_softmax", "glu", "logit",
    "GeLU", "FastGeLU", "PReLU", "Softsign", "Mish", "ReLU6", "HSwish", "HSigmoid", "CeLU",
    "SeLU", "HShrink", "SoftShrink", "GLU", "Logit",
    # embeddings, dense layers, distances
    "one_hot", "OneHot", "dense", "Dense", "bidense", "embedding", "EmbeddingLookup", "cdist",
    "Cdist", "pdist", "dist", "cosine_similarity", "sequence_mask", "clip_by_norm",
    "channel_shuffle", "ChannelShuffle", "SoftmaxCrossEntropyWithLogits", "Gelu", "Pdist",
]

_SQRT_HALF = math.sqrt(0.5)
_SQRT_2_OVER_PI = math.sqrt(2 / math.pi)
_SELU_ALPHA, _SELU_SCALE = 1.6732632423543772, 1.0507009873554805


# --- rectifiers --------------------------------------------------------------------------------

def relu(input, inplace=False):  # noqa: A002 - MindSpore's parameter name
    """``ops.relu(input, inplace=False)``: ``max(input, 0)``, in the input's dtype (Bool too).

    ``inplace=True`` is refused, as MindSpore 2.10's CPU build refuses it (no InplaceReLU kernel).
    """
    U.tensor("ops.relu", input)
    if inplace:
        raise ValueError("ops.relu: inplace=True is not supported on CPU (MindSpore 2.10's CPU "
                         "build has no InplaceReLU kernel)")
    return F.relu(input)


def relu6(x):
    """``ops.relu6(x)``: ``min(max(x, 0), 6)``."""
    U.float_tensor("ops.relu6", x, "x")
    return F.minimum(F.relu(x), 6)


def leaky_relu(input, alpha=0.2):  # noqa: A002
    """``ops.leaky_relu(input, alpha=0.2)``: ``input`` where it is >= 0, ``alpha * input`` elsewhere
    (integer inputs compute in Float32 and truncate back, as MindSpore)."""
    U.numeric_tensor("ops.leaky_relu", input)
    U.number("ops.leaky_relu", alpha, "alpha")
    x = U.as_float(input) if isinstance(alpha, float) else input
    return U.cast_back(F.select(F.greater_equal(x, 0), x, F.mul(x, alpha)), input)


def prelu(input, weight):  # noqa: A002
    """``ops.prelu(input, weight)``: ``input`` where it is > 0, ``weight * input`` elsewhere, with
    one weight per channel (axis 1; a single weight when ``input`` has rank < 2)."""
    name = "ops.prelu"
    U.float_tensor(name, input)
    U.float_tensor(name, weight, "weight")
    if weight.ndim != 1:
        raise ValueError(f"{name}: 'weight' must be a 1-D tensor, got shape {list(weight.shape)}")
    channels = input.shape[1] if input.ndim >= 2 else 1
    if weight.shape[0] not in (1, channels):
        raise ValueError(f"{name}: 'weight' must hold 1 or {channels} values (the channels of "
                         f"'input'), got {weight.shape[0]}")
    w = F.reshape(weight, U.channel_shape(input.ndim)) if input.ndim >= 2 else weight
    return F.select(F.greater(input, 0), input, F.mul(F.cast_like(w, input), input))


def rrelu(input, lower=1.0 / 8, upper=1.0 / 3):  # noqa: A002
    """``ops.rrelu(input, lower=1/8, upper=1/3)``: ``input`` where it is > 0, ``a * input`` where
    it is < 0, each ``a`` drawn from U[lower, upper) (Float32, then cast to the input's dtype) at
    every call, as MindSpore 2.10 (which has no inference form)."""
    name = "ops.rrelu"
    U.number(name, upper, "upper")
    U.number(name, lower, "lower")
    if lower > upper:
        raise ValueError(f"{name}: 'upper' must be at least 'lower', got lower {lower} and upper "
                         f"{upper}")
    U.float_tensor(name, input)
    u = F.uniform_real(shape=tuple(input.shape))
    slope = F.cast(F.add(F.mul(u, float(upper) - float(lower)), float(lower)), dtype=input.dtype)
    zeros, ones = F.zeros_like(input), F.ones_like(input)
    factor = F.select(F.greater(input, 0), ones, F.select(F.less(input, 0), slope, zeros))
    return F.mul(factor, input)


# --- exponential units -------------------------------------------------------------------------

def elu(input_x, alpha=1.0):
    """``ops.elu(input_x, alpha=1.0)``: ``x`` for x > 0, ``alpha * (exp(x) - 1)`` otherwise.

    graphcell computes any ``alpha``; MindSpore 2.10 accepts only 1.0.
    """
    U.float_tensor("ops.elu", input_x, "input_x")
    U.number("ops.elu", alpha, "alpha")
    return F.elu(input_x, alpha=float(alpha))


def celu(x, alpha=1.0):
    """``ops.celu(x, alpha=1.0)``: ``max(0, x) + min(0, alpha * (exp(x / alpha) - 1))``."""
    U.float_tensor("ops.celu", x, "x")
    U.number("ops.celu", alpha, "alpha")
    if alpha == 0:
        raise ValueError("ops.celu: 'alpha' must not be 0")
    return F.mul(F.elu(F.div(x, float(alpha)), alpha=1.0), float(alpha))


def selu(input_x):
    """``ops.selu(input_x)``: ``scale * elu(x, alpha)`` with the self-normalising constants.

    Integer inputs give ``trunc(scale * x)`` for x > 0 and 0 elsewhere, as MindSpore 2.10 does.
    The gradient is the derivative, ``scale * alpha * exp(x)`` for x <= 0; MindSpore 2.10's CPU
    kernel gives ``scale * (1 + y)`` there, which is wrong (docs/decisions.md).
    """
    U.numeric_tensor("ops.selu", input_x, "input_x")
    if not input_x.dtype.is_float:
        return U.cast_back(F.mul(F.relu(U.as_float(input_x)), _SELU_SCALE), input_x)
    return F.mul(F.elu(input_x, alpha=_SELU_ALPHA), _SELU_SCALE)


# --- smooth units ------------------------------------------------------------------------------

def _gelu_tanh(x):
    inner = F.mul(F.add(x, F.mul(F.mul(F.mul(x, x), x), 0.044715)), _SQRT_2_OVER_PI)
    return F.mul(F.mul(x, 0.5), F.add(F.tanh(inner), 1))


def gelu(input, approximate="none"):  # noqa: A002
    """``ops.gelu(input, approximate='none')``: ``x * P(X <= x)`` for a standard normal X
    (``'tanh'``: the tanh approximation)."""
    U.float_tensor("ops.gelu", input)
    if approximate == "tanh":
        return _gelu_tanh(input)
    if approximate != "none":
        raise ValueError(f"ops.gelu: 'approximate' must be 'none' or 'tanh', got {approximate!r}")
    return F.mul(F.mul(input, 0.5), F.add(F.erf(F.mul(input, _SQRT_HALF)), 1))


def _gelu_primitive(x):
    """``ops.GeLU()(x)``: MindSpore's GeLU Primitive computes the tanh approximation."""
    U.float_tensor("GeLU", x, "x")
    return _gelu_tanh(x)


def fast_gelu(x):
    """``ops.fast_gelu(x)``: ``x / (1 + exp(-1.702|x|)) * exp(0.851 (x - |x|))``."""
    U.float_tensor("ops.fast_gelu", x, "x")
    a = F.abs(x)
    return F.mul(F.div(x, F.add(F.exp(F.mul(a, -1.702)), 1)), F.exp(F.mul(F.sub(x, a), 0.851)))


def silu(input):  # noqa: A002
    """``ops.silu(input)``: ``input * sigmoid(input)``."""
    U.float_tensor("ops.silu", input)
    return F.mul(input, F.sigmoid(input))


def softplus(input, beta=1, threshold=20):  # noqa: A002
    """``ops.softplus(input, beta=1, threshold=20)``: ``log(1 + exp(beta * x)) / beta``, and ``x``
    itself where ``beta * x > threshold``."""
    U.float_tensor("ops.softplus", input)
    U.number("ops.softplus", beta, "beta")
    U.number("ops.softplus", threshold, "threshold")
    bx = input if beta == 1 else F.mul(input, beta)
    soft = F.softplus(bx) if beta == 1 else F.div(F.softplus(bx), beta)
    return F.select(F.greater(bx, threshold), input, soft)


def softsign(x):
    """``ops.softsign(x)``: ``x / (1 + |x|)``."""
    U.float_tensor("ops.softsign", x, "x")
    return F.div(x, F.add(F.abs(x), 1))


def mish(input):  # noqa: A002
    """``ops.mish(input)``: ``input * tanh(softplus(input))``."""
    U.float_tensor("ops.mish", input)
    return F.mul(input, F.tanh(F.softplus(input)))


def logsigmoid(x):
    """``ops.logsigmoid(x)``: ``log(sigmoid(x)) = -softplus(-x)``."""
    U.float_tensor("ops.logsigmoid", x, "x")
    return F.neg(F.softplus(F.neg(x)))


def tanhshrink(input):  # noqa: A002
    """``ops.tanhshrink(input)``: ``input - tanh(input)``."""
    U.numeric_tensor("ops.tanhshrink", input)
    x = U.as_float(input)
    return F.sub(x, F.tanh(x))


# --- piecewise-linear units --------------------------------------------------------------------

def _hard_sigmoid_float(x):
    return F.div(F.minimum(F.relu(F.add(x, 3)), 6), 6)


def hardsigmoid(input):  # noqa: A002
    """``ops.hardsigmoid(input)``: ``relu6(x + 3) / 6`` (integers compute in Float32 and
    truncate back, as MindSpore)."""
    U.numeric_tensor("ops.hardsigmoid", input)
    return U.cast_back(_hard_sigmoid_float(U.as_float(input)), input)


def hardswish(input):  # noqa: A002
    """``ops.hardswish(input)``: ``x * relu6(x + 3) / 6`` (integers compute in Float32 and truncate
    back, as MindSpore)."""
    U.numeric_tensor("ops.hardswish", input)
    x = U.as_float(input)
    return U.cast_back(F.mul(x, _hard_sigmoid_float(x)), input)


def hardtanh(input, min_val=-1.0, max_val=1.0):  # noqa: A002
    """``ops.hardtanh(input, min_val=-1.0, max_val=1.0)``: ``input`` clipped to
    ``[min_val, max_val]`` (``max_val`` wins when ``min_val > max_val``)."""
    U.numeric_tensor("ops.hardtanh", input)
    U.number("ops.hardtanh", min_val, "min_val")
    U.number("ops.hardtanh", max_val, "max_val")
    lo, hi = min_val, max_val
    if input.dtype.is_int:  # the bounds of an integer tensor are integers (MindSpore truncates)
        lo, hi = int(lo), int(hi)
    return F.minimum(F.maximum(input, lo), hi)


def _lambd(name: str, lambd) -> float:
    U.number(name, lambd, "lambd")
    return float(lambd)


def hardshrink(input, lambd=0.5):  # noqa: A002
    """``ops.hardshrink(input, lambd=0.5)``: ``input`` where ``|input| > lambd``, else 0."""
    U.float_tensor("ops.hardshrink", input)
    keep = F.greater(F.abs(input), _lambd("ops.hardshrink", lambd))
    return F.select(keep, input, F.zeros_like(input))


def softshrink(input, lambd=0.5):  # noqa: A002
    """``ops.softshrink(input, lambd=0.5)``: ``input`` moved ``lambd`` towards 0, and 0 where
    ``|input| <= lambd``; ``lambd`` must be >= 0."""
    U.float_tensor("ops.softshrink", input)
    lambd = _lambd("ops.softshrink", lambd)
    if lambd < 0:
        raise ValueError(f"ops.softshrink: 'lambd' must be >= 0, got {lambd}")
    zero = F.zeros_like(input)
    shrunk = F.select(F.greater(input, lambd), F.sub(input, lambd), zero)
    return F.select(F.less(input, -lambd), F.add(input, lambd), shrunk)


def soft_shrink(input, lambd=0.5):  # noqa: A002
    """``ops.soft_shrink(input, lambd=0.5)``: MindSpore's other name of :func:`softshrink`."""
    return softshrink(input, lambd)


def threshold(input, thr, value):  # noqa: A002
    """``ops.threshold(input, thr, value)``: ``input`` where ``input > thr``, else ``value``."""
    U.numeric_tensor("ops.threshold", input)
    U.number("ops.threshold", thr, "thr")
    U.number("ops.threshold", value, "value")
    fill = F.fill(dtype=input.dtype, shape=tuple(input.shape), value=value)
    return F.select(F.greater(input, thr), input, fill)


# --- softmax family ----------------------------------------------------------------------------

def _axis_int(name: str, axis) -> int:
    if isinstance(axis, bool) or not isinstance(axis, int):
        raise TypeError(f"{name}: 'axis' must be an int, got {axis!r}")
    return axis


def softmax(input, axis=-1, *, dtype=None):  # noqa: A002
    """``ops.softmax(input, axis=-1, *, dtype=None)``: ``exp(x) / sum(exp(x))`` along ``axis``
    (``input`` cast to ``dtype`` first when given)."""
    U.tensor("ops.softmax", input)
    axis = _axis_int("ops.softmax", axis)
    x = input if dtype is None else cast(input, dtype)
    return F.softmax(x, axis=(axis,))


def softmin(x, axis=-1, *, dtype=None):
    """``ops.softmin(x, axis=-1, *, dtype=None)``: ``softmax(-x)``."""
    U.float_tensor("ops.softmin", x, "x")
    x = x if dtype is None else cast(x, dtype)
    return F.softmax(F.neg(x), axis=(_axis_int("ops.softmin", axis),))


def log_softmax(logits, axis=-1):
    """``ops.log_softmax(logits, axis=-1)``: ``x - log(sum(exp(x)))`` along ``axis``."""
    U.tensor("ops.log_softmax", logits, "logits")
    return F.log_softmax(logits, axis=_axis_int("ops.log_softmax", axis))


def glu(x, axis=-1):
    """``ops.glu(x, axis=-1)``: the first half of ``x`` along ``axis`` times the sigmoid of the
    second half."""
    U.float_tensor("ops.glu", x, "x")
    a = _axis_int("ops.glu", axis)
    if not -x.ndim <= a < x.ndim:
        raise ValueError(f"ops.glu: 'axis' {axis} is out of range for a tensor of rank {x.ndim}")
    a %= x.ndim
    n = x.shape[a]
    if n % 2:
        raise ValueError(f"ops.glu: the size of axis {a} must be even, got {n}")
    head = (slice(None),) * a
    first = F.getitem(x, key=head + (slice(0, n // 2),))
    second = F.getitem(x, key=head + (slice(n // 2, n),))
    return F.mul(first, F.sigmoid(second))


def logit(input, eps=None):  # noqa: A002
    """``ops.logit(input, eps=None)``: ``log(x / (1 - x))``, with ``x`` clipped to
    ``[eps, 1 - eps]`` when ``eps`` is given."""
    U.float_tensor("ops.logit", input)
    x = input
    if eps is not None:
        U.number("ops.logit", eps, "eps")
        x = F.minimum(F.maximum(x, float(eps)), 1 - float(eps))
    return F.log(F.div(x, F.sub(1, x)))


# --- one-hot, dense layers, embeddings ------------------------------------------------------------

def _fill_value_dtype(name: str, on_value, off_value):
    """The dtype of ``one_hot``'s output for Python-number on/off values: Int64 for ints, Float32
    for floats; mixing them is refused, as MindSpore refuses it."""
    kinds = {isinstance(v, float) for v in (on_value, off_value)}
    if len(kinds) > 1:
        raise TypeError(f"{name}: 'on_value' and 'off_value' must have the same type, got "
                        f"{type(on_value).__name__} and {type(off_value).__name__}")
    return float32 if kinds == {True} else int64


def one_hot(indices, depth, on_value=1, off_value=0, axis=-1):
    """``ops.one_hot(indices, depth, on_value=1, off_value=0, axis=-1)``: ``on_value`` where the
    new axis ``axis`` equals the index, ``off_value`` elsewhere (indices outside [0, depth) give
    all ``off_value``). Python numbers give Int64 (ints) or Float32 (floats); tensors give their
    dtype."""
    name = "ops.one_hot"
    U.int_tensor(name, indices)
    depth = _depth(name, depth)
    axis = U.int_arg(name, axis, "axis")
    if not -1 <= axis <= indices.ndim:
        raise ValueError(f"{name}: 'axis' must be in [-1, {indices.ndim}], got {axis}")
    if isinstance(on_value, Tensor) or isinstance(off_value, Tensor):
        return _one_hot_tensors(name, indices, depth, on_value, off_value, axis)
    for what, v in (("on_value", on_value), ("off_value", off_value)):
        U.number(name, v, what)
    dtype = _fill_value_dtype(name, on_value, off_value)
    return F.one_hot(indices, depth=depth, on_value=on_value, off_value=off_value, axis=axis,
                     dtype=dtype)


def _depth(name: str, depth) -> int:
    if isinstance(depth, Tensor):
        depth = depth.item()  # a data-dependent shape: PyNative only (graph mode refuses item())
    depth = U.int_arg(name, depth, "depth")
    if depth < 0:
        raise ValueError(f"{name}: 'depth' must be non-negative, got {depth}")
    return depth


def _one_hot_tensors(name: str, indices, depth: int, on_value, off_value, axis: int):
    for what, v in (("on_value", on_value), ("off_value", off_value)):
        U.tensor(name, v, what)
    if on_value.dtype != off_value.dtype:
        raise TypeError(f"{name}: 'on_value' and 'off_value' must have the same dtype, got "
                        f"{on_value.dtype} and {off_value.dtype}")
    hot = F.one_hot(indices, depth=depth, on_value=True, off_value=False, axis=axis, dtype=bool_)
    # MindSpore gives on_value and off_value no gradient
    return F.select(hot, F.stop_gradient(on_value), F.stop_gradient(off_value))


def _one_hot_prim(indices, depth, on_value, off_value, axis=-1):
    """``ops.OneHot(axis)(indices, depth, on_value, off_value)``: on/off values are tensors."""
    name = "OneHot"
    U.int_tensor(name, indices)
    return _one_hot_tensors(name, indices, _depth(name, depth), on_value, off_value,
                            U.int_arg(name, axis, "axis"))


def dense(input, weight, bias=None):  # noqa: A002
    """``ops.dense(input, weight, bias=None)``: ``input @ weight.T + bias`` over the last axis of
    ``input`` (``weight`` is (out, in), or (in,) for one output without that axis)."""
    name = "ops.dense"
    U.tensor(name, input)
    U.tensor(name, weight, "weight")
    if weight.ndim not in (1, 2):
        raise ValueError(f"{name}: 'weight' must be 1-D or 2-D, got shape {list(weight.shape)}")
    if input.ndim == 0 or input.shape[-1] != weight.shape[-1]:
        raise ValueError(f"{name}: the last axis of 'input' (shape {list(input.shape)}) must match "
                         f"the in-features of 'weight' (shape {list(weight.shape)})")
    lead = tuple(input.shape[:-1])
    x2 = F.reshape(input, (-1, input.shape[-1]))
    if weight.ndim == 1:
        y = F.reshape(F.matmul(x2, F.reshape(weight, (-1, 1))), lead)
    else:
        y = F.reshape(F.matmul(x2, weight, transpose_b=True), lead + (weight.shape[0],))
    return y if bias is None else F.add(y, bias)


def bidense(input1, input2, weight, bias=None):
    """``ops.bidense(input1, input2, weight, bias=None)``: the bilinear form
    ``y[..., o] = sum_ij input1[..., i] weight[o, i, j] input2[..., j] + bias[o]``."""
    name = "ops.bidense"
    for what, t in (("input1", input1), ("input2", input2), ("weight", weight)):
        U.float_tensor(name, t, what)
    if tuple(input1.shape[:-1]) != tuple(input2.shape[:-1]):
        raise ValueError(f"{name}: 'input1' and 'input2' must agree on all but their last axis, "
                         f"got {list(input1.shape)} and {list(input2.shape)}")
    if weight.ndim != 3 or weight.shape[1:] != (input1.shape[-1], input2.shape[-1]):
        raise ValueError(f"{name}: 'weight' must have shape (out, {input1.shape[-1]}, "
                         f"{input2.shape[-1]}), got {list(weight.shape)}")
    lead = tuple(input1.shape[:-1])
    out, i1, i2 = weight.shape
    x1 = F.reshape(input1, (-1, i1))
    x2 = F.reshape(input2, (-1, i2))
    # (B, i1) @ (i1, out * i2) -> (B, out, i2), then contract i2 with x2
    t = F.matmul(x1, F.reshape(F.transpose(weight, perm=(1, 0, 2)), (i1, out * i2)))
    t = F.reshape(t, (-1, out, i2))
    y = F.reduce_sum(F.mul(t, F.expand_dims(x2, axis=1)), axis=(2,), keep_dims=False)
    y = F.reshape(y, lead + (out,))
    return y if bias is None else F.add(y, bias)


def _embedding_lookup(input_params, input_indices, offset):
    """``ops.EmbeddingLookup()(input_params, input_indices, offset)``: rows
    ``input_indices - offset`` of ``input_params``; rows outside the table are zeros."""
    name = "EmbeddingLookup"
    U.tensor(name, input_params, "input_params")
    U.int_tensor(name, input_indices, "input_indices")
    if input_params.ndim > 2:
        raise ValueError(f"{name}: 'input_params' must have rank <= 2, got shape "
                         f"{list(input_params.shape)}")
    offset = U.int_arg(name, offset, "offset")
    rows = input_params.shape[0]
    idx = F.sub(input_indices, offset) if offset else input_indices
    inside = F.logical_and(F.greater_equal(idx, 0), F.less(idx, rows))
    picked = F.take(input_params, F.select(inside, idx, F.zeros_like(idx)), axis=0)
    if input_params.ndim == 2:
        inside = F.expand_dims(inside, axis=-1)
    return F.select(inside, picked, F.zeros_like(picked))


def embedding(input, weight, padding_idx=None, max_norm=None, norm_type=2.0,  # noqa: A002
              scale_grad_by_freq=False):
    """``ops.embedding(input, weight, padding_idx=None, max_norm=None, norm_type=2.0,
    scale_grad_by_freq=False)``: the rows ``input`` of ``weight``; the row ``padding_idx`` gets no
    gradient. ``max_norm`` (renormalising ``weight`` in place) and ``scale_grad_by_freq`` are not
    supported."""
    name = "ops.embedding"
    U.int_tensor(name, input, "input")
    U.tensor(name, weight, "weight")
    if weight.ndim != 2:
        raise ValueError(f"{name}: 'weight' must be 2-D, got shape {list(weight.shape)}")
    if max_norm is not None or scale_grad_by_freq:
        raise ValueError(f"{name}: 'max_norm' and 'scale_grad_by_freq' are not supported")
    table = weight
    if padding_idx is not None:
        rows = weight.shape[0]
        pad = U.int_arg(name, padding_idx, "padding_idx")
        if not -rows <= pad < rows:
            raise ValueError(f"{name}: 'padding_idx' must be in [{-rows}, {rows}), got {pad}")
        keep = U.constant([[0.0] if i == pad % rows else [1.0] for i in range(rows)], weight.dtype)
        # the padding row's value is kept, its gradient dropped
        table = F.add(F.mul(weight, keep), F.stop_gradient(F.mul(weight, F.sub(1, keep))))
    return F.take(table, input, axis=0)


# --- distances -------------------------------------------------------------------------------------

def _p_norm(d, p: float, axis: int):
    """The p-norm of ``d`` along ``axis`` (p = 0 counts the nonzero entries, inf takes the max)."""
    if p == 0:
        return F.reduce_sum(F.cast(F.not_equal(d, 0), dtype=d.dtype), axis=(axis,), keep_dims=False)
    a = F.abs(d)
    if p == 1:
        return F.reduce_sum(a, axis=(axis,), keep_dims=False)
    if p == 2:
        return F.sqrt(F.reduce_sum(F.mul(d, d), axis=(axis,), keep_dims=False))
    if math.isinf(p):
        return F.reduce_max(a, axis=(axis,), keep_dims=False)
    return F.pow(F.reduce_sum(F.pow(a, p), axis=(axis,), keep_dims=False), 1.0 / p)


def cdist(x1, x2, p=2.0):
    """``ops.cdist(x1, x2, p=2.0)``: the p-norm distances between the rows of ``x1`` (B, P, M)
    and of ``x2`` (B, R, M), shape (B, P, R) (no B for 2-D inputs)."""
    name = "ops.cdist"
    U.float_tensor(name, x1, "x1")
    U.float_tensor(name, x2, "x2")
    U.same_dtype(name, x1, x2, "x1", "x2")
    U.number(name, p, "p")
    if p < 0:
        raise ValueError(f"{name}: 'p' must be non-negative, got {p}")
    if x1.ndim not in (2, 3) or x2.ndim != x1.ndim or x1.shape[-1] != x2.shape[-1] or \
            x1.shape[:-2] != x2.shape[:-2]:
        raise ValueError(f"{name}: 'x1' and 'x2' must be (B, P, M) and (B, R, M) (or 2-D), got "
                         f"{list(x1.shape)} and {list(x2.shape)}")
    d = F.sub(F.expand_dims(x1, axis=-2), F.expand_dims(x2, axis=-3))
    return _p_norm(d, float(p), -1)


def pdist(input, p=2.0):  # noqa: A002
    """``ops.pdist(input, p=2.0)``: the p-norm distances between every pair of rows ``i < j`` of
    ``input`` (N, M), in row-major order of the pairs: shape (N (N - 1) / 2,)."""
    name = "ops.pdist"
    U.float_tensor(name, input)
    U.number(name, p, "p")
    if p < 0:
        raise ValueError(f"{name}: 'p' must be non-negative, got {p}")
    if input.ndim < 2:
        raise ValueError(f"{name}: 'input' must have rank >= 2, got shape {list(input.shape)}")
    n = input.shape[-2]
    first, second = np.triu_indices(n, k=1)
    axis = input.ndim - 2
    d = F.sub(F.take(input, U.constant(first, "int64"), axis=axis),
              F.take(input, U.constant(second, "int64"), axis=axis))
    return _p_norm(d, float(p), -1)


def dist(input, other, p=2):  # noqa: A002
    """``ops.dist(input, other, p=2)``: the p-norm of ``input - other`` (broadcast), a 0-d tensor."""
    name = "ops.dist"
    U.float_tensor(name, input)
    U.float_tensor(name, other, "other")
    U.number(name, p, "p")
    d = F.reshape(F.sub(input, other), (-1,))
    return _p_norm(d, float(p), 0)


def cosine_similarity(x1, x2, dim=1, eps=1e-08):
    """``ops.cosine_similarity(x1, x2, dim=1, eps=1e-08)``: ``<x1, x2> / max(|x1| |x2|, eps)``
    along ``dim`` (broadcast)."""
    name = "ops.cosine_similarity"
    U.float_tensor(name, x1, "x1")
    U.float_tensor(name, x2, "x2")
    dim = U.int_arg(name, dim, "dim")
    dot = F.reduce_sum(F.mul(x1, x2), axis=(dim,), keep_dims=False)
    n1 = F.sqrt(F.reduce_sum(F.mul(x1, x1), axis=(dim,), keep_dims=False))
    n2 = F.sqrt(F.reduce_sum(F.mul(x2, x2), axis=(dim,), keep_dims=False))
    return F.div(dot, F.maximum(F.mul(n1, n2), float(eps)))


def clip_by_norm(x, max_norm, norm_type=2.0, error_if_nonfinite=False):
    """``ops.clip_by_norm(x, max_norm, norm_type=2.0, error_if_nonfinite=False)``: ``x`` (a tensor
    or a sequence of them) scaled by ``min(1, max_norm / (total_norm + 1e-6))``, the total norm
    taken over every element of every tensor.

    The norm is the p-norm of the absolute values; MindSpore 2.10 raises the signed values to
    the power p, which differs for odd ``norm_type`` (docs/decisions.md).
    """
    name = "ops.clip_by_norm"
    tensors = list(x) if isinstance(x, (tuple, list)) else [x]
    for t in tensors:
        U.float_tensor(name, t, "x")
    U.number(name, max_norm, "max_norm")
    U.number(name, norm_type, "norm_type")
    p = float(norm_type)
    if math.isinf(p):
        norms = [F.reduce_max(F.abs(t), axis=None, keep_dims=False) for t in tensors]
        total = norms[0]
        for n in norms[1:]:
            total = F.maximum(total, n)
    else:
        parts = [F.reduce_sum(F.pow(F.abs(t), p), axis=None, keep_dims=False) for t in tensors]
        total = parts[0]
        for part in parts[1:]:
            total = F.add(total, part)
        total = F.pow(total, 1.0 / p)
    if error_if_nonfinite and not np.isfinite(total.asnumpy()):
        raise RuntimeError(f"{name}: the total norm is not finite ({total.asnumpy()})")
    coef = F.minimum(F.div(float(max_norm), F.add(total, 1e-6)), 1.0)
    out = [F.mul(t, F.cast_like(coef, t)) for t in tensors]
    return type(x)(out) if isinstance(x, (tuple, list)) else out[0]


def clip_by_axis_norm(x, clip_norm, axis=None):
    """MindSpore's inner ``ClipByNorm(axis)(x, clip_norm)``, which ``nn.ClipByNorm`` calls:
    ``x * clip_norm / max(norm, clip_norm)`` with ``norm`` the Euclidean norm of ``x`` over
    ``axis`` (None: every axis; kept for broadcasting). ``clip_norm`` is a number or a tensor
    that broadcasts to the norm. Below a norm of 1e-18 the norm's gradient is taken as 0 (it
    would be NaN: MindSpore's is)."""
    name = "ClipByNorm"
    U.float_tensor(name, x, "x")
    axes = tuple(range(x.ndim)) if axis is None else tuple(axis)
    for a in axes:
        if not -max(x.ndim, 1) <= a < max(x.ndim, 1):
            raise ValueError(f"{name}: 'axis' {a} is out of range for 'x' of shape "
                             f"{list(x.shape)}")
    if isinstance(clip_norm, Tensor):
        U.float_tensor(name, clip_norm, "clip_norm")
        clip = F.cast(clip_norm, dtype=x.dtype)
    else:
        clip = float(U.number(name, clip_norm, "clip_norm"))
    squares = F.reduce_sum(F.mul(x, x), axis=axes, keep_dims=True)
    norm = F.sqrt(F.maximum(squares, 1e-36))  # float32 holds 1e-36: no 0 under the sqrt
    return F.div(F.mul(x, clip), F.maximum(norm, clip))


def sequence_mask(lengths, maxlen=None):
    """``ops.sequence_mask(lengths, maxlen=None)``: ``mask[..., j] = j < lengths[...]``, shape
    ``lengths.shape + (maxlen,)``; without ``maxlen`` it is ``max(lengths)``, a shape that depends
    on the data (PyNative only)."""
    name = "ops.sequence_mask"
    U.int_tensor(name, lengths, "lengths")
    if maxlen is None:
        maxlen = int(np.max(lengths.asnumpy())) if lengths.size else 0
    maxlen = U.int_arg(name, maxlen, "maxlen")
    if maxlen <= 0:
        raise ValueError(f"{name}: 'maxlen' must be positive, got {maxlen}")
    positions = U.constant(np.arange(maxlen), lengths.dtype)
    return F.less(positions, F.expand_dims(lengths, axis=-1))


def channel_shuffle(x, groups):
    """``ops.channel_shuffle(x, groups)``: the channels (axis 1) split into ``groups`` groups and
    interleaved: channel ``g * (C / groups) + i`` moves to ``i * groups + g``."""
    name = "ops.channel_shuffle"
    U.tensor(name, x, "x")
    groups = U.int_arg(name, groups, "groups")
    if x.ndim < 4:  # as MindSpore 2.10 (PyTorch also takes 3-D input)
        raise ValueError(f"{name}: 'x' must have rank >= 4, got shape {list(x.shape)}")
    n, c = x.shape[:2]
    if groups < 1 or c % groups:
        raise ValueError(f"{name}: 'groups' must be positive and divide the {c} channels, got "
                         f"{groups}")
    rest = tuple(x.shape[2:])
    y = F.reshape(x, (n, groups, c // groups) + rest)
    y = F.transpose(y, perm=(0, 2, 1) + tuple(range(3, y.ndim)))
    return F.reshape(y, tuple(x.shape))


def _channel_shuffle_prim(x, group):
    """``ops.ChannelShuffle(group)(x)``."""
    return channel_shuffle(x, group)


def _softmax_cross_entropy_prim(logits, labels):
    """``ops.SoftmaxCrossEntropyWithLogits()(logits, labels)``: ``(loss, softmax(logits) -
    labels)`` over the last axis. As in MindSpore, the gradient is ``dloss * (softmax - labels)``:
    the labels and the second output carry none (exact when each row of labels sums to 1)."""
    name = "SoftmaxCrossEntropyWithLogits"
    U.float_tensor(name, logits, "logits")
    U.float_tensor(name, labels, "labels")
    loss, backprop = F.softmax_cross_entropy(logits, F.stop_gradient(labels))
    return loss, F.stop_gradient(backprop)


# --- Primitive classes -------------------------------------------------------------------------

def _logit_prim(x, eps=-1.0):
    """``ops.Logit(eps=-1.0)(x)``: a negative ``eps`` means no clipping."""
    return logit(x, None if eps < 0 else eps)


GeLU = primitive("GeLU", _gelu_primitive)
Gelu = primitive("Gelu", _gelu_primitive, doc="MindSpore's deprecated ``Gelu``: ``GeLU``.")
FastGeLU = primitive("FastGeLU", fast_gelu)
PReLU = primitive("PReLU", prelu)
Softsign = primitive("Softsign", softsign)
Mish = primitive("Mish", mish)
ReLU6 = primitive("ReLU6", relu6)
HSwish = primitive("HSwish", hardswish)
HSigmoid = primitive("HSigmoid", hardsigmoid)
CeLU = primitive("CeLU", celu, init=("alpha",))
SeLU = primitive("SeLU", selu)
HShrink = primitive("HShrink", hardshrink, init=("lambd",))
SoftShrink = primitive("SoftShrink", softshrink, init=("lambd",))
GLU = primitive("GLU", glu, init=("axis",))
Logit = primitive("Logit", _logit_prim, init=("eps",))
OneHot = primitive("OneHot", _one_hot_prim, init=("axis",))
Dense = primitive("Dense", dense)
EmbeddingLookup = primitive("EmbeddingLookup", _embedding_lookup)
Cdist = primitive("Cdist", cdist, init=("p",))
Pdist = primitive("Pdist", pdist, init=("p",))
SoftmaxCrossEntropyWithLogits = primitive("SoftmaxCrossEntropyWithLogits",
                                          _softmax_cross_entropy_prim)
ChannelShuffle = primitive("ChannelShuffle", _channel_shuffle_prim, init=("group",))


# --- Tensor methods ----------------------------------------------------------------------------

def _softmax_method(self, axis, dtype=None):
    """``Tensor.softmax(axis, dtype=None)``."""
    return softmax(self, axis, dtype=dtype)


TENSOR_METHODS = {
    "softmax": _softmax_method,
    "hardshrink": hardshrink,
    "soft_shrink": soft_shrink,
    "logit": logit,
}


# MindSpore's import path of the attention function nn.MultiheadAttention calls (its family
# module is attention_func, which uses dense above)
from graphcell.ops.function.attention_func import multi_head_attention_forward  # noqa: E402,F401
