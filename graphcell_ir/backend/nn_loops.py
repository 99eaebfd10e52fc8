"""The loops of the convolution, pooling and select kernels: plain Python that numba compiles.

This module is kernel *source*. :mod:`graphcell_ir.backend.nnkernels` copies its text into the
kernel cache directory and compiles each function there with ``numba.njit(cache=True)``, putting
numba's ``prange`` in place of the ``range`` below; with the JIT disabled the very same functions
run as Python, a third oracle beside the numpy references and the compiled kernels. Keep it free
of imports beyond numpy, and of anything numba cannot compile.

Conventions, shared by every function here (callers in ``nnkernels`` guarantee them; nothing is
checked again inside a loop):

- images are C-contiguous NCHW arrays of one float dtype; the window is ``kh, kw`` (kernel),
  ``sh, sw`` (stride), ``dh, dw`` (dilation), ``pt, pl`` (top and left padding) and ``oh, ow``
  (output size), as :class:`graphcell_ir.ops.conv.Window` computes them, so every padded
  position a window reads lies inside the padded image;
- ``cols`` is im2col's ``(N, C*KH*KW, OH*OW)``: row ``(c*kh + i)*kw + j`` holds what kernel
  offset ``(i, j)`` of channel ``c`` sees at every output position, so convolution is one
  batched GEMM ``(O, C*KH*KW) @ cols`` that lands directly in NCHW order;
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
import numpy as np

prange = range  # the loader puts numba's prange here when it compiles


def im2col(x, kh, kw, sh, sw, dh, dw, pt, pl, oh, ow, cols):
    """cols[n, (c*kh + i)*kw + j, y*ow + v] = x[n, c, y*sh + i*dh - pt, v*sw + j*dw - pl], 0
    where that is padding."""
    n_, c_, h, wd = x.shape
    for n in prange(n_):
        for c in range(c_):
            for i in range(kh):
                for j in range(kw):
                    r = (c * kh + i) * kw + j
                    off = j * dw - pl
                    for y in range(oh):
                        hy = y * sh + i * dh - pt
                        o = y * ow
                        if hy < 0 or hy >= h:
                            for v in range(ow):
                                cols[n, r, o + v] = 0
                        elif sw == 1:
                            for v in range(ow):
                                wx = v + off
                                cols[n, r, o + v] = x[n, c, hy, wx] if 0 <= wx < wd else 0
                        else:
                            for v in range(ow):
                                wx = v * sw + off
                                cols[n, r, o + v] = x[n, c, hy, wx] if 0 <= wx < wd else 0


def col2im(dcols, kh, kw, sh, sw, dh, dw, oh, ow, dxp):
    """The adjoint of :func:`im2col`: add each row of ``dcols`` (N, C*KH*KW, OH*OW) back into
    the zeroed padded image ``dxp`` (N, C, HP, WP)."""
    n_, c_ = dxp.shape[0], dxp.shape[1]
    for n in prange(n_):
        for c in range(c_):
            for i in range(kh):
                for j in range(kw):
                    r = (c * kh + i) * kw + j
                    for y in range(oh):
                        hy = y * sh + i * dh
                        o = y * ow
                        if sw == 1:
                            for v in range(ow):
                                dxp[n, c, hy, v + j * dw] += dcols[n, r, o + v]
                        else:
                            for v in range(ow):
                                dxp[n, c, hy, v * sw + j * dw] += dcols[n, r, o + v]


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
