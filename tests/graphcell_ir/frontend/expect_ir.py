"""Inline golden IR for the frontend tests, with an accept mode (PyTorch's expecttest workflow).

``check(fn, specs, expected)`` compiles ``fn``, prints the module and compares it with the string
literal ``expected`` written at the call site. When the IR changes on purpose, run::

    GRAPHCELL_ACCEPT=1 .venv/bin/python -m pytest tests/graphcell_ir/frontend

and every mismatching literal is rewritten in place with the new text (review the diff).
"""
from __future__ import annotations

import ast
import atexit
import difflib
import inspect
import os
import sys
import textwrap

from frontend_fakes import FakeResolver

from graphcell_ir.frontend import compile_function
from graphcell_ir.text import print_module

ACCEPT = os.environ.get("GRAPHCELL_ACCEPT") == "1"
_pending: dict[str, list] = {}


def normalize(text: str) -> str:
    return textwrap.dedent(text).strip("\n") + "\n"


def check(fn, specs, expected: str, *, resolver=None, self_obj=None, locs: str = "none",
          name: str | None = None):
    """Compile ``fn`` and compare its printed module with ``expected``; returns the result."""
    out = compile_function(fn, self_obj, specs, resolver or FakeResolver(self_obj), name=name)
    assert_text(print_module(out.module, locs=locs), expected, depth=2)
    return out


def assert_text(actual: str, expected: str, depth: int = 1) -> None:
    if normalize(actual) == normalize(expected):
        return
    if ACCEPT:
        _record(inspect.getframeinfo(sys._getframe(depth)), actual)
        return
    diff = "\n".join(difflib.unified_diff(normalize(expected).splitlines(),
                                          normalize(actual).splitlines(), "expected", "actual",
                                          lineterm=""))
    raise AssertionError(f"IR differs from the expectation (GRAPHCELL_ACCEPT=1 rewrites it):\n"
                         f"{diff}\n--- actual:\n{actual}")


def _record(frame, actual: str) -> None:
    """Remember to replace the last string literal of the call at ``frame`` by ``actual``."""
    pos = getattr(frame, "positions", None)  # Python 3.11+: the call's exact position
    line = pos.lineno if pos is not None else frame.lineno
    path = frame.filename
    tree = ast.parse(open(path).read())
    calls = [n for n in ast.walk(tree) if isinstance(n, ast.Call)
             and (n.lineno, n.col_offset) == (line, pos.col_offset) if pos is not None
             or (isinstance(n, ast.Call) and n.lineno <= line <= n.end_lineno)]
    for node in sorted(calls, key=lambda n: -n.lineno):
        strings = [a for a in [*node.args, *(k.value for k in node.keywords)]
                   if isinstance(a, ast.Constant) and isinstance(a.value, str) and "\n" in a.value]
        if strings:
            s = strings[-1]
            _pending.setdefault(path, []).append(
                ((s.lineno, s.col_offset), (s.end_lineno, s.end_col_offset), actual))
            return
    raise AssertionError(f"cannot find the expected string at {path}:{line}")


def _flush() -> None:
    for path, edits in _pending.items():
        lines = open(path).read().splitlines(keepends=True)
        starts = [0]
        for line in lines:
            starts.append(starts[-1] + len(line))
        text = "".join(lines)
        for (l0, c0), (l1, c1), actual in sorted(edits, reverse=True):
            a, b = starts[l0 - 1] + c0, starts[l1 - 1] + c1
            text = text[:a] + '"""\n' + normalize(actual) + '"""' + text[b:]
        with open(path, "w") as f:
            f.write(text)


atexit.register(_flush)
