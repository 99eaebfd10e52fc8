"""Padding layers: ``ConstantPad1d/2d/3d``, ``ZeroPad2d``, ``ReflectionPad1d/2d/3d`` and
``ReplicationPad1d/2d/3d``.

``padding`` is an int (every side) or PyTorch's flat tuple ``(left, right, top, bottom, front,
back)``, the last axis first — as ``ops.pad``, which each layer calls. Constant padding may be
negative (it crops); reflection and replication padding may not. Constructors and checks are
MindSpore 2.10's.

Example::

    >>> import numpy as np
    >>> import graphcell as ms
    >>> from graphcell import nn
    >>> nn.ZeroPad2d((1, 0, 0, 2))(ms.Tensor(np.ones((1, 2, 2), np.float32))).shape
    (1, 4, 3)
"""
from __future__ import annotations

from graphcell import ops
from graphcell.nn.cell import Cell
from graphcell.nn.layers._validate import _is_int, _is_number, describe
from graphcell.tensor import Tensor

__all__ = ["ConstantPad1d", "ConstantPad2d", "ConstantPad3d", "ZeroPad2d", "ReflectionPad1d",
           "ReflectionPad2d", "ReflectionPad3d", "ReplicationPad1d", "ReplicationPad2d",
           "ReplicationPad3d"]


def _flat_padding(padding, axes: int, owner: str, exact: bool) -> tuple[int, ...]:
    """``padding`` as a flat tuple of ints: an int pads every side of ``axes`` axes; a tuple has
    an even length of at most ``2 * axes`` (exactly, when ``exact``)."""
    if _is_int(padding):
        return (padding,) * (2 * axes)
    if not isinstance(padding, tuple):
        raise TypeError(f"{owner}: 'padding' must be an int or a tuple, got "
                        f"{type(padding).__name__}")
    if not all(_is_int(p) for p in padding):
        raise TypeError(f"{owner}: every element of 'padding' must be an int, got {padding!r}")
    if len(padding) % 2:
        raise ValueError(f"{owner}: the length of 'padding' must be even, got {len(padding)}")
    if (exact and len(padding) != 2 * axes) or len(padding) > 2 * axes:
        bound = "equal to" if exact else "at most"
        raise ValueError(f"{owner}: the length of 'padding' must be {bound} {2 * axes}, got "
                         f"{len(padding)}")
    return padding


def _check_rank(x, padding: tuple, ranks: tuple[int, ...], owner: str) -> None:
    if not isinstance(x, Tensor) or x.ndim not in ranks or x.ndim < len(padding) // 2:
        allowed = " or ".join(f"{r}-D" for r in ranks)
        raise ValueError(f"{owner}: expected a {allowed} input, got {describe(x)}")


class _ConstantPadNd(Cell):
    _axes = 1

    def __init__(self, padding, value):
        super().__init__()
        owner = self.cls_name
        self.padding = _flat_padding(padding, self._axes, owner, exact=self._axes == 1)
        if not _is_number(value):
            raise TypeError(f"{owner}: 'value' must be an int or a float, got "
                            f"{type(value).__name__}")
        self.value = value

    def construct(self, x):
        if not isinstance(x, Tensor) or x.ndim < len(self.padding) // 2:
            raise ValueError(f"{self.cls_name}: the input needs at least {len(self.padding) // 2}"
                             f" dims for padding {self.padding}, got {describe(x)}")
        return ops.pad(x, self.padding, mode="constant", value=self.value)


class ConstantPad1d(_ConstantPadNd):
    """``ConstantPad1d(padding, value)``: the last axis padded with ``value`` (``padding`` an int
    or ``(left, right)``).

    Example::

        >>> import graphcell as ms
        >>> from graphcell import nn
        >>> nn.ConstantPad1d((1, 2), 9.0)(ms.Tensor([[1.0]])).asnumpy()
        array([[9., 1., 9., 9.]], dtype=float32)
    """


class ConstantPad2d(_ConstantPadNd):
    """``ConstantPad2d(padding, value)``: the last two axes padded with ``value`` (``padding`` an
    int or up to ``(left, right, top, bottom)``).

    Example::

        >>> import numpy as np
        >>> import graphcell as ms
        >>> from graphcell import nn
        >>> nn.ConstantPad2d(1, 0.5)(ms.Tensor(np.ones((1, 2, 2), np.float32))).shape
        (1, 4, 4)
    """

    _axes = 2


class ConstantPad3d(_ConstantPadNd):
    """``ConstantPad3d(padding, value)``: the last three axes padded with ``value`` (``padding`` an
    int or up to ``(left, right, top, bottom, front, back)``).

    Example::

        >>> import numpy as np
        >>> import graphcell as ms
        >>> from graphcell import nn
        >>> nn.ConstantPad3d(1, 0.0)(ms.Tensor(np.ones((1, 1, 1, 1), np.float32))).shape
        (1, 3, 3, 3)
    """

    _axes = 3


class ZeroPad2d(_ConstantPadNd):
    """``ZeroPad2d(padding)``: ``ConstantPad2d(padding, 0)``.

    Example::

        >>> import numpy as np
        >>> import graphcell as ms
        >>> from graphcell import nn
        >>> nn.ZeroPad2d((1, 1, 0, 0))(ms.Tensor(np.ones((1, 1, 2), np.float32))).asnumpy()
        array([[[0., 1., 1., 0.]]], dtype=float32)
    """

    _axes = 2

    def __init__(self, padding):
        super().__init__(padding, 0)


class _MirrorPadNd(Cell):
    """Reflection (``'reflect'``) or replication (``'replicate'``) of the last ``_axes`` axes of
    an input of ``_axes + 1`` or ``_axes + 2`` dims."""

    _axes = 1
    _mode = ""

    def __init__(self, padding):
        super().__init__()
        owner = self.cls_name
        if _is_int(padding):
            padding = (padding,) * (2 * self._axes)
        self.padding = _flat_padding(padding, self._axes, owner, exact=False)
        if self._mode == "reflect" and any(p < 0 for p in self.padding):
            raise ValueError(f"{owner}: every element of 'padding' must be >= 0, got {padding}")

    def construct(self, x):
        _check_rank(x, self.padding, (self._axes + 1, self._axes + 2), self.cls_name)
        if not self.padding:
            return x
        if self._mode == "reflect":  # ops.pad reflects two axes at most; MirrorPad any number
            return ops.mirror_pad(x, _pairs(self.padding, x.ndim), "REFLECT")
        return ops.pad(x, self.padding, mode=self._mode)


def _pairs(padding: tuple, ndim: int) -> tuple:
    """The flat ``(left, right, top, bottom, ...)`` (last axis first) as one (before, after) pair
    per dim of an ``ndim``-D input, first dim first."""
    pairs = [(0, 0)] * ndim
    for i in range(len(padding) // 2):
        pairs[ndim - 1 - i] = (padding[2 * i], padding[2 * i + 1])
    return tuple(pairs)


class ReflectionPad1d(_MirrorPadNd):
    """``ReflectionPad1d(padding)``: the last axis of a (C, L) or (N, C, L) input padded with its
    reflection (the edge not repeated).

    Example::

        >>> import graphcell as ms
        >>> from graphcell import nn
        >>> nn.ReflectionPad1d((2, 1))(ms.Tensor([[[1.0, 2.0, 3.0]]])).asnumpy()
        array([[[3., 2., 1., 2., 3., 2.]]], dtype=float32)
    """

    _mode = "reflect"


class ReflectionPad2d(_MirrorPadNd):
    """``ReflectionPad2d(padding)``: the last two axes of a (C, H, W) or (N, C, H, W) input
    padded with their reflection.

    Example::

        >>> import numpy as np
        >>> import graphcell as ms
        >>> from graphcell import nn
        >>> nn.ReflectionPad2d(1)(ms.Tensor(np.ones((1, 2, 2), np.float32))).shape
        (1, 4, 4)
    """

    _axes = 2
    _mode = "reflect"


class ReflectionPad3d(_MirrorPadNd):
    """``ReflectionPad3d(padding)``: the last three axes of a (C, D, H, W) or (N, C, D, H, W)
    input padded with their reflection.

    Example::

        >>> import numpy as np
        >>> import graphcell as ms
        >>> from graphcell import nn
        >>> nn.ReflectionPad3d(1)(ms.Tensor(np.ones((1, 2, 2, 2), np.float32))).shape
        (1, 4, 4, 4)
    """

    _axes = 3
    _mode = "reflect"


class ReplicationPad1d(_MirrorPadNd):
    """``ReplicationPad1d(padding)``: the last axis of a (C, L) or (N, C, L) input padded with
    copies of its edge values.

    Example::

        >>> import graphcell as ms
        >>> from graphcell import nn
        >>> nn.ReplicationPad1d((2, 1))(ms.Tensor([[[1.0, 2.0]]])).asnumpy()
        array([[[1., 1., 1., 2., 2.]]], dtype=float32)
    """

    _mode = "replicate"


class ReplicationPad2d(_MirrorPadNd):
    """``ReplicationPad2d(padding)``: the last two axes of a (C, H, W) or (N, C, H, W) input
    padded with copies of their edges.

    Example::

        >>> import numpy as np
        >>> import graphcell as ms
        >>> from graphcell import nn
        >>> nn.ReplicationPad2d(1)(ms.Tensor(np.ones((1, 2, 2), np.float32))).shape
        (1, 4, 4)
    """

    _axes = 2
    _mode = "replicate"


class ReplicationPad3d(_MirrorPadNd):
    """``ReplicationPad3d(padding)``: the last three axes of a (C, D, H, W) or (N, C, D, H, W)
    input padded with copies of their edges.

    Example::

        >>> import numpy as np
        >>> import graphcell as ms
        >>> from graphcell import nn
        >>> nn.ReplicationPad3d(1)(ms.Tensor(np.ones((1, 2, 2, 2), np.float32))).shape
        (1, 4, 4, 4)
    """

    _axes = 3
    _mode = "replicate"
