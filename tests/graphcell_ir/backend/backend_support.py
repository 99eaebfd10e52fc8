"""Helpers for the backend tests: one-op fused modules, and comparing results with the oracle.

The compiled backend is not bit-exact with numpy (float32 reductions accumulate in float64,
libm's ``tanh`` is not numpy's), so floats compare with a tolerance per dtype; NaN equals NaN,
and dtypes, shapes and integers compare exactly.
"""
from __future__ import annotations

import numpy as np

from graphcell_ir.ir import Builder, Function, Module, TensorType
from graphcell_ir.ir.types import dtype_from_numpy
from graphcell_ir.passes.fuse import build_fused

RTOL = {np.dtype(np.float32): 2e-6, np.dtype(np.float64): 1e-12, np.dtype(np.float16): 1e-3}


def one_op_module(opdef, operands: tuple, attrs: dict) -> tuple[Module, list]:
    """``@main`` running ``opdef`` as a one-op ``fused`` group; array operands become arguments
    (returned, in order), Python scalars literals."""
    fn = Function("main")
    m = Module([fn])
    b = Builder.at_end(fn.body)
    values, args = [], []
    for o in operands:
        if isinstance(o, np.ndarray):
            values.append(fn.add_arg(TensorType(dtype_from_numpy(o.dtype), o.shape), "x"))
            args.append(o)
        else:
            values.append(o)
    op = b.create(opdef, values, attrs)
    b.return_(*op.results)
    build_fused([op])
    op.erase()
    return m, args


def assert_same(got, want, what: str = "") -> None:
    """The backend's result matches the interpreter's (see the module docstring)."""
    if isinstance(want, (tuple, list)):
        assert len(got) == len(want), what
        for g, w in zip(got, want):
            assert_same(g, w, what)
        return
    g, w = np.asarray(got), np.asarray(want)
    assert g.dtype == w.dtype and g.shape == w.shape, f"{what}: {g.dtype}{g.shape} != {w.dtype}{w.shape}"
    if w.dtype.kind == "f":
        tol = RTOL.get(w.dtype, 1e-6)
        np.testing.assert_allclose(g, w, rtol=tol, atol=tol, equal_nan=True, err_msg=what)
        assert (np.isnan(g) == np.isnan(w)).all(), what
    else:
        np.testing.assert_array_equal(g, w, err_msg=what)
