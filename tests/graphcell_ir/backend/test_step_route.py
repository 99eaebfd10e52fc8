"""``step/route.py``: numpy's matmul dispatch, checked by running each chosen routine through
ctypes on the views numpy sees and comparing the bits with ``np.matmul`` of those views (the
step's emission of each route is checked in ``test_native_step_products.py``)."""
import ctypes

import numpy as np
import pytest
from hypothesis import given, strategies as st

from graphcell_ir.backend.step import blas, route

pytestmark = pytest.mark.skipif(blas.gemm("float32") is None, reason="numpy has no OpenBLAS")


def _fn(name, dtype, restype, argtypes):
    address, bits = blas.routine(name, np.dtype(dtype).name)
    it = ctypes.c_int64 if bits == 64 else ctypes.c_int32
    real = ctypes.c_float if np.dtype(dtype) == np.float32 else ctypes.c_double
    kinds = {"i": ctypes.c_int32, "n": it, "r": real, "p": ctypes.c_void_p}
    return ctypes.CFUNCTYPE(kinds.get(restype), *[kinds[t] for t in argtypes])(address)


def _strides(x):
    return tuple(s // x.itemsize for s in x.strides)


def _run(a, b):
    """``a @ b`` by the routine :func:`route.choose` picks (numpy's loop in Python)."""
    (m, k), n, dt = a.shape, b.shape[1], a.dtype
    c = np.zeros((m, n), dt)
    r = route.choose(m, k, n, _strides(a), _strides(b), _strides(c),
                     same=a.ctypes.data == b.ctypes.data)
    pa, pb, pc = a.ctypes.data, b.ctypes.data, c.ctypes.data
    if r.kind == "gemm":
        _fn("gemm", dt, None, "iiinnnrpnpnrpn")(route.ROW_MAJOR, r.transa, r.transb, m, n, k,
                                                1.0, pa, r.lda, pb, r.ldb, 0.0, pc, r.ldc)
    elif r.kind == "syrk":
        _fn("syrk", dt, None, "iiinnrpnrpn")(route.ROW_MAJOR, route.UPPER, r.trans, n, k, 1.0,
                                             pa, r.lda, 0.0, pc, r.ldc)
        c[np.tril_indices(n, -1)] = c.T[np.tril_indices(n, -1)]
    elif r.kind == "gemv":
        matrix, x = (pa, pb) if r.matrix == "a" else (pb, pa)
        _fn("gemv", dt, None, "iinnrpnpnrpn")(r.order, route.TRANS, r.m, r.n, 1.0, matrix,
                                              r.lda, x, r.incx, 0.0, pc, r.incy)
    elif r.kind == "dot":
        c[0, 0] = 0.0 + _fn("dot", dt, "r", "npnpn")(k, pa, r.inca, pb, r.incb)
    else:
        for i in range(m):
            for j in range(n):
                acc = dt.type(0)
                for t in range(k):
                    acc = dt.type(acc + dt.type(a[i, t] * b[t, j]))
                c[i, j] = acc
    return r.kind, c


def _operand(rng, shape, transposed, pad, dtype):
    """A ``shape`` view: of a row-major buffer, or of one read transposed; ``pad`` extra
    elements per row (a non-contiguous view)."""
    rows, cols = shape[::-1] if transposed else shape
    base = rng.standard_normal((rows, cols + pad)).astype(dtype)[:, :cols]
    return base.T if transposed else base


DIMS = st.sampled_from([1, 2, 3, 7, 33])


@given(m=DIMS, k=DIMS, n=DIMS, ta=st.booleans(), tb=st.booleans(), pa=st.sampled_from([0, 3]),
       pb=st.sampled_from([0, 2]), dtype=st.sampled_from(["float32", "float64"]),
       seed=st.integers(0, 2**16))
def test_the_chosen_routine_gives_numpys_bits(m, k, n, ta, tb, pa, pb, dtype, seed):
    rng = np.random.default_rng(seed)
    a = _operand(rng, (m, k), ta, pa, dtype)
    b = _operand(rng, (k, n), tb, pb, dtype)
    kind, c = _run(a, b)
    np.testing.assert_array_equal(c.view(f"u{c.itemsize}"),
                                  np.matmul(a, b).view(f"u{c.itemsize}"), err_msg=kind)


@pytest.mark.parametrize("ta", [False, True])
def test_a_matrix_times_its_own_transpose_is_numpys_syrk(ta):
    x = np.random.default_rng(0).standard_normal((40, 9)).astype(np.float32)
    a, b = (x.T, x) if ta else (x, x.T)
    kind, c = _run(a, b)
    assert kind == "syrk"
    np.testing.assert_array_equal(c.view(np.uint32), np.matmul(a, b).view(np.uint32))


def test_the_shapes_of_a_batch_1_network_route_as_numpy_documents():
    r = route.choose(1, 64, 10, route.strides(64, False), route.strides(64, True), (10, 1))
    assert (r.kind, r.order, r.m, r.n, r.lda) == ("gemv", route.COL_MAJOR, 64, 10, 64)
    r = route.choose(1, 784, 64, route.strides(784, False), route.strides(64, False), (64, 1))
    assert (r.kind, r.order, r.m, r.n, r.lda) == ("gemv", route.ROW_MAJOR, 784, 64, 64)
    assert route.choose(64, 1, 784, route.strides(64, True), route.strides(784, False),
                        (784, 1)).kind == "loop"   # dW = dy.T @ x at batch 1
    assert route.choose(1, 5, 1, (5, 1), (1, 1), (1, 1)).kind == "dot"
    assert route.choose(4, 5, 6, (5, 1), (6, 1), (6, 1)) == route.Gemm(
        route.NO_TRANS, route.NO_TRANS, 5, 6, 6)


def test_a_product_numpy_would_copy_first_is_refused():
    with pytest.raises(ValueError, match="copies first"):
        route.choose(4, 5, 6, (10, 2), (6, 1), (6, 1))
