"""MindSpore's framework functions and effects (``mindspore.ops`` names outside the math families):
gradients, the assign family, ordering and gradient stopping, printing, summaries and dumps,
gradient hooks, global-norm clipping, mixed-precision casts, and the detection helpers (IOU,
bounding-box encoding, NMS). The optimizer Primitives are in ``optim_func``.

Effects that must happen when a compiled graph runs (printing, dumping, assertions) are
``host_callback`` ops: the same code prints in PyNative and, compiled, calls back into Python
with the run-time values in program order.

Example::

    >>> import graphcell as ms
    >>> from graphcell import ops
    >>> w = ms.Parameter(ms.Tensor([1.0, 2.0]), name="w")
    >>> ops.assign_add(w, ms.Tensor([1.0, 1.0])).asnumpy().tolist(), w.asnumpy().tolist()
    ([2.0, 3.0], [2.0, 3.0])
"""
from __future__ import annotations

import builtins
import itertools
import math
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from graphcell.autodiff import grad, value_and_grad
from graphcell.ops.primitive import primitive
from graphcell.runtime.hooks import HookBackward
from graphcell.tensor import Tensor
from graphcell_ir.ir.types import float16, float32, float64, promote, to_dtype
from graphcell_ir.ops import functional as F

__all__ = [
    "grad", "value_and_grad", "assign_add", "assign_sub", "AssignAdd", "AssignSub",
    "stop_gradient", "print_", "Print", "ScalarSummary", "HistogramSummary", "ImageSummary",
    "TensorSummary", "TensorDump", "tensordump", "InsertGradientOf", "clip_by_global_norm",
    "mixed_precision_cast", "ReduceOp", "Eps", "eps", "FloatStatus", "IOU", "iou",
    "BoundingBoxEncode", "BoundingBoxDecode", "CheckValid", "NMSWithMask", "NoRepeatNGram",
    "Coalesce", "accumulate_n", "AccumulateNV2", "Assert", "CheckNumerics", "deepcopy",
]

_FLOATS = (float16, float32, float64)


def _tensor(x, name: str, what: str):
    if not isinstance(x, Tensor):
        raise TypeError(f"{name}: {what} must be a Tensor, got {type(x).__name__}")
    return x


# --- the assign family -------------------------------------------------------------------------

def _assign_op(name: str, variable, value, combine):
    """``variable = combine(variable, value)``, written in place (``value`` of variable's shape,
    converted to its dtype where that loses nothing, as ``ops.assign``)."""
    _tensor(variable, name, "variable")
    value = _tensor(value, name, "value") if not isinstance(value, (int, float)) else value
    shape = tuple(getattr(value, "shape", ()))
    if shape != tuple(variable.shape):
        raise ValueError(f"{name}: value must have the shape of variable {list(variable.shape)}, "
                         f"got {list(shape)}")
    if isinstance(value, Tensor) and promote(variable.dtype, value.dtype) != variable.dtype:
        raise TypeError(f"{name}: a {value.dtype} value cannot update a {variable.dtype} variable "
                        "without losing precision; cast it first")
    return F.assign(variable, F.cast_like(combine(variable, value), variable))


def assign_add(variable, value):
    """``ops.assign_add(variable, value)``: ``variable += value`` in place; returns the new value.

    ``value`` has variable's shape (no broadcasting) and a dtype variable's holds without loss.
    """
    return _assign_op("ops.assign_add", variable, value, F.add)


def assign_sub(variable, value):
    """``ops.assign_sub(variable, value)``: ``variable -= value`` in place; returns the new value."""
    return _assign_op("ops.assign_sub", variable, value, F.sub)


AssignAdd = primitive("AssignAdd", lambda variable, value: _assign_op(
    "AssignAdd", variable, value, F.add), doc="MindSpore's ``AssignAdd()(variable, value)``.")
AssignSub = primitive("AssignSub", lambda variable, value: _assign_op(
    "AssignSub", variable, value, F.sub), doc="MindSpore's ``AssignSub()(variable, value)``.")


# --- gradient control -----------------------------------------------------------------------------

def stop_gradient(value):
    """``ops.stop_gradient(value)``: ``value`` (a Tensor, or tuples/lists of them) through which no
    gradient flows; other values pass unchanged."""
    if isinstance(value, Tensor):
        return F.stop_gradient(value)
    if isinstance(value, (tuple, list)):
        return type(value)(stop_gradient(v) for v in value)
    return value


class InsertGradientOf(HookBackward):
    """MindSpore's ``InsertGradientOf(f)``: the identity forward; the gradient flowing back
    through it becomes ``f(gradient)``, in PyNative and in graph mode (a ``hook_backward`` op,
    as ``HookBackward``).

    Example::

        >>> import graphcell as ms
        >>> from graphcell import ops
        >>> clip = ops.InsertGradientOf(lambda g: g * 10)
        >>> ms.grad(lambda x: (clip(x) * x).sum())(ms.Tensor([1.0, 2.0])).asnumpy().tolist()
        [11.0, 22.0]
    """

    def __init__(self, f):
        if not callable(f):
            raise TypeError(f"InsertGradientOf: f must be callable, got {type(f).__name__}")
        super().__init__(f)

    def __call__(self, input_x):
        return super().__call__(input_x)

    def _run(self, grads: tuple):
        new = self.hook_fn(grads[0])
        return None if new is None else (new,)


# --- printing, summaries, dumps ------------------------------------------------------------------

_TENSOR = object()  # a tensor's place among Print's arguments


@dataclass(frozen=True)
class _PrintCallback:
    """The ``fn`` of Print's host callback: the non-tensor arguments, and where the tensors go.
    One per layout (``_print_callback``), so the op's attributes repeat from call to call."""

    layout: tuple

    @property
    def __name__(self) -> str:  # how the IR text shows it
        return "Print"

    def __call__(self, *arrays):
        it = iter(arrays)
        parts = [repr(Tensor(np.array(next(it)))) if p is _TENSOR else str(p)
                 for p in self.layout]
        builtins.print(*parts, sep="\n", flush=True)


@lru_cache(maxsize=256)
def _print_callback(layout: tuple) -> _PrintCallback:
    return _PrintCallback(layout)


def print_(*input_x):
    """``ops.print_(*input_x)``: prints each argument on its own line (Tensors as their repr) —
    at once in PyNative, when the graph runs in graph mode. Returns None."""
    tensors = [x for x in input_x if isinstance(x, Tensor)]
    layout = tuple(_TENSOR if isinstance(x, Tensor) else x for x in input_x)
    try:
        callback = _print_callback(layout)
    except TypeError:  # an unhashable argument (a list): not cached
        callback = _PrintCallback(layout)
    if tensors:
        F.host_callback(*tensors, fn=callback, name="Print")
    else:
        callback()
    return None


Print = primitive("Print", print_, doc="MindSpore's ``Print()(*input_x)``: ``ops.print_``.")


def _summary(kind: str):
    def record(name, value):
        if not isinstance(name, str) or not name:
            raise TypeError(f"{kind}: name must be a non-empty str, got {name!r}")
        _tensor(value, kind, "value")
        return None
    record.__name__ = kind
    record.__doc__ = (f"MindSpore's ``{kind}()(name, value)``: data for a SummaryRecord. graphcell "
                      "has no summary writer, so, as MindSpore without one, it records nothing "
                      "and returns None.")
    return record


ScalarSummary = primitive("ScalarSummary", _summary("ScalarSummary"))
HistogramSummary = primitive("HistogramSummary", _summary("HistogramSummary"))
ImageSummary = primitive("ImageSummary", _summary("ImageSummary"))
TensorSummary = primitive("TensorSummary", _summary("TensorSummary"))

_dump_ids = itertools.count()


@dataclass(frozen=True)
class _DumpCallback:
    """Writes ``<file>_<dtype>_<n>.npy`` as MindSpore's TensorDump does (``n`` counts dumps in the
    process)."""

    file: str

    @property
    def __name__(self) -> str:
        return "TensorDump"

    def __call__(self, array):
        a = np.asarray(array)
        np.save(f"{self.file}_{a.dtype.name}_{next(_dump_ids)}.npy", a)


def tensordump(file_name, tensor, mode="out"):
    """``ops.tensordump(file_name, tensor, mode='out')``: saves ``tensor`` as
    ``<file_name>_<dtype>_<n>.npy`` (n counts the dumps of the process) — when the graph runs, in
    graph mode. Returns None."""
    name = "ops.tensordump"
    if not isinstance(file_name, str) or not file_name:
        raise TypeError(f"{name}: file_name must be a non-empty str, got {file_name!r}")
    if mode not in ("out", "in", "all"):
        raise ValueError(f"{name}: mode must be 'out', 'in' or 'all', got {mode!r}")
    _tensor(tensor, name, "tensor")
    F.host_callback(tensor, fn=_DumpCallback(file_name), name="TensorDump")
    return None


TensorDump = primitive("TensorDump", lambda file, input_x, input_output="out": tensordump(
    file, input_x, input_output), init=("input_output",),
    doc="MindSpore's ``TensorDump(input_output='out')(file, input_x)``: ``ops.tensordump``.")


@dataclass(frozen=True)
class _CheckCallback:
    """Raises ValueError with ``message`` when the condition value is false (``Assert``) or when
    a value holds NaN or Inf (``CheckNumerics``)."""

    what: str
    summarize: int = 3

    @property
    def __name__(self) -> str:
        return self.what

    def __call__(self, *arrays):
        if self.what == "Assert":
            cond, data = arrays[0], arrays[1:]
            if not bool(np.all(cond)):
                shown = "; ".join(str(np.ravel(d)[:self.summarize].tolist()) for d in data)
                raise ValueError(f"Assert: the condition is false (data: {shown})")
        elif not np.all(np.isfinite(arrays[0])):
            raise ValueError("CheckNumerics: the tensor holds NaN or Inf values")


def _assert(condition, input_data, summarize=3):
    if isinstance(condition, bool):
        if not condition:
            raise ValueError("Assert: the condition is false")
        return None
    data = tuple(x for x in input_data if isinstance(x, Tensor))
    F.host_callback(condition, *data, fn=_CheckCallback("Assert", int(summarize)), name="Assert")
    return None


Assert = primitive("Assert", _assert, init=("summarize",),
                   doc="MindSpore's ``Assert(summarize=3)(condition, input_data)``: raises when "
                       "the condition is false (when the graph runs, in graph mode).")


def _check_numerics(x):
    _tensor(x, "CheckNumerics", "x")
    if x.dtype not in _FLOATS:
        raise TypeError(f"CheckNumerics: x must be a float tensor, got {x.dtype}")
    return F.host_callback(x, fn=_CheckCallback("CheckNumerics"), name="CheckNumerics")


CheckNumerics = primitive("CheckNumerics", _check_numerics,
                          doc="MindSpore's ``CheckNumerics()(x)``: x, or an error when it holds "
                              "NaN or Inf.")


# --- norms, casts, small helpers ---------------------------------------------------------------

def clip_by_global_norm(x, clip_norm=1.0, use_norm=None):
    """``ops.clip_by_global_norm(x, clip_norm=1.0, use_norm=None)``: the tensors of ``x`` scaled
    by ``clip_norm / max(global_norm, clip_norm)``, global_norm the 2-norm of all of them
    together. A tuple (a single Tensor gives a Tensor)."""
    name = "ops.clip_by_global_norm"
    if use_norm is not None:
        raise ValueError(f"{name}: use_norm only supports None, got {use_norm!r}")
    single = isinstance(x, Tensor)
    xs = (x,) if single else tuple(x)
    for i, t in enumerate(xs):
        _tensor(t, name, f"x[{i}]")
    wide = float64 if any(t.dtype == float64 for t in xs) else float32
    total = None
    for t in xs:
        sq = F.reduce_sum(F.square(F.cast(t, dtype=wide)), axis=None, keep_dims=False)
        total = sq if total is None else F.add(total, sq)
    norm = F.sqrt(total)
    scale = F.div(float(clip_norm), F.maximum(norm, float(clip_norm)))
    out = tuple(F.cast_like(F.mul(t, F.cast_like(scale, t)), t) for t in xs)
    return out[0] if single else out


def mixed_precision_cast(dst_type, x):
    """``ops.mixed_precision_cast(dst_type, x)``: the float tensors of ``x`` (a Tensor, or nested
    tuples/lists/dicts of them) cast to ``dst_type``; other values unchanged."""
    dst = to_dtype(dst_type)
    if isinstance(x, Tensor):
        return F.cast(x, dtype=dst) if x.dtype in _FLOATS else x
    if isinstance(x, (tuple, list)):
        return tuple(mixed_precision_cast(dst, v) for v in x)
    if isinstance(x, dict):
        return {k: mixed_precision_cast(dst, v) for k, v in x.items()}
    return x


class ReduceOp:
    """MindSpore's ``ops.ReduceOp``: the names of the collective reductions (``comm_func.py``)."""

    SUM = "sum"
    MAX = "max"
    MIN = "min"
    PROD = "prod"
    AVG = "avg"


def eps(x):
    """``ops.eps(x)``: a tensor of x's shape and float dtype filled with that dtype's machine
    epsilon."""
    _tensor(x, "ops.eps", "x")
    if x.dtype not in _FLOATS:
        raise TypeError(f"ops.eps: x must be a float tensor, got {x.dtype}")
    return F.fill(dtype=x.dtype, shape=tuple(x.shape), value=float(np.finfo(x.dtype.np_dtype).eps))


Eps = primitive("Eps", eps, doc="MindSpore's ``Eps()(x)``: ``ops.eps``.")


def _float_status(x):
    _tensor(x, "FloatStatus", "x")
    if x.dtype not in _FLOATS:
        raise TypeError(f"FloatStatus: x must be a float tensor, got {x.dtype}")
    bad = F.logical_or(F.isnan(x), F.equal(F.abs(x), math.inf))
    return F.reshape(F.cast(F.reduce_any(bad, axis=None, keep_dims=False), dtype=float32),
                     shape=(1,))


FloatStatus = primitive("FloatStatus", _float_status,
                        doc="MindSpore's ``FloatStatus()(x)``: [1.] when x holds NaN or Inf, else "
                            "[0.] (Float32, shape (1,)). MindSpore 2.10's CPU build has no kernel "
                            "for it; graphcell provides it.")


def accumulate_n(x):
    """``ops.accumulate_n(x)``: the sum of the tensors of ``x`` (one shape and dtype)."""
    xs = tuple(x)
    if not xs:
        raise ValueError("ops.accumulate_n: x must hold at least one tensor")
    total = xs[0]
    for t in xs[1:]:
        total = F.add(total, t)
    return total


AccumulateNV2 = primitive("AccumulateNV2", accumulate_n,
                          doc="MindSpore's ``AccumulateNV2()(x)``: ``ops.accumulate_n``.")


def deepcopy(input_x):
    """``ops.deepcopy(input_x)``: a new tensor with ``input_x``'s values."""
    _tensor(input_x, "ops.deepcopy", "input_x")
    return F.reshape(input_x, shape=tuple(input_x.shape))


# --- detection helpers -------------------------------------------------------------------------

def _columns(boxes):
    """The four coordinate columns of ``[N, 4]`` boxes, each ``[N]``."""
    return [F.getitem(boxes, key=(slice(None), i)) for i in range(4)]


def _boxes(name: str, what: str, b):
    _tensor(b, name, what)
    if b.dtype not in (float16, float32):
        raise TypeError(f"{name}: {what} must be float16 or float32, got {b.dtype}")
    if b.ndim != 2 or b.shape[1] < 4:
        raise ValueError(f"{name}: {what} must have shape [N, 4], got {list(b.shape)}")


def iou(input, other, mode="iou"):  # noqa: A002
    """``ops.iou(input, other, mode='iou')``: the overlaps of the anchor boxes ``input`` [N, 4]
    and the ground-truth boxes ``other`` [M, 4] (x0, y0, x1, y1), as an [M, N] tensor:
    intersection over union (``'iou'``) or over the ground truth's area (``'iof'``), with
    MindSpore's +1 pixel convention for widths and heights."""
    name = "ops.iou"
    if mode not in ("iou", "iof"):
        raise ValueError(f"{name}: mode must be 'iou' or 'iof', got {mode!r}")
    _boxes(name, "input", input)
    _boxes(name, "other", other)
    ax0, ay0, ax1, ay1 = (F.expand_dims(c, axis=0) for c in _columns(input))   # [1, N]
    gx0, gy0, gx1, gy1 = (F.expand_dims(c, axis=1) for c in _columns(other))   # [M, 1]
    w = F.maximum(F.add(F.sub(F.minimum(ax1, gx1), F.maximum(ax0, gx0)), 1.0), 0.0)
    h = F.maximum(F.add(F.sub(F.minimum(ay1, gy1), F.maximum(ay0, gy0)), 1.0), 0.0)
    inter = F.mul(w, h)
    area_g = F.mul(F.add(F.sub(gx1, gx0), 1.0), F.add(F.sub(gy1, gy0), 1.0))
    if mode == "iof":
        return F.div(inter, area_g)
    area_a = F.mul(F.add(F.sub(ax1, ax0), 1.0), F.add(F.sub(ay1, ay0), 1.0))
    return F.div(inter, F.sub(F.add(area_a, area_g), inter))


IOU = primitive("IOU", lambda anchor_boxes, gt_boxes, mode="iou": iou(anchor_boxes, gt_boxes, mode),
                init=("mode",), doc="MindSpore's ``IOU(mode='iou')(anchor_boxes, gt_boxes)``.")


def _check_quad(name: str, what: str, v):
    if not isinstance(v, tuple) or len(v) != 4 or not all(isinstance(e, float) for e in v):
        raise TypeError(f"{name}: {what} must be a tuple of 4 floats, got {v!r}")


def _centres(boxes):
    x0, y0, x1, y1 = _columns(boxes)
    w, h = F.add(F.sub(x1, x0), 1.0), F.add(F.sub(y1, y0), 1.0)
    return F.add(x0, F.mul(F.sub(w, 1.0), 0.5)), F.add(y0, F.mul(F.sub(h, 1.0), 0.5)), w, h


def _bbox_encode(anchor_box, groundtruth_box, means=(0.0, 0.0, 0.0, 0.0), stds=(1.0, 1.0, 1.0, 1.0)):
    name = "BoundingBoxEncode"
    _check_quad(name, "means", means)
    _check_quad(name, "stds", stds)
    _boxes(name, "anchor_box", anchor_box)
    _boxes(name, "groundtruth_box", groundtruth_box)
    px, py, pw, ph = _centres(anchor_box)
    gx, gy, gw, gh = _centres(groundtruth_box)
    deltas = [F.div(F.sub(gx, px), pw), F.div(F.sub(gy, py), ph),
              F.log(F.div(gw, pw)), F.log(F.div(gh, ph))]
    cols = [F.expand_dims(F.div(F.sub(d, m), s), axis=1) for d, m, s in zip(deltas, means, stds)]
    return F.concat(*cols, axis=1)


BoundingBoxEncode = primitive(
    "BoundingBoxEncode", _bbox_encode, init=("means", "stds"),
    doc="MindSpore's ``BoundingBoxEncode(means=(0.,)*4, stds=(1.,)*4)(anchor_box, "
        "groundtruth_box)``: the offsets (dx, dy, dw, dh) of the ground truth from the anchors, "
        "normalised by means and stds.")


def _bbox_decode(anchor_box, deltas, max_shape, means=(0.0, 0.0, 0.0, 0.0),
                 stds=(1.0, 1.0, 1.0, 1.0), wh_ratio_clip=0.016):
    name = "BoundingBoxDecode"
    _check_quad(name, "means", means)
    _check_quad(name, "stds", stds)
    if not isinstance(max_shape, tuple) or len(max_shape) != 2:
        raise TypeError(f"{name}: max_shape must be a tuple (height, width), got {max_shape!r}")
    if not isinstance(wh_ratio_clip, float):
        raise TypeError(f"{name}: wh_ratio_clip must be a float, got {wh_ratio_clip!r}")
    _boxes(name, "anchor_box", anchor_box)
    _boxes(name, "deltas", deltas)
    px, py, pw, ph = _centres(anchor_box)
    dx, dy, dw, dh = (F.add(F.mul(c, s), m) for c, m, s in zip(_columns(deltas), means, stds))
    limit = abs(math.log(wh_ratio_clip))
    dw = F.minimum(F.maximum(dw, -limit), limit)
    dh = F.minimum(F.maximum(dh, -limit), limit)
    gx, gy = F.add(px, F.mul(pw, dx)), F.add(py, F.mul(ph, dy))
    gw, gh = F.mul(pw, F.exp(dw)), F.mul(ph, F.exp(dh))
    height, width = max_shape

    def clip(v, hi):
        return F.minimum(F.maximum(v, 0.0), float(hi))
    x0 = clip(F.add(F.sub(gx, F.mul(gw, 0.5)), 0.5), width)
    y0 = clip(F.add(F.sub(gy, F.mul(gh, 0.5)), 0.5), height)
    x1 = clip(F.sub(F.add(gx, F.mul(gw, 0.5)), 0.5), width)
    y1 = clip(F.sub(F.add(gy, F.mul(gh, 0.5)), 0.5), height)
    return F.concat(*(F.expand_dims(c, axis=1) for c in (x0, y0, x1, y1)), axis=1)


BoundingBoxDecode = primitive(
    "BoundingBoxDecode", _bbox_decode, init=("max_shape", "means", "stds", "wh_ratio_clip"),
    doc="MindSpore's ``BoundingBoxDecode(max_shape, means=(0.,)*4, stds=(1.,)*4, "
        "wh_ratio_clip=0.016)(anchor_box, deltas)``: the boxes the deltas describe, clipped to "
        "[0, width] and [0, height] (max_shape = (height, width)).")


def _check_valid(bboxes, img_metas):
    name = "CheckValid"
    _boxes(name, "bboxes", bboxes)
    _tensor(img_metas, name, "img_metas")
    if tuple(img_metas.shape) != (3,):
        raise ValueError(f"{name}: img_metas must be (height, width, ratio), got shape "
                         f"{list(img_metas.shape)}")
    height, width, ratio = (F.getitem(img_metas, key=(i,)) for i in range(3))
    x0, y0, x1, y1 = _columns(bboxes)
    ok = F.logical_and(F.greater_equal(x0, 0.0), F.greater_equal(y0, 0.0))
    ok = F.logical_and(ok, F.less_equal(x1, F.sub(F.mul(width, ratio), 1.0)))
    return F.logical_and(ok, F.less_equal(y1, F.sub(F.mul(height, ratio), 1.0)))


CheckValid = primitive("CheckValid", _check_valid,
                       doc="MindSpore's ``CheckValid()(bboxes, img_metas)``: whether each box "
                           "lies in the image (x0, y0 >= 0; x1 <= width*ratio - 1; y1 <= "
                           "height*ratio - 1).")


NMSWithMask = primitive("NMSWithMask", lambda bboxes, iou_threshold=0.5: F.nms_with_mask(
    bboxes, iou_threshold=float(iou_threshold)), init=("iou_threshold",),
    doc="MindSpore's ``NMSWithMask(iou_threshold=0.5)(bboxes)``: (sorted boxes, indices, kept).")
NoRepeatNGram = primitive("NoRepeatNGram", lambda state_seq, log_probs, ngram_size=1:
                          F.no_repeat_ngram(state_seq, log_probs, ngram_size=int(ngram_size)),
                          init=("ngram_size",),
                          doc="MindSpore's ``NoRepeatNGram(ngram_size=1)(state_seq, log_probs)``.")


def _coalesce(x_indices, x_values, x_shape):
    """Sorts a COO tensor's indices and sums the values of repeated ones. The result's length
    depends on the data: PyNative only (graph mode refuses it while compiling)."""
    idx = np.asarray(x_indices.asnumpy())
    values = np.asarray(x_values.asnumpy())
    flat = np.ravel_multi_index(tuple(idx), tuple(np.asarray(x_shape.asnumpy())))
    unique, inverse = np.unique(flat, return_inverse=True)
    summed = np.zeros(len(unique), values.dtype)
    np.add.at(summed, inverse, values)
    shape = np.asarray(x_shape.asnumpy())
    out_idx = np.stack(np.unravel_index(unique, tuple(shape))).astype(np.int64)
    return Tensor(out_idx), Tensor(summed), Tensor(shape.astype(np.int64))


Coalesce = primitive("Coalesce", _coalesce,
                     doc="MindSpore's ``Coalesce()(x_indices, x_values, x_shape)``: a COO "
                         "tensor's indices sorted and repeated ones merged (PyNative only: the "
                         "length of the result depends on the data).")
