"""``pad`` with numpy's modes, written with ``graphcell.ops`` one axis at a time.

Axes are padded in order, each over the result of the previous ones, so corners hold what numpy
puts there. ``edge``, ``wrap`` and the even ``reflect``/``symmetric`` modes read every padded
element from a position of the original axis: one ``gather`` with a constant index per axis
(reflection is periodic: ``reflect`` with period ``2(n-1)``, ``symmetric`` with ``2n``). The odd
reflections (``2 * edge - mirror``) are built in chunks of at most one axis length, as numpy
builds them, since each chunk mirrors around the edge of the previous one.

Example::

    >>> import graphcell as ms
    >>> pad(ms.Tensor([1, 2, 3], ms.int32), 2, mode="reflect").asnumpy().tolist()
    [3, 2, 1, 2, 3, 2, 1]
"""
from __future__ import annotations

import numpy as np

from graphcell import ops
from graphcell.numpy.utils import to_tensor
from graphcell.ops.function._array_utils import const
from graphcell.tensor import Tensor

__all__ = ["pad"]

_MODES = ("constant", "edge", "wrap", "reflect", "symmetric", "maximum", "minimum", "mean",
          "median", "linear_ramp", "empty")
_STATS = {"maximum": lambda x, axis: ops.amax(x, axis, True),
          "minimum": lambda x, axis: ops.amin(x, axis, True),
          "mean": lambda x, axis: ops.mean(x, axis, True)}


def _pairs(values, ndim: int, name: str) -> tuple[tuple, ...]:
    """``values`` (a number, ``(v,)``, ``(before, after)``, ``((before, after),)`` or one pair
    per axis) as one ``(before, after)`` pair per axis."""
    if isinstance(values, Tensor):
        values = values.asnumpy().tolist()
    if not isinstance(values, (int, float, list, tuple, np.number)) or isinstance(values, bool):
        raise TypeError(f"mindspore.numpy.pad: {name} must be an int, a list, a tuple or a "
                        f"tensor, but got {type(values).__name__}")
    shape = np.shape(values)
    arr = np.asarray(values, dtype=object).reshape(shape)
    if shape in ((), (1,), (2,), (1, 2)):
        pair = tuple(np.broadcast_to(arr, (2,)).tolist()) if shape != (1, 2) else tuple(arr[0])
        return (pair,) * ndim
    if shape == (ndim, 2):
        return tuple(tuple(row) for row in arr.tolist())
    raise ValueError(f"mindspore.numpy.pad: {name} must broadcast to {(ndim, 2)}, but got "
                     f"shape {shape}")


def _part(x, axis: int, start: int, stop: int):
    return x[(slice(None),) * axis + (slice(start, stop),)]


def _block(x, axis: int, length: int, fill):
    """``x``'s shape with ``length`` along ``axis``, every element ``fill`` (in ``x``'s dtype)."""
    shape = list(x.shape)
    shape[axis] = length
    return ops.full(tuple(shape), fill, dtype=x.dtype)


def _join(before, x, after, axis: int):
    parts = [p for p in (before, x, after) if p is not None]
    return parts[0] if len(parts) == 1 else ops.concat(tuple(parts), axis)


def _constant(x, axis: int, before: int, after: int, values):
    return _join(_block(x, axis, before, values[0]) if before else None, x,
                 _block(x, axis, after, values[1]) if after else None, axis)


def _positions(mode: str, n: int, before: int, after: int) -> np.ndarray:
    """The original positions numpy's even modes read for padded positions ``-before ..
    n + after - 1``."""
    i = np.arange(-before, n + after)
    if mode == "edge":
        return np.clip(i, 0, n - 1)
    if mode == "wrap":
        return i % n
    if mode == "symmetric":
        j = i % (2 * n)
        return np.where(j >= n, 2 * n - 1 - j, j)
    if n == 1:  # reflect about a single element: repeat it
        return np.zeros_like(i)
    j = i % (2 * (n - 1))
    return np.where(j >= n, 2 * (n - 1) - j, j)


def _gathered(x, axis: int, before: int, after: int, mode: str):
    n = x.shape[axis]
    if n == 0:
        raise ValueError(f"mindspore.numpy.pad: cannot pad an empty axis in {mode!r} mode")
    index = const(_positions(mode, n, before, after).astype(np.int32))
    return ops.gather(x, index, axis)


def _odd_reflected(x, axis: int, before: int, after: int, symmetric: bool):
    """numpy's ``reflect_type='odd'``: each chunk is ``2 * edge - mirror`` about the current
    edge."""
    skip = 0 if symmetric else 1
    while before > 0 or after > 0:
        n = x.shape[axis]
        chunk = n - skip
        if chunk <= 0:  # one element: reflecting it repeats it
            return _gathered(x, axis, before, after, "edge")
        left = right = None
        if before:
            b = min(before, chunk)
            mirror = ops.flip(_part(x, axis, skip, skip + b), (axis,))
            left = ops.sub(ops.mul(_part(x, axis, 0, 1), 2), mirror)
            before -= b
        if after:
            a = min(after, chunk)
            mirror = ops.flip(_part(x, axis, n - skip - a, n - skip), (axis,))
            right = ops.sub(ops.mul(_part(x, axis, n - 1, n), 2), mirror)
            after -= a
        x = _join(left, x, right, axis)
    return x


def _statistic(x, axis: int, before: int, after: int, lengths, stat):
    n = x.shape[axis]
    lb, la = (n if v is None else min(int(v), n) for v in lengths)
    reps = [1] * x.ndim
    left = right = None
    if before:
        reps[axis] = before
        left = ops.tile(ops.cast(stat(_part(x, axis, 0, lb), axis), x.dtype), tuple(reps))
    if after:
        reps[axis] = after
        right = ops.tile(ops.cast(stat(_part(x, axis, n - la, n), axis), x.dtype), tuple(reps))
    return _join(left, x, right, axis)


def _ramp(x, axis: int, before: int, after: int, ends):
    """numpy's ``linear_ramp``: straight lines from ``ends`` to the edge values."""
    n = x.shape[axis]
    view = [1] * x.ndim

    def line(edge, end, length, towards_end: bool):
        view[axis] = length
        steps = np.arange(1, length + 1) if towards_end else np.arange(length)
        work = x.dtype.np_dtype if x.dtype.is_float else np.float32
        t = const((steps / length).astype(work).reshape(view))
        edge = ops.cast(edge, t.dtype)
        start, stop = (edge, end) if towards_end else (end, edge)
        return ops.cast(ops.add(start, ops.mul(ops.sub(stop, start), t)), x.dtype)

    left = line(_part(x, axis, 0, 1), float(ends[0]), before, False) if before else None
    right = line(_part(x, axis, n - 1, n), float(ends[1]), after, True) if after else None
    return _join(left, x, right, axis)


def pad(arr, pad_width, mode="constant", stat_length=None, constant_values=0, end_values=0,
        reflect_type="even", **kwargs):
    """``pad(arr, pad_width, mode='constant', stat_length=None, constant_values=0,
    end_values=0, reflect_type='even')``: numpy's padding modes ``constant``, ``edge``, ``wrap``,
    ``reflect``, ``symmetric`` (``reflect_type`` ``'even'`` or ``'odd'``), ``maximum``,
    ``minimum``, ``mean`` (over ``stat_length`` edge elements), ``linear_ramp`` (to
    ``end_values``) and ``empty`` (zeros here). A 0-d ``arr`` is returned as it is."""
    arr = to_tensor(arr, "mindspore.numpy.pad")
    if arr.ndim == 0:
        return arr
    widths = _pairs(pad_width, arr.ndim, "pad_width")
    if any(not isinstance(w, (int, np.integer)) or w < 0 for pair in widths for w in pair):
        raise ValueError(f"mindspore.numpy.pad: pad_width must be non-negative ints, but got "
                         f"{pad_width!r}")
    if callable(mode) or mode not in _MODES:
        raise ValueError(f"mindspore.numpy.pad: mode {mode!r} is not supported; expected one "
                         f"of {', '.join(_MODES)}")
    if mode == "median":
        raise NotImplementedError("mindspore.numpy.pad: 'median' mode is not supported")
    if reflect_type not in ("even", "odd"):
        raise ValueError(f"mindspore.numpy.pad: reflect_type must be 'even' or 'odd', but got "
                         f"{reflect_type!r}")
    if mode == "constant":
        values = _pairs(constant_values, arr.ndim, "constant_values")
    elif mode in _STATS:
        values = _pairs(stat_length, arr.ndim, "stat_length") if stat_length is not None \
            else ((None, None),) * arr.ndim
    elif mode == "linear_ramp":
        values = _pairs(end_values, arr.ndim, "end_values")
    x = arr
    for axis, (before, after) in enumerate(widths):
        before, after = int(before), int(after)
        if not before and not after:
            continue
        if mode in ("constant", "empty"):
            x = _constant(x, axis, before, after, values[axis] if mode == "constant" else (0, 0))
        elif mode in ("reflect", "symmetric") and reflect_type == "odd":
            x = _odd_reflected(x, axis, before, after, mode == "symmetric")
        elif mode in ("edge", "wrap", "reflect", "symmetric"):
            x = _gathered(x, axis, before, after, mode)
        elif mode in _STATS:
            x = _statistic(x, axis, before, after, values[axis], _STATS[mode])
        else:
            x = _ramp(x, axis, before, after, values[axis])
    return x
