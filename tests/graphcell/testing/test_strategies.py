"""graphcell.testing.strategies generate what they promise."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import graphcell as ms
from graphcell import Tensor
from graphcell.testing import strategies as gst

settings_fast = settings(max_examples=30)


@settings_fast
@given(gst.shapes(min_dims=1, max_dims=3, min_side=2, max_side=4))
def test_shapes_respect_their_bounds(shape):
    assert isinstance(shape, tuple) and 1 <= len(shape) <= 3
    assert all(isinstance(s, int) and 2 <= s <= 4 for s in shape)


@settings_fast
@given(gst.broadcastable_shapes(gst.shapes(max_dims=3)))
def test_broadcastable_shape_pairs_broadcast(pair):
    a, b = pair
    np.broadcast_shapes(a, b)  # raises ValueError when they do not


@settings_fast
@given(gst.broadcastable_shapes((3, 1), max_dims=3, max_side=4))
def test_broadcastable_shapes_keep_a_fixed_shape(pair):
    a, b = pair
    assert a == (3, 1) and len(b) <= 3 and all(s <= 4 for s in b)
    assert np.broadcast_shapes(a, b)[-2] == 3  # b never stretches a's 3


@settings_fast
@given(gst.dtypes(kinds=("float", "bool")))
def test_dtypes_are_graphcell_dtypes_of_the_kinds_asked(dtype):
    assert dtype in (ms.float16, ms.float32, ms.float64, ms.bool_)


def test_dtypes_rejects_unknown_kinds():
    with pytest.raises(ValueError, match="kinds must be among float, int, uint, bool"):
        gst.dtypes(kinds=("complex",))


@settings_fast
@given(st.data())
def test_tensors_have_the_dtype_and_shape_asked(data):
    dtype = data.draw(gst.dtypes())
    shape = data.draw(gst.shapes(max_dims=3))
    t = data.draw(gst.tensors(dtype, shape=shape))
    assert isinstance(t, Tensor) and t.dtype == dtype and t.shape == shape
    if dtype.is_float:
        assert np.isfinite(t.asnumpy()).all()  # finite by default


@settings_fast
@given(gst.tensors(gst.dtypes(kinds="float"), shape=gst.shapes(max_dims=2)))
def test_tensors_take_strategies_for_dtype_and_shape(t):
    assert t.dtype.is_float and t.ndim <= 2 and np.isfinite(t.asnumpy()).all()


@settings_fast
@given(gst.tensors(ms.float32, shape=(4, 3), elements=(-0.1, 0.3)))
def test_tensor_elements_stay_in_bounds(t):
    assert t.dtype == ms.float32 and t.shape == (4, 3)
    assert ((t.asnumpy() >= -0.1) & (t.asnumpy() <= 0.3)).all()


@settings_fast
@given(gst.tensors(ms.float64, shape=(6,), elements=(-2, 2), min_magnitude=0.5))
def test_min_magnitude_keeps_floats_away_from_zero(t):
    v = t.asnumpy()
    assert (np.abs(v) >= 0.5).all() and (np.abs(v) <= 2).all()


@settings_fast
@given(gst.tensors(ms.int32, shape=(5,), elements=(-3, 3), unique=True))
def test_integer_tensors_bounded_and_unique(t):
    v = t.asnumpy()
    assert t.dtype == ms.int32 and ((v >= -3) & (v <= 3)).all() and len(set(v.tolist())) == 5


def test_impossible_bounds_are_reported():
    with pytest.raises(ValueError, match="hold no value of magnitude >= 5"):
        gst.elements_of(ms.float64, (-1, 1), min_magnitude=5)
