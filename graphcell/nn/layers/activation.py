"""Activation layers, with MindSpore 2.10's constructors, and ``get_activation``.

Each is a thin Cell over one ``ops`` function (or registry op), so its gradient is that op's and
graph mode traces it like any library call. ``PReLU``/``PReLUExt`` own a Parameter; the others
hold only their settings. MindSpore prints none of these settings, so neither does graphcell
(``repr(nn.LeakyReLU(0.1))`` is ``LeakyReLU()``).

Example::

    >>> import graphcell as ms
    >>> from graphcell import nn
    >>> nn.ReLU()(ms.Tensor([-1.0, 2.0])).asnumpy()
    array([0., 2.], dtype=float32)
"""
from __future__ import annotations

import numpy as np

from graphcell import ops
from graphcell.nn.cell import Cell
from graphcell.nn.layers._validate import _is_int, _is_number, check_bool, describe
from graphcell.parameter import Parameter
from graphcell.tensor import Tensor
from graphcell_ir.ir.types import float16, float32, to_dtype
from graphcell_ir.ops import functional as F

__all__ = ["ReLU", "ReLU6", "Sigmoid", "Tanh", "Softmax", "Softmin", "Softmax2d", "LogSoftmax",
           "LogSoftmaxExt", "ELU", "CELU", "SeLU", "LeakyReLU", "RReLU", "PReLU", "PReLUExt",
           "GELU", "FastGelu", "SiLU", "Mish", "Softsign", "Tanhshrink", "Hardtanh", "HSwish",
           "HSigmoid", "LogSigmoid", "SoftShrink", "HShrink", "Threshold", "GLU",
           "get_activation"]


def _number(value, name: str, owner: str) -> float:
    if not _is_number(value):
        raise TypeError(f"{owner}: '{name}' must be a float or an int, got "
                        f"{type(value).__name__} {value!r}")
    return value


def _int_axis(axis, owner: str, name: str = "axis") -> int:
    if not _is_int(axis):
        raise TypeError(f"{owner}: '{name}' must be an int, got {type(axis).__name__} {axis!r}")
    return axis


class ReLU(Cell):
    """``ReLU()``: ``max(x, 0)`` element-wise.

    Example::

        >>> import graphcell as ms
        >>> from graphcell import nn
        >>> nn.ReLU()(ms.Tensor([-1.0, 0.5])).asnumpy()
        array([0. , 0.5], dtype=float32)
    """

    def construct(self, input):  # noqa: A002 - MindSpore's parameter name
        return ops.relu(input)


class ReLU6(Cell):
    """``ReLU6()``: ``min(max(x, 0), 6)``.

    Example::

        >>> import graphcell as ms
        >>> from graphcell import nn
        >>> nn.ReLU6()(ms.Tensor([-1.0, 7.0])).asnumpy()
        array([0., 6.], dtype=float32)
    """

    def construct(self, x):
        return ops.relu6(x)


class Sigmoid(Cell):
    """``Sigmoid()``: ``1 / (1 + exp(-x))``.

    Example::

        >>> import graphcell as ms
        >>> from graphcell import nn
        >>> nn.Sigmoid()(ms.Tensor([0.0])).asnumpy()
        array([0.5], dtype=float32)
    """

    def construct(self, x):
        return ops.sigmoid(x)


class Tanh(Cell):
    """``Tanh()``: ``tanh(x)``.

    Example::

        >>> import graphcell as ms
        >>> from graphcell import nn
        >>> nn.Tanh()(ms.Tensor([0.0])).asnumpy()
        array([0.], dtype=float32)
    """

    def construct(self, x):
        return ops.tanh(x)


class Softmax(Cell):
    """``Softmax(axis=-1)``: ``exp(x) / sum(exp(x))`` over ``axis`` (an int or a tuple of ints).

    Example::

        >>> import graphcell as ms
        >>> from graphcell import nn
        >>> nn.Softmax()(ms.Tensor([0.0, 0.0])).asnumpy()
        array([0.5, 0.5], dtype=float32)
    """

    def __init__(self, axis=-1):
        super().__init__()
        ok = _is_int(axis) or (isinstance(axis, tuple) and axis and all(_is_int(a) for a in axis))
        if not ok:
            raise TypeError(f"{self.cls_name}: 'axis' must be an int or a non-empty tuple of "
                            f"ints, got {axis!r}")
        self.axis = axis

    def construct(self, input):  # noqa: A002
        axes = self.axis if isinstance(self.axis, tuple) else (self.axis,)
        return F.softmax(input, axis=axes)  # the primitive takes a tuple of axes


class Softmin(Cell):
    """``Softmin(axis=-1)``: ``softmax(-x)`` over ``axis``.

    Example::

        >>> import graphcell as ms
        >>> from graphcell import nn
        >>> nn.Softmin()(ms.Tensor([0.0, 0.0])).asnumpy()
        array([0.5, 0.5], dtype=float32)
    """

    def __init__(self, axis=-1):
        super().__init__()
        self.axis = _int_axis(axis, self.cls_name)

    def construct(self, x):
        return ops.softmin(x, self.axis)


class Softmax2d(Cell):
    """``Softmax2d()``: softmax over the channels (axis -3) of a (C, H, W) or (N, C, H, W) input.

    Example::

        >>> import numpy as np
        >>> import graphcell as ms
        >>> from graphcell import nn
        >>> nn.Softmax2d()(ms.Tensor(np.zeros((2, 1, 1), np.float32))).asnumpy().ravel()
        array([0.5, 0.5], dtype=float32)
    """

    def construct(self, x):
        if not isinstance(x, Tensor) or x.ndim not in (3, 4):
            raise ValueError(f"{self.cls_name}: expected a 3-D (C, H, W) or 4-D (N, C, H, W) "
                             f"input, got {describe(x)}")
        return F.softmax(x, axis=(-3,))


class LogSoftmax(Cell):
    """``LogSoftmax(axis=-1)``: ``log(softmax(x))`` over ``axis``, computed stably.

    Example::

        >>> import graphcell as ms
        >>> from graphcell import nn
        >>> nn.LogSoftmax()(ms.Tensor([0.0, 0.0])).asnumpy()
        array([-0.6931472, -0.6931472], dtype=float32)
    """

    def __init__(self, axis=-1):
        super().__init__()
        self.axis = _int_axis(axis, self.cls_name)

    def construct(self, x):
        return ops.log_softmax(x, axis=self.axis)


class LogSoftmaxExt(Cell):
    """``LogSoftmaxExt(dim=None)``: ``log(softmax(x))`` over ``dim``; ``None`` picks axis 0 for
    inputs of rank 0, 1 or 3 and axis 1 otherwise (PyTorch's legacy rule, as MindSpore).

    Example::

        >>> import graphcell as ms
        >>> from graphcell import nn
        >>> nn.LogSoftmaxExt()(ms.Tensor([0.0, 0.0])).asnumpy()
        array([-0.6931472, -0.6931472], dtype=float32)
    """

    def __init__(self, dim=None):
        super().__init__()
        self.dim = None if dim is None else _int_axis(dim, self.cls_name, "dim")

    def construct(self, x):
        dim = self.dim
        if dim is None:
            dim = 0 if x.ndim in (0, 1, 3) else 1
        return ops.log_softmax(x, axis=dim)


class ELU(Cell):
    """``ELU(alpha=1.0)``: ``x`` for x > 0, ``alpha * (exp(x) - 1)`` otherwise.

    Example::

        >>> import graphcell as ms
        >>> from graphcell import nn
        >>> nn.ELU()(ms.Tensor([1.0, 0.0])).asnumpy()
        array([1., 0.], dtype=float32)
    """

    def __init__(self, alpha=1.0):
        super().__init__()
        self.alpha = _number(alpha, "alpha", self.cls_name)

    def construct(self, x):
        return ops.elu(x, self.alpha)


class CELU(Cell):
    """``CELU(alpha=1.0)``: ``max(0, x) + min(0, alpha * (exp(x / alpha) - 1))``.

    Example::

        >>> import graphcell as ms
        >>> from graphcell import nn
        >>> nn.CELU()(ms.Tensor([1.0, 0.0])).asnumpy()
        array([1., 0.], dtype=float32)
    """

    def __init__(self, alpha=1.0):
        super().__init__()
        self.alpha = _number(alpha, "alpha", self.cls_name)
        if self.alpha == 0:
            raise ValueError(f"{self.cls_name}: 'alpha' must not be 0")

    def construct(self, x):
        return ops.celu(x, self.alpha)


class SeLU(Cell):
    """``SeLU()``: ``scale * elu(x, alpha)`` with the self-normalising constants.

    Example::

        >>> import graphcell as ms
        >>> from graphcell import nn
        >>> nn.SeLU()(ms.Tensor([0.0])).asnumpy()
        array([0.], dtype=float32)
    """

    def construct(self, input_x):
        return ops.selu(input_x)


class LeakyReLU(Cell):
    """``LeakyReLU(alpha=0.2)``: ``x`` where x >= 0, ``alpha * x`` elsewhere.

    Example::

        >>> import graphcell as ms
        >>> from graphcell import nn
        >>> nn.LeakyReLU(0.5)(ms.Tensor([-2.0, 3.0])).asnumpy()
        array([-1.,  3.], dtype=float32)
    """

    def __init__(self, alpha=0.2):
        super().__init__()
        self.alpha = _number(alpha, "alpha", self.cls_name)

    def construct(self, x):
        return ops.leaky_relu(x, self.alpha)


class RReLU(Cell):
    """``RReLU(lower=1/8, upper=1/3)``: ``x`` where x >= 0, ``a * x`` elsewhere, each ``a`` drawn
    from U[lower, upper) at every call — in training and in inference alike, as MindSpore's.

    Example::

        >>> import graphcell as ms
        >>> from graphcell import nn
        >>> nn.RReLU()(ms.Tensor([2.0])).asnumpy()
        array([2.], dtype=float32)
    """

    def __init__(self, lower=1 / 8, upper=1 / 3):
        super().__init__()
        self.lower = _number(lower, "lower", self.cls_name)
        self.upper = _number(upper, "upper", self.cls_name)
        if lower > upper:
            raise ValueError(f"{self.cls_name}: 'upper' must be at least 'lower', got lower "
                             f"{lower} and upper {upper}")

    def construct(self, x):
        return ops.rrelu(x, self.lower, self.upper)


def _prelu_weight(w, channel: int, owner: str) -> Tensor:
    """PReLU's initial slopes: a float (every channel), a list of ``channel`` floats, or a 1-D
    Float16/Float32 tensor of ``channel`` values (MindSpore's rules)."""
    if isinstance(w, (float, np.floating)):
        return Tensor(np.full((channel,), w, np.float32))
    if isinstance(w, list):
        if len(w) != channel or not all(isinstance(v, (float, np.floating)) for v in w):
            raise ValueError(f"{owner}: 'w' as a list must hold channel={channel} floats, got "
                             f"{w!r}")
        return Tensor(np.asarray(w, np.float32))
    if isinstance(w, Tensor):
        if w.dtype not in (float16, float32):
            raise ValueError(f"{owner}: 'w' must be a Float16 or Float32 tensor, got {w.dtype}")
        if w.ndim != 1 or w.shape[0] != channel:
            raise ValueError(f"{owner}: 'w' must be a 1-D tensor of channel={channel} values, "
                             f"got shape {list(w.shape)}")
        return w
    raise TypeError(f"{owner}: 'w' must be a float, a list of floats or a Tensor, got "
                    f"{type(w).__name__}")


class PReLU(Cell):
    """``PReLU(channel=1, w=0.25)``: ``x`` where x > 0, ``w * x`` elsewhere, with a learnt slope
    per channel (axis 1) — the Parameter ``w``, named ``a`` as in MindSpore.

    Example::

        >>> import graphcell as ms
        >>> from graphcell import nn
        >>> nn.PReLU()(ms.Tensor([[-4.0, 2.0]])).asnumpy()
        array([[-1.,  2.]], dtype=float32)
    """

    def __init__(self, channel=1, w=0.25):
        super().__init__()
        if not _is_int(channel) or channel <= 0:
            raise ValueError(f"{self.cls_name}: 'channel' must be a positive int, got {channel!r}")
        self.w = Parameter(_prelu_weight(w, channel, self.cls_name), name="a")

    def construct(self, x):
        return ops.prelu(x, ops.cast(self.w, x.dtype))


class PReLUExt(Cell):
    """``PReLUExt(num_parameters=1, init=0.25, dtype=None)``: PReLU with PyTorch's constructor;
    the slopes are the Parameter ``weight``.

    Example::

        >>> import graphcell as ms
        >>> from graphcell import nn
        >>> nn.PReLUExt()(ms.Tensor([[-4.0, 2.0]])).asnumpy()
        array([[-1.,  2.]], dtype=float32)
    """

    def __init__(self, num_parameters=1, init=0.25, dtype=None):
        super().__init__()
        if not _is_int(num_parameters) or num_parameters <= 0:
            raise ValueError(f"{self.cls_name}: 'num_parameters' must be a positive int, got "
                             f"{num_parameters!r}")
        _number(init, "init", self.cls_name)
        dtype = float32 if dtype is None else to_dtype(dtype)
        values = np.full((num_parameters,), init, dtype.np_dtype)
        self.weight = Parameter(Tensor(values), name="weight")

    def construct(self, input):  # noqa: A002
        return ops.prelu(input, self.weight)


class GELU(Cell):
    """``GELU(approximate=True)``: ``x * P(X <= x)`` for a standard normal X; ``approximate=True``
    (the default) uses the tanh approximation, ``False`` the exact erf form.

    Example::

        >>> import graphcell as ms
        >>> from graphcell import nn
        >>> nn.GELU(approximate=False)(ms.Tensor([0.0])).asnumpy()
        array([0.], dtype=float32)
    """

    def __init__(self, approximate=True):
        super().__init__()
        check_bool(approximate, "approximate", self.cls_name)
        self.approximate = "tanh" if approximate else "none"

    def construct(self, x):
        return ops.gelu(x, approximate=self.approximate)


class FastGelu(Cell):
    """``FastGelu()``: ``x / (1 + exp(-1.702 |x|)) * exp(0.851 (x - |x|))``.

    Example::

        >>> import graphcell as ms
        >>> from graphcell import nn
        >>> nn.FastGelu()(ms.Tensor([0.0])).asnumpy()
        array([0.], dtype=float32)
    """

    def construct(self, x):
        return ops.fast_gelu(x)


class SiLU(Cell):
    """``SiLU()``: ``x * sigmoid(x)``.

    Example::

        >>> import graphcell as ms
        >>> from graphcell import nn
        >>> nn.SiLU()(ms.Tensor([0.0])).asnumpy()
        array([0.], dtype=float32)
    """

    def construct(self, x):
        return ops.silu(x)


class Mish(Cell):
    """``Mish()``: ``x * tanh(softplus(x))``.

    Example::

        >>> import graphcell as ms
        >>> from graphcell import nn
        >>> nn.Mish()(ms.Tensor([0.0])).asnumpy()
        array([0.], dtype=float32)
    """

    def construct(self, input_x):
        return ops.mish(input_x)


class Softsign(Cell):
    """``Softsign()``: ``x / (1 + |x|)``.

    Example::

        >>> import graphcell as ms
        >>> from graphcell import nn
        >>> nn.Softsign()(ms.Tensor([1.0])).asnumpy()
        array([0.5], dtype=float32)
    """

    def construct(self, x):
        return ops.softsign(x)


class Tanhshrink(Cell):
    """``Tanhshrink()``: ``x - tanh(x)``.

    Example::

        >>> import graphcell as ms
        >>> from graphcell import nn
        >>> nn.Tanhshrink()(ms.Tensor([0.0])).asnumpy()
        array([0.], dtype=float32)
    """

    def construct(self, x):
        return ops.tanhshrink(x)


class Hardtanh(Cell):
    """``Hardtanh(min_val=-1.0, max_val=1.0)``: ``x`` clipped to ``[min_val, max_val]``.

    Example::

        >>> import graphcell as ms
        >>> from graphcell import nn
        >>> nn.Hardtanh()(ms.Tensor([-3.0, 0.5])).asnumpy()
        array([-1. ,  0.5], dtype=float32)
    """

    def __init__(self, min_val=-1.0, max_val=1.0):
        super().__init__()
        self.min_val = _number(min_val, "min_val", self.cls_name)
        self.max_val = _number(max_val, "max_val", self.cls_name)
        if min_val >= max_val:
            raise ValueError(f"{self.cls_name}: 'min_val' must be less than 'max_val', got "
                             f"{min_val} and {max_val}")

    def construct(self, x):
        return ops.hardtanh(x, self.min_val, self.max_val)


class HSwish(Cell):
    """``HSwish()``: ``x * relu6(x + 3) / 6``.

    Example::

        >>> import graphcell as ms
        >>> from graphcell import nn
        >>> nn.HSwish()(ms.Tensor([3.0])).asnumpy()
        array([3.], dtype=float32)
    """

    def construct(self, input):  # noqa: A002
        return ops.hardswish(input)


class HSigmoid(Cell):
    """``HSigmoid()``: ``relu6(x + 3) / 6``.

    Example::

        >>> import graphcell as ms
        >>> from graphcell import nn
        >>> nn.HSigmoid()(ms.Tensor([0.0])).asnumpy()
        array([0.5], dtype=float32)
    """

    def construct(self, input):  # noqa: A002
        return ops.hardsigmoid(input)


class LogSigmoid(Cell):
    """``LogSigmoid()``: ``log(sigmoid(x))``, computed as ``-softplus(-x)`` (finite where
    MindSpore's ``log(1 / (1 + exp(-x)))`` gives -inf for very negative x).

    Example::

        >>> import graphcell as ms
        >>> from graphcell import nn
        >>> nn.LogSigmoid()(ms.Tensor([0.0])).asnumpy()
        array([-0.6931472], dtype=float32)
    """

    def construct(self, input_x):
        return ops.logsigmoid(input_x)


class SoftShrink(Cell):
    """``SoftShrink(lambd=0.5)``: ``x - lambd`` above ``lambd``, ``x + lambd`` below ``-lambd``,
    0 between.

    Example::

        >>> import graphcell as ms
        >>> from graphcell import nn
        >>> nn.SoftShrink()(ms.Tensor([1.0, 0.2])).asnumpy()
        array([0.5, 0. ], dtype=float32)
    """

    def __init__(self, lambd=0.5):
        super().__init__()
        self.lambd = _number(lambd, "lambd", self.cls_name)

    def construct(self, input):  # noqa: A002
        return ops.softshrink(input, self.lambd)


class HShrink(Cell):
    """``HShrink(lambd=0.5)``: ``x`` where ``|x| > lambd``, 0 elsewhere.

    Example::

        >>> import graphcell as ms
        >>> from graphcell import nn
        >>> nn.HShrink()(ms.Tensor([1.0, 0.2])).asnumpy()
        array([1., 0.], dtype=float32)
    """

    def __init__(self, lambd=0.5):
        super().__init__()
        self.lambd = _number(lambd, "lambd", self.cls_name)

    def construct(self, input):  # noqa: A002
        return ops.hardshrink(input, self.lambd)


class Threshold(Cell):
    """``Threshold(threshold, value)``: ``x`` where ``x > threshold``, ``value`` elsewhere.

    Example::

        >>> import graphcell as ms
        >>> from graphcell import nn
        >>> nn.Threshold(0.5, 9.0)(ms.Tensor([1.0, 0.2])).asnumpy()
        array([1., 9.], dtype=float32)
    """

    def __init__(self, threshold, value):
        super().__init__()
        self.threshold = _number(threshold, "threshold", self.cls_name)
        self.value = _number(value, "value", self.cls_name)

    def construct(self, input_x):
        return ops.threshold(input_x, self.threshold, self.value)


class GLU(Cell):
    """``GLU(axis=-1)``: the first half of ``x`` along ``axis`` times the sigmoid of the second.

    Example::

        >>> import graphcell as ms
        >>> from graphcell import nn
        >>> nn.GLU()(ms.Tensor([2.0, 0.0])).asnumpy()
        array([1.], dtype=float32)
    """

    def __init__(self, axis=-1):
        super().__init__()
        self.dim = _int_axis(axis, self.cls_name)

    def construct(self, x):
        return ops.glu(x, self.dim)


_ACTIVATIONS = {
    "softmin": Softmin, "softmax": Softmax, "softmax2d": Softmax2d, "logsoftmax": LogSoftmax,
    "logsoftmaxExt": LogSoftmaxExt, "relu": ReLU, "relu6": ReLU6, "rrelu": RReLU, "silu": SiLU,
    "tanh": Tanh, "tanhshrink": Tanhshrink, "hardtanh": Hardtanh, "gelu": GELU,
    "fast_gelu": FastGelu, "elu": ELU, "sigmoid": Sigmoid, "softsign": Softsign, "prelu": PReLU,
    "preluExt": PReLUExt, "leakyrelu": LeakyReLU, "hswish": HSwish, "hsigmoid": HSigmoid,
    "logsigmoid": LogSigmoid, "softshrink": SoftShrink, "hshrink": HShrink,
    "threshold": Threshold, "mish": Mish,
}
"""MindSpore's activation names (``Dense(..., activation='relu')``)."""


def get_activation(name, prim_name=None):
    """``get_activation(name, prim_name=None)``: a new activation cell from MindSpore's name for
    it (``'relu'``, ``'gelu'``, ``'softmax'``...); ``None`` gives ``None``.

    Example::

        >>> from graphcell import nn
        >>> nn.get_activation('relu')
        ReLU()
    """
    if name is None:
        return None
    owner = prim_name or "get_activation"
    if not isinstance(name, str):
        raise TypeError(f"{owner}: the activation name must be a str, got {type(name).__name__}")
    cls = _ACTIVATIONS.get(name)
    if cls is None:
        raise KeyError(f"{owner}: unknown activation {name!r}; the names are "
                       f"{sorted(_ACTIVATIONS)}")
    return cls()

