"""Indexing primitives with index tensors: element gathers and scatters along an axis, N-d gathers
and scatters, segment reductions, and the write-back of MindSpore's in-place scatters.

- ``gather_d(x, index, dim)``: ``out[i][j] = x[index[i][j]][j]`` (dim 0), MindSpore's ``GatherD``;
  ``scatter_elements(x, indices, updates, axis, reduction)`` is its adjoint (``"add"``) and
  MindSpore's ``TensorScatterElements``/``ops.scatter`` (``"none"``: the last duplicate wins).
- ``gather_nd(x, indices)``: the last axis of ``indices`` addresses the leading axes of ``x``;
  ``tensor_scatter(x, indices, updates, reduction)`` writes there with ``update``/``add``/``sub``/
  ``mul``/``div``/``max``/``min`` (duplicates combine, in index order): every ``TensorScatter*``,
  ``ScatterNd*`` and ``Scatter*`` name is an application of it.
- ``unsorted_segment(x, segment_ids, num_segments, reduction)``: sums/max/min/products per segment;
  negative ids are dropped, empty segments hold the reduction's identity (the lowest or highest
  finite value for max/min, as MindSpore 2.10 gives).
- ``inplace_write(variable, value)``: the value, written into the variable (``mutates``). It is
  ``OPAQUE``, not a side effect: in graph mode a tensor that is not a Parameter is a value, and
  the op is then just its result (MindSpore's in-place scatters accept plain tensors too).

Indices may be negative where MindSpore accepts it (``gather_d``, ``scatter_elements``); an index
out of range is an error in the references (the compiled code runs the same references).
"""
from __future__ import annotations

import numpy as np

from graphcell_ir.errors import OpTypeError, ShapeError
from graphcell_ir.ir.types import TensorType
from graphcell_ir.ops import functional as F
from graphcell_ir.ops.registry import AttrKind, Kind, attr, defop
from graphcell_ir.ops.shape_rules import require_tensor

LAYOUT = Kind.LAYOUT
SCATTER_REDUCTIONS = ("update", "add", "sub", "mul", "div", "max", "min")
SEGMENT_REDUCTIONS = ("sum", "max", "min", "prod")


def _fmt(shape) -> str:
    return f"[{','.join(map(str, shape))}]"


def _require_indices(t, what: str = "indices") -> TensorType:
    t = require_tensor(t, what)
    if not t.dtype.is_int:
        raise OpTypeError(f"{what} must be an Int32 or Int64 tensor, got {t}")
    return t


def _require_choice(name: str, value: str, choices) -> None:
    if value not in choices:
        raise OpTypeError(f"{name} must be one of {', '.join(map(repr, choices))}, got {value!r}")


def _axis(axis: int, ndim: int, what: str = "axis") -> int:
    if not -max(ndim, 1) <= axis < max(ndim, 1):
        raise ShapeError(f"{what} {axis} is out of range for a tensor of rank {ndim}")
    return axis % max(ndim, 1)


def _wrapped(index: np.ndarray, size: int, what: str) -> np.ndarray:
    """``index`` with negative entries counted from the end; an entry outside [-size, size) raises."""
    index = np.asarray(index, np.int64)
    if index.size and (index.min() < -size or index.max() >= size):
        bad = index[(index < -size) | (index >= size)].flat[0]
        raise ShapeError(f"{what} {bad} is out of range [{-size}, {size})")
    return np.where(index < 0, index + size, index)


# --- gather_d / scatter_elements -----------------------------------------------------------------

def _elements_infer(x, index, what: str, dim: int):
    x, index = require_tensor(x, "x"), _require_indices(index, what)
    if index.ndim != x.ndim:
        raise ShapeError(f"{what} {index} must have the rank of x {x}")
    d = _axis(dim, x.ndim, "dim")
    for a, (n, m) in enumerate(zip(index.shape, x.shape)):
        if a != d and n > m:
            raise ShapeError(f"{what} {index} is larger than x {x} in axis {a}")
    return x, index, d


def _gather_d_infer(x, index, *, dim):
    x, index, _ = _elements_infer(x, index, "index", dim)
    return TensorType(x.dtype, index.shape)


def _element_coords(x_shape, index: np.ndarray, d: int) -> tuple:
    """The full coordinates ``index`` addresses: its own positions, with axis ``d`` replaced."""
    coords = list(np.indices(index.shape, sparse=True))
    coords[d] = _wrapped(index, x_shape[d] if x_shape else 1, "index")
    return tuple(coords)


def _gather_d_ref(x, index, *, dim):
    d = dim % max(x.ndim, 1)
    if x.ndim == 0:
        return np.array(x, copy=True)
    return np.array(x[_element_coords(x.shape, index, d)], copy=False).reshape(index.shape)


def bprop_gather_d(x, index, out, dout, *, dim):
    return F.scatter_elements(F.zeros_like(x), index, dout, axis=dim, reduction="add"), None


gather_d = defop("gather_d", ("x", "index"), kind=LAYOUT, attrs=[attr("dim", AttrKind.INT)],
                 infer=_gather_d_infer, ref=_gather_d_ref, bprop=bprop_gather_d,
                 doc="out[i][j] = x[index[i][j]][j] along dim (MindSpore's GatherD).")


def _scatter_elements_infer(x, indices, updates, *, axis, reduction):
    x, indices, _ = _elements_infer(x, indices, "indices", axis)
    updates = require_tensor(updates, "updates")
    _require_choice("reduction", reduction, ("none", "add"))
    if updates.shape != indices.shape:
        raise ShapeError(f"updates {updates} must have the shape of indices {indices}")
    if updates.dtype != x.dtype:
        raise OpTypeError(f"updates {updates} must have the dtype of x {x}")
    return x


def _scatter_elements_ref(x, indices, updates, *, axis, reduction):
    out = np.array(x, copy=True)
    if x.ndim == 0:
        return out
    coords = _element_coords(x.shape, indices, axis % x.ndim)
    if reduction == "add":
        np.add.at(out, coords, updates)
    else:
        out[coords] = updates  # duplicates: the last one written wins
    return out


def bprop_scatter_elements(x, indices, updates, out, dout, *, axis, reduction):
    dupdates = F.gather_d(dout, indices, dim=axis)
    if reduction == "add":
        return dout, None, dupdates
    dx = F.scatter_elements(dout, indices, F.zeros_like(updates), axis=axis, reduction="none")
    return dx, None, dupdates


scatter_elements = defop("scatter_elements", ("x", "indices", "updates"), kind=LAYOUT,
                         attrs=[attr("axis", AttrKind.INT, 0), attr("reduction", AttrKind.STR, "none")],
                         infer=_scatter_elements_infer, ref=_scatter_elements_ref,
                         bprop=bprop_scatter_elements,
                         doc="x with updates written (reduction 'none') or added ('add') at "
                             "indices along axis (MindSpore's TensorScatterElements).")


# --- gather_nd / tensor_scatter ------------------------------------------------------------------

def _nd_depth(x: TensorType, indices: TensorType) -> int:
    if indices.ndim < 1:
        raise ShapeError(f"indices {indices} must have at least one axis (the last one addresses x)")
    k = indices.shape[-1]
    if k > x.ndim:
        raise ShapeError(f"indices {indices} address {k} axes, but x {x} has {x.ndim}")
    return k


def _gather_nd_infer(x, indices):
    x, indices = require_tensor(x, "x"), _require_indices(indices)
    k = _nd_depth(x, indices)
    return TensorType(x.dtype, indices.shape[:-1] + x.shape[k:])


def _nd_coords(x_shape, indices: np.ndarray) -> tuple:
    """The rows of ``indices`` (flattened) as a tuple of coordinate arrays; out of range raises
    (MindSpore's GatherNd and TensorScatter* accept no negative index)."""
    k = indices.shape[-1]
    rows = np.asarray(indices, np.int64).reshape(-1, k)
    for a in range(k):
        col = rows[:, a]
        if col.size and (col.min() < 0 or col.max() >= x_shape[a]):
            bad = col[(col < 0) | (col >= x_shape[a])][0]
            raise ShapeError(f"index {bad} is out of range [0, {x_shape[a]}) for axis {a}")
    return tuple(rows[:, a] for a in range(k))


def _gather_nd_ref(x, indices):
    k = indices.shape[-1]
    shape = indices.shape[:-1] + x.shape[k:]
    return np.array(x[_nd_coords(x.shape, indices)]).reshape(shape)


def bprop_gather_nd(x, indices, out, dout):
    return F.tensor_scatter(F.zeros_like(x), indices, dout, reduction="add"), None


gather_nd = defop("gather_nd", ("x", "indices"), kind=LAYOUT, ms_name="GatherNd",
                  infer=_gather_nd_infer, ref=_gather_nd_ref, bprop=bprop_gather_nd,
                  doc="The slices of x addressed by the last axis of indices (MindSpore's GatherNd).")


def _tensor_scatter_infer(x, indices, updates, *, reduction):
    x, indices = require_tensor(x, "x"), _require_indices(indices)
    updates = require_tensor(updates, "updates")
    _require_choice("reduction", reduction, SCATTER_REDUCTIONS)
    k = _nd_depth(x, indices)
    want = indices.shape[:-1] + x.shape[k:]
    if updates.shape != want:
        raise ShapeError(f"updates {updates} must have shape {_fmt(want)} (indices.shape[:-1] + "
                         f"x.shape[{k}:]) for x {x} and indices {indices}")
    if updates.dtype != x.dtype:
        raise OpTypeError(f"updates {updates} must have the dtype of x {x}")
    if x.dtype.is_bool and reduction != "update":
        raise OpTypeError(f"reduction {reduction!r} is not defined on Bool tensors")
    return x


_UFUNCS = {"add": np.add, "sub": np.subtract, "mul": np.multiply, "max": np.maximum,
           "min": np.minimum}


def _tensor_scatter_ref(x, indices, updates, *, reduction):
    out = np.array(x, copy=True)
    k = indices.shape[-1]
    coords = _nd_coords(x.shape, indices)
    rows = updates.reshape((-1,) + x.shape[k:])
    if reduction == "update":
        out[coords] = rows  # duplicates: the last one written wins
    elif reduction == "div":
        _divide_at(out, coords, rows)
    else:
        _UFUNCS[reduction].at(out, coords, rows)
    return out


def _divide_at(out: np.ndarray, coords: tuple, rows: np.ndarray) -> None:
    """``out[coords] /= rows`` one row at a time (duplicates divide again); integers truncate
    towards zero and give 0 where the divisor is 0, as MindSpore's CPU kernels do."""
    if out.dtype.kind == "f":
        np.divide.at(out, coords, rows)
        return
    for n in range(rows.shape[0]):
        at = tuple(c[n] for c in coords)
        num, den = out[at], rows[n]
        q = np.divide(num, np.where(den == 0, 1, den))
        out[at] = np.where(den == 0, 0, np.trunc(q)).astype(out.dtype)


def bprop_tensor_scatter(x, indices, updates, out, dout, *, reduction):
    # Exact where the indices are distinct; duplicates follow the same formulas row by row
    # (MindSpore's rules make the same choice).
    if reduction in ("add", "sub"):
        du = F.gather_nd(dout, indices)
        return dout, None, (du if reduction == "add" else F.neg(du))
    if reduction == "update":
        dx = F.tensor_scatter(dout, indices, F.zeros_like(updates), reduction="update")
        return dx, None, F.gather_nd(dout, indices)
    if reduction == "mul":  # out = x * u at the rows
        dx = F.tensor_scatter(dout, indices, updates, reduction="mul")
        return dx, None, F.gather_nd(F.mul(dout, x), indices)
    if reduction == "div":  # out = x / u at the rows
        dx = F.tensor_scatter(dout, indices, updates, reduction="div")
        du = F.neg(F.div(F.gather_nd(F.mul(dout, out), indices), updates))
        return dx, None, du
    # max / min: the gradient goes where the result came from (both on a tie)
    zero = F.zeros_like(dout)
    dx = F.select(F.equal(x, out), dout, zero)
    won = F.equal(updates, F.gather_nd(out, indices))
    du = F.select(won, F.gather_nd(dout, indices), F.zeros_like(updates))
    return dx, None, du


tensor_scatter = defop("tensor_scatter", ("x", "indices", "updates"), kind=LAYOUT,
                       attrs=[attr("reduction", AttrKind.STR, "update")],
                       infer=_tensor_scatter_infer, ref=_tensor_scatter_ref,
                       bprop=bprop_tensor_scatter,
                       doc="x with updates combined into the slices the last axis of indices "
                           "addresses (update/add/sub/mul/div/max/min; MindSpore's "
                           "TensorScatter* and ScatterNd*).")


# --- unsorted segment reductions -----------------------------------------------------------------

def _unsorted_segment_infer(x, segment_ids, *, num_segments, reduction):
    x, ids = require_tensor(x, "x"), _require_indices(segment_ids, "segment_ids")
    _require_choice("reduction", reduction, SEGMENT_REDUCTIONS)
    if x.dtype.is_bool:
        raise OpTypeError(f"x must be numeric, got {x}")
    if ids.shape != x.shape[:ids.ndim]:
        raise ShapeError(f"the shape of segment_ids {ids} must be a leading part of the shape of "
                         f"x {x}")
    if num_segments < 0:
        raise ShapeError(f"num_segments must be non-negative, got {num_segments}")
    return TensorType(x.dtype, (num_segments,) + x.shape[ids.ndim:])


def _segment_identity(dtype: np.dtype, reduction: str):
    if reduction == "sum":
        return 0
    if reduction == "prod":
        return 1
    info = np.finfo(dtype) if dtype.kind == "f" else np.iinfo(dtype)
    return info.min if reduction == "max" else info.max


_SEGMENT_UFUNCS = {"sum": np.add, "prod": np.multiply, "max": np.maximum, "min": np.minimum}


def _unsorted_segment_ref(x, segment_ids, *, num_segments, reduction):
    rest = x.shape[segment_ids.ndim:]
    ids = np.asarray(segment_ids, np.int64).reshape(-1)
    if ids.size and ids.max() >= num_segments:
        raise ShapeError(f"segment id {ids.max()} is out of range [0, {num_segments})")
    out = np.full((num_segments,) + rest, _segment_identity(x.dtype, reduction), x.dtype)
    keep = ids >= 0  # negative ids are dropped
    _SEGMENT_UFUNCS[reduction].at(out, ids[keep], x.reshape((-1,) + rest)[keep])
    return out


def _per_element(seg, segment_ids, x):
    """``seg`` (one row per segment) read back at each element's segment; 0 where the id is
    negative (dropped)."""
    valid = F.greater_equal(segment_ids, 0)
    ids = F.select(valid, segment_ids, F.zeros_like(segment_ids))
    picked = F.take(seg, ids, axis=0)
    extra = len(x.shape) - len(segment_ids.shape)
    mask = F.reshape(valid, shape=tuple(segment_ids.shape) + (1,) * extra) if extra else valid
    return F.select(mask, picked, F.zeros_like(picked))


def bprop_unsorted_segment(x, segment_ids, out, dout, *, num_segments, reduction):
    if reduction == "sum":
        return _per_element(dout, segment_ids, x), None
    if reduction == "prod":  # d(prod)/dx_i = prod / x_i (inputs without zeros)
        return F.div(_per_element(F.mul(dout, out), segment_ids, x), x), None
    # max / min: the gradient is shared among the elements that reach the extreme (MindSpore's
    # rule)
    hit = F.cast(F.equal(x, _per_element(out, segment_ids, x)), dtype=x.dtype)
    count = F.unsorted_segment(hit, segment_ids, num_segments=num_segments, reduction="sum")
    share = F.div(dout, F.maximum(count, F.ones_like(count)))
    return F.mul(_per_element(share, segment_ids, x), hit), None


unsorted_segment = defop("unsorted_segment", ("x", "segment_ids"), kind=Kind.OPAQUE,
                         attrs=[attr("num_segments", AttrKind.INT),
                                attr("reduction", AttrKind.STR, "sum")],
                         infer=_unsorted_segment_infer, ref=_unsorted_segment_ref,
                         bprop=bprop_unsorted_segment,
                         doc="Per-segment sum/max/min/prod of x along the axes of segment_ids "
                             "(MindSpore's UnsortedSegment*).")


# --- in-place write-back -------------------------------------------------------------------------

def _inplace_write_infer(variable, value):
    variable, value = require_tensor(variable, "variable"), require_tensor(value, "value")
    if value.shape != variable.shape:
        raise ShapeError(f"value {value} must have the shape of variable {variable}")
    return variable


def _inplace_write_ref(variable, value):
    return np.array(value, dtype=variable.dtype, copy=True)  # a new buffer: the runtime keeps it


def bprop_inplace_write(variable, value, out, dout):
    return None, (F.cast_like(dout, value) if value.dtype.is_float else None)


inplace_write = defop("inplace_write", ("variable", "value"), kind=Kind.OPAQUE,
                      infer=_inplace_write_infer, ref=_inplace_write_ref,
                      bprop=bprop_inplace_write, mutates=(0,),
                      doc="value (in variable's dtype), written into variable: MindSpore's in-place "
                          "scatters. A graph-mode value that is not a Parameter is not written.")
