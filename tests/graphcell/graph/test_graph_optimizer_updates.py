"""Graph-mode optimizer updates: one fused kernel per parameter (every state it updates, the
gradient read once), written back by taking the kernel's new arrays, and a failed call leaves
every Parameter as it was, on the Python runner and in the native step."""
import numpy as np
import pytest

import graphcell as ms
from graphcell import Parameter, Tensor, nn, ops
from graphcell_ir.ir.structural import FUSED

OPTIMIZERS = {
    "sgd": lambda ps: nn.SGD(ps, 0.01),
    "sgd_nesterov": lambda ps: nn.SGD(ps, 0.05, 0.9, nesterov=True, weight_decay=0.01),
    "momentum": lambda ps: nn.Momentum(ps, 0.01, 0.9),
    "adam": lambda ps: nn.Adam(ps, 1e-3),
    "adamw": lambda ps: nn.AdamWeightDecay(ps, 1e-3, weight_decay=0.01),
}


def _train_step(make_opt):
    net = nn.Dense(32, 16)
    net.weight.set_data(Tensor(np.linspace(-1, 1, 512, dtype=np.float32).reshape(16, 32)))
    net.bias.set_data(Tensor(np.linspace(-0.5, 0.5, 16, dtype=np.float32)))
    step = nn.TrainOneStepCell(nn.WithLossCell(net, nn.MSELoss()),
                               make_opt(net.trainable_params()))
    x = Tensor(np.linspace(0, 1, 256, dtype=np.float32).reshape(8, 32))
    y = Tensor(np.ones((8, 16), np.float32))
    return net, step, (x, y)


@pytest.mark.parametrize("name", OPTIMIZERS)
def test_each_parameters_update_is_one_fused_kernel(graph_mode, name):
    net, step, (x, y) = _train_step(OPTIMIZERS[name])
    fn = step.compile(x, y).function
    for p in ("weight", "bias"):
        writers = {op.operands[1].op for op in fn.body if op.opdef.name == "assign"
                   and op.operands[0].name_hint.endswith(p) and op.operands[0] in fn.args}
        assert len(writers) == 1, f"{p}'s states are written by {len(writers)} ops"
        assert next(iter(writers)).opdef is FUSED


@pytest.mark.parametrize("name", OPTIMIZERS)
def test_train_steps_match_pynative(graph_mode, name):
    net, step, batch = _train_step(OPTIMIZERS[name])
    for _ in range(3):
        step(*batch)
    graph = [p.asnumpy().copy() for p in net.trainable_params()]
    ms.set_context(mode=ms.PYNATIVE_MODE)
    net, step, batch = _train_step(OPTIMIZERS[name])
    for _ in range(3):
        step(*batch)
    for g, e in zip(graph, (p.asnumpy() for p in net.trainable_params())):
        np.testing.assert_allclose(g, e, rtol=1e-5, atol=1e-6)


class MomentumThenGather(nn.Cell):
    """A momentum update of ``w`` (one fused kernel writing ``acc`` and ``w``), then a gather of
    the new ``w`` that fails on an index out of range."""

    def __init__(self):
        super().__init__()
        rng = np.random.default_rng(0)
        self.w = Parameter(Tensor(rng.standard_normal((64, 64)).astype(np.float32)), name="w")
        self.acc = Parameter(Tensor(np.zeros((64, 64), np.float32)), name="acc")

    def construct(self, g, idx):
        acc = ops.assign(self.acc, self.acc * 0.9 + g)
        w = ops.assign(self.w, self.w - 0.1 * acc)
        return ops.gather(w, idx, 0)


@pytest.mark.parametrize("native", ["0", "1"], ids=["native_step_off", "native_step_on"])
def test_a_failed_call_leaves_parameters_as_they_were(graph_mode, monkeypatch, native):
    monkeypatch.setenv("GRAPHCELL_NATIVE_STEP", native)
    net = MomentumThenGather()
    g = Tensor(np.full((64, 64), 0.5, np.float32))
    fn = net.compile(g, Tensor(np.array([1], np.int32))).function
    assert sum(op.opdef is FUSED for op in fn.body) == 1
    for _ in range(2):
        net(g, Tensor(np.array([1], np.int32)))
    arrays = (net.w.asnumpy(), net.acc.asnumpy())
    before = [a.copy() for a in arrays]
    with pytest.raises(Exception, match="out of"):
        net(g, Tensor(np.array([64], np.int32)))     # the update ran, then the gather failed
    assert net.w.asnumpy() is arrays[0] and net.acc.asnumpy() is arrays[1]
    for a, b in zip(arrays, before):                 # nothing wrote into them
        np.testing.assert_array_equal(a, b)
    net(g, Tensor(np.array([1], np.int32)))         # the next call starts from them
    acc = before[1] * np.float32(0.9) + np.float32(0.5)
    np.testing.assert_allclose(net.acc.asnumpy(), acc, rtol=1e-6)
    np.testing.assert_allclose(net.w.asnumpy(), before[0] - np.float32(0.1) * acc, rtol=1e-6)
