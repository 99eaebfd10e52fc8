"""The frontend on straight-line code: assignment, tuples, operators, attributes, indexing, calls
with keywords and defaults, comprehensions, lambdas. Each case is a golden ``.gcir`` expectation
(``GRAPHCELL_ACCEPT=1`` rewrites them, see expect_ir.py) and runs in the interpreter against the
same code executed eagerly on numpy."""
from __future__ import annotations

import numpy as np
import pytest
from expect_ir import check
from frontend_fakes import FakeResolver, Parameter, ops, run_eager

from graphcell_ir.backend.interp import interpret
from graphcell_ir.errors import GraphTypeError
from graphcell_ir.frontend import OutResult, OutSeq, OutStatic, compile_function
from graphcell_ir.ir import ScalarType, TensorType, float32, int64
from graphcell_ir.ops import functional as F

F32_3 = TensorType(float32, (3,))
F32_23 = TensorType(float32, (2, 3))
RNG = np.random.default_rng(0)


def same_as_eager(out, fn, *args):
    """The compiled function and plain Python agree on ``args`` (tensor arguments only)."""
    got = interpret(out.module, *out.flatten_args(args), *out.param_keys)
    got = got if isinstance(got, tuple) else (got,)
    value, _ = out.split_results(got)
    want = run_eager(fn, *args)
    for g, w in zip(_flat(value), _flat(want)):
        np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=1e-6)


def _flat(v):
    if isinstance(v, (tuple, list)):
        return [x for e in v for x in _flat(e)]
    return [v]


def test_assignment_and_operators():
    def f(x, y):
        a = x + y
        b = a * 2.0 - y / 4
        c = -b ** 2 // 3 % 5
        a += c
        return a @ y.T

    out = check(f, [F32_23, F32_23], """
func @f(%x: f32[2,3], %y: f32[2,3]) -> f32[2,2] {
  %a = add(%x, %y) : f32[2,3]
  %0 = mul(%a, 2.0:f32) : f32[2,3]
  %1 = div(%y, 4:i64) : f32[2,3]
  %b = sub(%0, %1) : f32[2,3]
  %2 = pow(%b, 2:i64) : f32[2,3]
  %3 = neg(%2) : f32[2,3]
  %4 = floor_div(%3, 3:i64) : f32[2,3]
  %c = mod(%4, 5:i64) : f32[2,3]
  %a_1 = add(%a, %c) : f32[2,3]
  %5 = transpose(%y) {perm=none} : f32[3,2]
  %6 = matmul(%a_1, %5) {transpose_a=false, transpose_b=false} : f32[2,2]
  return %6
}
""")
    x, y = RNG.standard_normal((2, 3), np.float32), RNG.standard_normal((2, 3), np.float32)
    same_as_eager(out, f, x, y)


def test_static_arithmetic_is_evaluated_while_compiling():
    def f(x, n):
        k = (n + 1) * 2 // 3
        shape = x.shape
        m = shape[0] * shape[1] + len(shape) + x.ndim
        return x * (k + m)

    check(f, [F32_23, 4], """
func @f(%x: f32[2,3]) -> f32[2,3] {
  %0 = mul(%x, 13:i64) : f32[2,3]
  return %0
}
""")


def test_tuple_packing_unpacking_nested_and_starred():
    def f(x, y):
        t = (x, (y, 2.0), 3)
        a, (b, c), d = t
        first, *rest = (a, b, c, d)
        p, q = q2 = y, x
        return first + b * c, rest[1:], len(rest), q2[1] - q

    out = check(f, [F32_3, F32_3], """
func @f(%x: f32[3], %y: f32[3]) -> f32[3], f32[3] {
  %0 = mul(%y, 2.0:f32) : f32[3]
  %1 = add(%x, %0) : f32[3]
  %2 = sub(%x, %x) : f32[3]
  return %1, %2
}
""")
    assert out.output == OutSeq((OutResult(0), OutSeq((OutStatic(2.0), OutStatic(3)), list),
                                 OutStatic(3), OutResult(1)))


def test_unpacking_a_tensor_splits_axis_0():
    def f(x):
        a, b = x
        return a - b

    out = check(f, [F32_23], """
func @f(%x: f32[2,3]) -> f32[3] {
  %a = getitem(%x) {key=[0]} : f32[3]
  %b = getitem(%x) {key=[1]} : f32[3]
  %0 = sub(%a, %b) : f32[3]
  return %0
}
""")
    same_as_eager(out, f, RNG.standard_normal((2, 3), np.float32))


def test_comparisons_and_boolean_operators():
    def f(x, y, flag):
        c = (x < y) & (x >= 0.0)
        d = x == y
        e = not flag or x.shape[0] == 3
        g = 0 < x.shape[0] <= 3
        return c | d, ~c, e and g

    check(f, [F32_3, F32_3, False], """
func @f(%x: f32[3], %y: f32[3]) -> bool[3], bool[3] {
  %0 = less(%x, %y) : bool[3]
  %1 = greater_equal(%x, 0.0:f32) : bool[3]
  %c = bitwise_and(%0, %1) : bool[3]
  %d = equal(%x, %y) : bool[3]
  %2 = bitwise_or(%c, %d) : bool[3]
  %3 = logical_not(%c) : bool[3]
  return %2, %3
}
""")


def test_and_or_not_on_tensor_values_give_bool_tensors():
    def f(x):
        s = x.sum()
        return (s > 0) and (s < 10), not (s > 1), (s > 2) or False

    check(f, [F32_3], """
func @f(%x: f32[3]) -> bool[], bool[], bool[] {
  %s = reduce_sum(%x) {axis=none, keep_dims=false} : f32[]
  %0 = greater(%s, 0:i64) : bool[]
  %1 = less(%s, 10:i64) : bool[]
  %2 = logical_and(%0, %1) : bool[]
  %3 = greater(%s, 1:i64) : bool[]
  %4 = logical_not(%3) : bool[]
  %5 = greater(%s, 2:i64) : bool[]
  return %2, %4, %5
}
""")


def test_shape_dtype_ndim_len_isinstance():
    def f(x, scale):
        assert isinstance(scale, float) and isinstance(x, np.ndarray)
        if x.dtype == float32 and x.ndim == 2 and len(x) == 2:   # graphcell dtypes, not numpy's
            x = x * scale
        if isinstance(x, (int, tuple)):
            x = x + 100.0
        return x.reshape(x.shape[1], -1)

    check(f, [F32_23, 0.5], """
func @f(%x: f32[2,3]) -> f32[3,2] {
  %x_1 = mul(%x, 0.5:f32) : f32[2,3]
  %0 = reshape(%x_1) {shape=[3,-1]} : f32[3,2]
  return %0
}
""")


def test_indexing_and_slicing_give_getitem_with_a_static_key():
    def f(x, i):
        a = x[0]
        b = x[:, 1:3]
        c = x[None, ..., i]
        d = x[-1, ::2]
        return a, b, c, d

    out = check(f, [TensorType(float32, (2, 4)), 2], """
func @f(%x: f32[2,4]) -> f32[4], f32[2,2], f32[1,2], f32[2] {
  %a = getitem(%x) {key=[0]} : f32[4]
  %b = getitem(%x) {key=[:,1:3]} : f32[2,2]
  %c = getitem(%x) {key=[none,...,2]} : f32[1,2]
  %d = getitem(%x) {key=[-1,::2]} : f32[2]
  return %a, %b, %c, %d
}
""")
    same_as_eager(out, f, RNG.standard_normal((2, 4), np.float32), 2)


def test_indexing_with_tensors_gives_take_scatter_update_and_select():
    def f(x, i):
        a = x[i]
        b = x[:, [2, 0]]
        x[i] = 0.5
        x[x > 1.0] = -1.0
        return a, b, x

    out = check(f, [F32_23, TensorType(int64, (2,))], """
func @f(%x: f32[2,3], %i: i64[2]) -> f32[2,3], f32[2,2], f32[2,3] {
  %a = take(%x, %i) {axis=0} : f32[2,3]
  %0 = const() {value=[2,0]} : i64[2]
  %b = take(%x, %0) {axis=1} : f32[2,2]
  %1 = const() {value=0.5} : f32[]
  %x_1 = scatter_update(%x, %i, %1) {axis=0} : f32[2,3]
  %2 = greater(%x_1, 1.0:f32) : bool[2,3]
  %3 = const() {value=-1.0} : f32[]
  %x_2 = select(%2, %3, %x_1) : f32[2,3]
  return %a, %b, %x_2
}
""")
    x = RNG.standard_normal((2, 3), np.float32) * 2
    got = interpret(out.module, x, np.array([1, 0]))
    want = x.copy()
    want[[1, 0]] = 0.5
    want[want > 1] = -1
    np.testing.assert_allclose(got[0], x[[1, 0]])
    np.testing.assert_allclose(got[1], x[:, [2, 0]])
    np.testing.assert_allclose(got[2], want)


def test_closures_capture_tensors_late_bound_as_python_does():
    def f(x, y):
        g = lambda t: t * x + y   # noqa: E731
        z = g(y)
        x = x * 3.0
        return g(z)   # reads the x bound now, as Python does

    out = check(f, [F32_3, F32_3], """
func @f(%x: f32[3], %y: f32[3]) -> f32[3] {
  %0 = mul(%y, %x) : f32[3]
  %z = add(%0, %y) : f32[3]
  %x_1 = mul(%x, 3.0:f32) : f32[3]
  %1 = mul(%z, %x_1) : f32[3]
  %2 = add(%1, %y) : f32[3]
  return %2
}
""")
    same_as_eager(out, f, RNG.standard_normal(3, np.float32), RNG.standard_normal(3, np.float32))


def test_setitem_rebinds_the_variable():
    def f(x, v):
        y = x
        x[0] = v
        x[1, 1:] += 1.0
        return x, y

    out = check(f, [F32_23, F32_3], """
func @f(%x: f32[2,3], %v: f32[3]) -> f32[2,3], f32[2,3] {
  %x_1 = setitem(%x, %v) {key=[0]} : f32[2,3]
  %0 = getitem(%x_1) {key=[1,1:]} : f32[2]
  %1 = add(%0, 1.0:f32) : f32[2]
  %x_2 = setitem(%x_1, %1) {key=[1,1:]} : f32[2,3]
  return %x_2, %x
}
""")
    x, v = RNG.standard_normal((2, 3), np.float32), RNG.standard_normal(3, np.float32)
    got = interpret(out.module, x, v)
    want = x.copy()
    want[0] = v
    want[1, 1:] += 1
    np.testing.assert_allclose(got[0], want)
    np.testing.assert_allclose(got[1], x)


def _helper(x, scale=2.0, *, shift=0.0, **extra):
    y = x * scale + shift
    for k in extra:
        y = y + extra[k]
    return y


def _varargs(*xs, **kw):
    return _helper(*xs, **kw)


def test_keyword_default_star_args_and_star_star_kwargs():
    def f(x):
        a = _helper(x)
        b = _helper(x, 3.0, shift=1.0)
        args = (x, 0.5)
        c = _helper(*args, **{"shift": 2.0, "bonus": 4.0})
        return _varargs(a + b, scale=1.5) + c

    out = check(f, [F32_3], """
func @f(%x: f32[3]) -> f32[3] {
  %0 = mul(%x, 2.0:f32) : f32[3]
  %y = add(%0, 0.0:f32) : f32[3]
  %1 = mul(%x, 3.0:f32) : f32[3]
  %y_1 = add(%1, 1.0:f32) : f32[3]
  %2 = mul(%x, 0.5:f32) : f32[3]
  %y_2 = add(%2, 2.0:f32) : f32[3]
  %y_3 = add(%y_2, 4.0:f32) : f32[3]
  %3 = add(%y, %y_1) : f32[3]
  %4 = mul(%3, 1.5:f32) : f32[3]
  %y_4 = add(%4, 0.0:f32) : f32[3]
  %5 = add(%y_4, %y_3) : f32[3]
  return %5
}
""")
    same_as_eager(out, f, RNG.standard_normal(3).astype(np.float32))


def test_comprehensions_lambdas_and_nested_functions_over_statics():
    def f(x, y):
        xs = [x * k for k in range(1, 4) if k != 2]
        scaled = tuple(v + 1.0 for v in xs)
        double = lambda v: v * 2                      # noqa: E731 - captures no tensor
        def pick(pair, i=0):
            return pair[i]
        table = {name: i for i, name in enumerate(("a", "b"))}
        return double(pick(scaled, table["b"])) + y

    out = check(f, [F32_3, F32_3], """
func @f(%x: f32[3], %y: f32[3]) -> f32[3] {
  %v = mul(%x, 1:i64) : f32[3]
  %v_1 = mul(%x, 3:i64) : f32[3]
  %0 = add(%v, 1.0:f32) : f32[3]
  %1 = add(%v_1, 1.0:f32) : f32[3]
  %2 = mul(%1, 2:i64) : f32[3]
  %3 = add(%2, %y) : f32[3]
  return %3
}
""")
    same_as_eager(out, f, RNG.standard_normal(3).astype(np.float32),
                  RNG.standard_normal(3).astype(np.float32))


def test_tensor_methods_and_properties_come_from_the_resolver():
    def f(x):
        y = x.T.reshape(6)
        return y.astype(np.float64).sum(axis=0, keepdims=True).exp()

    check(f, [F32_23], """
func @f(%x: f32[2,3]) -> f64[1] {
  %0 = transpose(%x) {perm=none} : f32[3,2]
  %y = reshape(%0) {shape=[6]} : f32[6]
  %1 = cast(%y) {dtype=f64} : f64[6]
  %2 = reduce_sum(%1) {axis=[0], keep_dims=true} : f64[1]
  %3 = exp(%2) : f64[1]
  return %3
}
""")


def test_static_and_scalar_arguments_and_structured_results():
    def f(xs, n, scale):
        a, b = xs
        return {"sum": a + b * scale, "n": n, "both": [a, b]}

    out = compile_function(f, None, [(F32_3, F32_3), 7, ScalarType(float32)], FakeResolver())
    assert [str(a.type) for a in out.function.args] == ["f32[3]", "f32[3]", "f32"]
    assert out.input_paths == ((0, 0), (0, 1), (2,))
    x, y = np.ones(3, np.float32), np.full(3, 2.0, np.float32)
    results = interpret(out.module, *out.flatten_args(((x, y), 7, 3.0)))
    value, mutated = out.split_results(results)
    assert mutated == [] and value["n"] == 7
    np.testing.assert_allclose(value["sum"], x + y * 3)
    assert isinstance(value["both"], list) and value["both"][1] is results[2]


def test_functional_ops_and_static_calls():
    def f(x):
        w = np.full((3,), np.sqrt(4.0), np.float32)   # numpy runs while compiling: a constant
        return F.maximum(x, 0.0) * w + int("2")

    out = check(f, [F32_3], """
func @f(%x: f32[3]) -> f32[3] {
  %0 = const() {value=[2.0,2.0,2.0]} : f32[3]
  %1 = maximum(%x, 0.0:f32) : f32[3]
  %2 = mul(%1, %0) : f32[3]
  %3 = add(%2, 2:i64) : f32[3]
  return %3
}
""")
    same_as_eager(out, f, np.array([-1, 0.5, 2], np.float32))


def test_parameters_become_param_arguments_in_order_of_first_use():
    w = Parameter(np.ones((3,), np.float32), "w")
    b = Parameter(np.zeros((3,), np.float32), "b")

    def f(x):
        y = x * b
        return y + w + b

    out = check(f, [F32_3], """
func @f(%x: f32[3], %b: f32[3] param, %w: f32[3] param) -> f32[3] {
  %y = mul(%x, %b) : f32[3]
  %0 = add(%y, %w) : f32[3]
  %1 = add(%0, %b) : f32[3]
  return %1
}
""")
    assert out.param_keys == (b, w) and out.mutated == ()


def test_captured_arrays_are_hoisted_constants_one_per_object():
    big = np.arange(32, dtype=np.float32).reshape(2, 16)
    small = np.array([1.0, 2.0, 3.0], np.float32)

    def f(x, y):
        if x.sum() > 0:
            y = y + small
        return y * small, big

    out = check(f, [F32_3, F32_3], """
func @f(%x: f32[3], %y: f32[3]) -> f32[3], f32[2,16] {
  %0 = const() {value=[1.0,2.0,3.0]} : f32[3]
  %1 = const() {ref="consts/0"} : f32[2,16]
  %2 = reduce_sum(%x) {axis=none, keep_dims=false} : f32[]
  %3 = greater(%2, 0:i64) : bool[]
  %y_1 = if(%3) : f32[3] {
    %y_2 = add(%y, %0) : f32[3]
    yield %y_2
  } else {
    yield %y
  }
  %4 = mul(%y_1, %0) : f32[3]
  return %4, %1
}
""")
    np.testing.assert_array_equal(out.module.consts["consts/0"], big)


@pytest.mark.parametrize("spec", [TensorType(int64, (3,)), TensorType(float32, ())])
def test_compiled_ir_is_verified_for_other_dtypes_and_ranks(spec):
    def f(x):
        return x * 2 + x

    out = compile_function(f, None, [spec], FakeResolver())
    assert out.function.result_types == (spec,)


def test_ops_namespace_is_traced_with_keywords():
    def f(x):
        return ops.reduce_sum(ops.relu(x), axis=1, keep_dims=True)

    check(f, [F32_23], """
func @f(%x: f32[2,3]) -> f32[2,1] {
  %0 = relu(%x) : f32[2,3]
  %1 = reduce_sum(%0) {axis=[1], keep_dims=true} : f32[2,1]
  return %1
}
""")


def test_keyword_argument_specs():
    def f(x, *, scale, bias=None):
        y = x * scale
        return y if bias is None else y + bias

    out = compile_function(f, None, [F32_3], FakeResolver(), kwarg_specs={"scale": 2.0,
                                                                           "bias": F32_3})
    assert out.input_paths == ((0,), ("bias",))
    assert [a.name_hint for a in out.function.args] == ["x", "bias"]
    x, b = np.ones(3, np.float32), np.arange(3, dtype=np.float32)
    got = interpret(out.module, *out.flatten_args((x,), {"scale": 2.0, "bias": b}))
    np.testing.assert_allclose(got, x * 2 + b)


def test_builtins_on_tensors_and_statics():
    def f(x, y):
        m = max(x.sum(), y.max(), 0.0)
        n = min((x.min(), y.min()))
        s = sum((x, y, m), 1.0)
        ok = hasattr(x, "sum") and not hasattr(x, "nope") and getattr(x, "ndim") == 1
        k, v = max(len(x), 2) + abs(-3) + 4, 4
        return abs(s - n) * k if ok and v == 4 else x, all((x.sum() > 0, y.sum() > 0))

    out = check(f, [F32_3, F32_3], """
func @f(%x: f32[3], %y: f32[3]) -> f32[3], bool[] {
  %0 = reduce_sum(%x) {axis=none, keep_dims=false} : f32[]
  %1 = reduce_max(%y) {axis=none, keep_dims=false} : f32[]
  %2 = maximum(%0, %1) : f32[]
  %m = maximum(%2, 0.0:f32) : f32[]
  %3 = reduce_min(%x) {axis=none, keep_dims=false} : f32[]
  %4 = reduce_min(%y) {axis=none, keep_dims=false} : f32[]
  %n = minimum(%3, %4) : f32[]
  %5 = add(1.0:f32, %x) : f32[3]
  %6 = add(%5, %y) : f32[3]
  %s = add(%6, %m) : f32[3]
  %7 = sub(%s, %n) : f32[3]
  %8 = abs(%7) : f32[3]
  %9 = mul(%8, 10:i64) : f32[3]
  %10 = reduce_sum(%x) {axis=none, keep_dims=false} : f32[]
  %11 = greater(%10, 0:i64) : bool[]
  %12 = reduce_sum(%y) {axis=none, keep_dims=false} : f32[]
  %13 = greater(%12, 0:i64) : bool[]
  %14 = logical_and(%11, %13) : bool[]
  return %9, %14
}
""")
    same_as_eager(out, f, RNG.standard_normal(3).astype(np.float32),
                  RNG.standard_normal(3).astype(np.float32))
    with pytest.raises(GraphTypeError, match="max\\(\\) of tensors with more than one element"):
        compile_function(lambda x: max(x, 0.0), None, [F32_3], FakeResolver())


def test_for_over_lists_dicts_and_a_list_built_in_the_loop():
    def f(x):
        outs = []
        for k in [1.0, 2.0]:
            outs.append(x * k)
        for name in {"a": 1, "b": 2}:
            outs.append(x + len(name))
        return outs

    out = check(f, [F32_3], """
func @f(%x: f32[3]) -> f32[3], f32[3], f32[3], f32[3] {
  %0 = mul(%x, 1.0:f32) : f32[3]
  %1 = mul(%x, 2.0:f32) : f32[3]
  %2 = add(%x, 1:i64) : f32[3]
  %3 = add(%x, 1:i64) : f32[3]
  return %0, %1, %2, %3
}
""")
    assert isinstance(out.output, OutSeq) and out.output.kind is list


def test_compiled_modules_print_and_parse_back_with_their_locations():
    from graphcell_ir.ir import assert_structurally_equal
    from graphcell_ir.text import parse_module, print_module

    def f(x, w):
        y = x
        while y.sum() < 10.0:
            y = y * 2.0 + w
        if y.max() > 8.0:
            return y, 1
        return -y, 2

    out = compile_function(f, None, [F32_3, F32_3], FakeResolver())
    text = print_module(out.module, locs="full")
    assert_structurally_equal(parse_module(text), out.module)
    assert print_module(parse_module(text), locs="full") == text
