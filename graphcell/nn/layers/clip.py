"""``ClipByNorm``: a tensor rescaled so that its L2 norm (over ``axis``) is at most
``clip_norm``: ``x * clip_norm / max(||x||, clip_norm)``.

Computed in the input's dtype, Float32 for a Float16 input (which gives a Float32 output, as
MindSpore 2.10's kernel). With an
``axis``, each slice along it is clipped by its own norm; MindSpore 2.10's CPU kernel pairs the
slices with the wrong norms there (``tests/graphcell/nn/test_nn_loss_scale.py``), graphcell does
not.

Example::

    >>> import numpy as np
    >>> import graphcell as ms
    >>> from graphcell import nn
    >>> x = ms.Tensor(np.array([[3.0, 4.0], [0.3, 0.4]], np.float32))
    >>> nn.ClipByNorm(axis=1)(x, ms.Tensor(np.float32(1.0))).asnumpy()
    array([[0.6, 0.8],
           [0.3, 0.4]], dtype=float32)
"""
from __future__ import annotations

import numpy as np

from graphcell import ops
from graphcell.nn.cell import Cell
from graphcell.nn.layers._validate import _is_int, describe
from graphcell.tensor import Tensor
from graphcell_ir.ir.types import float16, float32

__all__ = ["ClipByNorm"]

_TINY = float(np.finfo(np.float32).tiny)  # keeps sqrt's gradient finite at a zero slice


class ClipByNorm(Cell):
    """``ClipByNorm(axis=None)``: ``construct(x, clip_norm)`` with a positive scalar (or
    shape-(1,)) Tensor ``clip_norm``; ``axis`` an int, a tuple of ints, or None (every axis)."""

    def __init__(self, axis=None):
        super().__init__()
        if axis is not None and not _is_int(axis) and not (
                isinstance(axis, (tuple, list)) and all(_is_int(a) for a in axis)):
            raise TypeError(f"{self.cls_name}: 'axis' must be None, an int or a tuple of ints, "
                            f"got {axis!r}")
        self.axis = tuple(axis) if isinstance(axis, (tuple, list)) else axis

    def construct(self, x, clip_norm):
        _check(self.cls_name, x, clip_norm)
        work = float32 if x.dtype == float16 else x.dtype
        x = ops.cast(x, work)
        clip = ops.reshape(ops.cast(clip_norm, work), ())
        axis = tuple(range(x.ndim)) if self.axis is None else self.axis
        squares = ops.sum(ops.square(x), axis, True)
        norm = ops.sqrt(ops.maximum(squares, _TINY))
        return x * clip / ops.maximum(norm, clip)


def _check(owner: str, x, clip_norm) -> None:
    if not isinstance(x, Tensor) or not x.dtype.is_float:
        raise TypeError(f"{owner}: 'x' must be a floating-point Tensor, got {describe(x)}")
    if not isinstance(clip_norm, Tensor) or clip_norm.size != 1:
        raise TypeError(f"{owner}: 'clip_norm' must be a one-element Tensor, got "
                        f"{describe(clip_norm)}")
