"""Creating tensors with MindSpore 2.10's signatures and dtype defaults: ``zeros``/``ones``/
``full``/``fill`` and their ``*_like`` forms, ``eye``, ``arange``/``range``,
``linspace``/``logspace``, ``meshgrid``, ``scalar_to_tensor``, and the Tensor methods
``new_zeros``/``new_ones``/``new_full``/``new_empty``.

Values known while compiling become constants (``fill`` ops, or ``const`` ops in graph mode).
``linspace``/``logspace`` also take 0-d tensors for their ends and compute from them, so they work
on tensors computed in the graph. ``arange``/``range`` read tensor arguments' values: their length
depends on them, so that form runs in PyNative only.

Example::

    >>> import graphcell as ms
    >>> from graphcell import ops
    >>> ops.arange(1, 2.5, 0.5)
    Tensor(shape=[3], dtype=Float32, value= [ 1.00000000e+00,  1.50000000e+00,  2.00000000e+00])
"""
from __future__ import annotations

import math

import numpy as np

from graphcell.ops.function._array_utils import (check_int, check_tensor, const, dtype_arg,
                                                 filled, is_int, scalar_of, size_arg)
from graphcell.ops.primitive import primitive
from graphcell.tensor import Tensor
from graphcell_ir.ir.types import float32, float64, int64
from graphcell_ir.ops import functional as F

__all__ = ["zeros", "ones", "zeros_like", "ones_like", "full", "full_like", "fill", "fills",
           "eye", "arange", "range", "linspace", "logspace", "meshgrid", "scalar_to_tensor",
           "tuple_to_array",
           "Zeros", "Ones", "ZerosLike", "OnesLike", "Fill", "FillV2", "Fills", "Eye", "Range",
           "LinSpace", "LogSpace", "Meshgrid", "ScalarToTensor", "TupleToArray"]


def _filled(shape: tuple, dtype, value):
    """``shape`` filled with ``value``: a number (a ``fill`` op) or a one-element tensor
    (broadcast, so a value computed in the graph works too)."""
    if isinstance(value, Tensor):
        if value.size != 1:
            raise ValueError(f"a fill value must be a number or a one-element tensor, but got a "
                             f"tensor of shape {list(value.shape)}")
        v = F.reshape(value, shape=())
        return F.broadcast_to(F.cast(v, dtype=dtype) if v.dtype != dtype else v, shape=shape)
    if isinstance(value, (np.generic, np.ndarray)):
        value = np.asarray(value).item()
    if not isinstance(value, (bool, int, float)):
        raise TypeError(f"a fill value must be a number or a tensor, but got "
                        f"{type(value).__name__}")
    return filled(shape, dtype, value)


def zeros(size, dtype=None):
    """``ops.zeros(size, dtype=None)``: zeros of shape ``size`` (an int, a tuple/list of ints or
    an integer tensor), Float32 unless ``dtype`` is given."""
    return F.fill(dtype=float32 if dtype is None else dtype_arg(dtype, "ops.zeros"),
                  shape=size_arg(size, "ops.zeros"), value=0)


def ones(shape, dtype=None):
    """``ops.ones(shape, dtype=None)``: ones of ``shape``, Float32 unless ``dtype`` is given."""
    return F.fill(dtype=float32 if dtype is None else dtype_arg(dtype, "ops.ones"),
                  shape=size_arg(shape, "ops.ones", "shape"), value=1)


def zeros_like(input, *, dtype=None):  # noqa: A002 - MindSpore's parameter name
    """``ops.zeros_like(input, *, dtype=None)``: zeros of ``input``'s shape and dtype."""
    check_tensor(input, "ops.zeros_like")
    return F.fill(dtype=input.dtype if dtype is None else dtype_arg(dtype, "ops.zeros_like"),
                  shape=tuple(input.shape), value=0)


def ones_like(input, *, dtype=None):  # noqa: A002
    """``ops.ones_like(input, *, dtype=None)``: ones of ``input``'s shape and dtype."""
    check_tensor(input, "ops.ones_like")
    return F.fill(dtype=input.dtype if dtype is None else dtype_arg(dtype, "ops.ones_like"),
                  shape=tuple(input.shape), value=1)


def full(size, fill_value, *, dtype=None):
    """``ops.full(size, fill_value, *, dtype=None)``: ``size`` filled with ``fill_value``.

    As in MindSpore 2.10 the default dtype is Int64 whatever the value (``ops.full((2,), 1.5)``
    is ``[1, 1]``); give ``dtype`` for anything else.
    """
    if not isinstance(size, (tuple, list)):
        raise TypeError(f"ops.full: 'size' must be a tuple or list of ints, but got "
                        f"{type(size).__name__}")
    dtype = int64 if dtype is None else dtype_arg(dtype, "ops.full")
    return _filled(size_arg(size, "ops.full"), dtype, fill_value)


def full_like(input, fill_value, *, dtype=None):  # noqa: A002
    """``ops.full_like(input, fill_value, *, dtype=None)``: ``input``'s shape filled with
    ``fill_value``, in ``input``'s dtype unless ``dtype`` is given."""
    check_tensor(input, "ops.full_like")
    dtype = input.dtype if dtype is None else dtype_arg(dtype, "ops.full_like")
    return _filled(tuple(input.shape), dtype, fill_value)


def fill(type, shape, value):  # noqa: A002 - MindSpore's parameter name
    """``ops.fill(type, shape, value)``: a tensor of ``type`` and ``shape`` filled with
    ``value`` (a number or a one-element tensor)."""
    return _filled(size_arg(shape, "ops.fill", "shape"), dtype_arg(type, "ops.fill", "type"),
                   value)


def fills(x, value):
    """``ops.fills(x, value)`` (deprecated in MindSpore): ``x``'s shape and dtype filled with
    ``value``."""
    check_tensor(x, "ops.fills", "x")
    return _filled(tuple(x.shape), x.dtype, value)


def _fill_v2(shape, value):
    """``ops.FillV2()(shape, value)``: ``shape`` filled with the one-element tensor ``value``, in
    its dtype."""
    check_tensor(value, "FillV2", "value")
    return _filled(size_arg(shape, "FillV2", "shape"), value.dtype, value)


def eye(n, m=None, dtype=None):
    """``ops.eye(n, m=None, dtype=None)``: an ``n`` x ``m`` identity matrix (``m`` defaults to
    ``n``), Float32 unless ``dtype`` is given."""
    n = check_int(scalar_of(n, "ops.eye", "n"), "ops.eye", "n")
    m = n if m is None else check_int(scalar_of(m, "ops.eye", "m"), "ops.eye", "m")
    if n < 0 or m < 0:
        raise ValueError(f"ops.eye: 'n' and 'm' must be non-negative, but got {n} and {m}")
    dtype = float32 if dtype is None else dtype_arg(dtype, "ops.eye")
    return const(np.eye(n, m, dtype=dtype.np_dtype))


def _eye_primitive(n, m, dtype):
    """``ops.Eye()(n, m, dtype)``: every argument is required."""
    return eye(n, m, dtype)


def _range_values(start, end, step, fn: str):
    for name, v in (("start", start), ("end", end), ("step", step)):
        if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, float, np.number)):
            raise TypeError(f"{fn}: '{name}' must be a number or a 0-d tensor, but got {v!r}")
    if step == 0:
        raise ValueError(f"{fn}: 'step' cannot be zero")
    if (end - start) * step < 0:
        raise ValueError(f"{fn}: 'step' {step} points away from 'end' {end} (from 'start' "
                         f"{start})")
    return max(0, math.ceil((end - start) / step))


_BOUNDS = ("start", "end", "step")


def arange(start=0, end=None, step=1, *, dtype=None):
    """``ops.arange(start=0, end=None, step=1, *, dtype=None)``: ``start, start + step, ...``
    below ``end``; ``arange(n)`` counts from 0. Int64 when every bound is an int, Float32 when one
    is a float, else ``dtype``. Tensor bounds are read (PyNative only)."""
    args = (start, end, step)
    floats = any(isinstance(v, float) or (isinstance(v, Tensor) and v.dtype.is_float)
                 for v in args)
    start, end, step = (scalar_of(v, "ops.arange", n) for v, n in zip(args, _BOUNDS))
    if end is None:
        start, end = 0, start
    n = _range_values(start, end, step, "ops.arange")
    out = dtype_arg(dtype, "ops.arange") if dtype is not None else float32 if floats else int64
    calc = np.float64 if floats else np.int64
    return const((calc(start) + np.arange(n, dtype=calc) * calc(step)).astype(out.np_dtype))


def range(start, end, step, maxlen=1000000):  # noqa: A001 - MindSpore's name
    """``ops.range(start, end, step, maxlen=1000000)``: like :func:`arange`, with all three
    bounds of one kind: Int64 for ints, Float32 for floats (tensors keep their float dtype)."""
    kinds = {_kind(v) for v in (start, end, step)}
    if len(kinds) != 1:
        raise TypeError(f"ops.range: 'start', 'end' and 'step' must have the same type, but got "
                        f"{start!r}, {end!r}, {step!r}")
    kind = kinds.pop()
    start, end, step = (scalar_of(v, "ops.range", n) for v, n in zip((start, end, step),
                                                                      _BOUNDS))
    n = _range_values(start, end, step, "ops.range")
    if n > maxlen:
        raise ValueError(f"ops.range: the result has {n} elements, more than maxlen={maxlen}")
    out = int64 if kind == "int" else (kind if kind != "float" else float32)
    np_t = out.np_dtype.type
    return const((np_t(start) + np.arange(n).astype(out.np_dtype) * np_t(step)).astype(
        out.np_dtype))


def _kind(v):
    if isinstance(v, Tensor):
        return "int" if v.dtype.is_int else v.dtype
    return "int" if is_int(v) else "float"


def _range_primitive(start, limit, delta, *, maxlen=1000000):
    return range(start, limit, delta, maxlen)


def _end_point(v, fn: str, name: str):
    """A linspace/logspace bound: a number, or a one-element float tensor."""
    if isinstance(v, Tensor):
        if v.size != 1:
            raise ValueError(f"{fn}: '{name}' must be a number or a 0-d tensor, but got a tensor "
                             f"of shape {list(v.shape)}")
        return F.reshape(v, shape=())
    if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, float, np.number)):
        raise TypeError(f"{fn}: '{name}' must be a number or a 0-d tensor, but got {v!r}")
    return float(v)


def _ramp(start, end, steps: int, dtype):
    """``steps`` values from ``start`` to ``end`` (both included), computed with ops so tensor
    bounds work in graph mode; Python bounds give a constant."""
    if not isinstance(start, Tensor) and not isinstance(end, Tensor):
        if steps == 1:
            return const(np.array([start], dtype.np_dtype))
        return const(np.linspace(start, end, steps).astype(dtype.np_dtype))
    if steps == 1:
        first = start if isinstance(start, Tensor) else const(np.array(start, dtype.np_dtype))
        return F.reshape(F.cast(first, dtype=dtype), shape=(1,))
    t = const(np.arange(steps, dtype=dtype.np_dtype) / dtype.np_dtype.type(steps - 1))
    # start * (1 - t) + end * t gives both ends exactly
    return F.add(F.mul(start, F.sub(1.0, t)), F.mul(end, t))


def linspace(start, end, steps):
    """``ops.linspace(start, end, steps)``: ``steps`` evenly spaced values from ``start`` to
    ``end`` (both included); Float32, or the dtype of float tensor bounds (which must agree)."""
    fn = "ops.linspace"
    start, end = _end_point(start, fn, "start"), _end_point(end, fn, "end")
    steps = check_int(scalar_of(steps, fn, "steps"), fn, "steps")
    if steps <= 0:
        raise ValueError(f"{fn}: 'steps' must be greater than 0, but got {steps}")
    dtypes = {v.dtype for v in (start, end) if isinstance(v, Tensor)}
    if len(dtypes) > 1 or (dtypes and not next(iter(dtypes)).is_float):
        raise TypeError(f"{fn}: tensor bounds must have one float dtype, but got "
                        f"{', '.join(map(str, dtypes))}")
    dtype = dtypes.pop() if dtypes else float32
    if isinstance(start, Tensor) != isinstance(end, Tensor) and dtype != float32:
        raise TypeError(f"{fn}: 'start' and 'end' must have the same type")
    return _ramp(start, end, steps, dtype)


def _linspace_primitive(start, stop, num):
    for name, v in (("start", start), ("stop", stop)):
        check_tensor(v, "LinSpace", name)
    return linspace(start, stop, num)


def logspace(start, end, steps, base=10, *, dtype=float32):
    """``ops.logspace(start, end, steps, base=10, *, dtype=mstype.float32)``:
    ``base ** linspace(start, end, steps)``; ``base`` is an int, the bounds floats."""
    fn = "ops.logspace"
    base = check_int(base, fn, "base")
    if base < 0 or steps < 0:
        raise ValueError(f"{fn}: 'base' and 'steps' must be non-negative, but got {base}, {steps}")
    for name, v in (("start", start), ("end", end)):
        if is_int(v) or (isinstance(v, Tensor) and not v.dtype.is_float):
            raise TypeError(f"{fn}: '{name}' must be a float or a float tensor, but got {v!r}")
    dtype = dtype_arg(dtype, fn)
    if steps == 0:
        return const(np.zeros((0,), dtype.np_dtype))
    exponents = _ramp(_end_point(start, fn, "start"), _end_point(end, fn, "end"), steps, float64)
    return F.cast(F.pow(float(base), exponents), dtype=dtype)


def _logspace_primitive(start, end, *, steps=10, base=10, dtype=float32):
    return logspace(start, end, steps, base, dtype=dtype)


def meshgrid(*inputs, indexing="xy"):
    """``ops.meshgrid(*inputs, indexing='xy')``: coordinate grids of the 1-D ``inputs``.

    With ``'xy'`` the first two output axes are swapped (Cartesian), with ``'ij'`` they follow the
    inputs (matrix indexing). All inputs must have one dtype.
    """
    fn = "ops.meshgrid"
    if indexing not in ("xy", "ij"):
        raise ValueError(f"{fn}: 'indexing' must be 'xy' or 'ij', but got {indexing!r}")
    if not inputs:
        return ()
    if not all(isinstance(t, Tensor) for t in inputs):
        raise TypeError(f"{fn}: expected tensors as positional arguments, but got "
                        f"{', '.join(type(t).__name__ for t in inputs) or 'none'}")
    if len({t.dtype for t in inputs}) > 1:
        raise ValueError(f"{fn}: all tensors must have the same dtype, but got "
                         f"{', '.join(str(t.dtype) for t in inputs)}")
    for t in inputs:
        if t.ndim != 1:
            raise ValueError(f"{fn}: every input must be 1-D, but got shape {list(t.shape)}")
    sizes = [t.shape[0] for t in inputs]
    if indexing == "xy" and len(inputs) > 1:
        sizes[0], sizes[1] = sizes[1], sizes[0]
    out = []
    for i, t in enumerate(inputs):
        axis = (1 - i if i < 2 else i) if indexing == "xy" and len(inputs) > 1 else i
        view = [1] * len(inputs)
        view[axis] = t.shape[0]
        out.append(F.broadcast_to(F.reshape(t, shape=tuple(view)), shape=tuple(sizes)))
    return tuple(out)


def _meshgrid_primitive(inputs, *, indexing="xy"):
    return meshgrid(*inputs, indexing=indexing)


def scalar_to_tensor(input_x, dtype=float32):
    """``ops.scalar_to_tensor(input_x, dtype=mstype.float32)``: a 0-d tensor of a number."""
    if isinstance(input_x, (np.generic,)):
        input_x = input_x.item()
    if not isinstance(input_x, (bool, int, float)):
        raise TypeError(f"ops.scalar_to_tensor: 'input_x' must be a number, but got "
                        f"{type(input_x).__name__}")
    return filled((), dtype_arg(dtype, "ops.scalar_to_tensor"), input_x)


def tuple_to_array(input_x):
    """``ops.TupleToArray()(input_x)``: a 1-D tensor of a tuple of numbers of one kind (Int32 for
    ints, Float32 for floats, as MindSpore 2.10 makes them)."""
    fn = "TupleToArray"
    if not isinstance(input_x, (tuple, list)) or not input_x:
        raise TypeError(f"{fn}: 'input_x' must be a non-empty tuple of numbers, but got "
                        f"{input_x!r}")
    kinds = {int if is_int(v) else float if isinstance(v, (float, np.floating)) else None
             for v in input_x}
    if None in kinds or len(kinds) > 1:
        raise TypeError(f"{fn}: all elements of 'input_x' must be numbers of the same type, but "
                        f"got {input_x!r}")
    kind = kinds.pop()
    return const(np.array(input_x, np.int32 if kind is int else np.float32))


# --- Primitive classes -------------------------------------------------------------------------

Zeros = primitive("Zeros", zeros)
Ones = primitive("Ones", ones)
ZerosLike = primitive("ZerosLike", zeros_like)
OnesLike = primitive("OnesLike", ones_like)
Fill = primitive("Fill", fill)
FillV2 = primitive("FillV2", _fill_v2)
Fills = primitive("Fills", fills)
Eye = primitive("Eye", _eye_primitive)
Range = primitive("Range", _range_primitive, init=("maxlen",))
LinSpace = primitive("LinSpace", _linspace_primitive)
LogSpace = primitive("LogSpace", _logspace_primitive, init=("steps", "base", "dtype"))
Meshgrid = primitive("Meshgrid", _meshgrid_primitive, init=("indexing",))
ScalarToTensor = primitive("ScalarToTensor", scalar_to_tensor)
TupleToArray = primitive("TupleToArray", tuple_to_array)


# --- Tensor methods ----------------------------------------------------------------------------

def _new_zeros(self, size, dtype=None):
    """``Tensor.new_zeros(size, dtype=None)``: zeros in ``self``'s dtype unless ``dtype``."""
    return zeros(size, self.dtype if dtype is None else dtype)


def _new_ones(self, size, dtype=None):
    """``Tensor.new_ones(size, dtype=None)``: ones in ``self``'s dtype unless ``dtype``."""
    return ones(size, self.dtype if dtype is None else dtype)


def _new_full(self, size, fill_value, *, dtype=None):
    """``Tensor.new_full(size, fill_value, *, dtype=None)``."""
    return _filled(size_arg(size, "Tensor.new_full"), self.dtype if dtype is None
                   else dtype_arg(dtype, "Tensor.new_full"), fill_value)


def _new_empty(self, size, *, dtype=None, device=None):
    """``Tensor.new_empty(size, *, dtype=None, device=None)``: uninitialised in MindSpore; zeros
    here."""
    return zeros(size, self.dtype if dtype is None else dtype)


def _fill_method(self, value):
    """``Tensor.fill(value)``: a new tensor of ``self``'s shape and dtype filled with ``value``."""
    return _filled(tuple(self.shape), self.dtype, value)


TENSOR_METHODS = {
    "new_zeros": _new_zeros, "new_ones": _new_ones, "new_full": _new_full,
    "new_empty": _new_empty, "fill": _fill_method, "fills": fills,
}

