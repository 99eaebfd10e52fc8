"""``graphcell.numpy`` where no golden can be recorded from MindSpore 2.10: functions taking Python
functions, the grids, gradients MindSpore gets wrong (checked against finite differences in both
modes), the graph-mode refusal of data-dependent shapes, the deliberate differences from
mindspore.numpy (checked against numpy), padding against numpy in every mode, and the module's
layout. Goldens for everything else: ``api/cases/numpy.py``.
"""
from __future__ import annotations

import numpy as np
import pytest

import graphcell as ms
import graphcell.numpy as mnp
from graphcell import Tensor, nn
from graphcell.testing import check_grads
from graphcell_ir.errors import GraphcellError

RNG = np.random.default_rng(0)


def _x(*shape, dtype=np.float64):
    return Tensor(RNG.uniform(-2, 2, size=shape).astype(dtype))


def _both(fn, *args):
    """``fn(*args)`` in PyNative and compiled, as numpy values (lists for sequences)."""
    def val(out):
        return [val(o) for o in out] if isinstance(out, (tuple, list)) else out.asnumpy()
    return val(fn(*args)), val(ms.jit(fn)(*args))


def _grads_both(fn, *args):
    check_grads(fn, args)
    check_grads(ms.jit(fn), args)


# --- the module -----------------------------------------------------------------------------------

def test_graphcell_numpy_is_ms_numpy_with_mindsporess_submodules():
    from graphcell.numpy import array_creations, array_ops, dtypes, logic_ops, math_ops, utils
    assert ms.numpy is mnp
    assert array_creations.pad is mnp.pad and math_ops.histogram is mnp.histogram
    assert array_ops.where is mnp.where and logic_ops.isin is mnp.isin
    assert dtypes.float32 is ms.float32 and utils.to_tensor is not None


def test_dtype_names_and_constants():
    assert (mnp.int_, mnp.float_, mnp.uint) == (ms.int32, ms.float32, ms.uint32)
    assert mnp.bool_ is ms.bool_ and mnp.float16 is ms.float16
    assert mnp.pi == np.pi and mnp.e == np.e and mnp.newaxis is None
    assert mnp.inf == mnp.PINF == np.inf and mnp.NINF == -np.inf and np.isnan(mnp.nan)
    assert mnp.arange(3)[:, mnp.newaxis].shape == (3, 1)


def test_every_mindspore_numpy_name_is_provided():
    from graphcell._compat import missing_attribute, numpy_names
    assert len(numpy_names()) == 237
    assert [n for n in numpy_names() if not hasattr(mnp, n)] == []
    error = missing_attribute("mindspore.numpy", "abs", "module 'graphcell.numpy'")
    assert "mindspore.numpy.abs is a MindSpore API" in str(error)  # what a missing one would say
    with pytest.raises(AttributeError, match="has no attribute 'no_such_name'$"):
        mnp.no_such_name  # noqa: B018


# --- random samplers ------------------------------------------------------------------------------

def test_random_functions_are_seeded_by_set_seed():
    draws = []
    for _ in range(2):
        ms.set_seed(7)
        draws.append([mnp.rand(3).asnumpy(), mnp.randn(3).asnumpy(),
                      mnp.randint(0, 100, (3,)).asnumpy()])
    for first, second in zip(*draws):
        np.testing.assert_array_equal(first, second)


def test_random_distributions():
    ms.set_seed(3)
    u = mnp.rand(20000).asnumpy()
    assert u.min() >= 0.0 and u.max() < 1.0 and abs(u.mean() - 0.5) < 0.01
    n = mnp.randn(20000, dtype=mnp.float64).asnumpy()
    assert n.dtype == np.float64 and abs(n.mean()) < 0.03 and abs(n.std() - 1.0) < 0.03
    i = mnp.randint(-3, 4, (20000,), mnp.int16).asnumpy()
    assert i.dtype == np.int16 and set(np.unique(i)) == set(range(-3, 4))
    assert mnp.randint(5).shape == (1,) and mnp.rand().shape == (1,)


# --- functions of Python functions, grids ---------------------------------------------------------

def _sum_and_max(r):
    return mnp.stack([r.sum(), r.max()])


def _negate(v):
    return -v


def _double(v):
    return v * 2


def _shift(v):
    return v + 10


@pytest.mark.parametrize("axis", [0, 1, -1])
def test_apply_along_axis_is_numpys(axis):
    a = RNG.uniform(-2, 2, (2, 3, 4)).astype(np.float32)
    want = np.apply_along_axis(lambda r: np.stack([r.sum(), r.max()]), axis, a)

    def fn(t):
        return mnp.apply_along_axis(_sum_and_max, axis, t)
    for got in _both(fn, Tensor(a)):   # sums of 4 values in [-2, 2]: an ulp of 8 absolute
        np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6)
    scalar = mnp.apply_along_axis(lambda r: r.sum(), axis, Tensor(a))
    np.testing.assert_allclose(scalar.asnumpy(), a.sum(axis), rtol=1e-6)


def test_apply_over_axes_keeps_the_rank():
    a = RNG.uniform(-2, 2, (2, 3, 4)).astype(np.float32)

    def fn(t):
        return mnp.apply_over_axes(mnp.sum, t, [0, 2])
    for got in _both(fn, Tensor(a)):
        np.testing.assert_allclose(got, np.apply_over_axes(np.sum, a, [0, 2]), rtol=1e-6)


def test_piecewise_with_functions_and_a_default():
    x = np.linspace(-2.5, 2.5, 6).astype(np.float32)

    def fn(t):
        return mnp.piecewise(t, [t < 0, t > 1], [_negate, _double, _shift])
    want = np.piecewise(x, [x < 0, x > 1], [lambda v: -v, lambda v: v * 2, lambda v: v + 10])
    for got in _both(fn, Tensor(x)):
        np.testing.assert_allclose(got, want)
    got = mnp.piecewise(Tensor(x), [Tensor(x < 0)], [-1.0, 1.0])
    np.testing.assert_allclose(got.asnumpy(), np.piecewise(x, [x < 0], [-1.0, 1.0]))


def test_a_function_written_inside_a_compiled_function_is_a_located_error():
    @ms.jit
    def fn(t):
        return mnp.apply_along_axis(lambda r: r.sum(), 0, t)
    with pytest.raises(GraphcellError, match=r"test_numpy_api.py:\d+.*func1d must be a function"):
        fn(_x(2, 3))


def test_mgrid_and_ogrid_are_numpys():
    np.testing.assert_array_equal(mnp.mgrid[0:2, 1:7:2].asnumpy(), np.mgrid[0:2, 1:7:2])
    np.testing.assert_allclose(mnp.mgrid[0:1:5j].asnumpy(), np.mgrid[0:1:5j])
    for got, want in zip(mnp.ogrid[0:3, 0:2], np.ogrid[0:3, 0:2]):
        np.testing.assert_array_equal(got.asnumpy(), want)


# --- padding against numpy ------------------------------------------------------------------------

PAD_MODES = [dict(mode="constant", constant_values=((1, 2), (3, 4))), dict(mode="edge"),
             dict(mode="wrap"), dict(mode="reflect"), dict(mode="symmetric"),
             dict(mode="reflect", reflect_type="odd"), dict(mode="symmetric", reflect_type="odd"),
             dict(mode="maximum"), dict(mode="minimum", stat_length=2),
             dict(mode="mean", stat_length=((1, 2), (2, 1))),
             dict(mode="linear_ramp", end_values=((5, -3), (2, 0)))]


@pytest.mark.parametrize("kwargs", PAD_MODES, ids=lambda k: "-".join(map(str, k.values())))
@pytest.mark.parametrize("widths", [((0, 1), (2, 0)), ((3, 7), (4, 5)), ((1, 1), (0, 9))])
def test_pad_is_numpys(kwargs, widths):
    a = RNG.uniform(-2, 2, (3, 2))
    want = np.pad(a, widths, **kwargs)

    def fn(t):
        return mnp.pad(t, widths, **kwargs)
    for got in _both(fn, Tensor(a)):
        np.testing.assert_allclose(got, want, rtol=1e-12)


def test_pad_of_one_element_reflects_it_in_place():
    a = np.array([[1.5], [2.5]])
    for mode in ("reflect", "symmetric"):
        for reflect_type in ("even", "odd"):
            np.testing.assert_allclose(
                mnp.pad(Tensor(a), 3, mode=mode, reflect_type=reflect_type).asnumpy(),
                np.pad(a, 3, mode=mode, reflect_type=reflect_type))
    np.testing.assert_allclose(mnp.pad(Tensor(a), 3, mode="wrap").asnumpy(),
                               np.pad(a, 3, mode="wrap"))


def test_pad_refuses_what_it_does_not_support():
    with pytest.raises(ValueError, match="mode 'nearest' is not supported"):
        mnp.pad(_x(2, 2), 1, mode="nearest")
    with pytest.raises(ValueError, match="mode .* is not supported"):
        mnp.pad(_x(2, 2), 1, mode=lambda vector, width, axis, kwargs: None)
    with pytest.raises(ValueError, match="non-negative"):
        mnp.pad(_x(2, 2), -1)
    with pytest.raises(ValueError, match=r"must broadcast to \(2, 2\)"):
        mnp.pad(_x(2, 2), ((1, 2, 3),))


# --- gradients MindSpore 2.10 gets wrong (reversed slices) or has none of -------------------------

def _flip(t):
    return mnp.flip(t)


def _flip1(t):
    return mnp.flip(t, 1)


def _flipud(t):
    return mnp.flipud(t)


def _fliplr(t):
    return mnp.fliplr(t)


def _rot90(t):
    return mnp.rot90(t)


def _rot90_back(t):
    return mnp.rot90(t, -1, (1, 0))


def _rot180(t):
    return mnp.rot90(t, 2)


def _reflect(t):
    return mnp.pad(t, 2, mode="reflect")


def _symmetric(t):
    return mnp.pad(t, (1, 3), mode="symmetric")


def _wrap(t):
    return mnp.pad(t, 3, mode="wrap")


def _odd(t):
    return mnp.pad(t, 2, mode="reflect", reflect_type="odd")


def _edge(t):
    return mnp.pad(t, 1, mode="edge")


def _ramp(t):
    return mnp.pad(t, 2, mode="linear_ramp")


def _mean(t):
    return mnp.pad(t, 1, mode="mean")


def _rint(t):
    return mnp.rint(t)


def _rot270(t):
    return mnp.rot90(mnp.reshape(t, (3, 2, 2)), 3, (0, 2))


def _select(t):
    conds = [Tensor(np.array([[True, False, False, True]] * 3)), t > 0]
    return mnp.select(conds, [t * 2, mnp.exp(t)], -1.5)


@pytest.mark.parametrize("fn", [_flip, _flip1, _flipud, _fliplr, _rot90, _rot90_back, _rot180,
                                _rot270, _reflect, _symmetric, _wrap, _odd, _edge, _ramp, _mean,
                                _rint, _select],
                         ids=lambda f: f.__name__)
def test_gradients_of_layout_functions(fn):
    _grads_both(fn, _x(3, 4))


def _convolve_full(a, v):
    return mnp.convolve(a, v, "full")


def _convolve_same(a, v):
    return mnp.convolve(a, v, "same")


def _convolve_valid(a, v):
    return mnp.convolve(a, v, "valid")


def _correlate_full(a, v):
    return mnp.correlate(a, v, "full")


def _correlate_same(a, v):
    return mnp.correlate(a, v, "same")


def _correlate_valid(a, v):
    return mnp.correlate(a, v, "valid")


def _polymul(a, v):
    return mnp.polymul(a, v)


@pytest.mark.parametrize("fn, ref", [
    (_convolve_full, lambda a, v: np.convolve(a, v, "full")),
    (_convolve_same, lambda a, v: np.convolve(a, v, "same")),
    (_convolve_valid, lambda a, v: np.convolve(a, v, "valid")),
    (_correlate_full, lambda a, v: np.correlate(a, v, "full")),
    (_correlate_same, lambda a, v: np.correlate(a, v, "same")),
    (_correlate_valid, lambda a, v: np.correlate(a, v, "valid")),
    (_polymul, np.polymul)], ids=lambda f: getattr(f, "__name__", ""))
@pytest.mark.parametrize("n, m", [(5, 3), (2, 4), (4, 4)])
def test_convolve_and_correlate_are_numpys_and_differentiate(fn, ref, n, m):
    a, v = _x(n), _x(m)
    for got in _both(fn, a, v):
        np.testing.assert_allclose(got, ref(a.asnumpy(), v.asnumpy()), rtol=1e-12, atol=1e-12)
    _grads_both(fn, a, v)


def _interp(x, fp):
    return mnp.interp(x, Tensor(np.array([0.0, 1.0, 2.5, 4.0])), fp)


def test_interp_differentiates_in_both_inputs():
    _grads_both(_interp, Tensor(np.array([0.3, 1.7, 3.2])), _x(4))


# --- data-dependent shapes: PyNative only ---------------------------------------------------------

def _unique(t):
    return mnp.unique(t)


def _argwhere(t):
    return mnp.argwhere(t)


def _intersect1d(t):
    return mnp.intersect1d(t, t)


def _setdiff1d(t):
    return mnp.setdiff1d(t, t[:1])


def _bincount(t):
    return mnp.bincount(t)


@pytest.mark.parametrize("fn", [_unique, _argwhere, _intersect1d, _setdiff1d, _bincount],
                         ids=lambda f: f.__name__)
def test_data_dependent_shapes_are_a_located_error_in_graph_mode(fn):
    x = Tensor(np.array([3, 1, 3, 2], np.int32))
    fn(x)  # PyNative runs it
    with pytest.raises(GraphcellError, match=r"test_numpy_api.py:\d+") as info:
        ms.jit(fn)(x)
    assert "shape" in str(info.value) or "known while" in str(info.value)


def _bincount_5(t):
    return mnp.bincount(t, length=5)


def test_bincount_with_length_compiles():
    x = Tensor(np.array([0, 1, 1, 3], np.int32))
    for got in _both(_bincount_5, x):
        np.testing.assert_array_equal(got, [1, 2, 0, 1, 0])


# --- deliberate differences from mindspore.numpy (numpy's answers) --------------------------------

def test_cbrt_of_zero_is_zero():
    np.testing.assert_array_equal(mnp.cbrt(Tensor(np.array([0.0, -8.0], np.float32))).asnumpy(),
                                  [0.0, -2.0])


def test_nanmax_and_nanmin_of_nans_only_are_nan():
    x = Tensor(np.array([[np.nan, np.nan], [1.0, np.nan]], np.float32))
    for fn in (mnp.nanmax, mnp.nanmin):
        np.testing.assert_array_equal(fn(x, 1).asnumpy(), [np.nan, 1.0])


def test_promote_types_of_uint16_and_float64_is_float64():
    assert mnp.promote_types(mnp.uint16, mnp.float64) is ms.float64  # Float32 in mindspore.numpy


def test_numbers_are_accepted_where_mindspore_wants_tensors():
    x = Tensor(np.array([1.0, 2.0], np.float32))
    np.testing.assert_array_equal(mnp.multiply(x, 2).asnumpy(), [2.0, 4.0])
    np.testing.assert_array_equal(mnp.logical_xor(Tensor(np.array([True, False])), True).asnumpy(),
                                  [False, True])


def test_integer_std_and_var_are_exact():
    x = Tensor(np.array([[1, -2, 0], [3, 4, 5]], np.int32))
    np.testing.assert_allclose(mnp.std(x).asnumpy(), np.std([1, -2, 0, 3, 4, 5]), rtol=1e-6)
    np.testing.assert_allclose(mnp.var(x, 1).asnumpy(), np.var([[1, -2, 0], [3, 4, 5]], 1),
                               rtol=1e-6)


def test_where_needs_both_branches():
    with pytest.raises(TypeError, match="x and y must both be given"):
        mnp.where(Tensor(np.array([True])))


# --- numpy's answers where the goldens are MindSpore's --------------------------------------------

@pytest.mark.parametrize("name, args", [
    ("histogram", (np.array([0.5, 1.5, 1.5, 3.0, 4.0]), 4)),
    ("histogram_bin_edges", (np.array([0.5, 1.5, 1.5, 3.0, 4.0]), 3)),
    ("gradient", (np.array([[1.0, 2.0, 4.0], [2.0, 7.0, 8.0]]),)),
    ("unwrap", (np.array([0.0, 3.5, 7.0, 1.0, -4.5]),)),
    ("cov", (np.array([[1.0, 2.0, 4.0], [2.0, 7.0, 8.0]]),)),
    ("corrcoef", (np.array([[1.0, 2.0, 4.0], [2.0, 7.0, 8.0]]),)),
    ("kron", (np.arange(6.0).reshape(2, 3), np.arange(4.0).reshape(2, 2))),
    ("tensordot", (np.arange(24.0).reshape(2, 3, 4), np.arange(12.0).reshape(4, 3),
                   ((1, 2), (1, 0)))),
    ("polyint", (np.array([3.0, 2.0, 1.0]), 2, [1.0, 2.0])),
    ("digitize", (np.array([0.2, 6.4, 3.0, 1.6]), np.array([0.0, 1.0, 2.5, 4.0]))),
    ("trapz", (np.array([[1.0, 2.0, 4.0], [2.0, 7.0, 8.0]]), np.array([0.0, 0.5, 2.0]))),
])
def test_agrees_with_numpy(name, args):
    tensors = [Tensor(a) if isinstance(a, np.ndarray) else a for a in args]
    got = getattr(mnp, name)(*tensors)
    want = getattr(np, name if hasattr(np, name) else "trapezoid")(*args)
    got, want = (got, want) if isinstance(got, (tuple, list)) else ([got], [want])
    for g, w in zip(got, want):
        np.testing.assert_allclose(g.asnumpy(), w, rtol=1e-5, atol=1e-6)


# --- a network written with mindspore.numpy -------------------------------------------------------

class _Normalize(nn.Cell):
    def construct(self, x):
        centred = mnp.subtract(x, mnp.mean(x, axis=1, keepdims=True))
        scale = mnp.sqrt(mnp.var(x, axis=1, keepdims=True) + 1e-5)
        out = mnp.where(centred > 0, centred / scale, mnp.zeros_like(centred))
        return mnp.concatenate((out, mnp.cumsum(out, axis=1)), axis=1)


def test_a_cell_using_numpy_functions_agrees_in_both_modes():
    net, x = _Normalize(), _x(3, 4, dtype=np.float32)
    want = net(x).asnumpy()
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        got = net(x).asnumpy()
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    np.testing.assert_allclose(got, want, rtol=1e-6)
    check_grads(net, (Tensor(x.asnumpy().astype(np.float64)),))
