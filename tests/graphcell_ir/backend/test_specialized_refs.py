"""References specialised to static types (``OpDef.specialize``: reshape, take, the row
scatters and small products) in compiled runners, against the reference interpreter: in ``while`` bodies (in place
and copying), with negative and repeated indices, and an index out of range, which must raise
the interpreter's error."""
from __future__ import annotations

import functools

import numpy as np
import pytest

from graphcell_ir.backend.executable import compile_executable
from graphcell_ir.backend.interp import interpret
from graphcell_ir.errors import InterpError
from graphcell_ir.text import parse_module

# A scan over xs: ys[k] = tanh(xs[-1 - k] + h), h the new state; acc[k % 2] += x; every row
# scatter and read is one the specialised forms take
LOOP = """
func @f(%xs: f32[5,3], %h0: f32[3]) -> f32[5,3], f32[2,3], f32[3] {
  %k0 = const() {value=0} : i64[]
  %ys0 = fill() {dtype=f32, shape=[5,3], value=0} : f32[5,3]
  %acc0 = fill() {dtype=f32, shape=[2,3], value=0} : f32[2,3]
  %k, %ys, %acc, %h = while(%k0, %ys0, %acc0, %h0) : (i64[], f32[5,3], f32[2,3], f32[3]) cond(%a: i64[], %b: f32[5,3], %c: f32[2,3], %d: f32[3]) {
    %p = less(%a, 5:i64) : bool[]
    yield %p
  } do(%a2: i64[], %b2: f32[5,3], %c2: f32[2,3], %d2: f32[3]) {
    %back = sub(-1:i64, %a2) : i64[]
    %x = take(%xs, %back) {axis=0} : f32[3]
    %row = reshape(%x) {shape=[1,-1]} : f32[1,3]
    %flat = reshape(%row) {shape=[3]} : f32[3]
    %0 = add(%flat, %d2) : f32[3]
    %1 = tanh(%0) : f32[3]
    %2 = scatter_update(%b2, %a2, %1) {axis=0} : f32[5,3]
    %r = mod(%a2, 2:i64) : i64[]
    %3 = scatter_add(%c2, %r, %x) {axis=0} : f32[2,3]
    %a3 = add(%a2, 1:i64) : i64[]
    yield %a3, %2, %3, %1
  }
  return %ys, %acc, %h
}
"""

# Outside a loop: copying scatters, one at repeated indices (the last write wins; the adds all
# count, through np.add.at), a take of a vector of indices and a small product (transposed)
ROWS = """
func @f(%x: f32[4,3], %i: i32[3], %u: f32[3,3]) -> f32[4,3], f32[4,3], f32[3,3], f32[4,3], f32[4,3] {
  %0 = scatter_update(%x, %i, %u) {axis=0} : f32[4,3]
  %1 = scatter_add(%x, %i, %u) {axis=0} : f32[4,3]
  %2 = take(%x, %i) {axis=0} : f32[3,3]
  %3 = matmul(%x, %u) {transpose_a=false, transpose_b=true} : f32[4,3]
  return %0, %1, %2, %x, %3
}
"""


def _compiled(text: str):
    m = parse_module(text)
    return m, compile_executable(m, "f", jit=False, kernel_min_size=0)


def _same(exe, m, *args):
    want = interpret(m, *args)
    for _ in range(2):   # a second run starts from the same arrays
        got = exe([np.array(a, copy=True) for a in args])
        for g, w in zip(got, want):
            np.testing.assert_array_equal(g, w)


def _specialised_sites(exe) -> set[str]:
    """The ops whose runner callable is a specialised form, not a partial of ``ref``."""
    return {s.ops[0] for g, s in exe.sites.items() if s.kind == "op"
            and not isinstance(exe.namespace[g], functools.partial)
            and getattr(exe.namespace[g], "__name__", "") in ("<lambda>", "write", "add")}


def test_a_scan_with_specialised_rows_matches_the_interpreter():
    rng = np.random.default_rng(0)
    xs = rng.standard_normal((5, 3)).astype(np.float32)
    h0 = rng.standard_normal(3).astype(np.float32)
    m, exe = _compiled(LOOP)
    _same(exe, m, xs, h0)
    assert {"reshape", "take", "scatter_update", "scatter_add"} <= _specialised_sites(exe)
    assert exe.source.count("(in place)") == 2


def test_copying_scatters_and_repeated_indices_match_the_interpreter():
    rng = np.random.default_rng(1)
    x = rng.standard_normal((4, 3)).astype(np.float32)
    u = rng.standard_normal((3, 3)).astype(np.float32)
    m, exe = _compiled(ROWS)
    _same(exe, m, x, np.array([1, -1, 1], np.int32), u)
    assert {"scatter_update", "take", "matmul"} <= _specialised_sites(exe)
    assert "scatter_add" not in _specialised_sites(exe)   # a vector of indices: np.add.at


def test_an_index_out_of_range_raises_the_interpreters_error():
    """numpy's IndexError in the runner sends the call to the interpreter, which names the
    problem as the references do (the same error as before the runner was specialised)."""
    m, exe = _compiled(ROWS)
    x = np.zeros((4, 3), np.float32)
    u = np.ones((3, 3), np.float32)
    with pytest.raises(InterpError, match="index is out of range for axis 0"):
        exe([x, np.array([0, 4, 1], np.int32), u])
