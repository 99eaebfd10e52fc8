"""Graph export: networkx, Graphviz dot, SVG through ``dot``."""
from __future__ import annotations

import os
import stat
import sys

import pytest

from graphcell_ir.errors import GraphvizError
from graphcell_ir.ir import to_dot, to_networkx, to_svg
from graphcell_ir.text import parse_module

TEXT = """func @g(%v: f32[3]) -> f32[3] {
  %0 = neg(%v) : f32[3]
  return %0
}

func @f(%x: f32[3], %p: bool[]) -> f32[3] {
  %0 = mul(%x, %x) : f32[3]  loc(a.py:1:4 f)
  %1 = if(%p) : f32[3] {
    %2 = call(%0) {callee="g"} : f32[3]  loc(a.py:2:8 f)
    yield %2
  } else {
    %3 = add(%0, 1.0:f32) : f32[3]  loc(a.py:3:8 f)
    yield %3
  }  loc(a.py:2:4 f)
  return %1
}
"""


def test_networkx_graph_has_typed_located_ops_and_value_edges():
    g = to_networkx(parse_module(TEXT))
    mul = g.nodes["@f/op0"]
    assert (mul["op"], mul["type"], mul["loc"], mul["function"]) == ("mul", "f32[3]", "a.py:1:4 f", "f")
    assert g.edges["@f/%x", "@f/op0"] == {"values": ["%x", "%x"], "operands": [0, 1], "type": "f32[3]"}
    call = g.nodes["@f/op2"]
    assert call["op"] == "call" and call["parent"] == "@f/op1"
    assert g.nodes["@f/op4"]["literals"] == ["1.0:f32"]
    assert set(g.successors("@f/op0")) == {"@f/op2", "@f/op4"}
    assert g.nodes["@g/%v"]["kind"] == "arg" and "@g/op0" in g


def test_dot_has_a_cluster_per_function_and_region():
    dot = to_dot(parse_module(TEXT))
    assert dot.startswith("digraph gcir {") and dot.rstrip().endswith("}")
    assert 'label="@f"' in dot and 'label="if then"' in dot and 'label="if else"' in dot
    assert '"@f/op0" -> "@f/op2" [label="%0"];' in dot
    assert '\\n' in dot and "1.0:f32" not in dot


def test_dot_escapes_quotes_in_names():
    text = TEXT.replace("@g", '@"g \\"q\\""').replace('callee="g"', 'callee="g \\"q\\""')
    dot = to_dot(parse_module(text))
    assert 'label="@g \\"q\\""' in dot


def test_svg_needs_dot_on_path(monkeypatch):
    monkeypatch.setattr("shutil.which", lambda name: None)
    with pytest.raises(GraphvizError, match="not on PATH.*Install Graphviz"):
        to_svg(parse_module(TEXT), engine="graphviz")
    monkeypatch.setattr("graphcell_ir.ir.draw.matplotlib_available", lambda: False)
    with pytest.raises(GraphvizError, match=r"neither Graphviz's 'dot' program nor matplotlib.*"
                                            r"pip install 'graphcell\[pictures\]'"):
        to_svg(parse_module(TEXT))   # no engine at all: says what to install


def test_svg_runs_dot(tmp_path, monkeypatch):
    fake = tmp_path / "dot"
    fake.write_text(f"#!{sys.executable}\nimport sys\nsrc = sys.stdin.read()\n"
                    "print('<svg>' + str(src.count('->')) + '</svg>')\n")
    fake.chmod(fake.stat().st_mode | stat.S_IEXEC)
    monkeypatch.setenv("PATH", f"{tmp_path}{os.pathsep}{os.environ.get('PATH', '')}")
    assert to_svg(parse_module(TEXT)).strip() == "<svg>9</svg>"
    fake.write_text("#!/bin/sh\necho broken >&2\nexit 3\n")
    with pytest.raises(GraphvizError, match="exit 3.*broken"):
        to_svg(parse_module(TEXT))
