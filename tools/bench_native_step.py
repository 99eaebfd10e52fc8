"""The MLP train steps of issue 21 with the native step (``backend/step``) on and off, against
JAX jit: W1 (784-1024-1024-10, batch 128), the width-256 MLP (batch 128) and the batch-1
width-64 MLP (per-step overhead). Each configuration runs in its own process, in interleaved
rounds (graphcell native, graphcell Python runner, JAX), and the medians of the rounds' medians
are printed with the ratios to JAX.

    env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE PYTHONPATH=$PWD \\
        python tools/bench_native_step.py [--rounds 3] [--jax /opt/torchvenv/bin/python]

JAX runs only when its interpreter is given and has it; the machine's load is printed with the
numbers (timings on a shared machine are noisy).
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

CONFIGS = [("W1 784-1024-1024-10 b128", 784, 1024, 128, 20),
           ("MLP width 256 b128", 256, 256, 128, 100),
           ("MLP width 64 b1", 64, 64, 1, 1000)]

GRAPHCELL = """
import sys, time, json, numpy as np
import graphcell as ms
from graphcell import nn
D, W, B, N = {d}, {w}, {b}, {n}
ms.set_context(mode=ms.GRAPH_MODE)
class MLP(nn.Cell):
    def __init__(s):
        super().__init__()
        s.l1, s.l2, s.l3 = nn.Dense(D, W), nn.Dense(W, W), nn.Dense(W, 10)
        s.relu = nn.ReLU()
    def construct(s, x):
        return s.l3(s.relu(s.l2(s.relu(s.l1(x)))))
net = MLP()
loss = nn.WithLossCell(net, nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean"))
step = nn.TrainOneStepCell(loss, nn.SGD(net.trainable_params(), learning_rate=0.01))
step.set_train()
x = ms.Tensor(np.random.rand(B, D).astype(np.float32))
y = ms.Tensor((np.arange(B) % 10).astype(np.int32))
for _ in range(5):
    step(x, y)
ts = []
for _ in range(7):
    t = time.perf_counter()
    for _ in range(N):
        step(x, y)
    ts.append((time.perf_counter() - t) / N)
print(json.dumps(sorted(ts)[3]))
"""

JAX = """
import time, json, numpy as np, jax, jax.numpy as jnp
D, W, B, N = {d}, {w}, {b}, {n}
rng = np.random.default_rng(0)
P = [jnp.asarray(rng.standard_normal(s).astype(np.float32) * 0.05)
     for s in [(W, D), (W,), (W, W), (W,), (10, W), (10,)]]
x = jnp.asarray(rng.random((B, D), dtype=np.float32))
y = jnp.asarray((np.arange(B) % 10).astype(np.int32))
def mlp(P, x):
    h = jax.nn.relu(x @ P[0].T + P[1])
    h = jax.nn.relu(h @ P[2].T + P[3])
    return h @ P[4].T + P[5]
def xent(z, y):
    return -jnp.mean(jnp.take_along_axis(jax.nn.log_softmax(z), y[:, None], axis=1))
@jax.jit
def step(P, x, y):
    l, g = jax.value_and_grad(lambda P: xent(mlp(P, x), y))(P)
    return l, [p - 0.01 * d for p, d in zip(P, g)]
for _ in range(5):
    l, P = step(P, x, y)
jax.block_until_ready(P)
ts = []
for _ in range(7):
    t = time.perf_counter()
    for _ in range(N):
        l, P = step(P, x, y)
    jax.block_until_ready(P)
    ts.append((time.perf_counter() - t) / N)
print(json.dumps(sorted(ts)[3]))
"""


def _run(python: str, code: str, env: dict) -> float:
    """Run ``code`` from a file (graph mode reads the cells' source) and return its number."""
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "bench_step.py")
        with open(path, "w") as f:
            f.write(code)
        out = subprocess.run([python, path], env=env, capture_output=True, text=True)
    if out.returncode:
        raise SystemExit(f"{python} failed:\n{out.stderr[-2000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--jax", default="/opt/torchvenv/bin/python")
    ap.add_argument("--only", default="", help="run the configurations whose name has this")
    args = ap.parse_args()
    has_jax = os.path.exists(args.jax) and subprocess.run(
        [args.jax, "-c", "import jax"], capture_output=True).returncode == 0
    base = dict(os.environ)
    print(f"load average {os.getloadavg()[0]:.1f} (2 cores); {time.strftime('%H:%M:%S')}")
    for name, d, w, b, n in CONFIGS:
        if args.only not in name:
            continue
        fill = dict(d=d, w=w, b=b, n=n)
        rows: dict[str, list] = {"native step": [], "python runner": [], "jax jit": []}
        for _ in range(args.rounds):
            rows["native step"].append(_run(sys.executable, GRAPHCELL.format(**fill),
                                            {**base, "GRAPHCELL_NATIVE_STEP": "1"}))
            rows["python runner"].append(_run(sys.executable, GRAPHCELL.format(**fill),
                                              {**base, "GRAPHCELL_NATIVE_STEP": "0"}))
            if has_jax:
                rows["jax jit"].append(_run(args.jax, JAX.format(**fill), base))
        med = {k: sorted(v)[len(v) // 2] for k, v in rows.items() if v}
        jax_t = med.get("jax jit")
        for k, t in med.items():
            ratio = f"  {t / jax_t:.2f}x jax" if jax_t else ""
            print(f"{name:28s} {k:14s} {t * 1e6:10.1f} us/step{ratio}")
    print(f"load average {os.getloadavg()[0]:.1f} at the end")


if __name__ == "__main__":
    main()
