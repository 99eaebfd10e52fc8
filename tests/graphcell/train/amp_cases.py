"""Mixed-precision training runs, read by ``tools/record_amp_goldens.py`` (in a MindSpore venv)
and by ``test_amp.py`` (graphcell, both modes). numpy only: the network is built by
:func:`lenet` from the ``nn`` module it is given.

Each ``AmpCase`` trains LeNet5 (with a BatchNorm2d after the first convolution when ``bn``) from
the weights of :func:`weights` on the batches of :func:`batches`, for ``STEPS`` steps, with
``amp.build_train_network(net, Momentum(0.01, 0.9, loss_scale=<loss_scale>),
SoftmaxCrossEntropyWithLogits(sparse=True, reduction='mean'), level=<level>,
loss_scale_manager=<manager>)``; the golden holds the loss of every step.
"""
from __future__ import annotations

import zlib
from dataclasses import dataclass

import numpy as np

STEPS = 8
BATCH = 8


@dataclass(frozen=True)
class AmpCase:
    cid: str
    level: str
    bn: bool = False
    fixed_scale: float | None = None   # FixedLossScaleManager(scale, drop_overflow_update=False)
    golden: str = ""                   # compared with another case's recording (see CASES)


# "o1" is compared with MindSpore's "o3" run: for LeNet the two levels compute the same numbers
# (ReLU, max-pooling and Flatten, which O1 leaves in float32 and O3 runs in float16, are exact in
# both), and MindSpore's O1 — a source rewrite of the network's class — cannot rebuild a class
# defined inside a function (checked with a module-level LeNet5: MindSpore's O1 and O3 losses
# are identical there)
CASES = [
    AmpCase("o0", "O0"),
    AmpCase("o1", "O1", golden="o3"),
    AmpCase("o2-batchnorm", "O2", bn=True),
    AmpCase("o2-fixed-scale", "O2", fixed_scale=1024.0),
    AmpCase("o3", "O3"),
]


def lenet(nn, bn: bool):
    """LeNet5 for 32x32 images, written with the given ``nn`` module."""
    class LeNet5(nn.Cell):
        def __init__(self):
            super().__init__()
            self.conv1 = nn.Conv2d(1, 6, 5, pad_mode="valid")
            self.bn = nn.BatchNorm2d(6) if bn else None
            self.conv2 = nn.Conv2d(6, 16, 5, pad_mode="valid")
            self.relu = nn.ReLU()
            self.pool = nn.MaxPool2d(2, 2)
            self.flatten = nn.Flatten()
            self.fc1 = nn.Dense(16 * 5 * 5, 120)
            self.fc2 = nn.Dense(120, 84)
            self.fc3 = nn.Dense(84, 10)

        def construct(self, x):
            x = self.conv1(x)
            if self.bn is not None:
                x = self.bn(x)
            x = self.pool(self.relu(x))
            x = self.pool(self.relu(self.conv2(x)))
            x = self.flatten(x)
            x = self.relu(self.fc1(x))
            x = self.relu(self.fc2(x))
            return self.fc3(x)
    return LeNet5()


def _rng(text: str) -> np.random.Generator:
    return np.random.default_rng(zlib.crc32(text.encode()))


def weights(names_and_shapes) -> dict:
    """Initial weights by name: uniform in +-1/sqrt(fan_in), BatchNorm's gamma 1 and beta 0."""
    rng = _rng("amp-weights")
    out = {}
    for name, shape in names_and_shapes:
        if name.endswith(("gamma", "moving_variance")):
            out[name] = np.ones(shape, np.float32)
        elif name.endswith(("beta", "moving_mean")):
            out[name] = np.zeros(shape, np.float32)
        else:
            fan_in = int(np.prod(shape[1:])) if len(shape) > 1 else shape[0]
            bound = 1.0 / np.sqrt(fan_in)
            out[name] = rng.uniform(-bound, bound, shape).astype(np.float32)
    return out


def batches() -> list:
    rng = _rng("amp-data")
    return [(rng.random((BATCH, 1, 32, 32)).astype(np.float32),
             rng.integers(0, 10, BATCH).astype(np.int32)) for _ in range(3)]
