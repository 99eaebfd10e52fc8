"""Real train steps with the native step (``graphcell_ir/backend/step``) on, with it off (the
generated Python runner) and on the reference interpreter: the same losses and parameters, in
GRAPH_MODE and under ``@jit``. The MLP's whole step runs as one native call; LeNet5 (the seed)
and a ResNet basic block keep the Python runner while convolutions have no native lowering in
the step (``exe.step_fallback`` names the op)."""
from __future__ import annotations

import numpy as np
import pytest

import graphcell as ms
from graphcell import nn, ops
from graphcell_ir.backend import codegen
from graphcell_ir.backend.step import emit

from graph_nets import LeNet5

pytestmark = pytest.mark.skipif(not codegen.available(),
                                reason="this llvmlite cannot run the code generator")


class MLP(nn.Cell):
    def __init__(self):
        super().__init__()
        self.l1, self.l2, self.l3 = nn.Dense(20, 32), nn.Dense(32, 32), nn.Dense(32, 10)
        self.relu = nn.ReLU()

    def construct(self, x):
        return self.l3(self.relu(self.l2(self.relu(self.l1(x)))))


class BasicBlock(nn.Cell):
    def __init__(self, c=4):
        super().__init__()
        self.conv1 = nn.Conv2d(c, c, 3, pad_mode="same")
        self.bn1 = nn.BatchNorm2d(c)
        self.conv2 = nn.Conv2d(c, c, 3, pad_mode="same")
        self.bn2 = nn.BatchNorm2d(c)
        self.relu = nn.ReLU()
        self.flatten = nn.Flatten()
        self.fc = nn.Dense(c * 6 * 6, 10)

    def construct(self, x):
        y = self.relu(self.bn1(self.conv1(x)))
        y = self.bn2(self.conv2(y))
        return self.fc(self.flatten(self.relu(y + x)))


def _data(net_name):
    rng = np.random.RandomState(0)
    if net_name == "mlp":
        x = rng.rand(16, 20).astype(np.float32)
    elif net_name == "lenet":
        x = rng.rand(32, 1, 32, 32).astype(np.float32)   # the seed reshapes to batch 32
    else:
        x = rng.rand(4, 4, 6, 6).astype(np.float32)
    return ms.Tensor(x), ms.Tensor((np.arange(x.shape[0]) % 10).astype(np.int32))


NETS = {"mlp": MLP, "lenet": LeNet5, "resnet_block": BasicBlock}


def _train(net_name, how, steps=3):
    ms.set_seed(5)
    net = NETS[net_name]()
    for p in net.trainable_params():   # the same start for every backend
        rng = np.random.RandomState(abs(hash(p.name)) % 2 ** 31)
        p.set_data(ms.Tensor(((rng.rand(*p.shape) - 0.5) * 0.2).astype(np.float32)))
    loss_fn = nn.WithLossCell(net, nn.SoftmaxCrossEntropyWithLogits(sparse=True,
                                                                    reduction="mean"))
    optimizer = nn.Momentum(net.trainable_params(), 0.05, 0.9)
    x, y = _data(net_name)
    if how == "graph":
        step = nn.TrainOneStepCell(loss_fn, optimizer)
        step.set_train()
        run = step
    else:
        grad_fn = ms.value_and_grad(loss_fn, None, optimizer.parameters)

        @ms.jit
        def run(x, y):
            loss, grads = grad_fn(x, y)
            optimizer(grads)
            return loss
    losses = [float(run(x, y).asnumpy()) for _ in range(steps)]
    return losses, [p.asnumpy().copy() for p in net.trainable_params()]


@pytest.fixture
def built(monkeypatch):
    """The native steps built (and why the others were not) while the test ran."""
    record = {"steps": 0, "refused": []}
    real = emit.build

    def counting(fn, *args):
        try:
            step = real(fn, *args)
        except Exception as e:
            record["refused"].append(str(e))
            raise
        record["steps"] += 1
        return step
    scan = emit.unsupported

    def scanning(fn):
        why = scan(fn)
        if why is not None:
            record["refused"].append(why)
        return why
    monkeypatch.setattr(emit, "build", counting)
    monkeypatch.setattr(emit, "unsupported", scanning)
    return record


@pytest.mark.parametrize("how", ["graph", "jit"])
@pytest.mark.parametrize("net_name", ["mlp", "lenet", "resnet_block"])
def test_train_steps_match_the_runner_and_the_interpreter(net_name, how, monkeypatch, built):
    ms.set_context(mode=ms.GRAPH_MODE if how == "graph" else ms.PYNATIVE_MODE)
    try:
        monkeypatch.setenv("GRAPHCELL_NATIVE_STEP", "1")
        native = _train(net_name, how)
        steps, refused = built["steps"], list(built["refused"])
        monkeypatch.setenv("GRAPHCELL_NATIVE_STEP", "0")
        runner = _train(net_name, how)
        monkeypatch.setenv("GRAPHCELL_BACKEND", "interp")
        interp = _train(net_name, how)
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    if net_name == "mlp":
        assert steps >= 1 and not refused, refused
    else:
        assert any("conv2d" in r for r in refused), refused
    np.testing.assert_allclose(native[0], runner[0], rtol=1e-6)
    np.testing.assert_allclose(native[0], interp[0], rtol=1e-5)
    assert native[0][-1] < native[0][0]   # it trains
    for a, b, c in zip(native[1], runner[1], interp[1]):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(a, c, rtol=1e-4, atol=1e-5)
