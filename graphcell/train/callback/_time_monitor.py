"""``TimeMonitor``: prints each epoch's time, as MindSpore does.

Lines: ``Train epoch time: 1234.567 ms, per step time: 12.346 ms`` (``Eval ...`` for the
evaluation pass of ``Model.fit`` or ``Model.eval``), with `` (data time: 0.123 ms)`` when
``data_time=True``: the time per step spent between steps (fetching the next batch).

Example::

    >>> from graphcell.train import TimeMonitor
    >>> TimeMonitor(data_size=10).data_size
    10
"""
from __future__ import annotations

import time

from graphcell.train.callback._callback import Callback
from graphcell.train.callback._checks import boolean

__all__ = ["TimeMonitor"]


class TimeMonitor(Callback):
    """``TimeMonitor(data_size=None, data_time=False)``: print the epoch time and the time per step.

    The steps per epoch are the run's ``batch_num``; ``data_size`` is used where the run has none.
    Training and evaluation epochs are timed separately: in ``Model.fit`` a training epoch's time
    includes the evaluation run at its end (MindSpore restarts its one clock when the evaluation
    starts, so its "Train epoch time" there is the evaluation's time).
    """

    def __init__(self, data_size=None, data_time=False):
        super().__init__()
        if data_size is not None and (not isinstance(data_size, int) or isinstance(data_size, bool)
                                      or data_size <= 0):
            raise ValueError(f"TimeMonitor: 'data_size' must be None or a positive int, got "
                             f"{data_size!r}")
        self.data_size = data_size
        self.data_time = boolean(data_time, "data_time", "TimeMonitor")
        self.epoch_time = time.time()
        self._started = {}          # mode -> when its current epoch began
        self.data_time_sum = 0.0
        self.data_time_start = 0.0

    def epoch_begin(self, run_context):
        self.epoch_time = time.time()
        self._started[run_context.original_args().get("mode", "")] = self.epoch_time
        self.data_time_sum = 0.0
        self.data_time_start = time.time()

    def on_train_step_begin(self, run_context):
        if self.data_time:
            self.data_time_sum += time.time() - self.data_time_start

    def on_train_step_end(self, run_context):
        if self.data_time:
            self.data_time_start = time.time()

    def epoch_end(self, run_context):
        cb = run_context.original_args()
        started = self._started.get(cb.get("mode", ""), self.epoch_time)
        epoch_ms = (time.time() - started) * 1000
        steps = cb.get("batch_num")
        if not (isinstance(steps, int) and steps > 0):
            steps = self.data_size
        if steps is None:
            raise ValueError("TimeMonitor: the run does not say how many steps an epoch has; "
                             "give TimeMonitor(data_size=...)")
        line = (f"{cb.get('mode', '').title()} epoch time: {epoch_ms:5.3f} ms, per step time: "
                f"{epoch_ms / steps:5.3f} ms")
        if self.data_time:
            line += f" (data time: {self.data_time_sum * 1000 / steps:5.3f} ms)"
        print(line, flush=True)
