"""The networks and hook functions of hook_programming.md, renamed to graphcell: shared by the
seed tests (what the page prints, PyNative) and the graph-mode differential tests."""
import numpy as np

import graphcell as ms
import graphcell.nn as nn


def ones1():
    return ms.Tensor(np.ones([1]).astype(np.float32))


def relu_net(**hooks):
    """The page's ``x + y`` then ReLU network, with ``hooks`` (``forward_pre=fn``...) registered
    on its ReLU; ``net.handles`` holds their handles in order."""
    class Net(nn.Cell):
        def __init__(self):
            super(Net, self).__init__()
            self.relu = nn.ReLU()
            self.handles = [getattr(self.relu, f"register_{kind}_hook")(fn)
                            for kind, fn in hooks.items()]

        def construct(self, x, y):
            x = x + y
            x = self.relu(x)
            return x
    return Net()


def forward_pre_hook_fn(cell, inputs):
    print("forward inputs: ", inputs)
    input_x = inputs[0]
    return input_x


def forward_hook_fn(cell, inputs, outputs):
    print("forward inputs: ", inputs)
    print("forward outputs: ", outputs)
    outputs = outputs + outputs
    return outputs


def conv_bn_net(kind, fn):
    """The page's Conv2d, BatchNorm2d, ReLU network with a ``kind`` hook (``backward_pre``,
    ``backward``) ``fn`` on its BatchNorm2d (``net.handle``)."""
    class Net(nn.Cell):
        def __init__(self):
            super(Net, self).__init__()
            self.conv = nn.Conv2d(1, 2, kernel_size=2, stride=1, padding=0, weight_init="ones",
                                  pad_mode="valid")
            self.bn = nn.BatchNorm2d(2, momentum=0.99, eps=0.00001, gamma_init="ones")
            self.handle = getattr(self.bn, f"register_{kind}_hook")(fn)
            self.relu = nn.ReLU()

        def construct(self, x):
            x = self.conv(x)
            x = self.bn(x)
            x = self.relu(x)
            return x
    return Net()
