"""Indexing with index tensors (MindSpore's gather, scatter, segment and mask functions), written
against the functional API ``F`` so each runs eagerly in PyNative and emits IR when graph mode
traces it.

The registry primitives underneath (``graphcell_ir/ops/indexing.py``): ``take`` (Gather),
``gather_d`` (GatherD), ``gather_nd``, ``scatter_elements``, ``tensor_scatter`` (every
``TensorScatter*``/``ScatterNd*``/``Scatter*`` name), ``unsorted_segment`` and ``inplace_write``.

MindSpore's in-place scatters (``ScatterUpdate``, ``ScatterNdAdd``, ``IndexAdd``...) return the
updated tensor and write it into their first operand (``inplace_write``): at once in PyNative (any
Tensor, as MindSpore), and in graph mode when the operand is a Parameter (the value is threaded
back as ``assign``'s is); a graph value that is not a Parameter is left as it was — use the
result. ``TensorScatter*``, ``Inplace{Add,Sub,Update}`` and ``index_fill`` are functional, as in
MindSpore 2.10.

Names whose output shape depends on the data (``masked_select``, ``nonzero``, ``argwhere``) read
the values on the host: they run in PyNative; graph mode refuses them at the user's line.

Example::

    >>> import numpy as np, graphcell as ms
    >>> from graphcell import ops
    >>> x = ms.Tensor(np.array([[1., 2., 3.], [4., 5., 6.]], np.float32))
    >>> ops.gather_d(x, 1, ms.Tensor(np.array([[2, 0], [1, 1]], np.int32))).asnumpy().tolist()
    [[3.0, 1.0], [5.0, 5.0]]
"""
from __future__ import annotations

import numpy as np

from graphcell.ops._faces import overload
from graphcell.ops.function._utils import normalize_axis, scalar, shape_of
from graphcell.ops.primitive import primitive
from graphcell.tensor import Tensor
from graphcell_ir.ir.types import bool_, int32, int64
from graphcell_ir.ops import functional as F

__all__ = [
    # gathers
    "gather", "gather_d", "gather_elements", "gather_nd", "index_select",
    # scatters
    "tensor_scatter_update", "tensor_scatter_add", "tensor_scatter_sub", "tensor_scatter_mul",
    "tensor_scatter_div", "tensor_scatter_max", "tensor_scatter_min", "tensor_scatter_elements",
    "scatter", "scatter_nd",
    "scatter_update", "scatter_add", "scatter_mul", "scatter_div", "scatter_max",
    "scatter_min",
    "scatter_nd_update", "scatter_nd_add", "scatter_nd_sub", "scatter_nd_mul", "scatter_nd_div",
    "scatter_nd_max", "scatter_nd_min",
    "index_add", "inplace_index_add", "inplace_update", "inplace_add", "inplace_sub", "index_fill",
    # segments
    "unsorted_segment_sum", "unsorted_segment_max", "unsorted_segment_min",
    "unsorted_segment_prod",
    # masks and positions
    "masked_fill", "masked_select", "argwhere", "nonzero",
    # Primitive classes
    "Gather", "GatherD",
    "TensorScatterUpdate", "TensorScatterAdd", "TensorScatterSub", "TensorScatterMul",
    "TensorScatterDiv", "TensorScatterMax", "TensorScatterMin", "TensorScatterElements",
    "ScatterUpdate", "ScatterAdd", "ScatterSub", "ScatterMul", "ScatterDiv", "ScatterMax",
    "ScatterMin", "ScatterNdUpdate", "ScatterNdAdd", "ScatterNdSub", "ScatterNdMul",
    "ScatterNdDiv", "ScatterNdMax", "ScatterNdMin", "ScatterNd", "ScatterNonAliasingAdd",
    "ScatterAddWithAxis", "IndexAdd", "InplaceIndexAdd", "InplaceUpdate", "InplaceAdd",
    "InplaceSub", "IndexFill",
    "UnsortedSegmentSum", "UnsortedSegmentMax", "UnsortedSegmentMin", "UnsortedSegmentProd",
    "MaskedFill", "MaskedSelect", "NonZero",
]


# --- argument checks -----------------------------------------------------------------------------

def _require_tensor(fn: str, name: str, value) -> None:
    if not isinstance(value, Tensor):
        raise TypeError(f"{fn}: {name} must be a Tensor, got {type(value).__name__}")


def _require_int_tensor(fn: str, name: str, value, dtypes=(int32, int64)) -> None:
    _require_tensor(fn, name, value)
    if value.dtype not in dtypes:
        allowed = " or ".join(str(d) for d in dtypes)
        raise TypeError(f"{fn}: {name} must be a {allowed} Tensor, got {value.dtype}")


def _require_bool_tensor(fn: str, name: str, value) -> None:
    _require_tensor(fn, name, value)
    if value.dtype != bool_:
        raise TypeError(f"{fn}: {name} must be a Bool Tensor, got {value.dtype}")


def _require_int(fn: str, name: str, value) -> int:
    value = scalar(value)
    if not isinstance(value, (int, np.integer)) or isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{fn}: {name} must be an int, got {type(value).__name__}")
    return int(value)


def _wrap_negative(index, size: int):
    """``index`` with negative entries counted from the end (``index + size`` where < 0)."""
    return F.select(F.less(index, 0), F.add(index, size), index)


def _as_rows(index):
    """A 1-D (or 0-d) index as an ``(n, 1)`` index of rows, for ``tensor_scatter``."""
    return F.reshape(index, shape=(-1, 1))


def _current(x):
    """The value ``x`` holds now, as a tensor of its own: an in-place write rebinds ``x``'s buffer
    after the scatter is recorded, and the scatter's gradient must keep reading the old values.
    (A same-shape reshape: free in graph mode, a view in PyNative.)"""
    return F.reshape(x, shape=tuple(x.shape))


def _host_values(t, what: str) -> np.ndarray:
    """The values of ``t``: names whose output shape depends on them need them while running."""
    try:
        return np.asarray(t.asnumpy())
    except TypeError as e:  # a compiled tensor: graph mode does not know values while compiling
        raise type(e)(f"{what}: its output's shape depends on the values of its input, which "
                      f"graph mode does not know while compiling; run it in PyNative mode") from None


# --- gathers -------------------------------------------------------------------------------------

def gather(input_params, input_indices, axis, batch_dims=0):
    """``ops.gather(input_params, input_indices, axis, batch_dims=0)``: the slices of
    ``input_params`` at ``input_indices`` along ``axis`` (negative indices count from the end).

    With ``batch_dims`` = b, the first b axes of both are batch axes gathered pairwise:
    ``out[i, ...] = gather(input_params[i], input_indices[i], axis - b)``.
    """
    _require_tensor("ops.gather", "input_params", input_params)
    _require_int_tensor("ops.gather", "input_indices", input_indices)
    axis = normalize_axis(_require_int("ops.gather", "axis", axis), input_params.ndim)
    batch_dims = _require_int("ops.gather", "batch_dims", batch_dims)
    if batch_dims < 0:
        batch_dims += input_indices.ndim
    if not 0 <= batch_dims <= min(axis, input_indices.ndim):
        raise ValueError(f"ops.gather: batch_dims {batch_dims} must be in [0, min(axis, "
                         f"input_indices.ndim)] = [0, {min(axis, input_indices.ndim)}]")
    if batch_dims == 0:
        return F.take(input_params, input_indices, axis=axis)
    return _batched_gather(input_params, input_indices, axis, batch_dims)


def _batched_gather(params, indices, axis: int, b: int):
    batch = tuple(params.shape[:b])
    if tuple(indices.shape[:b]) != batch:
        raise ValueError(f"ops.gather: the batch axes of input_indices {list(indices.shape[:b])} "
                         f"must equal those of input_params {list(batch)}")
    n = int(np.prod(batch, dtype=np.int64))
    p = F.reshape(params, shape=(n,) + tuple(params.shape[b:]))
    i = F.reshape(indices, shape=(n,) + tuple(indices.shape[b:]))
    rows = [F.take(p[k], i[k], axis=axis - b) for k in range(n)]
    out = F.concat(*(F.expand_dims(r, axis=0) for r in rows), axis=0)
    return F.reshape(out, shape=batch + tuple(out.shape[1:]))


def gather_d(x, dim, index):
    """``ops.gather_d(x, dim, index)``: ``out[i][j] = x[index[i][j]][j]`` for ``dim`` 0 (and so on);
    ``index`` has the rank of ``x`` and is no larger outside ``dim``."""
    _require_tensor("ops.gather_d", "x", x)
    _require_int_tensor("ops.gather_d", "index", index)
    return F.gather_d(x, index, dim=_require_int("ops.gather_d", "dim", dim))


def gather_elements(input, dim, index):  # noqa: A002 - MindSpore's parameter name
    """``ops.gather_elements(input, dim, index)``: ``ops.gather_d`` under PyTorch's name."""
    return gather_d(input, dim, index)


def gather_nd(input_x, indices):
    """``ops.gather_nd(input_x, indices)``: the slices of ``input_x`` whose leading coordinates are
    the last axis of ``indices``; the result has shape ``indices.shape[:-1] + input_x.shape[K:]``."""
    _require_tensor("ops.gather_nd", "input_x", input_x)
    _require_int_tensor("ops.gather_nd", "indices", indices)
    return F.gather_nd(input_x, indices)


def index_select(input, axis, index):  # noqa: A002
    """``ops.index_select(input, axis, index)``: the entries of ``input`` at the 1-D ``index``
    along ``axis``; the rank is kept."""
    _require_tensor("ops.index_select", "input", input)
    _require_int_tensor("ops.index_select", "index", index)
    if index.ndim != 1:
        raise ValueError(f"ops.index_select: the dimension of index must be 1, got {index.ndim}")
    axis = normalize_axis(_require_int("ops.index_select", "axis", axis), input.ndim)
    return F.take(input, index, axis=axis)


def _gather_primitive(input_params, input_indices, axis, batch_dims=0):
    return gather(input_params, input_indices, axis, batch_dims)


Gather = primitive("Gather", _gather_primitive, init=("batch_dims",))
GatherD = primitive("GatherD", gather_d)


# --- functional scatters -------------------------------------------------------------------------

def _tensor_scatter(name: str, reduction: str):
    fn_name = f"ops.tensor_scatter_{name}"

    def fn(input_x, indices, updates):
        _require_tensor(fn_name, "input_x", input_x)
        _require_int_tensor(fn_name, "indices", indices)
        _require_tensor(fn_name, "updates", updates)
        if indices.ndim < 2:
            raise ValueError(f"{fn_name}: indices must have at least 2 dimensions (the last one "
                             f"addresses input_x), got {indices.ndim}")
        return F.tensor_scatter(input_x, indices, updates, reduction=reduction)
    fn.__name__ = fn.__qualname__ = f"tensor_scatter_{name}"
    fn.__doc__ = (f"``{fn_name}(input_x, indices, updates)``: ``input_x`` with ``updates`` "
                  f"{_VERBS[reduction]} the slices the last axis of ``indices`` addresses "
                  "(duplicate indices combine in order). Functional: ``input_x`` is unchanged.")
    return fn


_VERBS = {"update": "written to", "add": "added to", "sub": "subtracted from",
          "mul": "multiplying", "div": "dividing", "max": "maxed into", "min": "minned into"}

tensor_scatter_update = _tensor_scatter("update", "update")
tensor_scatter_add = _tensor_scatter("add", "add")
tensor_scatter_sub = _tensor_scatter("sub", "sub")
tensor_scatter_mul = _tensor_scatter("mul", "mul")
tensor_scatter_div = _tensor_scatter("div", "div")
tensor_scatter_max = _tensor_scatter("max", "max")
tensor_scatter_min = _tensor_scatter("min", "min")

TensorScatterUpdate = primitive("TensorScatterUpdate", tensor_scatter_update)
TensorScatterAdd = primitive("TensorScatterAdd", tensor_scatter_add)
TensorScatterSub = primitive("TensorScatterSub", tensor_scatter_sub)
TensorScatterMul = primitive("TensorScatterMul", tensor_scatter_mul)
TensorScatterDiv = primitive("TensorScatterDiv", tensor_scatter_div)
TensorScatterMax = primitive("TensorScatterMax", tensor_scatter_max)
TensorScatterMin = primitive("TensorScatterMin", tensor_scatter_min)


def tensor_scatter_elements(input_x, indices, updates, axis=0, reduction="none"):
    """``ops.tensor_scatter_elements(input_x, indices, updates, axis=0, reduction='none')``:
    ``input_x[..., indices[i][j], ...] = updates[i][j]`` along ``axis`` (``reduction='add'``
    adds); ``indices`` and ``updates`` have one shape, of the rank of ``input_x``."""
    name = "ops.tensor_scatter_elements"
    _require_tensor(name, "input_x", input_x)
    _require_int_tensor(name, "indices", indices)
    _require_tensor(name, "updates", updates)
    if reduction not in ("none", "add"):
        raise ValueError(f"{name}: reduction must be 'none' or 'add', got {reduction!r}")
    if input_x.ndim == 0:
        raise ValueError(f"{name}: input_x must have at least one dimension")
    return F.scatter_elements(input_x, indices, updates, axis=_require_int(name, "axis", axis),
                              reduction=reduction)


TensorScatterElements = primitive("TensorScatterElements", tensor_scatter_elements,
                                  init=("axis", "reduction"))


def _scatter_add_with_axis(input_x, indices, updates, axis=0):
    return tensor_scatter_elements(input_x, indices, updates, axis, "add")


ScatterAddWithAxis = primitive("ScatterAddWithAxis", _scatter_add_with_axis, init=("axis",))


def scatter(input, axis, index, src):  # noqa: A002
    """``ops.scatter(input, axis, index, src)``: ``input`` with ``src`` written at ``index``
    along ``axis`` (``src`` a tensor of ``index``'s shape, or a number)."""
    _require_tensor("ops.scatter", "input", input)
    _require_int_tensor("ops.scatter", "index", index)
    if input.ndim == 0:
        raise ValueError("ops.scatter: input must have at least one dimension")
    if not isinstance(src, Tensor):
        src = F.fill(dtype=input.dtype, shape=tuple(index.shape), value=scalar(src))
    return F.scatter_elements(input, index, src, axis=_require_int("ops.scatter", "axis", axis),
                              reduction="none")


def scatter_nd(indices, updates, shape):
    """``ops.scatter_nd(indices, updates, shape)``: zeros of ``shape`` with ``updates`` added at
    the slices the last axis of ``indices`` addresses (duplicates add up)."""
    _require_int_tensor("ops.scatter_nd", "indices", indices)
    _require_tensor("ops.scatter_nd", "updates", updates)
    zeros = F.fill(dtype=updates.dtype, shape=shape_of(shape), value=0)
    return F.tensor_scatter(zeros, indices, updates, reduction="add")


ScatterNd = primitive("ScatterNd", scatter_nd)


def _scatter_non_aliasing_add(input_x, indices, updates):
    return F.tensor_scatter(input_x, indices, updates, reduction="add")


ScatterNonAliasingAdd = primitive("ScatterNonAliasingAdd", _scatter_non_aliasing_add)


# --- in-place scatters (the first operand takes the result) ----------------------------------------

def _scatter_rows(name: str, reduction: str):
    fn_name = f"ops.scatter_{name}"

    def fn(input_x, indices, updates):
        _require_tensor(fn_name, "input_x", input_x)
        _require_int_tensor(fn_name, "indices", indices)
        _require_tensor(fn_name, "updates", updates)
        want = tuple(indices.shape) + tuple(input_x.shape[1:])
        if tuple(updates.shape) != want:
            raise ValueError(f"{fn_name}: updates must have shape indices.shape + "
                             f"input_x.shape[1:] = {list(want)}, got {list(updates.shape)}")
        if input_x.dtype == bool_:
            raise TypeError(f"{fn_name}: input_x must be numeric, got Bool")
        upd = updates if updates.dtype == input_x.dtype else F.cast(updates, dtype=input_x.dtype)
        rows = F.expand_dims(indices, axis=-1)
        out = F.tensor_scatter(_current(input_x), rows, upd, reduction=reduction)
        return F.inplace_write(input_x, out)
    fn.__name__ = fn.__qualname__ = f"scatter_{name}"
    fn.__doc__ = (f"``{fn_name}(input_x, indices, updates)``: the rows ``input_x[indices]`` with "
                  f"``updates`` {_VERBS[reduction]} them; ``input_x`` takes the result "
                  "(a Parameter, or any Tensor in PyNative).")
    return fn


scatter_update = _scatter_rows("update", "update")
scatter_add = _scatter_rows("add", "add")
_scatter_sub = _scatter_rows("sub", "sub")  # MindSpore 2.10 has ScatterSub, no ops.scatter_sub
scatter_mul = _scatter_rows("mul", "mul")
scatter_div = _scatter_rows("div", "div")
scatter_max = _scatter_rows("max", "max")
scatter_min = _scatter_rows("min", "min")


def _locking(fn, default: bool):
    def prim(input_x, indices, updates, use_locking=default):
        return fn(input_x, indices, updates)
    prim.__name__ = prim.__qualname__ = fn.__name__
    return prim


ScatterUpdate = primitive("ScatterUpdate", _locking(scatter_update, True), init=("use_locking",))
ScatterAdd = primitive("ScatterAdd", _locking(scatter_add, False), init=("use_locking",))
ScatterSub = primitive("ScatterSub", _locking(_scatter_sub, False), init=("use_locking",))
ScatterMul = primitive("ScatterMul", _locking(scatter_mul, False), init=("use_locking",))
ScatterDiv = primitive("ScatterDiv", _locking(scatter_div, False), init=("use_locking",))
ScatterMax = primitive("ScatterMax", _locking(scatter_max, False), init=("use_locking",))
ScatterMin = primitive("ScatterMin", _locking(scatter_min, False), init=("use_locking",))


def _scatter_nd_inplace(name: str, reduction: str):
    fn_name = f"ops.scatter_nd_{name}"

    def fn(input_x, indices, updates, use_locking=False):
        _require_tensor(fn_name, "input_x", input_x)
        _require_int_tensor(fn_name, "indices", indices)
        _require_tensor(fn_name, "updates", updates)
        if indices.ndim < 2:
            raise ValueError(f"{fn_name}: indices must have at least 2 dimensions (the last one "
                             f"addresses input_x), got {indices.ndim}")
        upd = updates if updates.dtype == input_x.dtype else F.cast(updates, dtype=input_x.dtype)
        out = F.tensor_scatter(_current(input_x), indices, upd, reduction=reduction)
        return F.inplace_write(input_x, out)
    fn.__name__ = fn.__qualname__ = f"scatter_nd_{name}"
    fn.__doc__ = (f"``{fn_name}(input_x, indices, updates, use_locking=False)``: the slices the "
                  f"last axis of ``indices`` addresses, with ``updates`` {_VERBS[reduction]} "
                  "them; ``input_x`` takes the result (a Parameter, or any Tensor in PyNative).")
    return fn


scatter_nd_update = _scatter_nd_inplace("update", "update")
scatter_nd_add = _scatter_nd_inplace("add", "add")
scatter_nd_sub = _scatter_nd_inplace("sub", "sub")
scatter_nd_mul = _scatter_nd_inplace("mul", "mul")
scatter_nd_div = _scatter_nd_inplace("div", "div")
scatter_nd_max = _scatter_nd_inplace("max", "max")
scatter_nd_min = _scatter_nd_inplace("min", "min")

ScatterNdUpdate = primitive("ScatterNdUpdate", _locking(scatter_nd_update, True),
                            init=("use_locking",))
ScatterNdAdd = primitive("ScatterNdAdd", scatter_nd_add, init=("use_locking",))
ScatterNdSub = primitive("ScatterNdSub", scatter_nd_sub, init=("use_locking",))
ScatterNdMul = primitive("ScatterNdMul", scatter_nd_mul, init=("use_locking",))
ScatterNdDiv = primitive("ScatterNdDiv", scatter_nd_div, init=("use_locking",))
ScatterNdMax = primitive("ScatterNdMax", scatter_nd_max, init=("use_locking",))
ScatterNdMin = primitive("ScatterNdMin", scatter_nd_min, init=("use_locking",))


def _along_axis(fn: str, x, indices, y, axis: int):
    """``indices`` (1-D) broadcast to ``y``'s shape along ``axis``: the index ``scatter_elements``
    takes to add ``y``'s slices to ``x``'s slices ``indices``."""
    if indices.ndim != 1:
        raise ValueError(f"{fn}: indices must be 1-D, got {indices.ndim} dimensions")
    if y.ndim != x.ndim:
        raise ValueError(f"{fn}: the rank of y ({y.ndim}) must equal the rank of x ({x.ndim})")
    want = tuple(x.shape[:axis]) + (indices.shape[0],) + tuple(x.shape[axis + 1:])
    if tuple(y.shape) != want:
        raise ValueError(f"{fn}: y must have shape {list(want)} (x's shape with "
                         f"len(indices) at axis {axis}), got {list(y.shape)}")
    line = F.reshape(indices, shape=tuple(-1 if a == axis else 1 for a in range(x.ndim)))
    return F.broadcast_to(line, shape=tuple(y.shape))


def _index_add(fn: str, x, indices, y, axis):
    _require_tensor(fn, "x", x)
    _require_int_tensor(fn, "indices", indices, (int32,))
    _require_tensor(fn, "y", y)
    axis = normalize_axis(_require_int(fn, "axis", axis), x.ndim)
    index = _along_axis(fn, x, indices, y, axis)
    upd = y if y.dtype == x.dtype else F.cast(y, dtype=x.dtype)
    out = F.scatter_elements(_current(x), index, upd, axis=axis, reduction="add")
    return F.inplace_write(x, out)


def index_add(x, indices, y, axis, use_lock=True, check_index_bound=True):
    """``ops.index_add(x, indices, y, axis, use_lock=True, check_index_bound=True)``: ``y``'s
    slices added to ``x``'s slices ``indices`` (Int32, 1-D) along ``axis``; ``x`` takes the
    result (a Parameter, or any Tensor in PyNative)."""
    return _index_add("ops.index_add", x, indices, y, axis)


def inplace_index_add(var, indices, updates, axis):
    """``ops.inplace_index_add(var, indices, updates, axis)``: ``ops.index_add`` (``var`` takes
    the result)."""
    return _index_add("ops.inplace_index_add", var, indices, updates, axis)


def _index_add_primitive(x, indices, y, axis=0, use_lock=True, check_index_bound=True):
    return _index_add("IndexAdd", x, indices, y, axis)


def _inplace_index_add_primitive(var, indices, updates, axis=0):
    return _index_add("InplaceIndexAdd", var, indices, updates, axis)


IndexAdd = primitive("IndexAdd", _index_add_primitive,
                     init=("axis", "use_lock", "check_index_bound"))
InplaceIndexAdd = primitive("InplaceIndexAdd", _inplace_index_add_primitive, init=("axis",))


def _row_indices(fn: str, indices, rows: int):
    """``indices`` (an int, a tuple of ints or an integer Tensor) as an ``(n, 1)`` index of rows,
    negatives counted from the end."""
    if isinstance(indices, Tensor):
        _require_int_tensor(fn, "indices", indices)
        return _as_rows(_wrap_negative(indices, rows))
    items = (indices,) if isinstance(indices, (int, np.integer)) else tuple(indices)
    if not items or not all(isinstance(i, (int, np.integer)) and not isinstance(i, bool)
                            for i in items):
        raise TypeError(f"{fn}: indices must be an int, a tuple of ints or an integer Tensor, "
                        f"got {indices!r}")
    for i in items:
        if not -rows <= i < rows:
            raise ValueError(f"{fn}: index {i} is out of range [{-rows}, {rows})")
    return Tensor(np.array([[i % rows] for i in items], np.int32))


def _inplace_rows(fn: str, x, v, indices, reduction: str):
    _require_tensor(fn, "x", x)
    _require_tensor(fn, "v", v)
    if v.ndim != x.ndim:
        raise ValueError(f"{fn}: the rank of v ({v.ndim}) must equal the rank of x ({x.ndim})")
    rows = _row_indices(fn, indices, x.shape[0] if x.ndim else 1)
    want = (rows.shape[0],) + tuple(x.shape[1:])
    if tuple(v.shape) != want:
        raise ValueError(f"{fn}: v must have shape {list(want)} (one row per index), got "
                         f"{list(v.shape)}")
    upd = v if v.dtype == x.dtype else F.cast(v, dtype=x.dtype)
    return F.tensor_scatter(x, rows, upd, reduction=reduction)


def inplace_update(x, v, indices):
    """``ops.inplace_update(x, v, indices)``: ``x`` with its rows ``indices`` replaced by the
    rows of ``v`` (a new tensor: ``x`` is unchanged, as in MindSpore 2.10)."""
    return _inplace_rows("ops.inplace_update", x, v, indices, "update")


def inplace_add(x, v, indices):
    """``ops.inplace_add(x, v, indices)``: ``x`` with the rows of ``v`` added to its rows
    ``indices`` (a new tensor)."""
    return _inplace_rows("ops.inplace_add", x, v, indices, "add")


def inplace_sub(x, v, indices):
    """``ops.inplace_sub(x, v, indices)``: ``x`` with the rows of ``v`` subtracted from its rows
    ``indices`` (a new tensor)."""
    return _inplace_rows("ops.inplace_sub", x, v, indices, "sub")


def _inplace_primitive(fn):
    def prim(x, v, indices=None):
        return fn(x, v, indices)
    prim.__name__ = prim.__qualname__ = fn.__name__
    return prim


InplaceUpdate = primitive("InplaceUpdate", _inplace_primitive(inplace_update), init=("indices",))
InplaceAdd = primitive("InplaceAdd", _inplace_primitive(inplace_add), init=("indices",))
InplaceSub = primitive("InplaceSub", _inplace_primitive(inplace_sub), init=("indices",))


def _fill_value(fn: str, x, value):
    """``value`` (a number or a 0-d Tensor) as an operand of ``x``'s dtype."""
    if isinstance(value, Tensor):
        if value.ndim != 0:
            raise ValueError(f"{fn}: value must be a number or a 0-d Tensor, got shape "
                             f"{list(value.shape)}")
        return value if value.dtype == x.dtype else F.cast(value, dtype=x.dtype)
    if not isinstance(value, (bool, int, float, np.number, np.bool_)):
        raise TypeError(f"{fn}: value must be a number or a Tensor, got {type(value).__name__}")
    return F.fill(dtype=x.dtype, shape=(), value=np.asarray(value).astype(x.dtype.np_dtype).item())


def index_fill(x, axis, index, value):
    """``ops.index_fill(x, axis, index, value)``: ``x`` with the slices ``index`` (Int32) along
    ``axis`` set to ``value`` (a number or a 0-d Tensor, converted to ``x``'s dtype)."""
    fn = "ops.index_fill"
    _require_tensor(fn, "x", x)
    _require_int_tensor(fn, "index", index, (int32,))
    axis = normalize_axis(_require_int(fn, "axis", axis), x.ndim)
    size = x.shape[axis] if x.ndim else 1
    hit = F.tensor_scatter(F.fill(dtype=bool_, shape=(size,), value=False),
                           _as_rows(_wrap_negative(index, size)),
                           F.fill(dtype=bool_, shape=(int(np.prod(index.shape, dtype=np.int64)),),
                                  value=True), reduction="update")
    mask = F.reshape(hit, shape=(size,) + (1,) * (x.ndim - axis - 1)) if x.ndim else \
        F.reshape(hit, shape=())
    return F.select(mask, _fill_value(fn, x, value), x)


def _index_fill_primitive(x, dim, index, value):
    return index_fill(x, dim, index, value)


IndexFill = primitive("IndexFill", _index_fill_primitive)


# --- segments ------------------------------------------------------------------------------------

def _segment(reduction: str, first: str):
    fn_name = f"ops.unsorted_segment_{reduction}"

    def fn(x, segment_ids, num_segments):
        _require_tensor(fn_name, first, x)
        _require_int_tensor(fn_name, "segment_ids", segment_ids)
        n = _require_int(fn_name, "num_segments", num_segments)
        return F.unsorted_segment(x, segment_ids, num_segments=n, reduction=reduction)
    fn.__name__ = fn.__qualname__ = f"unsorted_segment_{reduction}"
    fn.__doc__ = (f"``{fn_name}({first}, segment_ids, num_segments)``: the {reduction} of the "
                  f"slices of ``{first}`` per segment id (ids index its leading axes; negative ids "
                  "are dropped; an empty segment holds the reduction's identity).")
    if first != "x":  # MindSpore names the first parameter input_x here
        def named(input_x, segment_ids, num_segments):
            return fn(input_x, segment_ids, num_segments)
        named.__name__, named.__qualname__, named.__doc__ = fn.__name__, fn.__qualname__, fn.__doc__
        return named
    return fn


unsorted_segment_sum = _segment("sum", "input_x")
unsorted_segment_max = _segment("max", "x")
unsorted_segment_min = _segment("min", "x")
unsorted_segment_prod = _segment("prod", "x")

UnsortedSegmentSum = primitive("UnsortedSegmentSum", unsorted_segment_sum)
UnsortedSegmentMax = primitive("UnsortedSegmentMax", unsorted_segment_max)
UnsortedSegmentMin = primitive("UnsortedSegmentMin", unsorted_segment_min)
UnsortedSegmentProd = primitive("UnsortedSegmentProd", unsorted_segment_prod)


# --- masks and positions -------------------------------------------------------------------------

def _masked_value(fn: str, x, value):
    """MindSpore 2.10 fills with a Python number of the tensor's own kind only (a float into a
    float tensor, an int into an int tensor, a bool into a Bool tensor); a Tensor value is cast."""
    if isinstance(value, Tensor):
        return _fill_value(fn, x, value)
    kind = "b" if isinstance(value, (bool, np.bool_)) else \
        "i" if isinstance(value, (int, np.integer)) else "f" if isinstance(value, float) else None
    want = x.dtype.np_dtype.kind
    if kind is None or (kind != want and not (kind == "i" and want == "u")):
        raise TypeError(f"{fn}: value {value!r} does not match the dtype of input_x "
                        f"({x.dtype}); pass a number of that kind or a Tensor")
    return _fill_value(fn, x, value)


def masked_fill(input_x, mask, value):
    """``ops.masked_fill(input_x, mask, value)``: ``value`` where ``mask`` (Bool, broadcast with
    ``input_x``) is True, ``input_x`` elsewhere."""
    fn = "ops.masked_fill"
    _require_tensor(fn, "input_x", input_x)
    _require_bool_tensor(fn, "mask", mask)
    return F.select(mask, _masked_value(fn, input_x, value), input_x)


MaskedFill = primitive("MaskedFill", masked_fill)


def masked_select(input, mask):  # noqa: A002
    """``ops.masked_select(input, mask)``: the elements of ``input`` where ``mask`` (Bool,
    broadcast with it) is True, as a 1-D tensor. PyNative only: the length depends on ``mask``."""
    fn = "ops.masked_select"
    _require_tensor(fn, "input", input)
    _require_bool_tensor(fn, "mask", mask)
    m = _host_values(mask, fn)
    shape = np.broadcast_shapes(tuple(input.shape), m.shape)
    where = np.argwhere(np.broadcast_to(m, shape)).astype(np.int64)
    x = input if tuple(input.shape) == shape else F.broadcast_to(input, shape=shape)
    if not shape:  # 0-d: the element or nothing
        return F.reshape(x, shape=(1,)) if m else F.reshape(x, shape=(1,))[0:0]
    return F.gather_nd(x, Tensor(where))


MaskedSelect = primitive("MaskedSelect", masked_select)


def argwhere(input):  # noqa: A002
    """``ops.argwhere(input)``: the Int64 coordinates of the nonzero elements, one row each
    (shape ``(n, input.ndim)``). PyNative only: ``n`` depends on the values."""
    _require_tensor("ops.argwhere", "input", input)
    if input.ndim == 0:
        raise ValueError("ops.argwhere: input must have at least one dimension")
    return Tensor(np.argwhere(_host_values(input, "ops.argwhere")).astype(np.int64))


def nonzero(input, *, as_tuple=False):  # noqa: A002
    """``ops.nonzero(input, *, as_tuple=False)``: ``ops.argwhere(input)``; with ``as_tuple`` one
    1-D Int64 tensor of coordinates per axis."""
    coords = argwhere(input)
    if not as_tuple:
        return coords
    values = coords.asnumpy()
    return tuple(Tensor(np.ascontiguousarray(values[:, a])) for a in range(values.shape[1]))


NonZero = primitive("NonZero", argwhere)


# --- Tensor methods ------------------------------------------------------------------------------

def _gather_dim(self, dim: int, index: Tensor):
    return gather_d(self, dim, index)


def _gather_indices(self, input_indices: Tensor, axis: int, batch_dims: int = 0):
    return gather(self, input_indices, axis, batch_dims)


def _take_indices(self, indices: Tensor, axis: int | None = None, mode: str = "clip"):
    """``x.take(indices, axis=None, mode='clip')``: numpy's take (``axis`` None: the flattened
    tensor). ``'clip'`` counts negative indices from the end, then clips into range; ``'wrap'``
    wraps; ``'raise'`` refuses an index out of range."""
    _require_int_tensor("Tensor.take", "indices", indices)
    if mode not in ("clip", "wrap", "raise"):
        raise ValueError(f"Tensor.take: mode must be 'clip', 'wrap' or 'raise', got {mode!r}")
    x = F.reshape(self, shape=(-1,)) if axis is None else self
    axis = 0 if axis is None else normalize_axis(axis, self.ndim)
    n = x.shape[axis]
    if mode == "wrap":
        indices = F.mod(indices, n)
    elif mode == "clip":
        indices = F.minimum(F.maximum(_wrap_negative(indices, n), 0), n - 1)
    return F.take(x, indices, axis=axis)


def _take_index(self, index: Tensor):
    """``x.take(index)``: the elements of the flattened tensor at ``index`` (Int64)."""
    _require_int_tensor("Tensor.take", "index", index)
    return F.take(F.reshape(self, shape=(-1,)), index, axis=0)


def _index_method(self, indices: tuple):
    """``x.index((i0, i1, ...))``: advanced indexing ``x[i0, i1, ...]`` by integer Tensors
    (broadcast together)."""
    if isinstance(indices, Tensor) or not indices:
        raise TypeError("Tensor.index: indices must be a non-empty tuple of integer Tensors")
    for k, i in enumerate(indices):
        _require_int_tensor("Tensor.index", f"indices[{k}]", i)
    shape = np.broadcast_shapes(*(tuple(i.shape) for i in indices))
    cols = [F.expand_dims(_wrap_negative(F.broadcast_to(i, shape=shape), self.shape[a]), axis=-1)
            for a, i in enumerate(indices)]
    return F.gather_nd(self, F.concat(*cols, axis=-1))


def _index_add_old(self, indices: Tensor, y: Tensor, axis: int, use_lock: bool = True,
                   check_index_bound: bool = True):
    return _index_add("Tensor.index_add", self, indices, y, axis)


def _index_add_new(self, dim: int, index: Tensor, source: Tensor, *, alpha=1):
    """``x.index_add(dim, index, source, *, alpha=1)``: ``x`` with ``alpha * source``'s slices
    added to the slices ``index`` along ``dim`` (a new tensor)."""
    fn = "Tensor.index_add"
    _require_int_tensor(fn, "index", index)
    dim = normalize_axis(dim, self.ndim)
    line = _along_axis(fn, self, index, source, dim)
    src = source if alpha == 1 else F.mul(source, alpha)
    src = src if src.dtype == self.dtype else F.cast(src, dtype=self.dtype)
    return F.scatter_elements(self, _wrap_negative(line, self.shape[dim]), src, axis=dim,
                              reduction="add")


def _scatter_dim(self, dim: int, index: Tensor, src):
    return scatter(self, dim, index, src)


def _scatter_axis(self, axis: int, index: Tensor, src):
    return scatter(self, axis, index, src)


def _scatter_add_dim(self, dim: int, index: Tensor, src: Tensor):
    """``x.scatter_add(dim, index, src)``: ``src`` added at ``index`` along ``dim`` (a new
    tensor; MindSpore 2.10's CPU build has no kernel for this overload)."""
    _require_int_tensor("Tensor.scatter_add", "index", index)
    return F.scatter_elements(self, index, src, axis=dim, reduction="add")


def _scatter_add_indices(self, indices: Tensor, updates: Tensor):
    return tensor_scatter_add(self, indices, updates)


def _index_select_axis(self, axis: int, index: Tensor):
    return index_select(self, axis, index)


def _index_select_dim(self, dim: int, index: Tensor):
    return index_select(self, dim, index)


def _reverse_sequence(self, seq_lengths, seq_dim=0, batch_dim=0):
    """``x.reverse_sequence(seq_lengths, seq_dim=0, batch_dim=0)``: for each ``b`` along
    ``batch_dim``, the first ``seq_lengths[b]`` entries along ``seq_dim`` reversed."""
    fn = "Tensor.reverse_sequence"
    _require_int_tensor(fn, "seq_lengths", seq_lengths)
    seq_dim = normalize_axis(seq_dim, self.ndim, "seq_dim")
    batch_dim = normalize_axis(batch_dim, self.ndim, "batch_dim")
    if seq_dim == batch_dim:
        raise ValueError(f"{fn}: seq_dim and batch_dim must differ, both are {seq_dim}")
    if tuple(seq_lengths.shape) != (self.shape[batch_dim],):
        raise ValueError(f"{fn}: seq_lengths must have shape [{self.shape[batch_dim]}] (the size "
                         f"of batch_dim), got {list(seq_lengths.shape)}")
    n = self.shape[seq_dim]
    steps = Tensor(np.arange(n, dtype=np.int64).reshape(
        tuple(-1 if a == seq_dim else 1 for a in range(self.ndim))))
    lengths = F.reshape(F.cast(seq_lengths, dtype=int64),
                        shape=tuple(-1 if a == batch_dim else 1 for a in range(self.ndim)))
    index = F.select(F.less(steps, lengths), F.sub(F.sub(lengths, 1), steps), steps)
    return F.gather_d(self, F.broadcast_to(index, shape=tuple(self.shape)), dim=seq_dim)


def _nonzero_method(self, *, as_tuple=False):
    return nonzero(self, as_tuple=as_tuple)


TENSOR_METHODS = {
    # MindSpore 2.10 accepts both spellings (the second of each is deprecated)
    "gather": overload(_gather_dim, _gather_indices, name="gather"),
    "take": overload(_take_indices, _take_index, name="take"),
    "index": _index_method,
    "index_add": overload(_index_add_old, _index_add_new, name="index_add"),
    "scatter": overload(_scatter_dim, _scatter_axis, name="scatter"),
    "scatter_add": overload(_scatter_add_dim, _scatter_add_indices, name="scatter_add"),
    "index_select": overload(_index_select_axis, _index_select_dim, name="index_select"),
    "masked_fill": lambda self, mask, value: masked_fill(self, mask, value),
    "masked_select": lambda self, mask: masked_select(self, mask),
    "inplace_update": lambda self, v, indices: inplace_update(self, v, indices),
    "gather_elements": lambda self, dim, index: gather_elements(self, dim, index),
    "gather_nd": lambda self, indices: gather_nd(self, indices),
    "argwhere": lambda self: argwhere(self),
    "nonzero": _nonzero_method,
    "reverse_sequence": _reverse_sequence,
    "scatter_div": lambda self, indices, updates: tensor_scatter_div(self, indices, updates),
    "scatter_sub": lambda self, indices, updates: tensor_scatter_sub(self, indices, updates),
    "scatter_max": lambda self, indices, updates: tensor_scatter_max(self, indices, updates),
    "scatter_min": lambda self, indices, updates: tensor_scatter_min(self, indices, updates),
    "index_fill": lambda self, axis, index, value: index_fill(self, axis, index, value),
    "unsorted_segment_prod": lambda self, segment_ids, num_segments: unsorted_segment_prod(
        self, segment_ids, num_segments),
    "scatter_mul": lambda self, indices, updates: tensor_scatter_mul(self, indices, updates),
    "unsorted_segment_max": lambda self, segment_ids, num_segments: unsorted_segment_max(
        self, segment_ids, num_segments),
    "unsorted_segment_min": lambda self, segment_ids, num_segments: unsorted_segment_min(
        self, segment_ids, num_segments),
}
