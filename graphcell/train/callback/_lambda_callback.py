"""``LambdaCallback``: a callback made of functions, one per hook.

Example::

    >>> from graphcell.train import LambdaCallback, RunContext
    >>> cb = LambdaCallback(on_train_step_end=lambda rc: print("step done"))
    >>> cb.on_train_step_end(RunContext({})); cb.on_train_begin(RunContext({}))
    step done
"""
from __future__ import annotations

from graphcell.train.callback._callback import HOOKS, Callback

__all__ = ["LambdaCallback"]


class LambdaCallback(Callback):
    """``LambdaCallback(on_train_epoch_begin=None, ..., on_eval_end=None)`` (one argument per
    hook): each given function is called with the RunContext at its hook; the others do nothing."""

    def __init__(self, on_train_epoch_begin=None, on_train_epoch_end=None,
                 on_train_step_begin=None, on_train_step_end=None, on_train_begin=None,
                 on_train_end=None, on_eval_epoch_begin=None, on_eval_epoch_end=None,
                 on_eval_step_begin=None, on_eval_step_end=None, on_eval_begin=None,
                 on_eval_end=None):
        super().__init__()
        given = dict(locals())
        for hook in HOOKS:
            fn = given[hook]
            if fn is not None and not callable(fn):
                raise TypeError(f"LambdaCallback: '{hook}' must be callable, got "
                                f"{type(fn).__name__}")
            setattr(self, hook, fn if fn is not None else _nothing)


def _nothing(run_context):
    return None
