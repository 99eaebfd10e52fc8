"""``LearningRateScheduler``: sets the learning rate from a function of the step, after each step.

Example::

    >>> from graphcell.train import LearningRateScheduler
    >>> sched = LearningRateScheduler(lambda lr, step: lr * 0.9 if step % 10 == 0 else lr)
    >>> callable(sched.learning_rate_function)
    True
"""
from __future__ import annotations

import math

import numpy as np

from graphcell import ops
from graphcell.parameter import Parameter
from graphcell.tensor import Tensor
from graphcell.train.callback._callback import Callback

__all__ = ["LearningRateScheduler"]


class LearningRateScheduler(Callback):
    """``LearningRateScheduler(learning_rate_function)``: after every training step,
    ``learning_rate_function(lr, cur_step_num)`` gives the next learning rate (``lr`` is the
    current one as a Python float with float32's shortest digits: ``0.1``, not
    ``0.10000000149``); a change is written into the optimizer's ``learning_rate`` Parameter,
    which the next step (compiled or not) reads.

    The optimizer needs one fixed learning rate (a 0-d Parameter). Unlike MindSpore's, it acts
    only on training steps (MindSpore's also runs, and fails, on ``Model.eval``'s steps).
    """

    def __init__(self, learning_rate_function):
        super().__init__()
        if not callable(learning_rate_function):
            raise TypeError("LearningRateScheduler: 'learning_rate_function' must be callable, got "
                            f"{type(learning_rate_function).__name__}")
        self.learning_rate_function = learning_rate_function

    def on_train_step_end(self, run_context):
        cb = run_context.original_args()
        param = cb.optimizer.learning_rate if cb.get("optimizer") is not None else None
        if not isinstance(param, Parameter) or param.ndim != 0:
            raise ValueError("LearningRateScheduler: the model's optimizer must have one fixed "
                             "learning rate (a 0-d Parameter), not a dynamic or per-group one")
        lr = float(str(np.float32(param.asnumpy())))
        new_lr = self.learning_rate_function(lr, cb.cur_step_num)
        if not math.isclose(lr, new_lr, rel_tol=1e-10):
            ops.assign(param, Tensor(np.float32(new_lr)))
