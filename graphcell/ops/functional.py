"""The eager functional op API (``graphcell.ops.add(x, y)``), derived from the registry.

``op_function(opdef)`` makes the function for one entry: positional arguments fill the operands and
then the attributes in declared order; keywords name attributes. A handful of MindSpore functions
whose signatures differ from the registry's spelling are written out below, each a one-line
adapter onto the same registry entry.
"""
from __future__ import annotations

from graphcell.runtime.dispatch import apply
from graphcell_ir.ir.types import to_dtype
from graphcell_ir.ops import REGISTRY
from graphcell_ir.ops.functional import split_args
from graphcell_ir.ops.registry import OpDef


def op_function(opdef: OpDef):
    def fn(*args, **kwargs):
        operands, attrs = split_args(opdef, args, kwargs)
        opdef._check_arity(len(operands))
        return apply(opdef, operands, opdef.check_attrs(attrs))
    fn.__name__ = fn.__qualname__ = opdef.name
    fn.__doc__ = opdef.doc or (f"The ``{opdef.name}`` primitive ({opdef.display_name}): operands "
                               f"{', '.join(opdef.operands) or 'none'}; attributes "
                               f"{', '.join(a.name for a in opdef.attrs) or 'none'}.")
    fn.opdef = opdef
    return fn


def _axis(axis):
    if axis is None or axis == ():
        return None
    return (axis,) if isinstance(axis, int) else tuple(axis)


def sum(input, dim=None, keepdim=False, *, dtype=None):  # noqa: A001 - MindSpore's name
    """``ops.sum(x, dim=None, keepdim=False)``: the ``reduce_sum`` primitive."""
    out = apply(REGISTRY["reduce_sum"], (input,), {"axis": _axis(dim), "keep_dims": bool(keepdim)})
    return out if dtype is None else cast(out, dtype)


def mean(x, axis=None, keep_dims=False):
    """``ops.mean(x, axis=None, keep_dims=False)``: the ``reduce_mean`` primitive."""
    return apply(REGISTRY["reduce_mean"], (x,), {"axis": _axis(axis), "keep_dims": bool(keep_dims)})


def cast(input_x, dtype):
    """``ops.cast(x, dtype)``."""
    return apply(REGISTRY["cast"], (input_x,), {"dtype": to_dtype(dtype)})


def fill(type, shape, value):  # noqa: A002 - MindSpore's parameter name
    """``ops.fill(type, shape, value)``: a tensor of ``shape`` filled with ``value``."""
    return apply(REGISTRY["fill"], (), REGISTRY["fill"].check_attrs(
        {"dtype": type, "shape": tuple(shape), "value": _scalar(value)}))


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
    return apply(REGISTRY["concat"], tuple(tensors), {"axis": int(axis)})


def gather(input_params, input_indices, axis):
    """``ops.gather(params, indices, axis)``: the ``take`` primitive."""
    return apply(REGISTRY["take"], (input_params, input_indices), {"axis": int(axis)})


def squeeze(input, axis=None):  # noqa: A002
    return apply(REGISTRY["squeeze"], (input,), {"axis": _axis(axis)})


# MindSpore-specific spellings; everything else comes from the registry as op_function(entry).
ADAPTERS = {f.__name__: f for f in (sum, mean, cast, fill, zeros, ones, zeros_like, ones_like,
                                    concat, gather, squeeze)}
