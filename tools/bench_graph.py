"""Graph-mode benchmarks (issue 5): compile time and the cost of a cache-hitting call.

    python tools/bench_graph.py [--repeat N]

Prints a table:

- LeNet5 compile: the frontend + verify of ``LeNet5.construct`` (the seed's network, batch 32),
  cold (first compile in the process: sources parsed) and warm (sources cached); then the whole
  compile (frontend, passes, guards, executable). Target: frontend + verify < 100 ms.
- Call overhead: a cache-hitting call (``net(x)`` in GRAPH_MODE, ``add_fn(x, y)`` staged with
  ``@ms_function``) with the compiled function replaced by one returning its results at once: the
  signature, the cache lookup, the guards, reading the parameters, writing back and wrapping the
  outputs. Target: < 20 us. Times are the best of several batches (a loaded machine only adds).
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tests", "graphcell", "graph"))

import graphcell as ms  # noqa: E402
from graphcell import ops  # noqa: E402
from graphcell.graph.bridge import cell_staged  # noqa: E402
from graphcell.graph.compile import compile_call  # noqa: E402
from graphcell.graph.resolver import GraphResolver  # noqa: E402
from graphcell.graph.signature import arg_specs  # noqa: E402
from graph_nets import LeNet5  # noqa: E402
from graphcell_ir.frontend import compile_function  # noqa: E402


def timed(fn, repeat: int) -> list[float]:
    out = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        out.append(time.perf_counter() - t0)
    return out


def per_call(fn, calls: int, repeat: int = 7) -> float:
    """Seconds per call: the best of ``repeat`` batches of ``calls`` calls."""
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        for _ in range(calls):
            fn()
        best = min(best, (time.perf_counter() - t0) / calls)
    return best


def lenet_compile(repeat: int) -> dict:
    net = LeNet5()
    x = ms.Tensor(np.ones([32, 1, 32, 32], np.float32) * 0.01)
    specs = arg_specs((x,))

    def frontend():
        compile_function(type(net).construct, net, specs, GraphResolver(), name="LeNet5.construct")
    cold = timed(frontend, 1)[0]
    warm = timed(frontend, repeat)
    full = timed(lambda: compile_call(type(net).construct, net, (x,), name="LeNet5.construct",
                                      arg_names=("x",)), repeat)
    return {"cold": cold, "warm": statistics.median(warm), "full": statistics.median(full)}


def overhead(name: str, call, compiled, calls: int) -> tuple[str, float, float]:
    """Per-call time of ``call`` as it is, and with the compiled function replaced by one that
    returns its results at once: the difference is what running the function costs, the second
    number what the call costs around it. (Subtracting two timings of a LeNet forward would drown
    microseconds in the noise of milliseconds.)"""
    exe = compiled.executable
    run = exe._run
    t_call = per_call(call, calls)
    results = run_once = None

    def recorded(args):
        nonlocal results
        results = run(args)
        return results
    exe._run = recorded
    call()
    run_once = results
    exe._run = lambda args: run_once
    try:
        t_overhead = per_call(call, max(calls, 20000))
    finally:
        exe._run = run
    return name, t_call, t_overhead


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeat", type=int, default=20)
    args = parser.parse_args()

    c = lenet_compile(args.repeat)
    print("LeNet5.construct compile (batch 32)")
    print(f"  frontend + verify, cold   {c['cold'] * 1e3:8.1f} ms")
    print(f"  frontend + verify, warm   {c['warm'] * 1e3:8.1f} ms   (target < 100 ms)")
    print(f"  whole compile, warm       {c['full'] * 1e3:8.1f} ms   (+ passes, guards, executable)")

    rows = []
    ms.set_context(mode=ms.GRAPH_MODE)
    net = LeNet5()
    x = ms.Tensor(np.ones([32, 1, 32, 32], np.float32) * 0.01)
    net(x)
    staged = cell_staged(net)
    compiled = next(iter(staged._entries.values()))[0]
    rows.append(overhead("LeNet5 net(x), GRAPH_MODE", lambda: net(x), compiled, 50))

    tiny = ms.nn.ReLU()
    t = ms.Tensor(np.ones([4, 4], np.float32))
    tiny(t)
    compiled = next(iter(cell_staged(tiny)._entries.values()))[0]
    rows.append(overhead("ReLU net(x) [4,4], GRAPH_MODE", lambda: tiny(t), compiled, 20000))
    ms.set_context(mode=ms.PYNATIVE_MODE)

    add = ops.Add()

    @ms.ms_function
    def add_fn(a, b):
        return add(a, b)
    add_fn(t, t)
    compiled = next(iter(add_fn._function_staged()._entries.values()))[0]
    rows.append(overhead("add_fn(x, y) [4,4], staged", lambda: add_fn(t, t), compiled, 20000))

    print("\ncache-hitting call: whole call, and the overhead around the compiled function")
    print(f"  {'':34} {'call':>10} {'overhead':>10}")
    for name, t_call, t_overhead in rows:
        print(f"  {name:34} {t_call * 1e6:8.1f}us {t_overhead * 1e6:8.1f}us")
    print("  (target: overhead < 20 us)")


if __name__ == "__main__":
    main()
