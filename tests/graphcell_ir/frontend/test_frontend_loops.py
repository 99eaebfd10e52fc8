"""Functional loops (``Loop`` records: ops.WhileLoop, ops.ForiLoop, ops.Scan, the stacked scan of
the recurrent layers): one IR ``while``, whatever the number of steps. Golden IR plus
interpreter-vs-eager checks, and the errors a wrong loop function gets."""
from __future__ import annotations

import numpy as np
import pytest
from expect_ir import check
from frontend_fakes import (FakeResolver, Parameter, fori_loop, ops, run_eager, scan,
                            scan_stacked, while_loop)

from graphcell_ir.backend.interp import interpret
from graphcell_ir.errors import GraphTypeError, GraphValueError
from graphcell_ir.frontend import compile_function
from graphcell_ir.ir import TensorType, float32, int64
from graphcell_ir.ir.structural import WHILE
from graphcell_ir.ir.walk import walk
from graphcell_ir.ops import functional as F
from graphcell_ir.text import print_module

F32_3 = TensorType(float32, (3,))
W = Parameter(np.array([[0.5, -0.2, 0.1], [0.3, 0.4, -0.6], [-0.1, 0.2, 0.3]], np.float32), "w")


def rnn(xs, h):
    """An Elman recurrence over the rows of xs, as the recurrent layers write theirs."""
    def step(h, x):
        h = F.tanh(x + ops.matmul(h, W))
        return h, h
    return scan_stacked(step, h, xs)


def agrees(out, fn, *args, rtol=1e-5):
    got = interpret(out.module, *out.flatten_args(args), *out.param_keys)
    got = got if isinstance(got, tuple) else (got,)
    value, _ = out.split_results(got)
    want = run_eager(fn, *args)
    for g, w in zip(_flat(value), _flat(want)):
        np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=rtol, atol=1e-6)


def _flat(v):
    if isinstance(v, (tuple, list)):
        return [x for e in v for x in _flat(e)]
    return [v]


def _compile(fn, specs):
    return compile_function(fn, None, specs, FakeResolver())


def _steps(T):
    return [TensorType(float32, (T, 2, 3)), TensorType(float32, (2, 3))]


def test_a_stacked_scan_is_one_while_whatever_its_length():
    out = check(rnn, _steps(5), """
func @rnn(%xs: f32[5,2,3], %h: f32[2,3], %w: f32[3,3] param) -> f32[2,3], f32[5,2,3] {
  %0 = fill() {dtype=f32, shape=[5,2,3], value=0} : f32[5,2,3]
  %1 = const() {value=0} : i64[]
  %k, %carry, %ys = while(%1, %h, %0) : (i64[], f32[2,3], f32[5,2,3]) cond(%k_1: i64[],
      %carry_1: f32[2,3], %ys_1: f32[5,2,3]) {
    %2 = less(%k_1, 5:i64) : bool[]
    yield %2
  } do(%k_2: i64[], %carry_2: f32[2,3], %ys_2: f32[5,2,3]) {
    %3 = take(%xs, %k_2) {axis=0} : f32[2,3]
    %4 = matmul(%carry_2, %w) {transpose_a=false, transpose_b=false} : f32[2,3]
    %5 = add(%3, %4) : f32[2,3]
    %h_1 = tanh(%5) : f32[2,3]
    %6 = scatter_update(%ys_2, %k_2, %h_1) {axis=0} : f32[5,2,3]
    %7 = add(%k_2, 1:i64) : i64[]
    yield %7, %h_1, %6
  }
  return %carry, %ys
}
""")
    rng = np.random.default_rng(0)
    agrees(out, rnn, rng.standard_normal((5, 2, 3)).astype(np.float32),
           rng.standard_normal((2, 3)).astype(np.float32))
    # 100 steps: the same program with another bound and other shapes, not 20x the ops
    long = print_module(_compile(rnn, _steps(100)).module, locs="none")
    short = print_module(out.module, locs="none")
    assert long == short.replace("[5,", "[100,").replace("5:i64", "100:i64")


def test_reverse_scan_and_a_list_of_steps():
    def f(x, h):
        steps = [x, x * 2.0, x * 3.0]
        return scan_stacked(lambda c, e: (c * e + 1.0, c), h, steps, reverse=True)
    out = _compile(f, [F32_3, F32_3])
    assert sum(op.opdef is WHILE for op in walk(out.module["f"])) == 1
    agrees(out, f, np.array([1.0, -0.5, 2.0], np.float32), np.array([0.3, 0.2, 0.1], np.float32))


def test_fori_loop_stays_a_loop_with_unroll_false_and_unrolls_by_default():
    def looped(x):
        return fori_loop(1, 4, lambda i, v: v * 2.0 + i, x, unroll=False)

    def unrolled(x):
        return fori_loop(1, 4, lambda i, v: v * 2.0 + i, x)
    out = check(looped, [F32_3], """
func @looped(%x: f32[3]) -> f32[3] {
  %0 = const() {value=1} : i64[]
  %k, %carry = while(%0, %x) : (i64[], f32[3]) cond(%k_1: i64[], %carry_1: f32[3]) {
    %1 = less(%k_1, 4:i64) : bool[]
    yield %1
  } do(%k_2: i64[], %carry_2: f32[3]) {
    %2 = mul(%carry_2, 2.0:f32) : f32[3]
    %3 = add(%2, %k_2) : f32[3]
    %4 = add(%k_2, 1:i64) : i64[]
    yield %4, %3
  }
  return %carry
}
""")
    x = np.array([1.0, 2.0, 3.0], np.float32)
    agrees(out, looped, x)
    flat = _compile(unrolled, [F32_3])
    assert not any(op.opdef is WHILE for op in walk(flat.module["unrolled"]))
    agrees(flat, unrolled, x)


def test_fori_loop_with_a_tensor_bound_is_a_loop():
    def f(x, n):
        return fori_loop(0, n, lambda i, v: v + 1.0, x)
    out = _compile(f, [F32_3, TensorType(int64, ())])
    assert sum(op.opdef is WHILE for op in walk(out.module["f"])) == 1
    agrees(out, f, np.zeros(3, np.float32), np.array(7))


def test_while_loop_lifts_the_numbers_it_carries_to_tensors():
    def f(x):
        return while_loop(lambda c: c[0].sum() < 50.0, lambda c: (c[0] * 2.0, c[1] + 1), (x, 0))
    out = check(f, [F32_3], """
func @f(%x: f32[3]) -> f32[3], i64[] {
  %0 = const() {value=0} : i64[]
  %carry, %carry_1 = while(%x, %0) : (f32[3], i64[]) cond(%carry_2: f32[3], %carry_3: i64[]) {
    %1 = reduce_sum(%carry_2) {axis=none, keep_dims=false} : f32[]
    %2 = less(%1, 50.0:f32) : bool[]
    yield %2
  } do(%carry_4: f32[3], %carry_5: i64[]) {
    %3 = mul(%carry_4, 2.0:f32) : f32[3]
    %4 = add(%carry_5, 1:i64) : i64[]
    yield %3, %4
  }
  return %carry, %carry_1
}
""")
    agrees(out, f, np.array([1.0, 2.0, 3.0], np.float32))


def test_scan_gives_mindsporess_list_of_outputs():
    def f(xs, h):
        return scan(lambda c, x: (c + x, c * x), h, xs, unroll=False)
    out = _compile(f, [TensorType(float32, (4, 3)), F32_3])
    assert sum(op.opdef is WHILE for op in walk(out.module["f"])) == 1
    assert len(out.split_results(tuple(range(5)))[0][1]) == 4   # a list of 4 rows
    rng = np.random.default_rng(1)
    xs = rng.standard_normal((4, 3)).astype(np.float32)
    agrees(out, f, xs, rng.standard_normal(3).astype(np.float32))


def test_a_loop_function_may_write_a_parameter():
    counter = Parameter(np.zeros((), np.float32), "counter")

    def f(x):
        def step(i, v):
            ops.assign(counter, counter + 1.0)
            return v * 2.0
        return fori_loop(0, 3, step, x, unroll=False)
    out = _compile(f, [F32_3])
    got_x, got_c = interpret(out.module, np.ones(3, np.float32), np.zeros((), np.float32))
    assert got_c == 3.0 and list(got_x) == [8.0, 8.0, 8.0]


def _carry_changes_type(xs, h):
    return scan_stacked(lambda c, x: (c.sum(), c), h, xs)


def _no_pair(xs, h):
    return scan_stacked(lambda c, x: c, h, xs)


@pytest.mark.parametrize("fn, message", [
    (_carry_changes_type, "the loop function returned a carry whose part 0 is a tensor f32.. "
                          "where it was a tensor f32.3.; the carry must keep its structure"),
    (_no_pair, "must return a pair .carry, output., got a tensor f32.3."),
])
def test_a_wrong_loop_function_is_reported_at_the_call(fn, message):
    with pytest.raises(GraphTypeError, match=message) as e:
        _compile(fn, [TensorType(float32, (4, 3)), F32_3])
    assert "return scan_stacked(" in str(e.value)   # the user's line, with a caret


def test_a_stacked_scan_needs_a_step_and_a_consistent_length():
    def empty(h):
        return scan_stacked(lambda c, x: (c, c), h, None, length=0)

    def mismatch(xs, h):
        return scan_stacked(lambda c, x: (c, c), h, xs, length=3)
    with pytest.raises(GraphValueError, match="at least one step"):
        _compile(empty, [F32_3])
    with pytest.raises(GraphValueError, match="'length' is 3 but 'xs' has 4 elements"):
        _compile(mismatch, [TensorType(float32, (4, 3)), F32_3])
