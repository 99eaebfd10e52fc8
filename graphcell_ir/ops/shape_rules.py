"""Shared shape and dtype inference rules, named for what they compute.

Like JAX's ``standard_primitive(shape_rule, dtype_rule)``: twenty elementwise ops share
``broadcast_binary`` and are tested once through it. Rules take operand types (``TensorType`` or
``ScalarType``, the latter a weakly-typed Python scalar) and static attributes, and return the
result type. They raise ``ShapeError``/``OpTypeError`` without the op's name; ``OpDef.infer_types``
adds it.
"""
from __future__ import annotations

from graphcell_ir.errors import OpTypeError, ShapeError
from graphcell_ir.ir.types import (DType, ScalarType, TensorType, Type, bool_, float32, int64,
                                   promote, promote_weak)


def require_tensorish(t: Type, what: str) -> None:
    if not isinstance(t, (TensorType, ScalarType)):
        raise OpTypeError(f"{what} must be a tensor or a number, got {t}")


def broadcast_shapes(*shapes: tuple[int, ...]) -> tuple[int, ...]:
    """numpy broadcasting of static shapes; ShapeError when they do not broadcast."""
    ndim = max((len(s) for s in shapes), default=0)
    out = []
    for axis in range(-ndim, 0):
        dims = {s[axis] for s in shapes if len(s) >= -axis} - {1}
        if len(dims) > 1:
            listed = " and ".join(f"[{','.join(map(str, s))}]" for s in shapes)
            raise ShapeError(f"shapes {listed} do not broadcast (axis {axis}: sizes "
                             f"{', '.join(map(str, sorted(dims)))})")
        out.append(dims.pop() if dims else 1)
    return tuple(out)


def result_dtype(*types: Type) -> DType:
    """Promotion over tensors and weak Python scalars (see ``types.promote``)."""
    tensors = [t.dtype for t in types if isinstance(t, TensorType)]
    scalars = [t.dtype for t in types if isinstance(t, ScalarType)]
    if not tensors:  # scalars only: the strongest kind wins
        d = scalars[0]
        for s in scalars[1:]:
            d = promote(d, s)
        return d
    d = tensors[0]
    for t in tensors[1:]:
        d = promote(d, t)
    for s in scalars:
        d = promote_weak(d, s)
    return d


def _broadcast(types: tuple[Type, ...], dtype: DType) -> Type:
    for i, t in enumerate(types):
        require_tensorish(t, f"operand {i}")
    if all(isinstance(t, ScalarType) for t in types):
        return ScalarType(dtype)
    return TensorType(dtype, broadcast_shapes(*(t.shape for t in types)))


def broadcast_binary(x: Type, y: Type) -> Type:
    """Arithmetic: broadcast shapes, promoted dtype."""
    return _broadcast((x, y), result_dtype(x, y))


def broadcast_binary_float(x: Type, y: Type) -> Type:
    """True division: like ``broadcast_binary`` but integers and bools give Float32."""
    d = result_dtype(x, y)
    return _broadcast((x, y), d if d.is_float else float32)


def broadcast_compare(x: Type, y: Type) -> Type:
    """Comparisons: broadcast shapes, Bool."""
    result_dtype(x, y)
    return _broadcast((x, y), bool_)


def broadcast_logical(x: Type, y: Type) -> Type:
    """Logical and/or/xor: operands of any dtype, Bool result."""
    return _broadcast((x, y), bool_)


def same_as_input(x: Type) -> Type:
    """Unary ops that keep shape and dtype (abs, relu, ...)."""
    require_tensorish(x, "input")
    return x


def same_as_numeric_input(x: Type) -> Type:
    """Like ``same_as_input`` for arithmetic that has no meaning on Bool (neg, sign, square)."""
    require_tensorish(x, "input")
    if x.dtype.is_bool:
        raise OpTypeError(f"input must be numeric, got {x}")
    return x


def unary_float(x: Type) -> Type:
    """Transcendental unary ops: integer and bool inputs give Float32 (as MindSpore's sqrt)."""
    require_tensorish(x, "input")
    if x.dtype.is_float:
        return x
    return ScalarType(float32) if isinstance(x, ScalarType) else TensorType(float32, x.shape)


def unary_bool(x: Type) -> Type:
    """Predicates (isnan, logical_not): same shape, Bool."""
    require_tensorish(x, "input")
    return ScalarType(bool_) if isinstance(x, ScalarType) else TensorType(bool_, x.shape)


def require_tensor(t: Type, what: str = "input") -> TensorType:
    if not isinstance(t, TensorType):
        raise OpTypeError(f"{what} must be a tensor, got {t}")
    return t


def require_float(t: Type, what: str = "input") -> None:
    if not t.dtype.is_float:
        raise OpTypeError(f"{what} must have a float dtype, got {t.dtype}")


def normalize_axes(axis: tuple[int, ...] | None, ndim: int) -> tuple[int, ...]:
    """Axes in [0, ndim), sorted, all of them for ``None``; ShapeError when out of range. A 0-d
    tensor takes axis 0 or -1 (as MindSpore's reductions do)."""
    if axis is None or axis == ():
        return tuple(range(ndim))
    out = []
    for a in axis:
        if not -max(ndim, 1) <= a < max(ndim, 1):
            raise ShapeError(f"axis {a} is out of range for a tensor of rank {ndim}")
        a = a % ndim if ndim else 0
        if a in out:
            raise ShapeError(f"axis {a} is repeated in {axis}")
        out.append(a)
    return tuple(sorted(out))


def reduce_shape(shape: tuple[int, ...], axis, keep_dims: bool) -> tuple[int, ...]:
    axes = normalize_axes(axis, len(shape))
    if keep_dims:
        return tuple(1 if i in axes else s for i, s in enumerate(shape))
    return tuple(s for i, s in enumerate(shape) if i not in axes)


def reduce_same_dtype(x: Type, *, axis=None, keep_dims=False) -> TensorType:
    """max/min/prod-style reductions: dtype kept."""
    x = require_tensor(x)
    return TensorType(x.dtype, reduce_shape(x.shape, axis, keep_dims))


def reduce_sum_dtype(x: Type, *, axis=None, keep_dims=False) -> TensorType:
    """Sums: integers and bools accumulate in Int64 (as MindSpore's ``Tensor.sum``)."""
    x = require_tensor(x)
    d = x.dtype if x.dtype.is_float else int64
    return TensorType(d, reduce_shape(x.shape, axis, keep_dims))


def reduce_bool(x: Type, *, axis=None, keep_dims=False) -> TensorType:
    """any/all: Bool."""
    x = require_tensor(x)
    return TensorType(bool_, reduce_shape(x.shape, axis, keep_dims))
