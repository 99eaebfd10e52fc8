"""Hypothesis: the passes keep every result bit for bit, keep the IR valid, and are idempotent.

Two generators: ``graph_strategies.graphs`` (elementwise/reduction/matmul/layout graphs seeded
with what each pass looks for) and ``gcir_strategies.modules`` (any op of the registry, control
flow, tuples, calls). The reference interpreter is the oracle: the program runs before any pass
and after *each* pass of the default pipeline, so the first mismatch names the pass that broke
it (STYLE §9.9.5). Programs the interpreter cannot run before any pass are skipped.
"""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, note, settings
from hypothesis import strategies as st

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent / "text"))
import gcir_strategies as gen  # noqa: E402
import graph_strategies as graphs_gen  # noqa: E402
import pass_oracle as oracle  # noqa: E402

from graphcell_ir.ir import clone_module, verify  # noqa: E402
from graphcell_ir.passes import PASSES, PassManager, resolve  # noqa: E402
from graphcell_ir.passes.pipelines import DEFAULT  # noqa: E402
from graphcell_ir.text import print_module  # noqa: E402

# numpy warns when a NaN is cast to an integer (fill, cast): the programs are random, the
# warning is expected, and the results are compared anyway
pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning")


def _bisect(module, seed: int) -> None:
    """Run the default pipeline; after each pass, every function must give the same results."""
    rng = np.random.default_rng(seed)
    expected = {}
    for fn in module:
        args = oracle.inputs_for(fn, rng)
        if args is None:
            continue
        try:
            expected[fn.name] = (args, oracle.run_or_unrunnable(module, fn.name, args))
        except oracle.Unrunnable as e:
            note(f"@{fn.name} is skipped: {e}")
    work = clone_module(module)

    def observe(report, m):
        for name, (args, want) in expected.items():
            got = oracle.run(m, name, args)
            problem = oracle.difference(want, got)
            assert problem is None, (
                f"pass '{report.name}' (#{report.position}) changed @{name}: {problem}\n"
                f"IR after it:\n{print_module(m)}")

    note(print_module(module))
    PassManager(resolve(DEFAULT), verify_each=True, roundtrip_each=True).run(work, observe)


@settings(max_examples=200)
@given(graphs_gen.graphs(max_ops=20), st.integers(0, 2 ** 16))
def test_pipeline_keeps_results_on_dataflow_graphs(module, seed):
    _bisect(module, seed)


@settings(max_examples=100)
@given(gen.modules(max_ops=10, max_depth=2), st.integers(0, 2 ** 16))
def test_pipeline_keeps_results_on_any_registry_program(module, seed):
    _bisect(module, seed)


def _check_idempotent(module) -> None:
    for p in PASSES.values():
        work = clone_module(module)
        before = print_module(work, locs="full")
        changed = p(work)
        after = print_module(work, locs="full")
        assert changed == (before != after), f"{p.name} said changed={changed}"
        verify(work)
        assert not p(work), f"{p.name} changed the IR again on its own output"
        assert print_module(work, locs="full") == after


@settings(max_examples=100)
@given(graphs_gen.graphs(max_ops=20))
def test_every_pass_is_idempotent_and_reports_change_truly(module):
    _check_idempotent(module)


@settings(max_examples=100)
@given(gen.modules(max_ops=10, max_depth=2))
def test_every_pass_is_idempotent_on_any_registry_program(module):
    _check_idempotent(module)
