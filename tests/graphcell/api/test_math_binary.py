"""The math_binary family beyond its goldens: Python's operators on tensors in both modes, the
in-place methods, and the names MindSpore 2.10's CPU build refuses (no golden can hold them:
``fmin``, ``Tensor.addcdiv``, ``Tensor.clamp_``, ``Tensor.bitwise_not``, ``ops.is_``)."""
from __future__ import annotations

import numpy as np
import pytest

import graphcell as ms
from graphcell import Tensor, ops
from graphcell_ir.errors import GraphcellError

B1 = np.array([True, False, True, False])
B2 = np.array([True, True, False, False])
I1 = np.array([5, -3, 12, 0], np.int32)
I2 = np.array([3, 6, -10, 7], np.int32)


def both_modes(fn):
    """``fn``'s results run as Python and compiled (``ms.jit``)."""
    return fn, ms.jit(fn)


def _bitwise(b1, b2, i1, i2):
    return b1 ^ b2, b1 & b2, b1 | b2, i1 & i2, i1 | 2, i1 ^ i2, ~i1, ~b1


@pytest.mark.parametrize("mode", ["pynative", "graph"])
def test_bitwise_operators_follow_mindspore(mode):
    fn = _bitwise if mode == "pynative" else ms.jit(_bitwise)
    got = fn(Tensor(B1), Tensor(B2), Tensor(I1), Tensor(I2))
    want = (B1 ^ B2, B1 & B2, B1 | B2, I1 & I2, I1 | 2, I1 ^ I2, I1 == 0, ~B1)
    for g, w in zip(got, want):
        assert g.asnumpy().dtype == w.dtype
        np.testing.assert_array_equal(g.asnumpy(), w)
    assert got[3].dtype == ms.int32 and got[6].dtype == ms.bool_  # ~ is logical_not, as in MindSpore


def _reflected_and(i):
    return 1 & i


def _shift(i):
    return i << 1


def _float_and(x):
    return x & x


@pytest.mark.parametrize("fn", [_reflected_and, _shift, _float_and])
@pytest.mark.parametrize("mode", ["pynative", "graph"])
def test_operators_mindspore_refuses_are_refused_in_both_modes(fn, mode):
    x = Tensor(I1) if fn is not _float_and else Tensor(np.ones(3, np.float32))
    run = fn if mode == "pynative" else ms.jit(fn)
    with pytest.raises((TypeError, GraphcellError)):
        run(x)


def _nan_ignoring_extrema(a, b):
    return ops.fmin(a, b), ops.Fmin()(a, b), a.fmin(b), ops.fmax(a, b)


def test_fmin_and_fmax_ignore_nan():
    """MindSpore 2.10's CPU build refuses fmin (gaps.py); graphcell gives numpy's fmin."""
    x = np.array([np.nan, 1.0, 2.0, np.nan], np.float32)
    y = np.array([1.0, np.nan, -1.0, np.nan], np.float32)
    for fn in both_modes(_nan_ignoring_extrema):
        outs = fn(Tensor(x), Tensor(y))
        for out, want in zip(outs, (np.fmin(x, y),) * 3 + (np.fmax(x, y),)):
            np.testing.assert_array_equal(out.asnumpy(), want)


def test_methods_mindspore_cpu_lacks_kernels_for():
    x = np.array([1.5, -2.0, 3.0], np.float32)
    y = np.array([0.5, 2.0, -1.0], np.float32)
    t = Tensor(x)
    np.testing.assert_allclose(t.addcdiv(Tensor(y), Tensor(y), value=2).asnumpy(), x + 2)
    np.testing.assert_array_equal(Tensor(I1).bitwise_not().asnumpy(), ~I1)
    np.testing.assert_array_equal(Tensor(B1).bitwise_not().asnumpy(), ~B1)
    assert t.clamp_(-1.0, 1.0) is t
    np.testing.assert_array_equal(t.asnumpy(), np.clip(x, -1, 1))
    assert ops.is_(t, t) and not ops.is_(t, Tensor(x)) and ops.is_not(t, Tensor(x))


def test_in_place_methods_rebind_the_tensor_and_keep_gradients():
    x = Tensor(np.array([1.0, 2.0], np.float32))
    before = x.asnumpy()
    assert x.add_(Tensor(np.array([1.0, 1.0], np.float32)), alpha=2) is x
    np.testing.assert_array_equal(x.asnumpy(), [3.0, 4.0])
    np.testing.assert_array_equal(before, [1.0, 2.0])  # a new buffer (docs/decisions.md)

    def loss(a, b):
        z = a * 2
        z.add_(b, alpha=3)
        return z.sum()

    ga, gb = ms.grad(loss, grad_position=(0, 1))(Tensor(np.ones(3, np.float32)),
                                                 Tensor(np.ones(3, np.float32)))
    np.testing.assert_array_equal(ga.asnumpy(), [2, 2, 2])
    np.testing.assert_array_equal(gb.asnumpy(), [3, 3, 3])


def test_floor_divide_in_place():
    x = Tensor(np.array([7, -7], np.int32))
    assert x.floor_divide_(2) is x
    np.testing.assert_array_equal(x.asnumpy(), [3, -4])


def test_maximum_propagates_nan_from_either_side():
    """MindSpore documents that a NaN operand gives NaN; its CPU kernel does so only for a NaN
    ``other`` (it returns ``other`` when ``input`` is NaN). graphcell follows the documentation."""
    x = Tensor(np.array([np.nan, 1.0], np.float32))
    y = Tensor(np.array([0.0, np.nan], np.float32))
    assert np.isnan(ops.maximum(x, y).asnumpy()).all()
    assert np.isnan(ops.minimum(x, y).asnumpy()).all()
