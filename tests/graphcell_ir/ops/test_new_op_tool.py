"""``tools/new_op.py`` prints an entry and a sample row that are valid Python."""
from __future__ import annotations

import ast
import importlib.util
from pathlib import Path

import pytest

_TOOL = Path(__file__).resolve().parents[3] / "tools" / "new_op.py"


def _tool():
    spec = importlib.util.spec_from_file_location("new_op_tool", _TOOL)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("argv", [["example_unary", "--kind", "elementwise"],
                                  ["lrn", "--operands", "x,w", "--attrs", "depth_radius:int=5,alpha:float"]])
def test_skeleton_is_python(argv, capsys):
    assert _tool().main(argv) == 0
    text = capsys.readouterr().out
    ast.parse(text)
    assert f'defop("{argv[0]}"' in text and f'_rows["{argv[0]}"]' in text


def test_existing_names_are_refused():
    with pytest.raises(SystemExit, match="already in the registry"):
        _tool().main(["conv2d"])
