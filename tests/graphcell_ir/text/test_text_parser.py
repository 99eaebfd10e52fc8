"""The parser: what it accepts, and where and how it reports malformed text."""
from __future__ import annotations

import numpy as np
import pytest

from graphcell_ir.errors import IRParseError
from graphcell_ir.ir import (UNKNOWN, Loc, ScalarType, TensorType, TupleType, float32, int64,
                             verify)
from graphcell_ir.ir.types import NONE
from graphcell_ir.text import parse_function, parse_module, print_module

OK = """func @f(%x: f32[3], %p: bool[]) -> f32[3] {
  %0 = mul(%x, 2.0:f32) : f32[3]  loc(a.py:1:2 f)
  return %0
}
"""


def error(text, **kw) -> IRParseError:
    with pytest.raises(IRParseError) as info:
        parse_module(text, **kw)
    return info.value


def where(e: IRParseError) -> tuple[int, int]:
    return e.line, e.col


def test_message_has_file_line_column_the_line_and_a_caret():
    e = error(OK.replace("mul(%x, 2.0:f32)", "mul(%x 2.0:f32)"), filename="net.gcir")
    assert where(e) == (2, 15)
    assert str(e) == ("net.gcir:2:15: expected ',' or ')' after an operand, found '2.0'\n"
                      "    %0 = mul(%x 2.0:f32) : f32[3]  loc(a.py:1:2 f)\n"
                      "                ^")


@pytest.mark.parametrize("old, new, line, col, message", [
    ("mul(", "mull(", 2, 8, "unknown op: no op named 'mull' in the registry; did you mean mul"),
    ("mul(%x,", "mul(%y,", 2, 12, "use of undefined value %y"),
    ("%0 = mul", "%x = mul", 2, 3, "%x is defined twice"),
    (": f32[3]  loc", ": f32[-3]  loc", 2, 31, "a dimension size cannot be negative"),
    (": f32[3]  loc", ": g32[3]  loc", 2, 27, "expected a type such as f32[2,3]"),
    (": f32[3]  loc", "  loc", 2, 27, "expected ':' and the type of mul's result(s), found 'loc(a.py:1:2 f)'"),
    ("2.0:f32", "2.0:f32[]", 2, 20, "a literal's type is a scalar dtype"),
    ("2.0:f32", "300:i8", 2, 16, "300 is out of range for i8"),
    ("2.0:f32", "2.5:i64", 2, 16, "literal 2.5 cannot have integer type i64"),
    ("2.0:f32)", "2.0:f32) {axis=1}", 2, 25, "bad attributes for mul: Mul: unknown attribute(s) axis"),
    ("loc(a.py:1:2 f)", "loc(a.py:x:2 f)", 2, 44, "expected a line number in the location, found 'x'"),
    ("loc(a.py:1:2 f)", "loc(a.py:1:2 f", 2, 35, "unterminated location"),
    ("loc(a.py:1:2 f)", 'loc("a.py:1:2 f)', 2, 35, "unterminated location"),
    ("f32[3]  loc", "f32[3] } loc", 2, 34, "expected end of line after mul, found '}'"),
    ("return %0", "return %0 %0", 3, 13, "expected end of line after return, found '%0'"),
    ("%0 = mul", "%0 mul", 2, 6, "expected '=' after the result names, found 'mul'"),
    ("-> f32[3] {", "-> f32[3]", 1, 42, "expected '{' to open the function body, found end of line"),
    ("%p: bool[]", "%p bool[]", 1, 24, "expected ':' and the type of %p, found 'bool'"),
    ("%x: f32[3],", "%x: f32[3] param param,", 1, 26, "expected ',' or ')' after an argument"),
    ("func @f", "fun @f", 1, 1, "expected 'func' to start a function, found 'fun'"),
    ("(%x", "(%x: (f32, i64", 1, 22, "expected ',' or ')' in a tuple type"),
    ("  return %0\n}", "  return %0\n", 5, 1, "expected '}' to close the block, found end of input"),
    ("mul(%x, 2.0:f32)", 'mul(%x, "s")', 2, 16, "expected an operand"),
    ("1:2 f", "1:2 f\x01", 2, 49, "unexpected character '\\x01' in a location"),
    ("%0 = mul", "%0 = mul\x07", 2, 11, "unexpected character '\\x07'"),
])
def test_errors_point_at_the_problem(old, new, line, col, message):
    text = OK.replace(old, new, 1)
    assert text != OK
    e = error(text)
    assert message in e.reason, e.reason
    assert where(e) == (line, col), str(e)


def test_region_and_result_count_errors():
    base = "func @f(%p: bool[], %x: f32[3]) -> f32[3] {\n  %0 = if(%p) : f32[3] {\n    yield %x\n  }"
    e = error(base + " other {\n    yield %x\n  }\n  return %0\n}\n")
    assert "expected region 'else' of if, found 'other'" in e.reason and where(e) == (4, 5)
    e = error(base + "\n  return %0\n}\n")
    assert "if needs 2 region(s) (then, else), found 1" in e.reason
    e = error("func @f(%x: f32[3]) {\n  %0 = neg(%x) : f32[3] {\n  }\n}\n")
    assert "neg takes no region(s)" in e.reason
    e = error("func @f(%x: f32[3]) {\n  %0, %1 = neg(%x) : (f32[3])\n}\n")
    assert "2 results are named but 1 types are given" in e.reason
    e = error("func @f(%x: f32[3]) {\n  neg(%x) : f32[3]\n}\n")
    assert "a type follows ':' only when neg has results" in e.reason
    e = error("func @f(%x: f32[3]) {\n  %0 = return %x\n}\n")
    assert "return has no results" in e.reason


def test_duplicate_functions_and_bad_strings():
    e = error(OK + "\n" + OK)
    assert "function @f is defined twice" in e.reason and where(e) == (6, 6)
    e = error(OK.replace("mul(%x, 2.0:f32)", 'const() {ref="a\\qb"}'))
    assert "bad string literal" in e.reason
    e = error('func @f() attributes {a="x} {\n}\n')
    assert "unterminated string" in e.reason and where(e) == (1, 25)


def test_const_values_are_checked_against_the_type():
    text = "func @f() -> f32[2] {\n  %0 = const() {value=VALUE} : f32[2]\n  return %0\n}\n"
    assert parse_module(text.replace("VALUE", "[1,2]"))["f"].body.first.attrs["value"].dtype == np.float32
    for bad, why in [("[1,2,3]", "has shape [3] but the type is f32[2]"), ("[[1],2]", "inhomogeneous"),
                     ('["a",1]', "could not convert"), ("1", "has shape []")]:
        assert why in error(text.replace("VALUE", bad)).reason
    assert "bad attributes for const" in error(text.replace("value=VALUE", "value=[1,2], ref=\"x\"")).reason
    i8 = text.replace("f32", "i8").replace("VALUE", "[1,300]")
    assert "bad attributes for const" in error(i8).reason


def test_accepted_syntax_variations():
    text = ("// a comment\r\n\r\nfunc @f(%x: f32[3]) -> f32[3] {  // trailing comment\r\n"
            "  %0 = neg(%x) : f32[3]  loc(a.py:7)\r\n"
            '  %1 = exp(%0) : f32[3]  loc("dir with space/b.py":1:2 "<lambda>">g [grad] <- c.py:3:4)\r\n'
            "  return %1\r\n}")
    m = parse_module(text)
    neg, exp, _ = m["f"].body.ops
    assert neg.loc == Loc("a.py", 7, 0)
    assert exp.loc == Loc("dir with space/b.py", 1, 2, ("<lambda>", "g"), Loc("c.py", 3, 4), ("grad",))
    verify(m)


def test_names_become_hints_except_numbers():
    m = parse_module(OK.replace("%0", "%h"))
    assert m["f"].body.first.results[0].name_hint == "h" and m["f"].args[0].name_hint == "x"
    assert parse_module(OK)["f"].body.first.results[0].name_hint is None


def test_types_and_literals():
    text = ("func @f(%a: f32, %b: (f32[], (i64,), none), %c: ()) -> i64 {\n"
            "  %0 = add(%a, 1:i64) : f32\n  return -3:i64\n}\n")
    fn = parse_module(text)["f"]
    assert [a.type for a in fn.args] == [
        ScalarType(float32), TupleType((TensorType(float32, ()), TupleType((ScalarType(int64),)), NONE)),
        TupleType(())]
    assert fn.return_op.operands[0].value == -3
    assert print_module(parse_module(text)) == text


def test_locations_none_mode_gives_unknown():
    m = parse_module(print_module(parse_module(OK), locs="none"))
    assert m["f"].body.first.loc is UNKNOWN


def test_bytes_input_and_invalid_utf8():
    assert print_module(parse_module(OK.encode())) == OK
    e = error(OK.encode().replace(b"mul", b"m\xffl"))
    assert "not valid UTF-8" in e.reason and where(e) == (2, 9)


def test_parse_function_and_the_constant_table():
    fn = parse_function(OK)
    assert fn.name == "f" and fn.module is None
    with pytest.raises(IRParseError, match="exactly one function"):
        parse_function(OK + "\n" + OK.replace("@f", "@g"))
    text = 'func @f() -> f32[2] {\n  %0 = const() {ref="consts/0"} : f32[2]\n  return %0\n}\n'
    table = {"consts/0": np.ones(2, np.float32)}
    assert parse_module(text, consts=table).consts["consts/0"] is table["consts/0"]


# --- huge literals and deep locations (issue 22, defect 6) -------------------------------------

@pytest.mark.parametrize("dtype", ["f32", "f64", "f16"])
def test_an_integer_literal_too_large_for_a_float_is_a_located_parse_error(dtype):
    text = OK.replace("2.0:f32", "9" * 400 + f":{dtype}").replace("f32[3]", f"{dtype}[3]")
    e = error(text)   # was a bare OverflowError, without a position
    assert where(e) == (2, 16) and "(400 digits) is too large for " + dtype in str(e)


def _chain(n: int) -> str:
    return " <- ".join(f"a.py:{i}:1 f{i}" for i in range(1, n + 1))


@pytest.mark.parametrize("frames", [500, 5000])
def test_a_deep_call_site_chain_parses_verifies_and_prints(frames):
    text = OK.replace("loc(a.py:1:2 f)", f"loc({_chain(frames)})")
    m = parse_module(text)
    verify(m)
    full = print_module(m, locs="full", width=None)  # was a RecursionError from hashing the Loc
    assert full == text and print_module(parse_module(full), locs="full", width=None) == full
    wrapped = print_module(m, locs="full")   # the loc, longer than a line, on a line of its own
    assert wrapped == text.replace(") : f32[3]  loc(", ") : f32[3]\n      loc(")
    assert print_module(parse_module(wrapped), locs="full") == wrapped
    assert "loc(a.py:1:1 f1)" in print_module(m)
    loc = next(iter(m)).body.ops[0].loc
    again = next(iter(parse_module(full))).body.ops[0].loc
    assert loc == again and hash(loc) == hash(again) and loc != again.caller
    assert repr(loc).startswith("Loc('a.py:1:1 f1 <- a.py:2:1 f2")
    inlined = loc.inlined_at(Loc("b.py", 9, 0, ("g",)))
    assert len(list(inlined.frames())) == frames + 1 and inlined.scope == ("g", "f1")
