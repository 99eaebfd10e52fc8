"""Every golden case, in PyNative and in graph mode, against what MindSpore 2.10 recorded.

The cases are ``cases/<family>.py``; ``tools/record_goldens.py`` (run in a MindSpore venv) writes
``goldens/<family>.npz``. A case changed or added after recording fails here until it is recorded.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import golden_cases as G
from golden_harness import (REFUSALS, Golden, central_differences, compare, compare_grads,
                            compare_params, fd_function, fd_inputs, graph_grads_float64, run_graph,
                            run_pynative)
from graphcell.testing import check_grads

HERE = Path(__file__).parent


def _load() -> list:
    params = []
    for path in sorted((HERE / "cases").glob("*.py")):
        family = path.stem
        golden_path = HERE / "goldens" / f"{family}.npz"
        records, data = G.read_goldens(golden_path) if golden_path.exists() else ({}, None)
        for c in G.load_cases(path):
            for mode in G.MODES:
                marks = ()
                if mode not in c.modes:
                    marks = pytest.mark.skip(reason=c.why or f"not run in {mode} mode")
                params.append(pytest.param(family, c, records.get(c.cid), data, mode,
                                           id=f"{family}:{c.cid}-{mode}", marks=marks))
    return params


@pytest.mark.parametrize("family, case, record, data, mode", _load())
def test_golden(family, case, record, data, mode):
    assert record is not None, f"{case.cid} has no golden: run tools/record_goldens.py {family}"
    assert record["fingerprint"] == case.fingerprint(), \
        f"{case.cid} changed after it was recorded: run tools/record_goldens.py {family}"
    g = Golden(case, record, data)
    run = run_pynative if mode == "pynative" else run_graph
    params = g.make_params()
    if "error" in record:
        with pytest.raises(REFUSALS):
            run(g, params)
        return
    out, grads = run(g, params)
    compare(out, record["out"], g)
    compare_params(params, g)
    if grads is not None and case.ms_grad:
        compare_grads(grads, g)


def _differentiable() -> list:
    out = []
    for p in _load():
        family, c, record, data, mode = p.values
        # a layer's gradients are MindSpore's (its functions have finite-difference checks)
        if record is not None and record.get("grad") and c.fd and mode in c.modes \
                and not c.is_cell:
            out.append(pytest.param(c, record, data, mode, id=f"{family}:{c.cid}-{mode}"))
    return out


@pytest.mark.parametrize("case, record, data, mode", _differentiable())
def test_golden_finite_differences(case, record, data, mode):
    """The gradient of every differentiable case against float64 central differences: PyNative's
    through ``check_grads``, graph mode's (``ms.grad`` compiled) element by element."""
    g = Golden(case, record, data)
    if mode == "pynative":
        report = check_grads(fd_function(g), fd_inputs(g))
        assert report.passed, str(report)
        return
    analytic = graph_grads_float64(g)
    numeric = central_differences(fd_function(g), fd_inputs(g))
    for i, (a, n) in zip(g.grad_positions, zip(analytic, numeric)):
        np.testing.assert_allclose(a.asnumpy(), n, rtol=1e-5, atol=1e-6,
                                   err_msg=f"compiled gradient of t{i} vs central differences")
