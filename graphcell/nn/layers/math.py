"""Math layers, as MindSpore's ``mindspore.nn.layer.math``: ``MatMul``, ``Moments``,
``ReduceLogSumExp``, ``Range`` and the special functions and matrix cells MindSpore 2.x
deprecates in favour of ``ops`` (``LGamma``, ``DiGamma``, ``IGamma``, ``LBeta``, ``MatInverse``,
``MatDet``), each a thin Cell over those ``ops``.

MindSpore's math module also has a ``CosineSimilarity`` layer, but ``mindspore.nn.CosineSimilarity``
is the metric of that name (``mindspore.train``), which MindSpore's ``nn`` imports last.
"""
from __future__ import annotations

import numpy as np

from graphcell import ops
from graphcell.nn.cell import Cell
from graphcell.nn.layers._validate import _is_int, _is_number, check_bool
from graphcell.tensor import Tensor
from graphcell_ir.ir.types import float16, float32, int32
from graphcell_ir.ops import functional as F

__all__ = ["MatMul", "Moments", "ReduceLogSumExp", "Range", "LGamma",
           "DiGamma", "IGamma", "LBeta", "MatInverse", "MatDet"]


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


def _axis_tuple(axis, owner: str) -> tuple[int, ...]:
    if _is_int(axis):
        return (axis,)
    if isinstance(axis, (tuple, list)) and all(_is_int(a) for a in axis):
        return tuple(axis)
    raise TypeError(f"{owner}: 'axis' must be an int or a tuple of ints, got {axis!r}")


def _float16_or_32(x, owner: str) -> None:
    if not isinstance(x, Tensor) or x.dtype not in (float16, float32):
        got = x.dtype if isinstance(x, Tensor) else type(x).__name__
        raise TypeError(f"{owner}: the input must be a Float16 or Float32 tensor, got {got}")


class Moments(Cell):
    """``Moments(axis=None, keep_dims=None)``: ``(mean, variance)`` over ``axis`` (None: every
    axis), the variance divided by n; Float16 computes in Float32.

    Example::

        >>> import graphcell as ms
        >>> from graphcell import nn
        >>> mean, var = nn.Moments()(ms.Tensor([1.0, 3.0]))
        >>> float(mean.asnumpy()), float(var.asnumpy())
        (2.0, 1.0)
    """

    def __init__(self, axis=None, keep_dims=None):
        super().__init__()
        self.axis = () if axis is None else _axis_tuple(axis, self.cls_name)
        self.keep_dims = False if keep_dims is None else check_bool(keep_dims, "keep_dims",
                                                                     self.cls_name)

    def construct(self, x):
        _float16_or_32(x, self.cls_name)
        axes = self.axis or tuple(range(x.ndim))
        y = ops.cast(x, float32)
        mean = ops.mean(y, axes, keep_dims=True)
        variance = ops.mean(ops.square(y - ops.stop_gradient(mean)), axes, keep_dims=True)
        if not self.keep_dims:
            mean = ops.squeeze(mean, self.axis or None)
            variance = ops.squeeze(variance, self.axis or None)
        return ops.cast(mean, x.dtype), ops.cast(variance, x.dtype)


class ReduceLogSumExp(Cell):
    """``ReduceLogSumExp(axis, keep_dims=False)``: ``log(sum(exp(x)))`` over ``axis`` (an int, a
    tuple or a list; ``()`` reduces every axis), computed after subtracting the maximum.

    Example::

        >>> import graphcell as ms
        >>> from graphcell import nn
        >>> nn.ReduceLogSumExp(0)(ms.Tensor([0.0, 0.0])).asnumpy()
        array(0.6931472, dtype=float32)
    """

    def __init__(self, axis, keep_dims=False):
        super().__init__()
        self.axis = _axis_tuple(axis, self.cls_name)
        self.keep_dims = check_bool(keep_dims, "keep_dims", self.cls_name)

    def construct(self, x):
        axes = self.axis or tuple(range(x.ndim))
        top = ops.stop_gradient(ops.amax(x))  # any constant gives the same value and gradient
        total = ops.sum(ops.exp(x - top), axes, keepdim=self.keep_dims)
        return ops.log(total) + top


class Range(Cell):
    """``Range(start, limit=None, delta=1)``: the constant ``numpy.arange(start, limit, delta)``
    (Float32 when a bound is a float, Int32 otherwise); ``construct()`` takes no input.

    Example::

        >>> from graphcell import nn
        >>> nn.Range(1, 8, 2)().asnumpy()
        array([1, 3, 5, 7], dtype=int32)
    """

    def __init__(self, start, limit=None, delta=1):
        super().__init__()
        for name, value in (("start", start), ("limit", limit), ("delta", delta)):
            if value is not None and not _is_number(value):
                raise TypeError(f"{self.cls_name}: '{name}' must be an int or a float, got "
                                f"{type(value).__name__}")
        if delta == 0:
            raise ValueError(f"{self.cls_name}: 'delta' must not be 0")
        data = np.arange(start, limit, delta)
        self.result_tensor = Tensor(data, float32 if data.dtype.kind == "f" else int32)

    def construct(self):
        return self.result_tensor


class LGamma(Cell):
    """``LGamma()``: ``log|Gamma(x)|`` (MindSpore 2.x: ``ops.lgamma``).

    Example::

        >>> import graphcell as ms
        >>> from graphcell import nn
        >>> nn.LGamma()(ms.Tensor([3.0])).asnumpy()
        array([0.6931472], dtype=float32)
    """

    def construct(self, x):
        return ops.lgamma(x)


class DiGamma(Cell):
    """``DiGamma()``: the derivative of ``log Gamma`` (MindSpore 2.x: ``ops.digamma``).

    Example::

        >>> import graphcell as ms
        >>> from graphcell import nn
        >>> round(float(nn.DiGamma()(ms.Tensor([1.0])).asnumpy()[0]), 5)
        -0.57722
    """

    def construct(self, x):
        return ops.digamma(x)


class IGamma(Cell):
    """``IGamma()``: ``construct(a, x)``, the regularised lower incomplete gamma function
    (MindSpore 2.x: ``ops.igamma``).

    Example::

        >>> import graphcell as ms
        >>> from graphcell import nn
        >>> round(float(nn.IGamma()(ms.Tensor([1.0]), ms.Tensor([1.0])).asnumpy()[0]), 5)
        0.63212
    """

    def construct(self, a, x):
        return ops.igamma(a, x)


class LBeta(Cell):
    """``LBeta()``: ``construct(x, y)``, ``log|Beta(x, y)| = lgamma(x) + lgamma(y) -
    lgamma(x + y)`` (broadcast).

    Example::

        >>> import graphcell as ms
        >>> from graphcell import nn
        >>> nn.LBeta()(ms.Tensor([1.0]), ms.Tensor([1.0])).asnumpy()
        array([0.], dtype=float32)
    """

    def construct(self, x, y):
        return ops.lgamma(x) + ops.lgamma(y) - ops.lgamma(x + y)


class MatInverse(Cell):
    """``MatInverse()``: the inverse of a batch of symmetric positive-definite matrices (the
    kind MindSpore's Cholesky-based cell takes; graphcell inverts any invertible matrix).

    Example::

        >>> import numpy as np
        >>> import graphcell as ms
        >>> from graphcell import nn
        >>> nn.MatInverse()(ms.Tensor(np.eye(2, dtype=np.float32) * 2)).asnumpy()
        array([[0.5, 0. ],
               [0. , 0.5]], dtype=float32)
    """

    def construct(self, a):
        _float16_or_32(a, self.cls_name)
        return ops.inverse(a)


class MatDet(Cell):
    """``MatDet()``: the determinant of a batch of symmetric positive-definite matrices (the
    kind MindSpore's Cholesky-based cell takes).

    Example::

        >>> import numpy as np
        >>> import graphcell as ms
        >>> from graphcell import nn
        >>> nn.MatDet()(ms.Tensor(np.eye(2, dtype=np.float32) * 2)).asnumpy()
        array(4., dtype=float32)
    """

    def construct(self, a):
        _float16_or_32(a, self.cls_name)
        return ops.det(a)
