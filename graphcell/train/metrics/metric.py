"""``Metric``: the base of the evaluation metrics (``clear``, ``update``, ``eval``).

A metric accumulates over the batches ``update`` sees and reports with ``eval``; ``clear`` starts
again. Calling a metric runs all three on one batch. Inputs are Tensors, numpy arrays or lists;
metrics compute on the host with numpy, as MindSpore's do, so their values are Python/numpy
numbers (or per-class numpy arrays for ``Precision``, ``Recall`` and ``Fbeta``).

``set_indexes([i, j])`` picks (and orders) which of ``update``'s inputs the metric reads, for
networks whose eval output holds more than ``(prediction, label)``; a subclass's ``update`` honours
it when decorated with :func:`rearrange_inputs`.

Example::

    >>> import numpy as np
    >>> from graphcell.train import MAE
    >>> m = MAE()
    >>> m.update(np.array([1.0, 2.0]), np.array([1.5, 2.0]))
    >>> m.update(np.array([0.0]), np.array([1.0]))
    >>> float(m.eval())
    0.5
"""
from __future__ import annotations

import functools
from abc import ABCMeta, abstractmethod

import numpy as np

from graphcell.tensor import Tensor

__all__ = ["Metric", "rearrange_inputs", "EvaluationBase"]

EVAL_TYPES = ("classification", "multilabel")


def rearrange_inputs(update):
    """Decorate ``update(self, *inputs)`` so that it sees ``inputs`` picked by ``self.indexes``.

    Example::

        >>> import numpy as np
        >>> from graphcell.train import Accuracy
        >>> acc = Accuracy().set_indexes([1, 2])     # update(loss, logits, labels)
        >>> acc.update(0.5, np.array([[0.1, 0.9]]), np.array([1]))
        >>> acc.eval()
        1.0
    """
    @functools.wraps(update)
    def picked(self, *inputs):
        indexes = self.indexes
        if indexes:
            if any(i >= len(inputs) or i < -len(inputs) for i in indexes):
                raise IndexError(f"{type(self).__name__}.update: indexes {indexes} pick inputs "
                                 f"beyond the {len(inputs)} given")
            inputs = tuple(inputs[i] for i in indexes)
        return update(self, *inputs)
    return picked


class Metric(metaclass=ABCMeta):
    """Base class of the metrics: subclasses define ``clear``, ``update(*inputs)`` and ``eval``.

    Example::

        >>> import numpy as np
        >>> from graphcell.train import Metric
        >>> class Count(Metric):
        ...     def clear(self): self.n = 0
        ...     def update(self, *inputs): self.n += len(self._convert_data(inputs[0]))
        ...     def eval(self): return self.n
        >>> Count()(np.zeros(3))
        3
    """

    def __init__(self):
        self._indexes = None

    def _convert_data(self, data) -> np.ndarray:
        """A Tensor, list or numpy array as a numpy array (anything else is a TypeError)."""
        if isinstance(data, Tensor):
            return data.asnumpy()
        if isinstance(data, np.ndarray):
            return data
        if isinstance(data, list):
            return np.array(data)
        raise TypeError(f"{type(self).__name__}: inputs must be Tensors, numpy arrays or lists, "
                        f"got {type(data).__name__}")

    @property
    def indexes(self):
        """The input positions ``update`` reads (None: all, in order); see ``set_indexes``."""
        return getattr(self, "_indexes", None)

    def set_indexes(self, indexes):
        """Read only the inputs at ``indexes`` (a list of ints), in that order; returns self."""
        if not isinstance(indexes, list) or not all(
                isinstance(i, int) and not isinstance(i, bool) for i in indexes):
            raise ValueError(f"{type(self).__name__}.set_indexes: indexes must be a list of ints, "
                             f"got {indexes!r}")
        self._indexes = indexes
        return self

    def __call__(self, *inputs):
        """``clear()``, ``update(*inputs)``, ``eval()``: the metric of one batch."""
        self.clear()
        self.update(*inputs)
        return self.eval()

    @abstractmethod
    def clear(self):
        """Forget everything seen so far."""

    @abstractmethod
    def update(self, *inputs):
        """Take one batch into account."""

    @abstractmethod
    def eval(self):
        """The metric over every batch since the last ``clear``."""


class EvaluationBase(Metric):
    """A classification metric with ``eval_type`` ``'classification'`` (scores against class
    indices or one-hot labels) or ``'multilabel'`` (0/1 predictions against 0/1 labels)."""

    def __init__(self, eval_type="classification"):
        super().__init__()
        if eval_type not in EVAL_TYPES:
            raise TypeError(f"{type(self).__name__}: 'eval_type' must be one of "
                            f"{list(EVAL_TYPES)}, got {eval_type!r}")
        self._type = eval_type

    def _two_inputs(self, inputs) -> tuple[np.ndarray, np.ndarray]:
        """``(y_pred, y)`` checked against ``eval_type``; one-hot labels become class indices."""
        name = type(self).__name__
        if len(inputs) != 2:
            raise ValueError(f"{name}.update: needs 2 inputs (prediction, label), got "
                             f"{len(inputs)}")
        y_pred, y = self._convert_data(inputs[0]), self._convert_data(inputs[1])
        if self._type == "classification" and y_pred.ndim == y.ndim and is_one_hot(y):
            y = y.argmax(axis=1)
        if self._type == "classification":
            want = (y_pred.shape[0],) + y_pred.shape[2:] if y_pred.ndim >= 2 else None
            if want is None or y.shape != want:
                raise ValueError(f"{name}.update: for classification, the prediction must be "
                                 f"(N, C, ...) scores and the label (N, ...) class indices or "
                                 f"(N, C, ...) one-hot; got prediction shape {list(y_pred.shape)}"
                                 f" and label shape {list(y.shape)}")
        else:
            if y_pred.shape != y.shape or y_pred.ndim < 2:
                raise ValueError(f"{name}.update: for multilabel, the prediction and the label "
                                 f"must have the same (N, C, ...) shape, got {list(y_pred.shape)}"
                                 f" and {list(y.shape)}")
            if not (_is_binary(y_pred) and _is_binary(y)):
                raise ValueError(f"{name}.update: for multilabel, every prediction and label "
                                 "must be 0 or 1")
        return y_pred, y

    def _check_class_num(self, y_pred: np.ndarray) -> int:
        """The number of classes (axis 1), fixed by the first batch after ``clear``."""
        if self._class_num == 0:
            self._class_num = y_pred.shape[1]
        elif y_pred.shape[1] != self._class_num:
            raise ValueError(f"{type(self).__name__}.update: earlier batches had "
                             f"{self._class_num} classes, this prediction has {y_pred.shape[1]}")
        return self._class_num


def is_one_hot(y: np.ndarray) -> bool:
    """Whether ``y`` (N, C, ...) holds 0/1 values with exactly one 1 along axis 1."""
    return y.ndim > 1 and _is_binary(y) and bool(np.all(y.sum(axis=1) == 1))


def _is_binary(a: np.ndarray) -> bool:
    return bool(np.all((a == 0) | (a == 1)))


def check_labels_fit(name: str, y: np.ndarray, class_num: int) -> None:
    if y.size and (y.max() >= class_num or y.min() < 0):
        raise ValueError(f"{name}.update: labels must be class indices in [0, {class_num}) for a "
                         f"prediction of {class_num} classes, got labels from {y.min()} to "
                         f"{y.max()}")


def one_hot(indices: np.ndarray, class_num: int) -> np.ndarray:
    """``(n, class_num)`` float64 rows with a 1 at each index."""
    return np.eye(class_num)[indices.reshape(-1)]
