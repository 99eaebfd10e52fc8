"""Triangles, bands and diagonals with MindSpore 2.10's signatures: ``tril``/``triu``/
``matrix_band_part``, ``diag``/``diagflat``/``diag_embed``/``diagonal``/``DiagPart`` and
``FillDiagonal`` (``Tensor.fill_diagonal``).

Masks and index maps depend on shapes only, so they are constants: a triangle is a ``select``
with a constant mask (NaN and Inf outside it do not leak into the result or the gradient), a
diagonal is a ``take`` with constant indices, and a matrix built from a diagonal is a ``take``
from the values with a zero put in front (index 0 reads the zero). Everything works in graph mode
and differentiates through ``select``/``take``.

Example::

    >>> import graphcell as ms
    >>> from graphcell import ops
    >>> ops.diag(ms.Tensor([1, 2])).asnumpy().tolist()
    [[1, 0], [0, 2]]
"""
from __future__ import annotations

import math

import numpy as np

from graphcell.ops.function._array_utils import (check_dim, check_int, check_rank, check_tensor,
                                                 const, filled, scalar_of)
from graphcell.ops.primitive import primitive
from graphcell.tensor import Tensor
from graphcell_ir.ops import functional as F

__all__ = ["tril", "triu", "matrix_band_part", "diag", "diagflat", "diag_embed", "diagonal",
           "Tril", "Triu", "Diag", "DiagPart", "FillDiagonal"]


def _keep(x, mask: np.ndarray):
    """``x`` where ``mask`` (over the last dims) holds, zero elsewhere."""
    return F.select(const(mask), x, F.zeros_like(x))


def _band(x, lower: int | None, upper: int | None):
    """Keep ``-lower <= j - i <= upper`` of the last two dims (None: unbounded)."""
    m, n = x.shape[-2], x.shape[-1]
    i, j = np.arange(m)[:, None], np.arange(n)[None, :]
    mask = np.ones((m, n), bool)
    if lower is not None:
        mask &= i - j <= lower
    if upper is not None:
        mask &= j - i <= upper
    return x if mask.all() else _keep(x, mask)


def tril(input, diagonal=0):  # noqa: A002 - MindSpore's parameter name
    """``ops.tril(input, diagonal=0)``: the lower triangle of the last two dims (``diagonal`` > 0
    keeps more diagonals above the main one), zeros above."""
    check_tensor(input, "ops.tril")
    check_rank(input, 2, "ops.tril")
    return _band(input, None, check_int(diagonal, "ops.tril", "diagonal"))


def triu(input, diagonal=0):  # noqa: A002
    """``ops.triu(input, diagonal=0)``: the upper triangle of the last two dims, zeros below."""
    check_tensor(input, "ops.triu")
    check_rank(input, 2, "ops.triu")
    return _band(input, -check_int(diagonal, "ops.triu", "diagonal"), None)


def matrix_band_part(x, lower, upper):
    """``ops.matrix_band_part(x, lower, upper)``: the band of ``lower`` diagonals below and
    ``upper`` above the main one kept (a negative count keeps the whole triangle); ints or 0-d
    integer tensors (whose values are read)."""
    fn = "ops.matrix_band_part"
    check_tensor(x, fn, "x")
    check_rank(x, 2, fn, "x")
    lo, up = (_band_count(v, fn, name) for v, name in ((lower, "lower"), (upper, "upper")))
    return _band(x, None if lo < 0 else lo, None if up < 0 else up)


def _band_count(v, fn: str, name: str) -> int:
    if isinstance(v, Tensor) and not v.dtype.is_int:
        raise TypeError(f"{fn}: '{name}' must be an int or an integer tensor, but got {v.dtype}")
    return check_int(scalar_of(v, fn, name), fn, name)


def _from_diagonal(values, index_map: np.ndarray):
    """A tensor whose element ``p`` is ``values[..., index_map[p] - 1]`` along the last dim, or
    zero where ``index_map[p]`` is 0."""
    lead = tuple(values.shape[:-1])
    padded = F.concat(F.zeros_like(F.getitem(values, key=(Ellipsis, slice(0, 1)))), values,
                      axis=values.ndim - 1) if values.shape[-1] else \
        F.fill(dtype=values.dtype, shape=lead + (1,), value=0)
    return F.take(padded, const(index_map.astype(np.int64)), axis=values.ndim - 1)


def _diagonal_map(n: int, offset: int) -> np.ndarray:
    """The (n + |offset|)-square index map putting values 1..n on diagonal ``offset``."""
    size = n + abs(offset)
    out = np.zeros((size, size), np.int64)
    rows = np.arange(n) + max(-offset, 0)
    out[rows, rows + offset] = np.arange(1, n + 1)
    return out


def diag(input):  # noqa: A002
    """``ops.diag(input)``: a tensor of shape ``input.shape * 2`` with ``input`` on its diagonal
    (``out[i, j, i, j] = input[i, j]``) and zeros elsewhere."""
    check_tensor(input, "ops.diag")
    check_rank(input, 1, "ops.diag")
    n = math.prod(input.shape)
    flat = _from_diagonal(F.reshape(input, shape=(n,)), _diagonal_map(n, 0))
    return F.reshape(flat, shape=tuple(input.shape) * 2)


def _diag_part(input_x):
    """``ops.DiagPart()(x)``: the diagonal of a tensor of shape ``S + S``, of shape ``S``."""
    fn = "DiagPart"
    check_tensor(input_x, fn, "input_x")
    k = input_x.ndim // 2
    shape = tuple(input_x.shape)
    if input_x.ndim == 0 or input_x.ndim % 2 or shape[:k] != shape[k:]:
        raise ValueError(f"{fn}: 'input_x' must have a shape S + S, but got {list(shape)}")
    n = math.prod(shape[:k])
    flat = F.take(F.reshape(input_x, shape=(n * n,)), const(np.arange(n) * (n + 1)), axis=0)
    return F.reshape(flat, shape=shape[:k])


def diagflat(input, offset=0):  # noqa: A002
    """``ops.diagflat(input, offset=0)``: the flattened ``input`` on diagonal ``offset`` of a
    square matrix (above the main one for ``offset`` > 0)."""
    check_tensor(input, "ops.diagflat")
    offset = check_int(offset, "ops.diagflat", "offset")
    n = math.prod(input.shape)
    return _from_diagonal(F.reshape(input, shape=(n,)), _diagonal_map(n, offset))


def diag_embed(input, offset=0, dim1=-2, dim2=-1):  # noqa: A002
    """``ops.diag_embed(input, offset=0, dim1=-2, dim2=-1)``: the last dim of ``input`` on
    diagonal ``offset`` of matrices spanning dims ``dim1`` and ``dim2`` of the result (which has
    one dim more)."""
    fn = "ops.diag_embed"
    check_tensor(input, fn)
    offset = check_int(offset, fn, "offset")
    rank = input.ndim + 1
    d1, d2 = (check_dim(d, input.ndim, fn, name, extra=1)
              for d, name in ((dim1, "dim1"), (dim2, "dim2")))
    if d1 == d2:
        raise ValueError(f"{fn}: 'dim1' and 'dim2' must differ, but both are {d1}")
    values = input if input.ndim else F.reshape(input, shape=(1,))
    out = _from_diagonal(values, _diagonal_map(values.shape[-1], offset))   # (..., N, N)
    lead = [d for d in range(rank) if d not in (d1, d2)]
    perm = [0] * rank
    for src, dst in zip(range(rank - 2), lead):
        perm[dst] = src
    perm[d1], perm[d2] = rank - 2, rank - 1
    return out if perm == list(range(rank)) else F.transpose(out, perm=tuple(perm))


def diagonal(input, offset=0, dim1=0, dim2=1):  # noqa: A002
    """``ops.diagonal(input, offset=0, dim1=0, dim2=1)``: diagonal ``offset`` of the matrices
    spanning ``dim1`` and ``dim2``, as the last dim of the result (the other dims first)."""
    fn = "ops.diagonal"
    check_tensor(input, fn)
    offset = check_int(offset, fn, "offset")
    d1, d2 = (check_dim(d, input.ndim, fn, name) for d, name in ((dim1, "dim1"), (dim2, "dim2")))
    if input.ndim < 2:
        raise ValueError(f"{fn}: 'input' must have at least 2 dimensions, but got shape "
                         f"{list(input.shape)}")
    if d1 == d2:
        raise ValueError(f"{fn}: 'dim1' and 'dim2' must differ, but both are {d1}")
    rest = [d for d in range(input.ndim) if d not in (d1, d2)]
    perm = (*rest, d1, d2)
    moved = input if perm == tuple(range(input.ndim)) else F.transpose(input, perm=perm)
    a, b = input.shape[d1], input.shape[d2]
    length = max(0, min(a, b - offset) if offset >= 0 else min(a + offset, b))
    rows = np.arange(length) + max(-offset, 0)
    flat = F.reshape(moved, shape=tuple(moved.shape[:-2]) + (a * b,))
    return F.take(flat, const(rows * b + rows + offset), axis=flat.ndim - 1)


def _fill_diagonal(input_x, *, fill_value, wrap=False):
    """``ops.FillDiagonal(fill_value, wrap=False)(x)``: the main diagonal set to the float
    ``fill_value`` (converted to ``x``'s dtype; for more than 2 dims, all of one size); ``wrap`` restarts it below a tall matrix every
    ``columns + 1`` rows, as numpy's ``fill_diagonal``."""
    fn = "FillDiagonal"
    check_tensor(input_x, fn, "input_x")
    check_rank(input_x, 2, fn, "input_x")
    if input_x.ndim > 2 and len(set(input_x.shape)) > 1:
        raise ValueError(f"{fn}: a tensor of more than 2 dims must have one size in all dims, "
                         f"but got {list(input_x.shape)}")
    if not isinstance(fill_value, float):
        raise TypeError(f"{fn}: 'fill_value' must be a float, but got {fill_value!r}")
    mask = np.zeros(input_x.shape, bool)
    np.fill_diagonal(mask, True, wrap=bool(wrap))
    return F.select(const(mask), filled(input_x.shape, input_x.dtype, fill_value), input_x)


Tril = primitive("Tril", tril, init=("diagonal",))
Triu = primitive("Triu", triu, init=("diagonal",))
Diag = primitive("Diag", diag)
DiagPart = primitive("DiagPart", _diag_part)
FillDiagonal = primitive("FillDiagonal", _fill_diagonal, init=("fill_value", "wrap"))


def _fill_diagonal_method(self, fill_value, wrap=False):
    """``Tensor.fill_diagonal(fill_value, wrap=False)``: a new tensor (``self`` is unchanged)."""
    return _fill_diagonal(self, fill_value=fill_value, wrap=wrap)


def _diag_method(self):
    """``Tensor.diag()``."""
    return diag(self)


def _diagonal_method(self, offset=0, axis1=0, axis2=1):
    """``Tensor.diagonal(offset=0, axis1=0, axis2=1)``."""
    return diagonal(self, offset, axis1, axis2)


TENSOR_METHODS = {
    "tril": tril, "triu": triu, "diag": _diag_method, "diagflat": diagflat,
    "diagonal": _diagonal_method, "fill_diagonal": _fill_diagonal_method,
}
