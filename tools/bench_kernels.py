"""Fused-kernel benchmark: the native thread pool's threads against one, in the same process.

Runs W3 (GELU-tanh over 4M float32: forward, and the gradient of its sum) and a ResNet basic
block's batch-norm + ReLU (batch 32, 32 channels, 32x32: training forward and gradient) in graph
mode, each timed with the pool limited to one thread and with all of them, interleaved (rounds
of A then B) so that the machine's load hits both alike; prints medians and the ratio::

    env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE python tools/bench_kernels.py [--rounds 7]

``--shapes``: the fused kernels of the W1, RESBLOCK and TRANSFORMER steps (their groups as IR
text, the shapes of the steps) against numpy doing the same arithmetic, both into preallocated
outputs (what the kernel itself costs, not the page faults of fresh 4 MB outputs, which numpy
pays alike), with one pool thread and with all; and each kernel called as the executor calls
it (fresh outputs)::

    env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE python tools/bench_kernels.py --shapes
"""
from __future__ import annotations

import argparse
import os
import re
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import graphcell as ms  # noqa: E402
from graphcell import nn, ops  # noqa: E402
from graphcell_ir.backend.kernels import compile_kernel  # noqa: E402
from graphcell_ir.backend.lower import lower_fused  # noqa: E402
from graphcell_ir.backend.native import pool  # noqa: E402
from graphcell_ir.ir.structural import FUSED  # noqa: E402
from graphcell_ir.text import parse_module  # noqa: E402


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


# --- the steps' kernels against numpy -------------------------------------------------------------

def _fused(params: str, body: str, results: str, types: str) -> str:
    """A function of one fused group: ``params`` ``%name: type`` each, ``body`` its ops (the
    parameters renamed ``%p_<name>`` inside), yielding ``results`` of ``types``."""
    pairs = [q.split(":") for q in re.split(r",\s*(?=%)", params)]
    names = [n.strip() for n, _ in pairs]
    inner = ", ".join(f"%p_{n[1:]}: {t.strip()}" for n, t in pairs)
    rs = ", ".join(f"%r{k}" for k in range(results.count("%")))
    return (f"func @f({params}) -> {types} {{\n  {rs} = fused({', '.join(names)}) : "
            f"({types}) body({inner}) {{\n{body}    yield {results}\n  }}\n"
            f"  return {rs}\n}}\n")


X4 = "f32[32,32,32,32]"
C4 = "f32[1,32,1,1]"
SHAPE_CASES = {
    # W1: ReLU's gradient and the bias gradient (a sum over the batch axis)
    "W1 relu-grad+bias-grad (128,1024)": (
        _fused("%m: bool[128,1024], %g: f32[128,1024]",
               "    %z = fill() {dtype=f32, shape=[128,1024], value=0} : f32[128,1024]\n"
               "    %d = select(%p_m, %p_g, %z) : f32[128,1024]\n"
               "    %s = reduce_sum(%d) {axis=[0], keep_dims=false} : f32[1024]\n", "%d, %s",
               "f32[128,1024], f32[1024]"),
        lambda r: (r.standard_normal((128, 1024)) > 0, r.standard_normal((128, 1024))),
        lambda m, g, out: (np.multiply(g, m, out=out[0]), np.sum(out[0], 0, out=out[1]))),
    # TRANSFORMER: a residual's gradient and its bias gradient, a sum over (batch, sequence)
    "TRANSFORMER add+add+bias-grad (64,8,768)": (
        _fused("%a: f32[64,8,768], %b: f32[64,8,768], %c: f32[64,8,768]",
               "    %t = add(%p_a, %p_b) : f32[64,8,768]\n"
               "    %u = add(%t, %p_c) : f32[64,8,768]\n"
               "    %s = reduce_sum(%u) {axis=[0,1], keep_dims=false} : f32[768]\n", "%u, %s",
               "f32[64,8,768], f32[768]"),
        lambda r: tuple(r.standard_normal((64, 8, 768)) for _ in range(3)),
        lambda a, b, c, out: (np.add(a, b, out=out[0]), np.add(out[0], c, out=out[0]),
                              np.sum(out[0], (0, 1), out=out[1]))),
    # RESBLOCK: batch norm's variance (a sum over N, H, W of NCHW keeping C)
    "RESBLOCK bn variance (32,32,32,32)": (
        _fused(f"%x: {X4}, %m: {C4}",
               f"    %d = sub(%p_x, %p_m) : {X4}\n    %q = mul(%d, %d) : {X4}\n"
               f"    %v = reduce_mean(%q) {{axis=[0,2,3], keep_dims=true}} : {C4}\n", "%d, %v",
               f"{X4}, {C4}"),
        lambda r: (r.standard_normal((32, 32, 32, 32)), r.standard_normal((1, 32, 1, 1))),
        lambda x, m, out: (np.subtract(x, m, out=out[0]),
                           np.multiply(out[0], out[0], out=out[2]),
                           np.mean(out[2], (0, 2, 3), keepdims=True, out=out[1]))),
    # RESBLOCK: batch norm's backward after ReLU's (the select, the normalised input's scale,
    # the sum of the gradient over N, H, W)
    "RESBLOCK bn+relu backward (32,32,32,32)": (
        _fused(f"%y: {X4}, %g: {X4}, %x: {X4}, %v: {C4}",
               f"    %k = greater(%p_y, 0.0:f32) : bool[32,32,32,32]\n"
               f"    %d = select(%k, %p_g, %p_x) : {X4}\n"
               f"    %e = add(%p_v, 1e-05:f32) : {C4}\n    %s = sqrt(%e) : {C4}\n"
               f"    %i = div(1.0:f32, %s) : {C4}\n    %n = mul(%p_x, %i) : {X4}\n"
               f"    %b = reduce_sum(%d) {{axis=[0,2,3], keep_dims=true}} : {C4}\n"
               f"    %o = mul(%d, %n) : {X4}\n", "%o, %b", f"{X4}, {C4}"),
        lambda r: (r.standard_normal((32, 32, 32, 32)), r.standard_normal((32, 32, 32, 32)),
                   r.standard_normal((32, 32, 32, 32)), r.random((1, 32, 1, 1))),
        lambda y, g, x, v, out: (
            # the select as x + k * (g - x): numpy's where/copyto(where=) over a random mask
            # took 9-11 ms here, which would flatter the kernel
            np.greater(y, 0, out=out[3]), np.subtract(g, x, out=out[2]),
            np.multiply(out[2], out[3], out=out[2]), np.add(out[2], x, out=out[2]),
            np.multiply(x, 1 / np.sqrt(v + np.float32(1e-5)), out=out[4]),
            np.sum(out[2], (0, 2, 3), keepdims=True, out=out[1]),
            np.multiply(out[2], out[4], out=out[0]))),
    # W1's SGD update of a 1024x1024 weight
    "SGD p - lr*g (1048576,)": (
        _fused("%p: f32[1048576], %g: f32[1048576]",
               "    %t = mul(%p_g, 0.01:f32) : f32[1048576]\n"
               "    %u = sub(%p_p, %t) : f32[1048576]\n", "%u", "f32[1048576]"),
        lambda r: (r.standard_normal(1 << 20), r.standard_normal(1 << 20)),
        lambda p, g, out: (np.multiply(g, np.float32(0.01), out=out[1]),
                           np.subtract(p, out[1], out=out[0]))),
    # a full reduction of 1M elements (serial: no kept axis to split)
    "sum of squares (1048576,) -> ()": (
        _fused("%x: f32[1048576]",
               "    %q = mul(%p_x, %p_x) : f32[1048576]\n"
               "    %s = reduce_sum(%q) {axis=[0], keep_dims=false} : f32[]\n", "%s", "f32[]"),
        lambda r: (r.standard_normal(1 << 20),),
        lambda x, out: (np.multiply(x, x, out=out[1]), np.sum(out[1], out=out[0]))),
}
"""name -> (IR text of one fused group, inputs from a generator, numpy's same arithmetic into
``out``: arrays like the group's results, then scratch arrays)."""


def _scratch(results: list, inputs: tuple) -> list:
    """numpy's outputs: arrays like the kernel's results, then scratch like the inputs."""
    out = [np.empty_like(r) for r in results]
    return out + [np.empty(inputs[0].shape, np.float32), np.empty(inputs[0].shape, bool),
                  np.empty(inputs[0].shape, np.float32)]


def _per_call(fn, calls: int) -> float:
    t0 = time.perf_counter()
    for _ in range(calls):
        fn()
    return (time.perf_counter() - t0) / calls


def shapes(rounds: int, calls: int) -> None:
    """The table of ``--shapes`` (see the module docstring)."""
    p = pool.pool()
    every = p.limit(os.cpu_count() or 1)
    rng = np.random.default_rng(0)
    print(f"{'kernel':42s} {'numpy':>8s} {'1 thread':>9s} {f'{every} threads':>10s} "
          f"{'ratio':>6s} {'fresh outs':>10s}   (ms; ratio: best of ours / numpy)")
    for name, (text, make, reference) in SHAPE_CASES.items():
        inputs = tuple(a.astype(np.float32) if a.dtype == np.float64 else a for a in make(rng))
        module = parse_module(text)
        (op,) = [o for o in module["f"].body.ops if o.opdef is FUSED]
        kernel = compile_kernel(lower_fused(op), jit=True)
        want = kernel(*inputs)
        out = _scratch(want, inputs)
        reference(*inputs, out)
        for w, o in zip(want, out):
            np.testing.assert_allclose(w, o, rtol=1e-4, atol=1e-2)
        ins = [np.asarray(a).reshape(s) for a, s in zip(inputs, kernel.shapes)]
        outs = [np.full(o.shape, o.fill if o.fill is not None else 0, o.dtype)
                for o in kernel.outs]
        accs = [(a, o.fill) for a, o in zip(outs, kernel.outs) if o.fill is not None]

        def ours():
            for a, fill in accs:
                a.fill(fill)
            kernel.fn(*ins, *kernel.consts, *outs)
        times = {"numpy": [], 1: [], every: [], "fresh": []}
        for _ in range(rounds):
            times["numpy"].append(_per_call(lambda: reference(*inputs, out), calls))
            for n in (1, every):
                p.limit(n)
                times[n].append(_per_call(ours, calls))
            times["fresh"].append(_per_call(lambda: kernel(*inputs), calls))
        m = {k: statistics.median(v) * 1e3 for k, v in times.items()}
        print(f"{name:42s} {m['numpy']:8.3f} {m[1]:9.3f} {m[every]:10.3f} "
              f"{min(m[1], m[every]) / m['numpy']:6.2f} {m['fresh']:10.3f}   "
              f"par={kernel.ks.parallel}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--calls", type=int, default=10)
    ap.add_argument("--shapes", action="store_true",
                    help="the W1/RESBLOCK/TRANSFORMER kernels against numpy")
    a = ap.parse_args()
    if a.shapes:
        print(f"load: {os.getloadavg()[0]:.1f}")
        return shapes(a.rounds, a.calls)
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
