"""What the goldens cannot show: constant-table folding, host callbacks, passes on a lone
Function, name and location bookkeeping."""
from __future__ import annotations

import numpy as np

from graphcell_ir.backend.interp import interpret
from graphcell_ir.ir import (Builder, Function, Loc, Module, TensorType, float32, verify, walk)
from graphcell_ir.ir.structural import CONST
from graphcell_ir.ops import NONDIFF, AttrKind, Kind, OpDef, attr
from graphcell_ir.ops.shape_rules import same_as_input
from graphcell_ir.passes import run_pipeline
from graphcell_ir.passes.fold import fold
from graphcell_ir.passes.inline import inline
from graphcell_ir.text import parse_function, parse_module, print_function, print_module


def _module_with(array: np.ndarray, opname: str, **attrs) -> Module:
    m = Module()
    fn = m.add(Function("f"))
    x = fn.add_arg(TensorType(float32, array.shape), "x")
    b = Builder.at_end(fn.body, Loc("net.py", 5, 4, ("f",)))
    c = b.const(array)
    y = b.op(opname, c, **attrs)
    b.return_(b.op("add", x, y) if y.shape == array.shape else y)
    return m


def test_large_results_go_to_the_constant_table():
    big = np.arange(64, dtype=np.float32).reshape(8, 8)
    m = _module_with(big, "neg")
    assert fold(m)
    consts = [op for op in walk(m) if op.opdef is CONST]
    folded = consts[-1]
    assert "ref" in folded.attrs and np.array_equal(m.consts[folded.attrs["ref"]], -big)
    assert folded.loc == Loc("net.py", 5, 4, ("f",))
    verify(m)
    x = np.ones((8, 8), np.float32)
    assert np.array_equal(interpret(m, x), x - big)


def test_results_that_would_grow_the_data_are_not_folded():
    m = _module_with(np.float32(2.0), "broadcast_to", shape=(64, 64))
    assert not fold(m)


def test_small_results_are_inline_and_reductions_fold():
    m = _module_with(np.arange(20, dtype=np.float32), "reduce_sum", axis=None)
    assert fold(m)
    text = print_module(m, locs="none")
    assert "const() {value=190.0} : f32[]" in text


def test_ops_with_a_host_callback_are_not_run_while_compiling():
    calls = []

    def ref(x, *, fn):
        calls.append(fn)
        return x
    hook = OpDef("host_hook", ("x",), Kind.OPAQUE, infer=lambda x, fn: same_as_input(x),
                 ref=ref, bprop=NONDIFF, attrs=(attr("fn", AttrKind.ANY),))
    m = Module()
    fn = m.add(Function("f"))
    b = Builder.at_end(fn.body)
    y = b.create(hook, [b.const(np.ones(3, np.float32))], {"fn": print}).results[0]
    b.return_(y)
    assert not fold(m) and calls == []


def test_a_function_outside_a_module_keeps_large_results_unfolded():
    values = ",".join(["1.0"] * 20)
    fn = parse_function(f"""func @f() -> f32[20], f32[] {{
  %c = const() {{value=[{values}]}} : f32[20]
  %0 = neg(%c) : f32[20]
  %1 = reduce_sum(%c) {{axis=none, keep_dims=false}} : f32[]
  return %0, %1
}}
""")
    assert fold(fn)  # the sum folds inline; the negation would need a constant table
    assert [op.opdef.name for op in fn.body] == ["const", "neg", "const", "return"]


def test_passes_accept_a_single_function():
    m = parse_module("""func @helper(%x: f32[3]) -> f32[3] {
  %0 = neg(%x) : f32[3]
  return %0
}

func @main(%x: f32[3]) -> f32[3] {
  %0 = call(%x) {callee="helper"} : f32[3]
  %1 = call(%0) {callee="helper"} : f32[3]
  return %1
}
""")
    assert inline(m["main"])
    assert run_pipeline(m, ["simplify", "dce"])[0].changed
    assert print_function(m["main"]) == "func @main(%x: f32[3]) -> f32[3] {\n  return %x\n}\n"
    assert len(m["helper"].body) == 2  # callees stay


def test_names_survive_the_pipeline():
    m = parse_module("""func @f(%x: f32[3], %p: bool[]) -> f32[3] {
  %scale = const() {value=2.0} : f32[]
  %h = mul(%x, %scale) : f32[3]
  %out = if(true:bool) : f32[3] {
    %act = tanh(%h) : f32[3]
    yield %act
  } else {
    yield %h
  }
  return %out
}
""")
    run_pipeline(m, ["default"], verify_each=True)
    text = print_module(m, locs="none")
    assert "%act = fused(%x) : f32[3] body(%x_1: f32[3]) {" in text
    assert "%scale = const()" in text and "%h = mul(%x_1, %scale)" in text
