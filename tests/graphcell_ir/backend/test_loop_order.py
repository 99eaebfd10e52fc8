"""Fused kernels' loop order by memory layout (``lower.loop_nest``), their tiles of a parallel
kept axis, against the reference interpreter: kept-last and reduced-last reductions, mixed
axes, keep-dims, non-contiguous operands, float16/float64 and integer sums; the same bits on one
thread as on two."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from graphcell_ir.backend import codegen, lower
from graphcell_ir.backend.executable import compile_executable
from graphcell_ir.backend.interp import interpret
from graphcell_ir.backend.lower import LoopNest, loop_nest
from graphcell_ir.backend.native import abi
from graphcell_ir.backend.native import pool as P
from graphcell_ir.text import parse_module


@pytest.fixture
def small_parallel(monkeypatch, every_call_parallel):
    """Every kernel parallel, tiles of 3 contiguous elements, and the pool splitting every call
    (small shapes then take the parallel, tiled route)."""
    monkeypatch.setattr(lower, "TILE", 3)
    return every_call_parallel


# --- the order itself ----------------------------------------------------------------------------

@pytest.mark.parametrize("dom, reduced, want", [
    ((128, 1024), [{0}], LoopNest((0, 1), 1, True)),               # bias gradient
    ((64, 8, 768), [{0, 1}], LoopNest((0, 1, 2), 2, True)),        # the Transformer's
    ((32, 32, 32, 32), [{0, 2, 3}], LoopNest((0, 1, 2, 3), 1, True)),   # batch norm, NCHW
    ((8, 64, 256), [{2}], LoopNest((0, 1, 2), 0, False)),         # LayerNorm's rows
    ((1, 64, 256), [{2}], LoopNest((0, 1, 2), 1, False)),         # ...a first axis of 1
    ((1048576,), [{0}], LoopNest((0,), 0, True, True)),           # whole: partials per tile
    ((1, 6, 5), [{0, 1, 2}], LoopNest((0, 1, 2), 1, True, True)),  # ...of the first axis > 1
    ((4, 5), [{0}, {1}], LoopNest((0, 1))),                       # no axis both keep
    ((4, 5), [{0}, {0, 1}], LoopNest((0, 1), 0, True, True)),     # both reduce 0
    ((6, 7), [], LoopNest((0, 1), 0, False)),                     # elementwise, broadcast
])
def test_loop_nest_runs_in_memory_order_and_splits_a_kept_axis(dom, reduced, want):
    assert loop_nest(dom, reduced) == want


@settings(max_examples=60)
@given(st.lists(st.integers(1, 9), min_size=1, max_size=5).flatmap(
    lambda dom: st.tuples(st.just(tuple(dom)),
                          st.lists(st.sets(st.integers(0, len(dom) - 1)), max_size=2))))
def test_loop_nest_properties(case):
    """Memory order always; the parallel axis is kept by every reduction and longer than 1,
    tiled exactly when an axis before it is longer than 1; else, with partials, the first axis
    longer than 1, reduced by every reduction."""
    dom, reduced = case
    nest = loop_nest(dom, reduced)
    assert nest.order == tuple(range(len(dom)))
    long = [k for k in range(len(dom)) if dom[k] > 1]
    if nest.parallel is None:
        assert all(any(k in r for r in reduced) for k in long)
        assert not (reduced and long and all(long[0] in r for r in reduced))
    elif nest.partial:
        assert nest.tiled and nest.parallel == long[0] and reduced
        assert all(nest.parallel in r for r in reduced)
        assert all(any(k in r for r in reduced) for k in long)
    else:
        assert dom[nest.parallel] > 1 and not any(nest.parallel in r for r in reduced)
        assert nest.tiled == any(dom[k] > 1 for k in range(nest.parallel))


# --- against the interpreter ----------------------------------------------------------------------

def _type(dtype: str, shape) -> str:
    return f"{dtype}[{','.join(map(str, shape))}]"


def reduction_module(shape, axes, keep: bool, dtype="f32", acc_dtype=None,
                     op="reduce_sum") -> str:
    """A fused group ``x * y`` (yielded) and ``op`` of it over ``axes``."""
    kept = [1 if k in axes else s for k, s in enumerate(shape)] if keep else \
        [s for k, s in enumerate(shape) if k not in axes]
    t, rt = _type(dtype, shape), _type(acc_dtype or dtype, kept)
    return (f"func @f(%x: {t}, %y: {t}) -> {t}, {rt} {{\n"
            f"  %0, %1 = fused(%x, %y) : ({t}, {rt}) body(%a: {t}, %b: {t}) {{\n"
            f"    %2 = mul(%a, %b) : {t}\n"
            f"    %3 = {op}(%2) {{axis=[{','.join(map(str, axes))}], "
            f"keep_dims={str(keep).lower()}}} : {rt}\n"
            f"    yield %2, %3\n  }}\n  return %0, %1\n}}\n")


NP = {"f32": np.float32, "f64": np.float64, "f16": np.float16, "i32": np.int32}


def _inputs(shape, dtype: str, seed: int):
    rng = np.random.default_rng(seed)
    if dtype == "i32":
        return [rng.integers(-50, 50, shape).astype(np.int32) for _ in range(2)]
    return [rng.standard_normal(shape).astype(NP[dtype]) for _ in range(2)]


def check(text: str, args, rtol=2e-6, atol=1e-5):
    module = parse_module(text)
    exe = compile_executable(module, "f", jit=True, kernel_min_size=0)
    got = exe(list(args))
    want = interpret(module, *args)
    for g, w in zip(got, want):
        g = np.asarray(g)
        assert g.dtype == w.dtype and g.shape == w.shape
        np.testing.assert_allclose(g, w, rtol=rtol, atol=atol)
    return exe, got


CASES = [
    ((128, 1024), (0,), False),          # kept last: a bias gradient
    ((64, 256), (1,), False),            # reduced last: a row sum
    ((8, 6, 10), (0, 2), False),         # mixed: the kept axis between reduced ones
    ((4, 6, 5, 7), (0, 2, 3), True),     # NCHW -> C, keep-dims
    ((16, 4, 24), (0, 1), True),         # the Transformer's, keep-dims
    ((9, 11), (0, 1), False),            # a full reduction
]


def test_neighbour_axes_with_one_role_are_one_loop():
    """Batch-norm's statistics over (N, C, H, W): H and W are one loop of H*W (one combine of
    the vector lanes per channel plane, not per image row); axes split by a broadcast operand
    or by a reduction that reduces one of them stay apart."""
    assert lower.merged_axes((32, 16, 8, 8), [(32, 16, 8, 8), (1, 16, 1, 1)], [{0, 2, 3}]) == \
        [(0,), (1,), (2, 3)]
    assert lower.merged_axes((8, 6, 10), [(8, 6, 10)], [{0, 2}]) == [(0,), (1,), (2,)]
    assert lower.merged_axes((4, 5, 6), [(4, 5, 6), (4, 1, 6)], []) == [(0,), (1,), (2,)]
    assert lower.merged_axes((4, 5, 6), [(4, 5, 6), (1, 1, 6)], []) == [(0, 1), (2,)]
    assert lower.merged_axes((4, 1, 6), [(4, 1, 6)], [{0}]) == [(0,), (1,), (2,)]
    # the kernel: (N, C, H*W) loops, the interpreter's values
    text = reduction_module((4, 6, 5, 7), (0, 2, 3), True)
    exe, _ = check(text, _inputs((4, 6, 5, 7), "f32", 4))
    (kernel,) = exe.kernels
    assert kernel.ks.in_shapes[0] == (4, 6, 35)


@pytest.mark.parametrize("shape, axes, keep", CASES)
@pytest.mark.parametrize("parallel", [False, True])
def test_reductions_in_memory_order_are_the_interpreters(request, shape, axes, keep, parallel):
    if parallel:
        request.getfixturevalue("small_parallel")
    exe, _ = check(reduction_module(shape, axes, keep), _inputs(shape, "f32", len(shape)))
    (kernel,) = exe.kernels
    src = kernel.ks.source
    loops = [line.split(" in ")[0].split()[-1] for line in src.splitlines()
             if line.lstrip().startswith("for i")]
    # the innermost is the last axis (neighbours both reduced or both kept are one loop, but
    # for a whole-array reduction)
    kept = [k for k in range(len(shape)) if k not in axes]
    groups = lower.merged_axes(shape, [shape], [set(axes)]) if kept else \
        [(k,) for k in range(len(shape))]
    assert loops == [f"i{k}" for k in range(len(groups))]
    assert kernel.ks.parallel == parallel
    if parallel and kept and kept[0] > 0:
        axis = next(g for g, ks in enumerate(groups) if kept[0] in ks)
        assert f"for t{axis} in prange(" in src
    partial = kernel.ks.outputs[1].partial_axis
    assert partial == (0 if parallel and not kept else None)


@pytest.mark.parametrize("dtype, acc, op, rtol, atol", [
    ("f16", "f16", "reduce_sum", 2e-3, 2e-2),
    ("f64", "f64", "reduce_sum", 1e-12, 1e-12),
    ("i32", "i32", "reduce_sum", 0, 0),
    ("f32", "f32", "reduce_mean", 2e-6, 1e-6),
    ("f32", "f32", "reduce_max", 0, 0),
])
@pytest.mark.parametrize("parallel", [False, True])
def test_other_dtypes_and_reductions_in_the_new_order(request, dtype, acc, op, rtol, atol,
                                                      parallel):
    if parallel:
        request.getfixturevalue("small_parallel")
    shape = (12, 5, 9)
    check(reduction_module(shape, (0, 1), False, dtype, acc, op), _inputs(shape, dtype, 7),
          rtol=rtol, atol=atol)


@pytest.mark.parametrize("dtype, op, rtol, atol", [
    ("f32", "reduce_sum", 2e-6, 1e-4), ("f64", "reduce_mean", 1e-12, 1e-12),
    ("i32", "reduce_sum", 0, 0), ("f32", "reduce_max", 0, 0), ("f32", "reduce_min", 0, 0),
    ("f64", "reduce_prod", 1e-12, 0),
])
def test_whole_array_reductions_fold_their_partials(small_parallel, dtype, op, rtol, atol):
    """Split into tiles of the first axis, each with its partial result, folded in order."""
    shape = (10, 3, 4)
    x, y = _inputs(shape, dtype, 11)
    if op == "reduce_prod":
        x, y = 1 + x / 100, 1 + y / 100
    if op == "reduce_max":
        x[7, 1, 2] = np.nan   # NaN propagates through the partials' fold
    exe, got = check(reduction_module(shape, (0, 1, 2), False, dtype, dtype, op), [x, y],
                     rtol=rtol, atol=atol)
    (kernel,) = exe.kernels
    assert kernel.ks.outputs[1].partial_axis == 0 and kernel.ks.outputs[1].shape == (10, 1, 1)
    assert np.isnan(got[1]) == (op == "reduce_max")


def test_non_contiguous_operands(small_parallel):
    """A transposed and a strided view: the kernel reads C-ordered copies, same results."""
    rng = np.random.default_rng(5)
    x = rng.standard_normal((24, 10)).astype(np.float32).T         # (10, 24), F order
    y = rng.standard_normal((10, 48)).astype(np.float32)[:, ::2]   # (10, 24), strided
    assert not x.flags.c_contiguous and not y.flags.c_contiguous
    check(reduction_module((10, 24), (0,), False), [x, y])


# the fixture only sets thresholds, the same for every example
@settings(max_examples=25, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.integers(1, 7), min_size=1, max_size=4).flatmap(
    lambda shape: st.tuples(st.just(tuple(shape)),
                            st.sets(st.integers(0, len(shape) - 1), min_size=1),
                            st.booleans())))
def test_random_shapes_and_axes_are_the_interpreters(small_parallel, case):
    shape, axes, keep = case
    check(reduction_module(shape, tuple(sorted(axes)), keep), _inputs(shape, "f32", 1))


# --- determinism and vectorisation -------------------------------------------------------------

@pytest.mark.parametrize("shape, axes", [((256, 1040), (0,)), ((32, 24, 1024), (0, 1)),
                                         ((32, 16, 32, 32), (0, 2, 3)), ((512, 4, 80), (1,)),
                                         ((1 << 20,), (0,)), ((64, 96, 100), (0, 1, 2))])
def test_the_same_bits_on_one_thread_and_on_two(small_parallel, monkeypatch, shape, axes):
    """Tiles split kept axes only: every accumulator is summed in one order whatever the number
    of threads (the pool splits every call here, below its threshold too)."""
    pool = small_parallel
    monkeypatch.setattr(lower, "TILE", 1 << 14)   # the tiles as they are
    x, y = _inputs(shape, "f32", 3)
    module = parse_module(reduction_module(shape, axes, True))
    exe = compile_executable(module, "f", jit=True, kernel_min_size=0)
    (kernel,) = exe.kernels
    assert kernel.ks.parallel and "prange" in kernel.ks.source
    two = exe([x, y])
    pool.limit(1)
    one = exe([x, y])
    for a, b in zip(two, one):
        np.testing.assert_array_equal(a, b)
    want = interpret(module, x, y)
    np.testing.assert_allclose(two[1], want[1], rtol=2e-5, atol=1e-3)


def test_a_bias_gradients_tiled_inner_loop_is_vectorised(monkeypatch):
    """The tile's loop over the kept last axis starts at ``t * tile``: the code generator knows
    its index is never negative, so the loop works on vectors (what save_graphs dumps)."""
    monkeypatch.setattr(lower, "PARALLEL_MIN", 1)
    monkeypatch.setattr(lower, "PARALLEL_MIN_TILED", 1)
    module = parse_module(reduction_module((64, 768), (0,), False))
    exe = compile_executable(module, "f", jit=True, kernel_min_size=0)
    (kernel,) = exe.kernels
    assert "for i1 in range(t1 * tile, " in kernel.ks.source
    text = codegen.optimized_ir(kernel.ks.module_text, "kernel", abi.kernel_kinds(kernel.ks),
                                parallel=True, noalias=True)
    body = text[text.index("prange"):]
    assert "x float>" in body and "fadd reassoc <" in body and "gather" not in body


@pytest.mark.parametrize("shape, axes, parallel", [
    ((64, 8, 768), (0, 1), False),       # tiled, below the pool's threshold: the plain nest
    ((32, 32, 32, 32), (0, 2, 3), True),  # tiled, 1M elements: over tiles of C
    ((8, 64, 768), (2,), True),          # LayerNorm-like rows: the first axis, untiled
    ((128, 1024), (0,), False),          # below PARALLEL_MIN
])
def test_which_nests_are_parallel_at_the_default_thresholds(shape, axes, parallel):
    """A tiled nest run serially is slower than the plain one, so it is parallel only where the
    pool splits the call (from its own threshold)."""
    assert lower.PARALLEL_MIN_TILED >= P.MIN_WORK
    module = parse_module(reduction_module(shape, axes, False))
    (op,) = [o for o in module["f"].body.ops if o.opdef.name == "fused"]
    ks = lower.lower_fused(op)
    assert ks.parallel == parallel
    assert ("prange" in ks.source) == parallel
