"""``LossBase``: the base of the loss cells — ``reduction``, ``get_loss`` and ``get_axis``.

A loss computes one value per element (or per example) and reduces it with ``reduction``:
``'mean'``, ``'sum'`` or ``'none'``. ``get_loss`` follows MindSpore 2.10: the values are cast to
Float32, multiplied by the weights, reduced over every axis and cast back to their dtype — so a
Float16 loss (mixed precision) is summed in Float32. One deliberate difference: Float64 values are
reduced in Float64 (MindSpore goes through Float32 and loses the precision).
"""
from __future__ import annotations

from graphcell import ops
from graphcell.nn.cell import Cell
from graphcell.nn.layers._validate import describe
from graphcell.tensor import Tensor
from graphcell_ir.ir.types import float32, float64

__all__ = ["LossBase", "REDUCTIONS", "check_reduction", "check_tensor_input"]

REDUCTIONS = ("mean", "sum", "none")


def check_reduction(reduction, owner: str) -> str:
    """``reduction`` is one of ``'mean'``, ``'sum'``, ``'none'``."""
    if reduction not in REDUCTIONS:
        raise ValueError(f"{owner}: 'reduction' must be one of {list(REDUCTIONS)}, got "
                         f"{reduction!r}")
    return reduction


def check_tensor_input(owner: str, name: str, value) -> None:
    """A loss input must be a Tensor (MindSpore's ``_check_is_tensor``)."""
    if not isinstance(value, Tensor):
        raise TypeError(f"{owner}: '{name}' must be a Tensor, got {describe(value)}")


class LossBase(Cell):
    """``LossBase(reduction='mean')``: the base class of losses; subclasses define
    ``construct(logits, labels)`` and reduce with ``get_loss``.

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
        self.reduction = check_reduction(reduction, self.cls_name)
        self.average = reduction == "mean"
        self.reduce = reduction != "none"

    def get_axis(self, x):
        """Every axis of ``x``: ``(0, 1, ..., x.ndim - 1)``.

        Example::

            >>> import numpy as np
            >>> import graphcell as ms
            >>> from graphcell import nn
            >>> nn.LossBase().get_axis(ms.Tensor(np.ones((2, 3, 4), np.float32)))
            (0, 1, 2)
        """
        return tuple(range(len(x.shape)))

    def get_loss(self, x, weights=1.0):
        """``x * weights``, reduced over every axis with ``reduction``, in ``x``'s dtype.

        The product and the reduction run in Float32 (Float64 for Float64 values), as MindSpore
        computes them, then the result is cast back to ``x``'s dtype.
        """
        dtype = x.dtype
        work = float64 if dtype == float64 else float32
        if dtype != work:
            x = ops.cast(x, work)
        if isinstance(weights, Tensor):
            x = x * (weights if weights.dtype == work else ops.cast(weights, work))
        elif not (isinstance(weights, (int, float)) and weights == 1.0):
            x = x * weights
        if self.reduce and self.average:
            x = ops.mean(x)
        elif self.reduce:
            x = ops.sum(x)
        return x if x.dtype == dtype else ops.cast(x, dtype)

    def construct(self, logits, labels):
        raise NotImplementedError(f"{self.cls_name} must define construct(logits, labels)")
