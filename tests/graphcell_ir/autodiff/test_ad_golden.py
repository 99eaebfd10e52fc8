"""Golden gradients: ``golden/<name>.gcir`` differentiated as ``CASES[name]`` says must print as
``golden/<name>.grad.gcir`` (the whole module, user locations), which must also parse back to the
same IR, verify, and compute what finite differences say.

After a deliberate change (a rule, the transform, the printer), regenerate the expectations with
``GRAPHCELL_ACCEPT_GOLDEN=1 pytest tests/graphcell_ir/autodiff/test_ad_golden.py`` and review the
diff.
"""
from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest

from graphcell_ir.autodiff import grad_function
from graphcell_ir.ir import assert_structurally_equal, verify
from graphcell_ir.text import parse_module, print_module

from ad_check import check_grad_function

HERE = Path(__file__).parent / "golden"
CASES = {
    "tanh_mul": (dict(wrt=[0, 1]), lambda rng: [rng.standard_normal((2, 3)), rng.standard_normal(3)]),
    "if_relu": (dict(wrt=[0, 1]), lambda rng: [rng.uniform(0.1, 1, 3), rng.standard_normal(3)]),
    "while_scale": (dict(wrt=[0, 1], loop_capacity=4),
                    lambda rng: [rng.uniform(0.5, 1, 2), rng.uniform(1.0, 1.3, 2)]),
}
ACCEPT = os.environ.get("GRAPHCELL_ACCEPT_GOLDEN") == "1"


def _source(name: str) -> str:
    return (HERE / f"{name}.gcir").read_text()


@pytest.mark.parametrize("name", sorted(CASES))
def test_golden_gradient_prints_as_expected(name):
    options, _ = CASES[name]
    m = parse_module(_source(name))
    grad_function(m, "f", **options)
    got = print_module(m)
    expected = HERE / f"{name}.grad.gcir"
    if ACCEPT:
        expected.write_text(got)
    assert got == expected.read_text()
    again = parse_module(got)
    verify(again)
    assert_structurally_equal(again, m)
    assert print_module(again) == got


@pytest.mark.parametrize("name", sorted(CASES))
def test_golden_gradient_is_right(name):
    options, inputs = CASES[name]
    text = _source(name).replace("f32", "f64")
    rng = np.random.default_rng(0)
    check_grad_function(parse_module(text), "f", inputs(rng), rng=rng, **options)


def test_every_golden_file_is_a_case():
    files = {p.name.split(".")[0] for p in HERE.glob("*.gcir")}
    assert files == set(CASES)
