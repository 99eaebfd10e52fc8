"""The GEMM threading policy's measurements (docs/performance.md, ``nnkernels``' matmul).

    python tools/bench_gemm_policy.py [--busy] [--repeats N]

For products of the sizes graphcell's workloads run (W1's layers and their gradients, LeNet5's
dense layers, a ResNet block's convolution GEMM per sample, a width-256 MLP) and for W1's whole
train step's 8 products in order (the number to hold against numpy's threaded call), the
median wall time of: one BLAS call with numpy's OpenBLAS on 1 thread, on all its threads,
and graphcell's ``matmul`` kernel (blocks over the kernel pool, each BLAS call
single-threaded). ``--busy`` runs a spinning process for the duration (a second core held by
another job). The columns are measured in interleaved rounds (:data:`ROUNDS`), so they see
the same load; ``uptime``'s load is printed first. Run with
``env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE``.
"""
from __future__ import annotations

import argparse
import multiprocessing
import os
import statistics
import time

import numpy as np

from graphcell_ir.backend import blas_threads, nnkernels
from graphcell_ir.ops import REGISTRY

SHAPES = [   # (label, m, k, n, transpose_a, transpose_b)
    ("LeNet dense 32x400 @ 400x120^T", 32, 400, 120, False, True),
    ("W1 logits 128x1024 @ 1024x10^T", 128, 1024, 10, False, True),
    ("MLP-256 128x256 @ 256x256^T", 128, 256, 256, False, True),
    ("conv GEMM 32x288 @ 288x1024", 32, 288, 1024, False, False),
    ("W1 layer 1 128x784 @ 784x1024^T", 128, 784, 1024, False, True),
    ("W1 layer 2 128x1024 @ 1024x1024^T", 128, 1024, 1024, False, True),
    ("W1 dW2 (128x1024)^T @ 128x1024", 1024, 128, 1024, True, False),
    ("W1 dx 128x1024 @ 1024x1024", 128, 1024, 1024, False, False),
]
W1_STEP = [   # (m, k, n, transpose_a, transpose_b): the 8 products of one W1 train step
    (128, 784, 1024, False, True), (128, 1024, 1024, False, True), (128, 1024, 10, False, True),
    (128, 10, 1024, False, False), (10, 128, 1024, True, False),
    (128, 1024, 1024, False, False), (1024, 128, 1024, True, False),
    (1024, 128, 784, True, False),
]
CASES = [(label, [shape]) for label, *shape in SHAPES] + [("W1 step's 8 GEMMs, in order", W1_STEP)]


ROUNDS = 3
"""Rounds of (1 thread, graphcell, all threads), each a batch of calls: interleaving call by
call would measure OpenBLAS's idle workers, which spin for ~0.1 s after a threaded call and
hold the other core (a single-threaded call right after one ran 6x slower)."""
OPENBLAS_SPIN = 0.3
"""Seconds to wait after the threaded batch, for OpenBLAS's workers to stop spinning."""


def _spin(stop):
    while not stop.is_set():
        pass


def _operands(m, k, n, ta, tb, rng):
    x = rng.standard_normal((k, m) if ta else (m, k)).astype(np.float32)
    y = rng.standard_normal((n, k) if tb else (k, n)).astype(np.float32)
    return x, y


def measure(repeats: int) -> list[tuple]:
    """(label, multiply-adds, ms on 1 BLAS thread, graphcell's kernel, on all): medians."""
    setter, getter = blas_threads._API
    full = getter()
    kernel = nnkernels.kernel(REGISTRY["matmul"])
    rng = np.random.default_rng(0)
    rows = []
    for label, shapes in CASES:
        calls = [(*_operands(m, k, n, ta, tb, rng), ta, tb) for m, k, n, ta, tb in shapes]

        def plain():
            for x, y, ta, tb in calls:
                np.matmul(x.T if ta else x, y.T if tb else y)

        def ours():
            for x, y, ta, tb in calls:
                kernel(x, y, transpose_a=ta, transpose_b=tb)
        times = {"1": [], "graphcell": [], "all": []}
        runs = {"1": (1, plain), "graphcell": (full, ours), "all": (full, plain)}
        for _ in range(ROUNDS):
            for name, (threads, run) in runs.items():
                setter(threads)
                run()   # warm up
                for _ in range(repeats // ROUNDS):
                    t0 = time.perf_counter()
                    run()
                    times[name].append(time.perf_counter() - t0)
            time.sleep(OPENBLAS_SPIN)
        setter(full)
        macs = sum(m * k * n for m, k, n, _, _ in shapes)
        rows.append((label, macs) + tuple(statistics.median(t) * 1e3 for t in times.values()))
    return rows


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--busy", action="store_true", help="hold one core with a spinning process")
    ap.add_argument("--repeats", type=int, default=30)
    args = ap.parse_args()
    if blas_threads._API is None:
        raise SystemExit("numpy's bundled OpenBLAS was not found: nothing to measure")
    stop = multiprocessing.Event()
    spinner = multiprocessing.Process(target=_spin, args=(stop,)) if args.busy else None
    if spinner is not None:
        spinner.start()
    try:
        print(f"load {os.getloadavg()[0]:.2f}, OpenBLAS threads {blas_threads._API[1]()}, "
              f"{'busy (spinner on)' if args.busy else 'as the machine is'}")
        print(f"{'product':36s} {'MACs':>8s} {'1 thread':>9s} {'graphcell':>9s} {'all':>9s}")
        for label, macs, one, ours, full in measure(args.repeats):
            print(f"{label:36s} {macs / 1e6:7.1f}M {one:8.3f}  {ours:8.3f}  {full:8.3f}   ms")
    finally:
        if spinner is not None:
            stop.set()
            spinner.join()


if __name__ == "__main__":
    main()
