"""Backend benchmarks: ``python -m tools.bench`` (or ``python tools/bench/run.py``) prints a table.

- W3: GELU-tanh on ``z = x*1.5 - 0.25``, x 4M float32, forward through ``graphcell.jit`` (one
  fused numba kernel), in GB/s (8 bytes moved per element: read x, write y) next to a numpy copy
  of x (the memory-bandwidth roof), numpy's op-by-op expression, and PyTorch (eager; run in
  ``/opt/torchvenv`` in a subprocess when torch is not importable here).
- W1: MLP 784-1024-1024-10, batch 128, ReLU, softmax cross-entropy: the forward, and the SGD
  train step compiled as one Function in GRAPH_MODE, against the same step written by hand in
  numpy and PyTorch eager.

Times are the median of ``REPEATS`` after a warm-up call (the warm-up compiles).
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

REPEATS = 20
N = 4 * 1024 * 1024
TORCH_PY = "/opt/torchvenv/bin/python"


def median_time(f, repeats=REPEATS) -> float:
    f()
    ts = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        f()
        ts.append(time.perf_counter() - t0)
    return float(np.median(ts))


def gelu_np(x):
    z = x * np.float32(1.5) - np.float32(0.25)
    return np.float32(0.5) * z * (np.float32(1) + np.tanh(np.float32(0.7978845608) * (
        z + np.float32(0.044715) * z * z * z)))


def w3_graphcell(x):
    import graphcell as ms

    @ms.jit
    def gelu(x):
        z = x * 1.5 - 0.25
        return 0.5 * z * (1 + ms.ops.tanh(0.7978845608 * (z + 0.044715 * z * z * z)))

    t = ms.Tensor(x)
    out = gelu(t)
    np.testing.assert_allclose(out.asnumpy(), gelu_np(x), rtol=1e-5, atol=1e-6)
    return median_time(lambda: gelu(t))


def w1_numpy(x, ws):
    def f():
        h = np.maximum(x @ ws[0].T + ws[1], 0)
        h = np.maximum(h @ ws[2].T + ws[3], 0)
        return h @ ws[4].T + ws[5]
    return median_time(f)


def w1_graphcell(x, ws):
    import graphcell as ms
    from graphcell import nn
    ms.set_context(mode=ms.GRAPH_MODE)

    class MLP(nn.Cell):
        def __init__(self):
            super().__init__()
            self.l1, self.l2, self.l3 = nn.Dense(784, 1024), nn.Dense(1024, 1024), nn.Dense(1024, 10)
            self.relu = nn.ReLU()

        def construct(self, x):
            return self.l3(self.relu(self.l2(self.relu(self.l1(x)))))

    net = MLP()
    t = ms.Tensor(x)
    return median_time(lambda: net(t))


def w1_numpy_train(x, labels, ws, lr=0.01):
    """The W1 train step written by hand in numpy: forward, softmax cross-entropy, backward, SGD."""
    def step():
        h1 = x @ ws[0].T + ws[1]; a1 = np.maximum(h1, 0)
        h2 = a1 @ ws[2].T + ws[3]; a2 = np.maximum(h2, 0)
        z = a2 @ ws[4].T + ws[5]
        p = np.exp(z - z.max(axis=1, keepdims=True)); p /= p.sum(axis=1, keepdims=True)
        dz = p; dz[np.arange(len(labels)), labels] -= 1; dz /= len(labels)
        da2 = dz @ ws[4]; dh2 = da2 * (h2 > 0)
        da1 = dh2 @ ws[2]; dh1 = da1 * (h1 > 0)
        grads = [dz.T @ a2, dz.sum(0), dh2.T @ a1, dh2.sum(0), dh1.T @ x, dh1.sum(0)]
        for i, g in zip((4, 5, 2, 3, 0, 1), grads):  # grads run from the last layer back
            ws[i] -= lr * g
    return median_time(step)


def w1_graphcell_train(x, labels):
    """The W1 train step in GRAPH_MODE: TrainOneStepCell(WithLossCell(MLP), SGD), one Function."""
    import graphcell as ms
    from graphcell import nn
    ms.set_context(mode=ms.GRAPH_MODE)
    net = _mlp()
    loss = nn.WithLossCell(net, nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean"))
    step = nn.TrainOneStepCell(loss, nn.SGD(net.trainable_params(), learning_rate=0.01))
    step.set_train()
    t, y = ms.Tensor(x), ms.Tensor(labels.astype(np.int32))
    return median_time(lambda: step(t, y))


def _mlp():
    from graphcell import nn

    class MLP(nn.Cell):
        def __init__(self):
            super().__init__()
            self.l1, self.l2, self.l3 = nn.Dense(784, 1024), nn.Dense(1024, 1024), nn.Dense(1024, 10)
            self.relu = nn.ReLU()

        def construct(self, x):
            return self.l3(self.relu(self.l2(self.relu(self.l1(x)))))
    return MLP()


TORCH_SCRIPT = r"""
import json, time, torch, numpy as np
torch.set_num_threads(%d)
def med(f, n=20):
    f(); ts=[]
    for _ in range(n):
        t0=time.perf_counter(); f(); ts.append(time.perf_counter()-t0)
    return float(np.median(ts))
x = torch.rand(%d)
def gelu():
    z = x*1.5-0.25
    return 0.5*z*(1+torch.tanh(0.7978845608*(z+0.044715*z*z*z)))
mlp = torch.nn.Sequential(torch.nn.Linear(784,1024), torch.nn.ReLU(), torch.nn.Linear(1024,1024),
                          torch.nn.ReLU(), torch.nn.Linear(1024,10))
xb = torch.rand(128, 784); yb = torch.arange(128) %% 10
opt = torch.optim.SGD(mlp.parameters(), lr=0.01); loss_fn = torch.nn.CrossEntropyLoss()
def train():
    opt.zero_grad(); loss_fn(mlp(xb), yb).backward(); opt.step()
with torch.no_grad():
    times = {"w3": med(gelu), "w1": med(lambda: mlp(xb))}
times["w1_train"] = med(train)
print(json.dumps(times))
"""


def torch_times() -> dict | None:
    py = sys.executable
    try:
        import torch  # noqa: F401
    except ImportError:
        py = TORCH_PY if os.path.exists(TORCH_PY) else None
    if py is None:
        return None
    out = subprocess.run([py, "-c", TORCH_SCRIPT % (os.cpu_count() or 1, N)], capture_output=True,
                         text=True, timeout=600)
    return json.loads(out.stdout) if out.returncode == 0 else None


def main() -> None:
    rng = np.random.default_rng(0)
    x = rng.random(N, dtype=np.float32)
    gb = 8 * N / 1e9
    rows = [("W3 numpy copy (roof)", median_time(lambda: x.copy()), gb),
            ("W3 numpy expression", median_time(lambda: gelu_np(x)), gb),
            ("W3 graphcell jit", w3_graphcell(x), gb)]
    xb = rng.random((128, 784), dtype=np.float32)
    ws = [rng.standard_normal(s).astype(np.float32) * 0.05
          for s in [(1024, 784), (1024,), (1024, 1024), (1024,), (10, 1024), (10,)]]
    labels = np.arange(128) % 10
    rows += [("W1 fwd numpy", w1_numpy(xb, ws), None),
             ("W1 fwd graphcell GRAPH_MODE", w1_graphcell(xb, ws), None),
             ("W1 train step numpy (by hand)", w1_numpy_train(xb, labels, [w.copy() for w in ws]), None),
             ("W1 train step graphcell GRAPH_MODE", w1_graphcell_train(xb, labels), None)]
    tt = torch_times()
    if tt:
        rows.insert(3, ("W3 torch eager", tt["w3"], gb))
        rows.append(("W1 fwd torch", tt["w1"], None))
        rows.append(("W1 train step torch eager", tt["w1_train"], None))
    print(f"{'workload':34} {'ms':>9} {'GB/s':>8}")
    for name, t, size in rows:
        rate = f"{size / t:8.1f}" if size else f"{'':>8}"
        print(f"{name:34} {t * 1e3:9.3f} {rate}")
    if not tt:
        print("(PyTorch not available: not measured)")


if __name__ == "__main__":
    main()
