"""``Dense``: the fully connected layer ``activation(x @ weight.T + bias)``.

Defaults are MindSpore 2.x's (checked against 2.10): ``weight`` of shape ``(out, in)`` drawn from
``HeUniform(sqrt(5))`` and ``bias`` from ``Uniform(1 / sqrt(in_channels))``, the same
distributions as PyTorch's ``nn.Linear``. Inputs of rank other than 2 are flattened to
``(-1, in_channels)`` and the leading axes restored afterwards.
"""
from __future__ import annotations

import math

from graphcell import ops
from graphcell.common.initializer import HeUniform, Uniform, initializer
from graphcell.nn.cell import Cell
from graphcell.nn.layers._validate import check_bool, check_positive_int, describe
from graphcell.nn.layers.activation import get_activation
from graphcell.ops.primitive import Primitive
from graphcell.parameter import Parameter
from graphcell.tensor import Tensor
from graphcell_ir.ir.types import float32
from graphcell_ir.ops import functional as F

__all__ = ["Dense"]


def _check_init_shape(init, shape: tuple, what: str, owner: str) -> None:
    """A Tensor given as ``weight_init``/``bias_init`` must already have the parameter's shape."""
    if isinstance(init, Tensor) and tuple(init.shape) != shape:
        raise ValueError(f"{owner}: {what} has shape {list(init.shape)}, but the parameter needs "
                         f"{list(shape)}")


class Dense(Cell):
    """``Dense(in_channels, out_channels, weight_init=None, bias_init=None, has_bias=True,
    activation=None, dtype=float32)``.

    ``weight_init``/``bias_init`` are initializer names, numbers, Tensors of the parameter's
    shape or ``Initializer`` objects; ``activation`` is a name (``'relu'``), a Cell or a Primitive.

    Example::

        >>> import numpy as np
        >>> import graphcell as ms
        >>> from graphcell import nn
        >>> fc = nn.Dense(3, 2, weight_init='ones', bias_init='zeros')
        >>> fc(ms.Tensor(np.ones((1, 3), np.float32))).asnumpy()
        array([[3., 3.]], dtype=float32)
        >>> fc
        Dense(input_channels=3, output_channels=2, has_bias=True)
    """

    def __init__(self, in_channels, out_channels, weight_init=None, bias_init=None, has_bias=True,
                 activation=None, dtype=float32):
        super().__init__()
        self.in_channels = check_positive_int(in_channels, "in_channels", self.cls_name)
        self.out_channels = check_positive_int(out_channels, "out_channels", self.cls_name)
        self.has_bias = check_bool(has_bias, "has_bias", self.cls_name)
        w_shape = (self.out_channels, self.in_channels)
        _check_init_shape(weight_init, w_shape, "weight_init", self.cls_name)
        if weight_init is None:
            weight_init = HeUniform(math.sqrt(5))
        self.weight = Parameter(initializer(weight_init, w_shape, dtype), name="weight")
        self.bias = None
        if self.has_bias:
            _check_init_shape(bias_init, (self.out_channels,), "bias_init", self.cls_name)
            if bias_init is None:
                bias_init = Uniform(scale=1 / math.sqrt(self.in_channels))
            self.bias = Parameter(initializer(bias_init, (self.out_channels,), dtype), name="bias")
        self.activation = _activation(activation, self.cls_name)
        self.activation_flag = self.activation is not None

    def construct(self, x):
        _check_input(self, x)
        x_shape = x.shape
        if len(x_shape) != 2:
            x = ops.reshape(x, (-1, x_shape[-1]))
        x = F.matmul(x, self.weight, transpose_b=True)  # the primitive: MatMul's transposes
        if self.has_bias:
            x = ops.bias_add(x, self.bias)
        if self.activation_flag:
            x = self.activation(x)
        if len(x_shape) != 2:
            x = ops.reshape(x, x_shape[:-1] + (self.out_channels,))
        return x

    def extend_repr(self) -> str:
        s = f"input_channels={self.in_channels}, output_channels={self.out_channels}"
        if self.has_bias:
            s += f", has_bias={self.has_bias}"
        if self.activation_flag:
            s += f", activation={self.activation}"
        return s


def _activation(activation, owner: str):
    if isinstance(activation, str):
        return get_activation(activation, owner)
    if activation is not None and not isinstance(activation, (Cell, Primitive)):
        raise TypeError(f"{owner}: 'activation' must be a str, a Cell or a Primitive, got "
                        f"{type(activation).__name__}")
    return activation


def _check_input(dense: Dense, x) -> None:
    if not isinstance(x, Tensor) or x.ndim < 1 or x.shape[-1] != dense.in_channels:
        raise ValueError(f"{dense.cls_name}: expected an input whose last axis has "
                         f"in_channels={dense.in_channels} values, got {describe(x)}")
