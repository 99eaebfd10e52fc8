"""The index family beyond the golden cases: in-place scatters writing Parameters in both modes,
names whose output shape depends on the data (refused in graph mode at the user's line), and the
names MindSpore 2.10's CPU build refuses but graphcell provides."""
import numpy as np
import pytest

import graphcell as ms
from graphcell import Parameter, Tensor, nn, ops
from graphcell.testing import check_grads
from graphcell_ir.errors import GraphCompileError


def f32(values):
    return Tensor(np.array(values, np.float32))


def i32(values):
    return Tensor(np.array(values, np.int32))


class _Scatter(nn.Cell):
    """Updates its Parameter in construct, as MindSpore's optimizers and caches do."""

    def __init__(self, prim):
        super().__init__()
        self.table = Parameter(f32(np.zeros((3, 2))), name="table")
        self.prim = prim

    def construct(self, indices, updates):
        out = self.prim(self.table, indices, updates)
        return out * 1


@pytest.mark.parametrize("mode", [ms.PYNATIVE_MODE, ms.GRAPH_MODE])
@pytest.mark.parametrize("prim, indices, want", [
    (ops.ScatterUpdate(), i32([0, 2]), [[1, 1], [0, 0], [1, 1]]),
    (ops.ScatterAdd(), i32([0, 0]), [[2, 2], [0, 0], [0, 0]]),
    (ops.ScatterNdAdd(), i32([[1], [1]]), [[0, 0], [2, 2], [0, 0]]),
    (ops.IndexAdd(axis=0), i32([2, 2]), [[0, 0], [0, 0], [2, 2]]),
])
def test_inplace_scatters_write_their_parameter_in_both_modes(mode, prim, indices, want):
    ms.set_context(mode=mode)
    try:
        net = _Scatter(prim)
        out = net(indices, f32(np.ones((2, 2))))
        np.testing.assert_array_equal(out.asnumpy(), want)
        np.testing.assert_array_equal(net.table.asnumpy(), want)
        net(indices, f32(np.ones((2, 2))))  # a second call starts from the written value
        np.testing.assert_array_equal(net.table.asnumpy(), np.array(want) * (
            1 if isinstance(prim, ops.ScatterUpdate) else 2))
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)


def test_inplace_scatter_writes_a_plain_tensor_in_pynative_as_mindspore():
    x = f32(np.zeros((3, 2)))
    out = ops.scatter_max(x, i32([1]), f32([[4, -1]]))
    np.testing.assert_array_equal(x.asnumpy(), [[0, 0], [4, 0], [0, 0]])
    np.testing.assert_array_equal(out.asnumpy(), x.asnumpy())


def test_functional_scatters_leave_their_input_alone():
    x = f32(np.zeros((2, 2)))
    ops.tensor_scatter_add(x, i32([[0, 1]]), f32([3]))
    ops.inplace_update(x, f32([[1, 1]]), (0,))
    assert not x.asnumpy().any()


@pytest.mark.parametrize("call", [
    lambda x: ops.masked_select(x, x > 0),
    lambda x: ops.argwhere(x),
    lambda x: ops.nonzero(x),
    lambda x: x.nonzero(),
])
def test_data_dependent_shapes_run_in_pynative_and_are_refused_in_graph_mode(call):
    x = f32([[0, 1], [2, 0]])
    assert call(x).shape[0] == 2

    @ms.jit
    def compiled(x):
        return call(x)
    with pytest.raises(GraphCompileError, match="depends on the values"):
        compiled(x)


def test_nonzero_as_tuple_gives_one_index_per_axis():
    rows, cols = ops.nonzero(f32([[0, 1], [2, 0]]), as_tuple=True)
    assert rows.asnumpy().tolist() == [0, 1] and cols.asnumpy().tolist() == [1, 0]
    assert rows.dtype == ms.int64


def test_tensor_index_is_advanced_indexing():
    """MindSpore 2.10's CPU build refuses Tensor.index (Ascend only); graphcell provides it."""
    x = f32(np.arange(6).reshape(2, 3))
    out = x.index((Tensor(np.array([1, 0])), Tensor(np.array([2, -1]))))
    assert out.asnumpy().tolist() == [5.0, 2.0]
    with pytest.raises(TypeError, match="tuple of integer Tensors"):
        x.index(Tensor(np.array([1])))


def test_tensor_scatter_add_with_dim_adds_along_it():
    """The (dim, index, src) overload, which MindSpore 2.10's CPU build has no kernel for."""
    x = f32(np.zeros((2, 3)))
    out = x.scatter_add(1, Tensor(np.array([[0, 0], [2, 1]])), f32([[1, 2], [3, 4]]))
    assert out.asnumpy().tolist() == [[3, 0, 0], [0, 4, 3]]


def test_take_raise_mode_refuses_an_index_out_of_range():
    x = f32(np.arange(6))
    assert x.take(i32([5, -1]), mode="raise").asnumpy().tolist() == [5.0, 5.0]
    with pytest.raises(ValueError, match="out of range"):
        x.take(i32([6]), mode="raise")


@pytest.mark.parametrize("mode", ["pynative", "graph"])
def test_index_fill_differentiates_a_tensor_value(mode):
    """MindSpore 2.10 gives the value no gradient; graphcell differentiates what it computes."""
    index = i32([0, 2])

    def f(x, value):
        return (ops.index_fill(x, 1, index, value) * f32([[1, 2, 3], [4, 5, 6]])).sum()
    fn = ms.jit(f) if mode == "graph" else f
    _, grads = ms.value_and_grad(fn, grad_position=(0, 1))(f32(np.ones((2, 3))), f32(0.5))
    assert grads[1].asnumpy() == 1 + 3 + 4 + 6
    report = check_grads(fn, (Tensor(np.ones((2, 3))), Tensor(np.array(0.5))))
    assert report.passed, str(report)


@pytest.mark.parametrize("mode", ["pynative", "graph"])
@pytest.mark.parametrize("name", ["scatter_update", "scatter_max", "scatter_mul", "scatter_div"])
def test_inplace_scatter_gradients_are_derivatives(mode, name):
    """MindSpore 2.10 passes ScatterUpdate/Max's whole cotangent to input_x and has no gradient
    for the others; graphcell's are checked against finite differences."""
    indices = i32([0, 2])
    fn_ = getattr(ops, name)

    def f(x, updates):
        return (fn_(x * 1, indices, updates) * Tensor(np.arange(6.0).reshape(3, 2))).sum()
    fn = ms.jit(f) if mode == "graph" else f
    x = Tensor(np.array([[1.0, -2.0], [0.5, 3.0], [2.0, 1.5]]))
    report = check_grads(fn, (x, Tensor(np.array([[1.5, -1.0], [0.7, 2.5]]))))
    assert report.passed, str(report)


_A = np.arange(24, dtype=np.float32).reshape(2, 3, 4)


@pytest.mark.parametrize("key", [
    (np.array([1, 0]), np.array([2, -1])),
    (np.array([1, 0]), slice(1, None)),
    (slice(None), np.array([[0, 2]]), 1),
    (_A[:, :, 0] > 5, 1),
    (0, np.array([True, False, True])),
    (Ellipsis, np.array([3, 0])),
    ([1, 0], [0, 2], [3, 3]),
], ids=["two-tensors", "tensor-and-slice", "tensor-between", "mask-and-int", "int-and-mask",
        "ellipsis", "lists"])
def test_pynative_indexing_follows_numpy_for_any_advanced_key(key):
    as_tensors = tuple(Tensor(k) if isinstance(k, np.ndarray) else k for k in key)
    np.testing.assert_array_equal(Tensor(_A)[as_tensors].asnumpy(), _A[key])
    x, want = Tensor(_A.copy()), _A.copy()
    x[as_tensors] = -1.0
    want[key] = -1.0
    np.testing.assert_array_equal(x.asnumpy(), want)


def test_advanced_indexing_gradients_reach_the_tensor_and_the_value():
    rows, cols = Tensor(np.array([1, 1])), Tensor(np.array([0, 0]))
    g = ms.grad(lambda t: (t[rows, cols] * 2).sum())(Tensor(_A))
    assert g.asnumpy()[1, 0].tolist() == [4.0] * 4 and g.asnumpy().sum() == 16  # twice, x2

    def f(t, v):
        t = t * 1
        t[Tensor(np.array([1, 0])), 1:] = v
        return (t * t).sum()
    report = check_grads(f, (Tensor(_A.astype(np.float64)), Tensor(np.ones(4))))
    assert report.passed, str(report)


def test_scatter_non_aliasing_add_is_a_functional_nd_add():
    """MindSpore 2.10's CPU build fails to launch ScatterNonAliasingAdd; graphcell provides it."""
    x = f32([1, 2, 3])
    out = ops.ScatterNonAliasingAdd()(x, i32([[0], [0], [2]]), f32([1, 1, 5]))
    assert out.asnumpy().tolist() == [3, 2, 8] and x.asnumpy().tolist() == [1, 2, 3]
