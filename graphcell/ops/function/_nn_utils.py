"""Argument checks and helpers shared by the nn family modules (``nn_func``, ``loss_func``,
``conv_func``, ``pool_func``, ``image_func``).

Everything here runs on Tensors in PyNative and on the GraphTensors graph mode traces: it reads
only static facts (``shape``, ``dtype``, Python arguments) or calls ``F``.
"""
from __future__ import annotations

import numpy as np

from graphcell.tensor import Tensor
from graphcell_ir.ir.core import Value
from graphcell_ir.ir.structural import CONST, const_array
from graphcell_ir.ir.types import DType, float32
from graphcell_ir.ops import functional as F


def tensor(name: str, x, what: str = "input") -> Tensor:
    """``x`` itself when it is a Tensor; a TypeError naming ``name`` otherwise."""
    if not isinstance(x, Tensor):
        raise TypeError(f"{name}: '{what}' must be a Tensor, got {type(x).__name__}")
    return x


def float_tensor(name: str, x, what: str = "input") -> Tensor:
    """A float Tensor. graphcell also accepts Float64 where MindSpore's CPU kernels stop at
    Float32 (finite-difference checks run in Float64)."""
    tensor(name, x, what)
    if not x.dtype.is_float:
        raise TypeError(f"{name}: '{what}' must be a float tensor (Float16, Float32 or Float64), "
                        f"got {x.dtype}")
    return x


def numeric_tensor(name: str, x, what: str = "input") -> Tensor:
    tensor(name, x, what)
    if x.dtype.is_bool:
        raise TypeError(f"{name}: '{what}' must be a numeric tensor, got {x.dtype}")
    return x


def int_tensor(name: str, x, what: str = "indices") -> Tensor:
    tensor(name, x, what)
    if not x.dtype.is_int:
        raise TypeError(f"{name}: '{what}' must be an integer tensor, got {x.dtype}")
    return x


def number(name: str, value, what: str) -> float:
    """A Python int or float (not a bool); a TypeError otherwise."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.integer,
                                                                      np.floating)):
        raise TypeError(f"{name}: '{what}' must be an int or a float, got {type(value).__name__}")
    return value


def int_arg(name: str, value, what: str) -> int:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"{name}: '{what}' must be an int, got {type(value).__name__}")
    return int(value)


def same_dtype(name: str, x, y, xname: str, yname: str) -> None:
    if x.dtype != y.dtype:
        raise TypeError(f"{name}: '{xname}' and '{yname}' must have the same dtype, got "
                        f"{x.dtype} and {y.dtype}")


def same_shape(name: str, x, y, xname: str, yname: str) -> None:
    if tuple(x.shape) != tuple(y.shape):
        raise ValueError(f"{name}: '{xname}' and '{yname}' must have the same shape, got "
                         f"{list(x.shape)} and {list(y.shape)}")


def as_float(x, dtype: DType = float32):
    """``x`` in a float dtype: float tensors unchanged, others cast to ``dtype``."""
    return x if x.dtype.is_float else F.cast(x, dtype=dtype)


def cast_back(y, like):
    """``y`` cast to ``like``'s dtype when they differ (integer activations truncate)."""
    return y if y.dtype == like.dtype else F.cast(y, dtype=like.dtype)


def ntuple(name: str, value, n: int, what: str, allow_zero: bool = False) -> tuple[int, ...]:
    """An int or a sequence of ``n`` ints as an ``n``-tuple, each positive (or >= 0)."""
    if isinstance(value, (int, np.integer)) and not isinstance(value, bool):
        out = (int(value),) * n
    elif isinstance(value, (tuple, list)) and all(isinstance(v, (int, np.integer)) and
                                                  not isinstance(v, bool) for v in value):
        out = tuple(int(v) for v in value)
        if len(out) == 1:
            out = out * n
    else:
        raise TypeError(f"{name}: '{what}' must be an int or a tuple of {n} ints, got {value!r}")
    if len(out) != n:
        raise ValueError(f"{name}: '{what}' must be an int or a tuple of {n} ints, got {value!r}")
    low = 0 if allow_zero else 1
    if any(v < low for v in out):
        raise ValueError(f"{name}: '{what}' must be {'non-negative' if allow_zero else 'positive'}, "
                         f"got {value!r}")
    return out


REDUCTIONS = ("mean", "sum", "none")


def reduction_arg(name: str, reduction) -> str:
    if reduction not in REDUCTIONS:
        raise ValueError(f"{name}: 'reduction' must be one of 'none', 'mean' or 'sum', got "
                         f"{reduction!r}")
    return reduction


def reduce_loss(loss, reduction: str):
    """MindSpore's ``reduction``: the mean or the sum of the elementwise loss, or the loss."""
    if reduction == "mean":
        return F.reduce_mean(loss, axis=None, keep_dims=False)
    if reduction == "sum":
        return F.reduce_sum(loss, axis=None, keep_dims=False)
    return loss


def channel_shape(ndim: int, axis: int = 1) -> tuple[int, ...]:
    """The shape that puts a per-channel vector on ``axis`` of a rank-``ndim`` tensor."""
    return tuple(-1 if i == axis else 1 for i in range(ndim))


def constant(values, dtype) -> Tensor:
    """A constant Tensor (graph mode folds it into the IR as a constant)."""
    return Tensor(np.asarray(values, dtype=dtype.np_dtype if isinstance(dtype, DType) else dtype))


def static_ints(name: str, value, what: str, n: int | None = None) -> tuple[int, ...]:
    """Integers that set an output's shape, given as ints, a tuple or a Tensor (MindSpore's
    ``output_size`` Tensors). A Tensor's values are read at once in PyNative; in graph mode only a
    constant's values are known while compiling, and any other tensor is refused here."""
    if isinstance(value, Tensor):
        arr = _known_array(name, value, what)
        out = tuple(int(v) for v in np.asarray(arr).reshape(-1))
    elif isinstance(value, (int, np.integer)) and not isinstance(value, bool):
        out = (int(value),)
    elif isinstance(value, (tuple, list)) and all(isinstance(v, (int, np.integer)) for v in value):
        out = tuple(int(v) for v in value)
    else:
        raise TypeError(f"{name}: '{what}' must be ints or a Tensor of ints, got {value!r}")
    if n is not None and len(out) != n:
        raise ValueError(f"{name}: '{what}' must hold {n} values, got {list(out)}")
    return out


def _known_array(name: str, t, what: str) -> np.ndarray:
    ir_value = getattr(t, "value", None)
    if isinstance(ir_value, Value):  # graph mode: an IR value, known only if it is a constant
        op = getattr(ir_value, "op", None)
        arr = const_array(op) if op is not None and op.opdef is CONST else None
        if arr is None:
            raise ValueError(f"{name}: '{what}' sets the output's shape, so graph mode needs its "
                             "values while compiling: pass a constant (a tuple, or a Tensor made "
                             "from constants), or run in PyNative mode")
        return arr
    return t.asnumpy()
