"""MindSpore's array functions (``mindspore.ops.function.array_func``): casting, reshaping,
transposing, joining and splitting tensors, written against the functional API ``F`` so each runs
eagerly in PyNative and emits IR when graph mode traces it.

Everything here moves or selects elements; shapes depend only on shapes and Python arguments, so
every name works in graph mode, and gradients come from the layout primitives (``reshape``,
``transpose``, ``getitem``, ``concat``...).

Example::

    >>> import graphcell as ms
    >>> from graphcell import ops
    >>> x = ms.Tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    >>> [t.shape for t in ops.split(x, [1, 2], axis=1)], ops.flatten(x, start_dim=0).shape
    ([(2, 1), (2, 2)], (6,))
"""
from __future__ import annotations

import math

from graphcell.ops._faces import overload
# creation moved to creation_func; these stay importable from here, where they used to live
from graphcell.ops.function.creation_func import (fill, ones, ones_like, zeros,  # noqa: F401
                                                  zeros_like)
from graphcell.ops.function._array_utils import (check_dim, check_dims, check_int, check_ints,
                                                 check_rank, check_tensor, dtype_arg, filled,
                                                 index, ints_of, is_int, join, part, swap)
from graphcell.ops.primitive import primitive
from graphcell.tensor import Tensor
from graphcell_ir.ir.types import DType, float16, float32, float64, int16, int32, int64, uint8
from graphcell_ir.ir.types import bool_ as _bool
from graphcell_ir.ops import functional as F

__all__ = ["cast", "reshape", "transpose", "permute", "flatten", "expand_dims", "unsqueeze",
           "squeeze", "swapaxes", "swapdims", "moveaxis", "movedim", "t", "broadcast_to",
           "expand", "view_as", "ravel",
           "concat", "cat", "stack", "hstack", "vstack", "row_stack", "dstack", "column_stack",
           "atleast_1d", "atleast_2d", "atleast_3d",
           "split", "tensor_split", "hsplit", "vsplit", "dsplit", "chunk", "unbind", "unstack",
           "type_as", "zero_", "move_to",
           "Flatten", "Stack", "Split", "SplitV", "Unstack", "ParallelConcat", "TransposeView",
           "TransposeExtView", "MoveTo", "Reshape", "Squeeze", "BroadcastTo"]


# --- casting -------------------------------------------------------------------------------------

def cast(input, dtype):  # noqa: A002 - MindSpore's parameter name
    """``ops.cast(input, dtype)``: ``input`` converted to ``dtype`` (a mindspore dtype); a Python
    number becomes a 0-d tensor."""
    if not isinstance(dtype, DType):
        raise TypeError(f"ops.cast: 'dtype' must be a mindspore dtype, but got {dtype!r}")
    if isinstance(input, (bool, int, float)):
        return filled((), dtype, input)
    return F.cast(check_tensor(input, "ops.cast"), dtype=dtype)


def type_as(input, other):  # noqa: A002
    """``ops.type_as(input, other)``: ``input`` cast to ``other``'s dtype."""
    check_tensor(other, "ops.type_as", "other")
    return F.cast(check_tensor(input, "ops.type_as"), dtype=other.dtype)


def zero_(input):  # noqa: A002
    """``ops.zero_(input)``: every element of ``input`` set to 0 in place; returns ``input``."""
    return check_tensor(input, "ops.zero_").zero_()


def move_to(input, to="CPU", blocking=True):  # noqa: A002
    """``ops.move_to(input, to='CPU', blocking=True)``: the tensor on device ``to`` (a tuple or
    list becomes a tensor first). graphcell runs on the CPU, so only ``'CPU'`` is accepted."""
    if isinstance(input, (tuple, list)):
        input = Tensor(input)
    return check_tensor(input, "ops.move_to").move_to(to, blocking)


# --- reshaping -----------------------------------------------------------------------------------

def reshape(input, shape):  # noqa: A002
    """``ops.reshape(input, shape)``: the same elements in ``shape`` (a tuple/list of ints or a
    1-D integer tensor); one size may be -1."""
    check_tensor(input, "ops.reshape")
    if isinstance(shape, Tensor):
        shape = ints_of(shape, "ops.reshape", "shape")
    return F.reshape(input, shape=check_ints(shape, "ops.reshape", "shape"))


def flatten(input, order="C", *, start_dim=1, end_dim=-1):  # noqa: A002
    """``ops.flatten(input, order='C', *, start_dim=1, end_dim=-1)``: dims ``start_dim`` ..
    ``end_dim`` merged into one (by default all but the first). ``order='F'`` reads the elements
    in column-major order. 0-d and 1-D tensors give a 1-D tensor, as in MindSpore 2.10."""
    fn = "ops.flatten"
    check_tensor(input, fn)
    if order not in ("C", "F"):
        raise ValueError(f"{fn}: 'order' must be 'C' or 'F', but got {order!r}")
    if not is_int(start_dim) or not is_int(end_dim):
        raise TypeError(f"{fn}: 'start_dim' and 'end_dim' must be ints, but got {start_dim!r} "
                        f"and {end_dim!r}")
    if order == "F" and input.ndim > 1:
        input = F.transpose(input, perm=None)
    if (start_dim, end_dim) == (1, -1) or order == "F" and input.ndim < 2:
        return _flatten_primitive(input) if input.ndim > 1 else F.reshape(input, shape=(-1,))
    start = check_dim(start_dim, input.ndim, fn, "start_dim")
    end = check_dim(end_dim, input.ndim, fn, "end_dim")
    if start > end:
        raise ValueError(f"{fn}: 'start_dim' {start_dim} cannot come after 'end_dim' {end_dim}")
    if input.ndim < 2:
        return F.reshape(input, shape=(-1,))
    shape = tuple(input.shape)
    merged = shape[:start] + (math.prod(shape[start:end + 1]),) + shape[end + 1:]
    return input if merged == shape else F.reshape(input, shape=merged)


def _flatten_primitive(input_x):
    """``ops.Flatten()(x)``: every dim but the first merged; a 1-D ``x`` becomes ``(n, 1)``."""
    check_tensor(input_x, "Flatten", "input_x")
    if input_x.ndim == 0:
        raise ValueError("Flatten: 'input_x' must have at least 1 dimension, but got a 0-d tensor")
    return F.reshape(input_x, shape=(input_x.shape[0], math.prod(input_x.shape[1:])))


def ravel(input):  # noqa: A002
    """``ops.ravel(input)``: the elements as a 1-D tensor."""
    return F.reshape(check_tensor(input, "ops.ravel"), shape=(-1,))


def view_as(input, other):  # noqa: A002
    """``ops.view_as(input, other)``: ``input`` reshaped to ``other``'s shape."""
    check_tensor(other, "ops.view_as", "other")
    return F.reshape(check_tensor(input, "ops.view_as"), shape=tuple(other.shape))


def expand_dims(input_x, axis):
    """``ops.expand_dims(input_x, axis)``: a size-1 dim inserted at ``axis`` (in
    ``[-rank - 1, rank]``)."""
    check_tensor(input_x, "ops.expand_dims", "input_x")
    axis = check_dim(axis, input_x.ndim, "ops.expand_dims", "axis", extra=1)
    return F.expand_dims(input_x, axis=axis)


def unsqueeze(input, dim):  # noqa: A002
    """``ops.unsqueeze(input, dim)``: a size-1 dim inserted at ``dim``."""
    check_tensor(input, "ops.unsqueeze")
    return F.expand_dims(input, axis=check_dim(dim, input.ndim, "ops.unsqueeze", extra=1))


def squeeze(input, axis=None):  # noqa: A002
    """``ops.squeeze(input, axis=None)``: size-1 dims removed: all of them, or those among
    ``axis`` (an int or a tuple/list); a listed dim whose size is not 1 is kept, as in MindSpore
    2.10."""
    fn = "ops.squeeze"
    check_tensor(input, fn)
    if axis is None or axis == () or axis == []:
        drop = tuple(i for i, s in enumerate(input.shape) if s == 1)
    else:
        dims = {check_dim(a, input.ndim, fn, "axis")   # a repeated dim counts once
                for a in check_ints(axis, fn, "axis", allow_int=True)}
        drop = tuple(sorted(d for d in dims if input.ndim and input.shape[d] == 1))
    if not drop:
        return input
    return F.squeeze(input, axis=drop)


def broadcast_to(input, shape):  # noqa: A002
    """``ops.broadcast_to(input, shape)``: ``input`` broadcast to ``shape``; a -1 keeps the size
    of the matching (trailing-aligned) dim of ``input``, so it cannot stand for a new leading
    dim."""
    fn = "ops.broadcast_to"
    check_tensor(input, fn)
    shape = check_ints(shape, fn, "shape")
    lead = len(shape) - input.ndim
    if lead < 0:
        raise ValueError(f"{fn}: cannot broadcast a tensor of shape {list(input.shape)} to "
                         f"{list(shape)}, which has fewer dims")
    for i, s in enumerate(shape):
        if s == -1 and i < lead:
            raise ValueError(f"{fn}: -1 at position {i} of {list(shape)} has no matching dim in "
                             f"the input of shape {list(input.shape)}")
        if s < -1:
            raise ValueError(f"{fn}: the target shape {list(shape)} has a negative size")
    shape = tuple(input.shape[i - lead] if s == -1 else s for i, s in enumerate(shape))
    for have, want in zip(input.shape, shape[lead:]):
        if have not in (1, want):
            raise ValueError(f"{fn}: cannot broadcast a tensor of shape {list(input.shape)} to "
                             f"{list(shape)}")
    return input if shape == tuple(input.shape) else F.broadcast_to(input, shape=shape)


def expand(input_x, size):
    """``ops.expand(input_x, size)`` (deprecated in MindSpore for ``broadcast_to``): ``size`` is a
    1-D integer tensor (or a tuple); -1 keeps a dim."""
    if isinstance(size, Tensor):
        size = ints_of(size, "ops.expand", "size")
    return broadcast_to(input_x, size)


# --- transposing ---------------------------------------------------------------------------------

def transpose(input, dims):  # noqa: A002
    """``ops.transpose(input, dims)``: the dims of ``input`` permuted; ``dims`` lists every dim
    once (negative values count from the end)."""
    fn = "ops.transpose"
    check_tensor(input, fn)
    dims = check_ints(dims, fn, "dims")
    if len(dims) != input.ndim:
        raise ValueError(f"{fn}: 'dims' {dims} must have one entry per dim of the input of shape "
                         f"{list(input.shape)}")
    perm = check_dims(dims, input.ndim, fn, "dims") if dims else ()
    return F.transpose(input, perm=perm)


def permute(input, axis):  # noqa: A002
    """``ops.permute(input, axis)``: the dims of ``input`` in the order ``axis``."""
    check_tensor(input, "ops.permute")
    axis = check_ints(axis, "ops.permute", "axis")
    if len(axis) != input.ndim:
        raise ValueError(f"ops.permute: 'axis' {axis} must have one entry per dim of the input of "
                         f"shape {list(input.shape)}")
    return F.transpose(input, perm=check_dims(axis, input.ndim, "ops.permute", "axis"))


def _check_has_dims(x, fn: str, name: str = "input") -> None:
    """A 0-d tensor has no dims to swap or move (MindSpore 2.10 refuses it)."""
    check_tensor(x, fn, name)
    if x.ndim == 0:
        raise ValueError(f"{fn}: a 0-d tensor has no dims to move")


def swapaxes(input, axis0, axis1):  # noqa: A002
    """``ops.swapaxes(input, axis0, axis1)``: two dims exchanged."""
    _check_has_dims(input, "ops.swapaxes")
    return swap(input, check_dim(axis0, input.ndim, "ops.swapaxes", "axis0"),
                check_dim(axis1, input.ndim, "ops.swapaxes", "axis1"))


def swapdims(input, dim0, dim1):  # noqa: A002
    """``ops.swapdims(input, dim0, dim1)``: two dims exchanged."""
    _check_has_dims(input, "ops.swapdims")
    return swap(input, check_dim(dim0, input.ndim, "ops.swapdims", "dim0"),
                check_dim(dim1, input.ndim, "ops.swapdims", "dim1"))


def moveaxis(x, source, destination):
    """``ops.moveaxis(x, source, destination)``: dims moved from ``source`` to ``destination``
    (ints or tuples of one length); the other dims keep their order."""
    fn = "ops.moveaxis"
    _check_has_dims(x, fn, "x")
    src = check_dims(source, x.ndim, fn, "source")
    dst = check_dims(destination, x.ndim, fn, "destination")
    if len(src) != len(dst):
        raise ValueError(f"{fn}: 'source' and 'destination' must have the same number of dims, "
                         f"but got {len(src)} and {len(dst)}")
    rest = [d for d in range(x.ndim) if d not in src]
    perm = [None] * x.ndim
    for s, d in zip(src, dst):
        perm[d] = s
    it = iter(rest)
    perm = tuple(p if p is not None else next(it) for p in perm)
    return x if perm == tuple(range(x.ndim)) else F.transpose(x, perm=perm)


def movedim(x, source, destination):
    """``ops.movedim(x, source, destination)``: :func:`moveaxis`."""
    return moveaxis(x, source, destination)


def t(input):  # noqa: A002
    """``ops.t(input)``: a 2-D tensor transposed; other ranks are returned as they are."""
    check_tensor(input, "ops.t")
    return F.transpose(input, perm=(1, 0)) if input.ndim == 2 else input


# --- joining -------------------------------------------------------------------------------------

def _tensors(tensors, fn: str, name: str = "tensors") -> tuple:
    if not isinstance(tensors, (tuple, list)) or not all(isinstance(x, Tensor) for x in tensors):
        raise TypeError(f"{fn}: '{name}' must be a tuple or list of tensors, but got "
                        f"{type(tensors).__name__}")
    if not tensors:
        raise ValueError(f"{fn}: '{name}' must hold at least one tensor")
    return tuple(tensors)


def concat(tensors, axis=0):
    """``ops.concat(tensors, axis=0)``: the tensors joined along ``axis`` (their other dims must
    agree; 0-d tensors cannot be joined). Different dtypes promote as MindSpore infers them."""
    tensors = _tensors(tensors, "ops.concat")
    axis = check_int(axis, "ops.concat", "axis")
    return F.concat(*tensors, axis=axis)


def cat(tensors, axis=0):
    """``ops.cat(tensors, axis=0)``: :func:`concat`."""
    return concat(tensors, axis)


def stack(tensors, axis=0):
    """``ops.stack(tensors, axis=0)``: the tensors (one shape and dtype) joined along a new axis.

    >>> import graphcell as ms
    >>> stack([ms.Tensor([1, 2]), ms.Tensor([3, 4])], axis=1).shape
    (2, 2)
    """
    tensors = _tensors(tensors, "ops.stack")
    shape, dtype = tuple(tensors[0].shape), tensors[0].dtype
    for i, x in enumerate(tensors[1:], 1):
        if tuple(x.shape) != shape:
            raise ValueError(f"ops.stack: all tensors must have the same shape, but tensor 0 has "
                             f"shape {list(shape)} and tensor {i} has {list(x.shape)}")
        if x.dtype != dtype:
            raise TypeError(f"ops.stack: all tensors must have the same dtype, but tensor 0 is "
                            f"{dtype} and tensor {i} is {x.dtype}")
    axis = check_dim(axis, len(shape), "ops.stack", "axis", extra=1)
    return join([F.expand_dims(x, axis=axis) for x in tensors], axis)


def atleast_1d(inputs):
    """``ops.atleast_1d(inputs)``: a 0-d tensor as shape ``(1,)``; a tuple/list gives a tuple."""
    return _each(inputs, lambda x: F.reshape(x, shape=(1,)) if x.ndim == 0 else x, "atleast_1d")


def atleast_2d(inputs):
    """``ops.atleast_2d(inputs)``: 0-d and 1-D tensors as ``(1, 1)`` and ``(1, n)``."""
    return _each(inputs, lambda x: F.reshape(x, shape=(1,) * (2 - x.ndim) + tuple(x.shape))
                 if x.ndim < 2 else x, "atleast_2d")


def _to_3d(x):
    if x.ndim == 0:
        return F.reshape(x, shape=(1, 1, 1))
    if x.ndim == 1:
        return F.reshape(x, shape=(1, x.shape[0], 1))
    return F.expand_dims(x, axis=2) if x.ndim == 2 else x


def atleast_3d(inputs):
    """``ops.atleast_3d(inputs)``: ``()``, ``(n,)``, ``(m, n)`` become ``(1, 1, 1)``,
    ``(1, n, 1)``, ``(m, n, 1)``."""
    return _each(inputs, _to_3d, "atleast_3d")


def _each(inputs, fn, name: str):
    if isinstance(inputs, Tensor):
        return fn(inputs)
    return tuple(fn(x) for x in _tensors(inputs, f"ops.{name}", "inputs"))


def hstack(tensors):
    """``ops.hstack(tensors)``: joined along the second dim (the first for 1-D tensors)."""
    tensors = [atleast_1d(x) for x in _tensors(tensors, "ops.hstack")]
    return F.concat(*tensors, axis=0 if tensors[0].ndim == 1 else 1)


def vstack(tensors):
    """``ops.vstack(tensors)``: joined along the first dim, 1-D tensors as rows."""
    return F.concat(*atleast_2d(_tensors(tensors, "ops.vstack")), axis=0)


def row_stack(tensors):
    """``ops.row_stack(tensors)``: :func:`vstack`."""
    return vstack(tensors)


def dstack(tensors):
    """``ops.dstack(tensors)``: joined along the third dim (after :func:`atleast_3d`)."""
    return F.concat(*atleast_3d(_tensors(tensors, "ops.dstack")), axis=2)


def column_stack(tensors):
    """``ops.column_stack(tensors)``: 1-D tensors as columns, joined along the second dim."""
    tensors = _tensors(tensors, "ops.column_stack")
    cols = [F.reshape(x, shape=(x.size, 1)) if x.ndim < 2 else x for x in tensors]
    return F.concat(*cols, axis=1)


def _parallel_concat(values):
    """``ops.ParallelConcat()(values)``: the tensors joined along the first dim."""
    return F.concat(*_tensors(values, "ParallelConcat", "values"), axis=0)


# --- splitting -----------------------------------------------------------------------------------

def _pieces(x, axis: int, bounds) -> tuple:
    """``x[b0:b1], x[b1:b2], ...`` along ``axis`` (Python slice rules: a reversed pair is empty)."""
    return tuple(part(x, axis, a, b) for a, b in zip(bounds[:-1], bounds[1:]))


def _bounds(sizes) -> list:
    out = [0]
    for s in sizes:
        out.append(out[-1] + s)
    return out


def split(tensor, split_size_or_sections, axis=0):
    """``ops.split(tensor, split_size_or_sections, axis=0)``: pieces of ``split_size`` along
    ``axis`` (the last one smaller), or of the listed sizes (which must add up to the dim)."""
    return _split(tensor, split_size_or_sections, axis, "ops.split")


def _split(x, sizes, axis, fn: str) -> tuple:
    check_tensor(x, fn, "tensor")
    axis = check_dim(axis, x.ndim, fn, "axis")
    if x.ndim == 0:
        raise ValueError(f"{fn}: cannot split a 0-d tensor")
    n = x.shape[axis]
    if is_int(sizes):
        if sizes <= 0:
            raise ValueError(f"{fn}: 'split_size_or_sections' must be more than zero, but got "
                             f"{sizes}")
        sizes = [min(int(sizes), n - i) for i in range(0, n, int(sizes))] or [0]
    else:
        sizes = check_ints(sizes, fn, "split_size_or_sections")
        if sum(sizes) != n:
            raise ValueError(f"{fn}: the sizes {list(sizes)} add up to {sum(sizes)}, but dim "
                             f"{axis} has {n} elements")
    if len(sizes) == 1:
        return (x,)
    return _pieces(x, axis, _bounds(sizes))


def _array_split(x, indices_or_sections, axis: int, fn: str) -> tuple:
    """numpy's ``array_split``: ``n`` near-equal parts (the first ones one larger), or parts
    between the listed indices."""
    n = x.shape[axis]
    if is_int(indices_or_sections):
        k = int(indices_or_sections)
        if k <= 0:
            raise ValueError(f"{fn}: 'indices_or_sections' must be more than zero, but got {k}")
        q, r = divmod(n, k)
        return _pieces(x, axis, _bounds([q + 1] * r + [q] * (k - r)))
    cuts = check_ints(indices_or_sections, fn, "indices_or_sections")
    return _pieces(x, axis, [0, *cuts, n])


def tensor_split(input, indices_or_sections, axis=0):  # noqa: A002
    """``ops.tensor_split(input, indices_or_sections, axis=0)``: ``n`` near-equal parts (the first
    ``dim % n`` one larger), or the parts between the listed indices (numpy's ``array_split``)."""
    check_tensor(input, "ops.tensor_split")
    axis = check_dim(axis, input.ndim, "ops.tensor_split", "axis")
    return _array_split(input, indices_or_sections, axis, "ops.tensor_split")


def hsplit(input, indices_or_sections):  # noqa: A002
    """``ops.hsplit(input, indices_or_sections)``: :func:`tensor_split` along the second dim."""
    check_tensor(input, "ops.hsplit")
    check_rank(input, 2, "ops.hsplit")
    return _array_split(input, indices_or_sections, 1, "ops.hsplit")


def vsplit(input, indices_or_sections):  # noqa: A002
    """``ops.vsplit(input, indices_or_sections)``: :func:`tensor_split` along the first dim."""
    check_tensor(input, "ops.vsplit")
    check_rank(input, 1, "ops.vsplit")
    return _array_split(input, indices_or_sections, 0, "ops.vsplit")


def dsplit(input, indices_or_sections):  # noqa: A002
    """``ops.dsplit(input, indices_or_sections)``: :func:`tensor_split` along the third dim."""
    check_tensor(input, "ops.dsplit")
    check_rank(input, 3, "ops.dsplit")
    return _array_split(input, indices_or_sections, 2, "ops.dsplit")


def chunk(input, chunks, axis=0):  # noqa: A002
    """``ops.chunk(input, chunks, axis=0)``: at most ``chunks`` pieces of ``ceil(dim / chunks)``
    elements (the last one smaller)."""
    fn = "ops.chunk"
    check_tensor(input, fn)
    chunks = check_int(chunks, fn, "chunks")
    if chunks <= 0:
        raise ValueError(f"{fn}: 'chunks' must be greater than 0, but got {chunks}")
    axis = check_dim(axis, input.ndim, fn, "axis")
    n = input.shape[axis]
    return _split(input, max(1, -(-n // chunks)), axis, fn)


def unbind(input, dim=0):  # noqa: A002
    """``ops.unbind(input, dim=0)``: the slices along ``dim``, each without that dim."""
    return _unstack(input, dim, "ops.unbind", "dim")


def unstack(input_x, axis=0):
    """``ops.unstack(input_x, axis=0)``: the slices along ``axis``, each without that axis."""
    return _unstack(input_x, axis, "ops.unstack", "axis")


def _unstack(x, axis, fn: str, name: str) -> tuple:
    check_tensor(x, fn)
    if x.ndim == 0:
        raise ValueError(f"{fn}: the input must have at least 1 dimension, but got a 0-d tensor")
    axis = check_dim(axis, x.ndim, fn, name)
    return tuple(index(x, axis, i) for i in range(x.shape[axis]))


def _unstack_primitive(input_x, *, axis=0, num=None):
    """``ops.Unstack(axis=0, num=None)(x)``: ``num`` is accepted and not checked, as in
    MindSpore."""
    return unstack(input_x, axis)


def _split_primitive(input_x, *, axis=0, output_num=1):
    """``ops.Split(axis=0, output_num=1)(x)``: ``output_num`` equal parts."""
    fn = "Split"
    check_tensor(input_x, fn, "input_x")
    axis = check_dim(axis, input_x.ndim, fn, "axis")
    output_num = check_int(output_num, fn, "output_num")
    n = input_x.shape[axis]
    if output_num <= 0 or n % output_num:
        raise ValueError(f"{fn}: dim {axis} of size {n} cannot be split into {output_num} equal "
                         "parts")
    return _split(input_x, [n // output_num] * output_num, axis, fn)


def _split_v(input_x, *, size_splits, split_dim, num_split):
    """``ops.SplitV(size_splits, split_dim, num_split)(x)``: parts of the listed sizes, one of
    which may be -1 (the rest of the dim)."""
    fn = "SplitV"
    check_tensor(input_x, fn, "input_x")
    axis = check_dim(split_dim, input_x.ndim, fn, "split_dim")
    sizes = list(check_ints(size_splits, fn, "size_splits"))
    if len(sizes) != num_split:
        raise ValueError(f"{fn}: 'size_splits' has {len(sizes)} entries but 'num_split' is "
                         f"{num_split}")
    if sizes.count(-1) > 1:
        raise ValueError(f"{fn}: 'size_splits' may hold at most one -1, but got {sizes}")
    if -1 in sizes:
        sizes[sizes.index(-1)] = input_x.shape[axis] - (sum(sizes) + 1)
    return _split(input_x, sizes, axis, fn)



Flatten = primitive("Flatten", _flatten_primitive)
# the registry's reshape/squeeze/broadcast_to take static attributes; MindSpore's Primitives also
# take a shape tensor, keep a listed dim whose size is not 1, and place -1 by trailing alignment
Reshape = primitive("Reshape", reshape)
Squeeze = primitive("Squeeze", squeeze, init=("axis",))
BroadcastTo = primitive("BroadcastTo", broadcast_to, init=("shape",))
TransposeView = primitive("TransposeView", transpose)
TransposeExtView = primitive("TransposeExtView", swapaxes)
MoveTo = primitive("MoveTo", move_to)
Stack = primitive("Stack", stack, init=("axis",))
Split = primitive("Split", _split_primitive, init=("axis", "output_num"))
SplitV = primitive("SplitV", _split_v, init=("size_splits", "split_dim", "num_split"))
Unstack = primitive("Unstack", _unstack_primitive, init=("axis", "num"))
ParallelConcat = primitive("ParallelConcat", _parallel_concat)


# --- Tensor methods: MindSpore 2.10's overloads ---------------------------------------------------

def _shape_args(shape: tuple, fn: str) -> tuple[int, ...]:
    """``(2, 3)``, ``((2, 3),)``, ``([2, 3],)`` or ``(tensor,)`` as a tuple of ints."""
    if len(shape) == 1 and isinstance(shape[0], (tuple, list, Tensor)):
        shape = shape[0]
        if isinstance(shape, Tensor):
            return ints_of(shape, fn, "shape")
    return check_ints(shape, fn, "shape")


def _reshape_method(self, *shape, **kwargs):
    """``Tensor.reshape(*shape)``: ``x.reshape(2, 3)``, ``x.reshape((2, 3))`` or
    ``x.reshape(shape=(2, 3))``; one size may be -1."""
    if kwargs:
        if shape or set(kwargs) != {"shape"}:
            raise TypeError(f"Tensor.reshape() takes the shape positionally or as shape=, but got "
                            f"{', '.join(kwargs)}")
        shape = (kwargs["shape"],)
    return F.reshape(self, shape=_shape_args(shape, "Tensor.reshape"))


def _view_method(self, *shape):
    """``Tensor.view(*shape)``: the same elements in ``shape``. ``Tensor.view(dtype)`` (the bits
    read as another dtype) is not provided."""
    if len(shape) == 1 and isinstance(shape[0], DType):
        raise TypeError("Tensor.view(dtype) (reinterpreting the bits as another dtype) is not "
                        "supported by graphcell; use Tensor.astype to convert values")
    return F.reshape(self, shape=_shape_args(shape, "Tensor.view"))


def _flatten_dims(self, start_dim: int = 0, end_dim: int = -1):
    return flatten(self, "C", start_dim=start_dim, end_dim=end_dim)


def _flatten_order(self, order: str = "C", *, start_dim: int = 0, end_dim: int = -1):
    return flatten(self, order, start_dim=start_dim, end_dim=end_dim)


def _transpose_dims(self, dim0: int, dim1: int):
    return swapaxes(self, dim0, dim1)


def _transpose_axes(self, *axes):
    """``Tensor.transpose(*axes)``: ``x.transpose(2, 0, 1)``, ``x.transpose((2, 0, 1))``; no
    arguments reverses the dims."""
    if not axes:
        return F.transpose(self, perm=None)
    return transpose(self, _shape_args(axes, "Tensor.transpose"))


def _permute_method(self, *dims, **kwargs):
    """``Tensor.permute(*dims)``: ``x.permute(2, 0, 1)``, ``x.permute((2, 0, 1))`` or
    ``x.permute(dims=(2, 0, 1))``."""
    if kwargs:
        dims = (kwargs.pop("dims"),) if set(kwargs) == {"dims"} and not dims else None
        if dims is None:
            raise TypeError("Tensor.permute() takes the dims positionally or as dims=")
    return permute(self, _shape_args(dims, "Tensor.permute"))


def _squeeze_method(self, axis=None):
    """``Tensor.squeeze(axis=None)``: an int or a tuple of dims (MindSpore 2.10 refuses
    ``x.squeeze(0, 2)``)."""
    return squeeze(self, axis)


def _broadcast_to_method(self, *shape, **kwargs):
    """``Tensor.broadcast_to(*shape)``: ``x.broadcast_to(3, 2)`` or ``x.broadcast_to((3, 2))``."""
    if kwargs:
        if shape or set(kwargs) != {"shape"}:
            raise TypeError("Tensor.broadcast_to() takes the shape positionally or as shape=")
        shape = (kwargs["shape"],)
    return broadcast_to(self, _shape_args(shape, "Tensor.broadcast_to"))


def _expand_method(self, *size):
    """``Tensor.expand(*size)``: ``x.expand(3, -1)``, ``x.expand((3, 2))`` or a 1-D integer
    tensor of sizes."""
    return broadcast_to(self, _shape_args(size, "Tensor.expand"))


def _expand_as_method(self, other):
    """``Tensor.expand_as(other)``: broadcast to ``other``'s shape."""
    return broadcast_to(self, tuple(check_tensor(other, "Tensor.expand_as", "other").shape))


def _split_size_dim(self, split_size: int | tuple | list, dim: int = 0):
    return _split(self, split_size, dim, "Tensor.split")


def _split_size_axis(self, split_size_or_sections: int | tuple | list, axis: int = 0):
    return _split(self, split_size_or_sections, axis, "Tensor.split")


def _chunk_dim(self, chunks: int, dim: int = 0):
    return chunk(self, chunks, dim)


def _chunk_axis(self, chunks: int, axis: int = 0):
    return chunk(self, chunks, axis)


def _cast_method(dtype: DType):
    def method(self):
        return F.cast(self, dtype=dtype)
    method.__doc__ = f"The tensor cast to {dtype}."
    return method


def _to_method(self, dtype=None, non_blocking=False, copy=False):
    """``Tensor.to(dtype=None, non_blocking=False, copy=False)``: cast to ``dtype`` (the tensor
    itself when None)."""
    if dtype is None:
        return self
    return F.cast(self, dtype=dtype_arg(dtype, "Tensor.to"))


def _type_method(self, dtype=None):
    """``Tensor.type(dtype=None)``: the dtype's name (``'Float32'``) without an argument, else the
    tensor cast to ``dtype``."""
    if dtype is None:
        return str(self.dtype)
    return F.cast(self, dtype=dtype_arg(dtype, "Tensor.type"))


def _type_as_method(self, other):
    """``Tensor.type_as(other)``: cast to ``other``'s dtype."""
    return F.cast(self, dtype=check_tensor(other, "Tensor.type_as", "other").dtype)


TENSOR_METHODS = {
    "reshape": _reshape_method,
    "view": _view_method,
    "view_as": view_as,
    "reshape_as": view_as,
    "ravel": ravel,
    "flatten": overload(_flatten_dims, _flatten_order, name="flatten"),
    "transpose": overload(_transpose_dims, _transpose_axes, name="transpose"),
    "permute": _permute_method,
    "swapaxes": swapaxes,
    "swapdims": swapdims,
    "moveaxis": moveaxis,
    "movedim": movedim,
    "t": t,
    "expand_dims": expand_dims,
    "unsqueeze": unsqueeze,
    "squeeze": _squeeze_method,
    "broadcast_to": _broadcast_to_method,
    "expand": _expand_method,
    "expand_as": _expand_as_method,
    "split": overload(_split_size_dim, _split_size_axis, name="split"),
    "tensor_split": tensor_split,
    "hsplit": hsplit,
    "vsplit": vsplit,
    "dsplit": dsplit,
    "chunk": overload(_chunk_dim, _chunk_axis, name="chunk"),
    "unbind": unbind,
    "to": _to_method,
    "type": _type_method,
    "type_as": _type_as_method,
    **{name: _cast_method(d) for name, d in (
        ("float", float32), ("half", float16), ("double", float64), ("int", int32),
        ("long", int64), ("short", int16), ("byte", uint8), ("bool", _bool))},
}
