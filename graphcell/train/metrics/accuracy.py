"""``Accuracy``: the fraction of samples predicted right.

Example::

    >>> import numpy as np
    >>> from graphcell.train import Accuracy
    >>> acc = Accuracy('classification')
    >>> acc.update(np.array([[0.2, 0.8], [0.6, 0.4], [0.3, 0.7]]), np.array([1, 1, 1]))
    >>> float(acc.eval())
    0.6666666666666666
"""
from __future__ import annotations

import numpy as np

from graphcell.train.metrics.metric import EvaluationBase, rearrange_inputs

__all__ = ["Accuracy"]


class Accuracy(EvaluationBase):
    """``Accuracy(eval_type='classification')``: correct samples / samples.

    ``classification``: a sample is right when the argmax of its scores (axis 1) is its label
    (a class index, or a one-hot row). ``multilabel``: when every 0/1 prediction equals its label
    (each position past axis 1 is a sample).
    """

    def __init__(self, eval_type="classification"):
        super().__init__(eval_type)
        self.clear()

    def clear(self):
        """Forget every batch seen."""
        self._correct_num = 0
        self._total_num = 0
        self._class_num = 0

    @rearrange_inputs
    def update(self, *inputs):
        """``update(y_pred, y)``: count the batch's right predictions."""
        y_pred, y = self._two_inputs(inputs)
        class_num = self._check_class_num(y_pred)
        if self._type == "classification":
            right = (y_pred.argmax(axis=1) == y).reshape(-1)
        else:
            # each position past the class axis is one sample
            rows_pred = np.moveaxis(y_pred, 1, -1).reshape(-1, class_num)
            rows = np.moveaxis(y, 1, -1).reshape(-1, class_num)
            right = (rows_pred == rows).all(axis=1)
        self._correct_num += int(right.sum())
        self._total_num += right.shape[0]

    def eval(self) -> float:
        """Right predictions / predictions since the last ``clear``."""
        if self._total_num == 0:
            raise RuntimeError("Accuracy.eval: no samples yet (call update with predictions and "
                               "labels first)")
        return self._correct_num / self._total_num
