"""The compile cache: what is in the key, when it recompiles, and why it says it did."""
import numpy as np
import pytest

import graphcell as ms
from graphcell import nn, ops, Tensor

from graph_nets import Threshold


def f32(*shape):
    return Tensor(np.random.RandomState(0).randn(*shape).astype(np.float32))


def log_of(obj):
    info = ms.graph.cache_info(obj)
    return info.hits, info.misses, info.reasons


class Scale(nn.Cell):
    def __init__(self):
        super().__init__()
        self.factor = 2.0
        self.not_read = 0
        self.w = ms.Parameter(Tensor(np.ones(3, np.float32)), name="w")
        self.dropout = nn.Dropout(p=0.5)

    def construct(self, x, n=1):
        for _ in range(n):
            x = x * self.factor
        return self.dropout(x) + self.w


def test_same_signature_does_not_recompile(graph_mode):
    net = Scale()
    for _ in range(3):
        net(f32(2, 3))
    assert log_of(net) == (2, 1, ["first call"])


def test_new_shape_recompiles_and_says_so(graph_mode):
    net = Scale()
    net(f32(2, 3))
    net(f32(4, 3))
    net(f32(2, 3))                      # the first version is still cached
    assert log_of(net) == (1, 2, ["first call", "new input signature: x f32[2,3] -> f32[4,3]"])


def test_new_dtype_and_static_argument_recompile(graph_mode):
    net = Scale()
    net(f32(2, 3))
    net(Tensor(np.ones((2, 3), np.float64)))
    net(f32(2, 3), 2)
    net(f32(2, 3), n=2)                 # a keyword: the same signature
    assert log_of(net)[2][1:] == ["new input signature: x f32[2,3] -> f64[2,3]",
                                  "new input signature: x f64[2,3] -> f32[2,3], n 1 -> 2"]
    assert log_of(net)[0] == 1


def test_set_train_recompiles_once_per_flag(graph_mode):
    net = Scale()
    x = f32(2, 3)
    eval_out = net(x)
    net.set_train()
    train_out = net(x)
    net.set_train(False)
    again = net(x)                      # the inference version is kept
    hits, misses, reasons = log_of(net)
    assert (hits, misses) == (1, 2)
    assert reasons[1] == "training flag changed: Scale.training False -> True"
    np.testing.assert_array_equal(again.asnumpy(), eval_out.asnumpy())
    assert not np.array_equal(train_out.asnumpy(), eval_out.asnumpy())


def test_changing_a_read_attribute_recompiles(graph_mode):
    net = Scale()
    x = f32(2, 3)
    net(x)
    net.not_read = 5
    net(x)
    net.factor = 3.0
    out = net(x)
    assert log_of(net)[2] == ["first call", "attribute changed: Scale.factor: 2.0 -> 3.0"]
    np.testing.assert_allclose(out.asnumpy(), x.asnumpy() * 3.0 + 1.0, rtol=1e-6)


def test_threshold_value_change_recompiles(graph_mode):
    m = Threshold(0.1, 20)
    x = Tensor([0.1, 0.2, 0.3], ms.float32)
    m(x)
    m.value = 30
    assert m(x).asnumpy()[0] == 30.0
    assert log_of(m)[2][1] == "attribute changed: Threshold.value: 20 -> 30"


def test_equal_value_reassignment_does_not_recompile(graph_mode):
    net = Scale()
    x = f32(2, 3)
    net(x)
    net.factor = float("2.0")
    net(x)
    assert log_of(net)[:2] == (1, 1)


def test_sub_cell_training_flag_and_replacement(graph_mode):
    net = Scale()
    x = f32(2, 3)
    net(x)
    net.dropout.set_train()             # only the sub-cell
    net(x)
    net.dropout = nn.Dropout(p=0.5)
    net(x)
    assert log_of(net)[2][1:] == ["training flag changed: Dropout.training False -> True",
                                  "sub-cell replaced: Scale.dropout"]


def test_parameter_shape_change_recompiles(graph_mode):
    net = Scale()
    net(f32(2, 3))
    net.w.set_data(Tensor(np.ones((1,), np.float32)))
    net(f32(2, 3))
    assert log_of(net)[2][1] == "parameter shape changed: w f32[3] -> f32[1]"


def test_parameter_values_are_read_at_each_call(graph_mode):
    net = Scale()
    x = f32(2, 3)
    before = net(x).asnumpy()
    net.w.set_data(Tensor(np.full(3, 5.0, np.float32)))
    after = net(x).asnumpy()
    np.testing.assert_allclose(after - before, 4.0, rtol=1e-6)
    assert log_of(net)[:2] == (1, 1)


def test_jit_function_cache_log():
    @ms.jit
    def double(x):
        return x * 2

    double(f32(2))
    double(f32(2))
    double(f32(3))
    log = double.cache_log
    assert (log.hits, log.misses) == (1, 2)
    assert str(log).splitlines() == [
        "double: 1 hit, 2 compiles",
        "  compile 1: first call (x f32[2])",
        "  compile 2: new input signature: x f32[2] -> f32[3] (x f32[3])"]
    assert ms.graph.cache_info(double).misses == 2
    assert ms.graph.cache_info().misses >= 2


def test_jit_method_caches_per_instance():
    class Net(nn.Cell):
        def __init__(self, k):
            super().__init__()
            self.k = k

        @ms.jit
        def construct(self, x):
            return x * self.k

    a, b = Net(2.0), Net(3.0)
    x = f32(2)
    np.testing.assert_allclose(a(x).asnumpy(), x.asnumpy() * 2.0, rtol=1e-6)
    np.testing.assert_allclose(b(x).asnumpy(), x.asnumpy() * 3.0, rtol=1e-6)
    a(x)
    assert log_of(a)[:2] == (1, 1) and log_of(b)[:2] == (0, 1)


def test_clear_cache_recompiles(graph_mode):
    net = Scale()
    net(f32(2, 3))
    ms.graph.clear_cache(net)
    net(f32(2, 3))
    assert log_of(net)[:2] == (0, 2)


def test_copies_start_with_an_empty_cache(graph_mode):
    import copy
    net = Scale()
    net(f32(2, 3))
    twin = copy.deepcopy(net)
    twin.w.set_data(Tensor(np.zeros(3, np.float32)))
    out = twin(f32(2, 3))
    np.testing.assert_allclose(out.asnumpy(), f32(2, 3).asnumpy() * 2.0, rtol=1e-6)
    assert log_of(twin)[:2] == (0, 1)


@pytest.mark.parametrize("enabled", [True, False])
def test_a_compile_pauses_the_garbage_collector_and_leaves_it_as_it_was(monkeypatch, enabled):
    import gc

    from graphcell.graph import compile as compile_module
    seen = []
    real = compile_module._compile

    def spying(*args):
        seen.append(gc.isenabled())
        return real(*args)
    monkeypatch.setattr(compile_module, "_compile", spying)
    was = gc.isenabled()
    (gc.enable if enabled else gc.disable)()
    try:
        out = ms.jit(lambda x: x * 2)(f32(3))
        assert seen == [False]
        assert gc.isenabled() is enabled
    finally:
        (gc.enable if was else gc.disable)()
    np.testing.assert_allclose(out.asnumpy(), f32(3).asnumpy() * 2)


def test_a_failed_compile_leaves_the_garbage_collector_on():
    import gc
    assert gc.isenabled()

    def bad(x):
        return x.no_such_method()
    from graphcell_ir.errors import GraphCompileError
    with pytest.raises(GraphCompileError, match="no_such_method"):
        ms.jit(bad)(f32(3))
    assert gc.isenabled()
