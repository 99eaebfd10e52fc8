"""MindSpore's convolutions: ``conv1d``, ``conv2d``, ``conv3d``, the transposed convolutions and
their Primitive classes (``Conv2D`` itself is the registry's ``conv2d``).

Only 2-D convolution is a primitive (``conv2d`` and its two gradients, with fast kernels in the
backend). The others are exact composites over it:

- 1-D: a 2-D convolution of height 1;
- 3-D: one batched 2-D convolution per depth offset of the kernel — the input's depth slices that
  offset reads (strided by the stride) are folded into the batch, and the results summed;
- transposed (the input gradient of a convolution): the output gradient dilated by the stride
  (zeros between its elements), padded by ``dilation * (kernel - 1) - pad`` (negative: cropped),
  and correlated with the kernel flipped and its channel axes swapped, at stride 1.

Padding follows MindSpore's ``pad_mode``: ``'valid'`` (none), ``'same'`` (the output is
``ceil(size / stride)``; an odd total padding puts the extra element after), ``'pad'`` (the given
sizes). Their gradients come from ``conv2d``'s.
"""
from __future__ import annotations

import numpy as np

from graphcell.ops.function import _nn_utils as U
from graphcell.ops.primitive import primitive
from graphcell_ir.ir.types import int64
from graphcell_ir.ops import functional as F

__all__ = ["conv1d", "conv2d", "conv3d", "conv_transpose2d", "deformable_conv2d",
           "Conv2DBackpropInput", "Conv2DTranspose", "Conv3D", "Conv3DTranspose",
           "DepthwiseConv2dNative"]

_PAD_MODES = ("valid", "same", "pad")


# --- arguments ----------------------------------------------------------------------------------

def _spatial(name: str, value, n: int, what: str) -> tuple[int, ...]:
    """An int, ``n`` ints, or MindSpore's ``n + 2`` ints ``(1, 1, ...)``, as ``n`` positive ints."""
    if isinstance(value, (tuple, list)) and len(value) == n + 2:
        value = tuple(value)[2:]
    return U.ntuple(name, value, n, what)


def _pad_mode(name: str, pad_mode) -> str:
    if not isinstance(pad_mode, str) or pad_mode.lower() not in _PAD_MODES:
        raise ValueError(f"{name}: 'pad_mode' must be 'valid', 'same' or 'pad', got {pad_mode!r}")
    return pad_mode.lower()


def _pads(name: str, value, n: int, what: str, pad_mode: str, symmetric_only: bool):
    """``(before, after)`` per spatial axis from an int, ``n`` ints (one per axis, both sides) or,
    unless ``symmetric_only``, ``2n`` ints (before and after of each axis in turn)."""
    if isinstance(value, (int,)) and not isinstance(value, bool):
        flat = (value,) * (2 * n)
    elif isinstance(value, (tuple, list)) and all(isinstance(v, int) for v in value) and \
            (len(value) == n or (len(value) == 2 * n and not symmetric_only)):
        flat = tuple(v for v in value for _ in range(2)) if len(value) == n else tuple(value)
    else:
        sizes = f"{n}" if symmetric_only else f"{n} or {2 * n}"
        raise ValueError(f"{name}: '{what}' must be an int or a tuple of {sizes} ints, got "
                         f"{value!r}")
    if any(p < 0 for p in flat):
        raise ValueError(f"{name}: '{what}' must be non-negative, got {value!r}")
    if pad_mode != "pad" and any(flat):
        raise ValueError(f"{name}: '{what}' must be 0 unless pad_mode is 'pad', got {value!r} with "
                         f"pad_mode {pad_mode!r}")
    return tuple((flat[2 * i], flat[2 * i + 1]) for i in range(n))


def _same_pads(size: int, k: int, s: int, d: int) -> tuple[int, int]:
    """MindSpore's 'same' padding: the output is ceil(size / s); the odd element goes after."""
    total = max((-(-size // s) - 1) * s + d * (k - 1) + 1 - size, 0)
    return total // 2, total - total // 2


def _window_pads(sizes, kernel, strides, dilations, pad_mode: str, pads):
    if pad_mode == "same":
        return tuple(_same_pads(n, k, s, d) for n, k, s, d in zip(sizes, kernel, strides, dilations))
    return pads if pad_mode == "pad" else tuple((0, 0) for _ in sizes)


def _check_conv_operands(name: str, x, w, rank: int, groups: int):
    U.float_tensor(name, x)
    U.float_tensor(name, w, "weight")
    U.same_dtype(name, x, w, "input", "weight")
    if x.ndim != rank or w.ndim != rank:
        raise ValueError(f"{name}: 'input' and 'weight' must be {rank}-D, got shapes "
                         f"{list(x.shape)} and {list(w.shape)}")
    groups = U.int_arg(name, groups, "groups")
    c, (o, cg) = x.shape[1], w.shape[:2]
    if groups < 1 or o % groups or cg * groups != c:
        raise ValueError(f"{name}: the weight {list(w.shape)} does not fit {c} input channels in "
                         f"{groups} group(s): it needs C_in / groups = {c / max(groups, 1):g} on "
                         "axis 1 and C_out divisible by groups")
    return groups


def _add_bias(name: str, y, bias):
    if bias is None:
        return y
    U.tensor(name, bias, "bias")
    if tuple(bias.shape) != (y.shape[1],):
        raise ValueError(f"{name}: 'bias' must have shape [{y.shape[1]}] (the output channels), "
                         f"got {list(bias.shape)}")
    return F.add(y, F.reshape(bias, U.channel_shape(y.ndim)))


# --- 2-D -----------------------------------------------------------------------------------------

def _conv2d_raw(x, w, strides, dilations, pads, groups):
    """The registry's conv2d with explicit (before, after) pads per spatial axis."""
    (pt, pb), (pl, pr) = pads
    return F.conv2d(x, w, pad_mode="pad", pad=(pt, pb, pl, pr), stride=tuple(strides),
                    dilation=tuple(dilations), group=groups)


def conv2d(input, weight, bias=None, stride=1, pad_mode="valid", padding=0, dilation=1,  # noqa: A002
           groups=1):
    """``ops.conv2d(input, weight, bias=None, stride=1, pad_mode='valid', padding=0, dilation=1,
    groups=1)``: 2-D cross-correlation of ``input`` (N, C, H, W) with ``weight``
    (C_out, C / groups, kh, kw); ``padding`` is an int or (pad_h, pad_w), both sides."""
    name = "ops.conv2d"
    groups = _check_conv_operands(name, input, weight, 4, groups)
    mode = _pad_mode(name, pad_mode)
    pads = _pads(name, padding, 2, "padding", mode, symmetric_only=True)
    strides = _spatial(name, stride, 2, "stride")
    dilations = _spatial(name, dilation, 2, "dilation")
    pads = _window_pads(input.shape[2:], weight.shape[2:], strides, dilations, mode, pads)
    return _add_bias(name, _conv2d_raw(input, weight, strides, dilations, pads, groups), bias)


def conv1d(input, weight, bias=None, stride=1, pad_mode="valid", padding=0, dilation=1,  # noqa: A002
           groups=1):
    """``ops.conv1d(input, weight, bias=None, stride=1, pad_mode='valid', padding=0, dilation=1,
    groups=1)``: 1-D cross-correlation of ``input`` (N, C, L) with ``weight`` (C_out, C / groups,
    k), as a 2-D convolution of height 1."""
    name = "ops.conv1d"
    groups = _check_conv_operands(name, input, weight, 3, groups)
    mode = _pad_mode(name, pad_mode)
    pads = _pads(name, padding, 1, "padding", mode, symmetric_only=True)
    strides = _spatial(name, stride, 1, "stride")
    dilations = _spatial(name, dilation, 1, "dilation")
    pads = _window_pads(input.shape[2:], weight.shape[2:], strides, dilations, mode, pads)
    x4 = F.expand_dims(input, axis=2)
    w4 = F.expand_dims(weight, axis=2)
    y = _conv2d_raw(x4, w4, (1,) + strides, (1,) + dilations, ((0, 0),) + pads, groups)
    return _add_bias(name, F.squeeze(y, axis=(2,)), bias)


def _depthwise_prim(x, weight, channel_multiplier, kernel_size, mode=3, pad_mode="valid", pad=0,
                    stride=1, dilation=1, group=1):
    """``ops.DepthwiseConv2dNative(channel_multiplier, kernel_size, ...)(x, weight)``: each input
    channel convolved with its own ``channel_multiplier`` filters, ``weight`` (multiplier, C, kh,
    kw); output channel ``c * multiplier + k`` uses ``weight[k, c]``."""
    name = "DepthwiseConv2dNative"
    U.float_tensor(name, x, "x")
    U.float_tensor(name, weight, "weight")
    if x.ndim != 4 or weight.ndim != 4 or weight.shape[1] != x.shape[1]:
        raise ValueError(f"{name}: 'x' (N, C, H, W) and 'weight' (multiplier, C, kh, kw) do not "
                         f"fit: {list(x.shape)} and {list(weight.shape)}")
    m = U.int_arg(name, channel_multiplier, "channel_multiplier")
    if weight.shape[0] != m or _spatial(name, kernel_size, 2, "kernel_size") != weight.shape[2:]:
        raise ValueError(f"{name}: 'weight' {list(weight.shape)} does not match channel_multiplier "
                         f"{m} and kernel_size {kernel_size!r}")
    c = x.shape[1]
    mode = _pad_mode(name, pad_mode)
    pads = _pads(name, pad, 2, "pad", mode, symmetric_only=False)
    strides, dilations = _spatial(name, stride, 2, "stride"), _spatial(name, dilation, 2, "dilation")
    pads = _window_pads(x.shape[2:], weight.shape[2:], strides, dilations, mode, pads)
    w = F.reshape(F.transpose(weight, perm=(1, 0, 2, 3)), (c * m, 1) + tuple(weight.shape[2:]))
    return _conv2d_raw(x, w, strides, dilations, pads, c)


def _conv2d_backprop_input_prim(dout, weight, input_size, out_channel, kernel_size,
                                pad_mode="valid", pad=0, pad_list=None, mode=1, stride=1,
                                dilation=1, group=1, data_format="NCHW"):
    """``ops.Conv2DBackpropInput(out_channel, kernel_size, ...)(dout, weight, input_size)``: the
    gradient of a 2-D convolution with respect to its input (of shape ``input_size``);
    ``pad_list`` (top, bottom, left, right) gives the forward padding explicitly."""
    name = "Conv2DBackpropInput"
    U.float_tensor(name, dout, "dout")
    U.float_tensor(name, weight, "weight")
    if data_format != "NCHW":
        raise ValueError(f"{name}: only data_format 'NCHW' is supported, got {data_format!r}")
    mode_ = _pad_mode(name, pad_mode)
    size = U.static_ints(name, input_size, "input_size", 4)
    if pad_list is not None:
        pads = _pads(name, tuple(pad_list), 2, "pad_list", "pad", symmetric_only=False)
        mode_ = "pad"
    else:
        pads = _pads(name, pad, 2, "pad", mode_, symmetric_only=False)
    flat = tuple(p for pair in pads for p in pair)
    return F.conv2d_backprop_input(dout, weight, input_size=size, pad_mode=mode_, pad=flat,
                                   stride=_spatial(name, stride, 2, "stride"),
                                   dilation=_spatial(name, dilation, 2, "dilation"),
                                   group=U.int_arg(name, group, "group"))


# --- 3-D -----------------------------------------------------------------------------------------

def _conv3d_raw(x, w, strides, dilations, pads, groups):
    """3-D cross-correlation as one batched 2-D convolution per depth offset of the kernel."""
    n, c, d = x.shape[:3]
    o, cg, kd = w.shape[:3]
    (pd0, pd1), hw_pads = pads[0], pads[1:]
    if pd0 or pd1:
        x = F.pad(x, paddings=(0, 0, 0, 0, pd0, pd1, 0, 0, 0, 0), value=0)
    sd, dd = strides[0], dilations[0]
    od = (d + pd0 + pd1 - dd * (kd - 1) - 1) // sd + 1
    if od < 1:
        raise ValueError(f"a kernel of depth {kd} (dilation {dd}) does not fit an input of depth "
                         f"{d} with padding {(pd0, pd1)}")
    h, wd = x.shape[3:]
    total = None
    for i in range(kd):
        start = i * dd
        part = F.getitem(x, key=(slice(None), slice(None), slice(start, start + sd * (od - 1) + 1, sd)))
        part = F.reshape(F.transpose(part, perm=(0, 2, 1, 3, 4)), (n * od, c, h, wd))
        w_i = F.getitem(w, key=(slice(None), slice(None), i))
        y_i = _conv2d_raw(part, w_i, strides[1:], dilations[1:], hw_pads, groups)
        total = y_i if total is None else F.add(total, y_i)
    oh, ow = total.shape[2:]
    return F.transpose(F.reshape(total, (n, od, o, oh, ow)), perm=(0, 2, 1, 3, 4))


def conv3d(input, weight, bias=None, stride=1, pad_mode="valid", padding=0, dilation=1,  # noqa: A002
           groups=1):
    """``ops.conv3d(input, weight, bias=None, stride=1, pad_mode='valid', padding=0, dilation=1,
    groups=1)``: 3-D cross-correlation of ``input`` (N, C, D, H, W) with ``weight``
    (C_out, C / groups, kd, kh, kw); ``padding`` is an int or (pad_d, pad_h, pad_w), both sides."""
    name = "ops.conv3d"
    groups = _check_conv_operands(name, input, weight, 5, groups)
    mode = _pad_mode(name, pad_mode)
    pads = _pads(name, padding, 3, "padding", mode, symmetric_only=True)
    strides = _spatial(name, stride, 3, "stride")
    dilations = _spatial(name, dilation, 3, "dilation")
    pads = _window_pads(input.shape[2:], weight.shape[2:], strides, dilations, mode, pads)
    return _add_bias(name, _conv3d_raw(input, weight, strides, dilations, pads, groups), bias)


def _conv3d_prim(x, weight, bias=None, out_channel=None, kernel_size=None, mode=1,
                 pad_mode="valid", pad=0, stride=1, dilation=1, group=1, data_format="NCDHW"):
    """``ops.Conv3D(out_channel, kernel_size, mode=1, pad_mode='valid', pad=0, stride=1,
    dilation=1, group=1, data_format='NCDHW')(x, weight, bias=None)``; ``pad`` is an int or
    (head, tail, top, bottom, left, right)."""
    name = "Conv3D"
    groups = _check_conv_operands(name, x, weight, 5, group)
    _check_declared(name, weight, out_channel, kernel_size, 3)
    if data_format != "NCDHW":
        raise ValueError(f"{name}: only data_format 'NCDHW' is supported, got {data_format!r}")
    mode_ = _pad_mode(name, pad_mode)
    pads = _pads(name, pad, 3, "pad", mode_, symmetric_only=False)
    strides = _spatial(name, stride, 3, "stride")
    dilations = _spatial(name, dilation, 3, "dilation")
    pads = _window_pads(x.shape[2:], weight.shape[2:], strides, dilations, mode_, pads)
    return _add_bias(name, _conv3d_raw(x, weight, strides, dilations, pads, groups), bias)


def _check_declared(name: str, weight, out_channel, kernel_size, n: int) -> None:
    """MindSpore's Primitives repeat the weight's sizes in their constructor: they must agree."""
    if out_channel is not None and U.int_arg(name, out_channel, "out_channel") != weight.shape[0]:
        raise ValueError(f"{name}: out_channel is {out_channel} but the weight "
                         f"{list(weight.shape)} has {weight.shape[0]}")
    if kernel_size is not None and _spatial(name, kernel_size, n, "kernel_size") != \
            tuple(weight.shape[2:]):
        raise ValueError(f"{name}: kernel_size is {kernel_size!r} but the weight "
                         f"{list(weight.shape)} has {list(weight.shape[2:])}")


# --- transposed convolutions ------------------------------------------------------------------------

def _dilate(x, axis: int, stride: int):
    """``x`` with ``stride - 1`` zeros between its elements along ``axis``."""
    if stride == 1:
        return x
    shape = tuple(x.shape)
    n = shape[axis]
    zeros = F.fill(dtype=x.dtype, shape=shape[:axis + 1] + (stride - 1,) + shape[axis + 1:], value=0)
    spread = F.concat(F.expand_dims(x, axis=axis + 1), zeros, axis=axis + 1)
    spread = F.reshape(spread, shape[:axis] + (n * stride,) + shape[axis + 1:])
    key = (slice(None),) * axis + (slice(0, (n - 1) * stride + 1),)
    return F.getitem(spread, key=key)


def _transposed_weight(w, groups: int):
    """A transposed convolution's weight (C_in, C_out / g, k...) as the forward convolution's
    (C_out, C_in / g, k...), flipped along every spatial axis."""
    cin, cog = w.shape[:2]
    k = tuple(w.shape[2:])
    wg = F.reshape(w, (groups, cin // groups, cog) + k)
    wg = F.transpose(wg, perm=(0, 2, 1) + tuple(range(3, 3 + len(k))))
    wt = F.reshape(wg, (groups * cog, cin // groups) + k)
    return F.getitem(wt, key=(slice(None), slice(None)) + (slice(None, None, -1),) * len(k))


def _conv_transpose(dy, w, out_sizes, strides, dilations, pads_before, groups, conv):
    """The input gradient of ``conv`` (a convolution of rank ``len(out_sizes)``): ``dy`` dilated
    by the strides, padded by ``dilation * (k - 1) - pad_before`` before and what makes the output
    ``out_sizes`` after (a negative size crops), correlated with the flipped, transposed weight."""
    z = dy
    paddings = [0, 0, 0, 0]
    for a, (o, s, d, k, pb) in enumerate(zip(out_sizes, strides, dilations, w.shape[2:],
                                             pads_before)):
        z = _dilate(z, a + 2, s)
        lz = z.shape[a + 2]
        paddings += [d * (k - 1) - pb, o + pb - lz]
    z = F.pad(z, paddings=tuple(paddings), value=0)
    ones = (1,) * len(out_sizes)
    zero_pads = tuple((0, 0) for _ in out_sizes)
    return conv(z, _transposed_weight(w, groups), ones, tuple(dilations), zero_pads, groups)


def _transposed_sizes(name, sizes, kernel, strides, dilations, mode, pads, output_padding):
    """The output sizes and the forward convolution's leading pads of a transposed convolution."""
    out, before = [], []
    for n, k, s, d, (pb, pa), op in zip(sizes, kernel, strides, dilations, pads, output_padding):
        if op >= max(s, d):
            raise ValueError(f"{name}: 'output_padding' must be smaller than the stride or the "
                             f"dilation, got {op}")
        if mode == "same":
            o = n * s + op
            pb = _same_pads(o, k, s, d)[0]
        else:
            o = (n - 1) * s - (pb + pa) + d * (k - 1) + 1 + op
        if o < 1:
            raise ValueError(f"{name}: the output would be empty (size {o})")
        out.append(o)
        before.append(pb)
    return tuple(out), tuple(before)


def _check_transposed(name: str, dy, w, rank: int, groups: int) -> int:
    U.float_tensor(name, dy, "input")
    U.float_tensor(name, w, "weight")
    U.same_dtype(name, dy, w, "input", "weight")
    groups = U.int_arg(name, groups, "groups")
    if dy.ndim != rank or w.ndim != rank:
        raise ValueError(f"{name}: 'input' and 'weight' must be {rank}-D, got shapes "
                         f"{list(dy.shape)} and {list(w.shape)}")
    if groups < 1 or w.shape[0] != dy.shape[1] or dy.shape[1] % groups:
        raise ValueError(f"{name}: the weight {list(w.shape)} must have the input's "
                         f"{dy.shape[1]} channels on axis 0, divisible by groups {groups}")
    return groups


def conv_transpose2d(input, weight, bias=None, stride=1, padding=0, output_padding=0,  # noqa: A002
                     groups=1, dilation=1):
    """``ops.conv_transpose2d(input, weight, bias=None, stride=1, padding=0, output_padding=0,
    groups=1, dilation=1)``: the transposed 2-D convolution of ``input`` (N, C_in, H, W) or
    (C_in, H, W) with ``weight`` (C_in, C_out / groups, kh, kw); the output is
    ``(H - 1) * stride - 2 * padding + dilation * (k - 1) + output_padding + 1`` high."""
    name = "ops.conv_transpose2d"
    U.tensor(name, input)
    batched = input.ndim == 4
    x = input if batched or input.ndim != 3 else F.expand_dims(input, axis=0)
    groups = _check_transposed(name, x, weight, 4, groups)
    strides = _spatial(name, stride, 2, "stride")
    dilations = _spatial(name, dilation, 2, "dilation")
    pads = _pads(name, padding, 2, "padding", "pad", symmetric_only=True)
    out_pad = U.ntuple(name, output_padding, 2, "output_padding", allow_zero=True)
    sizes, before = _transposed_sizes(name, x.shape[2:], weight.shape[2:], strides, dilations,
                                      "pad", pads, out_pad)
    y = _conv_transpose(x, weight, sizes, strides, dilations, before, groups, _conv2d_raw)
    y = _add_bias(name, y, bias)
    return y if batched else F.squeeze(y, axis=(0,))


def _conv3d_transpose_prim(dout, weight, bias=None, in_channel=None, out_channel=None,
                           kernel_size=None, mode=1, pad_mode="valid", pad=0, stride=1,
                           dilation=1, group=1, output_padding=0, data_format="NCDHW"):
    """``ops.Conv3DTranspose(in_channel, out_channel, kernel_size, mode=1, pad_mode='valid',
    pad=0, stride=1, dilation=1, group=1, output_padding=0, data_format='NCDHW')(dout, weight)``:
    the transposed 3-D convolution of ``dout`` (N, C_in, D, H, W) with ``weight``
    (C_in, C_out / group, kd, kh, kw)."""
    name = "Conv3DTranspose"
    groups = _check_transposed(name, dout, weight, 5, group)
    if bias is not None:
        raise ValueError(f"{name}: 'bias' must be None, as in MindSpore")
    if in_channel is not None and U.int_arg(name, in_channel, "in_channel") != dout.shape[1]:
        raise ValueError(f"{name}: in_channel is {in_channel} but 'dout' has {dout.shape[1]} "
                         "channels")
    if out_channel is not None and \
            U.int_arg(name, out_channel, "out_channel") != weight.shape[1] * groups:
        raise ValueError(f"{name}: out_channel is {out_channel} but the weight "
                         f"{list(weight.shape)} gives {weight.shape[1] * groups}")
    if kernel_size is not None and _spatial(name, kernel_size, 3, "kernel_size") != \
            tuple(weight.shape[2:]):
        raise ValueError(f"{name}: kernel_size is {kernel_size!r} but the weight has "
                         f"{list(weight.shape[2:])}")
    mode_ = _pad_mode(name, pad_mode)
    pads = _pads(name, pad, 3, "pad", mode_, symmetric_only=False)
    strides = _spatial(name, stride, 3, "stride")
    dilations = _spatial(name, dilation, 3, "dilation")
    out_pad = _spatial_or_zero(name, output_padding, 3)
    sizes, before = _transposed_sizes(name, dout.shape[2:], weight.shape[2:], strides, dilations,
                                      mode_, pads, out_pad)
    return _conv_transpose(dout, weight, sizes, strides, dilations, before, groups, _conv3d_raw)


def _spatial_or_zero(name: str, value, n: int) -> tuple[int, ...]:
    if isinstance(value, (tuple, list)) and len(value) == n + 2:
        value = tuple(value)[2:]
    return U.ntuple(name, value, n, "output_padding", allow_zero=True)


# --- deformable convolution -------------------------------------------------------------------------

def _sample_bilinear(table, base, y, x, h: int, w: int):
    """Bilinear samples of a (pixels, C) table at float positions (any shape S): (S..., C); corners
    outside the image count as 0 (mmcv's deformable_im2col, which MindSpore uses)."""
    y0, x0 = F.floor(y), F.floor(x)
    ly, lx = F.expand_dims(F.sub(y, y0), axis=-1), F.expand_dims(F.sub(x, x0), axis=-1)
    y0i, x0i = F.cast(y0, dtype=int64), F.cast(x0, dtype=int64)
    total = None
    for dy, wy in ((0, F.sub(1, ly)), (1, ly)):
        for dx, wx in ((0, F.sub(1, lx)), (1, lx)):
            yi, xi = F.add(y0i, dy), F.add(x0i, dx)
            inside = F.logical_and(F.logical_and(F.greater_equal(yi, 0), F.less(yi, h)),
                                   F.logical_and(F.greater_equal(xi, 0), F.less(xi, w)))
            flat = F.add(F.add(F.mul(F.minimum(F.maximum(yi, 0), h - 1), w),
                               F.minimum(F.maximum(xi, 0), w - 1)), base)
            v = F.take(table, flat, axis=0)
            v = F.select(F.expand_dims(inside, axis=-1), v, F.zeros_like(v))
            part = F.mul(F.mul(wy, wx), v)
            total = part if total is None else F.add(total, part)
    return total


def deformable_conv2d(x, weight, offsets, kernel_size, strides, padding, bias=None,
                      dilations=(1, 1, 1, 1), groups=1, deformable_groups=1, modulated=True):
    """``ops.deformable_conv2d(x, weight, offsets, kernel_size, strides, padding, bias=None,
    dilations=(1, 1, 1, 1), groups=1, deformable_groups=1, modulated=True)``: a 2-D convolution
    whose kernel taps are moved by ``offsets`` (N, 3 * deformable_groups * kh * kw, H_out, W_out),
    channels ordered (offset_x, offset_y, mask), and scaled by the mask (Deformable ConvNets v2).
    The taps are bilinear samples (0 outside the image), then one matmul per group."""
    name = "ops.deformable_conv2d"
    groups = _check_conv_operands(name, x, weight, 4, groups)
    U.float_tensor(name, offsets, "offsets")
    if modulated is not True:
        raise ValueError(f"{name}: only modulated=True (v2) is supported, as in MindSpore")
    kh, kw = U.ntuple(name, kernel_size, 2, "kernel_size")
    if (kh, kw) != tuple(weight.shape[2:]):
        raise ValueError(f"{name}: kernel_size {kernel_size!r} does not match the weight "
                         f"{list(weight.shape)}")
    for what, v in (("strides", strides), ("dilations", dilations)):
        if not isinstance(v, (tuple, list)) or len(v) != 4 or tuple(v[:2]) != (1, 1):
            raise ValueError(f"{name}: '{what}' must be 4 ints (1, 1, h, w), got {v!r}")
    if not isinstance(padding, (tuple, list)) or len(padding) != 4:
        raise ValueError(f"{name}: 'padding' must be 4 ints (top, bottom, left, right), got "
                         f"{padding!r}")
    (sh, sw), (dh, dw) = tuple(strides[2:]), tuple(dilations[2:])
    pt, pb, pl, pr = (int(p) for p in padding)
    n, c, h, w = x.shape
    dg = U.int_arg(name, deformable_groups, "deformable_groups")
    if dg < 1 or c % dg:
        raise ValueError(f"{name}: 'deformable_groups' must divide the {c} input channels")
    oh = (h + pt + pb - (kh - 1) * dh - 1) // sh + 1
    ow = (w + pl + pr - (kw - 1) * dw - 1) // sw + 1
    k = kh * kw
    if tuple(offsets.shape) != (n, 3 * dg * k, oh, ow):
        raise ValueError(f"{name}: 'offsets' must have shape {[n, 3 * dg * k, oh, ow]}, got "
                         f"{list(offsets.shape)}")
    parts = F.reshape(offsets, (n, 3, dg, k, oh, ow))
    off_x, off_y, mask = (F.getitem(parts, key=(slice(None), i)) for i in range(3))  # (N, dg, K, ...)
    # the undeformed tap positions, (K, OH, OW)
    grid_y = (np.arange(oh)[None, :, None] * sh - pt + (np.arange(k) // kw)[:, None, None] * dh)
    grid_x = (np.arange(ow)[None, None, :] * sw - pl + (np.arange(k) % kw)[:, None, None] * dw)
    pos_y = F.add(off_y, U.constant(np.broadcast_to(grid_y, (k, oh, ow)).astype(
        x.dtype.np_dtype), x.dtype))
    pos_x = F.add(off_x, U.constant(np.broadcast_to(grid_x, (k, oh, ow)).astype(
        x.dtype.np_dtype), x.dtype))
    cg = c // dg
    base = U.constant((np.arange(n) * h * w).reshape(n, 1, 1, 1), int64)
    columns = []
    for g in range(dg):
        chans = F.getitem(x, key=(slice(None), slice(g * cg, (g + 1) * cg)))
        table = F.reshape(F.transpose(chans, perm=(0, 2, 3, 1)), (n * h * w, cg))
        sample = _sample_bilinear(table, base, F.getitem(pos_y, key=(slice(None), g)),
                                  F.getitem(pos_x, key=(slice(None), g)), h, w)  # (N, K, OH, OW, cg)
        sample = F.mul(sample, F.expand_dims(F.getitem(mask, key=(slice(None), g)), axis=-1))
        columns.append(F.transpose(sample, perm=(0, 4, 1, 2, 3)))          # (N, cg, K, OH, OW)
    cols = columns[0] if dg == 1 else F.concat(*columns, axis=1)         # (N, C, K, OH, OW)
    o = weight.shape[0]
    cols = F.reshape(cols, (n, groups, (c // groups) * k, oh * ow))
    wg = F.reshape(weight, (groups, o // groups, (c // groups) * k))
    y = F.matmul(F.broadcast_to(F.expand_dims(wg, axis=0), shape=(n,) + tuple(wg.shape)), cols)
    return _add_bias(name, F.reshape(y, (n, o, oh, ow)), bias)


# --- Primitive classes ------------------------------------------------------------------------------

_BACKPROP_INIT = ("out_channel", "kernel_size", "pad_mode", "pad", "pad_list", "mode", "stride",
                  "dilation", "group", "data_format")
Conv2DBackpropInput = primitive("Conv2DBackpropInput", _conv2d_backprop_input_prim,
                                init=_BACKPROP_INIT)
Conv2DTranspose = primitive("Conv2DTranspose", _conv2d_backprop_input_prim, init=_BACKPROP_INIT)
Conv3D = primitive("Conv3D", _conv3d_prim,
                   init=("out_channel", "kernel_size", "mode", "pad_mode", "pad", "stride",
                         "dilation", "group", "data_format"))
Conv3DTranspose = primitive("Conv3DTranspose", _conv3d_transpose_prim,
                            init=("in_channel", "out_channel", "kernel_size", "mode", "pad_mode",
                                  "pad", "stride", "dilation", "group", "output_padding",
                                  "data_format"))
DepthwiseConv2dNative = primitive("DepthwiseConv2dNative", _depthwise_prim,
                                  init=("channel_multiplier", "kernel_size", "mode", "pad_mode",
                                        "pad", "stride", "dilation", "group"))
