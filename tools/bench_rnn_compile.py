"""Compile time of a recurrent train step in graph mode, against the sequence length and MindSpore.

    python tools/bench_rnn_compile.py [--lengths 5 100] [--mindspore-python /opt/msvenv/bin/python]

The network: a 2-layer bidirectional LSTM (input 16, hidden 32, batch 4), a Dense head and a
mean-squared loss, wrapped in ``TrainOneStepCell`` with SGD. For each sequence length, each
framework runs in a fresh process (graphcell with an empty kernel cache directory, so kernels are
compiled too): the first step (compile + run) and the median of the next 5 steps are timed, and
the compile time is their difference. graphcell's time loop is one IR ``while`` per layer and
direction, so its compile time should not depend on the length; the numbers are printed as a
table (and as JSON with ``--json``). MindSpore (in its own venv) runs the same network in its
GRAPH_MODE when ``--mindspore-python`` is given and exists.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile

def child_source(framework: str) -> str:
    package = "mindspore" if framework == "mindspore" else "graphcell"
    return f"""
import json, statistics, sys, time
import numpy as np
import {package} as ms
from {package} import nn, Tensor
T = int(sys.argv[1])
ms.set_context(mode=ms.GRAPH_MODE)
{"ms.set_context(device_target='CPU')" if framework == "mindspore" else ""}


class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.lstm = nn.LSTM(16, 32, num_layers=2, bidirectional=True)
        self.head = nn.Dense(64, 1)

    def construct(self, x, y):
        out, _ = self.lstm(x)
        pred = self.head(out[-1])
        return ((pred - y) ** 2).mean()


net = Net()
step = nn.TrainOneStepCell(net, nn.SGD(net.trainable_params(), 0.01))
rng = np.random.default_rng(0)
x = Tensor(rng.standard_normal((T, 4, 16)).astype(np.float32))
y = Tensor(rng.standard_normal((4, 1)).astype(np.float32))
t0 = time.perf_counter()
step(x, y).asnumpy()
first = time.perf_counter() - t0
times = []
for _ in range(5):
    t0 = time.perf_counter()
    step(x, y).asnumpy()
    times.append(time.perf_counter() - t0)
steady = statistics.median(times)
print(json.dumps({{"first": first, "step": steady, "compile": first - steady}}))
"""


def run(python: str, framework: str, length: int) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        script = os.path.join(tmp, "rnn_step.py")   # a file: graph mode reads construct's source
        with open(script, "w") as f:
            f.write(child_source(framework))
        env = {**os.environ, "GRAPHCELL_CACHE_DIR": os.path.join(tmp, "cache"), "GLOG_v": "3"}
        out = subprocess.run([python, script, str(length)], env=env, capture_output=True,
                             text=True)
    if out.returncode:
        raise SystemExit(f"{framework} (T={length}) failed:\n{out.stderr}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lengths", type=int, nargs="+", default=[5, 100])
    parser.add_argument("--mindspore-python", default="/opt/msvenv/bin/python")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    rows = []
    frameworks = [("graphcell", sys.executable)]
    if os.path.exists(args.mindspore_python):
        frameworks.append(("mindspore", args.mindspore_python))
    for length in args.lengths:
        for name, python in frameworks:
            rows.append({"framework": name, "length": length, **run(python, name, length)})
    if args.json:
        print(json.dumps(rows, indent=1))
        return
    print(f"{'framework':<10} {'T':>5} {'compile s':>10} {'first step s':>13} {'step ms':>9}")
    for r in rows:
        print(f"{r['framework']:<10} {r['length']:>5} {r['compile']:>10.2f} {r['first']:>13.2f} "
              f"{r['step'] * 1e3:>9.1f}")


if __name__ == "__main__":
    main()
