"""Types of IR values, and the one dtype table of graphcell.

``DType`` is the only dtype table: the user API (``graphcell.float32``, printed ``Float32``), the
IR text (``f32``), numpy interop and the promotion rules all read it.

Value types print in their ``.gcir`` spelling::

    >>> str(TensorType(float32, (4, 3)))
    'f32[4,3]'
    >>> str(ScalarType(int64)), str(TupleType((TensorType(bool_, ()), NONE))), str(OBJECT)
    ('i64', '(bool[], none)', 'obj')
"""
from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from functools import lru_cache

import numpy as np


class DType(Enum):
    """A tensor element type. ``str()`` gives MindSpore's name, ``.short`` the IR spelling."""

    #         MindSpore   IR      numpy
    bool_ = ("Bool", "bool", np.bool_)
    int8 = ("Int8", "i8", np.int8)
    int16 = ("Int16", "i16", np.int16)
    int32 = ("Int32", "i32", np.int32)
    int64 = ("Int64", "i64", np.int64)
    uint8 = ("UInt8", "u8", np.uint8)
    uint16 = ("UInt16", "u16", np.uint16)
    uint32 = ("UInt32", "u32", np.uint32)
    uint64 = ("UInt64", "u64", np.uint64)
    float16 = ("Float16", "f16", np.float16)
    float32 = ("Float32", "f32", np.float32)
    float64 = ("Float64", "f64", np.float64)

    def __init__(self, ms_name: str, short: str, np_type: type):
        self.ms_name = ms_name
        self.short = short
        self.np_dtype = np.dtype(np_type)

    @property
    def is_float(self) -> bool:
        return self.np_dtype.kind == "f"

    @property
    def is_int(self) -> bool:
        """Signed or unsigned integer (not bool)."""
        return self.np_dtype.kind in "iu"

    @property
    def is_bool(self) -> bool:
        return self is DType.bool_

    @property
    def itemsize(self) -> int:
        return self.np_dtype.itemsize

    def __str__(self) -> str:
        return self.ms_name

    def __repr__(self) -> str:
        return self.ms_name

    def __reduce__(self):
        return (dtype_from_short, (self.short,))


bool_, int8, int16, int32, int64 = DType.bool_, DType.int8, DType.int16, DType.int32, DType.int64
uint8, uint16, uint32, uint64 = DType.uint8, DType.uint16, DType.uint32, DType.uint64
float16, float32, float64 = DType.float16, DType.float32, DType.float64

_BY_NP = {d.np_dtype: d for d in DType}
_BY_SHORT = {d.short: d for d in DType}
_BY_NAME = {d.name.rstrip("_"): d for d in DType} | {d.ms_name.lower(): d for d in DType}


def dtype_from_numpy(np_dtype) -> DType:
    """The DType of a numpy dtype; a clear TypeError for dtypes graphcell does not support."""
    try:
        return _BY_NP[np.dtype(np_dtype)]
    except (KeyError, TypeError):
        supported = ", ".join(str(d.np_dtype) for d in DType)
        raise TypeError(f"numpy dtype {np_dtype!s} is not supported by graphcell; expected one of "
                        f"{supported}") from None


def dtype_from_short(short: str) -> DType:
    """The DType spelled ``short`` in the IR text (``f32``, ``i64``, ``bool``)."""
    return _BY_SHORT[short]


def to_dtype(value) -> DType:
    """Accept a DType, a numpy dtype or type, or a name (``"float32"``, ``"Float32"``, ``"f32"``)."""
    if isinstance(value, DType):
        return value
    if isinstance(value, str):
        d = _BY_SHORT.get(value) or _BY_NAME.get(value.lower())
        if d is None:
            raise TypeError(f"unknown dtype name {value!r}; expected one of "
                            f"{', '.join(d.name.rstrip('_') for d in DType)}")
        return d
    if value is bool:
        return bool_
    if value is int:
        return int64
    if value is float:
        return float32
    return dtype_from_numpy(value)


# --- promotion -------------------------------------------------------------------------------
# MindSpore's rules (checked against MindSpore 2.x): a float and an integer give the float, two
# floats the wider, two integers what numpy gives; bool gives way to anything. Python scalars are
# "weak" (as in JAX): they take the tensor's dtype when their kind fits, else Float32 / Int64.

def _kind_rank(d: DType) -> int:
    return 2 if d.is_float else 1 if d.is_int else 0


@lru_cache(maxsize=None)
def promote(a: DType, b: DType) -> DType:
    """The dtype of a binary arithmetic op on two tensors of dtypes ``a`` and ``b``."""
    if a is b:
        return a
    ra, rb = _kind_rank(a), _kind_rank(b)
    if ra != rb:
        return a if ra > rb else b
    if ra == 2:
        return a if a.itemsize >= b.itemsize else b
    return dtype_from_numpy(np.promote_types(a.np_dtype, b.np_dtype))


def scalar_dtype(value) -> DType:
    """The dtype a Python scalar gets on its own (MindSpore: bool, Int64, Float32)."""
    if isinstance(value, (bool, np.bool_)):
        return bool_
    if isinstance(value, (int, np.integer)):
        return int64
    if isinstance(value, (float, np.floating)):
        return float32
    raise TypeError(f"expected a Python bool, int or float, got {type(value).__name__}")


@lru_cache(maxsize=None)
def promote_weak(tensor: DType, scalar: DType) -> DType:
    """The dtype of a binary op between a tensor and a Python scalar of dtype ``scalar``."""
    if _kind_rank(scalar) <= _kind_rank(tensor):
        return tensor
    return scalar


# --- value types ------------------------------------------------------------------------------

class Type:
    """Base of the types of IR values. Types are immutable and compare by value."""

    __slots__ = ()


@dataclass(frozen=True, slots=True)
class TensorType(Type):
    """A tensor of a known dtype and static shape; ``f32[4,3]``, ``f32[]`` for 0-d."""

    dtype: DType
    shape: tuple[int, ...]

    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def size(self) -> int:
        n = 1
        for s in self.shape:
            n *= s
        return n

    def __str__(self) -> str:
        return f"{self.dtype.short}[{','.join(map(str, self.shape))}]"


@dataclass(frozen=True, slots=True)
class ScalarType(Type):
    """A Python scalar (bool, int or float) held by a value; ``f32``, ``i64``, ``bool``."""

    dtype: DType

    shape = ()
    ndim = 0

    def __str__(self) -> str:
        return self.dtype.short


@dataclass(frozen=True, slots=True)
class TupleType(Type):
    """A tuple of values; ``(f32[2], i64)``."""

    elements: tuple[Type, ...]

    def __str__(self) -> str:
        inner = ", ".join(map(str, self.elements))
        return f"({inner},)" if len(self.elements) == 1 else f"({inner})"


@dataclass(frozen=True, slots=True)
class NoneType(Type):
    """The type of ``None``."""

    def __str__(self) -> str:
        return "none"


NONE = NoneType()


@dataclass(frozen=True, slots=True)
class ObjectType(Type):
    """A Python object known only when the graph runs (``obj``): what a ``py_call`` returns
    that is no tensor or number (JIT Fallback: ``x.asnumpy()``, ``np.exp(x)``). Only host calls
    take such values, and a function may return them."""

    def __str__(self) -> str:
        return "obj"


OBJECT = ObjectType()


def tensor_type_of(array: np.ndarray) -> TensorType:
    """The TensorType of a numpy array."""
    return TensorType(dtype_from_numpy(array.dtype), tuple(array.shape))


def type_of_value(value) -> Type:
    """The type of a runtime value: numpy array, numpy or Python scalar, tuple, or None."""
    if isinstance(value, np.ndarray):
        return tensor_type_of(value)
    if isinstance(value, np.generic):
        return TensorType(dtype_from_numpy(value.dtype), ())
    if isinstance(value, (bool, int, float)):
        return ScalarType(scalar_dtype(value))
    if isinstance(value, tuple):
        return TupleType(tuple(type_of_value(v) for v in value))
    if value is None:
        return NONE
    raise TypeError(f"no IR type for a value of type {type(value).__name__}")


def type_problem(t) -> str | None:
    """What makes ``t`` unusable as a value's type (a negative dimension...), or None."""
    if isinstance(t, TensorType):
        if not isinstance(t.dtype, DType):
            return f"dtype {t.dtype!r} is not a DType"
        if not isinstance(t.shape, tuple) or any(not isinstance(d, (int, np.integer))
                                                 or isinstance(d, bool) or d < 0 for d in t.shape):
            return f"shape {t.shape!r} must be a tuple of non-negative ints"
        return None
    if isinstance(t, ScalarType):
        return None if isinstance(t.dtype, DType) else f"dtype {t.dtype!r} is not a DType"
    if isinstance(t, TupleType):
        for e in t.elements:
            p = type_problem(e)
            if p:
                return p
        return None
    if isinstance(t, (NoneType, ObjectType)):
        return None
    return f"{t!r} is not an IR type"
