"""The native step (``backend/step/emit.py``): a softmax-regression train step — GEMMs, fused
groups, softmax, sparse cross-entropy, one_hot, a mean, parameter assigns — runs as one native
call, with the results of the reference interpreter and of the generated Python runner, in fresh
arrays the next call never overwrites; arguments it was not compiled for, and bad labels, take
the runner's path (the interpreter's results and errors); lone ops with literal operands run
natively; an op with no native lowering runs in Python between native segments (buffers live
across the boundary); a function it cannot run keeps the Python runner and says why."""
from __future__ import annotations

import numpy as np
import pytest

from graphcell_ir.backend.executable import compile_executable
from graphcell_ir.backend.interp import interpret
from graphcell_ir.backend.lower import Unsupported
from graphcell_ir.backend.step.emit import HostOps, build
from graphcell_ir.errors import InterpError
from graphcell_ir.passes import run_pipeline
from graphcell_ir.text import parse_module, print_module

pytestmark = pytest.mark.skipif(
    not __import__("graphcell_ir.backend.codegen", fromlist=["available"]).available(),
    reason="this llvmlite cannot run the code generator")

STEP = """
func @step(%x: f32[8,16], %y: i32[8], %w: f32[10,16], %b: f32[10], %lr: f32[]) -> f32[], f32[10,16], f32[10], f32[8,10] {
  %h = matmul(%x, %w) {transpose_b=true} : f32[8,10]
  %z = add(%h, %b) : f32[8,10]
  %l = sparse_softmax_cross_entropy(%z, %y) : f32[8]
  %m = reduce_mean(%l) {axis=none, keep_dims=false} : f32[]
  %p = softmax(%z) {axis=[-1]} : f32[8,10]
  %o = one_hot(%y) {depth=10, on_value=1.0, off_value=0.0, axis=-1, dtype=f32} : f32[8,10]
  %d0 = sub(%p, %o) : f32[8,10]
  %d = div(%d0, 8.0:f32) : f32[8,10]
  %dw = matmul(%d, %x) {transpose_a=true} : f32[10,16]
  %db = reduce_sum(%d) {axis=[0], keep_dims=false} : f32[10]
  %sw = mul(%dw, %lr) : f32[10,16]
  %nw = sub(%w, %sw) : f32[10,16]
  %uw = assign(%w, %nw) : f32[10,16]
  %sb = mul(%db, %lr) : f32[10]
  %nb = sub(%b, %sb) : f32[10]
  %ub = assign(%b, %nb) : f32[10]
  %r = reshape(%p) {shape=[8,10]} : f32[8,10]
  return %m, %uw, %ub, %r
}
"""


def _module():
    module = parse_module(STEP)
    run_pipeline(module)
    return module


def _inputs(seed=0):
    rng = np.random.default_rng(seed)
    return [rng.standard_normal((8, 16)).astype(np.float32),
            (np.arange(8) % 10).astype(np.int32),
            (rng.standard_normal((10, 16)) * 0.1).astype(np.float32),
            np.zeros(10, np.float32), np.array(0.5, np.float32)]


def _exe(monkeypatch, native: bool):
    monkeypatch.setenv("GRAPHCELL_NATIVE_STEP", "1" if native else "0")
    module = _module()
    exe = compile_executable(module, "step")
    return module, exe


def test_the_train_step_runs_natively_with_the_interpreters_results(monkeypatch):
    module, exe = _exe(monkeypatch, True)
    assert getattr(exe.run, "step", None) is not None, exe.step_fallback
    assert exe.step_fallback is None
    _, runner = _exe(monkeypatch, False)
    assert getattr(runner.run, "step", None) is None
    args = _inputs()
    w_ref, b_ref = args[2], args[3]
    w, b = args[2], args[3]
    for _ in range(4):   # train: the new parameters go back in
        x, y, lr = args[0], args[1], args[4]
        got = exe([x, y, w, b, lr])
        expect = interpret(module["step"], x, y, w_ref, b_ref, lr)
        python = runner([x, y, w, b, lr])
        for g, e, p in zip(got, expect, python):
            np.testing.assert_allclose(g, e, rtol=1e-5, atol=1e-6)
            np.testing.assert_allclose(g, p, rtol=1e-6, atol=1e-7)
            assert g.dtype == e.dtype and g.shape == e.shape
        w, b = got[1], got[2]
        w_ref, b_ref = expect[1], expect[2]


def test_results_are_fresh_arrays_and_arguments_are_left_alone(monkeypatch):
    _, exe = _exe(monkeypatch, True)
    step = exe.run.step
    args = _inputs()
    before = [a.copy() for a in args]
    first = exe(args)
    kept = [r.copy() for r in first]
    second = exe(_inputs(seed=1))
    for a, b in zip(args, before):
        np.testing.assert_array_equal(a, b)
    for r, k in zip(first, kept):   # the second call wrote nothing the first returned
        np.testing.assert_array_equal(r, k)
    for r in first + second:
        assert not any(np.shares_memory(r, a) for a in step.keep if isinstance(a, np.ndarray))
    assert not np.shares_memory(first[1], second[1])


def test_arguments_it_was_not_compiled_for_take_the_runners_path(monkeypatch):
    module, exe = _exe(monkeypatch, True)
    args = _inputs()
    strided = np.asfortranarray(args[2])         # not C-ordered: the Python runner copies
    got = exe([args[0], args[1], strided, args[3], args[4]])
    expect = interpret(module["step"], *args)
    for g, e in zip(got, expect):
        np.testing.assert_allclose(g, e, rtol=1e-5, atol=1e-6)
    assert exe.run.step([args[0], args[1], strided, args[3], args[4]]) is None
    assert exe.run.step(args) is not None        # the arguments it was compiled for
    for k, other in [(0, args[0][:, :15]), (2, args[2][:9]), (1, args[1][:7]),
                     (3, args[3].reshape(1, 10)), (4, args[4].reshape(1))]:
        changed = list(args)                     # one dimension or the rank of one argument
        changed[k] = np.ascontiguousarray(other)
        assert exe.run.step(changed) is None, k
    wrong = [a.astype(np.float64) if a.dtype == np.float32 else a for a in args]
    assert exe.run.step(wrong) is None           # another dtype: the interpreter's error
    with pytest.raises(InterpError, match="argument 0 of @step should be f32"):
        exe(wrong)


def test_a_label_out_of_range_raises_the_references_error(monkeypatch):
    module, exe = _exe(monkeypatch, True)
    args = _inputs()
    args[1] = args[1].copy()
    args[1][3] = 10
    assert exe.run.step(args) is None
    with pytest.raises(Exception) as native:
        exe(args)
    with pytest.raises(Exception) as reference:
        interpret(module["step"], *args)
    assert type(native.value) is type(reference.value)
    assert str(native.value) == str(reference.value)


def test_a_function_with_control_flow_keeps_the_python_runner(monkeypatch):
    monkeypatch.setenv("GRAPHCELL_NATIVE_STEP", "1")
    module = parse_module("""
func @f(%p: bool[], %x: f32[3]) -> f32[3] {
  %y = if(%p) : (f32[3]) then {
    %a = neg(%x) : f32[3]
    yield %a
  } else {
    yield %x
  }
  return %y
}
""")
    exe = compile_executable(module, "f")
    assert getattr(exe.run, "step", None) is None
    assert exe.step_fallback.startswith("if has regions")
    x = np.arange(3, dtype=np.float32)
    np.testing.assert_array_equal(exe([np.array(True), x])[0], -x)


def test_an_assign_that_converts_keeps_the_python_runner(monkeypatch):
    monkeypatch.setenv("GRAPHCELL_NATIVE_STEP", "1")
    module = parse_module("""
func @f(%b: f32[3]) -> f32[3] {
  %v = const() {value=[7, 8, 9]} : i64[3]
  %u = assign(%b, %v) : f32[3]
  return %u
}
""")
    exe = compile_executable(module, "f")
    assert "conversion" in exe.step_fallback
    np.testing.assert_array_equal(exe([np.zeros(3, np.float32)])[0], [7.0, 8.0, 9.0])


def test_an_assign_of_a_value_others_hold_is_a_copy(monkeypatch):
    monkeypatch.setenv("GRAPHCELL_NATIVE_STEP", "1")
    module = parse_module("""
func @f(%b: f32[300], %x: f32[300]) -> f32[300], f32[300] {
  %v = exp(%x) : f32[300]
  %u = assign(%b, %v) : f32[300]
  %w = neg(%v) : f32[300]
  return %u, %w
}
""")
    exe = compile_executable(module, "f")
    assert exe.step_fallback is None
    x = np.linspace(-1, 1, 300, dtype=np.float32)
    u, w = exe([np.zeros(300, np.float32), x])
    np.testing.assert_allclose(u, np.exp(x), rtol=1e-6)
    np.testing.assert_allclose(w, -np.exp(x), rtol=1e-6)
    assert not np.shares_memory(u, w)


@pytest.mark.parametrize("ta,tb", [(False, False), (True, False), (False, True), (True, True)])
@pytest.mark.parametrize("m,n", [(100, 80), (80, 100)])   # blocks of rows, of columns
@pytest.mark.parametrize("count", [2, 3])   # GEMM_BLOCKS, and blocks of unequal sizes
def test_large_products_run_in_blocks_on_the_pool_with_numpys_results(monkeypatch, ta, tb,
                                                                      m, n, count):
    from graphcell_ir.backend import nnkernels
    from graphcell_ir.backend.step.emit import _gemm_blocks
    k = 96
    monkeypatch.setattr(nnkernels, "BLAS_WAKES", 1000)
    monkeypatch.setattr(nnkernels, "GEMM_UNIT", m * n * k // 8)   # MAX_BLOCKS (4) blocks' work
    monkeypatch.setattr(nnkernels, "GEMM_BLOCKS", count)
    assert _gemm_blocks(m, n, k) == (count, m >= n)
    xs, ys = ((k, m) if ta else (m, k)), ((n, k) if tb else (k, n))
    monkeypatch.setenv("GRAPHCELL_NATIVE_STEP", "1")
    module = parse_module(f"""
func @f(%x: f32[{xs[0]},{xs[1]}], %y: f32[{ys[0]},{ys[1]}]) -> f32[{m},{n}] {{
  %r = matmul(%x, %y) {{transpose_a={str(ta).lower()}, transpose_b={str(tb).lower()}}} : f32[{m},{n}]
  return %r
}}
""")
    exe = compile_executable(module, "f")
    assert exe.step_fallback is None
    rng = np.random.default_rng(3)
    x, y = rng.standard_normal(xs).astype(np.float32), rng.standard_normal(ys).astype(np.float32)
    expect = (x.T if ta else x) @ (y.T if tb else y)
    np.testing.assert_allclose(exe([x, y])[0], expect, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("src,dst", [("[]", "[6]"), ("[1,3]", "[4,3]"), ("[4,1]", "[2,4,5]"),
                                     ("[3]", "[3]")])
def test_broadcast_to_runs_natively_with_the_interpreters_results(monkeypatch, src, dst):
    monkeypatch.setenv("GRAPHCELL_NATIVE_STEP", "1")
    shape = [int(d) for d in dst.strip("[]").split(",")]
    module = parse_module(f"""
func @f(%x: f32{src}) -> f32{dst} {{
  %r = broadcast_to(%x) {{shape={shape}}} : f32{dst}
  return %r
}}
""")
    exe = compile_executable(module, "f")
    assert exe.step_fallback is None
    x = np.arange(np.prod([int(d) for d in src.strip("[]").split(",") if d]),
                  dtype=np.float32).reshape([int(d) for d in src.strip("[]").split(",") if d])
    np.testing.assert_array_equal(exe([x])[0], interpret(module["f"], x))   # its one result


@pytest.mark.parametrize("line,dtype", [
    ("%r = div(%x, 36:i64) : f32[5,7]", np.float32),      # the train step's mean's gradient
    ("%r = sub(1.5:f32, %x) : f32[5,7]", np.float32),
    ("%r = mul(%x, 0.1:f64) : f64[5,7]", np.float64),
    ("%r = maximum(%x, 0.25:f32) : f32[5,7]", np.float32),
    ("%r = pow(%x, 2:i64) : f32[5,7]", np.float32),
])
def test_a_lone_op_with_a_literal_operand_runs_natively(monkeypatch, line, dtype):
    monkeypatch.setenv("GRAPHCELL_NATIVE_STEP", "1")
    t = "f32" if dtype == np.float32 else "f64"
    module = parse_module(f"""
func @f(%x: {t}[5,7]) -> {t}[5,7] {{
  {line}
  return %r
}}
""")
    exe = compile_executable(module, "f")
    assert exe.step_fallback is None and not exe.run.step.host_ops
    x = np.random.default_rng(0).standard_normal((5, 7)).astype(dtype)
    (got,), expect = exe([x]), interpret(module["f"], x)
    assert got.dtype == expect.dtype
    np.testing.assert_allclose(got, expect, rtol=1e-6)
    monkeypatch.setenv("GRAPHCELL_NATIVE_STEP", "0")
    (python,) = compile_executable(parse_module(print_module(module)), "f")([x])
    np.testing.assert_array_equal(got, python)


def test_literal_values_of_a_select_take_the_result_dtype_not_the_conditions(monkeypatch):
    """``select(c, 1, 2)``: the literals are int64 values; cast to the condition's bool they
    were both True and every element came out 1."""
    monkeypatch.setenv("GRAPHCELL_NATIVE_STEP", "1")
    module = parse_module("""
func @f(%c: bool[3]) -> i64[3] {
  %r = select(%c, 1:i64, 2:i64) : i64[3]
  return %r
}
""")
    exe = compile_executable(module, "f")
    assert exe.step_fallback is None
    c = np.array([False, False, True])
    np.testing.assert_array_equal(exe([c])[0], [2, 2, 1])
    np.testing.assert_array_equal(exe([c])[0], interpret(module["f"], c))


SEGMENTS = """
func @f(%x: f32[6,5], %w: f32[5,4]) -> f32[6,4], f32[6,4], f32[6,4] {
  %h = matmul(%x, %w) : f32[6,4]
  %a = exp(%h) : f32[6,4]
  %c = cumsum(%a) {axis=1, exclusive=false, reverse=false} : f32[6,4]
  %s = mul(%c, %h) : f32[6,4]
  %t = add(%s, %a) : f32[6,4]
  %d = cumsum(%t) {axis=0, exclusive=false, reverse=true} : f32[6,4]
  %e = cumsum(%d) {axis=1, exclusive=true, reverse=false} : f32[6,4]
  %g = neg(%e) : f32[6,4]
  %r = reshape(%c) {shape=[6,4]} : f32[6,4]
  return %g, %r, %t
}
"""
"""cumsum (no native lowering) between native ops: %h and %a live across the first boundary,
%c (a host result) is read natively, and returned through a view; two host ops in a row."""


def _segments_inputs(seed=0):
    rng = np.random.default_rng(seed)
    return [rng.standard_normal((6, 5)).astype(np.float32) * 0.3,
            rng.standard_normal((5, 4)).astype(np.float32) * 0.3]


def test_an_op_the_step_cannot_lower_runs_in_python_between_native_segments(monkeypatch):
    monkeypatch.setenv("GRAPHCELL_NATIVE_STEP", "1")
    module = parse_module(SEGMENTS)
    exe = compile_executable(module, "f")
    assert exe.step_fallback is None
    step = exe.run.step
    assert step.host_ops == ("cumsum", "cumsum", "cumsum")
    assert len(step.parts) == 5   # segment, cumsum, segment, 2 cumsums, segment
    monkeypatch.setenv("GRAPHCELL_NATIVE_STEP", "0")
    runner = compile_executable(parse_module(SEGMENTS), "f")
    for seed in range(3):   # the arena is reused: each call's results are its own
        args = _segments_inputs(seed)
        got = step(args)
        assert got is not None
        expect, python = interpret(module["f"], *args), runner(args)
        for g, e, p in zip(got, expect, python):
            assert g.dtype == e.dtype and g.shape == e.shape
            np.testing.assert_allclose(g, e, rtol=1e-5, atol=1e-6)
            np.testing.assert_allclose(g, p, rtol=1e-6, atol=1e-6)   # kernels vs numpy: ulps
    first = exe(_segments_inputs(0))
    kept = [r.copy() for r in first]
    exe(_segments_inputs(1))
    for r, k in zip(first, kept):
        np.testing.assert_array_equal(r, k)


def test_a_function_starting_and_ending_with_host_ops(monkeypatch):
    monkeypatch.setenv("GRAPHCELL_NATIVE_STEP", "1")
    module = parse_module("""
func @f(%x: f32[3,4]) -> f32[3,4] {
  %c = cumsum(%x) {axis=1, exclusive=false, reverse=false} : f32[3,4]
  %e = exp(%c) : f32[3,4]
  %d = cumsum(%e) {axis=0, exclusive=false, reverse=false} : f32[3,4]
  return %d
}
""")
    exe = compile_executable(module, "f")
    assert exe.step_fallback is None and exe.run.step.host_ops == ("cumsum", "cumsum")
    x = np.linspace(-1, 1, 12, dtype=np.float32).reshape(3, 4)
    np.testing.assert_allclose(exe([x])[0], interpret(module["f"], x), rtol=1e-6)
    # the first segment still checks the arguments before any host op runs
    assert exe.run.step([x.astype(np.float64)]) is None
    assert exe.run.step([np.ones((4, 3), np.float32).T]) is None   # not C-ordered


def test_a_host_op_that_raises_takes_the_runners_path_and_its_error(monkeypatch):
    monkeypatch.setenv("GRAPHCELL_NATIVE_STEP", "1")
    module = parse_module(SEGMENTS)
    exe = compile_executable(module, "f")
    args = _segments_inputs()
    calls = []

    def failing(*a):
        calls.append(1)
        raise ValueError("cumsum failed here")
    host_ops = next(p for p in exe.run.step.parts if isinstance(p, HostOps))
    fn, getters, setters = host_ops.ops[0]
    host_ops.ops[0] = (failing, getters, setters)
    assert exe.run.step(args) is None and calls
    np.testing.assert_allclose(exe(args)[0], interpret(module["f"], *args)[0], rtol=1e-5,
                               atol=1e-6)   # the runner ran the call


def test_a_function_of_host_ops_only_keeps_the_python_runner(monkeypatch):
    monkeypatch.setenv("GRAPHCELL_NATIVE_STEP", "1")
    module = parse_module("""
func @f(%x: f32[3,4]) -> f32[3,4] {
  %c = cumsum(%x) {axis=1, exclusive=false, reverse=false} : f32[3,4]
  return %c
}
""")
    exe = compile_executable(module, "f")
    assert exe.step_fallback == "no op would run natively"   # the scan: nothing compiled
    with pytest.raises(Unsupported, match="no op runs natively .*cumsum has no native lowering"):
        build(module["f"], host=lambda op: None)


BROADCAST_READ_BY_KERNELS = """
func @f(%n: f32[4,1], %y: f32[4,6]) -> f32[4,6], f32[4] {
  %x = neg(%n) : f32[4,1]
  %b = broadcast_to(%x) {shape=[4,6]} : f32[4,6]
  %r = fused(%b, %y) : f32[4,6] body(%p: f32[4,6], %q: f32[4,6]) {
    %m = mul(%p, %q) : f32[4,6]
    yield %m
  }
  %z = exp(%y) : f32[4,6]
  %s = fused(%z, %b) : f32[4] body(%u: f32[4,6], %v: f32[4,6]) {
    %a = add(%u, %v) : f32[4,6]
    %t = reduce_sum(%a) {axis=[1], keep_dims=false} : f32[4]
    yield %t
  }
  return %r, %s
}
"""
"""A broadcast_to read only by fused groups: never materialised, its operand (whose buffer must
outlive %z's) read by index by both kernels."""


@pytest.mark.parametrize("by_index", [True, False])
def test_a_broadcast_read_by_kernels_is_never_materialised(monkeypatch, by_index):
    from graphcell_ir.backend.step import emit
    monkeypatch.setenv("GRAPHCELL_NATIVE_STEP", "1")
    real = emit.lower_fused
    if not by_index:   # a group that cannot read it by index gets it materialised first
        def refusing(op, shapes=None, **options):
            if shapes:
                raise emit.Unsupported("no broadcasting by index here")
            return real(op, **options)
        monkeypatch.setattr(emit, "lower_fused", refusing)
    module = parse_module(BROADCAST_READ_BY_KERNELS)
    step = emit.build(module["f"])
    b = next(op.results[0] for op in module["f"].body if op.opdef.name == "broadcast_to")
    x = np.arange(4, dtype=np.float32).reshape(4, 1)
    y = np.linspace(-1, 1, 24, dtype=np.float32).reshape(4, 6)
    got, expect = step([x, y]), interpret(module["f"], x, y)
    plan = emit.plan_function(module["f"], views=emit._view_of)
    assert plan.shares(b, b.op.operands[0])   # no buffer of its own
    z = next(op.results[0] for op in module["f"].body if op.opdef.name == "exp")
    assert plan.offset[b] != plan.offset[z]   # %x's buffer lives until %s read it
    for g, e in zip(got, expect):
        np.testing.assert_allclose(g, e, rtol=1e-6)


def test_a_host_result_viewing_the_arena_is_copied(monkeypatch):
    """squeeze's reference gives a view of its operand: the operand's arena bytes are reused
    for %b once it is dead, so the step keeps a copy of the view instead."""
    monkeypatch.setenv("GRAPHCELL_NATIVE_STEP", "1")
    module = parse_module("""
func @f(%x: f32[4,5,1], %y: f32[4,5]) -> f32[4,5] {
  %a = exp(%x) : f32[4,5,1]
  %g = squeeze(%a) {axis=[2]} : f32[4,5]
  %b = neg(%y) : f32[4,5]
  %r = add(%g, %b) : f32[4,5]
  return %r
}
""")
    exe = compile_executable(module, "f")
    assert exe.step_fallback is None and exe.run.step.host_ops == ("squeeze",)
    from graphcell_ir.backend.step.emit import _view_of
    from graphcell_ir.backend.step.plan import plan_function
    values = {op.opdef.name: op.results[0] for op in module["f"].body if op.results}
    offsets = plan_function(module["f"], views=_view_of).offset
    assert offsets[values["exp"]] == offsets[values["neg"]], offsets   # what makes it unsafe
    x = np.linspace(-1, 1, 20, dtype=np.float32).reshape(4, 5, 1)
    y = np.linspace(0, 1, 20, dtype=np.float32).reshape(4, 5)
    (got,) = exe.run.step([x, y])
    np.testing.assert_allclose(got, interpret(module["f"], x, y), rtol=1e-6)


@pytest.mark.parametrize("shape,perm,dtype", [
    ((8, 6, 5), [1, 0, 2], "f32"), ((4, 3, 5, 6), [2, 0, 1, 3], "f32"),
    ((4, 3, 5, 6), [1, 2, 0, 3], "f64"), ((7, 9), [1, 0], "i32"), ((3, 4, 5), [2, 1, 0], "f32"),
    ((3, 4), [0, 1], "f32"), ((2, 3, 4), [-1, 0, 1], "f32"),
])
def test_transpose_runs_natively_with_the_interpreters_results(monkeypatch, shape, perm, dtype):
    monkeypatch.setenv("GRAPHCELL_NATIVE_STEP", "1")
    out = [shape[p] for p in perm]
    t = lambda s: f"{dtype}[{','.join(map(str, s))}]"  # noqa: E731
    module = parse_module(f"""
func @f(%x: {t(shape)}) -> {t(out)} {{
  %y = neg(%x) : {t(shape)}
  %r = transpose(%y) {{perm={perm}}} : {t(out)}
  %s = neg(%r) : {t(out)}
  return %s
}}
""")
    exe = compile_executable(module, "f")
    assert exe.step_fallback is None and not exe.run.step.host_ops
    np_dtype = {"f32": np.float32, "f64": np.float64, "i32": np.int32}[dtype]
    x = (np.random.default_rng(1).standard_normal(shape) * 10).astype(np_dtype)
    (got,) = exe.run.step([x])
    np.testing.assert_array_equal(got, interpret(module["f"], x))
    np.testing.assert_array_equal(got, x.transpose(perm))


@pytest.mark.parametrize("ta,tb", [(False, False), (True, False), (False, True), (True, True)])
@pytest.mark.parametrize("batch", [(3,), (2, 4), (64,)])   # (64,): the stack on the pool
def test_stacks_of_products_run_natively_with_numpys_results(monkeypatch, ta, tb, batch):
    monkeypatch.setenv("GRAPHCELL_NATIVE_STEP", "1")
    m, n, k = (24, 20, 18) if batch != (64,) else (40, 36, 32)
    xs, ys = batch + ((k, m) if ta else (m, k)), batch + ((n, k) if tb else (k, n))
    t = lambda s: f"f32[{','.join(map(str, s))}]"  # noqa: E731
    module = parse_module(f"""
func @f(%x: {t(xs)}, %y: {t(ys)}) -> {t(batch + (m, n))} {{
  %r = matmul(%x, %y) {{transpose_a={str(ta).lower()}, transpose_b={str(tb).lower()}}} : {t(batch + (m, n))}
  return %r
}}
""")
    exe = compile_executable(module, "f")
    assert exe.step_fallback is None and not exe.run.step.host_ops
    rng = np.random.default_rng(4)
    x, y = rng.standard_normal(xs).astype(np.float32), rng.standard_normal(ys).astype(np.float32)
    expect = np.matmul(np.swapaxes(x, -1, -2) if ta else x, np.swapaxes(y, -1, -2) if tb else y)
    (got,) = exe.run.step([x, y])
    np.testing.assert_allclose(got, expect, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(got, interpret(module["f"], x, y), rtol=1e-5, atol=1e-5)


DROPOUT_THEN_LABELS = """
func @f(%x: f32[8,10], %y: i32[8]) -> f32[8], f32[8,10] {
  %d, %mask = dropout(%x) {keep_prob=0.5, seed0=0, seed1=0} : (f32[8,10], f32[8,10])
  %e = exp(%d) : f32[8,10]
  %l = sparse_softmax_cross_entropy(%e, %y) : f32[8]
  return %l, %mask
}
"""
"""A random op runs in Python between segments; a label out of range is found after it drew."""


def test_a_random_op_runs_in_python_and_a_declined_call_draws_once(monkeypatch):
    from graphcell_ir.ops import random as op_random
    x = np.linspace(-1, 1, 80, dtype=np.float32).reshape(8, 10)
    y = (np.arange(8) % 10).astype(np.int32)
    bad = y.copy()
    bad[2] = 12

    def run(native: bool):
        monkeypatch.setenv("GRAPHCELL_NATIVE_STEP", "1" if native else "0")
        exe = compile_executable(parse_module(DROPOUT_THEN_LABELS), "f")
        assert (getattr(exe.run, "step", None) is not None) == native, exe.step_fallback
        op_random.seed(7)
        good = exe([x, y])
        with pytest.raises(Exception) as error:
            exe([x, bad])
        return good, error.value, op_random.generator().bit_generator.state
    native, runner = run(True), run(False)
    for g, r in zip(native[0], runner[0]):   # the same draws: the same mask
        np.testing.assert_allclose(g, r, rtol=1e-6)
    assert type(native[1]) is type(runner[1]) and str(native[1]) == str(runner[1])
    assert native[2] == runner[2]   # the declined call advanced the generator once


@pytest.mark.parametrize("shape,dtype", [((8, 5, 6, 7), "f32"), ((4, 3, 9), "f64"),
                                         ((16, 6), "f32"), ((64, 16, 32, 32), "f32")])
def test_training_batch_norm_runs_natively_with_the_runners_bits(monkeypatch, shape, dtype):
    """(64, 16, 32, 32): blocks of channels and of samples on the pool."""
    c = shape[1]
    t = lambda s: f"{dtype}[{','.join(map(str, s))}]"  # noqa: E731
    text = f"""
func @f(%x: {t(shape)}, %g: {t((c,))}, %b: {t((c,))}, %m: {t((c,))}, %v: {t((c,))}) -> {t(shape)}, {t((c,))}, {t((c,))} {{
  %x2 = mul(%x, 2.0:{dtype}) : {t(shape)}
  %y, %nm, %nv = batch_norm(%x2, %g, %b, %m, %v) {{is_training=true, epsilon=0.001, momentum=0.1, data_format="NCHW"}} : ({t(shape)}, {t((c,))}, {t((c,))})
  %r = neg(%y) : {t(shape)}
  return %r, %nm, %nv
}}
"""
    np_dtype = {"f32": np.float32, "f64": np.float64}[dtype]
    rng = np.random.default_rng(2)
    args = [(rng.standard_normal(shape) * 3 + 1).astype(np_dtype)] + \
        [rng.random(c).astype(np_dtype) + 0.5 for _ in range(4)]
    monkeypatch.setenv("GRAPHCELL_NATIVE_STEP", "1")
    module = parse_module(text)
    exe = compile_executable(module, "f")
    assert exe.step_fallback is None and not exe.run.step.host_ops
    got = exe.run.step(args)
    monkeypatch.setenv("GRAPHCELL_NATIVE_STEP", "0")
    python = compile_executable(parse_module(text), "f")(args)
    for g, p, e in zip(got, python, interpret(module["f"], *args)):
        np.testing.assert_array_equal(g, p)   # nnkernels' loops, in their order
        np.testing.assert_allclose(g, e, rtol=1e-5, atol=1e-6)


def _count_runners(monkeypatch) -> list:
    """Counts the Python runners generated from now on (one ``_Gen`` each)."""
    from graphcell_ir.backend import executable
    made = []

    class Counted(executable._Gen):
        def __init__(self, *args, **kwargs):
            made.append(args[0].name)
            super().__init__(*args, **kwargs)
    monkeypatch.setattr(executable, "_Gen", Counted)
    return made


def test_the_python_runner_is_made_only_when_a_declined_call_needs_it(monkeypatch):
    made = _count_runners(monkeypatch)
    module, exe = _exe(monkeypatch, True)
    args = _inputs()
    exe(args)
    assert made == []                              # the step ran it: no runner was generated
    strided = np.asfortranarray(args[2])           # declined by the step
    for _ in range(2):
        got = exe([args[0], args[1], strided, args[3], args[4]])
        for g, e in zip(got, interpret(module["step"], *args)):
            np.testing.assert_allclose(g, e, rtol=1e-5, atol=1e-6)
    assert made == ["step"]                        # made once, then kept
    assert len(exe.kernels) > 0 and "def run(args)" in exe.source


def test_a_profiled_run_makes_the_runner_and_times_its_kernels(monkeypatch):
    from graphcell_ir.backend import profile
    made = _count_runners(monkeypatch)
    module, exe = _exe(monkeypatch, True)
    args = _inputs()
    with profile.recording() as rec:
        got = exe(args)
    assert made == ["step"]
    assert any(e.site.kind == "kernel" for e in rec.events)
    for g, e in zip(got, interpret(module["step"], *args)):
        np.testing.assert_allclose(g, e, rtol=1e-5, atol=1e-6)


def test_a_function_without_a_step_makes_its_runner_when_compiled(monkeypatch):
    made = _count_runners(monkeypatch)
    _exe(monkeypatch, False)
    assert made == ["step"]


TWO_COUNTS = """
func @f(%a: f32[2,3,4,4], %s: f32[1,3,1,1], %b: f32[2,5,2,2], %t: f32[1,5,1,1]) -> f32[2,3,4,4], f32[2,5,2,2], f32[2,3,4,4] {
  %0 = div(%s, 32.0:f32) : f32[1,3,1,1]
  %1 = sub(%a, %0) : f32[2,3,4,4]
  %2 = div(%t, 8.0:f32) : f32[1,5,1,1]
  %3 = sub(%b, %2) : f32[2,5,2,2]
  %4 = div(%a, 3.0:f32) : f32[2,3,4,4]
  return %1, %3, %4
}
"""


def test_kernels_differing_only_in_a_literal_share_one_kernel(monkeypatch):
    """A batch-norm gradient's count (32 in one stage, 8 in the next) is a one-element operand
    of the step's kernel, not a constant of its source: one kernel for both, each call with its
    own count — the interpreter's bits (a division rounds the same whatever the divisor's
    origin); a lone op's literal (3.0) too."""
    from graphcell_ir.backend.step import code
    keys = []
    kernel = code.ProcessCode.kernel

    def recorded(self, ks, optimize=True):
        keys.append(ks.key)
        return kernel(self, ks, optimize)
    monkeypatch.setattr(code.ProcessCode, "kernel", recorded)
    monkeypatch.setenv("GRAPHCELL_NATIVE_STEP", "1")
    module = parse_module(TWO_COUNTS)
    run_pipeline(module)
    exe = compile_executable(module, "f")
    assert exe.step_fallback is None
    assert len(keys) == 3 and keys[0] == keys[1] != keys[2]
    rng = np.random.default_rng(5)
    args = [rng.standard_normal(s).astype(np.float32)
            for s in [(2, 3, 4, 4), (1, 3, 1, 1), (2, 5, 2, 2), (1, 5, 1, 1)]]
    for got, want in zip(exe(args), interpret(module["f"], *args)):
        np.testing.assert_array_equal(got, want)


def test_a_literal_operand_is_a_one_element_constant_array_of_the_kernel():
    from graphcell_ir.backend.lower import lower_fused
    module = parse_module(TWO_COUNTS)
    run_pipeline(module)
    group = next(op for op in module["f"].body if op.opdef.name == "fused")
    assert "float32(32" in lower_fused(group).source            # the runner's: in the source
    ks = lower_fused(group, literal_operands=True)
    rank = len(next(s for s in ks.in_shapes if s is not None))   # the kernel's loops
    zeros = ", ".join(["0"] * rank)
    assert "float32(32" not in ks.source and f"k0 = lit0[{zeros}]" in ks.source
    (c,) = ks.consts
    assert c.dtype == np.float32 and c.shape == (1,) * rank and c.item() == 32.0


SMALL = """
func @f(%a: f32[8,12], %b: f32[12], %c: f64[4,8], %big: f32[40,40], %d: f64[4,100]) -> f32[8,12], f32[12], f64[4], f64[4,8], f32[40,40] {
  %e = add(%a, %b) : f32[8,12]
  %t = tanh(%e) : f32[8,12]
  %s = mul(%t, %e) : f32[8,12]
  %cols = reduce_sum(%s) {axis=[0], keep_dims=false} : f32[12]
  %rows = reduce_sum(%d) {axis=[1], keep_dims=false} : f64[4]
  %x = exp(%c) : f64[4,8]
  %y = sqrt(%x) : f64[4,8]
  %z = div(%y, 3.0:f64) : f64[4,8]
  %g = mul(%big, 0.5:f32) : f32[40,40]
  return %s, %cols, %rows, %z, %g
}
"""


def test_small_calls_take_unoptimised_kernels_with_the_optimised_bits(monkeypatch, tmp_path):
    """A kernel call of at most ``SMALL_KERNEL`` element-ops takes the kernel compiled without
    LLVM's optimisation (a cold compile's cost of a small kernel ~1 ms instead of ~10) — but
    not a float reduction along the innermost loop (summed in vector lanes when optimised); its
    results are the bits of the step with every kernel optimised (LLVM's passes keep IEEE
    results), and the interpreter's values."""
    from graphcell_ir.backend import objects
    from graphcell_ir.backend.step import code, emit
    monkeypatch.setenv("GRAPHCELL_CACHE_DIR", str(tmp_path))   # no optimised object to reuse
    asked, made = [], []
    kernel, emit_kernel = code.ProcessCode.kernel, objects.emit_kernel

    def recorded(self, ks, optimize=True):
        asked.append(("/".join(ks.ops), optimize))
        return kernel(self, ks, optimize)

    def emitted(ks, *args, **kwargs):
        obj = emit_kernel(ks, *args, **kwargs)
        made.append(obj.key == objects.unoptimized_key(ks.key))
        return obj
    monkeypatch.setattr(code.ProcessCode, "kernel", recorded)
    monkeypatch.setattr(objects, "emit_kernel", emitted)
    rng = np.random.default_rng(3)
    args = [rng.standard_normal(s).astype(d) for s, d in
            [((8, 12), np.float32), ((12,), np.float32), ((4, 8), np.float64),
             ((40, 40), np.float32), ((4, 100), np.float64)]]

    def run(native: bool, small: int = emit.SMALL_KERNEL):
        monkeypatch.setenv("GRAPHCELL_NATIVE_STEP", "1" if native else "0")
        monkeypatch.setattr(emit, "SMALL_KERNEL", small)
        module = parse_module(SMALL)
        run_pipeline(module)
        exe = compile_executable(module, "f")
        assert (getattr(exe.run, "step", None) is not None) == native, exe.step_fallback
        return exe(args), module
    got, module = run(True)
    assert sorted(asked) == [("add/tanh/mul/reduce_sum", False),   # columns: inner axis kept
                             ("exp/sqrt/div", False),
                             ("mul", True),                         # 1600 elements
                             ("reduce_sum", True)]                  # rows: inner axis reduced
    assert emit.SMALL_KERNEL >= 4 * 100   # (the rows' 400 elements: for the reduction alone)
    assert made == [not optimize for _, optimize in asked]   # the unoptimised objects ran
    asked.clear()
    optimised, _ = run(True, small=0)
    assert all(optimize for _, optimize in asked), asked
    expect = interpret(module["f"], *args)
    for g, o, e in zip(got, optimised, expect):
        assert g.dtype == e.dtype and g.shape == e.shape
        np.testing.assert_array_equal(g.view(np.uint8), o.view(np.uint8))
        np.testing.assert_allclose(g, e, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("op,shape,axis,keep", [
    ("reduce_sum", (8, 64, 4, 4), (0, 2, 3), True),     # batch norm's gamma gradient (ResNet-18)
    ("reduce_sum", (8, 64, 4, 4), (0, 2, 3), False),
    ("reduce_sum", (3, 5), (1,), False),                 # below the runner's LONE_MIN_SIZE
    ("reduce_mean", (16, 300), (0,), False)])
def test_a_lone_reduction_gives_the_runners_bits(monkeypatch, op, shape, axis, keep):
    """A reduction no fused group took runs as the same one-op kernel in the step and in the
    runner (numpy's float32 ``sum`` adds in another order: ResNet-18's step and runner differed
    in the last bits through such a ``reduce_sum``)."""
    out = tuple(1 if a in axis else n for a, n in enumerate(shape)) if keep else \
        tuple(n for a, n in enumerate(shape) if a not in axis)
    t = lambda s: f"f32[{','.join(map(str, s))}]"  # noqa: E731
    text = f"""
func @f(%x: {t(shape)}) -> {t(out)} {{
  %x2 = mul(%x, 2.0:f32) : {t(shape)}
  %s = {op}(%x2) {{axis=[{','.join(map(str, axis))}], keep_dims={str(keep).lower()}}} : {t(out)}
  return %s
}}
"""
    x = np.random.default_rng(0).standard_normal(shape).astype(np.float32)
    monkeypatch.setenv("GRAPHCELL_NATIVE_STEP", "1")
    module = parse_module(text)
    exe = compile_executable(module, "f")
    assert exe.step_fallback is None and not exe.run.step.host_ops
    (got,) = exe.run.step([x])
    monkeypatch.setenv("GRAPHCELL_NATIVE_STEP", "0")
    (python,) = compile_executable(parse_module(text), "f")([x])
    np.testing.assert_array_equal(got, python)
    expected = interpret(module["f"], x)   # one result: the array itself
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("op", ["exp", "tanh", "log1p", "sin", "add"])
def test_the_runner_of_a_function_with_a_step_gives_the_steps_bits(monkeypatch, op):
    # the step calls libm's exp, tanh...; numpy's SIMD versions round some results otherwise,
    # so a call the step declines (or a profiled run) would change the last bits
    monkeypatch.setenv("GRAPHCELL_NATIVE_STEP", "1")
    operands = "%x, %x" if op == "add" else "%x"
    exe = compile_executable(parse_module(f"""
func @f(%x: f32[64,100]) -> f32[64,100] {{
  %r = {op}({operands}) : f32[64,100]
  return %r
}}
"""), "f")
    assert exe.step_fallback is None
    x = np.random.default_rng(0).uniform(0.1, 3.0, (64, 100)).astype(np.float32)
    (native,), (python,) = exe([x]), exe.runner.run([x])
    np.testing.assert_array_equal(native, python)


@pytest.mark.parametrize("shape", [(4, 10), (4, 64), (64, 64), (8, 300), (2048, 64)])
def test_the_softmax_family_takes_the_runners_loops_or_its_references(monkeypatch, shape):
    """Rows the runner gives numpy's ``exp`` (``nnkernels.loop_rows``: long rows, large inputs)
    run as host ops in the step, the others on the loops; float32 softmax rows the loops leave
    on ``softmax_rows_f32``, its rows shared out on the pool (``nnkernels.fast_exp_rows``): the
    runner's bits either way."""
    from graphcell_ir.backend import nnkernels
    monkeypatch.setenv("GRAPHCELL_NATIVE_STEP", "1")
    r, k = shape
    text = f"""
func @f(%x: f32[{r},{k}], %y: i32[{r}]) -> f32[{r},{k}], f32[{r}] {{
  %s = softmax(%x) {{axis=[-1]}} : f32[{r},{k}]
  %d = mul(%s, 2.0:f32) : f32[{r},{k}]
  %l = sparse_softmax_cross_entropy(%x, %y) : f32[{r}]
  return %d, %l
}}
"""
    exe = compile_executable(parse_module(text), "f")
    assert exe.step_fallback is None
    loops = nnkernels.loop_rows(shape, np.float32)
    assert nnkernels.fast_exp_rows(shape, np.float32) == (not loops)
    assert list(exe.run.step.host_ops) == ([] if loops else ["sparse_softmax_cross_entropy"])
    rng = np.random.default_rng(8)
    x = (rng.standard_normal(shape) * 4).astype(np.float32)
    y = (np.arange(r) % k).astype(np.int32)
    got = exe.run.step([x, y])
    monkeypatch.setenv("GRAPHCELL_NATIVE_STEP", "0")
    for g, p in zip(got, compile_executable(parse_module(text), "f")([x, y])):
        np.testing.assert_array_equal(g, p)
