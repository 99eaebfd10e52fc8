"""``History``: records each epoch's network output (the loss) and metrics.

Example::

    >>> from graphcell.train import History
    >>> h = History()
    >>> h.history
    {}
"""
from __future__ import annotations

import numpy as np

from graphcell.tensor import Tensor
from graphcell.train.callback._callback import Callback

__all__ = ["History"]


class History(Callback):
    """``History()``: after training, ``history`` maps ``'net_output'`` (the last step's mean
    output of each epoch) and each metric name (epochs of ``Model.fit`` that evaluated) to a list
    with one entry per epoch; ``epoch`` is ``{'epoch': [1, 2, ...]}``."""

    def __init__(self):
        super().__init__()
        self.history = {}
        self.epoch = None

    def begin(self, run_context):
        self.epoch = {"epoch": []}

    def epoch_end(self, run_context):
        cb = run_context.original_args()
        if self.epoch is None:
            self.epoch = {"epoch": []}
        self.epoch["epoch"].append(cb.get("cur_epoch_num", 1))
        output = cb.get("net_outputs")
        if isinstance(output, (tuple, list)) and output and isinstance(output[0], Tensor):
            output = output[0]
        if isinstance(output, Tensor):
            output = np.mean(output.asnumpy())
        record = {"net_output": output}
        record.update(cb.get("metrics") or {})
        for key, value in record.items():
            self.history.setdefault(key, []).append(value)
