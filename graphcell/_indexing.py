"""``Tensor.__getitem__`` / ``__setitem__``: turning Python index keys into registry ops.

Static keys (ints, slices, None, Ellipsis) become ``getitem``/``setitem`` with the key as a static
attribute. A boolean mask (Tensor, numpy array or list) selects positions whose count depends on
the data: the runtime turns it into integer indices on the host and uses ``take`` /
``scatter_update``, whose shapes are static. An integer index tensor uses ``take`` directly.

Any other key numpy accepts (several index tensors, ``x[i, j]``; an index tensor beside ints or
slices, ``x[i, 1:]``; a mask beside other parts) is resolved on the host by numpy's own rules into
the flat positions it reads: reading is ``take`` of those positions, writing is ``tensor_scatter``
(``update``: the last of duplicate positions wins, as in numpy), so gradients flow through both.
(Graph mode indexes in the frontend: ``graphcell_ir/frontend/exprs.py``.)
"""
from __future__ import annotations

import numpy as np

from graphcell_ir.ops import functional as F

_ARRAYISH = (np.ndarray, list)


def _tensor_cls():
    from graphcell.tensor import Tensor
    return Tensor


def _as_index_array(part):
    """The numpy array behind an array-like index part, or None for a static part."""
    Tensor = _tensor_cls()
    if isinstance(part, Tensor):
        return part._data if part.ndim > 0 or part.dtype.is_bool else None
    if isinstance(part, _ARRAYISH):
        return np.asarray(part)
    return None


def _static_part(part):
    Tensor = _tensor_cls()
    if isinstance(part, Tensor):  # a 0-d integer tensor is an int
        return part.__index__()
    if isinstance(part, (bool, np.bool_)):
        raise IndexError("a Python bool is not a valid Tensor index; use a boolean mask Tensor")
    if part is None or part is Ellipsis or isinstance(part, slice):
        return part
    if isinstance(part, (int, np.integer)):
        return int(part)
    raise IndexError(f"Tensor index parts must be int, slice, None, Ellipsis, or an integer/boolean "
                     f"Tensor, got {type(part).__name__} {part!r}")


def _split(key):
    """(static key tuple, None), or (None, (axis, index array)) for one array-like part with only
    ':' beside it, or (None, None) for any other key with arrays (see :func:`_positions`)."""
    parts = key if isinstance(key, tuple) else (key,)
    arrays = [(i, a) for i, p in enumerate(parts) if (a := _as_index_array(p)) is not None]
    if not arrays:
        return tuple(_static_part(p) for p in parts), None
    if len(arrays) > 1:
        return None, None
    (pos, arr), = arrays
    others = parts[:pos] + parts[pos + 1:]
    if any(not (isinstance(p, slice) and p == slice(None)) for p in others):
        return None, None
    return None, (pos, arr)


def _mask_indices(x, axis: int, mask: np.ndarray):
    """Flattened view of x over the masked axes, and the integer positions the mask selects."""
    Tensor = _tensor_cls()
    covered = x.shape[axis:axis + mask.ndim]
    if mask.shape != covered:
        raise IndexError(f"boolean mask of shape {list(mask.shape)} does not match the indexed "
                         f"dimensions {list(covered)} of a Tensor of shape {list(x.shape)}")
    flat_shape = x.shape[:axis] + (int(np.prod(covered, dtype=np.int64)),) + x.shape[axis + mask.ndim:]
    flat = F.reshape(x, shape=flat_shape)
    return flat, Tensor._wrap(np.flatnonzero(mask).astype(np.int64))


def _numpy_part(part):
    Tensor = _tensor_cls()
    if isinstance(part, Tensor):
        return part._data if part.ndim > 0 or part.dtype.is_bool else part.__index__()
    if isinstance(part, _ARRAYISH):
        return np.asarray(part)
    return _static_part(part)


def _positions(x, key) -> np.ndarray:
    """The flat positions of ``x`` that ``x[key]`` reads, by numpy's rules, in the result's shape."""
    parts = key if isinstance(key, tuple) else (key,)
    np_key = tuple(_numpy_part(p) for p in parts)
    for p in np_key:
        if isinstance(p, np.ndarray) and p.dtype != np.bool_ and p.dtype.kind not in "iu":
            raise IndexError(f"index tensors must be integer or boolean, got dtype {p.dtype}")
    flat = np.arange(int(np.prod(x.shape, dtype=np.int64)), dtype=np.int64).reshape(x.shape)
    try:
        return flat[np_key]
    except IndexError as e:
        raise IndexError(f"Tensor index does not fit a Tensor of shape {list(x.shape)}: "
                         f"{e}") from None


def _flat_index(positions: np.ndarray):
    return _tensor_cls()._wrap(np.ascontiguousarray(positions.reshape(-1, 1)))


def getitem(x, key):
    static, advanced = _split(key)
    if static is None and advanced is None:
        where = _positions(x, key)
        flat = F.gather_nd(F.reshape(x, shape=(-1,)), _flat_index(where))
        return F.reshape(flat, shape=where.shape)
    if advanced is None:
        return F.getitem(x, key=static)
    axis, arr = advanced
    if arr.dtype == np.bool_:
        flat, idx = _mask_indices(x, axis, arr)
        return F.take(flat, idx, axis=axis)
    if arr.dtype.kind not in "iu":
        raise IndexError(f"index tensors must be integer or boolean, got dtype {arr.dtype}")
    return F.take(x, _tensor_cls()._wrap(arr.astype(np.int64)), axis=axis)


def _value_operand(x, value):
    Tensor = _tensor_cls()
    if isinstance(value, Tensor):
        return value
    if isinstance(value, (bool, int, float)):
        return Tensor._wrap(np.asarray(value, dtype=x._data.dtype))
    return Tensor(value, x.dtype)


def setitem(x, key, value) -> None:
    """Compute the updated tensor through the registry, then ``x`` becomes it.

    The ops read a snapshot of ``x`` (same data, same tape node), so when a gradient is being
    recorded the tape sees ``old x -> setitem -> new x`` rather than a node feeding itself.
    """
    Tensor = _tensor_cls()
    x_obj, x = x, _snapshot(x)
    static, advanced = _split(key)
    if static is None and advanced is None:
        where = _positions(x, key)
        upd = _value_operand(x, value)
        upd = upd if upd.dtype == x.dtype else F.cast(upd, dtype=x.dtype)
        if tuple(upd.shape) != where.shape:
            upd = F.broadcast_to(upd, shape=where.shape)
        flat = F.tensor_scatter(F.reshape(x, shape=(-1,)), _flat_index(where),
                                F.reshape(upd, shape=(-1,)), reduction="update")
        out = F.reshape(flat, shape=x.shape)
    elif advanced is None:
        if not isinstance(value, (bool, int, float, Tensor)):
            value = Tensor(value, x.dtype)
        out = F.setitem(x, value, key=static)
    else:
        axis, arr = advanced
        if arr.dtype == np.bool_:
            flat, idx = _mask_indices(x, axis, arr)
            upd = F.scatter_update(flat, idx, _value_operand(x, value), axis=axis)
            out = F.reshape(upd, shape=x.shape)
        else:
            idx = Tensor._wrap(arr.astype(np.int64))
            out = F.scatter_update(x, idx, _value_operand(x, value), axis=axis)
    _become(x_obj, out)


def _snapshot(x):
    """A new Tensor standing for x's current value, in x's place on the tape."""
    snap = _tensor_cls()._wrap(x._data)
    node = snap._node = x._node
    if node is not None:
        node.outputs = tuple(snap if o is x else o for o in node.outputs)
    return snap


def _become(x, out) -> None:
    """``x`` takes ``out``'s data and, when taped, its place as the node's output."""
    x._data = out._data
    node = out._node
    x._node = node
    if node is not None:
        node.outputs = tuple(x if o is out else o for o in node.outputs)
