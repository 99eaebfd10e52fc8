"""MindSpore's matrix products and linear algebra (``mindspore.ops.function.linalg_func`` and the
products of ``math_func``) with MindSpore 2.10's signatures.

Products (``matmul``, ``bmm``, ``mm``, ``dot``, ``inner``, ``outer``, the ``add*`` family) are
composites of the ``matmul`` primitive; factorizations and solves call the primitives of
``graphcell_ir/ops/linalg.py``; ``ormqr``/``orgqr``, ``lu_solve``, ``cholesky_solve``,
``matrix_power`` and ``cross`` are composites of those. Each runs eagerly in
PyNative and is traced into IR in graph mode; gradients come from the parts.

Example::

    >>> import graphcell as ms
    >>> from graphcell import ops
    >>> a = ms.Tensor([[2.0, 0.0], [0.0, 4.0]])
    >>> ops.matmul(a, ops.inverse(a)).asnumpy().tolist()
    [[1.0, 0.0], [0.0, 1.0]]
"""
from __future__ import annotations

import math

import numpy as np

from graphcell.ops.function._utils import normalize_axis
from graphcell.ops.function.unary_func import mvlgamma
from graphcell.ops.primitive import primitive
from graphcell_ir.errors import GraphcellError
from graphcell.ops.function._checks import floats as _floats
from graphcell.ops.function._checks import min_rank as _min_rank
from graphcell.ops.function._checks import numeric as _numeric
from graphcell.ops.function._checks import rank as _rank
from graphcell.ops.function._checks import same_dtype as _same_dtype
from graphcell.ops.function._checks import square as _square
from graphcell.ops.function._checks import tensor as _tensor
from graphcell_ir.ir.types import float16, float32, float64, int32
from graphcell_ir.ops import functional as F
from graphcell_ir.ops.linalg import mT

__all__ = [
    "matmul", "bmm", "mm", "dot", "ger", "outer", "inner", "mv", "addmv", "addmm", "addbmm",
    "baddbmm", "addr", "inverse", "det", "matrix_determinant", "slogdet",
    "log_matrix_determinant", "logdet", "cholesky", "cholesky_inverse", "cholesky_solve", "qr",
    "svd", "geqrf", "ormqr", "orgqr", "lstsq", "lu_solve", "matrix_solve", "matrix_power",
    "cross", "adjoint", "trace", "kron", "tensor_dot", "batch_dot", "vecdot",
    "MatMul", "BatchMatMul", "Ger", "Svd", "CholeskyInverse", "CholeskySolve", "MatrixPower",
    "MatrixSolve", "Cross", "Lstsq", "LuSolve", "Ormqr", "Orgqr", "Trace",
]


# --- argument checks (shared with structured_func) ----------------------------------------------------

def _scaled(x, factor):
    """``factor * x`` for a Python number (nothing to do for 1)."""
    return x if isinstance(factor, (int, float)) and not isinstance(factor, bool) and factor == 1 \
        else F.mul(x, factor)


# --- matrix products ------------------------------------------------------------------------------

def matmul(input, other):  # noqa: A002 - MindSpore's parameter names
    """``ops.matmul(input, other)``: numpy's matmul — vectors are promoted to matrices, batch axes
    broadcast; both operands of one dtype, rank >= 1.

    >>> import graphcell as ms
    >>> matmul(ms.Tensor([[1.0, 2.0]]), ms.Tensor([[3.0], [4.0]])).asnumpy().tolist()
    [[11.0]]
    """
    name = "ops.matmul"
    _tensor(input, name, "input")
    _tensor(other, name, "other")
    _same_dtype(name, ("input", input), ("other", other))
    _numeric(name, "input", input)
    _min_rank(name, "input", input, 1)
    _min_rank(name, "other", other, 1)
    return F.matmul(input, other)


def _matmul_2d(x, y, transpose_a=False, transpose_b=False):
    """MindSpore's ``MatMul`` Primitive: two matrices (rank 2 each)."""
    name = "MatMul"
    _tensor(x, name, "x")
    _tensor(y, name, "y")
    _same_dtype(name, ("x", x), ("y", y))
    _numeric(name, "x", x)
    _rank(name, "x", x, (2,))
    _rank(name, "y", y, (2,))
    return F.matmul(x, y, transpose_a=bool(transpose_a), transpose_b=bool(transpose_b))


MatMul = primitive("MatMul", _matmul_2d, init=("transpose_a", "transpose_b"),
                   doc="MindSpore's ``MatMul(transpose_a=False, transpose_b=False)(x, y)``: the "
                       "product of two matrices (rank 2), either transposed first.")


def _batch_matmul(x, y, transpose_a=False, transpose_b=False, name="BatchMatMul"):
    """Stacks of matrices with equal batch axes (MindSpore 2.10's CPU kernel does not broadcast
    them); rank 2 is one matrix."""
    _tensor(x, name, "x")
    _tensor(y, name, "y")
    _same_dtype(name, ("x", x), ("y", y))
    _numeric(name, "x", x)
    _min_rank(name, "x", x, 2)
    _min_rank(name, "y", y, 2)
    if tuple(x.shape[:-2]) != tuple(y.shape[:-2]):
        raise ValueError(f"{name}: the batch axes of x {list(x.shape)} and y {list(y.shape)} "
                         "must be equal (no broadcasting on CPU)")
    return F.matmul(x, y, transpose_a=bool(transpose_a), transpose_b=bool(transpose_b))


BatchMatMul = primitive("BatchMatMul", _batch_matmul, init=("transpose_a", "transpose_b"),
                        doc="MindSpore's ``BatchMatMul(transpose_a=False, transpose_b=False)(x, "
                            "y)``: a matrix product per batch index (equal batch axes).")


def bmm(input_x, mat2):
    """``ops.bmm(input_x, mat2)``: batched matrix product; the batch axes must be equal."""
    return _batch_matmul(input_x, mat2, name="ops.bmm")


def mm(input, mat2):  # noqa: A002
    """``ops.mm(input, mat2)``: the product of two matrices (no broadcasting, no vectors)."""
    name = "ops.mm"
    _tensor(input, name, "input")
    _tensor(mat2, name, "mat2")
    _same_dtype(name, ("input", input), ("mat2", mat2))
    _numeric(name, "input", input)
    _rank(name, "input", input, (2,))
    _rank(name, "mat2", mat2, (2,))
    return F.matmul(input, mat2)


def dot(input, other):  # noqa: A002
    """``ops.dot(input, other)``: numpy's ``dot`` for rank >= 2 (the last axis of ``input``
    against the second-to-last of ``other``); float16 or float32, as MindSpore 2.10.

    The result's shape is ``input.shape[:-1] + other.shape[:-2] + other.shape[-1:]``.
    """
    name = "ops.dot"
    _tensor(input, name, "input")
    _tensor(other, name, "other")
    _floats(name, "input", input, (float16, float32))
    _same_dtype(name, ("input", input), ("other", other))
    _min_rank(name, "input", input, 2)
    _min_rank(name, "other", other, 2)
    k = input.shape[-1]
    if other.shape[-2] != k:
        raise ValueError(f"{name}: the last axis of input {list(input.shape)} must match the "
                         f"second-to-last of other {list(other.shape)}")
    if input.ndim == 2 and other.ndim == 2:
        return F.matmul(input, other)
    lead = tuple(other.shape[:-2])
    nd = other.ndim
    moved = F.transpose(other, perm=(nd - 2,) + tuple(range(nd - 2)) + (nd - 1,))  # k first
    rows = F.reshape(input, shape=(-1, k))
    cols = F.reshape(moved, shape=(k, -1))
    out = F.matmul(rows, cols)
    return F.reshape(out, shape=tuple(input.shape[:-1]) + lead + tuple(other.shape[-1:]))


def _outer(a, b):
    return F.mul(F.reshape(a, shape=(-1, 1)), F.reshape(b, shape=(1, -1)))


def ger(input, vec2):  # noqa: A002
    """``ops.ger(input, vec2)``: the outer product of two float vectors of one dtype."""
    name = "ops.ger"
    _tensor(input, name, "input")
    _tensor(vec2, name, "vec2")
    _floats(name, "input", input)
    _same_dtype(name, ("input", input), ("vec2", vec2))
    _rank(name, "input", input, (1,))
    _rank(name, "vec2", vec2, (1,))
    return _outer(input, vec2)


Ger = primitive("Ger", lambda x1, x2: ger(x1, x2),
                doc="MindSpore's ``Ger()(x1, x2)``: the outer product of two float vectors.")


def outer(input, vec2):  # noqa: A002
    """``ops.outer(input, vec2)``: ``input`` flattened against ``vec2`` flattened (dtypes
    promote)."""
    name = "ops.outer"
    _tensor(input, name, "input")
    _tensor(vec2, name, "vec2")
    return _outer(input, vec2)


def inner(input, other):  # noqa: A002
    """``ops.inner(input, other)``: sums over the last axis of both; a 0-d operand multiplies.

    The result's shape is ``input.shape[:-1] + other.shape[:-1]``.
    """
    name = "ops.inner"
    _tensor(input, name, "input")
    _tensor(other, name, "other")
    if input.ndim == 0 or other.ndim == 0:
        return F.mul(input, other)
    _same_dtype(name, ("input", input), ("other", other))
    k = input.shape[-1]
    if other.shape[-1] != k:
        raise ValueError(f"{name}: the last axes of input {list(input.shape)} and other "
                         f"{list(other.shape)} must have the same size")
    out = F.matmul(F.reshape(input, shape=(-1, k)), F.reshape(other, shape=(-1, k)),
                   transpose_b=True)
    return F.reshape(out, shape=tuple(input.shape[:-1]) + tuple(other.shape[:-1]))


def mv(mat, vec):
    """``ops.mv(mat, vec)``: a matrix times a vector."""
    name = "ops.mv"
    _tensor(mat, name, "mat")
    _tensor(vec, name, "vec")
    _same_dtype(name, ("mat", mat), ("vec", vec))
    _rank(name, "mat", mat, (2,))
    _rank(name, "vec", vec, (1,))
    return F.matmul(mat, vec)


def _plus_product(name, input, product, beta, alpha):  # noqa: A002
    """``beta * input + alpha * product`` (``input`` broadcast to the product's shape)."""
    _tensor(input, name, "input")
    return F.add(_scaled(input, beta), _scaled(product, alpha))


def addmv(input, mat, vec, *, beta=1, alpha=1):  # noqa: A002
    """``ops.addmv(input, mat, vec, *, beta=1, alpha=1)``: ``beta * input + alpha * (mat @ vec)``."""
    name = "ops.addmv"
    _tensor(mat, name, "mat")
    _tensor(vec, name, "vec")
    _rank(name, "mat", mat, (2,))
    _rank(name, "vec", vec, (1,))
    _same_dtype(name, ("mat", mat), ("vec", vec))
    return _plus_product(name, input, F.matmul(mat, vec), beta, alpha)


def addmm(input, mat1, mat2, *, beta=1, alpha=1):  # noqa: A002
    """``ops.addmm(input, mat1, mat2, *, beta=1, alpha=1)``: ``beta * input + alpha * (mat1 @
    mat2)``."""
    return _plus_product("ops.addmm", input, mm(mat1, mat2), beta, alpha)


def baddbmm(input, batch1, batch2, beta=1, alpha=1):  # noqa: A002
    """``ops.baddbmm(input, batch1, batch2, beta=1, alpha=1)``: ``beta * input + alpha *
    bmm(batch1, batch2)``."""
    return _plus_product("ops.baddbmm", input, _batch_matmul(batch1, batch2, name="ops.baddbmm"),
                         beta, alpha)


def addbmm(input, batch1, batch2, *, beta=1, alpha=1):  # noqa: A002
    """``ops.addbmm(input, batch1, batch2, *, beta=1, alpha=1)``: ``beta * input + alpha *`` the
    sum over the batch of ``batch1[i] @ batch2[i]``."""
    name = "ops.addbmm"
    _tensor(batch1, name, "batch1")
    _tensor(batch2, name, "batch2")
    _rank(name, "batch1", batch1, (3,))
    _rank(name, "batch2", batch2, (3,))
    product = F.reduce_sum(_batch_matmul(batch1, batch2, name=name), axis=(0,), keep_dims=False)
    return _plus_product(name, input, product, beta, alpha)


def addr(x, vec1, vec2, *, beta=1, alpha=1):
    """``ops.addr(x, vec1, vec2, *, beta=1, alpha=1)``: ``beta * x + alpha * outer(vec1, vec2)``."""
    name = "ops.addr"
    _tensor(vec1, name, "vec1")
    _tensor(vec2, name, "vec2")
    _rank(name, "vec1", vec1, (1,))
    _rank(name, "vec2", vec2, (1,))
    _tensor(x, name, "x")
    return F.add(_scaled(x, beta), _scaled(_outer(vec1, vec2), alpha))


# --- inverses and determinants ------------------------------------------------------------------

def _square_float(name, x, what="input", dtypes=(float32, float64)):
    _tensor(x, name, what)
    _floats(name, what, x, dtypes)
    _square(name, what, x)


def inverse(input):  # noqa: A002
    """``ops.inverse(input)``: the inverse of each square matrix (float32 or float64)."""
    _square_float("ops.inverse", input)
    return F.matrix_inverse(input)


def det(input):  # noqa: A002
    """``ops.det(input)``: the determinant of each square matrix."""
    _square_float("ops.det", input, dtypes=(float16, float32, float64))
    return F.matrix_determinant(input)


def matrix_determinant(input):  # noqa: A002
    """``ops.matrix_determinant(input)``: the determinant of each square matrix."""
    _square_float("ops.matrix_determinant", input, dtypes=(float16, float32, float64))
    return F.matrix_determinant(input)


def slogdet(input):  # noqa: A002
    """``ops.slogdet(input)``: ``(sign, log|det|)`` of each square matrix."""
    _square_float("ops.slogdet", input, dtypes=(float16, float32, float64))
    return F.log_matrix_determinant(input)


def log_matrix_determinant(input):  # noqa: A002
    """``ops.log_matrix_determinant(input)``: ``(sign, log|det|)`` of each square matrix."""
    _square_float("ops.log_matrix_determinant", input, dtypes=(float16, float32, float64))
    return F.log_matrix_determinant(input)


def logdet(input):  # noqa: A002
    """``ops.logdet(input)``: ``log(det(input))`` — NaN where the determinant is negative."""
    _square_float("ops.logdet", input, dtypes=(float16, float32, float64))
    sign, logabs = F.log_matrix_determinant(input)
    return F.add(logabs, F.log(sign))


# --- Cholesky -------------------------------------------------------------------------------------

def cholesky(input_x, upper=False):
    """``ops.cholesky(input_x, upper=False)``: the lower (or upper) Cholesky factor of each
    symmetric positive-definite matrix."""
    _square_float("ops.cholesky", input_x, "input_x", (float16, float32, float64))
    return F.cholesky(input_x, upper=bool(upper))


def _eye_like(x):
    """The identity matrix of ``x``'s last axis, in its dtype."""
    n = x.shape[-1]
    return np.eye(n, dtype=x.dtype.np_dtype)


def cholesky_inverse(input_x, upper=False):
    """``ops.cholesky_inverse(input_x, upper=False)``: the inverse of ``A = X X^T`` (``X^T X`` with
    ``upper=True``) from its Cholesky factor X. As MindSpore 2.10 computes it, the whole of X is
    used (a triangular factor has zeros in the other triangle anyway)."""
    name = "ops.cholesky_inverse"
    _square_float(name, input_x, "input_x")
    _rank(name, "input_x", input_x, (2,))
    a = F.matmul(input_x, input_x, transpose_a=True) if upper else \
        F.matmul(input_x, input_x, transpose_b=True)
    return F.matrix_inverse(a)


def cholesky_solve(input, input2, upper=False):  # noqa: A002
    """``ops.cholesky_solve(input, input2, upper=False)``: X with ``A X = input``, where ``input2``
    is A's Cholesky factor (lower, or upper with ``upper=True``)."""
    name = "ops.cholesky_solve"
    _tensor(input, name, "input")
    _square_float(name, input2, "input2")
    _same_dtype(name, ("input", input), ("input2", input2))
    _min_rank(name, "input", input, 2)
    if upper:  # A = U^T U
        y = F.matrix_triangular_solve(input2, input, lower=False, adjoint=True)
        return F.matrix_triangular_solve(input2, y, lower=False)
    y = F.matrix_triangular_solve(input2, input, lower=True)
    return F.matrix_triangular_solve(input2, y, lower=True, adjoint=True)


CholeskyInverse = primitive("CholeskyInverse", cholesky_inverse, init=("upper",))
CholeskySolve = primitive("CholeskySolve", lambda x1, x2, upper=False: cholesky_solve(x1, x2, upper),
                          init=("upper",))


# --- QR, SVD, Householder products ------------------------------------------------------------

def qr(input, mode="reduced"):  # noqa: A002
    """``ops.qr(input, mode='reduced')``: ``(Q, R)``; ``mode='complete'`` gives a square Q."""
    name = "ops.qr"
    if mode not in ("reduced", "complete"):
        raise TypeError(f"{name}: mode must be 'reduced' or 'complete', got {mode!r}")
    _tensor(input, name, "input")
    _floats(name, "input", input, (float32, float64))
    _min_rank(name, "input", input, 2)
    return F.qr(input, full_matrices=mode == "complete")


def svd(input, full_matrices=False, compute_uv=True):  # noqa: A002
    """``ops.svd(input, full_matrices=False, compute_uv=True)``: ``(s, u, v)`` with ``input = u
    diag(s) v^T`` (note: v, not its transpose), or ``s`` alone with ``compute_uv=False``.

    Singular vectors are unique only up to sign; graphcell's are numpy's (LAPACK's).
    """
    name = "ops.svd"
    _tensor(input, name, "input")
    _floats(name, "input", input, (float32, float64))
    _min_rank(name, "input", input, 2)
    s, u, v = F.svd(input, full_matrices=bool(full_matrices))
    return (s, u, v) if compute_uv else s


Svd = primitive("Svd", lambda input, full_matrices=False, compute_uv=True: _svd_prim(
    input, full_matrices, compute_uv), init=("full_matrices", "compute_uv"),
    doc="MindSpore's ``Svd(full_matrices=False, compute_uv=True)(input)``: ``(s, u, v)``.")


def _svd_prim(input, full_matrices, compute_uv):  # noqa: A002
    s, u, v = svd(input, full_matrices, True)
    if not compute_uv:  # the Primitive keeps three outputs; u and v are zeros then
        u, v = F.zeros_like(u), F.zeros_like(v)
    return s, u, v


def geqrf(input):  # noqa: A002
    """``ops.geqrf(input)``: LAPACK's Householder QR, ``(y, tau)``: R on and above the
    diagonal of y, the Householder vectors below it, their scales in tau."""
    name = "ops.geqrf"
    _tensor(input, name, "input")
    _floats(name, "input", input, (float32, float64))
    _min_rank(name, "input", input, 2)
    return F.geqrf(input)


def _householder_q(name: str, input, tau):  # noqa: A002
    """The m x m orthogonal matrix ``H_1 ... H_k`` of the reflectors ``H_i = I - tau_i v_i
    v_i^T`` that geqrf stores: ``v_i`` is 1 at row i, ``input[i+1:, i]`` below, 0 above."""
    _tensor(input, name, "input")
    _tensor(tau, name, "tau")
    _floats(name, "input", input, (float32, float64))
    _same_dtype(name, ("input", input), ("tau", tau))
    _min_rank(name, "input", input, 2)
    m, n = input.shape[-2:]
    batch = tuple(input.shape[:-2])
    k = tau.shape[-1] if tau.ndim else 0
    if tau.ndim == 0 or tuple(tau.shape[:-1]) != batch or k > min(m, n):
        raise ValueError(f"{name}: tau must have shape {list(batch) + ['k']} with k <= "
                         f"{min(m, n)}, got {list(tau.shape)}")
    dt = input.dtype.np_dtype
    vs = F.add(F.mul(input, np.tril(np.ones((m, n), dt), -1)), np.eye(m, n, dtype=dt))
    q = F.broadcast_to(np.eye(m, dtype=dt), shape=batch + (m, m))
    for i in range(k):
        v = F.getitem(vs, key=(Ellipsis, slice(None), slice(i, i + 1)))        # [..., m, 1]
        t = F.reshape(F.getitem(tau, key=(Ellipsis, slice(i, i + 1))), shape=batch + (1, 1))
        # q H_i = q - tau_i (q v_i) v_i^T
        q = F.sub(q, F.mul(t, F.matmul(F.matmul(q, v), v, transpose_b=True)))
    return q


def ormqr(input, tau, other, left=True, transpose=False):  # noqa: A002
    """``ops.ormqr(input, tau, other, left=True, transpose=False)``: ``other`` multiplied by the
    Q of a geqrf result — ``Q @ other`` (``Q^T`` with ``transpose``; on the right with
    ``left=False``). MindSpore 2.10's CPU build has no kernel for it; graphcell computes it."""
    name = "ops.ormqr"
    q = _householder_q(name, input, tau)
    _tensor(other, name, "other")
    _same_dtype(name, ("input", input), ("other", other))
    _min_rank(name, "other", other, 2)
    m = input.shape[-2]
    if (other.shape[-2] if left else other.shape[-1]) != m:
        side = "rows" if left else "columns"
        raise ValueError(f"{name}: other {list(other.shape)} must have {m} {side}")
    if left:
        return F.matmul(q, other, transpose_a=bool(transpose))
    return F.matmul(other, q, transpose_b=bool(transpose))


def orgqr(input, input2):  # noqa: A002
    """``ops.orgqr(input, input2)``: the first n columns of the Q of a geqrf result (``input``
    m x n with m >= n, ``input2`` the reflectors' tau)."""
    name = "ops.orgqr"
    q = _householder_q(name, input, input2)
    m, n = input.shape[-2:]
    if n > m:
        raise ValueError(f"{name}: input must have at least as many rows as columns, got "
                         f"{list(input.shape)}")
    return q if n == m else F.getitem(q, key=(Ellipsis, slice(None), slice(0, n)))


Ormqr = primitive("Ormqr", lambda x, tau, other, left=True, transpose=False: ormqr(
    x, tau, other, left, transpose), init=("left", "transpose"))
Orgqr = primitive("Orgqr", lambda x, tau: orgqr(x, tau))


# --- solves -----------------------------------------------------------------------------------

def lstsq(input, A):  # noqa: A002, N803 - MindSpore's parameter names
    """``ops.lstsq(input, A)``: X minimising ``||input @ X - A||`` (the minimum-norm one when
    ``input`` is rank deficient); ``input`` is m x n, ``A`` m x k or a vector of m."""
    name = "ops.lstsq"
    _tensor(input, name, "input")
    _tensor(A, name, "A")
    _floats(name, "input", input, (float32, float64))
    _same_dtype(name, ("input", input), ("A", A))
    _rank(name, "input", input, (2,))
    _rank(name, "A", A, (1, 2))
    if A.shape[0] != input.shape[0]:
        raise ValueError(f"{name}: input {list(input.shape)} and A {list(A.shape)} must have "
                         "the same number of rows")
    return F.lstsq(input, A)


Lstsq = primitive("Lstsq", lambda x, a, fast=True, l2_regularizer=0.0: _lstsq_prim(
    x, a, fast, l2_regularizer), init=("fast", "l2_regularizer"))


def _lstsq_prim(x, a, fast, l2_regularizer):
    if l2_regularizer:
        raise ValueError("Lstsq: l2_regularizer other than 0.0 is not supported")
    return lstsq(x, a)


def matrix_solve(matrix, rhs, adjoint=False):
    """``ops.matrix_solve(matrix, rhs, adjoint=False)``: X with ``matrix @ X = rhs`` (the
    transposed matrix with ``adjoint``)."""
    name = "ops.matrix_solve"
    _square_float(name, matrix, "matrix")
    _tensor(rhs, name, "rhs")
    _same_dtype(name, ("matrix", matrix), ("rhs", rhs))
    _min_rank(name, "rhs", rhs, 2)
    return F.matmul(F.matrix_inverse(matrix, adjoint=bool(adjoint)), rhs)


MatrixSolve = primitive("MatrixSolve", lambda matrix, rhs, adjoint=False: matrix_solve(
    matrix, rhs, adjoint), init=("adjoint",))


def _pivot_matrix(pivots, n: int, dtype):
    """The permutation P (as a matrix) with ``P @ A = L U`` for LAPACK's 1-based row swaps
    ``pivots``: one exchange matrix per swap, built from one-hot rows, so the pivots may be
    values of the graph."""
    eye = np.eye(n, dtype=dtype.np_dtype)
    p = None
    for i in range(pivots.shape[-1]):
        j = F.sub(F.getitem(pivots, key=(Ellipsis, i)), 1)                            # [...]
        ej = F.one_hot(j, depth=n, on_value=1, off_value=0, axis=-1, dtype=dtype)     # [..., n]
        col_j, row_j = F.expand_dims(ej, axis=-1), F.expand_dims(ej, axis=-2)
        col_i, row_i = eye[:, i:i + 1], eye[i:i + 1, :]
        # rows i and j exchanged: I - e_i e_i^T - e_j e_j^T + e_i e_j^T + e_j e_i^T
        swap = F.add(F.sub(eye - col_i * row_i, F.mul(col_j, row_j)),
                     F.add(F.mul(col_i, row_j), F.mul(col_j, row_i)))
        p = swap if p is None else F.matmul(swap, p)
    return p


def lu_solve(b, LU_data, LU_pivots):  # noqa: N803 - MindSpore's parameter names
    """``ops.lu_solve(b, LU_data, LU_pivots)``: X with ``A X = b`` from A's LU factorization
    (``LU_data``: unit-lower L below the diagonal and U on and above it; ``LU_pivots``: LAPACK's
    1-based int32 row swaps)."""
    name = "ops.lu_solve"
    _tensor(b, name, "b")
    _square_float(name, LU_data, "LU_data")
    _tensor(LU_pivots, name, "LU_pivots")
    _same_dtype(name, ("b", b), ("LU_data", LU_data))
    if LU_pivots.dtype != int32:
        raise TypeError(f"{name}: LU_pivots must be int32, got {LU_pivots.dtype}")
    n = LU_data.shape[-1]
    if tuple(LU_pivots.shape) != tuple(LU_data.shape[:-1]):
        raise ValueError(f"{name}: LU_pivots must have shape {list(LU_data.shape[:-1])}, got "
                         f"{list(LU_pivots.shape)}")
    _min_rank(name, "b", b, 2)
    pb = F.matmul(_pivot_matrix(LU_pivots, n, b.dtype), b)
    dt = LU_data.dtype.np_dtype
    low = F.add(F.mul(LU_data, np.tril(np.ones((n, n), dt), -1)), np.eye(n, dtype=dt))
    y = F.matrix_triangular_solve(low, pb, lower=True)
    return F.matrix_triangular_solve(LU_data, y, lower=False)


LuSolve = primitive("LuSolve", lambda x, lu_data, lu_pivots: lu_solve(x, lu_data, lu_pivots))


# --- powers, cross products, traces ------------------------------------------------------------

def matrix_power(input, n):  # noqa: A002
    """``ops.matrix_power(input, n)``: ``input`` multiplied by itself ``n`` times (an int; 0 gives
    identities, a negative n powers the inverse, for float matrices only)."""
    name = "ops.matrix_power"
    _tensor(input, name, "input")
    if not isinstance(n, (int, np.integer)) or isinstance(n, bool):
        raise TypeError(f"{name}: n must be an int, got {type(n).__name__}")
    _square(name, "input", input)
    _numeric(name, "input", input)
    n = int(n)
    if n < 0:
        if not input.dtype.is_float:
            raise ValueError(f"{name}: integer matrices have no negative powers (n = {n})")
        input, n = F.matrix_inverse(input), -n
    if n == 0:
        eye = np.eye(input.shape[-1], dtype=input.dtype.np_dtype)
        return F.broadcast_to(eye, shape=tuple(input.shape))
    result, base = None, input
    while n:  # binary powering: ceil(log2 n) squarings
        if n & 1:
            result = base if result is None else F.matmul(result, base)
        n >>= 1
        if n:
            base = F.matmul(base, base)
    return result


MatrixPower = primitive("MatrixPower", lambda x, n=1: matrix_power(x, n), init=("n",))


def cross(input, other, dim=None):  # noqa: A002
    """``ops.cross(input, other, dim=None)``: the cross product along ``dim`` (size 3; None takes
    the first axis of size 3). Same shapes and dtype; no bool."""
    name = "ops.cross"
    _tensor(input, name, "input")
    _tensor(other, name, "other")
    _same_dtype(name, ("input", input), ("other", other))
    _numeric(name, "input", input)
    if tuple(input.shape) != tuple(other.shape):
        raise ValueError(f"{name}: input {list(input.shape)} and other {list(other.shape)} must "
                         "have the same shape")
    if dim is None:
        sizes = [i for i, s in enumerate(input.shape) if s == 3]
        if not sizes:
            raise ValueError(f"{name}: input {list(input.shape)} has no axis of size 3")
        dim = sizes[0]
    dim = normalize_axis(dim, input.ndim, "dim")
    if input.shape[dim] != 3:
        raise ValueError(f"{name}: axis {dim} of input {list(input.shape)} must have size 3")

    def part(x, i):
        return F.getitem(x, key=(slice(None),) * dim + (slice(i, i + 1),))
    a = [part(input, i) for i in range(3)]
    b = [part(other, i) for i in range(3)]
    c = [F.sub(F.mul(a[1], b[2]), F.mul(a[2], b[1])),
         F.sub(F.mul(a[2], b[0]), F.mul(a[0], b[2])),
         F.sub(F.mul(a[0], b[1]), F.mul(a[1], b[0]))]
    return F.concat(*c, axis=dim)


Cross = primitive("Cross", lambda x1, x2, dim=-65530: cross(x1, x2, None if dim == -65530 else dim),
                  init=("dim",))


def adjoint(x):
    """``ops.adjoint(x)``: the (conjugate) transpose of each matrix of ``x``."""
    _tensor(x, "ops.adjoint", "x")
    _min_rank("ops.adjoint", "x", x, 2)
    return mT(x)


def trace(input):  # noqa: A002
    """``ops.trace(input)``: the sum of a matrix's diagonal (rank 2), in the input's dtype."""
    name = "ops.trace"
    _tensor(input, name, "input")
    _rank(name, "input", input, (2,))
    m, n = input.shape
    diag = F.select(np.eye(m, n, dtype=np.bool_), input, F.zeros_like(input))
    out = F.reduce_sum(diag, axis=None, keep_dims=False)
    return out if out.dtype == input.dtype else F.cast(out, dtype=input.dtype)


Trace = primitive("Trace", lambda x: trace(x))


def kron(input, other):  # noqa: A002
    """``ops.kron(input, other)``: the Kronecker product (ranks aligned by leading ones)."""
    name = "ops.kron"
    _tensor(input, name, "input")
    _tensor(other, name, "other")
    nd = max(input.ndim, other.ndim)
    a = F.reshape(input, shape=(1,) * (nd - input.ndim) + tuple(input.shape))
    b = F.reshape(other, shape=(1,) * (nd - other.ndim) + tuple(other.shape))
    # interleave: a[i0, 1, i1, 1, ...] * b[1, j0, 1, j1, ...]
    a2 = F.reshape(a, shape=tuple(s for d in a.shape for s in (d, 1)))
    b2 = F.reshape(b, shape=tuple(s for d in b.shape for s in (1, d)))
    out = F.mul(a2, b2)
    return F.reshape(out, shape=tuple(x * y for x, y in zip(a.shape, b.shape)))


def tensor_dot(x1, x2, axes):
    """``ops.tensor_dot(x1, x2, axes)``: sums the products over ``axes`` (an int n — the last n
    axes of x1 with the first n of x2 — or two sequences of axes)."""
    name = "ops.tensor_dot"
    _tensor(x1, name, "x1")
    _tensor(x2, name, "x2")
    _same_dtype(name, ("x1", x1), ("x2", x2))
    if isinstance(axes, (int, np.integer)) and not isinstance(axes, bool):
        ax1 = tuple(range(x1.ndim - int(axes), x1.ndim))
        ax2 = tuple(range(int(axes)))
    else:
        first, second = axes
        ax1 = (first,) if isinstance(first, int) else tuple(first)
        ax2 = (second,) if isinstance(second, int) else tuple(second)
    ax1 = tuple(normalize_axis(a, x1.ndim) for a in ax1)
    ax2 = tuple(normalize_axis(a, x2.ndim) for a in ax2)
    if len(ax1) != len(ax2) or any(x1.shape[a] != x2.shape[b] for a, b in zip(ax1, ax2)):
        raise ValueError(f"{name}: axes {ax1} of x1 {list(x1.shape)} and {ax2} of x2 "
                         f"{list(x2.shape)} must have the same sizes")
    free1 = tuple(a for a in range(x1.ndim) if a not in ax1)
    free2 = tuple(a for a in range(x2.ndim) if a not in ax2)
    k = int(np.prod([x1.shape[a] for a in ax1], dtype=np.int64))
    a = F.reshape(F.transpose(x1, perm=free1 + ax1), shape=(-1, k))
    b = F.reshape(F.transpose(x2, perm=ax2 + free2), shape=(k, -1))
    out = F.matmul(a, b)
    return F.reshape(out, shape=tuple(x1.shape[i] for i in free1) + tuple(x2.shape[i] for i in free2))


def batch_dot(x1, x2, axes=None):
    """``ops.batch_dot(x1, x2, axes=None)``: ``tensor_dot`` per index of the first (batch) axis;
    ``axes`` defaults to (last axis of x1, second-to-last of x2, or last for a 2-D x2)."""
    name = "ops.batch_dot"
    _tensor(x1, name, "x1")
    _tensor(x2, name, "x2")
    _same_dtype(name, ("x1", x1), ("x2", x2))
    _min_rank(name, "x1", x1, 2)
    _min_rank(name, "x2", x2, 2)
    if x1.shape[0] != x2.shape[0]:
        raise ValueError(f"{name}: x1 {list(x1.shape)} and x2 {list(x2.shape)} must have the "
                         "same batch size")
    if axes is None:
        axes = (x1.ndim - 1, x2.ndim - 1 if x2.ndim == 2 else x2.ndim - 2)
    elif isinstance(axes, (int, np.integer)):
        axes = (int(axes), int(axes))
    a1, a2 = (normalize_axis(a, nd) for a, nd in zip(axes, (x1.ndim, x2.ndim)))
    if 0 in (a1, a2):
        raise ValueError(f"{name}: axes cannot contain the batch axis 0, got {axes}")
    if x1.shape[a1] != x2.shape[a2]:
        raise ValueError(f"{name}: axis {a1} of x1 {list(x1.shape)} and axis {a2} of x2 "
                         f"{list(x2.shape)} must have the same size")
    free1 = tuple(a for a in range(1, x1.ndim) if a != a1)
    free2 = tuple(a for a in range(1, x2.ndim) if a != a2)
    bsz, k = x1.shape[0], x1.shape[a1]
    a = F.reshape(F.transpose(x1, perm=(0,) + free1 + (a1,)), shape=(bsz, -1, k))
    b = F.reshape(F.transpose(x2, perm=(0, a2) + free2), shape=(bsz, k, -1))
    out = F.matmul(a, b)
    shape = (bsz,) + tuple(x1.shape[i] for i in free1) + tuple(x2.shape[i] for i in free2)
    return F.reshape(out, shape=shape if len(shape) > 1 else (bsz, 1))


def vecdot(x, y, *, axis=-1):
    """``ops.vecdot(x, y, *, axis=-1)``: the dot products of vectors along ``axis`` (broadcast)."""
    name = "ops.vecdot"
    _tensor(x, name, "x")
    _tensor(y, name, "y")
    return F.reduce_sum(F.mul(x, y), axis=(int(axis),), keep_dims=False)


# --- Tensor methods ------------------------------------------------------------------------------

def _qr_method(self, some=True):
    """``Tensor.qr(some=True)``: ``(Q, R)``, reduced unless ``some=False``."""
    return qr(self, "reduced" if some else "complete")


def _triangular_solve_method(self, A, upper=True, transpose=False, unitriangular=False):  # noqa: N803
    """``Tensor.triangular_solve(A, upper=True, transpose=False, unitriangular=False)``: ``(X,
    A)`` with ``A X = self`` for triangular A (mint's ``triangular_solve``)."""
    name = "Tensor.triangular_solve"
    _square_float(name, A, "A")
    _tensor(self, name, "self")
    _same_dtype(name, ("self", self), ("A", A))
    a = A
    if unitriangular:
        n = A.shape[-1]
        dt = A.dtype.np_dtype
        keep = np.triu(np.ones((n, n), dt), 1) if upper else np.tril(np.ones((n, n), dt), -1)
        a = F.add(F.mul(A, keep), np.eye(n, dtype=dt))
    return F.matrix_triangular_solve(a, self, lower=not upper, adjoint=bool(transpose)), A


def _dot_method(self, other):
    """``Tensor.dot(other)``: as ``ops.dot`` on the CPU (MindSpore 2.10's 1-D form is
    Ascend-only)."""
    return dot(self, other)


TENSOR_METHODS = {
    "matmul": matmul, "dot": _dot_method, "inverse": inverse, "bmm": bmm, "inner": inner,
    "mm": mm, "outer": outer, "ger": ger, "cholesky": cholesky, "qr": _qr_method,
    "addmv": addmv, "addmm": addmm, "baddbmm": baddbmm, "addbmm": addbmm, "addr": addr,
    "det": det, "matrix_determinant": matrix_determinant, "slogdet": slogdet,
    "log_matrix_determinant": log_matrix_determinant, "logdet": logdet,
    "cholesky_inverse": cholesky_inverse, "cholesky_solve": cholesky_solve, "geqrf": geqrf,
    "matrix_power": matrix_power, "svd": svd, "cross": cross, "lstsq": lstsq,
    "lu_solve": lu_solve, "mvlgamma": mvlgamma, "ormqr": ormqr, "orgqr": orgqr,
    "adjoint": adjoint, "triangular_solve": _triangular_solve_method,
}


def _addmm_inplace(self, mat1, mat2, *, beta=1, alpha=1):
    """``Tensor.addmm_(mat1, mat2, *, beta=1, alpha=1)``: self = beta * self + alpha * mat1 @
    mat2, in place."""
    return F.assign(self, F.cast_like(addmm(self, mat1, mat2, beta=beta, alpha=alpha), self))


TENSOR_METHODS["addmm_"] = _addmm_inplace
