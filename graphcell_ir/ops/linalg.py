"""Linear algebra primitives: inverse, determinants, Cholesky, triangular solves, QR, SVD,
Householder QR (``geqrf``) and least squares.

Each is one ``defop`` over stacks of matrices (the last two axes; leading axes are a batch).
References are numpy's ``linalg`` (float16 computes in float32 and is cast back, as numpy's
LAPACK has no half precision); gradients are written against ``F`` where MindSpore 2.10 has one
(``qr``, ``geqrf``, ``lstsq`` have none there and are ``NONDIFF`` here). Products, sums with
matrices, powers and the other MindSpore names are composites in ``graphcell.ops.function.
linalg_func``.
"""
from __future__ import annotations

import numpy as np

from graphcell_ir.errors import OpTypeError, ShapeError
from graphcell_ir.ir.types import TensorType, float16, float32, float64
from graphcell_ir.ops import functional as F
from graphcell_ir.ops.registry import NONDIFF, AttrKind, Kind, attr, defop
from graphcell_ir.ops.shape_rules import broadcast_shapes, require_tensor

OPAQUE = Kind.OPAQUE
ALL_FLOATS = (float16, float32, float64)
WIDE_FLOATS = (float32, float64)


# --- shared rules and helpers ------------------------------------------------------------------

def _matrices(x, what: str = "x", dtypes=ALL_FLOATS, square: bool = False) -> TensorType:
    """``x`` as a stack of matrices: rank >= 2, a float dtype of ``dtypes``, square if asked."""
    x = require_tensor(x, what)
    if x.dtype not in dtypes:
        names = ", ".join(str(d) for d in dtypes)
        raise OpTypeError(f"{what} must have dtype {names}, got {x}")
    if x.ndim < 2:
        raise ShapeError(f"{what} must have rank >= 2 (a matrix or a stack of matrices), got {x}")
    if square and x.shape[-1] != x.shape[-2]:
        raise ShapeError(f"{what} must be square matrices (last two sizes equal), got {x}")
    return x


def _in_float32(fn):
    """Run a numpy ``linalg`` function on float16 data in float32 and cast the results back."""
    def ref(x, *args, **kwargs):
        if x.dtype != np.float16:
            return fn(x, *args, **kwargs)
        out = fn(x.astype(np.float32), *args, **kwargs)
        if isinstance(out, tuple):
            return tuple(o.astype(np.float16) if o.dtype == np.float32 else o for o in out)
        return out.astype(np.float16)
    ref.__name__ = fn.__name__
    return ref


def mT(x):
    """``x`` with its last two axes swapped (the transpose of every matrix of a stack)."""
    n = len(x.shape)
    return F.transpose(x, perm=tuple(range(n - 2)) + (n - 1, n - 2))


def _as_matrix_scale(v):
    """A batch of scalars ``[..., ]`` as ``[..., 1, 1]``, to scale a stack of matrices."""
    return F.reshape(v, tuple(v.shape) + (1, 1))


def _tri_mask(n: int, dtype, lower: bool, diagonal: float = 1.0) -> np.ndarray:
    """An (n, n) mask of one triangle (strict part 1, diagonal ``diagonal``)."""
    strict = np.tril(np.ones((n, n)), -1) if lower else np.triu(np.ones((n, n)), 1)
    return (strict + diagonal * np.eye(n)).astype(dtype.np_dtype)


# --- inverse -------------------------------------------------------------------------------------

def _inverse_infer(x, *, adjoint=False):
    return _matrices(x, dtypes=WIDE_FLOATS, square=True)


def _inverse_ref(x, *, adjoint=False):
    out = np.linalg.inv(x)
    return np.ascontiguousarray(np.swapaxes(out, -1, -2)) if adjoint else out


def bprop_matrix_inverse(x, out, dout, *, adjoint):
    # d(A^-1) = -A^-1 dA A^-1, so A-bar = -A^-T G A^-T; with adjoint (out = A^-T) it is -O G^T O
    if adjoint:
        return (F.neg(F.matmul(F.matmul(out, dout, transpose_b=True), out)),)
    return (F.neg(F.matmul(F.matmul(out, dout, transpose_a=True), out, transpose_b=True)),)


matrix_inverse = defop(
    "matrix_inverse", ("x",), kind=OPAQUE, ms_name="MatrixInverse",
    attrs=[attr("adjoint", AttrKind.BOOL, False)], prim_init=("adjoint",),
    infer=_inverse_infer, ref=_inverse_ref, bprop=bprop_matrix_inverse,
    doc="The inverse of each square matrix of x (of its transpose with adjoint=True); float32 "
        "or float64, as MindSpore 2.10's CPU kernel.")


# --- determinants --------------------------------------------------------------------------------

def _det_infer(x):
    x = _matrices(x, square=True)
    return TensorType(x.dtype, x.shape[:-2])


def bprop_matrix_determinant(x, out, dout):
    # d det(A) = det(A) tr(A^-1 dA): A-bar = g det(A) A^-T
    scale = _as_matrix_scale(F.mul(dout, out))
    return (F.mul(scale, F.matrix_inverse(x, adjoint=True)),)


matrix_determinant = defop(
    "matrix_determinant", ("x",), kind=OPAQUE, ms_name="MatrixDeterminant",
    infer=_det_infer, ref=_in_float32(lambda x: np.asarray(np.linalg.det(x))),
    bprop=bprop_matrix_determinant, doc="The determinant of each square matrix of x.")


def _slogdet_infer(x):
    t = _det_infer(x)
    return t, t


def _slogdet_ref(x):
    sign, logabs = np.linalg.slogdet(x)
    return np.asarray(sign), np.asarray(logabs)


def bprop_log_matrix_determinant(x, out, dout):
    # d log|det A| = tr(A^-1 dA); the sign is piecewise constant
    dlog = dout[1]
    if dlog is None:
        return (None,)
    return (F.mul(_as_matrix_scale(dlog), F.matrix_inverse(x, adjoint=True)),)


log_matrix_determinant = defop(
    "log_matrix_determinant", ("x",), kind=OPAQUE, ms_name="LogMatrixDeterminant",
    infer=_slogdet_infer, ref=_in_float32(_slogdet_ref), bprop=bprop_log_matrix_determinant,
    doc="(sign, log|det|) of each square matrix of x: numpy's slogdet.")


# --- Cholesky ------------------------------------------------------------------------------------

def _cholesky_infer(x, *, upper=False):
    return _matrices(x, square=True)


def _cholesky_ref(x, *, upper=False):
    # Only the lower triangle is read (LAPACK's potrf with 'L'); upper=True transposes the factor.
    low = np.linalg.cholesky(x)
    return np.ascontiguousarray(np.swapaxes(low, -1, -2)) if upper else low


def bprop_cholesky(x, out, dout, *, upper):
    """Murray's rule for A = L L^T, read through the lower triangle of x as the reference does:
    S = L^-T Phi(L^T L-bar) L^-1 with Phi the lower triangle (diagonal halved), symmetrised; the
    gradient of x is S on the diagonal and 2 S below it (an entry below the diagonal stands for
    both of A's symmetric entries), 0 above."""
    low, g = (mT(out), mT(dout)) if upper else (out, dout)
    n = x.shape[-1]
    phi = F.mul(F.matmul(low, g, transpose_a=True), _tri_mask(n, x.dtype, lower=True, diagonal=0.5))
    inv = F.matrix_inverse(low)
    s = F.matmul(F.matmul(inv, phi, transpose_a=True), inv)
    sym = F.mul(F.add(s, mT(s)), 0.5)
    return (F.mul(sym, _tri_mask(n, x.dtype, lower=True, diagonal=0.5) * 2),)


cholesky = defop(
    "cholesky", ("x",), kind=OPAQUE, ms_name="Cholesky",
    attrs=[attr("upper", AttrKind.BOOL, False)], prim_init=("upper",),
    infer=_cholesky_infer, ref=_in_float32(_cholesky_ref), bprop=bprop_cholesky,
    doc="The Cholesky factor of each symmetric positive-definite matrix of x (lower, or upper "
        "with upper=True), read from x's lower triangle; a matrix that is not positive definite "
        "raises.")


# --- triangular solve ----------------------------------------------------------------------------

def _triangular_solve_infer(matrix, rhs, *, lower=True, adjoint=False):
    a = _matrices(matrix, "matrix", square=True)
    b = _matrices(rhs, "rhs")
    if a.dtype is not b.dtype:
        raise OpTypeError(f"matrix and rhs must have the same dtype, got {a} and {b}")
    if a.shape[-1] != b.shape[-2]:
        raise ShapeError(f"matrix {a} and rhs {b}: rhs must have {a.shape[-1]} rows")
    batch = broadcast_shapes(a.shape[:-2], b.shape[:-2])
    return TensorType(a.dtype, batch + b.shape[-2:])


def _triangle(a: np.ndarray, lower: bool) -> np.ndarray:
    return np.tril(a) if lower else np.triu(a)


def _triangular_solve_ref(matrix, rhs, *, lower=True, adjoint=False):
    a = _triangle(matrix, lower)
    if adjoint:
        a = np.swapaxes(a, -1, -2)
    batch = np.broadcast_shapes(a.shape[:-2], rhs.shape[:-2])
    a = np.broadcast_to(a, batch + a.shape[-2:])
    b = np.broadcast_to(rhs, batch + rhs.shape[-2:])
    return np.linalg.solve(a, b).astype(rhs.dtype, copy=False)


def bprop_matrix_triangular_solve(matrix, rhs, out, dout, *, lower, adjoint):
    # X = op(T)^-1 B: B-bar = op(T)^-T G, op(T)-bar = -B-bar X^T, restricted to T's triangle
    db = F.matrix_triangular_solve(matrix, dout, lower=lower, adjoint=not adjoint)
    if adjoint:
        da = F.neg(F.matmul(out, db, transpose_b=True))
    else:
        da = F.neg(F.matmul(db, out, transpose_b=True))
    n = matrix.shape[-1]
    da = F.mul(da, _tri_mask(n, matrix.dtype, lower=lower))
    return F.sum_to(da, tuple(matrix.shape)), F.sum_to(db, tuple(rhs.shape))


matrix_triangular_solve = defop(
    "matrix_triangular_solve", ("matrix", "rhs"), kind=OPAQUE, ms_name="MatrixTriangularSolve",
    attrs=[attr("lower", AttrKind.BOOL, True), attr("adjoint", AttrKind.BOOL, False)],
    prim_init=("lower", "adjoint"),
    infer=_triangular_solve_infer, ref=_in_float32(_triangular_solve_ref),
    bprop=bprop_matrix_triangular_solve,
    doc="X with T X = rhs (T^T X = rhs with adjoint=True), T the lower (or upper) triangle of "
        "each matrix; batch axes broadcast.")


# --- QR and Householder QR -----------------------------------------------------------------------

def _qr_infer(x, *, full_matrices=False):
    x = _matrices(x, dtypes=WIDE_FLOATS)
    m, n = x.shape[-2:]
    k = m if full_matrices else min(m, n)
    return TensorType(x.dtype, x.shape[:-2] + (m, k)), TensorType(x.dtype, x.shape[:-2] + (k, n))


def _qr_ref(x, *, full_matrices=False):
    q, r = np.linalg.qr(x, mode="complete" if full_matrices else "reduced")
    return q, r


qr = defop("qr", ("x",), kind=OPAQUE, ms_name="Qr",
           attrs=[attr("full_matrices", AttrKind.BOOL, False)], prim_init=("full_matrices",),
           infer=_qr_infer, ref=_qr_ref, bprop=NONDIFF,
           doc="(Q, R) of each matrix of x (numpy's qr, reduced or complete). No gradient: "
               "MindSpore 2.10 defines none.")


def _geqrf_infer(x):
    x = _matrices(x, dtypes=WIDE_FLOATS)
    return x, TensorType(x.dtype, x.shape[:-2] + (min(x.shape[-2:]),))


def _geqrf_ref(x):
    batch, (m, n) = x.shape[:-2], x.shape[-2:]
    flat = x.reshape((-1, m, n))
    ys, taus = [], []
    for a in flat:
        h, tau = np.linalg.qr(a, mode="raw")  # LAPACK geqrf; h is the factor transposed
        ys.append(h.T)
        taus.append(tau)
    y = np.asarray(ys, x.dtype).reshape(x.shape)
    tau = np.asarray(taus, x.dtype).reshape(batch + (min(m, n),))
    return y, tau


geqrf = defop("geqrf", ("x",), kind=OPAQUE, ms_name="Geqrf", infer=_geqrf_infer, ref=_geqrf_ref,
              bprop=NONDIFF,
              doc="LAPACK's geqrf: R on and above the diagonal, the Householder vectors below it, "
                  "and the reflectors' scales tau. No gradient (none in MindSpore 2.10).")


# --- singular value decomposition ---------------------------------------------------------------

def _svd_infer(x, *, full_matrices=False):
    x = _matrices(x, dtypes=WIDE_FLOATS)
    m, n = x.shape[-2:]
    k = min(m, n)
    b = x.shape[:-2]
    u = (m, m) if full_matrices else (m, k)
    v = (n, n) if full_matrices else (n, k)
    return (TensorType(x.dtype, b + (k,)), TensorType(x.dtype, b + u), TensorType(x.dtype, b + v))


def _svd_ref(x, *, full_matrices=False):
    u, s, vh = np.linalg.svd(x, full_matrices=full_matrices)
    return s, u, np.ascontiguousarray(np.swapaxes(vh, -1, -2))


def _narrow(t, k: int):
    """The first ``k`` columns of each matrix of ``t``."""
    if t.shape[-1] == k:
        return t
    return F.getitem(t, key=(Ellipsis, slice(0, k)))


def bprop_svd(x, out, dout, *, full_matrices):
    """The reduced SVD's rule (as PyTorch's ``svd_backward``, real case), A = U diag(S) V^T:

    A-bar = U [ (skew(U^T U-bar) / E) S + S (skew(V^T V-bar) / E) + diag(S-bar) ] V^T
            + (I - U U^T) U-bar S^-1 V^T  +  U S^-1 V-bar^T (I - V V^T),
    skew(M) = M - M^T, E_ij = S_j^2 - S_i^2 (1 on the diagonal). Full matrices: the extra columns
    of U or V carry no information and are dropped with their cotangents."""
    s, u, v = out
    gs, gu, gv = dout
    m, n = x.shape[-2:]
    k = min(m, n)
    u, v = _narrow(u, k), _narrow(v, k)
    gu = None if gu is None else _narrow(gu, k)
    gv = None if gv is None else _narrow(gv, k)
    row = F.expand_dims(s, axis=-2)          # [..., 1, k]: scales columns
    col = F.expand_dims(s, axis=-1)          # [..., k, 1]: scales rows
    s2 = F.mul(s, s)
    e = F.add(F.sub(F.expand_dims(s2, axis=-2), F.expand_dims(s2, axis=-1)),
              np.eye(k, dtype=x.dtype.np_dtype))
    inner = F.zeros_like(F.matmul(u, u, transpose_a=True))
    if gu is not None:
        utgu = F.matmul(u, gu, transpose_a=True)
        inner = F.add(inner, F.mul(F.div(F.sub(utgu, mT(utgu)), e), row))
    if gv is not None:
        vtgv = F.matmul(v, gv, transpose_a=True)
        inner = F.add(inner, F.mul(col, F.div(F.sub(vtgv, mT(vtgv)), e)))
    if gs is not None:
        inner = F.add(inner, F.mul(F.expand_dims(gs, axis=-1), np.eye(k, dtype=x.dtype.np_dtype)))
    ga = F.matmul(F.matmul(u, inner), v, transpose_b=True)
    if m > k and gu is not None:
        gu_sinv = F.div(gu, row)
        rest = F.sub(gu_sinv, F.matmul(u, F.matmul(u, gu_sinv, transpose_a=True)))
        ga = F.add(ga, F.matmul(rest, v, transpose_b=True))
    if n > k and gv is not None:
        sinv_gvt = F.div(mT(gv), col)
        rest = F.sub(sinv_gvt, F.matmul(F.matmul(sinv_gvt, v), v, transpose_b=True))
        ga = F.add(ga, F.matmul(u, rest))
    return (ga,)


svd = defop("svd", ("x",), kind=OPAQUE, ms_name="Svd",
            attrs=[attr("full_matrices", AttrKind.BOOL, False)],
            infer=_svd_infer, ref=_svd_ref, bprop=bprop_svd,
            doc="(s, u, v) of each matrix of x with x = u diag(s) v^T (MindSpore's order: v, not "
                "its transpose); singular values in descending order.")


# --- least squares -------------------------------------------------------------------------------

def _lstsq_infer(a, b):
    a = _matrices(a, "a", dtypes=WIDE_FLOATS)
    b = require_tensor(b, "b")
    if b.dtype is not a.dtype:
        raise OpTypeError(f"a and b must have the same dtype, got {a} and {b}")
    if a.ndim != 2 or b.ndim not in (1, 2):
        raise ShapeError(f"a must be a matrix and b a vector or a matrix, got {a} and {b}")
    if b.shape[0] != a.shape[0]:
        raise ShapeError(f"a {a} and b {b} must have the same number of rows")
    return TensorType(a.dtype, (a.shape[1],) + b.shape[1:])


def _lstsq_ref(a, b):
    return np.linalg.lstsq(a, b, rcond=None)[0].astype(a.dtype, copy=False)


lstsq = defop("lstsq", ("a", "b"), kind=OPAQUE, ms_name="", infer=_lstsq_infer, ref=_lstsq_ref,
              bprop=NONDIFF,
              doc="The least-squares solution X of a X = b (the minimum-norm one when a is rank "
                  "deficient). No gradient (none in MindSpore 2.10).")
