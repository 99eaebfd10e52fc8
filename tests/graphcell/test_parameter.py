"""Parameter and ParameterTuple: construction, naming, set_data, clone, printing, bad input.

Dtypes, names and printed forms were checked against MindSpore 2.10 (CPU).
"""
import copy
import pickle

import numpy as np
import pytest

import graphcell as ms
from graphcell import Parameter, ParameterTuple, Tensor
from graphcell.common.initializer import initializer


def snapshot(p):
    """Everything a failed call must leave unchanged."""
    return (p.asnumpy().copy(), p.shape, p.dtype, p.name, p.requires_grad, p.sliced)


def assert_unchanged(p, before):
    data, shape, dtype, name, requires_grad, sliced = before
    assert (p.shape, p.dtype, p.name, p.requires_grad, p.sliced) == (shape, dtype, name,
                                                                     requires_grad, sliced)
    np.testing.assert_array_equal(p.asnumpy(), data)


# --- construction ------------------------------------------------------------------------------

@pytest.mark.parametrize("default_input, shape, dtype", [
    (Tensor(np.ones((5, 3)), ms.float32), (5, 3), ms.float32),
    (np.ones(3), (3,), ms.float64),               # numpy keeps its dtype
    (np.arange(6).reshape(2, 3), (2, 3), ms.int64),
    ([1, 2], (2,), ms.int64),
    (2.0, (), ms.float32),                        # the seed's Parameter(default_input=2.0)
    (2, (), ms.int32),                            # MindSpore makes a Python int Int32
    (initializer("ones", [1, 2, 3], ms.float32), (1, 2, 3), ms.float32),
])
def test_default_input_kinds(default_input, shape, dtype):
    p = Parameter(default_input, name="p")
    assert isinstance(p, Tensor) and isinstance(p, Parameter)
    assert (p.shape, p.dtype) == (shape, dtype)


def test_parameter_copies_its_input():
    source = Tensor([1.0, 2.0])
    p = Parameter(source, name="p")
    p[0] = 5.0
    source.asnumpy()[1] = 9.0
    assert p.asnumpy().tolist() == [5.0, 2.0] and source.asnumpy().tolist() == [1.0, 9.0]


def test_bool_default_input_is_refused():
    with pytest.raises(ValueError, match="bool"):
        Parameter(True)


@pytest.mark.parametrize("bad, shown", [("abc", "str 'abc'"), (None, "NoneType None"),
                                        ({1: 2}, "dict")])
def test_unsupported_default_input_names_what_came(bad, shown):
    with pytest.raises(TypeError, match=f"Parameter: default_input must be .*got {shown}"):
        Parameter(bad)


def test_flags_and_defaults():
    p = Parameter(Tensor([1.0]), name="p")
    assert (p.requires_grad, p.layerwise_parallel, p.parallel_optimizer) == (True, False, True)
    assert Parameter(Tensor([1.0]), requires_grad=False).requires_grad is False
    p.requires_grad = False
    assert p.requires_grad is False


@pytest.mark.parametrize("kwargs, what", [({"requires_grad": 1}, "requires_grad"),
                                          ({"layerwise_parallel": "no"}, "layerwise_parallel"),
                                          ({"parallel_optimizer": None}, "parallel_optimizer")])
def test_flags_must_be_bool(kwargs, what):
    with pytest.raises(TypeError, match=f"{what} must be a bool"):
        Parameter(Tensor([1.0]), name="p", **kwargs)


# --- names ---------------------------------------------------------------------------------------

def test_unnamed_parameters_get_increasing_default_names():
    a, b = Parameter(Tensor([1.0])), Parameter(Tensor([1.0]))
    assert a.name.startswith("Parameter#") and b.name.startswith("Parameter#")
    assert int(b.name[len("Parameter#"):]) == int(a.name[len("Parameter#"):]) + 1


def test_name_setter():
    p = Parameter(Tensor([1.0]), name="  w  ")
    assert p.name == "w"
    p.name = "new"
    assert p.name == "new"
    p.name = ""
    assert p.name.startswith("Parameter#")
    p.name = None
    assert p.name.startswith("Parameter#")


@pytest.mark.parametrize("bad, error", [(3, ValueError), ("x" * 1025, ValueError)])
def test_bad_names(bad, error):
    p = Parameter(Tensor([1.0]), name="keep")
    with pytest.raises(error, match="Parameter: "):
        p.name = bad
    assert p.name == "keep"


# --- printing --------------------------------------------------------------------------------------

def test_repr_and_str_are_mindspores():
    p = Parameter(Tensor(np.ones((5, 3)), ms.float32), name="w")
    text = "Parameter (name=w, shape=(5, 3), dtype=Float32, requires_grad=True)"
    assert repr(p) == text and str(p) == text and f"{p}" == text
    assert str([p]) == f"[{text}]"
    assert repr(Parameter(2.0, name="z", requires_grad=False)) == \
        "Parameter (name=z, shape=(), dtype=Float32, requires_grad=False)"
    assert repr(Parameter(Tensor([1, 2, 3]), name="b")) == \
        "Parameter (name=b, shape=(3,), dtype=Int64, requires_grad=True)"


# --- Tensor behaviour ----------------------------------------------------------------------------

def test_operators_give_plain_tensors():
    p = Parameter(Tensor([1.0, 2.0]), name="p")
    out = p * 2 + 1
    assert type(out) is Tensor and out.asnumpy().tolist() == [3.0, 5.0]
    assert type(ms.ops.matmul(Tensor([[1.0, 1.0]]), p.reshape(2, 1))) is Tensor


def test_index_assignment_changes_the_parameter_in_place():
    p = Parameter(Tensor([1.0, 2.0, 3.0]), name="b")
    p[0] = 7.0
    assert p.asnumpy().tolist() == [7.0, 2.0, 3.0] and isinstance(p, Parameter)


def test_parameters_hash_by_identity():
    a = Parameter(Tensor([1.0]), name="a")
    b = Parameter(Tensor([1.0]), name="b")
    grads = {a: 1, b: 2}
    assert grads[a] == 1 and grads[b] == 2 and len({a, b, a}) == 2
    assert hash(a) == hash(a) and hash(a) != hash(b)


def test_equality_is_element_wise_as_in_mindspore():
    a = Parameter(Tensor([1.0, 2.0]), name="a")
    assert (a == Tensor([1.0, 0.0])).asnumpy().tolist() == [True, False]


def test_data_is_the_parameter_and_assigning_it_sets_data():
    p = Parameter(Tensor([1.0, 2.0]), name="p")
    assert p.data is p
    p.data = Tensor([4.0, 5.0, 6.0])
    assert p.asnumpy().tolist() == [4.0, 5.0, 6.0]


def test_init_data_and_value():
    p = Parameter(initializer("zeros", [2]), name="p")
    assert p.init_data() is p and p.has_init is False
    v = p.value()
    assert type(v) is Tensor and v.asnumpy().tolist() == [0.0, 0.0]


# --- set_data ------------------------------------------------------------------------------------

def test_set_data_same_shape_returns_the_parameter():
    p = Parameter(Tensor([1.0, 2.0, 3.0]), name="b")
    assert p.set_data(Tensor([3.0, 4.0, 5.0])) is p
    assert p.asnumpy().tolist() == [3.0, 4.0, 5.0]


def test_set_data_casts_to_the_parameters_dtype():
    p = Parameter(Tensor([1.0, 2.0, 3.0], ms.float32), name="b")
    p.set_data(Tensor([3, 4, 5]))          # Int64 in, Float32 kept (the seed prints [3. 4. 5.])
    assert p.dtype == ms.float32 and str(p.asnumpy()) == "[3. 4. 5.]"
    i = Parameter(Tensor([1, 2], ms.int32), name="i")
    i.set_data(Tensor([2.5, 3.7]))         # float into int truncates, as MindSpore's cast
    assert i.dtype == ms.int32 and i.asnumpy().tolist() == [2, 3]


def test_set_data_takes_the_new_shape():
    p = Parameter(Tensor([1.0, 2.0, 3.0]), name="b")
    p.set_data(Tensor([[1.0, 2.0], [3.0, 4.0]]))
    assert p.shape == (2, 2)


def test_set_data_with_a_number_makes_a_0d_parameter():
    p = Parameter(Tensor([1.0, 2.0, 3.0]), name="b")
    p.set_data(2)
    assert (p.shape, p.dtype, p.item()) == ((), ms.float32, 2.0)
    p.set_data(True)
    assert p.item() == 1.0


def test_set_data_does_not_alias_its_input():
    source = Tensor([1.0, 2.0])
    p = Parameter(Tensor([0.0, 0.0]), name="p").set_data(source)
    source.asnumpy()[0] = 100.0
    assert p.asnumpy().tolist() == [1.0, 2.0]


def test_set_data_slice_shape_sets_sliced():
    p = Parameter(Tensor([1.0]), name="p")
    assert p.set_data(Tensor([2.0]), slice_shape=True).sliced is True


def test_set_data_with_an_initializer_result():
    p = Parameter(Tensor([1.0, 2.0]), name="p")
    p.set_data(initializer("ones", [4]))
    assert p.asnumpy().tolist() == [1.0, 1.0, 1.0, 1.0]


@pytest.mark.parametrize("bad, shown", [
    ([1, 2, 3], "list [1, 2, 3]"), (np.ones(3), "ndarray"), ("x", "str 'x'"),
    (None, "NoneType None"), ((1.0,), "tuple")])
def test_set_data_rejects_non_tensors_and_changes_nothing(bad, shown):
    p = Parameter(Tensor([1.0, 2.0, 3.0]), name="b")
    before = snapshot(p)
    with pytest.raises(TypeError) as info:
        p.set_data(bad)
    message = str(info.value)
    assert "Parameter.set_data" in message and "'b'" in message
    assert "expects a Tensor, int or float" in message and f"got {shown}" in message
    assert_unchanged(p, before)


def test_set_data_float_into_int_parameter_raises_and_changes_nothing():
    p = Parameter(Tensor([1, 2, 3], ms.int32), name="i")
    before = snapshot(p)
    with pytest.raises(TypeError, match=r"Parameter.set_data: parameter 'i' has dtype Int32 .*2.5"):
        p.set_data(2.5)
    assert_unchanged(p, before)


# --- clone and copies --------------------------------------------------------------------------

def test_clone_copies_name_flags_and_values():
    p = Parameter(Tensor([1.0, 2.0]), name="w", requires_grad=False, layerwise_parallel=True)
    c = p.clone()
    assert c is not p and type(c) is Parameter
    assert (c.name, c.requires_grad, c.layerwise_parallel) == ("w", False, True)
    c[0] = 9.0
    assert p.asnumpy().tolist() == [1.0, 2.0]
    assert p.copy().name == "w"


@pytest.mark.parametrize("init, expected", [("zeros", [0.0, 0.0]), ("ones", [1.0, 1.0]),
                                            (3, [3.0, 3.0]), (Tensor([5.0, 6.0]), [5.0, 6.0])])
def test_clone_with_init(init, expected):
    p = Parameter(Tensor([1.0, 2.0]), name="w")
    c = p.clone(init=init)
    assert c.asnumpy().tolist() == expected and c.dtype == ms.float32
    assert p.asnumpy().tolist() == [1.0, 2.0]


def test_clone_with_unknown_init_raises_and_changes_nothing():
    p = Parameter(Tensor([1.0, 2.0]), name="w")
    before = snapshot(p)
    with pytest.raises(ValueError, match="unknown initializer name 'bogus'"):
        p.clone(init="bogus")
    assert_unchanged(p, before)


def test_deepcopy_and_pickle_keep_name_and_values():
    p = Parameter(Tensor([1.0, 2.0]), name="p", requires_grad=False)
    for other in (copy.deepcopy(p), pickle.loads(pickle.dumps(p))):
        assert other is not p and type(other) is Parameter
        assert repr(other) == repr(p) and other.asnumpy().tolist() == [1.0, 2.0]


# --- ParameterTuple ------------------------------------------------------------------------------

def seed_params():
    x = Parameter(default_input=Tensor(np.arange(2 * 3).reshape((2, 3))), name="x")
    y = Parameter(default_input=initializer("ones", [1, 2, 3], ms.float32), name="y")
    z = Parameter(default_input=2.0, name="z")
    return ParameterTuple((x, y, z))


def test_parameter_tuple_is_a_tuple_with_mindsporess_repr():
    params = seed_params()
    assert isinstance(params, tuple) and type(params) is ParameterTuple and len(params) == 3
    assert repr(params) == (
        "(Parameter (name=x, shape=(2, 3), dtype=Int64, requires_grad=True), "
        "Parameter (name=y, shape=(1, 2, 3), dtype=Float32, requires_grad=True), "
        "Parameter (name=z, shape=(), dtype=Float32, requires_grad=True))")


def test_parameter_tuple_clone_prefixes_names_and_copies():
    params = seed_params()
    copied = params.clone("params_copy")
    assert type(copied) is ParameterTuple
    assert [p.name for p in copied] == ["params_copy.x", "params_copy.y", "params_copy.z"]
    assert [p.name for p in params] == ["x", "y", "z"]
    assert all(c is not p for c, p in zip(copied, params))
    np.testing.assert_array_equal(copied[0].asnumpy(), params[0].asnumpy())


def test_parameter_tuple_clone_with_init():
    copied = seed_params().clone("c", init="zeros")
    assert all(not p.asnumpy().any() for p in copied)
    assert copied[0].dtype == ms.int64


def test_parameter_tuple_from_any_iterable_and_empty():
    a = Parameter(Tensor([1.0]), name="a")
    assert ParameterTuple(p for p in [a]) == (a,)
    assert ParameterTuple(()) == ()


def test_parameter_tuple_rejects_duplicate_names_of_different_parameters():
    a, a2 = Parameter(Tensor([1.0]), name="a"), Parameter(Tensor([2.0]), name="a")
    with pytest.raises(ValueError, match=r"two different Parameters are named 'a' \(items 0 and 1\)"):
        ParameterTuple((a, a2))


def test_parameter_tuple_accepts_the_same_parameter_twice_and_clones_it_once():
    a = Parameter(Tensor([1.0]), name="a")
    pt = ParameterTuple((a, a))
    copied = pt.clone("c")
    assert copied[0] is copied[1] and copied[0].name == "c.a"


def test_parameter_tuple_rejects_non_parameters():
    a = Parameter(Tensor([1.0]), name="a")
    with pytest.raises(TypeError, match="item 1 is Tensor"):
        ParameterTuple((a, Tensor([1.0])))


@pytest.mark.parametrize("prefix, error, match", [
    (3, TypeError, "prefix must be a str"), ("a b", ValueError, "prefix 'a b' is not a valid"),
    ("", ValueError, "prefix '' is not a valid"), (".x", ValueError, r"prefix '\.x' is not a valid")])
def test_parameter_tuple_clone_checks_the_prefix(prefix, error, match):
    params = seed_params()
    with pytest.raises(error, match=f"ParameterTuple.clone: {match}"):
        params.clone(prefix)
    assert [p.name for p in params] == ["x", "y", "z"]
