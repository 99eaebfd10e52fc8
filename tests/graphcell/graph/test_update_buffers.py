"""Graph-mode parameter updates write into the buffers the Parameters held one call before
(``graphcell_ir/backend/spares.py``): never into an array a Parameter or the user holds, so a
failed call leaves the Parameters as they were and an array taken with ``asnumpy()`` keeps its
values. The Python runner's route (``GRAPHCELL_NATIVE_STEP=0``; the native step allocates its
own results)."""
import numpy as np
import pytest

import graphcell as ms
from graphcell import Parameter, Tensor, nn, ops
from graphcell_ir.backend import kernels


@pytest.fixture
def runner(graph_mode, monkeypatch):
    """The Python runner, with each fused kernel call's count of outputs written into retired
    buffers recorded."""
    monkeypatch.setenv("GRAPHCELL_NATIVE_STEP", "0")
    written = []
    into = kernels.Kernel.into

    def counting(self, given, *args):
        written.append(sum(g is not None for g in given))
        return into(self, given, *args)
    monkeypatch.setattr(kernels.Kernel, "into", counting)
    return written


class MomentumThenGather(nn.Cell):
    """A momentum update of ``w`` (64x64, one fused kernel writing ``acc`` and ``w``), then a
    gather of the new ``w`` that fails on an index out of range."""

    def __init__(self):
        super().__init__()
        rng = np.random.default_rng(0)
        self.w = Parameter(Tensor(rng.standard_normal((64, 64)).astype(np.float32)), name="w")
        self.acc = Parameter(Tensor(np.zeros((64, 64), np.float32)), name="acc")

    def construct(self, g, idx):
        acc = ops.assign(self.acc, self.acc * 0.9 + g)
        w = ops.assign(self.w, self.w - 0.1 * acc)
        return ops.gather(w, idx, 0)


def address(p: Parameter) -> int:
    return p.asnumpy().ctypes.data


def expected(w, acc, g, steps):
    w, acc = w.copy(), acc.copy()
    for _ in range(steps):
        acc = acc * np.float32(0.9) + g
        w = w - np.float32(0.1) * acc
    return w, acc


def test_updates_alternate_between_two_buffers_with_the_right_values(runner):
    net = MomentumThenGather()
    w0, acc0 = net.w.asnumpy().copy(), net.acc.asnumpy().copy()
    g = Tensor(np.full((64, 64), 0.5, np.float32))
    idx = Tensor(np.array([1, 2], np.int32))
    seen = []
    for _ in range(5):
        net(g, idx)
        seen.append((address(net.w), address(net.acc)))
    assert seen[2] == seen[4] and seen[3] != seen[4]   # ping-pong between two buffers each
    assert runner[-1] == 2                             # both updates written into retired ones
    w, acc = expected(w0, acc0, g.asnumpy(), 5)
    np.testing.assert_allclose(net.w.asnumpy(), w, rtol=1e-6)
    np.testing.assert_allclose(net.acc.asnumpy(), acc, rtol=1e-6)


def test_a_failed_call_leaves_parameters_as_they_were(runner):
    net = MomentumThenGather()
    g = Tensor(np.full((64, 64), 0.5, np.float32))
    for _ in range(3):
        net(g, Tensor(np.array([1], np.int32)))
    before = (net.w.asnumpy().copy(), net.acc.asnumpy().copy())
    where = (address(net.w), address(net.acc))
    n = len(runner)
    with pytest.raises(Exception, match="out of"):
        net(g, Tensor(np.array([64], np.int32)))     # the update ran, then the gather failed
    assert runner[n] == 2     # the failed call's kernel did write retired buffers
    assert (address(net.w), address(net.acc)) == where
    np.testing.assert_array_equal(net.w.asnumpy(), before[0])
    np.testing.assert_array_equal(net.acc.asnumpy(), before[1])
    net(g, Tensor(np.array([1], np.int32)))         # and the next call starts from them
    w, acc = expected(before[0], before[1], g.asnumpy(), 1)
    np.testing.assert_allclose(net.w.asnumpy(), w, rtol=1e-6)
    np.testing.assert_allclose(net.acc.asnumpy(), acc, rtol=1e-6)


def test_an_array_the_user_holds_is_never_written(runner):
    net = MomentumThenGather()
    g = Tensor(np.full((64, 64), 0.5, np.float32))
    idx = Tensor(np.array([0], np.int32))
    held = []
    for _ in range(4):
        held.append((net.w.asnumpy(), net.w.asnumpy().copy()))   # the array itself, and a copy
        net(g, idx)
    for array, values in held:
        np.testing.assert_array_equal(array, values)
    # the held arrays are never recycled: every call wrote a buffer of its own
    assert len({a.ctypes.data for a, _ in held} | {address(net.w)}) == 5


def test_a_train_step_with_momentum_matches_pynative(runner):
    def train(steps):
        net = nn.Dense(32, 16)
        net.weight.set_data(Tensor(np.linspace(-1, 1, 512, dtype=np.float32).reshape(16, 32)))
        net.bias.set_data(Tensor(np.linspace(-0.5, 0.5, 16, dtype=np.float32)))
        opt = nn.SGD(net.trainable_params(), 0.05, momentum=0.9, nesterov=True,
                     weight_decay=0.01)
        step = nn.TrainOneStepCell(nn.WithLossCell(net, nn.MSELoss()), opt)
        x = Tensor(np.linspace(0, 1, 256, dtype=np.float32).reshape(8, 32))
        y = Tensor(np.ones((8, 16), np.float32))
        for _ in range(steps):
            step(x, y)
        return net.weight.asnumpy().copy(), net.bias.asnumpy().copy()
    graph = train(4)
    assert max(runner) >= 3      # stat, accum and the weight in one kernel, into retired buffers
    ms.set_context(mode=ms.PYNATIVE_MODE)
    eager = train(4)
    for a, b in zip(graph, eager):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
