"""W2: the seed's LeNet5 train step in GRAPH_MODE (batch 32 of 1x32x32, softmax cross-entropy,
Momentum 0.9, lr 0.01), and W5: the compile latency of that step (first call minus a steady
step), cold (empty ``GRAPHCELL_CACHE_DIR``, fresh process) and warm (a second process).

``python -m tools.bench.w2 latency`` is the W5 child process: it prints
``{"first": s, "steady": s}`` as JSON.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from tools.bench.timing import measure

ROOT = Path(__file__).resolve().parents[2]
SHAPES = [(6, 1, 5, 5), (16, 6, 5, 5), (120, 400), (120,), (84, 120), (84,), (10, 84), (10,)]
LR, MOMENTUM = 0.01, 0.9


def weights() -> dict:
    rng = np.random.default_rng(2)
    ws = {f"w2_{i}": (rng.standard_normal(s) * 0.1).astype(np.float32) for i, s in enumerate(SHAPES)}
    ws["w2_x"] = rng.standard_normal((32, 1, 32, 32)).astype(np.float32)
    ws["w2_y"] = (np.arange(32) % 10).astype(np.int32)
    return ws


def train_step(data: dict):
    """The seed's LeNet5 (tests/graphcell/graph/graph_nets.py) wrapped in TrainOneStepCell."""
    sys.path.insert(0, str(ROOT / "tests" / "graphcell" / "graph"))
    from graph_nets import LeNet5

    import graphcell as ms
    from graphcell import nn
    net = LeNet5()
    for i, p in enumerate(net.trainable_params()):
        p.set_data(ms.Tensor(data[f"w2_{i}"].copy()))
    loss = nn.WithLossCell(net, nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean"))
    step = nn.TrainOneStepCell(loss, nn.Momentum(net.trainable_params(), learning_rate=LR,
                                                 momentum=MOMENTUM))
    step.set_train()
    return step, ms.Tensor(data["w2_x"]), ms.Tensor(data["w2_y"])


def graphcell_rows(data: dict) -> list:
    import graphcell as ms
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        step, x, y = train_step(data)
        return [("W2 train step graphcell GRAPH_MODE", measure(lambda: step(x, y)), None)]
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)


def latency() -> dict:
    """One fresh process's first call and steady step (this process must be fresh)."""
    import graphcell as ms
    ms.set_context(mode=ms.GRAPH_MODE)
    step, x, y = train_step(weights())
    t0 = time.perf_counter()
    step(x, y)
    first = time.perf_counter() - t0
    return {"first": first, "steady": measure(lambda: step(x, y), 10).median}


def latency_rows() -> list:
    """W5 cold and warm: two child processes sharing a new, empty kernel cache directory."""
    rows = []
    with tempfile.TemporaryDirectory(prefix="gc-bench-cache-") as d:
        env = dict(os.environ, GRAPHCELL_CACHE_DIR=d)
        for label in ("cold", "warm"):
            out = subprocess.run([sys.executable, "-m", "tools.bench.w2", "latency"], cwd=ROOT,
                                 env=env, capture_output=True, text=True, timeout=600)
            if out.returncode:
                raise RuntimeError(f"W5 {label} child failed:\n{out.stderr[-2000:]}")
            r = json.loads(out.stdout.strip().splitlines()[-1])
            rows.append((f"W5 compile {label} graphcell", r["first"] - r["steady"], None))
    return rows


if __name__ == "__main__" and sys.argv[1:] == ["latency"]:
    print(json.dumps(latency()))
