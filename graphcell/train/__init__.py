"""``mindspore.train``: checkpoints (``serialization``) and the training workflow — ``Model``,
its callbacks (``callback``) and metrics (``metrics``).

Example::

    >>> from graphcell.train import Model, LossMonitor, CheckpointConfig, ModelCheckpoint, Accuracy
    >>> from graphcell.train import save_checkpoint, load_checkpoint, load_param_into_net
"""
from graphcell.train import serialization
from graphcell.train.serialization import load_checkpoint, load_param_into_net, save_checkpoint
from graphcell.train import callback, metrics
from graphcell.train.callback import (Callback, CheckpointConfig, EarlyStopping, History,
                                      LambdaCallback, LearningRateScheduler, LossMonitor,
                                      ModelCheckpoint, ReduceLROnPlateau, RunContext, TimeMonitor)
from graphcell.train.metrics import (F1, MAE, MSE, Accuracy, Fbeta, Loss, Metric, Precision,
                                     Recall, Top1CategoricalAccuracy, Top5CategoricalAccuracy,
                                     TopKCategoricalAccuracy, get_metric_fn, names,
                                     rearrange_inputs)
from graphcell.train.model import Model
from graphcell.train import amp, loss_scale_manager  # noqa: E402
from graphcell.train.loss_scale_manager import (DynamicLossScaleManager, FixedLossScaleManager,
                                                LossScaleManager)

__all__ = ["serialization", "save_checkpoint", "load_checkpoint", "load_param_into_net", "Model",
           "callback", "metrics", "amp", "LossScaleManager", "FixedLossScaleManager",
           "DynamicLossScaleManager"]
__all__ += callback.__all__ + metrics.__all__


def __getattr__(name: str):
    from graphcell._compat import missing_attribute
    raise missing_attribute("mindspore.train", name, "module 'graphcell.train'")
