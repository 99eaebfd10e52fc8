"""Layout ops: reshape, transpose, broadcast, expand/squeeze, static indexing, gather/scatter, concat.

They move or select elements without arithmetic. Indexing with a static key (ints, slices, None,
Ellipsis) is ``getitem``/``setitem``; a boolean mask is turned into integer indices on the host by
the PyNative runtime and then uses ``take``/``scatter_update``, whose shapes are static.
"""
from __future__ import annotations

import numpy as np

from graphcell_ir.errors import OpTypeError, ShapeError
from graphcell_ir.ir.types import TensorType, promote
from graphcell_ir.ops import functional as F
from graphcell_ir.ops.registry import AttrKind, Kind, attr, defop
from graphcell_ir.ops.shape_rules import broadcast_shapes, require_tensor

LAYOUT = Kind.LAYOUT


def _fmt(shape) -> str:
    return f"[{','.join(map(str, shape))}]"


def resolve_shape(src: tuple[int, ...], shape: tuple[int, ...]) -> tuple[int, ...]:
    """``shape`` with its one ``-1`` worked out; ShapeError when the sizes cannot match."""
    size = int(np.prod(src, dtype=np.int64))
    unknown = [i for i, s in enumerate(shape) if s == -1]
    if len(unknown) > 1 or any(s < -1 for s in shape):
        raise ShapeError(f"target shape {_fmt(shape)} may hold at most one -1 and no other "
                         "negative size")
    known = int(np.prod([s for s in shape if s != -1], dtype=np.int64))
    if unknown and known == 0 and size == 0:  # MindSpore: an empty tensor's -1 is 0
        return tuple(0 if s == -1 else s for s in shape)
    if unknown:
        if known == 0 or size % known:
            raise ShapeError(f"cannot reshape a tensor of shape {_fmt(src)} ({size} elements) to "
                             f"{_fmt(shape)}: {size} is not a multiple of {known}")
        shape = tuple(size // known if s == -1 else s for s in shape)
    elif known != size:
        raise ShapeError(f"cannot reshape a tensor of shape {_fmt(src)} ({size} elements) to "
                         f"{_fmt(shape)} ({known} elements)")
    return tuple(shape)


def _reshape_infer(x, *, shape):
    x = require_tensor(x)
    return TensorType(x.dtype, resolve_shape(x.shape, shape))


def _specialize_reshape(types, attrs, into):
    shape = resolve_shape(tuple(types[0].shape), tuple(attrs["shape"]))
    return lambda x: x.reshape(shape)


reshape = defop("reshape", ("x",), kind=LAYOUT, ms_name="Reshape", attrs=[attr("shape", AttrKind.INTS)],
                infer=_reshape_infer,
                ref=lambda x, *, shape: np.reshape(x, resolve_shape(x.shape, shape)),
                bprop=lambda x, out, dout, shape: (F.reshape(dout, tuple(x.shape)),),
                specialize=_specialize_reshape)


def _perm(perm, ndim):
    if perm is None or perm == ():
        return tuple(reversed(range(ndim)))
    if sorted(p % ndim if ndim else p for p in perm) != list(range(ndim)) or len(perm) != ndim:
        raise ShapeError(f"perm {list(perm)} is not a permutation of the {ndim} axes")
    return tuple(p % ndim for p in perm)


def _transpose_infer(x, *, perm):
    x = require_tensor(x)
    p = _perm(perm, x.ndim)
    return TensorType(x.dtype, tuple(x.shape[i] for i in p))


def bprop_transpose(x, out, dout, *, perm):
    p = _perm(perm, len(x.shape))
    return (F.transpose(dout, perm=tuple(int(i) for i in np.argsort(p))),)


transpose = defop("transpose", ("x",), kind=LAYOUT, ms_name="Transpose",
                  attrs=[attr("perm", AttrKind.OPT_INTS, None)], infer=_transpose_infer,
                  ref=lambda x, *, perm: np.transpose(x, _perm(perm, x.ndim)), bprop=bprop_transpose)


def _broadcast_to_infer(x, *, shape):
    x = require_tensor(x)
    if any(s < -1 for s in shape):
        raise ShapeError(f"target shape {_fmt(shape)} has a negative size (only -1, 'keep', is allowed)")
    lead = len(shape) - x.ndim
    if any(s == -1 for s in shape[:max(lead, 0)]):
        raise ShapeError(f"-1 in target shape {_fmt(shape)} keeps a dim of x {x}, so it cannot "
                         "stand for a new leading dim")
    shape = tuple(x.shape[i - lead] if s == -1 else s for i, s in enumerate(shape))
    if len(shape) < x.ndim or broadcast_shapes(x.shape, shape) != shape:
        raise ShapeError(f"cannot broadcast a tensor of shape {_fmt(x.shape)} to {_fmt(shape)}")
    return TensorType(x.dtype, shape)


broadcast_to = defop("broadcast_to", ("x",), kind=LAYOUT, ms_name="BroadcastTo",
                     attrs=[attr("shape", AttrKind.INTS)], prim_init=("shape",),
                     infer=_broadcast_to_infer,
                     ref=lambda x, *, shape: np.array(np.broadcast_to(
                         x, _broadcast_to_infer(TensorType(_dt(x), x.shape), shape=shape).shape)),
                     bprop=lambda x, out, dout, shape: (F.sum_to(dout, tuple(x.shape)),))


def _dt(x):
    from graphcell_ir.ir.types import dtype_from_numpy
    return dtype_from_numpy(x.dtype)


def _expand_dims_infer(x, *, axis):
    x = require_tensor(x)
    if not -x.ndim - 1 <= axis <= x.ndim:
        raise ShapeError(f"axis {axis} is out of range for inserting into a rank-{x.ndim} tensor")
    a = axis % (x.ndim + 1)
    return TensorType(x.dtype, x.shape[:a] + (1,) + x.shape[a:])


expand_dims = defop("expand_dims", ("x",), kind=LAYOUT, ms_name="ExpandDims",
                    attrs=[attr("axis", AttrKind.INT)], infer=_expand_dims_infer,
                    ref=lambda x, *, axis: np.expand_dims(x, axis),
                    bprop=lambda x, out, dout, axis: (F.reshape(dout, tuple(x.shape)),))


def _squeeze_axes(shape, axis):
    if axis is None or axis == ():
        return tuple(i for i, s in enumerate(shape) if s == 1)
    out = []
    for a in axis:
        if not -len(shape) <= a < len(shape):
            raise ShapeError(f"axis {a} is out of range for a tensor of shape {_fmt(shape)}")
        if shape[a] != 1:
            raise ShapeError(f"cannot squeeze axis {a} of shape {_fmt(shape)}: its size is {shape[a]}")
        out.append(a % len(shape))
    return tuple(out)


def _squeeze_infer(x, *, axis):
    x = require_tensor(x)
    drop = _squeeze_axes(x.shape, axis)
    return TensorType(x.dtype, tuple(s for i, s in enumerate(x.shape) if i not in drop))


squeeze = defop("squeeze", ("x",), kind=LAYOUT, ms_name="Squeeze", attrs=[attr("axis", AttrKind.OPT_INTS, None)],
                prim_init=("axis",), infer=_squeeze_infer,
                ref=lambda x, *, axis: np.squeeze(x, _squeeze_axes(x.shape, axis)),
                bprop=lambda x, out, dout, axis: (F.reshape(dout, tuple(x.shape)),))


# --- static indexing ---------------------------------------------------------------------------

def index_shape(shape: tuple[int, ...], key: tuple) -> tuple[int, ...]:
    """The shape of ``x[key]`` for a static key, computed without touching data."""
    probe = np.lib.stride_tricks.as_strided(np.zeros(1, np.int8), shape, (0,) * len(shape))
    try:
        return probe[key].shape
    except IndexError as e:
        raise ShapeError(f"index {format_index(key)} does not fit shape {_fmt(shape)}: {e}") from None


def format_index(key: tuple) -> str:
    def one(e):
        if e is Ellipsis:
            return "..."
        if e is None:
            return "None"
        if isinstance(e, slice):
            parts = ["" if v is None else str(v) for v in (e.start, e.stop, e.step)]
            return ":".join(parts[:2]) + (f":{parts[2]}" if e.step is not None else "")
        return str(e)
    return "[" + ", ".join(one(e) for e in key) + "]"


def _getitem_infer(x, *, key):
    x = require_tensor(x)
    return TensorType(x.dtype, index_shape(x.shape, key))


getitem = defop("getitem", ("x",), kind=LAYOUT, attrs=[attr("key", AttrKind.INDEX)],
                infer=_getitem_infer, ref=lambda x, *, key: np.array(x[key]),
                bprop=lambda x, out, dout, key: (F.setitem(F.zeros_like(x), dout, key=key),))


def _setitem_infer(x, value, *, key):
    x = require_tensor(x)
    target = index_shape(x.shape, key)
    vshape = getattr(value, "shape", ())
    if broadcast_shapes(target, vshape) != target:
        raise ShapeError(f"cannot assign a value of shape {_fmt(vshape)} to x{format_index(key)} of "
                         f"shape {_fmt(target)}")
    return x


def _setitem_ref(x, value, *, key):
    out = np.array(x, copy=True)
    out[key] = value
    return out


def bprop_setitem(x, value, out, dout, *, key):
    dx = F.setitem(dout, F.zeros_like(F.getitem(dout, key=key)), key=key)
    dv = F.getitem(dout, key=key) if hasattr(value, "shape") and not isinstance(value, (int, float)) else None
    if dv is not None:
        dv = F.cast_like(F.sum_to(dv, tuple(value.shape)), value)
    return dx, dv


setitem = defop("setitem", ("x", "value"), kind=LAYOUT,
                attrs=[attr("key", AttrKind.INDEX)], infer=_setitem_infer, ref=_setitem_ref,
                bprop=bprop_setitem)


# --- gather / scatter with index tensors --------------------------------------------------------

def _take_infer(x, indices, *, axis):
    x, indices = require_tensor(x, "x"), require_tensor(indices, "indices")
    if not indices.dtype.is_int:
        raise OpTypeError(f"indices must be an integer tensor, got {indices}")
    if not -x.ndim <= axis < x.ndim:
        raise ShapeError(f"axis {axis} is out of range for x {x}")
    a = axis % x.ndim
    return TensorType(x.dtype, x.shape[:a] + indices.shape + x.shape[a + 1:])


def _take_ref(x, indices, *, axis):
    a = axis % x.ndim
    if indices.size and (indices.min() < -x.shape[a] or indices.max() >= x.shape[a]):
        raise ShapeError(f"Gather: an index is out of range for axis {a} of size {x.shape[a]}")
    return np.take(x, indices, axis=a)


def _specialize_take(types, attrs, into):
    """numpy's own take: an index out of range raises IndexError, and the runner's fallback
    (the interpreter, running ``_take_ref``) reports it as the ShapeError ``ref`` gives."""
    axis = attrs["axis"] % len(types[0].shape)
    return lambda x, indices: x.take(indices, axis=axis)


take = defop("take", ("x", "indices"), kind=LAYOUT, ms_name="Gather", aliases=("gather",),
             attrs=[attr("axis", AttrKind.INT, 0)], infer=_take_infer, ref=_take_ref,
             bprop=lambda x, indices, out, dout, axis: (
                 F.scatter_add(F.zeros_like(x), indices, dout, axis=axis), None),
             specialize=_specialize_take)


def _scatter_infer(x, indices, updates, *, axis):
    expected = _take_infer(x, indices, axis=axis)
    updates = require_tensor(updates, "updates")
    if broadcast_shapes(expected.shape, updates.shape) != expected.shape:
        raise ShapeError(f"updates {updates} do not fit x {x} at indices {indices} "
                         f"(expected shape {_fmt(expected.shape)})")
    return x


def _moved(x, indices, axis):
    a = axis % x.ndim
    return a, np.moveaxis(x, a, 0)


def _rows_of(x, indices, updates, axis):
    """``x`` with ``axis`` first, and ``updates`` as one row per index in that layout."""
    a, view = _moved(x, indices, axis)
    upd = np.broadcast_to(updates, _take_ref(x, indices, axis=axis).shape)
    upd = np.moveaxis(upd.reshape(x.shape[:a] + (-1,) + x.shape[a + 1:]) if indices.ndim != 1
                      else upd, a, 0)
    return view, upd


def _scatter_add_into(x, indices, updates, *, axis):
    view, upd = _rows_of(x, indices, updates, axis)
    np.add.at(view, indices.reshape(-1), upd.astype(x.dtype))
    return x


def _scatter_update_into(x, indices, updates, *, axis):
    view, upd = _rows_of(x, indices, updates, axis)
    view[indices.reshape(-1)] = upd
    return x


def _rows_on_axis_0(types, attrs) -> bool:
    """Whether a scatter writes whole rows of axis 0 at a scalar or a vector of indices: then
    numpy's own indexing writes what the references write (the last of repeated indices wins,
    as in ``_scatter_update_into``)."""
    x, indices, _ = types
    return attrs["axis"] % len(x.shape) == 0 and len(indices.shape) <= 1


def _specialize_scatter_update(types, attrs, into):
    if not _rows_on_axis_0(types, attrs):
        return None

    def write(x, indices, updates):
        x[indices] = updates
        return x
    return write if into else lambda x, indices, updates: write(x.copy(), indices, updates)


def _specialize_scatter_add(types, attrs, into):
    """At one index only (repeated indices need ``np.add.at``), updates of x's dtype."""
    x, indices, updates = types
    if not _rows_on_axis_0(types, attrs) or indices.shape != () or updates.dtype != x.dtype:
        return None

    def add(x, indices, updates):
        x[indices] += updates
        return x
    return add if into else lambda x, indices, updates: add(x.copy(), indices, updates)


def _scatter_add_ref(x, indices, updates, *, axis):
    return _scatter_add_into(np.array(x, copy=True), indices, updates, axis=axis)


def _scatter_update_ref(x, indices, updates, *, axis):
    return _scatter_update_into(np.array(x, copy=True), indices, updates, axis=axis)


scatter_add = defop("scatter_add", ("x", "indices", "updates"), kind=LAYOUT,
                    attrs=[attr("axis", AttrKind.INT, 0)], infer=_scatter_infer, ref=_scatter_add_ref,
                    ref_into=_scatter_add_into, specialize=_specialize_scatter_add,
                    bprop=lambda x, indices, updates, out, dout, axis: (
                        dout, None, F.cast_like(F.sum_to(F.take(dout, indices, axis=axis),
                                                         tuple(updates.shape)), updates)))

def bprop_scatter_update(x, indices, updates, out, dout, axis):
    """The written rows' cotangent goes to ``updates``, the rest to ``x``. The rows are read
    before the cotangent is overwritten, so a loop can do that write in place."""
    rows = F.take(dout, indices, axis=axis)
    dupdates = F.cast_like(F.sum_to(rows, tuple(updates.shape)), updates)
    return F.scatter_update(dout, indices, F.zeros_like(rows), axis=axis), None, dupdates


scatter_update = defop("scatter_update", ("x", "indices", "updates"), kind=LAYOUT,
                       attrs=[attr("axis", AttrKind.INT, 0)],
                       infer=_scatter_infer, ref=_scatter_update_ref, ref_into=_scatter_update_into,
                       bprop=bprop_scatter_update, specialize=_specialize_scatter_update)


# --- concat ------------------------------------------------------------------------------------

def _concat_infer(*xs, axis):
    if not xs:
        raise OpTypeError("needs at least one tensor")
    xs = [require_tensor(x, f"tensor {i}") for i, x in enumerate(xs)]
    nd = xs[0].ndim
    if not -nd <= axis < nd:
        raise ShapeError(f"axis {axis} is out of range for rank-{nd} tensors")
    a = axis % nd
    dtype = xs[0].dtype
    for i, x in enumerate(xs):
        if x.ndim != nd or x.shape[:a] + x.shape[a + 1:] != xs[0].shape[:a] + xs[0].shape[a + 1:]:
            raise ShapeError(f"tensor {i} of shape {_fmt(x.shape)} does not match tensor 0 of shape "
                             f"{_fmt(xs[0].shape)} outside axis {a}")
        dtype = promote(dtype, x.dtype)
    return TensorType(dtype, xs[0].shape[:a] + (sum(x.shape[a] for x in xs),) + xs[0].shape[a + 1:])


def _concat_ref(*xs, axis):
    return np.concatenate(xs, axis=axis).astype(_concat_infer(
        *(TensorType(_dt(x), x.shape) for x in xs), axis=axis).dtype.np_dtype, copy=False)


def bprop_concat(*args, axis):
    *xs, out, dout = args
    a = axis % len(xs[0].shape)
    grads, start = [], 0
    for x in xs:
        n = x.shape[a]
        key = (slice(None),) * a + (slice(start, start + n, None),)
        grads.append(F.cast_like(F.getitem(dout, key=key), x))
        start += n
    return tuple(grads)


concat = defop("concat", ("*xs",), kind=LAYOUT, ms_name="Concat", aliases=("cat",),
               attrs=[attr("axis", AttrKind.INT, 0)], prim_init=("axis",),
               infer=_concat_infer, ref=_concat_ref, bprop=bprop_concat)


