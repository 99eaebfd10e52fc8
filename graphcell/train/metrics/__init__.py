"""``mindspore.train.metrics``: evaluation metrics for ``Model.eval`` and ``Model.fit``.

Each metric accumulates with ``update(prediction, label)`` (``Loss``: ``update(loss)``) and
reports with ``eval()``; ``Model`` feeds them the eval network's ``(loss, outputs, label)``.
``Model(metrics={'acc', 'loss'})`` names metrics by the strings :func:`names` lists.

Example::

    >>> import numpy as np
    >>> from graphcell.train.metrics import get_metric_fn
    >>> acc = get_metric_fn('accuracy')
    >>> acc(np.array([[0.1, 0.9], [0.8, 0.2]]), np.array([1, 1]))
    0.5
"""
from __future__ import annotations

from types import MappingProxyType

from graphcell.train.metrics.accuracy import Accuracy
from graphcell.train.metrics.error import MAE, MSE
from graphcell.train.metrics.fbeta import F1, Fbeta
from graphcell.train.metrics.loss import Loss
from graphcell.train.metrics.metric import Metric, rearrange_inputs
from graphcell.train.metrics.precision import Precision, Recall
from graphcell.train.metrics.topk import (Top1CategoricalAccuracy, Top5CategoricalAccuracy,
                                          TopKCategoricalAccuracy)

__all__ = ["names", "get_metric_fn", "Accuracy", "MAE", "MSE", "Metric", "rearrange_inputs",
           "Precision", "Recall", "Fbeta", "F1", "TopKCategoricalAccuracy",
           "Top1CategoricalAccuracy", "Top5CategoricalAccuracy", "Loss"]

_BY_NAME = MappingProxyType({
    "accuracy": Accuracy, "acc": Accuracy, "precision": Precision, "recall": Recall, "F1": F1,
    "topk": TopKCategoricalAccuracy, "top_1_accuracy": Top1CategoricalAccuracy,
    "top_5_accuracy": Top5CategoricalAccuracy, "mae": MAE, "mse": MSE, "loss": Loss,
})
_NOT_PROVIDED = frozenset({
    "auc", "bleu_score", "confusion_matrix", "confusion_matrix_metric", "cosine_similarity",
    "dice", "hausdorff_distance", "mean_surface_distance", "occlusion_sensitivity", "perplexity",
    "roc", "root_mean_square_distance"})
"""MindSpore 2.10's other metric names, which graphcell does not implement."""


def names() -> list[str]:
    """The metric names :func:`get_metric_fn` and ``Model(metrics={...})`` accept, sorted."""
    return sorted(_BY_NAME)


def get_metric_fn(name, *args, **kwargs) -> Metric:
    """A new metric by name (``'acc'``, ``'mae'``, ...), built with ``*args, **kwargs``."""
    if name in _NOT_PROVIDED:
        raise KeyError(f"get_metric_fn: MindSpore's metric {name!r} is not implemented by "
                       f"graphcell; available: {names()}")
    if name not in _BY_NAME:
        raise KeyError(f"get_metric_fn: unknown metric {name!r}; available: {names()}")
    return _BY_NAME[name](*args, **kwargs)


def get_metrics(metrics) -> dict[str, Metric] | None:
    """``Model``'s ``metrics`` argument as ``{name: Metric}``: a set of names, or a dict of name
    to Metric object (None stays None)."""
    if metrics is None:
        return None
    if isinstance(metrics, dict):
        for key, metric in metrics.items():
            if not isinstance(key, str) or not isinstance(metric, Metric):
                raise TypeError("Model: a 'metrics' dict must map str names to Metric objects, "
                                f"got {key!r}: {type(metric).__name__}")
        return dict(metrics)
    if isinstance(metrics, (set, frozenset)):
        return {name: get_metric_fn(name) for name in sorted(metrics)}
    raise TypeError(f"Model: 'metrics' must be None, a set of metric names or a dict of name to "
                    f"Metric, got {type(metrics).__name__}")
