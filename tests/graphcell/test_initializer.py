"""graphcell.common.initializer: names, shapes, dtypes, distributions, seeding, bad input.

The formulas (fans, gains, bounds) and accepted names are MindSpore 2.10's; the random values
differ, so distributions are checked statistically on large samples with wide tolerances.
"""
import math

import numpy as np
import pytest

import graphcell as ms
from graphcell import Tensor
from graphcell.common import initializer as init_module
from graphcell.common.initializer import (Constant, Dirac, HeNormal, HeUniform, Identity,
                                          Initializer, Normal, One, Orthogonal, Sparse,
                                          TruncatedNormal, Uniform, VarianceScaling, XavierNormal,
                                          XavierUniform, Zero, initializer)


def values(init, shape, dtype=ms.float32):
    return initializer(init, shape, dtype).asnumpy()


# --- names and results -------------------------------------------------------------------------

@pytest.mark.parametrize("name, cls", [
    ("zeros", Zero), ("Zeros", Zero), ("zero", Zero), ("ones", One), ("One", One),
    ("normal", Normal), ("truncatedNormal", TruncatedNormal), ("TruncatedNormal", TruncatedNormal),
    ("uniform", Uniform), ("xavier_uniform", XavierUniform), ("XavierUniform", XavierUniform),
    ("xavier_normal", XavierNormal), ("he_uniform", HeUniform), ("HeUniform", HeUniform),
    ("he_normal", HeNormal), ("identity", Identity), ("orthogonal", Orthogonal),
    ("dirac", Dirac), ("variancescaling", VarianceScaling)])
def test_names_select_mindsporess_initializers(name, cls):
    assert type(init_module._from_name(name)) is cls


def test_result_is_a_tensor_with_shape_and_dtype_and_init_data_returns_it():
    t = initializer("ones", [2, 3], ms.float32)
    assert isinstance(t, Tensor) and (t.shape, t.dtype) == ((2, 3), ms.float32)
    assert t.init_data() is t and t.has_init is False
    assert t.asnumpy().tolist() == [[1.0] * 3] * 2


def test_default_dtype_is_float32_and_shape_may_be_an_int_or_tuple():
    assert initializer("zeros", 3).shape == (3,)
    assert initializer("zeros", (2, 2)).dtype == ms.float32
    assert initializer("zeros", ()).shape == ()
    assert initializer("normal", [2], ms.float16).dtype == ms.float16


def test_operators_on_the_result_give_plain_tensors():
    assert type(initializer("ones", [2]) + 1) is Tensor


def test_numbers_fill_every_element_in_the_dtype():
    assert values(0.5, [2]).tolist() == [0.5, 0.5]
    assert initializer(3.5, 2, ms.int32).asnumpy().tolist() == [3, 3]      # as MindSpore: truncated
    assert initializer(True, [1], ms.bool_).asnumpy().tolist() == [True]


def test_tensor_init_is_returned_and_its_shape_checked():
    t = Tensor([1.0, 2.0])
    out = initializer(t, [2])
    assert out.asnumpy().tolist() == [1.0, 2.0] and out.init_data() is out
    assert initializer(t).shape == (2,)
    assert initializer(np.array([1, 2], np.int32)).dtype == ms.int32
    with pytest.raises(ValueError, match=r"initializer: init has shape \[2\] but shape=\[3\]"):
        initializer(t, [3])


def test_tensor_constructor_with_init_uses_the_initializer():
    t = Tensor(shape=(2, 2), dtype=ms.float32, init=One())
    assert type(t) is Tensor and t.asnumpy().tolist() == [[1.0, 1.0], [1.0, 1.0]]


def test_initializer_objects_fill_numpy_arrays_in_place():
    arr = np.zeros((3, 3), np.float32)
    assert Constant(2.0)(arr) is arr and (arr == 2.0).all()
    assert "Normal(sigma=0.5, mean=0.0)" == repr(Normal(0.5))


def test_constant_broadcasts_an_array():
    assert values(Constant(np.array([1.0, 2.0])), [2, 2]).tolist() == [[1.0, 2.0], [1.0, 2.0]]


# --- bad input ---------------------------------------------------------------------------------

def test_unknown_name_names_it_and_lists_the_valid_ones():
    with pytest.raises(ValueError) as info:
        initializer("bogus", [2])
    message = str(info.value)
    assert message.startswith("initializer: unknown initializer name 'bogus'")
    for valid in ("'zeros'", "'ones'", "'normal'", "'truncatednormal'", "'uniform'",
                  "'xavier_uniform'", "'he_uniform'", "'he_normal'"):
        assert valid in message
    assert "case-insensitive" in message


def test_a_failed_call_draws_nothing_from_the_seeded_generator():
    ms.set_seed(5)
    expected = values("normal", [4])
    ms.set_seed(5)
    with pytest.raises(ValueError, match="bogus"):
        initializer("bogus", [4])
    np.testing.assert_array_equal(values("normal", [4]), expected)


def test_names_of_initializers_with_required_arguments():
    with pytest.raises(ValueError, match="'sparse' needs arguments; use Sparse"):
        initializer("sparse", [2, 2])


@pytest.mark.parametrize("shape", [[0], [-1, 2], [2.0], "3", [True], 0])
def test_bad_shapes(shape):
    with pytest.raises(ValueError, match="initializer: shape must be a positive int"):
        initializer("ones", shape)


def test_shape_is_required_for_names_numbers_and_initializers():
    with pytest.raises(ValueError, match="shape is required when init is One()"):
        initializer("ones")


@pytest.mark.parametrize("bad", [None, [1.0, 2.0], object()])
def test_bad_init_type(bad):
    with pytest.raises(TypeError, match="initializer: init must be a name, a number, an Initializer"):
        initializer(bad, [2])


@pytest.mark.parametrize("make, match", [
    (lambda: HeUniform(mode="bad"), "HeUniform: mode must be 'fan_in' or 'fan_out'"),
    (lambda: HeNormal(nonlinearity="bad"), "HeNormal: nonlinearity must be one of"),
    (lambda: HeUniform(negative_slope="x"), "HeUniform: negative_slope must be a number"),
    (lambda: Normal(sigma=-1), "Normal: sigma must be >= 0"),
    (lambda: TruncatedNormal(a=1, b=0), "TruncatedNormal: the bounds need a < b"),
    (lambda: VarianceScaling(scale=0), "VarianceScaling: scale must be > 0"),
    (lambda: VarianceScaling(mode="x"), "VarianceScaling: mode must be one of"),
    (lambda: VarianceScaling(distribution="x"), "VarianceScaling: distribution must be one of"),
])
def test_bad_initializer_arguments(make, match):
    with pytest.raises(ValueError, match=match):
        make()


@pytest.mark.parametrize("init, shape, match", [
    ("xavier_uniform", [3], r"XavierUniform: fan_in and fan_out need .* got shape \[3\]"),
    ("he_normal", [3], r"HeNormal: fan_in and fan_out need"),
    ("identity", [2, 2, 2], r"Identity: the shape must be 2-D"),
    ("orthogonal", [3], r"Orthogonal: the shape needs at least 2"),
    ("dirac", [2, 2], r"Dirac: the shape must have 3, 4 or 5"),
    (Dirac(groups=2), [3, 1, 3], r"Dirac: the first dimension 3 is not divisible by groups=2"),
])
def test_shapes_an_initializer_cannot_fill(init, shape, match):
    with pytest.raises(ValueError, match=match):
        initializer(init, shape)


def test_subclass_without_values_says_what_is_missing():
    class Mine(Initializer):
        pass
    with pytest.raises(NotImplementedError, match=r"Mine must implement _values\(shape\)"):
        initializer(Mine(), [2])


# --- seeding -------------------------------------------------------------------------------------

RANDOM = ["normal", "truncatedNormal", "uniform", "xavier_uniform", "xavier_normal", "he_uniform",
          "he_normal", "orthogonal", Sparse(0.5), VarianceScaling()]


@pytest.mark.parametrize("init", RANDOM, ids=str)
def test_set_seed_makes_initialisation_reproducible(init):
    ms.set_seed(123)
    first = values(init, [8, 6])
    ms.set_seed(123)
    np.testing.assert_array_equal(values(init, [8, 6]), first)
    ms.set_seed(124)
    assert not np.array_equal(values(init, [8, 6]), first)


# --- formulas and distributions -----------------------------------------------------------------

@pytest.mark.parametrize("shape, fans", [((3, 7), (7, 3)), ((6, 1, 5, 5), (25, 150)),
                                         ((4, 2, 3), (6, 12))])
def test_fan_in_and_fan_out(shape, fans):
    assert init_module._fan_in_and_fan_out(shape, "test") == fans


@pytest.mark.parametrize("nonlinearity, slope, gain", [
    ("linear", None, 1.0), ("conv2d", None, 1.0), ("sigmoid", None, 1.0), ("tanh", None, 5 / 3),
    ("relu", None, math.sqrt(2)), ("leaky_relu", None, math.sqrt(2 / (1 + 0.01 ** 2))),
    ("leaky_relu", 0, math.sqrt(2)), ("leaky_relu", 0.2, math.sqrt(2 / 1.04))])
def test_gain(nonlinearity, slope, gain):
    assert init_module._gain(nonlinearity, slope, "test") == pytest.approx(gain)


def setup_function():
    ms.set_seed(0)


def test_normal_mean_and_sigma():
    assert values("normal", [20000]).std() == pytest.approx(0.01, rel=0.05)
    v = values(Normal(sigma=0.5, mean=1.0), [20000])
    assert v.mean() == pytest.approx(1.0, abs=0.02) and v.std() == pytest.approx(0.5, rel=0.05)


def test_truncated_normal_bounds_are_absolute():
    v = values(TruncatedNormal(sigma=10.0, a=-2.0, b=2.0), [20000])
    assert v.min() >= -2.0 and v.max() <= 2.0 and v.std() > 1.0
    assert values("truncatedNormal", [20000]).std() == pytest.approx(0.01, rel=0.05)


def test_uniform_scale():
    v = values(Uniform(scale=0.3), [20000])
    assert v.min() >= -0.3 and v.max() <= 0.3 and v.max() > 0.29
    assert values("uniform", [20000]).max() <= 0.07


def test_xavier_uniform_bound():
    bound = 2.0 * math.sqrt(6.0 / (25 * 4 + 25 * 8))
    v = values(XavierUniform(gain=2.0), [8, 4, 5, 5])
    assert np.abs(v).max() <= bound and np.abs(v).max() > 0.95 * bound


def test_xavier_normal_std():
    assert values("xavier_normal", [200, 300]).std() == pytest.approx(math.sqrt(2 / 500), rel=0.05)


def test_he_uniform_default_is_sqrt_6_over_fan_in():
    v = values("he_uniform", [300, 150])                          # leaky_relu, slope 0: gain √2
    bound = math.sqrt(6.0 / 150)
    assert np.abs(v).max() <= bound and np.abs(v).max() > 0.99 * bound


def test_he_uniform_fan_out_mode():
    v = values(HeUniform(mode="fan_out", nonlinearity="relu"), [40, 300])
    bound = math.sqrt(3.0) * math.sqrt(2.0) / math.sqrt(40)
    assert np.abs(v).max() <= bound and np.abs(v).max() > 0.99 * bound


def test_he_normal_std():
    assert values("he_normal", [200, 250]).std() == pytest.approx(math.sqrt(2 / 250), rel=0.05)


def test_identity_dirac_orthogonal_sparse():
    assert values("identity", [2, 3]).tolist() == [[1, 0, 0], [0, 1, 0]]
    d = values("dirac", [2, 2, 3, 3])
    assert d[0, 0, 1, 1] == 1 and d[1, 1, 1, 1] == 1 and d.sum() == 2
    for shape in ([4, 6], [6, 4], [3, 2, 2]):
        q = values(Orthogonal(gain=1.0), shape).reshape(shape[0], -1)
        small = q @ q.T if q.shape[0] <= q.shape[1] else q.T @ q
        np.testing.assert_allclose(small, np.eye(min(q.shape)), atol=1e-5)
    s = values(Sparse(sparsity=0.5, sigma=1.0), [10, 4])
    assert ((s == 0).sum(axis=0) == 5).all()


@pytest.mark.parametrize("distribution", ["uniform", "truncated_normal", "untruncated_normal"])
def test_variance_scaling_has_the_stated_variance(distribution):
    v = values(VarianceScaling(scale=2.0, mode="fan_avg", distribution=distribution), [300, 100])
    assert v.var() == pytest.approx(2.0 / 200, rel=0.08)


def test_integer_dtypes_are_cast():
    v = initializer(Normal(sigma=100.0), [50], ms.int32).asnumpy()
    assert v.dtype == np.int32 and np.abs(v).max() > 1
