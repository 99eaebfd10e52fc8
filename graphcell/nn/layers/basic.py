"""Basic layers, as MindSpore's ``mindspore.nn.layer.basic``: reshaping (``Flatten``,
``Unflatten``, ``Identity``), dropouts, ``Upsample``/``ResizeBilinear``, ``Pad``, norms and
clipping (``Norm``, ``ClipByNorm``, ``L1Regularizer``), ``OneHot``, ``ChannelShuffle`` and the
deprecated matrix cells (``Tril``, ``Triu``, ``Roll``, ``MatrixDiag``, ``MatrixDiagPart``,
``MatrixSetDiag``).

Each is a thin Cell over ``ops`` functions. The dropouts draw from graphcell's seeded generator
(``ms.set_seed``) and are the identity outside training.
"""
from __future__ import annotations

import math

from graphcell import ops
from graphcell.nn.cell import Cell
from graphcell.nn.layers._validate import _is_int, _is_number, check_bool, describe
from graphcell.ops.function.nn_func import clip_by_axis_norm
from graphcell.tensor import Tensor
from graphcell_ir.ir.types import float16, float32, to_dtype
from graphcell_ir.ops import functional as F

__all__ = ["Flatten", "Unflatten", "Identity", "Dropout", "Dropout1d", "Dropout2d", "Dropout3d",
           "DropoutExt", "Dropout2dExt", "Upsample", "ResizeBilinear", "Pad", "Norm",
           "ClipByNorm", "L1Regularizer", "OneHot", "Tril", "Triu", "Roll", "MatrixDiag",
           "MatrixDiagPart", "MatrixSetDiag", "ChannelShuffle"]


# --- shapes --------------------------------------------------------------------------------------

class Flatten(Cell):
    """``Flatten(start_dim=1, end_dim=-1)``: merge the axes ``start_dim..end_dim`` into one.

    Example::

        >>> import numpy as np
        >>> import graphcell as ms
        >>> from graphcell import nn
        >>> nn.Flatten()(ms.Tensor(np.ones((2, 3, 4), np.float32))).shape
        (2, 12)
    """

    def __init__(self, start_dim=1, end_dim=-1):
        super().__init__()
        for name, value in (("start_dim", start_dim), ("end_dim", end_dim)):
            if not _is_int(value):
                raise TypeError(f"{self.cls_name}: '{name}' must be an int, got {value!r}")
        self.start_dim = start_dim
        self.end_dim = end_dim

    def construct(self, x):
        return ops.reshape(x, _flat_shape(self, x))


def _flat_shape(flatten: Flatten, x) -> tuple[int, ...]:
    shape = tuple(x.shape) if isinstance(x, Tensor) else None
    if shape is None:
        raise TypeError(f"{flatten.cls_name}: expected a Tensor, got {describe(x)}")
    ndim = max(len(shape), 1)  # a 0-d tensor flattens as if it had one axis, as in MindSpore
    start, end = flatten.start_dim, flatten.end_dim
    if not (-ndim <= start < ndim and -ndim <= end < ndim):
        raise ValueError(f"{flatten.cls_name}: start_dim={start} and end_dim={end} must be axes "
                         f"of the input, whose shape is {list(shape)}")
    start, end = start % ndim, end % ndim
    if start > end:
        raise ValueError(f"{flatten.cls_name}: start_dim={flatten.start_dim} comes after "
                         f"end_dim={flatten.end_dim} for an input of shape {list(shape)}")
    if not shape:
        return (1,)
    return shape[:start] + (math.prod(shape[start:end + 1]),) + shape[end + 1:]


class Unflatten(Cell):
    """``Unflatten(axis, unflattened_size)``: split axis ``axis`` into ``unflattened_size`` (a
    tuple or list of ints whose product is that axis' size).

    Example::

        >>> import numpy as np
        >>> import graphcell as ms
        >>> from graphcell import nn
        >>> nn.Unflatten(1, (2, 3))(ms.Tensor(np.ones((4, 6), np.float32))).shape
        (4, 2, 3)
    """

    def __init__(self, axis, unflattened_size):
        super().__init__()
        if not _is_int(axis):
            raise TypeError(f"{self.cls_name}: 'axis' must be an int, got {axis!r}")
        if not isinstance(unflattened_size, (tuple, list)) or \
                not all(_is_int(n) for n in unflattened_size):
            raise TypeError(f"{self.cls_name}: 'unflattened_size' must be a tuple or list of ints, "
                            f"got {unflattened_size!r}")
        self.axis = axis
        self.unflattened_size = tuple(unflattened_size)

    def construct(self, input_x):
        shape = tuple(input_x.shape)
        if not -len(shape) <= self.axis < len(shape):
            raise ValueError(f"{self.cls_name}: 'axis' {self.axis} is out of range for an input "
                             f"of shape {list(shape)}")
        axis = self.axis % len(shape)
        return ops.reshape(input_x, shape[:axis] + self.unflattened_size + shape[axis + 1:])


class Identity(Cell):
    """``Identity(*args, **kwargs)``: returns its input (the arguments are ignored).

    Example::

        >>> import graphcell as ms
        >>> from graphcell import nn
        >>> nn.Identity(54, unused='x')(ms.Tensor([1.0])).asnumpy()
        array([1.], dtype=float32)
    """

    def __init__(self, *args, **kwargs):
        super().__init__()

    def construct(self, input):  # noqa: A002
        return input


# --- dropouts ------------------------------------------------------------------------------------

def _probability(p, owner: str, high_open: bool, ints: bool = True) -> float:
    """A drop probability in [0, 1] ([0, 1) when ``high_open``); ints only where MindSpore
    takes them."""
    ok = _is_number(p) if ints else isinstance(p, float)
    if not ok:
        kinds = "a float or an int" if ints else "a float"
        raise TypeError(f"{owner}: 'p' must be {kinds}, got {type(p).__name__} {p!r}")
    if not (0 <= p < 1 if high_open else 0 <= p <= 1):
        raise ValueError(f"{owner}: 'p' must be in [0, 1{')' if high_open else ']'}, got {p}")
    return float(p)


class Dropout(Cell):
    """``Dropout(keep_prob=0.5, p=None, dtype=float32)``: in training, zero each element with
    probability ``p`` (``1 - keep_prob`` when ``p`` is None, MindSpore 1.x's spelling) and scale
    the rest by ``1 / (1 - p)``; outside training the identity.

    Example::

        >>> import graphcell as ms
        >>> from graphcell import nn
        >>> x = ms.Tensor([1.0, 2.0])
        >>> nn.Dropout(p=0.5)(x).asnumpy()          # not training: unchanged
        array([1., 2.], dtype=float32)
    """

    def __init__(self, keep_prob=0.5, p=None, dtype=float32):
        super().__init__()
        owner = self.cls_name
        if p is None:
            if not isinstance(keep_prob, float):
                raise TypeError(f"{owner}: 'keep_prob' must be a float, got "
                                f"{type(keep_prob).__name__} {keep_prob!r}")
            if not 0 < keep_prob <= 1:
                raise ValueError(f"{owner}: 'keep_prob' must be in (0, 1], got {keep_prob}")
            self._keep = keep_prob
        else:
            self._keep = 1.0 - _probability(p, owner, high_open=True)
        self.keep_prob = keep_prob
        self.p = p

    def construct(self, x):
        if not self.training or self._keep == 1.0:
            return x
        out, _ = F.dropout(x, keep_prob=self._keep)
        return out

    def extend_repr(self) -> str:
        return f"keep_prob={self.keep_prob}" if self.p is None else f"p={self.p}"


class _ChannelDropout(Cell):
    """Dropout of whole channels: ``_drop`` is ``ops.dropout1d``/``2d``/``3d``."""

    def __init__(self, p=0.5):
        super().__init__()
        self.p = _probability(p, self.cls_name, high_open=False, ints=False)

    def construct(self, x):
        if not self.training or self.p == 0:
            return x
        return self._drop(x, self.p)

    def extend_repr(self) -> str:
        # MindSpore 2.10 prints p=<keep probability> for Dropout2d/3d; graphcell prints p
        return f"p={self.p}"


class Dropout1d(_ChannelDropout):
    """``Dropout1d(p=0.5)``: in training, zero whole channels of an (N, C, L) or (C, L) input
    with probability ``p`` and scale the rest by ``1 / (1 - p)``.

    Example::

        >>> from graphcell import nn
        >>> nn.Dropout1d(0.2)                   # MindSpore prints no settings here
        Dropout1d()
    """

    @staticmethod
    def _drop(x, p):
        return ops.dropout1d(x, p)

    def extend_repr(self) -> str:
        return ""  # MindSpore prints Dropout1d()


class Dropout2d(_ChannelDropout):
    """``Dropout2d(p=0.5)``: in training, zero whole channels of an (N, C, H, W) input with
    probability ``p`` and scale the rest by ``1 / (1 - p)``.

    Example::

        >>> from graphcell import nn
        >>> nn.Dropout2d(0.2)
        Dropout2d(p=0.2)
    """

    @staticmethod
    def _drop(x, p):
        return ops.dropout2d(x, p)


class Dropout3d(_ChannelDropout):
    """``Dropout3d(p=0.5)``: in training, zero whole channels of an (N, C, D, H, W) input with
    probability ``p`` and scale the rest by ``1 / (1 - p)``.

    Example::

        >>> from graphcell import nn
        >>> nn.Dropout3d(0.2)
        Dropout3d(p=0.2)
    """

    @staticmethod
    def _drop(x, p):
        return ops.dropout3d(x, p)


class DropoutExt(Cell):
    """``DropoutExt(p=0.5, inplace=False)``: ``Dropout`` with PyTorch's constructor; ``inplace``
    is accepted (graphcell's tensors are values: the result is a new tensor).

    Example::

        >>> import graphcell as ms
        >>> from graphcell import nn
        >>> nn.DropoutExt(0.3)(ms.Tensor([1.0])).asnumpy()
        array([1.], dtype=float32)
    """

    def __init__(self, p=0.5, inplace=False):
        super().__init__()
        self.p = _probability(p, self.cls_name, high_open=False)
        self.inplace = check_bool(inplace, "inplace", self.cls_name)

    def construct(self, input):  # noqa: A002
        if not self.training or self.p == 0:
            return input
        if self.p == 1:
            return ops.zeros_like(input)
        return ops.dropout(input, self.p, True)


class Dropout2dExt(DropoutExt):
    """``Dropout2dExt(p=0.5, inplace=False)``: ``Dropout2d`` with PyTorch's constructor.

    Example::

        >>> from graphcell import nn
        >>> nn.Dropout2dExt(0.3).p
        0.3
    """

    def construct(self, input):  # noqa: A002
        if not self.training or self.p == 0:
            return input
        if self.p == 1:
            return ops.zeros_like(input)
        return ops.dropout2d(input, self.p, True)


# --- resizing ------------------------------------------------------------------------------------

class Upsample(Cell):
    """``Upsample(size=None, scale_factor=None, mode='nearest', align_corners=None,
    recompute_scale_factor=None)``: ``ops.interpolate`` with these settings.

    Example::

        >>> import numpy as np
        >>> import graphcell as ms
        >>> from graphcell import nn
        >>> nn.Upsample(scale_factor=2.0)(ms.Tensor(np.ones((1, 1, 2, 2), np.float32))).shape
        (1, 1, 4, 4)
    """

    def __init__(self, size=None, scale_factor=None, mode="nearest", align_corners=None,
                 recompute_scale_factor=None):
        super().__init__()
        self.size = size
        self.scale_factor = scale_factor
        self.mode = mode
        self.align_corners = align_corners
        self.recompute_scale_factor = recompute_scale_factor

    def construct(self, x):
        return ops.interpolate(x, self.size, self.scale_factor, self.mode, self.align_corners,
                               self.recompute_scale_factor)


class ResizeBilinear(Cell):
    """``ResizeBilinear(half_pixel_centers=False)``, MindSpore 1.x's bilinear resize (2.x has
    ``Upsample``): ``construct(x, size=None, scale_factor=None, align_corners=False)`` resizes an
    (N, C, H, W) input to ``size`` or by the integer ``scale_factor``.

    Example::

        >>> import numpy as np
        >>> import graphcell as ms
        >>> from graphcell import nn
        >>> nn.ResizeBilinear()(ms.Tensor(np.ones((1, 1, 2, 2), np.float32)), (3, 5)).shape
        (1, 1, 3, 5)
    """

    def __init__(self, half_pixel_centers=False):
        super().__init__()
        self.half_pixel_centers = check_bool(half_pixel_centers, "half_pixel_centers",
                                             self.cls_name)

    def construct(self, x, size=None, scale_factor=None, align_corners=False):
        if (size is None) == (scale_factor is None):
            raise ValueError(f"{self.cls_name}: give exactly one of 'size' and 'scale_factor'")
        if not isinstance(x, Tensor) or x.ndim != 4:
            raise ValueError(f"{self.cls_name}: expected a 4-D (N, C, H, W) input, got "
                             f"{describe(x)}")
        if size is None:
            if not _is_int(scale_factor) or scale_factor < 1:
                raise ValueError(f"{self.cls_name}: 'scale_factor' must be a positive int, got "
                                 f"{scale_factor!r}")
            size = (x.shape[2] * scale_factor, x.shape[3] * scale_factor)
        if align_corners and self.half_pixel_centers:
            raise ValueError(f"{self.cls_name}: 'half_pixel_centers' and 'align_corners' cannot "
                             "both be True")
        resize = ops.ResizeBilinearV2(align_corners=align_corners,
                                      half_pixel_centers=self.half_pixel_centers)
        return resize(x, tuple(size))


# --- padding -------------------------------------------------------------------------------------

class Pad(Cell):
    """``Pad(paddings, mode='CONSTANT')``: ``paddings`` holds one (before, after) pair per
    dimension of the input (at most 4), from the first; ``mode`` is ``'CONSTANT'`` (zeros),
    ``'REFLECT'`` (mirror without the edge) or ``'SYMMETRIC'`` (mirror with it).

    Example::

        >>> import numpy as np
        >>> import graphcell as ms
        >>> from graphcell import nn
        >>> nn.Pad(((1, 1), (2, 0)))(ms.Tensor(np.ones((2, 3), np.float32))).shape
        (4, 5)
    """

    def __init__(self, paddings, mode="CONSTANT"):
        super().__init__()
        owner = self.cls_name
        if mode not in ("CONSTANT", "REFLECT", "SYMMETRIC"):
            raise ValueError(f"{owner}: 'mode' must be 'CONSTANT', 'REFLECT' or 'SYMMETRIC', got "
                             f"{mode!r}")
        if not isinstance(paddings, tuple):
            raise TypeError(f"{owner}: 'paddings' must be a tuple of (before, after) pairs, got "
                            f"{type(paddings).__name__}")
        for item in paddings:
            if not isinstance(item, (tuple, list)) or len(item) != 2 or \
                    not all(_is_int(v) for v in item):
                raise ValueError(f"{owner}: 'paddings' must be (n, 2) ints, got {paddings!r}")
        if len(paddings) > 4:
            raise ValueError(f"{owner}: 'paddings' may pad up to 4 dims, got {len(paddings)}")
        self.mode = mode
        self.paddings = tuple(tuple(item) for item in paddings)

    def construct(self, x):
        if not isinstance(x, Tensor) or x.ndim != len(self.paddings):
            raise ValueError(f"{self.cls_name}: 'paddings' has {len(self.paddings)} pairs, one "
                             f"per dim of the input, got {describe(x)}")
        if self.mode == "CONSTANT":
            return ops.Pad(self.paddings)(x)
        return ops.mirror_pad(x, self.paddings, self.mode)


# --- norms and clipping --------------------------------------------------------------------------

def _axes(axis, owner: str) -> tuple[int, ...]:
    """An int or a tuple/list of ints, as a tuple."""
    if _is_int(axis):
        return (axis,)
    if isinstance(axis, (tuple, list)) and all(_is_int(a) for a in axis):
        return tuple(axis)
    raise TypeError(f"{owner}: 'axis' must be an int or a tuple of ints, got {axis!r}")


class Norm(Cell):
    """``Norm(axis=(), keep_dims=False)``: the Euclidean norm ``sqrt(sum(x ** 2))`` over ``axis``
    (``()``: every axis); without ``keep_dims`` the reduced axes of size 1 are squeezed.

    Example::

        >>> import graphcell as ms
        >>> from graphcell import nn
        >>> nn.Norm(axis=1)(ms.Tensor([[3.0, 4.0], [0.0, 1.0]])).asnumpy()
        array([5., 1.], dtype=float32)
    """

    def __init__(self, axis=(), keep_dims=False):
        super().__init__()
        self.axis = axis
        self._axes = _axes(axis, self.cls_name)
        self.keep_dims = check_bool(keep_dims, "keep_dims", self.cls_name)

    def construct(self, x):
        axes = self._axes or tuple(range(x.ndim))
        norm = ops.sqrt(ops.sum(ops.square(x), axes, keepdim=True))
        if self.keep_dims:
            return norm
        return ops.squeeze(norm, self._axes or None)

    def extend_repr(self) -> str:
        return f"axis={self.axis}, keep_dims={self.keep_dims}"


class ClipByNorm(Cell):
    """``ClipByNorm(axis=None)``: ``construct(x, clip_norm)`` scales ``x`` so that its Euclidean
    norm over ``axis`` (None: every axis) is at most ``clip_norm``:
    ``x * clip_norm / max(norm(x), clip_norm)``.

    Example::

        >>> import graphcell as ms
        >>> from graphcell import nn
        >>> nn.ClipByNorm()(ms.Tensor([3.0, 4.0]), ms.Tensor(1.0)).asnumpy()
        array([0.6, 0.8], dtype=float32)
    """

    def __init__(self, axis=None):
        super().__init__()
        self.axis = None if axis is None else _axes(axis, self.cls_name)

    def construct(self, x, clip_norm):
        if x.dtype == float16:  # MindSpore computes (and returns) Float16 input in Float32
            x = ops.cast(x, float32)
        return clip_by_axis_norm(x, clip_norm, self.axis)


class L1Regularizer(Cell):
    """``L1Regularizer(scale)``: ``scale * sum(|weights|)``, a Float32 scalar.

    Example::

        >>> import graphcell as ms
        >>> from graphcell import nn
        >>> nn.L1Regularizer(0.5)(ms.Tensor([1.0, -3.0])).asnumpy()
        array(2., dtype=float32)
    """

    def __init__(self, scale):
        super().__init__()
        if not _is_number(scale):
            raise TypeError(f"{self.cls_name}: 'scale' must be an int or a float, got "
                            f"{type(scale).__name__}")
        if math.isinf(scale) or math.isnan(scale):
            raise ValueError(f"{self.cls_name}: 'scale' must be finite, got {scale}")
        if scale <= 0:
            raise ValueError(f"{self.cls_name}: 'scale' must be greater than 0, got {scale}")
        self.scale = Tensor(float(scale), float32)

    def construct(self, weights):
        if not isinstance(weights, Tensor) or weights.dtype.is_bool:
            raise TypeError(f"{self.cls_name}: 'weights' must be a numeric Tensor, got "
                            f"{describe(weights)}")
        return self.scale * ops.sum(ops.abs(weights))


class OneHot(Cell):
    """``OneHot(axis=-1, depth=1, on_value=1.0, off_value=0.0, dtype=float32)``: ``on_value``
    where the new axis ``axis`` equals the index, ``off_value`` elsewhere.

    Example::

        >>> import graphcell as ms
        >>> from graphcell import nn
        >>> nn.OneHot(depth=3)(ms.Tensor([0, 2])).asnumpy()
        array([[1., 0., 0.],
               [0., 0., 1.]], dtype=float32)
    """

    def __init__(self, axis=-1, depth=1, on_value=1.0, off_value=0.0, dtype=float32):
        super().__init__()
        self.axis = axis
        self.depth = depth
        self.dtype = to_dtype(dtype)
        self.on_value = on_value
        self.off_value = off_value
        self._on = Tensor(on_value, self.dtype)
        self._off = Tensor(off_value, self.dtype)

    def construct(self, indices):
        return ops.one_hot(indices, self.depth, self._on, self._off, self.axis)


# --- matrices (deprecated in MindSpore 2.x) ------------------------------------------------------

class Tril(Cell):
    """``Tril()``: ``construct(x, k=0)`` keeps the elements on and below diagonal ``k`` of the
    last two axes (MindSpore 2.x: ``ops.tril``).

    Example::

        >>> import numpy as np
        >>> import graphcell as ms
        >>> from graphcell import nn
        >>> nn.Tril()(ms.Tensor(np.ones((2, 2), np.float32))).asnumpy()
        array([[1., 0.],
               [1., 1.]], dtype=float32)
    """

    def construct(self, x, k=0):
        return ops.tril(x, k)


class Triu(Cell):
    """``Triu()``: ``construct(x, k=0)`` keeps the elements on and above diagonal ``k`` of the
    last two axes (MindSpore 2.x: ``ops.triu``).

    Example::

        >>> import numpy as np
        >>> import graphcell as ms
        >>> from graphcell import nn
        >>> nn.Triu()(ms.Tensor(np.ones((2, 2), np.float32))).asnumpy()
        array([[1., 1.],
               [0., 1.]], dtype=float32)
    """

    def construct(self, x, k=0):
        return ops.triu(x, k)


class Roll(Cell):
    """``Roll(shift, axis)``: ``ops.roll`` by ``shift`` along ``axis`` (ints or equal-length
    tuples/lists).

    Example::

        >>> import graphcell as ms
        >>> from graphcell import nn
        >>> nn.Roll(1, 0)(ms.Tensor([1.0, 2.0, 3.0])).asnumpy()
        array([3., 1., 2.], dtype=float32)
    """

    def __init__(self, shift, axis):
        super().__init__()
        self.shift = _axes(shift, self.cls_name)
        self.axis = _axes(axis, self.cls_name)
        if len(self.shift) != len(self.axis):
            raise ValueError(f"{self.cls_name}: 'shift' and 'axis' must have the same length, got "
                             f"{shift!r} and {axis!r}")

    def construct(self, input_x):
        for a in self.axis:
            if not -input_x.ndim <= a < input_x.ndim:
                raise ValueError(f"{self.cls_name}: 'axis' {a} is out of range for an input of "
                                 f"shape {list(input_x.shape)}")
        return ops.roll(input_x, self.shift, self.axis)


class MatrixDiag(Cell):
    """``MatrixDiag()``: a batch of diagonal matrices from the last axis of ``x`` (MindSpore
    2.x: ``ops.diag_embed``).

    Example::

        >>> import graphcell as ms
        >>> from graphcell import nn
        >>> nn.MatrixDiag()(ms.Tensor([1.0, 2.0])).asnumpy()
        array([[1., 0.],
               [0., 2.]], dtype=float32)
    """

    def construct(self, input_x):
        return ops.diag_embed(input_x)


class MatrixDiagPart(Cell):
    """``MatrixDiagPart()``: the main diagonals of the last two axes (MindSpore 2.x:
    ``ops.diagonal``).

    Example::

        >>> import numpy as np
        >>> import graphcell as ms
        >>> from graphcell import nn
        >>> nn.MatrixDiagPart()(ms.Tensor(np.eye(2, dtype=np.float32) * 3)).asnumpy()
        array([3., 3.], dtype=float32)
    """

    def construct(self, input_x):
        return ops.diagonal(input_x, 0, -2, -1)


class MatrixSetDiag(Cell):
    """``MatrixSetDiag()``: ``construct(input_x, diagonal)`` replaces the main diagonals of the
    last two axes by ``diagonal``.

    Example::

        >>> import numpy as np
        >>> import graphcell as ms
        >>> from graphcell import nn
        >>> x = ms.Tensor(np.zeros((2, 2), np.float32))
        >>> nn.MatrixSetDiag()(x, ms.Tensor([1.0, 2.0])).asnumpy()
        array([[1., 0.],
               [0., 2.]], dtype=float32)
    """

    def construct(self, input_x, diagonal):
        return ops.matrix_set_diag(input_x, diagonal)


class ChannelShuffle(Cell):
    """``ChannelShuffle(groups)``: the channels (axis 1) of an (N, C, ...) input split into
    ``groups`` groups and interleaved (ShuffleNet's shuffle).

    Example::

        >>> import numpy as np
        >>> import graphcell as ms
        >>> from graphcell import nn
        >>> x = ms.Tensor(np.arange(4, dtype=np.float32).reshape(1, 4, 1, 1))
        >>> nn.ChannelShuffle(2)(x).asnumpy().ravel()
        array([0., 2., 1., 3.], dtype=float32)
    """

    def __init__(self, groups):
        super().__init__()
        if not _is_int(groups):
            raise TypeError(f"{self.cls_name}: 'groups' must be an int, got "
                            f"{type(groups).__name__}")
        if groups < 1:
            raise ValueError(f"{self.cls_name}: 'groups' must be at least 1, got {groups}")
        self.groups = groups

    def construct(self, x):
        if not isinstance(x, Tensor) or x.ndim < 2:
            raise ValueError(f"{self.cls_name}: expected an (N, C, ...) input, got {describe(x)}")
        shape = tuple(x.shape)
        # ops.channel_shuffle takes rank >= 4: shuffle a (N, C, positions, 1) view
        view = ops.reshape(x, shape[:2] + (-1, 1))
        return ops.reshape(ops.channel_shuffle(view, self.groups), shape)
