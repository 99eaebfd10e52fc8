"""Errors the way users wish compilers wrote them: every unsupported construct is reported with
its name, file, line, column, the source line and a caret; all of them at once; shape and dtype
errors name the op, the shapes and the user's line; no compiler traceback, the cause kept."""
from __future__ import annotations

import inspect

import numpy as np
import pytest
from frontend_fakes import Cell, FakeResolver, Parameter, ops

from graphcell_ir.errors import (GraphCompileError, GraphLimitError, GraphSyntaxError,
                                 GraphTypeError, GraphValueError, ShapeError)
from graphcell_ir.frontend import compile_function, stmts
from graphcell_ir.frontend.errors import Kind
from graphcell_ir.frontend.limits import Limits
from graphcell_ir.ir import TensorType, float32

F32_3 = TensorType(float32, (3,))
F32_23 = TensorType(float32, (2, 3))


def error_of(fn, specs=(F32_3,), self_obj=None, cls=GraphCompileError):
    with pytest.raises(cls) as e:
        compile_function(fn, self_obj, list(specs), FakeResolver(self_obj))
    return e.value


def line_of(fn, text: str) -> int:
    """The file line of the first line of ``fn`` containing ``text``."""
    lines, start = inspect.getsourcelines(fn)
    return start + next(i for i, line in enumerate(lines) if i and text in line)


def assert_reported(err, fn, text: str, *words: str):
    """``err`` has a diagnostic at the line holding ``text``, whose message has all ``words``,
    and its printed form shows that line with a caret under the construct."""
    line = line_of(fn, text)
    hits = [d for d in err.diagnostics if d.line == line]
    assert hits, f"nothing reported at line {line} ({text!r}):\n{err}"
    d = hits[0]
    for w in words:
        assert w in d.message, f"{w!r} not in {d.message!r}"
    shown = d.format().splitlines()
    src = next(i for i, s in enumerate(shown) if i and text.strip() in s)
    caret = shown[src + 1]
    assert caret.strip().startswith("^") and caret.index("^") == 4 + d.col - 1
    assert f"{d.file.rsplit('/', 1)[-1]}:{line}:{d.col}:" in shown[0]
    return d


# --- one test per unsupported construct ----------------------------------------------------------

def _try(x):
    try:
        x = x + 1.0
    except ValueError:
        pass
    return x


def _with(x):
    with open("f"):
        x = x + 1.0
    return x


def _del(x):
    y = x
    del y
    return x


G = 1


def _global(x):
    global G
    G = 2
    return x


def _nonlocal(x):
    k = 1

    def inner():
        nonlocal k
        k = 2
    inner()
    return x


def _yield(x):
    yield x


def _comprehension_over_tensor(x):
    return [v * 2.0 for v in x]


def _generator_over_tensor(x):
    return tuple(v for v in x)


def _class_def(x):
    class A:
        pass
    return x


def _import(x):
    import math  # noqa: F401
    return x


def _assert_on_tensor(x):
    assert x.sum() > 0
    return x


def _attribute_assignment(x):
    x.value = 1
    return x


def _mask_index(x):
    return x[x > 0]


def _int_of_tensor(x):
    return int(x.sum())


def _range_of_tensor(x):
    for _ in range(x.sum()):
        x = x + 1.0
    return x


def _static_call_with_tensor(x):
    return np.sqrt(x)


def _set_literal(x):
    s = {1, 2}
    return x * len(s)


def _set_comprehension(x):
    s = {i for i in range(3)}
    return x * len(s)


def _walrus(x):
    if (n := 2) > 1:
        return x * n
    return x


CASES = [
    (_try, "try:", ["'try' statement"]),
    (_with, "with open", ["'with' statement"]),
    (_del, "del y", ["'del' statement"]),
    (_global, "global G", ["'global' statement"]),
    (_nonlocal, "nonlocal k", ["'nonlocal' statement"]),
    (_yield, "yield x", ["'yield'", "generator"]),
    (_comprehension_over_tensor, "for v in x]", ["comprehension over a tensor f32[3]"]),
    (_generator_over_tensor, "for v in x)", ["comprehension over a tensor"]),
    (_class_def, "class A", ["class definition"]),
    (_import, "import math", ["'import' statement"]),
    (_assert_on_tensor, "assert", ["'assert' on a tensor"]),
    (_attribute_assignment, "x.value", ["assigning attribute 'value' of a tensor"]),
    (_mask_index, "x[x > 0]", ["x[mask] would have to run as Python",
                               "resolver does not support"]),
    (_int_of_tensor, "int(", ["int() of a tensor"]),
    (_range_of_tensor, "range(", ["range()", "use a while loop"]),
    (_static_call_with_tensor, "np.sqrt", ["sqrt() would have to run as Python"]),
    (_set_literal, "{1, 2}", ["a set literal is not supported in graph mode (as in MindSpore)"]),
    (_set_comprehension, "{i for i", ["a set comprehension is not supported"]),
    (_walrus, "(n := 2)", ["an assignment expression (:=) is not supported"]),
]


@pytest.mark.parametrize("fn,text,words", CASES, ids=[c[0].__name__ for c in CASES])
def test_each_unsupported_construct_is_named_at_its_line(fn, text, words):
    err = error_of(fn, cls=GraphSyntaxError)
    d = assert_reported(err, fn, text, *words)
    assert d.kind is Kind.UNSUPPORTED
    assert isinstance(err, SyntaxError) and err.filename is None  # tracebacks print our text


def test_all_unsupported_constructs_of_a_construct_are_reported_at_once():
    class Net(Cell):
        def construct(self, x):
            try:
                y = x * 2.0
            finally:
                pass
            with open("log"):
                pass
            z = [v for v in x]
            input(y, z)
            global G
            x.attr = 3
            return y + 1.0

    err = error_of(Net.construct, self_obj=Net(), cls=GraphSyntaxError)
    assert len(err.diagnostics) == 6
    text = str(err)
    assert text.startswith("6 problems while compiling Net.construct for graph mode:")
    for snippet, words in [("try:", "'try'"), ("with open", "'with'"), ("for v in x]", "over"),
                           ("input(y, z)", "input()"), ("global G", "'global'"),
                           ("x.attr = 3", "attribute")]:
        assert_reported(err, Net.construct, snippet, words)
    assert text.count("    ^") == 6 and "return y + 1.0" not in text


# --- type and shape errors -----------------------------------------------------------------------

class _Dense(Cell):
    def __init__(self):
        super().__init__()
        self.weight = Parameter(np.ones((4, 5), np.float32), "weight")

    def construct(self, x):
        return ops.matmul(x, self.weight, transpose_b=True)


class _Net(Cell):
    def __init__(self):
        super().__init__()
        self.fc = _Dense()

    def construct(self, x):
        h = x * 2.0
        return self.fc(h)


def test_shape_error_names_the_op_the_shapes_the_line_and_the_call_chain():
    err = error_of(_Net.construct, [F32_23], _Net(), cls=GraphValueError)
    d = assert_reported(err, _Dense.construct, "ops.matmul", "MatMul", "f32[2,3]", "f32[4,5]")
    assert d.loc.scope == ("_Net.construct", "_Dense.construct")
    assert isinstance(err.__cause__, ShapeError)
    assert f"called from test_frontend_errors.py:{line_of(_Net.construct, 'self.fc(h)')}" in \
        str(err).replace("tests/graphcell_ir/frontend/", "")


def test_dtype_error_is_a_type_error_at_the_users_line():
    def f(x):
        flags = x > 0
        return -flags

    err = error_of(f, cls=GraphTypeError)
    assert_reported(err, f, "return -flags", "Neg", "numeric", "bool[3]")


def test_while_whose_carried_value_changes_type():
    def f(x):
        while x.sum() < 10.0:
            x = ops.reshape(x, (1, 3))
        return x

    err = error_of(f, cls=GraphSyntaxError)
    assert_reported(err, f, "while x.sum()", "variable 'x' changes type from f32[3] to f32[1,3]")


def test_variables_the_branches_disagree_on_are_errors_only_when_read():
    def f(x):
        if x.sum() > 0:
            y = x
            z = x
        else:
            z = x[0]
        return y + z

    err = error_of(f)
    assert_reported(err, f, "return y + z", "'y' may be undefined", "only assigned in the then")

    def g(x):
        if x.sum() > 0:
            z = x
        else:
            z = x[0]
        return z

    err = error_of(g, cls=GraphTypeError)
    assert_reported(err, g, "return z", "'z'", "f32[3] after the then branch",
                    "f32[] after the else branch")


def test_return_in_a_tensor_while():
    def g(x):
        while x.sum() < 10.0:
            x = x * 2.0
            if x.max() > 3.0:
                break
            return x
        return x

    err = error_of(g, cls=GraphSyntaxError)
    assert_reported(err, g, "            return x", "'return' in a while loop whose condition "
                                                    "is a tensor")


def test_raise_and_assert_under_a_tensor_condition():
    def f(x):
        if x.sum() > 0:
            raise ValueError("positive")
        return x

    assert_reported(error_of(f, cls=GraphSyntaxError), f, "raise ValueError",
                    "'raise' under a tensor condition")


def test_raise_in_a_dead_branch_is_fine_and_a_live_one_reports_the_users_message():
    class Layer(Cell):
        def __init__(self, n):
            super().__init__()
            self.n = n

        def construct(self, x):
            if x.shape[-1] != self.n:
                raise ValueError(f"Layer: expected {self.n} features, got {x.shape}")
            return x

    compile_function(Layer.construct, Layer(3), [F32_3], FakeResolver())
    err = error_of(Layer.construct, [F32_3], Layer(4), cls=GraphValueError)
    assert_reported(err, Layer.construct, "raise ValueError",
                    "ValueError: Layer: expected 4 features, got (3,)")


def test_a_raise_reached_while_compiling_ends_the_compilation():
    """A check that refuses an argument is the one error reported: what follows it (in this
    function and in its callers) would only fail because of the refused argument."""
    def check(x):
        if x.ndim != 2:
            raise ValueError(f"expected a matrix, got rank {x.ndim}")
        return x

    def f(x):
        x = check(x)
        rows = x[5]         # would be an index error on the refused argument
        return rows + x[0, 7]

    err = error_of(f, cls=GraphValueError)
    assert len(err.diagnostics) == 1
    assert_reported(err, check, "raise ValueError", "ValueError: expected a matrix, got rank 1")


def test_static_while_that_does_not_stop():
    def f(x):
        n = 0
        while n >= 0:
            n += 1
        return x

    with pytest.raises(GraphLimitError) as e:
        compile_function(f, None, [F32_3], FakeResolver(), limits=Limits(unroll=50))
    assert_reported(e.value, f, "while n >= 0", "after 50 iterations",
                    "more than max_unroll=50; raise the limit with set_context(max_unroll=...)")


def test_a_for_loop_past_the_unroll_limit():
    def f(x):
        for _ in range(60):
            x = x + 1
        return x

    with pytest.raises(GraphLimitError) as e:
        compile_function(f, None, [F32_3], FakeResolver(), limits=Limits(unroll=50))
    assert_reported(e.value, f, "range(60)", "would unroll 60 iterations", "max_unroll=50")


def test_names_assignment_targets_and_parameters():
    def undefined(x):
        return x + missing_name  # noqa: F821

    assert_reported(error_of(undefined), undefined, "missing_name", "'missing_name' is not defined")

    def before(x):
        y = z + x  # noqa: F821
        z = 1.0
        return y

    assert_reported(error_of(before), before, "y = z + x", "'z' is used before it is assigned")

    def not_a_param(x):
        ops.assign(x * 2.0, x)
        return x

    assert_reported(error_of(not_a_param, cls=GraphTypeError), not_a_param, "ops.assign",
                    "Assign writes its operand 'variable', which must be a Parameter")

    def no_attr(x):
        return x.frobnicate()

    assert_reported(error_of(no_attr), no_attr, "frobnicate", "no attribute 'frobnicate'")

    def unpack(x):
        a, b = x
        return a

    assert_reported(error_of(unpack, cls=GraphValueError), unpack, "a, b = x",
                    "cannot unpack a tensor f32[3] (3 values) into 2 targets")


def test_errors_after_a_failed_statement_are_not_cascaded():
    def f(x):
        y = x @ x.reshape(1, 3)      # MatMul shapes do not fit: y is poisoned
        z = y * 2.0 + y.sum()        # not reported again
        return z.reshape(9)

    err = error_of(f, cls=GraphValueError)
    assert len(err.diagnostics) == 1


def test_internal_errors_are_reported_at_the_users_line_with_the_cause(monkeypatch):
    from graphcell_ir.frontend import exprs

    def boom(self, node):
        raise KeyError("oops")

    monkeypatch.setattr(exprs.ExprMixin, "visit_Constant", boom)

    def f(x):
        return x + 1.0

    err = error_of(f)
    assert_reported(err, f, "return x + 1.0", "internal compiler error", "KeyError")
    assert isinstance(err.__cause__, KeyError)
