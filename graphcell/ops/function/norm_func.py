"""Norms with MindSpore 2.10's signatures: ``norm``, ``vector_norm``, ``matrix_norm``, ``renorm``
and the Primitives ``LpNorm``, ``L2Normalize``, ``EuclideanNorm``, ``SquareSumAll``, ``Renorm`` —
composites written against ``F``.

As in MindSpore, ``norm`` with an integer ``ord > 0`` over one axis is ``LpNorm``, which never
returns less than its ``epsilon`` (1e-12), the infinity norms send their gradient to one maximal
element (the first), and integer inputs give Float32 2-norms. Matrix norms that need singular
values (``ord`` 2, -2 and ``'nuc'``) are refused: graphcell has no SVD yet.
"""
from __future__ import annotations

import math

import numpy as np

from graphcell.ops.function._utils import normalize_axis
from graphcell.ops.function.array_func import cast
from graphcell.ops.function.reduction_func import arg_extremum_with_value, reduce_axes
from graphcell.ops.primitive import primitive
from graphcell.tensor import Tensor
from graphcell_ir.ir.types import float32
from graphcell_ir.ops import functional as F

__all__ = ["norm", "vector_norm", "matrix_norm", "renorm", "Renorm", "LpNorm", "L2Normalize",
           "EuclideanNorm", "SquareSumAll"]

_INF = math.inf
_MATRIX_ORDS = (2, -2, 1, -1, _INF, -_INF, "fro", "nuc", None)


def _check_tensor(x, fname: str, name: str = "input") -> None:
    if not isinstance(x, Tensor):
        raise TypeError(f"{fname}: {name} must be a Tensor, got {type(x).__name__}")


def _float_only(x, fname: str) -> None:
    if not x.dtype.is_float:
        raise TypeError(f"{fname}: the input must have a float dtype, got {x.dtype}")


def _sum_of_squares(x, axes, keepdims: bool):
    return F.reduce_sum(F.mul(x, x), axis=axes, keep_dims=keepdims)


def _power_sum(x, p: float, axes, keepdims: bool):
    """``sum(|x| ** p) ** (1 / p)`` over ``axes``."""
    total = F.reduce_sum(F.pow(F.abs(x), p), axis=axes, keep_dims=keepdims)
    return F.pow(total, 1.0 / p)


def _count_nonzero(x, axes, keepdims: bool):
    """The "0-norm": the number of non-zero elements, in ``x``'s dtype."""
    return F.reduce_sum(F.cast(F.not_equal(x, 0), dtype=x.dtype), axis=axes, keep_dims=keepdims)


def _safe_pnorm(x, p: float, axes, keepdims: bool):
    """The p-norm (p > 0) with a zero gradient at the zero vector, where the root's derivative is
    infinite (MindSpore's LpNorm and Renorm give 0 there)."""
    total = F.reduce_sum(F.pow(F.abs(x), p) if p != 1 else F.abs(x), axis=axes, keep_dims=keepdims)
    positive = F.greater(total, 0)
    ones = F.fill(dtype=total.dtype, shape=tuple(total.shape), value=1)
    root = F.pow(F.select(positive, total, ones), 1.0 / p) if p != 1 else total
    return F.select(positive, root, F.zeros_like(total))


def _extreme_abs(x, axes: tuple[int, ...], keepdims: bool, largest: bool, fname: str):
    """max(|x|) (``largest``) or min(|x|) over ``axes``, the gradient to one element (the first):
    the reduced axes are moved to the end and flattened into one."""
    ax = tuple(sorted(axes))
    kept = tuple(i for i in range(x.ndim) if i not in ax)
    moved = F.transpose(F.abs(x), perm=kept + ax) if kept + ax != tuple(range(x.ndim)) else F.abs(x)
    flat = F.reshape(moved, shape=tuple(x.shape[i] for i in kept) + (-1,))
    _, values = arg_extremum_with_value(flat, len(kept), False, largest, fname)
    if keepdims:
        values = F.reshape(values, shape=tuple(1 if i in ax else s for i, s in enumerate(x.shape)))
    return values


# --- norm -----------------------------------------------------------------------------------------

def _norm_dims(dim, ndim: int, fname: str) -> tuple[int, ...] | None:
    if dim is None:
        return None
    if isinstance(dim, (int, np.integer)) and not isinstance(dim, bool):
        dims = (dim,)
    elif isinstance(dim, tuple):
        dims = dim
    else:
        raise TypeError(f"{fname}: dim must be an int or a tuple of ints, got {type(dim).__name__}")
    if len(dims) > 2:
        raise ValueError(f"{fname}: dim may name at most 2 axes, got {dim}")
    out = tuple(normalize_axis(d, ndim, f"{fname}: dim") for d in dims)
    if len(set(out)) != len(out):
        raise ValueError(f"{fname}: the axes of dim must differ, got {dim}")
    return out


def _vector_norm(x, ord, dims: tuple[int, ...], keepdim: bool, fname: str):  # noqa: A002
    """MindSpore's cases: None is the plain 2-norm; a positive int ``ord`` is LpNorm (at least
    1e-12); infinities pick one element; 0 counts; anything else is ``sum(|x|**ord)**(1/ord)``."""
    if isinstance(ord, str):
        raise TypeError(f"{fname}: ord cannot be a string for a vector norm, got {ord!r}")
    if ord is None:
        return F.sqrt(_sum_of_squares(x, dims, keepdim))
    if isinstance(ord, (int, np.integer)) and not isinstance(ord, bool) and ord > 0:
        return _lp_norm(x, dims, int(ord), keepdim, 1e-12, fname)
    if ord == _INF or ord == -_INF:
        return _extreme_abs(x, dims, keepdim, ord == _INF, fname)
    if ord == 0:
        return _count_nonzero(x, dims, keepdim)
    return _power_sum(x, float(ord), dims, keepdim)


def _matrix_norm(x, ord, dims: tuple[int, int], keepdim: bool, fname: str):  # noqa: A002
    if ord not in _MATRIX_ORDS:
        raise ValueError(f"{fname}: ord must be one of 2, -2, 1, -1, inf, -inf, 'fro', 'nuc' or "
                         f"None for a matrix norm, got {ord!r}")
    if ord in (2, -2, "nuc"):
        raise ValueError(f"{fname}: ord={ord!r} needs the singular values, and graphcell has no "
                         "SVD yet; use ord='fro', 1, -1, inf or -inf")
    row, col = dims
    if ord in (None, "fro"):
        return F.sqrt(_sum_of_squares(x, tuple(sorted(dims)), keepdim))
    # ord 1/-1: the largest/smallest column sum; inf/-inf: the largest/smallest row sum
    summed_axis, over_axis = (row, col) if ord in (1, -1) else (col, row)
    sums = F.reduce_sum(F.abs(x), axis=(summed_axis,), keep_dims=True)
    out = _extreme_abs(sums, (over_axis,), True, ord in (1, _INF), fname)
    return out if keepdim else F.squeeze(out, axis=tuple(sorted(dims)))


def norm(A, ord=None, dim=None, keepdim=False, *, dtype=None):  # noqa: A002 - MindSpore's names
    """``ops.norm(A, ord=None, dim=None, keepdim=False, *, dtype=None)``: a vector norm over one
    axis, a matrix norm over two, and with ``dim=None`` the 2-norm of all elements (``ord=None``)
    or the vector/matrix norm of a 1-D/2-D input. ``ord``: an int or float, ``inf``, ``-inf``,
    ``'fro'`` (matrices)."""
    _check_tensor(A, "ops.norm", "A")
    x = A if dtype is None else cast(A, dtype)
    dims = _norm_dims(dim, x.ndim, "ops.norm")
    if dims is None:
        if ord is None or (ord == "fro" and x.ndim == 2) or (ord == 2 and x.ndim == 1):
            out = F.sqrt(_sum_of_squares(x, None, False))
            return F.reshape(out, shape=(1,) * x.ndim) if keepdim else out
        if x.ndim not in (1, 2):
            raise ValueError(f"ops.norm: ord={ord!r} needs dim (1 or 2 axes) for a {x.ndim}-D input")
        dims = tuple(range(x.ndim))
    if len(dims) == 2:
        return _matrix_norm(x, ord, dims, bool(keepdim), "ops.norm")
    return _vector_norm(x, ord, dims, bool(keepdim), "ops.norm")


def vector_norm(x, ord=2, axis=None, keepdims=False, *, dtype=None):  # noqa: A002
    """``ops.vector_norm(x, ord=2, axis=None, keepdims=False, *, dtype=None)``: the vector
    ``ord``-norm over ``axis`` (all axes when None): ``sum(|x|**ord)**(1/ord)``, with ``inf``/
    ``-inf`` the largest/smallest magnitude and 0 the number of non-zero elements."""
    _check_tensor(x, "ops.vector_norm", "x")
    if isinstance(ord, (str, bool)) or not isinstance(ord, (int, float, np.number)):
        raise ValueError(f"ops.vector_norm: ord must be a number, got {ord!r}")
    if axis is not None and not isinstance(axis, (int, tuple)) or isinstance(axis, bool):
        raise TypeError(f"ops.vector_norm: axis must be an int or a tuple, got {type(axis).__name__}")
    x = x if dtype is None else cast(x, dtype)
    dims = reduce_axes(axis, x.ndim, "ops.vector_norm") or tuple(range(x.ndim))
    if ord == 2:
        return F.sqrt(_sum_of_squares(x, dims, bool(keepdims)))
    if ord == _INF or ord == -_INF:
        return _extreme_abs(x, dims, bool(keepdims), ord == _INF, "ops.vector_norm")
    if ord == 0:
        return _count_nonzero(x, dims, bool(keepdims))
    return _power_sum(x, float(ord), dims, bool(keepdims))


def matrix_norm(A, ord="fro", axis=(-2, -1), keepdims=False, *, dtype=None):  # noqa: A002
    """``ops.matrix_norm(A, ord='fro', axis=(-2, -1), keepdims=False, *, dtype=None)``: the
    matrix norm over the two axes of ``axis``."""
    _check_tensor(A, "ops.matrix_norm", "A")
    if not isinstance(axis, (tuple, list)):
        raise TypeError(f"ops.matrix_norm: axis must be a tuple of two ints, got {type(axis).__name__}")
    if len(axis) != 2:
        raise ValueError(f"ops.matrix_norm: axis must name two axes, got {axis}")
    x = A if dtype is None else cast(A, dtype)
    dims = _norm_dims(tuple(axis), x.ndim, "ops.matrix_norm")
    return _matrix_norm(x, ord, dims, bool(keepdims), "ops.matrix_norm")


# --- Primitives -----------------------------------------------------------------------------------

def _lp_norm(x, axes, p: int, keep_dims: bool, epsilon: float, fname: str):
    """``max(p-norm over axes, epsilon)``: MindSpore's ``LpNorm``."""
    if isinstance(p, bool) or not isinstance(p, (int, np.integer)) or p < 0:
        raise ValueError(f"{fname}: p must be an int >= 0, got {p!r}")
    _float_only(x, fname)
    if p == 0:
        out = _count_nonzero(x, axes, keep_dims)
    else:
        out = _safe_pnorm(x, int(p), axes, keep_dims)
    return F.maximum(out, F.fill(dtype=out.dtype, shape=tuple(out.shape), value=float(epsilon)))


def _lp_norm_prim(input, axis, p=2, keep_dims=False, epsilon=1e-12):
    axes = reduce_axes(tuple(axis) if isinstance(axis, list) else axis, input.ndim, "LpNorm")
    return _lp_norm(input, axes, p, bool(keep_dims), epsilon, "LpNorm")


LpNorm = primitive("LpNorm", _lp_norm_prim, init=("axis", "p", "keep_dims", "epsilon"))


def _l2_normalize(x, axis=0, epsilon=1e-4):
    """``L2Normalize(axis=0, epsilon=1e-4)(x)``: ``x / sqrt(max(sum(x**2, axis), epsilon))``."""
    _check_tensor(x, "L2Normalize", "x")
    _float_only(x, "L2Normalize")
    if x.ndim == 0:
        raise TypeError("L2Normalize: the input must have at least 1 dimension")
    axes = reduce_axes(tuple(axis) if isinstance(axis, list) else axis, x.ndim, "L2Normalize")
    squares = _sum_of_squares(x, axes, True)
    floor = F.fill(dtype=x.dtype, shape=tuple(squares.shape), value=float(epsilon))
    return F.div(x, F.sqrt(F.maximum(squares, floor)))


L2Normalize = primitive("L2Normalize", _l2_normalize, init=("axis", "epsilon"))


def _euclidean_norm(x, axes, keep_dims=False):
    """``EuclideanNorm(keep_dims=False)(x, axes)``: the 2-norm over ``axes`` (an int, a tuple,
    or a 1-D integer Tensor whose values must be known: a constant in graph mode); integer
    inputs keep their dtype (the norm is truncated)."""
    _check_tensor(x, "EuclideanNorm", "x")
    if isinstance(axes, Tensor):
        axes = tuple(int(a) for a in np.asarray(axes.asnumpy()).reshape(-1))
    if isinstance(axes, (tuple, list)) and not axes:
        return x  # no axis to reduce
    dims = reduce_axes(axes, x.ndim, "EuclideanNorm")
    xf = x if x.dtype.is_float else cast(x, float32)
    out = F.sqrt(_sum_of_squares(xf, dims, bool(keep_dims)))
    return out if x.dtype.is_float else cast(out, x.dtype)


EuclideanNorm = primitive("EuclideanNorm", _euclidean_norm, init=("keep_dims",))


def _square_sum_all(x, y):
    """``SquareSumAll()(x, y)``: ``(sum(x**2), sum(y**2))`` of two float tensors of one shape."""
    for name, t in (("x", x), ("y", y)):
        _check_tensor(t, "SquareSumAll", name)
        _float_only(t, "SquareSumAll")
    if tuple(x.shape) != tuple(y.shape):
        raise ValueError(f"SquareSumAll: x and y must have the same shape, got {list(x.shape)} "
                         f"and {list(y.shape)}")
    return _sum_of_squares(x, None, False), _sum_of_squares(y, None, False)


SquareSumAll = primitive("SquareSumAll", _square_sum_all)


# --- renorm ---------------------------------------------------------------------------------------

def renorm(input, p, axis, maxnorm):
    """``ops.renorm(input, p, axis, maxnorm)``: each slice ``input[..., i, ...]`` along ``axis``
    whose ``p``-norm exceeds ``maxnorm`` is scaled to norm ``maxnorm`` (``maxnorm / (norm +
    1e-7)``, as MindSpore and PyTorch); ``p`` an int > 0, ``maxnorm`` a float >= 0."""
    _check_tensor(input, "ops.renorm")
    if isinstance(p, bool) or not isinstance(p, (int, np.integer)):
        raise TypeError(f"ops.renorm: p must be an int, got {type(p).__name__}")
    if p <= 0:
        raise ValueError(f"ops.renorm: p must be positive, got {p}")
    if not isinstance(maxnorm, float):
        raise TypeError(f"ops.renorm: maxnorm must be a float, got {type(maxnorm).__name__}")
    if maxnorm < 0:
        raise ValueError(f"ops.renorm: maxnorm must be >= 0, got {maxnorm}")
    _float_only(input, "ops.renorm")
    if input.ndim == 0:
        raise ValueError("ops.renorm: the input must have at least 1 dimension")
    a = normalize_axis(axis, input.ndim, "ops.renorm: axis")
    others = tuple(i for i in range(input.ndim) if i != a) or None
    norms = _safe_pnorm(input, int(p), others, True) if others else F.abs(input)
    over = F.greater(norms, maxnorm)
    scale = F.select(over, F.div(maxnorm, F.add(norms, 1e-7)), F.ones_like(norms))
    return F.mul(input, scale)


def _renorm_prim(input, p, dim, maxnorm):
    return renorm(input, p, dim, maxnorm)


Renorm = primitive("Renorm", _renorm_prim, init=("p", "dim", "maxnorm"))


# --- Tensor methods -------------------------------------------------------------------------------

def _norm_method(self, ord=None, dim=None, keepdim=False, *, dtype=None):  # noqa: A002
    return norm(self, ord, dim, keepdim, dtype=dtype)


def _renorm_method(self, p, axis, maxnorm):
    return renorm(self, p, axis, maxnorm)


TENSOR_METHODS = {"norm": _norm_method, "renorm": _renorm_method}
