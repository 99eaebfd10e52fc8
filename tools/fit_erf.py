"""Fit the coefficients of float32's erf template (``graphcell_ir/ops/elementwise.py``,
``_ERF_F32``): ``erf(x) ≈ x·P(x²)/Q(x²)`` on ``|x| <= 3.92`` (beyond it erf rounds to ±1 in
float32), ``P`` of degree 6 and ``Q`` of degree 4 in ``x²``, ``Q(0) = 1``, minimising the largest
relative error of ``erf(x)/x`` by iteratively reweighted least squares (Lawson's weights on the
linearised problem ``P(s) - f(s)·Q(s)``): max relative error 5.2e-8, under float32's half ulp.

Deterministic (fixed nodes and iterations); prints the coefficients as the template keeps them.

    python tools/fit_erf.py
"""
from __future__ import annotations

import math

import numpy as np

LIMIT = 3.92
P_DEGREE, Q_DEGREE = 6, 4
NODES, ITERATIONS = 6000, 60


def nodes() -> np.ndarray:
    """Points on (0, LIMIT]: uniform, and Chebyshev-like towards the end."""
    x = np.concatenate([LIMIT * (1 - np.cos(np.linspace(0, np.pi / 2, NODES))),
                        np.linspace(0, LIMIT, NODES)])
    x = np.unique(x)
    return x[x > 0]


def fit() -> tuple[np.ndarray, np.ndarray, float]:
    """``(P, Q, max relative error)``, coefficients from the constant up (``Q[0] = 1``)."""
    x = nodes()
    f = np.array([math.erf(v) / v for v in x])
    s = x * x
    powers = np.vstack([s ** k for k in range(max(P_DEGREE, Q_DEGREE) + 1)]).T
    weights = np.ones_like(s)
    best = (math.inf, None, None)
    for _ in range(ITERATIONS):
        # relative residual (P(s) - f·(Q(s) - 1) - f) / f, weighted: least squares for the
        # unknowns P[0..], Q[1..]
        a = np.hstack([powers[:, :P_DEGREE + 1], -f[:, None] * powers[:, 1:Q_DEGREE + 1]])
        a = a / f[:, None] * np.sqrt(weights)[:, None]
        c, *_ = np.linalg.lstsq(a, np.sqrt(weights), rcond=None)
        p, q = c[:P_DEGREE + 1], np.concatenate([[1.0], c[P_DEGREE + 1:]])
        err = np.abs(np.polyval(p[::-1], s) / np.polyval(q[::-1], s) - f) / f
        if err.max() < best[0]:
            best = (err.max(), p, q)
        weights = weights * err / err.mean() + 1e-12   # Lawson: weight where the error is large
        weights /= weights.mean()
    return best[1], best[2], float(best[0])


def main() -> None:
    p, q, err = fit()
    print(f"# max relative error of erf(x)/x on (0, {LIMIT}]: {err:.3g}")
    print("_ERF_F32 = (" + repr(tuple(float(v) for v in p)) + ",")
    print("            " + repr(tuple(float(v) for v in q)) + ")")


if __name__ == "__main__":
    main()
