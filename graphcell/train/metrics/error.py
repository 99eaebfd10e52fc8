"""``MAE`` and ``MSE``: mean absolute and mean squared error per sample.

Both sum the errors of every element and divide by the number of samples (the first axis of the
label), as MindSpore does: for ``(N, k)`` predictions the value is the per-sample error summed over
``k``, averaged over samples.

Example::

    >>> import numpy as np
    >>> from graphcell.train import MSE
    >>> float(MSE()(np.array([[1.0, 2.0], [0.0, 1.0]]), np.array([[1.0, 0.0], [0.0, 3.0]])))
    4.0
"""
from __future__ import annotations

import numpy as np

from graphcell.train.metrics.metric import Metric, rearrange_inputs

__all__ = ["MAE", "MSE"]


class _ElementError(Metric):
    """The sum over samples of an element-wise error, divided by the number of samples."""

    def __init__(self):
        super().__init__()
        self.clear()

    def clear(self):
        """Forget every batch seen."""
        self._error_sum = 0
        self._samples_num = 0

    def _error(self, diff: np.ndarray) -> np.ndarray:
        raise NotImplementedError

    @rearrange_inputs
    def update(self, *inputs):
        """``update(y_pred, y)``: add the batch's errors (``y`` is reshaped to ``y_pred``)."""
        name = type(self).__name__
        if len(inputs) != 2:
            raise ValueError(f"{name}.update: needs 2 inputs (prediction, label), got "
                             f"{len(inputs)}")
        y_pred, y = self._convert_data(inputs[0]), self._convert_data(inputs[1])
        if y.size != y_pred.size:
            raise ValueError(f"{name}.update: the label must have as many elements as the "
                             f"prediction, got shapes {list(y.shape)} and {list(y_pred.shape)}")
        # each batch sums in the inputs' dtype; the batches add up in float64
        self._error_sum += float(self._error(y.reshape(y_pred.shape) - y_pred).sum())
        self._samples_num += y.shape[0] if y.ndim else 1

    def eval(self) -> float:
        """The summed error / samples since the last ``clear``."""
        if self._samples_num == 0:
            raise RuntimeError(f"{type(self).__name__}.eval: no samples yet (call update with "
                               "predictions and labels first)")
        return float(self._error_sum / self._samples_num)


class MAE(_ElementError):
    """``MAE()``: mean absolute error, ``sum |y - y_pred| / N``."""

    def _error(self, diff):
        return np.abs(diff)


class MSE(_ElementError):
    """``MSE()``: mean squared error, ``sum (y - y_pred)^2 / N``."""

    def _error(self, diff):
        return np.square(diff)
