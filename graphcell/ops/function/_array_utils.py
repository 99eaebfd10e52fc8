"""Argument checks and small building blocks shared by the array family's modules (creation,
shapes, layout, matrices, padding), in MindSpore's words.

Everything here runs on Tensors in PyNative and on the ``GraphTensor``s graph mode traces with:
shapes and dtypes are static, values are read only where a name's output shape depends on them
(and then graph mode reports the call).
"""
from __future__ import annotations

import numpy as np

from graphcell.tensor import Tensor
from graphcell_ir.ir.structural import CONST, const_array
from graphcell_ir.ir.types import DType, to_dtype
from graphcell_ir.ops import functional as F


def is_int(v) -> bool:
    """A Python or numpy integer (bool is not an int here, as MindSpore's checks say)."""
    return isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_))


def check_int(v, fn: str, name: str) -> int:
    if not is_int(v):
        raise TypeError(f"{fn}: '{name}' must be an int, but got {type(v).__name__} {v!r}")
    return int(v)


def check_ints(v, fn: str, name: str, allow_int: bool = False) -> tuple[int, ...]:
    """A tuple/list of ints (or one int when ``allow_int``) as a tuple of ints."""
    if allow_int and is_int(v):
        return (int(v),)
    if not isinstance(v, (tuple, list)) or not all(is_int(e) for e in v):
        raise TypeError(f"{fn}: '{name}' must be a tuple or list of ints, but got {v!r}")
    return tuple(int(e) for e in v)


def check_dim(d, ndim: int, fn: str, name: str = "dim", extra: int = 0) -> int:
    """``d`` in ``[0, ndim + extra)``; negative values count from the end (a 0-d tensor has one
    position, as MindSpore's checks allow). ValueError when out of range."""
    d = check_int(d, fn, name)
    rank = max(ndim + extra, 1)
    if not -rank <= d < rank:
        raise ValueError(f"{fn}: '{name}' {d} is out of range: expected a value in "
                         f"[{-rank}, {rank}) for a tensor of rank {ndim}")
    return d % rank


def check_dims(ds, ndim: int, fn: str, name: str = "dims") -> tuple[int, ...]:
    """Distinct dims, each normalised by :func:`check_dim`."""
    out = tuple(check_dim(d, ndim, fn, name) for d in check_ints(ds, fn, name, allow_int=True))
    if len(set(out)) != len(out):
        raise ValueError(f"{fn}: '{name}' {tuple(ds)} repeats a dimension")
    return out


def check_tensor(x, fn: str, name: str = "input") -> Tensor:
    if not isinstance(x, Tensor):
        raise TypeError(f"{fn}: '{name}' must be a Tensor, but got {type(x).__name__}")
    return x


def check_rank(x, at_least: int, fn: str, name: str = "input") -> None:
    if x.ndim < at_least:
        raise ValueError(f"{fn}: '{name}' must have at least {at_least} dimension(s), but got a "
                         f"tensor of shape {list(x.shape)}")


def known_values(t, fn: str, name: str) -> np.ndarray:
    """The values of a tensor argument that decides a shape or a static parameter (sizes,
    paddings, repeat counts): the data in PyNative; in graph mode, the array of a constant (a
    tensor made in the compiled function or captured from Python). A tensor computed in the
    graph, or passed in, has no values while compiling: that is a located error."""
    from graphcell.graph.traced import GraphTensor, UnknownValueError
    if not isinstance(t, GraphTensor):
        return np.asarray(t.asnumpy())
    op = getattr(t.value, "op", None)
    if op is not None and op.opdef is CONST:
        arr = const_array(op)
        if arr is not None:
            return np.asarray(arr)
    raise UnknownValueError(f"{fn}: the values of '{name}' decide the result's shape, so they "
                            "must be known while graph mode compiles; give a tuple or a constant "
                            "tensor, not a tensor computed in the graph or passed in")


def size_arg(size, fn: str, name: str = "size") -> tuple[int, ...]:
    """A shape given as an int, a tuple/list of ints, or a 1-D integer Tensor of sizes (whose
    values must be known: see :func:`known_values`); negative sizes are a ValueError."""
    if isinstance(size, Tensor):
        if not size.dtype.is_int or size.ndim > 1:
            raise TypeError(f"{fn}: a Tensor '{name}' must be a 0-d or 1-D integer tensor, but got "
                            f"{size.dtype} of shape {list(size.shape)}")
        shape = tuple(int(s) for s in known_values(size, fn, name).reshape(-1))
    else:
        shape = check_ints(size, fn, name, allow_int=True)
    bad = [s for s in shape if s < 0]
    if bad:
        raise ValueError(f"{fn}: '{name}' {shape} has a negative dimension {bad[0]}")
    return shape


def dtype_arg(dtype, fn: str, name: str = "dtype") -> DType:
    try:
        return to_dtype(dtype)
    except (TypeError, ValueError, KeyError):
        raise TypeError(f"{fn}: '{name}' must be a mindspore dtype, but got {dtype!r}") from None


def filled(shape: tuple, dtype: DType, value):
    """``shape`` filled with the number ``value`` converted to ``dtype`` as MindSpore's kernels
    convert it (C casts: 300 in UInt8 is 44, -1 is 255, -1.5 in Int8 is -1)."""
    with np.errstate(all="ignore"):
        value = np.asarray(value).astype(dtype.np_dtype).item()
    return F.fill(dtype=dtype, shape=tuple(shape), value=value)


def const(array) -> Tensor:
    """A constant tensor (graph mode makes it a ``const`` op where it is used)."""
    return Tensor._wrap(np.asarray(array))


def scalar_of(value, fn: str = "", name: str = ""):
    """A Python number from a number or a one-element Tensor (see :func:`known_values`)."""
    if isinstance(value, Tensor):
        return known_values(value, fn, name).reshape(-1)[0].item() if value.size == 1 \
            else value.item()
    return value.item() if isinstance(value, np.generic) else value


def ints_of(v, fn: str, name: str) -> tuple[int, ...]:
    """Ints given as an int, a tuple/list, or an integer tensor (see :func:`known_values`)."""
    if isinstance(v, Tensor):
        if not v.dtype.is_int:
            raise TypeError(f"{fn}: '{name}' must be ints or an integer tensor, but got {v.dtype}")
        return tuple(int(i) for i in known_values(v, fn, name).reshape(-1))
    return check_ints(v, fn, name, allow_int=True)


def part(x, axis: int, start, stop, step=None):
    """``x[..., start:stop:step, ...]`` along ``axis`` (a static slice)."""
    key = (slice(None),) * axis + (slice(start, stop, step),)
    return F.getitem(x, key=key)


def index(x, axis: int, i: int):
    """``x[..., i, ...]``: position ``i`` of ``axis``, the axis dropped."""
    return F.getitem(x, key=(slice(None),) * axis + (int(i),))


def swap(x, a: int, b: int):
    """``x`` with axes ``a`` and ``b`` exchanged (no op when they are equal)."""
    if a == b:
        return x
    perm = list(range(x.ndim))
    perm[a], perm[b] = perm[b], perm[a]
    return F.transpose(x, perm=tuple(perm))


def join(parts: list, axis: int):
    """``parts`` concatenated along ``axis`` (one part is returned as it is)."""
    return parts[0] if len(parts) == 1 else F.concat(*parts, axis=axis)
