"""What the math_unary goldens cannot show: graphcell's deliberate differences from MindSpore
2.10's CPU build (calls it refuses for want of a kernel; see ``unary_func``'s docstring), and the
special functions' accuracy in float64 (MindSpore computes some of them in float32)."""
import math

import numpy as np
import pytest

import graphcell as ms
from graphcell import Tensor, ops

EULER_GAMMA = 0.5772156649015329


@pytest.mark.parametrize("mode", [ms.PYNATIVE_MODE, ms.GRAPH_MODE])
def test_calls_the_cpu_build_refuses_for_want_of_a_kernel_are_computed(mode):
    ints = Tensor(np.array([1, 4, 9], np.int32))
    nonfinite = Tensor(np.array([np.nan, np.inf, -np.inf, 1.5]))   # Float64

    def calls(i, f):
        return (ops.log(i), ops.sin(i), ops.exp(i.astype(ms.int64)), ops.isinf(i),
                ops.nan_to_num(f), ops.round(f * 3.0, decimals=1), ops.angle(f - 2.0))
    fn = ms.jit(calls) if mode == ms.GRAPH_MODE else calls
    log, sin, exp, isinf, n2n, rounded, angle = fn(ints, nonfinite)
    assert log.dtype == sin.dtype == exp.dtype == ms.float32
    np.testing.assert_allclose(log.asnumpy(), np.log([1.0, 4.0, 9.0]), rtol=1e-6)
    np.testing.assert_allclose(exp.asnumpy(), np.exp([1.0, 4.0, 9.0]), rtol=1e-6)
    assert isinf.asnumpy().tolist() == [False] * 3
    assert n2n.dtype == ms.float64
    assert n2n.asnumpy().tolist() == [0.0, np.finfo(np.float64).max, np.finfo(np.float64).min, 1.5]
    np.testing.assert_allclose(rounded.asnumpy()[3], 4.5)
    np.testing.assert_allclose(angle.asnumpy()[1:], [0.0, math.pi, math.pi])


def test_special_functions_are_accurate_in_float64():
    def f(fn, *values):
        return fn(Tensor(np.array(values, np.float64))).asnumpy()
    np.testing.assert_allclose(f(ops.lgamma, 0.5, 10.0, -0.5),
                               [math.lgamma(0.5), math.lgamma(10.0), math.lgamma(-0.5)], rtol=1e-14)
    np.testing.assert_allclose(f(ops.digamma, 1.0, 0.5), [-EULER_GAMMA, -EULER_GAMMA - 2 * math.log(2)],
                               rtol=1e-14)
    x = np.array([-0.999999999, -0.3, 1e-9, 0.7, 1 - 1e-15])
    np.testing.assert_allclose([math.erf(v) for v in ops.erfinv(Tensor(x)).asnumpy()], x, rtol=1e-15)
    trigamma_1 = ops.polygamma(Tensor(np.array(1)), Tensor(np.array([1.0]))).asnumpy()
    np.testing.assert_allclose(trigamma_1, [math.pi ** 2 / 6], rtol=1e-14)
    np.testing.assert_allclose(f(ops.bessel_i0e, 0.0, 1.0), [1.0, 1.2660658777520082 * math.exp(-1)],
                               rtol=1e-15)
    np.testing.assert_allclose(f(ops.bessel_i1, 1.0, -20.0),
                               [0.5651591039924851, -42454973.385127775], rtol=1e-14)   # scipy.special.i1


def test_gradients_at_the_awkward_points():
    x = Tensor(np.array([0.0, 1.0, -2.0]))
    assert ms.grad(lambda t: ops.sinc(t).sum())(x).asnumpy()[0] == 0.0   # sinc'(0) = 0, no NaN
    g = ms.grad(lambda t: ops.bessel_i1e(t).sum())(x).asnumpy()
    assert g[0] == 0.5                                                     # i1e'(0) = 1/2
    g = ms.grad(lambda t: ops.lgamma(t).sum())(Tensor(np.array([1.0, 2.0]))).asnumpy()
    np.testing.assert_allclose(g, [-EULER_GAMMA, 1 - EULER_GAMMA], rtol=1e-13)   # digamma


def test_mindspore_refusals_name_the_function():
    with pytest.raises(TypeError, match=r"ops\.acos: 'input' of dtype Int32"):
        ops.acos(Tensor(np.array([1], np.int32)))
    with pytest.raises(TypeError, match=r"ops\.sqrt: 'x' must be a Tensor, got float"):
        ops.sqrt(2.0)
    with pytest.raises(ValueError, match="greater than"):
        ops.mvlgamma(Tensor(np.array([0.2], np.float32)), 2)
