"""The rule engine behind ``simplify``: matching, the type check, reporting, the cap; and the
helpers its rules rely on."""
from __future__ import annotations

import numpy as np
import pytest

from graphcell_ir.ir import DType, Literal, verify
from graphcell_ir.ops import REGISTRY
from graphcell_ir.passes.rules import RuleSet, apply_rules, const, pat, rule, var
from graphcell_ir.passes.simplify import RULES, lossless, simplify_stats
from graphcell_ir.text import parse_module, print_module

NEG, EXP, MUL, RESHAPE = (REGISTRY[n] for n in ("neg", "exp", "mul", "reshape"))
X = var("X")

TEXT = """func @f(%x: f32[3]) -> f32[3] {
  %0 = neg(%x) : f32[3]  loc(net.py:3:4 f)
  %1 = neg(%0) : f32[3]  loc(net.py:3:4 f)
  %2 = mul(%1, 1.0:f32) : f32[3]  loc(net.py:4:4 f)
  return %2
}
"""


def test_statistics_say_which_rules_fired():
    m = parse_module(TEXT)
    assert simplify_stats(m["f"]) == {"neg_neg": 1, "mul_one_right": 1}
    assert print_module(m, locs="none") == "func @f(%x: f32[3]) -> f32[3] {\n  return %x\n}\n"


def test_graphcell_print_rules_reports_each_rule_and_where(monkeypatch, capsys):
    monkeypatch.setenv("GRAPHCELL_PRINT_RULES", "1")
    simplify_stats(parse_module(TEXT)["f"])
    assert capsys.readouterr().err.splitlines() == [
        "[simplify] neg_neg fired on neg at net.py:3:4 f",
        "[simplify] mul_one_right fired on mul at net.py:4:4 f",
    ]


def test_a_replacement_of_another_type_is_discarded_with_what_it_built():
    wrong = RuleSet("wrong", [rule("exp_to_reshape", pat(EXP, X),
                                   lambda X, b: b.op(RESHAPE, X, shape=(3, 1)))])
    m = parse_module("func @f(%x: f32[3]) -> f32[3] {\n  %0 = exp(%x) : f32[3]\n"
                     "  return %0\n}\n")
    assert not apply_rules(m["f"], wrong)
    assert [op.opdef for op in m["f"].body][:1] == [EXP] and len(m["f"].body) == 2


def test_new_ops_take_the_roots_location_and_name():
    swap = RuleSet("swap", [rule("exp_of_neg", pat(EXP, pat(NEG, X)),
                                 lambda X, b: b.op(MUL, b.op(EXP, X), 1.0))])
    m = parse_module("func @f(%x: f32[3]) -> f32[3] {\n  %n = neg(%x) : f32[3]  loc(a.py:1:1 f)\n"
                     "  %e = exp(%n) : f32[3]  loc(a.py:2:2 f)\n  return %e\n}\n")
    apply_rules(m["f"], swap)
    verify(m)
    text = print_module(m)
    assert "%0 = exp(%x) : f32[3]  loc(a.py:2:2 f)" in text
    assert "%e = mul(%0, 1.0:f32) : f32[3]  loc(a.py:2:2 f)" in text and "neg" not in text


def test_a_rule_cycle_stops_at_the_cap_with_a_warning():
    forever = RuleSet("forever", [rule("neg_again", pat(NEG, X), lambda X, b: b.op(NEG, X))])
    m = parse_module("func @f(%x: f32[3]) -> f32[3] {\n  %0 = neg(%x) : f32[3]\n"
                     "  return %0\n}\n")
    with pytest.warns(RuntimeWarning, match="forever: stopped after 20 rewrites"):
        fired = apply_rules(m["f"], forever, max_rewrites=20)
    assert fired["neg_again"] == 20
    verify(m)


@pytest.mark.parametrize("operand, matches", [
    ("0.0:f32", True), ("-0.0:f32", False), ("0:i64", True), ("false:bool", False),
    ("%z", True), ("%nz", False), ("%mixed", False),
])
def test_a_zero_pattern_means_positive_zero_and_never_a_bool(operand, matches):
    m = parse_module(f"""func @f(%x: f32[3]) -> f32[3] {{
  %z = const() {{value=[0.0,0.0,0.0]}} : f32[3]
  %nz = const() {{value=[-0.0,-0.0,-0.0]}} : f32[3]
  %mixed = const() {{value=[0.0,-0.0,0.0]}} : f32[3]
  %0 = sub(%x, {operand}) : f32[3]
  return %0
}}
""")
    sub = m["f"].body.ops[3]
    assert const(0).match(sub.operands[1], {}) is matches


def test_bound_variables_must_agree():
    m = parse_module("""func @f(%x: f32[3], %y: f32[3], %c: bool[3]) -> f32[3], f32[3] {
  %0 = select(%c, %x, %x) : f32[3]
  %1 = select(%c, %x, %y) : f32[3]
  return %0, %1
}
""")
    same = pat(REGISTRY["select"], var("C"), X, X)
    first, second = m["f"].body.ops[:2]
    assert same.match_op(first, {}) and not same.match_op(second, {})


@pytest.mark.parametrize("src, dst, exact", [
    (DType.float32, DType.float64, True), (DType.float64, DType.float32, False),
    (DType.int16, DType.float32, True), (DType.int32, DType.float32, False),
    (DType.int32, DType.float64, True), (DType.int64, DType.float64, False),
    (DType.uint8, DType.int16, True), (DType.int8, DType.uint8, False),
    (DType.bool_, DType.float16, True), (DType.float16, DType.bool_, False),
    (DType.float32, DType.int64, False),
])
def test_lossless_casts(src, dst, exact):
    assert lossless(src, dst) is exact


def test_rule_names_are_unique_and_rules_are_keyed_by_opdef():
    names = [r.name for r in RULES.rules]
    assert len(names) == len(set(names))
    assert all(not isinstance(k, str) for k in RULES.by_root)
    with pytest.raises(ValueError, match="duplicate"):
        RuleSet("dup", [rule("a", pat(NEG, X), lambda X: X), rule("a", pat(EXP, X), lambda X: X)])


def test_a_literal_replacement_gives_each_use_its_own_literal():
    lit = RuleSet("lit", [rule("exp_zero", pat(EXP, const(0)), lambda: Literal(1.0))])
    m = parse_module("""func @f(%x: f32) -> f32 {
  %0 = exp(0.0:f32) : f32
  %1 = add(%0, %0) : f32
  return %1
}
""")
    assert apply_rules(m["f"], lit)["exp_zero"] == 1
    add = m["f"].body.first
    assert add.operands[0] is not add.operands[1]
    assert [v.value for v in add.operands] == [1.0, 1.0]
    assert np.isclose(add.operands[0].value, 1.0)
