"""Mixed-precision training: LeNet5 at each amp level against MindSpore 2.10's loss curves
(``tools/record_amp_goldens.py``), in PyNative and in graph mode, within float16's precision."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import graphcell as ms
from graphcell import Tensor, amp, nn

import amp_cases as C

GOLDENS = np.load(Path(__file__).parent / "goldens" / "amp.npz")


@pytest.fixture
def mode(request):
    ms.set_context(mode=ms.GRAPH_MODE if request.param == "graph" else ms.PYNATIVE_MODE)
    yield request.param
    ms.set_context(mode=ms.PYNATIVE_MODE)


def train(case: C.AmpCase):
    net = C.lenet(nn, case.bn)
    params = net.parameters_dict()
    for name, value in C.weights([(n, p.shape) for n, p in params.items()]).items():
        params[name].set_data(Tensor(value))
    scale = case.fixed_scale or 1.0
    opt = nn.Momentum(net.trainable_params(), 0.01, 0.9, loss_scale=scale)
    manager = amp.FixedLossScaleManager(scale, drop_overflow_update=False) \
        if case.fixed_scale else None
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    step = amp.build_train_network(net, opt, loss, level=case.level, loss_scale_manager=manager)
    data = C.batches()
    losses = [float(step(Tensor(x), Tensor(y)).asnumpy())
              for x, y in (data[i % len(data)] for i in range(C.STEPS))]
    return net, losses


@pytest.mark.parametrize("mode", ["pynative", "graph"], indirect=True)
@pytest.mark.parametrize("case", C.CASES, ids=lambda c: c.cid)
def test_lenet_loss_curve_matches_mindspore(case, mode):
    net, losses = train(case)
    want = GOLDENS[f"{case.golden or case.cid}/losses"]
    # float16 compute (measured: 3e-5 at most), float32 for O0
    tol = 1e-5 if case.level == "O0" else 2e-4
    np.testing.assert_allclose(losses, want, rtol=tol, atol=tol)
    assert all(str(p.dtype) == "Float32" for p in net.trainable_params())   # master weights
    assert losses[6] < losses[0]   # it learns: the first batch again, two passes later
