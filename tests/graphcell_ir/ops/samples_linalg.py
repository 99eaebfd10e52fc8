"""Sample rows of the linear algebra primitives (``graphcell_ir/ops/linalg.py``).

Matrices are drawn well conditioned: square ones diagonally dominant, positive-definite ones as
``M M^T + n I``, and matrices for the SVD with well separated singular values, so float64 finite
differences are stable.
"""
from __future__ import annotations

import numpy as np

from graphcell_ir.errors import OpTypeError
from samples import Bad, Sample, T

WIDE = ("float32", "float64")


def _batch(g):
    return g.pick([(), (), (2,)])


def _invertible(g, dt, n=None):
    n = n or g.int(1, 3)
    m = g.array(_batch(g) + (n, n), "float64", -1.0, 1.0)
    return (m + (n + 1) * np.eye(n) * g.pick([1, -1])).astype(dt)


def _spd(g, dt, n=None):
    n = n or g.int(1, 3)
    m = g.array(_batch(g) + (n, n), "float64", -1.0, 1.0)
    return (m @ np.swapaxes(m, -1, -2) + n * np.eye(n)).astype(dt)


def _separated(g, dt):
    """A matrix with singular values 1, 2, 3... (distinct, so the SVD's gradient is defined)."""
    m, n = g.int(1, 4), g.int(1, 4)
    k = min(m, n)
    batch = _batch(g)
    u, _ = np.linalg.qr(g.array(batch + (m, m), "float64", -1, 1) + 3 * np.eye(m))
    v, _ = np.linalg.qr(g.array(batch + (n, n), "float64", -1, 1) + 3 * np.eye(n))
    s = np.zeros(batch + (m, n))
    idx = np.arange(k)
    s[..., idx, idx] = 1.0 + idx[::-1] * g.pick([0.7, 1.5])
    return (u @ s @ np.swapaxes(v, -1, -2)).astype(dt)


def _inverse(g, dt):
    return (_invertible(g, dt),), {"adjoint": g.flag()}


def _square(g, dt):
    return (_invertible(g, dt),), {}


def _cholesky(g, dt):
    return (_spd(g, dt),), {"upper": g.flag()}


def _triangular_solve(g, dt):
    a = _invertible(g, dt)
    n = a.shape[-1]
    rhs = g.array(a.shape[:-2] + (n, g.int(1, 3)), dt)
    if a.ndim == 2 and g.flag():  # batch axes broadcast
        rhs = g.array((2, n, g.int(1, 3)), dt)
    return (a, rhs), {"lower": g.flag(), "adjoint": g.flag()}


def _general(g, dt):
    return (g.array(_batch(g) + (g.int(1, 4), g.int(1, 4)), dt),), {}


def _qr(g, dt):
    (x,), _ = _general(g, dt)
    return (x,), {"full_matrices": g.flag()}


def _svd(g, dt):
    return (_separated(g, dt),), {"full_matrices": g.flag()}


def _lstsq(g, dt):
    m, n = g.int(1, 4), g.int(1, 4)
    a = g.array((m, n), dt)
    b = g.array((m,) if g.flag() else (m, g.int(1, 3)), dt)
    return (a, b), {}


_NOT_SQUARE = Bad((T("f32[2,3]"),))
_VECTOR = Bad((T("f32[3]"),))
_INT = Bad((T("i32[2,2]"),), error=OpTypeError)

ROWS: dict[str, Sample] = {
    "matrix_inverse": Sample(_inverse, WIDE, bad=(_NOT_SQUARE, _VECTOR, _INT,
                                                  Bad((T("f16[2,2]"),), error=OpTypeError))),
    "matrix_determinant": Sample(_square, WIDE, bad=(_NOT_SQUARE, _VECTOR, _INT), rtol=1e-4),
    "log_matrix_determinant": Sample(_square, WIDE, bad=(_NOT_SQUARE, _INT), rtol=1e-4),
    "cholesky": Sample(_cholesky, WIDE, bad=(_NOT_SQUARE, _INT), rtol=1e-4),
    "matrix_triangular_solve": Sample(
        _triangular_solve, WIDE, rtol=1e-4,
        bad=(Bad((T("f32[3,3]"), T("f32[2,1]"))), Bad((T("f32[2,3]"), T("f32[2,1]"))),
             Bad((T("f32[2,2]"), T("f64[2,1]")), error=OpTypeError))),
    "qr": Sample(_qr, WIDE, bad=(_VECTOR, _INT)),
    "geqrf": Sample(_general, WIDE, bad=(_VECTOR, _INT)),
    # full_matrices: the extra columns of u or v are LAPACK's choice, not a function with a
    # gradient; the rule ignores their cotangents, so gradients are checked on reduced SVDs
    "svd": Sample(_svd, WIDE, bad=(_VECTOR, _INT), rtol=1e-4, atol=1e-6,
                  grad_attrs={"full_matrices": False}),
    "lstsq": Sample(_lstsq, WIDE, bad=(Bad((T("f32[3,2]"), T("f32[2]"))),
                                       Bad((T("f32[3,2]"), T("f64[3]")), error=OpTypeError))),
}
