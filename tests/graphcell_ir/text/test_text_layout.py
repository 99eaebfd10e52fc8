"""The printer's layout: lines within the width, continuation lines the lexer reads back."""
from __future__ import annotations

import pytest

from graphcell_ir.errors import IRParseError
from graphcell_ir.ir import Builder, Function, Loc, Module, TensorType, float32
from graphcell_ir.text import parse_module, print_module
from graphcell_ir.text.lexer import lex
from graphcell_ir.text.printer import wrap_at_commas

T = TensorType(float32, (3,))
SCOPE = ("TrainOneStepCell.construct", "WithLossCell.construct", "LeNet5.construct",
         "Dense.construct")


def network(n_params: int = 12) -> Module:
    m = Module()
    fn = m.add(Function("TrainOneStepCell.construct"))
    x = fn.add_arg(T, "x")
    ps = [fn.add_arg(T, f"layers.{i}.weight", param=True) for i in range(n_params)]
    b = Builder.at_end(fn.body, Loc("/home/u/lenet.py", 67, 13, SCOPE))
    v = x
    for p in ps:
        v = b.op("add", v, p)
    b.return_(v)
    return m


def test_a_long_header_puts_one_argument_per_line():
    text = print_module(network())
    lines = text.splitlines()
    assert lines[0] == "func @TrainOneStepCell.construct("
    assert lines[1] == "    %x: f32[3],"
    assert lines[2] == "    %layers.0.weight: f32[3] param,"
    assert lines[13] == "    %layers.11.weight: f32[3] param"
    assert lines[14] == ") -> f32[3] {"
    assert max(map(len, lines)) <= 100


def test_a_loc_that_does_not_fit_goes_on_the_next_line_under_its_op():
    text = print_module(network(), width=60)
    i = text.splitlines().index("  %0 = add(%x, %layers.0.weight) : f32[3]")
    assert text.splitlines()[i + 1] == "      loc(lenet.py:67:13 TrainOneStepCell>WithLossCell>LeNet5>Dense)"
    wide = print_module(network(), width=200)
    assert "  %0 = add(%x, %layers.0.weight) : f32[3]  loc(lenet.py:67:13 " in wide


def test_width_none_prints_one_line_per_op_and_header():
    lines = print_module(network(), width=None).splitlines()
    assert lines[0].startswith("func @TrainOneStepCell.construct(%x: f32[3], %layers.0.weight")
    assert lines[1].startswith("  %0 = add(%x, %layers.0.weight) : f32[3]  loc(")
    assert len(lines) == 1 + 12 + 2


@pytest.mark.parametrize("width", [None, 20, 60, 100])
def test_every_layout_parses_back_identically(width):
    m = network()
    text = print_module(m, locs="full", width=width)
    assert print_module(parse_module(text), locs="full", width=width) == text
    assert print_module(parse_module(text), locs="full", width=None) == \
        print_module(m, locs="full", width=None)


def test_long_ops_continue_after_a_comma_never_inside_a_string():
    # the string's commas are not break points: the line runs past the width to its end
    assert wrap_at_commas('f(%a, %b) {s="x, y, z", t=1}', 14) == \
        ['f(%a,', '    %b) {s="x, y, z",', '    t=1}']
    assert wrap_at_commas('g("a\\", b", %c)', 8) == ['g("a\\", b",', '    %c)']
    assert wrap_at_commas("short, enough", 20) == ["short, enough"]


def test_the_lexer_joins_continuation_lines():
    one = [t[:2] for t in lex("%0 = add(%x, %y) : f32[3]  loc(a.py:1:1 f)\n")]
    split = [t[:2] for t in lex("%0 = add(%x,\n    %y) : f32[3]\n    loc(a.py:1:1 f)\n")]
    assert split == one
    header = [t[:2] for t in lex("func @f(\n  %x: f32[3],\n  %y: f32[3]\n) -> f32[3] {\n")]
    assert header == [t[:2] for t in lex("func @f(%x: f32[3], %y: f32[3]) -> f32[3] {\n")]


def test_an_op_still_ends_at_its_line_end():
    with pytest.raises(IRParseError) as e:
        parse_module("func @f(%x: f32[3]) -> f32[3] {\n  %0 = neg(%x) : f32[3] %x\n  return %0\n}\n")
    assert "expected end of line after neg" in str(e.value)


def test_width_below_twenty_is_refused():
    with pytest.raises(ValueError, match="width must be None or a line length of at least 20"):
        print_module(network(), width=10)
