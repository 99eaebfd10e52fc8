"""W1: MLP 784-1024-1024-10, batch 128, ReLU: the forward, and the SGD train step with softmax
cross-entropy (mean), compiled as one GRAPH_MODE Function, against the step by hand in numpy.
Every framework starts from the same weights (:func:`weights`)."""
from __future__ import annotations

import numpy as np

from tools.bench.timing import measure

SHAPES = [(1024, 784), (1024,), (1024, 1024), (1024,), (10, 1024), (10,)]
LR = 0.01


def weights() -> dict:
    rng = np.random.default_rng(1)
    ws = {f"w1_{i}": (rng.standard_normal(s) * 0.05).astype(np.float32) for i, s in enumerate(SHAPES)}
    ws["w1_x"] = rng.random((128, 784), dtype=np.float32)
    ws["w1_y"] = (np.arange(128) % 10).astype(np.int32)
    return ws


def _ws(data: dict) -> list:
    return [data[f"w1_{i}"].copy() for i in range(len(SHAPES))]


def numpy_rows(data: dict) -> list:
    x, labels, ws = data["w1_x"], data["w1_y"], _ws(data)

    def fwd():
        h = np.maximum(x @ ws[0].T + ws[1], 0)
        h = np.maximum(h @ ws[2].T + ws[3], 0)
        return h @ ws[4].T + ws[5]

    def step():
        h1 = x @ ws[0].T + ws[1]; a1 = np.maximum(h1, 0)  # noqa: E702
        h2 = a1 @ ws[2].T + ws[3]; a2 = np.maximum(h2, 0)  # noqa: E702
        z = a2 @ ws[4].T + ws[5]
        p = np.exp(z - z.max(axis=1, keepdims=True)); p /= p.sum(axis=1, keepdims=True)  # noqa: E702
        dz = p; dz[np.arange(len(labels)), labels] -= 1; dz /= len(labels)  # noqa: E702
        da2 = dz @ ws[4]; dh2 = da2 * (h2 > 0)  # noqa: E702
        da1 = dh2 @ ws[2]; dh1 = da1 * (h1 > 0)  # noqa: E702
        grads = [dz.T @ a2, dz.sum(0), dh2.T @ a1, dh2.sum(0), dh1.T @ x, dh1.sum(0)]
        for i, g in zip((4, 5, 2, 3, 0, 1), grads):  # grads run from the last layer back
            ws[i] -= LR * g
    return [("W1 fwd numpy", measure(fwd), None),
            ("W1 train step numpy (by hand)", measure(step), None)]


def mlp(data: dict):
    from graphcell import Tensor, nn

    class MLP(nn.Cell):
        def __init__(self):
            super().__init__()
            self.l1, self.l2, self.l3 = nn.Dense(784, 1024), nn.Dense(1024, 1024), nn.Dense(1024, 10)
            self.relu = nn.ReLU()

        def construct(self, x):
            return self.l3(self.relu(self.l2(self.relu(self.l1(x)))))

    net = MLP()
    for p, w in zip(net.trainable_params(), _ws(data)):
        p.set_data(Tensor(w))
    return net


def graphcell_rows(data: dict) -> list:
    import graphcell as ms
    from graphcell import nn
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        x, y = ms.Tensor(data["w1_x"]), ms.Tensor(data["w1_y"])
        fwd = mlp(data)
        net = mlp(data)
        loss = nn.WithLossCell(net, nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean"))
        step = nn.TrainOneStepCell(loss, nn.SGD(net.trainable_params(), learning_rate=LR))
        step.set_train()
        return [("W1 fwd graphcell GRAPH_MODE", measure(lambda: fwd(x)), None),
                ("W1 train step graphcell GRAPH_MODE", measure(lambda: step(x, y)), None)]
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
