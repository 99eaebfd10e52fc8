"""The hot path of a compiled call (``cache.py``, ``guards.py``, ``bridge.py``) against a fresh
compile: whatever a call skips (binding ``*inputs`` through ``inspect``, the hook tables of every
cell, the shapes and dtypes of Parameter arrays it knows by identity), a change the compiled
version depends on gives the results a fresh compile of the same cell gives, and a change it
does not depend on costs no compile."""
import copy

import numpy as np
import pytest

import graphcell as ms
from graphcell import nn, ops, Tensor
from graphcell.graph.bridge import cell_staged


def f32(*shape, seed=0):
    return Tensor(np.random.RandomState(seed).randn(*shape).astype(np.float32))


def log_of(obj):
    info = ms.graph.cache_info(obj)
    return info.hits, info.misses, info.reasons


def fresh(net, *args):
    """What a fresh compile of ``net`` as it is now returns (a deep copy starts uncompiled,
    with copies of the same Parameters and attributes)."""
    twin = copy.deepcopy(net)
    out = twin(*args)
    assert log_of(twin)[:2] == (0, 1)
    return out


def assert_same(a, b):
    np.testing.assert_array_equal(a.asnumpy(), b.asnumpy())
    assert a.dtype == b.dtype


class Affine(nn.Cell):
    """Reads a Parameter, a plain attribute, a sub-cell and its training flag."""

    def __init__(self):
        super().__init__()
        self.w = ms.Parameter(Tensor(np.arange(3, dtype=np.float32)), name="w")
        self.scale = 2.0
        self.act = nn.ReLU()

    def construct(self, *inputs):
        x = inputs[0] * self.scale + self.w
        if self.training:
            x = x * 3.0
        for extra in inputs[1:]:
            x = x + extra
        return self.act(x)


@pytest.fixture
def net(graph_mode):
    n = Affine()
    n(f32(2, 3))
    n(f32(2, 3))
    assert log_of(n) == (1, 1, ["first call"])
    return n


def test_varargs_call_by_position_takes_any_count(net):
    x, y = f32(2, 3), f32(2, 3, seed=1)
    assert_same(net(x, y), fresh(net, x, y))
    assert_same(net(x, y, y), fresh(net, x, y, y))
    assert log_of(net)[1] == 3
    with pytest.raises(TypeError, match="Affine.construct"):
        net(x, bogus=1)


def test_defaults_are_still_filled_in(graph_mode):
    class Defaults(nn.Cell):
        def construct(self, x, k=2.0, *rest):
            return x * k + len(rest)

    cell = Defaults()
    x = f32(2)
    np.testing.assert_allclose(cell(x).asnumpy(), x.asnumpy() * 2.0, rtol=1e-6)
    np.testing.assert_allclose(cell(x, 3.0, 1, 1).asnumpy(), x.asnumpy() * 3.0 + 2, rtol=1e-6)
    np.testing.assert_allclose(cell(x).asnumpy(), x.asnumpy() * 2.0, rtol=1e-6)
    assert log_of(cell)[:2] == (1, 2)


@pytest.mark.parametrize("change, reason", [
    (lambda n: n.w.set_data(Tensor(np.ones((1,), np.float32))),
     "parameter shape changed: w f32[3] -> f32[1]"),
    (lambda n: n.w.set_dtype(ms.float64), "parameter shape changed: w f32[3] -> f64[3]"),
    (lambda n: n.w.assign_value(Tensor(np.ones((1,), np.float16))),
     "parameter shape changed: w f32[3] -> f16[1]"),
])
def test_parameter_shape_or_dtype_change_matches_a_fresh_compile(net, change, reason):
    x = f32(2, 3)
    change(net)
    out = net(x)
    assert log_of(net)[2][-1] == reason
    assert_same(out, fresh(net, x))
    assert_same(net(x), out)            # the new version is the one kept
    assert log_of(net)[:2] == (2, 2)


@pytest.mark.parametrize("change", [
    lambda w: w.set_data(Tensor(np.full(3, 7.0, np.float32))),   # a new array
    lambda w: w.copy_(Tensor(np.full(3, 7.0, np.float32))),
    lambda w: w.asnumpy().__setitem__(Ellipsis, 7.0),             # numpy writes, if it shares
])
def test_parameter_values_of_the_same_shape_are_read_without_a_compile(net, change):
    x = f32(2, 3)
    change(net.w)
    out = net(x)
    assert log_of(net)[:2] == (2, 1)
    assert_same(out, fresh(net, x))


def test_attribute_the_graph_reads_matches_a_fresh_compile(net):
    x = f32(2, 3)
    net.scale = 5.0
    out = net(x)
    assert log_of(net)[2][-1] == "attribute changed: Affine.scale: 2.0 -> 5.0"
    assert_same(out, fresh(net, x))


def test_train_and_eval_match_a_fresh_compile(net):
    x = f32(2, 3)
    for mode in (True, False, True):
        net.set_train(mode)
        assert_same(net(x), fresh(net, x))
    assert log_of(net)[1] == 2        # each flag compiled once


@pytest.mark.parametrize("arg", [
    Tensor(np.ones((2, 3), np.float64)),          # another dtype
    Tensor(np.ones((4, 3), np.float32)),          # another shape
    Tensor(np.ones((2, 2, 3), np.float32)),       # another rank
    Tensor(np.float32(2.0)),                      # a 0-d Tensor
    3.0,                                          # a Python number: a constant of the graph
    2,
])
def test_argument_signatures_match_a_fresh_compile(net, arg):
    out = net(arg)
    assert log_of(net)[1] == 2
    assert_same(out, fresh(net, arg))
    assert_same(net(arg), out)
    assert log_of(net)[:2] == (2, 2)


def test_numpy_argument_is_refused_as_by_a_fresh_compile(net):
    with pytest.raises(TypeError, match="numpy ndarray cannot be passed"):
        net(np.ones((2, 3), np.float32))
    with pytest.raises(TypeError, match="numpy ndarray cannot be passed"):
        copy.deepcopy(net)(np.ones((2, 3), np.float32))
    assert log_of(net)[:2] == (1, 1)


def test_hook_on_a_cell_the_call_never_met_costs_no_compile(net):
    other = nn.Dense(3, 3)
    handle = other.register_forward_hook(lambda c, i, o: o)
    handle.remove()
    net(f32(2, 3))
    assert log_of(net)[:2] == (2, 1)
    x = f32(2, 3)
    handle = net.act.register_forward_hook(lambda cell, inputs, out: out * 0.0)   # then a met one
    out = net(x)
    assert log_of(net)[2][-1] == "forward hooks registered on ReLU"
    np.testing.assert_array_equal(out.asnumpy(), 0.0)
    handle.remove()
    assert_same(net(x), fresh(net, x))
    assert log_of(net)[1] == 2           # the first version again, its guard refreshed


def test_hook_on_a_sub_cell_matches_a_fresh_compile(net):
    x = f32(2, 3)
    handle = net.act.register_forward_hook(lambda cell, inputs, out: out + 1.0)
    out = net(x)
    assert log_of(net)[2][-1] == "forward hooks registered on ReLU"
    assert_same(out, fresh(net, x))
    handle.remove()
    back = net(x)
    assert_same(back, fresh(net, x))
    np.testing.assert_allclose(out.asnumpy() - back.asnumpy(), 1.0, rtol=1e-6)


def _train_step(seed=0):
    ms.set_seed(seed)
    net = nn.SequentialCell([nn.Dense(4, 8), nn.ReLU(), nn.Dense(8, 3)])
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    step = nn.TrainOneStepCell(nn.WithLossCell(net, loss), nn.Momentum(net.trainable_params(),
                                                                        0.1, 0.9))
    return step.set_train()


def test_train_step_updates_the_parameters_user_references_see(graph_mode):
    x = f32(5, 4)
    y = Tensor(np.array([0, 1, 2, 1, 0], np.int32))
    step = _train_step()
    twin = copy.deepcopy(step)          # compiled afresh, stepped alongside
    weight = step.network._backbone[0].weight      # a user's reference
    for _ in range(4):
        assert_same(step(x, y), twin(x, y))
        np.testing.assert_array_equal(weight.asnumpy(),
                                      twin.network._backbone[0].weight.asnumpy())
    assert log_of(step)[:2] == (3, 1)


def test_train_step_after_set_data_matches_a_fresh_compile(graph_mode):
    x = f32(5, 4)
    y = Tensor(np.array([0, 1, 2, 1, 0], np.int32))
    step = _train_step()
    step(x, y)
    step(x, y)                          # the written-back arrays are the known ones now
    dense = step.network._backbone[0]
    dense.weight.set_data(Tensor(np.full((8, 4), 0.05, np.float32)))
    twin = copy.deepcopy(step)
    for _ in range(3):
        assert_same(step(x, y), twin(x, y))
    for p, q in zip(step.trainable_params(), twin.trainable_params()):
        np.testing.assert_array_equal(p.asnumpy(), q.asnumpy())
    assert log_of(step)[:2] == (4, 1)


def test_failed_run_leaves_parameters_and_the_known_arrays(graph_mode):
    x = f32(5, 4)
    y = Tensor(np.array([0, 1, 2, 1, 0], np.int32))
    step = _train_step()
    step(x, y)
    step(x, y)
    twin = copy.deepcopy(step)          # compiled afresh from the same state
    params = step.trainable_params()
    arrays = [p.asnumpy().copy() for p in params]
    compiled = next(iter(cell_staged(step)._entries.values()))[0]
    seen = list(compiled.seen)
    with pytest.raises(Exception, match="label"):
        step(x, Tensor(np.array([0, 1, 9, 1, 0], np.int32)))   # the same version: runs, fails
    assert all(a is b for a, b in zip(compiled.seen, seen))
    for p, a in zip(params, arrays):
        np.testing.assert_array_equal(p.asnumpy(), a)
    assert_same(step(x, y), twin(x, y))
    assert log_of(step)[:2] == (3, 1)


class Doubles(nn.Cell):
    def construct(self, x):
        return x * 2


def declared(*inputs):
    cell = Doubles()
    cell.set_inputs(*inputs)
    return cell


def test_set_inputs_fits_are_remembered_and_misfits_raise_every_time(graph_mode):
    rows = Tensor(shape=[None, 3], dtype=ms.float32)
    cell = declared(rows)
    x = f32(2, 3)
    for _ in range(2):
        assert_same(cell(x), declared(rows)(x))
    for _ in range(2):               # a remembered fit does not let another signature through
        with pytest.raises(ValueError, match="does not fit set_inputs"):
            cell(f32(2, 4))
        with pytest.raises(TypeError, match="does not fit set_inputs"):
            cell(Tensor(np.ones((2, 3), np.int32)))
        with pytest.raises(TypeError, match="does not fit set_inputs"):
            cell(2.0)
    wider = Tensor(shape=[None, 4], dtype=ms.float32)
    cell.set_inputs(wider)           # declared anew: the old fits are forgotten
    with pytest.raises(ValueError, match="does not fit set_inputs"):
        cell(x)
    assert_same(cell(f32(2, 4)), declared(wider)(f32(2, 4)))
    data = Tensor(np.ones((2, 3), np.float32))
    cell.set_inputs(data)            # a Tensor with data: its shape, checked on every call
    assert_same(cell(x), declared(data)(x))
    with pytest.raises(ValueError, match="does not fit set_inputs"):
        cell(f32(5, 3))
