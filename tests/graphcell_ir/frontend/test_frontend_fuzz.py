"""Random programs, and random edits of them, through the frontend: it compiles them or raises a
GraphCompileError pointing at the user's code — never another exception (a RecursionError, a
KeyError from inside the compiler...). What compiles runs on the reference interpreter and gives
what the same code gives run as Python (when Python runs it without an error).

The programs mix what the frontend handles: tensor and Python arithmetic, tensor and static
``if``, ``for`` over ``range``, bounded tensor ``while`` loops, lambdas (also made in
comprehensions), reductions and tuples. Bounded in CI, longer for release checks
(``tests/fuzzing.py``).
"""
from __future__ import annotations

import importlib.util
import itertools
import warnings

import numpy as np
import pytest
from frontend_fakes import FakeResolver, run_eager
from fuzzing import fuzz
from hypothesis import given
from hypothesis import strategies as st

from graphcell_ir.backend.interp import Interpreter
from graphcell_ir.errors import GraphcellError, GraphCompileError
from graphcell_ir.frontend import compile_function
from graphcell_ir.ir import TensorType, float32

SHAPE = (4,)
NAMES = ("a", "b", "c")
_modules = itertools.count()


# --- programs ------------------------------------------------------------------------------------

def _expr(data, names: list[str], depth: int = 0) -> str:
    leaves = ["x", *names, "1.5", "2", "-0.5", "0.25"]
    kind = data.draw(st.sampled_from(["leaf"] * 3 + ["bin", "bin", "neg", "abs", "reduce",
                                                     "lambda", "tuple_get"])
                     if depth < 3 else st.just("leaf"))
    if kind == "leaf":
        return data.draw(st.sampled_from(leaves))
    sub = lambda: _expr(data, names, depth + 1)  # noqa: E731
    if kind == "bin":
        return f"({sub()} {data.draw(st.sampled_from(['+', '-', '*']))} {sub()})"
    if kind == "neg":
        return f"(-{sub()})"
    if kind == "abs":
        return f"abs({sub()})"
    if kind == "reduce":
        return f"{sub()}.{data.draw(st.sampled_from(['sum', 'max', 'min', 'mean']))}()"
    if kind == "lambda":
        return f"(lambda t: t * {sub()})({sub()})"
    return f"({sub()}, {sub()})[{data.draw(st.integers(0, 1))}]"


def _cond(data, names: list[str]) -> str:
    c = f"{_expr(data, names, 1)} {data.draw(st.sampled_from(['>', '<', '>=']))} {_expr(data, names, 2)}"
    if data.draw(st.booleans()):
        c = f"({c}) {data.draw(st.sampled_from(['and', 'or']))} not ({_cond(data, names)})"
    return c


def _block(data, names: list[str], indent: str, depth: int, loops: bool) -> list[str]:
    lines: list[str] = []
    for _ in range(data.draw(st.integers(1, 3))):
        kind = data.draw(st.sampled_from(["assign", "assign", "aug", "if", "for", "while",
                                          "comprehension"] if depth < 2 else ["assign", "aug"]))
        v = data.draw(st.sampled_from(NAMES))
        if kind == "aug" and v in names:
            lines.append(f"{indent}{v} {data.draw(st.sampled_from(['+=', '-=', '*=']))} "
                         f"{_expr(data, names)}")
        elif kind == "if":
            lines.append(f"{indent}if {_cond(data, names)}:")
            then = list(names)
            lines += _block(data, then, indent + "    ", depth + 1, loops)
            lines.append(f"{indent}else:")
            other = list(names)
            lines += _block(data, other, indent + "    ", depth + 1, loops)
            names[:] = sorted(set(then) & set(other))   # bound on both paths
        elif kind == "for":
            lines.append(f"{indent}for i in range({data.draw(st.integers(0, 3))}):")
            inner = names + ["i"]
            lines += _block(data, inner, indent + "    ", depth + 1, loops)
        elif kind == "while" and loops:   # bounded by a counter: never an endless loop
            counter = f"n{depth}"
            lines.append(f"{indent}{counter} = 0")
            lines.append(f"{indent}while ({_cond(data, names)}) and {counter} < 3:")
            lines += _block(data, list(names), indent + "    ", depth + 1, loops)
            lines.append(f"{indent}    {counter} = {counter} + 1")
        elif kind == "comprehension":
            k = data.draw(st.integers(1, 3))
            lines.append(f"{indent}fs = [lambda: {_expr(data, names + ['i'], 1)} "
                         f"for i in range({k})]")
            lines.append(f"{indent}{v} = fs[{data.draw(st.integers(0, k - 1))}]()")
            names.append(v)
        else:
            lines.append(f"{indent}{v} = {_expr(data, names)}")
            if v not in names:
                names.append(v)
    return lines


def program(data, loops: bool = True) -> str:
    names: list[str] = []
    body = _block(data, names, "    ", 0, loops)
    results = ", ".join(["x", *names])
    return "def f(x):\n" + "\n".join(body) + f"\n    return ({results},)\n"


_TOKENS = ["+", "-", "*", "(", ")", ",", ":", ".", "[", "]", " not ", " and ", " or ", " if ",
           " else ", "lambda ", "return ", "break", "continue", "pass", "global x", "del a",
           "yield ", "x", "a", "i", "None", "True", "0", "1.0", ".sum()", "**", "/", "//", "%",
           "@", "==", "<", "print(x)", "len(x)", "x[0]", "x.shape", "sum"]


def mutated(data, text: str) -> str:
    """``text`` with a few edits of its body (the ``def`` line kept, nothing dedented: the
    module's import must not run code)."""
    lines = text.split("\n")
    for _ in range(data.draw(st.integers(1, 3))):
        i = data.draw(st.integers(1, len(lines) - 2))
        line = lines[i]
        kind = data.draw(st.sampled_from(["insert", "delete", "dup", "drop", "swap"]))
        pos = data.draw(st.integers(4, max(4, len(line))))
        if kind == "insert":
            lines[i] = line[:pos] + data.draw(st.sampled_from(_TOKENS)) + line[pos:]
        elif kind == "delete":
            lines[i] = line[:pos] + line[pos + data.draw(st.integers(1, 4)):]
        elif kind == "dup":
            lines.insert(i, line)
        elif kind == "drop" and len(lines) > 3:
            del lines[i]
        elif kind == "swap":
            j = data.draw(st.integers(1, len(lines) - 2))
            lines[i], lines[j] = lines[j], lines[i]
    return "\n".join(ln if ln.startswith("    ") or not ln or ln.startswith("def ")
                     else "    " + ln for ln in lines)


# --- the property --------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def module_dir(tmp_path_factory):
    return tmp_path_factory.mktemp("fuzzed")


def _function(module_dir, text: str):
    """``f`` of ``text`` written as a module (the frontend reads its source from the file)."""
    name = f"fuzzed_{next(_modules)}"
    path = module_dir / f"{name}.py"
    path.write_text(text)
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod.f


class _Rebinding(np.ndarray):
    """An array whose augmented assignments rebind, as a graphcell Tensor's do (``a = x;
    a += 1`` leaves ``x`` as it was); numpy's would write through every alias."""

    def __iadd__(self, other):
        return self + other

    def __isub__(self, other):
        return self - other

    def __imul__(self, other):
        return self * other


def _flat(v) -> list:
    return [y for e in v for y in _flat(e)] if isinstance(v, (tuple, list)) else [v]


def check(module_dir, text: str, x: np.ndarray) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SyntaxWarning)   # edits make odd but valid Python
        try:
            compile(text, "<fuzzed>", "exec")
        except (SyntaxError, ValueError):
            return   # not Python: nothing to compile
        fn = _function(module_dir, text)
    try:
        out = compile_function(fn, None, [TensorType(float32, SHAPE)], FakeResolver())
    except GraphCompileError as e:   # the user's error, at the user's line
        assert "fuzzed_" in str(e), str(e)
        return
    try:
        results = Interpreter(out.module, check_types=True).run(out.function, x.copy())
    except GraphcellError:   # the data do not fit an op (shapes...): a clear error
        return
    got, _ = out.split_results(results if isinstance(results, tuple) else (results,))
    try:
        with np.errstate(all="ignore"):
            want = run_eager(fn, x.copy().view(_Rebinding))
    except Exception:   # Python itself fails on it; graph mode may decide more while compiling
        return
    got, want = _flat(got), _flat(want)
    assert len(got) == len(want), text
    for g, w in zip(got, want):
        np.testing.assert_allclose(np.asarray(g, np.float64), np.asarray(w, np.float64),
                                   rtol=1e-4, atol=1e-4, equal_nan=True, err_msg=text)


values = st.lists(st.floats(-4, 4, width=32), min_size=4, max_size=4).map(
    lambda v: np.array(v, np.float32))


@fuzz(60)
@given(data=st.data(), x=values)
def test_random_programs_compile_and_agree_with_python(module_dir, data, x):
    check(module_dir, program(data), x)


@fuzz(120)
@given(data=st.data(), x=values)
def test_edited_programs_compile_or_raise_a_graph_compile_error(module_dir, data, x):
    check(module_dir, mutated(data, program(data, loops=False)), x)
