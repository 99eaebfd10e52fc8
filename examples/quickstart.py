"""graphcell quickstart: the network of MindSpore's "Cell and Parameter" tutorial.

Run:  python examples/quickstart.py
It builds the tutorial's ``Network`` (a fully connected layer written with ``ops.matmul``), lists
its parameters, runs a forward pass, changes a parameter three ways, and runs the ``Threshold``
layer built from ``ops.gt``, ``ops.fill`` and ``ops.select``.
"""
import numpy as np

import graphcell as ms
from graphcell import Parameter, Tensor, nn, ops


class Network(nn.Cell):
    def __init__(self):
        super().__init__()
        self.w = Parameter(Tensor(np.random.randn(5, 3), ms.float32), name="w")  # weight
        self.b = Parameter(Tensor(np.random.randn(3,), ms.float32), name="b")    # bias

    def construct(self, x):
        z = ops.matmul(x, self.w) + self.b
        return z


class Threshold(nn.Cell):
    """y = x if x > threshold else value."""

    def __init__(self, threshold, value):
        super().__init__()
        self.threshold = threshold
        self.value = value

    def construct(self, inputs):
        cond = ops.gt(inputs, self.threshold)
        value = ops.fill(inputs.dtype, inputs.shape, self.value)
        return ops.select(cond, inputs, value)


def main():
    np.random.seed(0)
    net = Network()

    print("trainable parameters:", net.trainable_params())
    for name, param in net.parameters_and_names():
        print(f"{name}:\n{param.asnumpy()}")

    x = Tensor(np.ones((2, 5)), ms.float32)
    print("forward pass, net(ones(2, 5)):")
    print(repr(net(x)))

    net.b[0] = 1.0                        # index assignment
    print("after net.b[0] = 1.:", net.b.asnumpy())
    net.b.set_data(Tensor([3, 4, 5]))     # set_data casts to the parameter's dtype
    print("after set_data([3, 4, 5]):", net.b.asnumpy())

    net.set_train()
    print("phase:", net.phase)
    net.set_train(False)
    print("phase:", net.phase)

    m = Threshold(0.1, 20)
    inputs = Tensor([0.1, 0.2, 0.3], ms.float32)
    print("Threshold(0.1, 20) on [0.1, 0.2, 0.3]:")
    print(repr(m(inputs)))


if __name__ == "__main__":
    main()
