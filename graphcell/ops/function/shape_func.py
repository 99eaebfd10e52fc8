"""Shapes, ranks, sizes and dtypes, and MindSpore's tuple/scalar helpers: functions that answer with
Python values (``ops.shape(x)`` is a tuple of ints, ``ops.rank(x)`` an int, ``ops.dtype(x)`` a
dtype) or small constant tensors (``ops.dyn_shape``), exactly as MindSpore 2.10 does.

Shapes are static in graph mode, so these are values known while compiling there: a Python ``if``
on ``ops.rank(x)`` is decided while compiling, and ``ops.dyn_shape(x)`` is a constant.

Example::

    >>> import graphcell as ms
    >>> from graphcell import ops
    >>> x = ms.Tensor([[1.0, 2.0, 3.0]])
    >>> ops.shape(x), ops.rank(x), ops.size(x), ops.dtype(x)
    ((1, 3), 2, 3, Float32)
"""
from __future__ import annotations

import math

import numpy as np

from graphcell.ops.function._array_utils import check_tensor, const, dtype_arg, is_int
from graphcell.ops.primitive import primitive
from graphcell.tensor import Tensor
from graphcell_ir.ir.types import bool_, float32, float64, int64
from graphcell_ir.ops import functional as F

__all__ = ["shape", "rank", "size", "numel", "dtype", "dyn_shape", "is_floating_point",
           "is_tensor", "tuple_len", "make_tuple", "tuple_getitem", "shape_mul", "scalar_cast",
           "identity",
           "Shape", "TensorShape", "Rank", "Size", "DType", "ScalarCast", "Identity", "IdentityN",
           "TensorToTuple"]


def shape(input_x):
    """``ops.shape(input_x)``: the shape as a tuple of ints."""
    return tuple(check_tensor(input_x, "ops.shape", "input_x").shape)


def rank(input_x):
    """``ops.rank(input_x)``: the number of dimensions, an int."""
    return check_tensor(input_x, "ops.rank", "input_x").ndim


def size(input_x):
    """``ops.size(input_x)``: the number of elements, an int."""
    return math.prod(check_tensor(input_x, "ops.size", "input_x").shape)


def numel(input):  # noqa: A002 - MindSpore's parameter name
    """``ops.numel(input)``: the number of elements, an int."""
    return math.prod(check_tensor(input, "ops.numel").shape)


def dtype(x):
    """``ops.dtype(x)``: the tensor's dtype (``mindspore.float32``...)."""
    return check_tensor(x, "ops.dtype", "x").dtype


def dyn_shape(input_x):
    """``ops.dyn_shape(input_x)``: the shape as a 1-D Int64 tensor."""
    return const(np.array(shape(input_x), np.int64))


def is_floating_point(input):  # noqa: A002
    """``ops.is_floating_point(input)``: whether the dtype is a float type (a Python bool)."""
    return check_tensor(input, "ops.is_floating_point").dtype.is_float


def is_tensor(obj):
    """``ops.is_tensor(obj)``: whether ``obj`` is a Tensor."""
    return isinstance(obj, Tensor)


def tuple_len(input_tuple):
    """``ops.tuple_len(t)``: the length of a tuple or list."""
    if not isinstance(input_tuple, (tuple, list)):
        raise TypeError(f"ops.tuple_len: expected a tuple or list, but got "
                        f"{type(input_tuple).__name__}")
    return len(input_tuple)


def make_tuple(*args):
    """``ops.make_tuple(*args)``: the arguments as a tuple. As in MindSpore 2.10, when one of
    them is a tensor the Python numbers become 0-d tensors too (Int64, Float32 or Bool)."""
    if not any(isinstance(a, Tensor) for a in args):
        return tuple(args)
    return tuple(F.fill(dtype=_NUMBER_DTYPES[type(a)], shape=(), value=a)
                 if type(a) in _NUMBER_DTYPES else a for a in args)


_NUMBER_DTYPES = {bool: bool_, int: int64, float: float32}


def tuple_getitem(input_tuple, index):
    """``ops.tuple_getitem(t, i)``: ``t[i]``."""
    if not isinstance(input_tuple, (tuple, list)) or not is_int(index):
        raise TypeError(f"ops.tuple_getitem: expected a tuple and an int index, but got "
                        f"{type(input_tuple).__name__} and {index!r}")
    return input_tuple[int(index)]


def shape_mul(input_data):
    """``ops.shape_mul(shape)``: the product of a tuple of ints (1 for ``()``)."""
    if not isinstance(input_data, tuple) or not all(is_int(s) for s in input_data):
        raise ValueError(f"ops.shape_mul: the input must be a tuple of ints, but got "
                         f"{input_data!r}")
    return math.prod(int(s) for s in input_data)


_SCALAR_CASTS = {int64: int, float64: float, bool_: bool}


def scalar_cast(input_x, input_y):
    """``ops.scalar_cast(input_x, input_y)``: a Python number converted to ``input_y``, which is
    ``mindspore.int64``, ``float64`` or ``bool_`` (ints truncate towards zero)."""
    if isinstance(input_x, np.generic):
        input_x = input_x.item()
    if not isinstance(input_x, (bool, int, float)):
        raise TypeError(f"ops.scalar_cast: 'input_x' must be a bool or a number, but got "
                        f"{type(input_x).__name__}")
    target = dtype_arg(input_y, "ops.scalar_cast", "input_y")
    if target not in _SCALAR_CASTS:
        raise ValueError(f"ops.scalar_cast: 'input_y' must be mindspore.int64, mindspore.float64 "
                         f"or mindspore.bool_, but got {target}")
    return _SCALAR_CASTS[target](input_x)


def identity(x):
    """``ops.identity(x)``: a copy of a tensor (other values are returned as they are)."""
    if not isinstance(x, Tensor):
        return x
    return F.cast(x, dtype=x.dtype)


def _identity_primitive(input_x):
    return identity(check_tensor(input_x, "Identity", "input_x"))


def _identity_n(x):
    """``ops.IdentityN()(x)``: a copy of each tensor of a tuple or list, as a tuple."""
    if not isinstance(x, (tuple, list)) or not all(isinstance(t, Tensor) for t in x):
        raise TypeError(f"IdentityN: 'x' must be a tuple or list of tensors, but got {x!r}")
    return tuple(identity(t) for t in x)


def _tensor_to_tuple(input_x):
    """``ops.TensorToTuple()(x)``: the values of a 1-D tensor as a tuple of Python numbers (they
    are read: PyNative only)."""
    check_tensor(input_x, "TensorToTuple", "input_x")
    return tuple(input_x.asnumpy().reshape(-1).tolist())


def _dtype_primitive(x):
    return dtype(x)


Shape = primitive("Shape", shape)
TensorShape = primitive("TensorShape", dyn_shape)
Rank = primitive("Rank", rank)
Size = primitive("Size", size)
DType = primitive("DType", _dtype_primitive)
ScalarCast = primitive("ScalarCast", scalar_cast)
Identity = primitive("Identity", _identity_primitive)
IdentityN = primitive("IdentityN", _identity_n)
TensorToTuple = primitive("TensorToTuple", _tensor_to_tuple)


TENSOR_METHODS = {
    "numel": numel, "nelement": numel, "is_floating_point": is_floating_point,
    "dim": rank, "ndimension": rank,
}
