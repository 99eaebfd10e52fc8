"""``mindspore.numpy.dtypes``: the dtype names and constants of ``mindspore.numpy``.

The dtypes are graphcell's own (``graphcell.numpy.float32 is graphcell.float32``). As in
mindspore.numpy, numpy's default-width names are 32-bit: ``int_`` is Int32, ``float_`` Float32,
``uint`` UInt32. ``e`` and ``newaxis`` are numpy's, which mindspore.numpy lacks.

Example::

    >>> from graphcell.numpy import dtypes
    >>> dtypes.int_, dtypes.float_, dtypes.newaxis is None
    (Int32, Float32, True)
"""
import math

from graphcell.dtype import (bool_, float16, float32, float64, int8, int16, int32, int64, uint8,
                             uint16, uint32, uint64)

int_ = int32
uint = uint32
float_ = float32

inf = float("inf")
PINF = float("inf")
NINF = float("-inf")
nan = float("nan")
pi = math.pi
e = math.e
newaxis = None

numeric_types = ["int_", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
                 "float_", "float16", "float32", "float64", "bool_"]
"""The dtype names ``mindspore.numpy`` exports (its ``numeric_types``)."""

__all__ = numeric_types + ["uint", "inf", "PINF", "NINF", "nan", "pi", "e", "newaxis",
                           "numeric_types"]
