"""The Builder: typed op creation, insertion points, locations, structural ops, the Emitter."""
from __future__ import annotations

import numpy as np
import pytest

from graphcell_ir.errors import IRError, OpTypeError, ShapeError
from graphcell_ir.ir import (CONST, INLINE_CONST_LIMIT, MAKE_TUPLE, Builder, Function, Literal, Loc,
                             Module, ScalarType, TensorType, TupleType, float32, int64, verify)
from graphcell_ir.ir.structural import const_array
from graphcell_ir.ir.types import bool_
from graphcell_ir.ops import Kind, OpDef, functional as F, lookup
from graphcell_ir.ops.registry import NONDIFF

T = TensorType(float32, (2, 3))
LOC = Loc("net.py", 4, 8, ("Net.construct",))


def make():
    m = Module()
    fn = m.add(Function("f"))
    x = fn.add_arg(T, "x")
    return m, fn, Builder.at_end(fn.body, LOC), x


def test_results_are_typed_by_the_shape_rule():
    _, _, b, x = make()
    s = b.op("reduce_sum", x, axis=(1,), keep_dims=True)
    assert s.type == TensorType(float32, (2, 1)) and s.op.loc is LOC
    c = b.op(lookup("greater"), x, s)
    assert c.type == TensorType(bool_, (2, 3))


def test_shape_errors_surface_at_creation():
    _, _, b, x = make()
    with pytest.raises(ShapeError, match="MatMul"):
        b.op("matmul", x, x)
    with pytest.raises(ShapeError, match="BroadcastTo: target shape \\[-2\\] has a negative size"):
        b.op("broadcast_to", b.op("reduce_sum", x), shape=(-2,))


def test_python_numbers_become_literals_and_arrays_constants():
    _, _, b, x = make()
    y = b.op("mul", x, 2.0)
    lit = y.op.operands[1]
    assert isinstance(lit, Literal) and lit.value == 2.0 and lit.type == ScalarType(float32)
    z = b.op("add", x, np.ones((2, 3), np.float32))
    c = z.op.operands[1]
    assert c.op.opdef is CONST and c.type == T
    t = b.value((x, 1))
    assert t.op.opdef is MAKE_TUPLE and t.type == TupleType((T, ScalarType(int64)))
    with pytest.raises(OpTypeError, match="cannot use a str"):
        b.value("nope")


def test_functional_api_emits_ir_through_the_builder():
    _, fn, b, x = make()
    with F.using_emitter(b):
        y = F.mul(x, 2)
        g = F.sum_to(y, (1, 3))
        z = F.zeros_like(g)
    assert y.type == T and g.type == TensorType(float32, (1, 3)) and z.op.opdef is lookup("fill")
    assert [op.opdef.name for op in fn.body] == ["mul", "reduce_sum", "reshape", "fill"]
    b.return_(z)
    verify(fn)


def test_multi_result_ops_return_a_tuple_of_values():
    split = OpDef("split2", ("x",), Kind.LAYOUT, infer=lambda x: (x, x),
                  ref=lambda x: (x, x), bprop=NONDIFF)
    _, _, b, x = make()
    a, c = b.op(split, x)
    assert a.type == c.type == T and a.op is c.op and (a.index, c.index) == (0, 1)


def test_insertion_points_and_locations():
    _, fn, b, x = make()
    last = b.op("neg", x)
    before = Builder.before_op(last.op)
    first = before.op("exp", x)
    assert fn.body.ops == [first.op, last.op] and first.op.loc is LOC
    other = Loc("net.py", 5, 0)
    with b.at_loc(other):
        mid = b.op("abs", x)
    assert mid.op.loc is other and b.loc is LOC
    with b.insertion_point(fn.body, before=last.op):
        b.op("sin", x)
    assert [op.opdef.name for op in fn.body] == ["exp", "sin", "neg", "abs"]
    with pytest.raises(IRError, match="no insertion point"):
        Builder().op("neg", x)


def test_small_constants_are_inline_large_ones_go_to_the_table():
    m, fn, b, x = make()
    small = b.const(np.arange(INLINE_CONST_LIMIT, dtype=np.float32))
    big = b.const(np.arange(INLINE_CONST_LIMIT + 1, dtype=np.float32))
    assert "value" in small.op.attrs and big.op.attrs["ref"] == "consts/0"
    np.testing.assert_array_equal(const_array(big.op), m.consts["consts/0"])
    source = np.zeros(3, np.float32)
    kept = b.const(source)
    source[0] = 1
    assert const_array(kept.op)[0] == 0  # the builder copies
    lone = Function("g")
    with pytest.raises(IRError, match="add the function to a Module"):
        Builder.at_end(lone.body).const(np.zeros(100))


def test_if_builds_both_regions_and_types_the_results():
    _, fn, b, x = make()
    p = fn.add_arg(TensorType(bool_, ()), "p")
    (y,) = b.if_(p, lambda: b.op("neg", x), lambda: x)
    then_ops = [op.opdef.name for op in y.op.regions[0].block]
    assert then_ops == ["neg", "yield"] and y.type == T and y.op.loc is LOC
    b.return_(y)
    verify(fn)


def test_failed_if_leaves_no_dangling_uses():
    _, fn, b, x = make()
    p = fn.add_arg(TensorType(bool_, ()), "p")
    with pytest.raises(OpTypeError, match="then branch gives"):
        b.if_(p, lambda: b.op("neg", x), lambda: b.op("reduce_sum", x))
    with pytest.raises(OpTypeError, match="predicate"):
        b.if_(x, lambda: x, lambda: x)
    with pytest.raises(ShapeError):
        b.if_(p, lambda: b.op("matmul", b.op("neg", x), x), lambda: x)
    assert not x.uses and not p.uses and len(fn.body) == 0


def test_while_threads_carried_values_through_both_regions():
    _, fn, b, x = make()
    i0 = b.const(np.array(0, np.int64))
    i0.name_hint = "i"
    i, y = b.while_([i0, x], lambda i, y: b.op("less", i, 3),
                    lambda i, y: (b.op("add", i, 1), b.op("mul", y, 2.0)))
    cond, body = (r.block for r in i.op.regions)
    assert [a.name_hint for a in cond.args] == ["i", "x"] and [a.type for a in body.args] == [i0.type, T]
    b.return_(y)
    verify(fn)
    with pytest.raises(OpTypeError, match="the body gives"):
        b.while_([x], lambda y: True, lambda y: b.op("reduce_sum", y))
    with pytest.raises(OpTypeError, match="condition must give one bool"):
        b.while_([x], lambda y: y, lambda y: y)


def test_call_and_return():
    m, fn, b, x = make()
    helper = m.add(Function("helper"))
    h = helper.add_arg(T, "v")
    hb = Builder.at_end(helper.body)
    with pytest.raises(IRError, match="no result types yet"):
        b.call(helper, x)
    hb.return_(hb.op("neg", h), 1.0)
    assert helper.result_types == (T, ScalarType(float32))
    r, s = b.call(helper, x)
    assert r.type == T and r.op.attrs["callee"] == "helper"
    b.return_(r)
    verify(m)


def test_structural_ops_need_their_builder_methods():
    _, _, b, x = make()
    with pytest.raises(IRError, match="dedicated method"):
        b.create(CONST, [])
