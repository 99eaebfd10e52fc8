"""Record MindSpore 2.10 training a small batch-norm network for a few steps, for graphcell's
moving-statistics tests (``tests/graphcell/nn/test_batchnorm_training.py``).

    /opt/msvenv/bin/python tools/record_layer_training_goldens.py

The network, the data and the training loops are defined here against a framework module passed
in (``mindspore`` when recording, ``graphcell`` in the tests), and this module imports only numpy,
so both run the very same code. ``tests/graphcell/nn/goldens/batchnorm_training.npz`` holds, per
MindSpore mode (``pynative``, ``graph``) and loop, the loss of every step and every parameter
after every step (``<mode>/<loop>/<step>/<parameter name>``; moving statistics included), the
network's inference output after training, and, for ``adam``, the first step's gradients.
"""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

GOLDENS = Path(__file__).resolve().parent.parent / "tests" / "graphcell" / "nn" / "goldens"
STEPS = 4
MODES = ("pynative", "graph")
LOOPS = ("train_one_step", "value_and_grad")


def build_network(ms):
    """Conv2d(bias) -> BatchNorm2d -> ReLU -> Flatten -> Dense -> BatchNorm1d, fixed weights."""
    nn, Tensor = ms.nn, ms.Tensor
    rng = np.random.default_rng(0)

    def values(*shape, scale=0.3):
        return Tensor(rng.normal(0, scale, shape).astype(np.float32))

    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.conv = nn.Conv2d(2, 3, 3, has_bias=True, weight_init=values(3, 2, 3, 3),
                                  bias_init=values(3))
            self.bn2 = nn.BatchNorm2d(3, momentum=0.8, gamma_init=values(3, scale=1.0),
                                      beta_init=values(3))
            self.relu = nn.ReLU()
            self.flatten = nn.Flatten()
            self.fc = nn.Dense(48, 4, weight_init=values(4, 48), bias_init=values(4))
            self.bn1 = nn.BatchNorm1d(4, moving_mean_init=values(4),
                                      moving_var_init=Tensor(np.full(4, 2.0, np.float32)))

        def construct(self, x):
            return self.bn1(self.fc(self.flatten(self.relu(self.bn2(self.conv(x))))))

    return Net()


def batches(ms):
    """``STEPS`` (input, target) batches, then the input the trained network is evaluated on."""
    rng = np.random.default_rng(1)
    data = [(ms.Tensor(rng.normal(1.0, 2.0, (5, 2, 4, 4)).astype(np.float32)),
             ms.Tensor(rng.normal(0.0, 1.0, (5, 4)).astype(np.float32))) for _ in range(STEPS)]
    return data, ms.Tensor(rng.normal(1.0, 2.0, (3, 2, 4, 4)).astype(np.float32))


def snapshot(net) -> dict:
    return {p.name: p.asnumpy().copy() for p in net.get_parameters()}


def train(ms, loop: str) -> dict:
    """Train ``STEPS`` steps with ``loop`` (``TrainOneStepCell`` with Momentum, or a jitted
    ``value_and_grad`` step with SGD); the losses and parameters after each step, and the
    inference output at the end."""
    net = build_network(ms)
    loss_fn = ms.nn.MSELoss()
    if loop == "train_one_step":
        optimizer = ms.nn.Momentum(net.trainable_params(), 0.1, 0.9)
        step = ms.nn.TrainOneStepCell(ms.nn.WithLossCell(net, loss_fn), optimizer)
        step.set_train()
    else:
        optimizer = ms.nn.SGD(net.trainable_params(), 0.05)

        def forward(x, y):
            return loss_fn(net(x), y)
        grad_fn = ms.value_and_grad(forward, None, optimizer.parameters)

        @ms.jit
        def step(x, y):
            loss, grads = grad_fn(x, y)
            optimizer(grads)
            return loss
        net.set_train()
    data, test_x = batches(ms)
    out = {}
    for i, (x, y) in enumerate(data):
        out[f"{i}/loss"] = step(x, y).asnumpy()
        out.update({f"{i}/{name}": value for name, value in snapshot(net).items()})
    net.set_train(False)
    out["eval"] = net(test_x).asnumpy()
    return out


def adam_first_gradients(ms) -> dict:
    """The gradients of the first step's loss: the convolution's bias feeds a batch norm, so its
    gradient is zero in exact arithmetic and rounding noise in float32. Adam divides gradients by
    their root mean square, so it turns that noise into steps of the learning rate's size, and two
    frameworks' runs part there (the moving-mean difference reported in issue 17)."""
    net = build_network(ms)
    net.set_train()
    loss_fn = ms.nn.MSELoss()
    data, _ = batches(ms)
    params = net.trainable_params()

    def forward(x, y):
        return loss_fn(net(x), y)
    grads = ms.grad(forward, None, params)(*data[0])
    return {p.name: g.asnumpy() for p, g in zip(params, grads)}


def record() -> None:
    import mindspore as ms
    arrays = {}
    for mode in MODES:
        ms.set_context(mode=ms.GRAPH_MODE if mode == "graph" else ms.PYNATIVE_MODE)
        for loop in LOOPS:
            arrays.update({f"{mode}/{loop}/{k}": v for k, v in train(ms, loop).items()})
        arrays.update({f"{mode}/adam/{k}": v for k, v in adam_first_gradients(ms).items()})
    GOLDENS.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(GOLDENS / "batchnorm_training.npz", **arrays)
    print(f"{len(arrays)} arrays -> {GOLDENS / 'batchnorm_training.npz'}", file=sys.stderr)


if __name__ == "__main__":
    record()
