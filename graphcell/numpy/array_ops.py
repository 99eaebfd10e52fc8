"""``mindspore.numpy.array_ops``: reshaping, joining, splitting, indexing, with numpy's signatures.

Thin spellings of ``graphcell.ops`` (``reshape``, ``transpose``, ``concat``, ``gather``,
``gather_d``, ``select``...). Joining promotes the inputs to one dtype, as mindspore.numpy does.
``unique``, ``argwhere`` and ``intersect1d`` return as many elements as the data hold, so they run
in PyNative mode; graph mode refuses them at the user's line.

Example::

    >>> import graphcell as ms
    >>> import graphcell.numpy as mnp
    >>> x = mnp.arange(6).reshape(2, 3)
    >>> [t.shape for t in mnp.split(x, 3, axis=1)], mnp.concatenate((x, x), axis=None).shape
    ([(2, 1), (2, 1), (2, 1)], (12,))
"""
from __future__ import annotations

import numpy as np

from graphcell import ops
from graphcell.numpy.utils import (axes_arg, axis_arg, cast, check_tensor, promote_all,
                                   to_tensor, to_tensors)
from graphcell.ops.function._array_utils import const
from graphcell.tensor import Tensor
from graphcell_ir.ir.types import bool_, int32

__all__ = ["transpose", "expand_dims", "squeeze", "rollaxis", "swapaxes", "reshape", "ravel",
           "concatenate", "append", "column_stack", "hstack", "vstack", "dstack", "stack", "where",
           "atleast_1d", "atleast_2d", "atleast_3d", "unique", "moveaxis", "tile", "broadcast_to",
           "broadcast_arrays", "roll", "split", "array_split", "vsplit", "hsplit", "dsplit",
           "flip", "flipud", "fliplr", "take_along_axis", "take", "repeat", "rot90", "select",
           "choose", "size", "array_str", "apply_along_axis", "apply_over_axes", "piecewise",
           "unravel_index", "argwhere", "intersect1d"]

_FN = "mindspore.numpy"


def _int(v, fn: str, name: str) -> int:
    if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, np.integer)):
        raise TypeError(f"{_FN}.{fn}: {name} must be an int, but got {v!r}")
    return int(v)


def _along(axis: int, part) -> tuple:
    return (slice(None),) * axis + (part,)


# --- shapes ------------------------------------------------------------------------------------

def transpose(a, axes=None):
    """``transpose(a, axes=None)``: axes reversed, or permuted as ``axes`` says."""
    check_tensor(a, fn=f"{_FN}.transpose")
    perm = tuple(range(a.ndim))[::-1] if axes is None else axes_arg(axes, a.ndim,
                                                                     f"{_FN}.transpose")
    if len(perm) != a.ndim:
        raise ValueError(f"{_FN}.transpose: axes {axes!r} don't match a tensor of rank {a.ndim}")
    return ops.transpose(a, perm)


def expand_dims(a, axis):
    """``expand_dims(a, axis)``: unit axes inserted at ``axis`` (an int or a tuple of ints,
    positions in the result)."""
    check_tensor(a, fn=f"{_FN}.expand_dims")
    if not isinstance(axis, (int, tuple, list)) or isinstance(axis, bool):
        raise TypeError(f"{_FN}.expand_dims: axis must be an int, tuple or list, but got "
                        f"{axis!r}")
    items = (axis,) if isinstance(axis, int) else tuple(axis)
    positions = axes_arg(items, a.ndim + len(items), f"{_FN}.expand_dims")
    shape = iter(a.shape)
    return ops.reshape(a, tuple(1 if i in positions else next(shape)
                                for i in range(a.ndim + len(items))))


def squeeze(a, axis=None):
    """``squeeze(a, axis=None)``: unit axes removed (of ``axis`` only; as in mindspore.numpy, an
    axis of ``axis`` whose size is not 1 is kept, where numpy raises)."""
    check_tensor(a, fn=f"{_FN}.squeeze")
    if axis is None:
        return ops.squeeze(a)
    return ops.squeeze(a, axes_arg(axis, a.ndim, f"{_FN}.squeeze"))


def rollaxis(x, axis, start=0):
    """``rollaxis(x, axis, start=0)``: axis ``axis`` moved to just before position ``start``."""
    check_tensor(x, fn=f"{_FN}.rollaxis")
    axis, start = _int(axis, "rollaxis", "axis"), _int(start, "rollaxis", "start")
    axis = axis_arg(axis, x.ndim, f"{_FN}.rollaxis")
    if not -x.ndim <= start <= x.ndim:
        raise ValueError(f"{_FN}.rollaxis: start {start} is out of range for rank {x.ndim}")
    start %= x.ndim + 1
    if axis < start:
        start -= 1
    if axis == start:
        return x
    perm = [i for i in range(x.ndim) if i != axis]
    perm.insert(start, axis)
    return ops.transpose(x, tuple(perm))


def swapaxes(x, axis1, axis2):
    """``swapaxes(x, axis1, axis2)``."""
    check_tensor(x, fn=f"{_FN}.swapaxes")
    return ops.swapaxes(x, axis1, axis2)


def moveaxis(a, source, destination):
    """``moveaxis(a, source, destination)``: axes moved to new positions, the others keeping
    their order."""
    check_tensor(a, fn=f"{_FN}.moveaxis")
    src = axes_arg(source, a.ndim, f"{_FN}.moveaxis")
    dst = axes_arg(destination, a.ndim, f"{_FN}.moveaxis")
    if len(src) != len(dst):
        raise ValueError(f"{_FN}.moveaxis: source and destination must have the same number of "
                         "elements")
    rest = iter(i for i in range(a.ndim) if i not in src)
    placed = dict(zip(dst, src))
    return ops.transpose(a, tuple(placed[i] if i in placed else next(rest)
                                  for i in range(a.ndim)))


def reshape(x, new_shape):
    """``reshape(x, new_shape)``: an int or a tuple/list (one -1 allowed)."""
    check_tensor(x, fn=f"{_FN}.reshape")
    shape = (new_shape,) if isinstance(new_shape, (int, np.integer)) else tuple(new_shape)
    return ops.reshape(x, shape)


def ravel(x):
    """``ravel(x)``: ``x`` flattened to 1-D."""
    check_tensor(x, fn=f"{_FN}.ravel")
    return ops.reshape(x, (-1,))


def atleast_1d(*arys):
    """``atleast_1d(*arys)``: each tensor with at least one axis (one tensor, or a list)."""
    return _at_least(arys, 1, "atleast_1d")


def atleast_2d(*arys):
    """``atleast_2d(*arys)``: leading unit axes added up to two."""
    return _at_least(arys, 2, "atleast_2d")


def atleast_3d(*arys):
    """``atleast_3d(*arys)``: 0-d as (1, 1, 1), 1-D ``(n,)`` as (1, n, 1), 2-D with a trailing
    unit axis."""
    return _at_least(arys, 3, "atleast_3d")


def _at_least(arys, ndim: int, fn: str):
    check_tensor(*arys, fn=f"{_FN}.{fn}")
    out = [a if a.ndim >= ndim else ops.reshape(a, _padded_shape(tuple(a.shape), ndim))
           for a in arys]
    return out[0] if len(out) == 1 else out


def _padded_shape(shape: tuple, ndim: int) -> tuple:
    if ndim == 3 and len(shape) == 1:
        return (1, shape[0], 1)
    if ndim == 3 and len(shape) == 2:
        return shape + (1,)
    return (1,) * (ndim - len(shape)) + shape


def broadcast_to(array, shape):
    """``broadcast_to(array, shape)``."""
    array = to_tensor(array, f"{_FN}.broadcast_to")
    shape = (shape,) if isinstance(shape, (int, np.integer)) else tuple(shape)
    try:
        np.broadcast_shapes(tuple(array.shape), shape)
        fits = len(array.shape) <= len(shape) and all(
            s in (1, t) for s, t in zip(array.shape[::-1], shape[::-1]))
    except ValueError:
        fits = False
    if not fits:
        raise ValueError(f"{_FN}.broadcast_to: cannot broadcast a tensor of shape "
                         f"{list(array.shape)} to {list(shape)}")
    return ops.broadcast_to(array, shape)


def broadcast_arrays(*args):
    """``broadcast_arrays(*args)``: the tensors broadcast to their common shape (a list)."""
    tensors = to_tensors(*args, fn=f"{_FN}.broadcast_arrays")
    shape = _common_shape(tensors, "broadcast_arrays")
    return [ops.broadcast_to(t, shape) for t in tensors]


def _common_shape(tensors, fn: str) -> tuple:
    try:
        return tuple(np.broadcast_shapes(*(tuple(t.shape) for t in tensors)))
    except ValueError:
        raise ValueError(f"{_FN}.{fn}: shapes {[list(t.shape) for t in tensors]} cannot be "
                         "broadcast together") from None


def tile(a, reps):
    """``tile(a, reps)``: ``a`` repeated ``reps`` times along each axis (leading axes added when
    ``reps`` is longer)."""
    check_tensor(a, fn=f"{_FN}.tile")
    reps = (reps,) if isinstance(reps, (int, np.integer)) else tuple(reps)
    reps = (1,) * (a.ndim - len(reps)) + reps
    return ops.tile(a, reps)


# --- joining -----------------------------------------------------------------------------------

def _same_dtype(tensors):
    dtype = promote_all([t.dtype for t in tensors])
    return [cast(t, dtype) for t in tensors]


def _concat(tensors, axis: int):
    tensors = _same_dtype(list(tensors))
    return tensors[0] if len(tensors) == 1 else ops.concat(tuple(tensors), axis)


def concatenate(arrays, axis=0):
    """``concatenate(arrays, axis=0)``: joined along ``axis`` (None: flattened first); the dtypes
    are promoted to one. A tensor is read as the sequence of its slices along axis 0."""
    if arrays is None:
        raise TypeError(f"{_FN}.concatenate: expected a tensor or a tuple/list of tensors, but "
                        "got None")
    if isinstance(arrays, Tensor):
        if axis is None:
            return ravel(arrays)
        axis = axis_arg(axis, arrays.ndim - 1, f"{_FN}.concatenate") + 1
        moved = moveaxis(arrays, 0, axis - 1)
        shape = list(arrays.shape[1:])
        shape[axis - 1] *= arrays.shape[0]
        return ops.reshape(moved, tuple(shape))
    tensors = list(to_tensors(*arrays, fn=f"{_FN}.concatenate"))
    if not tensors:
        raise ValueError(f"{_FN}.concatenate: need at least one array to concatenate")
    if axis is None:
        return _concat([ravel(t) for t in tensors], 0)
    return _concat(tensors, axis_arg(axis, tensors[0].ndim, f"{_FN}.concatenate"))


def append(arr, values, axis=None):
    """``append(arr, values, axis=None)``: ``values`` added after ``arr`` along ``axis`` (None:
    both flattened)."""
    check_tensor(arr, values, fn=f"{_FN}.append")
    if axis is None:
        return _concat([ravel(arr), ravel(values)], 0)
    if arr.ndim != values.ndim:
        raise ValueError(f"{_FN}.append: all tensors must have the same number of dimensions")
    return _concat([arr, values], axis_arg(axis, arr.ndim, f"{_FN}.append"))


def _sequence(tup, fn: str) -> list:
    if not isinstance(tup, (list, tuple)):
        raise TypeError(f"{_FN}.{fn}: expected a tensor, or a list or tuple of tensors, but got "
                        f"{type(tup).__name__}")
    if not tup:
        raise ValueError(f"{_FN}.{fn}: need at least one tensor to concatenate")
    return list(to_tensors(*tup, fn=f"{_FN}.{fn}"))


def column_stack(tup):
    """``column_stack(tup)``: 1-D tensors as columns of a 2-D tensor (others joined on axis 1)."""
    if isinstance(tup, Tensor):
        return tup
    parts = [ops.reshape(t, (-1, 1)) if t.ndim < 2 else t for t in _sequence(tup, "column_stack")]
    return _concat(parts, 1)


def hstack(tup):
    """``hstack(tup)``: joined along axis 1 (axis 0 for 1-D tensors)."""
    if isinstance(tup, Tensor):
        return tup
    parts = [ops.reshape(t, (1,)) if t.ndim == 0 else t for t in _sequence(tup, "hstack")]
    return _concat(parts, 0 if parts[0].ndim == 1 else 1)


def vstack(tup):
    """``vstack(tup)``: joined along axis 0, 1-D tensors as rows."""
    if isinstance(tup, Tensor):
        return tup
    parts = [ops.reshape(t, _padded_shape(tuple(t.shape), 2)) if t.ndim < 2 else t
             for t in _sequence(tup, "vstack")]
    return _concat(parts, 0)


def dstack(tup):
    """``dstack(tup)``: joined along axis 2 (``(n,)`` as ``(1, n, 1)``, ``(m, n)`` as
    ``(m, n, 1)``)."""
    if isinstance(tup, Tensor):
        return tup
    parts = [ops.reshape(t, _padded_shape(tuple(t.shape), 3)) if t.ndim < 3 else t
             for t in _sequence(tup, "dstack")]
    return _concat(parts, 2)


def stack(arrays, axis=0):
    """``stack(arrays, axis=0)``: joined along a new axis (a tensor is read as the sequence of
    its slices along axis 0)."""
    if isinstance(arrays, Tensor):
        return moveaxis(arrays, 0, axis_arg(axis, arrays.ndim, f"{_FN}.stack"))
    if not isinstance(arrays, (list, tuple)):
        raise ValueError(f"{_FN}.stack: input arrays must be a Tensor, tuple or list")
    tensors = _same_dtype(list(to_tensors(*arrays, fn=f"{_FN}.stack")))
    return ops.stack(tuple(tensors), axis_arg(axis, tensors[0].ndim + 1, f"{_FN}.stack"))


# --- choosing ----------------------------------------------------------------------------------

def where(condition, x=None, y=None):
    """``where(condition, x, y)``: ``x`` where ``condition`` holds, else ``y`` (broadcast; dtypes
    promoted). The one-argument form (numpy's ``nonzero``) is refused, as in mindspore.numpy."""
    if x is None or y is None:
        raise TypeError(f"{_FN}.where: x and y must both be given (the one-argument form is not "
                        "supported)")
    condition, x, y = to_tensors(condition, x, y, fn=f"{_FN}.where")
    x, y = _same_dtype([x, y])
    shape = _common_shape((condition, x, y), "where")
    condition = cast(ops.broadcast_to(condition, shape), bool_)
    return ops.select(condition, ops.broadcast_to(x, shape), ops.broadcast_to(y, shape))


def select(condlist, choicelist, default=0):
    """``select(condlist, choicelist, default=0)``: from each position, the choice of the first
    condition that holds there, else ``default``; in the choices' dtype."""
    conds, choices = to_tensors(condlist, choicelist, fn=f"{_FN}.select")
    if conds.ndim == 0 or choices.ndim == 0:
        raise ValueError(f"{_FN}.select: condlist and choicelist cannot be scalars")
    if conds.shape[0] != choices.shape[0]:
        raise ValueError(f"{_FN}.select: list of cases must be same length as list of conditions")
    shape = _common_shape((conds[0], choices[0]), "select")
    out = ops.broadcast_to(cast(to_tensor(default), choices.dtype), shape)
    for i in range(conds.shape[0] - 1, -1, -1):
        out = ops.select(ops.broadcast_to(cast(conds[i], bool_), shape),
                         ops.broadcast_to(choices[i], shape), out)
    return out


def piecewise(x, condlist, funclist, *args, **kw):
    """``piecewise(x, condlist, funclist, *args, **kw)``: ``funclist[i]`` (a function of ``x``,
    or a value) where ``condlist[i]`` holds; an extra last entry is the default."""
    x = to_tensor(x, f"{_FN}.piecewise")
    if isinstance(funclist, (tuple, list)) and funclist and \
            not isinstance(funclist[0], (Tensor, bool, int, float, list, tuple)):
        for f in funclist:
            _check_callable(f, "piecewise", "every entry of funclist")
        funclist = [f(x, *args, **kw) for f in funclist]
    conds = _stacked(condlist)
    choices = _stacked(funclist)
    n = conds.shape[0]
    default = 0
    if choices.shape[0] == n + 1:
        default, choices = choices[n], choices[:n]
    elif choices.shape[0] != n:
        raise ValueError(f"{_FN}.piecewise: with {n} condition(s), funclist must have {n} or "
                         f"{n + 1} entries")
    return select(conds, choices, default)


def _check_callable(fn, fn_name: str, name: str) -> None:
    """A function argument must be a Python callable: in graph mode, a ``lambda`` or ``def``
    written inside the compiled function is the compiler's own object, which library code cannot
    call."""
    if not callable(fn):
        raise TypeError(f"{_FN}.{fn_name}: {name} must be a function; in graph mode pass one "
                        "defined outside the compiled function (a lambda or def written inside "
                        "it cannot be called by library code)")


def _stacked(items):
    if isinstance(items, (tuple, list)):
        return stack([to_tensor(i) for i in items])
    return atleast_1d(to_tensor(items))


def choose(a, choices, mode="clip"):
    """``choose(a, choices, mode='clip')``: ``choices[a[i]][i]`` at each position; indices out of
    range are clipped (``'clip'``) or wrapped (``'wrap'``)."""
    a = to_tensor(a, f"{_FN}.choose")
    if not a.dtype.is_int:
        raise ValueError(f"{_FN}.choose: a must be an integer tensor, but got {a.dtype}")
    if isinstance(choices, (tuple, list)):
        parts = list(to_tensors(*choices))
        shape = _common_shape((a, *parts), "choose")
        table = ops.stack(tuple(ops.broadcast_to(c, shape) for c in _same_dtype(parts)), 0)
    else:
        table = to_tensor(choices)
        shape = _common_shape((a, table[0]), "choose")
        table = ops.broadcast_to(table, (table.shape[0],) + shape)
    if a.ndim == 0 or table.ndim == 0:
        raise ValueError(f"{_FN}.choose: inputs cannot be scalars")
    n = table.shape[0]
    index = cast(ops.broadcast_to(a, shape), int32)
    if mode == "clip":
        index = ops.clip(index, 0, n - 1)
    elif mode == "wrap":
        index = ops.remainder(index, n)
    elif mode == "raise":
        raise NotImplementedError(f"{_FN}.choose: 'raise' mode is not supported")
    else:
        raise ValueError(f"{_FN}.choose: invalid mode {mode!r}; expected 'raise', 'wrap' or "
                         "'clip'")
    return ops.squeeze(ops.gather_d(table, 0, ops.expand_dims(index, 0)), 0)


# --- splitting ---------------------------------------------------------------------------------

def _split(x, indices_or_sections, axis, fn: str, even: bool):
    check_tensor(x, fn=f"{_FN}.{fn}")
    axis = axis_arg(axis, x.ndim, f"{_FN}.{fn}")
    n = x.shape[axis]
    if isinstance(indices_or_sections, (int, np.integer)) and \
            not isinstance(indices_or_sections, bool):
        parts = int(indices_or_sections)
        if parts <= 0 or parts > n:
            raise ValueError(f"{_FN}.{fn}: cannot split an axis of length {n} into {parts} "
                             "non-empty parts")
        if even and n % parts:
            raise ValueError(f"{_FN}.{fn}: array split does not result in an equal division "
                             f"({n} into {parts})")
        size, extra = divmod(n, parts)
        bounds = np.cumsum([0] + [size + (i < extra) for i in range(parts)])
        return tuple(x[_along(axis, slice(int(b), int(e)))]
                     for b, e in zip(bounds[:-1], bounds[1:]))
    if isinstance(indices_or_sections, (list, tuple)) and all(
            isinstance(i, (int, np.integer)) and not isinstance(i, bool)
            for i in indices_or_sections):
        bounds = [0] + [int(i) + n if i < 0 else int(i) for i in indices_or_sections] + [n]
        out = []
        for b, e in zip(bounds[:-1], bounds[1:]):
            if e <= b:
                raise ValueError(f"{_FN}.{fn}: empty sub-tensor encountered (indices "
                                 f"{list(indices_or_sections)} on an axis of length {n})")
            out.append(x[_along(axis, slice(b, e))])
        return out
    raise TypeError(f"{_FN}.{fn}: indices_or_sections must be an int or a tuple/list of ints, "
                    f"but got {indices_or_sections!r}")


def split(x, indices_or_sections, axis=0):
    """``split(x, indices_or_sections, axis=0)``: into equal parts (a tuple), or at the given
    indices (a list)."""
    return _split(x, indices_or_sections, axis, "split", even=True)


def array_split(x, indices_or_sections, axis=0):
    """``array_split(x, indices_or_sections, axis=0)``: like :func:`split`; a count that does
    not divide the axis makes the first parts one longer."""
    return _split(x, indices_or_sections, axis, "array_split", even=False)


def vsplit(x, indices_or_sections):
    """``vsplit(x, indices_or_sections)``: :func:`split` along axis 0."""
    return split(x, indices_or_sections, 0)


def hsplit(x, indices_or_sections):
    """``hsplit(x, indices_or_sections)``: :func:`split` along axis 1."""
    return split(x, indices_or_sections, 1)


def dsplit(x, indices_or_sections):
    """``dsplit(x, indices_or_sections)``: :func:`split` along axis 2."""
    return split(x, indices_or_sections, 2)


# --- reordering --------------------------------------------------------------------------------

def flip(m, axis=None):
    """``flip(m, axis=None)``: the order of elements reversed along ``axis`` (None: every axis)."""
    check_tensor(m, fn=f"{_FN}.flip")
    axes = axes_arg(axis, m.ndim, f"{_FN}.flip")
    return ops.flip(m, axes) if axes and m.size else m


def flipud(m):
    """``flipud(m)``: :func:`flip` along axis 0."""
    return flip(m, 0)


def fliplr(m):
    """``fliplr(m)``: :func:`flip` along axis 1."""
    return flip(m, 1)


def roll(a, shift, axis=None):
    """``roll(a, shift, axis=None)``: elements shifted cyclically (None: over the flattened
    tensor); ``shift`` and ``axis`` may be tuples."""
    check_tensor(a, fn=f"{_FN}.roll")
    if axis is None:
        return ops.reshape(ops.roll(ops.reshape(a, (-1,)), shift, 0), tuple(a.shape))
    shifts = shift if isinstance(shift, (tuple, list)) else (shift,)
    axes = axis if isinstance(axis, (tuple, list)) else (axis,)
    shifts, axes = np.broadcast_arrays(np.asarray(shifts), np.asarray(axes))
    out = a
    for s, ax in zip(shifts.tolist(), axes.tolist()):
        ax = axis_arg(ax, a.ndim, f"{_FN}.roll")
        out = ops.roll(out, int(s), ax)
    return out


def rot90(a, k=1, axes=(0, 1)):
    """``rot90(a, k=1, axes=(0, 1))``: rotated by 90 degrees ``k`` times, from the first axis
    towards the second."""
    check_tensor(a, fn=f"{_FN}.rot90")
    k = _int(k, "rot90", "k")
    if not isinstance(axes, (tuple, list)) or len(axes) != 2:
        raise ValueError(f"{_FN}.rot90: axes must be two ints, but got {axes!r}")
    a1, a2 = (axis_arg(ax, a.ndim, f"{_FN}.rot90") for ax in axes)
    if a1 == a2:
        raise ValueError(f"{_FN}.rot90: axes must be different")
    return ops.rot90(a, k % 4, (a1, a2)) if k % 4 else a


# --- gathering ---------------------------------------------------------------------------------

def take_along_axis(arr, indices, axis):
    """``take_along_axis(arr, indices, axis)``: elements picked by ``indices`` along ``axis``
    (the other axes broadcast); None reads the flattened ``arr``."""
    check_tensor(arr, indices, fn=f"{_FN}.take_along_axis")
    if axis is None:
        arr, axis = ravel(arr), 0
    if arr.ndim != indices.ndim:
        raise ValueError(f"{_FN}.take_along_axis: indices and arr must have the same number of "
                         "dimensions")
    axis = axis_arg(axis, arr.ndim, f"{_FN}.take_along_axis")
    try:
        others = np.broadcast_shapes(_without(arr.shape, axis), _without(indices.shape, axis))
    except ValueError:
        raise ValueError(f"{_FN}.take_along_axis: the shapes {list(arr.shape)} and "
                         f"{list(indices.shape)} do not broadcast outside axis {axis}") from None
    index_shape, arr_shape = list(others), list(others)
    index_shape.insert(axis, indices.shape[axis])
    arr_shape.insert(axis, arr.shape[axis])
    return ops.gather_d(ops.broadcast_to(arr, tuple(arr_shape)), axis,
                        ops.broadcast_to(indices, tuple(index_shape)))


def _without(shape, axis: int) -> tuple:
    return tuple(s for i, s in enumerate(shape) if i != axis)


def take(a, indices, axis=None, mode="clip"):
    """``take(a, indices, axis=None, mode='clip')``: elements at ``indices`` along ``axis``
    (None: of the flattened tensor); out-of-range indices are clipped or wrapped."""
    check_tensor(a, indices, fn=f"{_FN}.take")
    return a.take(indices, axis, mode)


def repeat(a, repeats, axis=None):
    """``repeat(a, repeats, axis=None)``: each element repeated (None: of the flattened tensor);
    ``repeats`` is an int or one count per element."""
    a = to_tensor(a, f"{_FN}.repeat")
    if isinstance(repeats, (list, tuple)):
        repeats = const(np.asarray(repeats, np.int64))
    return ops.repeat_interleave(a, repeats, axis)


def unravel_index(indices, shape, order="C"):
    """``unravel_index(indices, shape, order='C')``: flat indices as a tuple of coordinate
    tensors (out-of-range indices are clipped into ``[-size, size)``)."""
    indices = to_tensor(indices, f"{_FN}.unravel_index")
    if order not in ("C", "F"):
        raise ValueError(f"{_FN}.unravel_index: invalid order {order!r}; expected 'C' or 'F'")
    shape = (shape,) if isinstance(shape, (int, np.integer)) else tuple(int(s) for s in shape)
    dims = shape if order == "C" else shape[::-1]
    strides = [int(np.prod(dims[i + 1:])) for i in range(len(dims))]
    size = int(np.prod(shape))
    flat = ops.clip(indices, -size, size - 1)
    flat = ops.remainder(flat, size)
    coords = tuple(ops.floor_divide(ops.remainder(flat, s * d), s)
                   for s, d in zip(strides, dims))
    if order == "F":
        coords = coords[::-1]
    if indices.ndim == 0 and len(coords) == 1:
        return ops.reshape(coords[0], (1,))
    return coords


# --- functions over slices ---------------------------------------------------------------------

def apply_along_axis(func1d, axis, arr, *args, **kwargs):
    """``apply_along_axis(func1d, axis, arr, *args, **kwargs)``: ``func1d`` on every 1-D slice
    along ``axis``; its results take the place of that axis."""
    _check_callable(func1d, "apply_along_axis", "func1d")
    arr = to_tensor(arr, f"{_FN}.apply_along_axis")
    axis = axis_arg(axis, arr.ndim, f"{_FN}.apply_along_axis")
    rest = tuple(s for i, s in enumerate(arr.shape) if i != axis)
    rows = ops.reshape(moveaxis(arr, axis, -1), (-1, arr.shape[axis]))
    results = ops.stack(tuple(to_tensor(func1d(rows[i], *args, **kwargs))
                              for i in range(rows.shape[0])), 0)
    out = ops.reshape(results, rest + tuple(results.shape[1:]))
    extra = out.ndim - len(rest)
    if extra:
        out = moveaxis(out, tuple(range(len(rest), out.ndim)), tuple(range(axis, axis + extra)))
    return out


def apply_over_axes(func, a, axes):
    """``apply_over_axes(func, a, axes)``: ``func(a, axis)`` applied for each axis in turn,
    keeping the rank (a reduced axis is put back with size 1)."""
    _check_callable(func, "apply_over_axes", "func")
    a = to_tensor(a, f"{_FN}.apply_over_axes")
    res = a
    for axis in ((axes,) if isinstance(axes, int) else axes):
        res = func(res, axis=axis)
        if res.ndim != a.ndim:
            res = ops.expand_dims(res, axis)
        if res.ndim != a.ndim:
            raise ValueError(f"{_FN}.apply_over_axes: function is not returning a tensor of the "
                             "correct shape")
    return res


# --- small queries -----------------------------------------------------------------------------

def size(a, axis=None):
    """``size(a, axis=None)``: the number of elements (along ``axis``), a Python int."""
    a = to_tensor(a, f"{_FN}.size")
    if axis is None:
        return a.size
    return a.shape[axis_arg(axis, a.ndim, f"{_FN}.size")]


def array_str(a):
    """``array_str(a)``: the tensor's values as numpy prints them (PyNative only)."""
    check_tensor(a, fn=f"{_FN}.array_str")
    return str(a)


# --- data-dependent shapes (PyNative only) -----------------------------------------------------

def unique(x, return_inverse=False):
    """``unique(x, return_inverse=False)``: the distinct values of the flattened ``x`` in order of
    first appearance (mindspore.numpy's order; numpy sorts them), and with ``return_inverse``
    the index of each element's value. PyNative only."""
    check_tensor(x, fn=f"{_FN}.unique")
    values, inverse = ops.unique(ravel(x) if x.ndim > 1 else x)
    return (values, inverse) if return_inverse else values


def argwhere(a):
    """``argwhere(a)``: the indices of the non-zero elements, one row each (Int64). PyNative
    only."""
    return ops.argwhere(to_tensor(a, f"{_FN}.argwhere"))


def intersect1d(ar1, ar2, assume_unique=False, return_indices=False):
    """``intersect1d(ar1, ar2, assume_unique=False, return_indices=False)``: the sorted values in
    both; with ``return_indices`` also where each first appears in ``ar1`` and ``ar2``.
    PyNative only."""
    if not isinstance(assume_unique, (bool, np.bool_)) or \
            not isinstance(return_indices, (bool, np.bool_)):
        raise TypeError(f"{_FN}.intersect1d: assume_unique and return_indices must be bools")
    ar1, ar2 = (ravel(t) for t in to_tensors(ar1, ar2, fn=f"{_FN}.intersect1d"))
    (v1, i1), (v2, i2) = _distinct(ar1, assume_unique), _distinct(ar2, assume_unique)
    both = _concat([v1, v2], 0)
    values, order = ops.sort(both)
    order = cast(order, int32)
    same = ops.equal(values[1:], values[:-1])
    res = ops.masked_select(values[1:], same)
    if not return_indices:
        return res
    first = ops.masked_select(order[:-1], same)
    second = ops.sub(ops.masked_select(order[1:], same), v1.shape[0])
    return res, ops.gather(i1, first, 0), ops.gather(i2, second, 0)


def _distinct(t, assume_unique: bool):
    """``t``'s sorted distinct values and where each first appears."""
    if assume_unique:
        return t, ops.arange(0, t.shape[0], 1, dtype=int32)
    values, order = ops.sort(t)
    order = cast(order, int32)
    if t.shape[0] < 2:
        return values, order
    keep = _concat([to_tensor([True]), ops.not_equal(values[1:], values[:-1])], 0)
    return ops.masked_select(values, keep), ops.masked_select(order, keep)
