"""Hooks in graph mode (DESIGN §10.4): forward-pre and forward hooks are compiled in, on the
called cell and on sub-cells (MindSpore 2.10 prints [2201. 2201.] and [300. 300.] for the two
programs below); backward hooks and HookBackward warn once that they do not run yet."""
import warnings

import numpy as np
import pytest

import graphcell as ms
from graphcell import nn, ops, Tensor
from graphcell.graph import GraphModeWarning


class Inner(nn.Cell):
    def construct(self, x):
        return x * 2


class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.inner = Inner()

    def construct(self, x):
        return self.inner(x) + 1


def pre(cell, inputs):
    return (inputs[0] + 10,)


def fwd(cell, inputs, out):
    return out * 100


def ones():
    return Tensor(np.ones(2, np.float32))


def test_sub_cell_hooks_run_in_graph_mode(graph_mode):
    net = Net()
    net.inner.register_forward_pre_hook(pre)
    net.inner.register_forward_hook(fwd)
    assert net(ones()).asnumpy().tolist() == [2201.0, 2201.0]


def test_hooks_of_the_called_cell_run_in_graph_mode(graph_mode):
    net = Net()
    net.register_forward_hook(fwd)
    assert net(ones()).asnumpy().tolist() == [300.0, 300.0]
    net.register_forward_pre_hook(pre)
    assert net(ones()).asnumpy().tolist() == [2300.0, 2300.0]


def test_hooks_registered_or_removed_later_recompile(graph_mode):
    net = Net()
    assert net(ones()).asnumpy().tolist() == [3.0, 3.0]
    handle = net.inner.register_forward_hook(fwd)
    assert net(ones()).asnumpy().tolist() == [201.0, 201.0]
    handle.remove()
    assert net(ones()).asnumpy().tolist() == [3.0, 3.0]
    info = ms.graph.cache_info(net)     # the version without the hook is still cached
    assert info.reasons == ["first call", "forward hooks registered on Inner"] and info.hits == 1


def test_hooks_see_the_cell_and_can_read_its_attributes(graph_mode):
    def record(cell, inputs, out):
        return out * cell.scale            # the cell object itself, read while compiling

    class Scaled(Inner):
        scale = 3.0
    cell = Scaled()
    cell.register_forward_hook(record)
    assert cell(ones()).asnumpy().tolist() == [6.0, 6.0]
    ir = cell.compile(ones()).as_text()
    assert ir.startswith("func @Scaled.__call__(%x: f32[2])")   # construct's argument names
    assert "Scaled.__call__>Scaled.construct" in ir and "Scaled.__call__>record" in ir


def test_graph_and_pynative_hooks_agree():
    net = Net()
    net.inner.register_forward_pre_hook(pre)
    net.inner.register_forward_hook(fwd)
    net.register_forward_hook(fwd)
    expected = net(ones()).asnumpy()
    ms.set_context(mode=ms.GRAPH_MODE)
    np.testing.assert_array_equal(net(ones()).asnumpy(), expected)


def test_backward_hooks_warn_once(graph_mode):
    net = Net()
    net.inner.register_backward_hook(lambda cell, gi, go: None)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        net(ones())
        net(ones())
        net(Tensor(np.ones(3, np.float32)))
    mine = [w for w in caught if issubclass(w.category, UserWarning)]
    assert len(mine) == 1, [str(w.message) for w in mine]
    assert "Inner" in str(mine[0].message) and "graph mode" in str(mine[0].message)
    assert mine[0].filename == __file__


def test_backward_hook_on_the_called_cell_warns_once(graph_mode):
    relu = nn.ReLU()
    relu.register_backward_hook(lambda cell, gi, go: None)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        relu(ones())
        relu(ones())
    assert len(caught) == 1 and "ReLU" in str(caught[0].message)


def test_hook_backward_is_the_identity_in_a_compiled_function():
    hook = ops.HookBackward(lambda g: print(g))

    @ms.jit
    def f(x, y):
        z = x * y
        z = hook(z)
        return z * y

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = f(Tensor(1.0, ms.float32), Tensor(2.0, ms.float32))
        f(Tensor(1.0, ms.float32), Tensor(2.0, ms.float32))
    assert out.asnumpy() == 4.0
    assert len(caught) == 1 and issubclass(caught[0].category, GraphModeWarning)
    assert "HookBackward" in str(caught[0].message)
