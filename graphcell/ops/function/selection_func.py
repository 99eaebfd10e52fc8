"""The index family beyond gathers and scatters: positions and runs (``is_nonzero``,
``unique_consecutive``, ``MaskedScatter``), advanced-index writes (``IndexPut``), slice, select and
diagonal scatters, bucket and bound searches, triangle indices and sorted segment reductions,
written against the functional API ``F``.

Names whose output shape depends on the values (``unique_consecutive``, ``Segment*``,
``MaskedScatter``'s positions) read them on the host: they run in PyNative; graph mode refuses them
at the user's line.

Example::

    >>> import numpy as np, graphcell as ms
    >>> from graphcell import ops
    >>> x = ms.Tensor(np.zeros((2, 3), np.float32))
    >>> ops.slice_scatter(x, ms.Tensor(np.ones((2, 1), np.float32)), axis=1, start=1, end=2).asnumpy()
    array([[0., 1., 0.],
           [0., 1., 0.]], dtype=float32)
"""
from __future__ import annotations

import numpy as np

from graphcell.ops.function._utils import normalize_axis
from graphcell.ops.function.index_func import (_host_values, _require_bool_tensor, _require_int,
                                               _require_int_tensor, _require_tensor,
                                               _wrap_negative)
from graphcell.ops.primitive import primitive
from graphcell.tensor import Tensor
from graphcell_ir.ir.types import int32, int64, to_dtype
from graphcell_ir.ops import functional as F

__all__ = [
    "is_nonzero", "unique_consecutive", "slice_scatter", "select_scatter", "diagonal_scatter",
    "bucketize", "tril_indices", "triu_indices",
    "MaskedScatter", "IndexPut", "Bucketize", "LowerBound", "UpperBound", "UnravelIndex",
    "TrilIndices", "TriuIndices", "SegmentSum", "SegmentMax", "SegmentMin", "SegmentProd",
    "SegmentMean", "ListDiff",
]


def is_nonzero(input):  # noqa: A002
    """``ops.is_nonzero(input)``: whether the one element of ``input`` is nonzero (a Python bool;
    PyNative only)."""
    _require_tensor("ops.is_nonzero", "input", input)
    values = _host_values(input, "ops.is_nonzero")
    if values.size != 1:
        raise ValueError(f"ops.is_nonzero: input must have exactly one element, got "
                         f"{values.size}")
    return bool(values.reshape(()))


def unique_consecutive(input, return_inverse=False, return_counts=False, dim=None):  # noqa: A002
    """``ops.unique_consecutive(input, return_inverse=False, return_counts=False, dim=None)``:
    ``input`` (flattened when ``dim`` is None) with each run of equal entries (slices along
    ``dim``) kept once; the Int64 run number of every entry and the Int64 run lengths on request.
    PyNative only: the length depends on the values."""
    fn = "ops.unique_consecutive"
    _require_tensor(fn, "input", input)
    values = _host_values(input, fn)
    x = F.reshape(input, shape=(-1,)) if dim is None else input
    axis = 0 if dim is None else normalize_axis(dim, input.ndim, "dim")
    flat = values.reshape(-1) if dim is None else np.moveaxis(values, axis, 0)
    n = flat.shape[0]
    changed = np.ones(n, bool)
    if n > 1:
        changed[1:] = (flat[1:] != flat[:-1]).reshape(n - 1, -1).any(axis=1)
    starts = np.flatnonzero(changed)
    out = F.take(x, Tensor(starts.astype(np.int64)), axis=axis)
    extra = []
    if return_inverse:
        inverse = (np.cumsum(changed) - 1).astype(np.int64)
        extra.append(Tensor(inverse.reshape(values.shape) if dim is None else inverse))
    if return_counts:
        extra.append(Tensor(np.diff(np.append(starts, n)).astype(np.int64)))
    return (out, *extra) if extra else out


def _masked_scatter(fn: str, input, mask, source):
    _require_tensor(fn, "input", input)
    _require_bool_tensor(fn, "mask", mask)
    _require_tensor(fn, "source", source)
    m = _host_values(mask, fn)
    shape = np.broadcast_shapes(tuple(input.shape), m.shape)
    where = np.argwhere(np.broadcast_to(m, shape)).astype(np.int64)
    if where.shape[0] > int(np.prod(source.shape, dtype=np.int64)):
        raise ValueError(f"{fn}: mask selects {where.shape[0]} elements but source has only "
                         f"{int(np.prod(source.shape, dtype=np.int64))}")
    x = input if tuple(input.shape) == shape else F.broadcast_to(input, shape=shape)
    taken = F.take(F.reshape(source, shape=(-1,)), Tensor(np.arange(where.shape[0])), axis=0)
    taken = taken if taken.dtype == input.dtype else F.cast(taken, dtype=input.dtype)
    return F.tensor_scatter(x, Tensor(where), taken, reduction="update")


def _masked_scatter_primitive(input, mask, updates):  # noqa: A002
    return _masked_scatter("MaskedScatter", input, mask, updates)


MaskedScatter = primitive("MaskedScatter", _masked_scatter_primitive)


def _index_put(fn: str, x, values, indices, accumulate: bool):
    """``x`` with ``values`` written (or added) at the advanced index ``x[indices]``."""
    _require_tensor(fn, "x", x)
    _require_tensor(fn, "values", values)
    indices = tuple(indices)
    if not indices or len(indices) > x.ndim:
        raise ValueError(f"{fn}: indices must be 1 to {x.ndim} integer Tensors, got "
                         f"{len(indices)}")
    for k, i in enumerate(indices):
        _require_int_tensor(fn, f"indices[{k}]", i)
    if values.ndim != 1:  # MindSpore 2.10's IndexPut takes 1-D values, broadcast to the slices
        raise ValueError(f"{fn}: values must be 1-D, got {values.ndim} dimensions")
    shape = np.broadcast_shapes(*(tuple(i.shape) for i in indices))
    cols = [F.expand_dims(_wrap_negative(F.broadcast_to(i, shape=shape), x.shape[a]), axis=-1)
            for a, i in enumerate(indices)]
    where = F.concat(*cols, axis=-1)
    target = tuple(shape) + tuple(x.shape[len(indices):])
    upd = values if values.dtype == x.dtype else F.cast(values, dtype=x.dtype)
    if tuple(upd.shape) != target:
        upd = F.broadcast_to(upd, shape=target)
    return F.tensor_scatter(x, where, upd, reduction="add" if accumulate else "update")


def _index_put_primitive(x1, x2, indices, accumulate=0):
    return _index_put("IndexPut", x1, x2, indices, bool(accumulate))


IndexPut = primitive("IndexPut", _index_put_primitive, init=("accumulate",))


def _scatter_into(input, src, key: tuple):  # noqa: A002
    """``input`` with ``src`` written at the static ``key`` (a new tensor)."""
    src = src if src.dtype == input.dtype else F.cast(src, dtype=input.dtype)
    return F.setitem(input, src, key=key)


def slice_scatter(input, src, axis=0, start=None, end=None, step=1):  # noqa: A002
    """``ops.slice_scatter(input, src, axis=0, start=None, end=None, step=1)``: ``input`` with
    ``input[..., start:end:step, ...]`` (along ``axis``) replaced by ``src``."""
    fn = "ops.slice_scatter"
    _require_tensor(fn, "input", input)
    _require_tensor(fn, "src", src)
    axis = normalize_axis(axis, input.ndim)
    key = (slice(None),) * axis + (slice(start, end, step),)
    want = np.empty(tuple(input.shape), np.int8)[key].shape
    if tuple(src.shape) != want:
        raise ValueError(f"{fn}: src must have shape {list(want)}, got {list(src.shape)}")
    return _scatter_into(input, src, key)


def select_scatter(input, src, axis, index):  # noqa: A002
    """``ops.select_scatter(input, src, axis, index)``: ``input`` with its slice ``index`` along
    ``axis`` replaced by ``src`` (of ``input``'s shape without ``axis``)."""
    fn = "ops.select_scatter"
    _require_tensor(fn, "input", input)
    _require_tensor(fn, "src", src)
    axis = normalize_axis(axis, input.ndim)
    index = _require_int(fn, "index", index)
    size = input.shape[axis]
    if not -size <= index < size:
        raise ValueError(f"{fn}: index {index} is out of range [{-size}, {size})")
    want = tuple(input.shape[:axis]) + tuple(input.shape[axis + 1:])
    if tuple(src.shape) != want:
        raise ValueError(f"{fn}: src must have shape {list(want)}, got {list(src.shape)}")
    return _scatter_into(input, src, (slice(None),) * axis + (index % size,))


def diagonal_scatter(input, src, offset=0, dim1=0, dim2=1):  # noqa: A002
    """``ops.diagonal_scatter(input, src, offset=0, dim1=0, dim2=1)``: ``input`` with the diagonal
    ``offset`` of the planes ``(dim1, dim2)`` replaced by ``src`` (the other axes first, the
    diagonal last, as ``ops.diagonal`` gives it)."""
    fn = "ops.diagonal_scatter"
    _require_tensor(fn, "input", input)
    _require_tensor(fn, "src", src)
    d1, d2 = normalize_axis(dim1, input.ndim, "dim1"), normalize_axis(dim2, input.ndim, "dim2")
    if d1 == d2:
        raise ValueError(f"{fn}: dim1 and dim2 must differ, both are {d1}")
    rows, cols = input.shape[d1], input.shape[d2]
    i = np.arange(max(0, -offset), min(rows, cols - offset))
    rest = [a for a in range(input.ndim) if a not in (d1, d2)]
    want = tuple(input.shape[a] for a in rest) + (len(i),)
    if tuple(src.shape) != want:
        raise ValueError(f"{fn}: src must have shape {list(want)} (the diagonal last), got "
                         f"{list(src.shape)}")
    perm = (d1, d2, *rest)
    moved = F.transpose(input, perm=perm)
    where = Tensor(np.stack([i, i + offset], axis=-1).astype(np.int64))
    upd = F.transpose(src, perm=(src.ndim - 1, *range(src.ndim - 1))) if src.ndim > 1 else src
    upd = upd if upd.dtype == input.dtype else F.cast(upd, dtype=input.dtype)
    out = F.tensor_scatter(moved, where, upd, reduction="update")
    return F.transpose(out, perm=tuple(int(a) for a in np.argsort(perm)))


def _count_below(boundaries, values, right: bool):
    """For each value, how many boundaries (last axis) lie below it (``right``: at or below)."""
    below = F.less_equal if right else F.less
    hits = below(F.expand_dims(boundaries, axis=-2), F.expand_dims(values, axis=-1))
    count = F.reduce_sum(F.cast(hits, dtype=int32), axis=(-1,), keep_dims=False)  # Int64 sums
    return F.cast(count, dtype=int32)


def bucketize(input, boundaries, *, right=False):  # noqa: A002
    """``ops.bucketize(input, boundaries, *, right=False)``: the Int32 index of the bucket of each
    element, ``boundaries`` a sorted list of numbers (``right``: a boundary equal to the element
    counts as below it)."""
    _require_tensor("ops.bucketize", "input", input)
    bounds = [float(b) for b in boundaries]
    b = Tensor(np.array(bounds, input.dtype.np_dtype if input.dtype.is_float else np.float32))
    x = input if input.dtype.is_float else F.cast(input, dtype=b.dtype)
    if not bounds:
        return F.fill(dtype=int32, shape=tuple(input.shape), value=0)
    flat = F.reshape(x, shape=(-1,))
    return F.reshape(_count_below(b, flat, right), shape=tuple(input.shape))


def _bucketize_primitive(input, boundaries=()):  # noqa: A002
    return bucketize(input, boundaries)


Bucketize = primitive("Bucketize", _bucketize_primitive, init=("boundaries",))


def _bound(name: str, right: bool):
    def fn(sorted_x, values, out_type=int32):
        _require_tensor(name, "sorted_x", sorted_x)
        _require_tensor(name, "values", values)
        if sorted_x.ndim != 2 or values.ndim != 2 or sorted_x.shape[0] != values.shape[0]:
            raise ValueError(f"{name}: sorted_x and values must be 2-D with the same number of "
                             f"rows, got {list(sorted_x.shape)} and {list(values.shape)}")
        count = _count_below(sorted_x, values, right)
        return F.cast(count, dtype=out_type) if out_type != int32 else count
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = (f"MindSpore's ``{name}(out_type=int32)(sorted_x, values)``: per row, the "
                  f"{'last' if right else 'first'} position each value can be inserted at to keep "
                  "the row sorted.")
    return fn


LowerBound = primitive("LowerBound", _bound("LowerBound", False), init=("out_type",))
UpperBound = primitive("UpperBound", _bound("UpperBound", True), init=("out_type",))


def _unravel_index(indices, dims):
    """MindSpore's ``UnravelIndex()(indices, dims)``: the coordinates of flat ``indices`` in an
    array of shape ``dims``, one row per dimension."""
    _require_int_tensor("UnravelIndex", "indices", indices)
    _require_int_tensor("UnravelIndex", "dims", dims)
    if dims.ndim != 1:
        raise ValueError(f"UnravelIndex: dims must be 1-D, got {dims.ndim} dimensions")
    flat = F.reshape(F.cast(indices, dtype=dims.dtype), shape=(1, -1))
    k = dims.shape[0]
    rows = []
    for a in range(k):  # coordinate a = index // prod(dims[a+1:]) % dims[a]
        stride = F.reduce_prod(dims[a + 1:], axis=None, keep_dims=True) if a + 1 < k else 1
        rows.append(F.mod(F.floor_div(flat, stride), F.reshape(dims[a], shape=(1, 1))))
    out = F.concat(*rows, axis=0)
    return out if indices.ndim else F.reshape(out, shape=(k,))


UnravelIndex = primitive("UnravelIndex", _unravel_index)


def _triangle(name: str, lower: bool):
    def fn(row, col, offset=0, *, dtype=int64):
        r, c = _require_int(name, "row", row), _require_int(name, "col", col)
        k = _require_int(name, "offset", offset)
        if r < 0 or c < 0:
            raise ValueError(f"ops.{name}: row and col must be non-negative, got {r} and {c}")
        pick = np.tril_indices if lower else np.triu_indices
        coords = np.stack(pick(r, k, c)).astype(np.int64)
        want = _index_dtype(int64 if dtype is None else dtype)
        return F.cast(Tensor(coords), dtype=want)  # an op, so graph mode returns a tensor value
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = (f"``ops.{name}(row, col, offset=0, *, dtype=mindspore.int64)``: the coordinates "
                  f"(a 2 x N tensor) of the {'lower' if lower else 'upper'} triangle of a "
                  "row x col matrix, diagonal ``offset`` included.")
    return fn


def _index_dtype(dtype):
    d = to_dtype(dtype)
    if d not in (int32, int64):
        raise TypeError(f"the index dtype must be Int32 or Int64, got {d}")
    return d


tril_indices = _triangle("tril_indices", True)
triu_indices = _triangle("triu_indices", False)


def _triangle_primitive(fn):
    def prim(row=0, col=0, offset=0, dtype=int32):
        return fn(row, col, offset, dtype=dtype)
    prim.__name__ = prim.__qualname__ = fn.__name__
    return prim


TrilIndices = primitive("TrilIndices", _triangle_primitive(tril_indices),
                        init=("row", "col", "offset", "dtype"))
TriuIndices = primitive("TriuIndices", _triangle_primitive(triu_indices),
                        init=("row", "col", "offset", "dtype"))


def _sorted_segment(reduction: str):
    name = f"Segment{reduction.capitalize()}"

    def fn(input_x, segment_ids):
        _require_tensor(name, "input_x", input_x)
        _require_int_tensor(name, "segment_ids", segment_ids)
        if segment_ids.ndim != 1 or segment_ids.shape[0] != (input_x.shape[0] if input_x.ndim
                                                               else -1):
            raise ValueError(f"{name}: segment_ids must be 1-D with one id per row of input_x")
        ids = _host_values(segment_ids, name)
        if ids.size and (ids.min() < 0 or np.any(np.diff(ids) < 0)):
            raise ValueError(f"{name}: segment_ids must be sorted and non-negative")
        n = int(ids.max()) + 1 if ids.size else 0
        if reduction != "mean":
            out = F.unsorted_segment(input_x, segment_ids, num_segments=n, reduction=reduction)
            if reduction in ("max", "min"):  # an empty segment holds 0 here
                empty = np.bincount(ids, minlength=n) == 0
                if empty.any():
                    mask = Tensor(empty.reshape((n,) + (1,) * (input_x.ndim - 1)))
                    out = F.select(mask, F.zeros_like(out), out)
            return out
        total = F.unsorted_segment(input_x, segment_ids, num_segments=n, reduction="sum")
        count = np.maximum(np.bincount(ids, minlength=n), 1).reshape((n,) + (1,) * (input_x.ndim - 1))
        return F.div(total, Tensor(count.astype(input_x.dtype.np_dtype)))
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = (f"MindSpore's ``{name}()(input_x, segment_ids)``: the {reduction} of the rows "
                  "of input_x per (sorted) segment id; an empty segment holds 0. PyNative only: "
                  "the number of segments is the last id + 1.")
    return fn


SegmentSum = primitive("SegmentSum", _sorted_segment("sum"))
SegmentMax = primitive("SegmentMax", _sorted_segment("max"))
SegmentMin = primitive("SegmentMin", _sorted_segment("min"))
SegmentProd = primitive("SegmentProd", _sorted_segment("prod"))
SegmentMean = primitive("SegmentMean", _sorted_segment("mean"))

def _list_diff(x, y, out_idx=int32):
    """MindSpore's ``ListDiff(out_idx=int32)(x, y)``: the entries of the 1-D ``x`` not in ``y``,
    in order, and their positions in ``x`` (``out_idx``). PyNative only: the length depends on
    the values."""
    _require_tensor("ListDiff", "x", x)
    _require_tensor("ListDiff", "y", y)
    if x.dtype != y.dtype:
        raise TypeError(f"ListDiff: x and y must have one dtype, got {x.dtype} and {y.dtype}")
    if x.ndim != 1 or y.ndim != 1:
        raise ValueError(f"ListDiff: x and y must be 1-D, got {x.ndim} and {y.ndim} dimensions")
    keep = np.flatnonzero(~np.isin(_host_values(x, "ListDiff"), _host_values(y, "ListDiff")))
    where = Tensor(keep.astype(np.int64))
    return F.take(x, where, axis=0), F.cast(where, dtype=_index_dtype(out_idx))


ListDiff = primitive("ListDiff", _list_diff, init=("out_idx",))


TENSOR_METHODS = {
    "slice_scatter": slice_scatter,
    "select_scatter": select_scatter,
    "diagonal_scatter": diagonal_scatter,
    "unique_consecutive": unique_consecutive,
    "masked_scatter": lambda self, mask, source: _masked_scatter("Tensor.masked_scatter", self,
                                                                 mask, source),
    "index_put": lambda self, indices, values, accumulate=False: _index_put(
        "Tensor.index_put", self, values, indices, accumulate),
}
