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


def lenet_calls(rng, dtype, batch: int) -> list:
    """(op name, operands, attrs) of the convolution and pooling calls of a LeNet5 train step
    with ``batch`` images: both convolutions, their gradients, both pool gradients."""
    win = dict(pad_mode="valid", pad=(0, 0, 0, 0), stride=(1, 1), dilation=(1, 1), group=1)
    pool = dict(kernel_size=(2, 2), strides=(2, 2), pad_mode="valid", data_format="NCHW")
    a = lambda *s: rng.standard_normal(s).astype(dtype)  # noqa: E731
    n = batch
    x1, w1, x2, w2 = a(n, 1, 32, 32), a(6, 1, 5, 5), a(n, 6, 14, 14), a(16, 6, 5, 5)
    return [
        ("conv2d", (x1, w1), dict(win)), ("conv2d", (x2, w2), dict(win)),
        ("conv2d_backprop_filter", (a(n, 6, 28, 28), x1), dict(filter_size=w1.shape, **win)),
        ("conv2d_backprop_filter", (a(n, 16, 10, 10), x2), dict(filter_size=w2.shape, **win)),
        ("conv2d_backprop_input", (a(n, 16, 10, 10), w2), dict(input_size=x2.shape, **win)),
        ("max_pool2d_grad", (a(n, 6, 28, 28), a(n, 6, 14, 14)), dict(pool)),
        ("max_pool2d_grad_grad", (a(n, 6, 28, 28), a(n, 6, 28, 28)), dict(pool)),
        ("avg_pool2d_grad", (a(n, 6, 14, 14),), dict(input_size=(n, 6, 28, 28), **pool)),
    ]
