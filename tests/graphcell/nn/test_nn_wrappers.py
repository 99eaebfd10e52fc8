"""WithGradCell, ForwardValueAndGrad and ParameterUpdate against MindSpore 2.10's values (printed
by MindSpore on the same network and inputs), in PyNative and in graph mode."""
from __future__ import annotations

import numpy as np
import pytest

import graphcell as ms
from graphcell import Parameter, Tensor, nn

X = Tensor(np.array([[0.5, -1.0, 2.0], [1.0, 0.0, -0.5]], np.float32))
Y = Tensor(np.array([[0.0, 1.0], [1.0, 0.0]], np.float32))
W_GRAD = [[0.125, -0.75, 1.625], [0.375, -0.25, 0.375]]   # MindSpore 2.10, MSE of Dense(ones)


@pytest.fixture
def mode(request):
    ms.set_context(mode=ms.GRAPH_MODE if request.param == "graph" else ms.PYNATIVE_MODE)
    yield request.param
    ms.set_context(mode=ms.PYNATIVE_MODE)


def _net():
    return nn.Dense(3, 2, weight_init="ones", bias_init="zeros")


def _close(got, want):
    np.testing.assert_allclose(np.asarray(got, np.float64), np.asarray(want, np.float64),
                               rtol=1e-6)


@pytest.mark.parametrize("mode", ["pynative", "graph"], indirect=True)
def test_wrappers_match_mindspore(mode):
    net = _net()
    w, b = nn.WithGradCell(net, nn.MSELoss())(X, Y)
    _close(w.asnumpy(), W_GRAD)
    _close(b.asnumpy(), [0.5, 0.5])
    w, b = nn.WithGradCell(net, nn.MSELoss(), sens=Tensor(np.float32(2.0)))(X, Y)
    _close(w.asnumpy(), np.array(W_GRAD) * 2)
    out, (gx,) = nn.ForwardValueAndGrad(net, get_all=True)(X)
    _close(out.asnumpy(), [[1.5, 1.5], [0.5, 0.5]])
    _close(gx.asnumpy(), np.full((2, 3), 2.0))
    loss, (w, b) = nn.ForwardValueAndGrad(nn.WithLossCell(net, nn.MSELoss()),
                                          net.trainable_params(), get_by_list=True,
                                          sens_param=True)(X, Y, Tensor(np.float32(3.0)))
    _close(loss.asnumpy(), 0.75)
    _close(w.asnumpy(), np.array(W_GRAD) * 3)
    _close(b.asnumpy(), [1.5, 1.5])
    p = Parameter(Tensor(np.zeros(2, np.float32)), name="p")
    out = nn.ParameterUpdate(p)(Tensor(np.array([1.0, 2.0], np.float32)))
    _close(out.asnumpy(), [1.0, 2.0])
    _close(p.asnumpy(), [1.0, 2.0])


def test_wrapper_arguments():
    with pytest.raises(TypeError, match="'weights' must be Parameters"):
        nn.ForwardValueAndGrad(_net(), get_by_list=True)
    with pytest.raises(TypeError, match="'param' must be a Parameter"):
        nn.ParameterUpdate(Tensor([1.0]))
    with pytest.raises(TypeError, match="'get_all' must be a bool"):
        nn.ForwardValueAndGrad(_net(), get_all=1)
