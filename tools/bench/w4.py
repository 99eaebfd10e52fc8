"""W4: PyNative per-op overhead — ``z = z + y`` on [4] float32, a chain of 1000 ops, best of 5,
per op; without a tape, and under ``grad`` (forward and backward walk, per forward op). The
measurements are ``tools/bench_pynative.py``'s (graphcell's and PyTorch eager's, the latter in
the peers' interpreter)."""
from __future__ import annotations

from tools import bench_pynative
from tools.bench.peers import python_for
from tools.bench.timing import Timing

US = 1e-6


def _t(us: float) -> Timing:
    return Timing(us * US, us * US)


def rows(with_peers: bool) -> list:
    out = [("W4 add", "graphcell PyNative", _t(bench_pynative.graphcell_chain()), None),
           ("W4 add taped", "graphcell PyNative", _t(bench_pynative.graphcell_chain_taped()), None),
           ("W4 add", "numpy", _t(bench_pynative.numpy_chain()), None)]
    py = python_for("torch") if with_peers else None
    torch = bench_pynative.torch_numbers(py) if py else None
    if torch:
        out += [("W4 add", "torch eager", _t(torch["chain"]), None),
                ("W4 add taped", "torch eager", _t(torch["taped"]), None)]
    return out
