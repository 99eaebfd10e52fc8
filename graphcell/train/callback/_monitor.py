"""The monitored value of ``EarlyStopping`` and ``ReduceLROnPlateau``: the training loss or an
evaluation result of ``Model.fit``, and which direction is better."""
from __future__ import annotations

import warnings

import numpy as np

from graphcell.train.callback._loss import step_loss

SMALLER_IS_BETTER = frozenset({"hausdorff_distance", "mae", "mse", "loss", "perplexity",
                               "mean_surface_distance", "root_mean_square_distance", "eval_loss"})
"""The monitors for which ``mode='auto'`` means ``'min'`` (MindSpore's list)."""


class Improvement:
    """Whether a value improves on the best by more than ``min_delta``, in ``mode``'s direction."""

    def __init__(self, monitor: str, mode: str, min_delta: float):
        self.lower = mode == "min" or (mode == "auto" and monitor in SMALLER_IS_BETTER)
        self.min_delta = abs(min_delta)

    @property
    def worst(self) -> float:
        return np.inf if self.lower else -np.inf

    def __call__(self, value, best) -> bool:
        if self.lower:
            return bool(np.less(value, best - self.min_delta))
        return bool(np.greater(value, best + self.min_delta))


def monitored_value(cb_params, monitor: str, owner: str):
    """The monitored value as a 0-d numpy array, or None (with a warning) when this epoch has none.

    ``'loss'`` is the last step's loss; any other name is looked up in ``eval_results`` (the
    metrics and ``eval_loss`` of an epoch of ``Model.fit`` that evaluated).
    """
    candidates = {}
    if monitor == "loss":
        value = step_loss(cb_params.get("net_outputs"))
    else:
        candidates = cb_params.get("eval_results") or {}
        value = candidates.get(monitor)
    if value is None:
        warnings.warn(f"{owner}: the monitored value {monitor!r} is not available this epoch; "
                      f"available: {sorted({'loss', *candidates})}", UserWarning, stacklevel=3)
        return None
    if hasattr(value, "asnumpy"):
        value = value.asnumpy()
    value = np.asarray(value)
    if value.size != 1:
        raise ValueError(f"{owner}: the monitored value {monitor!r} must be a scalar, got shape "
                         f"{list(value.shape)} (a per-class metric such as Precision)")
    return value.reshape(())
