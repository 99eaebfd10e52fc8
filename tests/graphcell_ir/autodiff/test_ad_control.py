"""Gradients through ``if``, ``while`` (data-dependent trip counts, past the loop capacity),
their nestings, and ``call``, against finite differences on the reference interpreter."""
from __future__ import annotations

import re

import numpy as np
import pytest

from graphcell_ir.ops import REGISTRY
from graphcell_ir.text import parse_module

from ad_check import check_grad_function, run

IF_ON_DATA = """
func @f(%x: f64[3], %w: f64[3]) -> f64[] {
  %s = reduce_sum(%x) {axis=none, keep_dims=false} : f64[]  loc(t.py:2:8 f)
  %c = greater(%s, 0.0:f64) : bool[]  loc(t.py:3:7 f)
  %y = if(%c) : f64[3] {
    %0 = mul(%x, %w) : f64[3]  loc(t.py:4:12 f)
    %1 = sin(%0) : f64[3]  loc(t.py:4:8 f)
    yield %1
  } else {
    %2 = exp(%w) : f64[3]  loc(t.py:6:12 f)
    %3 = sub(%x, %2) : f64[3]  loc(t.py:6:8 f)
    yield %3
  }  loc(t.py:3:4 f)
  %4 = mul(%y, %y) : f64[3]  loc(t.py:7:11 f)
  %r = reduce_sum(%4) {axis=none, keep_dims=false} : f64[]  loc(t.py:7:11 f)
  return %r
}
"""


@pytest.mark.parametrize("sign", [1.0, -1.0], ids=["then", "else"])
def test_if_on_data_both_branches(sign):
    rng = np.random.default_rng(0)
    m = parse_module(IF_ON_DATA)
    x = sign * rng.uniform(0.5, 1.5, 3)
    check_grad_function(m, "f", [x, rng.standard_normal(3)], [0, 1], rng=rng)


def test_if_branch_yielding_a_capture_and_a_constant():
    m = parse_module("""
func @f(%x: f64[2], %p: bool[]) -> f64[2] {
  %y = if(%p) : f64[2] {
    yield %x
  } else {
    %0 = fill() {dtype=f64, shape=[2], value=3} : f64[2]
    yield %0
  }
  %1 = mul(%y, %x) : f64[2]
  return %1
}
""")
    rng = np.random.default_rng(1)
    for p in (True, False):
        check_grad_function(m, "f", [rng.standard_normal(2), np.array(p)], [0], rng=rng,
                            name=f"g{p}")


WHILE_DATA = """
func @f(%x: f64[3], %w: f64[3]) -> f64[3], i64[] {
  %i0 = const() {value=0} : i64[]  loc(t.py:2:8 f)
  %i, %v = while(%i0, %x) : (i64[], f64[3]) cond(%a: i64[], %b: f64[3]) {
    %s = reduce_sum(%b) {axis=none, keep_dims=false} : f64[]  loc(t.py:3:10 f)
    %c = less(%s, 20.0:f64) : bool[]  loc(t.py:3:10 f)
    yield %c
  } do(%a2: i64[], %b2: f64[3]) {
    %0 = sin(%b2) : f64[3]  loc(t.py:4:12 f)
    %1 = mul(%0, %w) : f64[3]  loc(t.py:4:12 f)
    %2 = mul(%b2, 1.5:f64) : f64[3]  loc(t.py:4:12 f)
    %3 = add(%2, %1) : f64[3]  loc(t.py:4:8 f)
    %a3 = add(%a2, 1:i64) : i64[]  loc(t.py:5:8 f)
    yield %a3, %3
  }  loc(t.py:3:4 f)
  return %v, %i
}
"""


@pytest.mark.parametrize("capacity", [128, 3, 1])
def test_while_with_a_data_dependent_trip_count(capacity):
    """The trip count depends on the data; with a small capacity the late iterations' entry
    values are recomputed, and the gradients are the same."""
    rng = np.random.default_rng(2)
    m = parse_module(WHILE_DATA)
    x, w = rng.uniform(0.5, 1.0, 3), rng.uniform(0.1, 0.3, 3)
    assert run(m, "f", x, w)[1] > 4  # several iterations, more than the small capacities
    check_grad_function(m, "f", [x, w], [0, 1], rng=rng, outputs=[0], loop_capacity=capacity)


def test_while_gradients_do_not_depend_on_the_capacity():
    rng = np.random.default_rng(3)
    x, w = rng.uniform(0.5, 1.0, 3), rng.uniform(0.1, 0.3, 3)
    grads = []
    for cap in (1, 2, 64):
        m = parse_module(WHILE_DATA)
        _, gr = check_grad_function(m, "f", [x, w], [0, 1], rng=np.random.default_rng(30),
                                    outputs=[0], loop_capacity=cap)  # the same cotangents each time
        grads.append(gr)
    for gr in grads[1:]:
        for a, b in zip(gr, grads[0]):
            np.testing.assert_allclose(a, b, rtol=1e-12)


def test_while_that_never_runs():
    rng = np.random.default_rng(4)
    m = parse_module(WHILE_DATA)
    x = np.full(3, 10.0)  # the sum is already past the bound
    _, (dx, dw) = check_grad_function(m, "f", [x, rng.standard_normal(3)], [0, 1], rng=rng,
                                      outputs=[0])
    assert not dw.any()


WHILE_WITH_IF = """
func @f(%x: f64[2], %n: i64[]) -> f64[] {
  %i0 = const() {value=0} : i64[]
  %i, %v = while(%i0, %x) : (i64[], f64[2]) cond(%a: i64[], %b: f64[2]) {
    %c = less(%a, %n) : bool[]
    yield %c
  } do(%a2: i64[], %b2: f64[2]) {
    %s = reduce_sum(%b2) {axis=none, keep_dims=false} : f64[]
    %p = greater(%s, 1.0:f64) : bool[]
    %y = if(%p) : f64[2] {
      %0 = mul(%b2, %x) : f64[2]
      %1 = tanh(%0) : f64[2]
      yield %1
    } else {
      %2 = mul(%b2, 2.0:f64) : f64[2]
      %3 = add(%2, %x) : f64[2]
      yield %3
    }
    %a3 = add(%a2, 1:i64) : i64[]
    yield %a3, %y
  }
  %r = reduce_sum(%v) {axis=none, keep_dims=false} : f64[]
  return %r
}
"""


@pytest.mark.parametrize("capacity", [128, 2])
def test_if_nested_in_while(capacity):
    rng = np.random.default_rng(5)
    m = parse_module(WHILE_WITH_IF)
    x = np.array([0.3, 0.2])
    check_grad_function(m, "f", [x, np.array(5)], [0], rng=rng, loop_capacity=capacity)


WHILE_IN_IF = """
func @f(%x: f64[2], %n: i64[]) -> f64[2] {
  %s = reduce_sum(%x) {axis=none, keep_dims=false} : f64[]
  %p = greater(%s, 0.0:f64) : bool[]
  %y = if(%p) : f64[2] {
    %i0 = const() {value=0} : i64[]
    %i, %v = while(%i0, %x) : (i64[], f64[2]) cond(%a: i64[], %b: f64[2]) {
      %c = less(%a, %n) : bool[]
      yield %c
    } do(%a2: i64[], %b2: f64[2]) {
      %0 = sin(%b2) : f64[2]
      %1 = mul(%0, %x) : f64[2]
      %a3 = add(%a2, 1:i64) : i64[]
      yield %a3, %1
    }
    yield %v
  } else {
    %2 = neg(%x) : f64[2]
    yield %2
  }
  return %y
}
"""


@pytest.mark.parametrize("sign", [1.0, -1.0], ids=["loop", "no-loop"])
def test_while_nested_in_if(sign):
    rng = np.random.default_rng(6)
    m = parse_module(WHILE_IN_IF)
    check_grad_function(m, "f", [sign * np.array([0.7, 0.4]), np.array(3)], [0], rng=rng)


WHILE_IN_WHILE = """
func @f(%x: f64[2]) -> f64[2] {
  %i0 = const() {value=0} : i64[]
  %i, %v = while(%i0, %x) : (i64[], f64[2]) cond(%a: i64[], %b: f64[2]) {
    %c = less(%a, 3:i64) : bool[]
    yield %c
  } do(%a2: i64[], %b2: f64[2]) {
    %j0 = const() {value=0} : i64[]
    %j, %u = while(%j0, %b2) : (i64[], f64[2]) cond(%d: i64[], %e: f64[2]) {
      %c2 = less(%d, %a2) : bool[]
      yield %c2
    } do(%d2: i64[], %e2: f64[2]) {
      %0 = cos(%e2) : f64[2]
      %1 = mul(%0, %x) : f64[2]
      %d3 = add(%d2, 1:i64) : i64[]
      yield %d3, %1
    }
    %2 = add(%u, %b2) : f64[2]
    %a3 = add(%a2, 1:i64) : i64[]
    yield %a3, %2
  }
  return %v
}
"""


@pytest.mark.parametrize("capacity", [128, 1])
def test_while_nested_in_while(capacity):
    rng = np.random.default_rng(7)
    m = parse_module(WHILE_IN_WHILE)
    check_grad_function(m, "f", [np.array([0.5, -0.3])], [0], rng=rng, loop_capacity=capacity)


CALLS = """
func @sq_sin(%a: f64[3], %b: f64[3]) -> f64[3] {
  %0 = sin(%a) : f64[3]  loc(h.py:2:11 sq_sin)
  %1 = mul(%0, %b) : f64[3]  loc(h.py:2:11 sq_sin)
  return %1
}

func @f(%x: f64[3], %y: f64[3]) -> f64[3] {
  %0 = call(%x, %y) {callee="sq_sin"} : f64[3]  loc(t.py:5:8 f)
  %1 = call(%0, %x) {callee="sq_sin"} : f64[3]  loc(t.py:6:8 f)
  return %1
}
"""


def test_call_is_differentiated_per_call_site():
    rng = np.random.default_rng(8)
    m = parse_module(CALLS)
    g, _ = check_grad_function(m, "f", [rng.standard_normal(3), rng.standard_normal(3)], [0, 1],
                               rng=rng)
    grad_locs = [op.loc for op in g.body if op.loc.known and "grad" in op.loc.marks]
    assert grad_locs and all(loc.scope == ("f", "sq_sin") for loc in grad_locs)
    assert {loc.caller.line for loc in grad_locs} == {5, 6}  # each op points at its call site


def test_call_inside_a_loop():
    callee = re.sub(r"  loc\(.*\)", "", CALLS)  # the caller below has no locations either
    m = parse_module(callee.replace("func @f(", "func @unused(") + """
func @f(%x: f64[3], %n: i64[]) -> f64[3] {
  %i0 = const() {value=0} : i64[]
  %i, %v = while(%i0, %x) : (i64[], f64[3]) cond(%a: i64[], %b: f64[3]) {
    %c = less(%a, %n) : bool[]
    yield %c
  } do(%a2: i64[], %b2: f64[3]) {
    %0 = call(%b2, %x) {callee="sq_sin"} : f64[3]
    %a3 = add(%a2, 1:i64) : i64[]
    yield %a3, %0
  }
  return %v
}
""")
    rng = np.random.default_rng(9)
    check_grad_function(m, "f", [rng.standard_normal(3), np.array(4)], [0], rng=rng)


TUPLE_LOOP = """
func @f(%x: f64[2], %y: f64[2], %n: i64[]) -> f64[2] {
  %t = make_tuple(%x, %y) : (f64[2], f64[2])
  %i0 = const() {value=0} : i64[]
  %i, %u = while(%i0, %t) : (i64[], (f64[2], f64[2])) cond(%a: i64[], %b: (f64[2], f64[2])) {
    %c = less(%a, %n) : bool[]
    yield %c
  } do(%a2: i64[], %b2: (f64[2], f64[2])) {
    %0 = tuple_get(%b2) {index=0} : f64[2]
    %1 = tuple_get(%b2) {index=1} : f64[2]
    %2 = mul(%0, %1) : f64[2]
    %3 = sin(%2) : f64[2]
    %4 = make_tuple(%3, %0) : (f64[2], f64[2])
    %a3 = add(%a2, 1:i64) : i64[]
    yield %a3, %4
  }
  %r = tuple_get(%u) {index=0} : f64[2]
  return %r
}
"""


def test_tuples_captured_by_branches():
    m = parse_module("""
func @f(%x: f64[2], %y: f64[2]) -> (f64[2], f64[2]) {
  %t = make_tuple(%x, %y) : (f64[2], f64[2])
  %s = reduce_sum(%x) {axis=none, keep_dims=false} : f64[]
  %p = greater(%s, 0.0:f64) : bool[]
  %z = if(%p) : (f64[2], f64[2]) {
    %0 = tuple_get(%t) {index=1} : f64[2]
    %1 = mul(%0, %x) : f64[2]
    %2 = make_tuple(%1, %0) : (f64[2], f64[2])
    yield %2
  } else {
    %3 = tuple_get(%t) {index=0} : f64[2]
    %4 = sin(%3) : f64[2]
    %5 = make_tuple(%4, %4) : (f64[2], f64[2])
    yield %5
  }
  return %z
}
""")
    rng = np.random.default_rng(10)
    for sign in (1.0, -1.0):
        x = sign * rng.uniform(0.2, 0.8, 2)
        check_grad_function(m, "f", [x, rng.standard_normal(2)], [0, 1], rng=rng, name=f"g{sign}")


def test_a_loop_carrying_a_tuple_is_refused_clearly():
    from graphcell_ir.autodiff import grad_function
    from graphcell_ir.errors import AutodiffError
    m = parse_module(TUPLE_LOOP)
    with pytest.raises(AutodiffError, match=r"carried value 1, which the backward needs, has type "
                                            r"\(f64\[2\], f64\[2\]\).*separate values"):
        grad_function(m, "f", [0])


def test_fused_kernels_are_differentiated_op_by_op():
    m = parse_module("""
func @f(%x: f64[2,3], %a: f64[3]) -> f64[2,3] {
  %y = fused(%x, %a) : f64[2,3] body(%x_1: f64[2,3], %a_1: f64[3]) {
    %0 = mul(%x_1, %a_1) : f64[2,3]
    %1 = tanh(%0) : f64[2,3]
    %2 = add(%1, 0.5:f64) : f64[2,3]
    yield %2
  }
  return %y
}
""")
    rng = np.random.default_rng(11)
    check_grad_function(m, "f", [rng.standard_normal((2, 3)), rng.standard_normal(3)], [0, 1],
                        rng=rng)


SCALAR_COUNTER = """
func @f(%x: f64[3], %n: i64[]) -> f64[3] {
  %i, %v = while(0:i64, %x) : (i64, f64[3]) cond(%a: i64, %b: f64[3]) {
    %c = less(%a, %n) : bool[]
    yield %c
  } do(%a2: i64, %b2: f64[3]) {
    %0 = sin(%b2) : f64[3]
    %1 = mul(%0, %x) : f64[3]
    %a3 = add(%a2, 1:i64) : i64
    yield %a3, %1
  }
  return %v
}
"""


@pytest.mark.parametrize("capacity", [128, 1])
def test_a_python_number_counter_is_not_saved(capacity):
    """The frontend carries ``i = 0; while ...: i += 1`` as a run-time scalar; the backward does
    not need it (only the condition reads it), so nothing about it is saved."""
    from graphcell_ir.ir.walk import walk
    rng = np.random.default_rng(12)
    m = parse_module(SCALAR_COUNTER)
    g, _ = check_grad_function(m, "f", [rng.standard_normal(3), np.array(4)], [0], rng=rng,
                               loop_capacity=capacity)
    stacks = [op for op in walk(g) if op.opdef is REGISTRY["fill"] and len(op.results[0].shape) == 2]
    assert [s.results[0].shape for s in stacks] == [(capacity + 1, 3)]  # b's entry values only


def test_a_python_number_the_gradient_needs_is_refused_clearly():
    from graphcell_ir.autodiff import grad_function
    from graphcell_ir.errors import AutodiffError
    m = parse_module(SCALAR_COUNTER.replace("%1 = mul(%0, %x) : f64[3]", "%1 = mul(%0, %a2) : f64[3]"))
    with pytest.raises(AutodiffError, match="carried value 0, which the backward needs, has type "
                                            "i64.*carry it as a 0-d tensor"):
        grad_function(m, "f", [0])


# A counted loop, as ops.ForiLoop/Scan and the recurrent layers compile: k from a constant to a
# constant bound in steps of 1; each step reads row k of xs and writes its state into row k of ys
COUNTED = """
func @f(%xs: f64[{T},2], %h: f64[2], %w: f64[2,2]) -> f64[{T},2], f64[2] {
  %k0 = const() {value={START}} : i64[]
  %ys0 = fill() {dtype=f64, shape=[{T},2], value=0} : f64[{T},2]
  %k, %hn, %ys = while(%k0, %h, %ys0) : (i64[], f64[2], f64[{T},2]) cond(%a: i64[], %b: f64[2], %c: f64[{T},2]) {
    %p = less(%a, {STOP}:i64) : bool[]
    yield %p
  } do(%a2: i64[], %b2: f64[2], %c2: f64[{T},2]) {
    %x = take(%xs, %a2) {axis=0} : f64[2]
    %0 = reshape(%b2) {shape=[1,2]} : f64[1,2]
    %1 = matmul(%0, %w) {transpose_a=false, transpose_b=false} : f64[1,2]
    %2 = reshape(%1) {shape=[2]} : f64[2]
    %3 = add(%x, %2) : f64[2]
    %4 = tanh(%3) : f64[2]
    %5 = scatter_update(%c2, %a2, %4) {axis=0} : f64[{T},2]
    %a3 = add(%a2, {STEP}:i64) : i64[]
    yield %a3, %4, %5
  }
  return %ys, %hn
}
"""


def _counted(T=6, start=0, stop=None, step=1):
    return parse_module(COUNTED.replace("{T}", str(T)).replace("{START}", str(start))
                        .replace("{STOP}", str(T if stop is None else stop))
                        .replace("{STEP}", str(step)))


def test_a_counted_loop_saves_one_slot_per_iteration():
    """The trip count is known while compiling (analysis.trip_count): the forward stacks exactly
    T entry values (no overflow slot, whatever the capacity), the backward reads them without
    the overflow branch, and the output buffer, which the backward never reads, is not saved."""
    from graphcell_ir.ir.structural import IF, WHILE
    from graphcell_ir.ir.walk import walk
    rng = np.random.default_rng(20)
    args = [rng.standard_normal((6, 2)), rng.standard_normal(2), rng.standard_normal((2, 2))]
    for capacity in (128, 1):
        g, _ = check_grad_function(_counted(), "f", args, [0, 1, 2], rng=rng,
                                   loop_capacity=capacity)
        loops = [op for op in walk(g) if op.opdef is WHILE]
        assert len(loops) == 2 and not any(op.opdef is IF for op in walk(g))
        saved = sorted(tuple(r.shape) for r in loops[0].results[4:])
        assert saved == [(6,), (6, 2)]   # k and h at the entry of each iteration, nothing else
        # xs's cotangent: each iteration adds its row into the accumulator (no zeros of xs'
        # shape per iteration to add whole)
        backward_body = list(walk(loops[1].regions[1]))
        assert any(op.opdef.name == "scatter_add" for op in backward_body)
        assert not any(op.opdef.name == "fill" and op.results[0].shape == (6, 2)
                       for op in backward_body)


def test_a_weight_gradient_of_a_counted_loop_is_one_product_after_it():
    """``w``'s cotangent is ``h_k^T dy_k`` summed over the iterations: the backward loop stacks
    the two factors row by row (two row writes per iteration, no outer product and no add of
    w's size) and one matmul of the stacks after the loop sums them; the finite differences
    agree."""
    from graphcell_ir.ir.structural import WHILE
    from graphcell_ir.ir.walk import walk
    rng = np.random.default_rng(22)
    args = [rng.standard_normal((6, 2)), rng.standard_normal(2), rng.standard_normal((2, 2))]
    g, _ = check_grad_function(_counted(), "f", args, [0, 1, 2], rng=rng)
    backward = [op for op in walk(g) if op.opdef is WHILE][1]
    body = list(walk(backward.regions[1]))
    assert not any(op.opdef.name in ("matmul", "add") and op.results[0].shape == (2, 2)
                   for op in body)
    assert sorted(tuple(r.shape) for r in backward.results if len(r.shape) == 3) == \
        [(6, 1, 2), (6, 1, 2)]
    after = [op for op in g.body if op.opdef.name == "matmul"
             and any(getattr(v, "op", None) is not None and v.op.opdef.name == "reshape"
                     and v.op.operands[0] in backward.results for v in op.operands)]
    assert len(after) == 1 and after[0].results[0].shape == (2, 2)


def test_a_weight_gradient_of_a_loop_without_a_known_trip_count_is_summed_per_iteration():
    """Without a known trip count there is no stack to fill: the product is added per
    iteration, as before."""
    from graphcell_ir.ir.structural import WHILE
    from graphcell_ir.ir.walk import walk
    rng = np.random.default_rng(23)
    args = [rng.standard_normal((6, 2)), rng.standard_normal(2), rng.standard_normal((2, 2))]
    g, _ = check_grad_function(_counted(step=2), "f", args, [0, 1, 2], rng=rng)
    backward = [op for op in walk(g) if op.opdef is WHILE][1]
    assert any(op.opdef.name == "matmul" and op.results[0].shape == (2, 2)
               for op in walk(backward.regions[1]))


@pytest.mark.parametrize("start, stop, step, counted", [
    (2, 6, 1, True),      # from another constant: 4 iterations
    (0, 6, 2, False),     # another step: the trip count is not taken as known
])
def test_what_counts_as_a_counted_loop(start, stop, step, counted):
    from graphcell_ir.autodiff.analysis import trip_count
    from graphcell_ir.ir.structural import WHILE
    m = _counted(start=start, stop=stop, step=step)
    loop = next(op for op in m["f"].body if op.opdef is WHILE)
    assert trip_count(loop) == ((stop - start) if counted else None)
    rng = np.random.default_rng(21)
    args = [rng.standard_normal((6, 2)), rng.standard_normal(2), rng.standard_normal((2, 2))]
    check_grad_function(m, "f", args, [0, 1, 2], rng=rng, loop_capacity=2)


def test_a_loop_whose_bound_is_data_is_not_counted():
    from graphcell_ir.autodiff.analysis import trip_count
    from graphcell_ir.ir.structural import WHILE
    m = parse_module(WHILE_WITH_IF)
    loop = next(op for op in m["f"].body if op.opdef is WHILE)
    assert trip_count(loop) is None
