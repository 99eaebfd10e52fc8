"""MindSpore's resizing and patch-layout functions: ``interpolate``/``upsample``, the Resize
Primitives, ``CropAndResize``, ``ROIAlign``, ``grid_sample``/``affine_grid``, ``pixel_shuffle``,
``fold``/``unfold`` (col2im/im2col) and their Primitive classes and Tensor methods.

Resizing to a static size is separable: along each spatial axis, every output element is a fixed
combination of a few input elements (one for nearest, two for linear, four for cubic), so an axis
is resized by ``take``-ing those elements and adding them with weights — index and weight tables
built with numpy while compiling. Sampling at positions that depend on the data (``CropAndResize``,
``ROIAlign``, ``grid_sample``) computes the indices as integer tensors and gathers with ``take``;
the weights carry the gradient with respect to the positions, ``take`` the one with respect to the
image.
"""
from __future__ import annotations

import math

import numpy as np

from graphcell.ops.function import _nn_utils as U
from graphcell.ops.primitive import primitive
from graphcell_ir.ir.types import float32, int64
from graphcell_ir.ops import functional as F

__all__ = [
    "interpolate", "upsample", "pixel_shuffle", "pixel_unshuffle", "unfold", "fold", "col2im",
    "crop_and_resize", "affine_grid", "grid_sample",
    "ResizeBilinearV2", "ResizeNearestNeighbor", "ResizeNearestNeighborV2", "UpsampleNearest3D",
    "CropAndResize", "ROIAlign", "Im2Col", "Col2Im", "GridSampler2D", "GridSampler3D",
    "RGBToHSV", "HSVToRGB", "AdjustHue", "AdjustSaturation", "ResizeArea", "ExtractVolumePatches",
    "Dilation2D", "AffineGrid",
]


# --- separable resizing -------------------------------------------------------------------------

def _resample_axis(x, axis: int, taps) -> object:
    """``sum_t take(x, index_t, axis) * weight_t`` (weights broadcast along ``axis``)."""
    total = None
    for index, weight in taps:
        part = F.take(x, U.constant(index, int64), axis=axis)
        if weight is not None:
            shape = [1] * x.ndim
            shape[axis] = -1
            part = F.mul(part, F.reshape(U.constant(weight, x.dtype), tuple(shape)))
        total = part if total is None else F.add(total, part)
    return total


def _nearest_taps(n_in: int, n_out: int, scale: float, exact: bool):
    dst = np.arange(n_out)
    src = np.floor((dst + 0.5) * scale) if exact else np.floor(dst * scale)
    return [(np.minimum(src, n_in - 1).astype(np.int64), None)]


def _source(n_in: int, n_out: int, scale: float, align_corners: bool, clamp: bool):
    dst = np.arange(n_out, dtype=np.float64)
    if align_corners:
        return dst * ((n_in - 1) / (n_out - 1)) if n_out > 1 else np.zeros(n_out)
    src = (dst + 0.5) * scale - 0.5
    return np.maximum(src, 0) if clamp else src


def _linear_taps(n_in: int, n_out: int, scale: float, align_corners: bool):
    src = _source(n_in, n_out, scale, align_corners, clamp=True)
    i0 = np.minimum(np.floor(src), n_in - 1).astype(np.int64)
    i1 = np.minimum(i0 + 1, n_in - 1)
    lam = src - i0
    return [(i0, 1 - lam), (i1, lam)]


def _cubic_taps(n_in: int, n_out: int, scale: float, align_corners: bool):
    """MindSpore's bicubic resize (TensorFlow's kernels): the cubic-convolution weights sampled
    from a 1024-entry table; with ``align_corners`` the legacy a = -0.75 with edge indices
    repeated, otherwise half-pixel centres, Keys' a = -0.5 and taps outside the input dropped
    (the others renormalised)."""
    src = _source(n_in, n_out, scale, align_corners, clamp=False)
    i = np.floor(src).astype(np.int64)
    t = np.rint((src - i) * _TABLE) / _TABLE
    a = -0.75 if align_corners else -0.5

    def near(d):  # |d| <= 1
        return ((a + 2) * d - (a + 3)) * d * d + 1

    def far(d):  # 1 < |d| < 2
        return ((a * d - 5 * a) * d + 8 * a) * d - 4 * a

    weights = [far(t + 1), near(t), near(1 - t), far(2 - t)]
    index = [i + k - 1 for k in range(4)]
    if not align_corners:
        weights = [np.where((j >= 0) & (j < n_in), w, 0.0) for j, w in zip(index, weights)]
        total = sum(weights)
        weights = [w / total for w in weights]
    return [(np.clip(j, 0, n_in - 1), w) for j, w in zip(index, weights)]


_TABLE = 1024


def _resize(x, sizes, scales, taps_for):
    """Resize every spatial axis of ``x`` (axes 2...) with the taps ``taps_for`` gives."""
    for k, (n_out, scale) in enumerate(zip(sizes, scales)):
        axis = k + 2
        n_in = x.shape[axis]
        if n_in == n_out and scale == 1.0:
            continue
        x = _resample_axis(x, axis, taps_for(n_in, n_out, scale))
    return x


_MODE_RANKS = {"nearest": (3, 4, 5), "linear": (3,), "bilinear": (4,), "trilinear": (5,),
               "bicubic": (4,), "area": (3, 4, 5), "nearest-exact": (3, 4)}


def _interp_sizes(name, x, size, scale_factor, recompute_scale_factor):
    """The output sizes and the scale (input / output) of each spatial axis."""
    spatial = tuple(x.shape[2:])
    n = len(spatial)
    if (size is None) == (scale_factor is None):
        raise ValueError(f"{name}: exactly one of 'size' and 'scale_factor' must be given")
    if size is not None:
        if recompute_scale_factor is not None:
            raise ValueError(f"{name}: 'recompute_scale_factor' must be None when 'size' is given")
        sizes = (size,) * n if isinstance(size, int) else tuple(size)
        if len(sizes) != n or not all(isinstance(s, int) and s > 0 for s in sizes):
            raise ValueError(f"{name}: 'size' must be {n} positive int(s) (input.ndim - 2), got "
                             f"{size!r}")
        return sizes, tuple(i / o for i, o in zip(spatial, sizes))
    factors = (scale_factor,) * n if isinstance(scale_factor, (int, float)) else tuple(scale_factor)
    if len(factors) != n or not all(isinstance(f, (int, float)) and f > 0 for f in factors):
        raise ValueError(f"{name}: 'scale_factor' must be {n} positive number(s), got "
                         f"{scale_factor!r}")
    sizes = tuple(int(math.floor(i * f)) for i, f in zip(spatial, factors))
    if recompute_scale_factor:
        return sizes, tuple(i / o for i, o in zip(spatial, sizes))
    return sizes, tuple(1.0 / f for f in factors)


def interpolate(input, size=None, scale_factor=None, mode="nearest", align_corners=None,  # noqa: A002
                recompute_scale_factor=None):
    """``ops.interpolate(input, size=None, scale_factor=None, mode='nearest', align_corners=None,
    recompute_scale_factor=None)``: ``input`` (N, C, [D,] [H,] W) resized to ``size`` (or by
    ``scale_factor``) with ``'nearest'``, ``'nearest-exact'``, ``'linear'``, ``'bilinear'``,
    ``'trilinear'``, ``'bicubic'`` (cubic convolution as MindSpore computes it, see
    ``_cubic_taps``) or ``'area'`` (adaptive average pooling)."""
    name = "ops.interpolate"
    U.float_tensor(name, input)
    if mode not in _MODE_RANKS:
        raise ValueError(f"{name}: 'mode' must be one of {', '.join(_MODE_RANKS)}, got {mode!r}")
    if input.ndim not in _MODE_RANKS[mode]:
        raise ValueError(f"{name}: mode {mode!r} takes a {' or '.join(map(str, _MODE_RANKS[mode]))}"
                         f"-D input, got {input.ndim}-D")
    linear = mode in ("linear", "bilinear", "trilinear", "bicubic")
    if align_corners is not None and not linear:
        raise ValueError(f"{name}: 'align_corners' applies to the linear and cubic modes only")
    sizes, scales = _interp_sizes(name, input, size, scale_factor, recompute_scale_factor)
    align = bool(align_corners)
    if mode == "area":
        from graphcell.ops.function.pool_func import _adaptive_avg
        return _adaptive_avg(name, input.ndim - 2, input, sizes)
    if mode in ("nearest", "nearest-exact"):
        exact = mode == "nearest-exact"
        return _resize(input, sizes, scales, lambda i, o, s: _nearest_taps(i, o, s, exact))
    taps = _cubic_taps if mode == "bicubic" else _linear_taps
    return _resize(input, sizes, scales, lambda i, o, s: taps(i, o, s, align))


def upsample(input, size=None, scale_factor=None, mode="nearest", align_corners=None,  # noqa: A002
             recompute_scale_factor=None):
    """``ops.upsample(...)``: MindSpore's alias of :func:`interpolate`."""
    return interpolate(input, size, scale_factor, mode, align_corners, recompute_scale_factor)


def _tf_source(n_in: int, n_out: int, align_corners: bool, half_pixel: bool):
    """TensorFlow's resize coordinates (MindSpore's Resize Primitives)."""
    scale = (n_in - 1) / (n_out - 1) if align_corners and n_out > 1 else n_in / n_out
    dst = np.arange(n_out, dtype=np.float64)
    return (dst + 0.5) * scale - 0.5 if half_pixel else dst * scale, scale


def _tf_bilinear_taps(n_in, n_out, align_corners, half_pixel):
    src, _ = _tf_source(n_in, n_out, align_corners, half_pixel)
    floor = np.floor(src)
    low = np.maximum(floor, 0).astype(np.int64)
    high = np.minimum(np.ceil(src), n_in - 1).astype(np.int64)
    lerp = src - floor
    return [(low, 1 - lerp), (high, lerp)]


def _tf_nearest_taps(n_in, n_out, align_corners, half_pixel):
    dst = np.arange(n_out, dtype=np.float64)
    scale = (n_in - 1) / (n_out - 1) if align_corners and n_out > 1 else n_in / n_out
    src = (dst + 0.5) * scale if half_pixel else dst * scale
    # roundf rounds halves away from zero; sources are never negative here
    idx = np.floor(src + 0.5) if align_corners else np.floor(src)
    return [(np.minimum(idx, n_in - 1).astype(np.int64), None)]


def _resize_flags(name: str, align_corners, half_pixel_centers):
    for what, v in (("align_corners", align_corners), ("half_pixel_centers", half_pixel_centers)):
        if not isinstance(v, (bool, np.bool_)):
            raise TypeError(f"{name}: '{what}' must be a bool, got {type(v).__name__}")
    if align_corners and half_pixel_centers:
        raise ValueError(f"{name}: 'align_corners' and 'half_pixel_centers' cannot both be True")
    return bool(align_corners), bool(half_pixel_centers)


def _resize_bilinear_v2(x, size, align_corners=False, half_pixel_centers=False):
    """``ops.ResizeBilinearV2(align_corners=False, half_pixel_centers=False)(x, size)``:
    TensorFlow's bilinear resize of an NCHW ``x`` to ``size`` (h, w)."""
    name = "ResizeBilinearV2"
    U.float_tensor(name, x, "x")
    if x.ndim != 4:
        raise ValueError(f"{name}: 'x' must be 4-D (N, C, H, W), got shape {list(x.shape)}")
    align, half = _resize_flags(name, align_corners, half_pixel_centers)
    sizes = U.static_ints(name, size, "size", 2)
    return _resize(x, sizes, (1.0, 1.0), lambda i, o, s: _tf_bilinear_taps(i, o, align, half))


def _resize_nearest(name: str, x, sizes, align_corners, half_pixel_centers):
    U.tensor(name, x, "input_x")
    if x.ndim != 4:
        raise ValueError(f"{name}: the input must be 4-D (N, C, H, W), got shape {list(x.shape)}")
    align, half = _resize_flags(name, align_corners, half_pixel_centers)
    if any(s < 1 for s in sizes):
        raise ValueError(f"{name}: 'size' must be positive, got {list(sizes)}")
    return _resize(x, sizes, (1.0, 1.0), lambda i, o, s: _tf_nearest_taps(i, o, align, half))


def _resize_nearest_prim(input_x, size, align_corners=False, half_pixel_centers=False):
    """``ops.ResizeNearestNeighbor(size, align_corners=False, half_pixel_centers=False)(x)``.

    MindSpore 2.10's CPU kernel ignores ``half_pixel_centers`` here (it is checked, then the
    legacy coordinates are used), and so does graphcell.
    """
    name = "ResizeNearestNeighbor"
    if not isinstance(size, (tuple, list)) or len(size) != 2:
        raise ValueError(f"{name}: 'size' must be a tuple or list of 2 ints, got {size!r}")
    _resize_flags(name, align_corners, half_pixel_centers)
    return _resize_nearest(name, input_x, tuple(int(s) for s in size), align_corners, False)


def _resize_nearest_v2_prim(x, size, align_corners=False, half_pixel_centers=False):
    """``ops.ResizeNearestNeighborV2(align_corners=False, half_pixel_centers=False)(x, size)``:
    ``size`` is an Int32 tensor of (new_height, new_width)."""
    name = "ResizeNearestNeighborV2"
    return _resize_nearest(name, x, U.static_ints(name, size, "size", 2), align_corners,
                           half_pixel_centers)


def _upsample_nearest3d_prim(x, output_size=None, scales=None):
    """``ops.UpsampleNearest3D()(x, output_size=None, scales=None)``."""
    name = "UpsampleNearest3D"
    U.float_tensor(name, x, "x")
    if x.ndim != 5:
        raise ValueError(f"{name}: 'x' must be 5-D, got shape {list(x.shape)}")
    sizes, scl = _interp_sizes(name, x, None if output_size is None else tuple(output_size),
                               None if scales is None else tuple(scales), None)
    return _resize(x, sizes, scl, lambda i, o, s: _nearest_taps(i, o, s, False))


# --- pixel shuffle ------------------------------------------------------------------------------

def pixel_shuffle(input, upscale_factor):  # noqa: A002
    """``ops.pixel_shuffle(input, upscale_factor)``: (*, C r^2, H, W) -> (*, C, H r, W r)."""
    name = "ops.pixel_shuffle"
    U.tensor(name, input)
    r = U.int_arg(name, upscale_factor, "upscale_factor")
    if r < 1:
        raise ValueError(f"{name}: 'upscale_factor' must be positive, got {r}")
    if input.ndim < 3 or input.shape[-3] % (r * r):
        raise ValueError(f"{name}: 'input' must be (*, C * {r * r}, H, W), got shape "
                         f"{list(input.shape)}")
    lead = tuple(input.shape[:-3])
    c, h, w = input.shape[-3:]
    y = F.reshape(input, (-1, c // (r * r), r, r, h, w))
    y = F.transpose(y, perm=(0, 1, 4, 2, 5, 3))
    return F.reshape(y, lead + (c // (r * r), h * r, w * r))


def pixel_unshuffle(input, downscale_factor):  # noqa: A002
    """``ops.pixel_unshuffle(input, downscale_factor)``: (*, C, H r, W r) -> (*, C r^2, H, W)."""
    name = "ops.pixel_unshuffle"
    U.tensor(name, input)
    r = U.int_arg(name, downscale_factor, "downscale_factor")
    if r < 1:
        raise ValueError(f"{name}: 'downscale_factor' must be positive, got {r}")
    if input.ndim < 3 or input.shape[-2] % r or input.shape[-1] % r:
        raise ValueError(f"{name}: 'input' must be (*, C, H * {r}, W * {r}), got shape "
                         f"{list(input.shape)}")
    lead = tuple(input.shape[:-3])
    c, h, w = input.shape[-3:]
    y = F.reshape(input, (-1, c, h // r, r, w // r, r))
    y = F.transpose(y, perm=(0, 1, 3, 5, 2, 4))
    return F.reshape(y, lead + (c * r * r, h // r, w // r))


# --- im2col / col2im ------------------------------------------------------------------------------

class _Patches:
    """Where each kernel offset of an (kh, kw) window lands on the padded image."""

    def __init__(self, name, hw, kernel_size, dilation, padding, stride):
        self.kh, self.kw = U.ntuple(name, kernel_size, 2, "kernel_size")
        self.dh, self.dw = U.ntuple(name, dilation, 2, "dilation")
        self.ph, self.pw = U.ntuple(name, padding, 2, "padding", allow_zero=True)
        self.sh, self.sw = U.ntuple(name, stride, 2, "stride")
        h, w = hw
        self.oh = (h + 2 * self.ph - self.dh * (self.kh - 1) - 1) // self.sh + 1
        self.ow = (w + 2 * self.pw - self.dw * (self.kw - 1) - 1) // self.sw + 1
        if self.oh < 1 or self.ow < 1:
            raise ValueError(f"{name}: a {self.kh}x{self.kw} window does not fit {h}x{w} with "
                             f"padding ({self.ph}, {self.pw})")

    def keys(self):
        for i in range(self.kh):
            r0 = i * self.dh
            for j in range(self.kw):
                c0 = j * self.dw
                yield (slice(None), slice(None), slice(r0, r0 + self.sh * (self.oh - 1) + 1, self.sh),
                       slice(c0, c0 + self.sw * (self.ow - 1) + 1, self.sw))


def _im2col(name, x, kernel_size, dilation, padding, stride):
    """(N, C, kh * kw, L) patches of an (N, C, H, W) input."""
    U.tensor(name, x)
    if x.ndim != 4:
        raise ValueError(f"{name}: the input must be 4-D (N, C, H, W), got shape {list(x.shape)}")
    p = _Patches(name, x.shape[2:], kernel_size, dilation, padding, stride)
    xp = F.pad(x, paddings=(0, 0, 0, 0, p.ph, p.ph, p.pw, p.pw), value=0) if p.ph or p.pw else x
    parts = [F.expand_dims(F.getitem(xp, key=k), axis=2) for k in p.keys()]
    cols = parts[0] if len(parts) == 1 else F.concat(*parts, axis=2)
    n, c = x.shape[:2]
    return F.reshape(cols, (n, c, p.kh * p.kw, p.oh * p.ow))


def unfold(input, kernel_size, dilation=1, padding=0, stride=1):  # noqa: A002
    """``ops.unfold(input, kernel_size, dilation=1, padding=0, stride=1)``: the sliding windows
    of an (N, C, H, W) input as columns, (N, C * kh * kw, L), channel-major."""
    cols = _im2col("ops.unfold", input, kernel_size, dilation, padding, stride)
    n, c, k, l_ = cols.shape
    return F.reshape(cols, (n, c * k, l_))


def _im2col_prim(x, ksizes, strides=1, dilations=1, pads=0):
    """``ops.Im2Col(ksizes, strides=1, dilations=1, pads=0)(x)``: (N, C, kh * kw, L)."""
    return _im2col("Im2Col", x, ksizes, dilations, pads, strides)


def _col2im(name, x, output_size, kernel_size, dilation, padding, stride):
    """Sum (N, C, kh * kw, L) columns back into an (N, C, H, W) image."""
    U.tensor(name, x)
    if x.ndim != 4:
        raise ValueError(f"{name}: the input must be 4-D (N, C, kh * kw, L), got shape "
                         f"{list(x.shape)}")
    hw = U.static_ints(name, output_size, "output_size", 2)
    p = _Patches(name, hw, kernel_size, dilation, padding, stride)
    n, c, k, l_ = x.shape
    if k != p.kh * p.kw or l_ != p.oh * p.ow:
        raise ValueError(f"{name}: the input must be (N, C, {p.kh * p.kw}, {p.oh * p.ow}) for "
                         f"this window and output size, got {list(x.shape)}")
    blocks = F.reshape(x, (n, c, k, p.oh, p.ow))
    zeros = F.fill(dtype=x.dtype, shape=(n, c, hw[0] + 2 * p.ph, hw[1] + 2 * p.pw), value=0)
    total = None
    for offset, key in enumerate(p.keys()):
        placed = F.setitem(zeros, F.getitem(blocks, key=(slice(None), slice(None), offset)),
                           key=key)
        total = placed if total is None else F.add(total, placed)
    return F.getitem(total, key=(slice(None), slice(None), slice(p.ph, p.ph + hw[0]),
                                 slice(p.pw, p.pw + hw[1])))


def fold(input, output_size, kernel_size, dilation=1, padding=0, stride=1):  # noqa: A002
    """``ops.fold(input, output_size, kernel_size, dilation=1, padding=0, stride=1)``: columns
    (N, C * kh * kw, L) summed back into an (N, C, H, W) image of ``output_size`` (a Tensor of two
    ints; graph mode needs it constant)."""
    name = "ops.fold"
    U.tensor(name, input)
    if input.ndim != 3:
        raise ValueError(f"{name}: 'input' must be 3-D (N, C * kh * kw, L), got shape "
                         f"{list(input.shape)}")
    kh, kw = U.ntuple(name, kernel_size, 2, "kernel_size")
    n, ck, l_ = input.shape
    if ck % (kh * kw):
        raise ValueError(f"{name}: the input's axis 1 ({ck}) must be a multiple of "
                         f"kernel_size[0] * kernel_size[1] = {kh * kw}")
    x = F.reshape(input, (n, ck // (kh * kw), kh * kw, l_))
    return _col2im(name, x, output_size, (kh, kw), dilation, padding, stride)


def _col2im_prim(x, output_size, kernel_size, dilation=1, padding=0, stride=1):
    """``ops.Col2Im(kernel_size, dilation=1, padding=0, stride=1)(x, output_size)``."""
    return _col2im("Col2Im", x, output_size, kernel_size, dilation, padding, stride)


def col2im(input_x, output_size, kernel_size, dilation, padding_value, stride):
    """``ops.col2im(input_x, output_size, kernel_size, dilation, padding_value, stride)``:
    (N, C, kh * kw, L) columns summed back into an (N, C, H, W) image."""
    return _col2im("ops.col2im", input_x, output_size, kernel_size, dilation, padding_value, stride)


# --- sampling at computed positions --------------------------------------------------------------

def _gather_pixels(table, flat_index):
    """Rows of ``table`` (pixels, C) at the integer tensor ``flat_index``: shape index.shape + C."""
    return F.take(table, flat_index, axis=0)


def _crop_and_resize(name, image, boxes, box_indices, crop_size, method, extrapolation_value):
    U.numeric_tensor(name, image, "image")
    U.float_tensor(name, boxes, "boxes")
    U.int_tensor(name, box_indices, "box_indices")
    if image.ndim != 4:
        raise ValueError(f"{name}: 'image' must be 4-D (batch, height, width, depth), got shape "
                         f"{list(image.shape)}")
    if boxes.ndim != 2 or boxes.shape[1] != 4 or tuple(box_indices.shape) != (boxes.shape[0],):
        raise ValueError(f"{name}: 'boxes' must be (num_boxes, 4) and 'box_indices' "
                         f"(num_boxes,), got {list(boxes.shape)} and {list(box_indices.shape)}")
    if method not in ("bilinear", "nearest", "bilinear_v2"):
        raise ValueError(f"{name}: 'method' must be 'bilinear', 'nearest' or 'bilinear_v2', got "
                         f"{method!r}")
    if not isinstance(crop_size, (tuple, list)) or len(crop_size) != 2 or \
            not all(isinstance(s, int) and s > 0 for s in crop_size):
        raise ValueError(f"{name}: 'crop_size' must be two positive ints, got {crop_size!r}")
    U.number(name, extrapolation_value, "extrapolation_value")
    n, h, w, depth = image.shape
    ch, cw = crop_size
    img = U.as_float(image) if image.dtype != float32 else image
    boxes = F.cast(boxes, dtype=float32) if boxes.dtype != float32 else boxes
    y, y_in = _crop_coords(boxes, 0, 2, h, ch)       # (B, ch), inside [0, h - 1]
    x, x_in = _crop_coords(boxes, 1, 3, w, cw)       # (B, cw)
    table = F.reshape(F.cast(img, dtype=float32), (n * h * w, depth))
    base = F.mul(F.cast(box_indices, dtype=int64), h * w)           # (B,)
    y2, x2 = F.expand_dims(y, axis=2), F.expand_dims(x, axis=1)      # (B, ch, 1), (B, 1, cw)

    def pixels(yi, xi):  # integer positions -> (B, ch, cw, depth)
        flat = F.add(F.add(F.mul(yi, w), xi), F.reshape(base, (-1, 1, 1)))
        return _gather_pixels(table, flat)

    if method == "nearest":
        yi = F.cast(F.floor(F.add(y2, 0.5)), dtype=int64)
        xi = F.cast(F.floor(F.add(x2, 0.5)), dtype=int64)
        out = pixels(yi, xi)
    else:
        y0, x0 = F.floor(y2), F.floor(x2)
        yl, xl = F.sub(y2, y0), F.sub(x2, x0)                        # the lerps carry the gradient
        y0i, x0i = F.cast(y0, dtype=int64), F.cast(x0, dtype=int64)
        # TensorFlow's upper neighbour is ceil(pos): at a pixel centre both are that pixel, so
        # the gradient with respect to the box is 0 there, as in MindSpore
        y1i = F.cast(F.neg(F.floor(F.neg(y2))), dtype=int64)
        x1i = F.cast(F.neg(F.floor(F.neg(x2))), dtype=int64)
        yl, xl = F.expand_dims(yl, axis=-1), F.expand_dims(xl, axis=-1)
        top = F.add(pixels(y0i, x0i), F.mul(F.sub(pixels(y0i, x1i), pixels(y0i, x0i)), xl))
        bottom = F.add(pixels(y1i, x0i), F.mul(F.sub(pixels(y1i, x1i), pixels(y1i, x0i)), xl))
        out = F.add(top, F.mul(F.sub(bottom, top), yl))
    inside = F.logical_and(F.expand_dims(F.expand_dims(y_in, axis=2), axis=3),
                           F.expand_dims(F.expand_dims(x_in, axis=1), axis=3))
    fill = F.fill(dtype=float32, shape=tuple(out.shape), value=float(extrapolation_value))
    return F.select(inside, out, fill)


def _crop_coords(boxes, lo: int, hi: int, size: int, crop: int):
    """TensorFlow's sampling positions along one axis: (B, crop) float positions clipped to the
    image, and whether each lies inside [0, size - 1]."""
    b0 = F.getitem(boxes, key=(slice(None), slice(lo, lo + 1)))     # (B, 1)
    b1 = F.getitem(boxes, key=(slice(None), slice(hi, hi + 1)))
    if crop > 1:
        steps = U.constant(np.arange(crop, dtype=np.float32).reshape(1, -1) / (crop - 1), float32)
        pos = F.mul(F.add(b0, F.mul(F.sub(b1, b0), steps)), size - 1)
    else:
        pos = F.mul(F.mul(F.add(b0, b1), 0.5 * (size - 1)), F.ones_like(
            F.fill(dtype=float32, shape=(1, crop), value=1)))
    inside = F.logical_and(F.greater_equal(pos, 0), F.less_equal(pos, size - 1))
    return F.minimum(F.maximum(pos, 0.0), float(size - 1)), inside


def crop_and_resize(image, boxes, box_indices, crop_size, method="bilinear",
                    extrapolation_value=0.0):
    """``ops.crop_and_resize(image, boxes, box_indices, crop_size, method='bilinear',
    extrapolation_value=0.0)``: crops of an NHWC ``image`` at the normalised ``boxes``
    (y1, x1, y2, x2), each resized to ``crop_size``; Float32 (num_boxes, crop_h, crop_w, depth);
    samples outside the image take ``extrapolation_value``."""
    return _crop_and_resize("ops.crop_and_resize", image, boxes, box_indices, crop_size, method,
                            extrapolation_value)


def _crop_and_resize_prim(x, boxes, box_index, crop_size, method="bilinear",
                          extrapolation_value=0.0):
    """``ops.CropAndResize(method='bilinear', extrapolation_value=0.0)(x, boxes, box_index,
    crop_size)``."""
    return _crop_and_resize("CropAndResize", x, boxes, box_index, crop_size, method,
                            extrapolation_value)


def _roi_align(features, rois, pooled_height, pooled_width, spatial_scale, sample_num=2,
               roi_end_mode=1):
    """``ops.ROIAlign(pooled_height, pooled_width, spatial_scale, sample_num=2,
    roi_end_mode=1)(features, rois)``: each RoI (batch, x1, y1, x2, y2) of an NCHW ``features``
    cut into pooled_height x pooled_width bins, each the mean of sample_num^2 bilinear samples."""
    name = "ROIAlign"
    U.float_tensor(name, features, "features")
    U.float_tensor(name, rois, "rois")
    rois = F.stop_gradient(rois)  # MindSpore gives the RoIs no gradient
    if features.ndim != 4 or rois.ndim != 2 or rois.shape[1] != 5:
        raise ValueError(f"{name}: 'features' must be (N, C, H, W) and 'rois' (R, 5), got "
                         f"{list(features.shape)} and {list(rois.shape)}")
    ph_, pw_ = U.int_arg(name, pooled_height, "pooled_height"), U.int_arg(name, pooled_width,
                                                                         "pooled_width")
    s = U.int_arg(name, sample_num, "sample_num")
    if s < 1:
        raise ValueError(f"{name}: 'sample_num' must be positive here (an adaptive number of "
                         f"samples depends on the data), got {s}")
    if roi_end_mode not in (0, 1):
        raise ValueError(f"{name}: 'roi_end_mode' must be 0 or 1, got {roi_end_mode}")
    if not isinstance(spatial_scale, float):
        raise TypeError(f"{name}: 'spatial_scale' must be a float, got {spatial_scale!r}")
    n, c, h, w = features.shape
    col = [F.getitem(rois, key=(slice(None), slice(i, i + 1))) for i in range(5)]  # (R, 1) each
    x1, y1 = F.mul(col[1], spatial_scale), F.mul(col[2], spatial_scale)
    x2 = F.mul(F.add(col[3], float(roi_end_mode)), spatial_scale)
    y2 = F.mul(F.add(col[4], float(roi_end_mode)), spatial_scale)
    roi_w = F.maximum(F.sub(x2, x1), 1.0)
    roi_h = F.maximum(F.sub(y2, y1), 1.0)
    ys = _roi_samples(y1, roi_h, ph_, s)            # (R, ph * s)
    xs = _roi_samples(x1, roi_w, pw_, s)            # (R, pw * s)
    table = F.reshape(F.transpose(features, perm=(0, 2, 3, 1)), (n * h * w, c))
    batch = F.mul(F.cast(col[0], dtype=int64), h * w)  # (R, 1)
    values = _bilinear_samples(table, batch, ys, xs, h, w)      # (R, ph*s, pw*s, C)
    r = rois.shape[0]
    values = F.reshape(values, (r, ph_, s, pw_, s, c))
    out = F.reduce_mean(values, axis=(2, 4), keep_dims=False)   # (R, ph, pw, C)
    return F.transpose(out, perm=(0, 3, 1, 2))


def _roi_samples(start, length, bins: int, s: int):
    """Sample positions ``start + (b + (i + 0.5) / s) * length / bins``: (R, bins * s)."""
    frac = (np.arange(bins)[:, None] + (np.arange(s)[None, :] + 0.5) / s).reshape(1, -1) / bins
    return F.add(start, F.mul(length, U.constant(frac.astype(np.float32), start.dtype)))


def _bilinear_samples(table, batch, ys, xs, h: int, w: int):
    """Caffe2's RoIAlign bilinear interpolation at (ys[r, i], xs[r, j]): 0 outside
    [-1, size]; positions clipped at 0 and at size - 1."""
    y = F.expand_dims(ys, axis=2)          # (R, I, 1)
    x = F.expand_dims(xs, axis=1)          # (R, 1, J)
    valid = F.logical_and(
        F.logical_and(F.greater_equal(y, -1.0), F.less_equal(y, float(h))),
        F.logical_and(F.greater_equal(x, -1.0), F.less_equal(x, float(w))))
    y = F.minimum(F.maximum(y, 0.0), float(h - 1))
    x = F.minimum(F.maximum(x, 0.0), float(w - 1))
    y0, x0 = F.floor(y), F.floor(x)
    ly, lx = F.sub(y, y0), F.sub(x, x0)
    y0i, x0i = F.cast(y0, dtype=int64), F.cast(x0, dtype=int64)
    y1i, x1i = F.minimum(F.add(y0i, 1), h - 1), F.minimum(F.add(x0i, 1), w - 1)
    base = F.expand_dims(batch, axis=2)    # (R, 1, 1)

    def at(yi, xi):
        return _gather_pixels(table, F.add(F.add(F.mul(yi, w), xi), base))   # (R, I, J, C)

    ly, lx = F.expand_dims(ly, axis=-1), F.expand_dims(lx, axis=-1)
    hy, hx = F.sub(1, ly), F.sub(1, lx)
    out = F.add(F.add(F.mul(F.mul(hy, hx), at(y0i, x0i)), F.mul(F.mul(hy, lx), at(y0i, x1i))),
                F.add(F.mul(F.mul(ly, hx), at(y1i, x0i)), F.mul(F.mul(ly, lx), at(y1i, x1i))))
    zeros = F.zeros_like(out)
    return F.select(F.expand_dims(valid, axis=-1), out, zeros)


def affine_grid(theta, size, align_corners=False):
    """``ops.affine_grid(theta, size, align_corners=False)``: the sampling grid ``theta @ [x, y,
    1]`` over the normalised output coordinates, (N, H, W, 2) (or (N, D, H, W, 3) in 3-D)."""
    name = "ops.affine_grid"
    U.float_tensor(name, theta, "theta")
    if not isinstance(size, (tuple, list)) or len(size) not in (4, 5):
        raise ValueError(f"{name}: 'size' must be (N, C, H, W) or (N, C, D, H, W), got {size!r}")
    nd = len(size) - 2
    if theta.ndim != 3 or theta.shape[1:] != (nd, nd + 1) or theta.shape[0] != size[0]:
        raise ValueError(f"{name}: 'theta' must be (N, {nd}, {nd + 1}) for size {list(size)}, "
                         f"got {list(theta.shape)}")
    spatial = tuple(size[2:])

    def lin(n):
        if n <= 1:
            return np.zeros(max(n, 1))
        v = np.linspace(-1.0, 1.0, n)
        return v if align_corners else v * (n - 1) / n

    axes = [lin(n) for n in reversed(spatial)]          # x, y[, z]: the grid's last axis order
    mesh = np.meshgrid(*axes, indexing="ij")            # in (x, y, z) axis order
    mesh = [np.transpose(m, tuple(reversed(range(nd)))) for m in mesh]  # to (D,) H, W order
    base = np.stack(mesh + [np.ones(spatial)], axis=-1).reshape(-1, nd + 1)   # (P, nd + 1)
    base_t = U.constant(base.astype(theta.dtype.np_dtype), theta.dtype)
    grid = F.matmul(F.broadcast_to(F.expand_dims(base_t, axis=0),
                                   shape=(theta.shape[0],) + tuple(base.shape)),
                    theta, transpose_b=True)             # (N, P, nd)
    return F.reshape(grid, (theta.shape[0],) + spatial + (nd,))


def _affine_grid_prim(theta, output_size, align_corners=False):
    """``ops.AffineGrid(align_corners=False)(theta, output_size)``."""
    return affine_grid(theta, tuple(output_size), align_corners)


def grid_sample(input, grid, mode="bilinear", padding_mode="zeros", align_corners=None):  # noqa: A002
    """``ops.grid_sample(input, grid, mode='bilinear', padding_mode='zeros',
    align_corners=None)``: ``input`` (N, C, H, W) sampled at the normalised positions ``grid``
    (N, H_out, W_out, 2) holding (x, y) in [-1, 1] — or (N, C, D, H, W) at (N, D_out, H_out, W_out,
    3) holding (x, y, z); ``'bilinear'`` is trilinear in 3-D."""
    return _grid_sample("ops.grid_sample", input, grid, mode, padding_mode, bool(align_corners))


def _grid_sample(name, input, grid, mode, padding_mode, align):  # noqa: A002
    U.float_tensor(name, input)
    U.float_tensor(name, grid, "grid")
    nd = input.ndim - 2
    if nd not in (2, 3) or grid.ndim != input.ndim or grid.shape[-1] != nd or \
            grid.shape[0] != input.shape[0]:
        raise ValueError(f"{name}: 'input' (N, C, H, W) with 'grid' (N, H_out, W_out, 2), or 5-D "
                         f"with (N, D_out, H_out, W_out, 3), got {list(input.shape)} and "
                         f"{list(grid.shape)}")
    if mode not in ("bilinear", "nearest"):
        raise ValueError(f"{name}: 'mode' must be 'bilinear' or 'nearest', got {mode!r}")
    if padding_mode not in ("zeros", "border", "reflection"):
        raise ValueError(f"{name}: 'padding_mode' must be 'zeros', 'border' or 'reflection', got "
                         f"{padding_mode!r}")
    n, c = input.shape[:2]
    sizes = tuple(input.shape[2:])                       # (D,) H, W
    # the grid's last axis lists x (width) first: reverse it to the input's axis order
    coords = [_unnormalise(F.getitem(grid, key=(Ellipsis, nd - 1 - a)), sizes[a], align,
                           padding_mode) for a in range(nd)]
    table = F.reshape(F.transpose(input, perm=(0,) + tuple(range(2, nd + 2)) + (1,)), (-1, c))
    plane = int(np.prod(sizes))
    base = U.constant((np.arange(n) * plane).reshape((n,) + (1,) * nd), int64)

    def at(idx):  # one integer position tensor per axis -> values (N, *out, C), 0 outside
        inside, flat = None, None
        for a, i in enumerate(idx):
            ok = F.logical_and(F.greater_equal(i, 0), F.less(i, sizes[a]))
            inside = ok if inside is None else F.logical_and(inside, ok)
            clipped = F.minimum(F.maximum(i, 0), sizes[a] - 1)
            flat = clipped if flat is None else F.add(F.mul(flat, sizes[a]), clipped)
        v = _gather_pixels(table, F.add(flat, base))
        return F.select(F.expand_dims(inside, axis=-1), v, F.zeros_like(v))

    if mode == "nearest":
        # round half to even, as nearbyint in PyTorch's and MindSpore's kernels
        out = at([F.cast(_round_half_even(p), dtype=int64) for p in coords])
    else:
        lows = [F.floor(p) for p in coords]
        fracs = [F.expand_dims(F.sub(p, lo), axis=-1) for p, lo in zip(coords, lows)]
        lows = [F.cast(lo, dtype=int64) for lo in lows]
        out = None
        for corner in range(2 ** nd):
            bits = [(corner >> (nd - 1 - a)) & 1 for a in range(nd)]
            weight = None
            for a, b in enumerate(bits):
                w = fracs[a] if b else F.sub(1, fracs[a])
                weight = w if weight is None else F.mul(weight, w)
            part = F.mul(weight, at([F.add(lo, b) if b else lo for lo, b in zip(lows, bits)]))
            out = part if out is None else F.add(out, part)
    return F.transpose(out, perm=(0, nd + 1) + tuple(range(1, nd + 1)))


def _grid_sampler_prim(name: str):
    def call(input_x, grid, interpolation_mode="bilinear", padding_mode="zeros",
             align_corners=False):
        return _grid_sample(name, input_x, grid, interpolation_mode, padding_mode,
                            bool(align_corners))
    call.__doc__ = (f"``ops.{name}(interpolation_mode='bilinear', padding_mode='zeros', "
                    "align_corners=False)(input_x, grid)``.")
    return call


def _unnormalise(g, size: int, align: bool, padding_mode: str):
    """Grid coordinates in [-1, 1] as pixel positions, with the border/reflection rules."""
    pos = F.mul(F.add(g, 1), (size - 1) / 2) if align else F.div(F.sub(F.mul(F.add(g, 1), size), 1), 2)
    if padding_mode == "border":
        return F.minimum(F.maximum(pos, 0.0), float(size - 1))
    if padding_mode == "reflection":
        lo, hi = (0.0, float(size - 1)) if align else (-0.5, size - 0.5)
        pos = _reflect(pos, lo, hi)
        return F.minimum(F.maximum(pos, 0.0), float(size - 1))
    return pos


def _reflect(pos, lo: float, hi: float):
    span = hi - lo
    if span <= 0:
        return F.zeros_like(pos)
    d = F.abs(F.sub(pos, lo))
    flips = F.floor(F.div(d, span))
    extra = F.sub(d, F.mul(flips, span))
    even = F.equal(F.sub(flips, F.mul(F.floor(F.div(flips, 2)), 2)), 0)
    return F.select(even, F.add(extra, lo), F.sub(hi, extra))


def _round_half_even(v):
    r = F.floor(F.add(v, 0.5))
    tie = F.equal(F.sub(r, v), 0.5)
    odd = F.not_equal(F.sub(r, F.mul(F.floor(F.div(r, 2)), 2)), 0)
    return F.select(F.logical_and(tie, odd), F.sub(r, 1), r)


# --- colour spaces (TensorFlow's formulas) ------------------------------------------------------

def _channels(x):
    return [F.getitem(x, key=(Ellipsis, k)) for k in range(3)]


def _stack_last(parts):
    return F.concat(*[F.expand_dims(p, axis=-1) for p in parts], axis=-1)


def _rgb_to_hsv(x):
    r, g, b = _channels(x)
    value = F.maximum(F.maximum(r, g), b)
    spread = F.sub(value, F.minimum(F.minimum(r, g), b))
    zeros = F.zeros_like(value)
    saturation = F.select(F.greater(value, 0), F.div(spread, F.select(F.greater(value, 0),
                                                                       value, F.ones_like(value))),
                          zeros)
    safe = F.select(F.greater(spread, 0), spread, F.ones_like(spread))
    norm = F.div(1.0 / 6.0, safe)
    hue = F.select(F.equal(r, value), F.mul(norm, F.sub(g, b)),
                   F.select(F.equal(g, value), F.add(F.mul(norm, F.sub(b, r)), 2.0 / 6.0),
                            F.add(F.mul(norm, F.sub(r, g)), 4.0 / 6.0)))
    hue = F.select(F.greater(spread, 0), hue, zeros)
    hue = F.select(F.less(hue, 0), F.add(hue, 1), hue)
    return _stack_last([hue, saturation, value])


def _hsv_to_rgb(x):
    h, s, v = _channels(x)
    c = F.mul(s, v)
    m = F.sub(v, c)
    dh = F.mul(h, 6)
    category = F.floor(dh)
    fmodu = F.sub(dh, F.mul(F.floor(F.div(dh, 2)), 2))
    xx = F.mul(c, F.sub(1, F.abs(F.sub(fmodu, 1))))
    zero = F.zeros_like(c)
    table = [(c, xx, zero), (xx, c, zero), (zero, c, xx), (zero, xx, c), (xx, zero, c),
             (c, zero, xx)]
    rgb = [zero, zero, zero]
    for k, combo in enumerate(table):
        hit = F.equal(category, float(k))
        rgb = [F.select(hit, part, acc) for part, acc in zip(combo, rgb)]
    return _stack_last([F.add(ch, m) for ch in rgb])


def _check_rgb(name: str, x, rank: int | None = None):
    U.float_tensor(name, x, "x")
    if x.ndim == 0 or x.shape[-1] != 3 or (rank is not None and x.ndim != rank):
        need = f"{rank}-D with" if rank else "a tensor with"
        raise ValueError(f"{name}: the input must be {need} 3 channels on its last axis, got "
                         f"shape {list(x.shape)}")


def _rgb_to_hsv_prim(images):
    """``ops.RGBToHSV()(images)``: RGB in [0, 1] on the last axis to hue, saturation, value."""
    _check_rgb("RGBToHSV", images)
    return _rgb_to_hsv(images)


def _hsv_to_rgb_prim(x):
    """``ops.HSVToRGB()(x)``: (N, H, W, 3) hue, saturation, value to RGB."""
    _check_rgb("HSVToRGB", x, 4)
    return _hsv_to_rgb(x)


def _adjust_hue_prim(image, delta):
    """``ops.AdjustHue()(image, delta)``: the hue of RGB ``image`` rotated by ``delta`` (a 0-d
    tensor, in turns)."""
    _check_rgb("AdjustHue", image)
    h, s, v = _channels(_rgb_to_hsv(image))
    h = F.add(h, F.cast_like(delta, h))
    h = F.sub(h, F.floor(h))
    return _hsv_to_rgb(_stack_last([h, s, v]))


def _adjust_saturation_prim(image, scale):
    """``ops.AdjustSaturation()(image, scale)``: the saturation of RGB ``image`` times ``scale``,
    clipped to [0, 1]."""
    _check_rgb("AdjustSaturation", image)
    h, s, v = _channels(_rgb_to_hsv(image))
    s = F.minimum(F.maximum(F.mul(s, F.cast_like(scale, s)), 0.0), 1.0)
    return _hsv_to_rgb(_stack_last([h, s, v]))


# --- area resize, volume patches, morphological dilation ------------------------------------------

def _area_weights(n_in: int, n_out: int, align_corners: bool) -> np.ndarray:
    """TensorFlow's ResizeArea weights (n_out, n_in): each output averages the input interval it
    covers, partially covered elements weighed by the covered fraction."""
    scale = (n_in - 1) / (n_out - 1) if align_corners and n_out > 1 else n_in / n_out
    weights = np.zeros((n_out, n_in))
    for y in range(n_out):
        lo, hi = y * scale, (y + 1) * scale
        for i in range(int(math.floor(lo)), int(math.ceil(hi))):
            if i < lo:
                part = scale if i + 1 > hi else i + 1 - lo
            else:
                part = hi - i if i + 1 > hi else 1.0
            weights[y, min(max(i, 0), n_in - 1)] += part / scale
    return weights


def _resize_area_prim(images, size, align_corners=False):
    """``ops.ResizeArea(align_corners=False)(images, size)``: TensorFlow's area resize of an NHWC
    ``images`` to ``size`` (new_height, new_width); Float32."""
    name = "ResizeArea"
    U.numeric_tensor(name, images, "images")
    if images.ndim != 4:
        raise ValueError(f"{name}: 'images' must be 4-D (N, H, W, C), got {list(images.shape)}")
    oh, ow = U.static_ints(name, size, "size", 2)
    x = F.cast(images, dtype=float32) if images.dtype != float32 else images
    n, h, w, c = images.shape
    wh = U.constant(_area_weights(h, oh, bool(align_corners)).astype(np.float32), float32)
    ww = U.constant(_area_weights(w, ow, bool(align_corners)).astype(np.float32), float32)
    rows = F.reshape(F.matmul(wh, F.reshape(F.transpose(x, perm=(1, 0, 2, 3)), (h, -1))),
                     (oh, n, w, c))                                      # along H
    cols = F.matmul(ww, F.reshape(F.transpose(rows, perm=(2, 0, 1, 3)), (w, -1)))  # along W
    return F.transpose(F.reshape(cols, (ow, oh, n, c)), perm=(2, 1, 0, 3))


def _patch_table(name, x, kernel, strides, padding: str, rank: int):
    from graphcell.ops.function.pool_func import _Table, _window_axis
    if padding.upper() not in ("VALID", "SAME"):
        raise ValueError(f"{name}: 'padding' must be 'VALID' or 'SAME', got {padding!r}")
    axes = []
    for size, k, s in zip(x.shape[2:], kernel, strides):
        total = max((-(-size // s) - 1) * s + k - size, 0) if padding.upper() == "SAME" else 0
        axes.append(_window_axis(size, k, s, 1, total // 2, total - total // 2, False))
    return _Table(axes, tuple(x.shape[2:]))


def _extract_volume_patches_prim(x, kernel_size, strides, padding):
    """``ops.ExtractVolumePatches(kernel_size, strides, padding)(x)``: every
    (kd, kh, kw) patch of an NCDHW ``x`` as a column, (N, C * kd * kh * kw, D', H', W')."""
    name = "ExtractVolumePatches"
    from graphcell.ops.function.pool_func import _gathered, _last
    U.numeric_tensor(name, x, "x")
    if x.ndim != 5:
        raise ValueError(f"{name}: 'x' must be 5-D (N, C, D, H, W), got {list(x.shape)}")
    kernel = U.ntuple(name, _last(kernel_size, 3), 3, "kernel_size")
    strides_ = U.ntuple(name, _last(strides, 3), 3, "strides")
    table = _patch_table(name, x, kernel, strides_, padding, 3)
    windows = _gathered(x, table, 0)                                # (N, C, outputs, K)
    n, c = x.shape[:2]
    k = table.index.shape[1]
    cols = F.transpose(windows, perm=(0, 3, 1, 2))                  # (N, K, C, outputs)
    return F.reshape(cols, (n, k * c) + table.out_shape)


def _dilation2d_prim(x, filter, stride, dilation, pad_mode="SAME", data_format="NCHW"):  # noqa: A002
    """``ops.Dilation2D(stride, dilation, pad_mode='SAME', data_format='NCHW')(x, filter)``:
    grey-scale dilation, ``max over the window of x + filter`` per channel; padding is -inf."""
    name = "Dilation2D"
    from graphcell.ops.function.pool_func import _Table, _gathered, _last, _lowest, _window_axis
    U.numeric_tensor(name, x, "x")
    U.tensor(name, filter, "filter")
    if x.ndim != 4 or filter.ndim != 3 or filter.shape[0] != x.shape[1]:
        raise ValueError(f"{name}: 'x' must be (N, C, H, W) and 'filter' (C, kh, kw), got "
                         f"{list(x.shape)} and {list(filter.shape)}")
    if not isinstance(pad_mode, str) or pad_mode.upper() not in ("SAME", "VALID"):
        raise ValueError(f"{name}: 'pad_mode' must be 'SAME' or 'VALID', got {pad_mode!r}")
    strides = U.ntuple(name, _last(stride, 2), 2, "stride")
    dilations = U.ntuple(name, _last(dilation, 2), 2, "dilation")
    kernel = tuple(filter.shape[1:])
    axes = []
    for size, k, s, d in zip(x.shape[2:], kernel, strides, dilations):
        eff = d * (k - 1) + 1
        total = max((-(-size // s) - 1) * s + eff - size, 0) if pad_mode.upper() == "SAME" else 0
        axes.append(_window_axis(size, k, s, d, total // 2, total - total // 2, False))
    table = _Table(axes, tuple(x.shape[2:]))
    windows = _gathered(x, table, _lowest(x.dtype))                  # (N, C, outputs, K)
    c = x.shape[1]
    shifted = F.add(windows, F.reshape(F.cast_like(filter, x), (1, c, 1, -1)))
    n = x.shape[0]
    return F.reshape(F.reduce_max(shifted, axis=(3,), keep_dims=False), (n, c) + table.out_shape)


# --- Primitive classes and Tensor methods ---------------------------------------------------------

ResizeBilinearV2 = primitive("ResizeBilinearV2", _resize_bilinear_v2,
                             init=("align_corners", "half_pixel_centers"))
ResizeNearestNeighbor = primitive("ResizeNearestNeighbor", _resize_nearest_prim,
                                  init=("size", "align_corners", "half_pixel_centers"))
ResizeNearestNeighborV2 = primitive("ResizeNearestNeighborV2", _resize_nearest_v2_prim,
                                    init=("align_corners", "half_pixel_centers"))
UpsampleNearest3D = primitive("UpsampleNearest3D", _upsample_nearest3d_prim)
CropAndResize = primitive("CropAndResize", _crop_and_resize_prim,
                          init=("method", "extrapolation_value"))
ROIAlign = primitive("ROIAlign", _roi_align,
                     init=("pooled_height", "pooled_width", "spatial_scale", "sample_num",
                           "roi_end_mode"))
Im2Col = primitive("Im2Col", _im2col_prim, init=("ksizes", "strides", "dilations", "pads"))
GridSampler2D = primitive("GridSampler2D", _grid_sampler_prim("GridSampler2D"),
                          init=("interpolation_mode", "padding_mode", "align_corners"))
GridSampler3D = primitive("GridSampler3D", _grid_sampler_prim("GridSampler3D"),
                          init=("interpolation_mode", "padding_mode", "align_corners"))
AffineGrid = primitive("AffineGrid", _affine_grid_prim, init=("align_corners",))
RGBToHSV = primitive("RGBToHSV", _rgb_to_hsv_prim)
HSVToRGB = primitive("HSVToRGB", _hsv_to_rgb_prim)
AdjustHue = primitive("AdjustHue", _adjust_hue_prim)
AdjustSaturation = primitive("AdjustSaturation", _adjust_saturation_prim)
ResizeArea = primitive("ResizeArea", _resize_area_prim, init=("align_corners",))
ExtractVolumePatches = primitive("ExtractVolumePatches", _extract_volume_patches_prim,
                                 init=("kernel_size", "strides", "padding"))
Dilation2D = primitive("Dilation2D", _dilation2d_prim,
                       init=("stride", "dilation", "pad_mode", "data_format"))
Col2Im = primitive("Col2Im", _col2im_prim, init=("kernel_size", "dilation", "padding", "stride"))


def _unfold_method(self, kernel_size, dilation=1, padding=0, stride=1):
    """``Tensor.unfold(kernel_size, dilation=1, padding=0, stride=1)``."""
    return unfold(self, kernel_size, dilation, padding, stride)


def _fold_method(self, output_size, kernel_size, dilation=1, padding=0, stride=1):
    """``Tensor.fold(output_size, kernel_size, dilation=1, padding=0, stride=1)``."""
    return fold(self, output_size, kernel_size, dilation, padding, stride)


def _col2im_method(self, output_size, kernel_size, dilation, padding_value, stride):
    """``Tensor.col2im(output_size, kernel_size, dilation, padding_value, stride)``."""
    return col2im(self, output_size, kernel_size, dilation, padding_value, stride)


TENSOR_METHODS = {"unfold": _unfold_method, "fold": _fold_method, "col2im": _col2im_method}
