"""Elementwise fusion: structure (kernel counts from PassReport), the ``fused`` op itself (text,
verifier, interpreter), and what fusion must not do."""
from __future__ import annotations

import re

import numpy as np
import pytest

from graphcell_ir.backend.interp import interpret
from graphcell_ir.errors import IRVerifyError
from graphcell_ir.ir import (Builder, Function, Loc, Module, TensorType, assert_structurally_equal,
                             clone_module, float32, verify, walk)
from graphcell_ir.ir.structural import FUSED, RETURN
from graphcell_ir.ops import REGISTRY
from graphcell_ir.passes import run_pipeline
from graphcell_ir.passes.fuse import fusible
from graphcell_ir.text import parse_module, print_module

F = {name: REGISTRY[name] for name in ("mul", "add", "pow", "tanh", "exp", "assign", "dropout",
                                        "reduce_sum", "matmul", "neg")}


def gelu_module() -> Module:
    """``0.5*z*(1+tanh(0.7978845608*(z+0.044715*z**3)))`` with ``z = x*a + b``, by the Builder."""
    m = Module()
    fn = m.add(Function("gelu"))
    x = fn.add_arg(TensorType(float32, (4, 8)), "x")
    a = fn.add_arg(TensorType(float32, (8,)), "a")
    bias = fn.add_arg(TensorType(float32, (8,)), "b")
    b = Builder.at_end(fn.body, Loc("gelu.py", 3, 4, ("gelu",)))
    z = b.op(F["add"], b.op(F["mul"], x, a), bias)
    inner = b.op(F["mul"], 0.7978845608, b.op(F["add"], z, b.op(F["mul"], 0.044715,
                                                                 b.op(F["pow"], z, 3.0))))
    y = b.op(F["mul"], b.op(F["mul"], 0.5, z), b.op(F["add"], 1.0, b.op(F["tanh"], inner)))
    b.return_(y)
    return m


def _fused_ops(m: Module) -> list:
    return [op for op in walk(m) if op.opdef is FUSED]


def _inputs(rng, *shapes):
    return [rng.standard_normal(s).astype(np.float32) for s in shapes]


def test_gelu_chain_becomes_one_fused_op():
    m = gelu_module()
    args = _inputs(np.random.default_rng(0), (4, 8), (8,), (8,))
    before = interpret(m, *args)
    reports = run_pipeline(m, ["default"], verify_each=True, roundtrip_each=True)
    fuse = reports[-1]
    assert (fuse.name, fuse.ops_before, fuse.ops_after) == ("fuse", 10, 1)
    assert [op.opdef for op in m["gelu"].body] == [FUSED, RETURN]
    (kernel,) = _fused_ops(m)
    assert len(kernel.operands) == 3 and len(kernel.results) == 1
    assert len(kernel.regions[0].block) == 11  # ten ops and the yield
    assert np.array_equal(interpret(m, *args), before)


def test_a_reduction_takes_its_producers_and_ends_the_kernel():
    m = parse_module("""func @f(%x: f32[4,8], %y: f32[4,8]) -> f32[4], f32[4,8] {
  %0 = mul(%x, %y) : f32[4,8]
  %1 = exp(%0) : f32[4,8]
  %s = reduce_sum(%1) {axis=[1], keep_dims=false} : f32[4]
  %2 = neg(%1) : f32[4,8]
  return %s, %2
}
""")
    reports = run_pipeline(m, ["fuse"], verify_each=True)
    assert reports[0].ops_after == 1
    (kernel,) = _fused_ops(m)
    assert [r.type for r in kernel.results] == [TensorType(float32, (4,)),
                                                  TensorType(float32, (4, 8))]


def test_fusion_never_takes_effects_or_random_draws_and_keeps_their_order():
    m = Module()
    fn = m.add(Function("f"))
    w = fn.add_arg(TensorType(float32, (3,)), "w", param=True)
    x = fn.add_arg(TensorType(float32, (3,)), "x")
    b = Builder.at_end(fn.body)
    e1 = b.op(F["exp"], x)
    w1 = b.op(F["assign"], w, e1)
    d, _mask = b.op(F["dropout"], b.op(F["neg"], e1), keep_prob=0.5)
    w2 = b.op(F["assign"], w1, b.op(F["exp"], d))
    t = b.op(F["tanh"], b.op(F["add"], e1, d))
    b.return_(t, w2)
    run_pipeline(m, ["fuse"], verify_each=True)
    order = [op.opdef.name for op in fn.body if op.opdef.kind.value != "elementwise"]
    assert order.count("fused") >= 1
    effects = [op.opdef for op in fn.body if op.opdef in (F["assign"], F["dropout"])]
    assert effects == [F["assign"], F["dropout"], F["assign"]]
    for kernel in _fused_ops(m):
        assert all(inner.opdef not in (F["assign"], F["dropout"])
                   for inner in kernel.regions[0].block)


def test_fusible_is_read_from_the_registry():
    m = parse_module("""func @f(%x: f32[3], %y: f32[3,3]) -> f32[3], f32[3,3], f32[3], f32 {
  %0 = exp(%x) : f32[3]
  %1 = matmul(%y, %y) {transpose_a=false, transpose_b=false} : f32[3,3]
  %2, %3 = dropout(%x) {keep_prob=0.5, seed0=0, seed1=0} : (f32[3], f32[3])
  %4 = add(1.0:f32, 2.0:f32) : f32
  %5 = reduce_sum(%x) {axis=none, keep_dims=false} : f32[]
  return %0, %1, %2, %4
}
""")
    ops = m["f"].body.ops
    assert [fusible(op) for op in ops[:5]] == [True, False, False, False, True]


FUSED_TEXT = """func @f(%x: f32[2,3], %b: f32[3]) -> f32[2,3], f32[2] {
  %y, %s = fused(%x, %b) : (f32[2,3], f32[2]) body(%x_1: f32[2,3], %b_1: f32[3]) {
    %k = const() {value=0.5} : f32[]  loc(net.py:2:12 f)
    %0 = mul(%x_1, %k) : f32[2,3]  loc(net.py:2:8 f)
    %y_1 = add(%0, %b_1) : f32[2,3]  loc(net.py:2:8 f)
    %s_1 = reduce_sum(%y_1) {axis=[1], keep_dims=false} : f32[2]  loc(net.py:3:8 f)
    yield %y_1, %s_1
  }  loc(net.py:3:8 f)
  return %y, %s
}
"""


def test_the_fused_op_prints_parses_back_and_runs_on_the_interpreter():
    m = parse_module(FUSED_TEXT)
    verify(m)
    assert print_module(m) == FUSED_TEXT
    assert_structurally_equal(parse_module(print_module(m, locs="full")), m, locs=True,
                              names=True)
    x, bias = _inputs(np.random.default_rng(1), (2, 3), (3,))
    y, s = interpret(m, x, bias, check_types=True)
    assert np.array_equal(y, x * np.float32(0.5) + bias)
    assert np.array_equal(s, (x * np.float32(0.5) + bias).sum(axis=1))


@pytest.mark.parametrize("edit, message", [
    (("%0 = mul(%x_1, %k)", "%0 = mul(%x, %k)"), "uses a value defined outside it"),
    (("body(%x_1: f32[2,3], %b_1: f32[3])", "body(%x_1: f32[2,3], %b_1: f32[2,3])"),
     "must have the types of the operands"),
    (("yield %y_1, %s_1", "yield %s_1, %y_1"), "the body yields (f32[2], f32[2,3])"),
    (("%k = const() {value=0.5} : f32[]  loc", "%k, %m = dropout(%x_1) {keep_prob=0.5, seed0=0, "
      "seed1=0} : (f32[2,3], f32[2,3])  loc"), "only pure primitives and constants, not dropout"),
])
def test_the_verifier_checks_fused_ops(edit, message):
    assert edit[0] in FUSED_TEXT
    m = parse_module(FUSED_TEXT.replace(*edit))
    with pytest.raises(IRVerifyError, match=re.escape(message)):
        verify(m)


def test_fusing_again_changes_nothing_and_other_passes_respect_kernels():
    m = gelu_module()
    run_pipeline(m, ["default"], verify_each=True)
    text = print_module(m)
    reports = run_pipeline(m, ["default"], verify_each=True)
    assert not any(r.changed for r in reports) and print_module(m) == text


def test_fusion_keeps_the_values_of_a_mixed_graph_bit_for_bit():
    m = parse_module("""func @f(%x: f32[3,4], %w: f32[4,4], %v: f32[4]) -> f32[3,4], f32[3],\
 f32[3,4] {
  %0 = add(%x, %v) : f32[3,4]
  %1 = exp(%0) : f32[3,4]
  %2 = matmul(%1, %w) {transpose_a=false, transpose_b=false} : f32[3,4]
  %3 = mul(%2, %1) : f32[3,4]
  %4 = reduce_max(%3) {axis=[1], keep_dims=false} : f32[3]
  %5 = tanh(%3) : f32[3,4]
  %6 = sub(%0, %5) : f32[3,4]
  return %6, %4, %1
}
""")
    args = _inputs(np.random.default_rng(2), (3, 4), (4, 4), (4,))
    before = interpret(m, *args)
    original = clone_module(m)
    reports = run_pipeline(m, ["fuse"], verify_each=True, roundtrip_each=True)
    assert reports[0].ops_after == 3  # kernel, matmul, kernel
    after = interpret(m, *args)
    for p, q in zip(before, after):
        assert np.array_equal(p, q)
    assert interpret(original, *args)[0].shape == (3, 4)
