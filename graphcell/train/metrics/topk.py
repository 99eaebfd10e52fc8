"""``TopKCategoricalAccuracy`` (and ``Top1``/``Top5``): a sample counts when its label is among
its ``k`` highest scores.

Example::

    >>> import numpy as np
    >>> from graphcell.train import TopKCategoricalAccuracy
    >>> m = TopKCategoricalAccuracy(2)
    >>> m.update(np.array([[0.1, 0.5, 0.4], [0.7, 0.2, 0.1]]), np.array([2, 2]))
    >>> float(m.eval())
    0.5
"""
from __future__ import annotations

import numpy as np

from graphcell.train.metrics.metric import Metric, is_one_hot, rearrange_inputs

__all__ = ["TopKCategoricalAccuracy", "Top1CategoricalAccuracy", "Top5CategoricalAccuracy"]


class TopKCategoricalAccuracy(Metric):
    """``TopKCategoricalAccuracy(k)``: the fraction of samples whose label is among the ``k``
    best-scored classes (ties between scores are broken by numpy's ``argsort``)."""

    def __init__(self, k):
        super().__init__()
        if isinstance(k, bool) or not isinstance(k, int):
            raise TypeError(f"{type(self).__name__}: 'k' must be an int, got "
                            f"{type(k).__name__} {k!r}")
        if k < 1:
            raise ValueError(f"{type(self).__name__}: 'k' must be at least 1, got {k}")
        self.k = k
        self.clear()

    def clear(self):
        """Forget every batch seen."""
        self._correct_num = 0
        self._samples_num = 0

    @rearrange_inputs
    def update(self, *inputs):
        """``update(y_pred, y)``: ``(N, C)`` scores, ``(N,)`` class indices (or one-hot)."""
        name = type(self).__name__
        if len(inputs) != 2:
            raise ValueError(f"{name}.update: needs 2 inputs (prediction, label), got "
                             f"{len(inputs)}")
        y_pred, y = self._convert_data(inputs[0]), self._convert_data(inputs[1])
        if y_pred.ndim == y.ndim and is_one_hot(y):
            y = y.argmax(axis=1)
        if y_pred.ndim != 2 or y.size != y_pred.shape[0]:
            raise ValueError(f"{name}.update: expected (N, C) scores and N labels, got shapes "
                             f"{list(y_pred.shape)} and {list(y.shape)}")
        best = np.argsort(-y_pred, axis=1)[:, :self.k]
        hits = (best == y.reshape(-1, 1)).any(axis=1)
        self._correct_num += int(hits.sum())
        self._samples_num += y_pred.shape[0]

    def eval(self) -> float:
        """Samples with the label in their top k / samples since the last ``clear``."""
        if self._samples_num == 0:
            raise RuntimeError(f"{type(self).__name__}.eval: no samples yet (call update with "
                               "predictions and labels first)")
        return self._correct_num / self._samples_num


class Top1CategoricalAccuracy(TopKCategoricalAccuracy):
    """``Top1CategoricalAccuracy()``: ``TopKCategoricalAccuracy(1)``."""

    def __init__(self):
        super().__init__(1)


class Top5CategoricalAccuracy(TopKCategoricalAccuracy):
    """``Top5CategoricalAccuracy()``: ``TopKCategoricalAccuracy(5)``."""

    def __init__(self):
        super().__init__(5)
