"""Myia-style before/after tests written in Python (STYLE §9.9.4): ``before`` and ``after`` are
lowered by the frontend, the passes run on ``before``, and the printed IR (no locations, no name
hints) must equal ``after``'s. A no-op case checks the harness itself."""
from __future__ import annotations

import numpy as np
import pytest

from graphcell_ir.frontend import PythonResolver, compile_function
from graphcell_ir.ir import TensorType, float32, walk
from graphcell_ir.ir.structural import FUSED
from graphcell_ir.ops import functional as F
from graphcell_ir.passes import run_pipeline
from graphcell_ir.text import print_module

VEC = TensorType(float32, (3,))


def lower(fn, specs=(VEC,)):
    return compile_function(fn, None, list(specs), PythonResolver(), name="f").module


def check_opt(before, after, passes, specs=(VEC,)):
    m = lower(before, specs)
    run_pipeline(m, passes, verify_each=True)
    assert canonical(m) == canonical(lower(after, specs))


def canonical(m) -> str:
    """The text without locations or name hints: what the IR computes, not what it is called."""
    return print_module(m, locs="none", hints=False)


def identity_chain(x):
    return -(-(x * 1.0))


def just_x(x):
    return x


def plus_zero(x):
    return x + 0.0


def twice_exp(x):
    return F.exp(x) + F.exp(x)


def exp_once(x):
    e = F.exp(x)
    return e + e


def with_constants(x):
    c = np.ones(3, np.float32)
    return x + c * 2


def folded(x):
    return x + np.full(3, 2.0, np.float32)


def shapes(x):
    return x.reshape(1, 3).reshape(3, 1).T.reshape(3)


def test_the_harness_accepts_a_function_against_itself():
    check_opt(plus_zero, plus_zero, [])


def test_the_harness_sees_a_difference():
    with pytest.raises(AssertionError):
        check_opt(plus_zero, just_x, [])


@pytest.mark.parametrize("before, after, passes", [
    (identity_chain, just_x, ["simplify", "dce"]),
    (plus_zero, plus_zero, ["default"]),                 # x + 0 is not x for x = -0.0
    (twice_exp, exp_once, ["cse"]),
    (with_constants, folded, ["fold", "dce"]),
    (shapes, just_x, ["simplify", "dce"]),               # reshapes and a no-data transpose
])
def test_before_after(before, after, passes):
    check_opt(before, after, passes)


def gelu(x, a, b):
    z = x * a + b
    return 0.5 * z * (1 + F.tanh(0.7978845608 * (z + 0.044715 * z ** 3)))


def test_gelu_from_python_is_one_kernel():
    m = lower(gelu, [TensorType(float32, (4, 8)), TensorType(float32, (8,)),
                     TensorType(float32, (8,))])
    reports = run_pipeline(m, ["default"], verify_each=True)
    assert (reports[-1].ops_before, reports[-1].ops_after) == (10, 1)
    assert sum(op.opdef is FUSED for op in walk(m)) == 1
