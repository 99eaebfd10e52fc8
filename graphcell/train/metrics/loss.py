"""``Loss``: the average of the loss values ``update`` sees (each batch's loss averaged first).

Example::

    >>> import numpy as np
    >>> from graphcell.train import Loss
    >>> m = Loss()
    >>> m.update(np.array(0.2)); m.update(np.array([0.4, 0.8]))
    >>> round(m.eval(), 6)
    0.4
"""
from __future__ import annotations

from graphcell.train.metrics.metric import Metric, rearrange_inputs

__all__ = ["Loss"]


class Loss(Metric):
    """``Loss()``: mean over ``update`` calls of each call's (mean) loss."""

    def __init__(self):
        super().__init__()
        self.clear()

    def clear(self):
        """Forget every batch seen."""
        self._sum_loss = 0
        self._total_num = 0

    @rearrange_inputs
    def update(self, *inputs):
        """``update(loss)``: a 0-d or 1-D loss (a 1-D one counts as its mean)."""
        if len(inputs) != 1:
            raise ValueError(f"Loss.update: needs 1 input (the loss), got {len(inputs)}")
        loss = self._convert_data(inputs[0])
        if loss.ndim > 1:
            raise ValueError(f"Loss.update: the loss must be 0-d or 1-D, got shape "
                             f"{list(loss.shape)}")
        self._sum_loss += float(loss.reshape(-1).mean(-1))   # the mean in the loss's dtype
        self._total_num += 1

    def eval(self):
        """The average loss since the last ``clear``."""
        if self._total_num == 0:
            raise RuntimeError("Loss.eval: no loss yet (call update with a loss first)")
        return float(self._sum_loss / self._total_num)
