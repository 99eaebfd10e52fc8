"""Regression losses: ``L1Loss``, ``MSELoss``, ``RMSELoss``, ``MAELoss``, ``SmoothL1Loss``,
``HuberLoss``, ``GaussianNLLLoss`` and ``PoissonNLLLoss`` (MindSpore 2.10's signatures).

Each is a thin cell over the functional loss in ``graphcell.ops`` or a few ops; labels are checked
before any op runs, so a wrong dtype or shape is reported by the loss cell with what it expected
and what came.

Example::

    >>> import graphcell as ms
    >>> from graphcell import nn
    >>> float(nn.MSELoss()(ms.Tensor([1.0, 2.0]), ms.Tensor([1.0, 4.0])))
    2.0
"""
from __future__ import annotations

import math

from graphcell import ops
from graphcell.nn.layers._validate import check_bool, check_float, describe
from graphcell.nn.loss.base import LossBase, check_reduction, check_tensor_input
from graphcell_ir.ir.types import uint8, uint16, uint32, uint64

__all__ = ["L1Loss", "MSELoss", "RMSELoss", "MAELoss", "SmoothL1Loss", "HuberLoss",
           "GaussianNLLLoss", "PoissonNLLLoss"]


def _pair(owner: str, logits, labels) -> None:
    """Two tensors whose shapes broadcast together."""
    check_tensor_input(owner, "logits", logits)
    check_tensor_input(owner, "labels", labels)
    a, b = tuple(logits.shape), tuple(labels.shape)
    if not all(x == y or x == 1 or y == 1 for x, y in zip(reversed(a), reversed(b))):
        raise ValueError(f"{owner}: labels must have the shape of logits {list(a)} (or broadcast "
                         f"to it), got {describe(labels)}")


class L1Loss(LossBase):
    """``L1Loss(reduction='mean')``: ``|logits - labels|``, reduced.

    Example::

        >>> import graphcell as ms
        >>> from graphcell import nn
        >>> float(nn.L1Loss()(ms.Tensor([1.0, 2.0]), ms.Tensor([1.0, 4.0])))
        1.0
    """

    def construct(self, logits, labels):
        _pair(self.cls_name, logits, labels)
        return ops.l1_loss(logits, labels, self.reduction)


class MSELoss(LossBase):
    """``MSELoss(reduction='mean')``: ``(logits - labels) ** 2``, reduced.

    Example::

        >>> import graphcell as ms
        >>> from graphcell import nn
        >>> float(nn.MSELoss(reduction='sum')(ms.Tensor([1.0, 2.0]), ms.Tensor([1.0, 4.0])))
        4.0
    """

    def construct(self, logits, labels):
        _pair(self.cls_name, logits, labels)
        return self.get_loss(ops.square(logits - labels))


class RMSELoss(LossBase):
    """``RMSELoss()``: the square root of the mean squared error.

    Example::

        >>> import graphcell as ms
        >>> from graphcell import nn
        >>> float(nn.RMSELoss()(ms.Tensor([0.0, 0.0]), ms.Tensor([3.0, 4.0])))   # sqrt(12.5)
        3.535533905029297
    """

    def __init__(self):
        super().__init__()
        self.MSELoss = MSELoss()

    def construct(self, logits, label):
        _no_unsigned(self.cls_name, logits=logits, label=label)
        return ops.sqrt(self.MSELoss(logits, label))


def _no_unsigned(owner: str, **tensors) -> None:
    for name, t in tensors.items():
        check_tensor_input(owner, name, t)
        if t.dtype in (uint8, uint16, uint32, uint64):
            raise TypeError(f"{owner}: '{name}' must not be an unsigned integer tensor, got "
                            f"{describe(t)}")


class MAELoss(LossBase):
    """``MAELoss(reduction='mean')``: ``|logits - label|``, reduced with ``get_loss``.

    Example::

        >>> import graphcell as ms
        >>> from graphcell import nn
        >>> float(nn.MAELoss()(ms.Tensor([1.0, 2.0]), ms.Tensor([1.0, 4.0])))
        1.0
    """

    def construct(self, logits, label):
        _pair(self.cls_name, logits, label)
        return self.get_loss(ops.abs(logits - label))


class SmoothL1Loss(LossBase):
    """``SmoothL1Loss(beta=1.0, reduction='none')``: ``0.5 d^2 / beta`` where ``|d| < beta``,
    else ``|d| - 0.5 beta``, with ``d = logits - labels``.

    Example::

        >>> import graphcell as ms
        >>> from graphcell import nn
        >>> nn.SmoothL1Loss()(ms.Tensor([0.5, 3.0]), ms.Tensor([0.0, 0.0])).asnumpy().tolist()
        [0.125, 2.5]
    """

    def __init__(self, beta=1.0, reduction="none"):
        super().__init__(reduction)
        self.beta = check_float(beta, "beta", self.cls_name, low=0.0, low_open=True)
        self.smooth_l1_loss = ops.SmoothL1Loss(self.beta, self.reduction)

    def construct(self, logits, labels):
        return self.smooth_l1_loss(logits, labels)


class HuberLoss(LossBase):
    """``HuberLoss(reduction='mean', delta=1.0)``: ``0.5 d^2`` where ``|d| < delta``, else
    ``delta (|d| - 0.5 delta)``.

    Example::

        >>> import graphcell as ms
        >>> from graphcell import nn
        >>> float(nn.HuberLoss(reduction='sum')(ms.Tensor([0.5, 3.0]), ms.Tensor([0.0, 0.0])))
        2.625
    """

    def __init__(self, reduction="mean", delta=1.0):
        super().__init__(reduction)
        self.delta = delta

    def construct(self, logits, labels):
        return ops.huber_loss(logits, labels, self.reduction, self.delta)


class GaussianNLLLoss(LossBase):
    """``GaussianNLLLoss(*, full=False, eps=1e-6, reduction='mean')``: the negative
    log-likelihood of ``labels`` under ``N(logits, var)``; ``construct(logits, labels, var)``.

    Example::

        >>> import graphcell as ms
        >>> from graphcell import nn
        >>> loss = nn.GaussianNLLLoss()
        >>> float(loss(ms.Tensor([0.0]), ms.Tensor([2.0]), ms.Tensor([1.0])))   # (0 + 4) / 2
        2.0
    """

    def __init__(self, *, full=False, eps=1e-6, reduction="mean"):
        super().__init__()
        owner = self.cls_name
        self.eps = check_float(eps, "eps", owner, low=0.0, low_open=True)
        self.full = check_bool(full, "full", owner)
        self.reduction = check_reduction(reduction, owner)

    def construct(self, logits, labels, var):
        for name, value in (("logits", logits), ("labels", labels), ("var", var)):
            check_tensor_input(self.cls_name, name, value)
        return ops.gaussian_nll_loss(logits, labels, var, self.full, self.eps, self.reduction)


class PoissonNLLLoss(LossBase):
    """``PoissonNLLLoss(log_input=True, full=False, eps=1e-08, reduction='mean')``: the
    negative log-likelihood of ``target`` counts under a Poisson distribution of rate
    ``exp(input)`` (``log_input=True``) or ``input``; ``full`` adds Stirling's term for counts
    above 1.

    Example::

        >>> import graphcell as ms
        >>> from graphcell import nn
        >>> float(nn.PoissonNLLLoss()(ms.Tensor([0.0]), ms.Tensor([2.0])))   # exp(0) - 2 * 0
        1.0
    """

    def __init__(self, log_input=True, full=False, eps=1e-08, reduction="mean"):
        super().__init__(reduction)
        self.log_input = check_bool(log_input, "log_input", self.cls_name)
        self.full = check_bool(full, "full", self.cls_name)
        self.eps = check_float(eps, "eps", self.cls_name)

    def construct(self, input, target):  # noqa: A002 - MindSpore's argument name
        check_tensor_input(self.cls_name, "input", input)
        check_tensor_input(self.cls_name, "target", target)
        target = ops.cast(target, input.dtype)
        if self.log_input:
            loss = ops.exp(input) - target * input
        else:
            loss = input - target * ops.log(input + self.eps)
        if self.full:
            loss = loss + _stirling(target, self.eps)
        return self.get_loss(loss)


def _stirling(target, eps: float):
    """Stirling's approximation of log(target!) for targets above 1, else 0."""
    target = ops.maximum(target, eps)
    term = (target + 0.5) * ops.log(target) - target + 0.5 * math.log(2 * math.pi)
    return ops.select(target > 1, term, ops.zeros_like(term))
