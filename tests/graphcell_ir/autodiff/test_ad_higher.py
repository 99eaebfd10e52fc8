"""Higher order: ``grad_function`` of a gradient Function (DESIGN.md §6). It works because the
rules are made of differentiable primitives and the transform's own output (control flow, loop
stacks, custom-bprop calls) is ordinary IR."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from graphcell_ir.autodiff import grad_function
from graphcell_ir.ir.loc import GRAD
from graphcell_ir.ir.walk import walk
from graphcell_ir.ops import REGISTRY
from graphcell_ir.text import parse_module

from ad_check import _float, check_grad_function, run
from test_ad_control import IF_ON_DATA, WHILE_DATA, WHILE_WITH_IF
from test_ad_custom import CUSTOM
from test_ad_registry import _one_op_module

from samples import SAMPLES, Gen

TANH_MUL = """
func @f(%x: f64[3], %y: f64[3]) -> f64[] {
  %0 = tanh(%x) : f64[3]  loc(t.py:2:11 f)
  %1 = mul(%0, %y) : f64[3]  loc(t.py:2:11 f)
  %2 = reduce_sum(%1) {axis=none, keep_dims=false} : f64[]  loc(t.py:2:4 f)
  return %2
}
"""


def _second_order(text, fn, args, wrt, first_wrt, *, rng, **options):
    """Check the gradient of the first-order gradients (the outputs after the primal ones)."""
    m = parse_module(text)
    g1 = grad_function(m, fn, first_wrt, **options)
    n = len(m[fn].result_types)
    outputs = list(range(n, n + len(first_wrt)))
    return check_grad_function(m, g1.name, args, wrt, rng=rng, outputs=outputs, **options)


def test_grad_of_grad_straight_line():
    rng = np.random.default_rng(0)
    g2, _ = _second_order(TANH_MUL, "f", [rng.standard_normal(3), rng.standard_normal(3)],
                          [0, 1], [0, 1], rng=rng)
    assert any(op.loc.marks == (GRAD, GRAD) for op in walk(g2))


def test_third_derivative_of_sin():
    m = parse_module("""
func @f(%x: f64[4]) -> f64[] {
  %0 = sin(%x) : f64[4]
  %1 = reduce_sum(%0) {axis=none, keep_dims=false} : f64[]
  return %1
}
""")
    g1 = grad_function(m, "f", [0])
    g2 = grad_function(m, g1, [0], outputs=[1])
    g3 = grad_function(m, g2, [0], outputs=[2])
    x = np.linspace(-1, 1, 4)
    _, d1, d2, d3 = run(m, g3.name, x)
    np.testing.assert_allclose(d1, np.cos(x))
    np.testing.assert_allclose(d2, -np.sin(x))
    np.testing.assert_allclose(d3, -np.cos(x))


@pytest.mark.parametrize("sign", [1.0, -1.0], ids=["then", "else"])
def test_grad_of_grad_through_if(sign):
    rng = np.random.default_rng(1)
    x = sign * rng.uniform(0.5, 1.5, 3)
    _second_order(IF_ON_DATA, "f", [x, rng.standard_normal(3)], [0, 1], [0, 1], rng=rng)


def test_grad_of_grad_through_while():
    rng = np.random.default_rng(2)
    x, w = rng.uniform(0.5, 1.0, 3), rng.uniform(0.1, 0.3, 3)
    m = parse_module(WHILE_DATA)
    g1 = grad_function(m, "f", [0, 1], outputs=[0], loop_capacity=12)
    check_grad_function(m, g1.name, [x, w], [0, 1], rng=rng, outputs=[2, 3], loop_capacity=12)


def test_grad_of_grad_through_if_in_while():
    rng = np.random.default_rng(3)
    _second_order(WHILE_WITH_IF, "f", [np.array([0.3, 0.2]), np.array(4)], [0], [0], rng=rng,
                  loop_capacity=8)


def test_grad_of_grad_through_a_custom_bprop():
    """The bprop Function is ordinary IR: the second transform differentiates (inlines) it."""
    true_bprop = CUSTOM.replace("mul(%dout, 2.0:f64)", "mul(%dout, %y)").replace(
        "mul(%dout, 3.0:f64)", "mul(%dout, %x)")
    rng = np.random.default_rng(4)
    _second_order(true_bprop, "f", [rng.standard_normal(3), rng.standard_normal(3)], [0, 1],
                  [0, 1], rng=rng)


SECOND = sorted(n for n, op in REGISTRY.items() if op.differentiable and n in SAMPLES)


def _params():
    out = []
    for name in SECOND:
        reason = SAMPLES[name].xfail.get("grad2")
        marks = [pytest.mark.xfail(reason=reason, strict=True)] if reason else []
        out.append(pytest.param(name, marks=marks, id=name))
    return out


@pytest.mark.parametrize("name", _params())
@settings(max_examples=2, deadline=None, derandomize=True)
@given(data=st.data())
def test_every_op_twice_differentiable_through_the_ir(name, data):
    op, row = REGISTRY[name], SAMPLES[name]
    g = Gen(data)
    operands, attrs = row.make(g, "float64")
    attrs = op.check_attrs({**attrs, **row.grad_attrs})
    m, arg_of = _one_op_module(op, operands, attrs)
    args = [x for x in operands if isinstance(x, np.ndarray)]
    diff = row.diff if row.diff is not None else [i for i, x in enumerate(operands) if _float(x)]
    wrt = [arg_of[i] for i in diff if arg_of[i] is not None]
    if not wrt:
        return
    g1 = grad_function(m, "f", wrt, sens="arg")
    n = len(m["f"].result_types)
    sens = [np.asarray(g.rng.standard_normal(t.shape), t.dtype.np_dtype) if t.dtype.is_float
            else np.zeros(t.shape, t.dtype.np_dtype) for t in m["f"].result_types]
    check_grad_function(m, g1.name, args + sens, wrt, rng=g.rng,
                        outputs=list(range(n, n + len(wrt))), rtol=max(row.rtol, 1e-5),
                        atol=max(row.atol, 1e-6))
