"""MindSpore's array functions (``mindspore.ops.function.array_func``): creation, casting, joining
and reshaping tensors, written against the functional API ``F`` so each runs eagerly in PyNative and
emits IR when graph mode traces it.
"""
from __future__ import annotations

from graphcell.ops.function._utils import axes, normalize_axis, scalar, shape_of
from graphcell.ops.primitive import primitive
from graphcell_ir.ir.types import float32, to_dtype
from graphcell_ir.ops import functional as F

__all__ = ["cast", "fill", "zeros", "ones", "zeros_like", "ones_like", "concat", "squeeze",
           "stack", "Stack"]


def cast(input_x, dtype):
    """``ops.cast(x, dtype)``: ``x`` converted to ``dtype``."""
    return F.cast(input_x, dtype=to_dtype(dtype))


def fill(type, shape, value):  # noqa: A002 - MindSpore's parameter name
    """``ops.fill(type, shape, value)``: a tensor of ``shape`` filled with ``value``."""
    return F.fill(dtype=to_dtype(type), shape=shape_of(shape), value=scalar(value))


def zeros(size, dtype=None):
    """``ops.zeros(size, dtype=None)``: zeros of shape ``size`` (Float32 by default)."""
    return fill(dtype or float32, size, 0)


def ones(size, dtype=None):
    """``ops.ones(size, dtype=None)``: ones of shape ``size`` (Float32 by default)."""
    return fill(dtype or float32, size, 1)


def zeros_like(input, *, dtype=None):  # noqa: A002
    """``ops.zeros_like(input, *, dtype=None)``."""
    return fill(dtype or input.dtype, input.shape, 0)


def ones_like(input, *, dtype=None):  # noqa: A002
    """``ops.ones_like(input, *, dtype=None)``."""
    return fill(dtype or input.dtype, input.shape, 1)


def concat(tensors, axis=0):
    """``ops.concat((x, y), axis=0)``."""
    return F.concat(*tensors, axis=int(axis))


def squeeze(input, axis=None):  # noqa: A002
    """``ops.squeeze(input, axis=None)``: drop size-1 axes (all of them when ``axis`` is None)."""
    return F.squeeze(input, axis=axes(axis))


def stack(tensors, axis=0):
    """``ops.stack(tensors, axis=0)``: the tensors (all of one shape) joined along a new axis.

    >>> import graphcell as ms
    >>> ops_stack = stack([ms.Tensor([1, 2]), ms.Tensor([3, 4])], axis=1)
    >>> ops_stack.shape
    (2, 2)
    """
    tensors = tuple(tensors)
    if not tensors:
        raise ValueError("ops.stack: expected at least one tensor, got an empty sequence")
    shape = tuple(tensors[0].shape)
    for i, t in enumerate(tensors[1:], 1):
        if tuple(t.shape) != shape:
            raise ValueError(f"ops.stack: all tensors must have the same shape, but tensor 0 has "
                             f"shape {list(shape)} and tensor {i} has {list(t.shape)}")
    axis = normalize_axis(axis, len(shape) + 1)
    return F.concat(*(F.expand_dims(t, axis=axis) for t in tensors), axis=axis)


Stack = primitive("Stack", stack, init=("axis",))


TENSOR_METHODS: dict = {}


def _shape_arg(shape) -> tuple[int, ...]:
    if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
        shape = shape[0]
    return tuple(int(s) for s in shape)


def _reshape_method(self, *shape):
    """``x.reshape(2, 3)`` or ``x.reshape((2, 3))``; one size may be -1."""
    return F.reshape(self, shape=_shape_arg(shape))


def _transpose_method(self, *axes):
    """Permute axes: ``x.transpose(1, 0)``; no arguments reverses them."""
    return F.transpose(self, perm=_shape_arg(axes) if axes else None)


def _swapaxes_method(self, axis0: int, axis1: int):
    perm = list(range(self.ndim))
    perm[axis0], perm[axis1] = perm[axis1], perm[axis0]
    return F.transpose(self, perm=tuple(perm))


TENSOR_METHODS.update({
    "to": lambda self, dtype: cast(self, dtype),
    "float": lambda self: cast(self, float32),
    "reshape": _reshape_method,
    "view": _reshape_method,
    "flatten": lambda self: F.reshape(self, shape=(-1,)),
    "transpose": _transpose_method,
    "swapaxes": _swapaxes_method,
    "expand_dims": lambda self, axis: F.expand_dims(self, axis=int(axis)),
    "squeeze": lambda self, axis=None: F.squeeze(self, axis=axes(axis)),
    "broadcast_to": lambda self, shape: F.broadcast_to(self, shape=tuple(shape)),
})
