"""Backend benchmarks: ``python -m tools.bench [--only W3,W2]`` prints one table.

- W3: GELU-tanh over 4M float32, forward and gradient of ``sum(y)``, in GB/s against a numpy copy
  (:mod:`tools.bench.w3`);
- W1: MLP 784-1024-1024-10 forward and SGD train step (:mod:`tools.bench.w1`);
- W2: the seed's LeNet5 train step with Momentum; W5: its compile latency, cold and warm
  (:mod:`tools.bench.w2`);
- peers in their own processes, same weights and inputs (:mod:`tools.bench.peers`): numpy here,
  PyTorch eager and JAX jit when installed.

Each row: median and min of 20 calls after a warm-up (W5: one fresh process each), and for
graphcell rows the ratio of the median to the best peer's median on the same workload.
"""
from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from tools.bench import peers, w1, w2, w3  # noqa: E402
from tools.bench.timing import Timing  # noqa: E402

WORKLOADS = ("W3", "W1", "W2", "W5")


def _rows(only: set[str], peer_rows: dict) -> list:
    rows = []
    if "W3" in only:
        x = w3.data()
        rows += w3.numpy_rows(x) + w3.graphcell_rows(x)
    data = {**w1.weights(), **w2.weights()}
    if "W1" in only:
        rows += w1.numpy_rows(data) + w1.graphcell_rows(data)
    if "W2" in only:
        rows += w2.graphcell_rows(data)
    if "W5" in only:
        rows += w2.latency_rows()
    for name, (med, lo) in peer_rows.items():
        if name.split()[0] in only:
            size = w3.BYTES if name.startswith("W3") else None
            rows.append((name, Timing(med, lo), size))
    return rows


def _key(name: str) -> str:
    """The workload of a row: ``W3 fwd``, ``W1 train``... (rows compared with each other)."""
    parts = name.split()
    n = {"W1": 2, "W3": 2, "W5": 3}.get(parts[0], 1)
    return " ".join(parts[:n])


def table(rows: list) -> str:
    best: dict[str, float] = {}
    for name, t, _ in rows:
        if "graphcell" not in name and "roof" not in name:
            med = t.median if isinstance(t, Timing) else t
            best[_key(name)] = min(best.get(_key(name), np.inf), med)
    lines = [f"{'workload':40} {'median ms':>10} {'min ms':>9} {'GB/s':>7} {'vs best peer':>12}"]
    for name, t, size in sorted(rows, key=lambda r: (WORKLOADS.index(r[0].split()[0]), _key(r[0]))):
        med, lo = (t.median, t.min) if isinstance(t, Timing) else (t, t)
        rate = f"{size / med / 1e9:7.1f}" if size else ""
        ratio = f"{med / best[_key(name)]:11.2f}x" if "graphcell" in name and _key(name) in best else ""
        lines.append(f"{name:40} {med * 1e3:10.3f} {lo * 1e3:9.3f} {rate:>7} {ratio:>12}")
    return "\n".join(lines)


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", default=",".join(WORKLOADS),
                    help="comma-separated workloads (default: %(default)s)")
    ap.add_argument("--no-peers", action="store_true", help="skip PyTorch and JAX")
    args = ap.parse_args(argv)
    only = {w.strip().upper() for w in args.only.split(",")}
    peer_rows = {}
    if not args.no_peers:
        with tempfile.TemporaryDirectory() as d:
            npz = os.path.join(d, "bench.npz")
            np.savez(npz, w3_x=w3.data(), **w1.weights(), **w2.weights())
            peer_rows = peers.run(npz)
    print(table(_rows(only, peer_rows)))
    if not args.no_peers and not peer_rows:
        print("(PyTorch and JAX not available: peers not measured)")


if __name__ == "__main__":
    main()
