"""What every ``graphcell.numpy`` function does to its arguments first, in MindSpore's words.

``mindspore.numpy`` takes "array-like" arguments — Tensors, Python numbers, (nested) lists and
tuples — and turns the non-Tensors into Tensors with 32-bit dtypes (a Python int is Int32, a float
Float32, a bool Bool; numpy's 64-bit defaults are narrowed), then runs the MindSpore op. Results
follow MindSpore's promotion of the tensors (so ``mnp.add(int8_tensor, 1)`` is Int32: the 1 is an
Int32 tensor, not a weak scalar). An optional ``dtype`` casts the result.

Everything here runs in PyNative and on the tensors graph mode traces with: constants made from
Python values become ``const`` ops.

Example::

    >>> import graphcell as ms
    >>> to_tensor(3).dtype, to_tensor([1.5, 2]).dtype, to_tensor([[True]]).shape
    (Int32, Float32, (1, 1))
"""
from __future__ import annotations

import numpy as np

from graphcell import ops
from graphcell.ops.function._array_utils import const
from graphcell.tensor import Tensor
from graphcell_ir.ir.types import DType, float32, int32, promote, to_dtype, uint32
from graphcell_ir.ops import functional as F

__all__ = ["to_tensor", "to_tensors", "check_tensor", "apply", "cast", "dtype_arg", "is_scalar",
           "promote_all", "axes_arg", "axis_arg", "reduce_sum", "reduce_any", "reduce_all"]

# numpy's type names as mindspore.numpy reads them: 32-bit where numpy means 64-bit
_NUMPY_NAMES = {"int": int32, "float": float32, "uint": uint32, "int_": int32, "float_": float32}
_NARROWED = {np.dtype(np.int64): np.int32, np.dtype(np.float64): np.float32}


def is_scalar(v) -> bool:
    """A Python or numpy number (bool included)."""
    return isinstance(v, (bool, int, float, np.number, np.bool_))


def _has_tensor(v) -> bool:
    return isinstance(v, Tensor) or (isinstance(v, (list, tuple)) and any(map(_has_tensor, v)))


def _stack_nested(v):
    """A nested list holding Tensors, stacked with ops (so computed tensors work in graph mode)."""
    if not isinstance(v, (list, tuple)):
        return v if isinstance(v, Tensor) else to_tensor(v)
    parts = [_stack_nested(e) for e in v]
    dtype = promote_all([p.dtype for p in parts])
    parts = [cast(p, dtype) for p in parts]
    shapes = {tuple(p.shape) for p in parts}
    if len(shapes) > 1:
        raise ValueError("mindspore.numpy: input array must have the same size across all "
                         f"dimensions, but got shapes {sorted(shapes)}")
    return ops.stack(parts, 0)


def to_tensor(v, fn: str = "mindspore.numpy"):
    """``v`` as a Tensor: Tensors unchanged, numbers and nested sequences as constants (Int32 for
    ints, Float32 for floats, Bool for bools). A sequence holding Tensors is stacked."""
    if isinstance(v, Tensor):
        return v
    if isinstance(v, (list, tuple)):
        if _has_tensor(v):
            return _stack_nested(v)
        arr = np.asarray(v)
        if arr.dtype == object:
            raise ValueError(f"{fn}: input array must have the same size across all "
                             f"dimensions, but got {v!r}")
        if arr.size == 0:
            arr = arr.astype(np.float32)
    elif is_scalar(v):
        arr = np.asarray(v)
    elif isinstance(v, np.ndarray):
        arr = v
    else:
        raise TypeError(f"{fn}: expected a Tensor, a number, or a list or tuple of numbers, but "
                        f"got {type(v).__name__}")
    if arr.dtype.kind not in "biuf":
        raise TypeError(f"{fn}: cannot make a tensor of {arr.dtype} data")
    return const(arr.astype(_NARROWED.get(arr.dtype, arr.dtype), copy=False))


def to_tensors(*values, fn: str = "mindspore.numpy") -> tuple:
    return tuple(to_tensor(v, fn) for v in values)


def check_tensor(*values, fn: str = "mindspore.numpy") -> None:
    """MindSpore's ``_check_input_tensor``: these arguments must be Tensors already."""
    for v in values:
        if not isinstance(v, Tensor):
            raise TypeError(f"{fn}: expected a Tensor, but got {type(v).__name__}")


def cast(x, dtype: DType | None):
    """``x`` in ``dtype`` (no op when it already is, or when ``dtype`` is None)."""
    if dtype is None or x.dtype == dtype:
        return x
    return F.cast(x, dtype=dtype)


def dtype_arg(dtype, fn: str = "mindspore.numpy", name: str = "dtype") -> DType | None:
    """A dtype given as a graphcell dtype, a numpy dtype or type, or a name; None stays None.
    numpy's ``int``/``float``/``uint`` names mean the 32-bit types, as in mindspore.numpy."""
    if dtype is None:
        return None
    if isinstance(dtype, str) and dtype in _NUMPY_NAMES:
        return _NUMPY_NAMES[dtype]
    if dtype is int:
        return int32
    try:
        return to_dtype(dtype)
    except (TypeError, ValueError, KeyError):
        raise TypeError(f"{fn}: '{name}' must be a mindspore dtype, but got {dtype!r}") from None


def apply(op, *args, dtype=None, fn: str = "mindspore.numpy"):
    """``op`` on the arguments as tensors (see :func:`to_tensor`), cast to ``dtype`` if given:
    mindspore.numpy's recipe for its elementwise functions."""
    dtype = dtype_arg(dtype, fn)
    return cast(op(*to_tensors(*args, fn=fn)), dtype)


def promote_all(dtypes) -> DType:
    """The promotion of several dtypes (MindSpore's rules, as binary ops use them)."""
    out = None
    for d in dtypes:
        out = d if out is None else promote(out, d)
    return out


def axes_arg(axis, ndim: int, fn: str = "mindspore.numpy") -> tuple[int, ...]:
    """``axis`` (None, an int or a tuple/list of ints) as distinct axes in ``[0, ndim)``; None is
    every axis."""
    if axis is None:
        return tuple(range(ndim))
    items = (axis,) if isinstance(axis, (int, np.integer)) else axis
    if not isinstance(items, (tuple, list)) or any(
            isinstance(a, (bool, np.bool_)) or not isinstance(a, (int, np.integer)) for a in items):
        raise TypeError(f"{fn}: axis must be an int or a tuple of ints, but got {axis!r}")
    out = tuple(axis_arg(a, ndim, fn) for a in items)
    if len(set(out)) != len(out):
        raise ValueError(f"{fn}: duplicate value in 'axis': {axis!r}")
    return out


def axis_arg(axis, ndim: int, fn: str = "mindspore.numpy", name: str = "axis") -> int:
    """One axis in ``[0, ndim)`` (negative counts from the end)."""
    if isinstance(axis, (bool, np.bool_)) or not isinstance(axis, (int, np.integer)):
        raise TypeError(f"{fn}: {name} must be an int, but got {axis!r}")
    if not -ndim <= axis < max(ndim, 1):
        raise ValueError(f"{fn}: {name} {axis} is out of bounds for array of dimension {ndim}")
    return int(axis) % max(ndim, 1)


def _axes_attr(axes):
    return None if axes is None else ((int(axes),) if isinstance(axes, (int, np.integer))
                                      else tuple(int(a) for a in axes))


def reduce_sum(x, axes=None, keepdims: bool = False):
    """``ReduceSum``: the sum over ``axes`` (None: all) in ``x``'s dtype."""
    return F.reduce_sum(x, axis=_axes_attr(axes), keep_dims=bool(keepdims))


def reduce_any(x, axes=None, keepdims: bool = False):
    """``ReduceAny``: whether any element over ``axes`` (None: all) is true."""
    return F.reduce_any(x, axis=_axes_attr(axes), keep_dims=bool(keepdims))


def reduce_all(x, axes=None, keepdims: bool = False):
    """``ReduceAll``: whether every element over ``axes`` (None: all) is true."""
    return F.reduce_all(x, axis=_axes_attr(axes), keep_dims=bool(keepdims))
