"""``Conv2d``: 2-D convolution over NCHW images, with an optional bias.

Defaults are MindSpore 2.x's (checked against 2.10): ``pad_mode='same'``, no bias, ``weight`` of
shape ``(out, in / group, kh, kw)`` drawn from ``HeUniform(sqrt(5))``, and, when ``has_bias``, a
``bias`` drawn from ``Uniform(1 / sqrt(fan_in))`` with ``fan_in = in / group * kh * kw``.
"""
from __future__ import annotations

import math

from graphcell import ops
from graphcell.common.initializer import HeUniform, Uniform, initializer
from graphcell.nn.cell import Cell
from graphcell.nn.layers._validate import (_is_int, check_bool, check_positive_int, check_string,
                                           describe, int_pair)
from graphcell.nn.layers.dense import _check_init_shape
from graphcell.parameter import Parameter
from graphcell.tensor import Tensor
from graphcell_ir.ir.types import float32
from graphcell_ir.ops import functional as F

__all__ = ["Conv2d"]


def _padding(padding, pad_mode: str, owner: str):
    """An int or a (top, bottom, left, right) tuple of non-negative ints; 0 unless mode 'pad'."""
    ok = _is_int(padding) or (isinstance(padding, tuple) and len(padding) == 4
                              and all(_is_int(p) for p in padding))
    if not ok:
        raise TypeError(f"{owner}: 'padding' must be an int or a tuple of four ints (top, bottom, "
                        f"left, right), got {padding!r}")
    pads = (padding,) if _is_int(padding) else padding
    if any(p < 0 for p in pads):
        raise ValueError(f"{owner}: 'padding' must be non-negative, got {padding!r}")
    if pad_mode != "pad" and any(pads):
        raise ValueError(f"{owner}: 'padding' must be 0 unless pad_mode is 'pad', got padding "
                         f"{padding!r} with pad_mode {pad_mode!r}")
    return padding


class Conv2d(Cell):
    """``Conv2d(in_channels, out_channels, kernel_size, stride=1, pad_mode='same', padding=0,
    dilation=1, group=1, has_bias=False, weight_init=None, bias_init=None, data_format='NCHW',
    dtype=float32)``.

    ``kernel_size``, ``stride`` and ``dilation`` are ints or (h, w) pairs; ``pad_mode`` is
    ``'same'`` (output size ``ceil(in / stride)``, odd padding at the bottom/right), ``'valid'``
    (no padding) or ``'pad'`` (``padding`` is an int or ``(top, bottom, left, right)``).

    Example::

        >>> import numpy as np
        >>> import graphcell as ms
        >>> from graphcell import nn
        >>> conv = nn.Conv2d(1, 2, 2, pad_mode='valid', weight_init='ones')
        >>> conv(ms.Tensor(np.ones((1, 1, 3, 3), np.float32))).shape
        (1, 2, 2, 2)
    """

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, pad_mode="same",
                 padding=0, dilation=1, group=1, has_bias=False, weight_init=None, bias_init=None,
                 data_format="NCHW", dtype=float32):
        super().__init__()
        owner = self.cls_name
        self.in_channels = check_positive_int(in_channels, "in_channels", owner)
        self.out_channels = check_positive_int(out_channels, "out_channels", owner)
        self.kernel_size = int_pair(kernel_size, "kernel_size", owner)
        self.stride = int_pair(stride, "stride", owner)
        self.pad_mode = check_string(pad_mode, ("same", "valid", "pad"), "pad_mode", owner)
        self.padding = _padding(padding, self.pad_mode, owner)
        self.dilation = int_pair(dilation, "dilation", owner)
        self.group = check_positive_int(group, "group", owner)
        if self.in_channels % self.group or self.out_channels % self.group:
            raise ValueError(f"{owner}: in_channels ({in_channels}) and out_channels "
                             f"({out_channels}) must both be divisible by group ({group})")
        self.has_bias = check_bool(has_bias, "has_bias", owner)
        # NHWC is GPU-only in MindSpore too; graphcell's conv2d computes NCHW.
        self.data_format = check_string(data_format, ("NCHW",), "data_format", owner)
        shape = (self.out_channels, self.in_channels // self.group, *self.kernel_size)
        _check_init_shape(weight_init, shape, "weight_init", owner)
        self.weight_init = HeUniform(math.sqrt(5)) if weight_init is None else weight_init
        self.weight = Parameter(initializer(self.weight_init, shape, dtype), name="weight")
        self.bias_init = bias_init
        self.bias = None
        if self.has_bias:
            _check_init_shape(bias_init, (self.out_channels,), "bias_init", owner)
            if bias_init is None:
                fan_in = shape[1] * shape[2] * shape[3]
                self.bias_init = Uniform(1 / math.sqrt(fan_in))
            self.bias = Parameter(initializer(self.bias_init, (self.out_channels,), dtype),
                                  name="bias")

    def construct(self, x):
        _check_input(self, x)
        out = F.conv2d(x, self.weight, out_channel=self.out_channels,
                         kernel_size=self.kernel_size, pad_mode=self.pad_mode, pad=self.padding,
                         stride=self.stride, dilation=self.dilation, group=self.group)
        if self.has_bias:
            out = ops.bias_add(out, self.bias)
        return out

    def extend_repr(self) -> str:
        return (f"input_channels={self.in_channels}, output_channels={self.out_channels}, "
                f"kernel_size={self.kernel_size}, stride={self.stride}, pad_mode={self.pad_mode}, "
                f"padding={self.padding}, dilation={self.dilation}, group={self.group}, "
                f"has_bias={self.has_bias}, weight_init={self.weight_init}, "
                f"bias_init={self.bias_init}, format={self.data_format}")


def _check_input(conv: Conv2d, x) -> None:
    if not isinstance(x, Tensor) or x.ndim != 4 or x.shape[1] != conv.in_channels:
        raise ValueError(f"{conv.cls_name}: expected a 4-D NCHW input with "
                         f"in_channels={conv.in_channels} channels, got {describe(x)}")
