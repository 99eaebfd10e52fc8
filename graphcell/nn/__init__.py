"""``graphcell.nn``: cells, containers, and (from later issues) layers, losses and optimizers.

Example::

    >>> from graphcell import nn
    >>> class Net(nn.Cell):
    ...     def construct(self, x):
    ...         return x * 2
    >>> Net()(3)
    6
"""
from graphcell.nn.cell import Cell
from graphcell.nn.container import CellDict, CellList, SequentialCell

__all__ = ["Cell", "CellList", "SequentialCell", "CellDict"]
from graphcell.nn import layers as _layers  # noqa: E402
from graphcell.nn.layers import *  # noqa: E402,F403 - the layers' own __all__

__all__ += _layers.__all__
from graphcell.nn.loss import *  # noqa: E402,F401,F403 - every loss cell
from graphcell.nn.learning_rate_schedule import *  # noqa: E402,F401,F403 - the schedules
from graphcell.nn.dynamic_lr import *  # noqa: E402,F401,F403 - the dynamic learning rates
from graphcell.nn.optim import *  # noqa: E402,F401,F403 - every optimizer
from graphcell.nn.wrap import *  # noqa: E402,F401,F403 - the training wrappers
from graphcell.nn.graph_cell import GraphCell  # noqa: E402
# MindSpore's nn also names the metrics of mindspore.train (imported last: graphcell.train needs nn)
from graphcell.train.metrics import (F1, MAE, MSE, Accuracy, Fbeta, Loss, Metric,  # noqa: E402
                                     Precision, Recall, Top1CategoricalAccuracy,
                                     Top5CategoricalAccuracy, TopKCategoricalAccuracy,
                                     get_metric_fn, names, rearrange_inputs)


def __getattr__(name: str):
    from graphcell._compat import missing_attribute
    raise missing_attribute("mindspore.nn", name, "module 'graphcell.nn'")
