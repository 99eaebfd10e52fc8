"""W5: the compile latency of the W2 LeNet5 train step (:mod:`tools.bench.workloads`; first call
minus a steady step), cold (empty ``GRAPHCELL_CACHE_DIR``, fresh process) and warm (a second
process). graphcell's modules are byte-compiled first, as pip does for the peers
(:mod:`tools.bench.installed`).

``python -m tools.bench.w5 latency`` is the W5 child process: it prints
``{"first": s, "steady": s}`` as JSON.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from tools.bench.installed import installed_env
from tools.bench.timing import measure

ROOT = Path(__file__).resolve().parents[2]


def latency() -> dict:
    """One fresh process's first call and steady step (this process must be fresh)."""
    import graphcell as ms
    from tools.bench.graphcell_steps import parameter_shapes, train_step
    from tools.bench.workloads import BY_KEY, arrays
    ms.set_context(mode=ms.GRAPH_MODE)
    w = BY_KEY["W2"]
    step, inputs = train_step(w, arrays(w, parameter_shapes(w)))
    t0 = time.perf_counter()
    step(*inputs)
    first = time.perf_counter() - t0
    return {"first": first, "steady": measure(lambda: step(*inputs), 10).median}


def latency_rows() -> list:
    """W5 cold and warm: two child processes sharing a new, empty kernel cache directory, with
    graphcell's bytecode compiled as an installed package's is (:mod:`tools.bench.installed`)."""
    rows = []
    with tempfile.TemporaryDirectory(prefix="gc-bench-cache-") as d:
        env = installed_env(dict(os.environ, GRAPHCELL_CACHE_DIR=d))
        for label in ("cold", "warm"):
            out = subprocess.run([sys.executable, "-m", "tools.bench.w5", "latency"], cwd=ROOT,
                                 env=env, capture_output=True, text=True, timeout=600)
            if out.returncode:
                raise RuntimeError(f"W5 {label} child failed:\n{out.stderr[-2000:]}")
            r = json.loads(out.stdout.strip().splitlines()[-1])
            rows.append((f"W5 {label}", "graphcell", r["first"] - r["steady"], None))
    return rows


if __name__ == "__main__" and sys.argv[1:] == ["latency"]:
    print(json.dumps(latency()))
