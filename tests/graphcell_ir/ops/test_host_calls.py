"""``py_call``: a Python function on the run-time values, with declared result types, whose
gradient is its function's ``vjp`` (or none). Run by the reference interpreter, differentiated by
IR autodiff."""
import numpy as np
import pytest

from graphcell_ir.autodiff import grad_function
from graphcell_ir.backend.interp import interpret
from graphcell_ir.errors import InterpError
from graphcell_ir.text import parse_module


def square(x):
    return x * x


def square_vjp(out, dout):
    return (dout * 2 * np.sqrt(out),)   # x >= 0 in the test: d(x*x)/dx = 2x


square.vjp = square_vjp


def no_vjp(x):
    return x * x


def wrong_shape(x):
    return np.concatenate([x, x])


TEXT = """func @f(%x: f32[3]) -> f32[] {{
  %0 = py_call(%x) {{fn={fn}, name="sq", types=[f32[3]]}} : f32[3]
  %1 = reduce_sum(%0) {{axis=none, keep_dims=false}} : f32[]
  return %1
}}
"""


def module(fn):
    m = parse_module(TEXT.format(fn="none"))
    op = next(iter(m["f"].body))
    op.set_attrs(fn=fn)
    return m


def test_the_function_runs_and_its_vjp_gives_the_gradient():
    m = module(square)
    x = np.array([1.0, 2.0, 3.0], np.float32)
    assert interpret(m["f"], x) == 14.0
    g = grad_function(m, "f", wrt=[0])
    value, dx = interpret(g, x)
    assert value == 14.0 and dx.tolist() == [2.0, 4.0, 6.0]


def test_without_a_vjp_no_gradient_flows_through():
    m = module(no_vjp)
    value, dx = interpret(grad_function(m, "f", wrt=[0]), np.ones(3, np.float32))
    assert dx.tolist() == [0.0, 0.0, 0.0]


def test_a_result_of_another_shape_than_declared_is_an_error():
    with pytest.raises(InterpError, match=r"expected a tensor f32\[3\] .* got f32\[6\]"):
        interpret(module(wrong_shape)["f"], np.ones(3, np.float32))


def test_without_a_function_it_is_the_identity():
    m = parse_module(TEXT.format(fn="none"))
    assert interpret(m["f"], np.ones(3, np.float32)) == 3.0
