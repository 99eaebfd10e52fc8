"""What ``Cell.to_float(dtype)`` does while such a cell runs in PyNative mode (graph mode does
the same in the frontend: ``graphcell_ir/frontend/calls.py`` ``call_cell``).

MindSpore casts "all the inputs of the cell, including input, Parameter and Tensor" to the
cell's precision. graphcell casts the floating-point tensors passed to the cell and the
trainable floating-point Parameters the cell reads from ``self`` while it runs; Parameters that
are not trainable (BatchNorm's moving statistics, which ops update in place) are read as they
are. The casts are ops like any other, so a Parameter's gradient comes back in its own dtype
(float32 master weights, float16 compute).

Example::

    >>> import graphcell as ms
    >>> from graphcell.nn._mixed_precision import cast_floats
    >>> cast_floats((ms.Tensor([1.0]), 3), ms.float16)[0].dtype
    Float16
"""
from __future__ import annotations

from graphcell import ops
from graphcell.parameter import Parameter
from graphcell.tensor import Tensor

__all__ = ["cast_floats", "param_in_precision"]


def _cast(x, dtype):
    if isinstance(x, Tensor) and x.dtype.is_float and x.dtype != dtype:
        return ops.cast(x, dtype)
    if type(x) in (tuple, list):
        return type(x)(_cast(v, dtype) for v in x)
    return x


def cast_floats(args: tuple, dtype) -> tuple:
    """The floating-point tensors of ``args`` (inside tuples and lists too) cast to ``dtype``."""
    return tuple(_cast(a, dtype) for a in args)


def param_in_precision(param: Parameter, dtype):
    """``param`` as a cell of precision ``dtype`` reads it: cast when it is trainable and
    floating-point of another dtype, else the Parameter itself."""
    if param.requires_grad and param.dtype.is_float and param.dtype != dtype:
        return ops.cast(param, dtype)
    return param
