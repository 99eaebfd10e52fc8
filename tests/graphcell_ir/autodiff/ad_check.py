"""Checking gradient Functions against central finite differences (STYLE.md §9.9.2).

:func:`check_grad_function` builds the gradient of ``fn`` with ``sens="arg"``, checks that it
verifies and round-trips through the text format, runs it on the reference interpreter and
compares, in JAX's inner-product form, ``Σ_k <grad_k, v_k>`` with
``(φ(ε) − φ(−ε)) / 2ε`` where ``φ(t) = Σ_j <u_j, f(x + t·v)_j>`` (``u``: random cotangents of the
float outputs, ``v``: random directions of the float ``wrt`` arguments). Random ops are reseeded
before every run, so all runs draw the same masks.
"""
from __future__ import annotations

import numpy as np

from graphcell_ir.autodiff import grad_function
from graphcell_ir.backend.interp import Interpreter
from graphcell_ir.ir import assert_structurally_equal, verify
from graphcell_ir.ops import random as op_random
from graphcell_ir.text import parse_module, print_module

EPS = 1e-6
SEED = 4321


def run(module, fn_name: str, *args) -> tuple:
    """``fn_name`` on ``args`` (reseeding random ops first), results as a tuple."""
    op_random.seed(SEED)
    interp = Interpreter(module, max_iterations=10_000)
    return tuple(interp.compiled(module[fn_name])(args))  # one entry per result, tuples or not


def round_trips(module) -> None:
    text = print_module(module, locs="full")
    assert_structurally_equal(parse_module(text), module, locs=True)


def _float(x) -> bool:
    return isinstance(x, np.ndarray) and x.dtype.kind == "f"


def _cotangent(y, rng):
    """A random cotangent for output ``y`` (zeros for non-float parts; tuples element-wise)."""
    if isinstance(y, tuple):
        return tuple(_cotangent(e, rng) for e in y)
    if _float(y):
        return rng.standard_normal(np.shape(y)).astype(y.dtype)
    return np.zeros(np.shape(y), np.asarray(y).dtype)


def _dot(u, y, absolute: bool = False) -> float:
    """<u, y> over the float parts (``absolute``: the sum of |u_i y_i|, a scale for tolerances)."""
    if isinstance(y, tuple):
        return sum(_dot(a, b, absolute) for a, b in zip(u, y))
    if not _float(y):
        return 0.0
    p = u * y
    return float(np.sum(np.abs(p) if absolute else p))


def check_grad_function(module, fn_name: str, args, wrt, *, rng, outputs=None, rtol=1e-5,
                        atol=1e-7, **options):
    """Build and check the gradient Function; returns it and the gradients it computed."""
    fn = module[fn_name]
    g = grad_function(module, fn_name, wrt, sens="arg", outputs=outputs, **options)
    verify(module)
    round_trips(module)
    outs = run(module, fn_name, *args)
    diff = list(g.attrs["diff_outputs"])
    u = [_cotangent(outs[j], rng) for j in diff]
    res = run(module, g.name, *args, *u)
    n = len(fn.result_types) - fn.attrs.get("n_mutated", 0)
    for got, want in zip(res[:n] + res[n + len(wrt):], outs):
        np.testing.assert_equal(got, want)  # the primal outputs pass through unchanged
    grads = res[n:n + len(wrt)]
    for i, gr in zip(wrt, grads):
        assert np.shape(gr) == np.shape(args[i]), f"gradient of argument {i} has the wrong shape"
    v = {i: rng.standard_normal(np.shape(args[i])) for i in wrt if _float(args[i])}

    def phi(t: float) -> float:
        moved = [np.asarray(a + t * v[i], a.dtype) if i in v else a for i, a in enumerate(args)]
        ys = run(module, fn_name, *moved)
        return sum(_dot(uj, ys[j]) for uj, j in zip(u, diff))

    numeric = (phi(EPS) - phi(-EPS)) / (2 * EPS)
    analytic = sum(float(np.sum(gr * v[i])) for i, gr in zip(wrt, grads) if i in v)
    scale = 1.0 + sum(_dot(uj, outs[j], absolute=True) for uj, j in zip(u, diff))
    assert abs(analytic - numeric) <= atol * scale + rtol * max(abs(analytic), abs(numeric)), \
        f"@{fn_name}: gradients give {analytic!r}, finite differences {numeric!r}"
    return g, grads
