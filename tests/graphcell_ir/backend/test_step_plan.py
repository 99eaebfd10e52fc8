"""The static buffer plan (``backend/step/plan.py``): no two buffers that are live at once
overlap in memory — on random intervals, on random straight-line graphs (with in-place writes and
views allowed) and on a real gradient graph — returned values and arguments stay out of the arena,
and buffers are reused once dead."""
from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from graphcell_ir.backend.step.plan import (ALIGN, Interval, PlanError, nbytes, place,
                                            plan_function)
from graphcell_ir.ir import Builder, Function, TensorType, float32
from graphcell_ir.text import parse_module

intervals = st.lists(
    st.tuples(st.integers(1, 5000), st.integers(0, 30), st.integers(0, 10)).map(
        lambda t: (t[0], t[1], t[1] + t[2])), min_size=0, max_size=40)


@given(intervals)
def test_placed_intervals_that_live_together_never_share_bytes(raw):
    ivs = [Interval(k, size, start, end) for k, (size, start, end) in enumerate(raw)]
    offsets, size = place(ivs)
    for a in ivs:
        assert offsets[a.key] % ALIGN == 0
        assert offsets[a.key] + a.size <= size
        for b in ivs:
            if a.key < b.key and a.overlaps(b):
                assert (offsets[a.key] + a.size <= offsets[b.key]
                        or offsets[b.key] + b.size <= offsets[a.key]), (a, b)


def test_dead_buffers_are_reused():
    ivs = [Interval("a", 100, 0, 1), Interval("b", 100, 1, 2), Interval("c", 100, 2, 3)]
    offsets, size = place(ivs)
    assert offsets["a"] == offsets["c"] != offsets["b"]
    assert size == 2 * 128


def _live(fn: Function, plan) -> dict:
    """Each planned buffer root's (first, last) op index, from the IR by hand."""
    ops = [op for op in fn.body if not op.is_terminator]
    span: dict = {}
    for n, op in enumerate(ops):
        for v in list(op.operands) + list(op.results):
            if v in plan.offset:
                r = plan.root[v]
                lo, hi = span.get(r, (n, n))
                span[r] = (min(lo, n), max(hi, n))
    return span


def _check_no_overlap(fn: Function, plan) -> None:
    span = _live(fn, plan)
    roots = list(span)
    for i, a in enumerate(roots):
        for b in roots[i + 1:]:
            (a0, a1), (b0, b1) = span[a], span[b]
            if a0 <= b1 and b0 <= a1:
                oa, ob = plan.offset[a], plan.offset[b]
                assert oa + nbytes(a) <= ob or ob + nbytes(b) <= oa, (a, b)


# a random straight-line graph: each step applies neg/exp/add/mul/reshape to earlier values
steps = st.lists(st.tuples(st.sampled_from(["neg", "exp", "add", "mul", "reshape"]),
                           st.integers(0, 10 ** 6), st.integers(0, 10 ** 6)),
                 min_size=1, max_size=25)


def _random_graph(program, n_returned: int) -> Function:
    fn = Function("g")
    vals = [fn.add_arg(TensorType(float32, (4, 6)), "x"), fn.add_arg(TensorType(float32, (4, 6)), "y")]
    b = Builder.at_end(fn.body)
    for name, i, j in program:
        a, c = vals[i % len(vals)], vals[j % len(vals)]
        if name == "reshape":
            shape = (24,) if a.shape == (4, 6) else (4, 6)
            vals.append(b.op("reshape", a, shape=shape))
        elif name in ("add", "mul"):
            if c.shape != a.shape:
                c = b.op("reshape", c, shape=a.shape)
                vals.append(c)
            vals.append(b.op(name, a, c))
        else:
            vals.append(b.op(name, a))
    b.return_(*vals[-n_returned:])
    return fn


@given(steps, st.integers(1, 3), st.booleans())
def test_random_graphs_never_overlap_live_buffers(program, n_returned, shared):
    fn = _random_graph(program, n_returned)
    views = (lambda op: 0 if op.opdef.name == "reshape" else None) if shared else \
        (lambda op: None)
    in_place = (lambda op, i: op.opdef.name != "reshape") if shared else (lambda op, i: False)
    plan = plan_function(fn, views=views, in_place=in_place)
    _check_no_overlap(fn, plan)
    returned = set(fn.body.terminator.operands)
    ops = [op for op in fn.body if not op.is_terminator]
    for v in returned:
        assert v not in plan.offset  # the caller never sees arena memory
    for a in fn.args:
        assert a not in plan.offset and plan.root.get(a, a) is a
    for n, op in enumerate(ops):   # a result written over an operand: nothing reads it later
        if op.opdef.name == "reshape":
            continue
        for r in op.results:
            for v in op.operands:
                if v not in fn.args and plan.shares(r, v):
                    assert not any(v in u.operands for u in ops[n + 1:])
                    assert v not in returned


def test_in_place_takes_a_dying_operand_but_never_an_argument():
    fn = Function("f")
    x = fn.add_arg(TensorType(float32, (8,)), "x")
    b = Builder.at_end(fn.body)
    y = b.op("neg", x)
    z = b.op("exp", y)      # y dies here: z may take its bytes
    w = b.op("neg", z)
    b.return_(w)
    plan = plan_function(fn, in_place=lambda op, i: True)
    assert plan.shares(z, y) and plan.shares(w, z)
    assert not plan.shares(y, x)            # never the caller's argument
    # the chain writes into the returned array: it escapes whole, the arena is empty
    assert {y, z, w} <= plan.escaping and plan.size == 0
    plan = plan_function(fn)
    assert plan.offset[y] != plan.offset[z] and plan.size == 2 * ALIGN


def test_an_operand_read_later_is_not_overwritten():
    fn = Function("f")
    x = fn.add_arg(TensorType(float32, (8,)), "x")
    b = Builder.at_end(fn.body)
    y = b.op("neg", x)
    z = b.op("exp", y)
    w = b.op("add", z, y)   # y is still read here: z must not take its bytes
    b.return_(b.op("neg", w))
    plan = plan_function(fn, in_place=lambda op, i: op.opdef.name == "exp")
    assert not plan.shares(z, y)
    assert plan.offset[z] != plan.offset[y]


GRAD = """
func @step(%x: f32[16,32], %w: f32[8,32], %b: f32[8]) -> f32[], f32[8,32] {
  %h = matmul(%x, %w) {transpose_b=true} : f32[16,8]
  %hb = add(%h, %b) : f32[16,8]
  %a = relu(%hb) : f32[16,8]
  %s = reduce_sum(%a) {axis=none, keep_dims=false} : f32[]
  %g = greater(%hb, 0.0:f32) : bool[16,8]
  %z = fill() {dtype=f32, shape=[16,8], value=0} : f32[16,8]
  %o = fill() {dtype=f32, shape=[16,8], value=1} : f32[16,8]
  %d = select(%g, %o, %z) : f32[16,8]
  %dw = matmul(%d, %x) {transpose_a=true} : f32[8,32]
  %lr = mul(%dw, 0.1:f32) : f32[8,32]
  %nw = sub(%w, %lr) : f32[8,32]
  %u = assign(%w, %nw) : f32[8,32]
  return %s, %u
}
"""


def test_a_gradient_graph_plan():
    fn = parse_module(GRAD)["step"]
    plan = plan_function(fn, in_place=lambda op, i: op.opdef.name in ("mul", "sub", "select"))
    _check_no_overlap(fn, plan)
    names = {v.name_hint: v for op in fn.body for v in op.results}
    assert names["s"] in plan.escaping and names["u"] in plan.escaping
    assert plan.shares(names["lr"], names["dw"])        # mul writes over the dying gradient
    assert not plan.shares(names["nw"], fn.args[1])     # sub never writes the parameter
    # buffers are reused: less arena than every intermediate side by side
    assert plan.size < sum(-(-nbytes(v) // ALIGN) * ALIGN for v in plan.offset)


def test_control_flow_has_no_plan():
    text = """
func @f(%p: bool[], %x: f32[3]) -> f32[3] {
  %y = if(%p) : (f32[3]) then {
    %a = neg(%x) : f32[3]
    yield %a
  } else {
    yield %x
  }
  return %y
}
"""
    with pytest.raises(PlanError, match="if has regions"):
        plan_function(parse_module(text)["f"])
