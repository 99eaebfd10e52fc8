"""Pooling layers over a fixed grid of windows: max, average and Lp pools in 1-D, 2-D and 3-D,
and the PyTorch-style ``*Ext`` pools (the adaptive and fractional pools and the unpools are in
``adaptive_pool``).

Constructors, checks and printed forms are MindSpore 2.10's. ``pad_mode`` is ``'valid'`` (no
padding), ``'same'`` (output ``ceil(in / stride)``) or ``'pad'`` (``padding`` per side; then also
``dilation``, ``ceil_mode`` and, for max pools, ``return_indices``, which other modes refuse). As
in MindSpore, a 2-D pool in ``'pad'`` mode (or an average pool with any of those options) is the
3-D pool of a depth-1 input, a 1-D pool the 2-D (or 3-D) pool of a height-1 input; the argmax a
max pool returns counts positions within each channel. Unbatched inputs (no N axis) are accepted
where MindSpore accepts them. Each layer calls ``ops`` pools, whose gradients send a max pool's
gradient to the first maximum of each window.
"""
from __future__ import annotations

from graphcell import ops
from graphcell.nn.cell import Cell
from graphcell.nn.layers._validate import _is_int, check_bool, describe
from graphcell.tensor import Tensor

__all__ = ["MaxPool1d", "MaxPool2d", "MaxPool3d", "AvgPool1d", "AvgPool2d", "AvgPool3d",
           "LPPool1d", "LPPool2d", "MaxPool2dExt", "AvgPool1dExt", "AvgPool2dExt", "AvgPool3dExt"]


# --- arguments -----------------------------------------------------------------------------------

def _int_or_tuple(value, name: str, owner: str):
    """A positive int or a tuple of them, as given (a 1-tuple becomes its int, as MindSpore's)."""
    if isinstance(value, bool) or not (_is_int(value) or isinstance(value, tuple)):
        raise TypeError(f"{owner}: '{name}' must be an int or a tuple of ints, got "
                        f"{type(value).__name__} {value!r}")
    items = (value,) if _is_int(value) else value
    if not items or not all(_is_int(v) and v > 0 for v in items):
        raise ValueError(f"{owner}: '{name}' must be a positive int or a tuple of them, got "
                         f"{value!r}")
    return value[0] if isinstance(value, tuple) and len(value) == 1 else value


def _lifted(value, n: int, name: str, owner: str) -> tuple:
    """An int or an ``n``-tuple, as the (1, ..., size) tuple of the pool it is lifted into."""
    if _is_int(value):
        return (1,) + (value,) * n
    if len(value) != n:
        raise ValueError(f"{owner}: the length of '{name}' must be {n}, got {len(value)}")
    return (1,) + tuple(value)


def _max_pads(padding, nd: int, owner: str) -> tuple[int, int, int]:
    """A max pool's padding as 3 ints (depth, height, width), zeros for the added axes."""
    if _is_int(padding):
        pads = (padding,) * nd
    elif isinstance(padding, (tuple, list)) and all(_is_int(p) for p in padding) and \
            len(padding) in (1, nd):
        pads = tuple(padding) * (nd if len(padding) == 1 else 1)
    else:
        raise ValueError(f"{owner}: 'padding' must be an int or {nd} ints, got {padding!r}")
    if any(p < 0 for p in pads):
        raise ValueError(f"{owner}: 'padding' must be non-negative, got {padding!r}")
    return (0,) * (3 - nd) + pads


def _max_dilation(dilation, nd: int, owner: str):
    if _is_int(dilation):
        return dilation
    if isinstance(dilation, tuple) and len(dilation) == 1:
        return dilation[0]
    if isinstance(dilation, tuple) and len(dilation) == nd:
        return (1,) * (3 - nd) + dilation
    raise ValueError(f"{owner}: 'dilation' must be an int or a tuple of 1 or {nd} ints, got "
                     f"{dilation!r}")


def _avg_pads(padding, nd: int, owner: str) -> tuple[int, ...]:
    """An average pool's padding as the 6 (before, after) ints of a 3-D pool."""
    if _is_int(padding):
        pads = (padding,) * nd
    elif isinstance(padding, (tuple, list)) and all(_is_int(p) for p in padding) and \
            len(padding) in (1, nd):
        pads = tuple(padding) * (nd if len(padding) == 1 else 1)
    else:
        sizes = "1" if nd == 1 else f"1 or {nd}"
        raise ValueError(f"{owner}: 'padding' must be an int or {sizes} ints, got {padding!r}")
    if any(p < 0 for p in pads):
        raise ValueError(f"{owner}: 'padding' must be non-negative, got {padding!r}")
    return (0, 0) * (3 - nd) + tuple(p for p in pads for _ in (0, 1))


def _divisor(divisor_override, owner: str) -> int:
    if divisor_override is None:
        return 0
    if not _is_int(divisor_override) or divisor_override <= 0:
        raise ValueError(f"{owner}: 'divisor_override' must be a positive int, got "
                         f"{divisor_override!r}")
    return divisor_override


def _batched(x, rank: int, owner: str):
    """``(x as a batch, whether an axis was added)`` for inputs of ``rank`` or ``rank - 1`` dims."""
    if not isinstance(x, Tensor) or x.ndim not in (rank - 1, rank):
        raise ValueError(f"{owner}: expected a {rank}-D input (or {rank - 1}-D without the batch "
                         f"axis), got {describe(x)}")
    return (ops.expand_dims(x, 0), True) if x.ndim == rank - 1 else (x, False)


def _squeeze_all(out, axes: tuple[int, ...]):
    """``out`` (a tensor or an (output, argmax) pair) with ``axes`` squeezed, last first."""
    if isinstance(out, tuple):
        return tuple(_squeeze_all(o, axes) for o in out)
    for a in sorted(axes, reverse=True):
        out = ops.squeeze(out, a)
    return out


class _PoolNd(Cell):
    """Kernel, stride and pad mode (MindSpore's checks), and the printed form."""

    def __init__(self, kernel_size, stride, pad_mode, data_format="NCHW"):
        super().__init__()
        owner = self.cls_name
        if not isinstance(pad_mode, str):
            raise TypeError(f"{owner}: 'pad_mode' must be a str, got {type(pad_mode).__name__}")
        if pad_mode.upper() not in ("VALID", "SAME", "PAD"):
            raise ValueError(f"{owner}: 'pad_mode' must be 'valid', 'same' or 'pad', got "
                             f"{pad_mode!r}")
        self.pad_mode = pad_mode.upper()
        if data_format != "NCHW":  # NHWC is GPU-only in MindSpore
            raise ValueError(f"{owner}: 'data_format' must be 'NCHW', got {data_format!r}")
        self.format = data_format
        self.kernel_size = _int_or_tuple(kernel_size, "kernel_size", owner)
        self.stride = _int_or_tuple(stride, "stride", owner)

    def _defaults_only(self, **options) -> None:
        """Options that only ``pad_mode='pad'`` takes must keep their defaults otherwise."""
        changed = [name for name, (value, default) in options.items() if value != default]
        if changed:
            raise ValueError(f"{self.cls_name}: {', '.join(changed)} can only be set with "
                             f"pad_mode 'pad', got pad_mode {self.pad_mode.lower()!r}")

    def extend_repr(self) -> str:
        return f"kernel_size={self.kernel_size}, stride={self.stride}, pad_mode={self.pad_mode}"


# --- max pools -----------------------------------------------------------------------------------

class MaxPool2d(_PoolNd):
    """``MaxPool2d(kernel_size=1, stride=1, pad_mode='valid', padding=0, dilation=1,
    return_indices=False, ceil_mode=False, data_format='NCHW')``: the maximum of each window of
    an (N, C, H, W) or (C, H, W) input; with ``return_indices`` (``'pad'`` mode), also each
    maximum's Int64 position within its channel's H * W elements.

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
        super().__init__(kernel_size, stride, pad_mode, data_format)
        owner = self.cls_name
        self.return_indices = check_bool(return_indices, "return_indices", owner)
        check_bool(ceil_mode, "ceil_mode", owner)
        self.use_pad = self.pad_mode == "PAD"
        if self.use_pad:
            self.padding = _max_pads(padding, 2, owner)
            self._pool = ops.MaxPool3DWithArgmax(
                ksize=_lifted(self.kernel_size, 2, "kernel_size", owner),
                strides=_lifted(self.stride, 2, "stride", owner), pads=self.padding,
                dilation=_max_dilation(dilation, 2, owner), ceil_mode=ceil_mode)
        else:
            self._defaults_only(padding=(padding, 0), dilation=(dilation, 1),
                                return_indices=(return_indices, False),
                                ceil_mode=(ceil_mode, False))
            self._pool = ops.MaxPool(kernel_size=self.kernel_size, strides=self.stride,
                                     pad_mode=self.pad_mode)

    def construct(self, x):
        x, added = _batched(x, 4, self.cls_name)
        if self.use_pad:
            out = _squeeze_all(self._pool(ops.expand_dims(x, 2)), (2,))
            out = out if self.return_indices else out[0]
        else:
            out = self._pool(x)
        return _squeeze_all(out, (0,)) if added else out


class MaxPool1d(_PoolNd):
    """``MaxPool1d(kernel_size=1, stride=1, pad_mode='valid', padding=0, dilation=1,
    return_indices=False, ceil_mode=False)``: the maximum of each window of an (N, C, L) or
    (C, L) input (``kernel_size`` and ``stride`` are ints).

    Example::

        >>> import graphcell as ms
        >>> from graphcell import nn
        >>> nn.MaxPool1d(2, 2)(ms.Tensor([[[1.0, 3.0, 2.0, 0.0]]])).asnumpy()
        array([[[3., 2.]]], dtype=float32)
    """

    def __init__(self, kernel_size=1, stride=1, pad_mode="valid", padding=0, dilation=1,
                 return_indices=False, ceil_mode=False):
        super().__init__(kernel_size, stride, pad_mode)
        owner = self.cls_name
        for name, value in (("kernel_size", kernel_size), ("stride", stride)):
            if not _is_int(value):
                raise TypeError(f"{owner}: '{name}' must be an int, got {value!r}")
        self.return_indices = check_bool(return_indices, "return_indices", owner)
        check_bool(ceil_mode, "ceil_mode", owner)
        self.use_pad = self.pad_mode == "PAD"
        if self.use_pad:
            self.kernel_size, self.stride = (1, 1, kernel_size), (1, 1, stride)
            self.padding = _max_pads(padding, 1, owner)
            self._pool = ops.MaxPool3DWithArgmax(
                ksize=self.kernel_size, strides=self.stride, pads=self.padding,
                dilation=_max_dilation(dilation, 1, owner), ceil_mode=ceil_mode)
        else:
            self._defaults_only(padding=(padding, 0), dilation=(dilation, 1),
                                return_indices=(return_indices, False),
                                ceil_mode=(ceil_mode, False))
            self.kernel_size, self.stride = (1, kernel_size), (1, stride)
            self._pool = ops.MaxPool(kernel_size=self.kernel_size, strides=self.stride,
                                     pad_mode=self.pad_mode)

    def construct(self, x):
        x, added = _batched(x, 3, self.cls_name)
        if self.use_pad:
            out = _squeeze_all(self._pool(ops.expand_dims(ops.expand_dims(x, 2), 3)), (2, 3))
            out = out if self.return_indices else out[0]
        else:
            out = ops.squeeze(self._pool(ops.expand_dims(x, 2)), 2)
        return _squeeze_all(out, (0,)) if added else out


class MaxPool3d(_PoolNd):
    """``MaxPool3d(kernel_size=1, stride=1, pad_mode='valid', padding=0, dilation=1,
    return_indices=False, ceil_mode=False)``: the maximum of each window of an (N, C, D, H, W)
    or (C, D, H, W) input; ``dilation`` and ``return_indices`` need ``pad_mode='pad'``.

    Example::

        >>> import numpy as np
        >>> import graphcell as ms
        >>> from graphcell import nn
        >>> nn.MaxPool3d(2, 2)(ms.Tensor(np.ones((1, 1, 4, 4, 4), np.float32))).shape
        (1, 1, 2, 2, 2)
    """

    def __init__(self, kernel_size=1, stride=1, pad_mode="valid", padding=0, dilation=1,
                 return_indices=False, ceil_mode=False):
        super().__init__(kernel_size, stride, pad_mode)
        owner = self.cls_name
        self.return_indices = check_bool(return_indices, "return_indices", owner)
        check_bool(ceil_mode, "ceil_mode", owner)
        pads = _max_pads(padding, 3, owner)
        self.only_pad = dilation != 1 or return_indices
        if self.only_pad:
            if self.pad_mode != "PAD":
                raise ValueError(f"{owner}: pad_mode must be 'pad' when dilation is not 1 or "
                                 f"return_indices is True, got {pad_mode!r}")
            self._pool = ops.MaxPool3DWithArgmax(ksize=kernel_size, strides=stride, pads=pads,
                                                 dilation=dilation, ceil_mode=ceil_mode)
        else:
            self._pool = ops.MaxPool3D(kernel_size=kernel_size, strides=stride,
                                       pad_mode=self.pad_mode,
                                       pad_list=tuple(p for p in pads for _ in (0, 1)),
                                       ceil_mode=True if ceil_mode else None)

    def construct(self, x):
        x, added = _batched(x, 5, self.cls_name)
        out = self._pool(x)
        if self.only_pad and not self.return_indices:
            out = out[0]
        return _squeeze_all(out, (0,)) if added else out


class MaxPool2dExt(Cell):
    """``MaxPool2dExt(kernel_size=1, stride=None, padding=0, dilation=1, return_indices=False,
    ceil_mode=False)``: PyTorch's ``MaxPool2d`` (``stride`` defaults to ``kernel_size``).

    Example::

        >>> import numpy as np
        >>> import graphcell as ms
        >>> from graphcell import nn
        >>> nn.MaxPool2dExt(2)(ms.Tensor(np.ones((1, 1, 4, 4), np.float32))).shape
        (1, 1, 2, 2)
    """

    def __init__(self, kernel_size=1, stride=None, padding=0, dilation=1, return_indices=False,
                 ceil_mode=False):
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = kernel_size if stride is None else stride
        self.padding = padding
        self.dilation = dilation
        self.return_indices = return_indices
        self.ceil_mode = ceil_mode

    def construct(self, input):  # noqa: A002
        return ops.max_pool2d(input, self.kernel_size, self.stride, self.padding, self.dilation,
                              self.return_indices, self.ceil_mode)


# --- average pools -------------------------------------------------------------------------------

class AvgPool2d(_PoolNd):
    """``AvgPool2d(kernel_size=1, stride=1, pad_mode='valid', padding=0, ceil_mode=False,
    count_include_pad=True, divisor_override=None, data_format='NCHW')``: the mean of each window
    of an (N, C, H, W) or (C, H, W) input. ``padding``, ``ceil_mode``, ``count_include_pad`` and
    ``divisor_override`` select the 3-D average pool of a depth-1 input, as in MindSpore.

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
        super().__init__(kernel_size, stride, pad_mode, data_format)
        owner = self.cls_name
        self.is_expand = (self.pad_mode == "PAD" or padding != 0 or ceil_mode
                          or not count_include_pad or divisor_override is not None)
        if self.is_expand:
            self._pool = ops.AvgPool3D(
                kernel_size=_lifted(self.kernel_size, 2, "kernel_size", owner),
                strides=_lifted(self.stride, 2, "stride", owner), pad_mode=self.pad_mode,
                pad=_avg_pads(padding, 2, owner), ceil_mode=check_bool(ceil_mode, "ceil_mode",
                                                                       owner),
                count_include_pad=check_bool(count_include_pad, "count_include_pad", owner),
                divisor_override=_divisor(divisor_override, owner))
        else:
            self._pool = ops.AvgPool(kernel_size=self.kernel_size, strides=self.stride,
                                     pad_mode=self.pad_mode)

    def construct(self, x):
        x, added = _batched(x, 4, self.cls_name)
        out = ops.squeeze(self._pool(ops.expand_dims(x, 2)), 2) if self.is_expand \
            else self._pool(x)
        return ops.squeeze(out, 0) if added else out


class AvgPool1d(_PoolNd):
    """``AvgPool1d(kernel_size=1, stride=1, pad_mode='valid', padding=0, ceil_mode=False,
    count_include_pad=True)``: the mean of each window of an (N, C, L) or (C, L) input.

    As MindSpore's: without padding options, a window as long as the input averages all of it,
    and an input shorter than ``kernel_size + stride`` averages its first ``kernel_size``
    elements, whatever the pad mode.

    Example::

        >>> import graphcell as ms
        >>> from graphcell import nn
        >>> nn.AvgPool1d(2, 2)(ms.Tensor([[[1.0, 3.0, 2.0, 0.0]]])).asnumpy()
        array([[[2., 1.]]], dtype=float32)
    """

    def __init__(self, kernel_size=1, stride=1, pad_mode="valid", padding=0, ceil_mode=False,
                 count_include_pad=True):
        super().__init__(kernel_size, stride, pad_mode)
        owner = self.cls_name
        for name, value in (("kernel_size", self.kernel_size), ("stride", self.stride)):
            if not _is_int(value):
                raise TypeError(f"{owner}: '{name}' must be an int, got {value!r}")
        self.is_expand_3d = (self.pad_mode == "PAD" or padding != 0 or ceil_mode
                             or not count_include_pad)
        if self.is_expand_3d:
            self._pool = ops.AvgPool3D(
                kernel_size=(1, 1, self.kernel_size), strides=(1, 1, self.stride),
                pad_mode=self.pad_mode, pad=_avg_pads(padding, 1, owner),
                ceil_mode=check_bool(ceil_mode, "ceil_mode", owner),
                count_include_pad=check_bool(count_include_pad, "count_include_pad", owner))
        else:
            self.kernel_size, self.stride = (1, self.kernel_size), (1, self.stride)
            self._pool = ops.AvgPool(kernel_size=self.kernel_size, strides=self.stride,
                                     pad_mode=self.pad_mode)

    def construct(self, x):
        x, added = _batched(x, 3, self.cls_name)
        if self.is_expand_3d:
            x = _squeeze_all(self._pool(ops.expand_dims(ops.expand_dims(x, 2), 3)), (2, 3))
        else:
            width, k, s = x.shape[2], self.kernel_size[1], self.stride[1]
            if width == k:
                x = ops.mean(x, 2, keep_dims=True)
            elif width - k < s:
                x = ops.mean(x[:, :, :k], 2, keep_dims=True)
            else:
                x = ops.squeeze(self._pool(ops.expand_dims(x, 2)), 2)
        return ops.squeeze(x, 0) if added else x


class AvgPool3d(_PoolNd):
    """``AvgPool3d(kernel_size=1, stride=1, pad_mode='valid', padding=0, ceil_mode=False,
    count_include_pad=True, divisor_override=None)``: the mean of each window of an
    (N, C, D, H, W) or (C, D, H, W) input.

    Example::

        >>> import numpy as np
        >>> import graphcell as ms
        >>> from graphcell import nn
        >>> nn.AvgPool3d(2, 2)(ms.Tensor(np.ones((1, 1, 4, 4, 4), np.float32))).shape
        (1, 1, 2, 2, 2)
    """

    def __init__(self, kernel_size=1, stride=1, pad_mode="valid", padding=0, ceil_mode=False,
                 count_include_pad=True, divisor_override=None):
        super().__init__(kernel_size, stride, pad_mode)
        owner = self.cls_name
        self._pool = ops.AvgPool3D(
            kernel_size=self.kernel_size, strides=self.stride, pad_mode=self.pad_mode,
            pad=_avg_pads(padding, 3, owner), ceil_mode=check_bool(ceil_mode, "ceil_mode", owner),
            count_include_pad=check_bool(count_include_pad, "count_include_pad", owner),
            divisor_override=_divisor(divisor_override, owner))

    def construct(self, x):
        x, added = _batched(x, 5, self.cls_name)
        out = self._pool(x)
        return ops.squeeze(out, 0) if added else out


class _AvgPoolExt(Cell):
    """PyTorch's average pools (``stride`` defaults to ``kernel_size``)."""

    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode=False,
                 count_include_pad=True, divisor_override=None):
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = kernel_size if stride is None else stride
        self.padding = padding
        self.ceil_mode = ceil_mode
        self.count_include_pad = count_include_pad
        self.divisor_override = divisor_override


class AvgPool1dExt(_AvgPoolExt):
    """``AvgPool1dExt(kernel_size, stride=None, padding=0, ceil_mode=False,
    count_include_pad=True)``: PyTorch's ``AvgPool1d``.

    Example::

        >>> import graphcell as ms
        >>> from graphcell import nn
        >>> nn.AvgPool1dExt(2)(ms.Tensor([[[1.0, 3.0, 2.0, 0.0]]])).asnumpy()
        array([[[2., 1.]]], dtype=float32)
    """

    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode=False,
                 count_include_pad=True):
        super().__init__(kernel_size, stride, padding, ceil_mode, count_include_pad)

    def construct(self, input):  # noqa: A002
        return ops.avg_pool1d(input, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                              self.count_include_pad)


class AvgPool2dExt(_AvgPoolExt):
    """``AvgPool2dExt(kernel_size, stride=None, padding=0, ceil_mode=False,
    count_include_pad=True, divisor_override=None)``: PyTorch's ``AvgPool2d``.

    Example::

        >>> import numpy as np
        >>> import graphcell as ms
        >>> from graphcell import nn
        >>> nn.AvgPool2dExt(2)(ms.Tensor(np.ones((1, 1, 4, 4), np.float32))).shape
        (1, 1, 2, 2)
    """

    def construct(self, input):  # noqa: A002
        return ops.avg_pool2d(input, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                              self.count_include_pad, self.divisor_override or 0)


class AvgPool3dExt(_AvgPoolExt):
    """``AvgPool3dExt(kernel_size, stride=None, padding=0, ceil_mode=False,
    count_include_pad=True, divisor_override=None)``: PyTorch's ``AvgPool3d``.

    Example::

        >>> import numpy as np
        >>> import graphcell as ms
        >>> from graphcell import nn
        >>> nn.AvgPool3dExt(2)(ms.Tensor(np.ones((1, 1, 4, 4, 4), np.float32))).shape
        (1, 1, 2, 2, 2)
    """

    def construct(self, input):  # noqa: A002
        return ops.avg_pool3d(input, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                              self.count_include_pad, self.divisor_override or 0)


# --- Lp pools ------------------------------------------------------------------------------------

class LPPool1d(Cell):
    """``LPPool1d(norm_type, kernel_size, stride=None, ceil_mode=False)``: ``(sum of x**p over
    each window) ** (1 / p)`` on an (N, C, L) or (C, L) input.

    Example::

        >>> import graphcell as ms
        >>> from graphcell import nn
        >>> nn.LPPool1d(2, 2)(ms.Tensor([[[3.0, 4.0]]])).asnumpy()
        array([[[5.]]], dtype=float32)
    """

    def __init__(self, norm_type, kernel_size, stride=None, ceil_mode=False):
        super().__init__()
        self.norm_type = norm_type
        self.kernel_size = kernel_size
        self.stride = stride
        self.ceil_mode = ceil_mode

    def construct(self, x):
        return ops.lp_pool1d(x, self.norm_type, self.kernel_size, self.stride, self.ceil_mode)


class LPPool2d(LPPool1d):
    """``LPPool2d(norm_type, kernel_size, stride=None, ceil_mode=False)``: the 2-D Lp pool of an
    (N, C, H, W) input.

    Example::

        >>> import numpy as np
        >>> import graphcell as ms
        >>> from graphcell import nn
        >>> nn.LPPool2d(1, 2)(ms.Tensor(np.ones((1, 1, 2, 2), np.float32))).asnumpy()
        array([[[[4.]]]], dtype=float32)
    """

    def construct(self, x):
        return ops.lp_pool2d(x, self.norm_type, self.kernel_size, self.stride, self.ceil_mode)
