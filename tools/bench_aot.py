"""Ahead-of-time numbers for LeNet5 inference (batch 32): compile, export, load, call.

    python tools/bench_aot.py [--calls 50]

- cold compile: the first graph-mode compile of LeNet5 in this process (frontend + passes);
- export: ``ms.export`` time and the artifact's size;
- load + first call in a fresh process (python started, graphcell imported, ``ms.load``, one
  call), and that process's ``ms.load`` + first call alone;
- steady state: the median time of a call of the loaded GraphCell vs the in-process compiled
  cell (graph mode), over ``--calls`` calls.
"""
import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
sys.path.insert(0, os.path.join(ROOT, "examples"))

import graphcell as ms  # noqa: E402
from export_and_load import LeNet5  # noqa: E402

FRESH = """
import time, sys
t0 = time.perf_counter()
import numpy as np
import graphcell as ms
t1 = time.perf_counter()
cell = ms.load(sys.argv[1])
cell(ms.Tensor(np.ones((32, 1, 32, 32), np.float32)))
t2 = time.perf_counter()
print(f"{t2 - t0:.4f} {t2 - t1:.4f}")
"""


def median_call(fn, x, calls: int) -> float:
    fn(x)
    times = []
    for _ in range(calls):
        t = time.perf_counter()
        fn(x)
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--calls", type=int, default=50)
    calls = ap.parse_args().calls
    ms.set_seed(0)
    net = LeNet5()
    x = ms.Tensor(np.random.default_rng(0).standard_normal((32, 1, 32, 32)).astype(np.float32))
    t = time.perf_counter()
    net.compile(x)
    cold = time.perf_counter() - t
    path = os.path.join(tempfile.mkdtemp(prefix="bench-aot-"), "lenet5")
    t = time.perf_counter()
    path = ms.export(net, x, file_name=path)
    export_s = time.perf_counter() - t
    env = {**os.environ, "PYTHONPATH": ROOT}
    t = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", FRESH, path], capture_output=True, text=True,
                          env=env, check=True)
    wall = time.perf_counter() - t
    _, load_first = map(float, done.stdout.split())
    loaded = ms.load(path)
    ms.set_context(mode=ms.GRAPH_MODE)
    in_process = median_call(net, x, calls)
    ms.set_context(mode=ms.PYNATIVE_MODE)
    from_artifact = median_call(loaded, x, calls)
    print(f"LeNet5 inference, batch 32 ({calls} calls for steady state)")
    print(f"  cold compile (frontend + passes):     {1000 * cold:8.1f} ms")
    print(f"  export:                               {1000 * export_s:8.1f} ms, "
          f"{os.path.getsize(path) / 1024:.1f} KiB")
    print(f"  fresh process: start + import + load + first call {1000 * wall:8.1f} ms "
          f"(load + first call {1000 * load_first:.1f} ms)")
    print(f"  steady call, in-process compiled:     {1000 * in_process:8.3f} ms")
    print(f"  steady call, loaded GraphCell:        {1000 * from_artifact:8.3f} ms "
          f"({from_artifact / in_process:.2f}x)")


if __name__ == "__main__":
    main()
