"""Every differentiable registry entry's bprop against central finite differences (STYLE §9.9.2).

JAX's inner-product form, in float64: draw an input direction ``v`` (over the operands the row
differentiates) and an output cotangent ``u`` (over the float results), then compare
``u · (f(x + εv) − f(x − εv)) / 2ε`` with ``Σ bprop(u) · v``: one scalar check per example,
whatever the tensor sizes. The rules run through the test-only numpy emitter, which also checks
``infer`` against ``ref`` for every op a rule calls. Random ops are reseeded before each forward
run, so the three runs draw the same mask.
"""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from graphcell_ir.ops import REGISTRY, Trait
from graphcell_ir.ops import functional as F
from graphcell_ir.ops import random as op_random
from numpy_emitter import NpValue, TapeEmitter, run_bprop, wrap
from samples import SAMPLES, Gen

EPS = 1e-6


def _params(test: str, dtypes=None):
    out = []
    for name, op in REGISTRY.items():
        if name not in SAMPLES or not op.differentiable:
            continue
        row = SAMPLES[name]
        reason = row.xfail.get(test)
        marks = [pytest.mark.xfail(reason=reason, strict=True)] if reason else []
        for dt in (dtypes or (None,)):
            if dt is None or dt in row.dtypes:
                out.append(pytest.param(name, *(() if dt is None else (dt,)), marks=marks,
                                        id=name if dt is None else f"{name}-{dt}"))
    return out


def _forward(op, operands, attrs):
    if op.has(Trait.RANDOM):
        op_random.seed(4321)
    out = op.ref(*operands, **attrs)
    return out if isinstance(out, tuple) else (out,)


def _moved(operands, v: dict, t: float) -> tuple:
    """operands + t·v, every array kept an ndarray of its dtype (0-d ones too)."""
    return tuple(np.asarray(x + t * v[i], x.dtype) if i in v else x for i, x in enumerate(operands))


def _is_float_array(v) -> bool:
    return isinstance(v, np.ndarray) and v.dtype.kind == "f"


def _draw_case(name, dtype, data, grad_check: bool):
    op, row = REGISTRY[name], SAMPLES[name]
    g = Gen(data)
    operands, attrs = row.make(g, dtype)
    attrs = op.check_attrs({**attrs, **(row.grad_attrs if grad_check else {})})
    outs = _forward(op, operands, attrs)
    u = tuple(g.rng.standard_normal(o.shape) .astype(o.dtype) if _is_float_array(np.asarray(o)) else None
              for o in outs)
    dout = u if len(outs) > 1 else u[0]
    return op, row, g, operands, attrs, outs, u, dout


@pytest.mark.parametrize("name", _params("grad"))
@settings(max_examples=6, deadline=None, derandomize=True)
@given(data=st.data())
def test_bprop_matches_finite_differences(name, data):
    op, row, g, operands, attrs, outs, u, dout = _draw_case(name, "float64", data, grad_check=True)
    diff = row.diff if row.diff is not None else [i for i, x in enumerate(operands) if _is_float_array(x)]
    v = {i: g.rng.standard_normal(np.shape(operands[i])) for i in diff}

    def phi(t: float) -> float:
        moved = _moved(operands, v, t)
        return sum(float(np.sum(uk * np.asarray(ok))) for uk, ok in zip(u, _forward(op, moved, attrs))
                   if uk is not None)

    numeric = (phi(EPS) - phi(-EPS)) / (2 * EPS)
    grads = run_bprop(op, operands, attrs, outs if len(outs) > 1 else outs[0], dout)
    analytic = sum(float(np.sum(grads[i] * v[i])) for i in v if grads[i] is not None)
    scale = 1.0 + sum(float(np.sum(np.abs(uk * np.asarray(ok)))) for uk, ok in zip(u, outs) if uk is not None)
    assert abs(analytic - numeric) <= row.atol * scale + row.rtol * max(abs(analytic), abs(numeric)), \
        f"{name}: bprop gives {analytic!r}, finite differences {numeric!r} (attrs {attrs})"


@pytest.mark.parametrize("name,dtype", _params("grad_types", ("float32", "float64")))
@settings(max_examples=4, deadline=None, derandomize=True)
@given(data=st.data())
def test_bprop_gradients_have_their_operands_types(name, dtype, data):
    """One gradient per operand, each None or of its operand's shape and dtype (a gradient in
    another dtype or shape is an error in both modes, DESIGN.md §10.9)."""
    op, row, g, operands, attrs, outs, u, dout = _draw_case(name, dtype, data, grad_check=False)
    if all(uk is None for uk in u):
        return  # no float result (a cast to an integer dtype): nothing flows back
    grads = run_bprop(op, operands, attrs, outs if len(outs) > 1 else outs[0], dout)
    for i, (x, gr) in enumerate(zip(operands, grads)):
        if gr is None:
            continue
        assert isinstance(x, np.ndarray), f"{name}: gradient for the Python scalar operand {i}"
        gr = np.asarray(gr)
        assert gr.shape == x.shape and gr.dtype == x.dtype, \
            f"{name}: gradient {i} is {gr.dtype}{list(gr.shape)}, operand is {x.dtype}{list(x.shape)}"


@pytest.mark.parametrize("name", _params("grad2"))
@settings(max_examples=3, deadline=None, derandomize=True)
@given(data=st.data())
def test_gradient_of_the_gradient(name, data):
    """Rules are built from differentiable primitives, so a bprop can be differentiated again
    (DESIGN.md §6): h(x) = Σ <bprop(x, u)_i, w_i>, differentiated by replaying the rule's own ops
    backwards on a tape, against finite differences of h."""
    op, row, g, operands, attrs, outs, u, dout = _draw_case(name, "float64", data, grad_check=True)
    diff = row.diff if row.diff is not None else [i for i, x in enumerate(operands) if _is_float_array(x)]
    first = run_bprop(op, operands, attrs, outs if len(outs) > 1 else outs[0], dout)
    w = [g.rng.standard_normal(np.shape(gr)) if gr is not None and i in diff else None
         for i, gr in enumerate(first)]
    v = {i: g.rng.standard_normal(np.shape(operands[i])) for i in diff}

    def h(t: float) -> float:
        moved = _moved(operands, v, t)
        out = _forward(op, moved, attrs)
        grads = run_bprop(op, moved, attrs, out if len(out) > 1 else out[0], dout)
        return sum(float(np.sum(gr * wi)) for gr, wi in zip(grads, w) if wi is not None)

    numeric = (h(EPS) - h(-EPS)) / (2 * EPS)
    tape = TapeEmitter()
    leaves = wrap(tuple(operands))
    if op.has(Trait.RANDOM):
        op_random.seed(4321)
    with F.using_emitter(tape):
        out = tape.record(op, leaves, attrs)
        grads = op.bprop(*leaves, out, wrap(dout), **attrs)
    seeds = {id(gr): wi for gr, wi in zip(grads, w) if wi is not None and isinstance(gr, NpValue)}
    second = tape.vjp(seeds, [leaves[i] for i in v])
    analytic = sum(float(np.sum(s * v[i])) for s, i in zip(second, v))
    tol = 1e-6 * (1 + sum(float(np.sum(np.abs(gr))) for gr in first if gr is not None)) + row.rtol * abs(numeric)
    assert abs(analytic - numeric) <= tol, \
        f"{name}: second-order {analytic!r}, finite differences {numeric!r} (attrs {attrs})"
