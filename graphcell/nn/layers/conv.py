"""Convolutions: ``Conv1d``, ``Conv2d``, ``Conv3d`` and their transposes.

Constructors, defaults, parameter shapes and printed forms are MindSpore 2.10's: ``pad_mode='same'``
(output ``ceil(in / stride)``, odd padding after), ``'valid'`` or ``'pad'`` (``padding`` per side);
no bias by default; ``weight`` of shape ``(out, in / group, *kernel)`` — ``(in, out / group,
*kernel)`` for a transposed convolution — drawn from ``HeUniform(sqrt(5))``; a ``bias`` (when
``has_bias``) from ``Uniform(1 / sqrt(fan_in))``. Depthwise convolutions are ``group=in_channels``.

As in MindSpore, the 1-D convolutions are 2-D ones of height 1 (their ``weight`` is 4-D,
``(out, in / group, 1, k)``, and their sizes print as ``(1, k)``), and a transposed 2-D
convolution's ``output_padding`` appends zero rows and columns after the bias. Each layer calls
the ``ops`` convolutions, whose gradients are the registry's ``conv2d`` rules.
"""
from __future__ import annotations

import math

from graphcell import ops
from graphcell.common.initializer import HeUniform, Uniform, initializer
from graphcell.nn.cell import Cell
from graphcell.nn.layers._validate import (_is_int, check_bool, check_init_shape,
                                           check_positive_int, check_string, describe)
from graphcell.parameter import Parameter
from graphcell.tensor import Tensor
from graphcell_ir.ir.types import float32
from graphcell_ir.ops import functional as F

__all__ = ["Conv1d", "Conv2d", "Conv3d", "Conv1dTranspose", "Conv2dTranspose", "Conv3dTranspose"]


# --- arguments -----------------------------------------------------------------------------------

def _sizes(value, n: int, name: str, owner: str, allow_zero: bool = False) -> tuple[int, ...]:
    """An int or a tuple of ``n`` ints as ``n`` ints (positive, or non-negative)."""
    items = (value,) * n if _is_int(value) else value
    if not (isinstance(items, tuple) and len(items) == n and all(_is_int(v) for v in items)):
        raise TypeError(f"{owner}: '{name}' must be an int or a tuple of {n} ints, got {value!r}")
    if any(v < 0 or (v == 0 and not allow_zero) for v in items):
        kind = "non-negative" if allow_zero else "positive"
        raise ValueError(f"{owner}: '{name}' must hold {kind} ints, got {value!r}")
    return tuple(int(v) for v in items)


def _one_int(value, name: str, owner: str, low: int = 1) -> int:
    """The 1-D layers' sizes: a plain int (MindSpore takes no tuple there)."""
    if not _is_int(value):
        raise TypeError(f"{owner}: '{name}' must be an int, got {type(value).__name__} {value!r}")
    if value < low:
        raise ValueError(f"{owner}: '{name}' must be at least {low}, got {value}")
    return int(value)


def _padding(padding, sides: int, pad_mode: str, owner: str):
    """An int or a tuple of ``sides`` non-negative ints (before/after per axis); 0 unless the
    pad mode is ``'pad'``. Kept as given (MindSpore prints it so)."""
    ok = _is_int(padding) or (isinstance(padding, tuple) and len(padding) == sides
                              and all(_is_int(p) for p in padding))
    if not ok:
        raise TypeError(f"{owner}: 'padding' must be an int or a tuple of {sides} ints, got "
                        f"{padding!r}")
    pads = (padding,) if _is_int(padding) else padding
    if any(p < 0 for p in pads):
        raise ValueError(f"{owner}: 'padding' must be non-negative, got {padding!r}")
    if pad_mode != "pad" and any(pads):
        raise ValueError(f"{owner}: 'padding' must be 0 unless pad_mode is 'pad', got padding "
                         f"{padding!r} with pad_mode {pad_mode!r}")
    return padding


# --- the shared base ------------------------------------------------------------------------------

class _Conv(Cell):
    """Channels, sizes, group, the weight and the optional bias, and the printed form."""

    def __init__(self, in_channels, out_channels, kernel_size, stride, pad_mode, padding,
                 dilation, group, has_bias, weight_init, bias_init, data_format, transposed,
                 dtype):
        super().__init__()
        owner = self.cls_name
        self.in_channels = check_positive_int(in_channels, "in_channels", owner)
        self.out_channels = check_positive_int(out_channels, "out_channels", owner)
        self.kernel_size, self.stride, self.dilation = kernel_size, stride, dilation
        self.pad_mode = pad_mode
        self.padding = padding
        self.group = check_positive_int(group, "group", owner)
        if self.in_channels % self.group or self.out_channels % self.group:
            raise ValueError(f"{owner}: in_channels ({in_channels}) and out_channels "
                             f"({out_channels}) must both be divisible by group ({group})")
        self.has_bias = check_bool(has_bias, "has_bias", owner)
        self.data_format = data_format
        if transposed:
            shape = (self.in_channels, self.out_channels // self.group, *kernel_size)
        else:
            shape = (self.out_channels, self.in_channels // self.group, *kernel_size)
        check_init_shape(weight_init, shape, "weight_init", owner)
        self.weight_init = HeUniform(math.sqrt(5)) if weight_init is None else weight_init
        self.weight = Parameter(initializer(self.weight_init, shape, dtype), name="weight")
        self.bias_init = bias_init
        self.bias = None
        if self.has_bias:
            check_init_shape(bias_init, (self.out_channels,), "bias_init", owner)
            if bias_init is None:
                fan_in = math.prod(shape[1:])
                self.bias_init = Uniform(1 / math.sqrt(fan_in)) if fan_in else "zeros"
            self.bias = Parameter(initializer(self.bias_init, (self.out_channels,), dtype),
                                  name="bias")

    def _with_bias(self, out):
        return ops.bias_add(out, self.bias) if self.has_bias else out

    def _check_input(self, x, rank: int, what: str) -> None:
        if not isinstance(x, Tensor) or x.ndim != rank or x.shape[1] != self.in_channels:
            raise ValueError(f"{self.cls_name}: expected a {rank}-D {what} input with "
                             f"in_channels={self.in_channels} channels, got {describe(x)}")

    def extend_repr(self) -> str:
        return (f"input_channels={self.in_channels}, output_channels={self.out_channels}, "
                f"kernel_size={self.kernel_size}, stride={self.stride}, pad_mode={self.pad_mode}, "
                f"padding={self.padding}, dilation={self.dilation}, group={self.group}, "
                f"has_bias={self.has_bias}, weight_init={self.weight_init}, "
                f"bias_init={self.bias_init}, format={self.data_format}")


def _pad_mode(pad_mode, owner: str) -> str:
    return check_string(pad_mode, ("same", "valid", "pad"), "pad_mode", owner)


def _as_2d(owner: str, kernel_size, stride, pad_mode, padding, dilation) -> tuple:
    """A 1-D convolution's arguments as those of the height-1 2-D convolution it runs:
    ``((1, k), (1, s), pad_mode, padding, (1, d))``, checked as MindSpore checks them."""
    k = _one_int(kernel_size, "kernel_size", owner)
    s = _one_int(stride, "stride", owner)
    p = _one_int(padding, "padding", owner, low=0)
    d = _one_int(dilation, "dilation", owner)
    mode = _pad_mode(pad_mode, owner)
    _padding(p, 4, mode, owner)
    return (1, k), (1, s), mode, p, (1, d)


def _weight_1d(weight_init, owner: str):
    """A 1-D layer's weight given as a 3-D tensor gets the height axis of its 4-D parameter."""
    if isinstance(weight_init, Tensor):
        if weight_init.ndim != 3:
            raise ValueError(f"{owner}: a weight_init tensor must be 3-D, got shape "
                             f"{list(weight_init.shape)}")
        return ops.expand_dims(weight_init, 2)
    return weight_init


# --- convolutions ---------------------------------------------------------------------------------

class Conv2d(_Conv):
    """``Conv2d(in_channels, out_channels, kernel_size, stride=1, pad_mode='same', padding=0,
    dilation=1, group=1, has_bias=False, weight_init=None, bias_init=None, data_format='NCHW',
    dtype=float32)`` over (N, C, H, W) inputs.

    ``kernel_size``, ``stride`` and ``dilation`` are ints or (h, w) pairs; ``padding`` is an int
    or ``(top, bottom, left, right)`` (``pad_mode='pad'`` only).

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
        owner = type(self).__name__
        mode = _pad_mode(pad_mode, owner)
        # NHWC is GPU-only in MindSpore too
        fmt = check_string(data_format, ("NCHW",), "data_format", owner)
        super().__init__(in_channels, out_channels, _sizes(kernel_size, 2, "kernel_size", owner),
                         _sizes(stride, 2, "stride", owner), mode,
                         _padding(padding, 4, mode, owner), _sizes(dilation, 2, "dilation", owner),
                         group, has_bias, weight_init, bias_init, fmt, False, dtype)

    def construct(self, x):
        self._check_input(x, 4, "NCHW")
        out = F.conv2d(x, self.weight, out_channel=self.out_channels,
                       kernel_size=self.kernel_size, pad_mode=self.pad_mode, pad=self.padding,
                       stride=self.stride, dilation=self.dilation, group=self.group)
        return self._with_bias(out)


class Conv1d(_Conv):
    """``Conv1d(in_channels, out_channels, kernel_size, stride=1, pad_mode='same', padding=0,
    dilation=1, group=1, has_bias=False, weight_init=None, bias_init=None, dtype=float32)`` over
    (N, C, L) inputs: a 2-D convolution of height 1 (``weight`` is ``(out, in / group, 1, k)``;
    a 3-D ``weight_init`` tensor is given that axis).

    Example::

        >>> import numpy as np
        >>> import graphcell as ms
        >>> from graphcell import nn
        >>> conv = nn.Conv1d(2, 3, 3, pad_mode='valid')
        >>> conv(ms.Tensor(np.ones((1, 2, 5), np.float32))).shape, conv.weight.shape
        ((1, 3, 3), (3, 2, 1, 3))
    """

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, pad_mode="same",
                 padding=0, dilation=1, group=1, has_bias=False, weight_init=None, bias_init=None,
                 dtype=float32):
        owner = type(self).__name__
        kernel, strides, mode, p, dilations = _as_2d(owner, kernel_size, stride, pad_mode,
                                                     padding, dilation)
        super().__init__(in_channels, out_channels, kernel, strides, mode, p, dilations, group,
                         has_bias, _weight_1d(weight_init, owner), bias_init, "NCHW", False, dtype)
        self.padding = (0, 0, p, p)

    def construct(self, x):
        self._check_input(x, 3, "(N, C, L)")
        out = F.conv2d(ops.expand_dims(x, 2), self.weight, out_channel=self.out_channels,
                       kernel_size=self.kernel_size, pad_mode=self.pad_mode, pad=self.padding,
                       stride=self.stride, dilation=self.dilation, group=self.group)
        return ops.squeeze(self._with_bias(out), 2)


class Conv3d(_Conv):
    """``Conv3d(in_channels, out_channels, kernel_size, stride=1, pad_mode='same', padding=0,
    dilation=1, group=1, has_bias=False, weight_init=None, bias_init=None, data_format='NCDHW',
    dtype=float32)`` over (N, C, D, H, W) inputs; ``padding`` is an int or ``(head, tail, top,
    bottom, left, right)``.

    Example::

        >>> import numpy as np
        >>> import graphcell as ms
        >>> from graphcell import nn
        >>> conv = nn.Conv3d(1, 2, 3, pad_mode='valid')
        >>> conv(ms.Tensor(np.ones((1, 1, 4, 4, 4), np.float32))).shape
        (1, 2, 2, 2, 2)
    """

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, pad_mode="same",
                 padding=0, dilation=1, group=1, has_bias=False, weight_init=None, bias_init=None,
                 data_format="NCDHW", dtype=float32):
        owner = type(self).__name__
        mode = _pad_mode(pad_mode, owner)
        fmt = check_string(data_format, ("NCDHW",), "data_format", owner)
        super().__init__(in_channels, out_channels, _sizes(kernel_size, 3, "kernel_size", owner),
                         _sizes(stride, 3, "stride", owner), mode,
                         _padding(padding, 6, mode, owner), _sizes(dilation, 3, "dilation", owner),
                         group, has_bias, weight_init, bias_init, fmt, False, dtype)
        self._conv = ops.Conv3D(out_channel=self.out_channels, kernel_size=self.kernel_size,
                                pad_mode=self.pad_mode, pad=self.padding, stride=self.stride,
                                dilation=self.dilation, group=self.group)

    def construct(self, x):
        self._check_input(x, 5, "NCDHW")
        return self._with_bias(self._conv(x, self.weight))


# --- transposed convolutions ----------------------------------------------------------------------

def _transposed_length(size: int, k: int, s: int, d: int, pad_mode: str, pad_total: int) -> int:
    """The output length of a transposed convolution (MindSpore's rule per pad mode)."""
    span = d * (k - 1) + 1
    if pad_mode == "valid":
        return size * s + max(span - s, 0)
    if pad_mode == "same":
        return size * s
    return size * s - pad_total + span - s


class Conv2dTranspose(_Conv):
    """``Conv2dTranspose(in_channels, out_channels, kernel_size, stride=1, pad_mode='same',
    padding=0, output_padding=0, dilation=1, group=1, has_bias=False, weight_init=None,
    bias_init=None, dtype=float32)``: the transposed 2-D convolution of an (N, C, H, W) input
    (``weight`` is ``(in, out / group, kh, kw)``). The output is ``H * stride`` high for
    ``'same'``, ``H * stride + max(dilated kernel - stride, 0)`` for ``'valid'`` and
    ``(H - 1) * stride + dilated kernel - top - bottom`` for ``'pad'``, plus ``output_padding``
    zero rows (``'pad'`` mode only).

    Example::

        >>> import numpy as np
        >>> import graphcell as ms
        >>> from graphcell import nn
        >>> up = nn.Conv2dTranspose(2, 1, 2, stride=2)
        >>> up(ms.Tensor(np.ones((1, 2, 3, 3), np.float32))).shape
        (1, 1, 6, 6)
    """

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, pad_mode="same",
                 padding=0, output_padding=0, dilation=1, group=1, has_bias=False,
                 weight_init=None, bias_init=None, dtype=float32):
        owner = type(self).__name__
        mode = _pad_mode(pad_mode, owner)
        super().__init__(in_channels, out_channels, _sizes(kernel_size, 2, "kernel_size", owner),
                         _sizes(stride, 2, "stride", owner), mode,
                         _padding(padding, 4, mode, owner), _sizes(dilation, 2, "dilation", owner),
                         group, has_bias, weight_init, bias_init, "NCHW", True, dtype)
        self.output_padding = output_padding
        self._out_pad = _output_padding(output_padding, 2, self, owner)

    def construct(self, x):
        self._check_input(x, 4, "NCHW")
        pads = (self.padding,) * 4 if _is_int(self.padding) else self.padding
        out = _transposed2d(self, x, self.weight, (pads[0] + pads[1], pads[2] + pads[3]))
        out = self._with_bias(out)
        if any(self._out_pad):
            out = ops.pad(out, (0, self._out_pad[1], 0, self._out_pad[0]))
        return out


class Conv1dTranspose(_Conv):
    """``Conv1dTranspose(in_channels, out_channels, kernel_size, stride=1, pad_mode='same',
    padding=0, dilation=1, group=1, has_bias=False, weight_init=None, bias_init=None,
    dtype=float32)``: the transposed 1-D convolution of an (N, C, L) input, as a 2-D one of
    height 1 (``weight`` is ``(in, out / group, 1, k)``).

    Example::

        >>> import numpy as np
        >>> import graphcell as ms
        >>> from graphcell import nn
        >>> nn.Conv1dTranspose(2, 3, 3, stride=2)(ms.Tensor(np.ones((1, 2, 4), np.float32))).shape
        (1, 3, 8)
    """

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, pad_mode="same",
                 padding=0, dilation=1, group=1, has_bias=False, weight_init=None, bias_init=None,
                 dtype=float32):
        owner = type(self).__name__
        kernel, strides, mode, p, dilations = _as_2d(owner, kernel_size, stride, pad_mode,
                                                     padding, dilation)
        super().__init__(in_channels, out_channels, kernel, strides, mode, p, dilations, group,
                         has_bias, _weight_1d(weight_init, owner), bias_init, "NCHW", True, dtype)
        self.padding = (0, 0, p, p)

    def construct(self, x):
        self._check_input(x, 3, "(N, C, L)")
        out = _transposed2d(self, ops.expand_dims(x, 2), self.weight, (0, 2 * self.padding[2]))
        return ops.squeeze(self._with_bias(out), 2)


def _transposed2d(conv: _Conv, x, weight, pad_totals: tuple[int, int]):
    """``Conv2DTranspose`` (the input gradient of a convolution) to MindSpore's output size;
    ``weight`` is ``conv.weight``, passed in (graph mode hands Parameters to library code as
    arguments)."""
    n, _, h, w = x.shape
    size = tuple(_transposed_length(v, k, s, d, conv.pad_mode, p)
                 for v, k, s, d, p in zip((h, w), conv.kernel_size, conv.stride, conv.dilation,
                                          pad_totals))
    transpose = ops.Conv2DTranspose(out_channel=conv.in_channels, kernel_size=conv.kernel_size,
                                    pad_mode=conv.pad_mode, pad=conv.padding, stride=conv.stride,
                                    dilation=conv.dilation, group=conv.group)
    return transpose(x, weight, (n, conv.out_channels) + size)


def _output_padding(value, n: int, conv: _Conv, owner: str) -> tuple[int, ...]:
    """``output_padding`` per spatial axis: below ``max(stride, dilation)`` and, when not zero,
    only with ``pad_mode='pad'`` (MindSpore checks this when the layer runs; graphcell at once)."""
    pads = _sizes(value, n, "output_padding", owner, allow_zero=True)
    for p, s, d in zip(pads, conv.stride[-n:], conv.dilation[-n:]):
        if p >= max(s, d):
            raise ValueError(f"{owner}: 'output_padding' must be in [0, max(stride, dilation)), "
                             f"got {value!r} with stride {conv.stride} and dilation "
                             f"{conv.dilation}")
    if any(pads) and conv.pad_mode != "pad":
        raise ValueError(f"{owner}: a non-zero 'output_padding' needs pad_mode 'pad', got "
                         f"{conv.pad_mode!r}")
    return pads


class Conv3dTranspose(_Conv):
    """``Conv3dTranspose(in_channels, out_channels, kernel_size, stride=1, pad_mode='same',
    padding=0, dilation=1, group=1, output_padding=0, has_bias=False, weight_init=None,
    bias_init=None, data_format='NCDHW', dtype=float32)``: the transposed 3-D convolution of an
    (N, C, D, H, W) input (``weight`` is ``(in, out / group, kd, kh, kw)``; ``output_padding``
    extends the output, which the convolution fills).

    Example::

        >>> import numpy as np
        >>> import graphcell as ms
        >>> from graphcell import nn
        >>> up = nn.Conv3dTranspose(2, 1, 2, stride=2)
        >>> up(ms.Tensor(np.ones((1, 2, 2, 2, 2), np.float32))).shape
        (1, 1, 4, 4, 4)
    """

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, pad_mode="same",
                 padding=0, dilation=1, group=1, output_padding=0, has_bias=False,
                 weight_init=None, bias_init=None, data_format="NCDHW", dtype=float32):
        owner = type(self).__name__
        mode = _pad_mode(pad_mode, owner)
        fmt = check_string(data_format, ("NCDHW",), "data_format", owner)
        super().__init__(in_channels, out_channels, _sizes(kernel_size, 3, "kernel_size", owner),
                         _sizes(stride, 3, "stride", owner), mode,
                         _padding(padding, 6, mode, owner), _sizes(dilation, 3, "dilation", owner),
                         group, has_bias, weight_init, bias_init, fmt, True, dtype)
        self.output_padding = _sizes(output_padding, 3, "output_padding", owner, allow_zero=True)
        self._transpose = ops.Conv3DTranspose(
            in_channel=self.in_channels, out_channel=self.out_channels,
            kernel_size=self.kernel_size, pad_mode=self.pad_mode, pad=self.padding,
            stride=self.stride, dilation=self.dilation, group=self.group,
            output_padding=self.output_padding)

    def construct(self, x):
        self._check_input(x, 5, "NCDHW")
        return self._with_bias(self._transpose(x, self.weight))
