"""Hooks in graph mode (DESIGN §10.4): forward-pre and forward hooks are compiled in, on the
called cell and on sub-cells (MindSpore 2.10 prints [2201. 2201.] and [300. 300.] for the two
programs below). Backward hooks and HookBackward: test_hooks_graph*.py."""
import numpy as np

import graphcell as ms
from graphcell import nn, Tensor


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
    assert "Scaled.__call__>Scaled)" in ir and "Scaled.__call__>record" in ir


def test_graph_and_pynative_hooks_agree():
    net = Net()
    net.inner.register_forward_pre_hook(pre)
    net.inner.register_forward_hook(fwd)
    net.register_forward_hook(fwd)
    expected = net(ones()).asnumpy()
    ms.set_context(mode=ms.GRAPH_MODE)
    np.testing.assert_array_equal(net(ones()).asnumpy(), expected)
