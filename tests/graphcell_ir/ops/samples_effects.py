"""Sample rows of the registry ops added with the effects family: ``stop_gradient``
(``effects.py``) and the detection selections of ``boxes.py``."""
from __future__ import annotations

import numpy as np

from graphcell_ir.errors import OpTypeError, ShapeError
from samples import NUMERIC, Bad, Sample, T


def _stop_gradient(g, dt):
    return (g.array(g.shape(), dt),), {}


def _nms(g, dt):
    n = g.int(0, 5)
    xy = g.array((n, 2), dt, 0, 20, integral=True)
    wh = g.array((n, 2), dt, 1, 10, integral=True)
    score = g.rng.permutation(n).astype(dt) / max(n, 1)  # distinct scores: one sorted order
    return (np.concatenate([xy, xy + wh, score[:, None]], axis=1),), {
        "iou_threshold": g.pick([0.1, 0.5, 0.9])}


def _ngram(g, dt):
    batch, beam, m = g.int(1, 2), g.int(1, 2), g.int(1, 6)
    vocab = g.int(1, 5)
    seq = g.array((batch, beam, m), "int32", 0, vocab)
    return (seq, g.array((batch, beam, vocab), dt)), {"ngram_size": g.int(1, m)}


ROWS: dict[str, Sample] = {
    "stop_gradient": Sample(_stop_gradient, NUMERIC, bad=(Bad((T("f32"),), error=OpTypeError),)),
    "nms_with_mask": Sample(_nms, ("float32",), bad=(
        Bad((T("f32[3,4]"),), {}, ShapeError), Bad((T("f64[3,5]"),), {}, OpTypeError))),
    "no_repeat_ngram": Sample(_ngram, ("float32", "float64"), bad=(
        Bad((T("f32[1,1,3]"), T("f32[1,1,4]")), {}, OpTypeError),
        Bad((T("i32[1,1,3]"), T("f32[1,1,4]")), {"ngram_size": 4}, ShapeError),
        Bad((T("i32[1,2,3]"), T("f32[1,1,4]")), {}, ShapeError))),
}
