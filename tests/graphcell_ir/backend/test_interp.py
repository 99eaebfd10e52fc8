"""The reference interpreter."""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings

from graphcell_ir.backend.interp import Interpreter, interpret, type_mismatch
from graphcell_ir.errors import GraphcellError, InterpError
from graphcell_ir.ir import (Builder, Function, Loc, Module, ScalarType, TensorType, TupleType,
                             float32, int64)
from graphcell_ir.ir.types import NONE, bool_
from graphcell_ir.ops import Kind, OpDef
from graphcell_ir.ops.registry import NONDIFF
from graphcell_ir.text import parse_module

sys.path.insert(0, str(Path(__file__).parents[1] / "text"))
import gcir_strategies as gen  # noqa: E402

T = TensorType(float32, (3,))
X = np.array([1.0, -2.0, 3.0], np.float32)


def test_elementwise_with_literals():
    m = parse_module("""func @f(%x: f32[3]) -> f32[3], bool[3] {
  %0 = mul(%x, 2:i64) : f32[3]
  %1 = add(%0, 0.5:f32) : f32[3]
  %2 = greater(%1, 0.0:f32) : bool[3]
  return %1, %2
}
""")
    y, c = interpret(m, X, check_types=True)
    np.testing.assert_array_equal(y, X * 2 + 0.5)
    np.testing.assert_array_equal(c, X * 2 + 0.5 > 0)


def test_if_takes_the_right_branch():
    m = parse_module("""func @f(%x: f32[3], %p: bool[]) -> f32[3] {
  %0 = if(%p) : f32[3] {
    %1 = neg(%x) : f32[3]
    yield %1
  } else {
    yield %x
  }
  return %0
}
""")
    np.testing.assert_array_equal(interpret(m, X, np.array(True)), -X)
    np.testing.assert_array_equal(interpret(m, X, np.array(False)), X)


def factorial_module() -> Module:
    """A recursive function (if + call) and a while loop computing the same thing."""
    m = Module()
    rec = m.add(Function("fact"))
    n = rec.add_arg(TensorType(int64, ()), "n")
    b = Builder.at_end(rec.body, Loc("fact.py", 1, 0))
    rec.result_types = (TensorType(int64, ()),)
    (r,) = b.if_(b.op("less_equal", n, 1), lambda: b.op("add", b.op("mul", n, 0), 1),
                 lambda: b.op("mul", n, b.call(rec, b.op("sub", n, 1))[0]))
    b.return_(r)
    loop = m.add(Function("loop"))
    n = loop.add_arg(TensorType(int64, ()), "n")
    b = Builder.at_end(loop.body, Loc("fact.py", 9, 0))
    one = b.op("add", b.op("mul", n, 0), 1)
    _, acc = b.while_([n, one], lambda i, acc: b.op("greater", i, 1),
                      lambda i, acc: (b.op("sub", i, 1), b.op("mul", acc, i)))
    b.return_(acc)
    return m


def test_recursion_through_calls_and_while_loops():
    m = factorial_module()
    interp = Interpreter(m, check_types=True)
    for k in range(7):
        want = np.prod(np.arange(1, k + 1), dtype=np.int64)
        assert interp.run("fact", np.array(k, np.int64)) == want
        assert interp.run("loop", np.array(k, np.int64)) == want
    assert interp.run(m["loop"], np.array(3, np.int64)) == 6


def test_max_iterations_stops_runaway_loops():
    m = factorial_module()
    with pytest.raises(InterpError, match="more than 3 iterations"):
        Interpreter(m, max_iterations=3).run("loop", np.array(10, np.int64))


def test_constants_inline_and_from_the_table():
    text = """func @f(%x: f32[3]) -> f32[3] {
  %0 = const() {value=[1.0,2.0,3.0]} : f32[3]
  %1 = const() {ref="consts/0"} : f32[3]
  %2 = add(%0, %1) : f32[3]
  %3 = mul(%x, %2) : f32[3]
  return %3
}
"""
    table = {"consts/0": np.array([10, 20, 30], np.float32)}
    np.testing.assert_array_equal(interpret(parse_module(text, consts=table), X), X * [11, 22, 33])
    with pytest.raises(InterpError, match="constant consts/0 is not loaded"):
        interpret(parse_module(text), X)


def test_tuples_and_multiple_results():
    m = parse_module("""func @f(%x: f32[3], %s: i64) -> (f32[3], i64), f32[3], i64 {
  %0 = make_tuple(%x, %s) : (f32[3], i64)
  %1 = tuple_get(%0) {index=0} : f32[3]
  %2 = tuple_get(%0) {index=-1} : i64
  return %0, %1, %2
}
""")
    t, a, s = interpret(m, X, 4, check_types=True)
    assert t[1] == 4 and a is X and s == 4


def test_argument_checks():
    m = parse_module("func @f(%x: f32[3], %s: f32) -> f32[3] {\n  return %x\n}\n")
    with pytest.raises(InterpError, match="takes 2 argument"):
        interpret(m, X)
    with pytest.raises(InterpError, match=r"argument 0 of @f should be f32\[3\], got f64\[3\]"):
        interpret(m, X.astype(np.float64), 1.0)
    with pytest.raises(InterpError, match="argument 1 of @f should be f32, got int 1"):
        interpret(m, X, 1)
    with pytest.raises(InterpError, match="say which with fn="):
        interpret(factorial_module(), 1)
    with pytest.raises(InterpError, match="no function @g"):
        Interpreter(m).run("g")


def _custom(ref, infer=lambda x: x):
    return OpDef("custom", ("x",), Kind.OPAQUE, infer=infer, ref=ref, bprop=NONDIFF)


def run_custom(ref, arg=X, **kw):
    fn = Function("f")
    x = fn.add_arg(T, "x")
    b = Builder.at_end(fn.body, Loc("c.py", 7, 3, ("f",)))
    b.return_(b.op(_custom(ref), b.const(np.ones(3, np.float32)) if arg is None else x))
    return interpret(fn, X, **kw)


def test_failures_inside_references_name_the_op_and_location():
    def boom(x):
        raise ValueError("bad input")
    with pytest.raises(InterpError, match=r"custom at c.py:7:3 f in @f failed: ValueError: bad input"):
        run_custom(boom)


def test_check_types_catches_a_reference_that_disagrees_with_its_shape_rule():
    assert run_custom(lambda x: x.astype(np.float64)).dtype == np.float64
    with pytest.raises(InterpError, match=r"result 0 should be f32\[3\] but the reference gave f64\[3\]"):
        run_custom(lambda x: x.astype(np.float64), check_types=True)


def test_constants_are_read_only_for_references():
    def in_place(x):
        x += 1
        return x
    with pytest.raises(InterpError, match="read-only"):
        run_custom(in_place, arg=None)


def test_type_mismatch_descriptions():
    assert type_mismatch(np.zeros(3, np.float32), T) is None
    assert type_mismatch(1.5, ScalarType(float32)) is None and type_mismatch(True, ScalarType(bool_)) is None
    assert type_mismatch(True, ScalarType(int64)) == "bool True"
    assert type_mismatch((1, None), TupleType((ScalarType(int64), NONE))) is None
    assert type_mismatch((1,), TupleType((ScalarType(float32),))) == "a tuple holding int 1"
    assert type_mismatch([1], T) == "a list"


def _inputs(fn, rng):
    out = []
    for a in fn.args:
        t = a.type
        if isinstance(t, ScalarType):
            out.append(bool(rng.integers(2)) if t.dtype.is_bool else
                       int(rng.integers(-3, 4)) if t.dtype.is_int else float(rng.normal()))
        else:
            out.append((rng.normal(size=t.shape) * 3).astype(t.dtype.np_dtype))
    return out


@settings(max_examples=60, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(gen.modules(max_ops=6))
def test_random_modules_run_or_fail_with_interp_error(m):
    rng = np.random.default_rng(0)
    interp = Interpreter(m, max_iterations=4)
    try:
        interp.run("main", *_inputs(m["main"], rng))
    except InterpError:
        pass
    except GraphcellError as e:  # pragma: no cover - the report says which op misbehaved
        pytest.fail(f"not an InterpError: {e!r}")
