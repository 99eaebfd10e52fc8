"""The reduce family where MindSpore 2.10's CPU build cannot be the oracle: names it refuses
(``quantile``, ``kthvalue``, ``Tensor.unique``, ``Tensor.searchsorted``, ``HistogramFixedWidth``,
``EuclideanNorm``), outputs it leaves uninitialised (``Median(global_median=True)``'s index),
gradients it gets wrong (below ``LpNorm``'s and ``L2Normalize``'s epsilon), and what graph mode
must refuse (data-dependent shapes). numpy is the oracle here; both modes run.
"""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import graphcell as ms
from graphcell import Tensor, ops
from graphcell.testing import check_grads

RNG = np.random.default_rng(7)
X = RNG.uniform(-2, 2, (3, 5)).astype(np.float32)
NANS = np.array([[1.0, np.nan, -2.0, 3.0, 0.5], [2.0, 4.0, np.nan, np.nan, 1.0],
                 [np.nan] * 5], np.float32)


def both_modes(fn):
    """``fn`` run in PyNative and compiled (graph mode), as two callables."""
    return [pytest.param(fn, id="pynative"), pytest.param(ms.jit(fn), id="graph")]


# --- quantile ---------------------------------------------------------------------------------------

def quantile_rows(x):
    return ops.quantile(x, 0.3, axis=1)


def quantile_vector(x, q):
    return ops.quantile(x, q, axis=0, keepdims=True)


def quantile_all(x):
    return x.quantile(0.75)


def nanquantile_rows(x, q):
    return ops.nanquantile(x, q, axis=-1)


@pytest.mark.parametrize("fn", both_modes(quantile_rows))
def test_quantile_of_a_number_interpolates_linearly(fn):
    np.testing.assert_allclose(fn(Tensor(X)).asnumpy(), np.quantile(X, 0.3, axis=1), rtol=1e-6)


@pytest.mark.parametrize("fn", both_modes(quantile_vector))
def test_quantile_of_a_vector_puts_its_axis_first(fn):
    q = np.array([0.0, 0.25, 0.5, 1.0], np.float32)
    out = fn(Tensor(X), Tensor(q))
    np.testing.assert_allclose(out.asnumpy(), np.quantile(X, q, axis=0, keepdims=True), rtol=1e-5,
                               atol=1e-6)
    assert out.shape == (4, 1, 5)


@pytest.mark.parametrize("fn", both_modes(quantile_all))
def test_tensor_quantile_of_all_elements(fn):
    np.testing.assert_allclose(fn(Tensor(X)).asnumpy(), np.quantile(X, 0.75), rtol=1e-6)


@pytest.mark.parametrize("fn", both_modes(nanquantile_rows))
def test_nanquantile_ignores_nans_and_quantile_propagates_them(fn):
    q = np.array([0.1, 0.5], np.float32)
    with warnings.catch_warnings():  # numpy warns about the all-NaN row (its answer is NaN too)
        warnings.simplefilter("ignore", RuntimeWarning)
        want = np.nanquantile(NANS, q, axis=-1)
    np.testing.assert_allclose(fn(Tensor(NANS), Tensor(q)).asnumpy(), want, rtol=1e-6)
    got = ops.quantile(Tensor(NANS), 0.5, axis=1).asnumpy()
    assert np.isnan(got).all()
    np.testing.assert_allclose(ops.Quantile(1, False, True)(Tensor(NANS), Tensor(q)).asnumpy(),
                               want, rtol=1e-6)


@pytest.mark.parametrize("mode", ["pynative", "graph"])
def test_quantile_gradient(mode):
    fn = quantile_rows if mode == "pynative" else ms.jit(quantile_rows)
    assert check_grads(fn, (Tensor(X.astype(np.float64)),)).passed


# --- order statistics: kthvalue, global median ---------------------------------------------------------

def kthvalue(x):
    return x.kthvalue(2, 1, True)


@pytest.mark.parametrize("fn", both_modes(kthvalue))
def test_kthvalue_is_the_kth_smallest_and_its_index(fn):
    values, indices = fn(Tensor(X))
    order = np.argsort(X, axis=1, kind="stable")
    np.testing.assert_array_equal(indices.asnumpy(), order[:, 1:2])
    np.testing.assert_array_equal(values.asnumpy(), np.take_along_axis(X, order[:, 1:2], 1))
    assert indices.dtype == ms.int64
    assert check_grads(lambda x: x.kthvalue(3)[0], (Tensor(X.astype(np.float64)),)).passed


def global_median(x):
    return ops.Median(True)(x)


@pytest.mark.parametrize("fn", both_modes(global_median))
def test_global_median_is_the_lower_median_of_all_elements(fn):
    value, index = fn(Tensor(X))
    assert value.asnumpy() == np.sort(X.reshape(-1))[(X.size - 1) // 2]
    assert index.asnumpy() == 0 and index.dtype == ms.int64


# --- variance with PyTorch's keywords, of integers ------------------------------------------------------

def var_dim(x):
    return x.var(dim=1, correction=2, keepdim=True)


@pytest.mark.parametrize("fn", both_modes(var_dim))
def test_tensor_var_with_dim_and_correction(fn):
    # MindSpore 2.10's CPU build has no kernel for this overload
    np.testing.assert_allclose(fn(Tensor(X)).asnumpy(), np.var(X, axis=1, ddof=2, keepdims=True),
                               rtol=1e-5)
    np.testing.assert_allclose(Tensor(X).var(dim=0).asnumpy(), np.var(X, axis=0, ddof=1), rtol=1e-5)


def test_tensor_var_and_std_of_integers_are_exact():
    n = np.array([[1, 3, 3], [2, 5, 0]], np.int32)
    np.testing.assert_allclose(Tensor(n).var().asnumpy(), np.var(n), rtol=1e-6)
    np.testing.assert_allclose(Tensor(n).std(1, 1).asnumpy(), np.std(n, axis=1, ddof=1), rtol=1e-6)
    assert Tensor(n).var().dtype == ms.float32


# --- searching, uniqueness, histograms ----------------------------------------------------------------

def tensor_searchsorted(seq, v):
    return seq.searchsorted(v, side="right")


@pytest.mark.parametrize("fn", both_modes(tensor_searchsorted))
def test_tensor_searchsorted_gives_int32(fn):
    seq, v = np.array([1.0, 3.0, 3.0, 5.0], np.float32), np.array([[3.0, 0.0], [6.0, 4.0]], np.float32)
    out = fn(Tensor(seq), Tensor(v))
    assert out.dtype == ms.int32
    np.testing.assert_array_equal(out.asnumpy(), np.searchsorted(seq, v, side="right"))


def test_searchsorted_with_a_sorter():
    seq = np.array([5.0, 1.0, 3.0], np.float32)
    sorter = np.argsort(seq)
    out = ops.searchsorted(Tensor(seq), Tensor(np.array([2.0, 4.0], np.float32)),
                           sorter=Tensor(sorter), out_int32=True)
    assert out.dtype == ms.int32
    np.testing.assert_array_equal(out.asnumpy(), np.searchsorted(seq, [2.0, 4.0], sorter=sorter))


def test_tensor_unique_sorts_and_counts():
    x = np.array([[3, 1, 3], [2, 1, 3]], np.int32)
    values, inverse, counts = Tensor(x).unique(return_inverse=True, return_counts=True)
    want, want_inverse, want_counts = np.unique(x, return_inverse=True, return_counts=True)
    np.testing.assert_array_equal(values.asnumpy(), want)
    np.testing.assert_array_equal(inverse.asnumpy(), want_inverse.reshape(x.shape))
    np.testing.assert_array_equal(counts.asnumpy(), want_counts)
    rows = Tensor(np.array([[1, 2], [0, 5], [1, 2]], np.int32)).unique(dim=0)
    np.testing.assert_array_equal(rows.asnumpy(), [[0, 5], [1, 2]])


def histogram_fixed_width(x, edges):
    return ops.HistogramFixedWidth(5)(x, edges)


@pytest.mark.parametrize("fn", both_modes(histogram_fixed_width))
def test_histogram_fixed_width_clamps_outliers_into_the_end_bins(fn):
    x = np.array([-1.0, 0.0, 1.5, 2.0, 5.0, 15.0], np.float32)
    out = fn(Tensor(x), Tensor(np.array([0.0, 5.0], np.float32)))
    assert out.dtype == ms.int32
    np.testing.assert_array_equal(out.asnumpy(), [2, 1, 1, 0, 2])  # TensorFlow's documented example


def euclidean_norm(x):
    return ops.EuclideanNorm(True)(x, (0, 2))


@pytest.mark.parametrize("fn", both_modes(euclidean_norm))
def test_euclidean_norm(fn):
    x = RNG.uniform(-2, 2, (2, 3, 4)).astype(np.float32)
    np.testing.assert_allclose(fn(Tensor(x)).asnumpy(),
                               np.sqrt((x ** 2).sum(axis=(0, 2), keepdims=True)), rtol=1e-6)


def unique_in_graph(x):
    return ops.unique(x)


def bincount_in_graph(x):
    return ops.bincount(x)


@pytest.mark.parametrize("fn", [unique_in_graph, bincount_in_graph])
def test_data_dependent_shapes_are_refused_in_graph_mode_at_the_users_line(fn):
    with pytest.raises(TypeError) as info:
        ms.jit(fn)(Tensor(np.array([1, 3, 1], np.int32)))
    text = str(info.value)
    assert "PyNative" in text and "test_reduce_extras.py" in text
    assert fn(Tensor(np.array([1, 3, 1], np.int32)))[0].shape in ((2,), ())


# --- gradients below epsilon --------------------------------------------------------------------------

def test_lp_norm_and_l2_normalize_gradients_below_epsilon_differentiate_their_forward():
    # MindSpore's gradients there are not its forward's (see docs/decisions.md, "Reductions")
    x = Tensor(np.array([[0.3, -0.4], [0.0, 0.0]], np.float64))
    assert check_grads(lambda t: ops.LpNorm(1, epsilon=1.0)(t), (x,)).passed
    assert check_grads(lambda t: ops.L2Normalize(1, epsilon=1.0)(t), (x,)).passed
    np.testing.assert_array_equal(ms.grad(lambda t: ops.LpNorm(1)(t).sum())(x).asnumpy()[1], [0, 0])


# --- larger inputs: gather/scatter offsets become module constants in graph mode --------------------------

def sort_and_pick(x):
    values, _ = ops.sort(x, axis=0, descending=True)
    return ops.topk(x, 3, dim=1)[0].sum() + values[0].sum() + ops.median(x, 1)[0].sum()


def test_large_inputs_compile_and_differentiate():
    x = Tensor(RNG.uniform(-1, 1, (40, 30)))
    grad = ms.grad(ms.jit(sort_and_pick))(x)
    np.testing.assert_allclose(grad.asnumpy(), ms.grad(sort_and_pick)(x).asnumpy())
    assert check_grads(ms.jit(sort_and_pick), (x,), elementwise=False).passed


def test_topk_returns_values_sorted_even_when_not_asked_to():
    x = Tensor(np.array([1.0, 5.0, 3.0, 9.0, 2.0], np.float32))
    values, indices = ops.topk(x, 3, sorted=False)
    assert values.asnumpy().tolist() == [9.0, 5.0, 3.0] and indices.asnumpy().tolist() == [3, 1, 2]
