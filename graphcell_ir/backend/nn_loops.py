"""The loops of the convolution, pooling, select, softmax/cross-entropy and batch-norm kernels:
plain Python that graphcell's code generator (or numba) compiles.

This module is kernel *source*. :mod:`graphcell_ir.backend.nnkernels` compiles each function,
per argument kinds, with the code generator (``backend/codegen``, which takes this module's
subset: no allocation, scratch buffers from the caller, one type per local; an entry writes
its results into arrays, a helper may return one number) or, for what it refuses, with ``numba.njit`` from a copy of this text in the kernel
cache directory; with the JIT disabled the very same functions run as Python, a third oracle
beside the numpy references and the compiled kernels. Keep it free of imports beyond numpy and
math, and inside that subset.

Conventions of the convolution and pooling loops (callers in ``nnkernels`` guarantee them;
nothing is checked again inside a loop):

- images are C-contiguous NCHW arrays of one float dtype; the window is ``kh, kw`` (kernel),
  ``sh, sw`` (stride), ``dh, dw`` (dilation), ``pt, pl`` (top and left padding) and ``oh, ow``
  (output size), as :class:`graphcell_ir.ops.conv.Window` computes them, so every padded
  position a window reads lies inside the padded image;
- ``cols`` is im2col's ``(N, C*KH*KW, OH*OW)``: row ``(c*kh + i)*kw + j`` holds what kernel
  offset ``(i, j)`` of channel ``c`` sees at every output position, so convolution is one
  batched GEMM ``(O, C*KH*KW) @ cols`` that lands directly in NCHW order; the ``_wide``
  loops' ``cols`` is ``(C*KH*KW, N, OH*OW)`` (one GEMM for the batch) and they take a sample
  range ``lo, hi`` (a block of a C-ordered array is not C-ordered);
- pooling reads an input the caller has padded already (the dtype's lowest value for max, zero
  for g; no copy in 'valid' mode), so its loops test no bounds;
- scatter-backs (col2im, the pool gradients) add into a zeroed *padded* buffer, the caller crops
  it, and they visit kernel offsets in the outer loops, in the references' order, so sums
  round as the references' do;
- the inner loops run along a row of output columns with offsets outside, in the
  conditional-select form that LLVM vectorises (measured: a per-window scalar loop was 5x
  slower, and splitting im2col's row at the padding 4x slower).

Example (the loops run as Python too)::

    >>> import numpy as np
    >>> x = np.arange(9.0).reshape(1, 1, 3, 3)
    >>> cols = np.empty((1, 4, 4))
    >>> im2col(x, 2, 2, 1, 1, 1, 1, 0, 0, 2, 2, cols)
    >>> cols[0, 0].tolist()   # offset (0, 0) at the four output positions
    [0.0, 1.0, 3.0, 4.0]
"""
import math

import numpy as np

prange = range  # the loader puts numba's prange here when it compiles

SHORT_PIPELINE = ("filter_taps",)
"""The loops LLVM's O2 makes no faster (measured): the code generator compiles them with its
short pipeline (``codegen.pipeline``), in half the time. filter_taps: 15 -> 7.5 ms of LLVM,
as fast (a 3x3 64 -> 64 filter's taps 21.9 -> 21.1 us, flipped 31.4 -> 31.0; 256 -> 256
348 -> 334 us). Not the others: without the loop vectoriser swap_last ran 1.3x slower, the
step's filter_total 4x, sparse_softmax_cross_entropy_rows 1.1x, W2's step (the pools, im2col)
1.1-1.3x."""


def im2col(x, kh, kw, sh, sw, dh, dw, pt, pl, oh, ow, cols):
    """cols[n, (c*kh + i)*kw + j, y*ow + v] = x[n, c, y*sh + i*dh - pt, v*sw + j*dw - pl], 0
    where that is padding."""
    n_, c_ = x.shape[0], x.shape[1]
    for n in prange(n_):
        for c in range(c_):
            for i in range(kh):
                for j in range(kw):
                    _window_row(x, n, c, i, j, sh, sw, dh, dw, pt, pl, oh, ow,
                                cols[n, (c * kh + i) * kw + j])


def im2row(xh, kh, kw, sh, sw, dh, dw, pt, pl, oh, ow, rows):
    """rows[n, y*ow + v, (i*kw + j)*C + c] = xh[n, y*sh + i*dh - pt, v*sw + j*dw - pl, c], 0
    where that is padding: :func:`im2col`'s columns as rows, from a channels-last image
    ``xh`` (N, H, W, C), so every window offset is one copy of C contiguous channels."""
    n_, h, wd, c_ = xh.shape[0], xh.shape[1], xh.shape[2], xh.shape[3]
    for n in prange(n_):
        for y in range(oh):
            for v in range(ow):
                row = rows[n, y * ow + v]
                for i in range(kh):
                    hy = y * sh + i * dh - pt
                    for j in range(kw):
                        wx = v * sw + j * dw - pl
                        at = (i * kw + j) * c_
                        if hy < 0 or hy >= h or wx < 0 or wx >= wd:
                            for c in range(c_):
                                row[at + c] = 0
                        else:
                            src = xh[n, hy, wx]
                            for c in range(c_):
                                row[at + c] = src[c]


def row2im(drows, kh, kw, sh, sw, dh, dw, pt, pl, oh, ow, xh):
    """The adjoint of :func:`im2row`: add each row of ``drows`` (N, OH*OW, KH*KW*C) back into
    the zeroed channels-last image ``xh`` (N, H, W, C), window by window; what falls on the
    padding is dropped."""
    n_, h, wd, c_ = xh.shape[0], xh.shape[1], xh.shape[2], xh.shape[3]
    for n in prange(n_):
        for y in range(oh):
            for v in range(ow):
                row = drows[n, y * ow + v]
                for i in range(kh):
                    hy = y * sh + i * dh - pt
                    for j in range(kw):
                        wx = v * sw + j * dw - pl
                        if 0 <= hy < h and 0 <= wx < wd:
                            dst = xh[n, hy, wx]
                            at = (i * kw + j) * c_
                            for c in range(c_):
                                dst[c] += row[at + c]


def swap_last(a, out):
    """``out[n] = a[n]^T`` (a copy): an image to channels last, a filter to rows
    (``nnkernels.weight_rows``), a sample's ``(OH*OW, O)`` product back to NCHW, the filter
    gradient's total to (O, C*KH*KW). Up to eight rows of the shorter side at a time, the
    longer axis between them and the (at most) eight inside: each step reads eight neighbours or
    writes eight, and the other side's rows are eight streams (a (32, 1024) sample 15 -> 7.2 us
    either way against one element at a time along the longer axis; with the shorter axis
    inner, (1024, 32) -> (32, 1024) took 177 us: 4 KiB strides, one cache set). The last block's
    ``min`` keeps one loop nest a side: with a remainder loop of their own (or eight named
    rows) the two sides compiled in 38-43 ms, so in ~24 against the one-element loops' ~28."""
    m, k = a.shape[1], a.shape[2]
    for n in range(a.shape[0]):
        if m <= k:
            for i in range(0, m, 8):
                e = min(8, m - i)
                for j in range(k):
                    d = out[n, j]
                    for q in range(e):
                        d[i + q] = a[n, i + q, j]
        else:
            for j in range(0, k, 8):
                e = min(8, k - j)
                for i in range(m):
                    s = a[n, i]
                    for q in range(e):
                        out[n, j + q, i] = s[j + q]


def filter_taps(w, wt, o_, c_, kk, flip):
    """The taps of filter ``w`` (``(O, C, KH, KW)`` flattened, ``kk = KH*KW``) with their
    output channels innermost, zero-padded to wt's columns (the direct convolution's tiles of
    output channels): ``wt[c*kk + t, o] = w[o, c, t]``, 0 for o >= O. With ``flip``, those of
    the flipped filter ``(C, O, KH, KW)`` (:func:`flip_filter`: a stride-1 input gradient as a
    forward, ``nnkernels.input_as_forward``) read straight from ``w``: ``wt[o*kk + t, c] =
    w[o, c, kk-1-t]``, 0 for c >= C (``(i, j) -> (KH-1-i, KW-1-j)`` is ``t -> kk-1-t`` of ``t =
    i*KW + j``) — one loop for both, so a step's forward and input gradient share one object,
    and no flipped copy in between. Eight columns at a time: eight read streams, eight
    neighbours written."""
    cols = c_ if flip else o_
    step = kk if flip else c_ * kk
    for p0 in range(0, wt.shape[1], 8):
        e = min(8, wt.shape[1] - p0)
        for k in range(wt.shape[0]):
            g = k // kk
            at = g * c_ * kk + kk - 1 - (k - g * kk) if flip else k
            d = wt[k]
            for q in range(e):
                d[p0 + q] = w[(p0 + q) * step + at] if p0 + q < cols else 0


def flip_filter(w, out):
    """out[c, o, i, j] = w[o, c, KH-1-i, KW-1-j]: the filter of the forward convolution that
    is a stride-1 convolution's input gradient (``nnkernels.input_as_forward``), the kernel
    turned half a turn and its two channel axes swapped."""
    o_, c_, kh, kw = w.shape[0], w.shape[1], w.shape[2], w.shape[3]
    for c in range(c_):
        for o in range(o_):
            src = w[o, c]
            dst = out[c, o]
            for i in range(kh):
                s = src[kh - 1 - i]
                d = dst[i]
                for j in range(kw):
                    d[j] = s[kw - 1 - j]


def im2col_wide(x, kh, kw, sh, sw, dh, dw, pt, pl, oh, ow, cols, lo, hi):
    """:func:`im2col` of samples ``lo:hi`` with the samples side by side: ``cols`` is
    ``(C*KH*KW, N, OH*OW)``, so a batch's columns are one ``(C*KH*KW, N*OH*OW)`` matrix (one
    GEMM for all the samples)."""
    c_ = x.shape[1]
    for k in prange(hi - lo):
        n = lo + k
        for c in range(c_):
            for i in range(kh):
                for j in range(kw):
                    _window_row(x, n, c, i, j, sh, sw, dh, dw, pt, pl, oh, ow,
                                cols[(c * kh + i) * kw + j, n])


def _window_row(x, n, c, i, j, sh, sw, dh, dw, pt, pl, oh, ow, row):
    """row[y*ow + v] = x[n, c, y*sh + i*dh - pt, v*sw + j*dw - pl], 0 where that is padding:
    what kernel offset (i, j) of channel c sees at every output position."""
    h, wd = x.shape[2], x.shape[3]
    off = j * dw - pl
    for y in range(oh):
        hy = y * sh + i * dh - pt
        o = y * ow
        if hy < 0 or hy >= h:
            for v in range(ow):
                row[o + v] = 0
        elif sw == 1:
            for v in range(ow):
                wx = v + off
                row[o + v] = x[n, c, hy, wx] if 0 <= wx < wd else 0
        else:
            for v in range(ow):
                wx = v * sw + off
                row[o + v] = x[n, c, hy, wx] if 0 <= wx < wd else 0


def col2im(dcols, kh, kw, sh, sw, dh, dw, oh, ow, dxp):
    """The adjoint of :func:`im2col`: add each row of ``dcols`` (N, C*KH*KW, OH*OW) back into
    the zeroed padded image ``dxp`` (N, C, HP, WP)."""
    n_, c_ = dxp.shape[0], dxp.shape[1]
    for n in prange(n_):
        for c in range(c_):
            for i in range(kh):
                for j in range(kw):
                    _spread_row(dcols[n, (c * kh + i) * kw + j], n, c, i, j, sh, sw, dh, dw,
                                oh, ow, dxp)


def col2im_wide(dcols, kh, kw, sh, sw, dh, dw, pt, pl, oh, ow, dx, lo, hi):
    """The adjoint of :func:`im2col_wide`, samples ``lo:hi``: ``dcols`` is
    ``(C*KH*KW, N, OH*OW)``, added into the zeroed unpadded image ``dx`` (N, C, H, W); what
    falls on the padding is dropped (the elements inside get the same sums in the same order
    as a padded image would, so no padded image and no crop)."""
    c_, h, wd = dx.shape[1], dx.shape[2], dx.shape[3]
    for k in prange(hi - lo):
        n = lo + k
        for c in range(c_):
            for i in range(kh):
                for j in range(kw):
                    src = dcols[(c * kh + i) * kw + j, n]
                    off = j * dw - pl
                    for y in range(oh):
                        hy = y * sh + i * dh - pt
                        if 0 <= hy < h:
                            row = dx[n, c, hy]
                            o = y * ow
                            for v in range(ow):
                                wx = v * sw + off
                                if 0 <= wx < wd:
                                    row[wx] += src[o + v]


def _spread_row(src, n, c, i, j, sh, sw, dh, dw, oh, ow, dxp):
    """Add the column row ``src`` of kernel offset (i, j) of channel c into ``dxp[n, c]``."""
    off = j * dw
    for y in range(oh):
        row = dxp[n, c, y * sh + i * dh]
        o = y * ow
        if sw == 1 and off >= 0:   # always (dilation >= 1); it tells LLVM
            for v in range(ow):       # that no index wraps: a vector loop
                row[v + off] += src[o + v]
        else:
            for v in range(ow):
                row[v * sw + off] += src[o + v]


def _window_argmax(xp, n, c, y, kh, kw, sh, sw, best, at):
    """best[v], at[v]: the maximum of window (y, v) of the padded plane ``xp[n, c]`` and where
    its first occurrence is, as a flat index into that plane (NaN wins, as in numpy's
    max/argmax). Offsets are the outer loop, so the row of windows is one vectorised select per
    offset; a flat int32 index spares the scatter a division. The usual stride 2 has its own
    copy of the loop with the stride a constant: LLVM then loads the row with shuffles instead
    of gathers (5x faster for the 2x2/2 pool of a 28x28 image)."""
    wp = xp.shape[3]
    for i in range(kh):
        row = xp[n, c, y * sh + i]
        base = (y * sh + i) * wp
        for j in range(kw):
            if i + j == 0:
                for v in range(best.shape[0]):
                    best[v] = row[v * sw]
                    at[v] = np.int32(base + v * sw)
            elif sw == 2:
                for v in range(best.shape[0]):
                    val = row[2 * v + j]
                    b = best[v]
                    better = val > b or (val != val and b == b)
                    best[v] = val if better else b
                    at[v] = np.int32(base + 2 * v + j) if better else at[v]
            else:
                for v in range(best.shape[0]):
                    val = row[v * sw + j]
                    b = best[v]
                    better = val > b or (val != val and b == b)
                    best[v] = val if better else b
                    at[v] = np.int32(base + v * sw + j) if better else at[v]


def max_pool_grad(xp, dy, kh, kw, sh, sw, dxp, best, at):
    """Add dy[n, c, y, v] at the first maximum of window (y, v) in the padded image whose flat
    planes are ``dxp`` (N, C, HP*WP). ``best``/``at``: (N, OW) scratch rows from the caller: the
    loops never allocate, so their machine code needs no runtime (``backend/native/``)."""
    n_, c_, oh, ow = dy.shape
    for n in prange(n_):
        for c in range(c_):
            plane = dxp[n, c]
            for y in range(oh):
                _window_argmax(xp, n, c, y, kh, kw, sh, sw, best[n], at[n])
                for v in range(ow):
                    plane[at[n, v]] += dy[n, c, y, v]


def max_pool_grad_grad(xp, gp, kh, kw, sh, sw, out, best, at):
    """out[n, c, y, v] = the padded ``gp`` (zeros around; its flat planes, N, C, HP*WP) at the
    first maximum of window (y, v) of the padded ``xp``; ``best``/``at`` as for
    :func:`max_pool_grad`."""
    n_, c_, oh, ow = out.shape
    for n in prange(n_):
        for c in range(c_):
            plane = gp[n, c]
            for y in range(oh):
                _window_argmax(xp, n, c, y, kh, kw, sh, sw, best[n], at[n])
                for v in range(ow):
                    out[n, c, y, v] = plane[at[n, v]]


def window_spread(share, kh, kw, sh, sw, dxp):
    """Average pooling's gradient on the padded ``dxp``: add share[n, c, y, v] to every
    position of window (y, v), offsets in the outer loops (the reference's order)."""
    n_, c_, oh, ow = share.shape
    for n in prange(n_):
        for c in range(c_):
            for i in range(kh):
                for j in range(kw):
                    for y in range(oh):
                        for v in range(ow):
                            dxp[n, c, y * sh + i, v * sw + j] += share[n, c, y, v]


def select(cond, x, y, out):
    """out = x where cond else y, on flat arrays: numpy's ``where`` branches per element and is
    15x slower on a random mask (ReLU's gradient)."""
    for i in range(out.shape[0]):
        out[i] = x[i] if cond[i] else y[i]


# --- softmax, log-softmax, cross-entropy -------------------------------------------------------
# Rows are the last axis of a C-contiguous (R, K) array, K >= 1 (``nnkernels`` sends K = 0 to the
# references). Each row is read from memory once and stays in L1 for the later passes: its
# maximum (NaN wins, as in ``np.max``), then exp(x - max) fused with the sum (the scalar exp
# hides the sum's latency), then the results. numpy's SIMD exp is 5x faster per element than
# this scalar one, so ``nnkernels`` sends only short rows and small inputs here (and float32
# softmax rows it would give numpy to ``softmax_rows_f32``, whose exp vectorises). ``x - max`` and
# exp are in x's dtype, as numpy's (so x - max overflows to -inf where numpy's does); the sums,
# the log and the results are float64, rounded once by the store. NaN/Inf follow from the same
# IEEE operations as the references': a row holding NaN, +Inf or only -Inf gives NaN, a -Inf
# logit probability 0. Sums start as ``np.float64(0.0)`` so that, run as Python, they stay
# float64 (to numpy a Python float is a weak scalar, which would round to float32).


def _max8(row):
    """The maximum of ``row`` (NaN when it holds one), kept in 8 interleaved parts so that the
    selects are not one dependent chain."""
    k_ = row.shape[0]
    m0 = row[0]
    m1 = m0
    m2 = m0
    m3 = m0
    m4 = m0
    m5 = m0
    m6 = m0
    m7 = m0
    for k in range(0, k_ - 7, 8):
        v0 = row[k]
        v1 = row[k + 1]
        v2 = row[k + 2]
        v3 = row[k + 3]
        v4 = row[k + 4]
        v5 = row[k + 5]
        v6 = row[k + 6]
        v7 = row[k + 7]
        m0 = v0 if v0 > m0 or v0 != v0 else m0
        m1 = v1 if v1 > m1 or v1 != v1 else m1
        m2 = v2 if v2 > m2 or v2 != v2 else m2
        m3 = v3 if v3 > m3 or v3 != v3 else m3
        m4 = v4 if v4 > m4 or v4 != v4 else m4
        m5 = v5 if v5 > m5 or v5 != v5 else m5
        m6 = v6 if v6 > m6 or v6 != v6 else m6
        m7 = v7 if v7 > m7 or v7 != v7 else m7
    for k in range(k_ - k_ % 8, k_):
        v0 = row[k]
        m0 = v0 if v0 > m0 or v0 != v0 else m0
    m0 = m1 if m1 > m0 or m1 != m1 else m0
    m2 = m3 if m3 > m2 or m3 != m3 else m2
    m4 = m5 if m5 > m4 or m5 != m5 else m4
    m6 = m7 if m7 > m6 or m7 != m7 else m6
    m0 = m2 if m2 > m0 or m2 != m2 else m0
    m4 = m6 if m6 > m4 or m6 != m6 else m4
    return m4 if m4 > m0 or m4 != m4 else m0


def _exp_sum(row, m, e):
    """e[k] = exp(row[k] - m); returns the float64 sum of the e[k] as stored."""
    s = np.float64(0.0)
    for k in range(row.shape[0]):
        e[k] = math.exp(row[k] - m)
        s += e[k]
    return s


def _log_sum_exp(row, m):
    """log(sum(exp(row - m))), summed and taken in float64."""
    s = np.float64(0.0)
    for k in range(row.shape[0]):
        s += math.exp(row[k] - m)
    return np.float64(math.log(s))


def softmax_rows(x, out):
    """out[r] = softmax(x[r])."""
    for r in range(x.shape[0]):
        row = x[r]
        o = out[r]
        s = _exp_sum(row, _max8(row), o)
        for k in range(row.shape[0]):
            o[k] = o[k] / s


def _exp_of_nonpositive(d):
    """exp(d) for a float64 ``d <= 0`` (NaN stays NaN), to float32's precision and no further,
    in arithmetic LLVM vectorises (no libm call): exp(d) = (exp(c) * exp(d / 64 - c))**64 with
    ``d`` clamped at -110 (exp(-110) is below float32's smallest denormal), exp(v) for |v| <=
    0.86 by its Taylor polynomial of degree 12 (relative error < 3e-11 before the squarings, <
    2e-9 after: a float32 result is within one rounding of the true value, where numpy's SIMD
    exp is within one ulp)."""
    t = -110.0 if d < -110.0 else d
    v = t * 0.015625 + 0.859375
    p = 1.0 / 479001600.0
    p = p * v + 1.0 / 39916800.0
    p = p * v + 1.0 / 3628800.0
    p = p * v + 1.0 / 362880.0
    p = p * v + 1.0 / 40320.0
    p = p * v + 1.0 / 5040.0
    p = p * v + 1.0 / 720.0
    p = p * v + 1.0 / 120.0
    p = p * v + 1.0 / 24.0
    p = p * v + 1.0 / 6.0
    p = p * v + 0.5
    p = p * v + 1.0
    p = p * v + 1.0
    p = p * 0.4234266412852628   # exp(-0.859375)
    p = p * p
    p = p * p
    p = p * p
    p = p * p
    p = p * p
    return p * p


def _sum8(e):
    """The float64 sum of ``e``'s elements, kept in 8 interleaved parts (not one dependent
    chain of adds), combined pairwise."""
    k_ = e.shape[0]
    s0 = np.float64(0.0)
    s1 = np.float64(0.0)
    s2 = np.float64(0.0)
    s3 = np.float64(0.0)
    s4 = np.float64(0.0)
    s5 = np.float64(0.0)
    s6 = np.float64(0.0)
    s7 = np.float64(0.0)
    for k in range(0, k_ - 7, 8):
        s0 += e[k]
        s1 += e[k + 1]
        s2 += e[k + 2]
        s3 += e[k + 3]
        s4 += e[k + 4]
        s5 += e[k + 5]
        s6 += e[k + 6]
        s7 += e[k + 7]
    for k in range(k_ - k_ % 8, k_):
        s0 += e[k]
    return ((s0 + s1) + (s2 + s3)) + ((s4 + s5) + (s6 + s7))


def _max8_vector(row):
    """The maximum of ``row``, kept in 8 interleaved parts by ``max`` (which LLVM vectorises,
    where :func:`_max8`'s NaN test branches): a NaN in ``row`` may or may not be the result, so
    only a caller that turns a NaN element into a NaN result anyway may use it
    (:func:`softmax_rows_f32`: ``x - max`` of that element is NaN, and so is the sum)."""
    k_ = row.shape[0]
    m0 = row[0]
    m1 = m0
    m2 = m0
    m3 = m0
    m4 = m0
    m5 = m0
    m6 = m0
    m7 = m0
    for k in range(0, k_ - 7, 8):
        m0 = max(m0, row[k])
        m1 = max(m1, row[k + 1])
        m2 = max(m2, row[k + 2])
        m3 = max(m3, row[k + 3])
        m4 = max(m4, row[k + 4])
        m5 = max(m5, row[k + 5])
        m6 = max(m6, row[k + 6])
        m7 = max(m7, row[k + 7])
    for k in range(k_ - k_ % 8, k_):
        m0 = max(m0, row[k])
    return max(max(max(m0, m1), max(m2, m3)), max(max(m4, m5), max(m6, m7)))


def softmax_rows_f32(x, out):
    """out[r] = softmax(x[r]) for float32 rows too many for :func:`softmax_rows` (``nnkernels.
    fast_exp_rows``: attention's scores): exp by :func:`_exp_of_nonpositive`, vectorised, where
    numpy's reference makes five passes and its temporaries. ``x - max`` in float32, as numpy's;
    the sum (of the exponentials as stored), its reciprocal and the products in float64."""
    for r in range(x.shape[0]):
        row = x[r]
        o = out[r]
        m = _max8_vector(row)
        for k in range(row.shape[0]):
            o[k] = _exp_of_nonpositive(np.float64(row[k] - m))
        inv = 1.0 / _sum8(o)   # a multiply per element, not a divide (4% of the loop)
        for k in range(row.shape[0]):
            o[k] = o[k] * inv


def log_softmax_rows(x, out):
    """out[r] = (x[r] - max) - log(sum(exp(x[r] - max)))."""
    for r in range(x.shape[0]):
        row = x[r]
        o = out[r]
        m = _max8(row)
        lse = _log_sum_exp(row, m)
        for k in range(row.shape[0]):
            o[k] = (row[k] - m) - lse


def softmax_cross_entropy_rows(x, labels, loss, back):
    """loss[r] = -sum(labels[r] * log_softmax(x[r])), back[r] = softmax(x[r]) - labels[r]."""
    for r in range(x.shape[0]):
        row = x[r]
        lab = labels[r]
        b = back[r]
        m = _max8(row)
        s = _exp_sum(row, m, b)
        lse = np.float64(math.log(s))
        acc = np.float64(0.0)
        for k in range(row.shape[0]):
            acc += lab[k] * ((row[k] - m) - lse)
            b[k] = b[k] / s - lab[k]
        loss[r] = -acc


def sparse_softmax_cross_entropy_rows(x, labels, loss, probs):
    """loss[r] = -log_softmax(x[r])[labels[r]] for the rows ``labels`` has (in range: the caller
    checked), probs[r] = softmax(x[r]) (:func:`softmax_rows`' bits) for the rows ``probs`` has;
    either may be empty. A train step's loss and the softmax its gradient takes are then one
    compiled loop, called twice (one compile less: 25 ms of a LeNet5 step's cold compile). The
    loss sums its own exponentials, unrounded (run as Python, ``math.exp`` is float64: the
    stored probabilities would round them), so it has the same bits with or without ``probs``."""
    for r in range(x.shape[0]):
        row = x[r]
        m = _max8(row)
        if r < probs.shape[0]:
            o = probs[r]
            s = _exp_sum(row, m, o)
            for k in range(row.shape[0]):
                o[k] = o[k] / s
        if r < labels.shape[0]:
            loss[r] = -((row[labels[r]] - m) - _log_sum_exp(row, m))



# --- batch_norm ----------------------------------------------------------------------------------
# x is C-contiguous (N, C, HW) (``bn_*_rows``: (N, C), for HW = 1), the channel parameters are
# 1-D. Statistics accumulate in float64, two passes over each channel's block (mean, then the
# squared deviations, as the reference), which stays in cache between them; a third pass writes
# y. The arithmetic is the reference's, dtype for dtype: in training y = (x - mean64) * scale64 +
# beta in float64; in inference every channel constant is in the parameters' dtype, so numba
# promotes as numpy does. Float32 operations that numpy performs (the moving statistics' (1 -
# momentum) * moving, inference's var + eps) are done in float64 on float32-exact operands and
# rounded once by the store: the same float32 result (float64 has more than 2 * 24 + 2 bits).


def bn_channel_train(x, acc, stats, gamma, mean, var, keep, momentum, ratio, eps, scale,
                     new_mean, new_var, c0, c1):
    """stats[0, c] = the mean of channel c, stats[1, c] = the mean of its squared deviations,
    then its moving statistics and scale (:func:`_train_params`), for the channels
    c0 <= c < c1 (a block: the caller runs blocks on several threads). ``acc``: an (HW,)
    float64 scratch row of the block's own. Each pass adds the samples into ``acc`` position
    by position (independent sums: a vectorised loop), then folds ``acc`` in 4 parts; one chain
    of dependent additions per channel was 2x slower. The parameters are scalar code in the
    channel loop: no loop of their own to vectorise and compile (``bn_train_params``, which
    the rows' case keeps, was ~15-20 ms of LLVM in ResNet-18's cold compile)."""
    n_, hw = x.shape[0], x.shape[2]
    cnt = n_ * hw
    for c in range(c0, c1):
        for i in range(hw):
            acc[i] = 0.0
        for n in range(n_):
            row = x[n, c]
            for i in range(hw):
                acc[i] += row[i]
        _fold4(acc, stats, 0, c)
        mean_c = stats[0, c] / cnt
        for i in range(hw):
            acc[i] = 0.0
        for n in range(n_):
            row = x[n, c]
            for i in range(hw):
                d = row[i] - mean_c
                acc[i] += d * d
        _fold4(acc, stats, 1, c)
        stats[0, c] = mean_c
        stats[1, c] = stats[1, c] / cnt
        _train_params(gamma, mean, var, stats, keep, momentum, ratio, eps, scale, new_mean,
                      new_var, c)


def _fold4(acc, stats, k, c):
    """stats[k, c] = the sum of ``acc``, in 4 interleaved parts."""
    hw = acc.shape[0]
    s0 = np.float64(0.0)
    s1 = np.float64(0.0)
    s2 = np.float64(0.0)
    s3 = np.float64(0.0)
    for i in range(0, hw - 3, 4):
        s0 += acc[i]
        s1 += acc[i + 1]
        s2 += acc[i + 2]
        s3 += acc[i + 3]
    for i in range(hw - hw % 4, hw):
        s0 += acc[i]
    stats[k, c] = (s0 + s1) + (s2 + s3)


def bn_row_stats(x, stats):
    """:func:`bn_channel_train`'s statistics for (N, C): the channels are the inner loop, one
    accumulator each (independent, so the loop is vectorised)."""
    n_, c_ = x.shape
    mean = stats[0]
    sq = stats[1]
    for c in range(c_):
        mean[c] = 0.0
        sq[c] = 0.0
    for n in range(n_):
        row = x[n]
        for c in range(c_):
            mean[c] += row[c]
    for c in range(c_):
        mean[c] = mean[c] / n_
    for n in range(n_):
        row = x[n]
        for c in range(c_):
            d = row[c] - mean[c]
            sq[c] += d * d
    for c in range(c_):
        sq[c] = sq[c] / n_


def bn_train_params(gamma, mean, var, stats, keep, momentum, ratio, eps, scale, new_mean,
                    new_var):
    """:func:`_train_params` of every channel (after :func:`bn_row_stats`)."""
    for c in range(gamma.shape[0]):
        _train_params(gamma, mean, var, stats, keep, momentum, ratio, eps, scale, new_mean,
                      new_var, c)


def _train_params(gamma, mean, var, stats, keep, momentum, ratio, eps, scale, new_mean,
                  new_var, c):
    """Channel c's moving statistics (1 - momentum) * moving + momentum * batch (the
    variance's batch part unbiased by ``ratio`` = m / (m - 1); ``keep`` is 1 - momentum in the
    parameters' dtype) and scale = gamma / sqrt(batch var + eps), float64."""
    bm = stats[0, c]
    bv = stats[1, c]
    new_mean[c] = keep * mean[c]
    new_mean[c] = new_mean[c] + momentum * bm
    new_var[c] = keep * var[c]
    new_var[c] = new_var[c] + momentum * bv * ratio
    t = bv + eps
    if t >= 0.0:
        scale[c] = gamma[c] / np.float64(math.sqrt(t))
    else:
        scale[c] = math.inf - math.inf


def bn_infer_scale(gamma, var, eps, scale):
    """scale = gamma / sqrt(var + eps) in the parameters' dtype (``eps`` already rounded to it);
    NaN where var + eps < 0, as numpy's sqrt."""
    for c in range(gamma.shape[0]):
        scale[c] = var[c] + eps
        t = scale[c]
        if t >= 0.0:
            scale[c] = math.sqrt(t)
        else:
            scale[c] = math.inf - math.inf
        scale[c] = gamma[c] / scale[c]


def bn_apply(x, mu, scale, beta, y):
    """y[n, c] = (x[n, c] - mu[c]) * scale[c] + beta[c], in the dtype the operands promote to."""
    n_, c_, hw = x.shape
    for n in range(n_):
        for c in range(c_):
            m = mu[c]
            s = scale[c]
            b = beta[c]
            xr = x[n, c]
            yr = y[n, c]
            for i in range(hw):
                yr[i] = (xr[i] - m) * s + b


def bn_apply_rows(x, mu, scale, beta, y):
    """:func:`bn_apply` for (N, C)."""
    for n in range(x.shape[0]):
        xr = x[n]
        yr = y[n]
        for c in range(x.shape[1]):
            yr[c] = (xr[c] - mu[c]) * scale[c] + beta[c]
