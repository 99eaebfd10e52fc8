"""What ``graphcell precompile`` does: check an artifact and build everything that can be built
before the first call, and say what that was.

It loads the artifact (every check of ``graphcell.load``), builds the executable (which writes
the kernels' sources into the kernel cache, ``graphcell info --cache``; numba compiles each at its
first call), and — when the artifact is signed with the configured key — links its native
kernels to say whether ``load(path, native=True)`` can run them on this CPU, compiling nothing;
an untrusted artifact's code is not even linked (the line says why).

Example::

    >>> import os, tempfile
    >>> import numpy as np
    >>> import graphcell as ms
    >>> from graphcell import nn
    >>> path = ms.export(nn.Flatten(), ms.Tensor(np.ones((2, 3, 4), np.float32)),
    ...                  file_name=os.path.join(tempfile.mkdtemp(), "flatten"))
    >>> report = precompile(path)
    >>> report[0].endswith("verified"), report[-1]
    (True, '  native kernels: none needed (no kernel in the IR)')
"""
from __future__ import annotations

import time
import warnings

from graphcell_ir.ir.structural import FUSED
from graphcell_ir.ir.walk import walk

__all__ = ["precompile", "native_line"]


def precompile(path) -> list[str]:
    """Load (every check of ``graphcell.load``) and prepare ``path``; the report, as lines."""
    from graphcell.aot.loader import read_artifact
    from graphcell.nn.graph_cell import GraphCell
    start = time.perf_counter()
    graph = read_artifact(path)
    checked = time.perf_counter()
    GraphCell(graph)   # builds the executable
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
        f"  checks: {1000 * (checked - start):.1f} ms; executable: "
        f"{1000 * (built - checked):.1f} ms",
        native_line(graph),
    ]


def native_line(graph) -> str:
    """Whether the artifact's native kernels run here (``load(native=True)``), as one line."""
    from graphcell.aot.native import NativeCodeWarning, link_native
    from graphcell.aot.trust import trust_status
    section = graph.manifest.get("native")
    if section is None:
        return "  native kernels: none (exported with native=False): load(native=True) compiles"
    n, skipped = len(section["kernels"]), len(section.get("skipped", []))
    if not n and not skipped:
        return "  native kernels: none needed (no kernel in the IR)"
    target = section.get("target") or {}
    head = (f"  native kernels: {n} for {target.get('cpu', '?')} ({target.get('triple', '?')})"
            f"{f', {skipped} without native code' if skipped else ''}")
    trusted, why = trust_status(graph.manifest_bytes, graph.signature)
    if not trusted and n:   # not even linked: linking is the first step of running it
        return (f"{head}: not trusted ({why}): load(native=True) refuses them unless the "
                "artifact is signed with the configured key or trust_native_code=True")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", NativeCodeWarning)
        kernels = link_native(graph)
    if kernels is not None and not kernels.failed and not skipped:
        return f"{head}: they link here, load(native=True) compiles nothing"
    why = str(caught[0].message).split(": ", 1)[-1] if caught else "some kernels compile"
    return f"{head}: {why}"
