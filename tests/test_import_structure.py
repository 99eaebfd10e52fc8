"""The import structure: no import cycle in graphcell_ir or graphcell/graph (and no new one
anywhere), and graphcell uses graphcell_ir only through its declared public surface.

Measured with ``tools/import_graph.py`` (every import statement counts, function-level ones
too): ``python tools/import_graph.py`` prints the cycles that remain.
"""
from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))

import import_graph  # noqa: E402

import graphcell_ir  # noqa: E402

GRAPH = import_graph.import_graph(["graphcell_ir", "graphcell"])

KNOWN = [
    # graphcell's Tensor and its helpers (indexing, the initializer, Parameter, the PyNative
    # dispatcher, tape and hooks, the generator), joined through seed -> dataset config with the
    # dataset package's own
    {"graphcell._indexing", "graphcell.common.initializer", "graphcell.common.generator",
     "graphcell.parameter", "graphcell.runtime.hooks", "graphcell.runtime.tape",
     "graphcell.dataset",
     "graphcell.dataset.core.config", "graphcell.dataset.engine",
     "graphcell.dataset.engine.datasets", "graphcell.dataset.engine.datasets_standard_format",
     "graphcell.dataset.engine.datasets_user_defined",
     "graphcell.dataset.engine.datasets_vision", "graphcell.dataset.engine.iterators",
     "graphcell.dataset.engine.operations", "graphcell.dataset.engine.rows",
     "graphcell.dataset.engine.run", "graphcell.dataset.engine.sources",
     "graphcell.dataset.transforms", "graphcell.dataset.transforms.transforms",
     "graphcell.dataset.vision", "graphcell.dataset.vision.transforms",
     "graphcell.runtime.dispatch", "graphcell.common.seed", "graphcell.tensor"},
    # ops and the modules that assemble its faces
    {"graphcell.ops", "graphcell.ops.functional", "graphcell.ops.operations"},
]
"""The cycles outside graphcell_ir and graphcell/graph that remain (issue 20 left them; the
Tensor group took in Parameter, the tape and hooks, and the generator as the merges after it
landed): a test fails when one grows or a new one appears."""


def test_no_cycle_in_graphcell_ir_or_graphcell_graph():
    for package in ("graphcell_ir", "graphcell.graph"):
        found = import_graph.cycles(GRAPH, within=package)
        assert not found, "\n".join(import_graph.describe(GRAPH, c) for c in found)


def test_no_new_cycle_anywhere():
    for cycle in import_graph.cycles(GRAPH):
        assert any(set(cycle) <= known for known in KNOWN), \
            "a new import cycle:\n" + import_graph.describe(GRAPH, cycle)


def test_the_cycle_finder_finds_a_cycle(tmp_path):
    pkg = tmp_path / "cyc"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "a.py").write_text("import cyc.c\n\n\ndef f():\n    from cyc import b\n")   # in a function
    (pkg / "b.py").write_text("from cyc.a import f\n")
    (pkg / "c.py").write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n"
                              "    from cyc import a\n")   # annotations only: never runs
    import_graph.ROOT, saved = tmp_path, import_graph.ROOT
    try:
        g = import_graph.import_graph(["cyc"])
    finally:
        import_graph.ROOT = saved
    assert import_graph.cycles(g) == [["cyc.a", "cyc.b"]]


def test_graphcell_uses_only_graphcell_irs_public_surface():
    used = {b for a, b in GRAPH.edges
            if (a == "graphcell" or a.startswith("graphcell.")) and b.startswith("graphcell_ir")}
    outside = sorted(used - set(graphcell_ir.PUBLIC))
    assert not outside, f"graphcell imports graphcell_ir modules outside its public surface " \
                        f"(graphcell_ir/__init__.py PUBLIC): {outside}"
    assert all(m in GRAPH for m in graphcell_ir.PUBLIC), "PUBLIC names a module that is gone"
