"""Custom bprop at the IR level: a callee whose ``bprop`` attribute names its gradient Function
(hand-written ``.gcir``, as the frontend will produce from a Cell with a ``bprop`` method)."""
from __future__ import annotations

import numpy as np
import pytest

from graphcell_ir.errors import AutodiffError, BpropShapeError
from graphcell_ir.ir.structural import CALL
from graphcell_ir.ir.walk import walk
from graphcell_ir.text import parse_module

from ad_check import check_grad_function, run

# MindSpore's custom-bprop sample: construct computes x * y, bprop returns (2 * dout, 3 * dout)
# regardless of the forward (deliberately not the true gradient, so its use is visible).
CUSTOM = """
func @Net.construct(%x: f64[3], %y: f64[3]) -> f64[3] attributes {bprop="Net.bprop"} {
  %0 = mul(%x, %y) : f64[3]  loc(net.py:5:15 Net.construct)
  return %0
}

func @Net.bprop(%x: f64[3], %y: f64[3], %out: f64[3], %dout: f64[3]) -> f64[3], f64[3] {
  %0 = mul(%dout, 2.0:f64) : f64[3]  loc(net.py:8:15 Net.bprop)
  %1 = mul(%dout, 3.0:f64) : f64[3]  loc(net.py:8:26 Net.bprop)
  return %0, %1
}

func @f(%x: f64[3], %y: f64[3]) -> f64[] {
  %0 = sin(%x) : f64[3]  loc(t.py:2:12 f)
  %1 = call(%0, %y) {callee="Net.construct"} : f64[3]  loc(t.py:2:8 f)
  %2 = reduce_sum(%1) {axis=none, keep_dims=false} : f64[]  loc(t.py:3:11 f)
  return %2
}
"""


def test_the_custom_bprop_replaces_the_callees_gradient():
    m = parse_module(CUSTOM)
    x, y = np.array([0.1, 0.2, 0.3]), np.array([1.0, 2.0, 3.0])
    from graphcell_ir.autodiff import grad_function
    g = grad_function(m, "f", [0, 1])
    _, dx, dy = run(m, g.name, x, y)
    np.testing.assert_allclose(dx, 2 * np.cos(x))   # the custom 2 * dout, through sin
    np.testing.assert_allclose(dy, np.full(3, 3.0))
    callees = [op.attrs["callee"] for op in walk(g) if op.opdef is CALL]
    assert callees == ["Net.construct", "Net.bprop"]  # kept, not inlined


def test_a_true_custom_bprop_matches_finite_differences():
    m = parse_module(CUSTOM.replace("mul(%dout, 2.0:f64)", "mul(%dout, %y)")
                     .replace("mul(%dout, 3.0:f64)", "mul(%dout, %x)"))
    rng = np.random.default_rng(0)
    check_grad_function(m, "f", [rng.standard_normal(3), rng.standard_normal(3)], [0, 1], rng=rng)


def test_a_custom_bprop_inside_a_loop_and_a_branch():
    m = parse_module(CUSTOM.replace("mul(%dout, 2.0:f64)", "mul(%dout, %y)")
                     .replace("mul(%dout, 3.0:f64)", "mul(%dout, %x)") + """
func @g(%x: f64[3], %y: f64[3], %n: i64[]) -> f64[3] {
  %i0 = const() {value=0} : i64[]
  %i, %v = while(%i0, %x) : (i64[], f64[3]) cond(%a: i64[], %b: f64[3]) {
    %c = less(%a, %n) : bool[]
    yield %c
  } do(%a2: i64[], %b2: f64[3]) {
    %s = reduce_sum(%b2) {axis=none, keep_dims=false} : f64[]
    %p = greater(%s, 0.0:f64) : bool[]
    %z = if(%p) : f64[3] {
      %0 = call(%b2, %y) {callee="Net.construct"} : f64[3]
      yield %0
    } else {
      %1 = sin(%b2) : f64[3]
      yield %1
    }
    %a3 = add(%a2, 1:i64) : i64[]
    yield %a3, %z
  }
  return %v
}
""".replace("  loc(t.py:2:12 f)", "").replace("  loc(t.py:2:8 f)", "").replace("  loc(t.py:3:11 f)", "")
     .replace("  loc(net.py:5:15 Net.construct)", "").replace("  loc(net.py:8:15 Net.bprop)", "")
     .replace("  loc(net.py:8:26 Net.bprop)", ""))
    rng = np.random.default_rng(1)
    check_grad_function(m, "g", [np.array([0.4, -0.1, 0.3]), np.array([1.1, 0.9, -0.7]),
                                 np.array(4)], [0, 1], rng=rng, loop_capacity=2)


def test_a_bprop_for_inputs_only_gives_parameters_no_gradient():
    m = parse_module("""
func @Dense.construct(%x: f64[2], %w: f64[2] param) -> f64[2] attributes {bprop="Dense.bprop"} {
  %0 = mul(%x, %w) : f64[2]
  return %0
}

func @Dense.bprop(%x: f64[2], %w: f64[2], %out: f64[2], %dout: f64[2]) -> f64[2] {
  %0 = mul(%dout, %w) : f64[2]
  return %0
}

func @f(%x: f64[2], %w: f64[2] param) -> f64[2] {
  %0 = call(%x, %w) {callee="Dense.construct"} : f64[2]
  return %0
}
""")
    from graphcell_ir.autodiff import grad_function
    g = grad_function(m, "f", [0, 1])
    _, dx, dw = run(m, g.name, np.array([1.0, 2.0]), np.array([3.0, 4.0]))
    np.testing.assert_allclose(dx, [3.0, 4.0])
    np.testing.assert_allclose(dw, [0.0, 0.0])  # MindSpore: no internal_params, no gradient


def test_none_results_and_dtype_casts():
    m = parse_module("""
func @C.construct(%x: f32[2], %k: i64[2]) -> f32[2] attributes {bprop="C.bprop"} {
  %0 = cast(%k) {dtype=f32} : f32[2]
  %1 = mul(%x, %0) : f32[2]
  return %1
}

func @C.bprop(%x: f32[2], %k: i64[2], %out: f32[2], %dout: f32[2]) -> f64[2], none {
  %0 = cast(%dout) {dtype=f64} : f64[2]
  return %0, none
}

func @f(%x: f32[2], %k: i64[2]) -> f32[2] {
  %0 = call(%x, %k) {callee="C.construct"} : f32[2]
  return %0
}
""")
    from graphcell_ir.autodiff import grad_function
    g = grad_function(m, "f", [0, 1])
    _, dx, dk = run(m, g.name, np.ones(2, np.float32), np.array([2, 3]))
    assert dx.dtype == np.float32 and dk.dtype == np.int64  # cast to x's dtype; zeros for k
    np.testing.assert_array_equal(dx, [1.0, 1.0])
    np.testing.assert_array_equal(dk, [0, 0])


BAD_SIGNATURE = """
func @N.construct(%x: f64[3]) -> f64[3] attributes {bprop="N.bprop"} {
  %0 = neg(%x) : f64[3]
  return %0
}

func @N.bprop(%x: f64[3], %dout: f64[3]) -> f64[3] {
  return %dout
}

func @f(%x: f64[3]) -> f64[3] {
  %0 = call(%x) {callee="N.construct"} : f64[3]
  return %0
}
"""

BAD_SHAPE = BAD_SIGNATURE.replace(
    "func @N.bprop(%x: f64[3], %dout: f64[3]) -> f64[3] {\n  return %dout",
    "func @N.bprop(%x: f64[3], %out: f64[3], %dout: f64[3]) -> f64[] {\n"
    "  %0 = reduce_sum(%dout) {axis=none, keep_dims=false} : f64[]\n  return %0")


@pytest.mark.parametrize("text,error,words", [
    (BAD_SIGNATURE, AutodiffError, "must take the inputs, the outputs and their cotangents"),
    (BAD_SHAPE, BpropShapeError, "shapes must match"),
    (BAD_SIGNATURE.replace('bprop="N.bprop"', 'bprop="Nope"'), AutodiffError, "@Nope"),
])
def test_a_bad_custom_bprop_is_a_clear_error(text, error, words):
    from graphcell_ir.autodiff import grad_function
    m = parse_module(text)
    with pytest.raises(error, match=words):
        grad_function(m, "f", [0])
    assert list(m.functions) == ["N.construct", "N.bprop", "f"]  # nothing left behind


def test_the_differentiated_function_s_own_custom_bprop_is_used():
    """grad of a top-level Cell with a bprop method: its bprop, not its construct's ops."""
    from graphcell_ir.autodiff import grad_function
    m = parse_module(CUSTOM)
    g = grad_function(m, "Net.construct", [0, 1])
    x, y = np.array([0.1, 0.2, 0.3]), np.array([1.0, 2.0, 3.0])
    out, dx, dy = run(m, g.name, x, y)
    np.testing.assert_allclose(out, x * y)
    np.testing.assert_allclose(dx, np.full(3, 2.0))
    np.testing.assert_allclose(dy, np.full(3, 3.0))
