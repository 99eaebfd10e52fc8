"""MindSpore's structured-matrix functions (``pinv``, ``cond``, ``vander``, ``block_diag``,
``matrix_diag``...) with MindSpore 2.10's signatures: composites of the products and
factorizations of ``linalg_func``, so they run in both modes and differentiate through their parts.

Example::

    >>> import graphcell as ms
    >>> from graphcell import ops
    >>> ops.block_diag(ms.Tensor([[1.0]]), ms.Tensor([[2.0]])).asnumpy().tolist()
    [[1.0, 0.0], [0.0, 2.0]]
"""
from __future__ import annotations

import itertools
import math

import numpy as np

from graphcell.ops.function._checks import floats as _floats
from graphcell.ops.function._checks import min_rank as _min_rank
from graphcell.ops.function._checks import rank as _rank
from graphcell.ops.function._checks import square as _square
from graphcell.ops.function._checks import tensor as _tensor
from graphcell.ops.function._utils import normalize_axis
from graphcell.ops.function.linalg_func import _pivot_matrix
from graphcell.ops.primitive import primitive
from graphcell.tensor import Tensor
from graphcell_ir.errors import GraphcellError
from graphcell_ir.ir.types import float16, float32, float64, int64, promote
from graphcell_ir.ops import functional as F
from graphcell_ir.ops.linalg import mT

__all__ = ["pinv", "cond", "vander", "trapz", "block_diag", "cartesian_prod", "combinations",
           "matrix_diag", "matrix_set_diag", "matrix_diag_part", "lu_unpack", "LuUnpack"]


def pinv(x, *, atol=None, rtol=None, hermitian=False):
    """``ops.pinv(x, *, atol=None, rtol=None, hermitian=False)``: the Moore-Penrose inverse from
    the SVD; singular values at or below ``max(atol, rtol * s_max)`` count as zero (``rtol``
    defaults to ``eps * max(m, n)`` when neither is given)."""
    name = "ops.pinv"
    _tensor(x, name, "x")
    _floats(name, "x", x, (float32, float64))
    _min_rank(name, "x", x, 2)
    s, u, v = F.svd(x, full_matrices=False)
    if atol is None and rtol is None:
        rtol = float(np.finfo(x.dtype.np_dtype).eps) * max(x.shape[-2:])
    s_max = F.reduce_max(s, axis=(-1,), keep_dims=True)
    cutoff = F.mul(s_max, float(rtol or 0.0))
    if atol is not None:
        cutoff = F.maximum(cutoff, float(atol))
    keep = F.greater(s, cutoff)
    s_inv = F.select(keep, F.div(1.0, F.select(keep, s, F.ones_like(s))), F.zeros_like(s))
    return F.matmul(F.mul(v, F.expand_dims(s_inv, axis=-2)), u, transpose_b=True)


def _matrix_norm(a, p):
    if p == "fro":
        return F.sqrt(F.reduce_sum(F.square(a), axis=(-2, -1), keep_dims=False))
    if p == "nuc":
        return F.reduce_sum(F.svd(a)[0], axis=(-1,), keep_dims=False)
    axis = -2 if p in (1, -1) else -1                     # 1: column sums; inf: row sums
    sums = F.reduce_sum(F.abs(a), axis=(axis,), keep_dims=False)
    reduce = F.reduce_max if p in (1, math.inf) else F.reduce_min
    return reduce(sums, axis=(-1,), keep_dims=False)


def cond(A, p=None):  # noqa: N803 - MindSpore's parameter name
    """``ops.cond(A, p=None)``: the condition number of each matrix: ``s_max / s_min`` for
    ``p`` None or 2 (``s_min / s_max`` for -2), else ``norm(A, p) * norm(inv(A), p)`` for
    ``'fro'``, ``'nuc'``, 1, -1, inf or -inf."""
    name = "ops.cond"
    _tensor(A, name, "A")
    _floats(name, "A", A, (float32, float64))
    _min_rank(name, "A", A, 2)
    if p in (None, 2, -2):
        s = F.svd(A)[0]
        hi = F.reduce_max(s, axis=(-1,), keep_dims=False)
        lo = F.reduce_min(s, axis=(-1,), keep_dims=False)
        return F.div(lo, hi) if p == -2 else F.div(hi, lo)
    if p not in ("fro", "nuc", 1, -1, math.inf, -math.inf):
        raise ValueError(f"{name}: p must be None, 2, -2, 'fro', 'nuc', 1, -1, inf or -inf, "
                         f"got {p!r}")
    _square(name, "A", A)
    return F.mul(_matrix_norm(A, p), _matrix_norm(F.matrix_inverse(A), p))


def vander(x, N=None):  # noqa: N803
    """``ops.vander(x, N=None)``: the Vandermonde matrix of the 1-D ``x``: columns
    ``x^(N-1), ..., x, 1`` (``N`` defaults to len(x); integers compute in Int64)."""
    name = "ops.vander"
    _tensor(x, name, "x")
    _rank(name, "x", x, (1,))
    n = x.shape[0] if N is None else int(N)
    if n < 0:
        raise ValueError(f"{name}: N must be non-negative, got {n}")
    base = x if x.dtype.is_float else F.cast(x, dtype=int64)
    powers = np.arange(n - 1, -1, -1)
    columns = [F.ones_like(base) if k == 0 else base if k == 1 else F.pow(base, int(k))
               for k in powers]
    if not columns:
        return F.fill(dtype=base.dtype, shape=(x.shape[0], 0), value=0)
    return F.concat(*(F.expand_dims(c, axis=1) for c in columns), axis=1)


def trapz(y, x=None, *, dx=1.0, dim=-1):
    """``ops.trapz(y, x=None, *, dx=1.0, dim=-1)``: the trapezoid rule along ``dim``, with sample
    points ``x`` (1-D, or y's shape) or a spacing ``dx``."""
    name = "ops.trapz"
    _tensor(y, name, "y")
    d = normalize_axis(dim, y.ndim, "dim")
    n = y.shape[d]

    def part(t, start, stop):
        return F.getitem(t, key=(slice(None),) * d + (slice(start, stop),))
    mid = F.div(F.add(part(y, 1, n), part(y, 0, n - 1)), 2.0)
    if x is None:
        return F.mul(F.reduce_sum(mid, axis=(d,), keep_dims=False), float(dx))
    _tensor(x, name, "x")
    if x.ndim == 1:
        widths = F.sub(F.getitem(x, key=(slice(1, n),)), F.getitem(x, key=(slice(0, n - 1),)))
        widths = F.reshape(widths, shape=tuple(n - 1 if i == d else 1 for i in range(y.ndim)))
    else:
        widths = F.sub(part(x, 1, n), part(x, 0, n - 1))
    return F.reduce_sum(F.mul(mid, widths), axis=(d,), keep_dims=False)


def block_diag(*inputs):
    """``ops.block_diag(*inputs)``: the tensors (0-d, 1-D as one row, or 2-D) as blocks on the
    diagonal of one matrix, zeros elsewhere; dtypes promote."""
    name = "ops.block_diag"
    blocks = []
    for i, t in enumerate(inputs):
        _tensor(t, name, f"inputs[{i}]")
        if t.ndim > 2:
            raise ValueError(f"{name}: inputs must have rank <= 2, got {list(t.shape)}")
        blocks.append(F.reshape(t, shape=(1, 1) if t.ndim == 0 else (1, t.shape[0]) if t.ndim == 1
                                else tuple(t.shape)))
    if not blocks:
        return F.fill(dtype=float32, shape=(0, 0), value=0)
    dtype = blocks[0].dtype
    for b in blocks[1:]:
        dtype = promote(dtype, b.dtype)
    total = sum(b.shape[1] for b in blocks)
    rows, left = [], 0
    for b in blocks:
        r, c = b.shape
        parts = [F.fill(dtype=dtype, shape=(r, left), value=0)] if left else []
        parts.append(F.cast(b, dtype=dtype) if b.dtype != dtype else b)
        if total - left - c:
            parts.append(F.fill(dtype=dtype, shape=(r, total - left - c), value=0))
        rows.append(F.concat(*parts, axis=1) if len(parts) > 1 else parts[0])
        left += c
    return F.concat(*rows, axis=0) if len(rows) > 1 else rows[0]


def cartesian_prod(*inputs):
    """``ops.cartesian_prod(*inputs)``: every combination of one element of each 1-D input, as
    the rows of a [prod(n_i), k] tensor (the last input varies fastest)."""
    name = "ops.cartesian_prod"
    for i, t in enumerate(inputs):
        _tensor(t, name, f"inputs[{i}]")
        _rank(name, f"inputs[{i}]", t, (1,))
    if len(inputs) == 1:
        return inputs[0]
    grid = tuple(t.shape[0] for t in inputs)
    columns = []
    for i, t in enumerate(inputs):
        shaped = F.reshape(t, shape=tuple(grid[i] if j == i else 1 for j in range(len(grid))))
        columns.append(F.reshape(F.broadcast_to(shaped, shape=grid), shape=(-1, 1)))
    return F.concat(*columns, axis=1)


def combinations(input, r=2, with_replacement=False):  # noqa: A002
    """``ops.combinations(input, r=2, with_replacement=False)``: the r-element combinations of
    the 1-D ``input`` in lexicographic order of positions, as rows."""
    name = "ops.combinations"
    _tensor(input, name, "input")
    _rank(name, "input", input, (1,))
    pick = itertools.combinations_with_replacement if with_replacement else \
        itertools.combinations
    idx = np.asarray(list(pick(range(input.shape[0]), int(r))), np.int64).reshape(-1, int(r))
    if idx.size == 0:
        return F.fill(dtype=input.dtype, shape=(0, int(r)), value=0)
    return F.take(input, idx, axis=0)


def _diagonal_selector(n: int, k: int, rows: int, cols: int, dtype) -> np.ndarray:
    """S[i, r, c] = 1 where the i-th element of diagonal k sits in a rows x cols matrix."""
    s = np.zeros((n, rows, cols), dtype.np_dtype)
    for i in range(n):
        r, c = (i, i + k) if k >= 0 else (i - k, i)
        if r < rows and c < cols:
            s[i, r, c] = 1
    return s


def _static_int(name: str, what: str, v) -> int:
    if isinstance(v, Tensor):
        try:
            return int(v.asnumpy().reshape(-1)[0])
        except GraphcellError:
            raise TypeError(f"{name}: {what} must be known while compiling") from None
    return int(v)


def matrix_diag(x, k=0, num_rows=-1, num_cols=-1, padding_value=0, align="RIGHT_LEFT"):
    """``ops.matrix_diag(x, k=0, num_rows=-1, num_cols=-1, padding_value=0,
    align='RIGHT_LEFT')``: matrices with the last axis of ``x`` on diagonal ``k`` (one diagonal;
    square of side ``len + |k|`` by default) and ``padding_value`` elsewhere."""
    name = "ops.matrix_diag"
    _tensor(x, name, "x")
    k = _static_int(name, "k", k)
    n = x.shape[-1]
    rows = _static_int(name, "num_rows", num_rows)
    cols = _static_int(name, "num_cols", num_cols)
    rows = n + abs(k) if rows == -1 else rows   # square by default, as MindSpore's MatrixDiagV3
    cols = n + abs(k) if cols == -1 else cols
    sel = _diagonal_selector(n, k, rows, cols, x.dtype)
    placed = F.reshape(F.matmul(F.reshape(x, shape=(-1, n)), sel.reshape(n, rows * cols)),
                       shape=tuple(x.shape[:-1]) + (rows, cols))
    pad = padding_value.item() if isinstance(padding_value, Tensor) else padding_value
    if pad == 0:
        return placed
    off = 1 - sel.sum(axis=0)
    return F.add(placed, F.mul(F.cast(off, dtype=x.dtype), pad))


def matrix_set_diag(x, diagonal, k=0, align="RIGHT_LEFT"):
    """``ops.matrix_set_diag(x, diagonal, k=0, align='RIGHT_LEFT')``: ``x`` with diagonal ``k``
    (one diagonal) replaced by ``diagonal``."""
    name = "ops.matrix_set_diag"
    _tensor(x, name, "x")
    _tensor(diagonal, name, "diagonal")
    _min_rank(name, "x", x, 2)
    k = _static_int(name, "k", k)
    rows, cols = x.shape[-2:]
    n = min(rows - max(-k, 0), cols - max(k, 0))
    if diagonal.shape[-1] != n:
        raise ValueError(f"{name}: diagonal {k} of x {list(x.shape)} has {n} elements, got "
                         f"diagonal {list(diagonal.shape)}")
    sel = _diagonal_selector(n, k, rows, cols, x.dtype)
    placed = F.reshape(F.matmul(F.reshape(F.cast_like(diagonal, x), shape=(-1, n)),
                                sel.reshape(n, rows * cols)),
                       shape=tuple(diagonal.shape[:-1]) + (rows, cols))
    keep = (1 - sel.sum(axis=0)).astype(np.bool_)
    return F.select(keep, x, F.broadcast_to(placed, shape=tuple(x.shape)))


def matrix_diag_part(x, k, padding_value, align="RIGHT_LEFT"):
    """``ops.matrix_diag_part(x, k, padding_value, align='RIGHT_LEFT')``: diagonal ``k`` (one
    diagonal, an int or a 0-d Tensor) of each matrix of ``x``."""
    name = "ops.matrix_diag_part"
    _tensor(x, name, "x")
    _min_rank(name, "x", x, 2)
    k = _static_int(name, "k", k)
    rows, cols = x.shape[-2:]
    n = max(min(rows - max(-k, 0), cols - max(k, 0)), 0)
    sel = _diagonal_selector(n, k, rows, cols, x.dtype)
    flat = F.reshape(x, shape=(-1, rows * cols))
    out = F.matmul(flat, sel.reshape(n, rows * cols), transpose_b=True)
    return F.reshape(out, shape=tuple(x.shape[:-2]) + (n,))


def lu_unpack(LU_data, LU_pivots, unpack_data=True, unpack_pivots=True):  # noqa: N803
    """``ops.lu_unpack(LU_data, LU_pivots, unpack_data=True, unpack_pivots=True)``: ``(P, L, U)``
    with ``A = P L U`` from a packed LU factorization (L unit lower, U upper; P from LAPACK's
    1-based pivots)."""
    name = "ops.lu_unpack"
    _tensor(LU_data, name, "LU_data")
    _floats(name, "LU_data", LU_data, (float16, float32, float64))
    _min_rank(name, "LU_data", LU_data, 2)
    _tensor(LU_pivots, name, "LU_pivots")
    if not LU_pivots.dtype.is_int:
        raise TypeError(f"{name}: LU_pivots must be an integer tensor, got {LU_pivots.dtype}")
    m, n = LU_data.shape[-2:]
    k = min(m, n)
    dt = LU_data.dtype.np_dtype
    low = F.add(F.mul(F.getitem(LU_data, key=(Ellipsis, slice(None), slice(0, k))),
                      np.tril(np.ones((m, k), dt), -1)), np.eye(m, k, dtype=dt))
    up = F.mul(F.getitem(LU_data, key=(Ellipsis, slice(0, k), slice(None))),
               np.triu(np.ones((k, n), dt)))
    perm = mT(_pivot_matrix(LU_pivots, m, LU_data.dtype)) if unpack_pivots else \
        F.fill(dtype=LU_data.dtype, shape=(0,), value=0)
    return perm, low, up


LuUnpack = primitive("LuUnpack", lambda LU_data, LU_pivots, unpack_data=True, unpack_pivots=True:
                     lu_unpack(LU_data, LU_pivots, unpack_data, unpack_pivots),
                     init=("unpack_data", "unpack_pivots"))
