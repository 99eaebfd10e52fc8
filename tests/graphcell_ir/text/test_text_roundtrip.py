"""Random well-formed modules round-trip through text and verify; mutated ones are rejected with a
message that names the op."""
from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

sys.path.insert(0, str(Path(__file__).parent))
import gcir_strategies as gen  # noqa: E402

from graphcell_ir.errors import IRParseError, IRVerifyError  # noqa: E402
from graphcell_ir.ir import (IF, WHILE, YIELD, Literal, OpResult, ScalarType, StructuralOpDef,  # noqa: E402
                             TensorType, TupleType, Value, assert_structurally_equal, verify, walk)
from graphcell_ir.ir.types import float64  # noqa: E402
from graphcell_ir.text import parse_module, print_module  # noqa: E402

RANDOM = settings(max_examples=60, deadline=None, derandomize=True,
                  suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                         HealthCheck.filter_too_much])


@settings(RANDOM, max_examples=150)
@given(gen.modules())
def test_random_modules_round_trip_in_every_loc_mode(m):
    verify(m)
    for mode in ("full", "user", "none"):
        text = print_module(m, locs=mode)
        m2 = parse_module(text, consts=m.consts)
        verify(m2)
        assert print_module(m2, locs=mode) == text
        assert_structurally_equal(m, m2, locs=(mode == "full"))


@RANDOM
@given(gen.modules(), st.sampled_from([None, 20, 37, 100]))
def test_every_line_width_parses_back_to_the_same_module(m, width):
    """Continuation lines (after a comma, a loc on its own line, one argument per line) are
    layout only: the text at any width reads back as the same module."""
    text = print_module(m, locs="full", width=width)
    m2 = parse_module(text, consts=m.consts)
    assert_structurally_equal(m, m2, locs=True)
    assert print_module(m2, locs="full", width=width) == text
    assert print_module(m2, locs="full", width=None) == print_module(m, locs="full", width=None)


@RANDOM
@given(gen.modules(locs_mode="never"))
def test_canonical_names_ignore_hints_but_keep_arguments(m):
    text = print_module(m, hints=False)
    assert print_module(parse_module(text), hints=False) == text
    arg_names = {f"%{a.name_hint}" for fn in m for a in fn.args if a.name_hint == "p"}
    assert arg_names <= set(re.findall(r"%[\w.]+", text))


# --- mutations -----------------------------------------------------------------------------------

def _ops(m, pred):
    ops = [op for op in walk(m) if pred(op)]
    assume(ops)
    return ops


def _rejected(m, op) -> str:
    with pytest.raises(IRVerifyError) as info:
        verify(m)
    message = str(info.value)
    assert f"'{op.opdef.name}'" in message.splitlines()[0], message
    assert ">> " in message
    return message


@RANDOM
@given(gen.modules(), st.data())
def test_operand_renamed_to_an_undefined_value_is_rejected(m, data):
    ops = _ops(m, lambda op: any(not isinstance(v, Literal) for v in op.operands))
    op = data.draw(st.sampled_from(ops))
    i = data.draw(st.sampled_from([i for i, v in enumerate(op.operands)
                                   if not isinstance(v, Literal)]))
    op.set_operand(i, Value(op.operands[i].type, "ghost"))
    message = _rejected(m, op)
    assert "is not defined in this function" in message


@RANDOM
@given(gen.modules(), st.data())
def test_operand_used_before_its_definition_is_rejected(m, data):
    fn = m["main"]
    body = [op for op in fn.body if not op.is_terminator]
    pairs = [(a, b) for i, a in enumerate(body) for b in body[i:] if b.results
             and any(not isinstance(v, Literal) for v in a.operands)]
    if not pairs:
        return
    op, later = data.draw(st.sampled_from(pairs))
    i = next(i for i, v in enumerate(op.operands) if not isinstance(v, Literal))
    op.set_operand(i, later.results[0])
    _rejected(m, op)


def _other_type(t):
    if isinstance(t, TensorType):
        return TensorType(t.dtype, t.shape + (7,))
    if isinstance(t, ScalarType):
        return TensorType(t.dtype, ())
    if isinstance(t, TupleType):
        return TupleType(t.elements + (ScalarType(float64),))
    return ScalarType(float64)


@RANDOM
@given(gen.modules(), st.data())
def test_result_retyped_is_rejected(m, data):
    op = data.draw(st.sampled_from(_ops(m, lambda op: op.results)))
    r = data.draw(st.sampled_from(op.results))
    r.type = _other_type(r.type)
    _rejected(m, op)


@RANDOM
@given(gen.modules(max_depth=1), st.data())
def test_dropped_yield_is_rejected(m, data):
    ops = _ops(m, lambda op: op.opdef is IF or op.opdef is WHILE)
    op = data.draw(st.sampled_from(ops))
    region = data.draw(st.sampled_from(op.regions))
    region.block.terminator.erase()
    message = _rejected(m, op)
    assert "does not end with yield" in message


@RANDOM
@given(gen.modules(), st.data())
def test_text_with_an_undefined_operand_fails_to_parse_at_that_op(m, data):
    text = print_module(m)
    lines = text.splitlines()
    first_operand = re.compile(r"(\w+)\((%[\w.]+)[,)]|^\s*(yield|return) (%[\w.]+)")
    candidates = [i for i, line in enumerate(lines) if first_operand.search(line)]
    assume(candidates)
    i = data.draw(st.sampled_from(candidates))
    match = first_operand.search(lines[i])
    op_name = match.group(1) or match.group(3)
    start = match.start(2) if match.group(2) else match.start(4)
    end = match.end(2) if match.group(2) else match.end(4)
    lines[i] = lines[i][:start] + "%undefined_value" + lines[i][end:]
    with pytest.raises(IRParseError) as info:
        parse_module("\n".join(lines) + "\n")
    assert info.value.line == i + 1
    assert "undefined value %undefined_value" in str(info.value)
    assert op_name in info.value.source_line


def test_structural_ops_do_not_shadow_registry_ops():
    from graphcell_ir.ir.structural import shadowed_registry_names
    assert shadowed_registry_names() == []


def test_generator_covers_the_structural_ops():
    names = set()

    # enough examples that every structural op shows up whatever the registry holds (each new
    # op changes the derandomized draws; 40 stopped drawing a call when the index ops came)
    @settings(max_examples=100, deadline=None, derandomize=True,
              suppress_health_check=list(HealthCheck))
    @given(gen.modules())
    def collect(m):
        names.update(op.opdef.name for op in walk(m) if isinstance(op.opdef, StructuralOpDef))
        names.update(type(v).__name__ for op in walk(m) for v in op.operands)

    collect()
    assert {"if", "while", "yield", "return", "call", "const", "Literal", "OpResult"} <= names
    assert OpResult.__name__ in names and YIELD.name in names
