"""The functional op API (``graphcell.ops.add(x, y)``), derived from the registry.

Each registry entry's function is graphcell_ir's ``F.<name>``: positional arguments fill the
operands and then the attributes in declared order; keywords name attributes. A handful of
MindSpore functions whose signatures differ from the registry's spelling are written out below,
each a small adapter onto the same entry, written against ``F`` so that it runs eagerly in
PyNative and emits IR when the graph-mode frontend calls it.
"""
from __future__ import annotations

from graphcell_ir.ir.types import to_dtype
from graphcell_ir.ops import functional as F
from graphcell_ir.ops.registry import OpDef


def op_function(opdef: OpDef):
    """The functional API's function for ``opdef`` (``F.<name>``: it carries ``.opdef``)."""
    return getattr(F, opdef.name)


def _axis(axis):
    if axis is None or axis == ():
        return None
    return (axis,) if isinstance(axis, int) else tuple(axis)


def sum(input, dim=None, keepdim=False, *, dtype=None):  # noqa: A001 - MindSpore's name
    """``ops.sum(x, dim=None, keepdim=False)``: the ``reduce_sum`` primitive."""
    out = F.reduce_sum(input, axis=_axis(dim), keep_dims=bool(keepdim))
    return out if dtype is None else cast(out, dtype)


def mean(x, axis=None, keep_dims=False):
    """``ops.mean(x, axis=None, keep_dims=False)``: the ``reduce_mean`` primitive."""
    return F.reduce_mean(x, axis=_axis(axis), keep_dims=bool(keep_dims))


def cast(input_x, dtype):
    """``ops.cast(x, dtype)``."""
    return F.cast(input_x, dtype=to_dtype(dtype))


def fill(type, shape, value):  # noqa: A002 - MindSpore's parameter name
    """``ops.fill(type, shape, value)``: a tensor of ``shape`` filled with ``value``."""
    return F.fill(dtype=type, shape=tuple(shape), value=_scalar(value))


def _scalar(value):
    return value.item() if hasattr(value, "item") else value


def zeros(size, dtype=None):
    return fill(dtype or to_dtype("float32"), _shape(size), 0)


def ones(size, dtype=None):
    return fill(dtype or to_dtype("float32"), _shape(size), 1)


def zeros_like(input, *, dtype=None):  # noqa: A002
    return fill(dtype or input.dtype, input.shape, 0)


def ones_like(input, *, dtype=None):  # noqa: A002
    return fill(dtype or input.dtype, input.shape, 1)


def _shape(size):
    return (size,) if isinstance(size, int) else tuple(size)


def concat(tensors, axis=0):
    """``ops.concat((x, y), axis=0)``."""
    return F.concat(*tensors, axis=int(axis))


def gather(input_params, input_indices, axis):
    """``ops.gather(params, indices, axis)``: the ``take`` primitive."""
    return F.take(input_params, input_indices, axis=int(axis))


def squeeze(input, axis=None):  # noqa: A002
    return F.squeeze(input, axis=_axis(axis))


# MindSpore-specific spellings; everything else comes from the registry as op_function(entry).
ADAPTERS = {f.__name__: f for f in (sum, mean, cast, fill, zeros, ones, zeros_like, ones_like,
                                    concat, gather, squeeze)}
