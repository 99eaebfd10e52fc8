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
from graphcell.nn.container import CellList, SequentialCell

__all__ = ["Cell", "CellList", "SequentialCell"]
from graphcell.nn.layers import (AvgPool2d, BatchNorm1d, BatchNorm2d, Conv2d, Dense, Dropout,  # noqa: E402
                                 Flatten, LogSoftmax, MatMul, MaxPool2d, ReLU, Sigmoid, Softmax,
                                 Tanh, get_activation)
from graphcell.nn.loss import L1Loss, LossBase, MSELoss, SoftmaxCrossEntropyWithLogits  # noqa: E402
from graphcell.nn.optim import SGD, Adam, Momentum, Optimizer  # noqa: E402
from graphcell.nn.wrap import TrainOneStepCell, WithEvalCell, WithLossCell  # noqa: E402
from graphcell.parallel.grad_reducer import DistributedGradReducer  # noqa: E402
from graphcell.nn.graph_cell import GraphCell  # noqa: E402
# MindSpore's nn also names the metrics of mindspore.train (imported last: graphcell.train needs nn)
from graphcell.train.metrics import (F1, MAE, MSE, Accuracy, Fbeta, Loss, Metric,  # noqa: E402
                                     Precision, Recall, Top1CategoricalAccuracy,
                                     Top5CategoricalAccuracy, TopKCategoricalAccuracy,
                                     get_metric_fn, names, rearrange_inputs)


def __getattr__(name: str):
    from graphcell._compat import missing_attribute
    raise missing_attribute("mindspore.nn", name, "module 'graphcell.nn'")
