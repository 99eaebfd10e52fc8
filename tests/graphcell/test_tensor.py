"""Tensor construction, dtypes, operators, reductions, layout and indexing.

Expected dtypes and values were checked against MindSpore 2.10 (CPU).
"""
import subprocess
import sys

import numpy as np
import pytest

import graphcell as ms
from graphcell import Tensor
from graphcell_ir.errors import ShapeError


# --- construction ------------------------------------------------------------------------------

@pytest.mark.parametrize("data, dtype", [
    (1.5, ms.float32), (3, ms.int64), (True, ms.bool_),
    ([1, 2], ms.int64), ([1, 2.5], ms.float32), ([True, False], ms.bool_), ([[1.0], [2.0]], ms.float32),
    (np.array([1.5]), ms.float64), (np.array([1, 2], np.int32), ms.int32),
    (np.float32(2.0), ms.float32), (np.array([True]), ms.bool_),
])
def test_default_dtypes_follow_mindspore(data, dtype):
    assert Tensor(data).dtype == dtype


def test_explicit_dtype_casts_and_keeps_values():
    t = Tensor([1, 2, 3], ms.float32)
    assert t.dtype == ms.float32 and t.asnumpy().tolist() == [1.0, 2.0, 3.0]
    assert Tensor(np.ones((2, 2)), "float16").dtype == ms.float16
    assert Tensor(2, dtype=np.int32).dtype == ms.int32


def test_properties():
    t = Tensor(np.zeros((2, 3, 4), np.float32))
    assert (t.shape, t.ndim, t.size, t.dtype) == ((2, 3, 4), 3, 24, ms.float32)
    assert t.itemsize == 4 and t.nbytes == 96
    assert Tensor(2.0).shape == () and Tensor(2.0).item() == 2.0


def test_tensor_of_tensor_and_list_of_tensors():
    a = Tensor([1.0, 2.0])
    assert Tensor(a).asnumpy().tolist() == [1.0, 2.0]
    assert Tensor([Tensor(1.0), Tensor(2.0)]).shape == (2,)


def test_ragged_lists_raise_and_name_the_problem():
    with pytest.raises(ValueError, match="ragged"):
        Tensor([[1, 2], [3]])


@pytest.mark.parametrize("bad", ["abc", [1, "a"], {1: 2}, np.array(["x"]), 1 + 2j])
def test_unsupported_data_raises_type_error(bad):
    with pytest.raises(TypeError, match="Tensor"):
        Tensor(bad)


def test_shape_mismatch_with_given_shape():
    with pytest.raises(ValueError, match=r"shape \[2\]"):
        Tensor([1, 2], shape=(3,))


# --- promotion (MindSpore 2.x) -----------------------------------------------------------------

@pytest.mark.parametrize("a, b, add, div", [
    ("int32", "float32", ms.float32, ms.float32),
    ("int32", "int64", ms.int64, ms.float32),
    ("float32", "float64", ms.float64, ms.float64),
    ("uint8", "int8", ms.int16, ms.float32),
    ("float16", "float32", ms.float32, ms.float32),
    ("int64", "float16", ms.float16, ms.float16),
    ("bool", "bool", ms.bool_, ms.float32),
    ("bool", "int32", ms.int32, ms.float32),
])
def test_tensor_tensor_promotion(a, b, add, div):
    x, y = Tensor(np.array([1, 2], a)), Tensor(np.array([1, 2], b))
    assert (x + y).dtype == add and (x * y).dtype == add and (x / y).dtype == div


@pytest.mark.parametrize("tensor_dtype, scalar, expected", [
    ("int32", 1.5, ms.float32), ("int32", 1, ms.int32), ("bool", 1, ms.int64),
    ("bool", 1.5, ms.float32), ("float32", 1, ms.float32), ("int32", True, ms.int32),
    ("float16", 1.5, ms.float16),
])
def test_python_scalars_are_weak(tensor_dtype, scalar, expected):
    x = Tensor(np.array([1, 2], tensor_dtype))
    assert (x + scalar).dtype == expected
    assert (scalar + x).dtype == expected


def test_integer_division_and_floor_ops():
    a = Tensor([3, 4], ms.int32)
    assert (a / 2).dtype == ms.float32 and (a / 2).asnumpy().tolist() == [1.5, 2.0]
    assert (a // 2).dtype == ms.int32 and (a // 2).asnumpy().tolist() == [1, 2]
    assert (a % 2).asnumpy().tolist() == [1, 0]
    assert (-a).dtype == ms.int32 and abs(Tensor([-1, 2], ms.int32)).asnumpy().tolist() == [1, 2]


# --- operators ---------------------------------------------------------------------------------

def test_arithmetic_with_broadcasting():
    x = Tensor(np.arange(6, dtype=np.float32).reshape(2, 3))
    b = Tensor([1.0, 2.0, 3.0])
    np.testing.assert_allclose((x + b).asnumpy(), x.asnumpy() + b.asnumpy())
    np.testing.assert_allclose((2 - x).asnumpy(), 2 - x.asnumpy())
    np.testing.assert_allclose((x ** 2).asnumpy(), x.asnumpy() ** 2)
    np.testing.assert_allclose((x @ x.T).asnumpy(), x.asnumpy() @ x.asnumpy().T)


def test_numpy_operand_on_the_left_gives_a_tensor():
    out = np.ones(3, np.float32) + Tensor([1.0, 2.0, 3.0])
    assert isinstance(out, Tensor) and out.asnumpy().tolist() == [2.0, 3.0, 4.0]


def test_comparisons_give_bool_tensors():
    x = Tensor([1.0, 2.0, 3.0])
    for result in (x > 2, x >= 2, x < 2, x <= 2, x == 2, x != 2):
        assert isinstance(result, Tensor) and result.dtype == ms.bool_
    assert (x > 1.5).asnumpy().tolist() == [False, True, True]
    assert ((x > 1) & (x < 3)).asnumpy().tolist() == [False, True, False]


def test_tensors_hash_by_identity():
    a, b = Tensor([1.0]), Tensor([1.0])
    assert len({a, b}) == 2 and {a: 1}[a] == 1


def test_operands_that_do_not_broadcast_raise_naming_op_and_shapes():
    x = Tensor(np.ones((2, 3), np.float32))
    with pytest.raises(ValueError, match=r"Add: shapes \[2,3\] and \[4\] do not broadcast"):
        x + Tensor(np.ones(4, np.float32))
    with pytest.raises(ShapeError, match="Mul"):
        x * Tensor(np.ones((3, 2), np.float32))


def test_matmul_errors_name_the_contracted_sizes():
    with pytest.raises(ValueError, match="MatMul: cannot multiply x f32\\[2,3\\] by y f32\\[2,3\\]"):
        Tensor(np.ones((2, 3), np.float32)) @ Tensor(np.ones((2, 3), np.float32))


def test_unary_math_on_integers_gives_float32():
    assert Tensor([1, 4], ms.int32).sqrt().dtype == ms.float32
    np.testing.assert_allclose(Tensor([1.0, 4.0]).sqrt().asnumpy(), [1.0, 2.0])
    assert Tensor([0.0]).exp().asnumpy().tolist() == [1.0]


def test_division_by_zero_is_silent_like_mindspore():
    out = Tensor([1.0, 0.0]) / 0
    assert np.isinf(out.asnumpy()[0]) and np.isnan(out.asnumpy()[1])
    # pytest resets warning filters inside tests, so check a user's process: -W error turns any
    # RuntimeWarning numpy would print into a failure.
    code = "import graphcell as ms; (ms.Tensor([1.0, 0.0]) / 0); ms.Tensor([-1.0]).log(); print('ok')"
    run = subprocess.run([sys.executable, "-W", "error", "-c", code], capture_output=True, text=True)
    assert run.stdout.strip() == "ok", run.stderr


def test_astype():
    t = Tensor([1.7, -2.2]).astype(ms.int32)
    assert t.dtype == ms.int32 and t.asnumpy().tolist() == [1, -2]
    assert Tensor([1, 0]).astype("bool").dtype == ms.bool_


def test_bool_conversion_of_single_element_and_ambiguous():
    assert bool(Tensor([1.0]))
    with pytest.raises(ValueError, match="ambiguous"):
        bool(Tensor([1.0, 2.0]))


# --- reductions --------------------------------------------------------------------------------

def test_reductions_with_axis_and_keep_dims():
    a = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    x = Tensor(a)
    np.testing.assert_allclose(x.sum().asnumpy(), a.sum())
    np.testing.assert_allclose(x.sum(axis=1).asnumpy(), a.sum(axis=1))
    np.testing.assert_allclose(x.sum(axis=(0, 2), keepdims=True).asnumpy(), a.sum(axis=(0, 2), keepdims=True))
    np.testing.assert_allclose(x.mean(axis=-1, keep_dims=True).asnumpy(), a.mean(axis=-1, keepdims=True))
    np.testing.assert_allclose(x.max(axis=0).asnumpy(), a.max(axis=0))
    np.testing.assert_allclose(x.min().asnumpy(), a.min())


def test_reduction_dtypes_follow_mindspore():
    a = Tensor([1, 2], ms.int32)
    assert a.sum().dtype == ms.int64          # integer sums accumulate in Int64
    assert Tensor([True, True]).sum().dtype == ms.int64
    assert a.mean().dtype == ms.int32 and a.max().dtype == ms.int32
    assert Tensor([1.0, 2.0]).sum().dtype == ms.float32


def test_reduction_axis_out_of_range():
    with pytest.raises(ValueError, match="axis 3 is out of range"):
        Tensor(np.ones((2, 2))).sum(axis=3)


# --- layout ------------------------------------------------------------------------------------

def test_reshape_and_transpose():
    a = np.arange(6, dtype=np.float32)
    x = Tensor(a)
    assert x.reshape(2, 3).shape == (2, 3) and x.reshape((3, -1)).shape == (3, 2)
    np.testing.assert_array_equal(x.reshape(2, 3).transpose().asnumpy(), a.reshape(2, 3).T)
    np.testing.assert_array_equal(x.reshape(1, 2, 3).transpose(2, 0, 1).asnumpy(),
                                  a.reshape(1, 2, 3).transpose(2, 0, 1))
    assert x.reshape(2, 3).expand_dims(0).shape == (1, 2, 3)
    assert x.reshape(1, 6, 1).squeeze().shape == (6,)


def test_reshape_to_incompatible_size_raises_and_leaves_tensor_alone():
    x = Tensor(np.arange(6, dtype=np.float32))
    with pytest.raises(ValueError, match=r"Reshape: cannot reshape a tensor of shape \[6\] \(6 elements\) to \[4,2\]"):
        x.reshape(4, 2)
    assert x.shape == (6,)


def test_bad_transpose_permutation():
    # transpose(0, 0) is MindSpore 2.10's transpose(dim0, dim1): swapping a dim with itself
    assert Tensor(np.ones((2, 3))).transpose(0, 0).shape == (2, 3)
    with pytest.raises(ValueError, match="repeats a dimension"):
        Tensor(np.ones((2, 3))).transpose((0, 0))


# --- indexing ----------------------------------------------------------------------------------

@pytest.mark.parametrize("key", [
    1, -1, slice(1, 3), (slice(None), 1), (None, Ellipsis, slice(1, 3)), (Ellipsis, 0),
    (1, slice(None, None, -1)), (slice(None), None, 2),
])
def test_static_getitem_matches_numpy(key):
    a = np.arange(12, dtype=np.float32).reshape(3, 4)
    np.testing.assert_array_equal(Tensor(a)[key].asnumpy(), a[key])


def test_boolean_mask_and_integer_index_getitem():
    a = np.arange(12, dtype=np.float32).reshape(3, 4)
    x = Tensor(a)
    np.testing.assert_array_equal(x[x > 5].asnumpy(), a[a > 5])
    np.testing.assert_array_equal(x[Tensor([True, False, True])].asnumpy(), a[[True, False, True]])
    np.testing.assert_array_equal(x[Tensor([2, 0])].asnumpy(), a[[2, 0]])
    np.testing.assert_array_equal(x[:, Tensor([3, 1])].asnumpy(), a[:, [3, 1]])


def test_setitem_static_mask_and_index():
    a = np.arange(12, dtype=np.float32).reshape(3, 4)
    x = Tensor(a.copy())
    x[0] = 1.0
    x[1, 1:3] = Tensor([7.0, 8.0])
    x[x > 9] = 0
    expected = a.copy()
    expected[0] = 1.0
    expected[1, 1:3] = [7.0, 8.0]
    expected[expected > 9] = 0
    np.testing.assert_array_equal(x.asnumpy(), expected)
    x[Tensor([2])] = Tensor([[5.0, 5.0, 5.0, 5.0]])
    assert x.asnumpy()[2].tolist() == [5.0] * 4


def test_setitem_keeps_dtype():
    x = Tensor([1, 2, 3], ms.int32)
    x[0] = 9
    assert x.dtype == ms.int32 and x.asnumpy().tolist() == [9, 2, 3]


def test_index_errors_are_clear():
    x = Tensor(np.ones((2, 3)))
    with pytest.raises(IndexError):
        x["a"]
    with pytest.raises(ValueError, match="does not fit shape"):
        x[5]
    with pytest.raises(IndexError, match="boolean mask of shape"):
        x[Tensor([True, False, True])]
