"""Sample rows of the indexing primitives (``graphcell_ir/ops/indexing.py``): gathers and scatters
with index tensors, segment reductions, the in-place write-back. Indices are drawn distinct where a
rule is exact only then (scatters that overwrite, multiply, divide or take extremes)."""
from __future__ import annotations

import numpy as np

from graphcell_ir.errors import OpTypeError
from samples import INTS, NUMERIC, Bad, Sample, T

SCATTER_REDUCTIONS = ("update", "add", "sub", "mul", "div", "max", "min")


def _elements(g, dt, unique: bool):
    """x, an index of x's rank (no larger outside ``axis``) and the axis."""
    shape = g.shape(1, 3, min_side=2)
    axis = g.int(-len(shape), len(shape) - 1)
    a = axis % len(shape)
    ishape = tuple(s if i == a else g.int(1, s) for i, s in enumerate(shape))
    n = shape[a]
    if unique:  # distinct along the axis: a permutation's first entries, per position
        ishape = ishape[:a] + (g.int(1, n),) + ishape[a + 1:]
        perm = np.argsort(g.rng.random(ishape[:a] + (n,) + ishape[a + 1:]), axis=a)
        index = np.take(perm, np.arange(ishape[a]), axis=a)
    else:
        index = g.rng.integers(-n, n, size=ishape)
    return g.array(shape, dt), np.asarray(index, g.pick(INTS)), axis


def _gather_d(g, dt):
    x, index, axis = _elements(g, dt, unique=False)
    return (x, index), {"dim": axis}


def _scatter_elements(g, dt):
    reduction = g.pick(("none", "add"))
    x, index, axis = _elements(g, dt, unique=reduction == "none")
    return (x, index, g.array(index.shape, dt)), {"axis": axis, "reduction": reduction}


def _nd_index(g, shape, unique: bool):
    """An index whose last axis addresses the first k axes of ``shape``."""
    k = g.int(1, len(shape))
    cells = int(np.prod(shape[:k]))
    lead = g.shape(0, 2)
    n = int(np.prod(lead, dtype=np.int64))
    if unique:
        n = min(n, cells)
        lead = (n,)
        flat = g.rng.permutation(cells)[:n]
    else:
        flat = g.rng.integers(0, cells, size=n)
    rows = np.stack(np.unravel_index(flat, shape[:k]), axis=-1) if n else np.zeros((0, k))
    return np.asarray(rows.reshape(lead + (k,)), g.pick(INTS)), k


def _gather_nd(g, dt):
    x = g.array(g.shape(1, 3, min_side=2), dt)
    index, _ = _nd_index(g, x.shape, unique=False)
    return (x, index), {}


def _tensor_scatter(g, dt):
    reduction = g.pick(SCATTER_REDUCTIONS)
    x = g.array(g.shape(1, 3, min_side=2), dt, 0.5, 3.0, signed=True)
    index, k = _nd_index(g, x.shape, unique=reduction not in ("add", "sub"))
    updates = g.array(index.shape[:-1] + x.shape[k:], dt, 0.5, 3.0, signed=True)
    return (x, index, updates), {"reduction": reduction}


def _unsorted_segment(g, dt):
    reduction = g.pick(("sum", "max", "min", "prod"))
    shape = g.shape(1, 3)
    lead = g.int(1, len(shape))
    cells = int(np.prod(shape[:lead], dtype=np.int64))
    num = g.int(1, min(4, cells))
    # every segment gets an element (an empty max/min segment holds the dtype's extreme, which
    # finite differences cannot handle); -1 ids are dropped
    ids = g.rng.permutation(np.concatenate([np.arange(num), g.rng.integers(-1, num, cells - num)]))
    ids = ids.reshape(shape[:lead])
    x = g.array(shape, dt, 0.5, 2.0, signed=True)
    return (x, np.asarray(ids, g.pick(INTS))), {"num_segments": num, "reduction": reduction}


def _inplace_write(g, dt):
    shape = g.shape(0, 3)
    return (g.array(shape, dt), g.array(shape, dt)), {}


_BAD_INDEX = Bad((T("f32[2,3]"), T("f32[2,1]")), {}, OpTypeError)

ROWS = {
    "gather_d": Sample(_gather_d, NUMERIC, diff=(0,),
                       bad=(Bad((T("f32[2,3]"), T("i32[3]")), {"dim": 0}),
                            Bad((T("f32[2,3]"), T("i32[3,3]")), {"dim": 1}),
                            Bad((T("f32[2,3]"), T("f32[2,3]")), {"dim": 0}, OpTypeError))),
    "scatter_elements": Sample(_scatter_elements, NUMERIC, diff=(0, 2),
                               bad=(Bad((T("f32[2,3]"), T("i32[2,2]"), T("f32[2,3]")),
                                        {"axis": 1}),
                                    Bad((T("f32[2,3]"), T("i32[2,2]"), T("f32[2,2]")),
                                        {"axis": 1, "reduction": "mul"}, OpTypeError))),
    "gather_nd": Sample(_gather_nd, NUMERIC, diff=(0,),
                        bad=(Bad((T("f32[2,3]"), T("i32[2,3]"))), _BAD_INDEX)),
    "tensor_scatter": Sample(_tensor_scatter, NUMERIC, diff=(0, 2),
                             bad=(Bad((T("f32[2,3]"), T("i32[2,1]"), T("f32[2]")), {}),
                                  Bad((T("f32[2,3]"), T("i32[2,1]"), T("f64[2,3]")), {},
                                      OpTypeError),
                                  Bad((T("bool[2]"), T("i32[1,1]"), T("bool[1]")),
                                      {"reduction": "add"}, OpTypeError))),
    "unsorted_segment": Sample(_unsorted_segment, NUMERIC, diff=(0,),
                               bad=(Bad((T("f32[2,3]"), T("i32[3]")), {"num_segments": 2}),
                                    Bad((T("bool[2]"), T("i32[2]")), {"num_segments": 2},
                                        OpTypeError))),
    "inplace_write": Sample(_inplace_write, NUMERIC, diff=(1,),
                            bad=(Bad((T("f32[2,3]"), T("f32[3]"))),)),
}
