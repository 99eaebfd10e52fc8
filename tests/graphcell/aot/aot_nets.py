"""Small networks the artifact tests export (module level: the frontend reads their source)."""
import numpy as np

import graphcell as ms
from graphcell import nn, ops
from onnx_nets import LeNet5  # the seed's: the native step runs its convolutions in Python


class MLP(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Dense(4, 8)
        self.relu = nn.ReLU()
        self.fc2 = nn.Dense(8, 3)

    def construct(self, x):
        return self.fc2(self.relu(self.fc1(x)))


class TwoOutputs(nn.Cell):
    def __init__(self):
        super().__init__()
        self.scale = ms.Parameter(ms.Tensor(np.array([2.0], np.float32)), name="scale")

    def construct(self, x, y):
        s = x * self.scale
        return s + y, {"diff": s - y, "tag": None}


def add_and_neg(x, y):
    return ops.neg(ops.add(x, y))


def train_step(seed=0):
    """A TrainOneStepCell over MLP with Momentum: the parameters and moments are written back."""
    np.random.seed(seed)
    ms.set_seed(seed)
    net = MLP()
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    opt = nn.Momentum(net.trainable_params(), learning_rate=0.1, momentum=0.9)
    return net, nn.TrainOneStepCell(nn.WithLossCell(net, loss), opt)


def inputs(seed=0):
    rng = np.random.default_rng(seed)
    x = ms.Tensor(rng.standard_normal((5, 4)).astype(np.float32))
    y = ms.Tensor(rng.integers(0, 3, 5).astype(np.int32))
    return x, y


class ConvBN(nn.Cell):
    """A convolution and a training-mode batch norm: the step runs batch norm by nn_loops."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(2, 4, 3, pad_mode="same")
        self.bn = nn.BatchNorm2d(4)
        self.relu = nn.ReLU()
        self.flatten = nn.Flatten()
        self.fc = nn.Dense(4 * 6 * 6, 10)

    def construct(self, x):
        return self.fc(self.flatten(self.relu(self.bn(self.conv(x)))))


class Transposing(nn.Cell):
    """Dense layers over the middle axis of a (batch, 5, 6) input: the step's layout loops."""

    def __init__(self):
        super().__init__()
        self.inner = nn.Dense(5, 8)
        self.relu = nn.ReLU()
        self.fc = nn.Dense(8, 10)

    def construct(self, x):
        h = self.relu(self.inner(ops.transpose(x, (0, 2, 1))))   # (batch, 6, 8)
        return self.fc(ops.mean(ops.transpose(h, (0, 2, 1)), 2))


SEGMENTED = {"lenet": (LeNet5, (1, 32, 32)), "conv_bn": (ConvBN, (2, 6, 6)),
             "transposing": (Transposing, (5, 6))}


def segmented_train_step(name, seed=0):
    """A TrainOneStepCell with Momentum over one of :data:`SEGMENTED`."""
    np.random.seed(seed)
    ms.set_seed(seed)
    net = SEGMENTED[name][0]()
    net.set_train()
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    opt = nn.Momentum(net.trainable_params(), learning_rate=0.01, momentum=0.9)
    return nn.TrainOneStepCell(nn.WithLossCell(net, loss), opt)


def segmented_inputs(name, seed=0, batch=4):
    rng = np.random.default_rng(seed)
    x = ms.Tensor(rng.standard_normal((batch, *SEGMENTED[name][1])).astype(np.float32))
    y = ms.Tensor(rng.integers(0, 10, batch).astype(np.int32))
    return x, y


class DirectConvs(nn.Cell):
    """Two stride-1 convolutions on 24x24 maps: the direct kernels' forward (and, as the
    input gradient of the second, forward of ``dy``), their filter gradients with 8 channels
    (``filter_direct``) and 32 (``filter_lanes``)."""

    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 8, 3, pad_mode="same")
        self.conv2 = nn.Conv2d(8, 32, 3, pad_mode="same")
        self.relu = nn.ReLU()
        self.fc = nn.Dense(32, 10)

    def construct(self, x):
        h = self.relu(self.conv2(self.relu(self.conv1(x))))
        return self.fc(ops.mean(h, (2, 3)))


SEGMENTED["direct"] = (DirectConvs, (3, 24, 24))
