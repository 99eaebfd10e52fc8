"""Ahead-of-time numbers for LeNet5 (batch 32), inference and a training step (Momentum), and
the steady train step of W1 (MLP), W2 (LeNet5) and a ResNet basic block, loaded against
in-process.

    python tools/bench_aot.py [--calls 30] [--repeat 5] [--steady-only] [--rounds 200] [--only W1]

For each of the two artifacts:

- cold compile: the first graph-mode compile in this process (frontend + passes);
- export: ``ms.export`` (IR, weights, and every kernel's native code) and the artifact's size;
- fresh process, ``--repeat`` times (min and median): ``import graphcell``, then ``ms.load`` +
  the first call, with the IR path (kernels from the warm disk cache: numba imported and its
  cache loaded) and with ``native=True`` (the artifact's object code linked by llvmlite; the
  process reports whether numba got imported — it should not);
- steady state: the median call of the in-process compiled cell (graph mode) and of the loaded
  GraphCells (IR path, native), over ``--calls`` calls.

Then, for each of the four train steps (W1, a batch-1 MLP of width 64 whose step is all
overhead, W2, the ResNet block) (``--steady-only`` runs this part alone): the same step
compiled in-process (graph mode), loaded from its artifact with ``native=True`` and loaded on
the IR path, called in turn — one call of each per round, ``--rounds`` rounds (ten times as many
for the batch-1 MLP) — so the three see the same machine load; the medians and their ratios to
in-process are printed. Where a step has a native step (the MLPs) all three run it;
``GRAPHCELL_NATIVE_STEP=0`` compares the Python runners.

Timings on a shared machine are noisy: compare the columns of one run, not across runs.
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
from graphcell import nn  # noqa: E402
from export_and_load import LeNet5  # noqa: E402

FRESH = """
import sys, time
t0 = time.perf_counter()
import numpy as np
import graphcell as ms
t1 = time.perf_counter()
cell = ms.load(sys.argv[1], native=sys.argv[2] == "native", trust_native_code=True)   # made by this script
args = [np.load(p) for p in sys.argv[3:]]
cell(*args)
t2 = time.perf_counter()
print(f"{t1 - t0:.4f} {t2 - t1:.4f} {int('numba' in sys.modules)}")
"""


def median_call(fn, args, calls: int) -> float:
    fn(*args)
    times = []
    for _ in range(calls):
        t = time.perf_counter()
        fn(*args)
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def fresh(path: str, mode: str, inputs: list[str], repeat: int) -> tuple:
    """(import s, load + first call s: lists, numba imported in any run)."""
    env = {**os.environ, "PYTHONPATH": ROOT}
    imports, firsts, numba = [], [], False
    for _ in range(repeat):
        out = subprocess.run([sys.executable, "-W", "ignore", "-c", FRESH, path, mode, *inputs],
                             capture_output=True, text=True, env=env, check=True).stdout.split()
        imports.append(float(out[0]))
        firsts.append(float(out[1]))
        numba |= out[2] == "1"
    return imports, firsts, numba


def ms_(xs) -> str:
    return f"min {1000 * min(xs):6.1f} / median {1000 * statistics.median(xs):6.1f} ms"


def bench(name: str, make, inputs: tuple, calls: int, repeat: int, out: str) -> None:
    net = make()
    ms.set_context(mode=ms.GRAPH_MODE)
    t = time.perf_counter()
    net(*inputs)   # the first graph-mode call compiles
    cold = time.perf_counter() - t
    ms.set_context(mode=ms.PYNATIVE_MODE)
    t = time.perf_counter()
    path = ms.export(make(), *inputs, file_name=os.path.join(out, name))
    export_s = time.perf_counter() - t
    files = []
    for i, x in enumerate(inputs):
        files.append(os.path.join(out, f"{name}_in{i}.npy"))
        np.save(files[-1], x.asnumpy())
    fresh(path, "ir", files, 1)   # warms the kernel cache for the IR path
    ir = fresh(path, "ir", files, repeat)
    native = fresh(path, "native", files, repeat)
    ms.set_context(mode=ms.GRAPH_MODE)
    in_process = median_call(net, inputs, calls)
    ms.set_context(mode=ms.PYNATIVE_MODE)
    loaded_ir = median_call(ms.load(path), inputs, calls)
    loaded_native = median_call(ms.load(path, native=True, trust_native_code=True), inputs, calls)
    print(f"LeNet5 {name}, batch 32")
    print(f"  cold compile (first graph-mode call): {1000 * cold:8.1f} ms")
    print(f"  export (with native code):            {1000 * export_s:8.1f} ms, "
          f"{os.path.getsize(path) / 1024:.1f} KiB")
    print(f"  fresh process, import graphcell:      {ms_(ir[0] + native[0])}")
    print(f"  fresh, load + first call, IR path:    {ms_(ir[1])}  (numba imported: {ir[2]})")
    print(f"  fresh, load + first call, native:     {ms_(native[1])}  (numba imported: "
          f"{native[2]})")
    print(f"  steady call: in-process {1000 * in_process:.3f} ms, loaded IR "
          f"{1000 * loaded_ir:.3f} ms ({loaded_ir / in_process:.2f}x), loaded native "
          f"{1000 * loaded_native:.3f} ms ({loaded_native / in_process:.2f}x)")


class MLP(nn.Cell):
    """W1's network: 784-1024-1024-10 with ReLUs (``width``: another width, ``inputs``: another
    input size)."""

    def __init__(self, width: int = 1024, inputs: int = 784):
        super().__init__()
        self.fc1, self.fc2, self.fc3 = (nn.Dense(inputs, width), nn.Dense(width, width),
                                        nn.Dense(width, 10))
        self.relu = nn.ReLU()

    def construct(self, x):
        return self.fc3(self.relu(self.fc2(self.relu(self.fc1(x)))))


class BasicBlock(nn.Cell):
    """A ResNet basic block (conv-BN-ReLU-conv-BN, identity shortcut, ReLU) on 32 channels, then
    global average pooling and a Dense classifier for the loss."""

    def __init__(self, channels: int = 32):
        super().__init__()
        self.conv1 = nn.Conv2d(channels, channels, 3, pad_mode="same", has_bias=False)
        self.bn1 = nn.BatchNorm2d(channels)
        self.conv2 = nn.Conv2d(channels, channels, 3, pad_mode="same", has_bias=False)
        self.bn2 = nn.BatchNorm2d(channels)
        self.relu = nn.ReLU()
        self.head = nn.Dense(channels, 10)

    def construct(self, x):
        y = self.relu(self.bn1(self.conv1(x)))
        y = self.relu(self.bn2(self.conv2(y)) + x)
        return self.head(y.mean(axis=(2, 3)))


def train_step_of(net: nn.Cell) -> nn.Cell:
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    step = nn.TrainOneStepCell(nn.WithLossCell(net, loss),
                               nn.Momentum(net.trainable_params(), 0.01, 0.9))
    step.set_train()
    return step


def steady(name: str, make, inputs: tuple, rounds: int, out: str, only: str = "") -> None:
    """In-process vs loaded (native, IR path): one call of each per round, medians."""
    if only not in name:
        return
    path = ms.export(make(), *inputs, file_name=os.path.join(out, name))
    in_process = make()
    ms.set_context(mode=ms.GRAPH_MODE)
    in_process(*inputs)
    ms.set_context(mode=ms.PYNATIVE_MODE)
    native = ms.load(path, native=True, trust_native_code=True)
    ir = ms.load(path)
    native(*inputs)
    ir(*inputs)
    times = {"in-process": [], "loaded native": [], "loaded IR": []}
    calls = list(zip(times.values(), (lambda: in_process(*inputs), lambda: native(*inputs),
                                      lambda: ir(*inputs))))
    ms.set_context(mode=ms.GRAPH_MODE)   # for the in-process cell; loaded cells run their graph
    try:                                 # in any mode (toggling per call was timed before)
        for _ in range(rounds):
            for spent, call in calls:
                t = time.perf_counter()
                call()
                spent.append(time.perf_counter() - t)
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    med = {k: statistics.median(v) for k, v in times.items()}
    base = med["in-process"]
    loaded_step = getattr(native._executable._run.run, "step", None)   # None: the Python runner
    print(f"{name:34} " + "  ".join(f"{k} {1000 * v:7.3f} ms ({v / base:.2f}x)"
                                     for k, v in med.items())
          + f"  [loaded native: {'native step' if loaded_step else 'Python runner'}]")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--calls", type=int, default=30)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--rounds", type=int, default=200, help="paired rounds of the steady steps")
    ap.add_argument("--only", default="", help="steady steps whose name contains this only")
    ap.add_argument("--steady-only", action="store_true",
                    help="only the steady train steps, loaded against in-process")
    args = ap.parse_args()
    rng = np.random.default_rng(0)
    x = ms.Tensor(rng.standard_normal((32, 1, 32, 32)).astype(np.float32))
    y = ms.Tensor(rng.integers(0, 10, 32).astype(np.int32))

    def inference():
        ms.set_seed(0)
        return LeNet5()

    def train_step():
        return train_step_of(inference())

    out = tempfile.mkdtemp(prefix="bench-aot-")
    if not args.steady_only:
        bench("inference", inference, (x,), args.calls, args.repeat, out)
        bench("train_step", train_step, (x, y), args.calls, args.repeat, out)
    print(f"steady train step, median of {args.rounds} paired rounds:")
    x1 = ms.Tensor(rng.standard_normal((128, 784)).astype(np.float32))
    y1 = ms.Tensor(rng.integers(0, 10, 128).astype(np.int32))
    steady("W1 MLP 784-1024-1024-10, batch 128", lambda: train_step_of(MLP()), (x1, y1),
           args.rounds, out, args.only)
    x64 = ms.Tensor(rng.standard_normal((1, 64)).astype(np.float32))
    steady("MLP 64-64-64-10, batch 1 (overhead)", lambda: train_step_of(MLP(64, 64)),
           (x64, y[:1]), 10 * args.rounds, out, args.only)
    steady("W2 LeNet5, batch 32", train_step, (x, y), args.rounds, out, args.only)
    xb = ms.Tensor(rng.standard_normal((32, 32, 32, 32)).astype(np.float32))
    steady("ResNet basic block, batch 32", lambda: train_step_of(BasicBlock()), (xb, y),
           args.rounds, out, args.only)


if __name__ == "__main__":
    main()
