"""Recurrent layers beyond the goldens (``tests/graphcell/api/cases/nn_rnn.py`` compares them with
MindSpore 2.10): in graph mode the time loop is one IR ``while`` (golden IR; the program does not
grow with the sequence length, forward or gradient), PyNative and graph mode agree on outputs and
gradients, the gradients agree with finite differences in both modes, and bad inputs are refused
with a reason in both modes."""
from __future__ import annotations

import os
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

import graphcell as ms
from graphcell import Tensor, nn
from graphcell.testing import check_grads
from graphcell_ir.ir.walk import walk

GOLDEN = Path(__file__).parent / "golden"
ACCEPT = os.environ.get("GRAPHCELL_ACCEPT") == "1"


@pytest.fixture
def graph_mode():
    ms.set_context(mode=ms.GRAPH_MODE)
    yield
    ms.set_context(mode=ms.PYNATIVE_MODE)


@pytest.fixture(params=["pynative", "graph"])
def mode(request):
    ms.set_context(mode=ms.GRAPH_MODE if request.param == "graph" else ms.PYNATIVE_MODE)
    yield request.param
    ms.set_context(mode=ms.PYNATIVE_MODE)


def _x(T, B=2, n=3, dtype=np.float32, seed=0):
    return Tensor(np.random.default_rng(seed).uniform(-1, 1, (T, B, n)).astype(dtype))


class Loss(nn.Cell):
    """A weighted sum of every output of a layer (LSTM's states too)."""

    def __init__(self, net):
        super().__init__()
        self.net = net

    def construct(self, *args):
        out = self.net(*args)
        total = 0
        for i, o in enumerate(_leaves(out)):
            total = total + (o * (i + 1.0)).sum()
        return total


def _leaves(out):
    return [out] if not isinstance(out, (tuple, list)) else [y for o in out for y in _leaves(o)]


def _ops(module) -> Counter:
    """How many ops of each kind; a zero tensor counts as one whether it is a ``fill`` or a
    folded ``const`` (which it is depends on its size)."""
    return Counter("const" if op.opdef.name == "fill" else op.opdef.name for op in walk(module))


# --- the loop in the IR --------------------------------------------------------------------------

def test_the_time_loop_is_one_while(graph_mode):
    """Golden IR (GRAPHCELL_ACCEPT=1 rewrites it): an Elman layer over 5 steps is one while
    whose body reads step k of x, runs the cell and writes row k of the output."""
    net = nn.RNN(3, 4)
    text = net.compile(_x(5)).as_text(locs="none")
    path = GOLDEN / "rnn_loop.gcir"
    if ACCEPT:
        path.write_text(text)
    assert text == path.read_text()


@pytest.mark.parametrize("make", [
    lambda: nn.LSTM(3, 4, num_layers=2, bidirectional=True),
    lambda: nn.GRU(3, 4, batch_first=True),
], ids=["lstm", "gru"])
def test_the_program_does_not_grow_with_the_sequence(graph_mode, make):
    """The forward and the gradient of 100 steps are the same ops as of 5 steps: one while per
    layer and direction (and one more per loop for the backward), no per-step copies."""
    net = make()
    forward = [_ops(net.compile(_x(T)).module) for T in (5, 100)]
    assert forward[0] == forward[1]
    assert forward[0]["while"] == (4 if net.bidirectional else 1)
    grad = ms.grad(Loss(net), grad_position=0, weights=net.trainable_params())
    backward = [_ops(grad.lower(_x(T)).module) for T in (5, 100)]
    assert backward[0] == backward[1]
    assert backward[0]["while"] == 2 * forward[0]["while"]


# --- both modes ----------------------------------------------------------------------------------

def _outputs_and_grads(net, *args):
    out = _leaves(net(*args))
    grads = ms.grad(Loss(net), grad_position=0, weights=net.trainable_params())(*args)
    return [o.asnumpy() for o in out] + [grads[0].asnumpy()] + [g.asnumpy() for g in grads[1]]


CASES = {
    "lstm_bidirectional_seq_length": (lambda: nn.LSTM(3, 4, 2, bidirectional=True),
                                      lambda x: (x, None, Tensor(np.array([5, 2], np.int32)))),
    "gru_batch_first_state": (lambda: nn.GRU(3, 4, batch_first=True),
                              lambda x: (x.transpose(1, 0, 2), Tensor(np.ones((1, 2, 4))))),
    "rnn_relu_two_layers": (lambda: nn.RNN(3, 4, 2, nonlinearity="relu"), lambda x: (x,)),
}


@pytest.mark.parametrize("name", list(CASES))
def test_pynative_and_graph_mode_agree(name):
    make, args = CASES[name]
    ms.set_seed(3)
    net = make()
    for p in net.get_parameters():
        p.set_dtype(ms.float64)
    inputs = args(_x(5, dtype=np.float64))
    eager = _outputs_and_grads(net, *inputs)
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        compiled = _outputs_and_grads(net, *inputs)
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    for a, b in zip(eager, compiled):
        np.testing.assert_allclose(b, a, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("name", list(CASES))
def test_gradients_against_finite_differences(name, mode):
    make, args = CASES[name]
    ms.set_seed(4)
    net = make()
    for p in net.get_parameters():
        p.set_dtype(ms.float64)
    report = check_grads(Loss(net), args(_x(4, dtype=np.float64)), grad_position=(0,),
                         weights=net.trainable_params())
    assert report.passed, str(report)


def test_dropout_between_layers_when_training(mode):
    net = nn.LSTM(3, 4, num_layers=3, dropout=0.5)
    x = _x(5)
    net.set_train(False)
    quiet = [o.asnumpy() for o in _leaves(net(x))]
    np.testing.assert_array_equal(quiet[0], _leaves(net(x))[0].asnumpy())   # deterministic
    net.set_train(True)
    noisy = [o.asnumpy() for o in _leaves(net(x))]
    assert noisy[0].shape == quiet[0].shape and not np.allclose(noisy[0], quiet[0])
    # the first layer's state comes before any dropout
    np.testing.assert_allclose(noisy[1][0], quiet[1][0], rtol=1e-6)


# --- errors --------------------------------------------------------------------------------------

@pytest.mark.parametrize("call, error, message", [
    (lambda: nn.GRU(3, 4)(_x(5), Tensor(np.zeros((1, 3, 4), np.float32))), ValueError,
     r"'hx' must have shape \[num_layers \* num_directions, batch_size, hidden_size\] = "
     r"\[1, 2, 4\], got Float32 \[1, 3, 4\]"),
    (lambda: nn.LSTM(3, 4)(_x(5), Tensor(np.zeros((1, 2, 4), np.float32))), TypeError,
     r"'hx' must be a tuple \(h_0, c_0\)"),
    (lambda: nn.RNN(3, 4)(_x(5), Tensor(np.zeros((1, 2, 4), np.float64))), TypeError,
     r"'hx' must have the dtype of 'x' \(Float32\), got Float64"),
    (lambda: nn.LSTM(3, 4)(_x(5), None, Tensor(np.array([1.0, 2.0], np.float32))), TypeError,
     r"'seq_length' must be an Int32 or Int64 Tensor"),
    (lambda: nn.LSTM(3, 4)(_x(5), None, Tensor(np.array([1, 2, 3], np.int32))), ValueError,
     r"'seq_length' must have shape \[batch_size\] = \[2\]"),
    (lambda: nn.GRU(5, 4)(_x(5)), ValueError, r"'x' must have shape \[seq_len, batch_size, 5\]"),
    (lambda: nn.GRUCell(3, 4)(_x(1)[0], Tensor(np.zeros((2, 5), np.float32))), ValueError,
     r"GRUCell: 'hx' must have shape \[2, 4\]"),
])
def test_bad_inputs_are_refused_in_both_modes(call, error, message, mode):
    with pytest.raises(error, match=message):
        call()


@pytest.mark.parametrize("make, error, message", [
    (lambda: nn.LSTM(3, 0), ValueError, "'hidden_size' must be a positive int"),
    (lambda: nn.LSTM(3, 4, dropout=1.0), ValueError, r"'dropout' must be in \[0, 1\)"),
    (lambda: nn.GRU(3, 4, has_bias=1), TypeError, "'has_bias' must be a bool"),
    (lambda: nn.RNN(3, 4, nonlinearity="sigmoid"), ValueError, "'nonlinearity' must be one of"),
    (lambda: nn.RNNCell(3, 4, nonlinearity="gelu"), ValueError, "'nonlinearity' must be one of"),
])
def test_bad_arguments_are_refused(make, error, message):
    with pytest.raises(error, match=message):
        make()


def test_parameters_have_mindspores_names_shapes_and_initialisation():
    net = nn.LSTM(3, 4, num_layers=2, bidirectional=True)
    names = [(p.name, p.shape) for p in net.trainable_params()]
    assert names[:4] == [("weight_ih_l0", (16, 3)), ("weight_ih_l0_reverse", (16, 3)),
                         ("weight_ih_l1", (16, 8)), ("weight_ih_l1_reverse", (16, 8))]
    assert [n for n, _ in names[4:]] == [f"{kind}_l{k}{d}" for kind in ("weight_hh", "bias_ih",
                                                                         "bias_hh")
                                          for k in (0, 1) for d in ("", "_reverse")]
    bound = 1 / np.sqrt(4)
    values = np.concatenate([p.asnumpy().ravel() for p in net.trainable_params()])
    assert values.min() >= -bound and values.max() <= bound and values.std() > bound / 3
    cell = nn.GRUCell(3, 5, has_bias=False)
    assert [(p.name, p.shape) for p in cell.trainable_params()] == [("weight_ih", (15, 3)),
                                                                   ("weight_hh", (15, 5))]


def test_grad_of_a_layer_with_nested_outputs_and_optional_arguments(mode):
    """``ms.grad(lstm)(x)``, as MindSpore allows: the optional hx/seq_length are left out, and
    every output of ``(output, (h_n, c_n))`` gets a cotangent of ones."""
    ms.set_seed(8)
    net = nn.LSTM(3, 4)
    x = _x(5)
    got = ms.grad(net, grad_position=0)(x).asnumpy()

    class Sum(nn.Cell):
        def __init__(self):
            super().__init__()
            self.net = net

        def construct(self, x):
            out, (h, c) = self.net(x)
            return out.sum() + h.sum() + c.sum()
    np.testing.assert_allclose(got, ms.grad(Sum(), grad_position=0)(x).asnumpy(), rtol=1e-6)
    sens = (Tensor(np.full((5, 2, 4), 2.0, np.float32)),
            (Tensor(np.zeros((1, 2, 4), np.float32)), Tensor(np.zeros((1, 2, 4), np.float32))))
    twice = ops_grad_with_sens(net)(x, sens)
    np.testing.assert_allclose(twice.asnumpy(), 2 * ms.grad(lambda x: net(x)[0], 0)(x).asnumpy(),
                               rtol=1e-6)


def ops_grad_with_sens(net):
    from graphcell import ops
    return ops.GradOperation(sens_param=True)(net)
