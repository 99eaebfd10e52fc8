"""graphcell's side of the train-step workloads (:mod:`tools.bench.workloads`): the model of a
workload through the MindSpore API, ``nn.TrainOneStepCell(nn.WithLossCell(net, loss), opt)``,
its first two losses and its steady step, in GRAPH_MODE and (where the workload says so)
PyNative mode."""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

from tools.bench.timing import measure

ROOT = Path(__file__).resolve().parents[2]


def network(w):
    """The workload's ``nn.Cell`` (parameters in the order the peers load them)."""
    from graphcell import nn
    c = w.config
    if w.model == "mlp":
        layers = []
        for i, (n_in, n_out) in enumerate(zip(c["sizes"], c["sizes"][1:])):
            layers += [nn.Dense(n_in, n_out)] + ([nn.ReLU()] if i < len(c["sizes"]) - 2 else [])
        return nn.SequentialCell(layers)
    if w.model == "lenet":
        sys.path.insert(0, str(ROOT / "tests" / "graphcell" / "graph"))
        from graph_nets import LeNet5
        return LeNet5()
    if w.model == "resblock":
        return _ResBlockNet(c["channels"])
    if w.model == "resnet18":
        from examples.models.resnet import resnet18
        return resnet18(num_classes=10, small_input=True)
    if w.model == "transformer":
        return nn.TransformerEncoderLayer(c["d_model"], c["nhead"], c["ffn"], dropout=0.0,
                                          batch_first=True)
    raise ValueError(f"workload {w.key}: unknown model {w.model!r}")


def _ResBlockNet(channels):
    from examples.models.resnet import BasicBlock
    from graphcell import nn, ops

    class ResBlockNet(nn.Cell):
        """One basic block, a global average pool and a Dense head to 10 classes."""

        def __init__(self):
            super().__init__()
            self.block = BasicBlock(channels, channels)
            self.head = nn.Dense(channels, 10)

        def construct(self, x):
            return self.head(ops.mean(self.block(x), (2, 3)))
    return ResBlockNet()


def parameter_shapes(w) -> list[tuple]:
    """``[(name, shape)]`` of the workload's trainable parameters, in order."""
    return [(p.name, tuple(p.shape)) for p in network(w).trainable_params()]


def train_step(w, data: dict):
    """The workload's train step loaded with ``data``'s weights, and its inputs."""
    import graphcell as ms
    from graphcell import nn
    net = network(w)
    for i, p in enumerate(net.trainable_params()):
        p.set_data(ms.Tensor(data[f"{w.key}/p{i}"].copy()))
    loss = (nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean") if w.loss == "ce"
            else nn.MSELoss())
    kind, lr, *rest = w.optimizer
    opt = (nn.SGD(net.trainable_params(), learning_rate=lr) if kind == "sgd"
           else nn.Momentum(net.trainable_params(), learning_rate=lr, momentum=rest[0]))
    step = nn.TrainOneStepCell(nn.WithLossCell(net, loss), opt)
    step.set_train()
    return step, (ms.Tensor(data[f"{w.key}/x"]), ms.Tensor(data[f"{w.key}/y"]))


def rows(w, data: dict) -> tuple[list, dict]:
    """``([(framework, Timing)], {framework: [loss 1, loss 2]})`` for graphcell's modes."""
    import graphcell as ms
    timings, losses = [], {}
    modes = ["GRAPH_MODE"] + (["PyNative"] if w.pynative else [])
    for mode in modes:
        ms.set_context(mode=ms.GRAPH_MODE if mode == "GRAPH_MODE" else ms.PYNATIVE_MODE)
        try:
            step, inputs = train_step(w, data)
            name = f"graphcell {mode}"
            losses[name] = [float(np.asarray(step(*inputs).asnumpy())) for _ in range(2)]
            timings.append((name, measure(lambda: step(*inputs), w.repeats)))
        finally:
            ms.set_context(mode=ms.PYNATIVE_MODE)
    return timings, losses
