"""``EarlyStopping``: stops training when a monitored value stops improving.

Example::

    >>> from graphcell.train import EarlyStopping
    >>> EarlyStopping(monitor='eval_loss', patience=2).patience
    2
"""
from __future__ import annotations

import numpy as np

from graphcell.train.callback._callback import Callback
from graphcell.train.callback._checks import boolean, non_negative_int, one_of, real
from graphcell.train.callback._monitor import Improvement, monitored_value

__all__ = ["EarlyStopping"]


class EarlyStopping(Callback):
    """``EarlyStopping(monitor='eval_loss', min_delta=0, patience=0, verbose=False, mode='auto',
    baseline=None, restore_best_weights=False)``.

    At the end of each epoch it reads ``monitor`` (``'loss'``: the last step's loss; otherwise an
    evaluation result of ``Model.fit``: a metric name or ``'eval_loss'``). An epoch improves when
    the value beats the best so far by more than ``min_delta`` (``mode`` ``'min'``/``'max'``;
    ``'auto'`` picks ``'min'`` for losses and errors). Training stops once ``patience`` epochs in
    a row have not improved (or not beaten ``baseline``, when given); ``stopped_epoch`` says when.
    ``restore_best_weights`` loads the best epoch's parameters back when it stops.

    Differences from MindSpore 2.10, on purpose: with ``patience=0`` MindSpore stops after the
    first epoch even when it improved, and it takes ``min_delta`` as the baseline and a value of
    exactly 0 as "not available"; graphcell stops only after an epoch without improvement, uses
    ``baseline`` and accepts 0.
    """

    def __init__(self, monitor="eval_loss", min_delta=0, patience=0, verbose=False, mode="auto",
                 baseline=None, restore_best_weights=False):
        super().__init__()
        owner = "EarlyStopping"
        if not isinstance(monitor, str):
            raise TypeError(f"{owner}: 'monitor' must be a str, got {type(monitor).__name__}")
        self.monitor = monitor
        self.min_delta = abs(real(min_delta, "min_delta", owner))
        self.patience = non_negative_int(patience, "patience", owner)
        self.verbose = boolean(verbose, "verbose", owner)
        self.mode = one_of(mode, ("auto", "min", "max"), "mode", owner)
        self.baseline = None if baseline is None else real(baseline, "baseline", owner)
        self.restore_best_weights = boolean(restore_best_weights, "restore_best_weights", owner)
        self._improves = Improvement(monitor, mode, self.min_delta)
        self.on_train_begin(None)

    def on_train_begin(self, run_context):
        self.wait = 0
        self.stopped_epoch = 0
        self.best = self._improves.worst
        self.best_weights_param_dict = None

    def on_train_epoch_end(self, run_context):
        cb = run_context.original_args()
        current = monitored_value(cb, self.monitor, "EarlyStopping")
        if current is None:
            return
        if self.restore_best_weights and self.best_weights_param_dict is None:
            self.best_weights_param_dict = _snapshot(cb.train_network)
        self.wait += 1
        if self._improves(current, self.best):
            self.best = current
            if self.restore_best_weights:
                self.best_weights_param_dict = _snapshot(cb.train_network)
            if self.baseline is None or self._improves(current, self.baseline):
                self.wait = 0
        if self.wait > 0 and self.wait >= self.patience:
            self.stopped_epoch = cb.cur_epoch_num
            run_context.request_stop()
            if self.restore_best_weights and self.best_weights_param_dict is not None:
                if self.verbose:
                    print("Restoring model weights from the end of the best epoch.")
                _restore(cb.train_network, self.best_weights_param_dict)

    def on_train_end(self, run_context):
        if self.stopped_epoch > 0 and self.verbose:
            print(f"Epoch {self.stopped_epoch:05d}: early stopping")


def _snapshot(network) -> dict[str, np.ndarray]:
    return {p.name: p.asnumpy().copy() for p in network.get_parameters()}


def _restore(network, values: dict[str, np.ndarray]) -> None:
    from graphcell.tensor import Tensor
    for p in network.get_parameters():
        if p.name in values:
            p.set_data(Tensor(values[p.name]))
