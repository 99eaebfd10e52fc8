"""The verifier: each invariant it checks, and what its messages show."""
from __future__ import annotations

import numpy as np
import pytest

from graphcell_ir.errors import IRVerifyError
from graphcell_ir.ir import (UNKNOWN, Builder, Function, Loc, Module, Op, TensorType, Value,
                             float32, verify)
from graphcell_ir.ir.structural import YIELD
from graphcell_ir.ir.types import bool_
from graphcell_ir.text import parse_module

T = TensorType(float32, (3,))


def fails(target, *fragments, **kw) -> str:
    with pytest.raises(IRVerifyError) as info:
        verify(target, **kw)
    message = str(info.value)
    for f in fragments:
        assert f in message, message
    return message


def parse(body: str, header: str = "func @f(%x: f32[3], %p: bool[]) -> f32[3] {") -> Module:
    return parse_module(f"{header}\n{body}}}\n")


def test_a_valid_module_passes():
    verify(parse("  %0 = neg(%x) : f32[3]\n  return %0\n"))


def test_undefined_operand_names_the_op_and_marks_its_line():
    m = parse("  %0 = neg(%x) : f32[3]\n  %1 = exp(%0) : f32[3]\n  return %1\n")
    exp = list(m["f"].body)[1]
    exp.set_operand(0, Value(T))
    message = fails(m, "in @f: op 'exp'", "operand 0 (%<undefined>) is not defined in this function")
    marked = [line for line in message.splitlines() if line.startswith(">> ")]
    assert marked == [">>   %1 = exp(%<undefined>) : f32[3]"]


def test_use_before_definition():
    m = parse("  %0 = neg(%x) : f32[3]\n  %1 = exp(%x) : f32[3]\n  return %1\n")
    neg, exp = list(m["f"].body)[:2]
    neg.set_operand(0, exp.results[0])
    fails(m, "op 'neg'", "operand 0 (%1) is used before it is defined")


def test_values_of_a_region_are_not_visible_outside_it():
    m = parse("""  %0 = if(%p) : f32[3] {
    %1 = neg(%x) : f32[3]
    yield %1
  } else {
    yield %x
  }
  %2 = exp(%0) : f32[3]
  return %2
""")
    fn = m["f"]
    if_op, exp = list(fn.body)[:2]
    inner = next(iter(if_op.regions[0].block)).results[0]
    exp.set_operand(0, inner)
    fails(m, "op 'exp'", "operand 0 (%1) is defined inside a region that does not enclose this op")
    exp.set_operand(0, if_op.results[0])
    else_yield = if_op.regions[1].block.terminator
    else_yield.set_operand(0, inner)
    fails(m, "op 'yield'", "defined inside a region")


def test_result_type_must_match_the_shape_rule():
    fails(parse("  %0 = neg(%x) : f32[4]\n  return %0\n", "func @f(%x: f32[3]) -> f32[4] {"),
          "op 'neg'", "result 0 has type f32[4] but Neg's shape rule gives f32[3]")


def test_operands_that_do_not_fit_the_op():
    fails(parse("  %0 = matmul(%x, %x) {transpose_a=false, transpose_b=false} : f32[3]\n"
                "  return %0\n", "func @f(%x: f32[3,2]) -> f32[3] {"),
          "op 'matmul'", "its operands do not fit", "MatMul")


def test_attributes_must_be_complete():
    m = parse("  %0 = reduce_sum(%x) {axis=none, keep_dims=false} : f32[]\n  return %x\n")
    op = next(iter(m["f"].body))
    object.__setattr__(op, "attrs", {"axis": None})
    fails(m, "op 'reduce_sum'", "its attributes ['axis'] are not those of reduce_sum")


def test_if_yields_must_match_its_results():
    m = parse("""  %0 = if(%p) : f32[3] {
    %1 = reduce_sum(%x) {axis=none, keep_dims=false} : f32[]
    yield %1
  } else {
    yield %x
  }
  return %0
""")
    fails(m, "op 'if'", "the then region yields (f32[]) but the if has results (f32[3])")


def test_if_predicate_must_be_a_bool():
    fails(parse("  %0 = if(%x) : f32[3] {\n    yield %x\n  } else {\n    yield %x\n  }\n"
                "  return %0\n"), "op 'if'", "predicate")


def test_while_checks_carried_values_predicate_and_body():
    base = """  %0 = while(%x) : f32[3] cond(%a: f32[3]) {
    yield %COND
  } do(%b: f32[3]) {
    yield %BODY
  }
  return %0
"""
    verify(parse(base.replace("%COND", "%p").replace("%BODY", "%b")))
    fails(parse(base.replace("%COND", "%a").replace("%BODY", "%b")), "op 'while'",
          "the cond region must yield one bool or bool[] predicate, yields (f32[3])")
    fails(parse(base.replace("%COND", "%p").replace("%BODY", "%p")), "op 'while'",
          "the body region yields (bool[]) but the carried values are (f32[3])")
    fails(parse(base.replace("%COND", "%p").replace("%BODY", "%b").replace("do(%b: f32[3])",
                                                                           "do(%b: f32[4])")),
          "op 'while'", "the body region's arguments (f32[4])")


def test_dropped_yield_names_the_region_op():
    m = parse("  %0 = if(%p) : f32[3] {\n    yield %x\n  } else {\n    yield %x\n  }\n"
              "  return %0\n")
    if_op = next(iter(m["f"].body))
    if_op.regions[1].block.terminator.erase()
    fails(m, "op 'if'", "region 1 (else) does not end with yield")


def test_terminators_must_be_last_and_in_the_right_place():
    m = parse("  return %x\n")
    fn = m["f"]
    b = Builder.at_end(fn.body)
    b.op("neg", fn.args[0])
    fails(m, "op 'return'", "must be the last op of its block")
    fails(parse("  %0 = neg(%x) : f32[3]\n"), "@f does not end with return")
    m = parse("  return %x\n")
    ret = m["f"].return_op
    m["f"].body.insert_before(ret, Op(YIELD, [m["f"].args[0]]))
    fails(m, "op 'yield'", "must be the last op")


def test_return_must_match_the_declared_signature():
    fails(parse("  return %p\n"), "op 'return'", "returns (bool[]) but @f is declared to return (f32[3])")


def test_calls_are_checked_against_the_callee():
    text = """func @g(%v: f32[3]) -> f32[3] {
  return %v
}

func @f(%x: f32[3], %y: f32[2]) -> f32[3] {
  %0 = call(%ARG) {callee="CALLEE"} : f32[3]
  return %0
}
"""
    verify(parse_module(text.replace("%ARG", "%x").replace("CALLEE", "g")))
    fails(parse_module(text.replace("%ARG", "%y").replace("CALLEE", "g")), "op 'call'",
          "passes (f32[2]) to @g, which takes (f32[3])")
    fails(parse_module(text.replace("%ARG", "%x").replace("CALLEE", "h")), "op 'call'",
          "calls @h, which is not a function of this module")


def test_constants_must_match_their_type():
    m = parse("  %0 = const() {value=[1.0,2.0,3.0]} : f32[3]\n  return %0\n")
    verify(m)
    const = next(iter(m["f"].body))
    const.results[0].type = TensorType(float32, (4,))
    fails(m, "op 'const'", "its value is f32[3] but its result type is f32[4]")
    m = parse('  %0 = const() {ref="consts/0"} : f32[3]\n  return %0\n')
    verify(m)  # the table is not loaded: only the type is known
    m.consts["consts/0"] = np.zeros(3, np.float64)
    fails(m, "its value is f64[3]")


def test_unused_side_effect_results_are_rejected():
    text = ("func @f(%w: f32[3] param, %v: f32[3]) -> f32[3] {\n"
            "  %0 = assign(%w, %v) : f32[3]\n  return RET\n}\n")
    verify(parse_module(text.replace("RET", "%0")))
    fails(parse_module(text.replace("RET", "%v")), "op 'assign'", "never used")


def test_locations_are_required_when_the_function_has_some():
    located = "  %0 = neg(%x) : f32[3]  loc(a.py:1:2 f)\n  %1 = exp(%0) : f32[3]\n  return %1\n"
    fails(parse(located), "op 'exp'", "no source location")
    verify(parse(located), require_locs=False)
    bare = "  %0 = neg(%x) : f32[3]\n  return %0\n"
    verify(parse(bare))
    fails(parse(bare), "op 'neg'", "no source location", require_locs=True)


def test_stale_use_lists_and_bad_links_are_caught():
    m = parse("  %0 = neg(%x) : f32[3]\n  return %0\n")
    fn = m["f"]
    neg = next(iter(fn.body))
    fn.args[0].uses.clear()
    fails(m, "op 'neg'", "use list of operand 0 (%x) is out of date")
    fn.args[0].uses[neg] = 1
    neg.results[0].index = 3
    fails(m, "result 0 has a wrong owner or index")


def test_malformed_types_are_rejected():
    m = parse("  %0 = neg(%x) : f32[3]\n  return %x\n")
    next(iter(m["f"].body)).results[0].type = TensorType(float32, (-1,))
    fails(m, "op 'neg'", "malformed type")


def test_the_excerpt_shows_ten_lines_either_side():
    m = Module()
    fn = m.add(Function("long"))
    x = fn.add_arg(T, "x")
    b = Builder.at_end(fn.body, Loc("long.py", 1, 0))
    v = x
    for _ in range(40):
        v = b.op("neg", v)
    b.return_(v)
    bad = fn.body.ops[20]
    bad.results[0].type = TensorType(bool_, (3,))
    message = fails(m, "op 'neg' (at long.py:1:0)")
    lines = message.splitlines()
    assert lines[1] == "   ..." and lines[-1] == "   ..."
    assert len(lines) == 1 + 1 + 21 + 1
    assert lines[12].startswith(">>   %20 = neg(%19) : bool[3]")


def test_verifying_a_single_function():
    fn = Function("lone")
    x = fn.add_arg(T, "x")
    b = Builder.at_end(fn.body)
    b.return_(b.op("neg", x))
    verify(fn)
    assert fn.body.first.loc is UNKNOWN
