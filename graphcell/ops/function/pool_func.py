"""MindSpore's pooling: max, average, Lp and adaptive pools in 1-D, 2-D and 3-D, the pools that
return their argmax, unpooling, and their Primitive classes (``MaxPool`` and ``AvgPool`` are the
registry's 2-D primitives).

One mechanism serves every composite pool here: the windows are *gathered*. A table built while
compiling (numpy on static shapes) lists, for each output position, the flat input index of every
element of its window; padding and the positions ``ceil_mode`` adds point one past the end, at a
sentinel appended to the flattened input (-inf or the dtype's lowest value for max pooling, 0 for
average pooling). One ``take`` gives ``(N, C, outputs, window)``, a reduction finishes the pool,
and the argmax of a window maps back through the same table. The gradient is ``take``'s (a
scatter-add). Adaptive pools use the same tables with windows of different sizes (shorter
windows repeat their first element, which changes neither a maximum nor a masked mean).
"""
from __future__ import annotations

import math

import numpy as np

from graphcell.ops.function import _nn_utils as U
from graphcell.ops.primitive import primitive
from graphcell_ir.ir.types import float32, int32, int64, to_dtype
from graphcell_ir.ops import functional as F

__all__ = [
    "avg_pool1d", "avg_pool2d", "avg_pool3d", "max_pool2d", "max_pool3d", "lp_pool1d",
    "lp_pool2d", "adaptive_avg_pool1d", "adaptive_avg_pool2d", "adaptive_avg_pool3d",
    "adaptive_max_pool1d", "adaptive_max_pool2d", "adaptive_max_pool3d", "max_unpool1d",
    "max_unpool2d", "max_unpool3d", "fractional_max_pool2d", "fractional_max_pool3d",
    "MaxPool3D", "AvgPool3D", "MaxPoolWithArgmax", "MaxPoolWithArgmaxV2", "MaxPool3DWithArgmax",
    "AdaptiveAvgPool2D", "AdaptiveAvgPool3D", "AdaptiveMaxPool2D", "AdaptiveMaxPool3D",
    "MaxUnpool2D", "MaxUnpool3D",
]


# --- window tables (numpy, while compiling) -------------------------------------------------------

class _Axis:
    """One spatial axis of a pool: which input position each (output, offset) reads, -1 for
    padding. ``real`` counts a window's input elements, ``padded`` its elements inside the
    explicit padding (the ``count_include_pad`` divisor)."""

    def __init__(self, positions: np.ndarray, real: np.ndarray, padded: np.ndarray):
        self.positions, self.real, self.padded = positions, real, padded


def _window_axis(size: int, k: int, s: int, d: int, before: int, after: int,
                 ceil_mode: bool) -> _Axis:
    span = size + before + after - d * (k - 1) - 1
    if span < 0:
        raise ValueError(f"a window of {k} (dilation {d}) does not fit {size} elements with "
                         f"padding ({before}, {after})")
    out = (-(-span // s) if ceil_mode else span // s) + 1
    if ceil_mode and (out - 1) * s >= size + before:  # the last window must start inside
        out -= 1
    start = np.arange(out)[:, None] * s - before
    pos = start + np.arange(k)[None, :] * d
    inside = (pos >= 0) & (pos < size)
    in_padding = (pos >= -before) & (pos < size + after)
    return _Axis(np.where(inside, pos, -1), inside.sum(1), in_padding.sum(1))


def _adaptive_axis(size: int, out: int) -> _Axis:
    """Bins ``[floor(i * size / out), ceil((i + 1) * size / out))``; shorter bins repeat their
    first element up to the longest bin."""
    if out < 1:
        raise ValueError(f"an adaptive pool's output size must be positive, got {out}")
    starts = [(i * size) // out for i in range(out)]
    ends = [-(-((i + 1) * size) // out) for i in range(out)]
    width = max(e - b for b, e in zip(starts, ends))
    pos = np.array([[b + j if b + j < e else b for j in range(width)]
                    for b, e in zip(starts, ends)])
    counts = np.array([e - b for b, e in zip(starts, ends)])
    return _Axis(pos, counts, counts)


class _Table:
    """The flat gather table of a pool over several axes: ``index`` (outputs, window) into the
    flattened input (its size for padding), with the window's element counts."""

    def __init__(self, axes: list[_Axis], sizes: tuple[int, ...], repeat_mask: bool = False):
        self.out_shape = tuple(a.positions.shape[0] for a in axes)
        flat_size = int(np.prod(sizes))
        idx = np.zeros((1, 1), np.int64)
        valid = np.ones((1, 1), bool)
        for a, size in zip(axes, sizes):
            p = a.positions
            idx = (idx[:, None, :, None] * size + np.maximum(p, 0)[None, :, None, :])
            valid = valid[:, None, :, None] & (p >= 0)[None, :, None, :]
            idx = idx.reshape(idx.shape[0] * idx.shape[1], -1)
            valid = valid.reshape(idx.shape)
        self.index = np.where(valid, idx, flat_size)
        self.real = _outer_product([a.real for a in axes])
        self.padded = _outer_product([a.padded for a in axes])
        self.first_hit = None
        if repeat_mask:  # adaptive bins: mark each window's own (not repeated) elements
            own = np.ones((1, 1), bool)
            for a in axes:
                first = np.arange(a.positions.shape[1])[None, :] < a.real[:, None]
                own = (own[:, None, :, None] & first[None, :, None, :]).reshape(
                    own.shape[0] * first.shape[0], -1)
            self.first_hit = own


def _outer_product(vectors) -> np.ndarray:
    out = np.ones((1,), np.int64)
    for v in vectors:
        out = (out[:, None] * v[None, :]).reshape(-1)
    return out


def _gathered(x, table: _Table, sentinel):
    """``(N, C, outputs, window)``: each window's elements (the sentinel where it is padding)."""
    n, c = x.shape[:2]
    flat = F.reshape(x, (n, c, -1))
    if (table.index == flat.shape[2]).any():
        pad = F.fill(dtype=x.dtype, shape=(n, c, 1), value=sentinel)
        flat = F.concat(flat, pad, axis=2)
    return F.take(flat, U.constant(table.index, int64), axis=2)


def _lowest(dtype):
    return -math.inf if dtype.is_float else int(np.iinfo(dtype.np_dtype).min)


# --- the pools ----------------------------------------------------------------------------------

def _as_batched(name: str, x, rank: int, unbatched: bool = True):
    """``x`` as (N, C, spatial...) and whether a batch axis was added (an unbatched input, where
    MindSpore takes one)."""
    if x.ndim == rank + 2:
        return x, False
    if unbatched and x.ndim == rank + 1:
        return F.expand_dims(x, axis=0), True
    also = f" (or {rank + 1}-D unbatched)" if unbatched else ""
    raise ValueError(f"{name}: 'input' must be {rank + 2}-D{also}, got shape {list(x.shape)}")


def _unbatched(y, added: bool):
    return F.squeeze(y, axis=(0,)) if added else y


def _max_pool(x, table: _Table, return_indices: bool, index_dtype=int64):
    windows = _gathered(x, table, _lowest(x.dtype))
    n, c = x.shape[:2]
    out = F.reshape(F.reduce_max(windows, axis=(3,), keep_dims=False), (n, c) + table.out_shape)
    if not return_indices:
        return out
    which = F.argmax(windows, axis=3, output_type=int64)                 # first maximum
    hot = F.one_hot(which, depth=table.index.shape[1], axis=-1, dtype=int64)
    idx = F.reduce_sum(F.mul(hot, U.constant(table.index, int64)), axis=(3,), keep_dims=False)
    idx = F.reshape(idx, (n, c) + table.out_shape)
    return out, (idx if index_dtype == int64 else F.cast(idx, dtype=index_dtype))


def _avg_pool(x, table: _Table, divisor: np.ndarray):
    windows = _gathered(x, table, 0)
    n, c = x.shape[:2]
    total = F.reduce_sum(windows, axis=(3,), keep_dims=False)
    avg = F.div(total, U.constant(divisor.astype(x.dtype.np_dtype), x.dtype))
    return F.reshape(avg, (n, c) + table.out_shape)


def _avg_divisor(table: _Table, count_include_pad: bool, divisor_override: int):
    if divisor_override:
        return np.full(table.index.shape[0], divisor_override)
    return table.padded if count_include_pad else table.real


def _pool_geometry(name: str, x, rank: int, kernel_size, stride, padding, dilation=1,
                   ceil_mode=False, pad_pairs=None):
    kernel = U.ntuple(name, kernel_size, rank, "kernel_size")
    strides = kernel if stride is None or stride == 0 or stride == (0,) * rank else \
        U.ntuple(name, stride, rank, "stride")
    dilations = U.ntuple(name, dilation, rank, "dilation")
    if pad_pairs is None:
        pads = U.ntuple(name, padding, rank, "padding", allow_zero=True)
        pad_pairs = tuple((p, p) for p in pads)
    if not isinstance(ceil_mode, (bool, np.bool_)):
        raise TypeError(f"{name}: 'ceil_mode' must be a bool, got {type(ceil_mode).__name__}")
    axes = [_window_axis(size, k, s, d, b, a, bool(ceil_mode))
            for size, k, s, d, (b, a) in zip(x.shape[2:], kernel, strides, dilations, pad_pairs)]
    return _Table(axes, tuple(x.shape[2:])), kernel


def _checked_pads(name: str, kernel, pad_pairs):
    for k, (b, a) in zip(kernel, pad_pairs):
        if b > k // 2 or a > k // 2:
            raise ValueError(f"{name}: padding must be at most half the kernel size, got "
                             f"{(b, a)} for a kernel of {k}")


def _avg_pool_nd(name, rank, input_x, kernel_size, stride, padding, ceil_mode, count_include_pad,
                 divisor_override, pad_pairs=None):
    U.float_tensor(name, input_x, "input_x")
    x, added = _as_batched(name, input_x, rank, unbatched=False)
    if not isinstance(count_include_pad, (bool, np.bool_)):
        raise TypeError(f"{name}: 'count_include_pad' must be a bool")
    divisor_override = U.int_arg(name, divisor_override, "divisor_override")
    table, _ = _pool_geometry(name, x, rank, kernel_size, stride, padding, 1, ceil_mode,
                              pad_pairs)
    divisor = _avg_divisor(table, bool(count_include_pad), divisor_override)
    return _unbatched(_avg_pool(x, table, divisor), added)


def avg_pool1d(input_x, kernel_size=1, stride=1, padding=0, ceil_mode=False,
               count_include_pad=True):
    """``ops.avg_pool1d(input_x, kernel_size=1, stride=1, padding=0, ceil_mode=False,
    count_include_pad=True)``: the mean of each window of an (N, C, L) input."""
    return _avg_pool_nd("ops.avg_pool1d", 1, input_x, kernel_size, stride, padding, ceil_mode,
                        count_include_pad, 0)


def _four_pads(name: str, padding, rank: int):
    """MindSpore's avg_pool2d/3d padding: an int, or ``2 * rank`` ints (before, after per axis)."""
    if isinstance(padding, (tuple, list)) and len(padding) == 2 * rank:
        if any(p < 0 for p in padding):
            raise ValueError(f"{name}: 'padding' must be non-negative, got {padding!r}")
        return tuple((padding[2 * i], padding[2 * i + 1]) for i in range(rank))
    p = U.ntuple(name, padding, rank, "padding", allow_zero=True)
    return tuple((v, v) for v in p)


def avg_pool2d(input_x, kernel_size=1, stride=1, padding=0, ceil_mode=False,
               count_include_pad=True, divisor_override=0):
    """``ops.avg_pool2d(input_x, kernel_size=1, stride=1, padding=0, ceil_mode=False,
    count_include_pad=True, divisor_override=0)``: the mean of each window of an (N, C, H, W)
    input; ``padding`` is an int or (top, bottom, left, right)."""
    name = "ops.avg_pool2d"
    return _avg_pool_nd(name, 2, input_x, kernel_size, stride, None, ceil_mode,
                        count_include_pad, divisor_override, _four_pads(name, padding, 2))


def avg_pool3d(input_x, kernel_size=1, stride=1, padding=0, ceil_mode=False,
               count_include_pad=True, divisor_override=0):
    """``ops.avg_pool3d(input_x, kernel_size=1, stride=1, padding=0, ceil_mode=False,
    count_include_pad=True, divisor_override=0)``: the mean of each window of an
    (N, C, D, H, W) input; ``padding`` is an int or (head, tail, top, bottom, left, right)."""
    name = "ops.avg_pool3d"
    return _avg_pool_nd(name, 3, input_x, kernel_size, stride, None, ceil_mode,
                        count_include_pad, divisor_override, _four_pads(name, padding, 3))


def _max_pool_nd(name, rank, x, kernel_size, stride, padding, dilation, return_indices,
                 ceil_mode):
    U.numeric_tensor(name, x, "x")
    xb, added = _as_batched(name, x, rank, unbatched=False)
    table, kernel = _pool_geometry(name, xb, rank, kernel_size, stride, padding, dilation,
                                   ceil_mode)
    pads = U.ntuple(name, padding, rank, "padding", allow_zero=True)
    _checked_pads(name, kernel, tuple((p, p) for p in pads))
    out = _max_pool(xb, table, bool(return_indices))
    if return_indices:
        return _unbatched(out[0], added), _unbatched(out[1], added)
    return _unbatched(out, added)


def max_pool2d(x, kernel_size, stride=None, padding=0, dilation=1, return_indices=False,
               ceil_mode=False):
    """``ops.max_pool2d(x, kernel_size, stride=None, padding=0, dilation=1,
    return_indices=False, ceil_mode=False)``: the maximum of each window of an (N, C, H, W) input
    (``stride`` defaults to ``kernel_size``); with ``return_indices``, also the Int64 index of each
    maximum within its channel's H * W elements."""
    return _max_pool_nd("ops.max_pool2d", 2, x, kernel_size, stride, padding, dilation,
                        return_indices, ceil_mode)


def max_pool3d(x, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
               return_indices=False):
    """``ops.max_pool3d(x, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
    return_indices=False)``: the maximum of each window of an (N, C, D, H, W) input."""
    return _max_pool_nd("ops.max_pool3d", 3, x, kernel_size, stride, padding, dilation,
                        return_indices, ceil_mode)


def _lp_pool(name: str, rank: int, x, norm_type, kernel_size, stride, ceil_mode):
    U.float_tensor(name, x, "x")
    U.number(name, norm_type, "norm_type")
    xb, added = _as_batched(name, x, rank)
    table, kernel = _pool_geometry(name, xb, rank, kernel_size, stride, 0, 1, ceil_mode)
    p = float(norm_type)
    powered = F.pow(xb, p)
    # PyTorch's formula, which MindSpore follows: the average pool of x**p (a ceil_mode window
    # divided by its elements inside the input) times the kernel's size, then
    # sign(s) * relu(|s|) ** (1 / p)
    s = F.mul(_avg_pool(powered, table, table.padded), float(np.prod(kernel)))
    y = F.mul(F.sign(s), F.pow(F.relu(F.abs(s)), 1.0 / p))
    return _unbatched(y, added)


def lp_pool1d(x, norm_type, kernel_size, stride=None, ceil_mode=False):
    """``ops.lp_pool1d(x, norm_type, kernel_size, stride=None, ceil_mode=False)``:
    ``(sum over the window of x**p) ** (1 / p)`` on an (N, C, L) or (C, L) input."""
    return _lp_pool("ops.lp_pool1d", 1, x, norm_type, kernel_size, stride, ceil_mode)


def lp_pool2d(x, norm_type, kernel_size, stride=None, ceil_mode=False):
    """``ops.lp_pool2d(x, norm_type, kernel_size, stride=None, ceil_mode=False)``:
    ``(sum over the window of x**p) ** (1 / p)`` on an (N, C, H, W) input."""
    return _lp_pool("ops.lp_pool2d", 2, x, norm_type, kernel_size, stride, ceil_mode)


# --- adaptive pools ---------------------------------------------------------------------------------

def _adaptive_sizes(name: str, output_size, spatial: tuple[int, ...]) -> tuple[int, ...]:
    """An int, or one int (None: keep that axis) per spatial axis."""
    n = len(spatial)
    if isinstance(output_size, (int, np.integer)) and not isinstance(output_size, bool):
        sizes = (int(output_size),) * n
    elif isinstance(output_size, (tuple, list)) and len(output_size) == n:
        sizes = tuple(s if o is None else o for o, s in zip(output_size, spatial))
    else:
        raise TypeError(f"{name}: 'output_size' must be an int or a tuple of {n} ints (or None), "
                        f"got {output_size!r}")
    for o in sizes:
        if isinstance(o, bool) or not isinstance(o, (int, np.integer)) or o < 1:
            raise ValueError(f"{name}: 'output_size' must hold positive ints, got {output_size!r}")
    return tuple(int(o) for o in sizes)


def _adaptive_table(name, x, rank, output_size):
    sizes = _adaptive_sizes(name, output_size, tuple(x.shape[2:]))
    axes = [_adaptive_axis(size, o) for size, o in zip(x.shape[2:], sizes)]
    return _Table(axes, tuple(x.shape[2:]), repeat_mask=True)


def _adaptive_avg(name: str, rank: int, input, output_size):  # noqa: A002
    U.float_tensor(name, input)
    x, added = _as_batched(name, input, rank)
    table = _adaptive_table(name, x, rank, output_size)
    windows = F.mul(_gathered(x, table, 0), U.constant(table.first_hit.astype(
        x.dtype.np_dtype), x.dtype))
    n, c = x.shape[:2]
    total = F.reduce_sum(windows, axis=(3,), keep_dims=False)
    avg = F.div(total, U.constant(table.real.astype(x.dtype.np_dtype), x.dtype))
    return _unbatched(F.reshape(avg, (n, c) + table.out_shape), added)


def _adaptive_max(name: str, rank: int, input, output_size, return_indices):  # noqa: A002
    U.numeric_tensor(name, input)
    x, added = _as_batched(name, input, rank)
    table = _adaptive_table(name, x, rank, output_size)
    out = _max_pool(x, table, bool(return_indices))
    if return_indices:
        return _unbatched(out[0], added), _unbatched(out[1], added)
    return _unbatched(out, added)


def _divisible_1d(name: str, input, output_size) -> None:  # noqa: A002
    """MindSpore's 1-D adaptive pools require the length to be a multiple of the output size."""
    U.tensor(name, input)
    if isinstance(output_size, int) and input.ndim >= 1 and output_size > 0 and \
            input.shape[-1] % output_size:
        raise ValueError(f"{name}: the input's last axis ({input.shape[-1]}) must be divisible by "
                         f"output_size {output_size}")


def adaptive_avg_pool1d(input, output_size):  # noqa: A002
    """``ops.adaptive_avg_pool1d(input, output_size)``: the mean of each of ``output_size`` equal
    bins of an (N, C, L) input (L must be a multiple of ``output_size``, as in MindSpore)."""
    _divisible_1d("ops.adaptive_avg_pool1d", input, output_size)
    return _adaptive_avg("ops.adaptive_avg_pool1d", 1, input, output_size)


def adaptive_avg_pool2d(input, output_size):  # noqa: A002
    """``ops.adaptive_avg_pool2d(input, output_size)``: adaptive average pooling of an
    (N, C, H, W) or (C, H, W) input to ``output_size`` (an int, or (h, w) with None keeping an
    axis)."""
    return _adaptive_avg("ops.adaptive_avg_pool2d", 2, input, output_size)


def adaptive_avg_pool3d(input, output_size):  # noqa: A002
    """``ops.adaptive_avg_pool3d(input, output_size)``: adaptive average pooling of an
    (N, C, D, H, W) or (C, D, H, W) input."""
    return _adaptive_avg("ops.adaptive_avg_pool3d", 3, input, output_size)


def adaptive_max_pool1d(input, output_size):  # noqa: A002
    """``ops.adaptive_max_pool1d(input, output_size)``: the maximum of each of ``output_size``
    equal bins of an (N, C, L) input (L must be a multiple of ``output_size``, as in MindSpore)."""
    _divisible_1d("ops.adaptive_max_pool1d", input, output_size)
    return _adaptive_max("ops.adaptive_max_pool1d", 1, input, output_size, False)


def adaptive_max_pool2d(input, output_size, return_indices=False):  # noqa: A002
    """``ops.adaptive_max_pool2d(input, output_size, return_indices=False)``: the maximum of each
    adaptive bin of an (N, C, H, W) or (C, H, W) input; with ``return_indices``, also the Int64
    index of each maximum within its channel's H * W elements."""
    return _adaptive_max("ops.adaptive_max_pool2d", 2, input, output_size, return_indices)


def adaptive_max_pool3d(input, output_size, return_indices=False):  # noqa: A002
    """``ops.adaptive_max_pool3d(input, output_size, return_indices=False)``: adaptive max
    pooling of an (N, C, D, H, W) or (C, D, H, W) input."""
    return _adaptive_max("ops.adaptive_max_pool3d", 3, input, output_size, return_indices)


# --- fractional max pools ---------------------------------------------------------------------------

def _fractional_output(name: str, sizes, kernel, output_size, output_ratio, rank: int):
    """The output sizes from ``output_size`` or from ``output_ratio`` (``int(size * ratio)``)."""
    if (output_size is None) == (output_ratio is None):
        raise ValueError(f"{name}: give exactly one of 'output_size' and 'output_ratio'")
    if output_size is not None:
        out = U.ntuple(name, output_size, rank, "output_size")
    else:
        ratios = (output_ratio,) * rank if isinstance(output_ratio, (int, float)) \
            else tuple(output_ratio)
        if len(ratios) != rank or not all(0 < r < 1 for r in ratios):
            raise ValueError(f"{name}: 'output_ratio' must be {rank} numbers in (0, 1), got "
                             f"{output_ratio!r}")
        out = tuple(int(n * r) for n, r in zip(sizes, ratios))
    for n, k, o in zip(sizes, kernel, out):
        if o < 1 or o + k - 1 > n:
            raise ValueError(f"{name}: an output of {list(out)} with kernel {list(kernel)} does not "
                             f"fit the input's {list(sizes)}")
    return out


def _fractional_starts(u, size: int, k: int, out: int):
    """Each window's first position along one axis from the samples ``u`` (N, C) in [0, 1):
    ``int((i + u) * alpha) - int(u * alpha)`` with ``alpha = (size - k) / (out - 1)``, the last
    window ending at the edge (Graham's pseudo-random sequence, as MindSpore and PyTorch)."""
    n, c = u.shape
    last = U.constant(np.full((n, c, 1), size - k, np.int64), int64)
    if out == 1:
        return last
    alpha = (size - k) / (out - 1)
    steps = U.constant(np.arange(out - 1, dtype=np.float32), u.dtype)
    ua = F.expand_dims(u, axis=-1)
    first = F.sub(F.floor(F.mul(F.add(steps, ua), alpha)), F.floor(F.mul(ua, alpha)))
    return F.concat(F.cast(first, dtype=int64), last, axis=-1)


def _fractional_max_pool(name: str, rank: int, input, kernel_size, output_size, output_ratio,  # noqa: A002
                         return_indices, random_samples, sample_axes):
    U.float_tensor(name, input)
    x, added = _as_batched(name, input, rank)
    n, c = x.shape[:2]
    sizes = tuple(x.shape[2:])
    kernel = U.ntuple(name, kernel_size, rank, "kernel_size")
    out = _fractional_output(name, sizes, kernel, output_size, output_ratio, rank)
    if random_samples is None:
        random_samples = F.uniform_real(shape=(n, c, rank))
    else:
        U.float_tensor(name, random_samples, "_random_samples")
        if tuple(random_samples.shape) != (n, c, rank):
            raise ValueError(f"{name}: '_random_samples' must have shape {[n, c, rank]}, got "
                             f"{list(random_samples.shape)}")
    samples = F.cast(random_samples, dtype=float32)
    # the flat position (within a channel) of every element of every window
    flat = None
    strides = np.cumprod((1,) + sizes[::-1])[::-1][1:]
    for axis in range(rank):
        u = F.getitem(samples, key=(slice(None), slice(None), sample_axes[axis]))
        starts = _fractional_starts(u, sizes[axis], kernel[axis], out[axis])      # (N, C, out_a)
        pos = F.add(F.expand_dims(starts, axis=-1),
                    U.constant(np.arange(kernel[axis]), int64))                 # (N, C, out_a, k_a)
        shape = [n, c] + [1] * (2 * rank)
        shape[2 + axis], shape[2 + rank + axis] = out[axis], kernel[axis]
        term = F.mul(F.reshape(pos, tuple(shape)), int(strides[axis]))
        flat = term if flat is None else F.add(flat, term)
    window = int(np.prod(kernel))
    flat = F.reshape(F.broadcast_to(flat, shape=(n, c) + out + kernel), (n, c, -1, window))
    planes = F.reshape(x, (n, c, -1))
    values = F.reshape(F.gather_d(planes, F.reshape(flat, (n, c, -1)), dim=2),
                       (n, c, -1, window))
    which = F.argmax(values, axis=3, output_type=int64)                   # the first maximum
    index = F.reduce_sum(F.mul(flat, F.one_hot(which, depth=window, axis=-1, dtype=int64)),
                         axis=(3,), keep_dims=False)                          # (N, C, outputs)
    # the output is the input at the maximum: its gradient goes there alone, as MindSpore's
    y = F.reshape(F.gather_d(planes, index, dim=2), (n, c) + out)
    if not return_indices:
        return _unbatched(y, added)
    return _unbatched(y, added), _unbatched(F.reshape(index, (n, c) + out), added)


def fractional_max_pool2d(input, kernel_size, output_size=None, output_ratio=None,  # noqa: A002
                          return_indices=False, _random_samples=None):
    """``ops.fractional_max_pool2d(input, kernel_size, output_size=None, output_ratio=None,
    return_indices=False, _random_samples=None)``: max pooling of an (N, C, H, W) or (C, H, W)
    input over windows at pseudo-random positions, to ``output_size`` (or ``output_ratio`` of the
    input); ``_random_samples`` (N, C, 2) in [0, 1) place them (width from ``[..., 0]``, height
    from ``[..., 1]``), drawn from graphcell's generator when None. With ``return_indices``, also
    each maximum's Int64 position within its channel."""
    return _fractional_max_pool("ops.fractional_max_pool2d", 2, input, kernel_size, output_size,
                                output_ratio, return_indices, _random_samples, (1, 0))


def fractional_max_pool3d(input, kernel_size, output_size=None, output_ratio=None,  # noqa: A002
                          return_indices=False, _random_samples=None):
    """``ops.fractional_max_pool3d(input, kernel_size, output_size=None, output_ratio=None,
    return_indices=False, _random_samples=None)``: the 3-D fractional max pool of an
    (N, C, D, H, W) or (C, D, H, W) input; ``_random_samples`` (N, C, 3) place the windows
    along the depth, height and width."""
    return _fractional_max_pool("ops.fractional_max_pool3d", 3, input, kernel_size, output_size,
                                output_ratio, return_indices, _random_samples, (0, 1, 2))


# --- unpooling --------------------------------------------------------------------------------------

def _max_unpool(name: str, rank: int, x, indices, kernel_size, stride, padding, output_size):
    U.tensor(name, x, "x")
    U.int_tensor(name, indices, "indices")
    U.same_shape(name, x, indices, "x", "indices")
    xb, added = _as_batched(name, x, rank)
    ib = F.expand_dims(indices, axis=0) if added else indices
    kernel = U.ntuple(name, kernel_size, rank, "kernel_size")
    strides = kernel if stride is None or stride == 0 or stride == (0,) * rank else \
        U.ntuple(name, stride, rank, "stride")
    pads = U.ntuple(name, padding, rank, "padding", allow_zero=True)
    default = tuple((i - 1) * s - 2 * p + k
                    for i, s, p, k in zip(xb.shape[2:], strides, pads, kernel))
    out = _unpool_size(name, output_size, default, strides, rank)
    n, c = xb.shape[:2]
    plane = int(np.prod(out))
    # each index is within its (n, c) plane: offset it to the plane's place in the flat output
    base = U.constant((np.arange(n * c) * plane).reshape((n, c) + (1,) * rank), ib.dtype)
    flat_idx = F.reshape(F.add(ib, base), (-1,))
    zeros = F.fill(dtype=xb.dtype, shape=(n * c * plane,), value=0)
    y = F.scatter_update(zeros, flat_idx, F.reshape(xb, (-1,)), axis=0)
    return _unbatched(F.reshape(y, (n, c) + out), added)


def _unpool_size(name, output_size, default, strides, rank):
    if output_size is None or output_size == ():
        return default
    size = tuple(output_size)[-rank:]
    if len(tuple(output_size)) not in (rank, rank + 1, rank + 2):
        raise ValueError(f"{name}: 'output_size' must give the last {rank} sizes, got "
                         f"{output_size!r}")
    for o, d, s in zip(size, default, strides):
        if not d - s < o < d + s:
            raise ValueError(f"{name}: 'output_size' {list(size)} is too far from the size the "
                             f"pool gives, {list(default)}")
    return tuple(int(o) for o in size)


def max_unpool1d(x, indices, kernel_size, stride=None, padding=0, output_size=None):
    """``ops.max_unpool1d(x, indices, kernel_size, stride=None, padding=0, output_size=None)``:
    the inverse of max pooling: ``x`` written at ``indices`` (positions within each channel) of a
    zero tensor of the pool's input size."""
    return _max_unpool("ops.max_unpool1d", 1, x, indices, kernel_size, stride, padding,
                       output_size)


def max_unpool2d(x, indices, kernel_size, stride=None, padding=0, output_size=None):
    """``ops.max_unpool2d(x, indices, kernel_size, stride=None, padding=0, output_size=None)``:
    ``x`` (N, C, H, W) written at ``indices`` (flat positions within each channel's plane) of a
    zero tensor of size ``(H - 1) * stride - 2 * padding + kernel_size`` (or ``output_size``)."""
    return _max_unpool("ops.max_unpool2d", 2, x, indices, kernel_size, stride, padding,
                       output_size)


def max_unpool3d(x, indices, kernel_size, stride=None, padding=0, output_size=None):
    """``ops.max_unpool3d(x, indices, kernel_size, stride=None, padding=0, output_size=None)``:
    the 3-D inverse of max pooling."""
    return _max_unpool("ops.max_unpool3d", 3, x, indices, kernel_size, stride, padding,
                       output_size)


# --- Primitive classes ---------------------------------------------------------------------------

def _mode_pads(name: str, pad_mode: str, pad, x, kernel, strides, rank: int):
    """(before, after) per axis for MindSpore's 'valid' / 'same' / 'pad' pool modes."""
    mode = pad_mode.lower() if isinstance(pad_mode, str) else pad_mode
    if mode not in ("valid", "same", "pad"):
        raise ValueError(f"{name}: 'pad_mode' must be 'valid', 'same' or 'pad', got {pad_mode!r}")
    if mode == "same":
        pairs = []
        for size, k, s in zip(x.shape[2:], kernel, strides):
            total = max((-(-size // s) - 1) * s + k - size, 0)
            pairs.append((total // 2, total - total // 2))
        return mode, tuple(pairs)
    flat = (pad,) * (2 * rank) if isinstance(pad, int) else tuple(pad)
    if len(flat) != 2 * rank or any(p < 0 for p in flat):
        raise ValueError(f"{name}: 'pad' must be a non-negative int or {2 * rank} ints, got {pad!r}")
    if mode == "valid" and any(flat):
        raise ValueError(f"{name}: 'pad' must be 0 unless pad_mode is 'pad', got {pad!r}")
    return mode, tuple((flat[2 * i], flat[2 * i + 1]) for i in range(rank))


def _max_pool3d_prim(x, kernel_size=1, strides=1, pad_mode="VALID", pad_list=0, ceil_mode=None,
                     data_format="NCDHW"):
    """``ops.MaxPool3D(kernel_size=1, strides=1, pad_mode='VALID', pad_list=0, ceil_mode=None,
    data_format='NCDHW')(x)``."""
    name = "MaxPool3D"
    U.float_tensor(name, x, "x")
    if x.ndim != 5:
        raise ValueError(f"{name}: 'x' must be 5-D (N, C, D, H, W), got shape {list(x.shape)}")
    kernel = U.ntuple(name, _last(kernel_size, 3), 3, "kernel_size")
    strides_ = U.ntuple(name, _last(strides, 3), 3, "strides")
    mode, pairs = _mode_pads(name, pad_mode, pad_list, x, kernel, strides_, 3)
    if mode != "pad" and ceil_mode is not None:
        raise ValueError(f"{name}: 'ceil_mode' must be None unless pad_mode is 'pad'")
    table, _ = _pool_geometry(name, x, 3, kernel, strides_, None, 1, bool(ceil_mode), pairs)
    return _max_pool(x, table, False)


def _last(value, n: int):
    """MindSpore's Primitives also take sizes as ``(1, 1, ...)``: the last ``n``."""
    return tuple(value)[-n:] if isinstance(value, (tuple, list)) and len(value) == n + 2 else value


def _avg_pool3d_prim(x, kernel_size=1, strides=1, pad_mode="valid", pad=0, ceil_mode=False,
                     count_include_pad=True, divisor_override=0, data_format="NCDHW"):
    """``ops.AvgPool3D(kernel_size=1, strides=1, pad_mode='valid', pad=0, ceil_mode=False,
    count_include_pad=True, divisor_override=0, data_format='NCDHW')(x)``."""
    name = "AvgPool3D"
    U.float_tensor(name, x, "x")
    if x.ndim != 5:
        raise ValueError(f"{name}: 'x' must be 5-D (N, C, D, H, W), got shape {list(x.shape)}")
    kernel = U.ntuple(name, _last(kernel_size, 3), 3, "kernel_size")
    strides_ = U.ntuple(name, _last(strides, 3), 3, "strides")
    mode, pairs = _mode_pads(name, pad_mode, pad, x, kernel, strides_, 3)
    return _avg_pool_nd(name, 3, x, kernel, strides_, None, ceil_mode, count_include_pad,
                        divisor_override, pairs)


def _max_pool_with_argmax(x, kernel_size=1, strides=1, pad_mode="valid", data_format="NCHW"):
    """``ops.MaxPoolWithArgmax(kernel_size=1, strides=1, pad_mode='valid')(x)``: the max pool
    and the Int32 index of each maximum within its sample's C * H * W elements."""
    name = "MaxPoolWithArgmax"
    U.numeric_tensor(name, x, "x")
    if x.ndim != 4:
        raise ValueError(f"{name}: 'x' must be 4-D (N, C, H, W), got shape {list(x.shape)}")
    kernel = U.ntuple(name, _last(kernel_size, 2), 2, "kernel_size")
    strides_ = U.ntuple(name, _last(strides, 2), 2, "strides")
    mode, pairs = _mode_pads(name, pad_mode, 0, x, kernel, strides_, 2)
    if mode == "pad":
        raise ValueError(f"{name}: 'pad_mode' must be 'valid' or 'same', got {pad_mode!r}")
    # MindSpore 2.10's MaxPoolWithArgmax puts all of 'same' padding after (bottom and right)
    pairs = tuple((0, b + a) for b, a in pairs)
    table, _ = _pool_geometry(name, x, 2, kernel, strides_, None, 1, False, pairs)
    out, idx = _max_pool(x, table, True)
    c, plane = x.shape[1], x.shape[2] * x.shape[3]
    channel_base = U.constant(np.arange(c).reshape(1, c, 1, 1) * plane, int64)
    return out, F.cast(F.add(idx, channel_base), dtype=int32)


def _max_pool_with_argmax_v2(x, kernel_size, strides=None, pads=0, dilation=(1, 1),
                             ceil_mode=False, argmax_type=int64):
    """``ops.MaxPoolWithArgmaxV2(kernel_size, strides=None, pads=0, dilation=(1, 1),
    ceil_mode=False, argmax_type=mindspore.int64)(x)``: the max pool and the index of each
    maximum within its channel's H * W elements."""
    name = "MaxPoolWithArgmaxV2"
    index_dtype = to_dtype(argmax_type)
    if index_dtype not in (int32, int64):
        raise ValueError(f"{name}: 'argmax_type' must be int32 or int64, got {argmax_type}")
    out, idx = _max_pool_nd(name, 2, x, _last(kernel_size, 2), _last(strides, 2), _last(pads, 2),
                            _last(dilation, 2), True, ceil_mode)
    return out, (idx if index_dtype == int64 else F.cast(idx, dtype=index_dtype))


def _max_pool3d_with_argmax(x, ksize, strides, pads, dilation=(1, 1, 1), ceil_mode=False,
                            data_format="NCDHW", argmax_type=int64):
    """``ops.MaxPool3DWithArgmax(ksize, strides, pads, dilation=(1, 1, 1), ceil_mode=False,
    data_format='NCDHW', argmax_type=mindspore.int64)(x)``."""
    name = "MaxPool3DWithArgmax"
    index_dtype = to_dtype(argmax_type)
    if index_dtype not in (int32, int64):
        raise ValueError(f"{name}: 'argmax_type' must be int32 or int64, got {argmax_type}")
    out, idx = _max_pool_nd(name, 3, x, ksize, strides, pads, dilation, True, ceil_mode)
    return out, (idx if index_dtype == int64 else F.cast(idx, dtype=index_dtype))


def _adaptive_max2d_prim(input_x, output_size):
    """``ops.AdaptiveMaxPool2D(output_size)(input_x)``: ``(output, argmax)``."""
    return adaptive_max_pool2d(input_x, output_size, True)


def _adaptive_max3d_prim(x, output_size):
    """``ops.AdaptiveMaxPool3D()(x, output_size)``: ``(output, argmax)``; ``output_size`` is a
    tensor of three ints (read while compiling)."""
    sizes = U.static_ints("AdaptiveMaxPool3D", output_size, "output_size", 3)
    out, idx = adaptive_max_pool3d(x, sizes, True)
    return out, F.cast(idx, dtype=int32)


def _max_unpool_prim(name: str, rank: int):
    def call(x, argmax, ksize, strides=0, pads=0, output_shape=(), data_format=None):
        return _max_unpool(name, rank, x, argmax, ksize, strides or None, pads,
                           output_shape or None)
    call.__name__ = f"_{name.lower()}"
    call.__doc__ = f"``ops.{name}(ksize, strides=0, pads=0, output_shape=())(x, argmax)``."
    return call


MaxPool3D = primitive("MaxPool3D", _max_pool3d_prim,
                      init=("kernel_size", "strides", "pad_mode", "pad_list", "ceil_mode",
                            "data_format"))
AvgPool3D = primitive("AvgPool3D", _avg_pool3d_prim,
                      init=("kernel_size", "strides", "pad_mode", "pad", "ceil_mode",
                            "count_include_pad", "divisor_override", "data_format"))
MaxPoolWithArgmax = primitive("MaxPoolWithArgmax", _max_pool_with_argmax,
                              init=("kernel_size", "strides", "pad_mode", "data_format"))
MaxPoolWithArgmaxV2 = primitive("MaxPoolWithArgmaxV2", _max_pool_with_argmax_v2,
                                init=("kernel_size", "strides", "pads", "dilation", "ceil_mode",
                                      "argmax_type"))
MaxPool3DWithArgmax = primitive("MaxPool3DWithArgmax", _max_pool3d_with_argmax,
                                init=("ksize", "strides", "pads", "dilation", "ceil_mode",
                                      "data_format", "argmax_type"))
AdaptiveAvgPool2D = primitive("AdaptiveAvgPool2D", adaptive_avg_pool2d, init=("output_size",))
AdaptiveAvgPool3D = primitive("AdaptiveAvgPool3D", adaptive_avg_pool3d, init=("output_size",))
AdaptiveMaxPool2D = primitive("AdaptiveMaxPool2D", _adaptive_max2d_prim, init=("output_size",))
AdaptiveMaxPool3D = primitive("AdaptiveMaxPool3D", _adaptive_max3d_prim)
MaxUnpool2D = primitive("MaxUnpool2D", _max_unpool_prim("MaxUnpool2D", 2),
                        init=("ksize", "strides", "pads", "output_shape", "data_format"))
MaxUnpool3D = primitive("MaxUnpool3D", _max_unpool_prim("MaxUnpool3D", 3),
                        init=("ksize", "strides", "pads", "output_shape", "data_format"))
