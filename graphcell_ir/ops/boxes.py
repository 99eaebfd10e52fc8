"""Detection helpers whose results are data-dependent selections of static shape: non-maximum
suppression (``nms_with_mask``) and the n-gram blocking of beam search (``no_repeat_ngram``).

Both are ``OPAQUE`` with numpy references and no gradient (a selection; MindSpore defines none).
The arithmetic helpers (IOU, box encoding/decoding, validity checks) are composites in
``graphcell.ops.function.other_func``.
"""
from __future__ import annotations

import numpy as np

from graphcell_ir.errors import OpTypeError, ShapeError
from graphcell_ir.ir.types import TensorType, bool_, float16, float32, int32
from graphcell_ir.ops.registry import NONDIFF, AttrKind, Kind, attr, defop
from graphcell_ir.ops.shape_rules import require_tensor


def _nms_infer(bboxes, *, iou_threshold=0.5):
    b = require_tensor(bboxes, "bboxes")
    if b.dtype not in (float16, float32):
        raise OpTypeError(f"bboxes must be float16 or float32, got {b}")
    if b.ndim != 2 or b.shape[1] != 5:
        raise ShapeError(f"bboxes must have shape [N, 5] (x0, y0, x1, y1, score), got {b}")
    n = b.shape[0]
    return b, TensorType(int32, (n,)), TensorType(bool_, (n,))


def _nms_ref(bboxes, *, iou_threshold=0.5):
    """Sort by score (descending, stable); keep a box unless it overlaps a kept one by more than
    the threshold (areas with MindSpore's +1 pixel convention)."""
    order = np.argsort(-bboxes[:, 4].astype(np.float64), kind="stable")
    boxes = bboxes[order]
    x0, y0, x1, y1 = (boxes[:, i].astype(np.float64) for i in range(4))
    area = (x1 - x0 + 1) * (y1 - y0 + 1)
    keep = np.zeros(len(boxes), np.bool_)
    for i in range(len(boxes)):
        w = np.maximum(0.0, np.minimum(x1[i], x1[keep]) - np.maximum(x0[i], x0[keep]) + 1)
        h = np.maximum(0.0, np.minimum(y1[i], y1[keep]) - np.maximum(y0[i], y0[keep]) + 1)
        inter = w * h
        iou = inter / (area[i] + area[keep] - inter)
        keep[i] = not np.any(iou > iou_threshold)
    # MindSpore's output_idx numbers the sorted boxes (its own example prints [0 1 2] for kept
    # boxes that were 2, 0, 1 in bboxes)
    return np.ascontiguousarray(boxes), np.arange(len(boxes), dtype=np.int32), keep


nms_with_mask = defop(
    "nms_with_mask", ("bboxes",), kind=Kind.OPAQUE, ms_name="NMSWithMask",
    attrs=[attr("iou_threshold", AttrKind.FLOAT, 0.5)], prim_init=("iou_threshold",),
    infer=_nms_infer, ref=_nms_ref, bprop=NONDIFF,
    doc="Non-maximum suppression: (the boxes sorted by score, their positions in that sorted list "
        "— 0..N-1, as MindSpore's output_idx — and the mask of the boxes kept).")


def _ngram_infer(state_seq, log_probs, *, ngram_size=1):
    seq, lp = require_tensor(state_seq, "state_seq"), require_tensor(log_probs, "log_probs")
    if not seq.dtype.is_int or not lp.dtype.is_float:
        raise OpTypeError(f"state_seq must be an integer tensor and log_probs a float tensor, got "
                          f"{seq} and {lp}")
    if seq.ndim != 3 or lp.ndim != 3 or seq.shape[:2] != lp.shape[:2]:
        raise ShapeError(f"state_seq [batch, beam, m] and log_probs [batch, beam, vocab] must be "
                         f"3-D with the same batch and beam, got {seq} and {lp}")
    if not 1 <= ngram_size <= seq.shape[2]:
        raise ShapeError(f"ngram_size must be in [1, m = {seq.shape[2]}], got {ngram_size}")
    return lp


def _ngram_ref(state_seq, log_probs, *, ngram_size=1):
    out = np.array(log_probs, copy=True)
    lowest = np.finfo(out.dtype).min
    m, vocab = state_seq.shape[2], out.shape[2]
    tail = m - ngram_size + 1  # the n-1 last tokens start here
    for b in range(state_seq.shape[0]):
        for k in range(state_seq.shape[1]):
            seq = state_seq[b, k]
            last = seq[tail:]
            for start in range(m - ngram_size + 1):
                if np.array_equal(seq[start:start + ngram_size - 1], last):
                    token = seq[start + ngram_size - 1]
                    if 0 <= token < vocab:
                        out[b, k, token] = lowest
    return out


no_repeat_ngram = defop(
    "no_repeat_ngram", ("state_seq", "log_probs"), kind=Kind.OPAQUE, ms_name="NoRepeatNGram",
    attrs=[attr("ngram_size", AttrKind.INT, 1)], prim_init=("ngram_size",),
    infer=_ngram_infer, ref=_ngram_ref, bprop=NONDIFF,
    doc="log_probs with the lowest float where the next token would repeat an n-gram of "
        "state_seq (the n-1 last tokens followed by that token already occur).")
