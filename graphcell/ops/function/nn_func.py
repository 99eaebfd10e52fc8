"""MindSpore's neural-network functions (``mindspore.ops.function.nn_func``): activations,
normalization, dropout, embeddings and the other per-element or per-row helpers of networks.

Losses are in ``loss_func``, convolutions in ``conv_func``, pooling in ``pool_func``, resizing and
patch layouts in ``image_func``. Each function is a registry primitive spelled MindSpore's way or
a composite written against ``F``: it runs eagerly in PyNative, graph mode traces it into IR, and
its gradient comes from its parts.

Where graphcell accepts more than MindSpore 2.10's CPU build (Float64 inputs where MindSpore's
kernels stop at Float32; ``elu`` with any ``alpha``), the function's docstring says so.
"""
from __future__ import annotations

import math

from graphcell.ops.function import _nn_utils as U
from graphcell.ops.function.array_func import cast
from graphcell.ops.primitive import primitive
from graphcell_ir.ops import functional as F

__all__ = [
    # activations
    "relu", "relu6", "leaky_relu", "prelu", "elu", "celu", "selu", "gelu", "fast_gelu", "silu",
    "softplus", "softsign", "mish", "hardswish", "hardsigmoid", "hardtanh", "hardshrink",
    "softshrink", "soft_shrink", "threshold", "tanhshrink", "logsigmoid", "softmax", "softmin",
    "log_softmax", "glu", "logit",
    "GeLU", "FastGeLU", "PReLU", "Softsign", "Mish", "ReLU6", "HSwish", "HSigmoid", "CeLU",
    "SeLU", "HShrink", "SoftShrink", "GLU", "Logit",
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


# --- Primitive classes -------------------------------------------------------------------------

def _logit_prim(x, eps=-1.0):
    """``ops.Logit(eps=-1.0)(x)``: a negative ``eps`` means no clipping."""
    return logit(x, None if eps < 0 else eps)


GeLU = primitive("GeLU", _gelu_primitive)
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
