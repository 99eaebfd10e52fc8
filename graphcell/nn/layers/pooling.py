"""``MaxPool2d`` and ``AvgPool2d`` over NCHW (or unbatched CHW) images.

``pad_mode`` is ``'valid'`` (no padding), ``'same'`` (output ``ceil(in / stride)``; an average
counts only the real pixels) or ``'pad'`` (``padding`` rows/columns on each side). The pad mode
is built from the registry's ``pad`` op and a valid-mode pool: a max pool pads with ``-inf``; an
average pool pads with zeros and divides by the kernel area (``count_include_pad=True``), by the
number of real pixels (``False``) or by ``divisor_override``. Checked against MindSpore 2.10.
"""
from __future__ import annotations

from graphcell import ops
from graphcell.nn.cell import Cell
from graphcell.nn.layers._validate import (_is_int, check_bool, check_string, describe, int_pair)
from graphcell.tensor import Tensor
from graphcell_ir.ops import functional as F

__all__ = ["MaxPool2d", "AvgPool2d"]


def _size(value, name: str, owner: str):
    int_pair(value, name, owner)  # validates; MindSpore keeps (and prints) the value as given
    return value


class _Pool2d(Cell):
    """What both pools share: kernel, stride, pad mode and padding, and the CHW/NCHW handling."""

    def __init__(self, kernel_size, stride, pad_mode, padding, data_format):
        super().__init__()
        owner = self.cls_name
        self.kernel_size = _size(kernel_size, "kernel_size", owner)
        self.stride = _size(stride, "stride", owner)
        self.pad_mode = check_string(pad_mode, ("VALID", "SAME", "PAD"), "pad_mode", owner)
        self.format = check_string(data_format, ("NCHW",), "data_format", owner)
        self.padding = int_pair(padding, "padding", owner, allow_zero=True)
        if self.pad_mode != "PAD" and any(self.padding):
            raise ValueError(f"{owner}: 'padding' must be 0 unless pad_mode is 'pad', got "
                             f"padding {padding!r} with pad_mode {pad_mode!r}")
        self._window = dict(kernel_size=int_pair(kernel_size, "kernel_size", owner),
                            strides=int_pair(stride, "stride", owner))

    def construct(self, x):
        _check_input(self, x)
        unbatched = x.ndim == 3
        if unbatched:
            x = ops.expand_dims(x, 0)
        out = self._pool(x)
        if unbatched:
            out = ops.squeeze(out, 0)
        return out

    def _padded(self, x, value):
        ph, pw = self.padding
        return ops.pad(x, (pw, pw, ph, ph), value=value)  # MindSpore order: last dim first

    def extend_repr(self) -> str:
        return f"kernel_size={self.kernel_size}, stride={self.stride}, pad_mode={self.pad_mode}"


def _check_input(pool: _Pool2d, x) -> None:
    if not isinstance(x, Tensor) or x.ndim not in (3, 4):
        raise ValueError(f"{pool.cls_name}: expected a 4-D NCHW or 3-D CHW input, got "
                         f"{describe(x)}")


def _unsupported(owner: str, **flags) -> None:
    for name, (value, default) in flags.items():
        if value != default:
            raise ValueError(f"{owner}: '{name}'={value!r} is not supported by graphcell yet "
                             f"(only {default!r})")


class MaxPool2d(_Pool2d):
    """``MaxPool2d(kernel_size=1, stride=1, pad_mode='valid', padding=0, dilation=1,
    return_indices=False, ceil_mode=False, data_format='NCHW')``: the maximum of each window.

    The gradient goes to the first maximum of each window, as in MindSpore. ``dilation``,
    ``return_indices`` and ``ceil_mode`` must keep their defaults.

    Example::

        >>> import numpy as np
        >>> import graphcell as ms
        >>> from graphcell import nn
        >>> x = ms.Tensor(np.arange(16, dtype=np.float32).reshape(1, 1, 4, 4))
        >>> nn.MaxPool2d(kernel_size=2, stride=2)(x).asnumpy()
        array([[[[ 5.,  7.],
                 [13., 15.]]]], dtype=float32)
    """

    def __init__(self, kernel_size=1, stride=1, pad_mode="valid", padding=0, dilation=1,
                 return_indices=False, ceil_mode=False, data_format="NCHW"):
        super().__init__(kernel_size, stride, pad_mode, padding, data_format)
        check_bool(return_indices, "return_indices", self.cls_name)
        check_bool(ceil_mode, "ceil_mode", self.cls_name)
        _unsupported(self.cls_name, dilation=(dilation, 1), return_indices=(return_indices, False),
                     ceil_mode=(ceil_mode, False))

    def _pool(self, x):
        if self.pad_mode == "PAD":
            # -inf never wins a window that holds a real pixel, and each window holds one
            return F.max_pool2d(self._padded(x, float("-inf")), pad_mode="valid", **self._window)
        return F.max_pool2d(x, pad_mode=self.pad_mode.lower(), **self._window)


class AvgPool2d(_Pool2d):
    """``AvgPool2d(kernel_size=1, stride=1, pad_mode='valid', padding=0, ceil_mode=False,
    count_include_pad=True, divisor_override=None, data_format='NCHW')``: the mean of each window.

    ``count_include_pad`` and ``divisor_override`` matter in ``'pad'`` mode only; ``ceil_mode``
    must be False.

    Example::

        >>> import numpy as np
        >>> import graphcell as ms
        >>> from graphcell import nn
        >>> x = ms.Tensor(np.arange(16, dtype=np.float32).reshape(1, 1, 4, 4))
        >>> nn.AvgPool2d(kernel_size=2, stride=2)(x).asnumpy()
        array([[[[ 2.5,  4.5],
                 [10.5, 12.5]]]], dtype=float32)
    """

    def __init__(self, kernel_size=1, stride=1, pad_mode="valid", padding=0, ceil_mode=False,
                 count_include_pad=True, divisor_override=None, data_format="NCHW"):
        super().__init__(kernel_size, stride, pad_mode, padding, data_format)
        check_bool(ceil_mode, "ceil_mode", self.cls_name)
        _unsupported(self.cls_name, ceil_mode=(ceil_mode, False))
        self.count_include_pad = check_bool(count_include_pad, "count_include_pad", self.cls_name)
        if divisor_override is not None and not (_is_int(divisor_override)
                                                 and divisor_override > 0):
            raise ValueError(f"{self.cls_name}: 'divisor_override' must be None or a positive int, "
                             f"got {divisor_override!r}")
        self.divisor_override = divisor_override

    def _pool(self, x):
        if self.pad_mode != "PAD":
            return F.avg_pool2d(x, pad_mode=self.pad_mode.lower(), **self._window)
        mean = F.avg_pool2d(self._padded(x, 0), pad_mode="valid", **self._window)
        kh, kw = self._window["kernel_size"]
        if self.divisor_override is not None:
            return mean * (kh * kw / self.divisor_override)
        if self.count_include_pad:
            return mean
        # the share of real pixels in each window: the same pool over a padded mask of ones
        real = F.avg_pool2d(self._padded(ops.ones_like(x), 0), pad_mode="valid", **self._window)
        return mean / real
