"""Fully connected layers: ``Dense`` (``activation(x @ weight.T + bias)``), ``Linear`` (the same
with PyTorch's constructor) and ``BiDense`` (the bilinear ``x1 @ weight @ x2 + bias``).

Defaults are MindSpore 2.x's (checked against 2.10): ``weight`` of shape ``(out, in)`` drawn from
``HeUniform(sqrt(5))`` and ``bias`` from ``Uniform(1 / sqrt(in))``, the same distributions as
PyTorch's ``nn.Linear``; BiDense draws both from ``Uniform(1 / sqrt(in1))``. Inputs of rank
other than 2 are flattened to ``(-1, in)`` and the leading axes restored afterwards.
"""
from __future__ import annotations

import math

from graphcell import ops
from graphcell.common.initializer import HeUniform, Uniform, initializer
from graphcell.nn.cell import Cell
from graphcell.nn.layers._validate import (check_bool, check_init_shape, check_positive_int,
                                           describe)
from graphcell.nn.layers.activation import get_activation
from graphcell.ops.primitive import Primitive
from graphcell.parameter import Parameter
from graphcell.tensor import Tensor
from graphcell_ir.ir.types import float32, to_dtype
from graphcell_ir.ops import functional as F

__all__ = ["Dense", "Linear", "BiDense"]


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
        check_init_shape(weight_init, w_shape, "weight_init", self.cls_name)
        if weight_init is None:
            weight_init = HeUniform(math.sqrt(5))
        self.weight = Parameter(initializer(weight_init, w_shape, dtype), name="weight")
        self.bias = None
        if self.has_bias:
            check_init_shape(bias_init, (self.out_channels,), "bias_init", self.cls_name)
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


class Linear(Cell):
    """``Linear(in_features, out_features, bias=True, weight_init=None, bias_init=None,
    dtype=None)``: ``x @ weight.T + bias`` over the last axis of an input of any rank.

    Example::

        >>> import numpy as np
        >>> import graphcell as ms
        >>> from graphcell import nn
        >>> fc = nn.Linear(3, 2, weight_init='ones', bias_init='zeros')
        >>> fc(ms.Tensor(np.ones((4, 1, 3), np.float32))).shape
        (4, 1, 2)
        >>> fc
        Linear(input_features=3, output_features=2, has_bias=True)
    """

    def __init__(self, in_features, out_features, bias=True, weight_init=None, bias_init=None,
                 dtype=None):
        super().__init__()
        owner = self.cls_name
        self.in_features = check_positive_int(in_features, "in_features", owner)
        self.out_features = check_positive_int(out_features, "out_features", owner)
        self.has_bias = check_bool(bias, "bias", owner)
        dtype = float32 if dtype is None else to_dtype(dtype)
        w_shape = (self.out_features, self.in_features)
        check_init_shape(weight_init, w_shape, "weight_init", owner)
        if weight_init is None:
            weight_init = HeUniform(math.sqrt(5))
        self.weight = Parameter(initializer(weight_init, w_shape, dtype), name="weight")
        self.bias = None
        if self.has_bias:
            check_init_shape(bias_init, (self.out_features,), "bias_init", owner)
            if bias_init is None:
                bias_init = Uniform(scale=1 / math.sqrt(self.in_features))
            self.bias = Parameter(initializer(bias_init, (self.out_features,), dtype), name="bias")

    def construct(self, x):
        return ops.dense(x, self.weight, self.bias)

    def extend_repr(self) -> str:
        s = f"input_features={self.in_features}, output_features={self.out_features}"
        if self.has_bias:
            s += f", has_bias={self.has_bias}"
        return s


class BiDense(Cell):
    """``BiDense(in1_channels, in2_channels, out_channels, weight_init=None, bias_init=None,
    has_bias=True, dtype=float32)``: ``y[..., o] = sum_ij x1[..., i] weight[o, i, j] x2[..., j]
    + bias[o]``; ``weight`` is ``(out, in1, in2)``.

    Example::

        >>> import numpy as np
        >>> import graphcell as ms
        >>> from graphcell import nn
        >>> net = nn.BiDense(2, 3, 4, weight_init='ones', bias_init='zeros')
        >>> x1, x2 = ms.Tensor(np.ones((5, 2), np.float32)), ms.Tensor(np.ones((5, 3), np.float32))
        >>> net(x1, x2).shape
        (5, 4)
        >>> net
        BiDense(in1_channels=2, in2_channels=3, output_channels=4, has_bias=True)
    """

    def __init__(self, in1_channels, in2_channels, out_channels, weight_init=None, bias_init=None,
                 has_bias=True, dtype=float32):
        super().__init__()
        owner = self.cls_name
        self.in1_channels = check_positive_int(in1_channels, "in1_channels", owner)
        self.in2_channels = check_positive_int(in2_channels, "in2_channels", owner)
        self.out_channels = check_positive_int(out_channels, "out_channels", owner)
        self.has_bias = check_bool(has_bias, "has_bias", owner)
        bound = 1 / math.sqrt(self.in1_channels)
        w_shape = (self.out_channels, self.in1_channels, self.in2_channels)
        check_init_shape(weight_init, w_shape, "weight_init", owner)
        self.weight = Parameter(initializer(Uniform(bound) if weight_init is None else weight_init,
                                            w_shape, dtype), name="weight")
        self.bias = None
        if self.has_bias:
            check_init_shape(bias_init, (self.out_channels,), "bias_init", owner)
            self.bias = Parameter(initializer(Uniform(bound) if bias_init is None else bias_init,
                                              (self.out_channels,), dtype), name="bias")

    def construct(self, input1, input2):
        for what, x, n in (("input1", input1, self.in1_channels),
                           ("input2", input2, self.in2_channels)):
            if not isinstance(x, Tensor) or x.ndim < 1 or x.shape[-1] != n:
                raise ValueError(f"{self.cls_name}: the last axis of '{what}' must have {n} "
                                 f"values, got {describe(x)}")
        return ops.bidense(input1, input2, self.weight, self.bias)

    def extend_repr(self) -> str:
        s = (f"in1_channels={self.in1_channels}, in2_channels={self.in2_channels}, "
             f"output_channels={self.out_channels}")
        if self.has_bias:
            s += f", has_bias={self.has_bias}"
        return s
