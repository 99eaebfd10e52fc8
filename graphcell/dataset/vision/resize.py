"""Image resizing with numpy, by the definitions MindSpore's CPU ``Resize`` uses (OpenCV 4.11's
``cv::resize``, and a Pillow-style filter for ``PILCUBIC``), so that results agree with MindSpore:

- ``NEAREST``: source index ``floor(i * in / out)``.
- ``LINEAR``: half-pixel centres; columns outside the image take the edge weight, rows are
  clamped. uint8 is computed in OpenCV's 11-bit fixed point, including its rounding (bit-exact);
  other types in float32 (float64 for float64), 16-bit types rounded half to even.
- ``CUBIC``: Keys' kernel with a = -0.75 over 4 taps, edge pixels replicated; uint8 in fixed point
  for the horizontal pass and float32 for the vertical one.
- ``AREA``: shrinking averages the source pixels each output pixel covers (by area); enlarging
  is ``LINEAR`` with OpenCV's area coefficients.
- ``PILCUBIC``: Pillow's separable bicubic (a = -0.5) whose support widens when shrinking
  (antialiased), uint8 rounded after each pass.

``resize(x, out_h, out_w, mode, lead)`` resizes the image axes of ``x``: (-3, -2) when a row has 3
or more dimensions (HWC, or NHWC), else (-2, -1); ``lead`` leading axes are batch axes.

Example::

    >>> import numpy as np
    >>> resize(np.array([[0, 255]], np.uint8), 1, 4, "linear", 0).tolist()
    [[0, 64, 191, 255]]
"""
from __future__ import annotations

import numpy as np

_ONE = 2048  # OpenCV's INTER_RESIZE_COEF_SCALE (11 bits)


def image_axes(ndim: int, lead: int) -> tuple[int, int]:
    return (-3, -2) if ndim - lead >= 3 else (-2, -1)


def _along(w: np.ndarray, axis: int, ndim: int) -> np.ndarray:
    """``w`` shaped to broadcast along ``axis`` of an ``ndim``-d array."""
    shape = [1] * ndim
    shape[axis] = -1
    return w.reshape(shape)


def _positions(out: int, inp: int, area: bool) -> tuple[np.ndarray, np.ndarray]:
    """OpenCV's source index and fraction (float32) of each output pixel."""
    scale = 1.0 / (out / inp)
    d = np.arange(out, dtype=np.float64)
    if not area:
        f = ((d + 0.5) * scale - 0.5).astype(np.float32)
        s = np.floor(f).astype(np.int64)
        return s, (f - s).astype(np.float32)
    s = np.floor(d * scale).astype(np.int64)
    f = ((d + 1) - (s + 1) * (out / inp)).astype(np.float32)
    f = np.where(f <= 0, np.float32(0), f - np.floor(f)).astype(np.float32)
    return s, f


def _linear_taps(out: int, inp: int, area: bool, columns: bool):
    """Two taps per output pixel: indices (clamped) and float32 weights. Columns outside the
    image take the edge pixel with weight 1 (OpenCV's xmin/xmax); rows keep their weights."""
    s, f = _positions(out, inp, area)
    if columns:
        low, high = s < 0, s >= inp - 1
        f = np.where(low | high, np.float32(0), f).astype(np.float32)
        s = np.where(low, 0, np.where(high, inp - 1, s))
    idx = (np.clip(s, 0, inp - 1), np.clip(s + 1, 0, inp - 1))
    return idx, ((np.float32(1) - f).astype(np.float32), f)


def _cubic_weights(f: np.ndarray) -> tuple[np.ndarray, ...]:
    a = np.float32(-0.75)
    x = f.astype(np.float32)
    one = np.float32(1)
    w0 = ((a * (x + one) - 5 * a) * (x + one) + 8 * a) * (x + one) - 4 * a
    w1 = ((a + 2) * x - (a + 3)) * x * x + one
    w2 = ((a + 2) * (one - x) - (a + 3)) * (one - x) * (one - x) + one
    w3 = one - w0 - w1 - w2
    return tuple(w.astype(np.float32) for w in (w0, w1, w2, w3))


def _cubic_taps(out: int, inp: int):
    s, f = _positions(out, inp, False)
    idx = tuple(np.clip(s + k - 1, 0, inp - 1) for k in range(4))
    return idx, _cubic_weights(f)


def _fixed(w: np.ndarray) -> np.ndarray:
    """A float32 weight in OpenCV's 11-bit fixed point (saturate_cast<short>: round to even)."""
    return np.rint(w.astype(np.float32) * np.float32(_ONE)).astype(np.int64)


def _combine(x, idx, weights, axis, acc):
    """sum_k weights[k] * x[idx[k]] along ``axis``, in dtype ``acc``."""
    total = None
    for i, w in zip(idx, weights):
        term = np.take(x, i, axis=axis).astype(acc) * _along(w.astype(acc), axis, x.ndim)
        total = term if total is None else total + term
    return total


def _round_to(y: np.ndarray, dtype: np.dtype) -> np.ndarray:
    """saturate_cast<dtype>: round half to even and clip to the dtype's range."""
    if dtype.kind == "f":
        return y.astype(dtype)
    info = np.iinfo(dtype)
    return np.clip(np.rint(y), info.min, info.max).astype(dtype)


def _separable(x, ha, wa, rows, cols, uint8_vertical):
    (yi, yw), (xi, xw) = rows, cols
    if x.dtype == np.uint8:
        horizontal = _combine(x, xi, [_fixed(w) for w in xw], wa, np.int64)
        taps = [np.take(horizontal, i, axis=ha) for i in yi]
        return uint8_vertical(taps, [_along(_fixed(w), ha, x.ndim) for w in yw])
    acc = np.float64 if x.dtype == np.float64 else np.float32
    horizontal = _combine(x, xi, xw, wa, acc)
    return _round_to(_combine(horizontal, yi, yw, ha, acc), x.dtype)


def _linear_vertical_u8(taps, weights):
    # OpenCV's VResizeLinear for uchar: each product rounded down by 16 bits, then (s + 2) >> 2
    (s0, s1), (b0, b1) = taps, weights
    return np.clip((((b0 * (s0 >> 4)) >> 16) + ((b1 * (s1 >> 4)) >> 16) + 2) >> 2, 0, 255
                   ).astype(np.uint8)


def _cubic_vertical_u8(taps, weights):
    # OpenCV's vectorised VResizeCubic for uchar: float32 sums of the fixed-point rows
    scale = np.float32(1.0 / (_ONE * _ONE))
    total = np.zeros(taps[0].shape, np.float32)
    for s, b in zip(taps, weights):
        total = total + s.astype(np.float32) * (b.astype(np.float32) * scale)
    return np.clip(np.rint(total), 0, 255).astype(np.uint8)


def _nearest(x, out_h, out_w, ha, wa):
    h, w = x.shape[ha], x.shape[wa]
    rows = np.minimum(np.floor(np.arange(out_h) * (1.0 / (out_h / h))).astype(np.int64), h - 1)
    cols = np.minimum(np.floor(np.arange(out_w) * (1.0 / (out_w / w))).astype(np.int64), w - 1)
    return np.take(np.take(x, rows, axis=ha), cols, axis=wa)


def _area_weights(out: int, inp: int) -> np.ndarray:
    """(out, inp) matrix: the share of each source pixel in each output pixel (rows sum to 1)."""
    scale = inp / out
    m = np.zeros((out, inp), np.float64)
    for d in range(out):
        lo, hi = d * scale, min((d + 1) * scale, inp)
        first, last = int(np.floor(lo)), int(np.ceil(hi))
        for s in range(first, last):
            m[d, s] = min(hi, s + 1) - max(lo, s)
        m[d] /= hi - lo
    return m


def _area_fast(x, fy: int, fx: int, ha, wa):
    """OpenCV's shrink by whole factors: the mean of each fy x fx block. Halving (the vectorised
    case) rounds integers as (sum + 2) >> 2; other factors multiply by 1/area in float32."""
    h, w = x.shape[ha] // fy * fy, x.shape[wa] // fx * fx
    blocks = [np.take(np.take(x, np.arange(i, h, fy), axis=ha), np.arange(j, w, fx), axis=wa)
              for i in range(fy) for j in range(fx)]
    if x.dtype.kind == "f":
        acc = np.float64 if x.dtype == np.float64 else np.float32
        total = sum(b.astype(acc) for b in blocks)
        return (total * acc(1.0 / (fx * fy))).astype(x.dtype)
    total = sum(b.astype(np.int64) for b in blocks)
    if fx == fy == 2:
        return ((total + 2) >> 2).astype(x.dtype)
    return _round_to(total.astype(np.float32) * np.float32(1.0 / (fx * fy)), x.dtype)


def _area_shrink(x, out_h, out_w, ha, wa):
    rows, cols = _area_weights(out_h, x.shape[ha]), _area_weights(out_w, x.shape[wa])
    acc = np.float64 if x.dtype == np.float64 else np.float32
    y = np.moveaxis(np.tensordot(rows.astype(acc), x.astype(acc), axes=([1], [ha])), 0, ha)
    y = np.moveaxis(np.tensordot(cols.astype(acc), y, axes=([1], [wa])), 0, wa)
    return _round_to(y, x.dtype)


def _pil_taps(out: int, inp: int):
    """Pillow's bicubic (a = -0.5) taps and weights; the support widens by the shrink factor."""
    scale = inp / out
    support = 2.0 * max(scale, 1.0)
    filt_scale = max(scale, 1.0)

    def kernel(t):
        a, t = -0.5, np.abs(t)
        return np.where(t < 1, ((a + 2) * t - (a + 3)) * t * t + 1,
                        np.where(t < 2, (((t - 5) * t + 8) * t - 4) * a, 0.0))

    taps = int(np.ceil(support)) * 2 + 1
    centre = (np.arange(out) + 0.5) * scale
    first = np.maximum(np.floor(centre - support + 0.5), 0).astype(np.int64)
    last = np.minimum(np.floor(centre + support + 0.5), inp).astype(np.int64)
    idx = first[:, None] + np.arange(taps)[None, :]
    w = kernel((idx - centre[:, None] + 0.5) / filt_scale)
    w = np.where(idx < last[:, None], w, 0.0)
    w = w / w.sum(axis=1, keepdims=True)
    return np.minimum(idx, inp - 1), w


def _pil_pass(x, out, axis):
    if x.shape[axis] == out:
        return x  # Pillow skips a pass that keeps the size
    idx, w = _pil_taps(out, x.shape[axis])
    if x.dtype == np.uint8:  # Pillow's 8-bit path: 22-bit fixed-point weights, one rounding
        k = np.where(w < 0, np.trunc(w * (1 << 22) - 0.5), np.trunc(w * (1 << 22) + 0.5))
        acc = np.full(1, 1 << 21, np.int64)
        for j in range(idx.shape[1]):
            acc = acc + np.take(x, idx[:, j], axis=axis).astype(np.int64) * \
                _along(k[:, j].astype(np.int64), axis, x.ndim)
        return np.clip(acc >> 22, 0, 255).astype(np.uint8)
    acc = None
    for j in range(idx.shape[1]):
        term = np.take(x, idx[:, j], axis=axis).astype(np.float64) * _along(w[:, j], axis, x.ndim)
        acc = term if acc is None else acc + term
    return _round_to(acc, x.dtype)


def resize(x: np.ndarray, out_h: int, out_w: int, mode: str, lead: int) -> np.ndarray:
    """``x`` with its image axes resized to (out_h, out_w) by ``mode`` (see the module)."""
    ha, wa = image_axes(x.ndim, lead)
    ha, wa = x.ndim + ha, x.ndim + wa
    h, w = x.shape[ha], x.shape[wa]
    if x.dtype == np.bool_:
        return resize(x.astype(np.uint8), out_h, out_w, mode, lead).astype(np.bool_)
    if mode == "nearest":
        return _nearest(x, out_h, out_w, ha, wa)
    if mode == "pilcubic":
        return _pil_pass(_pil_pass(x, out_w, wa), out_h, ha)
    fy, fx = h / out_h, w / out_w
    whole = fy == int(fy) and fx == int(fx)
    if (mode == "area" and whole and fy >= 1 and fx >= 1) or (mode == "linear" and fy == fx == 2):
        return _area_fast(x, int(fy), int(fx), ha, wa)  # OpenCV takes linear halving as area
    if mode == "area" and out_h <= h and out_w <= w:
        return _area_shrink(x, out_h, out_w, ha, wa)
    if mode in ("linear", "area"):
        area = mode == "area"
        rows = _linear_taps(out_h, h, area, columns=False)
        cols = _linear_taps(out_w, w, area, columns=True)
        return _separable(x, ha, wa, rows, cols, _linear_vertical_u8)
    if mode == "cubic":
        return _separable(x, ha, wa, _cubic_taps(out_h, h), _cubic_taps(out_w, w),
                          _cubic_vertical_u8)
    raise ValueError(f"unknown resize mode {mode!r}")
