"""Small cases whose expected values were printed by MindSpore 2.10 (CPU), the compatibility
oracle (DESIGN.md §10): the conventions the generic meta-tests cannot know — where "same" puts
its odd padding, what average pooling divides by, which tied maximum gets the gradient, which
variance the moving statistics use, what the random ops return.
"""
from __future__ import annotations

import numpy as np
import pytest

from graphcell_ir.errors import OpTypeError, ShapeError
from graphcell_ir.ir.types import TensorType, float32, float64, int32, int64
from graphcell_ir.ops import REGISTRY as R
from graphcell_ir.ops import random as op_random
from numpy_emitter import run_bprop


def _attrs(name, **attrs):
    return R[name].check_attrs(attrs)


def test_conv2d_same_pads_bottom_right():
    x = np.arange(25, dtype=np.float32).reshape(1, 1, 5, 5)
    w = np.ones((1, 1, 2, 2), np.float32)
    a = _attrs("conv2d", pad_mode="same", stride=(2, 2))
    y = R["conv2d"].ref(x, w, **a)
    np.testing.assert_array_equal(y[0, 0], [[12, 20, 13], [52, 60, 33], [41, 45, 24]])
    dx, _ = run_bprop(R["conv2d"], (x, w), a, y, np.ones_like(y))
    np.testing.assert_array_equal(dx, np.ones_like(x))
    y1 = R["conv2d"].ref(x, w, **_attrs("conv2d", pad_mode="same"))
    np.testing.assert_array_equal(y1[0, 0, -1], [41, 43, 45, 47, 24])


def test_pooling_same_mode():
    x = np.arange(36, dtype=np.float32).reshape(1, 1, 6, 6)
    a = _attrs("max_pool2d", kernel_size=(3,), strides=(2,), pad_mode="same")
    np.testing.assert_array_equal(R["max_pool2d"].ref(x, **a)[0, 0], [[14, 16, 17], [26, 28, 29], [32, 34, 35]])
    # average pooling divides by the number of real (unpadded) elements under the window
    np.testing.assert_array_equal(R["avg_pool2d"].ref(x, **a)[0, 0],
                                  [[7, 9, 10.5], [19, 21, 22.5], [28, 30, 31.5]])


def test_max_pool_gradient_goes_to_the_first_tied_maximum():
    op = R["max_pool2d"]
    for shape, attrs, want in [((2, 2), dict(kernel_size=(2,), strides=(2,)), [[1, 0], [0, 0]]),
                               ((3, 3), dict(kernel_size=(2,), strides=(1,)), [[1, 1, 0], [1, 1, 0], [0, 0, 0]])]:
        x = np.ones((1, 1) + shape, np.float32)
        a = op.check_attrs(attrs)
        out = op.ref(x, **a)
        (dx,) = run_bprop(op, (x,), a, out, np.ones_like(out))
        np.testing.assert_array_equal(dx[0, 0], want)


def test_batch_norm_training_statistics():
    x = np.array([[1., 2.], [3., 5.], [4., 0.]], np.float32)
    y, mean, var = R["batch_norm"].ref(x, np.ones(2, np.float32), np.zeros(2, np.float32),
                                       np.zeros(2, np.float32), np.ones(2, np.float32),
                                       **_attrs("batch_norm", is_training=True, momentum=0.1))
    np.testing.assert_allclose(y, [[-1.3363018, -0.16222118], [0.26726028, 1.2977698],
                                   [1.0690414, -1.1355485]], rtol=1e-5)
    np.testing.assert_allclose(mean, [0.26666668, 0.23333333], rtol=1e-6)
    np.testing.assert_allclose(var, [1.1333333, 1.5333333], rtol=1e-6)  # unbiased batch variance


def test_batch_norm_inference_keeps_statistics():
    x = np.ones((1, 2, 1, 1), np.float32)
    stats = (np.zeros(2, np.float32), np.ones(2, np.float32))
    a = _attrs("batch_norm")
    out = R["batch_norm"].ref(x, np.ones(2, np.float32), np.zeros(2, np.float32), *stats, **a)
    np.testing.assert_array_equal(out[1], stats[0])
    np.testing.assert_array_equal(out[2], stats[1])
    # the seed's hook example: d/dx through an inference BatchNorm2d is 1/sqrt(1 + 1e-5)
    dx = run_bprop(R["batch_norm"], (x, np.ones(2, np.float32), np.zeros(2, np.float32), *stats), a,
                   out, (np.ones_like(x), None, None))[0]
    np.testing.assert_allclose(dx.ravel(), [9.99994993e-01] * 2, rtol=1e-7)


def test_batch_norm_training_needs_two_values_per_channel():
    t = TensorType(float32, (3,))
    with pytest.raises(ShapeError, match="BatchNorm: training needs more than one value"):
        R["batch_norm"].infer_types(TensorType(float32, (1, 3, 1, 1)), t, t, t, t, is_training=True,
                                    epsilon=1e-5, momentum=0.1, data_format="NCHW")


def test_softmax_cross_entropy_results():
    loss, back = R["softmax_cross_entropy"].ref(np.array([[1., 2., 3.]], np.float32),
                                                np.array([[0., 0., 1.]], np.float32))
    np.testing.assert_allclose(loss, [0.40760595], rtol=1e-6)
    np.testing.assert_allclose(back, [[0.09003057, 0.24472848, -0.33475906]], rtol=1e-6)


def test_sparse_cross_entropy_rejects_out_of_range_labels():
    with pytest.raises(ShapeError, match="label 7 is out of range for 4 classes"):
        R["sparse_softmax_cross_entropy"].ref(np.zeros((2, 4), np.float32), np.array([1, 7], np.int32))


def test_one_hot_out_of_range_is_all_off():
    out = R["one_hot"].ref(np.array([0, 2, 5, -1], np.int32),
                           **_attrs("one_hot", depth=3, on_value=2.0, off_value=-1.0, axis=0))
    np.testing.assert_array_equal(out, [[2, -1, -1, -1], [-1, -1, -1, -1], [-1, 2, -1, -1]])


def test_argmax_default_output_type_is_int32():
    x = TensorType(float32, (2, 3))
    assert R["argmax"].infer_types(x, **_attrs("argmax")) == TensorType(int32, (2,))


def test_dropout_results_and_seeding():
    x = np.ones((4, 6, 3, 3), np.float32)
    op_random.seed(3)
    out, mask = R["dropout2d"].ref(x, keep_prob=0.5)
    assert mask.dtype == np.bool_ and mask.shape == x.shape
    assert (mask == mask[:, :, :1, :1]).all(), "Dropout2D drops whole channels"
    np.testing.assert_array_equal(out, np.where(mask, 2.0, 0.0))
    op_random.seed(3)
    np.testing.assert_array_equal(R["dropout2d"].ref(x, keep_prob=0.5)[1], mask)
    out, mask = R["dropout"].ref(np.ones((2000,), np.float32), **_attrs("dropout", keep_prob=0.8))
    assert mask.dtype == np.float32 and 0.75 < mask.mean() < 0.85
    np.testing.assert_array_equal(out, mask * np.float32(1.25))
    ints = R["dropout2d"].ref(np.full((1, 8, 1, 1), 3, np.int32), keep_prob=0.4)[0]
    assert set(np.unique(ints)) <= {0, 7}  # 3 / 0.4 truncates to 7, as in MindSpore


@pytest.mark.parametrize("var,value,ok", [(float32, int64, True), (float32, float64, False),
                                          (int64, int32, True), (int32, int64, False),
                                          (float64, float32, True), (int32, float32, False)])
def test_assign_dtype_rules(var, value, ok):
    args = TensorType(var, (3,)), TensorType(value, (3,))
    if ok:
        assert R["assign"].infer_types(*args) == args[0]
    else:
        with pytest.raises(OpTypeError, match="Assign: cannot assign"):
            R["assign"].infer_types(*args)
