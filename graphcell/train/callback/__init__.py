"""``mindspore.train.callback``: what ``Model.train``/``eval``/``fit`` call while they run.

Example::

    >>> from graphcell.train.callback import LossMonitor, ModelCheckpoint, CheckpointConfig
    >>> callbacks = [LossMonitor(100), ModelCheckpoint("net", config=CheckpointConfig(1000))]
"""
from graphcell.train.callback._callback import Callback, InternalCallbackParam, RunContext
from graphcell.train.callback._checkpoint import CheckpointConfig, ModelCheckpoint
from graphcell.train.callback._early_stop import EarlyStopping
from graphcell.train.callback._history import History
from graphcell.train.callback._lambda_callback import LambdaCallback
from graphcell.train.callback._loss_monitor import LossMonitor
from graphcell.train.callback._lr_scheduler import LearningRateScheduler
from graphcell.train.callback._reduce_lr_on_plateau import ReduceLROnPlateau
from graphcell.train.callback._time_monitor import TimeMonitor

__all__ = ["Callback", "LossMonitor", "TimeMonitor", "ModelCheckpoint", "CheckpointConfig",
           "RunContext", "LearningRateScheduler", "History", "LambdaCallback",
           "ReduceLROnPlateau", "EarlyStopping"]
