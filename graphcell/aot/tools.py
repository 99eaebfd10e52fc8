"""What ``graphcell precompile`` does: check an artifact and build everything that can be built
before the first call, and say what that was.

Today that is the executor's plan for the IR (the reference interpreter compiles each function
into closures once); the numba backend will also compile its kernels into the kernel cache
(``graphcell info`` shows where) here.

Example::

    >>> import os, tempfile
    >>> import numpy as np
    >>> import graphcell as ms
    >>> from graphcell import nn
    >>> path = ms.export(nn.ReLU(), ms.Tensor(np.ones(3, np.float32)),
    ...                  file_name=os.path.join(tempfile.mkdtemp(), "relu"))
    >>> precompile(path)[0].endswith("verified")
    True
"""
from __future__ import annotations

import time

from graphcell_ir.backend.cache_dir import cache_dir
from graphcell_ir.ir.structural import FUSED
from graphcell_ir.ir.walk import walk

__all__ = ["precompile"]


def precompile(path) -> list[str]:
    """Load (every check of ``graphcell.load``) and prepare ``path``; the report, as lines."""
    from graphcell.aot.loader import read_artifact
    from graphcell.nn.graph_cell import GraphCell
    start = time.perf_counter()
    graph = read_artifact(path)
    checked = time.perf_counter()
    GraphCell(graph)   # builds the executor's plan
    built = time.perf_counter()
    ops = list(walk(graph.module))
    fused = sum(1 for op in ops if op.opdef is FUSED)
    m = graph.manifest
    n_bytes = sum(a.nbytes for a in graph.weights.values())
    return [
        f"{graph.path}: verified",
        f"  kind: {m['kind']}, function @{graph.function.name}, {len(graph.module)} function(s), "
        f"{len(ops)} ops ({fused} fused kernels)",
        f"  inputs: {', '.join(t['name'] + ' ' + t['dtype'] + str(t['shape']) for t in m['inputs'])}",
        f"  params: {len(m['params'])} ({n_bytes} bytes), mutated: {len(m['mutated'])}",
        f"  exported by graphcell {m['created_by'].get('graphcell')} on {m['cpu'].get('machine')}",
        f"  checks: {1000 * (checked - start):.1f} ms; executor plan: "
        f"{1000 * (built - checked):.1f} ms (reference interpreter)",
        f"  native kernels: none yet (the numba backend will compile them into {cache_dir()})",
    ]
