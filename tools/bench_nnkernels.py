"""The nn kernels against their numpy references (docs/decisions.md's kernel table).

    python tools/bench_nnkernels.py [--calls N] [--dtype float32|float64]

For every op of ``nnkernels.KERNELS``, at the shapes the decisions table quotes (LeNet5's batch
of 32, W1's logits, a bigger softmax, three batch-norm shapes), the median time of the kernel
``implementation(op)`` picks and of the op's numpy reference, called alternately in one process
(so both see the same load). A kernel sends the shapes where it measured slower to the
reference itself (softmax (256, 1000)): that row shows about 1.0x. The kernels are compiled
before timing (the compile is not what this measures: see ``python -m tools.bench``'s W5).
"""
from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

from graphcell.runtime import allocator
from graphcell_ir.backend import nnkernels
from graphcell_ir.ops import REGISTRY


def cases(dtype: str, rng) -> list:
    """(label, op name, arrays, attrs) at the shapes of the decisions table."""
    f = lambda *s: rng.standard_normal(s).astype(dtype)  # noqa: E731
    conv = dict(pad_mode="valid", pad=(0, 0, 0, 0), stride=(1, 1), dilation=(1, 1), group=1)
    pool = dict(kernel_size=(2, 2), strides=(2, 2), pad_mode="valid", data_format="NCHW")
    x1, w1, x2, w2 = f(32, 1, 32, 32), f(6, 1, 5, 5), f(32, 6, 14, 14), f(16, 6, 5, 5)
    r1, r2 = np.maximum(f(32, 6, 28, 28), 0), np.maximum(f(32, 16, 10, 10), 0)
    labels = lambda n: (np.arange(n) % 10).astype(np.int32)  # noqa: E731
    onehot = lambda n: np.eye(10, dtype=dtype)[labels(n)]  # noqa: E731
    out = [
        ("conv2d 1->6 32x32", "conv2d", (x1, w1), conv),
        ("conv2d 6->16 14x14", "conv2d", (x2, w2), conv),
        ("conv2d_backprop_filter 1->6", "conv2d_backprop_filter", (f(32, 6, 28, 28), x1),
         dict(conv, filter_size=(6, 1, 5, 5))),
        ("conv2d_backprop_filter 6->16", "conv2d_backprop_filter", (f(32, 16, 10, 10), x2),
         dict(conv, filter_size=(16, 6, 5, 5))),
        ("conv2d_backprop_input 6->16", "conv2d_backprop_input", (f(32, 16, 10, 10), w2),
         dict(conv, input_size=(32, 6, 14, 14))),
        ("max_pool2d_grad 28x28", "max_pool2d_grad", (r1, f(32, 6, 14, 14)), pool),
        ("max_pool2d_grad 10x10", "max_pool2d_grad", (r2, f(32, 16, 5, 5)), pool),
        ("select 32x6x28x28", "select", (r1 > 0, f(32, 6, 28, 28), np.zeros_like(r1)), {}),
        ("matmul 32x400 @ 400x120", "matmul", (f(32, 400), f(120, 400)),
         dict(transpose_a=False, transpose_b=True)),
    ]
    for rows in (128, 32):
        out += [(f"softmax ({rows}, 10)", "softmax", (f(rows, 10),), dict(axis=(-1,))),
                (f"log_softmax ({rows}, 10)", "log_softmax", (f(rows, 10),), dict(axis=-1)),
                (f"softmax_cross_entropy ({rows}, 10)", "softmax_cross_entropy",
                 (f(rows, 10), onehot(rows)), {}),
                (f"sparse_softmax_cross_entropy ({rows}, 10)", "sparse_softmax_cross_entropy",
                 (f(rows, 10), labels(rows)), {})]
    out.append(("softmax (256, 1000)", "softmax", (f(256, 1000),), dict(axis=(-1,))))
    for shape in ((32, 16, 10, 10), (32, 64, 28, 28), (128, 1024)):
        c = shape[1]
        params = (np.abs(f(c)) + 0.5, f(c), f(c), np.abs(f(c)) + 0.5)
        for training in (True, False):
            out.append((f"batch_norm {'training' if training else 'inference'} {shape}",
                        "batch_norm", (f(*shape), *params),
                        dict(is_training=training, epsilon=1e-5, momentum=0.1,
                             data_format="NCHW")))
    return out


def median_ms(fn, calls: int) -> float:
    times = []
    for _ in range(calls):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times) * 1e3


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--calls", type=int, default=200, help="timed calls of each (default 200)")
    ap.add_argument("--dtype", default="float32", choices=("float32", "float64"))
    args = ap.parse_args(argv)
    allocator.tune()   # as PyNative runs them
    rng = np.random.default_rng(0)
    print(f"{'op and shape':44} {'kernel ms':>10} {'ref ms':>10} {'ref/kernel':>10}")
    for label, name, arrays, attrs in cases(args.dtype, rng):
        op = REGISTRY[name]
        kernel = nnkernels.implementation(op)
        run_kernel = lambda: kernel(*arrays, **attrs)  # noqa: E731
        run_ref = lambda: op.ref(*arrays, **attrs)  # noqa: E731
        with np.errstate(all="ignore"):
            run_kernel()   # compiles (or loads) it
            k = r = 0.0
            for _ in range(2):   # alternating halves: both see the same load
                k += median_ms(run_kernel, args.calls // 2)
                r += median_ms(run_ref, args.calls // 2)
        print(f"{label:44} {k / 2:10.4f} {r / 2:10.4f} {r / k:9.2f}x")


if __name__ == "__main__":
    main()
