"""W3: GELU-tanh on ``z = x*1.5 - 0.25`` over 4M float32: the forward, and the gradient of
``sum(y)``; in GB/s (8 bytes an element: read x, write y or dx) against a numpy copy of x.

graphcell runs both as one ``jit``/GRAPH_MODE Function (one fused numba kernel each); numpy runs
the expression op by op (the gradient written by hand).
"""
from __future__ import annotations

import numpy as np

from tools.bench.timing import measure

N = 4 * 1024 * 1024
BYTES = 8 * N
C = 0.7978845608
A = 0.044715


def data() -> np.ndarray:
    return np.random.default_rng(0).random(N, dtype=np.float32)


def gelu_np(x):
    f = np.float32
    z = x * f(1.5) - f(0.25)
    return f(0.5) * z * (f(1) + np.tanh(f(C) * (z + f(A) * z * z * z)))


def gelu_grad_np(x):
    f = np.float32
    z = x * f(1.5) - f(0.25)
    t = np.tanh(f(C) * (z + f(A) * z * z * z))
    dz = f(0.5) * (f(1) + t) + f(0.5) * z * (f(1) - t * t) * f(C) * (f(1) + f(3 * A) * z * z)
    return dz * f(1.5)


def numpy_rows(x) -> list:
    return [("W3 fwd", "numpy copy (roof)", measure(lambda: x.copy()), BYTES),
            ("W3 fwd", "numpy expression", measure(lambda: gelu_np(x)), BYTES),
            ("W3 grad", "numpy by hand", measure(lambda: gelu_grad_np(x)), BYTES)]


def graphcell_rows(x) -> list:
    import graphcell as ms
    from graphcell import nn

    def gelu(x):
        z = x * 1.5 - 0.25
        return 0.5 * z * (1 + ms.ops.tanh(C * (z + A * z * z * z)))

    class SumGelu(nn.Cell):
        def construct(self, x):
            return gelu(x).sum()

    fwd = ms.jit(gelu)
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        grad = ms.grad(SumGelu())
        t = ms.Tensor(x)
        np.testing.assert_allclose(fwd(t).asnumpy(), gelu_np(x), rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(grad(t).asnumpy(), gelu_grad_np(x), rtol=1e-4, atol=1e-5)
        return [("W3 fwd", "graphcell jit", measure(lambda: fwd(t)), BYTES),
                ("W3 grad", "graphcell GRAPH_MODE", measure(lambda: grad(t)), BYTES)]
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
