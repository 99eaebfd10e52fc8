"""Random edits of valid ``.gcir`` text: the parser succeeds or raises IRParseError, nothing else.

When an edited text still parses, the module must also print (in every location mode), print
stably (print, parse, print again gives the same text) and verify or raise IRVerifyError, never
another exception. Bounded in CI, longer for release checks (``tests/fuzzing.py``).
"""
from __future__ import annotations

import sys
from pathlib import Path

from fuzzing import fuzz
from hypothesis import given
from hypothesis import strategies as st

sys.path.insert(0, str(Path(__file__).parent))
import gcir_strategies as gen  # noqa: E402

from graphcell_ir.errors import IRParseError, IRVerifyError  # noqa: E402
from graphcell_ir.ir import verify  # noqa: E402
from graphcell_ir.text import parse_module, print_module  # noqa: E402

GOLDEN = Path(__file__).parent.parent / "golden"
SEEDS = [p.read_text() for p in sorted(GOLDEN.glob("*.gcir"))]
FUZZ = fuzz(250)
GRAMMAR_CHARS = list('%@(){}[],:="\\-> \n\t0123456789.eEfib_xyz') + ["loc(", "<-", "...", "//",
                                                                      "nan", "none", "f32[", "-inf"]

edit = st.one_of(
    st.tuples(st.just("delete"), st.floats(0, 1), st.integers(1, 6)),
    st.tuples(st.just("insert"), st.floats(0, 1), st.one_of(st.sampled_from(GRAMMAR_CHARS),
                                                            st.characters())),
    st.tuples(st.just("replace"), st.floats(0, 1), st.sampled_from(GRAMMAR_CHARS)),
    st.tuples(st.just("dup_line"), st.floats(0, 1), st.just(0)),
    st.tuples(st.just("drop_line"), st.floats(0, 1), st.just(0)),
    st.tuples(st.just("swap_lines"), st.floats(0, 1), st.floats(0, 1)),
    st.tuples(st.just("truncate"), st.floats(0, 1), st.just(0)),
)


def apply(text: str, op) -> str:
    kind, where, arg = op
    pos = int(where * len(text))
    if kind == "delete":
        return text[:pos] + text[pos + arg:]
    if kind == "insert":
        return text[:pos] + arg + text[pos:]
    if kind == "replace":
        return text[:pos] + arg + text[pos + 1:]
    if kind == "truncate":
        return text[:pos]
    lines = text.split("\n")
    i = min(int(where * len(lines)), len(lines) - 1)
    if kind == "dup_line":
        lines.insert(i, lines[i])
    elif kind == "drop_line":
        del lines[i]
    else:
        j = min(int(arg * len(lines)), len(lines) - 1)
        lines[i], lines[j] = lines[j], lines[i]
    return "\n".join(lines)


def check_parse(text) -> None:
    try:
        m = parse_module(text)
    except IRParseError as e:
        assert e.line >= 1 and e.col >= 1 and "^" in str(e)
        return
    printed = print_module(m)
    assert print_module(parse_module(printed)) == printed
    print_module(m, locs="full")
    try:
        verify(m)
    except IRVerifyError:
        pass


@FUZZ
@given(st.sampled_from(SEEDS), st.lists(edit, min_size=1, max_size=4))
def test_edited_golden_text_parses_or_raises_parse_error(text, edits):
    for e in edits:
        text = apply(text, e)
    check_parse(text)


@fuzz(120)
@given(gen.modules(max_ops=6), st.lists(edit, min_size=1, max_size=3), st.sampled_from(["user", "full"]))
def test_edited_random_module_text_parses_or_raises_parse_error(m, edits, locs):
    text = print_module(m, locs=locs)
    for e in edits:
        text = apply(text, e)
    check_parse(text)


@FUZZ
@given(st.sampled_from(SEEDS), st.lists(st.tuples(st.floats(0, 1), st.integers(0, 255)),
                                        min_size=1, max_size=4))
def test_byte_edits_parse_or_raise_parse_error(text, edits):
    data = bytearray(text.encode())
    for where, byte in edits:
        data[min(int(where * len(data)), len(data) - 1)] = byte
    check_parse(bytes(data))


def test_pathological_inputs_fail_cleanly():
    deep = "func @f(%x: " + "(" * 5000 + "f32" + ")" * 5000 + ") {\n  return\n}\n"
    lists = "func @f() {\n  %0 = const() {value=" + "[" * 5000 + "1" + "]" * 5000 + "} : f32[1]\n}\n"
    for text in [deep, lists, "\x00", "func", "func @", "\ufeff", "func @f(" * 2000,
                 "func @f() {\n" + "  %0 = if(true:bool) {\n" * 200, "%" * 10000,
                 "func @f() -> f32[" + "9" * 5000 + "] {\n}\n",
                 "func @f() -> f32 {\n  %0 = add(" + "9" * 400 + ":f32, 1.0:f32) : f32\n}\n",
                 "func @f() -> f32 {\n  return 1.0:f32  loc(" +
                 " <- ".join(f"a.py:{i}:1" for i in range(1, 3000)) + ")\n}\n"]:
        check_parse(text)
