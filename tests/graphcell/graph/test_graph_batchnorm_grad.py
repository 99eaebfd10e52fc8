"""Batch norm's training gradient in graph mode (``ops/nn.py``'s rule, ``passes.fuse``): the
activations are read by one kernel that accumulates the three per-channel sums (the variance,
dbeta and sum(dy * (x - mean))) and by one elementwise kernel for dx; x_hat is never written
out. The same training as PyNative mode's."""
from __future__ import annotations

import numpy as np
import pytest

import graphcell as ms
from graphcell import Tensor, nn, ops
from graphcell_ir.ir.structural import FUSED
from graphcell_ir.ops.registry import Kind

SHAPE = (4, 3, 5, 6)


class ConvBnRelu(nn.Cell):
    """A convolution (so that dx is needed), batch norm, ReLU, a mean pool and a Dense head."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 3, 3, pad_mode="same", weight_init="he_uniform")
        self.bn = nn.BatchNorm2d(3)
        self.relu = nn.ReLU()
        self.head = nn.Dense(3, 2)

    def construct(self, x):
        return self.head(ops.mean(self.relu(self.bn(self.conv(x))), (2, 3)))


def _step():
    ms.set_seed(0)
    net = ConvBnRelu()
    net.set_train()
    net.bn.gamma.set_data(Tensor(np.array([0.5, 1.5, -1.0], np.float32)))
    net.bn.beta.set_data(Tensor(np.array([0.1, -0.2, 0.3], np.float32)))
    step = nn.TrainOneStepCell(nn.WithLossCell(net, nn.MSELoss()),
                               nn.Momentum(net.trainable_params(), 0.1, 0.9))
    rng = np.random.default_rng(0)
    x = Tensor((rng.standard_normal(SHAPE) * 2 + 1).astype(np.float32))
    y = Tensor(rng.standard_normal((SHAPE[0], 2)).astype(np.float32))
    return net, step, (x, y)


def test_the_three_sums_share_one_kernel_and_x_hat_is_not_written(graph_mode):
    _, step, (x, y) = _step()
    fn = step.compile(x, y).function
    sums = []
    for op in fn.body:
        if op.opdef is FUSED:
            body = list(op.regions[0].block)
            reductions = sorted(o.opdef.name for o in body if o.opdef.kind is Kind.REDUCTION
                                and o.operands[0].type.shape == SHAPE
                                and tuple(o.attrs["axis"]) == (0, 2, 3))   # per channel
            if reductions:
                sums.append(reductions)
            written = [r for r in op.results if r.type.shape == SHAPE]
            assert len(written) <= 2, f"a kernel writes {len(written)} activation-sized values"
    # the forward's statistics are batch_norm's own loops; the backward's: one kernel (and
    # the mean it subtracts, a lone reduction)
    assert sums == [["reduce_mean", "reduce_sum", "reduce_sum"]], sums


@pytest.mark.parametrize("native", ["1", "0"])
def test_training_matches_pynative(graph_mode, monkeypatch, native):
    monkeypatch.setenv("GRAPHCELL_NATIVE_STEP", native)
    net, step, batch = _step()
    losses = [float(step(*batch).asnumpy()) for _ in range(3)]
    graph = [p.asnumpy().copy() for p in net.trainable_params()]
    ms.set_context(mode=ms.PYNATIVE_MODE)
    net, step, batch = _step()
    expected = [float(step(*batch).asnumpy()) for _ in range(3)]
    np.testing.assert_allclose(losses, expected, rtol=1e-5)
    for g, e in zip(graph, (p.asnumpy() for p in net.trainable_params())):
        np.testing.assert_allclose(g, e, rtol=1e-5, atol=1e-6)
