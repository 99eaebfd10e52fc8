"""``ReduceLROnPlateau``: multiplies the learning rate by ``factor`` when a monitored value stops
improving.

Example::

    >>> from graphcell.train import ReduceLROnPlateau
    >>> ReduceLROnPlateau(monitor='loss', factor=0.5, patience=1).factor
    0.5
"""
from __future__ import annotations

import numpy as np

from graphcell import ops
from graphcell.parameter import Parameter
from graphcell.tensor import Tensor
from graphcell.train.callback._callback import Callback
from graphcell.train.callback._checks import boolean, non_negative_int, one_of, real
from graphcell.train.callback._monitor import Improvement, monitored_value

__all__ = ["ReduceLROnPlateau"]


class ReduceLROnPlateau(Callback):
    """``ReduceLROnPlateau(monitor='eval_loss', factor=0.1, patience=10, verbose=False,
    mode='auto', min_delta=1e-4, cooldown=0, min_lr=0)``.

    At each epoch's end: after ``patience`` epochs without improvement (see ``EarlyStopping`` for
    ``monitor``, ``mode`` and ``min_delta``) the optimizer's learning rate becomes
    ``max(lr * factor, min_lr)``, then ``cooldown`` epochs pass before counting again. The
    optimizer needs one fixed learning rate (a 0-d Parameter).
    """

    def __init__(self, monitor="eval_loss", factor=0.1, patience=10, verbose=False, mode="auto",
                 min_delta=1e-4, cooldown=0, min_lr=0):
        super().__init__()
        owner = "ReduceLROnPlateau"
        if not isinstance(monitor, str):
            raise TypeError(f"{owner}: 'monitor' must be a str, got {type(monitor).__name__}")
        self.monitor = monitor
        self.factor = real(factor, "factor", owner)
        if not 0.0 < self.factor < 1.0:
            raise ValueError(f"{owner}: 'factor' must be in (0, 1), got {factor}")
        self.patience = non_negative_int(patience, "patience", owner)
        self.verbose = boolean(verbose, "verbose", owner)
        self.mode = one_of(mode, ("auto", "min", "max"), "mode", owner)
        self.min_delta = abs(real(min_delta, "min_delta", owner))
        self.cooldown = non_negative_int(cooldown, "cooldown", owner)
        self.min_lr = real(min_lr, "min_lr", owner)
        self._improves = Improvement(monitor, mode, self.min_delta)
        self.on_train_begin(None)

    def on_train_begin(self, run_context):
        self.cooldown_counter = 0
        self.wait = 0
        self.best = self._improves.worst

    def on_train_epoch_end(self, run_context):
        cb = run_context.original_args()
        lr = cb.optimizer.learning_rate
        if not isinstance(lr, Parameter) or lr.ndim != 0:
            raise ValueError("ReduceLROnPlateau: the optimizer must have one fixed learning rate "
                             "(not a dynamic or per-group one)")
        current = monitored_value(cb, self.monitor, "ReduceLROnPlateau")
        if current is None:
            return
        if self.cooldown_counter > 0:
            self.cooldown_counter -= 1
            self.wait = 0
        if self._improves(current, self.best):
            self.best = current
            self.wait = 0
        elif self.cooldown_counter <= 0:
            self.wait += 1
            if self.wait >= self.patience:
                old = float(lr.asnumpy())
                if old > self.min_lr:
                    new = max(old * self.factor, self.min_lr)
                    ops.assign(lr, Tensor(np.float32(new)))
                    if self.verbose:
                        print(f"Epoch {cb.cur_epoch_num:05d}: ReduceLROnPlateau reducing learning "
                              f"rate to {new}.")
                self.cooldown_counter = self.cooldown
                self.wait = 0
