"""Real train steps with the native step (``graphcell_ir/backend/step``) on, with it off (the
generated Python runner) and on the reference interpreter: the same losses and parameters, in
GRAPH_MODE and under ``@jit`` (the step's bits are the runner's). The MLP's, LeNet5's (the seed) and a Transformer encoder
layer's whole steps and a ResNet basic block's on 6x6 images (its convolutions in the wide
layout) run as one native call; dropout runs as native segments around a host op
(``step.host_ops`` names them)."""
from __future__ import annotations

import zlib

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


class Encoder(nn.Cell):
    """A Transformer encoder layer (batched matmuls, transposes, layer norm, getitem/setitem in
    its gradient), pooled over the sequence, then a Dense head."""

    def __init__(self):
        super().__init__()
        self.layer = nn.TransformerEncoderLayer(16, 2, 32, dropout=0.0, batch_first=True)
        self.fc = nn.Dense(16, 10)

    def construct(self, x):
        return self.fc(ops.mean(self.layer(x), 1))


class DropoutMLP(nn.Cell):
    """Dropout draws random numbers: it runs in Python between native segments."""

    def __init__(self):
        super().__init__()
        self.l1, self.l2 = nn.Dense(20, 32), nn.Dense(32, 10)
        self.relu, self.drop = nn.ReLU(), nn.Dropout(p=0.5)

    def construct(self, x):
        return self.l2(self.drop(self.relu(self.l1(x))))


def _data(net_name):
    rng = np.random.RandomState(0)
    if net_name in ("mlp", "dropout_mlp"):
        x = rng.rand(16, 20).astype(np.float32)
    elif net_name == "mlp_batch_1":   # numpy's GEMVs and outer-product loop, not GEMMs
        x = rng.rand(1, 20).astype(np.float32)
    elif net_name == "transformer":
        x = rng.rand(4, 5, 16).astype(np.float32)
    elif net_name == "lenet":
        x = rng.rand(32, 1, 32, 32).astype(np.float32)   # the seed reshapes to batch 32
    else:
        x = rng.rand(4, 4, 6, 6).astype(np.float32)
    return ms.Tensor(x), ms.Tensor((np.arange(x.shape[0]) % 10).astype(np.int32))


NETS = {"mlp": MLP, "mlp_batch_1": MLP, "lenet": LeNet5, "resnet_block": BasicBlock, "transformer": Encoder,
        "dropout_mlp": DropoutMLP}


def _train(net_name, how, steps=3):
    ms.set_seed(5)
    net = NETS[net_name]()
    for p in net.trainable_params():   # the same start for every backend and every process
        # (crc32, not hash(): str hashes change with PYTHONHASHSEED, and some starts put a
        # max-pool window near a tie, where rounding flips which element takes the gradient)
        rng = np.random.RandomState(zlib.crc32(p.name.encode()))
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
    record = {"steps": 0, "refused": [], "host_ops": []}
    real = emit.build

    def counting(fn, **kw):
        try:
            step = real(fn, **kw)
        except Exception as e:
            record["refused"].append(str(e))
            raise
        record["steps"] += 1
        record["host_ops"] += step.host_ops
        return step
    scan = emit.unsupported

    def scanning(fn, **kw):
        why = scan(fn, **kw)
        if why is not None:
            record["refused"].append(why)
        return why
    monkeypatch.setattr(emit, "build", counting)
    monkeypatch.setattr(emit, "unsupported", scanning)
    return record


@pytest.mark.parametrize("how", ["graph", "jit"])
@pytest.mark.parametrize("net_name", ["mlp", "mlp_batch_1", "lenet", "resnet_block",
                                      "transformer", "dropout_mlp"])
def test_train_steps_match_the_runner_and_the_interpreter(net_name, how, monkeypatch, built):
    ms.set_context(mode=ms.GRAPH_MODE if how == "graph" else ms.PYNATIVE_MODE)
    try:
        monkeypatch.setenv("GRAPHCELL_NATIVE_STEP", "1")
        native = _train(net_name, how)
        steps, refused, host_ops = built["steps"], list(built["refused"]), list(built["host_ops"])
        monkeypatch.setenv("GRAPHCELL_NATIVE_STEP", "0")
        runner = _train(net_name, how)
        monkeypatch.setenv("GRAPHCELL_BACKEND", "interp")
        interp = _train(net_name, how)
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    assert steps >= 1 and not refused, refused
    if net_name in ("mlp", "mlp_batch_1"):
        assert host_ops == []
    elif net_name == "transformer":   # its getitem/setitem are the step's own
        assert host_ops == [], host_ops
    elif net_name == "dropout_mlp":   # (@jit's net is not training: no dropout)
        assert host_ops == (["dropout"] if how == "graph" else []), host_ops
    elif net_name == "lenet":   # its convolutions and pools are the step's own
        assert host_ops == [], host_ops
    else:   # the block's 6x6 convolutions (the wide layout) too; @jit's net is not training:
        # the inference batch norm stays the runner's
        assert host_ops == ([] if how == "graph" else ["batch_norm"] * 2), host_ops
    # the step calls the runner's loops and the BLAS routines its np.matmul calls: its bits
    np.testing.assert_array_equal(native[0], runner[0])
    np.testing.assert_allclose(native[0], interp[0], rtol=1e-5)
    assert native[0][-1] < native[0][0] or net_name == "dropout_mlp"   # it trains
    for a, b, c in zip(native[1], runner[1], interp[1]):
        np.testing.assert_array_equal(a, b)
        np.testing.assert_allclose(a, c, rtol=1e-4, atol=1e-5)


@pytest.mark.slow
@pytest.mark.parametrize("key", ["W1", "MLP256", "MLP64B1", "W2", "RESBLOCK", "TRANSFORMER"])
def test_bench_workloads_take_the_native_route_with_the_runners_losses(key, monkeypatch, built):
    """``tools.bench``'s train steps: each has a native step (W1 and the MLPs one native call),
    with the Python runner's losses and parameters, bit for bit, over several steps (MLP64B1's
    batch-1 products are numpy's GEMVs and loop in both; TRANSFORMER's large softmax numpy's
    in both)."""
    from tools.bench import graphcell_steps, workloads
    w = workloads.BY_KEY[key]
    data = workloads.arrays(w, graphcell_steps.parameter_shapes(w))

    def train(native: bool):
        monkeypatch.setenv("GRAPHCELL_NATIVE_STEP", "1" if native else "0")
        step, (x, y) = graphcell_steps.train_step(w, data)
        losses = [float(step(x, y).asnumpy()) for _ in range(3)]
        return losses, [p.asnumpy().copy() for p in step.network.trainable_params()]
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        native = train(True)
        steps, refused, host_ops = built["steps"], list(built["refused"]), built["host_ops"]
        runner = train(False)
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    assert steps >= 1 and not refused, refused
    if key in ("W1", "MLP256", "MLP64B1"):
        assert host_ops == []
    np.testing.assert_array_equal(native[0], runner[0])   # the runner's bits (see above)
    for a, b in zip(native[1], runner[1]):
        np.testing.assert_array_equal(a, b)
