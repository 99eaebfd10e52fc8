"""walk, replace_op, cloning and structural equality."""
from __future__ import annotations

import numpy as np
import pytest

from graphcell_ir.ir import (Loc, assert_structurally_equal, clone_function, clone_module,
                             replace_op, structurally_equal, verify, walk)
from graphcell_ir.text import parse_module

TEXT = """func @f(%x: f32[3], %p: bool[]) -> f32[3] {
  %0 = neg(%x) : f32[3]  loc(a.py:1:0 f)
  %1 = if(%p) : f32[3] {
    %2 = exp(%0) : f32[3]  loc(a.py:2:0 f)
    yield %2
  } else {
    %3 = mul(%0, 2.0:f32) : f32[3]  loc(a.py:3:0 f)
    yield %3
  }  loc(a.py:2:0 f)
  %4 = const() {value=[1.0,nan,3.0]} : f32[3]  loc(a.py:4:0 f)
  %5 = add(%1, %4) : f32[3]  loc(a.py:4:0 f)
  return %5
}
"""


def names(ops):
    return [op.opdef.name for op in ops]


def test_walk_visits_ops_in_text_order():
    m = parse_module(TEXT)
    order = ["neg", "if", "exp", "yield", "mul", "yield", "const", "add", "return"]
    assert names(walk(m)) == order and names(walk(m["f"])) == order
    if_op = m["f"].body.ops[1]
    assert names(walk(if_op)) == ["if", "exp", "yield", "mul", "yield"]
    assert names(walk(if_op.regions[1])) == ["mul", "yield"]


def test_replace_op_rewires_users_and_erases():
    m = parse_module(TEXT)
    fn = m["f"]
    neg = fn.body.first
    replace_op(neg, [fn.args[0]])
    assert names(fn.body)[0] == "if" and names(fn.args[0].uses) == ["exp", "mul"]
    verify(m)
    with pytest.raises(ValueError, match="1 results, got 2"):
        replace_op(fn.body.first, [fn.args[0], fn.args[0]])


def test_clones_are_equal_and_independent():
    m = parse_module(TEXT)
    c = clone_module(m)
    assert_structurally_equal(m, c, locs=True, names=True)
    fn2 = c["f"]
    assert fn2.args[0] is not m["f"].args[0] and not set(fn2.args[0].uses) & set(m["f"].args[0].uses)
    add, neg = fn2.body.ops[-2], fn2.body.first
    add.set_operand(1, neg.results[0])
    assert not structurally_equal(m, c)
    verify(m)
    renamed = clone_function(m["f"], "g")
    assert renamed.name == "g" and renamed.module is None


def test_structural_equality_reports_the_first_difference():
    a, b = parse_module(TEXT), parse_module(TEXT)
    assert structurally_equal(a, b, locs=True)
    b["f"].body.ops[2].results[0].name_hint = "w"
    assert structurally_equal(a, b) and not structurally_equal(a, b, names=True)
    b["f"].body.first.loc = Loc("b.py", 1, 0)
    assert structurally_equal(a, b) and not structurally_equal(a, b, locs=True)
    const = b["f"].body.ops[2]
    const.set_attrs(value=np.array([1.0, np.nan, 4.0], np.float32))
    with pytest.raises(AssertionError, match=r"@f/2:const: attrs"):
        assert_structurally_equal(a, b)
    c = parse_module(TEXT.replace("mul(%0, 2.0:f32)", "mul(%0, 3.0:f32)"))
    with pytest.raises(AssertionError, match="region1/0:mul: operand 1 differs"):
        assert_structurally_equal(a, c)
    d = parse_module(TEXT.replace("%5 = add(%1, %4)", "%5 = add(%4, %1)"))
    with pytest.raises(AssertionError, match="add: operand 0 differs"):
        assert_structurally_equal(a, d)
