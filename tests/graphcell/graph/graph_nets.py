"""Networks of the seed pages, renamed to graphcell, shared by the graph-mode tests."""
import numpy as np

import graphcell as ms
from graphcell import nn, ops
from graphcell import Tensor, ParameterTuple, ms_function
from graphcell.common.initializer import TruncatedNormal


# --- debugging_in_pynative_mode.md: "Improving PyNative Performance" ----------------------------

class TensorAddNet(nn.Cell):
    def __init__(self):
        super(TensorAddNet, self).__init__()
        self.add = ops.Add()

    @ms_function
    def construct(self, x, y):
        res = self.add(x, y)
        return res


# --- debugging_in_pynative_mode.md: LeNet5 ------------------------------------------------------

def conv(in_channels, out_channels, kernel_size, stride=1, padding=0):
    """weight initial for conv layer"""
    weight = weight_variable()
    return nn.Conv2d(in_channels, out_channels,
                     kernel_size=kernel_size, stride=stride, padding=padding,
                     weight_init=weight, has_bias=False, pad_mode="valid")


def fc_with_initialize(input_channels, out_channels):
    """weight initial for fc layer"""
    weight = weight_variable()
    bias = weight_variable()
    return nn.Dense(input_channels, out_channels, weight, bias)


def weight_variable():
    """weight initial"""
    return TruncatedNormal(0.02)


class LeNet5(nn.Cell):
    def __init__(self, num_class=10):
        super(LeNet5, self).__init__()
        self.num_class = num_class
        self.batch_size = 32
        self.conv1 = conv(1, 6, 5)
        self.conv2 = conv(6, 16, 5)
        self.fc1 = fc_with_initialize(16 * 5 * 5, 120)
        self.fc2 = fc_with_initialize(120, 84)
        self.fc3 = fc_with_initialize(84, self.num_class)
        self.relu = nn.ReLU()
        self.max_pool2d = nn.MaxPool2d(kernel_size=2, stride=2)
        self.reshape = ops.Reshape()

    def construct(self, x):
        x = self.conv1(x)
        x = self.relu(x)
        x = self.max_pool2d(x)
        x = self.conv2(x)
        x = self.relu(x)
        x = self.max_pool2d(x)
        x = self.reshape(x, (self.batch_size, -1))
        x = self.fc1(x)
        x = self.relu(x)
        x = self.fc2(x)
        x = self.relu(x)
        x = self.fc3(x)
        return x


# --- cell_and_parameter.md ---------------------------------------------------------------------

class Network(nn.Cell):
    def __init__(self):
        super().__init__()
        self.w = ms.Parameter(Tensor(np.random.randn(5, 3), ms.float32), name='w')  # weight
        self.b = ms.Parameter(Tensor(np.random.randn(3,), ms.float32), name='b')  # bias

    def construct(self, x):
        z = ops.matmul(x, self.w) + self.b
        return z


class Threshold(nn.Cell):
    def __init__(self, threshold, value):
        super().__init__()
        self.threshold = threshold
        self.value = value

    def construct(self, inputs):
        cond = ops.gt(inputs, self.threshold)
        value = ops.fill(inputs.dtype, inputs.shape, self.value)
        return ops.select(cond, inputs, value)


def copy_parameters(src: nn.Cell, dst: nn.Cell) -> None:
    """Give ``dst`` the values of ``src``'s parameters (same architecture)."""
    for p, q in zip(src.get_parameters(), dst.get_parameters()):
        q.set_data(Tensor(p.asnumpy().copy()))


# --- custom bprop: debugging_in_pynative_mode.md and cell_and_parameter.md ------------------------

class CustomBpropNet(nn.Cell):
    """debugging_in_pynative_mode.md, "Custom bprop"."""

    def __init__(self):
        super(CustomBpropNet, self).__init__()

    def construct(self, x, y):
        z = x * y
        z = z * y
        return z

    def bprop(self, x, y, out, dout):
        x_dout = x + y
        y_dout = x * y
        return x_dout, y_dout


class Dropout2d(nn.Cell):
    """cell_and_parameter.md, "Custom Cell Reverse"."""

    def __init__(self, keep_prob):
        super().__init__()
        self.keep_prob = keep_prob
        self.dropout2d = ops.Dropout2D(keep_prob)

    def construct(self, x):
        return self.dropout2d(x)

    def bprop(self, x, out, dout):
        _, mask = out
        dy, _ = dout
        if self.keep_prob != 0:
            dy = dy * (1 / self.keep_prob)
        dy = mask.astype(ms.float32) * dy
        return (dy.astype(x.dtype), )


# --- debugging_in_pynative_mode.md: the LeNet training sample's gradient wrapper ------------------

class GradWrap(nn.Cell):
    """ GradWrap definition """
    def __init__(self, network):
        super(GradWrap, self).__init__(auto_prefix=False)
        self.network = network
        self.weights = ParameterTuple(filter(lambda x: x.requires_grad, network.get_parameters()))

    def construct(self, x, label):
        weights = self.weights
        return ops.GradOperation(get_by_list=True)(self.network, weights)(x, label)
