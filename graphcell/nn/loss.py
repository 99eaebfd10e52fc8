"""Loss cells: ``MSELoss``, ``L1Loss`` and ``SoftmaxCrossEntropyWithLogits``, on ``LossBase``.

A loss computes one value per element (or per example) and reduces it with ``reduction``:
``'mean'``, ``'sum'`` or ``'none'``. Labels are checked before any op runs, so a wrong dtype or
shape is reported by the loss cell with what it expected and what came (MindSpore reports
such errors from inside its Primitives).

Differences from MindSpore 2.10, on purpose: the reduction runs in the input's dtype (MindSpore
casts to Float32 and back, which throws away float64 precision); sparse labels out of range are an
error (MindSpore silently gives a zero loss); logits of any rank >= 1 are accepted (MindSpore
wants exactly 2-D).

Example::

    >>> import numpy as np
    >>> import graphcell as ms
    >>> from graphcell import nn
    >>> loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction='mean')
    >>> logits = ms.Tensor(np.zeros((2, 4), np.float32))
    >>> round(float(loss(logits, ms.Tensor(np.array([1, 3], np.int32)))), 4)   # ln 4
    1.3863
"""
from __future__ import annotations

from graphcell import ops
from graphcell.nn.cell import Cell
from graphcell.nn.layers._validate import check_bool, describe
from graphcell.tensor import Tensor
from graphcell_ir.ir.types import int32, int64

__all__ = ["LossBase", "MSELoss", "L1Loss", "SoftmaxCrossEntropyWithLogits"]

_REDUCTIONS = ("mean", "sum", "none")


class LossBase(Cell):
    """Base class of the losses: ``reduction`` and ``get_loss(x, weights=1.0)``.

    Example::

        >>> import graphcell as ms
        >>> from graphcell import nn
        >>> class Half(nn.LossBase):
        ...     def construct(self, logits, labels):
        ...         return self.get_loss((logits - labels) * 0.5)
        >>> float(Half('sum')(ms.Tensor([1.0, 3.0]), ms.Tensor([0.0, 0.0])))
        2.0
    """

    def __init__(self, reduction="mean"):
        super().__init__()
        if reduction not in _REDUCTIONS:
            raise ValueError(f"{self.cls_name}: 'reduction' must be one of "
                             f"{list(_REDUCTIONS)}, got {reduction!r}")
        self.reduction = reduction
        self.average = reduction == "mean"
        self.reduce = reduction != "none"

    def get_loss(self, x, weights=1.0):
        """``x * weights``, reduced over every axis with ``reduction``."""
        if not (isinstance(weights, (int, float)) and weights == 1.0):
            x = x * weights
        if self.reduce and self.average:
            return ops.mean(x)
        if self.reduce:
            return ops.sum(x)
        return x

    def construct(self, logits, labels):
        raise NotImplementedError(f"{self.cls_name} must define construct(logits, labels)")


def _check_logits(owner: str, logits) -> None:
    if not isinstance(logits, Tensor) or not logits.dtype.is_float:
        raise TypeError(f"{owner}: logits must be a floating-point Tensor, got {describe(logits)}")


def _regression_labels(owner: str, logits, labels):
    """Numeric labels that broadcast against the logits; integer labels take the logits' dtype."""
    _check_logits(owner, logits)
    if not isinstance(labels, Tensor) or labels.dtype.is_bool:
        raise TypeError(f"{owner}: labels must be a numeric Tensor, got {describe(labels)}")
    if not _broadcastable(logits.shape, labels.shape):
        raise ValueError(f"{owner}: labels must have the shape of logits {list(logits.shape)} (or "
                         f"broadcast to it), got {describe(labels)}")
    return labels if labels.dtype.is_float else ops.cast(labels, logits.dtype)


def _broadcastable(a: tuple, b: tuple) -> bool:
    return all(x == y or x == 1 or y == 1 for x, y in zip(reversed(a), reversed(b)))


class MSELoss(LossBase):
    """``MSELoss(reduction='mean')``: ``(logits - labels) ** 2``, reduced.

    Example::

        >>> import graphcell as ms
        >>> from graphcell import nn
        >>> float(nn.MSELoss()(ms.Tensor([1.0, 2.0]), ms.Tensor([1.0, 4.0])))
        2.0
    """

    def construct(self, logits, labels):
        labels = _regression_labels(self.cls_name, logits, labels)
        return self.get_loss(ops.square(logits - labels))


class L1Loss(LossBase):
    """``L1Loss(reduction='mean')``: ``|logits - labels|``, reduced.

    Example::

        >>> import graphcell as ms
        >>> from graphcell import nn
        >>> float(nn.L1Loss()(ms.Tensor([1.0, 2.0]), ms.Tensor([1.0, 4.0])))
        1.0
    """

    def construct(self, logits, labels):
        labels = _regression_labels(self.cls_name, logits, labels)
        return self.get_loss(ops.abs(logits - labels))


class SoftmaxCrossEntropyWithLogits(LossBase):
    """``SoftmaxCrossEntropyWithLogits(sparse=False, reduction='none')``: the cross-entropy of
    ``softmax(logits)`` over the last axis against the labels, one value per example, reduced.

    Dense labels (``sparse=False``) are probabilities of the logits' dtype and shape; sparse labels
    are Int32/Int64 class indices of the logits' shape without its last axis.

    Example::

        >>> import numpy as np
        >>> import graphcell as ms
        >>> from graphcell import nn
        >>> loss = nn.SoftmaxCrossEntropyWithLogits()
        >>> loss(ms.Tensor([[0.0, 0.0]]), ms.Tensor([[1.0, 0.0]])).asnumpy()
        array([0.6931472], dtype=float32)
    """

    def __init__(self, sparse=False, reduction="none"):
        super().__init__(reduction)
        self.sparse = check_bool(sparse, "sparse", self.cls_name)

    def construct(self, logits, labels):
        _check_class_labels(self, logits, labels)
        if self.sparse:
            x = ops.sparse_softmax_cross_entropy(logits, labels)
        else:
            x, _ = ops.softmax_cross_entropy(logits, labels)
        return self.get_loss(x)


def _check_class_labels(loss: SoftmaxCrossEntropyWithLogits, logits, labels) -> None:
    owner = f"{loss.cls_name}(sparse={loss.sparse})"
    _check_logits(owner, logits)
    if logits.ndim < 1:
        raise ValueError(f"{owner}: logits must have a class axis, got {describe(logits)}")
    if loss.sparse:
        want_shape, want_dtype = logits.shape[:-1], "Int32 or Int64 class indices"
        ok_dtype = isinstance(labels, Tensor) and labels.dtype in (int32, int64)
    else:
        want_shape, want_dtype = logits.shape, f"{logits.dtype} probabilities"
        ok_dtype = isinstance(labels, Tensor) and labels.dtype == logits.dtype
    expected = f"labels of {want_dtype} with shape {list(want_shape)}"
    if not ok_dtype:
        hint = " (pass sparse=True for class indices)" if not loss.sparse and isinstance(
            labels, Tensor) and labels.dtype.is_int else ""
        raise TypeError(f"{owner}: expected {expected} for logits {describe(logits)}, got "
                        f"{describe(labels)}{hint}")
    if tuple(labels.shape) != tuple(want_shape):
        raise ValueError(f"{owner}: expected {expected} for logits {describe(logits)}, got "
                         f"{describe(labels)}")
