"""Benchmark of the IR core: build, print, parse, verify and interpret a 10,000-op function.

Targets (one core): print, parse and verify under 1 s each for 10,000 ops (100 us per op); the
reference interpreter's overhead (its time minus the time of the ``ref`` calls alone) under 20 us
per op on tiny tensors. This is a benchmark, not a test::

    python tools/bench_ir.py            # 10,000 ops
    python tools/bench_ir.py -n 50000   # another size
"""
from __future__ import annotations

import argparse
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from graphcell_ir.backend.interp import Interpreter  # noqa: E402
from graphcell_ir.ir import (Builder, Function, Literal, Loc, Module, TensorType, float32,  # noqa: E402
                             verify)
from graphcell_ir.ops import lookup  # noqa: E402
from graphcell_ir.text import parse_module, print_module  # noqa: E402

SHAPE = (4, 4)


def build(n_ops: int) -> Module:
    """A chain of ``n_ops`` shape-preserving ops on f32[4,4]: elementwise with literals,
    matmul, a keep-dims reduction broadcast back, unary math."""
    m = Module()
    fn = m.add(Function("Bench.construct"))
    t = TensorType(float32, SHAPE)
    x = fn.add_arg(t, "x")
    w = fn.add_arg(t, "layer.weight", param=True)
    b = Builder.at_end(fn.body)
    add, mul, tanh, matmul = lookup("add"), lookup("mul"), lookup("tanh"), lookup("matmul")
    red, sub = lookup("reduce_mean"), lookup("sub")
    h, i = x, 0
    while i < n_ops - 1:
        b.loc = Loc("/home/user/bench.py", 10 + i % 50, 8, ("Bench.construct", f"Block{i % 7}.construct"))
        k = i % 6
        if k == 0:
            h = b.op(add, h, 0.5)
        elif k == 1:
            h = b.op(mul, h, w)
        elif k == 2:
            h = b.op(tanh, h)
        elif k == 3:
            h = b.op(matmul, h, w, transpose_b=True)
        elif k == 4:
            h = b.op(red, h, axis=(1,), keep_dims=True)
            h.name_hint = "mean"
        else:
            h = b.op(sub, x, h)
        i += 1
    b.return_(h)
    return m


def timed(fn, repeat: int = 3) -> tuple[float, object]:
    best, out = float("inf"), None
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t0)
    return best, out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("-n", type=int, default=10_000, help="number of ops (default 10000)")
    n = ap.parse_args().n

    t_build, m = timed(lambda: build(n), 1)
    t_print, text = timed(lambda: print_module(m))
    t_parse, m2 = timed(lambda: parse_module(text))
    t_verify, _ = timed(lambda: verify(m))
    assert print_module(m2) == text

    rng = np.random.default_rng(0)
    x = rng.standard_normal(SHAPE).astype(np.float32)
    w = (rng.standard_normal(SHAPE) * 0.3).astype(np.float32)
    interp = Interpreter(m)
    t_compile, _ = timed(lambda: Interpreter(m).compiled(m["Bench.construct"]), 1)
    interp.run("Bench.construct", x, w)  # compile once
    t_run, _ = timed(lambda: interp.run("Bench.construct", x, w))
    t_refs = _raw_ref_time(m, x, w)

    per_op_target = 1.0 / 10_000  # 1 s for 10,000 ops
    rows = [
        ("build (Builder + infer)", t_build, None),
        ("print", t_print, per_op_target),
        ("parse", t_parse, per_op_target),
        ("verify", t_verify, per_op_target),
        ("interp compile", t_compile, None),
        ("interp run", t_run, None),
        ("  refs alone", t_refs, None),
    ]
    print(f"{n} ops, {len(text.splitlines())} lines, {len(text) / 1e6:.2f} MB of text")
    print(f"{'stage':<26}{'total':>10}{'per op':>12}{'target/op':>12}")
    for name, t, target in rows:
        tgt = f"< {target * 1e6:.0f} us" if target else ""
        print(f"{name:<26}{t * 1e3:>8.1f}ms{t / n * 1e6:>10.2f}us{tgt:>12}")
    overhead = (t_run - t_refs) / n * 1e6
    print(f"{'interp overhead per op':<26}{'':>10}{overhead:>10.2f}us{'< 20 us':>12}")


def _raw_ref_time(m: Module, x, w) -> float:
    """Calling every op's ``ref`` directly, with no interpreter around it."""
    fn = m["Bench.construct"]
    env = {fn.args[0]: x, fn.args[1]: w}
    calls = []
    for op in fn.body:
        if op.is_terminator:
            break
        for v in op.operands:
            if isinstance(v, Literal):
                env[v] = v.value
        calls.append((op.opdef.ref, op.operands, op.results[0], dict(op.attrs)))

    def run():
        for ref, ins, out, attrs in calls:
            env[out] = ref(*[env[v] for v in ins], **attrs)
    return timed(run)[0]


if __name__ == "__main__":
    main()
