"""Networks the ONNX export tests write and run in onnxruntime (module level: the frontend reads
their source)."""
import numpy as np

import graphcell as ms
from graphcell import nn, ops


class LeNet5(nn.Cell):
    def __init__(self, num_class=10):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 6, 5, pad_mode="valid")
        self.conv2 = nn.Conv2d(6, 16, 5, pad_mode="valid")
        self.fc1 = nn.Dense(16 * 5 * 5, 120)
        self.fc2 = nn.Dense(120, 84)
        self.fc3 = nn.Dense(84, num_class)
        self.relu = nn.ReLU()
        self.max_pool2d = nn.MaxPool2d(kernel_size=2, stride=2)
        self.flatten = nn.Flatten()

    def construct(self, x):
        x = self.max_pool2d(self.relu(self.conv1(x)))
        x = self.max_pool2d(self.relu(self.conv2(x)))
        x = self.flatten(x)
        x = self.relu(self.fc1(x))
        x = self.relu(self.fc2(x))
        return self.fc3(x)


class MLP(nn.Cell):
    def __init__(self):
        super().__init__()
        self.layers = nn.SequentialCell([nn.Dense(20, 32), nn.ReLU(), nn.Dense(32, 16),
                                         nn.Sigmoid(), nn.Dense(16, 4)])

    def construct(self, x):
        return ops.log_softmax(self.layers(x), -1)


class BatchNormCNN(nn.Cell):
    """Conv with bias and 'same' padding, BatchNorm (eval), average pooling, softmax."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 3, pad_mode="same", has_bias=True)
        self.bn = nn.BatchNorm2d(8)
        self.conv2 = nn.Conv2d(8, 4, 3, stride=2, pad_mode="pad", padding=1)
        self.bn2 = nn.BatchNorm2d(4)
        self.relu = nn.ReLU()
        self.pool = nn.AvgPool2d(2, 2)
        self.fc = nn.Dense(4 * 2 * 2, 5)

    def construct(self, x):
        x = self.relu(self.bn(self.conv(x)))
        x = self.pool(self.relu(self.bn2(self.conv2(x))))
        return ops.softmax(self.fc(ops.reshape(x, (x.shape[0], -1))), axis=-1)


class Composites(nn.Cell):
    """GELU (tanh and erf forms), a LayerNorm written out, softmax, and some layout ops."""

    def __init__(self):
        super().__init__()
        self.fc = nn.Dense(6, 6)
        self.gamma = ms.Parameter(ms.Tensor(np.linspace(0.5, 1.5, 6).astype(np.float32)),
                                  name="gamma")
        self.beta = ms.Parameter(ms.Tensor(np.linspace(-0.2, 0.3, 6).astype(np.float32)),
                                 name="beta")

    def construct(self, x):
        h = self.fc(x)
        gelu_tanh = 0.5 * h * (1 + ops.tanh(0.7978845608 * (h + 0.044715 * h * h * h)))
        gelu_erf = 0.5 * h * (1 + ops.erf(h / 1.4142135))
        h = gelu_tanh + gelu_erf
        mean = h.mean(-1, keep_dims=True)
        var = ((h - mean) ** 2).mean(-1, keep_dims=True)
        h = (h - mean) / ops.sqrt(var + 1e-5) * self.gamma + self.beta
        s = ops.softmax(h, axis=-1)
        t = ops.transpose(s, (1, 0))[1:4]
        return ops.concat((s * ops.exp(-h), ops.maximum(h, 0.1)), 1), t.sum(0), h.argmax(-1)


class Unmapped(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc = nn.Dense(3, 3)

    def construct(self, x):
        h = self.fc(x)
        return ops.lgamma(h) + 1
