"""Random draws and side effects inside regions: the backward must use the forward's values
(the dropout mask it drew, the value it assigned), never draw or assign again."""
from __future__ import annotations

import numpy as np
import pytest

from graphcell_ir.autodiff import grad_function
from graphcell_ir.errors import AutodiffError
from graphcell_ir.ir.walk import walk
from graphcell_ir.ops import REGISTRY
from graphcell_ir.text import parse_module

from ad_check import check_grad_function, run

DROPOUT_IN_IF = """
func @f(%x: f64[4,3], %w: f64[4,3]) -> f64[] {
  %s = reduce_sum(%x) {axis=none, keep_dims=false} : f64[]
  %c = greater(%s, 0.0:f64) : bool[]
  %y = if(%c) : f64[4,3] {
    %0 = mul(%x, %w) : f64[4,3]
    %1, %mask = dropout(%0) {keep_prob=0.5, seed0=0, seed1=0} : (f64[4,3], f64[4,3])
    %2 = sin(%1) : f64[4,3]
    yield %2
  } else {
    %3 = neg(%x) : f64[4,3]
    yield %3
  }
  %r = reduce_sum(%y) {axis=none, keep_dims=false} : f64[]
  return %r
}
"""


def _count(fn, name: str) -> int:
    return sum(op.opdef is REGISTRY[name] for op in walk(fn))


@pytest.mark.parametrize("sign", [1.0, -1.0], ids=["then", "else"])
def test_dropout_in_a_branch_is_drawn_once(sign):
    rng = np.random.default_rng(0)
    m = parse_module(DROPOUT_IN_IF)
    x = sign * rng.uniform(0.5, 1.0, (4, 3))
    g, _ = check_grad_function(m, "f", [x, rng.standard_normal((4, 3))], [0, 1], rng=rng)
    assert _count(g, "dropout") == 1  # the backward reuses the forward's mask


DROPOUT_IN_WHILE = """
func @f(%x: f64[6], %n: i64[]) -> f64[6] {
  %i0 = const() {value=0} : i64[]
  %i, %v = while(%i0, %x) : (i64[], f64[6]) cond(%a: i64[], %b: f64[6]) {
    %c = less(%a, %n) : bool[]
    yield %c
  } do(%a2: i64[], %b2: f64[6]) {
    %s = reduce_sum(%b2) {axis=none, keep_dims=false} : f64[]
    %p = greater(%s, -100.0:f64) : bool[]
    %z = if(%p) : f64[6] {
      %0, %m = dropout(%b2) {keep_prob=0.7, seed0=0, seed1=0} : (f64[6], f64[6])
      yield %0
    } else {
      yield %b2
    }
    %1 = mul(%z, %x) : f64[6]
    %2 = tanh(%1) : f64[6]
    %a3 = add(%a2, 1:i64) : i64[]
    yield %a3, %2
  }
  return %v
}
"""


def test_dropout_in_a_loop_is_stacked_per_iteration():
    rng = np.random.default_rng(1)
    m = parse_module(DROPOUT_IN_WHILE)
    g, _ = check_grad_function(m, "f", [rng.uniform(0.5, 1.0, 6), np.array(3)], [0], rng=rng)
    assert _count(g, "dropout") == 1


def test_dropout_in_a_loop_past_the_capacity_gives_nan_not_a_wrong_gradient():
    """Masks past the capacity were not kept and cannot be drawn again: NaN, never a silently
    wrong number (graphcell_ir has no runtime error op to raise with)."""
    m = parse_module(DROPOUT_IN_WHILE)
    g = grad_function(m, "f", [0], loop_capacity=2)
    x = np.full(6, 0.8)
    _, dx = run(m, g.name, x, np.array(2))
    assert np.isfinite(dx).all()
    _, dx = run(m, g.name, x, np.array(3))
    assert np.isnan(dx).any()


def test_random_op_in_a_loop_nested_in_a_branch_is_refused():
    m = parse_module("""
func @f(%x: f64[3], %n: i64[]) -> f64[3] {
  %s = reduce_sum(%x) {axis=none, keep_dims=false} : f64[]
  %p = greater(%s, 0.0:f64) : bool[]
  %y = if(%p) : f64[3] {
    %i0 = const() {value=0} : i64[]
    %i, %v = while(%i0, %x) : (i64[], f64[3]) cond(%a: i64[], %b: f64[3]) {
      %c = less(%a, %n) : bool[]
      yield %c
    } do(%a2: i64[], %b2: f64[3]) {
      %0, %m = dropout(%b2) {keep_prob=0.7, seed0=0, seed1=0} : (f64[3], f64[3])
      %a3 = add(%a2, 1:i64) : i64[]
      yield %a3, %0
    }
    yield %v
  } else {
    yield %x
  }
  return %y
}
""")
    with pytest.raises(AutodiffError, match="nested in another region.*Dropout|dropout"):
        grad_function(m, "f", [0])
    assert list(m.functions) == ["f"]
    grad_function(m, "f", [1])  # fine when the loop is not differentiated


def test_assign_in_a_branch_happens_once():
    m = parse_module("""
func @f(%x: f64[2], %w: f64[2] param) -> f64[], f64[2] attributes {n_mutated=1} {
  %s = reduce_sum(%x) {axis=none, keep_dims=false} : f64[]
  %p = greater(%s, 0.0:f64) : bool[]
  %w2 = if(%p) : f64[2] {
    %0 = mul(%w, %x) : f64[2]
    %1 = assign(%w, %0) : f64[2]
    yield %1
  } else {
    yield %w
  }
  %2 = sin(%w2) : f64[2]
  %3 = reduce_sum(%2) {axis=none, keep_dims=false} : f64[]
  return %3, %w2
}
""")
    rng = np.random.default_rng(2)
    for sign in (1.0, -1.0):
        g, _ = check_grad_function(m, "f", [sign * rng.uniform(0.5, 1, 2), rng.standard_normal(2)],
                                   [0, 1], rng=rng)
        assert _count(g, "assign") == 1
