"""Convolutions and the max-pool gradient in the native step (``backend/step/window.py``): they
run natively (no host op) with the bits of the Python runner's nnkernels path, and the values
of the reference interpreter, over strides, padding, dilation, groups, odd shapes, float32 and
float64, the wide layout of few output positions too; what the step declines (a padded pool,
a grouped convolution in the wide layout) stays a host op with the same results."""
from __future__ import annotations

import numpy as np
import pytest

from graphcell_ir.backend import blas_threads, native, objects
from graphcell_ir.backend import nnkernels as K
from graphcell_ir.backend.executable import compile_executable
from graphcell_ir.backend.interp import interpret
from graphcell_ir.backend.step import window
from graphcell_ir.ops import conv as C
from graphcell_ir.text import parse_module

pytestmark = pytest.mark.skipif(
    not __import__("graphcell_ir.backend.codegen", fromlist=["available"]).available(),
    reason="this llvmlite cannot run the code generator")

_NP = {"f32": np.float32, "f64": np.float64}


def _t(dtype, shape) -> str:
    return f"{dtype}[{','.join(map(str, shape))}]"


def _same_bits(a, b) -> None:
    """``a`` and ``b`` bit for bit (signed zeros and NaNs too: assert_array_equal takes -0.0
    for 0.0)."""
    a, b = np.asarray(a), np.asarray(b)
    assert a.dtype == b.dtype and a.shape == b.shape
    mismatch = a.view(f"u{a.itemsize}") != b.view(f"u{b.itemsize}")
    assert not mismatch.any(), (np.argwhere(mismatch)[:5], a[mismatch][:5], b[mismatch][:5])


def _both(monkeypatch, text: str, args):
    """(the native step's results, its host ops, the Python runner's results, the
    interpreter's)."""
    monkeypatch.setenv("GRAPHCELL_NATIVE_STEP", "1")
    module = parse_module(text)
    exe = compile_executable(module, "f")
    assert exe.step_fallback is None, exe.step_fallback
    # as the executable calls it: under its tuner, OpenBLAS on one thread (a product it would
    # thread itself is cut into other tiles: other bits)
    got = blas_threads.single(lambda: exe.run.step(args))
    monkeypatch.setenv("GRAPHCELL_NATIVE_STEP", "0")
    python = compile_executable(parse_module(text), "f")(args)
    return got, exe.run.step.host_ops, python, interpret(module["f"], *args)


CONVS = [   # x shape, w shape, stride, pad_mode, pad, dilation, group
    ((4, 3, 16, 16), (6, 3, 5, 5), (1, 1), "valid", (0, 0, 0, 0), (1, 1), 1),
    ((3, 4, 21, 13), (6, 2, 3, 3), (2, 1), "valid", (0, 0, 0, 0), (1, 1), 2),
    ((2, 3, 15, 14), (4, 3, 3, 2), (1, 2), "valid", (0, 0, 0, 0), (2, 1), 1),
    ((5, 2, 11, 12), (4, 2, 3, 3), (1, 1), "pad", (1, 2, 0, 1), (1, 1), 1),
    ((2, 4, 10, 11), (8, 1, 3, 3), (1, 1), "same", (0, 0, 0, 0), (1, 1), 4),
    ((32, 6, 14, 14), (16, 6, 5, 5), (1, 1), "valid", (0, 0, 0, 0), (1, 1), 1),   # LeNet's
    # from 16 input channels the forward runs on rows (nnkernels.by_rows)
    ((3, 16, 12, 11), (8, 16, 3, 3), (1, 1), "pad", (1, 1, 1, 1), (1, 1), 1),    # a ResNet's
    ((2, 17, 13, 12), (5, 17, 3, 2), (2, 1), "pad", (1, 0, 2, 1), (1, 2), 1),
    ((2, 16, 11, 11), (4, 8, 3, 3), (1, 1), "same", (0, 0, 0, 0), (1, 1), 2),    # grouped: not
    # products numpy runs as GEMVs (one output channel; one input and output channel on rows)
    # or by its own loop (a 1x1 kernel on one input channel: one term), as the step does
    ((3, 3, 10, 9), (1, 3, 3, 3), (1, 1), "valid", (0, 0, 0, 0), (1, 1), 1),
    ((2, 16, 10, 9), (1, 16, 3, 3), (1, 1), "valid", (0, 0, 0, 0), (1, 1), 1),
    ((2, 1, 10, 9), (4, 1, 1, 1), (1, 1), "valid", (0, 0, 0, 0), (1, 1), 1),
    ((2, 2, 10, 9), (2, 1, 1, 1), (1, 1), "valid", (0, 0, 0, 0), (1, 1), 2),
]


def _conv_text(dtype, xs, ws, stride, pad_mode, pad, dilation, group) -> str:
    win = (f'pad_mode="{pad_mode}", pad={list(pad)}, stride={list(stride)}, '
           f'dilation={list(dilation)}, group={group}')
    g = C._conv_window(xs, ws, pad_mode=pad_mode, pad=pad, stride=stride, dilation=dilation,
                       group=group)
    ys = (xs[0], ws[0], g.oh, g.ow)
    return f"""
func @f(%x: {_t(dtype, xs)}, %w: {_t(dtype, ws)}, %d: {_t(dtype, ys)}) -> {_t(dtype, ys)}, {_t(dtype, ws)}, {_t(dtype, xs)} {{
  %x2 = neg(%x) : {_t(dtype, xs)}
  %y = conv2d(%x2, %w) {{out_channel={ws[0]}, kernel_size={list(ws[2:])}, mode=1, {win}, data_format="NCHW"}} : {_t(dtype, ys)}
  %dw = conv2d_backprop_filter(%d, %x2) {{filter_size={list(ws)}, {win}}} : {_t(dtype, ws)}
  %dx = conv2d_backprop_input(%d, %w) {{input_size={list(xs)}, {win}}} : {_t(dtype, xs)}
  %r = neg(%y) : {_t(dtype, ys)}
  return %r, %dw, %dx
}}
""", ys


@pytest.mark.parametrize("streamed", [False, True], ids=["kept", "streamed"])
@pytest.mark.parametrize("dtype", ["f32", "f64"])
@pytest.mark.parametrize("case", CONVS)
def test_convolutions_run_natively_with_the_runners_bits(monkeypatch, case, dtype, streamed):
    """``streamed``: every batch's columns counted as too large to keep (a ResNet block's), so
    each block writes one sample's columns at a time into its slot (window._streamed)."""
    if streamed:
        monkeypatch.setattr(window, "KEPT_COLUMNS", 0)
    _check_native_convolution(monkeypatch, case, dtype, seed=3)


def _check_native_convolution(monkeypatch, case, dtype, seed, host_ops_=(), poison=None):
    """The convolution and both its gradients run in the step with no host op (but
    ``host_ops_``), with the runner's bits, close to the interpreter's values (NaN where they
    are NaN, their infinities); ``poison(args)`` first sets some of the inputs ``(x, w, dy)``."""
    xs, ws, stride, pad_mode, pad, dilation, group = case
    text, ys = _conv_text(dtype, xs, ws, stride, pad_mode, pad, dilation, group)
    rng = np.random.default_rng(seed)
    args = [rng.standard_normal(s).astype(_NP[dtype]) for s in (xs, ws, ys)]
    if poison is not None:
        poison(args)
    got, host_ops, python, ref = _both(monkeypatch, text, args)
    assert host_ops == host_ops_, host_ops
    tol = 1e-4 if dtype == "f32" else 1e-10
    for g, p, r in zip(got, python, ref):
        _same_bits(g, p)
        np.testing.assert_allclose(g, r, rtol=tol, atol=tol)
    return ref


DIRECT_FILTER = [   # x shape, w shape, pad: stride 1, ungrouped, more than 64 positions
    ((1, 1, 12, 11), (3, 1, 1, 1), (0, 0, 0, 0)),       # 1x1, one channel, batch 1
    ((3, 17, 10, 9), (33, 17, 5, 5), (2, 2, 2, 2)),
    ((5, 33, 12, 11), (17, 33, 3, 3), (0, 0, 0, 0)),
    ((4, 3, 9, 13), (1, 3, 3, 2), (1, 2, 0, 1)),        # one filter, uneven padding
    ((5, 17, 20, 20), (33, 17, 3, 3), (1, 1, 1, 1)),    # split: 4 blocks of 5 samples
]


@pytest.mark.parametrize("dtype", ["f32", "f64"])
@pytest.mark.parametrize("case", DIRECT_FILTER, ids=str)
def test_direct_filter_gradients_run_natively_with_the_runners_bits(monkeypatch, case, dtype):
    """A stride-1 filter gradient (``nnkernels.direct_filter``: no columns; from 32 output
    channels ``filter_lanes``) runs in the step, with the runner's bits, close to the
    interpreter's values."""
    xs, ws, pad = case
    win = f'pad_mode="pad", pad={list(pad)}, stride=[1,1], dilation=[1,1], group=1'
    g = C._conv_window(xs, ws, pad_mode="pad", pad=pad, stride=(1, 1), dilation=(1, 1),
                       group=1)
    ys = (xs[0], ws[0], g.oh, g.ow)
    text = f"""
func @f(%x: {_t(dtype, xs)}, %d: {_t(dtype, ys)}) -> {_t(dtype, ws)} {{
  %x2 = neg(%x) : {_t(dtype, xs)}
  %dw = conv2d_backprop_filter(%d, %x2) {{filter_size={list(ws)}, {win}}} : {_t(dtype, ws)}
  return %dw
}}
"""
    rng = np.random.default_rng(9)
    args = [rng.standard_normal(s).astype(_NP[dtype]) for s in (xs, ys)]
    # at any size (the rule's limits are where it is faster, not where it is right)
    monkeypatch.setattr(K, "DIRECT_MAX_CHANNELS", 10 ** 9)
    monkeypatch.setattr(K, "DIRECT_MIN_PLANE", 0)
    monkeypatch.setattr(K, "DIRECT_MIN_USED", 0.0)
    called = []
    name = "_filter_lanes" if K.channels_in_lanes(ws[0]) else "_filter_direct"
    direct = getattr(window, name)
    monkeypatch.setattr(window, name, lambda *a: called.append(a) or direct(*a))
    got, host_ops, python, ref = _both(monkeypatch, text, args)
    assert host_ops == () and len(called) == 1
    _same_bits(got[0], python[0])
    tol = 1e-4 if dtype == "f32" else 1e-10
    np.testing.assert_allclose(got[0], ref, rtol=tol, atol=tol)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_filter_total_is_numpys_sum_over_samples(dtype):
    """window.FILTER_TOTAL, compiled, adds the per-sample products as numpy's ``sum(axis=0)``
    does, to the bit: in sample order from +0.0 (a sum of -0.0s is +0.0), every group."""
    rng = np.random.default_rng(8)
    dws = rng.standard_normal((5, 2, 7, 3)).astype(dtype)
    dws[:, 1, 2, :] = -0.0
    dws[:, 0, 3, 1] = [1e8, 1.0, -1e8, 1.0, 0.5]   # the order shows in the rounding
    acc = np.zeros((2, 7, 3), dtype)
    kinds = native.kinds_of((dws, acc))
    linked = native.link([objects.emit_loop(window.FILTER_TOTAL, "filter_total", kinds)])

    class NoFallback:
        def __getattr__(self, name):
            raise AssertionError(f"{name}: no native code")
    linked.loops(window.FILTER_TOTAL, NoFallback()).filter_total(dws, acc)
    _same_bits(acc, dws.sum(axis=0))
    assert not np.signbit(acc[1, 2]).any()


AS_FORWARD = [   # stride 1, not wide: input gradients nnkernels.input_as_forward can take
    ((2, 3, 13, 11), (5, 3, 3, 3), (1, 1), "valid", (0, 0, 0, 0), (1, 1), 1),
    ((1, 17, 12, 11), (16, 17, 3, 3), (1, 1), "pad", (1, 1, 1, 1), (1, 1), 1),   # batch 1
    ((2, 1, 14, 13), (3, 1, 5, 5), (1, 1), "pad", (2, 2, 2, 2), (1, 1), 1),
    ((2, 33, 10, 9), (16, 33, 4, 2), (1, 1), "same", (0, 0, 0, 0), (1, 1), 1),   # taken as is
    ((2, 4, 15, 14), (6, 4, 3, 3), (1, 1), "pad", (1, 1, 1, 1), (2, 2), 1),
    ((3, 5, 11, 9), (7, 5, 1, 1), (1, 1), "valid", (0, 0, 0, 0), (1, 1), 1),
    ((2, 17, 12, 12), (33, 17, 5, 5), (1, 1), "pad", (2, 1, 0, 2), (1, 1), 1),
    ((2, 3, 13, 12), (4, 3, 3, 3), (1, 1), "pad", (0, 2, 1, 0), (1, 2), 1),
]


@pytest.mark.parametrize("dtype", ["f32", "f64"])
@pytest.mark.parametrize("case", AS_FORWARD + [CONVS[1], CONVS[-1]], ids=str)
def test_input_gradients_as_forward_convolutions_have_the_runners_bits(monkeypatch, case,
                                                                       dtype):
    """The rule's cost test passed for every shape (``_forward_pays``): the stride-1 input
    gradients run as the forward convolution of dy by the flipped filter in the step
    (:func:`window._input_forward`, the forward's own paths: rows from 16 channels of dy,
    columns below, the direct kernel without dilation), with the runner's bits; a stride-2 and
    a grouped one keep their own path. (One input channel makes a forward's product a GEMV,
    which the step routes as numpy's matmul does: no host op either.)"""
    from graphcell_ir.backend import nnkernels
    monkeypatch.setattr(nnkernels, "_forward_pays", lambda *a: True)
    emitted, input_forward = [], window._input_forward

    def spy(e, op, dy, *rest):
        emitted.append(dy.type.shape)
        return input_forward(e, op, dy, *rest)
    monkeypatch.setattr(window, "_input_forward", spy)
    _check_native_convolution(monkeypatch, case, dtype, seed=5)
    assert len(emitted) == (case[2] == (1, 1) and case[-1] == 1)


def _pool_text(dtype, xs, k, s):
    oh, ow = (xs[2] - k) // s + 1, (xs[3] - k) // s + 1
    ys = xs[:2] + (oh, ow)
    win = f'kernel_size=[{k},{k}], strides=[{s},{s}], pad_mode="valid", data_format="NCHW"'
    return f"""
func @f(%x: {_t(dtype, xs)}, %d: {_t(dtype, ys)}) -> {_t(dtype, xs)}, {_t(dtype, ys)} {{
  %x2 = neg(%x) : {_t(dtype, xs)}
  %p = max_pool2d(%x2) {{{win}}} : {_t(dtype, ys)}
  %g = max_pool2d_grad(%x2, %d) {{{win}}} : {_t(dtype, xs)}
  %r = neg(%g) : {_t(dtype, xs)}
  return %r, %p
}}
""", ys


@pytest.mark.parametrize("dtype", ["f32", "f64"])
@pytest.mark.parametrize("xs,k,s", [((4, 3, 8, 8), 2, 2), ((3, 2, 11, 9), 3, 2),
                                    ((2, 3, 7, 10), 3, 1), ((64, 16, 28, 28), 2, 2),
                                    ((3, 2, 9, 11), 2, 2), ((2, 3, 7, 10), 3, 3)])
def test_max_pools_and_their_gradients_run_natively_with_the_runners_bits(monkeypatch, xs, k, s,
                                                                         dtype):
    """Ties (a quantised input, +0.0 and -0.0 too) go to the first maximum, NaN is a
    window's maximum, a -0.0 gradient lands as +0.0 (added to zero), the rows and columns no
    window covers get zeros; (64, 16, 28, 28): blocks on the pool."""
    text, ys = _pool_text(dtype, xs, k, s)
    rng = np.random.default_rng(5)
    args = [np.round(rng.standard_normal(xs) * 2).astype(_NP[dtype]),
            rng.standard_normal(ys).astype(_NP[dtype])]
    args[0][0, 0, 1, 1] = np.nan
    args[1][0, 0, 0, 1] = -0.0
    got, host_ops, python, ref = _both(monkeypatch, text, args)
    assert host_ops == ()
    _same_bits(got[0], python[0])
    _same_bits(got[1], python[1])
    np.testing.assert_array_equal(got[1], ref[1])
    assert np.isnan(got[1][0, 0, 0, 0])
    ref = ref[0]
    np.testing.assert_allclose(got[0], ref, rtol=1e-6, atol=1e-6)   # overlaps: another order


WIDE = [   # at most 64 output positions: a batch's columns side by side (nnkernels._wide)
    ((2, 3, 6, 6), (4, 3, 3, 3), (1, 1), "valid", (0, 0, 0, 0), (1, 1), 1),
    ((3, 5, 9, 8), (6, 5, 3, 2), (2, 1), "pad", (1, 0, 2, 1), (1, 2), 1),
    ((4, 16, 8, 8), (8, 16, 3, 3), (1, 1), "pad", (1, 1, 1, 1), (1, 1), 1),   # ResNet-18's
    ((4, 8, 8, 8), (16, 8, 1, 1), (2, 2), "valid", (0, 0, 0, 0), (1, 1), 1),  # its shortcut
    ((3, 2, 7, 5), (5, 2, 2, 3), (1, 1), "same", (0, 0, 0, 0), (1, 1), 1),
    # a product the runner splits, im2col_wide/col2im_wide in blocks on the pool
    ((32, 64, 8, 8), (64, 64, 3, 3), (1, 1), "pad", (1, 1, 1, 1), (1, 1), 1),
    # GEMVs: one output channel; one sample with one output position; one term: a 1x1 input
    ((2, 3, 6, 6), (1, 3, 3, 3), (1, 1), "valid", (0, 0, 0, 0), (1, 1), 1),
    ((1, 4, 3, 3), (5, 4, 3, 3), (1, 1), "valid", (0, 0, 0, 0), (1, 1), 1),
    ((3, 1, 4, 4), (6, 1, 1, 1), (1, 1), "valid", (0, 0, 0, 0), (1, 1), 1),
]


@pytest.mark.parametrize("dtype", ["f32", "f64"])
@pytest.mark.parametrize("case", WIDE)
def test_wide_convolutions_run_natively_with_the_runners_bits(monkeypatch, case, dtype):
    _check_native_convolution(monkeypatch, case, dtype, seed=4)


def test_a_padded_pool_gradient_and_a_grouped_wide_convolution_stay_host_ops(monkeypatch):
    xs, ws = (2, 4, 6, 6), (4, 2, 3, 3)   # 4x4 output positions in 2 groups
    text, ys = _conv_text("f32", xs, ws, (1, 1), "valid", (0, 0, 0, 0), (1, 1), 2)
    rng = np.random.default_rng(6)
    args = [rng.standard_normal(s).astype(np.float32) for s in (xs, ws, ys)]
    got, host_ops, python, _ = _both(monkeypatch, text, args)
    assert host_ops == ("conv2d", "conv2d_backprop_filter", "conv2d_backprop_input")
    for g, p in zip(got, python):
        _same_bits(g, p)
    text = _pool_text("f32", (2, 3, 7, 7), 2, 2)[0].replace('"valid"', '"same"') \
        .replace("f32[2,3,3,3]", "f32[2,3,4,4]")
    args = [rng.standard_normal((2, 3, 7, 7)).astype(np.float32),
            rng.standard_normal((2, 3, 4, 4)).astype(np.float32)]
    got, host_ops, python, _ = _both(monkeypatch, text, args)
    assert host_ops == ("max_pool2d", "max_pool2d_grad")
    _same_bits(got[0], python[0])


def test_a_filter_gradient_after_a_host_op_reuses_its_forwards_columns(monkeypatch):
    """The forward convolution's columns serve the filter gradient across a native segment
    boundary (a host op between them: each segment reads the scratch's address afresh)."""
    xs, ws = (4, 3, 16, 16), (6, 3, 5, 5)
    ys = (4, 6, 12, 12)
    win = 'pad_mode="valid", pad=[0,0,0,0], stride=[1,1], dilation=[1,1], group=1'
    text = f"""
func @f(%x: {_t("f32", xs)}, %w: {_t("f32", ws)}) -> {_t("f32", ws)} {{
  %x2 = neg(%x) : {_t("f32", xs)}
  %y = conv2d(%x2, %w) {{out_channel=6, kernel_size=[5,5], mode=1, {win}, data_format="NCHW"}} : {_t("f32", ys)}
  %d = cumsum(%y) {{axis=3, exclusive=false, reverse=false}} : {_t("f32", ys)}
  %dw = conv2d_backprop_filter(%d, %x2) {{filter_size={list(ws)}, {win}}} : {_t("f32", ws)}
  return %dw
}}
"""
    rng = np.random.default_rng(8)
    args = [rng.standard_normal(s).astype(np.float32) for s in (xs, ws)]
    got, host_ops, python, ref = _both(monkeypatch, text, args)
    assert host_ops == ("cumsum",)
    _same_bits(got[0], python[0])
    np.testing.assert_allclose(got[0], ref, rtol=1e-4, atol=1e-3)


def test_the_ops_scratch_is_one_shared_buffer(monkeypatch):
    """Each op's scratch starts at the start of one shared buffer (the ops run one after
    another): a step with a convolution and both its gradients on rows allocates about its
    largest op's scratch, not the three ops' together — and still gives the runner's bits."""
    from graphcell_ir.backend.step import emit
    per_op, buffers = {}, {}
    scratch = emit._Emitter.scratch

    def spy(self, shape, dtype):
        per_op[self.at] = per_op.get(self.at, 0) + int(np.prod(shape)) * np.dtype(dtype).itemsize
        pointer = scratch(self, shape, dtype)
        buffers[id(self.shared)] = self.shared.nbytes
        return pointer
    monkeypatch.setattr(emit._Emitter, "scratch", spy)
    monkeypatch.setattr(window, "KEPT_COLUMNS", 0)   # streamed columns: the op's scratch too
    # stride 2: the filter gradient on columns (a stride-1 one, window._filter_direct, has
    # scratch too small beside the others' to show the sharing)
    _check_native_convolution(monkeypatch, CONVS[7], "f32", seed=4)
    assert len(per_op) == 3   # the convolution and its two gradients
    assert max(per_op.values()) <= sum(buffers.values()) < sum(per_op.values())


DIRECT = [   # stride 1, dilation 1, ungrouped, more than 64 output positions: the direct kernel
    ((1, 1, 9, 9), (1, 1, 1, 1), (1, 1), "valid", (0, 0, 0, 0), (1, 1), 1),    # batch 1, 1x1
    ((2, 1, 11, 8), (3, 1, 3, 3), (1, 1), "pad", (1, 1, 1, 1), (1, 1), 1),
    ((2, 3, 9, 11), (17, 3, 3, 3), (1, 1), "same", (0, 0, 0, 0), (1, 1), 1),
    ((3, 17, 11, 13), (33, 17, 5, 5), (1, 1), "pad", (2, 2, 2, 2), (1, 1), 1),
    ((1, 33, 13, 9), (1, 33, 3, 3), (1, 1), "pad", (1, 1, 1, 1), (1, 1), 1),
    ((2, 5, 10, 37), (9, 5, 3, 2), (1, 1), "pad", (0, 2, 1, 0), (1, 1), 1),    # 3 vectors a row
    ((2, 4, 12, 12), (8, 4, 5, 5), (1, 1), "same", (0, 0, 0, 0), (1, 1), 1),   # 'same', even pad
]


def _count_direct(monkeypatch) -> dict:
    """Counts of the direct kernel's use by the step's emitter and by the runner."""
    calls = {"step": 0, "runner": 0}
    emit, run = window.conv2d_direct, K.conv2d_direct

    def step(*args, **kwargs):
        calls["step"] += 1
        return emit(*args, **kwargs)

    def runner(*args, **kwargs):
        calls["runner"] += 1
        return run(*args, **kwargs)
    monkeypatch.setattr(window, "conv2d_direct", step)
    monkeypatch.setattr(K, "conv2d_direct", runner)
    return calls


def _direct_uses(case) -> int:
    """How often a direct-kernel convolution's step (and runner) calls the kernel: for its
    forward, and for its input gradient when that runs as the forward of ``dy``
    (nnkernels.input_as_forward)."""
    xs, ws, stride, pad_mode, pad, dilation, group = case
    g = C._conv_window(xs, ws, pad_mode=pad_mode, pad=pad, stride=stride, dilation=dilation,
                       group=group)
    return 1 + (K.input_as_forward(xs, ws, g, group) is not None)


@pytest.mark.parametrize("dtype", ["f32", "f64"])
@pytest.mark.parametrize("case", DIRECT, ids=str)
def test_stride_one_forwards_run_on_the_direct_kernel_with_the_runners_bits(monkeypatch, case,
                                                                           dtype):
    """Pads 0/1/2 ('valid', 'same', explicit and uneven), kernels 1x1 to 5x5, odd image
    sizes, channel and filter counts off the vector width and the tile (1, 3, 17, 33), batch 1:
    the step and the runner both take the direct kernel, bit for bit alike, close to the
    interpreter's values."""
    xs, ws, stride, pad_mode, pad, dilation, group = case
    text, ys = _conv_text(dtype, xs, ws, stride, pad_mode, pad, dilation, group)
    calls = _count_direct(monkeypatch)
    rng = np.random.default_rng(6)
    args = [rng.standard_normal(s).astype(_NP[dtype]) for s in (xs, ws, ys)]
    args[0][0, 0, 0, :2] = [np.nan, np.inf]
    got, host_ops, python, ref = _both(monkeypatch, text, args)
    assert host_ops == (), host_ops
    uses = _direct_uses(case)   # the forward and (mostly) the input gradient
    assert calls == {"step": uses, "runner": uses}
    assert np.isnan(got[0]).sum() == np.isnan(ref[0]).sum() > 0
    tol = 1e-4 if dtype == "f32" else 1e-10
    for g, p, r in zip(got, python, ref):
        _same_bits(g, p)
        np.testing.assert_allclose(g, r, rtol=tol, atol=tol)


WINOGRAD = [   # 3x3 float32, stride 1, ungrouped, from 16 channels, rows of 17 to 32
    ((2, 16, 20, 21), (17, 16, 3, 3), (1, 1), "pad", (1, 1, 1, 1), (1, 1), 1),
    ((3, 17, 19, 26), (16, 17, 3, 3), (1, 1), "valid", (0, 0, 0, 0), (1, 1), 1),   # odd rows
    ((2, 32, 32, 32), (32, 32, 3, 3), (1, 1), "same", (0, 0, 0, 0), (1, 1), 1),     # a block's
    ((5, 16, 18, 23), (24, 16, 3, 3), (1, 1), "pad", (0, 2, 1, 0), (1, 1), 1),      # uneven
]


@pytest.mark.parametrize("case", WINOGRAD, ids=str)
def test_3x3_forwards_run_on_the_winograd_kernel_with_the_runners_bits(monkeypatch, case):
    """The forward and the input gradient (the forward of ``dy``) run on the Winograd kernel in
    the step and in the runner, bit for bit alike, close to the interpreter's values; the
    direct kernel is not called."""
    xs, ws, stride, pad_mode, pad, dilation, group = case
    g = C._conv_window(xs, ws, pad_mode=pad_mode, pad=pad, stride=stride, dilation=dilation,
                       group=group)
    assert K.winograd(xs, ws[0], group, g, np.float32)
    direct = _count_direct(monkeypatch)
    calls = _count_winograd(monkeypatch)
    _check_native_convolution(monkeypatch, case, "f32", seed=9)
    assert calls == {"step": 2, "runner": 2}
    assert direct == {"step": 0, "runner": 0}


def _count_winograd(monkeypatch) -> dict:
    """The calls of the Winograd convolution in the step and in the runner, counted."""
    calls = {"step": 0, "runner": 0}
    emit, run = window.conv2d_winograd, K.conv2d_winograd
    monkeypatch.setattr(window, "conv2d_winograd",
                        lambda *a: calls.__setitem__("step", calls["step"] + 1) or emit(*a))
    monkeypatch.setattr(K, "conv2d_winograd",
                        lambda *a: calls.__setitem__("runner", calls["runner"] + 1) or run(*a))
    return calls


def _infinities(args) -> None:
    """+-inf in ``x`` (a corner, an edge, inside) and ``dy`` (a corner, inside), a NaN in
    ``x``: the forward and the input gradient both see some."""
    x, _, dy = args
    x[0, 0, 0, 0], x[-1, -1, -1, x.shape[3] // 2], x[0, 1, 5, 7] = np.inf, -np.inf, np.inf
    x[-1, 2, 3, 3] = np.nan
    dy[0, 0, -1, -1], dy[-1, 1, 4, 9] = -np.inf, np.inf


@pytest.mark.parametrize("case", WINOGRAD[:2], ids=str)
def test_the_winograd_kernels_infinities_are_the_runners_bits(monkeypatch, case):
    """Infinite and NaN inputs on the Winograd kernel (forward and input gradient): the step's
    outputs are the runner's bits, and the interpreter's infinities and NaN (the outputs its
    transforms made NaN are recomputed as direct sums, in both)."""
    calls = _count_winograd(monkeypatch)
    y, _, dx = _check_native_convolution(monkeypatch, case, "f32", seed=4, poison=_infinities)
    assert calls == {"step": 2, "runner": 2}
    assert np.isinf(y).sum() > 9 and np.isnan(y).any() and np.isinf(dx).any()


@pytest.mark.parametrize("case", CONVS, ids=str)
def test_the_direct_rule_keeps_other_convolutions_on_their_paths(monkeypatch, case):
    """Stride 2, dilation 2 and groups (and the wide layout) stay on the columns or rows, in the
    step and in the runner alike; every other convolution of the list takes the direct kernel."""
    xs, ws, stride, pad_mode, pad, dilation, group = case
    g = C._conv_window(xs, ws, pad_mode=pad_mode, pad=pad, stride=stride, dilation=dilation,
                       group=group)
    want = stride == (1, 1) and dilation == (1, 1) and group == 1 and g.oh * g.ow > 64
    assert K.direct(xs, group, g) is want
    calls = _count_direct(monkeypatch)
    _check_native_convolution(monkeypatch, case, "f32", seed=7)
    uses = _direct_uses(case) if want else 0
    assert calls == {"step": uses, "runner": uses}
