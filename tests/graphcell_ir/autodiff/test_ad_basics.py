"""The gradient transform on straight-line code: the API's options, what the result looks like,
and the boundary rules (zeros for unreached inputs, integer gradients, pass-through results)."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from graphcell_ir.autodiff import grad_function
from graphcell_ir.errors import AutodiffError
from graphcell_ir.ir import Builder, Function, Module, TensorType, float64
from graphcell_ir.ir.loc import GRAD
from graphcell_ir.ir.walk import walk
from graphcell_ir.text import parse_module

from ad_check import check_grad_function, run

DAG = """
func @f(%x: f64[2,3], %b: f64[3], %s: f64[]) -> f64[], f64[2,3] {
  %0 = add(%x, %b) : f64[2,3]  loc(t.py:2:8 f)
  %1 = tanh(%0) : f64[2,3]  loc(t.py:3:8 f)
  %2 = mul(%1, %0) : f64[2,3]  loc(t.py:4:8 f)
  %3 = mul(%2, %s) : f64[2,3]  loc(t.py:5:8 f)
  %4 = sub(%3, %x) : f64[2,3]  loc(t.py:6:8 f)
  %5 = reduce_mean(%4) {axis=[1], keep_dims=false} : f64[2]  loc(t.py:7:8 f)
  %6 = exp(%5) : f64[2]  loc(t.py:8:8 f)
  %r = reduce_sum(%6) {axis=none, keep_dims=false} : f64[]  loc(t.py:9:8 f)
  return %r, %2
}
"""


def test_dag_with_fan_out_and_broadcasting():
    rng = np.random.default_rng(0)
    m = parse_module(DAG)
    args = [rng.standard_normal((2, 3)), rng.standard_normal(3), np.array(0.7)]
    check_grad_function(m, "f", args, [0, 1, 2], rng=rng)


def test_backward_ops_point_at_the_forward_line_marked_grad():
    m = parse_module(DAG)
    g = grad_function(m, "f", [0, 1, 2])
    forward_lines = {op.loc.line for op in walk(m["f"]) if op.loc.known}
    grad_ops = [op for op in walk(g) if GRAD in op.loc.marks]
    assert len(grad_ops) > 10
    assert {op.loc.line for op in grad_ops} <= forward_lines
    assert all(op.loc.marks == () for op in list(walk(g))[:8])  # the forward keeps its locs
    assert "loc(t.py:4:8 f [grad])" in str(g)


def test_sens_ones_is_sens_arg_with_ones():
    rng = np.random.default_rng(1)
    m = parse_module(DAG)
    args = [rng.standard_normal((2, 3)), rng.standard_normal(3), np.array(0.7)]
    ones = grad_function(m, "f", [0, 1, 2])
    arg = grad_function(m, "f", [0, 1, 2], sens="arg")
    a = run(m, ones.name, *args)
    b = run(m, arg.name, *args, np.array(1.0), np.ones((2, 3)))
    for x, y in zip(a, b):
        np.testing.assert_allclose(x, y)


def test_has_aux_and_outputs_choose_what_is_differentiated():
    rng = np.random.default_rng(2)
    m = parse_module(DAG)
    args = [rng.standard_normal((2, 3)), rng.standard_normal(3), np.array(0.7)]
    aux = grad_function(m, "f", [2], has_aux=True)
    assert aux.attrs["diff_outputs"] == (0,)
    check_grad_function(m, "f", args, [0, 2], rng=rng, outputs=[1])
    first = run(m, aux.name, *args)
    only = grad_function(m, "f", [2], outputs=[0])
    np.testing.assert_allclose(first[2], run(m, only.name, *args)[2])


def test_an_input_the_output_does_not_use_gets_zeros():
    m = parse_module("""
func @f(%x: f64[2], %y: f32[3,1], %k: i32[4]) -> f64[] {
  %0 = reduce_sum(%x) {axis=none, keep_dims=false} : f64[]
  return %0
}
""")
    g = grad_function(m, "f", [1, 2])
    _, dy, dk = run(m, g.name, np.ones(2), np.ones((3, 1), np.float32), np.ones(4, np.int32))
    assert dy.dtype == np.float32 and dy.shape == (3, 1) and not dy.any()
    assert dk.dtype == np.int32 and not dk.any()


def test_integer_gradients_follow_pynative():
    """int32 arithmetic gives int32 gradients (DESIGN.md §10.7); a float op of an integer input
    gives a float gradient, as the tape does."""
    m = parse_module("""
func @f(%k: i32[3]) -> i32[] {
  %0 = mul(%k, %k) : i32[3]
  %1 = reduce_sum(%0) {axis=none, keep_dims=false} : i32[]
  return %1
}

func @h(%k: i32[2]) -> f32[] {
  %0 = exp(%k) : f32[2]
  %1 = reduce_sum(%0) {axis=none, keep_dims=false} : f32[]
  return %1
}
""")
    g = grad_function(m, "f", [0])
    _, dk = run(m, g.name, np.array([1, 2, 3], np.int32))
    assert dk.dtype == np.int32 and dk.tolist() == [2, 4, 6]
    h = grad_function(m, "h", [0])
    _, dk = run(m, h.name, np.array([0, 1], np.int32))
    assert dk.dtype == np.float32
    np.testing.assert_allclose(dk, np.exp([0.0, 1.0]), rtol=1e-6)


def test_written_back_parameters_pass_through_last():
    """``assign`` rebinds the parameter; its new value is an extra result the runtime writes
    back. It is not differentiated, stays last, and the gradient through the assigned value
    flows as PyNative's assign rule says."""
    m = parse_module("""
func @f(%x: f64[2], %w: f64[2] param) -> f64[], f64[2] attributes {n_mutated=1} {
  %0 = mul(%x, %w) : f64[2]
  %w2 = assign(%w, %0) : f64[2]
  %1 = sin(%w2) : f64[2]
  %2 = reduce_sum(%1) {axis=none, keep_dims=false} : f64[]
  return %2, %w2
}
""")
    rng = np.random.default_rng(3)
    g, _ = check_grad_function(m, "f", [rng.standard_normal(2), rng.standard_normal(2)], [0, 1],
                               rng=rng)
    assert [str(t) for t in g.result_types] == ["f64[]", "f64[2]", "f64[2]", "f64[2]"]
    assert g.attrs["n_mutated"] == 1 and g.attrs["diff_outputs"] == (0,)
    x, w = np.array([1.0, 2.0]), np.array([3.0, 4.0])
    out, dx, dw, w_new = run(m, g.name, x, w, np.array(1.0))
    np.testing.assert_allclose(w_new, x * w)
    np.testing.assert_allclose(dx, np.cos(x * w) * w)


def test_tuples_and_literal_operands():
    m = parse_module("""
func @f(%x: f64[2], %y: f64[2]) -> f64[2], (f64[2], f64[2]) {
  %t = make_tuple(%x, %y, 2.0:f64) : (f64[2], f64[2], f64)
  %a = tuple_get(%t) {index=0} : f64[2]
  %b = tuple_get(%t) {index=-2} : f64[2]
  %0 = mul(%a, %b) : f64[2]
  %1 = pow(%0, 3:i64) : f64[2]
  %u = make_tuple(%1, %a) : (f64[2], f64[2])
  return %0, %u
}
""")
    rng = np.random.default_rng(4)
    check_grad_function(m, "f", [rng.standard_normal(2), rng.standard_normal(2)], [0, 1], rng=rng)


def test_a_gradient_function_of_a_builder_made_function():
    m = Module()
    fn = m.add(Function("f"))
    x = fn.add_arg(TensorType(float64, (3,)), "x")
    b = Builder.at_end(fn.body)
    b.return_(b.op("reduce_sum", b.op("square", b.op("sin", x))))
    g = grad_function(m, fn, [0], name="df")
    assert g.name == "df" and m["df"] is g
    x0 = np.array([0.1, 0.5, 1.0])
    np.testing.assert_allclose(run(m, "df", x0)[1], 2 * np.sin(x0) * np.cos(x0))


def test_names_are_unique():
    m = parse_module(DAG)
    names = [grad_function(m, "f", [0]).name for _ in range(3)]
    assert names == ["f.grad", "f.grad_1", "f.grad_2"]


@pytest.mark.parametrize("kwargs,words", [
    (dict(wrt=[5]), "out of range"),
    (dict(wrt=0), "sequence of argument indices"),
    (dict(wrt=[0], sens="zeros"), "sens must be one of"),
    (dict(wrt=[0], has_aux=True, outputs=[0]), "not both"),
    (dict(wrt=[0], outputs=[2]), "outputs must be distinct indices"),
    (dict(wrt=[0], loop_capacity=0), "loop_capacity"),
    (dict(wrt=[0], n_mutated=3), "n_mutated must count"),
    (dict(wrt=[0], name="f"), "already has a function @f"),
])
def test_bad_requests_are_clear_errors(kwargs, words):
    m = parse_module(DAG)
    with pytest.raises(AutodiffError, match=words):
        grad_function(m, "f", **kwargs)
    assert list(m.functions) == ["f"]


def test_non_tensor_arguments_have_no_gradient():
    m = parse_module("""
func @f(%x: f64[2], %c: bool[], %s: f64) -> f64[2] {
  %0 = mul(%x, %s) : f64[2]
  return %0
}
""")
    for i in (1, 2):
        with pytest.raises(AutodiffError, match="not a numeric tensor"):
            grad_function(m, "f", [i])
    with pytest.raises(AutodiffError, match="no function @g"):
        grad_function(m, "g", [0])


UNARY = ["neg", "sin", "cos", "tanh", "exp", "sigmoid", "square", "abs", "relu", "erf"]
BINARY = ["add", "sub", "mul", "maximum", "minimum"]


@settings(max_examples=25, deadline=None, derandomize=True)
@given(data=st.data())
def test_random_elementwise_dags(data):
    """Hypothesis builds random DAGs of elementwise ops with fan-out and broadcasting."""
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))
    m = Module()
    fn = m.add(Function("f"))
    shapes = [(2, 3), (3,), (2, 1), ()]
    args = [fn.add_arg(TensorType(float64, s), f"a{i}") for i, s in enumerate(shapes)]
    b = Builder.at_end(fn.body)
    pool = list(args)
    for _ in range(data.draw(st.integers(1, 8))):
        if data.draw(st.booleans()):
            pool.append(b.op(data.draw(st.sampled_from(UNARY)), data.draw(st.sampled_from(pool))))
        else:
            x, y = data.draw(st.sampled_from(pool)), data.draw(st.sampled_from(pool))
            pool.append(b.op(data.draw(st.sampled_from(BINARY)), x, y))
    outs = pool[len(args):][-2:]
    b.return_(*[b.op("reduce_sum", o) for o in outs])
    inputs = [rng.uniform(0.2, 1.0, s) * rng.choice([-1, 1], s) for s in shapes]
    check_grad_function(m, "f", inputs, [0, 1, 2, 3], rng=rng)
