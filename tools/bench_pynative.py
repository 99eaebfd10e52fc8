"""PyNative benchmarks (issue 4): per-op overhead and the LeNet5 train step, against peers.

    python tools/bench_pynative.py [--steps N]

Prints a table. Peers are measured in the same run when importable (numpy always; PyTorch eager
when ``torch`` is installed — put it in a separate venv and pass ``--torch-python PATH`` to time
it there). Targets: x = x + y on [4] float32 at most 2 us/op without a tape and 6 us/op with
one; the LeNet5 step within 4x of PyTorch eager; no memory growth over many steps.

The LeNet5 step is timed ``--repeat`` times, alternating graphcell and PyTorch (each time the best
of 3 x 10 steps), and the medians are compared: on a shared machine the two see the same load.
The first step's cost is reported too, in fresh processes with an empty kernel cache directory
(cold: numba compiles the conv/pool kernels) and then with the cache it left (warm).

The tiny ops a user hits (issue 21, W4: ``x + y``, ``x * 2``, ``ops.relu(x)``, ``x.sum()``,
``x[0]`` on [4] float32, a Dense(8, 4) forward on (1, 8)) are timed per call — the best of many
repeats — without a tape and while the tape records (``x`` a gradient leaf; in PyTorch
``requires_grad=True``), next to PyTorch eager's same ops, with the ratio.
"""
from __future__ import annotations

import argparse
import gc
import json
import os
import statistics
import subprocess
import sys
import tempfile
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


TINY_REPEAT = 30
"""Timings per tiny op: the best of this many runs of 1000 calls."""


def _per_call(fn) -> float:
    import timeit
    for _ in range(200):
        fn()
    return min(timeit.repeat(fn, number=1000, repeat=TINY_REPEAT)) / 1000 * 1e6


def tiny_ops(recording: bool) -> dict:
    """us per call of each tiny op; ``recording``: while the tape records, ``x`` tracked."""
    from graphcell import nn, ops
    from graphcell.runtime import tape
    ms.set_seed(0)
    x = Tensor(np.ones(4, np.float32))
    y = Tensor(np.ones(4, np.float32))
    dense, xi = nn.Dense(8, 4), Tensor(np.ones((1, 8), np.float32))
    if recording:   # tracked inputs: every op is taped (PyTorch's Linear tapes its weights)
        x, _ = tape.make_leaf(x)
        xi, _ = tape.make_leaf(xi)
    cases = {"x + y": lambda: x + y, "x * 2": lambda: x * 2, "ops.relu(x)": lambda: ops.relu(x),
             "x.sum()": lambda: x.sum(), "x[0]": lambda: x[0], "Dense(8, 4) on (1, 8)":
             lambda: dense(xi)}
    if not recording:
        return {k: _per_call(f) for k, f in cases.items()}
    with tape.recording():
        return {k: _per_call_taped(f) for k, f in cases.items()}


def _per_call_taped(fn) -> float:
    """Like :func:`_per_call`, each run's tape released in the timed part (``tape.release``:
    what a gradient call does after its walk; PyTorch frees a graph when its output dies)."""
    from graphcell.runtime import tape
    best = float("inf")
    for _ in range(TINY_REPEAT + 1):
        outs = []
        t0 = time.perf_counter()
        for _ in range(1000):
            outs.append(fn())
        tape.release(tuple(outs))
        best = min(best, time.perf_counter() - t0)
    return best / 1000 * 1e6


TORCH_TINY = r"""
import json, timeit, torch
torch.set_num_threads(2); torch.manual_seed(0)
def per_call(fn):
    for _ in range(200): fn()
    return min(timeit.repeat(fn, number=1000, repeat=%d)) / 1000 * 1e6
y = torch.ones(4); dense = torch.nn.Linear(8, 4); xi = torch.ones(1, 8)
out = {}
for recording in (False, True):
    x = torch.ones(4, requires_grad=recording)
    cases = {"x + y": lambda: x + y, "x * 2": lambda: x * 2, "ops.relu(x)": lambda: torch.relu(x),
             "x.sum()": lambda: x.sum(), "x[0]": lambda: x[0],
             "Dense(8, 4) on (1, 8)": lambda: dense(xi)}
    if recording:
        out["tape"] = {k: per_call(f) for k, f in cases.items()}
    else:
        with torch.no_grad():
            out["plain"] = {k: per_call(f) for k, f in cases.items()}
print(json.dumps(out))
""" % TINY_REPEAT


def torch_tiny(python: str | None) -> dict | None:
    try:
        run = subprocess.run([python or sys.executable, "-c", TORCH_TINY], capture_output=True,
                             text=True, timeout=600)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return json.loads(run.stdout.strip().splitlines()[-1]) if run.returncode == 0 else None


def print_tiny_ops(python: str | None) -> None:
    ours = {"plain": tiny_ops(False), "tape": tiny_ops(True)}
    theirs = torch_tiny(python)
    print(f"{'tiny op, us per call':30} {'no tape':>8} {'torch':>7} {'ratio':>6}   "
          f"{'tape':>7} {'torch':>7} {'ratio':>6}")
    for name in ours["plain"]:
        cells = []
        for mode in ("plain", "tape"):
            mine = ours[mode][name]
            peer = theirs[mode][name] if theirs else float("nan")
            cells.append(f"{mine:8.2f} {peer:7.2f} {mine / peer:5.2f}x")
        print(f"{name:30} {cells[0]}   {cells[1]}")


def torch_numbers(python: str | None) -> dict | None:
    cmd = [python or sys.executable, "-c", TORCH_SNIPPET]
    try:
        run = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    except (OSError, subprocess.TimeoutExpired):
        return None
    if run.returncode != 0:
        return None
    return json.loads(run.stdout.strip().splitlines()[-1])


def lenet_train_step():
    """A LeNet5 TrainOneStepCell (batch 32 of 1x32x32, sparse softmax CE, Momentum 0.1/0.9) and
    its inputs."""
    from graphcell import nn
    ms.set_seed(0)

    class LeNet5(nn.Cell):
        def __init__(self):
            super().__init__()
            self.conv1 = nn.Conv2d(1, 6, 5, pad_mode="valid")
            self.conv2 = nn.Conv2d(6, 16, 5, pad_mode="valid")
            self.fc1 = nn.Dense(16 * 5 * 5, 120)
            self.fc2 = nn.Dense(120, 84)
            self.fc3 = nn.Dense(84, 10)
            self.relu = nn.ReLU()
            self.pool = nn.MaxPool2d(kernel_size=2, stride=2)
            self.flatten = nn.Flatten()

        def construct(self, x):
            x = self.pool(self.relu(self.conv1(x)))
            x = self.pool(self.relu(self.conv2(x)))
            x = self.flatten(x)
            return self.fc3(self.relu(self.fc2(self.relu(self.fc1(x)))))

    net = LeNet5()
    loss = nn.WithLossCell(net, nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean"))
    step = nn.TrainOneStepCell(loss, nn.Momentum(net.trainable_params(), 0.1, 0.9))
    step.set_train()
    x = Tensor(np.random.default_rng(0).standard_normal((32, 1, 32, 32)).astype(np.float32))
    y = Tensor(np.arange(32, dtype=np.int32) % 10)
    return step, x, y


def graphcell_lenet_step() -> float:
    """ms per LeNet5 train step."""
    step, x, y = lenet_train_step()
    for _ in range(3):
        step(x, y)
    return best_of(lambda: [step(x, y) for _ in range(10)], repeat=3) / 10 * 1e3


TORCH_LENET = r"""
import json, time, torch, torch.nn as nn
torch.set_num_threads(2); torch.manual_seed(0)
net = nn.Sequential(nn.Conv2d(1, 6, 5), nn.ReLU(), nn.MaxPool2d(2, 2), nn.Conv2d(6, 16, 5), nn.ReLU(),
                    nn.MaxPool2d(2, 2), nn.Flatten(), nn.Linear(400, 120), nn.ReLU(),
                    nn.Linear(120, 84), nn.ReLU(), nn.Linear(84, 10))
opt = torch.optim.SGD(net.parameters(), lr=0.1, momentum=0.9)
x = torch.randn(32, 1, 32, 32); y = torch.arange(32) % 10
loss_fn = nn.CrossEntropyLoss()
def step():
    opt.zero_grad(); loss = loss_fn(net(x), y); loss.backward(); opt.step()
for _ in range(3): step()
out = []
for _ in range(3):
    t0 = time.perf_counter()
    for _ in range(10): step()
    out.append((time.perf_counter() - t0) / 10 * 1e3)
print(json.dumps({"lenet": min(out)}))
"""


def torch_lenet(python: str | None) -> float | None:
    try:
        run = subprocess.run([python or sys.executable, "-c", TORCH_LENET], capture_output=True,
                             text=True, timeout=600)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return json.loads(run.stdout.strip().splitlines()[-1])["lenet"] if run.returncode == 0 else None


FIRST_STEP = r"""
import json, sys, time
t0 = time.perf_counter()
sys.path.insert(0, {tools!r})
import bench_pynative as b
step, x, y = b.lenet_train_step()
t1 = time.perf_counter()
step(x, y)
t2 = time.perf_counter()
step(x, y)
t3 = time.perf_counter()
from graphcell_ir.backend.kernels import cache_stats
s = cache_stats()
print(json.dumps({{"setup": t1 - t0, "first": t2 - t1, "second": t3 - t2, "compiles": len(s.misses),
                  "compile_s": s.compile_seconds, "disk_hits": s.disk_hits}}))
"""


def first_steps() -> list[dict]:
    """The first two LeNet5 steps in two fresh processes sharing a new, empty cache dir: cold
    (the kernels compile) and warm (numba loads them from disk)."""
    out = []
    with tempfile.TemporaryDirectory() as cache:
        env = dict(os.environ, GRAPHCELL_CACHE_DIR=cache)
        code = FIRST_STEP.format(tools=os.path.dirname(os.path.abspath(__file__)))
        for _ in range(2):
            run = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                                 text=True, timeout=600)
            if run.returncode != 0:
                raise RuntimeError(run.stderr)
            out.append(json.loads(run.stdout.strip().splitlines()[-1]))
    return out


def memory_growth(steps: int) -> float:
    """KiB still allocated after ``steps`` LeNet5 train steps, relative to after the first few."""
    step, x, y = lenet_train_step()
    tracemalloc.start()  # before the warm-up: buffers replaced later were allocated while traced
    for _ in range(10):
        step(x, y)
    gc.collect()
    base = tracemalloc.get_traced_memory()[0]
    for _ in range(steps):
        step(x, y)
    gc.collect()
    grown = tracemalloc.get_traced_memory()[0] - base
    tracemalloc.stop()
    return grown / 1024


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--steps", type=int, default=10_000,
                        help="LeNet5 train steps for the memory check (issue 4: 10,000)")
    parser.add_argument("--torch-python", help="a python with torch installed (default: this one)")
    parser.add_argument("--repeat", type=int, default=5,
                        help="LeNet5 timings per framework, alternating (the median is reported)")
    parser.add_argument("--tiny-only", action="store_true",
                        help="only the tiny ops against PyTorch eager")
    args = parser.parse_args()

    print_tiny_ops(args.torch_python)
    if args.tiny_only:
        return 0
    rows = [("x = x + y, [4] f32, no tape (us/op)", graphcell_chain(), numpy_chain(), "<= 2.0"),
            ("same, forward while the tape records (us/op)", graphcell_chain_recording(), None, "<= 6.0"),
            ("same, grad(): forward + backward (us/op)", graphcell_chain_taped(), None, "")]
    torch = torch_numbers(args.torch_python)
    print(f"{'workload':46} {'graphcell':>10} {'numpy':>8} {'torch':>8}  target")
    for i, (name, ours, base, target) in enumerate(rows):
        peer = torch and {0: torch["chain"], 2: torch["taped"]}.get(i)
        print(f"{name:46} {ours:10.2f} {base if base is not None else float('nan'):8.2f} "
              f"{peer if peer else float('nan'):8.2f}  {target}")
    mine, theirs = [], []
    for _ in range(args.repeat):   # alternate, so both see the same machine load
        mine.append(graphcell_lenet_step())
        theirs.append(torch_lenet(args.torch_python))
    ours = statistics.median(mine)
    peer = statistics.median(theirs) if None not in theirs else None
    ratio = f"  ({ours / peer:.1f}x torch)" if peer else ""
    print(f"{'LeNet5 train step, batch 32, Momentum (ms)':46} {ours:10.2f} {'':>8} "
          f"{peer if peer else float('nan'):8.2f}  <= 4x torch{ratio}")
    print(f"  each run (ms): graphcell {' '.join(f'{t:.2f}' for t in mine)}"
          + (f"; torch {' '.join(f'{t:.2f}' for t in theirs)}" if peer else ""))
    for label, r in zip(("cold", "warm"), first_steps()):
        print(f"  first step, {label} kernel cache: {r['first'] * 1e3:.0f} ms (second step "
              f"{r['second'] * 1e3:.1f} ms; {r['compiles']} kernel compiles, "
              f"{r['compile_s']:.2f} s; {r['disk_hits']} loaded from disk)")
    print(f"memory growth over {args.steps} LeNet5 train steps: {memory_growth(args.steps):.1f} KiB")
    if torch is None:
        print("(torch not importable: pass --torch-python to compare with PyTorch eager)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
