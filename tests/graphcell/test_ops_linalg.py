"""Linear algebra beyond the golden cases: ``ormqr`` (MindSpore 2.10's CPU build has no kernel
for it, so it has no golden), and behaviours graphcell chooses where MindSpore is silent."""
import numpy as np
import pytest

import graphcell as ms
from graphcell import Tensor, ops

A = np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.5]])


def _q(a):
    q, _ = np.linalg.qr(a, mode="complete")
    return q


@pytest.mark.parametrize("left, transpose", [(True, False), (True, True), (False, False),
                                             (False, True)])
def test_ormqr_multiplies_by_the_q_of_geqrf(left, transpose):
    y, tau = ops.geqrf(Tensor(A))
    other = np.arange(9.0).reshape(3, 3) - 4
    q = _q(A)
    q = q.T if transpose else q
    want = q @ other if left else other @ q
    got = ops.ormqr(y, tau, Tensor(other), left=left, transpose=transpose).asnumpy()
    np.testing.assert_allclose(got, want, atol=1e-10)
    method = y.ormqr(tau, Tensor(other), left, transpose).asnumpy()
    np.testing.assert_allclose(method, want, atol=1e-10)


def test_ormqr_in_graph_mode_and_its_primitive():
    @ms.jit
    def f(y, tau, other):
        return ops.Ormqr(left=False)(y, tau, other)
    y, tau = ops.geqrf(Tensor(A))
    other = Tensor(np.ones((2, 3)))
    np.testing.assert_allclose(f(y, tau, other).asnumpy(), np.ones((2, 3)) @ _q(A), atol=1e-10)


def test_ormqr_checks_the_side():
    y, tau = ops.geqrf(Tensor(A))
    with pytest.raises(ValueError, match="ops.ormqr: other"):
        ops.ormqr(y, tau, Tensor(np.ones((2, 2))))


def test_mvlgamma_out_of_the_domain_is_refused_eagerly_and_nan_compiled():
    x = Tensor(np.array([0.2, 3.0], np.float32))
    with pytest.raises(ValueError, match=r"greater than \(p - 1\) / 2"):
        ops.mvlgamma(x, 2)
    out = ms.jit(lambda t: ops.mvlgamma(t, 2))(x).asnumpy()
    assert np.isnan(out[0]) and np.isclose(out[1], 1.5501958, rtol=1e-5)


def test_lu_solve_pivots_are_values_of_the_graph():
    a = np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 7.0], [1.0, 0.0, 1.0]])
    lu = np.array([[4.0, 5.0, 7.0], [0.25, -1.25, -0.75], [0.25, -0.6, 0.8]])
    pivots = Tensor(np.array([2, 3, 3], np.int32))
    b = np.array([[1.0], [2.0], [3.0]])
    f = ms.jit(lambda b, lu, p: ops.lu_solve(b, lu, p))
    np.testing.assert_allclose(f(Tensor(b), Tensor(lu), pivots).asnumpy(),
                               np.linalg.solve(a, b), atol=1e-10)
