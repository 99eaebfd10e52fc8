"""Benchmark of the pass pipeline on random dataflow graphs: time per pass, ops before and after.

Each graph has ``n`` ops drawn from elementwise ops (some on recent values, so chains form),
matmuls, keep-dims reductions and a few duplicated and dead subexpressions, on f32[8,8]. The
default pipeline runs without verification (as compiling does) and its reports are printed; the
interpreter checks that the optimised function gives the same results. A benchmark, not a test::

    python tools/bench_passes.py                 # 1,000 and 5,000 ops
    python tools/bench_passes.py -n 20000 --verify
"""
from __future__ import annotations

import argparse
import os
import random
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from graphcell_ir.backend.interp import interpret  # noqa: E402
from graphcell_ir.ir import Builder, Function, Module, TensorType, clone_module, float32  # noqa: E402
from graphcell_ir.ops import REGISTRY  # noqa: E402
from graphcell_ir.passes import format_reports, run_pipeline  # noqa: E402

UNARY = [REGISTRY[n] for n in ("exp", "tanh", "neg", "sin", "sigmoid")]
BINARY = [REGISTRY[n] for n in ("add", "mul", "sub", "maximum")]
MATMUL, REDUCE = REGISTRY["matmul"], REGISTRY["reduce_mean"]


def build(n_ops: int, seed: int = 0) -> Module:
    rng = random.Random(seed)
    m = Module()
    fn = m.add(Function("Bench.construct"))
    pool = [fn.add_arg(TensorType(float32, (8, 8)), f"x{i}") for i in range(4)]
    b = Builder.at_end(fn.body)
    for _ in range(n_ops):
        r = rng.random()
        recent = pool[-6:]
        if r < 0.05:
            v = b.op(MATMUL, rng.choice(recent), rng.choice(pool))
        elif r < 0.10:  # x - mean(x): keeps every value f32[8,8]
            x = rng.choice(recent)
            v = b.op(BINARY[2], x, b.op(REDUCE, x, axis=(1,), keep_dims=True))
        elif r < 0.15:  # a duplicate for cse
            op = rng.choice(UNARY)
            x = rng.choice(pool)
            b.op(op, x)
            v = b.op(op, x)
        elif r < 0.55:
            v = b.op(rng.choice(BINARY), rng.choice(recent), rng.choice(pool + [0.5, 1.0]))
        else:
            v = b.op(rng.choice(UNARY), rng.choice(recent))
        pool.append(v)
    b.return_(*[v for v in pool[4:] if not v.uses][:32])
    return m


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("-n", type=int, nargs="*", default=[1000, 5000], help="graph sizes")
    ap.add_argument("--verify", action="store_true", help="verify after every pass")
    args = ap.parse_args(argv)
    for n in args.n:
        m = build(n)
        original = clone_module(m)
        start = time.perf_counter()
        reports = run_pipeline(m, ["default"], verify_each=args.verify)
        total = time.perf_counter() - start
        print(f"--- {n} ops: {total * 1e3:.1f} ms, {total / n * 1e6:.1f} us per op")
        print(format_reports(reports))
        xs = [np.random.default_rng(i).standard_normal((8, 8)).astype(np.float32)
              for i in range(4)]
        before, after = interpret(original, *xs), interpret(m, *xs)
        same = all(np.array_equal(p, q, equal_nan=True) for p, q in zip(before, after))
        print(f"same results on the interpreter: {same}")


if __name__ == "__main__":
    main()
