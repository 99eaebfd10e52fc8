"""Fused-kernel benchmark: the native thread pool's threads against one, in the same process.

Runs W3 (GELU-tanh over 4M float32: forward, and the gradient of its sum) and a ResNet basic
block's batch-norm + ReLU (batch 32, 32 channels, 32x32: training forward and gradient) in graph
mode, each timed with the pool limited to one thread and with all of them, interleaved (rounds
of A then B) so that the machine's load hits both alike; prints medians and the ratio::

    env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE python tools/bench_kernels.py [--rounds 7]
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import graphcell as ms  # noqa: E402
from graphcell import nn, ops  # noqa: E402
from graphcell_ir.backend.native import pool  # noqa: E402


def gelu(x):
    return ops.gelu(x, approximate="tanh")


def gelu_sum(x):
    return ops.gelu(x, approximate="tanh").sum()


class BnRelu(nn.Cell):
    def __init__(self):
        super().__init__()
        self.bn = nn.BatchNorm2d(32)
        self.relu = nn.ReLU()

    def construct(self, x):
        return self.relu(self.bn(x))


def workloads():
    rng = np.random.default_rng(0)
    x = ms.Tensor(rng.standard_normal(1 << 22).astype(np.float32))
    fwd = ms.jit(gelu)
    grad = ms.jit(ms.grad(gelu_sum))
    net = BnRelu()
    net.set_train()
    y = ms.Tensor(rng.standard_normal((32, 32, 32, 32)).astype(np.float32))
    bn_fwd = ms.jit(net.construct)

    def bn_loss(v):
        return net(v).sum()
    bn_grad = ms.jit(ms.grad(bn_loss))
    return {"W3 fwd": lambda: fwd(x), "W3 grad": lambda: grad(x),
            "BN+ReLU fwd": lambda: bn_fwd(y), "BN+ReLU grad": lambda: bn_grad(y)}


def timed(fn, calls: int) -> float:
    t0 = time.perf_counter()
    for _ in range(calls):
        out = fn()
    np.asarray(out.asnumpy() if hasattr(out, "asnumpy") else out)
    return (time.perf_counter() - t0) / calls


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--calls", type=int, default=10)
    a = ap.parse_args()
    ms.set_context(mode=ms.GRAPH_MODE)
    p = pool.pool()
    every = p.limit(os.cpu_count() or 1)
    print(f"pool threads: {every}; load: {os.getloadavg()[0]:.1f}")
    for name, fn in workloads().items():
        fn(), fn()   # compile, warm
        one, all_ = [], []
        for _ in range(a.rounds):
            p.limit(1)
            one.append(timed(fn, a.calls))
            p.limit(every)
            all_.append(timed(fn, a.calls))
        m1, m2 = statistics.median(one), statistics.median(all_)
        print(f"{name:14s} 1 thread {m1 * 1e3:7.3f} ms   {every} threads {m2 * 1e3:7.3f} ms   "
              f"ratio {m2 / m1:.2f}")


if __name__ == "__main__":
    main()
