"""``LossMonitor``: prints the loss every few steps, as MindSpore does.

Its lines are MindSpore's: ``epoch: 1 step: 5, loss is 2.2994232177734375`` (the step counted
within the epoch), and, after an epoch of ``Model.fit`` that evaluated,
``Eval result: epoch 1, metrics: {'acc': 0.9}``.

Example::

    >>> from graphcell.train import LossMonitor, RunContext
    >>> from graphcell.train.callback import InternalCallbackParam
    >>> import graphcell as ms
    >>> p = InternalCallbackParam(cur_epoch_num=1, cur_step_num=3, batch_num=2,
    ...                           net_outputs=ms.Tensor(0.5), dataset_sink_mode=False)
    >>> LossMonitor().on_train_step_end(RunContext(p))
    epoch: 1 step: 1, loss is 0.5
"""
from __future__ import annotations

from graphcell.train.callback._callback import Callback
from graphcell.train.callback._checks import non_negative_int
from graphcell.train.callback._loss import is_bad_loss, step_loss

__all__ = ["LossMonitor"]


class LossMonitor(Callback):
    """``LossMonitor(per_print_times=1)``: print the loss every ``per_print_times`` steps (0:
    never).

    A NaN or infinite loss stops training with a ValueError naming the epoch and step. Like
    MindSpore's, it also prints in ``Model.eval`` when given there (the eval output's loss).
    """

    def __init__(self, per_print_times=1):
        super().__init__()
        self._per_print_times = non_negative_int(per_print_times, "per_print_times", "LossMonitor")
        self._last_print_step = 0

    def step_end(self, run_context):
        cb = run_context.original_args()
        epoch = cb.get("cur_epoch_num", 1)
        loss = step_loss(cb.net_outputs)
        step_in_epoch = (cb.cur_step_num - 1) % cb.batch_num + 1
        if is_bad_loss(loss):
            raise ValueError(f"LossMonitor: in epoch {epoch} step {step_in_epoch} the loss is "
                             f"{loss}: training cannot continue")
        every = self._per_print_times
        if every == 0:
            return
        if cb.cur_step_num <= self._last_print_step:
            # a new train/eval call counts its steps from 1 again: keep the printing rhythm
            stride = max(every, cb.batch_num if cb.get("dataset_sink_mode") else 1)
            behind = self._last_print_step - cb.cur_step_num
            self._last_print_step -= stride * (behind // stride + 1)
        if cb.cur_step_num - self._last_print_step >= every:
            self._last_print_step = cb.cur_step_num
            print(f"epoch: {epoch} step: {step_in_epoch}, loss is {loss}", flush=True)

    def on_train_epoch_end(self, run_context):
        cb = run_context.original_args()
        metrics = cb.get("metrics")
        if metrics:
            print(f"Eval result: epoch {cb.cur_epoch_num}, metrics: {metrics}", flush=True)
