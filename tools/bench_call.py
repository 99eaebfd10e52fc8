"""What a graph-mode call of a compiled cell costs around its executable, paired.

    python tools/bench_call.py [--only MLP64B1,W1] [--rounds 300] [--batch 20]

For each train step of ``tools/bench`` (default: the batch-1 MLP, the per-step-overhead row), in
one process and interleaved (one batch of ``--batch`` calls of each per round, ``--rounds``
rounds, so all see the same machine load):

- ``in-process``: ``step(x, y)`` under ``GRAPH_MODE`` (``Cell.__call__`` -> ``bridge.call_cell``
  -> ``Staged`` -> the executable);
- ``executable``: the same compiled version's executable called directly with the arrays (what
  a loaded ``GraphCell`` adds to it is an input check and the Parameter list);
- ``loaded``: the step exported and loaded with ``native=True`` (its own executable).

Prints the min and median of the per-call batch means and the ratios to ``executable`` and
``loaded``, with the load average. Run it on an idle machine when you can: a loaded 2-core
machine stretches every number (~2x at load 4), the ratios less.
"""
import argparse
import os
import statistics
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

import graphcell as ms  # noqa: E402
from graphcell.graph.bridge import cell_staged  # noqa: E402
from tools.bench import graphcell_steps as G, workloads as W  # noqa: E402


def paired(calls: dict, rounds: int, batch: int) -> dict:
    """name -> list of per-call means, one per round."""
    times = {k: [] for k in calls}
    clock = time.perf_counter
    for _ in range(rounds):
        for name, call in calls.items():
            t = clock()
            for _ in range(batch):
                call()
            times[name].append((clock() - t) / batch)
    return times


def row(key: str, rounds: int, batch: int, out: str) -> None:
    w = W.BY_KEY[key]
    data = W.arrays(w, G.parameter_shapes(w))
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        step, (x, y) = G.train_step(w, data)
        exported, _ = G.train_step(w, data)
        path = ms.export(exported, x, y, file_name=os.path.join(out, key))
        loaded = ms.load(path, native=True, trust_native_code=True)
        step(x, y)
        versions = list(cell_staged(step)._entries.values())
        compiled = versions[0][0]
        exe, params = compiled.executable, compiled.params
        calls = {
            "in-process": lambda: step(x, y),
            "executable": lambda: exe([x._data, y._data], [p._data for p in params]),
            "loaded": lambda: loaded(x, y),
        }
        for call in calls.values():
            call()
        times = paired(calls, rounds, batch)
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    mins = {k: min(v) for k, v in times.items()}
    meds = {k: statistics.median(v) for k, v in times.items()}
    print(f"{key}  (load average {os.getloadavg()[0]:.2f})")
    for k in times:
        print(f"  {k:11} min {1e6 * mins[k]:8.2f} us  median {1e6 * meds[k]:8.2f} us  "
              f"in-process / this: min {mins['in-process'] / mins[k]:.3f}, "
              f"median {meds['in-process'] / meds[k]:.3f}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", default="MLP64B1", help="comma-separated bench rows (train steps)")
    ap.add_argument("--rounds", type=int, default=300)
    ap.add_argument("--batch", type=int, default=20)
    args = ap.parse_args()
    out = tempfile.mkdtemp(prefix="bench-call-")
    for key in args.only.split(","):
        row(key, args.rounds, args.batch, out)


if __name__ == "__main__":
    main()
