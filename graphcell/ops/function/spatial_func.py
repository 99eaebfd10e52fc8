"""Padding and spatial rearrangements with MindSpore 2.10's signatures: ``pad`` (constant,
reflect, replicate and circular modes), ``Pad``/``PadV3``/``MirrorPad``/``Padding``,
``DepthToSpace``/``SpaceToDepth``, ``BatchToSpace(ND)``/``SpaceToBatch(ND)``, and the data-format
helpers ``DataFormatDimMap``/``DataFormatVecPermute``.

Constant padding is the ``pad`` primitive (negative sizes crop); the other modes join slices of
the input (``getitem`` + ``concat``), and the block rearrangements are reshapes and transposes, so
all differentiate through those primitives and work in graph mode.

Example::

    >>> import graphcell as ms
    >>> from graphcell import ops
    >>> x = ms.Tensor([[0.0, 1.0, 2.0]])
    >>> ops.pad(x, (2, 1), mode="reflect").asnumpy().tolist()
    [[2.0, 1.0, 0.0, 1.0, 2.0, 1.0]]
"""
from __future__ import annotations

import math

import numpy as np

from graphcell.ops.function._array_utils import (check_int, check_ints, check_tensor, const,
                                                 ints_of, is_int, known_values, part)
from graphcell.ops.primitive import primitive
from graphcell.tensor import Tensor
from graphcell_ir.ops import functional as F

__all__ = ["pad", "padding", "mirror_pad", "batch_to_space_nd", "space_to_batch_nd",
           "Pad", "PadV3", "MirrorPad", "Padding", "DepthToSpace", "SpaceToDepth", "BatchToSpace",
           "BatchToSpaceND", "BatchToSpaceNDV2", "SpaceToBatch", "SpaceToBatchND",
           "DataFormatDimMap", "DataFormatVecPermute"]


# --- padding -------------------------------------------------------------------------------------

def _flip(x, axis: int):
    key = (slice(None),) * axis + (slice(None, None, -1),)
    return F.getitem(x, key=key)


def _edges(x, axis: int, before: int, after: int, mode: str) -> tuple:
    """The blocks that ``mode`` puts before and after ``x`` along ``axis``."""
    n = x.shape[axis]
    if mode == "reflect":
        return _flip(part(x, axis, 1, before + 1), axis), _flip(part(x, axis, n - 1 - after,
                                                                      n - 1), axis)
    if mode == "symmetric":
        return _flip(part(x, axis, 0, before), axis), _flip(part(x, axis, n - after, n), axis)
    if mode == "circular":
        return part(x, axis, n - before, n), part(x, axis, 0, after)
    shape = list(x.shape)   # replicate / edge: the first and last slices repeated

    def repeat(s, k):
        shape[axis] = k
        return F.broadcast_to(s, shape=tuple(shape))
    return repeat(part(x, axis, 0, 1), before), repeat(part(x, axis, n - 1, n), after)


_LIMIT = {"reflect": "less than", "symmetric": "at most", "circular": "at most",
          "replicate": None}


def _pad_dim(x, axis: int, before: int, after: int, mode: str, fn: str):
    """``x`` padded along ``axis`` in a mode that reads the input (negative sizes crop first)."""
    n = x.shape[axis]
    if before < 0 or after < 0:
        x = part(x, axis, max(-before, 0), n - max(-after, 0))
        before, after, n = max(before, 0), max(after, 0), x.shape[axis]
    if not before and not after:
        return x
    limit = _LIMIT[mode]
    if limit is not None and (max(before, after) >= n if limit == "less than"
                              else max(before, after) > n):
        raise ValueError(f"{fn}: {mode} padding ({before}, {after}) must be {limit} the size {n} "
                         f"of dim {axis}")
    if n == 0:
        raise ValueError(f"{fn}: cannot pad an empty dim {axis} in {mode} mode")
    left, right = _edges(x, axis, before, after, mode)
    parts = ([left] if before else []) + [x] + ([right] if after else [])
    return F.concat(*parts, axis=axis)


def _pad_pairs(x, pairs: list, mode: str, value, fn: str):
    """``pairs[i]`` = (before, after) for dim ``i`` (every dim listed)."""
    if mode == "constant":
        if all(b == 0 and a == 0 for b, a in pairs):
            return x
        return F.pad(x, paddings=tuple(v for p in pairs for v in p),
                     value=0 if value is None else value)
    for axis in reversed(range(x.ndim)):
        before, after = pairs[axis]
        x = _pad_dim(x, axis, before, after, mode, fn)
    return x


def _last_dims_pairs(x, padding: tuple, fn: str) -> list:
    """MindSpore's flat ``(left_last, right_last, left_second_last, ...)`` as a pair per dim."""
    if len(padding) % 2:
        raise ValueError(f"{fn}: the length of 'padding' must be even, but got {len(padding)}")
    k = len(padding) // 2
    if k > x.ndim:
        raise ValueError(f"{fn}: 'padding' pads {k} dims but the input of shape "
                         f"{list(x.shape)} has {x.ndim}")
    pairs = [(0, 0)] * x.ndim
    for i in range(k):
        pairs[x.ndim - 1 - i] = (padding[2 * i], padding[2 * i + 1])
    return pairs


_PAD_MODES = {"constant": "constant", "reflect": "reflect", "replicate": "replicate",
              "circular": "circular"}


def pad(input_x, padding, mode="constant", value=None):
    """``ops.pad(input_x, padding, mode='constant', value=None)``: ``padding`` lists (left,
    right) sizes from the last dim backwards; negative sizes crop. Modes: ``'constant'`` (with
    ``value``, default 0), ``'reflect'``, ``'replicate'``, ``'circular'`` (these pad the last
    ``k`` dims (up to 2 for reflect, 3 for the others) of a tensor of ``k + 1`` or ``k + 2``
    dims).

    >>> import graphcell as ms
    >>> pad(ms.Tensor([[1, 2]]), (1, 0), value=9).asnumpy().tolist()
    [[9, 1, 2]]
    """
    fn = "ops.pad"
    check_tensor(input_x, fn, "input_x")
    padding = ints_of(padding, fn, "padding")
    if mode not in _PAD_MODES:
        raise ValueError(f"{fn}: 'mode' must be one of {', '.join(_PAD_MODES)}, but got {mode!r}")
    if value is not None and mode != "constant":
        raise ValueError(f"{fn}: 'value' is only used in 'constant' mode, but mode is {mode!r}")
    if value is not None and not isinstance(value, (bool, int, float)):
        raise TypeError(f"{fn}: 'value' must be a number, but got {type(value).__name__}")
    pairs = _last_dims_pairs(input_x, padding, fn)
    if mode != "constant":
        k = len(padding) // 2
        if input_x.ndim not in (k + 1, k + 2) or not 1 <= k <= (2 if mode == "reflect" else 3):
            raise ValueError(f"{fn}: {mode} mode pads the last 1 to {2 if mode == 'reflect' else 3}"
                             f" dims of a tensor with one or two more dims (the batch, and the "
                             f"channels), but got {k} dims to pad in a tensor of shape "
                             f"{list(input_x.shape)}")
    return _pad_pairs(input_x, pairs, mode, value, fn)


def _pad_primitive(input_x, *, paddings):
    """``ops.Pad(paddings)(x)``: ``paddings`` is a tuple of one (before, after) pair per dim, from
    the first dim; sizes must be non-negative."""
    fn = "Pad"
    check_tensor(input_x, fn, "input_x")
    if not isinstance(paddings, tuple):
        raise TypeError(f"{fn}: 'paddings' must be a tuple of pairs, but got "
                        f"{type(paddings).__name__}")
    pairs = [check_ints(p, fn, "paddings") for p in paddings]
    if len(pairs) != input_x.ndim or any(len(p) != 2 for p in pairs):
        raise ValueError(f"{fn}: 'paddings' must hold one (before, after) pair per dim of the "
                         f"input of shape {list(input_x.shape)}, but got {paddings}")
    if any(v < 0 for p in pairs for v in p):
        raise ValueError(f"{fn}: all elements of 'paddings' must be >= 0, but got {paddings}")
    return _pad_pairs(input_x, pairs, "constant", 0, fn)


_PADV3_MODES = {"constant": "constant", "reflect": "reflect", "edge": "replicate",
                "circular": "circular"}


def _pad_v3(x, paddings, constant_value=None, *, mode="constant", paddings_contiguous=True):
    """``ops.PadV3(mode='constant', paddings_contiguous=True)(x, paddings, constant_value=None)``:
    ``paddings`` as in :func:`pad` (or, not contiguous, all the lefts then all the rights);
    modes ``'constant'``, ``'reflect'``, ``'edge'``, ``'circular'``."""
    fn = "PadV3"
    if mode not in _PADV3_MODES:
        raise ValueError(f"{fn}: 'mode' must be one of {', '.join(_PADV3_MODES)}, but got "
                         f"{mode!r}")
    paddings = ints_of(paddings, fn, "paddings")
    if not paddings_contiguous:
        k = len(paddings) // 2
        paddings = tuple(v for i in range(k) for v in (paddings[i], paddings[k + i]))
    if mode != "constant":
        return pad(x, paddings, _PADV3_MODES[mode])
    if constant_value is None:
        raise ValueError(f"{fn}: 'constant' mode needs 'constant_value'")
    if not isinstance(constant_value, Tensor):
        return pad(x, paddings, "constant", constant_value)
    # a tensor value (computed in the graph, or differentiated) fills the padding by select
    check_tensor(x, fn, "x")
    padded = pad(x, paddings)
    pairs = _last_dims_pairs(x, paddings, fn)
    border = ~np.pad(np.ones(_cropped(x.shape, pairs), bool),
                     [(max(b, 0), max(a, 0)) for b, a in pairs])
    value = F.cast(F.reshape(constant_value, shape=()), dtype=x.dtype)
    return F.select(const(border), F.broadcast_to(value, shape=tuple(padded.shape)), padded)


def _cropped(shape, pairs) -> tuple[int, ...]:
    """``shape`` after the negative paddings of ``pairs`` have cropped it."""
    return tuple(s - max(-b, 0) - max(-a, 0) for s, (b, a) in zip(shape, pairs))


def _mirror_pad(input_x, paddings, *, mode="REFLECT"):
    """``ops.MirrorPad(mode='REFLECT')(x, paddings)``: ``paddings`` an integer tensor of one
    (before, after) row per dim; ``'REFLECT'`` leaves the edge out, ``'SYMMETRIC'`` repeats it."""
    fn = "MirrorPad"
    check_tensor(input_x, fn, "input_x")
    if not isinstance(paddings, Tensor):
        raise TypeError(f"{fn}: 'paddings' must be a Tensor, but got {type(paddings).__name__}")
    return mirror_pad(input_x, paddings, mode)


def mirror_pad(input_x, paddings, mode):
    """``ops.mirror_pad(input_x, paddings, mode)``: see :class:`MirrorPad`; ``paddings`` may also
    be a tuple of pairs."""
    fn = "ops.mirror_pad"
    check_tensor(input_x, fn, "input_x")
    if mode not in ("REFLECT", "SYMMETRIC"):
        raise ValueError(f"{fn}: 'mode' must be 'REFLECT' or 'SYMMETRIC', but got {mode!r}")
    rows = known_values(paddings, fn, "paddings").tolist() if isinstance(paddings, Tensor) \
        else list(paddings)
    pairs = [check_ints(p, fn, "paddings") for p in rows]
    if len(pairs) != input_x.ndim or any(len(p) != 2 or min(p) < 0 for p in pairs):
        raise ValueError(f"{fn}: 'paddings' must hold one non-negative (before, after) pair per "
                         f"dim of the input of shape {list(input_x.shape)}, but got {rows}")
    return _pad_pairs(input_x, pairs, mode.lower(), None, fn)


def padding(x, pad_dim_size=8):
    """``ops.padding(x, pad_dim_size=8)``: the last dim (of size 1; ``x`` at least 2-D) extended
    to ``pad_dim_size`` with zeros."""
    fn = "ops.padding"
    check_tensor(x, fn, "x")
    size = check_int(pad_dim_size, fn, "pad_dim_size")
    if x.ndim < 2:
        raise ValueError(f"{fn}: 'x' must have at least 2 dims, but got shape {list(x.shape)}")
    if x.shape[-1] != 1:
        raise ValueError(f"{fn}: the last dim of 'x' must be 1, but got shape {list(x.shape)}")
    if size < 1:
        raise ValueError(f"{fn}: 'pad_dim_size' must be at least 1, but got {size}")
    return F.pad(x, paddings=(0, 0) * (x.ndim - 1) + (0, size - 1), value=0)


# --- blocks: depth <-> space, batch <-> space ----------------------------------------------------

def _block_size(block_size, fn: str) -> int:
    bs = check_int(block_size, fn, "block_size")
    if bs < 2:
        raise ValueError(f"{fn}: 'block_size' must be at least 2, but got {bs}")
    return bs


def _nchw(x, fn: str) -> None:
    check_tensor(x, fn, "x")
    if x.ndim != 4:
        raise ValueError(f"{fn}: the input must be 4-D (N, C, H, W), but got shape "
                         f"{list(x.shape)}")


def _depth_to_space(x, *, block_size):
    """``ops.DepthToSpace(block_size)(x)``: channel blocks of ``block_size**2`` moved into
    ``block_size`` x ``block_size`` spatial tiles (NCHW, depth-column-row order)."""
    fn = "DepthToSpace"
    _nchw(x, fn)
    bs = _block_size(block_size, fn)
    n, c, h, w = x.shape
    if c % (bs * bs):
        raise ValueError(f"{fn}: the channels {c} must be divisible by block_size**2 = {bs * bs}")
    c2 = c // (bs * bs)
    y = F.transpose(F.reshape(x, shape=(n, bs, bs, c2, h, w)), perm=(0, 3, 4, 1, 5, 2))
    return F.reshape(y, shape=(n, c2, h * bs, w * bs))


def _space_to_depth(x, *, block_size):
    """``ops.SpaceToDepth(block_size)(x)``: ``block_size`` x ``block_size`` spatial tiles moved
    into channels (NCHW; the inverse of DepthToSpace)."""
    fn = "SpaceToDepth"
    _nchw(x, fn)
    bs = _block_size(block_size, fn)
    n, c, h, w = x.shape
    if h % bs or w % bs:
        raise ValueError(f"{fn}: the height {h} and width {w} must be divisible by block_size "
                         f"{bs}")
    y = F.transpose(F.reshape(x, shape=(n, c, h // bs, bs, w // bs, bs)), perm=(0, 3, 5, 1, 2, 4))
    return F.reshape(y, shape=(n, bs * bs * c, h // bs, w // bs))


def _blocks(block_shape, pairs, fn: str, pair_name: str) -> tuple[tuple, list]:
    if isinstance(pairs, Tensor):
        pairs = known_values(pairs, fn, pair_name).tolist()
    pairs = [check_ints(p, fn, pair_name) for p in pairs]
    block = ints_of(block_shape, fn, "block_shape")
    if len(block) == 1 and is_int(block_shape):
        block = block * len(pairs)
    if len(block) != len(pairs) or any(len(p) != 2 or min(p) < 0 for p in pairs):
        raise ValueError(f"{fn}: '{pair_name}' must hold one non-negative pair per block dim "
                         f"({len(block)}), but got {pairs}")
    if any(b < 1 for b in block):
        raise ValueError(f"{fn}: 'block_shape' {block} must be positive")
    return block, pairs


def batch_to_space_nd(input_x, block_shape, crops):
    """``ops.batch_to_space_nd(input_x, block_shape, crops)``: the batch split into
    ``prod(block_shape)`` blocks that are interleaved into the last ``len(block_shape)`` dims,
    which are then cropped by ``crops`` (one (start, end) pair per block dim)."""
    fn = "ops.batch_to_space_nd"
    check_tensor(input_x, fn, "input_x")
    block, crops = _blocks(block_shape, crops, fn, "crops")
    m, shape = len(block), tuple(input_x.shape)
    if input_x.ndim < m + 1:
        raise ValueError(f"{fn}: the input of shape {list(shape)} needs more dims than the "
                         f"{m} block dims")
    nb = math.prod(block)
    if shape[0] % nb:
        raise ValueError(f"{fn}: the batch {shape[0]} must be divisible by prod(block_shape) = "
                         f"{nb}")
    n, rest, spatial = shape[0] // nb, shape[1:-m], shape[-m:]
    r = len(rest)
    y = F.reshape(input_x, shape=block + (n,) + rest + spatial)
    perm = (m,) + tuple(range(m + 1, m + 1 + r)) + tuple(
        i for k in range(m) for i in (m + 1 + r + k, k))
    y = F.reshape(F.transpose(y, perm=perm),
                  shape=(n,) + rest + tuple(s * b for s, b in zip(spatial, block)))
    key = (slice(None),) * (1 + r) + tuple(slice(c0, s * b - c1) for (c0, c1), s, b in
                                           zip(crops, spatial, block))
    for (c0, c1), s, b in zip(crops, spatial, block):
        if c0 + c1 > s * b:
            raise ValueError(f"{fn}: crops {crops} remove more than the {s * b} elements of a "
                             "block dim")
    return y if all(c == (0, 0) for c in map(tuple, crops)) else F.getitem(y, key=key)


def space_to_batch_nd(input_x, block_size, paddings):
    """``ops.space_to_batch_nd(input_x, block_size, paddings)``: the last ``len(block_size)``
    dims padded by ``paddings`` and cut into blocks that go to the batch (the inverse of
    :func:`batch_to_space_nd`)."""
    fn = "ops.space_to_batch_nd"
    check_tensor(input_x, fn, "input_x")
    block, paddings = _blocks(block_size, paddings, fn, "paddings")
    m = len(block)
    if input_x.ndim < m + 1:
        raise ValueError(f"{fn}: the input of shape {list(input_x.shape)} needs more dims than "
                         f"the {m} block dims")
    pairs = [(0, 0)] * (input_x.ndim - m) + [tuple(p) for p in paddings]
    x = _pad_pairs(input_x, pairs, "constant", 0, fn)
    shape = tuple(x.shape)
    n, rest, spatial = shape[0], shape[1:-m], shape[-m:]
    for s, b in zip(spatial, block):
        if s % b:
            raise ValueError(f"{fn}: a padded block dim of size {s} is not divisible by its "
                             f"block size {b}")
    r = len(rest)
    y = F.reshape(x, shape=(n,) + rest + tuple(v for s, b in zip(spatial, block)
                                               for v in (s // b, b)))
    perm = tuple(1 + r + 2 * k + 1 for k in range(m)) + (0,) + tuple(range(1, 1 + r)) + tuple(
        1 + r + 2 * k for k in range(m))
    y = F.transpose(y, perm=perm)
    return F.reshape(y, shape=(n * math.prod(block),) + rest + tuple(
        s // b for s, b in zip(spatial, block)))


def _batch_to_space_nd_primitive(input_x, *, block_shape, crops):
    return batch_to_space_nd(input_x, block_shape, crops)


def _space_to_batch_nd_primitive(input_x, *, block_shape, paddings):
    return space_to_batch_nd(input_x, block_shape, paddings)


def _batch_to_space(x, *, block_size, crops):
    """``ops.BatchToSpace(block_size, crops)(x)``: :func:`batch_to_space_nd` on H and W of an
    NCHW tensor with a square block."""
    _nchw(x, "BatchToSpace")
    return batch_to_space_nd(x, (_block_size(block_size, "BatchToSpace"),) * 2, crops)


def _space_to_batch(x, *, block_size, paddings):
    """``ops.SpaceToBatch(block_size, paddings)(x)``: :func:`space_to_batch_nd` on H and W of an
    NCHW tensor with a square block."""
    _nchw(x, "SpaceToBatch")
    return space_to_batch_nd(x, (_block_size(block_size, "SpaceToBatch"),) * 2, paddings)


def _batch_to_space_nd_v2(input_x, block_shape, crops):
    """``ops.BatchToSpaceNDV2()(x, block_shape, crops)``: block shape and crops as tensors (whose
    values are read)."""
    return batch_to_space_nd(input_x, block_shape, crops)


# --- data formats --------------------------------------------------------------------------------

def _formats(src_format, dst_format, fn: str) -> list:
    for f in (src_format, dst_format):
        if not isinstance(f, str) or len(f) != 4 or sorted(f) != sorted(src_format):
            raise ValueError(f"{fn}: 'src_format' and 'dst_format' must be permutations of one "
                             f"4-letter format such as 'NHWC', but got {src_format!r}, "
                             f"{dst_format!r}")
    return [src_format.index(c) for c in dst_format]


def _data_format_dim_map(x, *, src_format="NHWC", dst_format="NCHW"):
    """``ops.DataFormatDimMap(src_format='NHWC', dst_format='NCHW')(x)``: dim indices in
    ``[-4, 4)`` mapped between formats (each result is ``src_format.index(dst_format[x])``)."""
    fn = "DataFormatDimMap"
    check_tensor(x, fn, "x")
    if x.dtype.np_dtype not in (np.dtype(np.int32), np.dtype(np.int64)):
        raise TypeError(f"{fn}: 'x' must be an Int32 or Int64 tensor, but got {x.dtype}")
    table = const(np.array(_formats(src_format, dst_format, fn), x.dtype.np_dtype))
    return F.take(table, F.mod(x, 4), axis=0)


def _data_format_vec_permute(x, *, src_format="NHWC", dst_format="NCHW"):
    """``ops.DataFormatVecPermute(src_format='NHWC', dst_format='NCHW')(x)``: the 4 entries (or
    4 rows) of ``x`` reordered from one format to the other."""
    fn = "DataFormatVecPermute"
    check_tensor(x, fn, "x")
    if x.ndim not in (1, 2) or x.shape[0] != 4 or (x.ndim == 2 and x.shape[1] != 2):
        raise ValueError(f"{fn}: 'x' must have shape (4,) or (4, 2), but got {list(x.shape)}")
    return F.take(x, const(np.array(_formats(src_format, dst_format, fn))), axis=0)


Pad = primitive("Pad", _pad_primitive, init=("paddings",))
PadV3 = primitive("PadV3", _pad_v3, init=("mode", "paddings_contiguous"))
MirrorPad = primitive("MirrorPad", _mirror_pad, init=("mode",))
Padding = primitive("Padding", padding, init=("pad_dim_size",))
DepthToSpace = primitive("DepthToSpace", _depth_to_space, init=("block_size",))
SpaceToDepth = primitive("SpaceToDepth", _space_to_depth, init=("block_size",))
BatchToSpace = primitive("BatchToSpace", _batch_to_space, init=("block_size", "crops"))
BatchToSpaceND = primitive("BatchToSpaceND", _batch_to_space_nd_primitive,
                           init=("block_shape", "crops"))
BatchToSpaceNDV2 = primitive("BatchToSpaceNDV2", _batch_to_space_nd_v2)
SpaceToBatch = primitive("SpaceToBatch", _space_to_batch, init=("block_size", "paddings"))
SpaceToBatchND = primitive("SpaceToBatchND", _space_to_batch_nd_primitive,
                           init=("block_shape", "paddings"))
DataFormatDimMap = primitive("DataFormatDimMap", _data_format_dim_map,
                             init=("src_format", "dst_format"))
DataFormatVecPermute = primitive("DataFormatVecPermute", _data_format_vec_permute,
                                 init=("src_format", "dst_format"))
