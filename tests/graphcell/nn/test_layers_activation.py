"""Activation layers beyond the golden cases: what MindSpore 2.10's CPU build cannot run
(``LogSoftmaxExt``), what graphcell accepts beyond it (a tuple axis for ``Softmax``), the random
``RReLU``, ``get_activation``'s table and the printed forms."""
import numpy as np
import pytest

import graphcell as ms
from graphcell import Tensor, nn
from layer_helpers import both_modes

X = np.random.default_rng(0).uniform(-3, 3, (2, 3, 4)).astype(np.float32)


def _log_softmax(x, axis):
    x = x.astype(np.float64)
    m = x.max(axis=axis, keepdims=True)
    return x - m - np.log(np.exp(x - m).sum(axis=axis, keepdims=True))


@pytest.mark.parametrize("shape, dim, axis", [((3,), None, 0), ((2, 3), None, 1),
                                              ((2, 3, 4), None, 0), ((2, 3, 2, 2), None, 1),
                                              ((2, 3, 4), -1, -1)])
def test_log_softmax_ext_picks_pytorch_legacy_axis(shape, dim, axis):
    x = np.random.default_rng(1).normal(size=shape).astype(np.float32)
    for out in both_modes(nn.LogSoftmaxExt(dim), Tensor(x)):
        np.testing.assert_allclose(out.asnumpy(), _log_softmax(x, axis), rtol=1e-5, atol=1e-6)


def test_softmax_over_a_tuple_of_axes():
    # MindSpore 2.10's CPU kernel takes one axis only; graphcell normalises over several
    e = np.exp(X - X.max(axis=(0, 2), keepdims=True))
    for out in both_modes(nn.Softmax(axis=(0, 2)), Tensor(X)):
        np.testing.assert_allclose(out.asnumpy(), e / e.sum(axis=(0, 2), keepdims=True),
                                   rtol=1e-5)


@pytest.mark.parametrize("mode", ["pynative", "graph"])
def test_rrelu_slopes_are_uniform_in_lower_upper(mode):
    ms.set_seed(3)
    cell = nn.RReLU(0.1, 0.3)
    x = Tensor(np.tile(np.array([-2.0, 0.0, 1.5], np.float32), 4000))
    out = (cell(x) if mode == "pynative" else ms.jit(lambda a: cell(a))(x)).asnumpy()
    xs = x.asnumpy()
    np.testing.assert_array_equal(out[xs >= 0], xs[xs >= 0])
    slopes = out[xs < 0] / xs[xs < 0]
    assert slopes.min() >= 0.1 and slopes.max() < 0.3
    assert abs(slopes.mean() - 0.2) < 0.005 and abs(slopes.var() - 0.2 ** 2 / 12) < 1e-3
    cell.set_train(False)  # MindSpore's RReLU draws in inference too
    again = (cell(x) if mode == "pynative" else ms.jit(lambda a: cell(a))(x)).asnumpy()
    assert not np.array_equal(again, out)


def test_rrelu_is_reproducible_with_set_seed():
    x = Tensor(-np.ones(50, np.float32))
    ms.set_seed(11)
    first = nn.RReLU()(x).asnumpy()
    ms.set_seed(11)
    np.testing.assert_array_equal(nn.RReLU()(x).asnumpy(), first)


def test_rrelu_gradient_is_the_drawn_slope():
    x = Tensor(np.array([-1.0, -2.0, 3.0], np.float32))
    ms.set_seed(5)
    out = nn.RReLU()(x).asnumpy()
    ms.set_seed(5)
    grad = ms.grad(lambda a: nn.RReLU()(a).sum())(x).asnumpy()
    np.testing.assert_allclose(grad, out / x.asnumpy(), rtol=1e-6)


def test_log_sigmoid_is_finite_far_below_zero():
    # MindSpore's log(1 / (1 + exp(-x))) gives -inf at -200; -softplus(-x) gives -200
    out = nn.LogSigmoid()(Tensor(np.array([-200.0, 0.0], np.float32))).asnumpy()
    np.testing.assert_allclose(out, [-200.0, -np.log(2)], rtol=1e-6)


def test_get_activation_names_are_mindspores():
    names = ["softmin", "softmax", "softmax2d", "logsoftmax", "logsoftmaxExt", "relu", "relu6",
             "rrelu", "silu", "tanh", "tanhshrink", "hardtanh", "gelu", "fast_gelu", "elu",
             "sigmoid", "softsign", "prelu", "preluExt", "leakyrelu", "hswish", "hsigmoid",
             "logsigmoid", "softshrink", "hshrink", "mish"]
    for name in names:
        assert isinstance(nn.get_activation(name), nn.Cell), name
    assert isinstance(nn.get_activation("gelu"), nn.GELU)
    with pytest.raises(TypeError):
        nn.get_activation("threshold")  # listed by MindSpore; its constructor needs arguments
    with pytest.raises(KeyError, match="unknown activation 'swish'"):
        nn.get_activation("swish")


def test_activation_reprs_print_no_settings():
    # MindSpore 2.10 prints none of these layers' settings
    cells = [nn.LeakyReLU(0.1), nn.PReLU(3), nn.GELU(False), nn.Threshold(0.1, 2.0), nn.ELU(0.5)]
    assert [repr(c) for c in cells] == ["LeakyReLU()", "PReLU()", "GELU()", "Threshold()",
                                        "ELU()"]


def test_prelu_parameter_is_named_a():
    cell = nn.PReLU(channel=2, w=[0.1, 0.2])
    assert [(n, p.name, p.shape) for n, p in cell.parameters_and_names()] == [("w", "a", (2,))]
    ext = nn.PReLUExt(3, init=0.5, dtype=ms.float64)
    assert ext.weight.dtype == ms.float64 and ext.weight.shape == (3,)
