"""Margin and embedding losses (MindSpore 2.10's signatures): ``MarginRankingLoss``,
``SoftMarginLoss``, ``MultiMarginLoss``, ``MultiLabelSoftMarginLoss``, ``MultilabelMarginLoss``,
``CosineEmbeddingLoss``, ``HingeEmbeddingLoss``, ``TripletMarginLoss`` and
``TripletMarginWithDistanceLoss``.

Example::

    >>> import graphcell as ms
    >>> from graphcell import nn
    >>> loss = nn.MarginRankingLoss(margin=0.5)
    >>> float(loss(ms.Tensor([1.0]), ms.Tensor([2.0]), ms.Tensor([1.0])))   # max(0, 1 + 0.5)
    1.5
"""
from __future__ import annotations

from graphcell import ops
from graphcell.nn.layers._validate import _is_number, check_bool, check_float, describe
from graphcell.nn.loss.base import LossBase, check_reduction, check_tensor_input

__all__ = ["MarginRankingLoss", "SoftMarginLoss", "MultiMarginLoss", "MultiLabelSoftMarginLoss",
           "MultilabelMarginLoss", "CosineEmbeddingLoss", "HingeEmbeddingLoss",
           "TripletMarginLoss", "TripletMarginWithDistanceLoss"]


class MarginRankingLoss(LossBase):
    """``MarginRankingLoss(margin=0.0, reduction='mean')``: ``max(0, -target * (input1 -
    input2) + margin)``; ``construct(input1, input2, target)``.
    """

    def __init__(self, margin=0.0, reduction="mean"):
        super().__init__(reduction)
        self.margin = margin

    def construct(self, input1, input2, target):
        return ops.margin_ranking_loss(input1, input2, target, self.margin, self.reduction)


class SoftMarginLoss(LossBase):
    """``SoftMarginLoss(reduction='mean')``: ``log(1 + exp(-labels * logits))``, reduced.

    Example::

        >>> import graphcell as ms
        >>> from graphcell import nn
        >>> round(float(nn.SoftMarginLoss()(ms.Tensor([0.0]), ms.Tensor([1.0]))), 4)
        0.6931
    """

    def __init__(self, reduction="mean"):
        super().__init__()
        self.reduction = reduction

    def construct(self, logits, labels):
        return ops.soft_margin_loss(logits, labels, self.reduction)


class MultiMarginLoss(LossBase):
    """``MultiMarginLoss(p=1, margin=1.0, reduction='mean', weight=None)``: the multi-class
    hinge loss ``sum_{i != y} w[y] max(0, margin - x[y] + x[i]) ** p / C`` per sample;
    ``construct(x, target, weight=None)`` (a ``weight`` given at construction wins).

    Example::

        >>> import numpy as np
        >>> import graphcell as ms
        >>> from graphcell import nn
        >>> x = ms.Tensor(np.array([[0.1, 0.2, 0.4]], np.float32))
        >>> round(float(nn.MultiMarginLoss()(x, ms.Tensor(np.array([2], np.int64)))), 4)
        0.5
    """

    def __init__(self, p=1, margin=1.0, reduction="mean", weight=None):
        super().__init__()
        self.multi_margin_loss = ops.MultiMarginLoss(p=p, margin=margin, reduction=reduction)
        self.weight = weight

    def construct(self, x, target, weight=None):
        check_tensor_input(self.cls_name, "x", x)
        check_tensor_input(self.cls_name, "target", target)
        if self.weight is not None:
            weight = self.weight
        if weight is None:
            weight = ops.ones((x.shape[-1],), x.dtype)
        else:
            check_tensor_input(self.cls_name, "weight", weight)
        return self.multi_margin_loss(x, target, weight)


class MultiLabelSoftMarginLoss(LossBase):
    """``MultiLabelSoftMarginLoss(weight=None, reduction='mean')``: the mean over classes of the
    binary cross-entropy of ``sigmoid(x)`` against the 0/1 ``target``; ``construct(x,
    target)``.
    """

    def __init__(self, weight=None, reduction="mean"):
        super().__init__(reduction)
        self.weight = weight

    def construct(self, x, target):
        return ops.multilabel_soft_margin_loss(x, target, self.weight, self.reduction)


class MultilabelMarginLoss(LossBase):
    """``MultilabelMarginLoss(reduction='mean')``: the multi-label hinge loss of ``x`` (N, C)
    against ``target`` (N, C) — class indices, ended by the first -1; ``construct(x, target)``
    returns the loss (MindSpore's Primitive also returns the mask, which this cell drops).
    """

    def __init__(self, reduction="mean"):
        super().__init__()
        self.multilabel_margin_loss = ops.MultilabelMarginLoss(reduction=reduction)

    def construct(self, x, target):
        loss, _ = self.multilabel_margin_loss(x, target)
        return loss


class CosineEmbeddingLoss(LossBase):
    """``CosineEmbeddingLoss(margin=0.0, reduction='mean')``: ``1 - cos(x1, x2)`` where ``labels``
    is 1 and ``max(0, cos(x1, x2) - margin)`` where it is -1 (0 elsewhere), the cosine over
    axis 1; ``construct(logits_x1, logits_x2, labels)``. (``ops.cosine_embedding_loss``; for
    a zero vector its cosine is 0 where MindSpore's cell divides 0 by 0.)

    Example::

        >>> import graphcell as ms
        >>> from graphcell import nn
        >>> x1 = ms.Tensor([[1.0, 0.0]]); x2 = ms.Tensor([[0.0, 1.0]])
        >>> float(nn.CosineEmbeddingLoss()(x1, x2, ms.Tensor([1])))
        1.0
    """

    def __init__(self, margin=0.0, reduction="mean"):
        super().__init__(reduction)
        if not isinstance(margin, float):
            raise TypeError(f"{self.cls_name}: 'margin' must be a float, got "
                            f"{type(margin).__name__} {margin!r}")
        self.margin = check_float(margin, "margin", self.cls_name, -1.0, 1.0)

    def construct(self, logits_x1, logits_x2, labels):
        owner = self.cls_name
        for name, value in (("logits_x1", logits_x1), ("logits_x2", logits_x2),
                            ("labels", labels)):
            check_tensor_input(owner, name, value)
        if logits_x1.dtype != logits_x2.dtype or tuple(logits_x1.shape) != tuple(
                logits_x2.shape):
            raise TypeError(f"{owner}: logits_x1 and logits_x2 must have one dtype and shape, "
                            f"got {describe(logits_x1)} and {describe(logits_x2)}")
        return ops.cosine_embedding_loss(logits_x1, logits_x2, labels, self.margin,
                                         self.reduction)


class HingeEmbeddingLoss(LossBase):
    """``HingeEmbeddingLoss(margin=1.0, reduction='mean')``: ``x`` where ``labels`` is 1 and
    ``max(0, margin - x)`` where it is -1.

    Example::

        >>> import graphcell as ms
        >>> from graphcell import nn
        >>> loss = nn.HingeEmbeddingLoss(reduction='sum')
        >>> float(loss(ms.Tensor([0.3, 0.2]), ms.Tensor([1.0, -1.0])))    # 0.3 + 0.8
        1.100000023841858
    """

    def __init__(self, margin=1.0, reduction="mean"):
        super().__init__()
        if not _is_number(margin):
            raise TypeError(f"{self.cls_name}: 'margin' must be a float or an int, got "
                            f"{type(margin).__name__} {margin!r}")
        self.margin = margin
        self.reduction = check_reduction(reduction, self.cls_name)

    def construct(self, logits, labels):
        return ops.hinge_embedding_loss(logits, labels, self.margin, self.reduction)


class TripletMarginLoss(LossBase):
    """``TripletMarginLoss(p=2, swap=False, eps=1e-06, reduction='mean', margin=1.0)``:
    ``max(d(x, positive) - d(x, negative) + margin, 0)`` with the ``p``-norm distance;
    ``construct(x, positive, negative, margin=1.0)`` (a margin other than 1.0 given at
    construction wins, as in MindSpore).
    """

    def __init__(self, p=2, swap=False, eps=1e-06, reduction="mean", margin=1.0):
        super().__init__()
        self.p, self.swap, self.eps = p, swap, eps
        self.reduction = reduction
        self.margin = margin

    def construct(self, x, positive, negative, margin=1.0):
        if self.margin != 1.0:
            margin = self.margin
        return ops.triplet_margin_loss(x, positive, negative, margin=margin, p=self.p,
                                       eps=self.eps, swap=self.swap, reduction=self.reduction)


class TripletMarginWithDistanceLoss(LossBase):
    """``TripletMarginWithDistanceLoss(distance_function=None, swap=False, reduction='mean',
    margin=1.0)``: ``max(d(x, positive) - d(x, negative) + margin, 0)`` for any distance
    function ``d`` (default: the Euclidean distance over axis 1).

    Example::

        >>> import graphcell as ms
        >>> from graphcell import nn
        >>> a, p, n = ms.Tensor([[0.0, 0.0]]), ms.Tensor([[3.0, 4.0]]), ms.Tensor([[0.0, 1.0]])
        >>> float(nn.TripletMarginWithDistanceLoss()(a, p, n))    # 5 - 1 + 1
        5.0
    """

    def __init__(self, distance_function=None, swap=False, reduction="mean", margin=1.0):
        super().__init__(reduction)
        if not isinstance(margin, float):
            raise TypeError(f"{self.cls_name}: 'margin' must be a float, got "
                            f"{type(margin).__name__} {margin!r}")
        self.swap = check_bool(swap, "swap", self.cls_name)
        self.margin = margin
        self.distance_function = distance_function if distance_function is not None \
            else pairwise_distance

    def construct(self, x, positive, negative):
        for name, value in (("x", x), ("positive", positive), ("negative", negative)):
            check_tensor_input(self.cls_name, name, value)
        d1 = self.distance_function(x, positive)
        d2 = self.distance_function(x, negative)
        if self.swap:
            d2 = ops.minimum(d2, self.distance_function(positive, negative))
        return self.get_loss(ops.maximum(d1 - d2 + self.margin, 0))


def pairwise_distance(x, y):
    """The Euclidean distance of ``x`` and ``y`` over axis 1 (the default distance of
    ``TripletMarginWithDistanceLoss``)."""
    d = ops.abs(x - y)
    if d.ndim == 0:
        raise ValueError("TripletMarginWithDistanceLoss: the default distance needs inputs "
                         "with at least one axis, got scalars")
    return ops.LpNorm(axis=1, p=2)(d)
