"""A loop-carried array a ``while`` body updates one row at a time (``scatter_update``,
``scatter_add`` with a ``ref_into``) is copied once when the loop starts and then written in
place: each step costs its row, not a copy of the array. Each program against the reference
interpreter, run twice (the initial array, a read-only constant here, must be left intact), and
the cases that must not be written in place."""
from __future__ import annotations

import numpy as np
import pytest

from graphcell_ir.backend.executable import compile_executable
from graphcell_ir.backend.interp import interpret
from graphcell_ir.text import parse_module

# ys[k] = tanh(xs[k] + 1) for k in 0..5, and acc[k % 2] += xs[k]: two carried arrays, each
# updated in place; the initial ys is a constant, acc a fill
SCAN = """
func @f(%xs: f32[6,3]) -> f32[6,3], f32[2,3] {
  %k0 = const() {value=0} : i64[]
  %ys0 = const() {value=[[9.0,9.0,9.0],[9.0,9.0,9.0],[9.0,9.0,9.0],[9.0,9.0,9.0],[9.0,9.0,9.0],[9.0,9.0,9.0]]} : f32[6,3]
  %acc0 = fill() {dtype=f32, shape=[2,3], value=0} : f32[2,3]
  %k, %ys, %acc = while(%k0, %ys0, %acc0) : (i64[], f32[6,3], f32[2,3]) cond(%a: i64[], %b: f32[6,3], %c: f32[2,3]) {
    %p = less(%a, 6:i64) : bool[]
    yield %p
  } do(%a2: i64[], %b2: f32[6,3], %c2: f32[2,3]) {
    %x = take(%xs, %a2) {axis=0} : f32[3]
    %0 = add(%x, 1.0:f32) : f32[3]
    %1 = tanh(%0) : f32[3]
    %2 = scatter_update(%b2, %a2, %1) {axis=0} : f32[6,3]
    %r = mod(%a2, 2:i64) : i64[]
    %3 = scatter_add(%c2, %r, %x) {axis=0} : f32[2,3]
    %a3 = add(%a2, 1:i64) : i64[]
    yield %a3, %2, %3
  }
  return %ys, %acc
}
"""


def _run(text: str, *args):
    m = parse_module(text)
    exe = compile_executable(m, "f", jit=False, kernel_min_size=0)
    want = interpret(m, *args)
    for _ in range(2):   # a second run sees the same initial arrays
        got = exe(list(args))
        for g, w in zip(got, want):
            np.testing.assert_allclose(g, w, rtol=1e-6, atol=1e-6)
    return exe


def test_rows_written_into_carried_arrays_in_place():
    xs = np.random.default_rng(0).standard_normal((6, 3)).astype(np.float32)
    exe = _run(SCAN, xs)
    assert exe.source.count("(in place)") == 2
    assert exe.source.count(".copy()") == 2


def _read_after_update() -> str:
    """The old ys is read after the update: it needs its own copy."""
    return SCAN.replace("%a3 = add(%a2, 1:i64) : i64[]",
                        "%late = take(%b2, %a2) {axis=0} : f32[3]\n"
                        "    %a3 = add(%a2, 1:i64) : i64[]")


def _yielded_twice() -> str:
    """The updated ys goes to two places of the carry: written in place, they would share it."""
    return (SCAN.replace("-> f32[6,3], f32[2,3] {", "-> f32[6,3], f32[2,3], f32[6,3] {")
            .replace("%k, %ys, %acc = while(%k0, %ys0, %acc0) : (i64[], f32[6,3], f32[2,3])",
                     "%k, %ys, %acc, %ys2 = while(%k0, %ys0, %acc0, %ys0) : "
                     "(i64[], f32[6,3], f32[2,3], f32[6,3])")
            .replace("cond(%a: i64[], %b: f32[6,3], %c: f32[2,3])",
                     "cond(%a: i64[], %b: f32[6,3], %c: f32[2,3], %e: f32[6,3])")
            .replace("do(%a2: i64[], %b2: f32[6,3], %c2: f32[2,3])",
                     "do(%a2: i64[], %b2: f32[6,3], %c2: f32[2,3], %e2: f32[6,3])")
            .replace("yield %a3, %2, %3", "yield %a3, %2, %3, %2")
            .replace("return %ys, %acc", "return %ys, %acc, %ys2"))


@pytest.mark.parametrize("make", [_read_after_update, _yielded_twice])
def test_updates_that_must_copy(make):
    xs = np.random.default_rng(1).standard_normal((6, 3)).astype(np.float32)
    exe = _run(make(), xs)
    assert exe.source.count("(in place)") == 1   # the accumulator still is
