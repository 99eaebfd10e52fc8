"""``Fbeta`` and ``F1``: per-class F-scores of a classification.

``(1 + beta^2) * tp / (beta^2 * actual positives + predicted positives)`` per class, predictions
being the argmax of the scores; ``eval(average=True)`` is the mean over classes.

Example::

    >>> import numpy as np
    >>> from graphcell.train import F1
    >>> f = F1()
    >>> f.update(np.array([[0.2, 0.8], [0.6, 0.4], [0.3, 0.7]]), np.array([1, 0, 0]))
    >>> f.eval()
    array([0.66666667, 0.66666667])
"""
from __future__ import annotations

import numpy as np

from graphcell.train.metrics.metric import Metric, check_labels_fit, is_one_hot, one_hot, \
    rearrange_inputs
from graphcell.train.metrics.precision import EPS

__all__ = ["Fbeta", "F1"]


class Fbeta(Metric):
    """``Fbeta(beta)``: the F-beta score per class (``beta > 0``)."""

    def __init__(self, beta):
        super().__init__()
        if isinstance(beta, bool) or not isinstance(beta, (int, float)):
            raise TypeError(f"{type(self).__name__}: 'beta' must be a float, got {beta!r}")
        if not beta > 0:
            raise ValueError(f"{type(self).__name__}: 'beta' must be greater than 0, got {beta}")
        self.beta = beta
        self.eps = EPS
        self.clear()

    def clear(self):
        """Forget every batch seen."""
        self._true_positives = 0
        self._actual_positives = 0
        self._positives = 0
        self._class_num = 0

    @rearrange_inputs
    def update(self, *inputs):
        """``update(y_pred, y)``: ``(N, C)`` scores and ``(N,)`` class indices (or one-hot)."""
        name = type(self).__name__
        if len(inputs) != 2:
            raise ValueError(f"{name}.update: needs 2 inputs (prediction, label), got "
                             f"{len(inputs)}")
        y_pred, y = self._convert_data(inputs[0]), self._convert_data(inputs[1])
        if y_pred.ndim == y.ndim and is_one_hot(y):
            y = y.argmax(axis=1)
        if y_pred.ndim < 2 or y.size != y_pred.shape[0] * int(np.prod(y_pred.shape[2:])):
            raise ValueError(f"{name}.update: expected (N, C, ...) scores and (N, ...) labels, "
                             f"got shapes {list(y_pred.shape)} and {list(y.shape)}")
        if self._class_num == 0:
            self._class_num = y_pred.shape[1]
        elif y_pred.shape[1] != self._class_num:
            raise ValueError(f"{name}.update: earlier batches had {self._class_num} classes, "
                             f"this prediction has {y_pred.shape[1]}")
        check_labels_fit(name, y, self._class_num)
        y = one_hot(y, self._class_num)
        y_pred = one_hot(y_pred.argmax(axis=1), self._class_num)
        self._true_positives = self._true_positives + (y * y_pred).sum(axis=0)
        self._positives = self._positives + y_pred.sum(axis=0)
        self._actual_positives = self._actual_positives + y.sum(axis=0)

    def eval(self, average=False):
        """The score per class, or (``average=True``) their mean."""
        name = type(self).__name__
        if not isinstance(average, bool):
            raise TypeError(f"{name}.eval: 'average' must be a bool, got {average!r}")
        if self._class_num == 0:
            raise RuntimeError(f"{name}.eval: no samples yet (call update with predictions and "
                               "labels first)")
        b2 = self.beta ** 2
        scores = (1.0 + b2) * self._true_positives / (
            b2 * self._actual_positives + self._positives + self.eps)
        return float(scores.mean()) if average else scores


class F1(Fbeta):
    """``F1()``: ``Fbeta(1.0)``, the harmonic mean of precision and recall per class."""

    def __init__(self):
        super().__init__(1.0)
