"""W1's extra rows: the MLP 784-1024-1024-10 forward (batch 128) compiled as one GRAPH_MODE
Function, and the SGD train step written by hand in numpy (a peer on the ``W1`` row). The train
step itself is the ``W1`` workload of :mod:`tools.bench.workloads`; these rows use its arrays
(``W1/p0``..``W1/p5``, ``W1/x``, ``W1/y``)."""
from __future__ import annotations

import numpy as np

from tools.bench.timing import measure

LR = 0.01


def _ws(data: dict) -> list:
    return [data[f"W1/p{i}"].copy() for i in range(6)]


def numpy_rows(data: dict) -> list:
    x, labels, ws = data["W1/x"], data["W1/y"], _ws(data)

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
    return [("W1 fwd", "numpy", measure(fwd), None),
            ("W1", "numpy (by hand)", measure(step), None)]


def graphcell_rows(data: dict) -> list:
    import graphcell as ms
    from tools.bench.graphcell_steps import network
    from tools.bench.workloads import BY_KEY
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        net = network(BY_KEY["W1"])
        for p, w in zip(net.trainable_params(), _ws(data)):
            p.set_data(ms.Tensor(w))
        x = ms.Tensor(data["W1/x"])
        return [("W1 fwd", "graphcell GRAPH_MODE", measure(lambda: net(x)), None)]
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
