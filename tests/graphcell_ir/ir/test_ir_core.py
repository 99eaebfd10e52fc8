"""Values and use lists, ops, blocks, functions and modules."""
from __future__ import annotations

import numpy as np
import pytest

from graphcell_ir.errors import AttrError, IRError
from graphcell_ir.ir import (NONE, Block, Builder, Function, Literal, Module, Op, ScalarType,
                             TensorType, float32, int64, walk)
from graphcell_ir.ir.types import bool_
from graphcell_ir.ops import lookup

T = TensorType(float32, (2, 3))
ADD, NEG, MUL = lookup("add"), lookup("neg"), lookup("mul")


def make(n_args: int = 2):
    m = Module()
    fn = m.add(Function("f"))
    args = [fn.add_arg(T, f"a{i}") for i in range(n_args)]
    return m, fn, Builder.at_end(fn.body), args


def test_values_expose_type_shape_dtype():
    _, _, b, (x, y) = make()
    z = b.op(ADD, x, y)
    assert (z.type, z.shape, z.dtype, z.ndim) == (T, (2, 3), float32, 2)
    assert z.op.opdef is ADD and z.index == 0 and z.op.result is z


def test_use_lists_count_every_operand_slot():
    _, _, b, (x, y) = make()
    s = b.op(ADD, x, x)
    assert x.uses == {s.op: 2} and x.users == [s.op]
    t = b.op(MUL, s, y)
    assert s.users == [t.op] and y.users == [t.op]


def test_replace_all_uses_with_moves_every_use():
    _, _, b, (x, y) = make()
    a = b.op(ADD, x, x)
    n = b.op(NEG, x)
    x.replace_all_uses_with(y)
    assert not x.uses and a.op.operands == (y, y) and n.op.operands == (y,)
    assert y.uses == {a.op: 2, n.op: 1}


def test_replace_uses_only_where_asked():
    _, _, b, (x, y) = make()
    a, n = b.op(ADD, x, x), b.op(NEG, x)
    x.replace_all_uses_with(y, where=lambda op: op is n.op)
    assert a.op.operands == (x, x) and n.op.operands == (y,) and x.users == [a.op]


def test_set_operand_keeps_use_lists():
    _, _, b, (x, y) = make()
    a = b.op(ADD, x, x)
    a.op.set_operand(1, y)
    assert x.uses == {a.op: 1} and y.uses == {a.op: 1}


def test_erase_refuses_while_results_are_used_and_cleans_up_after():
    _, fn, b, (x, y) = make()
    a = b.op(ADD, x, y)
    n = b.op(NEG, a)
    with pytest.raises(IRError, match="still used by neg"):
        a.op.erase()
    n.op.erase()
    a.op.erase()
    assert not x.uses and not y.uses and len(fn.body) == 0


def test_erase_drops_uses_made_inside_regions():
    _, fn, b, (x, y) = make()
    p = fn.add_arg(TensorType(bool_, ()), "p")
    (r,) = b.if_(p, lambda: b.op(NEG, x), lambda: y)
    assert len(x.uses) == 1 and p.uses
    r.op.erase()
    assert not x.uses and not y.uses and not p.uses


def test_erasing_the_visited_op_while_iterating_is_safe():
    _, fn, b, (x,) = make(1)
    for _ in range(5):
        b.op(NEG, x)
    seen = []
    for op in fn.body:
        seen.append(op)
        op.erase()
    assert len(seen) == 5 and len(fn.body) == 0 and not x.uses


def test_block_insertion_detach_and_move():
    _, fn, b, (x,) = make(1)
    first = b.op(NEG, x).op
    last = b.op(NEG, x).op
    with b.insertion_point(fn.body, before=last):
        middle = b.op(NEG, x).op
    assert fn.body.ops == [first, middle, last]
    last.move_before(first)
    assert fn.body.ops == [last, first, middle]
    middle.move_after(last)
    assert fn.body.ops == [last, middle, first] and list(reversed(fn.body)) == [first, middle, last]
    assert fn.body.first is last and fn.body.last is first and len(fn.body) == 3
    assert middle.prev_op is last and middle.next_op is first
    with pytest.raises(IRError, match="already in a block"):
        fn.body.append(first)
    first.detach()
    assert len(fn.body) == 2 and first.parent is None and x.uses[first] == 1


def test_attrs_are_validated_completed_and_read_only():
    _, _, b, (x, _) = make()
    s = b.op("reduce_sum", x, axis=[1])
    assert dict(s.op.attrs) == {"axis": (1,), "keep_dims": False}
    with pytest.raises(TypeError):
        s.op.attrs["axis"] = (0,)
    s.op.set_attrs(keep_dims=True)
    assert s.op.attrs["keep_dims"] is True
    with pytest.raises(AttrError, match="keep_dims"):
        s.op.set_attrs(keep_dims=3)
    with pytest.raises(AttrError, match="unknown attribute"):
        Op(NEG, [x], [T], {"axis": 1})


def test_ops_take_only_ir_values():
    with pytest.raises(IRError, match="not an IR Value"):
        Op(NEG, [np.zeros(3)], [T])


def test_literals_are_typed_and_normalised():
    assert Literal(2.0).type == ScalarType(float32) and Literal(2).type == ScalarType(int64)
    assert Literal(True).type == ScalarType(bool_) and Literal(None).type == NONE
    assert Literal(2, ScalarType(float32)).value == 2.0
    assert Literal(3.0, ScalarType(int64)).value == 3
    for bad in [(1.5, ScalarType(int64)), (1, ScalarType(bool_)), (1.0, NONE), (None, T),
                (np.zeros(2), None), ("s", None)]:
        with pytest.raises(IRError):
            Literal(*bad)


def test_result_property_needs_exactly_one_result():
    op = Op(lookup("neg"), [], [T, T])
    with pytest.raises(IRError, match="2 results"):
        op.result


def test_functions_and_modules():
    m, fn, b, (x, y) = make()
    w = fn.add_arg(T, "fc.weight", param=True)
    ret = b.return_(b.op(ADD, x, w))
    assert fn.params == [w] and fn.args == [x, y, w] and fn.return_op is ret
    assert fn.result_types == (T,) and fn.module is m and m["f"] is fn and "f" in m
    with pytest.raises(IRError, match="already has a function"):
        m.add(Function("f"))
    with pytest.raises(KeyError, match="no function @g.*@f"):
        m["g"]
    assert m.add_const(np.zeros(2)) == "consts/0" and m.add_const(np.ones(2)) == "consts/1"
    assert [op.opdef.name for op in walk(m)] == ["add", "return"]
    assert m.remove("f") is fn and fn.module is None and len(m) == 0


def test_block_args_can_be_erased_when_unused():
    block = Block([T, T, T])
    Op(NEG, [block.args[2]], [T])
    block.erase_arg(0)
    assert [a.index for a in block.args] == [0, 1]
    with pytest.raises(IRError, match="still used"):
        block.erase_arg(1)


def test_navigation_up_the_tree():
    _, fn, b, (x, _) = make()
    p = fn.add_arg(TensorType(bool_, ()), "p")
    inner = []
    (r,) = b.if_(p, lambda: inner.append(b.op(NEG, x)) or inner[0], lambda: x)
    nested = inner[0].op
    assert nested.parent_op is r.op and nested.function is fn and r.op.parent_op is None
    assert r.op.regions[0].block.parent_op is r.op and r.op.regions[0].parent is r.op
