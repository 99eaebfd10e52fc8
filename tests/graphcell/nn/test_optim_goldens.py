"""Every optimizer case of ``optim_cases.py`` against MindSpore 2.10's recording
(``tools/record_optim_goldens.py``), in PyNative and in graph mode: the parameters after each of
three steps on the same gradients, and three steps of a compiled ``TrainOneStepCell``."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import graphcell as ms
from graphcell import Parameter, Tensor, nn
from graphcell.experimental import optim

import optim_cases as C

GOLDENS = np.load(Path(__file__).parent / "goldens" / "optim.npz")
MODES = ("pynative", "graph")


def build(make: str, params: list):
    return eval(make, {"nn": nn, "ms": ms, "Tensor": Tensor, "np": np,  # noqa: S307
                       "params": params, "optim": optim})


class Apply(nn.Cell):
    """The optimizer called from a compiled network (graph mode compiles its update); no prefix,
    as TrainOneStepCell, so the parameters keep their names."""

    def __init__(self, opt):
        super().__init__(auto_prefix=False)
        self.opt = opt

    def construct(self, grads):
        return self.opt(grads)


class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Dense(16, 3)
        self.relu = nn.ReLU()
        self.fc2 = nn.Dense(3, 2)

    def construct(self, x):
        return self.fc2(self.relu(self.fc1(x)))


@pytest.fixture
def mode(request):
    ms.set_context(mode=ms.GRAPH_MODE if request.param == "graph" else ms.PYNATIVE_MODE)
    yield request.param
    ms.set_context(mode=ms.PYNATIVE_MODE)


@pytest.mark.parametrize("mode", MODES, indirect=True)
@pytest.mark.parametrize("case", C.CASES, ids=lambda c: c.cid)
def test_optimizer_steps_match_mindspore(case, mode):
    params = [Parameter(Tensor(v.copy()), name=name)
              for (name, _), v in zip(C.PARAMS, C.param_values())]
    opt = build(case.make, params)
    step = Apply(opt) if mode == "graph" else opt
    for k, grads in enumerate(C.grads(case)):
        step(tuple(Tensor(g) for g in grads))
        for p in params:
            np.testing.assert_allclose(p.asnumpy(), GOLDENS[f"{case.cid}/step{k}/{p.name}"],
                                       rtol=case.rtol, atol=case.atol,
                                       err_msg=f"{p.name} after step {k + 1}")
    counter = opt.global_step if hasattr(opt, "global_step") else opt.state_step
    np.testing.assert_array_equal(counter.asnumpy(), GOLDENS[f"{case.cid}/global_step"])


@pytest.mark.parametrize("mode", MODES, indirect=True)
@pytest.mark.parametrize("case", C.TRAIN_CASES, ids=lambda c: c.cid)
def test_train_steps_match_mindspore(case, mode):
    net = Net()
    for name, value in C.net_weights().items():
        net.parameters_dict()[name].set_data(Tensor(value))
    step = nn.TrainOneStepCell(nn.WithLossCell(net, nn.MSELoss()),
                               build(case.make, net.trainable_params()))
    x, y = (Tensor(a) for a in C.train_data())
    losses = [float(step(x, y).asnumpy()) for _ in range(C.STEPS)]
    np.testing.assert_allclose(losses, GOLDENS[f"train/{case.cid}/losses"], rtol=case.rtol,
                               atol=case.atol, err_msg="losses")
    for p in net.trainable_params():
        np.testing.assert_allclose(p.asnumpy(), GOLDENS[f"train/{case.cid}/{p.name}"],
                                   rtol=case.rtol, atol=case.atol, err_msg=p.name)
