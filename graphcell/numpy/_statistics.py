"""Statistics, NaN-aware reductions, binning and histograms of ``mindspore.numpy`` (re-exported by
``math_ops``).

Composites of ``graphcell.ops``. Histograms have static shapes (the number of bins is a Python
int; the edges may come from the data's min and max, computed in the graph), so they compile;
``bincount`` without ``length`` reads the largest value to size its result, so that form runs in
PyNative only. Counts are Float32, as mindspore.numpy returns them.

Example::

    >>> import graphcell as ms
    >>> count, edges = histogram(ms.Tensor([0.0, 1.0, 1.5, 3.0]), bins=3)
    >>> count.asnumpy().tolist(), edges.asnumpy().tolist()
    ([1.0, 2.0, 1.0], [0.0, 1.0, 2.0, 3.0])
"""
from __future__ import annotations

import builtins

import numpy as np

from graphcell import ops
from graphcell.numpy import array_ops
from graphcell.numpy.array_creations import histogram_bin_edges
from graphcell.numpy.utils import (axes_arg, cast, check_tensor, dtype_arg, reduce_any,
                                   reduce_sum, to_tensor, to_tensors)
from graphcell.ops.function._array_utils import const, known_values
from graphcell.tensor import Tensor
from graphcell_ir.ir.types import float32, int32

__all__ = ["nansum", "nanmean", "nanvar", "nanstd", "nanmax", "nanmin", "nancumsum", "average",
           "cov", "corrcoef", "searchsorted", "interp", "digitize", "bincount", "histogram",
           "histogramdd", "histogram2d"]

_FN = "mindspore.numpy"


# --- NaN-aware reductions -------------------------------------------------------------------------

def _without_nan(a, fill=0):
    """``a`` with NaNs replaced by ``fill``, and the mask of the values that were not NaN."""
    if not a.dtype.is_float:
        return a, None
    nan = ops.isnan(a)
    return ops.select(nan, ops.full_like(a, fill), a), ops.logical_not(nan)


def _axes(a, axis, fn: str):
    axes = axes_arg(axis, a.ndim, f"{_FN}.{fn}")
    return axes if axes else None


def _count(mask, a, axes, keepdims):
    """How many values are not NaN, in Float32."""
    present = ops.ones_like(a, dtype=float32) if mask is None else ops.cast(mask, float32)
    return reduce_sum(present, axes, keepdims) if axes is not None else present


def nansum(a, axis=None, dtype=None, keepdims=False):
    """``nansum(a, axis=None, dtype=None, keepdims=False)``: the sum treating NaN as 0, in
    ``a``'s dtype unless ``dtype``."""
    a = to_tensor(a, f"{_FN}.nansum")
    values, _ = _without_nan(a)
    axes = _axes(a, axis, "nansum")
    out = reduce_sum(values, axes, keepdims) if axes is not None else values
    return cast(out, dtype_arg(dtype))


def nanmean(a, axis=None, dtype=None, keepdims=False):
    """``nanmean(a, axis=None, dtype=None, keepdims=False)``: the mean of the values that are
    not NaN (Float32 unless ``dtype``)."""
    a = to_tensor(a, f"{_FN}.nanmean")
    dtype = dtype_arg(dtype) or float32
    values, mask = _without_nan(a)
    axes = _axes(a, axis, "nanmean")
    total = reduce_sum(cast(values, dtype), axes, keepdims) if axes is not None \
        else cast(values, dtype)
    return cast(ops.div(total, cast(_count(mask, a, axes, keepdims), dtype)), dtype)


def _nanvar(a, axis, dtype, ddof, keepdims, fn: str):
    a = to_tensor(a, f"{_FN}.{fn}")
    dtype = dtype_arg(dtype) or float32
    axes = _axes(a, axis, fn)
    centred = ops.sub(cast(a, dtype), nanmean(a, axes, dtype, True))
    squares, mask = _without_nan(ops.mul(centred, centred))
    total = reduce_sum(squares, axes, keepdims) if axes is not None else squares
    count = _count(None if mask is None else ops.logical_not(ops.isnan(cast(a, dtype))), a, axes,
                   keepdims) if a.dtype.is_float else _count(None, a, axes, keepdims)
    return ops.div(total, ops.sub(cast(count, dtype), float(ddof)))


def nanvar(a, axis=None, dtype=None, ddof=0, keepdims=False):
    """``nanvar(a, axis=None, dtype=None, ddof=0, keepdims=False)``: the variance of the values
    that are not NaN (Float32 unless ``dtype``)."""
    return _nanvar(a, axis, dtype, ddof, keepdims, "nanvar")


def nanstd(a, axis=None, dtype=None, ddof=0, keepdims=False):
    """``nanstd(a, axis=None, dtype=None, ddof=0, keepdims=False)``: the standard deviation of
    the values that are not NaN."""
    return ops.sqrt(_nanvar(a, axis, dtype, ddof, keepdims, "nanstd"))


def _nan_extreme(op, fill: float, a, axis, dtype, keepdims, fn: str):
    a = to_tensor(a, f"{_FN}.{fn}")
    if not isinstance(keepdims, (bool, int)):
        raise TypeError(f"{_FN}.{fn}: keepdims must be an int or a bool, but got {keepdims!r}")
    axes = _axes(a, axis, fn)
    values, mask = _without_nan(a, fill)
    out = op(values, axes, bool(keepdims))
    if mask is not None:  # a slice of NaNs only gives NaN, as in numpy
        seen = reduce_any(mask, axes, bool(keepdims)) if axes is not None else mask
        out = ops.select(seen, out, ops.full_like(out, float("nan")))
    return cast(out, dtype_arg(dtype))


def nanmax(a, axis=None, dtype=None, keepdims=False):
    """``nanmax(a, axis=None, dtype=None, keepdims=False)``: the maximum ignoring NaN (NaN for a
    slice of NaNs only)."""
    return _nan_extreme(ops.amax, float("-inf"), a, axis, dtype, keepdims, "nanmax")


def nanmin(a, axis=None, dtype=None, keepdims=False):
    """``nanmin(a, axis=None, dtype=None, keepdims=False)``: the minimum ignoring NaN."""
    return _nan_extreme(ops.amin, float("inf"), a, axis, dtype, keepdims, "nanmin")


def nancumsum(a, axis=None, dtype=None):
    """``nancumsum(a, axis=None, dtype=None)``: running sums treating NaN as 0."""
    check_tensor(a, fn=f"{_FN}.nancumsum")
    return _without_nan(a)[0].cumsum(axis, dtype_arg(dtype))


# --- weighted statistics -------------------------------------------------------------------------

def average(x, axis=None, weights=None, returned=False):
    """``average(x, axis=None, weights=None, returned=False)``: the (weighted) mean, and with
    ``returned`` the sum of the weights too. 1-D ``weights`` apply along an int ``axis``."""
    check_tensor(x, fn=f"{_FN}.average")
    axes = axes_arg(axis, x.ndim, f"{_FN}.average") if axis is not None else None
    if weights is None:
        avg = ops.mean(x, axes, False)
        count = int(np.prod([x.shape[i] for i in (axes if axes is not None
                                                   else range(x.ndim))]))
        total = ops.full(tuple(avg.shape), count, dtype=x.dtype)
    else:
        check_tensor(weights, fn=f"{_FN}.average")
        if tuple(weights.shape) != tuple(x.shape):
            if weights.ndim != 1:
                raise TypeError(f"{_FN}.average: weights must be None, 1-D, or the shape of x")
            if axes is None or len(axes) != 1 or isinstance(axis, (tuple, list)):
                raise TypeError(f"{_FN}.average: axis must be an int when the shapes of x and "
                                "weights differ")
            view = [1] * x.ndim
            view[axes[0]] = weights.shape[0]
            weights = ops.reshape(weights, tuple(view))
        red = axes if axes is not None else tuple(range(x.ndim))
        total = reduce_sum(ops.broadcast_to(weights, tuple(x.shape)), red)
        avg = ops.div(reduce_sum(ops.mul(x, weights), red), total)
    if returned:
        return avg, ops.broadcast_to(total, tuple(avg.shape))
    return avg


def _observations(m, rowvar, fn: str):
    """``m`` as a Float32 2-D tensor with one variable per row."""
    m = to_tensor(m, f"{_FN}.{fn}")
    if m.ndim > 2:
        raise ValueError(f"{_FN}.{fn}: the input has more than 2 dimensions")
    if m.size == 0:
        raise ValueError(f"{_FN}.{fn}: the input is empty")
    if not isinstance(rowvar, (bool, np.bool_)):
        raise TypeError(f"{_FN}.{fn}: rowvar must be a bool, but got {rowvar!r}")
    m = ops.cast(m, float32)
    m = ops.reshape(m, (1, -1)) if m.ndim < 2 else m
    return ops.transpose(m, (1, 0)) if not rowvar and m.shape[0] != 1 else m


def _weights(w, n: int, name: str):
    w = to_tensor(w, f"{_FN}.cov")
    if not w.dtype.is_int:
        raise TypeError(f"{_FN}.cov: {name} must be integers")
    if w.ndim > 1:
        raise RuntimeError(f"{_FN}.cov: cannot handle multidimensional {name}")
    if w.shape[0] != n:
        raise RuntimeError(f"{_FN}.cov: incompatible numbers of samples and {name}")
    return ops.abs(w)


def cov(m, y=None, rowvar=True, bias=False, ddof=None, fweights=None, aweights=None, dtype=None):
    """``cov(m, y=None, rowvar=True, bias=False, ddof=None, fweights=None, aweights=None,
    dtype=None)``: the covariance matrix of the variables (rows, or columns when not
    ``rowvar``) of ``m`` and ``y``; integer frequency and analytic weights."""
    m = _observations(m, rowvar, "cov")
    if y is not None:
        m = ops.concat((m, _observations(y, rowvar, "cov")), 0)
    ddof = (0 if bias else 1) if ddof is None else ddof
    n = m.shape[1]
    fw = _weights(fweights, n, "fweights") if fweights is not None else None
    aw = ops.cast(_weights(aweights, n, "aweights"), float32) if aweights is not None else None
    res = ops.squeeze(ops.cov(m, correction=ddof, fweights=fw, aweights=aw))
    return cast(res, dtype_arg(dtype))


def corrcoef(x, y=None, rowvar=True, dtype=None):
    """``corrcoef(x, y=None, rowvar=True, dtype=None)``: Pearson correlation coefficients,
    clipped to [-1, 1]."""
    c = cov(x, y, rowvar)
    if c.ndim == 0:
        return cast(ops.div(c, c), dtype_arg(dtype))
    std = ops.sqrt(ops.diagonal(c, 0, 0, 1))
    c = ops.div(ops.div(c, ops.expand_dims(std, -1)), ops.expand_dims(std, 0))
    return cast(ops.clip(c, -1.0, 1.0), dtype_arg(dtype))


# --- sorted positions ----------------------------------------------------------------------------

def searchsorted(a, v, side="left", sorter=None):
    """``searchsorted(a, v, side='left', sorter=None)``: where the values ``v`` would go in the
    sorted 1-D ``a`` (Int32)."""
    if side not in ("left", "right"):
        raise ValueError(f"{_FN}.searchsorted: invalid value for side: {side!r}")
    a, v = to_tensors(a, v, fn=f"{_FN}.searchsorted")
    if a.ndim != 1:
        raise ValueError(f"{_FN}.searchsorted: a must be 1-D, but got shape {list(a.shape)}")
    if sorter is not None:
        sorter = to_tensor(sorter)
        if sorter.ndim != 1 or sorter.shape[0] != a.shape[0]:
            raise ValueError(f"{_FN}.searchsorted: sorter must be 1-D, as long as a")
        a = ops.gather(a, sorter, 0)
    values = ops.reshape(v, (1,)) if v.ndim == 0 else v
    out = ops.searchsorted(ops.cast(a, float32), ops.cast(values, float32), out_int32=True,
                           side=side)
    return ops.reshape(out, ()) if v.ndim == 0 else out


def interp(x, xp, fp, left=None, right=None):
    """``interp(x, xp, fp, left=None, right=None)``: the piecewise-linear interpolant through
    ``(xp, fp)`` (``xp`` increasing) at ``x``; ``left``/``right`` (default ``fp[0]``/``fp[-1]``)
    outside. Float32."""
    x, xp, fp = (ops.cast(t, float32) for t in to_tensors(x, xp, fp, fn=f"{_FN}.interp"))
    if xp.ndim != 1 or fp.ndim != 1:
        raise ValueError(f"{_FN}.interp: xp and fp must be 1-D sequences")
    n = xp.shape[0]
    if fp.shape[0] != n:
        raise ValueError(f"{_FN}.interp: fp and xp are not of the same length")
    hi = ops.clip(searchsorted(xp, x, "right"), 1, builtins.max(n - 1, 1)) if n > 1 \
        else ops.zeros_like(x, dtype=int32)
    lo = ops.clip(ops.sub(hi, 1), 0, n - 1)
    x0, x1 = ops.gather(xp, lo, 0), ops.gather(xp, hi, 0)
    y0, y1 = ops.gather(fp, lo, 0), ops.gather(fp, hi, 0)
    span = ops.sub(x1, x0)
    flat = ops.equal(span, 0)
    slope = ops.div(ops.sub(y1, y0), ops.select(flat, ops.ones_like(span), span))
    res = ops.select(flat, y0, ops.add(y0, ops.mul(slope, ops.sub(x, x0))))
    below = ops.full_like(x, float(left)) if left is not None else \
        ops.broadcast_to(fp[0], tuple(x.shape))
    above = ops.full_like(x, float(right)) if right is not None else \
        ops.broadcast_to(fp[n - 1], tuple(x.shape))
    res = ops.select(ops.lt(x, xp[0]), below, res)
    return ops.select(ops.gt(x, xp[n - 1]), above, res)


def digitize(x, bins, right=False):
    """``digitize(x, bins, right=False)``: the index of the bin of each value (``bins``
    increasing or decreasing; ``right`` puts a value equal to an edge in the bin on its left).
    Int32."""
    x, bins = to_tensors(x, bins, fn=f"{_FN}.digitize")
    if bins.ndim != 1:
        raise ValueError(f"{_FN}.digitize: bins must be 1-dimensional")
    if x.size == 0:
        return x
    if bins.shape[0] == 0:
        return ops.zeros(tuple(x.shape), int32)
    side = "left" if right else "right"
    n = bins.shape[0]
    rising = searchsorted(bins, x, side)
    falling = ops.sub(to_tensor(n), searchsorted(ops.flip(bins, (0,)), x, side))
    increasing = ops.le(bins[0], bins[n - 1])
    return ops.select(ops.broadcast_to(increasing, tuple(rising.shape)), rising, falling)


# --- counting ------------------------------------------------------------------------------------

def bincount(x, weights=None, minlength=0, length=None):
    """``bincount(x, weights=None, minlength=0, length=None)``: how often each value of the 1-D
    integer ``x`` occurs (summing ``weights`` if given), as Float32; negative values count as 0.
    Without ``length`` the result is as long as the largest value needs, which PyNative reads
    from the data; graph mode needs ``length``."""
    x = to_tensor(x, f"{_FN}.bincount")
    if x.ndim != 1:
        raise ValueError(f"{_FN}.bincount: x must be 1-dimensional")
    if not x.dtype.is_int:
        raise TypeError(f"{_FN}.bincount: x must be an array of ints, but got {x.dtype}")
    x = ops.clip(x, 0, None)
    if length is None:
        values = known_values(x, f"{_FN}.bincount", "x") if x.shape[0] else np.zeros(0)
        length = int(max(values.max() + 1 if values.size else 0, minlength))
    hits = ops.equal(ops.expand_dims(x, 0), const(np.arange(length, dtype=np.int64)[:, None]))
    hits = ops.cast(hits, float32)
    if weights is not None:
        weights = to_tensor(weights)
        if tuple(weights.shape) != tuple(x.shape):
            raise ValueError(f"{_FN}.bincount: x and weights must have the same length")
        hits = ops.mul(hits, ops.cast(weights, float32))
    return reduce_sum(hits, 1)


def _bin_index(values, edges):
    """Which bin of ``edges`` each value falls in, 1-based: 0 below the first edge, ``len`` above
    the last; a value equal to the last edge is in the last bin."""
    n = edges.shape[0]
    index = searchsorted(edges, values, "right")
    last = ops.equal(ops.cast(values, float32), ops.cast(edges[n - 1], float32))
    return ops.select(last, ops.full_like(index, n - 1), index)


def histogram(a, bins=10, range=None, weights=None, density=False):  # noqa: A002 - numpy's
    """``histogram(a, bins=10, range=None, weights=None, density=False)``: ``(counts,
    edges)`` of the flattened ``a`` (Float32 counts; with ``density``, normalised so that they
    integrate to 1)."""
    a = to_tensor(a, f"{_FN}.histogram")
    if weights is not None:
        weights = to_tensor(weights)
        if tuple(weights.shape) != tuple(a.shape):
            raise ValueError(f"{_FN}.histogram: weights must have the same shape as a")
        weights = array_ops.ravel(weights)
    a = array_ops.ravel(a)
    edges = histogram_bin_edges(a, bins, range, weights)
    n = edges.shape[0]
    count = bincount(_bin_index(a, edges), weights, length=n + 1)[1:n]
    if density and n > 1:
        widths = ops.cast(ops.diff(edges, 1, 0), float32)
        count = ops.div(ops.div(count, widths), reduce_sum(count))
    return count, edges


def histogramdd(sample, bins=10, range=None, weights=None, density=False):  # noqa: A002
    """``histogramdd(sample, bins=10, range=None, weights=None, density=False)``: ``(counts,
    edges)`` of ``N`` points in ``D`` dimensions (an ``(N, D)`` tensor, or ``D`` sequences);
    ``edges`` is a list of ``D`` tensors."""
    if isinstance(sample, (tuple, list)):
        sample = ops.stack(to_tensors(*sample), -1)
    elif not isinstance(sample, Tensor):
        raise TypeError(f"{_FN}.histogramdd: sample must be an (N, D) tensor or a sequence of D "
                        "sequences")
    if sample.ndim != 2:
        raise ValueError(f"{_FN}.histogramdd: an array sample must be 2-dimensional")
    dims = sample.shape[1]
    if isinstance(bins, int):
        bins = [bins] * dims
    elif not isinstance(bins, (tuple, list, Tensor)):
        raise TypeError(f"{_FN}.histogramdd: bins must be an int or a sequence")
    if len(bins) != dims:
        raise ValueError(f"{_FN}.histogramdd: the dimension of bins must equal the dimension of "
                         "the sample")
    range = [None] * dims if range is None else range  # noqa: A001
    if len(range) != dims:
        raise ValueError(f"{_FN}.histogramdd: range must have one entry per dimension")
    edges = [histogram_bin_edges(sample[:, i], bins[i], range[i], weights) for i in
             builtins.range(dims)]
    sizes = [e.shape[0] + 1 for e in edges]
    strides = [int(np.prod(sizes[i + 1:])) for i in builtins.range(dims)]
    flat = None
    for i in builtins.range(dims):
        term = ops.mul(_bin_index(sample[:, i], edges[i]), strides[i])
        flat = term if flat is None else ops.add(flat, term)
    count = bincount(flat, weights, length=int(np.prod(sizes)))
    count = ops.reshape(count, tuple(sizes))[(slice(1, -1),) * dims]
    if density:
        total = reduce_sum(count)
        for i in builtins.range(dims):
            view = [1] * dims
            view[i] = edges[i].shape[0] - 1
            widths = ops.cast(ops.diff(edges[i], 1, 0), float32)
            count = ops.div(count, ops.reshape(widths, tuple(view)))
        count = ops.div(count, total)
    return count, edges


def histogram2d(x, y, bins=10, range=None, weights=None, density=False):  # noqa: A002
    """``histogram2d(x, y, bins=10, range=None, weights=None, density=False)``: ``(counts,
    xedges, yedges)`` of the points ``(x[i], y[i])``."""
    count, edges = histogramdd((x, y), bins, range, weights, density)
    return count, edges[0], edges[1]

