"""``mindspore.train``: checkpoints (``serialization``) and the training workflow's metrics
(``metrics``).

Example::

    >>> from graphcell.train import save_checkpoint, load_checkpoint, load_param_into_net, Accuracy
"""
from graphcell.train import serialization
from graphcell.train.serialization import load_checkpoint, load_param_into_net, save_checkpoint
from graphcell.train import metrics
from graphcell.train.metrics import (F1, MAE, MSE, Accuracy, Fbeta, Loss, Metric, Precision,
                                     Recall, Top1CategoricalAccuracy, Top5CategoricalAccuracy,
                                     TopKCategoricalAccuracy, get_metric_fn, names,
                                     rearrange_inputs)

__all__ = ["serialization", "save_checkpoint", "load_checkpoint", "load_param_into_net",
           "metrics"]
__all__ += metrics.__all__
