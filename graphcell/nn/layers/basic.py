"""Shape and utility layers: ``Flatten``, ``Dropout`` and ``MatMul``."""
from __future__ import annotations

import math

from graphcell import ops
from graphcell.nn.cell import Cell
from graphcell.nn.layers._validate import _is_int, _is_number, check_bool, describe
from graphcell.tensor import Tensor
from graphcell_ir.ops import functional as F

__all__ = ["Flatten", "Dropout", "MatMul"]


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


class Dropout(Cell):
    """``Dropout(keep_prob=0.5, p=None)``: in training, zero each element with probability
    ``p`` (``1 - keep_prob`` when ``p`` is None) and scale the rest by ``1 / (1 - p)``; outside
    training (or when nothing is dropped) the identity.

    The mask is drawn from graphcell's seeded generator (``set_seed``).

    Example::

        >>> import graphcell as ms
        >>> from graphcell import nn
        >>> x = ms.Tensor([1.0, 2.0])
        >>> nn.Dropout(p=0.5)(x).asnumpy()          # not training: unchanged
        array([1., 2.], dtype=float32)
    """

    def __init__(self, keep_prob=0.5, p=None, dtype=None):
        super().__init__()
        owner = self.cls_name
        if p is None:
            if not _is_number(keep_prob):
                raise TypeError(f"{owner}: 'keep_prob' must be a float, got {keep_prob!r}")
            if not 0 < keep_prob <= 1:
                raise ValueError(f"{owner}: 'keep_prob' must be in (0, 1], got {keep_prob}")
            self._keep = float(keep_prob)
        else:
            if not _is_number(p):
                raise TypeError(f"{owner}: 'p' must be a float, got {p!r}")
            if not 0 <= p < 1:
                raise ValueError(f"{owner}: 'p' must be in [0, 1), got {p}")
            self._keep = 1.0 - float(p)
        self.keep_prob = keep_prob
        self.p = p

    def construct(self, x):
        if not self.training or self._keep == 1.0:
            return x
        out, _ = F.dropout(x, keep_prob=self._keep)
        return out

    def extend_repr(self) -> str:
        return f"keep_prob={self.keep_prob}" if self.p is None else f"p={self.p}"


class MatMul(Cell):
    """``MatMul(transpose_x1=False, transpose_x2=False)``: ``x1 @ x2`` with numpy's rules (batch
    axes broadcast, a 1-D operand is a vector), each operand optionally transposed first.

    Example::

        >>> import numpy as np
        >>> import graphcell as ms
        >>> from graphcell import nn
        >>> a = ms.Tensor(np.ones((2, 3), np.float32)); b = ms.Tensor(np.ones((4, 3), np.float32))
        >>> nn.MatMul(transpose_x2=True)(a, b).shape
        (2, 4)
    """

    def __init__(self, transpose_x1=False, transpose_x2=False):
        super().__init__()
        self.transpose_x1 = check_bool(transpose_x1, "transpose_x1", self.cls_name)
        self.transpose_x2 = check_bool(transpose_x2, "transpose_x2", self.cls_name)

    def construct(self, x1, x2):
        return F.matmul(x1, x2, transpose_a=self.transpose_x1, transpose_b=self.transpose_x2)
