"""Sample rows of the reduce family's primitives: scans (``scan.py``) and sorting/searching
(``sort.py``). Merged into ``samples.SAMPLES``; the registry meta-tests read them."""
from __future__ import annotations

import numpy as np

from graphcell_ir.errors import OpTypeError
from samples import FLOATS, NUMERIC, Bad, Sample, T


def _axis(g, ndim: int) -> int:
    return g.int(-ndim, ndim - 1)


def _scan(lo=-3.0, hi=3.0, signed=False):
    def make(g, dt):
        shape = g.shape(1, 3)
        attrs = {"axis": _axis(g, len(shape)), "exclusive": g.flag(), "reverse": g.flag()}
        return (g.array(shape, dt, lo, hi, signed=signed),), attrs
    return make


def _cumextremum(g, dt):
    shape = g.shape(1, 3)
    return (g.array(shape, dt),), {"axis": _axis(g, len(shape))}


def _arg_with_value(g, dt):
    shape = g.shape(0, 3)
    axis = _axis(g, len(shape)) if shape else g.pick([0, -1])
    return (g.array(shape, dt),), {"axis": axis, "keep_dims": g.flag()}


def _sort(g, dt):
    shape = g.shape(1, 3)
    return (g.array(shape, dt),), {"axis": _axis(g, len(shape)), "descending": g.flag()}


def _searchsorted(g, dt):
    seq_shape = g.pick([(g.int(1, 5),), (g.int(1, 2), g.int(1, 4))])
    seq = np.sort(g.array(seq_shape, dt, integral=True), axis=-1)
    if len(seq_shape) == 1:
        values = g.array(g.shape(0, 2), dt, -4, 4, integral=True)
    else:
        values = g.array(seq_shape[:-1] + (g.int(0, 3),), dt, -4, 4, integral=True)
    return (seq, values), {"right": g.flag(), "dtype": g.pick(["int32", "int64"])}


def _unique_with_pad(g, dt):
    x = g.array((g.int(0, 6),), dt, -2, 2, integral=True)
    return (x,), {"pad_num": g.scalar_like(dt, -9, 9)}


_BAD_SCAN = (Bad((T("f32[]"),), {"axis": 0}), Bad((T("f32[2,3]"),), {"axis": 2}),
             Bad((T("bool[3]"),), {"axis": 0}, OpTypeError))

ROWS: dict[str, Sample] = {
    "cumsum": Sample(_scan(), NUMERIC, bad=_BAD_SCAN),
    "cumprod": Sample(_scan(0.5, 1.5, signed=True), NUMERIC, bad=_BAD_SCAN),
    # the exclusive scan's first element is the lowest float: finite differences of
    # u * lowest overflow in float64, so the gradient checks take the inclusive scan
    "cumlogsumexp": Sample(_scan(), FLOATS, grad_attrs={"exclusive": False},
                           bad=_BAD_SCAN + (Bad((T("i32[3]"),), {"axis": 0}, OpTypeError),)),
    "cummax": Sample(_cumextremum, NUMERIC, bad=_BAD_SCAN[:2] + (Bad((T("bool[3]"),), {"axis": 0},
                                                                      OpTypeError),)),
    "cummin": Sample(_cumextremum, NUMERIC, bad=_BAD_SCAN[:2]),
    "argmax_with_value": Sample(_arg_with_value, NUMERIC,
                                bad=(Bad((T("f32[2,3]"),), {"axis": 2}),
                                     Bad((T("bool[3]"),), error=OpTypeError))),
    "argmin_with_value": Sample(_arg_with_value, NUMERIC, bad=(Bad((T("f32[2]"),), {"axis": -2}),)),
    "sort": Sample(_sort, NUMERIC, bad=(Bad((T("f32[]"),)), Bad((T("f32[2]"),), {"axis": 1}),
                                        Bad((T("bool[2]"),), error=OpTypeError))),
    "searchsorted": Sample(_searchsorted, NUMERIC,
                           bad=(Bad((T("f32[3]"), T("i32[2]")), error=OpTypeError),
                                Bad((T("f32[2,3]"), T("f32[3,1]"))),
                                Bad((T("f32[]"), T("f32[2]"))))),
    "unique_with_pad": Sample(_unique_with_pad, NUMERIC, bad=(Bad((T("f32[2,2]"),), {"pad_num": 0}),)),
}

