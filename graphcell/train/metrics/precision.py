"""``Precision`` and ``Recall``: per-class (or, for multilabel, per-sample) rates.

``classification``: predictions are the argmax of the scores; ``eval()`` gives one value per class
(``true positives / predicted positives`` for precision, ``/ actual positives`` for recall), and
``eval(average=True)`` their mean. ``multilabel``: each sample's 0/1 row is compared with its label
row; ``eval()`` gives one value per sample seen, ``eval(average=True)`` their mean. A class (or
sample) with nothing to divide by gets 0 (the denominator carries ``sys.float_info.min``, as in
MindSpore; graphcell counts in float64, so this also holds for a multilabel average over float32
labels, which MindSpore 2.10 gives as NaN).

Example::

    >>> import numpy as np
    >>> from graphcell.train import Precision
    >>> p = Precision('classification')
    >>> p.update(np.array([[0.2, 0.8], [0.6, 0.4], [0.3, 0.7]]), np.array([1, 0, 0]))
    >>> p.eval(), p.eval(average=True)
    (array([1. , 0.5]), 0.75)
"""
from __future__ import annotations

import sys

import numpy as np

from graphcell.train.metrics.metric import EvaluationBase, check_labels_fit, one_hot, \
    rearrange_inputs

__all__ = ["Precision", "Recall"]

EPS = sys.float_info.min


class _Rate(EvaluationBase):
    """true positives / (a count of positives that the subclass chooses)."""

    def __init__(self, eval_type="classification"):
        super().__init__(eval_type)
        self.eps = EPS
        self.clear()

    def clear(self):
        """Forget every batch seen."""
        self._class_num = 0
        multilabel = self._type == "multilabel"
        self._true_positives = np.empty(0) if multilabel else 0
        self._denominators = np.empty(0) if multilabel else 0
        self._rate_sum = 0.0       # multilabel: sum of the per-sample rates
        self._rate_count = 0

    @staticmethod
    def _denominator(y_pred: np.ndarray, y: np.ndarray) -> np.ndarray:
        raise NotImplementedError

    @rearrange_inputs
    def update(self, *inputs):
        """``update(y_pred, y)``: add the batch's counts."""
        y_pred, y = self._two_inputs(inputs)
        class_num = self._check_class_num(y_pred)
        if self._type == "classification":
            check_labels_fit(type(self).__name__, y, class_num)
            y = one_hot(y, class_num)                               # (n, C)
            y_pred = one_hot(y_pred.argmax(axis=1), class_num)     # axis 0 below: per class
        else:
            # counts in float64: MindSpore counts float32 labels in float32, where its
            # sys.float_info.min guard underflows and a sample without positives averages to NaN
            y = np.moveaxis(y, 1, 0).reshape(class_num, -1).astype(np.float64)    # (C, n)
            y_pred = np.moveaxis(y_pred, 1, 0).reshape(class_num, -1).astype(np.float64)
            # axis 0 below: per sample
        true_positives = (y * y_pred).sum(axis=0)
        denominators = self._denominator(y_pred, y).sum(axis=0)
        if self._type == "multilabel":
            self._rate_sum += float(np.sum(true_positives / (denominators + self.eps)))
            self._rate_count += len(denominators)
            self._true_positives = np.concatenate((self._true_positives, true_positives))
            self._denominators = np.concatenate((self._denominators, denominators))
        else:
            self._true_positives = self._true_positives + true_positives
            self._denominators = self._denominators + denominators

    def eval(self, average=False):
        """Per-class (classification) or per-sample (multilabel) values; with ``average=True``
        their mean."""
        name = type(self).__name__
        if self._class_num == 0:
            raise RuntimeError(f"{name}.eval: no samples yet (call update with predictions and "
                               "labels first)")
        if not isinstance(average, bool):
            raise TypeError(f"{name}.eval: 'average' must be a bool, got {average!r}")
        result = self._true_positives / (self._denominators + self.eps)
        if not average:
            return result
        if self._type == "multilabel":
            return float(self._rate_sum / (self._rate_count + self.eps))
        return float(result.mean())


class Precision(_Rate):
    """``Precision(eval_type='classification')``: true positives / predicted positives."""

    @staticmethod
    def _denominator(y_pred, y):
        return y_pred


class Recall(_Rate):
    """``Recall(eval_type='classification')``: true positives / actual positives."""

    @staticmethod
    def _denominator(y_pred, y):
        return y
