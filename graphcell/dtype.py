"""graphcell's dtypes (MindSpore's ``mindspore.dtype``, imported as ``mstype``).

The objects are graphcell_ir's ``DType`` members, the one dtype table of the project;
``str(graphcell.float32)`` is ``Float32``.

Example::

    >>> from graphcell import dtype as mstype
    >>> mstype.float32, mstype.dtype_to_nptype(mstype.int32)
    (Float32, <class 'numpy.int32'>)
"""
from graphcell_ir.ir.types import DType, to_dtype

bool_ = DType.bool_
int8, int16, int32, int64 = DType.int8, DType.int16, DType.int32, DType.int64
uint8, uint16, uint32, uint64 = DType.uint8, DType.uint16, DType.uint32, DType.uint64
float16, float32, float64 = DType.float16, DType.float32, DType.float64
half, single, double = float16, float32, float64
int_, uint, float_ = int64, uint64, float32

number_type = tuple(d for d in DType if not d.is_bool)
int_type = tuple(d for d in DType if d.is_int and d.np_dtype.kind == "i")
uint_type = tuple(d for d in DType if d.np_dtype.kind == "u")
float_type = tuple(d for d in DType if d.is_float)
all_types = tuple(DType)


def dtype_to_nptype(dtype) -> type:
    """The numpy scalar type of a graphcell dtype."""
    return to_dtype(dtype).np_dtype.type


def pytype_to_dtype(obj) -> DType:
    """The graphcell dtype of a Python type or numpy dtype (``float`` -> Float32)."""
    return to_dtype(obj)


def get_py_obj_dtype(obj) -> DType:
    """The dtype of a Tensor or a Python number."""
    from graphcell.tensor import Tensor
    if isinstance(obj, Tensor):
        return obj.dtype
    return to_dtype(type(obj))


__all__ = ["DType", "bool_", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
           "float16", "float32", "float64", "half", "single", "double", "int_", "uint", "float_",
           "number_type", "int_type", "uint_type", "float_type", "all_types", "dtype_to_nptype",
           "pytype_to_dtype", "get_py_obj_dtype"]
