"""A training program written the way model-zoo code extends MindSpore: a user-defined
optimizer (an ``nn.Optimizer`` subclass with its own moments, ``get_lr`` and ``ops.assign``), a
user-defined loss (an ``nn.LossBase`` subclass reducing with ``get_loss``) and a network kept in
an ``nn.CellList`` and an ``nn.CellDict``, trained by ``nn.TrainOneStepCell``.

Written against ``import graphcell as ms`` only, so the same file runs under MindSpore:
``tools/record_user_training_goldens.py`` maps the module name ``graphcell`` to ``mindspore``
before importing it and records :func:`train`'s result in both of MindSpore's modes;
``test_user_training_goldens.py`` runs it on graphcell in both modes and compares.

Example::

    >>> import user_training_cases as U
    >>> sorted(U.train(steps=1))[:2]
    ['layers.0.bias', 'layers.0.weight']
"""
from __future__ import annotations

import numpy as np

import graphcell as ms
from graphcell import Tensor, nn, ops


class MomentumSGD(nn.Optimizer):
    """Heavy-ball SGD as a user writes it: one moment per parameter, updated in place."""

    def __init__(self, params, learning_rate, momentum=0.5):
        super().__init__(learning_rate, params)
        self.momentum = momentum
        self.moments = self.parameters.clone(prefix="mom", init="zeros")

    def construct(self, gradients):
        lr = self.get_lr()
        params = self._parameters
        for i in range(len(params)):
            m = self.moments[i] * self.momentum + gradients[i]
            ops.assign(self.moments[i], m)
            ops.assign(params[i], params[i] - lr * m)
        return True


class PowerLoss(nn.LossBase):
    """``|logits - labels| ** 1.5``, reduced by ``LossBase.get_loss``."""

    def __init__(self, reduction="mean"):
        super().__init__(reduction)

    def construct(self, logits, labels):
        return self.get_loss(ops.abs(logits - labels) ** 1.5)


class StackedNet(nn.Cell):
    """Two Dense layers in a CellList, their activations looked up in a CellDict."""

    def __init__(self):
        super().__init__()
        self.layers = nn.CellList([nn.Dense(4, 5), nn.Dense(5, 3)])
        self.acts = nn.CellDict({"hidden": nn.ReLU(), "out": nn.Tanh()})

    def construct(self, x):
        x = self.acts["hidden"](self.layers[0](x))
        return self.acts["out"](self.layers[1](x))


def train(steps: int = 3, reduction: str = "mean") -> dict[str, np.ndarray]:
    """``steps`` training steps on fixed data from fixed weights, in the current mode: the
    losses (``"losses"``) and every parameter of the network and the optimizer afterwards."""
    rng = np.random.default_rng(0)
    net = StackedNet()
    for _, p in net.parameters_and_names():
        p.set_data(Tensor(rng.normal(size=p.shape).astype(np.float32) * 0.5))
    x = Tensor(rng.normal(size=(6, 4)).astype(np.float32))
    y = Tensor(rng.normal(size=(6, 3)).astype(np.float32))
    opt = MomentumSGD(net.trainable_params(), 0.1)
    step = nn.TrainOneStepCell(nn.WithLossCell(net, PowerLoss(reduction)), opt)
    losses = [step(x, y).asnumpy().copy() for _ in range(steps)]
    result = {"losses": np.array(losses)}
    result.update({name: p.asnumpy().copy() for name, p in net.parameters_and_names()})
    result.update({m.name: m.asnumpy().copy() for m in opt.moments})
    return result


CASES = {"mean": dict(reduction="mean"), "sum": dict(reduction="sum")}
"""The recorded runs: case id -> ``train`` keywords."""
