"""Pools whose windows are not a fixed grid — the adaptive pools (``AdaptiveAvgPool1d/2d/3d``,
``AdaptiveMaxPool1d/2d/3d``) and the fractional max pools — and the unpools
(``MaxUnpool1d/2d/3d``), with MindSpore 2.10's constructors and checks.
"""
from __future__ import annotations

from graphcell import ops
from graphcell.nn.cell import Cell
from graphcell.nn.layers._validate import _is_int, describe
from graphcell.tensor import Tensor
from graphcell_ir.ir.types import float16, float32, int32

__all__ = ["AdaptiveAvgPool1d", "AdaptiveAvgPool2d", "AdaptiveAvgPool3d", "AdaptiveMaxPool1d",
           "AdaptiveMaxPool2d", "AdaptiveMaxPool3d", "FractionalMaxPool2d", "FractionalMaxPool3d",
           "MaxUnpool1d", "MaxUnpool2d", "MaxUnpool3d"]


# --- adaptive pools ------------------------------------------------------------------------------

def _check_adaptive_1d(x, output_size: int, owner: str) -> None:
    """MindSpore's 1-D adaptive pools: a 3-D Float16/Float32 input whose length is a multiple of
    ``output_size``."""
    if not isinstance(x, Tensor) or x.ndim != 3:
        raise ValueError(f"{owner}: expected a 3-D (N, C, L) input, got {describe(x)}")
    width = x.shape[2]
    if width < output_size or width % output_size:
        raise ValueError(f"{owner}: the input's length {width} must be a multiple of "
                         f"output_size {output_size}")
    if x.dtype not in (float16, float32):
        raise TypeError(f"{owner}: the input must be Float16 or Float32, got {x.dtype}")


def _output_size_1d(output_size, owner: str) -> int:
    if not _is_int(output_size):
        raise TypeError(f"{owner}: 'output_size' must be an int, got {output_size!r}")
    if output_size < 1:
        raise ValueError(f"{owner}: 'output_size' must be at least 1, got {output_size}")
    return output_size


class AdaptiveAvgPool1d(Cell):
    """``AdaptiveAvgPool1d(output_size)``: the mean of each of ``output_size`` equal bins of an
    (N, C, L) input (L a multiple of ``output_size``).

    Example::

        >>> import graphcell as ms
        >>> from graphcell import nn
        >>> nn.AdaptiveAvgPool1d(2)(ms.Tensor([[[1.0, 3.0, 2.0, 0.0]]])).asnumpy()
        array([[[2., 1.]]], dtype=float32)
    """

    def __init__(self, output_size):
        super().__init__()
        self.output_size = _output_size_1d(output_size, self.cls_name)

    def construct(self, input):  # noqa: A002
        _check_adaptive_1d(input, self.output_size, self.cls_name)
        return ops.adaptive_avg_pool1d(input, self.output_size)


class AdaptiveMaxPool1d(AdaptiveAvgPool1d):
    """``AdaptiveMaxPool1d(output_size)``: the maximum of each of ``output_size`` equal bins of an
    (N, C, L) input (L a multiple of ``output_size``).

    Example::

        >>> import graphcell as ms
        >>> from graphcell import nn
        >>> nn.AdaptiveMaxPool1d(2)(ms.Tensor([[[1.0, 3.0, 2.0, 0.0]]])).asnumpy()
        array([[[3., 2.]]], dtype=float32)
    """

    def construct(self, x):
        _check_adaptive_1d(x, self.output_size, self.cls_name)
        return ops.adaptive_max_pool1d(x, self.output_size)


class AdaptiveAvgPool2d(Cell):
    """``AdaptiveAvgPool2d(output_size)``: adaptive average pooling of an (N, C, H, W) or
    (C, H, W) input to ``output_size`` (an int, or (h, w) with None keeping an axis).

    Example::

        >>> import numpy as np
        >>> import graphcell as ms
        >>> from graphcell import nn
        >>> nn.AdaptiveAvgPool2d((1, 2))(ms.Tensor(np.ones((1, 3, 4, 4), np.float32))).shape
        (1, 3, 1, 2)
    """

    def __init__(self, output_size):
        super().__init__()
        self.output_size = output_size
        self._pool = ops.AdaptiveAvgPool2D(output_size)

    def construct(self, input):  # noqa: A002
        return self._pool(input)


class AdaptiveAvgPool3d(Cell):
    """``AdaptiveAvgPool3d(output_size)``: adaptive average pooling of an (N, C, D, H, W) or
    (C, D, H, W) input.

    Example::

        >>> import numpy as np
        >>> import graphcell as ms
        >>> from graphcell import nn
        >>> nn.AdaptiveAvgPool3d(1)(ms.Tensor(np.ones((1, 2, 3, 4, 4), np.float32))).shape
        (1, 2, 1, 1, 1)
    """

    def __init__(self, output_size):
        super().__init__()
        self.output_size = output_size
        self._pool = ops.AdaptiveAvgPool3D(output_size)

    def construct(self, input):  # noqa: A002
        return self._pool(input)


class AdaptiveMaxPool2d(Cell):
    """``AdaptiveMaxPool2d(output_size, return_indices=False)``: the maximum of each adaptive bin
    of an (N, C, H, W) or (C, H, W) input; with ``return_indices`` also each maximum's Int64
    position within its channel.

    Example::

        >>> import numpy as np
        >>> import graphcell as ms
        >>> from graphcell import nn
        >>> nn.AdaptiveMaxPool2d(2)(ms.Tensor(np.ones((1, 3, 5, 5), np.float32))).shape
        (1, 3, 2, 2)
    """

    def __init__(self, output_size, return_indices=False):
        super().__init__()
        self.output_size = output_size
        self.return_indices = return_indices

    def construct(self, input):  # noqa: A002
        return ops.adaptive_max_pool2d(input, self.output_size, self.return_indices)


class AdaptiveMaxPool3d(Cell):
    """``AdaptiveMaxPool3d(output_size, return_indices=False)``: the maximum of each adaptive bin
    of an (N, C, D, H, W) or (C, D, H, W) input; with ``return_indices`` also each maximum's
    Int32 position within its channel (MindSpore's ``AdaptiveMaxPool3D``).

    Example::

        >>> import numpy as np
        >>> import graphcell as ms
        >>> from graphcell import nn
        >>> nn.AdaptiveMaxPool3d(1)(ms.Tensor(np.ones((1, 2, 3, 4, 4), np.float32))).shape
        (1, 2, 1, 1, 1)
    """

    def __init__(self, output_size, return_indices=False):
        super().__init__()
        if _is_int(output_size):
            output_size = (output_size,) * 3
        self.output_size = tuple(output_size)
        self.return_indices = return_indices

    def construct(self, input):  # noqa: A002
        out, argmax = ops.adaptive_max_pool3d(input, self.output_size, True)
        return (out, ops.cast(argmax, int32)) if self.return_indices else out


# --- fractional max pools -------------------------------------------------------------------------

class FractionalMaxPool2d(Cell):
    """``FractionalMaxPool2d(kernel_size, output_size=None, output_ratio=None,
    return_indices=False, _random_samples=None)``: max pooling over windows at pseudo-random
    positions of an (N, C, H, W) or (C, H, W) input, to ``output_size`` or ``output_ratio`` of
    the input (``ops.fractional_max_pool2d``; fresh positions at every call unless
    ``_random_samples`` fixes them).

    Example::

        >>> import numpy as np
        >>> import graphcell as ms
        >>> from graphcell import nn
        >>> pool = nn.FractionalMaxPool2d(2, output_size=(3, 3))
        >>> pool(ms.Tensor(np.ones((1, 2, 7, 7), np.float32))).shape
        (1, 2, 3, 3)
    """

    _pool = staticmethod(ops.fractional_max_pool2d)

    def __init__(self, kernel_size, output_size=None, output_ratio=None, return_indices=False,
                 _random_samples=None):
        super().__init__()
        self.kernel_size = kernel_size
        self.output_size = output_size
        self.output_ratio = output_ratio
        self.return_indices = return_indices
        self._random_samples = _random_samples

    def construct(self, input):  # noqa: A002
        return self._pool(input, self.kernel_size, self.output_size, self.output_ratio,
                          self.return_indices, self._random_samples)


class FractionalMaxPool3d(FractionalMaxPool2d):
    """``FractionalMaxPool3d(kernel_size, output_size=None, output_ratio=None,
    return_indices=False, _random_samples=None)``: the 3-D fractional max pool of an
    (N, C, D, H, W) or (C, D, H, W) input (``ops.fractional_max_pool3d``).

    Example::

        >>> import numpy as np
        >>> import graphcell as ms
        >>> from graphcell import nn
        >>> pool = nn.FractionalMaxPool3d(2, output_ratio=0.5)
        >>> pool(ms.Tensor(np.ones((1, 1, 6, 6, 6), np.float32))).shape
        (1, 1, 3, 3, 3)
    """

    _pool = staticmethod(ops.fractional_max_pool3d)


# --- unpooling -----------------------------------------------------------------------------------

class _MaxUnpool(Cell):
    """``construct(x, indices, output_size=None)``: ``x`` written at ``indices`` (positions
    within each channel, as the max pools return them) of a zero tensor of the pooled input's
    size (or ``output_size``, a non-empty tuple)."""

    def __init__(self, kernel_size, stride=None, padding=0):
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = kernel_size if stride is None else stride
        self.padding = padding

    def construct(self, x, indices, output_size=None):
        if output_size is not None:
            if not isinstance(output_size, tuple):
                raise ValueError(f"{self.cls_name}: 'output_size' must be a tuple, got "
                                 f"{type(output_size).__name__}")
            if not output_size:
                raise ValueError(f"{self.cls_name}: 'output_size' must not be empty")
        return self._unpool(x, indices, self.kernel_size, self.stride, self.padding,
                            output_size)


class MaxUnpool1d(_MaxUnpool):
    """``MaxUnpool1d(kernel_size, stride=None, padding=0)``: the inverse of ``MaxPool1d``.

    Example::

        >>> import graphcell as ms
        >>> from graphcell import nn
        >>> x, i = ms.Tensor([[[3.0, 2.0]]]), ms.Tensor([[[1, 2]]], ms.int64)
        >>> nn.MaxUnpool1d(2)(x, i).asnumpy()
        array([[[0., 3., 2., 0.]]], dtype=float32)
    """

    _unpool = staticmethod(ops.max_unpool1d)


class MaxUnpool2d(_MaxUnpool):
    """``MaxUnpool2d(kernel_size, stride=None, padding=0)``: the inverse of ``MaxPool2d``.

    Example::

        >>> import graphcell as ms
        >>> from graphcell import nn
        >>> x, i = ms.Tensor([[[[5.0]]]]), ms.Tensor([[[[3]]]], ms.int64)
        >>> nn.MaxUnpool2d(2)(x, i).asnumpy().ravel()
        array([0., 0., 0., 5.], dtype=float32)
    """

    _unpool = staticmethod(ops.max_unpool2d)


class MaxUnpool3d(_MaxUnpool):
    """``MaxUnpool3d(kernel_size, stride=None, padding=0)``: the inverse of ``MaxPool3d``.

    Example::

        >>> import graphcell as ms
        >>> from graphcell import nn
        >>> x, i = ms.Tensor([[[[[5.0]]]]]), ms.Tensor([[[[[7]]]]], ms.int64)
        >>> nn.MaxUnpool3d(2)(x, i).asnumpy().ravel()
        array([0., 0., 0., 0., 0., 0., 0., 5.], dtype=float32)
    """

    _unpool = staticmethod(ops.max_unpool3d)
