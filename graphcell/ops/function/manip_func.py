"""Slicing, flipping, rolling, tiling and repeating tensors with MindSpore 2.10's signatures:
``slice``/``strided_slice``/``narrow``, ``flip``/``reverse``/``roll``/``rot90``, ``tile``/
``repeat_interleave``/``repeat_elements``, ``reverse_sequence``, ``InvertPermutation`` and
``Tensor.choose``.

All are compositions of the layout primitives (static ``getitem`` keys, ``concat``, ``reshape``,
``broadcast_to``, ``take``), so they differentiate through them and work in graph mode; only a
tensor of per-element repeat counts (whose values decide the output's length) needs PyNative.

Example::

    >>> import graphcell as ms
    >>> from graphcell import ops
    >>> x = ms.Tensor([[1, 2, 3], [4, 5, 6]])
    >>> ops.roll(x, 1, 1).asnumpy().tolist(), ops.tile(x, (1, 2)).shape
    ([[3, 1, 2], [6, 4, 5]], (2, 6))
"""
from __future__ import annotations

import builtins
import math

import numpy as np

from graphcell.ops._faces import overload
from graphcell.ops.function._array_utils import (check_dim, check_dims, check_int, check_ints,
                                                 check_rank, check_tensor, const, index,
                                                 ints_of, is_int, join, part, swap)
from graphcell.ops.primitive import primitive
from graphcell.tensor import Tensor
from graphcell_ir.ir.types import int64
from graphcell_ir.ops import functional as F
from graphcell_ir.ops.shape_rules import broadcast_shapes

__all__ = ["slice", "tensor_slice", "strided_slice", "narrow", "flip", "fliplr", "flipud",
           "reverse", "roll", "rot90", "tile", "repeat_interleave", "repeat_elements",
           "reverse_sequence",
           "Slice", "StridedSlice", "ReverseV2", "Roll", "Tile", "ReverseSequence",
           "InvertPermutation"]

_py_slice = builtins.slice  # this module's ``slice`` is MindSpore's


# --- slicing -------------------------------------------------------------------------------------

def slice(input_x, begin, size):  # noqa: A001 - MindSpore's name
    """``ops.slice(input_x, begin, size)``: ``size[i]`` elements from ``begin[i]`` in each dim
    (``size[i] = -1``: to the end)."""
    fn = "ops.slice"
    check_tensor(input_x, fn, "input_x")
    begin, size = ints_of(begin, fn, "begin"), ints_of(size, fn, "size")
    if not len(begin) == len(size) == input_x.ndim:
        raise ValueError(f"{fn}: 'begin' {begin} and 'size' {size} must have one entry per dim "
                         f"of the input of shape {list(input_x.shape)}")
    key = []
    for d, (b, s, n) in enumerate(zip(begin, size, input_x.shape)):
        stop = n if s == -1 else b + s
        if b < 0 or s < -1 or stop > n:
            raise ValueError(f"{fn}: begin {b} and size {s} do not fit dim {d} of size {n}")
        key.append(_py_slice(b, stop))
    return F.getitem(input_x, key=tuple(key))


def tensor_slice(input, begin, size):  # noqa: A002
    """``ops.tensor_slice(input, begin, size)``: :func:`slice`."""
    return slice(input, begin, size)


def _bits(mask: int, n: int) -> list[bool]:
    return [bool(mask >> i & 1) for i in range(n)]


def strided_slice(input_x, begin, end, strides, begin_mask=0, end_mask=0, ellipsis_mask=0,
                  new_axis_mask=0, shrink_axis_mask=0):
    """``ops.strided_slice(input_x, begin, end, strides, begin_mask=0, end_mask=0,
    ellipsis_mask=0, new_axis_mask=0, shrink_axis_mask=0)``: ``x[begin:end:strides]`` per dim,
    as TensorFlow's StridedSlice: bit ``i`` of a mask applies to entry ``i`` (``begin_mask``/
    ``end_mask``: from the start / to the end; ``ellipsis_mask``: ``...``; ``new_axis_mask``: a
    new dim; ``shrink_axis_mask``: index ``begin[i]``, dropping the dim); dims past the entries
    are taken whole."""
    fn = "ops.strided_slice"
    check_tensor(input_x, fn, "input_x")
    begin, end, strides = (ints_of(v, fn, n) for v, n in
                           ((begin, "begin"), (end, "end"), (strides, "strides")))
    if not len(begin) == len(end) == len(strides):
        raise ValueError(f"{fn}: 'begin', 'end' and 'strides' must have the same length, but got "
                         f"{begin}, {end}, {strides}")
    if 0 in strides:
        raise ValueError(f"{fn}: 'strides' cannot contain 0, but got {strides}")
    n = len(begin)
    masks = [_bits(check_int(m, fn, name), n) for m, name in (
        (begin_mask, "begin_mask"), (end_mask, "end_mask"), (ellipsis_mask, "ellipsis_mask"),
        (new_axis_mask, "new_axis_mask"), (shrink_axis_mask, "shrink_axis_mask"))]
    key, seen_ellipsis = [], False
    for i in range(n):
        bm, em, ell, new, shrink = (m[i] for m in masks)
        if ell and not seen_ellipsis:
            key.append(Ellipsis)
            seen_ellipsis = True
        elif new:
            key.append(None)
        elif shrink:
            key.append(begin[i])
        else:
            key.append(_py_slice(None if bm else begin[i], None if em else end[i], strides[i]))
    return F.getitem(input_x, key=tuple(key))


def _strided_slice_primitive(input_x, begin, end, strides, *, begin_mask=0, end_mask=0,
                             ellipsis_mask=0, new_axis_mask=0, shrink_axis_mask=0):
    return strided_slice(input_x, begin, end, strides, begin_mask, end_mask, ellipsis_mask,
                         new_axis_mask, shrink_axis_mask)


def narrow(input, axis, start, length):  # noqa: A002
    """``ops.narrow(input, axis, start, length)``: ``length`` (at least 1) elements of ``axis``
    from ``start`` (which must be non-negative)."""
    fn = "ops.narrow"
    check_tensor(input, fn)
    axis = check_dim(axis, input.ndim, fn, "axis")
    start, length = check_int(start, fn, "start"), check_int(length, fn, "length")
    n = input.shape[axis]
    if not 0 <= start < max(n, 1) or length < 1 or start + length > n:
        raise ValueError(f"{fn}: start {start} and length {length} do not fit dim {axis} of size "
                         f"{n}")
    return part(input, axis, start, start + length)


# --- flipping and rolling -------------------------------------------------------------------------

def _flip(x, dims: tuple[int, ...]):
    if not dims:
        return x
    key = [_py_slice(None)] * x.ndim
    for d in dims:
        key[d] = _py_slice(None, None, -1)
    return F.getitem(x, key=tuple(key))


def flip(input, dims):  # noqa: A002
    """``ops.flip(input, dims)``: the order of elements reversed along each of ``dims`` (a tuple
    or list; a 0-d tensor cannot be flipped)."""
    fn = "ops.flip"
    check_tensor(input, fn)
    if not isinstance(dims, (tuple, list)):
        raise TypeError(f"{fn}: 'dims' must be a tuple or list of ints, but got "
                        f"{type(dims).__name__}")
    if input.ndim == 0:
        raise ValueError(f"{fn}: cannot flip a 0-d tensor")
    return _flip(input, check_dims(dims, input.ndim, fn))


def fliplr(input):  # noqa: A002
    """``ops.fliplr(input)``: the second dim reversed (left/right); at least 2-D."""
    check_tensor(input, "ops.fliplr")
    check_rank(input, 2, "ops.fliplr")
    return _flip(input, (1,))


def flipud(input):  # noqa: A002
    """``ops.flipud(input)``: the first dim reversed (up/down); at least 1-D."""
    check_tensor(input, "ops.flipud")
    check_rank(input, 1, "ops.flipud")
    return _flip(input, (0,))


def reverse(x, axis):
    """``ops.reverse(x, axis)``: :func:`flip` along ``axis`` (a tuple or list; ``()`` keeps
    ``x``)."""
    fn = "ops.reverse"
    check_tensor(x, fn, "x")
    if not isinstance(axis, (tuple, list)):
        raise TypeError(f"{fn}: 'axis' must be a tuple or list of ints, but got "
                        f"{type(axis).__name__}")
    if x.ndim == 0:
        raise ValueError(f"{fn}: cannot reverse a 0-d tensor")
    return _flip(x, check_dims(axis, x.ndim, fn, "axis"))


def _reverse_v2(input, *, axis):  # noqa: A002
    return reverse(input, axis)


def _roll_dim(x, shift: int, dim: int):
    n = x.shape[dim]
    shift = shift % n if n else 0
    if shift == 0:
        return x
    return F.concat(part(x, dim, n - shift, n), part(x, dim, 0, n - shift), axis=dim)


def roll(input, shifts, dims=None):  # noqa: A002
    """``ops.roll(input, shifts, dims=None)``: elements shifted by ``shifts`` along ``dims``
    (wrapping around); without ``dims`` the tensor is rolled flat and reshaped back."""
    fn = "ops.roll"
    check_tensor(input, fn)
    shifts = check_ints(shifts, fn, "shifts", allow_int=True)
    if dims is None:
        if len(shifts) != 1:
            raise ValueError(f"{fn}: without 'dims', 'shifts' must be one int, but got {shifts}")
        return F.reshape(_roll_dim(F.reshape(input, shape=(-1,)), shifts[0], 0),
                         shape=tuple(input.shape))
    dims = check_ints(dims, fn, "dims", allow_int=True)
    if len(dims) != len(shifts):
        raise ValueError(f"{fn}: 'shifts' {shifts} and 'dims' {dims} must have the same length")
    out = input
    for s, d in zip(shifts, dims):
        out = _roll_dim(out, s, check_dim(d, input.ndim, fn, "dims"))
    return out


def _roll_primitive(input, *, shifts, dims=None):  # noqa: A002
    return roll(input, shifts, dims)


def rot90(input, k, dims):  # noqa: A002
    """``ops.rot90(input, k, dims)``: rotated ``k`` times by 90 degrees in the plane of the two
    ``dims``, from the first towards the second."""
    fn = "ops.rot90"
    check_tensor(input, fn)
    k = check_int(k, fn, "k") % 4
    dims = check_ints(dims, fn, "dims")
    if len(dims) != 2:
        raise ValueError(f"{fn}: 'dims' must hold two dims, but got {dims}")
    a, b = (check_dim(d, input.ndim, fn, "dims") for d in dims)
    if a == b:
        raise ValueError(f"{fn}: the two rotation dims must differ, but got {dims}")
    if k == 1:
        return swap(_flip(input, (b,)), a, b)
    if k == 2:
        return _flip(input, (a, b))
    if k == 3:
        return swap(_flip(input, (a,)), a, b)
    return input


# --- tiling and repeating ------------------------------------------------------------------------

def _tile(x, reps: tuple[int, ...], fn: str):
    if any(r < 0 for r in reps):
        raise ValueError(f"{fn}: the repetitions {reps} cannot be negative")
    d = max(len(reps), x.ndim)
    reps = (1,) * (d - len(reps)) + tuple(reps)
    shape = (1,) * (d - x.ndim) + tuple(x.shape)
    if all(r == 1 for r in reps):
        return x if len(shape) == x.ndim else F.reshape(x, shape=shape)
    # (s0, s1) -> (1, s0, 1, s1) -> (r0, s0, r1, s1) -> (r0*s0, r1*s1)
    spread = tuple(v for s in shape for v in (1, s))
    big = F.broadcast_to(F.reshape(x, shape=spread),
                         shape=tuple(v for r, s in zip(reps, shape) for v in (r, s)))
    return F.reshape(big, shape=tuple(r * s for r, s in zip(reps, shape)))


def tile(input, dims):  # noqa: A002
    """``ops.tile(input, dims)``: ``input`` repeated ``dims[i]`` times along each dim (the
    shorter of ``dims`` and the shape is padded with ones in front)."""
    if not isinstance(dims, tuple):
        raise TypeError(f"ops.tile: 'dims' must be a tuple of ints, but got "
                        f"{type(dims).__name__}")
    check_tensor(input, "ops.tile")
    return _tile(input, check_ints(dims, "ops.tile", "dims"), "ops.tile")


def _repeat_counts(repeats, n: int, fn: str):
    """``repeats`` as an int, or as a tuple of ``n`` counts (one per element)."""
    if isinstance(repeats, Tensor):
        if not repeats.dtype.is_int or repeats.ndim > 1:
            raise TypeError(f"{fn}: a tensor 'repeats' must be a 0-d or 1-D integer tensor")
        repeats = list(ints_of(repeats, fn, "repeats"))
        repeats = repeats[0] if len(repeats) == 1 else repeats
    if isinstance(repeats, (tuple, list)):
        counts = check_ints(repeats, fn, "repeats")
        if len(counts) == 1:
            repeats = counts[0]
        else:
            if len(counts) != n:
                raise ValueError(f"{fn}: 'repeats' has {len(counts)} counts for {n} elements")
            if any(c < 0 for c in counts):
                raise ValueError(f"{fn}: 'repeats' {counts} cannot be negative")
            return counts
    repeats = check_int(repeats, fn, "repeats")
    if repeats <= 0:
        raise ValueError(f"{fn}: 'repeats' must be greater than 0, but got {repeats}")
    return repeats


def _repeat_each(x, counts, axis: int):
    """Each element along ``axis`` repeated ``counts`` times (an int, or one count each)."""
    if not is_int(counts):
        idx = np.repeat(np.arange(x.shape[axis]), counts).astype(np.int64)
        return F.take(x, const(idx), axis=axis)
    if counts == 1:
        return x
    shape = tuple(x.shape)
    wide = F.broadcast_to(F.expand_dims(x, axis=axis + 1),
                          shape=shape[:axis + 1] + (counts,) + shape[axis + 1:])
    return F.reshape(wide, shape=shape[:axis] + (shape[axis] * counts,) + shape[axis + 1:])


def repeat_interleave(input, repeats, axis=None):  # noqa: A002
    """``ops.repeat_interleave(input, repeats, axis=None)``: each element repeated ``repeats``
    times along ``axis`` (of the flattened input when None). ``repeats`` is an int, a tuple/list
    of one count per element, or an integer tensor (whose values are read: PyNative only)."""
    fn = "ops.repeat_interleave"
    check_tensor(input, fn)
    if axis is None:
        input, axis = F.reshape(input, shape=(-1,)), 0
    else:
        axis = check_dim(axis, input.ndim, fn, "axis")
    if input.ndim == 0:
        input = F.reshape(input, shape=(1,))
    return _repeat_each(input, _repeat_counts(repeats, input.shape[axis], fn), axis)


def repeat_elements(x, rep, axis=0):
    """``ops.repeat_elements(x, rep, axis=0)``: each element repeated ``rep`` (> 0) times along
    ``axis``."""
    fn = "ops.repeat_elements"
    check_tensor(x, fn, "x")
    if not is_int(rep):
        raise TypeError(f"{fn}: 'rep' must be an int, but got {type(rep).__name__}")
    if rep <= 0:
        raise ValueError(f"{fn}: 'rep' must be greater than 0, but got {rep}")
    if x.ndim == 0:
        raise ValueError(f"{fn}: 'axis' {axis} is out of range for a 0-d tensor")
    return _repeat_each(x, int(rep), check_dim(axis, x.ndim, fn, "axis"))


# --- sequences and permutations -------------------------------------------------------------------

def reverse_sequence(x, seq_lengths, seq_dim, batch_dim=0):
    """``ops.reverse_sequence(x, seq_lengths, seq_dim, batch_dim=0)``: for each batch entry
    ``b``, the first ``seq_lengths[b]`` elements along ``seq_dim`` reversed, the rest kept.

    Computed as one gather with indices built from ``seq_lengths`` by ops, so lengths computed
    in the graph work in graph mode.
    """
    fn = "ops.reverse_sequence"
    check_tensor(x, fn, "x")
    check_tensor(seq_lengths, fn, "seq_lengths")
    seq = check_dim(seq_dim, x.ndim, fn, "seq_dim")
    batch = check_dim(batch_dim, x.ndim, fn, "batch_dim")
    if seq == batch:
        raise ValueError(f"{fn}: 'seq_dim' and 'batch_dim' must differ, but both are {seq}")
    if not seq_lengths.dtype.is_int or tuple(seq_lengths.shape) != (x.shape[batch],):
        raise ValueError(f"{fn}: 'seq_lengths' must be a 1-D integer tensor of {x.shape[batch]} "
                         f"lengths, but got {seq_lengths.dtype} of shape "
                         f"{list(seq_lengths.shape)}")
    _check_lengths(seq_lengths, x.shape[seq], fn)
    rest = [d for d in range(x.ndim) if d not in (batch, seq)]
    perm = (batch, seq, *rest)
    b, t = x.shape[batch], x.shape[seq]
    r = math.prod(x.shape[d] for d in rest)
    moved = F.transpose(x, perm=perm) if perm != tuple(range(x.ndim)) else x
    j = const(np.arange(t, dtype=np.int64).reshape(1, t))
    lengths = F.reshape(F.cast(seq_lengths, dtype=j.dtype), shape=(b, 1))
    source = F.select(F.less(j, lengths), F.sub(F.sub(lengths, 1), j), j)   # (b, t)
    rows = const((np.arange(b, dtype=np.int64) * t).reshape(b, 1))
    flat = F.add(F.mul(F.reshape(F.add(source, rows), shape=(b, t, 1)), r),
                 const(np.arange(r, dtype=np.int64).reshape(1, 1, r)))
    out = F.take(F.reshape(moved, shape=(-1,)), flat, axis=0)
    out = F.reshape(out, shape=tuple(moved.shape))
    return out if moved is x else F.transpose(out, perm=tuple(np.argsort(perm).tolist()))


def _check_lengths(seq_lengths, limit: int, fn: str) -> None:
    """In PyNative the lengths are known: one past the sequence dim is an error, as in
    MindSpore (graph mode cannot look)."""
    from graphcell.graph.traced import GraphTensor
    if isinstance(seq_lengths, GraphTensor):
        return
    values = seq_lengths.asnumpy()
    bad = values[(values > limit) | (values < 0)]
    if bad.size:
        raise ValueError(f"{fn}: a sequence length {int(bad[0])} does not fit the sequence dim "
                         f"of size {limit}")


def _reverse_sequence_primitive(x, seq_lengths, *, seq_dim, batch_dim=0):
    return reverse_sequence(x, seq_lengths, seq_dim, batch_dim)


def _invert_permutation(input_x):
    """``ops.InvertPermutation()(input_x)``: the inverse of a permutation given as a tuple or
    list of ints (not a tensor), as a tuple."""
    fn = "InvertPermutation"
    if isinstance(input_x, Tensor):
        raise ValueError(f"{fn}: 'input_x' must be a tuple or list, not a tensor")
    perm = check_ints(input_x, fn, "input_x")
    if sorted(perm) != list(range(len(perm))):
        raise ValueError(f"{fn}: 'input_x' {perm} must be a permutation of 0..{len(perm) - 1} "
                         "without duplicates")
    out = [0] * len(perm)
    for i, p in enumerate(perm):
        out[p] = i
    return tuple(out)


def _choose_method(self, choices, mode="clip"):
    """``Tensor.choose(choices, mode='clip')``: ``choices[self[i]][i]`` for every position, the
    index tensor and the choices broadcast together; indices out of ``[0, n)`` are clipped
    (``'clip'``), wrapped (``'wrap'``) or refused (``'raise'``, PyNative only)."""
    fn = "Tensor.choose"
    if mode not in ("clip", "wrap", "raise"):
        raise ValueError(f"{fn}: 'mode' must be 'clip', 'wrap' or 'raise', but got {mode!r}")
    if isinstance(choices, Tensor):
        choices = [index(choices, 0, i) for i in range(choices.shape[0])]
    choices = [c if isinstance(c, Tensor) else Tensor(c) for c in choices]
    if len({c.dtype for c in choices}) > 1:
        raise TypeError(f"{fn}: all choices must have the same dtype, but got "
                        f"{', '.join(str(c.dtype) for c in choices)}")
    shape = broadcast_shapes(tuple(self.shape), *(tuple(c.shape) for c in choices))
    n, size = len(choices), math.prod(shape)
    stacked = join([F.reshape(F.broadcast_to(c, shape=shape), shape=(1, size))
                    for c in choices], 0)
    idx = F.cast(F.broadcast_to(self, shape=shape), dtype=int64)
    if mode == "clip":
        idx = F.maximum(F.minimum(idx, n - 1), 0)
    elif mode == "wrap":
        idx = F.mod(idx, n)
    else:
        values = idx.asnumpy()
        if values.size and (values.min() < 0 or values.max() >= n):
            raise ValueError(f"{fn}: an index is out of range [0, {n}) (mode='raise')")
    flat = F.add(F.mul(F.reshape(idx, shape=(size,)), size), const(np.arange(size)))
    return F.reshape(F.take(F.reshape(stacked, shape=(-1,)), flat, axis=0), shape=shape)


# --- Primitive classes ----------------------------------------------------------------------------

Slice = primitive("Slice", slice)
StridedSlice = primitive("StridedSlice", _strided_slice_primitive, init=(
    "begin_mask", "end_mask", "ellipsis_mask", "new_axis_mask", "shrink_axis_mask"))
ReverseV2 = primitive("ReverseV2", _reverse_v2, init=("axis",))
Roll = primitive("Roll", _roll_primitive, init=("shifts", "dims"))
Tile = primitive("Tile", tile)
ReverseSequence = primitive("ReverseSequence", _reverse_sequence_primitive,
                            init=("seq_dim", "batch_dim"))
InvertPermutation = primitive("InvertPermutation", _invert_permutation)


# --- Tensor methods -------------------------------------------------------------------------------

def _flip_method(self, dims):
    """``Tensor.flip(dims)``."""
    return flip(self, dims)


def _tile_method(self, dims):
    """``Tensor.tile(dims)`` (also ``reps=``, MindSpore's older name): an int or a tuple."""
    if isinstance(dims, list):
        raise TypeError("Tensor.tile: 'dims' must be an int or a tuple of ints, not a list")
    return _tile(self, check_ints(dims, "Tensor.tile", "dims", allow_int=True), "Tensor.tile")


def _tile_reps(self, reps):
    return _tile_method(self, reps)


def _repeat_method(self, *repeats):
    """``Tensor.repeat(*repeats)``: ``self`` repeated along each dim (PyTorch's ``repeat``: as
    :func:`tile`, with at least one count per dim)."""
    counts = check_ints(repeats[0] if len(repeats) == 1 and isinstance(repeats[0], (tuple, list))
                        else repeats, "Tensor.repeat", "repeats")
    if len(counts) < self.ndim:
        raise ValueError(f"Tensor.repeat: {len(counts)} repeat counts for a tensor of "
                         f"{self.ndim} dims; give at least one per dim")
    return _tile(self, counts, "Tensor.repeat")


def _repeat_interleave_method(self, repeats, dim=None, *, output_size=None):
    """``Tensor.repeat_interleave(repeats, dim=None, *, output_size=None)``."""
    out = repeat_interleave(self, repeats, dim)
    if output_size is not None and out.shape[0 if dim is None else dim] != output_size:
        raise ValueError(f"Tensor.repeat_interleave: 'output_size' {output_size} does not match "
                         f"the {out.shape[0 if dim is None else dim]} repeated elements")
    return out


def _roll_method(self, shifts, dims=None):
    """``Tensor.roll(shifts, dims=None)``."""
    return roll(self, shifts, dims)


def _narrow_method(self, dim, start, length):
    """``Tensor.narrow(dim, start, length)``."""
    return narrow(self, dim, start, length)


TENSOR_METHODS = {
    "flip": _flip_method,
    "fliplr": fliplr,
    "flipud": flipud,
    "reverse": reverse,
    "roll": _roll_method,
    "rot90": rot90,
    "tile": overload(_tile_method, _tile_reps, name="tile"),
    "repeat": _repeat_method,
    "repeat_interleave": _repeat_interleave_method,
    "narrow": _narrow_method,
    "choose": _choose_method,
}
