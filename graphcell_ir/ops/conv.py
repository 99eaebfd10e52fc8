"""Sliding-window primitives on NCHW tensors: 2-D convolution and max/average pooling.

Every op here slides a window over the last two axes, so they share one piece of geometry,
:func:`window_geometry`, which turns MindSpore's ``pad_mode`` ("valid", "same", "pad"), kernel,
stride and dilation into the output size and the (top, bottom, left, right) padding. "same"
puts the odd padding row/column at the bottom/right, as MindSpore does (checked against
MindSpore 2.10).

Gradients are primitives too, and each of them is differentiable, so second-order gradients
work (DESIGN.md §6):

- ``conv2d(x, w)``: ``dx = conv2d_backprop_input(dout, w)``, ``dw = conv2d_backprop_filter(dout, x)``.
  Both are bilinear, and their own gradients are again ``conv2d`` and the other backprop op.
- ``max_pool2d(x)``: ``dx = max_pool2d_grad(x, dout)`` (the gradient goes to the first maximum
  of each window, row-major, as in MindSpore); that is linear in ``dout`` with adjoint
  ``max_pool2d_grad_grad(x, g)``, which picks ``g`` at each window's maximum.
- ``avg_pool2d(x)``: ``dx = avg_pool2d_grad(dout)``, whose adjoint is ``avg_pool2d`` itself.

References use strided views plus BLAS (conv) or one vectorised pass per kernel offset (pools and
the scatter-back of the gradients): loops run over the kernel's KH*KW offsets, never over pixels.
Attribute names follow the MindSpore Primitives (``ops.Conv2D``, ``ops.MaxPool``,
``ops.AvgPool``), so those Primitive classes are derived from these entries; sizes may be given
as an int, a pair, or MindSpore's 4-tuple ``(1, 1, h, w)``.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.lib.stride_tricks import as_strided

from graphcell_ir.errors import OpTypeError, ShapeError
from graphcell_ir.ir.types import TensorType
from graphcell_ir.ops import functional as F
from graphcell_ir.ops.cost import conv_cost, elements, window_cost
from graphcell_ir.ops.registry import AttrKind, Kind, attr, defop
from graphcell_ir.ops.shape_rules import require_float, require_tensor

OPAQUE = Kind.OPAQUE


# --- window geometry (shared by every op of this module) --------------------------------------

def _pair(v, name: str) -> tuple[int, int]:
    """An (h, w) pair from an int-tuple of length 1, 2 or MindSpore's 4 ``(1, 1, h, w)``."""
    v = tuple(v) if v is not None else (1,)
    if len(v) == 1:
        v = v * 2
    elif len(v) == 4:
        v = v[2:]
    if len(v) != 2 or any(e < 1 for e in v):
        raise OpTypeError(f"{name} must be a positive int, a pair or a 4-tuple (1, 1, h, w), "
                          f"got {list(v)}")
    return v


def _quad(pad) -> tuple[int, int, int, int]:
    """(top, bottom, left, right) from an int, a pair (h, w) or a 4-tuple."""
    pad = tuple(pad) if pad is not None else (0,)
    if len(pad) == 1:
        pad = pad * 4
    elif len(pad) == 2:
        pad = (pad[0], pad[0], pad[1], pad[1])
    if len(pad) != 4 or any(p < 0 for p in pad):
        raise OpTypeError(f"pad must be a non-negative int, a pair or a 4-tuple (top, bottom, "
                          f"left, right), got {list(pad)}")
    return pad


@dataclass(frozen=True)
class Window:
    """Where a kernel of size (kh, kw) lands: strides, dilations, padding and output size."""

    kh: int
    kw: int
    sh: int
    sw: int
    dh: int
    dw: int
    pt: int
    pb: int
    pl: int
    pr: int
    oh: int
    ow: int

    def padded(self, h: int, w: int) -> tuple[int, int]:
        return h + self.pt + self.pb, w + self.pl + self.pr

    def offsets(self):
        """``(i, j, rows, cols)`` for each kernel offset: the slices of the padded input it reads."""
        for i in range(self.kh):
            r0 = i * self.dh
            rows = slice(r0, r0 + self.sh * (self.oh - 1) + 1, self.sh)
            for j in range(self.kw):
                c0 = j * self.dw
                yield i, j, rows, slice(c0, c0 + self.sw * (self.ow - 1) + 1, self.sw)


def _out_and_pads(size: int, k: int, s: int, d: int, mode: str, before: int, after: int):
    eff = d * (k - 1) + 1
    if mode == "same":
        out = -(-size // s)
        total = max((out - 1) * s + eff - size, 0)
        return out, total // 2, total - total // 2
    if mode == "valid":
        before = after = 0
    return (size + before + after - eff) // s + 1, before, after


def window_geometry(hw: tuple[int, int], kernel, stride, dilation=(1, 1), pad_mode="valid",
                    pad=(0,)) -> Window:
    """The window of a (kh, kw) kernel over an (h, w) image; ShapeError when nothing fits."""
    mode = pad_mode.lower()
    if mode not in ("valid", "same", "pad"):
        raise OpTypeError(f"pad_mode must be 'valid', 'same' or 'pad', got {pad_mode!r}")
    (kh, kw), (sh, sw) = _pair(kernel, "kernel_size"), _pair(stride, "stride")
    dh, dw = _pair(dilation, "dilation")
    pt, pb, pl, pr = _quad(pad)
    if mode != "pad" and any((pt, pb, pl, pr)):
        raise OpTypeError(f"pad must be 0 unless pad_mode is 'pad', got pad {[pt, pb, pl, pr]} "
                          f"with pad_mode {pad_mode!r}")
    oh, pt, pb = _out_and_pads(hw[0], kh, sh, dh, mode, pt, pb)
    ow, pl, pr = _out_and_pads(hw[1], kw, sw, dw, mode, pl, pr)
    if oh < 1 or ow < 1:
        raise ShapeError(f"a {kh}x{kw} window (dilation {dh}x{dw}) does not fit an input of "
                         f"height x width {hw[0]}x{hw[1]} with padding {[pt, pb, pl, pr]}")
    return Window(kh, kw, sh, sw, dh, dw, pt, pb, pl, pr, oh, ow)


def _require_nchw(t, what: str, data_format: str = "NCHW") -> TensorType:
    t = require_tensor(t, what)
    if data_format != "NCHW":
        raise OpTypeError(f"only data_format 'NCHW' is supported, got {data_format!r}")
    if t.ndim != 4:
        raise ShapeError(f"{what} must be a 4-D NCHW tensor, got {t}")
    return t


def _pad_hw(x: np.ndarray, win: Window, value=0) -> np.ndarray:
    if not (win.pt or win.pb or win.pl or win.pr):
        return x
    return np.pad(x, ((0, 0), (0, 0), (win.pt, win.pb), (win.pl, win.pr)), constant_values=value)


def _windows(xp: np.ndarray, win: Window) -> np.ndarray:
    """A read-only (N, C, OH, OW, KH, KW) view of the padded input: im2col without copying."""
    n, c = xp.shape[:2]
    s_n, s_c, s_h, s_w = xp.strides
    return as_strided(xp, (n, c, win.oh, win.ow, win.kh, win.kw),
                      (s_n, s_c, s_h * win.sh, s_w * win.sw, s_h * win.dh, s_w * win.dw),
                      writeable=False)


def _scatter_back(parts, shape: tuple[int, ...], win: Window, dtype) -> np.ndarray:
    """Sum ``parts(i, j)`` (N, C, OH, OW) into the kernel offsets of a padded (N, C, H, W) zero
    tensor and crop the padding: the adjoint of reading through :func:`_windows`."""
    n, c, h, w = shape
    hp, wp = win.padded(h, w)
    out = np.zeros((n, c, hp, wp), dtype)
    for i, j, rows, cols in win.offsets():
        out[:, :, rows, cols] += parts(i, j)
    return out[:, :, win.pt:win.pt + h, win.pl:win.pl + w]


# --- conv2d ---------------------------------------------------------------------------------

_WINDOW_ATTRS = [attr("pad_mode", AttrKind.STR, "valid"),
                 attr("pad", AttrKind.OPT_INTS, (0, 0, 0, 0)),
                 attr("stride", AttrKind.OPT_INTS, (1, 1)),
                 attr("dilation", AttrKind.OPT_INTS, (1, 1)),
                 attr("group", AttrKind.INT, 1)]


def _conv_window(x_shape, w_shape, *, pad_mode, pad, stride, dilation, group) -> Window:
    c, (o, cg) = x_shape[1], w_shape[:2]
    if group < 1 or c % group or o % group:
        raise ShapeError(f"group {group} must divide the input channels ({c}) and the output "
                         f"channels ({o})")
    if cg * group != c:
        raise ShapeError(f"the weight expects {cg * group} input channels ({cg} per group x "
                         f"{group} groups), the input has {c}")
    return window_geometry(x_shape[2:], w_shape[2:], stride, dilation, pad_mode, pad)


def _conv_operands(x, w, xname="x", wname="weight"):
    x, w = _require_nchw(x, xname), _require_nchw(w, f"{wname} (OIHW)")
    require_float(x, xname)
    if x.dtype is not w.dtype:
        raise OpTypeError(f"{xname} and {wname} must have the same dtype, got {x} and {w}")
    return x, w


def _conv2d_infer(x, w, *, out_channel=0, kernel_size=None, mode=1, data_format="NCHW", **win):
    _require_nchw(x, "x", data_format)
    x, w = _conv_operands(x, w)
    if mode != 1:
        raise OpTypeError(f"mode must be 1, got {mode}")
    if out_channel and out_channel != w.shape[0]:
        raise ShapeError(f"out_channel is {out_channel} but the weight {w} has {w.shape[0]}")
    if kernel_size is not None and _pair(kernel_size, "kernel_size") != w.shape[2:]:
        raise ShapeError(f"kernel_size is {list(kernel_size)} but the weight {w} has "
                         f"{list(w.shape[2:])}")
    g = _conv_window(x.shape, w.shape, **win)
    return TensorType(x.dtype, (x.shape[0], w.shape[0], g.oh, g.ow))


def _group_cols(x: np.ndarray, win: Window, group: int) -> np.ndarray:
    """im2col grouped for one batched matmul: (G, N*OH*OW, Cg*KH*KW)."""
    cols = _windows(_pad_hw(x, win), win)
    n, c = x.shape[:2]
    cols = cols.reshape(n, group, c // group, win.oh, win.ow, win.kh, win.kw)
    # sizes spelled out: -1 cannot be inferred from an empty batch
    return cols.transpose(1, 0, 3, 4, 2, 5, 6).reshape(group, n * win.oh * win.ow,
                                                       c // group * win.kh * win.kw)


def _from_groups(y: np.ndarray, n: int, win: Window) -> np.ndarray:
    """(G, N*OH*OW, Og) -> (N, G*Og, OH, OW)."""
    g, _, og = y.shape
    y = y.reshape(g, n, win.oh, win.ow, og).transpose(1, 0, 4, 2, 3)
    return y.reshape(n, g * og, win.oh, win.ow)


def _to_groups(dy: np.ndarray, group: int) -> np.ndarray:
    """(N, G*Og, OH, OW) -> (G, N*OH*OW, Og)."""
    n, o, oh, ow = dy.shape
    dy = dy.reshape(n, group, o // group, oh, ow).transpose(1, 0, 3, 4, 2)
    return dy.reshape(group, n * oh * ow, o // group)


def _conv2d_ref(x, w, *, out_channel=0, kernel_size=None, mode=1, data_format="NCHW", **win):
    g = win["group"]
    geo = _conv_window(x.shape, w.shape, **win)
    wg = w.reshape(g, w.shape[0] // g, -1).transpose(0, 2, 1)  # (G, Cg*KH*KW, Og)
    y = np.matmul(_group_cols(x, geo, g), wg)
    return np.ascontiguousarray(_from_groups(y, x.shape[0], geo), dtype=x.dtype)


def bprop_conv2d(x, w, out, dout, *, out_channel, kernel_size, mode, data_format,
                 needs=(True, True), **win):
    dx = F.conv2d_backprop_input(dout, w, input_size=tuple(x.shape), **win) if needs[0] else None
    dw = F.conv2d_backprop_filter(dout, x, filter_size=tuple(w.shape), **win) if needs[1] else None
    return dx, dw


def _conv2d_cost(ins, outs, **attrs) -> int:
    return conv_cost(elements(outs[0]), ins[1])


conv2d = defop("conv2d", ("x", "weight"), kind=OPAQUE, ms_name="Conv2D", cost=_conv2d_cost,
               attrs=[attr("out_channel", AttrKind.INT, 0),
                      attr("kernel_size", AttrKind.OPT_INTS, None),
                      attr("mode", AttrKind.INT, 1), *_WINDOW_ATTRS,
                      attr("data_format", AttrKind.STR, "NCHW")],
               prim_init=("out_channel", "kernel_size", "mode", "pad_mode", "pad", "stride",
                          "dilation", "group", "data_format"),
               infer=_conv2d_infer, ref=_conv2d_ref, bprop=bprop_conv2d,
               doc="2-D convolution, x NCHW, weight OIHW. out_channel (0: from the weight) and "
                   "kernel_size (None: from the weight) are checked against the weight when given.")


def _size4(size, what: str, batch: bool = False) -> tuple[int, ...]:
    """``size`` checked: 4 positive sizes (``batch``: the first may be 0, an empty batch)."""
    if len(size) != 4 or any(s < 1 for s in size[1 if batch else 0:]) or size[0] < 0:
        raise ShapeError(f"{what} must be 4 positive sizes, got {list(size)}")
    return tuple(size)


def _check_dy(dy: TensorType, n: int, o: int, geo: Window) -> None:
    want = (n, o, geo.oh, geo.ow)
    if dy.shape != want:
        raise ShapeError(f"the output gradient {dy} does not match the convolution's output "
                         f"shape [{','.join(map(str, want))}]")


def _bp_input_infer(dy, w, *, input_size, **win):
    dy, w = _conv_operands(dy, w, "dy")
    size = _size4(input_size, "input_size", batch=True)
    _check_dy(dy, size[0], w.shape[0], _conv_window(size, w.shape, **win))
    return TensorType(dy.dtype, size)


def _bp_input_ref(dy, w, *, input_size, **win):
    g = win["group"]
    geo = _conv_window(input_size, w.shape, **win)
    n, c = input_size[:2]
    wg = w.reshape(g, w.shape[0] // g, -1)                     # (G, Og, Cg*KH*KW)
    dcols = np.matmul(_to_groups(dy, g), wg)                     # (G, N*OH*OW, Cg*KH*KW)
    dcols = dcols.reshape(g, n, geo.oh, geo.ow, c // g, geo.kh, geo.kw)
    dcols = dcols.transpose(1, 0, 4, 5, 6, 2, 3).reshape(n, c, geo.kh, geo.kw, geo.oh, geo.ow)
    return _scatter_back(lambda i, j: dcols[:, :, i, j], input_size, geo, dy.dtype)


def bprop_conv2d_backprop_input(dy, w, out, dout, *, input_size, **win):
    # bilinear in (dy, w): <bp_input(dy, w), g> = <dy, conv2d(g, w)>, here g = dout
    return (F.conv2d(dout, w, **win),
            F.conv2d_backprop_filter(dy, dout, filter_size=tuple(w.shape), **win))


conv2d_backprop_input = defop(
    "conv2d_backprop_input", ("dy", "weight"), kind=OPAQUE, ms_name="Conv2DBackpropInput",
    cost=lambda ins, outs, **attrs: conv_cost(elements(ins[0]), ins[1]),
    attrs=[attr("input_size", AttrKind.INTS), *_WINDOW_ATTRS],
    infer=_bp_input_infer, ref=_bp_input_ref, bprop=bprop_conv2d_backprop_input,
    doc="The gradient of conv2d with respect to its input (a transposed convolution).")


def _bp_filter_infer(dy, x, *, filter_size, **win):
    dy, x = _conv_operands(dy, x, "dy", "x")
    size = _size4(filter_size, "filter_size")
    _check_dy(dy, x.shape[0], size[0], _conv_window(x.shape, size, **win))
    return TensorType(dy.dtype, size)


def _bp_filter_ref(dy, x, *, filter_size, **win):
    g = win["group"]
    geo = _conv_window(x.shape, filter_size, **win)
    dw = np.matmul(_to_groups(dy, g).transpose(0, 2, 1), _group_cols(x, geo, g))  # (G, Og, Cg*KH*KW)
    return np.ascontiguousarray(dw.reshape(filter_size), dtype=dy.dtype)


def bprop_conv2d_backprop_filter(dy, x, out, dout, *, filter_size, **win):
    # bilinear in (dy, x): <bp_filter(dy, x), g> = <dy, conv2d(x, g)>, here g = dout
    return (F.conv2d(x, dout, **win),
            F.conv2d_backprop_input(dy, dout, input_size=tuple(x.shape), **win))


conv2d_backprop_filter = defop(
    "conv2d_backprop_filter", ("dy", "x"), kind=OPAQUE, ms_name="Conv2DBackpropFilter",
    cost=lambda ins, outs, **attrs: conv_cost(elements(ins[0]), outs[0]),
    attrs=[attr("filter_size", AttrKind.INTS), *_WINDOW_ATTRS],
    infer=_bp_filter_infer, ref=_bp_filter_ref, bprop=bprop_conv2d_backprop_filter,
    doc="The gradient of conv2d with respect to its weight.")


# --- pooling ----------------------------------------------------------------------------------

_POOL_ATTRS = [attr("kernel_size", AttrKind.OPT_INTS, (1, 1)),
               attr("strides", AttrKind.OPT_INTS, (1, 1)),
               attr("pad_mode", AttrKind.STR, "valid"),
               attr("data_format", AttrKind.STR, "NCHW")]
_POOL_INIT = ("kernel_size", "strides", "pad_mode", "data_format")


def _pool_window(shape, kernel_size, strides, pad_mode) -> Window:
    if pad_mode.lower() == "pad":
        raise OpTypeError("pad_mode must be 'valid' or 'same' for pooling, got 'pad'")
    return window_geometry(shape[2:], kernel_size, strides, (1, 1), pad_mode)


def _pool_infer_x(x, *, kernel_size, strides, pad_mode, data_format, floats_only=False):
    x = _require_nchw(x, "x", data_format)
    if x.dtype.is_bool or (floats_only and not x.dtype.is_float):
        raise OpTypeError(f"x must have a {'float' if floats_only else 'numeric'} dtype, got {x}")
    return x, _pool_window(x.shape, kernel_size, strides, pad_mode)


def _max_pool_infer(x, **attrs):
    x, geo = _pool_infer_x(x, **attrs)
    return TensorType(x.dtype, x.shape[:2] + (geo.oh, geo.ow))


def _lowest(dtype: np.dtype):
    return -np.inf if dtype.kind == "f" else np.iinfo(dtype).min


def _max_and_argmax(x: np.ndarray, geo: Window):
    """Each window's maximum and the flat kernel offset of its first maximum (NaN wins, as in
    numpy's max): one vectorised pass per kernel offset."""
    xp = _pad_hw(x, geo, _lowest(x.dtype))
    best = idx = None
    for i, j, rows, cols in geo.offsets():
        v = xp[:, :, rows, cols]
        if best is None:
            best, idx = v.copy(), np.zeros(v.shape, np.int8 if geo.kh * geo.kw < 128 else np.int64)
            continue
        better = v > best
        if x.dtype.kind == "f":
            better |= np.isnan(v) & ~np.isnan(best)
        np.copyto(best, v, where=better)   # in place: no scatter through boolean indexing
        np.copyto(idx, i * geo.kw + j, where=better)
    return best, idx


def _window_max(x: np.ndarray, geo: Window) -> np.ndarray:
    """Each window's maximum: np.maximum over the kernel offsets (NaN wins, as in np.max); the
    forward needs no argmax."""
    xp = _pad_hw(x, geo, _lowest(x.dtype))
    best = None
    for _, _, rows, cols in geo.offsets():
        v = xp[:, :, rows, cols]
        best = v.copy() if best is None else np.maximum(best, v, out=best)
    return best


def _max_pool_ref(x, *, kernel_size, strides, pad_mode, data_format):
    return _window_max(x, _pool_window(x.shape, kernel_size, strides, pad_mode))


max_pool2d = defop("max_pool2d", ("x",), kind=OPAQUE, ms_name="MaxPool", attrs=_POOL_ATTRS,
                   cost=window_cost,
                   prim_init=_POOL_INIT, infer=_max_pool_infer, ref=_max_pool_ref,
                   bprop=lambda x, out, dout, **a: (F.max_pool2d_grad(x, dout, **a),))


def _max_pool_grad_infer(x, dy, **attrs):
    out = _max_pool_infer(x, **attrs)
    _require_like(require_tensor(dy, "dy"), out, "dy", "the pooled output")
    return x


def _require_like(t: TensorType, like: TensorType, what: str, of: str) -> None:
    if t.dtype is not like.dtype:
        raise OpTypeError(f"{what} {t} must have the dtype of {of} {like}")
    if t.shape != like.shape:
        raise ShapeError(f"{what} {t} must have the shape of {of} {like}")


def _max_pool_grad_ref(x, dy, *, kernel_size, strides, pad_mode, data_format):
    geo = _pool_window(x.shape, kernel_size, strides, pad_mode)
    _, idx = _max_and_argmax(x, geo)
    zero = np.zeros((), dy.dtype)
    return _scatter_back(lambda i, j: np.where(idx == i * geo.kw + j, dy, zero),
                         x.shape, geo, dy.dtype)


max_pool2d_grad = defop(
    "max_pool2d_grad", ("x", "dy"), kind=OPAQUE, ms_name="MaxPoolGrad", attrs=_POOL_ATTRS,
    cost=window_cost,
    infer=_max_pool_grad_infer, ref=_max_pool_grad_ref,
    # linear in dy; piecewise constant in x
    bprop=lambda x, dy, out, dout, **a: (None, F.max_pool2d_grad_grad(x, dout, **a)),
    doc="max_pool2d's input gradient: dy routed to each window's first maximum.")


def _max_pool_grad_grad_infer(x, g, **attrs):
    out = _max_pool_infer(x, **attrs)
    _require_like(require_tensor(g, "g"), x, "g", "x")
    return out


def _max_pool_grad_grad_ref(x, g, *, kernel_size, strides, pad_mode, data_format):
    geo = _pool_window(x.shape, kernel_size, strides, pad_mode)
    _, idx = _max_and_argmax(x, geo)
    out = np.zeros(idx.shape, g.dtype)
    gp = _pad_hw(g, geo)
    for i, j, rows, cols in geo.offsets():
        hit = idx == i * geo.kw + j
        out[hit] = gp[:, :, rows, cols][hit]
    return out


max_pool2d_grad_grad = defop(
    "max_pool2d_grad_grad", ("x", "g"), kind=OPAQUE, ms_name="MaxPoolGradGrad", attrs=_POOL_ATTRS,
    cost=window_cost,
    infer=_max_pool_grad_grad_infer, ref=_max_pool_grad_grad_ref,
    bprop=lambda x, g, out, dout, **a: (None, F.max_pool2d_grad(x, dout, **a)),
    doc="The adjoint of max_pool2d_grad in dy: g picked at each window's first maximum.")


def _avg_pool_infer(x, **attrs):
    x, geo = _pool_infer_x(x, floats_only=True, **attrs)
    return TensorType(x.dtype, x.shape[:2] + (geo.oh, geo.ow))


def _counts(hw: tuple[int, int], geo: Window, dtype) -> np.ndarray:
    """(OH, OW) number of real (unpadded) input elements under each window: 'same' pooling
    divides by it, as MindSpore's AvgPool does."""
    def along(size, k, s, before, out):
        start = np.arange(out) * s - before
        return np.minimum(start + k, size) - np.maximum(start, 0)
    return np.outer(along(hw[0], geo.kh, geo.sh, geo.pt, geo.oh),
                    along(hw[1], geo.kw, geo.sw, geo.pl, geo.ow)).astype(dtype)


def _avg_pool_ref(x, *, kernel_size, strides, pad_mode, data_format):
    geo = _pool_window(x.shape, kernel_size, strides, pad_mode)
    xp = _pad_hw(x, geo)
    acc = np.zeros(x.shape[:2] + (geo.oh, geo.ow), x.dtype)
    for _, _, rows, cols in geo.offsets():
        acc += xp[:, :, rows, cols]
    return acc / _counts(x.shape[2:], geo, x.dtype)


avg_pool2d = defop("avg_pool2d", ("x",), kind=OPAQUE, ms_name="AvgPool", attrs=_POOL_ATTRS,
                   cost=window_cost,
                   prim_init=_POOL_INIT, infer=_avg_pool_infer, ref=_avg_pool_ref,
                   bprop=lambda x, out, dout, **a: (
                       F.avg_pool2d_grad(dout, input_size=tuple(x.shape), **a),))


def _avg_pool_grad_infer(dy, *, input_size, **attrs):
    size = _size4(input_size, "input_size", batch=True)
    x = TensorType(require_tensor(dy, "dy").dtype, size)
    _require_like(dy, _avg_pool_infer(x, **attrs), "dy", "the pooled output")
    return x


def _avg_pool_grad_ref(dy, *, input_size, kernel_size, strides, pad_mode, data_format):
    geo = _pool_window(input_size, kernel_size, strides, pad_mode)
    share = dy / _counts(input_size[2:], geo, dy.dtype)
    return _scatter_back(lambda i, j: share, tuple(input_size), geo, dy.dtype)


avg_pool2d_grad = defop(
    "avg_pool2d_grad", ("dy",), kind=OPAQUE, cost=window_cost, ms_name="AvgPoolGrad",
    attrs=[attr("input_size", AttrKind.INTS), *_POOL_ATTRS],
    infer=_avg_pool_grad_infer, ref=_avg_pool_grad_ref,
    bprop=lambda dy, out, dout, input_size, **a: (F.avg_pool2d(dout, **a),),  # adjoint: the pool
    doc="avg_pool2d's input gradient: each output's gradient shared over its window.")
