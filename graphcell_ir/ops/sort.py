"""Sorting and searching: ``sort`` (MindSpore's ``Sort``), ``searchsorted`` and
``unique_with_pad`` (``UniqueWithPad``).

Semantics checked against MindSpore 2.10 (CPU):

- ``sort`` returns ``(values, indices)`` with Int32 indices; it is stable in both directions
  (equal elements keep their order, descending too); NaN sorts as the largest value; Bool and 0-d
  inputs are refused. Its gradient sends each cotangent back to the element it came from.
- ``searchsorted`` finds, for each value, the insertion point in the last axis of
  ``sorted_sequence`` (the leading axes of both must agree, or the sequence is 1-D); Int64 or Int32.
- ``unique_with_pad`` keeps the first occurrence of each value, in order of appearance, pads the
  rest with ``pad_num`` (a static shape: the input's), and gives each element the index of its
  value; the index dtype is Int64 for Int64 inputs, else Int32.

``topk``, ``argsort``, ``median``... are composites over ``sort`` (``graphcell/ops/function``).
"""
from __future__ import annotations

import numpy as np

from graphcell_ir.errors import OpTypeError, ShapeError
from graphcell_ir.ir.types import ScalarType, TensorType, int32, int64
from graphcell_ir.ops.along_axis import scatter_add_along
from graphcell_ir.ops import functional as F
from graphcell_ir.ops.registry import NONDIFF, AttrKind, Kind, attr, defop
from graphcell_ir.ops.shape_rules import require_tensor

OPAQUE = Kind.OPAQUE


def _fmt(shape) -> str:
    return f"[{','.join(map(str, shape))}]"


# --- sort ----------------------------------------------------------------------------------------

def _sort_infer(x, *, axis=-1, descending=False):
    x = require_tensor(x)
    if x.dtype.is_bool:
        raise OpTypeError(f"the input must be numeric, got {x}")
    if x.ndim == 0:
        raise ShapeError(f"the input must have rank >= 1, got {x}")
    if not -x.ndim <= axis < x.ndim:
        raise ShapeError(f"axis {axis} is out of range for a tensor of rank {x.ndim}")
    return x, TensorType(int32, x.shape)


def stable_argsort(x: np.ndarray, axis: int, descending: bool) -> np.ndarray:
    """Indices that sort ``x`` along ``axis``, equal elements in their original order.

    Descending is the stable ascending sort of the reversed axis, reversed back: ties keep their
    order and no negation is needed (which unsigned and minimal integers would not survive).
    """
    if not descending:
        return np.argsort(x, axis=axis, kind="stable")
    n = x.shape[axis]
    order = np.argsort(np.flip(x, axis), axis=axis, kind="stable")
    return (n - 1) - np.flip(order, axis)


def _sort_ref(x, *, axis=-1, descending=False):
    a = axis % x.ndim
    idx = stable_argsort(x, a, descending)
    return np.take_along_axis(x, idx, a), idx.astype(np.int32)


def bprop_sort(x, out, dout, *, axis, descending):
    dvalues = dout[0]
    if dvalues is None:
        return (None,)
    return (scatter_add_along(F.zeros_like(x), out[1], dvalues, axis % len(x.shape)),)


sort = defop("sort", ("x",), kind=OPAQUE, ms_name="Sort",
             attrs=[attr("axis", AttrKind.INT, -1), attr("descending", AttrKind.BOOL, False)],
             prim_init=("axis", "descending"), infer=_sort_infer, ref=_sort_ref, bprop=bprop_sort,
             doc="Stable sort along ``axis``: ``(values, indices)``, indices Int32.")


# --- searchsorted --------------------------------------------------------------------------------

def _searchsorted_infer(sorted_sequence, values, *, right=False, dtype=int64):
    seq = require_tensor(sorted_sequence, "sorted_sequence")
    if dtype not in (int32, int64):
        raise OpTypeError(f"dtype must be Int32 or Int64, got {dtype}")
    if isinstance(values, ScalarType):
        raise OpTypeError("values must be a tensor, got a Python number")
    v = require_tensor(values, "values")
    if seq.ndim == 0:
        raise ShapeError("sorted_sequence must have rank >= 1, got a 0-d tensor")
    if seq.dtype is not v.dtype:
        raise OpTypeError(f"sorted_sequence and values must have the same dtype, got {seq.dtype} "
                          f"and {v.dtype}")
    if seq.ndim > 1 and (v.ndim != seq.ndim or v.shape[:-1] != seq.shape[:-1]):
        raise ShapeError(f"the leading dimensions of sorted_sequence {_fmt(seq.shape)} and values "
                         f"{_fmt(v.shape)} must agree (or sorted_sequence must be 1-D)")
    return TensorType(dtype, v.shape)


def _searchsorted_ref(sorted_sequence, values, *, right=False, dtype=int64):
    side = "right" if right else "left"
    if sorted_sequence.ndim == 1:
        out = np.searchsorted(sorted_sequence, values, side=side)
    else:
        rows = sorted_sequence.reshape(-1, sorted_sequence.shape[-1])
        vals = values.reshape(rows.shape[0], -1)
        out = np.stack([np.searchsorted(r, v, side=side) for r, v in zip(rows, vals)])
        out = out.reshape(values.shape)
    return np.asarray(out).astype(dtype.np_dtype)


searchsorted = defop("searchsorted", ("sorted_sequence", "values"), kind=OPAQUE,
                     attrs=[attr("right", AttrKind.BOOL, False), attr("dtype", AttrKind.DTYPE, int64)],
                     infer=_searchsorted_infer, ref=_searchsorted_ref, bprop=NONDIFF,
                     doc="Insertion points of ``values`` in the last axis of ``sorted_sequence`` "
                         "(MindSpore's SearchSorted, whose optional sorter operand is handled in "
                         "graphcell.ops.function.sort_func).")


# --- unique with padding ---------------------------------------------------------------------------

def _unique_with_pad_infer(x, *, pad_num):
    x = require_tensor(x)
    if x.ndim != 1:
        raise ShapeError(f"the input must be 1-D, got {x}")
    index = int64 if x.dtype is int64 else int32
    return x, TensorType(index, x.shape)


def _unique_with_pad_ref(x, *, pad_num):
    values, first, inverse = np.unique(x, return_index=True, return_inverse=True)
    order = np.argsort(first, kind="stable")           # unique values in order of appearance
    rank = np.empty_like(order)
    rank[order] = np.arange(order.size)
    y = np.full(x.shape, pad_num, dtype=x.dtype)
    y[:order.size] = values[order]
    index = np.int64 if x.dtype == np.int64 else np.int32
    return y, rank[inverse.reshape(-1)].astype(index)


unique_with_pad = defop("unique_with_pad", ("x",), kind=OPAQUE, ms_name="UniqueWithPad",
                        attrs=[attr("pad_num", AttrKind.SCALAR)], infer=_unique_with_pad_infer,
                        ref=_unique_with_pad_ref, bprop=NONDIFF,
                        doc="The distinct values of a 1-D tensor in order of first appearance, "
                            "padded with ``pad_num`` to the input's length, and each element's "
                            "index into them.")
