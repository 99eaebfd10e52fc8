"""Convolutions, their gradients and max pools inside the native step: the runner's nnkernels
path (its per-sample layout, ``backend/nnkernels.py``) emitted as native code, so that a LeNet
step no longer returns to Python around each of them.

Each op runs blocks of samples on the native pool; a block calls ``nn_loops``' compiled
im2col/col2im/max-pool loops and BLAS's GEMM (by address, :mod:`.blas`) exactly as nnkernels'
block does — the same loops, one ``cblas_?gemm`` per sample and group with the operands,
transposes and leading dimensions numpy's ``matmul`` passes for nnkernels' views — so the
results are the runner's bits (every sample's values are computed alone, whatever the blocks).
The filter gradient's per-sample products are then summed in sample order, as numpy's
``sum(axis=0)`` does, by a loop of this module's (:data:`FILTER_TOTAL`) and transposed by
``swap_last``, from the columns its forward convolution left when there is one
(:func:`_columns`); a padded input gradient is cropped by :data:`CROP`; the max pool forward
(numpy's reference in the runner) is :data:`MAX_POOL`, with the reference's tie rule.

A forward of stride and dilation 1, ungrouped, outside the wide layout
(:func:`nnkernels.direct`) runs on the direct kernel as nnkernels does: per sample its padded
image (``pad_image``) and ``conv_direct`` (``codegen/direct_conv.py``), the same calls on the
same values (:func:`conv2d_direct`); a 3x3 float32 one at the sizes of
:func:`nnkernels.winograd` on the Winograd kernel instead: the runner's filter transform (one
BLAS product by a constant matrix), then per sample ``pad_image`` and ``conv_winograd``
(``codegen/winograd_conv.py``, :func:`conv2d_winograd`).

A stride-1 filter gradient at the sizes of :func:`nnkernels.direct_filter` takes no columns:
per sample its padded image and ``dy`` (``pad_image``) and ``filter_direct``
(``codegen/direct_filter.py``), per-sample gradients summed in sample order
(:func:`_filter_direct`), as nnkernels does; from :data:`nnkernels.LANES_MIN_CHANNELS` output
channels ``dy`` as positions x channels (``swap_last``) and ``filter_lanes`` instead
(:func:`_filter_lanes`).

From 16 input channels (:func:`nnkernels.by_rows`) the other forwards and the input gradient
run on rows instead, as nnkernels does: the image channels last, ``im2row``/``row2im`` and the
transposed products (:func:`_conv2d_rows`, :func:`_input_rows`). A stride-1 input gradient
that nnkernels runs as a forward convolution (:func:`nnkernels.input_as_forward`) is emitted so
here too: on the direct kernel by the flipped filter's taps, else the flipped filter, then the
forward's own path (:func:`_input_forward`). Columns
of more than :data:`KEPT_COLUMNS` are streamed: one sample at a time through its block's slot,
in L2 (:func:`_streamed`).

At most 64 output positions (:func:`nnkernels._wide`: ResNet-18's late layers) take the wide
layout, as in nnkernels: the batch's columns side by side (``im2col_wide``), one product for
the batch split as the runner's ``matmul`` splits it (:meth:`~.emit._Emitter.gemm_on`), the
NCHW moves by :data:`SWAP_FIRST` and ``col2im_wide`` for the input gradient.

Every product is the routine numpy's ``matmul`` takes for its shape (a GEMV for one output
channel or position, numpy's loop for one input channel of a 1x1 kernel: ``step/route.py``).
What nnkernels runs otherwise (a grouped convolution in the wide layout, a padded pool, other
dtypes) raises :class:`~graphcell_ir.backend.lower.Unsupported`: the op stays a host op."""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

from graphcell_ir.backend import nnkernels as K
from graphcell_ir.backend.lower import Unsupported
from graphcell_ir.backend.native import pool as native_pool
from graphcell_ir.backend.step import blas, memory
from graphcell_ir.backend.step.task import Task, call_gemm
from graphcell_ir.ir.core import Literal
from graphcell_ir.ops.effects import assign

FILTER_TOTAL = """def filter_total(dws, acc):
    for n in range(dws.shape[0]):
        for g in range(dws.shape[1]):
            for k in range(dws.shape[2]):
                a = acc[g, k]
                more = dws[n, g, k]
                for o in range(dws.shape[3]):
                    a[o] += more[o]
"""
"""``acc[g, k, o] += sum over n of dws[n, g, k, o]``, added in sample order to the zeroed
``acc``, whole rows one sample after the other: numpy's ``sum(axis=0)`` of a C-ordered stack, to
the bit (it starts from +0.0 too: a sum of -0.0s is +0.0). The filter gradient from its
per-sample products, transposed into ``dw`` by ``swap_last`` after. (The loop this replaced
started from the first sample, so a sum of -0.0s stayed -0.0, unlike the runner's; and it added
the samples innermost, striding a whole product: 280 us for a ResNet block's (32, 1, 288, 32)
against 21 us so.)"""

_FLOATS = (np.dtype(np.float32), np.dtype(np.float64))


class _Sizes(NamedTuple):
    """A convolution's window and the sizes of its products: ``n`` samples of ``c`` channels,
    ``o`` filters in ``grp`` groups of ``og``, ``p`` output positions, ``ckk`` column rows
    (``kg`` per group)."""
    g: object
    grp: int
    n: int
    c: int
    o: int
    p: int
    og: int
    ckk: int
    kg: int


def _sizes(op, x_shape, w_shape) -> _Sizes:
    """The op's window (nnkernels' cached geometry) and product sizes, or Unsupported."""
    a = op.attrs
    if a.get("data_format", "NCHW") != "NCHW":
        raise Unsupported(f"{op.opdef.name} in {a.get('data_format')}")
    win = {k: a[k] for k in ("pad_mode", "pad", "stride", "dilation", "group")}
    g = K._conv_geo(tuple(x_shape), tuple(w_shape), tuple(win.items()))
    grp, (n, c), o = win["group"], x_shape[:2], w_shape[0]
    ckk = c * g.kh * g.kw
    return _Sizes(g, grp, n, c, o, g.oh * g.ow, o // grp, ckk, ckk // grp)


def _floats(op, *values) -> np.dtype:
    """The one float dtype of ``values`` (tensors, no literal), or Unsupported."""
    if any(isinstance(v, Literal) for v in values):
        raise Unsupported(f"{op.opdef.name} of a literal")
    dtypes = {v.type.dtype.np_dtype for v in values}
    if len(dtypes) != 1 or next(iter(dtypes)) not in _FLOATS or \
            any(0 in v.type.shape for v in values):
        raise Unsupported(f"{op.opdef.name} of {[str(v.type) for v in values]}")
    dtype = next(iter(dtypes))
    if blas.gemm(dtype.name) is None:
        raise Unsupported(f"no BLAS GEMM for {dtype}")
    return dtype


def _split_work(n: int, work: int, unit: int) -> int:
    """The pool's ``work`` argument: nnkernels' block rule (:func:`nnkernels.blocks`) decides
    whether the op is split at all; a split one always goes to the pool (as the step's GEMM
    blocks)."""
    return max(work, native_pool.MIN_WORK) if K.blocks(n, work, unit) > 1 else 0


def _window_args(g) -> list:
    return [g.kh, g.kw, g.sh, g.sw, g.dh, g.dw]


def _im2col(task, e, dtype, x_base, cols_base, lo, hi, x_shape, g, ckk: int,
            slot=None) -> None:
    """im2col of samples ``[lo, hi)`` into their rows of the columns (into sample ``slot``'s
    rows when given: one sample's columns written where the block reuses them)."""
    t, i64, item = task.t, e.i64, dtype.itemsize
    c, h, w = x_shape[1:]
    nb = t.sub(hi, lo)
    p = g.oh * g.ow
    kinds = [(None, dtype, (0, 0, 0, 0)), *[0] * 10, (None, dtype, (0, 0, 0))]
    values = [task.at(x_base, t.mul(lo, i64(c * h * w)), item), nb, i64(c), i64(h), i64(w),
              *map(i64, _window_args(g) + [g.pt, g.pl, g.oh, g.ow]),
              task.at(cols_base, t.mul(lo if slot is None else slot, i64(ckk * p)), item), nb,
              i64(ckk), i64(p)]
    task.loop("im2col", kinds, values)


KEPT_COLUMNS = 8 << 20
"""Bytes of a batch's columns up to which a forward convolution keeps them for its filter
gradient (:func:`_columns`). Larger ones would come back from memory, not the caches (a ResNet
block's 32 samples of (288, 1024) float32: 37.7 MB, more than the 32 MB L3): each block then
writes one sample's columns at a time into one slot and runs its GEMM while they are in L2, and
the filter gradient writes them again (:func:`_streamed`)."""


def _streamed(n: int, ckk: int, p: int, dtype) -> bool:
    """Whether a convolution's columns are written one sample at a time, each just before its
    GEMM, into its block's one slot (the batch's columns are more than :data:`KEPT_COLUMNS`):
    the columns' GEMMs then read them from L2 (a ResNet block's filter gradient, 32 samples of
    (288, 1024) @ (1024, 32), one core: 4.9 ms from memory, 3.3 ms from L2)."""
    return n * ckk * p * np.dtype(dtype).itemsize > KEPT_COLUMNS


def _columns(e, x, g, dtype, ckk: int, p: int):
    """``(scratch, fresh)``: the im2col scratch of ``x`` for window ``g``; not fresh when an
    earlier convolution of the step filled it already (the filter gradient of a forward
    convolution: the same columns of the same value, kept in that op's own scratch, which
    nothing else writes), so its im2col is not run again. Never for a variable the step assigns
    (its buffer changes under the same value), nor for streamed columns (:func:`_streamed`:
    only one slot per block is ever written)."""
    key = (x, g)
    if key in e.columns:   # its address: the pointer is an instruction of its own segment
        return e.address(e.columns[key]), False
    n = x.type.shape[0]
    if _streamed(n, ckk, p, dtype):   # only its op reads it: the ops' shared scratch
        return e.scratch((n, ckk, p), dtype), True
    cols = memory.empty((n, ckk, p), dtype)
    e.keep.append(cols)
    if not any(op.opdef is assign and op.operands[0] is x for op in e.fn.body):
        e.columns[key] = cols.ctypes.data
    return e.address(cols.ctypes.data), True


def _sample_columns(task, e, dtype, xb, cb, x_shape, g, ckk: int, p: int, fresh: bool):
    """``columns(s)``: where sample ``s``'s columns are for its GEMM. Kept columns (not
    streamed) are im2col'd for the whole block first unless ``fresh`` is false; streamed ones
    are written here, one sample at a time, into the block's first sample's slot."""
    n = x_shape[0]
    if not _streamed(n, ckk, p, dtype):
        if fresh:
            _im2col(task, e, dtype, xb, cb, task.first, task.last, x_shape, g, ckk)
        return lambda s: task.at(cb, task.t.mul(s, e.i64(ckk * p)), dtype.itemsize)

    def columns(s):
        _im2col(task, e, dtype, xb, cb, s, task.t.add(s, e.i64(1)), x_shape, g, ckk,
                slot=task.first)
        return task.at(cb, task.t.mul(task.first, e.i64(ckk * p)), dtype.itemsize)
    return columns


class _Filter(NamedTuple):
    """A filter that is no value of the function: a scratch pointer and its (O, C, KH, KW)
    shape (the input gradient's flipped filter, :func:`_input_forward`)."""
    pointer: object
    shape: tuple


def _filter_pointer(e, w):
    """``w``'s data pointer: a value's buffer, or a :class:`_Filter`'s scratch."""
    return w.pointer if isinstance(w, _Filter) else e.pointer(w)


def _filter_rows(e, w, dtype, o: int, c: int, kk: int):
    """A scratch buffer holding the filter ``w`` (O, C, KH*KW) with its channels last
    (O, KH*KW, C): the rows both row-layout convolutions multiply by."""
    wr = e.scratch((o, kk, c), dtype)
    e.nn_loop("swap_last", [(_filter_pointer(e, w), dtype, (o, c, kk)), (wr, dtype, (o, kk, c))])
    return wr


def _conv2d_rows(e, x, w, y, dtype, g, n: int, c: int, o: int, p: int, ckk: int) -> None:
    """The forward convolution on rows (nnkernels._conv2d_rows, :func:`nnkernels.by_rows`):
    the filter's rows once, then per sample — in its block's slots, so in L2 — the image to
    channels last, ``im2row``, the GEMM ``rows @ wr^T`` and the product back to NCHW."""
    item, i64 = dtype.itemsize, e.i64
    h, wd = x.type.shape[2:]
    hw, kk = h * wd, g.kh * g.kw
    arr3, arr4 = (None, dtype, (0, 0, 0)), (None, dtype, (0, 0, 0, 0))
    wr = _filter_rows(e, w, dtype, o, c, kk)
    xh, rows, yt = (e.scratch(shape, dtype) for shape in ((n, hw, c), (n, p, ckk), (n, p, o)))
    task = Task(e, "conv2d_rows", [e.pointer(x), wr, xh, rows, yt, e.pointer(y)])
    xb, wb, hb, rb, tb, yb = task.bases
    t = task.t

    def sample(s):
        f = task.first
        image, rows_at = task.at(hb, t.mul(f, i64(hw * c)), item), \
            task.at(rb, t.mul(f, i64(p * ckk)), item)
        product = task.at(tb, t.mul(f, i64(p * o)), item)
        task.loop("swap_last", [arr3, arr3], [
            task.at(xb, t.mul(s, i64(c * hw)), item), i64(1), i64(c), i64(hw),
            image, i64(1), i64(hw), i64(c)])
        task.loop("im2row", [arr4, *[0] * 10, arr3], [
            image, i64(1), i64(h), i64(wd), i64(c),
            *map(i64, _window_args(g) + [g.pt, g.pl, g.oh, g.ow]),
            rows_at, i64(1), i64(p), i64(ckk)])
        task.gemm(dtype, False, True, p, o, ckk, rows_at, ckk, wb, ckk, product, o)
        task.loop("swap_last", [arr3, arr3], [
            product, i64(1), i64(p), i64(o),
            task.at(yb, t.mul(s, i64(o * p)), item), i64(1), i64(o), i64(p)])
    task.each(task.first, task.last, sample)
    task.run(n, _split_work(n, n * p * o * ckk + n * p * ckk * K.COPY_MACS, K.GEMM_UNIT))


def _pad_image(task, dtype, src, shape: tuple, image, size: int, pt: int, pl: int, hp: int,
               wp: int) -> None:
    """In ``task``: ``direct_conv``'s ``pad_image`` of the C-ordered ``(C, H, W)`` sample at
    ``src`` into the ``size`` elements at ``image`` (each plane zero-padded to ``hp x wp``,
    ``pt`` rows above and ``pl`` columns left; zeros after the planes)."""
    from graphcell_ir.backend.codegen import direct_conv as D
    i64 = task.i64
    task.loop(D.PAD, [(None, dtype, (0,) * 3), (None, dtype, (0,)), 0, 0, 0, 0],
              [src, *map(i64, shape), image, *map(i64, (size, pt, pl, hp, wp))],
              source=D.SOURCE)


def conv2d_direct(e, x, w, y, dtype, g, x_shape, o: int, flipped: bool = False) -> None:
    """``y = conv2d(x, w)`` of stride and dilation 1 on the direct kernel
    (nnkernels.conv2d_direct, :func:`nnkernels.direct`): the filter's taps once, then per
    sample, in its block's padded image (so in L2), ``pad_image`` and ``conv_direct`` straight
    into NCHW. ``x``, ``w``, ``y``: pointers (the step's values by ``e.pointer``, or scratch) to
    C-ordered NCHW ``x_shape``, ``(o, C, KH, KW)`` and ``(N, o, OH, OW)`` arrays of ``dtype``;
    ``flipped``: ``w`` is ``(C, o, KH, KW)``, the filter whose flip (nnkernels.flipped_filter)
    the convolution is by, its taps read from it (``filter_taps``' flip)."""
    from graphcell_ir.backend.codegen import direct_conv as D
    item, i64 = dtype.itemsize, e.i64
    n, c, h, wd = x_shape
    kk = g.kh * g.kw
    ckk = c * kk
    hp, wp = g.padded(h, wd)
    opad, size = D.padded_outputs(o), D.image_size(c, hp, wp)
    wt = e.scratch((ckk, opad), dtype)
    wo, wc = (c, o) if flipped else (o, c)   # w's own (O, C)
    e.nn_loop("filter_taps", [(w, dtype, (wo * wc * kk,)), (wt, dtype, (ckk, opad)),
                              wo, wc, kk, int(flipped)])
    xp = e.scratch((n, size), dtype)
    task = Task(e, "conv2d_direct", [x, wt, xp, y])
    xb, wb, pb, yb = task.bases
    t = task.t
    arr1, arr2, arr3 = ((None, dtype, (0,) * k) for k in (1, 2, 3))

    def sample(s):
        image = task.at(pb, t.mul(task.first, i64(size)), item)
        _pad_image(task, dtype, task.at(xb, t.mul(s, i64(c * h * wd)), item), (c, h, wd),
                   image, size, g.pt, g.pl, hp, wp)
        task.loop(D.NAME, [arr1, arr2, arr3, 0, 0, 0, 0, 0], [
            image, i64(size), wb, i64(ckk), i64(opad),
            task.at(yb, t.mul(s, i64(o * g.oh * g.ow)), item), i64(o), i64(g.oh), i64(g.ow),
            *map(i64, (c, hp, wp, g.kh, g.kw))], source=D.SOURCE)
    task.each(task.first, task.last, sample)
    task.run(n, _split_work(n, K.direct_forward_work(n, c, o, g, hp, wp), K.GEMM_UNIT))


def conv2d_winograd(e, x, w, y, dtype, g, x_shape, o: int) -> None:
    """``y = conv2d(x, w)`` of a 3x3 float32 filter, stride and dilation 1, by Winograd's
    F(2x2, 3x3) (nnkernels.conv2d_winograd, :func:`nnkernels.winograd`): the filter transformed
    once (the runner's product by ``winograd_conv.filter_matrix``, a constant of the step, into
    the zeroed ``u``), then per sample, in its block's padded image and work buffer,
    ``pad_image`` to whole tiles and ``conv_winograd`` straight into NCHW; the kernel reads
    ``w`` as the runner's does (its NaN outputs recomputed as direct sums). Pointers as
    :func:`conv2d_direct`'s."""
    from graphcell_ir.backend.codegen import direct_conv as D, winograd_conv as W
    item, i64 = dtype.itemsize, e.i64
    n, c, h, wd = x_shape
    hp, wp = W.padded_size(g.oh, g.ow)
    opad, size = D.padded_outputs(o), W.image_size(c, hp, wp)
    work_size = W.work_size(c, opad)
    u = e.scratch((W.ELEMENTS, opad, c), dtype)
    e.zero(u, W.ELEMENTS * opad * c * item)
    call_gemm(e, e.b, dtype, False, True, W.ELEMENTS, o * c, 9,
              _constant(e, W.filter_matrix(dtype), "winograd_filter"), 9, w, 9, u, opad * c)
    xp, work = e.scratch((n, size), dtype), e.scratch((n, work_size), dtype)
    task = Task(e, "conv2d_winograd", [x, u, w, xp, work, y])
    xb, ub, fb, pb, wb, yb = task.bases
    t = task.t
    arr1, arr3 = ((None, dtype, (0,) * k) for k in (1, 3))

    def sample(s):
        image = task.at(pb, t.mul(task.first, i64(size)), item)
        _pad_image(task, dtype, task.at(xb, t.mul(s, i64(c * h * wd)), item), (c, h, wd),
                   image, size, g.pt, g.pl, hp, wp)
        task.loop(W.NAME, [arr1, arr3, arr1, arr3, arr1, 0, 0], [
            image, i64(size), ub, *map(i64, (W.ELEMENTS, opad, c)), fb, i64(o * c * 9),
            task.at(yb, t.mul(s, i64(o * g.oh * g.ow)), item), *map(i64, (o, g.oh, g.ow)),
            task.at(wb, t.mul(task.first, i64(work_size)), item), i64(work_size),
            i64(hp), i64(wp)], source=W.SOURCE)
    task.each(task.first, task.last, sample)
    task.run(n, _split_work(n, K.winograd_work(n, c, o, g, hp, wp), K.GEMM_UNIT))


def _constant(e, values: np.ndarray, name: str):
    """A pointer to ``values`` (a float array) as a constant of the step's module."""
    typ = e.element_type(values.dtype)
    array = e.ir.ArrayType(typ, values.size)
    table = e.ir.GlobalVariable(e.module, array, f"{e.symbol}_{name}_{len(e.module.globals)}")
    table.initializer = e.ir.Constant(array, [typ(float(v)) for v in values.ravel()])
    table.global_constant = True
    table.linkage = "internal"
    return table


def conv2d(e, op) -> None:
    """``y = conv2d(x, w)``: per block of samples, im2col then one GEMM per sample and group
    ``(Og, Cg*KH*KW) @ cols`` straight into NCHW (nnkernels.conv2d), or on rows
    (:func:`_conv2d_rows`), or for stride 1 on the direct kernel (:func:`conv2d_direct`)."""
    x, w = op.operands
    (y,) = op.results
    dtype = _floats(op, x, w, y)
    g, grp = _sizes(op, x.type.shape, w.type.shape)[:2]
    _forward(e, op, x, w, y, dtype, g, grp)


def _forward(e, op, x, w, y, dtype, g, grp: int) -> None:
    """The forward convolution ``y = conv2d(x, w)`` in window ``g`` by nnkernels.conv2d's
    rules; ``w`` a value or a :class:`_Filter` (``op`` only names the op in refusals)."""
    (n, c), o = x.type.shape[:2], (w.shape if isinstance(w, _Filter) else w.type.shape)[0]
    p, og, ckk = g.oh * g.ow, o // grp, c * g.kh * g.kw
    kg = ckk // grp
    if _wide(op, x.type.shape, g, grp):
        return _conv2d_wide(e, op, x, w, y, dtype, g, n, o, p, ckk)
    if K.winograd(x.type.shape, o, grp, g, dtype):
        return conv2d_winograd(e, e.pointer(x), _filter_pointer(e, w), e.pointer(y), dtype, g,
                               x.type.shape, o)
    if K.direct(x.type.shape, grp, g):
        return conv2d_direct(e, e.pointer(x), _filter_pointer(e, w), e.pointer(y), dtype, g,
                             x.type.shape, o)
    if K.by_rows(x.type.shape, grp, g):
        return _conv2d_rows(e, x, w, y, dtype, g, n, c, o, p, ckk)
    item = dtype.itemsize
    cols, fresh = _columns(e, x, g, dtype, ckk, p)
    task = Task(e, "conv2d", [e.pointer(x), _filter_pointer(e, w), cols, e.pointer(y)])
    xb, wb, cb, yb = task.bases
    columns = _sample_columns(task, e, dtype, xb, cb, x.type.shape, g, ckk, p, fresh)

    def sample(s):
        at = columns(s)
        for gi in range(grp):
            task.gemm(dtype, False, False, og, p, kg, task.at(wb, gi * og * kg, item), kg,
                      task.at(at, gi * kg * p, item), p,
                      task.at(yb, task.t.add(task.t.mul(s, e.i64(o * p)), e.i64(gi * og * p)),
                              item), p)
    task.each(task.first, task.last, sample)
    task.run(n, _split_work(n, n * o * p * kg + n * ckk * p * K.COPY_MACS, K.GEMM_UNIT))


def conv2d_backprop_filter(e, op) -> None:
    """``dw``: per block of samples, im2col (unless the forward convolution of ``x`` left the
    columns, :func:`_columns`) then one GEMM per sample and group ``cols @ dy^T`` into a
    per-sample stack, summed in sample order after (nnkernels.conv2d_backprop_filter)."""
    dy, x = op.operands
    (dw,) = op.results
    dtype = _floats(op, dy, x, dw)
    g, grp, n, c, o, p, og, ckk, kg = _sizes(op, x.type.shape, tuple(op.attrs["filter_size"]))
    if _wide(op, x.type.shape, g, grp):
        return _filter_wide(e, op, dy, x, dw, dtype, g, n, o, p, ckk)
    if K.direct_filter(x.type.shape, op.attrs["filter_size"], grp, g):
        if K.channels_in_lanes(o):
            return _filter_lanes(e, dy, x, dw, dtype, g, n, c, o)
        return _filter_direct(e, dy, x, dw, dtype, g, n, c, o)
    item = dtype.itemsize
    (cols, fresh), dws = _columns(e, x, g, dtype, ckk, p), e.scratch((n, grp, kg, og), dtype)
    task = Task(e, "conv2d_filter", [e.pointer(x), e.pointer(dy), cols, dws])
    xb, db, cb, sb = task.bases
    columns = _sample_columns(task, e, dtype, xb, cb, x.type.shape, g, ckk, p, fresh)

    def sample(s):
        t, at = task.t, columns(s)
        for gi in range(grp):
            task.gemm(dtype, False, True, kg, og, p, task.at(at, gi * kg * p, item), p,
                      task.at(db, t.add(t.mul(s, e.i64(o * p)), e.i64(gi * og * p)), item), p,
                      task.at(sb, t.add(t.mul(s, e.i64(grp * kg * og)), e.i64(gi * kg * og)),
                              item), og)
    task.each(task.first, task.last, sample)
    task.run(n, _split_work(n, n * grp * kg * og * p + n * ckk * p * K.COPY_MACS, K.GEMM_UNIT))
    total = e.scratch((grp, kg, og), dtype)
    e.zero(total, grp * kg * og * item)
    e.nn_loop("filter_total", [(dws, dtype, (n, grp, kg, og)), (total, dtype, (grp, kg, og))],
              FILTER_TOTAL)
    e.nn_loop("swap_last", [(total, dtype, (grp, kg, og)), (e.pointer(dw), dtype, (grp, og, kg))])


def _filter_direct(e, dy, x, dw, dtype, g, n: int, c: int, o: int) -> None:
    """The stride-1 filter gradient without columns (nnkernels._filter_direct,
    :func:`nnkernels.direct_filter`): per sample, in its block's padded image and ``dy`` (the
    slots of the block's first sample), ``pad_image`` of both and ``filter_direct``
    (``codegen/direct_filter.py``) into a per-sample stack, summed in sample order by
    :data:`FILTER_TOTAL` straight into ``dw`` (it is (O, C*KH*KW) already)."""
    from graphcell_ir.backend.codegen import direct_conv as D, direct_filter as F
    item, i64 = dtype.itemsize, e.i64
    h, wd = x.type.shape[2:]
    ckk = c * g.kh * g.kw
    hp, wp = g.oh + g.kh - 1, g.ow + g.kw - 1
    xsize, dsize = D.image_size(c, hp, wp), D.image_size(o, g.oh, wp)
    xp, dyp, dws = (e.scratch(shape, dtype) for shape in ((n, xsize), (n, dsize), (n, o, ckk)))
    task = Task(e, "conv2d_filter_direct", [e.pointer(x), e.pointer(dy), xp, dyp, dws])
    xb, db, pb, qb, sb = task.bases
    t = task.t
    arr1, arr2 = ((None, dtype, (0,) * k) for k in (1, 2))
    image = task.at(pb, t.mul(task.first, i64(xsize)), item)
    dy_image = task.at(qb, t.mul(task.first, i64(dsize)), item)

    def sample(s):
        _pad_image(task, dtype, task.at(xb, t.mul(s, i64(c * h * wd)), item), (c, h, wd),
                   image, xsize, g.pt, g.pl, hp, wp)
        _pad_image(task, dtype, task.at(db, t.mul(s, i64(o * g.oh * g.ow)), item),
                   (o, g.oh, g.ow), dy_image, dsize, 0, 0, g.oh, wp)
        task.loop(F.NAME, [arr1, arr1, arr2, 0, 0, 0, 0, 0, 0], [
            image, i64(xsize), dy_image, i64(dsize),
            task.at(sb, t.mul(s, i64(o * ckk)), item), i64(o), i64(ckk),
            *map(i64, (c, wp, g.oh, g.ow, g.kh, g.kw))], source=F.SOURCE)
    task.each(task.first, task.last, sample)
    task.run(n, _split_work(n, K.direct_filter_work(n, c, o, g), K.GEMM_UNIT))
    e.zero(e.pointer(dw), o * ckk * item)
    e.nn_loop("filter_total", [(dws, dtype, (n, 1, o, ckk)), (e.pointer(dw), dtype, (1, o, ckk))],
              FILTER_TOTAL)


def _filter_lanes(e, dy, x, dw, dtype, g, n: int, c: int, o: int) -> None:
    """The stride-1 filter gradient with the output channels in the vector lanes
    (nnkernels._filter_lanes, :func:`nnkernels.channels_in_lanes`): per sample, in its block's
    padded image and transposed ``dy`` (the slots of the block's first sample), ``pad_image``,
    ``swap_last`` of ``dy`` and ``filter_lanes`` (``codegen/direct_filter.py``) into a
    per-sample stack of ``(C*KH*KW, O)``, summed in sample order by :data:`FILTER_TOTAL` and
    transposed into ``dw`` by ``swap_last``."""
    from graphcell_ir.backend.codegen import direct_conv as D, direct_filter as F
    item, i64 = dtype.itemsize, e.i64
    h, wd = x.type.shape[2:]
    ckk, p = c * g.kh * g.kw, g.oh * g.ow
    hp, wp = g.oh + g.kh - 1, g.ow + g.kw - 1
    xsize = D.image_size(c, hp, wp)
    xp, dyt, dws = (e.scratch(shape, dtype) for shape in ((n, xsize), (n, p * o), (n, ckk, o)))
    task = Task(e, "conv2d_filter_lanes", [e.pointer(x), e.pointer(dy), xp, dyt, dws])
    xb, db, pb, qb, sb = task.bases
    t = task.t
    arr1, arr2, arr3 = ((None, dtype, (0,) * k) for k in (1, 2, 3))
    image = task.at(pb, t.mul(task.first, i64(xsize)), item)
    dy_rows = task.at(qb, t.mul(task.first, i64(p * o)), item)

    def sample(s):
        _pad_image(task, dtype, task.at(xb, t.mul(s, i64(c * h * wd)), item), (c, h, wd),
                   image, xsize, g.pt, g.pl, hp, wp)
        task.loop("swap_last", [arr3, arr3], [
            task.at(db, t.mul(s, i64(o * p)), item), i64(1), i64(o), i64(p),
            dy_rows, i64(1), i64(p), i64(o)])
        task.loop(F.LANES, [arr1, arr2, arr2, 0, 0, 0, 0, 0, 0], [
            image, i64(xsize), dy_rows, i64(p), i64(o),
            task.at(sb, t.mul(s, i64(ckk * o)), item), i64(ckk), i64(o),
            *map(i64, (c, wp, g.oh, g.ow, g.kh, g.kw))], source=F.SOURCE)
    task.each(task.first, task.last, sample)
    task.run(n, _split_work(n, K.direct_filter_work(n, c, o, g), K.GEMM_UNIT))
    total = e.scratch((1, ckk, o), dtype)
    e.zero(total, ckk * o * item)
    e.nn_loop("filter_total", [(dws, dtype, (n, 1, ckk, o)), (total, dtype, (1, ckk, o))],
              FILTER_TOTAL)
    e.nn_loop("swap_last", [(total, dtype, (1, ckk, o)), (e.pointer(dw), dtype, (1, o, ckk))])


# --- the wide layout: a batch's columns side by side, one GEMM for the batch -----------------

SWAP_FIRST = """def swap_first(a, out):
    for i in range(a.shape[0]):
        for j in range(a.shape[1]):
            src = a[i, j]
            dst = out[j, i]
            for v in range(src.shape[0]):
                dst[v] = src[v]
"""
"""``out[j, i] = a[i, j]`` (rows of the last axis copied): the wide GEMMs' ``(O, N, P)`` product
to NCHW, and ``dy`` from NCHW to ``(O, N, P)`` (nnkernels' ``transpose(1, 0, 2)`` copies)."""


def _wide(op, x_shape, g, grp: int) -> bool:
    """Whether nnkernels runs the op in the wide layout (:func:`nnkernels._wide`); grouped ones
    stay host ops (the runner's batched per-group products are numpy's stacked matmul)."""
    if not K._wide(tuple(x_shape), g):
        return False
    if grp != 1:
        raise Unsupported(f"{op.opdef.name} in the wide layout with {grp} groups")
    return True


def _wide_columns(e, x, g, dtype, ckk: int, p: int):
    """The wide columns ``(C*KH*KW, N, OH*OW)`` of ``x`` for window ``g`` (nnkernels'
    ``_wide_cols``): im2col_wide over blocks of samples, unless an earlier convolution of the
    step wrote them (its forward's: the same value, that op's own scratch; never for a
    variable the step assigns, :func:`_columns`'s rule)."""
    key = (x, g, "wide")
    if key in e.columns:
        return e.address(e.columns[key])
    n, c, h, w = x.type.shape
    cols = memory.empty((ckk, n, p), dtype)
    e.keep.append(cols)
    if not any(op.opdef is assign and op.operands[0] is x for op in e.fn.body):
        e.columns[key] = cols.ctypes.data
    pointer = e.address(cols.ctypes.data)
    task = Task(e, "im2col_wide", [e.pointer(x), pointer])
    xb, cb = task.bases
    i64 = e.i64
    task.loop("im2col_wide", [(None, dtype, (0, 0, 0, 0)), *[0] * 10, (None, dtype, (0, 0, 0)),
                              0, 0],
              [xb, i64(n), i64(c), i64(h), i64(w),
               *map(i64, _window_args(g) + [g.pt, g.pl, g.oh, g.ow]),
               cb, i64(ckk), i64(n), i64(p), task.first, task.last])
    size = ckk * n * p
    task.run(n, size if K.blocks(n, size, K.LOOP_UNIT) > 1 else 0)
    return pointer


def _channels_first(e, dy, dtype, n: int, o: int, p: int):
    """``dy`` (N, O, OH, OW) copied as ``(O, N*OH*OW)`` (nnkernels' ``_channels_first``)."""
    moved = e.scratch((o, n * p), dtype)
    e.nn_loop("swap_first", [(e.pointer(dy), dtype, (n, o, p)), (moved, dtype, (o, n, p))],
              SWAP_FIRST)
    return moved


def _conv2d_wide(e, op, x, w, y, dtype, g, n: int, o: int, p: int, ckk: int) -> None:
    """The wide forward (nnkernels._conv2d_wide): the batch's columns, one product
    ``(O, C*KH*KW) @ (C*KH*KW, N*P)`` split as the runner's matmul splits it, moved to NCHW."""
    cols = _wide_columns(e, x, g, dtype, ckk, p)
    product = e.scratch((o, n * p), dtype)
    e.gemm_on(dtype, False, False, o, n * p, ckk, _filter_pointer(e, w), ckk, cols, n * p,
              product)
    e.nn_loop("swap_first", [(product, dtype, (o, n, p)), (e.pointer(y), dtype, (n, o, p))],
              SWAP_FIRST)


def _filter_wide(e, op, dy, x, dw, dtype, g, n: int, o: int, p: int, ckk: int) -> None:
    """The wide filter gradient (nnkernels._filter_wide): ``dy`` as (O, N*P) times the batch's
    columns transposed (BLAS's flag), straight into ``dw`` (O, C*KH*KW)."""
    cols = _wide_columns(e, x, g, dtype, ckk, p)
    d = _channels_first(e, dy, dtype, n, o, p)
    e.gemm_on(dtype, False, True, o, ckk, n * p, d, n * p, cols, n * p, e.pointer(dw))


def _input_wide(e, op, dy, w, dx, dtype, g, shape, o: int, p: int, ckk: int) -> None:
    """The wide input gradient (nnkernels._input_wide): ``w^T @ dy`` (``w`` transposed by the
    flag) into the batch's column gradients, then col2im_wide over blocks of samples into the
    zeroed ``dx`` (the padding's share dropped: no padded image, no crop)."""
    n, c, h, wd = shape
    item, i64 = dtype.itemsize, e.i64
    d = _channels_first(e, dy, dtype, n, o, p)
    dcols = e.scratch((ckk, n * p), dtype)
    e.gemm_on(dtype, True, False, ckk, n * p, o, e.pointer(w), ckk, d, n * p, dcols)
    e.zero(e.pointer(dx), n * c * h * wd * item)
    task = Task(e, "col2im_wide", [dcols, e.pointer(dx)])
    cb, xb = task.bases
    task.loop("col2im_wide", [(None, dtype, (0, 0, 0)), *[0] * 10, (None, dtype, (0, 0, 0, 0)),
                              0, 0],
              [cb, i64(ckk), i64(n), i64(p),
               *map(i64, _window_args(g) + [g.pt, g.pl, g.oh, g.ow]),
               xb, i64(n), i64(c), i64(h), i64(wd), task.first, task.last])
    size = ckk * n * p
    task.run(n, size if K.blocks(n, size, K.LOOP_UNIT) > 1 else 0)


def _unpadded(op, g) -> None:
    if g.pt or g.pb or g.pl or g.pr:
        raise Unsupported(f"{op.opdef.name} with padding (its result is a crop)")


CROP = """def crop(xp, pt, pl, out):
    for n in range(out.shape[0]):
        for c in range(out.shape[1]):
            for y in range(out.shape[2]):
                src = xp[n, c, y + pt]
                dst = out[n, c, y]
                for v in range(dst.shape[0]):
                    dst[v] = src[v + pl]
"""
"""``out`` = the padded gradient ``xp`` without its padding (nnkernels' ``_crop``: a copy)."""


def _input_rows(e, w, dy, dx, dtype, g, n: int, c: int, o: int, p: int, ckk: int) -> None:
    """The input gradient on rows (nnkernels._input_rows): the filter's rows once, then per
    sample in its block's slots the GEMM ``dy^T @ wr`` (``dy`` transposed by the flag), the
    channels-last image zeroed, ``row2im`` and the image back to NCHW."""
    item, i64 = dtype.itemsize, e.i64
    h, wd = dx.type.shape[2:]
    hw, kk = h * wd, g.kh * g.kw
    arr3, arr4 = (None, dtype, (0, 0, 0)), (None, dtype, (0, 0, 0, 0))
    wr = _filter_rows(e, w, dtype, o, c, kk)
    drows, xh = (e.scratch(shape, dtype) for shape in ((n, p, ckk), (n, hw, c)))
    task = Task(e, "conv2d_input_rows", [e.pointer(dy), wr, drows, xh, e.pointer(dx)])
    db, wb, rb, hb, xb = task.bases
    t = task.t

    def sample(s):
        f = task.first
        rows_at = task.at(rb, t.mul(f, i64(p * ckk)), item)
        image = task.at(hb, t.mul(f, i64(hw * c)), item)
        task.gemm(dtype, True, False, p, ckk, o, task.at(db, t.mul(s, i64(o * p)), item), p,
                  wb, ckk, rows_at, ckk)
        task.zero(image, hw * c * item)
        task.loop("row2im", [arr3, *[0] * 10, arr4], [
            rows_at, i64(1), i64(p), i64(ckk),
            *map(i64, _window_args(g) + [g.pt, g.pl, g.oh, g.ow]),
            image, i64(1), i64(h), i64(wd), i64(c)])
        task.loop("swap_last", [arr3, arr3], [
            image, i64(1), i64(hw), i64(c),
            task.at(xb, t.mul(s, i64(c * hw)), item), i64(1), i64(c), i64(hw)])
    task.each(task.first, task.last, sample)
    task.run(n, _split_work(n, n * p * ckk * (o + K.COPY_MACS), K.GEMM_UNIT))


def _input_forward(e, op, dy, w, dx, dtype, g, pads: tuple) -> None:
    """The stride-1 input gradient as the forward convolution of ``dy`` by the flipped filter
    (nnkernels.input_as_forward), as nnkernels._input_forward runs it: on the direct kernel
    its taps straight from ``w`` (:func:`conv2d_direct` ``flipped``), else (the Winograd
    kernel's window too) ``flip_filter`` into a scratch filter and the forward's own path for
    that window (:func:`_forward`)."""
    o, c, kh, kw = w.type.shape
    win = (("pad_mode", "pad"), ("pad", pads), ("stride", (1, 1)), ("dilation", (g.dh, g.dw)),
           ("group", 1))
    forward = K._conv_geo(dy.type.shape, (c, o, kh, kw), win)
    if K.direct(dy.type.shape, 1, forward) and \
            not K.winograd(dy.type.shape, c, 1, forward, dtype):
        return conv2d_direct(e, e.pointer(dy), e.pointer(w), e.pointer(dx), dtype, forward,
                             dy.type.shape, c, flipped=True)
    flipped = _Filter(e.scratch((c, o, kh, kw), dtype), (c, o, kh, kw))
    e.nn_loop("flip_filter", [(e.pointer(w), dtype, w.type.shape),
                              (flipped.pointer, dtype, flipped.shape)])
    _forward(e, op, dy, flipped, dx, dtype, forward, 1)


def conv2d_backprop_input(e, op) -> None:
    """``dx``: per block of samples, one GEMM per sample and group ``w^T @ dy`` into the
    column gradients, then col2im into the zeroed ``dx`` — or, with padding, into a zeroed
    padded scratch image cropped into ``dx`` after (nnkernels.conv2d_backprop_input). Streamed
    column gradients (:func:`_streamed`) go through one sample at a time: its GEMM into the
    block's one slot, its image zeroed and its col2im (and crop) while they are in L2 — the
    same loops on the same values, so the same bits."""
    dy, w = op.operands
    (dx,) = op.results
    dtype = _floats(op, dy, w, dx)
    shape = tuple(op.attrs["input_size"])
    if shape != dx.type.shape:
        raise Unsupported(f"{op.opdef.name}: input_size {shape} is not its result's shape")
    g, grp, n, c, o, p, og, ckk, kg = _sizes(op, shape, w.type.shape)
    h, wd = shape[2:]
    hp, wp = g.padded(h, wd)
    if _wide(op, shape, g, grp):
        return _input_wide(e, op, dy, w, dx, dtype, g, shape, o, p, ckk)
    pads = K.input_as_forward(shape, w.type.shape, g, grp)
    if pads is not None:
        return _input_forward(e, op, dy, w, dx, dtype, g, pads)
    if K.by_rows(shape, grp, g):
        return _input_rows(e, w, dy, dx, dtype, g, n, c, o, p, ckk)
    item = dtype.itemsize
    padded = (hp, wp) != (h, wd)
    streamed = _streamed(n, ckk, p, dtype)
    dxp = e.scratch((n, c, hp, wp), dtype) if padded else e.pointer(dx)
    if not streamed:
        e.zero(dxp, n * c * hp * wp * item)
    dcols = e.scratch((n, ckk, p), dtype)
    task = Task(e, "conv2d_input", [e.pointer(w), e.pointer(dy), dcols, dxp, e.pointer(dx)])
    wb, db, cb, pb, xb = task.bases
    t, i64 = task.t, e.i64

    def gemms(s, slot):
        for gi in range(grp):
            task.gemm(dtype, True, False, kg, p, og, task.at(wb, gi * og * kg, item), kg,
                      task.at(db, t.add(t.mul(s, i64(o * p)), i64(gi * og * p)), item), p,
                      task.at(cb, t.add(t.mul(slot, i64(ckk * p)), i64(gi * kg * p)), item), p)

    def scatter(lo, nb, slot, image_slot):
        """col2im of ``nb`` samples' column gradients at ``slot`` into the image at
        ``image_slot``, cropped into ``dx``'s samples from ``lo``."""
        image = [task.at(pb, t.mul(image_slot, i64(c * hp * wp)), item), nb, i64(c), i64(hp),
                 i64(wp)]
        kinds = [(None, dtype, (0, 0, 0)), *[0] * 8, (None, dtype, (0, 0, 0, 0))]
        task.loop("col2im", kinds, [
            task.at(cb, t.mul(slot, i64(ckk * p)), item), nb, i64(ckk), i64(p),
            *map(i64, _window_args(g) + [g.oh, g.ow]), *image])
        if padded:
            task.loop("crop", [(None, dtype, (0, 0, 0, 0)), 0, 0, (None, dtype, (0, 0, 0, 0))],
                      [*image, i64(g.pt), i64(g.pl),
                       task.at(xb, t.mul(lo, i64(c * h * wd)), item), nb, i64(c), i64(h),
                       i64(wd)], CROP)

    if streamed:
        def sample(s):
            gemms(s, task.first)
            image_slot = task.first if padded else s
            task.zero(task.at(pb, t.mul(image_slot, i64(c * hp * wp)), item),
                      c * hp * wp * item)
            scatter(s, i64(1), task.first, image_slot)
        task.each(task.first, task.last, sample)
    else:
        task.each(task.first, task.last, lambda s: gemms(s, s))
        scatter(task.first, t.sub(task.last, task.first), task.first, task.first)
    task.run(n, _split_work(n, n * ckk * p * (og + K.COPY_MACS), K.GEMM_UNIT))


def _pool_window(op, x, pooled):
    """The window of ``op``, an unpadded NCHW max pool of ``x`` (or its gradient) whose pooled
    side (``y``, or ``dy``) is ``pooled``; Unsupported for any other."""
    a = op.attrs
    if a.get("data_format", "NCHW") != "NCHW" or x.type.ndim != 4:
        raise Unsupported(f"{op.opdef.name} in {a.get('data_format')}")
    g = K._pool_geo(x.type.shape, tuple(a["kernel_size"]), tuple(a["strides"]), a["pad_mode"])
    _unpadded(op, g)
    if pooled.type.shape != (*x.type.shape[:2], g.oh, g.ow):
        raise Unsupported(f"{op.opdef.name} of {x.type} and {pooled.type}")
    return g


def max_pool2d_grad(e, op) -> None:
    """``dx`` of an unpadded max pool: zeroed, then ``nn_loops.max_pool_grad`` over blocks of
    samples, each with its scratch rows (nnkernels.max_pool2d_grad). (A loop writing ``dx``
    whole for windows that tile the image, with no zeroing and no scatter, measured 50% slower
    on W2's step: its strided writes.)"""
    x, dy = op.operands
    (dx,) = op.results
    dtype = _floats(op, x, dy, dx)
    g = _pool_window(op, x, dy)
    n, c, h, w = x.type.shape
    if dx.type.shape != x.type.shape:
        raise Unsupported(f"max_pool2d_grad of {x.type} to {dx.type}")
    item, i32 = dtype.itemsize, np.dtype(np.int32)
    e.zero(e.pointer(dx), dx.type.size * item)
    best, at = e.scratch((n, g.ow), dtype), e.scratch((n, g.ow), i32)
    task = Task(e, "max_pool_grad", [e.pointer(x), e.pointer(dy), e.pointer(dx), best, at])
    xb, db, gb, bb, ab = task.bases
    t, i64, lo = task.t, e.i64, task.first
    nb = t.sub(task.last, lo)
    image = [nb, i64(c), i64(h), i64(w)]
    xs = [task.at(xb, t.mul(lo, i64(c * h * w)), item), *image]
    dys = [task.at(db, t.mul(lo, i64(c * g.oh * g.ow)), item), nb, i64(c), i64(g.oh), i64(g.ow)]
    rows = [task.at(bb, t.mul(lo, i64(g.ow)), item), nb, i64(g.ow),
            task.at(ab, t.mul(lo, i64(g.ow)), 4), nb, i64(g.ow)]
    img, rows_k = (None, dtype, (0, 0, 0, 0)), [(None, dtype, (0, 0)), (None, i32, (0, 0))]
    dxb = task.at(gb, t.mul(lo, i64(c * h * w)), item)
    task.loop("max_pool_grad", [img, img, 0, 0, 0, 0, (None, dtype, (0, 0, 0)), *rows_k],
              [*xs, *dys, *map(i64, (g.kh, g.kw, g.sh, g.sw)), dxb, nb, i64(c), i64(h * w),
               *rows])
    task.run(n, x.type.size if K.blocks(n, x.type.size, K.LOOP_UNIT) > 1 else 0)


MAX_POOL = """def max_pool(x, kh, kw, sh, sw, out):
    for n in range(out.shape[0]):
        for c in range(out.shape[1]):
            for y in range(out.shape[2]):
                o = out[n, c, y]
                for i in range(kh):
                    row = x[n, c, y * sh + i]
                    for j in range(kw):
                        if i + j == 0:
                            for v in range(o.shape[0]):
                                o[v] = row[v * sw]
                        elif sw == 2:
                            for v in range(o.shape[0]):
                                b = o[v]
                                val = row[2 * v + j]
                                o[v] = b if b > val or b != b else val
                        else:
                            for v in range(o.shape[0]):
                                b = o[v]
                                val = row[v * sw + j]
                                o[v] = b if b > val or b != b else val
"""
"""An unpadded max pool: each window's maximum over its offsets in row-major order, folded as
the reference's ``np.maximum(best, v)`` folds (the running maximum stays only when it is
larger or NaN; on a tie, +0.0 against -0.0 too, the new value wins, as numpy's does), so the
reference's bits. The usual stride 2 has its own copy
of the row loop with the stride a constant (vector shuffles, not gathers: see
``nn_loops._window_argmax``)."""


def max_pool2d(e, op) -> None:
    """``y`` of an unpadded max pool: :data:`MAX_POOL` over blocks of samples on the pool (the
    runner runs numpy's reference: the same maxima)."""
    (x,), (y,) = op.operands, op.results
    dtype = _floats(op, x, y)
    g = _pool_window(op, x, y)
    n, c, h, w = x.type.shape
    item = dtype.itemsize
    task = Task(e, "max_pool", [e.pointer(x), e.pointer(y)])
    xb, yb = task.bases
    t, i64, lo = task.t, e.i64, task.first
    nb = t.sub(task.last, lo)
    task.loop("max_pool", [(None, dtype, (0, 0, 0, 0)), 0, 0, 0, 0, (None, dtype, (0, 0, 0, 0))],
              [task.at(xb, t.mul(lo, i64(c * h * w)), item), nb, i64(c), i64(h), i64(w),
               *map(i64, (g.kh, g.kw, g.sh, g.sw)),
               task.at(yb, t.mul(lo, i64(c * g.oh * g.ow)), item), nb, i64(c), i64(g.oh),
               i64(g.ow)], MAX_POOL)
    task.run(n, x.type.size if K.blocks(n, x.type.size, K.LOOP_UNIT) > 1 else 0)
