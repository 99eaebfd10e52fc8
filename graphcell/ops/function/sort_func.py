"""Sorting, selection, order statistics, searching, uniqueness and histograms with MindSpore
2.10's signatures: ``sort``, ``argsort``, ``msort``, ``topk``, ``median``, ``quantile``,
``kthvalue``, ``searchsorted``, ``unique``, ``histc``, ``bincount`` and their Primitives —
composites over the ``sort``/``searchsorted``/``unique_with_pad`` primitives
(``graphcell_ir/ops/sort.py``), written against ``F``.

Ordering rules, as MindSpore 2.10 (CPU) gives them: sorting is stable both ways (ties keep their
order), so ``topk`` and ``median`` pick the lower index among equal values; sort, top-k and
argsort indices are Int32, median and kthvalue indices Int64; ``ops.unique`` keeps values in
order of first appearance (``Tensor.unique`` sorts, as PyTorch).

Data-dependent shapes: ``unique`` and ``bincount`` read the values to know their result's shape,
so they run in PyNative mode only; graph mode refuses them at the user's line.
"""
from __future__ import annotations

import numpy as np

from graphcell.ops._faces import overload
from graphcell.ops.function._utils import normalize_axis, scalar
from graphcell.ops.function.array_func import cast
from graphcell.ops.function.reduction_func import check_bool
from graphcell.ops.primitive import primitive
from graphcell.tensor import Tensor
from graphcell_ir.ir.types import float16, float32, int32, int64, to_dtype
from graphcell_ir.ops import functional as F
from graphcell_ir.ops.along_axis import take_along

__all__ = ["sort", "argsort", "msort", "topk", "top_k", "TopK", "unique", "Unique",
           "searchsorted", "SearchSorted", "median", "nanmedian", "Median", "quantile",
           "nanquantile", "Quantile", "NthElement", "intopk", "InTopK", "histc", "Histogram",
           "HistogramFixedWidth", "bincount", "Bincount"]


def _check_tensor(x, fname: str, name: str = "input") -> None:
    if not isinstance(x, Tensor):
        raise TypeError(f"{fname}: {name} must be a Tensor, got {type(x).__name__}")


def _int_arg(v, fname: str, name: str) -> int:
    if isinstance(v, Tensor):
        v = scalar(v)
    if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, np.integer)):
        raise TypeError(f"{fname}: {name} must be an int, got {type(v).__name__}")
    return int(v)


def _slice_along(x, axis: int, start: int, stop: int):
    return F.getitem(x, key=(slice(None),) * axis + (slice(start, stop, None),))


def _host_values(x, fname: str) -> np.ndarray:
    """The values of ``x``: in graph mode they do not exist yet, and the error says so."""
    from graphcell.graph.traced import GraphTensor, UnknownValueError
    if isinstance(x, GraphTensor):
        raise UnknownValueError(f"{fname}: the shape of its result depends on the values of the "
                                "input, which graph mode does not know while compiling; call it in "
                                "PyNative mode")
    return x.asnumpy()


# --- sort, argsort, top-k ---------------------------------------------------------------------------

def sort(input_x, axis=-1, descending=False):
    """``ops.sort(input_x, axis=-1, descending=False)``: ``(values, indices)`` along ``axis``;
    stable, Int32 indices.

    >>> import graphcell as ms
    >>> v, i = sort(ms.Tensor([3.0, 1.0, 2.0]))
    >>> v.asnumpy().tolist(), i.asnumpy().tolist()
    ([1.0, 2.0, 3.0], [1, 2, 0])
    """
    _check_tensor(input_x, "ops.sort", "input_x")
    return F.sort(input_x, axis=_int_arg(axis, "ops.sort", "axis"),
                  descending=check_bool(descending, "ops.sort", "descending"))


def argsort(input, axis=-1, descending=False):
    """``ops.argsort(input, axis=-1, descending=False)``: the Int32 indices that sort ``input``."""
    _check_tensor(input, "ops.argsort")
    return F.sort(input, axis=_int_arg(axis, "ops.argsort", "axis"),
                  descending=check_bool(descending, "ops.argsort", "descending"))[1]


def msort(input):
    """``ops.msort(input)``: ``input`` sorted along its first axis (values only)."""
    _check_tensor(input, "ops.msort")
    return F.sort(input, axis=0)[0]


def topk(input, k, dim=None, largest=True, sorted=True):  # noqa: A002 - MindSpore's names
    """``ops.topk(input, k, dim=None, largest=True, sorted=True)``: ``(values, indices)`` of the
    ``k`` largest (or smallest) elements along ``dim`` (the last axis when None), largest first
    (smallest first); equal values in index order. graphcell always returns them sorted."""
    _check_tensor(input, "ops.topk")
    if not isinstance(largest, (bool, np.bool_)):
        raise TypeError(f"ops.topk: largest must be a bool, got {type(largest).__name__}")
    k = _int_arg(k, "ops.topk", "k")
    if input.ndim == 0:
        raise ValueError("ops.topk: the input must have at least 1 dimension, got a 0-d tensor")
    a = normalize_axis(-1 if dim is None else dim, input.ndim, "ops.topk: dim")
    if not 0 < k <= input.shape[a]:
        raise ValueError(f"ops.topk: k must be in [1, {input.shape[a]}] (the size of dim {a}), "
                         f"got {k}")
    values, indices = F.sort(input, axis=a, descending=bool(largest))
    return _slice_along(values, a, 0, k), _slice_along(indices, a, 0, k)


def top_k(input_x, k, sorted=True):  # noqa: A002
    """``ops.top_k(input_x, k, sorted=True)``: ``topk`` along the last axis."""
    return topk(input_x, k, None, True, sorted)


def _top_k_prim(input_x, k, sorted=True):  # noqa: A002
    return topk(input_x, k, None, True, sorted)


TopK = primitive("TopK", _top_k_prim, init=("sorted",))


# --- unique (PyNative only) --------------------------------------------------------------------------

def _first_appearances(flat: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Positions of each distinct value's first appearance (in order) and every element's
    index into them; NaNs are all distinct, as in MindSpore's Unique."""
    _, first, inverse = np.unique(flat, return_index=True, return_inverse=True, equal_nan=False)
    order = np.argsort(first, kind="stable")
    rank = np.empty_like(order)
    rank[order] = np.arange(order.size)
    return first[order], rank[inverse.reshape(-1)]


def unique(input):
    """``ops.unique(input)``: ``(values, indices)``: the distinct values of ``input`` (flattened)
    in order of first appearance, and for each element the index of its value (``input``'s
    shape; Int64 for Int64 inputs, else Int32). PyNative mode only: the number of distinct values
    is not known while graph mode compiles."""
    _check_tensor(input, "ops.unique")
    if input.dtype.is_bool:
        raise TypeError("ops.unique: the input must be numeric, got Bool")
    first, inverse = _first_appearances(_host_values(input, "ops.unique").reshape(-1))
    values = F.take(F.reshape(input, shape=(-1,)), first.astype(np.int64), axis=0)
    index = np.int64 if input.dtype is int64 else np.int32
    return values, Tensor(inverse.reshape(tuple(input.shape)).astype(index))


def _unique_prim(input):
    """``Unique()(input)``: ``ops.unique`` of a 1-D tensor (the Primitive refuses other ranks)."""
    _check_tensor(input, "Unique")
    if input.ndim != 1:
        raise ValueError(f"Unique: the input must be 1-D, got {input.ndim}-D")
    return unique(input)


Unique = primitive("Unique", _unique_prim)


def _sorted_unique(self, sorted=True, return_inverse=False, return_counts=False, dim=None):  # noqa: A002
    """``Tensor.unique(sorted=True, return_inverse=False, return_counts=False, dim=None)``: the
    sorted distinct values (or distinct slices along ``dim``), with Int64 inverse indices and
    counts when asked (PyNative mode only)."""
    data = _host_values(self, "Tensor.unique")
    if dim is None:
        _, first, inverse, counts = np.unique(data.reshape(-1), return_index=True,
                                              return_inverse=True, return_counts=True)
        values = F.take(F.reshape(self, shape=(-1,)), first.astype(np.int64), axis=0)
        inverse = inverse.reshape(data.shape)
    else:
        d = normalize_axis(dim, self.ndim, "Tensor.unique: dim")
        _, first, inverse, counts = np.unique(data, return_index=True, return_inverse=True,
                                              return_counts=True, axis=d)
        values = F.take(self, first.astype(np.int64), axis=d)
        inverse = inverse.reshape(-1)
    out = (values,)
    if return_inverse:
        out += (Tensor(inverse.astype(np.int64)),)
    if return_counts:
        out += (Tensor(counts.astype(np.int64)),)
    return out[0] if len(out) == 1 else out


# --- searchsorted --------------------------------------------------------------------------------

def _search(sorted_sequence, values, sorter, dtype, right: bool, fname: str):
    _check_tensor(sorted_sequence, fname, "sorted_sequence")
    _check_tensor(values, fname, "values")
    if sorter is not None:
        _check_tensor(sorter, fname, "sorter")
        if tuple(sorter.shape) != tuple(sorted_sequence.shape):
            raise ValueError(f"{fname}: sorter must have the shape of sorted_sequence "
                             f"{list(sorted_sequence.shape)}, got {list(sorter.shape)}")
        sorted_sequence = take_along(sorted_sequence, sorter, sorted_sequence.ndim - 1)
    return F.searchsorted(sorted_sequence, values, right=bool(right), dtype=to_dtype(dtype))


def searchsorted(sorted_sequence, values, *, out_int32=False, right=False, side=None, sorter=None):
    """``ops.searchsorted(sorted_sequence, values, *, out_int32=False, right=False, side=None,
    sorter=None)``: where each value would be inserted in the last axis of ``sorted_sequence``
    to keep it sorted (after equal elements when ``right`` or ``side='right'``); Int64 (Int32
    with ``out_int32``). ``sorter`` holds the indices that sort an unsorted sequence."""
    for name, flag in (("out_int32", out_int32), ("right", right)):
        if not isinstance(flag, (bool, np.bool_)):
            raise TypeError(f"ops.searchsorted: {name} must be a bool, got {type(flag).__name__}")
    if side == "right":
        right = True
    elif side == "left":
        if right:
            raise ValueError("ops.searchsorted: side='left' contradicts right=True")
    elif side is not None:
        raise ValueError(f"ops.searchsorted: side must be None, 'left' or 'right', got {side!r}")
    return _search(sorted_sequence, values, sorter, int32 if out_int32 else int64, right,
                   "ops.searchsorted")


def _searchsorted_prim(sorted_sequence, values, sorter=None, dtype=int64, right=False):
    return _search(sorted_sequence, values, sorter, dtype, right, "SearchSorted")


SearchSorted = primitive("SearchSorted", _searchsorted_prim, init=("dtype", "right"))


def _searchsorted_method(self, v, side="left", sorter=None):
    """``Tensor.searchsorted(v, side='left', sorter=None)``: Int32 insertion points of ``v``."""
    if side not in ("left", "right"):
        raise ValueError(f"Tensor.searchsorted: side must be 'left' or 'right', got {side!r}")
    v = v if isinstance(v, Tensor) else Tensor(v)
    if sorter is not None and not isinstance(sorter, Tensor):
        sorter = Tensor(np.asarray(sorter, np.int64))
    return _search(self, v, sorter, int32, side == "right", "Tensor.searchsorted")


# --- order statistics ------------------------------------------------------------------------------

def _pick(values, indices, a: int, k, keepdims: bool):
    """``(values, Int64 indices)`` at position ``k`` along ``a`` of a sorted tensor and its sort
    indices; ``k`` an int or an Int64 tensor with size 1 on ``a``."""
    if isinstance(k, int):
        picked, where = _slice_along(values, a, k, k + 1), _slice_along(indices, a, k, k + 1)
    else:
        picked, where = take_along(values, k, a), take_along(indices, k, a)
    where = cast(where, int64)
    if keepdims:
        return picked, where
    return F.squeeze(picked, axis=(a,)), F.squeeze(where, axis=(a,))


def _order_statistic(x, a: int, k, keepdims: bool):
    """The ``k``-th smallest element along ``a`` (from 0) and its index (Int64)."""
    values, indices = F.sort(x, axis=a)
    return _pick(values, indices, a, k, keepdims)


def _median(x, axis, keepdims, ignore_nan: bool, fname: str):
    """The lower median along ``axis`` and its index; a NaN makes the result NaN (its index),
    unless ``ignore_nan``, which takes the median of the other elements."""
    _check_tensor(x, fname)
    if x.ndim == 0:
        return x, F.fill(dtype=int64, shape=(), value=0)
    a = normalize_axis(_int_arg(axis, fname, "axis"), x.ndim, f"{fname}: axis")
    if not x.dtype.is_float:
        return _order_statistic(x, a, (x.shape[a] - 1) // 2, keepdims)
    nan = F.isnan(x)
    if ignore_nan:
        count = F.reduce_sum(F.cast(F.logical_not(nan), dtype=int64), axis=(a,), keep_dims=True)
        k = F.maximum(F.floor_div(F.sub(count, 1), 2), 0)
        return _order_statistic(x, a, k, keepdims)
    n = x.shape[a]
    ordered, order = F.sort(x, axis=a)  # NaNs sort last
    values, indices = _pick(ordered, order, a, (n - 1) // 2, True)
    has_nan = F.reduce_any(nan, axis=(a,), keep_dims=True)
    first_nan = F.expand_dims(F.argmax(F.cast(nan, dtype=int32), axis=a, output_type=int64), axis=a)
    values = F.select(has_nan, _slice_along(ordered, a, n - 1, n), values)
    indices = F.select(has_nan, first_nan, indices)
    if keepdims:
        return values, indices
    return F.squeeze(values, axis=(a,)), F.squeeze(indices, axis=(a,))


def median(input, axis=-1, keepdims=False):
    """``ops.median(input, axis=-1, keepdims=False)``: ``(values, indices)`` of the lower median
    along ``axis`` (the ``(n-1)//2``-th smallest; equal values in index order); NaN if the slice
    holds a NaN. The gradient goes to the median element."""
    return _median(input, axis, keepdims, False, "ops.median")


def nanmedian(input, axis=-1, keepdims=False):
    """``ops.nanmedian(input, axis=-1, keepdims=False)``: ``median`` ignoring NaNs."""
    return _median(input, axis, keepdims, True, "ops.nanmedian")


def _median_prim(x, global_median=False, axis=0, keep_dims=False, ignore_nan=False):
    """``Median(global_median=False, axis=0, keep_dims=False, ignore_nan=False)(x)``; with
    ``global_median`` the median of all elements and the index 0, as MindSpore gives."""
    if global_median:
        if keep_dims:
            raise ValueError("Median: keep_dims must be False when global_median is True")
        values, _ = _median(F.reshape(x, shape=(-1,)), 0, False, ignore_nan, "Median")
        return values, F.fill(dtype=int64, shape=(), value=0)
    return _median(x, axis, keep_dims, ignore_nan, "Median")


Median = primitive("Median", _median_prim, init=("global_median", "axis", "keep_dims", "ignore_nan"))


def _kthvalue_method(self, k, dim=-1, keepdim=False):
    """``Tensor.kthvalue(k, dim=-1, keepdim=False)``: ``(values, indices)`` of the ``k``-th
    smallest element (``k`` from 1) along ``dim``; Int64 indices."""
    k = _int_arg(k, "Tensor.kthvalue", "k")
    if self.ndim == 0:
        if k != 1:
            raise ValueError(f"Tensor.kthvalue: k must be 1 for a 0-d tensor, got {k}")
        return self, F.fill(dtype=int64, shape=(), value=0)
    a = normalize_axis(dim, self.ndim, "Tensor.kthvalue: dim")
    if not 1 <= k <= self.shape[a]:
        raise ValueError(f"Tensor.kthvalue: k must be in [1, {self.shape[a]}], got {k}")
    return _order_statistic(self, a, k - 1, bool(keepdim))


def _nth_element(input, n, reverse=False):
    """``NthElement(reverse=False)(input, n)``: the ``n``-th smallest (largest with ``reverse``,
    from 0) element along the last axis."""
    n = _int_arg(n, "NthElement", "n")
    if input.ndim == 0:
        raise ValueError("NthElement: the input must have at least 1 dimension")
    size = input.shape[-1]
    if not 0 <= n < size:
        raise ValueError(f"NthElement: n must be in [0, {size}), got {n}")
    values = F.sort(input, axis=-1, descending=bool(reverse))[0]
    return F.squeeze(_slice_along(values, input.ndim - 1, n, n + 1), axis=(input.ndim - 1,))


NthElement = primitive("NthElement", _nth_element, init=("reverse",))


# --- quantile ----------------------------------------------------------------------------------------

def _quantile(input, q, axis, keepdims, ignore_nan: bool, fname: str):
    """Linear interpolation between the two order statistics around ``q * (n - 1)`` (numpy's and
    PyTorch's default), along ``axis`` (all elements when None); ``q`` a number or a 0-d/1-D
    tensor of the input's dtype (a 1-D ``q`` gives its axis first)."""
    _check_tensor(input, fname)
    if not input.dtype.is_float:
        raise TypeError(f"{fname}: the input must have a float dtype, got {input.dtype}")
    if axis is not None and (isinstance(axis, bool) or not isinstance(axis, (int, np.integer))):
        raise TypeError(f"{fname}: axis must be an int or None, got {type(axis).__name__}")
    if not isinstance(keepdims, (bool, np.bool_)):
        raise TypeError(f"{fname}: keepdims must be a bool, got {type(keepdims).__name__}")
    if isinstance(q, Tensor):
        if q.dtype is not input.dtype:
            raise TypeError(f"{fname}: q must have the input's dtype {input.dtype}, got {q.dtype}")
        if q.ndim > 1:
            raise ValueError(f"{fname}: q must be a number or a 0-d or 1-D tensor, got {q.ndim}-D")
        q_vec = F.reshape(q, shape=(-1,))
    elif isinstance(q, (float, int)) and not isinstance(q, bool):
        if not 0 <= q <= 1:
            raise ValueError(f"{fname}: q must be in [0, 1], got {q}")
        q_vec = np.asarray([q], input.dtype.np_dtype)
    else:
        raise TypeError(f"{fname}: q must be a float or a Tensor, got {type(q).__name__}")
    x = F.reshape(input, shape=(-1,)) if axis is None else input
    a = 0 if axis is None else normalize_axis(axis, x.ndim, f"{fname}: axis")
    m = int(np.prod(q_vec.shape))
    at_q = [1] * x.ndim
    at_q[a] = m
    q_b = F.reshape(q_vec, shape=tuple(at_q))
    values = F.sort(x, axis=a)[0]
    nan = F.isnan(x)
    if ignore_nan:  # the last valid position of each slice (NaNs sort last)
        last = F.sub(F.reduce_sum(F.cast(F.logical_not(nan), dtype=x.dtype), axis=(a,),
                                  keep_dims=True), 1)
        top = F.maximum(last, 0)
    else:
        last = top = x.shape[a] - 1
    position = F.mul(q_b, last)
    below = F.maximum(F.floor(position), 0)
    above = F.minimum(F.add(below, 1), top)
    idx_shape = tuple(at_q[i] if i == a else x.shape[i] for i in range(x.ndim))
    lo = take_along(values, F.broadcast_to(F.cast(below, dtype=int64), shape=idx_shape), a)
    hi = take_along(values, F.broadcast_to(F.cast(above, dtype=int64), shape=idx_shape), a)
    out = F.add(lo, F.mul(F.sub(hi, lo), F.sub(position, below)))
    if not ignore_nan:
        has_nan = F.reduce_any(nan, axis=(a,), keep_dims=True)
        out = F.select(F.broadcast_to(has_nan, shape=tuple(out.shape)),
                       F.fill(dtype=x.dtype, shape=tuple(out.shape), value=float("nan")), out)
    return _quantile_layout(out, a, q, input.ndim, axis is None, keepdims)


def _quantile_layout(out, a: int, q, ndim: int, flattened: bool, keepdims: bool):
    """Put the ``q`` axis first (a 1-D ``q``) or drop it (a number or 0-d ``q``), and keep or
    drop the reduced axis."""
    vector_q = isinstance(q, Tensor) and q.ndim == 1
    if vector_q:
        perm = (a,) + tuple(i for i in range(out.ndim) if i != a)
        out = F.transpose(out, perm=perm)
        if keepdims:
            out = F.reshape(out, shape=(out.shape[0],) + ((1,) * ndim if flattened else
                                                          _kept(tuple(out.shape[1:]), a)))
        return out
    out = F.squeeze(out, axis=(a,))
    if keepdims:
        out = F.reshape(out, shape=(1,) * ndim if flattened else _kept(tuple(out.shape), a))
    return out


def _kept(shape: tuple[int, ...], a: int) -> tuple[int, ...]:
    return shape[:a] + (1,) + shape[a:]


def quantile(input, q, axis=None, keepdims=False):
    """``ops.quantile(input, q, axis=None, keepdims=False)``: the ``q``-th quantiles along
    ``axis`` with linear interpolation; NaN where a slice holds a NaN. Float inputs only."""
    return _quantile(input, q, axis, keepdims, False, "ops.quantile")


def nanquantile(input, q, axis=None, keepdims=False):
    """``ops.nanquantile(input, q, axis=None, keepdims=False)``: ``quantile`` ignoring NaNs."""
    return _quantile(input, q, axis, keepdims, True, "ops.nanquantile")


def _quantile_prim(input, q, dim=None, keep_dims=False, ignore_nan=False):
    return _quantile(input, q, dim, keep_dims, bool(ignore_nan), "Quantile")


Quantile = primitive("Quantile", _quantile_prim, init=("dim", "keep_dims", "ignore_nan"))


# --- in-top-k ------------------------------------------------------------------------------------------

def intopk(x1, x2, k):
    """``ops.intopk(x1, x2, k)``: for each row ``i`` of ``x1`` (N x C, float), whether the element
    ``x2[i]`` is among the ``k`` largest of the row (fewer than ``k`` elements are larger)."""
    _check_tensor(x1, "InTopK", "x1")
    _check_tensor(x2, "InTopK", "x2")
    k = _int_arg(k, "InTopK", "k")
    if x1.dtype not in (float16, float32) or x1.ndim != 2:
        raise TypeError(f"InTopK: x1 must be a 2-D Float16 or Float32 tensor, got "
                        f"{x1.dtype}{list(x1.shape)}")
    if x2.dtype not in (int32, int64) or tuple(x2.shape) != (x1.shape[0],):
        raise TypeError(f"InTopK: x2 must be an Int32 or Int64 tensor of shape [{x1.shape[0]}], "
                        f"got {x2.dtype}{list(x2.shape)}")
    target = take_along(x1, F.expand_dims(x2, axis=1), 1)
    larger = F.reduce_sum(F.cast(F.greater(x1, target), dtype=int32), axis=(1,))
    return F.less(larger, k)


def _in_top_k_prim(x1, x2, k):
    return intopk(x1, x2, k)


InTopK = primitive("InTopK", _in_top_k_prim, init=("k",))


# --- histograms -----------------------------------------------------------------------------------

def _bin_counts(bin_index, weights, bins: int, dtype):
    """``bins`` sums of ``weights`` by ``bin_index`` (both flat), as ``dtype``."""
    zeros = F.fill(dtype=dtype, shape=(bins,), value=0)
    return F.scatter_add(zeros, bin_index, F.cast(weights, dtype=dtype), axis=0)


def histc(input, bins=100, min=0., max=0.):  # noqa: A002 - MindSpore's names
    """``ops.histc(input, bins=100, min=0., max=0.)``: counts of the elements in ``bins`` equal
    bins over ``[min, max]`` (the data's range when ``min == max``, widened by 1 on each side if
    the data is constant); elements outside are ignored. Float16, Float32 and Int32 inputs; the
    counts are Int32 for Int32 inputs, else Float32."""
    _check_tensor(input, "ops.histc")
    bins = _int_arg(bins, "ops.histc", "bins")
    for name, v in (("min", min), ("max", max)):
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            raise TypeError(f"ops.histc: {name} must be an int or a float, got {type(v).__name__}")
    if input.dtype.name not in ("float16", "float32", "int32"):
        raise TypeError(f"ops.histc: the input must be Float16, Float32 or Int32, got {input.dtype}")
    if bins <= 0:
        raise ValueError(f"ops.histc: bins must be positive, got {bins}")
    if min > max:
        raise ValueError(f"ops.histc: min must be <= max, got min={min} and max={max}")
    x = F.cast(F.reshape(input, shape=(-1,)), dtype=float32)
    if min == max:
        lo, hi = F.reduce_min(x), F.reduce_max(x)
        flat = F.equal(lo, hi)
        lo, hi = F.select(flat, F.sub(lo, 1.0), lo), F.select(flat, F.add(hi, 1.0), hi)
    else:
        lo, hi = float(min), float(max)
    inside = F.logical_and(F.greater_equal(x, lo), F.less_equal(x, hi))
    scaled = F.mul(F.div(F.sub(x, lo), F.sub(hi, lo)), float(bins))
    index = F.minimum(F.maximum(F.cast(F.floor(scaled), dtype=int64), 0), bins - 1)
    return _bin_counts(index, inside, bins, int32 if input.dtype is int32 else float32)


def _histogram_prim(x, bins=100, min=0.0, max=0.0):  # noqa: A002
    return histc(x, bins, min, max)


Histogram = primitive("Histogram", _histogram_prim, init=("bins", "min", "max"))


def _histogram_fixed_width(x, range, nbins, dtype="int32"):  # noqa: A002
    """``HistogramFixedWidth(nbins, dtype='int32')(x, range)``: counts in ``nbins`` equal bins over
    ``[range[0], range[1])``; values below fall in the first bin, values above in the last."""
    nbins = _int_arg(nbins, "HistogramFixedWidth", "nbins")
    if nbins < 1:
        raise ValueError(f"HistogramFixedWidth: nbins must be at least 1, got {nbins}")
    if tuple(range.shape) != (2,):
        raise ValueError(f"HistogramFixedWidth: range must have shape [2], got {list(range.shape)}")
    x = F.cast(F.reshape(x, shape=(-1,)), dtype=float32)
    edges = F.cast(range, dtype=float32)
    lo, hi = F.getitem(edges, key=(0,)), F.getitem(edges, key=(1,))
    scaled = F.mul(F.div(F.sub(x, lo), F.sub(hi, lo)), float(nbins))
    index = F.minimum(F.maximum(F.cast(F.floor(scaled), dtype=int64), 0), nbins - 1)
    ones = F.fill(dtype=int32, shape=tuple(x.shape), value=1)
    return _bin_counts(index, ones, nbins, to_dtype(dtype))


HistogramFixedWidth = primitive("HistogramFixedWidth", _histogram_fixed_width,
                                init=("nbins", "dtype"))


def _bincount_of(input, weights, length: int):
    """Float32 sums of ``weights`` (or counts) per value in ``[0, length)``; other values are
    ignored."""
    inside = F.logical_and(F.greater_equal(input, 0), F.less(input, length))
    if input.dtype.is_float:  # MindSpore compares with 0..length-1: fractions never match
        inside = F.logical_and(inside, F.equal(input, F.floor(input)))
    index = F.select(inside, F.cast(input, dtype=int64), F.fill(dtype=int64, shape=tuple(input.shape),
                                                                 value=0))
    w = F.cast(inside, dtype=float32) if weights is None else \
        F.select(inside, F.cast(weights, dtype=float32), F.fill(dtype=float32,
                                                                  shape=tuple(input.shape), value=0))
    return _bin_counts(index, w, length, float32)


def bincount(input, weights=None, minlength=0):
    """``ops.bincount(input, weights=None, minlength=0)``: how often each value of the 1-D integer
    ``input`` occurs (the sum of its ``weights``), for values ``0 .. max(input)`` (at least
    ``minlength``); Float32. PyNative mode only: the length depends on the data."""
    _check_tensor(input, "ops.bincount")
    if weights is not None:
        _check_tensor(weights, "ops.bincount", "weights")
    if isinstance(minlength, bool) or not isinstance(minlength, int):
        raise TypeError(f"ops.bincount: minlength must be an int, got {type(minlength).__name__}")
    if input.ndim != 1:
        raise ValueError(f"ops.bincount: input must be 1-D, got {input.ndim}-D")
    if input.dtype.is_bool:
        raise TypeError("ops.bincount: input must be numeric, got Bool")
    if minlength < 0:
        raise ValueError(f"ops.bincount: minlength must be >= 0, got {minlength}")
    if weights is not None and tuple(weights.shape) != tuple(input.shape):
        raise ValueError(f"ops.bincount: weights must have input's shape {list(input.shape)}, got "
                         f"{list(weights.shape)}")
    data = _host_values(input, "ops.bincount")
    if data.size == 0:
        return Tensor(np.zeros((0,), np.float32))
    return _bincount_of(input, weights, max(int(data.max()) + 1, minlength))


def _bincount_prim(array, size, weights):
    """``Bincount()(array, size, weights)``: counts (weighted sums) of the values ``0 .. size-1``
    of ``array``; an empty ``weights`` counts. PyNative mode only (``size`` is a tensor)."""
    length = _int_arg(size, "Bincount", "size")
    if length < 0:
        raise ValueError(f"Bincount: size must be >= 0, got {length}")
    use = weights if weights is not None and int(np.prod(weights.shape)) else None
    out = _bincount_of(array, use, length)
    return out if use is None else cast(out, weights.dtype)


Bincount = primitive("Bincount", _bincount_prim)


# --- Tensor methods ------------------------------------------------------------------------------

def _sort_dim(self, dim: int = -1, descending: bool = False, stable: bool = False):
    return sort(self, dim, descending)


def _sort_axis(self, axis: int = -1, descending: bool = False):
    return sort(self, axis, descending)


def _argsort_axis(self, axis: int = -1, descending: bool = False):
    return argsort(self, axis, descending)


def _argsort_dim(self, dim: int = -1, descending: bool = False, stable: bool = False):
    return argsort(self, dim, descending)


def _median_axis(self, axis: int = -1, keepdims: bool = False):
    return median(self, axis, keepdims)


def _median_dim(self, dim: int = -1, keepdim: bool = False):
    return median(self, dim, keepdim)


def _topk_method(self, k, dim=None, largest=True, sorted=True):  # noqa: A002
    return topk(self, k, dim, largest, sorted)


def _top_k_method(self, k, sorted=True):  # noqa: A002
    return top_k(self, k, sorted)


def _msort_method(self):
    return msort(self)


def _nanmedian_method(self, axis=-1, keepdims=False):
    return nanmedian(self, axis, keepdims)


def _quantile_method(self, q, axis=None, keepdims=False):
    return quantile(self, q, axis, keepdims)


def _nanquantile_method(self, q, axis=None, keepdims=False):
    return nanquantile(self, q, axis, keepdims)


def _histc_method(self, bins=100, min=0, max=0):  # noqa: A002
    return histc(self, bins, min, max)


def _bincount_method(self, weights=None, minlength=0):
    return bincount(self, weights, minlength)


TENSOR_METHODS = {
    "sort": overload(_sort_dim, _sort_axis, name="sort"),
    "argsort": overload(_argsort_axis, _argsort_dim, name="argsort"),
    "msort": _msort_method,
    "topk": _topk_method,
    "top_k": _top_k_method,
    "unique": _sorted_unique,
    "searchsorted": _searchsorted_method,
    "median": overload(_median_axis, _median_dim, name="median"),
    "nanmedian": _nanmedian_method,
    "quantile": _quantile_method,
    "nanquantile": _nanquantile_method,
    "kthvalue": _kthvalue_method,
    "histc": _histc_method,
    "bincount": _bincount_method,
}
