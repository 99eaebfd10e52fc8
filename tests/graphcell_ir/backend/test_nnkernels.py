"""The convolution/pooling kernels (graphcell_ir/backend/nnkernels.py) against the numpy refs.

Every op with a kernel is checked three ways on the registry's own sample inputs (groups,
strides, dilations, every pad mode): the compiled kernel and the kernel's loops run as Python
(the third oracle) against ``ref``, float32 and float64, plus NaN/Inf inputs and LeNet-sized
shapes. Also: which callable each runtime picks, bad shapes stopping before any loop, the dtype
fallbacks, the disk cache across processes, and that importing graphcell does not import numba.
"""
from __future__ import annotations

import os
import subprocess
import sys
import threading
import time

import numpy as np
import pytest
from hypothesis import assume, given, settings, strategies as st

from backend_support import lenet_calls
from samples import SAMPLES, Gen

from graphcell_ir.backend import loops, nnkernels
from graphcell_ir.backend.nnkernels import KERNELS, implementation, kernel
from graphcell_ir.errors import ShapeError
from graphcell_ir.ops import REGISTRY

OPS = sorted(KERNELS, key=lambda op: op.name)
FLOATS = ("float32", "float64")
CASES = [pytest.param(op, dt, id=f"{op.name}-{dt}") for op in OPS for dt in FLOATS]
EXACT = {"max_pool2d_grad_grad", "avg_pool2d_grad", "select"}
"""Kernels that pick, or add in the reference's order: bit-identical results. The conv
kernels' GEMMs are blocked differently from the reference's, and max_pool2d_grad adds the
gradients of overlapping windows that share a maximum window by window (the reference: offset
by offset), so those agree to rounding."""


def assert_matches(got, want, op, what=""):
    if isinstance(want, tuple):   # several results (cross-entropy, batch_norm)
        assert isinstance(got, tuple) and len(got) == len(want), f"{op.name} {what}"
        for i, (g, w) in enumerate(zip(got, want)):
            assert_matches(g, w, op, f"{what} result {i}")
        return
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype and got.shape == want.shape, \
        f"{op.name} {what}: {got.dtype}{got.shape} != {want.dtype}{want.shape}"
    assert (np.isnan(got) == np.isnan(want)).all(), f"{op.name} {what}: NaN positions differ"
    if op.name in EXACT:
        np.testing.assert_array_equal(got, want, err_msg=f"{op.name} {what}")
        return
    finite = np.isfinite(want)
    np.testing.assert_array_equal(got[~finite & ~np.isnan(want)], want[~finite & ~np.isnan(want)])
    tol = 2e-5 if want.dtype == np.float32 else 1e-12
    scale = float(np.abs(want[finite]).max(initial=0.0)) + 1.0
    np.testing.assert_allclose(got[finite], want[finite], rtol=tol, atol=tol * scale,
                               err_msg=f"{op.name} {what}")


def _sample(op, dtype, data):
    """The registry sample row's inputs (some rows build an output size from a window they drew
    too large: those draws are rejected)."""
    try:
        return SAMPLES[op.name].make(Gen(data), dtype)
    except ShapeError:
        assume(False)


@pytest.mark.parametrize("op,dtype", CASES)
@settings(max_examples=25, deadline=None)
@given(data=st.data())
def test_kernel_matches_reference(op, dtype, data):
    operands, attrs = _sample(op, dtype, data)
    attrs = op.check_attrs(attrs)
    try:
        want = op.ref(*operands, **attrs)
    except ShapeError:   # a window the sample drew too large: the kernel refuses it too
        for jit in (True, False):
            with pytest.raises(ShapeError):
                kernel(op, jit=jit)(*operands, **attrs)
        return
    assert_matches(kernel(op, jit=True)(*operands, **attrs), want, op, f"{attrs}")
    assert_matches(kernel(op, jit=False)(*operands, **attrs), want, op, f"as Python, {attrs}")


@pytest.mark.parametrize("op,dtype", CASES)
@settings(max_examples=10, deadline=None)
@given(data=st.data(), special=st.sampled_from([np.nan, np.inf, -np.inf]))
def test_nan_and_inf_as_numpy(op, dtype, data, special):
    operands, attrs = _sample(op, dtype, data)
    attrs = op.check_attrs(attrs)
    rng = np.random.default_rng(data.draw(st.integers(0, 2**16)))
    marked = []
    for a in operands:
        if isinstance(a, np.ndarray) and a.dtype.kind == "f":
            a = a.copy()
            a.flat[rng.integers(0, a.size, size=max(1, a.size // 5))] = special
        marked.append(a)
    try:
        with np.errstate(all="ignore"):   # numpy's reductions warn on NaN from numpy's modules
            want = op.ref(*marked, **attrs)
    except ShapeError:
        return   # test_kernel_matches_reference checks that both refuse it
    assert_matches(kernel(op, jit=True)(*marked, **attrs), want, op, f"{special} {attrs}")


@pytest.mark.parametrize("dtype", FLOATS)
def test_lenet_shapes(dtype):
    for name, operands, attrs in lenet_calls(np.random.default_rng(0), dtype, batch=8):
        op = REGISTRY[name]
        attrs = op.check_attrs(attrs)
        assert_matches(kernel(op, jit=True)(*operands, **attrs), op.ref(*operands, **attrs), op,
                       "LeNet shapes")


@pytest.mark.parametrize("dtype", FLOATS)
def test_select_on_large_arrays(dtype):
    """The sample rows are below SELECT_MIN (they exercise the fallback); ReLU's gradient is
    not."""
    op = REGISTRY["select"]
    rng = np.random.default_rng(4)
    x = rng.standard_normal((3, nnkernels.SELECT_MIN)).astype(dtype)
    y = rng.standard_normal(x.shape).astype(dtype)
    x[0, :7] = [np.nan, np.inf, -np.inf, -0.0, np.nan, 1.0, 2.0]
    y[0, :7] = [1.0, np.nan, -0.0, np.inf, np.nan, np.nan, -np.inf]
    cond = rng.random(x.shape) < 0.5
    for c, a, b in ((cond, x, y), (cond.T, x.T, y.T)):   # contiguous, then transposed views
        for jit in (True, False):
            got = kernel(op, jit=jit)(c, a, b)
            np.testing.assert_array_equal(got, op.ref(c, a, b))
            assert got.dtype == a.dtype and np.signbit(got).tolist() == np.signbit(
                op.ref(c, a, b)).tolist()


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("ta,tb", [(False, False), (True, False), (False, True), (True, True)])
def test_matmul_sizes(dtype, ta, tb, monkeypatch):
    """Products below BLAS_WAKES (one BLAS call), above it (single-threaded), and split in
    blocks of rows or of columns: all match the reference, and a split product is the same,
    bit for bit, on one thread, on two, and with more threads than blocks."""
    op = REGISTRY["matmul"]
    rng = np.random.default_rng(5)
    shapes = ((32, 400, 60), (32, 400, 120), (400, 32, 120), (1, 2000, 600), (256, 96, 200),
              (512, 128, 160),
              (24, 128, 1500), (300, 5, 3000))
    for m, k, n in shapes:
        x = rng.standard_normal((k, m) if ta else (m, k)).astype(dtype)
        y = rng.standard_normal((n, k) if tb else (k, n)).astype(dtype)
        x.flat[::97] = np.nan
        y.flat[::89] = np.inf
        want = op.ref(x, y, transpose_a=ta, transpose_b=tb)
        runs = []
        for threads in ("1", "2", "7", "0"):
            monkeypatch.setenv("GRAPHCELL_BLAS_THREADS", threads)
            runs.append(kernel(op)(x, y, transpose_a=ta, transpose_b=tb))
            assert_matches(runs[-1], want, op, f"{m}x{k}x{n} on {threads} threads")
        for got in runs[1:3]:
            np.testing.assert_array_equal(got, runs[0], err_msg=f"{m}x{k}x{n}")
    assert any(m * k * n < nnkernels.BLAS_WAKES for m, k, n in shapes)
    split = [nnkernels.blocks(max(m, n), m * k * n, nnkernels.GEMM_UNIT) for m, k, n in shapes]
    assert max(split) == nnkernels.MAX_BLOCKS and 2 in split


@pytest.mark.parametrize("ta,tb", [(False, False), (True, True)])
def test_batched_matmul_in_blocks(ta, tb, monkeypatch):
    """Attention's batched products split over the leading batch axis: the reference's numbers
    (to rounding: OpenBLAS's threads may block a matrix differently), the same bits on any
    number of threads; broadcast batch dimensions take the reference."""
    op = REGISTRY["matmul"]
    rng = np.random.default_rng(6)
    f = lambda *s: rng.standard_normal(s).astype(np.float32)  # noqa: E731
    sw = lambda s, t: s[:-2] + s[-2:][::-1] if t else s  # noqa: E731
    for (batch, m, k, n) in (((4, 3), 64, 32, 64), ((8,), 128, 64, 128), ((2,), 5, 3, 4)):
        x, y = f(*sw(batch + (m, k), ta)), f(*sw(batch + (k, n), tb))
        want = op.ref(x, y, transpose_a=ta, transpose_b=tb)
        runs = []
        for threads in ("1", "2", "3"):
            monkeypatch.setenv("GRAPHCELL_BLAS_THREADS", threads)
            runs.append(kernel(op)(x, y, transpose_a=ta, transpose_b=tb))
            assert_matches(runs[-1], want, op, f"{batch} {m}x{k}x{n}")
            np.testing.assert_array_equal(runs[-1], runs[0])
    x, y = f(4, 1, 64, 32), f(1, 3, 32, 64)   # broadcasting
    assert_matches(kernel(op)(x, y), op.ref(x, y), op, "broadcast")
    assert nnkernels.blocks(8, 8 * 128 * 64 * 128, nnkernels.GEMM_UNIT) > 1


@pytest.mark.parametrize("threads", [1, 2, 3, 5])
@pytest.mark.parametrize("n,count", [(1, 1), (7, 1), (7, 2), (10, 4), (3, 3)])
def test_in_blocks_covers_each_item_once(n, count, threads):
    seen = np.zeros(n, int)

    def run(lo, hi):
        assert 0 <= lo < hi <= n
        np.add.at(seen, np.arange(lo, hi), 1)   # one thread's block: no other writes there
    nnkernels.in_blocks(n, count, run, threads)
    assert seen.tolist() == [1] * n


def test_in_blocks_raises_a_block_error_after_every_block_ran():
    done = []

    def run(lo, hi):
        done.append(lo)
        if lo == 0:
            raise ValueError("block 0 failed")
    with pytest.raises(ValueError, match="block 0 failed"):
        nnkernels.in_blocks(8, 4, run, threads=2)
    assert sorted(done) == [0, 2, 4, 6]


def test_blocks_depend_on_the_shape_only():
    assert nnkernels.blocks(32, 10, 100) == 1                      # too little work
    assert nnkernels.blocks(32, 250, 100) == 2
    assert nnkernels.blocks(32, 10 ** 9, 100) == nnkernels.MAX_BLOCKS
    assert nnkernels.blocks(3, 10 ** 9, 100) == 3                  # never more than items


def test_a_product_splits_into_at_most_gemm_blocks_by_its_longer_side():
    """W1's products (128-row batches against 1024-wide layers) in GEMM_BLOCKS blocks, not the
    loops' MAX_BLOCKS: each block of a product packs the shared operand again."""
    assert nnkernels.GEMM_BLOCKS < nnkernels.MAX_BLOCKS
    assert nnkernels.gemm_blocks(128, 1024, 784) == (nnkernels.GEMM_BLOCKS, False)   # columns
    assert nnkernels.gemm_blocks(1024, 1024, 128) == (nnkernels.GEMM_BLOCKS, True)   # rows
    assert nnkernels.gemm_blocks(64, 64, 64) == (1, True)    # below BLAS_WAKES: one call


def _big_calls(rng, dtype) -> list:
    """The nn ops at sizes split into blocks: a ResNet basic block's convolutions (32
    channels, padded 3x3) and batch norm, a strided pooling gradient, a large select."""
    a = lambda *s: rng.standard_normal(s).astype(dtype)  # noqa: E731
    same = dict(pad_mode="pad", pad=(1, 1, 1, 1), stride=(1, 1), dilation=(1, 1), group=1)
    pool = dict(kernel_size=(3, 3), strides=(2, 2), pad_mode="same", data_format="NCHW")
    n, c = 16, 32
    x, w, dy = a(n, c, 16, 16), a(c, c, 3, 3), a(n, c, 16, 16)
    bn = (np.abs(a(c)) + 0.5, a(c), a(c), np.abs(a(c)) + 0.5)
    xs, ws, dys = a(8, 64, 8, 8), a(64, 64, 3, 3), a(8, 64, 8, 8)   # 8x8: the wide layout
    return [
        ("conv2d", (x, w), dict(same)),
        ("conv2d_backprop_filter", (dy, x), dict(filter_size=w.shape, **same)),
        ("conv2d_backprop_input", (dy, w), dict(input_size=x.shape, **same)),
        ("conv2d", (xs, ws), dict(same)),
        ("conv2d_backprop_filter", (dys, xs), dict(filter_size=ws.shape, **same)),
        ("conv2d_backprop_input", (dys, ws), dict(input_size=xs.shape, **same)),
        ("max_pool2d_grad", (x, a(n, c, 8, 8)), dict(pool)),
        ("max_pool2d_grad_grad", (x, dy), dict(pool)),
        ("avg_pool2d_grad", (a(n, c, 8, 8),), dict(input_size=x.shape, **pool)),
        ("select", (x > 0, x, dy), {}),
        ("batch_norm", (x,) + bn, dict(is_training=True, epsilon=1e-5, momentum=0.1,
                                       data_format="NCHW")),
        ("batch_norm", (x,) + bn, dict(is_training=False, epsilon=1e-5, momentum=0.1,
                                       data_format="NCHW")),
    ]


@pytest.mark.parametrize("jit", [True, False], ids=["compiled", "python"])
@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("shape", [(1, 32, 1024), (2, 1024, 32), (32, 32, 9), (2, 3, 5),
                                   (2, 17, 9), (3, 9, 17), (1, 1, 7), (1, 8, 8), (1, 16, 24)],
                         ids=str)
def test_swap_last_transposes_each_sample(shape, dtype, jit):
    """``swap_last``'s blocks of eight rows and their remainders, on either side of the
    square, copy every element (the rows-layout convolutions' moves to and from NCHW)."""
    a = np.random.default_rng(0).standard_normal(shape).astype(dtype)
    out = np.full((shape[0], shape[2], shape[1]), np.nan, dtype)
    loops.namespace(jit).swap_last(a, out)
    np.testing.assert_array_equal(out, a.transpose(0, 2, 1))


@pytest.mark.parametrize("dtype", FLOATS)
def test_split_loops_match_and_do_not_depend_on_threads(dtype, monkeypatch):
    """Every loop split into blocks of samples or channels gives the reference's result, and
    the same bits on 1 and 2 threads (the blocks write disjoint outputs; the sums that cross
    blocks, conv2d_backprop_filter's over samples, are added in sample order after)."""
    for name, operands, attrs in _big_calls(np.random.default_rng(2), dtype):
        op = REGISTRY[name]
        attrs = op.check_attrs(attrs)
        runs = []
        for threads in ("1", "2"):
            monkeypatch.setenv("GRAPHCELL_KERNEL_THREADS", threads)
            monkeypatch.setenv("GRAPHCELL_BLAS_THREADS", threads)
            runs.append(kernel(op, jit=True)(*operands, **attrs))
        assert_matches(runs[1], op.ref(*operands, **attrs), op, "split")
        for got, want in zip(*[r if isinstance(r, tuple) else (r,) for r in runs]):
            np.testing.assert_array_equal(got, want, err_msg=name)


def test_big_calls_are_split(monkeypatch):
    """The sizes above really run in several blocks (else the test before proves nothing)."""
    counts = []
    split = nnkernels.in_blocks

    def counted(n, count, run, threads=None):
        counts.append(count)
        split(n, count, run, threads)
    monkeypatch.setattr(nnkernels, "in_blocks", counted)
    for name, operands, attrs in _big_calls(np.random.default_rng(2), "float32"):
        counts.clear()
        op = REGISTRY[name]
        kernel(op, jit=True)(*operands, **op.check_attrs(attrs))
        assert counts and max(counts) > 1, name


CONV_GEOMETRIES = [   # (x shape, w shape, window): stride, padding, dilation, groups, odd sizes
    ((3, 4, 7, 5), (6, 4, 3, 3), dict(pad_mode="pad", pad=(1, 1, 1, 1), stride=(1, 1))),
    ((2, 6, 9, 8), (4, 3, 3, 2), dict(pad_mode="pad", pad=(2, 0, 1, 1), stride=(2, 3),
                                      group=2)),
    ((5, 4, 9, 9), (6, 4, 2, 2), dict(pad_mode="valid", dilation=(2, 3))),
    ((2, 8, 4, 4), (8, 1, 1, 1), dict(pad_mode="same", group=8)),          # depthwise 1x1
    ((4, 3, 5, 6), (5, 3, 3, 3), dict(pad_mode="same", stride=(2, 2))),
    ((1, 3, 11, 3), (2, 3, 5, 1), dict(pad_mode="same", dilation=(1, 1))),
    ((3, 2, 1, 1), (4, 2, 1, 1), dict(pad_mode="valid")),                  # 1x1 images
]


def _conv_calls(x_shape, w_shape, window, dtype, seed=0):
    rng = np.random.default_rng(seed)
    win = dict(pad=(0,), stride=(1,), dilation=(1,), group=1) | window
    x = rng.standard_normal(x_shape).astype(dtype)
    w = rng.standard_normal(w_shape).astype(dtype)
    y = REGISTRY["conv2d"].ref(x, w, **REGISTRY["conv2d"].check_attrs(win))
    dy = rng.standard_normal(y.shape).astype(dtype)
    return [("conv2d", (x, w), win),
            ("conv2d_backprop_filter", (dy, x), dict(filter_size=w_shape, **win)),
            ("conv2d_backprop_input", (dy, w), dict(input_size=x_shape, **win))]


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("wide", [False, True], ids=["per-sample", "wide"])
@pytest.mark.parametrize("geometry", CONV_GEOMETRIES, ids=str)
def test_both_conv_layouts_match_the_reference(geometry, wide, dtype, monkeypatch):
    """Each convolution kernel in each column layout (per-sample GEMMs, and the batch's
    columns side by side: ``WIDE_POSITIONS``), compiled and as Python, against the reference."""
    monkeypatch.setattr(nnkernels, "WIDE_POSITIONS", 10 ** 9 if wide else 0)
    for name, operands, attrs in _conv_calls(*geometry, dtype):
        op = REGISTRY[name]
        attrs = op.check_attrs(attrs)
        x_shape = operands[1].shape if name == "conv2d_backprop_filter" else \
            attrs.get("input_size", operands[0].shape)
        w_shape = attrs.get("filter_size", operands[-1].shape)
        g = nnkernels._conv_geo(tuple(x_shape), tuple(w_shape),
                                tuple((k, attrs[k]) for k in
                                      ("pad_mode", "pad", "stride", "dilation", "group")))
        assert nnkernels._wide(tuple(x_shape), g) is wide
        want = op.ref(*operands, **attrs)
        assert_matches(kernel(op, jit=True)(*operands, **attrs), want, op, f"{attrs}")
        assert_matches(kernel(op, jit=False)(*operands, **attrs), want, op, f"Python {attrs}")


AS_FORWARD = [   # stride-1 input gradients as forward convolutions: (x shape, w shape, window)
    ((2, 3, 13, 11), (5, 3, 3, 3), dict(pad_mode="valid")),                 # pad 0
    ((1, 17, 12, 11), (16, 17, 3, 3), dict(pad_mode="pad", pad=(1, 1, 1, 1))),   # batch 1
    ((2, 1, 14, 13), (3, 1, 5, 5), dict(pad_mode="pad", pad=(2, 2, 2, 2))),  # one channel
    ((2, 33, 10, 9), (16, 33, 4, 2), dict(pad_mode="same")),   # even: asymmetric sides
    ((2, 4, 15, 14), (6, 4, 3, 3), dict(pad_mode="pad", pad=(1, 1, 1, 1), dilation=(2, 2))),
    ((3, 5, 11, 9), (7, 5, 1, 1), dict(pad_mode="valid")),                   # 1x1
    ((2, 17, 12, 12), (33, 17, 5, 5), dict(pad_mode="pad", pad=(2, 1, 0, 2))),
    ((2, 3, 13, 12), (4, 3, 3, 3), dict(pad_mode="pad", pad=(0, 2, 1, 0), dilation=(1, 2))),
]
"""Odd sizes, 1/3/5/17/33 channels, 1x1 to 5x5 and even kernels, dilation 2, explicit and
'same' padding with sides of their own; none in the wide layout (a rule refusal)."""
NOT_AS_FORWARD = [
    ((2, 3, 12, 12), (4, 3, 3, 3), dict(pad_mode="same", stride=(2, 2))),   # stride 2
    ((2, 4, 12, 12), (6, 2, 3, 3), dict(pad_mode="same", group=2)),         # groups
    ((2, 3, 12, 12), (4, 3, 1, 1), dict(pad_mode="pad", pad=(1, 1, 1, 1))),  # p > d*(K-1)
    ((2, 33, 6, 6), (16, 33, 3, 3), dict(pad_mode="same")),                 # the wide layout
]


def _input_call(x_shape, w_shape, window, dtype):
    name, (dy, w), attrs = _conv_calls(x_shape, w_shape, window, dtype)[2]
    op = REGISTRY[name]
    return op, dy, w, op.check_attrs(attrs)


def _rule(op, w, attrs):
    geo = tuple((k, attrs[k]) for k in ("pad_mode", "pad", "stride", "dilation", "group"))
    size = tuple(attrs["input_size"])
    return nnkernels.input_as_forward(size, w.shape, nnkernels._conv_geo(size, w.shape, geo),
                                      attrs["group"])


def _counting_forwards(monkeypatch) -> list:
    """Spy on the forward convolutions a gradient runs, by dy's shape: nnkernels.conv2d, and
    the direct kernel by the flipped filter's taps (which it runs without conv2d)."""
    forwards, conv2d, conv2d_direct = [], nnkernels.conv2d, nnkernels.conv2d_direct

    def counted(L, x, w, **attrs):
        forwards.append(x.shape)
        return conv2d(L, x, w, **attrs)

    def counted_direct(fns, L, x, w, g, flipped=False):
        if flipped:
            forwards.append(x.shape)
        return conv2d_direct(fns, L, x, w, g, flipped)
    monkeypatch.setattr(nnkernels, "conv2d", counted)
    monkeypatch.setattr(nnkernels, "conv2d_direct", counted_direct)
    return forwards


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("geometry", AS_FORWARD, ids=str)
def test_a_stride_1_input_gradient_runs_as_a_forward_convolution(geometry, dtype, monkeypatch):
    """With the rule's cost test passed (``_forward_pays``: most of these shapes it declines),
    the input gradient is one forward convolution of dy by the flipped filter, compiled and as
    Python, the reference's values to rounding (the summation order differs)."""
    monkeypatch.setattr(nnkernels, "_forward_pays", lambda *a: True)
    forwards = _counting_forwards(monkeypatch)
    op, dy, w, attrs = _input_call(*geometry, dtype)
    assert _rule(op, w, attrs) is not None
    want = op.ref(dy, w, **attrs)
    for jit in (True, False):
        forwards.clear()
        assert_matches(kernel(op, jit=jit)(dy, w, **attrs), want, op, f"jit={jit} {attrs}")
        assert forwards == [dy.shape]


@pytest.mark.parametrize("geometry", NOT_AS_FORWARD, ids=str)
def test_other_input_gradients_keep_their_own_path(geometry, monkeypatch):
    monkeypatch.setattr(nnkernels, "_forward_pays", lambda *a: True)
    forwards = _counting_forwards(monkeypatch)
    op, dy, w, attrs = _input_call(*geometry, "float32")
    assert _rule(op, w, attrs) is None
    assert_matches(kernel(op, jit=True)(dy, w, **attrs), op.ref(dy, w, **attrs), op, f"{attrs}")
    assert forwards == []


def test_the_forward_runs_the_input_gradient_where_it_measured_faster():
    """``_forward_pays``: every undilated stride-1 gradient takes the forward, which is then the
    direct kernel (a ResNet block's 32 -> 32, LeNet's 6 -> 16, a 1x1); dilated ones run the
    forward on rows, which pays only at 32 -> 16 channels (the gradient's thinnest product):
    64 -> 32, 64 -> 24 and 24 -> 16 keep the gradient's own path."""
    same, dilated = dict(pad_mode="same"), dict(pad_mode="same", dilation=2)
    taken = [((32, 32, 32, 32), (32, 32, 3, 3), same), ((8, 64, 16, 16), (32, 64, 3, 3), same),
             ((32, 6, 14, 14), (16, 6, 5, 5), same), ((8, 64, 32, 32), (16, 64, 1, 1), same),
             ((8, 32, 32, 32), (16, 32, 3, 3), dilated), ((8, 32, 32, 32), (16, 32, 5, 5), dilated)]
    kept = [((8, 64, 16, 16), (32, 64, 3, 3), dilated), ((8, 64, 16, 16), (24, 64, 3, 3), dilated),
            ((8, 24, 32, 32), (16, 24, 3, 3), dilated)]
    for x_shape, w_shape, window in taken + kept:
        op, dy, w, attrs = _input_call(x_shape, w_shape, window, "float32")
        want = (x_shape, w_shape, window) in taken
        assert (_rule(op, w, attrs) is not None) is want, (x_shape, w_shape, window)


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("jit", [True, False])
def test_flip_filter_turns_the_kernel_and_swaps_the_channels(dtype, jit):
    w = np.random.default_rng(5).standard_normal((5, 3, 4, 2)).astype(dtype)
    got = nnkernels.flipped_filter(loops.namespace(jit), w)
    np.testing.assert_array_equal(got, w.transpose(1, 0, 2, 3)[:, :, ::-1, ::-1])
    assert got.flags.c_contiguous


def test_the_wide_layout_is_chosen_by_the_output_positions():
    """ResNet-18's 8x8 and smaller maps take the wide layout, a ResNet block's 32x32 and LeNet's
    10x10 the per-sample GEMMs; so does a batch whose columns would not fit ``WIDE_MAX``."""
    window = (("pad_mode", "same"), ("pad", (0, 0, 0, 0)), ("stride", (1, 1)),
              ("dilation", (1, 1)), ("group", 1))

    def geo(x, w):
        return nnkernels._conv_geo(x, w, window)
    assert nnkernels._wide((8, 64, 8, 8), geo((8, 64, 8, 8), (64, 64, 3, 3)))
    assert nnkernels._wide((8, 512, 1, 1), geo((8, 512, 1, 1), (512, 512, 3, 3)))
    assert not nnkernels._wide((32, 32, 32, 32), geo((32, 32, 32, 32), (32, 32, 3, 3)))
    assert not nnkernels._wide((8, 6, 10, 10), geo((8, 6, 10, 10), (16, 6, 5, 5)))
    big = (nnkernels.WIDE_MAX // (64 * 9 * 64) + 1, 64, 8, 8)
    assert not nnkernels._wide(big, geo(big, (64, 64, 3, 3)))


# --- the direct stride-1 filter gradient --------------------------------------------------------

DIRECT_FILTER = [   # (x shape, w shape, pad): stride 1, ungrouped, more than 64 output positions
    ((1, 1, 12, 11), (3, 1, 1, 1), (0, 0, 0, 0)),       # 1x1, one channel, batch 1
    ((2, 3, 9, 10), (5, 3, 3, 3), (1, 1, 1, 1)),
    ((3, 17, 10, 9), (33, 17, 5, 5), (2, 2, 2, 2)),     # 5x5: a block of 3 offsets half used
    ((5, 33, 12, 11), (17, 33, 3, 3), (0, 0, 0, 0)),
    ((4, 3, 9, 13), (1, 3, 3, 2), (1, 2, 0, 1)),        # one filter, uneven padding
    ((5, 17, 20, 20), (33, 17, 3, 3), (1, 1, 1, 1)),    # 4 blocks of 5 samples
]


@pytest.fixture
def direct_at_any_size(monkeypatch):
    """The direct filter gradient for every stride-1 ungrouped shape, whatever its size (the
    rule's size limits are where it is faster, not where it is right)."""
    monkeypatch.setattr(nnkernels, "DIRECT_MAX_CHANNELS", 10 ** 9)
    monkeypatch.setattr(nnkernels, "DIRECT_MIN_PLANE", 0)
    monkeypatch.setattr(nnkernels, "DIRECT_MIN_USED", 0.0)


def _filter_call(x_shape, w_shape, pad, dtype, seed=0, stride=(1, 1), dilation=(1, 1),
                 group=1):
    """``(dy, x, attrs)`` of conv2d_backprop_filter for this geometry, and its window."""
    op = REGISTRY["conv2d_backprop_filter"]
    attrs = op.check_attrs(dict(filter_size=w_shape, pad_mode="pad", pad=pad, stride=stride,
                                dilation=dilation, group=group))
    g = nnkernels._conv_geo(tuple(x_shape), tuple(w_shape),
                            tuple((k, attrs[k]) for k in ("pad_mode", "pad", "stride",
                                                          "dilation", "group")))
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(x_shape).astype(dtype)
    dy = rng.standard_normal((x_shape[0], w_shape[0], g.oh, g.ow)).astype(dtype)
    return dy, x, attrs, g


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("geometry", DIRECT_FILTER, ids=str)
def test_the_direct_filter_gradient_matches_the_reference(geometry, dtype, monkeypatch,
                                                          direct_at_any_size):
    """Stride-1 filter gradients take the direct kernel (``nnkernels.direct_filter``) when
    compiled (not as Python: the oracle keeps the columns), from 32 output channels the one
    with the channels in the vector lanes (``nnkernels.channels_in_lanes``), both against the
    reference; the compiled one gives the same bits on 1 and 2 threads (per-sample gradients,
    summed in sample order whatever the blocks)."""
    op = REGISTRY["conv2d_backprop_filter"]
    dy, x, attrs, g = _filter_call(*geometry, dtype)
    assert nnkernels.direct_filter(x.shape, attrs["filter_size"], 1, g)
    used = []
    name = "_filter_lanes" if nnkernels.channels_in_lanes(geometry[1][0]) else "_filter_direct"
    run = getattr(nnkernels, name)
    monkeypatch.setattr(nnkernels, name, lambda *a: used.append(1) or run(*a))
    want = op.ref(dy, x, **attrs)
    assert_matches(kernel(op, jit=False)(dy, x, **attrs), want, op, "as Python")
    assert used == []
    runs = []
    for threads in ("1", "2"):
        monkeypatch.setenv("GRAPHCELL_KERNEL_THREADS", threads)
        monkeypatch.setenv("GRAPHCELL_BLAS_THREADS", threads)
        runs.append(kernel(op, jit=True)(dy, x, **attrs))
    assert used == [1, 1]
    assert_matches(runs[0], want, op)
    np.testing.assert_array_equal(runs[0].view(f"u{runs[0].itemsize}"),
                                  runs[1].view(f"u{runs[0].itemsize}"))


@pytest.mark.parametrize("special", [np.inf, -np.inf, np.nan])
def test_the_direct_filter_gradient_has_the_references_nans(special, direct_at_any_size):
    """An infinite image value at the right edge is read by the kernel's junk positions
    (where ``dy`` is padded with zeros: 0 * inf is NaN) for offsets that never see it; such a
    sum is taken again over the real positions, so NaN only where the reference has one."""
    op = REGISTRY["conv2d_backprop_filter"]
    dy, x, attrs, g = _filter_call((2, 3, 9, 10), (5, 3, 3, 3), (1, 1, 1, 1), np.float32)
    x[0, 1, 4, 9] = special   # the last column: offset j = 0 never reads it
    x[1, 2, 0, 0] = special   # the first
    with np.errstate(all="ignore"):
        want = op.ref(dy, x, **attrs)
    got = kernel(op, jit=True)(dy, x, **attrs)
    assert np.isfinite(want).any() and not np.isfinite(want).all()
    assert_matches(got, want, op, f"{special}")


@pytest.mark.parametrize("special", [np.inf, -np.inf, np.nan])
def test_the_lanes_filter_gradient_has_the_references_nans(special, direct_at_any_size):
    """``filter_lanes`` sums the real positions only: a non-finite image value gives non-finite
    weights exactly where the reference has them."""
    op = REGISTRY["conv2d_backprop_filter"]
    dy, x, attrs, g = _filter_call((2, 3, 9, 10), (33, 3, 3, 3), (1, 1, 1, 1), np.float32)
    assert nnkernels.channels_in_lanes(33)
    x[0, 1, 4, 9] = special
    x[1, 2, 0, 0] = special
    with np.errstate(all="ignore"):
        want = op.ref(dy, x, **attrs)
    got = kernel(op, jit=True)(dy, x, **attrs)
    assert np.isfinite(want).any() and not np.isfinite(want).all()
    assert_matches(got, want, op, f"{special}")


@pytest.mark.parametrize("change", [dict(stride=(2, 2)), dict(stride=(1, 2)),
                                    dict(dilation=(2, 2)), dict(group=3)], ids=str)
def test_other_filter_gradients_keep_the_columns(change, direct_at_any_size):
    """Strided, dilated and grouped filter gradients are not the direct kernel's: the rule
    refuses them, and they keep the columns and GEMMs (still the reference's values)."""
    op = REGISTRY["conv2d_backprop_filter"]
    w_shape = (6, 1, 3, 3) if change.get("group") else (6, 3, 3, 3)
    dy, x, attrs, g = _filter_call((2, 3, 21, 20), w_shape, (1, 1, 1, 1), np.float32, **change)
    assert not nnkernels.direct_filter(x.shape, w_shape, attrs["group"], g)
    assert_matches(kernel(op, jit=True)(dy, x, **attrs), op.ref(dy, x, **attrs), op)


@pytest.mark.parametrize("x_shape,w_shape,pad,direct", [
    ((32, 32, 32, 32), (32, 32, 3, 3), 1, True),     # a ResNet block's
    ((32, 1, 32, 32), (6, 1, 5, 5), 0, True),        # LeNet's first layer
    ((8, 3, 32, 32), (64, 3, 3, 3), 1, True),        # a ResNet-18 stem
    ((32, 6, 14, 14), (16, 6, 5, 5), 0, False),      # LeNet's second: 10x10 outputs
    ((8, 64, 32, 32), (64, 64, 3, 3), 1, True),
    ((8, 256, 32, 32), (256, 256, 3, 3), 1, False),  # many channels: the GEMM packs well
    ((8, 128, 16, 16), (128, 128, 3, 3), 1, False),  # 16x16 outputs: short planes
    ((32, 64, 16, 16), (128, 64, 1, 1), 0, False),   # 1x1: a third of the sums kept
    ((16, 8, 16, 16), (8, 8, 3, 3), 1, False),       # 16x16 outputs: short planes
])
def test_the_direct_filter_gradients_sizes(x_shape, w_shape, pad, direct):
    """Which stride-1 filter gradients the rule sends to the direct kernel: where it measured
    faster than the columns (docs/decisions.md, "dw24")."""
    _, _, attrs, g = _filter_call(x_shape, w_shape, (pad,) * 4, np.float32)
    assert nnkernels.direct_filter(x_shape, w_shape, 1, g) is direct


def test_non_contiguous_inputs():
    op = REGISTRY["conv2d"]
    rng = np.random.default_rng(1)
    x = rng.standard_normal((2, 3, 7, 9)).transpose(0, 1, 3, 2)   # a transposed view
    w = rng.standard_normal((4, 6, 2, 2))[:, ::2]                   # a strided view
    attrs = op.check_attrs({"stride": (2, 1)})
    assert not x.flags.c_contiguous and not w.flags.c_contiguous
    assert_matches(kernel(op)(x, w, **attrs), op.ref(x, w, **attrs), op, "views")


@pytest.mark.parametrize("name,operands,attrs", [
    ("conv2d_backprop_input", ((2, 4, 3, 3), (4, 3, 3, 3)),
     {"input_size": (2, 3, 6, 6), "pad_mode": "same", "stride": (2, 2)}),
    ("conv2d_backprop_input", ((2, 4, 6, 6), (4, 3, 3, 3)),
     {"input_size": (2, 3, 6, 6), "pad_mode": "pad", "pad": (1, 1, 1, 1)}),
    ("max_pool2d_grad", ((2, 3, 6, 6), (2, 3, 3, 3)),
     {"kernel_size": (3, 3), "strides": (2, 2), "pad_mode": "SAME"}),
    ("avg_pool2d_grad", ((2, 3, 3, 3),),
     {"input_size": (2, 3, 6, 6), "kernel_size": (3, 3), "strides": (2, 2), "pad_mode": "SAME"}),
])
def test_padded_gradients_are_c_ordered(name, operands, attrs):
    """The gradients computed on a padded buffer come back without the padding as C-ordered
    arrays, which the fused kernels' native code reads (a strided view made it fall back to
    numba, compiling for seconds in a ResNet50 train step)."""
    op = REGISTRY[name]
    rng = np.random.default_rng(6)
    arrays = [rng.standard_normal(shape).astype(np.float32) for shape in operands]
    attrs = op.check_attrs(attrs)
    got = kernel(op, jit=True)(*arrays, **attrs)
    assert got.flags.c_contiguous
    assert_matches(got, op.ref(*arrays, **attrs), op, f"{attrs}")


# --- which callable runs an op ------------------------------------------------------------------

def test_implementation_choice(monkeypatch):
    conv = REGISTRY["conv2d"]
    assert implementation(conv, jit=True).func is KERNELS[conv]
    assert implementation(conv, jit=False) is conv.ref
    monkeypatch.setenv("GRAPHCELL_DISABLE_JIT", "1")
    assert implementation(conv) is conv.ref           # the switch: the references run
    for name in ("max_pool2d", "avg_pool2d", "add"):   # numpy is as fast or faster
        assert implementation(REGISTRY[name], jit=True) is REGISTRY[name].ref


def test_pynative_and_executable_use_the_kernel(monkeypatch):
    # the Python runner's call (the native step would run this 8x8 convolution itself)
    monkeypatch.setenv("GRAPHCELL_NATIVE_STEP", "0")
    from graphcell_ir.backend.executable import compile_executable
    from graphcell_ir.ir import Builder, Function, Module, TensorType
    from graphcell_ir.ir.types import float32
    import graphcell as ms
    from graphcell.runtime import dispatch
    from graphcell_ir.ops import functional as F

    conv = REGISTRY["conv2d"]
    rng = np.random.default_rng(2)
    x = rng.standard_normal((2, 3, 8, 8)).astype(np.float32)
    w = rng.standard_normal((4, 3, 3, 3)).astype(np.float32)
    attrs = conv.check_attrs({"pad_mode": "same"})
    want = conv.ref(x, w, **attrs)

    got = F.conv2d(ms.Tensor(x), ms.Tensor(w), pad_mode="same").asnumpy()
    assert dispatch._impls[conv].func is KERNELS[conv]
    assert_matches(got, want, conv, "PyNative")

    fn = Function("main")
    m = Module([fn])
    b = Builder.at_end(fn.body)
    xv = fn.add_arg(TensorType(float32, x.shape), "x")
    wv = fn.add_arg(TensorType(float32, w.shape), "w")
    op = b.create(conv, [xv, wv], attrs)
    b.return_(*op.results)
    exe = compile_executable(m, "main", jit=True)
    called = [g for g in exe.run.__globals__.values() if getattr(g, "func", None) is KERNELS[conv]]
    assert called, exe.source
    assert_matches(exe([x, w])[0], want, conv, "executable")
    plain = compile_executable(m, "main", jit=False)
    assert not [g for g in plain.run.__globals__.values()
                if getattr(g, "func", None) is KERNELS[conv]]


# --- bad input never reaches a loop -------------------------------------------------------------

def test_bad_shapes_raise_before_the_loops():
    f32 = np.float32
    conv = REGISTRY["conv2d"]
    with pytest.raises(ShapeError):   # 3 input channels, the weight wants 2
        kernel(conv)(np.ones((1, 3, 5, 5), f32), np.ones((2, 2, 3, 3), f32),
                     **conv.check_attrs({}))
    with pytest.raises(ShapeError):   # window larger than the image
        kernel(conv)(np.ones((1, 1, 2, 2), f32), np.ones((1, 1, 3, 3), f32),
                     **conv.check_attrs({}))
    grad = REGISTRY["max_pool2d_grad"]
    attrs = grad.check_attrs({"kernel_size": (2, 2), "strides": (2, 2)})
    with pytest.raises(ShapeError):   # dy of the input's shape, not the pooled one
        kernel(grad)(np.ones((1, 1, 4, 4), f32), np.ones((1, 1, 4, 4), f32), **attrs)
    bpi = REGISTRY["conv2d_backprop_input"]
    with pytest.raises((ShapeError, ValueError)):   # dy does not match input_size
        kernel(bpi)(np.ones((1, 1, 2, 2), f32), np.ones((1, 1, 3, 3), f32),
                    **bpi.check_attrs({"input_size": (1, 1, 6, 6)}))


def test_bad_shapes_in_pynative_name_the_op():
    import graphcell as ms
    from graphcell_ir.ops import functional as F
    with pytest.raises(ShapeError, match="Conv2D"):
        F.conv2d(ms.Tensor(np.ones((1, 3, 5, 5), np.float32)),
                 ms.Tensor(np.ones((2, 2, 3, 3), np.float32)))


@pytest.mark.parametrize("name,dtype", [("max_pool2d_grad", np.int32),
                                        ("max_pool2d_grad", np.float16),
                                        ("conv2d", np.float16)])
def test_other_dtypes_take_the_reference(name, dtype):
    op = REGISTRY[name]
    rng = np.random.default_rng(3)
    if name == "conv2d":
        args = (rng.standard_normal((1, 2, 5, 5)).astype(dtype),
                rng.standard_normal((3, 2, 2, 2)).astype(dtype))
        attrs = op.check_attrs({})
    else:
        args = ((rng.standard_normal((1, 2, 4, 4)) * 5).astype(dtype),
                (rng.standard_normal((1, 2, 2, 2)) * 5).astype(dtype))
        attrs = op.check_attrs({"kernel_size": (2, 2), "strides": (2, 2)})
    np.testing.assert_array_equal(kernel(op)(*args, **attrs), op.ref(*args, **attrs))


# --- caching and imports --------------------------------------------------------------------------

_CHILD = """
import json, numpy as np
from graphcell_ir.backend import kernels, nnkernels
from graphcell_ir.ops import REGISTRY
op = REGISTRY["max_pool2d_grad"]
x = np.ones((1, 1, 4, 4), np.float32)
nnkernels.kernel(op)(x, x[:, :, ::2, ::2].copy(), **op.check_attrs({"kernel_size": (2, 2), "strides": (2, 2)}))
s = kernels.cache_stats()
print(json.dumps({"hits": s.disk_hits, "misses": s.misses}))
"""


def test_second_process_loads_from_disk(tmp_path):
    import json
    env = dict(os.environ, GRAPHCELL_CACHE_DIR=str(tmp_path))
    env.pop("GRAPHCELL_DISABLE_JIT", None)
    runs = [json.loads(subprocess.run([sys.executable, "-c", _CHILD], env=env, check=True,
                                      capture_output=True, text=True).stdout)
            for _ in range(2)]
    assert runs[0]["hits"] == 0 and any("max_pool_grad" in m for m in runs[0]["misses"])
    assert runs[1] == {"hits": 1, "misses": []}
    assert list((tmp_path / "objects").glob("*.o"))


@pytest.mark.slow   # three processes, two numba compiles
def test_corrupt_numba_cache_is_rebuilt(tmp_path):
    """numba's own cache (the loops' fallback, in a process that cannot link native code): a
    corrupt entry is dropped and compiled again."""
    import json
    env = dict(os.environ, GRAPHCELL_CACHE_DIR=str(tmp_path))
    env.pop("GRAPHCELL_DISABLE_JIT", None)
    child = ("from graphcell_ir.backend import objects\n"
             "objects.usable = lambda: 'the test asks for numba'\n" + _CHILD)

    def run():
        return json.loads(subprocess.run([sys.executable, "-c", child], env=env, check=True,
                                         capture_output=True, text=True).stdout)
    run()
    entries = list((tmp_path / "kernels" / "__pycache__").glob("nn_*max_pool_grad*.nbc"))
    assert entries
    for f in entries:
        f.write_bytes(b"garbage")
    again = run()                      # no crash: compiled again, and it says why
    assert again["hits"] == 0 and len(again["misses"]) == 1
    assert "max_pool_grad" in again["misses"][0] and "unusable" in again["misses"][0]
    third = run()                      # the bad entry was dropped: loaded or compiled cleanly
    assert not any("unusable" in m for m in third["misses"])


def test_stale_kernel_file_is_rewritten(tmp_path, monkeypatch):
    monkeypatch.setenv("GRAPHCELL_CACHE_DIR", str(tmp_path))
    text = loops.source()
    path = tmp_path / "kernels" / "nn_test.py"
    path.parent.mkdir(parents=True)
    path.write_text(text[:100])                     # truncated: must be replaced
    assert loops._ensure_file(path, text) == path
    assert path.read_text() == text


def test_importing_graphcell_does_not_import_numba():
    code = "import sys, graphcell, graphcell_ir.ops; print('numba' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


@pytest.mark.parametrize("own,waited,want", [
    (1e-3, 2e-4, False),     # a wake-up's wait
    (1e-3, 1.5e-3, False),   # a helper's block simply finished later
    (1e-3, 8e-3, True),      # a scheduler slice: the helper was descheduled
    (1e-5, 3e-4, False),     # twice a tiny share, but below LATE_MIN
    (0.0, 6e-4, True),
])
def test_late_is_the_native_pools_rule(own, waited, want):
    assert nnkernels.late(own, waited) is want


def test_a_late_helper_makes_the_next_splits_serial(monkeypatch):
    """After a split whose helper came back late, the next ``BACKOFF_FIRST`` splits run on the
    caller alone (the native pool's back-off), then the split is tried again; late again, the
    back-off doubles."""
    monkeypatch.setattr(nnkernels.pool, "BACKOFF_FIRST", 3)
    monkeypatch.setattr(nnkernels.pool, "BACKOFF_MAX", 5)
    backoff = nnkernels._Backoff()
    monkeypatch.setattr(nnkernels, "_BACKOFF", backoff)
    main = threading.get_ident()
    helper_started, where, began = threading.Event(), [], []

    def slow_helper(lo, hi):   # the helper's block takes far longer than the caller's
        where.append(threading.get_ident() == main)
        if threading.get_ident() == main:
            began.append(time.perf_counter())
            helper_started.wait(5.0)   # the helper takes the other block
        else:
            helper_started.set()
            # the caller's own time is its wait for this helper to start (long on a busy
            # machine): take three times that, so the helper is late whatever the load
            own = time.perf_counter() - began[0] if began else 0.0
            time.sleep(0.02 + 3 * own)
    nnkernels.in_blocks(2, 2, slow_helper, threads=2)
    assert sorted(where) == [False, True]
    assert (backoff.left, backoff.next) == (3, 5)
    for _ in range(3):
        where.clear()
        nnkernels.in_blocks(4, 4, slow_helper, threads=2)
        assert where == [True] * 4   # all on the caller
    assert backoff.left == 0
    helper_started.clear()
    began.clear()
    nnkernels.in_blocks(2, 2, slow_helper, threads=2)   # late again: twice as long, capped
    assert (backoff.left, backoff.next) == (5, 5)


def test_the_back_off_doubles_while_splits_stay_late_and_resets_on_time(monkeypatch):
    monkeypatch.setattr(nnkernels.pool, "BACKOFF_FIRST", 4)
    monkeypatch.setattr(nnkernels.pool, "BACKOFF_MAX", 32)
    backoff = nnkernels._Backoff()
    seen = []
    for was_late in (True, True, True, True, False, True):
        backoff.after(was_late)
        seen.append(backoff.left)
        backoff.left = 0   # (the serial calls between)
    assert seen == [4, 8, 16, 32, 0, 4]


def test_the_caller_does_not_wait_for_a_helper_that_took_no_block(monkeypatch):
    """A helper that starts after the caller ran every block finds nothing to do and the
    caller has returned already."""
    gate = threading.Event()

    class Stalled:   # a pool whose helper starts only when the test lets it
        def submit(self, fn):
            def later():
                gate.wait()
                fn()
            threading.Thread(target=later, daemon=True).start()
    monkeypatch.setattr(nnkernels, "_block_workers", lambda: Stalled())
    monkeypatch.setattr(nnkernels, "_BACKOFF", nnkernels._Backoff())
    seen = []
    nnkernels.in_blocks(4, 4, lambda lo, hi: seen.append(lo), threads=2)
    assert seen == [0, 1, 2, 3]
    gate.set()


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("x_shape,w_shape,window", [
    ((2, 3, 9, 11), (17, 3, 3, 3), dict(pad_mode="same")),
    ((1, 17, 11, 13), (33, 17, 5, 5), dict(pad_mode="pad", pad=(2, 2, 2, 2))),
    ((3, 1, 10, 37), (1, 1, 3, 2), dict(pad_mode="pad", pad=(0, 2, 1, 0))),
    ((2, 33, 9, 9), (8, 33, 1, 1), dict(pad_mode="valid")),
], ids=str)
def test_the_direct_convolution_matches_the_reference(x_shape, w_shape, window, dtype,
                                                      monkeypatch):
    """Stride-1 forwards take the direct kernel when compiled (not as Python: the oracle keeps
    the rows and columns), within rounding of the reference."""
    used = []
    run = nnkernels.conv2d_direct
    monkeypatch.setattr(nnkernels, "conv2d_direct", lambda *a: used.append(1) or run(*a))
    name, operands, attrs = _conv_calls(x_shape, w_shape, window, dtype)[0]
    op = REGISTRY[name]
    attrs = op.check_attrs(attrs)
    want = op.ref(*operands, **attrs)
    assert_matches(kernel(op, jit=True)(*operands, **attrs), want, op, f"{attrs}")
    assert used == [1]
    assert_matches(kernel(op, jit=False)(*operands, **attrs), want, op, f"Python {attrs}")
    assert used == [1]


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("c,h,w,pt,pl,hp,wp", [(3, 5, 4, 2, 1, 8, 7), (2, 7, 37, 0, 2, 9, 39),
                                               (1, 1, 1, 0, 0, 1, 1), (5, 9, 17, 3, 0, 12, 17),
                                               (2, 3, 32, 1, 1, 5, 34), (2, 2, 16, 0, 0, 2, 16),
                                               (1, 2, 48, 0, 19, 3, 70)])
def test_the_direct_convolutions_padded_image(c, h, w, pt, pl, hp, wp, dtype):
    """pad_image: each plane zero-padded (``pt`` rows above, ``pl`` columns left, the rest
    below and right) and laid end to end, zeros after the planes; rows shorter and longer than
    a vector and of whole vectors (16, 32, 48: no masked piece), no padding at all, more zeros
    left and right than a vector."""
    rng = np.random.default_rng(3)
    x = rng.standard_normal((c, h, w)).astype(dtype)
    want = np.zeros(c * hp * wp + 16, dtype)
    want[:c * hp * wp].reshape(c, hp, wp)[:, pt:pt + h, pl:pl + w] = x
    got = np.full(want.shape, 7, dtype)
    _, pad = nnkernels._direct_kernels(loops.namespace(True), dtype)
    assert pad(x, got, pt, pl, hp, wp)
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("flip", [0, 1])
def test_the_direct_convolutions_filter_taps_compiled_and_as_python(dtype, flip):
    """filter_taps: output channels innermost, zero columns past them, compiled and as Python;
    with ``flip`` the taps of the flipped filter (flipped_filter's, read from ``w``)."""
    w = np.random.default_rng(3).standard_normal((5, 3, 2, 3)).astype(dtype)
    f = nnkernels.flipped_filter(loops.namespace(False), w) if flip else w
    want = np.zeros((f.shape[1] * 6, 8), dtype)
    want[:, :f.shape[0]] = f.reshape(f.shape[0], -1).T
    for L in (loops.namespace(True), loops.namespace(False)):
        wt = np.full(want.shape, 7, dtype)
        L.filter_taps(w.reshape(-1), wt, 5, 3, 6, flip)
        np.testing.assert_array_equal(wt, want)


def _built_for(monkeypatch, features: str, dtype: str, members) -> tuple:
    """The entries of hand-written kernels ``members`` (``(module, function)`` pairs) compiled
    as they are built for targets of ``features`` (the vector widths), for this machine (LLVM
    splits what it lacks): the source and the features in the key, so no stale object."""
    from graphcell_ir.backend import objects
    from graphcell_ir.backend.codegen import direct_conv as D
    from graphcell_ir.backend.native import abi
    monkeypatch.setattr(D, "_features", lambda: features)
    fns = tuple(objects.jit_function(m.SOURCE, name, m.kinds(name, dtype),
                                     f"test-{abi.source_hash(m.SOURCE)}-{features}-{name}")[0]
                for m, name in members)
    assert None not in fns
    return fns


@pytest.mark.parametrize("features", ["", "+avx,+avx2,+fma", "+avx512f"],
                         ids=["sse", "avx2", "avx512"])
@pytest.mark.parametrize("dtype", FLOATS)
def test_the_direct_kernels_tiles_for_each_vector_width(features, dtype, monkeypatch):
    """The kernel as it is built for targets with 128-, 256- and 512-bit vectors (tiles of 8
    filters by 1, 1 and 3 vectors), compiled for this machine (LLVM splits what it lacks):
    rows shorter and longer than the vectors, slots past the last, filters past the tile."""
    from graphcell_ir.backend.codegen import direct_conv as D
    fns = _built_for(monkeypatch, features, dtype, ((D, D.NAME), (D, D.PAD)))
    rng = np.random.default_rng(5)
    for x_shape, w_shape, pad in [((2, 3, 5, 7), (9, 3, 3, 3), 1), ((1, 2, 4, 37), (3, 2, 1, 2), 0)]:
        x = rng.standard_normal(x_shape).astype(dtype)
        w = rng.standard_normal(w_shape).astype(dtype)
        win = dict(pad_mode="pad", pad=(pad,) * 4, stride=(1, 1), dilation=(1, 1), group=1)
        g = nnkernels._conv_geo(x_shape, w_shape, tuple(win.items()))
        got = nnkernels.conv2d_direct(fns, loops.namespace(True), x, w, g)
        want = REGISTRY["conv2d"].ref(x, w, **REGISTRY["conv2d"].check_attrs(win))
        assert_matches(got, want, REGISTRY["conv2d"], f"{features} {x_shape}")


WINOGRAD = [   # x shape, w shape, (top, bottom, left, right) padding; bands of 4 slots
    ((2, 16, 32, 32), (32, 16, 3, 3), (1, 1, 1, 1)),   # 16 tile rows of one slot: 4 bands
    ((3, 16, 9, 70), (16, 16, 3, 3), (0, 0, 0, 0)),    # 34 tiles a row: 3 slots; odd rows
    ((1, 16, 10, 30), (16, 16, 3, 3), (1, 1, 1, 1)),   # 5 slots: a last band of 1
    ((1, 20, 5, 5), (9, 20, 3, 3), (1, 1, 1, 1)),      # 3 slots of 3 tiles; filters past 8
    ((2, 33, 18, 17), (40, 33, 3, 3), (1, 2, 0, 1)),   # uneven padding, odd columns; 4, 4, 2
    ((1, 1, 4, 4), (1, 1, 3, 3), (0, 0, 0, 0)),        # one tile, one channel each way
]


def _winograd_members() -> tuple:
    """conv_winograd and the pad_image it reads (``_built_for``'s members)."""
    from graphcell_ir.backend.codegen import direct_conv as D, winograd_conv as W
    return (W, W.NAME), (D, D.PAD)


@pytest.mark.parametrize("features", ["", "+avx,+avx2,+fma", "+avx512f"],
                         ids=["sse", "avx2", "avx512"])
@pytest.mark.parametrize("dtype", FLOATS)
def test_the_winograd_kernel_matches_the_reference_for_each_vector_width(features, dtype,
                                                                         monkeypatch):
    """conv_winograd as built for 128-, 256- and 512-bit vectors (register tiles of 1 and 2
    slots), compiled for this machine: tile rows of one short slot to three slots, bands whole
    and short (a last tile past the band's slots), odd output sizes (a last tile half outside),
    uneven padding, output channels past the tile of 8, one channel; within the reference's
    tolerance."""
    fns = _built_for(monkeypatch, features, dtype, _winograd_members())
    rng = np.random.default_rng(8)
    op = REGISTRY["conv2d"]
    for x_shape, w_shape, pad in WINOGRAD:
        x = rng.standard_normal(x_shape).astype(dtype)
        w = rng.standard_normal(w_shape).astype(dtype)
        win = dict(pad_mode="pad", pad=pad, stride=(1, 1), dilation=(1, 1), group=1)
        g = nnkernels._conv_geo(x_shape, w_shape, tuple(win.items()))
        got = nnkernels.conv2d_winograd(fns, loops.namespace(True), x, w, g)
        assert_matches(got, op.ref(x, w, **op.check_attrs(win)), op, f"{features} {x_shape}")


def _non_finite(x: np.ndarray) -> np.ndarray:
    """``x`` with +inf at its first corner, -inf at its last, -inf on an edge (last row, middle
    column), NaN and +inf inside (other samples and channels where it has them)."""
    x = x.copy()
    n, c, h, w = x.shape
    x[0, 0, 0, 0] = np.inf
    x[-1, -1, -1, -1] = -np.inf
    x[0, c // 2, h - 1, w // 2] = -np.inf
    x[-1, c - 1 - c // 3, h // 2, w // 3] = np.nan
    x[n // 2, c // 3, h // 2 + 1, w // 2 + 1] = np.inf
    return x


@pytest.mark.parametrize("features", ["", "+avx,+avx2,+fma", "+avx512f"],
                         ids=["sse", "avx2", "avx512"])
@pytest.mark.parametrize("dtype", FLOATS)
def test_the_winograd_kernel_keeps_the_direct_sums_infinities_for_each_vector_width(
        features, dtype, monkeypatch):
    """+-inf and NaN inputs at corners, edges and inside, through conv_winograd as built for
    each vector width: the outputs the reference has infinite are those infinities (no NaN
    from ``inf - inf`` in the transforms: MindSpore's 2.10 result too), NaN exactly where the
    reference has NaN, all others within its tolerance."""
    fns = _built_for(monkeypatch, features, dtype, _winograd_members())
    rng = np.random.default_rng(11)
    op = REGISTRY["conv2d"]
    infinite = []
    for x_shape, w_shape, pad in WINOGRAD:
        x = _non_finite(rng.standard_normal(x_shape).astype(dtype))
        w = rng.standard_normal(w_shape).astype(dtype)
        win = dict(pad_mode="pad", pad=pad, stride=(1, 1), dilation=(1, 1), group=1)
        g = nnkernels._conv_geo(x_shape, w_shape, tuple(win.items()))
        got = nnkernels.conv2d_winograd(fns, loops.namespace(True), x, w, g)
        want = op.ref(x, w, **op.check_attrs(win))
        infinite.append(bool(np.isinf(want).any()))
        np.testing.assert_array_equal(np.isnan(got), np.isnan(want), err_msg=f"{x_shape}")
        np.testing.assert_array_equal(got[np.isinf(want)], want[np.isinf(want)])
        assert_matches(got, want, op, f"{features} {x_shape}")
    assert infinite == [True] * (len(WINOGRAD) - 1) + [False]   # one tile: all NaN there


def test_an_infinite_input_gives_the_winograd_kernel_mindspores_infinities():
    """One +inf inside a sample: every output whose window reads it is +-inf, none NaN (as the
    direct sum, and as MindSpore 2.10: ``nn.Conv2d(32, 32, 3, pad_mode='same')`` on a
    (32, 32, 32, 32) input with one inf gives 9 x 32 = 288 infinite outputs and no NaN; F(2x2,
    3x3)'s transforms alone gave NaN there, ``inf - inf``); the runner takes the kernel."""
    fns = nnkernels._winograd_kernels(loops.namespace(True), "float32")
    assert fns is not None
    rng = np.random.default_rng(2)
    x = rng.standard_normal((1, 16, 20, 21)).astype("float32")
    w = rng.standard_normal((16, 16, 3, 3)).astype("float32")
    x[0, 3, 9, 12] = np.inf
    win = dict(pad_mode="pad", pad=(1, 1, 1, 1), stride=(1, 1), dilation=(1, 1), group=1)
    g = nnkernels._conv_geo(x.shape, w.shape, tuple(win.items()))
    assert nnkernels.winograd(x.shape, 16, 1, g, np.float32)
    got = nnkernels.conv2d_winograd(fns, loops.namespace(True), x, w, g)
    op = REGISTRY["conv2d"]
    want = op.ref(x, w, **op.check_attrs(win))
    assert np.isnan(got).sum() == 0 and np.isinf(got).sum() == 9 * 16
    rows, cols = np.nonzero(np.isinf(got).any(axis=(0, 1)))   # the windows reading (9, 12)
    assert set(rows) == {8, 9, 10} and set(cols) == {11, 12, 13}
    np.testing.assert_array_equal(got[np.isinf(want)], want[np.isinf(want)])
    assert_matches(got, want, op, "one inf")


def test_outputs_the_winograd_transforms_make_nan_are_the_direct_kernels_bits():
    """Finite inputs near float32's largest overflow in F(2x2, 3x3)'s transforms (a NaN from
    ``inf - inf``) where the direct sum stays finite: every output reading them is recomputed
    as ``conv_direct`` sums it, so those outputs are its bits (and finite), the others not
    touched (within tolerance of the reference)."""
    L = loops.namespace(True)
    fns, direct = nnkernels._winograd_kernels(L, "float32"), nnkernels._direct_kernels(L, "float32")
    rng = np.random.default_rng(3)
    x = rng.standard_normal((1, 16, 20, 21)).astype("float32")
    x[0, :, 4:8, 6:10] = 3e38
    w = (rng.standard_normal((16, 16, 3, 3)) * 1e-3).astype("float32")
    win = dict(pad_mode="pad", pad=(1, 1, 1, 1), stride=(1, 1), dilation=(1, 1), group=1)
    g = nnkernels._conv_geo(x.shape, w.shape, tuple(win.items()))
    got = nnkernels.conv2d_winograd(fns, L, x, w, g)
    want = nnkernels.conv2d_direct(direct, L, x, w, g)
    assert np.isfinite(want).all() and np.isfinite(got).all()
    read = np.zeros(got.shape, bool)   # the outputs whose 3x3 window reads the large block
    read[:, :, 3:9, 5:11] = True
    np.testing.assert_array_equal(got[read], want[read])
    assert (got[~read] != want[~read]).any()   # elsewhere Winograd's own rounding
    np.testing.assert_allclose(got[~read], want[~read], rtol=2e-5, atol=2e-5 * 20)


@pytest.mark.parametrize("x_shape,w_shape,window,want", [
    ((8, 32, 32, 32), (32, 32, 3, 3), dict(pad_mode="same"), True),      # a ResNet block's
    ((8, 64, 32, 32), (64, 64, 3, 3), dict(pad_mode="pad", pad=(1,) * 4), False),   # 1.1 MB
    ((8, 24, 32, 32), (40, 24, 3, 3), dict(pad_mode="same"), True),      # 0.44 MB
    ((8, 32, 32, 32), (48, 32, 3, 3), dict(pad_mode="same"), False),     # 0.55 MB
    ((8, 16, 20, 20), (16, 16, 3, 3), dict(pad_mode="same"), True),      # rows of 20: alike
    ((8, 32, 34, 17), (32, 32, 3, 3), dict(pad_mode="valid"), False),     # rows of 15
    ((8, 32, 34, 34), (32, 32, 3, 3), dict(pad_mode="valid"), True),      # rows of 32
    ((8, 32, 33, 33), (32, 32, 3, 3), dict(pad_mode="same"), False),      # rows of 33
    ((4, 32, 56, 56), (32, 32, 3, 3), dict(pad_mode="same"), False),     # wide maps
    ((8, 128, 16, 16), (128, 128, 3, 3), dict(pad_mode="same"), False),  # half the lanes
    ((8, 8, 32, 32), (32, 8, 3, 3), dict(pad_mode="same"), False),       # few input channels
    ((8, 32, 32, 32), (8, 32, 3, 3), dict(pad_mode="same"), False),      # few filters
    ((8, 32, 32, 32), (32, 32, 5, 5), dict(pad_mode="same"), False),     # not 3x3
    ((8, 32, 32, 32), (32, 32, 3, 3), dict(pad_mode="same", stride=(2,)), False),
    ((8, 32, 32, 32), (32, 32, 3, 3), dict(pad_mode="same", dilation=(2,)), False),
    ((8, 32, 32, 32), (32, 16, 3, 3), dict(pad_mode="same", group=2), False),
], ids=str)
def test_the_winograd_rule(x_shape, w_shape, window, want):
    """3x3 float32 stride 1, dilation 1, ungrouped, from 16 channels each way, rows of 17 to 32
    columns, a sample's buffers within 512 KB; float64 keeps the direct kernel."""
    assert nnkernels.winograd_bytes(32, 32, nnkernels._conv_geo(
        (1, 32, 32, 32), (32, 32, 3, 3), (("pad_mode", "pad"), ("pad", (1, 1, 1, 1)),
                                          ("stride", (1, 1)), ("dilation", (1, 1)),
                                          ("group", 1))), 4) < 500 * 1024
    win = dict(pad=(0,), stride=(1,), dilation=(1,), group=1) | window
    attrs = REGISTRY["conv2d"].check_attrs(dict(win, out_channel=w_shape[0],
                                                kernel_size=w_shape[2:]))
    g = nnkernels._conv_geo(x_shape, w_shape, tuple(
        (k, attrs[k]) for k in ("pad_mode", "pad", "stride", "dilation", "group")))
    group = attrs["group"]
    assert nnkernels.winograd(x_shape, w_shape[0], group, g, np.float32) is want
    assert nnkernels.winograd(x_shape, w_shape[0], group, g, np.float64) is False


def test_the_runner_takes_the_winograd_kernel_forward_and_for_the_input_gradient(monkeypatch):
    """A ResNet block's convolution (fewer samples): its forward and its input gradient (the
    forward of dy by the flipped filter) run on the Winograd kernel when compiled, the filter
    gradient on its own kernel; as Python the loops keep the rows and columns. All within the
    reference's tolerance."""
    used = []
    run = nnkernels.conv2d_winograd
    monkeypatch.setattr(nnkernels, "conv2d_winograd", lambda *a: used.append(1) or run(*a))
    for name, operands, attrs in _conv_calls((2, 32, 32, 32), (32, 32, 3, 3),
                                             dict(pad_mode="same"), "float32"):
        op = REGISTRY[name]
        attrs = op.check_attrs(attrs)
        want = op.ref(*operands, **attrs)
        before = len(used)
        assert_matches(kernel(op, jit=True)(*operands, **attrs), want, op, name)
        assert len(used) - before == (name != "conv2d_backprop_filter"), name
        assert_matches(kernel(op, jit=False)(*operands, **attrs), want, op, f"Python {name}")
    assert len(used) == 2


@pytest.mark.parametrize("dtype", FLOATS)
def test_the_winograd_filter_matrix_is_g_w_g_transposed(dtype):
    """filter_matrix @ w.ravel() is G w G^T (row order) for every 3x3 filter: its entries
    exact in the dtype, the product within a few roundings of numpy's float64 G w G^T."""
    from graphcell_ir.backend.codegen import winograd_conv as W
    G = np.array([[1, 0, 0], [.5, .5, .5], [.5, -.5, .5], [0, 0, 1]])
    t = W.filter_matrix(dtype)
    assert t.dtype == dtype and t.shape == (16, 9)
    np.testing.assert_array_equal(t.astype(np.float64), np.kron(G, G))
    w = np.random.default_rng(4).standard_normal((5, 3, 3, 3)).astype(dtype)
    want = np.einsum("ai,ocij,bj->aboc", G, w.astype(np.float64), G).reshape(16, 5, 3)
    got = t @ w.reshape(15, 9).T
    np.testing.assert_allclose(got.reshape(16, 5, 3), want, rtol=0,   # sums of w's size
                               atol=8 * np.finfo(dtype).eps * np.abs(w).max())


@pytest.mark.parametrize("features", ["", "+avx,+avx2,+fma", "+avx512f"],
                         ids=["sse", "avx2", "avx512"])
@pytest.mark.parametrize("dtype", FLOATS)
def test_the_direct_filter_kernel_for_each_vector_width(features, dtype, monkeypatch):
    """``filter_direct`` as it is built for targets with 128-, 256- and 512-bit vectors,
    compiled for this machine (LLVM splits what it lacks): planes shorter and longer than a
    vector, ending on a whole vector and in a masked one, channels past the block of 8, offsets
    past a kernel row (2, 4 and 5 of blocks of 3), and a sum made NaN by a junk position's 0 times
    an infinite image value taken again over the real positions (NaN only where the
    reference has one)."""
    from graphcell_ir.backend.codegen import direct_conv as D, direct_filter as F
    fns = _built_for(monkeypatch, features, dtype, ((F, F.NAME), (D, D.PAD)))
    op = REGISTRY["conv2d_backprop_filter"]
    for x_shape, w_shape, pad in [((2, 3, 5, 7), (9, 3, 3, 3), (1, 1, 1, 1)),
                                  ((1, 2, 4, 37), (3, 2, 1, 2), (0, 0, 0, 1)),
                                  ((3, 4, 6, 13), (17, 4, 2, 4), (1, 0, 2, 1)),
                                  ((1, 1, 1, 1), (1, 1, 1, 1), (0, 0, 0, 0)),
                                  ((2, 5, 12, 12), (8, 5, 5, 5), (2, 2, 2, 2))]:
        dy, x, attrs, g = _filter_call(x_shape, w_shape, pad, dtype, seed=sum(x_shape))
        got = nnkernels._filter_direct(fns, dy, x, g, w_shape)
        assert_matches(got, op.ref(dy, x, **attrs), op, f"{features} {x_shape} {w_shape}")
    dy, x, attrs, g = _filter_call((2, 3, 9, 10), (9, 3, 3, 3), (1, 1, 1, 1), dtype)
    x[0, 1, 4, 9] = np.inf   # the last column: offset j = 0 never reads it
    x[1, 2, 0, 0] = -np.inf
    with np.errstate(all="ignore"):
        want = op.ref(dy, x, **attrs)
    got = nnkernels._filter_direct(fns, dy, x, g, (9, 3, 3, 3))
    assert np.isfinite(want).any() and not np.isfinite(want).all()
    assert_matches(got, want, op, f"{features} non-finite")


@pytest.mark.parametrize("features", ["", "+avx,+avx2,+fma", "+avx512f"],
                         ids=["sse", "avx2", "avx512"])
@pytest.mark.parametrize("dtype", FLOATS)
def test_the_lanes_filter_kernel_for_each_vector_width(features, dtype, monkeypatch):
    """``filter_lanes`` as it is built for targets with 128-, 256- and 512-bit vectors (tiles of
    6 or 12 taps by 2 vectors of channels), compiled for this machine: output channels filling
    whole tiles, a masked last vector, a second vector with no channel and fewer channels than
    a vector; taps past the last tile; planes of one position and of many."""
    from graphcell_ir.backend.codegen import direct_conv as D, direct_filter as F
    fns = _built_for(monkeypatch, features, dtype, ((F, F.LANES), (D, D.PAD)))
    op = REGISTRY["conv2d_backprop_filter"]
    for x_shape, w_shape, pad in [((2, 3, 5, 7), (32, 3, 3, 3), (1, 1, 1, 1)),
                                  ((1, 2, 4, 37), (3, 2, 1, 2), (0, 0, 0, 1)),
                                  ((3, 4, 6, 13), (40, 4, 2, 4), (1, 0, 2, 1)),
                                  ((1, 1, 1, 1), (1, 1, 1, 1), (0, 0, 0, 0)),
                                  ((2, 5, 12, 12), (17, 5, 5, 5), (2, 2, 2, 2)),
                                  ((2, 2, 8, 9), (64, 2, 3, 3), (1, 1, 1, 1))]:
        dy, x, attrs, g = _filter_call(x_shape, w_shape, pad, dtype, seed=sum(x_shape))
        got = nnkernels._filter_lanes(fns, loops.namespace(True), dy, x, g, w_shape)
        assert_matches(got, op.ref(dy, x, **attrs), op, f"{features} {x_shape} {w_shape}")
